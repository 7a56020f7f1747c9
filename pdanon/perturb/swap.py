"""Rank swapping (Moore 1996; sdcMicro's ``rankSwap``): each value is exchanged with the value
of a partner whose rank in the column is close to its own."""

from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError
from pdanon.perturb.randomness import make_rng
from pdanon.perturb.shuffle import take_rows

DEFAULT_PERCENT = 5.0


def sort_keys(series: pd.Series) -> np.ndarray:
    """Numbers that sort the column's non-missing cells as its values do: the values of a
    numeric column, the codes of an ordered Categorical, the nanoseconds of datetimes."""
    dtype = series.dtype
    valid = series.notna().to_numpy()
    if isinstance(dtype, pd.CategoricalDtype):
        if not dtype.ordered:
            raise KindError(
                f"column {series.name!r} is an unordered Categorical; rank swapping needs an "
                "order: make it ordered (series.cat.as_ordered()) or leave it out"
            )
        return np.asarray(series.cat.codes.to_numpy()[valid], dtype=np.float64)
    if pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype):
        return series[valid].to_numpy().view(np.int64).astype(np.float64)
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
        raise KindError(
            f"column {series.name!r} has dtype {dtype}; rank swapping needs numbers, dates or "
            "an ordered Categorical: convert it or leave it out"
        )
    return series.to_numpy(dtype=np.float64, na_value=np.nan)[valid]


def swap_partners(m: int, distance: int, rng: np.random.Generator) -> np.ndarray:
    """``partner[r]`` for ranks ``0..m-1``: a random pairing in which ``|r − partner[r]| <=
    distance`` (a rank without a partner is its own).

    The rule: ranks are cut into blocks of ``distance + 1`` consecutive ranks, the first block
    shortened by a uniform random offset in ``0..distance`` (so block borders fall anywhere);
    inside each block the ranks are put in a uniformly random order and paired two by two (an
    odd block leaves one rank unpaired). Every rank is in at most one pair.

    Example
    -------
    >>> partner = swap_partners(10, 2, make_rng(0))
    >>> bool((abs(partner - np.arange(10)) <= 2).all()), bool((partner[partner] == np.arange(10)).all())
    (True, True)
    """
    ranks = np.arange(m)
    partner = ranks.copy()
    width = distance + 1
    if m < 2 or width < 2:
        return partner
    offset = int(rng.integers(0, width))
    block = (ranks + offset) // width
    order = np.lexsort((rng.random(m), block))       # ranks grouped by block, random inside
    start = np.searchsorted(block, block[order])       # first rank of each one's block
    pos = ranks - start                                # position inside its block
    first = np.flatnonzero((pos % 2 == 0)[:-1] & (block[order[1:]] == block[order[:-1]]))
    a, b = order[first], order[first + 1]
    partner[a], partner[b] = b, a
    return partner


def check_percent(p) -> float:
    if (isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real)
            or not math.isfinite(float(p)) or not 0 <= p <= 100):
        raise InvalidInputError(
            f"p (the largest rank distance, in percent of the column's non-missing values) "
            f"must be a number in [0, 100], got {p!r}"
        )
    return float(p)


def rank_swap_series(series: pd.Series, *, p: float = DEFAULT_PERCENT,
                     rng: np.random.Generator | None = None) -> tuple[pd.Series, dict]:
    """Rank-swap one column; returns ``(new column, details)``.

    With ``m`` non-missing cells, ranked by value (ties in random order), every value is
    exchanged with at most one partner whose rank differs by at most
    ``d = floor(p · m / 100)`` (``p`` in percent), paired by :func:`swap_partners`. The
    column's values are only moved between its non-missing cells: the multiset of values,
    the missing cells, the dtype, index and name are kept. ``details``: ``p``,
    ``max_rank_distance`` (``d``), ``pairs`` and ``cells_changed``.

    Example
    -------
    >>> s = pd.Series([10, 20, None, 30, 40])
    >>> out, d = rank_swap_series(s, p=25, rng=make_rng(0))
    >>> out.tolist(), d["max_rank_distance"], d["pairs"]
    ([20.0, 10.0, nan, 40.0, 30.0], 1, 2)
    """
    rng = make_rng() if rng is None else rng
    p = check_percent(p)
    keys = sort_keys(series)
    m = len(keys)
    distance = int(math.floor(p * m / 100.0 + 1e-9))
    rows = np.flatnonzero(series.notna().to_numpy())[np.lexsort((rng.random(m), keys))]
    partner = swap_partners(m, distance, rng)
    take = np.arange(len(series))
    take[rows] = rows[partner]
    out = take_rows(series, take)
    paired = partner != np.arange(m)
    return out, {"p": p, "max_rank_distance": distance, "pairs": int(paired.sum() // 2),
                 "cells_changed": _changed(series, take, rows[paired])}


def _changed(series: pd.Series, take: np.ndarray, moved: np.ndarray) -> int:
    """Moved cells whose value differs from the one they receive (equal values may swap)."""
    if len(moved) == 0:
        return 0
    a = series.iloc[moved].to_numpy()
    b = series.iloc[take[moved]].to_numpy()
    return int((a != b).sum())
