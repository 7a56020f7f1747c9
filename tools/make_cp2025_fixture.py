"""Freeze outputs of the reference library cp2025 1.0.3 for tests/compat/test_cp2025.py.

Run from the repository root with an interpreter that has the reference installed (it does not
import pdanon), e.g. a virtualenv made with ``python3 -m venv ref && ref/bin/pip install
cp2025==1.0.3``::

    PYTHONHASHSEED=0 ref/bin/python tools/make_cp2025_fixture.py

It writes ``tests/data/cp2025_reference.json``: deterministic random inputs, the reference's
outputs and counts for every deterministic algorithm, the groups behind the TimeOptimal
outputs, metric values, helper outputs, the reference's public module names, and the results
of the documentation's code examples. ``--live N`` prints (to stdout, JSON) only freshly
generated cases with seed N, for the live comparison test.

Cells are tagged: ``["v", value]``, ``["nan"]``, ``["r", min, max, kind]`` (a range),
``["s", [values...]]`` (a set).
"""

from __future__ import annotations

import ast
import json
import math
import pathlib
import sys
import time

import numpy as np
import pandas as pd

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository
OUT = ROOT / "tests" / "data" / "cp2025_reference.json"


# ============================================================================ encoding


def enc(v):
    from cp2025.utility.GeneralizationRange import GeneralizationRange

    if isinstance(v, GeneralizationRange):
        if v.column_type == "unordered":
            return ["s", sorted((plain(x) for x in v.values_set), key=repr)]
        return ["r", plain(v.min), plain(v.max), v.column_type]
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ["nan"]
    return ["v", plain(v)]


def plain(v):
    if isinstance(v, np.generic):
        return v.item()
    return v


def enc_table(t):
    if t is None:
        return None
    if isinstance(t, pd.DataFrame):
        return {"frame": [[enc(v) for v in row] for row in t.to_numpy(dtype=object).tolist()],
                "columns": [plain(c) for c in t.columns]}
    rows = t.tolist() if isinstance(t, np.ndarray) else t
    return [[enc(v) for v in row] for row in rows]


def enc_count(c):
    return None if c is None else plain(c)


# ============================================================================ inputs


def column(rng, kind, n):
    """Values of one column: small ranges so that ties and equal values are frequent."""
    if kind == "real":
        if rng.random() < 0.5:
            return rng.integers(0, 6, n).tolist()
        return np.round(rng.uniform(0, 10, n), 1).tolist()
    if kind == "ordered":
        if rng.random() < 0.5:
            return rng.integers(0, 5, n).tolist()
        return [["lo", "mid", "hi", "top"][i] for i in rng.integers(0, 4, n)]
    return [["a", "b", "c", "d"][i] for i in rng.integers(0, rng.integers(2, 5), n)]


def table(rng, kinds, n, sens=0, sens_kind="unordered"):
    cols = [column(rng, k, n) for k in kinds]
    for _ in range(sens):
        if sens_kind == "real":
            cols.append(rng.integers(0, 8, n).tolist())
        else:
            cols.append([["x", "y", "z"][i] for i in rng.integers(0, 3, n)])
    return [list(r) for r in zip(*cols)]


def groups_time_optimal(qi, types, sensitives=None, k=2, l=None, hamming=False):
    from cp2025.utility.diatances import dfs_hamming_distances, dfs_rank_general_dist
    from cp2025.utility.groupping import group_by_dist, group_by_dist_with_l_diverse

    q = np.array(qi, dtype=object)
    d = dfs_hamming_distances(q) if hamming else dfs_rank_general_dist(q, types)
    if l is None:
        return group_by_dist(d, k)
    return group_by_dist_with_l_diverse(d, np.array(sensitives, dtype=object), k, l)


# ============================================================================ cases


def time_optimal_cases(rng, count):
    from cp2025.algorithms.AggregationKAnonymityTimeOptimal import AggregationKAnonymityTimeOptimal
    from cp2025.algorithms.AggregationLDiversityTimeOptimal import AggregationLDiversityTimeOptimal
    from cp2025.algorithms.GeneralizationKAnonymityTimeOptimal import GeneralizationKAnonymityTimeOptimal
    from cp2025.algorithms.GeneralizationLDiversityTimeOptimal import GeneralizationLDiversityTimeOptimal
    from cp2025.algorithms.SuppressionKAnonymityTimeOptimal import SuppressionKAnonymityTimeOptimal
    from cp2025.algorithms.SuppressionLDiversityTimeOptimal import SuppressionLDiversityTimeOptimal

    out = []
    for case in range(count):
        method = ["s", "g", "a"][case % 3]
        model = ["k", "l"][(case // 3) % 2]
        q = int(rng.integers(1, 5))
        kinds = [["real", "ordered", "unordered"][i] for i in rng.integers(0, 3, q)]
        n = int(rng.integers(3, 28))
        k = int(rng.integers(1, 5))
        l = int(rng.integers(1, 4))
        sens = 1 if model == "l" else int(rng.integers(0, 2))
        rows = table(rng, kinds, n, sens)
        s_ids = [q] if sens else None
        if model == "k":
            alg = {"s": lambda: SuppressionKAnonymityTimeOptimal(k),
                   "g": lambda: GeneralizationKAnonymityTimeOptimal(k, list(kinds)),
                   "a": lambda: AggregationKAnonymityTimeOptimal(k, list(kinds))}[method]()
        else:
            alg = {"s": lambda: SuppressionLDiversityTimeOptimal(k, l),
                   "g": lambda: GeneralizationLDiversityTimeOptimal(k, l, list(kinds)),
                   "a": lambda: AggregationLDiversityTimeOptimal(k, l, list(kinds))}[method]()
        res = alg.depersonalize([list(r) for r in rows], sensitives_ids=s_ids)
        groups = None
        if n >= k:
            qi = [r[:q] for r in rows]
            sv = [r[q:] for r in rows]
            groups = groups_time_optimal(qi, kinds, sv, k, l if model == "l" else None,
                                         hamming=method == "s")
        out.append({"family": "time_optimal", "method": method, "model": model, "k": k,
                    "l": l, "kinds": kinds, "input": rows, "s_ids": s_ids,
                    "output": enc_table(res[0]), "counts": [enc_count(c) for c in res[1:]],
                    "groups": groups})
    return out


def datafly_cases(rng, count):
    from cp2025.algorithms.Datafly import Datafly

    out = []
    for case in range(count):
        q = int(rng.integers(1, 4))
        kinds = [["real", "ordered"][i] for i in rng.integers(0, 2, q)]
        n = int(rng.integers(3, 25))
        k = int(rng.integers(1, 5))
        lines = None if rng.random() < 0.5 else int(rng.integers(0, 4))
        rows = table(rng, kinds, n)
        res = Datafly(k, list(kinds), k_suppressed_lines=lines).depersonalize(
            [list(r) for r in rows])
        out.append({"family": "datafly", "k": k, "kinds": kinds, "lines": lines, "input": rows,
                    "output": enc_table(res[0]), "counts": [enc_count(c) for c in res[1:]]})
    return out


def greedy_cases(rng, count):
    from cp2025.algorithms.GeneralizationGreedyByOneEqualSizedGroups import (
        GeneralizationGreedyByOneEqualSizedGroups,
    )

    out = []
    for case in range(count):
        q = int(rng.integers(1, 4))
        kinds = [["real", "ordered"][i] for i in rng.integers(0, 2, q)]
        n = int(rng.integers(3, 25))
        k = int(rng.integers(1, 5))
        rows = table(rng, kinds, n)
        res = GeneralizationGreedyByOneEqualSizedGroups(k, list(kinds)).depersonalize(
            [list(r) for r in rows])
        out.append({"family": "greedy", "k": k, "kinds": kinds, "input": rows,
                    "output": enc_table(res[0]), "counts": [enc_count(c) for c in res[1:]]})
    return out


def baseline_cases(rng):
    from cp2025.algorithms.SuppressionKAnonymityBaseline import SuppressionKAnonymityBaseline
    from cp2025.algorithms.SuppressionLDiversityBaseline import SuppressionLDiversityBaseline
    from cp2025.algorithms.SuppressionTClosenessBaseline import SuppressionTClosenessBaseline

    out = []
    specs = [("k", 4, 3), ("k", 5, 2), ("k", 6, 2), ("k", 3, 4), ("l", 4, 3), ("l", 6, 2),
             ("t", 4, 3), ("t", 5, 2), ("t", 6, 2)]
    for model, n, q in specs:
        kinds = ["unordered"] * q
        rows = table(rng, kinds, n, 1 if model != "k" else 0,
                     "real" if model == "t" and n == 5 else "unordered")
        k = int(rng.integers(2, 3))
        s_ids = [q] if model != "k" else None
        t = float(np.round(rng.uniform(0.05, 0.3), 3))
        s_types = ["real" if n == 5 else "unordered"]
        if model == "k":
            alg = SuppressionKAnonymityBaseline(k)
        elif model == "l":
            alg = SuppressionLDiversityBaseline(k, 2)
        else:
            alg = SuppressionTClosenessBaseline(k, t, sensitives_types=list(s_types))
        started = time.perf_counter()
        res = alg.depersonalize([list(r) for r in rows], sensitives_ids=s_ids)
        out.append({"family": "baseline", "model": model, "k": k, "l": 2, "t": t,
                    "s_types": s_types, "input": rows, "s_ids": s_ids,
                    "output": enc_table(res[0]), "counts": [enc_count(c) for c in res[1:]],
                    "seconds": round(time.perf_counter() - started, 2)})
    return out


def group_join_cases(rng, count):
    from cp2025.algorithms.groupjoin import (
        GroupJoinAggregation,
        GroupJoinDepersonalizator,
        GroupJoinGeneralization,
        GroupJoinKAnonymity,
        GroupJoinLDiversity,
        GroupJoinSuppression,
        GroupJoinTCloseness,
    )
    from cp2025.algorithms.GeneralizationKAnonymityGroupJoin import (
        GeneralizationKAnonymityGroupJoin,
    )

    out = []
    for case in range(count):
        method = ["s", "g", "a"][case % 3]
        model = ["k", "l", "t"][(case // 3) % 3]
        q = int(rng.integers(1, 4))
        kinds = [["real", "unordered"][i] for i in rng.integers(0, 2, q)]
        n = int(rng.integers(4, 14))
        k = int(rng.integers(2, 4))
        rows = table(rng, kinds, n, 1 if model != "k" else 0)
        s_ids = [q] if model != "k" else None
        outputs = []
        for seed in range(5):
            m = {"s": lambda: GroupJoinSuppression(),
                 "g": lambda: GroupJoinGeneralization(list(kinds)),
                 "a": lambda: GroupJoinAggregation(list(kinds))}[method]()
            metric = {"k": lambda: GroupJoinKAnonymity(k, seed=seed),
                      "l": lambda: GroupJoinLDiversity(k, 2, seed=seed),
                      "t": lambda: GroupJoinTCloseness(k, 0.3, ["unordered"], seed=seed)}[model]()
            try:
                res = GroupJoinDepersonalizator(m, metric).depersonalize(
                    [list(r) for r in rows], sensitives_ids=s_ids)
                outputs.append({"output": enc_table(res[0]),
                                "counts": [enc_count(c) for c in res[1:]]})
            except Exception as exc:  # the reference crashes on infeasible l
                outputs.append({"error": type(exc).__name__})
        out.append({"family": "group_join", "method": method, "model": model, "k": k, "l": 2,
                    "t": 0.3, "kinds": kinds, "input": rows, "s_ids": s_ids,
                    "seeds": outputs})
    for case in range(count // 4):
        q = int(rng.integers(1, 4))
        kinds = [["real", "unordered"][i] for i in rng.integers(0, 2, q)]
        n = int(rng.integers(4, 14))
        k = int(rng.integers(2, 4))
        rows = table(rng, kinds, n)
        with np.errstate(all="ignore"):
            res = GeneralizationKAnonymityGroupJoin(k, list(kinds)).depersonalize(
                [list(r) for r in rows])
        out.append({"family": "gk_group_join", "k": k, "kinds": kinds, "input": rows,
                    "output": enc_table(res[0]), "counts": [enc_count(c) for c in res[1:]]})
    return out


def io_cases():
    """Input/output types, column dropping, None outputs, 'left' errors."""
    from cp2025.algorithms.IdentifierHasher import IdentifierHasher
    from cp2025.algorithms.SuppressionKAnonymityTimeOptimal import SuppressionKAnonymityTimeOptimal

    rows = [["ann", 1, "x", 5], ["bob", 1, "y", 6], ["cid", 2, "x", 7], ["dan", 2, "y", 8]]
    out = []
    calls = [
        ("list", {}, 2), ("list", {"identifiers_ids": [0], "sensitives_ids": [3]}, 2),
        ("list", {"identifiers_ids": [0], "quasi_identifiers_ids": [1]}, 2),
        ("list", {"sensitives_ids": [3]}, 9), ("list", {"identifiers_ids": [0]}, 9),
        ("list", {"identifiers_ids": [0], "sensitives_ids": [2, 3]}, 9),
        ("ndarray", {"identifiers_ids": [0], "sensitives_ids": [3]}, 2),
        ("ndarray", {"sensitives_ids": [3]}, 9),
        ("frame", {"sensitives_ids": [3]}, 2),
        ("frame", {"identifiers_ids": [0], "sensitives_ids": [3]}, 2),
        ("list", {"identifiers_ids": "left", "sensitives_ids": "left"}, 2),
        ("list", {"identifiers_ids": [0], "quasi_identifiers_ids": [1, 2],
                  "sensitives_ids": "left"}, 2),
    ]
    for kind, kwargs, k in calls:
        data = {"list": lambda: [list(r) for r in rows],
                "ndarray": lambda: np.array(rows, dtype=object),
                "frame": lambda: pd.DataFrame(rows, columns=["name", "age", "sex", "d"])}[kind]()
        try:
            res = SuppressionKAnonymityTimeOptimal(k).depersonalize(data, **kwargs)
            rec = {"output": enc_table(res[0]), "type": type(res[0]).__name__,
                   "counts": [enc_count(c) for c in res[1:]]}
        except Exception as exc:
            rec = {"error": type(exc).__name__, "message": str(exc)}
        out.append({"family": "io", "input_type": kind, "kwargs": kwargs, "k": k,
                    "input": rows, **rec})
    for kind in ("list", "ndarray", "frame"):
        data = {"list": lambda: [list(r) for r in rows],
                "ndarray": lambda: np.array(rows, dtype=object),
                "frame": lambda: pd.DataFrame(rows, columns=["name", "age", "sex", "d"])}[kind]()
        try:
            res = IdentifierHasher().depersonalize(data, identifiers_ids=[0, 2],
                                                   sensitives_ids=[3])
            rec = {"output": enc_table(res[0]), "type": type(res[0]).__name__,
                   "counts": [enc_count(c) for c in res[1:]]}
        except Exception as exc:
            rec = {"error": type(exc).__name__, "message": str(exc)}
        out.append({"family": "hasher", "input_type": kind, "input": rows, **rec})
    empty = SuppressionKAnonymityTimeOptimal(2).depersonalize([])
    out.append({"family": "empty", "output": [], "counts": list(empty[1:])})
    return out


def metric_cases(rng, count):
    from cp2025.algorithms.GeneralizationKAnonymityTimeOptimal import GeneralizationKAnonymityTimeOptimal
    from cp2025.algorithms.SuppressionKAnonymityTimeOptimal import SuppressionKAnonymityTimeOptimal
    from cp2025.utility import metrics as M
    from cp2025.utility.GeneralizationRange import GeneralizationRange

    out = []
    for case in range(count):
        q = int(rng.integers(1, 4))
        kinds = [["real", "ordered", "unordered"][i] for i in rng.integers(0, 3, q)]
        n = int(rng.integers(4, 20))
        k = int(rng.integers(2, 4))
        s_kind = "real" if case % 3 == 0 else "unordered"
        rows = table(rng, kinds, n, 1, s_kind)
        qi0 = np.array([r[:q] for r in rows], dtype=object)
        s = np.array([r[q:] for r in rows], dtype=object)
        if case % 2:
            # correct generalization of the reference's TimeOptimal groups (its own recoding
            # has the range-maximum defect, whose degenerate ranges would test the defect, not
            # the metrics)
            groups = groups_time_optimal([r[:q] for r in rows], kinds, k=k)
            qa = qi0.copy()
            for g in groups:
                for j, kd in enumerate(kinds):
                    vals_g = [qi0[i, j] for i in g]
                    if all(v == vals_g[0] for v in vals_g):
                        continue
                    cell = (GeneralizationRange(None, None, "unordered", np.array(vals_g))
                            if kd == "unordered" else GeneralizationRange(min(vals_g), max(vals_g), kd))
                    for i in g:
                        qa[i, j] = cell
        else:
            anon = SuppressionKAnonymityTimeOptimal(k).depersonalize([r[:q] for r in rows])[0]
            qa = np.empty((n, q), dtype=object)
            for i, r in enumerate(anon):
                for j, v in enumerate(r):
                    qa[i, j] = v
        vals = {}
        t_types = [s_kind]
        calls = {
            "find_k_anonimus": lambda: M.find_k_anonimus(qa),
            "is_k_anonimus": lambda: M.is_k_anonimus(qa, k),
            "find_l_diverse": lambda: M.find_l_diverse(qa, s),
            "is_l_diverse": lambda: M.is_l_diverse(qa, s, k, 2),
            "find_t_close": lambda: M.find_t_close(qa, s, t_types),
            "find_t_close_entropy": lambda: M.find_t_close(qa, s, t_types, True),
            "is_t_close": lambda: M.is_t_close(qa, s, t_types, k, 0.2),
            "adversarial_knowledge_gain": lambda: M.adversarial_knowledge_gain(qa, s[:, 0]),
            "adversarial_accuracy_gain": lambda: M.adversarial_accuracy_gain(qa, s[:, 0]),
            "average_equivalence_class_size": lambda: M.average_equivalence_class_size(qa),
            "distinctness": lambda: M.distinctness(qa),
            "changed_proportion": lambda: M.changed_proportion(qi0, qa),
            "non_uniform_entropy": lambda: M.non_uniform_entropy(qa),
            "entropy_based_information_loss": lambda: M.entropy_based_information_loss(qi0, qa),
            "my_by_element_distance": lambda: M.my_by_element_distance(qi0, qa.copy(), kinds),
        }
        for name, fn in calls.items():
            try:
                with np.errstate(all="ignore"):
                    v = fn()
                vals[name] = plain(bool(v) if isinstance(v, (bool, np.bool_)) else v)
            except Exception as exc:
                vals[name] = {"error": type(exc).__name__}
        out.append({"family": "metrics", "kinds": kinds, "k": k, "s_kind": s_kind,
                    "original": rows, "anonymized": enc_table(qa), "values": vals})
    return out


def utility_cases(rng):
    from cp2025.utility import algorithms as UA
    from cp2025.utility import diatances as D
    from cp2025.utility import groupping as G
    from cp2025.utility import metrics as M
    from cp2025.utility import statistics as S
    from cp2025.utility import utility as U
    from cp2025.utility.GeneralizationRange import GeneralizationRange, join_ordered, join_unordered

    out = []
    for case in range(12):
        q = int(rng.integers(1, 4))
        kinds = [["real", "ordered", "unordered"][i] for i in rng.integers(0, 3, q)]
        n = int(rng.integers(3, 12))
        rows = table(rng, kinds, n, 1)
        qi = np.array([r[:q] for r in rows], dtype=object)
        s = np.array([r[q:] for r in rows], dtype=object)
        k = int(rng.integers(1, 4))
        dist = D.dfs_rank_general_dist(qi, kinds)
        ham = D.dfs_hamming_distances(qi)
        groups = G.group_by_dist(dist, k)
        lgroups = G.group_by_dist_with_l_diverse(dist, s, k, 2)
        rec = {"family": "utility", "kinds": kinds, "k": k, "input": rows,
               "dfs_rank_general_dist": dist.tolist(), "dfs_hamming_distances": ham.tolist(),
               "group_by_dist": groups, "group_by_dist_with_l_diverse": lgroups}
        if all(kd != "unordered" for kd in kinds) and all(
                isinstance(v, (int, float)) for v in qi.ravel()):
            rec["dfs_rank_distances"] = D.dfs_rank_distances(qi).tolist()
        n_sup, sup = UA.suppression(groups, qi)
        gen, n_gen = UA.generalization(groups, qi, kinds)
        agg, n_agg = UA.aggregation(groups, qi, kinds)
        rec.update({"suppression": [int(n_sup), enc_table(sup)],
                    "generalization": [enc_table(gen), int(n_gen)],
                    "aggregation": [enc_table(agg), int(n_agg)]})
        rec["count_column_params_for_my_loss"] = [
            p if kd == "real" else ([] if kd == "unordered" else None)
            for p, kd in zip(U.count_column_params_for_my_loss(qi, kinds), kinds)]
        rec["count_column_params_for_my_loss"] = [
            [plain(x) for x in p] if isinstance(p, list) else p
            for p in rec["count_column_params_for_my_loss"]]
        col = s[:, 0].tolist()
        rec["mode"] = S.mode(col)
        rec["get_count_dict"] = list(M.get_count_dict(col).items())
        rec["get_elements_frequencies"] = [sorted(set(col)),
                                           M.get_elements_frequencies(col, sorted(set(col))).tolist()]
        real = np.array(rng.integers(0, 9, n), dtype=float)
        rec["real_sample"] = real.tolist()
        rec["real_sample_distance"] = float(M.real_sample_distance(real[: n // 2 + 1], real))
        rec["categorical_sample_distance"] = float(M.categorical_sample_distance(
            s[: n // 2 + 1, 0], s[:, 0]))
        out.append(rec)
    joins = [
        ["ordered", 1, 3, enc(join_ordered(1, 3, "ordered"))],
        ["ordered", 2, 2, enc(join_ordered(2, 2, "real"))],
        ["unordered", "a", "b", enc(join_unordered("a", "b"))],
    ]
    out.append({"family": "joins", "cases": joins,
                "fill_left_columns_ids": U.fill_left_columns_ids(6, [0, 2], [5]),
                "ordering": bool(GeneralizationRange(1, 4, "real") < GeneralizationRange(5, 6,
                                                                                        "real"))})
    return out


def public_names():
    import cp2025

    root = pathlib.Path(cp2025.__file__).parent
    names = {}
    for p in sorted(root.rglob("*.py")):
        mod = ".".join(p.relative_to(root.parent).with_suffix("").parts)
        if mod.endswith(".__init__"):
            mod = mod[: -len(".__init__")]
        tree = ast.parse(p.read_text())
        found = []
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                found.append(node.name)
            elif isinstance(node, ast.ImportFrom) and node.module and (
                    node.module.startswith("cp2025") or node.module == "statistics"):
                found += [a.name for a in node.names if a.name != "*"]
        names[mod] = sorted(set(found))
    return names


def signatures():
    """Parameter names and kinds of every public class's constructor and public methods."""
    import importlib
    import inspect

    out = {}
    for mod, names in public_names().items():
        m = importlib.import_module(mod)
        for name in names:
            obj = getattr(m, name, None)
            if not inspect.isclass(obj) or obj.__module__ != mod:
                continue
            for meth in ["__init__"] + [a for a, v in vars(obj).items()
                                        if callable(v) and not a.startswith("_")]:
                params = inspect.signature(getattr(obj, meth)).parameters.values()
                out[f"{mod}.{name}.{meth}"] = [[p.name, p.kind.name] for p in params]
    return out


def seed_examples():
    """The documentation's code examples as the reference runs them (fixed where the text has
    typos: undefined names, a stray bracket)."""
    import io
    from contextlib import redirect_stdout

    from cp2025.algorithms.AggregationKAnonymityTimeOptimal import AggregationKAnonymityTimeOptimal
    from cp2025.algorithms.AggregationLDiversityTimeOptimal import AggregationLDiversityTimeOptimal
    from cp2025.algorithms.Datafly import Datafly
    from cp2025.algorithms.GeneralizationGreedyByOneEqualSizedGroups import (
        GeneralizationGreedyByOneEqualSizedGroups,
    )
    from cp2025.algorithms.GeneralizationKAnonymityTimeOptimal import GeneralizationKAnonymityTimeOptimal
    from cp2025.algorithms.GeneralizationLDiversityTimeOptimal import GeneralizationLDiversityTimeOptimal
    from cp2025.algorithms.groupjoin import (
        GroupJoinAggregation,
        GroupJoinDepersonalizator,
        GroupJoinTCloseness,
    )
    from cp2025.algorithms.IdentifierHasher import IdentifierHasher
    from cp2025.algorithms.ShufflerInBatches import ShufflerInBatches
    from cp2025.algorithms.SuppressionKAnonymityTimeOptimal import SuppressionKAnonymityTimeOptimal
    from cp2025.algorithms.SuppressionLDiversityTimeOptimal import SuppressionLDiversityTimeOptimal
    from cp2025.utility.GeneralizationRange import GeneralizationRange
    from cp2025.utility.metrics import my_by_element_distance_columns_ordered

    df = [[1, 1, 1, 1], [1, 1, 1, 1], [2, 2, 2, 2], [2, 2, 2, 3]]
    dfl = [[1, 1, 1, 1, 1], [1, 1, 1, 1, 2], [2, 2, 2, 2, 2], [2, 2, 2, 3, 1]]
    dft = [[1, 1, 1, 1, "a"], [1, 1, 1, 2, "b"], [1, 1, 1, 3, "c"], [1, 4, 4, 4, "a"],
           [1, 4, 4, 5, "b"]]
    res = {}

    def rec(name, fn):
        try:
            r = fn()
            res[name] = {"output": enc_table(r[0]), "counts": [enc_count(c) for c in r[1:]]}
        except Exception as exc:
            res[name] = {"error": type(exc).__name__, "message": str(exc)}

    try:
        initial = np.array([[1, 1, 1, 1], [1, 1, 1, 1], [2, 2, 2, 2], [2, 2, 2, 3]])
        dep = np.array([[1, 1, 1, 1], [1, 1, 1, 1], [2, 2, 2, 2.5], [2, 2, 2, 2.5]])
        res["my_by_element_distance_columns_ordered"] = {
            "value": my_by_element_distance_columns_ordered(initial, dep)}
    except Exception as exc:
        res["my_by_element_distance_columns_ordered"] = {"error": type(exc).__name__,
                                                         "message": str(exc)}
    buf = io.StringIO()
    with redirect_stdout(buf):
        if GeneralizationRange(1, 4, "real") < GeneralizationRange(5, 6, "real"):
            print("Correct!")
    rng3 = GeneralizationRange(column_type="unordered", column_values=np.array(["a", "b", "c"]))
    res["GeneralizationRange"] = {"printed": buf.getvalue(), "rng3": enc(rng3)}
    rec("AggregationKAnonymityTimeOptimal",
        lambda: AggregationKAnonymityTimeOptimal(2, ["real"] * 4).depersonalize(df))
    rec("AggregationLDiversityTimeOptimal",
        lambda: AggregationLDiversityTimeOptimal(2, 2, ["real"] * 4).depersonalize(
            dfl, sensitives_ids=[4]))
    rec("Datafly", lambda: Datafly(2, ["real"] * 4).depersonalize(df))
    rec("GeneralizationGreedyByOneEqualSizedGroups",
        lambda: GeneralizationGreedyByOneEqualSizedGroups(2, ["real"] * 4).depersonalize(df))
    rec("GeneralizationKAnonymityTimeOptimal",
        lambda: GeneralizationKAnonymityTimeOptimal(2, ["real"] * 4).depersonalize(df))
    rec("GeneralizationLDiversityTimeOptimal",
        lambda: GeneralizationLDiversityTimeOptimal(2, 2, ["real"] * 4).depersonalize(
            dfl, sensitives_ids=[4]))
    gj = {}
    for seed in range(5):
        r = GroupJoinDepersonalizator(GroupJoinAggregation(["real"] * 4),
                                      GroupJoinTCloseness(2, 0.075, ["unordered"], seed=seed)
                                      ).depersonalize(dft, sensitives_ids=[4])
        gj[seed] = {"output": enc_table(r[0]), "counts": [enc_count(c) for c in r[1:]]}
    res["GroupJoin"] = {"seeds": gj}
    hashed = np.array([[1, 1.1, 1, 1, "a"], [1, 1.2, 1, 2, "b"], [1, 1.3, 1, 3, "c"],
                       [1, 4.4, 4, 4, "a"], [1, 4.5, 4, 5, "b"]])
    rec("IdentifierHasher", lambda: IdentifierHasher().depersonalize(
        hashed, identifiers_ids=[0, 1, 4], quasi_identifiers_ids=[2], sensitives_ids=[3]))
    rec("ShufflerInBatches", lambda: ShufflerInBatches(
        columns_ids_to_shuffle=[1, 2, 3], seed=0).depersonalize(
        [[1, 1, 2, 1], [1, 1, 2, 2], [3, 3, 4, 3], [3, 3, 4, 4]], identifiers_ids=[0, 1],
        sensitives_ids=[3]))
    rec("SuppressionKAnonymityTimeOptimal",
        lambda: SuppressionKAnonymityTimeOptimal(2).depersonalize(df))
    rec("SuppressionLDiversityTimeOptimal",
        lambda: SuppressionLDiversityTimeOptimal(2, 2).depersonalize(dfl, sensitives_ids=[4]))
    from cp2025.algorithms.DistributedDataKAnonymityDepersonalization import (
        DistributedDataOwnerKAnonymityDepersonalizator as Owner,
    )

    qi1 = np.array([[1, 1, 1], [1, 1, 2], [3, 3, 3], [3, 3, 4], [4, 4, 5], [4, 4, 4]],
                   dtype=object)
    qi2 = np.array([[1, 1, 1], [1, 1, 2], [3, 3, 3], [4, 4, 5], [3, 3, 4], [4, 4, 4]],
                   dtype=object)
    dep1 = Owner(qi1, np.array([]), 2, 7, seed=7, quasi_identifiers_types=["real"] * 3)
    dep2 = Owner(qi2, np.array([]), 2, 8, seed=7, quasi_identifiers_types=["real"] * 3)
    dep1.set_other_data_owner(dep2)
    dep2.set_other_data_owner(dep1)
    dep1.exchange_data()
    res["DistributedDataOwnerKAnonymityDepersonalizator"] = {
        "joined_data": enc_table(np.asarray(dep1.joined_data, dtype=object))}
    # the baselines of the documentation (2^16, 2^20 and 2^20 patterns in the reference)
    from cp2025.algorithms.SuppressionKAnonymityBaseline import SuppressionKAnonymityBaseline
    from cp2025.algorithms.SuppressionLDiversityBaseline import SuppressionLDiversityBaseline
    from cp2025.algorithms.SuppressionTClosenessBaseline import SuppressionTClosenessBaseline

    if "--fast" not in sys.argv:
        rec("SuppressionKAnonymityBaseline",
            lambda: SuppressionKAnonymityBaseline(2).depersonalize(df))
        rec("SuppressionLDiversityBaseline",
            lambda: SuppressionLDiversityBaseline(2, 2).depersonalize(dfl, sensitives_ids=[4]))
        rec("SuppressionTClosenessBaseline",
            lambda: SuppressionTClosenessBaseline(2, 0.075, sensitives_types=["unordered"]
                                                  ).depersonalize(dft, sensitives_ids=[4]))
    return res


def generate(seed: int, scale: int = 1, baselines: bool = True) -> dict:
    rng = np.random.default_rng(seed)
    cases = []
    cases += time_optimal_cases(rng, 60 * scale)
    cases += datafly_cases(rng, 30 * scale)
    cases += greedy_cases(rng, 30 * scale)
    if baselines:
        cases += baseline_cases(rng)
    cases += group_join_cases(rng, 72 * scale)
    cases += metric_cases(rng, 24 * scale)
    cases += utility_cases(rng)
    return {"seed": seed, "cases": cases}


def main() -> None:
    if "--live" in sys.argv:
        seed = int(sys.argv[sys.argv.index("--live") + 1])
        data = generate(seed, baselines=False)
        json.dump(data, sys.stdout)
        return
    started = time.perf_counter()
    data = generate(20261129)
    data["cases"] += io_cases()
    data["names"] = public_names()
    data["signatures"] = signatures()
    data["seed_examples"] = seed_examples()
    data["generator"] = {"cp2025": "1.0.3", "numpy": np.__version__, "pandas": pd.__version__,
                         "seconds": round(time.perf_counter() - started, 1)}
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)} ({len(data['cases'])} cases, "
          f"{OUT.stat().st_size / 1e3:.0f} kB, {data['generator']['seconds']} s)")


if __name__ == "__main__":
    main()
