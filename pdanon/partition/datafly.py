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
     group mixing missing and present cells publishes the cell of its present values marked
     "or missing" (``{a, b} or missing``: :func:`pdanon.recode.mixed_rows`), or, with
     ``method="suppress"``, suppressed cells;

3. then suppress (every quasi-identifier → missing) the rows still in failing classes.

The suppressed rows are one class of their own, which must meet the model too
(:mod:`pdanon.partition.suppressed`): step 1's test is the *planned* suppression — the
failing rows and, when they alone would violate the model (fewer than k), the smallest
satisfying classes — within the budget. The whole table as one class satisfies the model
(the engine checks feasibility first), so the loop ends. The count is in
``info["suppressed_rows"]``.

``max_suppressed_rows``: an int count, or a float strictly between 0 and 1 as a fraction of
the rows (1.0, 0.0, 5.0 are refused as ambiguous: pass 1, 0 or 5 rows as ints).

Implementation: each column keeps the group of every value code. The steps do not depend on
the classes: each column's merges come from a heap of (rows, representative) keys (plus, for
real / ordered columns, a linked list of the groups in value order), O(log D) a merge, and the
group of every code is rebuilt only when a stopping test needs it, by pointer jumping over the
merges since (O(D log D)); so D steps cost O(D log D), not O(D²). Then,
for k-anonymity and distinct l-diversity (with generalization or suppression) a step only
merges classes, so the number of failing rows never grows: the stopping step is found by
galloping and bisection, with O(log steps) class computations (one ``np.sort`` of mixed-radix
int64 row keys each). Other models check every step (one class computation each: with many
distinct values, e.g. dates or amounts as quasi-identifiers, that is tens of thousands of steps
and minutes; a progress bar, :mod:`pdanon.progress`, counts the steps). No per-row Python.

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

import heapq

import numpy as np
import pandas as pd

from pdanon.encode import EncodedTable
from pdanon._errors import InfeasibleError
from pdanon._groups import combine_codes
from pdanon.partition import register
from pdanon.partition.common import no_progress, suppression_budget
from pdanon.partition.suppressed import plan
from pdanon.progress import progress_bar
from pdanon.recode import Recoded
from pdanon.partition.equal_groups import (
    column_keys,
    model_failures,
    model_parts,
    recode_columns,
    value_counts,
)

#: rows x possible generalization steps from which Datafly may show a progress bar
#: (progress=None; see pdanon.progress)
PROGRESS_WORK = 10_000_000


def _unordered_merges(sizes: list, reps: list, na: int):
    """Datafly's merges of an unordered column, in order: the two rarest groups (ties by
    representative, the smallest code: first appearance), the missing value (``na``, -1 for
    none) last. One heap of ``size * radix + representative`` keys: O(log D) a merge."""
    radix = (max(reps) + 1) if reps else 1
    heap = [sizes[r] * radix + r for r in reps if r != na]
    heapq.heapify(heap)
    while len(heap) > 1:
        sa, ra = divmod(heapq.heappop(heap), radix)
        sb, rb = divmod(heapq.heappop(heap), radix)
        a, b = (ra, rb) if ra < rb else (rb, ra)
        yield a, b
        heapq.heappush(heap, (sa + sb) * radix + a)
    if na >= 0 and heap:  # the missing value merges last, with the one group left
        yield heap[0] % radix, na


def _ordered_merges(sizes: list, reps: list, na: int):
    """Datafly's merges of a real / ordered column, in order: the rarest group (ties: the
    smallest value) with the rarer of its neighbours in value order (the lower on a tie; the
    only one at an end), the missing value (``na``) last. A heap of ``(size, representative)``
    keys (stale entries skipped) and a linked list of the groups in value order."""
    reps = [r for r in reps if r != na]
    radix = (max(reps) + 1) if reps else 1
    size = sizes  # rows per representative (its own list); -1 once merged into another
    prev, nxt = [-1] * radix, [-1] * radix
    for a, b in zip(reps, reps[1:]):
        nxt[a], prev[b] = b, a
    heap = [size[r] * radix + r for r in reps]
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    for _ in range(len(reps) - 1):
        while True:
            s, r = divmod(pop(heap), radix)
            if size[r] == s:
                break  # else stale: the group merged since (its size grew, or it is gone)
        p, q = prev[r], nxt[r]
        other = q if p < 0 else p if q < 0 else (p if size[p] <= size[q] else q)
        a, b = (r, other) if r < other else (other, r)  # neighbours: b follows a
        yield a, b
        size[a] += size[b]
        size[b] = -1
        after = nxt[b]
        nxt[a] = after
        if after >= 0:
            prev[after] = a
        push(heap, size[a] * radix + a)
    if na >= 0 and reps:
        yield reps[0], na  # the one group left keeps the smallest representative


def _replay(groups: list, steps) -> list:
    """``groups`` (per column, the group of every code) after ``steps`` ``(j, a, b)`` in
    order (group b joins group a): per column, b's parent is a, and every code follows the
    parents to its root by pointer jumping (O(D log D) per column, whatever the steps)."""
    out = list(groups)
    if len(steps) == 1:  # one step (every step of the models checked step by step)
        j, a, b = steps[0]
        out[j] = np.where(out[j] == b, a, out[j])
        return out
    if not len(steps):
        return out
    arr = np.asarray(steps, dtype=np.int64).reshape(-1, 3)
    for j in np.unique(arr[:, 0]).tolist():
        mine = arr[arr[:, 0] == j]
        parent = np.arange(len(out[j]), dtype=np.int64)
        parent[mine[:, 2]] = mine[:, 1]
        while True:
            up = parent[parent]
            if np.array_equal(up, parent):
                break
            parent = up
        out[j] = parent[out[j]]
    return out


class _Steps:
    """Datafly's generalization steps. They do not depend on the classes (the column is chosen
    by its distinct count, the values by their counts), so they can be generated ahead of the
    stopping test and replayed. Codes with no rows (unused categories) take no part.

    Each column's merges come from its own generator (a heap per column, O(log D) a merge);
    the column of each step is the one with the most groups left (ties to the leftmost), a
    heap of ``(-groups, column)``. ``groups`` (every code's representative) is built on demand
    from the steps taken since it was last built (:func:`_replay`), so D steps cost
    O(D log D), not O(D²)."""

    def __init__(self, enc: EncodedTable, counts: list):
        self._groups = [np.arange(len(c), dtype=np.int64) for c in counts]
        self._pending: list = []
        distinct = [int(np.count_nonzero(c)) for c in counts]
        self._merges = []
        for col, c in zip(enc.columns, counts):
            # the missing value (code len(categories)) merges last: only with the one group left
            na = len(col.categories)
            na = na if col.na is not None and len(c) > na and c[na] > 0 else -1
            reps = np.flatnonzero(c).tolist()
            make = _unordered_merges if col.kind == "unordered" else _ordered_merges
            self._merges.append(make(c.astype(np.int64).tolist(), reps, na))
        self._order = [(-d, j) for j, d in enumerate(distinct) if d > 1]
        heapq.heapify(self._order)

    @property
    def groups(self) -> list:
        if self._pending:
            self._groups = _replay(self._groups, self._pending)
            self._pending = []
        return self._groups

    def exhausted(self) -> bool:
        return not self._order

    def next(self) -> tuple[int, int, int]:
        """Take one step on the state; return it as (column, a, b)."""
        d, j = self._order[0]  # most distinct values; ties to the leftmost column
        step = next(self._merges[j], None)
        if step is None or not step[0] < step[1]:  # a step merges group b into group a < b
            raise no_progress("datafly", f"the step on column {j} merged no two value groups")
        if d + 1 < -1:
            heapq.heapreplace(self._order, (d + 1, j))
        else:
            heapq.heappop(self._order)
        a, b = step
        self._pending.append((j, a, b))
        return j, a, b


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
        """Rows published blank in every column (their group is the missing value alone, or
        ``method="suppress"`` blanks their group of several values)."""
        blank = np.ones(n, dtype=bool)
        for j, col in enumerate(cols):
            g = groups[j]
            per_code = np.zeros(len(g), dtype=bool)
            if col.na is not None and len(g) > len(col.categories):
                m = len(col.categories)  # the missing value's code; its group alone is blank
                alone = not ((g[:m] == g[m]) & (counts[j][:m] > 0)).any()
                per_code |= (g == g[m]) & alone
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

    # the bar counts the generalization steps taken, up to every column being one value (most
    # runs stop before); a run checks the model after every step unless it is monotone
    most = sum(max(int(np.count_nonzero(c)) - 1, 0) for c in counts)
    with progress_bar(most, desc="datafly: generalization steps", unit="step",
                      long=n * most >= PROGRESS_WORK) as bar:
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
                    bar.update(len(ahead))
                ahead = np.asarray(ahead, dtype=np.int64).reshape(-1, 3)  # replayed by slices
                lo, hi = 0, len(ahead)  # after `hi` steps of `ahead` the budget holds
                while hi - lo > 1:
                    mid = (lo + hi) // 2
                    trial = _replay(base, ahead[:mid])
                    if failing_count([keys_of(trial, j) for j in range(len(cols))]) <= budget:
                        hi = mid
                    else:
                        lo = mid
                final, done = _replay(base, ahead[:hi]), done + hi
                bar.update(hi)
                pending = [tuple(int(x) for x in row) for row in ahead[hi:]]
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
                move = pending.pop(0)  # (column, a, b): group b joins group a
                groups = _replay(groups, [move])
            elif not state.exhausted():
                # generate on the state (it holds the groups of `groups` once `pending` is used)
                move = state.next()
                groups = list(state.groups)
            else:  # every column is one value: the caller refuses a plan over the budget
                return groups, planned(groups, keys), steps
            j = move[0]
            new_keys = keys_of(groups, j)
            if key is not None:
                key += (new_keys - keys[j]) * weight[j]
            keys[j] = new_keys
            steps += 1
            bar.update(1)


@register("datafly", options=("max_suppressed_rows",))
def datafly(enc: EncodedTable, model, *, method: str, frame: pd.DataFrame, context=None,
            max_suppressed_rows=None) -> Recoded:
    """Engine entry point (``algorithm="datafly"``): global recoding of value groups, then
    suppression of the rows left in failing classes (at most ``max_suppressed_rows``)."""
    groups, suppressed, steps = datafly_groups(enc, model, method=method, context=context,
                                               max_suppressed_rows=max_suppressed_rows)
    budget = suppression_budget(max_suppressed_rows, enc.n,
                                default=model.requirements().min_size - 1)
    if int(suppressed.sum()) > budget:
        raise InfeasibleError(
            f"datafly generalized every quasi-identifier to one value and still needs "
            f"{int(suppressed.sum())} suppressed rows for {model!r}, more than "
            f"max_suppressed_rows={budget}; raise the budget or relax the model")
    columns, changed = recode_columns(method, frame, enc, groups, suppressed)
    return Recoded(columns, changed, int(suppressed.sum()), suppressed=suppressed,
                   info={"steps": steps, "max_suppressed_rows": budget},
                   data_bounds=tuple(columns))  # value groups' ranges: the data's values
