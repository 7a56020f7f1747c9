"""``cp2025.utility.diatances`` (sic): full row-distance matrices of the TimeOptimal family.

The distance between two rows is the sum over columns of: 0/1 for unordered values, |rank
difference| / n for ordered ones, |difference| / (max − min) for real ones. pdanon's own
TimeOptimal grouping (:mod:`pdanon.partition.nearest`) never builds this n × n matrix; these
functions build it row by row from the same per-column distances, for code that wants it.

Example
-------
>>> import numpy as np
>>> dfs_hamming_distances(np.array([[1, "a"], [1, "b"], [2, "b"]], dtype=object)).tolist()
[[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]]
"""

from __future__ import annotations

import numpy as np

__all__ = ["dfs_hamming_distances", "dfs_rank_distances", "dfs_rank_general_dist"]


def dfs_rank_general_dist(df, value_classes):
    """The n × n distance matrix for column kinds ``value_classes``."""
    from pdanon._encode import encode_table
    from pdanon.algorithms._base import _frame
    from pdanon.partition.nearest import _distance_columns, _distances

    table = np.asarray(df, dtype=object)
    frame, roles, _ = _frame(table, table[:, :0], list(value_classes))
    cols = _distance_columns(encode_table(frame, roles), hamming=False)
    n = len(table)
    out = np.zeros((n, n))
    if not cols:
        return out
    for i in range(n):
        out[i] = _distances(cols, i)
    return out


def dfs_hamming_distances(df):
    """Number of differing cells between every two rows."""
    width = np.asarray(df, dtype=object).shape[1]
    return dfs_rank_general_dist(df, ["unordered"] * width)


def dfs_rank_distances(df):
    """Sum of |rank differences| / n between every two rows (every column ordered)."""
    width = np.asarray(df, dtype=object).shape[1]
    return dfs_rank_general_dist(df, ["ordered"] * width)
