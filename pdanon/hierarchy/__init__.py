"""Generalization hierarchies: how a column's values coarsen, level by level.

A hierarchy of height ``h`` has levels ``0..h``: level 0 is the original value, each higher
level groups the nodes of the level below (a *coarsening*), and the top level usually holds one
node, ``"*"``. Hierarchies drive ``df.anon.generalize`` (apply chosen levels) and the
``algorithm="optimal"`` lattice search of ``k_anonymize``, ``l_diversify`` and ``t_close``.

Builders
--------
* :func:`intervals` — numeric bands whose width grows per level (``intervals([5, 10, 20])``:
  ``23 → 20-24 → 20-29 → 20-39 → *``); the generalized cell of an integer column is the band
  ``[20, 29]``, of other numbers the half-open band its label names (``[20.5, 30.5)``);
* :func:`masking` — strings masked from the right (``10001 → 1000* → 100** → … → *``);
* :func:`tree` — an explicit tree as nested dicts (``{"Europe": ["France", "Spain"], …}``);
* :func:`from_table` — a mapping table (DataFrame: value, level1, level2, …);
* :func:`dates` — day → month → year (→ quarter, decade) → ``*``;
* :func:`read_arx_csv` — ARX's CSV format (``value;level1;…;*``, one row per value).

Every hierarchy maps a whole column at once: the column is factorized once and only its
distinct values are mapped (:meth:`Hierarchy.map`). :meth:`Hierarchy.validate` checks that
every value of the column is known and that each level is a coarsening of the previous one;
errors name the missing or offending values. No hierarchy has more than :data:`MAX_HEIGHT`
(64) levels: every builder refuses a deeper one before building it. :meth:`Hierarchy.levels_table` and
:meth:`Hierarchy.codes_table` expose the tree itself (labels or integer node codes of every
value at every level), e.g. for the hierarchical ground distance of t-closeness (two values at
hierarchy distance ``j / h`` when their lowest common ancestor is at level ``j``).

Missing values (NaN, None, ``pd.NA``, NaT) are a value of their own, as in ARX: below the top
they are their own node (labelled ``None``, published as a missing cell); at a top level of one
node they join it. A hierarchy table may place them itself (a row whose value is missing;
``NULL`` or an empty first field in an ARX file).

Modules: ``base`` (:class:`Hierarchy`, :class:`Bound`, missing values), ``rules`` (intervals,
masking, dates), ``table`` (explicit trees, tables, ARX files), ``levels`` (columns bound to
their hierarchy, :func:`generalize_frame`).

Example
-------
>>> import pandas as pd
>>> ages = pd.Series([23, 37, 41, None])
>>> h = intervals([5, 10, 20])
>>> h.map(ages, 2).tolist()
['20-29', '30-39', '40-49', None]
>>> masking().map(pd.Series(["10001", "10002"]), 2).tolist()
['100**', '100**']
>>> h.height
4
"""

from __future__ import annotations

from pdanon.hierarchy.base import MAX_HEIGHT, TOP, Bound, Hierarchy
from pdanon.hierarchy.levels import (
    ColumnLevels,
    column_levels,
    column_levels_encoded,
    generalize_frame,
)
from pdanon.hierarchy.rules import (
    DateHierarchy,
    IntervalHierarchy,
    MaskingHierarchy,
    dates,
    intervals,
    masking,
)
from pdanon.hierarchy.table import TableHierarchy, as_hierarchy, from_table, read_arx_csv, tree

__all__ = [
    "Hierarchy",
    "intervals",
    "masking",
    "tree",
    "from_table",
    "dates",
    "read_arx_csv",
    "as_hierarchy",
    "Bound",
    "ColumnLevels",
    "DateHierarchy",
    "IntervalHierarchy",
    "MaskingHierarchy",
    "TableHierarchy",
    "TOP",
    "MAX_HEIGHT",
    "column_levels",
    "column_levels_encoded",
    "generalize_frame",
]
