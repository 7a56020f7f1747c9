"""Generalized cells: the ``GeneralizationRange`` scalar and a pandas extension dtype.

A *generalized* cell replaces a value by a coarser one: a range ``[lo, hi]`` for
``real``/``ordered`` columns or a set ``{a, b}`` for ``unordered`` columns. pdanon keeps such
cells in a dedicated pandas ExtensionDtype, :class:`GeneralizationDtype`, whose array,
:class:`GeneralizationArray`, stores them as numpy arrays (in the spirit of pandas'
``IntervalArray``) so that grouping, sorting, comparing and hashing stay vectorized.

Storage
-------
* ``real`` and numeric ``ordered``: float64 ``lo`` and ``hi`` plus a boolean NA mask; a plain
  (ungeneralized) value has ``lo == hi``.
* ``ordered`` with ``categories`` (e.g. education levels): the same, where ``lo``/``hi`` are
  integer positions in ``categories``.
* ``unordered``: one int64 code per row into a dictionary of distinct cells: codes
  ``0 .. C-1`` are plain values (``categories[code]``), codes ``C ..`` are rows of a boolean
  membership table (one row per *distinct* set of two or more categories, shared between
  views), and ``-1`` is missing. Equal sets have equal codes, so ``factorize``/``groupby`` run
  on integers.

Example
-------
>>> import pandas as pd
>>> from pdanon.dtype import GeneralizationRange
>>> s = pd.Series([39, GeneralizationRange(20, 29, "real"), None], dtype="generalization[real]")
>>> s.tolist()
[39, [20, 29], nan]
"""

from __future__ import annotations

import decimal
import json
import numbers
import re
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import (
    ExtensionArray,
    ExtensionDtype,
    no_default,
    register_extension_dtype,
    take as _pd_take,
)
from pandas.api.indexers import check_array_indexer
from pandas.api.types import is_integer, is_list_like, pandas_dtype

__all__ = ["GeneralizationRange", "GeneralizationDtype", "GeneralizationArray", "KINDS"]

#: The value kinds a generalized column can have.
KINDS = ("real", "ordered", "unordered")

_INT_MAX_EXACT = 2.0**53


# ---------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------


def _fmt_value(v: Any) -> str:
    """Text of one bound or member: integral floats without ``.0``; others as ``str``."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if f.is_integer() and abs(f) < _INT_MAX_EXACT:
            return str(int(f))
        return repr(f)
    return str(v)


def _py(v: Any) -> Any:
    """numpy scalar -> Python scalar (other values unchanged)."""
    if isinstance(v, np.generic):
        return v.item()
    return v


def _is_na(v: Any) -> bool:
    """True for the missing-value markers pandas knows (None, NaN, pd.NA, NaT)."""
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    if isinstance(v, (float, np.floating)):
        return v != v
    if isinstance(v, decimal.Decimal):
        return v.is_nan()
    if isinstance(v, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(v))
    return False


def _as_real(v: Any) -> tuple[float, bool]:
    """A real number as (float, was_an_integer); TypeError for anything else."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"a boolean ({v!r}) is not a real value")
    if isinstance(v, (int, np.integer)):
        return float(v), True
    if isinstance(v, (float, np.floating)):
        return float(v), False
    if isinstance(v, (numbers.Real, decimal.Decimal)):
        return float(v), False
    raise TypeError(f"{v!r} (type {type(v).__name__}) is not a real value")


def _is_number(v: Any) -> bool:
    return isinstance(v, (numbers.Real, decimal.Decimal)) and not isinstance(v, (bool, np.bool_))


def _is_set_like(v: Any) -> bool:
    return isinstance(v, (set, frozenset))


def _object_array(values) -> np.ndarray:
    """Any 1-D sequence -> 1-D object ndarray without numpy broadcasting surprises."""
    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype == object:
        return values
    if isinstance(values, (pd.Series, pd.Index)):
        values = values.array
    if isinstance(values, ExtensionArray):
        return np.asarray(values.astype(object))
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            if values.ndim == 0:
                raise TypeError("a scalar is not a sequence of cells")
            raise ValueError("generalized cells need a 1-dimensional sequence")
        return values.astype(object)
    if not isinstance(values, (list, tuple)):
        values = list(values)
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return out


# ---------------------------------------------------------------------------------------------
# the scalar
# ---------------------------------------------------------------------------------------------

_RANGE_KEY = object()  # private marker: keys of true ranges never equal a plain value


class GeneralizationRange:
    """One generalized cell: a range ``[min, max]`` (real/ordered) or a set (unordered).

    The constructor follows the reference library cp2025:
    ``GeneralizationRange(mn=None, mx=None, column_type='ordered', column_values=None)``.

    * ``'real'`` / ``'ordered'``: ``.min`` and ``.max`` (``mn <= mx`` is checked for numbers;
      if only ``column_values`` is given, its min and max are used).
    * ``'unordered'``: ``.values_set``, a frozenset built from ``column_values``.

    Cells compare equal when they denote the same range/set; a degenerate range ``[5, 5]`` or a
    singleton set ``{a}`` equals (and hashes like) the plain value, because a column stores it
    as that plain value. ``<``, ``<=``, ``>``, ``>=`` compare ``.min`` (meant for disjoint
    ranges, as in the reference); sets have no order. ``x in cell`` tests membership.
    The object is deliberately not iterable, so pandas treats it as a scalar.

    Examples
    --------
    >>> a = GeneralizationRange(1, 4, "real")
    >>> b = GeneralizationRange(5, 6, "real")
    >>> a < b, 3 in a, a
    (True, True, [1, 4])
    >>> GeneralizationRange(column_type="unordered", column_values=["White", "Asian"])
    {Asian, White}
    """

    __slots__ = ("_kind", "min", "max", "values_set")

    def __init__(self, mn=None, mx=None, column_type="ordered", column_values=None):
        if column_type not in KINDS:
            raise ValueError(f"column_type must be one of {KINDS}, got {column_type!r}")
        self._kind = column_type
        if column_type == "unordered":
            if column_values is None:
                if mn is None and mx is None:
                    raise ValueError("an unordered GeneralizationRange needs column_values")
                column_values = [v for v in (mn, mx) if v is not None]
            if isinstance(column_values, (str, bytes)):
                raise TypeError("column_values must be a collection of values, not a string")
            if hasattr(column_values, "tolist") and not isinstance(column_values, (set, frozenset)):
                column_values = column_values.tolist()
            self.values_set = frozenset(_py(v) for v in column_values)
            self.min = None
            self.max = None
            return
        if mn is None and mx is None and column_values is not None:
            vals = [_py(v) for v in (column_values.tolist() if hasattr(column_values, "tolist")
                                     else column_values) if not _is_na(v)]
            if not vals:
                raise ValueError("column_values holds no value")
            mn, mx = min(vals), max(vals)
        if mn is None and mx is None:
            raise ValueError("a real/ordered GeneralizationRange needs mn and/or mx")
        if mn is None:
            mn = mx
        if mx is None:
            mx = mn
        mn, mx = _py(mn), _py(mx)
        if _is_na(mn) or _is_na(mx):
            raise ValueError(f"range bounds must not be missing (got mn={mn!r}, mx={mx!r})")
        # an ordered range's order may come from categories the scalar does not know (e.g. an
        # ordered Categorical with categories [3, 1, 2]): only real ranges are checked here
        if column_type == "real" and _is_number(mn) and _is_number(mx) and mn > mx:
            raise ValueError(f"range minimum {mn!r} is greater than its maximum {mx!r}")
        self.min = mn
        self.max = mx
        self.values_set = None

    # -- attributes ---------------------------------------------------------------------------
    @property
    def kind(self) -> str:
        """'real', 'ordered' or 'unordered'."""
        return self._kind

    @property
    def column_type(self) -> str:
        """Same as :attr:`kind` (the reference library's name)."""
        return self._kind

    @property
    def is_plain(self) -> bool:
        """True when the cell denotes a single value ([x, x] or {x})."""
        if self._kind == "unordered":
            return len(self.values_set) == 1
        return self.min == self.max

    # -- equality / hashing -------------------------------------------------------------------
    def _key(self):
        if self._kind == "unordered":
            if len(self.values_set) == 1:
                return next(iter(self.values_set))
            return self.values_set
        if self.min == self.max:
            return self.min
        return (_RANGE_KEY, self.min, self.max)

    def __eq__(self, other):
        if isinstance(other, GeneralizationRange):
            return self._key() == other._key()
        if isinstance(other, (np.ndarray, ExtensionArray, pd.Series, pd.Index, pd.DataFrame, list)):
            return NotImplemented
        try:
            res = self._key() == other
        except TypeError:
            return False
        return bool(res) if isinstance(res, (bool, np.bool_)) else res

    def __ne__(self, other):
        res = self.__eq__(other)
        if res is NotImplemented:
            return res
        return not res

    def __hash__(self):
        return hash(self._key())

    # -- order ---------------------------------------------------------------------------------
    def _order_operand(self, other):
        if self._kind == "unordered":
            return NotImplemented
        if isinstance(other, GeneralizationRange):
            if other._kind == "unordered":
                return NotImplemented
            return other.min
        if isinstance(other, (numbers.Number, str, bytes, np.generic, decimal.Decimal)):
            return other
        if isinstance(other, (pd.Timestamp, pd.Timedelta)):
            return other
        return NotImplemented

    def __lt__(self, other):
        o = self._order_operand(other)
        return o if o is NotImplemented else bool(self.min < o)

    def __le__(self, other):
        o = self._order_operand(other)
        return o if o is NotImplemented else bool(self.min <= o)

    def __gt__(self, other):
        o = self._order_operand(other)
        return o if o is NotImplemented else bool(self.min > o)

    def __ge__(self, other):
        o = self._order_operand(other)
        return o if o is NotImplemented else bool(self.min >= o)

    # -- membership ----------------------------------------------------------------------------
    def __contains__(self, x) -> bool:
        if _is_na(x):
            return False
        if self._kind == "unordered":
            try:
                return x in self.values_set
            except TypeError:
                return False
        try:
            return bool(self.min <= x <= self.max)
        except TypeError:
            return False

    # -- text ----------------------------------------------------------------------------------
    def __repr__(self) -> str:
        if self._kind == "unordered":
            return "{" + ", ".join(sorted(_fmt_value(v) for v in self.values_set)) + "}"
        return f"[{_fmt_value(self.min)}, {_fmt_value(self.max)}]"

    __str__ = __repr__

    def __reduce__(self):
        if self._kind == "unordered":
            return (GeneralizationRange, (None, None, "unordered", list(self.values_set)))
        return (GeneralizationRange, (self.min, self.max, self._kind))


# ---------------------------------------------------------------------------------------------
# the dtype
# ---------------------------------------------------------------------------------------------

_ALIAS_RE = re.compile(r"^\s*generalization\[\s*(real|ordered|unordered)\s*\]\s*$")


def _merge_orders(orders: list[list]) -> list | None:
    """One order consistent with all the given category orders, or None if they conflict."""
    nodes: list = []
    seen: dict = {}
    succ: dict = {}
    indeg: dict = {}
    for order in orders:
        for v in order:
            if v not in seen:
                seen[v] = len(nodes)
                nodes.append(v)
                succ[v] = set()
                indeg[v] = 0
        for a, b in zip(order[:-1], order[1:]):
            if b not in succ[a]:
                succ[a].add(b)
                indeg[b] += 1
    import heapq

    heap = [(seen[v], v) for v in nodes if indeg[v] == 0]
    heapq.heapify(heap)
    out = []
    while heap:
        _, v = heapq.heappop(heap)
        out.append(v)
        for w in succ[v]:
            indeg[w] -= 1
            if indeg[w] == 0:
                heapq.heappush(heap, (seen[w], w))
    if len(out) != len(nodes):
        return None
    return out


@register_extension_dtype
class GeneralizationDtype(ExtensionDtype):
    """pandas dtype of columns holding plain values, generalized cells and NaN side by side.

    Parameters
    ----------
    kind : {'real', 'ordered', 'unordered'}
        The value kind of the column (available as ``dtype.column_type``; ``dtype.kind`` is the
        numpy kind character ``'O'`` that pandas requires).
    categories : sequence, optional
        ``ordered``: the ordered list of possible values when they are not numbers (e.g.
        education levels); ``None`` means numeric values. ``unordered``: the distinct possible
        values (any hashable type); ``None`` is a not-yet-specified dtype (like
        ``CategoricalDtype(None)``) whose categories are inferred when an array is built.
        ``real``: must be ``None``.

    String aliases: ``"generalization[real]"``, ``"generalization[ordered]"``,
    ``"generalization[unordered]"``. A dtype equals its alias whatever its categories; two
    dtype objects are equal when kind and categories (with their order) are equal.
    The missing value is ``np.nan``.

    Examples
    --------
    >>> GeneralizationDtype("unordered", categories=["Asian", "White"])
    GeneralizationDtype('unordered', categories=['Asian', 'White'])
    >>> GeneralizationDtype("real") == "generalization[real]"
    True
    """

    type = GeneralizationRange
    na_value = np.nan
    _metadata = ("column_type", "categories")

    def __init__(self, kind: str = "real", categories=None):
        if isinstance(kind, GeneralizationDtype):
            categories = kind.categories if categories is None else categories
            kind = kind.column_type
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        if categories is not None:
            if kind == "real":
                raise ValueError("a 'real' generalization dtype takes no categories")
            if isinstance(categories, pd.CategoricalDtype):
                categories = categories.categories
            if not isinstance(categories, pd.Index):
                if isinstance(categories, (list, tuple)):
                    categories = pd.Index(list(categories), tupleize_cols=False)
                else:
                    categories = pd.Index(categories, tupleize_cols=False)
            if isinstance(categories, pd.MultiIndex):
                categories = pd.Index(categories.to_flat_index(), tupleize_cols=False)
            if categories.hasnans:
                raise ValueError("categories must not contain missing values")
            if not categories.is_unique:
                dup = categories[categories.duplicated()].tolist()[:5]
                raise ValueError(f"categories must be unique; duplicated: {dup}")
        self._column_type = kind
        self._categories = categories
        self._hash = None
        self._cat_list_cache = None
        self._cat_pos_cache = None
        self._cat_text_cache = None

    # -- identity ------------------------------------------------------------------------------
    @property
    def column_type(self) -> str:
        """'real', 'ordered' or 'unordered'."""
        return self._column_type

    @property
    def categories(self) -> pd.Index | None:
        """The categories (ordered/unordered), or None."""
        return self._categories

    @property
    def name(self) -> str:
        return f"generalization[{self._column_type}]"

    @property
    def is_numeric_bounds(self) -> bool:
        """True when cells are stored as numeric lo/hi (real, or ordered without categories)."""
        return self._column_type == "real" or (
            self._column_type == "ordered" and self._categories is None
        )

    @property
    def _is_numeric(self) -> bool:
        return False

    @property
    def _is_boolean(self) -> bool:
        return False

    def __repr__(self) -> str:
        if self._categories is None:
            return f"GeneralizationDtype({self._column_type!r})"
        cats = self._cat_list
        shown = ", ".join(repr(c) for c in cats[:10])
        if len(cats) > 10:
            shown += f", ... ({len(cats)} categories)"
        return f"GeneralizationDtype({self._column_type!r}, categories=[{shown}])"

    def __hash__(self) -> int:
        if self._hash is None:
            cats = None if self._categories is None else tuple(self._cat_list)
            self._hash = hash(("pdanon.generalization", self._column_type, cats))
        return self._hash

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            m = _ALIAS_RE.match(other)
            return bool(m) and m.group(1) == self._column_type
        if not isinstance(other, GeneralizationDtype):
            return False
        if self._column_type != other._column_type:
            return False
        a, b = self._categories, other._categories
        if a is None or b is None:
            return a is b
        if a is b:
            return True
        return len(a) == len(b) and a.equals(b) and self._cat_list == other._cat_list

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __getstate__(self):
        return {"kind": self._column_type, "categories": self._categories}

    def __setstate__(self, state):
        self.__init__(state["kind"], state["categories"])

    @classmethod
    def construct_array_type(cls):
        return GeneralizationArray

    @classmethod
    def construct_from_string(cls, string: str):
        if not isinstance(string, str):
            raise TypeError(f"'construct_from_string' expects a string, got {type(string)}")
        m = _ALIAS_RE.match(string)
        if not m:
            raise TypeError(f"Cannot construct a '{cls.__name__}' from '{string}'")
        return cls(m.group(1))

    # -- categories helpers --------------------------------------------------------------------
    @property
    def _cat_list(self) -> list:
        if self._cat_list_cache is None:
            self._cat_list_cache = [] if self._categories is None else [
                _py(c) for c in self._categories.tolist()
            ]
        return self._cat_list_cache

    @property
    def _cat_pos(self) -> dict:
        if self._cat_pos_cache is None:
            self._cat_pos_cache = {c: i for i, c in enumerate(self._cat_list)}
        return self._cat_pos_cache

    @property
    def _cat_text(self) -> dict:
        """text form -> position (for parsing CSV/JSON text)."""
        if self._cat_text_cache is None:
            d: dict = {}
            for i, c in enumerate(self._cat_list):
                d.setdefault(str(c), i)
            for i, c in enumerate(self._cat_list):
                d.setdefault(_fmt_value(c), i)
            self._cat_text_cache = d
        return self._cat_text_cache

    @property
    def _n_categories(self) -> int:
        return 0 if self._categories is None else len(self._categories)

    # -- common dtype (concat) -----------------------------------------------------------------
    def _get_common_dtype(self, dtypes):
        gens = [d for d in dtypes if isinstance(d, GeneralizationDtype)]
        others = [d for d in dtypes if not isinstance(d, GeneralizationDtype)]
        kinds = {d.column_type for d in gens}
        if len(kinds) != 1:
            return None
        kind = kinds.pop()
        if others:
            # plain numbers concatenated with numeric generalized columns stay generalized
            numeric = all(
                isinstance(d, np.dtype) and d.kind in "iuf"
                or (isinstance(d, ExtensionDtype) and d._is_numeric and not d._is_boolean)
                for d in others
            )
            if not (numeric and all(d.is_numeric_bounds for d in gens)):
                return None
        if all(d == gens[0] for d in gens):
            return gens[0]
        cats = [d.categories for d in gens]
        if kind == "real":
            return GeneralizationDtype("real")
        if kind == "ordered":
            if all(c is None for c in cats):
                return GeneralizationDtype("ordered")
            if any(c is None for c in cats):
                return None
            merged = _merge_orders([d._cat_list for d in gens])
            if merged is None:
                return None
            return GeneralizationDtype("ordered", merged)
        # unordered: union of categories in order of appearance
        known = [d for d in gens if d.categories is not None]
        if not known:
            return GeneralizationDtype("unordered")
        seen: dict = {}
        for d in known:
            for c in d._cat_list:
                seen.setdefault(c, None)
        return GeneralizationDtype("unordered", list(seen))

    # -- arrow ---------------------------------------------------------------------------------
    def __from_arrow__(self, array):
        """Build a GeneralizationArray from a pyarrow (Chunked)Array written by pdanon."""
        return _arrow_to_array(self, array)


# ---------------------------------------------------------------------------------------------
# unordered storage: a dictionary of distinct sets
# ---------------------------------------------------------------------------------------------


def _sorted_unique(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values (np.unique without return_* is hash-based and slow in numpy 2.4)."""
    s = np.sort(x, kind="stable")
    if len(s) == 0:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    keep[1:] = s[1:] != s[:-1]
    return s[keep]


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """bool (m, C) -> 1-D void array whose equal entries are equal rows."""
    packed = np.ascontiguousarray(np.packbits(rows, axis=1))
    width = packed.shape[1]
    if width == 0:
        return np.zeros(len(rows), dtype="V1")
    return packed.view(np.dtype((np.void, width))).ravel()


def _unique_rows(rows: np.ndarray):
    """(unique rows in first-appearance order, inverse codes)."""
    if len(rows) == 0:
        return rows.copy(), np.zeros(0, dtype=np.int64)
    keys = _row_keys(rows)
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rows[first[order]], rank[inv.ravel()].astype(np.int64)


class _SetTable:
    """Distinct sets (>= 2 members) of one unordered column family, as bool rows.

    Shared by an array, its views and copies. It only ever grows (rows are appended by
    ``lookup(..., append=True)``), so codes held by any sharer stay valid; rows are unique, so
    two cells of sharers are equal exactly when their codes are equal.
    """

    __slots__ = ("sets", "__weakref__")

    def __init__(self, sets: np.ndarray):
        self.sets = sets

    def lookup(self, rows: np.ndarray, append: bool) -> np.ndarray:
        """Row index of each of ``rows`` in the table (-1 if absent and not appended)."""
        m = len(rows)
        if m == 0:
            return np.zeros(0, dtype=np.int64)
        table = self.sets
        s = len(table)
        if s == 0:
            if not append:
                return np.full(m, -1, dtype=np.int64)
            uniq, inv = _unique_rows(rows)
            self.sets = uniq
            return inv
        keys = np.concatenate([_row_keys(table), _row_keys(rows)])
        _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
        inv = inv.ravel()
        group_code = np.where(first < s, first, -1)
        res = group_code[inv[s:]].astype(np.int64)
        if append:
            missing = res < 0
            if missing.any():
                groups = inv[s:][missing]
                ug, first_pos = np.unique(groups, return_index=True)
                order = np.argsort(first_pos, kind="stable")
                new_codes = np.empty(len(ug), dtype=np.int64)
                new_codes[order] = s + np.arange(len(ug))
                res[missing] = new_codes[np.searchsorted(ug, groups)]
                new_rows = rows[np.flatnonzero(missing)[first_pos[order]]]
                self.sets = np.concatenate([table, new_rows])
        return res


def _sets_from_pairs(n: int, rows: np.ndarray, cats: np.ndarray, n_cat: int):
    """Per-row cells from (row, category) member pairs -> (codes, table rows).

    Rows without any pair are missing (-1); rows with one member are plain codes.
    """
    rows = np.asarray(rows, dtype=np.int64)
    cats = np.asarray(cats, dtype=np.int64)
    codes = np.full(n, -1, dtype=np.int64)
    if len(rows) == 0:
        return codes, np.zeros((0, n_cat), dtype=bool)
    key = _sorted_unique(rows * max(n_cat, 1) + cats)
    rows, cats = key // max(n_cat, 1), key % max(n_cat, 1)
    counts = np.bincount(rows, minlength=n)
    single = counts[rows] == 1
    codes[rows[single]] = cats[single]
    multi_rows = np.flatnonzero(counts >= 2)
    if len(multi_rows) == 0:
        return codes, np.zeros((0, n_cat), dtype=bool)
    local = np.full(n, -1, dtype=np.int64)
    local[multi_rows] = np.arange(len(multi_rows))
    dense = np.zeros((len(multi_rows), n_cat), dtype=bool)
    sel = ~single
    dense[local[rows[sel]], cats[sel]] = True
    uniq, inv = _unique_rows(dense)
    codes[multi_rows] = n_cat + inv
    return codes, uniq


def _csr_members(n_cat: int, table: np.ndarray):
    """CSR (indptr, indices) of the members of every code 0 .. C+S-1."""
    r, c = np.nonzero(table)
    t_indptr = np.concatenate([[0], np.cumsum(np.bincount(r, minlength=len(table)))])
    indptr = np.concatenate([np.arange(n_cat), n_cat + t_indptr]).astype(np.int64)
    indices = np.concatenate([np.arange(n_cat), c]).astype(np.int64)
    return indptr, indices


def _gather_segments(indptr: np.ndarray, indices: np.ndarray, codes: np.ndarray):
    """Concatenate the CSR segments of ``codes`` -> (lengths, flat member codes)."""
    starts = indptr[codes]
    lens = indptr[codes + 1] - starts
    total = int(lens.sum())
    offs = np.concatenate([[0], np.cumsum(lens)])
    pos = np.arange(total, dtype=np.int64) - np.repeat(offs[:-1], lens) + np.repeat(starts, lens)
    return lens, indices[pos]


# ---------------------------------------------------------------------------------------------
# the array
# ---------------------------------------------------------------------------------------------


def _pair_keys(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """One complex128 key per (lo, hi) pair for pandas' hash tables.

    The imaginary part is ``-hi``: pandas hashes a complex number as hash(real) XOR
    hash(imag), so ``lo + 1j*hi`` would give every plain value (lo == hi) the same hash and make
    factorization quadratic.
    """
    return lo - 1j * hi


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


class GeneralizationArray(ExtensionArray):
    """Array of generalized cells (see module docstring for the storage layout).

    Build it with :meth:`from_values` (plain values), :meth:`from_bounds` (real/ordered ranges),
    :meth:`from_membership` (unordered sets), :meth:`from_groups` (one range/set per group of
    rows) or from any sequence of plain values, :class:`GeneralizationRange` cells, Python sets
    and NaN: ``pd.array(cells, dtype="generalization[real]")``.

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
    _integer: bool
    _codes: np.ndarray
    _table: _SetTable

    def __init__(self, values, dtype=None, copy: bool = False):
        arr = type(self)._from_sequence(values, dtype=dtype, copy=copy)
        self.__dict__.update(arr.__dict__)

    # -- raw constructors ----------------------------------------------------------------------
    @classmethod
    def _new_bounds(cls, lo, hi, mask, dtype, integer: bool):
        obj = object.__new__(cls)
        obj._dtype = dtype
        obj._lo = lo
        obj._hi = hi
        obj._mask = mask
        obj._integer = bool(integer)
        return obj

    @classmethod
    def _new_sets(cls, codes, table: _SetTable, dtype):
        obj = object.__new__(cls)
        obj._dtype = dtype
        obj._codes = codes
        obj._table = table
        return obj

    @property
    def _is_sets(self) -> bool:
        return self._dtype._column_type == "unordered"

    def _like(self, *, lo=None, hi=None, mask=None, codes=None, integer=None):
        """A new array of the same dtype (and set table) from new storage arrays."""
        if self._is_sets:
            return self._new_sets(codes, self._table, self._dtype)
        return self._new_bounds(lo, hi, mask, self._dtype,
                                self._integer if integer is None else integer)

    # -- public fast constructors --------------------------------------------------------------
    @classmethod
    def from_bounds(cls, lo, hi, *, kind: str, categories=None, mask=None, integer=None):
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

        Examples
        --------
        >>> GeneralizationArray.from_bounds([1, 5], [4, 5], kind="real").tolist()
        [[1, 4], 5]
        >>> GeneralizationArray.from_bounds([0, 1], [1, 1], kind="ordered",
        ...                                 categories=["low", "mid", "high"]).tolist()
        [[low, mid], 'mid']
        """
        dtype = GeneralizationDtype(kind, categories)
        if kind == "unordered":
            raise ValueError("from_bounds builds real/ordered arrays; use from_membership")
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
        return cls._checked_bounds(lo_f, hi_f, na, dtype, bool(integer))

    @classmethod
    def _checked_bounds(cls, lo, hi, na, dtype, integer):
        lo[na] = np.nan
        hi[na] = np.nan
        valid = ~na
        bad = valid & (lo > hi)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            a, b = lo[i], hi[i]
            if dtype.categories is not None:
                a, b = dtype._cat_list[int(a)], dtype._cat_list[int(b)]
            raise ValueError(f"cell {i}: range minimum {_fmt_value(a)} is greater than its "
                             f"maximum {_fmt_value(b)}")
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
        return cls._new_bounds(lo, hi, na, dtype, integer)

    @classmethod
    def from_membership(cls, membership, categories, *, mask=None):
        """Unordered cells from a boolean membership matrix (rows x categories).

        A row with one member is a plain value, with several a set; a row without members (or
        masked) is missing.

        Examples
        --------
        >>> m = [[True, True, False], [False, False, True]]
        >>> GeneralizationArray.from_membership(m, ["Asian", "Black", "White"]).tolist()
        [{Asian, Black}, 'White']
        """
        dtype = GeneralizationDtype("unordered", categories)
        c = dtype._n_categories
        mem = np.asarray(membership, dtype=bool)
        if mem.ndim != 2 or mem.shape[1] != c:
            raise ValueError(f"membership must have shape (n, {c}), got {mem.shape}")
        n = len(mem)
        counts = mem.sum(axis=1)
        if mask is not None:
            m = np.asarray(mask, dtype=bool)
            if m.shape != (n,):
                raise ValueError("mask must have one entry per row")
            counts = np.where(m, 0, counts)
        codes = np.full(n, -1, dtype=np.int64)
        single = counts == 1
        if c:
            codes[single] = mem[single].argmax(axis=1)
        multi = np.flatnonzero(counts >= 2)
        uniq, inv = _unique_rows(mem[multi])
        codes[multi] = c + inv
        if len(uniq) == 0:
            uniq = np.zeros((0, c), dtype=bool)
        return cls._new_sets(codes, _SetTable(uniq), dtype)

    @classmethod
    def from_values(cls, values, *, kind: str, categories=None):
        """Plain (ungeneralized) cells from values; NaN/None are missing.

        ``values`` may be a numpy array, a list, a Series or a Categorical (whose categories
        are used when ``categories`` is not given; an ordered Categorical gives the order).

        Examples
        --------
        >>> GeneralizationArray.from_values([39, 50, None], kind="real").tolist()
        [39, 50, nan]
        >>> GeneralizationArray.from_values(["a", "b", "a"], kind="unordered").dtype
        GeneralizationDtype('unordered', categories=['a', 'b'])
        """
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        if isinstance(values, GeneralizationArray):
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
                    used = _sorted_unique(src_codes[src_codes >= 0])
                    missing = used[pos[used] < 0]
                    if len(missing):
                        raise ValueError(f"value {cat_src[missing[0]]!r} is not among the "
                                         f"categories of {dtype!r}")
                    src_codes = np.where(src_codes >= 0, pos[np.maximum(src_codes, 0)], -1)
                return cls._from_codes(src_codes, kind, categories)
        if kind == "ordered" and categories is None:
            arr = values if isinstance(values, np.ndarray) else _object_array(values)
            if arr.dtype.kind not in "iuf" and not _all_numbers(arr):
                categories = _infer_categories(arr[~pd.isna(arr)], sort=True)
        if kind == "real" or (kind == "ordered" and categories is None):
            arr = values if isinstance(values, np.ndarray) else None
            if arr is None:
                if isinstance(values, ExtensionArray) and values.dtype.kind in "iuf":
                    integer = values.dtype.kind in "iu"
                    f = values.to_numpy(dtype=np.float64, na_value=np.nan)
                    return cls.from_bounds(f, f, kind=kind, integer=integer)
                arr = _object_array(values)
            if arr.dtype.kind in "iuf":
                f = arr.astype(np.float64)
                return cls.from_bounds(f, f, kind=kind, integer=arr.dtype.kind in "iu")
            if arr.dtype.kind == "b":
                raise TypeError("boolean values are not real values")
            return cls._from_objects(_object_array(arr), GeneralizationDtype(kind), parse=False)
        # categorical codes (ordered with categories, unordered)
        arr = _object_array(values) if not isinstance(values, np.ndarray) else values
        na = pd.isna(arr)
        if categories is None:
            categories = _infer_categories(arr[~na], sort=True)
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
            return cls._new_sets(codes.copy(), _SetTable(np.zeros((0, dtype._n_categories), bool)),
                                 dtype)
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
                gcodes, table = _sets_from_pairs(len(ug), ginv, codes_in[sel], c)
                out[sel] = gcodes[ginv]
            else:
                table = np.zeros((0, c), dtype=bool)
            return cls._new_sets(out, _SetTable(table), dtype)
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
        if isinstance(scalars, GeneralizationArray):
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
        return cls._from_objects(_object_array(scalars), dtype, parse=True)

    @classmethod
    def _from_scalars(cls, scalars, *, dtype):
        # strict: only values this dtype holds as they are (no text parsing, no booleans)
        dtype = _resolve_dtype(dtype)
        return cls._from_objects(_object_array(scalars), dtype, parse=False)

    @classmethod
    def _from_sequence_of_strings(cls, strings, *, dtype, copy: bool = False):
        from pdanon.io import parse_generalized

        dtype = _resolve_dtype(dtype)
        return parse_generalized(strings, dtype.column_type, dtype.categories)

    @classmethod
    def _from_factorized(cls, values, original):
        if original._is_sets:
            vals = np.asarray(values, dtype=object)
            return cls._from_objects(vals, original.dtype, parse=False)
        vals = np.asarray(values, dtype=np.complex128)
        lo = vals.real + 0.0
        hi = -vals.imag + 0.0
        return cls._new_bounds(lo, hi, np.isnan(lo), original.dtype, original._integer)

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
                base = cls._from_objects(_object_array(uniq), dtype, parse)
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
            dtype = GeneralizationDtype("ordered", _infer_categories(
                _range_tokens(obj, parse), sort=True))
        lo = np.full(n, np.nan)
        hi = np.full(n, np.nan)
        na = np.zeros(n, dtype=bool)
        integer = True
        cat = dtype.categories is not None
        pos = dtype._cat_pos if cat else None
        text = dtype._cat_text if cat else None
        for i, v in enumerate(obj):
            if _is_na(v):
                na[i] = True
                continue
            if isinstance(v, GeneralizationRange):
                if v.column_type == "unordered":
                    raise TypeError(f"a set {v!r} cannot be stored in a {dtype.name} column")
                a, b = v.min, v.max
            elif _is_set_like(v):
                raise TypeError(f"a set {v!r} cannot be stored in a {dtype.name} column")
            elif isinstance(v, str) and parse and not (cat and v in pos):
                a, b = _parse_range_text(v, dtype)
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
                    raise ValueError(f"cell {i}: range minimum {_fmt_value(a)} comes after its "
                                     f"maximum {_fmt_value(b)} in the category order")
                lo[i], hi[i] = ia, ib
            else:
                fa, ia_int = _as_real(a)
                fb, ib_int = _as_real(b)
                if not (np.isfinite(fa) and np.isfinite(fb)):
                    raise ValueError(f"cell {i}: bounds must be finite numbers, got {v!r}")
                if fa > fb:
                    raise ValueError(f"cell {i}: range minimum {_fmt_value(a)} is greater "
                                     f"than its maximum {_fmt_value(b)}")
                integer = integer and ia_int and ib_int
                lo[i], hi[i] = fa + 0.0, fb + 0.0
        if cat:
            integer = False
        return cls._new_bounds(lo, hi, na, dtype, integer and not na.all())

    @classmethod
    def _objects_to_sets(cls, obj: np.ndarray, dtype: GeneralizationDtype, parse: bool):
        n = len(obj)
        plain_pos: list[int] = []
        plain_val: list = []
        set_rows: list[int] = []
        set_members: list = []
        cats_known = dtype.categories is not None
        pos = dtype._cat_pos if cats_known else None
        for i, v in enumerate(obj):
            if _is_na(v):
                continue
            if isinstance(v, GeneralizationRange):
                if v.column_type != "unordered":
                    raise TypeError(f"a range {v!r} cannot be stored in an unordered column")
                members = v.values_set
            elif _is_set_like(v):
                members = v
            elif isinstance(v, str) and parse and _looks_like_set(v) and not (
                    cats_known and v in pos):
                members = _split_set_text(v, dtype)
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
                plain_val.append(_py(v))
                continue
            members = [_py(m) for m in members]
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
            dtype = GeneralizationDtype("unordered", _infer_categories(_object_array(list(seen)),
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
            scodes, table = _sets_from_pairs(n, np.array(pr), np.array(pc), c)
            rows = np.asarray(set_rows)
            codes[rows] = scodes[rows]
        else:
            table = np.zeros((0, c), dtype=bool)
        return cls._new_sets(codes, _SetTable(table), dtype)

    @classmethod
    def _empty(cls, shape, dtype):
        n = int(np.prod(shape))
        dtype = _resolve_dtype(dtype)
        if dtype.column_type == "unordered":
            if dtype.categories is None:
                dtype = GeneralizationDtype("unordered", [])
            return cls._new_sets(np.full(n, -1, dtype=np.int64),
                                 _SetTable(np.zeros((0, dtype._n_categories), bool)), dtype)
        return cls._new_bounds(np.full(n, np.nan), np.full(n, np.nan), np.ones(n, bool), dtype,
                               False)

    # -- basic protocol ------------------------------------------------------------------------
    @property
    def dtype(self) -> GeneralizationDtype:
        return self._dtype

    def __len__(self) -> int:
        return len(self._codes) if self._is_sets else len(self._lo)

    @property
    def nbytes(self) -> int:
        if self._is_sets:
            return int(self._codes.nbytes + self._table.sets.nbytes)
        return int(self._lo.nbytes + self._hi.nbytes + self._mask.nbytes)

    def isna(self) -> np.ndarray:
        if self._is_sets:
            return self._codes < 0
        return self._mask.copy()

    @property
    def _hasna(self) -> bool:
        return bool(self.isna().any())

    def copy(self):
        if self._is_sets:
            return self._like(codes=self._codes.copy())
        return self._like(lo=self._lo.copy(), hi=self._hi.copy(), mask=self._mask.copy())

    def _box(self, i: int):
        dtype = self._dtype
        if self._is_sets:
            code = int(self._codes[i])
            if code < 0:
                return np.nan
            c = dtype._n_categories
            if code < c:
                return dtype._cat_list[code]
            members = np.flatnonzero(self._table.sets[code - c])
            cl = dtype._cat_list
            return GeneralizationRange(column_type="unordered",
                                       column_values=[cl[j] for j in members])
        if self._mask[i]:
            return np.nan
        lo, hi = self._lo[i], self._hi[i]
        if dtype.categories is not None:
            cl = dtype._cat_list
            if lo == hi:
                return cl[int(lo)]
            return GeneralizationRange(cl[int(lo)], cl[int(hi)], dtype.column_type)
        if self._integer:
            a, b = int(lo), int(hi)
        else:
            a, b = float(lo), float(hi)
        if lo == hi:
            return a
        return GeneralizationRange(a, b, dtype.column_type)

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
            return self._like(codes=self._codes[key])
        return self._like(lo=self._lo[key], hi=self._hi[key], mask=self._mask[key])

    def __setitem__(self, key, value) -> None:
        if self._readonly:
            raise ValueError("Cannot modify read-only array")
        key = check_array_indexer(self, key)
        scalar = self._is_scalar_value(value)
        vals = self._coerce(value, scalar)
        if self._is_sets:
            new = self._codes_in_own_table(vals)
            self._codes[key] = new[0] if scalar else new
            return
        if scalar:
            self._lo[key] = vals._lo[0]
            self._hi[key] = vals._hi[0]
            self._mask[key] = vals._mask[0]
        else:
            self._lo[key] = vals._lo
            self._hi[key] = vals._hi
            self._mask[key] = vals._mask
        if not vals._mask.all():
            self._integer = self._integer and vals._integer

    def _is_scalar_value(self, value) -> bool:
        if isinstance(value, (GeneralizationRange, str, bytes, set, frozenset)) or _is_na(value):
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
            return type(self)._from_objects(_object_array([value]), self._dtype, parse=False)
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
        if other._table is self._table:
            return other._codes
        c = self._dtype._n_categories
        codes = other._codes.copy()
        is_set = codes >= c
        if is_set.any():
            used = _sorted_unique(codes[is_set] - c)
            mapped = self._table.lookup(other._table.sets[used], append=True)
            remap = np.empty(len(other._table.sets), dtype=np.int64)
            remap[used] = mapped
            codes[is_set] = c + remap[codes[is_set] - c]
        return codes

    def take(self, indices, *, allow_fill: bool = False, fill_value=None):
        idx = np.asarray(indices, dtype=np.intp)
        fill = None
        if allow_fill and fill_value is not None and not _is_na(fill_value):
            fill = self._coerce(fill_value, True)
        if self._is_sets:
            codes = _pd_take(self._codes, idx, allow_fill=allow_fill, fill_value=-1)
            out = self._like(codes=np.asarray(codes, dtype=np.int64))
            if fill is not None:
                out._codes[idx == -1] = self._codes_in_own_table(fill)[0]
            return out
        lo = _pd_take(self._lo, idx, allow_fill=allow_fill, fill_value=np.nan)
        hi = _pd_take(self._hi, idx, allow_fill=allow_fill, fill_value=np.nan)
        mask = _pd_take(self._mask, idx, allow_fill=allow_fill, fill_value=True)
        out = self._like(lo=lo, hi=hi, mask=np.asarray(mask, dtype=bool))
        if fill is not None:
            where = idx == -1
            out._lo[where] = fill._lo[0]
            out._hi[where] = fill._hi[0]
            out._mask[where] = fill._mask[0]
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
            if all(a._table is first._table for a in to_concat):
                return cls._new_sets(np.concatenate([a._codes for a in to_concat]),
                                     first._table, dtype)
            table = _SetTable(first._table.sets)
            proto = cls._new_sets(first._codes[:0], table, dtype)
            codes = [proto._codes_in_own_table(a) for a in to_concat]
            return cls._new_sets(np.concatenate(codes), table, dtype)
        valid = [a for a in to_concat if not a._mask.all()]
        integer = all(a._integer for a in valid) if valid else False
        return cls._new_bounds(np.concatenate([a._lo for a in to_concat]),
                               np.concatenate([a._hi for a in to_concat]),
                               np.concatenate([a._mask for a in to_concat]), dtype, integer)

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
            raise AttributeError("unordered cells have no bounds; use .membership")
        return self._bounds_view(self._lo)

    @property
    def hi(self) -> np.ndarray:
        """Upper bounds, like :attr:`lo`."""
        if self._is_sets:
            raise AttributeError("unordered cells have no bounds; use .membership")
        return self._bounds_view(self._hi)

    @property
    def is_integer(self) -> bool:
        """Whether numeric plain values and bounds are returned as ``int``."""
        return not self._is_sets and self._dtype.categories is None and self._integer

    @property
    def membership(self) -> np.ndarray:
        """Boolean (n, C) matrix: cell i contains categories[j] (all False if missing)."""
        if not self._is_sets:
            raise AttributeError("membership is defined for unordered arrays only")
        n, c = len(self), self._dtype._n_categories
        out = np.zeros((n, c), dtype=bool)
        codes = self._codes
        plain = np.flatnonzero((codes >= 0) & (codes < c))
        out[plain, codes[plain]] = True
        sets = np.flatnonzero(codes >= c)
        if len(sets):
            out[sets] = self._table.sets[codes[sets] - c]
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
            return (self._codes >= 0) & (self._codes < self._dtype._n_categories)
        return ~self._mask & (self._lo == self._hi)

    def contains(self, values) -> np.ndarray:
        """Vectorized truthfulness check: ``values[i]`` lies in cell i (False if missing).

        ``values`` holds plain values (numbers for numeric columns; category values, or a
        Categorical, otherwise).

        Examples
        --------
        >>> arr = pd.array([GeneralizationRange(20, 29, "real"), 40, None],
        ...                dtype="generalization[real]")
        >>> arr.contains([25, 41, 3]).tolist()
        [True, False, False]
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
                return ~self._mask & (self._lo <= v) & (v <= self._hi)
        codes = self._value_codes(values)
        if codes.shape != (n,):
            raise ValueError(f"values must have length {n}")
        ok = codes >= 0
        if self._is_sets:
            c = self._dtype._n_categories
            out = ok & (self._codes == codes)
            sets = np.flatnonzero(ok & (self._codes >= c))
            if len(sets):
                out[sets] = self._table.sets[self._codes[sets] - c, codes[sets]]
            return out
        return ok & ~self._mask & (self._lo <= codes) & (codes <= self._hi)

    def _value_codes(self, values) -> np.ndarray:
        """Category positions of plain values (-1 when missing or not a category)."""
        cats = self._dtype.categories
        if isinstance(values, pd.Categorical):
            pos = cats.get_indexer(values.categories)
            src = values.codes.astype(np.int64)
            return np.where(src >= 0, pos[np.maximum(src, 0)] if len(pos) else -1, -1)
        arr = values if isinstance(values, np.ndarray) else _object_array(values)
        if arr.dtype == object:
            return cats.get_indexer(pd.Index(arr, tupleize_cols=False)).astype(np.int64)
        return cats.get_indexer(arr).astype(np.int64)

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
                                        dtype, self._integer)
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
                return type(self)._checked_bounds(lo, hi, self._mask.copy(), dtype, False)
        return type(self)._from_objects(self._to_object(), dtype, parse=False)

    def _remap_sets(self, dtype: GeneralizationDtype):
        src = self._dtype
        c_old = src._n_categories
        c_new = dtype._n_categories
        pos = dtype.categories.get_indexer(src.categories).astype(np.int64)
        codes = self._codes
        used_plain = _sorted_unique(codes[(codes >= 0) & (codes < c_old)])
        used_sets = _sorted_unique(codes[codes >= c_old]) - c_old
        need = np.zeros(c_old, dtype=bool)
        need[used_plain] = True
        if len(used_sets):
            need |= self._table.sets[used_sets].any(axis=0)
        missing = np.flatnonzero(need & (pos < 0))
        if len(missing):
            raise ValueError(f"value {src._cat_list[missing[0]]!r} is not among the categories "
                             f"of {dtype!r}")
        keep = pos >= 0
        table = np.zeros((len(self._table.sets), c_new), dtype=bool)
        table[:, pos[keep]] = self._table.sets[:, keep]
        new = np.full(len(codes), -1, dtype=np.int64)
        plain = (codes >= 0) & (codes < c_old)
        new[plain] = pos[codes[plain]]
        sets = codes >= c_old
        new[sets] = c_new + (codes[sets] - c_old)
        return self._new_sets(new, _SetTable(table), dtype)

    def _formatter(self, boxed: bool = False):
        if boxed:
            return str
        return repr

    def _values_for_json(self) -> np.ndarray:
        return self.to_text(na_rep=None)

    def __arrow_array__(self, type=None):
        return _array_to_arrow(self)

    # -- keys for sorting / grouping / hashing -------------------------------------------------
    def _set_intrinsic_keys(self) -> tuple[np.ndarray, list]:
        """(codes used, their member tuples) for an unordered array."""
        c = self._dtype._n_categories
        used = _sorted_unique(self._codes[self._codes >= 0])
        tuples = []
        for code in used:
            if code < c:
                tuples.append((int(code),))
            else:
                tuples.append(tuple(np.flatnonzero(self._table.sets[code - c]).tolist()))
        return used, tuples

    def _values_for_argsort(self) -> np.ndarray:
        """Float dense ranks (NaN for missing): ranges by (lo, hi); sets lexicographically by
        the positions of their members in ``categories`` (a plain value is a 1-member set)."""
        n = len(self)
        out = np.full(n, np.nan)
        if self._is_sets:
            used, tuples = self._set_intrinsic_keys()
            if not len(used):
                return out
            order = sorted(range(len(used)), key=tuples.__getitem__)
            rank_of = np.empty(len(used), dtype=np.float64)
            rank_of[order] = np.arange(len(used))
            valid = self._codes >= 0
            out[valid] = rank_of[np.searchsorted(used, self._codes[valid])]
            return out
        valid = np.flatnonzero(~self._mask)
        if not len(valid):
            return out
        lo, hi = self._lo[valid], self._hi[valid]
        order = np.lexsort((hi, lo))
        ls, hs = lo[order], hi[order]
        new = np.ones(len(order), dtype=bool)
        new[1:] = (ls[1:] != ls[:-1]) | (hs[1:] != hs[:-1])
        ranks = np.empty(len(order))
        ranks[order] = np.cumsum(new) - 1
        out[valid] = ranks
        return out

    def _factor_keys(self) -> np.ndarray:
        """Per-row hashable numeric key: equal cells <=> equal keys (NaN-like for missing)."""
        if self._is_sets:
            return self._codes
        return _pair_keys(self._lo, self._hi)

    def _factorize_positions(self):
        """(code per row, -1 if missing; first row of each distinct cell), first-seen order."""
        na = self.isna()
        keys = self._factor_keys()
        valid_pos = np.flatnonzero(~na)
        sub_codes, uniq = pd.factorize(keys[valid_pos])
        first = np.empty(len(uniq), dtype=np.intp)
        first[sub_codes[::-1]] = valid_pos[::-1]
        codes = np.full(len(self), -1, dtype=np.intp)
        codes[valid_pos] = sub_codes
        return codes, first

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
            vals = self._to_object()
            out = np.empty(len(vals), dtype=object)
            for i, v in enumerate(vals):
                out[i] = v.values_set if isinstance(v, GeneralizationRange) else v
            return out, np.nan
        keys = _pair_keys(self._lo, self._hi)
        return keys, complex(np.nan, np.nan)

    def _hash_pandas_object(self, *, encoding: str, hash_key: str, categorize: bool):
        from pandas.util import hash_array

        if not self._is_sets:
            if self._dtype.categories is not None:
                # hash category values, so equal cells hash alike whatever the category order
                cat_h = hash_array(np.asarray(self._dtype._cat_list, dtype=object),
                                   encoding=encoding, hash_key=hash_key, categorize=False)
                lo = np.where(self._mask, 0, np.nan_to_num(self._lo)).astype(np.int64)
                hi = np.where(self._mask, 0, np.nan_to_num(self._hi)).astype(np.int64)
                h = cat_h[lo] * np.uint64(31) + cat_h[hi]
                h[self._mask] = np.uint64(0x9E3779B97F4A7C15)
                return h
            return hash_array(_pair_keys(self._lo, self._hi), encoding=encoding, hash_key=hash_key,
                              categorize=categorize)
        c = self._dtype._n_categories
        out = np.full(len(self), np.uint64(0x9E3779B97F4A7C15), dtype=np.uint64)
        if c == 0:
            return out
        cat_h = hash_array(_object_array(self._dtype._cat_list), encoding=encoding,
                           hash_key=hash_key, categorize=False)
        codes = self._codes
        plain = (codes >= 0) & (codes < c)
        out[plain] = cat_h[codes[plain]]
        sets = codes >= c
        if sets.any():
            with np.errstate(over="ignore"):
                mixed = cat_h * np.uint64(0xBF58476D1CE4E5B9) + np.uint64(0x94D049BB133111EB)
                used, inv = np.unique(codes[sets], return_inverse=True)
                rows = self._table.sets[used - c]
                set_h = np.zeros(len(used), dtype=np.uint64)
                for j in range(c):  # loop over categories, vectorized over sets
                    col = rows[:, j]
                    if col.any():
                        set_h[col] += mixed[j]
                set_h ^= set_h >> np.uint64(31)
                set_h *= np.uint64(0x94D049BB133111EB)
            out[sets] = set_h[inv.ravel()]
        return out

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
                return np.array([bool(v == other) if not _is_na(v) else False for v in obj],
                                dtype=bool)
            oth = _object_array(other)
            return np.array([(not _is_na(a)) and bool(a == b) for a, b in zip(obj, oth)],
                            dtype=bool)
        me = self
        if arr.dtype != self._dtype:
            me = self.astype(arr.dtype)
        if me._is_sets:
            a = me._codes
            b = me._codes_lookup(arr)
            return (a >= 0) & (a == b)
        res = ~me._mask & ~arr._mask & (me._lo == arr._lo) & (me._hi == arr._hi)
        return np.broadcast_to(res, (n,)).copy()

    def _codes_lookup(self, other: GeneralizationArray) -> np.ndarray:
        """other's codes in self's table without appending (-2 for sets self never saw)."""
        if other._table is self._table:
            return other._codes
        c = self._dtype._n_categories
        codes = other._codes.copy()
        is_set = codes >= c
        if is_set.any():
            used = _sorted_unique(codes[is_set] - c)
            mapped = self._table.lookup(other._table.sets[used], append=False)
            remap = np.full(len(other._table.sets), -2, dtype=np.int64)
            remap[used] = np.where(mapped >= 0, c + mapped, -2)
            codes[is_set] = remap[codes[is_set] - c]
        return codes

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

    def __lt__(self, other):
        if self._defer(other):
            return NotImplemented
        return self._order_cmp(other, np.less)

    def __le__(self, other):
        if self._defer(other):
            return NotImplemented
        return self._order_cmp(other, np.less_equal)

    def __gt__(self, other):
        if self._defer(other):
            return NotImplemented
        return self._order_cmp(other, np.greater)

    def __ge__(self, other):
        if self._defer(other):
            return NotImplemented
        return self._order_cmp(other, np.greater_equal)

    __hash__ = None  # mutable

    def __iter__(self):
        return iter(self._to_object())

    def tolist(self) -> list:
        return list(self._to_object())

    def __repr__(self) -> str:
        return super().__repr__()


# ---------------------------------------------------------------------------------------------
# inference and text helpers shared with pdanon.io
# ---------------------------------------------------------------------------------------------


def _all_numbers(obj: np.ndarray, parse: bool = False) -> bool:
    """True when every non-missing cell/bound is a number (strings count if they parse)."""
    for v in obj:
        if _is_na(v):
            continue
        if isinstance(v, GeneralizationRange):
            if v.column_type == "unordered" or not (_is_number(v.min) and _is_number(v.max)):
                return False
        elif isinstance(v, str):
            if not parse:
                return False
            try:
                a, b = _split_range_text(v)
                float(a)
                float(b)
            except (ValueError, TypeError):
                return False
        elif not _is_number(v):
            return False
    return True


def _range_tokens(obj: np.ndarray, parse: bool) -> np.ndarray:
    """All plain values and range bounds of an object array (for category inference)."""
    toks = []
    for v in obj:
        if _is_na(v):
            continue
        if isinstance(v, GeneralizationRange):
            toks.extend([v.min, v.max])
        elif isinstance(v, str) and parse and _looks_like_range(v):
            toks.extend(_split_range_text(v))
        else:
            toks.append(v)
    return _object_array(toks)


def _infer_kind(obj: np.ndarray) -> str:
    for v in obj:
        if isinstance(v, GeneralizationRange):
            return v.column_type
        if _is_set_like(v):
            return "unordered"
    return "real" if _all_numbers(obj) else "unordered"


def _infer_categories(values: np.ndarray, sort: bool) -> pd.Index:
    """Distinct values as an Index (sorted when the values are sortable)."""
    if len(values) == 0:
        return pd.Index([], dtype=object)
    arr = values if isinstance(values, np.ndarray) else _object_array(values)
    if arr.dtype == object:
        idx = pd.Index(arr, tupleize_cols=False)
    else:
        idx = pd.Index(arr)
    uniq = idx.unique()
    if sort:
        try:
            uniq = uniq.sort_values()
        except TypeError:
            pass
    return uniq


def _looks_like_range(s: str) -> bool:
    s = s.strip()
    return len(s) >= 2 and s[0] == "[" and s[-1] == "]"


def _looks_like_set(s: str) -> bool:
    s = s.strip()
    return len(s) >= 2 and s[0] == "{" and s[-1] == "}"


def _split_range_text(s: str, dtype: GeneralizationDtype | None = None) -> tuple[str, str]:
    """'[a, b]' -> ('a', 'b'); a plain text 'x' -> ('x', 'x')."""
    t = s.strip()
    if not _looks_like_range(t):
        return t, t
    inner = t[1:-1]
    if dtype is not None and dtype.categories is not None:
        text = dtype._cat_text
        # split at the ', ' that leaves known categories on both sides
        start = 0
        while True:
            k = inner.find(", ", start)
            if k < 0:
                break
            a, b = inner[:k], inner[k + 2:]
            if (a in text or a in dtype._cat_pos) and (b in text or b in dtype._cat_pos):
                return a, b
            start = k + 1
    parts = inner.split(",")
    if len(parts) != 2:
        raise ValueError(f"cannot parse range {s!r}: expected '[min, max]'")
    return parts[0].strip(), parts[1].strip()


def _parse_range_text(s: str, dtype: GeneralizationDtype):
    """Text of a real/ordered cell -> (lo, hi) as numbers or category values."""
    a, b = _split_range_text(s, dtype)
    if dtype.categories is not None:
        return a, b
    return _parse_number(a, s), _parse_number(b, s)


def _parse_number(tok: str, whole: str):
    try:
        return int(tok)
    except ValueError:
        pass
    try:
        return float(tok)
    except ValueError:
        raise ValueError(f"cannot parse {whole!r} as a number or range") from None


def _split_set_text(s: str, dtype: GeneralizationDtype) -> list:
    """'{a, b}' -> ['a', 'b'] (uses the categories to re-join members holding ', ')."""
    inner = s.strip()[1:-1]
    if not inner.strip():
        return []
    if dtype.categories is not None:
        text = dtype._cat_text
        pos = dtype._cat_pos
        parts = inner.split(", ")
        out = []
        cur = None
        for p in parts:
            cur = p if cur is None else cur + ", " + p
            if cur in pos or cur in text:
                out.append(cur)
                cur = None
        if cur is None:
            return out
        # fall back to a tolerant split (e.g. '{a,b}')
    return [p.strip() for p in inner.split(",")]


# ---------------------------------------------------------------------------------------------
# Arrow / Parquet
# ---------------------------------------------------------------------------------------------

_ARROW_NAME = "pdanon.generalization"


def _categories_to_json(dtype: GeneralizationDtype):
    if dtype.categories is None:
        return None, None
    cl = dtype._cat_list
    if all(isinstance(c, str) for c in cl):
        return cl, "str"
    if all(isinstance(c, bool) for c in cl):
        return cl, "bool"
    if all(isinstance(c, int) and not isinstance(c, bool) for c in cl):
        return cl, "int"
    if all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in cl):
        return [float(c) for c in cl], "float"
    raise TypeError(
        f"categories of {dtype!r} mix types or use a type pdanon cannot store in Parquet "
        "(str, int, float or bool); convert them first, e.g. with .astype(str)")


def _categories_from_json(values, ctype):
    if values is None:
        return None
    if ctype == "float":
        return pd.Index(np.asarray(values, dtype=np.float64))
    if ctype == "int":
        return pd.Index(np.asarray(values, dtype=np.int64))
    if ctype == "bool":
        return pd.Index(np.asarray(values, dtype=bool), dtype=object)
    return pd.Index(values, dtype=object)


try:  # pyarrow is a dependency of pdanon (and already imported by pandas)
    import pyarrow as _pa
except ImportError:  # pragma: no cover
    _pa = None


if _pa is not None:

    class GeneralizationArrowType(_pa.ExtensionType):
        """Arrow extension type of generalized columns (name ``pdanon.generalization``).

        Storage: ``struct<lo, hi>`` of numbers (real / numeric ordered) or of category values
        (ordered with categories), ``list<value>`` of members (unordered). Kind and categories
        travel in the extension metadata, so ``pd.read_parquet`` restores the exact dtype once
        pdanon is imported; other readers see the plain storage.
        """

        def __init__(self, storage_type, kind: str, categories=None, categories_type=None):
            self._kind = kind
            self._categories = None if categories is None else list(categories)
            self._categories_type = categories_type
            super().__init__(storage_type, _ARROW_NAME)

        def __arrow_ext_serialize__(self) -> bytes:
            return json.dumps({"kind": self._kind, "categories": self._categories,
                               "categories_type": self._categories_type},
                              sort_keys=True).encode()

        @classmethod
        def __arrow_ext_deserialize__(cls, storage_type, serialized):
            meta = json.loads(serialized.decode())
            return cls(storage_type, meta["kind"], meta.get("categories"),
                       meta.get("categories_type"))

        def __reduce__(self):
            return (GeneralizationArrowType, (self.storage_type, self._kind, self._categories,
                                              self._categories_type))

        def __hash__(self):
            return hash((_ARROW_NAME, str(self.storage_type), self.__arrow_ext_serialize__()))

        def to_pandas_dtype(self):
            return GeneralizationDtype(self._kind, _categories_from_json(self._categories,
                                                                         self._categories_type))

    try:
        _pa.register_extension_type(GeneralizationArrowType(
            _pa.struct([("lo", _pa.float64()), ("hi", _pa.float64())]), "real"))
    except _pa.ArrowKeyError:  # already registered (module reloaded)
        pass


def _array_to_arrow(arr: GeneralizationArray):
    import pyarrow as pa

    dtype = arr.dtype
    cats_json, ctype = _categories_to_json(dtype)
    na = arr.isna()
    mask = pa.array(na, type=pa.bool_())
    if dtype.is_numeric_bounds:
        if arr._integer:
            lo = np.where(na, 0, np.nan_to_num(arr._lo)).astype(np.int64)
            hi = np.where(na, 0, np.nan_to_num(arr._hi)).astype(np.int64)
            typ = pa.int64()
        else:
            lo, hi = np.nan_to_num(arr._lo), np.nan_to_num(arr._hi)
            typ = pa.float64()
        storage = pa.StructArray.from_arrays([pa.array(lo, typ), pa.array(hi, typ)],
                                             names=["lo", "hi"], mask=mask)
    elif dtype.column_type == "ordered":
        cats = pa.array(cats_json)
        lo = np.where(na, 0, np.nan_to_num(arr._lo)).astype(np.int64)
        hi = np.where(na, 0, np.nan_to_num(arr._hi)).astype(np.int64)
        if len(cats_json) == 0:
            storage = pa.StructArray.from_arrays(
                [pa.nulls(len(arr), pa.string()), pa.nulls(len(arr), pa.string())],
                names=["lo", "hi"], mask=mask)
        else:
            storage = pa.StructArray.from_arrays([cats.take(pa.array(lo)), cats.take(pa.array(hi))],
                                                 names=["lo", "hi"], mask=mask)
    else:
        cats = pa.array(cats_json) if cats_json else pa.array([], pa.string())
        indptr, indices = _csr_members(dtype._n_categories, arr._table.sets)
        codes = arr._codes
        lens = np.zeros(len(codes), dtype=np.int64)
        flat = np.zeros(0, dtype=np.int64)
        if (~na).any():
            lens[~na], flat = _gather_segments(indptr, indices, codes[~na])
        offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
        values = cats.take(pa.array(flat, pa.int64())) if len(flat) else pa.array([], cats.type)
        storage = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), values, mask=mask)
    typ = GeneralizationArrowType(storage.type, dtype.column_type, cats_json, ctype)
    return pa.ExtensionArray.from_storage(typ, storage)


def _arrow_to_array(dtype: GeneralizationDtype, data) -> GeneralizationArray:
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = data.chunks if isinstance(data, pa.ChunkedArray) else [data]
    parts = []
    for chunk in chunks:
        ext_dtype = dtype
        if isinstance(chunk.type, pa.BaseExtensionType):
            if dtype.categories is None and isinstance(chunk.type, GeneralizationArrowType):
                ext_dtype = chunk.type.to_pandas_dtype()
            chunk = chunk.storage
        parts.append(_storage_to_array(ext_dtype, chunk, pa, pc))
    if not parts:
        return GeneralizationArray._empty((0,), dtype if dtype.column_type != "unordered"
                                          or dtype.categories is not None
                                          else GeneralizationDtype("unordered", []))
    return GeneralizationArray._concat_same_type(parts)


def _storage_to_array(dtype, storage, pa, pc) -> GeneralizationArray:
    n = len(storage)
    na = storage.is_null().to_numpy(zero_copy_only=False).astype(bool)
    if dtype.column_type != "unordered":
        lo_f, hi_f = storage.flatten()
        numeric = pa.types.is_integer(lo_f.type) or pa.types.is_floating(lo_f.type)
        if dtype.categories is None and numeric:
            integer = pa.types.is_integer(lo_f.type)
            lo = lo_f.fill_null(0).to_numpy(zero_copy_only=False).astype(np.float64)
            hi = hi_f.fill_null(0).to_numpy(zero_copy_only=False).astype(np.float64)
            return GeneralizationArray.from_bounds(lo, hi, kind=dtype.column_type, mask=na,
                                                   integer=integer)
        lo_i, lo_d = _dict_encode(lo_f, pc)
        hi_i, hi_d = _dict_encode(hi_f, pc)
        if dtype.categories is None:
            dtype = GeneralizationDtype(dtype.column_type, _infer_categories(
                np.concatenate([lo_d, hi_d]), sort=True))
        cats = dtype.categories
        lo = np.where(na, -1, _codes_via_dict(cats, lo_i, lo_d))
        hi = np.where(na, -1, _codes_via_dict(cats, hi_i, hi_d))
        if ((lo < 0) & ~na).any() or ((hi < 0) & ~na).any():
            raise ValueError("Parquet column holds missing bounds in non-missing cells")
        return GeneralizationArray.from_bounds(lo, hi, kind=dtype.column_type,
                                               categories=cats, mask=na)
    values = pc.list_flatten(storage)
    parents = pc.list_parent_indices(storage).to_numpy(zero_copy_only=False)
    vidx, vdict = _dict_encode(values, pc)
    if dtype.categories is None:
        dtype = GeneralizationDtype("unordered", _infer_categories(vdict, sort=True))
    codes = _codes_via_dict(dtype.categories, vidx, vdict)
    keep = ~na[parents] if len(parents) else np.zeros(0, bool)
    cell_codes, table = _sets_from_pairs(n, parents[keep], codes[keep], dtype._n_categories)
    return GeneralizationArray._new_sets(cell_codes, _SetTable(table), dtype)


def _dict_encode(values, pc):
    """Arrow array -> (int64 indices (-1 for null), object ndarray of distinct values)."""
    enc = pc.dictionary_encode(values)
    idx = enc.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    dct = np.asarray(enc.dictionary.to_numpy(zero_copy_only=False), dtype=object)
    return idx, dct


def _codes_via_dict(categories: pd.Index, idx: np.ndarray, dct: np.ndarray) -> np.ndarray:
    pos = categories.get_indexer(pd.Index(dct, tupleize_cols=False)) if len(dct) else \
        np.zeros(0, np.int64)
    if (pos < 0).any():
        raise ValueError(f"Parquet column holds values missing from its categories: "
                         f"{dct[pos < 0][:5].tolist()}")
    out = np.full(len(idx), -1, dtype=np.int64)
    ok = idx >= 0
    out[ok] = pos[idx[ok]]
    return out
