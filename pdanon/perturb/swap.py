"""Rank swapping (Moore 1996; sdcMicro's ``rankSwap``): each value is exchanged with the value
of a partner whose rank in the column is close to its own.

Two pairing rules with the same distance bound ``d``: ``rule="blocks"`` (default,
:func:`swap_partners`, vectorized) pairs ranks inside random blocks of ``d + 1``;
``rule="moore"`` (:func:`moore_partners`, sdcMicro's) lets the lowest unswapped rank pick a
partner uniformly among the unswapped ranks up to ``d`` above it, one rank after the other, so
its swaps are longer (mean distance 28.4 ranks against 17.3 at ``d = 50``, about 1.65 times). ``top_percent`` /
``bottom_percent`` (sdcMicro's ``TopPercent`` / ``BottomPercent``) first replace the largest
and smallest values by their mean and leave them out of the swapping.
"""

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


def moore_partners(m: int, distance: int, rng: np.random.Generator) -> np.ndarray:
    """``partner[r]`` for ranks ``0..m-1`` by Moore's rule (sdcMicro's ``rankSwap``): going
    up the ranks, each rank not yet swapped picks its partner uniformly among the ranks not
    yet swapped in ``r + 1 .. r + distance`` and the two exchange their values; a rank with no
    such rank left keeps its value.

    The rule is sequential (a rank's choice depends on every choice below it): this is a loop
    over the ranks, each step one vectorized look at the ``distance`` ranks above it: 0.2 to
    0.4 s per 100,000 values, 5 s for 1,000,000 (``swap_partners`` is the vectorized rule).

    Example
    -------
    >>> partner = moore_partners(10, 2, make_rng(0))
    >>> bool((abs(partner - np.arange(10)) <= 2).all()), bool((partner[partner] == np.arange(10)).all())
    (True, True)
    """
    partner = np.arange(m)
    if m < 2 or distance < 1:
        return partner
    free = np.ones(m, dtype=bool)
    u = rng.random(m)
    for j in range(m - 1):
        if not free[j]:
            continue
        free[j] = False
        cand = np.flatnonzero(free[j + 1:j + 1 + distance])
        if len(cand):
            k = j + 1 + int(cand[int(u[j] * len(cand))])
            free[k] = False
            partner[j], partner[k] = k, j
    return partner


RULES = {"blocks": swap_partners, "moore": moore_partners}


def check_percent(p) -> float:
    if (isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real)
            or not math.isfinite(float(p)) or not 0 <= p <= 100):
        raise InvalidInputError(
            f"p (the largest rank distance, in percent of the column's non-missing values) "
            f"must be a number in [0, 100], got {p!r}"
        )
    return float(p)


def _check_tail(value, name: str) -> float:
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)
            or not math.isfinite(float(value)) or not 0 <= value < 50):
        raise InvalidInputError(f"{name} (the share of the column's values coded to their mean "
                                f"before swapping, in percent) must be a number in [0, 50), "
                                f"got {value!r}")
    return float(value)


def rank_swap_series(series: pd.Series, *, p: float = DEFAULT_PERCENT,
                     rng: np.random.Generator | None = None, rule: str = "blocks",
                     top_percent: float = 0.0,
                     bottom_percent: float = 0.0) -> tuple[pd.Series, dict]:
    """Rank-swap one column; returns ``(new column, details)``.

    With ``m`` non-missing cells, ranked by value (ties in random order), every value is
    exchanged with at most one partner whose rank differs by at most
    ``d = floor(p · m' / 100)`` (``p`` in percent; ``m'`` the cells left after the tails),
    paired by :func:`swap_partners` (``rule="blocks"``) or :func:`moore_partners`
    (``rule="moore"``). With ``top_percent`` / ``bottom_percent`` (sdcMicro's
    ``TopPercent`` / ``BottomPercent``, 0 by default here; sdcMicro's default is 5) the
    ``floor(m · top_percent / 100)`` largest values and the ``floor(m · bottom_percent /
    100)`` smallest are first replaced by their mean (rounded in an integer column, so its
    dtype stays) and not swapped. Otherwise values are only moved between the column's
    non-missing cells: the multiset of values, the missing cells, the dtype, index and name
    are kept. ``details``: ``p``, ``rule``, ``max_rank_distance`` (``d``), ``pairs``,
    ``top_coded``, ``bottom_coded`` and ``cells_changed``.

    Example
    -------
    >>> s = pd.Series([10, 20, None, 30, 40])
    >>> out, d = rank_swap_series(s, p=25, rng=make_rng(0))
    >>> out.tolist(), d["max_rank_distance"], d["pairs"]
    ([20.0, 10.0, nan, 40.0, 30.0], 1, 2)
    >>> out, d = rank_swap_series(pd.Series([1.0, 2, 3, 4, 5, 100]), p=0, top_percent=34,
    ...                           rng=make_rng(0))
    >>> out.tolist(), d["top_coded"]
    ([1.0, 2.0, 3.0, 4.0, 52.5, 52.5], 2)
    """
    rng = make_rng() if rng is None else rng
    p = check_percent(p)
    if rule not in RULES:
        raise InvalidInputError(f"rule must be one of {list(RULES)} (the pairing of ranks), "
                                f"got {rule!r}")
    top_percent = _check_tail(top_percent, "top_percent")
    bottom_percent = _check_tail(bottom_percent, "bottom_percent")
    keys = sort_keys(series)
    m = len(keys)
    rows = np.flatnonzero(series.notna().to_numpy())[np.lexsort((rng.random(m), keys))]
    top = int(math.floor(m * top_percent / 100.0 + 1e-9))
    bottom = int(math.floor(m * bottom_percent / 100.0 + 1e-9))
    if top or bottom:
        _refuse_tails(series)
    middle = rows[bottom:m - top]
    distance = int(math.floor(p * len(middle) / 100.0 + 1e-9))
    partner = RULES[rule](len(middle), distance, rng)
    take = np.arange(len(series))
    take[middle] = middle[partner]
    out = take_rows(series, take)
    moved = middle[partner != np.arange(len(middle))]
    changed = _changed(series, take, moved)
    for tail in (rows[:bottom], rows[m - top:]):
        if len(tail):
            out, count = _to_mean(out, series, tail)
            changed += count
    return out, {"p": p, "rule": rule, "max_rank_distance": distance,
                 "pairs": int(len(moved) // 2), "top_coded": top, "bottom_coded": bottom,
                 "cells_changed": changed}


def _refuse_tails(series: pd.Series) -> None:
    if not pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(
            series.dtype):
        raise KindError(f"column {series.name!r} has dtype {series.dtype}: top_percent / "
                        f"bottom_percent replace the tails by their mean, which needs numbers")


def _to_mean(out: pd.Series, original: pd.Series, rows: np.ndarray):
    """``out`` with the cells ``rows`` set to the mean of their original values (rounded in
    an integer column); and how many of them changed."""
    values = original.iloc[rows].to_numpy(dtype=np.float64)
    mean = float(values.mean())
    if pd.api.types.is_integer_dtype(original.dtype):
        mean = float(np.rint(mean))
    out = out.copy()
    out.iloc[rows] = mean
    return out, int((values != mean).sum())


def _changed(series: pd.Series, take: np.ndarray, moved: np.ndarray) -> int:
    """Moved cells whose value differs from the one they receive (equal values may swap)."""
    if len(moved) == 0:
        return 0
    a = series.iloc[moved].to_numpy()
    b = series.iloc[take[moved]].to_numpy()
    return int((a != b).sum())
