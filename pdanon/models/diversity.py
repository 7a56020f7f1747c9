"""l-diversity: every equivalence class holds at least l "well-represented" sensitive values
(Machanavajjhala et al. 2007) - distinct, entropy or recursive (c, l).

Vectorized over all equivalence classes at once; the per-class measures are in
:mod:`pdanon.distributions` (bincount / cumsum over distinct (class, value) pairs).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon._groups import class_labels, refuse_wildcard
from pdanon.models.base import (TOLERANCE, PrivacyModel, Requirements, check_int,
                                check_missing_sensitive, check_qis, distributions, read_by_rule,
                                sensitive_data)

L_VARIANTS = ("distinct", "entropy", "recursive")


def check_variant(variant: str, c) -> None:
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
    over the sensitive columns; float for every variant, ``exp(H)`` for entropy). Pass
    ``classes.known()`` to count known values only (a class without one has l = 0)."""
    if not classes.columns:
        raise InvalidInputError("l-diversity needs at least one sensitive column: pass "
                                "sensitive=[...] (or {column: kind})")
    out = None
    for j in range(len(classes.columns)):
        if variant == "distinct":
            v = classes.distinct(j).astype(np.float64)
        elif variant == "entropy":
            v = np.exp(classes.entropy(j))
            if classes.known_only:  # no known value: no diversity at all
                v = np.where(classes.blank(j), 0.0, v)
        else:
            v = classes.recursive_l(j, float(c)).astype(np.float64)
        out = v if out is None else np.minimum(out, v)
    return out


def l_diversity(df: pd.DataFrame, quasi_identifiers, sensitive, *, variant: str = "distinct",
                c: float | None = None, missing: str = "value",
                missing_sensitive: str = "unknown"):
    """The l that ``df`` achieves over ``quasi_identifiers`` for the ``sensitive`` column(s).

    Variants (the smallest over all equivalence classes and all sensitive columns):

    * ``"distinct"`` - the number of distinct sensitive values in a class (int).
    * ``"entropy"`` - ``exp(H)``, H the Shannon entropy (natural log) of the class's sensitive
      values: the table is entropy-l-diverse exactly for l <= this value (a float; e.g. a class
      with values a, a, b gives 1.89).
    * ``"recursive"`` - recursive (c, l)-diversity: with the class's value counts sorted
      r1 >= r2 >= ... >= rm, the largest l with r1 < c·(r_l + ... + r_m) (int; needs ``c``).
      0 when even l = 1 fails (c <= 1 and a class holds one value only).

    Missing sensitive values (NaN, None, pd.NA, NaT) are unknown by default
    (``missing_sensitive="unknown"``): every variant counts a class's known values only, so a
    class of 5 x hiv and 5 blanks has l = 1 (the blanks hide nothing: the reader learns hiv
    or nothing), and a class without a known value has l = 0. ``missing_sensitive="value"``
    counts the missing cells as one value of their own (the rule before 2026-12). Classes are formed with a missing quasi-identifier cell as a value of its own
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
    >>> blanks = pd.DataFrame({"zip": [1] * 4, "d": ["hiv", "hiv", None, None]})
    >>> l_diversity(blanks, ["zip"], ["d"]), l_diversity(blanks, ["zip"], ["d"],
    ...                                                  missing_sensitive="value")
    (1, 2)
    """
    check_variant(variant, c)
    rule = check_missing_sensitive(missing_sensitive)
    refuse_wildcard(missing, "l-diversity")
    qis = check_qis(df, quasi_identifiers)
    data = sensitive_data(df, sensitive, what="l-diversity")
    if len(df) == 0:
        return 0.0 if variant == "entropy" else 0
    labels = class_labels(df, qis)
    classes = read_by_rule(distributions().ClassCounts.from_labels(labels, data), rule)
    per_group = achieved_l(classes, variant, c)
    value = float(per_group.min())
    return value if variant == "entropy" else int(round(value))


class LDiversity(PrivacyModel):
    """Every equivalence class is l-diverse in every sensitive column (see
    :func:`l_diversity` for the variants).

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "c"]})
    >>> LDiversity(2).holds(df, ["zip"], ["d"])
    True

    ``missing_sensitive="unknown"`` (the default): a missing sensitive cell is no value, so
    a class's known values must be l-diverse; ``"value"``: it is one more value (the rule
    before 2026-12). Recorded in :meth:`params`.

    >>> blanks = pd.DataFrame({"zip": [1] * 4, "d": ["hiv", "hiv", None, None]})
    >>> LDiversity(2).holds(blanks, ["zip"], ["d"])
    False
    >>> LDiversity(2, missing_sensitive="value").holds(blanks, ["zip"], ["d"])
    True
    """

    name = "l-diversity"

    def __init__(self, l, *, variant: str = "distinct", c: float | None = None,
                 missing_sensitive: str = "unknown"):
        check_variant(variant, c)
        self.missing_sensitive = check_missing_sensitive(missing_sensitive)
        if variant == "entropy":
            if isinstance(l, bool) or not isinstance(l, numbers.Real) or not l >= 1:
                raise InvalidInputError(f"l must be a number >= 1, got {l!r}")
            self.l = float(l) if not float(l).is_integer() else int(l)
        else:
            self.l = check_int(l, "l")
        self.variant = variant
        self.c = None if c is None else float(c)

    def __repr__(self) -> str:
        extra = "" if self.variant == "distinct" else f", variant={self.variant!r}"
        if self.c is not None:
            extra += f", c={self.c:g}"
        if self.missing_sensitive != "unknown":
            extra += f", missing_sensitive={self.missing_sensitive!r}"
        return f"LDiversity(l={self.l}{extra})"

    def params(self) -> dict:
        out = {"l": self.l, "variant": self.variant}
        if self.c is not None:
            out["c"] = self.c
        out["missing_sensitive"] = self.missing_sensitive
        return out

    def requirements(self) -> Requirements:
        distinct = self.variant == "distinct"
        return Requirements(min_distinct=int(np.ceil(self.l)), exact=distinct, sensitive=True,
                            merge_monotone=True, parts_monotone=distinct,
                            known_only=self.missing_sensitive == "unknown")

    def context(self, df: pd.DataFrame, sensitive):
        """Encoded sensitive columns of ``df`` for :meth:`groups_ok` (``sensitive``: names or
        ``{name: kind}``)."""
        return sensitive_data(df, sensitive, what="l-diversity")

    def _threshold(self) -> float:
        return float(self.l) - (TOLERANCE * self.l if self.variant == "entropy" else 0.0)

    def classes_ok(self, classes) -> np.ndarray:
        classes = read_by_rule(classes, self.missing_sensitive)
        return achieved_l(classes, self.variant, self.c) >= self._threshold()

    def accepts(self, achieved: dict) -> bool:
        return achieved["l"] >= self._threshold()

    def achieved(self, classes) -> dict:
        """The smallest l over the classes and sensitive columns, and the variant (an int for
        distinct and recursive l-diversity, ``exp(H)`` for entropy)."""
        if not classes.groups:
            return {}
        classes = read_by_rule(classes, self.missing_sensitive)
        low = float(np.min(achieved_l(classes, self.variant, self.c)))
        return {"l": low if self.variant == "entropy" else int(round(low)),
                "l_variant": self.variant}

    def holds(self, df: pd.DataFrame, quasi_identifiers, sensitive=None) -> bool:
        if len(df) == 0:
            return True
        value = l_diversity(df, quasi_identifiers, sensitive, variant=self.variant, c=self.c,
                            missing_sensitive=self.missing_sensitive)
        return value >= self._threshold()

    def check_feasible(self, df: pd.DataFrame, roles) -> None:
        from pdanon._errors import InfeasibleError

        sensitive = getattr(roles, "sensitive", roles)
        data = sensitive_data(df, sensitive, what="l-diversity")
        if len(df) == 0:
            return
        # all three variants are preserved when classes merge, so the whole table (one class)
        # is the most diverse partition: if it fails, every partition fails
        labels = np.zeros(len(df), dtype=np.int64)
        for col in data.columns.values():
            one = distributions().ClassCounts.from_labels(labels, distributions().SensitiveData({col.name: col}))
            got = float(achieved_l(read_by_rule(one, self.missing_sensitive), self.variant,
                                   self.c)[0])
            if got < self._threshold():
                shown = f"{got:.4g}" if self.variant == "entropy" else f"{int(got)}"
                raise InfeasibleError(
                    f"{self!r} cannot be met: the whole table reaches only l={shown} in "
                    f"sensitive column {col.name!r} ({self.variant} l-diversity); lower l"
                    + (" or raise c" if self.variant == "recursive" else "")
                    + (" (its missing cells are no value: missing_sensitive='unknown')"
                       if col.has_na and self.missing_sensitive == "unknown" else "")
                )

