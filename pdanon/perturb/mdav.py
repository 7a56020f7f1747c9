"""MDAV and V-MDAV groupings on numeric arrays: the algorithms of microaggregation.

This module knows nothing of DataFrames: :mod:`pdanon.perturb.microaggregation` turns columns
into a distance space and calls it. A *space* is two arrays over the same ``n`` rows, stored
column by column so every column is one contiguous array:

* ``num`` -- shape ``(m, n)`` float64, the standardized coordinates;
* ``cat`` -- shape ``(u, n)`` int64, codes of unordered columns (``>= 0``).

The squared distance between rows ``x`` and ``y`` is

    d(x, y) = sum_j (x_j - y_j) ** 2  +  MISMATCH * #{unordered columns where x != y}

summed in that order (numeric columns first, in column order, then the unordered ones), with
``MISMATCH = 2.0``: two independent values of a standardized column differ by 2 in squared
distance on average, so a mismatch weighs as much as an average difference. The centroid of a
set of rows is, per numeric column, the correctly rounded sum of its values divided by the
number of rows (``math.fsum(values) / len(values)``: exact, so it does not depend on the order
of the rows) and, per unordered column, the mode (ties: the lowest code).

**Ties** are always broken by the lowest row position: "the farthest row" is the first row
position among the farthest ones, "the k - 1 nearest rows" are the first k - 1 rows in the
order (distance, position). Every step compares distances computed by the same expression, so
the groups are a deterministic function of the data.

MDAV (Domingo-Ferrer & Mateo-Sanz 2002), fixed group size k -- :func:`mdav_groups`:

1. while at least 3k rows remain: c = centroid of the remaining rows; r = the row farthest
   from c; group r with the k - 1 rows nearest to r; s = the row farthest from r among the
   rows left; group s with the k - 1 rows nearest to s among the rows left; remove both
   groups;
2. if 2k..3k-1 rows remain: r = the row farthest from their centroid, grouped with its k - 1
   nearest rows; the others form the last group;
3. fewer than 2k rows remaining form one group.

Every group has k rows except the last, which has k..2k-1.

V-MDAV (Solanas & Martinez-Balleste 2006), variable group size -- :func:`vmdav_groups`: while
at least k rows remain, e = the row farthest from the centroid of the remaining rows; group e
with its k - 1 nearest rows; then *extend* the group, at most to 2k - 1 rows: e_in = the
remaining row closest to the group (its distance d_in is the smallest distance to any member),
e_out = the remaining row closest to e_in (distance d_out; infinite when e_in is the last
row); add e_in while ``d_in < gamma * d_out``, compared as squared distances
(``d_in**2 < gamma**2 * d_out**2``). The at most k - 1 rows left at the end each join the group
whose centroid is nearest (ties: the group built first), so one of those groups may exceed
2k - 1 rows.

Cost: every step computes distances from one point to the remaining rows, O(n * (m + u)); MDAV
takes n / (2k) steps of three such passes, O(n**2 / k) in all and O(n * (m + u)) memory. The
rows of a group leave the arrays at once (the last rows move into their places, O(k) work) and
the column sums are kept exactly (integers in units of 2**-1074), so a step costs only its
distance passes, which get cheaper as rows are grouped. Tables of at most ``SMALL_ROWS`` rows
take a compact path with the same choices bit for bit (:func:`_mdav_small`: one ``(m, n')``
array, three whole-array operations per distance pass, exact sums as int64 limbs), because
there a step's cost is the number of numpy calls rather than the arithmetic.

Blocks -- :func:`block_rows`: median cuts on the widest numeric column split a large table into
blocks of at most ``max_rows`` rows, in which exact MDAV runs (O(n * B / k) in all).

Example
-------
>>> import numpy as np
>>> num = np.array([[0.0, 0.1, 0.2, 5.0, 5.1, 9.0]])
>>> cat = np.zeros((0, 6), dtype=np.int64)
>>> mdav_groups(num, cat, 3).tolist()
[1, 1, 1, 0, 0, 0]
"""

from __future__ import annotations

import math

import numpy as np

#: squared-distance cost of one mismatching unordered column
MISMATCH = 2.0

_UNIT = 1074  # every float64 is an integer multiple of 2**-1074

#: tables up to this many rows take the compact path of :func:`mdav_groups`
SMALL_ROWS = 4096


def squared_distances(num, cat, point, point_codes) -> np.ndarray:
    """Squared distance from one point (``point``: m floats, ``point_codes``: u codes) to every
    row of the space ``(num, cat)`` (sequences of m and u columns); a new float64 array.

    Example
    -------
    >>> squared_distances(np.array([[0.0, 1.0, 3.0]]), np.array([[0, 0, 1]]),
    ...                   np.array([1.0]), np.array([0])).tolist()
    [1.0, 0.0, 6.0]
    """
    n = _rows(num, cat)
    if len(num):
        out = np.subtract(num[0], point[0])
        np.multiply(out, out, out=out)
    else:
        out = np.zeros(n, dtype=np.float64)
    tmp = np.empty(n, dtype=np.float64)
    for j in range(1, len(num)):
        np.subtract(num[j], point[j], out=tmp)
        np.multiply(tmp, tmp, out=tmp)
        np.add(out, tmp, out=out)
    for j in range(len(cat)):
        np.add(out, MISMATCH * (cat[j] != point_codes[j]), out=out)
    return out


def _rows(num, cat) -> int:
    return len(num[0]) if len(num) else len(cat[0])


def exact_sum(values: np.ndarray) -> int:
    """The exact sum of float64 ``values`` as an integer count of 2**-1074 (vectorized: the
    53-bit mantissas, split in halves, are summed exactly per binary exponent).

    Example
    -------
    >>> exact_sum(np.array([0.1, 0.2, -0.3])) / 2**1074 == 2.7755575615628914e-17
    True
    """
    values = np.asarray(values, dtype=np.float64)
    if not len(values):
        return 0
    mant, expo = np.frexp(values)
    big = (mant * 2.0**53).astype(np.int64)  # exact: a mantissa has 53 bits
    hi, lo = big >> 26, big & ((1 << 26) - 1)  # big == hi * 2**26 + lo, both sums exact
    exps, inverse = np.unique(expo, return_inverse=True)
    hi_sums = np.bincount(inverse, weights=hi.astype(np.float64))
    lo_sums = np.bincount(inverse, weights=lo.astype(np.float64))
    total = 0
    for e, h, l in zip(exps.tolist(), hi_sums.tolist(), lo_sums.tolist()):
        part = (int(h) << 26) + int(l)
        shift = e - 53 + _UNIT
        total += part << shift if shift >= 0 else part >> -shift  # subnormals: exact
    return total


def _units(v: float) -> int:
    num, den = v.as_integer_ratio()  # den is a power of two <= 2**1074
    return num << (_UNIT + 1 - den.bit_length())


class Space:
    """The rows of a space still to be grouped: columns (lists of 1-D arrays, so rows can be
    dropped in O(k)), the original position of every row, and exact column sums.

    Example
    -------
    >>> sp = Space(np.array([[1.0, 2.0, 6.0]]), np.zeros((0, 3), np.int64))
    >>> sp.centroid()[0].tolist(), sp.farthest(np.array([5.0, 1.0, 5.0]))
    ([3.0], 0)
    """

    def __init__(self, num, cat, pos=None):
        self.num = [np.array(col, dtype=np.float64) for col in num]
        self.cat = [np.array(col, dtype=np.int64) for col in cat]
        self.n = _rows(self.num, self.cat)
        self.pos = np.arange(self.n) if pos is None else np.array(pos, dtype=np.int64)
        self.sums = [exact_sum(col) for col in self.num]
        self.extra = {}  # per-row arrays that move with the rows
        self._ref = None  # (centroid, max distance) that extra["to_ref"] was measured from

    def farthest_from_centroid(self) -> int:
        """The row farthest from the centroid of the rows (ties: the lowest position).

        Without unordered columns, the distances to an earlier centroid c0 are kept: if the
        centroid moved by delta since, every row's distance moved by at most delta, so only
        the rows within 2 * delta (plus a rounding margin) of the farthest one can be the
        farthest now; they alone are measured. A full pass renews c0 when more than 1/64 of
        the rows would be candidates.
        """
        means, modes = self.centroid()
        if self._ref is not None and not self.cat:
            shift = means - self._ref
            delta = float(np.sqrt(np.dot(shift, shift))) * (1 + 1e-9)
            dist = self.extra["to_ref"]
            top = float(dist.max())
            cand = np.flatnonzero(dist >= top - 2 * delta - 1e-9 * (top + delta) - 1e-300)
            if len(cand) <= max(64, self.n // 64):
                d = squared_distances([col[cand] for col in self.num], [], means, modes)
                best = np.flatnonzero(d == d.max())
                return int(cand[best[np.argmin(self.pos[cand[best]])]])
        d = squared_distances(self.num, self.cat, means, modes)
        if not self.cat:
            self.extra["to_ref"] = np.sqrt(d)
            self._ref = means
        return self.farthest(d)

    def centroid(self) -> tuple[np.ndarray, np.ndarray]:
        """Per numeric column ``fsum / n`` (from the exact sums), per unordered column the
        mode (ties: the lowest code)."""
        means = np.array([(s / (1 << _UNIT)) / self.n for s in self.sums], dtype=np.float64)
        modes = np.array([int(np.bincount(col).argmax()) for col in self.cat], dtype=np.int64)
        return means, modes

    def point(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        return (np.array([col[i] for col in self.num], dtype=np.float64),
                np.array([col[i] for col in self.cat], dtype=np.int64))

    def distances(self, i: int) -> np.ndarray:
        return squared_distances(self.num, self.cat, *self.point(i))

    def farthest(self, d: np.ndarray) -> int:
        """The row of largest ``d``; ties: the lowest original position."""
        i = int(np.argmax(d))
        ties = np.flatnonzero(d == d[i])
        if len(ties) > 1:
            i = int(ties[np.argmin(self.pos[ties])])
        return i

    def nearest(self, d: np.ndarray, count: int) -> np.ndarray:
        """The ``count`` rows of smallest ``d``, in the order (value, original position).

        The ``count``-th smallest value of every 8th row bounds the answer from above (any
        subset's is at least ours), so only the rows under that bound are sorted."""
        n = len(d)
        if n >= 64 * count:
            bound = np.partition(d[::8], count - 1)[count - 1]
            cand = np.flatnonzero(d <= bound)
        else:
            cand = np.arange(n)
        order = np.lexsort((self.pos[cand], d[cand]))
        return cand[order[:count]]

    def group_of(self, seed: int, count: int, excluded=None):
        """``seed`` and its ``count - 1`` nearest rows (``excluded`` rows left out), and the
        distances from ``seed``."""
        d = self.distances(seed)
        if excluded is not None:
            d[excluded] = np.inf
        d[seed] = -1.0  # the seed first, even among duplicates of lower position
        return self.nearest(d, count), d

    def distances_at(self, i: int, rows: np.ndarray) -> np.ndarray:
        """Squared distances from row ``i`` to ``rows`` only (the same arithmetic, so the
        values equal those of :meth:`distances` at ``rows``)."""
        return squared_distances([col[rows] for col in self.num],
                                 [col[rows] for col in self.cat], *self.point(i))

    def far_group(self, s: int, count: int, d_r: np.ndarray) -> np.ndarray:
        """``s`` and its ``count - 1`` nearest rows, where ``s`` is the row farthest from some
        row r and ``d_r`` holds the squared distances from r (``-inf`` for rows excluded).

        Only rows that can be that near are measured: if some ``count`` rows lie within
        distance rho of s, every answer x does too, and the triangle inequality gives
        ``dist(r, x) >= dist(r, s) - rho``. rho comes from the rows farthest from r (the
        ``4 * count``-th largest ``d_r`` of every 8th row bounds how many), then every row
        with ``dist(r, x) >= dist(r, s) - rho`` (less a margin for rounding) is measured and
        the nearest are chosen among them exactly as :meth:`nearest` would among all rows.
        """
        n = len(d_r)
        sample = d_r[::8]
        if len(sample) <= 8 * count:
            d = self.distances(s)
            d[d_r == -np.inf] = np.inf
            d[s] = -1.0
            return self.nearest(d, count)
        top = np.partition(sample, len(sample) - 4 * count)[len(sample) - 4 * count]
        probe = np.flatnonzero(d_r >= top)  # at least 4 * count rows, all allowed
        rho = float(np.sqrt(np.partition(self.distances_at(s, probe), count - 1)[count - 1]))
        reach = float(np.sqrt(d_r[s]))
        floor = reach - rho - 1e-9 * (reach + rho) - 1e-300
        if floor <= 0:
            cand = np.flatnonzero(d_r > -np.inf)
        else:
            cand = np.flatnonzero(d_r >= floor * floor)
        if len(cand) > n // 2:
            d = self.distances(s)
            d[d_r == -np.inf] = np.inf
            d[s] = -1.0
            return self.nearest(d, count)
        d = self.distances_at(s, cand)
        d[cand == s] = -1.0
        order = np.lexsort((self.pos[cand], d))
        return cand[order[:count]]

    def remove(self, rows: np.ndarray) -> np.ndarray:
        """Drop ``rows`` (indices into the current arrays); return their original positions.
        The last rows move into the freed places and the exact sums lose the dropped
        values."""
        rows = np.unique(rows)
        gone = self.pos[rows]
        for j, col in enumerate(self.num):
            self.sums[j] -= sum(map(_units, col[rows].tolist()))
        new_n = self.n - len(rows)
        holes = rows[rows < new_n]
        tail = np.ones(self.n - new_n, dtype=bool)
        tail[rows[rows >= new_n] - new_n] = False
        movers = new_n + np.flatnonzero(tail)
        for col in self.num + self.cat + [self.pos] + list(self.extra.values()):
            col[holes] = col[movers]
        self.num = [col[:new_n] for col in self.num]
        self.cat = [col[:new_n] for col in self.cat]
        self.pos = self.pos[:new_n]
        self.extra = {key: col[:new_n] for key, col in self.extra.items()}
        self.n = new_n
        return gone


_LIMB = 31
_MASK = (1 << _LIMB) - 1


class _Limbs:
    """Exact column sums of a fixed ``(m, n)`` float64 array over any subset of its rows: each
    value of column j is an integer count of ``2**e0[j]`` (``e0[j]``: the smallest exponent of
    the column's nonzero values, less 53) cut into ``L`` signed 31-bit limbs, so the limbs of up
    to ``2**32`` rows sum exactly in int64. ``ok`` is False (and the caller takes the slower
    exact path) when a column's exponents span more than ``31 * max_limbs - 53`` bits or
    reach the subnormal range."""

    def __init__(self, num, max_limbs=8):
        m, n = num.shape
        mant, expo = np.frexp(num)
        expo = expo.astype(np.int64)
        big = (mant * 2.0**53).astype(np.int64)  # exact: a mantissa has 53 bits
        nz = big != 0
        low = np.where(nz, expo, np.iinfo(np.int64).max).min(axis=1)
        high = np.where(nz, expo, np.iinfo(np.int64).min).max(axis=1)
        present = nz.any(axis=1)
        low, high = np.where(present, low, 0), np.where(present, high, 0)
        self.e0 = (low - 53).tolist()
        self.m, self.L = m, max(int(-(-(53 + (high - low).max(initial=0)) // _LIMB)), 1)
        self.ok = self.L <= max_limbs and min(self.e0, default=0) >= -1074 + 64
        if not self.ok:
            return
        sign = np.where(big < 0, -1, 1)
        mag = np.abs(big)
        sh = np.where(nz, expo - low[:, None], 0)  # value = sign * (mag << sh) units of 2**e0
        limbs = np.empty((m, self.L, n), np.int64)
        for i in range(self.L):
            lo = _LIMB * i - sh  # the bit of mag that lands on bit 31 i of the limb
            right = (mag >> np.clip(lo, 0, 63)) & _MASK
            left_bits = np.clip(-lo, 0, _LIMB)
            left = (mag & ((np.int64(1) << (_LIMB - left_bits)) - 1)) << left_bits
            limbs[:, i] = sign * np.where(lo >= 0, right, left)
        self.limbs = limbs.reshape(m * self.L, n)

    def combine(self, limb_sums) -> list[int]:
        """Per column the exact sum (a Python int, in units of ``2**e0[j]``) from the sums of
        its limbs (``limbs[:, rows].sum(axis=1)``)."""
        v, L = limb_sums.tolist(), self.L
        out = []
        for j in range(0, self.m * L, L):  # Horner: ((s[L-1] << 31) + s[L-2]) << 31 ...
            t = v[j + L - 1]
            for i in range(j + L - 2, j - 1, -1):
                t = (t << _LIMB) + v[i]
            out.append(t)
        return out


def _mdav_small(num, cat, k: int, tick=None):
    """:func:`mdav_groups` for tables that fit in cache (the same choices, bit for bit): the
    remaining rows are one compacted ``(m, n')`` array measured with three whole-array
    operations per distance pass, and the column sums are kept exactly as int64 limbs
    (:class:`_Limbs`). Returns None when the values' exponents span too widely for limbs."""
    n = _rows(num, cat)
    num = np.asarray(num, np.float64).reshape(len(num), n)
    cat = np.asarray(cat, np.int64).reshape(len(cat), n)
    lb = _Limbs(num)
    if not lb.ok:
        return None
    m, u = len(num), len(cat)
    X, C = num.copy(), cat.copy()
    pos = np.arange(n)
    limbs = np.ascontiguousarray(lb.limbs.T)  # (n, m * L): a group's limbs are its rows
    tot = limbs.sum(axis=0)
    labels = np.empty(n, np.int64)
    order = np.empty(n, np.int64)  # row positions in the order their groups were built
    buf = np.empty(m * n)
    dbuf = np.empty((3, n))
    e0 = lb.e0
    steps = 0  # each step builds two groups

    def dist(p, pc, b, d):  # squared distances of the cnt remaining rows to (p, pc) into d
        if m:
            np.subtract(X, p, out=b)
            np.multiply(b, b, out=b)
            np.add.reduce(b, axis=0, out=d)
        else:
            d[:] = 0.0
        for j in range(u):
            d += MISMATCH * (C[j] != pc[j])
        return d

    def centroid(cnt):
        means = [math.ldexp(float(t), e) / cnt for t, e in zip(lb.combine(tot), e0)]
        modes = [int(np.bincount(c).argmax()) for c in C] if u else ()
        return np.array(means).reshape(m, 1), modes

    def nearest(d, count):  # the count smallest of d by (value, index); len(d) > count
        idx = d.argpartition(count)  # idx[:count] hold values <= d[idx[count]]
        head = idx[:count]
        last = d[head].max()
        if last < d[idx[count]]:  # no tie across the cut: the set is unique
            return head
        cand = np.flatnonzero(d <= last)
        return cand[np.argsort(d[cand], kind="stable")[:count]]

    def farthest_group(cnt, b, d_c, d_r):  # the row farthest from the centroid, its k - 1 nearest
        r = int(dist(*centroid(cnt), b, d_c).argmax())
        dist(X[:, r:r + 1], C[:, r], b, d_r)
        d_r[r] = -1.0
        return nearest(d_r, k)

    while len(pos) >= 3 * k:
        cnt = len(pos)
        b = buf[:m * cnt].reshape(m, cnt)  # contiguous, as X is
        d_c, d_r, d_s = dbuf[0, :cnt], dbuf[1, :cnt], dbuf[2, :cnt]
        ga = farthest_group(cnt, b, d_c, d_r)
        d_r[ga] = -np.inf
        s = int(d_r.argmax())
        dist(X[:, s:s + 1], C[:, s], b, d_s)
        d_s[ga] = np.inf
        d_s[s] = -1.0
        gb = nearest(d_s, k)
        both = np.concatenate((ga, gb))
        gone = pos[both]
        order[2 * steps * k:2 * (steps + 1) * k] = gone  # groups 2 steps and 2 steps + 1
        steps += 1
        keep = np.ones(cnt, bool)
        keep[both] = False
        np.subtract(tot, np.add.reduce(limbs.take(gone, axis=0), axis=0), out=tot)
        X, pos = X.compress(keep, axis=1), pos[keep]
        if u:
            C = C.compress(keep, axis=1)
        if tick is not None:
            tick(2 * k)
    g = 2 * steps  # the groups built so far
    labels[order[:g * k]] = np.repeat(np.arange(g), k)
    if len(pos) >= 2 * k:
        cnt = len(pos)
        ga = farthest_group(cnt, buf[:m * cnt].reshape(m, cnt), dbuf[0, :cnt], dbuf[1, :cnt])
        labels[pos] = g + 1
        labels[pos[ga]] = g
    elif len(pos):
        labels[pos] = g
    return labels


def mdav_groups(num, cat, k: int, tick=None) -> np.ndarray:
    """Exact MDAV (fixed group size) on the space ``(num, cat)`` (m and u columns of n rows);
    returns a group label per row (0, 1, ... in the order groups were built). Needs at least
    ``k`` rows. ``tick(rows)``, if given, is called with the rows grouped by each step.

    Example
    -------
    >>> num = np.array([[0.0, 9.0, 1.0, 10.0, 0.5, 9.5, 20.0]])
    >>> mdav_groups(num, np.zeros((0, 7), np.int64), 2).tolist()
    [1, 2, 2, 0, 1, 2, 0]
    """
    if _rows(num, cat) <= SMALL_ROWS:
        labels = _mdav_small(num, cat, k, tick)
        if labels is not None:
            return labels
    sp = Space(num, cat)
    labels = np.empty(sp.n, dtype=np.int64)
    g = 0
    while sp.n >= 3 * k:
        r = sp.farthest_from_centroid()
        group_r, d_r = sp.group_of(r, k)
        d_r[group_r] = -np.inf
        s = sp.farthest(d_r)
        group_s = sp.far_group(s, k, d_r)
        labels[sp.pos[group_r]] = g
        labels[sp.pos[group_s]] = g + 1
        g += 2
        sp.remove(np.concatenate([group_r, group_s]))
        if tick is not None:
            tick(2 * k)
    if sp.n >= 2 * k:
        r = sp.farthest(squared_distances(sp.num, sp.cat, *sp.centroid()))
        group_r, _ = sp.group_of(r, k)
        labels[sp.pos] = g + 1
        labels[sp.pos[group_r]] = g
    elif sp.n:
        labels[sp.pos] = g
    return labels


def vmdav_groups(num, cat, k: int, gamma: float, tick=None) -> np.ndarray:
    """V-MDAV (variable group size, gain factor ``gamma``) on the space ``(num, cat)``; returns
    a group label per row (0, 1, ... in the order groups were built). Needs at least ``k``
    rows. ``tick(rows)``, if given, is called with the rows grouped by each step.

    Example
    -------
    >>> num, cat = np.array([[0.0, 1.0, 10.0, 11.0, 12.0, 13.0]]), np.zeros((0, 6), np.int64)
    >>> vmdav_groups(num, cat, 2, 0.2).tolist()
    [0, 0, 1, 1, 2, 2]
    >>> vmdav_groups(num, cat, 2, 1.1).tolist()  # 12 joins {10, 11}; 13 is left and joins too
    [0, 0, 1, 1, 1, 1]
    """
    sp = Space(num, cat)
    labels = np.full(sp.n, -1, dtype=np.int64)
    g2 = float(gamma) ** 2
    g = 0
    while sp.n >= k:
        e = sp.farthest(squared_distances(sp.num, sp.cat, *sp.centroid()))
        members, d_e = sp.group_of(e, k)
        d_e[e] = 0.0
        to_group = d_e  # per row: its smallest distance to a member
        for i in members[1:]:
            np.minimum(to_group, sp.distances(int(i)), out=to_group)
        in_group = np.zeros(sp.n, dtype=bool)
        in_group[members] = True
        size = k
        while size < 2 * k - 1 and size < sp.n:
            outside = np.where(in_group, np.inf, to_group)
            e_in = int(sp.nearest(outside, 1)[0])
            d_from = sp.distances(e_in)
            others = np.where(in_group, np.inf, d_from)
            others[e_in] = np.inf
            if not outside[e_in] < g2 * others.min():
                break
            in_group[e_in] = True
            np.minimum(to_group, d_from, out=to_group)
            size += 1
        labels[sp.remove(np.flatnonzero(in_group))] = g
        g += 1
        if tick is not None:
            tick(size)
    if sp.n:
        _join_nearest_groups(num, cat, sp.pos, labels, g)
    return labels


def group_centroids(num, cat, labels: np.ndarray, groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Centroids of groups ``0..groups-1`` (rows labelled -1 are left out): ``(means (m, G),
    modes (u, G))``, modes with ties to the lowest code.

    Example
    -------
    >>> means, modes = group_centroids(np.array([[1.0, 3.0, 10.0]]), np.array([[4, 4, 1]]),
    ...                                np.array([0, 0, 1]), 2)
    >>> means.tolist(), modes.tolist()
    ([[2.0, 10.0]], [[4, 1]])
    """
    keep = labels >= 0
    lab = labels[keep]
    sizes = np.maximum(np.bincount(lab, minlength=groups), 1)
    means = np.array([np.bincount(lab, weights=np.asarray(col, np.float64)[keep],
                                  minlength=groups) / sizes
                      for col in num]).reshape(len(num), groups)
    modes = np.zeros((len(cat), groups), dtype=np.int64)
    for j, col in enumerate(cat):
        codes = np.asarray(col, np.int64)[keep]
        width = int(codes.max(initial=0)) + 1
        pairs, counts = np.unique(lab * width + codes, return_counts=True)
        grp, code = pairs // width, pairs % width
        best = np.lexsort((code, -counts, grp))  # per group: most rows, then lowest code
        head = best[np.r_[True, grp[best][1:] != grp[best][:-1]]]
        modes[j, grp[head]] = code[head]
    return means, modes


def _join_nearest_groups(num, cat, rest: np.ndarray, labels: np.ndarray, groups: int) -> None:
    """Give each leftover row (original positions ``rest``, label -1) the label of the group
    whose centroid is nearest (ties: the group built first)."""
    means, modes = group_centroids(num, cat, labels, groups)
    for i in np.sort(rest).tolist():
        d = squared_distances(means, modes, np.array([col[i] for col in num], np.float64),
                              np.array([col[i] for col in cat], np.int64))
        labels[i] = int(np.argmin(d))


def block_rows(num: np.ndarray, max_rows: int) -> list[np.ndarray]:
    """Split rows ``0..n-1`` into blocks of at most ``max_rows`` rows by median cuts: a block
    that is too large is sorted on its widest numeric column (largest max - min; ties: the
    first column) by (value, position) and cut into its first ``size // 2`` rows and the
    rest. A block without numeric spread is cut by position. Returns the blocks' row
    positions, each sorted, in cut order (lower halves first).

    Example
    -------
    >>> [b.tolist() for b in block_rows(np.array([[5.0, 1.0, 4.0, 2.0, 3.0]]), 2)]
    [[1, 3], [4], [0, 2]]
    """
    num = np.asarray(num, dtype=np.float64).reshape(len(num), -1)
    todo = [np.arange(num.shape[1])]
    done = []
    while todo:
        block = todo.pop()
        if len(block) <= max_rows:
            done.append(block)
            continue
        order = np.arange(len(block))
        if num.shape[0]:
            values = num[:, block]
            spread = values.max(axis=1) - values.min(axis=1)
            j = int(np.argmax(spread))
            if spread[j] > 0:
                order = np.argsort(values[j], kind="stable")
        half = len(block) // 2
        todo += [np.sort(block[order[half:]]), np.sort(block[order[:half]])]
    return done
