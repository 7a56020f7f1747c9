"""Anonymization engine: Mondrian, nearest, Datafly and equal_groups - seconds, memory, classes.

    python benchmarks/bench_engine.py                  # everything (about 2-4 minutes)
    python benchmarks/bench_engine.py --quick          # no 1,000,000-row run, no reference

Prints four tables (the reference comparison runs before the million-row table):

1. every algorithm, k=5, on UCI Adult (30,162 rows, its 8 quasi-identifiers), beside published
   figures for ARX 3.9.2 and anonypy measured on the same kind of machine;
2. Mondrian's split of unordered quasi-identifiers: the four ``unordered_split`` choices, with
   the classes they give and the normalized certainty penalty (NCP, the mean over QI cells of
   range width / column span, or (set size - 1) / (distinct values - 1); 0 = unchanged);
3. Mondrian k=5 on 1,000,000 rows (Adult resampled, ages jittered by up to half a year and
   rounded to two decimals: ~7,000 distinct ages instead of 74);
4. pdanon against the reference library cp2025 1.0.3 at 1,000 and 2,000 rows. The reference
   runs in its own virtualenv (``python3 -m venv /work/refvenv && /work/refvenv/bin/pip
   install cp2025==1.0.3``; or set ``PDANON_REFERENCE_PYTHON``), once per configuration, in a
   subprocess, with PYTHONHASHSEED=0; skipped with a message when it is missing.

Columns: seconds (wall clock of the whole ``df.anon`` call: partitioning, recoding and
verification; best of 5 runs up to 5,000 rows, the reference runs once), peak MB (tracemalloc,
in a separate run: what the call allocated), classes (equivalence classes of
published rows), avg class size (published rows / classes), discernibility (sum of squared
class sizes; suppressed rows are listed separately).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(__file__))

import pdanon  # noqa: E402
from _util import max_rss_mb, measure, print_table  # noqa: E402

K = 5
REFERENCE_PYTHON = os.environ.get("PDANON_REFERENCE_PYTHON", "/work/refvenv/bin/python")
REFERENCE_TIMEOUT = 1800  # seconds per reference run

#: Published figures (k=5, Adult, 8 QIs; the issue's measurements on the same kind of machine)
PUBLISHED = [
    ("ARX 3.9.2 optimal global recoding", 1.5, 399),
    ("ARX 3.9.2 local recoding", 8.2, 2148),
    ("anonypy Mondrian", 91.0, 3785),
]


def class_stats(out: pd.DataFrame) -> dict:
    info = out.anon.info
    qi = info["quasi_identifiers"]
    suppressed = info["suppressed_rows"]
    published = out
    if suppressed:
        published = out[~out[qi].isna().all(axis=1).to_numpy()]
    sizes = np.bincount(pdanon._groups.class_labels(published, qi)) if len(published) else \
        np.zeros(0, dtype=np.int64)
    return {"classes": len(sizes), "avg class size": len(published) / max(len(sizes), 1),
            "discernibility": int((sizes.astype(np.int64) ** 2).sum()),
            "suppressed": suppressed}


def ncp(original: pd.DataFrame, out: pd.DataFrame) -> float:
    """Normalized certainty penalty of the generalized quasi-identifiers (mean over cells)."""
    roles = original.anon.roles()
    losses = []
    for c, kind in roles.quasi_identifiers.items():
        arr = out[c].array
        if kind == "unordered":
            distinct = original[c].nunique()
            size = np.asarray(arr.membership).sum(axis=1)
            losses.append((size - 1) / max(distinct - 1, 1))
        elif kind == "real":
            span = float(original[c].max() - original[c].min()) or 1.0
            losses.append((np.asarray(arr.hi, float) - np.asarray(arr.lo, float)) / span)
        else:
            span = max(len(arr.categories) - 1, 1)
            losses.append((np.asarray(arr.hi, float) - np.asarray(arr.lo, float)) / span)
    return float(np.mean(np.concatenate(losses)))


def run(df: pd.DataFrame, algorithm: str, **kw) -> tuple[pd.DataFrame, dict]:
    """Time the call untraced (best of 5 for tables up to 5,000 rows, where timer noise is
    large against ~10 ms), then measure its peak memory in a separate traced call
    (tracemalloc slows allocation-heavy numpy code down by up to 4x)."""
    seconds = float("inf")
    for _ in range(5 if len(df) <= 5_000 else 1):
        started = time.perf_counter()
        out = df.anon.k_anonymize(K, algorithm=algorithm, **kw)
        seconds = min(seconds, time.perf_counter() - started)
        del out
    out, _, peak = measure(df.anon.k_anonymize, K, algorithm=algorithm, **kw)
    row = {"algorithm": algorithm, "rows": len(df), "seconds": seconds, "peak MB": peak}
    row.update(class_stats(out))
    return out, row


# ----------------------------------------------------------------------------- tables


def adult_table(adult: pd.DataFrame) -> None:
    rows = []
    for algorithm in ("mondrian", "nearest", "datafly", "equal_groups"):
        out, row = run(adult, algorithm)
        extra = out.anon.info.get("group_size")
        row["note"] = f"group_size={extra}" if extra else ""
        rows.append(row)
    for name, seconds, classes in PUBLISHED:
        rows.append({"algorithm": name, "rows": len(adult), "seconds": seconds, "peak MB": "",
                     "classes": classes, "avg class size": len(adult) / classes,
                     "discernibility": "", "suppressed": "", "note": "published figure"})
    print(f"\n1. k={K} on UCI Adult ({len(adult):,} rows, 8 quasi-identifiers)")
    print_table(rows)


def split_table(adult: pd.DataFrame) -> None:
    rows = []
    for how in ("balanced", "frequency", "appearance", "sensitive"):
        out, row = run(adult, "mondrian", options={"unordered_split": how})
        row["algorithm"] = f"mondrian {how}"
        row["NCP"] = f"{ncp(adult, out):.4f}"
        rows.append(row)
    print(f"\n2. Mondrian k={K} on Adult: how unordered quasi-identifiers are split")
    print_table(rows)


def million_rows(adult: pd.DataFrame, n: int = 1_000_000) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    big = adult.iloc[rng.integers(0, len(adult), n)].reset_index(drop=True)
    big["age"] = (big["age"] + rng.uniform(-0.5, 0.5, n)).round(2)
    big.attrs = adult.attrs  # same roles
    return big


def million_table(adult: pd.DataFrame) -> None:
    big = million_rows(adult)
    out, row = run(big, "mondrian")
    row["distinct ages"] = int(big["age"].nunique())
    print(f"\n3. Mondrian k={K} on {len(big):,} rows (target: < 20 s, < 4 GB)")
    print_table([row])
    print(f"process max RSS so far: {max_rss_mb():,.0f} MB")


_REFERENCE_SCRIPT = r"""
import json, sys, time
from collections import Counter
import pandas as pd
path, algorithm, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
types = json.loads(sys.argv[4])
df = pd.read_csv(path)
if algorithm == "nearest":
    from cp2025.algorithms.GeneralizationKAnonymityTimeOptimal import \
        GeneralizationKAnonymityTimeOptimal as A
    algo = A(k, types)
elif algorithm == "datafly":
    from cp2025.algorithms.Datafly import Datafly
    algo = Datafly(k, types)
else:
    from cp2025.algorithms.GeneralizationGreedyByOneEqualSizedGroups import \
        GeneralizationGreedyByOneEqualSizedGroups as G
    algo = G(k, types)
started = time.perf_counter()
out, extra = algo.depersonalize(df)
seconds = time.perf_counter() - started
rows = [tuple(str(v) for v in r) for r in out.itertuples(index=False)]
published = [r for r in rows if not all(v == "nan" for v in r)]
print(json.dumps({"seconds": seconds, "classes": len(Counter(published)),
                  "extra": None if extra is None else int(extra)}))
"""


def reference_table(adult: pd.DataFrame) -> None:
    print(f"\n4. pdanon vs the reference cp2025 1.0.3 (k={K}, Adult prefix, 8 QIs)")
    if not os.path.exists(REFERENCE_PYTHON):
        print(f"   skipped: no reference interpreter at {REFERENCE_PYTHON} (python3 -m venv "
              "/work/refvenv && /work/refvenv/bin/pip install cp2025==1.0.3)")
        return
    qi = list(pdanon.datasets.ADULT_QUASI_IDENTIFIERS)
    kinds = adult.anon.roles().quasi_identifiers
    rows = []
    for n in (1_000, 2_000):
        df = adult.iloc[:n][qi].copy()
        # the reference sorts ordered strings alphabetically: give both the level numbers
        df["education"] = df["education"].cat.codes.astype(int)
        df = df.anon.with_schema(pdanon.schema(quasi_identifiers=kinds))
        types = [kinds[c] for c in qi]
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as fh:
            df.to_csv(fh, index=False)
            path = fh.name
        try:
            for algorithm in ("nearest", "datafly", "equal_groups"):
                out, mine = run(df, algorithm)
                env = dict(os.environ, PYTHONHASHSEED="0")
                try:
                    done = subprocess.run(
                        [REFERENCE_PYTHON, "-c", _REFERENCE_SCRIPT, path, algorithm, str(K),
                         json.dumps(types)], capture_output=True, text=True, env=env,
                        timeout=REFERENCE_TIMEOUT, check=True)
                    ref = json.loads(done.stdout.strip().splitlines()[-1])
                except subprocess.TimeoutExpired:
                    ref = {"seconds": float("inf"), "classes": "", "extra": None}
                except subprocess.CalledProcessError as exc:
                    print(f"   reference {algorithm} at {n} rows failed: "
                          f"{exc.stderr.strip().splitlines()[-1:]}")
                    continue
                extra = out.anon.info.get("group_size", out.anon.info["changed_cells"])
                rows.append({"algorithm": algorithm, "rows": n, "pdanon s": mine["seconds"],
                             "reference s": ref["seconds"],
                             "speed-up": ref["seconds"] / mine["seconds"],
                             "pdanon classes": mine["classes"],
                             "reference classes": ref["classes"],
                             "pdanon count": extra, "reference count": ref["extra"]})
                print(f"   {algorithm} {n}: reference {ref['seconds']:.1f} s", flush=True)
        finally:
            os.unlink(path)
    print("   (count: changed cells, or group_size for equal_groups)")
    print_table(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="skip the 1,000,000-row run and the reference comparison")
    args = parser.parse_args()
    adult = pdanon.datasets.load_adult()
    adult.iloc[:200].anon.k_anonymize(K, algorithm="mondrian")  # warm-up: imports, caches
    adult_table(adult)
    split_table(adult)
    if not args.quick:
        reference_table(adult)  # before the big run, whose freed heap slows small calls
        million_table(adult)


if __name__ == "__main__":
    main()
