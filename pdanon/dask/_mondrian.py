"""Mondrian on Dask: top cuts on the whole data from counts, then local Mondrian per part.

Phases (what runs where is summarized in docs/dask.md); each has its module:

1. **Dictionaries** (one pass, :mod:`pdanon.dask._plan`). Every partition reports the
   distinct values of each quasi-identifier and sensitive column with their counts; the client
   merges them into global codes (``real``: sorted distinct values, or 1,024 quantile bins when
   a column has more than :data:`EXACT_CODES_LIMIT` distinct values; ``ordered``: the
   categories / sorted values; ``unordered``: values in order of first appearance, as pandas'
   ``factorize`` numbers them). Missing cells are a value of their own: the last code of their
   column, after every value (never a quantile bin).
2. **Codes** (one pass, persisted). Each partition becomes small integer codes (1-4 bytes
   per quasi-identifier and sensitive column per row, no index), kept in worker memory while
   the cuts are chosen.
3. **Top cuts** (one or two passes per level over the codes, :mod:`pdanon.dask._cuts`). Each
   partition routes its rows through the cut tree and counts rows per (open part, column,
   code); the client sums these small histograms and applies the rule of
   :mod:`pdanon.partition.mondrian` on them - widest normalized column first (widths
   normalized by the whole table), median cut for real/ordered columns, balanced (or ordered)
   split of unordered categories, a split allowed only when both halves meet the model. For
   l-diversity and t-closeness a second pass counts rows per (part, candidate column, side,
   sensitive value), and the model is evaluated on those counts with the same functions
   pandas uses. Parts with more than ``max_rows_per_part`` rows are split until none is left
   (or none can be split).
   Then, for ``method="generalize"``, what the parts need to widen bounds held by fewer than
   k rows of the whole column (:mod:`pdanon.dask._bounds`: one ``value_counts`` pass for
   binned real columns; the year boundaries dates can widen to).
4. **Local Mondrian** (one task per part, :mod:`pdanon.dask._local`). Each input partition
   routes its rows by the cut bounds and sends every part only the rows' codes and positions;
   a part's task runs the single-machine :func:`~pdanon.partition.mondrian.mondrian_partition`
   on them, recodes its groups by ``method`` (generalized cells, suppression or aggregation,
   :mod:`pdanon.dask._recode`; a group holding a missing cell publishes that cell missing, as
   on pandas) and verifies its classes. The parts run when :func:`anonymize` is called: the
   categories their cells publish fix the output's dtype (no unpublished value stays in it). With ``order="input"`` each row's class id (4 bytes) travels back to the input
   partition it came from, with one small table of the part's class cells; that partition
   inserts the cells at its rows: the output has the input's partitions, divisions, index and
   row order, and the sensitive / insensitive columns never move. With ``order="part"`` each
   part is one output partition (cheaper; index labels kept, row order grouped by part).
   Then, unless ``row_order="input"``, the rows move once more, to a CSPRNG order across
   partitions under a fresh index (:mod:`pdanon.dask._order`), before anything is written.
5. **Verification** on the output (or the written Parquet files): class sizes by a Dask
   group-by on canonical class keys (k; missing equals missing), per-class l / t from (class,
   sensitive value) counts.

Example
-------
>>> import pandas as pd, dask.dataframe as dd, pdanon, pdanon.dask
>>> df = pd.DataFrame({"age": [21, 22, 23, 24, 50, 51, 52, 53]})
>>> ddf = dd.from_pandas(df, npartitions=2)
>>> out = ddf.anon.k_anonymize(2, quasi_identifiers=["age"], max_rows_per_part=4)
>>> sorted(out.compute()["age"].astype(str))  # every age is one person's: widened bounds
['[20, 30]', '[20, 30]', '[20, 30]', '[20, 30]', '[50, 60]', '[50, 60]', '[50, 60]', '[50, 60]']
"""

from __future__ import annotations

import gc
import time

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.encode import unknown_categories
from pdanon.dask._cuts import Tree, joint_pass, reduce_sum, route, top_cuts
from pdanon.dask._local import with_attrs
from pdanon.dask._metrics import global_sensitive_column
from pdanon.dask import _bounds
from pdanon.dask import _channels as channels
from pdanon.dask import _households as households
from pdanon.dask._order import publish_order, shuffled_info
from pdanon.dask._models import (check_feasible, groups_ok_from_counts, model_info,
                                 needs_context, verify_output)
from pdanon.dask._recode import METHODS as RECODE_METHODS
from pdanon.dask._recode import publish_categoricals, recode_graph
from pdanon.dask._plan import (Plan, QIColumn, binned_column, code_dtype, encode_partition,
                               encoded_meta, order_keys, qi_column, value_table_capped)
from pdanon.roles import foreign_attrs
from pdanon.checks.row_order import check_row_order

__all__ = ["BINS", "DEFAULT_MAX_ROWS_PER_PART", "EXACT_CODES_LIMIT", "ORDERS", "Plan",
           "QIColumn", "Tree", "anonymize", "code_dtype", "groups_ok_from_counts", "plan_cuts",
           "route"]

#: Default largest part (rows) handed to one task for the local Mondrian.
DEFAULT_MAX_ROWS_PER_PART = 500_000
#: ``real`` columns with more distinct values are cut on quantile bins in the top phase.
EXACT_CODES_LIMIT = 4096
#: Number of quantile bins of such columns.
BINS = 1024
ORDERS = ("input", "part")


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
        lazies.append(ddf[c].map_partitions(value_table_capped, limit, meta=meta))
    tables = dask.compute(*lazies)
    collected = sum(int(t.memory_usage(deep=True).sum()) for t in tables)
    qis = [qi_column(c, roles.quasi_identifiers[c], ddf._meta[c].dtype, t,
                     limit=EXACT_CODES_LIMIT) for c, t in zip(qnames, tables)]
    for q, t in zip(qis, tables):
        if not isinstance(q, tuple) and isinstance(t["v"].dtype, pd.CategoricalDtype) and \
                not unknown_categories(t["v"].dtype):
            q.data_dtype = t["v"].dtype
    binned = [j for j, q in enumerate(qis) if isinstance(q, tuple)]
    if binned:  # quantiles of the present values (Dask's quantile skips missing cells)
        qs = np.linspace(0, 1, BINS + 1)
        quant = dask.compute(*[ddf[qnames[j]].astype(np.float64).quantile(qs) for j in binned])
        for j, qv in zip(binned, quant):
            qis[j] = binned_column(qnames[j], ddf._meta[qnames[j]].dtype, np.asarray(qv),
                                   has_na=qis[j][1])
    sensitive = {c: global_sensitive_column(t.drop(columns="over"), roles.sensitive[c], c)
                 for c, t in zip(snames, tables[len(qnames):])}
    exact = [t for t in tables if not t["over"].any()]
    n = int(exact[0]["n"].sum()) if exact else None
    attrs = foreign_attrs(ddf._meta.attrs)  # the input's own attrs are not published
    plan = Plan(qis, sensitive, model, needs_ctx, unordered_split, keep, attrs)
    timings["dictionaries"] = time.perf_counter() - started

    # -- 2. codes ------------------------------------------------------------------------
    t0 = time.perf_counter()
    encoded = ddf.map_partitions(encode_partition, plan,
                                 meta=encoded_meta(plan, ddf._meta.index), clear_divisions=True)
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
        parts = [dask.delayed(joint_pass)(w, sets, [q.ncodes for q in qis], m0)
                 for w in encoded.to_delayed()]
        joint = dask.compute(reduce_sum(parts))[0] if parts and sets else []
        order_keys(qis, unordered_split, {j: a.reshape(qis[j].ncodes, m0)
                                           for j, a in zip(sets, joint)})
    else:
        order_keys(qis, unordered_split)
    timings["codes"] = time.perf_counter() - t0

    # -- 3. top cuts ---------------------------------------------------------------------
    t0 = time.perf_counter()
    tree, levels, hist_bytes = top_cuts(encoded, plan, n, max_rows_per_part)
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
        **model_info("mondrian (dask)", model, roles, qnames, n),
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


def anonymize(ddf, roles, *, model, method: str = "generalize",
              max_rows_per_part: int = DEFAULT_MAX_ROWS_PER_PART,
              order: str = "input", unordered_split: str = "balanced", path=None,
              verify: bool = True, write_options: dict | None = None,
              persist_codes: bool = True, row_order: str = "random", seed=None,
              exact_bounds: bool = False, allow_channels=None, household=None):
    """Mondrian on a Dask DataFrame (module docstring). Returns ``(out, info)``.

    ``out`` is a Dask DataFrame: identifiers dropped, quasi-identifiers generalized
    (generalization dtype, global categories), other columns unchanged; with ``row_order=
    "random"`` (default) rows in a CSPRNG order across partitions under a fresh index
    (:mod:`pdanon.dask._order`), with ``"input"`` the input's index and order (``order``
    then tells which partitions).
    ``method="suppress"`` / ``"aggregate"`` recode the same parts' groups as the pandas engine
    does (:mod:`pdanon.dask._recode`; the parts then run when this is called, so that the
    published categories are known for the output's dtype).
    With ``path`` it is written to Parquet there and ``out`` reads it back; otherwise, with
    ``verify=True``, it is persisted in worker memory; with ``verify=False`` it stays lazy.
    Before it is written or returned, every column published unchanged is tested as a channel
    (:func:`pdanon.dask._channels.guard`): one that gives a quasi-identifier back raises
    :class:`~pdanon.ChannelError` unless ``allow_channels`` names it. ``household``:
    ``(column, ids, k)`` for the household step (:mod:`pdanon.dask._households`).

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

    from pdanon.progress import progress_bar

    started = time.perf_counter()
    check_row_order(row_order)
    if order not in ORDERS:
        raise InvalidInputError(f"unknown order {order!r}; use one of {list(ORDERS)}")
    if method not in ("generalize",) + RECODE_METHODS:
        raise InvalidInputError(f"unknown method {method!r}; use one of "
                                f"{['generalize', *RECODE_METHODS]}")
    # one step per phase (dictionaries + codes + cuts, local Mondrian, verification): Dask runs
    # are long enough for auto mode's terminal / notebook rule
    with progress_bar(2 + bool(verify), desc="mondrian (dask): cuts", unit="phase") as bar:
        return _anonymize(ddf, roles, model, method, max_rows_per_part, order,
                          unordered_split, path, verify, write_options, persist_codes, started,
                          bar, row_order, seed, exact_bounds, allow_channels, household)


def _anonymize(ddf, roles, model, method, max_rows_per_part, order, unordered_split, path,
               verify, write_options, persist_codes, started, bar, row_order="random",
               seed=None, exact_bounds=False, allow_channels=None, household=None):
    """:func:`anonymize`'s phases, reporting each to ``bar``."""
    import dask
    import dask.dataframe as dd

    plan, encoded, info = plan_cuts(ddf, roles, model=model, max_rows_per_part=max_rows_per_part,
                                    unordered_split=unordered_split, persist_codes=persist_codes)
    bar.update(1)
    bar.set_description("mondrian (dask): parts")
    timings = info.pop("timings")
    info["method"] = method
    info["order"] = order
    if method == "generalize":
        if not exact_bounds:  # what the parts need to widen every ranged column
            t0 = time.perf_counter()
            req = model.requirements()
            _bounds.prepare(encoded, plan, max(req.min_size, req.min_distinct))
            timings["bounds"] = time.perf_counter() - t0
        info["bounds"] = bounds_info(model, plan, exact_bounds)
    shuffled_info(info, row_order)
    allowed = channels.allowed(allow_channels, ddf._meta[plan.keep], roles.qi)
    if allowed:  # recorded in what is written too
        info["channels_allowed"] = allowed
    households.begin(household, info)
    attrs = plan.attrs
    out_roles = roles.restricted_to(plan.keep)
    plan.attrs = dict(attrs)
    plan.attrs["pdanon"] = {"roles": out_roles.to_dict(), "info": dict(info)}

    # -- 4. local Mondrian ---------------------------------------------------------------
    t0 = time.perf_counter()
    # the parts run now (their published categories fix the output's dtype)
    out, stats = recode_graph(ddf, encoded, plan, order, method)
    out = publish_categoricals(out, ddf, roles.qi)  # before anything is written
    out = publish_order(out, row_order, before=ddf, seed=seed)
    if path is None and verify:
        out = out.persist()
        _wait(out)
    # nothing is written or returned before the channel rule (pdanon.dask._channels)
    req = model.requirements()
    channels.guard(ddf, out, roles.qi, info, k=max(req.min_size, req.min_distinct),
                   allow_channels=allow_channels,
                   sensitive=[*roles.sensitive, *households.skipped(household)],
                   aggregate=method == "aggregate")
    out = households.finish(out, household, roles.qi, info, persist=path is None and verify)
    if path is not None:
        dask.compute(out.to_parquet(path, compute=False, **(write_options or {})))
        result = dd.read_parquet(path)
    else:
        result = out
    del encoded, out
    gc.collect()  # release the persisted codes now (the task graphs hold reference cycles)
    timings["anonymize"] = time.perf_counter() - t0
    bar.update(1)
    if len(stats):
        info["groups"] = int(stats["classes"].sum())
        info["achieved"] = {"k": int(stats.loc[stats["rows"] > 0, "k"].min())
                            if (stats["rows"] > 0).any() else 0}
        info["discernibility"] = int(stats["squares"].sum())
        # present cells published missing (their group mixed missing and present cells), and
        # rows left with every quasi-identifier missing by such cells, as on pandas frames
        info["suppressed_cells"] = int(stats["suppressed_cells"].sum())
        info["suppressed_rows"] = int(stats["suppressed_rows"].sum())
        info["part_seconds"] = float(stats["seconds"].sum())
        info["changed_cells"] = int(stats["changed_cells"].sum())
        if method == "generalize" and plan.bound_k:
            info["bounds"]["widened_cells"] = int(stats["widened_cells"].sum())

    # -- 5. verification -----------------------------------------------------------------
    if verify:
        bar.set_description("mondrian (dask): verification")
        t0 = time.perf_counter()
        info["verified"] = verify_output(result, info["quasi_identifiers"], plan.sensitive,
                                         model, info["rows"])
        timings["verify"] = time.perf_counter() - t0
        bar.update(1)
    timings["total"] = time.perf_counter() - started
    info["timings"] = timings
    info["seconds"] = timings["total"]
    final_attrs = dict(attrs)
    final_attrs["pdanon"] = {"roles": out_roles.to_dict(), "info": info}
    meta = result._meta.copy()
    meta.attrs = final_attrs
    result = result.map_partitions(with_attrs, final_attrs, meta=meta)
    return result, info


def bounds_info(model, plan, exact_bounds: bool) -> dict:
    """``info["bounds"]`` of a Dask Mondrian release, and ``plan.bound_k`` set: the parts
    widen a bound held by fewer than k rows of the whole column, as the pandas engine does
    (:mod:`pdanon.recode.bounds`, :mod:`pdanon.dask._bounds`: the plan's value counts, or the
    common values :func:`pdanon.dask._bounds.prepare` counted, are the whole column's).
    Bounds left exact (``exact_bounds=True``, or a column :func:`pdanon.dask._bounds.widens`
    does not cover) are said with an :class:`~pdanon.recode.bounds.ExactBoundsWarning`
    naming the columns."""
    import warnings

    from pdanon._errors import user_stacklevel
    from pdanon.dask._bounds import widens
    from pdanon.recode.bounds import ExactBoundsWarning

    req = model.requirements()
    k = max(req.min_size, req.min_distinct)
    ranged = [q for q in plan.qis if not q.is_set]
    exact = [q.name for q in ranged] if exact_bounds else [q.name for q in ranged
                                                           if not widens(q)]
    plan.bound_k = 0 if exact_bounds else k
    if exact:
        why = ("exact_bounds=True" if exact_bounds else
               "their whole-column counts were not collected (docs/dask.md)")
        warnings.warn(
            f"Mondrian on Dask publishes ranges of {exact} that end on exact values of the "
            f"data, some held by fewer than {k} rows (a column's extremes are often one "
            f"person's value): {why}; compute() the frame and use df.anon, which widens them "
            f"(pdanon.recode.bounds)", ExactBoundsWarning, stacklevel=user_stacklevel())
    if exact_bounds:
        return {"rule": "exact", "k": k}
    out = {"rule": f"no bound held by fewer than {k} rows", "k": k, "widened_cells": 0}
    if exact:
        out["exact_columns"] = exact
    return out


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


