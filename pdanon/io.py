"""Reading generalized cells back from text (CSV).

``df.to_csv()`` writes a generalized cell in its text form: ``[20, 29]`` for a range,
``{Asian, White}`` for a set, the plain value otherwise (missing cells are empty). This module
turns such text back into the ``generalization[...]`` dtype:

* :func:`parse_generalized` parses one column of strings;
* :func:`read_csv` is :func:`pandas.read_csv` followed, per a schema, by restoring what each
  column stores (generalized cells, Categorical categories and order, dtypes) and checking
  every column against its kind; errors name the column, the row and the offending text.

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

from typing import Mapping

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.dtype import KINDS, GeneralizationArray, GeneralizationDtype
from pdanon.dtype.text import MAX_CELL_LENGTH, ParsedSets, has_syntax, parse_text

__all__ = ["parse_generalized", "read_csv", "MAX_CELL_LENGTH"]


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
# read_csv
# ---------------------------------------------------------------------------------------------

_GENERALIZED = "generalization["


def _spec(kind=None, categories=None, dtype=None, ordered=None) -> dict:
    return {"kind": kind, "categories": categories, "dtype": dtype, "ordered": ordered}


def _column_specs(schema) -> dict:
    """``{column: {kind, categories, dtype, ordered}}`` from a pandera schema or a dict."""
    if schema is None:
        return {}
    specs: dict = {}
    if isinstance(schema, Mapping):
        for col, spec in schema.items():
            if isinstance(spec, str):
                specs[col] = _spec(spec)
            elif isinstance(spec, Mapping):
                specs[col] = _spec(spec.get("kind"), spec.get("categories"), spec.get("dtype"),
                                   spec.get("ordered"))
            elif isinstance(spec, (tuple, list)) and len(spec) == 2:
                specs[col] = _spec(spec[0], spec[1])
            elif isinstance(spec, GeneralizationDtype):
                specs[col] = _spec(spec.column_type, spec.categories, spec.name)
            else:
                raise TypeError(f"schema entry for {col!r} must be a kind string, got {spec!r}")
        return specs
    columns = getattr(schema, "columns", None) or {}
    block = (getattr(schema, "metadata", None) or {}).get("pdanon") or {}
    stored = block.get("columns") or {}
    for col, column in columns.items():
        meta = {**stored.get(col, {}), **(getattr(column, "metadata", None) or {})}
        if meta.get("role") == "identifier":
            continue
        cats = meta.get("categories")
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
        Anything :func:`pandas.read_csv` accepts.
    schema : pandera DataFrameSchema or dict, optional
        What each column holds: a pandera schema whose ``columns[c].metadata`` holds
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
        Passed to :func:`pandas.read_csv`.

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
        in two fields) is reported with that hint, as is a line with more fields than the
        header.

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
    try:
        df = pd.read_csv(path, **read_csv_kwargs)
    except pd.errors.ParserError as exc:
        raise InvalidInputError(
            f"cannot read {path if isinstance(path, str) else 'the file'} as CSV: {exc} (a "
            f"generalized cell such as '[30, 35)' holds a comma and must be quoted; "
            f"df.to_csv() quotes it)") from None
    for col, spec in _column_specs(schema).items():
        if col in df.columns:
            df[col] = _restore(df[col], col, spec, df.index, max_cell_length)
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
    if kind is not None and text and has_syntax(values, kind):
        return _generalized(values, kind, cats, col, index, max_cell_length)
    if kind == "real" or (kind == "ordered" and cats is None):
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


def _numeric(s, values, text, kind, col, index, max_cell_length) -> pd.Series:
    """A real (or numeric ordered) column must hold numbers: text that pandas left as text
    is parsed, and an error names the cell that is not a number."""
    if not text:
        if pd.api.types.is_bool_dtype(s.dtype) or not (
                pd.api.types.is_numeric_dtype(s.dtype) or s.isna().all()):
            raise InvalidInputError(
                f"column {col!r} holds {s.dtype} values, but the schema says it is {kind}; "
                f"give it numbers")
        return s
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
