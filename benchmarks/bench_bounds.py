"""What widening rare bounds costs (pdanon.recode.bounds, issue 47 point 4): each k-anonymity
algorithm that publishes ranges read off the data, on UCI Adult, with the default rule (no
published bound held by fewer than k rows of its column) and with
``options={"exact_bounds": True}`` (the data's own bounds, as before).

    python benchmarks/bench_bounds.py [rows] [algorithm ...]

Algorithms: Mondrian (local recoding), Datafly and equal groups (global value groups), and
optimal without hierarchies (every column's level fixed to 0..1: a value or its ``*``, which
is read off the data). Per algorithm, k and rule: seconds, classes, cells widened, the utility
figures of ``out.anon.metrics(original=)`` that generalization moves (entropy information
loss, by-element distance), and the normalized certainty penalty of the one real
quasi-identifier, age (mean of (hi - lo) / (max - min) over its cells: 0 kept, 1 all; a
missing cell counts 1). One core, seconds per run.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(__file__))

import pdanon  # noqa: E402
from _util import print_table  # noqa: E402

import numpy as np  # noqa: E402

FIGURES = ("entropy_information_loss", "by_element_distance")
ALGORITHMS = ("mondrian", "datafly", "equal_groups", "optimal")


def ncp(cells, original) -> float:
    """Mean relative width of a published range column (a missing cell counts 1, a plain
    value 0)."""
    from pdanon.dtype import GeneralizationDtype

    if not isinstance(cells.dtype, GeneralizationDtype):
        return float(cells.isna().mean())
    arr = cells.array
    lo, hi = np.asarray(arr.lo, dtype=float), np.asarray(arr.hi, dtype=float)
    width = np.where(np.isnan(lo), 1.0, (hi - lo) / float(original.max() - original.min()))
    return float(width.mean())


def run(adult, algorithm: str, k: int, exact: bool) -> dict:
    options = {"exact_bounds": True} if exact else None
    extra = {}
    if algorithm == "optimal":  # no hierarchy: each column its value or its '*'
        extra = {"levels": {c: (0, 1) for c in adult.anon.roles().quasi_identifiers},
                 "max_suppressed_rows": 0.02}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        out = adult.anon.k_anonymize(k, algorithm=algorithm, options=options, seed=0, **extra) \
            if algorithm == "mondrian" else adult.anon.k_anonymize(
                k, algorithm=algorithm, options=options, **extra)
        seconds = time.perf_counter() - start
        m = out.anon.metrics(adult, risk=False).set_index("metric")["value"]
    info = out.anon.info
    widened = info.get("bounds", {}).get("widened_cells", {})
    row = {"algorithm": algorithm, "k": k, "bounds": "exact" if exact else "widened",
           "seconds": round(seconds, 2), "classes": info["groups"],
           "cells widened": ", ".join(f"{c} {n:,}" for c, n in widened.items()) or "-"}
    for name in FIGURES:
        row[name] = round(float(m[name]), 4)
    row["age NCP"] = round(ncp(out["age"], adult["age"]), 4)
    return row


def main() -> None:
    adult = pdanon.datasets.load_adult()
    args = sys.argv[1:]
    if args and args[0].isdigit():
        adult = adult.iloc[:int(args.pop(0))]
    algorithms = args or ALGORITHMS
    roles = adult.anon.roles()
    with warnings.catch_warnings():  # warm-up: imports and caches are not the rule's cost
        warnings.simplefilter("ignore")
        adult.iloc[:500].anon.k_anonymize(5, algorithm="mondrian")
    rows = [run(adult, algorithm, k, exact) for algorithm in algorithms for k in (5, 10)
            for exact in (False, True)]
    print(f"UCI Adult ({len(adult):,} rows, quasi-identifiers {list(roles.quasi_identifiers)}); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print_table(rows)


if __name__ == "__main__":
    main()
