"""Exact, partition-independent group keys for equivalence classes on Dask.

pandas computes class labels by factorizing a whole frame; on Dask the rows of one class sit in
many partitions, so every partition turns its quasi-identifier cells into *canonical* key
columns (equal cells <=> equal keys, whatever partition they are in) and Dask groups by them:

* plain columns are their own key (numbers, strings, dates; a Categorical by its codes when its
  categories are known);
* generalized ``real`` / numeric ``ordered`` cells: two float64 keys ``lo``, ``hi`` (NaN, NaN when
  missing);
* generalized ``ordered`` cells with categories: two int64 positions in the column's categories;
* generalized ``unordered`` cells: an int64 bit set over the categories when there are at most
  62 of them, else the text of the sorted member positions (``"3,17,40"``); -1 / ``""`` when
  missing.

Missing equals missing, as in :func:`pdanon._groups.class_labels`.

Example
-------
>>> import pandas as pd
>>> from pdanon.dtype import GeneralizationArray
>>> s = pd.Series(GeneralizationArray.from_groups([0, 2, 1], [0, 0, 1], kind="unordered",
...                                                categories=["a", "b", "c"]))
>>> key_frame(pd.DataFrame({"x": s}), ["x"], {"x": s.dtype})["k0"].tolist()
[5, 5, 2]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon.dtype import GeneralizationDtype
from pdanon.encode import unknown_categories

#: Unordered generalized columns with at most this many categories get an int64 bit-set key.
BITSET_LIMIT = 62


def _set_keys(arr, dtype: GeneralizationDtype):
    """Canonical key of every unordered cell (bit set or member-position text)."""
    n = len(arr)
    codes = np.asarray(arr.codes, dtype=np.int64)
    c = dtype._n_categories
    uniq, inv = np.unique(codes, return_inverse=True)
    inv = inv.reshape(-1)
    first = np.zeros(len(uniq), dtype=np.int64)
    first[inv] = np.arange(n)  # any row of a code will do: equal codes are equal cells
    offsets, members = arr.take(first).members()  # one cell per distinct code, sparse
    if c <= BITSET_LIMIT:
        bits = np.zeros(len(members) + 1, dtype=np.uint64)  # sums of distinct bits: < 2**62
        np.cumsum(np.uint64(1) << members.astype(np.uint64), out=bits[1:])
        ukey = (bits[offsets[1:]] - bits[offsets[:-1]]).astype(np.int64)
        ukey = np.where(uniq < 0, -1, ukey)
        return ukey[inv] if n else np.zeros(0, np.int64)
    text = np.empty(len(uniq), dtype=object)
    for i in range(len(uniq)):  # distinct cells only, not rows
        row = members[offsets[i]:offsets[i + 1]]
        text[i] = "" if uniq[i] < 0 else ",".join(map(str, row))
    return pd.array(text[inv] if n else text[:0], dtype="str")


def column_keys(series: pd.Series, dtype) -> list:
    """The key column(s) of one column (see the module docstring)."""
    if isinstance(dtype, GeneralizationDtype):
        arr = series.array
        if arr.dtype != dtype:
            arr = arr.astype(dtype)
        if dtype.column_type == "unordered":
            return [_set_keys(arr, dtype)]
        if dtype.categories is not None:
            return [np.asarray(arr.lo, dtype=np.int64), np.asarray(arr.hi, dtype=np.int64)]
        return [np.asarray(arr.lo, dtype=np.float64), np.asarray(arr.hi, dtype=np.float64)]
    if isinstance(dtype, pd.CategoricalDtype) and dtype.categories is not None and not (
            unknown_categories(dtype)):
        s = series if series.dtype == dtype else series.astype(dtype)
        return [np.asarray(s.cat.codes, dtype=np.int64)]
    if isinstance(dtype, pd.CategoricalDtype):
        return [np.asarray(series.astype(object), dtype=object)]
    return [series.array]


def key_frame(pdf: pd.DataFrame, columns, dtypes: dict, extra: dict | None = None):
    """Key columns ``k0, k1, ...`` of ``columns`` for one partition (plus ``extra`` columns)."""
    data = {}
    j = 0
    for c in columns:
        for key in column_keys(pdf[c], dtypes[c]):
            data[f"k{j}"] = key
            j += 1
    if extra:
        data.update(extra)
    return pd.DataFrame(data, index=pd.RangeIndex(len(pdf)))


def key_names(columns, dtypes: dict) -> list[str]:
    """Names of the key columns :func:`key_frame` makes for ``columns``."""
    j = 0
    for c in columns:
        d = dtypes[c]
        j += 2 if isinstance(d, GeneralizationDtype) and d.column_type != "unordered" else 1
    return [f"k{i}" for i in range(j)]
