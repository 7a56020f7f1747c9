"""The score functions of SafePub's search, each divided by its sensitivity (so that the
exponential mechanism draws with exp(ε · score / 2)). Higher is better. Every one is
computed on the sample, for a lattice node's classes with ``k`` applied: a class of fewer
than ``k`` sampled rows is suppressed, and so is a class generalized to the single top node
of every column; ``n`` is the number of input rows (the rows not sampled count as
suppressed). The sensitivities are SafePub's (Bild, Kuhn & Prasser 2018, section 5), for
neighbouring tables that differ by one row:

* ``"loss"`` (granularity): per column, a kept row costs its cell's generalized
  information loss in [0, 1] (:func:`pdanon.partition.optimal._loss_costs`) and a suppressed
  row 1; the sum over the d columns changes by at most d·max(k - 1, 1) when one row comes or
  goes (a class that reaches k brings k rows back, each saving at most 1 per column; a row
  that stays suppressed adds 1).
* ``"precision"``: the same with a cell costing level / height.
* ``"discernibility"``: -(n · suppressed + Σ |class|²) over the kept classes, divided by
  n · (k² / (k - 1) + 1) (5 · n for k = 1).
* ``"group_size"``: the number of kept classes, plus one when some row is suppressed;
  sensitivity 1.

Example
-------
>>> import numpy as np
>>> score("group_size", counts=np.array([5, 2, 6]), cost=np.zeros(3), n=20, k=5, columns=2)
3.0
"""

from __future__ import annotations

import numpy as np

from pdanon._errors import InvalidInputError

__all__ = ["QUALITIES", "score"]

QUALITIES = ("loss", "precision", "discernibility", "group_size")


def score(quality: str, *, counts: np.ndarray, cost: np.ndarray, n: int, k: int,
          columns: int, suppress_all: bool = False) -> float:
    """The sensitivity-normalized score of a node whose classes hold ``counts`` sampled rows
    and whose cells cost ``cost`` per row of each class (summed over the ``columns``
    quasi-identifiers; ``"loss"`` and ``"precision"`` only). ``suppress_all``: every class
    is generalized to the top of every column (suppressed)."""
    if quality not in QUALITIES:
        raise InvalidInputError(f"unknown quality {quality!r}; use one of {list(QUALITIES)}")
    kept = counts >= k
    if suppress_all:
        kept = np.zeros_like(kept)
    kept_rows = int(counts[kept].sum())
    suppressed = n - kept_rows
    if quality in ("loss", "precision"):
        total = float(np.dot(counts[kept], cost[kept])) + columns * suppressed
        return -total / (columns * max(k - 1, 1))
    if quality == "discernibility":
        c = counts[kept].astype(np.float64)
        total = float(n) * suppressed + float(np.dot(c, c))
        scale = float(n) * (k * k / (k - 1) + 1.0) if k > 1 else 5.0 * n
        return -total / scale
    return float(int(kept.sum()) + (1 if suppressed > 0 else 0))
