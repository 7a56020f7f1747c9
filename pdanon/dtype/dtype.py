"""The pandas extension dtype :class:`GeneralizationDtype` and its registration.

The dtype carries the kind (``real``/``ordered``/``unordered``) and the categories; its string
aliases are ``generalization[real]``, ``generalization[ordered]`` and
``generalization[unordered]``.

>>> import pandas as pd
>>> pd.api.types.pandas_dtype("generalization[unordered]")
GeneralizationDtype('unordered')
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionDtype, register_extension_dtype

from pdanon.dtype._common import KINDS, dates_in_order, format_value, object_array, python_scalar
from pdanon.dtype.scalar import GeneralizationRange

__all__ = ["GeneralizationDtype", "register_array_type", "register_arrow_reader"]


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


# -- registration ----------------------------------------------------------------------------------
# pandas asks the dtype for its array class (``construct_array_type``) and for a reader of Arrow
# data (``__from_arrow__``). Both live in modules that import this one, so they register
# themselves here when they are imported (see the package docstring); this module imports neither.
_array_type: type | None = None  # GeneralizationArray, set by pdanon.dtype.array
_arrow_reader = None  # arrow_to_array, set by pdanon.dtype.arrow


def register_array_type(array_type: type) -> None:
    """Make ``array_type`` the array class of :class:`GeneralizationDtype`.

    Called by :mod:`pdanon.dtype.array` when it is imported.
    """
    global _array_type
    _array_type = array_type


def register_arrow_reader(reader) -> None:
    """Make ``reader(dtype, data)`` the builder of arrays from Arrow data (``__from_arrow__``).

    Called by :mod:`pdanon.dtype.arrow` when it is imported.
    """
    global _arrow_reader
    _arrow_reader = reader


def _not_registered(what: str) -> RuntimeError:
    return RuntimeError(f"{what} is not registered: pdanon.dtype has not finished importing")


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
        self._cat_lookup_cache = None
        self._cat_object_cache = None
        self._dates_cache = None

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
    def dates_by_value(self) -> bool:
        """True when the column is ordered and its categories are dates, timestamps or
        periods in increasing order: a range of them holds every date between its bounds,
        category or not (so a release need not list the dates inside its ranges). An
        unordered column of dates holds sets, whatever the order its categories are listed
        in."""
        if getattr(self, "_dates_cache", None) is None:
            self._dates_cache = self.column_type == "ordered" and dates_in_order(
                self._categories)
        return self._dates_cache

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
        """:class:`~pdanon.dtype.GeneralizationArray` (registered by its module)."""
        if _array_type is None:
            raise _not_registered("the array class of GeneralizationDtype")
        return _array_type

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
                python_scalar(c) for c in self._categories.tolist()
            ]
        return self._cat_list_cache

    @property
    def _cat_pos(self) -> dict:
        if self._cat_pos_cache is None:
            self._cat_pos_cache = {c: i for i, c in enumerate(self._cat_list)}
        return self._cat_pos_cache

    @property
    def _cat_object(self) -> pd.Index | None:
        """The categories as an object Index of Python values, built once and shared: value
        lookups in it go by Python's equality and hash (``1 == 1.0 == True``, as in a dict),
        one value at a time, whatever the other values looked up with it. ``contains`` and
        the cells' ``in`` use it."""
        if self._cat_object_cache is None and self._categories is not None:
            self._cat_object_cache = pd.Index(object_array(self._cat_list), dtype=object,
                                              tupleize_cols=False)
        return self._cat_object_cache

    @property
    def _cat_text(self) -> dict:
        """text form -> position (for parsing CSV/JSON text)."""
        if self._cat_text_cache is None:
            d: dict = {}
            for i, c in enumerate(self._cat_list):
                d.setdefault(str(c), i)
            for i, c in enumerate(self._cat_list):
                d.setdefault(format_value(c), i)
            self._cat_text_cache = d
        return self._cat_text_cache

    @property
    def _cat_lookup(self) -> tuple[dict, int]:
        """(text -> position, most ``", "`` in one key) for parsing text cells.

        A text is looked up as the category itself first (string categories), then by its text
        form. The separator count bounds how many ``", "``-separated pieces of a cell's text
        can form one category, which keeps parsing linear in the length of the text.
        """
        if self._cat_lookup_cache is None:
            d = dict(self._cat_text)
            d.update((c, i) for c, i in self._cat_pos.items() if isinstance(c, str))
            self._cat_lookup_cache = (d, max((k.count(", ") for k in d), default=0))
        return self._cat_lookup_cache

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
        """Build a GeneralizationArray from a pyarrow (Chunked)Array written by pdanon.

        The reader is registered by :mod:`pdanon.dtype.arrow`.
        """
        if _arrow_reader is None:
            raise _not_registered("the Arrow reader of GeneralizationDtype")
        return _arrow_reader(self, array)

