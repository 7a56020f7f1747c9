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


#: ICD-10 codes of :func:`make_discharges` and their shares (common inpatient diagnoses)
_ICD10 = {
    "I10": 0.12, "E11.9": 0.10, "J18.9": 0.08, "I50.9": 0.07, "N39.0": 0.06, "J44.1": 0.06,
    "A41.9": 0.05, "I48.91": 0.05, "K35.80": 0.04, "S72.001A": 0.04, "F32.9": 0.04,
    "O80": 0.04, "C34.90": 0.03, "I21.4": 0.03, "K80.20": 0.03, "M17.11": 0.03,
    "E86.0": 0.03, "G40.909": 0.02, "B20": 0.02, "F10.20": 0.02, "C50.911": 0.02,
    "N18.6": 0.02, "Z38.00": 0.02,
}
_FIRST = ["Anna", "Ben", "Chloe", "David", "Emma", "Farid", "Grace", "Hugo", "Ines", "Jack",
          "Karin", "Liam", "Maria", "Noah", "Olga", "Pedro", "Quinn", "Rosa", "Sven", "Tara"]
_LAST = ["Smith", "Jones", "Garcia", "Nguyen", "Kowalski", "Okafor", "Rossi", "Novak",
         "Silva", "Cohen", "Larsen", "Dubois", "Schmidt", "Haddad", "Ivanova", "Murphy"]
_NOTES = ["stable at discharge", "follow-up in two weeks with GP", "readmitted within 30 days",
          "discharged to rehabilitation", "patient declined further tests",
          "wound healing well, sutures out day 10", "referred to cardiology",
          "family informed by phone", "transferred from county hospital"]


#: the roles of :func:`make_discharges` a publisher would decide: the identifiers dropped,
#: dates of birth and admission, ZIP code, sex and ethnicity as quasi-identifiers, the
#: diagnosis sensitive, the rest published as it is (examples and tests use them)
DISCHARGE_ROLES = {
    "identifiers": ["patient_id", "name", "note"],
    "quasi_identifiers": {"birth_date": "ordered", "admission_date": "ordered",
                          "zip": "unordered", "sex": "unordered", "ethnicity": "unordered"},
    "sensitive": ["diagnosis"],
    "insensitive": ["discharge_date", "charges", "weight"],
}


def make_discharges(n: int = 2_000, seed: int | None = 0) -> pd.DataFrame:
    """A synthetic hospital discharge table as publishers hold it: direct identifiers, free
    text, dates, ZIP codes with leading zeros, missing cells and survey weights.

    Columns: ``patient_id`` (unique ``P0000001``...), ``name`` (first and last name; names
    repeat), ``note`` (free text naming the patient), ``birth_date``, ``admission_date``,
    ``discharge_date`` (datetimes), ``zip`` (5-digit text, many starting with ``0``), ``sex``
    (``F``/``M``), ``ethnicity`` (text, about 8 % missing), ``diagnosis`` (ICD-10 code,
    sensitive), ``charges`` (float, about 3 % missing) and ``weight`` (a sampling weight).
    No role is remembered: the frame is as a CSV export would give it, so that every column
    has to be decided (see docs/guide.md, "Publishing a release").

    Example
    -------
    >>> d = make_discharges(5, seed=1)
    >>> d.columns.tolist()[:5]
    ['patient_id', 'name', 'note', 'birth_date', 'admission_date']
    >>> d["zip"].str.len().unique().tolist(), d["patient_id"].is_unique
    ([5], True)
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be an integer >= 0, got {n!r}")
    rng = np.random.default_rng(seed)
    # ZIP codes of a few regions, skewed towards the city centres
    prefixes = np.array(["021", "024", "044", "047", "060", "100", "112", "606"])
    zips = np.array([f"{p}{s:02d}" for p in prefixes for s in (1, 3, 4, 10, 18, 30, 45, 62)])
    zip_p = rng.dirichlet(np.full(len(zips), 0.6))
    age = np.clip(rng.gamma(6.0, 9.0, n) + rng.integers(0, 3, n), 0, 101).astype(int)
    admitted = (pd.Timestamp("2024-01-01")
                + pd.to_timedelta(rng.integers(0, 366, n), unit="D"))
    birth = (admitted - pd.to_timedelta(age * 365.25 + rng.integers(0, 365, n), unit="D")
             ).normalize().astype("datetime64[us]")
    stay = rng.geometric(0.22, n)
    codes = list(_ICD10)
    shares = np.array(list(_ICD10.values()))
    first = rng.choice(_FIRST, n)
    last = rng.choice(_LAST, n)
    name = np.char.add(np.char.add(first, " "), last)
    note = [f"{f} {l}: {rng.choice(_NOTES)}" for f, l in zip(first, last)]
    ethnicity = rng.choice(["White", "Black", "Asian", "Hispanic", "Other"], n,
                           p=[0.55, 0.18, 0.12, 0.11, 0.04]).astype(object)
    ethnicity[rng.random(n) < 0.08] = None
    charges = np.round(rng.lognormal(9.2, 0.8, n) * (1 + 0.15 * stay), 2)
    charges[rng.random(n) < 0.03] = np.nan
    return pd.DataFrame({
        "patient_id": [f"P{i:07d}" for i in rng.permutation(n) + 1],
        "name": name,
        "note": note,
        "birth_date": birth,
        "admission_date": admitted,
        "discharge_date": admitted + pd.to_timedelta(stay, unit="D"),
        "zip": rng.choice(zips, n, p=zip_p / zip_p.sum()),
        "sex": rng.choice(["F", "M"], n),
        "ethnicity": pd.Series(ethnicity, dtype="str"),
        "diagnosis": rng.choice(codes, n, p=shares / shares.sum()),
        "charges": charges,
        "weight": np.round(rng.uniform(40, 260, n), 1),
    })
