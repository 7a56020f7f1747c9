"""Secondary suppression by Gaussian elimination (Langsrud, *Statistics and Computing* 2024).

Every cell of a table is a sum of inner (leaf) cells: its column of the *model matrix* ``X``
(leaf cells × cells, 0/1) says which. A withheld cell ``p`` can be recomputed exactly from the
published cells ``P`` and the table's additivity precisely when its column is a linear
combination of theirs (``X_p`` in the span of ``X_P``). The method (the algorithm of Statistics
Norway's GaussSuppression, our own code) takes the candidate cells in order — the most
expensive first, since those are the ones to publish — and reduces the columns by Gaussian
elimination:

* a candidate whose column is already a combination of published ones is published: it tells
  the reader nothing new;
* a candidate that would complete a primary cell's column (after the elimination so far the
  primary's column is proportional to the candidate's) is *withheld* (a secondary cell);
* any other candidate is published, and its column becomes a pivot: every remaining column,
  the primary cells' included, is reduced by it.

At the end no primary cell is a linear combination of published cells: its attacker interval
has a width above 0. That is all the elimination guarantees. It does not know the protection
levels nor that cells are non-negative (a withheld empty cell can only move up), so
:func:`gauss` then runs the deviations' check (:func:`~pdanon.tables.deviations.uncovered`)
and, for each primary cell and direction still short of its level, adds cells with the fast
method's linear programs (:func:`~pdanon.tables.fast.fast`, given the pattern so far).
``info["repair_added"]`` says how many cells that added.

**Exact arithmetic.** The columns are reduced with Python integers (arbitrary precision, so
no overflow) in a fraction-free scheme: reducing column ``k`` by pivot column ``a`` at row
``r`` is ``a[r]·k − k[r]·a``, then the entries are divided by their greatest common divisor.
Every number stays an integer, the test "is the primary's column proportional to the
candidate's" is a cross-multiplication of integers (``a[r]·b[s] == b[r]·a[s]``), and the
test "is the column zero" is exact: no rounding decides a cell's fate, however many cells the
table has (floating point would call ``1e-17`` zero or not, by a tolerance).

**Sparse, and why it is fast.** Linear dependence does not change under an invertible change
of coordinates of the leaf space, so the columns are not written on the leaf cells but on a
basis that makes the table's own cells unit vectors: per dimension, its top nodes and, for
each sub-total, all its children but one (the cheapest, which is then its parent minus its
siblings); a cell's coordinates are the Kronecker product of its nodes' (the model matrix is a
Kronecker product over dimensions). The grand total, the margins and most inner cells are then
single entries, and publishing a single-entry column just deletes its row from the others: no
fill-in, no arithmetic. Nothing of size cells × leaves is ever built; the work is one pass
over the candidates, each touching the few columns that share its pivot row (the row of fewest
columns, as Markowitz pivoting chooses).

**Singletons.** GaussSuppression also guards against a contributor who is alone in a cell
(frequency 1) and knows its own value: its ``singletonMethod`` (``"anySum"`` by default for
counts, ``"sub2Sum"``/``"numFTF"``... for sums) treats such leaf cells as known to someone,
adds imaginary primary cells (sums of singletons in a group) or ignores singleton rows when
looking for dependence. This function does none of that itself: it protects exactly the
blocks (primary cell, direction, level) it is given, as the other methods do, and the final
check is the same. Singleton rules that the caller expresses as blocks are therefore honoured
through the repair step.

>>> import pandas as pd
>>> from pdanon.tables.table import build
>>> df = pd.DataFrame({"r": list("aabbbccc"), "c": list("xyxyyxxy")})
>>> p = build(df, index="r", columns="c").protect({"min_frequency": 2}, method="gauss")
>>> p.cells.status.value_counts().sort_index().to_dict()
{'primary': 4, 'safe': 6, 'secondary': 2}
>>> p.audit.ok, p.info["repair_added"]
(True, 0)
"""

from __future__ import annotations

from math import gcd

import numpy as np

from pdanon.tables.deviations import uncovered
from pdanon.tables.fast import LOCAL_ABOVE, fast

__all__ = ["coordinates", "eliminate", "gauss", "order"]


def _node_coordinates(dim, price: np.ndarray) -> list[dict]:
    """Per node of ``dim``, its coordinates ``{basis index: ±1}`` on a basis of the leaf space
    made of nodes: the top nodes and, for each sub-total, all children but the cheapest
    (``price`` per node), which is its parent minus its siblings."""
    n = dim.n_nodes
    parent = np.full(n, -1)
    for q, kids in dim.children.items():
        parent[kids] = q
    excluded = set()
    for q, kids in dim.children.items():
        excluded.add(min(kids, key=lambda c: (price[c], -c)))
    basis = {node: i for i, node in enumerate(c for c in range(n) if c not in excluded)}
    coords: list[dict | None] = [None] * n

    def of(node):
        if coords[node] is None:
            if node in basis:
                coords[node] = {basis[node]: 1}
            else:
                q = int(parent[node])
                out = dict(of(q))
                for s in dim.children[q]:
                    if s != node:
                        for k, v in of(s).items():
                            out[k] = out.get(k, 0) - v
                coords[node] = {k: v for k, v in out.items() if v}
        return coords[node]

    for node in range(n):
        of(node)
    return coords


def coordinates(dims, price: np.ndarray) -> list[dict]:
    """Every cell's column of the model matrix, in coordinates on a basis of table cells
    (Kronecker product of each dimension's :func:`_node_coordinates`): ``{row: int}``.
    The cheapest child of ``a, b`` is ``a``, so ``a = Total - b``:

    >>> import pandas as pd
    >>> from pdanon.tables.structure import dimension
    >>> d = dimension(pd.Series(["a", "b"], name="x"))  # a, b, Total
    >>> [sorted(c.items()) for c in coordinates([d], np.array([1.0, 2.0, 3.0]))]
    [[(0, -1), (1, 1)], [(0, 1)], [(1, 1)]]
    """
    shape = tuple(d.n_nodes for d in dims)
    per_dim = []
    for axis, d in enumerate(dims):
        node_price = np.asarray(price, dtype=np.float64).reshape(shape).sum(
            axis=tuple(i for i in range(len(dims)) if i != axis))
        per_dim.append(_node_coordinates(d, node_price))
    sizes = [d.n_leaves for d in dims]
    cols: list[dict] = [{0: 1}]
    for axis, coords in enumerate(per_dim):  # C order: the last dimension varies fastest
        step = sizes[axis]
        cols = [{r * step + k: v * w for r, v in c.items() for k, w in node.items()}
                for c in cols for node in coords]
    return cols


def order(x: np.ndarray, w: np.ndarray, size: np.ndarray) -> np.ndarray:
    """The candidates' order: empty cells first (a withheld empty cell can only move up, so
    GaussSuppression publishes zeros when it can), then the most expensive (``w``), then the
    largest value, then the cell covering the most leaf cells."""
    return np.lexsort((-size, -x, -w, x != 0))


def eliminate(cols: list[dict], candidates, primaries, forced: int = 0) -> np.ndarray:
    """Gaussian elimination on integer columns (``{row: int}``; modified in place). Candidates
    are taken in the given order; returns the candidates withheld (a boolean per candidate):
    those that would make some primary column a combination of published columns. The first
    ``forced`` candidates are published whatever they give away (cells that may not be
    withheld: the final check says if a primary cell is then left unprotected).

    >>> cols = [{0: 1, 1: 1}, {0: 1}, {1: 1}]  # Total = a + b; a is primary
    >>> eliminate(cols, [2, 0, 1], [1]).tolist()  # publish b; Total would give a away
    [False, True, False]
    """
    is_primary = np.zeros(len(cols), dtype=bool)
    is_primary[list(primaries)] = True
    active = set(candidates) | set(primaries)
    rows: dict[int, set] = {}
    for c in active:
        for r in cols[c]:
            rows.setdefault(r, set()).add(c)
    withheld = np.zeros(len(candidates), dtype=bool)
    for i, j in enumerate(candidates):
        a = cols[j]
        for r in a:
            rows[r].discard(j)
        if not a:
            continue  # a combination of published cells: publishing it adds nothing
        piv = min(a, key=lambda r: (len(rows[r]), abs(a[r])))
        ar, n = a[piv], len(a)
        if i >= forced and any(is_primary[k] and len(cols[k]) == n
                               and _proportional(a, cols[k], piv, ar) for k in rows[piv]):
            withheld[i] = True  # publishing it would give a primary cell away
            continue
        for k in list(rows[piv]):
            b = cols[k]
            br = b[piv]
            if n == 1:  # a unit pivot: drop its row
                del b[piv]
                rows[piv].discard(k)
                continue
            new = {r: ar * v for r, v in b.items()}
            for r, v in a.items():
                new[r] = new.get(r, 0) - br * v
            new = {r: v for r, v in new.items() if v}
            g = 0
            for v in new.values():
                g = gcd(g, v)
                if g == 1:
                    break
            if g > 1:
                new = {r: v // g for r, v in new.items()}
            for r in b.keys() - new.keys():
                rows[r].discard(k)
            for r in new.keys() - b.keys():
                rows.setdefault(r, set()).add(k)
            cols[k] = new
        rows[piv].clear()
    return withheld


def _proportional(a: dict, b: dict, piv: int, ar: int) -> bool:
    """Are the integer columns ``a`` and ``b`` (same length) proportional? Exact."""
    br = b.get(piv)
    if br is None:
        return False
    for r, v in a.items():
        u = b.get(r)
        if u is None or ar * u != br * v:
            return False
    return True


def gauss(dims, dev, w, blocks, fixed):
    """The Gaussian-elimination pattern, then the fast method's repair for any primary cell
    and direction the elimination left short of its protection level. Returns ``(withheld,
    info)``, ``withheld`` None when no pattern can protect the cells.

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.tables.table import build
    >>> df = pd.DataFrame({"r": list("aabbbb"), "c": list("xyxyxy")})
    >>> p = build(df, index="r", columns="c").protect({"min_frequency": 2}, method="gauss")
    >>> p.audit.ok, int((p.cells.status == "secondary").sum())
    (True, 2)
    """
    x = dev.x
    prim = np.flatnonzero(fixed)
    size = np.ones(len(x))
    for axis, d in enumerate(dims):
        covered = np.asarray(d.members.sum(axis=0)).ravel()
        shape = [1] * len(dims)
        shape[axis] = d.n_nodes
        size = (size.reshape(tuple(dd.n_nodes for dd in dims))
                * covered.reshape(shape)).ravel()
    shut = np.flatnonzero(dev.closed & ~fixed)  # may not be withheld: published first
    cand = np.flatnonzero(~fixed & ~dev.closed)
    cand = np.concatenate([shut, cand[order(x[cand], w[cand], size[cand])]])
    cols = coordinates(dims, w)
    out = eliminate(cols, cand.tolist(), prim.tolist(), forced=len(shut))
    withheld = fixed.copy()
    withheld[cand[out]] = True
    eliminated = int(out.sum())
    # the repair: the check (uncovered), then the fast method's programs for the blocks it
    # finds short, with the elimination's pattern fixed. On tables of more than LOCAL_ABOVE
    # cells the check's whole-table programs are left out: the fast method's programs (on a
    # neighbourhood first) already cost nothing for a block some deviation within the
    # pattern protects, as the pattern's cells are free. Every deviation found is kept, and
    # the final check in protect() reads them instead of solving again.
    short = uncovered(dev, blocks, withheld) if len(w) <= LOCAL_ABOVE else blocks
    repaired = fast(dev, w, short, withheld) if short else withheld
    if repaired is None:
        return None, {}
    added = int((repaired & ~withheld).sum())
    return repaired, {"elimination_secondary": eliminated, "repair_added": added}

