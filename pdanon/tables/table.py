"""A table built from microdata: every cell with its value, its frequency and its largest
contributions (:class:`Table`, built by :func:`build`, ``df.anon.table``).

The cells are every combination of one node per dimension (:mod:`pdanon.tables.structure`):
leaves, a hierarchy's sub-totals and the grand totals. They are computed without a loop over
rows: the microdata is counted once into the cube of leaves (``np.bincount``), and each node is
the sum of its leaves (one sparse product per dimension). Rules that read the largest
contributions (dominance, p %) need, per cell, each contributor's total in it: the rows (or,
with ``contributor=``, each holder's rows pooled) are spread to every cell above their leaf
and ranked per cell, one sort in all.

>>> import pandas as pd
>>> df = pd.DataFrame({"region": ["N", "N", "S"], "sex": ["f", "m", "f"]})
>>> t = build(df, index=["region"], columns=["sex"])
>>> t.cells[["region", "sex", "value"]].to_string(index=False)
'region   sex  value\\n     N     f      1\\n     N     m      1\\n     N Total      2\\n     S     f      1\\n     S     m      0\\n     S Total      1\\n Total     f      2\\n Total     m      1\\n Total Total      3'
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from scipy import sparse

from pdanon._errors import InvalidInputError
from pdanon.tables.structure import TOTAL, Dimension, constraints, dimension

__all__ = ["Table", "build"]

AGGFUNCS = ("count", "sum")


class Table:
    """A table of counts or sums with its structure (build one with ``df.anon.table``).

    ``cells`` has one row per cell: a column per dimension (the node's label, ``"Total"`` for a
    margin), ``value`` (the count or the sum), ``frequency`` (rows in the cell, or distinct
    contributors with ``contributor=``). ``constraints`` is the sparse matrix ``A`` of the
    table's additivity (``A @ value == 0``). :meth:`largest` gives each cell's largest
    contributions, which the dominance and p % rules read; they stay with the publisher.
    """

    def __init__(self, dims: list[Dimension], cells: pd.DataFrame, *, aggfunc: str,
                 values, contributor, raw: tuple, contributions: tuple | None = None):
        self.dims = dims
        self.cells = cells
        self.aggfunc = aggfunc
        self.values = values
        self.contributor = contributor
        self._raw = raw  # (leaf cell per row, amount per row, holder per row or None)
        self._ranked = contributions  # (indptr per cell, values sorted descending), lazily
        self._constraints = None

    def __repr__(self) -> str:
        shape = " × ".join(f"{d.name} ({d.n_nodes})" for d in self.dims)
        what = "count" if self.aggfunc == "count" else f"sum of {self.values!r}"
        return f"<Table: {what} by {shape}: {len(self.cells)} cells>"

    @property
    def dimensions(self) -> list:
        return [d.name for d in self.dims]

    @property
    def constraints(self) -> sparse.csr_matrix:
        if self._constraints is None:
            self._constraints = constraints(self.dims)
        return self._constraints

    @property
    def is_count(self) -> bool:
        return self.aggfunc == "count"

    def largest(self, n: int) -> np.ndarray:
        """The ``n`` largest contributions of every cell (cells × n, zero where a cell has
        fewer contributors): rows, or each contributor's total with ``contributor=``."""
        if self._ranked is None and self._raw[2] is None:  # rows: merge top lists upwards
            return _top(self._raw[0], self._raw[1], self.dims, n)
        indptr, vals = self._contributions()
        lens = np.diff(indptr)
        out = np.zeros((len(lens), n), dtype=np.float64)
        for j in range(n):
            has = lens > j
            out[has, j] = vals[indptr[:-1][has] + j]
        return out

    def _contributions(self) -> tuple:
        if self._ranked is None:
            self._ranked = _contributions(*self._raw, self.dims)
        return self._ranked

    def protect(self, rules=None, *, method: str = "optimal", cost: str = "value",
                time_limit: float = 60.0, singletons="auto", secondary_zeros: bool = False):
        """Primary suppression by ``rules``, then secondary suppression by ``method``; the
        result is audited before it is returned (:func:`pdanon.tables.protect`)."""
        from pdanon.tables.suppress import protect
        return protect(self, rules, method=method, cost=cost, time_limit=time_limit,
                       singletons=singletons, secondary_zeros=secondary_zeros)

    def sole_holder(self) -> np.ndarray:
        """Per cell, the code of its one contributor when it has exactly one (a row, or a
        holder with ``contributor=``), else -1: the cells a single holder knows exactly.

        >>> import pandas as pd
        >>> t = build(pd.DataFrame({"g": ["a", "b", "b"]}), index="g")
        >>> t.sole_holder().tolist()  # a: row 0 alone; b and Total: two rows
        [0, -1, -1]
        """
        _, _, holders = self._raw
        unit = np.arange(len(self._raw[0])) if holders is None else holders
        rows = self.sum_by_cell(np.ones(len(unit)))
        total = self.sum_by_cell(unit)
        one = self.cells["frequency"].to_numpy() == 1
        out = np.full(len(one), -1, dtype=np.int64)
        out[one] = np.rint(total[one] / rows[one]).astype(np.int64)
        return out

    def sum_by_cell(self, per_row) -> np.ndarray:
        """Per cell (in ``cells`` order), the sum of ``per_row`` (one number per microdata
        row, in the frame's row order) over the cell's rows."""
        leaf = self._raw[0]
        n_leaf_cells = int(np.prod([d.n_leaves for d in self.dims]))
        return _up(np.bincount(leaf, weights=np.asarray(per_row, dtype=np.float64),
                               minlength=n_leaf_cells), self.dims)

    def differs_from(self, other: Table) -> str | None:
        """Why ``other`` was not built from the same frame as this table (``None`` when it
        was): the same rows (index), the same amounts and holders per row, and, for every
        column both tables use, the same value per row. Linked tables need it
        (:func:`pdanon.tables.link`)."""
        leaf, amount, holders = self._raw
        o_leaf, o_amount, o_holders = other._raw
        if len(leaf) != len(o_leaf) or not self.row_index.equals(other.row_index):
            return (f"they hold different rows ({len(leaf)} and {len(o_leaf)} rows"
                    + (", a different index)" if len(leaf) == len(o_leaf) else ")"))
        if not np.array_equal(amount, o_amount):
            return f"their amounts ({self.values!r}) differ row by row"
        if (holders is None) != (o_holders is None) or (
                holders is not None and not np.array_equal(holders, o_holders)):
            return f"their holders ({self.contributor!r}) differ row by row"
        mine = {d.name: d for d in self.dims}
        for d in other.dims:
            if d.name not in mine:
                continue
            m = mine[d.name]
            same_leaves = m.n_leaves == d.n_leaves and pd.Index(
                m.labels[:m.n_leaves], dtype=object).equals(pd.Index(d.labels[:d.n_leaves],
                                                                      dtype=object))
            if not same_leaves or not np.array_equal(m.leaf_of_row, d.leaf_of_row):
                return f"column {d.name!r} has different values row by row"
        return None

    def cell_key(self, ptable, keys, **magnitude):
        """Cell-key noise on the cells (:func:`pdanon.tables.cell_key`; sums take ``m=``,
        ``top_k=``, ``epsilon=``)."""
        from pdanon.tables.cellkey import cell_key
        return cell_key(self, ptable, keys, **magnitude)

    def pivot(self, **kwargs) -> pd.DataFrame:
        """The table as a pivot (``index`` dimensions down, ``columns`` across)."""
        from pdanon.tables.output import pivot
        return pivot(self.cells, self, **kwargs)


def _columns(df: pd.DataFrame, names, what: str) -> list:
    if names is None:
        return []
    if isinstance(names, (str, numbers.Number)) or not hasattr(names, "__iter__"):
        names = [names]
    names = list(names)
    missing = [c for c in names if c not in df.columns]
    if missing:
        raise InvalidInputError(
            f"{what} names {missing!r}, which the frame does not have; its columns are "
            f"{list(df.columns)!r}")
    return names


def _check_values(df: pd.DataFrame, values) -> np.ndarray:
    col = df[values]
    if not pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype):
        raise InvalidInputError(
            f"values={values!r} must be a numeric column to sum, not {col.dtype}; convert it "
            f"(pd.to_numeric(df[{values!r}])) or use aggfunc='count'")
    arr = col.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.isnan(arr)
    if bad.any():
        raise InvalidInputError(
            f"column {values!r} has {int(bad.sum())} missing values (first at row "
            f"{df.index[np.flatnonzero(bad)[0]]!r}); a magnitude table needs every contribution: "
            f"fill them (df[{values!r}].fillna(0)) or drop those rows")
    if (arr < 0).any():
        raise InvalidInputError(
            f"column {values!r} has {int((arr < 0).sum())} negative values; the rules for "
            f"magnitude tables (dominance, p %) assume contributions >= 0: split positive and "
            f"negative parts into two tables or shift the column")
    return arr


def _contributor_codes(df: pd.DataFrame, contributor) -> np.ndarray:
    col = df[contributor]
    if col.isna().any():
        raise InvalidInputError(
            f"contributor column {contributor!r} has {int(col.isna().sum())} missing ids; "
            f"every row needs its holder (fill them with a unique id per row if each such row "
            f"is a holder of its own)")
    codes, _ = pd.factorize(col, sort=False)
    return np.asarray(codes, dtype=np.int64)


def build(df: pd.DataFrame, *, index=None, columns=None, values=None, aggfunc: str = "count",
          hierarchies=None, margins: bool = True, contributor=None,
          margins_name: str = TOTAL) -> Table:
    """Build the table of ``df`` by ``index`` × ``columns`` (see ``df.anon.table``).

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"r": ["a", "a", "b"], "x": [5.0, 1.0, 2.0]})
    >>> t = build(df, index="r", values="x", aggfunc="sum")
    >>> t.cells.to_dict("list")
    {'r': ['a', 'b', 'Total'], 'value': [6.0, 2.0, 8.0], 'frequency': [2, 1, 3]}
    >>> t.largest(2).tolist()
    [[5.0, 1.0], [2.0, 0.0], [5.0, 2.0]]
    """
    if not isinstance(df, pd.DataFrame):
        raise InvalidInputError(f"a table is built from a DataFrame, not {type(df).__name__}")
    keys = _columns(df, index, "index") + _columns(df, columns, "columns")
    if not keys:
        raise InvalidInputError("a table needs at least one dimension: give index= and/or "
                                "columns= (column names of the frame)")
    if len(set(keys)) < len(keys):
        raise InvalidInputError(f"index and columns name a column twice: {keys!r}")
    if aggfunc not in AGGFUNCS:
        raise InvalidInputError(f"aggfunc={aggfunc!r} is not supported; use one of {AGGFUNCS}")
    if aggfunc == "sum" and values is None:
        raise InvalidInputError("aggfunc='sum' needs values= (the numeric column to sum)")
    if aggfunc == "count" and values is not None:
        raise InvalidInputError(
            f"values={values!r} with aggfunc='count': a count table counts rows; use "
            f"aggfunc='sum' to add up {values!r}, or drop values=")
    if values is not None:
        _columns(df, values, "values")
        if values in keys:
            raise InvalidInputError(f"values={values!r} is also a dimension of the table")
    if contributor is not None:
        _columns(df, contributor, "contributor")
        if contributor in keys or contributor == values:
            raise InvalidInputError(
                f"contributor={contributor!r} is also a dimension or the values of the table")
    hierarchies = dict(hierarchies or {})
    unknown = [c for c in hierarchies if c not in keys]
    if unknown:
        raise InvalidInputError(
            f"hierarchies name {unknown!r}, which are not dimensions of the table {keys!r}")
    if len(df) == 0:
        raise InvalidInputError("the frame has no rows: there is no table to build")
    amount = _check_values(df, values) if values is not None else np.ones(len(df))
    holders = _contributor_codes(df, contributor) if contributor is not None else None

    dims = [dimension(df[c], hierarchy=hierarchies.get(c), margins=margins, total=margins_name)
            for c in keys]
    leaf_shape = tuple(d.n_leaves for d in dims)
    node_shape = tuple(d.n_nodes for d in dims)
    leaf = np.ravel_multi_index(tuple(d.leaf_of_row for d in dims), leaf_shape)
    n_leaf_cells = int(np.prod(leaf_shape))
    value = _up(np.bincount(leaf, weights=amount, minlength=n_leaf_cells), dims)
    ranked = None
    if holders is None:
        freq = _up(np.bincount(leaf, minlength=n_leaf_cells).astype(np.float64), dims)
    else:
        ranked = _contributions(leaf, amount, holders, dims)
        freq = np.diff(ranked[0]).astype(np.float64)
    grid = np.indices(node_shape).reshape(len(dims), -1)
    cells = {d.name: np.asarray(d.labels, dtype=object)[grid[i]] for i, d in enumerate(dims)}
    cells["value"] = value.astype(np.int64) if aggfunc == "count" else value
    cells["frequency"] = np.rint(freq).astype(np.int64)
    out = Table(dims, pd.DataFrame(cells), aggfunc=aggfunc, values=values,
                contributor=contributor, raw=(leaf, amount, holders), contributions=ranked)
    out.row_index = df.index  # the microdata rows, to align record keys (cell_key)
    return out


def _up(leaf_cube: np.ndarray, dims: list[Dimension]) -> np.ndarray:
    """Leaf cells -> node cells: each node is the sum of the leaves it covers."""
    cube = leaf_cube.reshape(tuple(d.n_leaves for d in dims))
    for axis, d in enumerate(dims):
        moved = np.moveaxis(cube, axis, -1)
        flat = moved.reshape(-1, d.n_leaves)
        flat = flat @ d.members.toarray().astype(np.float64)
        cube = np.moveaxis(flat.reshape(moved.shape[:-1] + (d.n_nodes,)), -1, axis)
    return np.ascontiguousarray(cube).reshape(-1)


def _top(leaf: np.ndarray, amount: np.ndarray, dims: list[Dimension], n: int) -> np.ndarray:
    """The ``n`` largest rows of every cell (cells × n, zero-padded) when each row is its own
    contributor: a row lies under one leaf, so a node's top ``n`` are the top ``n`` of its
    leaves' top lists. One sort of the rows, then per dimension and node a partition of its
    leaves' lists (no spreading of rows to every cell above them)."""
    leaf_shape = tuple(d.n_leaves for d in dims)
    n_leaf_cells = int(np.prod(leaf_shape))
    order = np.lexsort((-amount, leaf))
    sl, sa = leaf[order], amount[order]
    starts = np.searchsorted(sl, np.arange(n_leaf_cells))
    ends = np.searchsorted(sl, np.arange(n_leaf_cells), side="right")
    cube = np.zeros((n_leaf_cells, n))
    for j in range(n):
        has = ends - starts > j
        cube[has, j] = sa[starts[has] + j]
    cube = cube.reshape(leaf_shape + (n,))
    for axis, d in enumerate(dims):
        cover = d.members.tocsc()  # per node, the leaves it covers
        parts = []
        for node in range(d.n_nodes):
            leaves = cover.indices[cover.indptr[node]:cover.indptr[node + 1]]
            block = np.take(cube, leaves, axis=axis)
            block = np.moveaxis(block, axis, -2)
            flat = block.reshape(block.shape[:-2] + (-1,))
            if flat.shape[-1] > n:
                flat = -np.partition(-flat, n - 1, axis=-1)[..., :n]
            parts.append(-np.sort(-flat, axis=-1))
        cube = np.moveaxis(np.stack(parts, axis=-2), -2, axis)
    return np.ascontiguousarray(cube).reshape(-1, n)


def _pool(a: np.ndarray, b: np.ndarray, weights: np.ndarray):
    """Distinct pairs (a, b) and the sum of ``weights`` over each (one sort)."""
    order = np.lexsort((b, a))
    a, b, w = a[order], b[order], weights[order]
    first = np.ones(len(a), dtype=bool)
    first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    starts = np.flatnonzero(first)
    return a[starts], b[starts], np.add.reduceat(w, starts) if len(w) else w


def _contributions(leaf, amount, holders, dims):
    """(indptr, values): per node cell, its contributors' totals in decreasing order."""
    leaf_shape = tuple(d.n_leaves for d in dims)
    node_shape = tuple(d.n_nodes for d in dims)
    unit = np.arange(len(leaf), dtype=np.int64) if holders is None else holders
    # pool a holder's rows within each leaf cell
    leaf_cell, unit, pooled = _pool(leaf, unit, amount)
    pair = np.stack([leaf_cell, unit])
    leaf_idx = np.unravel_index(pair[0], leaf_shape)
    # spread every (leaf cell, holder) to each cell above it, one dimension at a time
    cell = np.zeros(pair.shape[1], dtype=np.int64)
    src = np.arange(pair.shape[1], dtype=np.int64)
    for axis, d in enumerate(dims):
        anc = d.members.tocsr()  # leaf -> covering nodes
        lens = np.diff(anc.indptr)
        lv = leaf_idx[axis][src]
        reps = lens[lv]
        starts = np.repeat(anc.indptr[lv], reps)
        within = np.arange(int(reps.sum()), dtype=np.int64) - np.repeat(np.cumsum(reps) - reps, reps)
        nodes = anc.indices[starts + within]
        cell = np.repeat(cell, reps) * d.n_nodes + nodes
        src = np.repeat(src, reps)
    holder = pair[1][src]
    amt = pooled[src]
    if holders is not None:  # a holder under several leaves of one cell: pool again
        cell, _, amt = _pool(cell, holder, amt)
    order = np.lexsort((-amt, cell))
    cell, amt = cell[order], amt[order]
    n_cells = int(np.prod(node_shape))
    indptr = np.zeros(n_cells + 1, dtype=np.int64)
    np.cumsum(np.bincount(cell, minlength=n_cells), out=indptr[1:])
    return indptr, amt
