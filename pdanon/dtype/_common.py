"""Small value helpers shared by the modules of :mod:`pdanon.dtype`.

Missing-value tests, number checks, the text of one value, the closedness of ranges (which ends
belong to them) and a safe conversion of any sequence into a 1-D object array.

>>> format_value(20.0), is_missing(float("nan")), object_array([(1, 2), 3]).tolist()
('20', True, [(1, 2), 3])
>>> closed_flags("left"), brackets(closed_flags("left")), closed_name(2)
(2, ('[', ')'), 'left')
"""

from __future__ import annotations

import datetime as _dt
import decimal
import numbers
import re
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray

__all__ = ["CLOSED", "KINDS", "OR_MISSING", "OR_MISSING_TEXT", "split_or_missing", "as_real", "brackets", "calendar_label", "calendar_unit",
           "category_position", "closed_flags", "dates_in_order",
           "closed_name", "format_value", "infer_categories", "is_missing", "is_number",
           "is_set_like", "object_array", "python_scalar"]

#: The value kinds a generalized column can have.
KINDS = ("real", "ordered", "unordered")

#: Which ends of a range belong to it, with pandas' names (``pandas.Interval(closed=...)``):
#: ``"both"`` ``[a, b]``, ``"left"`` ``[a, b)``, ``"right"`` ``(a, b]``, ``"neither"`` ``(a, b)``.
CLOSED = ("both", "left", "right", "neither")

# A range's closedness is stored as two bits: OPEN_LO (the lower bound is excluded) and
# OPEN_HI (the upper bound is excluded); index CLOSED by the flags to get the name.
OPEN_LO = 1
OPEN_HI = 2
#: A third flag bit of a cell: the cell also covers a missing value ("a value in this range or
#: set, or missing"), published for a class that mixes present and missing cells. Its text form
#: is the cell's text followed by :data:`OR_MISSING_TEXT` (``[20, 29] or missing``).
OR_MISSING = 4
#: The suffix that marks a cell covering missing too, in text (CSV) and in ``str(cell)``.
OR_MISSING_TEXT = " or missing"
_FLAGS = {"both": 0, "right": OPEN_LO, "left": OPEN_HI, "neither": OPEN_LO | OPEN_HI}
_NAMES = ("both", "right", "left", "neither")  # indexed by the flags


def closed_flags(closed) -> int:
    """``"both"``/``"left"``/``"right"``/``"neither"`` -> open-end flags (0..3)."""
    try:
        return _FLAGS[closed]
    except (KeyError, TypeError):
        raise ValueError(f"closed must be one of {list(CLOSED)}, got {closed!r}") from None


def closed_name(flags: int) -> str:
    """Open-end flags (0..3) -> ``"both"``/``"right"``/``"left"``/``"neither"``."""
    return _NAMES[int(flags) & 3]


def brackets(flags: int) -> tuple[str, str]:
    """The opening and closing bracket of a range with these open-end flags."""
    return ("(" if flags & OPEN_LO else "["), (")" if flags & OPEN_HI else "]")


def split_or_missing(text: str) -> tuple[str, bool]:
    """``(cell text, covers missing?)``: a text ending in :data:`OR_MISSING_TEXT` (any case)
    without it, flagged.

    >>> split_or_missing("[20, 29] or missing"), split_or_missing("{a, b}")
    (('[20, 29]', True), ('{a, b}', False))
    """
    n = len(OR_MISSING_TEXT)
    if len(text) > n and text[-n:].lower() == OR_MISSING_TEXT:
        return text[:-n].rstrip(), True
    return text, False

_INT_MAX_EXACT = 2.0**53


def format_value(v: Any) -> str:
    """Text of one bound or member: integral floats without ``.0``; a timestamp at midnight
    with no time zone as its ISO date (``2024-12-01``, not ``2024-12-01 00:00:00``); others as
    ``str``."""
    if isinstance(v, pd.Timestamp) and v.tz is None and v == v.normalize():
        return v.date().isoformat()
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if f.is_integer() and abs(f) < _INT_MAX_EXACT:
            return str(int(f))
        return repr(f)
    return str(v)


_CALENDAR = re.compile(r"^(\d{4})(?:-(\d{2})|-?Q([1-4])|(s))?$")  # 2024-12, 2024-Q4, 2024, 2020s


def _as_timestamp(v: Any):
    """A Timestamp for a Timestamp or a ``datetime.date`` (not a datetime), else None."""
    if isinstance(v, pd.Timestamp):
        return v
    if isinstance(v, _dt.date) and not isinstance(v, _dt.datetime):
        return pd.Timestamp(v)
    return None


def calendar_label(lo: Any, hi: Any) -> str | None:
    """``2024-12``, ``2024-Q4``, ``2024`` or ``2020s`` when the dates ``lo``..``hi`` cover
    exactly that month, quarter, year or decade (``lo`` its first midnight, ``hi`` its last
    day: at midnight for dates, from 23:59:59 on for times); None otherwise. Wall-clock
    dates in the bounds' own time zone.

    Example
    -------
    >>> calendar_label(pd.Timestamp("2024-12-01"), pd.Timestamp("2024-12-31"))
    '2024-12'
    >>> calendar_label(pd.Timestamp("2024-10-01"), pd.Timestamp("2024-12-31 23:59:59"))
    '2024-Q4'
    >>> calendar_label(pd.Timestamp("2024-12-01"), pd.Timestamp("2024-12-30")) is None
    True
    """
    a, b = _as_timestamp(lo), _as_timestamp(hi)
    if a is None or b is None or a is pd.NaT or b is pd.NaT:
        return None
    if a.tz is not None:
        a, b = a.tz_localize(None), b.tz_convert(a.tz).tz_localize(None) if b.tz else b
    if a != a.normalize() or a.day != 1:
        return None
    if b != b.normalize() and (b.hour, b.minute, b.second) != (23, 59, 59):
        return None
    after = b.normalize() + pd.Timedelta(days=1)
    if after.day != 1:
        return None
    months = (after.year - a.year) * 12 + after.month - a.month
    if months == 1:
        return f"{a.year:04d}-{a.month:02d}"
    if months == 3 and a.month in (1, 4, 7, 10):
        return f"{a.year:04d}-Q{(a.month - 1) // 3 + 1}"
    if months == 12 and a.month == 1:
        return f"{a.year:04d}"
    if months == 120 and a.month == 1 and a.year % 10 == 0:
        return f"{a.year:04d}s"
    return None


def calendar_unit(text: str):
    """``(first day, first day of the next unit)`` of a label :func:`calendar_label` writes
    (``2024Q4`` too, as the ``dates()`` hierarchy labels quarters), as naive Timestamps, or
    None for other text.

    Example
    -------
    >>> calendar_unit("2024-Q4")
    (Timestamp('2024-10-01 00:00:00'), Timestamp('2025-01-01 00:00:00'))
    """
    m = _CALENDAR.match(text.strip()) if isinstance(text, str) else None
    if m is None:
        return None
    year, month, quarter, decade = m.groups()
    y = int(year)
    if month is not None:
        if not 1 <= int(month) <= 12:
            return None
        start, months = pd.Timestamp(y, int(month), 1), 1
    elif quarter is not None:
        start, months = pd.Timestamp(y, 3 * int(quarter) - 2, 1), 3
    elif decade is not None:
        if y % 10:
            return None
        start, months = pd.Timestamp(y, 1, 1), 120
    else:
        start, months = pd.Timestamp(y, 1, 1), 12
    return start, _months_later(start, months)


def _months_later(start, months: int):
    """The first day ``months`` months after ``start`` (a first of a month), also past the
    year 9999 that Python's dates end at (the unit of ``9999-12``, a common "no end"
    placeholder, ends on 10000-01-01: a pandas Timestamp holds it)."""
    import calendar

    total = start.year * 12 + start.month - 1 + months
    year, month = divmod(total, 12)
    if year <= 9999:
        return pd.Timestamp(year, month + 1, 1)
    days, y, m = 0, start.year, start.month
    for _ in range(months):
        days += calendar.monthrange(y, m)[1]
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return start + pd.Timedelta(days=days)


def dates_in_order(categories) -> bool:
    """Are ``categories`` dates, timestamps or periods in increasing order (no missing)?"""
    if categories is None or not len(categories):
        return False
    if isinstance(categories, (pd.DatetimeIndex, pd.PeriodIndex)):
        return bool(categories.is_monotonic_increasing) and not categories.hasnans
    if categories.dtype != object:
        return False
    first = categories[0]
    if isinstance(first, (pd.Timestamp, pd.Period)):  # an object Index of Python values
        try:
            typed = pd.Index(list(categories))
        except (TypeError, ValueError):
            return False
        return dates_in_order(typed) if isinstance(typed, (pd.DatetimeIndex,
                                                           pd.PeriodIndex)) else False
    if not all(isinstance(v, _dt.date) and not isinstance(v, _dt.datetime) for v in categories):
        return False
    return bool(pd.Index(list(categories)).is_monotonic_increasing)


def python_scalar(v: Any) -> Any:
    """numpy scalar -> Python scalar (other values unchanged)."""
    if isinstance(v, np.generic):
        return v.item()
    return v


def is_missing(v: Any) -> bool:
    """True for the missing-value markers pandas knows (None, NaN, pd.NA, NaT)."""
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    if isinstance(v, (float, np.floating)):
        return v != v
    if isinstance(v, decimal.Decimal):
        return v.is_nan()
    if isinstance(v, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(v))
    return False


def as_real(v: Any) -> tuple[float, bool]:
    """A real number as (float, was_an_integer); TypeError for anything else."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"a boolean ({v!r}) is not a real value")
    if isinstance(v, (int, np.integer)):
        return float(v), True
    if isinstance(v, (float, np.floating)):
        return float(v), False
    if isinstance(v, (numbers.Real, decimal.Decimal)):
        return float(v), False
    raise TypeError(f"{v!r} (type {type(v).__name__}) is not a real value")


def is_number(v: Any) -> bool:
    return isinstance(v, (numbers.Real, decimal.Decimal)) and not isinstance(v, (bool, np.bool_))


def is_set_like(v: Any) -> bool:
    return isinstance(v, (set, frozenset))


def object_array(values) -> np.ndarray:
    """Any 1-D sequence -> 1-D object ndarray without numpy broadcasting surprises."""
    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype == object:
        return values
    if isinstance(values, (pd.Series, pd.Index)):
        values = values.array
    if isinstance(values, ExtensionArray):
        return np.asarray(values.astype(object))
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            if values.ndim == 0:
                raise TypeError("a scalar is not a sequence of cells")
            raise ValueError("generalized cells need a 1-dimensional sequence")
        return values.astype(object)
    if not isinstance(values, (list, tuple)):
        values = list(values)
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return out


def category_position(categories: pd.Index, value) -> int:
    """Position of one plain ``value`` in ``categories`` (-1 when it is none of them).

    ``categories`` is an object Index (or one of text), such as
    ``GeneralizationDtype._cat_object``: the lookup is then by Python's equality and hash, as
    in a dict (``1 == 1.0 == True``), the rule :meth:`GeneralizationArray.contains` applies to
    every value, so a cell's ``in`` and the array's ``contains`` agree. A hash lookup.

    >>> cats = pd.Index(["low", "mid", "high"], dtype=object)
    >>> category_position(cats, "high"), category_position(cats, "huge"), category_position(cats, 1)
    (2, -1, -1)
    """
    try:
        pos = categories.get_loc(value)
    except (KeyError, TypeError, ValueError, OverflowError, pd.errors.InvalidIndexError):
        return -1
    return int(pos) if isinstance(pos, (int, np.integer)) else -1


def infer_categories(values: np.ndarray, sort: bool) -> pd.Index:
    """Distinct values as an Index (sorted when the values are sortable)."""
    if len(values) == 0:
        return pd.Index([], dtype=object)
    arr = values if isinstance(values, np.ndarray) else object_array(values)
    if arr.dtype == object:
        idx = pd.Index(arr, tupleize_cols=False)
    else:
        idx = pd.Index(arr)
    uniq = idx.unique()
    if sort:
        try:
            uniq = uniq.sort_values()
        except TypeError:
            pass
    return uniq


def plain_categories(index: pd.Index):
    """``(values, type)``: dates, timestamps, durations and periods as ISO 8601 text that
    JSON and YAML hold, with the type that brings them back (:func:`categories_from_plain`):
    the index's dtype (``datetime64[us, Europe/Oslo]``, ``timedelta64[s]``, ``period[M]``)
    or ``"date"``;
    ``(None, None)`` for other categories.

    >>> plain_categories(pd.DatetimeIndex(["2024-01-02"]))
    (['2024-01-02T00:00:00'], 'datetime64[us]')
    """
    import datetime as _dt

    if isinstance(index, (pd.DatetimeIndex, pd.TimedeltaIndex)):
        return [v.isoformat() for v in index], str(index.dtype)
    if isinstance(index, pd.PeriodIndex):  # 2024-03 with its frequency: period[M]
        return [str(v) for v in index], str(index.dtype)
    if len(index) and all(isinstance(v, _dt.date) and not isinstance(v, _dt.datetime)
                          for v in index):
        return [v.isoformat() for v in index], "date"
    return None, None


def categories_from_plain(values, ctype: str) -> pd.Index:
    """The categories :func:`plain_categories` wrote as text.

    >>> categories_from_plain(['2024-01-02T00:00:00'], 'datetime64[ns]')
    DatetimeIndex(['2024-01-02'], dtype='datetime64[ns]', freq=None)
    """
    import datetime as _dt

    if ctype == "date":
        return pd.Index([_dt.date.fromisoformat(v) for v in values], dtype=object)
    if ctype.startswith("period["):
        return pd.PeriodIndex(list(values), dtype=ctype)
    dtype = pd.api.types.pandas_dtype(ctype)
    if ctype.startswith("timedelta64"):
        return pd.TimedeltaIndex(pd.to_timedelta(list(values))).as_unit(np.datetime_data(dtype)[0])
    if isinstance(dtype, pd.DatetimeTZDtype):
        return pd.DatetimeIndex(pd.to_datetime(list(values), utc=True, format="ISO8601")
                                ).tz_convert(dtype.tz).as_unit(dtype.unit)
    # ISO8601: isoformat() drops a zero fraction, so one list may mix both forms
    return pd.DatetimeIndex(pd.to_datetime(list(values), format="ISO8601")).as_unit(
        np.datetime_data(dtype)[0])
