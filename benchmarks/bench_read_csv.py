"""Benchmark: ``pdanon.read_csv`` on generalized cells (text parsing of ranges and sets).

Cases: about 10 MB of moderate set cells (many rows), one row holding a very large set cell
(1 MB and 4 MB of text; ``max_cell_length`` raised for the latter), and about 10 MB of range
cells. Seconds are the best of ``--repeat`` runs of ``pdanon.read_csv`` (pandas' own CSV reading
included); rows/s and MB/s follow from them; peak MB is what one call allocated (tracemalloc, in a
separate run so it does not slow the timed ones).

Run: ``python benchmarks/bench_read_csv.py [--repeat 3]``
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _util import measure, print_table  # noqa: E402

import pdanon  # noqa: E402


def _set_rows(target_bytes: int, rng) -> str:
    """Rows of sets of 2..8 members out of 200 categories (about ``target_bytes`` of text)."""
    cats = np.array([f"cat{i:03d}" for i in range(200)])
    lines = ["race"]
    size = 0
    while size < target_bytes:
        k = int(rng.integers(2, 9))
        cell = '"{' + ", ".join(sorted(rng.choice(cats, size=k, replace=False))) + '}"'
        lines.append(cell)
        size += len(cell) + 1
    return "\n".join(lines) + "\n"


def _big_set(target_bytes: int) -> str:
    members = []
    size, i = 2, 0
    while size < target_bytes:
        m = f"m{i}"
        members.append(m)
        size += len(m) + 2
        i += 1
    return 'race\n"{' + ", ".join(members) + '}"\n'


def _range_rows(target_bytes: int, rng) -> str:
    lines = ["age"]
    size = 0
    while size < target_bytes:
        lo = int(rng.integers(0, 90))
        cell = f'"[{lo}, {lo + int(rng.integers(1, 20))}]"' if rng.random() < 0.8 else str(lo)
        lines.append(cell)
        size += len(cell) + 1
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    cases = [
        ("10 MB of set cells", _set_rows(10 * 2**20, rng), {"race": "unordered"}, {}),
        ("one 1 MB set cell (at the limit)", _big_set(10**6 - 100), {"race": "unordered"}, {}),
        ("one 4 MB set cell", _big_set(4 * 2**20), {"race": "unordered"},
         {"max_cell_length": 5 * 2**20}),
        ("10 MB of range cells", _range_rows(10 * 2**20, rng), {"age": "real"}, {}),
    ]
    rows = []
    for name, text, schema, kw in cases:
        n = text.count("\n") - 1

        def run():
            return pdanon.read_csv(io.StringIO(text), schema=schema, **kw)

        best = float("inf")
        for _ in range(args.repeat):
            t = time.perf_counter()
            df = run()
            best = min(best, time.perf_counter() - t)
        col = df.columns[0]
        assert str(df[col].dtype).startswith("generalization"), df[col].dtype
        _, _, peak = measure(run)
        mb = len(text) / 2**20
        rows.append({"case": name, "rows": n, "text MB": f"{mb:.1f}", "seconds": f"{best:.3f}",
                     "rows/s": f"{n / best:,.0f}", "MB/s": f"{mb / best:.1f}",
                     "peak MB": f"{peak:.0f}"})
    print_table(rows)


if __name__ == "__main__":
    main()
