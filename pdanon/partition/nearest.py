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

Row distance: the sum over quasi-identifiers, in column order, of a per-column distance in
[0, 1]: unordered → 0 if equal else 1; ordered → |rank(a) − rank(b)| / n with rank the first
position of the value in the sorted column; real → |a − b| / (max − min), 0 if max = min. The
suppression method uses the Hamming distance (every column compared for equality).

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

import numpy as np

from pdanon.encode import EncodedTable
from pdanon.partition import Partition, register
from pdanon.partition.common import no_progress


def _distance_columns(enc: EncodedTable, hamming: bool):
    """Per column: ("eq", codes) or ("abs", values, divisor) so that the distance to a seed is
    ``codes != codes[s]`` or ``|values - values[s]| / divisor``."""
    out = []
    n = enc.n
    for col in enc.columns:
        if hamming or col.kind == "unordered":
            out.append(("eq", col.codes, None))
        elif col.kind == "ordered":
            out.append(("abs", col.rank.astype(np.float64), float(n)))
        else:
            values = col.point
            span = float(np.max(values) - np.min(values)) if n else 0.0
            out.append(("abs", values, span if span > 0 else None))
    return out


def _distances(cols, s: int) -> np.ndarray:
    """Distances from position ``s`` to every position of the (compacted) column arrays."""
    d = np.zeros(len(cols[0][1]), dtype=np.float64)
    for how, v, divisor in cols:
        if how == "eq":
            d += v != v[s]
        elif divisor is not None:  # a constant real column contributes 0
            d += np.abs(v - v[s]) / divisor
    return d


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
    column, or None."""
    need = k
    for codes in sensitive:
        c = codes[order]
        _, first = np.unique(c, return_index=True)
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
    all_cols = _distance_columns(enc, hamming)
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

    while live >= k:
        while gone[start]:
            start += 1
        dist = _distances(cols, start)
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
            cols = [(how, v[keep], div) for how, v, div in cols]
            gone = np.zeros(len(alive), dtype=bool)
            start = 0

    rest = np.flatnonzero(~dead)
    if len(rest):
        # the rest is gathered like a group from its first row (seed first, then by
        # (distance, row index)) and merged into the previous group in that order
        dist = _distances([(how, v[rest], div) for how, v, div in all_cols], 0)
        rest = rest[np.lexsort((rest, dist))]
        target = group - 1 if group > 0 else 0
        labels[rest] = target
        pieces.append(rest)
    order = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
    return Partition(labels, order)


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
    sensitive = [enc.sensitive[c] for c in enc.sensitive] if l else None
    return nearest_partition(enc, k=k, l=l, sensitive=sensitive, hamming=method == "suppress")
