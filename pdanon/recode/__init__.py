"""Recoders: group labels -> output quasi-identifier columns.

Changes: **recoding** only. Given a :class:`~pdanon.partition.Partition`, each quasi-identifier
column is rebuilt in one vectorized pass:

* ``suppress`` — cells of a group whose column is not constant become missing;
* ``generalize`` — a group's cells become one generalized cell: ``[min, max]`` for real and
  ordered columns, the set of the group's values for unordered columns (a constant column stays
  a plain value); the output column has the generalization dtype. A group that mixes missing
  and present cells publishes the cell of its present values marked as covering missing
  (``[20, 25] or missing``, :mod:`pdanon.dtype.ormissing`) in every row, missing ones
  included: no present cell is blanked; a group of missing cells only stays missing;
* ``aggregate`` — a group's cells become the group's mean (real), the element at position
  ``len // 2`` of its sorted values (ordered), or its mode (unordered; ties go to the value met
  first in group-build order).

Every function returns the new column and the number of cells whose value changed.

Published categories
--------------------
A published column lists no value that none of its published cells shows
(:func:`published_categories`): a Categorical keeps only the categories some cell holds (order
and ``ordered`` kept); a generalized ``unordered`` column keeps the values that are a plain cell
or a member of a published set; a generalized ``ordered`` column with categories keeps, in
order, the categories that lie within the bounds of some published cell (a range ``[a, c]``
needs every category between ``a`` and ``c`` to be read). Values of suppressed rows, or merged
into a cell that is not published, therefore vanish from the dtype and from files written from
it (Parquet dictionaries, the generalization extension metadata).

Example
-------
>>> import numpy as np, pandas as pd
>>> from pdanon.encode import encode_column
>>> s = pd.Series([1, 3, 5, 5])
>>> col, changed = generalize(s, encode_column(s, "real"), np.array([0, 0, 1, 1]))
>>> col.astype(str).tolist(), changed
(['[1, 3]', '[1, 3]', '5', '5'], 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pdanon.encode import EncodedColumn

METHODS = ("generalize", "suppress", "aggregate")


def published_categories(series: pd.Series) -> pd.Series:
    """``series`` whose dtype lists only categories that its published cells need.

    * Categorical: the categories some cell holds (``cat.remove_unused_categories``: order
      and ``ordered`` kept);
    * generalization dtype, ``unordered``: the values that are a plain cell or a member of a
      set cell;
    * generalization dtype, ``ordered`` with categories: the categories, in their order, that
      lie within ``[lo, hi]`` of some non-missing cell (a plain cell is ``[v, v]``), so every
      published range can still be read against the category order; for dates in order
      (read by value: :attr:`~pdanon.dtype.GeneralizationDtype.dates_by_value`) only the bounds
      some cell shows;
    * any other dtype: unchanged.

    Missing cells need no category. Returns ``series`` itself when nothing is to be removed,
    otherwise a new Series (same index and name). Vectorized: O(rows + categories), plus one
    pass over the members of the distinct sets that published cells use.

    Example
    -------
    >>> s = pd.Series(pd.Categorical(["a", None, "c"], categories=["a", "b", "c", "d"],
    ...                              ordered=True))
    >>> published_categories(s).cat.categories.tolist()
    ['a', 'c']
    >>> from pdanon.dtype import GeneralizationArray
    >>> g = GeneralizationArray.from_bounds([1, 4], [2, 4], kind="ordered",
    ...                                     categories=["A", "B", "C", "D", "E"], mask=[0, 1])
    >>> published_categories(pd.Series(g)).dtype.categories.tolist()
    ['B', 'C']
    """
    keep = used_categories(series)
    if keep is not None and not (keep.all() and not isinstance(series.dtype.categories,
                                                                pd.CategoricalIndex)):
        series = restrict_categories(series, keep)
    return sorted_categories(series)


def category_sort_key(value):
    """The order :func:`sorted_categories` lists unordered categories in: numbers by value,
    then other values by type and text (so ``3`` and ``"3"``, or text and dates, can share a
    column)."""
    if isinstance(value, (np.integer, np.floating)):
        value = value.item()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("", value, "")  # exact: Python compares big integers and floats exactly
    return (type(value).__name__, 0, str(value))


def sorted_categories(series: pd.Series) -> pd.Series:
    """``series`` whose generalization dtype's *unordered* categories are sorted
    (:func:`category_sort_key`). The encoder lists a column's values in the order they first
    appear in the input, and a dtype's category order travels with the release (Parquet
    metadata, the schema, the recoding): the first row's value would be the first category,
    and neighbouring rows' values would follow. Ordered categories keep their order (the
    hierarchy's or the column's, which says nothing about the rows), and so do a
    Categorical's (the caller's, or a hierarchy's labels). Returns ``series`` itself when
    there is nothing to sort.

    Example
    -------
    >>> from pdanon.dtype import GeneralizationArray
    >>> cells = GeneralizationArray.from_membership([[1, 0, 0], [0, 1, 1]], ["b", "a", "c"])
    >>> out = sorted_categories(pd.Series(cells))
    >>> out.dtype.categories.tolist(), out.tolist()
    (['a', 'b', 'c'], ['b', {a, c}])
    """
    from pdanon.dtype import GeneralizationDtype

    dtype = series.dtype
    if not (isinstance(dtype, GeneralizationDtype) and dtype.column_type == "unordered"
            and dtype.categories is not None):
        return series
    cats = list(dtype.categories)
    order = sorted(range(len(cats)), key=lambda i: category_sort_key(cats[i]))
    if order == list(range(len(cats))):
        return series
    new_cats = _values_index(dtype.categories, np.asarray(order, dtype=np.int64))
    new = series.array.astype(GeneralizationDtype("unordered", new_cats))
    return pd.Series(new, index=series.index, name=series.name)


def used_categories(series: pd.Series) -> np.ndarray | None:
    """One boolean per category of ``series``' dtype: does a published cell need it (the rule
    of :func:`published_categories`)? ``None`` for a dtype without categories.

    Several pieces of one column (a Dask frame's partitions) need the union of their masks:
    :func:`restrict_categories` with it gives every piece the same dtype.

    Example
    -------
    >>> used_categories(pd.Series(pd.Categorical(["b"], categories=["a", "b"]))).tolist()
    [False, True]
    """
    from pdanon.dtype import GeneralizationDtype

    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        codes = np.asarray(series.array.codes)
        return np.bincount(codes[codes >= 0], minlength=len(dtype.categories)) > 0
    if not isinstance(dtype, GeneralizationDtype) or dtype.categories is None:
        return None
    arr = series.array
    c = len(dtype.categories)
    if dtype.column_type == "unordered":
        codes = np.asarray(arr.codes)
        keep = np.zeros(c, dtype=bool)
        keep[codes[(codes >= 0) & (codes < c)]] = True
        is_set = codes >= c
        if is_set.any():
            # the members of the distinct sets some cell uses (one row of each, sparse)
            _, first = np.unique(codes[is_set], return_index=True)
            keep[arr.take(np.flatnonzero(is_set)[first]).members()[1]] = True
        return keep
    lo, hi = np.asarray(arr.lo), np.asarray(arr.hi)
    valid = lo >= 0
    if dtype.dates_by_value:
        # dates are read by value (a range holds every date between its bounds): only the
        # bounds some cell shows are needed, so no date inside a range is listed
        keep = np.zeros(c, dtype=bool)
        keep[lo[valid]] = True
        keep[hi[valid]] = True
        return keep
    delta = (np.bincount(lo[valid], minlength=c + 1)
             - np.bincount(hi[valid] + 1, minlength=c + 1))
    return np.cumsum(delta)[:c] > 0


def restrict_categories(series: pd.Series, keep: np.ndarray) -> pd.Series:
    """``series`` with a dtype listing only the categories flagged in ``keep`` (in order);
    every category a cell needs must be kept (:func:`used_categories`). Returns a new Series
    (same index and name).

    Example
    -------
    >>> s = pd.Series(pd.Categorical(["b", "c"], categories=["a", "b", "c"]))
    >>> restrict_categories(s, np.array([False, True, True])).cat.categories.tolist()
    ['b', 'c']
    """
    from pdanon.dtype import GeneralizationArray, GeneralizationDtype

    dtype = series.dtype
    keep = np.asarray(keep, dtype=bool)
    if isinstance(dtype, pd.CategoricalDtype):
        if not keep.any():  # no category at all: this way Parquet keeps the values' type
            return series.cat.remove_unused_categories()
        return series.cat.set_categories(dtype.categories[keep])  # order kept
    arr = series.array
    cats = dtype.categories
    new_cats = _values_index(cats, keep)
    new_pos = np.cumsum(keep) - 1  # old position -> new position (where kept)
    if dtype.column_type == "unordered":
        # the cells' members renumbered into the kept categories (sparse, one table of the
        # distinct sets used); a member that is not kept raises ValueError
        new = arr.astype(GeneralizationDtype("unordered", new_cats))
    else:
        lo, hi = np.asarray(arr.lo), np.asarray(arr.hi)
        valid = lo >= 0
        new = GeneralizationArray.from_bounds(
            np.where(valid, new_pos[np.maximum(lo, 0)], -1),
            np.where(valid, new_pos[np.maximum(hi, 0)], -1),
            kind=dtype.column_type, categories=new_cats).with_or_missing(arr.or_missing)
    return pd.Series(new, index=series.index, name=series.name)


def publish_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Apply :func:`published_categories` to every column of ``frame`` (a frame the caller
    owns: columns are replaced in place) and return it."""
    from pdanon.dtype import GeneralizationDtype

    for i, dtype in enumerate(frame.dtypes):
        if not isinstance(dtype, (pd.CategoricalDtype, GeneralizationDtype)):
            continue  # no categories to trim
        col = frame.iloc[:, i]
        new = published_categories(col)
        if new is not col:
            frame.isetitem(i, new)
    return frame


@dataclass
class Recoded:
    """What a partitioner that recodes globally (Datafly, equal groups, optimal, exact)
    returns instead of a :class:`~pdanon.partition.Partition`: the ready output columns, the
    changed-cell count, the rows whose every quasi-identifier was suppressed (the engine
    verifies the model on the other rows), and facts for ``info``."""

    columns: dict
    changed: int
    suppressed_rows: int = 0
    suppressed: np.ndarray | None = None
    info: dict = field(default_factory=dict)
    note: str = ""
    #: a population model's population table recoded as the output ({column: cells}), for
    #: the engine's verification (k-map, δ-presence; ``None`` otherwise)
    population: dict | None = None
    #: the rows published, in their published order, when only a sample is (differential
    #: privacy: the others are left out, not blanked; ``None``: every row)
    release_rows: np.ndarray | None = None
    #: the columns whose ranges are read off the data's values (Datafly's value groups, an
    #: undeclared hierarchy level): the engine widens their bounds held by fewer than k rows
    #: (:mod:`pdanon.recode.bounds`) unless ``exact_bounds``
    data_bounds: tuple = ()


def _group_min_max(values: np.ndarray, labels: np.ndarray, groups: int):
    lo = np.full(groups, np.inf)
    hi = np.full(groups, -np.inf)
    np.minimum.at(lo, labels, values)
    np.maximum.at(hi, labels, values)
    return lo, hi


def constant_groups(col: EncodedColumn, labels: np.ndarray, groups: int) -> np.ndarray:
    """Boolean per group: do all its cells of this column hold the same value (a missing
    cell is a value of its own)?"""
    lo, hi = _group_min_max(col.codes.astype(np.float64), labels, groups)
    return lo == hi


def blank_rows(col: EncodedColumn, labels: np.ndarray, groups: int) -> np.ndarray | None:
    """Rows whose group holds a missing cell in this column (``None`` when the column has
    none). :func:`aggregate` publishes missing there (one value cannot stand for a missing
    cell); :func:`generalize` publishes such a group's cell marked "or missing" when it
    also holds present cells (:func:`mixed_rows`)."""
    if col.na is None:
        return None
    return (np.bincount(labels, weights=col.na, minlength=groups) > 0)[labels]


def mixed_rows(col: EncodedColumn, labels: np.ndarray, groups: int,
               withheld: np.ndarray | None = None) -> np.ndarray | None:
    """Rows whose group mixes missing and present cells of this column (rows flagged in
    ``withheld`` take no part and are never mixed); ``None`` when the column has no missing
    cell. Such a group publishes the cell of its present values, marked as covering missing
    (:meth:`pdanon.dtype.GeneralizationArray.with_or_missing`), in each of its rows.

    Example
    -------
    >>> from pdanon.encode import encode_column
    >>> col = encode_column(pd.Series([20, 25, None, None]), "real")
    >>> mixed_rows(col, np.array([0, 0, 0, 1]), 2).tolist()
    [True, True, True, False]
    """
    na = col.na
    if na is None:
        return None
    take = np.ones(len(labels), dtype=bool) if withheld is None else ~withheld
    has_na = np.bincount(labels, weights=na & take, minlength=groups) > 0
    has_value = np.bincount(labels, weights=~na & take, minlength=groups) > 0
    return (has_na & has_value)[labels] & take


def cover_missing(arr, labels: np.ndarray, mixed: np.ndarray, na: np.ndarray | None):
    """``arr`` (each group's cell in its present rows; missing rows missing) with every row
    flagged in ``mixed`` (:func:`mixed_rows`) holding its group's cell marked "or missing":
    the group's missing rows (``na``) take the cell of one of its present rows.

    Example
    -------
    >>> from pdanon.dtype import GeneralizationArray
    >>> arr = GeneralizationArray.from_groups([20.0, 25.0, np.nan], [0, 0, 0], kind="real")
    >>> mixed = np.array([True, True, True])
    >>> cover_missing(arr, np.zeros(3, int), mixed, np.array([False, False, True])).tolist()
    [[20, 25] or missing, [20, 25] or missing, [20, 25] or missing]
    """
    n = len(labels)
    fill = mixed & na if na is not None else np.zeros(n, dtype=bool)
    if fill.any():
        donor = ~np.asarray(arr.isna(), dtype=bool)
        first = np.full(int(labels.max()) + 1, n, dtype=np.int64)
        np.minimum.at(first, labels[donor], np.flatnonzero(donor))
        arr = arr.take(np.where(fill, first[labels], np.arange(n)))
    return arr.with_or_missing(mixed)


def _changed_cells(col: EncodedColumn, changed: np.ndarray) -> int:
    """How many cells of ``changed`` (a row mask) changed: missing cells stay missing."""
    return int((changed & ~col.na).sum()) if col.na is not None else int(changed.sum())


def suppress(series: pd.Series, col: EncodedColumn, labels: np.ndarray):
    groups = int(labels.max()) + 1
    keep = constant_groups(col, labels, groups)[labels]  # mixed missing/present: not constant
    out = series.where(keep)
    return published_categories(out), _changed_cells(col, ~keep)


def generalize(series: pd.Series, col: EncodedColumn, labels: np.ndarray, *,
               missing: np.ndarray | None = None):
    """Generalize each group to one cell, computed from the rows that publish it: rows
    flagged in ``missing`` (suppressed rows) are published missing and take no part in their
    group's cell, so no range or set reaches a value that only suppressed rows hold. A group
    mixing missing and present cells of this column (:func:`mixed_rows`) publishes the cell of
    its present values marked "or missing" in all its rows; a group of missing cells only
    stays missing."""
    groups = int(labels.max()) + 1
    withheld = np.zeros(len(labels), dtype=bool) if missing is None else missing
    if withheld.any():
        labels = np.where(withheld, groups, labels)  # a group of their own, published blank
        groups += 1
    const = constant_groups(col, labels, groups)
    mixed = mixed_rows(col, labels, groups, withheld)
    # a withheld cell changed unless it was missing; a missing cell of a mixed group changed
    changed = _changed_cells(col, ~const[labels] | withheld)
    if mixed is not None:
        changed += int((mixed & col.na).sum())
        missing = col.na if missing is None else missing | col.na  # no part in any cell
    if col.generalized and series.array.or_missing.any():  # a cell covering missing already
        flagged = series.array.or_missing & ~withheld
        hit = (np.bincount(labels, weights=flagged, minlength=groups) > 0)[labels] & ~withheld
        mixed = hit if mixed is None else mixed | hit
    arr = _group_cells(series, col, labels, groups, missing)
    if mixed is not None and mixed.any():
        arr = cover_missing(arr, labels, mixed, col.na)
    out = pd.Series(arr, index=series.index, name=series.name)
    return published_categories(out), changed


def _group_cells(series: pd.Series, col: EncodedColumn, labels: np.ndarray, groups: int,
                 missing: np.ndarray | None):
    """Each group's cell from the rows not flagged in ``missing`` (published missing)."""
    from pdanon.dtype import GeneralizationArray

    if missing is not None and missing.any():
        labels = np.where(missing, groups, labels)  # one group of their own, published blank
        groups += 1
    if col.generalized:
        arr = _generalize_generalized(series.array, col, labels, groups, missing)
    elif col.kind == "unordered" or (col.kind == "ordered" and not col.numeric):
        codes, categories = _published_codes(col, labels, groups, missing)
        arr = GeneralizationArray.from_groups(codes, labels, kind=col.kind,
                                              categories=categories)
    elif col.na is None:
        arr = GeneralizationArray.from_groups(series.to_numpy(), labels, kind=col.kind)
    else:  # missing cells are NaN here and ignored; their groups are published missing
        arr = GeneralizationArray.from_groups(
            series.to_numpy(dtype=np.float64, na_value=np.nan), labels, kind=col.kind,
            integer=pd.api.types.is_integer_dtype(series.dtype))
    if missing is not None and missing.any():
        arr[missing] = None  # a new array of our own: set in place, no copy
    return arr


def _published_codes(col: EncodedColumn, labels: np.ndarray, groups: int,
                     missing: np.ndarray | None):
    """Codes and categories for :func:`generalize` with only the categories its published
    cells need (the rule of :func:`published_categories`): the values of the groups that keep
    a published row and, for ordered columns, every category within such a group's range.
    Rows of fully suppressed groups get code -1 (missing)."""
    c = len(col.categories)
    published = labels if missing is None else labels[~missing]
    live = np.bincount(published, minlength=groups) > 0  # groups with a published row
    live_row = live[labels]
    if col.kind == "unordered":
        keep = np.zeros(c, dtype=bool)
        keep[col.codes[live_row]] = True
    else:
        lo, hi = _group_min_max(col.codes.astype(np.float64), labels, groups)
        lo, hi = lo[live].astype(np.int64), hi[live].astype(np.int64)
        cover = np.bincount(lo, minlength=c + 1) - np.bincount(hi + 1, minlength=c + 1)
        keep = np.cumsum(cover)[:c] > 0  # within [lo, hi] of some published group
    cats = col.categories
    if keep.all() and not isinstance(cats, pd.CategoricalIndex):
        return np.where(live_row, col.codes, -1), cats
    if not live_row.any():  # every group is suppressed or holds a missing cell
        return np.full(len(labels), -1, dtype=np.int64), _values_index(cats, keep)
    new_pos = np.cumsum(keep) - 1
    codes = np.where(live_row, new_pos[np.where(live_row, col.codes, 0)], -1)
    return codes, _values_index(cats, keep)


def _values_index(cats: pd.Index, keep: np.ndarray) -> pd.Index:
    """``cats[keep]`` as a plain Index of the values (a CategoricalIndex would carry its own,
    unpruned, categories along)."""
    if isinstance(cats, pd.CategoricalIndex):
        return cats.categories.take(np.asarray(cats.codes)[keep])
    return cats[keep]


def _generalize_generalized(arr, col: EncodedColumn, labels: np.ndarray, groups: int,
                            blank: np.ndarray | None = None):
    """Generalize cells that are already ranges/sets: the hull of ranges, the union of sets
    (rows flagged in ``blank`` come out missing)."""
    from pdanon.dtype import GeneralizationArray

    mask = np.asarray(arr.isna(), dtype=bool)
    if blank is not None:
        mask = mask | blank
    if col.kind == "unordered":
        return _united_sets(arr, labels, groups, mask)
    lo_g, _ = _group_min_max(np.asarray(col.lo, dtype=np.float64), labels, groups)
    _, hi_g = _group_min_max(np.asarray(col.hi, dtype=np.float64), labels, groups)
    lo_g, hi_g = lo_g[labels], hi_g[labels]
    if mask.any():  # masked rows may hold the missing sentinel: give them a valid bound
        lo_g, hi_g = np.where(mask, 0, lo_g), np.where(mask, 0, hi_g)
    return GeneralizationArray.from_bounds(lo_g, hi_g, kind=col.kind,
                                           categories=arr.categories, mask=mask,
                                           integer=arr.is_integer)


def _united_sets(arr, labels: np.ndarray, groups: int, mask: np.ndarray):
    """Every row's cell: the union of the sets (and plain values) of its group; rows flagged
    in ``mask`` come out missing. Sparse: each distinct (group, cell) pair contributes its
    members once, O(rows + members of those pairs), never groups × categories."""
    from pdanon.dtype import GeneralizationArray

    codes = np.asarray(arr.codes)
    present = np.flatnonzero(codes >= 0)
    width = int(codes.max(initial=0)) + 1
    _, first = np.unique(labels[present] * width + codes[present], return_index=True)
    rows = present[first]  # one row per distinct (group, cell)
    offsets, members = arr.take(rows).members()
    owner = np.repeat(labels[rows], np.diff(offsets))  # the group of every member
    order = np.argsort(owner, kind="stable")
    counts = np.bincount(owner, minlength=groups)
    group_offsets = np.concatenate([[0], np.cumsum(counts)])
    united = GeneralizationArray.from_members(group_offsets, members[order], arr.categories)
    return united.take(np.where(mask, -1, labels), allow_fill=True)


def group_means(values: np.ndarray, labels: np.ndarray, groups: int,
                order: np.ndarray | None = None) -> np.ndarray:
    """Per row, the mean of its group's values (:func:`group_mean_table` read at every row).

    Example
    -------
    >>> group_means(np.array([0.1, 0.7, 0.2]), np.array([0, 0, 0]), 1).tolist()[0]
    0.3333333333333333
    """
    return group_mean_table(values, labels, groups, order)[labels]


def group_mean_table(values: np.ndarray, labels: np.ndarray, groups: int,
                     order: np.ndarray | None = None) -> np.ndarray:
    """Per group, the mean of its values; a constant group keeps its exact value (a float sum
    could otherwise turn 0.1 + 0.1 + 0.1 over 3 into 0.10000000000000002).

    With ``order`` (the rows in the order their groups were built, as a
    :class:`~pdanon.partition.Partition` gives it) each group's values are added left to right
    in that order, as the reference adds them, so means agree to the last bit; otherwise (or
    when the groups are too unequal for a groups × largest-group table of at most 4·n cells)
    they are added in row order.

    Example
    -------
    >>> group_mean_table(np.array([1.0, 2.0, 5.0]), np.array([0, 0, 1]), 2).tolist()
    [1.5, 5.0]
    """
    counts = np.bincount(labels, minlength=groups)
    lo, hi = _group_min_max(values, labels, groups)
    sums = _ordered_sums(values, labels, groups, counts, order)
    if sums is None:
        sums = np.bincount(labels, weights=values, minlength=groups)
    return np.where(lo == hi, lo, sums / np.maximum(counts, 1))


def _ordered_sums(values, labels, groups: int, counts, order) -> np.ndarray | None:
    """Each group's sum, added left to right in build ``order`` (None when not possible)."""
    n = len(labels)
    if order is None or not n:
        return None
    width = int(counts.max())
    if groups * width > 4 * n + 1024:
        return None
    position = np.empty(n, dtype=np.int64)
    position[np.asarray(order, dtype=np.int64)] = np.arange(n)
    by = np.lexsort((position, labels))  # rows grouped, in build order within a group
    starts = np.cumsum(counts) - counts
    slot = np.arange(n) - starts[labels[by]]
    table = np.zeros((width, groups))  # one column per group; zero padding adds nothing
    table[slot, labels[by]] = values[by]
    return np.add.reduce(table, axis=0)  # row after row: sequential per group


def aggregate(series: pd.Series, col: EncodedColumn, labels: np.ndarray,
              order: np.ndarray | None = None):
    if col.generalized:
        from pdanon._errors import KindError

        raise KindError(
            f"column {series.name!r} is already generalized; aggregate the original values "
            "instead (aggregation needs plain values)"
        )
    groups = int(labels.max()) + 1
    blank = blank_rows(col, labels, groups)  # groups holding a missing cell publish missing
    if col.kind == "real":
        values = np.asarray(col.lo, dtype=np.float64)
        new = group_means(values, labels, groups, order)
        if blank is not None:
            new[blank] = np.nan
        changed = _changed_cells(col, ~(new == values))
        return pd.Series(new, index=series.index, name=series.name), changed
    new_codes = aggregate_codes(col, labels, groups, order)[labels]
    if blank is not None:
        new_codes[blank] = -1
    changed = _changed_cells(col, new_codes != col.codes)
    return published_categories(_from_codes(series, col, new_codes)), changed


def aggregate_codes(col: EncodedColumn, labels: np.ndarray, groups: int,
                    order: np.ndarray | None = None) -> np.ndarray:
    """Per group, the code :func:`aggregate` publishes for an ``ordered`` column (the element
    at position ``len // 2`` of the group's sorted codes) or an ``unordered`` one (the mode;
    ties go to the value met first in ``order``, the group-build order, else row order).
    Missing cells carry their own code here (:func:`pdanon.encode.missing_as_value`); the
    caller publishes missing for groups holding one (:func:`blank_rows`).

    Example
    -------
    >>> from pdanon.encode import encode_column
    >>> s = pd.Series(["b", "a", "a", "c"])
    >>> aggregate_codes(encode_column(s, "unordered"), np.array([0, 0, 0, 1]), 2).tolist()
    [1, 2]
    """
    n = len(labels)
    if col.kind == "ordered":
        by = np.lexsort((col.codes, labels))  # rows sorted by (group, value)
        counts = np.bincount(labels, minlength=groups)
        starts = np.cumsum(counts) - counts
        return col.codes[by[starts + counts // 2]]
    # mode per group; ties -> the value met first in group-build order
    if order is None:
        order = np.arange(n)
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    width = len(col.categories) + 1  # the missing code is len(categories)
    pair = labels * width + col.codes
    uniq, inverse = np.unique(pair, return_inverse=True)
    counts = np.bincount(inverse)
    first = np.full(len(uniq), n, dtype=np.int64)
    np.minimum.at(first, inverse, position)
    g = uniq // width
    best = np.lexsort((first, -counts, g))  # per group: highest count, then earliest
    is_head = np.r_[True, g[best][1:] != g[best][:-1]]
    pick_codes = np.empty(groups, dtype=np.int64)
    pick_codes[g[best][is_head]] = (uniq % width)[best][is_head]
    return pick_codes


def _from_codes(series: pd.Series, col: EncodedColumn, codes: np.ndarray) -> pd.Series:
    """A column of the input's dtype holding ``col.categories[codes]``."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        cats = series.cat.categories
        if not cats.equals(col.categories):  # -1 (missing) stays -1
            codes = np.where(codes >= 0, cats.get_indexer(col.categories)[
                np.maximum(codes, 0)] if len(col.categories) else -1, -1)
        values = pd.Categorical.from_codes(codes, dtype=series.dtype)
        return pd.Series(values, index=series.index, name=series.name)
    values = col.categories.take(codes, allow_fill=True)  # -1: missing
    out = pd.Series(values, index=series.index, name=series.name)
    try:
        return out.astype(series.dtype)
    except (TypeError, ValueError):
        return out


def recode_column(method: str, series: pd.Series, col: EncodedColumn, labels: np.ndarray,
                  order: np.ndarray | None = None, *, missing: np.ndarray | None = None):
    """Dispatch to :func:`suppress`, :func:`generalize` or :func:`aggregate`; rows flagged in
    ``missing`` (suppressed rows) come out missing."""
    if method == "generalize":
        return generalize(series, col, labels, missing=missing)
    if method == "suppress":
        new, changed = suppress(series, col, labels)
    elif method == "aggregate":
        new, changed = aggregate(series, col, labels, order)
    else:
        raise ValueError(f"unknown method {method!r}; use one of {list(METHODS)}")
    if missing is not None and missing.any():
        new = published_categories(new.mask(missing))
    return new, changed
