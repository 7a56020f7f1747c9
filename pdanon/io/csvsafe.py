"""CSV formula injection: neutralize text cells a spreadsheet would evaluate.

A spreadsheet program that opens a CSV file treats a cell beginning with ``=``, ``+``, ``-``
or ``@`` as a formula (tab and carriage return are listed by OWASP too, since they can
precede one), so a released table can carry ``=HYPERLINK(...)`` or worse to whoever opens it.
:func:`neutralize_formulas` prefixes such *text* cells with a single quote ``'``, which
spreadsheets show as text, and puts one after a line break inside a cell when what follows
would begin a formula (a reader that splits lines before it reads quotes starts a row there).
Numbers are never touched: ``-5`` in a numeric column stays ``-5``, and so does a plain
number written as text (``"-5"``, ``"+7900"``, ``"1e-3"``: a code or figure read as text,
which a spreadsheet reads as a number and never runs); ``"-2+3"`` is guarded.

:func:`write_csv` writes a frame so that every CSV reader reads the rows it holds: a cell
holding a line break of any kind (:data:`LINE_BREAKS`: ``\\r`` and the others that
``str.splitlines`` splits on, which pandas leaves unquoted) is quoted, and formulas are
neutralized unless ``escape_formulas=False``.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"note": ["=1+2", "ok", None], "delta": [-5, 3, 0]})
>>> out = neutralize_formulas(df)
>>> out["note"].tolist(), out["delta"].tolist()
(["'=1+2", 'ok', nan], [-5, 3, 0])
"""

from __future__ import annotations

import os
import re
import secrets

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.publisher_only import refuse_explanation

__all__ = ["FORMULA_PREFIXES", "LINE_BREAKS", "neutralize_formulas", "restore_formulas",
           "write_csv"]

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet evaluate (or start evaluating) a cell."""

LINE_BREAKS = ("\r", "\n", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
"""The characters ``str.splitlines`` splits on (``\\r\\n`` is ``\\r`` then ``\\n``);
spreadsheets and CSV readers split rows on the first two, some on the others."""

_QUOTE = "'"
# inferred object-column types that can hold str cells (the others hold none)
_TEXTUAL = ("string", "mixed", "mixed-integer")
_BREAK_CLASS = "[" + "".join(LINE_BREAKS) + "]"
_FORMULA_CLASS = "[=+\\-@\t\r]"
# a cell that begins with a formula, after any guard quotes: guarded again, so that removing
# one quote (restore_formulas) gives every cell back exactly ('=x -> ''=x -> '=x)
_START = "'*" + _FORMULA_CLASS
# a line break before a formula (double quotes, which a CSV writer doubles, and guard quotes
# may come between)
_BREAK_BEFORE_FORMULA = _BREAK_CLASS + "[\"']*" + _FORMULA_CLASS
_SUSPECT = "^" + _START + "|" + _BREAK_BEFORE_FORMULA
_PLAIN_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_GUARD_AFTER_BREAK = re.compile("(" + _BREAK_CLASS + ")(?=[\"']*" + _FORMULA_CLASS + ")")
_GUARD_START = re.compile(_START)
# in text as written (generalized cells' text, which neutralize_formulas does not change): a
# break right before a formula, quotes doubled by the writer between, not a guarded one
_GUARD_WRITTEN_BREAK = re.compile("(" + _BREAK_CLASS + ')(?="*' + _FORMULA_CLASS + ")")
_GUARDED_START = re.compile("'(?=" + _START + ")")
_GUARDED_AFTER_BREAK = re.compile("(" + _BREAK_CLASS + ")'(?=[\"']*" + _FORMULA_CLASS + ")")


def _mask(found: pd.Series) -> np.ndarray:
    return found.to_numpy(dtype=object, na_value=False).astype(bool)


def _hits(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks of the ``str`` cells that begin with a formula character, and of those
    with a line break before one (one pass over the column, then the few hits)."""
    starts = np.zeros(len(series), dtype=bool)
    breaks = np.zeros(len(series), dtype=bool)
    suspect = _mask(series.str.contains(_SUSPECT, regex=True))
    if suspect.any():
        hit = series[suspect]
        # a plain number (-5, +3.2, -1e5: a code or figure read as text) is no formula
        number = _mask(hit.str.fullmatch(_PLAIN_NUMBER))
        starts[suspect] = _mask(hit.str.match(_START)) & ~number
        breaks[suspect] = _mask(hit.str.contains(_BREAK_BEFORE_FORMULA, regex=True))
    return starts, breaks


def _guarded(text: str) -> str:
    """``text`` with ``'`` after each line break that precedes a formula, and before it when
    it begins with one."""
    text = _GUARD_AFTER_BREAK.sub("\\1" + _QUOTE, text)
    return _QUOTE + text if _GUARD_START.match(text) else text


def _fixed(series: pd.Series, starts: np.ndarray, breaks: np.ndarray) -> np.ndarray:
    """Object array of the cells of ``series`` (str where a mask is set) with the guard."""
    values = series.to_numpy(dtype=object, copy=True)
    values[starts] = _QUOTE + series[starts].to_numpy(dtype=object)
    for i in np.flatnonzero(breaks).tolist():  # rare cells: a line break, then a formula
        values[i] = _guarded(str(series.iloc[i]))
    return values


def _neutralize_values(series: pd.Series) -> pd.Series | None:
    """The column with its formula-like str cells quoted, or None when nothing changes."""
    dtype = series.dtype
    if isinstance(dtype, pd.StringDtype):
        mask, breaks = _hits(series)
        if not (mask.any() or breaks.any()):
            return None
        if not breaks.any():
            return series.mask(mask, _QUOTE + series)  # whole-column string ops, no cell loop
        return pd.Series(_fixed(series, mask & ~breaks, breaks), index=series.index,
                         name=series.name, dtype=dtype)
    if isinstance(dtype, pd.CategoricalDtype):
        cats = dtype.categories
        if not (isinstance(cats.dtype, pd.StringDtype) or cats.dtype == object):
            return None
        fixed = _neutralize_values(pd.Series(cats, dtype=cats.dtype))
        if fixed is None:
            return None
        new_cats = pd.Index(fixed)
        if new_cats.is_unique:
            return series.cat.rename_categories(new_cats)
        # a quoted category equals an existing one: fall back to plain values
        return _neutralize_values(series.astype(object))
    if str(getattr(dtype, "name", "")).startswith("generalization"):
        if dtype.is_numeric_bounds:  # real, or ordered numbers: plain cells are numbers
            return None
        obj = pd.Series(series.to_numpy(dtype=object), index=series.index, name=series.name,
                        dtype=object)
        return _neutralize_values(obj)
    if dtype != object:
        return None  # numbers, booleans, dates, ...
    inferred = pd.api.types.infer_dtype(series, skipna=True)
    if inferred not in _TEXTUAL:
        return None
    # all-text object columns: test the prefixes on pandas' string dtype (Arrow kernels when
    # available), which is faster than the per-object .str path; mixed columns use the latter
    probe = series.astype("str") if inferred == "string" else series
    mask, breaks = _hits(probe)
    if not (mask.any() or breaks.any()):
        return None
    return pd.Series(_fixed(series, mask & ~breaks, breaks), index=series.index,
                     name=series.name, dtype=object)


def neutralize_formulas(df: pd.DataFrame, *, header: bool = True) -> pd.DataFrame:
    """A copy of ``df`` whose text cells beginning with ``=``, ``+``, ``-``, ``@``, tab or
    carriage return (:data:`FORMULA_PREFIXES`) are prefixed with a single quote ``'``; in a
    text cell, a line break (:data:`LINE_BREAKS`) followed by one of them (double quotes may
    come between) gets a ``'`` after it: ``"x\\r=HYPERLINK(...)"`` becomes
    ``"x\\r'=HYPERLINK(...)"``, so a reader that splits rows at the break does not start a
    row with a formula.

    * Only ``str`` cells change: in object and string columns, the string categories of a
      Categorical, and the plain text cells of a generalized (``generalization[...]``) column
      of unordered or categorical values. Numeric, boolean and date columns, numbers inside
      object columns, and generalized ranges/sets (their text begins with ``[`` or ``{``) are
      never changed (:func:`write_csv` also guards a line break inside their written text,
      ``{p\\r'=1, q}``); missing cells stay missing.
    * A column that changes keeps its dtype, except a generalized column, which becomes an
      object column of the same cells (written to CSV as the same text), and a Categorical
      whose quoted category would equal an existing one, which becomes an object column.
    * ``header=True`` (default) quotes string column labels the same way, since the header
      line is part of the CSV. The index is not changed (write with ``index=False``).

    ``df`` is not modified. Meant for CSV output only: the quote becomes part of the value
    for any program that reads the file as data.

    Example
    -------
    >>> df = pd.DataFrame({"name": ["@SUM(A1)", "Ann", "\\tx"], "n": [-1, 2, 3]})
    >>> out = neutralize_formulas(df)
    >>> out["name"].tolist(), out["n"].tolist()
    (["'@SUM(A1)", 'Ann', "'\\tx"], [-1, 2, 3])
    """
    if not isinstance(df, pd.DataFrame):
        raise InvalidInputError(
            f"neutralize_formulas takes a DataFrame, got {type(df).__name__}; wrap a Series "
            "with .to_frame()"
        )
    out = df.copy(deep=False)
    for i in range(df.shape[1]):
        new = _neutralize_values(df.iloc[:, i])
        if new is not None:
            out.isetitem(i, new)
    if header:
        labels = [_guarded(c) if isinstance(c, str) else c for c in df.columns]
        if labels != list(df.columns):
            out.columns = pd.Index(labels, dtype=object)
    return out


def restore_formulas(series: pd.Series) -> pd.Series:
    """The text cells of ``series`` as they were before :func:`neutralize_formulas` guarded
    them: one guard quote removed where it put one (at the start of a cell that, without it,
    begins with a formula after any quotes; after a line break before one). The guard is
    undone exactly: a cell that began with a quote and a formula was guarded once more.

    Example
    -------
    >>> cells = pd.Series(["=1+2", "'=x", "-5", "ok", "a\\n=b", None])
    >>> guarded = neutralize_formulas(cells.to_frame("c"))["c"]
    >>> guarded.tolist()[:4]
    ["'=1+2", "''=x", '-5', 'ok']
    >>> restore_formulas(guarded).tolist() == cells.tolist()
    True
    """
    if not (series.dtype == object or pd.api.types.is_string_dtype(series.dtype)):
        return series
    try:
        quoted = series.str.contains("'", regex=False)
    except AttributeError:  # an object column without text
        return series
    if not quoted.fillna(False).astype(bool).any():
        return series  # no guard quote anywhere: one vectorized pass
    text = series.where(series.map(lambda v: isinstance(v, str), na_action="ignore")
                        .fillna(False).astype(bool))
    start = text.str.match(_GUARDED_START.pattern).fillna(False).astype(bool)
    start &= ~text.str[1:].str.fullmatch(_PLAIN_NUMBER).fillna(False).astype(bool)
    breaks = text.str.contains(_BREAK_CLASS + "'(?=[\"']*" + _FORMULA_CLASS + ")",
                               regex=True).fillna(False).astype(bool)
    if not (start.any() or breaks.any()):
        return series
    out = series.copy()
    out[start] = text[start].str[1:]
    if breaks.any():
        out[breaks] = out[breaks].str.replace(_GUARDED_AFTER_BREAK.pattern, "\\1",
                                              regex=True)
    return out


# ============================================================================ writing CSV

_CHUNK_ROWS = 65_536


def write_csv(df: pd.DataFrame, path_or_buf=None, *, header: bool = True,
              escape_formulas: bool = True, publisher_only: bool = False):
    """Write ``df`` as CSV (no index) so that every CSV reader and spreadsheet reads its rows.

    ``df.to_csv()`` quotes a cell holding ``\\n`` but not one holding ``\\r`` or another
    :data:`LINE_BREAKS` character, which readers split rows on: a cell ``"x\\r=HYPERLINK(...)"``
    then starts a new row with a formula. Here every cell (and header name) holding one is
    quoted; with ``escape_formulas`` (default) the frame first goes through
    :func:`neutralize_formulas`. Otherwise the text is what ``to_csv(index=False)`` writes.

    Parameters
    ----------
    df : DataFrame
    path_or_buf : str, path or text stream, optional
        Where to write (a file is written in UTF-8); None: return the text.
    header : bool, default True
        Write the column names as the first line.
    escape_formulas : bool, default True
        Neutralize formula-like text cells (:func:`neutralize_formulas`).
    publisher_only : bool, default False
        A frame holding the columns of an explanation (``out.anon.explain(df)``, also joined
        into a release) is refused with :class:`~pdanon.PublisherOnlyError` unless this says
        the file stays with the publisher (:func:`pdanon.publisher_only.refuse_explanation`;
        pandas' :class:`~pdanon.PublisherOnlyWarning` still reminds).

    Returns
    -------
    str or None
        The CSV text when ``path_or_buf`` is None.

    Example
    -------
    >>> write_csv(pd.DataFrame({"id": [1, 2], "note": ["x\\r=1+2", "=3"]})).split("\\n")
    ['id,note', '1,"x\\r\\'=1+2"', "2,'=3", '']
    """
    if not isinstance(df, pd.DataFrame):
        raise InvalidInputError(f"write_csv takes a DataFrame, got {type(df).__name__}")
    refuse_explanation(df, "write_csv", publisher_only=publisher_only)
    frame = neutralize_formulas(df, header=header) if escape_formulas else df
    chunks = _csv_chunks(frame, header, escape_formulas)
    if path_or_buf is None:
        return "".join(chunks)
    if isinstance(path_or_buf, (str, os.PathLike)):
        with open(path_or_buf, "w", encoding="utf-8", newline="") as fh:
            fh.writelines(chunks)
    else:
        for text in chunks:
            path_or_buf.write(text)
    return None


def _csv_chunks(frame: pd.DataFrame, header: bool, guard: bool):
    """The CSV text of ``frame`` in blocks of rows.

    Python's CSV writer, behind ``DataFrame.to_csv``, quotes a field holding any character
    of the line terminator; so each block is written with a terminator made of every
    :data:`LINE_BREAKS` character (in a random order, then ``\\n``) and every field holding
    a line break comes out quoted. The terminators are then replaced
    by a random token, so that the line breaks left are the ones inside cells; with
    ``guard``, a ``'`` is put after each of them that precedes a formula (in the text of any
    cell: ranges and sets too); and the tokens become :data:`os.linesep`. A cell holding the
    terminator or the token (not by chance: they are drawn anew for each call) is an error,
    never a corrupted file: the count of terminators is checked."""
    order = list(LINE_BREAKS)
    secrets.SystemRandom().shuffle(order)  # (the writer's cost grows with its length)
    terminator = "".join(order) + "\n"
    token = f"<pdanon-row-{secrets.token_hex(12)}>"
    for start in range(0, max(len(frame), 1), _CHUNK_ROWS):
        chunk = frame.iloc[start:start + _CHUNK_ROWS]
        first = header and start == 0
        text = chunk.to_csv(None, index=False, header=first, lineterminator=terminator)
        if text.count(terminator) != len(chunk) + first or token in text:  # not by chance
            raise RuntimeError("write_csv: a cell holds the random line terminator")
        text = text.replace(terminator, token)
        if guard and any(b in text for b in LINE_BREAKS):
            text = _GUARD_WRITTEN_BREAK.sub("\\1" + _QUOTE, text)
        yield text.replace(token, os.linesep)
