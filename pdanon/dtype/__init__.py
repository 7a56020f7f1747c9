"""Generalized cells: the ``GeneralizationRange`` scalar and a pandas extension dtype.

A *generalized* cell replaces a value by a coarser one: a range ``[lo, hi]`` for
``real``/``ordered`` columns or a set ``{a, b}`` for ``unordered`` columns. pdanon keeps such
cells in a dedicated pandas ExtensionDtype, :class:`GeneralizationDtype`, whose array,
:class:`GeneralizationArray`, stores them as numpy arrays (in the spirit of pandas'
``IntervalArray``) so that grouping, sorting, comparing and hashing stay vectorized.

Storage
-------
* ``real`` and numeric ``ordered``: float64 ``lo`` and ``hi`` plus a boolean NA mask and an int8
  per cell saying which ends are open (``[30, 35)``: the upper one); a plain (ungeneralized)
  value has ``lo == hi`` and is closed.
* ``ordered`` with ``categories`` (e.g. education levels): the same, where ``lo``/``hi`` are
  integer positions in ``categories``.
* ``unordered``: one int64 code per row into a dictionary of distinct cells: codes
  ``0 .. C-1`` are plain values (``categories[code]``), codes ``C ..`` are sets of a shared
  table holding each *distinct* set of two or more categories once, sparse (CSR: the sorted
  member positions of every set), and ``-1`` is missing. Equal sets have equal codes, so
  ``factorize``/``groupby`` run on integers; memory is O(rows + members), never
  rows × categories.

Example
-------
>>> import pandas as pd
>>> from pdanon.dtype import GeneralizationRange
>>> s = pd.Series([39, GeneralizationRange(20, 29, "real"), None], dtype="generalization[real]")
>>> s.tolist()
[39, [20, 29], nan]

Modules
-------
In dependency order (each imports only modules listed before it):

* ``_common``: small value helpers (missing values, numbers, text of a value, object arrays);
* ``scalar``: :class:`GeneralizationRange`;
* ``dtype``: :class:`GeneralizationDtype` and its registration with pandas;
* ``storage``: the shared table of distinct sets of unordered columns;
* ``text``: the one parser of the text form ``[20, 29]`` / ``{Asian, White}``, shared with
  :func:`pdanon.read_csv`;
* ``construction``: building arrays from values, bounds, members, objects and text;
* ``array``: :class:`GeneralizationArray`;
* ``arrow``: the Arrow extension type for Parquet (registered with pyarrow on import).

Registration
------------
pandas reaches the array class through the dtype (``GeneralizationDtype.construct_array_type()``)
and the Arrow conversions through the dtype and the array (``GeneralizationDtype.__from_arrow__``,
``GeneralizationArray.__arrow_array__``): calls from a module to modules listed after it. Rather
than importing those modules (an import cycle), the later module registers itself with the earlier
one when it is imported:

* ``array`` calls ``dtype.register_array_type(GeneralizationArray)``;
* ``arrow`` calls ``array.register_arrow_writer(array_to_arrow)`` and
  ``dtype.register_arrow_reader(arrow_to_array)``.

This package's ``__init__`` imports ``array`` and ``arrow``, and importing any ``pdanon.dtype.*``
module runs it first, so the hooks are in place before any user code runs.
"""

from __future__ import annotations

from pdanon.dtype._common import KINDS
from pdanon.dtype.array import GeneralizationArray
from pdanon.dtype.dtype import GeneralizationDtype
from pdanon.dtype.scalar import GeneralizationRange
from pdanon.dtype.text import MAX_CELL_LENGTH
from pdanon.dtype import arrow as _arrow  # noqa: F401  (registers the Arrow type and conversions)

__all__ = ["GeneralizationRange", "GeneralizationDtype", "GeneralizationArray", "KINDS",
           "MAX_CELL_LENGTH"]
