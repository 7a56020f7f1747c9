"""Microaggregation (MDAV) speed, memory and information loss; a small-table call beside
sdcMicro's.

    python benchmarks/bench_microaggregation.py                  # the table below
    python benchmarks/bench_microaggregation.py --sdcmicro LIB   # ... and sdcMicro's CPU time
    python benchmarks/bench_microaggregation.py --sdcmicro LIB --small   # small tables only
    python benchmarks/bench_microaggregation.py 100000 exact     # one run (JSON line)
    python benchmarks/bench_microaggregation.py 100000 vmdav     # exact V-MDAV (gamma 0.2)

Targets (issue 30.4): exact MDAV, k=5, below 100,000 rows, blocks (median cuts, exact MDAV in
blocks of at most 12,500 rows) above; 1,000,000 rows x 5 real columns in under 30 s, the
information loss of blocks stated beside exact MDAV's on 100,000 rows; one call on a 1,000-row
table within 1.5x the CPU time of sdcMicro's ``microaggregation(method="mdav")``.

Every large run is its own process, so "peak RSS" is that run's maximum resident memory (the
table, pandas and numpy included). "cpu s" is the process's CPU time, which another process
sharing the machine does not inflate as it does wall-clock seconds. Small tables are timed as
sdcMicro's side is: 3 calls to warm up, then batches of 20 calls, the median batch's CPU time
per call; with ``--sdcmicro`` in 5 alternating rounds (pdanon, then sdcMicro), the ratio taken
within each round and its median and range printed.

``--sdcmicro LIB``: the R library directory where sdcMicro is installed (built from source;
``Rscript`` must be on the PATH). The same tables are written to a temporary CSV and timed by
an R loop of the same shape; pdanon ships no sdcMicro code or data.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from _util import max_rss_mb, print_table  # noqa: E402

SMALL = (834, 1000, 4092)  # the sizes sdcMicro's comparison was first measured at
CALLS, BATCHES, WARM = 20, 25, 3
ROUNDS = 5  # alternating pdanon / sdcMicro rounds with --sdcmicro


def table(n: int) -> pd.DataFrame:
    """5 real columns: age, log-normal income, hours correlated with age, a uniform score and
    job tenure (at most age - 16 years)."""
    rng = np.random.default_rng(2026)
    age = rng.integers(18, 90, n).astype(float)
    return pd.DataFrame({
        "age": age,
        "income": np.round(rng.lognormal(10, 0.8, n), 2),
        "hours": np.round(20 + 0.3 * age + rng.normal(0, 8, n), 1),
        "score": rng.uniform(0, 100, n),
        "tenure": np.round(rng.uniform(0, 1, n) * (age - 16), 1),
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


def small_calls() -> dict:
    """CPU ms per ``df.anon.microaggregate(5)`` call on the small tables (median batch)."""
    import pdanon  # noqa: F401

    out = {}
    for n in SMALL:
        df = table(n)
        cols = list(df.columns)
        for _ in range(WARM):
            df.anon.microaggregate(5, quasi_identifiers=cols)
        per = []
        for _ in range(BATCHES):
            started = time.process_time()
            for _ in range(CALLS):
                df.anon.microaggregate(5, quasi_identifiers=cols)
            per.append((time.process_time() - started) / CALLS * 1e3)
        out[n] = float(np.median(per))
    return out


R_LOOP = """
.libPaths(c("{lib}", .libPaths()))
suppressPackageStartupMessages(library(sdcMicro))
for (f in commandArgs(trailingOnly = TRUE)) {{
  x <- read.csv(f); v <- colnames(x)
  run <- function() microaggregation(obj = x, variables = v, aggr = 5, method = "mdav",
                                     measure = "mean")
  for (i in seq_len({warm})) run()
  per <- numeric({batches})
  for (b in seq_len({batches})) {{
    t0 <- proc.time(); for (i in seq_len({calls})) run(); d <- proc.time() - t0
    per[b] <- (d[["user.self"]] + d[["sys.self"]]) * 1000 / {calls}
  }}
  cat(nrow(x), median(per), "\\n")
}}
"""


def sdcmicro_calls(lib: str) -> dict:
    """CPU ms per sdcMicro ``microaggregation`` call on the same tables (median batch)."""
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for n in SMALL:
            path = os.path.join(tmp, f"t{n}.csv")
            table(n).to_csv(path, index=False, float_format="%.17g")
            files.append(path)
        script = os.path.join(tmp, "loop.R")
        with open(script, "w") as fh:
            fh.write(R_LOOP.format(lib=lib, warm=WARM, batches=BATCHES, calls=CALLS))
        done = subprocess.run(["Rscript", script, *files], capture_output=True, text=True,
                              check=True)
    return {int(a): float(b) for a, b in (line.split() for line in done.stdout.splitlines())}


def main() -> None:
    args = sys.argv[1:]
    small_only = "--small" in args
    args = [a for a in args if a != "--small"]
    if len(args) == 2 and args[0] != "--sdcmicro":
        print(json.dumps(one_run(int(args[0]), args[1])))
        return
    lib = args[1] if args[:1] == ["--sdcmicro"] else None
    # a shared machine's speed drifts by tens of percent over minutes: with sdcMicro the two
    # are timed in alternating rounds, and each ratio is taken within one round
    rounds = [(small_calls(), sdcmicro_calls(lib) if lib else None)
              for _ in range(ROUNDS if lib else 1)]
    rows = []
    for n in SMALL:
        row = {"rows": n, "pdanon cpu ms/call": float(np.median([p[n] for p, _ in rounds]))}
        if lib:
            row["sdcMicro cpu ms/call"] = float(np.median([t[n] for _, t in rounds]))
            ratios = sorted(p[n] / t[n] for p, t in rounds)
            row["ratio (median)"] = float(np.median(ratios))
            row["ratio range"] = f"{ratios[0]:.2f}-{ratios[-1]:.2f}"
        rows.append(row)
    print(f"One call on a small table, k=5, 5 real columns (median of {BATCHES} batches of "
          f"{CALLS} calls" + (f"; {ROUNDS} alternating rounds, medians)" if lib else ")"))
    print_table(rows)
    if small_only:
        return
    print()
    runs = [(10_000, "exact"), (100_000, "exact"), (100_000, "12500"), (100_000, "vmdav"),
            (1_000_000, "blocks")]
    rows = []
    for n, mode in runs:
        done = subprocess.run([sys.executable, __file__, str(n), mode], capture_output=True,
                              text=True, check=True)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print("MDAV (and V-MDAV) microaggregation, k=5, 5 real columns")
    print_table(rows)
    exact = next(r for r in rows if r["rows"] == 100_000 and r["mode"] == "exact")
    blocked = next(r for r in rows if r["rows"] == 100_000 and r["mode"] == "12500")
    print(f"SSE of blocks / SSE of exact MDAV on 100,000 rows: "
          f"{blocked['SSE/SST'] / exact['SSE/SST']:.4f}")


if __name__ == "__main__":
    main()
