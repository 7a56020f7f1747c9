"""The pandas ExtensionArray of generalized cells: :class:`GeneralizationArray`.

Storage (one of two layouts, chosen by the dtype's kind): float64 ``_lo``/``_hi`` bounds plus a
boolean ``_mask`` for real and ordered cells (positions into ``categories`` for non-numeric
ordered values); one int64 ``_codes`` entry per row into a shared table of distinct sets
(:mod:`pdanon.dtype.storage`, sparse: each set's sorted member positions) for unordered cells. The constructors are in :mod:`pdanon.dtype.construction`.

>>> import pandas as pd
>>> arr = pd.array(["a", {"a", "b"}, None], dtype="generalization[unordered]")
>>> arr.codes.tolist(), arr[1]
([0, 2, -1], {a, b})
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray, ExtensionDtype, no_default
from pandas.api.extensions import take as _pd_take
from pandas.api.indexers import check_array_indexer
from pandas.api.types import is_integer, is_list_like, pandas_dtype

from pdanon.dtype._common import (OPEN_HI, OPEN_LO, OR_MISSING, closed_name, is_missing,
                                  object_array)
from pdanon.dtype.construction import ArrayConstructors
from pdanon.dtype.ormissing import OrMissingCells
from pdanon.dtype.dtype import GeneralizationDtype, register_array_type
from pdanon.dtype.scalar import GeneralizationRange
from pdanon.dtype.storage import SetTable, gather_segments, lex_ranks, segment_sums, sorted_unique

__all__ = ["GeneralizationArray", "register_arrow_writer"]

# The Arrow writer (``array_to_arrow``) lives in pdanon.dtype.arrow, which imports this module: it
# registers itself here when imported (see the package docstring); this module does not import it.
_arrow_writer = None


def register_arrow_writer(writer) -> None:
    """Make ``writer(array)`` the converter of ``GeneralizationArray.__arrow_array__``.

    Called by :mod:`pdanon.dtype.arrow` when it is imported.
    """
    global _arrow_writer
    _arrow_writer = writer


def _pair_keys(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """One complex128 key per (lo, hi) pair for pandas' hash tables.

    The imaginary part is ``-hi``: pandas hashes a complex number as hash(real) XOR
    hash(imag), so ``lo + 1j*hi`` would give every plain value (lo == hi) the same hash and make
    factorization quadratic.
    """
    return lo - 1j * hi


class GeneralizationArray(OrMissingCells, ArrayConstructors, ExtensionArray):
    """Array of generalized cells (see :mod:`pdanon.dtype` for the storage layout).

    Build it with :meth:`from_values` (plain values), :meth:`from_bounds` (real/ordered ranges),
    :meth:`from_members` / :meth:`from_membership` (unordered sets, sparse / dense),
    :meth:`from_groups` (one range/set per group of rows) or from any sequence of plain values,
    :class:`GeneralizationRange` cells, Python sets and NaN:
    ``pd.array(cells, dtype="generalization[real]")``.

    ``arr[i]`` returns NaN for a missing cell, the plain value for an ungeneralized cell (e.g.
    ``39`` or ``'White'``) and a :class:`GeneralizationRange` otherwise.

    Examples
    --------
    >>> arr = GeneralizationArray.from_bounds([20, 39], [29, 39], kind="real")
    >>> arr[0], arr[1], arr.is_plain.tolist()
    ([20, 29], 39, [False, True])
    >>> arr.contains([25, 40]).tolist()
    [True, False]
    """

    __array_priority__ = 1000
    _readonly = False

    # storage (one of the two layouts is used)
    _dtype: GeneralizationDtype
    _lo: np.ndarray
    _hi: np.ndarray
    _mask: np.ndarray
    _open: np.ndarray  # int8 per cell: OPEN_LO | OPEN_HI | OR_MISSING bits (0: closed, no missing)
    _integer: bool
    _codes: np.ndarray
    _table: SetTable

    def __init__(self, values, dtype=None, copy: bool = False):
        arr = type(self)._from_sequence(values, dtype=dtype, copy=copy)
        self.__dict__.update(arr.__dict__)

    # -- raw constructors ----------------------------------------------------------------------
    @classmethod
    def _new_bounds(cls, lo, hi, mask, dtype, integer: bool, open_=None):
        obj = object.__new__(cls)
        obj._dtype = dtype
        obj._lo = lo
        obj._hi = hi
        obj._mask = mask
        obj._open = np.zeros(len(lo), dtype=np.int8) if open_ is None else open_
        obj._integer = bool(integer)
        return obj

    @classmethod
    def _new_sets(cls, codes, table: SetTable, dtype, open_=None):
        obj = object.__new__(cls)
        obj._dtype = dtype
        obj._codes = codes
        obj._table = table
        obj._open = np.zeros(len(codes), dtype=np.int8) if open_ is None else open_
        return obj

    @property
    def _is_sets(self) -> bool:
        return self._dtype._column_type == "unordered"

    def _like(self, *, lo=None, hi=None, mask=None, open_=None, codes=None, integer=None):
        """A new array of the same dtype (and set table) from new storage arrays."""
        if self._is_sets:
            return self._new_sets(codes, self._table, self._dtype, open_)
        return self._new_bounds(lo, hi, mask, self._dtype,
                                self._integer if integer is None else integer, open_)

    # -- basic protocol ------------------------------------------------------------------------
    @property
    def dtype(self) -> GeneralizationDtype:
        return self._dtype

    def __len__(self) -> int:
        return len(self._codes) if self._is_sets else len(self._lo)

    @property
    def nbytes(self) -> int:
        if self._is_sets:
            return int(self._codes.nbytes + self._table.nbytes + self._open.nbytes)
        return int(self._lo.nbytes + self._hi.nbytes + self._mask.nbytes + self._open.nbytes)

    def isna(self) -> np.ndarray:
        if self._is_sets:
            return self._codes < 0
        return self._mask.copy()

    @property
    def _hasna(self) -> bool:
        return bool(self.isna().any())

    def copy(self):
        if self._is_sets:
            return self._like(codes=self._codes.copy(), open_=self._open.copy())
        return self._like(lo=self._lo.copy(), hi=self._hi.copy(), mask=self._mask.copy(),
                          open_=self._open.copy())

    def _box(self, i: int):
        if self._open[i] & OR_MISSING:
            return self._box_or_missing(i)
        dtype = self._dtype
        if self._is_sets:
            code = int(self._codes[i])
            if code < 0:
                return np.nan
            c = dtype._n_categories
            if code < c:
                return dtype._cat_list[code]
            t = self._table
            members = t.members[t.indptr[code - c]:t.indptr[code - c + 1]]
            cl = dtype._cat_list
            # a cell shares the dtype's categories (no copy), so that ``in`` answers as
            # ``contains`` does
            return GeneralizationRange._raw("unordered", None, None, 0,
                                            frozenset([cl[j] for j in members]), dtype._cat_object)
        if self._mask[i]:
            return np.nan
        lo, hi = self._lo[i], self._hi[i]
        if dtype.categories is not None:
            a, b = int(lo), int(hi)
            if a == b:
                return dtype._cat_list[a]
            cl = dtype._cat_list
            return GeneralizationRange._raw(dtype.column_type, cl[a], cl[b], 0, None,
                                            dtype._cat_object, a, b)
        if lo == hi:
            return int(lo) if self._integer else float(lo)
        if self._integer:
            a, b = int(lo), int(hi)
        else:
            a, b = float(lo), float(hi)
        # the array's bounds are checked when stored: no need for the constructor's checks
        return GeneralizationRange._raw(dtype.column_type, a, b, int(self._open[i]))

    def __getitem__(self, key):
        if isinstance(key, tuple):
            key = tuple(k for k in key if k is not Ellipsis)
            if len(key) == 0:
                key = slice(None)
            elif len(key) == 1:
                key = key[0]
            else:
                raise IndexError("too many indices for a 1-dimensional array")
        if is_integer(key):
            n = len(self)
            i = int(key)
            if i < -n or i >= n:
                raise IndexError(f"index {i} is out of bounds for axis 0 with size {n}")
            return self._box(i if i >= 0 else i + n)
        if isinstance(key, slice):
            out = self._take_key(key)
            out._readonly = self._readonly
            return out
        if not is_list_like(key) and not isinstance(key, np.ndarray):
            # let numpy produce its standard error for invalid scalars ('foo', 2.5, ...)
            np.empty(len(self))[key]
        key = check_array_indexer(self, key)
        return self._take_key(key)

    def _take_key(self, key):
        if self._is_sets:
            return self._like(codes=self._codes[key], open_=self._open[key])
        return self._like(lo=self._lo[key], hi=self._hi[key], mask=self._mask[key],
                          open_=self._open[key])

    def __setitem__(self, key, value) -> None:
        if self._readonly:
            raise ValueError("Cannot modify read-only array")
        key = check_array_indexer(self, key)
        scalar = self._is_scalar_value(value)
        vals = self._coerce(value, scalar)
        if self._is_sets:
            new = self._codes_in_own_table(vals)
            self._codes[key] = new[0] if scalar else new
            self._open[key] = vals._open[0] if scalar else vals._open
            return
        if scalar:
            self._lo[key] = vals._lo[0]
            self._hi[key] = vals._hi[0]
            self._mask[key] = vals._mask[0]
            self._open[key] = vals._open[0]
        else:
            self._lo[key] = vals._lo
            self._hi[key] = vals._hi
            self._mask[key] = vals._mask
            self._open[key] = vals._open
        if not vals._mask.all():
            self._integer = self._integer and vals._integer

    def _is_scalar_value(self, value) -> bool:
        if isinstance(value, (GeneralizationRange, str, bytes, set, frozenset)):
            return True
        if is_missing(value):
            return True
        if isinstance(value, tuple) and self._dtype.categories is not None:
            try:
                return value in self._dtype._cat_pos
            except TypeError:
                return False
        return not is_list_like(value)

    def _coerce(self, value, scalar: bool) -> GeneralizationArray:
        """Value(s) as an array of exactly this dtype (TypeError/ValueError if impossible)."""
        if scalar:
            return type(self)._from_objects(object_array([value]), self._dtype, parse=False)
        if isinstance(value, (pd.Series, pd.Index)):
            value = value.array
        if isinstance(value, GeneralizationArray):
            if value.dtype == self._dtype:
                return value
            return value.astype(self._dtype)
        if isinstance(value, np.ndarray) and value.ndim == 2 and value.shape[1] == 1:
            value = value[:, 0]
        return type(self)._from_sequence(value, dtype=self._dtype)

    def _codes_in_own_table(self, other: GeneralizationArray) -> np.ndarray:
        """``other``'s codes expressed in this array's set table (appending new sets)."""
        return self._codes_in_table(other, append=True)

    def _codes_in_table(self, other: GeneralizationArray, append: bool) -> np.ndarray:
        """``other``'s codes in this array's set table; a set the table lacks is appended
        (``append=True``) or coded -2."""
        if other._table is self._table:
            return other._codes
        c = self._dtype._n_categories
        codes = other._codes.copy()
        is_set = codes >= c
        if is_set.any():
            used = sorted_unique(codes[is_set] - c)
            mapped = self._table.lookup(*other._table.subset(used), append=append)
            remap = np.full(len(other._table), -2, dtype=np.int64)
            remap[used] = np.where(mapped >= 0, c + mapped, -2)
            codes[is_set] = remap[codes[is_set] - c]
        return codes

    def take(self, indices, *, allow_fill: bool = False, fill_value=None):
        idx = np.asarray(indices, dtype=np.intp)
        fill = None
        if allow_fill and fill_value is not None and not is_missing(fill_value):
            fill = self._coerce(fill_value, True)
        open_ = np.asarray(_pd_take(self._open, idx, allow_fill=allow_fill, fill_value=0),
                           dtype=np.int8)
        if self._is_sets:
            codes = _pd_take(self._codes, idx, allow_fill=allow_fill, fill_value=-1)
            out = self._like(codes=np.asarray(codes, dtype=np.int64), open_=open_)
            if fill is not None:
                out._codes[idx == -1] = self._codes_in_own_table(fill)[0]
                out._open[idx == -1] = fill._open[0]
            return out
        lo = _pd_take(self._lo, idx, allow_fill=allow_fill, fill_value=np.nan)
        hi = _pd_take(self._hi, idx, allow_fill=allow_fill, fill_value=np.nan)
        mask = _pd_take(self._mask, idx, allow_fill=allow_fill, fill_value=True)
        out = self._like(lo=lo, hi=hi, mask=np.asarray(mask, dtype=bool), open_=open_)
        if fill is not None:
            where = idx == -1
            out._lo[where] = fill._lo[0]
            out._hi[where] = fill._hi[0]
            out._mask[where] = fill._mask[0]
            out._open[where] = fill._open[0]
            out._integer = self._integer and fill._integer
        return out

    @classmethod
    def _concat_same_type(cls, to_concat):
        to_concat = list(to_concat)
        dtypes = [a.dtype for a in to_concat]
        dtype = dtypes[0]
        if any(d != dtype for d in dtypes[1:]):
            common = dtype._get_common_dtype(dtypes)
            if common is None:
                raise TypeError(f"cannot concatenate generalized arrays of dtypes {set(dtypes)}")
            to_concat = [a.astype(common) for a in to_concat]
            dtype = common
        if dtype.column_type == "unordered":
            first = to_concat[0]
            flags = np.concatenate([a._open for a in to_concat])
            if all(a._table is first._table for a in to_concat):
                return cls._new_sets(np.concatenate([a._codes for a in to_concat]),
                                     first._table, dtype, flags)
            table = first._table.copy()  # the first array's sets, in its order: its codes hold
            proto = cls._new_sets(first._codes[:0], table, dtype)
            codes = [a._codes if a._table is first._table else proto._codes_in_own_table(a)
                     for a in to_concat]
            return cls._new_sets(np.concatenate(codes), table, dtype, flags)
        valid = [a for a in to_concat if not a._mask.all()]
        integer = all(a._integer for a in valid) if valid else False
        return cls._new_bounds(np.concatenate([a._lo for a in to_concat]),
                               np.concatenate([a._hi for a in to_concat]),
                               np.concatenate([a._mask for a in to_concat]), dtype, integer,
                               np.concatenate([a._open for a in to_concat]))

    # -- engine-facing properties --------------------------------------------------------------
    @property
    def kind(self) -> str:
        """'real', 'ordered' or 'unordered' (the dtype's column_type)."""
        return self._dtype.column_type

    @property
    def categories(self) -> pd.Index | None:
        """Categories of an ordered (non-numeric) or unordered array, else None."""
        return self._dtype.categories

    def _bounds_view(self, arr: np.ndarray) -> np.ndarray:
        if self._dtype.categories is not None:
            out = np.where(self._mask, -1, np.nan_to_num(arr, nan=-1)).astype(np.int64)
            return out
        v = arr.view()
        v.flags.writeable = False
        return v

    @property
    def lo(self) -> np.ndarray:
        """Lower bounds: float64 (NaN if missing) or, with categories, int64 positions (-1)."""
        if self._is_sets:
            raise AttributeError("unordered cells have no bounds; use .members()")
        return self._bounds_view(self._lo)

    @property
    def hi(self) -> np.ndarray:
        """Upper bounds, like :attr:`lo`."""
        if self._is_sets:
            raise AttributeError("unordered cells have no bounds; use .members()")
        return self._bounds_view(self._hi)

    @property
    def closed(self) -> np.ndarray:
        """Which bounds of each cell belong to it: an array of ``"both"``, ``"left"``
        (``[a, b)``), ``"right"`` (``(a, b]``) or ``"neither"`` (``(a, b)``), pandas' names;
        ``"both"`` for plain values and missing cells."""
        if self._is_sets:
            raise AttributeError("unordered cells have no bounds")
        names = np.array([closed_name(f) for f in range(8)], dtype=object)
        return names[self._open]

    @property
    def is_integer(self) -> bool:
        """Whether numeric plain values and bounds are returned as ``int``."""
        return not self._is_sets and self._dtype.categories is None and self._integer

    @property
    def membership(self) -> np.ndarray:
        """Boolean (n, C) matrix: cell i contains categories[j] (all False if missing).

        Dense: n × C bytes. Code that may meet many rows and categories reads the sparse
        :meth:`members` instead.
        """
        offsets, members = self.members()
        out = np.zeros((len(self), self._dtype._n_categories), dtype=bool)
        out[np.repeat(np.arange(len(self)), np.diff(offsets)), members] = True
        return out

    def members(self) -> tuple[np.ndarray, np.ndarray]:
        """The members of every cell, sparse (CSR): ``(offsets, codes)``, int64.

        Cell i holds ``categories[codes[offsets[i]:offsets[i + 1]]]``, positions in increasing
        order: one for a plain value, none for a missing cell. Memory O(rows + members).

        Examples
        --------
        >>> arr = pd.array(["b", {"a", "c"}, None], dtype="generalization[unordered]")
        >>> offsets, codes = arr.members()
        >>> offsets.tolist(), codes.tolist()
        ([0, 1, 3, 3], [1, 0, 2])
        """
        if not self._is_sets:
            raise AttributeError("members are defined for unordered arrays only")
        c = self._dtype._n_categories
        codes = self._codes
        t = self._table
        lens = self.member_counts
        sets = codes >= c
        set_lens, set_members = gather_segments(t.indptr, t.members, codes[sets] - c)
        offsets = np.zeros(len(codes) + 1, dtype=np.int64)
        np.cumsum(lens, out=offsets[1:])
        out = np.empty(int(offsets[-1]), dtype=np.int64)
        plain = (codes >= 0) & ~sets
        out[offsets[:-1][plain]] = codes[plain]
        if len(set_members):
            starts = offsets[:-1][sets]
            pos = np.arange(len(set_members)) + np.repeat(
                starts - np.concatenate([[0], np.cumsum(set_lens)[:-1]]), set_lens)
            out[pos] = set_members
        return offsets, out

    @property
    def member_counts(self) -> np.ndarray:
        """Unordered: the number of members of every cell (int64; 1 plain, 0 missing)."""
        if not self._is_sets:
            raise AttributeError("member counts are defined for unordered arrays only")
        c = self._dtype._n_categories
        codes = self._codes
        out = (codes >= 0).astype(np.int64)
        sets = codes >= c
        out[sets] = self._table.lengths[codes[sets] - c]
        return out

    @property
    def codes(self) -> np.ndarray:
        """Unordered: int64 cell codes (-1 missing; < C plain value categories[code]; >= C a set).

        Equal cells of one array have equal codes, so the codes can be used as group keys.
        """
        if not self._is_sets:
            raise AttributeError("codes are defined for unordered arrays only; use .lo/.hi")
        v = self._codes.view()
        v.flags.writeable = False
        return v

    @property
    def is_plain(self) -> np.ndarray:
        """Boolean array: the cell is an ungeneralized value (False for missing cells)."""
        if self._is_sets:
            return (self._codes >= 0) & (self._codes < self._dtype._n_categories) & (
                self._open == 0)
        return ~self._mask & (self._lo == self._hi) & (self._open & OR_MISSING == 0)

    def contains(self, values) -> np.ndarray:
        """Vectorized truthfulness check: ``values[i]`` lies in cell i (a missing value lies
        only in a cell that covers missing, :attr:`or_missing`); see :meth:`_contains`.

        >>> arr = pd.array(["[20, 29] or missing", "[20, 29]"], dtype="generalization[real]")
        >>> arr.contains([None, None]).tolist(), arr.contains([25, 25]).tolist()
        ([True, False], [True, True])
        """
        out = self._contains(values)
        return self._or_missing_holds(out, values)

    def _contains(self, values) -> np.ndarray:
        """Vectorized truthfulness check: ``values[i]`` lies in cell i (False if missing).

        ``values`` holds plain values (numbers for numeric columns; category values, or a
        Categorical, otherwise). Ordered ranges of categories are read by position in the
        categories; a value is a category when it equals one by Python's equality (as in a
        dict: ``1 == 1.0 == True``), each value on its own. ``values[i] in self[i]`` gives the
        same answers, cell by cell.

        Examples
        --------
        >>> arr = pd.array([GeneralizationRange(20, 29, "real"), 40, None],
        ...                dtype="generalization[real]")
        >>> arr.contains([25, 41, 3]).tolist()
        [True, False, False]
        >>> order = ["HS-grad", "Some-college", "Assoc-voc"]
        >>> edu = GeneralizationArray.from_bounds([1], [2], kind="ordered", categories=order)
        >>> edu[0], edu.contains(["Some-college"]).tolist(), "Some-college" in edu[0]
        ([Some-college, Assoc-voc], [True], True)
        """
        n = len(self)
        if isinstance(values, (pd.Series, pd.Index)):
            values = values.array
        if self._dtype.is_numeric_bounds:
            if isinstance(values, ExtensionArray):
                v = values.to_numpy(dtype=np.float64, na_value=np.nan)
            else:
                v = np.asarray(values, dtype=np.float64)
            if v.shape != (n,):
                raise ValueError(f"values must have length {n}")
            with np.errstate(invalid="ignore"):
                return ~self._mask & self._within(v)
        if self._dtype.dates_by_value:  # dates: every date between the bounds, category or not
            found = self._date_positions(values)
            if found is not None:
                right, left = found
                if right.shape != (n,):
                    raise ValueError(f"values must have length {n}")
                return ~self._mask & (right >= self._lo) & (left <= self._hi)
        codes = self._value_codes(values)
        if codes.shape != (n,):
            raise ValueError(f"values must have length {n}")
        ok = codes >= 0
        if self._is_sets:
            c = self._dtype._n_categories
            out = ok & (self._codes == codes)
            sets = np.flatnonzero(ok & (self._codes >= c))
            if len(sets):
                out[sets] = self._table.contains(self._codes[sets] - c, codes[sets])
            return out
        return ok & ~self._mask & self._within(codes)

    def _date_positions(self, values):
        """For date categories: per value the last category at or before it and the first
        at or after it (a missing value: none), or None when the values are not such dates
        (other types, naive against aware)."""
        cats = self._dtype.categories
        if isinstance(values, pd.Categorical):
            values = np.asarray(values, dtype=object)
        try:
            if isinstance(cats, pd.DatetimeIndex):
                v = pd.DatetimeIndex(values)
            elif isinstance(cats, pd.PeriodIndex):
                v = pd.PeriodIndex(values, dtype=cats.dtype)
            else:
                v = pd.Index(object_array(values), dtype=object)
            missing = np.asarray(pd.isna(v), dtype=bool)
            safe = v if not missing.any() else v.where(~missing, cats[0])
            right = np.asarray(cats.searchsorted(safe, "right"), dtype=np.int64) - 1
            left = np.asarray(cats.searchsorted(safe, "left"), dtype=np.int64)
        except (TypeError, ValueError):
            return None
        return np.where(missing, -1, right), np.where(missing, len(cats), left)

    def _within(self, v: np.ndarray) -> np.ndarray:
        """``lo <= v <= hi`` per cell, strict at the open ends."""
        op = self._open
        above = np.where(op & OPEN_LO, self._lo < v, self._lo <= v)
        below = np.where(op & OPEN_HI, v < self._hi, v <= self._hi)
        return above & below

    def _value_codes(self, values) -> np.ndarray:
        """Category positions of plain values (-1 when missing or not a category).

        A value is a category when it equals one by Python's equality and hash, as in a dict
        (``1 == 1.0 == True``), each value on its own. (pandas' ``get_indexer`` alone does not
        promise that: it reads an all-boolean batch as incomparable with integer categories
        and the same booleans mixed with numbers as equal to them.) Numbers looked up in
        numeric categories take pandas' numeric lookup, which agrees; everything else goes
        through the dtype's object Index of the categories.
        """
        dtype = self._dtype
        if isinstance(values, pd.Categorical):
            pos = self._object_codes(object_array(values.categories))
            src = values.codes.astype(np.int64)
            return np.where(src >= 0, pos[np.maximum(src, 0)] if len(pos) else -1, -1)
        arr = values if isinstance(values, np.ndarray) else object_array(values)
        if arr.dtype.kind in "iuf" and dtype.categories.dtype.kind in "iuf":
            return dtype.categories.get_indexer(arr).astype(np.int64)
        if arr.dtype != object:
            arr = object_array(arr)
        return self._object_codes(arr)

    def _object_codes(self, arr: np.ndarray) -> np.ndarray:
        """Positions of the values of an object array in the categories (Python equality)."""
        target = pd.Index(arr, dtype=object, tupleize_cols=False)
        return self._dtype._cat_object.get_indexer(target).astype(np.int64)

    # -- conversion ----------------------------------------------------------------------------
    def _to_object(self) -> np.ndarray:
        """Vectorized boxing into an object array (NaN for missing).

        Plain values are converted in bulk; each distinct generalized cell is boxed once.
        """
        n = len(self)
        out = np.empty(n, dtype=object)
        out[:] = np.nan
        dtype = self._dtype
        plain = self.is_plain
        if plain.any():
            if self._is_sets or dtype.categories is not None:
                cl = dtype._cat_list
                cats = np.empty(len(cl), dtype=object)
                for j, v in enumerate(cl):
                    cats[j] = v
                pcodes = self._codes[plain] if self._is_sets else self._lo[plain].astype(np.int64)
                out[plain] = cats[pcodes]
            elif self._integer:
                out[plain] = self._lo[plain].astype(np.int64).astype(object)
            else:
                out[plain] = self._lo[plain].astype(object)
        general = ~plain & ~self.isna()
        if general.any():
            sub = self._take_key(general)
            codes, first = sub._factorize_positions()
            boxed = np.empty(len(first), dtype=object)
            for k, i in enumerate(first):
                boxed[k] = sub._box(int(i))
            out[general] = boxed[codes]
        return out

    def to_text(self, na_rep=np.nan) -> np.ndarray:
        """Object array of the text form of each cell (``[20, 29]``, ``{a, b}``, plain value).

        Missing cells get ``na_rep``; otherwise ``to_text()[i] == str(arr[i])``. Each distinct
        cell is formatted once.

        Examples
        --------
        >>> arr = pd.array([39, GeneralizationRange(20, 29, "real"), None],
        ...                dtype="generalization[real]")
        >>> arr.to_text(na_rep="").tolist()
        ['39', '[20, 29]', '']
        """
        n = len(self)
        out = np.empty(n, dtype=object)
        codes, first = self._factorize_positions()
        txt = np.empty(len(first), dtype=object)
        for k, i in enumerate(first):
            txt[k] = str(self._box(int(i)))
        valid = codes >= 0
        out[valid] = txt[codes[valid]]
        out[~valid] = na_rep
        return out

    def __array__(self, dtype=None, copy=None):
        if copy is False:
            raise ValueError("GeneralizationArray cannot be converted to numpy without a copy")
        return self.to_numpy(dtype=dtype)

    def to_numpy(self, dtype=None, copy: bool = False, na_value=no_default) -> np.ndarray:
        if dtype is not None:
            dtype = np.dtype(dtype)
        if dtype is None or dtype == object:
            out = self._to_object()
        elif dtype.kind in "iuf" and self._dtype.is_numeric_bounds:
            if not (self.is_plain | self._mask).all():
                raise TypeError("cannot convert generalized ranges to numbers; use .lo / .hi")
            if dtype.kind in "iu" and self._mask.any() and na_value is no_default:
                raise ValueError("cannot convert missing cells to integers; give na_value")
            vals = self._lo.copy()
            if na_value is not no_default:
                vals[self._mask] = na_value
            return vals.astype(dtype)
        elif dtype.kind in "US":
            out = self.to_text(na_rep="nan" if na_value is no_default else na_value)
            return out.astype(dtype)
        else:
            out = np.asarray(self._to_object(), dtype=dtype)
        if na_value is not no_default:
            out[self.isna()] = na_value
        return out

    def astype(self, dtype, copy: bool = True):
        dtype = pandas_dtype(dtype)
        if isinstance(dtype, GeneralizationDtype):
            if dtype == self._dtype or (
                    dtype.column_type == self._dtype.column_type and dtype.categories is None
                    and self._dtype.column_type == "unordered"):
                return self.copy() if copy else self
            return self._astype_generalization(dtype)
        if isinstance(dtype, pd.StringDtype):
            return dtype.construct_array_type()._from_sequence(self.to_text(), dtype=dtype,
                                                                copy=False)
        if isinstance(dtype, np.dtype):
            if dtype == object:
                return self._to_object()
            if dtype.kind in "US":
                return self.to_text(na_rep="nan").astype(dtype)
            return self.to_numpy(dtype=dtype)
        if isinstance(dtype, ExtensionDtype) and dtype._is_numeric and self._dtype.is_numeric_bounds:
            vals = self.to_numpy(dtype=np.float64, na_value=np.nan)
            return pd.array(vals, dtype="Float64").astype(dtype)
        return pd.array(self._to_object(), dtype=dtype)

    def _astype_generalization(self, dtype: GeneralizationDtype):
        src = self._dtype
        if src.column_type == "unordered" and dtype.column_type == "unordered":
            return self._remap_sets(dtype)
        if src.column_type != "unordered" and dtype.column_type != "unordered":
            if src.categories is None and dtype.categories is None:
                return self._new_bounds(self._lo.copy(), self._hi.copy(), self._mask.copy(),
                                        dtype, self._integer, self._open.copy())
            if src.categories is not None and dtype.categories is not None:
                pos = dtype.categories.get_indexer(src.categories).astype(np.float64)
                valid = ~self._mask
                lo = np.full(len(self), np.nan)
                hi = np.full(len(self), np.nan)
                lo[valid] = pos[self._lo[valid].astype(np.int64)]
                hi[valid] = pos[self._hi[valid].astype(np.int64)]
                if (lo[valid] < 0).any() or (hi[valid] < 0).any():
                    bad = np.flatnonzero(valid & ((lo < 0) | (hi < 0)))[0]
                    raise ValueError(f"cell {self[int(bad)]!r} is not representable in {dtype!r}")
                return type(self)._checked_bounds(lo, hi, self._mask.copy(), dtype, False,
                                                  self._open.copy())
        return type(self)._from_objects(self._to_object(), dtype, parse=False)

    def _remap_sets(self, dtype: GeneralizationDtype):
        src = self._dtype
        c_old = src._n_categories
        c_new = dtype._n_categories
        pos = dtype.categories.get_indexer(src.categories).astype(np.int64)
        codes = self._codes
        plain = (codes >= 0) & (codes < c_old)
        sets = codes >= c_old
        # only the sets some cell uses move to the new table (their members renumbered)
        used_sets, set_rank = np.unique(codes[sets] - c_old, return_inverse=True)
        indptr, members = self._table.subset(used_sets)
        need = np.concatenate([codes[plain], members])
        missing = need[pos[need] < 0]
        if len(missing):
            raise ValueError(f"value {src._cat_list[int(missing.min())]!r} is not among the "
                             f"categories of {dtype!r}")
        width = max(c_new, 1)
        keys = np.sort(np.repeat(np.arange(len(used_sets), dtype=np.int64), np.diff(indptr))
                       * width + pos[members])  # members in the new order within each set
        new = np.full(len(codes), -1, dtype=np.int64)
        new[plain] = pos[codes[plain]]
        new[sets] = c_new + set_rank.reshape(-1)
        return self._new_sets(new, SetTable(indptr, keys % width), dtype, self._open.copy())

    def _formatter(self, boxed: bool = False):
        if boxed:
            return str
        return repr

    def _values_for_json(self) -> np.ndarray:
        return self.to_text(na_rep=None)

    def __arrow_array__(self, type=None):
        if _arrow_writer is None:
            raise RuntimeError("the Arrow writer of GeneralizationArray is not registered: "
                               "pdanon.dtype has not finished importing")
        return _arrow_writer(self)

    # -- keys for sorting / grouping / hashing -------------------------------------------------
    def _used_members(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(codes used, CSR offsets, members) of an unordered array's distinct cells: a plain
        code is the one-member set of itself."""
        c = self._dtype._n_categories
        used = sorted_unique(self._codes[self._codes >= 0])
        plain = used[used < c]
        t = self._table
        lens, flat = gather_segments(t.indptr, t.members, used[used >= c] - c)
        offsets = np.zeros(len(used) + 1, dtype=np.int64)
        np.cumsum(np.concatenate([np.ones(len(plain), dtype=np.int64), lens]),
                  out=offsets[1:])
        return used, offsets, np.concatenate([plain, flat])

    def _values_for_argsort(self) -> np.ndarray:
        """Float dense ranks (NaN for missing): ranges by (lo, hi); sets lexicographically by
        the positions of their members in ``categories`` (a plain value is a 1-member set)."""
        n = len(self)
        out = np.full(n, np.nan)
        if self._is_sets:
            used, offsets, members = self._used_members()
            if not len(used):
                return out
            rank_of = lex_ranks(offsets, members).astype(np.float64)
            valid = self._codes >= 0
            out[valid] = rank_of[np.searchsorted(used, self._codes[valid])]
            return out
        valid = np.flatnonzero(~self._mask)
        if not len(valid):
            return out
        lo, hi, op = self._lo[valid], self._hi[valid], self._open[valid]
        # at equal bounds an open lower end sorts later, an open upper end earlier
        lo_key, hi_key = op & OPEN_LO, -(op & OPEN_HI)
        order = np.lexsort((hi_key, hi, lo_key, lo))
        ls, hs, os_ = lo[order], hi[order], op[order]
        new = np.ones(len(order), dtype=bool)
        new[1:] = (ls[1:] != ls[:-1]) | (hs[1:] != hs[:-1]) | (os_[1:] != os_[:-1])
        ranks = np.empty(len(order))
        ranks[order] = np.cumsum(new) - 1
        out[valid] = ranks
        return out

    def _factor_keys(self) -> np.ndarray:
        """Per-row hashable numeric key: equal cells <=> equal keys (NaN-like for missing)."""
        if self._is_sets:
            if self._open.any():  # a cell covering missing differs from the same set without
                return np.where(self._codes >= 0, self._codes * 2 + (self._open > 0), -1)
            return self._codes
        keys = _pair_keys(self._lo, self._hi)
        if not self._open.any():
            return keys
        # (lo, hi) codes refined by the open ends: missing cells keep a NaN key
        codes, _ = pd.factorize(keys, use_na_sentinel=True)
        out = codes.astype(np.float64) * 8 + self._open
        out[self._mask] = np.nan
        return out

    def _factorize_positions(self):
        """(code per row, -1 if missing; first row of each distinct cell), first-seen order."""
        na = self.isna()
        keys = self._factor_keys()
        if not na.any():
            codes, uniq = pd.factorize(keys)
            codes = np.asarray(codes, dtype=np.intp)
            first = np.empty(len(uniq), dtype=np.intp)
            first[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)
            return codes, first
        valid_pos = np.flatnonzero(~na)
        sub_codes, uniq = pd.factorize(keys[valid_pos])
        first = np.empty(len(uniq), dtype=np.intp)
        first[sub_codes[::-1]] = valid_pos[::-1]
        codes = np.full(len(self), -1, dtype=np.intp)
        codes[valid_pos] = sub_codes
        return codes, first

    def _group_codes(self) -> tuple[np.ndarray, int]:
        """``(codes, m)``: codes 0..m-1 of the distinct cells (-1 if missing) in no particular
        order, which is all grouping needs. A set column's codes already name its cells:
        they are renumbered by a table lookup instead of a hash pass."""
        if self._is_sets and len(self) and not self._open.any():
            codes = self._codes.astype(np.int64, copy=False)
            top = int(codes.max())
            if top < 4 * len(codes) + 1024:
                present = np.zeros(top + 2, dtype=bool)  # slot 0: missing
                present[codes + 1] = True
                number = np.cumsum(present) - 1 - present[0]
                out = number[codes + 1]
                if present[0]:
                    out[codes < 0] = -1
                return out, int(number[-1]) + 1
        codes, first = self._factorize_positions()
        return np.asarray(codes, dtype=np.int64), len(first)

    def factorize(self, use_na_sentinel: bool = True):
        codes, first = self._factorize_positions()
        na = codes < 0
        if not use_na_sentinel and na.any():
            first_na = int(np.flatnonzero(na)[0])
            # NA takes its place in order of first appearance
            insert_at = int(np.searchsorted(first, first_na))
            codes[codes >= insert_at] += 1
            codes[na] = insert_at
            first = np.insert(first, insert_at, first_na)
        return codes, self.take(first)

    def _values_for_factorize(self):
        if self._is_sets:
            codes, first = self._factorize_positions()
            distinct = self.take(first)._to_object()  # each distinct cell boxed once
            for k, v in enumerate(distinct):
                if isinstance(v, GeneralizationRange) and not v.or_missing:
                    distinct[k] = v.values_set
            out = np.empty(len(self), dtype=object)
            out[:] = np.nan
            ok = codes >= 0
            out[ok] = distinct[codes[ok]]
            return out, np.nan
        # (lo, hi, open ends) tuples, so that two arrays' keys agree (pandas' merge compares
        # them); each distinct cell is boxed once
        codes, first = self._factorize_positions()
        distinct = np.empty(len(first), dtype=object)
        for k, i in enumerate(first):
            distinct[k] = (float(self._lo[i]), float(self._hi[i]), int(self._open[i]))
        out = np.empty(len(self), dtype=object)
        out[:] = None
        ok = codes >= 0
        out[ok] = distinct[codes[ok]]
        return out, None

    def _hash_pandas_object(self, *, encoding: str, hash_key: str, categorize: bool):
        from pandas.util import hash_array

        if not self._is_sets:
            if self._dtype.categories is not None:
                # hash category values, so equal cells hash alike whatever the category order
                cat_h = hash_array(np.asarray(self._dtype._cat_list, dtype=object),
                                   encoding=encoding, hash_key=hash_key, categorize=False)
                lo = np.where(self._mask, 0, np.nan_to_num(self._lo)).astype(np.int64)
                hi = np.where(self._mask, 0, np.nan_to_num(self._hi)).astype(np.int64)
                h = cat_h[lo] * np.uint64(31) + cat_h[hi] + self._open.astype(np.uint64)
                h[self._mask] = np.uint64(0x9E3779B97F4A7C15)
                return h
            h = hash_array(_pair_keys(self._lo, self._hi), encoding=encoding, hash_key=hash_key,
                           categorize=categorize)
            with np.errstate(over="ignore"):
                return h ^ (self._open.astype(np.uint64) * np.uint64(0xBF58476D1CE4E5B9))
        c = self._dtype._n_categories
        out = np.full(len(self), np.uint64(0x9E3779B97F4A7C15), dtype=np.uint64)
        if c == 0:
            return out
        cat_h = hash_array(object_array(self._dtype._cat_list), encoding=encoding,
                           hash_key=hash_key, categorize=False)
        codes = self._codes
        plain = (codes >= 0) & (codes < c)
        out[plain] = cat_h[codes[plain]]
        sets = codes >= c
        if sets.any():
            with np.errstate(over="ignore"):
                mixed = cat_h * np.uint64(0xBF58476D1CE4E5B9) + np.uint64(0x94D049BB133111EB)
                used, inv = np.unique(codes[sets], return_inverse=True)
                indptr, members = self._table.subset(used - c)
                set_h = segment_sums(indptr, mixed[members])  # independent of member order
                set_h ^= set_h >> np.uint64(31)
                set_h *= np.uint64(0x94D049BB133111EB)
            out[sets] = set_h[inv.ravel()]
        with np.errstate(over="ignore"):
            return out ^ (self._open.astype(np.uint64) * np.uint64(0xBF58476D1CE4E5B9))

    def _where(self, mask, value):
        if self._is_scalar_value(value):  # a Python set is one cell, not a list of values
            result = self.copy()
            result[~np.asarray(mask, dtype=bool)] = value
            return result
        return super()._where(mask, value)

    def _putmask(self, mask, value) -> None:
        if self._is_scalar_value(value):
            self[np.asarray(mask, dtype=bool)] = value
            return
        super()._putmask(mask, value)

    def _reduce(self, name: str, *, skipna: bool = True, keepdims: bool = False, **kwargs):
        # min / max of real and ordered columns: the first / last cell in sort order
        if name in ("min", "max") and not self._is_sets:
            na = self.isna()
            if na.all() or (not skipna and na.any()):
                result = np.nan
            else:
                keys = self._values_for_argsort()
                i = np.nanargmin(keys) if name == "min" else np.nanargmax(keys)
                result = self[int(i)]
            if keepdims:
                return type(self)._from_sequence([result], dtype=self._dtype)
            return result
        return super()._reduce(name, skipna=skipna, keepdims=keepdims, **kwargs)

    def unique(self):
        _, uniques = self.factorize(use_na_sentinel=False)
        return uniques

    def duplicated(self, keep="first") -> np.ndarray:
        codes, _ = self.factorize(use_na_sentinel=False)
        return pd.Series(codes).duplicated(keep=keep).to_numpy()

    def value_counts(self, dropna: bool = True) -> pd.Series:
        codes, uniques = self.factorize(use_na_sentinel=dropna)
        if dropna:
            codes = codes[codes >= 0]
        counts = np.bincount(codes, minlength=len(uniques)).astype(np.int64)
        return pd.Series(counts, index=pd.Index(uniques), name="count", copy=False)

    def searchsorted(self, value, side="left", sorter=None):
        scalar = self._is_scalar_value(value)
        other = self._coerce(value, scalar) if not isinstance(value, GeneralizationArray) else value
        both = type(self)._concat_same_type([self, other])
        keys = both._values_for_argsort()
        mine, theirs = keys[: len(self)], keys[len(self):]
        res = np.searchsorted(mine, theirs, side=side, sorter=sorter)
        return res[0] if scalar else res

    # -- comparisons ---------------------------------------------------------------------------
    def _other_as_array(self, other):
        """other -> (GeneralizationArray aligned with self, or None when not representable)."""
        if isinstance(other, GeneralizationArray):
            arr = other
        elif self._is_scalar_value(other):
            try:
                arr = self._coerce(other, True)
            except (TypeError, ValueError):
                return None
            return arr
        else:
            if len(other) != len(self):
                raise ValueError("Lengths must match to compare")
            try:
                arr = type(self)._from_sequence(other, dtype=self._dtype)
            except (TypeError, ValueError):
                return None
        if len(arr) not in (1, len(self)):
            raise ValueError("Lengths must match to compare")
        if arr.dtype != self._dtype:
            common = self._dtype._get_common_dtype([self._dtype, arr.dtype])
            if common is None:
                return None
            return arr.astype(common)
        return arr

    def _eq(self, other) -> np.ndarray:
        arr = self._other_as_array(other)
        n = len(self)
        if arr is None:
            # not representable in this column: elementwise Python equality
            obj = self._to_object()
            if self._is_scalar_value(other):
                return np.array([bool(v == other) if not is_missing(v) else False for v in obj],
                                dtype=bool)
            oth = object_array(other)
            return np.array([(not is_missing(a)) and bool(a == b) for a, b in zip(obj, oth)],
                            dtype=bool)
        me = self
        if arr.dtype != self._dtype:
            me = self.astype(arr.dtype)
        if me._is_sets:
            a = me._codes
            b = me._codes_in_table(arr, append=False)
            return (a >= 0) & (a == b) & (me._open == arr._open)
        res = ~me._mask & ~arr._mask & (me._lo == arr._lo) & (me._hi == arr._hi) & (
            me._open == arr._open)
        return np.broadcast_to(res, (n,)).copy()

    def _order_cmp(self, other, op) -> np.ndarray:
        if self._is_sets:
            raise TypeError("'<', '<=', '>', '>=' are not supported for unordered (set) cells")
        arr = self._other_as_array(other)
        if arr is None:
            raise TypeError(f"cannot compare {self._dtype.name} cells with {other!r}")
        me = self if arr.dtype == self._dtype else self.astype(arr.dtype)
        with np.errstate(invalid="ignore"):
            res = ~me._mask & ~arr._mask & op(me._lo, arr._lo)
        return np.broadcast_to(res, (len(self),)).copy()

    @staticmethod
    def _defer(other) -> bool:
        return isinstance(other, (pd.Series, pd.DataFrame, pd.Index))

    def __eq__(self, other):
        if self._defer(other):
            return NotImplemented
        return self._eq(other)

    def __ne__(self, other):
        if self._defer(other):
            return NotImplemented
        return ~self._eq(other)

    def _ordered(self, other, op):
        if self._defer(other):
            return NotImplemented
        return self._order_cmp(other, op)

    def __lt__(self, other):
        return self._ordered(other, np.less)

    def __le__(self, other):
        return self._ordered(other, np.less_equal)

    def __gt__(self, other):
        return self._ordered(other, np.greater)

    def __ge__(self, other):
        return self._ordered(other, np.greater_equal)

    __hash__ = None  # mutable

    def __iter__(self):
        return iter(self._to_object())

    def tolist(self) -> list:
        return list(self._to_object())

    def __repr__(self) -> str:
        return super().__repr__()


register_array_type(GeneralizationArray)
