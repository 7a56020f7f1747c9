"""Building :class:`~pdanon.dtype.GeneralizationArray` objects from values, bounds, sets and text.

The constructors live in a mixin class that :class:`~pdanon.dtype.GeneralizationArray` derives
from: the engine's vectorized ones (``from_bounds``, ``from_members``, ``from_membership``,
``from_values``, ``from_groups``), pandas' generic ones (``_from_sequence``, ``_from_sequence_of_strings``,
``_from_factorized``, ``_empty``) and the Python-level path from an object array of cells.

>>> from pdanon.dtype import GeneralizationArray
>>> GeneralizationArray.from_values([39, None], kind="real").tolist()
[39, nan]
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray
from pandas.api.types import pandas_dtype

from pdanon.dtype._common import (
    CLOSED,
    KINDS,
    OPEN_HI,
    OPEN_LO,
    OR_MISSING,
    as_real,
    brackets,
    closed_flags,
    format_value,
    infer_categories,
    is_missing,
    is_number,
    is_set_like,
    object_array,
    python_scalar,
    split_or_missing,
)
from pdanon.dtype.dtype import GeneralizationDtype
from pdanon.dtype.scalar import GeneralizationRange
from pdanon.dtype.storage import SetTable, sets_from_pairs, sorted_unique
from pdanon.dtype.text import (
    MAX_CELL_LENGTH,
    ParsedSets,
    looks_like_range,
    looks_like_set,
    parse_range_text,
    parse_text,
    range_open,
    split_range_text,
    split_set_text,
)

__all__ = ["ArrayConstructors"]


def _resolve_dtype(dtype) -> GeneralizationDtype | None:
    if dtype is None:
        return None
    if isinstance(dtype, GeneralizationDtype):
        return dtype
    if isinstance(dtype, str):
        return GeneralizationDtype.construct_from_string(dtype)
    d = pandas_dtype(dtype)
    if not isinstance(d, GeneralizationDtype):
        raise TypeError(f"expected a generalization dtype, got {dtype!r}")
    return d


class ArrayConstructors:
    """Constructors of :class:`~pdanon.dtype.GeneralizationArray` (a mixin of that class)."""

    # -- public fast constructors --------------------------------------------------------------
    @classmethod
    def from_bounds(cls, lo, hi, *, kind: str, categories=None, mask=None, integer=None,
                    closed="both"):
        """Cells ``[lo[i], hi[i]]`` for a real/ordered column (``lo == hi``: a plain value).

        Parameters
        ----------
        lo, hi : array-like of numbers
            Bounds; for ordered columns with ``categories`` they are integer positions in
            ``categories``. NaN (or a negative position) marks a missing cell.
        kind : 'real' or 'ordered'
        categories : sequence, optional
            Ordered categories (ordered kind with non-numeric values).
        mask : bool array-like, optional
            Extra missing cells.
        integer : bool, optional
            Whether plain values/bounds are returned as ``int``; default: True when ``lo`` and
            ``hi`` have an integer dtype (numeric columns only).
        closed : str or array-like of str, default "both"
            Which bounds belong to each range, as for :class:`pandas.Interval`: ``"both"``
            (``[lo, hi]``), ``"left"`` (``[lo, hi)``), ``"right"`` (``(lo, hi]``) or
            ``"neither"``; one name for every cell or one per cell (ignored for missing cells).
            A cell with an open end needs ``lo < hi``; ranges of ordered categories are closed.

        Examples
        --------
        >>> from pdanon.dtype import GeneralizationArray
        >>> GeneralizationArray.from_bounds([1, 5], [4, 5], kind="real").tolist()
        [[1, 4], 5]
        >>> GeneralizationArray.from_bounds([30, 35], [35, 40], kind="real",
        ...                                 closed="left").tolist()
        [[30, 35), [35, 40)]
        >>> GeneralizationArray.from_bounds([0, 1], [1, 1], kind="ordered",
        ...                                 categories=["low", "mid", "high"]).tolist()
        [[low, mid], 'mid']
        """
        dtype = GeneralizationDtype(kind, categories)
        if kind == "unordered":
            raise ValueError("from_bounds builds real/ordered arrays; use from_members")
        lo_in = np.asarray(lo)
        hi_in = np.asarray(hi)
        if lo_in.ndim != 1 or hi_in.shape != lo_in.shape:
            raise ValueError("lo and hi must be 1-dimensional arrays of equal length")
        if integer is None:
            integer = lo_in.dtype.kind in "iu" and hi_in.dtype.kind in "iu"
        lo_f = lo_in.astype(np.float64) + 0.0
        hi_f = hi_in.astype(np.float64) + 0.0
        na = np.isnan(lo_f) | np.isnan(hi_f)
        if dtype.categories is not None:
            na |= (lo_f < 0) | (hi_f < 0)
        if mask is not None:
            mask_arr = np.asarray(mask, dtype=bool)
            if mask_arr.shape != na.shape:
                raise ValueError("mask must have the length of lo/hi")
            na |= mask_arr
        return cls._checked_bounds(lo_f, hi_f, na, dtype, bool(integer),
                                   _open_flags(closed, len(lo_f)))

    @classmethod
    def _checked_bounds(cls, lo, hi, na, dtype, integer, open_=None):
        lo[na] = np.nan
        hi[na] = np.nan
        valid = ~na
        if open_ is not None:
            open_ = np.where(na, 0, open_).astype(np.int8)
            _check_open(lo, hi, open_, dtype)
        bad = valid & (lo > hi)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            a, b = lo[i], hi[i]
            if dtype.categories is not None:
                a, b = dtype._cat_list[int(a)], dtype._cat_list[int(b)]
            raise ValueError(f"cell {i}: range minimum {format_value(a)} is greater than its "
                             f"maximum {format_value(b)}")
        if dtype.categories is not None:
            c = dtype._n_categories
            if valid.any():
                lv, hv = lo[valid], hi[valid]
                if (lv >= c).any() or (hv >= c).any() or (lv != np.floor(lv)).any() \
                        or (hv != np.floor(hv)).any():
                    raise ValueError(f"ordered positions must be integers in [0, {c})")
            integer = False
        elif not np.isfinite(lo[valid]).all() or not np.isfinite(hi[valid]).all():
            raise ValueError("bounds must be finite numbers (or NaN for a missing cell)")
        return cls._new_bounds(lo, hi, na, dtype, integer, open_)

    @classmethod
    def from_membership(cls, membership, categories, *, mask=None):
        """Unordered cells from a boolean membership matrix (rows x categories).

        A row with one member is a plain value, with several a set; a row without members (or
        masked) is missing. The matrix is dense; :meth:`from_members` takes the same cells in
        sparse form.

        Examples
        --------
        >>> from pdanon.dtype import GeneralizationArray
        >>> m = [[True, True, False], [False, False, True]]
        >>> GeneralizationArray.from_membership(m, ["Asian", "Black", "White"]).tolist()
        [{Asian, Black}, 'White']
        """
        dtype = GeneralizationDtype("unordered", categories)
        c = dtype._n_categories
        mem = np.asarray(membership, dtype=bool)
        if mem.ndim != 2 or mem.shape[1] != c:
            raise ValueError(f"membership must have shape (n, {c}), got {mem.shape}")
        rows, cats = np.nonzero(mem)
        return cls._from_pairs(len(mem), rows, cats, dtype, mask)

    @classmethod
    def from_members(cls, offsets, members, categories, *, mask=None):
        """Unordered cells from their members in sparse (CSR) form, as :meth:`members` gives.

        Cell i holds ``categories[members[offsets[i]:offsets[i + 1]]]`` (category positions in
        any order; a repeated one counts once): one member is a plain value, several a set,
        none (or ``mask`` True) a missing cell. Memory O(rows + members).

        Examples
        --------
        >>> from pdanon.dtype import GeneralizationArray
        >>> GeneralizationArray.from_members([0, 2, 3, 3], [2, 0, 1], ["a", "b", "c"]).tolist()
        [{a, c}, 'b', nan]
        """
        dtype = GeneralizationDtype("unordered", categories)
        c = dtype._n_categories
        offsets = np.asarray(offsets, dtype=np.int64)
        members = np.asarray(members)
        if offsets.ndim != 1 or len(offsets) == 0 or offsets[0] != 0 \
                or (np.diff(offsets) < 0).any() or offsets[-1] != len(members):
            raise ValueError("offsets must rise from 0 to len(members), one more than the cells")
        if members.ndim != 1 or (len(members) and members.dtype.kind not in "iu"):
            raise ValueError("members must be a 1-D array of integer category positions")
        members = members.astype(np.int64)
        if len(members) and (members.min() < 0 or members.max() >= c):
            raise ValueError(f"category positions must lie in [0, {c})")
        n = len(offsets) - 1
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
        return cls._from_pairs(n, rows, members, dtype, mask)

    @classmethod
    def _from_pairs(cls, n: int, rows, cats, dtype, mask):
        """Unordered cells from (row, category position) member pairs; masked rows missing."""
        if mask is not None:
            m = np.asarray(mask, dtype=bool)
            if m.shape != (n,):
                raise ValueError("mask must have one entry per row")
            keep = ~m[rows]
            rows, cats = rows[keep], cats[keep]
        codes, table = sets_from_pairs(n, rows, cats, dtype._n_categories)
        return cls._new_sets(codes, table, dtype)

    @classmethod
    def from_values(cls, values, *, kind: str, categories=None):
        """Plain (ungeneralized) cells from values; NaN/None are missing.

        ``values`` may be a numpy array, a list, a Series or a Categorical (whose categories
        are used when ``categories`` is not given; an ordered Categorical gives the order).

        Examples
        --------
        >>> from pdanon.dtype import GeneralizationArray
        >>> GeneralizationArray.from_values([39, 50, None], kind="real").tolist()
        [39, 50, nan]
        >>> GeneralizationArray.from_values(["a", "b", "a"], kind="unordered").dtype
        GeneralizationDtype('unordered', categories=['a', 'b'])
        """
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        if isinstance(values, cls):
            return values.astype(GeneralizationDtype(kind, categories))
        if isinstance(values, (pd.Series, pd.Index)):
            values = values.array
        if isinstance(values, pd.Categorical):
            if kind == "real":
                values = np.asarray(values.astype(object))
            else:
                cat_src = values.categories
                if categories is None:
                    categories = cat_src
                    src_codes = values.codes.astype(np.int64)
                else:
                    dtype = GeneralizationDtype(kind, categories)
                    pos = dtype.categories.get_indexer(cat_src)
                    src_codes = values.codes.astype(np.int64)
                    used = sorted_unique(src_codes[src_codes >= 0])
                    missing = used[pos[used] < 0]
                    if len(missing):
                        raise ValueError(f"value {cat_src[missing[0]]!r} is not among the "
                                         f"categories of {dtype!r}")
                    src_codes = np.where(src_codes >= 0, pos[np.maximum(src_codes, 0)], -1)
                return cls._from_codes(src_codes, kind, categories)
        if kind == "ordered" and categories is None:
            arr = values if isinstance(values, np.ndarray) else object_array(values)
            if arr.dtype.kind not in "iuf" and not _all_numbers(arr):
                categories = infer_categories(arr[~pd.isna(arr)], sort=True)
        if kind == "real" or (kind == "ordered" and categories is None):
            arr = values if isinstance(values, np.ndarray) else None
            if arr is None:
                if isinstance(values, ExtensionArray) and values.dtype.kind in "iuf":
                    integer = values.dtype.kind in "iu"
                    f = values.to_numpy(dtype=np.float64, na_value=np.nan)
                    return cls.from_bounds(f, f, kind=kind, integer=integer)
                arr = object_array(values)
            if arr.dtype.kind in "iuf":
                f = arr.astype(np.float64)
                return cls.from_bounds(f, f, kind=kind, integer=arr.dtype.kind in "iu")
            if arr.dtype.kind == "b":
                raise TypeError("boolean values are not real values")
            return cls._from_objects(object_array(arr), GeneralizationDtype(kind), parse=False)
        # categorical codes (ordered with categories, unordered)
        arr = object_array(values) if not isinstance(values, np.ndarray) else values
        na = pd.isna(arr)
        if categories is None:
            categories = infer_categories(arr[~na], sort=True)
        dtype = GeneralizationDtype(kind, categories)
        codes = np.full(len(arr), -1, dtype=np.int64)
        if (~na).any():
            sub = arr[~na]
            got = dtype.categories.get_indexer(pd.Index(sub, tupleize_cols=False)
                                               if sub.dtype == object else sub)
            if (got < 0).any():
                bad = sub[np.flatnonzero(got < 0)[0]]
                raise ValueError(f"value {bad!r} is not among the categories of {dtype!r}")
            codes[~na] = got
        return cls._from_codes(codes, kind, dtype.categories)

    @classmethod
    def _from_codes(cls, codes, kind, categories):
        dtype = GeneralizationDtype(kind, categories)
        codes = np.asarray(codes, dtype=np.int64)
        if kind == "unordered":
            return cls._new_sets(codes.copy(), SetTable(), dtype)
        f = codes.astype(np.float64)
        f[codes < 0] = np.nan
        return cls._new_bounds(f, f.copy(), codes < 0, dtype, False)

    @classmethod
    def from_groups(cls, values, groups, *, kind: str, categories=None, integer=None):
        """Generalize each group of rows to one cell: the hull range or the set of its values.

        Parameters
        ----------
        values : array-like
            Numbers (real, or ordered without categories) or integer positions in
            ``categories`` (ordered/unordered); NaN / -1 is missing.
        groups : int array-like
            Group label per row; rows labelled -1 keep their plain value.
        kind, categories, integer : as in :meth:`from_bounds`.

        Missing values stay missing and are ignored when computing a group's cell. A group
        whose values are all equal yields plain values.

        Examples
        --------
        >>> from pdanon.dtype import GeneralizationArray
        >>> GeneralizationArray.from_groups([25, 31, 40, 40], [0, 0, 1, -1], kind="real").tolist()
        [[25, 31], [25, 31], 40, 40]
        >>> GeneralizationArray.from_groups([0, 2, 1], [0, 0, 1], kind="unordered",
        ...                                 categories=["a", "b", "c"]).tolist()
        [{a, c}, {a, c}, 'b']
        """
        g = np.asarray(groups, dtype=np.int64)
        vals = np.asarray(values)
        if vals.shape != g.shape or vals.ndim != 1:
            raise ValueError("values and groups must be 1-D of the same length")
        n = len(g)
        grouped = g >= 0
        if kind == "unordered":
            if categories is None:
                raise ValueError("from_groups(kind='unordered') needs categories")
            dtype = GeneralizationDtype("unordered", categories)
            c = dtype._n_categories
            codes_in = vals.astype(np.int64)
            if ((codes_in >= c)).any():
                raise ValueError(f"category positions must be < {c}")
            valid = codes_in >= 0
            out = np.where(valid, codes_in, -1).astype(np.int64)
            sel = grouped & valid
            if sel.any():
                ug, ginv = np.unique(g[sel], return_inverse=True)
                gcodes, table = sets_from_pairs(len(ug), ginv, codes_in[sel], c)
                out[sel] = gcodes[ginv]
            else:
                table = SetTable()
            return cls._new_sets(out, table, dtype)
        if kind not in ("real", "ordered"):
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        dtype = GeneralizationDtype(kind, categories)
        if integer is None:
            integer = vals.dtype.kind in "iu" and dtype.categories is None
        f = vals.astype(np.float64)
        na = np.isnan(f) | ((f < 0) if dtype.categories is not None else False)
        lo = f.copy()
        hi = f.copy()
        sel = grouped & ~na
        if sel.any():
            ug, ginv = np.unique(g[sel], return_inverse=True)
            gmin = np.full(len(ug), np.inf)
            gmax = np.full(len(ug), -np.inf)
            np.minimum.at(gmin, ginv, f[sel])
            np.maximum.at(gmax, ginv, f[sel])
            lo[sel] = gmin[ginv]
            hi[sel] = gmax[ginv]
        return cls._checked_bounds(lo, hi, na, dtype, bool(integer))

    # -- generic constructors (pandas interface) -----------------------------------------------
    @classmethod
    def _from_sequence(cls, scalars, *, dtype=None, copy: bool = False):
        dtype = _resolve_dtype(dtype)
        if isinstance(scalars, (pd.Series, pd.Index)):
            scalars = scalars.array
        if isinstance(scalars, cls):
            if dtype is None:
                return scalars.copy() if copy else scalars
            return scalars.astype(dtype, copy=copy)
        if isinstance(scalars, pd.Categorical) and (dtype is None or dtype.column_type != "real"):
            kind = "unordered" if dtype is None else dtype.column_type
            if kind == "unordered" or scalars.categories.dtype.kind not in "iuf" \
                    or (dtype is not None and dtype.categories is not None):
                return cls.from_values(scalars, kind=kind,
                                       categories=None if dtype is None else dtype.categories)
        if isinstance(scalars, np.ndarray) and scalars.ndim == 1 and scalars.dtype.kind in "iuf":
            if dtype is None or dtype.is_numeric_bounds:
                return cls.from_values(scalars, kind="real" if dtype is None else dtype.column_type)
        if isinstance(scalars, ExtensionArray) and scalars.dtype.kind in "iuf" and (
                dtype is None or dtype.is_numeric_bounds) and not scalars.dtype._is_boolean:
            return cls.from_values(scalars, kind="real" if dtype is None else dtype.column_type)
        return cls._from_objects(object_array(scalars), dtype, parse=True)

    @classmethod
    def _from_scalars(cls, scalars, *, dtype):
        # strict: only values this dtype holds as they are (no text parsing, no booleans)
        dtype = _resolve_dtype(dtype)
        return cls._from_objects(object_array(scalars), dtype, parse=False)

    @classmethod
    def _from_sequence_of_strings(cls, strings, *, dtype, copy: bool = False):
        dtype = _resolve_dtype(dtype)
        return cls._from_text(strings, dtype.column_type, dtype.categories)

    @classmethod
    def _from_text(cls, strings, kind: str, categories=None, *,
                   max_cell_length: int = MAX_CELL_LENGTH, column=None, index=None):
        """Cells parsed from their text form (see :func:`pdanon.dtype.text.parse_text`).

        >>> from pdanon.dtype import GeneralizationArray
        >>> GeneralizationArray._from_text(["39", "[20, 29]", ""], "real").tolist()
        [39, [20, 29], nan]
        """
        p = parse_text(strings, kind, categories, max_cell_length=max_cell_length,
                       column=column, index=index)
        if isinstance(p, ParsedSets):
            return cls._new_sets(p.codes, p.table, p.dtype, p.open)
        lo = np.asarray(p.lo, dtype=np.float64) + 0.0
        hi = np.asarray(p.hi, dtype=np.float64) + 0.0
        na = np.asarray(p.mask, dtype=bool) | np.isnan(lo) | np.isnan(hi)
        if p.dtype.categories is not None:
            na |= (lo < 0) | (hi < 0)
        return cls._checked_bounds(lo, hi, na, p.dtype, p.integer, p.open)

    @classmethod
    def _from_factorized(cls, values, original):
        if original._is_sets:
            vals = np.asarray(values, dtype=object)
            return cls._from_objects(vals, original.dtype, parse=False)
        # the (lo, hi, open ends) tuples of _values_for_factorize (None: missing)
        vals = object_array(values)
        n = len(vals)
        lo, hi = np.full(n, np.nan), np.full(n, np.nan)
        open_ = np.zeros(n, dtype=np.int8)
        for i, v in enumerate(vals):
            if isinstance(v, tuple):
                lo[i], hi[i], open_[i] = v
        return cls._new_bounds(lo, hi, np.isnan(lo), original.dtype, original._integer, open_)

    @classmethod
    def _from_objects(cls, obj: np.ndarray, dtype: GeneralizationDtype | None, parse: bool):
        """The general (Python-level) constructor from an object array of cells."""
        n = len(obj)
        if n >= 1000:
            # cells repeat a lot in generalized columns: convert each distinct cell once
            try:
                codes, uniq = pd.factorize(obj)
            except TypeError:  # unhashable cells (e.g. Python sets): row by row
                codes, uniq = None, None
            if codes is not None and len(uniq) <= n // 2 and not any(
                    isinstance(v, (bool, np.bool_)) for v in uniq):
                base = cls._from_objects(object_array(uniq), dtype, parse)
                out = base.take(codes, allow_fill=True)
                if not out._is_sets:
                    out._integer = base._integer
                return out
        kind = dtype.column_type if dtype is not None else _infer_kind(obj)
        if dtype is None:
            dtype = GeneralizationDtype(kind)
        if kind == "unordered":
            return cls._objects_to_sets(obj, dtype, parse)
        if kind == "ordered" and dtype.categories is None and not _all_numbers(obj, parse):
            dtype = GeneralizationDtype("ordered", infer_categories(
                _range_tokens(obj, parse), sort=True))
        lo = np.full(n, np.nan)
        hi = np.full(n, np.nan)
        na = np.zeros(n, dtype=bool)
        open_ = np.zeros(n, dtype=np.int8)
        integer = True
        cat = dtype.categories is not None
        pos = dtype._cat_pos if cat else None
        text = dtype._cat_text if cat else None
        for i, v in enumerate(obj):
            if is_missing(v):
                na[i] = True
                continue
            if isinstance(v, str) and parse and not (cat and v in pos):
                v, flagged = split_or_missing(v)
                open_[i] = OR_MISSING if flagged else 0
            if isinstance(v, GeneralizationRange):
                if v.column_type == "unordered":
                    raise TypeError(f"a set {v!r} cannot be stored in a {dtype.name} column")
                a, b = v.min, v.max
                open_[i] |= v._open
            elif isinstance(v, pd.Interval):
                a, b = python_scalar(v.left), python_scalar(v.right)
                open_[i] = closed_flags(v.closed)
            elif is_set_like(v):
                raise TypeError(f"a set {v!r} cannot be stored in a {dtype.name} column")
            elif isinstance(v, str) and parse and not (cat and v in pos):
                a, b = parse_range_text(v, dtype)
                open_[i] |= range_open(v)
            else:
                a = b = v
            if cat:
                try:
                    ia = pos.get(a)
                    ib = pos.get(b)
                except TypeError:
                    raise TypeError(f"{v!r} is not a valid {dtype.name} value") from None
                if parse:
                    if ia is None and isinstance(a, str):
                        ia = text.get(a)
                    if ib is None and isinstance(b, str):
                        ib = text.get(b)
                if ia is None or ib is None:
                    bad = a if ia is None else b
                    raise ValueError(f"value {bad!r} is not among the categories of {dtype!r}")
                if ia > ib:
                    raise ValueError(f"cell {i}: range minimum {format_value(a)} comes after its "
                                     f"maximum {format_value(b)} in the category order")
                lo[i], hi[i] = ia, ib
            else:
                fa, ia_int = as_real(a)
                fb, ib_int = as_real(b)
                if not (np.isfinite(fa) and np.isfinite(fb)):
                    raise ValueError(f"cell {i}: bounds must be finite numbers, got {v!r}")
                if fa > fb:
                    raise ValueError(f"cell {i}: range minimum {format_value(a)} is greater "
                                     f"than its maximum {format_value(b)}")
                integer = integer and ia_int and ib_int
                lo[i], hi[i] = fa + 0.0, fb + 0.0
        if cat:
            integer = False
        if open_.any():
            _check_open(lo, hi, open_, dtype)
        return cls._new_bounds(lo, hi, na, dtype, integer and not na.all(), open_)

    @classmethod
    def _objects_to_sets(cls, obj: np.ndarray, dtype: GeneralizationDtype, parse: bool):
        n = len(obj)
        plain_pos: list[int] = []
        plain_val: list = []
        set_rows: list[int] = []
        set_members: list = []
        cats_known = dtype.categories is not None
        pos = dtype._cat_pos if cats_known else None
        flags = np.zeros(n, dtype=np.int8)
        for i, v in enumerate(obj):
            if is_missing(v):
                continue
            if isinstance(v, str) and parse and not (cats_known and v in pos):
                v, flagged = split_or_missing(v)
                flags[i] = OR_MISSING if flagged else 0
            if isinstance(v, GeneralizationRange):
                if v.column_type != "unordered":
                    raise TypeError(f"a range {v!r} cannot be stored in an unordered column")
                members = v.values_set
                flags[i] |= v._open & OR_MISSING
            elif is_set_like(v):
                members = v
            elif isinstance(v, str) and parse and looks_like_set(v) and not (
                    cats_known and v in pos):
                members = split_set_text(v, dtype)
            else:
                try:
                    hash(v)
                except TypeError:
                    raise TypeError(f"{v!r} (type {type(v).__name__}) is not a valid "
                                    "unordered value") from None
                if isinstance(v, (bool, np.bool_)) and cats_known and not parse \
                        and dtype.categories.dtype.kind != "b" and v not in pos:
                    raise TypeError(f"{v!r} is not a valid value of {dtype!r}")
                plain_pos.append(i)
                plain_val.append(python_scalar(v))
                continue
            members = [python_scalar(m) for m in members]
            if len(members) == 0:
                raise ValueError(f"cell {i}: an empty set cannot be stored (use NaN)")
            if len(members) == 1:
                plain_pos.append(i)
                plain_val.append(members[0])
            else:
                set_rows.append(i)
                set_members.append(members)
        if not cats_known:
            seen: dict = {}
            for v in plain_val:
                seen.setdefault(v, None)
            for ms in set_members:
                for m in ms:
                    seen.setdefault(m, None)
            dtype = GeneralizationDtype("unordered", infer_categories(object_array(list(seen)),
                                                                       sort=True))
            pos = dtype._cat_pos
        text = dtype._cat_text if parse else None

        def code_of(v):
            try:
                c = pos.get(v)
            except TypeError:
                raise TypeError(f"{v!r} is not a valid unordered value") from None
            if c is None and text is not None and isinstance(v, str):
                c = text.get(v)
            if c is None:
                raise ValueError(f"value {v!r} is not among the categories of {dtype!r}")
            return c

        codes = np.full(n, -1, dtype=np.int64)
        for i, v in zip(plain_pos, plain_val):
            codes[i] = code_of(v)
        c = dtype._n_categories
        if set_rows:
            pr = []
            pc = []
            for r, ms in zip(set_rows, set_members):
                for m in ms:
                    pr.append(r)
                    pc.append(code_of(m))
            scodes, table = sets_from_pairs(n, np.array(pr), np.array(pc), c)
            rows = np.asarray(set_rows)
            codes[rows] = scodes[rows]
        else:
            table = SetTable()
        return cls._new_sets(codes, table, dtype, flags)

    @classmethod
    def _empty(cls, shape, dtype):
        n = int(np.prod(shape))
        dtype = _resolve_dtype(dtype)
        if dtype.column_type == "unordered":
            if dtype.categories is None:
                dtype = GeneralizationDtype("unordered", [])
            return cls._new_sets(np.full(n, -1, dtype=np.int64), SetTable(), dtype)
        return cls._new_bounds(np.full(n, np.nan), np.full(n, np.nan), np.ones(n, bool), dtype,
                               False)


def _open_flags(closed, n: int) -> np.ndarray | None:
    """``closed`` (one name, or one per cell) -> int8 open-end flags, or None when all closed."""
    if isinstance(closed, str):
        flags = closed_flags(closed)
        return None if flags == 0 else np.full(n, flags, dtype=np.int8)
    names = np.asarray(closed, dtype=object)
    if names.shape != (n,):
        raise ValueError(f"closed must be one of {list(CLOSED)} or one such name per cell "
                         f"({n}), got an array of shape {names.shape}")
    flags = np.zeros(n, dtype=np.int8)
    for name in pd.unique(names):
        flags[names == name] = closed_flags(name)
    return flags


def _check_open(lo: np.ndarray, hi: np.ndarray, open_: np.ndarray, dtype) -> None:
    """Ranges with an open end: numeric bounds only, and never empty (lo < hi)."""
    has_open = (open_ & (OPEN_LO | OPEN_HI)) != 0
    if not has_open.any():
        return
    i = int(np.flatnonzero(has_open)[0])
    if dtype.categories is not None:
        raise ValueError(f"cell {i}: a range of ordered categories always holds both its bounds "
                         f"(closed='both'); its open ends cannot be stored in {dtype!r}")
    bad = np.flatnonzero(has_open & (lo == hi))
    if len(bad):
        i = int(bad[0])
        lb, rb = brackets(int(open_[i]))
        v = format_value(lo[i])
        raise ValueError(f"cell {i}: the range {lb}{v}, {v}{rb} is empty (an open end needs "
                         f"lo < hi); store the plain value {v} instead")


# ---------------------------------------------------------------------------------------------
# inference of kind and categories
# ---------------------------------------------------------------------------------------------


def _all_numbers(obj: np.ndarray, parse: bool = False) -> bool:
    """True when every non-missing cell/bound is a number (strings count if they parse)."""
    for v in obj:
        if is_missing(v):
            continue
        if isinstance(v, GeneralizationRange):
            if v.column_type == "unordered" or not (is_number(v.min) and is_number(v.max)):
                return False
        elif isinstance(v, pd.Interval):
            if not (is_number(v.left) and is_number(v.right)):
                return False
        elif isinstance(v, str):
            if not parse:
                return False
            try:
                a, b = split_range_text(v)
                float(a)
                float(b)
            except (ValueError, TypeError):
                return False
        elif not is_number(v):
            return False
    return True


def _range_tokens(obj: np.ndarray, parse: bool) -> np.ndarray:
    """All plain values and range bounds of an object array (for category inference)."""
    toks = []
    for v in obj:
        if is_missing(v):
            continue
        if isinstance(v, GeneralizationRange):
            toks.extend([v.min, v.max])
        elif isinstance(v, pd.Interval):
            toks.extend([python_scalar(v.left), python_scalar(v.right)])
        elif isinstance(v, str) and parse and looks_like_range(v):
            toks.extend(split_range_text(v))
        else:
            toks.append(v)
    return object_array(toks)


def _infer_kind(obj: np.ndarray) -> str:
    for v in obj:
        if isinstance(v, GeneralizationRange):
            return v.column_type
        if isinstance(v, pd.Interval):
            return "real"
        if is_set_like(v):
            return "unordered"
    return "real" if _all_numbers(obj) else "unordered"

