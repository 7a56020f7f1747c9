"""Benchmark: ``pdanon anonymize`` against the Python call it makes, on a discharge table.

The table is :func:`pdanon.datasets.make_discharges` (direct identifiers, free text, dates, ZIP
codes with leading zeros, missing cells) with a ``birth_year`` column, written as CSV. Python:
read the CSV (codes as text, dates parsed), ``df.anon.k_anonymize(5, ...)``, write Parquet, in
one process after ``import pdanon``. Command line: ``pdanon anonymize IN -o OUT.parquet ...
-k 5`` in a fresh process, so its seconds include starting Python and importing pdanon, reading
and converting the columns and the release's check. Seconds are the best of ``--repeat`` runs;
CPU seconds are the child process's (command line) or this process's (Python).

Run: ``python benchmarks/bench_cli.py [--rows 50000] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings

import pandas as pd

sys.path.insert(0, os.path.dirname(__file__))
from _util import print_table  # noqa: E402

import pdanon  # noqa: E402

QI = {"birth_year": "real", "zip": "unordered", "sex": "unordered",
      "admission_date": "ordered"}
ROLES = dict(identifiers=["patient_id", "name", "note"], sensitive={"diagnosis": "unordered"},
             insensitive=["charges", "weight", "discharge_date", "ethnicity", "birth_date"])


SCRIPT = """
import sys, warnings
import pandas as pd
import pdanon
warnings.simplefilter("ignore")
raw = pdanon.read_csv(sys.argv[1], dtype={"zip": str, "sex": str, "diagnosis": str})
raw["admission_date"] = pd.to_datetime(raw["admission_date"])
raw.anon.k_anonymize(5, quasi_identifiers=%r, **%r).to_parquet(sys.argv[2])
""" % (QI, ROLES)


def python_in_process(path: str, out: str) -> float:
    cpu = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = pdanon.read_csv(path, dtype={"zip": str, "sex": str, "diagnosis": str})
        raw["admission_date"] = pd.to_datetime(raw["admission_date"])
        raw.anon.k_anonymize(5, quasi_identifiers=QI, **ROLES).to_parquet(out)
    return time.process_time() - cpu


def _child(argv) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def python_script(path: str, out: str) -> float:
    return _child([sys.executable, "-c", SCRIPT, path, out])


def cli_run(path: str, out: str) -> float:
    return _child([sys.executable, "-m", "pdanon", "anonymize", path, "-o", out,
                   "--qi", "birth_year:real,zip,sex,admission_date:date", "--sensitive",
                   "diagnosis", "--identifiers", ",".join(ROLES["identifiers"]),
                   "--insensitive", ",".join(ROLES["insensitive"]), "-k", "5"])


def best(fn, repeat: int, *args) -> tuple:
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        cpu = fn(*args)
        runs.append((time.perf_counter() - started, cpu))
    return min(runs)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=50_000)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    tmp = tempfile.mkdtemp()
    df = pdanon.datasets.make_discharges(a.rows, seed=3)
    df["birth_year"] = df["birth_date"].dt.year
    path = os.path.join(tmp, "discharges.csv")
    df.to_csv(path, index=False)
    py_s, py_cpu = best(python_script, a.repeat, path, os.path.join(tmp, "py.parquet"))
    cli_s, cli_cpu = best(cli_run, a.repeat, path, os.path.join(tmp, "cli.parquet"))
    in_s, in_cpu = best(python_in_process, a.repeat, path, os.path.join(tmp, "in.parquet"))
    same = pd.read_parquet(os.path.join(tmp, "py.parquet")).astype(str).equals(
        pd.read_parquet(os.path.join(tmp, "cli.parquet")).astype(str))
    print_table([
        {"run": "python script (fresh process)", "rows": a.rows, "seconds": py_s,
         "cpu s": py_cpu, "rows/s": a.rows / py_s, "vs script": 1.0},
        {"run": "pdanon anonymize (fresh process)", "rows": a.rows, "seconds": cli_s,
         "cpu s": cli_cpu, "rows/s": a.rows / cli_s, "vs script": cli_s / py_s},
        {"run": "python call (after import)", "rows": a.rows, "seconds": in_s, "cpu s": in_cpu,
         "rows/s": a.rows / in_s, "vs script": in_s / py_s}])
    print(f"same release: {same}; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
