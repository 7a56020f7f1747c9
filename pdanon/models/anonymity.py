"""k-anonymity: every equivalence class has at least k rows (Sweeney 2002).

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

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon._groups import check_missing, frequencies
from pdanon.models.base import PrivacyModel, Requirements, check_int, check_qis


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
    qis = check_qis(df, quasi_identifiers)
    if len(df) == 0:
        return 0
    return int(frequencies(df, qis, missing=missing).min())



class KAnonymity(PrivacyModel):
    """Every equivalence class has at least ``k`` rows."""

    name = "k-anonymity"

    def __init__(self, k: int):
        self.k = check_int(k, "k")

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


