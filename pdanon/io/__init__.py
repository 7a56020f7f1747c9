"""Reading generalized cells back from text (CSV).

``df.to_csv()`` writes a generalized cell in its text form: ``[20, 29]`` for a range,
``{Asian, White}`` for a set, the plain value otherwise (missing cells are empty). This module
turns such text back into the ``generalization[...]`` dtype:

* :func:`parse_generalized` parses one column of strings;
* :func:`read_csv` is :func:`pandas.read_csv` followed, per a schema, by restoring what each
  column stores (generalized cells, Categorical categories and order, dtypes) and checking
  every column against its kind; errors name the column, the row and the offending text;
* :func:`check_field_counts` checks that every line of a CSV file has as many fields as its
  header, in one pass linear in the file's size (:func:`read_csv` and ``depersonalize`` run
  it first, so a ragged line is an error naming it, never shifted columns).

Example
-------
>>> import io as _io
>>> text = 'age,race\\n39,White\\n"[20, 29]","{Asian, White}"\\n'
>>> df = read_csv(_io.StringIO(text), schema={"age": "real", "race": "unordered"})
>>> df.dtypes.astype(str).tolist()
['generalization[real]', 'generalization[unordered]']
>>> df["age"].tolist()
[39, [20, 29]]
"""

from __future__ import annotations

import contextlib
import csv
import io as _io
import os
import re
import sys
import threading
import warnings
from typing import Mapping

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.io.csvcodes import ISO_DATE, TEXT_DTYPES, complete_lines, leading_zero_cells, \
    zero_led_fields
from pdanon.dtype import KINDS, GeneralizationArray, GeneralizationDtype
from pdanon.dtype.text import MAX_CELL_LENGTH, ParsedSets, has_syntax, parse_text
from pdanon.dtype._common import categories_from_plain, dates_in_order
from pdanon.roles import schema_block

__all__ = ["parse_generalized", "read_csv", "check_field_counts", "decode_error",
           "leading_zero_fields", "MAX_CELL_LENGTH"]


def parse_generalized(strings, kind: str, categories=None, *,
                      max_cell_length: int = MAX_CELL_LENGTH, column=None) -> GeneralizationArray:
    """Parse the text form of generalized cells into a :class:`GeneralizationArray`.

    Parameters
    ----------
    strings : array-like
        Text cells: ``"[20, 29]"`` (range; ``"[30, 35)"``, ``"(30, 35]"``, ``"(30, 35)"``
        when an end does not belong to it), ``"{Asian, White}"`` (set), a plain value
        (``"39"``, ``"White"``) or missing (NaN, empty, ``nan``, ``None``, ``null``). Non-string
        values (e.g. numbers that ``read_csv`` already converted) are taken as plain values.
    kind : {'real', 'ordered', 'unordered'}
    categories : sequence, optional
        Ordered categories (ordered) or the possible values (unordered). Text is matched to
        them by its string form, so integer categories come back as integers. Without
        categories, an ordered column is numeric when every value parses as a number
        (otherwise its categories are the sorted distinct values), and unordered values are
        typed as int, float or str (whichever all of them parse as).
    max_cell_length : int, default :data:`MAX_CELL_LENGTH` (1,000,000)
        Longest cell text accepted, in characters.
    column : optional
        Name of the column, used in error messages.

    Raises
    ------
    pdanon.InvalidInputError
        (a ``ValueError``) for text that is not a cell of this kind, a value outside the
        categories or a cell longer than ``max_cell_length``; the message names the column,
        the row (its position in ``strings``) and the offending text.

    Examples
    --------
    >>> parse_generalized(["39", "[20, 29]", None], "real").tolist()
    [39, [20, 29], nan]
    >>> parse_generalized(["White", "{Asian, White}"], "unordered").tolist()
    ['White', {Asian, White}]
    >>> parse_generalized(["{1, 2}", "3"], "unordered").dtype.categories.tolist()
    [1, 2, 3]
    >>> parse_generalized(["1", "[1, x]"], "real", column="age")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: column 'age', row 1: cannot parse '[1, x]' as a number...
    """
    return GeneralizationArray._from_text(strings, kind, categories,
                                          max_cell_length=max_cell_length, column=column)


# ---------------------------------------------------------------------------------------------
# field counts: every line as wide as the header
# ---------------------------------------------------------------------------------------------

# compression pandas infers from a file name; tar and zstd (checked first, as pandas does)
# are left to pandas, the others are opened with the standard library
_TAR_OR_ZSTD = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".zst")
_SUFFIX_COMPRESSION = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zip": "zip"}
# pandas.read_csv options the check does not reproduce: with one of them read_csv leaves the
# field counts to pandas (told index_col=False; its "longer line" warning is an error)
_UNMODELED = ("comment", "skiprows", "skipfooter", "lineterminator", "delim_whitespace",
              "dialect", "chunksize", "iterator", "storage_options")
# encodings in which the bytes of ASCII characters only ever stand for those characters
_ASCII_SAFE = ("utf-8", "ascii", "latin-1", "iso8859-1", "cp1252")
_BLOCK = 1 << 22  # bytes per block of the vectorized scan
_LF, _CR, _SP, _TAB = 10, 13, 32, 9
_LIMIT_LOCK = threading.Lock()
_FALLBACK = object()


def _blank_bytes() -> np.ndarray:
    """``table[q][b]``: byte ``b`` is blank (space, tab, CR, LF) or the quote ``q``."""
    table = np.zeros((256, 256), dtype=bool)
    table[:, [_SP, _TAB, _CR, _LF]] = True
    table[np.arange(256), np.arange(256)] = True
    return table


_BLANK_BYTES = _blank_bytes()


@contextlib.contextmanager
def _no_field_size_limit():
    """The csv module refuses fields over 128 KiB by default (pandas has no such limit):
    lift it for one scan, then put the caller's limit back."""
    with _LIMIT_LOCK:
        old = csv.field_size_limit()
        try:
            csv.field_size_limit(sys.maxsize)
        except OverflowError:  # a 32-bit C long
            csv.field_size_limit(2**31 - 1)
        try:
            yield
        finally:
            csv.field_size_limit(old)


def _codec(encoding) -> str:
    import codecs

    return "utf-8" if encoding is None else codecs.lookup(encoding).name


def _compression(path: str, compression):
    """The compression method pandas would use for ``path``: None (plain), 'gzip', 'bz2',
    'xz', 'zip', or False when the check cannot open it (tar, zstd, unknown)."""
    method = compression.get("method") if isinstance(compression, Mapping) else compression
    if method == "infer":
        name = path.lower()
        if name.endswith(_TAR_OR_ZSTD):
            return False
        return next((m for suffix, m in _SUFFIX_COMPRESSION.items() if name.endswith(suffix)),
                    None)
    if method is None or method in _SUFFIX_COMPRESSION.values():
        return method
    return False


@contextlib.contextmanager
def _zip_member(path):
    import zipfile

    with zipfile.ZipFile(path) as archive:
        names = [n for n in archive.namelist()
                 if not n.endswith("/") and not n.startswith("__MACOSX/")]
        if len(names) != 1:  # pandas refuses these itself
            yield None
            return
        with archive.open(names[0]) as raw:
            yield raw


class _Utf8Reader(_io.RawIOBase):
    """A text stream, from where it stands, as UTF-8 bytes (what the scans read)."""

    def __init__(self, text):
        self._text = text
        self._pending = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not len(self._pending):
            chunk = self._text.read(max(len(buffer) // 4, 1))
            if not chunk:
                return 0
            self._pending = memoryview(chunk.encode("utf-8", "surrogatepass"))
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


def _binary_opener(source, compression):
    """``(open, text)``: a function opening the source as a binary stream from its start (a
    context manager; a file object is read from where it stood, and not closed), and whether
    the source is text (then its bytes are UTF-8); ``(None, False)`` for a source the check
    does not open (a URL, tar or zstd compression)."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        method = _compression(path, compression)
        if (isinstance(path, str) and "://" in path[:32]) or method is False:
            return None, False
        if method == "zip":
            return (lambda: _zip_member(path)), False
        if method is None:
            return (lambda: open(path, "rb")), False
        module = {"gzip": "gzip", "bz2": "bz2", "xz": "lzma"}[method]
        return (lambda: __import__(module).open(path, "rb")), False
    position = source.tell()
    text = isinstance(source, _io.TextIOBase) or isinstance(source.read(0), str)

    def reopen():
        source.seek(position)
        return contextlib.nullcontext(_io.BufferedReader(_Utf8Reader(source)) if text
                                      else source)

    return reopen, text


def leading_zero_fields(source, kwargs: dict) -> set | None:
    """The positions (0, 1, ...) of the fields of the CSV ``source`` in which some line holds
    a number written with a leading zero (``02139``, ``-07``, ``"0123"``): one vectorized
    pass over its bytes, quotes honoured (:func:`pdanon.read_csv` reads those columns again
    as text). None when the bytes cannot be scanned (a URL, tar or zstd, an encoding whose
    digits are not single bytes, a separator of several characters).

    Example
    -------
    >>> text = 'zip,n,"a, b"' + chr(10) + '02139,5,x' + chr(10) + '"[1, 2]",07,y' + chr(10)
    >>> sorted(leading_zero_fields(_io.StringIO(text), {}))
    [0, 1]
    """
    sep = kwargs.get("sep", kwargs.get("delimiter", ","))
    codec = _codec(kwargs.get("encoding"))
    quote = kwargs.get("quotechar", '"')
    if not isinstance(sep, str) or len(sep) != 1 or codec.startswith(("utf-16", "utf-32")) \
            or not isinstance(quote, str) or len(quote) != 1:
        return None
    compression = kwargs.get("compression", "infer")
    if hasattr(source, "read") and compression not in (None, "infer"):
        return None  # a compressed stream: its bytes are not the text
    opener, _ = _binary_opener(source, compression)
    if opener is None:
        return None
    found: set = set()
    sep_b, quote_b = ord(sep), ord(quote)
    with opener() as stream:
        if stream is None:
            return None
        carry = np.zeros(0, dtype=np.uint8)
        for block in _byte_blocks(stream):
            # scan whole lines that start outside quotes: a block may end inside a quoted
            # cell that holds a line break, whose line then goes on in the next block
            b = np.concatenate([carry, np.frombuffer(block, dtype=np.uint8)])
            cut = complete_lines(b, quote_b)
            found |= zero_led_fields(b[:cut], sep_b, quote_b)
            carry = b[cut:]
        found |= zero_led_fields(carry, sep_b, quote_b)
    return found


def _ragged(start: int, end: int, n: int, expected: int, first: int, header: bool,
            sep: str) -> InvalidInputError:
    where = f"the header (line {first})" if header else f"line {first}"
    name = "comma" if sep == "," else repr(sep)
    if end > start:
        hint = f"the line continues to line {end} inside quotes: a quote left open?"
    elif n > expected:
        hint = f"a trailing {name}, or a {name} in a cell that is not quoted?"
    else:
        hint = "a missing field, or a line break in a cell that is not quoted?"
    return InvalidInputError(
        f"line {start} has {n} field{'' if n == 1 else 's'}, but {where} has {expected} "
        f"({hint}); every line must have as many fields as "
        + ("the header" if header else f"line {first}"))


class _Scan:
    """What a scan knows between records: the header's count and line, the records above
    the header still to skip, the data records still to check (None: all)."""

    def __init__(self, header, nrows, sep):
        self.header, self.sep = header, sep
        self.before = header or 0
        self.left = nrows
        self.expected = self.first = None

    def take_header(self, n: int, line: int) -> bool:
        """Record a non-blank record above the data; True once the header is known."""
        if self.before:
            self.before -= 1
            return False
        self.expected, self.first = n, line
        if self.header is None and self.left is not None:
            self.left -= 1  # without a header the first line is data
        return True

    def error(self, start: int, end: int, n: int) -> InvalidInputError:
        return _ragged(start, end, n, self.expected, self.first, self.header is not None,
                       self.sep)


# --------------------------------------------------------------------------- the csv module


def _blank(row) -> bool:
    return not row or (len(row) == 1 and not row[0].strip(" \t\r\n"))


def _first_line(row, end: int) -> int:
    """The line a record starts on, from the line it ends on and the line breaks inside its
    quoted cells (lines end at \\r\\n, \\r or \\n)."""
    return end - sum(f.count("\n") + f.count("\r") - f.count("\r\n") for f in row)


def _csv_fields(lines, scan: _Scan, dialect) -> int | None:
    """The scan with the csv module (any dialect): one length test per record."""
    reader = csv.reader(lines, delimiter=scan.sep, **dialect)
    for row in reader:
        if not _blank(row) and scan.take_header(len(row), _first_line(row, reader.line_num)):
            break
    else:
        return None
    records = reader
    if scan.left is not None:
        import itertools

        records = itertools.islice((r for r in reader if not _blank(r)), max(scan.left, 0))
    expected = scan.expected
    for row in records:
        if len(row) != expected and not _blank(row):
            end = reader.line_num
            raise scan.error(_first_line(row, end), end, len(row))
    return expected


# --------------------------------------------------------------------------- vectorized


def _byte_blocks(stream, size: int = _BLOCK, bom: bool = True):
    """The stream in blocks that each end with a line feed (one is added at the end when the
    last line has none); a line longer than ``size`` makes one longer block. ``bom``: drop
    a UTF-8 byte order mark at the start."""
    pending: list = []
    first = bom
    while True:
        chunk = stream.read(size)
        if not chunk:
            break
        if first and chunk.startswith(b"\xef\xbb\xbf"):
            chunk = chunk[3:]
        first = False
        cut = chunk.rfind(b"\n") + 1
        if cut == 0:
            pending.append(chunk)
            continue
        pending.append(chunk[:cut])
        yield b"".join(pending)
        pending = [chunk[cut:]] if cut < len(chunk) else []
    tail = b"".join(pending)
    if tail:
        yield tail + b"\n"


def _fast_fields(blocks, scan: _Scan, sep: int, quote: int | None):
    """The scan on bytes with numpy, for the usual dialect (a quote opens a field and closes
    it before a separator or line end, ``""`` inside): a field's separators are those outside
    quotes (an even number of quotes before them). Returns ``_FALLBACK`` at the first quote
    placed otherwise (the csv module then reads the file), else as :func:`_csv_fields`."""
    inside = 0  # inside quotes where the block starts
    lines = 0   # line breaks before the block
    carry = None  # the record a block ends in: [separators, non-blank, quotes, start line]
    empty = np.empty(0, dtype=np.intp)
    edge = np.zeros(256, dtype=bool)  # what may stand before an opening quote, after a closing
    edge[[sep, _LF, _CR] + ([quote] if quote is not None else [])] = True
    blank_byte = _BLANK_BYTES[quote if quote is not None else _LF]
    for block in blocks:
        arr = np.frombuffer(block, dtype=np.uint8)
        q = np.flatnonzero(arr == quote) if quote is not None else empty
        if len(q):
            closes = ((np.arange(len(q)) + inside) & 1).astype(bool)
            opens = q[~closes]
            before = arr[np.maximum(opens - 1, 0)]
            before[opens == 0] = _LF  # a block starts after a line feed
            after = arr[q[closes] + 1]  # a block ends with a line feed, never a quote
            if not (edge[before].all() and edge[after].all()):
                return _FALLBACK

        def outside(pos):
            if not len(q):
                return np.full(len(pos), not inside)
            return ((np.searchsorted(q, pos) + inside) & 1) == 0

        seps = np.flatnonzero(arr == sep)
        seps = seps[outside(seps)]
        crlf = np.zeros(len(arr), dtype=bool)
        crlf[:-1] = (arr[:-1] == _CR) & (arr[1:] == _LF)
        breaks = np.flatnonzero((arr == _LF) | ((arr == _CR) & ~crlf))
        ends = breaks[outside(breaks)]
        n_sep = np.diff(np.searchsorted(seps, ends), prepend=0)
        n_quote = np.diff(np.searchsorted(q, ends), prepend=0)
        filled = n_sep > 0  # a record with a separator is not blank; the others are looked at
        single = np.flatnonzero(~filled)
        if len(single):
            full = np.append(~blank_byte[arr], False)
            starts = np.concatenate(([0], ends[:-1] + 1))[single]
            bounds = np.column_stack((starts, ends[single] + 1)).ravel()
            filled[single] = np.logical_or.reduceat(full, bounds)[::2]
        end_line = lines + np.searchsorted(breaks, ends) + 1
        start_line = np.concatenate(([carry[3] if carry else lines + 1], end_line[:-1] + 1))
        if carry and len(ends):
            n_sep[0] += carry[0]
            filled[0] |= carry[1]
            n_quote[0] += carry[2]
        fields = n_sep + 1
        records = np.flatnonzero(~((fields == 1) & ~filled & (n_quote <= 2)))
        if scan.expected is None:
            for j in records[:scan.before + 1].tolist():
                records = records[1:]
                if scan.take_header(int(fields[j]), int(start_line[j])):
                    break
        if scan.expected is not None:
            if scan.left is not None:
                records = records[:max(scan.left, 0)]
                scan.left -= len(records)
            bad = records[fields[records] != scan.expected]
            if len(bad):
                j = bad[0]
                raise scan.error(int(start_line[j]), int(end_line[j]), int(fields[j]))
            if scan.left is not None and scan.left <= 0:
                return scan.expected
        last = ends[-1] if len(ends) else -1
        if last < len(arr) - 1:  # a quoted cell goes on into the next block
            tail = [len(seps) - int(np.searchsorted(seps, last)),
                    not blank_byte[arr[last + 1:]].all(),
                    len(q) - int(np.searchsorted(q, last))]
            if len(ends):
                carry = tail + [int(end_line[-1]) + 1]
            elif carry:
                carry = [carry[0] + tail[0], carry[1] or tail[1], carry[2] + tail[2], carry[3]]
            else:
                carry = tail + [lines + 1]
        else:
            carry = None
        lines += len(breaks)
        inside = (inside + len(q)) & 1
    if inside:  # a quote left open to the end: the csv module reads it as pandas does
        return _FALLBACK
    return scan.expected


def check_field_counts(source, *, header: int | None = 0, sep: str = ",",
                       quotechar: str = '"', doublequote: bool = True, escapechar=None,
                       skipinitialspace: bool = False, quoting: int = csv.QUOTE_MINIMAL,
                       encoding=None, encoding_errors: str = "strict",
                       compression="infer", nrows: int | None = None) -> int | None:
    """Check that every line of a CSV file has as many fields as its header line.

    :func:`pandas.read_csv` pads a line with fewer fields with missing cells, and takes the
    first columns of the file as the index when the data lines have more fields than the
    header (so every column shifts silently; a line of 100,000 fields under a 2-field header
    builds a 99,999-level index and takes minutes). This check reads the file once, in time
    linear in its size and memory bounded by a block of 4 MB (or the longest line), and stops
    at the first line whose count differs. Blank lines are skipped, as pandas skips them; a
    quoted cell may span lines. The usual dialect is scanned with numpy on the bytes; a file
    with a quote elsewhere than around a field (or an ``escapechar``, ``doublequote=False``,
    an encoding other than UTF-8, ASCII, Latin-1 or cp1252) is read with the csv module.

    Parameters
    ----------
    source : str, path or file object
        A file (plain, or gzip / bz2 / xz / zip by its name or ``compression``, as pandas
        infers it) or a text or binary file object, read from where it stands (a seekable
        one is put back there afterwards).
    header : int or None, default 0
        Position of the header line among the non-blank lines (the lines above it are not
        checked, as pandas discards them); None: no header, the first line sets the count.
    sep, quotechar, doublequote, escapechar, skipinitialspace, quoting, encoding
        As in :func:`pandas.read_csv` (``sep`` one character).
    encoding_errors, compression, nrows
        As in :func:`pandas.read_csv` (``nrows``: check only the first ``nrows`` data lines).

    Returns
    -------
    int or None
        The number of fields of the header line (of the first line without a header); None
        for a file without a line, or a source the check does not open (a URL; tar or zstd
        compression), which is left to pandas.

    Raises
    ------
    pdanon.InvalidInputError
        (a ``ValueError``) naming the first line with more or fewer fields, its count and the
        header's, with a hint (a trailing comma, an unquoted comma or line break, a quote
        left open).

    Examples
    --------
    >>> import io as _io
    >>> check_field_counts(_io.StringIO('a,b\\n1,"x, y"\\n\\n2,3\\n'))
    2
    >>> check_field_counts(_io.StringIO("name,age\\nann,30,\\n"))
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: line 2 has 3 fields, but the header (line 1) has 2 (a trailing comma, or a comma in a cell that is not quoted?); every line must have as many fields as the header
    """
    if not isinstance(sep, str) or len(sep) != 1:
        raise InvalidInputError(f"check_field_counts needs a one-character sep, got {sep!r}")
    if hasattr(source, "read") and not source.seekable():
        data = source.read()
        source = _io.StringIO(data) if isinstance(data, str) else _io.BytesIO(data)
    position = source.tell() if hasattr(source, "read") else None
    try:
        return _check_fields(source, header, sep, quotechar, doublequote, escapechar,
                             skipinitialspace, quoting, encoding, encoding_errors,
                             compression, nrows)
    finally:
        if position is not None:
            source.seek(position)


def _check_fields(source, header, sep, quotechar, doublequote, escapechar, skipinitialspace,
                  quoting, encoding, encoding_errors, compression, nrows):
    opener, text = _binary_opener(source, compression)
    if opener is None:
        return None
    codec = "utf-8" if text else _codec(encoding)
    no_quotes = quoting == csv.QUOTE_NONE
    if (ord(sep) < 128 and sep not in "\r\n" and escapechar is None and doublequote
            and (no_quotes or (len(quotechar) == 1 and ord(quotechar) < 128
                               and quotechar not in "\r\n" + sep))
            and (codec in _ASCII_SAFE or codec.startswith("iso8859-"))):
        with opener() as raw:
            if raw is None:
                return None
            found = _fast_fields(_byte_blocks(raw, bom=codec == "utf-8"),
                                 _Scan(header, nrows, sep), ord(sep),
                                 None if no_quotes else ord(quotechar))
        if found is not _FALLBACK:
            return found
    dialect = dict(quotechar=quotechar, doublequote=doublequote, escapechar=escapechar,
                   skipinitialspace=skipinitialspace,
                   quoting=csv.QUOTE_NONE if no_quotes else csv.QUOTE_MINIMAL)
    with opener() as raw:
        if raw is None:
            return None
        lines = _io.TextIOWrapper(raw, encoding="utf-8-sig" if codec == "utf-8" else codec,
                                  errors=encoding_errors, newline="")
        try:
            with _no_field_size_limit():
                return _csv_fields(lines, _Scan(header, nrows, sep), dialect)
        except csv.Error as exc:
            raise InvalidInputError(f"cannot read the file as CSV: {exc}") from None
        finally:
            lines.detach()  # the caller's stream stays open


def _checked(path, kwargs: dict):
    """``path`` after :func:`check_field_counts` with the read_csv options that bear on the
    field counts (a file object that cannot seek is read into memory once, for the check and
    for pandas), or as it was when an option is one the check does not reproduce."""
    sep = kwargs.get("sep", kwargs.get("delimiter", ","))
    header = kwargs.get("header", "infer")
    if header == "infer":
        header = 0 if kwargs.get("names") is None else None
    if (any(kwargs.get(k) not in (None, False) for k in _UNMODELED)
            or kwargs.get("skip_blank_lines", True) is False
            or not isinstance(sep, str) or len(sep) != 1
            or not (header is None or (isinstance(header, int) and not isinstance(header, bool)
                                       and header >= 0))
            or (hasattr(path, "read") and kwargs.get("compression", "infer")
                not in ("infer", None))):
        return path
    if hasattr(path, "read") and not path.seekable():  # read once, for the check and pandas
        data = path.read()
        path = _io.StringIO(data) if isinstance(data, str) else _io.BytesIO(data)
    quoting = kwargs.get("quoting", csv.QUOTE_MINIMAL)
    check_field_counts(path, header=header, sep=sep, quotechar=kwargs.get("quotechar", '"'),
                       doublequote=kwargs.get("doublequote", True),
                       escapechar=kwargs.get("escapechar"),
                       skipinitialspace=kwargs.get("skipinitialspace", False),
                       quoting=quoting, encoding=kwargs.get("encoding"),
                       encoding_errors=kwargs.get("encoding_errors", "strict"),
                       compression=kwargs.get("compression", "infer"),
                       nrows=kwargs.get("nrows"))
    return path


def _pandas_read(path, kwargs: dict) -> pd.DataFrame:
    """:func:`pandas.read_csv` that never takes columns of the file as an implicit index
    (``index_col=False`` unless the caller names an index column) and makes its "longer
    line" warning and tokenizer errors errors naming the line."""
    import re

    if kwargs.get("index_col") is None and kwargs.get("engine") != "pyarrow":
        kwargs = {**kwargs, "index_col": False}  # (the pyarrow engine refuses False)
        if kwargs.get("parse_dates") is True:  # "parse the index": there is none
            kwargs.pop("parse_dates")
    name = path if isinstance(path, str) else "the file"
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message="Length of header or names does not match",
                                    category=pd.errors.ParserWarning)
            return pd.read_csv(path, **kwargs)
    except pd.errors.ParserWarning:
        raise InvalidInputError(
            f"cannot read {name} as CSV: the first data line has more fields than the header "
            "(a trailing comma, or a comma in a cell that is not quoted?); every line must "
            "have as many fields as the header") from None
    except pd.errors.ParserError as exc:
        found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        if found:
            expected, line, n = (int(g) for g in found.groups())
            raise InvalidInputError(
                f"cannot read {name} as CSV: line {line} has {n} fields, but the header has "
                f"{expected}; every line must have as many fields as the header") from None
        found = re.search(r"EOF inside string starting at row \d+", str(exc))
        if found:
            raise InvalidInputError(
                f"cannot read {name} as CSV: a quoted cell is not closed before the end of "
                f"the file (pandas: {found.group(0)})") from None
        raise InvalidInputError(
            f"cannot read {name} as CSV: {exc} (a generalized cell such as '[30, 35)' holds "
            f"a comma and must be quoted; df.to_csv() quotes it)") from None


# ---------------------------------------------------------------------------------------------
# read_csv
# ---------------------------------------------------------------------------------------------

_GENERALIZED = "generalization["


def _spec(kind=None, categories=None, dtype=None, ordered=None) -> dict:
    return {"kind": kind, "categories": categories, "dtype": dtype, "ordered": ordered}


def schema_of(schema):
    """``schema`` itself, or the schema read from the YAML file a path names."""
    if isinstance(schema, (str, os.PathLike)):
        if not os.path.isfile(schema):
            raise InvalidInputError(
                f"schema={os.fspath(schema)!r} is not a file: pass the YAML file the release's "
                f"schema was written to (pdanon anonymize --schema PATH, "
                f"pdanon.schema_to_yaml), a pandera schema (out.anon.schema) or a dict "
                f"{{column: kind}}")
        from pdanon.roles import schema_from_yaml
        return schema_from_yaml(schema)
    return schema


def _column_specs(schema) -> dict:
    """``{column: {kind, categories, dtype, ordered}}`` from a pandera schema or a dict (a
    path is read by :func:`schema_of` first)."""
    if schema is None:
        return {}
    if not isinstance(schema, Mapping) and getattr(schema, "columns", None) is None:
        raise InvalidInputError(
            f"schema must be a pandera schema (out.anon.schema), the path of its YAML file, or "
            f"a dict {{column: kind}}; got {type(schema).__name__}")
    specs: dict = {}
    if isinstance(schema, Mapping):
        for col, spec in schema.items():
            if isinstance(spec, str):
                specs[col] = _spec(spec)
            elif isinstance(spec, Mapping):
                cats = spec.get("categories")
                if cats is not None and spec.get("categories_type"):
                    cats = categories_from_plain(cats, spec["categories_type"])
                specs[col] = _spec(spec.get("kind"), cats, spec.get("dtype"),
                                   spec.get("ordered"))
            elif isinstance(spec, (tuple, list)) and len(spec) == 2:
                specs[col] = _spec(spec[0], spec[1])
            elif isinstance(spec, GeneralizationDtype):
                specs[col] = _spec(spec.column_type, spec.categories, spec.name)
            else:
                raise TypeError(f"schema entry for {col!r} must be a kind string, got {spec!r}")
        return specs
    columns = getattr(schema, "columns", None) or {}
    block = schema_block(schema)
    stored = block.get("columns") or {}
    for col, column in columns.items():
        meta = {**stored.get(col, {}), **(getattr(column, "metadata", None) or {})}
        if meta.get("role") == "identifier":
            continue
        cats = meta.get("categories")
        if cats is not None and meta.get("categories_type"):
            cats = categories_from_plain(cats, meta["categories_type"])
        if cats is None:
            dt = getattr(getattr(column, "dtype", None), "type", None)
            if isinstance(dt, pd.CategoricalDtype) and dt.categories is not None:
                cats = dt.categories
        specs[col] = _spec(meta.get("kind"), cats, meta.get("dtype"), meta.get("ordered"))
    for group in ("quasi_identifiers", "sensitive"):
        for col, kind in (block.get(group) or {}).items():
            if kind and specs.get(col, {}).get("kind") is None:
                specs[col] = {**specs.get(col, _spec()), "kind": kind}
    return specs


def read_csv(path, schema=None, *, max_cell_length: int = MAX_CELL_LENGTH,
             **read_csv_kwargs) -> pd.DataFrame:
    """:func:`pandas.read_csv` that restores the columns ``df.to_csv()`` wrote, per a schema.

    Parameters
    ----------
    path : str, path or file-like
        Anything :func:`pandas.read_csv` accepts. A path must name a regular file (the file
        is read more than once, so a FIFO or a device is refused); pass a pipe's content
        as a file object instead.
    schema : pandera DataFrameSchema, dict or path, optional
        What each column holds: the path of the YAML file a release's schema was written to
        (``pdanon anonymize --schema PATH``, :func:`pdanon.schema_to_yaml`), or a pandera
        schema whose ``columns[c].metadata`` holds
        ``{"role": ..., "kind": ...}`` and, as ``df.anon.schema`` and
        :func:`pdanon.infer_schema` record them, ``"dtype"``, ``"categories"`` and
        ``"ordered"`` (then the frame comes back equal to the one written:
        ``read_csv(path, schema=out.anon.schema)`` after ``out.to_csv(path, index=False)``);
        or a dict ``{column: kind}`` / ``{column: (kind, categories)}`` /
        ``{column: {"kind": ..., "categories": ..., "dtype": ..., "ordered": ...}}``.
    max_cell_length : int, default :data:`MAX_CELL_LENGTH` (1,000,000)
        Longest text, in characters, of a cell in a converted column; a longer cell raises
        :class:`~pdanon.InvalidInputError` naming the column, the row and the limit. Parsing
        is linear in the length of the text, so the limit bounds the time and memory one
        cell can cost.
    **read_csv_kwargs
        Passed to :func:`pandas.read_csv` (with ``index_col=False`` unless an index column
        is named, so pandas never takes the first columns as an implicit index).

    First, every line must have as many fields as the header (:func:`check_field_counts`,
    one pass linear in the file's size; so the frame has at most as many cells as the file
    has fields, and a line of 100,000 fields is refused in milliseconds).

    Columns whose kind holds codes (``unordered``, or ``ordered`` with text categories) are
    read as text, so a ZIP code ``04777`` or an ICD code ``E11`` comes back as written
    (unless the schema records a numeric dtype for the column, or ``dtype=`` says
    otherwise); ``real`` columns are parsed as numbers.

    After parsing, every column the schema describes is restored and checked:

    * a generalized column (``dtype`` ``generalization[...]``, or text with range/set
      syntax) becomes the generalization dtype with the schema's categories;
    * a Categorical column (``dtype`` ``category``) gets its categories and order back;
    * a ``real`` column (and an ``ordered`` one without categories) must hold numbers or
      ranges of numbers; an ``ordered`` column with categories only those categories;
    * another recorded dtype is restored with ``astype``.

    Raises
    ------
    pdanon.InvalidInputError
        (a ``ValueError``) when a cell does not fit its column's kind, categories or dtype,
        cannot be parsed or is too long; the message names the column, the row (the frame's
        index label) and the text. A range split by an unquoted comma (``[30`` and ``35)``
        in two fields) is reported with that hint. A line with more or fewer fields than
        the header is an error naming the line (:func:`check_field_counts`).

    Examples
    --------
    >>> import io as _io
    >>> df = read_csv(_io.StringIO('edu\\nHS\\n"[HS, MSc]"\\n'),
    ...               schema={"edu": ("ordered", ["HS", "BSc", "MSc"])})
    >>> df["edu"].tolist()
    ['HS', [HS, MSc]]
    >>> read_csv(_io.StringIO('age\\n30\\n 35)\\n'), schema={"age": "real"})
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: column 'age', row 1: cannot parse '35)' as a number or a range '[min, max]' (a range split in two by an unquoted comma? write the file with df.to_csv(), which quotes cells that hold commas)
    """
    from pdanon.sidefiles import check_regular

    if isinstance(path, (str, os.PathLike)) and os.path.exists(path):  # read more than once:
        check_regular(path, what="read_csv: the table")  # a FIFO would block the second read
    if read_csv_kwargs.get("chunksize") is not None or read_csv_kwargs.get("iterator"):
        raise InvalidInputError(
            "read_csv reads the whole table (its checks need every row): leave out chunksize= "
            "and iterator=; for a table larger than memory, use pdanon.dask (docs/dask.md)")
    start = path.tell() if hasattr(path, "seekable") and path.seekable() else None
    try:
        return _read_csv(path, schema_of(schema), max_cell_length, read_csv_kwargs)
    except UnicodeDecodeError as exc:
        if start is not None:
            path.seek(start)
        raise decode_error(path, exc, read_csv_kwargs.get("encoding"),
                           read_csv_kwargs.get("compression", "infer")) from None


def decode_error(source, exc: UnicodeDecodeError, encoding=None, compression="infer"):
    """The :class:`pdanon.io.csvcodes.UndecodableError` for ``exc``, raised while reading the
    CSV ``source`` in ``encoding`` (default UTF-8): it names the line of the first byte that
    is not text in that encoding, and the ``encoding=`` that reads the file."""
    from pdanon.io.csvcodes import undecodable

    try:
        opener, text = _binary_opener(source, compression)
    except (OSError, ValueError):
        opener, text = None, False
    name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
    return undecodable(None if text else opener, encoding or "utf-8", exc, name)


def _read_csv(path, schema, max_cell_length: int, read_csv_kwargs: dict) -> pd.DataFrame:
    from pdanon.io import csvcodes

    specs = _column_specs(schema)
    read_csv_kwargs = _codes_as_text(specs, read_csv_kwargs)
    source = _checked(path, read_csv_kwargs)
    start = csvcodes.start_of(source)
    names = csvcodes.header_names(source, read_csv_kwargs, start)
    csvcodes.refuse_repeated_names(names, path)
    read_csv_kwargs = csvcodes.na_values_for(names, specs, read_csv_kwargs)
    df = _pandas_read(source, read_csv_kwargs)
    df = csvcodes.codes_as_text(df, source, read_csv_kwargs, specs, _pandas_read, start,
                                scan=leading_zero_fields,
                                names=csvcodes.field_names(names, df, read_csv_kwargs))
    df = csvcodes.whole_numbers_with_blanks(df, source, read_csv_kwargs, specs, _pandas_read,
                                            start)
    df = _unguarded(df, schema)
    _check_present(df, specs, read_csv_kwargs)
    for col, spec in specs.items():
        if col in df.columns:
            df[col] = _restore(df[col], col, spec, df.index, max_cell_length)
    return _with_schema_roles(df, schema)


def _unguarded(df: pd.DataFrame, schema) -> pd.DataFrame:
    """``df`` with the spreadsheet-formula guard undone (:func:`pdanon.io.csvsafe.
    restore_formulas`) when its schema says the CSV was written with it (``pdanon anonymize``
    records ``csv: {formulas_guarded: true}`` beside a guarded CSV release), in the cells and
    the header."""
    if not (schema_block(schema).get("csv") or {}).get("formulas_guarded"):
        return df
    from pdanon.io.csvsafe import restore_formulas

    names = restore_formulas(pd.Series(list(df.columns), dtype=object)).tolist()
    out = df.set_axis(names, axis=1) if names != list(df.columns) else df.copy(deep=False)
    for i in range(out.shape[1]):
        out.isetitem(i, restore_formulas(out.iloc[:, i]))
    return out


def _check_present(df: pd.DataFrame, specs: dict, kwargs: dict) -> None:
    """A column the schema gives a kind (a quasi-identifier or sensitive column) must be in
    the file: a release read back without one would be measured, and republished, without it.
    Columns left out on purpose (``usecols=``) are not asked for."""
    wanted = kwargs.get("usecols")
    if wanted is not None and not callable(wanted):
        wanted = set(wanted)
    missing = [c for c, spec in specs.items() if spec["kind"] is not None
               and c not in df.columns and (wanted is None or callable(wanted) or c in wanted)]
    if missing:
        present = list(df.columns)
        shown = ", ".join(repr(c) for c in present[:12]) + (", ..." if len(present) > 12 else "")
        raise InvalidInputError(
            f"the schema gives column(s) {', '.join(map(repr, missing))} a kind, but the file "
            f"has no such column (it has {shown}): read the file the schema describes, or "
            f"leave the column(s) out of the schema")


def _codes_as_text(specs: dict, kwargs: dict) -> dict:
    """``read_csv`` keywords that read as text every column the schema gives a kind of codes
    (:func:`_holds_codes`), so ``04777`` stays ``04777``; a ``dtype`` the caller gives wins
    (for its columns, or for every column when it is one dtype)."""
    given = kwargs.get("dtype")
    if given is not None and not isinstance(given, Mapping):
        return kwargs
    text = {c: str for c, spec in specs.items() if _holds_codes(spec)}
    if not text:
        return kwargs
    return {**kwargs, "dtype": {**text, **(given or {})}}


def _holds_codes(spec: dict) -> bool:
    """A column read as text: kind ``unordered``, or ``ordered`` with text categories, unless
    the schema records a numeric dtype (a column of numbers published as numbers) or numeric
    categories. ``real`` columns, and ``ordered`` ones without categories (numbers or ranges
    of numbers), are parsed as numbers."""
    kind, cats, dtype = spec["kind"], spec["categories"], spec["dtype"]
    if str(dtype).startswith(_GENERALIZED) and cats is not None and dates_in_order(
            pd.Index(cats)):
        return True  # generalized dates: 2024 is the year's cell, not the number 2024
    if kind not in ("unordered", "ordered") or (kind == "ordered" and cats is None):
        return False
    if cats is not None and not all(isinstance(c, str) for c in cats):
        return False
    return dtype is None or str(dtype) in ("str", "object", "string", "category") or str(
        dtype).startswith(_GENERALIZED)


def _with_schema_roles(df: pd.DataFrame, schema) -> pd.DataFrame:
    """``df`` remembering the roles a pandera schema records (as ``df.anon.with_schema``
    would, without validating), so that a release read back is measured on its own
    quasi-identifiers; a dict schema records kinds only."""
    from pdanon.roles import resolve_roles, roles_from_schema, with_roles

    if schema is None or isinstance(schema, dict) or not hasattr(schema, "columns"):
        return df
    keywords = roles_from_schema(schema)
    keywords = {role: ([c for c in cols if c in df.columns] if isinstance(cols, list) else
                       {c: k for c, k in cols.items() if c in df.columns})
                for role, cols in keywords.items()}
    df = with_roles(df, resolve_roles(df, screen="ignore", **keywords))
    # what the release's verdict reads (its request, suppressed rows, rule for missing
    # cells), as the schema recorded it: the file is checked as the release was
    release = schema_block(schema).get("release")
    if release:
        df.attrs["pdanon"]["info"] = dict(release)
    return df


def _restore(s: pd.Series, col, spec: dict, index, max_cell_length: int) -> pd.Series:
    """One column as its schema says it was written (or a clear error)."""
    kind, cats, dtype = spec["kind"], spec["categories"], spec["dtype"]
    if kind is not None and kind not in KINDS:
        raise InvalidInputError(f"the schema gives column {col!r} the unknown kind {kind!r}; "
                                f"use one of {list(KINDS)}")
    if isinstance(s.dtype, GeneralizationDtype):
        return s
    values = s.to_numpy(dtype=object)
    text = s.dtype == object or pd.api.types.is_string_dtype(s.dtype)
    if cats is not None:
        _check_distinct_texts(cats, col)
    if isinstance(dtype, str) and dtype.startswith(_GENERALIZED):
        gkind = dtype[len(_GENERALIZED):-1]
        return _generalized(values, gkind, cats, col, index, max_cell_length)
    if dtype == "category":
        return _categorical(values, cats, bool(spec.get("ordered")), col, index,
                            max_cell_length)
    recorded_text = str(dtype) in TEXT_DTYPES
    if kind is not None and text and not recorded_text and has_syntax(values, kind):
        return _generalized(values, kind, cats, col, index, max_cell_length)
    if kind == "ordered" and cats is None and text and len(leading_zero_cells(values)):
        pass  # codes (02139): ordered as text, as the command line reads them
    elif kind == "real" or (kind == "ordered" and cats is None):
        s = _numeric(s, values, text, kind, col, index, max_cell_length)
    elif kind == "ordered":
        _check_categories(values, cats, col, index, max_cell_length)
    if dtype is not None and str(s.dtype) != dtype:
        s = _astype(s, dtype, col)
    return s


def _generalized(values, kind, cats, col, index, max_cell_length) -> pd.Series:
    arr = GeneralizationArray._from_text(values, kind, cats, column=col, index=index,
                                         max_cell_length=max_cell_length)
    return pd.Series(arr, index=index, name=col)


def _categorical(values, cats, ordered, col, index, max_cell_length) -> pd.Series:
    """A Categorical column from its text: every value one of ``cats``."""
    codes = _category_codes(values, cats, col, index, max_cell_length)
    cat = pd.Categorical.from_codes(codes, categories=pd.Index(cats, tupleize_cols=False),
                                    ordered=ordered)
    return pd.Series(cat, index=index, name=col)


def _category_codes(values, cats, col, index, max_cell_length) -> np.ndarray:
    """Positions of plain values in ``cats`` (-1 missing); an error names an unknown one."""
    p = parse_text(values, "unordered", cats, column=col, index=index,
                   max_cell_length=max_cell_length)
    bad = np.flatnonzero(p.codes >= len(cats))
    if len(bad):
        raise InvalidInputError(
            f"column {col!r}, row {index[bad[0]]!r}: {values[bad[0]]!r} is a set, but the "
            f"schema says the column holds plain categories")
    return p.codes


def _check_categories(values, cats, col, index, max_cell_length) -> None:
    _category_codes(values, cats, col, index, max_cell_length)


def iso_dates(text: pd.Series) -> pd.Series | None:
    """Datetimes from ISO 8601 text (missing cells NaT; offsets that differ from row to row
    on one time line, UTC), or None when a present cell is not an ISO date.

    Example
    -------
    >>> iso_dates(pd.Series(["2024-12-31", None, "2025-01-02"])).dt.day.tolist()
    [31.0, nan, 2.0]
    >>> iso_dates(pd.Series(["2024-12-31", "31/12/2024"])) is None
    True
    """
    present = text.notna().to_numpy()
    cells = text[present].astype(str).str.strip()
    distinct = pd.Series(pd.unique(cells.to_numpy(dtype=object)), dtype=object)
    if not len(distinct) or not distinct.str.match(ISO_DATE).all():
        return None
    try:
        parsed = pd.to_datetime(cells, format="ISO8601")
    except (ValueError, TypeError):
        try:
            parsed = pd.to_datetime(cells, format="ISO8601", utc=True)
        except (ValueError, TypeError):
            return None
        offset = distinct.str.contains(r"(?:Z|[+-]\d{2}:?\d{2})$", regex=True)
        if offset.any() and not offset.all():
            from pdanon._errors import KindWarning, user_stacklevel

            warnings.warn(
                f"column {text.name!r} mixes dates with a time-zone offset and dates without "
                f"one (such as {distinct[~offset].iloc[0]!r}): those without are taken as UTC; "
                f"write every date with its offset if they are local times", KindWarning,
                stacklevel=user_stacklevel())
    out = pd.Series(pd.NaT, index=text.index, dtype=parsed.dtype, name=text.name)
    out[present] = parsed.to_numpy() if parsed.dt.tz is None else parsed.array
    return out


def _numeric(s, values, text, kind, col, index, max_cell_length) -> pd.Series:
    """A real (or numeric ordered) column must hold numbers: text that pandas left as text
    is parsed, and an error names the cell that is not a number."""
    if not text:
        if pd.api.types.is_datetime64_any_dtype(s.dtype) or pd.api.types.is_timedelta64_dtype(
                s.dtype):
            return s  # dates and durations (parse_dates=, or read from Parquet) are ordered
        if pd.api.types.is_bool_dtype(s.dtype) or not (
                pd.api.types.is_numeric_dtype(s.dtype) or s.isna().all()):
            raise InvalidInputError(
                f"column {col!r} holds {s.dtype} values, but the schema says it is {kind}; "
                f"give it numbers")
        return s
    from pdanon.io.csvcodes import integer_texts_beyond_float, refuse_beyond_float

    big = integer_texts_beyond_float(values)
    if big is not None:
        refuse_beyond_float(col, index[big], kind, values[big])
    if kind == "ordered":  # dates written as ISO 8601 text by to_csv
        cells = pd.Series(values, index=index, name=col)
        dates = iso_dates(cells)
        if dates is not None:
            return dates
        first = cells.dropna()
        if len(first) and isinstance(first.iloc[0], str) and ISO_DATE.match(
                first.iloc[0].strip()):
            from pdanon.io.csvcodes import first_bad_date

            row, bad = first_bad_date(cells) or (first.index[0], first.iloc[0])
            raise InvalidInputError(
                f"column {col!r}, row {row!r}: {bad!r} is not a date, but the column holds "
                f"ISO 8601 dates (2024-12-31, 2024-12-31T08:30); fix the cell")
    try:
        arr = GeneralizationArray._from_text(values, kind, None, column=col, index=index,
                                             max_cell_length=max_cell_length)
    except InvalidInputError as exc:
        if any(_unbalanced(v) for v in values):
            raise InvalidInputError(
                f"{exc} (a range split in two by an unquoted comma? write the file with "
                f"df.to_csv(), which quotes cells that hold commas)") from None
        raise
    if arr.dtype.categories is not None:
        raise InvalidInputError(f"column {col!r} holds text, but the schema says it is {kind}; "
                                f"give it numbers")
    if arr.is_plain.any() and not (arr.is_plain | arr.isna()).all():
        return pd.Series(arr, index=index, name=col)
    return pd.Series(arr.to_numpy(dtype=np.float64, na_value=np.nan), index=index, name=col)


def _unbalanced(v) -> bool:
    if not isinstance(v, str):
        return False
    t = v.strip()
    opens = t[:1] in ("[", "(")
    closes = t[-1:] in ("]", ")")
    return opens != closes


def _check_distinct_texts(cats, col) -> None:
    """CSV holds text: two categories written alike (1 and '1') cannot be told apart."""
    texts: dict = {}
    for c in cats:
        t = str(c)
        if t in texts and texts[t] != c:
            raise InvalidInputError(
                f"column {col!r}: its categories {texts[t]!r} and {c!r} are both written "
                f"{t!r} in CSV, so the file cannot say which one a cell holds; write Parquet "
                f"(df.to_parquet keeps their types) or make the values one type before "
                f"anonymizing (e.g. df[{col!r}].astype(str))")
        texts.setdefault(t, c)


def _astype(s: pd.Series, dtype: str, col) -> pd.Series:
    try:
        return s.astype(dtype)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"column {col!r}: cannot restore its dtype {dtype} ({exc}); "
                                f"check the file or the schema") from None
