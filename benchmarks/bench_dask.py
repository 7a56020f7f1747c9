"""Benchmark: k=5 Mondrian and optimal recoding on Dask, Parquet to Parquet, next to the
single-machine engine.

Data: the Adult table resampled with replacement and ages jittered by -2..+2 years (clipped to
17..90), written to Parquet by this script in chunks of 250,000 rows (chunk i is generated
from seed i, so the first 1,000,000 rows of the 10,000,000-row data set are the 1,000,000-row
data set). Data lives under /tmp, never in the repository.

Algorithms (``--algorithms``, default ``mondrian optimal``): ``mondrian`` (k = 5,
generalization), ``mondrian-suppress`` and ``mondrian-aggregate`` (the same parts, published by
``method="suppress"`` / ``"aggregate"``) and ``optimal`` (k = 5 over ARX's Adult hierarchies,
at most ``--suppress`` of the rows suppressed, default 5 %).

Runs (each in its own process, so peak memory is its own):

* ``single``: pandas + ``df.anon.k_anonymize(5, algorithm="mondrian")`` on ``--single-rows``
  rows: read Parquet, anonymize, write Parquet. Peak memory: the process's max RSS.
* ``dask``: ``distributed.LocalCluster`` of ``--workers`` worker processes (1 thread each)
  limited to ``--memory-limit`` each; ``ddf.anon.k_anonymize(5, path=...)`` from the Parquet
  directory to a Parquet directory, verified on the written files. Peak memory: the largest
  RSS of each worker process, sampled every 0.2 s.

Usage::

    python benchmarks/bench_dask.py                      # 10M rows on Dask, 1M single machine
    python benchmarks/bench_dask.py --rows 1000000       # development size
    python benchmarks/bench_dask.py --rows 1000000 --dask-rows 1000000 10000000
    python benchmarks/bench_dask.py --rows 100000000 --dask-rows 1000000 10000000 100000000 \
        --memory-limit 6GB --partition-rows 1000000    # the 100M-row runs (docs/dask.md)

Prints a table (rows, seconds, rows/s, peak memory, parts, classes, discernibility).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time

CHUNK = 250_000
K = 5


# ============================================================================ data


def generate(path: str, rows: int) -> None:
    """Write ``rows`` resampled Adult rows to ``path`` (one file per chunk), unless present."""
    import numpy as np
    import pandas as pd

    import pdanon

    done = os.path.join(path, f"_rows_{rows}")
    if os.path.exists(done):
        return
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    adult = pdanon.datasets.load_adult()
    for i, start in enumerate(range(0, rows, CHUNK)):
        m = min(CHUNK, rows - start)
        rng = np.random.default_rng(i)
        df = adult.iloc[rng.integers(0, len(adult), m)].reset_index(drop=True)
        df.index = pd.RangeIndex(start, start + m)
        df["age"] = np.clip(df["age"].to_numpy() + rng.integers(-2, 3, m), 17, 90)
        df.to_parquet(os.path.join(path, f"part.{i:05d}.parquet"))
    open(done, "w").close()


def _files(path: str, rows: int) -> list[str]:
    files = sorted(f for f in os.listdir(path) if f.endswith(".parquet"))
    return [os.path.join(path, f) for f in files[: -(-rows // CHUNK)]]


# ============================================================================ runs


def _anonymize(frame, algorithm: str, suppress: float, **options):
    """k-anonymize a pandas or Dask frame with ``algorithm``."""
    import pdanon

    if algorithm == "optimal":
        from pdanon.hierarchy import read_arx_csv

        qis = list(frame.anon.roles().quasi_identifiers)
        arx = {c: read_arx_csv(pdanon.datasets.adult_hierarchy_path(c)) for c in qis}
        return frame.anon.k_anonymize(K, algorithm="optimal", hierarchies=arx,
                                      max_suppressed_rows=suppress, **options)
    method = algorithm.split("-")[1] if "-" in algorithm else "generalize"
    return frame.anon.k_anonymize(K, algorithm="mondrian", method=method, **options)


def run_single(path: str, rows: int, out: str, algorithm: str, suppress: float) -> dict:
    import numpy as np
    import pandas as pd

    import pdanon  # noqa: F401  (registers df.anon)
    from pdanon._groups import class_labels

    started = time.perf_counter()
    df = pd.concat([pd.read_parquet(f) for f in _files(path, rows)])
    df.attrs = pd.read_parquet(_files(path, rows)[0]).attrs
    t_read = time.perf_counter() - started
    anon = _anonymize(df, algorithm, suppress)
    t_anon = time.perf_counter() - started - t_read
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    anon.to_parquet(os.path.join(out, "part.0.parquet"))
    seconds = time.perf_counter() - started
    qis = list(anon.anon.roles().quasi_identifiers)
    published = anon[anon[qis].notna().any(axis=1)]  # fully suppressed rows form no class
    sizes = np.bincount(class_labels(published, qis))
    return {"setup": "pandas, 1 process", "algorithm": algorithm, "rows": len(df),
            "seconds": seconds, "levels": anon.anon.info.get("levels"),
            "suppressed_rows": anon.anon.info.get("suppressed_rows", 0),
            "read": t_read, "anonymize": t_anon,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "parts": 1, "classes": int(len(sizes)), "min_class": int(sizes.min()),
            "discernibility": int((sizes.astype(np.int64) ** 2).sum())}


def run_dask(path: str, rows: int, out: str, workers: int, memory_limit: str,
             max_rows_per_part: int, order: str, tune_malloc: bool, algorithm: str,
             suppress: float, partition_rows: int | None = None) -> dict:
    import threading

    import dask
    import dask.dataframe as dd
    import psutil
    from distributed import Client, LocalCluster

    import pdanon.dask

    if tune_malloc:
        # distributed sets MALLOC_TRIM_THRESHOLD_, which freezes glibc's mmap threshold at
        # 128 KiB: every large numpy temporary is then mmap'ed and page-faulted afresh (2x
        # slower numpy code). A fixed 64 MiB mmap threshold keeps the trimming and the speed.
        dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": 2**26})
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, memory_limit=memory_limit,
                           processes=True, dashboard_address=":0")
    client = Client(cluster)
    pdanon.dask.register_workers(client)
    peaks: dict = {}
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            try:
                got = client.run(lambda: psutil.Process().memory_info().rss)
            except Exception:  # a worker restarting: keep sampling
                got = {}
            for w, rss in got.items():
                peaks[w] = max(peaks.get(w, 0), rss)
            stop.wait(0.2)

    workers_before = set(client.scheduler_info()["workers"])
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    ddf = dd.read_parquet(_files(path, rows))
    if partition_rows:  # fewer, larger input partitions (adjacent files concatenated)
        ddf = ddf.repartition(npartitions=max(1, -(-rows // partition_rows)))
    options = ({"max_rows_per_part": max_rows_per_part, "order": order}
               if algorithm.startswith("mondrian") else {})
    result = _anonymize(ddf, algorithm, suppress, path=out, **options)
    seconds = time.perf_counter() - started
    stop.set()
    sampler.join()
    info = result.anon.info
    workers_after = set(client.scheduler_info()["workers"])
    limit = dask.utils.parse_bytes(memory_limit)
    client.close()
    cluster.close()
    return {"setup": f"dask, {workers} workers x {memory_limit}", "algorithm": algorithm,
            "rows": info["rows"], "seconds": seconds, "levels": info.get("levels"),
            "suppressed_rows": info.get("suppressed_rows", 0),
            "phases": {k: round(v, 2) for k, v in info["timings"].items()},
            "peak_mb": max(peaks.values()) / 2**20 if peaks else float("nan"),
            "peak_per_worker_mb": sorted(round(v / 2**20) for v in peaks.values()),
            "limit_mb": limit / 2**20, "workers_restarted": workers_before != workers_after,
            "parts": info.get("parts", 1), "cut_levels": info.get("cut_levels"),
            "classes": info["groups"], "min_class": info["verified"]["k"],
            "discernibility": info.get("discernibility", float("nan")),
            "collected_kb": info["collected_bytes"] / 1024, "order": order,
            "input_partitions": int(ddf.npartitions), "malloc_tuned": tune_malloc}


# ============================================================================ driver


def _child(args) -> None:
    if args.step == "generate":
        generate(args.data, args.rows)
        print(json.dumps({}))
    elif args.step == "single":
        print(json.dumps(run_single(args.data, args.rows, args.out, args.algorithms[0],
                                    args.suppress)))
    else:
        print(json.dumps(run_dask(args.data, args.rows, args.out, args.workers,
                                  args.memory_limit, args.max_rows_per_part, args.order,
                                  not args.no_malloc_tuning, args.algorithms[0],
                                  args.suppress, args.partition_rows)))


def _spawn(*argv) -> dict:
    proc = subprocess.run([sys.executable, __file__, *map(str, argv)], capture_output=True,
                          text=True)
    if proc.returncode:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"step {argv[:2]} failed")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=int, default=10_000_000, help="rows generated")
    p.add_argument("--dask-rows", type=int, nargs="+", default=None,
                   help="row counts anonymized on Dask (default: --rows)")
    p.add_argument("--single-rows", type=int, default=1_000_000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--memory-limit", default="4GB")
    p.add_argument("--max-rows-per-part", type=int, default=500_000)
    p.add_argument("--order", default="input", choices=["input", "part"])
    p.add_argument("--no-malloc-tuning", action="store_true")
    p.add_argument("--data", default="/tmp/pdanon-bench-dask/adult")
    p.add_argument("--out", default="/tmp/pdanon-bench-dask/out")
    p.add_argument("--skip-single", action="store_true")
    p.add_argument("--algorithms", nargs="+", default=["mondrian", "optimal"],
                   choices=["mondrian", "mondrian-suppress", "mondrian-aggregate",
                            "optimal"])
    p.add_argument("--suppress", type=float, default=0.05,
                   help="optimal: share of rows that may be suppressed")
    p.add_argument("--partition-rows", type=int, default=None,
                   help="Dask input partitions of about this many rows (default: one per "
                        "250,000-row file)")
    p.add_argument("--step", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.step:
        _child(args)
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _util import print_table

    t0 = time.perf_counter()
    _spawn("--step", "generate", "--data", args.data, "--rows", args.rows)
    print(f"data: {args.rows:,} rows in {args.data} ({time.perf_counter() - t0:.1f} s)")
    runs = []
    base = {}
    for algorithm in args.algorithms:
        common = ["--algorithms", algorithm, "--suppress", args.suppress]
        if not args.skip_single:
            runs.append(_spawn("--step", "single", "--data", args.data, "--rows",
                               args.single_rows, "--out", args.out + "-single", *common))
            base[algorithm] = runs[-1]["rows"] / runs[-1]["seconds"]
            print(json.dumps(runs[-1]), flush=True)
        for rows in args.dask_rows or [args.rows]:
            extra = ["--no-malloc-tuning"] if args.no_malloc_tuning else []
            if args.partition_rows:
                extra += ["--partition-rows", args.partition_rows]
            runs.append(_spawn("--step", "dask", "--data", args.data, "--rows", rows,
                               "--out", args.out + "-dask", "--workers", args.workers,
                               "--memory-limit", args.memory_limit, "--max-rows-per-part",
                               args.max_rows_per_part, "--order", args.order, *common,
                               *extra))
            print(json.dumps(runs[-1]), flush=True)
    table = []
    for r in runs:
        rate = r["rows"] / r["seconds"]
        table.append({
            "setup": r["setup"], "algorithm": r["algorithm"], "rows": r["rows"],
            "seconds": r["seconds"], "rows/s": rate,
            "vs single": rate / base.get(r["algorithm"], float("nan")),
            "peak MB": r["peak_mb"], "parts": r["parts"], "classes": r["classes"],
            "min class": r["min_class"], "discern./row": r["discernibility"] / r["rows"],
        })
    print_table(table)


if __name__ == "__main__":
    main()
