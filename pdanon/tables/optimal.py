"""The optimal method of secondary suppression: Fischetti & Salazar-González's model by cuts.

A master integer program (HiGHS through :func:`scipy.optimize.milp`) chooses which cells to
withhold, minimizing their cost; at first it knows only "no withheld cell is alone in an
equation" (:func:`_no_lone_cell`). The attacker's programs then check each primary cell and
direction (:func:`~pdanon.tables.deviations.uncovered`), and each one the pattern leaves
unprotected adds two cuts: the supergradient of the attacker's best move in the pattern (an
LP's value is concave in its bounds) and the no-good cut (some cell not yet withheld must be).
It stops when the master's pattern protects every primary cell; that pattern is then optimal.

>>> import numpy as np
>>> from scipy import sparse
>>> from pdanon.tables.deviations import Deviations
>>> A = sparse.csr_matrix(np.array([[-1.0, -1.0, -1.0, 1.0]]))  # Total = a + b + c
>>> x = np.array([2.0, 9.0, 3.0, 14.0])
>>> from pdanon.tables.deviations import Block
>>> y, proven = optimal(Deviations(A, x, big=20.0), A, x, [Block(0, 1.0), Block(0, -1.0)],
...                     np.array([True, False, False, False]), deadline=float("inf"))
>>> y.tolist(), proven  # c is the cheapest second cell
([True, False, True, False], True)
"""

from __future__ import annotations

import time

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from pdanon.tables.deviations import Deviations, uncovered

__all__ = ["optimal"]


def _no_lone_cell(A, may) -> LinearConstraint | None:
    """No withheld cell is alone in an equation: for each equation ``e`` and each cell ``c`` in
    it that may be withheld, ``sum(y over e's other cells) >= y_c``. A withheld cell alone in
    an equation is its total minus the published rest, known exactly; withholding it hides
    nothing and protects nothing, so a pattern of least cost (every cell costs more than 0)
    never has one, and for a primary cell (``y_c = 1``) it is the rule "a second withheld cell
    in every equation through it". Built at once, sparse: one row per (equation, cell)."""
    B = A.tocsr().copy()
    B.data[:] = 1.0
    B.eliminate_zeros()
    eq = np.repeat(np.arange(B.shape[0]), np.diff(B.indptr))
    cell = B.indices
    keep = may[cell]
    eq, cell = eq[keep], cell[keep]
    if len(eq) == 0:
        return None
    lens = np.diff(B.indptr)[eq]
    row = np.repeat(np.arange(len(eq)), lens)
    within = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
    col = B.indices[np.repeat(B.indptr[eq], lens) + within]
    M = sparse.csr_matrix((np.concatenate([np.ones(len(col)), np.full(len(eq), -2.0)]),
                           (np.concatenate([row, np.arange(len(eq))]),
                            np.concatenate([col, cell]))), shape=(len(eq), A.shape[1]))
    return LinearConstraint(M, 0.0, np.inf)


def optimal(dev: Deviations, A, w, blocks, fixed, deadline):
    """Fischetti & Salazar-González's model solved by cuts: a master integer program over
    which cells to withhold, and for each primary cell and direction the pattern leaves
    unprotected, a cut from the attacker's program (its supergradient in the pattern) and
    the no-good cut (some cell not yet withheld must be). Returns (withheld, proven optimal)."""
    n = len(w)
    A = A.tocsc()
    lone = _no_lone_cell(A, fixed | ~dev.closed)
    rows, cols, vals, lo = [], [], [], []
    r = 0
    lb = fixed.astype(float)
    ub = np.where(dev.closed & ~fixed, 0.0, 1.0)
    while True:
        left = deadline - time.perf_counter()
        if left <= 0:
            return None, False
        cons = [lone] if lone is not None else []
        if r:
            M = sparse.csr_matrix((vals, (rows, cols)), shape=(r, n))
            cons = [LinearConstraint(M, np.array(lo), np.inf)]
        res = milp(w, constraints=cons, bounds=Bounds(lb, ub),
                   integrality=np.ones(n), options={"time_limit": left, "disp": False})
        if res.x is None:
            return None, res.status == 2
        y = res.x > 0.5
        failing = uncovered(dev, blocks, y, deadline)
        if failing is None:
            return None, False
        if not failing:
            return y, res.status == 0
        for b in failing:
            if time.perf_counter() > deadline:
                return None, False
            lvl = b.level
            t, g = dev.best(b.cell, lvl, dev.free(y, b), b.frozen)
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
            # no-good: the pattern and all its subsets fail; only an open cell can help
            free = np.flatnonzero(dev.open(y, b) & ~y)
            if len(free) == 0:
                return None, True
            rows += [r] * len(free)
            cols += list(free)
            vals += [1.0] * len(free)
            lo.append(1.0)
            r += 1


