"""Which population rows match a published class: containment in its published cells.

An attacker who holds a population register (k-map, δ-presence against a table; see
:mod:`pdanon.models.population`) links a published class to the register rows whose every
quasi-identifier value lies in the class's published cells:

* a range (``real`` or ``ordered`` column) contains the values between its bounds, strict at
  an open end (``[30, 35)``); for an ordered column of text or categories "between" follows
  the population column's order (its categories when it is a Categorical, else the sorted
  values);
* a set (``unordered``) contains its members; a plain published value contains itself;
* a missing published cell contains only missing values, and a missing population value lies
  only in a missing published cell (``missing="value"``: a missing cell is a value of its
  own) or in a cell that covers missing too (``[20, 29] or missing``, published for a class
  that mixes blank and present cells: :mod:`pdanon.dtype.ormissing`).

:func:`population_matches` counts, for every class, the population rows it contains; a
population row may match several classes (overlapping ranges or sets, which local recoding
can publish) and then counts in each. With ``shared=True`` it also returns, per class, the
largest number of classes that one of its population rows matches (1 when the classes' cells
are disjoint, as under global recoding): δ-presence reads it (``ClassCounts.population_shared``).

Work: the population is first reduced to its distinct quasi-identifier combinations; each
column becomes an integer key per combination and, per class, an interval of keys (ranges and
plain values) or the members of its cell (sets: the distinct published cells' member keys in
sparse form, never a cells × categories table). The classes are then compared with every
combination in chunks of at most ``budget`` (class, combination) pairs: O(classes ×
combinations × columns) vectorized work, O(budget + members) memory, no Python loop over rows
or classes beyond the chunks.

Example
-------
>>> import pandas as pd
>>> from pdanon.dtype import GeneralizationRange
>>> published = pd.DataFrame({"age": pd.array([GeneralizationRange(20, 29, "real"), 40],
...                                           dtype="generalization[real]")})
>>> population = pd.DataFrame({"age": [20, 25, 29, 30, 40, 40, None]})
>>> population_matches(published, np.array([0, 1]), population, ["age"])[0].tolist()
[3, 2]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

#: (class, population combination) pairs compared at once
BUDGET = 1 << 22


@dataclass
class _Column:
    """One quasi-identifier as the counter sees it: ``keys`` (one per population
    combination) and, per class, the interval ``[start, end)`` of keys its cell contains, or
    (sets) its distinct cell ``cell``, whose member keys are
    ``members[indptr[cell]:indptr[cell + 1]]``."""

    keys: np.ndarray
    start: np.ndarray | None = None
    end: np.ndarray | None = None
    cell: np.ndarray | None = None
    indptr: np.ndarray | None = None
    members: np.ndarray | None = None
    key_order: np.ndarray | None = None  # sets: the combinations sorted by key
    or_missing: np.ndarray | None = None  # per class: the cell covers missing too
    missing_key: int = -1  # the key of a missing population value

    def contains(self, g0: int, g1: int) -> np.ndarray:
        """(classes g0..g1-1) × combinations: does the class's cell contain the key?"""
        out = self._contains(g0, g1)
        if self.or_missing is not None:
            out |= self.or_missing[g0:g1, None] & (self.keys[None, :] == self.missing_key)
        return out

    def _contains(self, g0: int, g1: int) -> np.ndarray:
        keys = self.keys
        if self.members is None:
            return ((self.start[g0:g1, None] <= keys[None, :])
                    & (keys[None, :] < self.end[g0:g1, None]))
        from pdanon.dtype.storage import gather_segments

        # every (class, member key) pair marks the combinations holding that key
        lens, flat = gather_segments(self.indptr, self.members, self.cell[g0:g1])
        order = self.key_order
        sorted_keys = keys[order]
        lo = np.searchsorted(sorted_keys, flat, "left")
        hits = np.searchsorted(sorted_keys, flat, "right") - lo
        row = np.repeat(np.repeat(np.arange(g1 - g0), lens), hits)
        at = np.arange(int(hits.sum())) + np.repeat(lo - (np.cumsum(hits) - hits), hits)
        out = np.zeros((g1 - g0, len(keys)), dtype=bool)
        out[row, order[at]] = True
        return out


def _first_rows(labels: np.ndarray, groups: int) -> np.ndarray:
    first = np.full(groups, len(labels), dtype=np.int64)
    np.minimum.at(first, labels, np.arange(len(labels), dtype=np.int64))
    return first


def _equality(cells: pd.Series, values: pd.Series) -> _Column:
    """Plain published values: a cell contains the values equal to it (missing = missing)."""
    from pdanon._groups import class_labels

    joint = pd.DataFrame({"v": pd.concat([cells.reset_index(drop=True),
                                          values.reset_index(drop=True)], ignore_index=True)})
    codes = class_labels(joint, ["v"])
    g = len(cells)
    return _Column(codes[g:], start=codes[:g], end=codes[:g] + 1)


def _numeric_ranges(arr, values: pd.Series) -> _Column:
    v = values.to_numpy(dtype=np.float64, na_value=np.nan)
    na = np.isnan(v)
    vals = np.unique(v[~na])
    m = len(vals)  # the key of a missing value
    keys = np.where(na, m, np.searchsorted(vals, np.where(na, 0.0, v)))
    lo, hi = np.asarray(arr.lo, dtype=np.float64), np.asarray(arr.hi, dtype=np.float64)
    closed = np.asarray(arr.closed, dtype=object)
    open_lo = np.isin(closed, ["right", "neither"])
    open_hi = np.isin(closed, ["left", "neither"])
    blank = np.asarray(arr.isna(), dtype=bool)
    lo, hi = np.where(blank, 0.0, lo), np.where(blank, 0.0, hi)
    start = np.where(open_lo, np.searchsorted(vals, lo, "right"), np.searchsorted(vals, lo))
    end = np.where(open_hi, np.searchsorted(vals, hi), np.searchsorted(vals, hi, "right"))
    return _Column(keys, start=np.where(blank, m, start), end=np.where(blank, m + 1, end),
                   or_missing=_flags(arr), missing_key=m)


def _flags(arr) -> np.ndarray | None:
    """Per published cell: does it cover missing too (None when no cell does)?"""
    flags = np.asarray(arr.or_missing, dtype=bool)
    return flags if flags.any() else None


def _ordered_ranges(arr, values: pd.Series) -> _Column:
    """Ranges over categories: bounds and values placed in one order (the population
    column's categories when it is a Categorical, else the sorted values)."""
    from pdanon._errors import InvalidInputError
    from pdanon.encode import encode_column

    cats = pd.Series(np.asarray(arr.categories, dtype=object))
    values = values.reset_index(drop=True)
    if isinstance(values.dtype, pd.CategoricalDtype):
        cast = pd.Series(pd.Categorical(cats, dtype=values.dtype))
        if cast.isna().any():
            raise InvalidInputError(
                f"population column {values.name!r} lacks the published value "
                f"{cats[cast.isna()].iloc[0]!r} among its categories; give the population "
                f"the sample's categories")
        cats = cast
    col = encode_column(pd.concat([cats, values], ignore_index=True).rename(values.name),
                        "ordered")
    c = len(cats)
    pos, keys = col.codes[:c], col.codes[c:]
    m = len(col.categories)  # the encoder's missing code
    lo, hi = np.asarray(arr.lo), np.asarray(arr.hi)
    blank = lo < 0
    closed = np.asarray(arr.closed, dtype=object)
    start = pos[np.maximum(lo, 0)] + np.isin(closed, ["right", "neither"])
    end = pos[np.maximum(hi, 0)] + 1 - np.isin(closed, ["left", "neither"])
    return _Column(keys, start=np.where(blank, m, start), end=np.where(blank, m + 1, end),
                   or_missing=_flags(arr), missing_key=m)


def _sets(arr, values: pd.Series) -> _Column:
    """Sets (and plain values) of an unordered column: the members of the distinct published
    cells (category positions as keys, sparse), a missing key ``c`` and a key no cell holds
    (``c + 1``)."""
    cats = pd.Index(arr.categories)
    c = len(cats)
    v = values.astype(object).to_numpy()
    na = pd.isna(v)
    pos = cats.get_indexer(pd.Index(v, tupleize_cols=False, dtype=object))
    keys = np.where(na, c, np.where(pos >= 0, pos, c + 1))
    codes = np.asarray(arr.codes)
    uniq, first, cell = np.unique(codes, return_index=True, return_inverse=True)
    indptr, members = arr.take(first).members()
    if len(uniq) and uniq[0] < 0:  # a missing cell (sorted first) holds the missing values only
        indptr = np.concatenate([[0], indptr[1:] + 1])
        members = np.concatenate([[c], members])
    return _Column(keys, cell=cell.reshape(-1), indptr=indptr, members=members,
                   key_order=np.argsort(keys, kind="stable"), or_missing=_flags(arr),
                   missing_key=c)


def _column(cells: pd.Series, values: pd.Series) -> _Column:
    from pdanon.dtype import GeneralizationDtype

    if not isinstance(cells.dtype, GeneralizationDtype):
        return _equality(cells, values)
    arr = cells.array
    if arr.kind == "unordered":
        return _sets(arr, values)
    if arr.categories is None:
        return _numeric_ranges(arr, values)
    return _ordered_ranges(arr, values)


def population_matches(published: pd.DataFrame, labels: np.ndarray, population: pd.DataFrame,
                       quasi_identifiers, *, shared: bool = False, budget: int = BUDGET):
    """Population rows contained in the cells of every class of ``published``.

    ``labels`` gives the class (``0..G-1``) of every row of ``published`` (rows of a class
    share their cells). Returns ``(counts, shared)``: ``counts[g]`` the population rows whose
    every quasi-identifier lies in class g's cells (module docstring); ``shared[g]`` (with
    ``shared=True``, else None) the largest number of classes matched by one of class g's
    population rows (0 when it has none).

    Example
    -------
    >>> published = pd.DataFrame({"zip": ["a", "b"], "sex": ["F", None]})
    >>> population = pd.DataFrame({"zip": ["a", "a", "b", "b"], "sex": ["F", "M", None, "F"]})
    >>> counts, shared = population_matches(published, np.array([0, 1]), population,
    ...                                     ["zip", "sex"], shared=True)
    >>> counts.tolist(), shared.tolist()
    ([1, 1], [1, 1])
    """
    from pdanon._groups import class_labels

    qi = list(quasi_identifiers)
    labels = np.asarray(labels, dtype=np.int64)
    groups = int(labels.max()) + 1 if len(labels) else 0
    counts = np.zeros(groups, dtype=np.int64)
    share = np.zeros(groups, dtype=np.int64) if shared else None
    if not groups or not len(population):
        return counts, share
    combos = class_labels(population, qi)
    weights = np.bincount(combos)
    reps = _first_rows(combos, len(weights))
    firsts = _first_rows(labels, groups)
    columns = [_column(published[c].iloc[firsts], population[c].iloc[reps]) for c in qi]
    step = max(1, int(budget) // max(len(weights), 1))

    def masks():
        for g0 in range(0, groups, step):
            g1 = min(groups, g0 + step)
            mask = np.ones((g1 - g0, len(weights)), dtype=bool)
            for col in columns:
                mask &= col.contains(g0, g1)
            yield g0, g1, mask

    hits = np.zeros(len(weights), dtype=np.int64)
    for g0, g1, mask in masks():
        counts[g0:g1] = mask.astype(np.int64) @ weights
        if shared:
            hits += mask.sum(axis=0)
    if shared:
        for g0, g1, mask in masks():
            share[g0:g1] = np.where(mask, hits[None, :], 0).max(axis=1, initial=0)
    return counts, share
