"""Published bounds: no range a release publishes ends on one person's value.

A range cell ``[lo, hi]`` read off the rows of a class (Mondrian, nearest, group_join: local
recoding) ends on values of the data, and the extremes of a column are usually held by one
person each: a class ``[67, 103]`` says that someone in the table is 103, and to whoever knows
the oldest participant, that he is in this class. The rule, applied to every range a local
recoding publishes and to the ranges a global recoding reads off the data (Datafly's and
equal groups' value groups, optimal's ``*`` of a column without a hierarchy:
``Recoded.data_bounds``) by :func:`pdanon.engine.anonymize`, and per part on Dask with the
whole column's counts (:func:`widen_published`):

* a bound held by ``k`` or more rows of the whole column stays (it is no one's own value);
* a bound held by 1 .. k-1 rows moves outward to the nearer of: the closest value held by at
  least ``k`` rows of the column, and the grid point at or beyond it. The grid of numbers is
  the multiples of :func:`round_step` (the largest power of ten within the column's spread:
  10 for ages), the grid of dates the years' first and last days (the months' when the
  column spans less than :data:`MONTHS_BELOW_DAYS`: dates of one year would all end on its
  first and last day and merge into one class). A grid point is published
  for every bound between it and the next point, so it tells no more than that interval, even
  where it is someone's value itself. The extremes of a column, held by few, so end on the grid
  (an oldest participant of 103 gives ``[.., 110]``);
* an ordered column whose order a Categorical declares (its categories are the domain, as
  the publisher states it) has the grid of :func:`category_blocks`: its declared categories
  cut, in order, into consecutive blocks of at least ``k`` rows; a rare bound moves outward
  to the nearer of the closest common category and its block's first (last) category. With
  no common category (unique values) every class so still publishes a range in the declared
  order, never a withheld cell nor one class of everything. An ordered column without
  declared categories has no grid (each category is a value someone holds): a rare bound
  moves to the closest common category outward, else the cell is withheld (published
  missing: its ``*``); declare the order with ``pd.Categorical(..., ordered=True)``.

Widening only makes cells larger: every cell still holds its rows' values, every class keeps
its rows, and two classes whose cells become equal merge into one (the engine verifies the
model on the published classes afterwards, as always). ``options={"exact_bounds": True}``
keeps the exact bounds, with an :class:`ExactBoundsWarning`, and ``info["bounds"]`` records
which rule was applied. Hierarchies follow the same rule at their top
(:mod:`pdanon.hierarchy.rules`); their bands and calendar units are a grid of their own.

Example
-------
>>> import pandas as pd
>>> from pdanon.dtype import GeneralizationArray
>>> ages = pd.Series([20, 20, 30, 30, 41, 99])          # 99 and 41: one person each
>>> cells = pd.Series(GeneralizationArray.from_bounds([20, 20, 30, 30, 30, 30],
...                                                   [30, 30, 99, 99, 99, 99], kind="real"))
>>> widened, n = widen_published(cells, ages, 2)
>>> widened.astype(str).tolist(), n
(['[20, 30]', '[20, 30]', '[30, 100]', '[30, 100]', '[30, 100]', '[30, 100]'], 4)
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["ExactBoundsWarning", "MONTHS_BELOW_DAYS", "round_step", "grid_outside",
           "decade_grid", "month_boundary", "year_boundary", "category_blocks",
           "widen_published"]


#: a date column spanning fewer days than this widens rare bounds to month boundaries
MONTHS_BELOW_DAYS = 3 * 365


class ExactBoundsWarning(UserWarning):
    """A release publishes ranges whose bounds are exact values of the data, some held by
    fewer than k rows (``options={"exact_bounds": True}``): such a bound can be one person's
    value (the oldest participant's age). See :mod:`pdanon.recode.bounds`."""


def round_step(lo: float, hi: float) -> float:
    """The grid step for values spread over ``[lo, hi]``: the largest power of ten not above
    the spread (1 when all are equal and 0).

    >>> round_step(17, 90), round_step(0.2, 0.9), round_step(5, 5)
    (10.0, 0.1, 1.0)
    """
    spread = float(hi) - float(lo)
    if not spread > 0:
        spread = max(abs(float(lo)), abs(float(hi)))
    if not spread > 0 or not math.isfinite(spread):
        return 1.0
    return float(10.0 ** math.floor(math.log10(spread)))


def grid_outside(lo: float, hi: float, step: float | None = None) -> tuple[float, float]:
    """Grid bounds strictly outside ``[lo, hi]`` (the column's least and greatest values):
    ``lo`` rounded down and ``hi`` rounded up to multiples of ``step`` (:func:`round_step` by
    default), one step further when the rounding lands on the value itself.

    >>> grid_outside(17, 90), grid_outside(20, 90)
    ((10.0, 100.0), (10.0, 100.0))
    """
    step = round_step(lo, hi) if step is None else float(step)
    a = math.floor(lo / step) * step
    b = math.ceil(hi / step) * step
    if a >= lo:
        a -= step
    if b <= hi:
        b += step
    return _tidy(a, step), _tidy(b, step)


def _tidy(x: float, step: float) -> float:
    """``x`` without float noise (0.30000000000000004 -> 0.3)."""
    digits = max(0, -int(math.floor(math.log10(step)))) if step < 1 else 0
    return float(round(x, digits + 1))


def decade_grid(first: pd.Timestamp, last: pd.Timestamp, years: int = 10):
    """The first day of the decade (``years``) at or before ``first`` and the last day of the
    one at or after ``last``, one unit further when a bound would be the date itself (at the
    dates' unit and time zone).

    >>> a, b = decade_grid(pd.Timestamp("1924-07-09"), pd.Timestamp("2009-06-29"))
    >>> str(a.date()), str(b.date())
    ('1920-01-01', '2009-12-31')
    >>> a, b = decade_grid(pd.Timestamp("1920-01-01"), pd.Timestamp("2009-12-31"))
    >>> str(a.date()), str(b.date())
    ('1910-01-01', '2019-12-31')
    """
    y0 = (first.year // years) * years
    y1 = (last.year // years) * years + years - 1
    a = pd.Timestamp(year=y0, month=1, day=1, tz=first.tz)
    b = pd.Timestamp(year=y1, month=12, day=31, tz=last.tz)
    if a >= first:
        a = pd.Timestamp(year=y0 - years, month=1, day=1, tz=first.tz)
    if b <= last:
        b = pd.Timestamp(year=y1 + years, month=12, day=31, tz=last.tz)
    return a, b


def _counts(original: pd.Series):
    """The column's distinct non-missing values (sorted) and how many rows hold each."""
    vc = original.dropna().value_counts(sort=False)
    vc = vc.sort_index()
    return vc.index, vc.to_numpy(dtype=np.int64)


def _sorted_counts(values, counts):
    """Given ``(values, counts)`` without missing values, sorted by value."""
    values = pd.Index(values)
    counts = np.asarray(counts, dtype=np.int64)
    keep = np.asarray(values.notna(), dtype=bool) & (counts > 0)
    values, counts = values[keep], counts[keep]
    order = values.argsort()
    return values[order], counts[order]


def _outward(bound: np.ndarray, common: np.ndarray, up: bool):
    """Per bound: the nearest common value (``common``, sorted) at or beyond it (below for a
    lower bound, above for ``up``), and whether there is one."""
    if up:
        j = np.searchsorted(common, bound, side="left")
        ok = j < len(common)
        return np.where(ok, common[np.minimum(j, max(len(common) - 1, 0))] if len(common)
                        else bound, bound), ok
    j = np.searchsorted(common, bound, side="right") - 1
    ok = j >= 0
    return np.where(ok, common[np.maximum(j, 0)] if len(common) else bound, bound), ok


def widen_published(new: pd.Series, original: pd.Series, k: int, *,
                    counts: tuple | None = None) -> tuple[pd.Series, int]:
    """``new`` (a published column of ranges) with every bound held by 1 .. k-1 rows of
    ``original`` widened as :mod:`pdanon.recode.bounds` says, and the number of cells widened.
    Columns of sets, plain values (but a single value "or missing", which its class may hold
    fewer than k times) and missing cells are left as they are.

    ``counts``: ``(values, rows holding each)`` of the whole column, when ``new`` is one part
    of it (a Dask part: the rarity is the whole column's); ``original`` then only gives the
    column's dtype (a Categorical's declared order) and may be empty."""
    from pdanon.dtype import GeneralizationArray, GeneralizationDtype
    from pdanon.recode import published_categories

    dtype = new.dtype
    if k <= 1 or not isinstance(dtype, GeneralizationDtype) or dtype.column_type == "unordered":
        return new, 0
    arr = new.array
    mask = np.asarray(arr.isna(), dtype=bool)
    if mask.all():
        return new, 0
    if counts is None:
        values, counts = _counts(original)
    else:
        values, counts = _sorted_counts(*counts)
    if not len(values):
        return new, 0
    if dtype.categories is None:
        lo, hi, grow = _widen_numbers(np.asarray(arr.lo, dtype=np.float64),
                                      np.asarray(arr.hi, dtype=np.float64), mask,
                                      np.asarray(values, dtype=np.float64), counts, k,
                                      flagged=np.asarray(arr.or_missing, dtype=bool))
        if not grow.any():
            return new, 0
        closed = np.where(grow, "both", arr.closed)
        integer = arr.is_integer and bool(np.all(np.mod(lo[~mask], 1) == 0)) and bool(
            np.all(np.mod(hi[~mask], 1) == 0))
        out = GeneralizationArray.from_bounds(lo, hi, kind=dtype.column_type, mask=mask,
                                              integer=integer, closed=closed)
    else:
        out, grow = _widen_categories(arr, mask, original, values, counts, k,
                                      flagged=np.asarray(arr.or_missing, dtype=bool))
        if out is None:
            return new, 0
    out = out.with_or_missing(arr.or_missing)  # a cell covering missing still does
    series = pd.Series(out, index=new.index, name=new.name)
    return published_categories(series), int(grow.sum())


def _rare_at(bound: np.ndarray, rare_values: np.ndarray) -> np.ndarray:
    """Per bound: is it one of ``rare_values`` (sorted)?"""
    if not len(rare_values):
        return np.zeros(len(bound), dtype=bool)
    j = np.minimum(np.searchsorted(rare_values, bound), len(rare_values) - 1)
    return rare_values[j] == bound


def _grid_outward(bound: np.ndarray, step: float, up: bool) -> np.ndarray:
    """Per bound: the multiple of ``step`` at or beyond it (above for ``up``). A grid point
    is published for every bound between it and the next one, so it tells no more than
    that interval, even where someone's value is the point itself."""
    return (np.ceil(bound / step) if up else np.floor(bound / step)) * step


def _widen_numbers(lo, hi, mask, values, counts, k, *, flagged):
    """Numeric bounds: a rare one moves to the nearer of the closest common value outward
    and the grid point at or beyond it (:func:`round_step` of the column's spread). A single
    value "or missing" (``flagged``) is a range too: its class may hold it fewer than k times."""
    common = values[counts >= k]
    rare_values = values[counts < k]
    ranged = ~mask & ((lo < hi) | flagged)
    rare_lo = ranged & _rare_at(np.where(mask, np.nan, lo), rare_values)
    rare_hi = ranged & _rare_at(np.where(mask, np.nan, hi), rare_values)
    step = round_step(values[0], values[-1])
    grid_lo = _grid_outward(np.where(rare_lo, lo, 0.0), step, up=False)
    grid_hi = _grid_outward(np.where(rare_hi, hi, 0.0), step, up=True)
    c_lo, ok_lo = _outward(lo, common, up=False)
    c_hi, ok_hi = _outward(hi, common, up=True)
    new_lo = np.where(ok_lo, np.maximum(c_lo, grid_lo), grid_lo)
    new_hi = np.where(ok_hi, np.minimum(c_hi, grid_hi), grid_hi)
    new_lo = np.where(rare_lo, _tidy_all(new_lo, step), lo)
    new_hi = np.where(rare_hi, _tidy_all(new_hi, step), hi)
    # a single rare value "or missing" on a grid point would stay one value: up to the next
    still = rare_hi & (new_lo == new_hi)
    new_hi = np.where(still, _tidy_all(new_hi + step, step), new_hi)
    # a rare bound on a grid point stays (published for every bound up to the next point)
    return new_lo, new_hi, (rare_lo & (new_lo != lo)) | (rare_hi & (new_hi != hi))


def _tidy_all(x: np.ndarray, step: float) -> np.ndarray:
    digits = max(0, -int(math.floor(math.log10(step)))) + 1 if step < 1 else 0
    return np.round(x, digits) if digits else x


def _widen_categories(arr, mask, original, values, counts, k, *, flagged):
    """Ordered categories (positions): a rare bound moves to the nearer, outward, of the
    closest common category and, for dates, the year (month) boundary, for other categories
    its block's first or last category (:func:`category_blocks`)."""
    from pdanon.dtype import GeneralizationArray

    cats = arr.dtype.categories
    cat_counts = pd.Series(counts, index=values).reindex(cats).fillna(0).to_numpy(np.int64)
    lo = np.where(mask, 0, arr.lo).astype(np.int64)
    hi = np.where(mask, 0, arr.hi).astype(np.int64)
    ranged = ~mask & ((lo < hi) | flagged)  # a single category "or missing" too
    rare_lo = ranged & (cat_counts[lo] > 0) & (cat_counts[lo] < k)
    rare_hi = ranged & (cat_counts[hi] > 0) & (cat_counts[hi] < k)
    grow = rare_lo | rare_hi
    if not grow.any():
        return None, grow
    common = np.flatnonzero(cat_counts >= k)
    c_lo, ok_lo = _outward(lo, common, up=False)
    c_hi, ok_hi = _outward(hi, common, up=True)
    dates = arr.dtype.dates_by_value and isinstance(cats, pd.DatetimeIndex)
    if dates:  # compare with the year (month) boundaries, as values; add the chosen ones
        months = len(cats) > 1 and (cats.max() - cats.min()) < pd.Timedelta(
            days=MONTHS_BELOW_DAYS)
        new_lo = _date_bounds(cats, lo, rare_lo, c_lo, ok_lo, up=False, months=months)
        new_hi = _date_bounds(cats, hi, rare_hi, c_hi, ok_hi, up=True, months=months)
        merged = cats.union(pd.DatetimeIndex(list(new_lo.values()) + list(new_hi.values()))
                            .as_unit(cats.unit)).unique().sort_values()
        pos = merged.get_indexer(cats)
        lo, hi = pos[lo], pos[hi]
        lo = _replace(lo, rare_lo, merged, new_lo, cats_of=arr.lo, old=cats)
        hi = _replace(hi, rare_hi, merged, new_hi, cats_of=arr.hi, old=cats)
        return GeneralizationArray.from_bounds(np.where(mask, -1, lo), np.where(mask, -1, hi),
                                               kind="ordered", categories=merged,
                                               mask=mask), grow
    declared = None
    if isinstance(original.dtype, pd.CategoricalDtype):
        declared = pd.Index(np.asarray(original.dtype.categories))
        if not (declared.get_indexer(cats) >= 0).all():
            declared = None
    if declared is None:  # categories read off the data: each is a value someone holds
        lo = np.where(rare_lo & ok_lo, c_lo, lo)
        hi = np.where(rare_hi & ok_hi, c_hi, hi)
        mask = mask | (rare_lo & ~ok_lo) | (rare_hi & ~ok_hi)  # none common outward: withheld
        return GeneralizationArray.from_bounds(np.where(mask, -1, lo), np.where(mask, -1, hi),
                                               kind="ordered", categories=cats,
                                               mask=mask), grow
    # the declared order (the domain): its grid of blocks of >= k rows
    pos = declared.get_indexer(cats)
    lo, hi = pos[lo], pos[hi]
    counts_in_order = pd.Series(counts, index=values).reindex(declared).fillna(0).to_numpy(
        np.int64)
    first, last = category_blocks(counts_in_order, k)
    common = np.flatnonzero(counts_in_order >= k)
    c_lo, ok_lo = _outward(lo, common, up=False)
    c_hi, ok_hi = _outward(hi, common, up=True)
    new_lo = np.where(rare_lo, np.where(ok_lo, np.maximum(c_lo, first[lo]), first[lo]), lo)
    new_hi = np.where(rare_hi, np.where(ok_hi, np.minimum(c_hi, last[hi]), last[hi]), hi)
    grow = (new_lo != lo) | (new_hi != hi)  # a bound already on its block's edge stays
    return GeneralizationArray.from_bounds(np.where(mask, -1, new_lo), np.where(mask, -1, new_hi),
                                           kind="ordered", categories=declared, mask=mask), grow


def category_blocks(counts: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The grid of an ordered column of categories: consecutive blocks of categories, each
    holding at least ``k`` rows (``counts``: rows per category, in order; built from the
    first category on, a remainder of fewer than ``k`` rows joins the last block). Returns,
    per category, the position of its block's first and last category. Like a numeric grid
    point, a block's first (last) category is published for every lower (upper) bound within
    the block, so it tells no more than the block, even where one person holds it.

    >>> first, last = category_blocks(np.array([1, 1, 3, 0, 1, 2, 1]), 3)
    >>> first.tolist(), last.tolist()
    ([0, 0, 0, 3, 3, 3, 3], [2, 2, 2, 6, 6, 6, 6])
    """
    m = len(counts)
    if not m:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    cum = np.cumsum(counts)
    total = int(cum[-1])
    starts = []
    s = 0
    while s < m:  # one step per block (at most rows / k), not per category
        starts.append(s)
        before = int(cum[s - 1]) if s else 0
        e = int(np.searchsorted(cum, before + k, side="left"))  # block s..e holds >= k rows
        if e >= m - 1 or total - int(cum[e]) < k:  # what is left joins this block
            break
        s = e + 1
    starts = np.asarray(starts, dtype=np.int64)
    block = np.searchsorted(starts, np.arange(m), side="right") - 1
    ends = np.append(starts[1:] - 1, m - 1)
    return starts[block], ends[block]


def year_boundary(t: pd.Timestamp, up: bool, unit: str, midnight: bool):
    """The first instant of ``t``'s year, or its last (Dec 31 for dates, the year's last
    instant at ``unit`` otherwise); None beyond the calendar pandas holds. Like a numeric
    grid point, a boundary is published for every date of its year, itself included.

    >>> str(year_boundary(pd.Timestamp("2009-06-29"), True, "s", True).date())
    '2009-12-31'
    >>> str(year_boundary(pd.Timestamp("1930-01-01"), False, "s", True).date())
    '1930-01-01'
    """
    try:
        if not up:
            return pd.Timestamp(year=t.year, month=1, day=1, tz=t.tz).as_unit(unit)
        end = pd.Timestamp(year=t.year + 1, month=1, day=1, tz=t.tz).as_unit(unit)
        return end - (pd.Timedelta(days=1) if midnight else pd.Timedelta(1, unit=unit))
    except (ValueError, OverflowError):  # beyond the calendar pandas can hold (year 9999)
        return None


def month_boundary(t: pd.Timestamp, up: bool, unit: str, midnight: bool):
    """The first instant of ``t``'s month, or its last (its last day for dates); None beyond
    the calendar pandas holds.

    >>> str(month_boundary(pd.Timestamp("2024-02-10"), True, "s", True).date())
    '2024-02-29'
    >>> str(month_boundary(pd.Timestamp("2024-02-10"), False, "s", True).date())
    '2024-02-01'
    """
    try:
        first = pd.Timestamp(year=t.year, month=t.month, day=1, tz=t.tz).as_unit(unit)
        if not up:
            return first
        if midnight:  # the last day, at midnight in its own zone (a DST day is not 24 h)
            return first + pd.offsets.MonthEnd(0)
        return first + pd.offsets.MonthBegin(1) - pd.Timedelta(1, unit=unit)
    except (ValueError, OverflowError):  # beyond the calendar pandas can hold
        return None


def _date_bounds(cats, pos, rare, c_pos, ok, up: bool, months: bool = False) -> dict:
    """{position of a rare bound: its new date} (one entry per distinct rare bound)."""
    midnight = bool((cats == cats.normalize()).all())
    boundary = month_boundary if months else year_boundary
    out = {}
    for p, c, has in zip(*(np.unique(np.stack([pos[rare], c_pos[rare], ok[rare]]), axis=1))):
        t = cats[int(p)]
        g = boundary(t, up, cats.unit, midnight)
        if has:
            c = cats[int(c)]
            g = c if g is None else min(g, c) if up else max(g, c)
        out[int(p)] = t if g is None else g  # None: the calendar's end, nothing beyond
    return out


def _replace(new_pos, rare, merged, chosen: dict, cats_of, old) -> np.ndarray:
    """Positions in ``merged`` with each rare bound replaced by its chosen date."""
    if not chosen:
        return new_pos
    keys = np.fromiter(chosen.keys(), dtype=np.int64)
    targets = merged.get_indexer(pd.DatetimeIndex(list(chosen.values())).as_unit(merged.unit))
    table = np.full(len(old), -1, dtype=np.int64)
    table[keys] = targets
    src = np.where(rare, np.asarray(cats_of), 0)
    return np.where(rare, table[src], new_pos)
