"""Generalized cells: plain values, ranges, sets and NaN in one pandas dtype.

Builds a small generalized release, shows what pandas operations do with it, and round-trips
it through Parquet and CSV in a temporary directory.

Run: python examples/generalized_cells.py
"""

import os
import tempfile

import numpy as np
import pandas as pd

import pdanon
from pdanon import GeneralizationArray, GeneralizationDtype, GeneralizationRange

EDU = ["Preschool", "HS-grad", "Bachelors", "Masters", "Doctorate"]

# --- a release as an anonymizer would produce it -------------------------------------------
# age: one range per group of rows, built from group labels (the engine's fast path)
ages = np.array([23, 27, 25, 41, 45, 39, 52])
groups = np.array([0, 0, 0, 1, 1, 1, -1])  # -1: row kept as is
age = GeneralizationArray.from_groups(ages, groups, kind="real")

edu = pd.array(["HS-grad", GeneralizationRange("HS-grad", "Masters", "ordered"),
                GeneralizationRange("HS-grad", "Masters", "ordered"), "Bachelors",
                "Bachelors", np.nan, "Doctorate"],
               dtype=GeneralizationDtype("ordered", EDU))
race = pd.array([{"Asian", "White"}, {"Asian", "White"}, "White", "Black", "Black", "Black",
                 None], dtype="generalization[unordered]")
release = pd.DataFrame({"age": age, "education": edu, "race": race,
                        "disease": ["flu", "cold", "flu", "hiv", "cold", "flu", "gout"]})
print("release:\n", release.to_string(), "\n", sep="")
print("dtypes:\n", release.dtypes.to_string(), "\n", sep="")

# --- cells ---------------------------------------------------------------------------------
cell = release.loc[0, "age"]
print("cell 0 of age:", repr(cell), "| min/max:", cell.min, cell.max, "| 25 in it:", 25 in cell)
print("cell 6 of age (plain):", repr(release.loc[6, "age"]))
print("plain cells of age:", release["age"].array.is_plain.tolist())
print("truthful w.r.t. the original ages:", bool(release["age"].array.contains(ages).all()))

# --- pandas operations ---------------------------------------------------------------------
print("\nrows whose race is {Asian, White}:",
      (release["race"] == {"Asian", "White"}).tolist())
print("equivalence classes (age, race) and their sizes:")
print(release.groupby(["age", "race"]).size().to_string())
print("\nsorted by education (category order, NaN last):")
print(release.sort_values("education")[["education"]].to_string())
more = pd.DataFrame({"age": pd.array([GeneralizationRange(60, 69, "real")],
                                     dtype="generalization[real]"),
                     "race": pd.array([{"Black", "Other"}], dtype="generalization[unordered]")})
both = pd.concat([release[["age", "race"]], more], ignore_index=True)
print("\nconcat with a frame generalized separately -> race categories:",
      both["race"].dtype.categories.tolist())

# --- Parquet and CSV round trips -----------------------------------------------------------
with tempfile.TemporaryDirectory() as tmp:
    pq_path = os.path.join(tmp, "release.parquet")
    release.to_parquet(pq_path)
    back = pd.read_parquet(pq_path)
    pd.testing.assert_frame_equal(back, release)
    print("\nParquet round trip: identical dtypes and cells")

    csv_path = os.path.join(tmp, "release.csv")
    release.to_csv(csv_path, index=False)
    print("CSV text:\n" + open(csv_path).read())
    # the frame's schema records roles, kinds, dtypes and category orders
    release = release.anon.with_schema(pdanon.schema(
        quasi_identifiers={"age": "real", "education": "ordered", "race": "unordered"},
        sensitive={"disease": "unordered"}))
    back_csv = pdanon.read_csv(csv_path, schema=release.anon.schema)
    pd.testing.assert_frame_equal(back_csv, release)
    print("CSV round trip through pdanon.read_csv(path, schema=release.anon.schema): identical")

# --- ranges say which ends they hold ---------------------------------------------------------
bands = pd.array(["[30, 35)", "[35, 40)", "(40, 45]", pd.Interval(45, 50, closed="left")],
                 dtype="generalization[real]")
print("\nhalf-open bands:", bands.to_text().tolist(), "closed:", bands.closed.tolist())
print("35.0 lies in:", [str(c) for c in bands if 35.0 in c])
assert bands.contains([35.0] * 4).tolist() == [False, True, False, False]

# --- cells that cover missing too --------------------------------------------------------------
# A class that mixes blank and present cells publishes the cell of its present values
# "or missing" (docs/dtype.md): the class stays together and no present cell is blanked.
survey = pd.DataFrame({"age": [20.0, 25.0, np.nan, 40.0, 41.0, 44.0],
                       "sex": ["F", None, "M", "F", "F", "F"]})
out = survey.anon.k_anonymize(3, algorithm="mondrian", row_order="input",
                              quasi_identifiers={"age": "real", "sex": "unordered"})
print("\nclasses with blanks:", out["age"].astype(str).tolist(), out["sex"].astype(str).tolist())
assert out["age"].array.contains(survey["age"]).all()  # the blank lies in its cell too
assert out["sex"].array.contains(survey["sex"]).all()
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "blanks.parquet")
    out.to_parquet(path)
    assert pd.read_parquet(path)["age"].array.or_missing.tolist() == \
        out["age"].array.or_missing.tolist()
    path = os.path.join(tmp, "blanks.csv")
    out.to_csv(path, index=False)
    again = pdanon.read_csv(path, schema=out.anon.schema)
    assert again["sex"].astype(str).tolist() == out["sex"].astype(str).tolist()
print("'or missing' cells read back from Parquet and CSV")
