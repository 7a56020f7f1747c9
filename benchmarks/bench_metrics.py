"""Benchmark: privacy levels (k, l, t) on a 1,000,000-row table with 8 quasi-identifiers, and
``df.anon.metrics()`` (no ML) on Adult.

Targets (issue 3): k, l and t each under 1 s on one core, reported as a ratio to a plain pandas
``groupby(quasi_identifiers).size()`` over the same columns; ``metrics()`` on Adult under 2 s
(the reference library takes 168 s for t on Adult alone).

Seconds are the best of ``--repeat`` runs; peak MB is what the call allocated on top of its
input (tracemalloc, measured in a separate run so it does not slow the timed ones).

Run: ``python benchmarks/bench_metrics.py [--rows 1000000] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(__file__))
from _util import measure, print_table  # noqa: E402

import pdanon  # noqa: E402
from pdanon import models  # noqa: E402

QIS = ["age", "zip", "sex", "race", "education", "hours", "state", "children"]


def make_table(n: int, *, coarse: bool = False, seed: int = 0) -> pd.DataFrame:
    """Census-like columns: integers, strings, an ordered Categorical; two sensitive columns.

    ``coarse=False``: fine values, nearly every row its own class (the worst case: one
    (class, value) pair per row). ``coarse=True``: already generalized-looking values, 5,760
    possible combinations, classes of ~170 rows.
    """
    rng = np.random.default_rng(seed)
    levels = pdanon.datasets.EDUCATION_ORDER[::4] if coarse else pdanon.datasets.EDUCATION_ORDER
    edu = pd.Categorical(rng.choice(levels, n), categories=levels, ordered=True)
    if coarse:
        return pd.DataFrame({
            "age": rng.integers(2, 6, n) * 10,
            "zip": rng.choice(["100**", "101**", "102**", "103**", "104**"], n),
            "sex": rng.choice(["F", "M"], n),
            "race": rng.choice(["Black", "Other", "White"], n),
            "education": edu,
            "hours": rng.integers(0, 2, n) * 40,
            "state": rng.choice(["North", "South", "West"], n),
            "children": rng.integers(0, 2, n),
            "disease": rng.choice([f"D{i}" for i in range(12)], n),
            "income": rng.normal(50_000, 12_000, n).round(),
        })
    return pd.DataFrame({
        "age": rng.integers(17, 91, n),
        "zip": rng.integers(10000, 10100, n).astype(str),
        "sex": rng.choice(["F", "M"], n),
        "race": rng.choice(["Asian", "Black", "Other", "White", "Native"], n),
        "education": edu,
        "hours": rng.integers(1, 100, n) // 10 * 10,
        "state": rng.choice([f"S{i:02d}" for i in range(20)], n),
        "children": rng.integers(0, 6, n),
        "disease": rng.choice([f"D{i}" for i in range(12)], n),
        "income": rng.normal(50_000, 12_000, n).round(),
    })


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    for coarse in (False, True):
        bench_levels(make_table(args.rows, coarse=coarse), args.repeat,
                     "coarse values" if coarse else "fine values")
    bench_adult(args.repeat)


def bench_levels(df: pd.DataFrame, repeat: int, label: str) -> None:
    n = len(df)
    base = best_of(lambda: df.groupby(QIS, dropna=False, observed=True).size(), repeat)
    classes = len(df.groupby(QIS, dropna=False, observed=True).size())
    print(f"{label}: {n:,} rows x {len(QIS)} quasi-identifiers, {classes:,} equivalence "
          f"classes; pandas groupby(...).size(): {base:.3f} s\n")

    cases = [
        ("k-anonymity", lambda: models.k_anonymity(df, QIS)),
        ("l-diversity distinct", lambda: models.l_diversity(df, QIS, ["disease"])),
        ("l-diversity entropy", lambda: models.l_diversity(df, QIS, ["disease"],
                                                           variant="entropy")),
        ("l-diversity recursive c=3", lambda: models.l_diversity(df, QIS, ["disease"],
                                                                 variant="recursive", c=3)),
        ("t EMD (unordered)", lambda: models.t_closeness(df, QIS, ["disease"])),
        ("t EMD (real, ordered dist.)", lambda: models.t_closeness(df, QIS, {"income": "real"})),
        ("t Jensen-Shannon", lambda: models.t_closeness(df, QIS, ["disease"],
                                                        distance="jensen_shannon")),
        ("t Wasserstein (real)", lambda: models.t_closeness(df, QIS, {"income": "real"},
                                                            distance="wasserstein")),
    ]
    rows = []
    for name, fn in cases:
        seconds = best_of(fn, repeat)
        value, _, peak = measure(fn)
        rows.append({"measure": name, "rows": n, "seconds": seconds, "rows/s": n / seconds,
                     "x groupby": seconds / base, "peak MB": peak,
                     "value": f"{value:.4g}", "< 1 s": "yes" if seconds < 1 else "NO"})
    print_table(rows)
    print()


def bench_adult(repeat: int) -> None:
    adult = pdanon.datasets.load_adult()
    out = adult.anon.k_anonymize(5)
    print("\nAdult (30,162 rows, 8 quasi-identifiers, salary-class sensitive), k=5 release:\n")
    rows = []
    for name, fn in [
        ("metrics() no original", lambda: out.anon.metrics()),
        ("metrics(original)", lambda: out.anon.metrics(adult)),
        ("t (reference distance)", lambda: out.anon.t_closeness(distance="reference")),
    ]:
        seconds = best_of(fn, repeat)
        _, _, peak = measure(fn)
        rows.append({"measure": name, "rows": len(out), "seconds": seconds,
                     "rows/s": len(out) / seconds, "peak MB": peak,
                     "< 2 s": "yes" if seconds < 2 else "NO"})
    print_table(rows)
    print()
    print(out.anon.metrics(adult))


if __name__ == "__main__":
    main()
