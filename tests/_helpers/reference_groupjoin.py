"""Straightforward implementations for the GroupJoin and exact-suppression tests.

Everything here loops over groups, partners and cells in plain Python, exactly as the reference's rule states (docs/group_join.md)
the rules; only for small tables (a few hundred rows for GroupJoin, ~15 cells for brute force).

* :func:`direct_group_join` - the GroupJoin rule with a full scan of partners, the per-column
  losses written cell by cell, the same seeded choice of the violating group and the same
  tie rule as pdanon (so ``partners="all"`` must reproduce it group for group).
* :func:`brute_force_suppression` - the reference's Baseline: try suppression patterns in order
  of increasing size and return the first that satisfies the model.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np

TIE = 1e-9


# ============================================================================ losses


def column_loss(method, kind, cells, column):
    """Loss of one group's cells of one column (``column``: all cells of the table)."""
    size = len(cells)
    if method == "suppress":
        return 0.0 if len(set(cells)) == 1 else float(size)
    if kind == "unordered":
        if method == "generalize":
            return size - size / len(set(cells))
        return float(size - max(Counter(cells).values()))
    if kind == "real":
        lo_all, hi_all = min(column), max(column)
        if hi_all == lo_all:
            return 0.0
        if method == "generalize":
            lo, hi = min(cells), max(cells)
            if lo == hi:
                return 0.0
            return sum(((lo - x) ** 2 + (hi - x) ** 2) / (2 * (hi_all - lo_all) * (hi - lo))
                       for x in cells)
        mean = sum(cells) / size
        return sum(abs(x - mean) for x in cells) / (hi_all - lo_all)
    # ordered: rank = first position in the sorted column
    ordered = sorted(column)
    n = len(column)
    if n <= 1:
        return 0.0
    rank = {}
    for i, v in enumerate(ordered):
        rank.setdefault(v, i)
    if method == "generalize":
        r = [rank[x] for x in cells]
        lo, hi = min(r), max(r)
        if lo == hi:
            return 0.0
        return sum(((lo - x) ** 2 + (hi - x) ** 2) / (2 * (n - 1) * (hi - lo)) for x in r)
    med = sorted(cells)[size // 2]
    return sum(abs(rank[x] - rank[med]) for x in cells) / (n - 1)


def group_loss(method, kinds, columns, rows):
    return sum(column_loss(method, kind, [col[r] for r in rows], col)
               for kind, col in zip(kinds, columns))


# ============================================================================ sensitive distances


def total_variation(group, whole):
    q = Counter(whole)
    p = Counter(group)
    return 0.5 * sum(abs(p[v] / len(group) - q[v] / len(whole)) for v in q)


def jensen_shannon(group, whole):
    q = Counter(whole)
    p = Counter(group)
    out = 0.0
    for v in q:
        pv, qv = p[v] / len(group), q[v] / len(whole)
        m = (pv + qv) / 2
        if pv > 0:
            out += 0.5 * pv * math.log(pv / m)
        if qv > 0:
            out += 0.5 * qv * math.log(qv / m)
    return out


def ordered_emd(group, whole):
    values = sorted(set(whole))
    m = len(values)
    if m <= 1:
        return 0.0
    p = Counter(group)
    q = Counter(whole)
    cum, total = 0.0, 0.0
    for v in values[:-1]:
        cum += p[v] / len(group) - q[v] / len(whole)
        total += abs(cum)
    return total / (m - 1)


def wasserstein(group, whole):
    from scipy.stats import wasserstein_distance

    return wasserstein_distance(group, whole) / (max(whole) - min(whole) + 1e-10)


def distance(name, kind, group, whole):
    if name == "reference":
        name = "wasserstein" if kind == "real" else "jensen_shannon"
    if name == "emd":
        return total_variation(group, whole) if kind == "unordered" else ordered_emd(group, whole)
    if name == "jensen_shannon":
        return jensen_shannon(group, whole)
    if name == "wasserstein":
        return wasserstein(group, whole) if kind == "real" else ordered_emd(group, whole)
    raise ValueError(name)


# ============================================================================ models


class Model:
    """k (always), plus distinct l or t over the sensitive columns."""

    def __init__(self, k=1, l=None, t=None, distance="emd", sensitive=(), sens_kinds=()):
        self.k, self.l, self.t, self.distance = k, l, t, distance
        self.sensitive = [list(s) for s in sensitive]
        self.sens_kinds = list(sens_kinds) or ["unordered"] * len(self.sensitive)

    @property
    def family(self):
        return "t" if self.t is not None else "l" if self.l is not None else "k"

    def ok(self, rows):
        if len(rows) < self.k:
            return False
        for s, kind in zip(self.sensitive, self.sens_kinds):
            vals = [s[r] for r in rows]
            if self.l is not None and len(set(vals)) < self.l:
                return False
            if self.t is not None and distance(self.distance, kind, vals, s) > self.t + 1e-12:
                return False
        return True

    def extras(self, rows):
        out = []
        for s, kind in zip(self.sensitive, self.sens_kinds):
            vals = [s[r] for r in rows]
            if self.family == "l":
                out.append(min(len(set(vals)), self.l))
            elif self.family == "t":
                out.append(distance(self.distance, kind, vals, s))
        return out

    def loss_function(self, loss, size1, size2, extras):
        if self.family == "l":
            return loss / sum(extras)
        if self.family == "t":
            return loss * sum(extras)
        return loss


# ============================================================================ GroupJoin


def direct_group_join(columns, kinds, method, model: Model, seed=None):
    """The GroupJoin rule with every group as a partner. Returns (labels, total_loss)."""
    n = len(columns[0])
    rng = np.random.default_rng(seed)
    groups = {i: [i] for i in range(n)}  # id = smallest row
    fval = {i: 0.0 for i in range(n)}
    while True:
        violating = sorted(g for g, rows in groups.items() if not model.ok(rows))
        if not violating:
            break
        if len(groups) == 1:
            raise ValueError("infeasible")
        g = violating[int(rng.integers(len(violating)))]
        best = None
        scored = []
        for h in sorted(groups):
            if h == g:
                continue
            union = groups[g] + groups[h]
            loss = group_loss(method, kinds, columns, union)
            F = model.loss_function(loss, len(groups[g]), len(groups[h]), model.extras(union))
            delta = F - fval[g] - fval[h]
            scored.append((delta, h, F))
            if best is None or delta < best:
                best = delta
        tol = best + TIE * max(1.0, abs(best))
        delta, h, F = next(s for s in scored if s[0] <= tol)
        a, b = min(g, h), max(g, h)
        groups[a] = sorted(groups[a] + groups[b])
        fval[a] = F
        del groups[b]
        del fval[b]
    labels = np.empty(n, dtype=np.int64)
    for i, g in enumerate(sorted(groups)):
        labels[groups[g]] = i
    total = sum(group_loss(method, kinds, columns, rows) for rows in groups.values())
    return labels, total


# ============================================================================ brute force


def _classes(table):
    """Equivalence classes of a list of tuples (None = suppressed cell)."""
    classes = {}
    for i, row in enumerate(table):
        classes.setdefault(tuple(row), []).append(i)
    return list(classes.values())


def brute_force_suppression(rows, model: Model):
    """Fewest suppressed cells (None) so that every class satisfies ``model``: tries all
    patterns of 0, 1, 2, ... cells. Returns (count, table)."""
    n = len(rows)
    c = len(rows[0]) if n else 0
    cells = [(i, j) for i in range(n) for j in range(c)]
    for size in range(len(cells) + 1):
        for chosen in itertools.combinations(cells, size):
            table = [list(r) for r in rows]
            for i, j in chosen:
                table[i][j] = None
            if all(model.ok(cls) for cls in _classes(table)):
                return size, table
    return None, None
