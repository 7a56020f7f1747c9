"""Secondary suppression: withhold more cells so that no primary cell can be recomputed.

Withholding the primary cells alone rarely protects them: a withheld cell is its row's total
minus the published cells of the row. Secondary suppression chooses further cells so that, for
each primary cell ``p``, the attacker's range (:mod:`pdanon.tables.audit`) reaches ``value +
upper`` and ``value - lower``. Equivalently (Fischetti & Salazar-González, Management Science
2001): for each primary cell and each direction there must be a *deviation* ``z`` — a change of
the table that keeps it additive (``A z = 0``), moves ``p`` by its protection level, keeps every
cell non-negative (``z_c >= -x_c``) and changes only withheld cells.

Methods:

* ``"optimal"`` — that model as one mixed-integer program on HiGHS: a 0/1 variable per cell
  (withheld or not) and one deviation per primary cell and direction, minimizing the cost of
  the withheld cells. Exact, but its size grows with cells × primary cells: it solves tables
  of tens of cells with tens of primary cells in seconds; a 729-cell table with 289 primary
  cells did not finish in 60 s. ``time_limit`` bounds the search; then the cheaper of its
  best pattern and the fast method's is audited and returned with a warning.
* ``"fast"`` — the same deviations found one at a time: for each primary cell and direction,
  one linear program picks the cheapest deviation (cells already withheld cost nothing), and
  the cells it moves are withheld. A deviation stays valid when more cells are withheld, so the
  pattern protects every primary cell by construction; it is not minimal.

``cost`` is what is minimized: ``"value"`` (the withheld total, plus a small charge per cell so
that empty cells are not free) or ``"count"`` (the number of withheld cells). Every pattern is
audited before it is returned; a pattern the audit rejects is never returned.

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
import pandas as pd
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from pdanon._errors import InvalidInputError
from pdanon.tables.audit import TOL
from pdanon.tables.protected import ProtectedTable
from pdanon.tables.rules import primary

__all__ = ["METHODS", "ProtectedTable", "SuppressionWarning", "protect"]

METHODS = ("optimal", "fast")
COSTS = ("value", "count")


class SuppressionWarning(UserWarning):
    """A secondary suppression stopped early (time limit): the pattern returned passed the
    audit but may withhold more than needed."""


def _weights(x: np.ndarray, cost: str) -> np.ndarray:
    if cost == "count":
        return np.ones(len(x))
    scale = float(np.mean(x[x > 0])) if (x > 0).any() else 1.0
    return x + 1e-3 * scale


def _blocks(levels: pd.DataFrame) -> list[tuple[int, float]]:
    """(cell, signed protection level) for each primary cell and direction that needs one."""
    out = []
    prim = np.flatnonzero((levels["status"] == "primary").to_numpy())
    up = levels["upper"].to_numpy()
    lo = levels["lower"].to_numpy()
    for p in prim:
        if up[p] > 0:
            out.append((int(p), float(up[p])))
        if lo[p] > 0:
            out.append((int(p), -float(lo[p])))
    return out


class _Deviations:
    """Changes ``z`` of the table that keep it additive (``A z = 0``) and non-negative
    (``x + z >= 0``): each one found proves, for as long as every cell it moves stays withheld,
    that the attacker cannot tell the cells it moves apart from ``x + z``."""

    def __init__(self, A, x, big):
        self.A, self.x, self.big = A, x, big
        self.found: list[np.ndarray] = []

    def covers(self, p: int, level: float, withheld: np.ndarray) -> bool:
        """Does a deviation found so far (or its opposite, when that keeps the table
        non-negative) move ``p`` by ``level`` and only withheld cells?"""
        for z in self.found:
            moved = np.abs(z) > TOL
            if not withheld[moved].all():
                continue
            if np.sign(level) * z[p] >= abs(level) - TOL:
                return True
            if -np.sign(level) * z[p] >= abs(level) - TOL and (self.x - z >= -TOL).all() \
                    and (-z <= self.big + TOL).all():
                return True
        return False

    def within(self, p: int, level: float, withheld: np.ndarray) -> np.ndarray | None:
        """A deviation moving ``p`` by ``level`` and only withheld cells, or None (the attacker's
        program for ``p``, stopped at the first table reaching the required bound)."""
        cells = np.flatnonzero(withheld)
        sub = self.A[:, cells]
        rows = np.flatnonzero(np.diff(sub.tocsr().indptr) > 0)
        sub = sub.tocsr()[rows]
        lb = -self.x[cells]
        ub = np.full(len(cells), self.big)
        at = int(np.searchsorted(cells, p))
        lb[at] = ub[at] = level
        res = linprog(np.zeros(len(cells)), A_eq=sub, b_eq=np.zeros(len(rows)),
                      bounds=np.column_stack([lb, ub]), method="highs")
        if res.status != 0:
            return None
        z = np.zeros(len(self.x))
        z[cells] = res.x
        self.found.append(z)
        return z

    def cheapest(self, p: int, level: float, price: np.ndarray) -> np.ndarray | None:
        """The deviation moving ``p`` by ``level`` of least ``price · |z|`` over every cell."""
        n = len(self.x)
        cost = np.concatenate([price, price])
        ub = np.concatenate([np.full(n, self.big), self.x])  # zp <= big, zm <= x
        lb = np.zeros(2 * n)
        ub[p], ub[n + p] = (level, 0) if level > 0 else (0, -level)
        lb[p], lb[n + p] = ub[p], ub[n + p]
        res = linprog(cost, A_eq=sparse.hstack([self.A, -self.A]).tocsr(),
                      b_eq=np.zeros(self.A.shape[0]), bounds=np.column_stack([lb, ub]),
                      method="highs")
        if res.status != 0:
            return None
        z = res.x[:n] - res.x[n:]
        z[np.abs(z) <= 1e-9] = 0.0
        self.found.append(z)
        return z

    def best(self, p: int, level: float, withheld: np.ndarray):
        """The attacker's best move of ``p`` in the direction of ``level`` when the cells
        ``withheld`` may change (every other cell fixed), and the supergradient of that best
        move in each cell's 0/1 withholding: ``(t, g)`` with ``t(y') <= t + g · (y' - y)``
        (an LP's value is concave in its bounds; the bounds here are ``-x_c y_c`` and
        ``big · y_c``)."""
        n = len(self.x)
        sign = 1.0 if level > 0 else -1.0
        c = np.zeros(n)
        c[p] = -sign  # minimize -sign * z_p
        lb = np.where(withheld, -self.x, 0.0)
        ub = np.where(withheld, self.big, 0.0)
        res = linprog(c, A_eq=self.A, b_eq=np.zeros(self.A.shape[0]),
                      bounds=np.column_stack([lb, ub]), method="highs")
        if res.status != 0:
            return None, None
        t = -res.fun
        g = -res.upper.marginals * self.big + res.lower.marginals * self.x
        g[p] = 0.0
        return t, g


def _fast(dev: _Deviations, w, blocks, fixed):
    """One linear program per primary cell and direction not yet covered: the cheapest
    deviation (cells already withheld cost nothing), its cells withheld."""
    withheld = fixed.copy()
    x = dev.x
    for p, lvl in blocks:
        if dev.covers(p, lvl, withheld):
            continue
        price = np.where(withheld, 0.0, w)
        z = dev.cheapest(p, lvl, price)
        if z is None:
            return None
        withheld |= np.abs(z) > 0
    return withheld


def _uncovered(dev: _Deviations, blocks, withheld) -> list:
    """The blocks no deviation within ``withheld`` protects (the audit's programs for each
    primary cell and direction, stopped at the first table that reaches the bound)."""
    return [(p, lvl) for p, lvl in blocks
            if not dev.covers(p, lvl, withheld) and dev.within(p, lvl, withheld) is None]


def _optimal(dev: _Deviations, A, w, blocks, fixed, deadline):
    """Fischetti & Salazar-González's model solved by cuts: a master integer program over
    which cells to withhold, and for each primary cell and direction the pattern leaves
    unprotected, a cut from the attacker's program (its supergradient in the pattern) and
    the no-good cut (some cell not yet withheld must be). Returns (withheld, proven optimal)."""
    n = len(w)
    A = A.tocsc()
    rows, cols, vals, lo = [], [], [], []
    # every equation through a primary cell holds a second withheld cell
    r = 0
    for p in np.flatnonzero(fixed):
        for eq in A[:, p].indices:
            members = A.tocsr()[eq].indices
            members = members[members != p]
            if len(members) == 0:
                continue
            rows += [r] * len(members)
            cols += list(members)
            vals += [1.0] * len(members)
            lo.append(1.0)
            r += 1
    lb = fixed.astype(float)
    while True:
        left = deadline - time.perf_counter()
        if left <= 0:
            return None, False
        cons = []
        if r:
            M = sparse.csr_matrix((vals, (rows, cols)), shape=(r, n))
            cons = [LinearConstraint(M, np.array(lo), np.inf)]
        res = milp(w, constraints=cons, bounds=Bounds(lb, np.ones(n)),
                   integrality=np.ones(n), options={"time_limit": left, "disp": False})
        if res.x is None:
            return None, res.status == 2
        y = res.x > 0.5
        failing = _uncovered(dev, blocks, y)
        if not failing:
            return y, res.status == 0
        for p, lvl in failing:
            t, g = dev.best(p, lvl, y)
            if t is not None:
                gap = abs(lvl) - t
                keep = np.abs(g) > 1e-9
                idx = np.flatnonzero(keep)
                # g . y' >= gap + g . y
                rows += [r] * len(idx)
                cols += list(idx)
                vals += list(g[idx])
                lo.append(gap + float(g[y].sum()) - 1e-9)
                r += 1
            free = np.flatnonzero(~y)  # no-good: the pattern and all its subsets fail
            if len(free) == 0:
                return None, True
            rows += [r] * len(free)
            cols += list(free)
            vals += [1.0] * len(free)
            lo.append(1.0)
            r += 1


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
    w = _weights(x, cost)
    blocks = _blocks(levels)
    big = float(x.max() + max((abs(v) for _, v in blocks), default=0.0) + 1.0)
    dev = _Deviations(A, x, big)
    note = None
    optimal = None
    if not blocks:
        withheld = fixed.copy()
    elif method == "optimal":
        withheld, optimal = _optimal(dev, A, w, blocks, fixed, start + time_limit)
        if withheld is None and not optimal:
            withheld = _fast(dev, w, blocks, fixed)
            note = (f"the optimal search did not finish within time_limit={time_limit:g} s; "
                    f"the fast method's pattern is returned (it passed the audit; it may "
                    f"withhold more than needed)")
        elif withheld is not None and not optimal:
            note = (f"the optimal search stopped at time_limit={time_limit:g} s; its best "
                    f"pattern is returned (it passed the audit; it may not be minimal)")
    else:
        withheld = _fast(dev, w, blocks, fixed)
    if withheld is None:
        unsafe = list(levels.index[fixed])
        raise InvalidInputError(
            f"no suppression pattern can protect cells {unsafe[:5]}: the table's structure pins "
            f"them whatever else is withheld; coarsen the table or drop a margin")
    failing = _uncovered(dev, blocks, withheld)
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
    info = {"method": method, "cost": cost, "optimal": optimal, "primary": int(fixed.sum()),
            "secondary": int((withheld & ~fixed).sum()),
            "withheld_value": float(x[withheld].sum()),
            "withheld_share": float(x[withheld].sum() / x.sum()) if x.sum() > 0 else 0.0,
            "seconds": time.perf_counter() - start}
    return ProtectedTable(table, cells, info)
