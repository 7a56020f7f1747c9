"""Cells that cover a missing value too: "a value in this range or set, or missing".

Local recoding publishes such a cell for an equivalence class that mixes present and missing
cells of a column (:func:`pdanon.recode.generalize`): the cell is the range or set of the
class's present values, flagged as covering missing, so that the class stays one class and no
present cell is blanked. The flag is one bit (:data:`~pdanon.dtype._common.OR_MISSING`) of a
cell's int8 flags, next to the open-end bits of ranges; unordered cells carry the same flags.

* text: the cell's text followed by ``" or missing"``: ``[20, 29] or missing``,
  ``{a, b} or missing``, ``5 or missing`` (a single value with missing ones); the parser of
  :mod:`pdanon.dtype.text` reads it back (CSV, ``pd.array(texts, dtype=...)``);
* Parquet: a boolean ``or_missing`` field next to the cell's storage
  (:mod:`pdanon.dtype.arrow`), written only when some cell has the flag;
* equality and grouping: ``[20, 29] or missing`` equals only itself (not ``[20, 29]``);
* containment: a missing value lies in a cell that covers missing, and in no other cell.

>>> import pandas as pd
>>> arr = pd.array(["[20, 25] or missing", "[20, 25]", "7 or missing"],
...                dtype="generalization[real]")
>>> arr.or_missing.tolist(), arr[0] == arr[1], str(arr[2])
([True, False, True], False, '7 or missing')
>>> arr.contains([None, None, 7]).tolist()
[True, False, True]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon.dtype._common import OR_MISSING
from pdanon.dtype.scalar import GeneralizationRange

__all__ = ["OrMissingCells"]


class OrMissingCells:
    """The part of :class:`~pdanon.dtype.GeneralizationArray` that reads and sets the
    "or missing" flag of its cells (a mixin: the array holds ``_open``, one int8 per cell)."""

    @property
    def or_missing(self) -> np.ndarray:
        """Boolean per cell: does the cell cover a missing value too (``[20, 29] or missing``)?

        >>> from pdanon.dtype import GeneralizationArray
        >>> GeneralizationArray.from_bounds([1], [3], kind="real").or_missing.tolist()
        [False]
        """
        return (self._open & OR_MISSING) != 0

    def with_or_missing(self, where) -> OrMissingCells:
        """A new array whose cells flagged in ``where`` (a boolean mask) also cover missing;
        a missing cell stays missing.

        >>> from pdanon.dtype import GeneralizationArray
        >>> arr = GeneralizationArray.from_bounds([20, 30], [25, 30], kind="real", mask=[0, 1])
        >>> arr.with_or_missing([True, True]).tolist()
        [[20, 25] or missing, nan]
        """
        where = np.asarray(where, dtype=bool) & ~np.asarray(self.isna(), dtype=bool)
        out = self.copy()
        out._open[where] |= OR_MISSING
        return out

    def _box_or_missing(self, i: int):
        """Cell ``i`` (flagged as covering missing) as a :class:`GeneralizationRange`."""
        one = self._take_key(slice(i, i + 1)).copy()
        one._open[0] &= ~OR_MISSING
        cell = one._box(0)
        if not isinstance(cell, GeneralizationRange):  # a single value (with missing ones)
            dtype = self._dtype
            if dtype.column_type == "unordered":
                cell = GeneralizationRange._raw("unordered", None, None, 0, frozenset([cell]),
                                                dtype._cat_object)
            elif dtype.categories is not None:
                a = int(self._lo[i])
                cell = GeneralizationRange._raw(dtype.column_type, cell, cell, 0, None,
                                                dtype._cat_object, a, a)
            else:
                cell = GeneralizationRange._raw(dtype.column_type, cell, cell, 0)
        return cell.with_missing()

    def _or_missing_holds(self, inside: np.ndarray, values) -> np.ndarray:
        """``inside`` (present values within their cells) plus the missing values that lie
        in a cell covering missing."""
        flagged = (self._open & OR_MISSING) != 0
        if not flagged.any():
            return inside
        if isinstance(values, (pd.Series, pd.Index)):
            values = values.array
        missing = np.asarray(pd.isna(values), dtype=bool).reshape(-1)
        return inside | (missing & flagged & ~np.asarray(self.isna(), dtype=bool))
