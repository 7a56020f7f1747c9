"""Classic classes that group rows and recode them: the TimeOptimal family, Datafly, equal-size
groups and the exact (Baseline) suppressions. Each is a thin wrapper: it builds the privacy
model and calls :func:`pdanon.algorithms._base.run_engine` with the engine's partitioner
(``nearest``, ``datafly``, ``equal_groups``, ``exact``).

Example
-------
>>> from pdanon.algorithms import GeneralizationKAnonymityTimeOptimal
>>> GeneralizationKAnonymityTimeOptimal(2, ["real"]).depersonalize([[1], [2], [9], [9]])
([[[1, 2]], [[1, 2]], [9], [9]], 2)
"""

from __future__ import annotations

from pdanon._errors import InfeasibleError, InvalidInputError
from pdanon.algorithms._base import Depersonalizator, run_engine

__all__ = [
    "AggregationKAnonymityTimeOptimal",
    "AggregationLDiversityTimeOptimal",
    "Datafly",
    "GeneralizationGreedyByOneEqualSizedGroups",
    "GeneralizationKAnonymityTimeOptimal",
    "GeneralizationLDiversityTimeOptimal",
    "SuppressionKAnonymityBaseline",
    "SuppressionKAnonymityTimeOptimal",
    "SuppressionLDiversityBaseline",
    "SuppressionLDiversityTimeOptimal",
    "SuppressionTClosenessBaseline",
]


# ============================================================================ models


def k_model(k):
    from pdanon.models import KAnonymity

    return lambda has_sensitive: KAnonymity(k)


def kl_model(k, l):
    """k-anonymity and distinct l-diversity (l-diversity over no sensitive column is vacuous,
    as in the reference)."""
    from pdanon.models import AllOf, KAnonymity, LDiversity

    def build(has_sensitive):
        if not has_sensitive:
            return KAnonymity(k)
        return AllOf(KAnonymity(k), LDiversity(l))

    return build


def kt_model(k, t, always_use_entropy=False):
    """k-anonymity and t-closeness with the reference's distances: Jensen–Shannon divergence
    (natural log) for ordered/unordered columns, the normalized 1-D Wasserstein distance for
    real ones (``always_use_entropy``: Jensen–Shannon for every kind)."""
    from pdanon.models import AllOf, KAnonymity, TCloseness

    distance = "jensen_shannon" if always_use_entropy else "reference"

    def build(has_sensitive):
        if not has_sensitive:
            return KAnonymity(k)
        return AllOf(KAnonymity(k), TCloseness(t, distance=distance))

    return build


class _EngineDepersonalizator(Depersonalizator):
    """Shared ``__depersonalize__``: fewer rows than k or an infeasible model → the reference's
    ``(None, None, None)`` (quasi-identifiers dropped, counts ``None``)."""

    _method = "generalize"
    _algorithm = "nearest"
    _sensitive_kinds = None

    def __init__(self, k, quasi_identifiers_types=None):
        super().__init__([0])
        self.k = k
        self.quasi_identifiers_types = quasi_identifiers_types

    def _model(self):
        return k_model(self.k)

    def _options(self) -> dict:
        return {}

    def _kinds(self, count: int) -> list:
        if self._method == "suppress":
            return ["unordered"] * count  # suppression compares cells for equality only
        return self._block_kinds(self.quasi_identifiers_types, count)

    def _result(self, block, changed, info):
        return None, block, changed

    def __depersonalize__(self, identifiers, quasi_identifiers, sensitives):
        if len(quasi_identifiers) < self.k:
            return None, None, None
        if quasi_identifiers.shape[1] == 0:
            return None, quasi_identifiers, 0
        s_kinds = None
        if self._sensitive_kinds is not None:
            s_kinds = self._block_kinds(self._sensitive_kinds, sensitives.shape[1],
                                        "sensitives_types")
        try:
            block, changed, info = run_engine(
                quasi_identifiers, sensitives, kinds=self._kinds(quasi_identifiers.shape[1]),
                model_for=self._model(), method=self._method, algorithm=self._algorithm,
                sensitive_kinds=s_kinds, qi_positions=self.quasi_identifiers_ids,
                s_positions=self.sensitives_ids, **self._options())
        except InfeasibleError:
            return None, None, None
        return self._result(block, changed, info)


class _LDiverse:
    """Mixin of the l-diversity classes: k-anonymity and distinct l-diversity over
    ``self.k`` and ``self.l``."""

    def _model(self):
        return kl_model(self.k, self.l)


class _LDiverseEngine(_LDiverse, _EngineDepersonalizator):
    """An l-diverse engine class taking ``(k, l, quasi_identifiers_types=None)``."""

    def __init__(self, k, l, quasi_identifiers_types=None):
        super().__init__(k, quasi_identifiers_types)
        self.l = l


# ============================================================================ TimeOptimal


class SuppressionKAnonymityTimeOptimal(_EngineDepersonalizator):
    """Group the first ungrouped row with its k−1 nearest ungrouped rows (Hamming distance,
    ties to the lower row index), leftovers join the last group; suppress every column that
    is not constant in a group. Returns ``(table, suppressed cells)``.

    Engine: ``algorithm="nearest"``, ``method="suppress"``.

    Example
    -------
    >>> SuppressionKAnonymityTimeOptimal(2).depersonalize([[1, 1], [1, 2], [3, 3], [3, 3]])
    ([[1, nan], [1, nan], [3, 3], [3, 3]], 2)
    """

    _method = "suppress"

    def __init__(self, k):
        super().__init__(k)


class SuppressionLDiversityTimeOptimal(_LDiverseEngine):
    """As :class:`SuppressionKAnonymityTimeOptimal`, but each group takes nearest rows until it
    has ≥ k rows and ≥ l distinct values in every sensitive column; ``None`` counts when no
    group can be formed.

    Example
    -------
    >>> SuppressionLDiversityTimeOptimal(2, 2).depersonalize(
    ...     [[1, "a"], [1, "a"], [2, "b"], [2, "b"]], sensitives_ids=[1])
    ([[nan, 'a'], [nan, 'a'], [nan, 'b'], [nan, 'b']], 4)
    """

    _method = "suppress"

    def __init__(self, k, l):
        super().__init__(k, l)


class GeneralizationKAnonymityTimeOptimal(_EngineDepersonalizator):
    """TimeOptimal grouping with the typed row distance (unordered: equal or not; ordered:
    rank difference / n; real: difference / range); a group's non-constant columns become one
    :class:`~pdanon.dtype.GeneralizationRange` (``[min, max]`` or the set of its values).
    Returns ``(table, generalized cells)``.

    Example
    -------
    >>> GeneralizationKAnonymityTimeOptimal(2, ["real"]).depersonalize([[1], [5], [2], [6]])
    ([[[1, 2]], [[5, 6]], [[1, 2]], [[5, 6]]], 4)
    """

    _method = "generalize"


class GeneralizationLDiversityTimeOptimal(_LDiverseEngine):
    """l-diverse TimeOptimal grouping (see :class:`SuppressionLDiversityTimeOptimal`),
    generalization recoding.

    Example
    -------
    >>> GeneralizationLDiversityTimeOptimal(2, 2, ["real"]).depersonalize(
    ...     [[1, "a"], [2, "a"], [3, "b"], [4, "b"]], sensitives_ids=[1])[1]
    4
    """

    _method = "generalize"


class AggregationKAnonymityTimeOptimal(_EngineDepersonalizator):
    """TimeOptimal grouping, aggregation recoding: the group's mean (real), the element at
    position len // 2 of its sorted values (ordered), its mode (unordered; ties to the value
    met first in group order). Returns ``(table, replaced cells)``.

    Example
    -------
    >>> AggregationKAnonymityTimeOptimal(2, ["real"]).depersonalize([[1], [2], [9], [9]])
    ([[1.5], [1.5], [9], [9]], 2)
    """

    _method = "aggregate"


class AggregationLDiversityTimeOptimal(_LDiverseEngine):
    """l-diverse TimeOptimal grouping, aggregation recoding.

    Example
    -------
    >>> AggregationLDiversityTimeOptimal(2, 2, ["real"]).depersonalize(
    ...     [[1, "a"], [3, "b"], [5, "a"], [7, "b"]], sensitives_ids=[1])
    ([[2.0, 'a'], [2.0, 'b'], [6.0, 'a'], [6.0, 'b']], 4)
    """

    _method = "aggregate"


# ============================================================================ Datafly, equal groups


class _AnyModel:
    """Mixin of Datafly and the equal groups: k-anonymity, plus distinct l-diversity (``l``)
    or t-closeness with the reference's distances (``t``, ``sensitives_types``) set by
    :meth:`with_model`. The reference's classes (and so their constructors) are k-anonymity
    only; the engine's partitioners take any model."""

    l = None
    t = None
    sensitives_types = None

    def with_model(self, *, l=None, t=None, sensitives_types=None):
        """Also enforce distinct l-diversity (``l``) or t-closeness (``t``; Jensen–Shannon
        for ordered/unordered sensitive columns, normalized Wasserstein for real ones, by
        ``sensitives_types``, default all unordered) over the sensitive columns; returns
        ``self``."""
        if l is not None and t is not None:
            raise InvalidInputError("give l (l-diversity) or t (t-closeness), not both")
        self.l, self.t, self.sensitives_types = l, t, sensitives_types
        return self

    @property
    def _sensitive_kinds(self):
        return self.sensitives_types

    def _model(self):
        if self.t is not None:
            return kt_model(self.k, self.t)
        if self.l is not None:
            return kl_model(self.k, self.l)
        return k_model(self.k)

    def __depersonalize__(self, identifiers, quasi_identifiers, sensitives):
        if self.t is not None and self.sensitives_types is None:
            self.sensitives_types = ["unordered"] * sensitives.shape[1]
        return super().__depersonalize__(identifiers, quasi_identifiers, sensitives)


class Datafly(_AnyModel, _EngineDepersonalizator):
    """Sweeney's Datafly with an automatic hierarchy: while more than ``k_suppressed_lines``
    rows (default k − 1) lie in classes smaller than k, generalize the column with most
    distinct values one step (unordered: merge its two rarest values into a set; real /
    ordered: merge the rarest value with the rarer neighbour into a range); then suppress the
    rows still in small classes. Returns ``(table, changed cells)``.

    Engine: ``algorithm="datafly"``, ``method="generalize"``, ``max_suppressed_rows``.
    pdanon extension: ``.with_model(l=...)`` adds distinct l-diversity, ``.with_model(t=...,
    sensitives_types=...)`` t-closeness, over the sensitive columns.

    Example
    -------
    >>> Datafly(2, ["real"]).depersonalize([[1], [1], [2], [3]])
    ([[1], [1], [[2, 3]], [[2, 3]]], 2)
    >>> Datafly(2, ["real"]).with_model(l=2).depersonalize(
    ...     [[1, "a"], [1, "a"], [2, "b"], [3, "b"]], sensitives_ids=[1])
    ([[[1, 3], 'a'], [[1, 3], 'a'], [[1, 3], 'b'], [[1, 3], 'b']], 4)
    """

    _algorithm = "datafly"

    def __init__(self, k, quasi_identifiers_types=None, k_suppressed_lines=None):
        super().__init__(k, quasi_identifiers_types)
        self.k_suppressed_lines = k_suppressed_lines if k_suppressed_lines is not None else k - 1

    def _options(self) -> dict:
        return {"max_suppressed_rows": int(self.k_suppressed_lines)}


class GeneralizationGreedyByOneEqualSizedGroups(_AnyModel, _EngineDepersonalizator):
    """Try group sizes k, k+1, …: cut every column on its own into consecutive groups of at
    least that many rows (real/ordered along the sorted column; unordered by whole distinct
    values, in order of first appearance), generalize each group, stop at the first k-anonymous
    table. Returns ``(table, group size)`` (``max(k − 1, 1)`` when the table already is
    k-anonymous, as the reference).

    Engine: ``algorithm="equal_groups"`` with ``unordered_order="appearance"``. pdanon
    extension: ``.with_model(l=...)`` / ``.with_model(t=..., sensitives_types=...)`` as in
    :class:`Datafly`.

    Example
    -------
    >>> GeneralizationGreedyByOneEqualSizedGroups(2, ["real"]).depersonalize([[1], [2], [3], [4]])
    ([[[1, 2]], [[1, 2]], [[3, 4]], [[3, 4]]], 2)
    """

    _algorithm = "equal_groups"

    def _options(self) -> dict:
        return {"unordered_order": "appearance"}

    def _result(self, block, changed, info):
        size = int(info.get("group_size", 1))
        if size <= 1:
            size = max(self.k - 1, 1)
        return None, block, size


# ============================================================================ exact (Baseline)


class SuppressionKAnonymityBaseline(_EngineDepersonalizator):
    """The fewest suppressed quasi-identifier cells that make the table k-anonymous (the
    reference enumerates all 2^(rows·columns) patterns; pdanon solves an integer program).
    Returns ``(table, suppressed cells)``.

    Engine: ``algorithm="exact"``, ``method="suppress"``.

    Example
    -------
    >>> SuppressionKAnonymityBaseline(2).depersonalize([[1, 1], [1, 1], [2, 2], [2, 3]])
    ([[1, 1], [1, 1], [2, nan], [2, nan]], 2)
    """

    _method = "suppress"
    _algorithm = "exact"

    def __init__(self, k):
        super().__init__(k)


class SuppressionLDiversityBaseline(_LDiverse, SuppressionKAnonymityBaseline):
    """The fewest suppressed cells for k-anonymity and distinct l-diversity.

    Example
    -------
    >>> SuppressionLDiversityBaseline(2, 2).depersonalize(
    ...     [[1, "a"], [1, "b"], [2, "a"], [3, "b"]], sensitives_ids=[1])[1]
    2
    """

    def __init__(self, k, l):
        super().__init__(k)
        self.l = l


class SuppressionTClosenessBaseline(SuppressionKAnonymityBaseline):
    """The fewest suppressed cells for k-anonymity and t-closeness with the reference's
    distances (``sensitives_types``: Jensen–Shannon for ordered/unordered, normalized
    Wasserstein for real; default all unordered).

    Example
    -------
    >>> SuppressionTClosenessBaseline(2, 0.1).depersonalize(
    ...     [[1, "a"], [1, "b"], [2, "a"], [2, "b"]], sensitives_ids=[1])[1]
    0
    """

    def __init__(self, k, t, sensitives_types=None):
        super().__init__(k)
        self.t = t
        self.sensitives_types = sensitives_types

    @property
    def _sensitive_kinds(self):
        return self.sensitives_types

    def _model(self):
        return kt_model(self.k, self.t)

    def __depersonalize__(self, identifiers, quasi_identifiers, sensitives):
        if self.sensitives_types is None:
            self.sensitives_types = ["unordered"] * sensitives.shape[1]
        return super().__depersonalize__(identifiers, quasi_identifiers, sensitives)
