"""Two data owners publish one k-anonymous table without showing each other their data.

A hospital holds zip code, age and gender of its patients; an insurer holds the diagnosis code
group and the yearly claim of the *same* people (row i is the same person at both). Each
anonymizes its own columns, they refine their groups over encrypted row ids until the join is
k-anonymous, then swap the aggregated tables. Run: python examples/two_parties.py

Uses coincurve when installed (pip install 'pdanon[fast]'), otherwise pure-Python ECPy with
fewer rows.
"""

import multiprocessing
import time

import numpy as np
import pandas as pd

from pdanon.datasets import make_patients
from pdanon.algorithms import DistributedDataOwnerKAnonymityDepersonalizator
from pdanon.parties import (
    DataOwner,
    backends,
    run_local,
    run_party,
)
from pdanon.parties._wire import decode

FAST = "coincurve" in backends()
ROWS = 400 if FAST else 60
K = 4

patients = make_patients(ROWS, seed=1)
hospital = patients[["zipcode", "age", "gender"]]
rng = np.random.default_rng(1)
age = patients["age"].to_numpy()
insurer = pd.DataFrame({                     # the same people: plan and claims follow age
    "plan": np.where(age < 35, "basic", np.where(age < 55, "plus", "premium")),
    "claims": age * 40 + rng.integers(0, 400, ROWS),   # yearly claims in EUR
    "disease": patients["disease"],          # sensitive: published as is
})

# ---- 1. both owners in one process; watch the messages they exchange
a = DataOwner(hospital, k=K, quasi_identifiers={"zipcode": "unordered", "age": "real",
                                                "gender": "unordered"}, seed=0)
b = DataOwner(insurer, k=K, quasi_identifiers={"plan": "unordered", "claims": "real"},
              sensitive=["disease"], seed=0)
log = []
started = time.perf_counter()
joined = run_local(a, b, observer=lambda who, m: log.append((who, decode(m)[0]["type"], len(m))))
print(f"{ROWS} rows, k={K}, backend {a.stats['backend']}: "
      f"{time.perf_counter() - started:.2f} s, {a.stats['rounds']} refinement rounds, "
      f"{a.stats['scalar_multiplications'] + b.stats['scalar_multiplications']} scalar "
      "multiplications")
print("messages (first owner):", [(t, n) for who, t, n in log if who == "first"][:5], "...")
print(joined.head(8))
sizes = joined.groupby(["zipcode", "age", "gender", "plan", "claims"]).size()
print(f"smallest class over all five quasi-identifiers: {sizes.min()} rows (k={K})")
print(f"groups: hospital {a.stats['local_groups']} -> {a.stats['final_groups']}, "
      f"insurer {b.stats['local_groups']} -> {b.stats['final_groups']}")


# ---- 2. the same protocol between two processes (a multiprocessing Pipe here; a socket on
#         127.0.0.1 or a TLS connection works the same way with SocketChannel)
def insurer_process(conn):
    owner = DataOwner(insurer, k=K, quasi_identifiers={"plan": "unordered", "claims": "real"},
                      sensitive=["disease"], seed=0)
    run_party(owner, conn, first=False)
    conn.close()


left, right = multiprocessing.Pipe()
proc = multiprocessing.Process(target=insurer_process, args=(right,))
proc.start()
hosp = DataOwner(hospital, k=K, quasi_identifiers={"zipcode": "unordered", "age": "real",
                                                   "gender": "unordered"}, seed=0)
over_pipe = run_party(hosp, left, first=True)
proc.join()
print("two processes give the same table:", over_pipe.equals(joined))

# ---- 3. the classic cp2025 API (numpy object arrays; the seed's example)
qi1 = np.array([[1, 1, 1], [1, 1, 2], [3, 3, 3], [3, 3, 4], [4, 4, 5], [4, 4, 4]], dtype=object)
qi2 = np.array([[1, 1, 1], [1, 1, 2], [3, 3, 3], [4, 4, 5], [3, 3, 4], [4, 4, 4]], dtype=object)
dep1 = DistributedDataOwnerKAnonymityDepersonalizator(qi1, np.array([]), 2, None, seed=7,
                                                      quasi_identifiers_types=["real"] * 3)
dep2 = DistributedDataOwnerKAnonymityDepersonalizator(qi2, np.array([]), 2, None, seed=7,
                                                      quasi_identifiers_types=["real"] * 3)
dep1.set_other_data_owner(dep2)
dep2.set_other_data_owner(dep1)
dep1.exchange_data()
print(dep1.joined_data)
