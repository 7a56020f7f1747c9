"""Calendar cuts: date quasi-identifiers partitioned and published in whole calendar units.

Changes: **partitioning** (the partitioner sees each date as the first day of its unit, so no
class boundary falls inside a month, quarter, year or decade) and **recoding** (each published
cell is widened to whole units: from the first day of its first unit to the last day of its
last unit). A cell covering one unit prints as the unit (``2024-03``, ``2024-Q1``, ``2024``,
``2020s``); several units print as an ISO range (``[2024-03-01, 2024-05-31]``). No cell shows
a record's own date. The privacy model is checked on the published cells as always.

Ask for it with ``options={"calendar": {"admission_date": "month"}}`` on any anonymizer whose
algorithm partitions rows (Mondrian, nearest, group_join); the dates()
hierarchy gives the same cells to ``generalize`` and ``algorithm="optimal"``.

Example
-------
>>> import pandas as pd, pdanon
>>> df = pd.DataFrame({"adm": pd.to_datetime(["2024-03-02", "2024-03-20", "2024-05-07",
...                                           "2024-05-30"]), "x": list("abcd")})
>>> out = df.anon.k_anonymize(2, algorithm="mondrian", quasi_identifiers={"adm": "ordered"},
...                           insensitive=["x"], options={"calendar": {"adm": "month"}})
>>> sorted(out["adm"].astype(str))
['2024-03', '2024-03', '2024-05', '2024-05']
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError

__all__ = ["UNITS", "check_calendar", "label_bounds", "last_instant_step", "unit_starts",
           "widen_to_units"]

#: the calendar units a date column can be cut on
UNITS = ("month", "quarter", "year", "decade")
_FREQ = {"month": "M", "quarter": "Q", "year": "Y"}


def check_calendar(calendar, df: pd.DataFrame, qi_kinds: Mapping, method: str) -> dict:
    """``{column: unit}`` after checking that each column is a date quasi-identifier of kind
    ordered published by generalization, and each unit one of :data:`UNITS`."""
    if not isinstance(calendar, Mapping):
        raise InvalidInputError(f"calendar must be a dict {{column: unit}} with units from "
                                f"{list(UNITS)}, got {calendar!r}")
    if calendar and method != "generalize":
        raise InvalidInputError(f"calendar= cuts dates for method='generalize' only (got "
                                f"{method!r}): suppression and aggregation publish no ranges")
    for col, unit in calendar.items():
        if unit not in UNITS:
            raise InvalidInputError(f"calendar unit {unit!r} for column {col!r}: use one of "
                                    f"{list(UNITS)}")
        if col not in qi_kinds:
            raise InvalidInputError(f"calendar= names {col!r}, which is not a quasi-identifier; "
                                    f"give it one: quasi_identifiers={{{col!r}: 'ordered', ...}}")
        if not pd.api.types.is_datetime64_any_dtype(df[col].dtype):
            raise KindError(f"calendar= cuts dates, but column {col!r} holds {df[col].dtype} "
                            f"values; convert it with pd.to_datetime(df[{col!r}])")
        if qi_kinds[col] != "ordered":
            raise KindError(f"calendar= needs column {col!r} of kind 'ordered' (dates), not "
                            f"{qi_kinds[col]!r}")
    return dict(calendar)


def _wall(values: pd.DatetimeIndex) -> pd.DatetimeIndex:
    return values.tz_localize(None) if values.tz is not None else values


def _first_days(values: pd.DatetimeIndex, unit: str, after: int = 0) -> pd.DatetimeIndex:
    """The first midnight of each value's unit (``after`` units later), on the wall clock
    (naive). Vectorized."""
    wall = _wall(values)
    if unit == "decade":
        years = np.where(wall.isna(), 2000, wall.year) // 10 * 10 + 10 * after
        out = pd.to_datetime({"year": years, "month": np.ones(len(wall), dtype=int),
                              "day": np.ones(len(wall), dtype=int)})
        return pd.DatetimeIndex(out).where(~wall.isna()).as_unit(values.unit)
    return (wall.to_period(_FREQ[unit]) + after).start_time.as_unit(values.unit)


def _localized(wall: pd.DatetimeIndex, tz) -> pd.DatetimeIndex:
    # a midnight that occurs twice (a zone that falls back at 00:00) is its earlier instant
    return wall.tz_localize(tz, ambiguous=np.ones(len(wall), dtype=bool),
                            nonexistent="shift_forward") if tz else wall


def last_instant_step(values: pd.DatetimeIndex) -> pd.Timedelta:
    """What a unit's last instant lies before the next unit's first midnight: one day when
    every value is a date (the unit ends on its last day), else one tick of the values'
    resolution. Told on the wall clock (a time zone may skip a midnight)."""
    wall = _wall(values.dropna())
    times = bool((wall != wall.normalize()).any())
    return pd.Timedelta(1, unit=values.unit) if times else pd.Timedelta(days=1)


def label_bounds(labels, values) -> tuple[list, list]:
    """Per label the first and last instant of the calendar unit it names (``2024-03``,
    ``2024Q1``, ``2024``, ``2020s``: :func:`pdanon.dtype._common.calendar_unit`), as values
    of ``values``' type and time zone (``datetime.date`` values give dates); ``None`` for a
    label that names no unit.

    Example
    -------
    >>> first, last = label_bounds(["2024Q4", "*"], pd.to_datetime(["2024-11-05"]))
    >>> str(first[0].date()), str(last[0].date()), first[1]
    ('2024-10-01', '2024-12-31', None)
    """
    import datetime as _dt

    from pdanon.dtype._common import calendar_unit

    stamps = isinstance(values, pd.DatetimeIndex)
    ts = values if stamps else pd.DatetimeIndex(pd.to_datetime(list(values)))
    tick = last_instant_step(ts)
    first, last = [], []
    for label in labels:
        unit = calendar_unit(label) if isinstance(label, str) else None
        if unit is None:
            first.append(None)
            last.append(None)
            continue
        start, after = unit
        end = after - tick  # on the wall clock: a day is a calendar day across DST
        if ts.tz is not None:  # a doubled midnight: its earlier instant
            start, end = (t.tz_localize(ts.tz, ambiguous=True, nonexistent="shift_forward")
                          for t in (start, end))
        if not stamps:  # datetime.date values: the bounds are dates too
            start, end = _dt.date(start.year, start.month, start.day), end.date()
        first.append(start)
        last.append(end)
    return first, last


def unit_starts(series: pd.Series, unit: str) -> pd.Series:
    """Each date replaced by the first midnight of its unit (time zone kept; missing stays).

    Example
    -------
    >>> unit_starts(pd.Series(pd.to_datetime(["2024-05-17 13:00"])), "quarter").tolist()
    [Timestamp('2024-04-01 00:00:00')]
    """
    values = pd.DatetimeIndex(series)
    starts = _localized(_first_days(values, unit), values.tz)
    return pd.Series(starts, index=series.index, name=series.name)


def widen_to_units(cells: pd.Series, original: pd.Series, unit: str) -> pd.Series:
    """Generalized (or plain) date cells widened to whole units: from the first day of the
    unit of each cell's minimum to the last day of the unit of its maximum (its last instant
    when ``original`` has times). The categories are ``original``'s dates with those bounds,
    so each cell still contains the original value of its row."""
    from pdanon.dtype import GeneralizationArray, GeneralizationDtype

    values = pd.DatetimeIndex(original)
    if isinstance(cells.dtype, GeneralizationDtype):
        arr = cells.array
        cats = pd.DatetimeIndex(cells.dtype.categories)
        mask = np.asarray(arr.isna(), dtype=bool)
        lo = cats[np.where(mask, 0, np.asarray(arr.lo))]
        hi = cats[np.where(mask, 0, np.asarray(arr.hi))]
    else:
        lo = hi = pd.DatetimeIndex(cells)
        mask = np.asarray(lo.isna(), dtype=bool)
    tick = last_instant_step(values)
    first = _first_days(lo, unit)
    last = _first_days(hi, unit, after=1) - tick  # a calendar day on the wall clock
    first, last = _localized(first, values.tz), _localized(last, values.tz)
    bounds = first[~mask].append(last[~mask])
    categories = values.dropna().union(bounds.as_unit(values.unit)).unique().sort_values()
    lo_pos = np.where(mask, -1, categories.get_indexer(first))
    hi_pos = np.where(mask, -1, categories.get_indexer(last))
    out = GeneralizationArray.from_bounds(lo_pos, hi_pos, kind="ordered",
                                          categories=categories, mask=mask)
    if isinstance(cells.dtype, GeneralizationDtype):  # a cell covering missing still does
        out = out.with_or_missing(cells.array.or_missing)
    return pd.Series(out, index=cells.index, name=cells.name)
