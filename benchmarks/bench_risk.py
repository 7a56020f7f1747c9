"""Benchmark: record-level risk on 1,000,000 rows and SUDA on Adult (against the ``suda``
package from PyPI).

Part 1 (target: within 2x of a pandas group-by over the quasi-identifiers): ``df.anon.risk()``
(per row), ``df.anon.risk_summary()`` without a population, with a sampling fraction, with a
population table, and under ``missing="wildcard"`` on a table with missing cells; each as a
ratio to ``groupby(quasi_identifiers).size()`` over the same rows (for the population table,
also to pandas' way of getting F: a group-by over the population merged onto the sample rows).

Part 2 (target: all MSUs of Adult, 30,162 rows x 8 quasi-identifiers, in under 10 s):
``df.anon.suda()`` for max_size 2, 3 and all, and, when ``--suda-python`` names an interpreter
with the ``suda`` package installed (never a pdanon dependency), the same runs of
``suda.suda(...)`` on the same data, with the figures compared. The package scores every unique
attribute subset up to ``max_msu``, minimal or not, so only the smallest MSU size (equal to the
smallest unique subset) and which rows have one are comparable.

Run: ``python benchmarks/bench_risk.py [--rows 1000000] [--repeat 3]
[--suda-python /tmp/sudavenv/bin/python] [--adult /work/shared/data/adult/adult.csv]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(__file__))
from _util import print_table  # noqa: E402
from bench_metrics import QIS, best_of, make_table  # noqa: E402

import pdanon  # noqa: E402

SUDA_SCRIPT = """
import json, sys, time
import pandas as pd
from suda import suda
path, max_msu, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
qis = json.loads(sys.argv[4])
df = pd.read_csv(path, sep=";")[qis]
started = time.perf_counter()
res = suda(df, max_msu=max_msu, columns=qis)
seconds = time.perf_counter() - started
res = res.sort_index()
pd.DataFrame({"msu": res["msu"].astype(float), "fM": res["fM"], "suda": res["suda"],
              "seconds": seconds}).to_csv(out, index=False)
"""


def bench_rows(rows: int, repeat: int) -> None:
    for coarse in (False, True):
        df = make_table(rows, coarse=coarse)
        base = best_of(lambda: df.groupby(QIS, dropna=False, observed=True).size(), repeat)
        extra = make_table(rows // 2, coarse=coarse, seed=1)
        pop = pd.concat([df, extra], ignore_index=True)
        def pandas_population():  # pandas' way: population class sizes, looked up per row
            sizes = pop.groupby(QIS, dropna=False, observed=True).size().rename("F")
            return df[QIS].merge(sizes.reset_index(), on=QIS, how="left")

        base_pop = best_of(pandas_population, repeat)
        holey = df.copy()
        rng = np.random.default_rng(2)
        for c in ("age", "zip"):
            holey[c] = holey[c].where(rng.random(rows) > 0.05)  # 5 % missing
        base_holey = best_of(lambda: holey.groupby(QIS, dropna=False, observed=True).size(),
                             repeat)
        classes = len(df.groupby(QIS, dropna=False, observed=True).size())
        print(f"\n{rows:,} rows x {len(QIS)} QIs, {'coarse' if coarse else 'fine'} values "
              f"({classes:,} classes); pandas groupby(...).size(): {base:.3f} s")
        cases = [
            ("risk() per row", lambda: df.anon.risk(quasi_identifiers=QIS), base),
            ("risk_summary()", lambda: df.anon.risk_summary(quasi_identifiers=QIS), base),
            ("risk_summary(sampling_fraction=0.1)",
             lambda: df.anon.risk_summary(quasi_identifiers=QIS, sampling_fraction=0.1), base),
            ("risk(population=1.5x table)",
             lambda: df.anon.risk(quasi_identifiers=QIS, population=pop), base),
            ("risk_summary(population=1.5x table)",
             lambda: df.anon.risk_summary(quasi_identifiers=QIS, population=pop), base),
            ("risk_summary(missing='wildcard'), 2 QIs 5 % missing",
             lambda: holey.anon.risk_summary(quasi_identifiers=QIS, missing="wildcard"),
             base_holey),
        ]
        table = []
        for name, fn, b in cases:
            seconds = best_of(fn, repeat)
            row = {"measure": name, "seconds": seconds, "x groupby": seconds / b}
            if "population" in name:
                row["x pandas groupby(pop)+merge"] = seconds / base_pop
            table.append(row)
        for row in table:
            row.setdefault("x pandas groupby(pop)+merge", "")
        print_table(table)


def run_suda_package(python: str, adult: str, max_msu: int, qis: list) -> pd.DataFrame:
    with tempfile.TemporaryDirectory() as tmp:
        script, out = os.path.join(tmp, "run.py"), os.path.join(tmp, "out.csv")
        with open(script, "w") as fh:
            fh.write(SUDA_SCRIPT)
        subprocess.run([python, script, adult, str(max_msu), out, json.dumps(qis)], check=True)
        return pd.read_csv(out)


def bench_suda(adult_path: str, suda_python: str | None, sizes) -> None:
    adult = pd.read_csv(adult_path, sep=";") if os.path.exists(adult_path) else \
        pdanon.datasets.load_adult()
    qis = list(pdanon.datasets.ADULT_QUASI_IDENTIFIERS)
    print(f"\nSUDA on Adult ({len(adult):,} rows x {len(qis)} QIs)")
    table = []
    for size in sizes:
        started = time.perf_counter()
        ours = adult.anon.suda(size, quasi_identifiers=qis)
        seconds = time.perf_counter() - started
        row = {"max_size": size, "pdanon s": seconds,
               "rows with MSU": int((ours["msu_count"] > 0).sum()),
               "MSUs": int(ours["msu_count"].sum())}
        if suda_python:
            theirs = run_suda_package(suda_python, adult_path, size, qis)
            smallest = theirs["msu"].fillna(0).astype(int).to_numpy()
            row.update({"suda pkg s": float(theirs["seconds"].iloc[0]),
                        "x faster": float(theirs["seconds"].iloc[0]) / seconds,
                        "pkg rows with unique subset": int((smallest > 0).sum()),
                        "smallest MSU size equal": bool(
                            (smallest == ours["msu_min_size"].to_numpy()).all()),
                        "pkg unique subsets": int(theirs["fM"].sum())})
        table.append(row)
    print_table(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--suda-python", default=None,
                        help="an interpreter with the 'suda' package (for the comparison)")
    parser.add_argument("--adult", default="/work/shared/data/adult/adult.csv")
    parser.add_argument("--suda-sizes", default="2,3,8")
    parser.add_argument("--skip-rows", action="store_true", help="only the SUDA part")
    args = parser.parse_args()
    if not args.skip_rows:
        bench_rows(args.rows, args.repeat)
    bench_suda(args.adult, args.suda_python, [int(s) for s in args.suda_sizes.split(",")])


if __name__ == "__main__":
    main()
