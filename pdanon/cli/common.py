"""What both command lines (``depersonalize`` and ``pdanon anonymize``) share: one-line error
texts, file names that mean the same file, Parquet by extension, and one format for every
warning a run raises (``PROG: warning: text (Category)``), so that a script or a person reading
standard error sees no raw Python warning with a file name and line number.

Example
-------
>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     warnings.warn("k is small", UserWarning)
>>> warning_lines("pdanon anonymize", caught)
['pdanon anonymize: warning: k is small (UserWarning)']
"""

from __future__ import annotations

import os

from pdanon.io import csvcodes

PARQUET_SUFFIXES = (".parquet", ".pq")
#: a number written with a leading zero (``04777``, ``-05``): a code, whose zero a number loses
#: (one rule for the command lines and :func:`pdanon.read_csv`)
LEADING_ZERO = csvcodes.LEADING_ZERO

#: exit codes of both command lines
EXIT_OK, EXIT_BAD_INPUT, EXIT_POLICY_FAILED, EXIT_INTERRUPTED = 0, 2, 3, 130


def one_line(exc: BaseException) -> str:
    """The text of an exception on one line (a KeyError's quotes removed).

    Example
    -------
    >>> one_line(KeyError("age"))
    'age'
    """
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, KeyError) and text.startswith("'") and text.endswith("'"):
        text = text[1:-1]
    return " ".join(text.split())


def read_error(path: str, exc: BaseException, encoding=None,
               flag: str | None = "--encoding") -> str:
    """The one-line error for a table that cannot be read: a byte that is not text in
    ``encoding`` names its line and the fix, ``flag`` (the option that sets the encoding) or
    saving the file as UTF-8 when the command has no such option.

    Example
    -------
    >>> read_error("x.csv", OSError("disk on fire"))
    "cannot read 'x.csv': disk on fire"
    """
    if isinstance(exc, UnicodeDecodeError):
        from pdanon.io import decode_error

        exc = decode_error(path, exc, encoding)
    if isinstance(exc, csvcodes.UndecodableError):
        exc.name = path
        return exc.text(f"give {flag} {exc.suggested}" if flag else
                        f"save it as UTF-8 first (iconv -f {exc.suggested} -t utf-8 IN > OUT)")
    return f"cannot read {path!r}: {one_line(exc)}"


def unreadable(path: str) -> str | None:
    """Why ``path`` cannot be read as a table (``"cannot read 'x': file not found"``), or
    None when it is a regular file. A table is read more than once (its header first), so
    a FIFO, a device (``/dev/stdin``, ``/dev/zero``) or a socket is refused, naming the fix;
    no size limit applies to a table (:mod:`pdanon.sidefiles`)."""
    import stat

    from pdanon.sidefiles import file_kind

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return f"cannot read {path!r}: file not found"
    except OSError as exc:
        return f"cannot read {path!r}: {one_line(exc)}"
    if stat.S_ISDIR(mode):
        return f"cannot read {path!r}: it is a directory"
    if not stat.S_ISREG(mode):
        return (f"cannot read {path!r}: it is {file_kind(mode)}, not a regular file; a "
                "table is read more than once: write it to a file first (cat > table.csv)")
    return None


def is_parquet(path: str) -> bool:
    """Whether ``path`` names a Parquet file (``.parquet`` or ``.pq``, any case)."""
    return str(path).lower().endswith(PARQUET_SUFFIXES)


def same_file(a: str, b: str) -> bool:
    """Whether writing ``a`` would write the file ``b`` (the same real path after symlinks,
    or the same file through a hard link)."""
    if os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b)):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def overwrite_clash(inputs, outputs) -> str | None:
    """The first output path (``(flag, path)`` pairs, None skipped) that is an input or an
    earlier output, as the one-line error to raise; None when every path is its own."""
    seen = [(f, p) for f, p in inputs if p is not None]
    for flag, path in outputs:
        if path is None:
            continue
        for other, existing in seen:
            if same_file(path, existing):
                return (f"{flag} {path!r} would overwrite {other} {existing!r}; write it to "
                        f"another file")
        seen.append((flag, path))
    return None


def warning_lines(prog: str, caught) -> list:
    """One line per distinct warning in ``caught`` (``warnings.catch_warnings(record=True)``),
    in the order raised: ``PROG: warning: text (Category)``."""
    lines, seen = [], set()
    for w in caught:
        text = " ".join(str(w.message).split())
        line = f"{prog}: warning: {text} ({w.category.__name__})"
        if line not in seen:
            seen.add(line)
            lines.append(line)
    return lines


def numbers_column(series, present, text, number):
    """The column of ``series`` holding ``number`` (``pd.to_numeric`` of ``text``, the
    stripped text of the ``present`` cells): whole numbers written without ``.`` or an
    exponent stay integers (``Int64`` when cells are missing, so ``30`` is written back as
    ``30``), any other numbers are floats.

    Example
    -------
    >>> import pandas as pd
    >>> s = pd.Series(["30", None])
    >>> present = s.notna().to_numpy()
    >>> text = s[present].str.strip()
    >>> numbers_column(s, present, text, pd.to_numeric(text)).tolist()
    [30, <NA>]
    """
    import pandas as pd

    import numpy as np

    if bool((number == number.round()).all()) and not text.str.contains(r"[.eE]").any():
        if len(text) and text.str.lstrip("+-").str.len().max() > 18:
            exact = [int(t) for t in text]  # long integers only: read exactly
            if any(not -2 ** 63 <= v < 2 ** 63 for v in exact):
                # beyond 64 bits: exact Python integers (int64 would wrap them around)
                column = pd.Series([None] * len(series), index=series.index, dtype=object)
                column[present] = np.asarray(exact, dtype=object)
                return column
            values = np.asarray(exact, dtype=np.int64)
        else:
            values = number.astype("int64").to_numpy()
        column = pd.Series(pd.array([pd.NA] * len(series), dtype="Int64"), index=series.index)
        column[present] = values
        return column.astype("int64") if present.all() else column
    column = pd.Series(float("nan"), index=series.index, dtype="float64")
    column[present] = number.astype("float64").to_numpy()
    return column
