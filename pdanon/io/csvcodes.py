"""What a CSV file's text means, where pandas' reading of it would lose something:
:func:`pdanon.read_csv` runs these around :func:`pandas.read_csv`.

* **Codes keep their leading zeros.** pandas reads ``02139`` as the number 2139 and ``007``
  as 7. A column that pandas took as numbers, whose kind no schema gives (or gives as
  ``ordered`` without categories), stays text when one of its cells is a number written
  with a leading zero (``04777``, ``-05``: the command line's rule,
  :data:`LEADING_ZERO`); a ``real`` column keeps its numbers and warns.
* **A value that pandas takes for a missing cell stays a value.** ``NA`` (Namibia),
  ``None`` (an answer) or ``null`` are values when the schema lists them among a column's
  categories, or records the column as text (``df.anon.schema`` does): a file written from
  that frame holds its missing cells as empty fields.
* **One name, one column.** A header that names a column twice (pandas would rename the
  second ``zip.1`` and publish it unprotected) is refused.
* **A byte that is not text names its line.** A file in another encoding than the one
  asked (a cp1252 export read as UTF-8) is an :class:`UndecodableError` naming the line, the
  byte and the ``encoding=`` that reads it, not a bare ``UnicodeDecodeError``.
* **Blank is missing.** A blank field of a column pandas could not read as numbers (integers
  beyond 2**64) comes back as missing, not as the empty text ``""``.

Example
-------
>>> import io
>>> text = "zip,n\\n02139,1\\n10001,2\\n"
>>> import pdanon
>>> pdanon.read_csv(io.StringIO(text))["zip"].tolist()
['02139', '10001']
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindWarning, user_stacklevel

__all__ = ["ISO_DATE", "LEADING_ZERO", "PANDAS_NA_TEXTS", "TEXT_DTYPES", "UndecodableError",
           "codes_as_text", "complete_lines", "field_names", "first_bad_date", "header_names",
           "integer_texts_beyond_float", "leading_zero_cells", "na_values_for",
           "refuse_beyond_float", "refuse_repeated_names", "start_of", "undecodable",
           "whole_numbers_with_blanks", "zero_led_fields"]

#: a number written with a leading zero (``04777``, ``-05``): a code, whose zero a number loses
LEADING_ZERO = r"^[+-]?0\d"
#: an ISO 8601 date or date-time, as to_csv writes datetimes
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?"
                      r"(Z|[+-]\d{2}:?\d{2})?$")
#: the texts :func:`pandas.read_csv` reads as missing by default (its documented list)
PANDAS_NA_TEXTS = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                   "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a",
                   "nan", "null")
#: read_csv keywords that say how a header or missing cells are read: given by the caller,
#: pdanon leaves those matters to pandas
_NA_KEYWORDS = ("na_values", "keep_default_na", "na_filter")
#: dtypes a schema records for a column of text
TEXT_DTYPES = ("str", "object", "string", "string[python]", "string[pyarrow]")
_HEADER_KEYWORDS = ("names", "skiprows", "comment", "skipfooter", "engine")


def start_of(path) -> int | None:
    """Where a file object stands before pandas reads it (a stream is read from there), or
    None for a path or a stream that cannot seek."""
    if hasattr(path, "read") and hasattr(path, "seekable") and path.seekable():
        return path.tell()
    return None


def _rewind(path, start: int | None) -> bool:
    """Seek a file object back to ``start``; False when it cannot be read twice."""
    if not hasattr(path, "read"):
        return True
    if start is None:
        return False
    path.seek(start)
    return True


def header_names(path, kwargs: dict, start: int | None = None) -> list | None:
    """The column names of the header line as written (before pandas renames a repeated
    one), or None when the caller's options make them something else (``names=``,
    ``header=None``, ``usecols=``, ...) or the source cannot be read twice."""
    if kwargs.get("header", "infer") not in ("infer", 0) or any(
            kwargs.get(k) is not None for k in _HEADER_KEYWORDS):
        return None
    if not _rewind(path, start):
        return None
    keep = {k: v for k, v in kwargs.items()
            if k in ("sep", "delimiter", "quotechar", "escapechar", "doublequote",
                     "encoding", "encoding_errors", "compression", "skipinitialspace",
                     "quoting")}
    try:
        first = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False,
                            index_col=False, **keep)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError,
            ValueError):
        return None
    finally:
        _rewind(path, start)
    return [str(v) for v in first.iloc[0]] if len(first) else []


def field_names(header: list | None, df: pd.DataFrame, kwargs: dict) -> list | None:
    """The name of the column each field position of the file lands in: the header's
    (``header``, as :func:`header_names` read it), the ``names=`` given, or the positions
    themselves without a header; None when ``usecols=`` or an index column shift them in a
    way not worked out here."""
    if header is not None:
        return header
    if kwargs.get("usecols") is not None or kwargs.get("index_col") not in (None, False):
        return None
    if kwargs.get("names") is not None:
        return list(kwargs["names"])
    if kwargs.get("header", "infer") is None:
        return list(df.columns)
    return None


def refuse_repeated_names(names: list | None, path) -> None:
    """A header naming a column twice is refused (pandas would rename the second copy
    ``name.1``, and nothing would say it holds the same data)."""
    if not names:
        return
    seen, twice = set(), []
    for n in names:
        if n == "":
            continue  # pandas names an empty header field 'Unnamed: i' (its position)
        if n in seen and n not in twice:
            twice.append(n)
        seen.add(n)
    if twice:
        where = path if isinstance(path, str) else "the file"
        raise InvalidInputError(
            f"{where}: the header names column(s) {twice} more than once; rename them so "
            f"that every column has its own name (pandas would read the second as "
            f"'{twice[0]}.1' and publish it without the first's role)")


def na_values_for(names: list | None, specs: dict, kwargs: dict) -> dict:
    """``read_csv`` keywords under which a text the schema lists among a column's
    categories (``NA``, ``None``) is read as that value, every other column as pandas
    reads it. Unchanged when the caller says how to read missing cells, or the header is
    unknown."""
    if names is None or any(k in kwargs for k in _NA_KEYWORDS):
        return kwargs
    values = {}
    for col, spec in specs.items():
        cats, dtype = spec.get("categories"), str(spec.get("dtype"))
        if col not in names:
            continue
        if cats is not None:
            listed = {str(c) for c in cats if isinstance(c, str)}
            if listed & set(PANDAS_NA_TEXTS):
                values[col] = [t for t in PANDAS_NA_TEXTS if t not in listed]
        elif dtype in TEXT_DTYPES:
            # a column the schema records as text was written from a frame whose missing
            # cells are empty fields: every other text is a value
            values[col] = [""]
    if not values:
        return kwargs
    per_column = {c: values.get(c, list(PANDAS_NA_TEXTS)) for c in names}
    return {**kwargs, "keep_default_na": False, "na_values": per_column}


def codes_as_text(df: pd.DataFrame, path, kwargs: dict, specs: dict, reader,
                  start: int | None = None, scan=None, names=None) -> pd.DataFrame:
    """``df`` (pandas' reading of ``path``) with every column of codes as text: a column
    pandas read as numbers, that the caller gave no ``dtype`` and the schema no kind (or the
    kind ``ordered`` without categories), whose text holds a number written with a leading
    zero. Such columns are read again as text (``reader``: pandas' read with ``kwargs``),
    once, for those columns only. A ``real`` column keeps its numbers and warns. A blank
    field of a column pandas left as text is missing."""
    given = kwargs.get("dtype")
    if given is not None and not isinstance(given, dict):
        return _blank_is_missing(df, kwargs)
    given = given or {}
    told = _told(kwargs, names if names is not None else list(df.columns))
    candidates, real = [], []
    for c in df.columns:
        dtype = df[c].dtype
        if c in told or not (
                pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_float_dtype(dtype)):
            continue
        spec = specs.get(c) or {}
        kind = spec.get("kind")
        if kind is None or (kind == "ordered" and spec.get("categories") is None
                            and spec.get("dtype") is None):
            candidates.append(c)
        elif kind == "real":
            real.append(c)
    # read again only what may have lost something: the columns whose fields hold a number
    # with a leading zero (scan: one pass over the bytes, giving their positions), and the
    # float columns holding whole numbers beyond 2**53
    rounded = {c for c in candidates + real
               if pd.api.types.is_float_dtype(df[c].dtype) and _rounded(df[c])}
    if (candidates or real) and scan is not None and names is not None and \
            _rewind(path, start):
        fields = scan(path, kwargs)
        if fields is not None:
            keep = {names[i] for i in fields if i < len(names)} | rounded
            candidates = [c for c in candidates if c in keep]
            real = [c for c in real if c in keep]
    if (candidates or real) and _rewind(path, start) and not _repeated(df.columns):
        text = reader(path, _read_again(kwargs, {**given, **{c: str for c in candidates + real}},
                                        candidates + real))
        for c in candidates + real:
            if c in rounded and \
                    integer_texts_beyond_float(text[c].to_numpy(dtype=object)) is not None:
                # integers beyond 2**53 a float rounded (two can merge): codes, kept as
                # text (a real column's reading then says so, naming the cell)
                df[c] = text[c].set_axis(df.index)
                continue
            zeros = leading_zero_cells(text[c])
            if not len(zeros):
                continue
            if c in real:
                warnings.warn(
                    f"column {c!r} is real, so its codes with leading zeros became numbers "
                    f"({zeros.iloc[0]!r} -> {df[c].loc[zeros.index[0]]:g}); if they are codes "
                    f"(ZIP, ICD), give the schema the kind 'unordered'", KindWarning,
                    stacklevel=user_stacklevel())
                continue
            df[c] = text[c].set_axis(df.index)
    return _blank_is_missing(df, kwargs)


#: read_csv keywords that say how particular columns are read, none of them the numbers
#: that :func:`codes_as_text` reads again
_OTHER_COLUMNS = ("parse_dates", "date_format", "dayfirst", "converters", "true_values",
                  "false_values")


def _read_again(kwargs: dict, dtype: dict, columns: list) -> dict:
    """The read_csv keywords that read ``columns`` again with ``dtype``: only those columns
    when the caller chose none (``usecols``, ``index_col``), and then without the keywords
    that name other columns (``parse_dates=`` naming a column left out is an error, a
    position would name another column)."""
    again = dict(kwargs, dtype=dtype)
    index_col = kwargs.get("index_col")
    if kwargs.get("usecols") is None and (index_col is None or index_col is False):
        again["usecols"] = list(columns)
        again = {k: v for k, v in again.items() if k not in _OTHER_COLUMNS}
    return again


def _told(kwargs: dict, names: list) -> set:
    """The columns whose reading the caller chose (``dtype``, ``converters``, ``parse_dates``
    keys, by name or by position in ``names``): pdanon leaves them as pandas read them."""
    told = set()
    for key in ("dtype", "converters", "parse_dates"):
        given = kwargs.get(key)
        if not isinstance(given, (dict, list, tuple)):
            continue
        for c in given:
            told.add(c)
            if isinstance(c, int) and not isinstance(c, bool) and 0 <= c < len(names):
                told.add(names[c])
    return told


def whole_numbers_with_blanks(df: pd.DataFrame, path, kwargs: dict, specs: dict, reader,
                              start: int | None = None) -> pd.DataFrame:
    """``df`` with every column of whole numbers that pandas read as floats only because a
    field is blank (``1,,3``: ``1.0, NaN, 3.0``) read as ``Int64`` (``1, <NA>, 3``), as the
    command line reads it (:func:`pdanon.cli.common.numbers_column`): a release then writes
    ``2``, not ``2.0``, from either face. Only columns the caller gave no ``dtype`` or
    converter and the schema no description, whose text holds no ``.`` or exponent (a field
    written ``2.0`` keeps the column float), read again as text once, for those columns."""
    given = kwargs.get("dtype")
    if given is not None and not isinstance(given, dict):
        return df
    given = given or {}
    skip = set(given) | set(kwargs.get("converters") or {}) | set(specs)
    candidates = []
    for c in df.columns:
        if c in skip or not pd.api.types.is_float_dtype(df[c].dtype):
            continue
        v = df[c].to_numpy(dtype=np.float64, na_value=np.nan)
        known = np.isfinite(v)
        if known.all() or not known.any() or np.isinf(v).any():
            continue
        if np.all(v[known] == np.round(v[known])) and np.abs(v[known]).max() < 2.0 ** 53:
            candidates.append(c)
    if not candidates or _repeated(df.columns) or not _rewind(path, start):
        return df
    text = reader(path, _read_again(kwargs, {**given, **{c: str for c in candidates}},
                                    candidates))
    for c in candidates:
        cells = text[c].dropna().to_numpy(dtype=object)  # read as text: str cells
        joined = "\x00".join(map(str, cells))  # one pass in C, no per-cell regex
        if not any(mark in joined for mark in ".eE"):
            df[c] = df[c].astype("Int64")
    return df


def leading_zero_cells(values) -> pd.Series:
    """The cells of ``values`` (text) that are numbers written with a leading zero (codes:
    ``02139``, ``-05``), stripped, with their index."""
    cells = pd.Series(values, dtype=object).dropna().astype(str).str.strip()
    return cells[cells.str.match(LEADING_ZERO)]


def complete_lines(b: np.ndarray, quote: int) -> int:
    """The length of the whole lines of ``b`` that end outside quotes (``b`` starts a line
    outside quotes)."""
    ends = np.flatnonzero((b == 10) | (b == 13))
    quotes = np.flatnonzero(b == quote)
    if len(quotes) and len(ends):
        ends = ends[np.searchsorted(quotes, ends) % 2 == 0]  # outside quotes
    return int(ends[-1]) + 1 if len(ends) else 0


def zero_led_fields(b: np.ndarray, sep: int, quote: int) -> set:
    """The field positions, in a block of whole lines, of the fields that begin (after at
    most two of space, quote, plus, minus) with ``0`` and a digit."""
    if len(b) < 2:
        return set()
    at = np.flatnonzero((b[:-1] == 48) & (b[1:] >= 48) & (b[1:] <= 57))  # "0" then a digit
    if not len(at):
        return set()
    padded = np.concatenate([np.array([10, 10, 10], dtype=np.uint8), b])  # lines start here

    def start(k):  # is the byte k places before each "0" where a field starts?
        c = padded[at + 3 - k]
        return (c == sep) | (c == 10) | (c == 13)

    def prefix(k):
        c = padded[at + 3 - k]
        return (c == 32) | (c == quote) | (c == 43) | (c == 45)

    one, two, three = start(1), prefix(1) & start(2), prefix(1) & prefix(2) & start(3)
    led = one | two | three
    # where each field begins (its first prefix character, or the "0")
    first = at - np.where(one, 0, np.where(two, 1, 2))
    at, first = at[led], first[led]
    if not len(at):
        return set()
    # the field of each: the separators outside quotes between its line's start and it
    quotes = np.flatnonzero(b == quote)

    def outside(pos):  # positions not inside a quoted field (an even count of quotes before)
        return pos if not len(quotes) else pos[np.searchsorted(quotes, pos) % 2 == 0]

    if len(quotes):  # a "0" on a line of a quoted cell starts no field
        at = at[np.searchsorted(quotes, first) % 2 == 0]
    if not len(at):
        return set()
    seps = outside(np.flatnonzero(b == sep))
    ends = outside(np.flatnonzero((b == 10) | (b == 13)))
    line = np.searchsorted(ends, at)  # the line of each match
    starts = np.where(line > 0, ends[np.maximum(line - 1, 0)] + 1, 0)
    return set((np.searchsorted(seps, at) - np.searchsorted(seps, starts)).tolist())


def integer_texts_beyond_float(values) -> int | None:
    """The position of the first cell that is (or is written as) an integer beyond 2**53
    (which a float rounds: two of them can merge), or None. Only cells of 16 characters or
    more, or Python integers (pandas' reading of integers beyond 2**64), are looked at."""
    lengths = pd.Series(values, dtype=object).map(
        lambda v: len(v) if isinstance(v, str) else (99 if isinstance(v, int) else 0))
    for i in np.flatnonzero(lengths.to_numpy() >= 16):
        v = values[i]
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            if abs(v) >= 2 ** 53:
                return int(i)
            continue
        t = v.strip().lstrip("+-")
        if t.isdigit() and int(t) >= 2 ** 53:
            return int(i)
    return None


def _rounded(s: pd.Series) -> bool:
    """Does a float column hold a whole number beyond 2**53 (where floats skip integers)?"""
    v = s.to_numpy(dtype=np.float64, na_value=np.nan)
    return bool((np.isfinite(v) & (np.abs(v) >= 2.0 ** 53) & (v == np.floor(v))).any())


def _repeated(columns) -> bool:
    return not pd.Index(columns).is_unique


def _blank_is_missing(df: pd.DataFrame, kwargs: dict) -> pd.DataFrame:
    """pandas leaves a blank field as ``""`` in a column it tried to read as numbers beyond
    2**64; blank is missing there as everywhere."""
    if kwargs.get("na_filter") is False or kwargs.get("keep_default_na") is False:
        return df
    for c in df.columns:
        s = df[c]
        if len(s) and (s.dtype == object or pd.api.types.is_string_dtype(s.dtype)):
            blank = s.eq("").to_numpy(dtype=bool, na_value=False)
            if blank.any():
                df[c] = s.mask(blank)
    return df


def first_bad_date(text: pd.Series):
    """``(index label, text)`` of the first present cell of ``text`` that is not an ISO 8601
    date or names no day (``2024-02-30``, ``2024-01-06T25:00``), or None.

    Example
    -------
    >>> first_bad_date(pd.Series(["2024-01-05", "2024-02-30", "x"]))
    (1, '2024-02-30')
    """
    cells = text[text.notna()].astype(str).str.strip()
    parsed = pd.to_datetime(cells.where(cells.str.match(ISO_DATE)), format="ISO8601",
                            errors="coerce", utc=True)
    bad = parsed.isna().to_numpy()
    if not bad.any():
        return None
    at = int(np.flatnonzero(bad)[0])
    return cells.index[at], cells.iloc[at]


def refuse_beyond_float(col, row, kind: str, text=None) -> None:
    shown = f" ({text!r})" if text is not None else ""
    raise InvalidInputError(
        f"column {col!r}, row {row!r}: an integer beyond 2**53{shown}, which a column of "
        f"numbers ({kind}) rounds (neighbouring values merge, as 98765432109876543210 and "
        f"98765432109876543211 do); if the column holds codes or identifiers, give the "
        f"schema the kind 'unordered' (read as text)")


#: encodings an export is often in, tried in this order for the advice of an undecodable file
_LIKELY_ENCODINGS = ("utf-8", "cp1252", "latin-1")
_SCAN_BLOCK = 1 << 22


class UndecodableError(InvalidInputError):
    """A CSV file holds a byte that is not text in the encoding it was read with (a
    ``ValueError``, as ``UnicodeDecodeError`` is). ``line`` (1 for the header; None when
    unknown), ``byte``, ``encoding`` and ``suggested`` (an encoding that reads the line)
    say where and what; the message says the fix in Python (``encoding=``),
    :meth:`text` in another's words (the command line's ``--encoding``)."""

    def __init__(self, name, line, byte, encoding, excerpt, suggested):
        self.name, self.line, self.byte, self.encoding = name, line, byte, encoding
        self.excerpt, self.suggested = excerpt, suggested
        super().__init__(self.text(f"read it with encoding={suggested!r}, or save it as UTF-8"))

    def text(self, fix: str) -> str:
        """The message with ``fix`` as the way to read the file."""
        where = f"line {self.line}" if self.line is not None else "the file"
        near = f" in {self.excerpt!r}" if self.excerpt else ""
        byte = f"byte 0x{self.byte:02x}" if self.byte is not None else "a byte"
        name = repr(self.name) if self.name else "the file"
        return (f"cannot read {name}: {where} is not {self.encoding} text ({byte}{near}); "
                f"the file was written in another encoding (cp1252 and latin-1 are usual for "
                f"Windows and Western European exports): {fix}")


def undecodable(opener, encoding: str, exc: UnicodeDecodeError, name=None) -> UndecodableError:
    """The :class:`UndecodableError` for ``exc``: the first byte of the file (``opener()``: a
    context manager giving its bytes, as :func:`pdanon.io.check_field_counts` opens it; None
    when the bytes cannot be read again) that is not ``encoding`` text, found in one pass in
    blocks, and its line.

    Example
    -------
    >>> import io
    >>> data = b"name,age\\nAnn,30\\nC\\xf4te,52\\n"
    >>> try:
    ...     data.decode("utf-8")
    ... except UnicodeDecodeError as exc:
    ...     error = undecodable(lambda: io.BytesIO(data), "utf-8", exc, "people.csv")
    >>> error.line, error.suggested
    (3, 'cp1252')
    >>> print(error)  # doctest: +NORMALIZE_WHITESPACE
    cannot read 'people.csv': line 3 is not utf-8 text (byte 0xf4 in 'C\ufffdte,52'); the
    file was written in another encoding (cp1252 and latin-1 are usual for Windows and Western
    European exports): read it with encoding='cp1252', or save it as UTF-8
    """
    import codecs

    found = _first_bad_byte(opener, encoding) if opener is not None else None
    if found is None:  # the error as raised: its bytes, without the line
        data, at, line = exc.object, exc.start, None
    else:
        data, at, line = found
    data = bytes(data)
    begin = data.rfind(b"\n", 0, at) + 1
    end = data.find(b"\n", at)
    row = data[begin:end if end >= 0 else len(data)].rstrip(b"\r")
    excerpt = row[max(0, at - begin - 30):at - begin + 30].decode(encoding, "replace")
    given = codecs.lookup(encoding).name
    suggested = next((e for e in _LIKELY_ENCODINGS if codecs.lookup(e).name != given
                      and _decodes(row, e)), "latin-1")
    return UndecodableError(name, line, data[at] if at < len(data) else None, encoding,
                            excerpt.strip(), suggested)


def _decodes(data: bytes, encoding: str) -> bool:
    try:
        data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def _first_bad_byte(opener, encoding: str):
    """``(bytes, position, line)`` of the first byte of the stream that is not ``encoding``
    text (``bytes`` the block that holds it), or None when every byte decodes."""
    import codecs

    decoder = codecs.getincrementaldecoder(encoding)("strict")
    lines = 0
    try:
        with opener() as raw:
            if raw is None:
                return None
            while True:
                block = raw.read(_SCAN_BLOCK)
                try:
                    decoder.decode(block, final=not block)
                except UnicodeDecodeError as exc:
                    # exc.object: the bytes kept from the block before (part of one
                    # character, never a line break) and this block
                    return exc.object, exc.start, lines + exc.object.count(b"\n", 0,
                                                                           exc.start) + 1
                if not block:
                    return None
                lines += block.count(b"\n")
    except (OSError, EOFError, ValueError):
        return None
