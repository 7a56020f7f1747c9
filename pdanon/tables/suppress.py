"""Secondary suppression: withhold more cells so that no primary cell can be recomputed.

Withholding the primary cells alone rarely protects them: a withheld cell is its row's total
minus the published cells of the row. Secondary suppression chooses further cells so that, for
each primary cell ``p``, the attacker's range (:mod:`pdanon.tables.audit`) reaches ``value +
upper`` and ``value - lower``. Equivalently (Fischetti & Salazar-González, Management Science
2001): for each primary cell and each direction there must be a *deviation* ``z`` — a change of
the table that keeps it additive (``A z = 0``), moves ``p`` by its protection level, keeps every
cell non-negative (``z_c >= -x_c``) and changes only withheld cells.

Methods:

* ``"optimal"`` — that model solved exactly by cuts (Benders decomposition, as Fischetti and
  Salazar-González do): a master integer program chooses the cells (0/1 each, minimizing the
  cost; at first only "every equation through a primary cell holds a second withheld cell"),
  the attacker's programs check each primary cell and direction, and each one left
  unprotected adds a cut — the supergradient of the attacker's best move in the pattern (an
  LP's value is concave in its bounds) and "some cell not yet withheld must be". It stops when
  the master's pattern protects every primary cell: that pattern is optimal
  (``info["optimal"]``). Measured here on a loaded 2-core machine: 726 cells with 183 primary
  cells in 2.8–6.6 s. ``time_limit`` bounds the search; past it the fast method's pattern is
  returned with a :class:`SuppressionWarning` (its time comes on top).
* ``"fast"`` — the same deviations found one at a time: for each primary cell and direction a
  deviation found earlier does not cover, one linear program picks the cheapest deviation
  (cells already withheld cost nothing), and the cells it moves are withheld. A deviation stays
  valid when more cells are withheld, so the pattern protects every primary cell by
  construction; it is not minimal (37 secondary cells where the optimum is 26, on the table
  above). Tables of more than :data:`pdanon.tables.fast.LOCAL_ABOVE` cells solve each program on a neighbourhood
  first: 20,956 cells with 5,451 primary cells in 22 s.

``cost`` is what is minimized: ``"value"`` (the withheld total, plus a small charge per cell so
that empty cells are not free) or ``"count"`` (the number of withheld cells). Every pattern is
verified before it is returned: for each primary cell and direction, the audit's program finds
a table consistent with the published cells that reaches the required bound (a pattern the
audit rejects is never returned); the full audit, every withheld cell's exact range, is
``protected.audit``.

>>> import pandas as pd
>>> from pdanon.tables.table import build
>>> df = pd.DataFrame({"r": list("aabbbccc"), "c": list("xyxyyxxy")})
>>> p = protect(build(df, index="r", columns="c"), {"min_frequency": 2})
>>> p.cells.status.value_counts().sort_index().to_dict()
{'primary': 4, 'safe': 6, 'secondary': 2}
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from pdanon._errors import InvalidInputError
from pdanon.tables.deviations import (
    Deviations,
    blocks,
    singleton_blocks,
    uncovered,
    weights,
)
from pdanon.tables.fast import fast
from pdanon.tables.modular import modular
from pdanon.tables.optimal import optimal
from pdanon.tables.protected import ProtectedTable
from pdanon.tables.rules import check_rules, primary

__all__ = ["METHODS", "ProtectedTable", "SuppressionWarning", "protect"]

METHODS = ("optimal", "fast", "modular")
COSTS = ("value", "count")


class SuppressionWarning(UserWarning):
    """A secondary suppression stopped early (time limit): the pattern returned passed the
    audit but may withhold more than needed."""


def protect(table, rules=None, *, method: str = "optimal", cost: str = "value",
            time_limit: float = 60.0, singletons="auto",
            secondary_zeros: bool = False) -> ProtectedTable:
    """Primary suppression by ``rules`` (:func:`pdanon.tables.primary`), secondary suppression
    by ``method``, then the audit; returns a :class:`ProtectedTable`.

    ``singletons``: a primary cell of one contributor is known exactly to that contributor,
    who then attacks the cells around it with more knowledge than an outsider
    (:func:`~pdanon.tables.deviations.singleton_blocks`). ``"auto"`` protects against such
    holders in magnitude tables and in count tables with ``contributor=`` (holders that know
    their own figures, such as enterprises), not in counts of rows; ``True``/``False`` decide.
    ``secondary_zeros``: an empty cell is never chosen as a secondary unless this is True (an
    attacker often knows a cell is empty — a structural zero — so withholding it hides nothing,
    while a cost that counts the value would pick it first).

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.tables.table import build
    >>> df = pd.DataFrame({"r": list("aabbbb"), "c": list("xyxyxy")})
    >>> p = protect(build(df, index="r", columns="c"), {"min_frequency": 2}, method="fast")
    >>> p.audit.ok, int((p.cells.status == "primary").sum())
    (True, 2)
    """
    if method not in METHODS:
        raise InvalidInputError(f"method={method!r} is not a suppression method; use one of "
                                f"{METHODS}")
    if cost not in COSTS:
        raise InvalidInputError(f"cost={cost!r}: use one of {COSTS}")
    if not (isinstance(time_limit, (int, float)) and time_limit > 0):
        raise InvalidInputError(f"time_limit={time_limit!r} must be a positive number of seconds")
    if singletons not in ("auto", True, False):
        raise InvalidInputError(f"singletons={singletons!r}: use 'auto', True or False")
    if not isinstance(secondary_zeros, bool):
        raise InvalidInputError(f"secondary_zeros={secondary_zeros!r} must be True or False")
    start = time.perf_counter()
    levels = primary(table, rules)
    x = table.cells["value"].to_numpy(dtype=np.float64)
    fixed = (levels["status"] == "primary").to_numpy()
    A = table.constraints.astype(np.float64).tocsr()
    w = weights(x, cost)
    todo = blocks(levels)
    n_single = 0
    if singletons is True or (singletons == "auto" and (not table.is_count
                                                        or table.contributor is not None)):
        coalition = singleton_blocks(A, levels, table.sole_holder(), todo)
        n_single = len(coalition)
        todo = todo + coalition
    big = float(x.max() + max((abs(b.level) for b in todo), default=0.0) + 1.0)
    closed = None if secondary_zeros else \
        (table.cells["frequency"].to_numpy() == 0) & ~fixed
    dev = Deviations(A, x, big, tuple(d.n_nodes for d in table.dims), table.dims, closed)
    note = None
    proven = None
    extra = {}
    if not todo:
        withheld = fixed.copy()
    elif method == "optimal":
        withheld, proven = optimal(dev, A, w, todo, fixed, start + time_limit)
        if withheld is None and not proven:
            withheld = fast(dev, w, todo, fixed)
            note = (f"the optimal search did not finish within time_limit={time_limit:g} s; "
                    f"the fast method's pattern is returned (it passed the audit; it may "
                    f"withhold more than needed)")
        elif withheld is not None and not proven:
            note = (f"the optimal search stopped at time_limit={time_limit:g} s; its best "
                    f"pattern is returned (it passed the audit; it may not be minimal)")
    elif method == "modular":
        withheld, extra = modular(dev, table.dims, w, levels, todo, start + time_limit)
        note = extra.pop("note", None)
    else:
        withheld = fast(dev, w, todo, fixed)
    if withheld is None:
        raise InvalidInputError(_impossible(table, dev, todo, fixed, secondary_zeros))
    failing = uncovered(dev, todo, withheld)
    if failing:  # never return a pattern the audit rejects
        raise RuntimeError(
            f"internal error: the {method} pattern leaves {len(failing)} primary cells and "
            f"directions unprotected; please report it with the table")
    cells = table.cells.copy()
    status = np.where(fixed, "primary", np.where(withheld, "secondary", "safe"))
    cells["status"] = status
    cells["rule"] = levels["rule"].to_numpy()
    cells["lower"] = levels["lower"].to_numpy()
    cells["upper"] = levels["upper"].to_numpy()
    if note:
        warnings.warn(note, SuppressionWarning, stacklevel=2)
    info = {"method": method, "cost": cost, "optimal": proven, "primary": int(fixed.sum()),
            "secondary": int((withheld & ~fixed).sum()),
            "withheld_value": float(x[withheld].sum()),
            "withheld_share": float(x[withheld].sum() / x.sum()) if x.sum() > 0 else 0.0,
            "seconds": time.perf_counter() - start, **extra}
    info["singleton_blocks"] = n_single
    info["rules"] = check_rules(rules, is_count=table.is_count)  # as checked, for the report
    return ProtectedTable(table, cells, info)


def _impossible(table, dev: Deviations, todo, fixed, secondary_zeros: bool) -> str:
    """Why no pattern protects: the cells that, even with every cell that may be withheld
    withheld, the published structure pins closer than their protection levels."""
    bad = []
    for b in todo:
        if not dev.within(b.cell, b.level, dev.open(fixed, b)):
            bad.append(b)
    if not bad:
        return "no suppression pattern was found (please report it with the table)"
    dims = table.dimensions
    keys = table.cells[dims].to_numpy()

    def name(c):
        return "(" + ", ".join(f"{d}={v!r}" for d, v in zip(dims, keys[c])) + ")"

    first = bad[0]
    how = "up" if first.level > 0 else "down"
    why = (f"even with every other cell withheld, the additivity and non-negativity of the "
           f"table keep it from moving {how} by {abs(first.level):g}")
    if first.frozen:
        why += (f" once the sole contributor of {', '.join(name(c) for c in first.frozen)} "
                f"uses its own figures (singletons=False turns this attacker off)")
    hint = "" if secondary_zeros or not dev.closed.any() else \
        "; empty cells are not used as secondaries (secondary_zeros=True allows them)"
    cells = sorted({b.cell for b in bad})
    return (f"no suppression pattern can protect {len(cells)} primary cell(s), first "
            f"{name(first.cell)}: {why}{hint}; coarsen the table (a hierarchy, fewer "
            f"dimensions) or drop a margin")
