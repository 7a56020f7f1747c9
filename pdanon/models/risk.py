"""Re-identification risk thresholds as privacy models (ARX's "highest risk" and "average
risk" models; El Emam & Dankar 2008).

The prosecutor risk of a published row is 1 / (size of its class)
(:mod:`pdanon.metrics.reidentification`, where ``risk_summary`` measures it):

* :class:`HighestRisk` (``max_risk=r``): every row's risk is at most ``r``, i.e. every class
  has at least ``ceil(1/r)`` rows -- exactly k-anonymity with that k, which every partitioner
  enforces. ARX lets the effective risk exceed ``r`` by up to 1 % (its
  ``ParameterTranslation``); pdanon never does.
* :class:`AverageRisk`: the average risk of the published rows, ``classes / rows``, is at
  most ``threshold`` -- a condition on the whole table (``table_ok``), not on each class, so
  only the optimal lattice search enforces it. Optionally also a highest risk, which
  ``records_at_risk`` may relax (the share of published rows in classes smaller than
  ``ceil(1/max_risk)``, as ARX's relaxed variant).

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"age": [1, 1, 2, 2, 2, 3, 3, 3, 3]})
>>> HighestRisk(0.5).holds(df, ["age"]), HighestRisk(0.4).holds(df, ["age"])
(True, False)
>>> AverageRisk(1 / 3).holds(df, ["age"])
True
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from pdanon._errors import InvalidInputError
from pdanon.models.anonymity import KAnonymity
from pdanon.models.base import TOLERANCE, PrivacyModel, Requirements


def _check_risk(value, name: str, *, zero: bool = False) -> float:
    low_ok = (lambda v: v >= 0) if zero else (lambda v: v > 0)
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or math.isnan(float(value)) or not low_ok(float(value)) or float(value) > 1):
        interval = "[0, 1]" if zero else "(0, 1]"
        raise InvalidInputError(
            f"{name} is a probability of re-identification in {interval} (0.2: at most one "
            f"chance in 5), got {value!r}")
    return float(value)


def size_threshold(max_risk: float) -> int:
    """The smallest class size whose prosecutor risk is at most ``max_risk``:
    ``ceil(1 / max_risk)`` (a hair of tolerance absorbs float noise, so 1/0.2 is 5).

    Example
    -------
    >>> size_threshold(0.2), size_threshold(0.3), size_threshold(1.0)
    (5, 4, 1)
    """
    r = _check_risk(max_risk, "max_risk")
    return max(1, math.ceil(1.0 / r - 1e-9))


class HighestRisk(KAnonymity):
    """Every published row's prosecutor risk is at most ``max_risk``: k-anonymity with
    ``k = ceil(1 / max_risk)`` (ARX's "highest re-identification risk").

    Example
    -------
    >>> HighestRisk(0.3)
    HighestRisk(max_risk=0.3, k=4)
    """

    name = "highest-risk"

    def __init__(self, max_risk: float):
        self.max_risk = _check_risk(max_risk, "max_risk")
        super().__init__(size_threshold(self.max_risk))

    def __repr__(self) -> str:
        return f"HighestRisk(max_risk={self.max_risk}, k={self.k})"

    def params(self) -> dict:
        return {"max_risk": self.max_risk, "k": self.k}

    def achieved(self, classes) -> dict:
        out = super().achieved(classes)
        out["highest_risk"] = 1.0 / out["k"] if out["k"] else 0.0
        return out


class AverageRisk(PrivacyModel):
    """The average prosecutor risk of the published rows, ``classes / rows``, is at most
    ``threshold`` (ARX's ``AverageReidentificationRisk``; suppressed rows are not
    published and count in neither). With ``max_risk``: also every class has at least
    ``ceil(1/max_risk)`` rows, or, with ``records_at_risk=f > 0``, at most a share ``f`` of
    the published rows lies in smaller classes. A table of suppressed rows only meets it.
    Only ``algorithm="optimal"`` enforces it (a table-level condition).

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [1, 1, 2, 2, 3]})
    >>> AverageRisk(0.6).holds(df, ["age"]), AverageRisk(0.6, max_risk=0.5).holds(df, ["age"])
    (True, False)
    >>> AverageRisk(0.6, max_risk=0.5, records_at_risk=0.2).holds(df, ["age"])
    True
    """

    name = "average-risk"

    def __init__(self, threshold: float, *, max_risk: float | None = None,
                 records_at_risk: float = 0.0):
        self.threshold = _check_risk(threshold, "threshold")
        self.max_risk = None if max_risk is None else _check_risk(max_risk, "max_risk")
        self.records_at_risk = _check_risk(records_at_risk, "records_at_risk", zero=True)
        if self.max_risk is None and self.records_at_risk:
            raise InvalidInputError(
                "records_at_risk= is the share of rows allowed above max_risk=; pass max_risk")
        self.min_size = 1 if self.max_risk is None else size_threshold(self.max_risk)

    def __repr__(self) -> str:
        extra = "" if self.max_risk is None else f", max_risk={self.max_risk}"
        if self.records_at_risk:
            extra += f", records_at_risk={self.records_at_risk}"
        return f"AverageRisk(threshold={self.threshold}{extra})"

    def params(self) -> dict:
        out = {"average_risk": self.threshold}
        if self.max_risk is not None:
            out.update(max_risk=self.max_risk, records_at_risk=self.records_at_risk)
        return out

    def _per_class(self) -> bool:
        return self.max_risk is not None and not self.records_at_risk

    def requirements(self) -> Requirements:
        # merging classes lowers classes / rows; the per-class part is k-anonymity
        return Requirements(min_size=self.min_size if self._per_class() else 1,
                            merge_monotone=True, table=True)

    def classes_ok(self, classes) -> np.ndarray:
        if self._per_class():
            return classes.sizes >= self.min_size
        return np.ones(classes.groups, dtype=bool)

    def table_ok(self, classes) -> bool:
        sizes = classes.sizes[classes.sizes > 0]
        rows = int(sizes.sum())
        if rows == 0:
            return True
        if len(sizes) / rows > self.threshold + TOLERANCE:
            return False
        if self.max_risk is not None:
            small = int(sizes[sizes < self.min_size].sum())
            return small / rows <= self.records_at_risk + TOLERANCE
        return True

    def accepts(self, achieved: dict) -> bool:
        ok = achieved["average_risk"] <= self.threshold + TOLERANCE
        if self._per_class():
            ok = ok and achieved["k"] >= self.min_size
        return ok

    def achieved(self, classes) -> dict:
        """The average prosecutor risk of the published rows (classes / rows)."""
        sizes = classes.sizes[classes.sizes > 0]
        rows = int(sizes.sum())
        return {"average_risk": len(sizes) / rows if rows else 0.0}

