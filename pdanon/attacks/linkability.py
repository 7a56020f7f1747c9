"""Linkability: can two halves of a person's record be joined through the release?

The attacker holds, for a target, two disjoint groups of columns (``aux_cols = (cols_a,
cols_b)``), as if from two other sources. It looks up the ``n_neighbors`` release rows nearest
to each half (a row whose cells contain the values is at distance 0; otherwise Gower's distance
by the columns' kinds, :mod:`pdanon.attacks._columns`; ties broken at random) and succeeds
when the two sets share a row: the release links the halves. Targets are drawn from the
original (main attack) and from the control (held-out rows the release never saw); the naive
attacker picks ``n_neighbors`` random rows per half.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon.attacks import _checks
from pdanon.attacks._match import Side, nearest, random_sets
from pdanon.attacks._result import LEVEL, AttackResult, rate, rng_of

WHAT = "linkability"


def linkability(release: pd.DataFrame, original: pd.DataFrame, *, control: pd.DataFrame,
                aux_cols, n_neighbors: int = 1, n_attacks: int | None = None, seed=None,
                level: float = LEVEL, missing: str = "value",
                hierarchies=None) -> AttackResult:
    """Linkability risk of ``release`` for records of ``original`` (see the module docstring
    and docs/attacks.md).

    ``aux_cols``: ``(cols_a, cols_b)``, two disjoint groups of columns; ``n_neighbors``: how
    many nearest release rows each half may point to; ``n_attacks``: targets drawn from the
    original and from the control (default ``min(2000, rows)``); ``seed``: for tests (else a
    CSPRNG); ``missing="wildcard"``: a missing release cell contains every value (local
    suppression); ``hierarchies``: ``{column: hierarchy}`` to read published hierarchy labels
    (docs/attacks.md). ``detail``: per target of the main attack, its row in ``original``
    (``target``), the release rows each half chose and ``success``.

    Example
    -------
    >>> original = pd.DataFrame({"a": range(0, 40, 2), "b": range(0, 40, 2)})
    >>> control = pd.DataFrame({"a": range(1, 41, 2), "b": range(39, 0, -2)})
    >>> r = linkability(original, original, control=control, aux_cols=(["a"], ["b"]), seed=0)
    >>> r.main_rate, r.risk > 0.8
    (1.0, True)
    """
    cols_a, cols_b = _checks.aux_pair(aux_cols, what=WHAT)
    _checks.check_frames(release, original, control, cols_a + cols_b, what=WHAT)
    missing = _checks.check_missing(missing)
    level = _checks.check_level(level)
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, (int, np.integer)) \
            or not 1 <= n_neighbors <= len(release):
        raise _checks.InvalidInputError(
            f"{WHAT}: n_neighbors must be an integer in 1..{len(release)} (the release's rows), "
            f"got {n_neighbors!r}")
    rng = rng_of(seed)
    n, main_t, ctrl_t = _checks.draw_targets(n_attacks, original, control, rng, what=WHAT)
    picks = {}
    for half, cols in (("a", cols_a), ("b", cols_b)):
        side = Side(release, original, control, cols, missing, hierarchies)
        picks[half] = (nearest(side, side.values(original, main_t), n_neighbors, rng),
                       nearest(side, side.values(control, ctrl_t), n_neighbors, rng))

    def linked(x, y):
        return (x[:, :, None] == y[:, None, :]).any(axis=(1, 2))

    main_ok = linked(picks["a"][0], picks["b"][0])
    ctrl_ok = linked(picks["a"][1], picks["b"][1])
    base_ok = linked(random_sets(rng, len(release), n, n_neighbors),
                     random_sets(rng, len(release), n, n_neighbors))
    detail = pd.DataFrame({"target": main_t, "rows_a": list(picks["a"][0]),
                           "rows_b": list(picks["b"][0]), "success": main_ok,
                           "control_success": ctrl_ok})
    return AttackResult(WHAT, rate(main_ok.sum(), n), rate(ctrl_ok.sum(), n),
                        rate(base_ok.sum(), n), n, float(main_ok.sum()), float(ctrl_ok.sum()),
                        n, level, detail)
