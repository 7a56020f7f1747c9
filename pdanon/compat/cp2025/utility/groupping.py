"""``cp2025.utility.groupping`` (sic): the TimeOptimal grouping on a given distance matrix.

pdanon's engine groups rows without a distance matrix (:mod:`pdanon.partition.nearest`);
these helpers apply the same rule to a matrix the caller already has: take the first ungrouped
row, add the ungrouped rows nearest to it (ties to the lower index) until the group has
``group_size`` rows (and, for l-diversity, ``l`` distinct values in every sensitive column);
rows that cannot complete a group join the previous one.

Example
-------
>>> import numpy as np
>>> d = np.array([[0, 1, 5, 6], [1, 0, 4, 5], [5, 4, 0, 1], [6, 5, 1, 0]])
>>> group_by_dist(d, 2)
[[0, 1], [2, 3]]
"""

from __future__ import annotations

import numpy as np

__all__ = ["group_by_dist", "group_by_dist_with_l_diverse", "is_list_l_diverse"]


def is_list_l_diverse(sens, l):
    """Do the rows ``sens`` hold at least ``l`` distinct values in every column? (False for
    no rows.)"""
    rows = [tuple(r) for r in sens]
    if not rows:
        return False
    return all(len({r[j] for r in rows}) >= l for j in range(len(rows[0])))


def _by_distance(dists, i, free):
    d = np.asarray(dists[i], dtype=np.float64)
    cand = np.flatnonzero(free)
    return cand[np.lexsort((cand, d[cand]))]


def group_by_dist(dists, group_size):
    """Groups (lists of row positions) of the TimeOptimal rule for k-anonymity."""
    n = len(dists)
    free = np.ones(n, dtype=bool)
    groups = []
    for i in range(n):
        if not free[i]:
            continue
        group = _by_distance(dists, i, free)[:group_size].tolist()
        free[group] = False
        if len(group) < group_size and groups:
            groups[-1] = groups[-1] + group
        else:
            groups.append(group)
    return groups


def group_by_dist_with_l_diverse(dists, sensitives, group_size, l):
    """Groups of the TimeOptimal rule for k-anonymity and l-diversity; ``None`` when not even
    the first group can be completed."""
    n = len(dists)
    sens = [tuple(r) for r in np.asarray(sensitives, dtype=object).reshape(n, -1).tolist()]
    free = np.ones(n, dtype=bool)
    groups = []
    for i in range(n):
        if not free[i]:
            continue
        order = _by_distance(dists, i, free).tolist()
        take = len(order)
        for p in range(min(group_size, len(order)), len(order) + 1):
            if p >= group_size and is_list_l_diverse([sens[r] for r in order[:p]], l):
                take = p
                break
        group = order[:take]
        free[group] = False
        complete = len(group) >= group_size and is_list_l_diverse([sens[r] for r in group], l)
        if not complete:
            if not groups:
                return None
            groups[-1] = groups[-1] + group
        else:
            groups.append(group)
    return groups
