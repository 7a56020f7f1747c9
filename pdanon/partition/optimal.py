"""Optimal full-domain generalization: a search of the lattice of hierarchy levels.

Changes: **partitioning and recoding** (a global recoding: every value of a column is replaced
by its node at one level of the column's hierarchy). Registered as ``algorithm="optimal"`` for
``k_anonymize``, ``l_diversify`` and ``t_close``.

The search space
----------------
Every quasi-identifier has a hierarchy (:mod:`pdanon.hierarchy`) with levels ``0..h_c``; a
*node* of the lattice picks one level per column (full-domain generalization, as in Samarati,
Sweeney's MinGen, Incognito, OLA and ARX's Flash). A node's equivalence classes are the
distinct combinations of the rows' nodes. Rows in classes that violate the privacy model are
*suppressed* (every quasi-identifier becomes missing). The suppressed rows are one class of
their own (with any row published blank anyway), which must meet the model too: when it would
not, the smallest satisfying classes are suppressed with them
(:func:`pdanon.partition.suppressed.plan`). A node is **acceptable** when at most
``max_suppressed_rows`` rows (a count, or a fraction of the rows) are suppressed so.

Among acceptable nodes the search returns one with the smallest ``objective``:

* ``"loss"`` (default) — generalized information loss (Iyengar 2002; ARX's "Loss") averaged over
  all quasi-identifier cells: in a real column a cell published as the range ``[lo, hi]`` costs
  ``min(1, (hi − lo)/(max − min))``; in an ordered or unordered column a cell generalized to
  a node covering ``m`` of the column's ``M`` distinct values costs ``(m − 1)/(M − 1)`` (for
  an ordered column ``m`` counts the values inside the published range, which exceeds the
  node when the node is not contiguous in the order); a
  suppressed cell costs 1 (:func:`pdanon.plot.information_loss` measures the same on any
  output);
* ``"precision"`` — Sweeney's Prec loss: the average of ``level / height`` over cells (a
  suppressed cell counts as the top level);
* ``"discernibility"`` — ``Σ |class|²`` over published classes ``+ suppressed rows · n``;
* ``"entropy"`` — non-uniform entropy loss (Gionis & Tassa 2009) in bits per cell: a cell
  with value ``v`` published as node ``g`` costs ``log2(count(g) / count(v))`` (counts over the
  column's rows), a suppressed cell ``log2(n / count(v))``.

Pruning, and why it is sound
----------------------------
**Bound order.** Nodes are visited in increasing order of a lower bound of the objective. For
loss, precision and entropy the objective is ``base(node)`` — the cost with no row suppressed,
a sum of per-column, per-level constants computed without looking at the data — plus a
non-negative surcharge for suppressed rows (a suppressed cell costs the top level's cost, at
least its node's). So ``objective >= base``; once the bound of the next node reaches the best
objective found, no remaining node can beat it and the search stops. The bound rises as the
search learns: when an evaluated node proves that each of its specializations suppresses at
least ``r`` rows (below), their bounds grow by ``r`` times the least a suppressed row can cost
at their levels. For discernibility the bound starts at ``max(k·n, n² / #possible classes)``
and becomes ``Σ |class|²`` of any evaluated specialization (merging classes only raises it;
a suppressed row costs ``n >= |class|``).

**Predictive tagging** (Flash / OLA). A node whose status is unknown is resolved by climbing a
path of untagged generalizations and binary-searching it; each evaluation tags the lattice:

* *k-anonymity and distinct l-diversity, any suppression budget B*: a class of a
  generalization that violates the model is a union of classes that all violated it (one part
  with >= k rows or >= l values is enough for the union), so the violating rows only shrink
  upwards: a node over budget tags all its specializations unacceptable, and a node within
  budget tags its generalizations as not pruned (they are evaluated: the suppressed rows'
  class may need more rows there).
* *entropy / recursive (c, l)-diversity and t-closeness with B = 0*: merged classes inherit
  them (entropy is concave; the EMD, Jensen–Shannon and Wasserstein distances are convex in the
  class distribution; recursive diversity is monotone, Machanavajjhala et al. 2007), so "every
  class satisfies" is monotone and tags both ways.
* *the same models with B > 0 are not monotone*: a satisfying class merged with a violating one
  can violate, so a generalization can need *more* suppression; nothing is tagged upwards for
  them. Downwards pdanon uses a proven **lower bound on suppression**: if a class ``C`` of node
  ``S`` is at distance ``d > t`` from the table, every specialization of ``S`` suppresses at
  least ``|C|·(d − t)/(d_max − t)`` of ``C``'s rows (``d_max``: the largest distance any
  distribution can have, reached at a point mass), because the kept parts of ``C`` are within
  ``t``, the rest within ``d_max``, and the distance of the mixture is at most the mixture of
  the distances (convexity). For total variation (``distance="emd"`` on an unordered column)
  the bound is exact instead: the kept rows of ``C`` form a sub-multiset whose distribution lies
  in the convex t-ball, and the largest such part has ``N* = min_A C_A / (q_A − t)`` rows over
  sets ``A`` of values with ``q_A > t`` (``C_A``: rows of ``C`` with a value in ``A``, ``q_A``:
  the table's share of ``A``), so at least ``⌈|C| − N*⌉`` rows of ``C`` are suppressed.
  For entropy l-diversity the bound is ``|C|·(1 − H(C)/log l)``
  (concavity); k and distinct l contribute ``|C|`` for a violating class. The bounds of ``S``
  summed over its classes exceed the budget → ``S`` and all its specializations are pruned.

With B = 0 and a monotone model the objective equals the bound, so the first acceptable node in
bound order is optimal and the search stops there; for discernibility (not a sum of
constants) the generalizations of an acceptable node are skipped instead. With suppression a
generalization can *lower* the objective by bringing rows back, so acceptable nodes do not
prune their generalizations; the bound does.

Evaluation is vectorized: every column's hierarchy is bound once (the column is factorized and
only its distinct values are mapped), each level is an integer code array, and a node's classes
are found by combining the codes of an already evaluated *more specific* node's classes (a
roll-up, as in ARX), not of the rows: only the smallest cached predecessor's class table is
re-grouped (``bincount`` / hashing of mixed-radix keys), with its sensitive-value counts.

Example
-------
>>> import pandas as pd, pdanon
>>> from pdanon.hierarchy import intervals, masking
>>> df = pd.DataFrame({"zip": ["10001", "10002", "10011", "10012"], "age": [21, 25, 33, 38]})
>>> out = df.anon.k_anonymize(2, algorithm="optimal",
...                           hierarchies={"zip": masking(), "age": intervals([10])})
>>> out.anon.info["levels"]
{'zip': 1, 'age': 1}
>>> sorted(out["zip"].astype(str))
['{10001, 10002}', '{10001, 10002}', '{10011, 10012}', '{10011, 10012}']
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdanon._errors import InfeasibleError, InvalidInputError
from pdanon.partition import register
from pdanon.partition.common import no_progress, sensitive_columns, suppression_budget
from pdanon.partition.lattice import (MAX_LATTICE, MAX_LEVEL_MAPS,  # noqa: F401 (documented here)
                                      check_lattice, hierarchy_map, lattice_bounds,
                                      prepare_columns)
from pdanon.partition.population import joint_encoded, population_cells, split_columns
from pdanon.partition.suppressed import blank_class, plan, published_classes
from pdanon.progress import progress_bar
from pdanon.publisher_only import PublisherOnly
from pdanon.recode import Recoded

OBJECTIVES = ("loss", "precision", "discernibility", "entropy")
_TOL = 1e-12


# --------------------------------------------------------------------------- model parts


def _kind_of(part) -> str:
    """Which pruning bounds apply to a model part (see the module docstring); ``"other"``
    for a model the search knows nothing about (no bound: it is only evaluated)."""
    from pdanon.models import KAnonymity, LDiversity, TCloseness

    if isinstance(part, KAnonymity):
        return "k"
    if isinstance(part, LDiversity):
        return "l_distinct" if part.variant == "distinct" else "l_other"
    if isinstance(part, TCloseness):
        return "t"
    return "other"


# --------------------------------------------------------------------------- class tables

#: Sensitive columns with at most this many distinct values are counted in a dense
#: (classes x values) matrix; wider ones as sparse (class, value, count) pairs.
_DENSE_VALUES = 64


@dataclass
class _Classes:
    """The equivalence classes of one node: per class the node code in every column, the row
    count and, per sensitive column, the value counts (a dense classes x values matrix, or a
    :class:`~pdanon.distributions.PairCounts`)."""

    codes: list
    counts: np.ndarray
    sens: list
    rows: np.ndarray | None = None  # class of every row (only when built from the rows)
    pop: np.ndarray | None = None   # population rows per class (a population model only)
    first: np.ndarray | None = None  # the first row (point) of each class

    @property
    def groups(self) -> int:
        return len(self.counts)


def _group(codes: list, radices: list, rows: int | None = None):
    """Labels 0..G-1 of the distinct combinations of ``codes`` and, per label, the codes.
    ``rows``: the rows ``codes`` stand for when they are weighted distinct combinations (in
    order of first appearance); the labels are then numbered as on the rows themselves."""
    n = len(codes[0])
    rule = n if rows is None else rows
    total = 1
    for r in radices:
        total *= max(int(r), 1)
    if total < 2 ** 62:
        radices = [max(int(r), 1) for r in radices]
        # mixed-radix key, first column fastest (Horner from the last column)
        key = np.array(codes[-1], dtype=np.int64, copy=True)
        for c, r in zip(codes[-2::-1], radices[-2::-1]):
            key *= r
            key += c
        in_key_order = total <= 8 * rule + 4096 or rule <= 256
        if in_key_order and total <= 8 * n + 4096:
            # small key range: mark the keys present, number them in key order
            present = np.zeros(total, dtype=np.intp)
            present[key] = 1
            uniq = np.flatnonzero(present)
            present[uniq] = np.arange(len(uniq))
            labels = present[key]
        elif in_key_order:
            uniq, labels = np.unique(key, return_inverse=True)
            labels = labels.reshape(-1)
        else:
            labels, uniq = pd.factorize(key, sort=False)
        out_codes = list(np.unravel_index(uniq, radices[::-1]))[::-1]
        return labels, out_codes
    # very wide keys: combine pairwise, re-factorizing so nothing overflows
    labels = np.zeros(n, dtype=np.int64)
    for c in codes:
        width = int(c.max()) + 1 if n else 1
        labels, _ = pd.factorize(labels * width + c, sort=False)
        labels = np.asarray(labels, dtype=np.int64)
    g = int(labels.max()) + 1 if n else 0
    first = np.full(g, n, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(n))
    return labels, [c[first] for c in codes]


def _sens_from_rows(labels, g, col, weights=None):
    if col.m <= _DENSE_VALUES:
        flat = np.bincount(labels * col.m + col.codes, weights=weights, minlength=g * col.m)
        return np.rint(flat).astype(np.int64).reshape(g, col.m)
    from pdanon.distributions import PairCounts

    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    return PairCounts.from_codes(labels, col.codes, col.m, g, weights=w)


def _sens_rollup(item, labels, g, col):
    from pdanon.distributions import PairCounts

    if isinstance(item, np.ndarray):
        m = item.shape[1]
        key = (labels[:, None] * m + np.arange(m)).ravel()
        flat = np.bincount(key, weights=item.ravel(), minlength=g * m)
        return np.rint(flat).astype(np.int64).reshape(g, m)
    return PairCounts.from_codes(labels[item.cls], item.val, col.m, g,
                                 weights=item.count.astype(np.float64))


def _is_tv(distance: str, col, hierarchy) -> bool:
    """Does t-closeness ``distance`` on ``col`` resolve to total variation?"""
    if distance == "hierarchical" and hierarchy is None:
        distance = "emd"
    if distance == "reference":
        return False
    return distance == "emd" and col.kind == "unordered"


def _global_q(col) -> np.ndarray:
    from pdanon import distributions as d

    return d._global_probs(col)


def _tv_max_kept(item, counts, q, t: float) -> np.ndarray:
    """Per class, the most rows ``N`` of it whose value distribution is within total variation
    ``t`` of ``q``.

    With ``C_v`` rows of value ``v`` in the class, a kept part of ``N`` rows is within ``t``
    exactly when its deficits ``Σ_v max(0, q_v·N − c_v)`` are at most ``t·N``; taking
    ``c_v = min(C_v, q_v·N)`` (and any surplus) is best, so ``N`` is feasible iff
    ``N·(q_A − t) <= C_A`` for every set ``A`` of values, i.e. ``N* = min_A C_A / (q_A − t)``
    over sets with ``q_A > t``; the binding sets are prefixes of the values sorted by
    ``C_v / q_v`` (values absent from the class come first). Capped at the class size.
    """
    counts = np.asarray(counts, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        if isinstance(item, np.ndarray):
            C = item.astype(np.float64)
            qq = np.broadcast_to(q, C.shape)
            ratio_key = np.where(qq > 0, C / np.where(qq > 0, qq, 1.0), np.inf)
            order = np.argsort(ratio_key, axis=1, kind="stable")
            Cs = np.cumsum(np.take_along_axis(C, order, axis=1), axis=1)
            qs = np.cumsum(q[order], axis=1)
            cand = np.where(qs > t, Cs / (qs - t), np.inf)
            best = cand.min(axis=1) if cand.shape[1] else np.full(len(counts), np.inf)
            return np.minimum(best, counts)
        # sparse pairs: values absent from a class form the first prefix
        G = len(counts)
        qv = q[item.val]
        absent = np.clip(1.0 - np.bincount(item.cls, weights=qv, minlength=G), 0.0, 1.0)
        key = np.where(qv > 0, item.count / np.where(qv > 0, qv, 1.0), np.inf)
        order = np.lexsort((key, item.cls))
        cls = item.cls[order]
        c = item.count[order].astype(np.float64)
        qo = qv[order]
        first = np.ones(len(cls), dtype=bool)
        first[1:] = cls[1:] != cls[:-1]
        starts = np.flatnonzero(first)
        cc, cq = np.cumsum(c), np.cumsum(qo)
        idx = np.cumsum(first) - 1
        base_c = (cc - c)[starts][idx]
        base_q = (cq - qo)[starts][idx]
        Cs = cc - base_c
        qs = cq - base_q + absent[cls]
        cand = np.where(qs > t, Cs / (qs - t), np.inf)
        best = np.full(G, np.inf)
        if len(cand):
            best[cls[starts]] = np.minimum.reduceat(cand, starts)
        best = np.where(absent > t, 0.0, best)
        return np.minimum(best, counts)


# --------------------------------------------------------------------------- the search


@dataclass
class _Eval:
    groups: int          # published classes
    mono_rows: int       # rows violating the monotone parts of the model
    lb_rows: float       # rows every specialization must suppress (see _class_stats)
    suppressed: int      # rows violating the model
    acceptable: bool
    objective: float     # raw (sums, not averages)
    d0: float            # Σ |class|² over all classes, suppressed or not


class LatticeSearch:
    """The lattice of per-column levels of ``columns`` (:class:`~pdanon.hierarchy.ColumnLevels`)
    for ``model`` (see the module docstring). Build it, call :meth:`run`. With ``weights``
    the columns' rows (and sensitive codes) are distinct combinations, each standing for that
    many rows, in order of first appearance (the Dask path): every count is a row count."""

    def __init__(self, columns, model, sensitive, *, budget: int, objective: str,
                 bounds: list[tuple[int, int]], population_rows: list | None = None,
                 weights=None):
        check_lattice(columns, bounds)  # before anything is allocated
        self.columns = columns
        # per column, the population rows' value codes (k-map / δ-presence against a table)
        self.population_rows = population_rows
        self.pop_total = None if population_rows is None else len(population_rows[0])
        self.q = len(columns)
        self.points = len(columns[0].rows)
        self.weights = None if weights is None else np.asarray(weights, dtype=np.int64)
        self.n = self.points if weights is None else int(self.weights.sum())
        self.model = model
        self.sensitive = list(sensitive)  # SensitiveColumn objects
        self.budget = int(budget)
        self.objective = objective
        self.bounds = bounds
        self.parts = model.parts()
        self.kinds = [_kind_of(p) for p in self.parts]
        self.needs_sens = model.requirements().sensitive
        if self.needs_sens and not self.sensitive:
            raise InvalidInputError(f"{model!r} needs at least one sensitive column")
        # the monotone parts (see the module docstring): without a budget, parts whose
        # satisfying classes stay satisfying when merged; with one, parts whose violating
        # unions are made of violating classes only
        reqs = [p.requirements() for p in self.parts]
        # a part with a table-level condition (table_ok) tags nothing: it is only evaluated
        self.table = any(r.table for r in reqs)
        if self.budget == 0:
            self.mono = [i for i, r in enumerate(reqs) if r.merge_monotone and not r.table]
        else:
            self.mono = [i for i, r in enumerate(reqs) if r.parts_monotone and not r.table]
        self.fully_monotone = len(self.mono) == len(self.parts)
        self._dmax = {}
        # per column: node counts per level, and code maps between any two levels
        self._nodes = [[col.bound.nodes(j) for j in range(col.height + 1)] for col in columns]
        self._steps = [[[col.bound.step(a, b) if b >= a else None
                         for b in range(col.height + 1)] for a in range(col.height + 1)]
                       for col in columns]
        self._build_lattice()
        self._build_costs()
        self.results: dict[int, _Eval] = {}
        self._snaps: list[_Classes] = []
        self._snap_nodes: list[int] = []
        self._snap_levels = np.zeros((0, self.q), dtype=np.int16)
        self._snap_groups = np.zeros(0, dtype=np.int64)
        self._level_rows: list = []
        self._group_list: list = []
        self._snap_cap = max(8 * self.n, 200_000)
        self._pm = None
        self._pm_dims = None
        self.evaluated = 0

    # ------------------------------------------------------------------ lattice
    def _build_lattice(self):
        dims = [hi - lo + 1 for lo, hi in self.bounds]
        total = 1
        for d in dims:
            total *= d
        self.dims = dims
        self.total = total
        grids = np.indices(dims, dtype=np.int16).reshape(self.q, -1).T  # C order: last fastest
        lows = np.array([lo for lo, _ in self.bounds], dtype=np.int16)
        self.L = np.ascontiguousarray(grids + lows)
        self._Lcols = [self.L[:, c].copy() for c in range(self.q)]
        strides = np.ones(self.q, dtype=np.int64)
        for c in range(self.q - 2, -1, -1):
            strides[c] = strides[c + 1] * dims[c + 1]
        self.strides = strides
        self.highs = np.array([hi for _, hi in self.bounds], dtype=np.int16)
        self._highs_list = [int(hi) for _, hi in self.bounds]
        self._strides_list = [int(x) for x in strides]
        self.fail = np.zeros(total, dtype=bool)
        self.sat = np.zeros(total, dtype=bool)
        self.dominated = np.zeros(total, dtype=bool)

    def index(self, levels) -> int:
        """Node index of a level per column."""
        return int(sum((int(levels[c]) - self.bounds[c][0]) * int(self.strides[c])
                       for c in range(self.q)))

    def _below(self, idx: int) -> np.ndarray:
        """Nodes at or below ``idx`` (its specializations)."""
        row = self.L[idx]
        mask = self._Lcols[0] <= row[0]
        for c in range(1, self.q):
            mask &= self._Lcols[c] <= row[c]
        return mask

    def _above(self, idx: int) -> np.ndarray:
        """Nodes at or above ``idx`` (its generalizations)."""
        row = self.L[idx]
        mask = self._Lcols[0] >= row[0]
        for c in range(1, self.q):
            mask &= self._Lcols[c] >= row[c]
        return mask

    # ------------------------------------------------------------------ costs
    def _build_costs(self):
        n, obj = self.n, self.objective
        self.node_cost = []   # per column, per level: cost of a cell in each node
        self.top_cost = []    # cost of a suppressed cell (as a node cost)
        self.base_levels = []  # per column, per level: cost of the column with nothing suppressed
        self.min_surcharge_levels = []
        for col in self.columns:
            b = col.bound
            counts_v = np.bincount(col.rows, weights=self.weights,
                                   minlength=len(b.values)).astype(np.float64)
            per_level, base = [], []
            for j in range(b.height + 1):
                codes = b.codes[j]
                if obj == "loss":
                    cost = _loss_costs(col, j)
                    base.append(float(np.dot(counts_v, cost[codes])))
                elif obj == "precision":
                    cost = np.full(b.nodes(j), j / b.height if b.height else 0.0)
                    base.append(float(n * j / b.height) if b.height else 0.0)
                elif obj == "entropy":
                    node_rows = np.bincount(codes, weights=counts_v, minlength=b.nodes(j))
                    cost = np.log2(np.maximum(node_rows, 1.0))
                    base.append(float(np.dot(counts_v, cost[codes] - np.log2(
                        np.maximum(counts_v, 1.0)))))
                else:  # discernibility is not a sum over cells
                    cost = np.zeros(b.nodes(j))
                    base.append(0.0)
                per_level.append(cost)
            self.node_cost.append(per_level)
            top = math.log2(n) if obj == "entropy" else (0.0 if obj == "discernibility" else 1.0)
            self.top_cost.append(top)
            self.base_levels.append(np.array(base))
            # the least a suppressed row of this column can add to the objective, per level
            self.min_surcharge_levels.append(np.array(
                [top - float(cost.max(initial=0.0)) for cost in per_level]))
        base = np.zeros(self.total)
        rmin = np.zeros(self.total)
        for c in range(self.q):
            base += self.base_levels[c][self._Lcols[c]]
            rmin += self.min_surcharge_levels[c][self._Lcols[c]]
        self.base = base
        self.min_surcharge = np.maximum(rmin, 0.0)
        self.k_required = max([p.k for p, kd in zip(self.parts, self.kinds) if kd == "k"],
                              default=1)
        if obj == "discernibility":
            k = max([p.k for p, kd in zip(self.parts, self.kinds) if kd == "k"], default=1)
            possible = np.ones(self.total)
            for c, col in enumerate(self.columns):
                nodes = np.array([col.bound.nodes(j) for j in range(col.height + 1)], float)
                possible *= nodes[self._Lcols[c]]
            possible = np.minimum(possible, n)
            # Σ|E|² >= n²/#classes (Cauchy–Schwarz); a published class has >= k rows
            self.lower = np.maximum(float(n) * n / possible, float(k) * n)
        else:
            self.lower = base.copy()

    # ------------------------------------------------------------------ class tables
    def _radices(self, levels) -> list:
        return [self.columns[c].bound.nodes(int(levels[c])) for c in range(self.q)]


    def from_rows(self, levels) -> _Classes:
        """The classes of a node computed from the rows (with every row's class)."""
        codes = [self.columns[c].node_codes(int(levels[c])) for c in range(self.q)]
        pop = None
        if self.population_rows is not None:
            # the population's rows ride along: classes of sample + population together
            codes = [np.concatenate([codes[c], self.columns[c].bound.codes[int(levels[c])][
                self.population_rows[c]]]) for c in range(self.q)]
        w = self.weights
        labels, cls_codes = _group(codes, self._radices(levels), None if w is None else self.n)
        g = len(cls_codes[0])
        if self.population_rows is not None:
            pop = np.bincount(labels[self.points:], minlength=g).astype(np.int64)
            labels = labels[:self.points]
        counts = np.rint(np.bincount(labels, weights=w, minlength=g)).astype(np.int64)
        sens = [_sens_from_rows(labels, g, s, w) for s in self.sensitive] if self.needs_sens \
            else []
        first = np.full(g, len(labels), dtype=np.int64)
        np.minimum.at(first, labels, np.arange(len(labels), dtype=np.int64))
        return _Classes(cls_codes, counts, sens, rows=labels, pop=pop, first=first)

    def _source(self, idx: int) -> int:
        """The cached class table of a specialization of ``idx`` with the fewest classes."""
        row = self.L[idx]
        ok = np.all(self._snap_levels <= row, axis=1)
        cand = np.flatnonzero(ok)
        return int(cand[np.argmin(self._snap_groups[cand])])

    def classes(self, idx: int) -> _Classes:
        """The classes of node ``idx``, rolled up from the smallest cached specialization."""
        if not self._snaps:
            bottom = self.index([lo for lo, _ in self.bounds])
            root = self.from_rows(self.L[bottom])
            root.rows = None
            self._keep(bottom, root)
            self._premultiply(root)
        src = self._source(idx)
        snap = self._snaps[src]
        if self._snap_nodes[src] == idx:
            return snap
        levels = self.L[idx].tolist()
        if src == 0 and self._pm is not None:
            # from the bottom table: keys are sums of precomputed, premultiplied level codes
            pm = self._pm
            key = pm[0][levels[0]].copy()
            for c in range(1, self.q):
                key += pm[c][levels[c]]
            if len(key) <= 256:
                uniq, labels = np.unique(key, return_inverse=True)
                labels = labels.reshape(-1)
            else:
                labels, uniq = pd.factorize(key, sort=False)
            cls_codes = list(np.unravel_index(uniq, self._pm_dims[::-1]))[::-1]
        else:
            from_levels = self._snap_levels[src].tolist()
            codes = []
            for c in range(self.q):
                a, b = from_levels[c], levels[c]
                codes.append(snap.codes[c] if a == b else self._steps[c][a][b][snap.codes[c]])
            labels, cls_codes = _group(codes, [self._nodes[c][levels[c]]
                                               for c in range(self.q)])
        g = len(cls_codes[0])
        out = _Classes(cls_codes, None, [])
        out.counts = np.rint(np.bincount(labels, weights=snap.counts,
                                         minlength=g)).astype(np.int64)
        out.sens = [_sens_rollup(item, labels, g, s) for item, s in zip(snap.sens,
                                                                          self.sensitive)]
        if snap.pop is not None:
            out.pop = np.rint(np.bincount(labels, weights=snap.pop,
                                          minlength=g)).astype(np.int64)
        out.first = np.full(g, self.points, dtype=np.int64)
        np.minimum.at(out.first, labels, snap.first)
        if g <= 0.5 * snap.groups:
            self._keep(idx, out)
        return out

    def _premultiply(self, root: _Classes) -> None:
        """Per column and level, the bottom table's codes at that level times the column's
        place value in a fixed mixed radix (the bottom levels' node counts, first column
        fastest): a node's key over the bottom table is then a plain sum."""
        self._pm = None
        lows = [lo for lo, _ in self.bounds]
        dims = [max(int(self._nodes[c][lows[c]]), 1) for c in range(self.q)]
        if math.prod(dims) >= 2 ** 62:
            return
        pm, mult = [], 1
        for c in range(self.q):
            per = []
            for j in range(len(self._nodes[c])):
                if j < lows[c] or j > self.bounds[c][1]:
                    per.append(None)
                    continue
                step = self._steps[c][lows[c]][j]
                codes = root.codes[c] if j == lows[c] else step[root.codes[c]]
                per.append(np.asarray(codes, dtype=np.int64) * np.int64(mult))
            pm.append(per)
            mult *= dims[c]
        self._pm = pm
        self._pm_dims = dims

    def _keep(self, idx: int, snap: _Classes) -> None:
        total = int(self._snap_groups.sum())
        if self._snaps and total + snap.groups > self._snap_cap:
            # drop the largest tables (never the first: every node rolls up from it)
            order = np.argsort(-self._snap_groups[1:]) + 1
            drop = set()
            for i in order:
                if total + snap.groups <= self._snap_cap:
                    break
                drop.add(int(i))
                total -= int(self._snap_groups[i])
            if total + snap.groups > self._snap_cap:
                return
            keep = [i for i in range(len(self._snaps)) if i not in drop]
            self._snaps = [self._snaps[i] for i in keep]
            self._snap_nodes = [self._snap_nodes[i] for i in keep]
            self._level_rows = [self._level_rows[i] for i in keep]
            self._group_list = [self._group_list[i] for i in keep]
            self._snap_levels = np.array(self._level_rows, dtype=np.int16).reshape(-1, self.q)
            self._snap_groups = np.array(self._group_list, dtype=np.int64)
        self._snaps.append(snap)
        self._snap_nodes.append(idx)
        self._level_rows.append(self.L[idx])
        self._group_list.append(snap.groups)
        # appended in place of a rebuild from the lists (which grows with every table kept)
        self._snap_levels = np.concatenate(
            [self._snap_levels.reshape(-1, self.q), self.L[idx][None, :].astype(np.int16)])
        self._snap_groups = np.append(self._snap_groups, np.int64(snap.groups))

    # ------------------------------------------------------------------ the model on classes
    def _dmax_of(self, i: int, col) -> float:
        """The largest distance any distribution can have from the table's (t-closeness part
        ``i``, column ``col``): a convex distance peaks at a point mass."""
        key = (i, col.name)
        if key not in self._dmax:
            from pdanon import distributions as d

            p = self.parts[i]
            m = col.m
            pairs = d.PairCounts(np.arange(m, dtype=np.int64), np.arange(m, dtype=np.int64),
                                 np.ones(m, dtype=np.int64), np.ones(m, dtype=np.int64))
            h = (p.hierarchies or {}).get(col.name)
            self._dmax[key] = float(np.max(d.class_distances(pairs, col, p.distance, h)))
        return self._dmax[key]

    def class_stats(self, cl: _Classes):
        """Per class: meets the whole model? meets its monotone parts? and a lower bound on
        the rows any specialization must suppress inside the class. Whether a class meets a
        part is the part's own answer (``classes_ok``); only the bounds are computed here."""
        from pdanon import distributions as d

        counts = cl.counts
        G = len(counts)
        ok = np.ones(G, dtype=bool)
        ok_mono = np.ones(G, dtype=bool)
        bound = np.zeros(G)
        fcounts = counts.astype(np.float64)
        sens = list(cl.sens) if self.needs_sens else []
        classes = d.ClassCounts(counts, self.sensitive if self.needs_sens else [], sens,
                                population=cl.pop, population_rows=self.pop_total)
        self._last_classes = classes

        for i, (p, kind) in enumerate(zip(self.parts, self.kinds)):
            good = np.asarray(p.classes_ok(classes), dtype=bool)
            if kind in ("k", "l_distinct"):
                # every part of a class with < k rows (< l values) has < k rows (< l values)
                bound = np.maximum(bound, np.where(good, 0.0, fcounts))
            for j, s in enumerate(self.sensitive if kind in ("l_other", "t") else []):
                if s.has_na and getattr(p, "missing_sensitive", "value") == "unknown":
                    # the part reads known values only; the bounds below count every row,
                    # so none is claimed (0 is a valid lower bound: less pruning, same result)
                    continue
                if kind == "l_other" and p.variant == "entropy" and float(p.l) > 1:
                    # entropy is concave: parts meeting log l make up at most H/log l
                    h = classes.entropy(j)
                    frac = 1.0 - h / (math.log(float(p.l)) - 1e-9)
                    bound = np.maximum(bound, np.where(good, 0.0,
                                                       fcounts * np.clip(frac, 0.0, 1.0)))
                elif kind == "t":
                    h = (p.hierarchies or {}).get(s.name)
                    dist = classes.distance(j, p.distance, h)
                    tt = p.t + _TOL
                    dmax = self._dmax_of(i, s)
                    if _is_tv(p.distance, s, h):
                        # total variation: the kept rows of a class form a sub-multiset whose
                        # distribution lies in the (convex) t-ball; the largest one is exact
                        kept = _tv_max_kept(cl.sens[j], counts, _global_q(s), tt)
                        need = np.ceil(fcounts - kept - 1e-7)
                        bound = np.maximum(bound, np.where(good, 0.0, np.maximum(need, 0.0)))
                    elif dmax > tt:
                        # the distance is convex: parts within t make up at most
                        # (dmax - dist) / (dmax - t) of a class
                        frac = (dist - tt) / (dmax + 1e-9 - tt)
                        bound = np.maximum(bound, np.where(good, 0.0,
                                                           fcounts * np.clip(frac, 0.0, 1.0)))
            ok &= good
            if i in self.mono:
                ok_mono &= good
        return ok, ok_mono, bound

    def evaluate(self, idx: int) -> _Eval:
        """Evaluate node ``idx`` (cached) and tag the lattice from what it shows."""
        if idx in self.results:
            return self.results[idx]
        self.evaluated += 1
        cl = self.classes(idx)
        counts = cl.counts
        ok, ok_mono, bound = self.class_stats(cl)
        bad = self.suppression(idx, cl, ok)
        mono_rows = int(counts[~ok_mono].sum())
        suppressed = int(counts[bad].sum())
        lb_rows = float(bound.sum())
        fc = counts.astype(np.float64)
        d0 = float(np.dot(fc, fc))
        acceptable = suppressed <= self.budget and self.table_ok(bad, counts, idx, cl)
        value = self._objective(idx, cl, bad, suppressed) if acceptable else math.inf
        res = _Eval(int((ok & (counts > 0)).sum()), mono_rows, lb_rows, suppressed,
                    acceptable, value, d0)
        self.results[idx] = res
        # predictive tagging (sound: see the module docstring)
        must = max(lb_rows, mono_rows if self.mono else 0)
        if must > self.budget + 1e-6:
            self.fail |= self._below(idx)
        else:
            if self.mono and mono_rows <= self.budget:
                self.sat |= self._above(idx)
            if must > 0:
                self._raise_below(idx, must)
        if self.objective == "discernibility":
            above = np.flatnonzero(self._above(idx))
            self.lower[above] = np.maximum(self.lower[above], d0)
        return res

    def blank(self, idx: int, cl: _Classes) -> int | None:
        """The class of node ``idx`` published blank in every column (each column's node
        of the missing value alone publishes missing cells), or None."""
        levels = self.L[idx]
        return blank_class(cl.codes, [self.columns[c].bound.blank_node(int(levels[c]))
                                      for c in range(self.q)])

    def suppression(self, idx: int, cl: _Classes, ok: np.ndarray) -> np.ndarray:
        """The classes of node ``idx`` to suppress: the violating ones and, when their rows
        with the blank class would violate the model, the fewest further rows that make the
        suppressed rows a class that meets it (:func:`pdanon.partition.suppressed.plan`;
        uses the classes last passed to :meth:`class_stats`)."""
        bad = ~ok
        if not (bad & (cl.counts > 0)).any():
            return bad
        # ties between classes of equal size: the one whose first row comes first
        return plan(self._last_classes, ok, self.model, blank=self.blank(idx, cl),
                    first=cl.first)

    def table_ok(self, bad: np.ndarray, counts: np.ndarray, idx: int, cl: _Classes) -> bool:
        """The model's table-level condition (``table_ok``) on the published classes: those
        not suppressed that hold sample rows, and the suppressed rows with the blank class as
        one more (of the classes last passed to :meth:`class_stats`)."""
        if not self.table:
            return True
        return bool(self.model.table_ok(published_classes(self._last_classes, bad,
                                                          self.blank(idx, cl))))

    def _raise_below(self, idx: int, rows: float) -> None:
        """Every specialization of ``idx`` suppresses at least ``rows`` rows: raise their
        lower bounds by the least such rows can cost."""
        below = np.flatnonzero(self._below(idx))
        if self.objective == "discernibility":
            n, k = float(self.n), float(self.k_required)
            bound = n * k + rows * max(n - k, 0.0)
        else:
            bound = self.base[below] + rows * self.min_surcharge[below]
        self.lower[below] = np.maximum(self.lower[below], bound)

    def _objective(self, idx: int, cl: _Classes, bad: np.ndarray, suppressed: int) -> float:
        if self.objective == "discernibility":
            c = cl.counts[~bad].astype(np.float64)
            return float(np.dot(c, c) + suppressed * float(self.n))
        value = float(self.base[idx])
        if suppressed:
            levels = self.L[idx]
            w = cl.counts[bad].astype(np.float64)
            for c in range(self.q):
                cost = self.node_cost[c][int(levels[c])][cl.codes[c][bad]]
                value += float(np.dot(w, self.top_cost[c] - cost))
        return value

    # ------------------------------------------------------------------ search
    def _resolve(self, idx: int) -> None:
        """Learn about ``idx`` cheaply: climb untagged generalizations, then binary-search the
        path (Flash); every evaluation tags the lattice above or below it."""
        path = [idx]
        cur = idx
        highs, strides = self._highs_list, self._strides_list
        fail, sat, lower = self.fail, self.sat, self.lower
        while True:
            best, best_lb = None, None
            row = self.L[cur].tolist()
            for c in range(self.q):
                if row[c] >= highs[c]:
                    continue
                nxt = cur + strides[c]
                if fail[nxt] or sat[nxt]:
                    continue
                lb = lower[nxt]
                if best is None or lb < best_lb:
                    best, best_lb = nxt, lb
            if best is None:
                break
            path.append(best)
            cur = best
        # k / distinct l with a budget: stop once ``idx`` is decided; otherwise (no budget, or
        # models tagged only downwards) find the path's boundary: stronger tags
        full = self.budget == 0 or not self.fully_monotone
        lo, hi = 0, len(path) - 1
        while lo <= hi:
            if not full and (fail[idx] or sat[idx]):
                break
            mid = (lo + hi + 1) // 2
            node = path[mid]
            if not (fail[node] or sat[node]):
                self.evaluate(node)
            if fail[node]:
                lo = mid + 1
            else:
                hi = mid - 1

    def run(self, bar=None) -> int | None:
        """The index of an optimal acceptable node, or None when there is none; ``bar`` (a
        :class:`pdanon.progress.Bar`) counts the nodes taken."""
        best, best_idx = math.inf, None
        shortcut = self.budget == 0 and self.fully_monotone and self.objective != "discernibility"
        levelsum_arr = self.L.sum(axis=1, dtype=np.int64)
        order_arr = np.lexsort((levelsum_arr, self.lower))
        levelsum = levelsum_arr.tolist()
        static_key = self.lower.tolist()
        fail, dominated, lower = self.fail, self.dominated, self.lower

        def static():
            # the static order in chunks, leaving out nodes already pruned (tags only grow)
            for start in range(0, len(order_arr), 128):
                chunk = order_arr[start:start + 128]
                yield from chunk[~(fail[chunk] | dominated[chunk])].tolist()

        def nodes():
            # nodes by their current lower bound: the static order merged with a heap of
            # nodes whose bound rose after they were sorted
            stream = static()
            deferred = []
            nxt = next(stream, None)
            while nxt is not None or deferred:
                if nxt is not None:
                    i = nxt
                    key = static_key[i]
                    if deferred and (deferred[0][0], deferred[0][1]) < (key, levelsum[i]):
                        key, _, i = heapq.heappop(deferred)
                    else:
                        nxt = next(stream, None)
                else:
                    key, _, i = heapq.heappop(deferred)
                cur = float(lower[i])
                if cur > key:
                    heapq.heappush(deferred, (cur, levelsum[i], i))
                    continue
                yield i

        yielded = np.zeros(len(self.lower), dtype=bool)
        for idx in nodes():
            if yielded[idx]:  # each node is taken once: a repeat would never end
                raise no_progress("optimal", f"the search took lattice node {idx} twice")
            yielded[idx] = True
            if bar is not None:
                bar.update(1)
            if self.lower[idx] >= best:
                break
            if self.fail[idx] or self.dominated[idx]:
                continue
            if not self.sat[idx]:
                self._resolve(idx)
                if self.fail[idx]:
                    continue
            if shortcut:
                # the model holds with nothing suppressed, and the objective equals the bound
                return idx
            res = self.evaluate(idx)
            if res.acceptable and res.objective < best:
                best, best_idx = res.objective, idx
            if res.acceptable and self.budget == 0 and self.fully_monotone:
                # with nothing suppressed Σ|class|² only grows when classes merge
                self.dominated |= self._above(idx)
                self.dominated[idx] = False
        return best_idx

    def objective_value(self, idx: int) -> float:
        """The objective of ``idx`` on the scale reported to users (per-cell averages, except
        discernibility)."""
        value = self.evaluate(idx).objective
        if self.objective == "discernibility":
            return value
        return value / (self.n * self.q)


def _loss_costs(col, j: int) -> np.ndarray:
    """Generalized information loss of a cell in each node at level ``j``: for a real column
    the node's range width over the column's span (capped at 1), otherwise
    ``(m - 1) / (M - 1)`` for a node holding ``m`` of the column's ``M`` distinct values."""
    b = col.bound
    if j == 0:
        return np.zeros(b.nodes(0))
    if col.kind == "real" and b.lo[j] is not None:
        x = np.asarray(b.values, dtype=np.float64)
        x = x[~np.isnan(x)]  # a missing value's node publishes missing: it loses nothing
        span = float(x.max() - x.min()) if len(x) else 0.0
        if span <= 0:
            return np.zeros(b.nodes(j))
        width = (np.asarray(b.hi[j], dtype=np.float64) - np.asarray(b.lo[j], dtype=np.float64))
        return np.clip(np.nan_to_num(width / span, nan=0.0), 0.0, 1.0)
    M = len(b.values)
    if M <= 1:
        return np.zeros(b.nodes(j))
    if col.kind == "ordered":
        # the published range [lo, hi] may hold more values than the node when the node is
        # not contiguous in the column's order: count what the range holds
        lo, hi = col.node_ranges(j)
        if col.categories is not None:
            pos = np.sort(col.categories.get_indexer(b.values))
        else:
            pos = np.sort(np.asarray(b.values, dtype=np.float64))
        m = (np.searchsorted(pos, np.asarray(hi), "right")
             - np.searchsorted(pos, np.asarray(lo), "left")).astype(np.float64)
    else:
        m = b.value_counts_per_node(j).astype(np.float64)
    return np.clip((m - 1.0) / (M - 1.0), 0.0, 1.0)


# --------------------------------------------------------------------------- the partitioner


def search_result(search: LatticeSearch, model, budget: int, bar=None):
    """Run ``search`` (reporting the nodes it takes to the progress ``bar``, if any); return
    the chosen levels, per point (row, or distinct combination with weights) whether it is
    suppressed, and the facts ``info`` reports."""
    best = search.run(bar)
    if best is None:
        raise InfeasibleError(
            f"no node of the generalization lattice meets {model!r} with at most {budget} "
            f"suppressed row(s); raise max_suppressed_rows, use hierarchies that reach a single "
            f"top node, or relax the model")
    chosen = search.L[best]
    final = search.from_rows(chosen)
    ok, _, _ = search.class_stats(final)
    bad = search.suppression(best, final, ok)
    if not search.table_ok(bad, final.counts, best, final):
        raise InfeasibleError(f"the chosen lattice node does not meet {model!r}; this is a "
                              "bug in pdanon, please report it")
    raw = search._objective(best, final, bad, int(final.counts[bad].sum()))
    cols = search.columns
    info = {
        "levels": {col.name: int(chosen[c]) for c, col in enumerate(cols)},
        "objective": search.objective,
        # measured against the original (a suppressed outlier widens a column's span): for
        # the publisher only, never written with the release (pdanon.publisher_only)
        "publisher_only": PublisherOnly({
            "objective_value": raw if search.objective == "discernibility" else
            raw / (search.n * len(cols))}),
        "max_suppressed_rows": budget,
        "nodes_evaluated": search.evaluated,
        "nodes_total": search.total,
        "heights": {col.name: col.height for col in cols},
    }
    return chosen, bad[final.rows], info


@register("optimal", options=("hierarchies", "objective", "max_suppressed_rows", "levels",
                             "labels"), supports=("population", "table"))
def optimal(enc, model, *, method: str = "generalize", hierarchies=None, objective: str = "loss",
            max_suppressed_rows=None, levels=None, labels: bool = False, context=None,
            frame=None) -> Recoded:
    """Full-domain generalization with the best ``objective`` (see the module docstring).

    Options (through ``k_anonymize`` / ``l_diversify`` / ``t_close``):

    hierarchies : {column: hierarchy}
        :mod:`pdanon.hierarchy` objects, nested dicts, mapping tables or ARX CSV paths. A
        quasi-identifier without one can only be kept or suppressed whole (value → ``*``).
    objective : {"loss", "precision", "discernibility", "entropy"}
    max_suppressed_rows : int or float
        Rows that may be suppressed (an int count, or a float fraction of the rows strictly
        between 0 and 1); default 0.
    levels : {column: level or (min, max)}
        Restrict the lattice (e.g. keep ``sex`` at level 0, or evaluate one given node).
    labels : bool
        Publish hierarchy labels (``20-29``, ``100**``) instead of ranges and sets.
    """
    started = time.perf_counter()
    if method != "generalize":
        raise InvalidInputError(
            f"algorithm='optimal' recodes by hierarchies (method='generalize'); got "
            f"method={method!r}")
    if objective not in OBJECTIVES:
        raise InvalidInputError(f"unknown objective {objective!r}; use one of {list(OBJECTIVES)}")
    n = enc.n
    budget = suppression_budget(max_suppressed_rows, n, default=0)
    from pdanon.models.population import population_table

    population = population_table(model)
    pop_rows = None
    if population is None:
        cols = prepare_columns(enc, hierarchies, levels=levels)
    else:  # generalized with the sample (see pdanon.partition.population)
        cols, pop_rows = split_columns(
            prepare_columns(joint_encoded(enc, frame, population), hierarchies,
                            levels=levels), n)
    bounds = lattice_bounds(cols, levels)
    sensitive = sensitive_columns(enc, context)
    search = LatticeSearch(cols, model, sensitive, budget=budget, objective=objective,
                           bounds=bounds, population_rows=pop_rows)
    with progress_bar(search.total, desc="optimal: lattice nodes", unit="node",
                      long=search.total * n >= 10_000_000) as bar:
        chosen, suppressed_mask, info = search_result(search, model, budget, bar)
    out_cols = {}
    changed = 0
    for c, col in enumerate(cols):
        level = int(chosen[c])
        out_cols[col.name] = (col.label_cells(level, mask=suppressed_mask) if labels and level
                              else col.cells(level, mask=suppressed_mask))
        missing = col.missing_rows  # unchanged when published missing, not "or missing"
        if labels:  # a label (also '*' for a missing cell) is a change, as generalize counts
            shown = pd.notna(np.asarray(out_cols[col.name], dtype=object))
            changed += (int((~missing | shown).sum()) if level > 0 else
                        int((suppressed_mask & ~missing).sum()))
        else:
            plain = col.plain_nodes(level)[col.node_codes(level)]
            shown = ~np.asarray(out_cols[col.name].isna(), dtype=bool)  # "or missing" too
            changed += int(((~plain | suppressed_mask) & (~missing | shown)).sum())
    info["search_seconds"] = time.perf_counter() - started
    if labels:
        info["labels"] = True
        bands = {col.name: col.label_ranges(int(chosen[c]), mask=suppressed_mask)
                 for c, col in enumerate(cols) if int(chosen[c])}
        bands = {c: b for c, b in bands.items() if b}
        if bands:
            info["label_ranges"] = bands
    # the '*' of a column without a hierarchy (its leaves are the column's values) and a
    # level no hierarchy declares publish ranges read off the data: the engine widens their
    # rare bounds (pdanon.recode.bounds)
    given = hierarchy_map(hierarchies)
    data_bounds = () if labels else tuple(
        col.name for c, col in enumerate(cols) if int(chosen[c]) and (
            col.name not in given or not col.bound.is_declared(int(chosen[c]))))
    out = Recoded(out_cols, changed, int(suppressed_mask.sum()), suppressed=suppressed_mask,
                  info=info, data_bounds=data_bounds)
    if pop_rows is not None:
        out.population = population_cells(cols, pop_rows, chosen, labels=labels)
    return out
