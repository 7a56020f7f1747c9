"""Generalization hierarchies: how a column's values coarsen, level by level.

A hierarchy of height ``h`` has levels ``0..h``: level 0 is the original value, each higher
level groups the nodes of the level below (a *coarsening*), and the top level usually holds one
node, ``"*"``. Hierarchies drive ``df.anon.generalize`` (apply chosen levels) and the
``algorithm="optimal"`` lattice search of ``k_anonymize``, ``l_diversify`` and ``t_close``.

Builders
--------
* :func:`intervals` — numeric bands whose width grows per level (``intervals([5, 10, 20])``:
  ``23 → 20-24 → 20-29 → 20-39 → *``); the generalized cell of a real column is the band
  ``[20, 29]``;
* :func:`masking` — strings masked from the right (``10001 → 1000* → 100** → … → *``);
* :func:`tree` — an explicit tree as nested dicts (``{"Europe": ["France", "Spain"], …}``);
* :func:`from_table` — a mapping table (DataFrame: value, level1, level2, …);
* :func:`dates` — day → month → year (→ quarter, decade) → ``*``;
* :func:`read_arx_csv` — ARX's CSV format (``value;level1;…;*``, one row per value).

Every hierarchy maps a whole column at once: the column is factorized once and only its
distinct values are mapped (:meth:`Hierarchy.map`). :meth:`Hierarchy.validate` checks that
every value of the column is known and that each level is a coarsening of the previous one;
errors name the missing or offending values. :meth:`Hierarchy.levels_table` and
:meth:`Hierarchy.codes_table` expose the tree itself (labels or integer node codes of every
value at every level), e.g. for the hierarchical ground distance of t-closeness (two values at
hierarchy distance ``j / h`` when their lowest common ancestor is at level ``j``).

Example
-------
>>> import pandas as pd
>>> ages = pd.Series([23, 37, 41])
>>> h = intervals([5, 10, 20])
>>> h.map(ages, 2).tolist()
['20-29', '30-39', '40-49']
>>> masking().map(pd.Series(["10001", "10002"]), 2).tolist()
['100**', '100**']
>>> h.height
4
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError

__all__ = [
    "Hierarchy",
    "intervals",
    "masking",
    "tree",
    "from_table",
    "dates",
    "read_arx_csv",
    "as_hierarchy",
]

TOP = "*"


# --------------------------------------------------------------------------- bound hierarchy


@dataclass
class Bound:
    """A hierarchy bound to the distinct values of one column (internal; used by
    :mod:`pdanon.partition.optimal` and :meth:`df.anon.generalize`).

    ``codes[j]`` is the node code (0..nodes-1) of every value at level ``j`` (``codes[0]`` is
    ``arange``); ``labels[j][code]`` is the node's label; ``lo[j]`` / ``hi[j]`` the node's
    numeric range where the hierarchy defines one (``None`` otherwise); ``member_values`` and
    ``member_codes`` give, for set output, the values the hierarchy knows under each node.
    """

    values: pd.Index
    codes: list
    labels: list
    lo: list
    hi: list
    member_values: pd.Index
    member_codes: list  # per level: node code of every member value
    interval: bool = False

    @property
    def height(self) -> int:
        return len(self.codes) - 1

    def nodes(self, level: int) -> int:
        return len(self.labels[level])

    def value_counts_per_node(self, level: int) -> np.ndarray:
        """How many of the column's distinct values lie under each node."""
        return np.bincount(self.codes[level], minlength=self.nodes(level))

    def step(self, level_from: int, level_to: int) -> np.ndarray:
        """Map from node codes at ``level_from`` to node codes at ``level_to`` (>= from)."""
        out = np.zeros(self.nodes(level_from), dtype=np.int64)
        out[self.codes[level_from]] = self.codes[level_to]
        return out


# --------------------------------------------------------------------------- base class


class Hierarchy:
    """A generalization hierarchy for one column (build one with the functions of
    :mod:`pdanon.hierarchy`).

    ``height`` is the number of generalization steps: levels run from 0 (original values) to
    ``height`` (usually the single node ``"*"``).

    Example
    -------
    >>> h = tree({"Europe": ["France", "Spain"], "Asia": ["India"]})
    >>> h.height, h.map(pd.Series(["Spain", "India"]), 1).tolist()
    (2, ['Europe', 'Asia'])
    """

    height: int = 0
    #: short description used in reprs and error messages
    description = "hierarchy"

    # subclasses implement: _labels(values: pd.Index) -> list of label arrays, levels 1..height
    def _labels(self, values: pd.Index, name) -> list:  # pragma: no cover - abstract
        raise NotImplementedError

    def _ranges(self, values: pd.Index, labels: list, codes: list):
        """Per level the node ranges ``(lo, hi)`` the hierarchy defines itself, or None."""
        return None

    # ------------------------------------------------------------------ public API
    def __repr__(self) -> str:
        height = "set by the data" if self.height is None else self.height
        return f"<Hierarchy {self.description}, height {height}>"

    def bind(self, values, *, name=None) -> Bound:
        """Bind to the distinct ``values`` of a column and validate (internal building block
        of :meth:`map`, :meth:`validate` and the lattice search)."""
        values = _distinct_index(values)
        label_levels = self._labels(values, name)
        codes = [np.arange(len(values), dtype=np.int64)]
        labels = [np.asarray(values, dtype=object)]
        for j, lab in enumerate(label_levels, start=1):
            c, uniq = _factorize_labels(lab)
            _check_coarsening(values, codes[-1], labels[-1], c, uniq, j, name, self)
            codes.append(c)
            labels.append(uniq)
        lo, hi = self._bound_ranges(values, labels, codes)
        return Bound(values, codes, labels, lo, hi, values, codes, interval=False)

    def _bound_ranges(self, values, labels, codes):
        own = self._ranges(values, labels, codes)
        if own is not None:
            return own
        return _member_ranges(values, codes)

    def validate(self, values, *, name=None) -> None:
        """Raise :class:`~pdanon.InvalidInputError` unless every value of the column is in
        the hierarchy and each level coarsens the previous one.

        Example
        -------
        >>> try:
        ...     tree({"A": ["x"]}).validate(pd.Series(["x", "y"], name="c"))
        ... except ValueError as exc:
        ...     print(str(exc)[:49])
        hierarchy for column 'c' has no entry for 1 value
        """
        self.bind(values, name=_name_of(values, name))

    def map(self, values, level: int):
        """The labels of ``values`` at ``level`` (a Series with the same index when given a
        Series; level 0 returns the values unchanged).

        Example
        -------
        >>> masking(char="X").map(pd.Series(["10001"]), 2).tolist()
        ['100XX']
        """
        level = self._check_level(level, _name_of(values, None))
        series = values if isinstance(values, pd.Series) else pd.Series(values)
        if level == 0:
            return series.copy()
        codes, uniques = _factorize_column(series)
        bound = self.bind(uniques, name=series.name)
        lab = bound.labels[level][bound.codes[level]][codes]
        return pd.Series(lab, index=series.index, name=series.name, dtype=object)

    def levels_table(self, values=None) -> pd.DataFrame:
        """One row per value: the value and its label at levels 1..height (the hierarchy as
        ARX writes it). Explicit hierarchies list their own values when ``values`` is omitted;
        rule-based ones (intervals, masking, dates) need the values.

        Example
        -------
        >>> intervals([10]).levels_table([23, 37])
           value level1 level2
        0     23  20-29      *
        1     37  30-39      *
        """
        b = self.bind(self._default_values(values))
        data = {"value": list(b.values)}
        for j in range(1, b.height + 1):
            data[f"level{j}"] = b.labels[j][b.codes[j]]
        return pd.DataFrame(data)

    def to_frame(self) -> pd.DataFrame:
        """:meth:`levels_table` of an explicit hierarchy (what
        ``pdanon.models.TCloseness(distance="hierarchical", hierarchies=...)`` reads)."""
        return self.levels_table()

    def codes_table(self, values=None) -> pd.DataFrame:
        """Integer node codes of every value at every level (level0 .. level{height}); two
        values share an ancestor at level ``j`` exactly when their ``level{j}`` codes are equal.
        This is the tree in array form, e.g. for hierarchical distances (lowest common ancestor
        = the first level where the codes agree).

        Example
        -------
        >>> tree({"A": ["x", "y"], "B": ["z"]}).codes_table().to_numpy().tolist()
        [[0, 0, 0], [1, 0, 0], [2, 1, 0]]
        """
        b = self.bind(self._default_values(values))
        out = pd.DataFrame({f"level{j}": b.codes[j] for j in range(b.height + 1)})
        out.index = pd.Index(b.values, name="value")
        return out

    # ------------------------------------------------------------------ helpers
    def _default_values(self, values):
        if values is None:
            raise TypeError(f"{self!r} is built by a rule: pass the column's values")
        return values

    def _check_level(self, level, name) -> int:
        if isinstance(level, bool) or not isinstance(level, numbers.Integral):
            raise InvalidInputError(
                f"level for column {name!r} must be an integer in 0..{self.height}, got {level!r}")
        if not 0 <= level <= self.height:
            raise InvalidInputError(
                f"level {level} for column {name!r} is outside its hierarchy's levels "
                f"0..{self.height}")
        return int(level)


# --------------------------------------------------------------------------- explicit trees


class TableHierarchy(Hierarchy):
    """An explicit hierarchy: every value with its label at each level."""

    def __init__(self, values: Sequence, levels: Sequence[Sequence], *, description="table"):
        leaves = pd.Index(list(values))
        if len(leaves) == 0:
            raise InvalidInputError("a hierarchy needs at least one value")
        levels = [np.asarray(list(lv), dtype=object) for lv in levels]
        for j, lv in enumerate(levels, start=1):
            if len(lv) != len(leaves):
                raise InvalidInputError(
                    f"hierarchy level {j} has {len(lv)} labels for {len(leaves)} values")
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
        # validate the tree itself once
        Hierarchy.bind(self, leaves, name=None)

    def _labels(self, values, name):
        idx = self._indexer(values, name)
        return [lv[idx] for lv in self.levels]

    def _indexer(self, values: pd.Index, name) -> np.ndarray:
        idx = self.leaves.get_indexer(values)
        if (idx < 0).any():
            alt = _comparable_leaves(self.leaves, values)
            if alt is not None:
                idx2 = alt.get_indexer(values)
                idx = np.where(idx < 0, idx2, idx)
        missing = values[idx < 0]
        if len(missing):
            shown = list(missing[:10])
            more = f" (and {len(missing) - 10} more)" if len(missing) > 10 else ""
            plural = "value" if len(missing) == 1 else "values"
            raise InvalidInputError(
                f"hierarchy{_for(name)} has no entry for {len(missing)} {plural} of the "
                f"column: {shown}{more}; add {'it' if len(missing) == 1 else 'them'} to the "
                f"hierarchy (a row value;level1;... each)")
        return idx

    def bind(self, values, *, name=None) -> Bound:
        values = _distinct_index(values)
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
        member_values = self._leaves_as(values)
        b = Bound(values, codes, labels, [None] * len(codes), [None] * len(codes),
                  member_values, leaf_codes)
        num = _numeric_or_none(member_values)
        if num is not None:
            v = _numeric_or_none(values)
            lo, hi = [v], [v]
            for j in range(1, self.height + 1):
                c = leaf_codes[j]
                ok = (c >= 0) & ~np.isnan(num)
                lo_j = np.full(b.nodes(j), np.inf)
                hi_j = np.full(b.nodes(j), -np.inf)
                np.minimum.at(lo_j, c[ok], num[ok])
                np.maximum.at(hi_j, c[ok], num[ok])
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
        return self.leaves if values is None else values


# --------------------------------------------------------------------------- rule hierarchies


class IntervalHierarchy(Hierarchy):
    """Numeric bands: level j groups values into bands of ``widths[j-1]`` starting at
    ``start``; the last level is ``top``."""

    def __init__(self, widths: Sequence, *, start=0, top=TOP):
        widths = list(widths)
        if not widths:
            raise InvalidInputError("intervals() needs at least one width, e.g. [5, 10, 20]")
        for w in widths:
            if isinstance(w, bool) or not isinstance(w, numbers.Real) or not w > 0:
                raise InvalidInputError(f"interval widths must be positive numbers, got {w!r}")
        for a, b in zip(widths, widths[1:]):
            ratio = b / a
            if abs(ratio - round(ratio)) > 1e-9 or round(ratio) < 1:
                raise InvalidInputError(
                    f"interval width {b!r} is not a multiple of the previous width {a!r}: a "
                    f"band of width {a} would be split between two bands of width {b}; use "
                    f"widths where each divides the next (e.g. 5, 10, 20)")
        self.widths = widths
        self.start = start
        self.top = top
        self.height = len(widths) + (1 if top is not None else 0)
        self.description = f"intervals {widths}" + (f" then {top!r}" if top is not None else "")

    def _numbers(self, values: pd.Index, name) -> np.ndarray:
        if not (pd.api.types.is_numeric_dtype(values.dtype)
                and not pd.api.types.is_bool_dtype(values.dtype)):
            raise KindError(
                f"interval hierarchy for column {name!r} needs numbers, the column holds "
                f"{values.dtype}; convert it (pd.to_numeric) or use masking()/tree()")
        return np.asarray(values, dtype=np.float64)

    def _bands(self, x: np.ndarray, w) -> tuple[np.ndarray, np.ndarray, bool]:
        integral = bool(np.all(np.mod(x, 1) == 0)) and float(w) == int(w) and float(
            self.start) == int(self.start)
        lo = self.start + np.floor((x - self.start) / w) * w
        hi = lo + (w - 1 if integral else w)
        return lo, hi, integral

    def _labels(self, values, name):
        x = self._numbers(values, name)
        out = []
        for w in self.widths:
            lo, hi, integral = self._bands(x, w)
            if integral:
                lab = [f"{int(a)}-{int(b)}" for a, b in zip(lo, hi)]
            else:
                lab = [f"[{a:g}, {b:g})" for a, b in zip(lo, hi)]
            out.append(np.asarray(lab, dtype=object))
        if self.top is not None:
            out.append(np.full(len(values), self.top, dtype=object))
        return out

    def _ranges(self, values, labels, codes):
        x = self._numbers(values, None)
        lo_levels, hi_levels = [x], [x]
        for j, w in enumerate(self.widths, start=1):
            lo, hi, _ = self._bands(x, w)
            n_nodes = len(labels[j])
            lo_n = np.empty(n_nodes)
            hi_n = np.empty(n_nodes)
            lo_n[codes[j]] = lo
            hi_n[codes[j]] = hi
            lo_levels.append(lo_n)
            hi_levels.append(hi_n)
        if self.top is not None:
            lo_levels.append(np.array([x.min()]) if len(x) else np.array([np.nan]))
            hi_levels.append(np.array([x.max()]) if len(x) else np.array([np.nan]))
        return lo_levels, hi_levels

    def bind(self, values, *, name=None) -> Bound:
        b = Hierarchy.bind(self, values, name=name)
        b.interval = True
        return b


class MaskingHierarchy(Hierarchy):
    """Strings masked from the right, one more character per level (or as given by
    ``steps``), then ``top`` if the last level is not a single node."""

    def __init__(self, *, char="*", steps=None, top=TOP):
        if not isinstance(char, str) or len(char) != 1:
            raise InvalidInputError(f"mask character must be one character, got {char!r}")
        if steps is not None:
            steps = [int(s) for s in steps]
            if not steps or any(s < 1 for s in steps) or any(
                    b <= a for a, b in zip(steps, steps[1:])):
                raise InvalidInputError(
                    f"masking steps must be increasing counts of masked characters >= 1, got "
                    f"{steps!r}")
        self.char = char
        self.steps = steps
        self.top = top
        self.description = f"masking with {char!r}" + (f", steps {steps}" if steps else "")
        self.height = None  # known once bound (default steps depend on the longest value)

    def _strings(self, values: pd.Index) -> list:
        return [v if isinstance(v, str) else str(v) for v in values]

    def _steps_for(self, strings) -> list:
        if self.steps is not None:
            return self.steps
        longest = max((len(s) for s in strings), default=0)
        return list(range(1, longest + 1))

    def _labels(self, values, name):
        strings = self._strings(values)
        out = []
        for m in self._steps_for(strings):
            out.append(np.asarray(
                [s[:max(len(s) - m, 0)] + self.char * min(m, len(s)) for s in strings],
                dtype=object))
        if self.top is not None and (not out or len(set(out[-1])) > 1):
            out.append(np.full(len(strings), self.top, dtype=object))
        return out

    def bind(self, values, *, name=None) -> Bound:
        b = Hierarchy.bind(self, values, name=name)
        return b

    def _check_level(self, level, name) -> int:
        if self.height is None:
            # height depends on the data; checked after binding
            if isinstance(level, bool) or not isinstance(level, numbers.Integral) or level < 0:
                raise InvalidInputError(
                    f"level for column {name!r} must be an integer >= 0, got {level!r}")
            return int(level)
        return Hierarchy._check_level(self, level, name)

    def map(self, values, level: int):
        series = values if isinstance(values, pd.Series) else pd.Series(values)
        level = self._check_level(level, series.name)
        if level == 0:
            return series.copy()
        codes, uniques = _factorize_column(series)
        b = self.bind(uniques, name=series.name)
        if level > b.height:
            raise InvalidInputError(
                f"level {level} for column {series.name!r} is outside its hierarchy's levels "
                f"0..{b.height}")
        lab = b.labels[level][b.codes[level]][codes]
        return pd.Series(lab, index=series.index, name=series.name, dtype=object)

    def height_for(self, values) -> int:
        """The height once bound to these values (masking's default levels depend on the
        longest value)."""
        return self.bind(values).height


_DATE_LEVELS = ("month", "quarter", "year", "decade")


class DateHierarchy(Hierarchy):
    """Dates: day → month → year (or any increasing subset of month, quarter, year,
    decade) → ``top``."""

    def __init__(self, levels=("month", "year"), *, top=TOP):
        levels = list(levels)
        for lv in levels:
            if lv not in _DATE_LEVELS:
                raise InvalidInputError(
                    f"unknown date level {lv!r}; use some of {list(_DATE_LEVELS)} in this order")
        pos = [_DATE_LEVELS.index(lv) for lv in levels]
        if pos != sorted(set(pos)) or not levels:
            raise InvalidInputError(
                f"date levels must be a non-empty increasing subset of {list(_DATE_LEVELS)}, "
                f"got {levels}")
        self.date_levels = levels
        self.top = top
        self.height = len(levels) + (1 if top is not None else 0)
        self.description = "dates " + " → ".join(["day", *levels] + ([top] if top else []))

    def _labels(self, values, name):
        try:
            ts = pd.DatetimeIndex(pd.to_datetime(values))
        except (TypeError, ValueError) as exc:
            raise KindError(
                f"date hierarchy for column {name!r} needs dates, got values such as "
                f"{list(values[:3])} ({exc}); convert them with pd.to_datetime") from None
        out = []
        for lv in self.date_levels:
            if lv == "month":
                lab = ts.strftime("%Y-%m")
            elif lv == "quarter":
                lab = [f"{y}Q{q}" for y, q in zip(ts.year, ts.quarter)]
            elif lv == "year":
                lab = ts.strftime("%Y")
            else:
                lab = [f"{(y // 10) * 10}s" for y in ts.year]
            out.append(np.asarray(list(lab), dtype=object))
        if self.top is not None:
            out.append(np.full(len(values), self.top, dtype=object))
        return out


# --------------------------------------------------------------------------- builders


def intervals(widths: Sequence, *, start=0, top=TOP) -> Hierarchy:
    """Numeric bands, one width per level, then ``top`` (``None``: no top level).

    Bands start at ``start`` (a band is ``[start + i·w, start + (i+1)·w)``); each width must
    be a multiple of the previous one, so every band lies inside one band of the next level.
    Integer columns get labels ``20-29`` and ranges ``[20, 29]``; other numbers get labels
    ``[20.5, 30.5)`` and ranges ``[20.5, 30.5]``.

    Example
    -------
    >>> intervals([5, 10, 20]).levels_table([23, 41])
       value level1 level2 level3 level4
    0     23  20-24  20-29  20-39      *
    1     41  40-44  40-49  40-59      *
    """
    return IntervalHierarchy(widths, start=start, top=top)


def masking(*, char: str = "*", steps: Sequence[int] | None = None, top: str | None = TOP
            ) -> Hierarchy:
    """Mask characters from the right: level j masks ``steps[j-1]`` characters (default 1, 2,
    … up to the longest value), then ``top`` if the last level still has several nodes.
    Non-string values are masked in their ``str`` form.

    Example
    -------
    >>> masking().levels_table(["10001", "10002"])
       value level1 level2 level3 level4 level5
    0  10001  1000*  100**  10***  1****  *****
    1  10002  1000*  100**  10***  1****  *****
    >>> masking(char="X", steps=[2]).levels_table(["10001", "10201"])  # the tutorial's 100XX
       value level1 level2
    0  10001  100XX      *
    1  10201  102XX      *
    """
    return MaskingHierarchy(char=char, steps=steps, top=top)


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
    paths: list[list] = []

    def walk(node, path):
        if node is None or (isinstance(node, (list, tuple, set)) and len(node) == 0):
            paths.append(path)
            return
        if isinstance(node, Mapping):
            for key, child in node.items():
                walk(child, path + [key])
            return
        if isinstance(node, (list, tuple, set)):
            for item in node:
                if isinstance(item, Mapping):
                    walk(item, path)
                else:
                    paths.append(path + [item])
            return
        paths.append(path + [node])  # a single leaf given without a list

    walk(spec, [])
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


def from_table(table, *, value_column=None) -> Hierarchy:
    """An explicit hierarchy from a mapping table: a DataFrame whose first column (or
    ``value_column``) holds the values and whose next columns hold the labels at level 1,
    2, … (a list of rows works too).

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
    cols = list(table.columns)
    if value_column is not None:
        if value_column not in cols:
            raise InvalidInputError(f"value_column {value_column!r} is not in the table {cols}")
        cols.remove(value_column)
        cols = [value_column] + cols
    values = table[cols[0]].tolist()
    levels = [table[c].tolist() for c in cols[1:]]
    if any(pd.isna(v) for lv in levels for v in lv):
        raise InvalidInputError("a hierarchy table has an empty label; fill every level")
    return TableHierarchy(values, levels, description="table")


def dates(levels: Sequence[str] = ("month", "year"), *, top: str | None = TOP) -> Hierarchy:
    """Dates generalized to month, quarter, year or decade (an increasing subset), then
    ``top``.

    Example
    -------
    >>> dates().levels_table(pd.to_datetime(["2024-03-05"]))
           value   level1 level2 level3
    0 2024-03-05  2024-03   2024      *
    """
    return DateHierarchy(levels, top=top)


def read_arx_csv(path, *, sep: str = ";", encoding: str = "utf-8") -> Hierarchy:
    """Read a hierarchy in ARX's CSV format: one row per value, ``value;level1;…;*``, no
    header.

    Example
    -------
    >>> import pdanon
    >>> h = read_arx_csv(pdanon.datasets.adult_hierarchy_path("education"))
    >>> h.height, h.map(pd.Series(["Masters"]), 2).tolist()
    (3, ['Higher education'])
    """
    text = Path(path).read_text(encoding=encoding) if not hasattr(path, "read_text") else \
        path.read_text(encoding=encoding)
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
    values = [r[0] for r in rows]
    levels = [[r[j] for r in rows] for j in range(1, len(rows[0]))]
    return TableHierarchy(values, levels, description=f"ARX file {Path(str(path)).name}")


def as_hierarchy(spec, *, name=None) -> Hierarchy:
    """Accept a :class:`Hierarchy`, a nested dict (:func:`tree`), a mapping table
    (:func:`from_table`) or a path to an ARX CSV file (:func:`read_arx_csv`)."""
    if isinstance(spec, Hierarchy):
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


# --------------------------------------------------------------------------- helpers


def _for(name) -> str:
    return "" if name is None else f" for column {name!r}"


def _name_of(values, name):
    if name is not None:
        return name
    return getattr(values, "name", None)


def _distinct_index(values) -> pd.Index:
    if isinstance(values, pd.Index) and values.is_unique:
        return values
    if isinstance(values, (pd.Series, pd.Index)):
        arr = values
    else:
        arr = pd.Series(list(values) if not isinstance(values, np.ndarray) else values)
    uniques = pd.unique(arr.dropna() if hasattr(arr, "dropna") else arr)
    if isinstance(uniques, pd.Categorical):
        uniques = np.asarray(uniques)
    return pd.Index(uniques)


def _factorize_column(series: pd.Series):
    if series.isna().any():
        first = series.index[np.flatnonzero(series.isna().to_numpy())[0]]
        raise InvalidInputError(
            f"column {series.name!r} has missing values (first at index {first!r}); fill or drop "
            f"them before generalizing")
    codes, uniques = pd.factorize(series, sort=False)
    if isinstance(uniques, pd.Categorical):
        uniques = pd.Index(np.asarray(uniques))
    return np.asarray(codes, dtype=np.int64), pd.Index(uniques)


def _factorize_labels(labels) -> tuple[np.ndarray, np.ndarray]:
    codes, uniques = pd.factorize(np.asarray(labels, dtype=object), sort=False)
    return np.asarray(codes, dtype=np.int64), np.asarray(uniques, dtype=object)


def _check_coarsening(values, prev_codes, prev_labels, codes, labels, level, name, h) -> None:
    """Every node at level-1 must have exactly one parent at ``level``."""
    n_prev = len(prev_labels)
    if n_prev == 0:
        return
    lo = np.full(n_prev, np.iinfo(np.int64).max)
    hi = np.full(n_prev, -1)
    np.minimum.at(lo, prev_codes, codes)
    np.maximum.at(hi, prev_codes, codes)
    bad = np.flatnonzero(lo != hi)
    if len(bad):
        node = bad[0]
        rows = np.flatnonzero(prev_codes == node)
        first = rows[0]
        other = rows[codes[rows] != codes[first]][0]
        parents = (labels[codes[first]], labels[codes[other]])
        v1, v2 = values[first], values[other]
        raise InvalidInputError(
            f"hierarchy {h.description}{_for(name)}: level {level} is not a coarsening "
            f"of level {level - 1}: {prev_labels[node]!r} at level {level - 1} generalizes to "
            f"both {parents[0]!r} and {parents[1]!r} (values {v1!r} and {v2!r}); every node "
            f"needs a single parent, so give nodes at the same level distinct labels")


def _numeric_or_none(values) -> np.ndarray | None:
    idx = pd.Index(values)
    if pd.api.types.is_numeric_dtype(idx.dtype) and not pd.api.types.is_bool_dtype(idx.dtype):
        return np.asarray(idx, dtype=np.float64)
    return None


def _member_ranges(values: pd.Index, codes: list):
    """Per level and node the [min, max] of the (numeric) values under it, or None lists."""
    num = _numeric_or_none(values)
    if num is None:
        return [None] * len(codes), [None] * len(codes)
    lo, hi = [], []
    for c in codes:
        m = int(c.max()) + 1 if len(c) else 0
        lo_j = np.full(m, np.inf)
        hi_j = np.full(m, -np.inf)
        np.minimum.at(lo_j, c, num)
        np.maximum.at(hi_j, c, num)
        lo.append(lo_j)
        hi.append(hi_j)
    return lo, hi


def _comparable_leaves(leaves: pd.Index, values: pd.Index) -> pd.Index | None:
    """Leaves converted to the column's type (ARX files hold numbers as text)."""
    if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_numeric_dtype(
            leaves.dtype):
        num = pd.to_numeric(pd.Series(leaves), errors="coerce")
        return pd.Index(num.to_numpy(dtype=np.float64))
    if not pd.api.types.is_numeric_dtype(values.dtype) and pd.api.types.is_numeric_dtype(
            leaves.dtype):
        return pd.Index([str(v) for v in leaves])
    if values.dtype == object and leaves.dtype == object:
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


# --------------------------------------------------------------------------- columns at levels


@dataclass
class ColumnLevels:
    """A column bound to its hierarchy: the node of every row at every level, and the cells
    a level publishes (internal; shared by ``df.anon.generalize`` and the lattice search).

    ``rows`` maps each row to its value in ``bound.values``; ``positions`` (ordered columns
    with categories) maps each member value of the hierarchy to its position in
    ``categories`` (-1 when absent).
    """

    name: Any
    kind: str
    bound: Bound
    rows: np.ndarray
    categories: pd.Index | None = None
    numeric: bool = True
    integer: bool = False

    @property
    def height(self) -> int:
        return self.bound.height

    def node_codes(self, level: int) -> np.ndarray:
        """Node code of every row at ``level``."""
        return self.bound.codes[level][self.rows]

    def node_ranges(self, level: int):
        """``(lo, hi)`` per node at ``level`` for real/ordered output (positions in
        ``categories`` for ordered columns with categories)."""
        b = self.bound
        if self.categories is not None:
            pos = self.categories.get_indexer(b.member_values)
            codes = b.member_codes[level]
            ok = (pos >= 0) & (codes >= 0)
            lo = np.full(b.nodes(level), np.iinfo(np.int64).max, dtype=np.int64)
            hi = np.full(b.nodes(level), -1, dtype=np.int64)
            np.minimum.at(lo, codes[ok], pos[ok])
            np.maximum.at(hi, codes[ok], pos[ok])
            return lo, hi
        return b.lo[level], b.hi[level]

    def plain_nodes(self, level: int) -> np.ndarray:
        """Per node: is the published cell a plain value (a node holding one value)?"""
        b = self.bound
        if level == 0:
            return np.ones(b.nodes(0), dtype=bool)
        if self.kind == "unordered":
            codes = b.member_codes[level]
            return np.bincount(codes[codes >= 0], minlength=b.nodes(level)) == 1
        lo, hi = self.node_ranges(level)
        return np.asarray(lo) == np.asarray(hi)

    def cells(self, level: int, *, mask=None, labels: bool = False):
        """The published column at ``level``: a :class:`~pdanon.dtype.GeneralizationArray`
        (ranges for real/ordered, sets for unordered), or hierarchy labels (an object array)
        when ``labels`` is true. ``mask`` marks suppressed rows (missing cells)."""
        b = self.bound
        nodes = self.node_codes(level)
        n = len(nodes)
        mask = np.zeros(n, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
        if labels:
            out = np.asarray(b.labels[level], dtype=object)[nodes]
            out = out.copy()
            out[mask] = None
            return out
        from pdanon.dtype import GeneralizationArray

        if self.kind == "unordered":
            universe = b.member_values
            codes = b.member_codes[level]
            if universe.has_duplicates:
                universe, codes = b.values, b.codes[level]
            per_value = GeneralizationArray.from_groups(
                np.arange(len(universe)), codes, kind="unordered", categories=universe)
            rep = np.full(b.nodes(level), -1, dtype=np.int64)
            present = np.flatnonzero(codes >= 0)
            rep[codes[present[::-1]]] = present[::-1]  # first member of every node
            take = np.where(mask, -1, rep[nodes])
            return per_value.take(take, allow_fill=True)
        lo_n, hi_n = self.node_ranges(level)
        lo = np.asarray(lo_n)[nodes]
        hi = np.asarray(hi_n)[nodes]
        if self.categories is not None:
            return GeneralizationArray.from_bounds(lo, hi, kind=self.kind,
                                                   categories=self.categories, mask=mask)
        lo = lo.astype(np.float64)
        hi = hi.astype(np.float64)
        integer = self.integer and bool(np.all(np.mod(lo[~mask], 1) == 0)) and bool(
            np.all(np.mod(hi[~mask], 1) == 0))
        return GeneralizationArray.from_bounds(lo, hi, kind=self.kind, mask=mask,
                                               integer=integer)


def column_levels(hierarchy, series: pd.Series, kind: str) -> ColumnLevels:
    """Bind ``hierarchy`` to a column (factorized once; only distinct values are mapped).

    Example
    -------
    >>> cl = column_levels(intervals([10]), pd.Series([23, 37, 25], name="age"), "real")
    >>> cl.node_codes(1).tolist(), cl.cells(1).tolist()
    ([0, 1, 0], [[20, 29], [30, 39], [20, 29]])
    """
    from pdanon.encode import encode_column

    h = as_hierarchy(hierarchy, name=series.name)
    if series.isna().any():
        first = series.index[np.flatnonzero(series.isna().to_numpy())[0]]
        raise InvalidInputError(
            f"column {series.name!r} has missing values (first at index {first!r}); fill or drop "
            f"them before generalizing")
    if isinstance(series.dtype, _generalization_dtype()):
        raise KindError(
            f"column {series.name!r} is already generalized; apply hierarchies to the original "
            f"values")
    enc = encode_column(series, kind)
    return column_levels_encoded(h, enc, integer=pd.api.types.is_integer_dtype(series.dtype))


def column_levels_encoded(hierarchy: Hierarchy, enc, *, integer: bool = False) -> ColumnLevels:
    """:func:`column_levels` from an :class:`~pdanon.encode.EncodedColumn`."""
    codes = np.asarray(enc.codes, dtype=np.int64)
    cats = enc.categories
    used = np.flatnonzero(np.bincount(codes, minlength=len(cats)) > 0)
    remap = np.full(len(cats), -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    values = cats[used]
    if isinstance(values, pd.CategoricalIndex):
        values = pd.Index(np.asarray(values))
    if enc.kind == "real" and integer:
        as_int = np.asarray(values, dtype=np.float64)
        if np.all(np.mod(as_int, 1) == 0):
            values = pd.Index(as_int.astype(np.int64))
    bound = hierarchy.bind(values, name=enc.name)
    categories = None
    numeric = enc.kind == "real" or bool(enc.numeric)
    if enc.kind == "ordered" and not numeric:
        categories = pd.Index(np.asarray(cats)) if isinstance(cats, pd.CategoricalIndex) else cats
    if enc.kind in ("real", "ordered") and numeric and bound.lo[0] is None:
        raise KindError(f"column {enc.name!r}: numeric column but non-numeric hierarchy values")
    return ColumnLevels(enc.name, enc.kind, bound, remap[codes], categories, numeric,
                        bool(integer))


def _generalization_dtype():
    from pdanon.dtype import GeneralizationDtype

    return GeneralizationDtype


def generalize_frame(df: pd.DataFrame, levels: Mapping, hierarchies: Mapping, kinds: Mapping,
                     *, labels: bool = False) -> tuple[pd.DataFrame, dict]:
    """Apply ``levels`` ({column: level}) with ``hierarchies`` ({column: hierarchy}); the
    engine of :meth:`df.anon.generalize`. Returns the new frame and an info dict.

    Every Categorical or generalized column of the new frame lists only the categories its
    cells need (:func:`pdanon.recode.published_categories`).

    Example
    -------
    >>> df = pd.DataFrame({"zip": ["10001", "10002"], "age": [23, 37]})
    >>> out, info = generalize_frame(df, {"zip": 2, "age": 1},
    ...                              {"zip": masking(), "age": intervals([10])},
    ...                              {"zip": "unordered", "age": "real"}, labels=True)
    >>> out.to_dict("list")
    {'zip': ['100**', '100**'], 'age': ['20-29', '30-39']}
    """
    from pdanon._errors import UnknownColumnError

    if not isinstance(levels, Mapping) or not levels:
        raise InvalidInputError("levels must be a non-empty dict {column: level}")
    hierarchies = dict(hierarchies or {})
    unknown = [c for c in list(levels) + list(hierarchies) if c not in df.columns]
    if unknown:
        raise UnknownColumnError(
            f"unknown column(s) {sorted(set(map(str, unknown)))} in levels/hierarchies; the frame "
            f"has columns {list(df.columns)}")
    no_h = [c for c in levels if c not in hierarchies]
    if no_h:
        raise InvalidInputError(
            f"no hierarchy for column(s) {no_h}: pass hierarchies={{column: hierarchy}} "
            f"(e.g. pdanon.hierarchy.intervals([10]) or masking())")
    out = df.copy()
    changed = 0
    applied = {}
    for col, level in levels.items():
        h = as_hierarchy(hierarchies[col], name=col)
        cl = column_levels(h, df[col], kinds[col])
        level = _check_level_bound(level, cl.height, col)
        applied[col] = level
        if level == 0:
            continue
        new = cl.cells(level, labels=labels)
        if labels:
            out[col] = pd.Series(new, index=df.index, name=col, dtype=object)
            changed += int(len(df))
        else:
            out[col] = pd.Series(new, index=df.index, name=col)
            changed += int((~cl.plain_nodes(level)[cl.node_codes(level)]).sum())
    from pdanon.recode import publish_frame

    publish_frame(out)  # no dtype lists a category that no cell needs
    info = {"levels": applied, "labels": bool(labels), "changed_cells": changed,
            "rows": len(df)}
    return out, info


def _check_level_bound(level, height: int, col) -> int:
    if isinstance(level, bool) or not isinstance(level, numbers.Integral):
        raise InvalidInputError(
            f"level for column {col!r} must be an integer in 0..{height}, got {level!r}")
    if not 0 <= level <= height:
        raise InvalidInputError(
            f"level {level} for column {col!r} is outside its hierarchy's levels 0..{height}")
    return int(level)
