"""Helpers for comparing pdanon with the reference library cp2025: decoding the frozen
fixture's cells (tests/data/cp2025_reference.json), comparing tables cell by cell, and the
documented TimeOptimal rule written out straightforwardly (the reference's floating-point
distances, pair by pair; ties to the lower row index) with the recoding of its groups.

Used by tests/compat/test_cp2025.py, tests/algorithms/test_classic.py and
tests/algorithms/test_seed_examples.py.
"""

from __future__ import annotations

import math
import pathlib

import numpy as np
import pandas as pd

from pdanon.dtype import GeneralizationRange

#: the reference's outputs, frozen by tools/make_cp2025_fixture.py
FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "data" / "cp2025_reference.json"


def dec(cell):
    tag = cell[0]
    if tag == "v":
        return cell[1]
    if tag == "nan":
        return np.nan
    if tag == "r":
        return GeneralizationRange(cell[1], cell[2], cell[3])
    return GeneralizationRange(None, None, "unordered", cell[1])


def dec_table(t):
    if t is None:
        return None
    if isinstance(t, dict):
        return pd.DataFrame([[dec(c) for c in r] for r in t["frame"]], columns=t["columns"],
                            dtype=object)
    return [[dec(c) for c in r] for r in t]


def is_nan(v) -> bool:
    return isinstance(v, float) and math.isnan(v)


def same_cell(a, b, tol=1e-9) -> bool:
    if is_nan(a) or is_nan(b):
        return is_nan(a) and is_nan(b)
    ra, rb = isinstance(a, GeneralizationRange), isinstance(b, GeneralizationRange)
    if ra or rb:
        if not (ra and rb) or (a.kind == "unordered") != (b.kind == "unordered"):
            return False
        if a.kind == "unordered":
            return set(a.values_set) == set(b.values_set)
        return same_cell(a.min, b.min, tol) and same_cell(a.max, b.max, tol)
    if isinstance(a, float) or isinstance(b, float):
        try:
            return abs(float(a) - float(b)) <= tol * max(1.0, abs(float(a)))
        except (TypeError, ValueError):
            return False
    return a == b


def same_table(a, b, tol=1e-9) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if len(a) != len(b):
        return False
    return all(len(r) == len(s) and all(same_cell(x, y, tol) for x, y in zip(r, s))
               for r, s in zip(a, b))


def fixed_generalization(qi_rows, groups, kinds):
    """What correct generalization of ``groups`` gives: a constant column keeps its value,
    real/ordered become [min, max], unordered the set of the group's values."""
    out = [list(r) for r in qi_rows]
    for g in groups:
        for j, kind in enumerate(kinds):
            vals = [qi_rows[i][j] for i in g]
            if all(v == vals[0] for v in vals):
                continue
            if kind == "unordered":
                cell = GeneralizationRange(None, None, "unordered", vals)
            else:
                cell = GeneralizationRange(min(vals), max(vals), kind)
            for i in g:
                out[i][j] = cell
    return out



# ============================================================================ TimeOptimal


def exact_distances(qi_rows, kinds, hamming):
    """The TimeOptimal row distances in exact rational arithmetic (what the rule means on
    paper; ties here are not always ties in floating point)."""
    from fractions import Fraction

    n = len(qi_rows)
    per_col = []
    for j, kind in enumerate(kinds):
        col = [r[j] for r in qi_rows]
        if hamming or kind == "unordered":
            per_col.append(lambda a, b, col=col: Fraction(int(col[a] != col[b])))
        elif kind == "ordered":
            srt = sorted(col)
            rank = {v: srt.index(v) for v in set(col)}
            per_col.append(lambda a, b, col=col, rank=rank:
                           Fraction(abs(rank[col[a]] - rank[col[b]]), n))
        else:
            lo, hi = min(col), max(col)
            span = Fraction(hi) - Fraction(lo)
            per_col.append(lambda a, b, col=col, span=span:
                           abs(Fraction(col[a]) - Fraction(col[b])) / span if span else
                           Fraction(0))
    return [[sum((f(a, b) for f in per_col), Fraction(0)) for b in range(n)] for a in range(n)]


def float_distances(qi_rows, kinds, hamming):
    """The TimeOptimal row distances as the reference computes them in floating point, pair by
    pair: each cell becomes a coordinate (real: (x - min) / (max - min) in Python arithmetic,
    0 for a constant column; ordered: first position in the sorted column / n; unordered and
    Hamming: 0), the distance is numpy's sum of the absolute coordinate differences of the two
    rows plus the number of unordered cells that differ."""
    n = len(qi_rows)
    coords = [[0.0] * len(kinds) for _ in range(n)]
    counted = []
    for j, kind in enumerate(kinds):
        col = [r[j] for r in qi_rows]
        if hamming or kind == "unordered":
            counted.append(j)
        elif kind == "ordered":
            srt = sorted(col)
            for i, v in enumerate(col):
                coords[i][j] = srt.index(v) / n
        else:
            lo, hi = min(col), max(col)
            for i, v in enumerate(col):
                coords[i][j] = 0.0 if hi == lo else (v - lo) / (hi - lo)
    arrays = [np.array(c, dtype=np.float64) for c in coords]
    return [[float(np.sum(np.abs(arrays[a] - arrays[b])))
             + sum(qi_rows[a][j] != qi_rows[b][j] for j in counted) for b in range(n)]
            for a in range(n)]


def per_column_distances(qi_rows, kinds, hamming):
    """The same distances summed another way (pdanon's before it followed the reference):
    column by column, left to right, each column's |a - b| / (max - min) (real) or
    |rank(a) - rank(b)| / n (ordered) or 0/1 (unordered). Equal on paper; not always in
    floating point."""
    n = len(qi_rows)
    per_col = []
    for j, kind in enumerate(kinds):
        col = [r[j] for r in qi_rows]
        if hamming or kind == "unordered":
            per_col.append(lambda a, b, col=col: float(col[a] != col[b]))
        elif kind == "ordered":
            srt = sorted(col)
            per_col.append(lambda a, b, col=col, srt=srt:
                           abs(srt.index(col[a]) - srt.index(col[b])) / n)
        else:
            span = max(col) - min(col)
            per_col.append(lambda a, b, col=col, span=span:
                           abs(col[a] - col[b]) / span if span else 0.0)
    out = []
    for a in range(n):
        row = []
        for b in range(n):
            d = 0.0
            for f in per_col:
                d += f(a, b)
            row.append(d)
        out.append(row)
    return out


DISTANCES = {"float": float_distances, "exact": exact_distances,
             "per_column": per_column_distances}


def time_optimal_groups(qi_rows, sens_rows, kinds, k, l, hamming, distances="float"):
    """The documented TimeOptimal grouping, ties to the lower row index; group rows in build
    order (seed, then by distance). Distances as the reference computes them in floating point
    (``"float"``, :func:`float_distances`: the documented rule), or in exact arithmetic
    (``"exact"``), or summed column by column (``"per_column"``)."""
    d = DISTANCES[distances](qi_rows, kinds, hamming)
    n = len(qi_rows)
    free = [True] * n
    groups = []

    def diverse(rows):
        if l is None or not sens_rows or not sens_rows[0]:
            return True
        return all(len({sens_rows[r][j] for r in rows}) >= l for j in range(len(sens_rows[0])))

    for i in range(n):
        if not free[i]:
            continue
        order = sorted((r for r in range(n) if free[r]), key=lambda r: (d[i][r], r))
        group = []
        for r in order:
            if len(group) >= k and diverse(group):
                break
            group.append(r)
        for r in group:
            free[r] = False
        if len(group) < k or not diverse(group):
            if not groups:
                return None
            groups[-1] = groups[-1] + group
        else:
            groups.append(group)
    return groups


def recode(qi_rows, groups, kinds, method):
    """Straightforward recoding of groups, generalization with correct maxima."""
    if method == "g":
        return fixed_generalization(qi_rows, groups, kinds)
    out = [list(r) for r in qi_rows]
    for g in groups:
        for j, kind in enumerate(kinds):
            vals = [qi_rows[i][j] for i in g]
            if all(v == vals[0] for v in vals):
                continue
            if method == "s":
                cell = np.nan
            elif kind == "real":
                cell = float(np.mean(vals))
            elif kind == "ordered":
                cell = sorted(vals)[len(vals) // 2]
            else:
                counts = {}
                for v in vals:
                    counts[v] = counts.get(v, 0) + 1
                cell = max(counts, key=lambda v: (counts[v], -vals.index(v)))
            for i in g:
                out[i][j] = cell
    return out
