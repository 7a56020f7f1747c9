"""Reading generalized cells back from text (CSV).

``df.to_csv()`` writes a generalized cell in its text form: ``[20, 29]`` for a range,
``{Asian, White}`` for a set, the plain value otherwise (missing cells are empty). This module
turns such text back into the ``generalization[...]`` dtype:

* :func:`parse_generalized` parses one column of strings;
* :func:`read_csv` is :func:`pandas.read_csv` followed by :func:`parse_generalized` on every
  quasi-identifier/sensitive column (per a schema) whose text holds range or set syntax.

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

import pandas as pd

from pdanon.dtype import KINDS, GeneralizationArray, GeneralizationDtype
from pdanon.dtype.text import MAX_CELL_LENGTH, has_syntax

__all__ = ["parse_generalized", "read_csv", "MAX_CELL_LENGTH"]


def parse_generalized(strings, kind: str, categories=None, *,
                      max_cell_length: int = MAX_CELL_LENGTH, column=None) -> GeneralizationArray:
    """Parse the text form of generalized cells into a :class:`GeneralizationArray`.

    Parameters
    ----------
    strings : array-like
        Text cells: ``"[20, 29]"`` (range), ``"{Asian, White}"`` (set), a plain value
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


def _column_specs(schema) -> dict:
    """{column: (kind, categories or None)} from a pandera schema or a plain dict."""
    if schema is None:
        return {}
    specs: dict = {}
    if isinstance(schema, Mapping):
        for col, spec in schema.items():
            if isinstance(spec, str):
                specs[col] = (spec, None)
            elif isinstance(spec, Mapping):
                if spec.get("kind"):
                    specs[col] = (spec["kind"], spec.get("categories"))
            elif isinstance(spec, (tuple, list)) and len(spec) == 2:
                specs[col] = (spec[0], spec[1])
            elif isinstance(spec, GeneralizationDtype):
                specs[col] = (spec.column_type, spec.categories)
            else:
                raise TypeError(f"schema entry for {col!r} must be a kind string, got {spec!r}")
        return specs
    columns = getattr(schema, "columns", None) or {}
    for col, column in columns.items():
        meta = getattr(column, "metadata", None) or {}
        role = meta.get("role")
        kind = meta.get("kind")
        if kind is None or role in ("identifier", "insensitive"):
            continue
        cats = meta.get("categories")
        if cats is None:
            dt = getattr(getattr(column, "dtype", None), "type", None)
            if isinstance(dt, pd.CategoricalDtype) and dt.categories is not None:
                cats = dt.categories
        specs[col] = (kind, cats)
    block = (getattr(schema, "metadata", None) or {}).get("pdanon") or {}
    for group in ("quasi_identifiers", "sensitive"):
        for col, kind in (block.get(group) or {}).items():
            if col not in specs and kind:
                specs[col] = (kind, None)
    return specs


def read_csv(path, schema=None, *, max_cell_length: int = MAX_CELL_LENGTH,
             **read_csv_kwargs) -> pd.DataFrame:
    """:func:`pandas.read_csv` that restores generalized cells written by ``df.to_csv()``.

    Parameters
    ----------
    path : str, path or file-like
        Anything :func:`pandas.read_csv` accepts.
    schema : pandera DataFrameSchema or dict, optional
        Which columns hold which kind: a pandera schema whose ``columns[c].metadata`` holds
        ``{"role": ..., "kind": ...}`` (as :func:`pdanon.schema` builds; optional
        ``"categories"`` or a Categorical column dtype give category order), or a dict
        ``{column: kind}`` / ``{column: (kind, categories)}``.
        Columns whose text contains ``[..]``/``{..}`` cells are converted; other columns are
        left as pandas read them.
    max_cell_length : int, default :data:`MAX_CELL_LENGTH` (1,000,000)
        Longest text, in characters, of a cell in a converted column; a longer cell raises
        :class:`~pdanon.InvalidInputError` naming the column, the row and the limit. Parsing
        is linear in the length of the text, so the limit bounds the time and memory one
        cell can cost.
    **read_csv_kwargs
        Passed to :func:`pandas.read_csv`.

    Raises
    ------
    pdanon.InvalidInputError
        (a ``ValueError``) when a cell of a converted column cannot be parsed or is too long;
        the message names the column, the row (the frame's index label) and the text.

    Examples
    --------
    >>> import io as _io
    >>> df = read_csv(_io.StringIO('edu\\nHS\\n"[HS, MSc]"\\n'),
    ...               schema={"edu": ("ordered", ["HS", "BSc", "MSc"])})
    >>> df["edu"].tolist()
    ['HS', [HS, MSc]]
    """
    df = pd.read_csv(path, **read_csv_kwargs)
    for col, (kind, cats) in _column_specs(schema).items():
        if col not in df.columns or kind not in KINDS:
            continue
        s = df[col]
        if isinstance(s.dtype, GeneralizationDtype):
            continue
        if not (s.dtype == object or pd.api.types.is_string_dtype(s.dtype)):
            continue
        values = s.to_numpy(dtype=object)
        if has_syntax(values):
            arr = GeneralizationArray._from_text(values, kind, cats, column=col, index=df.index,
                                                 max_cell_length=max_cell_length)
            df[col] = pd.Series(arr, index=df.index, name=col)
    return df
