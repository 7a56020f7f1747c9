"""Shuffling whole columns or within groups (equivalence classes or given columns)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.perturb.common import check_columns
from pdanon.perturb.randomness import make_rng


def permutation_within(labels, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random permutation that moves rows only inside their group.

    ``labels`` is one integer group label per row (``None`` = one group). Returns ``perm`` such
    that ``values[perm]`` is the shuffled column: row ``i`` receives the value of row ``perm[i]``,
    and ``labels[perm] == labels``. Built with one random permutation followed by a stable sort
    by label, so every within-group order is equally likely (O(n log n), no Python loop).

    Example
    -------
    >>> labels = np.array([0, 1, 0, 1, 0])
    >>> perm = permutation_within(labels, make_rng(1))
    >>> bool((labels[perm] == labels).all())
    True
    """
    if labels is None:
        raise InvalidInputError("labels is None: use rng.permutation(n) for a whole-column shuffle")
    labels = np.asarray(labels)
    n = len(labels)
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    scrambled = rng.permutation(n)
    # rows grouped by label, in random order inside each group
    donors = scrambled[np.argsort(labels[scrambled], kind="stable")]
    # the same group blocks, in row order: block positions line up label by label
    receivers = np.argsort(labels, kind="stable")
    perm = np.empty(n, dtype=np.intp)
    perm[receivers] = donors
    return perm


def take_rows(series: pd.Series, rows: np.ndarray) -> pd.Series:
    """``series`` values at positions ``rows``, keeping the original index, name and dtype."""
    return pd.Series(series.array.take(rows), index=series.index, name=series.name)


def shuffle_frame(df: pd.DataFrame, columns: Sequence, *, groups=None,
                  rng: np.random.Generator | None = None) -> pd.DataFrame:
    """Permute each of ``columns`` independently (the reference's ``Shuffler``), or only inside
    the groups given by ``groups`` (integer labels per row; ``ShufflerInBatches`` when the labels
    are the equivalence classes).

    Every column gets its own permutation, so links between shuffled columns are broken too.
    Other columns, the index and the row order are unchanged; ``df`` is not modified; any dtype
    (including extension dtypes) is kept.

    Example
    -------
    >>> df = pd.DataFrame({"zip": ["A", "A", "B", "B"], "s": [1, 2, 3, 4]})
    >>> out = shuffle_frame(df, ["s"], groups=np.array([0, 0, 1, 1]), rng=make_rng(0))
    >>> sorted(out["s"][:2]), sorted(out["s"][2:])
    ([1, 2], [3, 4])
    """
    rng = make_rng() if rng is None else rng
    check_columns(df, columns, "shuffle")
    n = len(df)
    if groups is not None:
        groups = np.asarray(groups)
        if groups.shape != (n,):
            raise InvalidInputError(f"groups has shape {groups.shape}; expected one label per row ({n})")
    out = df.copy(deep=False)
    for col in columns:
        perm = rng.permutation(n) if groups is None else permutation_within(groups, rng)
        out[col] = df[col].array.take(perm)
    return out
