"""GroupJoin: agglomerative grouping by least loss increase (the reference's default algorithm).

Changes: **partitioning** (then the chosen recoding: suppress / generalize / aggregate).

The rule (the reference's ``GroupJoin…`` classes):

1. every row starts as its own group;
2. pick a group that violates the privacy model, at random (``seed=``);
3. merge it with the partner group ``h`` (satisfying or not) that minimizes
   ``F(g ∪ h) − F(g) − F(h)``, where ``F`` is the *loss function* applied to the union's
   information loss (:mod:`pdanon.losses`) and ``F`` of a group is the value it got when it
   was formed (0 for a single row);
4. repeat until every group satisfies the model; then recode each group.

Default loss functions (:mod:`pdanon.losses`): k-anonymity ``loss``; l-diversity
``loss / Σ k_sens`` (k_sens: distinct sensitive values of the union per sensitive column,
capped at l); t-closeness ``loss · Σ t_sens`` (t_sens: distance of the union's sensitive
distribution to the whole table's, per sensitive column, with the model's ``distance``, e.g.
``"reference"`` for the reference's Jensen–Shannon / Wasserstein pair). ``loss_function=`` takes
the reference's signatures ``f(loss, size1, size2, k)``, ``f(loss, size1, size2, k, l, k_sens)``
and ``f(loss, size1, size2, k, t, t_sens)``; it is called once per step with numpy arrays
(``loss``, ``size2`` and each entry of the list ``k_sens`` / ``t_sens`` hold one value per
candidate partner, ``size1`` is the picked group's size), so ``lambda loss, s1, s2, k: loss``
style functions work unchanged; a function that cannot take arrays is called per partner.

Determinism: the violating group is drawn as ``violating[rng.integers(len(violating))]`` with
the violating groups listed by their smallest row index and ``rng =
numpy.random.default_rng(seed)`` (``order="random"``, the default); ``order="first_violating"``
always takes the first of them (the reference's first GroupJoin variant). Among partners whose increase is within 1e-9 (relative) of
the best, the one holding the smallest row index wins. The same seed gives the same output,
and ``seed`` defaults to :data:`DEFAULT_SEED` (0): an unseeded call gives the same table on every
run; pass another seed for another draw.

What is exact and what is restricted
------------------------------------
The loss of every union is **exact**, computed from per-group summaries kept up to date at
each merge: size; per real/ordered column the minimum, maximum, Σu and Σu² of normalized values
(generalization, O(1) per union); per column the smallest and largest code (suppression: a union
is constant iff min = max); per unordered column a bitset of the values present (generalization:
#distinct = popcount of the OR; a column of more than 512 values keeps bits for its 512 most
frequent values and counts the others through the rows that hold the picked group's values,
``_RareValues``); per sensitive column the value counts (l/t). Aggregation losses need the
median / mode / Σ|u − mean| of the union and are computed from the union's rows (every group's
rows lie side by side in an append-only arena, so the rows of all candidates are one gather) in
one vectorized pass over all candidates. No group is ever rescanned by a Python loop.

``partners="all"`` evaluates every other group as a partner (the rule exactly, O(#groups) numpy
work per merge). ``partners="near"`` restricts the partners of a picked group to the groups of
the rows next to its rows in ``orders`` lexicographic sorts of the table (the quasi-identifier
columns rotated so that each column is once the least significant key — rows that differ in one
or two columns only are adjacent in one of them), ``window`` rows on each side, at most
``max_candidates`` groups, nearest first; the window doubles while it finds no other group. This
is a *candidate restriction*: the chosen partner is the exact best among the candidates, not
necessarily among all groups. ``partners="auto"`` (default) is ``"all"`` up to
:data:`AUTO_ALL_ROWS` rows and ``"near"`` above. docs/group_join.md gives the measured quality
(total loss of ``"near"`` against the rule, on random tables) and timings.

Complexity: ``"near"``: O(n · (orders · window · |g| + candidates · columns)) numpy work plus
O(n log n) for the sorts; memory O(n · columns). ``"all"``: O(n² · columns).

Example
-------
>>> import pandas as pd
>>> from pdanon.encode import encode_table
>>> from pdanon.models import KAnonymity
>>> from pdanon.roles import resolve_roles
>>> df = pd.DataFrame({"age": [20, 21, 40, 41, 60, 62]})
>>> enc = encode_table(df, resolve_roles(df, quasi_identifiers={"age": "real"}))
>>> p, stats = group_join_partition(enc, KAnonymity(2), method="generalize", seed=0)
>>> p.labels.tolist(), round(stats["loss"], 3)
([0, 0, 1, 1, 2, 2], 0.095)
"""

from __future__ import annotations

import bisect
import numbers

import numpy as np

from pdanon import losses as _losses
from pdanon.encode import EncodedTable
from pdanon._errors import InfeasibleError, InvalidInputError
from pdanon.partition import Partition, register
from pdanon.partition.common import check_distance_option, no_progress, sensitive_columns
from pdanon.progress import progress_bar

__all__ = ["group_join_partition", "group_join", "GroupState", "AUTO_ALL_ROWS", "PARTNERS",
           "ORDERS"]

#: ``partners="auto"`` scans every group as a partner up to this many rows.
AUTO_ALL_ROWS = 1000
PARTNERS = ("auto", "all", "near")
#: how the violating group merged next is chosen
ORDERS = ("random", "first_violating")
#: The seed of an unseeded call (``seed=None``): the same call gives the same table every run.
DEFAULT_SEED = 0
#: tables from this many rows may show a progress bar (progress=None; see pdanon.progress)
PROGRESS_ROWS = 2_000
#: relative tolerance under which two loss increases count as equal (then the smaller id wins)
TIE = 1e-9
# dense (groups x values) count tables and value bitsets use at most this many cells in all
# (8 bytes each); wider columns fall back to rows (sensitive) or to bits for their most
# frequent values and rows for the others (unordered QIs: _RareValues)
_DENSE_CELLS = 1 << 23
# an unordered column gets a bitset per group up to 64 x this many values; a wider one keeps
# bits for at most that many of its most frequent values (the others are counted through
# their rows: _RareValues)
_FREQUENT_WORDS = 8
_UNSEEN = np.iinfo(np.int64).max
# at most this many (member row, order, offset) probes per candidate search
_PROBES = 60_000


# ============================================================================ the model


class _ModelSpec:
    """What GroupJoin needs from a privacy model: k, the loss-function family and its
    parameters (the reference's losses differ for k, l and t), and the sensitive columns the
    model's per-class check reads. Whether a group satisfies the model is the model's own
    answer (:meth:`~pdanon.models.PrivacyModel.classes_ok`)."""

    def __init__(self, model, sens_cols: list):
        from pdanon.models import LDiversity, TCloseness

        self.model = model
        self.parts = model.parts()
        req = model.requirements()
        self.k = int(req.min_size)
        self.lmodel = next((p for p in self.parts if isinstance(p, LDiversity)), None)
        self.tmodel = next((p for p in self.parts if isinstance(p, TCloseness)), None)
        self.family = "t" if self.tmodel is not None else "l" if self.lmodel is not None else "k"
        self.sens_cols = sens_cols
        self.needs_sensitive = bool(req.sensitive)
        if self.needs_sensitive and not sens_cols:
            raise InvalidInputError(
                f"{model!r} needs at least one sensitive column: pass sensitive=[...]")

    @property
    def params(self) -> tuple:
        if self.family == "l":
            return (self.k, self.lmodel.l)
        if self.family == "t":
            return (self.k, self.tmodel.t)
        return (self.k,)

    def extras(self, pairs: list) -> list:
        """k_sens (l) or t_sens (t) per sensitive column for groups given by pair counts."""
        from pdanon import distributions as d

        if self.family == "l":
            cap = float(self.lmodel.l)
            return [np.minimum(d.distinct_counts(p), cap) for p in pairs]
        if self.family == "t":
            hier = self.tmodel.hierarchies or {}
            return [d.class_distances(p, col, self.tmodel.distance, hier.get(col.name))
                    for p, col in zip(pairs, self.sens_cols)]
        return []

    def ok(self, sizes: np.ndarray, pairs: list, population=None,
           population_rows=None) -> np.ndarray:
        """Boolean per group: does it satisfy the model? ``pairs``: PairCounts per sensitive
        column over the same groups; ``population``: their population rows (a population
        model)."""
        from pdanon.distributions import ClassCounts

        sizes = np.asarray(sizes, dtype=np.int64)
        cols = self.sens_cols if self.needs_sensitive else []
        counts = list(pairs) if self.needs_sensitive else []
        classes = ClassCounts(sizes, cols, counts, population=population,
                              population_rows=population_rows)
        return np.asarray(self.model.classes_ok(classes), dtype=bool)


# ============================================================================ per-group state


class GroupState:
    """Groups of rows (id = smallest row index) with the summaries that give the exact
    information loss of any union of two groups: the state GroupJoin merges on, and the
    state the two-party owner keeps refining after its local anonymization.

    Public state (arrays indexed by group id, i.e. by row): ``size`` (0 for a merged-away
    id), ``alive``, ``label`` (row -> group id), ``members`` (rows of each alive group) and
    ``fval`` (the loss-function value each group got when it was formed). Methods:
    :meth:`union_loss` (loss of ``g`` united with each candidate), :meth:`merge` and
    :meth:`satisfied`; :meth:`from_labels` starts from a given partition.

    Parameters
    ----------
    enc : EncodedTable
    method : {"suppress", "generalize", "aggregate"}
    model : PrivacyModel
    sens_cols : list of SensitiveColumn, optional
        The sensitive columns the model reads (l-diversity, t-closeness).

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.encode import encode_table
    >>> from pdanon.models import KAnonymity
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"age": [20, 21, 40, 41]})
    >>> enc = encode_table(df, resolve_roles(df, quasi_identifiers={"age": "real"}))
    >>> G = GroupState(enc, "aggregate", KAnonymity(2))
    >>> G.union_loss(0, np.array([1, 2])).round(4).tolist()
    [0.0476, 0.9524]
    >>> G.merge(0, 1, 0.0476), G.size[:2].tolist(), G.satisfied(np.array([0, 2])).tolist()
    (0, [2, 0], [True, False])
    """

    def __init__(self, enc: EncodedTable, method: str, model, *, sens_cols=(),
                 population=None):
        spec = _ModelSpec(model, list(sens_cols))
        #: a :class:`~pdanon.partition.population.GroupPopulation` (population models)
        self.population = population
        n = enc.n
        self.n = n
        self.budget = _DENSE_CELLS  # cells left for dense tables and bitsets
        self.method = method
        self.spec = spec
        self.size = np.ones(n, dtype=np.int64)
        self.alive = np.ones(n, dtype=bool)
        self.label = np.arange(n, dtype=np.int64)  # row -> group id
        self.members: list = [np.array([i], dtype=np.int64) for i in range(n)]
        self.fval = np.zeros(n)  # loss-function value each group got when formed
        cols = enc.columns

        # ---- quasi-identifier summaries
        self.codes = np.stack([np.asarray(c.codes, dtype=np.int64) for c in cols], axis=1)
        if method == "suppress":
            # smallest and largest code per group and column, side by side: one gather
            self._codebounds = np.stack([self.codes, self.codes], axis=1)
            self.cmin = self._codebounds[:, 0]
            self.cmax = self._codebounds[:, 1]
        self.range_cols = [j for j, c in enumerate(cols) if c.kind != "unordered"]
        self.set_cols = [j for j, c in enumerate(cols) if c.kind == "unordered"]
        self.U = (np.stack([_losses.normalized_values(cols[j]) for j in self.range_cols], axis=1)
                  if self.range_cols else np.zeros((n, 0)))
        if method == "generalize":
            # min, max, Σu and Σu² per group and range column, side by side: one gather
            self._moments = np.stack([self.U, self.U, self.U, self.U * self.U], axis=1)
            self.mn, self.mx, self.s1, self.s2 = (self._moments[:, i] for i in range(4))
            self._init_sets(cols)
        if method == "aggregate":
            self.real_pos = [i for i, j in enumerate(self.range_cols) if cols[j].kind == "real"]
            self.ord_pos = [i for i, j in enumerate(self.range_cols)
                            if cols[j].kind == "ordered"]
            self.card = [int(self.codes[:, j].max()) + 1 for j in self.set_cols]
            self.U_cols = [np.ascontiguousarray(self.U[:, p]) for p in range(self.U.shape[1])]
            self.codes_cols = {j: np.ascontiguousarray(self.codes[:, j]) for j in self.set_cols}
            # per ordered column: the rank of each row's value, so that one integer sort of
            # (union, rank) orders every union's values (the median)
            self.ord_rank = []
            for p in self.ord_pos:
                values, rank = np.unique(self.U[:, p], return_inverse=True)
                self.ord_rank.append((rank.reshape(-1).astype(np.int64), values))

        # ---- sensitive value counts
        self.sens_dense = []
        if spec.needs_sensitive:
            for col in spec.sens_cols:
                if n * col.m <= self.budget:
                    self.budget -= n * col.m
                    m = np.zeros((n, col.m), dtype=np.int64)
                    m[np.arange(n), col.codes] = 1
                    self.sens_dense.append(m)
                else:
                    self.sens_dense.append(None)
        # the unions' rows are read (aggregation, sensitive columns without dense counts):
        # every group's rows lie side by side in an append-only arena, so the rows of
        # hundreds of candidates are one gather
        self.rows_needed = method == "aggregate" or any(d is None for d in self.sens_dense)
        if self.rows_needed:
            self._arena = np.arange(max(n, 1) * 2, dtype=np.int64)
            self._top = n
            self._at = np.arange(n, dtype=np.int64)  # where each group's rows start

    def _store(self, a: int) -> None:
        """Write group a's rows at the arena's end (compacted when full)."""
        rows = self.members[a]
        if self._top + len(rows) > len(self._arena):
            alive = np.flatnonzero(self.alive)
            alive = alive[alive != a]
            held = int(self.size[alive].sum()) + len(rows)
            arena = np.empty(max(2 * held, len(self._arena)), dtype=np.int64)
            top = 0
            for g in alive.tolist():  # compaction: O(n), once the arena has filled up
                m = self.members[g]
                arena[top:top + len(m)] = m
                self._at[g] = top
                top += len(m)
            self._arena, self._top = arena, top
        self._arena[self._top:self._top + len(rows)] = rows
        self._at[a] = self._top
        self._top += len(rows)

    def _rows_of(self, ids: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """The rows of groups ``ids``, one group after another, each in its members' order."""
        if not self.rows_needed:
            return np.concatenate([self.members[i] for i in ids.tolist()])
        total = int(sizes.sum())
        step = np.repeat(self._at[ids] - (np.cumsum(sizes) - sizes), sizes)
        return self._arena[step + np.arange(total)]

    def _init_sets(self, cols) -> None:
        """Bitsets of the values present, per unordered column. A wide column (more than
        64 · :data:`_FREQUENT_WORDS` values, or ``n · words`` beyond the budget) keeps bits for
        its most frequent values only and counts its other values through the rows that hold
        them (:class:`_RareValues`: reading a few rows beats OR-ing long bitsets of every
        candidate); both give the exact number of distinct values of a union."""
        n = self.n
        self.bit_cols, self.rare = [], []  # rare: (position in bit_cols or None, _RareValues)
        widths, offsets = [], []
        total = 0
        wide = []
        for j in self.set_cols:
            card = int(self.codes[:, j].max()) + 1
            w = (card + 63) // 64
            if w <= _FREQUENT_WORDS and n * w <= self.budget:
                self.budget -= n * w
                self.bit_cols.append(j)
                offsets.append(total)
                widths.append(w)
                total += w
            else:
                wide.append(j)
        bitcode = {j: self.codes[:, j] for j in self.bit_cols}  # bit position of each row
        for j in wide:
            c = self.codes[:, j]
            card = int(c.max()) + 1
            words = min(_FREQUENT_WORDS, self.budget // n if n else 0)
            self.budget -= n * words
            freq = np.bincount(c, minlength=card)
            frequent = np.argsort(-freq, kind="stable")[:64 * words]
            bit = np.full(card, -1, dtype=np.int64)
            bit[frequent] = np.arange(len(frequent))
            position = None
            if words:
                position = len(self.bit_cols)
                self.bit_cols.append(j)
                offsets.append(total)
                widths.append(words)
                total += words
                bitcode[j] = bit[c]
            self.rare.append((position, _RareValues(c, card, bit < 0)))
        self.bits = np.zeros((n, total), dtype=np.uint64)
        rows = np.arange(n)
        for j, off in zip(self.bit_cols, offsets):
            c = bitcode[j]
            on = c >= 0  # a wide column's rare values have no bit
            self.bits[rows[on], off + c[on] // 64] |= np.left_shift(
                np.uint64(1), (c[on] % 64).astype(np.uint64))
        self.bit_offsets = np.asarray(offsets, dtype=np.int64)
        self.bit_simple = all(w == 1 for w in widths)

    @classmethod
    def from_labels(cls, enc: EncodedTable, method: str, model, labels) -> "GroupState":
        """The state of an existing partition (``labels``: group 0..G-1 per row); each
        group's ``fval`` is its information loss (:func:`pdanon.losses.group_losses`).

        Example
        -------
        >>> import pandas as pd
        >>> from pdanon.encode import encode_table
        >>> from pdanon.models import KAnonymity
        >>> from pdanon.roles import resolve_roles
        >>> df = pd.DataFrame({"age": [20, 40, 21, 41]})
        >>> enc = encode_table(df, resolve_roles(df, quasi_identifiers={"age": "real"}))
        >>> G = GroupState.from_labels(enc, "aggregate", KAnonymity(2), np.array([0, 1, 0, 1]))
        >>> np.flatnonzero(G.alive).tolist(), G.label.tolist(), G.fval[:2].round(4).tolist()
        ([0, 1], [0, 1, 0, 1], [0.0476, 0.0476])
        """
        labels = np.asarray(labels, dtype=np.int64)
        G = cls(enc, method, model)
        n = len(labels)
        groups = int(labels.max()) + 1 if n else 0
        order = np.argsort(labels, kind="stable")
        bounds = np.cumsum(np.bincount(labels, minlength=groups))[:-1]
        members = np.split(order, bounds) if groups else []
        first = np.array([m[0] for m in members], dtype=np.int64)
        G.label[:] = first[labels]
        G.alive[:] = False
        G.alive[first] = True
        G.size[:] = 0
        G.size[first] = [len(m) for m in members]
        G.members = [None] * n
        for m in members:
            G.members[int(m[0])] = m
        if G.rows_needed:
            G._top = 0
            for f in first.tolist():
                G._store(f)
        if groups:
            G._summarize(labels, order, np.concatenate(([0], bounds)), first)
        loss = sum(_losses.group_losses(method, c, labels, groups) for c in enc.columns)
        G.fval[:] = 0.0
        G.fval[first] = loss
        return G

    def _summarize(self, labels, order, starts, first) -> None:
        """The summaries of the groups of ``labels`` (rows ``order``-ed by group, each group
        from ``starts``), stored at each group's id ``first``."""
        def per_group(ufunc, values):
            return ufunc.reduceat(values[order], starts, axis=0)

        if self.method == "suppress":
            self._codebounds[first, 0] = per_group(np.minimum, self.codes)
            self._codebounds[first, 1] = per_group(np.maximum, self.codes)
        if self.method == "generalize":
            if self.range_cols:
                for i, ufunc in enumerate((np.minimum, np.maximum, np.add, np.add)):
                    self._moments[first, i] = per_group(ufunc, self._moments[:, i])
            if self.bits.shape[1]:
                self.bits[first] = per_group(np.bitwise_or, self.bits)
            for _, rare in self.rare:
                rare.summarized(labels, first)
        for dense in self.sens_dense:
            if dense is not None:
                dense[first] = per_group(np.add, dense)

    # ------------------------------------------------------------------ union evaluation
    def _union_rows(self, g: int, cands: np.ndarray):
        """Rows of every union g ∪ c laid out one after another: (rows, segment, starts)."""
        mg = self.members[g]
        C, mine = len(cands), len(mg)
        theirs = self._rows_of(cands, self.size[cands])
        sizes = self.size[cands] + mine
        starts = np.cumsum(sizes) - sizes
        rows = np.empty(int(sizes.sum()), dtype=np.int64)
        at = (starts[:, None] + np.arange(mine)).ravel()  # g's rows open every union
        rows[at] = np.tile(mg, C)
        rest = np.ones(len(rows), dtype=bool)
        rest[at] = False
        rows[rest] = theirs
        seg = np.repeat(np.arange(C), sizes)
        return rows, seg, starts

    def union_loss(self, g: int, cands: np.ndarray, layout=None) -> np.ndarray:
        """Exact information loss (summed over columns) of g ∪ c for every candidate c."""
        N = (self.size[cands] + self.size[g]).astype(np.float64)
        C = len(cands)
        if self.method == "suppress":
            mine, theirs = self._codebounds[g], np.take(self._codebounds, cands, axis=0)
            lo = np.minimum(mine[0], theirs[:, 0])
            hi = np.maximum(mine[1], theirs[:, 1])
            return (lo != hi).sum(axis=1) * N
        loss = np.zeros(C)
        if self.method == "generalize":
            if self.range_cols:
                mine, theirs = self._moments[g], np.take(self._moments, cands, axis=0)
                lo = np.minimum(mine[0], theirs[:, 0])
                hi = np.maximum(mine[1], theirs[:, 1])
                s1 = mine[2] + theirs[:, 2]
                s2 = mine[3] + theirs[:, 3]
                loss += _losses.generalization_loss(N[:, None], lo, hi, s1, s2).sum(axis=1)
            if self.bit_cols:
                pc = np.bitwise_count(self.bits[g] | np.take(self.bits, cands, axis=0))
                distinct = pc if self.bit_simple else np.add.reduceat(
                    pc.astype(np.int64), self.bit_offsets, axis=1)
                if self.rare:
                    distinct = distinct.astype(np.int64)
                    for position, rare in self.rare:
                        if position is not None:
                            distinct[:, position] += rare.union_distinct(self, g, cands)
                loss += _losses.unordered_generalization_loss(N[:, None], distinct).sum(axis=1)
            for position, rare in self.rare:
                if position is None:  # no bits at all: every value counted through its rows
                    loss += _losses.unordered_generalization_loss(
                        N, rare.union_distinct(self, g, cands))
            return loss
        # aggregate: from the rows of the unions
        rows, seg, starts = layout if layout is not None else self._union_rows(g, cands)
        Ni = N.astype(np.int64)
        # one column at a time from contiguous copies: a 1-D gather is ~10x a 2-D one
        if self.real_pos:
            real = np.zeros(C)
            for p in self.real_pos:
                x = self.U_cols[p][rows]
                mean = np.add.reduceat(x, starts) / N
                real += np.add.reduceat(np.abs(x - mean[seg]), starts)
            loss += real
        for p, (rank, values) in zip(self.ord_pos, self.ord_rank):
            u = self.U_cols[p][rows]
            ranks = len(values)
            # by union, then by value; "stable" sorts these blockwise-sorted keys ~4x faster
            key = np.sort(seg * ranks + rank[rows], kind="stable")
            med = values[key[starts + Ni // 2] - np.arange(C) * ranks]
            loss += np.add.reduceat(np.abs(u - med[seg]), starts)
        for j, card in zip(self.set_cols, self.card):
            key = seg * card + self.codes_cols[j][rows]
            if C * card <= 4 * len(rows) + 1024:
                top = np.bincount(key, minlength=C * card).reshape(C, card).max(axis=1)
            else:  # runs of equal (union, value) in one sort; the longest run per union
                key.sort(kind="stable")
                run = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
                cnt = np.diff(np.append(run, len(key)))
                owner = key[run] // card  # every union has a run: N >= 1
                top = np.maximum.reduceat(cnt, np.searchsorted(owner, np.arange(C)))
            loss += N - top
        return loss

    def union_extras(self, g: int, cands: np.ndarray, layout=None) -> list:
        """The loss function's k_sens (l) or t_sens (t) of every union g ∪ c, per sensitive
        column. k_sens from dense counts is a count of nonzero cells (no pair table)."""
        spec = self.spec
        if spec.family == "l" and all(d is not None for d in self.sens_dense):
            cap = float(spec.lmodel.l)
            return [np.minimum(np.count_nonzero(dense[g] + np.take(dense, cands, axis=0),
                                                axis=1).astype(np.float64), cap)
                    for dense in self.sens_dense]
        return spec.extras(self.union_pairs(g, cands, layout))

    def union_pairs(self, g: int, cands: np.ndarray, layout=None) -> list:
        """PairCounts of the sensitive values of every union g ∪ c, per sensitive column."""
        from pdanon import distributions as d

        out = []
        C = len(cands)
        for col, dense in zip(self.spec.sens_cols, self.sens_dense):
            if dense is not None:
                counts = np.take(dense, cands, axis=0) + dense[g]
                cls, val = np.nonzero(counts)
                out.append(d.PairCounts(cls, val, counts[cls, val], counts.sum(axis=1)))
            else:
                if layout is None:
                    layout = self._union_rows(g, cands)
                rows, seg, _ = layout
                out.append(d.PairCounts.from_codes(seg, col.codes[rows], col.m, C))
        return out

    def group_pairs(self, ids: np.ndarray) -> list:
        """PairCounts of the sensitive values of the groups ``ids``."""
        from pdanon import distributions as d

        out = []
        for col, dense in zip(self.spec.sens_cols, self.sens_dense):
            if dense is not None:
                counts = dense[ids]
                cls, val = np.nonzero(counts)
                out.append(d.PairCounts(cls, val, counts[cls, val], counts.sum(axis=1)))
            else:
                sizes = self.size[ids]
                seg = np.repeat(np.arange(len(ids)), sizes)
                out.append(d.PairCounts.from_codes(seg, col.codes[self._rows_of(ids, sizes)],
                                                   col.m, len(ids)))
        return out

    def satisfied(self, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        if self.population is not None:
            pairs = self.group_pairs(ids) if self.spec.needs_sensitive else []
            pop = self.population.counts([self.members[i] for i in ids.tolist()])
            # a group whose published cells match fewer population rows than it has rows
            # (suppressed cells) is refused: the population must contain every class
            return self.spec.ok(self.size[ids], pairs, pop, self.population.total) & (
                pop >= self.size[ids])
        if not self.spec.needs_sensitive:
            return self.size[ids] >= self.spec.k
        pairs = self.group_pairs(ids)
        return self.spec.ok(self.size[ids], pairs)

    # ------------------------------------------------------------------ merging
    def merge(self, a: int, b: int, value: float) -> int:
        """Merge groups a and b; the union keeps the smaller id. Returns it."""
        if b < a:
            a, b = b, a
        if self.method == "suppress":
            np.minimum(self.cmin[a], self.cmin[b], out=self.cmin[a])
            np.maximum(self.cmax[a], self.cmax[b], out=self.cmax[a])
        elif self.method == "generalize":
            np.minimum(self.mn[a], self.mn[b], out=self.mn[a])
            np.maximum(self.mx[a], self.mx[b], out=self.mx[a])
            self.s1[a] += self.s1[b]
            self.s2[a] += self.s2[b]
            if self.bits.shape[1]:
                self.bits[a] |= self.bits[b]
        for dense in self.sens_dense:
            if dense is not None:
                dense[a] += dense[b]
        mb = self.members[b]
        self.label[mb] = a
        self.members[a] = np.concatenate((self.members[a], mb))
        if self.rows_needed:
            self._store(a)
        if self.method == "generalize":
            for _, rare in self.rare:
                rare.merged(a, b)
        self.members[b] = None
        self.size[a] += self.size[b]
        self.size[b] = 0
        self.alive[b] = False
        self.fval[a] = value
        self.fval[b] = 0.0
        return a


class _RareValues:
    """The values of a wide unordered column that have no bit in the groups' bitsets, and
    the rows that hold each of them: the number of distinct such values of g ∪ c is
    ``distinct[g] + distinct[c] − shared(g, c)``, where ``shared`` is read from the rows
    holding g's values (their current groups), O(rows holding g's values) per union search.

    ``codes``: the column's codes per row; ``card``: the number of codes; ``rare``: boolean
    per code, True for the values counted here."""

    def __init__(self, codes: np.ndarray, card: int, rare: np.ndarray):
        self.codes = codes
        self.card = card
        self.is_rare = rare
        held = np.flatnonzero(rare[codes])
        order = np.argsort(codes[held], kind="stable")
        self.rows = held[order]  # rows of rare values, by value
        self.count = np.bincount(codes[held], minlength=card)
        self.start = np.cumsum(self.count) - self.count
        self.distinct = rare[codes].astype(np.int64)  # per group (id = row): one row each
        self._held: dict = {}  # group id -> its rare values (sorted), once it has 2+ rows

    def _values(self, g: int) -> np.ndarray:
        held = self._held.get(g)
        if held is not None:
            return held
        v = self.codes[g]  # a group of one row: its id is its row
        return np.array([v] if self.is_rare[v] else [], dtype=np.int64)

    def union_distinct(self, groups: "GroupState", g: int, cands: np.ndarray) -> np.ndarray:
        """Distinct rare values of g ∪ c for every candidate c (sorted ids)."""
        values = self._values(g)
        out = self.distinct[g] + self.distinct[cands]
        if not len(values):
            return out
        counts = self.count[values]
        total = int(counts.sum())
        first = np.repeat(self.start[values] - (np.cumsum(counts) - counts), counts)
        rows = self.rows[first + np.arange(total)]
        labels = groups.label[rows]
        keep = labels != g
        # one (group, value) pair per value a group shares with g
        pairs = np.unique(labels[keep] * self.card + self.codes[rows[keep]])
        holder = pairs // self.card
        at = np.searchsorted(cands, holder)
        at = at[(at < len(cands)) & (cands[np.minimum(at, len(cands) - 1)] == holder)]
        return out - np.bincount(at, minlength=len(cands))

    def merged(self, a: int, b: int) -> None:
        """Groups a and b became group a."""
        held = np.union1d(self._values(a), self._values(b))
        self._held[a] = held
        self._held.pop(b, None)
        self.distinct[a] = len(held)
        self.distinct[b] = 0

    def summarized(self, labels: np.ndarray, first: np.ndarray) -> None:
        """The groups of ``labels`` (0..G-1 per row), group i with id ``first[i]``."""
        held = self.is_rare[self.codes]
        pairs = np.unique(labels[held] * self.card + self.codes[held])
        group = pairs // self.card
        self.distinct[:] = 0
        self.distinct[first] = np.bincount(group, minlength=len(first))
        bounds = np.searchsorted(group, np.arange(len(first) + 1))
        values = pairs % self.card
        self._held = {int(f): values[bounds[i]:bounds[i + 1]] for i, f in enumerate(first)}


# ============================================================================ candidates


class _Neighbours:
    """Candidate partners: groups of the rows adjacent to a group's rows in a few lexicographic
    sorts of the table (see the module docstring)."""

    def __init__(self, codes: np.ndarray, orders: int, window: int, max_candidates: int):
        n, c = codes.shape
        perms = []
        base = list(range(c))
        for r in range(min(orders, c)):
            # rotation r: column (c - 1 - r) is the least significant key
            perms.append(base[c - r:] + base[:c - r] if r else base)
        rng = np.random.default_rng(12345)
        while len(perms) < orders and c > 1:
            perms.append(list(rng.permutation(c)))
        self.seq = np.empty((len(perms), n), dtype=np.int64)
        self.pos = np.empty((len(perms), n), dtype=np.int64)
        for r, perm in enumerate(perms):
            # np.lexsort: the last key is the most significant
            order = np.lexsort(tuple(codes[:, j] for j in reversed(perm)))
            self.seq[r] = order
            self.pos[r, order] = np.arange(n)
        self.n = n
        self.R = len(perms)
        self.window = max(1, int(window))
        self.max_candidates = max(1, int(max_candidates))
        # flat positions: sort r's row at position p is seq_flat[r * n + p]
        self.seq_flat = self.seq.ravel()
        self._base = (np.arange(self.R, dtype=np.int64) * n)[None, :, None]
        self._pos_flat = self.pos + self._base[0]  # a row's flat position in each sort
        self._offsets: dict = {}  # window -> probe offsets, nearest first
        self._last = self._base + (n - 1)
        self._first_seen = np.full(n, _UNSEEN, dtype=np.int64)  # scratch: first probe per group

    def candidates(self, groups: GroupState, g: int) -> np.ndarray:
        n = self.n
        members = groups.members[g]
        w = self.window
        while True:
            m = members
            per_row = self.R * 2 * w
            if len(m) * per_row > _PROBES:
                step = -(-len(m) * per_row // _PROBES)
                m = m[::step]
            offs = self._offsets.get(w)
            if offs is None:
                offs = np.empty((2 * w, 1, 1), dtype=np.int64)
                offs[0::2, 0, 0] = -np.arange(1, w + 1)
                offs[1::2, 0, 0] = np.arange(1, w + 1)
                self._offsets[w] = offs
            P = self._pos_flat[:, m]  # R x |m|, flat positions
            idx = P[None, :, :] + offs  # 2w x R x |m|, nearest offsets first
            np.maximum(idx, self._base, out=idx)  # clipped to each sort's own rows
            np.minimum(idx, self._last, out=idx)
            labs = groups.label[np.take(self.seq_flat, idx.ravel())]
            labs = labs[labs != g]
            if len(labs):
                # the groups met, in the order first met (no sort: a scratch array per group)
                probe = np.arange(len(labs), dtype=np.int64)
                seen = self._first_seen
                np.minimum.at(seen, labs, probe)
                met = labs[seen[labs] == probe]
                seen[labs] = _UNSEEN
                return np.sort(met[: self.max_candidates])
            if w >= n:
                return np.zeros(0, dtype=np.int64)
            w *= 2


# ============================================================================ the algorithm


def _published_violators(G: GroupState, check) -> list:
    """Groups whose published class does not meet the model (``check``: see
    :func:`group_join_partition`'s ``population``), sorted; the groups of one published class
    (equal cells) are first merged into one."""
    labels = np.unique(G.label, return_inverse=True)[1].reshape(-1)
    classes, ok = check(labels)
    out = []
    for c in np.flatnonzero(~np.asarray(ok, dtype=bool)).tolist():
        ids = np.unique(G.label[classes == c]).tolist()
        g = ids[0]
        for other in ids[1:]:
            g = G.merge(g, other, float(G.fval[g] + G.fval[other]))
        out.append(g)
    return sorted(out)


def _call_loss_function(fn, loss, size1, size2, params, extras, vectorized: bool):
    """F for every candidate; tries one vectorized call, else one call per candidate."""
    C = len(loss)
    if vectorized:
        return np.asarray(fn(loss, size1, size2, *params, *([extras] if extras is not None
                                                            else [])), dtype=np.float64)
    args = (loss, size1, size2, *params) + ((extras,) if extras is not None else ())
    try:
        out = np.asarray(fn(*args), dtype=np.float64)
        if out.shape == (C,):
            return out
        if out.shape == () and C == 1:
            return out.reshape(1)
    except (TypeError, ValueError):
        pass
    res = np.empty(C)
    for i in range(C):
        ex = () if extras is None else ([e[i].item() for e in extras],)
        res[i] = float(fn(float(loss[i]), int(size1), int(size2[i]), *params, *ex))
    return res


def _check_options(seed, partners, window, orders, max_candidates, loss_function,
                   order) -> None:
    if partners not in PARTNERS:
        raise InvalidInputError(f"unknown partners={partners!r}; use one of {list(PARTNERS)}")
    if order not in ORDERS:
        raise InvalidInputError(f"unknown order={order!r}; use one of {list(ORDERS)}")
    for name, v in (("window", window), ("orders", orders), ("max_candidates", max_candidates)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
            raise InvalidInputError(f"{name} must be an integer >= 1, got {v!r}")
    if loss_function is not None and not callable(loss_function):
        raise InvalidInputError(
            f"loss_function must be callable like f(loss, size1, size2, k), got "
            f"{type(loss_function).__name__}")
    if seed is not None and not isinstance(seed, (numbers.Integral, np.random.Generator)):
        raise InvalidInputError(f"seed must be an integer or a numpy Generator, got {seed!r}")


def group_join_partition(enc: EncodedTable, model, *, method: str = "generalize", seed=None,
                         loss_function=None, partners: str = "auto", window: int = 24,
                         orders: int = 8, max_candidates: int = 384,
                         context=None, order: str = "random",
                         population=None) -> tuple[Partition, dict]:
    """Group rows by the GroupJoin rule (module docstring).

    Parameters
    ----------
    enc : EncodedTable
    model : PrivacyModel
        KAnonymity, LDiversity, TCloseness or an AllOf of them (k is the largest KAnonymity
        k; t-closeness uses the model's ``distance``).
    method : {"suppress", "generalize", "aggregate"}
        Decides the per-column losses.
    seed : int or numpy Generator, optional
        Draws the violating group to merge; ``None`` means :data:`DEFAULT_SEED` (0).
    loss_function : callable, optional
        The reference's signatures (module docstring); default by model: k → loss,
        l → loss / Σ k_sens, t → loss · Σ t_sens.
    partners : {"auto", "all", "near"}
        Every group as a partner, or the candidate restriction (module docstring).
    window, orders, max_candidates : int
        The candidate restriction's sort orders, rows on each side, and cap.
    context : SensitiveData, optional
        The model's context (kinds and whole-table distributions of the sensitive columns).
    order : {"random", "first_violating"}
        Which violating group is merged next: one drawn with ``seed`` (default), or always
        the first one by smallest row (the reference's first GroupJoin variant; ``seed`` is
        then unused).
    population : (GroupPopulation, callable), optional
        For k-map / δ-presence against a population table: the population rows inside each
        group's cells (:class:`~pdanon.partition.population.GroupPopulation`), and
        ``check(labels) -> (published class per row, ok per published class)``, the model on
        the classes the groups publish (cells may coincide or overlap; see
        :func:`pdanon.containment.population_matches`). When no group violates the model,
        the published classes that do not meet it become violating groups (a class made of
        several groups, whose cells coincide, is first merged into one) and merging goes on.

    Returns ``(Partition, stats)``; stats: ``loss`` (total information loss of the groups),
    ``merges``, ``partners`` (the mode used), ``candidates`` (mean partners evaluated per
    merge).

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.encode import encode_table
    >>> from pdanon.models import KAnonymity
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"zip": ["a", "a", "b", "b"], "age": [30, 30, 50, 50]})
    >>> enc = encode_table(df, resolve_roles(df))
    >>> group_join_partition(enc, KAnonymity(2), method="suppress", seed=1)[0].labels.tolist()
    [0, 0, 1, 1]
    """
    _check_options(seed, partners, window, orders, max_candidates, loss_function, order)
    if method not in _losses.METHODS:
        raise InvalidInputError(f"unknown method {method!r}; use one of {list(_losses.METHODS)}")
    n = enc.n
    sens_cols = sensitive_columns(enc, context)
    G = GroupState(enc, method, model, sens_cols=sens_cols,
                   population=None if population is None else population[0])
    spec = G.spec
    mode = partners if partners != "auto" else ("all" if n <= AUTO_ALL_ROWS else "near")
    first = order == "first_violating"
    if seed is None:
        seed = DEFAULT_SEED
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    fn = loss_function if loss_function is not None else _losses.default_loss_function(
        spec.family)
    vectorized = loss_function is None
    params = spec.params

    ok = G.satisfied(np.arange(n))
    violating = [int(i) for i in np.flatnonzero(~ok)]  # sorted group ids
    near = None
    merges = 0
    evaluated = 0
    groups_alive = n

    todo = len(violating)
    with progress_bar(todo, desc="group_join: violating groups", unit="group",
                      long=n >= PROGRESS_ROWS) as bar:
        while True:
            while violating:
                if groups_alive == 1:
                    raise InfeasibleError(
                        f"{model!r} cannot be met even by the whole table as one group; relax "
                        "the model's parameters")
                g = violating[0 if first else int(rng.integers(len(violating)))]
                if mode == "near":
                    if near is None:
                        near = _Neighbours(G.codes, orders, window, max_candidates)
                    cands = near.candidates(G, g)
                else:
                    cands = np.flatnonzero(G.alive)
                    cands = cands[cands != g]
                if not len(cands):
                    raise no_progress("group_join",
                                      f"violating group {g} has no partner to merge with")
                layout = G._union_rows(g, cands) if G.rows_needed else None
                loss = G.union_loss(g, cands, layout)
                extras = G.union_extras(g, cands, layout) if spec.family != "k" else None
                F = _call_loss_function(fn, loss, int(G.size[g]), G.size[cands], params, extras,
                                        vectorized)
                delta = F - G.fval[g] - G.fval[cands]
                best = float(np.min(delta))
                tie = np.flatnonzero(delta <= best + TIE * max(1.0, abs(best)))
                pick = int(tie[0])  # candidates are sorted by id: the smallest id wins a tie
                c = int(cands[pick])
                evaluated += len(cands)
                # update the violating list
                del violating[bisect.bisect_left(violating, g)]
                i = bisect.bisect_left(violating, c)
                if i < len(violating) and violating[i] == c:
                    del violating[i]
                new = G.merge(g, c, float(F[pick]))
                merges += 1
                groups_alive -= 1
                if not bool(G.satisfied(np.array([new]))[0]):
                    bisect.insort(violating, new)
                bar.update(max(0, todo - len(violating) - bar.count))  # groups settled so far
            if population is None:
                break
            violating = _published_violators(G, population[1])
            groups_alive = int(G.alive.sum())
            if not violating:
                break

    labels = np.unique(G.label, return_inverse=True)[1].reshape(-1).astype(np.int64)
    total = _losses.table_loss(method, enc.columns, labels)
    stats = {"loss": total, "merges": merges, "partners": mode,
             "candidates": evaluated / merges if merges else 0.0}
    note = f"group_join: partners={mode!r}, {merges} merges, loss={total:.6g}"
    return Partition(labels, note=note), stats


@register("group_join", options=("seed", "loss_function", "partners", "window", "orders",
                                "max_candidates", "distance", "order"), supports=("population",))
def group_join(enc: EncodedTable, model, *, method: str, frame=None, context=None, seed=None,
               loss_function=None, partners: str = "auto", window: int = 24, orders: int = 8,
               max_candidates: int = 384, distance=None, order: str = "random") -> Partition:
    """Engine entry point (``algorithm="group_join"``): k-anonymity, l-diversity (every
    variant) and t-closeness (every distance), with the three recoding methods. Returns the
    recoded columns; ``info`` gains ``loss`` (total information loss), ``merges`` and
    ``partners``.

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.engine import anonymize
    >>> from pdanon.models import KAnonymity
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"age": [20, 21, 40, 41]})
    >>> out, info = anonymize(df, resolve_roles(df), model=KAnonymity(2), method="aggregate",
    ...                       algorithm="group_join", seed=0)
    >>> out["age"].tolist(), info["merges"]
    ([20.5, 20.5, 40.5, 40.5], 2)
    """
    check_distance_option(model, distance)
    population = _population_check(enc, model, frame, method, context)
    partition, stats = group_join_partition(
        enc, model, method=method, seed=seed, loss_function=loss_function, partners=partners,
        window=window, orders=orders, max_candidates=max_candidates, context=context,
        order=order, population=population)
    partition.info = dict(stats, groups_built=partition.groups)
    return partition


def _population_check(enc: EncodedTable, model, frame, method: str, context):
    """For k-map / δ-presence against a population table: the population rows of every group
    (:class:`~pdanon.partition.population.GroupPopulation`) and the check of the classes the
    groups publish (recoded as the engine recodes them, population rows counted by
    containment as the engine verifies them); None for another model."""
    import pandas as pd

    from pdanon import recode
    from pdanon._groups import class_labels
    from pdanon.containment import population_matches
    from pdanon.distributions import ClassCounts
    from pdanon.partition.population import GroupPopulation, local_population

    joint = local_population(enc, model, frame, method, "group_join")
    if joint is None:
        return None
    columns, pop, table = joint
    names = [c.name for c in enc.columns]

    def check(labels):
        published = pd.DataFrame({c.name: recode.recode_column(method, frame[c.name], c,
                                                               labels)[0]
                                  for c in enc.columns})
        classes = class_labels(published, names)
        counts, shared = population_matches(published, classes, table, names, shared=True)
        found = ClassCounts.from_labels(classes, context)
        found.population, found.population_rows = counts, len(table)
        found.population_shared = shared
        return classes, np.asarray(model.classes_ok(found), dtype=bool) & (counts >= found.sizes)

    return GroupPopulation(columns, pop, method), check
