"""pdanon's TimeOptimal classes against the reference cp2025 1.0.3 on many random tables.

Run by hand (not by CI), from the repository root, with pdanon's interpreter; the reference runs
in its own virtualenv (``python3 -m venv ref && ref/bin/pip install cp2025==1.0.3``) through a
subprocess::

    PDANON_CP2025_PYTHON=ref/bin/python python benchmarks/compare_cp2025.py --tables 1000
    python benchmarks/compare_cp2025.py --reference ref/bin/python --tables 1000 --seed 1

Every random table mixes real, ordered and unordered quasi-identifiers with small value ranges
(so that distance ties are frequent; one table in four is 0/1/2 integers, as the reference's own
``test_random_df``) plus one or two sensitive columns, first or last. Each table is anonymized
by the generalization and aggregation classes (k-anonymity and l-diversity) and the suppression
ones, by both libraries. A table counts as *identical* when the groups are the same rows, the
counts are equal and every cell is equal (floats to 1e-12 relative); generalized ranges are
compared with the reference's range maxima corrected to the group's maximum (the documented
defect pdanon fixes, docs/compat.md). "exact ties" counts the tables that exact rational
arithmetic would group differently: ties on paper that floating point decides.

``--save-fixtures PATH`` freezes up to ``--keep`` compared cases (exact-tie cases first) as JSON
for ``tests/compat/test_cp2025.py``. ``--worker`` is the reference side (reads cases on stdin,
prints results; it imports cp2025 and never pdanon).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import subprocess
import sys
import time
import warnings

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
COMBOS = [("g", "k"), ("g", "l"), ("a", "k"), ("a", "l"), ("s", "k"), ("s", "l")]
HEADER = ["class", "tables", "identical", "same groups", "same counts", "floats bitwise",
          "exact ties", "order ties", "differ"]
NAMES = {"g": "Generalization", "a": "Aggregation", "s": "Suppression",
         "k": "KAnonymity", "l": "LDiversity"}


# ============================================================================ random tables


def random_column(rng, kind, n, small):
    """One column of ``kind`` with ties: 0..2 integers (``small``), or a few integers, one-decimal
    floats, short strings; now and then a wide real column."""
    if small:
        return rng.integers(0, 3, n).tolist()
    pick = rng.random()
    if kind == "real":
        if pick < 0.35:
            return rng.integers(0, 7, n).tolist()
        if pick < 0.7:
            return np.round(rng.uniform(-5, 5, n), 1).tolist()
        if pick < 0.85:
            return (rng.integers(0, 5, n) * 0.1).tolist()
        return np.round(rng.uniform(0, 1000, n), 3).tolist()
    if kind == "ordered":
        if pick < 0.5:
            return rng.integers(0, 6, n).tolist()
        return [["lo", "mid", "hi", "top", "max"][i] for i in rng.integers(0, 5, n)]
    return [["a", "b", "c", "d"][i] for i in rng.integers(0, int(rng.integers(2, 5)), n)]


def random_case(rng, index):
    small = rng.random() < 0.25
    q = int(rng.integers(1, 11))
    kinds = [["real", "ordered", "unordered"][i] for i in rng.integers(0, 3, q)]
    n = int(rng.integers(4, 51))
    s = int(rng.integers(1, 3))
    k = int(rng.integers(2, 6))
    l = int(rng.integers(2, min(k, 3) + 1))
    cols = [random_column(rng, kind, n, small) for kind in kinds]
    sens = [[["x", "y", "z", "w"][i] for i in rng.integers(0, int(rng.integers(2, 5)), n)]
            for _ in range(s)]
    first = bool(rng.random() < 0.5)  # sensitive columns first (as test_random_df) or last
    cols = sens + cols if first else cols + sens
    s_ids = list(range(s)) if first else list(range(q, q + s))
    return {"id": index, "kinds": kinds, "k": k, "l": l, "s_ids": s_ids,
            "rows": [list(r) for r in zip(*cols)]}


# ============================================================================ the reference side


def _enc_cell(v):
    if hasattr(v, "column_type"):  # the reference's GeneralizationRange
        if v.column_type == "unordered":
            return ["s", sorted((_plain(x) for x in v.values_set), key=repr)]
        return ["r", _plain(v.min), _plain(v.max), v.column_type]
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ["nan"]
    return ["v", _plain(v)]


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def worker() -> None:
    """Run every (case, method, model) of stdin's JSON under cp2025; print the results."""
    import importlib

    from cp2025.utility.diatances import dfs_hamming_distances, dfs_rank_general_dist
    from cp2025.utility.groupping import group_by_dist, group_by_dist_with_l_diverse

    out = []
    for case in json.load(sys.stdin):
        rows, kinds, s_ids = case["rows"], case["kinds"], case["s_ids"]
        table = np.array(rows, dtype=object)
        q_ids = [j for j in range(table.shape[1]) if j not in s_ids]
        qi, sens = table[:, q_ids], table[:, s_ids]
        for method, model in COMBOS:
            name = NAMES[method] + NAMES[model] + "TimeOptimal"
            cls = getattr(importlib.import_module("cp2025.algorithms." + name), name)
            args = [case["k"]] + ([case["l"]] if model == "l" else [])
            if method != "s":
                args.append(list(kinds))
            res = cls(*args).depersonalize([list(r) for r in rows], sensitives_ids=s_ids)
            groups = None
            if len(rows) >= case["k"]:  # the classes return None counts below k rows
                d = (dfs_hamming_distances(qi) if method == "s" else
                     dfs_rank_general_dist(qi, kinds))
                groups = (group_by_dist(d, case["k"]) if model == "k" else
                          group_by_dist_with_l_diverse(d, sens, case["k"], case["l"]))
            table_out = None if res[0] is None else [[_enc_cell(v) for v in r] for r in res[0]]
            out.append({"id": case["id"], "method": method, "model": model,
                        "output": table_out, "counts": [None if c is None else _plain(c)
                                                        for c in res[1:]],
                        "groups": groups})
    json.dump(out, sys.stdout)


# ============================================================================ pdanon's side


def _dec_cell(cell):
    from pdanon.dtype import GeneralizationRange

    if cell[0] == "v":
        return cell[1]
    if cell[0] == "nan":
        return float("nan")
    if cell[0] == "r":
        return GeneralizationRange(cell[1], cell[2], cell[3])
    return GeneralizationRange(None, None, "unordered", cell[1])


def _same_cell(a, b, tol=1e-12) -> bool:
    """Equal cells; floats to ``tol`` relative (``tol=0``: bit for bit)."""
    from pdanon.dtype import GeneralizationRange

    fa, fb = isinstance(a, float), isinstance(b, float)
    if (fa and math.isnan(a)) or (fb and math.isnan(b)):
        return fa and fb and math.isnan(a) and math.isnan(b)
    ra, rb = isinstance(a, GeneralizationRange), isinstance(b, GeneralizationRange)
    if ra or rb:
        if not (ra and rb) or a.kind != b.kind:
            return False
        if a.kind == "unordered":
            return set(a.values_set) == set(b.values_set)
        return _same_cell(a.min, b.min, tol) and _same_cell(a.max, b.max, tol)
    if fa or fb:
        try:
            return abs(float(a) - float(b)) <= tol * max(1.0, abs(float(a)))
        except (TypeError, ValueError):
            return False
    return a == b


def _same_table(got, ref, tol) -> bool:
    return len(got) == len(ref) and all(
        len(r) == len(s) and all(_same_cell(x, y, tol) for x, y in zip(r, s))
        for r, s in zip(got, ref))


def corrected_reference(case, result):
    """The reference's table with every real/ordered range's maximum set to its group's
    maximum (the reference's is the group's last value)."""
    from pdanon.dtype import GeneralizationRange

    table = [[_dec_cell(c) for c in r] for r in result["output"]]
    if result["method"] != "g" or result["groups"] is None:
        return table
    rows = case["rows"]
    for g in result["groups"]:
        for j in range(len(rows[0])):
            cell = table[g[0]][j]
            if isinstance(cell, GeneralizationRange) and cell.kind != "unordered":
                fixed = GeneralizationRange(cell.min, max(rows[i][j] for i in g), cell.kind)
                for i in g:
                    table[i][j] = fixed
    return table


def pdanon_run(case, method, model):
    """(table, counts, groups as sorted row lists) from pdanon's classic class."""
    from pdanon import algorithms as A
    from pdanon.algorithms._base import partition_rows
    from pdanon.algorithms._grouping import k_model, kl_model

    name = NAMES[method] + NAMES[model] + "TimeOptimal"
    args = [case["k"]] + ([case["l"]] if model == "l" else [])
    if method != "s":
        args.append(list(case["kinds"]))
    res = getattr(A, name)(*args).depersonalize([list(r) for r in case["rows"]],
                                                sensitives_ids=case["s_ids"])
    groups = None
    if res[1] is not None:
        table = np.array(case["rows"], dtype=object)
        q_ids = [j for j in range(table.shape[1]) if j not in case["s_ids"]]
        kinds = ["unordered"] * len(q_ids) if method == "s" else case["kinds"]
        build = k_model(case["k"]) if model == "k" else kl_model(case["k"], case["l"])
        groups = partition_rows(table[:, q_ids], table[:, case["s_ids"]], kinds=kinds,
                                model_for=build, method={"g": "generalize", "a": "aggregate",
                                                         "s": "suppress"}[method],
                                algorithm="nearest")
    return res[0], list(res[1:]), groups


def _rule():
    """tests/_helpers/cp2025.py (the documented rule written out), loaded from its file."""
    import importlib.util

    path = ROOT / "tests" / "_helpers" / "cp2025.py"
    spec = importlib.util.spec_from_file_location("pdanon_tests_cp2025", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rounding_flags(case, result, rule, memo) -> tuple:
    """(exact tie, order tie): would exact arithmetic, or the same distances summed column by
    column (pdanon before it followed the reference's order), group this table differently
    from the reference? Both mean: a tie on paper that floating point decides."""
    if result["groups"] is None or result["method"] == "s":
        return False, False  # the Hamming distance is a count: no rounding
    key = (case["id"], result["model"])
    if key not in memo:
        table = case["rows"]
        q_ids = [j for j in range(len(table[0])) if j not in case["s_ids"]]
        qi = [[r[j] for j in q_ids] for r in table]
        sens = [[r[j] for j in case["s_ids"]] for r in table]
        l = case["l"] if result["model"] == "l" else None
        ref = [sorted(g) for g in result["groups"]]
        memo[key] = tuple(
            [sorted(g) for g in rule.time_optimal_groups(qi, sens, case["kinds"], case["k"], l,
                                                         hamming=False, distances=how)] != ref
            for how in ("exact", "per_column"))
    return memo[key]


def compare(case, result) -> dict:
    got, counts, groups = pdanon_run(case, result["method"], result["model"])
    ref_groups = result["groups"]
    same_groups = (groups is None and ref_groups is None) or (
        groups is not None and ref_groups is not None
        and sorted(sorted(g) for g in groups) == sorted(sorted(g) for g in ref_groups))
    if result["output"] is None or got is None:
        same_table = bitwise = result["output"] is None and got is None
    else:
        ref = corrected_reference(case, result)
        same_table = _same_table(got, ref, 1e-12)
        bitwise = _same_table(got, ref, 0.0)
    return {"groups": same_groups, "table": same_table, "counts": counts == result["counts"],
            "bitwise": bitwise}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference", default=os.environ.get("PDANON_CP2025_PYTHON", ""),
                        help="Python with cp2025 1.0.3 (default: $PDANON_CP2025_PYTHON)")
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save-fixtures", default="", help="write kept cases to this JSON file")
    parser.add_argument("--keep", type=int, default=8)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.worker:
        worker()
        return
    warnings.simplefilter("ignore")  # pdanon's SingleClassWarning on tiny tables
    if not opts.reference or not pathlib.Path(opts.reference).is_file():
        parser.error("give --reference (or PDANON_CP2025_PYTHON): a Python with cp2025 1.0.3")
    rng = np.random.default_rng(opts.seed)
    cases = [random_case(rng, i) for i in range(opts.tables)]
    started = time.perf_counter()
    proc = subprocess.run([opts.reference, __file__, "--worker"], input=json.dumps(cases),
                          capture_output=True, text=True, env=dict(os.environ, PYTHONHASHSEED="0"))
    if proc.returncode:
        sys.exit("the reference failed:\n" + proc.stderr[-3000:])
    results = json.loads(proc.stdout)
    ref_seconds = time.perf_counter() - started
    by_id = {c["id"]: c for c in cases}
    stats, differing, kept = {}, [], []
    rule, memo = _rule(), {}
    started = time.perf_counter()
    for res in results:
        case = by_id[res["id"]]
        verdict = compare(case, res)
        exact_tie, order_tie = rounding_flags(case, res, rule, memo)
        row = stats.setdefault((res["method"], res["model"]), dict.fromkeys(HEADER[1:], 0))
        row["tables"] += 1
        row["same groups"] += verdict["groups"]
        row["same counts"] += verdict["counts"]
        row["floats bitwise"] += verdict["bitwise"]
        row["exact ties"] += exact_tie
        row["order ties"] += order_tie
        ok = verdict["groups"] and verdict["table"] and verdict["counts"]
        row["identical"] += ok
        row["differ"] += not ok
        if not ok:
            differing.append((res["id"], res["method"], res["model"], verdict))
        if exact_tie or order_tie or not ok:
            kept.append({**case, "method": res["method"], "model": res["model"],
                         "output": res["output"], "counts": res["counts"],
                         "groups": res["groups"], "exact_tie": exact_tie,
                         "order_tie": order_tie, "identical": ok})
    ours = time.perf_counter() - started
    print(f"cp2025 1.0.3 vs pdanon, {opts.tables} random tables (seed {opts.seed}); reference "
          f"{ref_seconds:.0f} s, pdanon + checks {ours:.0f} s")
    header = HEADER
    lines = [header] + [[f"{NAMES[m]}{NAMES[mod]}TimeOptimal"] + [str(v) for v in row.values()]
                        for (m, mod), row in stats.items()]
    total = [sum(row[h] for row in stats.values()) for h in header[1:]]
    lines.append(["all"] + [str(v) for v in total])
    widths = [max(len(r[i]) for r in lines) for i in range(len(header))]
    for i, r in enumerate(lines):
        print("  ".join(c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in
                        enumerate(zip(r, widths))))
        if i == 0:
            print("  ".join("-" * w for w in widths))
    for d in differing[:20]:
        print("differs:", d)
    if opts.save_fixtures:
        save_fixtures(pathlib.Path(opts.save_fixtures), kept, opts)


def save_fixtures(path: pathlib.Path, kept: list, opts) -> None:
    """Freeze up to ``opts.keep`` identical cases whose grouping rounding decides (order ties
    first, then exact ties), taking the classes in turn, smaller tables first."""
    kept = sorted((c for c in kept if c["identical"]),
                  key=lambda c: (not c["order_tie"], not c["exact_tie"], len(c["rows"])))
    queues = {}
    for c in kept:
        queues.setdefault((c["method"], c["model"]), []).append(c)
    chosen = []
    while len(chosen) < opts.keep and any(queues.values()):
        for queue in queues.values():
            if queue and len(chosen) < opts.keep:
                chosen.append(queue.pop(0))
    path.write_text(json.dumps({"generator": "benchmarks/compare_cp2025.py", "seed": opts.seed,
                                "tables": opts.tables, "cp2025": "1.0.3", "cases": chosen},
                               separators=(",", ":")) + "\n")
    print(f"wrote {len(chosen)} cases to {path}")


if __name__ == "__main__":
    main()
