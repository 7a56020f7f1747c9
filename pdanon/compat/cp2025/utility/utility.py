"""``cp2025.utility.utility``: :func:`fill_left_columns_ids` and
:func:`count_column_params_for_my_loss`.

Example
-------
>>> import numpy as np
>>> count_column_params_for_my_loss(np.array([[3, "x"], [1, "y"]], dtype=object),
...                                 ["ordered", "unordered"])
[[{1: 0, 3: 1}, 2], []]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon.algorithms._base import fill_left_columns_ids

__all__ = ["count_column_params_for_my_loss", "fill_left_columns_ids"]


def count_column_params_for_my_loss(quasi_identifiers, quasi_identifiers_types):
    """Per column: ``[]`` (unordered), ``[ranks, n]`` (ordered; rank = first position of the
    value in the *sorted* column — the reference forgets to sort) or ``[min, max]`` (real)."""
    from pdanon.encode import encode_column

    q = np.asarray(quasi_identifiers, dtype=object)
    out = []
    for j, kind in enumerate(quasi_identifiers_types):
        col = q[:, j]
        if kind == "unordered":
            out.append([])
        elif kind == "ordered":
            enc = encode_column(pd.Series(col.tolist()), "ordered")
            first = np.cumsum(np.bincount(enc.codes, minlength=len(enc.categories)))
            first = first - np.bincount(enc.codes, minlength=len(enc.categories))
            out.append([dict(zip(enc.categories.tolist(), first.tolist())), len(col)])
        elif kind == "real":
            x = pd.to_numeric(pd.Series(col.tolist()))
            out.append([x.min(), x.max()])
    return out
