"""β-likeness: no equivalence class raises the share of a sensitive value by more than a
factor β relative to its share in the whole table (Cao & Karras, "Publishing microdata with a
robust privacy guarantee", PVLDB 5(11), 2012).

For a sensitive value with whole-table share p and class share q > p, the relative gain is
D = (q − p)/p. *Basic* β-likeness asks D <= β for every class and value; *enhanced*
β-likeness asks D <= min(β, −ln p), which also keeps a frequent value (large p, small −ln p)
from filling a class: q <= p·(1 − ln p) < 1 whenever p < 1.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
>>> # b: p = 1/4, q = 1/2 in class 1 -> (1/2 - 1/4)/(1/4) = 1; a: (1 - 3/4)/(3/4) in class 2
>>> beta_likeness(df, ["zip"], ["d"])
1.0
>>> BetaLikeness(0.5).holds(df, ["zip"], ["d"]), BetaLikeness(1).holds(df, ["zip"], ["d"])
(False, True)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.models.base import TOLERANCE, Requirements, check_missing_sensitive
from pdanon.models.shares import (AgainstTable, check_positive, frame_classes, pair_shares,
                                  worst_over_columns, worst_per_class)

BETA_VARIANTS = ("basic", "enhanced")


def check_beta_variant(variant) -> str:
    if variant not in BETA_VARIANTS:
        raise InvalidInputError(f"unknown beta-likeness variant {variant!r}; use one of "
                                f"{list(BETA_VARIANTS)}")
    return variant


def _column_beta(classes, j: int, variant: str) -> np.ndarray:
    pairs, q, p = pair_shares(classes, j)
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = (q - p) / p
    # only gains count (q > p): a class holding every value at its table share scores 0
    worst = worst_per_class(gain, pairs.cls, classes.groups, 0.0)
    if variant == "enhanced":
        # a pair above its own cap -ln p breaks enhanced beta-likeness for every beta
        over = gain > -np.log(p) + TOLERANCE
        worst[np.unique(pairs.cls[over])] = np.inf
    return worst


def achieved_beta(classes, variant: str = "basic") -> np.ndarray:
    """The β each class of a :class:`~pdanon.distributions.ClassCounts` achieves (the largest
    over the sensitive columns): its largest relative gain (q − p)/p, 0 when no value is more
    frequent in the class than in the table; for ``"enhanced"``, ``inf`` when some gain
    exceeds its cap −ln p (no β makes the class enhanced-β-like then)."""
    check_beta_variant(variant)
    return worst_over_columns(classes, lambda c, j: _column_beta(c, j, variant),
                              "beta-likeness")


def beta_likeness(df: pd.DataFrame, quasi_identifiers, sensitive, *, variant: str = "basic",
                  missing: str = "value", missing_sensitive: str = "unknown") -> float:
    """The smallest β for which ``df`` satisfies β-likeness (Cao & Karras 2012).

    For a sensitive value with whole-table share p and class share q, the relative gain is
    D = (q − p)/p, counted where q > p.

    * ``"basic"``: the largest D over all classes, values and sensitive columns (0.0 when no
      class holds a value more often than the table, e.g. one class).
    * ``"enhanced"``: the table is enhanced-β-like when every D <= min(β, −ln p). The cap
      −ln p does not depend on β, so the smallest such β is the largest D when every
      D <= −ln p, and ``inf`` (no β) otherwise.

    Missing sensitive values (NaN, None, pd.NA, NaT) are unknown by default
    (``missing_sensitive="unknown"``): q is a value's share of the class's known values, p its
    share of the table's known values, and a class without a known value scores 0;
    ``missing_sensitive="value"`` counts them as one value of their own. Classes
    are formed with a missing quasi-identifier cell as a value of its own
    (``missing="value"``; ``"wildcard"`` forms no classes and is refused). Returns 0.0 for an
    empty frame.

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2, 2, 2], "d": list("abaaab")})
    >>> # table: a 4/6, b 2/6; class 1: b 1/2 -> D = (1/2 - 1/3)/(1/3) = 0.5;
    >>> # class 2: a 3/4 -> D = (3/4 - 2/3)/(2/3) = 0.125
    >>> round(beta_likeness(df, ["zip"], ["d"]), 12)
    0.5
    >>> # caps: -ln(2/3) = 0.405 for a, -ln(1/3) = 1.099 for b: both gains fit
    >>> round(beta_likeness(df, ["zip"], ["d"], variant="enhanced"), 12)
    0.5
    """
    check_beta_variant(variant)
    classes = frame_classes(df, quasi_identifiers, sensitive, missing, "beta-likeness",
                            missing_sensitive)
    if classes is None:
        return 0.0
    return float(achieved_beta(classes, variant).max())


class BetaLikeness(AgainstTable):
    """In every equivalence class and sensitive column, a value's share q exceeds its table
    share p by at most β·p (``variant="basic"``), or by at most min(β, −ln p)·p
    (``"enhanced"``); see :func:`beta_likeness`.

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "b"]})
    >>> BetaLikeness(0.1, variant="enhanced").holds(df, ["zip"], ["d"])
    True
    """

    name = "beta-likeness"

    def __init__(self, beta: float, *, variant: str = "basic",
                 missing_sensitive: str = "unknown"):
        self.beta = check_positive(beta, "beta")
        self.variant = check_beta_variant(variant)
        self.missing_sensitive = check_missing_sensitive(missing_sensitive)

    def __repr__(self) -> str:
        extra = "" if self.variant == "basic" else f", variant={self.variant!r}"
        return f"BetaLikeness(beta={self.beta:g}{extra}{self._rule_repr()})"

    def params(self) -> dict:
        return {"beta": self.beta, "beta_variant": self.variant,
                "missing_sensitive": self.missing_sensitive}

    def requirements(self) -> Requirements:
        # merging two satisfying classes: the union's share of a value is a weighted average
        # of the two shares q1, q2, so (q - p)/p <= max of the two gains; the bound (β, and
        # -ln p for enhanced) depends on the value only, so the union satisfies too
        return Requirements(sensitive=True, merge_monotone=True)

    def classes_ok(self, classes) -> np.ndarray:
        return achieved_beta(self._read(classes), self.variant) <= self.beta + TOLERANCE

    def accepts(self, achieved: dict) -> bool:
        return achieved["beta"] <= self.beta + TOLERANCE

    def achieved(self, classes) -> dict:
        """The largest β of a class (over the sensitive columns) and the variant."""
        if not classes.groups:
            return {}
        return {"beta": float(np.max(achieved_beta(self._read(classes), self.variant))),
                "beta_variant": self.variant}

    def holds(self, df: pd.DataFrame, quasi_identifiers, sensitive=None) -> bool:
        if len(df) == 0:
            return True
        value = beta_likeness(df, quasi_identifiers, sensitive, variant=self.variant,
                              missing_sensitive=self.missing_sensitive)
        return value <= self.beta + TOLERANCE
