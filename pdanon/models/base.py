"""The model protocol: :class:`Requirements`, :class:`PrivacyModel` and :class:`AllOf`, and
the input checks every model shares.

A model answers one question from per-class counts (a
:class:`~pdanon.distributions.ClassCounts`): does each equivalence class satisfy me? See
docs/architecture.md, "How to add a privacy model".
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon._groups import class_labels

#: Tolerance of the float comparisons of the models (entropy l-diversity, t-closeness, ...).
TOLERANCE = 1e-12

#: How l-diversity, t-closeness, β-likeness and δ-disclosure read a missing sensitive cell:
#: ``"unknown"`` (the default) - it is no value: the class's known values are measured
#: against the table's known values; ``"value"`` - one more value of its own (before 2026-12).
MISSING_SENSITIVE = ("unknown", "value")


def check_missing_sensitive(value) -> str:
    """``value`` if it is one of :data:`MISSING_SENSITIVE`, else an error naming both.

    Example
    -------
    >>> check_missing_sensitive("value")
    'value'
    >>> check_missing_sensitive("blank")
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: missing_sensitive must be 'unknown' (a missing sensitive cell is no value: the default) or 'value' (it is one more value), got 'blank'
    """
    if isinstance(value, str) and value in MISSING_SENSITIVE:
        return value
    raise InvalidInputError(
        f"missing_sensitive must be 'unknown' (a missing sensitive cell is no value: the "
        f"default) or 'value' (it is one more value), got {value!r}")


def read_by_rule(classes, missing_sensitive: str):
    """The classes as a model under ``missing_sensitive`` reads them: the
    :meth:`~pdanon.distributions.ClassCounts.known` view for ``"unknown"``, as they are for
    ``"value"``."""
    return classes.known() if missing_sensitive == "unknown" else classes


@dataclass(frozen=True)
class Requirements:
    """What a privacy model asks of a partitioner, and which shortcuts its semantics allow.

    ``min_size`` rows and ``min_distinct`` distinct values (in every sensitive column) are
    necessary for a class to satisfy the model; when ``exact`` is True they are also sufficient
    (k-anonymity, distinct l-diversity), so a partitioner may build classes by counting alone.
    ``merge_monotone``: the union of two satisfying classes satisfies (all built-in models).
    ``parts_monotone``: a violating union is made only of violating classes (k-anonymity,
    distinct l-diversity); the optimal search prunes with it under a suppression budget.
    ``population``: the model reads the population rows of every class
    (``ClassCounts.population``: k-map and δ-presence against a population table); only a
    partitioner that recodes the population with the sample (``algorithm="optimal"``) can
    fill them. ``table``: the model also has a condition on the whole set of published
    classes (:meth:`PrivacyModel.table_ok`: average risk, δ-presence), which a partitioner
    deciding class by class cannot see. ``mechanism``: the model is a property of a randomized
    mechanism, not of a table (differential privacy): only a partitioner built for it
    (``algorithm="safepub"``) can publish it. ``known_only``: the ``min_distinct`` values are
    *known* values: a missing sensitive cell is not a value (``missing_sensitive="unknown"``),
    so a partitioner that counts distinct values must leave missing cells out.

    Example
    -------
    >>> from pdanon.models import KAnonymity, LDiversity
    >>> AllOf(KAnonymity(3), LDiversity(2)).requirements()
    Requirements(min_size=3, min_distinct=2, exact=True, sensitive=True, merge_monotone=True, parts_monotone=True, population=False, table=False, mechanism=False, known_only=True)
    """

    min_size: int = 1
    min_distinct: int = 1
    exact: bool = False
    sensitive: bool = False
    merge_monotone: bool = False
    parts_monotone: bool = False
    population: bool = False
    table: bool = False
    mechanism: bool = False
    known_only: bool = False

    def __and__(self, other: "Requirements") -> "Requirements":
        return Requirements(
            min_size=max(self.min_size, other.min_size),
            min_distinct=max(self.min_distinct, other.min_distinct),
            exact=self.exact and other.exact,
            sensitive=self.sensitive or other.sensitive,
            merge_monotone=self.merge_monotone and other.merge_monotone,
            parts_monotone=self.parts_monotone and other.parts_monotone,
            population=self.population or other.population,
            table=self.table or other.table,
            mechanism=self.mechanism or other.mechanism,
            known_only=self.known_only or other.known_only,
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
        return sensitive_data(df, sensitive, what=self.name)

    def classes_ok(self, classes) -> np.ndarray:
        """Boolean per class of a :class:`~pdanon.distributions.ClassCounts`: does the class
        meet the model? The one place a model's semantics live."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement classes_ok(classes) -> bool array")

    def table_ok(self, classes) -> bool:
        """Does the set of published classes (a :class:`~pdanon.distributions.ClassCounts`
        of the classes that are not suppressed) meet the model's table-level condition, if it
        has one (``requirements().table``)? True by default: most models are decided class by
        class. Average risk (classes / rows) and δ-presence (no population row left outside
        the published classes) have one."""
        return True

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
        >>> from pdanon.models import KAnonymity, LDiversity, TCloseness
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
        >>> from pdanon.models import KAnonymity, LDiversity
        >>> m = AllOf(KAnonymity(2), LDiversity(2))
        >>> data = sensitive_data(pd.DataFrame({"d": list("abac")}), ["d"])
        >>> m.groups_achieved(np.array([0, 0, 1, 1]), data)
        {'k': 2, 'l': 2, 'l_variant': 'distinct'}
        """
        from pdanon.distributions import ClassCounts

        return self.achieved(ClassCounts.from_labels(labels, context))

    def holds(self, df: pd.DataFrame, quasi_identifiers, sensitive=None) -> bool:
        """Does ``df`` (already recoded) meet the model over its equivalence classes?"""
        if len(df) == 0:
            return True
        labels = class_labels(df, check_qis(df, quasi_identifiers))
        context = self.context(df, sensitive)
        if not self.groups_ok(labels, context).all():
            return False
        if self.requirements().table:
            return bool(self.table_ok(distributions().ClassCounts.from_labels(labels, context)))
        return True


class AllOf(PrivacyModel):
    """Several privacy models at once (e.g. k-anonymity and l-diversity): a class satisfies it
    when it satisfies every part.

    Example
    -------
    >>> from pdanon.models import KAnonymity, LDiversity
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

    def table_ok(self, classes) -> bool:
        """Every part's table-level condition holds."""
        return all(bool(m.table_ok(classes)) for m in self.models)

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


def check_int(value, name: str, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidInputError(f"{name} must be an integer >= {low}, got {value!r}")
    value = int(value)
    if value < low:
        raise InvalidInputError(f"{name} must be an integer >= {low}, got {value}")
    return value


def distributions():
    """The module :mod:`pdanon.distributions` (imported when a model first needs it)."""
    from pdanon import distributions as d

    return d


def check_qis(df: pd.DataFrame, quasi_identifiers) -> list:
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


def sensitive_data(df, sensitive, kinds=None, what="this measure"):
    d = distributions()
    spec = d.sensitive_kinds(df, sensitive, kinds)
    if not spec:
        raise InvalidInputError(
            f"{what} needs at least one sensitive column: pass sensitive=[...] (or "
            f"{{column: kind}})"
        )
    return d.SensitiveData({c: d.SensitiveColumn.from_values(df[c], k, name=c)
                            for c, k in spec.items()})

