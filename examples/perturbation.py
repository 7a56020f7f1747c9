"""Perturbation: keyed pseudonyms for identifiers, shuffling, randomization.

Run: python examples/perturbation.py
"""

import hashlib

import numpy as np
import pandas as pd

import pdanon
from pdanon import perturb

rng = np.random.default_rng(0)
n = 12
df = pd.DataFrame({
    "phone": [f"+7900123{i:04d}" for i in rng.choice(10_000, n, replace=False)],
    "age": rng.integers(20, 70, n),
    "zip": rng.choice(["10001", "10002", "10003"], n),
    "education": pd.Categorical(rng.choice(["school", "college", "university"], n),
                                categories=["school", "college", "university"], ordered=True),
    "income": rng.normal(50_000, 12_000, n).round(2),
    "disease": rng.choice(["flu", "cold", "asthma", "gout"], n),
})
schema = pdanon.schema(identifiers=["phone"],
                       quasi_identifiers={"age": "real", "zip": "unordered",
                                          "education": "ordered", "income": "real"},
                       sensitive={"disease": "unordered"})
df = df.anon.with_schema(schema)
print("original:\n", df.to_string(), "\n")

# --- 1. pseudonymize identifiers with a keyed hash (HMAC-SHA-256) -------------------------------
hashed = df.anon.hash_identifiers()             # no key: a random 256-bit key is generated
key = hashed.anon.info["key"]                   # SecretKey: never printed, never saved in files
print("generated key:", key, "fingerprint", hashed.anon.info["key_fingerprint"])
print(hashed[["phone", "age"]].head(3).to_string(), "\n")

# a key you give is never recorded (no fingerprint): info says only where it came from
given = df.anon.hash_identifiers(key=bytes(key))
print("given key ->", {k: given.anon.info[k] for k in ("key_source", "context")})
assert "key_fingerprint" not in given.anon.info
assert sorted(given["phone"].dropna()) == sorted(hashed["phone"].dropna())  # rows in random order

# domain separation: with context="column" the same number in two columns gets two pseudonyms
contacts = pd.DataFrame({"patient_phone": df["phone"].iloc[:3].tolist(),
                         "emergency_phone": df["phone"].iloc[[1, 0, 2]].tolist()})
linked = contacts.anon.hash_identifiers(key=key, identifiers=["patient_phone", "emergency_phone"])
separated = contacts.anon.hash_identifiers(key=key, context="column",
                                           identifiers=["patient_phone", "emergency_phone"])
# (the rows come in a random order: compare the columns' sets of pseudonyms)
print("same numbers, two columns, context=None:    ",
      set(linked["patient_phone"]) == set(linked["emergency_phone"]))
print("same numbers, two columns, context='column':",
      set(separated["patient_phone"]) == set(separated["emergency_phone"]), "\n")

# the same key gives the same pseudonyms in another frame, so joins still work
visits = pd.DataFrame({"phone": df["phone"].iloc[[0, 0, 3]].tolist(), "visit": [1, 2, 3]})
v = visits.anon.hash_identifiers(key=key, identifiers=["phone"])
print("visits joined on pseudonyms:\n",
      v.merge(hashed[["phone", "disease"]], on="phone").to_string(), "\n")

# why not plain SHA-256 (what the reference IdentifierHasher does)? a dictionary attack:
unsafe = perturb.reference_sha256_rows(df[["phone"]])["phone"]
candidates = [f"+7900123{i:04d}" for i in range(10_000)]      # every number in the block
table = {hashlib.sha256(str(np.array([c], dtype=object)).encode()).hexdigest(): c
         for c in candidates}
print(f"unkeyed SHA-256: {sum(h in table for h in unsafe)}/{n} phone numbers recovered")
print(f"HMAC-SHA-256:    {sum(h in table for h in hashed['phone'])}/{n} recovered\n")

# --- 2. shuffle --------------------------------------------------------------------------------
shuffled = df.anon.shuffle(seed=1)              # QI and sensitive columns, each independently
print("shuffle: columns", shuffled.anon.info["columns"], "identifiers dropped:",
      shuffled.anon.info["identifiers_dropped"])
# inside equivalence classes (rows with equal QI values): here classes of zip
within = df.anon.shuffle(["disease"], within="zip", seed=1)
for z, g in df.groupby("zip"):
    assert sorted(within.loc[within["zip"] == z, "disease"]) == sorted(g["disease"])
print("disease shuffled within each zip; per-zip disease counts unchanged\n")

# --- 3. randomize ------------------------------------------------------------------------------
noisy = df.anon.randomize(seed=2, scale=0.1)    # the reference's default per kind
print("randomize(scale=0.1):\n", noisy.to_string())
print("method per column:", {c: v["method"] for c, v in noisy.anon.info["columns"].items()})
assert noisy["age"].dtype == df["age"].dtype and noisy["education"].dtype == df["education"].dtype
assert noisy["age"].between(df["age"].min(), df["age"].max()).all()

# uniform noise on real columns, or your own noise function per column
noisy = df.anon.randomize(["income", "age"], low={"age": -2}, high={"age": 2},
                          noise={"income": lambda x: np.random.default_rng(3).laplace(0, 500, len(x))},
                          seed=2)
print("\nincome + Laplace(500) noise, age + U(-2, 2):")
before = noisy.anon.input_rows(df)  # matched through the publisher-only way back
print(pd.DataFrame({"income": before["income"].to_numpy(), "noisy income": noisy["income"],
                    "age": before["age"].to_numpy(), "noisy age": noisy["age"]}
                   ).head(5).to_string())

# keep pseudonyms as a join key while randomizing the rest
release = hashed.anon.randomize(seed=4, keep_identifiers=True)
print("\nrelease columns:", list(release.columns), "roles:", release.anon.roles().identifiers)

# --- 4. one column at a time: s.anon ----------------------------------------------------------
capped = df["income"].anon.top_code(quantile=0.9)      # a Series in, a Series out
print("\nincome top-coded at its 90th percentile (value published):",
      capped.anon.info["columns"]["income"]["threshold"])
assert capped.index.equals(df.index) and capped.max() <= df["income"].max()
bands = df["age"].anon.generalize(1, hierarchy=pdanon.hierarchy.intervals([10]))
print("age in decades:", bands.astype(str).head(3).tolist())
try:
    df["age"].anon.k_anonymize(3)
except AttributeError as e:
    print("table method on a column:", str(e)[:88], "...")

# --- 5. as sdcMicro does it, and how many records an attacker still finds --------------------
big = pdanon.datasets.make_discharges(2000, seed=9)[["sex", "ethnicity", "diagnosis", "charges",
                                                     "weight"]]
big = big.anon.with_schema(pdanon.schema(
    quasi_identifiers={"sex": "unordered", "ethnicity": "unordered"},
    sensitive={"diagnosis": "unordered"}, insensitive=["charges", "weight"]))
# PRAM with sdcMicro's random diagonal (pd) and identity mixing (alpha): far more cells kept
fixed = big.anon.pram("diagnosis", p=0.8, seed=5)
sdc_pram = big.anon.pram("diagnosis", pd=0.8, alpha=0.5, seed=5)
print("\nPRAM p=0.8 keeps", round(fixed.anon.info["columns"]["diagnosis"]["expected_kept"], 3),
      "of the cells, pd=0.8 keeps", round(sdc_pram.anon.info["columns"]["diagnosis"]
                                          ["expected_kept"], 3))
# rank swapping by Moore's sequential rule with sdcMicro's 5 % tails coded to their mean
moore = big.anon.rank_swap("charges", p=5, rule="moore", top_percent=5, bottom_percent=5,
                           seed=6)
print("rank swap (Moore):", {k: v for k, v in moore.anon.info["columns"]["charges"].items()
                             if k in ("rule", "max_rank_distance", "top_coded", "bottom_coded")})
# interval disclosure (sdcMicro's dRisk) and distance-based record linkage of the release
print("linkage risk:", moore.anon.linkage_risk(big, summary=True).round(3).to_dict())
