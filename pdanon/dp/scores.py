"""The score functions of SafePub's search, each divided by its sensitivity (so that the
exponential mechanism draws with exp(ε · score / 2)). Higher is better. Every one is
computed on the sample, for a lattice node's classes with ``k`` applied: a class of fewer
than ``k`` sampled rows is suppressed, and so is a class generalized to the single top node
of every column; ``n`` is the number of input rows (the rows not sampled count as
suppressed). The sensitivities are SafePub's (Bild, Kuhn & Prasser 2018; as ARX implements
them), for neighbouring tables that differ by one row:

* ``"loss"`` (granularity): per column, a kept row costs its cell's generalized
  information loss in [0, 1], read off the hierarchy alone
  (:func:`pdanon.partition.safepub.public_loss_costs`), and a suppressed
  row 1; the sum over the d columns changes by at most d·max(k - 1, 1) when one row comes or
  goes (a class that reaches k brings k rows back, each saving at most 1 per column; a row
  that stays suppressed adds 1).
* ``"precision"``: the same with a cell costing level / height.
* ``"discernibility"``: -(n · suppressed + Σ |class|²) over the kept classes, divided by
  n · (k² / (k - 1) + 1) (5 · n for k = 1).
* ``"group_size"``: the number of kept classes, plus one when some row is suppressed;
  sensitivity 1.
* ``"classification"`` (:func:`classification_score`): how well the other columns predict
  each ``target`` column — per target, the kept classes merged on every other column, the
  sampled rows of each merged group's most frequent target cell counted, weighted by
  1 - level / height of the target; divided by k times the number of targets (one row can
  bring a class of k rows back).

Example
-------
>>> import numpy as np
>>> score("group_size", counts=np.array([5, 2, 6]), cost=np.zeros(3), n=20, k=5, columns=2)
3.0
"""

from __future__ import annotations

import numpy as np

from pdanon._errors import InvalidInputError

__all__ = ["QUALITIES", "classification_score", "score"]

QUALITIES = ("loss", "precision", "discernibility", "group_size", "classification")


def score(quality: str, *, counts: np.ndarray, cost: np.ndarray, n: int, k: int,
          columns: int, suppress_all: bool = False) -> float:
    """The sensitivity-normalized score of a node whose classes hold ``counts`` sampled rows
    and whose cells cost ``cost`` per row of each class (summed over the ``columns``
    quasi-identifiers; ``"loss"`` and ``"precision"`` only). ``suppress_all``: every class
    is generalized to the top of every column (suppressed)."""
    if quality not in QUALITIES:
        raise InvalidInputError(f"unknown quality {quality!r}; use one of {list(QUALITIES)}")
    kept = _kept(counts, k, suppress_all)
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


def _kept(counts: np.ndarray, k: int, suppress_all: bool) -> np.ndarray:
    """Per class: is it published (at least ``k`` sampled rows, and not the all-top class)?"""
    return np.zeros(len(counts), dtype=bool) if suppress_all else counts >= k


def classification_score(*, counts: np.ndarray, codes: list, targets, levels, heights,
                         k: int, suppress_all: bool = False) -> float:
    """The ``"classification"`` score (module docstring) of a node whose classes hold
    ``counts`` sampled rows and node ``codes`` (one array per column); ``targets`` are
    column positions, ``levels`` / ``heights`` per column.

    >>> counts = np.array([6, 5, 2])           # sampled rows per class
    >>> codes = [np.array([0, 0, 1]),          # a feature column
    ...          np.array([0, 1, 0])]          # the target column, ungeneralized
    >>> classification_score(counts=counts, codes=codes, targets=[1], levels=[0, 0],
    ...                      heights=[1, 1], k=5)  # one merged group, its top cell holds 6
    1.2
    """
    if not len(targets):
        raise InvalidInputError("quality='classification' needs at least one target column")
    from pdanon._groups import combine_codes

    kept = _kept(counts, k, suppress_all)
    total = 0.0
    if kept.any():
        weights = counts[kept].astype(np.float64)
        rows = len(weights)
        for t in targets:
            weight = 1.0 - levels[t] / heights[t] if heights[t] else 1.0
            if weight <= 0:
                continue
            group = combine_codes([codes[c][kept] for c in range(len(codes)) if c != t], rows)
            pair = combine_codes([group, codes[t][kept]], rows)
            per_pair = np.bincount(pair, weights=weights)
            pair_group = np.zeros(len(per_pair), dtype=np.int64)
            pair_group[pair] = group
            top = np.zeros(int(group.max()) + 1)
            np.maximum.at(top, pair_group, per_pair)
            total += weight * float(top.sum())
    return total / (max(k, 1) * len(targets))
