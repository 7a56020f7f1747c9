"""Microaggregation (MDAV) speed, memory and information loss.

    python benchmarks/bench_microaggregation.py            # the table below
    python benchmarks/bench_microaggregation.py 100000 exact   # one run (JSON line)
    python benchmarks/bench_microaggregation.py 100000 vmdav   # exact V-MDAV (gamma 0.2)

Targets (issue 17): exact MDAV, k=5, 100,000 rows x 4 real columns in under 30 s; blocks
(median cuts, exact MDAV in blocks of at most 12,500 rows) on 1,000,000 rows in under 60 s,
with SSE within 5% of exact MDAV on the same 100,000-row table.

Every run is its own process, so "peak RSS" is that run's maximum resident memory (the table,
pandas and numpy included). "cpu s" is the process's CPU time, which another process sharing
the machine does not inflate as it does wall-clock seconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from _util import max_rss_mb, print_table  # noqa: E402


def table(n: int) -> pd.DataFrame:
    """4 real columns: age, log-normal income, hours correlated with age, a uniform score."""
    rng = np.random.default_rng(2026)
    age = rng.integers(18, 90, n).astype(float)
    return pd.DataFrame({
        "age": age,
        "income": np.round(rng.lognormal(10, 0.8, n), 2),
        "hours": np.round(20 + 0.3 * age + rng.normal(0, 8, n), 1),
        "score": rng.uniform(0, 100, n),
    })


def one_run(n: int, mode: str) -> dict:
    import pdanon  # noqa: F401

    df = table(n)
    block = {"exact": None, "blocks": "auto", "vmdav": None}.get(mode, None)
    if mode.isdigit():
        block = int(mode)
    method = "vmdav" if mode == "vmdav" else "mdav"    # V-MDAV: the default gamma 0.2
    wall, cpu = time.perf_counter(), time.process_time()
    out = df.anon.microaggregate(5, quasi_identifiers=list(df.columns), block_size=block,
                                 method=method)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    info = out.anon.info
    return {"rows": n, "mode": mode, "blocks": info["blocks"], "seconds": wall, "cpu s": cpu,
            "rows/s": n / wall, "peak RSS MB": max_rss_mb(), "SSE/SST": info["sse_sst"],
            "IL1s": info["il1s"], "k": info["k_anonymity"], "groups": info["groups"]}


def main() -> None:
    if len(sys.argv) == 3:
        print(json.dumps(one_run(int(sys.argv[1]), sys.argv[2])))
        return
    runs = [(10_000, "exact"), (100_000, "exact"), (100_000, "12500"), (100_000, "vmdav"),
            (1_000_000, "blocks")]
    rows = []
    for n, mode in runs:
        done = subprocess.run([sys.executable, __file__, str(n), mode], capture_output=True,
                              text=True, check=True)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print("MDAV (and V-MDAV) microaggregation, k=5, 4 real columns")
    print_table(rows)
    exact = next(r for r in rows if r["rows"] == 100_000 and r["mode"] == "exact")
    blocked = next(r for r in rows if r["rows"] == 100_000 and r["mode"] == "12500")
    print(f"SSE of blocks / SSE of exact MDAV on 100,000 rows: "
          f"{blocked['SSE/SST'] / exact['SSE/SST']:.4f}")


if __name__ == "__main__":
    main()
