"""``cp2025.utility.diatances`` (sic): full row-distance matrices of the TimeOptimal family.

The distance between two rows is the sum over columns of: 0/1 for unordered values, |rank
difference| / n for ordered ones, |difference| / (max − min) for real ones, computed in the
reference's floating-point order (normalized coordinates first, their absolute differences
summed as numpy sums, then the count of differing unordered cells; see
:mod:`pdanon.partition.nearest`), so the matrices equal the reference's bit for bit. pdanon's
own TimeOptimal grouping never builds this n × n matrix; these functions build it from the same
coordinates (:class:`pdanon.partition.nearest.RowCoordinates`), for code that wants it.

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
    """The n × n distance matrix for column kinds ``value_classes`` (one per column; extra
    entries are ignored, as in the reference)."""
    from pdanon.algorithms._base import block_frame
    from pdanon.encode import encode_table
    from pdanon.partition.nearest import RowCoordinates

    table = np.asarray(df, dtype=object)
    frame, roles, _ = block_frame(table, table[:, :0], list(value_classes))
    return RowCoordinates.from_encoded(encode_table(frame, roles)).matrix()


def dfs_hamming_distances(df):
    """Number of differing cells between every two rows."""
    width = np.asarray(df, dtype=object).shape[1]
    return dfs_rank_general_dist(df, ["unordered"] * width)


def dfs_rank_distances(df):
    """Sum of |rank differences| / n between every two rows (every column ordered)."""
    width = np.asarray(df, dtype=object).shape[1]
    return dfs_rank_general_dist(df, ["ordered"] * width)
