"""Publishing again: applying a recoding to a large batch, and checking two large releases
together, beside a pandas group-by of one release.

    python benchmarks/bench_republication.py            # 1,000,000 rows
    python benchmarks/bench_republication.py 200000     # another size

Targets (issue 31.6): applying a recoding to 1,000,000 rows in under 5 s; ``check_releases``
on two 1,000,000-row releases within 3x a pandas group-by of one of them. The recoding comes
from a 20,000-row Datafly release of the synthetic discharge table (five quasi-identifiers:
two date columns, ZIP codes, sex, ethnicity); the batch is another draw of the same
generator. The group-by and the checks are the fastest of 3 runs. Person keys: integers, the register's ids (``P0000001``: numbered by their bytes,
as integers are) and free-form text (32 hex digits: numbered by a hash pass). "cpu s" is the
process's CPU time.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from _util import max_rss_mb, print_table  # noqa: E402


def timed(label, n, fn, repeat=1):
    """The result and the fastest of ``repeat`` runs (wall and CPU seconds of that run)."""
    best = None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if best is None or wall < best[0]:
            best = (wall, cpu)
    wall, cpu = best
    return result, {"step": label, "rows": n, "seconds": wall, "cpu s": cpu,
                    "rows/s": n / wall if wall else float("inf")}


def main() -> None:
    import pdanon
    from pdanon.datasets import DISCHARGE_ROLES, make_discharges

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    roles = dict(DISCHARGE_ROLES)
    qi = list(roles["quasi_identifiers"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = make_discharges(20_000).anon.k_anonymize(5, algorithm="datafly", **roles)
    recoding = pdanon.Recoding.from_json(first.anon.recoding.to_json())
    batch = make_discharges(n, seed=7)
    rows = []
    out, row = timed("apply_recoding", n, lambda: batch.anon.apply_recoding(
        recoding, identifiers=roles["identifiers"], insensitive=roles["insensitive"],
        max_suppressed_rows=0.5))
    rows.append(row)
    _, row = timed("pandas group-by of one release", n, lambda: out.groupby(
        qi, dropna=False, observed=True).size(), repeat=3)
    rows.append(row)
    group_by = row["seconds"]
    perm = np.random.default_rng(0).permutation(n)
    other = out.iloc[perm]
    text_keys = batch["patient_id"]
    # free-form keys of no fixed shape (32 hex digits, as a UUID): numbered by a hash pass
    halves = np.random.default_rng(1).integers(0, 2**63, size=(n, 2)).tolist()
    free_keys = pd.Series([f"{a:016x}{b:016x}" for a, b in halves], dtype="str")
    for label, keys in (("check_releases, 2 releases, integer keys", np.arange(n)),
                        ("check_releases, 2 releases, register ids (P0000001)", text_keys),
                        ("check_releases, 2 releases, free-form text keys", free_keys)):
        k2 = keys.iloc[perm] if hasattr(keys, "iloc") else keys[perm]
        res, row = timed(label, 2 * n, lambda: pdanon.check_releases(
            [out, other], keys=[keys, k2], quasi_identifiers=[qi, qi]), repeat=3)
        row["x group-by"] = row["seconds"] / group_by
        rows.append(row)
    for r in rows:
        r.setdefault("x group-by", "")
    print(f"Republication, {n:,}-row batch (achieved k {out.anon.info['achieved']['k']}, "
          f"{out.anon.info['suppressed_rows']} rows suppressed; combined k {res.combined_k})")
    print_table(rows)
    print(f"peak RSS {max_rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
