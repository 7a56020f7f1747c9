"""An (ε, δ)-differentially private release of the Adult table (SafePub), and its accounting.

Run: ``python examples/dp_release.py``. Every column of the embedded UCI Adult table (ARX's
hierarchies, shipped with pdanon) is published through SafePub at ε = 1, δ = 1e-5: rows are
sampled with the probability ε allows, the generalization levels are chosen by the
exponential mechanism, and every class under the k that (ε, δ) require is left out
(docs/differential_privacy.md). The script prints the accounting the release carries, checks
it independently from those figures, writes the release to Parquet, reads it back and
measures it again.
"""

import math
import tempfile
from pathlib import Path

import pandas as pd

import pdanon
from pdanon.dp.params import delta_for_k
from pdanon.hierarchy import read_arx_csv

df = pdanon.datasets.load_adult()
hierarchies = {c: read_arx_csv(pdanon.datasets.adult_hierarchy_path(c)) for c in df.columns}

# no seed: every draw comes from the operating system's CSPRNG (a seed is for tests only)
release = df.anon.dp_anonymize(1.0, 1e-5, hierarchies=hierarchies, quality="loss")
dp = release.anon.info["dp"]

print("the accounting (info['dp']):")
for key, value in dp.items():
    print(f"  {key:22} {value:.6g}" if isinstance(value, float) else f"  {key:22} {value}")

# the guarantee recomputed from the published figures alone
assert -math.log1p(-dp["sampling_probability"]) <= dp["epsilon_anonymization"] + 1e-12
assert delta_for_k(dp["k"], dp["sampling_probability"], dp["epsilon_anonymization"]) \
    <= dp["delta"]
spent = (dp["epsilon_anonymization"] + dp["steps"] * dp["epsilon_per_step"]
         + dp["epsilon_final_choice"])
assert abs(spent - dp["epsilon_spent"]) < 1e-12 and spent <= dp["epsilon"] + 1e-12
print(f"recomputed: delta(k={dp['k']}) = "
      f"{delta_for_k(dp['k'], dp['sampling_probability'], dp['epsilon_anonymization']):.3g}"
      f" <= {dp['delta']:g}; epsilon spent {spent:g} <= {dp['epsilon']:g}")

print(f"\npublished: {len(release):,} rows in {release.anon.info['groups']} classes, "
      f"levels {release.anon.info['levels']}")
print(release[["age", "sex", "education", "workclass", "salary-class"]].head(3).to_string())
print(release.anon.check())
assert release.anon.check().passed

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "adult_dp.parquet"
    release.to_parquet(path)
    back = pd.read_parquet(path)
    raw = path.read_bytes()
assert back.anon.k_anonymity() == release.anon.k_anonymity() >= dp["k"]
assert b"input_rows" not in raw and b"sampled_rows" not in raw  # publisher-only facts
print(f"read back from Parquet: k = {back.anon.k_anonymity()}, "
      f"epsilon = {back.anon.info['dp']['epsilon']:g}")
# what only the publisher may know (never written to a file)
facts = release.anon.info["publisher_only"]
print(f"publisher only: {facts['sampled_rows']:,} of {facts['input_rows']:,} rows sampled, "
      f"{facts['withheld_sampled_rows']:,} of them in classes under k")
