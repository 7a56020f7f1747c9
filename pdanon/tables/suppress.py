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
from pdanon.tables.audit import audit
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


def _optimal(A, x, w, blocks, fixed, big, time_limit):
    """The Fischetti–Salazar-González model as one MILP: returns (withheld mask, status)."""
    n, m, K = len(x), A.shape[0], len(blocks)
    nv = n * (1 + K)
    c = np.concatenate([w, np.zeros(n * K)])
    lb = np.zeros(nv)
    ub = np.ones(nv)
    lb[:n][fixed] = 1
    cons = []
    eye = sparse.identity(n, format="csr")
    for b, (p, lvl) in enumerate(blocks):
        off = n * (1 + b)
        lb[off:off + n] = -x
        ub[off:off + n] = big
        lb[off + p] = ub[off + p] = lvl * (1 + 1e-7) + np.sign(lvl) * 1e-7
        zero_y = sparse.csr_matrix((m, n))
        pad_l = sparse.csr_matrix((m, n * b))
        pad_r = sparse.csr_matrix((m, n * (K - b - 1)))
        cons.append(LinearConstraint(sparse.hstack([zero_y, pad_l, A, pad_r]).tocsr(), 0, 0))
        padn_l = sparse.csr_matrix((n, n * b))
        padn_r = sparse.csr_matrix((n, n * (K - b - 1)))
        # z_c <= big * y_c  and  -z_c <= x_c * y_c
        cons.append(LinearConstraint(
            sparse.hstack([-sparse.diags(np.full(n, big)), padn_l, eye, padn_r]).tocsr(),
            -np.inf, 0))
        cons.append(LinearConstraint(
            sparse.hstack([-sparse.diags(x), padn_l, -eye, padn_r]).tocsr(), -np.inf, 0))
    integrality = np.concatenate([np.ones(n), np.zeros(n * K)])
    res = milp(c, constraints=cons, bounds=Bounds(lb, ub), integrality=integrality,
               options={"time_limit": float(time_limit), "disp": False})
    if res.x is None:
        return None, res.status
    return res.x[:n] > 0.5, res.status


def _fast(A, x, w, blocks, fixed, big):
    """One linear program per primary cell and direction: the cheapest deviation, its cells
    withheld."""
    n = len(x)
    withheld = fixed.copy()
    Ad = sparse.hstack([A, -A]).tocsr()  # z = zp - zm
    for p, lvl in blocks:
        cost = np.where(withheld, 0.0, w / np.maximum(np.abs(x), 1.0))
        cost = np.concatenate([cost, cost])
        ub = np.concatenate([np.full(n, big), x])  # zp <= big, zm <= x (no cell below 0)
        ub[p], ub[n + p] = (lvl, 0) if lvl > 0 else (0, -lvl)
        lb = np.zeros(2 * n)
        lb[p], lb[n + p] = (lvl, 0) if lvl > 0 else (0, -lvl)
        res = linprog(cost, A_eq=Ad, b_eq=np.zeros(A.shape[0]), bounds=np.column_stack([lb, ub]),
                      method="highs")
        if res.status != 0:
            return None
        moved = (res.x[:n] + res.x[n:]) > 1e-9
        withheld |= moved
    return withheld


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
    A = table.constraints.astype(np.float64)
    w = _weights(x, cost)
    blocks = _blocks(levels)
    big = float(x.max() + max((abs(v) for _, v in blocks), default=0.0) + 1.0)
    note = None
    if not blocks:
        withheld = fixed.copy()
    elif method == "optimal":
        withheld, status = _optimal(A, x, w, blocks, fixed, big, time_limit)
        if withheld is None:
            withheld = _fast(A, x, w, blocks, fixed, big)
            note = ("the optimal program found no pattern within time_limit="
                    f"{time_limit:g} s; the fast method's pattern is returned")
        elif status == 1:
            fallback = _fast(A, x, w, blocks, fixed, big)
            if fallback is not None and w[fallback].sum() < w[withheld].sum():
                withheld = fallback
            note = (f"the optimal program stopped at time_limit={time_limit:g} s; the better "
                    f"of its best pattern and the fast method's is returned (it passed the "
                    f"audit; it may not be minimal)")
    else:
        withheld = _fast(A, x, w, blocks, fixed, big)
    if withheld is None:
        unsafe = levels.index[fixed]
        raise InvalidInputError(
            f"no suppression pattern can protect cells {list(unsafe[:5])}: the table's "
            f"structure pins them whatever else is withheld (e.g. a total published elsewhere); "
            f"coarsen the table or drop the margin")
    cells = table.cells.copy()
    status = np.where(fixed, "primary", np.where(withheld, "secondary", "safe"))
    cells["status"] = status
    cells["rule"] = levels["rule"].to_numpy()
    cells["lower"] = levels["lower"].to_numpy()
    cells["upper"] = levels["upper"].to_numpy()
    result = audit(table, withheld, levels=levels)
    if not result.ok:  # never return a pattern the audit rejects
        raise RuntimeError(
            f"internal error: the {method} pattern failed its audit for "
            f"{len(result.unsafe)} cells; please report it with the table")
    if note:
        warnings.warn(note, SuppressionWarning, stacklevel=2)
    info = {"method": method, "cost": cost, "primary": int(fixed.sum()),
            "secondary": int((withheld & ~fixed).sum()),
            "withheld_value": float(x[withheld].sum()),
            "withheld_share": float(x[withheld].sum() / x.sum()) if x.sum() > 0 else 0.0,
            "seconds": time.perf_counter() - start}
    return ProtectedTable(table, cells, result, info)
