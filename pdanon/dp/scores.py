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

__all__ = ["QUALITIES", "SELECTION_QUALITIES", "SLOPE", "classification_score", "score", "selection_score"]

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


#: How fast :func:`selection_score` stops counting a class of k or more expected rows as
#: withheld (per expected row; at most 1, so that one row moves the score within a range of
#: 1 + SLOPE times its share β).
SLOPE = 0.5
#: The qualities ``search="all"`` ranks nodes by (:func:`selection_score`); the exponential
#: mechanism draws with exp(ε · score) for them (a range of 1: docs/differential_privacy.md).
SELECTION_QUALITIES = ("loss", "precision")


def selection_score(quality: str, *, counts: np.ndarray, cost: np.ndarray, n: int, k: int,
                    columns: int, beta: float, suppress_all: bool = False) -> float:
    """The score ``search="all"`` ranks every lattice node by, computed on the **input**
    (not the sample, which is drawn independently of the choice): the cost the release
    would have, pessimistically, if each class of ``c`` input rows gave ``μ = β·c`` sampled
    rows. A class whose cells cost ``w`` (summed over the ``d`` = ``columns`` columns, each
    in [0, 1]) costs ``μ·w + (d − w)·g(μ)``, and every row outside the sample ``d``, where
    ``g(μ)``, the rows counted as withheld, is ``μ`` below k − 1 and then falls by
    :data:`SLOPE` per expected row, ``max(0, (k − 1) − SLOPE·(μ − k + 1))``. The total is
    ``d·n − Σ (d − w)·(μ − g(μ))`` (a class with μ < k − 1 adds nothing to the sum, so
    ``counts`` may hold only the others), divided by ``(1 + SLOPE)·β·d``.

    One more input row adds ``d`` and takes off ``(d − w)`` times the growth of
    ``μ − g(μ)`` in its class, which lies in [0, (1 + SLOPE)·β]: the total moves by an amount
    in [d − (1 + SLOPE)·β·d, d], the same interval for every node (the all-top node, every
    row withheld, moves by d). Divided as above every score moves within one interval of
    width 1, so the exponential mechanism draws with exp(ε · score) (``spread=1`` in
    :func:`pdanon.dp.mechanism.selection_probabilities`). At β = 1 the score is never better
    than :func:`score` and equals it for classes under k or of at least 3·(k − 1) rows.

    >>> counts, cost = np.array([3, 8, 20]), np.array([1.0, 0.5, 0.0])
    >>> # mu = 1.5, 4, 10; g = 1.5, 4, 1: only the third class counts, 2·42 - 2·9 = 66
    >>> selection_score("loss", counts=counts, cost=cost, n=42, k=5, columns=2, beta=0.5)
    -44.0
    """
    if quality not in SELECTION_QUALITIES:
        raise InvalidInputError(
            f"search='all' ranks nodes for quality in {list(SELECTION_QUALITIES)}, not "
            f"{quality!r}: use search='walk' (or leave search= unset) for {quality!r}")
    if not 0.0 < beta <= 1.0:
        raise InvalidInputError(f"beta must lie in (0, 1], got {beta!r}")
    d = float(columns)
    if suppress_all:
        return -n / ((1.0 + SLOPE) * beta)
    mu = beta * counts.astype(np.float64)
    g = np.where(mu < k - 1, mu, np.maximum(0.0, (k - 1) - SLOPE * (mu - (k - 1))))
    total = d * n - float(np.dot(d - cost, mu - g))
    return -total / ((1.0 + SLOPE) * beta * d)


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
