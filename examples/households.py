"""Rows that belong together: a household column, refused unchanged, protected with household=.

Run: ``python examples/households.py``. A synthetic survey of 1,200 households (1 to 5 people):
the region is the household's, age and sex each member's. Published unchanged, the household
id makes most households unique by their members' published cells although every person sits
in a class of k; pdanon refuses it without a decision, and ``household="hh"`` publishes it
renumbered with every household's signature shared by k households (docs/security.md, "Rows
that belong together").
"""

import warnings

import numpy as np
import pandas as pd

import pdanon
from pdanon.screening import households
from pdanon.hierarchy import intervals

rng = np.random.default_rng(7)
sizes = rng.choice([1, 2, 3, 4, 5], size=1_200, p=[.2, .3, .25, .15, .1])
n = int(sizes.sum())
df = pd.DataFrame({
    "hh": np.repeat(rng.permutation(1_200) + 70_001, sizes),
    "age": rng.integers(0, 90, n),
    "sex": rng.choice(["F", "M"], n),
    "region": np.repeat(rng.choice(["north", "south", "east", "west"], 1_200), sizes),
    "income": rng.choice(["low", "mid", "high"], n),
})
qi = {"age": "real", "sex": "unordered", "region": "unordered"}
k = 3

# 1. Left without a role, the household column is refused, with the fixes
try:
    df.anon.k_anonymize(k, quasi_identifiers=qi, sensitive=["income"])
except pdanon.RoleError as exc:
    print("refused:", str(exc).splitlines()[1].strip())

# 2. Published unchanged on purpose: every person is in a class of k, the households are not
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    unchanged = df.anon.k_anonymize(k, quasi_identifiers=qi, sensitive=["income"],
                                    insensitive=["hh"])
shared = households.shared_by(unchanged, "hh", list(qi))
print(f"unchanged: k = {unchanged.anon.k_anonymity()}, household k = {shared.min()}, "
      f"{int((shared == 1).sum()):,} of {len(shared):,} households unique")
print("check(household='hh'):", "PASSED" if unchanged.anon.check(household="hh") else "FAILED")

# 3. household="hh" with age in 20-year bands: renumbered ids, household k verified
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    out = df.anon.k_anonymize(k, quasi_identifiers=qi, sensitive=["income"], household="hh",
                              hierarchies={"age": intervals([20, 40])}, algorithm="optimal")
info = out.anon.info["household"]
print(f"household=: {info['linked_households']:,} households linked, "
      f"{info['unlinked_households']:,} unlinked ({info['unlinked_rows']:,} rows); "
      f"household k = {households.household_k(out, 'hh', list(qi))}")
print("ids are fresh:", not set(out["hh"].dropna()) & set(df["hh"]))
verdict = out.anon.check()
print(verdict.criteria[["criterion", "measured", "threshold", "passed"]].to_string(index=False))
