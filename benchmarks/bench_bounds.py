"""What widening rare bounds costs (pdanon.recode.bounds, issue 47 point 4): Mondrian on UCI Adult,
with the default rule (no published bound held by fewer than k rows of its column) and with
``options={"exact_bounds": True}`` (the data's own bounds, as before).

    python benchmarks/bench_bounds.py [rows]

Per k and rule: seconds, classes, cells widened, the utility figures of
``out.anon.metrics(original=)`` that generalization moves (entropy information loss,
by-element distance, changed proportion), and the normalized certainty penalty of the one
real quasi-identifier, age (mean of (hi - lo) / (max - min) over its cells: 0 kept, 1 all).
One core, a few seconds per run.
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

FIGURES = ("entropy_information_loss", "by_element_distance", "changed_proportion")


def ncp(cells, original) -> float:
    """Mean relative width of a published range column (a missing cell counts 1)."""
    arr = cells.array
    lo, hi = np.asarray(arr.lo, dtype=float), np.asarray(arr.hi, dtype=float)
    width = np.where(np.isnan(lo), 1.0, (hi - lo) / float(original.max() - original.min()))
    return float(width.mean())


def main() -> None:
    adult = pdanon.datasets.load_adult()
    if len(sys.argv) > 1:
        adult = adult.iloc[:int(sys.argv[1])]
    roles = adult.anon.roles()
    with warnings.catch_warnings():  # warm-up: imports and caches are not the rule's cost
        warnings.simplefilter("ignore")
        adult.iloc[:500].anon.k_anonymize(5, algorithm="mondrian")
    rows = []
    for k in (5, 10):
        for exact in (False, True):
            options = {"exact_bounds": True} if exact else None
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                out = adult.anon.k_anonymize(k, algorithm="mondrian", options=options,
                                             seed=0)
                seconds = time.perf_counter() - start
                m = out.anon.metrics(adult, risk=False).set_index("metric")["value"]
            info = out.anon.info
            row = {"k": k, "bounds": "exact" if exact else "widened", "seconds": seconds,
                   "classes": info["groups"],
                   "cells widened": ", ".join(f"{c} {n:,}" for c, n in info["bounds"].get(
                       "widened_cells", {}).items()) or "-"}
            for name in FIGURES:
                row[name] = round(float(m[name]), 4)
            row["age NCP"] = round(ncp(out["age"], adult["age"]), 4)
            rows.append(row)
    print(f"Mondrian on UCI Adult ({len(adult):,} rows, quasi-identifiers "
          f"{list(roles.quasi_identifiers)})")
    print_table(rows)


if __name__ == "__main__":
    main()
