"""``cp2025.utility.prepare_data``: numeric feature matrices from tables with generalized and
suppressed cells, for the gradient-boosting metrics (:func:`pdanon.metrics.prepare_data`).

Ranges become lo / hi columns, sets a fractional one-hot (each member 1/|set|), missing cells
the training column's fill value. Differences from the reference (docs/compat.md): ordered
columns stay numeric positions instead of being one-hot encoded, and train and test matrices
always have the same column order.

Example
-------
>>> import numpy as np
>>> tr = np.array([[1.0, "a"], [3.0, "b"]], dtype=object)
>>> X, Y = prepare_data(tr, tr, [False, False], ["real", "unordered"], normalize=False)
>>> X.tolist()
[[1.0, 1.0, 0.0], [3.0, 0.0, 1.0]]
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from pdanon.compat.cp2025.utility.GeneralizationRange import GeneralizationRange
from pdanon.compat.cp2025.utility.statistics import mode

__all__ = ["fill_nulls", "is_nan", "ohe_all", "prepare_data", "transform_ordered_ranges",
           "transform_unordered_ranges"]


def is_nan(value):
    """True for a missing cell (None, NaN); False for anything else, generalized cells
    included (an array gives the element-wise answer)."""
    if value is None:
        return True
    if isinstance(value, GeneralizationRange):
        return False
    if isinstance(value, np.ndarray):
        return pd.isna(value)
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _obj(a) -> np.ndarray:
    out = np.empty(len(a), dtype=object)
    out[:] = list(a)
    return out


def fill_nulls(train, test, column_type="unordered"):
    """Fill missing cells of both columns (in place) with the training column's mode
    (unordered), middle sorted value (ordered) or mean (real); 0 when training has no value.
    Returns ``(train, test)``."""
    na_tr = pd.isna(_obj(train))
    values = _obj(train)[~na_tr]
    if len(values) == 0:
        fill = 0
    elif column_type == "unordered":
        fill = mode(values)
    elif column_type == "ordered":
        fill = sorted(values.tolist())[len(values) // 2]
    else:
        fill = float(np.mean(np.asarray(values, dtype=np.float64)))
    train[na_tr] = fill
    test[pd.isna(_obj(test))] = fill
    return train, test


def _kind_for_bounds(*cols) -> str:
    plain = [v for c in cols for v in c
             if not isinstance(v, GeneralizationRange) and not is_nan(v)]
    ends = [e for c in cols for v in c if isinstance(v, GeneralizationRange) for e in (v.min, v.max)]
    numeric = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in plain + ends)
    return "real" if numeric else "ordered"


def transform_ordered_ranges(train, test):
    """``(n × 2)`` lo/hi matrices of two real/ordered columns (a plain value has lo = hi,
    ordered non-numbers are positions); missing lo/hi take the smallest lo / largest hi of
    the training column."""
    from pdanon.metrics import _cells

    tr, te = _obj(train), _obj(test)
    kind = _kind_for_bounds(tr, te)
    a, b = _cells.interval_pair(pd.Series(tr), pd.Series(te), kind)
    out = []
    lo_fill = np.nanmin(a.lo[~a.na]) if (~a.na).any() else np.nan
    hi_fill = np.nanmax(a.hi[~a.na]) if (~a.na).any() else np.nan
    for x in (a, b):
        out.append(np.column_stack([np.where(x.na, lo_fill, x.lo), np.where(x.na, hi_fill, x.hi)]))
    return out[0], out[1]


def transform_unordered_ranges(train, test):
    """Fractional one-hot matrices of two unordered columns over the training values (a set
    of m values puts 1/m on each member; missing cells and unseen values are all zeros)."""
    from pdanon.metrics import prepare_data as _prepare

    tr, te = _obj(train), _obj(test)
    a, b = _prepare(pd.DataFrame({0: tr}), pd.DataFrame({0: te}), {0: "unordered"},
                    max_categories=len(tr) + 1)
    return a.to_numpy(dtype=np.float64), b.to_numpy(dtype=np.float64)


def ohe_all(train, test, cols_to_ohe_ids):
    """One-hot encode the columns ``cols_to_ohe_ids`` (fitted on train; unseen test values
    are all zeros) and put them first, the other columns after them - in both matrices."""
    from sklearn.preprocessing import OneHotEncoder

    train = np.asarray(train, dtype=object)
    test = np.asarray(test, dtype=object)
    ids = list(cols_to_ohe_ids)
    rest = [j for j in range(train.shape[1]) if j not in ids]
    enc = OneHotEncoder(sparse_output=False, handle_unknown="ignore")
    a = enc.fit_transform(train[:, ids])
    b = enc.transform(test[:, ids])
    return (np.column_stack((a, train[:, rest])), np.column_stack((b, test[:, rest])))


def prepare_data(train, test, has_ranges, column_types, normalize=True):
    """Feature matrices (numpy) for a train and a test table (2-D arrays) with column kinds
    ``column_types``; ``has_ranges`` is accepted for compatibility (pdanon detects ranges and
    sets itself). ``normalize`` standardizes every feature with the training mean and standard
    deviation (as scikit-learn's StandardScaler)."""
    from pdanon.compat.cp2025.utility._frames import blocks_frame
    from pdanon.metrics import prepare_data as _prepare

    tr, (cols,) = blocks_frame(train)
    te, _ = blocks_frame(test)
    kinds = dict(zip(cols, list(column_types)))
    X, Y = _prepare(tr, te, kinds)
    X, Y = X.to_numpy(dtype=np.float64), Y.to_numpy(dtype=np.float64)
    if normalize and X.shape[1]:
        mean = X.mean(axis=0)
        std = X.std(axis=0)
        std[std == 0] = 1.0
        X, Y = (X - mean) / std, (Y - mean) / std
    return X, Y
