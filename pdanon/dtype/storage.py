"""Storage of unordered cells: the shared, append-only table of distinct sets, kept sparse.

An unordered column stores one int64 code per row: ``0 .. C-1`` a plain value
(``categories[code]``), ``C + j`` set ``j`` of a :class:`SetTable`, ``-1`` missing. The table
holds each distinct set of two or more categories once, in CSR form: ``indptr`` (``S + 1``
offsets) and ``members``, so that set ``j`` is ``members[indptr[j]:indptr[j + 1]]``, its
category positions in increasing order. Memory is O(S + members), never sets × categories.

Equal sets are found without comparing them pairwise: every set gets a key (its length and two
64-bit sums of its members' mixed codes, which do not depend on the order of the members); sets
with equal keys are then compared member by member, so a collision of the hashes can never
merge two different sets (:func:`unique_sets`).

>>> codes, table = sets_from_pairs(3, [0, 0, 2], [2, 1, 0], 3)
>>> codes.tolist(), table.indptr.tolist(), table.members.tolist()
([3, -1, 0], [0, 2], [1, 2])
"""

from __future__ import annotations

import numpy as np

__all__ = ["BITMAP_BYTES", "SetTable", "csr_members", "gather_segments", "lex_ranks", "segment_sums",
           "sets_from_pairs", "sorted_unique", "unique_sets"]

#: :meth:`SetTable.contains` builds a sets × categories bitmap when it takes at most this many
#: bytes per query and member (plus 1 MiB), else it searches the sorted members
BITMAP_BYTES = 32

_SEEDS = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xD1B54A32D192ED03))


def sorted_unique(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values (np.unique without return_* is hash-based and slow in numpy 2.4)."""
    s = np.sort(x, kind="stable")
    if len(s) == 0:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    keep[1:] = s[1:] != s[:-1]
    return s[keep]


def _offsets(lens: np.ndarray) -> np.ndarray:
    out = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=out[1:])
    return out


def gather_segments(indptr: np.ndarray, values: np.ndarray, ids: np.ndarray):
    """Concatenate the CSR segments ``ids`` -> (lengths, flat values)."""
    ids = np.asarray(ids, dtype=np.int64)
    starts = indptr[ids]
    lens = indptr[ids + 1] - starts
    total = int(lens.sum())
    offs = _offsets(lens)
    pos = np.arange(total, dtype=np.int64) + np.repeat(starts - offs[:-1], lens)
    return lens, values[pos]


def segment_sums(indptr: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Sum of every CSR segment of uint64 ``values``, wrapping modulo 2**64 (empty: 0)."""
    cs = np.zeros(len(values) + 1, dtype=np.uint64)
    np.cumsum(values, dtype=np.uint64, out=cs[1:])
    return cs[indptr[1:]] - cs[indptr[:-1]]


def _mix(x: np.ndarray, seed: np.uint64) -> np.ndarray:
    """splitmix64 of every code: a well-spread 64-bit value per member."""
    z = x.astype(np.uint64) + seed
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def set_keys(indptr: np.ndarray, members: np.ndarray):
    """(length, hash 1, hash 2) of every set: equal sets have equal keys."""
    lens = np.diff(indptr)
    return lens, segment_sums(indptr, _mix(members, _SEEDS[0])), \
        segment_sums(indptr, _mix(members, _SEEDS[1]))


def _same_members(indptr: np.ndarray, members: np.ndarray, a: np.ndarray,
                  b: np.ndarray) -> np.ndarray:
    """Are sets ``a[i]`` and ``b[i]`` (of equal lengths) equal, member by member?"""
    lens, va = gather_segments(indptr, members, a)
    _, vb = gather_segments(indptr, members, b)
    differ = np.bincount(np.repeat(np.arange(len(a)), lens), weights=va != vb,
                         minlength=len(a))
    return differ == 0


def _split_collisions(indptr: np.ndarray, members: np.ndarray, rep: np.ndarray,
                      bad: np.ndarray) -> np.ndarray:
    """Regroup the sets whose key collides with a different set's, exactly (by their bytes).

    Runs only for a collision of two independent 64-bit hashes of sets of one length: never in
    practice, but the result stays exact when it happens."""
    rep = rep.copy()
    hit = np.isin(rep, sorted_unique(rep[bad]))
    first: dict = {}
    for i in np.flatnonzero(hit):  # ascending: the first set of a content is its group's
        t = (int(rep[i]), members[indptr[i]:indptr[i + 1]].tobytes())
        rep[i] = first.setdefault(t, int(i))
    return rep


def _representatives(indptr: np.ndarray, members: np.ndarray, keys) -> np.ndarray:
    """For every set, the first set (lowest index) equal to it.

    Sets are grouped by their first hash (one sort of a 64-bit key); a set whose length,
    second hash or members differ from its group's first set is a collision, regrouped
    exactly."""
    lens, h1, h2 = keys
    m = len(lens)
    order = np.argsort(h1)
    hs = h1[order]
    new = np.ones(m, dtype=bool)
    new[1:] = hs[1:] != hs[:-1]
    heads = np.minimum.reduceat(order, np.flatnonzero(new))  # the lowest index of each group
    rep = np.empty(m, dtype=np.int64)
    rep[order] = heads[np.cumsum(new) - 1]
    other = np.flatnonzero(rep != np.arange(m))
    if len(other):
        r = rep[other]
        same = (lens[other] == lens[r]) & (h2[other] == h2[r])
        same[same] = _same_members(indptr, members, other[same], r[same])
        if not same.all():
            rep = _split_collisions(indptr, members, rep, other[~same])
    return rep


def unique_sets(indptr: np.ndarray, members: np.ndarray, keys=None):
    """Distinct sets in order of first appearance -> (indptr, members, keys, inverse)."""
    keys = set_keys(indptr, members) if keys is None else keys
    if len(keys[0]) == 0:
        return indptr, members, keys, np.zeros(0, dtype=np.int64)
    rep = _representatives(indptr, members, keys)
    heads = sorted_unique(rep)
    inverse = np.searchsorted(heads, rep).astype(np.int64)
    lens, flat = gather_segments(indptr, members, heads)
    return _offsets(lens), flat, tuple(k[heads] for k in keys), inverse


def _found_in(x: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """``np.isin(x, pool)`` by sorting (np.isin hashes, slowly, in numpy 2.4)."""
    if not len(x) or not len(pool):
        return np.zeros(len(x), dtype=bool)
    srt = np.sort(pool)
    at = np.minimum(np.searchsorted(srt, x), len(srt) - 1)
    return srt[at] == x


class SetTable:
    """Distinct sets (>= 2 members) of one unordered column family, in CSR form.

    Shared by an array, its views and copies. It only ever grows (sets are appended by
    ``lookup(..., append=True)``, which builds new arrays: the old ones are never written), so
    codes held by any sharer stay valid; sets are unique, so two cells of sharers are equal
    exactly when their codes are equal.
    """

    __slots__ = ("indptr", "members", "keys", "__weakref__")

    def __init__(self, indptr=None, members=None, keys=None):
        self.indptr = np.zeros(1, dtype=np.int64) if indptr is None else indptr
        self.members = np.zeros(0, dtype=np.int64) if members is None else members
        self.keys = set_keys(self.indptr, self.members) if keys is None else keys

    def __len__(self) -> int:
        return len(self.indptr) - 1

    @property
    def nbytes(self) -> int:
        return int(self.indptr.nbytes + self.members.nbytes + sum(k.nbytes for k in self.keys))

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.indptr)

    def copy(self) -> SetTable:
        """A new table with the same sets (the arrays are shared: they are never written)."""
        return SetTable(self.indptr, self.members, self.keys)

    def contains(self, set_ids: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Does set ``set_ids[i]`` hold the category position ``values[i]``?

        A binary search inside each set's sorted members, all queries at once (log2 of the
        largest set's size rounds over the queries still open); when a sets × categories
        bitmap is no larger than :data:`BITMAP_BYTES` per query and member, a lookup in one
        (ten times faster for few categories; the memory stays O(queries + members))."""
        set_ids = np.asarray(set_ids, dtype=np.int64)
        values = np.asarray(values, dtype=np.int64)
        members = self.members
        width = int(members.max()) + 1 if len(members) else 1
        if len(self) * width <= BITMAP_BYTES * (len(values) + len(members)) + (1 << 20):
            bitmap = np.zeros((len(self), width + 1), dtype=bool)  # column width: never
            bitmap[np.repeat(np.arange(len(self)), self.lengths), members] = True
            return bitmap[set_ids, np.where((values >= 0) & (values < width), values, width)]
        lo = self.indptr[set_ids]
        end = self.indptr[set_ids + 1]
        hi = end.copy()
        open_ = np.flatnonzero(lo < hi)
        while len(open_):
            a, b = lo[open_], hi[open_]
            mid = (a + b) >> 1
            less = members[mid] < values[open_]
            a = np.where(less, mid + 1, a)
            b = np.where(less, b, mid)
            lo[open_], hi[open_] = a, b
            open_ = open_[a < b]
        found = lo < end
        found[found] = members[lo[found]] == values[found]
        return found

    def subset(self, ids: np.ndarray):
        """CSR (indptr, members) of the sets ``ids``."""
        lens, flat = gather_segments(self.indptr, self.members, ids)
        return _offsets(lens), flat

    def lookup(self, indptr: np.ndarray, members: np.ndarray, append: bool) -> np.ndarray:
        """Index of each set of the CSR ``(indptr, members)`` (sorted members, >= 2 each) in
        the table; -1 if absent and not appended."""
        m = len(indptr) - 1
        if m <= 0:
            return np.zeros(0, dtype=np.int64)
        qkeys = set_keys(indptr, members)
        # candidates: the table's sets that share a hash with some query set
        cand = np.flatnonzero(_found_in(self.keys[1], qkeys[1]))
        k = len(cand)
        c_lens, c_flat = gather_segments(self.indptr, self.members, cand)
        both = _offsets(np.concatenate([c_lens, np.diff(indptr)]))
        flat = np.concatenate([c_flat, members])
        keys = tuple(np.concatenate([t[cand], q]) for t, q in zip(self.keys, qkeys))
        rep = _representatives(both, flat, keys)[k:]
        found = rep < k
        res = np.full(m, -1, dtype=np.int64)
        res[found] = cand[rep[found]]
        if append and not found.all():
            heads = sorted_unique(rep[~found]) - k  # new distinct sets, first appearance order
            res[~found] = len(self) + np.searchsorted(heads, rep[~found] - k)
            lens, new = gather_segments(indptr, members, heads)
            self.indptr = np.concatenate([self.indptr, self.indptr[-1] + np.cumsum(lens)])
            self.members = np.concatenate([self.members, new])
            self.keys = tuple(np.concatenate([t, q[heads]]) for t, q in zip(self.keys, qkeys))
        return res


def sets_from_pairs(n: int, rows, cats, n_cat: int):
    """Per-row cells from (row, category) member pairs -> (codes, SetTable).

    Rows without any pair are missing (-1); rows with one member are plain codes; repeated
    pairs count once. Work O(P log P) for P pairs, memory O(n + P).
    """
    rows = np.asarray(rows, dtype=np.int64)
    cats = np.asarray(cats, dtype=np.int64)
    codes = np.full(n, -1, dtype=np.int64)
    if len(rows) == 0:
        return codes, SetTable()
    width = max(n_cat, 1)
    key = rows * width + cats
    if len(key) > 1 and not (key[1:] > key[:-1]).all():  # often sorted already (Arrow, text)
        key = sorted_unique(key)  # sorted by row, then member
    rows, cats = key // width, key % width
    counts = np.bincount(rows, minlength=n)
    single = counts[rows] == 1
    codes[rows[single]] = cats[single]
    multi_rows = np.flatnonzero(counts >= 2)
    if len(multi_rows) == 0:
        return codes, SetTable()
    indptr, members, keys, inv = unique_sets(_offsets(counts[multi_rows]), cats[~single])
    codes[multi_rows] = n_cat + inv
    return codes, SetTable(indptr, members, keys)


def csr_members(n_cat: int, table: SetTable):
    """CSR (indptr, indices) of the members of every code 0 .. C+S-1."""
    indptr = np.concatenate([np.arange(n_cat, dtype=np.int64), n_cat + table.indptr])
    indices = np.concatenate([np.arange(n_cat, dtype=np.int64), table.members])
    return indptr, indices


def _dense_rank(key: np.ndarray) -> np.ndarray:
    """Dense rank (0, 1, ...) of every entry of an int64 array."""
    order = np.argsort(key)
    ks = key[order]
    new = np.ones(len(ks), dtype=np.int64)
    new[0] = 0
    new[1:] = ks[1:] != ks[:-1]
    rank = np.empty(len(ks), dtype=np.int64)
    rank[order] = np.cumsum(new)
    return rank


def _all_distinct(x: np.ndarray) -> bool:
    s = np.sort(x)
    return not (s[1:] == s[:-1]).any()


def lex_ranks(indptr: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Dense rank of every (non-empty) CSR sequence of non-negative ints in lexicographic
    order (a proper prefix comes first).

    Prefix doubling: after round ``r`` every position holds the rank of the (truncated)
    ``2**r`` values starting there. It stops as soon as the sequences' first positions hold
    distinct ranks (their order can no longer change): usually after one or two vectorized
    sorts, at most ``log2(longest)``.

    >>> lex_ranks(np.array([0, 2, 3, 5]), np.array([1, 4, 1, 1, 3])).tolist()
    [2, 0, 1]
    """
    m = len(indptr) - 1
    if m <= 0:
        return np.zeros(0, dtype=np.int64)
    lens = np.diff(indptr)
    starts = indptr[:-1]
    rank = _dense_rank(np.asarray(values, dtype=np.int64))
    end = np.repeat(indptr[1:], lens)
    pos = np.arange(len(values), dtype=np.int64)
    step = 1
    longest = int(lens.max())
    while step < longest and not _all_distinct(rank[starts]):
        nxt = np.zeros(len(values), dtype=np.int64)  # 0: past the end, before every value
        ok = pos + step < end
        nxt[ok] = rank[pos[ok] + step] + 1
        rank = _dense_rank(rank * (int(rank.max()) + 2) + nxt)
        step *= 2
    return _dense_rank(rank[starts])
