"""Mondrian on Dask: top cuts on the whole data from counts, then local Mondrian per part.

Phases (what runs where is summarized in docs/dask.md):

1. **Dictionaries** (one pass). Every partition reports the distinct values of each
   quasi-identifier and sensitive column with their counts; the client merges them into global
   codes (``real``: sorted distinct values, or 1,024 quantile bins when a column has more than
   :data:`EXACT_CODES_LIMIT` distinct values; ``ordered``: the categories / sorted values;
   ``unordered``: values in order of first appearance, as pandas' ``factorize`` numbers them).
2. **Codes** (one pass, persisted). Each partition becomes small integer codes (1-4 bytes
   per quasi-identifier and sensitive column per row, no index), kept in worker memory while
   the cuts are chosen.
3. **Top cuts** (one or two passes per level over the codes). Each partition routes its rows
   through the cut tree and counts rows per (open part, column, code); the client sums these
   small histograms and applies the rule of :mod:`pdanon.partition.mondrian` on them - widest
   normalized column first (widths normalized by the whole table), median cut for
   real/ordered columns, balanced (or ordered) split of unordered categories, a split allowed
   only when both halves meet the model. For l-diversity and t-closeness a second pass counts
   rows per (part, candidate column, side, sensitive value), and the model is evaluated on
   those counts with the same functions pandas uses. Parts with more than
   ``max_rows_per_part`` rows are split until none is left (or none can be split).
4. **Local Mondrian** (one task per part). Each input partition routes its rows by the cut
   bounds and sends every part only the rows' codes and positions; a part's task runs the
   single-machine :func:`~pdanon.partition.mondrian.mondrian_partition` on them, builds the
   generalized cells (:meth:`GeneralizationArray.from_groups`, global categories, so every part
   has the same dtype) and verifies its classes. With ``order="input"`` each row's class id
   (4 bytes) travels back to the input partition it came from, with one small table of the
   part's class cells; that partition inserts the cells at its rows: the output has the
   input's partitions, divisions, index and row order, and the sensitive / insensitive columns
   never move. With ``order="part"`` each part is one output partition (cheaper; index labels
   kept, row order grouped by part).
5. **Verification** on the output (or the written Parquet files): class sizes by a Dask
   group-by on canonical class keys (k), per-class l / t from (class, sensitive value) counts.

Example
-------
>>> import pandas as pd, dask.dataframe as dd, pdanon, pdanon.dask
>>> df = pd.DataFrame({"age": [21, 22, 23, 24, 50, 51, 52, 53]})
>>> ddf = dd.from_pandas(df, npartitions=2)
>>> out = ddf.anon.k_anonymize(2, quasi_identifiers=["age"], max_rows_per_part=4)
>>> out.compute()["age"].astype(str).tolist()
['[21, 22]', '[21, 22]', '[23, 24]', '[23, 24]', '[50, 51]', '[50, 51]', '[52, 53]', '[52, 53]']
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError, VerificationError
from pdanon.dask._metrics import GlobalColumn, global_sensitive_column
from pdanon.dask._models import (check_feasible, groups_ok_from_counts, k_of, needs_context,
                                 verify_output)
from pdanon.encode import factorize, is_real_dtype, missing, unknown_categories, value_counts
from pdanon import distributions as _dist

#: Default largest part (rows) handed to one task for the local Mondrian.
DEFAULT_MAX_ROWS_PER_PART = 500_000
#: ``real`` columns with more distinct values are cut on quantile bins in the top phase.
EXACT_CODES_LIMIT = 4096
#: Number of quantile bins of such columns.
BINS = 1024
ORDERS = ("input", "part")


# ============================================================================ the plan


def code_dtype(ncodes: int):
    """The smallest signed integer type holding codes 0..ncodes-1 (and -1)."""
    for t in (np.int8, np.int16, np.int32):
        if ncodes < np.iinfo(t).max:
            return np.dtype(t)
    return np.dtype(np.int64)


@dataclass
class QIColumn:
    """One quasi-identifier in global codes."""

    name: object
    kind: str
    ncodes: int
    counts: np.ndarray                # rows per code, whole table
    values: np.ndarray | None = None  # real (exact) / numeric ordered: value of every code
    categories: pd.Index | None = None  # ordered / unordered: value of every code
    edges: np.ndarray | None = None   # real (binned): inner bin edges
    numeric: bool = False             # ordered with numeric values (output without categories)
    integer: bool = False             # real/numeric ordered values are integers
    weight: np.ndarray | None = None  # range dims: measure of every code
    scale: float = 0.0                # the whole table's width (0: constant column)
    order_key: np.ndarray | None = None  # set dims, non-balanced split: code -> rank

    @property
    def is_set(self) -> bool:
        return self.kind == "unordered"

    @property
    def binned(self) -> bool:
        return self.edges is not None

    def out_dtype(self):
        from pdanon.dtype import GeneralizationDtype

        if self.kind == "real" or self.numeric:
            return GeneralizationDtype(self.kind)
        return GeneralizationDtype(self.kind, self.categories)

    def encode(self, series: pd.Series) -> np.ndarray:
        """Global codes (:func:`code_dtype`) of one partition's cells."""
        t = code_dtype(self.ncodes)
        if self.kind == "real":
            x = series.to_numpy(dtype=np.float64, na_value=np.nan)
            if self.binned:
                return np.searchsorted(self.edges, x, side="right").astype(t)
            return np.searchsorted(self.values.astype(np.float64), x).astype(t)
        if isinstance(series.dtype, pd.CategoricalDtype):
            pos = self.categories.get_indexer(series.cat.categories)
            codes = series.cat.codes.to_numpy(np.int64)
            return pos[codes].astype(t) if len(pos) else codes.astype(t)
        codes, uniq = factorize(series.array, where=f"column {self.name!r}")
        pos = self.categories.get_indexer(uniq)
        return pos[codes].astype(t) if len(pos) else np.asarray(codes, t)

    def values_of(self, codes: np.ndarray, raw: np.ndarray | None):
        """The plain values of rows given their codes (raw values for binned columns)."""
        if self.kind == "real":
            return raw if self.binned else self.values[codes]
        return self.values[codes]


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
    tree: "Tree | None" = None
    part_of_node: np.ndarray | None = None
    tree_routing: dict | None = None
    parts: int = 1

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


def _value_table_capped(series: pd.Series, limit: int | None) -> pd.DataFrame:
    """Distinct values (order of appearance, missing included) and counts of one partition;
    with ``limit``, one row flagged ``over`` instead when there are more distinct values."""
    uniq, counts = value_counts(series.array, where=f"column {series.name!r}")
    if limit is not None and len(uniq) > limit:
        return _over_row(series)
    return pd.DataFrame({"v": uniq, "n": counts,
                         "over": np.zeros(len(uniq), dtype=bool)})


def _over_row(series: pd.Series) -> pd.DataFrame:
    """One row flagging "too many distinct values"; ``n`` counts the missing cells."""
    v = series.array[:1]
    return pd.DataFrame({"v": v, "n": np.full(len(v), int(missing(series).sum()), np.int64),
                         "over": np.ones(len(v), bool)})


def _merge_tables(table: pd.DataFrame):
    """Per-partition value tables (partition order) -> (distinct values in order of first
    appearance, counts)."""
    return value_counts(table["v"].array, weights=table["n"].to_numpy(np.float64))


def _plain_values(uniq):
    """Distinct values as a plain array (a Categorical's values in its categories' dtype)."""
    if isinstance(getattr(uniq, "dtype", None), pd.CategoricalDtype):
        return pd.Series(uniq).astype(uniq.categories.dtype).array
    return pd.Series(uniq).array


def _qi_column(name, kind: str, dtype, table: pd.DataFrame) -> QIColumn | tuple:
    """Global codes of one quasi-identifier from its merged value table. Returns
    ``("bins", ...)`` for a real column with too many distinct values."""
    from pdanon.dtype import GeneralizationDtype

    if isinstance(dtype, GeneralizationDtype):
        raise KindError(
            f"column {name!r} is already generalized; on Dask pdanon anonymizes plain values: "
            f"start from the original column (pandas frames can be anonymized again)")
    refuse = dict(na="refuse", where=f"column {name!r}", fill=f" (ddf[{name!r}].fillna(...))")
    if table["over"].any():  # only real columns are capped; "over" rows count missing cells
        missing(table["v"].where(~table["over"]), counts=table["n"].to_numpy(), **refuse)
        return ("bins",)
    uniq, counts = _merge_tables(table)
    missing(uniq, counts=counts, **refuse)
    if kind == "real":
        if not is_real_dtype(dtype):
            raise KindError(
                f"column {name!r} has kind 'real' but holds {dtype} values; convert it to numbers "
                f"(dd.to_numeric(ddf[{name!r}])) or declare it 'ordered'/'unordered'")
        if len(uniq) > EXACT_CODES_LIMIT:
            return ("bins",)
        raw = np.asarray(pd.Series(uniq).to_numpy())
        integer = pd.api.types.is_integer_dtype(dtype)
        if not integer:
            raw = raw.astype(np.float64)
        order = np.argsort(raw.astype(np.float64), kind="stable")
        values, counts = raw[order], counts[order]
        w = values.astype(np.float64)
        return QIColumn(name, kind, len(values), counts, values=values, integer=integer,
                        weight=w, scale=float(w.max() - w.min()) if len(w) else 0.0)
    if kind == "ordered":
        data_dtype = table["v"].dtype  # the partitions' own dtype (Dask's meta may not know
        if isinstance(data_dtype, pd.CategoricalDtype) and not unknown_categories(data_dtype):
            dtype = data_dtype  # the categories of a Categorical read from Parquet)
        if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered and not \
                unknown_categories(dtype):
            cats = pd.Index(dtype.categories)
        else:
            cats = pd.Index(factorize(_plain_values(uniq), where=f"column {name!r}", sort=True)[1])
        pos = cats.get_indexer(pd.Index(_plain_values(uniq)))
        full = np.zeros(len(cats), dtype=np.int64)
        full[pos] = counts
        numeric = is_real_dtype(cats.dtype)
        rank = (np.cumsum(full) - full).astype(np.float64)
        present = full > 0
        scale = float(rank[present].max() - rank[present].min()) if present.any() else 0.0
        values = np.asarray(cats) if numeric else np.arange(len(cats))
        return QIColumn(name, kind, len(cats), full, values=values, categories=cats,
                        numeric=numeric, integer=numeric and pd.api.types.is_integer_dtype(
                            cats.dtype), weight=rank, scale=scale)
    cats = pd.Index(_plain_values(uniq), tupleize_cols=False)
    distinct = int(np.count_nonzero(counts))
    return QIColumn(name, "unordered", len(cats), counts, values=np.arange(len(cats)),
                    categories=cats, scale=float(distinct - 1))


def _binned_column(name, dtype, quantiles: np.ndarray) -> QIColumn:
    edges = np.unique(np.asarray(quantiles, dtype=np.float64))
    inner = edges[1:-1] if len(edges) > 2 else edges[:0]
    lows = np.concatenate([edges[:1], inner])
    highs = np.concatenate([inner, edges[-1:]])
    weight = (lows + highs) / 2
    return QIColumn(name, "real", len(weight), np.zeros(len(weight), np.int64), edges=inner,
                    integer=pd.api.types.is_integer_dtype(dtype), weight=weight,
                    scale=float(edges[-1] - edges[0]) if len(edges) else 0.0)


def _order_keys(qis: list[QIColumn], how: str, joint=None) -> None:
    """Global category order of unordered columns for the non-balanced splits."""
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


# ============================================================================ the cut tree


@dataclass
class Tree:
    """Binary cut tree: node 0 is the whole table; a row goes right when its code is above
    ``thr`` (real/ordered) or in ``right_set`` (unordered)."""

    col: list = field(default_factory=lambda: [-1])
    thr: list = field(default_factory=lambda: [0])
    left: list = field(default_factory=lambda: [-1])
    right: list = field(default_factory=lambda: [-1])
    size: list = field(default_factory=list)
    right_set: dict = field(default_factory=dict)  # node -> bool over the column's codes

    def split(self, node: int, col: int, thr: int, right_set, sizes) -> None:
        for _ in range(2):
            self.col.append(-1)
            self.thr.append(0)
            self.left.append(-1)
            self.right.append(-1)
        self.col[node] = col
        self.thr[node] = thr
        self.left[node] = len(self.col) - 2
        self.right[node] = len(self.col) - 1
        self.size.extend(sizes)
        if right_set is not None:
            self.right_set[node] = right_set

    def leaves(self) -> list[int]:
        """Leaves in left-to-right order."""
        out, stack = [], [0]
        while stack:
            v = stack.pop()
            if self.col[v] < 0:
                out.append(v)
            else:
                stack.extend([self.right[v], self.left[v]])
        return out

    def routing(self, ncodes: list[int]) -> dict:
        """Arrays for :func:`route` (small; shipped to every task)."""
        tables = {}
        for v, mask in self.right_set.items():
            j = self.col[v]
            tables.setdefault(j, np.zeros((len(self.col), ncodes[j]), dtype=bool))
            tables[j][v] = mask
        return {"col": np.asarray(self.col, np.int64), "thr": np.asarray(self.thr, np.int64),
                "left": np.asarray(self.left, np.int64),
                "right": np.asarray(self.right, np.int64), "tables": tables}


def route(codes: list[np.ndarray], rt: dict) -> np.ndarray:
    """Leaf node of every row (vectorized per tree level and column)."""
    n = len(codes[0]) if codes else 0
    node = np.zeros(n, dtype=np.int64)
    col, thr, left, right, tables = rt["col"], rt["thr"], rt["left"], rt["right"], rt["tables"]
    active = np.flatnonzero(col[node] >= 0)
    while len(active):
        nd = node[active]
        cj = col[nd]
        go = np.zeros(len(active), dtype=bool)
        for j in np.unique(cj):
            sel = np.flatnonzero(cj == j)
            x = codes[j][active[sel]]
            if j in tables:
                go[sel] = tables[j][nd[sel], x]
            else:
                go[sel] = x > thr[nd[sel]]
        node[active] = np.where(go, right[nd], left[nd])
        active = active[col[node[active]] >= 0]
    return node


# ============================================================================ counts -> cuts


def _median_threshold(cnt: np.ndarray) -> int:
    """Left side = codes <= threshold: the median cut of :mod:`pdanon.partition.mondrian`
    (the cut between distinct values nearer the middle that leaves both halves non-empty)."""
    size = int(cnt.sum())
    cum = np.cumsum(cnt)
    med = int(np.searchsorted(cum, size // 2, side="right"))
    less = int(cum[med] - cnt[med])
    leq = int(cum[med])
    use_less = abs(2 * less - size) < abs(2 * leq - size) or leq == size
    use_less = use_less and less > 0
    return med - 1 if use_less else med


def _balanced_right(cnt: np.ndarray) -> np.ndarray:
    """Greedy balanced two-way split of the present categories (largest first, to the lighter
    half; ties by code), as :mod:`pdanon.partition.mondrian` does. True = right."""
    present = np.flatnonzero(cnt)
    order = present[np.lexsort((present, -cnt[present]))]
    right = np.zeros(len(cnt), dtype=bool)
    lsum = rsum = 0
    for code in order:  # over categories of one part, not rows
        if rsum < lsum:
            right[code] = True
            rsum += int(cnt[code])
        else:
            lsum += int(cnt[code])
    return right


@dataclass
class Cut:
    col: int
    thr: int
    right_set: np.ndarray | None
    left: int
    right: int


def _candidate_cuts(q: QIColumn, j: int, cnt: np.ndarray):
    """(normalized width, Cut or None) of column ``j`` for one part with code counts ``cnt``."""
    present = np.flatnonzero(cnt)
    if q.scale <= 0 or len(present) < 2:
        return 0.0, None
    size = int(cnt.sum())
    if q.is_set:
        width = (len(present) - 1) / q.scale
        if q.order_key is None:
            rset = _balanced_right(cnt)
        else:
            by_key = np.zeros(q.ncodes, dtype=np.int64)
            by_key[q.order_key] = cnt
            t = _median_threshold(by_key)
            rset = q.order_key > t
        right = int(cnt[rset].sum())
        return width, Cut(j, 0, rset, size - right, right)
    width = float(q.weight[present[-1]] - q.weight[present[0]]) / q.scale
    t = _median_threshold(cnt)
    left = int(cnt[: t + 1].sum())
    return width, Cut(j, t, None, left, size - left)


# ============================================================================ pass functions


def _codes_of(wp: pd.DataFrame, q: int) -> list[np.ndarray]:
    return [wp[f"c{j}"].to_numpy(np.int64) for j in range(q)]


def _hist_pass(wp, rt, open_index, L, ncodes):
    """Rows per (open part, code) of every column, for one partition."""
    codes = _codes_of(wp, len(ncodes))
    idx = open_index[route(codes, rt)] if len(wp) else np.zeros(0, np.int64)
    sel = idx >= 0
    out = []
    for j, m in enumerate(ncodes):
        out.append(np.bincount(idx[sel] * m + codes[j][sel], minlength=L * m))
    return out


def _side_pass(wp, rt, open_index, L, ncodes, thr, rsets, ms):
    """Rows per (open part, column, side of the column's cut, sensitive value)."""
    q = len(ncodes)
    codes = _codes_of(wp, q)
    idx = open_index[route(codes, rt)] if len(wp) else np.zeros(0, np.int64)
    sel = np.flatnonzero(idx >= 0)
    idx = idx[sel]
    sens = [wp[f"s{i}"].to_numpy(np.int64)[sel] for i in range(len(ms))]
    out = [np.zeros(L * q * 2 * m, dtype=np.int64) for m in ms]
    for j in range(q):
        x = codes[j][sel]
        side = rsets[j][idx, x] if j in rsets else x > thr[idx, j]
        g = (idx * q + j) * 2 + side
        for i, m in enumerate(ms):
            out[i] += np.bincount(g * m + sens[i], minlength=L * q * 2 * m)
    return out


def _joint_pass(wp, q_set: list[int], ncodes, m):
    s = wp["s0"].to_numpy(np.int64)
    return [np.bincount(wp[f"c{j}"].to_numpy(np.int64) * m + s, minlength=ncodes[j] * m)
            for j in q_set]


def _add(*lists):
    out = [a.copy() for a in lists[0]]
    for other in lists[1:]:
        for a, b in zip(out, other):
            a += b
    return out


def _reduce(delayeds, fanin: int = 16):
    """Tree-sum of per-partition lists of arrays (delayed)."""
    import dask

    level = list(delayeds)
    while len(level) > 1:
        level = [dask.delayed(_add, pure=True)(*level[i:i + fanin])
                 for i in range(0, len(level), fanin)]
    return level[0]


# ============================================================================ encoding pass


def _encode_partition(pdf: pd.DataFrame, plan: Plan) -> pd.DataFrame:
    data = {}
    for j, q in enumerate(plan.qis):
        s = pdf[q.name]
        data[f"c{j}"] = q.encode(s)
        if q.binned:
            data[f"v{j}"] = s.to_numpy(dtype=np.float64) if not q.integer else s.to_numpy()
    for i, (c, g) in enumerate(plan.sensitive.items()):
        data[f"s{i}"] = g.codes(pdf[c]).astype(code_dtype(g.column.m))
    return pd.DataFrame(data, index=pd.RangeIndex(len(pdf)))


def _encoded_meta(plan: Plan, index) -> pd.DataFrame:
    data = {}
    for j, q in enumerate(plan.qis):
        data[f"c{j}"] = np.zeros(0, code_dtype(q.ncodes))
        if q.binned:
            data[f"v{j}"] = np.zeros(0, np.int64 if q.integer else np.float64)
    for i, g in enumerate(plan.sensitive.values()):
        data[f"s{i}"] = np.zeros(0, code_dtype(g.column.m))
    return pd.DataFrame(data, index=pd.RangeIndex(0))


# ============================================================================ local phase


def _split(wp: pd.DataFrame, plan: Plan, src: pd.DataFrame | None):
    """Route one partition's rows to parts: one piece (codes, positions) per part."""
    rt = plan.tree_routing
    q = len(plan.qis)
    codes = _codes_of(wp, q)
    part = plan.part_of_node[route(codes, rt)] if len(wp) else np.zeros(0, np.int64)
    order = np.argsort(part, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(part, minlength=plan.parts))])
    cols = plan.code_columns + plan.raw_columns + plan.sensitive_columns
    arrays = {c: wp[c].to_numpy()[order] for c in cols}
    arrays["pos"] = order.astype(np.int64)
    pieces = []
    for p in range(plan.parts):
        a, b = bounds[p], bounds[p + 1]
        piece = {c: v[a:b] for c, v in arrays.items()}
        if src is not None:
            piece["rows"] = src.iloc[order[a:b]]
        pieces.append(piece)
    return pieces


def _local_columns(plan: Plan, arrays: dict):
    """Local Mondrian on one part's codes -> ({column: GeneralizationArray}, stats, class id
    of every row)."""
    from pdanon.encode import EncodedColumn, EncodedTable
    from pdanon._groups import class_labels
    from pdanon.dtype import GeneralizationArray
    from pdanon.partition.mondrian import mondrian_partition

    started = time.perf_counter()
    n = len(arrays["c0"])
    enc_cols, values = [], []
    for j, q in enumerate(plan.qis):
        codes = arrays[f"c{j}"].astype(np.int64)
        raw = arrays.get(f"v{j}")
        if q.kind == "real":
            vals = q.values_of(codes, raw)
            if q.binned:
                codes, _ = pd.factorize(vals, sort=True)
                codes = np.asarray(codes, np.int64)
            f = np.asarray(vals, dtype=np.float64)
            enc_cols.append(EncodedColumn(q.name, "real", codes, pd.RangeIndex(0), f, f,
                                          numeric=True))
        elif q.kind == "ordered":
            enc_cols.append(EncodedColumn(q.name, "ordered", codes, q.categories, codes, codes,
                                          numeric=q.numeric))
            vals = q.values[codes] if q.numeric else None
        else:
            enc_cols.append(EncodedColumn(q.name, "unordered", codes, q.categories))
            vals = None
        values.append(vals)
    sens_codes = {c: arrays[f"s{i}"].astype(np.int64) for i, c in enumerate(plan.sensitive)}
    enc = EncodedTable(enc_cols, sens_codes, n)
    context = None
    if plan.needs_context:
        context = _dist.SensitiveData({
            c: _dist.SensitiveColumn(c, g.column.kind, sens_codes[c], g.column.m,
                                     g.column.has_na, g.column.uniques, g.column.values,
                                     g.column.global_counts)
            for c, g in plan.sensitive.items()})
    labels = mondrian_partition(enc, plan.model, context=context,
                                unordered_split=plan.unordered_split).labels
    out = {}
    for q, col, vals in zip(plan.qis, enc_cols, values):
        if q.kind == "real" or (q.kind == "ordered" and q.numeric):
            arr = GeneralizationArray.from_groups(vals, labels, kind=q.kind, integer=q.integer)
        else:
            arr = GeneralizationArray.from_groups(col.codes, labels, kind=q.kind,
                                                  categories=q.categories)
        # truthful by construction; checked like the engine does
        plain = vals if vals is not None else pd.Categorical.from_codes(
            col.codes, categories=q.categories)
        if not arr.contains(plain).all():
            raise VerificationError(f"column {q.name!r}: a generalized cell does not contain its "
                                    f"original value; this is a bug in pdanon, please report it")
        out[q.name] = arr
    # the classes of the published cells meet the model (verified on the output, not labels)
    published = class_labels(pd.DataFrame({q.name: out[q.name] for q in plan.qis}),
                             [q.name for q in plan.qis]) if n else np.zeros(0, np.int64)
    if n:
        ok = np.asarray(plan.model.groups_ok(published, context), dtype=bool)
        if not ok.all():
            raise VerificationError(f"a part's output does not satisfy {plan.model!r}; this "
                                    f"is a bug in pdanon, please report it")
    sizes = np.bincount(published) if n else np.zeros(0, np.int64)
    stats = {"rows": n, "classes": int(len(sizes)), "k": int(sizes.min()) if n else 0,
             "squares": int((sizes.astype(np.int64) ** 2).sum()),
             "seconds": time.perf_counter() - started}
    return out, stats, published


def _concat(pieces: list, key: str):
    arrs = [p[key] for p in pieces]
    return np.concatenate(arrs) if arrs else np.zeros(0)


def _part_input_order(plan: Plan, *pieces):
    """Part task (order="input"): anonymize; return one back piece per input partition (the
    rows' positions there and their class ids), the stats, and the table of class cells."""
    keys = plan.code_columns + plan.raw_columns + plan.sensitive_columns
    arrays = {k: _concat(list(pieces), k) for k in keys}
    lens = np.array([len(p["pos"]) for p in pieces], dtype=np.int64)
    bounds = np.concatenate([[0], np.cumsum(lens)])
    if bounds[-1] == 0:
        return [None] * len(pieces) + [{"rows": 0, "classes": 0, "k": 0, "squares": 0,
                                        "seconds": 0.0}, None]
    cols, stats, labels = _local_columns(plan, arrays)
    _, first = np.unique(labels, return_index=True)
    table = {c: arr.take(first) for c, arr in cols.items()}  # one cell per class
    cls = labels.astype(np.int32)
    back = []
    for i, p in enumerate(pieces):
        a, b = bounds[i], bounds[i + 1]
        back.append(None if a == b else {"pos": p["pos"], "cls": cls[a:b]})
    return back + [stats, table]


def _part_part_order(plan: Plan, *pieces):
    """Part task (order="part"): the part's rows with generalized quasi-identifiers."""
    keys = plan.code_columns + plan.raw_columns + plan.sensitive_columns
    arrays = {k: _concat(list(pieces), k) for k in keys}
    rows = pd.concat([p["rows"] for p in pieces]) if pieces else None
    out = rows.copy()
    if len(out) == 0:
        stats = {"rows": 0, "classes": 0, "k": 0, "squares": 0, "seconds": 0.0}
        for q in plan.qis:
            out[q.name] = pd.Series(pd.array([], dtype=q.out_dtype()), index=out.index)
    else:
        cols, stats, _ = _local_columns(plan, arrays)
        for q in plan.qis:
            out[q.name] = pd.Series(cols[q.name], index=out.index)
    out.attrs = dict(plan.attrs)
    return out, stats


def _assemble(plan: Plan, src: pd.DataFrame, tables: list, *back):
    """Final task (order="input"): insert the generalized cells of one input partition
    (``back[p]``: positions and class ids of its rows in part ``p``, ``tables[p]`` that part's
    class cells)."""
    from pdanon.dtype import GeneralizationArray

    out = src.copy()
    got = [(b, t) for b, t in zip(back, tables) if b is not None]
    pos = np.concatenate([b["pos"] for b, _ in got]) if got else np.zeros(0, np.int64)
    if len(pos) != len(src):
        raise VerificationError(f"a partition got {len(pos)} generalized rows for {len(src)} "
                                f"input rows; this is a bug in pdanon, please report it")
    order = np.empty(len(pos), dtype=np.int64)
    order[pos] = np.arange(len(pos))
    if got:
        offsets = np.cumsum([0] + [len(next(iter(t.values()))) for _, t in got[:-1]])
        cls = np.concatenate([b["cls"].astype(np.int64) + o for (b, _), o in zip(got, offsets)])
        rows_cls = cls[order]
    for q in plan.qis:
        if got:
            table = GeneralizationArray._concat_same_type([t[q.name] for _, t in got])
            arr = table.take(rows_cls)
        else:
            arr = pd.array([], dtype=q.out_dtype())
        out[q.name] = pd.Series(arr, index=src.index)
    out.attrs = dict(plan.attrs)
    return out


def _with_attrs(pdf: pd.DataFrame, attrs: dict) -> pd.DataFrame:
    pdf = pdf.copy(deep=False)
    pdf.attrs = dict(attrs)
    return pdf


# ============================================================================ driver


def _output_meta(ddf, plan: Plan) -> pd.DataFrame:
    meta = ddf._meta[plan.keep].copy()
    for q in plan.qis:
        meta[q.name] = pd.Series(pd.array([], dtype=q.out_dtype()), index=meta.index)
    meta.attrs = dict(plan.attrs)
    return meta


def plan_cuts(ddf, roles, *, model, max_rows_per_part: int = DEFAULT_MAX_ROWS_PER_PART,
              unordered_split: str = "balanced", persist_codes: bool = True):
    """Phases 1-3: global dictionaries, codes, top cuts. Returns ``(plan, encoded, info)``:
    ``plan.tree`` holds the cuts, ``encoded`` the (persisted) codes, ``info`` what was
    collected and how long it took.

    ``route([q.encode(df[q.name]) for q in plan.qis], plan.tree_routing)`` gives the leaf of
    any rows; ``plan.part_of_node[leaf]`` their part.

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from pdanon.models import KAnonymity
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"age": [21, 22, 23, 24, 50, 51, 52, 53]})
    >>> plan, _, info = plan_cuts(dd.from_pandas(df, npartitions=2), resolve_roles(df),
    ...                           model=KAnonymity(2), max_rows_per_part=4)
    >>> info["parts"], plan.part_of_node[route([plan.qis[0].encode(df["age"])],
    ...                                          plan.tree_routing)].tolist()
    (2, [0, 0, 0, 0, 1, 1, 1, 1])
    """
    import dask

    from pdanon.dask._metrics import check_dask_frame
    from pdanon.partition.mondrian import UNORDERED_SPLITS

    check_dask_frame(ddf)
    started = time.perf_counter()
    timings = {}
    if unordered_split not in UNORDERED_SPLITS:
        raise InvalidInputError(f"unknown unordered_split {unordered_split!r}; use one of "
                                f"{list(UNORDERED_SPLITS)}")
    if isinstance(max_rows_per_part, bool) or not isinstance(max_rows_per_part, (int, np.integer)) \
            or max_rows_per_part < 1:
        raise InvalidInputError(f"max_rows_per_part must be a positive integer, got "
                                f"{max_rows_per_part!r}")
    if not roles.qi:
        raise InvalidInputError("no quasi-identifier columns: pass quasi_identifiers=[...]")
    needs_ctx = needs_context(model)
    if needs_ctx and not roles.sensitive:
        raise InvalidInputError(f"{model!r} needs at least one sensitive column: pass "
                                f"sensitive=[...]")
    keep = [c for c in ddf.columns if c not in set(roles.identifiers)]
    qnames = list(roles.quasi_identifiers)
    snames = list(roles.sensitive)

    # -- 1. dictionaries -----------------------------------------------------------------
    lazies = []
    for c in qnames + snames:
        limit = EXACT_CODES_LIMIT if roles.quasi_identifiers.get(c) == "real" else None
        meta = pd.DataFrame({"v": ddf._meta[c].array[:0], "n": np.zeros(0, np.int64),
                             "over": np.zeros(0, bool)})
        lazies.append(ddf[c].map_partitions(_value_table_capped, limit, meta=meta))
    tables = dask.compute(*lazies)
    collected = sum(int(t.memory_usage(deep=True).sum()) for t in tables)
    qis = [_qi_column(c, roles.quasi_identifiers[c], ddf._meta[c].dtype, t)
           for c, t in zip(qnames, tables)]
    binned = [j for j, q in enumerate(qis) if isinstance(q, tuple)]
    if binned:
        qs = np.linspace(0, 1, BINS + 1)
        quant = dask.compute(*[ddf[qnames[j]].astype(np.float64).quantile(qs) for j in binned])
        for j, qv in zip(binned, quant):
            qis[j] = _binned_column(qnames[j], ddf._meta[qnames[j]].dtype, np.asarray(qv))
    sensitive = {c: global_sensitive_column(t.drop(columns="over"), roles.sensitive[c], c)
                 for c, t in zip(snames, tables[len(qnames):])}
    exact = [t for t in tables if not t["over"].any()]
    n = int(exact[0]["n"].sum()) if exact else None
    attrs = {k: v for k, v in ddf._meta.attrs.items() if k != "pdanon"}
    plan = Plan(qis, sensitive, model, needs_ctx, unordered_split, keep, attrs)
    timings["dictionaries"] = time.perf_counter() - started

    # -- 2. codes ------------------------------------------------------------------------
    t0 = time.perf_counter()
    encoded = ddf.map_partitions(_encode_partition, plan,
                                 meta=_encoded_meta(plan, ddf._meta.index), clear_divisions=True)
    if persist_codes:
        encoded = encoded.persist()
        _wait(encoded)
    if n is None:
        n = int(dask.compute(encoded["c0"].count())[0])
    check_feasible(model, n, sensitive)
    if unordered_split == "sensitive":
        if not snames:
            raise InvalidInputError("unordered_split='sensitive' needs a sensitive column: pass "
                                    "sensitive=[...] or choose unordered_split='balanced'")
        sets = [j for j, q in enumerate(qis) if q.is_set]
        m0 = sensitive[snames[0]].column.m
        parts = [dask.delayed(_joint_pass)(w, sets, [q.ncodes for q in qis], m0)
                 for w in encoded.to_delayed()]
        joint = dask.compute(_reduce(parts))[0] if parts and sets else []
        _order_keys(qis, unordered_split, {j: a.reshape(qis[j].ncodes, m0)
                                           for j, a in zip(sets, joint)})
    else:
        _order_keys(qis, unordered_split)
    timings["codes"] = time.perf_counter() - t0

    # -- 3. top cuts ---------------------------------------------------------------------
    t0 = time.perf_counter()
    tree, levels, hist_bytes = _top_cuts(encoded, plan, n, max_rows_per_part)
    collected += hist_bytes
    leaves = tree.leaves()
    part_of_node = np.full(len(tree.col), -1, dtype=np.int64)
    part_of_node[leaves] = np.arange(len(leaves))
    plan.tree = tree
    plan.part_of_node = part_of_node
    plan.parts = len(leaves)
    plan.tree_routing = tree.routing([q.ncodes for q in qis])
    part_sizes = [tree.size[v - 1] if v > 0 else n for v in leaves]
    timings["cuts"] = time.perf_counter() - t0

    info = {
        "algorithm": "mondrian (dask)",
        "method": "generalize",
        "model": model.name,
        "params": model.params(),
        "quasi_identifiers": qnames,
        "dropped_identifiers": list(roles.identifiers),
        "rows": n,
        "parts": plan.parts,
        "part_rows": {"min": int(min(part_sizes)), "max": int(max(part_sizes))},
        "cut_levels": levels,
        "binned_columns": [q.name for q in qis if q.binned],
        "max_rows_per_part": int(max_rows_per_part),
        "unordered_split": unordered_split,
        "collected_bytes": int(collected),
        "timings": timings,
    }
    return plan, encoded, info


def anonymize(ddf, roles, *, model, max_rows_per_part: int = DEFAULT_MAX_ROWS_PER_PART,
              order: str = "input", unordered_split: str = "balanced", path=None,
              verify: bool = True, write_options: dict | None = None,
              persist_codes: bool = True):
    """Mondrian on a Dask DataFrame (module docstring). Returns ``(out, info)``.

    ``out`` is a Dask DataFrame: identifiers dropped, quasi-identifiers generalized
    (generalization dtype, global categories), other columns unchanged, the input's index.
    With ``path`` it is written to Parquet there and ``out`` reads it back; otherwise, with
    ``verify=True``, it is persisted in worker memory; with ``verify=False`` it stays lazy.

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from pdanon.models import KAnonymity
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"age": [30, 31, 40, 42]})
    >>> out, info = anonymize(dd.from_pandas(df, npartitions=2), resolve_roles(df),
    ...                       model=KAnonymity(2))
    >>> info["groups"], info["verified"]["k"]
    (2, 2)
    """
    import dask
    import dask.dataframe as dd

    started = time.perf_counter()
    if order not in ORDERS:
        raise InvalidInputError(f"unknown order {order!r}; use one of {list(ORDERS)}")
    plan, encoded, info = plan_cuts(ddf, roles, model=model, max_rows_per_part=max_rows_per_part,
                                    unordered_split=unordered_split, persist_codes=persist_codes)
    timings = info.pop("timings")
    info["order"] = order
    attrs = plan.attrs
    out_roles = roles.restricted_to(plan.keep)
    plan.attrs = dict(attrs)
    plan.attrs["pdanon"] = {"roles": out_roles.to_dict(), "info": dict(info)}

    # -- 4. local Mondrian ---------------------------------------------------------------
    t0 = time.perf_counter()
    out, stats = _local_graph(ddf, encoded, plan, order)
    if path is not None:
        write = out.to_parquet(path, compute=False, **(write_options or {}))
        _, stats = dask.compute(write, stats)
        del write
        result = dd.read_parquet(path)
    elif verify:
        out, stats = dask.persist(out, stats)
        stats = stats.compute()
        result = out
    else:
        result, stats = out, None
    del encoded, out
    gc.collect()  # release the persisted codes now (the task graphs hold reference cycles)
    timings["anonymize"] = time.perf_counter() - t0
    if stats is not None:
        info["groups"] = int(stats["classes"].sum())
        info["achieved"] = {"k": int(stats.loc[stats["rows"] > 0, "k"].min())
                            if (stats["rows"] > 0).any() else 0}
        info["discernibility"] = int(stats["squares"].sum())
        info["part_seconds"] = float(stats["seconds"].sum())

    # -- 5. verification -----------------------------------------------------------------
    if verify:
        t0 = time.perf_counter()
        info["verified"] = verify_output(result, info["quasi_identifiers"], plan.sensitive,
                                         model, info["rows"])
        timings["verify"] = time.perf_counter() - t0
    timings["total"] = time.perf_counter() - started
    info["timings"] = timings
    info["seconds"] = timings["total"]
    final_attrs = dict(attrs)
    final_attrs["pdanon"] = {"roles": out_roles.to_dict(), "info": info}
    meta = result._meta.copy()
    meta.attrs = final_attrs
    result = result.map_partitions(_with_attrs, final_attrs, meta=meta)
    return result, info


def _wait(collection) -> None:
    """Block until a persisted collection is in worker memory (distributed only), so timings
    are honest."""
    import sys

    if "distributed" not in sys.modules:
        return
    from distributed import futures_of, wait

    futures = futures_of(collection)
    if futures:
        wait(futures)


def _top_cuts(encoded, plan: Plan, n: int, max_rows: int):
    """Choose the top cuts from counts until every part has at most ``max_rows`` rows."""
    import dask

    tree = Tree()
    qis = plan.qis
    ncodes = [q.ncodes for q in qis]
    k = k_of(plan.model)
    q = len(qis)
    open_nodes = [0] if n > max_rows and n >= 2 * k else []
    sizes = {0: n}
    levels = 0
    collected = 0
    parts = encoded.to_delayed()
    snames = list(plan.sensitive)
    ms = [plan.sensitive[c].column.m for c in snames]
    while open_nodes:
        levels += 1
        L = len(open_nodes)
        rt = tree.routing(ncodes)
        open_index = np.full(len(tree.col), -1, dtype=np.int64)
        open_index[open_nodes] = np.arange(L)
        rt_d = dask.delayed(rt, pure=True)
        hist = dask.compute(_reduce([dask.delayed(_hist_pass)(w, rt_d, open_index, L, ncodes)
                                     for w in parts]))[0]
        collected += sum(h.nbytes for h in hist)
        hist = [h.reshape(L, m) for h, m in zip(hist, ncodes)]
        widths = np.zeros((L, q))
        cuts: list[list] = [[None] * q for _ in range(L)]
        for li in range(L):
            for j in range(q):
                widths[li, j], cuts[li][j] = _candidate_cuts(qis[j], j, hist[j][li])
        ok = np.zeros((L, q), dtype=bool)
        for li in range(L):
            for j in range(q):
                c = cuts[li][j]
                ok[li, j] = c is not None and widths[li, j] > 0 and c.left >= k and c.right >= k
        if plan.needs_context and ok.any():
            thr = np.zeros((L, q), dtype=np.int64)
            rsets = {}
            for j in range(q):
                if qis[j].is_set:
                    table = np.zeros((L, ncodes[j]), dtype=bool)
                    for li in range(L):
                        if cuts[li][j] is not None:
                            table[li] = cuts[li][j].right_set
                    rsets[j] = table
                else:
                    for li in range(L):
                        if cuts[li][j] is not None:
                            thr[li, j] = cuts[li][j].thr
            side = dask.compute(_reduce([dask.delayed(_side_pass)(
                w, rt_d, open_index, L, ncodes, thr, rsets, ms) for w in parts]))[0]
            collected += sum(s.nbytes for s in side)
            dense = {c: s.reshape(L * q * 2, m) for c, s, m in zip(snames, side, ms)}
            group_sizes = next(iter(dense.values())).sum(axis=1)
            good = groups_ok_from_counts(plan.model, group_sizes, dense, plan.sensitive)
            good = good.reshape(L, q, 2)
            ok &= good[:, :, 0] & good[:, :, 1]
        new_open = []
        for li, node in enumerate(open_nodes):
            order = np.argsort(-widths[li], kind="stable")
            chosen = next((j for j in order if widths[li, j] > 0 and ok[li, j]), None)
            if chosen is None:
                continue  # no allowed cut: the part is final
            c = cuts[li][chosen]
            tree.split(node, chosen, c.thr, c.right_set, [c.left, c.right])
            for child, size in ((tree.left[node], c.left), (tree.right[node], c.right)):
                if size > max_rows and size >= 2 * k:
                    new_open.append(child)
        open_nodes = new_open
    return tree, levels, collected


_STATS_META = pd.DataFrame({"rows": np.zeros(0, np.int64), "classes": np.zeros(0, np.int64),
                            "k": np.zeros(0, np.int64), "squares": np.zeros(0, np.int64),
                            "seconds": np.zeros(0)})


def _stats_frame(stats: dict) -> pd.DataFrame:
    return pd.DataFrame({k: [v] for k, v in stats.items()}).astype(_STATS_META.dtypes.to_dict())


def _local_graph(ddf, encoded, plan: Plan, order: str):
    """The lazy output frame and the per-part stats (a lazy Dask frame, one row per part)."""
    import dask
    import dask.dataframe as dd

    out, stats = _local_tasks(ddf, encoded, plan, order)
    stats = dd.from_delayed([dask.delayed(_stats_frame)(s) for s in stats], meta=_STATS_META,
                            verify_meta=False)
    return out, stats


def _local_tasks(ddf, encoded, plan: Plan, order: str):
    import dask
    import dask.dataframe as dd

    plan_d = dask.delayed(plan, pure=True)
    src = ddf[plan.keep]
    w_parts = encoded.to_delayed()
    P = plan.parts
    meta = _output_meta(ddf, plan)
    if order == "input":
        src_parts = src.to_delayed()
        splits = [dask.delayed(_split, nout=P)(w, plan_d, None) for w in w_parts]
        N = len(splits)
        part_tasks = [dask.delayed(_part_input_order, nout=N + 2)(
            plan_d, *[splits[i][p] for i in range(N)]) for p in range(P)]
        stats = [t[N] for t in part_tasks]
        tables = [t[N + 1] for t in part_tasks]
        finals = [dask.delayed(_assemble)(plan_d, src_parts[i], tables,
                                          *[t[i] for t in part_tasks]) for i in range(N)]
        out = dd.from_delayed(finals, meta=meta, divisions=src.divisions, verify_meta=False)
        return out, stats
    src_parts = src.to_delayed()
    splits = [dask.delayed(_split, nout=P)(w, plan_d, s) for w, s in zip(w_parts, src_parts)]
    N = len(splits)
    part_tasks = [dask.delayed(_part_part_order, nout=2)(plan_d, *[splits[i][p]
                                                                   for i in range(N)])
                  for p in range(P)]
    out = dd.from_delayed([t[0] for t in part_tasks], meta=meta, verify_meta=False)
    return out, [t[1] for t in part_tasks]
