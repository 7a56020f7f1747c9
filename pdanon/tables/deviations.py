"""Deviations: the attacker's view of a suppression pattern, shared by every method.

A *deviation* is a change ``z`` of the table that keeps it additive (``A z = 0``) and
non-negative (``x + z >= 0``). For as long as every cell it moves stays withheld, it proves the
attacker cannot tell the published table of ``x`` from that of ``x + z``: a primary cell ``p``
is protected upwards when some deviation moves it by at least its upper protection level, and
downwards likewise (Fischetti & Salazar-González, Management Science 2001). Every suppression
method (:mod:`~pdanon.tables.fast`, :mod:`~pdanon.tables.optimal`, ...) finds deviations, and
:func:`uncovered` lists the protections a pattern misses; :func:`certify`, the final check
before a pattern is returned, also keeps the deviation that proves each one.

>>> import numpy as np
>>> from scipy import sparse
>>> A = sparse.csr_matrix(np.array([[-1.0, -1.0, 1.0]]))  # Total = a + b
>>> dev = Deviations(A, np.array([2.0, 3.0, 5.0]), big=10.0)
>>> uncovered(dev, [Block(0, 1.0)], np.array([True, False, False]))  # a alone: Total - b gives it
[Block(cell=0, level=1.0, frozen=())]
>>> uncovered(dev, [Block(0, 1.0)], np.array([True, True, False]))
[]
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.optimize import linprog

from pdanon.tables.audit import TOL

__all__ = ["Block", "Deviations", "blocks", "certify", "uncovered", "weights"]


def weights(x: np.ndarray, cost: str) -> np.ndarray:
    if cost == "count":
        return np.ones(len(x))
    scale = float(np.mean(x[x > 0])) if (x > 0).any() else 1.0
    return x + 1e-3 * scale


class Block(NamedTuple):
    """One protection to give: move ``cell`` by ``level`` (signed: up when positive) with the
    cells ``frozen`` held at their values — the cells a coalition knows (a singleton's holder
    knows its own cells: :func:`singleton_blocks`); empty for the outside attacker."""

    cell: int
    level: float
    frozen: tuple = ()


def blocks(levels: pd.DataFrame) -> list[Block]:
    """A :class:`Block` for each primary cell and direction that needs one."""
    out = []
    prim = np.flatnonzero((levels["status"] == "primary").to_numpy())
    up = levels["upper"].to_numpy()
    lo = levels["lower"].to_numpy()
    for p in prim:
        if up[p] > 0:
            out.append(Block(int(p), float(up[p])))
        if lo[p] > 0:
            out.append(Block(int(p), -float(lo[p])))
    return out


def singleton_blocks(A, levels: pd.DataFrame, holder: np.ndarray, base: list[Block]) -> list[Block]:
    """The protections a singleton's holder must not break. A primary cell with one contributor
    (``holder[c] >= 0`` names it) is known exactly to that contributor, and so is every other
    such cell of the same holder; the holder is an attacker who knows more than the outsider.
    For each holder and each primary cell ``p`` that shares an equation with one of the
    holder's cells (and is not one of them), ``p`` must keep its protection with the holder's
    cells frozen: one :class:`Block` per direction of ``p`` in ``base``.

    Example: in ``Total = a + b + c`` with ``a`` and ``b`` withheld singletons and ``c``
    published, ``a``'s holder computes ``b = Total - c - a``; frozen ``a``, no deviation
    moves ``b``.
    """
    prim = (levels["status"] == "primary").to_numpy()
    single = np.flatnonzero(prim & (holder >= 0))
    if len(single) == 0:
        return []
    A = A.tocsr()
    At = A.T.tocsr()
    by_cell: dict[int, list[Block]] = {}
    for b in base:
        by_cell.setdefault(b.cell, []).append(b)
    out = []
    for h in np.unique(holder[single]):
        own = single[holder[single] == h]
        eqs = np.unique(np.concatenate([At[c].indices for c in own]))
        near = np.unique(A[eqs].indices) if len(eqs) else np.zeros(0, dtype=np.int64)
        near = near[prim[near] & ~np.isin(near, own)]
        frozen = tuple(int(c) for c in own)
        for p in near:
            out.extend(Block(b.cell, b.level, frozen) for b in by_cell.get(int(p), ()))
    return out


class Deviations:
    """Changes ``z`` of the table that keep it additive (``A z = 0``) and non-negative
    (``x + z >= 0``): each one found proves, for as long as every cell it moves stays withheld,
    that the attacker cannot tell the cells it moves apart from ``x + z``. Kept sparse, and
    indexed by the cells they move."""

    def __init__(self, A, x, big, shape=None, dims=None, closed=None, near=None):
        self.A, self.x, self.big = A.tocsc(), x, big
        self.shape, self.dims, self.near = shape, dims, near
        #: cells never withheld unless primary (empty cells, by default: see ``protect``)
        self.closed = np.zeros(len(x), dtype=bool) if closed is None else closed
        self.found: list[tuple[np.ndarray, np.ndarray]] = []
        self.by_cell: dict[int, list[int]] = {}

    def free(self, withheld: np.ndarray, block: Block) -> np.ndarray:
        """The cells a deviation for ``block`` may move, given the withheld cells: those
        withheld and not frozen by the block's coalition."""
        if not block.frozen:
            return withheld
        out = withheld.copy()
        out[list(block.frozen)] = False
        return out

    def open(self, withheld: np.ndarray, block: Block) -> np.ndarray:
        """The cells a new deviation for ``block`` may move: any cell that is withheld or may
        be (not closed), except the frozen ones."""
        out = withheld | ~self.closed
        if block.frozen:
            out[list(block.frozen)] = False
        return out

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
        return self.witness(p, level, withheld) is not None

    def witness(self, p: int, level: float, withheld: np.ndarray):
        """A deviation found so far that moves ``p`` by ``level`` (in its direction) and only
        withheld cells, as ``(cells, changes)``, oriented; None when there is none."""
        sign, need = np.sign(level), abs(level) - TOL
        for k in self.by_cell.get(int(p), ()):
            idx, vals = self.found[k]
            if not withheld[idx].all():
                continue
            zp = vals[idx == p][0]
            if sign * zp >= need:
                return idx, vals
            if -sign * zp >= need and (self.x[idx] - vals >= -TOL).all() \
                    and (-vals <= self.big + TOL).all():
                return idx, -vals
        return None

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

    def neighbourhood(self, p: int, price: np.ndarray, width: int,
                      deep: bool = False) -> np.ndarray | None:
        """Cells near ``p``: per dimension, ``p``'s node, its parent, children and up to
        ``width`` siblings (the cheapest cells of ``p``'s line first) — with ``deep``, every
        ancestor and up to ``width`` of each ancestor's siblings too — crossed (``near``
        instead, without dimensions). None when the neighbourhood is the whole table."""
        if self.dims is None:  # linked tables: their own neighbourhood, if given
            return None if self.near is None or deep else self.near(p, price, width)
        coords = np.unravel_index(p, self.shape)
        choices, whole = [], True
        for axis, d in enumerate(self.dims):
            node = int(coords[axis])
            near = {node}
            near.update(d.children.get(node, []))
            cur = node
            while True:
                parents = [q for q, kids in d.children.items() if cur in kids]
                siblings = [c for q in parents for c in d.children[q] if c != cur]
                near.update(parents)
                if siblings:
                    line = np.array(coords)
                    idx = []
                    for sib in siblings:
                        line[axis] = sib
                        idx.append(np.ravel_multi_index(tuple(line), self.shape))
                    order = np.argsort(price[np.array(idx)], kind="stable")[:width]
                    near.update(siblings[i] for i in order)
                if not deep or not parents:
                    break
                cur = parents[0]
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

    def best(self, p: int, level: float, withheld: np.ndarray, frozen: tuple = ()):
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
        g[list(frozen)] = 0.0  # a frozen cell's bounds are 0 whatever the pattern
        return t, g


def uncovered(dev: Deviations, blocks, withheld, deadline=None) -> list | None:
    """The blocks no deviation within ``withheld`` protects (the audit's programs for each
    primary cell and direction, stopped at the first table that reaches the bound); None when
    ``deadline`` passes first."""
    out = []
    for b in blocks:
        if deadline is not None and time.perf_counter() > deadline:
            return None
        free = dev.free(withheld, b)
        if not dev.covers(b.cell, b.level, free) and not dev.within(b.cell, b.level, free):
            out.append(b)
    return out


def certify(dev: Deviations, blocks, withheld) -> tuple[list, list]:
    """The final check of a pattern, keeping its proofs: per block, the deviation ``(cells,
    changes)`` that moves the block's cell by its level within the withheld cells (its frozen
    cells left out) — one found earlier, or else the attacker's program's. Returns
    ``(certificates, failing)``: ``failing`` lists the blocks with no such deviation (a
    pattern with any is never returned). :func:`pdanon.tables.verify` re-checks the
    certificates against the cells as they leave, with no linear program."""
    out, failing = [], []
    for b in blocks:
        free = dev.free(withheld, b)
        w = dev.witness(b.cell, b.level, free)
        if w is None and dev.within(b.cell, b.level, free):  # the program's deviation is kept
            w = dev.witness(b.cell, b.level, free)
        if w is None:
            failing.append(b)
        else:
            out.append((b, w[0].copy(), w[1].copy()))
    return out, failing
