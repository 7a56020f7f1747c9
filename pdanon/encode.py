"""The one encoder: any column -> integer codes plus what each kind needs, and back.

Every part of pdanon that reads cell values - the engine and its partitioners, the classic
API, the privacy models' sensitive columns, the metrics and Dask - turns columns into arrays
here, so the rules about *which* cells are missing, unhashable or of mixed types live in one
place:

* :func:`missing` decides what a missing cell is (``NaN``, ``None``, ``pd.NA``, ``NaT``, a
  suppressed generalized cell) and, with ``na="refuse"``, raises a teaching error naming the
  column and the fix; with ``na="accept"`` (metrics) it only returns the mask;
* :func:`factorize` turns values into codes; unhashable values are a :class:`KindError`, and
  with ``sort=True`` its ``mixed`` parameter says what to do with values of several types:
  ``"refuse"`` (quasi-identifiers of the engine), ``"compare"`` (accept them when Python can
  compare them: sensitive columns and metrics), ``"pandas"`` (pandas' order, numbers before
  strings: the classic API);
* :func:`check_finite` refuses ``inf`` / ``-inf`` in a column read as numbers (a ``real`` or
  numeric ``ordered`` quasi-identifier, a ``real`` sensitive column of t-closeness); NaN is a
  missing cell, :func:`missing` decides about it;
* :func:`check_value_types` is the anonymizers' rule for object columns that mix numbers
  with other values (refused, or accepted with ``mixed="accept"``);
* :func:`encode_column` / :func:`encode_table` build the engine's :class:`EncodedColumn`
  (codes, categories, ranks, numeric values, bounds of generalized cells).

Every quasi-identifier becomes an :class:`EncodedColumn`:

* ``codes`` — one int per row, equal cells get equal codes; for ``real`` and ``ordered`` columns
  codes follow the value order (code 0 is the smallest value); ``-1`` is a missing cell;
* ``categories`` — the distinct values in code order;
* ``lo`` / ``hi`` — the bounds of each cell (float values for ``real``; codes for ``ordered``);
  a plain value has ``lo == hi``;
Columns that are already of the generalization dtype (the output of an earlier pdanon step) are
read from their bounds (ranges) or cell codes (sets: equal sets, equal codes), so anonymizers can
be chained. The members of set cells are not copied here: the recoder reads them, sparse, from
the column itself (``GeneralizationArray.members``), so no rows × categories matrix is built.

Example
-------
>>> import pandas as pd
>>> e = encode_column(pd.Series(["b", "a", "b"]), "unordered")
>>> e.codes.tolist(), list(e.categories)
([0, 1, 0], ['b', 'a'])
>>> encode_column(pd.Series([30, 20, 30]), "ordered").rank.tolist()
[1, 0, 1]
>>> missing(pd.Series([1.0, None, 3.0])).tolist()
[False, True, False]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError

__all__ = [
    "EncodedColumn",
    "EncodedTable",
    "MIXED_POLICIES",
    "NA_POLICIES",
    "beyond_float",
    "check_finite",
    "check_value_types",
    "encode_column",
    "encode_table",
    "factorize",
    "first_label",
    "has_generalized_cells",
    "is_generalized",
    "is_real_dtype",
    "missing",
    "missing_bound",
    "missing_as_value",
    "range_scale",
    "object_array",
    "rank_values",
    "unknown_categories",
    "validate_values",
    "value_counts",
]

#: What :func:`missing` does with missing cells.
NA_POLICIES = ("accept", "refuse")
#: What :func:`factorize` (``sort=True``) and :func:`check_value_types` do with mixed types.
MIXED_POLICIES = ("refuse", "compare", "pandas", "accept")


# ============================================================================ cell rules


def missing(values, *, na: str = "accept", where: str = "column", counts=None, index=None,
            fill: str = "", note: str = "") -> np.ndarray:
    """The missing cells of ``values`` (a boolean mask): ``NaN``, ``None``, ``pd.NA``, ``NaT``
    and suppressed generalized cells.

    ``na="refuse"`` raises :class:`InvalidInputError` when there is one, naming ``where``
    (e.g. ``"column 'age'"``), the count, the first missing ``index`` label (when given), how to
    ``fill`` them and a ``note``. ``counts`` weighs each value (a table of distinct values with
    their counts, as Dask builds).

    Example
    -------
    >>> missing([1.0, None, float("nan"), pd.NA, pd.NaT, "x"]).tolist()
    [False, True, True, True, True, False]
    >>> missing(pd.Series([1, None]), na="refuse", where="column 'a'")
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: column 'a' has 1 missing value(s); fill them or drop those rows before anonymizing
    """
    if na not in NA_POLICIES:
        raise ValueError(f"na must be one of {NA_POLICIES}, got {na!r}")
    if isinstance(values, (pd.Series, pd.Index)):
        values = values.array
    if is_generalized(values):
        mask = np.asarray(values.isna(), dtype=bool)
    else:
        mask = np.asarray(pd.isna(values), dtype=bool)
    if na == "refuse" and mask.any():
        count = int(mask.sum()) if counts is None else int(np.asarray(counts)[mask].sum())
        if count:
            first = ("" if index is None else
                     f" (first at index {first_label(index, mask)!r})")
            raise InvalidInputError(
                f"{where} has {count} missing value(s){first}; fill them{fill} or drop those "
                f"rows before anonymizing{note}")
    return mask


def first_label(index, mask: np.ndarray):
    """The index label of the first row flagged in ``mask``, as a plain Python value (so an
    error message shows ``7``, not ``np.int64(7)``).

    Example
    -------
    >>> first_label(pd.Index([5, 7, 9]), np.array([False, True, True]))
    7
    """
    label = index[int(np.flatnonzero(mask)[0])]
    return label.item() if isinstance(label, np.generic) else label


def factorize(values, *, where: str = "column", sort: bool = False, mixed: str = "refuse",
              na_sentinel: bool = True) -> tuple[np.ndarray, object]:
    """``(codes, uniques)`` of ``values``: int64 codes, ``-1`` for missing cells (or, with
    ``na_sentinel=False``, missing as one more value).

    Unhashable values (lists, dicts, sets) raise :class:`KindError`. With ``sort=True`` codes
    follow the value order and ``mixed`` says what values of several types do:
    ``"refuse"`` raises for any mix (``1`` and ``"a"``, but also ``1`` and ``2.5`` in an object
    column), ``"compare"`` accepts values Python can compare (``1`` and ``2.5``), ``"pandas"``
    accepts pandas' order (numbers before strings).

    Example
    -------
    >>> codes, uniques = factorize(pd.Series(["b", None, "a"]), sort=True)
    >>> codes.tolist(), list(uniques)
    ([1, -1, 0], ['a', 'b'])
    >>> factorize(pd.Series([1, "a"], dtype=object), sort=True, where="column 'x'")
    Traceback (most recent call last):
    ...
    pdanon._errors.KindError: column 'x' has kind 'ordered' but its values (['int', 'str']) cannot be sorted; convert them to one type, use an ordered Categorical or declare it 'unordered'
    """
    if mixed not in MIXED_POLICIES:
        raise ValueError(f"mixed must be one of {MIXED_POLICIES}, got {mixed!r}")
    if isinstance(values, pd.arrays.NumpyExtensionArray):
        # pandas 3's factorize(..., sort=True) refuses this wrapper (safe_sort): unwrap it
        values = values.to_numpy()
    if sort and mixed != "compare":
        try:
            codes, uniques = pd.factorize(values, sort=True, use_na_sentinel=na_sentinel)
        except TypeError:
            codes, uniques = _hashed(values, where, na_sentinel)  # unhashable: raises here
            raise _unsortable(uniques, where) from None
        if _mixed_order(uniques, mixed):
            raise _unsortable(uniques, where)
        return np.asarray(codes, dtype=np.int64), uniques
    codes, uniques = _hashed(values, where, na_sentinel)
    if sort:
        ranks = rank_values(uniques, where=where)
        inv = np.empty(len(ranks), dtype=np.int64)
        inv[ranks] = np.arange(len(ranks))
        uniques = uniques.take(inv) if hasattr(uniques, "take") else np.asarray(uniques)[inv]
        codes = np.where(codes >= 0, ranks[np.maximum(codes, 0)], codes) if len(ranks) else codes
    return codes, uniques


def value_counts(values, *, where: str = "column", weights=None) -> tuple[object, np.ndarray]:
    """Distinct values in order of first appearance, missing included as one value, and how
    many rows hold each (``weights``: rows per value, to merge tables of distinct values).

    Example
    -------
    >>> uniques, counts = value_counts(pd.Series(["b", None, "b"]))
    >>> list(uniques), counts.tolist()
    (['b', nan], [2, 1])
    """
    codes, uniques = factorize(values, where=where, na_sentinel=False)
    if not len(codes):
        return uniques, np.zeros(0, np.int64)
    if weights is None:
        return uniques, np.bincount(codes, minlength=len(uniques)).astype(np.int64)
    counts = np.bincount(codes, weights=np.asarray(weights, np.float64), minlength=len(uniques))
    return uniques, np.rint(counts).astype(np.int64)


def _hashed(values, where, na_sentinel):
    # pandas keeps None, NaN, pd.NA and NaT apart in an object extension array: factorize
    # object values with the sentinel and make every missing marker ONE more value
    merge_markers = (not na_sentinel
                     and pd.api.types.is_object_dtype(getattr(values, "dtype", None)))
    try:
        codes, uniques = pd.factorize(values, use_na_sentinel=na_sentinel or merge_markers)
    except TypeError as exc:
        raise KindError(f"{where} holds unhashable values ({exc}); convert them to hashable "
                        f"ones (e.g. tuples or strings)") from None
    codes = np.asarray(codes, dtype=np.int64)
    if merge_markers and (codes < 0).any():
        codes = np.where(codes < 0, len(uniques), codes)
        uniques = pd.Index(object_array([*uniques, np.nan]), dtype=object,
                           tupleize_cols=False)
    return codes, uniques


def _mixed_order(uniques, mixed: str) -> bool:
    """Did pandas sort values of several types (which ``mixed`` refuses)?"""
    if getattr(uniques, "dtype", None) != object or mixed not in ("refuse", "pandas"):
        return False
    inferred = pd.api.types.infer_dtype(uniques, skipna=True)
    if mixed == "refuse":
        return inferred.startswith("mixed")
    if inferred == "mixed":
        try:
            sorted(list(uniques))
        except TypeError:
            return True
    return False


def rank_values(uniques, *, where: str = "column") -> np.ndarray:
    """Rank (0..m-1) of every distinct value in the order Python compares them (values of
    several types that cannot be compared are a :class:`KindError`).

    Example
    -------
    >>> rank_values(pd.Index(["b", "c", "a"])).tolist()
    [1, 2, 0]
    """
    if len(uniques) == 0:
        return np.zeros(0, dtype=np.int64)
    try:
        order = np.asarray(pd.Series(uniques).argsort(kind="stable"), dtype=np.int64)
    except TypeError:
        raise _unsortable(uniques, where) from None
    ranks = np.empty(len(uniques), dtype=np.int64)
    ranks[order] = np.arange(len(uniques))
    return ranks


def _unsortable(uniques, where) -> KindError:
    types = sorted({type(v).__name__ for v in pd.Series(uniques).dropna().tolist()})
    return KindError(f"{where} has kind 'ordered' but its values ({types}) cannot be sorted; "
                     f"convert them to one type, use an ordered Categorical or declare it "
                     f"'unordered'")


def check_value_types(values, *, where: str = "column", mixed: str = "refuse",
                      fix: str = "") -> None:
    """Refuse (``mixed="refuse"``) an object column that mixes numbers with other values
    (``1`` and ``"1"`` would be different cells); ``mixed="accept"`` lets it pass. The first
    10,000 non-missing cells are looked at.

    Example
    -------
    >>> check_value_types(pd.Series([1, "1"], dtype=object), where="column 'z'")
    Traceback (most recent call last):
    ...
    pdanon._errors.KindError: column 'z' mixes value types ['int', 'str']; convert it to one type before anonymizing
    """
    if mixed == "accept" or getattr(values, "dtype", None) != object:
        return
    s = pd.Series(values) if not isinstance(values, pd.Series) else values
    types = {type(v) for v in s.dropna().head(10_000)}
    numeric = {t for t in types if issubclass(t, (int, float, np.number)) and t is not bool}
    if numeric and len(types) > len(numeric):
        names = sorted(t.__name__ for t in types)
        raise KindError(f"{where} mixes value types {names}; convert it to one type{fix} "
                        f"before anonymizing")


def check_finite(values, name=None, *, where: str | None = None, index=None) -> None:
    """Refuse ``inf`` and ``-inf`` in a column read as real numbers: no range, distance or
    mean can be computed with them. The error names ``where`` (default ``column <name>``),
    the count and the first
    ``index`` label (when given). Non-numeric columns and NaN (a missing cell) pass.

    Example
    -------
    >>> check_finite(pd.Series([1.0, float("nan")]))
    >>> check_finite(pd.Series([1.0, float("inf"), -float("inf")]), "age", index=[7, 8, 9])
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: column 'age' has 2 infinite value(s) (first at index 8); replace them (e.g. df['age'].replace([np.inf, -np.inf], ...)) or drop those rows before anonymizing
    """
    if is_generalized(values) or not is_real_dtype(getattr(values, "dtype", None)):
        return
    if not pd.api.types.is_float_dtype(values.dtype):
        return  # integers hold no infinity
    arr = np.asarray(pd.Series(values).to_numpy(dtype=np.float64, na_value=np.nan))
    bad = np.isinf(arr)
    if bad.any():
        first = "" if index is None else f" (first at index {first_label(index, bad)!r})"
        where = where or f"column {name!r}"
        raise InvalidInputError(
            f"{where} has {int(bad.sum())} infinite value(s){first}; replace them (e.g. "
            f"df[{name!r}].replace([np.inf, -np.inf], ...)) or drop those rows before "
            f"anonymizing")


def validate_values(df: pd.DataFrame, columns, *, na: str = "accept",
                    mixed: str = "refuse") -> None:
    """The anonymizers' input rules for quasi-identifier columns, with the fixes spelled out
    for a pandas user: :func:`check_finite` (for the columns a ``{column: kind}`` mapping
    declares ``real`` or ``ordered``: their ranges are published as numbers), :func:`missing`
    (missing cells are data: ``na="accept"``, the default; ``na="refuse"`` for a caller that
    cannot take them) and :func:`check_value_types` for every column not declared
    ``unordered`` (an unordered column may mix value types: equality decides its classes).

    Example
    -------
    >>> validate_values(pd.DataFrame({"a": [1.0, None]}), ["a"])
    >>> validate_values(pd.DataFrame({"a": [1.0, None]}), ["a"], na="refuse")
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: column 'a' has 1 missing value(s) (first at index 1); fill them (df['a'].fillna(...)) or drop those rows before anonymizing
    >>> validate_values(pd.DataFrame({"a": [1, "1"]}), {"a": "unordered"})
    """
    kinds = dict(columns) if isinstance(columns, dict) else {c: None for c in columns}
    for c, kind in kinds.items():
        s = df[c]
        if kind in ("real", "ordered"):  # ranges of numbers need finite bounds
            check_finite(s, c, index=s.index)
        missing(s, na=na, where=f"column {c!r}", index=s.index, fill=f" (df[{c!r}].fillna(...))")
        if kind != "unordered":
            check_value_types(s, where=f"column {c!r}", mixed=mixed,
                              fix=f" (e.g. df[{c!r}].astype(str))")


# ============================================================================ dtypes


def is_generalized(values) -> bool:
    """Is this column (Series, array, dtype holder) of pdanon's generalization dtype?

    Example
    -------
    >>> from pdanon.dtype import GeneralizationArray
    >>> is_generalized(pd.Series([1, 2])), is_generalized(
    ...     GeneralizationArray.from_bounds([1], [2], kind="real"))
    (False, True)
    """
    return getattr(getattr(values, "dtype", None), "name", "").startswith("generalization")


def is_real_dtype(dtype) -> bool:
    """Numbers a ``real`` column can hold (booleans are not).

    Example
    -------
    >>> is_real_dtype(np.dtype("int8")), is_real_dtype(np.dtype(bool))
    (True, False)
    """
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def beyond_float(values) -> bool:
    """Integers too large for float64 to hold exactly (|v| > 2**53).

    Example
    -------
    >>> beyond_float(pd.Series([1, 2**60])), beyond_float(pd.Series([1.5]))
    (True, False)
    """
    if not pd.api.types.is_integer_dtype(getattr(values, "dtype", None)) or len(values) == 0:
        return False
    lo, hi = values.min(), values.max()  # nullable integers skip missing cells
    if pd.isna(lo) or pd.isna(hi):
        return False
    return max(abs(int(lo)), abs(int(hi))) > 2**53


def unknown_categories(dtype) -> bool:
    """A Categorical dtype whose categories Dask did not read (its placeholder).

    Example
    -------
    >>> unknown_categories(pd.CategoricalDtype(["a"]))
    False
    """
    if not isinstance(dtype, pd.CategoricalDtype) or dtype.categories is None:
        return False
    try:
        from dask.dataframe.utils import UNKNOWN_CATEGORIES
    except ImportError:  # pragma: no cover - without Dask no placeholder exists
        return False
    return UNKNOWN_CATEGORIES in dtype.categories


def has_generalized_cells(values) -> bool:
    """Does an object column hold :class:`~pdanon.dtype.GeneralizationRange` cells (as the
    classic API returns them)?

    Example
    -------
    >>> from pdanon.dtype import GeneralizationRange
    >>> has_generalized_cells([1, GeneralizationRange(1, 2, "real")]), has_generalized_cells([1])
    (True, False)
    """
    from pdanon.dtype import GeneralizationRange

    return any(isinstance(v, GeneralizationRange) for v in values)


def object_array(values) -> np.ndarray:
    """A 1-D object array of ``values`` (tuples and lists stay cells).

    Example
    -------
    >>> object_array([(1, 2), (3,)]).shape
    (2,)
    """
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


# ============================================================================ the engine's columns


@dataclass
class EncodedColumn:
    name: Hashable
    kind: str
    codes: np.ndarray
    categories: pd.Index
    lo: np.ndarray | None = None
    hi: np.ndarray | None = None
    generalized: bool = False
    numeric: bool = False
    na: np.ndarray | None = None

    @property
    def value_codes(self) -> np.ndarray:
        """Codes with ``-1`` for missing cells (positions in ``categories``, as pandas'
        ``Categorical.from_codes`` takes them)."""
        return self.codes if self.na is None else np.where(self.na, -1, self.codes)

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


def encode_column(series: pd.Series, kind: str) -> EncodedColumn:
    """Encode one column as arrays (see the module docstring).

    Missing cells are a value of their own (:func:`missing_as_value`): code
    ``len(categories)``, ``na`` marks them.

    Example
    -------
    >>> e = encode_column(pd.Series([2.5, 1.0, 2.5]), "real")
    >>> e.codes.tolist(), e.lo.tolist()
    ([1, 0, 1], [2.5, 1.0, 2.5])
    >>> e = encode_column(pd.Series([2.5, None, 1.0]), "real")
    >>> e.codes.tolist(), e.lo.tolist(), e.na.tolist()
    ([1, 2, 0], [2.5, 4.0, 1.0], [False, True, False])
    """
    return missing_as_value(_encode_values(series, kind))


def missing_as_value(col: EncodedColumn) -> EncodedColumn:
    """Make the missing cells of an encoded column (code ``-1``) one value of their own, so
    that every partitioner groups them like any other value: code ``len(categories)`` (after
    every category, so last in value order), ``na`` the mask of them; for numeric bounds
    (``real``, and ``ordered`` ranks) ``lo``/``hi`` a value above every other one -- for
    ``real`` the maximum plus the column's span (at least 1), so a missing cell is as far
    from the largest value as the smallest value is: mixing it with present values costs a
    partitioner at least as much as spanning the whole column. Recoders never publish the
    sentinel: a group mixing missing and present cells publishes a suppressed cell, a group
    of missing cells publishes missing (:mod:`pdanon.recode`).

    Example
    -------
    >>> e = missing_as_value(EncodedColumn("a", "unordered", np.array([0, -1, 1]),
    ...                                    pd.Index(["x", "y"])))
    >>> e.codes.tolist(), e.na.tolist()
    ([0, 2, 1], [False, True, False])
    """
    na = col.codes < 0
    if not na.any():
        return col
    m = len(col.categories)
    col.codes = np.where(na, m, col.codes)
    col.na = na
    if col.lo is not None:
        lo = np.asarray(col.lo, dtype=np.float64 if col.kind == "real" else np.int64)
        hi = np.asarray(col.hi, dtype=lo.dtype)
        if col.kind == "real":
            present_lo, present_hi = lo[~na], hi[~na]
            top = float(present_hi.max()) if len(present_hi) else 0.0
            span = top - float(present_lo.min()) if len(present_lo) else 0.0
            sentinel = missing_bound(top, span)
        else:  # ordered bounds are codes: the missing code itself
            sentinel = int(max(hi.max(initial=-1) + 1, m))
        col.lo = np.where(na, sentinel, lo)
        col.hi = np.where(na, sentinel, hi)
    return col


def missing_bound(top: float, span: float) -> float:
    """Where a missing cell of a range column sits: one whole ``span`` (at least 1) above the
    largest value ``top`` (the next float up when that would overflow). The encoder, Mondrian's
    widths and Dask's dictionaries all place missing cells by this rule.

    Example
    -------
    >>> missing_bound(30.0, 10.0), missing_bound(5.0, 0.0)
    (40.0, 6.0)
    """
    bound = top + max(span, 1.0)
    return float(bound) if np.isfinite(bound) else float(np.nextafter(top, np.inf))


def range_scale(span: float, present_values: int, has_missing: bool) -> float:
    """The scale a partitioner normalizes a range column's widths by: the span of its present
    values, except that one present value and missing cells are still two values (span 1),
    so a part holding both keeps a width and can be cut.

    Example
    -------
    >>> range_scale(0.0, 1, True), range_scale(0.0, 1, False), range_scale(4.0, 3, True)
    (1.0, 0.0, 4.0)
    """
    return 1.0 if has_missing and span == 0 and present_values > 0 else span


def _encode_values(series: pd.Series, kind: str) -> EncodedColumn:
    name = series.name
    where = f"column {name!r}"
    if is_generalized(series):
        return _encode_generalized(series, kind)
    if kind == "real":
        if pd.api.types.is_datetime64_any_dtype(series.dtype) or isinstance(
                series.dtype, pd.PeriodDtype):
            raise KindError(
                f"column {name!r} holds dates ({series.dtype}), which pdanon generalizes as kind "
                f"'ordered' (the kind it infers for dates): give {{{name!r}: 'ordered'}}, or "
                f"leave its kind out; for numbers, convert first (e.g. df[{name!r}].dt.year)")
        if not is_real_dtype(series.dtype):
            raise KindError(
                f"column {name!r} has kind 'real' but holds {series.dtype} values; convert it "
                f"to numbers (pd.to_numeric(df[{name!r}])) or declare it 'ordered'/'unordered'"
            )
        if beyond_float(series):
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
                codes, cats = factorize(series, where=where, sort=True)
        else:
            codes, cats = factorize(series, where=where, sort=True)
        cats = pd.Index(cats)
        # a Categorical orders its values by its categories, not by their numeric value
        numeric = (not isinstance(series.dtype, pd.CategoricalDtype)
                   and is_real_dtype(cats.dtype)
                   and not beyond_float(cats))
        return EncodedColumn(name, kind, codes, cats, codes, codes, numeric=numeric)
    if kind == "unordered":
        codes, cats = factorize(series, where=where)
        return EncodedColumn(name, kind, codes, pd.Index(cats))
    raise KindError(f"unknown kind {kind!r} for column {name!r}; use real, ordered or unordered")


def _encode_generalized(series: pd.Series, kind: str) -> EncodedColumn:
    arr = series.array
    if arr.kind != kind:
        raise KindError(
            f"column {series.name!r} holds generalized cells of kind {arr.kind!r}, not {kind!r}"
        )
    if kind == "unordered":
        codes, _ = pd.factorize(arr, use_na_sentinel=True)  # equal sets, equal codes
        lo = hi = None
    else:
        lo, hi = np.asarray(arr.lo), np.asarray(arr.hi)
        na = np.asarray(arr.isna(), dtype=bool)
        # codes in value order: order cells by (lo, hi) so distances on ranks stay meaningful
        codes = np.full(len(lo), -1, dtype=np.int64)
        if (~na).any():
            # a cell covering missing too ("[20, 29] or missing") is a cell of its own
            flag = np.asarray(arr.or_missing)[~na]
            present, _ = pd.factorize(pd.MultiIndex.from_arrays([lo[~na], hi[~na], flag]),
                                      sort=True)
            codes[~na] = present
    codes = np.asarray(codes, np.int64)
    categories = pd.Index(np.arange(int(np.max(codes, initial=-1)) + 1))
    return EncodedColumn(series.name, kind, codes, categories, lo, hi,
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
    """Encode the quasi-identifiers of ``df`` (and factorize its sensitive columns, missing
    as one more value).

    Example
    -------
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"age": [30, 20], "d": ["x", None]})
    >>> t = encode_table(df, resolve_roles(df, quasi_identifiers=["age"], sensitive=["d"]))
    >>> t.names, t.sensitive["d"].tolist()
    (['age'], [0, 1])
    """
    cols = [encode_column(df[c], kind) for c, kind in roles.quasi_identifiers.items()]
    sens = {}
    for c in roles.sensitive:
        _warn_mixed_types(df[c], c)
        sens[c] = factorize(df[c], where=f"sensitive column {c!r}", na_sentinel=False)[0]
    return EncodedTable(cols, sens, len(df))


def _warn_mixed_types(series: pd.Series, name) -> None:
    """A sensitive column mixing numbers and text is data (``3`` and ``"3"`` are two values),
    but no file keeps it: Parquet refuses such a column and CSV writes both as ``3``. Say so
    before the release is made (:class:`pdanon.KindWarning`), with the fix."""
    if series.dtype != object:
        return
    types = {type(v) for v in series.dropna().head(10_000)}
    numeric = {t for t in types if issubclass(t, (int, float, np.number)) and t is not bool}
    if numeric and len(types) > len(numeric):
        import warnings

        from pdanon._errors import KindWarning, user_stacklevel

        names = sorted(t.__name__ for t in types)
        warnings.warn(
            f"sensitive column {name!r} mixes value types {names}: they are different values "
            f"here (3 and '3'), but Parquet cannot store such a column and CSV writes both "
            f"alike, so the release would not read back as it is; convert it to one type "
            f"first (df[{name!r}].astype(str))", KindWarning, stacklevel=user_stacklevel())
