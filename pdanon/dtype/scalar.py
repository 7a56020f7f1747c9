"""The scalar of generalized cells: :class:`GeneralizationRange`.

>>> GeneralizationRange(20, 29, "real"), GeneralizationRange.interval(30, 35, closed="left")
([20, 29], [30, 35))
"""

from __future__ import annotations

import decimal
import numbers

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray

from pdanon._errors import KindError
from pdanon.dtype._common import (
    KINDS,
    OPEN_HI,
    OPEN_LO,
    OR_MISSING,
    OR_MISSING_TEXT,
    brackets,
    calendar_label,
    category_position,
    closed_flags,
    closed_name,
    dates_in_order,
    format_value,
    is_missing,
    is_number,
    object_array,
    python_scalar,
)

__all__ = ["GeneralizationRange"]


_RANGE_KEY = object()  # private marker: keys of true ranges never equal a plain value


class GeneralizationRange:
    """One generalized cell: a range ``[min, max]`` (real/ordered) or a set (unordered).

    The constructor follows the reference library cp2025:
    ``GeneralizationRange(mn=None, mx=None, column_type='ordered', column_values=None)``, plus
    :meth:`interval` for ranges with an open end.

    * ``'real'`` / ``'ordered'``: ``.min`` and ``.max`` (``mn <= mx`` is checked for numbers;
      if only ``column_values`` is given, its min and max are used). The range holds both
      bounds; :meth:`GeneralizationRange.interval` builds one that does not, as for
      :class:`pandas.Interval`: ``closed="left"`` (``[a, b)``), ``"right"`` (``(a, b]``) or
      ``"neither"`` (``(a, b)``). A range with an open end needs ``mn < mx``.
    * ``'ordered'`` with ``column_values`` that are not all numbers (the reference ignores
      them for ordered cells): they are the column's values **in their order** (its
      categories), which the cell keeps (a :class:`pandas.Index` by reference, without a
      copy). ``mn`` and ``mx`` must be among them, ``mn`` not after ``mx``; without bounds the
      range runs from the first value to the last. Cells taken from a column
      (``series.iloc[i]``, ``arr[i]``, ``tolist()``, iteration, ``to_numpy(dtype=object)``)
      carry their dtype's categories this way.
    * ``'unordered'``: ``.values_set``, a frozenset built from ``column_values``.

    Cells compare equal when they denote the same range/set: ``[30, 35)`` differs from
    ``[30, 35]``. A degenerate range ``[5, 5]`` or a singleton set ``{a}`` equals (and hashes
    like) the plain value, because a column stores it as that plain value. ``<``, ``<=``,
    ``>``, ``>=`` compare ``.min`` (meant for disjoint ranges, as in the reference); sets have
    no order. The object is deliberately not iterable, so pandas treats it as a scalar.

    ``x in cell`` answers as :meth:`GeneralizationArray.contains` does for the cell's column:
    numbers by value (honouring open ends), an ordered cell that knows its categories by the
    position of ``x`` among them (a value that is not a category is in no range), a set by
    membership; a missing ``x`` (None, NaN, pd.NA, NaT) is only in a cell that covers missing.

    A cell may also cover a missing value (:attr:`or_missing`, built with
    :meth:`with_missing`): "a value in this range or set, or missing", what local recoding
    publishes for a class that mixes present and missing cells. Its text is the cell's text
    followed by ``" or missing"`` (``[20, 29] or missing``, ``{a, b} or missing``,
    ``5 or missing``); it differs from the same cell without the flag. An ordered cell whose
    bounds are not numbers and that knows no categories (built by hand without
    ``column_values``) cannot answer: it raises :class:`pdanon.KindError`.

    Examples
    --------
    >>> a = GeneralizationRange(1, 4, "real")
    >>> b = GeneralizationRange(5, 6, "real")
    >>> a < b, 3 in a, a
    (True, True, [1, 4])
    >>> h = GeneralizationRange.interval(30, 35, closed="left")
    >>> h, 30 in h, 35 in h, h == GeneralizationRange(30, 35, "real")
    ([30, 35), True, False, False)
    >>> GeneralizationRange(column_type="unordered", column_values=["White", "Asian"])
    {Asian, White}
    >>> m = GeneralizationRange(20, 25, "real").with_missing()
    >>> m, m.or_missing, None in m, 22 in m, m == GeneralizationRange(20, 25, "real")
    ([20, 25] or missing, True, True, True, False)

    An ordered cell reads ``x`` against the order of its column's values:

    >>> order = ["Preschool", "HS-grad", "Some-college", "Assoc-voc", "Bachelors", "Masters"]
    >>> edu = GeneralizationRange("Some-college", "Assoc-voc", "ordered", order)
    >>> "Some-college" in edu, "Assoc-voc" in edu, "Bachelors" in edu, "PhD" in edu
    (True, True, False, False)
    >>> import pandas as pd
    >>> from pdanon.dtype import GeneralizationDtype
    >>> col = pd.Series(pd.array(["HS-grad", edu], dtype=GeneralizationDtype("ordered", order)))
    >>> "Some-college" in col.iloc[1], col.array.contains(["HS-grad", "Some-college"]).tolist()
    (True, [True, True])
    >>> "Some-college" in GeneralizationRange("Some-college", "Assoc-voc", "ordered")
    Traceback (most recent call last):
    ...
    pdanon._errors.KindError: cannot tell whether 'Some-college' is in [Some-college, ...
    """

    # _cats: the categories (a pandas Index, shared, never copied) of an ordered cell, whose
    # bounds are then at positions _plo, _phi in it; of a set cell taken from a column (so
    # that ``in`` looks values up as the column does); None otherwise.
    __slots__ = ("_kind", "_open", "min", "max", "values_set", "_cats", "_plo", "_phi")

    def __init__(self, mn=None, mx=None, column_type="ordered", column_values=None):
        # the reference's signature, kept as is; open ends come from :meth:`interval`
        if column_type not in KINDS:
            raise ValueError(f"column_type must be one of {KINDS}, got {column_type!r}")
        self._kind = column_type
        self._open = 0
        self._cats = self._plo = self._phi = None
        if column_type == "unordered":
            if column_values is None:
                if mn is None and mx is None:
                    raise ValueError("an unordered GeneralizationRange needs column_values")
                column_values = [v for v in (mn, mx) if v is not None]
            if isinstance(column_values, (str, bytes)):
                raise TypeError("column_values must be a collection of values, not a string")
            if hasattr(column_values, "tolist") and not isinstance(column_values, (set, frozenset)):
                column_values = column_values.tolist()
            self.values_set = frozenset(python_scalar(v) for v in column_values)
            self.min = None
            self.max = None
            return
        if column_type == "ordered" and column_values is not None:
            cats = _order_index(column_values)
            if cats is not None:  # not numbers: the column's values in their order
                self._set_order(mn, mx, cats)
                return
        if mn is None and mx is None and column_values is not None:
            vals = _present(column_values)
            if not vals:
                raise ValueError("column_values holds no value")
            mn, mx = min(vals), max(vals)
        if mn is None and mx is None:
            raise ValueError("a real/ordered GeneralizationRange needs mn and/or mx")
        if mn is None:
            mn = mx
        if mx is None:
            mx = mn
        mn, mx = python_scalar(mn), python_scalar(mx)
        if is_missing(mn) or is_missing(mx):
            raise ValueError(f"range bounds must not be missing (got mn={mn!r}, mx={mx!r})")
        # an ordered range's order may come from categories the scalar does not know (e.g. an
        # ordered Categorical with categories [3, 1, 2]): only real ranges are checked here
        if column_type == "real" and is_number(mn) and is_number(mx) and mn > mx:
            raise ValueError(f"range minimum {mn!r} is greater than its maximum {mx!r}")
        self.min = mn
        self.max = mx
        self.values_set = None

    def _set_order(self, mn, mx, cats: pd.Index) -> None:
        """An ordered range ``mn..mx`` read against ``cats`` (the column's values in order)."""
        if len(cats) == 0:
            raise ValueError("column_values holds no value")
        if mn is None and mx is None:
            plo, phi = 0, len(cats) - 1
            mn, mx = python_scalar(cats[plo]), python_scalar(cats[phi])
        else:
            mn = python_scalar(mx if mn is None else mn)
            mx = python_scalar(mn if mx is None else mx)
            if is_missing(mn) or is_missing(mx):
                raise ValueError(f"range bounds must not be missing (got mn={mn!r}, mx={mx!r})")
            plo, phi = category_position(cats, mn), category_position(cats, mx)
            for bound, pos in ((mn, plo), (mx, phi)):
                if pos < 0:
                    raise ValueError(f"range bound {bound!r} is not among column_values (the "
                                     f"ordered values of the column)")
            if plo > phi:
                raise ValueError(f"range minimum {mn!r} comes after its maximum {mx!r} in the "
                                 f"order of column_values")
        self.min, self.max, self.values_set = mn, mx, None
        self._cats, self._plo, self._phi = cats, plo, phi

    @classmethod
    def _raw(cls, kind: str, mn, mx, open_: int = 0, values_set=None, cats=None, plo=None,
             phi=None):
        """A cell from its slots, for the array's cells (already checked there): a range
        ``mn..mx`` (``cats[plo]..cats[phi]`` when ``cats``, the dtype's shared Index, is given)
        or a set ``values_set`` (a frozenset of Python values) out of ``cats``."""
        cell = object.__new__(cls)
        cell._kind = kind
        cell._open = open_
        cell.min = mn
        cell.max = mx
        cell.values_set = values_set
        cell._cats = cats
        cell._plo = plo
        cell._phi = phi
        return cell

    @classmethod
    def interval(cls, mn, mx, column_type="real", *, closed="both"):
        """A range that says which of its bounds belong to it, as :class:`pandas.Interval`
        does: ``closed`` is ``"both"`` (``[mn, mx]``), ``"left"`` (``[mn, mx)``), ``"right"``
        (``(mn, mx]``) or ``"neither"`` (``(mn, mx)``). An open end needs ``mn < mx``.

        >>> GeneralizationRange.interval(30, 35, closed="left")
        [30, 35)
        """
        if column_type == "unordered":
            raise ValueError("a set has no ends: use GeneralizationRange(column_type="
                             "'unordered', column_values=...)")
        cell = cls(mn, mx, column_type)
        flags = closed_flags(closed)
        if flags and _same(cell.min, cell.max):
            lb, rb = brackets(flags)
            raise ValueError(f"the range {lb}{format_value(mn)}, {format_value(mx)}{rb} is empty: "
                             f"a range with an open end needs mn < mx")
        cell._open = flags
        return cell

    def with_missing(self) -> GeneralizationRange:
        """The same cell covering a missing value too (:attr:`or_missing`).

        >>> GeneralizationRange(column_type="unordered", column_values=["a", "b"]).with_missing()
        {a, b} or missing
        """
        return self._raw(self._kind, self.min, self.max, self._open | OR_MISSING,
                         self.values_set, self._cats, self._plo, self._phi)

    @property
    def or_missing(self) -> bool:
        """True when the cell also covers a missing value (``[20, 29] or missing``)."""
        return bool(self._open & OR_MISSING)

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
    def closed(self) -> str:
        """Which bounds belong to the range: ``"both"``, ``"left"``, ``"right"`` or
        ``"neither"`` (pandas' names); always ``"both"`` for sets and plain values."""
        return closed_name(self._open)

    @property
    def closed_left(self) -> bool:
        """True when ``.min`` belongs to the range."""
        return not self._open & OPEN_LO

    @property
    def closed_right(self) -> bool:
        """True when ``.max`` belongs to the range."""
        return not self._open & OPEN_HI

    @property
    def is_plain(self) -> bool:
        """True when the cell denotes a single value ([x, x] or {x}, not covering missing)."""
        if self._open & OR_MISSING:
            return False
        if self._kind == "unordered":
            return len(self.values_set) == 1
        return self.min == self.max

    # -- equality / hashing -------------------------------------------------------------------
    def _key(self):
        if self._open & OR_MISSING:
            return (_RANGE_KEY, OR_MISSING_TEXT, self._raw(
                self._kind, self.min, self.max, self._open & ~OR_MISSING, self.values_set)._key())
        if self._kind == "unordered":
            if len(self.values_set) == 1:
                return next(iter(self.values_set))
            return self.values_set
        if self.min == self.max:
            return self.min
        return (_RANGE_KEY, self.min, self.max, self._open)

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
        if is_missing(x):
            return self.or_missing
        cats = self._cats
        if self._kind == "unordered":
            if cats is not None:
                pos = category_position(cats, x)
                return pos >= 0 and python_scalar(cats[pos]) in self.values_set
            try:
                return x in self.values_set
            except TypeError:
                return False
        if cats is not None:
            pos = category_position(cats, x)
            if pos < 0 and dates_in_order(cats):  # dates: any date between the bounds
                try:
                    return bool(cats[self._plo] <= x <= cats[self._phi])
                except TypeError:
                    return False
            if pos < 0:
                return False
            lo, hi = self._plo, self._phi
        elif self._kind == "ordered" and not (is_number(self.min) and is_number(self.max)):
            raise KindError(
                f"cannot tell whether {x!r} is in {self!r}: the range's bounds are not numbers "
                f"and the cell does not know the order of its column's values; build it with "
                f"them, GeneralizationRange(mn, mx, 'ordered', column_values=<the categories in "
                f"order>), take it from its column (series.iloc[i]), or test a whole column "
                f"with series.array.contains(values)")
        else:
            pos, lo, hi = x, self.min, self.max
        try:
            above = lo < pos if self._open & OPEN_LO else lo <= pos
            below = pos < hi if self._open & OPEN_HI else pos <= hi
            return bool(above and below)
        except TypeError:
            return False

    # -- text ----------------------------------------------------------------------------------
    def __repr__(self) -> str:
        if self._open & OR_MISSING:  # a single value shows as itself: "5 or missing"
            base = self._raw(self._kind, self.min, self.max, self._open & ~OR_MISSING,
                             self.values_set, self._cats, self._plo, self._phi)
            if base.is_plain:
                one = next(iter(self.values_set)) if self._kind == "unordered" else self.min
                return format_value(one) + OR_MISSING_TEXT
            return repr(base) + OR_MISSING_TEXT
        if self._kind == "unordered":
            return "{" + ", ".join(sorted(format_value(v) for v in self.values_set)) + "}"
        lb, rb = brackets(self._open)
        if not self._open:  # dates covering exactly a month, quarter, year or decade
            unit = calendar_label(self.min, self.max)
            if unit is not None:
                return unit
        return f"{lb}{format_value(self.min)}, {format_value(self.max)}{rb}"

    __str__ = __repr__

    def __reduce__(self):
        if self._open & OR_MISSING:
            base = self._raw(self._kind, self.min, self.max, self._open & ~OR_MISSING,
                             self.values_set, self._cats, self._plo, self._phi)
            return (GeneralizationRange.with_missing, (base,))
        if self._kind == "unordered":
            if self._cats is not None:
                return (_rebuild_set, (list(self.values_set), self._cats))
            return (GeneralizationRange, (None, None, "unordered", list(self.values_set)))
        if self._cats is not None:
            return (_rebuild, (self.min, self.max, self._kind, self.closed, self._cats,
                               self._plo, self._phi))
        return (_rebuild, (self.min, self.max, self._kind, self.closed))


def _rebuild(mn, mx, kind, closed, cats=None, plo=None, phi=None):
    """Unpickle a range (``closed`` is keyword-only in the constructor; ``cats``: the order of
    an ordered range's column, shared by the cells pickled together)."""
    if cats is not None:
        return GeneralizationRange._raw(kind, mn, mx, 0, None, cats, plo, phi)
    return GeneralizationRange.interval(mn, mx, kind, closed=closed)


def _rebuild_set(members, cats):
    """Unpickle a set taken from a column (with the column's categories)."""
    return GeneralizationRange._raw("unordered", None, None, 0, frozenset(members), cats)


def _present(values) -> list:
    """The values that are not missing, as Python scalars."""
    if hasattr(values, "tolist"):
        values = values.tolist()
    return [python_scalar(v) for v in values if not is_missing(v)]


def _order_index(values) -> pd.Index | None:
    """``column_values`` of an ordered cell as an Index of its distinct values in their order,
    looked up by Python's equality (an object or text Index, as the dtype's ``_cat_object``;
    such an Index is used as is, not copied); None when they are all numbers (numbers are
    ordered by value)."""
    if isinstance(values, pd.CategoricalDtype):
        values = values.categories
    if isinstance(values, (str, bytes)):
        raise TypeError("column_values must be a collection of values, not a string")
    if isinstance(values, pd.Index) and values.dtype.kind in "iuf":
        return None
    if (isinstance(values, pd.Index)
            and not isinstance(values, (pd.MultiIndex, pd.CategoricalIndex))
            and (values.dtype == object or isinstance(values.dtype, pd.StringDtype))
            and values.is_unique and not values.hasnans):
        idx = values
    else:
        idx = pd.Index(object_array(_present(values)), dtype=object, tupleize_cols=False).unique()
    if idx.dtype == object and all(map(is_number, idx)):
        return None
    return idx


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False
