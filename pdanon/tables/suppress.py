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
  above). Tables of more than :data:`LOCAL_ABOVE` cells solve each program on a neighbourhood
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
import pandas as pd
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from pdanon._errors import InvalidInputError
from pdanon.tables.audit import TOL
from pdanon.tables.protected import ProtectedTable
from pdanon.tables.rules import primary

__all__ = ["METHODS", "ProtectedTable", "SuppressionWarning", "protect"]

METHODS = ("optimal", "fast")
#: tables of more cells than this solve the fast method's programs on a neighbourhood first
LOCAL_ABOVE = 5000
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
    that the attacker cannot tell the cells it moves apart from ``x + z``. Kept sparse, and
    indexed by the cells they move."""

    def __init__(self, A, x, big, shape=None, dims=None):
        self.A, self.x, self.big = A.tocsc(), x, big
        self.shape, self.dims = shape, dims
        self.found: list[tuple[np.ndarray, np.ndarray]] = []
        self.by_cell: dict[int, list[int]] = {}

    def _keep(self, z: np.ndarray, cells: np.ndarray | None = None) -> np.ndarray:
        idx = np.flatnonzero(np.abs(z) > 1e-9)
        vals = z[idx]
        if cells is not None:
            idx = cells[idx]
        k = len(self.found)
        self.found.append((idx, vals))
        for c in idx:
            self.by_cell.setdefault(int(c), []).append(k)
        return idx

    def covers(self, p: int, level: float, withheld: np.ndarray) -> bool:
        """Does a deviation found so far (or its opposite, when that keeps the table
        non-negative) move ``p`` by ``level`` and only withheld cells?"""
        sign, need = np.sign(level), abs(level) - TOL
        for k in self.by_cell.get(int(p), ()):
            idx, vals = self.found[k]
            if not withheld[idx].all():
                continue
            zp = vals[idx == p][0]
            if sign * zp >= need:
                return True
            if -sign * zp >= need and (self.x[idx] - vals >= -TOL).all() \
                    and (-vals <= self.big + TOL).all():
                return True
        return False

    def within(self, p: int, level: float, withheld: np.ndarray) -> bool:
        """Is there a deviation moving ``p`` by ``level`` and only withheld cells? (The
        attacker's program for ``p``, stopped at the first table reaching the required
        bound.) A deviation found is kept."""
        cells = np.flatnonzero(withheld)
        sub = self.A[:, cells].tocsr()
        rows = np.flatnonzero(np.diff(sub.indptr) > 0)
        sub = sub[rows]
        lb = -self.x[cells]
        ub = np.full(len(cells), self.big)
        at = int(np.searchsorted(cells, p))
        lb[at] = ub[at] = level
        res = linprog(np.zeros(len(cells)), A_eq=sub, b_eq=np.zeros(len(rows)),
                      bounds=np.column_stack([lb, ub]), method="highs")
        if res.status != 0:
            return False
        self._keep(res.x, cells)
        return True

    def neighbourhood(self, p: int, price: np.ndarray, width: int) -> np.ndarray | None:
        """Cells near ``p``: per dimension, ``p``'s node, its parent, children and up to
        ``width`` siblings (the cheapest cells of ``p``'s line first), crossed. None when the
        neighbourhood is the whole table."""
        if self.dims is None:
            return None
        coords = np.unravel_index(p, self.shape)
        choices, whole = [], True
        for axis, d in enumerate(self.dims):
            node = int(coords[axis])
            near = {node}
            parents = [q for q, kids in d.children.items() if node in kids]
            kids = d.children.get(node, [])
            siblings = [c for q in parents for c in d.children[q] if c != node]
            near.update(parents)
            near.update(kids)
            if siblings:
                line = np.array(coords)
                idx = []
                for sib in siblings:
                    line[axis] = sib
                    idx.append(np.ravel_multi_index(tuple(line), self.shape))
                order = np.argsort(price[np.array(idx)], kind="stable")[:width]
                near.update(siblings[i] for i in order)
            whole &= len(near) == d.n_nodes
            choices.append(np.array(sorted(near)))
        if whole:
            return None
        grid = np.meshgrid(*choices, indexing="ij")
        return np.sort(np.ravel_multi_index(tuple(g.ravel() for g in grid), self.shape))

    def cheapest(self, p: int, level: float, price: np.ndarray,
                 cells: np.ndarray | None = None) -> np.ndarray | None:
        """The deviation moving ``p`` by ``level`` of least ``price · |z|``, over ``cells``
        (every cell when None; the others stay as they are). Returns the cells it moves."""
        if cells is None:
            A, x, pr, at = self.A, self.x, price, p
        else:
            A = self.A[:, cells].tocsr()
            A = A[np.flatnonzero(np.diff(A.indptr) > 0)]
            x, pr, at = self.x[cells], price[cells], int(np.searchsorted(cells, p))
        n = len(x)
        cost = np.concatenate([pr, pr])
        ub = np.concatenate([np.full(n, self.big), x])  # zp <= big, zm <= x
        lb = np.zeros(2 * n)
        ub[at], ub[n + at] = (level, 0) if level > 0 else (0, -level)
        lb[at], lb[n + at] = ub[at], ub[n + at]
        res = linprog(cost, A_eq=sparse.hstack([A, -A]).tocsr(), b_eq=np.zeros(A.shape[0]),
                      bounds=np.column_stack([lb, ub]), method="highs")
        if res.status != 0:
            return None
        return self._keep(res.x[:n] - res.x[n:], cells)

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
    deviation (cells already withheld cost nothing), its cells withheld. On tables of more
    than :data:`LOCAL_ABOVE` cells the program is first solved on a neighbourhood of the cell
    (8, then 32 siblings per dimension), then on the whole table."""
    withheld = fixed.copy()
    for p, lvl in blocks:
        if dev.covers(p, lvl, withheld):
            continue
        price = np.where(withheld, 0.0, w)
        moved = None
        for width in (8, 32) if len(w) > LOCAL_ABOVE else ():
            cells = dev.neighbourhood(p, price, width)
            if cells is None:
                break
            moved = dev.cheapest(p, lvl, price, cells)
            if moved is not None:
                break
        if moved is None:
            moved = dev.cheapest(p, lvl, price)
        if moved is None:
            return None
        withheld[moved] = True
    return withheld


def _uncovered(dev: _Deviations, blocks, withheld, deadline=None) -> list | None:
    """The blocks no deviation within ``withheld`` protects (the audit's programs for each
    primary cell and direction, stopped at the first table that reaches the bound); None when
    ``deadline`` passes first."""
    out = []
    for p, lvl in blocks:
        if deadline is not None and time.perf_counter() > deadline:
            return None
        if not dev.covers(p, lvl, withheld) and not dev.within(p, lvl, withheld):
            out.append((p, lvl))
    return out


def _optimal(dev: _Deviations, A, w, blocks, fixed, deadline):
    """Fischetti & Salazar-González's model solved by cuts: a master integer program over
    which cells to withhold, and for each primary cell and direction the pattern leaves
    unprotected, a cut from the attacker's program (its supergradient in the pattern) and
    the no-good cut (some cell not yet withheld must be). Returns (withheld, proven optimal)."""
    n = len(w)
    by_row = A.tocsr()
    A = A.tocsc()
    rows, cols, vals, lo = [], [], [], []
    # every equation through a primary cell holds a second withheld cell
    r = 0
    for p in np.flatnonzero(fixed):
        for eq in A[:, p].indices:
            members = by_row[eq].indices
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
        failing = _uncovered(dev, blocks, y, deadline)
        if failing is None:
            return None, False
        if not failing:
            return y, res.status == 0
        for p, lvl in failing:
            if time.perf_counter() > deadline:
                return None, False
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
    dev = _Deviations(A, x, big, tuple(d.n_nodes for d in table.dims), table.dims)
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
