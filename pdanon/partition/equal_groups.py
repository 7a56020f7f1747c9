"""Equal-size value groups per column: the reference's ``GeneralizationGreedyByOneEqualSizedGroups``.

Changes: **partitioning** (per column, not per row: every column is cut on its own) and the
search over group sizes; recoding is done by :mod:`pdanon.recode` on each column's groups.

The rule, as the reference documents it:

* try ``group_size`` = k, k + 1, … (the table as it is first: when it already satisfies the
  model it is returned unchanged and ``group_size`` is 1, every value its own group);
* cut every quasi-identifier column independently into consecutive groups of at least
  ``group_size`` rows: ``real`` / ``ordered`` along the sorted column, a group extended over
  values equal to its last one (a value never straddles two groups); ``unordered`` by taking
  whole distinct values, in a fixed order, until the group holds ``group_size`` rows; a tail
  of fewer than ``group_size`` rows joins the last group;
* every group becomes one generalized cell (``[min, max]`` / the set of its values; a group of
  one value stays plain);
* stop at the first ``group_size`` whose table satisfies the model (k-anonymity, or any model:
  l-diversity, t-closeness). The whole table as one group always does, so the search ends.
  It is not a binary search: a larger group size can break anonymity again.

The reference takes the distinct values of an unordered column in Python ``set`` order (an
arbitrary order that changes between runs for strings). pdanon uses a deterministic order
(``unordered_order=``): ``"frequency"`` (default: most frequent value first, ties by first
appearance - frequent values stay plain, rare values are pooled), or ``"appearance"`` (first
appearance in the table). ``benchmarks/bench_engine.py`` measures both.

Implementation: the value counts of each column are computed once (``bincount`` on codes); a
cut is a walk over cumulative counts with ``searchsorted`` (one step per group, not per row);
the classes of a candidate table come from :func:`pdanon._groups.combine_codes`. Group sizes
that cannot change any cut are skipped: a greedy cut stays the same for every size up to its
smallest group, so the search jumps past it (exact, just faster). Each size still tried costs
a class computation over all rows; on tables with many distinct values the search can try
thousands (about 10,000 sizes, a minute, on 50,000 rows with dates and amounts as
quasi-identifiers), so a progress bar (:mod:`pdanon.progress`) shows the group size reached.

Example
-------
>>> import pandas as pd
>>> from pdanon.encode import encode_table
>>> from pdanon.models import KAnonymity
>>> from pdanon.roles import resolve_roles
>>> df = pd.DataFrame({"a": [1, 1, 2, 2], "d": [1, 1, 2, 3]})
>>> groups, size = equal_group_cuts(encode_table(df, resolve_roles(df)), KAnonymity(2))
>>> size, [g.tolist() for g in groups]
(2, [[0, 1], [0, 1, 1]])
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pdanon.encode import EncodedColumn, EncodedTable
from pdanon._errors import InvalidInputError
from pdanon._groups import combine_codes
from pdanon.partition import register
from pdanon.partition.common import no_progress, sensitive_context, sizes_decide
from pdanon.progress import progress_bar
from pdanon.recode import Recoded

UNORDERED_ORDERS = ("frequency", "appearance")
#: tables from this many rows may show a progress bar (progress=None; see pdanon.progress)
PROGRESS_ROWS = 10_000


# ============================================================================ shared helpers
# (also used by pdanon.partition.datafly: both recode per column from value groups)


def value_counts(col: EncodedColumn) -> np.ndarray:
    """Rows per code of an encoded column."""
    return np.bincount(col.codes, minlength=len(col.categories))


def column_keys(method: str, col: EncodedColumn, group_of_code: np.ndarray,
                counts: np.ndarray):
    """What a column looks like after recoding its value groups with ``method``.

    ``group_of_code`` maps every code of ``col`` to a group (any ints). Returns
    ``(labels, keys, changed)``: per row its compact group label (0..G-1, for
    :mod:`pdanon.recode`), an int key that is equal exactly for rows whose recoded cells are
    equal, and whether its cell changes.
    """
    uniq, compact = np.unique(np.asarray(group_of_code, dtype=np.int64), return_inverse=True)
    compact = compact.reshape(-1)
    ngroups = len(uniq)
    labels = compact[col.codes]
    nvalues = np.bincount(compact, weights=counts > 0, minlength=ngroups)
    multi = nvalues > 1
    # a group holding the missing code publishes missing (pdanon.recode.blank_rows), as
    # every suppressed cell does: one key for all of them; missing cells never change
    blank = np.zeros(ngroups, dtype=bool)
    if col.na is not None and len(compact) > len(col.categories):
        blank[compact[len(col.categories)]] = True
    present = ~col.na if col.na is not None else True
    if method == "generalize":
        key = np.where(blank, ngroups, np.arange(ngroups))
        return labels, key[labels], (multi | blank)[labels] & present
    if method == "suppress":
        key = np.where(multi | blank, ngroups, np.arange(ngroups))  # suppressed: one value
        return labels, key[labels], (multi | blank)[labels] & present
    if method != "aggregate":
        raise ValueError(f"unknown method {method!r}")
    codes = col.codes
    if col.kind == "real":
        # exactly the arithmetic of pdanon.recode.aggregate (bincount over rows in row order)
        from pdanon.recode import group_means

        values = np.asarray(col.lo, dtype=np.float64)
        mean = group_means(values, labels, ngroups)
        mean[blank[labels]] = np.nan
        key, _ = pd.factorize(mean, use_na_sentinel=False)
        return labels, np.asarray(key, np.int64), ~(mean == values) & present
    ncodes = len(counts)
    if col.kind == "ordered":
        # element at position len // 2 of the group's sorted values
        order = np.lexsort((np.arange(ncodes), compact))
        cum = np.cumsum(counts[order])
        size = np.bincount(compact, weights=counts, minlength=ngroups).astype(np.int64)
        start = np.cumsum(size) - size
        at = np.searchsorted(cum, start + size // 2, side="right")
        # a group of unused categories (size 0) has no rows: any in-range pick will do
        pick = order[np.minimum(at, ncodes - 1)]
    else:
        # mode; ties to the value met first in row order (unordered codes follow first
        # appearance, so: the smallest code)
        order = np.lexsort((np.arange(ncodes), -counts, compact))
        head = np.r_[True, compact[order][1:] != compact[order][:-1]]
        pick = np.empty(ngroups, dtype=np.int64)
        pick[compact[order][head]] = order[head]
    new = np.where(blank, ncodes, pick)[labels]  # keys stay >= 0 (combine_codes)
    return labels, new, (new != codes) & present


def recode_columns(method: str, frame: pd.DataFrame, enc: EncodedTable, groups: list,
                   suppressed: np.ndarray | None = None):
    """Output columns for per-column value groups (``groups[j]``: group of every code of
    column j), with ``suppressed`` rows set missing in every quasi-identifier. Returns
    ``(columns, changed_cells)``."""
    from pdanon import recode

    columns = {}
    changed = 0
    for col, group_of_code in zip(enc.columns, groups):
        labels, _, diff = column_keys(method, col, group_of_code, value_counts(col))
        missing = suppressed if suppressed is not None and suppressed.any() else None
        new, count = recode.recode_column(method, frame[col.name], col, labels, missing=missing)
        columns[col.name] = new
        if method == "generalize":  # cells shown from the rows that publish them
            changed += count
            continue
        if missing is not None:
            diff = diff | (missing if col.na is None else missing & ~col.na)
        changed += int(diff.sum())
    return columns, changed


def model_failures(model, labels: np.ndarray, context, k: int, only_k: bool) -> np.ndarray:
    """Boolean per row: does the row's class fail the model?"""
    sizes = np.bincount(labels)
    bad = sizes < k
    if not only_k:
        ok = model.groups_ok(labels, context)
        bad = bad | ~np.asarray(ok, dtype=bool)[: len(sizes)]
    return bad[labels]


def model_parts(model, enc: EncodedTable, context):
    """(k, only_k, context) for a model; the context is built from ``enc`` when missing."""
    only_k = sizes_decide(model)
    if not only_k:
        context = sensitive_context(enc, context)
    return model.requirements().min_size, only_k, context


# ============================================================================ the algorithm


def _cut(counts: np.ndarray, size: int) -> np.ndarray:
    """Group of every position of ``counts`` (rows per value, in cut order): consecutive
    values until a group holds >= size rows; a short tail joins the last group."""
    return _cut_and_slack(counts, size)[0]


def _cut_and_slack(counts: np.ndarray, size: int):
    """:func:`_cut` and the largest group size that gives the same cut (the smallest row
    count among the greedy groups before the tail joins: for any size up to it every greedy
    step ends at the same value)."""
    m = len(counts)
    cum = np.cumsum(counts)
    total = int(cum[-1]) if m else 0
    bounds = []  # last position of each group
    smallest = total
    start = 0  # rows before the current group
    while total - start >= size:
        end = int(np.searchsorted(cum, start + size, side="left"))
        bounds.append(end)
        if end >= m or int(cum[end]) <= start:
            raise no_progress("equal_groups", f"a cut of group size {size} took no value")
        smallest = min(smallest, int(cum[end]) - start)
        start = int(cum[end])
    if not bounds:
        return np.zeros(m, dtype=np.int64), total
    if start < total:
        bounds[-1] = m - 1
    group = np.zeros(m, dtype=np.int64)
    heads = np.asarray(bounds[:-1], dtype=np.int64) + 1
    group[heads] = 1
    return np.cumsum(group), smallest


def _cut_order(col: EncodedColumn, counts: np.ndarray, unordered_order: str) -> np.ndarray:
    """Positions of the codes in cut order."""
    m = len(counts)
    if col.kind != "unordered" or unordered_order == "appearance":
        return np.arange(m)
    return np.lexsort((np.arange(m), -counts))  # most frequent first, ties by code


def equal_group_cuts(enc: EncodedTable, model, *, method: str = "generalize", context=None,
                     unordered_order: str = "frequency"):
    """Search the smallest group size (module docstring). Returns ``(groups, group_size)``,
    ``groups[j]`` the group of every code of column j."""
    if unordered_order not in UNORDERED_ORDERS:
        raise InvalidInputError(
            f"unknown unordered_order {unordered_order!r}; use one of {list(UNORDERED_ORDERS)}"
        )
    n = enc.n
    k, only_k, context = model_parts(model, enc, context)
    counts = [value_counts(col) for col in enc.columns]
    orders = [_cut_order(col, c, unordered_order) for col, c in zip(enc.columns, counts)]
    keys_cache: list = [None] * len(enc.columns)
    groups_prev: list = [None] * len(enc.columns)

    def satisfied(groups) -> bool:
        keys = []
        for j, (col, g) in enumerate(zip(enc.columns, groups)):
            if groups_prev[j] is None or not np.array_equal(g, groups_prev[j]):
                keys_cache[j] = column_keys(method, col, g, counts[j])[1]
                groups_prev[j] = g
            keys.append(keys_cache[j])
        labels = combine_codes(keys, n)
        return not model_failures(model, labels, context, k, only_k).any()

    identity = [np.arange(len(c), dtype=np.int64) for c in counts]
    if satisfied(identity):
        return identity, 1
    size = max(k, 2)
    # the bar counts the group sizes passed, up to n (the whole table as one group); the
    # search usually stops well before, at the first size that satisfies the model
    with progress_bar(n, desc="equal_groups: group size", unit="row",
                      long=n >= PROGRESS_ROWS) as bar:
        bar.update(min(size, n))
        while size <= n:
            groups = []
            same_until = n
            for c, order in zip(counts, orders):
                g = np.empty(len(c), dtype=np.int64)
                g[order], slack = _cut_and_slack(c[order], size)
                groups.append(g)
                same_until = min(same_until, slack)
            if satisfied(groups):
                return groups, size
            # every size up to same_until cuts every column the same way: already rejected
            nxt = max(size, same_until) + 1
            if nxt <= size:  # pragma: no cover - max(...) + 1 always grows
                raise no_progress("equal_groups", f"the group size stayed at {size}")
            bar.update(min(nxt, n) - size)
            size = nxt
    return [np.zeros(len(c), dtype=np.int64) for c in counts], n  # pragma: no cover


@register("equal_groups", options=("unordered_order", "max_suppressed_rows"))
def equal_groups(enc: EncodedTable, model, *, method: str, frame: pd.DataFrame, context=None,
                 unordered_order: str = "frequency", max_suppressed_rows=None):
    """Engine entry point (``algorithm="equal_groups"``). Returns a
    :class:`~pdanon.recode.Recoded`; ``group_size`` is reported in ``info``."""
    if max_suppressed_rows:
        raise InvalidInputError(
            "algorithm='equal_groups' never suppresses rows; drop max_suppressed_rows or use "
            "algorithm='datafly'"
        )
    groups, size = equal_group_cuts(enc, model, method=method, context=context,
                                    unordered_order=unordered_order)
    columns, changed = recode_columns(method, frame, enc, groups)
    return Recoded(columns, changed,
                   info={"group_size": size, "unordered_order": unordered_order},
                   data_bounds=tuple(columns))  # value groups' ranges: the data's values
