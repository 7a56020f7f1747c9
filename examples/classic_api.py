"""The classic class API of cp2025, on pdanon: the same code with pdanon's imports, its df.anon
equivalent, the reference's metrics, and the depersonalize command.

Run: python examples/classic_api.py
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import pdanon
from pdanon.compat.cp2025.algorithms.Datafly import Datafly
from pdanon.compat.cp2025.algorithms.GeneralizationKAnonymityTimeOptimal import (
    GeneralizationKAnonymityTimeOptimal,
)
from pdanon.compat.cp2025.algorithms.groupjoin import (
    GroupJoinAggregation,
    GroupJoinDepersonalizator,
    GroupJoinLDiversity,
)
from pdanon.compat.cp2025.algorithms.IdentifierHasher import IdentifierHasher
from pdanon.compat.cp2025.algorithms.SuppressionKAnonymityBaseline import (
    SuppressionKAnonymityBaseline,
)
from pdanon.compat.cp2025.utility.metrics import (
    adversarial_knowledge_gain,
    find_k_anonimus,
    find_l_diverse,
    my_by_element_distance,
)

# --- 1. the reference's code, unchanged except for the imports ---------------------------------
df = [
    [1, 1, 1, 1],
    [1, 1, 1, 1],
    [2, 2, 2, 2],
    [2, 2, 2, 3],
]
k_anonymus_df, k_changes = Datafly(2, ["real"] * 4).depersonalize(df)
print("Datafly:", k_anonymus_df, "changed cells:", k_changes)
# -> the last column of rows 2 and 3 becomes the range [2, 3] (a pdanon GeneralizationRange)

# --- 2. a table with roles by position: identifiers dropped, counts returned --------------------
people = pd.DataFrame({
    "name": ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal"],
    "age": [23, 25, 31, 35, 38, 41, 47, 52],
    "education": [1, 2, 2, 3, 3, 3, 4, 4],
    "sex": ["F", "M", "M", "F", "F", "M", "F", "M"],
    "disease": ["flu", "hiv", "flu", "cold", "hiv", "flu", "cold", "flu"],
})
types = ["real", "ordered", "unordered"]
out, generalized = GeneralizationKAnonymityTimeOptimal(2, types).depersonalize(
    people, identifiers_ids=[0], sensitives_ids=[4])
print("\nTimeOptimal generalization (an object DataFrame, like the reference's):")
print(out.to_string(), "\n  generalized cells:", generalized)

# the same with the accessor: a pandas-native frame (generalization dtype), info attached
acc = people.anon.k_anonymize(2, method="generalize", algorithm="nearest",
                              identifiers=["name"],
                              quasi_identifiers={"age": "real", "education": "ordered",
                                                 "sex": "unordered"},
                              sensitive=["disease"])
print("df.anon.k_anonymize(...):", dict(acc.dtypes.astype(str)), "changed cells:",
      acc.anon.info["changed_cells"])

# GroupJoin: method and model objects; the loss function takes the reference's signature
dep = GroupJoinDepersonalizator(GroupJoinAggregation(types),
                                GroupJoinLDiversity(2, 2, seed=0))
agg, replaced = dep.depersonalize(people, identifiers_ids=[0], sensitives_ids=[4])
print("\nGroupJoin aggregation, 2-anonymous and 2-diverse (seed 0):", replaced, "cells replaced")
print(agg.to_string())

# fewer rows than k: the quasi-identifiers are dropped and the count is None (as the reference)
print("\nk larger than the table:", Datafly(20).depersonalize(people, identifiers_ids=[0],
                                                            sensitives_ids=[4])[1])

# the exact minimum of suppressed cells (the reference enumerates 2^(rows*columns) patterns)
small = [[1, "a"], [1, "b"], [2, "a"], [2, "a"], [3, "b"], [3, "b"]]
started = time.perf_counter()
table, suppressed = SuppressionKAnonymityBaseline(2).depersonalize(small)
print(f"\nminimum suppression: {suppressed} cells in {time.perf_counter() - started:.2f} s:",
      table)

# the reference's identifier hash, kept for compatibility (unsafe: unkeyed, see docs)
hashed = IdentifierHasher().depersonalize(people, identifiers_ids=[0], sensitives_ids=[4])[0]
print("\nIdentifierHasher:", hashed["name"].iloc[0][:16], "...")

# --- 3. the reference's metrics on arrays ------------------------------------------------------
qi = out.to_numpy()[:, :3]
s = out.to_numpy()[:, 3]
print("\nfind_k_anonimus:", find_k_anonimus(qi), " find_l_diverse:",
      find_l_diverse(qi, s.reshape(-1, 1)),
      " knowledge gain:", round(adversarial_knowledge_gain(qi, s), 3),
      " by-element distance:",
      round(my_by_element_distance(people.to_numpy()[:, 1:4], qi, types), 3))

# --- 4. the depersonalize command ----------------------------------------------------------------
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "people.csv"
    people.to_csv(path, index=False)
    cmd = [sys.executable, "-m", "pdanon.cli.depersonalize", "-i", str(path), "-f", "-a", "datafly",
           "-k", "2", "--i_ids", "0", "--s_ids", "4", "--types", "rou"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    print("\n$ depersonalize -i people.csv -f -a datafly -k 2 --i_ids 0 --s_ids 4 --types rou")
    print(proc.stdout.strip())
    bad = subprocess.run(cmd[:4] + [str(Path(tmp) / "missing.csv"), "-k", "2"],
                         capture_output=True, text=True)
    print("exit code", bad.returncode, "-", bad.stderr.strip())
