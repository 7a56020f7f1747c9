"""GroupJoin in the reference's shape: a *method* object (suppression, generalization,
aggregation), a *metric* object (k-anonymity, l-diversity, t-closeness) and
:class:`GroupJoinDepersonalizator` that combines them.

All of it runs pdanon's GroupJoin partitioner (:mod:`pdanon.partition.group_join`, engine
``algorithm="group_join"``): start with one group per row, repeatedly take a group that violates
the model (at random, ``seed=``) and merge it with the partner that increases the loss
function least, then recode the groups. The loss functions take the reference's signatures
(``f(loss, size1, size2, k)``, ``f(loss, size1, size2, k, l, k_sens)``,
``f(loss, size1, size2, k, t, t_sens)``).

Example
-------
>>> method = GroupJoinGeneralization(["real"])
>>> metric = GroupJoinKAnonymity(2, seed=0)
>>> GroupJoinDepersonalizator(method, metric).depersonalize([[20], [21], [40], [41]])
([[[20, 21]], [[20, 21]], [[40, 41]], [[40, 41]]], 4)
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
import pandas as pd

from pdanon import losses as _losses
from pdanon._errors import InfeasibleError
from pdanon.algorithms._base import (
    Depersonalizator,
    check_kinds,
    partition_rows,
    recode_groups,
    run_engine,
)
from pdanon.algorithms._grouping import k_model, kl_model, kt_model

__all__ = [
    "GroupJoinMethod",
    "GroupJoinSuppression",
    "GroupJoinGeneralization",
    "GroupJoinAggregation",
    "GroupJoinMetric",
    "GroupJoinKAnonymity",
    "GroupJoinLDiversity",
    "GroupJoinTCloseness",
    "GroupJoinDepersonalizator",
    "GeneralizationKAnonymityGroupJoin",
    "real_sample_distance",
    "categorical_sample_distance",
]


# ============================================================================ sample distances


def _two_samples(p, q, kind):
    """``p`` as one class's value counts and ``q`` as the whole table, on shared codes."""
    from pdanon import distributions as d

    p = np.asarray(list(p), dtype=object)
    q = np.asarray(list(q), dtype=object)
    both = np.concatenate([p, q])
    if kind == "real":
        both = np.asarray(both, dtype=np.float64)
    col = d.SensitiveColumn.from_values(pd.Series(both), kind, name="s")
    codes_p, codes_q = col.codes[:len(p)], col.codes[len(p):]
    table = d.SensitiveColumn(col.name, col.kind, codes_q, col.m, col.has_na, col.uniques,
                              col.values, np.bincount(codes_q, minlength=col.m))
    pairs = d.PairCounts.from_codes(np.zeros(len(p), dtype=np.int64), codes_p, col.m, 1)
    return pairs, table


def real_sample_distance(p, q):
    """1-D Wasserstein distance between samples ``p`` and ``q`` divided by
    (max − min of both + 1e-10): the reference's t-closeness distance of real columns.

    Example
    -------
    >>> round(real_sample_distance([0.0, 0.0], [0.0, 1.0]), 6)
    0.5
    """
    from pdanon import distributions as d

    pairs, table = _two_samples(p, q, "real")
    return float(d.wasserstein(pairs, table)[0])


def categorical_sample_distance(p, q):
    """Jensen–Shannon divergence (natural log) between the value distributions of ``p`` and
    ``q``: the reference's t-closeness distance of ordered and unordered columns.

    Example
    -------
    >>> categorical_sample_distance(["a", "b"], ["b", "a"])
    0.0
    """
    from pdanon import distributions as d

    pairs, table = _two_samples(p, q, "unordered")
    return float(d.jensen_shannon(pairs, table)[0])


def _codes(values) -> np.ndarray:
    """Equal values, equal codes (first-appearance order)."""
    arr = np.empty(len(values), dtype=object)
    arr[:] = list(values)
    return pd.factorize(arr, use_na_sentinel=False)[0]


def _one_group(n: int) -> np.ndarray:
    return np.zeros(n, dtype=np.int64)


# ============================================================================ methods


class GroupJoinMethod(ABC):
    """How GroupJoin recodes a group, and the per-column loss that steers the merges
    (:mod:`pdanon.losses`). ``calc_columns_params(quasi_identifiers)`` remembers each column's
    scale (min/max for real, sorted values for ordered); ``loss_real`` / ``loss_ordered`` /
    ``loss_unordered(array, col_ind)`` give the loss of one group's cells of column
    ``col_ind``; ``depersonalize(groups, quasi_identifiers)`` recodes given groups (lists of
    row positions) and returns ``(table, changed cells)``."""

    #: the engine's method name
    method = "generalize"

    def __init__(self):
        self.columns_params = None
        self.quasi_identifiers_types = None

    # ---- column scales and per-group losses
    def calc_columns_params(self, quasi_identifiers):
        """Remember the scale of every column of ``quasi_identifiers`` (a 2-D array)."""
        q = np.asarray(quasi_identifiers, dtype=object)
        kinds = check_kinds(self.quasi_identifiers_types, q.shape[1])
        params = []
        for j, kind in enumerate(kinds):
            col = q[:, j]
            if kind == "real":
                x = np.asarray(col, dtype=np.float64)
                params.append([float(x.min()), float(x.max())])
            elif kind == "ordered":
                params.append([np.sort(np.asarray(col.tolist())), len(col)])
            else:
                params.append([])
        self.columns_params = params

    def _normalized(self, array, col_ind, kind):
        p = self.columns_params[col_ind]
        if kind == "real":
            lo, hi = p
            x = np.asarray(np.asarray(array).tolist(), dtype=np.float64)
            return (x - lo) / (hi - lo) if hi > lo else np.zeros(len(x))
        ordered, n = p
        rank = np.searchsorted(ordered, np.asarray(np.asarray(array).tolist()), side="left")
        return rank / (n - 1) if n > 1 else np.zeros(len(rank), dtype=np.float64)

    def _range_loss(self, array, col_ind, kind) -> float:
        if self.method == "suppress":
            return _suppression_loss(array)
        u = self._normalized(array, col_ind, kind)
        if len(u) == 0:
            return 0.0
        return float(_losses.range_losses(self.method, u, _one_group(len(u)), 1, kind)[0])

    def loss_real(self, array, col_ind):
        return self._range_loss(array, col_ind, "real")

    def loss_ordered(self, array, col_ind):
        return self._range_loss(array, col_ind, "ordered")

    def loss_unordered(self, array, col_ind):
        values = np.asarray(array, dtype=object).tolist()
        if self.method == "suppress":
            return _suppression_loss(values)
        if not values:
            return 0.0
        return float(_losses.unordered_losses(self.method, _codes(values),
                                              _one_group(len(values)), 1)[0])

    def _kinds(self, count: int) -> list:
        """The engine kinds of ``count`` columns (suppression compares cells only)."""
        if self.method == "suppress":
            return ["unordered"] * count
        return check_kinds(self.quasi_identifiers_types, count)

    def depersonalize(self, groups, quasi_identifiers):
        """Recode ``groups`` (lists of row positions covering every row) of the 2-D
        ``quasi_identifiers`` with this method; returns ``(table, changed cells)``."""
        q = np.asarray(quasi_identifiers, dtype=object)
        return recode_groups(groups, q, self._kinds(q.shape[1]), self.method)


def _suppression_loss(values) -> float:
    values = np.asarray(values, dtype=object).tolist()
    if not values:
        return 0.0
    return float(_losses.suppression_losses(_codes(values), _one_group(len(values)), 1)[0])


class GroupJoinSuppression(GroupJoinMethod):
    """Suppression: a group's non-constant columns become missing. Loss per column: 0 when
    the group's cells are equal, else the group size.

    Example
    -------
    >>> GroupJoinSuppression().loss_unordered(np.array(["a", "b"]), 0)
    2.0
    """

    method = "suppress"

    def __init__(self):
        super().__init__()

    def loss(self, array):
        """0 when the cells are equal, else their number."""
        return _suppression_loss(array)


class GroupJoinGeneralization(GroupJoinMethod):
    """Generalization: a group's non-constant columns become one range / set. Loss per column:
    Σ ((lo−x)² + (hi−x)²) / (2·(M−m)·(hi−lo)) for real (ranks and n−1 for ordered),
    |g| − |g|/#distinct for unordered.

    Example
    -------
    >>> m = GroupJoinGeneralization(["real"])
    >>> m.calc_columns_params(np.array([[0], [1], [2], [4]]))
    >>> m.loss_real(np.array([0, 2]), 0)
    0.5
    """

    method = "generalize"

    def __init__(self, quasi_identifiers_types=None):
        super().__init__()
        self.quasi_identifiers_types = quasi_identifiers_types


class GroupJoinAggregation(GroupJoinMethod):
    """Aggregation: mean (real), element at position len // 2 of the sorted values
    (ordered), mode (unordered). Loss per column: Σ|x − mean|/(M−m), Σ|rank(x) −
    rank(median)|/(n−1), #cells different from the mode.

    Example
    -------
    >>> m = GroupJoinAggregation(["real"])
    >>> m.calc_columns_params(np.array([[0], [4]]))
    >>> m.loss_real(np.array([0, 4]), 0)
    1.0
    """

    method = "aggregate"

    def __init__(self, quasi_identifiers_types=None):
        super().__init__()
        self.quasi_identifiers_types = quasi_identifiers_types


# ============================================================================ metrics (models)


class GroupJoinMetric(ABC):
    """The privacy model GroupJoin merges groups for. ``get_groups(quasi_identifiers,
    sensitives)`` returns the groups (lists of row positions); ``loss(a, b)`` the loss
    function's value for merging two groups."""

    def __init__(self):
        self.group_join_method = None
        self.seed = None
        self.loss_function = None

    @abstractmethod
    def _model(self):
        """``has_sensitive -> PrivacyModel``."""

    _default_loss = None
    _sensitive_kinds = None

    def _engine_loss_function(self):
        fn = self.loss_function
        return None if fn is None or fn is self._default_loss else fn

    def get_groups(self, quasi_identifiers, sensitives):
        """The groups GroupJoin forms (lists of row positions, in the order of their smallest
        row), with the method of :attr:`group_join_method`."""
        method = self.group_join_method or GroupJoinSuppression()
        q = np.asarray(quasi_identifiers, dtype=object)
        s = np.asarray(sensitives, dtype=object)
        if s.ndim == 1:
            s = s.reshape(len(q), -1)
        return partition_rows(q, s, kinds=method._kinds(q.shape[1]),
                              sensitive_kinds=self._s_kinds(s.shape[1]),
                              model_for=self._model(), method=method.method,
                              algorithm="group_join", seed=self.seed,
                              loss_function=self._engine_loss_function())

    def _s_kinds(self, count):
        if self._sensitive_kinds is None:
            return None
        return check_kinds(self._sensitive_kinds, count, "sensitives_types")

    def loss(self, a, b):
        """The loss function's value for the union of the groups ``a`` and ``b`` (2-D arrays
        of quasi-identifier rows; for l/t metrics ``[quasi, sensitive]`` pairs)."""
        return self._loss(*self._split(a, b))

    def _loss(self, a_q, b_q, extra):
        method = self.group_join_method
        union = np.concatenate([np.asarray(a_q, dtype=object), np.asarray(b_q, dtype=object)])
        total = 0.0
        for j, kind in enumerate(method._kinds(union.shape[1])):
            total += getattr(method, f"loss_{kind}")(union[:, j], j)
        fn = self.loss_function or self._default_loss
        return fn(total, len(a_q), len(b_q), *self._params(), *extra)

    def _split(self, a, b):
        """``(quasi a, quasi b, extra loss-function arguments)``; for metrics over
        ``[quasi, sensitive]`` pairs the extra argument is :meth:`_per_sensitive` of the
        union's sensitive rows."""
        if not self._paired:
            return a, b, ()
        a_q, a_s = a
        b_q, b_s = b
        both = np.concatenate([np.asarray(a_s, dtype=object), np.asarray(b_s, dtype=object)])
        both = both.reshape(len(both), -1)
        return a_q, b_q, ([self._per_sensitive(both[:, j], j) for j in range(both.shape[1])],)

    _paired = False

    def _per_sensitive(self, values, ind):
        """The loss function's per-sensitive-column value for the union's ``values``."""
        raise NotImplementedError

    def _params(self):
        return (self.k,)


class GroupJoinKAnonymity(GroupJoinMetric):
    """k-anonymity; default loss function ``loss``.

    Example
    -------
    >>> GroupJoinKAnonymity(3, seed=1).k
    3
    """

    _default_loss = staticmethod(_losses.k_loss)

    def __init__(self, k, loss_function=None, seed=None):
        super().__init__()
        self.k = k
        self.loss_function = loss_function if loss_function is not None else self._default_loss
        self.seed = seed

    def _model(self):
        return k_model(self.k)

    def check_k_anonymity(self, groups):
        """Does every group hold at least k rows?"""
        return all(len(g) >= self.k for g in groups)


class GroupJoinLDiversity(GroupJoinMetric):
    """k-anonymity and distinct l-diversity; default loss function ``loss / Σ k_sens``.

    Example
    -------
    >>> GroupJoinLDiversity(2, 2).l
    2
    """

    _default_loss = staticmethod(_losses.l_loss)

    def __init__(self, k, l, loss_function=None, seed=None):
        super().__init__()
        self.k = k
        self.l = l
        self.loss_function = loss_function if loss_function is not None else self._default_loss
        self.seed = seed

    def _model(self):
        return kl_model(self.k, self.l)

    def _params(self):
        return (self.k, self.l)

    def loss(self, a_data, b_data):
        """The loss function's value for merging ``[quasi, sensitive]`` groups ``a_data`` and
        ``b_data`` (k_sens: distinct sensitive values of the union per column, capped at l)."""
        return self._loss(*self._split(a_data, b_data))

    _paired = True

    def _per_sensitive(self, values, ind):
        return min(len(set(values.tolist())), self.l)  # k_sens

    def check_l_diversity(self, groups, sensitives):
        """Is every group ≥ k rows with ≥ l distinct values in every sensitive column?"""
        s = np.asarray(sensitives, dtype=object)
        return all(len(g) >= self.k and all(len(set(s[list(g), j].tolist())) >= self.l
                                            for j in range(s.shape[1])) for g in groups)


class GroupJoinTCloseness(GroupJoinMetric):
    """k-anonymity and t-closeness with the reference's distances (Jensen–Shannon for
    ordered/unordered sensitive columns, normalized Wasserstein for real ones;
    ``always_use_entropy``: Jensen–Shannon for all); default loss function
    ``loss · Σ t_sens``.

    Example
    -------
    >>> GroupJoinTCloseness(2, 0.2, ["unordered"]).t
    0.2
    """

    _default_loss = staticmethod(_losses.t_loss)

    def __init__(self, k, t, sensitives_types=None, loss_function=None,
                 always_use_entropy=False, seed=None):
        super().__init__()
        self.k = k
        self.t = t
        self.sensitives_types = sensitives_types
        self.loss_function = loss_function if loss_function is not None else self._default_loss
        self.always_use_entropy = always_use_entropy
        self.seed = seed
        self.sensitives = None
        self.elements_set = []

    @property
    def _sensitive_kinds(self):
        return self.sensitives_types

    def _s_kinds(self, count):
        if self.sensitives_types is None:
            return ["unordered"] * count
        return check_kinds(self.sensitives_types, count, "sensitives_types")

    def _model(self):
        return kt_model(self.k, self.t, self.always_use_entropy)

    def _params(self):
        return (self.k, self.t)

    # ---- the reference's helpers (distances against the whole table's sensitive columns)
    def prepare_statistics(self, sensitives):
        """Remember the whole table's sensitive columns (2-D), against which groups are
        measured."""
        self.sensitives = np.asarray(sensitives, dtype=object)
        if self.sensitives.ndim == 1:
            self.sensitives = self.sensitives.reshape(-1, 1)
        self.elements_set = [list(dict.fromkeys(self.sensitives[:, j].tolist()))
                             for j in range(self.sensitives.shape[1])]

    def _distance(self, values, ind) -> float:
        if getattr(self, "sensitives", None) is None:
            raise ValueError("call prepare_statistics(sensitives) with the whole table's "
                             "sensitive columns first")
        whole = self.sensitives[:, ind]
        kinds = self.sensitives_types or ["unordered"] * self.sensitives.shape[1]
        if not self.always_use_entropy and kinds[ind] == "real":
            return real_sample_distance(np.asarray(values, dtype=np.float64),
                                        np.asarray(whole, dtype=np.float64))
        return categorical_sample_distance(np.asarray(values, dtype=object), whole)

    def categorical_sample_distance(self, p, ind):
        """Jensen–Shannon divergence between the values ``p`` and sensitive column ``ind``."""
        if getattr(self, "sensitives", None) is None:
            raise ValueError("call prepare_statistics(sensitives) first")
        return categorical_sample_distance(np.asarray(p, dtype=object), self.sensitives[:, ind])

    def check_t_closeness(self, groups, sensitives):
        """Is every group ≥ k rows and within distance t of the table in every sensitive
        column (:meth:`prepare_statistics` gives the table)?"""
        s = np.asarray(sensitives, dtype=object)
        if s.ndim == 1:
            s = s.reshape(-1, 1)
        for g in groups:
            if len(g) < self.k:
                return False
            for j in range(s.shape[1]):
                if self._distance(s[list(g), j], j) > self.t:
                    return False
        return True

    def loss(self, a_data, b_data):
        """The loss function's value for merging ``[quasi, sensitive]`` groups (t_sens: the
        union's distance to the table per sensitive column)."""
        return self._loss(*self._split(a_data, b_data))

    _paired = True

    def _per_sensitive(self, values, ind):
        return self._distance(values, ind)  # t_sens


# ============================================================================ the depersonalizator


class GroupJoinDepersonalizator(Depersonalizator):
    """GroupJoin with a method and a metric object. Returns ``(table, changed cells)``;
    ``None`` counts (quasi-identifiers dropped) when there are fewer rows than k or the model
    cannot be met. After a run, ``groups`` holds the published equivalence classes (lists of
    row positions).

    Engine: ``algorithm="group_join"``.

    Example
    -------
    >>> dep = GroupJoinDepersonalizator(GroupJoinSuppression(), GroupJoinKAnonymity(2, seed=0))
    >>> dep.depersonalize([["a", 1], ["a", 2], ["b", 3], ["b", 3]])
    ([['a', nan], ['a', nan], ['b', 3], ['b', 3]], 2)
    """

    def __init__(self, group_join_method, group_join_metric):
        super().__init__([0])
        self.group_join_method = group_join_method
        self.group_join_metric = group_join_metric
        self.group_join_metric.group_join_method = group_join_method
        self.groups = None

    def __depersonalize__(self, identifiers, quasi_identifiers, sensitives):
        metric = self.group_join_metric
        method = self.group_join_method
        if len(quasi_identifiers) < metric.k:
            return None, None, None
        if quasi_identifiers.shape[1] == 0:
            return None, quasi_identifiers, 0
        try:
            block, changed, info = run_engine(
                quasi_identifiers, sensitives, kinds=method._kinds(quasi_identifiers.shape[1]),
                model_for=metric._model(),
                method=method.method, algorithm="group_join",
                sensitive_kinds=metric._s_kinds(sensitives.shape[1]),
                qi_positions=self.quasi_identifiers_ids, s_positions=self.sensitives_ids,
                seed=metric.seed, loss_function=metric._engine_loss_function())
        except InfeasibleError:
            return None, None, None
        self.groups = info.get("classes")
        return None, block, changed


class GeneralizationKAnonymityGroupJoin(Depersonalizator):
    """The reference's first GroupJoin (generalization, k-anonymity) that always merges the
    *first* group smaller than k (by smallest row) instead of a random one. Returns
    ``(table, generalized cells)``.

    pdanon runs the GroupJoin partitioner with that deterministic choice and the
    generalization loss of :class:`GroupJoinGeneralization` (the reference's early variant
    divided by (M − m)² instead of 2·(M − m)·(hi − lo); see docs/compat.md).

    Example
    -------
    >>> GeneralizationKAnonymityGroupJoin(2, ["real"]).depersonalize([[1], [2], [8], [9]])
    ([[[1, 2]], [[1, 2]], [[8, 9]], [[8, 9]]], 4)
    """

    def __init__(self, k, quasi_identifiers_types=None, loss_function=None):
        super().__init__([0])
        self.k = k
        self.quasi_identifiers_types = quasi_identifiers_types
        self.loss_function = loss_function if loss_function is not None else _losses.k_loss

    def __depersonalize__(self, identifiers, quasi_identifiers, sensitives):
        if len(quasi_identifiers) < self.k:
            return None, None, None
        if quasi_identifiers.shape[1] == 0:
            return None, quasi_identifiers, 0
        fn = None if self.loss_function is _losses.k_loss else self.loss_function
        block, changed, _ = run_engine(
            quasi_identifiers, sensitives[:, :0],
            kinds=self._block_kinds(self.quasi_identifiers_types, quasi_identifiers.shape[1]),
            model_for=k_model(self.k), method="generalize", algorithm="group_join",
            qi_positions=self.quasi_identifiers_ids, order="first_violating",
            loss_function=fn)
        return None, block, changed

