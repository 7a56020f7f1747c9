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

import re
from typing import Any, Mapping

import numpy as np
import pandas as pd

from pdanon.dtype import (
    KINDS,
    GeneralizationArray,
    GeneralizationDtype,
    _SetTable,
    _infer_categories,
    _is_na,
    _object_array,
    _sets_from_pairs,
    _split_range_text,
    _split_set_text,
)

__all__ = ["parse_generalized", "read_csv"]

_INT_RE = re.compile(r"^[+-]?\d+$")
_SYNTAX_RE = r"^\s*(\[.*\]|\{.*\})\s*$"


def _classify(obj: np.ndarray):
    """-> (na mask, is-string mask, stripped strings (object; '' where not a string))."""
    n = len(obj)
    na = np.zeros(n, dtype=bool)
    is_str = np.zeros(n, dtype=bool)
    txt = np.empty(n, dtype=object)
    txt[:] = ""
    for i, v in enumerate(obj):
        if isinstance(v, str):
            t = v.strip()
            if t == "" or t.lower() in ("nan", "<na>", "none", "null"):
                na[i] = True
            else:
                is_str[i] = True
                txt[i] = t
        elif _is_na(v):
            na[i] = True
    return na, is_str, txt


def _bracketed(txt: np.ndarray, is_str: np.ndarray, open_: str, close: str) -> np.ndarray:
    out = np.zeros(len(txt), dtype=bool)
    for i in np.flatnonzero(is_str):
        t = txt[i]
        out[i] = len(t) >= 2 and t[0] == open_ and t[-1] == close
    return out


def _token_converter(tokens: list[str]):
    """How to type text tokens when no categories are known: int, float or str."""
    if tokens and all(_INT_RE.match(t) for t in tokens):
        return int
    try:
        for t in tokens:
            float(t)
    except ValueError:
        return str
    return float if tokens else str


def _to_number(tok: str, whole: str) -> float:
    try:
        return float(tok)
    except ValueError:
        raise ValueError(f"cannot parse {whole!r} as a number or a range '[min, max]'") from None


def parse_generalized(strings, kind: str, categories=None) -> GeneralizationArray:
    """Parse the text form of generalized cells into a :class:`GeneralizationArray`.

    Parameters
    ----------
    strings : array-like
        Text cells: ``"[20, 29]"`` (range), ``"{Asian, White}"`` (set), a plain value
        (``"39"``, ``"White"``) or missing (NaN / empty). Non-string values (e.g. numbers that
        ``read_csv`` already converted) are taken as plain values.
    kind : {'real', 'ordered', 'unordered'}
    categories : sequence, optional
        Ordered categories (ordered) or the possible values (unordered). Text is matched to
        them by its string form, so integer categories come back as integers. Without
        categories, an ordered column is numeric when every value parses as a number
        (otherwise its categories are the sorted distinct values), and unordered values are
        typed as int, float or str (whichever all of them parse as).

    Examples
    --------
    >>> parse_generalized(["39", "[20, 29]", None], "real").tolist()
    [39, [20, 29], nan]
    >>> parse_generalized(["White", "{Asian, White}"], "unordered").tolist()
    ['White', {Asian, White}]
    >>> parse_generalized(["{1, 2}", "3"], "unordered").dtype.categories.tolist()
    [1, 2, 3]
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if isinstance(categories, pd.CategoricalDtype):
        categories = categories.categories
    obj = _object_array(strings)
    # parse each distinct text once (generalized columns repeat their cells a lot)
    try:
        codes, uniq = pd.factorize(obj, use_na_sentinel=True)
        uniq = _object_array(uniq)
    except TypeError:  # unhashable values: parse row by row (and fail with a clear message)
        codes, uniq = None, obj
    if kind == "unordered":
        parsed = _parse_sets(uniq, categories)
    else:
        parsed = _parse_ranges(uniq, kind, categories)
    if codes is None:
        return parsed
    out = parsed.take(codes, allow_fill=True)
    if not out._is_sets and len(out) and not out._mask.all():
        out._integer = parsed._integer
    return out


def _parse_ranges(obj: np.ndarray, kind: str, categories) -> GeneralizationArray:
    n = len(obj)
    na, is_str, txt = _classify(obj)
    rng = _bracketed(txt, is_str, "[", "]")
    lo_tok = np.empty(n, dtype=object)
    hi_tok = np.empty(n, dtype=object)
    dtype = GeneralizationDtype(kind, categories)
    valid = ~na
    for i in np.flatnonzero(valid):
        if rng[i]:
            lo_tok[i], hi_tok[i] = _split_range_text(txt[i], dtype)
        elif is_str[i]:
            lo_tok[i] = hi_tok[i] = txt[i]
        else:
            lo_tok[i] = hi_tok[i] = obj[i]
    toks = [t for t in np.concatenate([lo_tok[valid], hi_tok[valid]]) if isinstance(t, str)]
    if categories is None and kind == "ordered":
        try:
            for t in toks:
                float(t)
        except ValueError:
            nonstr = [t for t in np.concatenate([lo_tok[valid], hi_tok[valid]])
                      if not isinstance(t, str)]
            conv = _token_converter(toks) if not nonstr else str
            vals = _object_array([conv(t) if isinstance(t, str) else t
                                  for t in np.concatenate([lo_tok[valid], hi_tok[valid]])])
            dtype = GeneralizationDtype("ordered", _infer_categories(vals, sort=True))
            categories = dtype.categories
    if dtype.categories is not None:
        text = dtype._cat_text
        pos = dtype._cat_pos
        lo = np.full(n, -1, dtype=np.int64)
        hi = np.full(n, -1, dtype=np.int64)
        for arr_tok, out in ((lo_tok, lo), (hi_tok, hi)):
            for i in np.flatnonzero(valid):
                t = arr_tok[i]
                try:
                    p = pos.get(t)
                except TypeError:
                    p = None
                if p is None and isinstance(t, str):
                    p = text.get(t)
                if p is None and not isinstance(t, str):
                    p = text.get(str(t))
                if p is None:
                    raise ValueError(f"value {t!r} is not among the categories of {dtype!r}")
                out[i] = p
        return GeneralizationArray.from_bounds(lo, hi, kind=kind, categories=dtype.categories,
                                               mask=na)
    lo = np.full(n, np.nan)
    hi = np.full(n, np.nan)
    integer = True
    for i in np.flatnonzero(valid):
        a, b = lo_tok[i], hi_tok[i]
        whole = obj[i] if not is_str[i] else txt[i]
        if isinstance(a, str):
            integer = integer and bool(_INT_RE.match(a)) and bool(_INT_RE.match(b))
            lo[i], hi[i] = _to_number(a, whole), _to_number(b, whole)
        else:
            if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, float, np.number)):
                raise ValueError(f"cannot parse {whole!r} as a number or a range")
            integer = integer and isinstance(a, (int, np.integer))
            lo[i] = hi[i] = float(a)
    return GeneralizationArray.from_bounds(lo, hi, kind=kind, mask=na,
                                           integer=integer and bool(valid.any()))


def _parse_sets(obj: np.ndarray, categories) -> GeneralizationArray:
    n = len(obj)
    na, is_str, txt = _classify(obj)
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
    members = [_split_set_text(txt[i], dtype) for i in set_idx]
    for i, ms in zip(set_idx, members):
        if not ms:
            raise ValueError(f"cell {i}: an empty set {txt[i]!r} cannot be stored (use NaN)")
    if not known:
        str_toks = [t for t in plain_tok if isinstance(t, str)] + [m for ms in members for m in ms]
        has_nonstr = any(not isinstance(t, str) for t in plain_tok)
        conv = str if has_nonstr else _token_converter(str_toks)
        if conv is not str:
            plain_tok = [conv(t) if isinstance(t, str) else t for t in plain_tok]
            members = [[conv(m) for m in ms] for ms in members]
        allv = _object_array(plain_tok + [m for ms in members for m in ms])
        dtype = GeneralizationDtype("unordered", _infer_categories(allv, sort=True))
    pos = dtype._cat_pos
    text = dtype._cat_text

    def code(t):
        try:
            p = pos.get(t)
        except TypeError:
            p = None
        if p is None:
            p = text.get(t if isinstance(t, str) else str(t))
        if p is None:
            raise ValueError(f"value {t!r} is not among the categories of {dtype!r}")
        return p

    c = dtype._n_categories
    codes = np.full(n, -1, dtype=np.int64)
    if len(plain_idx):
        codes[plain_idx] = [code(t) for t in plain_tok]
    table = np.zeros((0, c), dtype=bool)
    if len(set_idx):
        rows = np.repeat(set_idx, [len(ms) for ms in members])
        cats = np.array([code(m) for ms in members for m in ms], dtype=np.int64)
        scodes, table = _sets_from_pairs(n, rows, cats, c)
        codes[set_idx] = scodes[set_idx]
    return GeneralizationArray._new_sets(codes, _SetTable(table), dtype)


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


def read_csv(path, schema=None, **read_csv_kwargs) -> pd.DataFrame:
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
    **read_csv_kwargs
        Passed to :func:`pandas.read_csv`.

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
        has_syntax = s.astype(object).where(s.notna(), "").astype(str).str.match(_SYNTAX_RE)
        if has_syntax.any():
            df[col] = pd.Series(parse_generalized(s.to_numpy(dtype=object), kind, cats),
                                index=df.index, name=col)
    return df
