"""Explicit hierarchies: every value with its label at each level (:class:`TableHierarchy`),
built from nested dicts (:func:`tree`), a mapping table (:func:`from_table`) or ARX's CSV files
(:func:`read_arx_csv`); :func:`as_hierarchy` accepts any of them.

A table may list the missing value, as ARX writes it: a row whose value is missing (NaN/None in
a DataFrame; an empty first field or ``NULL`` in an ARX file). Its labels say where the missing
value goes (a missing label: its own node). Without such a row, missing values get their own
node below the top.

>>> import pandas as pd
>>> t = pd.DataFrame({"value": ["x", "y", None], "l1": ["A", "A", None], "l2": ["*"] * 3})
>>> from_table(t).map(pd.Series(["x", None]), 1).tolist()
['A', None]
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.sidefiles import HIERARCHY_LIMIT, read_side_text
from pdanon.dtype._common import is_missing
from pdanon.hierarchy.base import (
    MAX_HEIGHT,
    MISSING_NODE,
    TOP,
    Bound,
    Hierarchy,
    add_missing,
    check_height,
    distinct_values,
    for_column,
    numeric_or_none,
)

__all__ = ["ARX_NULL", "TableHierarchy", "as_hierarchy", "from_table", "read_arx_csv", "tree"]

#: How ARX writes a missing value in data and hierarchy files.
ARX_NULL = "NULL"


class TableHierarchy(Hierarchy):
    """An explicit hierarchy: every value with its label at each level (a row whose value is
    missing, if any, places the missing value)."""

    def __init__(self, values: Sequence, levels: Sequence[Sequence], *, description="table"):
        check_height(len(levels), f"hierarchy {description}", "give it fewer levels")
        values = list(values)
        levels = [np.asarray(list(lv), dtype=object) for lv in levels]
        for j, lv in enumerate(levels, start=1):
            if len(lv) != len(values):
                raise InvalidInputError(
                    f"hierarchy level {j} has {len(lv)} labels for {len(values)} values")
        known = np.array([not is_missing(v) for v in values], dtype=bool)
        self.na_levels = _missing_row(levels, np.flatnonzero(~known))
        leaves = pd.Index([v for v, k in zip(values, known) if k], tupleize_cols=False)
        levels = [lv[known] for lv in levels]
        if len(leaves) == 0:
            raise InvalidInputError("a hierarchy needs at least one value")
        if leaves.has_duplicates:
            keep = ~leaves.duplicated()
            # identical duplicate rows are harmless; conflicting ones are an error
            for j, lv in enumerate(levels, start=1):
                frame = pd.DataFrame({"v": leaves, "l": lv})
                n_labels = frame.groupby("v", sort=False)["l"].nunique()
                bad = n_labels[n_labels > 1]
                if len(bad):
                    v = bad.index[0]
                    found = sorted(map(str, frame.loc[frame["v"] == v, "l"].unique()))
                    raise InvalidInputError(
                        f"value {v!r} appears more than once in the hierarchy with different "
                        f"level-{j} labels {found}; give each value one row")
            leaves = leaves[keep]
            levels = [lv[keep] for lv in levels]
        self.leaves = leaves
        self.levels = levels
        self.height = len(levels)
        self.description = description
        # validate the tree itself once (with its missing value's row)
        Hierarchy.bind(self, leaves, name=None, na=self.na_levels is not None)

    def _labels(self, values, name):
        idx = self._indexer(values, name)
        return [lv[idx] for lv in self.levels]

    def _missing_labels(self, labels):
        if self.na_levels is not None:
            return list(self.na_levels)
        if len(set(self.levels[-1])) > 1:  # the table has no root: no top node to join
            return [MISSING_NODE] * (len(labels) - 1)
        return Hierarchy._missing_labels(self, labels)

    def _indexer(self, values: pd.Index, name) -> np.ndarray:
        idx = self.leaves.get_indexer(values)
        if (idx < 0).any():
            alt = _comparable_leaves(self.leaves, values)
            if alt is not None:
                # mixed codes (an object column of 3 and "3"): compare both as text
                as_text = not pd.api.types.is_numeric_dtype(values.dtype) and \
                    not pd.api.types.is_numeric_dtype(self.leaves.dtype)
                idx2 = alt.get_indexer(pd.Index([str(v) for v in values]) if as_text else values)
                idx = np.where(idx < 0, idx2, idx)
        missing = values[idx < 0]
        if len(missing):
            shown = list(missing[:10])
            more = f" (and {len(missing) - 10} more)" if len(missing) > 10 else ""
            plural = "value" if len(missing) == 1 else "values"
            raise InvalidInputError(
                f"hierarchy{for_column(name)} has no entry for {len(missing)} {plural} of the "
                f"column: {shown}{more}; add {'it' if len(missing) == 1 else 'them'} to the "
                f"hierarchy (a row value;level1;... each)")
        return idx

    def bind(self, values, *, name=None, na: bool = False) -> Bound:
        values, has_na = distinct_values(values)
        na = na or has_na
        idx = self._indexer(values, name)
        if not hasattr(self, "_global"):
            # node ids of every leaf at every level, once per hierarchy (validated at build)
            self._global = [pd.factorize(lv, sort=False) for lv in self.levels]
        n_values = len(values)
        codes = [np.arange(n_values, dtype=np.int64)]
        labels = [np.asarray(values, dtype=object)]
        leaf_codes = [np.full(len(self.leaves), -1, dtype=np.int64)]
        leaf_codes[0][idx] = np.arange(n_values)
        for gcodes, glabels in self._global:
            gcodes = np.asarray(gcodes, dtype=np.int64)
            g = gcodes[idx]
            present = np.zeros(len(glabels), dtype=bool)
            present[g] = True
            used = np.flatnonzero(present)
            remap = np.full(len(glabels), -1, dtype=np.int64)
            remap[used] = np.arange(len(used))
            codes.append(remap[g])
            labels.append(np.asarray(glabels, dtype=object)[used])
            leaf_codes.append(remap[gcodes])  # -1: a node with no value of this column
        if na:
            add_missing(codes, labels, self._missing_labels(labels), values, name, self)
        member_values = self._leaves_as(values)
        # a table's ranges and sets span its leaves (the hierarchy as written), not the data
        b = Bound(values, codes, labels, [None] * len(codes), [None] * len(codes),
                  member_values, leaf_codes, na=na, declared=[False] + [True] * self.height,
                  enumerated=True)
        num = numeric_or_none(member_values)
        if num is not None:
            v = numeric_or_none(values)
            if na and v is not None:
                v = np.append(v, np.nan)
            lo, hi = [v], [v]
            for j in range(1, self.height + 1):
                c = leaf_codes[j]
                ok = (c >= 0) & ~np.isnan(num)
                lo_j = np.full(b.nodes(j), np.inf)
                hi_j = np.full(b.nodes(j), -np.inf)
                np.minimum.at(lo_j, c[ok], num[ok])
                np.maximum.at(hi_j, c[ok], num[ok])
                empty = lo_j > hi_j  # the missing value's own node: no range
                lo_j[empty] = np.nan
                hi_j[empty] = np.nan
                lo.append(lo_j)
                hi.append(hi_j)
            b.lo, b.hi = lo, hi
        return b

    def _leaves_as(self, values: pd.Index) -> pd.Index:
        """The leaves in the column's value type, cached per kind of column."""
        key = ("num" if pd.api.types.is_numeric_dtype(values.dtype) else "other",
               pd.api.types.is_integer_dtype(values.dtype))
        cache = self.__dict__.setdefault("_leaves_cache", {})
        if key not in cache:
            cache[key] = _leaves_like(self.leaves, values)
        return cache[key]

    def _default_values(self, values):
        if values is not None:
            return values
        if self.na_levels is not None:
            return list(self.leaves) + [None]
        return self.leaves


def _missing_row(levels: list, na_rows: np.ndarray) -> list | None:
    """The labels of the table's missing value (a missing label: its own node), or None."""
    if not len(na_rows):
        return None
    out = []
    for j, lv in enumerate(levels, start=1):
        found = {MISSING_NODE if is_missing(x) else x for x in lv[na_rows]}
        if len(found) > 1:
            shown = sorted(map(str, found))
            raise InvalidInputError(
                f"the missing value appears more than once in the hierarchy with different "
                f"level-{j} labels {shown}; give it one row")
        out.append(found.pop())
    return out


def _comparable_leaves(leaves: pd.Index, values: pd.Index) -> pd.Index | None:
    """Leaves converted to the column's type (ARX files hold numbers as text)."""
    if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_numeric_dtype(
            leaves.dtype):
        num = pd.to_numeric(pd.Series(leaves), errors="coerce")
        return pd.Index(num.to_numpy(dtype=np.float64))
    if not pd.api.types.is_numeric_dtype(values.dtype) and pd.api.types.is_numeric_dtype(
            leaves.dtype):
        return pd.Index([str(v) for v in leaves])
    if not pd.api.types.is_numeric_dtype(values.dtype):  # text or mixed: both as text
        return pd.Index([str(v) for v in leaves])
    return None


def _leaves_like(leaves: pd.Index, values: pd.Index) -> pd.Index:
    """The hierarchy's leaves in the column's value type (numbers stay numbers)."""
    if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_numeric_dtype(
            leaves.dtype):
        num = pd.to_numeric(pd.Series(leaves), errors="coerce").to_numpy(dtype=np.float64)
        if not np.isnan(num).any() and np.all(np.mod(num, 1) == 0) and \
                pd.api.types.is_integer_dtype(values.dtype):
            return pd.Index(num.astype(np.int64))
        return pd.Index(num)
    return leaves


# --------------------------------------------------------------------------- builders


def tree(spec: Mapping, *, top: str = TOP) -> Hierarchy:
    """An explicit tree from nested dicts; leaves are list items (or dict keys mapped to
    ``None`` / an empty list). A dict with one key is the root; with several keys a root
    ``top`` is added. Leaves nearer the root than others keep their own value on the extra
    lower levels.

    Example
    -------
    >>> h = tree({"*": {"Europe": ["France", "Spain"], "Asia": {"East": ["Japan"]}}})
    >>> h.levels_table()
        value  level1  level2 level3
    0  France  France  Europe      *
    1   Spain   Spain  Europe      *
    2   Japan    East    Asia      *
    """
    if not isinstance(spec, Mapping) or not spec:
        raise InvalidInputError("tree() needs a non-empty dict such as {'Europe': ['France']}")
    if len(spec) > 1:
        spec = {top: spec}
    paths = _tree_paths(spec)
    depth = max(len(p) for p in paths)
    if depth < 2:
        raise InvalidInputError("tree() needs at least one leaf under the root")
    leaves, levels = [], [[] for _ in range(depth - 1)]
    for p in paths:
        # p = [root, ..., leaf]; pad next to the leaf so all leaves have the same depth
        padded = p[:-1] + [p[-1]] * (depth - len(p) + 1)
        from_leaf = padded[::-1]  # leaf, level1, ..., root
        leaves.append(from_leaf[0])
        for j in range(1, depth):
            levels[j - 1].append(from_leaf[j])
    return TableHierarchy(leaves, levels, description="tree")


def _tree_paths(spec: Mapping) -> list:
    """Every root-to-leaf path of a nested spec, in the order a depth-first walk meets them,
    found with an explicit stack: a spec nested deeper than :data:`MAX_HEIGHT` (or one that
    contains itself) is refused as soon as the walk gets there, never by recursion."""
    paths: list[list] = []
    stack = [(False, spec, [])]  # (is a finished leaf path, node, path above it)
    while stack:
        leaf, node, path = stack.pop()
        if leaf or node is None or (isinstance(node, (list, tuple, set)) and len(node) == 0):
            paths.append(path)
        elif isinstance(node, Mapping):
            if node and len(path) > MAX_HEIGHT:  # its leaves: more than MAX_HEIGHT levels
                shown = " → ".join(repr(k)[:30] for k in path[:3])
                raise InvalidInputError(
                    f"tree() spec is nested more than {MAX_HEIGHT} levels deep (under {shown} "
                    f"→ ...), more than a hierarchy may have (pdanon.hierarchy.MAX_HEIGHT), or it "
                    f"contains itself; flatten it: give the tree fewer levels")
            stack.extend((False, child, path + [key])
                         for key, child in reversed(list(node.items())))
        elif isinstance(node, (list, tuple, set)):
            stack.extend((False, item, path) if isinstance(item, Mapping) else
                         (True, None, path + [item]) for item in reversed(list(node)))
        else:
            paths.append(path + [node])  # a single leaf given without a list
    return paths


def from_table(table, *, value_column=None) -> Hierarchy:
    """An explicit hierarchy from a mapping table: a DataFrame whose first column (or
    ``value_column``) holds the values and whose next columns hold the labels at level 1,
    2, … (a list of rows works too). A row whose value is missing (NaN/None) places the
    missing value; its missing labels mean "its own node".

    Example
    -------
    >>> t = pd.DataFrame({"value": ["HS-grad", "Masters"], "l1": ["School", "Higher"],
    ...                   "l2": ["*", "*"]})
    >>> from_table(t).map(pd.Series(["Masters"]), 1).tolist()
    ['Higher']
    """
    if not isinstance(table, pd.DataFrame):
        table = pd.DataFrame(list(table))
    if table.shape[1] < 2:
        raise InvalidInputError(
            "a hierarchy table needs a value column and at least one level column")
    check_height(table.shape[1] - 1, f"a hierarchy table with {table.shape[1]:,} columns",
                 "give it fewer level columns")
    cols = list(table.columns)
    if value_column is not None:
        if value_column not in cols:
            raise InvalidInputError(f"value_column {value_column!r} is not in the table {cols}")
        cols.remove(value_column)
        cols = [value_column] + cols
    values = table[cols[0]].tolist()
    levels = [table[c].tolist() for c in cols[1:]]
    known = ~np.asarray(pd.isna(table[cols[0]]), dtype=bool)
    if any(pd.isna(v) for lv in levels for v, k in zip(lv, known) if k):
        raise InvalidInputError("a hierarchy table has an empty label; fill every level (only "
                                "the row of the missing value may leave labels empty)")
    return TableHierarchy(values, levels, description="table")


def read_arx_csv(path, *, sep: str = ";", encoding: str = "utf-8",
                 max_bytes: int = HIERARCHY_LIMIT) -> Hierarchy:
    """Read a hierarchy in ARX's CSV format: one row per value, ``value;level1;…;*``, no
    header. A row whose value is empty or ``NULL`` (how ARX writes a missing value) places
    the missing value; an empty or ``NULL`` label in that row means its own node. A path is
    read only if it is a regular file of at most ``max_bytes`` bytes (256 MiB by default,
    :mod:`pdanon.sidefiles`: a FIFO or ``/dev/zero`` is refused at once).

    Example
    -------
    >>> import pdanon
    >>> h = read_arx_csv(pdanon.datasets.adult_hierarchy_path("education"))
    >>> h.height, h.map(pd.Series(["Masters"]), 2).tolist()
    (3, ['Higher education'])
    """
    if isinstance(path, (str, os.PathLike)):
        text = read_side_text(path, what="hierarchy file", max_bytes=max_bytes,
                              encoding=encoding)
    else:  # a resource with read_text (e.g. importlib.resources)
        text = path.read_text(encoding=encoding)
    rows = [line.split(sep) for line in text.splitlines() if line.strip()]
    if not rows:
        raise InvalidInputError(f"hierarchy file {str(path)!r} is empty")
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        bad = next(i for i, r in enumerate(rows) if len(r) != len(rows[0]))
        raise InvalidInputError(
            f"hierarchy file {str(path)!r}: row {bad + 1} ({sep.join(rows[bad])!r}) has "
            f"{len(rows[bad])} fields, the first row has {len(rows[0])}; every value needs a "
            f"label at every level")
    if len(rows[0]) < 2:
        raise InvalidInputError(
            f"hierarchy file {str(path)!r} has one field per row; expected value{sep}level1...")
    check_height(len(rows[0]) - 1, f"hierarchy file {str(path)!r}", "give it fewer levels")
    for r in rows:
        if r[0].strip() in ("", ARX_NULL):  # the missing value's row
            r[:] = [None if f.strip() in ("", ARX_NULL) else f for f in r]
    values = [r[0] for r in rows]
    levels = [[r[j] for r in rows] for j in range(1, len(rows[0]))]
    return TableHierarchy(values, levels, description=f"ARX file {Path(str(path)).name}")


def as_hierarchy(spec, *, name=None) -> Hierarchy:
    """Accept a :class:`Hierarchy`, a nested dict (:func:`tree`), a mapping table
    (:func:`from_table`) or a path to an ARX CSV file (:func:`read_arx_csv`)."""
    if isinstance(spec, Hierarchy):
        if spec.height is not None:  # masking's height is set by the data (checked then)
            check_height(spec.height, f"hierarchy {spec.description} for column {name!r}",
                         "use a hierarchy with fewer levels")
        return spec
    if isinstance(spec, Mapping):
        return tree(spec)
    if isinstance(spec, pd.DataFrame):
        return from_table(spec)
    if isinstance(spec, (str, Path)) or hasattr(spec, "read_text"):
        return read_arx_csv(spec)
    raise InvalidInputError(
        f"hierarchy for column {name!r} must be a pdanon.hierarchy.Hierarchy, a nested dict, a "
        f"mapping DataFrame or the path of an ARX CSV file; got {type(spec).__name__}")
