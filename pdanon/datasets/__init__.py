"""Embedded sample data: no download at run time.

Example
-------
>>> from pdanon import datasets
>>> adult = datasets.load_adult()
>>> adult.shape
(30162, 9)
>>> datasets.make_patients(6, seed=0).columns.tolist()
['zipcode', 'age', 'gender', 'disease']
"""

from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

#: Education levels of the Adult table from least to most schooling.
EDUCATION_ORDER = [
    "Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad",
    "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate",
]

#: Customary roles and kinds of the Adult benchmark: eight quasi-identifiers, salary sensitive.
ADULT_QUASI_IDENTIFIERS = {
    "sex": "unordered", "age": "real", "race": "unordered", "marital-status": "unordered",
    "education": "ordered", "native-country": "unordered", "workclass": "unordered",
    "occupation": "unordered",
}
ADULT_SENSITIVE = {"salary-class": "unordered"}


def load_adult(*, nrows: int | None = None) -> pd.DataFrame:
    """The UCI Adult table (30,162 rows), shipped compressed inside pdanon.

    ``age`` is an integer column (kind real), ``education`` an ordered Categorical (kind
    ordered), the other columns strings (kind unordered). The customary roles are in
    :data:`ADULT_QUASI_IDENTIFIERS` and :data:`ADULT_SENSITIVE`, and are remembered by the
    returned frame, so ``load_adult().anon.k_anonymize(5)`` treats ``salary-class`` as
    sensitive.

    Parameters
    ----------
    nrows : int, optional
        Read only the first ``nrows`` rows.
    """
    from pdanon.roles import resolve_roles, with_roles

    with resources.files(__name__).joinpath("adult.csv.gz").open("rb") as fh:
        df = pd.read_csv(fh, sep=";", compression="gzip", nrows=nrows)
    df["education"] = pd.Categorical(df["education"], categories=EDUCATION_ORDER, ordered=True)
    roles = resolve_roles(df, quasi_identifiers=ADULT_QUASI_IDENTIFIERS, sensitive=ADULT_SENSITIVE)
    return with_roles(df, roles)


def adult_hierarchy_path(attribute: str):
    """Path of the ARX-format hierarchy CSV shipped for an Adult attribute (e.g. ``"age"``)."""
    path = resources.files(__name__).joinpath("hierarchies", f"adult_hierarchy_{attribute}.csv")
    if not path.is_file():
        raise KeyError(f"no shipped hierarchy for {attribute!r}; attributes: "
                       f"{sorted(ADULT_QUASI_IDENTIFIERS) + ['salary-class']}")
    return path


def make_patients(n: int = 300, seed: int | None = 42) -> pd.DataFrame:
    """Synthetic medical records as in the k/l/t tutorial: zipcode, age, gender, disease.

    Zip codes cycle through 10001..10003, ages are uniform in [20, 70), gender is M/F at
    random, and disease follows the tutorial's distribution (Diabetes 0.3, Hypertension 0.25,
    Asthma 0.2, Cancer 0.15, Depression 0.1).

    Example
    -------
    >>> make_patients(3, seed=1)["zipcode"].tolist()
    ['10001', '10002', '10003']
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    rng = np.random.default_rng(seed)
    zips = np.array(["10001", "10002", "10003", "10001", "10002", "10003"])
    diseases = ["Diabetes", "Hypertension", "Asthma", "Cancer", "Depression"]
    return pd.DataFrame({
        "zipcode": zips[np.arange(n) % 6],
        "age": rng.integers(20, 70, n),
        "gender": rng.choice(["M", "F"], n),
        "disease": rng.choice(diseases, n, p=[0.3, 0.25, 0.2, 0.15, 0.1]),
    })
