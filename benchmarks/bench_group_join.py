"""GroupJoin (k, l, t) on UCI Adult, on a 50,000-row discharge table, and against the
reference cp2025 1.0.3 at 300 rows.

    python benchmarks/bench_group_join.py               # all three tables
    python benchmarks/bench_group_join.py --adult       # Adult only
    python benchmarks/bench_group_join.py --discharges  # the discharge table only
    python benchmarks/bench_group_join.py --reference

Targets: Adult (30,162 rows, 8 quasi-identifiers) at k=5 in under 60 s (issue 5); the
discharge table (pdanon.datasets.make_discharges(50_000), 6 quasi-identifiers: three dates,
ZIP, sex, ethnicity with blanks) at k=5 in under 15 s (issue 28), both with its dates typed
(kind ordered) and read as text the way ``depersonalize`` reads them (every column unordered:
the birth dates are 23,000 distinct codes).

Each configuration runs in a fresh process so that "peak MB" is the growth of the process's
peak resident memory during the run (tracemalloc would triple GroupJoin's run time). "loss" is
the total information loss of the groups (pdanon.losses.table_loss: the reference's per-column
losses, with ranks of the *sorted* column for ordered columns). The reference (cp2025 1.0.3, in
/work/refvenv) runs in its own interpreter; its groups are scored with the same loss. Its
ordered-rank defect (ranks of the unsorted column) steers its own choices, not the scoring.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))

REFERENCE_PYTHON = "/work/refvenv/bin/python"
QI_TYPES = {"sex": "unordered", "age": "real", "race": "unordered",
            "marital-status": "unordered", "education": "ordered",
            "native-country": "unordered", "workclass": "unordered",
            "occupation": "unordered"}
SENSITIVE = "salary-class"

# (label, family, method, partners)
ADULT_CONFIGS = [
    ("k=5", "k", "generalize", "near"),
    ("k=5", "k", "suppress", "near"),
    ("k=5", "k", "aggregate", "near"),
    ("k=5, l=2", "l", "generalize", "near"),
    ("k=5, t=0.1 (EMD)", "t", "generalize", "near"),
    ("k=5, t=0.05 (reference JS)", "tref", "generalize", "near"),
]


def _model(family):
    from pdanon.models import AllOf
    from pdanon.models import KAnonymity, LDiversity, TCloseness

    if family == "k":
        return KAnonymity(5)
    if family == "l":
        return AllOf(KAnonymity(5), LDiversity(2))
    if family == "t":
        return AllOf(KAnonymity(5), TCloseness(0.1))
    if family == "tref":
        return AllOf(KAnonymity(5), TCloseness(0.05, distance="reference"))
    raise ValueError(family)


def _frame(rows: int | None, sample_seed: int = 0):
    import pdanon

    df = pdanon.datasets.load_adult()
    if rows is not None:
        df = df.sample(rows, random_state=sample_seed).reset_index(drop=True)
    return df[list(QI_TYPES) + [SENSITIVE]]


def run_one(rows, family, method, partners, seed=0) -> dict:
    """One GroupJoin run in this process (called in a child process)."""
    import numpy as np

    from pdanon.encode import encode_table
    from pdanon.partition.group_join import group_join_partition
    from pdanon.roles import resolve_roles

    df = _frame(rows)
    roles = resolve_roles(df, quasi_identifiers=QI_TYPES, sensitive={SENSITIVE: "unordered"})
    model = _model(family)
    parts = getattr(model, "models", [model])
    context = next((p.context(df, {SENSITIVE: "unordered"}) for p in parts
                    if hasattr(p, "context")), None)
    enc = encode_table(df, roles)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    partition, stats = group_join_partition(enc, model, method=method, seed=seed,
                                            partners=partners, context=context)
    seconds = time.perf_counter() - started
    peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
    return {"seconds": seconds, "peak_mb": peak, "classes": int(partition.groups),
            "loss": stats["loss"], "merges": stats["merges"],
            "candidates": stats["candidates"], "min size": int(np.bincount(
                partition.labels).min())}


DISCHARGE_ROWS = 50_000
DISCHARGE_QIS = ("birth_date", "admission_date", "discharge_date", "zip", "sex", "ethnicity")
# (label, dates' kind, family, method)
DISCHARGE_CONFIGS = [
    ("k=5", "ordered", "k", "generalize"),
    ("k=5", "ordered", "k", "suppress"),
    ("k=5", "ordered", "k", "aggregate"),
    ("k=5, l=2", "ordered", "l", "generalize"),
    ("k=5", "unordered", "k", "generalize"),
    ("k=5", "unordered", "k", "suppress"),
]


def run_discharges(dates, family, method) -> dict:
    """One GroupJoin run on the discharge table, through ``df.anon.anonymize`` (roles,
    encoding, partition, recoding and the model's check on the output), in this process."""
    import warnings

    import pdanon

    df = pdanon.datasets.make_discharges(DISCHARGE_ROWS, seed=1)
    qi = {c: (dates if c.endswith("_date") else "unordered") for c in DISCHARGE_QIS}
    kept = list(DISCHARGE_QIS) + ["diagnosis"]
    if dates == "unordered":  # as depersonalize reads a CSV: every column text
        df = df.assign(**{c: df[c].astype(str) for c in DISCHARGE_QIS if c.endswith("_date")})
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df[kept].anon.anonymize(_model(family), algorithm="group_join", method=method,
                                      quasi_identifiers=qi, sensitive=["diagnosis"])
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
    info = out.anon.info
    return {"seconds": seconds, "cpu": cpu, "peak_mb": peak,
            "classes": int(info["groups"]),
            "k": int(out.anon.k_anonymity())}


def discharge_table() -> None:
    from _util import print_table

    rows = []
    for label, dates, family, method in DISCHARGE_CONFIGS:
        r = _child(["discharges", dates, family, method])
        rows.append({"model": label, "dates as": dates, "method": method,
                     "rows": DISCHARGE_ROWS, "seconds": r["seconds"], "CPU s": r["cpu"],
                     "rows/s": DISCHARGE_ROWS / r["seconds"], "peak MB": r["peak_mb"],
                     "classes": r["classes"], "k reached": r["k"]})
    print(f"GroupJoin through df.anon.anonymize on make_discharges({DISCHARGE_ROWS:,}), "
          f"6 quasi-identifiers, sensitive diagnosis (target: under 15 s)")
    print_table(rows)


def _child(args: list) -> dict:
    out = subprocess.run([sys.executable, __file__, "--one", json.dumps(args)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def adult_table() -> None:
    from _util import print_table

    rows = []
    for label, family, method, partners in ADULT_CONFIGS:
        r = _child([None, family, method, partners])
        rows.append({"model": label, "method": method, "partners": partners,
                     "rows": 30162, "seconds": r["seconds"], "rows/s": 30162 / r["seconds"],
                     "peak MB": r["peak_mb"], "classes": r["classes"],
                     "total loss": r["loss"], "partners/merge": r["candidates"]})
    print("GroupJoin on UCI Adult (30,162 rows, 8 quasi-identifiers, sensitive salary-class)")
    print_table(rows)


# ---------------------------------------------------------------------------- the reference

_REFERENCE_SCRIPT = r"""
import json, sys, time
import pandas as pd
from cp2025.algorithms.groupjoin import (GroupJoinDepersonalizator, GroupJoinKAnonymity,
    GroupJoinLDiversity, GroupJoinTCloseness, GroupJoinSuppression, GroupJoinGeneralization,
    GroupJoinAggregation)
path, family, method, types, seed = sys.argv[1:6]
types = json.loads(types); seed = int(seed)
df = pd.read_csv(path)
qi = list(range(len(types))); sens = [len(types)]
m = {"suppress": GroupJoinSuppression, "generalize": lambda: GroupJoinGeneralization(types),
     "aggregate": lambda: GroupJoinAggregation(types)}[method]()
if family == "k":
    metric = GroupJoinKAnonymity(5, seed=seed)
elif family == "l":
    metric = GroupJoinLDiversity(5, 2, seed=seed)
else:
    metric = GroupJoinTCloseness(5, 0.05, ["unordered"], seed=seed)
dep = GroupJoinDepersonalizator(m, metric)
t = time.perf_counter()
dep.depersonalize(df, quasi_identifiers_ids=qi, sensitives_ids=sens)
print(json.dumps({"seconds": time.perf_counter() - t,
                  "groups": [[int(i) for i in g] for g in dep.groups]}))
"""

REFERENCE_CONFIGS = [("k=5", "k", "generalize"), ("k=5", "k", "suppress"),
                     ("k=5", "k", "aggregate"), ("k=5, l=2", "l", "generalize"),
                     ("k=5, t=0.05 (JS)", "tref", "generalize")]


def reference_table(rows: int = 300, seeds=(0, 1)) -> None:
    import numpy as np

    from _util import print_table
    from pdanon import losses
    from pdanon.encode import encode_table
    from pdanon.roles import resolve_roles

    if not os.path.exists(REFERENCE_PYTHON):
        print(f"reference comparison skipped: {REFERENCE_PYTHON} not found (python3 -m venv "
              "/work/refvenv && /work/refvenv/bin/pip install cp2025==1.0.3)")
        return
    df = _frame(rows)
    enc = encode_table(df, resolve_roles(df, quasi_identifiers=QI_TYPES,
                                         sensitive={SENSITIVE: "unordered"}))
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "adult.csv")
        df.to_csv(path, index=False)
        for label, family, method in REFERENCE_CONFIGS:
            ref_s, ref_l, pd_s, pd_l, near_l = [], [], [], [], []
            for seed in seeds:
                proc = subprocess.run(
                    [REFERENCE_PYTHON, "-c", _REFERENCE_SCRIPT, path,
                     "k" if family == "k" else "l" if family == "l" else "t", method,
                     json.dumps(list(QI_TYPES.values())), str(seed)],
                    capture_output=True, text=True, check=True)
                res = json.loads(proc.stdout.strip().splitlines()[-1])
                labels = np.empty(rows, dtype=np.int64)
                for i, g in enumerate(res["groups"]):
                    labels[g] = i
                ref_s.append(res["seconds"])
                ref_l.append(losses.table_loss(method, enc.columns, labels))
                mine = run_one(rows, family, method, "all", seed)
                pd_s.append(mine["seconds"])
                pd_l.append(mine["loss"])
                near_l.append(run_one(rows, family, method, "near", seed)["loss"])
            out.append({"model": label, "method": method, "rows": rows,
                        "cp2025 s": float(np.mean(ref_s)), "pdanon s": float(np.mean(pd_s)),
                        "speed-up": float(np.mean(ref_s) / np.mean(pd_s)),
                        "cp2025 loss": float(np.mean(ref_l)),
                        "pdanon loss (all)": float(np.mean(pd_l)),
                        "pdanon loss (near)": float(np.mean(near_l))})
    print(f"GroupJoin against cp2025 1.0.3, Adult sample of {rows} rows, mean of seeds "
          f"{list(seeds)} (pdanon: partners='all' is the rule with a full scan, 'near' the "
          "candidate restriction; t-closeness with distance='reference')")
    print_table(out)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        args = json.loads(sys.argv[2])
        if args[0] == "discharges":
            print(json.dumps(run_discharges(*args[1:])))
        else:
            print(json.dumps(run_one(*args)))
        return
    which = set(sys.argv[1:]) or {"--adult", "--discharges", "--reference"}
    if "--adult" in which:
        adult_table()
        print()
    if "--discharges" in which:
        discharge_table()
        print()
    if "--reference" in which:
        reference_table()
    from _util import max_rss_mb

    print(f"process max RSS: {max_rss_mb():,.0f} MB")


if __name__ == "__main__":
    main()
