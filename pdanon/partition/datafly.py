"""Datafly (Sweeney 1997/2002) with an automatically built value hierarchy.

Changes: **partitioning** as *global recoding*: a column's values are merged into value groups
(every row with the same value gets the same generalized cell), plus suppression of whole rows
within a budget. The privacy model says which classes are acceptable; recoding of the value
groups is done by :mod:`pdanon.recode`.

The rule, as the reference (cp2025's ``Datafly``) documents and computes it:

1. while more than ``max_suppressed_rows`` rows (default ``k − 1``) lie in equivalence classes
   that fail the model (fewer than k rows; for l-diversity / t-closeness also classes that are
   not diverse / close enough):
2. take the quasi-identifier with the most distinct (current, generalized) values - ties go to
   the leftmost column - and generalize it one step:

   * ``unordered``: merge the two rarest values into one set. Ties: among equally rare values
     the one that appears first in the table (the reference takes Python ``set`` order,
     which is arbitrary for strings);
   * ``real`` / ``ordered``: merge the rarest value (the smallest one among equally rare
     values) with the rarer of its two neighbours in sorted order (the lower neighbour on a
     tie; the only neighbour at either end) into a range;

3. then suppress (every quasi-identifier → missing) the rows still in failing classes.

The whole table as one class satisfies the model (the engine checks feasibility first), so the
loop ends. Suppressed rows form no class of their own: like ARX and Sweeney's Datafly, the
model is verified on the rows that are published with quasi-identifiers, and the count is in
``info["suppressed_rows"]``.

``max_suppressed_rows``: an int count, or a float in [0, 1) as a fraction of the rows.

Implementation: each column keeps the group of every value code; one step touches one column:
group counts by ``bincount`` over value counts, the column's new keys in one gather, the row
keys (mixed radix over the columns) updated for that column only, and the classes by one
``np.unique`` of the row keys. O(n log n) per step, no per-row Python.

Example
-------
>>> import pandas as pd
>>> from pdanon._encode import encode_table
>>> from pdanon.models import KAnonymity
>>> from pdanon.schema import resolve_roles
>>> df = pd.DataFrame({"a": [1, 1, 2, 2], "d": [1, 1, 2, 3]})
>>> groups, suppressed, steps = datafly_groups(encode_table(df, resolve_roles(
...     df, quasi_identifiers={"a": "real", "d": "real"})), KAnonymity(2))
>>> [g.tolist() for g in groups], int(suppressed.sum()), steps
([[0, 1], [0, 1, 1]], 0, 1)
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from pdanon._encode import EncodedTable
from pdanon._errors import InvalidInputError
from pdanon._groups import combine_codes
from pdanon.partition import register
from pdanon.partition.equal_groups import (
    ColumnRecoded,
    column_keys,
    model_failures,
    model_parts,
    recode_columns,
    value_counts,
)


def suppression_budget(max_suppressed_rows, n: int, k: int) -> int:
    """Rows that may be suppressed: ``None`` → k − 1; an int → itself; a float in [0, 1) → that
    fraction of ``n`` (rounded down)."""
    if max_suppressed_rows is None:
        return k - 1
    v = max_suppressed_rows
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise InvalidInputError(
            f"max_suppressed_rows must be a row count (int >= 0) or a fraction in [0, 1), "
            f"got {v!r}"
        )
    if isinstance(v, numbers.Integral):
        if v < 0:
            raise InvalidInputError(f"max_suppressed_rows must be >= 0, got {v}")
        return int(v)
    if not 0 <= v < 1:
        raise InvalidInputError(
            f"max_suppressed_rows={v!r}: a float is a fraction of the rows and must lie in "
            f"[0, 1); pass an int for a row count"
        )
    return int(np.floor(v * n))


def _merge_step(kind: str, group: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """One Datafly generalization step on a column. ``group`` maps every code to its group
    representative (the smallest code of the group); returns the new mapping."""
    reps = np.unique(group)  # representatives in code order
    sizes = np.bincount(group, weights=counts, minlength=len(group))[reps]
    if kind == "unordered":
        # two rarest, ties by representative (= first appearance for unordered codes)
        two = np.lexsort((reps, sizes))[:2]
        a, b = np.sort(reps[two])
    else:
        i = int(np.argmin(sizes))  # the rarest; ties to the smallest value
        if i == 0:
            j = 1
        elif i == len(reps) - 1:
            j = i - 1
        else:
            j = i - 1 if sizes[i - 1] <= sizes[i + 1] else i + 1
        a, b = reps[min(i, j)], reps[max(i, j)]
    return np.where(group == b, a, group)


def datafly_groups(enc: EncodedTable, model, *, method: str = "generalize", context=None,
                   max_suppressed_rows=None):
    """Run Datafly (module docstring). Returns ``(groups, suppressed, steps)``: ``groups[j]``
    the group (representative code) of every code of column j, a boolean mask of suppressed
    rows, and the number of generalization steps."""
    n = enc.n
    k, only_k, context = model_parts(model, enc, context)
    budget = suppression_budget(max_suppressed_rows, n, k)
    cols = enc.columns
    counts = [value_counts(col) for col in cols]
    groups = [np.arange(len(c), dtype=np.int64) for c in counts]

    def keys_of(j: int) -> np.ndarray:
        if method == "generalize":  # the representative code is the recoded cell's key
            return groups[j][cols[j].codes]
        return column_keys(method, cols[j], groups[j], counts[j])[1]

    keys = [keys_of(j) for j in range(len(cols))]
    # one int64 key per row (mixed radix over the column keys, each < its code count + 1),
    # updated column by column; too many combinations for int64 -> re-combine every step
    radix = [len(c) + 1 for c in counts]
    mixed = int(np.prod([float(r) for r in radix])) < 2**62
    if mixed:
        weight = np.cumprod([1] + radix[:-1]).astype(np.int64)
        row_key = sum(kj * w for kj, w in zip(keys, weight))
    distinct = np.array([int(np.count_nonzero(c)) for c in counts])
    def failing_rows() -> np.ndarray:
        if mixed:
            _, labels, sizes = np.unique(row_key, return_inverse=True, return_counts=True)
            labels = labels.reshape(-1)
            failing = sizes[labels] < k
            if not only_k:
                failing |= ~np.asarray(model.groups_ok(labels, context), dtype=bool)[labels]
            return failing
        return model_failures(model, combine_codes(keys, n), context, k, only_k)

    def failing_count() -> int:
        if mixed and only_k:  # class sizes from the sorted keys alone (no inverse needed)
            srt = np.sort(row_key)
            edges = np.flatnonzero(srt[1:] != srt[:-1]) + 1
            runs = np.diff(np.concatenate([[0], edges, [n]]))
            return int(runs[runs < k].sum())
        return int(failing_rows().sum())

    steps = 0
    while True:
        if failing_count() <= budget or distinct.max() <= 1:
            break
        j = int(np.argmax(distinct))  # most distinct values; ties to the leftmost column
        groups[j] = _merge_step(cols[j].kind, groups[j], counts[j])
        distinct[j] -= 1
        new = keys_of(j)
        if mixed:
            row_key += (new - keys[j]) * weight[j]
        keys[j] = new
        steps += 1
    return groups, failing_rows(), steps


@register("datafly")
def datafly(enc: EncodedTable, model, *, method: str, frame: pd.DataFrame, context=None,
            max_suppressed_rows=None, **options) -> ColumnRecoded:
    """Engine entry point (``algorithm="datafly"``): global recoding of value groups, then
    suppression of the rows left in failing classes (at most ``max_suppressed_rows``)."""
    from pdanon.partition.mondrian import _reject_options

    _reject_options(options, "datafly")
    groups, suppressed, steps = datafly_groups(enc, model, method=method, context=context,
                                               max_suppressed_rows=max_suppressed_rows)
    columns, changed = recode_columns(method, frame, enc, groups, suppressed)
    budget = suppression_budget(max_suppressed_rows, enc.n,
                                model_parts(model, enc, context)[0])
    return ColumnRecoded(columns, changed, int(suppressed.sum()), suppressed=suppressed,
                         info={"steps": steps, "max_suppressed_rows": budget})
