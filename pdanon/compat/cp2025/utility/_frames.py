"""Object arrays as pandas frames for the metric wrappers of this package (not a reference
module): numbers become numeric columns, generalized cells a generalization dtype.

Example
-------
>>> import numpy as np
>>> frame, labels = blocks_frame(np.array([[1, "a"], [2, "b"]], dtype=object), [[0.5], [1.5]])
>>> frame[0].tolist(), frame[2].tolist(), labels
([1, 2], [0.5, 1.5], [[0, 1], [2]])
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon.compat.cp2025.utility.GeneralizationRange import GeneralizationRange

__all__ = ["as_table", "as_column", "blocks_frame"]


def as_table(arr) -> np.ndarray:
    """A 2-D object array (a 1-D input is one column)."""
    a = np.asarray(arr, dtype=object)
    if a.ndim == 1:
        a = a.reshape(-1, 1)
    return a


def as_column(values: np.ndarray):
    """One object column as pandas likes it: numbers as a numeric array; anything holding
    generalized cells or non-numbers stays object."""
    ranges = [v for v in values if isinstance(v, GeneralizationRange)]
    if ranges:
        try:  # the generalization dtype of the cells' kind (metrics read the kind from it)
            return pd.array(values, dtype=f"generalization[{ranges[0].kind}]")
        except (TypeError, ValueError):
            return values
    kind = pd.api.types.infer_dtype(values, skipna=True)
    if kind in ("integer", "floating", "mixed-integer-float", "decimal", "empty"):
        try:
            return pd.to_numeric(pd.Series(values.tolist())).to_numpy()
        except (TypeError, ValueError):
            return values
    return values


def blocks_frame(*blocks) -> tuple[pd.DataFrame, list]:
    """Blocks side by side as one frame with positional labels; returns the frame and the
    label lists of every block."""
    data, labels, start = {}, [], 0
    n = None
    for b in blocks:
        t = as_table(b)
        n = len(t) if n is None else n
        labels.append(list(range(start, start + t.shape[1])))
        for j in range(t.shape[1]):
            data[start + j] = as_column(t[:, j])
        start += t.shape[1]
    return pd.DataFrame(data, index=pd.RangeIndex(n or 0), columns=list(range(start))), labels
