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


#: quasi-identifiers of :func:`skewed_survey`, with their kinds: ``religious`` (1-4) is a
#: scale, declared real (without a kind its small whole numbers would be read as codes)
SURVEY_QI = {"age": "real", "yrs_married": "real", "children": "real", "religious": "real",
             "educ": "real"}


def skewed_survey(n: int = 6000, seed: int = 0) -> pd.DataFrame:
    """A table shaped like statsmodels' ``fair`` survey: five coarse quasi-identifiers and a
    sensitive rating ``rate`` (5..1) as skewed as ``rate_marriage`` (42 %, 35 %, 16 %, 5.5 %,
    1.5 %), most often 5 for the values just below each column's median. Recursive
    (c=2, l=3)-diversity holds on the whole table with little room, and no median cut keeps
    both halves diverse."""
    import numpy as np

    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "age": rng.choice([17.5, 22, 27, 32, 37, 42], n),
        "yrs_married": rng.choice([0.5, 2.5, 6, 9, 13, 16.5, 23], n),
        "children": rng.choice([0, 1, 2, 3, 4, 5.5], n),
        "religious": rng.integers(1, 5, n),
        "educ": rng.choice([9, 12, 14, 16, 17, 20], n),
    })
    bump = {"age": 27, "yrs_married": 9, "children": 2, "religious": 2, "educ": 14}
    score = 0.5 * sum((df[c] == v).astype(float) for c, v in bump.items()) + rng.normal(size=n)
    cuts = np.quantile(score, np.cumsum([0.42, 0.35, 0.16, 0.055, 0.015])[:-1])
    df["rate"] = 5 - np.searchsorted(cuts, score)
    return df
