"""Secondary suppression on synthetic tables: Gaussian elimination against the fast and the
optimal methods, and the time to build a 3-D table with margins from 1,000,000 rows.

Tables (synthetic microdata, skewed categories, seeded; frequency rule n = 3, zeros safe):

* 2-D, one hierarchy: region (12 leaves in 3 groups) × industry (8 leaves);
* 3-D, two hierarchies: region (12 in 3) × industry (10 in 2) × size (4);
* ~20,000 cells: region (25 leaves in 5 groups) × industry (20 in 5) × age (25): 31 × 26 × 26
  nodes = 20,956 cells, 100,000 rows.

For each table and method the script prints the cells, primary and secondary cells, the value
withheld, wall seconds, CPU seconds (the machine may be shared: CPU time is the fairer figure)
and the peak memory Python allocated (tracemalloc). Every pattern is checked by the
deviations' check inside ``protect`` before it is returned. The optimal method gets
``--time-limit`` seconds on the big table (past it, protect returns the fast pattern with a
warning, and the row says so).

Run: ``python benchmarks/bench_tables.py [--cost count] [--time-limit 60] [--skip-optimal]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(__file__))
from _util import measure, print_table  # noqa: E402

import pdanon  # noqa: E402,F401  (registers df.anon)
from pdanon.hierarchy import tree  # noqa: E402
from pdanon.tables import build  # noqa: E402


def skewed(rng, n_rows: int, labels: list, a: float = 1.0) -> pd.Categorical:
    """``n_rows`` draws of ``labels`` with Zipf-like probabilities (a few large categories,
    a long tail of small ones, as real classifications have)."""
    p = 1.0 / np.arange(1, len(labels) + 1) ** a
    rng.shuffle(p)
    codes = rng.choice(len(labels), size=n_rows, p=p / p.sum())
    return pd.Categorical.from_codes(codes, categories=labels)


def grouped(prefix: str, groups: int, per: int):
    """Leaf labels and a two-level tree: ``groups`` groups of ``per`` leaves each."""
    leaves = [f"{prefix}{g}{i}" for g in range(groups) for i in range(per)]
    spec = {f"{prefix.upper()}{g}": leaves[g * per:(g + 1) * per] for g in range(groups)}
    return leaves, tree(spec)


def microdata(seed: int, n_rows: int, spec: dict) -> tuple[pd.DataFrame, dict]:
    """A frame with one column per dimension of ``spec`` ({name: (groups, per)}; groups 0 =
    flat) and the hierarchies of the grouped ones."""
    rng = np.random.default_rng(seed)
    cols, hier = {}, {}
    for name, (groups, per) in spec.items():
        if groups:
            leaves, h = grouped(name[0], groups, per)
            hier[name] = h
        else:
            leaves = [f"{name[0]}{i}" for i in range(per)]
        cols[name] = skewed(rng, n_rows, leaves)
    return pd.DataFrame(cols), hier


TABLES = {
    "2-D, 1 hierarchy": (1, 2_000, {"region": (3, 4), "industry": (0, 8)}),
    "3-D, 2 hierarchies": (2, 6_000, {"region": (3, 4), "industry": (2, 5), "size": (0, 4)}),
    "~20k cells, 3-D": (3, 100_000, {"region": (5, 5), "industry": (5, 4), "age": (0, 25)}),
}


def run(table, method: str, cost: str, time_limit: float) -> dict:
    cpu0 = time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p, seconds, peak = measure(table.protect, {"min_frequency": 3}, method=method,
                                   cost=cost, time_limit=time_limit)
    cpu = time.process_time() - cpu0
    info = p.info
    note = ""
    if method == "optimal":
        said = " ".join(str(c.message) for c in caught)
        note = ("proven" if info["optimal"] else
                "time limit: fast pattern" if "fast method's pattern" in said else
                "time limit: best found" if said else "")
    if method == "gauss":
        note = f"repair +{info['repair_added']}"
    return {"method": method, "cells": len(p.cells), "primary": info["primary"],
            "secondary": info["secondary"], "withheld value": info["withheld_value"],
            "seconds": seconds, "CPU s": cpu, "peak MB": peak, "note": note}


def build_time(n_rows: int = 1_000_000, seed: int = 4) -> list[dict]:
    """1,000,000 rows to a 3-D table with margins (and a hierarchy), as a count and as a sum."""
    df, hier = microdata(seed, n_rows, {"region": (5, 5), "industry": (5, 4), "age": (0, 25)})
    df["turnover"] = np.random.default_rng(seed).gamma(2.0, 50.0, n_rows)
    out = []
    for aggfunc, values in (("count", None), ("sum", "turnover")):
        cpu0 = time.process_time()
        t, seconds, peak = measure(build, df, index=["region", "industry"], columns="age",
                                   values=values, aggfunc=aggfunc, hierarchies=hier)
        out.append({"build": f"{n_rows:,} rows, {aggfunc}", "cells": len(t.cells),
                    "seconds": seconds, "CPU s": time.process_time() - cpu0, "peak MB": peak})
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cost", default="value", choices=["value", "count"])
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="the optimal method's limit on each table (s)")
    ap.add_argument("--skip-optimal", action="store_true")
    ap.add_argument("--only", default=None, help="run only the tables whose name holds this")
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; cost={args.cost}")
    for name, (seed, n_rows, spec) in TABLES.items():
        if args.only and args.only not in name:
            continue
        df, hier = microdata(seed, n_rows, spec)
        dims = list(spec)
        t = build(df, index=dims[:-1], columns=dims[-1], hierarchies=hier)
        methods = ["gauss", "fast"] + ([] if args.skip_optimal else ["optimal"])
        rows = []
        for m in methods:  # each as it finishes (the big table's fast and optimal take long)
            rows.append(run(t, m, args.cost, args.time_limit))
            print("  done:", {k: v for k, v in rows[-1].items()}, flush=True)
        print(f"\n{name}: {n_rows:,} rows")
        print_table(rows)
    print()
    print_table(build_time())


if __name__ == "__main__":
    main()
