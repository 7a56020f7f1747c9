"""Mondrian on Dask, phase 3: the top cuts, chosen on the whole data from counts.

Each partition keeps the leaf of every row (a small array on the workers), moves its rows
(their global codes, :mod:`pdanon.dask._plan`) through the cuts made at the last level only,
and counts rows per (open part, column, code); the client sums these small
histograms and applies the rule of :mod:`pdanon.partition.mondrian` on them: widest normalized
column first (widths normalized by the whole table), median cut for real/ordered columns,
balanced (or ordered) split of unordered categories, a split allowed only when both halves meet
the model. For l-diversity and t-closeness a second pass counts rows per (part, candidate
column, side, sensitive value). The missing code of a column is its last code: a median cut
treats it as the largest value (real/ordered), a set split as one category (unordered).

Example
-------
>>> import numpy as np
>>> tree = Tree()
>>> tree.split(0, 0, 1, None, [2, 2])     # column 0: codes <= 1 left, the others right
>>> route([np.array([0, 1, 2, 3])], tree.routing([4])).tolist()
[1, 1, 2, 2]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pdanon.dask._models import groups_ok_from_counts, k_of
from pdanon.dask._plan import Plan, QIColumn

__all__ = ["Cut", "Tree", "balanced_right", "candidate_cuts", "codes_of",
           "joint_pass", "median_threshold", "reduce_sum", "route", "top_cuts"]


@dataclass
class Tree:
    """Binary cut tree: node 0 is the whole table; a row goes right when its code is above
    ``thr`` (real/ordered) or in ``right_set`` (unordered)."""

    col: list = field(default_factory=lambda: [-1])
    thr: list = field(default_factory=lambda: [0])
    left: list = field(default_factory=lambda: [-1])
    right: list = field(default_factory=lambda: [-1])
    size: list = field(default_factory=list)
    right_set: dict = field(default_factory=dict)  # node -> bool over the column's codes

    def split(self, node: int, col: int, thr: int, right_set, sizes) -> None:
        for _ in range(2):
            self.col.append(-1)
            self.thr.append(0)
            self.left.append(-1)
            self.right.append(-1)
        self.col[node] = col
        self.thr[node] = thr
        self.left[node] = len(self.col) - 2
        self.right[node] = len(self.col) - 1
        self.size.extend(sizes)
        if right_set is not None:
            self.right_set[node] = right_set

    def leaves(self) -> list[int]:
        """Leaves in left-to-right order."""
        out, stack = [], [0]
        while stack:
            v = stack.pop()
            if self.col[v] < 0:
                out.append(v)
            else:
                stack.extend([self.right[v], self.left[v]])
        return out

    def routing(self, ncodes: list[int]) -> dict:
        """Arrays for :func:`route` (small; shipped to every task)."""
        tables = {}
        for v, mask in self.right_set.items():
            j = self.col[v]
            tables.setdefault(j, np.zeros((len(self.col), ncodes[j]), dtype=bool))
            tables[j][v] = mask
        return {"col": np.asarray(self.col, np.int64), "thr": np.asarray(self.thr, np.int64),
                "left": np.asarray(self.left, np.int64),
                "right": np.asarray(self.right, np.int64), "tables": tables}


def route(codes: list[np.ndarray], rt: dict, start: np.ndarray | None = None) -> np.ndarray:
    """Leaf node of every row (vectorized per tree level and column), from the root or, with
    ``start``, from each row's node (a leaf of an earlier tree: only the splits made since are
    applied)."""
    n = len(codes[0]) if codes else 0
    node = (np.zeros(n, dtype=np.int64) if start is None
            else np.asarray(start, dtype=np.int64).copy())
    col, thr, left, right, tables = rt["col"], rt["thr"], rt["left"], rt["right"], rt["tables"]
    active = np.flatnonzero(col[node] >= 0)
    while len(active):
        nd = node[active]
        cj = col[nd]
        go = np.zeros(len(active), dtype=bool)
        for j in np.unique(cj):
            sel = np.flatnonzero(cj == j)
            x = codes[j][active[sel]]
            if j in tables:
                go[sel] = tables[j][nd[sel], x]
            else:
                go[sel] = x > thr[nd[sel]]
        node[active] = np.where(go, right[nd], left[nd])
        active = active[col[node[active]] >= 0]
    return node


# ============================================================================ counts -> cuts


def median_threshold(cnt: np.ndarray) -> int:
    """Left side = codes <= threshold: the median cut of :mod:`pdanon.partition.mondrian`
    (the cut between distinct values nearer the middle that leaves both halves non-empty)."""
    size = int(cnt.sum())
    cum = np.cumsum(cnt)
    med = int(np.searchsorted(cum, size // 2, side="right"))
    less = int(cum[med] - cnt[med])
    leq = int(cum[med])
    use_less = abs(2 * less - size) < abs(2 * leq - size) or leq == size
    use_less = use_less and less > 0
    return med - 1 if use_less else med


def balanced_right(cnt: np.ndarray) -> np.ndarray:
    """Greedy balanced two-way split of the present categories (largest first, to the lighter
    half; ties by code), as :mod:`pdanon.partition.mondrian` does. True = right."""
    present = np.flatnonzero(cnt)
    order = present[np.lexsort((present, -cnt[present]))]
    right = np.zeros(len(cnt), dtype=bool)
    lsum = rsum = 0
    for code in order:  # over categories of one part, not rows
        if rsum < lsum:
            right[code] = True
            rsum += int(cnt[code])
        else:
            lsum += int(cnt[code])
    return right


@dataclass
class Cut:
    col: int
    thr: int
    right_set: np.ndarray | None
    left: int
    right: int


def candidate_cuts(q: QIColumn, j: int, cnt: np.ndarray):
    """(normalized width, Cut or None) of column ``j`` for one part with code counts ``cnt``."""
    present = np.flatnonzero(cnt)
    if q.scale <= 0 or len(present) < 2:
        return 0.0, None
    size = int(cnt.sum())
    if q.is_set:
        width = (len(present) - 1) / q.scale
        if q.order_key is None:
            rset = balanced_right(cnt)
        else:
            by_key = np.zeros(q.ncodes, dtype=np.int64)
            by_key[q.order_key] = cnt
            t = median_threshold(by_key)
            rset = q.order_key > t
        right = int(cnt[rset].sum())
        return width, Cut(j, 0, rset, size - right, right)
    width = float(q.weight[present[-1]] - q.weight[present[0]]) / q.scale
    t = median_threshold(cnt)
    left = int(cnt[: t + 1].sum())
    return width, Cut(j, t, None, left, size - left)


# ============================================================================ pass functions


def codes_of(wp: pd.DataFrame, q: int) -> list[np.ndarray]:
    return [wp[f"c{j}"].to_numpy(np.int64) for j in range(q)]


def _advance(wp, nodes, rt, q: int) -> np.ndarray:
    """The leaf of every row of one partition in the current tree, from its leaf in the
    previous one (``None``: the root): one routing step per level instead of a walk from the
    root, so a pass costs O(rows), not O(rows x depth). Kept in worker memory between
    levels (int32: 4 bytes per row)."""
    if not len(wp):
        return np.zeros(0, np.int32)
    return route(codes_of(wp, q), rt, start=nodes).astype(np.int32)


def _hist_pass(wp, nodes, open_index, L, ncodes):
    """Rows per (open part, code) of every column, for one partition."""
    codes = codes_of(wp, len(ncodes))
    idx = open_index[nodes] if len(wp) else np.zeros(0, np.int64)
    sel = idx >= 0
    out = []
    for j, m in enumerate(ncodes):
        out.append(np.bincount(idx[sel] * m + codes[j][sel], minlength=L * m))
    return out


def _side_pass(wp, nodes, open_index, L, ncodes, thr, rsets, ms):
    """Rows per (open part, column, side of the column's cut, sensitive value)."""
    q = len(ncodes)
    codes = codes_of(wp, q)
    idx = open_index[nodes] if len(wp) else np.zeros(0, np.int64)
    sel = np.flatnonzero(idx >= 0)
    idx = idx[sel]
    sens = [wp[f"s{i}"].to_numpy(np.int64)[sel] for i in range(len(ms))]
    out = [np.zeros(L * q * 2 * m, dtype=np.int64) for m in ms]
    for j in range(q):
        x = codes[j][sel]
        side = rsets[j][idx, x] if j in rsets else x > thr[idx, j]
        g = (idx * q + j) * 2 + side
        for i, m in enumerate(ms):
            out[i] += np.bincount(g * m + sens[i], minlength=L * q * 2 * m)
    return out


def joint_pass(wp, q_set: list[int], ncodes, m):
    s = wp["s0"].to_numpy(np.int64)
    return [np.bincount(wp[f"c{j}"].to_numpy(np.int64) * m + s, minlength=ncodes[j] * m)
            for j in q_set]


def _add(*lists):
    out = [a.copy() for a in lists[0]]
    for other in lists[1:]:
        for a, b in zip(out, other):
            a += b
    return out


def reduce_sum(delayeds, fanin: int = 16):
    """Tree-sum of per-partition lists of arrays (delayed)."""
    import dask

    level = list(delayeds)
    while len(level) > 1:
        level = [dask.delayed(_add, pure=True)(*level[i:i + fanin])
                 for i in range(0, len(level), fanin)]
    return level[0]




def top_cuts(encoded, plan: Plan, n: int, max_rows: int):
    """Choose the top cuts from counts until every part has at most ``max_rows`` rows."""
    import dask

    tree = Tree()
    qis = plan.qis
    ncodes = [q.ncodes for q in qis]
    k = k_of(plan.model)
    q = len(qis)
    open_nodes = [0] if n > max_rows and n >= 2 * k else []
    sizes = {0: n}
    levels = 0
    collected = 0
    parts = encoded.to_delayed()
    nodes = [None] * len(parts)  # each row's leaf, per partition, kept on the workers
    snames = list(plan.sensitive)
    ms = [plan.sensitive[c].column.m for c in snames]
    while open_nodes:
        levels += 1
        L = len(open_nodes)
        rt_d = dask.delayed(tree.routing(ncodes), pure=True)
        nodes = list(dask.persist(*[dask.delayed(_advance)(w, nd, rt_d, q)
                                    for w, nd in zip(parts, nodes)]))
        open_index = np.full(len(tree.col), -1, dtype=np.int64)
        open_index[open_nodes] = np.arange(L)
        hist = dask.compute(reduce_sum([dask.delayed(_hist_pass)(w, nd, open_index, L, ncodes)
                                     for w, nd in zip(parts, nodes)]))[0]
        collected += sum(h.nbytes for h in hist)
        hist = [h.reshape(L, m) for h, m in zip(hist, ncodes)]
        widths = np.zeros((L, q))
        cuts: list[list] = [[None] * q for _ in range(L)]
        for li in range(L):
            for j in range(q):
                widths[li, j], cuts[li][j] = candidate_cuts(qis[j], j, hist[j][li])
        ok = np.zeros((L, q), dtype=bool)
        for li in range(L):
            for j in range(q):
                c = cuts[li][j]
                ok[li, j] = c is not None and widths[li, j] > 0 and c.left >= k and c.right >= k
        if plan.needs_context and ok.any():
            thr = np.zeros((L, q), dtype=np.int64)
            rsets = {}
            for j in range(q):
                if qis[j].is_set:
                    table = np.zeros((L, ncodes[j]), dtype=bool)
                    for li in range(L):
                        if cuts[li][j] is not None:
                            table[li] = cuts[li][j].right_set
                    rsets[j] = table
                else:
                    for li in range(L):
                        if cuts[li][j] is not None:
                            thr[li, j] = cuts[li][j].thr
            side = dask.compute(reduce_sum([dask.delayed(_side_pass)(
                w, nd, open_index, L, ncodes, thr, rsets, ms) for w, nd in zip(parts, nodes)]))[0]
            collected += sum(s.nbytes for s in side)
            dense = {c: s.reshape(L * q * 2, m) for c, s, m in zip(snames, side, ms)}
            group_sizes = next(iter(dense.values())).sum(axis=1)
            good = groups_ok_from_counts(plan.model, group_sizes, dense, plan.sensitive)
            good = good.reshape(L, q, 2)
            ok &= good[:, :, 0] & good[:, :, 1]
        new_open = []
        for li, node in enumerate(open_nodes):
            order = np.argsort(-widths[li], kind="stable")
            chosen = next((j for j in order if widths[li, j] > 0 and ok[li, j]), None)
            if chosen is None:
                continue  # no allowed cut: the part is final
            c = cuts[li][chosen]
            tree.split(node, chosen, c.thr, c.right_set, [c.left, c.right])
            for child, size in ((tree.left[node], c.left), (tree.right[node], c.right)):
                if size > max_rows and size >= 2 * k:
                    new_open.append(child)
        open_nodes = new_open
    return tree, levels, collected


