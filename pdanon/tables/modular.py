"""The modular method of secondary suppression for hierarchical tables (HiTaS-like).

A hierarchical table is cut into small non-hierarchical *sub-tables* and each is protected
exactly, top-down (de Wolf, "HiTaS: a heuristic approach to cell suppression in hierarchical
tables"; τ-ARGUS's "Modular"):

* per dimension, every node with children gives a one-level *group*, the node and its children
  (one equation: the node is their sum); roots side by side (a dimension without a grand total)
  form a group without an equation. A dimension without a hierarchy has one group: its
  categories and its total;
* a sub-table is one group per dimension, crossed: its cells are the combinations, its
  equations those of its groups. A group's *level* is its node's depth (the grand total's group
  is level 0); sub-tables are processed by the sum of their groups' levels, parents first;
* each sub-table is protected by the exact method (:func:`~pdanon.tables.optimal.optimal`) on
  its own equations and cells. Its primary cells are the table's primary cells in it and the
  cells an earlier sub-table withheld (HiTaS treats them as primary below). The protection a
  withheld cell gets below is how far the earlier sub-table's cheapest protecting deviation
  moves it (:mod:`~pdanon.tables.deviations`): the sub-table below must let it move that far,
  so the two deviations can join. Cells an earlier sub-table published stay published (they
  are constants of the sub-table's program); only when that makes a sub-table unprotectable
  may they be withheld (``info["reopened"]`` counts them);
* the joined pattern is checked on the whole table
  (:func:`~pdanon.tables.deviations.uncovered`). HiTaS is not safe in every case (a deviation
  below cannot always move several carried cells at once by the amounts above); each primary
  cell and direction left unprotected is repaired by the fast method's programs
  (:func:`~pdanon.tables.fast.fast`, the pattern fixed) — ``info["repair_blocks"]``,
  ``info["repair_cells"]``.

Each sub-table's program is small, so large hierarchical tables are protected where the exact
method on the whole table does not finish; the pattern is not minimal for the whole table.

>>> import pandas as pd
>>> from pdanon.hierarchy import tree
>>> d = dimension(pd.Series(list("abc"), name="x"), hierarchy=tree({"AB": ["a", "b"], "C": ["c"]}))
>>> [(level, [d.labels[j] for j in nodes], eq) for level, nodes, eq in groups(d)]
[(1, ['AB', 'a', 'b'], True), (0, ['Total', 'AB', 'c'], True)]
"""

from __future__ import annotations

import itertools
import time
from types import SimpleNamespace

import numpy as np

from pdanon.tables.audit import TOL
from pdanon.tables.deviations import Block, Deviations, uncovered
from pdanon.tables.fast import fast
from pdanon.tables.optimal import optimal
from pdanon.tables.structure import constraints, dimension  # noqa: F401  (doctest)

__all__ = ["groups", "modular", "subtables"]


def groups(d) -> list[tuple[int, list[int], bool]]:
    """The one-level groups of dimension ``d``: ``(level, nodes, has an equation)``; ``nodes``
    is a parent then its children (or the roots side by side, level -1, no equation)."""
    inside = {c for kids in d.children.values() for c in kids}
    roots = [j for j in range(d.n_nodes) if j not in inside]
    depth, stack = {}, [(r, 0) for r in roots]
    while stack:
        node, k = stack.pop()
        depth[node] = k
        stack.extend((c, k + 1) for c in d.children.get(node, ()))
    out = []
    if len(roots) > 1 or roots[0] not in d.children:
        out.append((-1, roots, False))
    out += [(depth[p], [p] + list(kids), True) for p, kids in d.children.items()]
    return out


def subtables(dims) -> list[tuple[tuple, np.ndarray, object]]:
    """Every sub-table of the table of ``dims``, parents first: ``(levels, cells, A)`` with
    ``cells`` the sub-table's cells (positions in the whole table, C order over its groups) and
    ``A`` its own equations (one column per cell of ``cells``).

    >>> import pandas as pd
    >>> d = dimension(pd.Series(list("ab"), name="x"))
    >>> [(lv, c.tolist(), A.toarray().tolist()) for lv, c, A in subtables([d])]
    [((0,), [2, 0, 1], [[1.0, -1.0, -1.0]])]
    """
    shape = tuple(d.n_nodes for d in dims)
    out = []
    for combo in itertools.product(*(groups(d) for d in dims)):
        levels = tuple(g[0] for g in combo)
        grid = np.meshgrid(*(np.asarray(g[1]) for g in combo), indexing="ij")
        cells = np.ravel_multi_index(tuple(a.ravel() for a in grid), shape)
        local = [SimpleNamespace(n_nodes=len(g[1]),
                                 children={0: list(range(1, len(g[1])))} if g[2] else {})
                 for g in combo]
        out.append((levels, cells, constraints(local).astype(np.float64).tocsr()))
    out.sort(key=lambda s: (sum(s[0]), s[0]))
    return out


def _solve(A, x, big, w, blocks, fixed, deadline, closed=None):
    """The exact method on one sub-table (the fast one past the deadline): ``(pattern, proven,
    impossible)``; ``impossible`` lists the blocks that even withholding every cell of the
    sub-table does not protect (then no pattern is tried)."""
    dev = Deviations(A, x, big, closed=closed)
    impossible = uncovered(dev, blocks, dev.open(fixed, Block(0, 0.0)))
    if impossible:
        return None, False, impossible
    y, proven = optimal(dev, A, w, blocks, fixed, deadline)
    if y is None:
        y = fast(dev, w, blocks, fixed)
    return y, bool(proven) and y is not None, []


def _carry(A, x, big, blocks, held, need_up, need_down, cells):
    """For each block of a protected sub-table, its cheapest deviation within the withheld
    cells (least total movement); every other cell it moves must be able to move as far in the
    sub-tables below: raise their required levels."""
    dev = Deviations(A, x, big)
    inside = np.flatnonzero(held)
    price = np.ones(len(x))
    for p, lvl, _ in blocks:
        if dev.cheapest(p, lvl, price, inside) is None:
            continue
        idx, z = dev.found[-1]
        other = idx != p
        idx, z = cells[idx[other]], z[other]
        up, down = z > TOL, z < -TOL  # a solver's dust asks for nothing
        np.maximum.at(need_up, idx[up], z[up])
        np.maximum.at(need_down, idx[down], -z[down])


def modular(dev: Deviations, dims, w, levels, todo, deadline):
    """The modular method on the whole table (``dev``: its deviations, ``levels``: the primary
    rules' statuses and levels, :func:`pdanon.tables.primary`; ``todo``: every protection the
    whole table needs, singleton holders' included, which the final check and repair read).
    Returns ``(withheld, info)``; ``withheld`` is None when no pattern protects the primary
    cells. Cells the whole table's deviations keep closed (empty cells) stay closed in every
    sub-table."""
    start = time.perf_counter()
    x, big = dev.x, dev.big
    prim = (levels["status"] == "primary").to_numpy()
    need_up = np.where(prim, levels["upper"].to_numpy(dtype=np.float64), 0.0)
    need_down = np.where(prim, levels["lower"].to_numpy(dtype=np.float64), 0.0)
    withheld, decided = prim.copy(), np.zeros(len(x), dtype=bool)
    log, reopened, unmet, n_subtables = [], 0, 0, 0
    for lv, cells, A in subtables(dims):
        n_subtables += 1
        up, down = need_up[cells], need_down[cells]
        blocks = [Block(int(i), float(up[i])) for i in np.flatnonzero(up > 0)]
        blocks += [Block(int(i), -float(down[i])) for i in np.flatnonzero(down > 0)]
        blocks.sort()
        if not blocks:
            decided[cells] = True
            continue
        t0 = time.perf_counter()
        held, published = withheld[cells], decided[cells] & ~withheld[cells]
        must = (up > 0) | (down > 0)
        ws = np.where(held, 0.0, w[cells])
        # cells published above stay published: they are constants here (their columns go)
        free = np.flatnonzero(~published)
        at = {int(c): k for k, c in enumerate(free)}
        sub = A[:, free].tocsr()
        shut = dev.closed[cells]
        y, proven, _ = _solve(sub, x[cells][free], big, ws[free],
                              [Block(at[b.cell], b.level) for b in blocks], must[free],
                              deadline, shut[free])
        if y is not None:
            pattern = np.zeros(len(cells), dtype=bool)
            pattern[free[y]] = True
        else:  # no pattern keeps them published: let them be withheld too
            pattern, proven, impossible = _solve(A, x[cells], big, ws, blocks, must, deadline,
                                                 shut)
            if impossible:
                if prim[cells[[b.cell for b in impossible]]].any():
                    return None, {"subtables": n_subtables}  # the whole table cannot either
                # a level carried from above that no pattern here gives: the whole-table
                # check will repair what it leaves unprotected
                unmet += len(impossible)
                blocks = [b for b in blocks if b not in impossible]
                pattern, proven, _ = _solve(A, x[cells], big, ws, blocks, must, deadline, shut)
            if pattern is None:
                return None, {"subtables": n_subtables}
            reopened += int((pattern & published).sum())
        pattern |= held
        withheld[cells] |= pattern
        decided[cells] = True
        _carry(A, x[cells], big, blocks, pattern, need_up, need_down, cells)
        log.append({"levels": lv, "cells": len(cells), "blocks": len(blocks),
                    "optimal": proven, "seconds": round(time.perf_counter() - t0, 4)})
    before = int(withheld.sum())
    failing = uncovered(dev, todo, withheld)
    if failing:
        withheld = fast(dev, w, failing, withheld)
        if withheld is None:
            return None, {"subtables": n_subtables}
    info = {"subtables": n_subtables, "subtables_solved": len(log),
            "subtables_proven": sum(s["optimal"] for s in log), "subtable_log": log,
            "reopened": reopened, "unmet": unmet, "repair_blocks": len(failing),
            "repair_cells": int(withheld.sum()) - before,
            "modular_seconds": time.perf_counter() - start}
    late = info["subtables_solved"] - info["subtables_proven"]
    if late:  # only the time limit stops a sub-table's search short of proof
        info["note"] = (f"the modular method reached time_limit: {late} of "
                        f"{info['subtables_solved']} sub-tables were protected by the fast "
                        f"method or the search's best pattern (the pattern passed the audit; "
                        f"it may withhold more than needed)")
    return withheld, info
