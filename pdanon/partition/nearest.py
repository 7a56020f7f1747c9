"""Nearest-neighbour grouping: the reference's "TimeOptimal" family.

Changes: **partitioning** only. The privacy model decides how far a group grows; recoding is
done afterwards by :mod:`pdanon.recode`.

The rule, exactly as the reference documents it:

1. take the first (lowest-index) row not yet in a group — the *seed*;
2. add the ungrouped rows nearest to the seed, ties broken by lower row index, until the group
   has ``k`` rows (k-anonymity) — or, for l-diversity, until it has at least ``k`` rows *and*
   at least ``l`` distinct values in every sensitive column;
3. repeat while enough rows remain; the rows left over are gathered like a group from the first
   of them (seed first, then by distance and row index) and join the last group; for
   l-diversity a group that cannot be completed merges into the previous one the same way.

Row distance: the sum over quasi-identifiers of a per-column distance in [0, 1]: unordered → 0
if equal else 1; ordered → |rank(a) − rank(b)| / n with rank the first position of the value in
the sorted column; real → |a − b| / (max − min), 0 if max = min. The suppression method uses the
Hamming distance (every column compared for equality).

Floating point: distances are computed in the reference's (cp2025 1.0.3) order of operations,
so that rows whose distances are equal on paper tie — or fail to tie — exactly as there:

* every cell first gets a *coordinate* in float64: ``(x − min) / (max − min)`` for real
  columns (0 when max = min), ``rank / n`` for ordered columns, 0 for unordered columns (and
  for every column under the Hamming distance);
* the distance of two rows is ``Σ_j |c_aj − c_bj|`` over all quasi-identifier columns in
  column order (zeros included), added in the order of numpy's 1-D float64 ``sum`` (its
  pairwise summation: left to right below 8 columns; from 8 to 128 columns, eight interleaved
  partial sums ``s0..s7`` combined as ``((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))``,
  then the remaining columns left to right; above 128, two halves recursively), *plus* the
  number of unordered columns whose values differ, added last (an exact integer).

So a real column contributes ``|(a − m)/s − (b − m)/s|``, not ``|a − b| / s``: the two can
differ in the last bit. In a real column spanning 0..5, the values 4 and 2 are both 1/5 from 3
on paper, but ``|0.8 − 0.6| = 0.20000000000000007`` and ``|0.6 − 0.4| = 0.19999999999999996``,
so the row holding 2 is the nearer (whatever the row order). :class:`RowCoordinates` holds the
coordinates and computes these distances for one seed in one vectorized pass per column.

A column with missing cells (which the reference cannot hold) gets the coordinates of
:func:`pdanon.losses.normalized_values`: its present values scaled to [0, 1], a missing cell
at 2, so a missing cell is farther from every value than any two values are from each other.

Unlike the reference, no n × n distance matrix is built: each seed's distances to the rows still
ungrouped are computed in one vectorized pass (O(n²/k) work, O(n) memory), and the k nearest are
found with a partial sort.

Example
-------
>>> import pandas as pd
>>> from pdanon.encode import encode_table
>>> from pdanon.roles import resolve_roles
>>> df = pd.DataFrame({"a": [1, 1, 2, 2]})
>>> p = nearest_partition(encode_table(df, resolve_roles(df)), k=2)
>>> p.labels.tolist()
[0, 0, 1, 1]
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from pdanon.encode import EncodedTable
from pdanon.partition import Partition, register
from pdanon.partition.common import no_progress, sensitive_columns
from pdanon.progress import progress_bar

#: tables from this many rows may show a progress bar (progress=None; see pdanon.progress)
PROGRESS_ROWS = 10_000

#: numpy's block size of its pairwise float summation (``PW_BLOCKSIZE``)
_PAIRWISE_BLOCK = 128


def _add(a, b):
    """``a + b`` where ``None`` is an exact zero (adding 0.0 to a non-negative float changes
    nothing); ``a`` is updated in place when both are arrays (it is always a fresh array)."""
    if a is None:
        return b
    if b is None:
        return a
    a += b
    return a


def pairwise_sum(term: Callable[[int], np.ndarray | None], count: int):
    """``term(0) + ... + term(count - 1)`` added in the order numpy's pairwise summation adds
    the elements of a 1-D float64 array of ``count`` elements (``np.sum``), each term an array
    (the same element of many such sums) or ``None`` for an exact zero. Terms are asked for in
    order, one at a time, and at most nine arrays are alive. Returns an array or ``None`` (all
    terms zero). Terms must be fresh arrays: they are added to in place.

    Example
    -------
    >>> x = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])
    >>> float(pairwise_sum(lambda j: np.array([x[j]]), 9)[0]) == float(np.sum(x))
    True
    """
    return _pairwise(term, 0, count)


def _pairwise(term, lo: int, hi: int):
    n = hi - lo
    if n < 8:  # left to right
        res = None
        for j in range(lo, hi):
            res = _add(res, term(j))
        return res
    if n <= _PAIRWISE_BLOCK:  # eight interleaved partial sums, then the rest left to right
        r = [term(lo + j) for j in range(8)]
        i = lo + 8
        end = hi - n % 8
        while i < end:
            for j in range(8):
                r[j] = _add(r[j], term(i + j))
            i += 8
        res = _add(_add(_add(r[0], r[1]), _add(r[2], r[3])),
                   _add(_add(r[4], r[5]), _add(r[6], r[7])))
        for j in range(i, hi):
            res = _add(res, term(j))
        return res
    half = n // 2
    half -= half % 8
    return _add(_pairwise(term, lo, lo + half), _pairwise(term, lo + half, hi))


class RowCoordinates:
    """The rows as the TimeOptimal distance sees them (module docstring): per quasi-identifier,
    in column order, a float64 coordinate per row (``None`` for a column whose coordinate is 0
    in every row: unordered, constant real, or any column under the Hamming distance), and the
    codes of the columns compared for equality (unordered, or all under Hamming).

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.encode import encode_table
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"x": [0.0, 1.0, 2.0], "c": ["a", "a", "b"]})
    >>> rc = RowCoordinates.from_encoded(encode_table(df, resolve_roles(df)))
    >>> rc.distances(0).tolist()
    [0.0, 0.5, 2.0]
    """

    def __init__(self, coords: list, codes: list, n: int):
        self.coords = coords
        self.codes = codes
        self.n = n

    @classmethod
    def from_encoded(cls, enc: EncodedTable, hamming: bool = False) -> "RowCoordinates":
        n = enc.n
        coords, codes = [], []
        for col in enc.columns:
            if hamming or col.kind == "unordered":
                coords.append(None)
                codes.append(col.codes)
            elif col.na is not None:  # present values in [0, 1], a missing cell at 2
                from pdanon.losses import normalized_values

                coords.append(normalized_values(col))
            elif col.kind == "ordered":
                coords.append(col.rank.astype(np.float64) / float(n))
            else:
                x = col.point
                lo = float(np.min(x)) if n else 0.0
                span = float(np.max(x)) - lo if n else 0.0
                coords.append((x - lo) / span if span != 0 else None)
        return cls(coords, codes, n)

    def take(self, positions: np.ndarray) -> "RowCoordinates":
        """The coordinates of the rows at ``positions`` (integer positions or a boolean mask;
        normalization unchanged)."""
        positions = np.asarray(positions)
        if positions.dtype == bool:
            positions = np.flatnonzero(positions)
        return RowCoordinates([None if c is None else c[positions] for c in self.coords],
                              [c[positions] for c in self.codes], len(positions))

    def distances(self, s: int) -> np.ndarray:
        """A fresh float64 array: the distance from position ``s`` to every position."""
        coords = self.coords

        def term(j):
            c = coords[j]
            if c is None:
                return None
            t = c - c[s]
            return np.abs(t, out=t)

        total = pairwise_sum(term, len(coords))
        differ = None
        for codes in self.codes:  # small integers: exact in float64
            if differ is None:
                differ = (codes != codes[s]).astype(np.float64)
            else:
                differ += codes != codes[s]
        return self._finish(total, differ, (self.n,))

    def matrix(self) -> np.ndarray:
        """The n × n matrix of all distances (what the reference builds; for small tables)."""
        coords = self.coords

        def term(j):
            c = coords[j]
            return None if c is None else np.abs(c[:, None] - c[None, :])

        total = pairwise_sum(term, len(coords))
        differ = None
        for codes in self.codes:
            differ = _add(differ, (codes[:, None] != codes[None, :]).astype(np.float64))
        return self._finish(total, differ, (self.n, self.n))

    @staticmethod
    def _finish(total, differ, shape) -> np.ndarray:
        if total is None:
            return differ if differ is not None else np.zeros(shape)
        return total if differ is None else _add(total, differ)


def _k_nearest(dist: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k smallest distances, ties to the lower position, sorted by
    (distance, position)."""
    m = len(dist)
    if m <= k:
        chosen = np.arange(m)
    else:
        kth = np.partition(dist, k - 1)[k - 1]
        less = np.flatnonzero(dist < kth)
        equal = np.flatnonzero(dist == kth)[: k - len(less)]
        chosen = np.concatenate([less, equal])
    return chosen[np.lexsort((chosen, dist[chosen]))]


def _first_l_diverse_prefix(order: np.ndarray, sensitive: list, k: int, l: int) -> int | None:
    """Smallest prefix length p >= k of ``order`` with >= l distinct values in every sensitive
    column, or None. A code -1 (a missing cell under ``missing_sensitive="unknown"``) is no
    value."""
    need = k
    for codes in sensitive:
        c = codes[order]
        values, first = np.unique(c, return_index=True)
        first = first[values >= 0]
        if len(first) < l:
            return None
        need = max(need, int(np.sort(first)[l - 1]) + 1)
    return need if need <= len(order) else None


def nearest_partition(enc: EncodedTable, *, k: int, l: int | None = None,
                      sensitive: list | None = None, hamming: bool = False) -> Partition:
    """Group rows by the TimeOptimal rule (module docstring).

    Parameters
    ----------
    enc : EncodedTable
    k : int
        Minimum group size.
    l : int, optional
        With ``sensitive`` (a list of int code arrays), grow each group until it also holds
        ``l`` distinct values in every sensitive column.
    hamming : bool
        Use the Hamming distance (suppression) instead of the typed distance.

    Returns a :class:`Partition`; ``labels`` is -1 nowhere. When no l-diverse group can be
    formed the returned partition has a single group (the caller checks). Raises
    :class:`~pdanon._errors.NoProgressError` if a seed's group came out empty (a bug: the loop
    would not advance).
    """
    n = enc.n
    all_cols = RowCoordinates.from_encoded(enc, hamming)
    labels = np.full(n, -1, dtype=np.int64)
    pieces: list[np.ndarray] = []
    alive = np.arange(n)  # row ids of the compacted arrays below
    cols = all_cols
    gone = np.zeros(n, dtype=bool)  # per compacted position: grouped since the last compaction
    dead = np.zeros(n, dtype=bool)  # per row id
    start = 0  # compacted position of the first live row
    live = n
    group = 0
    diverse = l is not None and sensitive

    with progress_bar(n, desc="nearest: rows grouped", unit="row",
                      long=n >= PROGRESS_ROWS) as bar:
        while live >= k:
            while gone[start]:
                start += 1
            dist = cols.distances(start)
            dist[gone] = np.inf
            if not diverse:
                chosen = _k_nearest(dist, k)
            else:
                # the nearest few usually suffice; the full order only when they do not
                window = min(live, 4 * k + 64)
                by_distance = _k_nearest(dist, window)
                p = _first_l_diverse_prefix(alive[by_distance], sensitive, k, l)
                if p is None and window < live:
                    by_distance = _k_nearest(dist, live)
                    p = _first_l_diverse_prefix(alive[by_distance], sensitive, k, l)
                if p is None:
                    break  # cannot complete a group: the rest merges into the previous one
                chosen = by_distance[:p]
            if not len(chosen) or gone[chosen].any():
                raise no_progress("nearest", f"the group of seed row {int(alive[start])} is empty "
                                             "or holds rows already grouped")
            rows = alive[chosen]
            labels[rows] = group
            pieces.append(rows)
            gone[chosen] = True
            dead[rows] = True
            live -= len(rows)
            group += 1
            if live and len(alive) > 2 * live:  # compact when most positions are grouped
                keep = ~gone
                alive = alive[keep]
                cols = cols.take(keep)
                gone = np.zeros(len(alive), dtype=bool)
                start = 0
            bar.update(len(rows))

    rest = np.flatnonzero(~dead)
    if len(rest):
        # the rest is gathered like a group from its first row (seed first, then by
        # (distance, row index)) and merged into the previous group in that order
        dist = all_cols.take(rest).distances(0)
        rest = rest[np.lexsort((rest, dist))]
        target = group - 1 if group > 0 else 0
        labels[rest] = target
        pieces.append(rest)
    order = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
    return Partition(labels, order)


def _distinct_codes(enc: EncodedTable, context, known_only: bool) -> list:
    """The code arrays whose distinct values the groups must hold: with ``known_only``
    (``missing_sensitive="unknown"``) a missing cell is -1, no value."""
    out = []
    for col in sensitive_columns(enc, context):
        codes = col.codes
        if known_only and col.has_na:
            codes = np.where(codes == col.m - 1, -1, codes)
        out.append(codes)
    return out


@register("nearest", hint="it never suppresses rows; use algorithm='datafly' or 'optimal' "
                          "for a suppression budget")
def nearest(enc: EncodedTable, model, *, method: str, frame=None, context=None) -> Partition:
    """Engine entry point: k from the model, l when it asks for distinct l-diversity."""
    req = model.requirements()
    k = req.min_size
    l = req.min_distinct if req.sensitive and req.min_distinct > 1 else None
    if not req.exact:
        from pdanon._errors import InvalidInputError

        raise InvalidInputError(
            f"algorithm='nearest' supports k-anonymity and distinct l-diversity, not {model!r}; "
            "use algorithm='mondrian'"
        )
    sensitive = _distinct_codes(enc, context, req.known_only) if l else None
    return nearest_partition(enc, k=k, l=l, sensitive=sensitive, hamming=method == "suppress")
