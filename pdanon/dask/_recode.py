"""Mondrian on Dask, phase 4: recode each part's groups, and build the output from them.

Changes: **recoding** only. The parts are the top cuts of :mod:`pdanon.dask._cuts`; inside
each, the single-machine :func:`~pdanon.partition.mondrian.mondrian_partition` runs on the
part's codes (:mod:`pdanon.dask._local`). What a group publishes follows :mod:`pdanon.recode`,
the rules of the pandas engine:

* ``generalize`` -- one generalized cell per group and column (:func:`pdanon.dask._local.
  local_columns`: ``[min, max]`` or the set of the group's values);
* ``suppress`` -- a group's cells of a column stay as they are when the group is constant
  there (a missing cell is a value of its own), otherwise they become missing;
* ``aggregate`` -- a group's cells become its mean (``real``), the element at position
  ``len // 2`` of its sorted values (``ordered``) or its mode (``unordered``; ties go to the
  value met first in row order); a group holding a missing cell publishes missing.

How it runs. A part's task recodes its groups into one small table per column (one entry per
class or group: a generalized cell, keep-or-suppress, a mean, or a value code) and sends each
row's class id (4 bytes) back to the input partition it came from (``order="input"``; that
partition looks its rows up and inserts the cells, so the sensitive and other columns never
move) or keeps the rows (``order="part"``: each part is one output partition).

Published categories. No value that no published cell holds may stay in a column's dtype (or
in a file written from it: Parquet dictionaries, the generalization dtype's metadata), as
:func:`pdanon.recode.published_categories` guarantees on pandas. Which values are published is
only known once every part is done, and every partition must have the same dtype, so the part
tasks run (and are persisted) when the method is called; each reports, per column, one boolean
per category (:func:`pdanon.recode.used_categories` of its cells); the client ORs them, and the
output partitions are built with the restricted dtype
(:func:`pdanon.recode.restrict_categories`). Published dtypes:

========================  ====================================================================
input column              published dtype
========================  ====================================================================
any, ``generalize``       generalization dtype; categories (``unordered`` and non-numeric
                          ``ordered``) restricted to the published ones
Categorical               Categorical of the published categories (input order, ``ordered``)
numpy integer             ``float64`` with ``suppress`` (a suppressed cell is NaN, as pandas
                          gives whenever one cell is suppressed) and for ``real`` aggregation
numpy bool                ``object`` with ``suppress`` (pandas' ``where``)
``real``, aggregated      ``float64`` (the group means)
anything else             the input dtype
========================  ====================================================================

Example
-------
>>> import pandas as pd, dask.dataframe as dd, pdanon.dask
>>> df = pd.DataFrame({"age": [21, 22, 23, 24, 50, 51, 52, 53]})
>>> out = dd.from_pandas(df, npartitions=2).anon.k_anonymize(4, method="aggregate")
>>> sorted(out.compute()["age"].tolist())   # rows in a random order
[22.5, 22.5, 22.5, 22.5, 51.5, 51.5, 51.5, 51.5]
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, VerificationError
from pdanon.dask._plan import Plan, QIColumn
from pdanon.encode import unknown_categories
from pdanon.recode import restrict_categories, sorted_categories, used_categories

__all__ = ["METHODS", "publish_categoricals", "recode_graph", "recode_part"]

#: how a part's groups are published (as ``method=`` of the pandas engine)
METHODS = ("generalize", "suppress", "aggregate")


# ============================================================================ one part


def recode_part(plan: Plan, method: str, arrays: dict):
    """Local Mondrian on one part's codes, recoded by ``method`` (``"suppress"`` or
    ``"aggregate"``; ``"generalize"`` is :func:`pdanon.dask._local.local_columns`). Returns ``(tables, used,
    stats, labels)``: per column one entry per group (``suppress``: keep the cells or not;
    ``aggregate``: the mean for ``real`` columns, the value code, -1 for missing, otherwise),
    per column a boolean per global code (the values some published cell holds), the part's
    statistics (:data:`pdanon.dask._local.STATS_META`) and each row's group."""
    from pdanon._groups import class_labels
    from pdanon.dask._local import checked_stats, part_groups
    from pdanon.recode import (aggregate_codes, blank_rows, constant_groups,
                               group_mean_table)

    started = time.perf_counter()
    enc_cols, values, context, labels = part_groups(plan, arrays)
    n = len(labels)
    groups = int(labels.max()) + 1 if n else 0
    tables, used, published = {}, {}, {}
    all_blank = np.ones(n, dtype=bool)
    some_suppressed = np.zeros(n, dtype=bool)
    cells = changed = 0
    for q, col, vals in zip(plan.qis, enc_cols, values):
        na = col.na if col.na is not None else np.zeros(n, dtype=bool)
        in_use = np.zeros(q.ncodes, dtype=bool)
        if method == "suppress":
            keep_g = constant_groups(col, labels, groups)
            keep = keep_g[labels]
            blank = ~keep | na
            tables[q.name] = keep_g
            # published cells, as codes: equal codes <=> equal published values in this part
            published[q.name] = np.where(blank, -1, col.codes)
            if q.kind != "real":
                in_use[col.codes[~blank]] = True
            suppressed = ~keep & ~na
            changed += int(suppressed.sum())
        else:
            blank_g = np.zeros(groups, dtype=bool)
            blank = blank_rows(col, labels, groups)
            if blank is not None:
                blank_g[labels[blank]] = True
            if q.kind == "real":
                raw = np.asarray(col.lo, dtype=np.float64)
                means = group_mean_table(raw, labels, groups)
                means[blank_g] = np.nan
                tables[q.name] = means
                new = means[labels]
                published[q.name] = new
                changed += int((~(new == raw) & ~na).sum())
            else:
                codes = aggregate_codes(col, labels, groups)
                codes[blank_g] = -1
                tables[q.name] = codes
                new = codes[labels]
                published[q.name] = new
                in_use[codes[codes >= 0]] = True
                changed += int(((new != col.codes) & ~na).sum())
            blank = blank_g[labels]
            suppressed = blank & ~na
        used[q.name] = in_use
        all_blank &= blank
        some_suppressed |= suppressed
        cells += int(suppressed.sum())
    # the classes of the published cells meet the model (missing equals missing)
    classes = class_labels(pd.DataFrame(published), list(published)) if n else \
        np.zeros(0, np.int64)
    stats = checked_stats(plan, classes, context, started, cells,
                          int((all_blank & some_suppressed).sum()), changed)
    return tables, used, stats, labels


# ============================================================================ the cells


def output_dtype(q: QIColumn, method: str, dtype, published: np.ndarray | None):
    """The published dtype of one quasi-identifier (module docstring's table); ``published``
    flags the categories some published cell needs (``None``: no categories)."""
    if method == "generalize":
        if published is None:
            return q.out_dtype()
        empty = pd.Series(pd.array([], dtype=q.out_dtype()))
        return sorted_categories(restrict_categories(empty, published)).dtype
    if method == "aggregate" and q.kind == "real":
        return np.dtype(np.float64)
    if isinstance(dtype, pd.CategoricalDtype):
        values = q.categories[published[:len(q.categories)]]
        # partitions with different categories: the global dictionary's order
        cats = q.categories if unknown_categories(dtype) else dtype.categories
        return pd.CategoricalDtype(cats[cats.isin(values)], ordered=dtype.ordered)
    if method == "suppress" and isinstance(dtype, np.dtype):
        if dtype.kind in "iu":
            return np.dtype(np.float64)
        if dtype.kind == "b":
            return np.dtype(object)
    return dtype


def column_cells(q: QIColumn, method: str, series: pd.Series, entries, dtype) -> pd.Series:
    """One quasi-identifier's published cells for ``series`` (the input cells of some rows),
    given each row's table entry (for ``generalize``: its cell, global categories)."""
    if method == "generalize":
        out = pd.Series(entries, index=series.index, name=series.name)
        if out.dtype != dtype:
            out = sorted_categories(restrict_categories(out, _keep_mask(out, dtype)))
        return out
    if method == "suppress":
        out = series.where(np.asarray(entries, dtype=bool))
    elif q.kind == "real":
        return pd.Series(np.asarray(entries, dtype=np.float64), index=series.index,
                         name=series.name)
    elif isinstance(dtype, pd.CategoricalDtype):
        to_cat = dtype.categories.get_indexer(q.categories)
        codes = np.where(entries >= 0, to_cat[np.maximum(entries, 0)], -1) if len(to_cat) \
            else np.full(len(entries), -1)
        return pd.Series(pd.Categorical.from_codes(codes, dtype=dtype), index=series.index,
                         name=series.name)
    else:
        out = pd.Series(q.categories.take(entries, allow_fill=True), index=series.index,
                        name=series.name)
    return out.astype(dtype)


def _keep_mask(series: pd.Series, dtype) -> np.ndarray:
    """Which of ``series``' categories ``dtype`` keeps."""
    return np.asarray(pd.Index(series.dtype.categories).isin(dtype.categories), dtype=bool)


def _group_entries(plan: Plan, method: str, tables: list, cls: list, order: np.ndarray) -> dict:
    """Per column, each row's entry of its part's table. ``tables[i]`` and ``cls[i]``: a
    part's table and the group of each of its rows here, in the order the parts sent them;
    ``order[r]``: where row ``r`` of the partition is in that order. Each part's table is
    read at its own rows first, so the work is O(rows of the partition + parts), not
    O(groups of every part) per partition."""
    from pdanon.dtype import GeneralizationArray

    out = {}
    for q in plan.qis:
        pieces = [t[q.name].take(c) for t, c in zip(tables, cls)]
        joined = GeneralizationArray._concat_same_type(pieces) if method == "generalize" \
            else np.concatenate(pieces)
        out[q.name] = joined.take(order)
    return out


def _empty_entries(plan: Plan, method: str) -> dict:
    return {q.name: pd.array([], dtype=q.out_dtype()) if method == "generalize"
            else np.zeros(0, np.int64) for q in plan.qis}


# ============================================================================ the graph


def _part_task(plan: Plan, method: str, order: str, *pieces):
    """One part: recode; return the back pieces (``order="input"``) or the part's input rows
    (``order="part"``), with the tables, categories in use and stats."""
    from pdanon.dask._local import empty_stats, local_columns, part_arrays

    arrays = part_arrays(plan, pieces)
    lens = np.array([len(p["pos"]) for p in pieces], dtype=np.int64)
    bounds = np.concatenate([[0], np.cumsum(lens)])
    if bounds[-1] == 0:
        tables = _empty_entries(plan, method)
        labels, stats = np.zeros(0, np.int64), empty_stats()
        used = {q.name: None for q in plan.qis}
    elif method == "generalize":
        cols, stats, labels = local_columns(plan, arrays)  # labels: published classes
        _, first = np.unique(labels, return_index=True)
        tables = {c: arr.take(first) for c, arr in cols.items()}  # one cell per class
        used = {c: used_categories(pd.Series(t)) for c, t in tables.items()}
    else:
        tables, used, stats, labels = recode_part(plan, method, arrays)
    result = {"tables": tables, "used": used, "stats": stats}
    if order == "input":
        result["back"] = [None if bounds[i] == bounds[i + 1] else
                          {"pos": p["pos"], "cls": labels[bounds[i]:bounds[i + 1]]
                           .astype(np.int32)} for i, p in enumerate(pieces)]
    else:
        result["rows"] = pd.concat([p["rows"] for p in pieces]) if pieces else None
        result["labels"] = labels
    return result


def _pick(result: dict, key: str, i=None):
    return result[key] if i is None else result[key][i]


def _assemble(plan: Plan, method: str, dtypes: dict, src: pd.DataFrame, tables: list, *back):
    """One input partition (``order="input"``): its rows' entries from the parts' tables."""
    out = src.copy()
    got = [(b, t) for b, t in zip(back, tables) if b is not None]
    pos = np.concatenate([b["pos"] for b, _ in got]) if got else np.zeros(0, np.int64)
    if len(pos) != len(src):
        raise VerificationError(f"a partition got {len(pos)} recoded rows for {len(src)} "
                                f"input rows; this is a bug in pdanon, please report it")
    order = np.empty(len(pos), dtype=np.int64)
    order[pos] = np.arange(len(pos))
    entries = _group_entries(plan, method, [t for _, t in got], [b["cls"] for b, _ in got],
                             order) if got else _empty_entries(plan, method)
    for q in plan.qis:
        out[q.name] = column_cells(q, method, src[q.name], entries[q.name], dtypes[q.name])
    out.attrs = dict(plan.attrs)
    return out


def _part_frame(plan: Plan, method: str, dtypes: dict, result: dict):
    """One part as an output partition (``order="part"``)."""
    out = result["rows"].copy()
    for q in plan.qis:
        entries = result["tables"][q.name].take(result["labels"])
        out[q.name] = column_cells(q, method, out[q.name], entries, dtypes[q.name])
    out.attrs = dict(plan.attrs)
    return out


def recode_graph(ddf, encoded, plan: Plan, order: str, method: str):
    """Run the parts (persisted), collect their statistics and the categories in use; return
    the lazy output frame and the statistics (a pandas frame, one row per part)."""
    import dask
    import dask.dataframe as dd

    from pdanon.dask._local import STATS_META, split_rows, stats_frame

    if method not in METHODS:
        raise InvalidInputError(f"unknown method {method!r}; use one of {list(METHODS)}")
    plan_d = dask.delayed(plan, pure=True)
    src = ddf[plan.keep]
    src_parts = src.to_delayed()
    P = plan.parts
    if order == "input":
        splits = [dask.delayed(split_rows, nout=P)(w, plan_d, None) for w in encoded.to_delayed()]
    else:
        splits = [dask.delayed(split_rows, nout=P)(w, plan_d, s)
                  for w, s in zip(encoded.to_delayed(), src_parts)]
    N = len(splits)
    parts = [dask.delayed(_part_task)(plan_d, method, order, *[splits[i][p] for i in range(N)])
             for p in range(P)]
    parts = list(dask.persist(*parts))
    used, stats = dask.compute([dask.delayed(_pick)(r, "used") for r in parts],
                               [dask.delayed(_pick)(r, "stats") for r in parts])
    dtypes = {}
    for q in plan.qis:
        masks = [u[q.name] for u in used if u[q.name] is not None]
        in_use = np.logical_or.reduce(masks) if masks else None
        if in_use is None:  # no part published a row
            cats = q.out_dtype().categories if method == "generalize" else q.categories
            in_use = None if cats is None else np.zeros(len(cats) + 1, dtype=bool)[:len(cats)]
        dtype = q.data_dtype if q.data_dtype is not None else ddf._meta[q.name].dtype
        dtypes[q.name] = output_dtype(q, method, dtype, in_use)
    meta = ddf._meta[plan.keep].copy()
    for q in plan.qis:
        meta[q.name] = meta[q.name].astype(dtypes[q.name])
    meta.attrs = dict(plan.attrs)
    if order == "input":
        tables = [dask.delayed(_pick)(r, "tables") for r in parts]
        finals = [dask.delayed(_assemble)(plan_d, method, dtypes, src_parts[i], tables,
                                          *[dask.delayed(_pick)(r, "back", i) for r in parts])
                  for i in range(N)]
        out = dd.from_delayed(finals, meta=meta, divisions=src.divisions, verify_meta=False)
    else:
        out = dd.from_delayed([dask.delayed(_part_frame)(plan_d, method, dtypes, r)
                               for r in parts], meta=meta, verify_meta=False)
    stats = pd.concat([stats_frame(s) for s in stats], ignore_index=True) if stats else \
        STATS_META.copy()
    return out, stats


# ============================================================================ other columns


def _category_masks(pdf: pd.DataFrame) -> dict:
    return {c: used_categories(pdf[c]) for c in pdf.columns}


def _with_dtypes(pdf: pd.DataFrame, dtypes: dict) -> pd.DataFrame:
    return pdf.astype(dtypes)  # attrs travel with astype


def publish_categoricals(out, source, skip=()):
    """``out`` (a Dask release) whose Categorical columns other than ``skip`` (the
    quasi-identifiers, whose dtypes the recoding restricted already) list only the categories
    some cell holds: the rule of :func:`pdanon.recode.publish_frame` on pandas. Those columns
    are the ``source`` frame's, row for row (no Dask face drops rows), so the categories in use
    are read from ``source``: one pass over those columns, one boolean per category per
    partition, OR-ed on the client; nothing is done when every category is in use."""
    import dask

    cols = [c for c, d in out._meta.dtypes.items()
            if isinstance(d, pd.CategoricalDtype) and c not in set(skip) and c in source.columns]
    if not cols:
        return out
    masks = dask.compute(*[dask.delayed(_category_masks)(p)
                           for p in source[cols].to_delayed()])
    dtypes = {}
    for c in cols:
        dtype = out._meta[c].dtype
        keep = np.logical_or.reduce([m[c] for m in masks]) if masks else \
            np.zeros(len(dtype.categories), dtype=bool)
        if not keep.all():
            dtypes[c] = pd.CategoricalDtype(dtype.categories[keep], ordered=dtype.ordered)
    if not dtypes:
        return out
    meta = out._meta.astype(dtypes)
    meta.attrs = dict(out._meta.attrs)
    return out.map_partitions(_with_dtypes, dtypes, meta=meta)
