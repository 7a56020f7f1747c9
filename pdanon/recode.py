"""Recoders: group labels -> output quasi-identifier columns.

Changes: **recoding** only. Given a :class:`~pdanon.partition.Partition`, each quasi-identifier
column is rebuilt in one vectorized pass:

* ``suppress`` — cells of a group whose column is not constant become missing;
* ``generalize`` — a group's cells become one generalized cell: ``[min, max]`` for real and
  ordered columns, the set of the group's values for unordered columns (a constant column stays
  a plain value); the output column has the generalization dtype;
* ``aggregate`` — a group's cells become the group's mean (real), the element at position
  ``len // 2`` of its sorted values (ordered), or its mode (unordered; ties go to the value met
  first in group-build order).

Every function returns the new column and the number of cells whose value changed.

Example
-------
>>> import numpy as np, pandas as pd
>>> from pdanon._encode import encode_column
>>> s = pd.Series([1, 3, 5, 5])
>>> col, changed = generalize(s, encode_column(s, "real"), np.array([0, 0, 1, 1]))
>>> col.astype(str).tolist(), changed
(['[1, 3]', '[1, 3]', '5', '5'], 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pdanon._encode import EncodedColumn

METHODS = ("generalize", "suppress", "aggregate")


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


def _group_min_max(values: np.ndarray, labels: np.ndarray, groups: int):
    lo = np.full(groups, np.inf)
    hi = np.full(groups, -np.inf)
    np.minimum.at(lo, labels, values)
    np.maximum.at(hi, labels, values)
    return lo, hi


def constant_groups(col: EncodedColumn, labels: np.ndarray, groups: int) -> np.ndarray:
    """Boolean per group: do all its cells of this column hold the same value?"""
    lo, hi = _group_min_max(col.codes.astype(np.float64), labels, groups)
    return lo == hi


def suppress(series: pd.Series, col: EncodedColumn, labels: np.ndarray):
    groups = int(labels.max()) + 1
    keep = constant_groups(col, labels, groups)[labels]
    out = series.where(keep)
    return out, int((~keep).sum())


def generalize(series: pd.Series, col: EncodedColumn, labels: np.ndarray, *,
               missing: np.ndarray | None = None):
    """Generalize each group to one cell (computed from all its rows); rows flagged in
    ``missing`` (suppressed rows) are then published missing."""
    from pdanon.dtype import GeneralizationArray

    groups = int(labels.max()) + 1
    const = constant_groups(col, labels, groups)
    changed = int((~const[labels]).sum())
    if col.generalized:
        arr = _generalize_generalized(series.array, col, labels, groups)
    elif col.kind == "unordered" or (col.kind == "ordered" and not col.numeric):
        arr = GeneralizationArray.from_groups(col.codes, labels, kind=col.kind,
                                              categories=col.categories)
    else:
        arr = GeneralizationArray.from_groups(series.to_numpy(), labels, kind=col.kind)
    if missing is not None and missing.any():
        arr[missing] = None  # a new array of our own: set in place, no copy
    return pd.Series(arr, index=series.index, name=series.name), changed


def _generalize_generalized(arr, col: EncodedColumn, labels: np.ndarray, groups: int):
    """Generalize cells that are already ranges/sets: the hull of ranges, the union of sets."""
    from pdanon.dtype import GeneralizationArray

    mask = arr.isna()
    if col.kind == "unordered":
        member = np.zeros((groups, col.membership.shape[1]), dtype=bool)
        np.logical_or.at(member, labels, col.membership)
        return GeneralizationArray.from_membership(member[labels], arr.categories, mask=mask)
    lo_g, _ = _group_min_max(np.asarray(col.lo, dtype=np.float64), labels, groups)
    _, hi_g = _group_min_max(np.asarray(col.hi, dtype=np.float64), labels, groups)
    return GeneralizationArray.from_bounds(lo_g[labels], hi_g[labels], kind=col.kind,
                                           categories=arr.categories, mask=mask,
                                           integer=arr.is_integer)


def group_means(values: np.ndarray, labels: np.ndarray, groups: int) -> np.ndarray:
    """Per row, the mean of its group's values; a constant group keeps its exact value (a
    float sum could otherwise turn 0.1 + 0.1 + 0.1 over 3 into 0.10000000000000002)."""
    sums = np.bincount(labels, weights=values, minlength=groups)
    counts = np.bincount(labels, minlength=groups)
    lo, hi = _group_min_max(values, labels, groups)
    means = np.where(lo == hi, lo, sums / np.maximum(counts, 1))
    return means[labels]


def aggregate(series: pd.Series, col: EncodedColumn, labels: np.ndarray,
              order: np.ndarray | None = None):
    if col.generalized:
        from pdanon._errors import KindError

        raise KindError(
            f"column {series.name!r} is already generalized; aggregate the original values "
            "instead (aggregation needs plain values)"
        )
    groups = int(labels.max()) + 1
    n = len(labels)
    if col.kind == "real":
        values = np.asarray(col.lo, dtype=np.float64)
        new = group_means(values, labels, groups)
        changed = int((new != values).sum())
        return pd.Series(new, index=series.index, name=series.name), changed
    if order is None:
        order = np.arange(n)
    if col.kind == "ordered":
        by = np.lexsort((col.codes, labels))  # rows sorted by (group, value)
        counts = np.bincount(labels, minlength=groups)
        starts = np.cumsum(counts) - counts
        pick_codes = col.codes[by[starts + counts // 2]]
    else:
        # mode per group; ties -> the value met first in group-build order
        position = np.empty(n, dtype=np.int64)
        position[order] = np.arange(n)
        width = len(col.categories)
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
    new_codes = pick_codes[labels]
    changed = int((new_codes != col.codes).sum())
    return _from_codes(series, col, new_codes), changed


def _from_codes(series: pd.Series, col: EncodedColumn, codes: np.ndarray) -> pd.Series:
    """A column of the input's dtype holding ``col.categories[codes]``."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        cats = series.cat.categories
        if not cats.equals(col.categories):
            codes = cats.get_indexer(col.categories)[codes]
        values = pd.Categorical.from_codes(codes, dtype=series.dtype)
        return pd.Series(values, index=series.index, name=series.name)
    values = col.categories.take(codes)
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
        new = new.mask(missing)
    return new, changed
    raise ValueError(f"unknown method {method!r}; use one of {list(METHODS)}")
