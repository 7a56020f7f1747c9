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
from pdanon.tables.deviations import Deviations, blocks, uncovered, weights
from pdanon.tables.fast import fast
from pdanon.tables.gauss import gauss
from pdanon.tables.optimal import optimal
from pdanon.tables.protected import ProtectedTable
from pdanon.tables.rules import primary

__all__ = ["METHODS", "ProtectedTable", "SuppressionWarning", "protect"]

METHODS = ("optimal", "fast", "gauss")
COSTS = ("value", "count")


class SuppressionWarning(UserWarning):
    """A secondary suppression stopped early (time limit): the pattern returned passed the
    audit but may withhold more than needed."""


def protect(table, rules=None, *, method: str = "optimal", cost: str = "value",
            time_limit: float = 60.0) -> ProtectedTable:
    """Primary suppression by ``rules`` (:func:`pdanon.tables.primary`), secondary suppression
    by ``method``, then the audit; returns a :class:`ProtectedTable`.

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
    start = time.perf_counter()
    levels = primary(table, rules)
    x = table.cells["value"].to_numpy(dtype=np.float64)
    fixed = (levels["status"] == "primary").to_numpy()
    A = table.constraints.astype(np.float64).tocsr()
    w = weights(x, cost)
    todo = blocks(levels)
    big = float(x.max() + max((abs(v) for _, v in todo), default=0.0) + 1.0)
    dev = Deviations(A, x, big, tuple(d.n_nodes for d in table.dims), table.dims)
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
    elif method == "gauss":
        withheld, extra = gauss(table, dev, w, todo, fixed)
    else:
        withheld = fast(dev, w, todo, fixed)
    if withheld is None:
        unsafe = list(levels.index[fixed])
        raise InvalidInputError(
            f"no suppression pattern can protect cells {unsafe[:5]}: the table's structure pins "
            f"them whatever else is withheld; coarsen the table or drop a margin")
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
    return ProtectedTable(table, cells, info)
