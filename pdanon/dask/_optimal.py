"""Optimal full-domain recoding (``algorithm="optimal"``) on Dask.

The lattice search of :mod:`pdanon.partition.optimal` needs, per node, the rows of every
equivalence class (and, for l / t, its sensitive-value counts). Those are sums over the
*finest* classes: the distinct combinations of the quasi-identifiers' values (with the
sensitive values for l / t). So:

1. **Dictionaries** (one pass): the distinct values and counts of every quasi-identifier and
   sensitive column (:func:`pdanon.dask._plan.value_table_capped`), merged in partition order
   (order of first appearance). Each quasi-identifier is encoded over its distinct values with
   :func:`pdanon.encode.encode_column`, so its categories are exactly those pandas builds on
   the whole column (missing: the last code); the sensitive columns are the ones pandas
   builds (:func:`pdanon.dask._metrics.global_sensitive_column`).
2. **Finest counts** (one pass): each partition maps its rows to those codes and counts the
   distinct code tuples, with the first row (partition, position) of each; a tree of
   group-bys merges them. The table of distinct combinations comes to the client, ordered by
   first appearance.
3. **Search** (client): :class:`~pdanon.partition.optimal.LatticeSearch` on the
   combinations, each weighted by its rows (``weights=``): class sizes, suppressed rows, the
   budget and the objectives are row counts, and classes are numbered as on the rows, so the
   search visits the same nodes and chooses the same one as on the pandas frame.
4. **Apply** (one pass, lazy): every partition looks its rows up in small broadcast tables
   (per column: dictionary code → published cell at the chosen level; the failing classes'
   node codes → suppressed) and publishes the cells (suppressed rows: every quasi-identifier
   missing). Cells carry the categories pandas would publish, so every partition has one
   dtype. The rows are then put in a CSPRNG order across partitions under a fresh index
   (:mod:`pdanon.dask._order`; ``row_order="input"`` keeps the input's partitions, index and
   order); ``path=`` writes it to Parquet.
5. **Verification**: the model on the published classes, from the combinations (client) and
   by a distributed group-by on the output (:func:`pdanon.dask._models.verify_output`); the
   suppressed rows are one of the classes (they publish the same blank cells; see
   :mod:`pdanon.partition.suppressed`), as on pandas.

Example
-------
>>> import pandas as pd, dask.dataframe as dd, pdanon, pdanon.dask
>>> from pdanon.hierarchy import intervals
>>> df = pd.DataFrame({"age": [21, 25, 33, 38, 52, 57]})
>>> out = dd.from_pandas(df, npartitions=2).anon.k_anonymize(
...     2, algorithm="optimal", hierarchies={"age": intervals([10, 20])})
>>> out.anon.info["levels"], sorted(out.compute()["age"].astype(str))
({'age': 1}, ['[20, 29]', '[20, 29]', '[30, 39]', '[30, 39]', '[50, 59]', '[50, 59]'])
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, VerificationError
from pdanon.dask import _channels as channels
from pdanon.dask import _households as households
from pdanon.dask._local import with_attrs
from pdanon.dask._metrics import check_dask_frame, global_sensitive_column
from pdanon.dask._models import check_feasible, model_info, needs_context, verify_output
from pdanon.dask._plan import merge_tables, value_table_capped
from pdanon.dask._recode import publish_categoricals
from pdanon.dask._order import publish_order, shuffled_info
from pdanon.roles import foreign_attrs
from pdanon.checks.row_order import check_row_order

__all__ = ["OPTIMAL_OPTIONS", "anonymize_optimal", "combo_table", "merge_combos",
           "publish_partition"]

#: Options of ``algorithm="optimal"`` on Dask (besides ``path``, ``verify``, ``write_options``).
OPTIMAL_OPTIONS = ("hierarchies", "objective", "max_suppressed_rows", "levels", "labels")
#: Rows of a partition addressed within its number (first-appearance keys).
_POS_BITS = 40
#: Per-partition tables merged per task in the tree reduction.
_FAN_IN = 8


# ============================================================================ codes


@dataclass
class _Lookup:
    """Dictionary code of a column's cells: position in ``categories``; missing: the last."""

    name: object
    kind: str
    categories: pd.Index

    def codes(self, series: pd.Series) -> np.ndarray:
        m = len(self.categories)
        if self.kind == "real":
            x = series.to_numpy(dtype=np.float64, na_value=np.nan)
            cats = np.asarray(self.categories, dtype=np.float64)
            codes = np.searchsorted(cats, x)
            na = np.isnan(x)
            bad = ~na & ((codes >= m) | (cats[np.minimum(codes, max(m - 1, 0))] != x)
                         if m else ~na)
        else:
            if isinstance(series.dtype, pd.CategoricalDtype):
                local = series.cat.codes.to_numpy(np.int64)
                uniq = series.cat.categories
            else:
                from pdanon.encode import factorize

                local, uniq = factorize(series.array, where=f"column {self.name!r}")
            pos = self.categories.get_indexer(pd.Index(uniq)) if len(uniq) else \
                np.zeros(0, np.int64)
            na = local < 0
            codes = np.where(na, m, pos[np.maximum(local, 0)] if len(pos) else 0)
            bad = ~na & (codes < 0)
        if bad.any():
            raise InvalidInputError(
                f"column {self.name!r} holds values that were not seen when its dictionary was "
                f"built (the data changed between passes?)")
        return np.where(na, m, codes).astype(np.int64)


def _row_codes(pdf: pd.DataFrame, lookups: list, sensitive: list) -> list:
    """Per quasi-identifier (then sensitive column) the rows' dictionary codes."""
    return ([lk.codes(pdf[lk.name]) for lk in lookups]
            + [g.codes(pdf[g.name]) for g in sensitive])


def combo_table(pdf: pd.DataFrame, number: int, lookups: list, sensitive: list):
    """One partition's distinct code combinations (``c0..``), their rows (``n``) and the first
    row holding each (``first``: partition number and position)."""
    codes = _row_codes(pdf, lookups, sensitive)
    names = [f"c{j}" for j in range(len(codes))]
    frame = pd.DataFrame(dict(zip(names, codes)))
    frame["first"] = (np.int64(number) << _POS_BITS) + np.arange(len(pdf), dtype=np.int64)
    out = frame.groupby(names, sort=False)["first"].agg(["size", "min"]).reset_index()
    return out.rename(columns={"size": "n", "min": "first"})


def merge_combos(*tables) -> pd.DataFrame:
    """Merge combination tables: rows summed, first row the earliest."""
    frame = pd.concat(tables, ignore_index=True)
    names = [c for c in frame.columns if c not in ("n", "first")]
    return frame.groupby(names, sort=False).agg(n=("n", "sum"), first=("first", "min")) \
        .reset_index()


def _collect_combos(ddf, columns, lookups, sensitive) -> pd.DataFrame:
    import dask

    parts = [dask.delayed(combo_table)(p, i, lookups, sensitive)
             for i, p in enumerate(ddf[columns].to_delayed())]
    while len(parts) > 1:
        parts = [dask.delayed(merge_combos)(*parts[i:i + _FAN_IN])
                 for i in range(0, len(parts), _FAN_IN)]
    table = dask.compute(parts[0])[0]
    return table.sort_values("first", kind="stable").reset_index(drop=True)


# ============================================================================ apply


@dataclass
class _Apply:
    """What every partition needs to publish its rows (broadcast once)."""

    lookups: list
    entries: list       # per column: dictionary code -> value entry of the bound hierarchy
    nodes: list         # per column: value entry -> node code at the chosen level
    cells: list         # per column: value entry -> published cell (array)
    radices: list       # node counts at the chosen level
    failing: object     # keys (or a MultiIndex) of the classes that are suppressed
    keep: list
    attrs: dict


def _class_keys(codes: list, radices: list):
    """Keys of node-code tuples: mixed-radix integers, or a MultiIndex when they overflow."""
    total = 1
    for r in radices:
        total *= max(int(r), 1)
    if total < 2 ** 62:
        key = np.zeros(len(codes[0]) if codes else 0, dtype=np.int64)
        for c, r in zip(codes, radices):
            key = key * max(int(r), 1) + c
        return key
    return pd.MultiIndex.from_arrays(codes)


def _in_failing(keys, failing) -> np.ndarray:
    if isinstance(keys, pd.MultiIndex):
        return np.asarray(keys.isin(failing), dtype=bool)
    return np.isin(keys, failing)


def publish_partition(pdf: pd.DataFrame, spec: _Apply) -> pd.DataFrame:
    """One partition published at the chosen levels (suppressed rows: every quasi-identifier
    missing)."""
    out = pdf[spec.keep].copy()
    entries = [e[lk.codes(pdf[lk.name])] for lk, e in zip(spec.lookups, spec.entries)]
    nodes = [nd[e] for nd, e in zip(spec.nodes, entries)]
    suppressed = _in_failing(_class_keys(nodes, spec.radices), spec.failing)
    for lk, e, cells in zip(spec.lookups, entries, spec.cells):
        take = np.where(suppressed, -1, e)
        if isinstance(cells, np.ndarray):  # labels (object)
            arr = np.where(take < 0, None, cells[np.maximum(take, 0)]) if len(cells) else \
                np.full(len(take), None, dtype=object)
            out[lk.name] = arr.astype(object)
        else:
            out[lk.name] = pd.Series(cells.take(take, allow_fill=True), index=out.index)
    out.attrs = dict(spec.attrs)
    return out


def _widened_entries(cell, col, codes, weights, k: int, values, meta):
    """The per-entry cells ``cell`` of ``col`` with the bounds held by fewer than ``k`` rows
    of the whole column widened (:func:`pdanon.recode.bounds.widen_published`; the column's
    counts are its combinations' weights), and the rows whose cell was widened."""
    from pdanon.recode.bounds import widen_published

    counts = np.bincount(codes, weights=weights, minlength=len(values) + 1)[:len(values)]
    new, grown = widen_published(pd.Series(cell), pd.Series([], dtype=meta.dtype), k,
                                 counts=(values, counts.astype(np.int64)))
    if not grown:
        return cell, 0
    moved = np.asarray(new.astype(str)) != np.asarray(pd.Series(cell).astype(str))
    return new.array, int(weights[moved[col.rows]].sum())


def _bounds_info(exact: bool, k: int, widened: dict, columns: list) -> dict:
    import warnings

    from pdanon._errors import user_stacklevel
    from pdanon.recode.bounds import ExactBoundsWarning

    if exact:
        warnings.warn(
            f"exact_bounds=True: the ranges of {columns} end on exact values of the data, some "
            f"held by fewer than {k} rows; leave the option out to widen them "
            f"(pdanon.recode.bounds)", ExactBoundsWarning, stacklevel=user_stacklevel())
        return {"rule": "exact", "k": k}
    return {"rule": f"no bound held by fewer than {k} rows", "k": k,
            "widened_cells": {c: int(n) for c, n in widened.items()}}


def _entry_cells(col, level: int, published: np.ndarray, labels: bool):
    """Per value entry of ``col`` (a ColumnLevels over the combinations) its cell at
    ``level``, with the categories pandas publishes (entries no published row holds are
    missing, as in the pandas output)."""
    from pdanon.recode import published_categories

    entries = len(col.bound.codes[0])
    per_entry = replace(col, rows=np.arange(entries, dtype=np.int64))
    if labels and level:  # the hierarchy's labels, in its order (as pandas publishes them)
        return per_entry.label_cells(level, mask=~published)
    cells = per_entry.cells(level, mask=~published)
    return published_categories(pd.Series(cells)).array


# ============================================================================ driver


def _dictionaries(ddf, roles, qnames, snames):
    import dask

    from pdanon.encode import encode_column, validate_values

    lazies = []
    for c in qnames + snames:
        meta = pd.DataFrame({"v": ddf._meta[c].array[:0], "n": np.zeros(0, np.int64),
                             "over": np.zeros(0, bool)})
        lazies.append(ddf[c].map_partitions(value_table_capped, None, meta=meta))
    tables = dask.compute(*lazies)
    dict_cols = []
    for c, t in zip(qnames, tables):
        uniq, _ = merge_tables(t)
        distinct = pd.Series(uniq, name=c)
        kind = roles.quasi_identifiers[c]
        validate_values(pd.DataFrame({c: distinct}), {c: kind})
        dict_cols.append(encode_column(distinct, kind))
    sensitive = {c: global_sensitive_column(t.drop(columns="over"), roles.sensitive[c], c)
                 for c, t in zip(snames, tables[len(qnames):])}
    n = int(tables[0]["n"].sum())
    collected = sum(int(t.memory_usage(deep=True).sum()) for t in tables)
    return dict_cols, sensitive, n, collected


def _published_classes(cols, cells_id, cells_na, suppressed):
    """Labels of the published classes of the combinations (a cell id per value entry and
    column: equal published cells, equal ids). Suppressed combinations publish blank cells:
    they share the id of a missing cell, so they are one class with every combination
    published blank anyway (pdanon.partition.suppressed)."""
    from pdanon._groups import combine_codes

    ids = []
    for c in range(len(cols)):
        col_ids = cells_id[c][cols[c].rows]
        na = np.flatnonzero(cells_na[c])
        blank_id = int(cells_id[c][na[0]]) if len(na) else int(cells_id[c].max(initial=-1)) + 1
        ids.append(np.where(suppressed, blank_id, col_ids))
    return combine_codes(ids, len(suppressed))


def anonymize_optimal(ddf, roles, *, model, hierarchies=None, objective: str = "loss",
                      max_suppressed_rows=None, levels=None, labels: bool = False, path=None,
                      verify: bool = True, write_options: dict | None = None,
                      row_order: str = "random", seed=None, exact_bounds: bool = False,
                      allow_channels=None, household=None):
    """Optimal full-domain recoding of a Dask DataFrame (module docstring). Returns
    ``(out, info)``; ``out``'s rows are in a CSPRNG order under a fresh index
    (:mod:`pdanon.dask._order`; ``row_order="input"``: the input's partitions, index and order)
    and are those of the pandas ``df.anon.anonymize(model, algorithm="optimal", ...)`` of the
    computed frame. A progress
    bar (:mod:`pdanon.progress`) takes one step per phase: dictionaries, counts, search,
    apply, verification. Before the release is written or returned, the channel rule
    (:func:`pdanon.dask._channels.guard`; ``allow_channels`` as on pandas). ``household``:
    ``(column, ids, k)`` for the household step (:mod:`pdanon.dask._households`)."""
    from pdanon.progress import progress_bar

    check_row_order(row_order)
    # Dask runs are long enough for auto mode's terminal / notebook rule
    with progress_bar(4 + bool(verify), desc="optimal (dask): dictionaries",
                      unit="phase") as bar:
        return _anonymize_optimal(ddf, roles, model, hierarchies, objective,
                                  max_suppressed_rows, levels, labels, path, verify,
                                  write_options, bar, row_order, seed, exact_bounds,
                                  allow_channels, household)


def _anonymize_optimal(ddf, roles, model, hierarchies, objective, max_suppressed_rows, levels,
                       labels, path, verify, write_options, bar, row_order="random", seed=None,
                       exact_bounds=False, allow_channels=None, household=None):
    """:func:`anonymize_optimal`'s phases, reporting each to ``bar``."""
    import dask
    import dask.dataframe as dd

    from pdanon import distributions as dist
    from pdanon._groups import column_codes
    from pdanon.encode import EncodedTable
    from pdanon.partition.common import check_suppression_budget, suppression_budget
    from pdanon.partition.lattice import check_star_columns, hierarchy_map
    from pdanon.partition.optimal import (OBJECTIVES, LatticeSearch, lattice_bounds,
                                          prepare_columns, search_result)

    check_dask_frame(ddf)
    check_suppression_budget(max_suppressed_rows)  # before the first pass over the data
    started = time.perf_counter()
    timings = {}
    if objective not in OBJECTIVES:
        raise InvalidInputError(f"unknown objective {objective!r}; use one of {list(OBJECTIVES)}")
    needs_sens = needs_context(model)
    missing_role = ("quasi_identifiers", "columns") if not roles.qi else (
        ("sensitive", f"{model!r} needs") if needs_sens and not roles.sensitive else None)
    if missing_role:
        raise InvalidInputError(f"no {missing_role[0]} columns ({missing_role[1]} at least "
                                f"one): pass {missing_role[0]}=[...]")
    qnames = list(roles.quasi_identifiers)
    snames = list(roles.sensitive) if needs_sens else []
    keep = [c for c in ddf.columns if c not in set(roles.identifiers)]

    # -- 1. dictionaries -----------------------------------------------------------------
    dict_cols, sensitive, n, collected = _dictionaries(ddf, roles, qnames, snames)
    check_feasible(model, n, sensitive)
    check_star_columns(dict_cols, hierarchies, levels)  # before the counts and the search
    budget = suppression_budget(max_suppressed_rows, n, default=0)
    timings["dictionaries"] = time.perf_counter() - started
    bar.update(1)
    bar.set_description("optimal (dask): counts")

    # -- 2. finest counts ----------------------------------------------------------------
    t0 = time.perf_counter()
    lookups = [_Lookup(c.name, c.kind, c.categories) for c in dict_cols]
    gcols = [sensitive[c] for c in snames]
    table = _collect_combos(ddf, qnames + snames, lookups, gcols)
    collected += int(table.memory_usage(deep=True).sum())
    weights = table["n"].to_numpy(np.int64)
    codes = [table[f"c{j}"].to_numpy(np.int64) for j in range(len(qnames) + len(snames))]
    timings["counts"] = time.perf_counter() - t0
    bar.update(1)
    bar.set_description("optimal (dask): search")

    # -- 3. search -----------------------------------------------------------------------
    t0 = time.perf_counter()
    enc_cols = []
    for col, cd in zip(dict_cols, codes):
        na = cd == len(col.categories)
        enc_cols.append(replace(col, codes=cd, na=na if na.any() else None, lo=None, hi=None))
    cols = prepare_columns(EncodedTable(enc_cols, {}, len(weights)), hierarchies,
                           levels=levels)
    sens = [replace(g.column, codes=cd) for g, cd in zip(gcols, codes[len(qnames):])]
    search = LatticeSearch(cols, model, sens, budget=budget, objective=objective,
                           bounds=lattice_bounds(cols, levels), weights=weights)
    chosen, suppressed, search_info = search_result(search, model, budget)
    timings["search"] = time.perf_counter() - t0
    bar.update(1)
    bar.set_description("optimal (dask): apply")

    # -- published cells, per combination: the figures pandas reports ---------------------
    rows_sup = int(weights[suppressed].sum())
    changed = blanked = 0
    blank = np.ones(len(weights), dtype=bool)
    entries, nodes, cells, cells_id, cells_nas = [], [], [], [], []
    req = model.requirements()
    bound_k, widened, read_off = max(req.min_size, req.min_distinct), {}, []
    given = hierarchy_map(hierarchies)
    for c, col in enumerate(cols):
        level = int(chosen[c])
        n_entries = len(col.bound.codes[0])
        published = np.bincount(col.rows[~suppressed], minlength=n_entries) > 0
        cell = _entry_cells(col, level, published, labels)
        if not labels and level and (col.name not in given or not col.bound.is_declared(level)):
            # read off the data (a '*' without a hierarchy): as pandas, no rare bound
            read_off.append(col.name)
            if not exact_bounds:
                cell, rows = _widened_entries(cell, col, codes[c], weights, bound_k,
                                              dict_cols[c].categories, ddf._meta[col.name])
                if rows:
                    widened[col.name] = rows
        entry = np.full(len(dict_cols[c].categories) + 1, -1, dtype=np.int64)
        entry[codes[c]] = col.rows
        entries.append(entry)
        nodes.append(np.asarray(col.bound.codes[level], dtype=np.int64))
        cells.append(cell)
        cell_na = np.asarray(pd.isna(cell), dtype=bool) if labels else np.asarray(
            cell.isna(), dtype=bool)
        cells_id.append(column_codes(cell, where=f"column {col.name!r}")[0])
        cells_nas.append(cell_na)
        out_na = suppressed | cell_na[col.rows]
        orig_na = col.rows == len(col.bound.values)
        blanked += weights * (out_na & ~orig_na)
        blank &= out_na
        if labels:  # as pandas: a label, also for a missing cell, is a change
            changed += (int(weights[~orig_na | (~cell_na[col.rows] & ~suppressed)].sum())
                        if level > 0 else
                        int(weights[suppressed & ~orig_na].sum()))
        else:  # a cell missing before and after is unchanged; one now "or missing" changed
            plain = col.plain_nodes(level)[col.node_codes(level)]
            changed += int(weights[(~plain | suppressed) & (~orig_na | ~out_na)].sum())
    suppressed_rows = int(weights[blank & (blanked > 0)].sum())
    suppressed_cells = int(np.sum(blanked))

    # the published classes (the suppressed rows are one), checked from the counts
    labels_pub = _published_classes(cols, cells_id, cells_nas, suppressed)
    groups = int(labels_pub.max()) + 1 if len(labels_pub) else 0
    sizes = np.rint(np.bincount(labels_pub, weights=weights, minlength=groups)).astype(np.int64)
    pairs = [dist.PairCounts.from_codes(labels_pub, s.codes, s.m, groups,
                                        weights=weights.astype(np.float64)) for s in sens]
    classes = dist.ClassCounts(sizes, sens if needs_sens else [], pairs if needs_sens else [])
    if groups and not np.asarray(model.classes_ok(classes), dtype=bool).all():
        raise VerificationError(f"a published class does not satisfy {model!r}; this is a bug "
                                "in pdanon, please report it")
    achieved = {"k": int(sizes.min()) if groups else 0, **(model.achieved(classes)
                                                            if groups else {})}

    info = {
        **model_info("optimal (dask)", model, roles, qnames, n),
        "groups": groups,
        "changed_cells": changed,
        "suppressed_rows": suppressed_rows,
        "suppressed_cells": suppressed_cells,
        **search_info,
        "labels": bool(labels),
        "achieved": achieved,
        "combinations": len(weights),
    }
    info["search_seconds"] = timings["search"]
    if read_off:  # as the pandas engine's info["bounds"] (pdanon.recode.bounds)
        info["bounds"] = _bounds_info(exact_bounds, bound_k, widened, read_off)
    shuffled_info(info, row_order)
    allowed = channels.allowed(allow_channels, ddf._meta[keep], roles.qi)
    if allowed:  # recorded in what is written too
        info["channels_allowed"] = allowed
    households.begin(household, info)

    # -- 4. apply ------------------------------------------------------------------------
    t0 = time.perf_counter()
    radices = [col.bound.nodes(int(chosen[c])) for c, col in enumerate(cols)]
    sup_nodes = [nd[col.rows[suppressed]] for nd, col in zip(nodes, cols)]
    failing = _class_keys(sup_nodes, radices)
    failing = failing.unique() if isinstance(failing, pd.MultiIndex) else np.unique(failing)
    attrs = foreign_attrs(ddf._meta.attrs)  # the input's own attrs are not published
    out_roles = roles.restricted_to(keep)
    write_attrs = dict(attrs)
    write_attrs["pdanon"] = {"roles": out_roles.to_dict(), "info": dict(info)}
    spec = _Apply(lookups, entries, nodes, cells, radices, failing, keep, write_attrs)
    meta = publish_partition(ddf._meta, spec)
    out = ddf.map_partitions(publish_partition, dask.delayed(spec, pure=True), meta=meta)
    out = publish_categoricals(out, ddf, roles.qi)  # before anything is written
    out = publish_order(out, row_order, before=ddf, seed=seed)
    if path is None and verify:
        out = out.persist()
    # nothing is written or returned before the channel rule (pdanon.dask._channels)
    req = model.requirements()
    channels.guard(ddf, out, roles.qi, info, k=max(req.min_size, req.min_distinct),
                   allow_channels=allow_channels,
                   sensitive=[*roles.sensitive, *households.skipped(household)])
    out = households.finish(out, household, roles.qi, info, persist=path is None and verify)
    if path is not None:
        out.to_parquet(path, **(write_options or {}))
        result = dd.read_parquet(path)
    else:
        result = out
    timings["apply"] = time.perf_counter() - t0
    bar.update(1)

    # -- 5. verification -----------------------------------------------------------------
    if verify:
        t0 = time.perf_counter()
        bar.set_description("optimal (dask): verification")
        info["verified"] = verify_output(result, qnames, sensitive, model, n)
        timings["verify"] = time.perf_counter() - t0
        bar.update(1)
    timings["total"] = time.perf_counter() - started
    info["timings"] = timings
    info["collected_bytes"] = int(collected)
    info["seconds"] = timings["total"]
    final_attrs = dict(attrs)
    final_attrs["pdanon"] = {"roles": out_roles.to_dict(), "info": info}
    meta = result._meta.copy()
    meta.attrs = final_attrs
    return result.map_partitions(with_attrs, final_attrs, meta=meta), info
