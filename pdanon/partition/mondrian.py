"""Mondrian: strict multidimensional partitioning (LeFevre, DeWitt & Ramakrishnan 2006).

Changes: **partitioning** only. The privacy model decides whether a split is allowed; recoding
is done afterwards by :mod:`pdanon.recode` (a generalized cell is exactly the min..max, or the
value set, of the rows of its partition, so it is truthful by construction).

The rule:

1. start with the whole table as one partition (it satisfies the model: the engine checks
   feasibility first);
2. order the quasi-identifiers of a partition by their *normalized width* in that partition,
   widest first: ``real`` - value span / the whole table's value span; ``ordered`` - rank span /
   the whole table's rank span (rank = first position of a value in the sorted column);
   ``unordered`` - (distinct values − 1) / (the whole table's distinct values − 1);
3. split the partition on the widest column at its median: ``real`` / ``ordered`` rows go left
   when their value is <= the median value or < it, whichever cut between two distinct values
   lies nearer the middle (strict partitioning: equal values never go to different sides);
   ``unordered`` values are split into two sets (see *unordered splits*);
4. the split is *allowed* when both halves satisfy the model (k rows, l-diversity of any
   variant, t-closeness: ``model.groups_ok`` on the two halves). When it is not, other cuts of
   the same column are tried before the next widest column: every cut between two distinct
   values (for ``balanced`` unordered columns: between categories ranked most frequent first,
   ties by code) that leaves at least ``k`` rows (the model's ``min_size``) on each side,
   ordered by its distance from the middle, | left rows − right rows | (ties: more rows on
   the left); when there are more than :data:`FALLBACK_CUTS` (8), only ``FALLBACK_CUTS`` of
   them, evenly spaced in that order (the candidate of rank ``r`` of ``V`` when
   ``r · FALLBACK_CUTS mod V < FALLBACK_CUTS``: the nearest, and then outwards to the
   farthest). The first allowed one, the nearest the middle, is taken. Work per partition and
   column: at most ``FALLBACK_CUTS`` times its rows, all candidates of all partitions checked
   in one ``model.groups_ok`` call. Under k-anonymity alone no other cut is tried: the median
   cut is the most balanced one, so when its halves are too small every cut's are. A
   partition no column can split is final;
5. repeat on every new partition.

Other cuts matter for models that look at the sensitive values: on a table shaped like the
``fair`` survey (6,000 rows, five coarse quasi-identifiers, a rating as skewed as 42 / 35 / 16
/ 5.5 / 1.5 %), recursive (c=2, l=3)-diversity gets 51 classes instead of one (every median
cut left one half with too many 5s); on Adult, distinct 2-diversity of salary with k=5 gets
2,341 classes instead of 2,290 (docs/algorithms.md).

Unordered splits (``unordered_split=``) decide the quality for nominal columns:

* ``"balanced"`` (default) - the partition's categories, most frequent first, each go to the
  half with fewer rows so far (greedy number partitioning): the two halves are as equal as the
  category sizes permit, which keeps both halves splittable longest;
* ``"frequency"`` / ``"appearance"`` / ``"sensitive"`` - categories in one global order (the
  whole table's frequency, most frequent first; first appearance in the table; or the share of
  the first sensitive column's most common value) and a median cut in that order.

``benchmarks/bench_engine.py`` measures all four on Adult (k=5): ``balanced`` gives the most
equivalence classes.

Implementation: level by level over all open partitions at once - per level and column one
``np.sort`` of (partition, value) keys gives every partition's median, ``reduceat`` gives the
spans, ``bincount`` the distinct counts; rows are regrouped by a stable O(n) scatter. No
recursion and no per-row Python. O(n log n) per level, about log2(n / k) levels.

Example
-------
>>> import pandas as pd
>>> from pdanon.encode import encode_table
>>> from pdanon.models import KAnonymity
>>> from pdanon.roles import resolve_roles
>>> df = pd.DataFrame({"age": [21, 22, 23, 24, 50, 51, 52, 53]})
>>> p = mondrian_partition(encode_table(df, resolve_roles(df)), KAnonymity(2))
>>> p.labels.tolist()
[0, 0, 1, 1, 2, 2, 3, 3]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdanon.encode import EncodedColumn, EncodedTable, missing_bound, range_scale
from pdanon._errors import InvalidInputError
from pdanon.partition import Partition, register
from pdanon.partition.common import no_progress, sensitive_context, sizes_decide
from pdanon.partition.population import RegionPopulation, local_population
from pdanon.progress import progress_bar

UNORDERED_SPLITS = ("balanced", "frequency", "appearance", "sensitive")
#: tables from this many rows may show a progress bar (progress=None; see pdanon.progress)
PROGRESS_ROWS = 200_000

# a dense (partition x category) table is used when it is at most this many cells per row
_DENSE_FACTOR = 8

#: the balanced split places categories one by one up to this many per partition, else by
#: runs of equal sizes (:func:`_balanced_sides`)
GREEDY_STEPS = 64

#: cuts tried per partition and column when the median cut is not allowed (module docstring);
#: 0: median cuts only (the Dask top cuts, :mod:`pdanon.dask._mondrian`, still choose so)
FALLBACK_CUTS = 8


@dataclass
class _Dim:
    """One quasi-identifier as the splitter sees it."""

    key: np.ndarray  # int per row; for range dims in value order, for set dims category ids
    ncodes: int
    is_set: bool  # width = distinct count (unordered) instead of a span
    weight: np.ndarray | None  # range dims: measure of every code (value or rank)
    scale: float  # the whole table's width; 0 means the column is constant
    balanced: bool  # set dims: greedy balanced split instead of a median cut in key order


def _global_order_key(col: EncodedColumn, how: str, sensitive: dict) -> np.ndarray:
    """Remap an unordered column's codes so that code order is the chosen category order."""
    codes = col.codes
    m = int(codes.max()) + 1
    counts = np.bincount(codes, minlength=m)
    if how == "appearance":
        return codes
    if how == "frequency":
        order = np.lexsort((np.arange(m), -counts))
    elif how == "sensitive":
        if not sensitive:
            raise InvalidInputError(
                "unordered_split='sensitive' needs a sensitive column; pass sensitive=[...] "
                "or choose unordered_split='balanced'"
            )
        s = np.asarray(next(iter(sensitive.values())), dtype=np.int64)
        top = int(np.argmax(np.bincount(s)))
        share = np.bincount(codes, weights=(s == top).astype(np.float64), minlength=m)
        share = share / np.maximum(counts, 1)
        order = np.lexsort((np.arange(m), share))
    else:
        raise InvalidInputError(
            f"unknown unordered_split {how!r}; use one of {list(UNORDERED_SPLITS)}"
        )
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.arange(m)
    return rank[codes]


def _dims(enc: EncodedTable, unordered_split: str) -> list[_Dim]:
    out = []
    for col in enc.columns:
        codes = np.asarray(col.codes, dtype=np.int64)
        m = int(codes.max()) + 1 if len(codes) else 1
        if col.kind == "unordered":
            balanced = unordered_split == "balanced"
            key = codes if balanced else _global_order_key(col, unordered_split, enc.sensitive)
            distinct = int(np.count_nonzero(np.bincount(codes, minlength=m)))
            out.append(_Dim(key, m, True, None, float(distinct - 1), balanced))
            continue
        if col.kind == "ordered":
            counts = np.bincount(codes, minlength=m)
            weight = (np.cumsum(counts) - counts).astype(np.float64)  # rank of every code
        else:  # real: the value of every code (midpoint of a range for generalized input)
            weight = np.zeros(m)
            weight[codes] = col.point
        present = np.bincount(codes, minlength=m) > 0
        if col.na is not None:  # the missing code (the last) spans no width of its own
            present[len(col.categories):] = False
        span = float(weight[present].max() - weight[present].min()) if present.any() else 0.0
        if col.na is not None:  # the encoder's rule: one whole span above the largest value
            top = float(weight[present].max()) if present.any() else 0.0
            weight[len(col.categories):] = missing_bound(top, span)
            span = range_scale(span, int(present.sum()), True)
        out.append(_Dim(codes, m, False, weight, span, False))
    return out


def _starts(sizes: np.ndarray) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)


def _pair_table(sid: np.ndarray, key: np.ndarray, nseg: int, ncodes: int):
    """Distinct (partition, category) pairs: (pair id per row, pair partition, pair code,
    pair count)."""
    m = len(sid)
    pair = sid * ncodes + key
    if nseg * ncodes <= _DENSE_FACTOR * m + (1 << 16):
        counts = np.bincount(pair, minlength=nseg * ncodes)
        present = np.flatnonzero(counts)
        index = np.full(nseg * ncodes, -1, dtype=np.int64)
        index[present] = np.arange(len(present))
        return index[pair], present // ncodes, present % ncodes, counts[present]
    uniq, inverse, counts = np.unique(pair, return_inverse=True, return_counts=True)
    return inverse.reshape(-1), uniq // ncodes, uniq % ncodes, counts


def _widths(dims: list[_Dim], keys: list, sid: np.ndarray, starts: np.ndarray,
            nseg: int) -> np.ndarray:
    """Normalized width of every (open partition, column); ``keys[j]`` holds column j's key
    of every open row, aligned with ``sid``."""
    w = np.zeros((nseg, len(dims)))
    for j, d in enumerate(dims):
        if d.scale <= 0:
            continue
        key = keys[j]
        if d.is_set:
            pair = sid * d.ncodes + key
            if nseg * d.ncodes <= _DENSE_FACTOR * len(key) + (1 << 16):
                seen = np.bincount(pair, minlength=nseg * d.ncodes).reshape(nseg, d.ncodes)
                distinct = np.count_nonzero(seen, axis=1)
            else:  # sort-based (np.unique without return_* hashes, slowly, in numpy 2.4)
                srt = np.sort(pair)
                head = np.ones(len(srt), dtype=bool)
                head[1:] = srt[1:] != srt[:-1]
                distinct = np.bincount(srt[head] // d.ncodes, minlength=nseg)
            w[:, j] = (distinct - 1) / d.scale
        else:
            lo = np.minimum.reduceat(key, starts)
            hi = np.maximum.reduceat(key, starts)
            w[:, j] = (d.weight[hi] - d.weight[lo]) / d.scale
    return w


def _median_sides(key: np.ndarray, sid: np.ndarray, nseg: int,
                  ncodes: int) -> tuple[np.ndarray, np.ndarray]:
    """True for rows going right under the median cut of each partition (rows grouped by
    ``sid`` ascending), and each partition's threshold (left: ``key <= threshold``). Every
    partition here has at least two distinct keys."""
    sizes = np.bincount(sid, minlength=nseg)
    starts = _starts(sizes)
    composite = sid * ncodes + key
    srt = np.sort(composite)
    base = np.arange(nseg, dtype=np.int64) * ncodes
    med = srt[starts + sizes // 2] - base
    less = np.searchsorted(srt, base + med, side="left") - starts
    leq = np.searchsorted(srt, base + med, side="right") - starts
    # the cut nearer the middle that leaves both halves non-empty
    use_less = np.abs(2 * less - sizes) < np.abs(2 * leq - sizes)
    use_less |= leq == sizes
    use_less &= less > 0
    threshold = med - use_less.astype(np.int64)  # left: key <= threshold
    return key > threshold[sid], threshold


def _fallback_sides(key: np.ndarray, sid: np.ndarray, nseg: int, ncodes: int,
                    median: np.ndarray | None, k: int, allowed) -> tuple[np.ndarray, np.ndarray]:
    """Other cuts of partitions whose median cut is not allowed (rule 4 of the module
    docstring): every cut between two distinct keys that leaves at least ``k`` rows on both
    sides, other than the median cut ``median`` (a threshold per partition, or None), ordered
    by its distance from the middle (|left rows - right rows|; ties: more rows on the left);
    when there are more than ``FALLBACK_CUTS`` of them, ``FALLBACK_CUTS`` evenly spaced in that
    order (the nearest always among them). ``allowed(halves, at)`` answers for the candidate
    halves (labels ``2 * candidate + side`` over the rows ``at`` of ``key``). Returns the sides
    of the first allowed cut of every partition (False where there is none) and whether the
    partition has one. Work: at most ``FALLBACK_CUTS`` times the partition's rows."""
    pair_of_row, pseg, pcode, pcount = _pair_table(sid, key, nseg, ncodes)
    sizes = np.bincount(sid, minlength=nseg)
    left = np.cumsum(pcount) - _starts(sizes)[pseg]  # rows at or below the pair's key
    valid = (left >= k) & (sizes[pseg] - left >= k)
    if median is not None:
        valid &= pcode != median[pseg]
    cand = np.flatnonzero(valid)
    cseg, cleft = pseg[cand], left[cand]
    order = np.lexsort((-cleft, np.abs(2 * cleft - sizes[cseg]), cseg))
    cand, cseg = cand[order], cseg[order]
    per_seg = np.bincount(cseg, minlength=nseg)
    rank = np.arange(len(cand)) - _starts(per_seg)[cseg]
    keep = (rank * FALLBACK_CUTS) % np.maximum(per_seg[cseg], 1) < FALLBACK_CUTS
    cand, cseg = cand[keep], cseg[keep]
    found = np.zeros(nseg, dtype=bool)
    if not len(cand):
        return np.zeros(len(key), dtype=bool), found
    # every candidate sees every row of its partition (rows are grouped by ``sid``)
    row_starts = _starts(sizes)
    csize = sizes[cseg]
    at = np.repeat(row_starts[cseg] - _starts(csize), csize) + np.arange(int(csize.sum()))
    which = np.repeat(np.arange(len(cand)), csize)
    halves = 2 * which + (key[at] > pcode[cand][which])
    good = np.asarray(allowed(halves, at), dtype=bool)
    good = np.concatenate([good, np.ones(2 * len(cand) - len(good), dtype=bool)])
    ok = np.flatnonzero(good[0::2] & good[1::2])
    segs, first = np.unique(cseg[ok], return_index=True)  # candidates are in rank order
    found[segs] = True
    threshold = np.full(nseg, np.iinfo(np.int64).max)
    threshold[segs] = pcode[cand[ok[first]]]
    return key > threshold[sid], found


def _balanced_sides(key: np.ndarray, sid: np.ndarray, nseg: int, ncodes: int) -> np.ndarray:
    """Greedy balanced two-way split of each partition's categories (largest first to the
    lighter half; ties go left). Every partition here has at least two categories.

    The greedy walk is sequential. When no partition has more than :data:`GREEDY_STEPS`
    categories they are placed one rank at a time (vectorized over partitions); otherwise a
    *run* of categories of one size ``w`` is placed in closed form: with ``d`` = left − right
    rows before it, the first ``ceil(d / w)`` categories (``d > 0``) go right, or the first
    ``floor(-d / w) + 1`` (``d <= 0``) go left, and the rest alternate. A partition of ``m``
    rows has fewer than ``sqrt(2 m)`` distinct sizes, so that loop runs fewer than
    ``sqrt(2 m)`` times, not once per category: O(pairs) work per round however many distinct
    values a column has. Both give the same sides."""
    pair_of_row, pseg, pcode, pcount = _pair_table(sid, key, nseg, ncodes)
    order = np.lexsort((pcode, -pcount, pseg))
    pseg_o, pcount_o = pseg[order], pcount[order].astype(np.int64)
    per_seg = np.bincount(pseg_o, minlength=nseg)
    if int(per_seg.max()) <= GREEDY_STEPS:
        side_o = _greedy_by_rank(pseg_o, pcount_o, per_seg, nseg)
    else:
        side_o = _greedy_by_runs(pseg_o, pcount_o, nseg)
    side = np.empty(len(order), dtype=bool)
    side[order] = side_o
    return side[pair_of_row]


def _greedy_by_rank(pseg_o, pcount_o, per_seg, nseg: int) -> np.ndarray:
    """The greedy rule one category rank at a time (pairs sorted by partition, largest
    first): True for a category that goes right."""
    rank = np.arange(len(pseg_o)) - _starts(per_seg)[pseg_o]
    side_o = np.zeros(len(pseg_o), dtype=bool)
    left = np.zeros(nseg, dtype=np.int64)
    right = np.zeros(nseg, dtype=np.int64)
    for r in range(int(per_seg.max())):  # at most GREEDY_STEPS
        at = np.flatnonzero(rank == r)
        s = pseg_o[at]
        go_right = right[s] < left[s]
        side_o[at] = go_right
        np.add.at(right, s[go_right], pcount_o[at][go_right])
        np.add.at(left, s[~go_right], pcount_o[at][~go_right])
    return side_o


def _greedy_by_runs(pseg_o, pcount_o, nseg: int) -> np.ndarray:
    """The greedy rule one run of equal category sizes at a time (see
    :func:`_balanced_sides`): True for a category that goes right."""
    head = np.ones(len(pseg_o), dtype=bool)
    head[1:] = (pseg_o[1:] != pseg_o[:-1]) | (pcount_o[1:] != pcount_o[:-1])
    run_start = np.flatnonzero(head)
    run_len = np.diff(np.append(run_start, len(pseg_o)))
    run_seg, run_w = pseg_o[run_start], pcount_o[run_start]
    run_rank = np.arange(len(run_start)) - _starts(np.bincount(run_seg, minlength=nseg))[run_seg]
    # the runs rank by rank (every partition's first run, then its second ...): slices
    by_rank = np.argsort(run_rank, kind="stable")
    bounds = np.searchsorted(run_rank[by_rank], np.arange(int(run_rank.max()) + 2))
    seg_r, w_r, len_r = run_seg[by_rank], run_w[by_rank], run_len[by_rank]
    d_r = np.empty(len(by_rank), dtype=np.int64)  # left rows - right rows before each run
    diff = np.zeros(nseg, dtype=np.int64)  # ... so far, per partition
    for r in range(len(bounds) - 1):  # fewer than sqrt(2 * rows) rounds
        a, b = bounds[r], bounds[r + 1]
        seg, w, length = seg_r[a:b], w_r[a:b], len_r[a:b]
        d = diff[seg]
        d_r[a:b] = d
        right, lead = _run_lead(d, w, length)
        rest = length - lead
        rights = np.where(right, lead + rest // 2, rest - rest // 2)
        diff[seg] = d + w * (length - 2 * rights)
    run_d = np.empty(len(by_rank), dtype=np.int64)
    run_d[by_rank] = d_r
    run_of = np.cumsum(head) - 1
    right, lead = _run_lead(run_d[run_of], run_w[run_of], run_len[run_of])
    j = np.arange(len(pseg_o)) - run_start[run_of]  # position in its run
    return np.where(j < lead, right, ((j - lead) % 2 == 1) == right)


def _run_lead(d: np.ndarray, w: np.ndarray, length: np.ndarray):
    """Where a run of ``length`` categories of ``w`` rows starts (``d`` = left - right rows
    before it): whether its first categories go right (``d > 0``), and how many go that way
    in a row: ``ceil(d / w)`` right, or ``floor(-d / w) + 1`` left (at most ``length``)."""
    right = d > 0
    return right, np.minimum((np.abs(d) + w - right) // w, length)


def _regroup(sid: np.ndarray, side: np.ndarray, starts: np.ndarray,
             sizes: np.ndarray) -> np.ndarray:
    """New position of every row for a stable partition of every segment: left rows first,
    then right rows (O(n), no sort)."""
    m = len(sid)
    pos = np.arange(m, dtype=np.int64) - starts[sid]
    cs = np.cumsum(side, dtype=np.int64)
    before_start = np.where(starts > 0, cs[np.maximum(starts - 1, 0)], 0)
    right_before = cs - side - before_start[sid]
    right_total = np.bincount(sid, weights=side, minlength=len(sizes)).astype(np.int64)
    left_total = sizes - right_total
    return starts[sid] + np.where(side, left_total[sid] + right_before, pos - right_before)


def _moved(values: np.ndarray, new_pos: np.ndarray) -> np.ndarray:
    out = np.empty_like(values)
    out[new_pos] = values
    return out


def mondrian_partition(enc: EncodedTable, model, *, context=None,
                       unordered_split: str = "balanced",
                       population: RegionPopulation | None = None, bar=None) -> Partition:
    """Partition the rows of ``enc`` with Mondrian (module docstring).

    Parameters
    ----------
    enc : EncodedTable
    model : PrivacyModel
        ``KAnonymity`` alone is checked by counting; any other model (or an ``AllOf``) through
        ``model.groups_ok`` on the candidate halves.
    context : SensitiveData, optional
        The model's context (``model.context(df, sensitive)``); built from ``enc.sensitive``
        (as unordered columns) when omitted.
    unordered_split : {"balanced", "frequency", "appearance", "sensitive"}
    population : RegionPopulation, optional
        For a model read against a population table: the population rows, carried through
        the cuts; every candidate half is checked with the population rows inside its cells
        (``enc`` is then the sample encoded with the population).
    bar : pdanon.progress.Bar, optional
        Told of the rows of every partition that becomes final (a progress bar over ``n``
        rows; the engine's entry point :func:`mondrian` opens one, a Dask part's task none).

    Returns a :class:`Partition` whose groups are the final partitions, numbered by their
    first row (``order`` is None: aggregation ties go to the value met first in row order).
    """
    if unordered_split not in UNORDERED_SPLITS:
        raise InvalidInputError(
            f"unknown unordered_split {unordered_split!r}; use one of {list(UNORDERED_SPLITS)}"
        )
    n = enc.n
    labels = np.zeros(n, dtype=np.int64)
    if n == 0:
        return Partition(labels)
    k = model.requirements().min_size
    only_k = sizes_decide(model) and population is None
    if not only_k:
        context = sensitive_context(enc, context)
    if population is not None:
        everything = np.zeros(n, dtype=np.int64)
        if not population.groups_ok(model, everything, np.arange(n), everything,
                                    context)[0]:
            from pdanon._errors import InfeasibleError

            raise InfeasibleError(
                f"{model!r} is not met even by the whole table as one class (its published "
                f"cells match too few population rows, or too many of them are in the sample); "
                f"relax the model's parameters")
    dims = _dims(enc, unordered_split)
    q = len(dims)

    rows = np.arange(n, dtype=np.int64)  # open partitions, contiguous
    # every column's key of the open rows, kept in the same order as ``rows`` (moving them
    # with the rows is cache-friendly; gathering from the original order each level is not)
    keys = [d.key.astype(np.int32 if d.ncodes < 2**31 else np.int64) for d in dims]
    sizes = np.array([n], dtype=np.int64)
    group = 0
    while len(sizes):
        small = sizes < 2 * k  # no split can leave k rows on both sides: final now
        if small.any():
            starts = _starts(sizes)
            sid = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
            mask = small[sid]
            labels[rows[mask]] = group + (np.cumsum(small) - 1)[sid[mask]]
            group += int(small.sum())
            if bar is not None:
                bar.update(int(sizes[small].sum()))
            if population is not None:
                population.keep(~small)
            rows = rows[~mask]
            keys = [key[~mask] for key in keys]
            sizes = sizes[~small]
            if not len(sizes):
                break
        nseg = len(sizes)
        starts = _starts(sizes)
        sid = np.repeat(np.arange(nseg, dtype=np.int64), sizes)
        w = _widths(dims, keys, sid, starts, nseg)
        choice = np.argsort(-w, axis=1, kind="stable")
        side = np.zeros(len(rows), dtype=bool)
        split = np.zeros(nseg, dtype=bool)
        pending = np.ones(nseg, dtype=bool)

        def check(halves, pos, sid=sid, rows=rows):
            """Does every candidate half (labels over the open positions ``pos``) meet the
            model?"""
            ctx = _take(context, rows[pos])
            if population is None:
                return model.groups_ok(halves, ctx)
            return population.groups_ok(model, halves, rows[pos], sid[pos], ctx)
        for r in range(q):
            dim = choice[:, r]
            pending &= w[np.arange(nseg), dim] > 0
            if not pending.any():
                break
            for j in np.unique(dim[pending]):
                segs = pending & (dim == j)
                at = np.flatnonzero(segs[sid])
                local = np.cumsum(segs) - 1  # renumber the chosen partitions 0..c-1
                lsid = local[sid[at]]
                c = int(segs.sum())
                d = dims[j]
                key = keys[j][at].astype(np.int64)
                median = None
                if d.balanced:
                    s = _balanced_sides(key, lsid, c, d.ncodes)
                else:
                    s, median = _median_sides(key, lsid, c, d.ncodes)
                right = np.bincount(lsid, weights=s, minlength=c)
                left = np.bincount(lsid, minlength=c) - right
                ok = (left >= k) & (right >= k)
                if not only_k:  # k alone: no cut is more balanced than the median's
                    halves = 2 * lsid + s
                    good = check(halves, at)
                    good = np.concatenate([good, np.ones(2 * c - len(good), dtype=bool)])
                    ok &= good[0::2] & good[1::2]
                    if not ok.all():
                        s, ok = _retry(key, lsid, s, ok, d, median, k,
                                       lambda h, p, at=at: check(h, at[p]))
                chosen = np.flatnonzero(segs)[ok]
                split[chosen] = True
                pending[chosen] = False
                take = ok[lsid]
                side[at[take]] = s[take]
        fin = ~split  # partitions no column can split: final groups
        if fin.any():
            mask = fin[sid]
            labels[rows[mask]] = group + (np.cumsum(fin) - 1)[sid[mask]]
            group += int(fin.sum())
            if bar is not None:
                bar.update(int(sizes[fin].sum()))
        if not split.any():
            break
        if population is not None:  # into the child whose cells contain them
            moving = split[sid]
            child = 2 * (np.cumsum(split) - 1)[sid[moving]] + side[moving]
            population.route(child, rows[moving], sid[moving])
        new_pos = _regroup(sid, side, starts, sizes)
        keep = _moved(split[sid], new_pos)
        rows = _moved(rows, new_pos)[keep]
        keys = [_moved(key, new_pos)[keep] for key in keys]
        right = np.bincount(sid, weights=side, minlength=nseg).astype(np.int64)[split]
        left = sizes[split] - right
        sizes = np.column_stack([left, right]).reshape(-1)
        if not (sizes > 0).all():  # a cut that leaves a side empty would repeat forever
            raise no_progress("mondrian", "a cut left one side of a partition empty")

    # number the groups by their first row (row 0's group is 0)
    _, first = np.unique(labels, return_index=True)
    rank = np.empty(group, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(group)
    return Partition(rank[labels], note=f"mondrian: unordered_split={unordered_split!r}")


def _retry(key, lsid, s, ok, d: _Dim, median, k: int, check):
    """Sides and success after trying other cuts (:func:`_fallback_sides`) in the partitions
    (numbered by ``lsid``) whose first cut ``s`` failed (``ok`` False); ``check(halves,
    positions)`` answers for candidate halves over positions of ``key``."""
    fail = ~ok
    at = np.flatnonzero(fail[lsid])
    local = np.cumsum(fail) - 1
    fkey = key[at]
    if d.balanced:  # the partition's categories, most frequent first (ties: lower code)
        fkey = _frequency_rank(fkey, local[lsid[at]], int(fail.sum()), d.ncodes)
        median = None
    elif median is not None:  # thresholds of the failing partitions, numbered as ``local``
        median = median[fail]
    ncodes = d.ncodes

    def allowed(halves, rows):
        return check(halves, at[rows])

    side, found = _fallback_sides(fkey, local[lsid[at]], int(fail.sum()), ncodes, median,
                                  max(k, 1), allowed)
    s = s.copy()
    s[at] = side
    ok = ok.copy()
    ok[fail] = found
    return s, ok


def _frequency_rank(key: np.ndarray, sid: np.ndarray, nseg: int, ncodes: int) -> np.ndarray:
    """Every row's category rank in its partition: most frequent first, ties by code."""
    pair_of_row, pseg, pcode, pcount = _pair_table(sid, key, nseg, ncodes)
    order = np.lexsort((pcode, -pcount, pseg))
    per_seg = np.bincount(pseg, minlength=nseg)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order)) - _starts(per_seg)[pseg[order]]
    return rank[pair_of_row]


def _take(context, rows: np.ndarray):
    return context.take(rows) if hasattr(context, "take") else context


@register("mondrian", options=("unordered_split", "max_suppressed_rows"),
          supports=("population",))
def mondrian(enc: EncodedTable, model, *, method: str, frame=None, context=None,
             unordered_split: str = "balanced", max_suppressed_rows=None) -> Partition:
    """Engine entry point (``algorithm="mondrian"``): works for every privacy model, and for
    k-map and δ-presence against a population table (δmin = 0) with ``method="generalize"``
    or ``"suppress"``: the population rows ride through the cuts (:class:`RegionPopulation`).

    ``max_suppressed_rows`` is accepted for a uniform API and never used: every Mondrian
    partition satisfies the model, so no row needs suppressing.
    """
    joint = local_population(enc, model, frame, method, "mondrian")
    if joint is not None and method != "generalize":
        raise InvalidInputError(
            f"algorithm='mondrian' enforces {model!r} with method='generalize' (its published "
            f"ranges and sets lie inside its cuts, so every population row matches at most one "
            f"class); got method={method!r}; use algorithm='group_join' for 'suppress'")
    with progress_bar(enc.n, desc="mondrian: rows in final classes", unit="row",
                      long=enc.n >= PROGRESS_ROWS) as bar:
        if joint is None:
            return mondrian_partition(enc, model, context=context,
                                      unordered_split=unordered_split, bar=bar)
        columns, pop, _ = joint
        return mondrian_partition(EncodedTable(columns, enc.sensitive, enc.n), model,
                                  context=context, unordered_split=unordered_split,
                                  population=RegionPopulation(columns, pop), bar=bar)
