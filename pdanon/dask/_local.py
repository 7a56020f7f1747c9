"""Mondrian on Dask, phase 4: the local Mondrian, one task per part.

Each input partition routes its rows by the cut bounds (:mod:`pdanon.dask._cuts`) and sends
every part only the rows' codes and positions; a part's task runs the single-machine
:func:`~pdanon.partition.mondrian.mondrian_partition` on them, builds the generalized cells
(:meth:`GeneralizationArray.from_groups`, global categories) and verifies its classes. How
the cells reach the output, for every ``method``, is :mod:`pdanon.dask._recode`.

Missing cells are data, with the pandas engine's rules: the part's columns are encoded with
their missing code (:func:`pdanon.encode.missing_as_value`), so the local Mondrian treats
them as it does on pandas frames; a group of missing cells only publishes missing (missing
stays missing), and a group that mixes missing and present cells publishes the cell of its
present values marked "or missing" in all its rows (:func:`pdanon.recode.cover_missing`), so
no present cell is suppressed.

Example
-------
>>> import numpy as np, pandas as pd
>>> from pdanon.dask._plan import Plan, value_table_capped, qi_column
>>> from pdanon.models import KAnonymity
>>> s = pd.Series([30.0, 30.0, np.nan, 40.0], name="age")
>>> q = qi_column("age", "real", s.dtype, value_table_capped(s, None), limit=4096)
>>> plan = Plan([q], {}, KAnonymity(2), False, "balanced", ["age"])
>>> cells, stats, _ = local_columns(plan, {"c0": q.encode(s)})
>>> cells["age"].tolist(), stats["suppressed_cells"]   # {40, missing}: "40 or missing"
([30.0, 30.0, 40 or missing, 40 or missing], 0)
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from pdanon import distributions as _dist
from pdanon._errors import VerificationError
from pdanon.dask._bounds import widen, widens
from pdanon.dask._cuts import codes_of, route
from pdanon.dask._plan import Plan, QIColumn

__all__ = ["STATS_META", "checked_stats", "empty_stats", "encoded_part", "local_columns",
           "part_arrays", "part_groups", "split_rows", "stats_frame", "with_attrs"]

#: Per-part statistics: rows, classes, smallest class, sum of squared class sizes, seconds,
#: present cells published missing (suppressed cells) and rows published with every
#: quasi-identifier missing that had one of them suppressed (suppressed rows), and cells whose
#: published value differs from the input (changed cells, as ``info["changed_cells"]`` of the
#: pandas engine).
STATS_META = pd.DataFrame({"rows": np.zeros(0, np.int64), "classes": np.zeros(0, np.int64),
                           "k": np.zeros(0, np.int64), "squares": np.zeros(0, np.int64),
                           "seconds": np.zeros(0), "suppressed_cells": np.zeros(0, np.int64),
                           "suppressed_rows": np.zeros(0, np.int64),
                           "changed_cells": np.zeros(0, np.int64),
                           "widened_cells": np.zeros(0, np.int64)})


def empty_stats() -> dict:
    return {c: (0.0 if c == "seconds" else 0) for c in STATS_META.columns}


def stats_frame(stats: dict) -> pd.DataFrame:
    return pd.DataFrame({k: [v] for k, v in stats.items()}).astype(STATS_META.dtypes.to_dict())


def split_rows(wp: pd.DataFrame, plan: Plan, src: pd.DataFrame | None):
    """Route one partition's rows to parts: one piece (codes, positions) per part."""
    rt = plan.tree_routing
    q = len(plan.qis)
    codes = codes_of(wp, q)
    part = plan.part_of_node[route(codes, rt)] if len(wp) else np.zeros(0, np.int64)
    order = np.argsort(part, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(part, minlength=plan.parts))])
    cols = plan.code_columns + plan.raw_columns + plan.sensitive_columns
    arrays = {c: wp[c].to_numpy()[order] for c in cols}
    # positions in the partition: 4 bytes per row travel to the part and back
    arrays["pos"] = order.astype(np.int32 if len(order) < 2**31 else np.int64)
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
    """Generalized cells of one column (a group of missing cells publishes missing, one that
    mixes them with present cells its cell "or missing"), the rows published missing and the
    present cells suppressed (none)."""
    from pdanon.dtype import GeneralizationArray
    from pdanon.recode import cover_missing, mixed_rows

    if vals is not None:
        arr = GeneralizationArray.from_groups(vals, labels, kind=q.kind, integer=q.integer)
        plain = vals
    else:
        arr = GeneralizationArray.from_groups(col.value_codes, labels, kind=q.kind,
                                              categories=q.categories)
        plain = pd.Categorical.from_codes(col.value_codes, categories=q.categories)
    mixed = mixed_rows(col, labels, groups)
    if mixed is not None and mixed.any():
        arr = cover_missing(arr, labels, mixed, col.na)
    blank = np.asarray(arr.isna(), dtype=bool)
    # truthful by construction; checked like the engine does: every published range or set
    # holds its original value, and a missing cell is never published as a value
    if not (arr.contains(plain) | blank).all():
        raise VerificationError(f"column {q.name!r}: a generalized cell does not contain its "
                                f"original value; this is a bug in pdanon, please report it")
    suppressed = blank if col.na is None else blank & ~col.na
    return arr, blank, suppressed


def encoded_part(plan: Plan, arrays: dict):
    """One part's codes as the pandas engine encodes them: ``(EncodedTable, columns, plain
    values per column, the model's context)``."""
    from pdanon.encode import EncodedTable

    n = len(arrays["c0"])
    enc_cols, values = [], []
    for j, q in enumerate(plan.qis):
        col, vals = _encoded_column(q, arrays[f"c{j}"].astype(np.int64), arrays.get(f"v{j}"))
        enc_cols.append(col)
        values.append(vals)
    sens_codes = {c: arrays[f"s{i}"].astype(np.int64) for i, c in enumerate(plan.sensitive)}
    enc = EncodedTable(list(enc_cols), sens_codes, n)
    context = None
    if plan.needs_context:
        context = _dist.SensitiveData({
            c: _dist.SensitiveColumn(c, g.column.kind, sens_codes[c], g.column.m,
                                     g.column.has_na, g.column.uniques, g.column.values,
                                     g.column.global_counts)
            for c, g in plan.sensitive.items()})
    return enc, enc_cols, values, context


def part_groups(plan: Plan, arrays: dict):
    """The single-machine Mondrian on one part's codes: ``(columns, plain values, context,
    group label of every row)`` (:func:`encoded_part`)."""
    from pdanon.partition.mondrian import mondrian_partition

    enc, enc_cols, values, context = encoded_part(plan, arrays)
    labels = mondrian_partition(enc, plan.model, context=context,
                                unordered_split=plan.unordered_split).labels
    return enc_cols, values, context, labels


def checked_stats(plan: Plan, classes: np.ndarray, context, started: float, cells: int,
                  suppressed_rows: int, changed: int) -> dict:
    """Verify a part's published classes against the model (a failure is a pdanon bug) and
    return the part's statistics (:data:`STATS_META`)."""
    n = len(classes)
    if n and not np.asarray(plan.model.groups_ok(classes, context), dtype=bool).all():
        raise VerificationError(f"a part's output does not satisfy {plan.model!r}; this is a "
                                f"bug in pdanon, please report it")
    sizes = np.bincount(classes) if n else np.zeros(0, np.int64)
    return {"rows": n, "classes": int(len(sizes)), "k": int(sizes.min()) if n else 0,
            "squares": int((sizes.astype(np.int64) ** 2).sum()),
            "seconds": time.perf_counter() - started, "suppressed_cells": cells,
            "suppressed_rows": suppressed_rows, "changed_cells": changed, "widened_cells": 0}


def local_columns(plan: Plan, arrays: dict):
    """Local Mondrian on one part's codes -> ({column: GeneralizationArray}, stats, class id
    of every row)."""
    from pdanon._groups import class_labels
    from pdanon.recode import constant_groups

    started = time.perf_counter()
    enc_cols, values, context, labels = part_groups(plan, arrays)
    n = len(labels)
    groups = int(labels.max()) + 1 if n else 0
    out = {}
    all_blank = np.ones(n, dtype=bool)
    some_suppressed = np.zeros(n, dtype=bool)
    cells = changed = widened = 0
    for q, col, vals in zip(plan.qis, enc_cols, values):
        out[q.name], blank, suppressed = _cells(q, col, vals, labels, groups)
        if plan.bound_k and widens(q):
            out[q.name], grown = widen(q, out[q.name], plan.bound_k)
            widened += grown
        all_blank &= blank
        some_suppressed |= suppressed
        cells += int(suppressed.sum())
        # cells of a group that is not constant there change (missing cells stay missing)
        varied = ~constant_groups(col, labels, groups)[labels]
        changed += int((varied if col.na is None else varied & ~col.na).sum())
    # the classes of the published cells meet the model (verified on the output, not labels;
    # missing equals missing)
    published = class_labels(pd.DataFrame({q.name: out[q.name] for q in plan.qis}),
                             [q.name for q in plan.qis]) if n else np.zeros(0, np.int64)
    stats = checked_stats(plan, published, context, started, cells,
                          int((all_blank & some_suppressed).sum()), changed)
    stats["widened_cells"] = widened
    return out, stats, published


def _concat(pieces: list, key: str):
    arrs = [p[key] for p in pieces]
    return np.concatenate(arrs) if arrs else np.zeros(0)


def part_arrays(plan: Plan, pieces) -> dict:
    keys = plan.code_columns + plan.raw_columns + plan.sensitive_columns
    return {k: _concat(list(pieces), k) for k in keys}


def with_attrs(pdf: pd.DataFrame, attrs: dict) -> pd.DataFrame:
    """A shallow copy of ``pdf`` carrying ``attrs`` (roles and info travel with the frame)."""
    pdf = pdf.copy(deep=False)
    pdf.attrs = dict(attrs)
    return pdf
