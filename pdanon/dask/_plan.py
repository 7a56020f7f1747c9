"""Mondrian on Dask, phases 1 and 2: the global dictionaries of the quasi-identifiers and the
codes every partition is turned into.

Each quasi-identifier becomes a :class:`QIColumn`: global codes in value order (``real``: the
sorted distinct values, or quantile bins when there are too many; ``ordered``: the categories
or sorted values; ``unordered``: values in order of first appearance, as pandas' ``factorize``
numbers them). A column holding missing cells (NaN, None, ``pd.NA``, NaT) gets one more code,
the last: missing is a value of its own that comes after every value, as in
:func:`pdanon.encode.missing_as_value`. Its measure for widths is one whole column span above
the largest value (``real``, ``ordered``), so a part mixing missing and present cells is up to
twice as wide as the column and cuts separate them first, as the single-machine Mondrian does.

Example
-------
>>> import pandas as pd
>>> table = value_table_capped(pd.Series([30.0, None, 20.0, 30.0], name="age"), None)
>>> q = qi_column("age", "real", table["v"].dtype, table, limit=4096)
>>> q.ncodes, q.has_na, q.weight.tolist(), q.scale
(3, True, [20.0, 30.0, 40.0], 10.0)
>>> q.encode(pd.Series([20.0, None, 30.0])).tolist()
[0, 2, 1]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError
from pdanon.encode import (factorize, is_real_dtype, missing, missing_bound, range_scale,
                           unknown_categories, value_counts)

__all__ = ["Plan", "QIColumn", "binned_column", "code_dtype", "encode_partition",
           "encoded_meta", "merge_tables", "order_keys", "qi_column", "value_table_capped"]


def code_dtype(ncodes: int):
    """The smallest signed integer type holding codes 0..ncodes-1 (and -1)."""
    for t in (np.int8, np.int16, np.int32):
        if ncodes < np.iinfo(t).max:
            return np.dtype(t)
    return np.dtype(np.int64)


@dataclass
class QIColumn:
    """One quasi-identifier in global codes; with ``has_na`` the last code is missing."""

    name: object
    kind: str
    ncodes: int
    counts: np.ndarray                # rows per code (the missing code included), whole table
    values: np.ndarray | None = None  # real (exact) / numeric ordered: value of every code
    categories: pd.Index | None = None  # ordered / unordered: value of every code
    edges: np.ndarray | None = None   # real (binned): inner bin edges
    numeric: bool = False             # ordered with numeric values (output without categories)
    integer: bool = False             # real/numeric ordered values are integers
    weight: np.ndarray | None = None  # range dims: measure of every code
    scale: float = 0.0                # the whole table's width (0: constant column)
    order_key: np.ndarray | None = None  # set dims, non-balanced split: code -> rank
    has_na: bool = False              # code ncodes - 1 stands for missing cells
    #: the partitions' Categorical dtype (known categories), when the column is one: the
    #: published dtype keeps its category order (Dask's meta may not know the categories)
    data_dtype: pd.CategoricalDtype | None = None
    #: ordered: the categories are a declared order (an ordered Categorical's), the domain
    declared: bool = False
    #: binned real, set by :func:`pdanon.dask._bounds.prepare`: the values held by k or more
    #: rows of the whole column with their counts, and the column's least and greatest values
    common: tuple | None = None
    span: tuple | None = None
    #: generalized output's categories when they are more than ``categories`` (dates widened
    #: to year boundaries: :func:`pdanon.dask._bounds.prepare`)
    out_categories: pd.Index | None = None

    @property
    def is_set(self) -> bool:
        return self.kind == "unordered"

    @property
    def binned(self) -> bool:
        return self.edges is not None

    @property
    def present_codes(self) -> int:
        """How many codes stand for values (the missing code, if any, is this one)."""
        return self.ncodes - int(self.has_na)

    def out_dtype(self):
        from pdanon.dtype import GeneralizationDtype

        if self.kind == "real" or self.numeric:
            return GeneralizationDtype(self.kind)
        if self.out_categories is not None:
            return GeneralizationDtype(self.kind, self.out_categories)
        return GeneralizationDtype(self.kind, self.categories)

    def encode(self, series: pd.Series) -> np.ndarray:
        """Global codes (:func:`code_dtype`) of one partition's cells; missing cells get the
        last code."""
        if self.kind == "real":
            x = series.to_numpy(dtype=np.float64, na_value=np.nan)
            if self.binned:
                codes = np.searchsorted(self.edges, x, side="right")
            else:
                codes = np.searchsorted(self.values.astype(np.float64), x)
            na = np.isnan(x)
        else:
            if isinstance(series.dtype, pd.CategoricalDtype):
                local = series.cat.codes.to_numpy(np.int64)
                pos = self.categories.get_indexer(series.cat.categories)
            else:
                local, uniq = factorize(series.array, where=f"column {self.name!r}")
                pos = self.categories.get_indexer(uniq)
            codes = pos[local] if len(pos) else local
            na = local < 0
        if na.any():
            if not self.has_na:
                raise InvalidInputError(
                    f"column {self.name!r} holds missing values that were not seen when its "
                    f"dictionary was built (the data changed between passes?)")
            codes = np.where(na, self.present_codes, codes)
        return np.asarray(codes).astype(code_dtype(self.ncodes))

    def values_of(self, codes: np.ndarray, raw: np.ndarray | None):
        """The plain values of rows given their codes (raw values for binned columns); NaN
        for missing cells."""
        if self.kind == "real" and self.binned:
            return raw
        values = self.values
        if self.has_na:
            values = np.append(values.astype(np.float64), np.nan)
        return values[codes]


@dataclass
class Plan:
    """Everything the tasks need: columns, model, cut tree and options."""

    qis: list[QIColumn]
    sensitive: dict                   # name -> GlobalColumn
    model: object
    needs_context: bool
    unordered_split: str
    keep: list                        # output columns (identifiers dropped)
    attrs: dict = field(default_factory=dict)
    tree: object = None               # pdanon.dask._cuts.Tree
    part_of_node: np.ndarray | None = None
    tree_routing: dict | None = None
    parts: int = 1
    #: generalized ranges: widen bounds held by fewer than this many rows of the whole
    #: column (:mod:`pdanon.recode.bounds`); 0 keeps exact bounds
    bound_k: int = 0

    @property
    def code_columns(self) -> list[str]:
        return [f"c{j}" for j in range(len(self.qis))]

    @property
    def raw_columns(self) -> list[str]:
        return [f"v{j}" for j, q in enumerate(self.qis) if q.binned]

    @property
    def sensitive_columns(self) -> list[str]:
        return [f"s{i}" for i in range(len(self.sensitive))]


# ============================================================================ dictionaries


def value_table_capped(series: pd.Series, limit: int | None) -> pd.DataFrame:
    """Distinct values (order of appearance, missing included) and counts of one partition;
    with ``limit``, one row flagged ``over`` instead when there are more distinct values
    (missing not counted)."""
    uniq, counts = value_counts(series.array, where=f"column {series.name!r}")
    if limit is not None and len(uniq) - int(missing(uniq).any()) > limit:
        return _over_row(series)
    return pd.DataFrame({"v": uniq, "n": counts,
                         "over": np.zeros(len(uniq), dtype=bool)})


def _over_row(series: pd.Series) -> pd.DataFrame:
    """One row flagging "too many distinct values"; ``n`` counts the missing cells."""
    v = series.array[:1]
    return pd.DataFrame({"v": v, "n": np.full(len(v), int(missing(series).sum()), np.int64),
                         "over": np.ones(len(v), bool)})


def merge_tables(table: pd.DataFrame):
    """Per-partition value tables (partition order) -> (distinct values in order of first
    appearance, counts)."""
    return value_counts(table["v"].array, weights=table["n"].to_numpy(np.float64))


def _plain_values(uniq):
    """Distinct values as a plain array (a Categorical's values in its categories' dtype)."""
    if isinstance(getattr(uniq, "dtype", None), pd.CategoricalDtype):
        return pd.Series(uniq).astype(uniq.categories.dtype).array
    return pd.Series(uniq).array


def _missing_rows(table: pd.DataFrame) -> int:
    """Missing cells counted in a column's value tables (``over`` rows count them in ``n``)."""
    over = table["over"].to_numpy(dtype=bool)
    na = missing(table["v"]) & ~over
    n = table["n"].to_numpy(np.int64)
    return int(n[over].sum() + n[na].sum())


def qi_column(name, kind: str, dtype, table: pd.DataFrame, *, limit: int) -> QIColumn | tuple:
    """Global codes of one quasi-identifier from its merged value table. Returns
    ``("bins", has_na)`` for a real column with more than ``limit`` distinct values."""
    from pdanon.dtype import GeneralizationDtype

    if isinstance(dtype, GeneralizationDtype):
        raise KindError(
            f"column {name!r} is already generalized; on Dask pdanon anonymizes plain values: "
            f"start from the original column (pandas frames can be anonymized again)")
    if kind == "real" and not is_real_dtype(dtype):
        raise KindError(
            f"column {name!r} has kind 'real' but holds {dtype} values; convert it to numbers "
            f"(dd.to_numeric(ddf[{name!r}])) or declare it 'ordered'/'unordered'")
    if table["over"].any():  # only real columns are capped
        return ("bins", _missing_rows(table) > 0)
    uniq, counts = merge_tables(table)
    na = missing(uniq)
    n_na = int(counts[na].sum())
    uniq, counts = uniq[~na], counts[~na]
    tail = np.array([n_na] if n_na else [], dtype=np.int64)  # rows of the missing code
    if kind == "real":
        if len(uniq) > limit:
            return ("bins", n_na > 0)
        raw = np.asarray(pd.Series(uniq).to_numpy())
        integer = pd.api.types.is_integer_dtype(dtype)
        if not integer:
            raw = raw.astype(np.float64)
        order = np.argsort(raw.astype(np.float64), kind="stable")
        values, counts = raw[order], counts[order]
        w = values.astype(np.float64)
        scale = float(w.max() - w.min()) if len(w) else 0.0
        if n_na:
            w = np.append(w, missing_bound(float(w.max()) if len(w) else 0.0, scale))
            scale = range_scale(scale, len(values), True)
        return QIColumn(name, kind, len(w), np.concatenate([counts, tail]), values=values,
                        integer=integer, weight=w, scale=scale, has_na=bool(n_na))
    if kind == "ordered":
        return _ordered_column(name, dtype, table["v"].dtype, uniq, counts, tail)
    cats = pd.Index(_plain_values(uniq), tupleize_cols=False)
    full = np.concatenate([counts, tail])
    distinct = int(np.count_nonzero(full))  # the missing value is one value
    return QIColumn(name, "unordered", len(full), full, values=np.arange(len(cats)),
                    categories=cats, scale=float(distinct - 1), has_na=bool(n_na))


def _ordered_column(name, dtype, data_dtype, uniq, counts, tail) -> QIColumn:
    if isinstance(data_dtype, pd.CategoricalDtype) and not unknown_categories(data_dtype):
        dtype = data_dtype  # the partitions' own dtype (Dask's meta may not know the
        # categories of a Categorical read from Parquet)
    declared = isinstance(dtype, pd.CategoricalDtype) and dtype.ordered and not \
        unknown_categories(dtype)
    if declared:
        cats = pd.Index(dtype.categories)
    else:
        cats = pd.Index(factorize(_plain_values(uniq), where=f"column {name!r}", sort=True)[1])
    pos = cats.get_indexer(pd.Index(_plain_values(uniq)))
    full = np.zeros(len(cats), dtype=np.int64)
    full[pos] = counts
    full = np.concatenate([full, tail])
    numeric = is_real_dtype(cats.dtype)
    rank = (np.cumsum(full) - full).astype(np.float64)
    present = full[:len(cats)] > 0
    scale = float(rank[:len(cats)][present].max() - rank[:len(cats)][present].min()) \
        if present.any() else 0.0
    if len(tail):
        top = float(rank[:len(cats)][present].max()) if present.any() else 0.0
        rank[len(cats)] = missing_bound(top, scale)
        scale = range_scale(scale, int(present.sum()), True)
    values = np.asarray(cats) if numeric else np.arange(len(cats))
    return QIColumn(name, "ordered", len(full), full, values=values, categories=cats,
                    numeric=numeric, integer=numeric and pd.api.types.is_integer_dtype(
                        cats.dtype), weight=rank, scale=scale, has_na=bool(len(tail)),
                    declared=bool(declared))


def binned_column(name, dtype, quantiles: np.ndarray, has_na: bool = False) -> QIColumn:
    """A real column cut on quantile bins (the quantiles of its present values); missing
    cells get a code of their own after the last bin, never a bin."""
    edges = np.unique(np.asarray(quantiles, dtype=np.float64))
    edges = edges[np.isfinite(edges)]
    inner = edges[1:-1] if len(edges) > 2 else edges[:0]
    lows = np.concatenate([edges[:1], inner])
    highs = np.concatenate([inner, edges[-1:]])
    weight = (lows + highs) / 2
    scale = float(edges[-1] - edges[0]) if len(edges) else 0.0
    if has_na:
        weight = np.append(weight, missing_bound(float(edges[-1]) if len(edges) else 0.0,
                                                  scale))
        scale = range_scale(scale, len(edges), True)
    return QIColumn(name, "real", len(weight), np.zeros(len(weight), np.int64), edges=inner,
                    integer=pd.api.types.is_integer_dtype(dtype), weight=weight,
                    scale=scale, has_na=has_na)


def order_keys(qis: list[QIColumn], how: str, joint=None) -> None:
    """Global category order of unordered columns for the non-balanced splits (the missing
    value is one category, last in order of appearance)."""
    if how == "balanced":
        return
    for j, q in enumerate(qis):
        if not q.is_set:
            continue
        m = q.ncodes
        if how == "appearance":
            q.order_key = np.arange(m)
            continue
        if how == "frequency":
            order = np.lexsort((np.arange(m), -q.counts))
        else:  # sensitive: share of the most common value of the first sensitive column
            both = joint[j]  # (codes, sensitive values)
            top = int(np.argmax(both.sum(axis=0)))
            share = both[:, top] / np.maximum(q.counts, 1)
            order = np.lexsort((np.arange(m), share))
        rank = np.empty(m, dtype=np.int64)
        rank[order] = np.arange(m)
        q.order_key = rank


# ============================================================================ encoding pass


def _raw_dtype(q: QIColumn):
    """dtype of a binned column's raw values: int64 for integers without missing cells."""
    return np.dtype(np.int64) if q.integer and not q.has_na else np.dtype(np.float64)


def encode_partition(pdf: pd.DataFrame, plan: Plan) -> pd.DataFrame:
    """One partition as codes ``c<j>`` (quasi-identifiers), raw values ``v<j>`` (binned
    columns) and ``s<i>`` (sensitive columns)."""
    data = {}
    for j, q in enumerate(plan.qis):
        s = pdf[q.name]
        data[f"c{j}"] = q.encode(s)
        if q.binned:
            t = _raw_dtype(q)
            data[f"v{j}"] = s.to_numpy(dtype=t) if t == np.int64 else s.to_numpy(
                dtype=t, na_value=np.nan)
    for i, (c, g) in enumerate(plan.sensitive.items()):
        data[f"s{i}"] = g.codes(pdf[c]).astype(code_dtype(g.column.m))
    return pd.DataFrame(data, index=pd.RangeIndex(len(pdf)))


def encoded_meta(plan: Plan, index=None) -> pd.DataFrame:
    """Meta (empty frame) of :func:`encode_partition`'s output."""
    data = {}
    for j, q in enumerate(plan.qis):
        data[f"c{j}"] = np.zeros(0, code_dtype(q.ncodes))
        if q.binned:
            data[f"v{j}"] = np.zeros(0, _raw_dtype(q))
    for i, g in enumerate(plan.sensitive.values()):
        data[f"s{i}"] = np.zeros(0, code_dtype(g.column.m))
    return pd.DataFrame(data, index=pd.RangeIndex(0))
