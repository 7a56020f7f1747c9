"""What a column's values say about the people in it, whatever the column is called.

:func:`pdanon.screening.examine` reads a column's name first; these rules read its values,
each vectorized over the distinct values (a sample of at most :data:`DISTINCT_VALUES` of
them), and name the evidence by counts, never by a cell:

* **person names** (:func:`pdanon.screening.names.person_names`): capitalized words most of which are
  given names and surnames of the census name list;
* **dates of birth** (:func:`birth_dates`): dates (a datetime column, or text in one of
  :data:`DATE_FORMATS`) without a time of day, from 1900 on, at least
  :data:`PAST_SHARE` of them more than a year ago, at least :data:`DATE_DISTINCT` of the
  cells distinct (or of the days between the first and the last date, when fewer), spread
  over at least :data:`BIRTH_SPAN_YEARS` years between the 5th and the
  95th percentile (admission or visit dates of a few years pass);
* **national-id-like numbers** (:func:`id_numbers`): at least :data:`DIGIT_SHARE` of the
  cells strings of :data:`ID_DIGITS` digits without separators (an optional leading ``+``)
  or integers of as many digits, at least :data:`ID_DISTINCT` of the cells distinct (a ZIP
  code has five digits; a drug code repeats);
* **free text under placeholders** (:func:`placeholder_text`): when most cells read
  ``none``, ``n/a``, ``-`` (:data:`PLACEHOLDERS`), the others are judged alone: at least
  :data:`TEXT_DISTINCT` distinct texts, half of them or more distinct, of a median length of
  at least 20 characters, most holding a space.

Example
-------
>>> import pandas as pd
>>> born = pd.Series(pd.date_range("1940-01-01", "2000-12-31", periods=200).normalize())
>>> print(finding(born)[0])
date of birth
"""

from __future__ import annotations

import datetime as _dt

import numpy as np
import pandas as pd

from pdanon.screening.names import person_names

__all__ = ["BIRTH_SPAN_YEARS", "DATE_DISTINCT", "DATE_FORMATS", "DIGIT_SHARE",
           "DISTINCT_VALUES", "ID_DIGITS", "ID_DISTINCT", "MIN_CELLS", "PAST_SHARE",
           "PLACEHOLDERS", "TEXT_DISTINCT", "birth_dates", "finding", "id_numbers",
           "placeholder_text"]

#: non-missing cells a column needs before its values are read as evidence
MIN_CELLS = 50
#: distinct values examined (a larger column: a sample of them)
DISTINCT_VALUES = 20_000
#: the text forms of dates tried (the one that reads most values is used)
DATE_FORMATS = ("%Y-%m-%d", "%d.%m.%Y", "%d/%m/%Y", "%m/%d/%Y", "%Y/%m/%d", "%d-%m-%Y",
                "%Y%m%d")
#: share of distinct dates among the cells, or among the days from the first to the last
#: date when there are fewer, that makes them personal (birth dates spread over decades rarely
#: repeat; the admission dates of a busy ward do)
DATE_DISTINCT = 0.2
#: years between the 5th and 95th percentile of dates of birth (event dates span less)
BIRTH_SPAN_YEARS = 15
#: share of the dates more than a year before today
PAST_SHARE = 0.9
#: digits of a national-id-like number (an SSN has 9, a German tax id 11, a phone 10 to 13)
ID_DIGITS = (8, 15)
#: share of the cells that are such digit strings
DIGIT_SHARE = 0.9
#: share of distinct values among them (a person's number repeats over their visits; a code
#: of a few hundred drugs or places repeats more)
ID_DISTINCT = 0.3
#: texts that stand for nothing (compared lower-case, without surrounding spaces or dots)
PLACEHOLDERS = frozenset({
    "", "none", "n/a", "na", "n.a", "-", "--", "---", "nil", "null", "no", "nan", "unknown",
    "none reported", "no comment", "no comments", "nothing", "keine", "kein", "k.a", "ninguno",
    "ninguna", "nada", "aucun", "aucune", "rien", "nessuno", "nessuna", "0", "?", "x",
})
#: distinct non-placeholder texts that make free text
TEXT_DISTINCT = 10


def _strings(counts: pd.Series) -> pd.Series | None:
    """The value counts of the strings among a column's distinct values, indexed by them as
    a string Index; None when the values are not text."""
    index = counts.index
    if pd.api.types.is_string_dtype(index.dtype) and index.dtype != object:
        return counts
    if index.dtype != object:
        return None
    text = pd.Series(index, dtype=object)
    strings = text.str.len().notna().to_numpy()  # missing for a cell that is not a string
    return pd.Series(counts.to_numpy()[strings], index=pd.Index(text[strings], dtype="str"))


def _distinct_sample(values: pd.Series) -> pd.Series:
    """At most :data:`DISTINCT_VALUES` of ``values``, drawn without replacement (seed 0)."""
    if len(values) <= DISTINCT_VALUES:
        return values
    picked = np.random.default_rng(0).choice(len(values), DISTINCT_VALUES, replace=False)
    return values.iloc[np.sort(picked)]


def _dates(counts: pd.Series) -> tuple | None:
    """(dates, their cells) of a column's distinct values (``counts``: value counts) when at
    least 90 % of the cells read as dates, else None."""
    index = counts.index
    if isinstance(index, pd.DatetimeIndex):
        return index.tz_localize(None) if index.tz is not None else index, counts.to_numpy()
    counts = _strings(counts)
    if counts is None:
        return None
    text = pd.Series(counts.index).str.strip()
    cells = counts.to_numpy()
    shaped = text.str.fullmatch(r"\d[\d./-]{6,8}\d").to_numpy()
    if cells[shaped].sum() < 0.9 * cells.sum():
        return None
    best = None
    for form in DATE_FORMATS:
        read = pd.to_datetime(text, format=form, errors="coerce")
        good = read.notna().to_numpy()
        if best is None or cells[good].sum() > best[2]:
            best = (read, good, cells[good].sum())
    read, good, n = best
    if n < 0.9 * counts.to_numpy().sum():
        return None
    return pd.DatetimeIndex(read[good]), cells[good]


def birth_dates(counts: pd.Series, today: pd.Timestamp | None = None) -> tuple | None:
    """``(what, evidence)`` when a column's distinct values (``counts``: its value counts)
    look like dates of birth (see the module docstring), else None.

    Example
    -------
    >>> import pandas as pd
    >>> born = pd.Series(pd.date_range("1940-01-01", "2000-12-31", periods=200).normalize())
    >>> print(birth_dates(born.value_counts(), pd.Timestamp("2026-01-01"))[1])
    200 distinct dates in 200 cells from 1940 to 2000, 5th to 95th percentile 55 years apart, none with a time of day
    >>> admitted = pd.Series(pd.date_range("2024-01-01", "2024-12-31", periods=300).normalize())
    >>> birth_dates(admitted.value_counts(), pd.Timestamp("2026-01-01")) is None
    True
    """
    counts = counts[counts.to_numpy() > 0]
    cells_total = int(counts.to_numpy().sum())
    if cells_total < MIN_CELLS:
        return None
    read = _dates(counts)
    if read is None:
        return None
    dates, cells = read
    if not len(dates):
        return None
    # distinct among the cells, or among the days they could fall on (a million birth dates
    # share the 26,000 days of 70 years)
    days = (dates.max() - dates.min()).days + 1
    if len(dates) < DATE_DISTINCT * min(cells_total, days):
        return None
    if not (dates == dates.normalize()).all():
        return None  # a time of day: events, not births
    today = pd.Timestamp(_dt.date.today()) if today is None else today
    past = cells[np.asarray(dates <= today - pd.DateOffset(years=1))].sum()
    if dates.min().year < 1900 or dates.max() > today or past < PAST_SHARE * cells.sum():
        return None
    order = np.argsort(dates.asi8)
    cum = np.cumsum(cells[order]) / cells.sum()
    low, high = dates[order[np.searchsorted(cum, 0.05)]], dates[order[np.searchsorted(cum, 0.95)]]
    span = (high - low).days / 365.25
    if span < BIRTH_SPAN_YEARS:
        return None
    return ("date of birth",
            f"{len(dates):,} distinct dates in {cells_total:,} cells from {dates.min().year} "
            f"to {dates.max().year}, 5th to 95th percentile {span:.0f} years apart, none with "
            f"a time of day")


def id_numbers(counts: pd.Series) -> tuple | None:
    """``(what, evidence)`` when most cells of a column (``counts``: its value counts) are
    national-id-like digit strings or integers (see the module docstring), else None.

    Example
    -------
    >>> import pandas as pd
    >>> ssn = pd.Series([f"{123456789 + 7919 * i:09d}" for i in range(60)])
    >>> print(id_numbers(ssn.value_counts())[1])
    60 of 60 cells are numbers of 9 digits without separators, 60 of them distinct
    >>> id_numbers(pd.Series(["02139", "10001"] * 30).value_counts()) is None
    True
    """
    counts = counts[counts.to_numpy() > 0]
    cells = counts.to_numpy()
    total = int(cells.sum())
    if total < MIN_CELLS or len(counts) < ID_DISTINCT * total:
        return None
    index = counts.index
    lo, hi = ID_DIGITS
    if pd.api.types.is_float_dtype(index.dtype):  # integers with a missing cell read as floats
        whole = index.to_numpy() == np.round(index.to_numpy())
        if not whole.all() or np.abs(index.to_numpy()).max() >= 2.0 ** 53:
            return None
        index = pd.Index(index.to_numpy().astype(np.int64))
    if pd.api.types.is_integer_dtype(index.dtype):
        digits = pd.Series(np.abs(index.to_numpy().astype(np.int64)).astype(str))
        ok = ((digits.str.len() >= lo) & (digits.str.len() <= hi)).to_numpy()
    elif _strings(counts) is not None:
        counts = _strings(counts)
        cells = counts.to_numpy()
        text = pd.Series(counts.index).str.strip()
        digits = text.str.lstrip("+")
        ok = text.str.fullmatch(rf"\+?\d{{{lo},{hi}}}").to_numpy()
    else:
        return None
    held = int(cells[ok].sum())
    if held < DIGIT_SHARE * total:
        return None
    lengths = sorted(set(digits[ok].str.len()))
    size = (f"{lengths[0]}" if len(lengths) == 1 else f"{lengths[0]} to {lengths[-1]}")
    return ("id numbers",
            f"{held:,} of {total:,} cells are numbers of {size} digits without separators, "
            f"{int(ok.sum()):,} of them distinct")


def placeholder_text(counts: pd.Series) -> tuple | None:
    """``(what, evidence)`` when a column whose cells mostly stand for nothing (``none``,
    ``n/a``: :data:`PLACEHOLDERS`) holds free text in the others, else None (``counts``: its
    value counts).

    Example
    -------
    >>> import pandas as pd
    >>> notes = pd.Series(["none"] * 900 + [f"patient {i} reported pain after the fall"
    ...                                      for i in range(40)])
    >>> print(placeholder_text(notes.value_counts())[1])
    40 distinct texts in the 40 cells not placeholders (900 of 940 cells read none, n/a or the like), median 39 characters
    """
    counts = _strings(counts[counts.to_numpy() > 0])
    if counts is None:
        return None
    text, cells = pd.Series(counts.index), counts.to_numpy()
    # only short texts can be placeholders
    short = (text.str.len() <= max(map(len, PLACEHOLDERS)) + 4).to_numpy()
    blank = np.zeros(len(text), dtype=bool)
    blank[short] = text[short].str.strip().str.strip(".").str.lower().isin(PLACEHOLDERS)
    kept, kept_cells = text[~blank], cells[~blank]
    n = int(kept_cells.sum())
    if int(cells[blank].sum()) == 0 or len(kept) < TEXT_DISTINCT or len(kept) < 0.5 * n:
        return None
    distinct = len(kept)
    kept = _distinct_sample(kept)
    median = float(kept.str.len().median())
    if median < 20 or kept.str.contains(r"\s", regex=True).mean() < 0.5:
        return None
    return ("free text",
            f"{distinct:,} distinct texts in the {n:,} cells not placeholders "
            f"({int(cells[blank].sum()):,} of {int(cells.sum()):,} cells read none, n/a or the "
            f"like), median {median:.0f} characters")


def finding(series: pd.Series, counts: pd.Series | None = None,
            today: pd.Timestamp | None = None, *, numbers: bool = True) -> tuple | None:
    """``(what, evidence)``: the first rule of this module a column meets (date of birth,
    national-id-like numbers, person names, free text under placeholders), or None.
    ``counts``: its value counts, when already at hand. ``numbers=False``: a numeric column
    is not read for id numbers (it is published generalized into ranges, which show none).

    Example
    -------
    >>> import pandas as pd
    >>> finding(pd.Series(["F", "M"] * 40)) is None
    True
    """
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return None
    text = isinstance(dtype, pd.CategoricalDtype) or dtype == object or \
        pd.api.types.is_string_dtype(dtype)
    if not text and not pd.api.types.is_datetime64_any_dtype(dtype):
        if not numbers or not pd.api.types.is_numeric_dtype(dtype):
            return None
        # numbers: only integers of eight digits or more can be id numbers
        values = series.dropna()
        values = values.head(10_000) if len(values) > 10_000 else values
        if not len(values) or (values.abs() >= 10 ** (ID_DIGITS[0] - 1)).mean() < DIGIT_SHARE:
            return None
        counts = None
    if counts is None:
        try:
            counts = series.dropna().value_counts(sort=False)
        except TypeError:
            return None
    counts = counts[counts.to_numpy() > 0]
    if int(counts.to_numpy().sum()) < MIN_CELLS:
        return None
    if isinstance(counts.index, pd.CategoricalIndex):
        counts.index = counts.index.astype(object)
    # a column of many distinct values: the rules read a sample of them (a uniform sample of
    # the distinct values keeps their mean count, so the shares hold); the placeholders are
    # looked for among all of them
    sample = _distinct_sample(counts)
    found = birth_dates(sample, today) or id_numbers(sample)
    if found is None and text:
        found = person_names(pd.Series(sample.index, dtype=object)) or placeholder_text(counts)
        if found is not None and found[0] == "free text":
            return found
    if found is not None and len(sample) < len(counts):
        found = (found[0], f"{found[1]} (a sample of {len(sample):,} of the {len(counts):,} "
                           f"distinct values)")
    return found
