"""DataFrame columns -> numeric arrays the engine works on, and back.

Every quasi-identifier becomes an :class:`EncodedColumn`:

* ``codes`` — one int per row, equal cells get equal codes; for ``real`` and ``ordered`` columns
  codes follow the value order (code 0 is the smallest value);
* ``categories`` — the distinct values in code order;
* ``lo`` / ``hi`` — the bounds of each cell (float values for ``real``; codes for ``ordered``);
  a plain value has ``lo == hi``;
* ``membership`` — for an already generalized ``unordered`` column, which categories each cell
  contains (``None`` for plain columns: each cell is the singleton of its code).

Columns that are already of the generalization dtype (the output of an earlier pdanon step) are
read from their bounds / membership, so anonymizers can be chained.

Example
-------
>>> import pandas as pd
>>> e = encode_column(pd.Series(["b", "a", "b"]), "unordered")
>>> e.codes.tolist(), list(e.categories)
([0, 1, 0], ['b', 'a'])
>>> encode_column(pd.Series([30, 20, 30]), "ordered").rank.tolist()
[1, 0, 1]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable

import numpy as np
import pandas as pd

from pdanon._errors import KindError


@dataclass
class EncodedColumn:
    name: Hashable
    kind: str
    codes: np.ndarray
    categories: pd.Index
    lo: np.ndarray | None = None
    hi: np.ndarray | None = None
    membership: np.ndarray | None = None
    generalized: bool = False
    numeric: bool = False

    @property
    def n(self) -> int:
        return len(self.codes)

    @property
    def rank(self) -> np.ndarray:
        """Rank of every cell: the first position of its value in the sorted column (ordered)."""
        counts = np.bincount(self.codes, minlength=len(self.categories))
        first_pos = np.cumsum(counts) - counts
        return first_pos[self.codes]

    @property
    def point(self) -> np.ndarray:
        """One float per cell for distances: the value (real) or the midpoint of a range."""
        if self.lo is None:
            return self.codes.astype(np.float64)
        return (np.asarray(self.lo, dtype=np.float64) + np.asarray(self.hi, dtype=np.float64)) / 2


def _is_generalized(series: pd.Series) -> bool:
    from pdanon.dtype import GeneralizationDtype

    return isinstance(series.dtype, GeneralizationDtype)


def encode_column(series: pd.Series, kind: str) -> EncodedColumn:
    """Encode one column as arrays (see the module docstring)."""
    name = series.name
    if _is_generalized(series):
        return _encode_generalized(series, kind)
    if kind == "real":
        if not (pd.api.types.is_numeric_dtype(series.dtype)
                and not pd.api.types.is_bool_dtype(series.dtype)):
            raise KindError(
                f"column {name!r} has kind 'real' but holds {series.dtype} values; convert it "
                f"to numbers (pd.to_numeric(df[{name!r}])) or declare it 'ordered'/'unordered'"
            )
        if _beyond_float(series):
            raise KindError(
                f"column {name!r} holds integers above 2**53, which a 'real' column would "
                "round (neighbouring values could merge); declare it 'ordered' or "
                "'unordered' instead"
            )
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        codes, cats = pd.factorize(values, sort=True)
        return EncodedColumn(name, kind, np.asarray(codes, np.int64), pd.Index(cats), values,
                             values, numeric=True)
    if kind == "ordered":
        if isinstance(series.dtype, pd.CategoricalDtype):
            cats = series.cat.categories
            codes = np.asarray(series.cat.codes, dtype=np.int64)
            if not series.dtype.ordered:
                codes, cats = _sorted_codes(series, name)
        else:
            codes, cats = _sorted_codes(series, name)
        # a Categorical orders its values by its categories, not by their numeric value
        numeric = (not isinstance(series.dtype, pd.CategoricalDtype)
                   and pd.api.types.is_numeric_dtype(cats.dtype)
                   and not pd.api.types.is_bool_dtype(cats.dtype)
                   and not _beyond_float(cats))
        return EncodedColumn(name, kind, codes, cats, codes, codes, numeric=numeric)
    if kind == "unordered":
        try:
            codes, cats = pd.factorize(series, sort=False)
        except TypeError as exc:
            raise KindError(
                f"column {name!r} holds unhashable values ({exc}); convert them to hashable "
                f"ones (e.g. tuples or strings)"
            ) from None
        return EncodedColumn(name, kind, np.asarray(codes, np.int64), pd.Index(cats))
    raise KindError(f"unknown kind {kind!r} for column {name!r}; use real, ordered or unordered")


def _beyond_float(values) -> bool:
    """Integers too large for float64 to hold exactly (|v| > 2**53)."""
    if not pd.api.types.is_integer_dtype(getattr(values, "dtype", None)) or len(values) == 0:
        return False
    top = max(abs(int(values.min())), abs(int(values.max())))
    return top > 2**53


def _sorted_codes(series: pd.Series, name) -> tuple[np.ndarray, pd.Index]:
    try:
        codes, cats = pd.factorize(series, sort=True)
        if cats.dtype == object and pd.api.types.infer_dtype(cats, skipna=True).startswith("mixed"):
            raise TypeError  # pandas falls back to an unsorted order for mixed types; we refuse
    except TypeError:
        types = sorted({type(v).__name__ for v in series.dropna()})
        raise KindError(
            f"column {name!r} has kind 'ordered' but its values ({types}) cannot be sorted; "
            f"convert them to one type or use an ordered Categorical"
        ) from None
    return np.asarray(codes, np.int64), pd.Index(cats)


def _encode_generalized(series: pd.Series, kind: str) -> EncodedColumn:
    arr = series.array
    if arr.kind != kind:
        raise KindError(
            f"column {series.name!r} holds generalized cells of kind {arr.kind!r}, not {kind!r}"
        )
    if kind == "unordered":
        codes, _ = pd.factorize(arr, use_na_sentinel=True)  # equal sets, equal codes
        lo = hi = None
        membership = np.asarray(arr.membership)
    else:
        lo, hi = np.asarray(arr.lo), np.asarray(arr.hi)
        # codes in value order: order cells by (lo, hi) so distances on ranks stay meaningful
        codes, _ = pd.factorize(pd.MultiIndex.from_arrays([lo, hi]), sort=True)
        membership = None
    codes = np.asarray(codes, np.int64)
    categories = pd.Index(np.arange(int(np.max(codes, initial=-1)) + 1))
    return EncodedColumn(series.name, kind, codes, categories, lo, hi, membership,
                         generalized=True, numeric=kind == "real")


@dataclass
class EncodedTable:
    """The encoded quasi-identifiers (and sensitive columns as plain codes) of a frame."""

    columns: list[EncodedColumn]
    sensitive: dict
    n: int

    @property
    def names(self) -> list:
        return [c.name for c in self.columns]


def encode_table(df: pd.DataFrame, roles) -> EncodedTable:
    """Encode the quasi-identifiers of ``df`` (and factorize its sensitive columns)."""
    cols = [encode_column(df[c], kind) for c, kind in roles.quasi_identifiers.items()]
    sens = {}
    for c in roles.sensitive:
        codes, _ = pd.factorize(df[c], use_na_sentinel=False)
        sens[c] = np.asarray(codes, np.int64)
    return EncodedTable(cols, sens, len(df))
