"""Hierarchies built by a rule from the column's values: numeric bands (:func:`intervals`),
masked strings (:func:`masking`) and dates (:func:`dates`).

Labels and published cells agree: a band of a column whose values are all integers (and whose
width and start are integers) is labelled ``30-34`` and published as the closed range
``[30, 34]``; any other band is labelled ``[30, 35)`` and published as the half-open range
``[30, 35)``, so a value on a boundary (35.0) lies in exactly one published band. The top
node ``*`` never publishes the column's least and greatest values (one person's each): an
interval top is the union of the widest bands, a date top whole decades (centuries above
decades) that no date present bounds, or the ``domain=`` declared (:mod:`pdanon.recode.bounds`).

>>> import pandas as pd
>>> intervals([5]).map(pd.Series([31, 35.5]), 1).tolist()
['[30, 35)', '[35, 40)']
"""

from __future__ import annotations

import numbers
import warnings
from typing import Sequence

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError, KindWarning, user_stacklevel
from pdanon.hierarchy.base import MISSING_NODE, TOP, Bound, Hierarchy, check_height

__all__ = ["DateHierarchy", "IntervalHierarchy", "MaskingHierarchy", "dates", "intervals",
           "masking"]


class IntervalHierarchy(Hierarchy):
    """Numeric bands: level j groups values into bands of ``widths[j-1]`` starting at
    ``start``; the last level is ``top``."""

    def __init__(self, widths: Sequence, *, start=0, top=TOP, domain=None):
        widths = list(widths)
        if not widths:
            raise InvalidInputError("intervals() needs at least one width, e.g. [5, 10, 20]")
        check_height(len(widths) + (1 if top is not None else 0),
                     f"intervals() with {len(widths):,} widths" + (" and a top" if top else ""),
                     "give fewer widths (each level should coarsen the one below)")
        for w in widths:
            if isinstance(w, bool) or not isinstance(w, numbers.Real) or not w > 0:
                raise InvalidInputError(f"interval widths must be positive numbers, got {w!r}")
        for a, b in zip(widths, widths[1:]):
            ratio = b / a
            if abs(ratio - round(ratio)) > 1e-9 or round(ratio) < 1:
                raise InvalidInputError(
                    f"interval width {b!r} is not a multiple of the previous width {a!r}: a "
                    f"band of width {a} would be split between two bands of width {b}; use "
                    f"widths where each divides the next (e.g. 5, 10, 20)")
        self.widths = widths
        self.start = start
        self.top = top
        self.domain = _numeric_domain(domain)
        #: Integer bands (``30-34``)? ``None``: when the values, width and start are integers;
        #: ``True``/``False`` fixes it (``algorithm="safepub"`` does, from the column's dtype:
        #: one non-integer value must not change every published band)
        self.integers = None
        self.height = len(widths) + (1 if top is not None else 0)
        self.description = f"intervals {widths}" + (f" then {top!r}" if top is not None else "")

    def _numbers(self, values: pd.Index, name) -> np.ndarray:
        if not (pd.api.types.is_numeric_dtype(values.dtype)
                and not pd.api.types.is_bool_dtype(values.dtype)):
            if len(values) == 0:
                return np.zeros(0)
            raise KindError(
                f"interval hierarchy for column {name!r} needs numbers, the column holds "
                f"{values.dtype}; convert it (pd.to_numeric) or use masking()/tree()")
        return np.asarray(values, dtype=np.float64)

    def _integral(self, x: np.ndarray, w) -> bool:
        """Closed integer bands (``30-34``)? Only for integer values (or :attr:`integers`),
        width and start."""
        values = bool(np.all(np.mod(x, 1) == 0)) if self.integers is None else self.integers
        return values and float(w) == int(w) and float(self.start) == int(self.start)

    def _bands(self, x: np.ndarray, w) -> tuple[np.ndarray, np.ndarray, bool]:
        integral = self._integral(x, w)
        lo = self.start + np.floor((x - self.start) / w) * w
        hi = lo + (w - 1 if integral else w)
        return lo, hi, integral

    def _missing_labels(self, labels):
        if self.top is None:  # no top node: the missing value is its own node at every level
            return [MISSING_NODE] * (len(labels) - 1)
        return Hierarchy._missing_labels(self, labels)

    def _labels(self, values, name):
        x = self._numbers(values, name)
        if self.domain is not None and len(x) and (x.min() < self.domain[0]
                                                   or x.max() > self.domain[1]):
            bad = x[(x < self.domain[0]) | (x > self.domain[1])][0]
            raise InvalidInputError(
                f"interval hierarchy{'' if name is None else f' for column {name!r}'}: value "
                f"{bad:g} lies outside its declared domain [{self.domain[0]:g}, "
                f"{self.domain[1]:g}]; widen domain= or leave it out")
        out = []
        for w in self.widths:
            lo, hi, integral = self._bands(x, w)
            if integral:
                lab = [f"{int(a)}-{int(b)}" for a, b in zip(lo, hi)]
            else:
                lab = [f"[{a:g}, {b:g})" for a, b in zip(lo, hi)]
            out.append(np.asarray(lab, dtype=object))
        if self.top is not None:
            out.append(np.full(len(values), self.top, dtype=object))
        return out

    def _ranges(self, values, labels, codes):
        x = self._numbers(values, None)
        lo_levels, hi_levels = [x], [x]
        for j, w in enumerate(self.widths, start=1):
            lo, hi, _ = self._bands(x, w)
            n_nodes = len(labels[j])
            lo_n = np.full(n_nodes, np.nan)
            hi_n = np.full(n_nodes, np.nan)
            lo_n[codes[j][:len(x)]] = lo
            hi_n[codes[j][:len(x)]] = hi
            lo_levels.append(lo_n)
            hi_levels.append(hi_n)
        if self.top is not None:
            lo, hi = self._top_range(x)
            lo_levels.append(np.array([lo]))
            hi_levels.append(np.array([hi]))
        return lo_levels, hi_levels

    def _top_range(self, x: np.ndarray) -> tuple[float, float]:
        """The top's range: the declared ``domain``, else the union of the widest bands
        (the hierarchy's own grid), never the column's least and greatest values."""
        if self.domain is not None:
            return self.domain
        if not len(x):
            return np.nan, np.nan
        lo, _, _ = self._bands(x[[np.argmin(x)]], self.widths[-1])
        _, hi, _ = self._bands(x[[np.argmax(x)]], self.widths[-1])
        return float(lo[0]), float(hi[0])

    def _declared(self, levels: int) -> list:
        # the bands are the hierarchy's, and so is the top: a domain or a union of bands
        return [False] + [True] * (levels - 1)

    def _closed(self, values, labels):
        x = self._numbers(values, None)
        out = [None]
        for j, w in enumerate(self.widths, start=1):
            out.append(None if self._integral(x, w) else np.full(len(labels[j]), "left",
                                                                  dtype=object))
        if self.top is not None:  # a declared domain is closed; bands' union as the bands
            out.append(None if self.domain is not None or self._integral(x, self.widths[-1])
                       else np.full(len(labels[-1]), "left", dtype=object))
        return out if any(c is not None for c in out) else None

    def bind(self, values, *, name=None, na: bool = False) -> Bound:
        b = Hierarchy.bind(self, values, name=name, na=na)
        b.interval = True
        return b


class MaskingHierarchy(Hierarchy):
    """Strings masked from the right, one more character per level (or as given by
    ``steps``), then ``top`` if the last level is not a single node."""

    def __init__(self, *, char="*", steps=None, top=TOP):
        if not isinstance(char, str) or len(char) != 1:
            raise InvalidInputError(f"mask character must be one character, got {char!r}")
        if steps is not None:
            steps = [int(s) for s in steps]
            if not steps or any(s < 1 for s in steps) or any(
                    b <= a for a, b in zip(steps, steps[1:])):
                raise InvalidInputError(
                    f"masking steps must be increasing counts of masked characters >= 1, got "
                    f"{steps[:10]!r}" + ("..." if len(steps) > 10 else ""))
            check_height(len(steps), f"masking() with {len(steps):,} steps",
                         "give fewer steps, e.g. steps=[2, 4, 8]")
        self.char = char
        self.steps = steps
        self.top = top
        #: Add the top level even when the last step leaves one node (``algorithm="safepub"``
        #: sets it: the lattice must not depend on the values)
        self.always_top = False
        self.description = f"masking with {char!r}" + (f", steps {steps}" if steps else "")
        self.height = None  # known once bound (default steps depend on the longest value)

    def _strings(self, values: pd.Index) -> list:
        return [v if isinstance(v, str) else str(v) for v in values]

    def _steps_for(self, strings) -> list:
        if self.steps is not None:
            return self.steps
        longest = max((len(s) for s in strings), default=0)
        return list(range(1, longest + 1))

    def _labels(self, values, name):
        _warn_numbers(values, name)
        strings = self._strings(values)
        steps = self._steps_for(strings)
        what = f"masking(){'' if name is None else f' for column {name!r}'}"
        if self.steps is None:  # one level per character of the longest value
            check_height(len(steps), f"{what} of values up to {len(steps):,} characters long",
                         "pass steps= (counts of masked characters, e.g. steps=[4, 8, 16]) or "
                         "shorten the values")
        out = []
        for m in steps:
            out.append(np.asarray(
                [s[:max(len(s) - m, 0)] + self.char * min(m, len(s)) for s in strings],
                dtype=object))
        if self.top is not None and (self.always_top or not out or len(set(out[-1])) > 1):
            out.append(np.full(len(strings), self.top, dtype=object))
            check_height(len(out), f"{what} with its top level", "pass fewer steps=")
        return out

    def height_for(self, values) -> int:
        """The height once bound to these values (masking's default levels depend on the
        longest value)."""
        return self.bind(values).height


def _warn_numbers(values, name) -> None:
    """masking() masks a number's text: say that a code read as a number has already lost
    its leading zeros (04777 is 4777) and a float masks its '.0' first."""
    numbers_ = [v for v in values if isinstance(v, numbers.Number) and not isinstance(v, bool)
                and not (isinstance(v, float) and np.isnan(v))]
    if not numbers_:
        return
    col = "the column" if name is None else f"column {name!r}"
    fix = "pd.read_csv(path, dtype={'<column>': str})" if name is None else \
        f"pd.read_csv(path, dtype={{{name!r}: str}})"
    floats = any(isinstance(v, (float, np.floating)) for v in numbers_)
    warnings.warn(
        f"masking() of {col} masks numbers in their text form ({numbers_[0]!r}): a code read as "
        f"a number has lost its leading zeros (04777 is 4777)"
        + (", and a float masks its decimals ('.0') first" if floats else "")
        + f"; if they are codes, read them as text: {fix}, or df[...].astype(str) after "
          f"restoring the zeros (e.g. .str.zfill(5))", KindWarning, stacklevel=user_stacklevel())


_DATE_LEVELS = ("month", "quarter", "year", "decade")


class DateHierarchy(Hierarchy):
    """Dates: day → month → year (or any increasing subset of month, quarter, year,
    decade) → ``top``."""

    def __init__(self, levels=("month", "year"), *, top=TOP, domain=None):
        levels = list(levels)
        for lv in levels:
            if lv not in _DATE_LEVELS:
                raise InvalidInputError(
                    f"unknown date level {lv!r}; use some of {list(_DATE_LEVELS)} in this order")
        pos = [_DATE_LEVELS.index(lv) for lv in levels]
        if pos != sorted(set(pos)) or not levels:
            raise InvalidInputError(
                f"date levels must be a non-empty increasing subset of {list(_DATE_LEVELS)}, "
                f"got {levels}")
        self.date_levels = levels
        self.top = top
        self.domain = None
        if domain is not None:
            try:
                first, last = (pd.Timestamp(d) for d in domain)
            except (TypeError, ValueError) as exc:
                raise InvalidInputError(
                    f"dates() domain must be (first, last) dates, got {domain!r} ({exc})"
                ) from None
            if not first <= last:
                raise InvalidInputError(f"dates() domain {domain!r}: first comes after last")
            self.domain = (first, last)
        self.height = len(levels) + (1 if top is not None else 0)
        self.description = "dates " + " → ".join(["day", *levels] + ([top] if top else []))

    def _declared(self, levels: int) -> list:
        # a month, quarter, year or decade node publishes its whole unit, not the dates
        # present; the top its declared domain or whole decades (centuries above decades)
        return [False] + [True] * (levels - 1)

    def unit_bounds(self, values: pd.Index, labels: list) -> dict:
        """``{level: (first, last)}``: per node of each date level the unit's first day and
        its last day (at midnight when every value is a date; its last instant at the values'
        resolution when they have times), as values of the column's type and time zone;
        ``None`` for a node that is no unit (the missing value's).

        Example
        -------
        >>> h = dates(["quarter"])
        >>> b = h.bind(pd.to_datetime(["2024-11-05", "2024-12-30"]))
        >>> first, last = h.unit_bounds(b.values, b.labels)[1]
        >>> str(first[0].date()), str(last[0].date())
        ('2024-10-01', '2024-12-31')
        """
        from pdanon.calendar import label_bounds

        out = {level: label_bounds(labels[level], values)
               for level in range(1, len(self.date_levels) + 1)}
        if self.top is not None and len(labels) > len(self.date_levels) + 1:
            top = len(self.date_levels) + 1
            first, last = self._top_bounds(values)
            out[top] = ([None if lab is None else first for lab in labels[top]],
                        [None if lab is None else last for lab in labels[top]])
        return out

    def _top_bounds(self, values: pd.Index):
        """The top node's first and last instant: the declared domain, else the decades
        (centuries, when the hierarchy has decades) around the dates, one unit further out
        where a bound would be a date present: never the first or last date itself."""
        from pdanon.calendar import label_bounds

        ts = pd.DatetimeIndex(pd.to_datetime(list(values))) if not isinstance(
            values, pd.DatetimeIndex) else values
        if self.domain is not None:
            first, last = self.domain
            if len(ts) and (ts.min() < _like(first, ts) or ts.max() > _like(last, ts)):
                raise InvalidInputError(
                    f"dates() domain [{first}, {last}] does not hold every date of the column "
                    f"({ts.min()} .. {ts.max()}); widen domain= or leave it out")
            return _as_values(first, values), _as_values(last, values)
        span = 100 if "decade" in self.date_levels else 10
        lo_y, hi_y = (ts.min().year // span) * span, (ts.max().year // span) * span
        first = label_bounds([f"{lo_y}s"], values)[0][0]  # its first decade's start
        if first is not None and _like(first, ts) >= ts.min():  # a date present: one out
            first = label_bounds([f"{lo_y - span}s"], values)[0][0] or first
        last = label_bounds([f"{hi_y + span - 10}s"], values)[1][0]  # its last decade's end
        if last is not None and _like(last, ts) <= ts.max():
            last = label_bounds([f"{hi_y + 2 * span - 10}s"], values)[1][0] or last
        return first, last

    def _missing_labels(self, labels):
        if self.top is None:  # no top node: the missing value is its own node at every level
            return [MISSING_NODE] * (len(labels) - 1)
        return Hierarchy._missing_labels(self, labels)

    def _labels(self, values, name):
        try:
            ts = pd.DatetimeIndex(pd.to_datetime(values))
        except (TypeError, ValueError) as exc:
            raise KindError(
                f"date hierarchy for column {name!r} needs dates, got values such as "
                f"{list(values[:3])} ({exc}); convert them with pd.to_datetime") from None
        out = []
        for lv in self.date_levels:
            if lv == "month":
                lab = ts.strftime("%Y-%m")
            elif lv == "quarter":
                lab = [f"{y}Q{q}" for y, q in zip(ts.year, ts.quarter)]
            elif lv == "year":
                lab = ts.strftime("%Y")
            else:
                lab = [f"{(y // 10) * 10}s" for y in ts.year]
            out.append(np.asarray(list(lab), dtype=object))
        if self.top is not None:
            out.append(np.full(len(values), self.top, dtype=object))
        return out


# --------------------------------------------------------------------------- builders


def intervals(widths: Sequence, *, start=0, top=TOP, domain=None) -> Hierarchy:
    """Numeric bands, one width per level, then ``top`` (``None``: no top level).

    Bands start at ``start`` (a band is ``[start + i·w, start + (i+1)·w)``); each width must
    be a multiple of the previous one, so every band lies inside one band of the next level.
    Labels and published cells agree: when the column's values, the width and ``start`` are
    integers, a band is labelled ``20-29`` and published as the closed range ``[20, 29]``;
    otherwise it is labelled ``[20.5, 30.5)`` and published as the half-open range
    ``[20.5, 30.5)`` (a value on a boundary lies in one band only). Missing values are their
    own node below the top. The top publishes the union of the widest bands over the column
    (never its least and greatest values), or ``domain=(lo, hi)`` when given (a value outside
    it is refused).

    Example
    -------
    >>> from pdanon.hierarchy import column_levels
    >>> ages = pd.Series([17, 23, 90], name="age")
    >>> column_levels(intervals([10, 20]), ages, "real").cells(3).tolist()
    [[0, 99], [0, 99], [0, 99]]
    >>> column_levels(intervals([10, 20], domain=(0, 120)), ages, "real").cells(3).tolist()
    [[0, 120], [0, 120], [0, 120]]
    >>> intervals([5, 10, 20]).levels_table([23, 41])
       value level1 level2 level3 level4
    0     23  20-24  20-29  20-39      *
    1     41  40-44  40-49  40-59      *
    >>> intervals([5]).levels_table([30.0, 35.0, 36.5])
       value    level1 level2
    0   30.0  [30, 35)      *
    1   35.0  [35, 40)      *
    2   36.5  [35, 40)      *
    """
    return IntervalHierarchy(widths, start=start, top=top, domain=domain)


def masking(*, char: str = "*", steps: Sequence[int] | None = None, top: str | None = TOP
            ) -> Hierarchy:
    """Mask characters from the right: level j masks ``steps[j-1]`` characters (default 1, 2,
    … up to the longest value), then ``top`` if the last level still has several nodes.
    Non-string values are masked in their ``str`` form; missing values are their own node
    below the top.

    Example
    -------
    >>> masking().levels_table(["10001", "10002"])
       value level1 level2 level3 level4 level5
    0  10001  1000*  100**  10***  1****  *****
    1  10002  1000*  100**  10***  1****  *****
    >>> masking(char="X", steps=[2]).levels_table(["10001", "10201"])  # the tutorial's 100XX
       value level1 level2
    0  10001  100XX      *
    1  10201  102XX      *
    """
    return MaskingHierarchy(char=char, steps=steps, top=top)


def _like(t, ts: pd.DatetimeIndex) -> pd.Timestamp:
    """``t`` (a Timestamp or date) comparable with ``ts`` (its time zone)."""
    t = pd.Timestamp(t)
    if ts.tz is not None and t.tz is None:
        return t.tz_localize(ts.tz)
    return t


def _as_values(t: pd.Timestamp, values):
    """A declared bound as a value of the column's type (a date for ``datetime.date``)."""
    import datetime as _dt

    if isinstance(values, pd.DatetimeIndex):
        t = _like(t, values)
        return t.as_unit(values.unit)
    if len(values) and isinstance(values[0], _dt.date) and not isinstance(values[0],
                                                                         _dt.datetime):
        return t.date()
    return t


def _numeric_domain(domain):
    """``(lo, hi)`` as floats, or None; a clear error for anything else."""
    if domain is None:
        return None
    try:
        lo, hi = (float(v) for v in domain)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"intervals() domain must be (lo, hi) numbers, got {domain!r}") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and lo <= hi):
        raise InvalidInputError(f"intervals() domain {domain!r}: need finite lo <= hi")
    return lo, hi


def dates(levels: Sequence[str] = ("month", "year"), *, top: str | None = TOP,
          domain=None) -> Hierarchy:
    """Dates generalized to month, quarter, year or decade (an increasing subset), then
    ``top``; missing dates (NaT) are their own node below the top. Every level publishes
    whole units, never the first or last dates present: the top, whole decades (centuries
    when ``"decade"`` is a level) one decade further out where a date present would be the
    boundary, or ``domain=(first, last)`` when given (a date outside it is refused).

    Example
    -------
    >>> dates().levels_table(pd.to_datetime(["2024-03-05"]))
           value   level1 level2 level3
    0 2024-03-05  2024-03   2024      *
    >>> from pdanon.hierarchy import column_levels
    >>> dob = pd.Series(pd.to_datetime(["1924-07-09", "2009-06-29"]), name="DOB")
    >>> column_levels(dates(), dob, "ordered").cells(3).astype(str).tolist()
    ['[1920-01-01, 2009-12-31]', '[1920-01-01, 2009-12-31]']
    """
    return DateHierarchy(levels, top=top, domain=domain)
