"""The base of every hierarchy: :class:`Hierarchy`, a hierarchy bound to a column's values
(:class:`Bound`), and how missing values enter the tree.

A missing value (NaN, None, ``pd.NA``, NaT) is a value of its own, as in ARX: below the top it
is its own node at every level (labelled missing; published as a missing cell), and at the top
it joins the top node when the top level is a single node such as ``*``. A hierarchy table may
also list it (:func:`pdanon.hierarchy.from_table`, :func:`pdanon.hierarchy.read_arx_csv`).

>>> from pdanon.hierarchy import intervals
>>> intervals([10]).levels_table([23, None, 37])
   value level1 level2
0   23.0  20-29      *
1   37.0  30-39      *
2    NaN    NaN      *
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError

__all__ = ["Bound", "Hierarchy", "MAX_HEIGHT", "MISSING_NODE", "TOP", "check_height",
           "check_level", "distinct_values", "for_column", "name_of"]

TOP = "*"
#: The most levels above the original values (the height) a hierarchy may have. Every builder
#: checks it before it builds a level (a nested spec by walking it iteratively, never by
#: recursion), so a spec nested thousands of levels deep gets a clear error, not a
#: RecursionError or a MemoryError. Real hierarchies have a handful of levels (ARX's Adult
#: hierarchies: 2-5; masked zip codes: 5).
MAX_HEIGHT = 64


def check_height(height: int, what: str, fix: str) -> None:
    """Raise :class:`~pdanon.InvalidInputError` when ``height`` exceeds :data:`MAX_HEIGHT`
    (``what`` names the hierarchy, ``fix`` says what to do).

    >>> check_height(3, "intervals", "")
    >>> check_height(65, "intervals [1, 1, ...]", "use fewer widths")
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: intervals [1, 1, ...] has 65 levels, more than the 64 a hierarchy may have (pdanon.hierarchy.MAX_HEIGHT); use fewer widths
    """
    if height > MAX_HEIGHT:
        raise InvalidInputError(
            f"{what} has {height:,} levels, more than the {MAX_HEIGHT} a hierarchy may have "
            f"(pdanon.hierarchy.MAX_HEIGHT); {fix}")


class _MissingNode:
    """The label of a node that holds only the missing value, while a tree is being built
    (``None`` cannot be used: factorizing treats it as missing)."""

    def __repr__(self) -> str:
        return "<missing>"


#: Stand-in label of the missing value's own node (becomes ``None`` in a bound hierarchy).
MISSING_NODE = _MissingNode()


# --------------------------------------------------------------------------- bound hierarchy


@dataclass
class Bound:
    """A hierarchy bound to the distinct values of one column (internal; used by
    :mod:`pdanon.partition.optimal` and :meth:`df.anon.generalize`).

    ``values`` are the column's distinct non-missing values. ``codes[j]`` is the node code
    (0..nodes-1) of every value at level ``j`` (``codes[0]`` is ``arange``), followed, when the
    column has missing values (``na``), by one more entry: the node of the missing value.
    ``labels[j][code]`` is the node's label (``None`` for the node that holds only the missing
    value); ``lo[j]`` / ``hi[j]`` the node's numeric range where the hierarchy defines one
    (``None`` otherwise; NaN for the node of the missing value alone), ``closed[j]`` which ends
    of those ranges belong to them (``None``: all closed); ``member_values`` and
    ``member_codes`` give, for set output, the non-missing values the hierarchy knows under
    each node.
    """

    values: pd.Index
    codes: list
    labels: list
    lo: list
    hi: list
    member_values: pd.Index
    member_codes: list  # per level: node code of every member value
    interval: bool = False
    na: bool = False
    closed: list | None = None
    #: per level: are the nodes' ranges and member sets the hierarchy's own (interval bands,
    #: the leaves of a table or tree) rather than read off the column's values? ``None``: no
    #: level is (a published cell then shows the values of the rows that publish it only)
    declared: list | None = None
    #: ``member_values`` are the hierarchy's own list of leaves (a table or tree), not the
    #: column's values: a node's share of them does not depend on the data
    enumerated: bool = False

    def is_declared(self, level: int) -> bool:
        """Does ``level`` publish the hierarchy's own ranges and sets (not the data's)?"""
        return bool(self.declared[level]) if self.declared is not None else False

    @property
    def height(self) -> int:
        return len(self.codes) - 1

    def nodes(self, level: int) -> int:
        return len(self.labels[level])

    def value_counts_per_node(self, level: int) -> np.ndarray:
        """How many of the column's distinct values (the missing value counts as one) lie
        under each node."""
        return np.bincount(self.codes[level], minlength=self.nodes(level))

    def step(self, level_from: int, level_to: int) -> np.ndarray:
        """Map from node codes at ``level_from`` to node codes at ``level_to`` (>= from)."""
        out = np.zeros(self.nodes(level_from), dtype=np.int64)
        out[self.codes[level_from]] = self.codes[level_to]
        return out

    def missing_node(self, level: int) -> int:
        """The node of the missing value at ``level`` (-1 when the column has none)."""
        return int(self.codes[level][-1]) if self.na else -1

    def blank_node(self, level: int) -> int:
        """The node at ``level`` published as a blank cell: the missing value's node when it
        holds nothing else (-1 otherwise, or when the column has no missing value); a node
        mixing it with present values publishes their cell "or missing"."""
        node = self.missing_node(level)
        return node if node >= 0 and self.only_missing(level)[node] else -1

    def holds_missing(self, level: int) -> np.ndarray:
        """Per node at ``level``: does it hold the missing value? A node of the missing value
        alone publishes a missing cell; one that also holds present values publishes their
        cell marked "or missing" (:meth:`pdanon.hierarchy.levels.ColumnLevels.cells`)."""
        out = np.zeros(self.nodes(level), dtype=bool)
        if self.na:
            out[self.codes[level][-1]] = True
        return out

    def only_missing(self, level: int) -> np.ndarray:
        """Per node at ``level``: does it hold the missing value and nothing else?"""
        present = np.bincount(self.codes[level][:len(self.values)], minlength=self.nodes(level))
        return self.holds_missing(level) & (present == 0)


# --------------------------------------------------------------------------- base class


class Hierarchy:
    """A generalization hierarchy for one column (build one with the functions of
    :mod:`pdanon.hierarchy`).

    ``height`` is the number of generalization steps: levels run from 0 (original values) to
    ``height`` (usually the single node ``"*"``). A column's missing values are a value of
    their own: their own node below the top, part of a single top node (see
    :mod:`pdanon.hierarchy.base`).

    Example
    -------
    >>> from pdanon.hierarchy import tree
    >>> h = tree({"Europe": ["France", "Spain"], "Asia": ["India"]})
    >>> h.height, h.map(pd.Series(["Spain", "India", None]), 1).tolist()
    (2, ['Europe', 'Asia', None])
    """

    height: int = 0
    #: short description used in reprs and error messages
    description = "hierarchy"

    # subclasses implement: _labels(values: pd.Index) -> list of label arrays, levels 1..height
    def _labels(self, values: pd.Index, name) -> list:  # pragma: no cover - abstract
        raise NotImplementedError

    def _ranges(self, values: pd.Index, labels: list, codes: list):
        """Per level the node ranges ``(lo, hi)`` the hierarchy defines itself, or None
        (``codes`` hold the non-missing values only; ``labels`` every node)."""
        return None

    def _closed(self, values: pd.Index, labels: list):
        """Per level the closedness of every node's range (an array of names), or None."""
        return None

    def _missing_labels(self, labels: list) -> list:
        """The label of the missing value at levels 1..height, given the labels of the
        other values' nodes (one array per level 0..height): its own node, except at a top
        level of one node, which it joins (builders without a top node, such as
        ``intervals(..., top=None)``, keep it apart there too)."""
        out = [MISSING_NODE] * (len(labels) - 1)
        if out and len(labels[-1]) == 1:
            out[-1] = labels[-1][0]
        return out

    # ------------------------------------------------------------------ public API
    def __repr__(self) -> str:
        height = "set by the data" if self.height is None else self.height
        return f"<Hierarchy {self.description}, height {height}>"

    def bind(self, values, *, name=None, na: bool = False) -> Bound:
        """Bind to the distinct ``values`` of a column and validate (internal building block
        of :meth:`map`, :meth:`validate` and the lattice search). ``na``: the column has
        missing values (also detected in ``values``)."""
        values, has_na = distinct_values(values)
        na = na or has_na
        label_levels = self._labels(values, name)
        check_height(len(label_levels), f"hierarchy {self.description}{for_column(name)}",
                     "use a hierarchy with fewer levels")
        codes = [np.arange(len(values), dtype=np.int64)]
        labels = [np.asarray(values, dtype=object)]
        for j, lab in enumerate(label_levels, start=1):
            c, uniq = _factorize_labels(lab)
            check_coarsening(values, codes[-1], labels[-1], c, uniq, j, name, self)
            codes.append(c)
            labels.append(uniq)
        lo, hi = self._bound_ranges(values, labels, codes)
        closed = self._closed(values, labels)
        if na:
            add_missing(codes, labels, self._missing_labels(labels), values, name, self)
            lo, hi, closed = _pad_missing(lo, hi, closed, labels)
        members = [c[:len(values)] for c in codes]  # the non-missing values under each node
        return Bound(values, codes, labels, lo, hi, values, members, interval=False, na=na,
                     closed=closed, declared=self._declared(len(labels)))

    def _declared(self, levels: int) -> list | None:
        """Per level: does the hierarchy itself fix the published ranges and sets (see
        :attr:`Bound.declared`)? By default no level does: they are read off the values."""
        return None

    def _bound_ranges(self, values, labels, codes):
        own = self._ranges(values, labels, codes)
        if own is not None:
            return own
        return member_ranges(values, codes, [len(lab) for lab in labels])

    def validate(self, values, *, name=None) -> None:
        """Raise :class:`~pdanon.InvalidInputError` unless every value of the column is in
        the hierarchy and each level coarsens the previous one (a missing value is never
        unknown).

        Example
        -------
        >>> from pdanon.hierarchy import tree
        >>> try:
        ...     tree({"A": ["x"]}).validate(pd.Series(["x", "y"], name="c"))
        ... except ValueError as exc:
        ...     print(str(exc)[:49])
        hierarchy for column 'c' has no entry for 1 value
        """
        self.bind(values, name=name_of(values, name))

    def map(self, values, level: int):
        """The labels of ``values`` at ``level`` (a Series with the same index when given a
        Series; level 0 returns the values unchanged; a missing value's own node is labelled
        ``None``).

        Example
        -------
        >>> from pdanon.hierarchy import masking
        >>> masking(char="X").map(pd.Series(["10001"]), 2).tolist()
        ['100XX']
        """
        series = values if isinstance(values, pd.Series) else pd.Series(values)
        level = self._check_level(level, series.name)
        if level == 0:
            return series.copy()
        codes, uniques = factorize_column(series)
        b = self.bind(uniques, name=series.name, na=bool((codes < 0).any()))
        if level > b.height:
            raise InvalidInputError(
                f"level {level} for column {series.name!r} is outside its hierarchy's levels "
                f"0..{b.height}")
        lab = b.labels[level][b.codes[level][np.where(codes < 0, len(b.values), codes)]]
        return pd.Series(lab, index=series.index, name=series.name, dtype=object)

    def levels_table(self, values=None) -> pd.DataFrame:
        """One row per value: the value and its label at levels 1..height (the hierarchy as
        ARX writes it; a missing value of ``values`` is the last row). Explicit hierarchies
        list their own values when ``values`` is omitted; rule-based ones (intervals,
        masking, dates) need the values.

        Example
        -------
        >>> from pdanon.hierarchy import intervals
        >>> intervals([10]).levels_table([23, 37])
           value level1 level2
        0     23  20-29      *
        1     37  30-39      *
        """
        b = self.bind(self._default_values(values))
        data = {"value": _with_missing_value(b)}
        for j in range(1, b.height + 1):
            data[f"level{j}"] = b.labels[j][b.codes[j]]
        return pd.DataFrame(data)

    def to_frame(self) -> pd.DataFrame:
        """:meth:`levels_table` of an explicit hierarchy (what
        ``pdanon.models.TCloseness(distance="hierarchical", hierarchies=...)`` reads)."""
        return self.levels_table()

    def codes_table(self, values=None) -> pd.DataFrame:
        """Integer node codes of every value at every level (level0 .. level{height}); two
        values share an ancestor at level ``j`` exactly when their ``level{j}`` codes are equal.
        This is the tree in array form, e.g. for hierarchical distances (lowest common ancestor
        = the first level where the codes agree).

        Example
        -------
        >>> from pdanon.hierarchy import tree
        >>> tree({"A": ["x", "y"], "B": ["z"]}).codes_table().to_numpy().tolist()
        [[0, 0, 0], [1, 0, 0], [2, 1, 0]]
        """
        b = self.bind(self._default_values(values))
        out = pd.DataFrame({f"level{j}": b.codes[j] for j in range(b.height + 1)})
        out.index = pd.Index(_with_missing_value(b), name="value")
        return out

    # ------------------------------------------------------------------ helpers
    def _default_values(self, values):
        if values is None:
            raise TypeError(f"{self!r} is built by a rule: pass the column's values")
        return values

    def _check_level(self, level, name) -> int:
        return check_level(level, self.height, name)


# --------------------------------------------------------------------------- helpers


def check_level(level, height, name) -> int:
    """``level`` as an int in 0..height (``height`` None: any level >= 0), or a clear error."""
    top = "" if height is None else f" in 0..{height}"
    if isinstance(level, bool) or not isinstance(level, numbers.Integral) or level < 0:
        raise InvalidInputError(
            f"level for column {name!r} must be an integer{top or ' >= 0'}, got {level!r}")
    if height is not None and level > height:
        raise InvalidInputError(
            f"level {level} for column {name!r} is outside its hierarchy's levels 0..{height}")
    return int(level)


def for_column(name) -> str:
    return "" if name is None else f" for column {name!r}"


def name_of(values, name):
    if name is not None:
        return name
    return getattr(values, "name", None)


def distinct_values(values) -> tuple[pd.Index, bool]:
    """The distinct non-missing values of a column (first-appearance order), and whether it
    holds a missing value."""
    if isinstance(values, pd.Index) and values.is_unique and not values.hasnans:
        return values, False
    if isinstance(values, (pd.Series, pd.Index)):
        arr = values
    elif isinstance(values, np.ndarray):
        arr = pd.Series(values)
    else:
        arr = pd.Series(list(values), dtype=object if not len(values) else None)
    na = arr.isna()
    has_na = bool(na.any())
    uniques = pd.unique(arr[~na] if has_na else arr)
    if isinstance(uniques, pd.Categorical):
        uniques = np.asarray(uniques)
    return pd.Index(uniques), has_na


def factorize_column(series: pd.Series):
    """(code per row, -1 for a missing cell; the distinct non-missing values)."""
    codes, uniques = pd.factorize(series, sort=False, use_na_sentinel=True)
    if isinstance(uniques, pd.Categorical):
        uniques = pd.Index(np.asarray(uniques))
    return np.asarray(codes, dtype=np.int64), pd.Index(uniques)


def _factorize_labels(labels) -> tuple[np.ndarray, np.ndarray]:
    codes, uniques = pd.factorize(np.asarray(labels, dtype=object), sort=False)
    return np.asarray(codes, dtype=np.int64), np.asarray(uniques, dtype=object)


def _with_missing_value(b: Bound) -> list:
    return list(b.values) + ([np.nan] if b.na else [])


def check_coarsening(values, prev_codes, prev_labels, codes, labels, level, name, h) -> None:
    """Every node at level-1 must have exactly one parent at ``level``."""
    n_prev = len(prev_labels)
    if n_prev == 0:
        return
    lo = np.full(n_prev, np.iinfo(np.int64).max)
    hi = np.full(n_prev, -1)
    np.minimum.at(lo, prev_codes, codes)
    np.maximum.at(hi, prev_codes, codes)
    bad = np.flatnonzero(lo != hi)
    if len(bad):
        node = bad[0]
        rows = np.flatnonzero(prev_codes == node)
        first = rows[0]
        other = rows[codes[rows] != codes[first]][0]
        parents = (labels[codes[first]], labels[codes[other]])
        shown = list(values) + [np.nan]  # the missing value, when present, comes last
        v1, v2 = shown[first], shown[other]
        raise InvalidInputError(
            f"hierarchy {h.description}{for_column(name)}: level {level} is not a coarsening "
            f"of level {level - 1}: {prev_labels[node]!r} at level {level - 1} generalizes to "
            f"both {parents[0]!r} and {parents[1]!r} (values {v1!r} and {v2!r}); every node "
            f"needs a single parent, so give nodes at the same level distinct labels")


def add_missing(codes: list, labels: list, na_labels: list, values, name, h) -> None:
    """Append the missing value to a bound tree, in place: one more entry per level of
    ``codes`` (its node: an existing node with its label, or a new one), new nodes appended
    to ``labels``; a :data:`MISSING_NODE` label is a new node labelled ``None``."""
    for j in range(len(codes)):
        label = MISSING_NODE if j == 0 else na_labels[j - 1]
        lab = labels[j]
        node = -1
        if label is not MISSING_NODE:
            node = int(pd.Index(lab, dtype=object, tupleize_cols=False).get_indexer(
                pd.Index([label], dtype=object, tupleize_cols=False))[0])
        if node < 0:
            node = len(lab)
            new = np.empty(1, dtype=object)
            new[0] = None if label is MISSING_NODE else label
            labels[j] = np.concatenate([np.asarray(lab, dtype=object), new])
        codes[j] = np.append(codes[j], node)
        if j:
            check_coarsening(values, codes[j - 1], labels[j - 1], codes[j], labels[j], j, name, h)


def _pad_missing(lo, hi, closed, labels):
    """Ranges for nodes added for the missing value: NaN (it has no range)."""
    def pad(arrs, fill):
        if arrs is None:
            return None
        out = []
        for a, lab in zip(arrs, labels):
            if a is None:
                out.append(None)
                continue
            a = np.asarray(a)
            extra = len(lab) - len(a)
            out.append(np.concatenate([a, np.full(extra, fill, dtype=a.dtype)]) if extra else a)
        return out
    return pad(lo, np.nan), pad(hi, np.nan), pad(closed, "both")


def numeric_or_none(values) -> np.ndarray | None:
    idx = pd.Index(values)
    if pd.api.types.is_numeric_dtype(idx.dtype) and not pd.api.types.is_bool_dtype(idx.dtype):
        return np.asarray(idx, dtype=np.float64)
    return None


def member_ranges(values: pd.Index, codes: list, nodes: list):
    """Per level and node the [min, max] of the (numeric) values under it, or None lists
    (NaN for a node without a value)."""
    num = numeric_or_none(values)
    if num is None:
        return [None] * len(codes), [None] * len(codes)
    lo, hi = [], []
    for c, m in zip(codes, nodes):
        lo_j = np.full(m, np.inf)
        hi_j = np.full(m, -np.inf)
        np.minimum.at(lo_j, c[:len(num)], num)
        np.maximum.at(hi_j, c[:len(num)], num)
        empty = lo_j > hi_j
        lo_j[empty] = np.nan
        hi_j[empty] = np.nan
        lo.append(lo_j)
        hi.append(hi_j)
    return lo, hi
