"""The text form of generalized cells, and its one parser.

``str(cell)`` is ``[20, 29]`` for a range (``[30, 35)``, ``(30, 35]`` or ``(30, 35)`` when an end
does not belong to it), ``{Asian, White}`` for a set (members sorted by their text) and the plain
value otherwise. This module turns such text back into cells; it serves
``pd.array(texts, dtype=...)``, ``GeneralizationArray._from_sequence_of_strings`` (used by
``pd.read_csv(dtype=...)`` and ``pd.read_json``) and :func:`pdanon.read_csv`.

Parsing is linear in the length of the text: a set cell's inner text is split once at its
separators; with categories containing ``", "`` a member is re-joined from at most as many
pieces as the category with the most separators has. A cell longer than ``max_cell_length``
(default :data:`MAX_CELL_LENGTH`) is refused before any work is done on it.

>>> from pdanon.dtype import GeneralizationDtype
>>> split_set_text("{Asian, White}", GeneralizationDtype("unordered"))
['Asian', 'White']
>>> p = parse_text(["39", "[20, 29]", "", "[30, 35)"], "real")
>>> p.lo.tolist(), p.hi.tolist(), p.mask.tolist(), p.open.tolist(), p.integer
([39.0, 20.0, nan, 30.0], [39.0, 29.0, nan, 35.0], [False, False, True, False], [0, 0, 0, 2], True)
"""

from __future__ import annotations

import re
from itertools import chain
from typing import NamedTuple

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.dtype._common import (
    KINDS,
    OPEN_HI,
    OPEN_LO,
    OR_MISSING,
    calendar_unit,
    format_value,
    infer_categories,
    is_missing,
    object_array,
    split_or_missing,
)
from pdanon.dtype.dtype import GeneralizationDtype
from pdanon.dtype.storage import SetTable, sets_from_pairs

__all__ = ["MAX_CELL_LENGTH", "parse_text", "ParsedBounds", "ParsedSets", "has_syntax",
           "looks_like_range", "looks_like_set", "parse_range_text", "range_open",
           "split_range_text", "split_set_text"]

#: Longest text (in characters) a generalized cell may have when parsed from text: 1,000,000.
#: A longer cell raises :class:`~pdanon.InvalidInputError` naming the column, the row and the
#: limit; pass ``max_cell_length=`` to :func:`pdanon.read_csv` to change it.
MAX_CELL_LENGTH = 1_000_000

#: Texts read as a missing cell (compared after stripping, case-insensitively).
NA_TEXTS = frozenset({"", "nan", "<na>", "none", "null"})

_INT_RE = re.compile(r"^[+-]?\d+$")
_SHOWN = 60  # characters of an offending text quoted in an error message


class ParsedBounds(NamedTuple):
    """Parsed real/ordered column: bounds per row (category positions when ``dtype`` has
    categories), missing mask, whether the numbers were all integers, and the open ends of
    every range (int8 flags: 1 the lower bound is excluded, 2 the upper one, 4 the cell covers
    missing too: ``[20, 29] or missing``)."""

    dtype: GeneralizationDtype
    lo: np.ndarray
    hi: np.ndarray
    mask: np.ndarray
    integer: bool
    open: np.ndarray


class ParsedSets(NamedTuple):
    """Parsed unordered column: cell codes per row, the (sparse) table of distinct sets and
    per row the int8 flags (4: the cell covers missing too, ``{a, b} or missing``)."""

    dtype: GeneralizationDtype
    codes: np.ndarray
    table: SetTable
    open: np.ndarray | None = None


# ---------------------------------------------------------------------------------------------
# one cell
# ---------------------------------------------------------------------------------------------


def _show(s) -> str:
    """Repr of an offending text, shortened when long."""
    if isinstance(s, str) and len(s) > _SHOWN:
        return f"{s[:_SHOWN]!r}... ({len(s):,} characters)"
    return repr(s)


def looks_like_range(s: str) -> bool:
    """True when the text (stripped) is written as a range: ``[..]``, ``[..)``, ``(..]`` or
    ``(..)``."""
    s = s.strip()
    return len(s) >= 2 and s[0] in "[(" and s[-1] in "])"


def range_open(s: str) -> int:
    """The open ends of a range's text: 1 for ``(``, 2 for ``)``, 0 for ``[a, b]`` or a plain
    value.

    >>> range_open("[30, 35)"), range_open("(30, 35]"), range_open("39")
    (2, 1, 0)
    """
    t = s.strip()
    if not looks_like_range(t):
        return 0
    return (OPEN_LO if t[0] == "(" else 0) | (OPEN_HI if t[-1] == ")" else 0)


def looks_like_set(s: str) -> bool:
    """True when the text (stripped) is written as a set ``{..}``."""
    s = s.strip()
    return len(s) >= 2 and s[0] == "{" and s[-1] == "}"


def _known_range(inner: str, lookup: dict, max_sep: int):
    """Split ``'a, b'`` at the ``", "`` that leaves known categories on both sides, or None.

    Only the first ``max_sep + 1`` separators can end a category, so the work is
    O((max_sep + 1) * len(inner)).
    """
    start = 0
    for _ in range(max_sep + 1):
        k = inner.find(", ", start)
        if k < 0:
            return None
        a, b = inner[:k], inner[k + 2:]
        if a in lookup and b in lookup:
            return a, b
        start = k + 1
    return None


def _known_members(inner: str, lookup: dict, max_sep: int):
    """Members of a set's inner text with known categories, or None if they do not fit.

    Splits once at ``", "``; pieces that are not categories are re-joined greedily with the
    following ones, at most ``max_sep + 1`` pieces per member (no category holds more).
    """
    parts = inner.split(", ")
    if all(map(lookup.__contains__, parts)):
        return parts
    out = []
    cur = None
    pieces = 0
    for p in parts:
        if cur is None:
            cur, pieces = p, 1
        else:
            cur, pieces = cur + ", " + p, pieces + 1
            if pieces > max_sep + 1:
                return None
        if cur in lookup:
            out.append(cur)
            cur = None
    return out if cur is None else None


def _set_members(inner: str, dtype: GeneralizationDtype | None) -> list:
    """Member texts of a set's inner text (``'a, b'``); ``[]`` for an empty set."""
    if not inner.strip():
        return []
    if dtype is not None and dtype.categories is not None:
        lookup, max_sep = dtype._cat_lookup
        out = _known_members(inner, lookup, max_sep)
        if out is not None:
            return out
    # tolerant split (no categories, or text such as '{a,b}')
    return [p.strip() for p in inner.split(",")]


def _range_bounds(inner: str, dtype: GeneralizationDtype | None, whole: str):
    """(lo text, hi text) of a range's inner text (``'a, b'``)."""
    if dtype is not None and dtype.categories is not None:
        lookup, max_sep = dtype._cat_lookup
        found = _known_range(inner, lookup, max_sep)
        if found is not None:
            return found
    parts = inner.split(",", 2)
    if len(parts) != 2:
        raise ValueError(f"cannot parse range {_show(whole)}: expected '[min, max]'")
    return parts[0].strip(), parts[1].strip()


def split_range_text(s: str, dtype: GeneralizationDtype | None = None) -> tuple[str, str]:
    """'[a, b]' (or '[a, b)', '(a, b]', '(a, b)') -> ('a', 'b'); a plain text 'x' -> ('x', 'x')."""
    t = s.strip()
    if not looks_like_range(t):
        return t, t
    return _range_bounds(t[1:-1], dtype, s)


def split_set_text(s: str, dtype: GeneralizationDtype | None) -> list:
    """'{a, b}' -> ['a', 'b'] (uses the categories to re-join members holding ', ')."""
    return _set_members(s.strip()[1:-1], dtype)


def _parse_number(tok: str, whole: str):
    try:
        return int(tok)
    except ValueError:
        pass
    try:
        return float(tok)
    except ValueError:
        raise ValueError(f"cannot parse {_show(whole)} as a number or a range "
                         "'[min, max]'") from None


def parse_range_text(s: str, dtype: GeneralizationDtype):
    """Text of a real/ordered cell -> (lo, hi) as numbers or category values."""
    a, b = split_range_text(s, dtype)
    if dtype.categories is not None:
        return a, b
    return _parse_number(a, s), _parse_number(b, s)


def _token_converter(tokens: list[str]):
    """How to type text tokens when no categories are known: int, float or str."""
    if not tokens:
        return str
    if all(map(_INT_RE.match, tokens)):
        return int
    try:
        for t in tokens:
            float(t)
    except ValueError:
        return str
    return float


# ---------------------------------------------------------------------------------------------
# a column
# ---------------------------------------------------------------------------------------------


class _Where:
    """Names the column and row of a distinct text in error messages."""

    def __init__(self, column, index, codes):
        self.column = column
        self.index = index
        self.codes = codes

    def __call__(self, k: int) -> str:
        row = k if self.codes is None else int(np.flatnonzero(self.codes == k)[0])
        if self.index is not None:
            row = self.index[row]
        where = f"row {row!r}"
        return where if self.column is None else f"column {self.column!r}, {where}"


def parse_text(values, kind: str, categories=None, *, max_cell_length: int = MAX_CELL_LENGTH,
               column=None, index=None):
    """Parse a column of text cells -> :class:`ParsedBounds` or :class:`ParsedSets`.

    ``values`` holds text cells (``"[20, 29]"``, ``"{a, b}"``, a plain value, an empty or
    ``nan``/``None``/``null`` text for missing) and possibly non-text values taken as plain
    values. Each distinct value is parsed once. ``column`` and ``index`` (row labels) only name
    the place of an offending cell in error messages (:class:`~pdanon.InvalidInputError`).
    See :func:`pdanon.io.parse_generalized` for the typing rules.

    >>> p = parse_text(["{b, a}", "a", None], "unordered")
    >>> p.dtype.categories.tolist(), p.codes.tolist()
    (['a', 'b'], [2, 0, -1])
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if isinstance(categories, pd.CategoricalDtype):
        categories = categories.categories
    obj = object_array(values)
    try:
        codes, uniq = pd.factorize(obj, use_na_sentinel=True)
        uniq = object_array(uniq)
    except TypeError:  # unhashable values: parse row by row (and fail with a clear message)
        codes, uniq = None, obj
    where = _Where(column, index, codes)
    uniq, flags = _or_missing_texts(uniq, categories)
    na, is_str, txt = _classify(uniq, max_cell_length, where)
    if kind == "unordered":
        parsed = _parse_sets(uniq, na, is_str, txt, categories, where)
        parsed = parsed._replace(open=np.where(parsed.codes >= 0, flags, 0).astype(np.int8))
        if codes is None:
            return parsed
        return parsed._replace(codes=_expand(parsed.codes, codes, -1),
                               open=_expand(parsed.open, codes, 0))
    parsed = _parse_ranges(uniq, na, is_str, txt, kind, categories, where)
    parsed = parsed._replace(open=(parsed.open | np.where(parsed.mask, 0, flags)).astype(np.int8))
    if codes is None:
        return parsed
    fill = np.nan if parsed.dtype.categories is None else -1
    mask = _expand(parsed.mask, codes, True)
    return parsed._replace(lo=_expand(parsed.lo, codes, fill), hi=_expand(parsed.hi, codes, fill),
                           mask=mask, integer=parsed.integer and not mask.all(),
                           open=_expand(parsed.open, codes, 0))


def _or_missing_texts(uniq: np.ndarray, categories) -> tuple[np.ndarray, np.ndarray]:
    """Texts ending in ``" or missing"`` without it (unless the whole text is a category),
    and per value the flag :data:`~pdanon.dtype._common.OR_MISSING` where it was."""
    flags = np.zeros(len(uniq), dtype=np.int8)
    cats = None if categories is None else set(map(str, categories))
    out = uniq
    for i, v in enumerate(uniq):
        if isinstance(v, str) and v.rstrip().lower().endswith("missing") and not (
                cats is not None and v in cats):
            text, flagged = split_or_missing(v.rstrip())
            if flagged:
                if out is uniq:
                    out = uniq.copy()
                out[i], flags[i] = text, OR_MISSING
    return out, flags


def _expand(values: np.ndarray, codes: np.ndarray, fill) -> np.ndarray:
    """Per-distinct-value results -> per-row results (``fill`` where the code is -1)."""
    out = np.full(len(codes), fill, dtype=values.dtype)
    ok = codes >= 0
    out[ok] = values[codes[ok]]
    return out


def has_syntax(values, kind: str | None = None) -> bool:
    """True when some text cell is written as a range (``[..]``, ``[..)``, ``(..]``,
    ``(..)``) or a set ``{..}``; with ``kind``, only the syntax of that kind counts (ranges for
    real/ordered, sets for unordered).

    >>> has_syntax(["39", " [20, 29) "]), has_syntax(["39", "x"]), has_syntax(["(a, b)"], "unordered")
    (True, False, False)
    """
    ranges = kind in (None, "real", "ordered")
    sets = kind in (None, "unordered")
    for v in object_array(values):
        if isinstance(v, str):
            t = v.strip()
            if len(t) >= 2 and ((ranges and t[0] in "[(" and t[-1] in "])")
                                or (sets and t[0] == "{" and t[-1] == "}")):
                return True
    return False


def _classify(obj: np.ndarray, max_cell_length: int, where: _Where):
    """-> (na mask, is-string mask, stripped strings (object; '' where not a string))."""
    n = len(obj)
    is_str = np.fromiter((isinstance(v, str) for v in obj), dtype=bool, count=n)
    na = np.zeros(n, dtype=bool)
    txt = np.empty(n, dtype=object)
    txt[:] = ""
    str_idx = np.flatnonzero(is_str)
    if len(str_idx):
        strs = obj[str_idx]
        lengths = np.fromiter(map(len, strs), dtype=np.int64, count=len(strs))
        too_long = np.flatnonzero(lengths > max_cell_length)
        if len(too_long):
            k = int(str_idx[too_long[0]])
            raise InvalidInputError(
                f"{where(k)}: a cell of {int(lengths[too_long[0]]):,} characters is longer than "
                f"the limit of {max_cell_length:,} (max_cell_length); it starts "
                f"{obj[k][:_SHOWN]!r}")
        stripped = [s.strip() for s in strs]
        txt[str_idx] = stripped
        na[str_idx] = [len(t) <= 4 and t.lower() in NA_TEXTS for t in stripped]
        is_str[str_idx[na[str_idx]]] = False
    other = np.flatnonzero(~is_str & ~na)
    for i in other:
        na[i] = is_missing(obj[i])
    return na, is_str, txt


def _bracketed(txt: np.ndarray, is_str: np.ndarray, open_: str, close: str) -> np.ndarray:
    out = np.zeros(len(txt), dtype=bool)
    idx = np.flatnonzero(is_str)
    out[idx] = [len(t) >= 2 and t[0] == open_ and t[-1] == close for t in txt[idx]]
    return out


def _numbers(toks: list, cells: list, obj, is_str, txt, where: _Where) -> np.ndarray:
    """Text tokens -> float64 (one pass); the error names the row of the offending cell."""
    try:
        return np.fromiter(map(float, toks), dtype=np.float64, count=len(toks))
    except ValueError:
        for t, i in zip(toks, cells):
            try:
                float(t)
            except ValueError:
                whole = txt[i] if is_str[i] else obj[i]
                raise InvalidInputError(f"{where(i)}: cannot parse {_show(whole)} as a number or "
                                        "a range '[min, max]'") from None
        raise  # pragma: no cover


def _parse_ranges(obj, na, is_str, txt, kind, categories, where) -> ParsedBounds:
    n = len(obj)
    dtype = GeneralizationDtype(kind, categories)
    rng = _range_cells(txt, is_str, dtype)
    open_ = np.zeros(n, dtype=np.int8)
    for i in np.flatnonzero(rng):
        open_[i] = range_open(txt[i])
    valid = np.flatnonzero(~na)
    lo_tok = np.empty(n, dtype=object)
    hi_tok = np.empty(n, dtype=object)
    for i in valid:
        if rng[i]:
            try:
                lo_tok[i], hi_tok[i] = _range_bounds(txt[i][1:-1], dtype, txt[i])
            except ValueError as e:
                raise InvalidInputError(f"{where(i)}: {e}") from None
        elif is_str[i]:
            lo_tok[i] = hi_tok[i] = txt[i]
            unit = _calendar_cell(txt[i], dtype)
            if unit is not None:  # 2024-12: the categories from its first to its last day
                lo_tok[i], hi_tok[i] = unit
        else:
            lo_tok[i] = hi_tok[i] = obj[i]
    both = np.concatenate([lo_tok[valid], hi_tok[valid]])
    str_mask = np.fromiter((isinstance(t, str) for t in both), dtype=bool, count=len(both))
    if dtype.categories is None and kind == "ordered":
        toks = both[str_mask].tolist()
        try:
            for t in toks:
                float(t)
        except ValueError:  # not numbers: the categories are the sorted distinct values
            conv = _token_converter(toks) if str_mask.all() else str
            vals = object_array([conv(t) if isinstance(t, str) else t for t in both])
            dtype = GeneralizationDtype("ordered", infer_categories(vals, sort=True))
    if dtype.categories is not None:
        lookup, _ = dtype._cat_lookup
        pos = dtype._cat_pos
        lo = np.full(n, -1, dtype=np.int64)
        hi = np.full(n, -1, dtype=np.int64)
        for toks, out in ((lo_tok, lo), (hi_tok, hi)):
            for i in valid:
                out[i] = _token_position(toks[i], pos, lookup, dtype, where, i)
        bad = np.flatnonzero(lo > hi)
        if len(bad):
            i = int(bad[0])
            raise InvalidInputError(f"{where(i)}: range minimum {lo_tok[i]} comes after its "
                                    f"maximum {hi_tok[i]} in the category order")
        bad = np.flatnonzero(open_ != 0)
        if len(bad):
            i = int(bad[0])
            raise InvalidInputError(f"{where(i)}: {_show(txt[i])} has an open end, but a range of "
                                    f"ordered categories always holds both its bounds; write "
                                    f"'[{lo_tok[i]}, {hi_tok[i]}]'")
        return ParsedBounds(dtype, lo, hi, na.copy(), False, open_)
    lo = np.full(n, np.nan)
    hi = np.full(n, np.nan)
    text_cells = valid[is_str[valid]]
    integer = True
    if len(text_cells):
        lo_s, hi_s = lo_tok[text_cells].tolist(), hi_tok[text_cells].tolist()
        integer = all(map(_INT_RE.match, chain(lo_s, hi_s)))
        cells = text_cells.tolist()
        lo[text_cells] = _numbers(lo_s, cells, obj, is_str, txt, where)
        hi[text_cells] = _numbers(hi_s, cells, obj, is_str, txt, where)
    for i in valid[~is_str[valid]]:
        a = obj[i]
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, float, np.number)):
            raise InvalidInputError(f"{where(i)}: cannot parse {_show(a)} as a number or a range")
        integer = integer and isinstance(a, (int, np.integer))
        lo[i] = hi[i] = float(a)
    mask = na | np.isnan(lo) | np.isnan(hi)
    ok = ~mask
    bad = np.flatnonzero(ok & ~(np.isfinite(lo) & np.isfinite(hi)))
    if len(bad):
        i = int(bad[0])
        raise InvalidInputError(f"{where(i)}: bounds must be finite numbers, got "
                                f"{_show(txt[i] if is_str[i] else obj[i])}")
    bad = np.flatnonzero(ok & (lo > hi))
    if len(bad):
        i = int(bad[0])
        raise InvalidInputError(f"{where(i)}: range minimum {lo_tok[i]} is greater than its "
                                f"maximum {hi_tok[i]}")
    bad = np.flatnonzero(ok & (open_ != 0) & (lo == hi))
    if len(bad):
        i = int(bad[0])
        raise InvalidInputError(f"{where(i)}: the range {_show(txt[i])} is empty (an open end "
                                f"needs min < max); write the value {format_value(lo[i])}")
    lo[mask] = np.nan
    hi[mask] = np.nan
    open_[mask] = 0
    return ParsedBounds(dtype, lo + 0.0, hi + 0.0, mask, integer and bool(ok.any()), open_)


def _calendar_cell(text: str, dtype: GeneralizationDtype):
    """The first and last categories inside the month, quarter, year or decade ``text``
    names (``2024-12``, ``2024-Q4``, ``2024``, ``2020s``: how a cell covering exactly that unit
    is written), when the categories are dates and ``text`` is not itself a category; else
    None."""
    cats = dtype.categories
    # periods name their own units (a period[M] category is 2024-12 itself)
    if not dtype.dates_by_value or isinstance(cats, pd.PeriodIndex) or \
            text in dtype._cat_lookup[0]:
        return None
    unit = calendar_unit(text)
    if unit is None:
        return None
    start, after = unit
    if isinstance(cats, pd.DatetimeIndex):
        if cats.tz is not None:
            start, after = start.tz_localize(cats.tz), after.tz_localize(cats.tz)
        values = cats
    else:  # datetime.date categories
        values = pd.DatetimeIndex(pd.to_datetime(list(cats)))
    lo, hi = values.searchsorted(start, "left"), values.searchsorted(after, "left") - 1
    if lo > hi:
        return None
    return cats[lo], cats[hi]


def _range_cells(txt: np.ndarray, is_str: np.ndarray, dtype: GeneralizationDtype) -> np.ndarray:
    """Which texts are ranges: bracketed, and not a category that merely looks like one."""
    out = np.zeros(len(txt), dtype=bool)
    idx = np.flatnonzero(is_str)
    out[idx] = [len(t) >= 2 and t[0] in "[(" and t[-1] in "])" for t in txt[idx]]
    if dtype.categories is not None:
        lookup, _ = dtype._cat_lookup
        for i in np.flatnonzero(out):
            if txt[i] in lookup:
                out[i] = False
    return out


def _token_position(t, pos: dict, lookup: dict, dtype, where, k) -> int:
    """Category position of a token (text or value); the error names ``where(k)``."""
    p = lookup.get(t) if isinstance(t, str) else _position(t, pos, lookup)
    if p is None:
        raise InvalidInputError(f"{where(k)}: value {_show(t)} is not among the categories of "
                                f"{dtype!r}")
    return p


def _position(t, pos: dict, lookup: dict):
    """Category position of a non-text value: the value itself, else its text form."""
    try:
        p = pos.get(t)
    except TypeError:
        p = None
    return lookup.get(str(t)) if p is None else p


def _parse_sets(obj, na, is_str, txt, categories, where) -> ParsedSets:
    n = len(obj)
    dtype = GeneralizationDtype("unordered", categories)
    known = dtype.categories is not None
    is_set = _bracketed(txt, is_str, "{", "}")
    if known:
        pos = dtype._cat_pos
        for i in np.flatnonzero(is_set):
            if txt[i] in pos or obj[i] in pos:
                is_set[i] = False  # a category that merely looks like a set
    plain_idx = np.flatnonzero(~na & ~is_set)
    set_idx = np.flatnonzero(is_set)
    plain_tok = [txt[i] if is_str[i] else obj[i] for i in plain_idx]
    if known and any(isinstance(c, str) and c != c.strip() for c in dtype._cat_list):
        # categories with leading or trailing spaces (' a', 'a '): a plain cell written with
        # them is that category, not its stripped text
        pos = dtype._cat_pos
        plain_tok = [obj[i] if is_str[i] and obj[i] in pos and t not in pos else t
                     for i, t in zip(plain_idx, plain_tok)]
    inners = [s[1:-1] for s in txt[set_idx]]
    if known:
        # split every set cell at once at ', '; cells with a piece that is not a category
        # (categories holding ', ', or text such as '{a,b}') are split again on their own
        counts = np.fromiter((s.count(", ") for s in inners), np.int64, len(inners)) + 1
        flat = ", ".join(inners).split(", ") if inners else []
        cell = np.repeat(np.arange(len(inners)), counts)
        _check_empty(inners, counts, flat, set_idx, txt, where)
        member_codes = _lookup_codes(flat, dtype)
        redo = np.unique(cell[member_codes < 0])
        if len(redo):
            keep = ~np.isin(cell, redo)
            again = [_set_members(inners[j], dtype) for j in redo]
            again_cell = np.repeat(redo, [len(m) for m in again])
            again_codes = _codes(list(chain.from_iterable(again)), dtype,
                                 lambda j: where(int(set_idx[again_cell[j]])))
            cell = np.concatenate([cell[keep], again_cell])
            member_codes = np.concatenate([member_codes[keep], again_codes])
    else:
        counts = np.fromiter((s.count(",") for s in inners), np.int64, len(inners)) + 1
        flat = list(map(str.strip, ",".join(inners).split(","))) if inners else []
        cell = np.repeat(np.arange(len(inners)), counts)
        _check_empty(inners, counts, flat, set_idx, txt, where)
        has_nonstr = any(not isinstance(t, str) for t in plain_tok)
        conv = str if has_nonstr else _token_converter(
            [t for t in plain_tok if isinstance(t, str)] + flat)
        if conv is not str:
            plain_tok = [conv(t) if isinstance(t, str) else t for t in plain_tok]
            flat = list(map(conv, flat))
        # the categories are the sorted distinct values: hash the values once
        values = object_array(plain_tok + flat)
        vcodes, distinct = pd.factorize(values)
        cats = infer_categories(object_array(distinct), sort=True)
        dtype = GeneralizationDtype("unordered", cats)
        order = cats.get_indexer(pd.Index(object_array(distinct), tupleize_cols=False))
        all_codes = order[vcodes].astype(np.int64)
    c = dtype._n_categories
    codes = np.full(n, -1, dtype=np.int64)
    rows = set_idx[cell] if len(set_idx) else np.zeros(0, dtype=np.int64)
    if known:
        plain_codes = _codes(plain_tok, dtype, lambda j: where(int(plain_idx[j])))
    else:
        plain_codes, member_codes = all_codes[:len(plain_tok)], all_codes[len(plain_tok):]
    codes[plain_idx] = plain_codes
    table = SetTable()
    if len(set_idx):
        scodes, table = sets_from_pairs(n, rows, member_codes, c)
        codes[set_idx] = scodes[set_idx]
    return ParsedSets(dtype, codes, table)


def _check_empty(inners, counts, flat, set_idx, txt, where) -> None:
    """An empty set (``{}``, ``{ }``) cannot be stored: its single piece is blank."""
    if not len(counts):
        return
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    for j in np.flatnonzero(counts == 1):
        if not flat[starts[j]].strip():
            i = int(set_idx[j])
            raise InvalidInputError(f"{where(i)}: an empty set {_show(txt[i])} cannot be stored "
                                    "(use NaN)")


def _lookup_codes(tokens: list, dtype: GeneralizationDtype) -> np.ndarray:
    """Category positions of text tokens in one vectorized lookup (-1 when not found)."""
    if not tokens:
        return np.zeros(0, dtype=np.int64)
    lookup, _ = dtype._cat_lookup
    keys = pd.Index(list(lookup), dtype=object)
    pos = np.fromiter(lookup.values(), dtype=np.int64, count=len(lookup))
    found = keys.get_indexer(pd.Index(object_array(tokens), dtype=object))
    return np.where(found >= 0, pos[found], -1) if len(pos) else np.full(len(tokens), -1)


def _codes(toks: list, dtype: GeneralizationDtype, cell_of) -> np.ndarray:
    """Category positions of tokens (text or values); the error names the cell's row."""
    pos = dtype._cat_pos
    lookup, _ = dtype._cat_lookup
    is_text = np.fromiter((isinstance(t, str) for t in toks), dtype=bool, count=len(toks))
    out = np.full(len(toks), -1, dtype=np.int64)
    if is_text.all():
        out = _lookup_codes(toks, dtype)
    for j in np.flatnonzero(out < 0):
        out[j] = _token_position(toks[j], pos, lookup, dtype, cell_of, int(j))
    return out
