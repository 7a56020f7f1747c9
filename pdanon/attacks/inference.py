"""Inference: can a person's secret be guessed from the release, given some of their columns?

The attacker knows a target's auxiliary columns (``aux_cols``) and looks up the release rows
nearest to them (those whose cells contain the values; else the nearest by Gower's distance,
:mod:`pdanon.attacks._columns`). Its guess of the ``secret``: the most frequent secret among
those rows for categories (ties at random); for numbers, the median of the rows' secrets (a
published range counts as its midpoint). Success: the guess equals the target's secret
(categories; missing equals missing) or lies within ``tolerance`` × |secret| of it (numbers).
Targets come from the original (main) and the control; the naive attacker guesses the secret of
a random release row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._errors import KindError
from pdanon.attacks import _checks
from pdanon.attacks._columns import Column
from pdanon.attacks._match import Side, matches
from pdanon.attacks._result import LEVEL, AttackResult, rate, rng_of

WHAT = "inference"


def _secret_values(col: Column, release: pd.Series) -> np.ndarray:
    """One value per release row in the secret's space: a key (categories) or a number."""
    cells = col.release_cells(release)
    if col.space == "num":
        return np.where(cells.na, np.nan, (cells.lo + cells.hi) / 2)
    if col.space == "pos":
        return np.where(cells.na, np.nan, np.floor((cells.lo + cells.hi) / 2))
    if (cells.key < 0).any():
        raise KindError(f"{WHAT}: the secret {col.name!r} is published as sets of values; "
                        f"attack a secret published as plain values")
    return cells.key


def _vote(t, r, secret, n_targets, rng, numeric):
    """Per target, the guess from its matched rows."""
    guess = np.full(n_targets, np.nan)
    if not len(t):
        return guess
    s = secret[r]
    if numeric:
        keep = ~np.isnan(s)
        t, s = t[keep], s[keep]
        order = np.lexsort((s, t))
        t, s = t[order], s[order]
        counts = np.bincount(t, minlength=n_targets)
        start = np.cumsum(counts) - counts
        have = counts > 0
        lo = start + (counts - 1) // 2
        hi = start + counts // 2
        guess[have] = (s[lo[have]] + s[hi[have]]) / 2
        return guess
    s = np.nan_to_num(s.astype(np.float64), nan=-1.0)
    pairs = np.stack([t.astype(np.float64), s], axis=1)
    uniq, votes = np.unique(pairs, axis=0, return_counts=True)
    score = votes + rng.random(len(votes)) * 0.5  # ties at random
    order = np.lexsort((-score, uniq[:, 0]))
    first = np.ones(len(order), dtype=bool)
    first[1:] = uniq[order[1:], 0] != uniq[order[:-1], 0]
    best = order[first]
    guess[uniq[best, 0].astype(np.int64)] = uniq[best, 1]
    return np.where(guess == -1.0, np.nan, guess)


def _hits(guess, truth, numeric, tolerance):
    both_na = np.isnan(guess) & np.isnan(truth)
    if numeric:
        with np.errstate(invalid="ignore"):
            close = np.abs(guess - truth) <= tolerance * np.abs(truth)
        return both_na | (close & ~np.isnan(guess))
    return both_na | (guess == truth)


def inference(release: pd.DataFrame, original: pd.DataFrame, *, control: pd.DataFrame,
              aux_cols, secret, n_attacks: int | None = None, tolerance: float = 0.05,
              seed=None, level: float = LEVEL, missing: str = "value") -> AttackResult:
    """Inference risk of ``secret`` in ``release`` for records of ``original`` given their
    ``aux_cols`` (see the module docstring and docs/attacks.md).

    ``tolerance``: a numeric guess succeeds within ``tolerance × |secret|``; ``n_attacks``:
    targets drawn from the original and the control (default ``min(2000, rows)``); ``seed``:
    for tests (else a CSPRNG); ``missing="wildcard"``: a missing release cell contains every
    value. ``detail``: per main target, its row in ``original``, ``guess`` (a number, or the
    position of the category among the secret's values), ``matches`` (rows at the least
    distance), ``distance`` and ``success``.

    Example
    -------
    >>> original = pd.DataFrame({"zip": list("abcdefghij") * 2, "sick": [0, 1] * 10})
    >>> control = pd.DataFrame({"zip": list("abcdefghij") * 2, "sick": [1, 0] * 10})
    >>> r = inference(original, original, control=control, aux_cols=["zip"], secret="sick",
    ...               seed=0)
    >>> r.main_rate, r.control_rate, r.risk
    (1.0, 0.0, 1.0)
    """
    if isinstance(secret, (list, tuple)):
        raise _checks.InvalidInputError(f"{WHAT}: secret names one column, got {secret!r}")
    aux = _checks.aux_secret(aux_cols, secret, what=WHAT)
    _checks.check_frames(release, original, control, aux + [secret], what=WHAT)
    missing = _checks.check_missing(missing)
    level = _checks.check_level(level)
    if not (isinstance(tolerance, (int, float)) and tolerance >= 0):
        raise _checks.InvalidInputError(f"{WHAT}: tolerance must be a number >= 0, got "
                                        f"{tolerance!r}")
    rng = rng_of(seed)
    n, main_t, ctrl_t = _checks.draw_targets(n_attacks, original, control, rng, what=WHAT)
    scol = Column(secret, original[secret], release[secret], [control[secret]])
    numeric = scol.space == "num"
    svals = _secret_values(scol, release[secret]).astype(np.float64)
    side = Side(release, original, control, aux, missing)
    out = {}
    for name, df, rows in (("main", original, main_t), ("control", control, ctrl_t)):
        t, r, dist = matches(side, side.values(df, rows))
        guess = _vote(t, r, svals, n, rng, numeric)
        truth = scol.values(df[secret].iloc[rows]).astype(np.float64)
        if scol.space == "cat":
            truth = np.where(truth == scol.missing_key, np.nan, truth)
            guess = np.where(guess == scol.missing_key, np.nan, guess)
        out[name] = (_hits(guess, truth, numeric, tolerance), guess,
                     np.bincount(t, minlength=n), dist)
    base_guess = svals[rng.integers(0, len(release), size=n)]
    truth = scol.values(original[secret].iloc[main_t]).astype(np.float64)
    if scol.space == "cat":
        truth = np.where(truth == scol.missing_key, np.nan, truth)
        base_guess = np.where(base_guess == scol.missing_key, np.nan, base_guess)
    base_ok = _hits(base_guess, truth, numeric, tolerance)
    ok, guess, count, dist = out["main"]
    ctrl_ok = out["control"][0]
    detail = pd.DataFrame({"target": main_t, "guess": guess, "matches": count,
                           "distance": dist, "success": ok})
    return AttackResult(WHAT, rate(ok.sum(), n), rate(ctrl_ok.sum(), n), rate(base_ok.sum(), n),
                        n, float(ok.sum()), float(ctrl_ok.sum()), n, level, detail)
