"""pdanon's secondary cell suppression side by side with the R peers GaussSuppression
(Statistics Norway) and sdcTable (sdcTools), on the same tables (issue 52 point 6).

    python benchmarks/compare_suppression.py [--tables 2d,3d,...] [--time-limit 60]
                                             [--peer-timeout 300] [--no-peers]

Seeded synthetic microdata gives these tables (all margins, frequency rule n = 3 for counts,
zeros not primary):

* ``2d``: region (13 leaves under 3 groups) × industry (6), counts;
* ``3d``: region (hierarchy) × industry (12 leaves under 4 sections) × age band (5), counts;
* ``linkA`` / ``linkB``: region × industry and region × age band from one microdata frame
  (two linked tables sharing the region margin), each protected alone by every tool; when
  both are run, the rows ``linkA+B`` protect them together with ``pdanon.tables.link`` and
  audit every tool's pair of patterns (each made alone) with the linked audit, the attacker
  who sees both tables;
* ``20k``: a 30 × 25 × 25 flat table with margins (20,956 cells), counts;
* ``mag-p`` / ``mag-nk``: region (hierarchy) × industry, the sum of a heavy-tailed turnover,
  with the p %-rule (p = 10) and (2, 85)-dominance (each row its own contributor).

pdanon runs every method in :data:`METHODS`. The peers run through ``Rscript benchmarks/compare_suppression.R`` in a subprocess, on
CSV files this script writes into a temporary directory it creates (and removes): the leaf
cells with their frequencies (counts) or the microdata (sums), each dimension's hierarchy in
the ``levels``/``codes`` ("@", "@@", ...) format both packages read, and pdanon's primary cells
with their protection levels. Each peer's pattern comes back keyed by the cells' labels
(``"Total"`` for a grand total, the hierarchy's node names for sub-totals), is mapped onto
pdanon's cells and audited by :func:`pdanon.tables.audit` with pdanon's rules and levels.

The peers are skipped, with a message, when ``Rscript`` or the R library folder
(``PDANON_RLIB``, default ``/work/rlib``) is missing; the script then runs pdanon alone.
docs/tables.md ("Running the peers") says how that library was built.

Columns: ``cells`` (pdanon's cells), ``primary`` (cells the tool made primary), ``secondary``
(other withheld cells), ``withheld`` (total value of all withheld cells), ``seconds`` (wall time
of the protection call alone: pdanon's ``protect``, the peer's suppression call inside R;
reading the CSVs and starting R not included), ``peak MiB`` (the peak resident memory of the
process that built and protected the table, from ``wait4``: pdanon runs each method in a fresh
Python process for this, as each peer runs in its own R process; interpreter, libraries and
data included), ``audit`` (``ok``, or the number of pdanon's
primary cells the pattern leaves with a narrower range than required; a pdanon primary cell
the peer publishes counts as unsafe too), ``holders`` (sums: the primary cells a sole
contributor, knowing its own cells, could narrow below their levels — what pdanon's
``singletons="auto"`` protects against and the peers do not model), ``prim diff`` (cells primary in pdanon but not
under the peer's own rule / the reverse).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import pdanon  # noqa: E402,F401  (registers df.anon)
from _util import print_table  # noqa: E402
from pdanon.hierarchy import tree  # noqa: E402
from pdanon.tables import audit, primary  # noqa: E402
from pdanon.tables.deviations import (Deviations, blocks, singleton_blocks,  # noqa: E402
                                      uncovered)

#: pdanon's methods; add "gauss" and "modular" here when they are on main
METHODS = ("optimal", "fast", "gauss", "modular")
#: the peers: (tool, method) — "gauss-int" is GaussSuppression with its interval protection
#: (lpPackage "Rglpk") given pdanon's protection levels (counts) or its own rule-based
#: levels (magnitudes, the same formulas as pdanon's)
PEERS = (("gauss", ""), ("gauss-int", ""), ("sdctable", "HITAS"), ("sdctable", "OPT"),
         ("sdctable", "SIMPLEHEURISTIC"))
R_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare_suppression.R")
SEED = 20260601
#: above this many cells the audit is pdanon's pre-return check (see unsafe_cells)
FULL_AUDIT_CELLS = 5_000

REGION = {"North": [f"r{i:02d}" for i in range(1, 5)],
          "Mid": [f"r{i:02d}" for i in range(5, 9)],
          "South": [f"r{i:02d}" for i in range(9, 14)]}
INDUSTRY = {"SecA": ["a1", "a2", "a3"], "SecB": ["b1", "b2", "b3"],
            "SecC": ["c1", "c2", "c3"], "SecD": ["d1", "d2", "d3"]}
INDUSTRY6 = [f"i{i}" for i in range(1, 7)]
AGE = ["y15", "y30", "y45", "y60", "y75"]


def _skewed(rng, values, n, power=1.3):
    """Category per row with Zipf-like weights, every value at least once."""
    w = 1.0 / np.arange(1, len(values) + 1) ** power
    out = rng.choice(np.asarray(values, dtype=object), size=n, p=w / w.sum())
    out[:len(values)] = values
    return out


def microdata(seed: int = SEED) -> dict:
    """The synthetic frames, one per table family."""
    rng = np.random.default_rng(seed)
    leaves_r = [v for vs in REGION.values() for v in vs]
    leaves_i = [v for vs in INDUSTRY.values() for v in vs]
    frames = {}
    n = 700
    frames["2d"] = pd.DataFrame({"region": _skewed(rng, leaves_r, n),
                                 "industry": _skewed(rng, INDUSTRY6, n)})
    n = 3000
    frames["3d"] = pd.DataFrame({"region": _skewed(rng, leaves_r, n),
                                 "industry": _skewed(rng, leaves_i, n),
                                 "age": _skewed(rng, AGE, n)})
    n = 1500
    frames["link"] = pd.DataFrame({"region": _skewed(rng, leaves_r, n),
                                   "industry": _skewed(rng, INDUSTRY6, n),
                                   "age": _skewed(rng, AGE, n)})
    n = 100_000
    frames["20k"] = pd.DataFrame({"d1": _skewed(rng, [f"p{i:02d}" for i in range(30)], n, 1.0),
                                  "d2": _skewed(rng, [f"q{i:02d}" for i in range(25)], n, 1.0),
                                  "d3": _skewed(rng, [f"s{i:02d}" for i in range(25)], n, 1.0)})
    n = 600
    frames["mag"] = pd.DataFrame({"region": _skewed(rng, leaves_r, n, 0.8),
                                  "industry": _skewed(rng, INDUSTRY6, n, 0.8),
                                  "turnover": np.round(rng.lognormal(4.0, 1.6, n), 1)})
    return frames


def tables(frames: dict) -> dict:
    """name -> (frame, index, columns, hierarchies (nested dicts), values, pdanon rules,
    the peers' rule)."""
    count = {"min_frequency": 3}
    peer_count = {"maxN": 2}
    return {
        "2d": (frames["2d"], ["region"], ["industry"], {"region": REGION}, None, count,
               peer_count),
        "3d": (frames["3d"], ["region", "industry"], ["age"],
               {"region": REGION, "industry": INDUSTRY}, None, count, peer_count),
        "linkA": (frames["link"], ["region"], ["industry"], {"region": REGION}, None, count,
                  peer_count),
        "linkB": (frames["link"], ["region"], ["age"], {"region": REGION}, None, count,
                  peer_count),
        "20k": (frames["20k"], ["d1", "d2"], ["d3"], {}, None, count, peer_count),
        "mag-p": (frames["mag"], ["region"], ["industry"], {"region": REGION}, "turnover",
                  {"p_percent": 10}, {"p": 10}),
        "mag-nk": (frames["mag"], ["region"], ["industry"], {"region": REGION}, "turnover",
                   {"dominance": (2, 85)}, {"n": 2, "k": 85}),
    }


def build(spec):
    df, index, columns, hier, values, _, _ = spec
    hierarchies = {c: tree(h) for c, h in hier.items()}
    if values is None:
        return df.anon.table(index=index, columns=columns, hierarchies=hierarchies)
    return df.anon.table(index=index, columns=columns, values=values, aggfunc="sum",
                         hierarchies=hierarchies)


def _dimlist(dim: str, table, hier: dict | None) -> pd.DataFrame:
    """The ``levels``/``codes`` form of one dimension ("@" the total, "@@" below, ...)."""
    rows = [("@", "Total")]
    if hier:
        for group, leaves in hier.items():
            rows.append(("@@", group))
            rows += [("@@@", leaf) for leaf in leaves]
    else:
        d = next(x for x in table.dims if x.name == dim)
        rows += [("@@", str(v)) for v in d.labels[:d.n_leaves]]
    return pd.DataFrame(rows, columns=["levels", "codes"])


def export(spec, table, levels: pd.DataFrame, folder: str) -> dict:
    """Write the CSVs the R script reads; returns the shared part of its spec.json."""
    df, index, columns, hier, values, _, peer_rule = spec
    dims = index + columns
    if values is None:  # every leaf combination with its frequency
        leaves = [next(x for x in table.dims if x.name == c) for c in dims]
        full = pd.MultiIndex.from_product([d.labels[:d.n_leaves] for d in leaves], names=dims)
        data = df.groupby(dims).size().reindex(full, fill_value=0).rename("freq").reset_index()
    else:
        data = df[dims + [values]].rename(columns={values: "value"})
    data.to_csv(os.path.join(folder, "data.csv"), index=False)
    hpaths = {}
    for c in dims:
        hpaths[c] = os.path.join(folder, f"hier_{c}.csv")
        _dimlist(c, table, hier.get(c)).to_csv(hpaths[c], index=False)
    lv = table.cells[dims].astype(str).copy()
    lv["primary"] = (levels["status"] == "primary").astype(int).to_numpy()
    lv["lower"] = levels["lower"].to_numpy()
    lv["upper"] = levels["upper"].to_numpy()
    lv.to_csv(os.path.join(folder, "levels.csv"), index=False)
    return {"kind": "count" if values is None else "sum", "dims": dims, "hier": hpaths,
            "rule": peer_rule, "data": os.path.join(folder, "data.csv"),
            "levels": os.path.join(folder, "levels.csv"), "align": True}


def peers_available() -> tuple[bool, str]:
    rlib = os.environ.get("PDANON_RLIB", "/work/rlib")
    if shutil.which("Rscript") is None:
        return False, "Rscript is not on PATH (see docs/tables.md, 'Running the peers')"
    if not os.path.isdir(rlib):
        return False, f"the R library folder {rlib} is missing (set PDANON_RLIB)"
    return True, rlib


def _memory_cap(gib: float):
    """A preexec_fn capping the peer's address space (sdcTable's HITAS and OPT grew to 16 and
    23 GB on the 20k table, and the kernel's OOM killer stopped them on a 24 GB machine shared
    with other jobs): past the cap R fails with an allocation error instead."""
    def cap():
        limit = int(gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return cap


def run_measured(cmd: list, *, env=None, timeout: float, preexec_fn=None,
                 folder: str) -> tuple[int | None, str, float]:
    """Run ``cmd`` in a child process; (exit status or None when killed at ``timeout``, its
    output, the child's peak resident memory in MiB from ``wait4``'s ``ru_maxrss``: every
    page the process touched, the interpreter and its libraries included)."""
    out_path = os.path.join(folder, f"child_{time.monotonic_ns()}.txt")
    with open(out_path, "w") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                preexec_fn=preexec_fn)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                proc.returncode = -9
                return None, open(out_path).read(), usage.ru_maxrss / 1024
            time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(status)
    with open(out_path) as fh:
        text = fh.read()
    return proc.returncode, text, usage.ru_maxrss / 1024


def run_ours(name: str, method: str, time_limit: float, folder: str, timeout: float):
    """pdanon's ``protect`` in a fresh Python process (the same seeded microdata and table),
    so its peak memory is measured as the peers' is; returns the pattern, the primary
    cells, the seconds of the ``protect`` call alone, whether a warning was raised, whether
    the pattern is proven optimal, and the peak MiB."""
    result = os.path.join(folder, f"ours_{name}_{method}.npz")
    code, text, peak = run_measured(
        [sys.executable, os.path.abspath(__file__), "--child", name, method, str(time_limit),
         result], timeout=timeout, folder=folder)
    if code != 0:
        raise RuntimeError(f"pdanon {method} on {name} failed: {text.strip()[-400:]}")
    got = np.load(result)
    return (got["mask"], got["prim"], float(got["seconds"]), bool(got["warned"]),
            bool(got["optimal"]), peak)


def child(name: str, method: str, time_limit: float, result: str) -> None:
    """The child's side of :func:`run_ours`."""
    spec = tables(microdata())[name]
    table = build(spec)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        started = time.perf_counter()
        p = table.protect(spec[5], method=method, time_limit=time_limit)
        seconds = time.perf_counter() - started
    np.savez(result, mask=(p.cells["status"] != "safe").to_numpy(),
             prim=(p.cells["status"] == "primary").to_numpy(), seconds=seconds,
             warned=bool(caught), optimal=bool(p.info.get("optimal")))


def run_peer(shared: dict, tool: str, method: str, folder: str, rlib: str, time_limit: float,
             timeout: float, memory: float = 8.0) -> tuple[pd.DataFrame | None, dict]:
    tag = f"{tool}_{method or 'default'}"
    spec = dict(shared, tool=tool, method=method, time_limit=time_limit,
                out=os.path.join(folder, f"out_{tag}.csv"),
                info=os.path.join(folder, f"info_{tag}.json"))
    path = os.path.join(folder, f"spec_{tag}.json")
    with open(path, "w") as fh:
        json.dump(spec, fh)
    env = dict(os.environ, R_LIBS=rlib)
    started = time.perf_counter()
    code, text, peak = run_measured(["Rscript", R_SCRIPT, path], env=env, timeout=timeout,
                                    preexec_fn=_memory_cap(memory), folder=folder)
    if code is None:
        return None, {"error": f"no result within {timeout:g} s (killed)",
                      "peak_mib": peak}
    info = {}
    if os.path.exists(spec["info"]):
        with open(spec["info"]) as fh:
            info = json.load(fh)
    info["r_total"] = time.perf_counter() - started
    info["peak_mib"] = peak
    if code != 0 or not os.path.exists(spec["out"]):
        said = text.strip()[-300:]
        info.setdefault("error", said or f"R ended with status {code}")
        return None, info
    out = pd.read_csv(spec["out"], dtype={d: str for d in shared["dims"]}, keep_default_na=False)
    return out, info


def mask_of(table, out: pd.DataFrame, column: str) -> tuple[np.ndarray, int]:
    """A peer's column mapped onto pdanon's cells by labels; (mask, peer cells not found)."""
    dims = table.dimensions
    ours = pd.MultiIndex.from_frame(table.cells[dims].astype(str))
    theirs = pd.MultiIndex.from_frame(out[dims].astype(str))
    pos = ours.get_indexer(theirs)
    mask = np.zeros(len(table.cells), dtype=bool)
    hit = pos >= 0
    mask[pos[hit]] = out[column].to_numpy()[hit].astype(bool)
    return mask, int((~hit).sum())


def _cell(table, i) -> str:
    return "/".join(str(table.cells[d].iat[i]) for d in table.dimensions)


def unsafe_cells(table, levels, rules, mask) -> list[dict]:
    """pdanon's judgement of a pattern: every primary cell of pdanon's whose attacker range is
    narrower than its levels require, or that the pattern publishes.

    Up to :data:`FULL_AUDIT_CELLS` cells this is :func:`pdanon.tables.audit` (every withheld
    cell's exact range: two linear programs per cell). Above, those programs over a table of
    tens of thousands of cells take hours, so the check is the one ``protect`` itself applies
    before returning a pattern (:func:`pdanon.tables.deviations.uncovered`: per primary cell
    and direction, one program stopped at the first table that reaches the required bound,
    reusing the tables found); the attacker's exact bound is then solved for the failing
    cells only."""
    x = table.cells["value"].to_numpy(dtype=float)
    lo = levels["lower"].to_numpy()
    up = levels["upper"].to_numpy()
    out = []

    def add(i, attacker):
        out.append({"cell": _cell(table, i), "value": x[i],
                    "required": f"[{x[i] - lo[i]:g}, {x[i] + up[i]:g}]", "attacker": attacker})

    if len(x) <= FULL_AUDIT_CELLS:
        a = audit(table, suppressed=mask, rules=rules)
        for i, (_, c) in zip(np.flatnonzero(mask), a.cells.iterrows()):
            if not c["safe"]:
                add(i, f"[{c['low']:g}, {c['high']:g}]")
    else:
        A = table.constraints.astype(np.float64).tocsr()
        todo = [b for b in blocks(levels) if mask[b.cell]]
        big = float(x.max() + max((abs(b.level) for b in todo), default=0.0) + 1.0)
        dev = Deviations(A, x, big, tuple(d.n_nodes for d in table.dims), table.dims)
        for b in uncovered(dev, todo, mask):
            p, v = b.cell, b.level
            t, _ = dev.best(p, v, mask)
            t = 0.0 if t is None else (np.floor(t + 1e-6) if table.is_count else t)
            add(p, f"{'up to' if v > 0 else 'down to'} {x[p] + np.sign(v) * t:g}")
    for i in np.flatnonzero((levels["status"] == "primary").to_numpy() & ~mask):
        add(i, "published")
    return out


def holders_unsafe(table, levels, mask) -> str:
    """Sums: the primary cells a sole contributor could narrow below their levels, knowing
    its own cells (pdanon's ``singletons="auto"``; the peers do not model it): "ok", or how
    many cells. Counts of rows: "" (no holder knows a figure)."""
    if table.is_count:
        return ""
    x = table.cells["value"].to_numpy(dtype=float)
    A = table.constraints.astype(np.float64).tocsr()
    base = blocks(levels)
    todo = singleton_blocks(A, levels, table.sole_holder(), base)
    if not todo:
        return "ok"
    big = float(x.max() + max(abs(b.level) for b in todo) + 1.0)
    dev = Deviations(A, x, big, tuple(d.n_nodes for d in table.dims), table.dims)
    bad = {b.cell for b in uncovered(dev, todo, mask)}
    return "ok" if not bad else f"{len(bad)} unsafe"


def row(name, tool, table, levels, rules, mask, tool_primary, seconds, note="", audit_it=True):
    x = table.cells["value"].to_numpy(dtype=float)
    ours = (levels["status"] == "primary").to_numpy()
    bad = unsafe_cells(table, levels, rules, mask) if audit_it else []
    n_bad = len({b["cell"] for b in bad})
    for b in bad:
        b.update({"table": name, "tool/method": tool})
    return {"table": name, "tool/method": tool, "cells": len(x),
            "primary": int(tool_primary.sum()), "secondary": int((mask & ~tool_primary).sum()),
            "withheld": round(float(x[mask].sum()), 1),
            "seconds": "" if seconds is None else round(seconds, 2),
            "audit": "not run" if not audit_it else "ok" if n_bad == 0 else f"{n_bad} unsafe",
            "holders": holders_unsafe(table, levels, mask) if audit_it else "",
            "prim diff": _diff(ours, tool_primary), "note": note}, bad


LINKED_METHODS = ("optimal", "fast")


def linked_rows(built: dict, pairs: dict, rules: dict, methods, time_limit) -> list[dict]:
    """``linkA`` and ``linkB`` together: pdanon's linked protection, then every tool's two
    patterns (each made for its table alone) judged by the linked audit."""
    from pdanon.tables import audit, link
    tables = [built["linkA"], built["linkB"]]
    joined = link(*tables)
    x = joined.union.x
    out = []
    for method in methods:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            started = time.perf_counter()
            p = joined.protect(rules, method=method, time_limit=time_limit)
            seconds = time.perf_counter() - started
        hid = (p.cells["status"] != "safe").to_numpy()
        prim = (p.cells["status"] == "primary").to_numpy()
        bad = int((~p.audit.cells["safe"]).sum())
        out.append({"table": "linkA+B", "tool/method": f"pdanon linked {method}",
                    "cells": len(x), "primary": int(prim.sum()),
                    "secondary": int((hid & ~prim).sum()), "withheld": round(float(x[hid].sum()), 1),
                    "seconds": round(seconds, 2), "audit": "ok" if bad == 0 else f"{bad} unsafe",
                    "note": "time limit: fast pattern" if caught else (
                        "proven optimal" if p.info.get("optimal") else "")})
        print_progress(out[-1])
    for label, masks in pairs.items():
        if "linkA" not in masks or "linkB" not in masks:
            continue
        r = audit(tables, [masks["linkA"], masks["linkB"]], rules=rules)
        bad = int((~r.cells["safe"]).sum())
        hid = np.zeros(len(x), dtype=bool)
        for idx, m in zip(joined.union.ids, (masks["linkA"], masks["linkB"])):
            hid[idx[m]] = True
        out.append({"table": "linkA+B", "tool/method": f"{label} (each alone)",
                    "cells": len(x), "withheld": round(float(x[hid].sum()), 1),
                    "audit": "ok" if bad == 0 else f"{bad} unsafe",
                    "note": "the two patterns made alone, judged by the linked audit"})
        print_progress(out[-1])
    return out


def _diff(ours: np.ndarray, theirs: np.ndarray) -> str:
    """"+a/-b": a cells primary in pdanon only, b in the other rule only."""
    return f"+{int((ours & ~theirs).sum())}/-{int((~ours & theirs).sum())}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", default="2d,3d,linkA,linkB,20k,mag-p,mag-nk")
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="pdanon's optimal method and sdcTable's OPT/HITAS (whole minutes)")
    ap.add_argument("--peer-timeout", type=float, default=300.0,
                    help="a peer run still going after this many seconds is killed")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--peer-memory", type=float, default=8.0,
                    help="GiB of address space a peer run may use (default 8)")
    ap.add_argument("--methods", default=",".join(METHODS),
                    help="pdanon's methods, comma-separated ('' for none)")
    ap.add_argument("--no-audit", action="store_true",
                    help="count and time the patterns without auditing them (the audit of a "
                         "20,000-cell pattern takes minutes)")
    ap.add_argument("--sdctable-levels", action="store_true",
                    help="magnitude tables: give sdcTable pdanon's protection levels too "
                         "(by default it keeps its own, 1 unit; counts always get pdanon's)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the exchanged CSV files (their folder is printed)")
    ap.add_argument("--peers", default=",".join(f"{t}:{m}" if m else t for t, m in PEERS),
                    help="comma-separated tool[:method] (default: all)")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        name, method, limit, result = args.child
        child(name, method, float(limit), result)
        return
    specs = tables(microdata())
    names = [n for n in args.tables.split(",") if n]
    unknown = [n for n in names if n not in specs]
    if unknown:
        ap.error(f"unknown tables {unknown}; the tables are {list(specs)}")
    peers = [tuple((p.split(":") + [""])[:2]) for p in args.peers.split(",") if p]
    ok, rlib = (False, "--no-peers") if args.no_peers else peers_available()
    if not ok:
        print(f"peers skipped: {rlib}; running pdanon alone")
    rows, unsafe_list, notes = [], [], []
    pairs, built = {}, {}  # tool -> {table name: its pattern}; table name -> table
    folder = tempfile.mkdtemp(prefix="pdanon_peers_")
    try:
        for name in names:
            spec = specs[name]
            rules = spec[5]
            table = build(spec)
            levels = primary(table, rules)
            for method in [m for m in args.methods.split(",") if m]:
                mask, prim, seconds, warned, optimal, peak = run_ours(
                    name, method, args.time_limit, folder, args.peer_timeout)
                note = "time limit: fast pattern" if warned else (
                    "proven optimal" if optimal else "")
                r, bad = row(name, f"pdanon {method}", table, levels, rules, mask, prim,
                             seconds, note, not args.no_audit)
                r["peak MiB"] = round(peak)
                rows.append(r)
                unsafe_list += bad
                print_progress(r)
                pairs.setdefault(f"pdanon {method}", {})[name] = mask
            built[name] = table
            if not ok:
                continue
            sub = tempfile.mkdtemp(prefix=f"{name}_", dir=folder)
            shared = export(spec, table, levels, sub)
            shared["levels_sum"] = args.sdctable_levels
            for tool, method in peers:
                out, info = run_peer(shared, tool, method, sub, rlib, args.time_limit,
                                     args.peer_timeout, args.peer_memory)
                label = f"{tool} {method}".strip()
                if out is None:
                    rows.append({"table": name, "tool/method": label, "cells": len(table.cells),
                                 "peak MiB": round(info.get("peak_mib", 0)) or "",
                                 "note": f"failed: {info.get('error', '?')}"[:120]})
                    print_progress(rows[-1])
                    continue
                mask, missing = mask_of(table, out, "suppressed")
                own, _ = mask_of(table, out, "primary_own")
                used, _ = mask_of(table, out, "primary")
                note = f"{missing} peer cells unmatched" if missing else ""
                if info.get("notes"):
                    notes.append(f"{name} {label}: " + "; ".join(np.atleast_1d(info["notes"])))
                if "default_UPL" in info:
                    notes.append(f"{name} {label}: sdcTable's own levels of its primary cells: "
                                 f"UPL {info['default_UPL']}, LPL {info['default_LPL']}")
                r, bad = row(name, label, table, levels, rules, mask, used, info.get("seconds"),
                             note, not args.no_audit)
                r["prim diff"] = _diff((levels["status"] == "primary").to_numpy(), own)
                r["peak MiB"] = round(info["peak_mib"])
                pairs.setdefault(label, {})[name] = mask
                rows.append(r)
                print_progress(r)
                unsafe_list += bad
        if "linkA" in built and "linkB" in built:
            rows += linked_rows(built, pairs, specs["linkA"][5],
                                [m for m in args.methods.split(",") if m in LINKED_METHODS],
                                args.time_limit)
    finally:
        if args.keep:
            print(f"exchanged files kept in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    print()
    print_table([{k: r.get(k, "") for k in ("table", "tool/method", "cells", "primary",
                                              "secondary", "withheld", "seconds", "peak MiB",
                                              "audit", "holders", "prim diff", "note")}
                 for r in rows])
    if unsafe_list:
        print("\nCells pdanon's audit finds unsafe (required range vs the attacker's):")
        print_table([{k: u[k] for k in ("table", "tool/method", "cell", "value", "required",
                                         "attacker")} for u in unsafe_list])
    if notes:
        print("\nNotes:")
        for n in dict.fromkeys(notes):
            print(" ", n)


def print_progress(r: dict) -> None:
    print(f"  {r['table']:7} {r['tool/method']:28} {r.get('secondary', '')!s:>6} "
          f"{r.get('withheld', '')!s:>10} {r.get('seconds', '')!s:>8} "
          f"{r.get('peak MiB', '')!s:>6} "
          f"{r.get('audit', '')} {r.get('note', '')}", flush=True)


if __name__ == "__main__":
    main()
