"""Real-world data: missing values, identifier columns, mixed types, bad numbers, and reading
a published file back. Run: python examples/real_world.py

A register export as it usually comes: blank cells, a patient number nobody declared an
identifier (refused until it is decided), a column of codes that mixes numbers and text, and
one infinite value.
"""

import os
import tempfile
import warnings

import numpy as np
import pandas as pd

import pdanon

rng = np.random.default_rng(7)
n = 60
register = pd.DataFrame({
    "patient": [f"P{i:05d}" for i in rng.permutation(n)],            # a unique ID
    "age": rng.choice([23, 27, 31, 36, 44, 52, 58, np.nan], n),        # some unknown
    "sex": rng.choice(["F", "M", None], n, p=[0.48, 0.48, 0.04]),
    "region": pd.Series(rng.choice([1, 2, "2a", "north", None], n), dtype=object),
    "disease": rng.choice(["flu", "cold", "asthma", None], n),
})
print(register.head(6).to_string(), "\n")

# 1. The patient number has no role: it is refused, with the evidence and the two fixes
#    (nothing is published until every column is decided).
try:
    register.anon.k_anonymize(3, sensitive=["disease"])
except pdanon.RoleError as e:
    print("RoleError:", e, "\n")
# decided: the ID is an identifier (dropped); the roles pdanon infers for the rest are named
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = register.anon.k_anonymize(3, identifiers=["patient"], sensitive=["disease"])
print("warning:", [str(w.message)[:100] + "..." for w in caught
                   if issubclass(w.category, pdanon.RoleWarning)])

# 1b. A schema checks what it says: an age column read as text fails a real kind, with the
#     column and the fix named (one line per problem, not pandera's JSON); missing cells pass.
strict = pdanon.schema(identifiers=["patient"], quasi_identifiers={"age": "real"},
                       sensitive={"disease": "unordered"}, insensitive=["sex", "region"])
as_text = register.assign(age=register["age"].map(lambda a: None if pd.isna(a) else f"{a:.0f}"))
try:
    as_text.anon.with_schema(strict)
    raise SystemExit("a text age passed a real kind")
except pdanon.InvalidInputError as e:
    print(e, "\n")
assert register.anon.with_schema(strict).anon.roles().quasi_identifiers == {"age": "real"}
assert "patient" not in out.columns

# 2. Missing values are data: a blank is never published as a value. A class of blanks stays
#    blank; a class that mixes blank and present cells publishes the cell of its present
#    values "or missing" ("[40, 49] or missing", "F or missing"), so no present cell is
#    blanked to keep the class together (method="suppress" would blank it).
info = out.anon.info
print(out.head(8).to_string())
print(f"k = {info['achieved']['k']}, suppressed cells = {info['suppressed_cells']}, "
      f"suppressed rows = {info['suppressed_rows']}")
for c in ["age", "sex", "region"]:
    before = out.anon.input_rows(register)[c]  # the input's rows, in the release's order
    was_blank = before.isna().to_numpy()
    covers = (np.asarray(out[c].array.or_missing) if isinstance(out[c].dtype,
              pdanon.GeneralizationDtype) else np.zeros(len(out), dtype=bool))
    assert (out[c].isna().to_numpy() | covers)[was_blank].all()  # blank, or "... or missing"
    print(f"{c}: {int(was_blank.sum())} blank cells in, {int(out[c].isna().sum())} out, "
          f"{int(covers.sum())} cells 'or missing'")

# 3. Metrics: missing as a value (default) or as a wildcard (the conservative risk figure).
print("k with missing as a value:", out.anon.k_anonymity())

# 4. Mixed types: 1, "2a" and "north" in one unordered column are fine (equality decides);
#    read in order they must be one type, and the error says how to fix it.
try:
    register.anon.k_anonymize(3, identifiers=["patient"], quasi_identifiers={"region": "ordered"})
except pdanon.KindError as e:
    print("\nKindError:", e)

# 5. Bad numbers are refused before any work, naming the column, the count and the row.
broken = register.assign(age=register["age"].replace(52, np.inf))
try:
    broken.anon.k_anonymize(3, identifiers=["patient"], sensitive=["disease"])
except pdanon.InvalidInputError as e:
    print("InvalidInputError:", e)

# 6. Read the published file back. Parquet keeps every dtype and the roles; a CSV file needs
#    the release's schema (dtype, categories and their order of every column), and
#    pdanon.read_csv checks every cell against its column's kind.
with tempfile.TemporaryDirectory() as tmp:
    parquet = os.path.join(tmp, "release.parquet")
    out.to_parquet(parquet)
    pd.testing.assert_frame_equal(pd.read_parquet(parquet), out)
    csv = os.path.join(tmp, "release.csv")
    out.to_csv(csv, index=False)
    back = pdanon.read_csv(csv, schema=out.anon.schema)
    pd.testing.assert_frame_equal(back, out.reset_index(drop=True), check_names=False)
    print("\nParquet and CSV round trips: equal to the release")
    for bad in ("forty,F,2,flu\n",            # text in a real column
                "[30, 40,F,2,flu\n"):         # a range cut by an unquoted comma
        with open(csv, "a", encoding="utf-8") as fh:
            fh.write(bad)
        try:
            pdanon.read_csv(csv, schema=out.anon.schema)
        except pdanon.AnonymizationError as e:
            print(type(e).__name__ + ":", e)
