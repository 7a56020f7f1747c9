"""Privacy models as vectorized checks over equivalence-class labels.

A *model* object says when a group of rows is acceptable; the engine uses it while partitioning
and verifies every output with :meth:`PrivacyModel.groups_ok` on the published classes. The
``*_anonymity`` / ``*_diversity`` functions measure the level a frame achieves.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"age": [1, 1, 2, 2, 2]})
>>> k_anonymity(df, ["age"])
2
>>> KAnonymity(2).holds(df, ["age"])
True
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon._groups import check_missing, class_labels, frequencies, refuse_wildcard


def k_anonymity(df: pd.DataFrame, quasi_identifiers, *, missing: str = "value") -> int:
    """Largest k for which ``df`` is k-anonymous over ``quasi_identifiers``: the smallest
    frequency of a row (0 for an empty frame; the row count when there are no
    quasi-identifiers).

    ``missing="value"`` (default): a missing cell is a value of its own, the frequency is the
    size of the row's equivalence class. ``missing="wildcard"``: a missing cell matches any
    value (sdcMicro's rule; see :func:`pdanon._groups.frequencies`), so k is never lower.

    Example
    -------
    >>> df = pd.DataFrame({"age": [30, 30, None], "sex": ["F", None, "F"]})
    >>> k_anonymity(df, ["age", "sex"]), k_anonymity(df, ["age", "sex"], missing="wildcard")
    (1, 3)
    """
    check_missing(missing)
    qis = _check_qis(df, quasi_identifiers)
    if len(df) == 0:
        return 0
    return int(frequencies(df, qis, missing=missing).min())


@dataclass(frozen=True)
class Requirements:
    """What a privacy model asks of a partitioner, and which shortcuts its semantics allow.

    ``min_size`` rows and ``min_distinct`` distinct values (in every sensitive column) are
    necessary for a class to satisfy the model; when ``exact`` is True they are also sufficient
    (k-anonymity, distinct l-diversity), so a partitioner may build classes by counting alone.
    ``merge_monotone``: the union of two satisfying classes satisfies (all built-in models).
    ``parts_monotone``: a violating union is made only of violating classes (k-anonymity,
    distinct l-diversity); the optimal search prunes with it under a suppression budget.

    Example
    -------
    >>> AllOf(KAnonymity(3), LDiversity(2)).requirements()
    Requirements(min_size=3, min_distinct=2, exact=True, sensitive=True, merge_monotone=True, parts_monotone=True)
    """

    min_size: int = 1
    min_distinct: int = 1
    exact: bool = False
    sensitive: bool = False
    merge_monotone: bool = False
    parts_monotone: bool = False

    def __and__(self, other: "Requirements") -> "Requirements":
        return Requirements(
            min_size=max(self.min_size, other.min_size),
            min_distinct=max(self.min_distinct, other.min_distinct),
            exact=self.exact and other.exact,
            sensitive=self.sensitive or other.sensitive,
            merge_monotone=self.merge_monotone and other.merge_monotone,
            parts_monotone=self.parts_monotone and other.parts_monotone,
        )


class PrivacyModel:
    """Base class: a condition every equivalence class must meet.

    A model answers from per-class counts alone (:class:`~pdanon.distributions.ClassCounts`:
    rows per class and, per sensitive column, the class's value counts with the whole table's
    distribution). To define one, subclass and implement :meth:`classes_ok`; override
    :meth:`requirements` to say what it needs (``sensitive=True`` when it reads sensitive
    columns). Every partitioner that accepts any model (mondrian, datafly, equal_groups,
    group_join, optimal) and the engine's verification then use it. See docs/architecture.md.

    Example
    -------
    >>> class MaxShare(PrivacyModel):
    ...     "No sensitive value fills more than half of a class."
    ...     name = "max-share"
    ...     def requirements(self):
    ...         return Requirements(sensitive=True, merge_monotone=True)
    ...     def classes_ok(self, classes):
    ...         ok = np.ones(classes.groups, dtype=bool)
    ...         for j in range(len(classes.columns)):
    ...             p = classes.pairs(j)
    ...             top = np.zeros(classes.groups, dtype=np.int64)
    ...             np.maximum.at(top, p.cls, p.count)
    ...             ok &= top * 2 <= classes.sizes
    ...         return ok
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    >>> MaxShare().holds(df, ["zip"], ["d"])
    False
    """

    name = "model"

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({args})"

    def params(self) -> dict:
        return {}

    def requirements(self) -> Requirements:
        """What the model needs of a partitioner (see :class:`Requirements`)."""
        return Requirements()

    def parts(self) -> list:
        """The single models this one is made of (``[self]``; :class:`AllOf` lists its own)."""
        return [self]

    def check_feasible(self, df: pd.DataFrame, roles) -> None:
        """Raise :class:`InfeasibleError` before any work when the request cannot be met."""

    def context(self, df: pd.DataFrame, sensitive):
        """Encoded sensitive columns of ``df`` for :meth:`groups_ok` (``None`` when the model
        reads none). ``sensitive``: names or ``{name: kind}``."""
        if not self.requirements().sensitive:
            return None
        return _sensitive_data(df, sensitive, what=self.name)

    def classes_ok(self, classes) -> np.ndarray:
        """Boolean per class of a :class:`~pdanon.distributions.ClassCounts`: does the class
        meet the model? The one place a model's semantics live."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement classes_ok(classes) -> bool array")

    def groups_ok(self, labels: np.ndarray, context=None) -> np.ndarray:
        """Boolean per group label (``0..G-1`` per row): does the group meet the model?"""
        from pdanon.distributions import ClassCounts

        return np.asarray(self.classes_ok(ClassCounts.from_labels(labels, context)),
                          dtype=bool)

    def achieved(self, classes) -> dict:
        """What the classes of a :class:`~pdanon.distributions.ClassCounts` achieve, as
        ``info["achieved"]`` reports it (e.g. ``{"k": 5}``; the worst class decides). A user
        model that does not override it reports nothing (``{}``)."""
        return {}

    def accepts(self, achieved: dict) -> bool:
        """Does a table whose worst class reaches ``achieved`` (the keys :meth:`achieved`
        reports) meet the model? For checks that reduce classes to their worst levels (the
        distributed verification on Dask); a model that reports nothing cannot say.

        Example
        -------
        >>> AllOf(KAnonymity(3), LDiversity(2)).accepts({"k": 3, "l": 2})
        True
        >>> TCloseness(0.2).accepts({"t": 0.25})
        False
        """
        raise NotImplementedError(
            f"{type(self).__name__} is decided per class only (classes_ok); it cannot be "
            "checked from the worst levels of a table")

    def groups_achieved(self, labels: np.ndarray, context=None) -> dict:
        """:meth:`achieved` for a group label per row (as :meth:`groups_ok`).

        Example
        -------
        >>> m = AllOf(KAnonymity(2), LDiversity(2))
        >>> data = _sensitive_data(pd.DataFrame({"d": list("abac")}), ["d"])
        >>> m.groups_achieved(np.array([0, 0, 1, 1]), data)
        {'k': 2, 'l': 2, 'l_variant': 'distinct'}
        """
        from pdanon.distributions import ClassCounts

        return self.achieved(ClassCounts.from_labels(labels, context))

    def holds(self, df: pd.DataFrame, quasi_identifiers, sensitive=None) -> bool:
        """Does ``df`` (already recoded) meet the model over its equivalence classes?"""
        if len(df) == 0:
            return True
        labels = class_labels(df, _check_qis(df, quasi_identifiers))
        return bool(self.groups_ok(labels, self.context(df, sensitive)).all())


class AllOf(PrivacyModel):
    """Several privacy models at once (e.g. k-anonymity and l-diversity): a class satisfies it
    when it satisfies every part.

    Example
    -------
    >>> m = AllOf(KAnonymity(2), LDiversity(2))
    >>> m.name, [p.name for p in m.parts()]
    ('k-anonymity + l-diversity', ['k-anonymity', 'l-diversity'])
    """

    def __init__(self, *models: PrivacyModel):
        flat = []
        for m in models:
            if m is not None:
                flat.extend(m.parts())
        if not flat:
            raise InvalidInputError("AllOf needs at least one privacy model")
        self.models = flat
        self.name = " + ".join(m.name for m in self.models)

    def __repr__(self) -> str:
        return "AllOf(" + ", ".join(map(repr, self.models)) + ")"

    def parts(self) -> list:
        return list(self.models)

    def params(self) -> dict:
        out = {}
        for m in self.models:
            out.update(m.params())
        return out

    def requirements(self) -> Requirements:
        req = self.models[0].requirements()
        for m in self.models[1:]:
            req = req & m.requirements()
        return req

    def check_feasible(self, df, roles) -> None:
        for m in self.models:
            m.check_feasible(df, roles)

    def context(self, df, sensitive):
        """The context of the first part that reads sensitive columns."""
        for m in self.models:
            if m.requirements().sensitive:
                return m.context(df, sensitive)
        return None

    def classes_ok(self, classes) -> np.ndarray:
        ok = np.asarray(self.models[0].classes_ok(classes), dtype=bool)
        for m in self.models[1:]:
            ok = ok & np.asarray(m.classes_ok(classes), dtype=bool)
        return ok

    def accepts(self, achieved: dict) -> bool:
        return all(m.accepts(achieved) for m in self.models)

    def achieved(self, classes) -> dict:
        """Every part's measures (the parts of a model measure different things)."""
        out = {}
        for m in self.models:
            out.update(m.achieved(classes))
        return out

    def holds(self, df, quasi_identifiers, sensitive=None) -> bool:
        return all(m.holds(df, quasi_identifiers, sensitive) for m in self.models)


def _check_int(value, name: str, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidInputError(f"{name} must be an integer >= {low}, got {value!r}")
    value = int(value)
    if value < low:
        raise InvalidInputError(f"{name} must be an integer >= {low}, got {value}")
    return value


class KAnonymity(PrivacyModel):
    """Every equivalence class has at least ``k`` rows."""

    name = "k-anonymity"

    def __init__(self, k: int):
        self.k = _check_int(k, "k")

    def __repr__(self) -> str:
        return f"KAnonymity(k={self.k})"

    def params(self) -> dict:
        return {"k": self.k}

    def check_feasible(self, df: pd.DataFrame, roles) -> None:
        n = len(df)
        if n and self.k > n:
            raise InvalidInputError(
                f"k={self.k} is larger than the number of rows ({n}); choose k <= {n}"
            )

    def requirements(self) -> Requirements:
        return Requirements(min_size=self.k, exact=True, merge_monotone=True,
                            parts_monotone=True)

    def classes_ok(self, classes) -> np.ndarray:
        return classes.sizes >= self.k

    def accepts(self, achieved: dict) -> bool:
        return achieved["k"] >= self.k

    def achieved(self, classes) -> dict:
        """The smallest class (0 when there is no class)."""
        return {"k": int(classes.sizes.min()) if classes.groups else 0}

    def holds(self, df: pd.DataFrame, quasi_identifiers, sensitive=None) -> bool:
        return len(df) == 0 or k_anonymity(df, quasi_identifiers) >= self.k


# ============================================================================ l-diversity, t-closeness
# Vectorized over all equivalence classes at once; the per-class measures are in
# pdanon.distributions (bincount / cumsum / searchsorted over distinct (class, value) pairs).

L_VARIANTS = ("distinct", "entropy", "recursive")
#: Tolerance of the float comparisons in :class:`LDiversity` (entropy) and :class:`TCloseness`.
TOLERANCE = 1e-12


def _dist():
    from pdanon import distributions as d

    return d


def _check_qis(df: pd.DataFrame, quasi_identifiers) -> list:
    from pdanon._errors import UnknownColumnError

    if isinstance(quasi_identifiers, (str, int)) and not isinstance(quasi_identifiers, bool):
        quasi_identifiers = [quasi_identifiers]
    qis = list(quasi_identifiers)
    missing = [c for c in qis if c not in df.columns]
    if missing:
        raise UnknownColumnError(
            f"unknown quasi-identifier column(s) {missing}; the frame has columns "
            f"{list(df.columns)}"
        )
    return qis


def _sensitive_data(df, sensitive, kinds=None, what="this measure"):
    d = _dist()
    spec = d.sensitive_kinds(df, sensitive, kinds)
    if not spec:
        raise InvalidInputError(
            f"{what} needs at least one sensitive column: pass sensitive=[...] (or "
            f"{{column: kind}})"
        )
    return d.SensitiveData({c: d.SensitiveColumn.from_values(df[c], k, name=c)
                            for c, k in spec.items()})


def _check_variant(variant: str, c) -> None:
    if variant not in L_VARIANTS:
        raise InvalidInputError(f"unknown l-diversity variant {variant!r}; use one of "
                                f"{list(L_VARIANTS)}")
    if variant == "recursive":
        if c is None or isinstance(c, bool) or not isinstance(c, numbers.Real) or not c > 0:
            raise InvalidInputError(
                f"recursive (c, l)-diversity needs a constant c > 0 (e.g. c=2), got {c!r}"
            )


def achieved_l(classes, variant: str, c=None) -> np.ndarray:
    """The l each class of a :class:`~pdanon.distributions.ClassCounts` achieves (the smallest
    over the sensitive columns; float for every variant, ``exp(H)`` for entropy)."""
    if not classes.columns:
        raise InvalidInputError("l-diversity needs at least one sensitive column: pass "
                                "sensitive=[...] (or {column: kind})")
    out = None
    for j in range(len(classes.columns)):
        if variant == "distinct":
            v = classes.distinct(j).astype(np.float64)
        elif variant == "entropy":
            v = np.exp(classes.entropy(j))
        else:
            v = classes.recursive_l(j, float(c)).astype(np.float64)
        out = v if out is None else np.minimum(out, v)
    return out


def achieved_t(classes, distance: str, hierarchies=None) -> np.ndarray:
    """The largest distance, over the sensitive columns, of each class's distribution to the
    whole table's (the t each class achieves)."""
    if not classes.columns:
        raise InvalidInputError("t-closeness needs at least one sensitive column: pass "
                                "sensitive=[...] (or {column: kind})")
    out = np.zeros(classes.groups)
    for j, col in enumerate(classes.columns):
        h = (hierarchies or {}).get(col.name)
        out = np.maximum(out, classes.distance(j, distance, h))
    return out


def l_diversity(df: pd.DataFrame, quasi_identifiers, sensitive, *, variant: str = "distinct",
                c: float | None = None, missing: str = "value"):
    """The l that ``df`` achieves over ``quasi_identifiers`` for the ``sensitive`` column(s).

    Variants (the smallest over all equivalence classes and all sensitive columns):

    * ``"distinct"`` - the number of distinct sensitive values in a class (int).
    * ``"entropy"`` - ``exp(H)``, H the Shannon entropy (natural log) of the class's sensitive
      values: the table is entropy-l-diverse exactly for l <= this value (a float; e.g. a class
      with values a, a, b gives 1.89).
    * ``"recursive"`` - recursive (c, l)-diversity: with the class's value counts sorted
      r1 >= r2 >= ... >= rm, the largest l with r1 < c·(r_l + ... + r_m) (int; needs ``c``).
      0 when even l = 1 fails (c <= 1 and a class holds one value only).

    Missing sensitive values (NaN, None, pd.NA, NaT) count as one value of their own in every
    variant. Classes are formed with a missing quasi-identifier cell as a value of its own
    (``missing="value"``, the only choice: ``"wildcard"`` forms no classes and is refused).
    Returns 0 for an empty frame.

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 1, 2, 2, 2], "d": ["a", "a", "b", "a", "b", "c"]})
    >>> l_diversity(df, ["zip"], ["d"])
    2
    >>> round(l_diversity(df, ["zip"], ["d"], variant="entropy"), 4)
    1.8899
    >>> l_diversity(df, ["zip"], ["d"], variant="recursive", c=2)
    1
    """
    _check_variant(variant, c)
    refuse_wildcard(missing, "l-diversity")
    qis = _check_qis(df, quasi_identifiers)
    data = _sensitive_data(df, sensitive, what="l-diversity")
    if len(df) == 0:
        return 0.0 if variant == "entropy" else 0
    labels = class_labels(df, qis)
    per_group = achieved_l(_dist().ClassCounts.from_labels(labels, data), variant, c)
    value = float(per_group.min())
    return value if variant == "entropy" else int(round(value))


def t_closeness(df: pd.DataFrame, quasi_identifiers, sensitive, *, distance: str = "emd",
                kinds=None, hierarchies=None, missing: str = "value") -> float:
    """The smallest t for which ``df`` is t-close: the largest distance, over all equivalence
    classes and sensitive columns, between a class's distribution of sensitive values and the
    whole table's.

    Parameters
    ----------
    sensitive : list of names, or ``{name: kind}``
        Kinds (``real`` / ``ordered`` / ``unordered``) default to the inferred ones; ``kinds``
        overrides some of them.
    distance : str
        ``"emd"`` (default; Li, Li & Venkatasubramanian 2007): equal-distance EMD (total
        variation ½·Σ|p−q|) for unordered columns, ordered-distance EMD
        1/(m−1)·Σ_i|Σ_{j<=i}(p_j−q_j)| over the m sorted distinct values for ordered and real.
        ``"hierarchical"``: hierarchical EMD for the columns in ``hierarchies`` (others as
        ``"emd"``). ``"jensen_shannon"``: Jensen–Shannon divergence, natural log, every kind.
        ``"wasserstein"``: 1-D Wasserstein distance / (max − min + 1e-10) for real columns
        (ranks for ordered). ``"reference"``: what cp2025's ``find_t_close`` computes -
        Wasserstein for real, Jensen–Shannon for ordered/unordered.
    hierarchies : dict, optional
        ``{column: hierarchy}``; a hierarchy is ``{value: [level1, level2, ...]}`` or a
        DataFrame ``value, level1, ..., *`` (ARX layout).

    Missing sensitive values (NaN, None, pd.NA, NaT) are one more value: for the ordered EMD
    (ordered and real columns) it is placed after the largest value, so with m sorted values
    and missing the ground distance of the i-th value (i = 0 the smallest) to missing is
    (m − i)/m; an error for the
    Wasserstein distance. Classes are formed with a missing quasi-identifier cell as a value
    of its own (``missing="value"``; ``"wildcard"`` is refused). Returns 0.0 for an empty
    frame.

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    >>> t_closeness(df, ["zip"], ["d"])
    0.25
    """
    refuse_wildcard(missing, "t-closeness")
    qis = _check_qis(df, quasi_identifiers)
    data = _sensitive_data(df, sensitive, kinds, what="t-closeness")
    _check_distance(distance, hierarchies, data)
    if len(df) == 0:
        return 0.0
    labels = class_labels(df, qis)
    classes = _dist().ClassCounts.from_labels(labels, data)
    return float(achieved_t(classes, distance, hierarchies).max())


def _check_distance(distance, hierarchies, data) -> None:
    d = _dist()
    if distance not in d.DISTANCES:
        raise InvalidInputError(f"unknown distance {distance!r}; use one of {list(d.DISTANCES)}")
    if hierarchies:
        unknown = [c for c in hierarchies if c not in data.columns]
        if unknown:
            raise InvalidInputError(
                f"hierarchies given for {unknown}, which are not sensitive columns "
                f"{list(data.columns)}"
            )
    if distance == "hierarchical" and not hierarchies:
        raise InvalidInputError(
            "distance='hierarchical' needs hierarchies={column: {value: [level1, ...]}} (or a "
            "DataFrame value, level1, ...); without one use distance='emd'"
        )


class LDiversity(PrivacyModel):
    """Every equivalence class is l-diverse in every sensitive column (see
    :func:`l_diversity` for the variants).

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "c"]})
    >>> LDiversity(2).holds(df, ["zip"], ["d"])
    True
    """

    name = "l-diversity"

    def __init__(self, l, *, variant: str = "distinct", c: float | None = None):
        _check_variant(variant, c)
        if variant == "entropy":
            if isinstance(l, bool) or not isinstance(l, numbers.Real) or not l >= 1:
                raise InvalidInputError(f"l must be a number >= 1, got {l!r}")
            self.l = float(l) if not float(l).is_integer() else int(l)
        else:
            self.l = _check_int(l, "l")
        self.variant = variant
        self.c = None if c is None else float(c)

    def __repr__(self) -> str:
        extra = "" if self.variant == "distinct" else f", variant={self.variant!r}"
        if self.c is not None:
            extra += f", c={self.c:g}"
        return f"LDiversity(l={self.l}{extra})"

    def params(self) -> dict:
        out = {"l": self.l, "variant": self.variant}
        if self.c is not None:
            out["c"] = self.c
        return out

    def requirements(self) -> Requirements:
        distinct = self.variant == "distinct"
        return Requirements(min_distinct=int(np.ceil(self.l)), exact=distinct, sensitive=True,
                            merge_monotone=True, parts_monotone=distinct)

    def context(self, df: pd.DataFrame, sensitive):
        """Encoded sensitive columns of ``df`` for :meth:`groups_ok` (``sensitive``: names or
        ``{name: kind}``)."""
        return _sensitive_data(df, sensitive, what="l-diversity")

    def _threshold(self) -> float:
        return float(self.l) - (TOLERANCE * self.l if self.variant == "entropy" else 0.0)

    def classes_ok(self, classes) -> np.ndarray:
        return achieved_l(classes, self.variant, self.c) >= self._threshold()

    def accepts(self, achieved: dict) -> bool:
        return achieved["l"] >= self._threshold()

    def achieved(self, classes) -> dict:
        """The smallest l over the classes and sensitive columns, and the variant (an int for
        distinct and recursive l-diversity, ``exp(H)`` for entropy)."""
        if not classes.groups:
            return {}
        low = float(np.min(achieved_l(classes, self.variant, self.c)))
        return {"l": low if self.variant == "entropy" else int(round(low)),
                "l_variant": self.variant}

    def holds(self, df: pd.DataFrame, quasi_identifiers, sensitive=None) -> bool:
        if len(df) == 0:
            return True
        value = l_diversity(df, quasi_identifiers, sensitive, variant=self.variant, c=self.c)
        return value >= self._threshold()

    def check_feasible(self, df: pd.DataFrame, roles) -> None:
        from pdanon._errors import InfeasibleError

        sensitive = getattr(roles, "sensitive", roles)
        data = _sensitive_data(df, sensitive, what="l-diversity")
        if len(df) == 0:
            return
        # all three variants are preserved when classes merge, so the whole table (one class)
        # is the most diverse partition: if it fails, every partition fails
        labels = np.zeros(len(df), dtype=np.int64)
        for col in data.columns.values():
            one = _dist().ClassCounts.from_labels(labels, _dist().SensitiveData({col.name: col}))
            got = float(achieved_l(one, self.variant, self.c)[0])
            if got < self._threshold():
                shown = f"{got:.4g}" if self.variant == "entropy" else f"{int(got)}"
                raise InfeasibleError(
                    f"{self!r} cannot be met: the whole table reaches only l={shown} in "
                    f"sensitive column {col.name!r} ({self.variant} l-diversity); lower l"
                    + (" or raise c" if self.variant == "recursive" else "")
                )


class TCloseness(PrivacyModel):
    """In every equivalence class and sensitive column, the distance between the class's
    distribution and the whole table's is at most ``t`` (see :func:`t_closeness`).

    ``kinds`` ({column: kind}) and ``hierarchies`` ({column: hierarchy}) are remembered and
    used when :meth:`holds` / :meth:`context` get sensitive columns as plain names.

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "b"]})
    >>> TCloseness(0.1).holds(df, ["zip"], ["d"])
    True
    """

    name = "t-closeness"

    def __init__(self, t: float, *, distance: str = "emd", kinds=None, hierarchies=None):
        d = _dist()
        if isinstance(t, bool) or not isinstance(t, numbers.Real) or not t >= 0:
            raise InvalidInputError(f"t must be a number >= 0, got {t!r}")
        if distance not in d.DISTANCES:
            raise InvalidInputError(f"unknown distance {distance!r}; use one of "
                                    f"{list(d.DISTANCES)}")
        if distance == "hierarchical" and not hierarchies:
            raise InvalidInputError("distance='hierarchical' needs hierarchies={column: ...}")
        self.t = float(t)
        self.distance = distance
        self.kinds = dict(kinds) if kinds else None
        self.hierarchies = dict(hierarchies) if hierarchies else None

    def __repr__(self) -> str:
        extra = "" if self.distance == "emd" else f", distance={self.distance!r}"
        return f"TCloseness(t={self.t:g}{extra})"

    def params(self) -> dict:
        return {"t": self.t, "distance": self.distance}

    def _kinds_for(self, df, sensitive):
        """Explicit ``{name: kind}`` wins; plain names take the remembered kinds."""
        d = _dist()
        spec = d.sensitive_kinds(df, sensitive)
        if self.kinds and not isinstance(sensitive, dict):
            spec.update({c: k for c, k in self.kinds.items() if c in spec})
        return spec

    def context(self, df: pd.DataFrame, sensitive):
        """Encoded sensitive columns of ``df`` (with the whole table's distributions) for
        :meth:`groups_ok`."""
        from pdanon.encode import check_finite

        data = _sensitive_data(df, self._kinds_for(df, sensitive), what="t-closeness")
        for c, col in data.columns.items():
            if col.kind == "real":  # distances between real values need finite ones
                check_finite(df[c], c, where=f"sensitive column {c!r}", index=df.index)
        _check_distance(self.distance, self.hierarchies, data)
        return data

    def requirements(self) -> Requirements:
        return Requirements(sensitive=True, merge_monotone=True)

    def groups_ok(self, labels: np.ndarray, context=None) -> np.ndarray:
        if not isinstance(context, _dist().SensitiveData):
            raise InvalidInputError(
                "t-closeness measures classes against the whole table: pass the context made "
                "by model.context(df, sensitive) (or its .take(rows)) to groups_ok"
            )
        return super().groups_ok(labels, context)

    def classes_ok(self, classes) -> np.ndarray:
        return achieved_t(classes, self.distance, self.hierarchies) <= self.t + TOLERANCE

    def accepts(self, achieved: dict) -> bool:
        return achieved["t"] <= self.t + TOLERANCE

    def achieved(self, classes) -> dict:
        """The largest distance of a class to the whole table (over the sensitive columns) and
        the distance measured."""
        if not classes.groups:
            return {}
        return {"t": float(np.max(achieved_t(classes, self.distance, self.hierarchies))),
                "t_distance": self.distance}

    def holds(self, df: pd.DataFrame, quasi_identifiers, sensitive=None) -> bool:
        if len(df) == 0:
            return True
        value = t_closeness(df, quasi_identifiers, self._kinds_for(df, sensitive),
                            distance=self.distance, hierarchies=self.hierarchies)
        return value <= self.t + TOLERANCE

    def check_feasible(self, df: pd.DataFrame, roles) -> None:
        # the whole table as one class is at distance 0, so any t >= 0 is reachable; only the
        # inputs are checked here
        sensitive = getattr(roles, "sensitive", roles)
        self.context(df, sensitive)
