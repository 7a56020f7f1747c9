"""Per-class distributions of sensitive values, computed for all classes at once.

Everything here works on two integer arrays: the equivalence-class label of every row
(``0..G-1``) and the code of its sensitive value (``0..m-1``; for ``real`` / ``ordered`` columns the
codes follow the value order and a missing value is the last code). The ``(class, value)`` pairs
present in the table are counted once (hash + sort of the distinct pairs only), and every
measure - distinct values, entropy, recursive (c, l), total variation, Jensen-Shannon divergence,
ordered-distance EMD, normalized 1-D Wasserstein distance, hierarchical EMD - is then a handful
of ``bincount`` / ``cumsum`` / ``searchsorted`` passes over those pairs. Memory is O(n + pairs);
no ``G x m`` matrix is built.

Example
-------
>>> import numpy as np
>>> labels = np.array([0, 0, 1, 1])
>>> col = SensitiveColumn.from_values(np.array(["a", "b", "a", "a"]), "unordered", name="s")
>>> total_variation(PairCounts.build(labels, col), col).tolist()
[0.25, 0.25]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable, Mapping

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError
from pdanon.encode import factorize, is_generalized

_SMALL = 2048  # below this many rows, np.unique beats hashing

#: The reference library's guard against a zero value range in the normalized Wasserstein distance.
WASSERSTEIN_EPS = 1e-10


# --------------------------------------------------------------------------- encoding


def _numeric_uniques(uniques, name) -> np.ndarray:
    """Float value of every distinct value of a ``real`` column (midpoint of a range)."""
    if is_generalized(uniques):
        lo = np.asarray(uniques.lo, dtype=np.float64)
        hi = np.asarray(uniques.hi, dtype=np.float64)
        return (lo + hi) / 2
    dtype = getattr(uniques, "dtype", None)
    if dtype is not None and pd.api.types.is_datetime64_any_dtype(dtype):
        return np.asarray(pd.Series(uniques).astype("int64"), dtype=np.float64)
    try:
        return np.asarray(uniques, dtype=np.float64)
    except (TypeError, ValueError):
        raise KindError(
            f"sensitive column {name!r} is declared 'real' but holds non-numeric values; "
            f"convert it (pd.to_numeric) or declare it 'ordered' or 'unordered'"
        ) from None


@dataclass
class SensitiveColumn:
    """One sensitive column as codes.

    ``codes`` are 0..m-1; for ``real`` and ``ordered`` kinds they follow the value order, with a
    missing value (if any) as the last code ``m-1``. Every missing cell - NaN, None, pd.NA,
    NaT - is that one value, so l-diversity counts it as one value and the ordered EMD of
    t-closeness places it after the largest value. ``values`` holds the sorted distinct
    numbers of a ``real`` column (NaN last when present); ``uniques`` the distinct cells in code
    order (missing value excluded); ``has_na`` tells whether code ``m-1`` stands for missing.
    """

    name: Hashable
    kind: str
    codes: np.ndarray
    m: int
    has_na: bool
    uniques: object = None
    values: np.ndarray | None = None
    global_counts: np.ndarray = field(default=None, repr=False)
    #: whole-table arrays (probabilities, CDF, prefix sums) computed once and shared by take()
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_values(cls, values, kind: str, *, name: Hashable = None) -> "SensitiveColumn":
        """Encode a column (Series, array, Categorical, generalization array)."""
        if isinstance(values, pd.Series):
            name = values.name if name is None else name
            values = values.array
        if kind not in ("real", "ordered", "unordered"):
            raise KindError(f"unknown kind {kind!r} for sensitive column {name!r}; use real, "
                            f"ordered or unordered")
        codes, uniques = factorize(values, where=f"sensitive column {name!r}",
                                   sort=kind != "unordered", mixed="compare")
        m = len(uniques)
        numbers = _numeric_uniques(uniques, name) if kind == "real" else None
        has_na = bool((codes < 0).any())
        if has_na:
            codes = np.where(codes < 0, m, codes)
            if numbers is not None:
                numbers = np.append(numbers, np.nan)
            m += 1
        counts = np.bincount(codes, minlength=m) if len(codes) else np.zeros(m, dtype=np.int64)
        return cls(name, kind, codes, m, has_na, uniques, numbers, counts)

    @property
    def n(self) -> int:
        return len(self.codes)

    def take(self, rows) -> "SensitiveColumn":
        """The same column restricted to ``rows``; the whole table's distribution is kept."""
        return SensitiveColumn(self.name, self.kind, self.codes[rows], self.m, self.has_na,
                               self.uniques, self.values, self.global_counts, self.cache)

    def known(self) -> "SensitiveColumn":
        """The column's known values only: the missing code dropped from the values, the
        whole table's distribution and the ``real`` numbers (itself when nothing is missing).
        What the privacy models read under ``missing_sensitive="unknown"``: a class's
        distribution of known values against the table's distribution of known values. Its
        ``codes`` are empty: it describes values, and its classes' counts come from
        :meth:`ClassCounts.known` (made once per whole-table distribution and shared by
        :meth:`take`).

        Example
        -------
        >>> col = SensitiveColumn.from_values(np.array(["a", None, "b", "a"], dtype=object),
        ...                                   "unordered", name="s")
        >>> col.m, col.global_counts.tolist(), col.known().m, col.known().global_counts.tolist()
        (3, [2, 1, 1], 2, [2, 1])
        """
        if not self.has_na:
            return self
        hit = self.cache.get("known")
        if hit is None:
            m = self.m - 1
            hit = SensitiveColumn(self.name, self.kind, np.zeros(0, dtype=np.int64), m, False,
                                  self.uniques, None if self.values is None else self.values[:m],
                                  np.asarray(self.global_counts)[:m])
            self.cache["known"] = hit
        return hit


@dataclass
class SensitiveData:
    """Encoded sensitive columns of a table: the context privacy models use in ``groups_ok``.

    ``take(rows)`` restricts the rows (e.g. candidate groups of a partitioner) while keeping
    the whole table's distributions, against which t-closeness is measured.
    """

    columns: dict

    @classmethod
    def from_frame(cls, df: pd.DataFrame, sensitive) -> "SensitiveData":
        """``sensitive``: a list of column names (kinds inferred) or ``{name: kind}``."""
        kinds = sensitive_kinds(df, sensitive)
        return cls({c: SensitiveColumn.from_values(df[c], k, name=c) for c, k in kinds.items()})

    def take(self, rows) -> "SensitiveData":
        return SensitiveData({c: col.take(rows) for c, col in self.columns.items()})

    @property
    def sensitive(self) -> dict:
        """``{name: codes}`` (the form :class:`pdanon.encode.EncodedTable` uses)."""
        return {c: col.codes for c, col in self.columns.items()}

    def __len__(self) -> int:
        return len(self.columns)


def sensitive_kinds(df: pd.DataFrame, sensitive, kinds: Mapping | None = None) -> dict:
    """``{name: kind}`` for a sensitive spec (name, list of names or mapping), checking names."""
    from pdanon._errors import UnknownColumnError
    from pdanon.roles import KINDS, infer_kind

    if sensitive is None:
        sensitive = []
    if isinstance(sensitive, (str, int)) and not isinstance(sensitive, bool):
        sensitive = [sensitive]
    items = dict(sensitive) if isinstance(sensitive, Mapping) else {c: None for c in sensitive}
    if kinds:
        for c, k in kinds.items():
            if c not in items:
                raise InvalidInputError(f"kinds names column {c!r}, which is not sensitive; "
                                        f"sensitive columns are {list(items)}")
            items[c] = k
    missing = [c for c in items if c not in df.columns]
    if missing:
        raise UnknownColumnError(
            f"unknown sensitive column(s) {missing}; the frame has columns {list(df.columns)}"
        )
    out = {}
    for c, k in items.items():
        if k is None:
            k = getattr(df[c].dtype, "column_type", None) or infer_kind(df[c])
        if k not in KINDS:
            raise KindError(f"unknown kind {k!r} for sensitive column {c!r}; use one of "
                            f"{list(KINDS)}")
        out[c] = k
    return out


# --------------------------------------------------------------------------- pair counts


@dataclass
class PairCounts:
    """The distinct ``(class, value)`` pairs of a table, sorted by class then value."""

    cls: np.ndarray        # class label of each pair
    val: np.ndarray        # value code of each pair
    count: np.ndarray      # rows with that pair
    sizes: np.ndarray      # rows per class (G,)

    @property
    def groups(self) -> int:
        return len(self.sizes)

    @classmethod
    def build(cls, labels: np.ndarray, col: SensitiveColumn, *,
              groups: int | None = None) -> "PairCounts":
        labels = np.asarray(labels, dtype=np.int64)
        G = int(labels.max()) + 1 if len(labels) and groups is None else (groups or 0)
        return cls.from_codes(labels, col.codes, col.m, G)

    @classmethod
    def from_codes(cls, labels, codes, m, G, weights=None) -> "PairCounts":
        key = labels * np.int64(max(m, 1)) + codes
        if len(key) == 0:
            z = np.zeros(0, dtype=np.int64)
            return cls(z, z, z, np.zeros(G, dtype=np.int64))
        if len(key) <= _SMALL:
            # small groups (partitioners testing candidates): a plain sort is cheapest
            uniq, pair_codes = np.unique(key, return_inverse=True)
        else:
            # hashing then sorting only the distinct pairs beats sorting all rows
            pair_codes, uniq = pd.factorize(key, sort=False)
        if weights is None:
            counts = np.bincount(pair_codes, minlength=len(uniq))
        else:
            counts = np.bincount(pair_codes, weights=weights, minlength=len(uniq))
            counts = np.rint(counts).astype(np.int64)
        if len(key) > _SMALL:
            order = np.argsort(uniq, kind="stable")
            uniq = np.asarray(uniq)[order]
            counts = counts[order]
        pcls = uniq // max(m, 1)
        sizes = np.bincount(pcls, weights=counts, minlength=G)
        return cls(pcls, uniq % max(m, 1), counts, np.rint(sizes).astype(np.int64))

    def coarsen(self, mapping: np.ndarray, m_new: int) -> "PairCounts":
        """Pairs after mapping every value code through ``mapping`` (e.g. to hierarchy nodes)."""
        return PairCounts.from_codes(self.cls, mapping[self.val], m_new, self.groups,
                                     weights=self.count.astype(np.float64))

    def first_in_class(self) -> np.ndarray:
        """Boolean mask of the first pair of each class."""
        first = np.ones(len(self.cls), dtype=bool)
        first[1:] = self.cls[1:] != self.cls[:-1]
        return first

    @classmethod
    def from_dense(cls, counts: np.ndarray) -> "PairCounts":
        """Pairs of a dense ``(classes, values)`` count matrix (a class with no row has size
        0)."""
        counts = np.asarray(counts)
        pcls, val = np.nonzero(counts)  # row-major: sorted by class, then value
        return cls(pcls.astype(np.int64), val.astype(np.int64),
                   counts[pcls, val].astype(np.int64), counts.sum(axis=1).astype(np.int64))


# --------------------------------------------------------------------------- classes


def sensitive_columns(context) -> list:
    """The sensitive columns of a model context: a :class:`SensitiveData`, ``None`` (no
    sensitive column), or anything with ``.sensitive`` ``{name: codes}`` (e.g. the engine's
    encoded table; such codes carry no value order, so they count as unordered)."""
    if context is None:
        return []
    if isinstance(context, SensitiveData):
        return list(context.columns.values())
    sens = getattr(context, "sensitive", None)
    if isinstance(sens, dict):
        cols = []
        for name, codes in sens.items():
            codes = np.asarray(codes, dtype=np.int64)
            m = int(codes.max()) + 1 if len(codes) else 0
            has_na = bool((codes < 0).any())
            if has_na:  # a missing-value sentinel (-1): one more value of its own
                codes = np.where(codes < 0, m, codes)
                m += 1
            cols.append(SensitiveColumn(name, "unordered", codes, m, has_na, None, None,
                                        np.bincount(codes, minlength=m)))
        return cols
    raise InvalidInputError(
        "a privacy model needs the sensitive columns: pass the context made by "
        "model.context(df, sensitive) to groups_ok"
    )


class ClassCounts:
    """What a privacy model sees of a set of equivalence classes: the rows per class and, per
    sensitive column, the ``(class, value)`` counts -- never the rows themselves.

    Every place that decides whether classes satisfy a model (the engine's verification,
    Mondrian's cuts, GroupJoin's merges, the optimal lattice search, the Dask path) builds one
    of these and calls ``model.classes_ok(classes)``: model semantics live in the models alone.

    ``counts[j]`` is a :class:`PairCounts`, a dense ``(classes, values)`` matrix, or ``None``
    (built on first use from ``labels``). The measures below accept either form.

    ``population`` (models against a population table: k-map, δ-presence): the population
    rows in each class (the population generalized as the classes are), or ``None`` when no
    population was described; ``population_rows`` the whole population's row count, so that a
    model can see population rows that fall in no class given here (e.g. classes whose sample
    rows were suppressed); ``population_shared`` (``None``: 1 for every class) the largest
    number of classes that one of the class's population rows matches, which exceeds 1 only
    when published cells overlap (local recoding; see :mod:`pdanon.containment`).

    Example
    -------
    >>> col = SensitiveColumn.from_values(np.array(["a", "b", "a", "a"]), "unordered", name="s")
    >>> cc = ClassCounts.from_labels(np.array([0, 0, 1, 1]), SensitiveData({"s": col}))
    >>> cc.sizes.tolist(), cc.distinct(0).tolist(), cc.distance(0, "emd").tolist()
    ([2, 2], [2, 1], [0.25, 0.25])
    """

    def __init__(self, sizes, columns=(), counts=None, *, labels=None, population=None,
                 population_rows: int | None = None, population_shared=None):
        self.sizes = np.asarray(sizes, dtype=np.int64)
        self.columns = list(columns)
        self.counts = list(counts) if counts is not None else [None] * len(self.columns)
        self.labels = labels
        self.population = None if population is None else np.asarray(population, dtype=np.int64)
        if self.population is not None and population_rows is None:
            population_rows = int(self.population.sum())
        self.population_rows = population_rows
        self.population_shared = (None if population_shared is None
                                  else np.asarray(population_shared, dtype=np.int64))
        self._memo = {}  # measures already computed (several models may ask for one)
        #: True for the view :meth:`known` returns (missing sensitive values left out)
        self.known_only = False
        if len(self.counts) != len(self.columns):
            raise ValueError("one count table per sensitive column")

    @classmethod
    def from_labels(cls, labels, context=None, *, groups: int | None = None) -> "ClassCounts":
        """Classes given by a label per row (``0..G-1``); ``context``: the model context
        (:class:`SensitiveData`) or ``None``."""
        labels = np.asarray(labels, dtype=np.int64)
        if groups is None:
            groups = int(labels.max()) + 1 if len(labels) else 0
        sizes = np.bincount(labels, minlength=groups)
        return cls(sizes, sensitive_columns(context), labels=labels)

    @property
    def groups(self) -> int:
        return len(self.sizes)

    def select(self, keep) -> "ClassCounts":
        """The classes marked by the boolean mask ``keep`` (e.g. the published ones), with
        their counts; ``population_rows`` is kept (rows outside the selection still count).

        Example
        -------
        >>> cc = ClassCounts([2, 0, 3], population=[4, 1, 3])
        >>> sub = cc.select(cc.sizes > 0)
        >>> sub.sizes.tolist(), sub.population.tolist(), sub.population_rows
        ([2, 3], [4, 3], 8)
        """
        keep = np.asarray(keep, dtype=bool)
        new_id = np.cumsum(keep) - 1
        counts = []
        for j in range(len(self.columns)):
            item = self.counts[j]
            if isinstance(item, np.ndarray):
                counts.append(item[keep])
                continue
            p = self.pairs(j)
            on = keep[p.cls]
            counts.append(PairCounts(new_id[p.cls[on]], p.val[on], p.count[on],
                                     self.sizes[keep]))
        pop = None if self.population is None else self.population[keep]
        shared = None if self.population_shared is None else self.population_shared[keep]
        return ClassCounts(self.sizes[keep], self.columns, counts, population=pop,
                           population_rows=self.population_rows, population_shared=shared)

    def merged(self, mapping, groups: int, *, population=None) -> "ClassCounts":
        """The classes after merging: class ``c`` joins new class ``mapping[c]``
        (``0..groups-1``), with the summed counts. ``population`` (per new class) replaces
        the summed population rows when given (a merged class may match population rows that
        none of its parts matched, e.g. the suppressed rows' class).

        Example
        -------
        >>> col = SensitiveColumn.from_values(np.array(list("abcab")), "unordered", name="s")
        >>> cc = ClassCounts.from_labels(np.array([0, 0, 1, 2, 2]), SensitiveData({"s": col}))
        >>> m = cc.merged(np.array([0, 1, 0]), 2)
        >>> m.sizes.tolist(), m.distinct(0).tolist()
        ([4, 1], [2, 1])
        """
        mapping = np.asarray(mapping, dtype=np.int64)
        sizes = np.bincount(mapping, weights=self.sizes, minlength=groups)
        counts = []
        for j in range(len(self.columns)):
            p = self.pairs(j)
            counts.append(PairCounts.from_codes(mapping[p.cls], p.val, self.columns[j].m,
                                                groups, weights=p.count.astype(np.float64)))
        if population is None and self.population is not None:
            population = np.bincount(mapping, weights=self.population, minlength=groups)
        if population is not None:
            population = np.rint(np.asarray(population, dtype=np.float64)).astype(np.int64)
        return ClassCounts(np.rint(sizes).astype(np.int64), self.columns, counts,
                           population=population, population_rows=self.population_rows)

    def known(self) -> "ClassCounts":
        """The same classes with every missing sensitive value left out (the rule
        ``missing_sensitive="unknown"`` of the models): per column, the pairs of known values
        only, whose ``sizes`` are the known values per class, against the whole table's
        distribution of known values (:meth:`SensitiveColumn.known`). ``sizes`` (rows per
        class) and the population stay. Made once per object.

        Example
        -------
        >>> col = SensitiveColumn.from_values(np.array(["a", None, "a", "b"], dtype=object),
        ...                                   "unordered", name="s")
        >>> cc = ClassCounts.from_labels(np.array([0, 0, 1, 1]), SensitiveData({"s": col}))
        >>> cc.distinct(0).tolist(), cc.known().distinct(0).tolist()
        ([2, 2], [1, 2])
        >>> cc.known().blank(0).tolist()  # classes without a known value
        [False, False]
        """
        if self.known_only:
            return self
        hit = self._memo.get("known")
        if hit is None:
            cols, counts = [], []
            for j, col in enumerate(self.columns):
                p = self.pairs(j)
                if col.has_na:
                    keep = p.val != col.m - 1
                    cnt = p.count[keep]
                    sizes = np.bincount(p.cls[keep], weights=cnt, minlength=self.groups)
                    p = PairCounts(p.cls[keep], p.val[keep], cnt,
                                   np.rint(sizes).astype(np.int64))
                    col = col.known()
                cols.append(col)
                counts.append(p)
            hit = ClassCounts(self.sizes, cols, counts, population=self.population,
                              population_rows=self.population_rows,
                              population_shared=self.population_shared)
            hit.known_only = True
            self._memo["known"] = hit
        return hit

    def blank(self, j: int) -> np.ndarray:
        """Classes with no value counted in column ``j`` (in the :meth:`known` view: no known
        value, every cell missing)."""
        return self.pairs(j).sizes == 0

    def pairs(self, j: int) -> PairCounts:
        """The ``(class, value)`` pairs of sensitive column ``j``."""
        item = self.counts[j]
        if item is None:
            col = self.columns[j]
            item = PairCounts.from_codes(self.labels, col.codes, col.m, self.groups)
            self.counts[j] = item
        elif isinstance(item, np.ndarray):
            item = PairCounts.from_dense(item)
            item.sizes = self.sizes
            self.counts[j] = item
        return item

    def distinct(self, j: int) -> np.ndarray:
        """Distinct values of column ``j`` per class."""
        item = self.counts[j]
        if isinstance(item, np.ndarray):
            return (item > 0).sum(axis=1)
        return distinct_counts(self.pairs(j))

    def entropy(self, j: int) -> np.ndarray:
        """Shannon entropy (natural log) of column ``j`` per class."""
        key = ("entropy", j)
        if key not in self._memo:
            self._memo[key] = entropies(self.pairs(j))
        return self._memo[key]

    def recursive_l(self, j: int, c: float) -> np.ndarray:
        """Recursive (c, l): the largest l per class (see :func:`recursive_l`)."""
        return recursive_l(self.pairs(j), c)

    def distance(self, j: int, distance: str, hierarchy=None) -> np.ndarray:
        """Distance of each class's distribution of column ``j`` to the whole table's."""
        key = ("distance", j, distance, id(hierarchy))
        if key not in self._memo:
            with np.errstate(invalid="ignore", divide="ignore"):
                out = class_distances(self.pairs(j), self.columns[j], distance, hierarchy)
            if self.known_only:
                # a class without a known value shows nothing of the column: distance 0
                out = np.where(self.blank(j), 0.0, out)
            self._memo[key] = out
        return self._memo[key]


# --------------------------------------------------------------------------- l-diversity


def distinct_counts(pairs: PairCounts) -> np.ndarray:
    """Number of distinct sensitive values in every class."""
    return np.bincount(pairs.cls, minlength=pairs.groups)


def entropies(pairs: PairCounts) -> np.ndarray:
    """Shannon entropy (natural log) of the sensitive values of every class."""
    sizes = pairs.sizes[pairs.cls].astype(np.float64)
    p = pairs.count / sizes
    return -np.bincount(pairs.cls, weights=p * np.log(p), minlength=pairs.groups)


def recursive_l(pairs: PairCounts, c: float) -> np.ndarray:
    """Largest l per class with r1 < c * (r_l + ... + r_m), counts sorted r1 >= r2 >= ... >= rm
    (0 when even l = 1 fails, i.e. c <= 1 and one value fills the class)."""
    G = pairs.groups
    order = np.lexsort((-pairs.count, pairs.cls))
    cl = pairs.cls[order]
    cnt = pairs.count[order].astype(np.float64)
    first = np.ones(len(cl), dtype=bool)
    first[1:] = cl[1:] != cl[:-1]
    csum = np.cumsum(cnt)
    start = np.flatnonzero(first)
    before = (csum - cnt)  # sum of counts before each pair (over all classes)
    before_class = before - before[start][np.cumsum(first) - 1]
    tail = pairs.sizes[cl] - before_class            # r_i + ... + r_m
    r1 = cnt[start][np.cumsum(first) - 1]
    ok = r1 < c * tail
    return np.bincount(cl, weights=ok, minlength=G).astype(np.int64)


# --------------------------------------------------------------------------- distances


def _global_probs(col: SensitiveColumn) -> np.ndarray:
    q = col.cache.get("q")
    if q is None:
        total = col.global_counts.sum()
        q = col.global_counts / total if total else col.global_counts.astype(np.float64)
        col.cache["q"] = q
    return q


def _prefix_sums(col: SensitiveColumn, name: str, weights_fn):
    """Table CDF Q and the prefix sums of w and w·Q for a weighting (cached per column)."""
    hit = col.cache.get(name)
    if hit is None:
        Q = np.cumsum(_global_probs(col))
        w = weights_fn()
        hit = (Q, np.concatenate(([0.0], np.cumsum(w))), np.concatenate(([0.0], np.cumsum(w * Q))))
        col.cache[name] = hit
    return hit


def total_variation(pairs: PairCounts, col: SensitiveColumn) -> np.ndarray:
    """Equal-distance EMD = total variation distance ½·Σ|p − q| of every class to the table."""
    q = _global_probs(col)
    p = pairs.count / pairs.sizes[pairs.cls]
    qv = q[pairs.val]
    present = np.bincount(pairs.cls, weights=np.abs(p - qv) - qv, minlength=pairs.groups)
    return np.clip(0.5 * (present + 1.0), 0.0, 1.0)


def jensen_shannon(pairs: PairCounts, col: SensitiveColumn) -> np.ndarray:
    """Jensen–Shannon divergence (natural log, not its square root) of every class to the
    table: ½·KL(P‖M) + ½·KL(Q‖M) with M = (P + Q)/2. In [0, ln 2]."""
    q = _global_probs(col)
    p = pairs.count / pairs.sizes[pairs.cls]
    qv = q[pairs.val]
    mid = (p + qv) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        term = p * np.log(p / mid) + np.where(qv > 0, qv * np.log(qv / mid), 0.0)
    present = np.bincount(pairs.cls, weights=term - qv * np.log(2.0), minlength=pairs.groups)
    # values absent from a class contribute ½·q·ln 2 each; Σ over all values of q is 1
    return np.maximum(0.5 * (present + np.log(2.0)), 0.0)


def _cdf_abs_sum(pairs: PairCounts, col: SensitiveColumn, name: str, weights_fn) -> np.ndarray:
    """Σ_i w_i·|P_c(i) − Q(i)| for every class c, P_c / Q the cumulative distributions at value
    index i (0..m-1). Between two values present in a class P_c is constant and Q is
    non-decreasing, so each such run splits at one ``searchsorted`` point and is summed from
    prefix sums: O(pairs·log m)."""
    m = col.m
    G = pairs.groups
    Q, S1, S2 = _prefix_sums(col, name, weights_fn)
    if len(pairs.cls) == 0:
        return np.zeros(G)
    first = pairs.first_in_class()
    starts = np.flatnonzero(first)
    class_of = np.cumsum(first) - 1
    cum = np.cumsum(pairs.count)
    cum_in_class = cum - (cum[starts] - pairs.count[starts])[class_of]
    P = cum_in_class / pairs.sizes[pairs.cls]
    a = pairs.val
    b = np.empty_like(a)
    b[:-1] = a[1:]
    last = np.ones(len(a), dtype=bool)
    last[:-1] = first[1:]
    b[last] = m
    s = np.clip(np.searchsorted(Q, P, side="left"), a, b)
    run = (P * (S1[s] - S1[a]) - (S2[s] - S2[a]) + (S2[b] - S2[s]) - P * (S1[b] - S1[s]))
    out = np.bincount(pairs.cls, weights=run, minlength=G)
    # before the first value present in the class P_c = 0, so |P_c − Q| = Q
    f = pairs.val[starts]
    out[pairs.cls[starts]] += S2[f]
    return np.maximum(out, 0.0)


def ordered_emd(pairs: PairCounts, col: SensitiveColumn) -> np.ndarray:
    """Ordered-distance EMD (Li, Li & Venkatasubramanian 2007): the distance between the i-th
    and j-th of the m sorted distinct values is |i − j|/(m − 1), and
    EMD = 1/(m−1) · Σ_i |Σ_{j≤i} (p_j − q_j)|."""
    if col.m <= 1:
        return np.zeros(pairs.groups)
    def weights():
        w = np.full(col.m, 1.0 / (col.m - 1))
        w[-1] = 0.0
        return w

    return np.minimum(_cdf_abs_sum(pairs, col, "ordered_emd", weights), 1.0)


def wasserstein(pairs: PairCounts, col: SensitiveColumn) -> np.ndarray:
    """1-D Wasserstein distance between each class's values and all values, divided by
    (max − min of all values + 1e-10), as the reference's ``find_t_close`` does for real
    columns."""
    if col.values is None:
        raise KindError(f"the Wasserstein distance needs a real column; {col.name!r} is "
                        f"{col.kind}")
    if col.has_na:
        raise InvalidInputError(
            f"sensitive column {col.name!r} has missing values; the Wasserstein distance is "
            f"undefined for them: fill or drop them, or use distance='emd' (NaN is then one "
            f"more value, ranked last)"
        )
    x = col.values
    if col.m <= 1:
        return np.zeros(pairs.groups)
    span = x[-1] - x[0]
    return (_cdf_abs_sum(pairs, col, "wasserstein", lambda: np.append(np.diff(x), 0.0))
            / (span + WASSERSTEIN_EPS))


# --------------------------------------------------------------------------- hierarchies


def hierarchy_levels(hierarchy, col: SensitiveColumn) -> tuple[list[np.ndarray], int]:
    """Node codes of every value code at every level below the root, and the tree height H.

    ``hierarchy`` is ``{value: [level1, level2, ...]}`` (most specific first), a DataFrame
    whose first column holds the values and the next columns their generalizations (ARX's CSV
    layout ``value;level1;...;*``), a :class:`pdanon.hierarchy.Hierarchy` (its
    ``levels_table`` for the column's values), or an object whose ``to_frame()`` gives such a
    DataFrame. When
    the last level is one label for every value it is the root; otherwise a root is added
    above it. A missing value is its own branch directly below the root.
    """
    if hasattr(hierarchy, "levels_table"):  # a pdanon.hierarchy.Hierarchy
        values = list(col.uniques) if col.uniques is not None else []
        frame = hierarchy.levels_table(pd.Index(values))
    else:
        frame = _hierarchy_frame(hierarchy, col.name)
    leaf = frame.iloc[:, 0]
    levels = frame.iloc[:, 1:]
    if levels.shape[1] and levels.iloc[:, -1].nunique(dropna=False) == 1:
        levels = levels.iloc[:, :-1]  # the root
    height = levels.shape[1] + 1
    # map each value of the column to a hierarchy row
    lookup = {}
    for i, v in enumerate(leaf.tolist()):
        lookup.setdefault(v, i)
        lookup.setdefault(str(v), i)
    uniques = list(col.uniques) if col.uniques is not None else []
    rows = np.empty(len(uniques), dtype=np.int64)
    missing = []
    for j, v in enumerate(uniques):
        r = lookup.get(v, lookup.get(str(v)))
        if r is None:
            missing.append(v)
        else:
            rows[j] = r
    if missing:
        raise InvalidInputError(
            f"the hierarchy of sensitive column {col.name!r} lacks the value(s) "
            f"{missing[:10]}; add them as rows (value;level1;...)"
        )
    out = [np.arange(col.m, dtype=np.int64)]  # leaves: the values themselves
    for j in range(levels.shape[1]):
        # a node is identified by its path to the top, so repeated labels under different
        # parents stay distinct
        path = levels.iloc[:, j:].astype(str).agg("\x1f".join, axis=1).to_numpy()
        node, _ = pd.factorize(path[rows]) if len(rows) else (np.zeros(0, np.int64), None)
        node = np.asarray(node, dtype=np.int64)
        if col.has_na:
            node = np.append(node, node.max(initial=-1) + 1)
        out.append(node)
    return out, height


def _hierarchy_frame(hierarchy, name) -> pd.DataFrame:
    if hasattr(hierarchy, "to_frame") and not isinstance(hierarchy, (pd.DataFrame, pd.Series)):
        hierarchy = hierarchy.to_frame()
    if isinstance(hierarchy, pd.DataFrame):
        frame = hierarchy.reset_index(drop=True)
    elif isinstance(hierarchy, Mapping):
        lens = {len(v) if not isinstance(v, str) else 1 for v in hierarchy.values()}
        if len(lens) > 1:
            raise InvalidInputError(
                f"the hierarchy of {name!r} gives values different numbers of levels "
                f"{sorted(lens)}; give every value the same number of levels"
            )
        rows = [[k] + ([v] if isinstance(v, str) else list(v)) for k, v in hierarchy.items()]
        frame = pd.DataFrame(rows)
    else:
        raise InvalidInputError(
            f"hierarchy for {name!r} must be a mapping {{value: [level1, ...]}} or a DataFrame "
            f"(value, level1, ...), got {type(hierarchy).__name__}"
        )
    if frame.shape[1] < 1:
        raise InvalidInputError(f"the hierarchy of {name!r} is empty")
    return frame


def hierarchical_emd(pairs: PairCounts, col: SensitiveColumn, hierarchy) -> np.ndarray:
    """Hierarchical EMD (Li et al. 2007): leaves are at height 0, the root at height H and the
    ground distance of two values is height(lowest common ancestor)/H. On a tree this equals
    (1/H)·Σ over the H levels below the root of the total variation distance of the class and
    table distributions coarsened to that level."""
    key = ("hierarchy", id(hierarchy))
    hit = col.cache.get(key)
    if hit is None or hit[0] is not hierarchy:
        hit = (hierarchy, *hierarchy_levels(hierarchy, col))  # keeps the object: ids stay unique
        col.cache[key] = hit
    _, levels, height = hit
    total = np.zeros(pairs.groups)
    for node in levels:
        m_new = int(node.max()) + 1 if len(node) else 1
        coarse = pairs if node is levels[0] else pairs.coarsen(node, m_new)
        ccol = SensitiveColumn(col.name, "unordered", node, m_new, False, None, None,
                               np.bincount(node, weights=col.global_counts,
                                           minlength=m_new))
        total += total_variation(coarse, ccol)
    return total / height


DISTANCES = ("emd", "hierarchical", "jensen_shannon", "wasserstein", "reference")


def class_distances(pairs: PairCounts, col: SensitiveColumn, distance: str,
                    hierarchy=None) -> np.ndarray:
    """Distance of every class's distribution of ``col`` to the whole table's."""
    kind = col.kind
    if distance == "reference":
        distance = "wasserstein" if kind == "real" else "jensen_shannon"
    if distance == "hierarchical":
        if hierarchy is not None:
            return hierarchical_emd(pairs, col, hierarchy)
        distance = "emd"
    if distance == "emd":
        return total_variation(pairs, col) if kind == "unordered" else ordered_emd(pairs, col)
    if distance == "jensen_shannon":
        return jensen_shannon(pairs, col)
    if distance == "wasserstein":
        if kind == "ordered":
            # on ranks 0..m-1 the normalized Wasserstein distance is the ordered EMD
            return ordered_emd(pairs, col)
        if kind != "real":
            raise KindError(
                f"distance='wasserstein' needs a real or ordered column; {col.name!r} is "
                f"unordered: use 'emd' or 'jensen_shannon'"
            )
        return wasserstein(pairs, col)
    raise InvalidInputError(f"unknown distance {distance!r}; use one of {list(DISTANCES)}")
