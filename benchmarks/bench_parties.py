"""Two data owners (pdanon.parties) on UCI Adult: columns split in two, 5,000 rows each.

    python benchmarks/bench_parties.py                 # coincurve + ECPy, 5,000 rows, k=5
    python benchmarks/bench_parties.py --skip-ecpy     # fast backend only
    python benchmarks/bench_parties.py --rows 2000 10000   # several sizes

Target (issue 8): 5,000 rows per owner in under 20 s with the fast backend (coincurve).

Owner A holds sex, age, race, marital-status and the sensitive salary-class; owner B holds
education, native-country, workclass, occupation. "in-process" runs both owners in this
process through :func:`pdanon.parties.run_local` (one core does both owners' work, so the time
is the sum of both); "2 processes" runs owner B in a child process connected by a socket on
127.0.0.1 (wall-clock time of the whole exchange). "max RSS MB" is this process's peak resident
memory so far (it includes pandas, the data and the earlier runs). "mults" counts scalar multiplications of
both owners (2 per row per owner: its own ids once, the other's ids once; never again in the
rounds). The ECPy rows use pdanon's fixed-window multiplication over ECPy's Jacobian formulas;
ECPy's own ladder (``k * P``) is timed on a sample of points and its full-run time is
extrapolated from that rate. "proofs s" is the time both owners spent on the Chaum–Pedersen
proofs (public keys, point sums, group coefficients, proving and verifying; ``stats["seconds"]
["proofs"]``) and "proofs %" its share of the run ("2 processes": owner A's proofs against the
wall time).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

from _util import max_rss_mb, print_table  # noqa: E402

QI_A = {"sex": "unordered", "age": "real", "race": "unordered", "marital-status": "unordered"}
SENS_A = ["salary-class"]
QI_B = {"education": "ordered", "native-country": "unordered", "workclass": "unordered",
        "occupation": "unordered"}


def _frames(rows: int):
    from pdanon.datasets import load_adult

    df = load_adult().head(rows).reset_index(drop=True)
    return df[list(QI_A) + SENS_A], df[list(QI_B)]


def _owners(rows: int, k: int, backend: str):
    from pdanon.parties import DataOwner

    da, db = _frames(rows)
    a = DataOwner(da, k=k, quasi_identifiers=QI_A, sensitive=SENS_A, backend=backend, seed=0)
    b = DataOwner(db, k=k, quasi_identifiers=QI_B, backend=backend, seed=0)
    return a, b


def _row(label, rows, k, backend, seconds, a, b, rss_before, joined):
    mults = a.stats["scalar_multiplications"] + b.stats["scalar_multiplications"]
    qi = list(QI_A) + list(QI_B)
    return {
        "run": label, "rows": rows, "k": k, "backend": backend, "seconds": seconds,
        "rounds": a.stats["rounds"], "mults": mults, "mults/s (EC only)": mults / max(
            sum(o.stats["seconds"].get(p, 0.0) for o in (a, b)
                for p in ("encrypt_own", "encrypt_other")), 1e-9),
        "groups A": f"{a.stats['local_groups']}->{a.stats['final_groups']}",
        "groups B": f"{b.stats['local_groups']}->{b.stats['final_groups']}",
        "min class": int(joined.groupby(qi).size().min()),
        "proofs s": sum(o.stats["seconds"].get("proofs", 0.0) for o in (a, b)),
        "proofs %": 100 * sum(o.stats["seconds"].get("proofs", 0.0) for o in (a, b))
        / max(seconds, 1e-9),
        "kB sent": (a.stats["bytes_sent"] + b.stats["bytes_sent"]) / 1024,
        "max RSS MB": max_rss_mb(),
    }


def run_in_process(rows: int, k: int, backend: str, label: str = "in-process") -> dict:
    from pdanon.parties import run_local

    a, b = _owners(rows, k, backend)
    rss = max_rss_mb()
    started = time.perf_counter()
    joined = run_local(a, b)
    seconds = time.perf_counter() - started
    return _row(label, rows, k, backend, seconds, a, b, rss, joined), (a, b)


def _child_main(port: int, rows: int, k: int, backend: str) -> None:
    from pdanon.parties import SocketChannel, run_party

    _, b = _owners(rows, k, backend)
    sock = socket.create_connection(("127.0.0.1", port))
    run_party(b, SocketChannel(sock), first=False)
    sock.close()


def run_two_processes(rows: int, k: int, backend: str) -> dict:
    from pdanon.parties import SocketChannel, run_party

    a, b_stats_holder = _owners(rows, k, backend)
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    rss = max_rss_mb()
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, __file__, "--child", str(port), "--rows",
                              str(rows), "--k", str(k), "--backend", backend])
    conn, _ = server.accept()
    joined = run_party(a, SocketChannel(conn), first=True)
    child.wait()
    seconds = time.perf_counter() - started
    server.close()
    # the child's counts equal this owner's (same protocol, same rounds, same row count)
    b_stats_holder.stats.update(scalar_multiplications=a.stats["scalar_multiplications"],
                                bytes_sent=a.stats["bytes_received"], rounds=a.stats["rounds"],
                                local_groups="?", final_groups="?")
    row = _row("2 processes (wall)", rows, k, backend, seconds, a, b_stats_holder, rss, joined)
    row["mults/s (EC only)"] = a.stats["scalar_multiplications"] / max(
        a.stats["seconds"]["encrypt_own"] + a.stats["seconds"]["encrypt_other"], 1e-9)
    row["groups B"] = "(child)"
    row["proofs s"] = a.stats["seconds"]["proofs"]
    row["proofs %"] = 100 * row["proofs s"] / seconds
    return row


def ecpy_ladder_rate(points: int = 150) -> float:
    """ECPy's own scalar multiplication (Montgomery ladder), multiplications per second."""
    from pdanon.parties import _curve

    pts = _curve.hash_ids(range(points), salt=b"bench")
    ladder = _curve.EcpyBackend(window=None)
    started = time.perf_counter()
    ladder.multiply(pts, _curve.random_secret())
    return points / (time.perf_counter() - started)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, nargs="+", default=[5000])
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--skip-ecpy", action="store_true")
    ap.add_argument("--child", type=int, default=None)
    ap.add_argument("--backend", default="coincurve")
    args = ap.parse_args()
    if args.child is not None:
        _child_main(args.child, args.rows[0], args.k, args.backend)
        return

    from pdanon.parties import backends

    load = os.getloadavg()[0]
    print(f"load average {load:.2f}" + ("  (machine busy: timings are pessimistic)"
                                          if load >= 2 else ""))
    table = []
    fast = "coincurve" if "coincurve" in backends() else None
    if not fast:
        print("coincurve is not installed (pip install 'pdanon[fast]'): no fast-backend run")
    a = None
    for rows in args.rows:
        if fast:
            row, (a, b) = run_in_process(rows, args.k, fast)
            table.append(row)
            table.append(run_two_processes(rows, args.k, fast))
            ok = row["seconds"] < 20
            print(f"target: {rows:,} rows per owner in < 20 s with {fast}: "
                  f"{'met' if ok else 'NOT met'} ({row['seconds']:.1f} s in one process)")
        if not args.skip_ecpy:
            row, (a, b) = run_in_process(rows, args.k, "ecpy")
            table.append(row)
            rate = ecpy_ladder_rate()
            mults = row["mults"]
            other = row["seconds"] - mults / row["mults/s (EC only)"]
            table.append({"run": "ECPy ladder (extrapolated)", "rows": rows, "k": args.k,
                          "backend": "ecpy k*P", "seconds": other + mults / rate,
                          "rounds": row["rounds"], "mults": mults, "mults/s (EC only)": rate})
    print()
    print_table(table)
    if a is not None:
        a_sec = a.stats["seconds"]
        print("owner A phases (s, last run): "
              + ", ".join(f"{k} {v:.2f}" for k, v in a_sec.items()))

if __name__ == "__main__":
    main()
