"""How much utility perturbation keeps: IL1s, eigenvalue loss, correlation and covariance
differences, mean / sd / quantile changes and category share distance, for microaggregation,
noise, rank swapping, top coding and PRAM of one table.

Run: python examples/perturbation_utility.py
"""

import numpy as np
import pandas as pd

import pdanon
from pdanon import metrics

rng = np.random.default_rng(0)
n = 3_000
age = rng.integers(18, 90, n).astype(float)
income = rng.lognormal(10, 0.6, n).round(2)
df = pd.DataFrame({
    "age": age,
    "income": income,
    "spend": (0.6 * income + rng.normal(0, 2_000, n)).round(2),
    "region": rng.choice(["north", "south", "east", "west"], n, p=[0.4, 0.3, 0.2, 0.1]),
})
df.loc[rng.random(n) < 0.02, "income"] = np.nan          # missing cells stay missing
roles = dict(quasi_identifiers=["age", "region"], sensitive=["income", "spend"])

releases = {
    "microaggregate(5)": df.anon.microaggregate(5, columns=["age", "income", "spend"], **roles),
    "add_noise additive 0.2": df.anon.add_noise(["income", "spend"], noise=0.2, seed=1, **roles),
    "add_noise correlated 0.2": df.anon.add_noise(["income", "spend"], method="correlated",
                                                  noise=0.2, seed=1, **roles),
    "rank_swap(p=5)": df.anon.rank_swap(["income", "spend"], p=5, seed=1, **roles),
    "top_code(income, 0.95)": df.anon.top_code("income", quantile=0.95, **roles),
    "pram(region, p=0.8)": df.anon.pram("region", p=0.8, seed=1, **roles),
}

# --- 1. one summary per release: the rows df.anon.metrics(original) adds ------------------
summary = pd.DataFrame({name: metrics.perturbation_summary(df, out)
                        for name, out in releases.items()}).T
summary = summary[list(metrics.perturbation.SUMMARY_KEYS)]   # table order
with pd.option_context("display.width", 200, "display.max_columns", 20):
    print(summary.round(4), "\n")

# --- 2. per column: what moved where ------------------------------------------------------
noisy = releases["add_noise additive 0.2"]
print(metrics.perturbation_utility(df, noisy)[["cells", "il1s", "mean_change", "sd_change",
                                               "q50_change", "q95_change"]].round(4), "\n")

# additive noise of sd 0.2 * s: IL1s near E|N(0, 0.2^2)| / sqrt(2) = 0.2 / sqrt(pi) = 0.113,
# the sd grows by sqrt(1 + 0.2^2) - 1 = 2%, the income/spend correlation shrinks
print("IL1s of additive noise 0.2:", round(metrics.il1s(df, noisy), 3), "expected about",
      round(0.2 / np.sqrt(np.pi), 3))
assert abs(metrics.il1s(df, noisy) - 0.2 / np.sqrt(np.pi)) < 0.01
# correlated noise keeps every correlation: far smaller correlation difference
corr = {m: metrics.correlation_difference(df, releases[f"add_noise {m} 0.2"])
        for m in ("additive", "correlated")}
print("correlation difference, additive vs correlated noise:",
      {m: round(v, 4) for m, v in corr.items()})
assert corr["correlated"] < corr["additive"]
# rank swapping moves values between rows only: mean, sd and quantiles are kept exactly
swap = summary.loc["rank_swap(p=5)"]
assert swap["max_mean_change"] < 1e-12 and swap["max_quantile_change"] < 1e-12

# --- 3. the same figures in the metrics table ---------------------------------------------
table = releases["microaggregate(5)"].anon.metrics(df)
print()
print(table[table["metric"].isin(summary.columns)].to_string(index=False))
