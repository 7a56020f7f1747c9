"""Nearest release rows of a block of targets, vectorized and chunked.

The release is first reduced to its distinct cell combinations over the attacked columns
(``U`` of them); per column, the distances of a chunk's distinct values to the column's
distinct cells are computed once and gathered for every (target, combination), then summed
over the columns (Gower's rule, :mod:`pdanon.attacks._columns`) and spread to the release's
rows. Ties among equally near rows are broken at random, independently per target and per
half (the attacker has nothing to prefer one over the other). Work: O(targets × (U × columns
+ rows)); memory: at most ``BUDGET`` (target, row) pairs at once.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon.attacks._columns import Column

#: (target, release row) pairs held at once
BUDGET = 1 << 22


class Side:
    """The release seen through some columns: its distinct combinations and their cells."""

    def __init__(self, release: pd.DataFrame, original: pd.DataFrame, control: pd.DataFrame,
                 cols, missing: str, hierarchies=None):
        from pdanon._groups import class_labels, column_codes

        self.cols = list(cols)
        self.n = len(release)
        labels = class_labels(release, self.cols)
        n_u = int(labels.max()) + 1 if len(labels) else 0
        first = np.full(n_u, self.n, dtype=np.int64)
        np.minimum.at(first, labels, np.arange(self.n, dtype=np.int64))
        self.inverse = labels
        self.weights = np.bincount(labels, minlength=n_u)
        self.order = np.argsort(labels, kind="stable")  # rows grouped by combination
        self.offsets = np.concatenate([[0], np.cumsum(self.weights)]).astype(np.int64)
        h = hierarchies or {}
        self.columns = [Column(c, original[c], release[c], [control[c]], missing=missing,
                               hierarchy=h.get(c)) for c in self.cols]
        reps = release.iloc[first]
        # per column, the distinct cells among the combinations and each combination's one
        self.cells, self.cell_of = [], []
        for col, c in zip(self.columns, self.cols):
            codes, m = column_codes(reps[c].array)
            one = np.full(m, len(reps), dtype=np.int64)
            np.minimum.at(one, codes, np.arange(len(reps), dtype=np.int64))
            self.cells.append(col.release_cells(reps[c].iloc[one]))
            self.cell_of.append(codes)

    def values(self, df: pd.DataFrame, rows) -> list:
        part = df.iloc[rows]
        return [col.values(part[c]) for col, c in zip(self.columns, self.cols)]

    def chunks(self, values: list, rows: bool = True):
        """Yield ``(t0, t1, D)``: D the (t1 - t0) × release-rows distance matrix (``rows=False``:
        × distinct combinations)."""
        t = len(values[0]) if values else 0
        step = max(1, BUDGET // max(self.n if rows else len(self.weights), 1))
        for t0 in range(0, t, step):
            t1 = min(t, t0 + step)
            du = np.zeros((t1 - t0, len(self.weights)))
            for col, cells, cell_of, v in zip(self.columns, self.cells, self.cell_of, values):
                # distances of the chunk's distinct values to the distinct cells, gathered
                uv, inv = np.unique(v[t0:t1], return_inverse=True)
                du += col.distance(uv, cells)[:, cell_of][inv.reshape(-1)]
            yield t0, t1, (du[:, self.inverse] if rows else du)


def nearest(side: Side, values: list, k: int, rng: np.random.Generator) -> np.ndarray:
    """targets × k: the k nearest release rows of every target; rows tied at the boundary
    are taken in a random order drawn per target (the attacker has nothing to prefer one by)."""
    t = len(values[0])
    out = np.empty((t, k), dtype=np.int64)
    if k == 1:  # on the combinations: the first of a combination's w rows to come ~ 1 - U^(1/w)
        for t0, t1, d in side.chunks(values, rows=False):
            m = d.min(axis=1)
            first = 1.0 - rng.random(d.shape) ** (1.0 / side.weights[None, :])
            u = np.where(d == m[:, None], first, 2.0).argmin(axis=1)
            at = side.offsets[u] + (rng.random(t1 - t0) * side.weights[u]).astype(np.int64)
            out[t0:t1, 0] = side.order[np.minimum(at, side.offsets[u + 1] - 1)]
        return out
    for t0, t1, d in side.chunks(values):
        prio = rng.random(d.shape)
        thr = np.partition(d, k - 1, axis=1)[:, k - 1]
        less = d < thr[:, None]
        tied = d == thr[:, None]
        need = k - less.sum(axis=1)
        tp = np.where(tied, prio, 2.0)
        small = np.sort(np.partition(tp, k - 1, axis=1)[:, :k], axis=1)
        cut = small[np.arange(t1 - t0), need - 1]
        chosen = less | (tied & (tp <= cut[:, None]))
        rows, cols = np.nonzero(chosen)
        out[t0:t1] = cols.reshape(t1 - t0, k)
    return out


def matches(side: Side, values: list):
    """Every target's nearest release rows (all those at its least distance), as pairs
    ``(target, row)`` sorted by target, and the least distance per target."""
    ts, us, best = [], [], []
    for t0, t1, d in side.chunks(values, rows=False):
        m = d.min(axis=1)
        t, u = np.nonzero(d == m[:, None])
        ts.append(t + t0)
        us.append(u)
        best.append(m)
    if not ts:
        return (np.zeros(0, dtype=np.int64),) * 3
    t, u = np.concatenate(ts), np.concatenate(us)
    lens = side.weights[u]
    starts = side.offsets[u]
    at = np.repeat(starts - (np.cumsum(lens) - lens), lens) + np.arange(int(lens.sum()))
    return np.repeat(t, lens), side.order[at], np.concatenate(best)


def random_sets(rng: np.random.Generator, n_rows: int, t: int, k: int) -> np.ndarray:
    """t × k: k distinct rows of ``n_rows`` per target, uniformly (Floyd's sampling)."""
    out = np.empty((t, k), dtype=np.int64)
    for j, top in enumerate(range(n_rows - k, n_rows)):
        draw = rng.integers(0, top + 1, size=t)
        dup = (out[:, :j] == draw[:, None]).any(axis=1) if j else np.zeros(t, dtype=bool)
        out[:, j] = np.where(dup, top, draw)
    return out
