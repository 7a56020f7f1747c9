"""CSV formula injection: neutralize text cells a spreadsheet would evaluate.

A spreadsheet program that opens a CSV file treats a cell beginning with ``=``, ``+``, ``-``
or ``@`` as a formula (tab and carriage return are listed by OWASP too, since they can
precede one), so a released table can carry ``=HYPERLINK(...)`` or worse to whoever opens it.
:func:`neutralize_formulas` prefixes such *text* cells with a single quote ``'``, which
spreadsheets show as text. Numbers are never touched: ``-5`` in a numeric column stays ``-5``.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"note": ["=1+2", "ok", None], "delta": [-5, 3, 0]})
>>> out = neutralize_formulas(df)
>>> out["note"].tolist(), out["delta"].tolist()
(["'=1+2", 'ok', nan], [-5, 3, 0])
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError

__all__ = ["FORMULA_PREFIXES", "neutralize_formulas"]

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet evaluate (or start evaluating) a cell."""

_QUOTE = "'"
# inferred object-column types that can hold str cells (the others hold none)
_TEXTUAL = ("string", "mixed", "mixed-integer")


def _hits(series: pd.Series) -> np.ndarray:
    """Boolean mask of the cells that are ``str`` and begin with a formula character."""
    starts = series.str.startswith(FORMULA_PREFIXES)
    return starts.to_numpy(dtype=object, na_value=False).astype(bool)


def _neutralize_values(series: pd.Series) -> pd.Series | None:
    """The column with its formula-like str cells quoted, or None when nothing changes."""
    dtype = series.dtype
    if isinstance(dtype, pd.StringDtype):
        mask = _hits(series)
        if not mask.any():
            return None
        return series.mask(mask, _QUOTE + series)  # whole-column string ops, no cell loop
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
    mask = _hits(series.astype("str") if inferred == "string" else series)
    if not mask.any():
        return None
    values = series.to_numpy(dtype=object, copy=True)
    values[mask] = (_QUOTE + series[mask]).to_numpy(dtype=object)
    return pd.Series(values, index=series.index, name=series.name, dtype=object)


def neutralize_formulas(df: pd.DataFrame, *, header: bool = True) -> pd.DataFrame:
    """A copy of ``df`` whose text cells beginning with ``=``, ``+``, ``-``, ``@``, tab or
    carriage return (:data:`FORMULA_PREFIXES`) are prefixed with a single quote ``'``.

    * Only ``str`` cells change: in object and string columns, the string categories of a
      Categorical, and the plain text cells of a generalized (``generalization[...]``) column
      of unordered or categorical values. Numeric, boolean and date columns, numbers inside
      object columns, and generalized ranges/sets (their text begins with ``[`` or ``{``) are
      never changed; missing cells stay missing.
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
        labels = [(_QUOTE + c) if isinstance(c, str) and c.startswith(FORMULA_PREFIXES) else c
                  for c in df.columns]
        if labels != list(df.columns):
            out.columns = pd.Index(labels, dtype=object)
    return out
