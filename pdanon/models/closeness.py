"""t-closeness: in every equivalence class the distribution of each sensitive column is
within distance t of the whole table's (Li, Li & Venkatasubramanian 2007).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon._groups import class_labels, refuse_wildcard
from pdanon.models.base import (TOLERANCE, PrivacyModel, Requirements,
                                check_missing_sensitive, check_qis, distributions, read_by_rule,
                                sensitive_data)


def achieved_t(classes, distance: str, hierarchies=None) -> np.ndarray:
    """The largest distance, over the sensitive columns, of each class's distribution to the
    whole table's (the t each class achieves). Pass ``classes.known()`` to compare known
    values with the table's known values (a class without one is at distance 0)."""
    if not classes.columns:
        raise InvalidInputError("t-closeness needs at least one sensitive column: pass "
                                "sensitive=[...] (or {column: kind})")
    out = np.zeros(classes.groups)
    for j, col in enumerate(classes.columns):
        h = (hierarchies or {}).get(col.name)
        out = np.maximum(out, classes.distance(j, distance, h))
    return out


def t_closeness(df: pd.DataFrame, quasi_identifiers, sensitive, *, distance: str = "emd",
                kinds=None, hierarchies=None, missing: str = "value",
                missing_sensitive: str = "unknown") -> float:
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

    Missing sensitive values (NaN, None, pd.NA, NaT) are unknown by default
    (``missing_sensitive="unknown"``): a class's distribution of known values is compared
    with the whole table's distribution of known values, and a class without a known value
    (it shows nothing of the column) is at distance 0; every distance, Wasserstein included,
    then works on columns with blanks. With ``missing_sensitive="value"`` (the rule before
    2026-12) missing is one more value: for the ordered EMD (ordered and real columns) it is
    placed after the largest value, so with m sorted values and missing the ground distance
    of the i-th value (i = 0 the smallest) to missing is (m − i)/m; an error for the
    Wasserstein distance. Classes are formed with a missing quasi-identifier cell as a value
    of its own (``missing="value"``; ``"wildcard"`` is refused). Returns 0.0 for an empty
    frame.

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    >>> t_closeness(df, ["zip"], ["d"])
    0.25
    >>> blanks = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", None]})
    >>> # known values: table a 2/3, b 1/3; class 2 holds a alone: 1/3 (a blank counted: 1/4)
    >>> round(t_closeness(blanks, ["zip"], ["d"]), 6), t_closeness(blanks, ["zip"], ["d"],
    ...                                                          missing_sensitive="value")
    (0.333333, 0.25)
    """
    rule = check_missing_sensitive(missing_sensitive)
    refuse_wildcard(missing, "t-closeness")
    qis = check_qis(df, quasi_identifiers)
    data = sensitive_data(df, sensitive, kinds, what="t-closeness")
    check_distance(distance, hierarchies, data)
    if len(df) == 0:
        return 0.0
    labels = class_labels(df, qis)
    classes = read_by_rule(distributions().ClassCounts.from_labels(labels, data), rule)
    return float(achieved_t(classes, distance, hierarchies).max())


def check_distance(distance, hierarchies, data) -> None:
    d = distributions()
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


#: the largest value a t-closeness distance can take: every distance of
#: :data:`pdanon.distributions.DISTANCES` lies in [0, 1] (the EMDs and the normalized
#: Wasserstein distance at most 1, the Jensen–Shannon divergence at most ln 2)
T_MAX = 1.0


def check_t(t) -> float:
    """``t`` as a float, refused unless a number in [0, :data:`T_MAX`]: every distance is a
    fraction, so a t above 1 is a percent meant as a fraction (every table would be t-close
    for it). 0 asks every class for the table's own distribution (the strictest t).

    Example
    -------
    >>> check_t(0.2)
    0.2
    >>> check_t(20)
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: t is a fraction in [0, 1] (every t-closeness distance lies between 0 and 1): pass 0.2, not 20
    """
    number = isinstance(t, numbers.Real) and not isinstance(t, bool)
    if number and 0 <= t <= T_MAX:
        return float(t)
    percent = number and T_MAX < t <= 100
    raise InvalidInputError(
        f"t is a fraction in [0, 1] (every t-closeness distance lies between 0 and 1): "
        + (f"pass {t / 100:g}, not {t:g}" if percent else f"got {t!r}, e.g. pass t=0.2"))


class TCloseness(PrivacyModel):
    """In every equivalence class and sensitive column, the distance between the class's
    distribution and the whole table's is at most ``t`` (see :func:`t_closeness`). ``t`` is a
    fraction in [0, 1] (every distance is; :func:`check_t`): 20 for "20 %" is refused.

    ``kinds`` ({column: kind}) and ``hierarchies`` ({column: hierarchy}) are remembered and
    used when :meth:`holds` / :meth:`context` get sensitive columns as plain names.

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "b"]})
    >>> TCloseness(0.1).holds(df, ["zip"], ["d"])
    True

    ``missing_sensitive="unknown"`` (the default) compares known values with the table's
    known values; ``"value"`` counts missing as one more value (see :func:`t_closeness`).
    """

    name = "t-closeness"

    def __init__(self, t: float, *, distance: str = "emd", kinds=None, hierarchies=None,
                 missing_sensitive: str = "unknown"):
        d = distributions()
        self.missing_sensitive = check_missing_sensitive(missing_sensitive)
        t = check_t(t)
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
        if self.missing_sensitive != "unknown":
            extra += f", missing_sensitive={self.missing_sensitive!r}"
        return f"TCloseness(t={self.t:g}{extra})"

    def params(self) -> dict:
        return {"t": self.t, "distance": self.distance,
                "missing_sensitive": self.missing_sensitive}

    def _kinds_for(self, df, sensitive):
        """Explicit ``{name: kind}`` wins; plain names take the remembered kinds."""
        d = distributions()
        spec = d.sensitive_kinds(df, sensitive)
        if self.kinds and not isinstance(sensitive, dict):
            spec.update({c: k for c, k in self.kinds.items() if c in spec})
        return spec

    def context(self, df: pd.DataFrame, sensitive):
        """Encoded sensitive columns of ``df`` (with the whole table's distributions) for
        :meth:`groups_ok`."""
        from pdanon.encode import check_finite

        data = sensitive_data(df, self._kinds_for(df, sensitive), what="t-closeness")
        for c, col in data.columns.items():
            if col.kind == "real":  # distances between real values need finite ones
                check_finite(df[c], c, where=f"sensitive column {c!r}", index=df.index)
        check_distance(self.distance, self.hierarchies, data)
        return data

    def requirements(self) -> Requirements:
        return Requirements(sensitive=True, merge_monotone=True)

    def groups_ok(self, labels: np.ndarray, context=None) -> np.ndarray:
        if not isinstance(context, distributions().SensitiveData):
            raise InvalidInputError(
                "t-closeness measures classes against the whole table: pass the context made "
                "by model.context(df, sensitive) (or its .take(rows)) to groups_ok"
            )
        return super().groups_ok(labels, context)

    def _t(self, classes) -> np.ndarray:
        return achieved_t(read_by_rule(classes, self.missing_sensitive), self.distance,
                          self.hierarchies)

    def classes_ok(self, classes) -> np.ndarray:
        return self._t(classes) <= self.t + TOLERANCE

    def accepts(self, achieved: dict) -> bool:
        return achieved["t"] <= self.t + TOLERANCE

    def achieved(self, classes) -> dict:
        """The largest distance of a class to the whole table (over the sensitive columns) and
        the distance measured."""
        if not classes.groups:
            return {}
        return {"t": float(np.max(self._t(classes))),
                "t_distance": self.distance}

    def holds(self, df: pd.DataFrame, quasi_identifiers, sensitive=None) -> bool:
        if len(df) == 0:
            return True
        value = t_closeness(df, quasi_identifiers, self._kinds_for(df, sensitive),
                            distance=self.distance, hierarchies=self.hierarchies,
                            missing_sensitive=self.missing_sensitive)
        return value <= self.t + TOLERANCE

    def check_feasible(self, df: pd.DataFrame, roles) -> None:
        # the whole table as one class is at distance 0, so any t >= 0 is reachable; only the
        # inputs are checked here
        sensitive = getattr(roles, "sensitive", roles)
        self.context(df, sensitive)
