"""The release report against ``metrics(original)`` on the same frames (issue 29.4).

Run: ``python benchmarks/bench_report.py [--rows 50000]``. A discharge table
(``pdanon.datasets.make_discharges``) with ZIP codes drawn from 1,600 values in four regions is made
k-anonymous (k=5, l=2 on the diagnosis, optimal on hierarchies: ZIP codes masked, dates to
years and months), so that ZIP cells are sets of several hundred codes; then ``metrics(original)``, the report and the
internal report are timed (wall and CPU seconds, peak memory of the step). The report must
stay under 3x ``metrics(original)``. Prints one table.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
import warnings

import numpy as np

import pdanon
from pdanon.report import build_report


def timed(fn):
    tracemalloc.start()
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, wall, cpu, peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=50_000)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    df = pdanon.datasets.make_discharges(args.rows, seed=7)
    rng = np.random.default_rng(7)
    # four regions of 400 ZIP codes each: masked to the region, a cell is a set of 400 codes
    zips = [f"{p}{s:03d}" for p in ("02", "10", "44", "60") for s in
            rng.choice(1000, 400, replace=False)]
    df["zip"] = rng.choice(zips, len(df))
    roles = dict(quasi_identifiers={"birth_date": "ordered", "admission_date": "ordered",
                                    "zip": "unordered", "sex": "unordered",
                                    "ethnicity": "unordered"},
                 sensitive=["diagnosis"], identifiers=["patient_id", "name", "note"],
                 insensitive=["discharge_date", "charges", "weight"])
    from pdanon.hierarchy import dates, masking

    hierarchies = {"zip": masking(steps=[1, 2, 3]), "birth_date": dates(("year", "decade")),
                   "admission_date": dates(("month", "quarter", "year"))}
    out, wall, cpu, peak = timed(lambda: df.anon.k_anonymize(
        5, l=2, algorithm="optimal", hierarchies=hierarchies, max_suppressed_rows=0.02,
        progress=False, **roles))
    sizes = out["zip"].array.member_counts
    rows = [("anonymize (optimal, k=5, l=2)", wall, cpu, peak)]
    _, m_wall, m_cpu, m_peak = timed(lambda: out.anon.metrics(original=df))
    rows.append(("metrics(original)", m_wall, m_cpu, m_peak))
    _, r_wall, r_cpu, r_peak = timed(lambda: build_report(out, df, progress=False))
    rows.append(("report", r_wall, r_cpu, r_peak))
    _, i_wall, i_cpu, i_peak = timed(lambda: build_report(out, df, internal=True,
                                                          progress=False))
    rows.append(("report, internal", i_wall, i_cpu, i_peak))
    print(f"{len(df):,} rows; ZIP cells: {len(np.unique(out['zip'].array.codes)):,} distinct, "
          f"up to {sizes.max():,} codes per set (mean {sizes.mean():.0f})")
    print(f"{'step':34} {'seconds':>8} {'cpu s':>8} {'rows/s':>10} {'peak MiB':>9} "
          f"{'x metrics':>9}")
    for name, w, c, p in rows:
        print(f"{name:34} {w:8.2f} {c:8.2f} {len(df) / w:10,.0f} {p:9.0f} "
              f"{w / m_wall:9.2f}")


if __name__ == "__main__":
    main()
