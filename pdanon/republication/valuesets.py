"""Sets of sensitive values per class, and their intersections, in memory linear in the rows.

The composition attack (:mod:`pdanon.republication.releases`) intersects, per person, the sensitive value
sets of the classes that held them in each release. A bit per person per distinct value
costs rows x values bits (120,000 rows with a numeric sensitive column: 1.8 GB per release);
here each class's set is kept once, as sorted keys ``class << 32 | value`` (one per distinct
(class, value) pair of a release, so never more than its rows), and an intersection is
counted lazily: per item (a person, or a combination of classes shared by many persons) the
values of its *smallest* class are listed and looked up in each of its other classes by a
binary search. The listing is done in chunks of at most :data:`CHUNK_PAIRS` pairs, so the
memory stays bounded however large the classes.

Example
-------
>>> import numpy as np
>>> store = ValueSets()
>>> store.add_classes(np.array([0, 0, 1]), np.array([7, 8, 8]))   # class 0 {7, 8}, 1 {8}
0
>>> store.add_classes(np.array([0, 0, 0]), np.array([8, 9, 7]))   # class 2 {7, 8, 9}
2
>>> common_counts(store, np.array([0, 0, 1, 1]), np.array([0, 2, 1, 2]), 2).tolist()
[2, 1]
"""

from __future__ import annotations

import numpy as np

__all__ = ["CHUNK_PAIRS", "ValueSets", "common_counts", "pair_keys", "unique_sorted"]

#: the most (item, value) pairs listed at once while counting intersections
CHUNK_PAIRS = 1 << 22
_SHIFT = np.int64(32)
_LOW = np.int64((1 << 32) - 1)


def pair_keys(classes: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The distinct ``class << 32 | value`` keys of the rows, sorted (so by class, then
    value). Values are codes ``0 <= v < 2**32``."""
    classes = np.asarray(classes, dtype=np.int64)
    values = np.asarray(values, dtype=np.int64)
    if len(values) and (values.min() < 0 or values.max() > _LOW):
        raise ValueError("value codes must lie in 0 .. 2**32 - 1")
    return unique_sorted((classes << _SHIFT) | values)


def unique_sorted(keys: np.ndarray, *, inverse: bool = False, counts: bool = False):
    """``np.unique`` of an int64 array by one sort (numpy's hash-based unique is slower on
    millions of keys: 1,000,000 int64 keys 0.9 s against 0.01 s with numpy 2.4): the
    distinct keys, and on request each key's position among them and their counts.

    >>> [a.tolist() for a in unique_sorted(np.array([5, 3, 5]), inverse=True, counts=True)]
    [[3, 5], [1, 0, 1], [1, 2]]
    """
    keys = np.asarray(keys, dtype=np.int64)
    order = np.argsort(keys, kind="stable") if inverse else None
    ranked = keys[order] if inverse else np.sort(keys)
    start = np.r_[True, ranked[1:] != ranked[:-1]] if len(ranked) else np.zeros(0, bool)
    out = [ranked[start]]
    if inverse:
        inv = np.empty(len(keys), dtype=np.int64)
        inv[order] = np.cumsum(start) - 1
        out.append(inv)
    if counts:
        out.append(np.diff(np.r_[np.flatnonzero(start), len(ranked)]))
    return out[0] if len(out) == 1 else tuple(out)


class ValueSets:
    """Per class (numbered 0, 1, ... in the order added) the set of value codes its rows
    hold, as one sorted array of pair keys and per class the offset of its keys."""

    def __init__(self):
        self.keys = np.zeros(0, dtype=np.int64)
        self.offsets = np.zeros(1, dtype=np.int64)

    @property
    def classes(self) -> int:
        return len(self.offsets) - 1

    def add_classes(self, labels: np.ndarray, values: np.ndarray, *,
                    classes: int | None = None) -> int:
        """Add the classes ``0 .. labels.max()`` of one release (rows' class labels and value
        codes; ``classes``: their number when some class adds no value, e.g. a class of blank
        cells counted as no value); returns the number the first of them gets
        (``labels + first`` are theirs)."""
        first = self.classes
        labels = np.asarray(labels, dtype=np.int64)
        count = classes if classes is not None else (int(labels.max()) + 1 if len(labels) else 0)
        keys = pair_keys(labels + first, values)
        sizes = np.bincount(labels[:0] if not len(keys) else (keys >> _SHIFT) - first,
                            minlength=count)
        self.keys = np.concatenate([self.keys, keys])
        self.offsets = np.concatenate([self.offsets, self.offsets[-1] + np.cumsum(sizes)])
        return first

    def sizes(self, classes: np.ndarray) -> np.ndarray:
        """The number of values of each class."""
        return self.offsets[classes + 1] - self.offsets[classes]


def common_counts(store: ValueSets, item: np.ndarray, cls: np.ndarray, items: int) -> np.ndarray:
    """Per item ``0 .. items-1`` the number of values that every class it is a member of
    holds (``item[j]`` is a member of class ``cls[j]``; an item of no class counts -1)."""
    item = np.asarray(item, dtype=np.int64)
    cls = np.asarray(cls, dtype=np.int64)
    out = np.full(items, -1, dtype=np.int64)
    if not len(item):
        return out
    size = store.sizes(cls)
    order = np.lexsort((size, item))  # per item its smallest class first
    item, cls, size = item[order], cls[order], size[order]
    starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
    owners, pivot, pivot_size = item[starts], cls[starts], size[starts]
    out[owners] = 0
    # the other classes of each item, by rank: others[r][owner position] (-1: none)
    rank = np.arange(len(item)) - np.repeat(starts, np.diff(np.r_[starts, len(item)]))
    others = []
    for r in range(1, int(rank.max()) + 1):
        col = np.full(len(owners), -1, dtype=np.int64)
        at = rank == r
        col[np.searchsorted(starts, np.flatnonzero(at), side="right") - 1] = cls[at]
        others.append(col)
    ends = np.cumsum(pivot_size)
    lo = 0
    while lo < len(owners):  # owners lo .. hi-1 list at most CHUNK_PAIRS values (or one owner)
        hi = max(lo + 1, int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + CHUNK_PAIRS,
                                             side="right")))
        n_pairs = pivot_size[lo:hi]
        who = np.repeat(np.arange(lo, hi), n_pairs)
        first = store.offsets[pivot[lo:hi]]
        within = np.arange(int(n_pairs.sum())) - np.repeat(np.cumsum(n_pairs) - n_pairs,
                                                             n_pairs)
        value = store.keys[np.repeat(first, n_pairs) + within] & _LOW
        keep = np.ones(len(who), dtype=bool)
        for col in others:
            c = col[who]
            probe = (c << _SHIFT) | value
            at = np.minimum(np.searchsorted(store.keys, probe), max(len(store.keys) - 1, 0))
            keep &= (c < 0) | (store.keys[at] == probe)
        out[owners[lo:hi]] = np.bincount(who[keep] - lo, minlength=hi - lo)
        lo = hi
    return out
