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

   * a missing value is a value of its own that merges last (only when it and one group
     are left), so missing cells stay missing until the column is fully generalized; a
     group mixing missing and present cells publishes suppressed cells
     (:func:`pdanon.recode.blank_rows`);

3. then suppress (every quasi-identifier → missing) the rows still in failing classes.

The whole table as one class satisfies the model (the engine checks feasibility first), so the
loop ends. Suppressed rows form no class of their own: like ARX and Sweeney's Datafly, the
model is verified on the rows that are published with quasi-identifiers, and the count is in
``info["suppressed_rows"]``.

``max_suppressed_rows``: an int count, or a float in [0, 1) as a fraction of the rows.

Implementation: each column keeps the group of every value code; one step touches one column
(group counts by ``bincount`` over value counts). The steps do not depend on the classes, and
for k-anonymity and distinct l-diversity (with generalization or suppression) a step only
merges classes, so the number of failing rows never grows: the stopping step is found by
galloping and bisection, with O(log steps) class computations (one ``np.sort`` of mixed-radix
int64 row keys each). Other models check every step. No per-row Python.

Example
-------
>>> import pandas as pd
>>> from pdanon.encode import encode_table
>>> from pdanon.models import KAnonymity
>>> from pdanon.roles import resolve_roles
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

from pdanon.encode import EncodedTable
from pdanon._errors import InfeasibleError
from pdanon._groups import combine_codes
from pdanon.partition import register
from pdanon.partition.common import no_progress, suppression_budget
from pdanon.partition.suppressed import plan
from pdanon.recode import Recoded
from pdanon.partition.equal_groups import (
    column_keys,
    model_failures,
    model_parts,
    recode_columns,
    value_counts,
)


def _merge_pair(kind: str, reps: np.ndarray, sizes: np.ndarray) -> tuple[int, int]:
    """The two groups one Datafly step merges in a column, given the column's groups in code
    order (``reps``: each group's representative, its smallest code; ``sizes``: its rows).
    Returns representatives ``(a, b)``, a < b: the codes of group b join group a."""
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
    return int(a), int(b)


class _Steps:
    """Datafly's generalization steps. They do not depend on the classes (the column is chosen
    by its distinct count, the values by their counts), so they can be generated ahead of the
    stopping test and replayed. Codes with no rows (unused categories) take no part."""

    def __init__(self, enc: EncodedTable, counts: list):
        self.kinds = [col.kind for col in enc.columns]
        self.groups = [np.arange(len(c), dtype=np.int64) for c in counts]
        self.alive = [c > 0 for c in counts]  # group representatives (codes with rows)
        self.sizes = [c.astype(np.int64) for c in counts]  # rows per representative
        self.distinct = np.array([int(np.count_nonzero(c)) for c in counts])
        # the missing value (code len(categories)) merges last: only with the one group left
        self.na_code = [len(col.categories) if col.na is not None else -1 for col in enc.columns]

    def exhausted(self) -> bool:
        return int(self.distinct.max()) <= 1

    def next(self) -> tuple[int, int, int]:
        """Take one step on the state; return it as (column, a, b)."""
        j = int(np.argmax(self.distinct))  # most distinct values; ties to the leftmost column
        reps = np.flatnonzero(self.alive[j])
        if len(reps) > 2 and self.na_code[j] >= 0:
            reps = reps[reps != self.na_code[j]]
        sizes = self.sizes[j]
        a, b = _merge_pair(self.kinds[j], reps, sizes[reps])
        if a == b or not (self.alive[j][a] and self.alive[j][b]):
            raise no_progress("datafly", f"the step on column {j} merged no two value groups")
        self.groups[j] = np.where(self.groups[j] == b, a, self.groups[j])
        sizes[a] += sizes[b]
        sizes[b] = 0
        self.alive[j][b] = False
        self.distinct[j] -= 1
        return j, a, b


def _replay(groups: list, steps: list) -> list:
    out = list(groups)
    for j, a, b in steps:
        out[j] = np.where(out[j] == b, a, out[j])
    return out


def datafly_groups(enc: EncodedTable, model, *, method: str = "generalize", context=None,
                   max_suppressed_rows=None):
    """Run Datafly (module docstring). Returns ``(groups, suppressed, steps)``: ``groups[j]``
    the group (representative code) of every code of column j, a boolean mask of suppressed
    rows, and the number of generalization steps.

    For k-anonymity and distinct l-diversity with generalization or suppression, a step only
    merges classes, so the number of failing rows never grows: the first step within the
    budget is found by galloping and bisection (O(log steps) class computations). Otherwise
    every step is checked in turn.
    """
    n = enc.n
    k, only_k, context = model_parts(model, enc, context)
    budget = suppression_budget(max_suppressed_rows, n, default=k - 1)
    cols = enc.columns
    counts = [value_counts(col) for col in cols]
    radix = [len(c) + 1 for c in counts]
    mixed = float(np.prod([float(r) for r in radix])) < 2.0**62
    weight = np.cumprod([1] + radix[:-1]).astype(np.int64) if mixed else None

    def keys_of(groups: list, j: int) -> np.ndarray:
        if method == "generalize":  # the representative code is the recoded cell's key
            return groups[j][cols[j].codes]
        return column_keys(method, cols[j], groups[j], counts[j])[1]

    def row_key(keys: list) -> np.ndarray:
        return sum(kj * w for kj, w in zip(keys, weight))

    def failing_rows(keys: list) -> np.ndarray:
        if mixed:
            _, labels, sizes = np.unique(row_key(keys), return_inverse=True,
                                         return_counts=True)
            labels = labels.reshape(-1)
            failing = sizes[labels] < k
            if not only_k:
                failing |= ~np.asarray(model.groups_ok(labels, context), dtype=bool)[labels]
            return failing
        return model_failures(model, combine_codes(keys, n), context, k, only_k)

    def failing_count(keys: list, key: np.ndarray | None = None) -> int:
        if mixed and only_k:  # class sizes from the sorted keys alone (no inverse needed)
            srt = np.sort(row_key(keys) if key is None else key)
            edges = np.flatnonzero(srt[1:] != srt[:-1]) + 1
            runs = np.diff(np.concatenate([[0], edges, [n]]))
            return int(runs[runs < k].sum())
        return int(failing_rows(keys).sum())

    def blank_rows(groups: list) -> np.ndarray:
        """Rows published blank in every column (their group holds the missing value, or
        ``method="suppress"`` blanks their group of several values)."""
        blank = np.ones(n, dtype=bool)
        for j, col in enumerate(cols):
            g = groups[j]
            per_code = np.zeros(len(g), dtype=bool)
            if state.na_code[j] >= 0:
                per_code |= g == g[state.na_code[j]]
            if method == "suppress":
                nvalues = np.bincount(g, weights=counts[j] > 0, minlength=len(g))
                per_code |= nvalues[g] > 1
            blank &= per_code[col.codes]
        return blank

    def planned(groups: list, keys: list) -> np.ndarray:
        """The rows to suppress (pdanon.partition.suppressed.plan): those of failing classes
        and, when needed, of the smallest satisfying classes, so that the suppressed rows
        with the blank ones form a class that meets the model."""
        from pdanon.distributions import ClassCounts

        labels = (np.unique(row_key(keys), return_inverse=True)[1].reshape(-1) if mixed
                  else combine_codes(keys, n))
        first = np.full(int(labels.max()) + 1, n, dtype=np.int64)
        np.minimum.at(first, labels, np.arange(n))
        classes = ClassCounts.from_labels(labels, None if only_k else context)
        ok = classes.sizes >= k
        if not only_k:
            ok &= np.asarray(model.classes_ok(classes), dtype=bool)
        blank = blank_rows(groups)
        blank_label = int(labels[np.flatnonzero(blank)[0]]) if blank.any() else None
        return plan(classes, ok, model, blank=blank_label, first=first)[labels]

    def step(groups: list, move) -> list:
        j, a, b = move
        out = list(groups)
        out[j] = np.where(out[j] == b, a, out[j])
        return out

    state = _Steps(enc, counts)
    monotone = method in ("generalize", "suppress") and (
        only_k or model.requirements().parts_monotone)
    pending: list = []  # steps already generated beyond the current groups
    if monotone:
        base = list(state.groups)  # the state after `done` steps fails the budget
        done = 0
        if failing_count([keys_of(base, j) for j in range(len(cols))]) <= budget:
            final = base
        else:
            width = 1
            while True:  # gallop: 1, 2, 4, ... steps ahead
                ahead = []
                while len(ahead) < width and not state.exhausted():
                    ahead.append(state.next())
                keys = [keys_of(state.groups, j) for j in range(len(cols))]
                if state.exhausted() or failing_count(keys) <= budget:
                    break
                base, done, width = list(state.groups), done + len(ahead), 2 * width
            lo, hi = 0, len(ahead)  # after `hi` steps of `ahead` the budget holds
            while hi - lo > 1:
                mid = (lo + hi) // 2
                trial = _replay(base, ahead[:mid])
                if failing_count([keys_of(trial, j) for j in range(len(cols))]) <= budget:
                    hi = mid
                else:
                    lo = mid
            final, done, pending = _replay(base, ahead[:hi]), done + hi, ahead[hi:]
        groups, steps = final, done
    else:
        groups, steps = state.groups, 0
    keys = [keys_of(groups, j) for j in range(len(cols))]
    key = row_key(keys) if mixed and not monotone else None
    while True:
        # failing rows are necessary suppressions: only within the budget is the plan asked
        if failing_count(keys, key) <= budget:
            suppressed = planned(groups, keys)
            if int(suppressed.sum()) <= budget:
                return groups, suppressed, steps
        if pending:
            move = pending.pop(0)
            groups = step(groups, move)
        elif not state.exhausted():
            # generate on the state (it holds the groups of `groups` once `pending` is used)
            move = state.next()
            groups = list(state.groups)
        else:
            raise InfeasibleError(
                f"datafly generalized every quasi-identifier to one value and still cannot "
                f"publish {model!r} within max_suppressed_rows={budget}; this is a bug in "
                f"pdanon, please report it")
        j = move[0]
        new_keys = keys_of(groups, j)
        if key is not None:
            key += (new_keys - keys[j]) * weight[j]
        keys[j] = new_keys
        steps += 1


@register("datafly", options=("max_suppressed_rows",))
def datafly(enc: EncodedTable, model, *, method: str, frame: pd.DataFrame, context=None,
            max_suppressed_rows=None) -> Recoded:
    """Engine entry point (``algorithm="datafly"``): global recoding of value groups, then
    suppression of the rows left in failing classes (at most ``max_suppressed_rows``)."""
    groups, suppressed, steps = datafly_groups(enc, model, method=method, context=context,
                                               max_suppressed_rows=max_suppressed_rows)
    columns, changed = recode_columns(method, frame, enc, groups, suppressed)
    budget = suppression_budget(max_suppressed_rows, enc.n,
                                default=model.requirements().min_size - 1)
    return Recoded(columns, changed, int(suppressed.sum()), suppressed=suppressed,
                         info={"steps": steps, "max_suppressed_rows": budget})
