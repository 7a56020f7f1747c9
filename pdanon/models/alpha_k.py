"""(α, k)-anonymity: every equivalence class has at least k rows, and no sensitive value (or
one given sensitive value) fills more than a share α of any class (Wong, Li, Fu & Wang,
"(α, k)-anonymity: an enhanced k-anonymity model for privacy preserving data publishing",
KDD 2006).

A missing sensitive cell (NaN, None, pd.NA, NaT) is **unknown** by default
(``missing_sensitive="unknown"``, as for l-diversity, t-closeness, β-likeness and
δ-disclosure): it may hide any value, the measured one included, so it counts towards the
share of *every* value of its class: a value's share is ``(its rows + blank rows) / rows``.
This is the worst case over every way of filling the blanks, so it is never below the share
the old reading gives (``missing_sensitive="value"``: a blank is one value of its own, the
rule before 2026-12) nor below the share among known values only; a class of 5 × hiv and
5 blanks has hiv's share 1 (not 1/2), and a class of blanks only has share 1.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"zip": [1, 1, 2, 2, 2], "d": ["a", "b", "a", "a", "b"]})
>>> alpha_k_anonymity(df, ["zip"], ["d"])  # class 2: a fills 2/3
AlphaK(alpha=0.6666666666666666, k=2)
>>> AlphaKAnonymity(0.7, 2).holds(df, ["zip"], ["d"])
True
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from pdanon._errors import InfeasibleError, InvalidInputError
from pdanon.models.base import (TOLERANCE, PrivacyModel, Requirements, check_int,
                                check_missing_sensitive, distributions, sensitive_data)
from pdanon.models.shares import (check_positive, frame_classes, pair_shares,
                                  worst_over_columns, worst_per_class)

_NO_VALUE = object()


class AlphaK(NamedTuple):
    """What a table achieves for (α, k)-anonymity: the largest share ``alpha`` of a sensitive
    value in a class and the smallest class ``k``."""

    alpha: float
    k: int


def value_code(col, value) -> int:
    """The code of ``value`` in a :class:`~pdanon.distributions.SensitiveColumn` (-1 when no
    row holds it); a missing value (None, NaN, pd.NA, NaT) is the column's missing code."""
    if col.uniques is None:
        raise InvalidInputError(
            f"(alpha, k)-anonymity with value= needs the sensitive values of column "
            f"{col.name!r}: pass the context made by model.context(df, sensitive)"
        )
    key = ("alpha_k_value", type(value).__name__, repr(value))
    hit = col.cache.get(key)
    if hit is None:
        if value is None or (not isinstance(value, str) and bool(pd.isna(value))):
            hit = col.m - 1 if col.has_na else -1
        else:
            where = pd.Index(np.asarray(col.uniques, dtype=object)).get_indexer([value])
            hit = int(where[0])
        col.cache[key] = hit
    return hit


def _column_alpha(classes, j: int, value, unknown: bool) -> np.ndarray:
    col = classes.columns[j]
    if not unknown or not col.has_na:
        pairs, q, _ = pair_shares(classes, j)
        if value is not _NO_VALUE:
            code = value_code(col, value)
            q = np.where(pairs.val == code, q, 0.0)
        return worst_per_class(q, pairs.cls, classes.groups, 0.0)
    # a blank may be any value: it counts towards every value's share of its class
    pairs = classes.pairs(j)
    blank = pairs.val == col.m - 1
    blanks = np.bincount(pairs.cls[blank], weights=pairs.count[blank],
                         minlength=classes.groups)
    known = ~blank
    if value is not _NO_VALUE:
        known &= pairs.val == value_code(col, value)
    top = worst_per_class(pairs.count[known].astype(np.float64), pairs.cls[known],
                          classes.groups, 0.0)
    sizes = classes.sizes.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sizes > 0, (top + blanks) / sizes, 0.0)


def achieved_alpha(classes, value=_NO_VALUE, missing_sensitive: str = "unknown") -> np.ndarray:
    """The largest share of a sensitive value (of ``value`` only, when given) in each class of
    a :class:`~pdanon.distributions.ClassCounts`, over the sensitive columns; under
    ``missing_sensitive="unknown"`` a blank cell counts towards every value's share."""
    unknown = check_missing_sensitive(missing_sensitive) == "unknown"
    return worst_over_columns(classes, lambda c, j: _column_alpha(c, j, value, unknown),
                              "(alpha, k)-anonymity")


def _value_arg(value):
    return _NO_VALUE if value is None else value


def _check_value_present(data, value, missing_sensitive: str = "value") -> None:
    if value is _NO_VALUE:
        return
    blank = value is None or (not isinstance(value, str) and bool(pd.isna(value)))
    if blank and missing_sensitive == "unknown":
        raise InvalidInputError(
            f"value={value!r} is a missing value, which missing_sensitive='unknown' reads as "
            f"no value (a blank may hide any value and counts towards every value's share); "
            f"name a sensitive value, or pass missing_sensitive='value' to measure the "
            f"blanks' own share")
    codes = [value_code(col, value) for col in data.columns.values()]
    if all(c < 0 for c in codes):
        raise InvalidInputError(
            f"value={value!r} occurs in none of the sensitive columns {list(data.columns)}; "
            f"check its spelling and type (e.g. 'HIV' vs 'hiv', 1 vs '1')"
        )


def alpha_k_anonymity(df: pd.DataFrame, quasi_identifiers, sensitive, *, value=None,
                      missing: str = "value", missing_sensitive: str = "unknown") -> AlphaK:
    """The (α, k) ``df`` achieves (Wong et al. 2006): ``alpha``, the largest share of one
    sensitive value in an equivalence class (over all classes, values and sensitive columns),
    and ``k``, the smallest class. The table is (α', k')-anonymous for every α' >= alpha and
    k' <= k.

    ``value``: measure only the share of this sensitive value (the paper's original form,
    e.g. ``value="HIV"``); it must occur in some sensitive column. Missing sensitive values
    (NaN, None, pd.NA, NaT) are unknown by default (``missing_sensitive="unknown"``): a
    blank may hide any value, so it counts towards every value's share of its class (the
    worst case; see the module docstring); ``missing_sensitive="value"`` counts them as one
    value of their own (the rule before 2026-12). Classes are formed with a missing
    quasi-identifier cell as a value of its own (``missing="value"``; ``"wildcard"`` is
    refused). Returns ``AlphaK(alpha=0.0, k=0)`` for an empty frame.

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 1, 2, 2, 2], "d": list("aabhab")})
    >>> alpha_k_anonymity(df, ["zip"], ["d"])  # class 1: a fills 2/3
    AlphaK(alpha=0.6666666666666666, k=3)
    >>> alpha_k_anonymity(df, ["zip"], ["d"], value="h")  # h fills 1/3 of class 2
    AlphaK(alpha=0.3333333333333333, k=3)
    >>> blanks = pd.DataFrame({"zip": [1] * 4, "d": ["hiv", "hiv", None, None]})
    >>> alpha_k_anonymity(blanks, ["zip"], ["d"]).alpha  # the blanks may be hiv too
    1.0
    >>> alpha_k_anonymity(blanks, ["zip"], ["d"], missing_sensitive="value").alpha
    0.5
    """
    rule = check_missing_sensitive(missing_sensitive)
    # (α, k) bounds the share of a value among a class's rows: the classes are read as they
    # are (a blank stays a cell of its class); the rule decides what share a blank adds
    classes = frame_classes(df, quasi_identifiers, sensitive, missing, "(alpha, k)-anonymity",
                            "value")
    if classes is None:
        if value is not None:
            _check_value_present(sensitive_data(df, sensitive), value, rule)
        return AlphaK(0.0, 0)
    value = _value_arg(value)
    _check_value_present(distributions().SensitiveData(
        {c.name: c for c in classes.columns}), value, rule)
    return AlphaK(float(achieved_alpha(classes, value, rule).max()),
                  int(classes.sizes.min()))


class AlphaKAnonymity(PrivacyModel):
    """Every equivalence class has at least ``k`` rows and no sensitive value (only
    ``value``, when given) fills more than a share ``alpha`` of it, in every sensitive column
    (see :func:`alpha_k_anonymity`).

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    >>> AlphaKAnonymity(0.5, 2).holds(df, ["zip"], ["d"])
    False
    >>> AlphaKAnonymity(0.5, 2, value="b").holds(df, ["zip"], ["d"])
    True

    ``missing_sensitive="unknown"`` (the default): a blank sensitive cell may be any value
    and counts towards every value's share; ``"value"``: it is one value of its own (the rule
    before 2026-12). Recorded in :meth:`params`.

    >>> blanks = pd.DataFrame({"zip": [1] * 4, "d": ["hiv", "hiv", None, None]})
    >>> AlphaKAnonymity(0.5, 2).holds(blanks, ["zip"], ["d"])
    False
    >>> AlphaKAnonymity(0.5, 2, missing_sensitive="value").holds(blanks, ["zip"], ["d"])
    True
    """

    name = "(alpha, k)-anonymity"

    def __init__(self, alpha: float, k: int, *, value=None, missing_sensitive: str = "unknown"):
        self.alpha = check_positive(alpha, "alpha", upper=1.0)
        self.k = check_int(k, "k")
        self.value = value
        self.missing_sensitive = check_missing_sensitive(missing_sensitive)

    def __repr__(self) -> str:
        extra = "" if self.value is None else f", value={self.value!r}"
        if self.missing_sensitive != "unknown":
            extra += f", missing_sensitive={self.missing_sensitive!r}"
        return f"AlphaKAnonymity(alpha={self.alpha:g}, k={self.k}{extra})"

    def params(self) -> dict:
        return {"alpha": self.alpha, "k": self.k,
                **({} if self.value is None else {"value": self.value}),
                "missing_sensitive": self.missing_sensitive}

    def requirements(self) -> Requirements:
        # every value's share <= alpha needs at least 1/alpha distinct values (not so for the
        # share of one given value); known ones under "unknown" (a blank adds to every
        # share, so it never replaces a value). Merging two satisfying classes: the union has
        # more than k rows and each value's share (with the blanks) is a weighted average of
        # two shares <= alpha.
        distinct = 1 if self.value is not None else max(1, math.ceil(1 / self.alpha - 1e-9))
        return Requirements(min_size=self.k, min_distinct=distinct, sensitive=True,
                            merge_monotone=True,
                            known_only=self.missing_sensitive == "unknown")

    def context(self, df: pd.DataFrame, sensitive):
        """Encoded sensitive columns of ``df``."""
        data = sensitive_data(df, sensitive, what="(alpha, k)-anonymity")
        _check_value_present(data, _value_arg(self.value), self.missing_sensitive)
        return data

    def classes_ok(self, classes) -> np.ndarray:
        shares = achieved_alpha(classes, _value_arg(self.value), self.missing_sensitive)
        return (classes.sizes >= self.k) & (shares <= self.alpha + TOLERANCE)

    def accepts(self, achieved: dict) -> bool:
        return achieved["alpha"] <= self.alpha + TOLERANCE and achieved["k"] >= self.k

    def achieved(self, classes) -> dict:
        """The largest share of a (the) sensitive value in a class, and the smallest class."""
        if not classes.groups:
            return {}
        return {"alpha": float(np.max(achieved_alpha(classes, _value_arg(self.value),
                                                     self.missing_sensitive))),
                "k": int(classes.sizes.min())}

    def holds(self, df: pd.DataFrame, quasi_identifiers, sensitive=None) -> bool:
        if len(df) == 0:
            return True
        got = alpha_k_anonymity(df, quasi_identifiers, sensitive, value=self.value,
                                missing_sensitive=self.missing_sensitive)
        return self.accepts({"alpha": got.alpha, "k": got.k})

    def check_feasible(self, df: pd.DataFrame, roles) -> None:
        data = self.context(df, getattr(roles, "sensitive", roles))
        n = len(df)
        if not n:
            return
        if self.k > n:
            raise InvalidInputError(
                f"k={self.k} is larger than the number of rows ({n}); choose k <= {n}")
        # the shares of the whole table (one class) are weighted averages of any partition's
        # shares: if the whole table has a share above alpha, so has some class of every
        # partition
        one = distributions().ClassCounts.from_labels(np.zeros(n, dtype=np.int64), data)
        top = float(achieved_alpha(one, _value_arg(self.value), self.missing_sensitive)[0])
        if top > self.alpha + TOLERANCE:
            what = "a sensitive value" if self.value is None else f"value {self.value!r}"
            blanks = (" (blank cells count towards every value's share: a blank may hide "
                      "it; missing_sensitive='value' counts them as one value of their own)"
                      if self.missing_sensitive == "unknown" and any(
                          c.has_na for c in data.columns.values()) else "")
            raise InfeasibleError(
                f"{self!r} cannot be met: {what} fills {top:.4g} of the whole table, more "
                f"than alpha={self.alpha:g}{blanks}; raise alpha"
                + ("" if self.value is not None else " (or use value= for one value)")
            )
