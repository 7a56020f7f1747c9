"""Quasi-identifier cells of an original and an anonymized column on one common scale.

Utility metrics compare a cell of the original table with the same cell after anonymization.
Cells may be plain values (numbers, strings, Categoricals), generalized cells of the
``generalization[...]`` dtype (ranges ``[lo, hi]`` or sets ``{a, b}``), or missing (suppressed).
This module turns both columns into arrays on one scale, without Python loops over rows:

* :func:`interval_pair` (``real`` / ``ordered``): ``lo``, ``hi`` floats and a missing mask; a
  plain value has ``lo == hi``. Ordered non-numeric values become positions in one common
  order (the categories of an ordered Categorical or of the generalized column, else the sorted
  union of the values).
* :func:`set_pair` (``unordered``): codes into one common list of categories (``-1`` missing,
  ``-2`` a set of two or more values) and, for generalized columns, the members of every cell
  in sparse form (CSR over those categories: O(rows + members), never rows × categories).

Example
-------
>>> import pandas as pd
>>> a, b = interval_pair(pd.Series([1.0, 2.0]), pd.Series([1.0, None]), "real")
>>> a.lo.tolist(), b.na.tolist()
([1.0, 2.0], [False, True])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError
from pdanon.dtype.storage import gather_segments
from pdanon.encode import factorize, has_generalized_cells, is_generalized, missing, rank_values


def as_array(series: pd.Series, kind: str):
    """The column's array; an object column of ``GeneralizationRange`` cells (as the classic
    API may return) is converted to the generalization dtype."""
    arr = series.array
    if series.dtype == object and len(series):
        from pdanon.dtype import GeneralizationArray

        values = series.to_numpy()
        if has_generalized_cells(values):
            return GeneralizationArray._from_sequence(values, dtype=f"generalization[{kind}]")
    return arr


# --------------------------------------------------------------------------- real / ordered


@dataclass
class Intervals:
    """Cells of a real/ordered column as ``[lo, hi]`` on a common scale (plain: lo == hi)."""

    lo: np.ndarray
    hi: np.ndarray
    na: np.ndarray

    @property
    def is_range(self) -> np.ndarray:
        return ~self.na & (self.hi > self.lo)


def _plain_numeric(arr) -> bool:
    dtype = getattr(arr, "dtype", None)
    return (dtype is not None and pd.api.types.is_numeric_dtype(dtype)
            and not pd.api.types.is_bool_dtype(dtype)
            and not isinstance(dtype, pd.CategoricalDtype))


def _side(arr, kind, name):
    """('num', lo, hi, na) or ('cat', categories Index, lo codes, hi codes, na)."""
    if is_generalized(arr):
        if getattr(arr, "kind", kind) != kind:
            raise KindError(f"column {name!r} holds generalized cells of kind {arr.kind!r}, "
                            f"not {kind!r}")
        na = missing(arr)
        cats = getattr(arr, "categories", None)
        lo = np.array(arr.lo, dtype=np.float64)  # a copy; positions use -1 for missing
        hi = np.array(arr.hi, dtype=np.float64)
        lo[na] = np.nan
        hi[na] = np.nan
        if cats is None or kind == "real":
            return ("num", lo, hi, na)
        return ("cat", pd.Index(cats), lo, hi, na)
    na = missing(arr)
    if _plain_numeric(arr):
        v = np.asarray(pd.Series(arr).to_numpy(dtype=np.float64, na_value=np.nan))
        return ("num", v, v, na)
    dtype = getattr(arr, "dtype", None)
    if kind == "real":
        if dtype is not None and pd.api.types.is_datetime64_any_dtype(dtype):
            v = np.asarray(pd.Series(arr).astype("int64"), dtype=np.float64)
            v[na] = np.nan
            return ("num", v, v, na)
        raise KindError(
            f"column {name!r} has kind 'real' but holds {dtype} values; convert it to numbers "
            f"(pd.to_numeric) or declare it 'ordered' / 'unordered'"
        )
    if isinstance(dtype, pd.CategoricalDtype):
        codes = np.asarray(arr.codes, dtype=np.float64)
        codes[na] = np.nan
        cats = pd.Index(arr.categories)
        if not dtype.ordered:
            cats, codes = _resort(cats, codes, name)
        return ("cat", cats, codes, codes, na)
    codes, uniq = factorize(arr, where=f"column {name!r}", sort=True, mixed="compare")
    codes = codes.astype(np.float64)
    codes[codes < 0] = np.nan
    return ("cat", pd.Index(uniq), codes, codes, na)


def _resort(cats: pd.Index, codes: np.ndarray, name):
    """Categories in value order, and the codes renumbered to match."""
    rank = rank_values(cats, where=f"column {name!r}").astype(np.float64)
    order = np.argsort(rank, kind="stable")
    out = np.full(len(codes), np.nan)
    ok = ~np.isnan(codes)
    out[ok] = rank[codes[ok].astype(np.int64)]
    return cats[order], out


def _remap(codes, src: pd.Index, dst: pd.Index, name):
    idx = dst.get_indexer(src)
    if (idx < 0).any():
        return None
    out = np.full(len(codes), np.nan)
    ok = ~np.isnan(codes)
    out[ok] = idx[codes[ok].astype(np.int64)]
    return out


def interval_pair(original, anonymized, kind: str, *, name=None) -> tuple[Intervals, Intervals]:
    """Both columns as :class:`Intervals` on one scale (see the module docstring)."""
    name = getattr(original, "name", name) if name is None else name
    a = _side(as_array(original, kind) if isinstance(original, pd.Series) else original, kind,
              name)
    b = _side(as_array(anonymized, kind) if isinstance(anonymized, pd.Series) else anonymized,
              kind, name)
    if a[0] == "num" and b[0] == "num":
        return Intervals(a[1], a[2], a[3]), Intervals(b[1], b[2], b[3])
    sides = [a, b]
    # give a numeric side categories: its distinct values
    for i, s in enumerate(sides):
        if s[0] == "num":
            vals = np.unique(np.concatenate([s[1][~s[3]], s[2][~s[3]]]))
            cats = pd.Index(vals)
            lo = np.full(len(s[1]), np.nan)
            hi = np.full(len(s[1]), np.nan)
            lo[~s[3]] = cats.get_indexer(s[1][~s[3]])
            hi[~s[3]] = cats.get_indexer(s[2][~s[3]])
            sides[i] = ("cat", cats, lo, hi, s[3])
    # one common order: the first side's categories if they hold every value, else the sorted
    # union of both
    canon = None
    for s in sides:
        cand = s[1]
        if all(len(o[1]) == 0 or (cand.get_indexer(o[1]) >= 0).all() for o in sides):
            canon = cand
            break
    if canon is None:
        union = sides[0][1].append(sides[1][1]).unique()
        try:
            canon = pd.Index(union).sort_values()
        except TypeError:
            raise KindError(
                f"column {name!r}: the original and anonymized values cannot be put in one "
                f"order; use an ordered Categorical with all values as categories"
            ) from None
    out = []
    for s in sides:
        lo = _remap(s[2], s[1], canon, name)
        hi = _remap(s[3], s[1], canon, name)
        out.append(Intervals(lo, hi, s[4]))
    return out[0], out[1]


def intervals(series: pd.Series, kind: str) -> Intervals:
    """One column as :class:`Intervals` (positions in its own order for ordered values)."""
    a, _ = interval_pair(series, series, kind)
    return a


# --------------------------------------------------------------------------- unordered


@dataclass
class Sets:
    """Cells of an unordered column: ``codes`` into common ``categories`` (-1 missing, -2 a
    set of two or more values) and, for generalized columns, every cell's members in CSR form
    (``members[offsets[i]:offsets[i + 1]]``, category positions in increasing order; ``None``
    for plain columns)."""

    codes: np.ndarray
    offsets: np.ndarray | None
    members: np.ndarray | None
    categories: pd.Index

    @property
    def na(self) -> np.ndarray:
        return self.codes == -1

    @property
    def is_set(self) -> np.ndarray:
        return self.codes == -2

    def sizes(self) -> np.ndarray:
        """Number of values a cell stands for (1 plain, 0 missing, |set| for sets)."""
        if self.offsets is not None:
            return np.diff(self.offsets)
        return (self.codes >= 0).astype(np.int64)

    def _keys(self, rows: np.ndarray):
        """Sorted (rank in ``rows``, member) keys of the cells ``rows``, and the width."""
        width = max(len(self.categories), 1)
        lens, flat = gather_segments(self.offsets, self.members, rows)
        return np.repeat(np.arange(len(rows), dtype=np.int64), lens) * width + flat, width

    def holds(self, rows: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Does the cell of row ``rows[i]`` contain the value ``codes[i]``?"""
        if self.offsets is None:
            return (self.codes[rows] == codes) & (codes >= 0)
        keys, width = self._keys(rows)
        query = np.arange(len(rows), dtype=np.int64) * width + codes
        at = np.minimum(np.searchsorted(keys, query), max(len(keys) - 1, 0))
        found = keys[at] == query if len(keys) else np.zeros(len(rows), dtype=bool)
        return found & (codes >= 0)

    def contains(self, codes: np.ndarray) -> np.ndarray:
        """Does each cell's set contain the value ``codes[i]`` (plain cells: equality)?"""
        return self.holds(np.arange(len(self.codes)), codes)

    def common(self, other: Sets, rows: np.ndarray) -> np.ndarray:
        """How many members the cells of ``rows`` share with the same rows of ``other``."""
        mine, _ = self._keys(rows)
        theirs, _ = other._keys(rows)
        both = np.sort(np.concatenate([mine, theirs]))  # a key twice: a shared member
        width = max(len(self.categories), 1)
        twice = both[1:][both[1:] == both[:-1]]
        return np.bincount(twice // width, minlength=len(rows))

    def frequencies(self) -> np.ndarray:
        """Per category, the number of cells that hold it."""
        flat = self.codes[self.codes >= 0] if self.offsets is None else self.members
        return np.bincount(flat, minlength=len(self.categories))

    def member_rows(self, rows: np.ndarray, columns: np.ndarray | None = None) -> np.ndarray:
        """Membership (len(rows) × C) of the given rows, plain cells as one-hot rows; with
        ``columns`` (category positions) only those columns. Dense: for callers that need
        one column per category, so ask for the columns you use."""
        C = len(self.categories)
        where = np.arange(C) if columns is None else np.full(C, -1, dtype=np.int64)
        if columns is not None:
            where[np.asarray(columns, dtype=np.int64)] = np.arange(len(columns))
        out = np.zeros((len(rows), C if columns is None else len(columns)), dtype=bool)
        codes = self.codes[rows]
        if self.offsets is None:
            cell, flat = np.flatnonzero(codes >= 0), codes[codes >= 0]
        else:
            lens, flat = gather_segments(self.offsets, self.members, rows)
            cell = np.repeat(np.arange(len(rows)), lens)
        col = where[flat]
        out[cell[col >= 0], col[col >= 0]] = True
        return out


def _set_side(arr, name):
    """(values-or-None, categories-or-None, (offsets, members)-or-None, na)"""
    if is_generalized(arr):
        if getattr(arr, "kind", "unordered") != "unordered":
            raise KindError(f"column {name!r} holds generalized cells of kind {arr.kind!r}, "
                            f"not 'unordered'")
        return None, pd.Index(arr.categories), arr.members(), missing(arr)
    return arr, None, None, missing(arr)


def set_pair(original, anonymized, *, name=None) -> tuple[Sets, Sets]:
    """Both columns as :class:`Sets` over one list of categories."""
    name = getattr(original, "name", name) if name is None else name
    sides = []
    for s in (original, anonymized):
        arr = as_array(s, "unordered") if isinstance(s, pd.Series) else s
        sides.append(_set_side(arr, name))
    pieces = []
    for values, cats, _, _ in sides:
        if cats is not None:
            pieces.append(cats)
        else:
            pieces.append(pd.Index(factorize(values, where=f"column {name!r}")[1]))
    canon = pieces[0]
    for p in pieces[1:]:
        canon = canon.append(p).unique() if len(p) else canon
    canon = pd.Index(canon)
    out = []
    for values, cats, members, na in sides:
        if cats is None:
            codes = np.asarray(canon.get_indexer(pd.Series(values).to_numpy(dtype=object)),
                               dtype=np.int64)
            codes[na] = -1
            out.append(Sets(codes, None, None, canon))
            continue
        out.append(_canon_sets(members, canon.get_indexer(cats), np.asarray(na, dtype=bool),
                               canon))
    return out[0], out[1]


def _canon_sets(members, idx: np.ndarray, na: np.ndarray, canon: pd.Index) -> Sets:
    """A generalized column's members (CSR over its own categories) renumbered into the
    common ``canon`` categories (``idx``: their positions there), sorted within each cell;
    cells flagged ``na`` hold none."""
    offsets, flat = members
    n = len(na)
    row = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    keep = ~na[row]
    width = max(len(canon), 1)
    keys = np.sort(row[keep] * width + idx[flat[keep]])
    size = np.bincount(keys // width, minlength=n)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(size, out=offsets[1:])
    flat = keys % width
    codes = np.full(n, -2, dtype=np.int64)
    codes[size == 0] = -1
    one = size == 1
    codes[one] = flat[offsets[:-1][one]]
    return Sets(codes, offsets, flat, canon)


def sets(series: pd.Series) -> Sets:
    """One column as :class:`Sets` over its own categories."""
    a, _ = set_pair(series, series)
    return a


# --------------------------------------------------------------------------- equality


def _plain_against_sets(original: pd.Series, anonymized: pd.Series) -> np.ndarray | None:
    """:func:`equal_cells` of plain original values against a generalized unordered column,
    from the cell codes alone (a set never equals a plain value; a plain cell is its
    category): no member list is built. None when the case does not apply."""
    orig = as_array(original, "unordered") if isinstance(original, pd.Series) else original
    anon = as_array(anonymized, "unordered") if isinstance(anonymized, pd.Series) else anonymized
    if is_generalized(orig) or not is_generalized(anon) or \
            getattr(anon, "kind", "unordered") != "unordered":
        return None
    codes = np.asarray(anon.codes)
    cats = pd.Index(anon.categories)
    o_na, a_na = np.asarray(missing(orig), dtype=bool), np.asarray(missing(anon), dtype=bool)
    values = pd.Series(orig).to_numpy(dtype=object)
    at = np.asarray(cats.get_indexer(values), dtype=np.int64)
    at[o_na] = -1
    same = (codes >= 0) & (codes < len(cats)) & (at == codes) & ~o_na
    return same | (o_na & a_na)


def equal_cells(original: pd.Series, anonymized: pd.Series, kind: str) -> np.ndarray:
    """Is every anonymized cell identical to the original one (missing equals missing)?"""
    if len(original) != len(anonymized):
        raise InvalidInputError(
            f"column {original.name!r}: the original has {len(original)} rows and the "
            f"anonymized {len(anonymized)}; compare frames with the same rows"
        )
    if kind in ("real", "ordered"):
        a, b = interval_pair(original, anonymized, kind)
        same = (a.lo == b.lo) & (a.hi == b.hi)
        return np.where(a.na | b.na, a.na & b.na, same)
    plain = _plain_against_sets(original, anonymized)
    if plain is not None:
        return plain
    a, b = set_pair(original, anonymized)
    eq = (a.codes == b.codes) & (a.codes != -2)
    both_sets = a.is_set & b.is_set
    if both_sets.any():
        rows = np.flatnonzero(both_sets)
        eq[rows] = (a.member_rows(rows) == b.member_rows(rows)).all(axis=1)
    return eq
