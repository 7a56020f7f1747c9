"""Small tables for the tests of pdanon.tables (imported by the test modules beside it)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd


def frame_from_counts(counts: np.ndarray, names=("r", "c")) -> pd.DataFrame:
    """Microdata whose table has these interior counts (any number of dimensions), every
    category kept (``r0, r1, ...`` for the dimension ``r``), even an empty one."""
    rows = []
    for idx in itertools.product(*(range(s) for s in counts.shape)):
        rows += [tuple(f"{n}{i}" for n, i in zip(names, idx))] * int(counts[idx])
    out = pd.DataFrame(rows, columns=list(names))
    for n, s in zip(names, counts.shape):
        out[n] = pd.Categorical(out[n], categories=[f"{n}{i}" for i in range(s)])
    return out
