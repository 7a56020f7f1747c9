"""pdanon against the reference library cp2025 1.0.3.

The reference's outputs are frozen in tests/data/cp2025_reference.json (made by
tools/make_cp2025_fixture.py under the reference's own interpreter), so these comparisons run
everywhere. When the environment variable ``PDANON_CP2025_PYTHON`` names a Python interpreter
with cp2025 1.0.3 installed, ``test_live_reference_on_fresh_cases`` also generates fresh random
cases with it and compares them (skipped, with the reason, when it is not set).

What must be equal (issue 7): the deterministic algorithms (TimeOptimal family, Datafly, equal
groups, exact counts), every metric and helper — except the documented defects, which pdanon
fixes (docs/compat.md): a generalized range is ``[min, max]`` of its group (the reference's
maximum is the group's *last* value), the ordered ranks of GroupJoin's losses are taken on the
sorted column, and an exact (Baseline) suppression may pick another pattern with the same
minimum count.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import pathlib
import subprocess

import numpy as np
import pandas as pd
import pytest

from pdanon import algorithms as A
from pdanon.dtype import GeneralizationRange
from tests._helpers.cp2025 import (
    FIXTURE,
    dec,
    dec_table,
    fixed_generalization,
    is_nan,
    recode,
    same_cell,
    same_table,
    time_optimal_groups,
)

DATA = FIXTURE
#: A Python interpreter with the reference installed (``python3 -m venv ref &&
#: ref/bin/pip install cp2025==1.0.3``, then ``PDANON_CP2025_PYTHON=ref/bin/python``). When it is
#: set, ``test_live_reference_on_fresh_cases`` runs the generator under it on fresh random cases.
REF_PYTHON = os.environ.get("PDANON_CP2025_PYTHON", "")
GENERATOR = pathlib.Path(__file__).resolve().parents[2] / "tools" / "make_cp2025_fixture.py"


@pytest.fixture(scope="module")
def fixture():
    return json.loads(DATA.read_text())


def cases(fixture, family):
    return [c for c in fixture["cases"] if c["family"] == family]


# ============================================================================ cells


def diff_text(a, b) -> str:
    lines = []
    for i, (r, s) in enumerate(zip(a or [], b or [])):
        if not all(same_cell(x, y) for x, y in zip(r, s)) or len(r) != len(s):
            lines.append(f"row {i}: pdanon {r} reference {s}")
    return "\n".join(lines[:8])


def same_except_maxima(got, ref, rows) -> bool:
    """Equal tables, except that a range's maximum may differ: pdanon's is the largest
    original value of the rows that share the cell (the reference's is the group's last)."""
    for i, (r, s) in enumerate(zip(got, ref)):
        for j, (a, b) in enumerate(zip(r, s)):
            if isinstance(a, GeneralizationRange) and isinstance(b, GeneralizationRange) \
                    and a.kind != "unordered" and b.kind != "unordered":
                members = [rows[m][j] for m in range(len(got)) if same_cell(got[m][j], a)]
                if a.min != b.min or a.max != max(members) or b.max > a.max:
                    return False
            elif not same_cell(a, b):
                return False
    return True


# ============================================================================ TimeOptimal


def _time_optimal(case):
    k, l, kinds = case["k"], case["l"], case["kinds"]
    cls = {("s", "k"): lambda: A.SuppressionKAnonymityTimeOptimal(k),
           ("g", "k"): lambda: A.GeneralizationKAnonymityTimeOptimal(k, kinds),
           ("a", "k"): lambda: A.AggregationKAnonymityTimeOptimal(k, kinds),
           ("s", "l"): lambda: A.SuppressionLDiversityTimeOptimal(k, l),
           ("g", "l"): lambda: A.GeneralizationLDiversityTimeOptimal(k, l, kinds),
           ("a", "l"): lambda: A.AggregationLDiversityTimeOptimal(k, l, kinds)}
    return cls[(case["method"], case["model"])]()


def test_time_optimal_equals_reference(fixture, min_float_ties=1):
    """pdanon's TimeOptimal classes compute the documented rule: groups by the reference's
    floating-point distances (normalized coordinates, numpy's sum, then the count of differing
    unordered cells) with ties to the lower row index, then suppression / aggregation /
    generalization with [min, max] ranges. The reference's groups are that rule's groups in
    every case, so pdanon's tables equal the reference's, except range maxima (the reference's
    maximum is the group's *last* value: the defect pdanon fixes).

    At least ``min_float_ties`` cases are grouped differently by exact arithmetic: ties on
    paper that floating point breaks the other way (the fixture does exercise the rule)."""
    checked = defect_cells = float_ties = 0
    for case in cases(fixture, "time_optimal"):
        rows = [list(r) for r in case["input"]]
        q = len(case["kinds"])
        kinds, method, k = case["kinds"], case["method"], case["k"]
        l = case["l"] if case["model"] == "l" else None
        got = _time_optimal(case).depersonalize(rows, sensitives_ids=case["s_ids"])
        ref = dec_table(case["output"])
        if len(rows) < k or case["groups"] is None:
            assert list(got[1:]) == case["counts"] == [None]
            assert same_table(got[0], ref)
            continue
        qi_rows, sens_rows = [r[:q] for r in rows], [r[q:] for r in rows]
        groups = time_optimal_groups(qi_rows, sens_rows, kinds, k, l, hamming=method == "s")
        assert groups == case["groups"], case
        exact = time_optimal_groups(qi_rows, sens_rows, kinds, k, l, hamming=method == "s",
                                    distances="exact")
        float_ties += [sorted(g) for g in exact] != [sorted(g) for g in groups]
        expected = [e + r[q:] for e, r in zip(recode(qi_rows, groups, kinds, method), rows)]
        assert same_table(got[0], expected), diff_text(got[0], expected)
        assert list(got[1:]) == case["counts"], case
        if method != "g":
            assert same_table(got[0], ref), diff_text(got[0], ref)
        else:
            for g in case["groups"]:  # the reference differs only in maxima = last value
                last = rows[g[-1]]
                for i in g:
                    for j in range(q):
                        a, b = ref[i][j], expected[i][j]
                        if same_cell(a, b):
                            continue
                        defect_cells += 1
                        assert isinstance(b, GeneralizationRange) and b.kind != "unordered"
                        assert a.min == b.min and a.max == last[j] and a.max != b.max
        checked += 1
    assert checked >= 50
    assert float_ties >= min_float_ties
    assert defect_cells > 0  # the fixture does exercise the defect


#: random tables of mixed kinds whose grouping floating-point rounding decides, frozen by
#: ``benchmarks/compare_cp2025.py --save-fixtures`` from its comparison with cp2025 1.0.3
RANDOM_TIES = FIXTURE.parent / "cp2025_time_optimal_random.json"


def test_time_optimal_rounding_ties_equal_reference():
    """Random tables (real, ordered and unordered quasi-identifiers, sensitive columns first or
    last, kinds given per quasi-identifier) on which the reference's grouping depends on its
    floating-point order: pdanon forms the reference's groups, returns its counts and its
    cells (ranges with correct maxima). Summing the same distances column by column (pdanon's
    order before) or exactly groups each of them differently, so these cases do test the
    order."""
    from pdanon.algorithms._base import partition_rows
    from pdanon.algorithms._grouping import k_model, kl_model

    data = json.loads(RANDOM_TIES.read_text())
    assert data["cp2025"] == "1.0.3" and len(data["cases"]) >= 5
    methods = {"g": "generalize", "a": "aggregate", "s": "suppress"}
    for case in data["cases"]:
        rows, s_ids = [list(r) for r in case["rows"]], case["s_ids"]
        got = _time_optimal(case).depersonalize(rows, sensitives_ids=s_ids)
        assert list(got[1:]) == case["counts"], case["id"]
        assert same_except_maxima(got[0], dec_table(case["output"]), rows), \
            diff_text(got[0], dec_table(case["output"]))
        q_ids = [j for j in range(len(rows[0])) if j not in s_ids]
        table = np.array(rows, dtype=object)
        build = k_model(case["k"]) if case["model"] == "k" else kl_model(case["k"], case["l"])
        groups = partition_rows(table[:, q_ids], table[:, s_ids], kinds=case["kinds"],
                                model_for=build, method=methods[case["method"]],
                                algorithm="nearest")
        assert sorted(map(sorted, groups)) == sorted(map(sorted, case["groups"])), case["id"]
        qi_rows = [[r[j] for j in q_ids] for r in rows]
        sens_rows = [[r[j] for j in s_ids] for r in rows]
        l = case["l"] if case["model"] == "l" else None
        assert time_optimal_groups(qi_rows, sens_rows, case["kinds"], case["k"], l,
                                   hamming=False) == case["groups"]
        other = [time_optimal_groups(qi_rows, sens_rows, case["kinds"], case["k"], l,
                                     hamming=False, distances=how)
                 for how in ("per_column", "exact")]
        assert any(sorted(map(sorted, o)) != sorted(map(sorted, case["groups"]))
                   for o in other), case["id"]


# ============================================================================ Datafly, greedy


def _blank_rows(table, q) -> int:
    return sum(all(is_nan(x) for x in row[:q]) for row in table)


def test_datafly_equals_reference(fixture):
    """Identical wherever the reference suppresses no row or at least k, except that a range
    shows only the rows that publish it (the reference's may reach a suppressed row's value);
    where it suppresses fewer than k rows (a blank class an attacker can single out:
    docs/compat.md), pdanon publishes its own rule's table: the accessor's, k-anonymous with
    the blank rows as a class, within the budget."""
    leaky = tightened = 0
    for case in cases(fixture, "datafly"):
        rows = [list(r) for r in case["input"]]
        k, q = case["k"], len(case["kinds"])
        got = A.Datafly(k, case["kinds"], k_suppressed_lines=case["lines"]).depersonalize(rows)
        ref = dec_table(case["output"])
        if 0 < _blank_rows(ref, q) < k:
            leaky += 1
            df = pd.DataFrame(rows)
            qi = {c: kind for c, kind in zip(df.columns[:q], case["kinds"])}
            budget = k - 1 if case["lines"] is None else case["lines"]
            # the classic wrapper keeps the reference's exact bounds (algorithms/_base.py)
            out = df.anon.k_anonymize(k, algorithm="datafly", quasi_identifiers=qi,
                                      max_suppressed_rows=budget, row_order="input",
                                      options={"exact_bounds": True})
            assert same_table(got[0], out.to_numpy().tolist())
            assert out.anon.k_anonymity() >= k
            assert _blank_rows(got[0], q) == 0 or _blank_rows(got[0], q) >= k
            continue
        if _blank_rows(ref, q):
            # a range or set shows the rows that publish it: the reference's cells may reach
            # a value only the suppressed rows hold
            shown = _shown_by_published_rows(ref, rows, q)
            tightened += not same_table(shown, ref)
            ref = shown
            changed = sum(1 for r, s in zip(ref, rows) for x, y in zip(r[:q], s[:q])
                          if not same_cell(x, y))
            assert list(got[1:]) == [changed], case
        else:
            assert list(got[1:]) == case["counts"], case
        assert same_table(got[0], ref), diff_text(got[0], ref)
    assert leaky == 5 and tightened == 1  # of the 30 frozen cases (see docs/compat.md)


def _shown_by_published_rows(ref, rows, q):
    """The reference's table with each range or set computed from the rows that publish it
    (the blank rows take no part)."""
    out = [list(r) for r in ref]
    published = [i for i, r in enumerate(ref) if not all(is_nan(x) for x in r[:q])]
    for j in range(q):
        cells = {}
        for i in published:
            cells.setdefault(repr(ref[i][j]), []).append(i)
        for members in cells.values():
            cell = ref[members[0]][j]
            if not isinstance(cell, GeneralizationRange):
                continue
            values = sorted({rows[i][j] for i in members})
            if len(values) == 1:
                new = values[0]
            elif cell.kind == "unordered":
                new = GeneralizationRange(column_type="unordered", column_values=values)
            else:
                new = GeneralizationRange(values[0], values[-1], column_type=cell.kind)
            for i in members:
                out[i][j] = new
    return out


def test_greedy_equals_reference(fixture):
    for case in cases(fixture, "greedy"):
        rows = [list(r) for r in case["input"]]
        got = A.GeneralizationGreedyByOneEqualSizedGroups(case["k"], case["kinds"]).depersonalize(
            rows)
        ref = dec_table(case["output"])
        assert list(got[1:]) == case["counts"], case
        assert same_table(got[0], ref), diff_text(got[0], ref)


# ============================================================================ exact (Baseline)


def _satisfies(table, q, s_ids, model, k, l, t, s_types):
    from pdanon.compat.cp2025.utility import metrics as M

    arr = np.array(table, dtype=object)
    qi = arr[:, :q]
    if model == "k":
        return M.is_k_anonimus(qi, k)
    s = arr[:, q:q + 1]
    if model == "l":
        return M.is_l_diverse(qi, s, k, l)
    return M.is_t_close(qi, s, s_types, k, t)


def test_baseline_counts_equal_reference(fixture):
    """Same minimum number of suppressed cells; pdanon's table meets the model and suppresses
    exactly that many cells (it may choose another minimal pattern)."""
    for case in cases(fixture, "baseline"):
        rows = [list(r) for r in case["input"]]
        k, l, t = case["k"], case["l"], case["t"]
        alg = {"k": lambda: A.SuppressionKAnonymityBaseline(k),
               "l": lambda: A.SuppressionLDiversityBaseline(k, l),
               "t": lambda: A.SuppressionTClosenessBaseline(k, t, case["s_types"])}[case["model"]]()
        got = alg.depersonalize(rows, sensitives_ids=case["s_ids"])
        assert list(got[1:]) == case["counts"], case
        if case["counts"][0] is None:  # infeasible: the sensitive column only, as the reference
            assert same_table(got[0], dec_table(case["output"]))
            continue
        q = len(rows[0]) - (1 if case["s_ids"] else 0)
        suppressed = sum(is_nan(v) for r in got[0] for v in r[:q])
        assert suppressed == case["counts"][0]
        assert _satisfies(got[0], q, case["s_ids"], case["model"], k, l, t, case["s_types"])


# ============================================================================ GroupJoin


def _group_join(case, seed):
    kinds = case["kinds"]
    method = {"s": lambda: A.GroupJoinSuppression(),
              "g": lambda: A.GroupJoinGeneralization(kinds),
              "a": lambda: A.GroupJoinAggregation(kinds)}[case["method"]]()
    metric = {"k": lambda: A.GroupJoinKAnonymity(case["k"], seed=seed),
              "l": lambda: A.GroupJoinLDiversity(case["k"], case["l"], seed=seed),
              "t": lambda: A.GroupJoinTCloseness(case["k"], case["t"], ["unordered"],
                                                 seed=seed)}[case["model"]]()
    return A.GroupJoinDepersonalizator(method, metric)


#: GroupJoin cases whose output does not depend on the seed in either library: at least this
#: many are compared, each asserted equal (the frozen fixture has 16; the live runs with seeds
#: 7 and 8 have 22 and 23)
GROUP_JOIN_COMPARED = 5


def test_group_join_valid_and_equal_when_the_choice_does_not_matter(fixture):
    """pdanon does not replay the reference's random draws. Where both libraries give one
    output for every seed tried (the random choice of the violating group does not matter),
    the outputs must be equal - for suppression and aggregation exactly, for generalization
    with correct range maxima. Every pdanon output must satisfy the model."""
    from pdanon.compat.cp2025.utility import metrics as M

    compared = 0
    for case in cases(fixture, "group_join"):
        rows = [list(r) for r in case["input"]]
        q = len(case["kinds"])
        outs = [s for s in case["seeds"] if "output" in s]
        got = _group_join(case, 0).depersonalize(rows, sensitives_ids=case["s_ids"])
        if got[1] is None:  # infeasible (the reference crashes or loops there)
            assert any("error" in s for s in case["seeds"]) or not outs
            continue
        arr = np.array(got[0], dtype=object)
        if case["model"] == "k":
            assert M.is_k_anonimus(arr[:, :q], case["k"])
        elif case["model"] == "l":
            assert M.is_l_diverse(arr[:, :q], arr[:, q:], case["k"], case["l"])
        else:
            assert M.is_t_close(arr[:, :q], arr[:, q:], ["unordered"], case["k"], case["t"])
        tables = [dec_table(s["output"]) for s in outs]
        invariant = len(outs) == len(case["seeds"]) and all(
            same_table(tables[0], t) and outs[0]["counts"] == s["counts"]
            for t, s in zip(tables, outs))
        if not invariant:
            continue
        ours = [got] + [_group_join(case, seed).depersonalize(rows, sensitives_ids=case["s_ids"])
                        for seed in range(1, 5)]
        if not all(same_table(o[0], got[0]) for o in ours):
            continue  # the choice matters for pdanon's draws: not comparable
        assert list(got[1:]) == outs[0]["counts"], case
        if case["method"] == "g":
            assert same_except_maxima(got[0], tables[0], rows), diff_text(got[0], tables[0])
        else:
            assert same_table(got[0], tables[0]), diff_text(got[0], tables[0])
        compared += 1
    assert compared >= GROUP_JOIN_COMPARED


def test_first_violating_group_join_matches_reference_grouping(fixture):
    """GeneralizationKAnonymityGroupJoin merges the first violating group (deterministic in
    both libraries). Its early loss differs (docs/compat.md), so the tables may differ; pdanon's
    output must be k-anonymous and truthful, and the counts are compared in aggregate."""
    from pdanon.compat.cp2025.utility import metrics as M

    same = total = 0
    for case in cases(fixture, "gk_group_join"):
        rows = [list(r) for r in case["input"]]
        got = A.GeneralizationKAnonymityGroupJoin(case["k"], case["kinds"]).depersonalize(rows)
        arr = np.array(got[0], dtype=object)
        assert M.is_k_anonimus(arr, case["k"])
        for r, o in zip(rows, got[0]):
            for v, c in zip(r, o):
                assert (v in c) if isinstance(c, GeneralizationRange) else v == c
        total += 1
        same += list(got[1:]) == case["counts"] and same_except_maxima(
            got[0], dec_table(case["output"]), rows)
    assert total >= 5 and same >= total // 3


# ============================================================================ io and hasher


def _input(kind, rows):
    if kind == "list":
        return [list(r) for r in rows]
    if kind == "ndarray":
        return np.array(rows, dtype=object)
    return pd.DataFrame(rows, columns=["name", "age", "sex", "d"])


def test_io_types_none_and_column_dropping(fixture):
    """Same output type, cells, counts and ``None`` cases. The reference cannot build a
    DataFrame once it dropped columns (ValueError); pdanon returns the kept columns with
    their labels (docs/compat.md)."""
    for case in cases(fixture, "io"):
        data = _input(case["input_type"], case["input"])
        kwargs = {k: v for k, v in case["kwargs"].items()}
        if "error" in case and case["error"] == "ValueError" and "left" in str(
                case["kwargs"].values()):
            with pytest.raises(ValueError, match="only one"):
                A.SuppressionKAnonymityTimeOptimal(case["k"]).depersonalize(data, **kwargs)
            continue
        got = A.SuppressionKAnonymityTimeOptimal(case["k"]).depersonalize(data, **kwargs)
        if "error" in case:
            assert case["input_type"] == "frame" and "Shape of passed values" in case["message"]
            assert isinstance(got[0], pd.DataFrame)
            kept = [c for i, c in enumerate(["name", "age", "sex", "d"])
                    if i not in kwargs.get("identifiers_ids", [])]
            assert list(got[0].columns) == kept
            assert (got[0].dtypes == object).all()
            continue
        assert list(got[1:]) == case["counts"]
        ref = dec_table(case["output"])
        if ref is None:
            assert got[0] is None
            continue
        assert type(got[0]).__name__ == case["type"]
        if isinstance(got[0], pd.DataFrame):
            assert list(got[0].columns) == list(ref.columns)
            assert (got[0].dtypes == object).all()
            assert same_table(got[0].to_numpy().tolist(), ref.to_numpy().tolist())
        else:
            rows = got[0].tolist() if isinstance(got[0], np.ndarray) else got[0]
            assert same_table(rows, ref)


def test_identifier_hasher_is_byte_identical(fixture):
    for case in cases(fixture, "hasher"):
        data = _input(case["input_type"], case["input"])
        got = A.IdentifierHasher().depersonalize(data, identifiers_ids=[0, 2], sensitives_ids=[3])
        assert len(got) == 1
        out = got[0]
        rows = (out.to_numpy().tolist() if isinstance(out, pd.DataFrame)
                else out.tolist() if isinstance(out, np.ndarray) else out)
        ref = dec_table(case["output"])
        ref_rows = ref.to_numpy().tolist() if isinstance(ref, pd.DataFrame) else ref
        assert rows == ref_rows
        assert type(out).__name__ == case["type"]


def test_empty_table(fixture):
    (case,) = cases(fixture, "empty")
    assert A.SuppressionKAnonymityTimeOptimal(2).depersonalize([]) == ([], *case["counts"])
    assert A.IdentifierHasher().depersonalize([]) == ([],)
    assert A.Shuffler().depersonalize([]) == ([], 0)


# ============================================================================ metrics and helpers


def _metric_inputs(case):
    q = len(case["kinds"])
    orig = np.array([r[:q] for r in case["original"]], dtype=object)
    s = np.array([r[q:] for r in case["original"]], dtype=object)
    anon = np.array(dec_table(case["anonymized"]), dtype=object)
    return orig, anon, s


def test_every_metric_equals_reference(fixture):
    from pdanon.compat.cp2025.utility import metrics as M

    compared = 0
    for case in cases(fixture, "metrics"):
        orig, qa, s = _metric_inputs(case)
        k, kinds, t_types = case["k"], case["kinds"], [case["s_kind"]]
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
            "changed_proportion": lambda: M.changed_proportion(orig, qa),
            "non_uniform_entropy": lambda: M.non_uniform_entropy(qa),
            "entropy_based_information_loss": lambda: M.entropy_based_information_loss(orig, qa),
            "my_by_element_distance": lambda: M.my_by_element_distance(orig, qa, kinds),
        }
        for name, fn in calls.items():
            ref = case["values"][name]
            got = fn()
            if isinstance(ref, dict):  # the reference raised (set vs set, ...): pdanon answers
                assert np.isfinite(got)
                continue
            if isinstance(ref, float) and math.isnan(ref):
                # the reference divides 0 by 0 when the original has no entropy
                assert name == "entropy_based_information_loss" and got == 0.0
                continue
            assert got == pytest.approx(ref, abs=1e-9), (name, case)
            compared += 1
    assert compared >= 300


def test_utility_helpers_equal_reference(fixture):
    from pdanon.compat.cp2025.utility import algorithms as UA
    from pdanon.compat.cp2025.utility import diatances as D
    from pdanon.compat.cp2025.utility import groupping as G
    from pdanon.compat.cp2025.utility import metrics as M
    from pdanon.compat.cp2025.utility import statistics as S
    from pdanon.compat.cp2025.utility import utility as U

    for case in cases(fixture, "utility"):
        kinds = case["kinds"]
        q = len(kinds)
        rows = case["input"]
        qi = np.array([r[:q] for r in rows], dtype=object)
        s = np.array([r[q:] for r in rows], dtype=object)
        # bit for bit: the same floating-point order of operations as the reference
        dist = D.dfs_rank_general_dist(qi, kinds)
        np.testing.assert_array_equal(dist, case["dfs_rank_general_dist"])
        np.testing.assert_array_equal(D.dfs_hamming_distances(qi), case["dfs_hamming_distances"])
        if "dfs_rank_distances" in case:
            np.testing.assert_array_equal(D.dfs_rank_distances(qi), case["dfs_rank_distances"])
        groups = G.group_by_dist(np.array(case["dfs_rank_general_dist"]), case["k"])
        assert groups == case["group_by_dist"]
        assert G.group_by_dist_with_l_diverse(np.array(case["dfs_rank_general_dist"]), s,
                                              case["k"], 2) == case["group_by_dist_with_l_diverse"]
        n_sup, sup = UA.suppression(groups, qi)
        assert [n_sup] == case["suppression"][:1]
        assert same_table(sup.tolist(), dec_table(case["suppression"][1]))
        gen, n_gen = UA.generalization(groups, qi, kinds)
        assert n_gen == case["generalization"][1]
        assert same_table(gen.tolist(), fixed_generalization(qi.tolist(), groups, kinds))
        agg, n_agg = UA.aggregation(groups, qi, kinds)
        assert n_agg == case["aggregation"][1]
        assert same_table(agg.tolist(), dec_table(case["aggregation"][0]))
        params = U.count_column_params_for_my_loss(qi, kinds)
        for j, (p, ref, kind) in enumerate(zip(params, case["count_column_params_for_my_loss"],
                                               kinds)):
            if kind == "real":
                assert [float(x) for x in p] == pytest.approx(ref)
            elif kind == "unordered":
                assert p == []
            else:  # ranks on the sorted column (the reference forgets to sort)
                ranks, n = p
                ordered = sorted(qi[:, j].tolist())
                assert n == len(ordered)
                assert ranks == {v: ordered.index(v) for v in set(ordered)}
        col = s[:, 0].tolist()
        assert S.mode(col) == case["mode"]
        assert list(M.get_count_dict(col).items()) == [tuple(x) for x in case["get_count_dict"]]
        keys, freqs = case["get_elements_frequencies"]
        assert M.get_elements_frequencies(col, keys).tolist() == pytest.approx(freqs)
        real = np.array(case["real_sample"])
        n = len(real)
        assert M.real_sample_distance(real[: n // 2 + 1], real) == pytest.approx(
            case["real_sample_distance"], abs=1e-12)
        assert M.categorical_sample_distance(s[: n // 2 + 1, 0], s[:, 0]) == pytest.approx(
            case["categorical_sample_distance"], abs=1e-12)
    (joins,) = cases(fixture, "joins")
    from pdanon.compat.cp2025.utility.GeneralizationRange import join_ordered, join_unordered

    for kind, a, b, ref in joins["cases"]:
        got = join_ordered(a, b, "ordered") if kind == "ordered" else join_unordered(a, b)
        assert same_cell(got, dec(ref))
    assert U.fill_left_columns_ids(6, [0, 2], [5]) == joins["fill_left_columns_ids"]


# ============================================================================ module paths


def test_every_reference_module_and_name_exists(fixture):
    """Every public module of cp2025 and every name it defines (or re-exports from cp2025)
    imports from pdanon.compat.cp2025 - except the two-party class, which needs
    pdanon.parties (issue 8)."""
    missing = []
    for mod, names in fixture["names"].items():
        m = importlib.import_module("pdanon.compat." + mod)
        for name in names:
            if name == "DistributedDataOwnerKAnonymityDepersonalizator":
                continue
            if not hasattr(m, name):
                missing.append(f"{mod}.{name}")
    assert not missing
    assert len(fixture["names"]) >= 30


def test_constructor_and_method_signatures_match(fixture):
    """Every public class's constructor and public methods take the reference's parameters
    (names, order, kinds). The two-party class is issue 8's; the abstract bases' implicit
    ``__init__`` is not compared."""
    import inspect

    skip = ("GroupJoinMethod.__init__", "GroupJoinMetric.__init__")
    compared = 0
    for key, params in fixture["signatures"].items():
        mod, cls, meth = key.rsplit(".", 2)
        if "Distributed" in mod or f"{cls}.{meth}" in skip:
            continue
        obj = getattr(importlib.import_module("pdanon.compat." + mod), cls)
        assert hasattr(obj, meth), key
        got = [[p.name, p.kind.name] for p in inspect.signature(getattr(obj, meth)).parameters
               .values()]
        assert got == params, key
        compared += 1
    assert compared >= 50


def test_compat_names_are_pdanon_objects():
    from pdanon.compat.cp2025.algorithms.Datafly import Datafly
    from pdanon.compat.cp2025.algorithms.groupjoin import GroupJoinKAnonymity
    from pdanon.compat.cp2025.utility.boosting_security_score import get_boosting_security_score
    from pdanon.compat.cp2025.utility.GeneralizationRange import GeneralizationRange as GR
    from pdanon.compat.cp2025.utility.metrics import (
        adversarial_knowledge_gain,
        find_k_anonimus,
        my_by_element_distance_columns_ordered,
    )
    from pdanon.compat.cp2025.utility.prepare_data import prepare_data

    assert Datafly is A.Datafly and GroupJoinKAnonymity is A.GroupJoinKAnonymity
    assert GR is GeneralizationRange
    assert all(callable(f) for f in (get_boosting_security_score, adversarial_knowledge_gain,
                                     find_k_anonimus, my_by_element_distance_columns_ordered,
                                     prepare_data))


def test_distributed_owner_is_the_classic_layers_class():
    """The reference's import path gives pdanon.algorithms' two-party class (a driver over
    pdanon.parties.DataOwner)."""
    import pdanon.algorithms as algorithms
    from pdanon.parties import DataOwner

    mod = importlib.import_module(
        "pdanon.compat.cp2025.algorithms.DistributedDataKAnonymityDepersonalization")
    cls = mod.DistributedDataOwnerKAnonymityDepersonalizator
    assert cls is algorithms.DistributedDataOwnerKAnonymityDepersonalizator
    assert cls.__module__ == "pdanon.algorithms.distributed"
    assert issubclass(algorithms.distributed._ClassicOwner, DataOwner)


# ============================================================================ live reference


#: fresh cases the live run must produce per family (the generator makes 60, 30, 30, 72, 24 and
#: 12 with any seed), so that no comparison below passes on an empty list
LIVE_CASES = {"time_optimal": 60, "datafly": 30, "greedy": 30, "group_join": 72, "metrics": 24,
              "utility": 12}


@pytest.mark.skipif(not REF_PYTHON, reason="PDANON_CP2025_PYTHON (a Python interpreter with "
                    "cp2025 1.0.3 installed) is not set")
def test_live_reference_on_fresh_cases():
    """Fresh random cases generated and run by the installed reference (another seed than the
    fixture's), compared with the same rules and the same minimum numbers of comparisons as
    the frozen fixture: every TimeOptimal, Datafly, greedy, metric and helper case equal, and
    at least GROUP_JOIN_COMPARED seed-independent GroupJoin cases, each equal."""
    assert pathlib.Path(REF_PYTHON).is_file(), f"PDANON_CP2025_PYTHON={REF_PYTHON!r} is not a file"
    env = dict(os.environ, PYTHONHASHSEED="0")
    proc = subprocess.run([REF_PYTHON, str(GENERATOR), "--live", "7"], capture_output=True,
                          text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    live = json.loads(proc.stdout)
    assert live["seed"] == 7
    for family, count in LIVE_CASES.items():
        assert len(cases(live, family)) == count, family
    test_time_optimal_equals_reference(live, min_float_ties=0)  # fresh cases may hold none
    for test in (test_datafly_equals_reference, test_greedy_equals_reference, test_every_metric_equals_reference,
                 test_utility_helpers_equal_reference,
                 test_group_join_valid_and_equal_when_the_choice_does_not_matter):
        test(live)
