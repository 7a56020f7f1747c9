"""Straightforward (slow, obviously correct) implementations the tests compare pdanon against.

They build the full distance matrix and loop in Python, exactly as the reference library's
documentation describes its algorithms. Only for small tables.
"""

from __future__ import annotations

import numpy as np


def row_distance_matrix(columns, kinds, hamming=False):
    """columns: list of 1-D arrays of plain values; kinds: list of kinds.

    The TimeOptimal distance in the documented floating-point order (the reference's): every
    cell becomes a coordinate (real: (x - min) / (max - min), 0 for a constant column; ordered:
    first position in the sorted column / n; unordered and Hamming: 0), a pair's distance is
    numpy's sum of the absolute coordinate differences plus the number of unordered cells that
    differ."""
    n = len(columns[0])
    coords = np.zeros((n, len(kinds)))
    counted = []
    for j, (values, kind) in enumerate(zip(columns, kinds)):
        values = list(values)
        if hamming or kind == "unordered":
            counted.append(values)
            continue
        s = sorted(values)
        lo, hi = min(values), max(values)
        for i, v in enumerate(values):
            if kind == "ordered":
                coords[i, j] = s.index(v) / n
            else:
                coords[i, j] = 0.0 if hi == lo else (v - lo) / (hi - lo)
    d = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            d[i, j] = np.abs(coords[i] - coords[j]).sum() + sum(v[i] != v[j] for v in counted)
    return d


def time_optimal_groups(columns, kinds, k, hamming=False, sensitive=None, l=None):
    """Reference TimeOptimal grouping: list of groups, each a list of row indices in build
    order (seed first, then by (distance, index)); leftovers join the last group; with l, a
    group grows until k rows and l distinct values in every sensitive column, and a group that
    cannot be completed merges into the previous one."""
    n = len(columns[0])
    d = row_distance_matrix(columns, kinds, hamming)
    ungrouped = list(range(n))
    groups = []
    while len(ungrouped) >= k:
        seed = ungrouped[0]
        cand = sorted(ungrouped, key=lambda j: (d[seed, j], j))
        if l is None:
            take = cand[:k]
        else:
            take = None
            for p in range(k, len(cand) + 1):
                if all(len(set(np.asarray(s)[cand[:p]])) >= l for s in sensitive):
                    take = cand[:p]
                    break
            if take is None:
                break
        groups.append(take)
        ungrouped = [j for j in ungrouped if j not in set(take)]
    if ungrouped:
        seed = ungrouped[0]
        ungrouped = sorted(ungrouped, key=lambda j: (d[seed, j], j))
        if groups:
            groups[-1] = groups[-1] + ungrouped
        else:
            groups.append(list(ungrouped))
    return groups
