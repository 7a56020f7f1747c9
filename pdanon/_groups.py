"""Equivalence classes as integer labels, computed without Python loops over rows.

Every column is factorized on its own (missing cells form one value: suppressed cells are equal to
each other), then the per-column codes are combined pairwise and re-factorized so the mixed-radix
label never overflows.

Example
-------
>>> import pandas as pd
>>> class_labels(pd.DataFrame({"a": [1, 1, 2], "b": ["x", "x", None]}), ["a", "b"])
array([0, 0, 1])
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd


def column_codes(values, *, where: str = "column") -> tuple[np.ndarray, int]:
    """Codes 0..m-1 of a column's distinct cells (NA is one more distinct value) and m; the
    encoder's rules (:func:`pdanon.encode.factorize`: unhashable cells are a clear error)."""
    from pdanon.encode import factorize

    codes, uniques = factorize(values, where=where)
    m = len(uniques)
    if (codes < 0).any():
        codes = np.where(codes < 0, m, codes)
        m += 1
    return codes, m


def combine_codes(codes_list: Sequence[np.ndarray], n: int) -> np.ndarray:
    """One label per distinct combination of per-column codes, numbered by first appearance.

    Codes are combined into one mixed-radix integer key and factorized once; when the product
    of the column widths would overflow int64 the key built so far is compressed first.
    """
    key = np.zeros(n, dtype=np.int64)
    span = 1  # every key value lies in [0, span)
    for codes in codes_list:
        c = np.asarray(codes, dtype=np.int64)
        width = int(c.max()) + 1 if n else 1
        if span * width >= 2**62:
            key, uniq = pd.factorize(key)
            key = np.asarray(key, dtype=np.int64)
            span = max(len(uniq), 1)
        key = key * width + c
        span *= width
    label, _ = pd.factorize(key)
    return np.asarray(label, dtype=np.int64)


def class_labels(df: pd.DataFrame, columns: Sequence) -> np.ndarray:
    """Equivalence-class label of every row over ``columns`` (first class met gets 0)."""
    n = len(df)
    return combine_codes([column_codes(df[c].array, where=f"column {c!r}")[0] for c in columns],
                         n)


def class_sizes(labels: np.ndarray) -> np.ndarray:
    """Size of the class of every row."""
    if len(labels) == 0:
        return np.zeros(0, dtype=np.int64)
    counts = np.bincount(labels)
    return counts[labels]
