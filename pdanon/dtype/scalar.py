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

from pdanon.dtype._common import (
    KINDS,
    OPEN_HI,
    OPEN_LO,
    brackets,
    closed_flags,
    closed_name,
    format_value,
    is_missing,
    is_number,
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
    * ``'unordered'``: ``.values_set``, a frozenset built from ``column_values``.

    Cells compare equal when they denote the same range/set: ``[30, 35)`` differs from
    ``[30, 35]``. A degenerate range ``[5, 5]`` or a singleton set ``{a}`` equals (and hashes
    like) the plain value, because a column stores it as that plain value. ``<``, ``<=``,
    ``>``, ``>=`` compare ``.min`` (meant for disjoint ranges, as in the reference); sets have
    no order. ``x in cell`` tests membership (honouring open ends). The object is
    deliberately not iterable, so pandas treats it as a scalar.

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
    """

    __slots__ = ("_kind", "_open", "min", "max", "values_set")

    def __init__(self, mn=None, mx=None, column_type="ordered", column_values=None):
        # the reference's signature, kept as is; open ends come from :meth:`interval`
        if column_type not in KINDS:
            raise ValueError(f"column_type must be one of {KINDS}, got {column_type!r}")
        self._kind = column_type
        self._open = 0
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
        if mn is None and mx is None and column_values is not None:
            if hasattr(column_values, "tolist"):
                column_values = column_values.tolist()
            vals = [python_scalar(v) for v in column_values if not is_missing(v)]
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
            return False
        if self._kind == "unordered":
            try:
                return x in self.values_set
            except TypeError:
                return False
        try:
            above = self.min < x if self._open & OPEN_LO else self.min <= x
            below = x < self.max if self._open & OPEN_HI else x <= self.max
            return bool(above and below)
        except TypeError:
            return False

    # -- text ----------------------------------------------------------------------------------
    def __repr__(self) -> str:
        if self._kind == "unordered":
            return "{" + ", ".join(sorted(format_value(v) for v in self.values_set)) + "}"
        lb, rb = brackets(self._open)
        return f"{lb}{format_value(self.min)}, {format_value(self.max)}{rb}"

    __str__ = __repr__

    def __reduce__(self):
        if self._kind == "unordered":
            return (GeneralizationRange, (None, None, "unordered", list(self.values_set)))
        return (_rebuild, (self.min, self.max, self._kind, self.closed))


def _rebuild(mn, mx, kind, closed):
    """Unpickle a range (``closed`` is keyword-only in the constructor)."""
    return GeneralizationRange.interval(mn, mx, kind, closed=closed)


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False

