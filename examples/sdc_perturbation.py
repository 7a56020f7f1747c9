"""The perturbations of statistical offices (sdcMicro's): PRAM, top and bottom coding, rank
swapping and additive / correlated noise.

Run: python examples/sdc_perturbation.py
"""

import numpy as np
import pandas as pd

import pdanon
from pdanon import perturb

rng = np.random.default_rng(0)
n = 5_000
income = rng.lognormal(10, 0.6, n).round(2)
df = pd.DataFrame({
    "person": [f"P{i:05d}" for i in range(n)],
    "region": rng.choice(["north", "south", "east", "west"], n, p=[0.4, 0.3, 0.2, 0.1]),
    "sex": rng.choice(["F", "M", None], n, p=[0.49, 0.49, 0.02]),
    "age": rng.integers(16, 100, n),
    "income": income,
    "spend": (0.6 * income + rng.normal(0, 2_000, n)).round(2),
})
roles = dict(identifiers=["person"], quasi_identifiers=["region", "sex", "age"],
             sensitive=["income", "spend"])

# --- 1. PRAM: categories re-drawn from an invariant transition matrix ------------------------
out = df.anon.pram(["region", "sex"], p=0.8, seed=1, **roles)
print("region before / after PRAM (invariant: same counts in expectation)")
print(pd.DataFrame({"before": df["region"].value_counts(), "after": out["region"].value_counts()}))
print("matrix used:\n", perturb.pram_matrix(df["region"], p=0.8).round(3))
print("info:", out.anon.info["columns"]["region"], "\n")
assert (out["sex"].isna().to_numpy()                         # missing cells stay missing
        == out.anon.input_rows(df)["sex"].isna().to_numpy()).all()

# --- 2. top and bottom coding ----------------------------------------------------------------
coded = df.anon.top_code("income", quantile=0.99, **roles)
coded = coded.anon.top_code("age", threshold=90)            # roles are remembered
coded = coded.anon.bottom_code("age", threshold=18)
print("income max before / after top coding at the 99% quantile:",
      df["income"].max(), coded["income"].max())
print("age range after coding:", coded["age"].min(), "-", coded["age"].max(),
      coded.anon.info["columns"]["age"], "\n")

# --- 3. rank swapping: values move between records of close rank --------------------------
swapped = df.anon.rank_swap(["income", "age"], p=2, seed=2, **roles)
print("rank swap:", swapped.anon.info["columns"]["income"])
print("income distribution unchanged:", sorted(swapped["income"]) == sorted(df["income"]))
print("correlation income/spend before / after:",
      round(df["income"].corr(df["spend"]), 3), round(swapped["income"].corr(swapped["spend"]), 3),
      "\n")

# --- 4. noise: additive (per column) or correlated (keeps correlations) ---------------------
for method in ("additive", "correlated"):
    noisy = df.anon.add_noise(["income", "spend"], method=method, noise=0.25, seed=3, **roles)
    factor = noisy.anon.info.get("covariance_factor", noisy.anon.info.get("variance_factor"))
    ratio = np.cov(noisy[["income", "spend"]].T) / np.cov(df[["income", "spend"]].T)
    print(f"{method:>10}: documented factor {factor}, covariance ratio\n{ratio.round(3)}")
    print(f"{'':>10}  correlation {noisy['income'].corr(noisy['spend']):.3f}"
          f" (original {df['income'].corr(df['spend']):.3f})")

# --- 5. local suppression: few QI cells set missing until wildcard k-anonymity holds -------
k = 3
print(f"\nwildcard k-anonymity before: {df.anon.k_anonymity(missing='wildcard', **roles)}")
suppressed = df.anon.local_suppression(k, importance=["sex", "region", "age"], **roles)
info = suppressed.anon.info
print(f"after local_suppression({k}): {suppressed.anon.k_anonymity(missing='wildcard')}, "
      f"{info['cells_suppressed']} cells in {info['rows_changed']} rows, per column "
      f"{info['cells_suppressed_per_column']}")
