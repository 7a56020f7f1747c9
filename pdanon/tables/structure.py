"""The structure of a table: each dimension's tree of categories and the additivity it implies.

A dimension is a column of the microdata (``region``, ``age band``) with its categories (the
*leaves*) and the sub-totals above them: a hierarchy's nodes (``pdanon.hierarchy`` trees) and,
with margins, one grand total. Every node is identified by the set of leaves it covers, so a
hierarchy level that does not split a node (``Europe`` above ``France`` alone) adds no cell.

A table's cells are every combination of one node per dimension. Its *structure* is the set of
linear equations a reader can rely on: for each dimension, each node that is not a leaf equals
the sum of its children, whatever the nodes of the other dimensions. :func:`constraints` gives
them as a sparse matrix ``A`` (one row per equation, one column per cell) with ``A @ x = 0`` for
the true cell values ``x`` — what the attacker of :mod:`pdanon.tables.audit` knows besides the
published cells.

>>> import pandas as pd
>>> d = dimension(pd.Series(["b", "a", "b"], name="x"))
>>> d.labels, d.children
(['a', 'b', 'Total'], {2: [0, 1]})
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse

from pdanon._errors import InvalidInputError

__all__ = ["Dimension", "below", "constraints", "dimension", "sibling_groups"]

#: the label of a dimension's grand total (pandas' ``pivot_table`` writes ``"All"``)
TOTAL = "Total"


@dataclass
class Dimension:
    """One dimension of a table.

    ``leaf_of_row`` gives each microdata row's leaf (``0 .. n_leaves - 1``); the nodes are
    numbered leaves first, then the sub-totals bottom-up; ``labels[j]`` names node ``j``;
    ``members`` (leaves × nodes,
    sparse 0/1) says which leaves each node covers; ``children[j]`` lists the nodes whose sum
    is node ``j`` (they partition its leaves).
    """

    name: object
    labels: list
    leaf_of_row: np.ndarray
    n_leaves: int
    members: sparse.csr_matrix
    children: dict = field(default_factory=dict)

    @property
    def n_nodes(self) -> int:
        return len(self.labels)


def _leaves(series: pd.Series, name) -> tuple[np.ndarray, pd.Index, bool]:
    """(leaf code per row, -1 for missing; the leaf values in order; any missing?)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        codes = np.asarray(series.cat.codes, dtype=np.int64)
        values = pd.Index(np.asarray(series.cat.categories))
    else:
        codes, values = pd.factorize(series, sort=False, use_na_sentinel=True)
        codes = np.asarray(codes, dtype=np.int64)
        try:
            order = np.argsort(np.asarray(values), kind="stable")
        except TypeError as err:  # mixed types: keep first appearance, say so in the error
            raise InvalidInputError(
                f"column {name!r} mixes values that cannot be ordered ({err}); convert it to "
                f"one type (e.g. df[{name!r}].astype(str)) before building a table") from None
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        codes = np.where(codes >= 0, rank[np.maximum(codes, 0)], -1)
        values = pd.Index(np.asarray(values)[order])
    return codes, values, bool((codes < 0).any())


def _distinct(labels: list, n_leaves: int, name, has_total: bool) -> None:
    """Refuse two nodes of one dimension with one label (as text, as the files write it): a
    category named like the grand total or a sub-total would publish two cells a reader
    cannot tell apart."""
    seen: dict = {}
    for j, label in enumerate(labels):
        if label is None:
            continue
        key = str(label)
        if key in seen:
            kinds = ["a category" if k < n_leaves else
                     "the grand total" if has_total and k == len(labels) - 1 else
                     "a hierarchy node" for k in (seen[key], j)]
            fix = ("give the total another label (margins_name=..., --margins-name on the "
                   "command line)" if "the grand total"
                   in kinds else "rename one of them (in the data or the hierarchy)")
            raise InvalidInputError(
                f"column {name!r}: the label {key!r} names both {kinds[0]} and {kinds[1]}; "
                f"the published cells could not be told apart: {fix}")
        seen[key] = j


def dimension(series: pd.Series, *, hierarchy=None, margins: bool = True,
              total: str = TOTAL) -> Dimension:
    """The dimension of one column: its leaves (the column's values, categories in their order,
    others sorted; a missing value is a leaf of its own, labelled ``None``), the nodes of
    ``hierarchy`` above them, and the grand total when ``margins``.

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.hierarchy import tree
    >>> h = tree({"EU": ["fr", "es"], "AS": ["in"]})
    >>> d = dimension(pd.Series(["fr", "in", "es"], name="c"), hierarchy=h)
    >>> d.labels, d.children
    (['es', 'fr', 'in', 'EU', 'Total'], {3: [0, 1], 4: [3, 2]})
    """
    name = series.name
    codes, values, na = _leaves(series, name)
    labels = list(values)
    if na:
        codes = np.where(codes < 0, len(labels), codes)
        labels.append(None)
    n_leaves = len(labels)
    # level codes of every leaf, from the leaves (level 0) up
    levels = [np.arange(n_leaves, dtype=np.int64)]
    level_labels = [list(labels)]
    if hierarchy is not None:
        try:
            b = hierarchy.bind(pd.Index(values), name=name, na=na)
        except InvalidInputError:
            raise
        except (KeyError, ValueError) as err:
            raise InvalidInputError(
                f"the hierarchy for column {name!r} does not cover its values ({err}); "
                f"give a hierarchy that lists every value of the column") from None
        for j in range(1, b.height + 1):
            levels.append(np.asarray(b.codes[j], dtype=np.int64))
            level_labels.append(list(b.labels[j]))
    if margins:
        levels.append(np.zeros(n_leaves, dtype=np.int64))
        level_labels.append([total])
    # nodes: a level's group is a new node only when it joins two or more groups below it
    node_of = levels[0].copy()  # node of each level-j group, for the current level
    node_labels = list(labels)
    children: dict = {}
    for j in range(1, len(levels)):
        below, here = levels[j - 1], levels[j]
        n_here = int(here.max()) + 1 if n_leaves else 0
        node_below = node_of  # indexed by level j-1 group
        # the level j-1 groups inside each level-j group (one sort, not a pass per group)
        pairs = np.unique(here * (int(below.max()) + 1) + below)
        inside = np.split(pairs % (int(below.max()) + 1),
                          np.searchsorted(pairs // (int(below.max()) + 1), np.arange(1, n_here)))
        node_of = np.empty(n_here, dtype=np.int64)
        for g, sub in enumerate(inside):
            if len(sub) == 1:
                node_of[g] = node_below[sub[0]]
                continue
            new = len(node_labels)
            node_of[g] = new
            node_labels.append(level_labels[j][g])
            children[new] = [int(node_below[s]) for s in sub]
    if margins and n_leaves > 1:  # the node over every leaf is the grand total
        node_labels[-1] = total
    _distinct(node_labels, n_leaves, name, margins and n_leaves > 1)
    # members: which leaves each node covers
    rows, cols = list(range(n_leaves)), list(range(n_leaves))
    cover = {leaf: [leaf] for leaf in range(n_leaves)}
    for node in sorted(children):
        cover[node] = [leaf for c in children[node] for leaf in cover[c]]
        rows += cover[node]
        cols += [node] * len(cover[node])
    m = sparse.csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)),
                          shape=(n_leaves, len(node_labels)))
    return Dimension(name, node_labels, codes, n_leaves, m, children)


def constraints(dims: list[Dimension]) -> sparse.csr_matrix:
    """The additivity equations of the table of ``dims`` as a sparse matrix ``A`` with one
    column per cell (cells in C order over the dimensions' nodes) and ``A @ x = 0``.

    Example
    -------
    >>> import pandas as pd
    >>> d = dimension(pd.Series(["a", "b"], name="x"))
    >>> constraints([d]).toarray().tolist()  # Total - a - b = 0
    [[-1, -1, 1]]
    """
    shape = tuple(d.n_nodes for d in dims)
    blocks = [_lines(shape, axis, [parent] + list(kids), [1] + [-1] * len(kids))
              for axis, d in enumerate(dims) for parent, kids in d.children.items()]
    if not blocks:
        return sparse.csr_matrix((0, int(np.prod(shape))), dtype=np.int8)
    return sparse.vstack(blocks).tocsr()


def _lines(shape: tuple, axis: int, nodes: list, coefs: list) -> sparse.csr_matrix:
    """One row per combination of the other dimensions' nodes: coefficient ``coefs[k]`` on
    the cell of ``nodes[k]`` along ``axis`` (cells in C order over ``shape``)."""
    other = [range(s) for i, s in enumerate(shape) if i != axis]
    others = np.array(np.meshgrid(*other, indexing="ij")).reshape(len(other), -1) \
        if other else np.zeros((0, 1), dtype=np.int64)
    n_other = others.shape[1]
    cols = [np.ravel_multi_index(tuple(np.insert(others, axis, node, axis=0)), shape)
            for node in nodes]
    vals = np.repeat(np.asarray(coefs, dtype=np.int8), n_other)
    return sparse.csr_matrix((vals, (np.tile(np.arange(n_other), len(nodes)),
                                     np.concatenate(cols))),
                             shape=(n_other, int(np.prod(shape))))


def sibling_groups(dims: list[Dimension]) -> sparse.csr_matrix:
    """The table's groups of sibling cells, as a sparse 0/1 matrix (one row per group, one
    column per cell): along one dimension, with the other dimensions' nodes fixed, the
    children of one node — or, without margins, the nodes nobody sums (the categories a
    reader sees side by side). A group is what a reader reads as "how the people of one
    row split": :func:`pdanon.tables.rules.primary`'s ``group`` rule looks for the rows
    where all of them, or all but one, fall in one cell.

    Example
    -------
    >>> import pandas as pd
    >>> d = dimension(pd.Series(["a", "b"], name="x"))
    >>> sibling_groups([d]).toarray().tolist()  # a and b, the children of Total
    [[1, 1, 0]]
    """
    shape = tuple(d.n_nodes for d in dims)
    blocks = []
    for axis, d in enumerate(dims):
        kids = {c for cs in d.children.values() for c in cs}
        sets = list(d.children.values())
        roots = [j for j in range(d.n_nodes) if j not in kids]
        if len(roots) > 1:  # without margins: the top nodes, read side by side
            sets.append(roots)
        blocks += [_lines(shape, axis, members, [1] * len(members)) for members in sets]
    if not blocks:
        return sparse.csr_matrix((0, int(np.prod(shape))), dtype=np.int8)
    return sparse.vstack(blocks).tocsr()


def below(a: sparse.spmatrix, cells: np.ndarray) -> np.ndarray:
    """The cells summed, directly or through sub-totals, into one of ``cells`` (a mask), by
    the equations ``a`` (each row: +1 on a sub-total, -1 on its parts); ``cells``
    themselves are not included unless one sums into another.

    >>> import pandas as pd
    >>> d = dimension(pd.Series(["a", "b"], name="x"))
    >>> below(constraints([d]), np.array([False, False, True])).tolist()  # under Total
    [True, True, False]
    """
    a = sparse.csr_matrix(a)
    if not a.shape[0]:
        return np.zeros(a.shape[1], dtype=bool)
    parent = np.asarray((a > 0).argmax(axis=1)).ravel()
    parts = (a < 0).astype(np.int64).T.tocsr()
    out = np.zeros(a.shape[1], dtype=bool)
    frontier = np.asarray(cells, dtype=bool)
    while frontier.any():
        reached = (parts @ frontier[parent].astype(np.int64)) > 0
        frontier = reached & ~out
        out |= reached
    return out
