"""Small hand-checked frames that several test modules build on."""

from __future__ import annotations

import pandas as pd

#: the reference documentation's 4-row table: rows 0/1 equal, rows 2/3 differ in column d only
SEED_ROWS = [[1, 1, 1, 1], [1, 1, 1, 1], [2, 2, 2, 2], [2, 2, 2, 3]]


def seed_frame() -> pd.DataFrame:
    """:data:`SEED_ROWS` with columns a, b, c, d."""
    return pd.DataFrame(SEED_ROWS, columns=list("abcd"))


def roles_frame() -> pd.DataFrame:
    """Three people with a column of every role and kind: an identifier (name), real (age),
    ordered categorical (edu), unordered (sex, flag) and a sensitive candidate (disease)."""
    return pd.DataFrame({
        "name": ["a", "b", "c"],
        "age": [30, 40, 50],
        "edu": pd.Categorical(["lo", "hi", "lo"], categories=["lo", "hi"], ordered=True),
        "sex": ["F", "M", "F"],
        "flag": [True, False, True],
        "disease": ["x", "y", "z"],
    })


#: the reference documentation's l-diversity table: SEED_ROWS with a sensitive column s
SEED_L = [[1, 1, 1, 1, 1], [1, 1, 1, 1, 2], [2, 2, 2, 2, 2], [2, 2, 2, 3, 1]]


def seed_l() -> pd.DataFrame:
    """:data:`SEED_L` with columns a, b, c, d and the sensitive s."""
    return pd.DataFrame(SEED_L, columns=list("abcds"))
