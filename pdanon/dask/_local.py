"""Mondrian on Dask, phase 4: the local Mondrian, one task per part.

Each input partition routes its rows by the cut bounds (:mod:`pdanon.dask._cuts`) and sends
every part only the rows' codes and positions; a part's task runs the single-machine
:func:`~pdanon.partition.mondrian.mondrian_partition` on them, builds the generalized cells
(:meth:`GeneralizationArray.from_groups`, global categories, so every part has the same dtype)
and verifies its classes. With ``order="input"`` each row's class id travels back to the input
partition it came from, with one small table of the part's class cells; that partition inserts
the cells at its rows. With ``order="part"`` each part is one output partition.

Missing cells are data, with the pandas engine's rules: the part's columns are encoded with
their missing code (:func:`pdanon.encode.missing_as_value`), so the local Mondrian treats
them as it does on pandas frames; a group holding a missing cell in a column publishes that
cell missing (:func:`pdanon.recode.blank_rows`): its members are all missing (missing stays
missing), or it mixes missing and present cells (a suppressed cell: no range or set may
claim to contain a missing value). The per-part statistics count those suppressed cells.

Example
-------
>>> import numpy as np, pandas as pd
>>> from pdanon.dask._plan import Plan, value_table_capped, qi_column
>>> from pdanon.models import KAnonymity
>>> s = pd.Series([30.0, 30.0, np.nan, 40.0], name="age")
>>> q = qi_column("age", "real", s.dtype, value_table_capped(s, None), limit=4096)
>>> plan = Plan([q], {}, KAnonymity(2), False, "balanced", ["age"])
>>> cells, stats, _ = local_columns(plan, {"c0": q.encode(s)})
>>> cells["age"].isna().tolist(), stats["suppressed_cells"]   # {40, missing}: suppressed
([False, False, True, True], 1)
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from pdanon import distributions as _dist
from pdanon._errors import VerificationError
from pdanon.dask._cuts import codes_of, route
from pdanon.dask._plan import Plan, QIColumn

__all__ = ["STATS_META", "local_columns", "local_graph", "stats_frame", "with_attrs"]

#: Per-part statistics: rows, classes, smallest class, sum of squared class sizes, seconds,
#: present cells published missing (suppressed cells) and rows published with every
#: quasi-identifier missing that had one of them suppressed (suppressed rows).
STATS_META = pd.DataFrame({"rows": np.zeros(0, np.int64), "classes": np.zeros(0, np.int64),
                           "k": np.zeros(0, np.int64), "squares": np.zeros(0, np.int64),
                           "seconds": np.zeros(0), "suppressed_cells": np.zeros(0, np.int64),
                           "suppressed_rows": np.zeros(0, np.int64)})


def _empty_stats() -> dict:
    return {c: (0.0 if c == "seconds" else 0) for c in STATS_META.columns}


def stats_frame(stats: dict) -> pd.DataFrame:
    return pd.DataFrame({k: [v] for k, v in stats.items()}).astype(STATS_META.dtypes.to_dict())


def _split(wp: pd.DataFrame, plan: Plan, src: pd.DataFrame | None):
    """Route one partition's rows to parts: one piece (codes, positions) per part."""
    rt = plan.tree_routing
    q = len(plan.qis)
    codes = codes_of(wp, q)
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


def _encoded_column(q: QIColumn, codes: np.ndarray, raw):
    """The part's column as the pandas engine encodes it (missing: a value of its own, last
    in value order) and its plain values (numbers, NaN for missing; ``None`` for
    categories)."""
    from pdanon.encode import EncodedColumn, missing_as_value

    na = codes == q.present_codes if q.has_na else np.zeros(len(codes), dtype=bool)
    value_codes = np.where(na, -1, codes)
    vals = None
    if q.kind == "real":
        vals = q.values_of(codes, raw)
        f = np.asarray(vals, dtype=np.float64)
        if q.binned:  # exact values within the part
            value_codes, uniq = pd.factorize(f, sort=True)
            value_codes, m = np.asarray(value_codes, np.int64), len(uniq)
        else:
            m = q.present_codes
        col = EncodedColumn(q.name, "real", value_codes, pd.RangeIndex(m), f, f, numeric=True)
    elif q.kind == "ordered":
        col = EncodedColumn(q.name, "ordered", value_codes, q.categories, value_codes,
                            value_codes, numeric=q.numeric)
        vals = q.values_of(codes, None) if q.numeric else None
    else:
        col = EncodedColumn(q.name, "unordered", value_codes, q.categories)
    return missing_as_value(col), vals


def _cells(q: QIColumn, col, vals, labels: np.ndarray, groups: int):
    """Generalized cells of one column (groups holding a missing cell publish missing) and
    how many present cells were suppressed."""
    from pdanon.dtype import GeneralizationArray
    from pdanon.recode import blank_rows

    if vals is not None:
        arr = GeneralizationArray.from_groups(vals, labels, kind=q.kind, integer=q.integer)
        plain = vals
    else:
        arr = GeneralizationArray.from_groups(col.value_codes, labels, kind=q.kind,
                                              categories=q.categories)
        plain = pd.Categorical.from_codes(col.value_codes, categories=q.categories)
    blank = blank_rows(col, labels, groups)
    if blank is None:
        blank = np.zeros(len(labels), dtype=bool)
    elif blank.any():
        arr[blank] = None
    # truthful by construction; checked like the engine does: every published range or set
    # holds its original value, and a missing cell is never published as a value
    if not (arr.contains(plain) | blank).all():
        raise VerificationError(f"column {q.name!r}: a generalized cell does not contain its "
                                f"original value; this is a bug in pdanon, please report it")
    suppressed = blank if col.na is None else blank & ~col.na
    return arr, blank, suppressed


def local_columns(plan: Plan, arrays: dict):
    """Local Mondrian on one part's codes -> ({column: GeneralizationArray}, stats, class id
    of every row)."""
    from pdanon._groups import class_labels
    from pdanon.encode import EncodedTable
    from pdanon.partition.mondrian import mondrian_partition

    started = time.perf_counter()
    n = len(arrays["c0"])
    enc_cols, values = [], []
    for j, q in enumerate(plan.qis):
        col, vals = _encoded_column(q, arrays[f"c{j}"].astype(np.int64), arrays.get(f"v{j}"))
        enc_cols.append(col)
        values.append(vals)
    sens_codes = {c: arrays[f"s{i}"].astype(np.int64) for i, c in enumerate(plan.sensitive)}
    enc = EncodedTable(list(enc_cols),
                       sens_codes, n)
    context = None
    if plan.needs_context:
        context = _dist.SensitiveData({
            c: _dist.SensitiveColumn(c, g.column.kind, sens_codes[c], g.column.m,
                                     g.column.has_na, g.column.uniques, g.column.values,
                                     g.column.global_counts)
            for c, g in plan.sensitive.items()})
    labels = mondrian_partition(enc, plan.model, context=context,
                                unordered_split=plan.unordered_split).labels
    groups = int(labels.max()) + 1 if n else 0
    out = {}
    all_blank = np.ones(n, dtype=bool)
    some_suppressed = np.zeros(n, dtype=bool)
    cells = 0
    for q, col, vals in zip(plan.qis, enc_cols, values):
        out[q.name], blank, suppressed = _cells(q, col, vals, labels, groups)
        all_blank &= blank
        some_suppressed |= suppressed
        cells += int(suppressed.sum())
    # the classes of the published cells meet the model (verified on the output, not labels;
    # missing equals missing)
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
             "seconds": time.perf_counter() - started, "suppressed_cells": cells,
             "suppressed_rows": int((all_blank & some_suppressed).sum())}
    return out, stats, published


def _concat(pieces: list, key: str):
    arrs = [p[key] for p in pieces]
    return np.concatenate(arrs) if arrs else np.zeros(0)


def _part_arrays(plan: Plan, pieces) -> dict:
    keys = plan.code_columns + plan.raw_columns + plan.sensitive_columns
    return {k: _concat(list(pieces), k) for k in keys}


def _part_input_order(plan: Plan, *pieces):
    """Part task (order="input"): anonymize; return one back piece per input partition (the
    rows' positions there and their class ids), the stats, and the table of class cells."""
    arrays = _part_arrays(plan, pieces)
    lens = np.array([len(p["pos"]) for p in pieces], dtype=np.int64)
    bounds = np.concatenate([[0], np.cumsum(lens)])
    if bounds[-1] == 0:
        return [None] * len(pieces) + [_empty_stats(), None]
    cols, stats, labels = local_columns(plan, arrays)
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
    arrays = _part_arrays(plan, pieces)
    rows = pd.concat([p["rows"] for p in pieces]) if pieces else None
    out = rows.copy()
    if len(out) == 0:
        stats = _empty_stats()
        for q in plan.qis:
            out[q.name] = pd.Series(pd.array([], dtype=q.out_dtype()), index=out.index)
    else:
        cols, stats, _ = local_columns(plan, arrays)
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


def with_attrs(pdf: pd.DataFrame, attrs: dict) -> pd.DataFrame:
    """A shallow copy of ``pdf`` carrying ``attrs`` (roles and info travel with the frame)."""
    pdf = pdf.copy(deep=False)
    pdf.attrs = dict(attrs)
    return pdf


def _output_meta(ddf, plan: Plan) -> pd.DataFrame:
    meta = ddf._meta[plan.keep].copy()
    for q in plan.qis:
        meta[q.name] = pd.Series(pd.array([], dtype=q.out_dtype()), index=meta.index)
    meta.attrs = dict(plan.attrs)
    return meta


def local_graph(ddf, encoded, plan: Plan, order: str):
    """The lazy output frame and the per-part stats (a lazy Dask frame, one row per part)."""
    import dask
    import dask.dataframe as dd

    out, stats = _local_tasks(ddf, encoded, plan, order)
    stats = dd.from_delayed([dask.delayed(stats_frame)(s) for s in stats], meta=STATS_META,
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
    src_parts = src.to_delayed()
    if order == "input":
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
    splits = [dask.delayed(_split, nout=P)(w, plan_d, s) for w, s in zip(w_parts, src_parts)]
    N = len(splits)
    part_tasks = [dask.delayed(_part_part_order, nout=2)(plan_d, *[splits[i][p]
                                                                   for i in range(N)])
                  for p in range(P)]
    out = dd.from_delayed([t[0] for t in part_tasks], meta=meta, verify_meta=False)
    return out, [t[1] for t in part_tasks]
