"""δ-disclosure privacy: in every equivalence class, every sensitive value's share q stays
within a factor e^δ of its whole-table share p, |ln(q/p)| < δ (Brickell & Shmatikov, "The
cost of privacy: destruction of data-mining utility in anonymized data publishing", KDD
2008). A value of the table that is absent from a class (q = 0) breaks it for every δ.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "b"]})
>>> delta_disclosure(df, ["zip"], ["d"])
0.0
>>> DeltaDisclosure(0.1).holds(df, ["zip"], ["d"])
True
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon.models.base import TOLERANCE, Requirements, check_missing_sensitive
from pdanon.models.shares import (AgainstTable, check_positive, frame_classes, pair_shares,
                                  worst_over_columns, worst_per_class)


def _column_delta(classes, j: int) -> np.ndarray:
    pairs, q, p = pair_shares(classes, j)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.abs(np.log(q / p))
    worst = worst_per_class(ratio, pairs.cls, classes.groups, 0.0)
    # a value of the table missing from a class has q = 0 and |ln 0| = inf
    in_table = int(np.count_nonzero(classes.columns[j].global_counts))
    distinct = np.bincount(pairs.cls, minlength=classes.groups)
    worst[distinct < in_table] = np.inf
    if classes.known_only:  # a class without a known value shows nothing of the column
        worst[classes.blank(j)] = 0.0
    return worst


def achieved_delta(classes) -> np.ndarray:
    """The δ each class of a :class:`~pdanon.distributions.ClassCounts` reaches: the largest
    |ln(q/p)| over its values and the sensitive columns, ``inf`` when it lacks a value of the
    table (the class is δ-disclosure-private for every δ above this)."""
    return worst_over_columns(classes, _column_delta, "delta-disclosure privacy")


def delta_disclosure(df: pd.DataFrame, quasi_identifiers, sensitive, *,
                     missing: str = "value", missing_sensitive: str = "unknown") -> float:
    """The δ ``df`` reaches for δ-disclosure privacy (Brickell & Shmatikov 2008): the largest
    |ln(q/p)| over all equivalence classes, sensitive columns and values of the table, q the
    value's share of the class and p its share of the table (natural logarithm). The table is
    δ-disclosure-private exactly for the δ *above* this value (the definition is strict,
    |ln(q/p)| < δ); ``inf`` when some class lacks a value of the table.

    Missing sensitive values (NaN, None, pd.NA, NaT) are unknown by default
    (``missing_sensitive="unknown"``): q and p are shares of the known values of the class
    and of the table, the values of the table are its known values, and a class without a
    known value reaches 0; ``missing_sensitive="value"`` counts them as one value of their
    own. Classes
    are formed with a missing quasi-identifier cell as a value of its own
    (``missing="value"``; ``"wildcard"`` is refused). Returns 0.0 for an empty frame.

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2, 2, 2], "d": list("abaaab")})
    >>> # table: a 4/6, b 2/6; class 1: a 1/2, b 1/2 -> |ln(3/4)| = 0.288, ln(3/2) = 0.405;
    >>> # class 2: a 3/4, b 1/4 -> ln(9/8) = 0.118, |ln(3/4)| = 0.288
    >>> round(delta_disclosure(df, ["zip"], ["d"]), 6)
    0.405465
    >>> delta_disclosure(pd.DataFrame({"zip": [1, 1, 2], "d": list("aab")}), ["zip"], ["d"])
    inf
    """
    classes = frame_classes(df, quasi_identifiers, sensitive, missing,
                            "delta-disclosure privacy", missing_sensitive)
    if classes is None:
        return 0.0
    return float(achieved_delta(classes).max())


class DeltaDisclosure(AgainstTable):
    """In every equivalence class and sensitive column, every value of the table has
    |ln(q/p)| < δ (strict; see :func:`delta_disclosure`). A value within
    :data:`~pdanon.models.TOLERANCE` of δ counts as equal to it, so it fails.

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    >>> DeltaDisclosure(1.0).holds(df, ["zip"], ["d"])  # class 2 has no b
    False
    """

    name = "delta-disclosure privacy"

    def __init__(self, delta: float, *, missing_sensitive: str = "unknown"):
        self.delta = check_positive(delta, "delta")
        self.missing_sensitive = check_missing_sensitive(missing_sensitive)

    def __repr__(self) -> str:
        return f"DeltaDisclosure(delta={self.delta!r}{self._rule_repr()})"

    def params(self) -> dict:
        return {"delta": self.delta, "missing_sensitive": self.missing_sensitive}

    def requirements(self) -> Requirements:
        # merging two satisfying classes: both hold every value with e^-δ < q/p < e^δ; the
        # union's share is a weighted average of the two, so it lies between them and within
        # the same bounds. (Implementations that skip the values absent from a class, such as
        # ARX and pycanon, lose this property.)
        return Requirements(sensitive=True, merge_monotone=True)

    def _accept(self, value):
        return value < self.delta - TOLERANCE

    def classes_ok(self, classes) -> np.ndarray:
        return self._accept(achieved_delta(self._read(classes)))

    def accepts(self, achieved: dict) -> bool:
        return bool(self._accept(achieved["delta"]))

    def achieved(self, classes) -> dict:
        """The largest |ln(q/p)| of a class (``inf`` when a class lacks a value)."""
        if not classes.groups:
            return {}
        return {"delta": float(np.max(achieved_delta(self._read(classes))))}

    def holds(self, df: pd.DataFrame, quasi_identifiers, sensitive=None) -> bool:
        if len(df) == 0:
            return True
        return bool(self._accept(delta_disclosure(df, quasi_identifiers, sensitive,
                                                  missing_sensitive=self.missing_sensitive)))
