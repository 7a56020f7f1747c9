"""``cp2025.utility.statistics``: :func:`mode`.

Example
-------
>>> mode(["b", "a", "a", "b", "c"])
'b'
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["mode"]


def mode(array):
    """The most frequent value; among equally frequent ones the first met (the tie rule of
    pdanon's aggregation recoding)."""
    values = np.empty(len(array), dtype=object)
    values[:] = list(array)
    codes, uniques = pd.factorize(values, use_na_sentinel=False)
    return uniques[int(np.argmax(np.bincount(codes)))]
