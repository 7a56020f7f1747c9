"""``cp2025.utility.diatances`` (sic): full row-distance matrices of the TimeOptimal family.

The distance between two rows is the sum over columns of: 0/1 for unordered values, |rank
difference| / n for ordered ones, |difference| / (max − min) for real ones. pdanon's own
TimeOptimal grouping (:mod:`pdanon.partition.nearest`) never builds this n × n matrix; these
functions build it, column by column, from the same encoded columns, for code that wants it.

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
    from pdanon.encode import encode_table
    from pdanon.algorithms._base import block_frame

    table = np.asarray(df, dtype=object)
    frame, roles, _ = block_frame(table, table[:, :0], list(value_classes))
    n = len(table)
    out = np.zeros((n, n))
    for col in encode_table(frame, roles).columns:  # column order, as the grouping sums
        if col.kind == "unordered":
            out += col.codes[:, None] != col.codes[None, :]
        elif col.kind == "ordered":
            rank = col.rank.astype(np.float64)
            out += np.abs(rank[:, None] - rank[None, :]) / float(n)
        else:
            x = col.point
            span = float(np.max(x) - np.min(x)) if n else 0.0
            if span > 0:  # a constant real column contributes 0
                out += np.abs(x[:, None] - x[None, :]) / span
    return out


def dfs_hamming_distances(df):
    """Number of differing cells between every two rows."""
    width = np.asarray(df, dtype=object).shape[1]
    return dfs_rank_general_dist(df, ["unordered"] * width)


def dfs_rank_distances(df):
    """Sum of |rank differences| / n between every two rows (every column ordered)."""
    width = np.asarray(df, dtype=object).shape[1]
    return dfs_rank_general_dist(df, ["ordered"] * width)
