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
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from pdanon._errors import InvalidInputError
from pdanon.tables.deviations import Deviations, blocks, certify, singleton_blocks, weights
from pdanon.tables.fast import fast
from pdanon.tables.gauss import gauss
from pdanon.tables.modular import modular
from pdanon.tables.optimal import optimal
from pdanon.tables.protected import ProtectedTable
from pdanon.tables.rules import check_rules, primary
from pdanon.tables.structure import below

__all__ = ["METHODS", "Problem", "ProtectedTable", "SuppressionWarning", "check",
           "closed_cells", "problem", "protect", "solve", "statuses"]

METHODS = ("optimal", "fast", "gauss", "modular")
COSTS = ("value", "count")


class SuppressionWarning(UserWarning):
    """A secondary suppression stopped early (time limit): the pattern returned passed the
    audit but may withhold more than needed."""


@dataclass
class Problem:
    """What a method of secondary suppression works on: the equations ``A`` (``A @ x == 0``,
    one column per cell), the values ``x`` and the primary ``levels`` (``status``, ``rule``,
    ``lower``, ``upper`` per cell, :func:`pdanon.tables.primary`). ``shape`` and ``dims`` (the
    nodes per dimension, the dimensions) let the fast method look at a cell's neighbourhood
    first; linked tables have none (``None``) and give ``near(p, price, width)`` instead
    (:meth:`pdanon.tables.union.CellUnion.neighbourhood`). ``holder``: per cell, its sole
    contributor (-1 when it has several), or None when singletons are not modelled;
    ``closed``: cells never chosen as secondaries (empty cells by default); ``keys``: the
    cells' labels, for messages."""

    A: sparse.csr_matrix
    x: np.ndarray
    levels: pd.DataFrame
    shape: tuple | None = None
    dims: list | None = None
    near: object = None
    holder: np.ndarray | None = None
    closed: np.ndarray | None = None
    keys: pd.DataFrame | None = None
    #: set by :func:`solve`: per protection, the deviation that proves it (publisher-only)
    certificates: list | None = None


def _one_subtable(dims) -> bool:
    """No dimension has a sub-total below its grand total: the modular method's sub-tables
    are the table itself."""
    return dims is not None and all(len(d.children) <= 1 for d in dims)


def models_singletons(table, singletons) -> bool:
    """Whether ``singletons`` ("auto", True, False) models sole contributors on ``table``:
    "auto" does for sums and for counts with ``contributor=``."""
    if singletons == "auto":
        return not table.is_count or table.contributor is not None
    return bool(singletons)


def problem(table, rules=None, *, singletons="auto", secondary_zeros: bool = False) -> Problem:
    """The problem of one table: its equations, values and primary levels by ``rules``."""
    levels = primary(table, rules)
    return Problem(table.constraints.astype(np.float64).tocsr(),
                   table.cells["value"].to_numpy(dtype=np.float64), levels,
                   tuple(d.n_nodes for d in table.dims), table.dims,
                   holder=table.sole_holder() if models_singletons(table, singletons) else None,
                   closed=closed_cells(table.cells, levels, secondary_zeros,
                                       table.constraints),
                   keys=table.cells[table.dimensions])


def closed_cells(cells: pd.DataFrame, levels: pd.DataFrame, secondary_zeros: bool,
                 constraints) -> np.ndarray | None:
    """The cells no method may choose as secondaries: the empty ones (frequency 0) that no
    rule made primary, unless ``secondary_zeros``; None when every cell may be chosen. The
    empty parts of an empty primary sub-total stay open: it can only move if they do."""
    if secondary_zeros:
        return None
    empty = cells["frequency"].to_numpy() == 0
    primary_cell = (levels["status"] == "primary").to_numpy()
    return empty & ~primary_cell & ~below(constraints, empty & primary_cell)


def check(method: str, cost: str, time_limit, singletons="auto",
          secondary_zeros: bool = False) -> None:
    """Refuse an unknown method or cost, a time limit that is not a positive number, or
    singletons/secondary_zeros of the wrong kind."""
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


def protect(table, rules=None, *, method: str = "optimal", cost: str = "value",
            time_limit: float = 60.0, singletons="auto",
            secondary_zeros: bool = False) -> ProtectedTable:
    """Primary suppression by ``rules`` (:func:`pdanon.tables.primary`), secondary suppression
    by ``method``, then the audit; returns a :class:`ProtectedTable`. (Several tables of one
    frame are protected together by :func:`pdanon.tables.protect` given a list.)

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
    check(method, cost, time_limit, singletons, secondary_zeros)
    start = time.perf_counter()
    prob = problem(table, rules, singletons=singletons, secondary_zeros=secondary_zeros)
    withheld, info = solve(prob, method=method, cost=cost, time_limit=time_limit, start=start)
    info["rules"] = check_rules(rules, is_count=table.is_count)  # as checked, for the report
    out = ProtectedTable(table, statuses(table.cells, prob.levels, withheld), info)
    out.certificates = prob.certificates
    return out


def solve(prob: Problem, *, method: str = "optimal", cost: str = "value",
          time_limit: float = 60.0, start: float | None = None) -> tuple[np.ndarray, dict]:
    """Secondary suppression of ``prob`` by ``method``, verified: the cells withheld (a mask,
    primary cells included) and the run's ``info``. ``start`` is when the work began
    (``time_limit`` counts from it)."""
    check(method, cost, time_limit)
    if method in ("modular", "gauss") and prob.dims is None:
        raise InvalidInputError(
            f"method={method!r} reads one table's dimensions; linked tables are protected "
            f"together by method='optimal' or 'fast'")
    start = time.perf_counter() if start is None else start
    levels, x, A = prob.levels, prob.x, prob.A
    fixed = (levels["status"] == "primary").to_numpy()
    w = weights(x, cost)
    todo = blocks(levels)
    n_single = 0
    if prob.holder is not None:
        coalition = singleton_blocks(A, levels, prob.holder, todo)
        n_single = len(coalition)
        todo = todo + coalition
    big = float(x.max() + max((abs(b.level) for b in todo), default=0.0) + 1.0)
    dev = Deviations(A, x, big, prob.shape, prob.dims, closed=prob.closed, near=prob.near)
    note = None
    proven = None
    extra = {}
    if not todo:
        withheld = fixed.copy()
    elif method == "optimal" or (method == "modular" and _one_subtable(prob.dims)):
        # without a hierarchy the modular method's one sub-table is the whole table: the
        # optimal method, with the whole table's neighbourhoods for its fallback
        withheld, proven = optimal(dev, A, w, todo, fixed, start + time_limit)
        if method == "modular":
            extra = {"subtables": 1, "subtables_solved": 1, "subtables_proven": int(bool(
                proven)), "repair_cells": 0}
        if withheld is None and not proven:
            withheld = fast(dev, w, todo, fixed)
            note = (f"the optimal search did not finish within time_limit={time_limit:g} s; "
                    f"the fast method's pattern is returned (it passed the audit; it may "
                    f"withhold more than needed)")
        elif withheld is not None and not proven:
            note = (f"the optimal search stopped at time_limit={time_limit:g} s; its best "
                    f"pattern is returned (it passed the audit; it may not be minimal)")
    elif method == "modular":
        withheld, extra = modular(dev, prob.dims, w, levels, todo, start + time_limit)
        note = extra.pop("note", None)
    elif method == "gauss":
        withheld, extra = gauss(prob.dims, dev, w, todo, fixed)
    else:
        withheld = fast(dev, w, todo, fixed)
    if withheld is None:
        raise InvalidInputError(_impossible(prob, dev, todo, fixed))
    certificates, failing = certify(dev, todo, withheld)
    if failing:  # never return a pattern the audit rejects
        raise RuntimeError(
            f"internal error: the {method} pattern leaves {len(failing)} primary cells and "
            f"directions unprotected; please report it with the table")
    prob.certificates = certificates
    if note:
        warnings.warn(note, SuppressionWarning, stacklevel=3)
    info = {"method": method, "cost": cost, "optimal": proven, "primary": int(fixed.sum()),
            "secondary": int((withheld & ~fixed).sum()),
            "withheld_value": float(x[withheld].sum()),
            "withheld_share": float(x[withheld].sum() / x.sum()) if x.sum() > 0 else 0.0,
            "seconds": time.perf_counter() - start, **extra, "singleton_blocks": n_single}
    return withheld, info


def statuses(cells: pd.DataFrame, levels: pd.DataFrame, withheld: np.ndarray) -> pd.DataFrame:
    """``cells`` with each one's ``status`` ("primary", "secondary" or "safe"), the ``rule`` a
    primary cell broke and its levels ``lower`` and ``upper``."""
    fixed = (levels["status"] == "primary").to_numpy()
    out = cells.copy()
    out["status"] = np.where(fixed, "primary", np.where(withheld, "secondary", "safe"))
    out["rule"] = levels["rule"].to_numpy()
    out["lower"] = levels["lower"].to_numpy()
    out["upper"] = levels["upper"].to_numpy()
    return out


def _impossible(prob: Problem, dev: Deviations, todo, fixed) -> str:
    """Why no pattern protects: the cells that, even with every cell that may be withheld
    withheld, the published structure pins closer than their protection levels."""
    bad = [b for b in todo if not dev.within(b.cell, b.level, dev.open(fixed, b))]
    if not bad:
        return "no suppression pattern was found (please report it with the table)"

    def name(c):
        if prob.keys is None:
            return f"cell {c}"
        row = prob.keys.iloc[c]
        return "(" + ", ".join(f"{d}={v!r}" for d, v in row.items()) + ")"

    first = bad[0]
    how = "up" if first.level > 0 else "down"
    why = (f"even with every other cell withheld, the additivity and non-negativity of the "
           f"table keep it from moving {how} by {abs(first.level):g}")
    if first.frozen:
        why += (f" once the sole contributor of {', '.join(name(c) for c in first.frozen)} "
                f"uses its own figures (singletons=False turns this attacker off)")
    hint = "" if not dev.closed.any() else \
        "; empty cells are not used as secondaries (secondary_zeros=True allows them)"
    cells = sorted({b.cell for b in bad})
    return (f"no suppression pattern can protect {len(cells)} primary cell(s), first "
            f"{name(first.cell)}: {why}{hint}; coarsen the table (a hierarchy, fewer "
            f"dimensions) or drop a margin")
