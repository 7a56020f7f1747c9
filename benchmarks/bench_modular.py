"""The modular (HiTaS-like) method of secondary suppression against the fast and the optimal
methods, on seeded synthetic hierarchical count tables.

Tables (3-D, all margins, frequency rule ``min_frequency``, ``cost="value"``):

* ``medium``: region (24 leaves in 6 districts in 2 macro-regions) × industry (15 leaves in 5
  sections) × size (4 classes, flat), 20,000 rows: 3,465 cells;
* ``large``: region (48 leaves in 12 districts in 3 macro-regions) × industry (30 leaves in 6
  sections) × size (7 classes, flat), 200,000 rows: 18,944 cells.

The rows fall unevenly on the leaves (Zipf-like weights), so small cells are many. For every
method the script prints cells, primary and secondary cells, the withheld total value, wall
seconds, CPU seconds (this process) and the machine's load average; the modular method also
its sub-tables (solved / proven optimal) and the cells its whole-table repair added. Every
pattern is audited (``pdanon.tables.audit``).

Run: ``python benchmarks/bench_modular.py [--tables medium large] [--time-limit 120]
[--min-frequency 3] [--methods modular fast optimal]``; ``--random 60`` instead protects 60
seeded random small hierarchical tables with the modular and the optimal methods and prints how
often the repair was needed and how far the modular pattern is from the optimum.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd

import pdanon
from pdanon.hierarchy import tree

try:
    from _util import print_table
except ImportError:  # run from the repository root as a module
    from benchmarks._util import print_table

SHAPES = {"medium": {"macro": 2, "districts": 3, "regions": 4, "sections": 5, "per_section": 3,
                     "sizes": 4, "rows": 20_000},
          "large": {"macro": 3, "districts": 4, "regions": 4, "sections": 6, "per_section": 5,
                    "sizes": 7, "rows": 200_000}}


def synthetic(name: str, seed: int = 0):
    """(microdata, hierarchies) of a seeded synthetic table ``name`` (see SHAPES)."""
    s = SHAPES[name]
    rng = np.random.default_rng(seed)
    region_tree, regions = {}, []
    for m in range(s["macro"]):
        region_tree[f"M{m}"] = {}
        for d in range(s["districts"]):
            leaves = [f"R{m}{d}{r}" for r in range(s["regions"])]
            region_tree[f"M{m}"][f"D{m}{d}"] = leaves
            regions += leaves
    industry_tree, industries = {}, []
    for k in range(s["sections"]):
        leaves = [f"I{k}{j}" for j in range(s["per_section"])]
        industry_tree[f"S{k}"] = leaves
        industries += leaves
    sizes = [f"size{j}" for j in range(s["sizes"])]

    def zipf(n):
        w = 1.0 / np.arange(1, n + 1) ** 0.9
        return rng.permutation(w / w.sum())

    n = s["rows"]
    df = pd.DataFrame({"region": rng.choice(regions, n, p=zipf(len(regions))),
                       "industry": rng.choice(industries, n, p=zipf(len(industries))),
                       "size": rng.choice(sizes, n, p=zipf(len(sizes)))})
    return df, {"region": tree(region_tree), "industry": tree(industry_tree)}


def run(table, method: str, min_frequency: int, time_limit: float) -> dict:
    cpu, wall = time.process_time(), time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = table.protect({"min_frequency": min_frequency}, method=method,
                          time_limit=time_limit)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    ok = pdanon.tables.audit(p).ok
    info = p.info
    row = {"method": method, "cells": len(p.cells), "primary": info["primary"],
           "secondary": info["secondary"], "withheld value": round(info["withheld_value"]),
           "seconds": round(wall, 2), "CPU s": round(cpu, 2), "audit ok": "yes" if ok else "NO",
           "load": round(os.getloadavg()[0], 1)}
    if method == "modular" and "subtables" in info:
        row["sub-tables solved/proven"] = (f"{info['subtables_solved']}/"
                                           f"{info['subtables_proven']}")
        row["repair cells"] = info["repair_cells"]
    if method == "modular" and caught:
        row["note"] = "time limit: later sub-tables by the fast method"
    if method == "optimal":
        row["note"] = ("proven optimal" if info["optimal"] else
                       "time limit: " + ("fast pattern" if caught else "best found"))
    return row


def random_tables(count: int) -> None:
    """How often HiTaS needs the repair, and how far from the optimum it lands: ``count``
    seeded random 2-D and 3-D tables with one or two small hierarchies."""
    h_a = tree({"A1": {"A11": ["p", "q"], "A12": ["r"]}, "A2": ["s", "t", "u"]})
    h_b = tree({"B1": ["x", "y"], "B2": ["z"]})
    rows = []
    for seed in range(count):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(20, 120))
        df = pd.DataFrame({"a": rng.choice(list("pqrstu"), n), "b": rng.choice(list("xyz"), n),
                           "c": rng.choice(list("kl"), n)})
        cols = ["b", "c"] if seed % 3 == 0 else ["b"]
        h = {"a": h_a, "b": h_b} if seed % 2 else {"a": h_a}
        t = df.anon.table(index="a", columns=cols, hierarchies=h)
        rules = {"min_frequency": int(rng.integers(2, 5))}
        mod, opt = t.protect(rules, method="modular"), t.protect(rules, method="optimal")
        assert pdanon.tables.audit(mod).ok and pdanon.tables.audit(opt).ok
        rows.append({"primary": mod.info["primary"], "modular": mod.info["withheld_value"],
                     "optimum": opt.info["withheld_value"], "proven": bool(opt.info["optimal"]),
                     "repair": mod.info.get("repair_blocks", 0),
                     "added": mod.info.get("repair_cells", 0),
                     "reopened": mod.info.get("reopened", 0)})
    r = pd.DataFrame(rows)
    r = r[r.primary > 0]
    more = r[r.modular > r.optimum + 1e-9]
    print(f"{count} tables, {len(r)} with primary cells ({int(r.proven.sum())} proven optima): "
          f"modular = optimum on {int((r.modular <= r.optimum + 1e-9).sum())}, more on {len(more)} "
          f"(median {((more.modular / more.optimum - 1).median() * 100 if len(more) else 0):.1f} %, "
          f"at most {((more.modular / more.optimum - 1).max() * 100 if len(more) else 0):.1f} % more "
          f"value); repaired {int((r.repair > 0).sum())} (cells added: "
          f"{sorted(r.added[r.repair > 0].tolist())}); published cells reopened in "
          f"{int((r.reopened > 0).sum())}; every pattern passed the audit")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", nargs="+", default=["medium", "large"], choices=list(SHAPES))
    ap.add_argument("--methods", nargs="+", default=["modular", "fast", "optimal"])
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--min-frequency", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--random", type=int, default=0, metavar="N",
                    help="instead: N seeded random small hierarchical tables, modular vs "
                         "optimal (repairs, distance from the optimum)")
    args = ap.parse_args(argv)
    if args.random:
        random_tables(args.random)
        return
    rows = []
    for name in args.tables:
        df, h = synthetic(name, args.seed)
        t = df.anon.table(index=["region", "industry"], columns="size", hierarchies=h)
        for method in args.methods:
            r = {"table": name, **run(t, method, args.min_frequency, args.time_limit)}
            rows.append(r)
            print(r, flush=True)
    print()
    cols = ["table", "method", "cells", "primary", "secondary", "withheld value", "seconds",
            "CPU s", "load", "audit ok", "sub-tables solved/proven", "repair cells", "note"]
    print_table([{c: r.get(c, "") for c in cols} for r in rows])


if __name__ == "__main__":
    main()
