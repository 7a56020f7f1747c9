"""Datafly's generalization steps as pdanon computed them before issue 27: every step scans
the chosen column's groups (``np.lexsort`` / ``np.argmin`` over all of them) and relabels its
codes with ``np.where`` - O(D) a step, O(D²) for a column of D distinct values. Kept as the
slow reference that the heap-based steps of :mod:`pdanon.partition.datafly` must reproduce
step for step (``tests/partition/test_datafly.py``).

:class:`ReferenceSteps` has the interface of ``datafly._Steps`` (``groups``, ``exhausted()``,
``next()``), and :func:`reference_replay` that of ``datafly._replay``, so a test can run
``datafly_groups`` with them monkeypatched in.
"""

from __future__ import annotations

import numpy as np


def merge_pair(kind: str, reps: np.ndarray, sizes: np.ndarray) -> tuple[int, int]:
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


class ReferenceSteps:
    """The steps, one full scan of the chosen column each."""

    def __init__(self, enc, counts: list):
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
        j = int(np.argmax(self.distinct))  # most distinct values; ties to the leftmost column
        reps = np.flatnonzero(self.alive[j])
        if len(reps) > 2 and self.na_code[j] >= 0:
            reps = reps[reps != self.na_code[j]]
        sizes = self.sizes[j]
        a, b = merge_pair(self.kinds[j], reps, sizes[reps])
        assert a != b and self.alive[j][a] and self.alive[j][b]
        self.groups[j] = np.where(self.groups[j] == b, a, self.groups[j])
        sizes[a] += sizes[b]
        sizes[b] = 0
        self.alive[j][b] = False
        self.distinct[j] -= 1
        return j, a, b


def reference_replay(groups: list, steps: list) -> list:
    out = list(groups)
    for j, a, b in steps:
        out[j] = np.where(out[j] == b, a, out[j])
    return out
