"""The cells several tables of one frame share, and the equations that hold them together.

Tables built from one frame share cells: region × sex and region × age both hold each
region's total. Two cells are *the same cell* when they cover the same microdata rows by
construction: for every variable of any of the tables, the node's leaves (a sub-total covers
the leaves below it; a variable a table does not use is that table's total, all its leaves).
So a sub-total of one table's hierarchy is a cell of another only when it covers exactly the
same values. :func:`union_of` numbers the distinct cells of all the tables once (first table
first), maps each table's cells to those numbers, and stacks every table's additivity
equations on them: the attacker of linked tables knows all of them at once.

>>> import pandas as pd
>>> from pdanon.tables.table import build
>>> df = pd.DataFrame({"r": list("aab"), "s": list("fmf"), "g": list("xyy")})
>>> u = union_of([build(df, index="r", columns="s"), build(df, index="r", columns="g")])
>>> len(u.cells), [len(i) for i in u.ids]  # 9 + 9 cells, 3 shared (a, b and the total)
(15, [9, 9])
>>> u.cells.loc[u.cells.tables.map(len) == 2, ["r", "s", "g"]].values.tolist()
[['a', 'Total', 'Total'], ['b', 'Total', 'Total'], ['Total', 'Total', 'Total']]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse

from pdanon._errors import InvalidInputError
from pdanon.tables.structure import TOTAL

__all__ = ["CellUnion", "merge_levels", "union_of"]


@dataclass
class CellUnion:
    """The distinct cells of linked tables.

    ``tables``: the tables; ``ids[t]``: for each cell of table ``t`` (its ``cells`` order),
    its number among the distinct cells; ``cells``: one row per distinct cell (a column per
    variable of any table, the node's label or ``"Total"``; ``value``; ``frequency``;
    ``tables``, the positions of the tables that hold it); ``A``: every table's additivity
    equations on the distinct cells (``A @ value == 0``); ``x``: the values.
    """

    tables: list
    ids: list
    cells: pd.DataFrame
    A: sparse.csr_matrix
    x: np.ndarray
    codes: np.ndarray  # per distinct cell, its node per variable (0: the total)
    kids: list  # per variable: node -> the nodes below it, in any table's hierarchy
    _where: dict | None = field(default=None, repr=False)  # codes -> cell, on first use
    _parents: list | None = field(default=None, repr=False)

    @property
    def is_count(self) -> bool:
        return self.tables[0].is_count

    def neighbourhood(self, p: int, price: np.ndarray, width: int) -> np.ndarray | None:
        """The cells near ``p``, as a table's neighbourhood (the fast method's first try):
        per variable, ``p``'s node, the nodes above and below it and up to ``width``
        siblings (the cheapest cells of ``p``'s line first), in any table's hierarchy; the
        distinct cells within all of them. None when that is every cell."""
        if self._where is None:
            self._where = {row.tobytes(): i for i, row in enumerate(self.codes)}
            self._parents = [{} for _ in self.kids]
            for up, kids in zip(self._parents, self.kids):
                for q, ks in kids.items():
                    for k in ks:
                        up.setdefault(k, set()).add(q)
        code = self.codes[p]
        keep = np.ones(len(self.codes), dtype=bool)
        for v, kids in enumerate(self.kids):
            node = int(code[v])
            parents = self._parents[v].get(node, set())
            near = {node} | parents | set(kids.get(node, ()))
            siblings = sorted({s for q in parents for s in kids[q]} - {node})
            line = code.copy()
            cost = []
            for sib in siblings:  # one per sibling node, not per cell
                line[v] = sib
                at = self._where.get(line.tobytes())
                cost.append(np.inf if at is None else price[at])
            near.update(siblings[i] for i in np.argsort(cost, kind="stable")[:width])
            keep &= np.isin(self.codes[:, v], list(near))
        return None if keep.all() else np.flatnonzero(keep)


def check_same_frame(tables) -> list:
    """The tables as a list, or a clear error when they cannot be linked."""
    tables = list(tables)
    if not tables:
        raise InvalidInputError("linked tables: give at least one table")
    for i, t in enumerate(tables):
        if not (hasattr(t, "dims") and hasattr(t, "constraints")):
            raise InvalidInputError(
                f"linked tables: item {i} is a {type(t).__name__}, not a table; build each "
                f"with df.anon.table(...) from the same frame")
    first = tables[0]
    for i, t in enumerate(tables[1:], 1):
        for what in ("aggfunc", "values", "contributor"):
            if getattr(t, what) != getattr(first, what):
                raise InvalidInputError(
                    f"linked tables 0 and {i} differ in {what} ({getattr(first, what)!r} and "
                    f"{getattr(t, what)!r}): tables protected together must count (or sum) "
                    f"the same thing; build them with the same {what}=")
        why = first.differs_from(t)
        if why:
            raise InvalidInputError(
                f"linked tables 0 and {i} were not built from the same frame: {why}. Build "
                f"every linked table from one frame (filter or recode it once, before the "
                f"tables)")
    return tables


def union_of(tables) -> CellUnion:
    """The distinct cells of ``tables`` (built from one frame) and their equations."""
    tables = check_same_frame(tables)
    names: list = []
    for t in tables:
        names += [d.name for d in t.dims if d.name not in names]
    pos = {name: v for v, name in enumerate(names)}
    registry: list[dict] = [{} for _ in names]  # per variable: covered leaves -> node id
    labels: list[dict] = [{} for _ in names]  # per variable: node id -> first label seen
    kids: list[dict] = [{} for _ in names]  # per variable: node id -> the ids below it
    codes = []
    for t in tables:
        shape = tuple(d.n_nodes for d in t.dims)
        grid = np.indices(shape).reshape(len(shape), -1)
        code = np.zeros((grid.shape[1], len(names)), dtype=np.int64)  # 0: every leaf
        for axis, d in enumerate(t.dims):
            v = pos[d.name]
            node = _node_ids(d, registry[v], labels[v])
            code[:, v] = node[grid[axis]]
            for parent, below in d.children.items():
                kids[v].setdefault(int(node[parent]), set()).update(int(node[c]) for c in below)
        codes.append(code)
    stacked = np.vstack(codes)
    _, first, inverse = np.unique(stacked, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # number the cells in order of appearance
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    union_id = rank[np.asarray(inverse).reshape(-1)]
    bounds = np.cumsum([0] + [len(c) for c in codes])
    ids = [union_id[bounds[i]:bounds[i + 1]] for i in range(len(tables))]
    n = len(order)
    rows = first[order]  # each distinct cell's first occurrence in the stacked cells
    cells = {}
    for v, name in enumerate(names):
        label = np.full(len(registry[v]) + 1, TOTAL, dtype=object)
        for c, text in labels[v].items():  # one per node, not per cell
            label[c] = text
        cells[name] = label[stacked[rows, v]]
    value = np.concatenate([t.cells["value"].to_numpy() for t in tables])
    freq = np.concatenate([t.cells["frequency"].to_numpy() for t in tables])
    x = value[rows].astype(np.float64)
    scale = max(1.0, float(np.abs(x).max()) if n else 1.0)
    if not (np.abs(value - x[union_id]) <= 1e-9 * scale).all() or \
            not (freq == freq[rows][union_id]).all():
        raise RuntimeError("internal error: two tables hold the same cell with different "
                           "values; please report it with the tables")
    cells["value"] = value[rows]
    cells["frequency"] = freq[rows]
    holds = np.zeros((n, len(tables)), dtype=bool)
    for i, idx in enumerate(ids):
        holds[idx, i] = True
    kinds, which = np.unique(holds, axis=0, return_inverse=True)  # a few patterns
    names_of = np.empty(len(kinds), dtype=object)
    names_of[:] = [tuple(np.flatnonzero(k).tolist()) for k in kinds]
    cells["tables"] = names_of[np.asarray(which).reshape(-1)]
    A = sparse.vstack([_remap(t.constraints, idx, n) for t, idx in zip(tables, ids)]).tocsr()
    return CellUnion(tables, ids, pd.DataFrame(cells), A, x, stacked[rows], kids)


def _node_ids(d, registry: dict, labels: dict) -> np.ndarray:
    """Each node of dimension ``d`` numbered by the set of leaves it covers (0: all of
    them, the total), in ``registry`` shared by every table using the variable."""
    members = d.members.tocsc()
    members.sort_indices()
    out = np.empty(d.n_nodes, dtype=np.int64)
    for j in range(d.n_nodes):  # one per node of a dimension, not per cell
        leaves = members.indices[members.indptr[j]:members.indptr[j + 1]]
        out[j] = 0 if len(leaves) == d.n_leaves else registry.setdefault(
            leaves.astype(np.int64).tobytes(), len(registry) + 1)
        labels.setdefault(int(out[j]), d.labels[j])
    return out


def _remap(A: sparse.csr_matrix, ids: np.ndarray, n: int) -> sparse.csr_matrix:
    """A table's equations with its cells renumbered as the distinct cells."""
    A = A.tocsr()
    return sparse.csr_matrix((A.data.astype(np.float64), ids[A.indices], A.indptr),
                             shape=(A.shape[0], n))


def merge_levels(union: CellUnion, frames: list) -> pd.DataFrame:
    """One frame of levels (``status``, ``rule``, ``lower``, ``upper``) over the distinct
    cells from each table's (:func:`pdanon.tables.primary`). A shared cell has the same
    rows, so the same value, frequency and contributions in every table, and the same
    levels; should rounding in a sum put it on either side of a rule's threshold in two
    tables, it is primary in both, with the larger levels."""
    n = len(union.cells)
    primary = np.zeros(n, dtype=bool)
    rule = np.full(n, "", dtype=object)
    lower, upper = np.zeros(n), np.zeros(n)
    for idx, lv in zip(union.ids, frames):
        is_p = (lv["status"] == "primary").to_numpy()
        primary[idx] |= is_p
        r = lv["rule"].to_numpy()
        fresh = (rule[idx] == "") & (r != "")
        rule[idx[fresh]] = r[fresh]
        lower[idx] = np.maximum(lower[idx], lv["lower"].to_numpy())
        upper[idx] = np.maximum(upper[idx], lv["upper"].to_numpy())
    return pd.DataFrame({"status": np.where(primary, "primary", "safe"), "rule": rule,
                         "lower": lower, "upper": upper}, index=union.cells.index)
