"""Publishing a release, end to end: CSV -> roles -> anonymize -> check(policy) -> publish (data,
schema, report, recoding) -> read back -> measure again. Run: python examples/publishing.py

The input is a hospital discharge export as it comes (pdanon.datasets.make_discharges):
direct identifiers, a free-text note, dates, ZIP codes with leading zeros, blank cells,
charges and survey weights, and no roles. Every figure printed about the release agrees with
every other, before and after the round trip.
"""

import os
import tempfile
import warnings

import pandas as pd

import pdanon

tmp = tempfile.mkdtemp()
raw_csv = os.path.join(tmp, "discharges.csv")
pdanon.datasets.make_discharges(2_000, seed=0).to_csv(raw_csv, index=False)

# 1. Read the export. ZIP codes are codes, not numbers: read them as text (04777 stays 04777).
raw = pd.read_csv(raw_csv, dtype={"zip": "str"},
                  parse_dates=["birth_date", "admission_date", "discharge_date"])
print(raw.head(3).to_string(), "\n")

# 2. Nothing leaves without a decision: with only the obvious roles given, the identifiers,
#    the note, the date of birth and the (nearly unique) charges are refused, with evidence.
try:
    raw.anon.k_anonymize(5, quasi_identifiers=["zip", "sex"], sensitive=["diagnosis"])
except pdanon.RoleError as e:
    print("RoleError:", e, "\n")

# 3. Decide every column. Dates of birth become birth years (a quasi-identifier), charges are
#    rounded to thousands (published on purpose), the raw dates and the weights are kept.
prepared = raw.assign(birth_year=raw["birth_date"].dt.year,
                      charges=(raw["charges"] / 1000).round() * 1000)
schema = pdanon.schema(
    identifiers=["patient_id", "name", "note", "birth_date"],
    quasi_identifiers={"zip": "unordered", "sex": "unordered", "birth_year": "real",
                       "ethnicity": "unordered"},
    sensitive={"diagnosis": "unordered"},
    insensitive=["admission_date", "discharge_date", "charges", "weight"])
safe = prepared.anon.with_schema(schema)

# 4. Anonymize: 5-anonymous and 2-diverse on the diagnosis, suppressing at most 2 % of rows
#    (the suppressed rows are a class of their own that meets both models too).
with warnings.catch_warnings():
    warnings.simplefilter("error", pdanon.RoleWarning)  # every role was decided: none inferred
    release = safe.anon.l_diversify(2, k=5, algorithm="mondrian")
info = release.anon.info
print("identifiers dropped:", info["dropped_identifiers"])
print("achieved:", info["achieved"], "| suppressed rows:", info["suppressed_rows"])

# 5. Check it against the publishing policy before it leaves the building.
policy = pdanon.Policy(k=5, l=2, max_records_at_risk=0.05, max_suppressed_share=0.02)
verdict = release.anon.check(policy, original=safe)
print(verdict, "\n")
if not verdict.passed:
    raise SystemExit("the release does not meet the policy: not published")

# 6. Publish: the one way out. The release already comes in a random order under a fresh
# index (an export sorted on a quasi-identifier would let neighbouring rows give hidden cells
# back); publish checks it again, writes the data, its schema, the report and the recoding,
# reads the data back and checks it again. The report's digests are the files' bytes.
out_dir = os.path.join(tmp, "release")
done = release.anon.publish(out_dir, policy=policy, original=safe, formats=("parquet", "csv"),
                            recoding=True)
print(done)
assert done.verdict.passed == verdict.passed and done.report.passed == verdict.passed
parquet = done.files["release.parquet"]["path"]
csv = done.files["release.csv"]["path"]
import hashlib  # noqa: E402
with open(csv, "rb") as fh:
    assert hashlib.sha256(fh.read()).hexdigest() == done.files["release.csv"]["sha256"]

# 7. Read both files back, as a recipient would, and measure again: the same figures.
from_parquet = pd.read_parquet(parquet)
from_csv = pdanon.read_csv(csv, schema=pdanon.schema_from_yaml(
    done.files["release.schema.yaml"]["path"]))
for name, back in (("parquet", from_parquet), ("csv", from_csv)):
    again = back.anon.check(policy)
    assert again.passed == verdict.passed
    assert again.criteria["measured"].tolist() == verdict.criteria["measured"].tolist()
    assert back.anon.k_anonymity() == info["achieved"]["k"] == release.anon.k_anonymity()
    assert back.anon.l_diversity() == info["achieved"]["l"]
    assert not {"patient_id", "name", "note", "birth_date"} & set(back.columns)
    print(f"{name}: read back, k = {back.anon.k_anonymity()}, l = {back.anon.l_diversity()}, "
          f"verdict {'PASSED' if again.passed else 'FAILED'}")
# ZIP codes kept their leading zeros, in the cells and in the sets of generalized cells
zips = from_csv["zip"].astype(str)
assert zips.str.contains(r"\b0\d{4}\b").any()
# nothing the release hides is in the files: no name, no note, no patient number
text = open(csv, encoding="utf-8").read() + open(parquet, "rb").read().decode("latin-1")
assert not any(n in text for n in raw["name"].unique()[:50])
assert not any(p in text for p in raw["patient_id"].head(200))
print("no identifier in the files; report:", os.path.basename(
    done.files["report.html"]["path"]))
