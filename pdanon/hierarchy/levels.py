"""A column bound to its hierarchy (:class:`ColumnLevels`): the node of every row at every
level and the cells a level publishes; :func:`generalize_frame` applies chosen levels (the
engine of ``df.anon.generalize``).

Published cells stay truthful: a node's cell is the range or set of what lies under it (an
interval band with the ends its label says). A node of the missing value alone publishes a
missing cell; a node that holds the missing value and present values (the top ``*`` of a
column with blanks) publishes the cell of its present values marked as covering missing
(``[30, 40) or missing``, :mod:`pdanon.dtype.ormissing`) in every row. So a missing cell stays
missing below the top, and at the top every row publishes the top cell, "or missing".

>>> import pandas as pd
>>> from pdanon.hierarchy import intervals
>>> cl = column_levels(intervals([5]), pd.Series([31.5, None, 35.0], name="x"), "real")
>>> cl.cells(1).tolist(), cl.cells(2).tolist()
([[30, 35), nan, [35, 40)], [[30, 39) or missing, [30, 39) or missing, [30, 39) or missing])
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError
from pdanon.hierarchy.base import Bound, Hierarchy, check_level
from pdanon.hierarchy.table import as_hierarchy

__all__ = ["ColumnLevels", "column_levels", "column_levels_encoded", "generalize_frame"]


@dataclass
class ColumnLevels:
    """A column bound to its hierarchy: the node of every row at every level, and the cells
    a level publishes (internal; shared by ``df.anon.generalize`` and the lattice search).

    ``rows`` maps each row to its value in ``bound.values`` (a missing cell: to
    ``len(bound.values)``, the missing value's entry of ``bound.codes``); ``positions``
    (ordered columns with categories) maps each member value of the hierarchy to its
    position in ``categories`` (-1 when absent).
    """

    name: Any
    kind: str
    bound: Bound
    rows: np.ndarray
    categories: pd.Index | None = None
    numeric: bool = True
    integer: bool = False
    #: the values come from a public population too (k-map, δ-presence): a cell shows every
    #: value under its node, as the population's cells do
    public_values: bool = False
    #: {level: (lo, hi)}: per node the positions in ``categories`` of the range the
    #: hierarchy itself declares (a ``dates()`` month: its first and last day)
    unit_positions: dict | None = None

    @property
    def height(self) -> int:
        return self.bound.height

    @property
    def missing_rows(self) -> np.ndarray:
        """Boolean per row: the original cell is missing."""
        return self.rows == len(self.bound.values)

    def node_codes(self, level: int) -> np.ndarray:
        """Node code of every row at ``level``."""
        return self.bound.codes[level][self.rows]

    def node_ranges(self, level: int):
        """``(lo, hi)`` per node at ``level`` for real/ordered output (positions in
        ``categories`` for ordered columns with categories; NaN / an empty range for the
        missing value's own node)."""
        b = self.bound
        if self.unit_positions is not None and level in self.unit_positions:
            return self.unit_positions[level]
        if self.categories is not None:
            pos = self.categories.get_indexer(b.member_values)
            codes = b.member_codes[level]
            ok = (pos >= 0) & (codes >= 0)
            lo = np.full(b.nodes(level), np.iinfo(np.int64).max, dtype=np.int64)
            hi = np.full(b.nodes(level), -1, dtype=np.int64)
            np.minimum.at(lo, codes[ok], pos[ok])
            np.maximum.at(hi, codes[ok], pos[ok])
            return lo, hi
        return b.lo[level], b.hi[level]

    def plain_nodes(self, level: int) -> np.ndarray:
        """Per node: is the published cell a plain value (a node holding one value), or a
        missing value published as missing?"""
        b = self.bound
        if level == 0:
            return np.ones(b.nodes(0), dtype=bool)
        if self.kind == "unordered":
            codes = b.member_codes[level]
            plain = np.bincount(codes[codes >= 0], minlength=b.nodes(level)) == 1
        else:
            lo, hi = self.node_ranges(level)
            plain = np.asarray(lo) == np.asarray(hi)
        has_na = b.holds_missing(level)
        return np.where(has_na, b.only_missing(level), plain)

    def _shown_values(self, mask: np.ndarray) -> np.ndarray:
        """Per distinct value: does a row that is not masked (suppressed, or published
        missing) hold it?"""
        shown = np.zeros(len(self.bound.values) + 1, dtype=bool)
        shown[self.rows[~mask]] = True
        return shown[:len(self.bound.values)]

    def _shown_ranges(self, level: int, shown: np.ndarray):
        """:meth:`node_ranges` over the ``shown`` values only."""
        b = self.bound
        codes = b.codes[level][:len(b.values)]
        m = b.nodes(level)
        if self.categories is not None:
            pos = self.categories.get_indexer(b.values)
            ok = shown & (pos >= 0)
            lo = np.full(m, np.iinfo(np.int64).max, dtype=np.int64)
            hi = np.full(m, -1, dtype=np.int64)
            np.minimum.at(lo, codes[ok], pos[ok])
            np.maximum.at(hi, codes[ok], pos[ok])
            return lo, hi
        num = np.asarray(b.values, dtype=np.float64)
        lo = np.full(m, np.inf)
        hi = np.full(m, -np.inf)
        np.minimum.at(lo, codes[shown], num[shown])
        np.maximum.at(hi, codes[shown], num[shown])
        empty = lo > hi
        lo[empty], hi[empty] = np.nan, np.nan
        return lo, hi

    def cells(self, level: int, *, mask=None, labels: bool = False):
        """The published column at ``level``: a :class:`~pdanon.dtype.GeneralizationArray`
        (ranges for real/ordered, sets for unordered), or hierarchy labels (an object array)
        when ``labels`` is true. ``mask`` marks suppressed rows (missing cells); a node that
        holds the missing value publishes missing cells (labels: its label, ``None`` for the
        missing value's own node)."""
        b = self.bound
        nodes = self.node_codes(level)
        n = len(nodes)
        mask = np.zeros(n, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
        if labels:
            out = np.asarray(b.labels[level], dtype=object)[nodes]
            out = out.copy()
            out[mask] = None
            return out
        return self._ranges(level, nodes, mask)

    def label_cells(self, level: int, *, mask=None) -> pd.Categorical:
        """The hierarchy's labels at ``level`` as a Categorical whose categories are the
        labels of the level's nodes in the hierarchy's order (ordered unless the column is
        unordered: ``20-29`` < ``30-39``, ``2024Q3`` < ``2024Q4``), so a release of labels
        still knows its order; suppressed rows (``mask``) and the missing value's node are
        missing. A column published this way has kind :func:`label_kind`."""
        text = self.cells(level, mask=mask, labels=True)  # drawn from the level's labels
        order = [v for v in dict.fromkeys(np.asarray(self.bound.labels[level], dtype=object))
                 if not pd.isna(v)]
        return pd.Categorical(text, categories=pd.Index(order, tupleize_cols=False),
                              ordered=self.kind != "unordered")

    def label_ranges(self, level: int, *, mask=None) -> dict | None:
        """``{label: [lo, hi, closed]}`` of the labels shown at a declared level of a real
        column (the hierarchy's own bands, e.g. ``"20-39": [20, 40, "left"]``): the ranges
        ``labels=False`` would publish, so utility is measured on the bands the labels
        stand for. Only labels some published row shows (``mask``: suppressed rows);
        None for other levels and kinds (their cells come from the data:
        :func:`pdanon.metrics.labels.as_ranges` rebuilds them from the original)."""
        if self.kind != "real" or not self.bound.is_declared(level):
            return None
        nodes = self.node_codes(level)
        mask = np.zeros(len(nodes), dtype=bool) if mask is None else np.asarray(mask, bool)
        text = self.cells(level, mask=mask, labels=True)
        ranges = self._ranges(level, nodes, mask)
        shown = np.flatnonzero(pd.notna(text) & ~np.asarray(ranges.isna(), dtype=bool))
        _, first = np.unique(pd.factorize(text[shown])[0], return_index=True)
        out: dict = {}
        for i in shown[first].tolist():  # one row per label shown
            cell = ranges[i]
            lo, hi = (cell.min, cell.max) if hasattr(cell, "min") else (cell, cell)
            out[text[i]] = [float(lo), float(hi), getattr(cell, "closed", "both")]
        return out

    def _ranges(self, level: int, nodes, mask):
        out = self._node_cells(level, nodes, mask | self.bound.only_missing(level)[nodes])
        mixed = (self.bound.holds_missing(level) & ~self.bound.only_missing(level))[nodes]
        return out.with_or_missing(mixed) if mixed.any() else out

    def _node_cells(self, level: int, nodes, mask):
        b = self.bound
        from pdanon.dtype import GeneralizationArray

        # a range or set read off the values shows only the values of rows it is published
        # for: never one held only by suppressed rows (docs/security.md)
        shown = None if level == 0 or b.is_declared(level) or self.public_values else \
            self._shown_values(mask)
        if self.kind == "unordered":
            universe = b.member_values
            codes = b.member_codes[level]
            if universe.has_duplicates or shown is not None:
                universe, codes = b.values, b.codes[level][:len(b.values)]
            if shown is not None:
                codes = np.where(shown, codes, -1)
            per_value = GeneralizationArray.from_groups(
                np.arange(len(universe)), codes, kind="unordered", categories=universe)
            rep = np.full(b.nodes(level), -1, dtype=np.int64)
            present = np.flatnonzero(codes >= 0)
            rep[codes[present[::-1]]] = present[::-1]  # first member of every node
            take = np.where(mask, -1, rep[nodes])
            return per_value.take(take, allow_fill=True)
        lo_n, hi_n = self.node_ranges(level) if shown is None else self._shown_ranges(
            level, shown)
        lo = np.asarray(lo_n)[nodes]
        hi = np.asarray(hi_n)[nodes]
        if self.categories is not None:
            return GeneralizationArray.from_bounds(np.where(mask, -1, lo), np.where(mask, -1, hi),
                                                   kind=self.kind, categories=self.categories,
                                                   mask=mask)
        lo = lo.astype(np.float64)
        hi = hi.astype(np.float64)
        integer = self.integer and bool(np.all(np.mod(lo[~mask], 1) == 0)) and bool(
            np.all(np.mod(hi[~mask], 1) == 0))
        closed = "both"
        if b.closed is not None and b.closed[level] is not None:
            closed = np.where(lo == hi, "both", np.asarray(b.closed[level], dtype=object)[nodes])
        return GeneralizationArray.from_bounds(lo, hi, kind=self.kind, mask=mask,
                                               integer=integer, closed=closed)


def column_levels(hierarchy, series: pd.Series, kind: str) -> ColumnLevels:
    """Bind ``hierarchy`` to a column (factorized once; only distinct values are mapped).
    Missing cells map to the missing value's node.

    Example
    -------
    >>> from pdanon.hierarchy import intervals
    >>> cl = column_levels(intervals([10]), pd.Series([23, 37, 25], name="age"), "real")
    >>> cl.node_codes(1).tolist(), cl.cells(1).tolist()
    ([0, 1, 0], [[20, 29], [30, 39], [20, 29]])
    """
    from pdanon.encode import encode_column

    h = as_hierarchy(hierarchy, name=series.name)
    if isinstance(series.dtype, _generalization_dtype()):
        raise KindError(
            f"column {series.name!r} is already generalized; apply hierarchies to the original "
            f"values")
    na = series.isna().to_numpy()
    integer = pd.api.types.is_integer_dtype(series.dtype) or (
        na.any() and _integral(series[~na]))
    if not na.any():
        return column_levels_encoded(h, encode_column(series, kind), integer=bool(integer))
    # the cells that are not missing are encoded; a missing cell gets the code one past the
    # last category, as the encoder gives it
    enc = encode_column(series[~na], kind)
    codes = np.full(len(series), len(enc.categories), dtype=np.int64)
    codes[~na] = enc.codes
    enc = replace(enc, codes=codes)
    return column_levels_encoded(h, enc, integer=bool(integer), na=na)


def _integral(values: pd.Series) -> bool:
    """Integers stored as floats (an integer column with missing cells)?"""
    if not pd.api.types.is_float_dtype(values.dtype) or not len(values):
        return False
    x = values.to_numpy(dtype=np.float64)
    return bool(np.all(np.mod(x, 1) == 0))


def column_levels_encoded(hierarchy: Hierarchy, enc, *, integer: bool = False,
                          na=None) -> ColumnLevels:
    """:func:`column_levels` from an :class:`~pdanon.encode.EncodedColumn`. Cells marked
    missing (``na``, else the column's own ``enc.na`` mask, if it has one) map to the
    missing value's node, whatever their code."""
    codes = np.asarray(enc.codes, dtype=np.int64)
    cats = enc.categories
    if na is None:
        na = getattr(enc, "na", None)
    na = None if na is None else np.asarray(na, dtype=bool)
    if na is not None and not na.any():
        na = None
    present = codes if na is None else codes[~na]
    used = np.flatnonzero(np.bincount(present, minlength=len(cats))[:len(cats)] > 0)
    remap = np.full(len(cats) + 1, -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    values = cats[used]
    if isinstance(values, pd.CategoricalIndex):
        values = pd.Index(np.asarray(values))
    if enc.kind == "real" and integer:
        as_int = np.asarray(values, dtype=np.float64)
        if np.all(np.mod(as_int, 1) == 0):
            values = pd.Index(as_int.astype(np.int64))
    bound = hierarchy.bind(values, name=enc.name, na=na is not None)
    rows = remap[np.clip(codes, 0, len(cats))]
    if na is not None:
        rows[na] = len(values)  # the missing value's entry of bound.codes
    categories = None
    numeric = enc.kind == "real" or bool(enc.numeric)
    if enc.kind == "ordered" and not numeric:
        categories = pd.Index(np.asarray(cats)) if isinstance(cats, pd.CategoricalIndex) else cats
    if enc.kind in ("real", "ordered") and numeric and bound.lo[0] is None:
        raise KindError(f"column {enc.name!r}: numeric column but non-numeric hierarchy values")
    units = None
    if categories is not None and hasattr(hierarchy, "unit_bounds"):
        categories, units = with_units(categories, hierarchy.unit_bounds(bound.values,
                                                                          bound.labels))
    return ColumnLevels(enc.name, enc.kind, bound, rows, categories, numeric, bool(integer),
                        unit_positions=units)


def with_units(categories: pd.Index, bounds: dict):
    """The categories with every unit's first and last day added (they bound the published
    ranges), and per level the positions of each node's bounds (-1 for a node without)."""
    extra = [v for first, last in bounds.values() for v in (*first, *last) if v is not None]
    if isinstance(categories, pd.DatetimeIndex):
        added = pd.DatetimeIndex(extra) if extra else categories[:0]
        if len(added):
            added = (added.tz_convert(categories.tz) if added.tz is not None else added)
            added = added.as_unit(categories.unit)
        merged = categories.union(added).unique().sort_values()
    else:
        merged = pd.Index(sorted(set(categories.tolist()) | set(extra)), dtype=object)
    units = {}
    for level, (first, last) in bounds.items():
        lo = np.array([merged.get_loc(v) if v is not None else -1 for v in first],
                      dtype=np.int64)
        hi = np.array([merged.get_loc(v) if v is not None else -1 for v in last],
                      dtype=np.int64)
        units[level] = (lo, hi)
    return merged, units


def label_kind(kind: str) -> str:
    """The kind of a column published as hierarchy labels: ``ordered`` (the labels keep the
    hierarchy's order) for a real or ordered column, ``unordered`` for an unordered one."""
    return "unordered" if kind == "unordered" else "ordered"


def labelled_kinds(out: pd.DataFrame, roles) -> dict:
    """``{column: kind}`` (:func:`label_kind`) of the quasi-identifiers of ``out``, a release
    made with ``labels=True``, that hold hierarchy labels (a Categorical): the kinds the
    release's roles record for them."""
    kinds = {}
    for c, kind in roles.quasi_identifiers.items():
        if c in out.columns and isinstance(out[c].dtype, pd.CategoricalDtype):
            kinds[c] = label_kind(kind)
    return kinds


def _generalization_dtype():
    from pdanon.dtype import GeneralizationDtype

    return GeneralizationDtype


def generalize_frame(df: pd.DataFrame, levels: Mapping, hierarchies: Mapping, kinds: Mapping,
                     *, labels: bool = False) -> tuple[pd.DataFrame, dict]:
    """Apply ``levels`` ({column: level}) with ``hierarchies`` ({column: hierarchy}); the
    engine of :meth:`df.anon.generalize`. Returns the new frame and an info dict.

    Every Categorical or generalized column of the new frame lists only the categories its
    cells need (:func:`pdanon.recode.published_categories`). Missing cells stay missing.

    Example
    -------
    >>> from pdanon.hierarchy import intervals, masking
    >>> df = pd.DataFrame({"zip": ["10001", "10002"], "age": [23, 37]})
    >>> out, info = generalize_frame(df, {"zip": 2, "age": 1},
    ...                              {"zip": masking(), "age": intervals([10])},
    ...                              {"zip": "unordered", "age": "real"}, labels=True)
    >>> out.to_dict("list")
    {'zip': ['100**', '100**'], 'age': ['20-29', '30-39']}
    """
    from pdanon._errors import UnknownColumnError

    if not isinstance(levels, Mapping) or not levels:
        raise InvalidInputError("levels must be a non-empty dict {column: level}")
    hierarchies = dict(hierarchies or {})
    unknown = [c for c in list(levels) + list(hierarchies) if c not in df.columns]
    if unknown:
        raise UnknownColumnError(
            f"unknown column(s) {sorted(set(map(str, unknown)))} in levels/hierarchies; the frame "
            f"has columns {list(df.columns)}")
    no_h = [c for c in levels if c not in hierarchies]
    if no_h:
        raise InvalidInputError(
            f"no hierarchy for column(s) {no_h}: pass hierarchies={{column: hierarchy}} "
            f"(e.g. pdanon.hierarchy.intervals([10]) or masking())")
    out = df.copy()
    changed = 0
    applied = {}
    label_ranges: dict = {}
    for col, level in levels.items():
        h = as_hierarchy(hierarchies[col], name=col)
        cl = column_levels(h, df[col], kinds[col])
        level = check_level(level, cl.height, col)
        applied[col] = level
        if level == 0:
            continue
        if labels:
            new = cl.label_cells(level)
            out[col] = pd.Series(new, index=df.index, name=col)
            bands = cl.label_ranges(level)
            if bands:
                label_ranges[col] = bands
            changed += int((~cl.missing_rows | pd.notna(np.asarray(new, dtype=object))).sum())
            continue
        cells = cl.cells(level)
        out[col] = pd.Series(cells, index=df.index, name=col)
        plain = cl.plain_nodes(level)[cl.node_codes(level)]
        # a missing cell that stays missing is unchanged; one now "or missing" changed
        changed += int((~plain & (~cl.missing_rows | ~np.asarray(cells.isna()))).sum())
    from pdanon.recode import publish_frame

    publish_frame(out)  # no dtype lists a category that no cell needs
    info = {"levels": applied, "labels": bool(labels), "changed_cells": changed,
            "rows": len(df)}
    if label_ranges:
        info["label_ranges"] = label_ranges
    return out, info
