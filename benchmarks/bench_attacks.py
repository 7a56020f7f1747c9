"""Speed of pdanon.attacks: 2,000 attacks of each kind on Adult, and on a larger table.

Run: ``python benchmarks/bench_attacks.py`` (Adult, 30,162 rows: 80 % original, 20 % control)
or ``python benchmarks/bench_attacks.py --rows 1000000`` (Adult rows resampled with jittered
ages to the size asked; the control is a fifth of it). Prints, per attack and release, the
seconds and CPU seconds (one run), release rows × attacks compared per second, the peak memory
the attack allocated (tracemalloc, a second run) and the process's peak resident memory. The
machine may be shared: CPU seconds are the steadier figure.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pdanon  # noqa: E402
from pdanon import attacks  # noqa: E402
from _util import max_rss_mb, measure, print_table  # noqa: E402

QI = list(pdanon.datasets.ADULT_QUASI_IDENTIFIERS)


def tables(rows: int | None, seed: int = 0):
    adult = pdanon.datasets.load_adult()
    rng = np.random.default_rng(seed)
    if rows is not None:
        adult = adult.iloc[rng.integers(0, len(adult), size=rows)].reset_index(drop=True)
        adult["age"] = adult["age"] + rng.integers(-2, 3, size=len(adult))
    control = adult.sample(frac=0.2, random_state=seed)
    original = adult.drop(control.index).reset_index(drop=True)
    return original, control.reset_index(drop=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, default=None, help="resample Adult to this many rows")
    ap.add_argument("--attacks", type=int, default=2000)
    ap.add_argument("--releases", default="copy,mondrian",
                    help="comma-separated: copy, mondrian")
    args = ap.parse_args(argv)
    original, control = tables(args.rows)
    print(f"original {len(original):,} rows, control {len(control):,} rows, "
          f"{args.attacks:,} attacks each")
    releases = {}
    for name in args.releases.split(","):
        if name == "copy":
            releases["copy"] = original
        elif name == "mondrian":
            t0 = time.perf_counter()
            releases["mondrian k=5"] = original.anon.k_anonymize(5)
            print(f"(Mondrian k=5 release made in {time.perf_counter() - t0:.1f} s)")
    runs = {
        "singling out (multivariate)": lambda rel: attacks.singling_out(
            rel, original, control=control, columns=QI, n_attacks=args.attacks, seed=0),
        "linkability": lambda rel: attacks.linkability(
            rel, original, control=control, aux_cols=(QI[0::2], QI[1::2]),
            n_attacks=args.attacks, seed=0),
        "inference": lambda rel: attacks.inference(
            rel, original, control=control, aux_cols=QI, secret="salary-class",
            n_attacks=args.attacks, seed=0),
    }
    out = []
    for rname, rel in releases.items():
        for aname, run in runs.items():
            c0, t0 = time.process_time(), time.perf_counter()
            res = run(rel)  # timed on its own: tracing allocations slows numpy's many
            secs = time.perf_counter() - t0
            cpu = time.process_time() - c0
            _, _, peak = measure(run, rel)  # ... so the peak memory comes from a second run
            out.append({"release": rname, "attack": aname, "attacks": res.n_attacks,
                        "risk": round(res.risk, 3), "seconds": round(secs, 2),
                        "cpu_s": round(cpu, 2),
                        "rows/s": f"{len(rel) * args.attacks / secs:,.0f}",
                        "peak_MB": round(peak, 1)})
    print_table(out)
    print(f"peak resident memory {max_rss_mb():,.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
