"""The classic class API (pdanon.algorithms): the reference's calling conventions, output types,
counts, None cases and column dropping, on hand-checked tables; hypothesis properties against
straightforward implementations written here (or in tests/_helpers/cp2025.py); and the accessor
equivalent of every class (docs/compat.md)."""

from __future__ import annotations

import hashlib
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon  # noqa: F401  (registers df.anon)
from pdanon import algorithms as A
from pdanon.dtype import GeneralizationRange as GR
from tests._helpers.cp2025 import recode, same_table, time_optimal_groups

nan = float("nan")


def isnan(v) -> bool:
    return isinstance(v, float) and math.isnan(v)


DF = [[1, 1, 1, 1], [1, 1, 1, 1], [2, 2, 2, 2], [2, 2, 2, 3]]
PEOPLE = [["ann", 30, "F", "flu"], ["bob", 31, "M", "hiv"], ["cid", 40, "M", "flu"],
          ["dan", 42, "F", "cold"]]


# ============================================================================ calling conventions


@pytest.mark.parametrize("kind", ["list", "ndarray", "frame"])
def test_output_type_follows_input(kind):
    data = {"list": [list(r) for r in PEOPLE], "ndarray": np.array(PEOPLE, dtype=object),
            "frame": pd.DataFrame(PEOPLE, columns=["name", "age", "sex", "d"],
                                  index=[10, 11, 12, 13])}[kind]
    with pytest.warns(pdanon.ExactBoundsWarning, match=r"position\(s\) \[0\].* fewer than 2"):
        out, count = A.GeneralizationKAnonymityTimeOptimal(2, ["real", "unordered"]
                                                           ).depersonalize(
            data, identifiers_ids=[0], sensitives_ids=[3])
    # row 0 (30, F) is nearest to row 3 (42, F): 12/12 + 0 < 1/12 + 1 (to row 1); the
    # reference's exact ranges, though every age is one person's (docs/compat.md)
    expected = [[GR(30, 42, "real"), "F", "flu"], [GR(31, 40, "real"), "M", "hiv"],
                [GR(31, 40, "real"), "M", "flu"], [GR(30, 42, "real"), "F", "cold"]]
    assert count == 4
    if kind == "list":
        assert isinstance(out, list) and out == expected
    elif kind == "ndarray":
        assert isinstance(out, np.ndarray) and out.dtype == object and out.tolist() == expected
    else:
        # object columns with the kept labels, as the reference builds them (RangeIndex)
        assert list(out.columns) == ["age", "sex", "d"]
        assert (out.dtypes == object).all()
        assert out.index.equals(pd.RangeIndex(4))
        assert out.to_numpy().tolist() == expected


def test_input_is_not_modified():
    rows = [list(r) for r in PEOPLE]
    frame = pd.DataFrame(PEOPLE)
    before = [list(r) for r in rows]
    A.SuppressionKAnonymityTimeOptimal(2).depersonalize(rows, identifiers_ids=[0])
    A.Shuffler(seed=1).depersonalize(rows)
    A.RandomizationBaselineDepersonalizator(seed=1).depersonalize(frame)
    assert rows == before
    assert frame.equals(pd.DataFrame(PEOPLE))


def test_unchanged_cells_are_the_input_objects():
    big = 10**20  # not representable as int64: must come back as the same Python int
    rows = [[big, "x"], [big, "y"], [3, "x"], [4, "y"]]
    out, _ = A.SuppressionKAnonymityTimeOptimal(2).depersonalize(rows)
    assert out[0][0] is big and out[1][0] is big and isnan(out[2][0])


@pytest.mark.parametrize("ids", [
    {"identifiers_ids": "left", "sensitives_ids": "left"},
    {"identifiers_ids": "left", "quasi_identifiers_ids": "left"},
])
def test_only_one_left(ids):
    with pytest.raises(ValueError, match="only one"):
        A.Datafly(2).depersonalize(DF, **ids)


def test_one_kind_per_table_column_is_read_at_the_quasi_identifiers_positions():
    """The reference's own random tests pass one kind per column of the whole table, sensitive
    columns included; the kinds at the quasi-identifiers' positions are used."""
    rows = [["x", 1, "a", 10], ["y", 2, "b", 30], ["x", 9, "a", 20], ["y", 10, "b", 40]]
    whole = ["unordered", "real", "unordered", "ordered"]
    block = ["real", "ordered"]
    for cls in (A.GeneralizationLDiversityTimeOptimal, A.AggregationLDiversityTimeOptimal):
        got = cls(2, 2, whole).depersonalize(rows, sensitives_ids=[0, 2])
        assert got == cls(2, 2, block).depersonalize(rows, sensitives_ids=[0, 2])
    # column 1 is real (means), column 3 ordered (the upper median); the reference would read
    # the first two entries and take column 1 as unordered (a mode) and column 3 as real
    out, n = A.AggregationLDiversityTimeOptimal(2, 2, whole).depersonalize(
        rows, sensitives_ids=[0, 2])
    assert out == [["x", 1.5, "a", 30], ["y", 1.5, "b", 30], ["x", 9.5, "a", 40],
                   ["y", 9.5, "b", 40]] and n == 6
    assert A.Datafly(2, whole).depersonalize(rows, sensitives_ids=[0, 2]) == \
        A.Datafly(2, block).depersonalize(rows, sensitives_ids=[0, 2])


def test_bad_ids_are_clear_errors():
    with pytest.raises(ValueError, match="column 7"):
        A.Datafly(2).depersonalize(DF, sensitives_ids=[7])
    with pytest.raises(ValueError, match="integer column positions"):
        A.Datafly(2).depersonalize(DF, sensitives_ids=["a"])
    with pytest.raises(ValueError, match=r"5 entries but there are 3 such column\(s\) and the "
                       r"table has 4; give one kind \(real, ordered, unordered\) per column "
                       r"\(or one per column of the table\)"):
        A.Datafly(2, ["real"] * 5).depersonalize(DF, sensitives_ids=[3])
    with pytest.raises(ValueError, match="2 entries but there are 3"):
        A.Datafly(2, ["real"] * 2).depersonalize(DF, sensitives_ids=[3])
    with pytest.raises(TypeError, match="declared 'real'"):
        A.GeneralizationKAnonymityTimeOptimal(2, ["real"]).depersonalize([["a"], ["b"]])
    with pytest.raises(ValueError, match="2-D"):
        A.Datafly(2).depersonalize(np.array([1, 2, 3]))


def test_left_fills_the_other_roles():
    dep = A.SuppressionKAnonymityTimeOptimal(2)
    out, count = dep.depersonalize(PEOPLE, identifiers_ids=[0], quasi_identifiers_ids=[1, 2],
                                   sensitives_ids="left")
    assert dep.sensitives_ids == [3] and dep.identifiers_ids == [0]
    assert [r[2] for r in out] == ["flu", "hiv", "flu", "cold"] and count == 4


def test_column_in_no_role_is_left_out():
    out, _ = A.SuppressionKAnonymityTimeOptimal(2).depersonalize(
        PEOPLE, identifiers_ids=[0], quasi_identifiers_ids=[2])
    assert out == [["F"], ["M"], ["M"], ["F"]] or all(len(r) == 1 for r in out)


def test_unsorted_id_lists_keep_each_column_in_place():
    rows = [[1, "a", 5], [1, "b", 6], [2, "a", 7], [2, "b", 8]]
    out, _ = A.SuppressionKAnonymityTimeOptimal(2).depersonalize(
        rows, quasi_identifiers_ids=[1, 0], sensitives_ids=[2])
    assert [r[0] for r in out] == [1, 1, 2, 2] and [r[2] for r in out] == [5, 6, 7, 8]


# ============================================================================ None outputs


def test_fewer_rows_than_k():
    alg = A.SuppressionKAnonymityTimeOptimal(5)
    assert alg.depersonalize(PEOPLE, identifiers_ids=[0], sensitives_ids=[3]) == (
        [["flu"], ["hiv"], ["flu"], ["cold"]], None)
    assert alg.depersonalize(PEOPLE, identifiers_ids=[0]) == (None, None)
    out, count = alg.depersonalize(pd.DataFrame(PEOPLE, columns=list("abcd")),
                                   sensitives_ids=[3])
    assert list(out.columns) == ["d"] and count is None
    for cls in (A.Datafly(9), A.GeneralizationGreedyByOneEqualSizedGroups(9),
                A.SuppressionKAnonymityBaseline(9), A.AggregationKAnonymityTimeOptimal(9),
                A.GroupJoinDepersonalizator(A.GroupJoinSuppression(), A.GroupJoinKAnonymity(9))):
        assert cls.depersonalize(DF)[1:] == (None,)


def test_infeasible_l_diversity_gives_none():
    rows = [[1, "flu"], [2, "flu"], [3, "flu"], [4, "hiv"]]
    for alg in (A.SuppressionLDiversityTimeOptimal(2, 3),
                A.GeneralizationLDiversityTimeOptimal(2, 3, ["real"]),
                A.SuppressionLDiversityBaseline(2, 3),
                A.GroupJoinDepersonalizator(A.GroupJoinSuppression(),
                                            A.GroupJoinLDiversity(2, 3, seed=0))):
        assert alg.depersonalize(rows, sensitives_ids=[1]) == (
            [["flu"], ["flu"], ["flu"], ["hiv"]], None)


def test_empty_table_is_returned_as_is():
    empty = pd.DataFrame({"a": []})
    out = A.Datafly(2).depersonalize(empty)
    assert out[0] is empty and out[1:] == (0,)
    assert A.IdentifierHasher().depersonalize([]) == ([],)
    assert A.RandomizationBaselineDepersonalizator().depersonalize([]) == ([], 0)


def test_classic_ranges_are_the_references_and_a_rare_bound_is_warned_about():
    """The classic API keeps the reference's [min, max] (no widening, pdanon.recode.bounds) and warns
    only where a published bound is held by fewer than k rows."""
    import warnings

    common = [[30, "a"], [40, "a"], [30, "b"], [40, "b"]]  # 30 and 40: two rows each
    with warnings.catch_warnings():
        warnings.simplefilter("error", pdanon.ExactBoundsWarning)
        out, _ = A.GeneralizationKAnonymityTimeOptimal(2, ["real", "unordered"]).depersonalize(
            common)
    assert out == [[GR(30, 40, "real"), "a"]] * 2 + [[GR(30, 40, "real"), "b"]] * 2
    rare = common + [[97, "b"]]  # the oldest: one person; the accessor publishes [30, 100]
    with pytest.warns(pdanon.ExactBoundsWarning, match="df.anon"):
        out, _ = A.GeneralizationKAnonymityTimeOptimal(2, ["real", "unordered"]).depersonalize(
            rare)
    assert GR(40, 97, "real") in [r[0] for r in out] or GR(30, 97, "real") in [r[0] for r in out]
    df = pd.DataFrame(rare, columns=["age", "g"])
    widened = df.anon.k_anonymize(2, algorithm="nearest", quasi_identifiers={
        "age": "real", "g": "unordered"}, row_order="input")
    assert 97 not in {b for c in widened["age"].array if c is not None and not pd.isna(c)
                      for b in (c.min, c.max)}


# ============================================================================ hand-checked outputs


def test_time_optimal_family_by_hand():
    rows = [[20, "a", "x"], [22, "b", "y"], [50, "a", "x"], [51, "a", "z"], [21, "b", "x"]]
    ab = GR(None, None, "unordered", ["a", "b"])
    # k=3: row 0 + its two nearest; the 2 rows left over join that group
    out, n = A.GeneralizationKAnonymityTimeOptimal(3, ["real", "unordered"]).depersonalize(
        rows, sensitives_ids=[2])
    assert out == [[GR(20, 51, "real"), ab, s] for s in "xyxzx"] and n == 10
    # k=2, distances from row 0 (age span 31): row 2 30/31, row 3 31/31, row 4 1/31 + 1,
    # row 1 2/31 + 1 -> {0, 2}; then row 1 with row 4 (1/31); row 3 is left over and joins
    out, n = A.GeneralizationKAnonymityTimeOptimal(2, ["real", "unordered"]).depersonalize(
        rows, sensitives_ids=[2])
    assert out == [[GR(20, 50, "real"), "a", "x"], [GR(21, 51, "real"), ab, "y"],
                   [GR(20, 50, "real"), "a", "x"], [GR(21, 51, "real"), ab, "z"],
                   [GR(21, 51, "real"), ab, "x"]] and n == 8
    # aggregation of the same groups: means, and the mode of b, b, a in build order (1, 4, 3)
    out, n = A.AggregationKAnonymityTimeOptimal(2, ["real", "unordered"]).depersonalize(
        rows, sensitives_ids=[2])
    assert out == [[35.0, "a", "x"], [94 / 3, "b", "y"], [35.0, "a", "x"], [94 / 3, "b", "z"],
                   [94 / 3, "b", "x"]] and n == 6
    # Hamming distance: row 0 ties rows 2 and 3 at 1 -> the lower index, 2
    out, n = A.SuppressionKAnonymityTimeOptimal(2).depersonalize(rows, sensitives_ids=[2])
    assert same_table(out, [[nan, "a", "x"], [nan, nan, "y"], [nan, "a", "x"], [nan, nan, "z"],
                            [nan, nan, "x"]]) and n == 8


def test_aggregation_keeps_constant_groups_exactly():
    out, n = A.AggregationKAnonymityTimeOptimal(2, ["real"]).depersonalize(
        [[0.1], [0.1], [0.1], [5]])
    assert out == [[0.1], [0.1], [2.55], [2.55]] and n == 2
    out, n = A.AggregationKAnonymityTimeOptimal(3, ["real"]).depersonalize(
        [[0.1], [0.1], [0.1], [9.0], [9.0], [9.0]])
    assert out == [[0.1], [0.1], [0.1], [9.0], [9.0], [9.0]] and n == 0


def test_ordered_strings_and_medians():
    # sorted as strings: hi, hi, lo, lo, mid, mid -> ranks hi 0, lo 2, mid 4; row 0 (lo) takes
    # row 3 (lo) and, of the rows at rank distance 2, the lowest index (row 1, mid)
    out, n = A.GeneralizationKAnonymityTimeOptimal(3, ["ordered"]).depersonalize(
        [["lo"], ["mid"], ["hi"]] * 2)
    lo_mid, hi_mid = GR("lo", "mid", "ordered"), GR("hi", "mid", "ordered")
    assert out == [[lo_mid], [lo_mid], [hi_mid], [lo_mid], [hi_mid], [hi_mid]] and n == 6
    # the element at position len // 2 of the group's sorted values (as the reference)
    out, n = A.AggregationKAnonymityTimeOptimal(2, ["ordered"]).depersonalize(
        [[1], [2], [3], [9], [10], [11]])
    assert out == [[2], [2], [9], [9], [11], [11]] and n == 3


def test_time_optimal_leftover_order_decides_mode_ties_like_the_reference():
    # rows 0-5 form one group; rows 6-10 are left over and join it; u and w tie for the mode
    # (2 each) and w's rows are nearer to row 6 than u's: the reference outputs w
    rows = [[0, 0, v] for v in "abcdef"] + [[9, 0, "v"], [9, 5, "u"], [9, 0, "w"], [9, 5, "u"],
                                           [9, 0, "w"]]
    out, _ = A.AggregationKAnonymityTimeOptimal(6, ["real", "real", "unordered"]).depersonalize(
        rows)
    assert {r[2] for r in out} == {"w"}


def test_datafly_by_hand():
    rows = [[1, "a"], [1, "a"], [2, "b"], [3, "b"], [7, "c"]]
    out, n = A.Datafly(2, ["real", "unordered"]).depersonalize(rows)
    # column 0 has most distinct values: 7 (rarest... ties to the smallest: 2) merges
    # step by step until at most one row (k - 1) lies in a class smaller than 2
    arr = np.array(out, dtype=object)
    from pdanon.compat.cp2025.utility.metrics import find_k_anonimus

    kept = [r for r in out if not all(isnan(v) for v in r)]
    assert find_k_anonimus(np.array(kept, dtype=object)) >= 2
    assert sum(all(isnan(v) for v in r) for r in out) <= 1
    assert n == sum(not (a == b) or isinstance(b, GR) for r0, r in zip(rows, out)
                    for a, b in zip(r0, r))
    assert arr.shape == (5, 2)


def test_datafly_suppression_budget():
    rows = [[1], [2], [3], [4], [5], [6]]
    # no row may be suppressed: 1+2, then 3 with its rarer neighbour 4, then 5+6
    out, n = A.Datafly(2, ["real"], k_suppressed_lines=0).depersonalize(rows)
    assert out == [[GR(1, 2, "real")]] * 2 + [[GR(3, 4, "real")]] * 2 + [[GR(5, 6, "real")]] * 2
    assert n == 6
    # every row may be suppressed: nothing is generalized, the small classes are suppressed
    out, n = A.Datafly(6, ["unordered"], k_suppressed_lines=6).depersonalize(rows)
    assert all(isnan(r[0]) for r in out) and n == 6


def test_greedy_reports_the_reference_group_size():
    rows = [[1], [1], [2], [2]]
    assert A.GeneralizationGreedyByOneEqualSizedGroups(2, ["real"]).depersonalize(rows) == (
        rows, 1)
    assert A.GeneralizationGreedyByOneEqualSizedGroups(3, ["real"]).depersonalize(
        [[1], [1], [1], [2], [2], [2]]) == ([[1], [1], [1], [2], [2], [2]], 2)
    out, size = A.GeneralizationGreedyByOneEqualSizedGroups(2, ["real"]).depersonalize(
        [[1], [2], [3], [4], [5]])
    assert size == 2 and [r[0] for r in out] == [GR(1, 2, "real")] * 2 + [GR(3, 5, "real")] * 3


def test_hasher_is_the_reference_digest():
    out = A.IdentifierHasher().depersonalize(PEOPLE, identifiers_ids=[0, 2],
                                             sensitives_ids=[3])[0]
    row0 = np.array(["ann", "F"], dtype=object)
    digest = hashlib.sha256(str(row0).encode()).hexdigest()
    assert out[0] == [digest, 30, digest, "flu"]


def test_shuffler_keeps_identifiers_and_values():
    out = A.Shuffler([1, 3], seed=3).depersonalize(PEOPLE, identifiers_ids=[0],
                                                   sensitives_ids=[3])[0]
    assert [r[0] for r in out] == ["ann", "bob", "cid", "dan"]
    assert [r[2] for r in out] == ["F", "M", "M", "F"]
    assert sorted(r[1] for r in out) == [30, 31, 40, 42]
    again = A.Shuffler([1, 3], seed=3).depersonalize(PEOPLE, identifiers_ids=[0],
                                                     sensitives_ids=[3])[0]
    assert again == out
    everything = A.Shuffler(seed=5).depersonalize(PEOPLE, identifiers_ids=[0])[0]
    assert sorted(r[0] for r in everything) == ["ann", "bob", "cid", "dan"]


def test_shuffler_in_batches_moves_values_only_within_classes():
    rows = [["x", i] for i in range(6)] + [["y", i] for i in range(6, 10)]
    moved = False
    for seed in range(5):
        out = A.ShufflerInBatches([1], seed=seed).depersonalize(rows, sensitives_ids=[1])[0]
        assert sorted(r[1] for r in out[:6]) == list(range(6))
        assert sorted(r[1] for r in out[6:]) == list(range(6, 10))
        moved |= out != rows
    assert moved  # the reference's version returns the table unchanged


def test_randomization_conventions():
    rows = [["id1", 1, "a", 0.5, "s1"], ["id2", 5, "b", 0.7, "s2"], ["id3", 9, "a", 0.9, "s3"],
            ["id4", 3, "c", 0.1, "s4"]]
    alg = A.RandomizationBaselineDepersonalizator(
        quasi_identifiers_types=["real", "unordered", "ordered"], seed=4, scale=0.5)
    out = alg.depersonalize(rows, identifiers_ids=[0], sensitives_ids=[4])
    assert len(out) == 1
    table = out[0]
    assert [r[3] for r in table] == ["s1", "s2", "s3", "s4"]  # identifiers dropped
    assert all(1 <= r[0] <= 9 and isinstance(r[0], float) for r in table)
    assert all(r[1] in "abc" for r in table) and all(r[2] in (0.1, 0.5, 0.7, 0.9) for r in table)
    again = A.RandomizationBaselineDepersonalizator(
        quasi_identifiers_types=["real", "unordered", "ordered"], seed=4, scale=0.5
    ).depersonalize(rows, identifiers_ids=[0], sensitives_ids=[4])
    assert again == out
    # rand_add replaces each value by f(value), as the reference does
    f = A.RandomizationBaselineDepersonalizator(rand_add=[lambda x: x * 10, None],
                                                quasi_identifiers_types=["real", "ordered"],
                                                scale=0, seed=0)
    assert f.depersonalize([[1, 2], [3, 4]])[0] == [[10, 2], [30, 4]]
    # min_rand / max_rand: uniform noise on real columns only
    g = A.RandomizationBaselineDepersonalizator(min_rand=0, max_rand=0.5, seed=1,
                                                quasi_identifiers_types=["real", "ordered"],
                                                scale=0)
    noisy = g.depersonalize([[1, 2], [3, 4]])[0]
    assert 1 <= noisy[0][0] <= 1.5 + 1e-12 or noisy[0][0] == 3
    assert [r[1] for r in noisy] == [2, 4]


# ============================================================================ any hashable value


class Token:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, Token) and other.name == self.name

    def __hash__(self):
        return hash(("Token", self.name))

    def __repr__(self):
        return f"Token({self.name})"


HASHABLE = [(1, 2), (1, 2), frozenset({"a"}), frozenset({"a"}), Token("p"), Token("q"), 7, "7",
            None, None]


@pytest.mark.parametrize("make", [
    lambda: A.SuppressionKAnonymityTimeOptimal(2),
    lambda: A.GeneralizationKAnonymityTimeOptimal(2),
    lambda: A.AggregationKAnonymityTimeOptimal(2),
    lambda: A.Datafly(2),
    lambda: A.GeneralizationGreedyByOneEqualSizedGroups(2),
    lambda: A.SuppressionKAnonymityBaseline(2),
    lambda: A.GroupJoinDepersonalizator(A.GroupJoinGeneralization(), A.GroupJoinKAnonymity(2,
                                                                                         seed=0)),
    lambda: A.GroupJoinDepersonalizator(A.GroupJoinAggregation(), A.GroupJoinKAnonymity(2,
                                                                                      seed=0)),
    lambda: A.ShufflerInBatches(seed=0),
])
def test_any_hashable_value_in_unordered_columns(make):
    rows = [[v, i % 3] for i, v in enumerate(HASHABLE)]
    out = make().depersonalize(rows, sensitives_ids=[1])[0]
    for r0, r in zip(rows, out):
        cell = r[0]
        if isinstance(cell, GR):
            assert r0[0] in cell.values_set
        elif not isnan(cell) or r0[0] is None:
            assert cell in HASHABLE
    if not isinstance(make(), A.ShufflerInBatches):
        from pdanon.compat.cp2025.utility.metrics import find_k_anonimus

        assert find_k_anonimus(np.array([r[:1] for r in out], dtype=object)) >= 2


# ============================================================================ GroupJoin objects


def test_group_join_seed_and_loss_function():
    rows = [[20, "a"], [21, "b"], [35, "a"], [40, "b"], [41, "a"], [60, "b"]]
    make = lambda seed, fn=None: A.GroupJoinDepersonalizator(  # noqa: E731
        A.GroupJoinGeneralization(["real", "unordered"]),
        A.GroupJoinKAnonymity(2, loss_function=fn, seed=seed))
    assert make(3).depersonalize(rows) == make(3).depersonalize(rows)
    calls = []

    def fn(loss, size1, size2, k):
        calls.append(k)
        return loss * 1.0

    assert make(0, fn).depersonalize(rows) == make(0).depersonalize(rows)
    assert calls and all(c == 2 for c in calls)
    dep = make(0)
    dep.depersonalize(rows)
    assert sorted(r for g in dep.groups for r in g) == list(range(6))
    assert all(len(g) >= 2 for g in dep.groups)


def test_group_join_method_and_metric_helpers():
    q = np.array([[1, "a"], [2, "a"], [9, "b"], [10, "b"]], dtype=object)
    method = A.GroupJoinGeneralization(["real", "unordered"])
    metric = A.GroupJoinKAnonymity(2, seed=0)
    metric.group_join_method = method
    assert metric.get_groups(q, np.zeros((4, 0))) == [[0, 1], [2, 3]]
    table, n = method.depersonalize([[0, 1], [2, 3]], q)
    assert table.tolist() == [[GR(1, 2, "real"), "a"]] * 2 + [[GR(9, 10, "real"), "b"]] * 2
    assert n == 4
    method.calc_columns_params(q)
    # ((1-1)^2 + (2-1)^2 + (1-2)^2 + (2-2)^2) / (2 * 9 * 1) = 2 / 18
    assert method.loss_real(np.array([1, 2]), 0) == pytest.approx(2 / 18)
    assert method.loss_unordered(np.array(["a", "b", "b"]), 1) == pytest.approx(3 - 3 / 2)
    assert metric.loss(q[:2], q[2:]) > metric.loss(q[:1], q[1:2])
    assert metric.check_k_anonymity([[0, 1], [2, 3]]) and not metric.check_k_anonymity([[0]])
    lmetric = A.GroupJoinLDiversity(2, 2)
    assert lmetric.check_l_diversity([[0, 1]], np.array([["x"], ["y"]], dtype=object))
    agg = A.GroupJoinAggregation(["real", "unordered"])
    agg.calc_columns_params(q)
    assert agg.loss_unordered(np.array(["a", "b", "b"]), 1) == 1.0
    assert A.GroupJoinSuppression().loss_real(np.array([1, 1]), 0) == 0.0
    assert A.GroupJoinSuppression().loss(np.array([1, 2, 2])) == 3.0
    # t-closeness helpers measure against the whole table's sensitive columns
    s = np.array([["x"], ["y"], ["x"], ["y"]], dtype=object)
    tm = A.GroupJoinTCloseness(2, 0.1, ["unordered"])
    tm.group_join_method = A.GroupJoinSuppression()
    tm.prepare_statistics(s)
    assert tm.check_t_closeness([[0, 1], [2, 3]], s)  # each group is the table's 50/50
    assert not tm.check_t_closeness([[0, 2], [1, 3]], s)  # JS(x only, 50/50) = 0.216 > 0.1
    assert tm.categorical_sample_distance(["x", "x"], 0) == pytest.approx(
        0.5 * (math.log(2 / 1.5) + 0.5 * math.log(0.5 / 0.75) + 0.5 * math.log(2)))
    q2 = np.array([[1], [1], [2], [2]], dtype=object)
    # suppressing the union costs 4 cells; the union is the whole table: t_sens = 0
    assert tm.loss([q2[:2], s[:2]], [q2[2:], s[2:]]) == 0.0
    assert lmetric_loss(q2, s) == pytest.approx(4 / 2)


def lmetric_loss(q2, s):
    m = A.GroupJoinLDiversity(2, 2)
    m.group_join_method = A.GroupJoinSuppression()
    return m.loss([q2[:2], s[:2]], [q2[2:], s[2:]])  # loss 4 / Σ k_sens (2)


def test_shuffler_in_batches_lists_its_batches():
    q = np.array([[1, "a"], [2, "b"], [1, "a"], [2, "c"]], dtype=object)
    assert A.ShufflerInBatches().get_batches(q) == [[0, 2], [1], [3]]


def test_first_violating_group_join_is_deterministic():
    rows = [[1, "a"], [2, "b"], [4, "a"], [8, "b"], [16, "a"]]
    outs = {str(A.GeneralizationKAnonymityGroupJoin(2, ["real", "unordered"]).depersonalize(rows))
            for _ in range(3)}
    assert len(outs) == 1


# ============================================================================ properties


cells = st.integers(0, 3)
kinds_st = st.lists(st.sampled_from(["real", "ordered", "unordered"]), min_size=1, max_size=3)


@st.composite
def tables(draw, max_rows=14):
    kinds = draw(kinds_st)
    n = draw(st.integers(1, max_rows))
    rows = [[draw(cells) for _ in kinds] + [draw(st.sampled_from("xyz"))] for _ in range(n)]
    return kinds, rows


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.integers(1, 4), st.sampled_from(["s", "g", "a"]),
       st.sampled_from([None, 2]))
def test_time_optimal_is_the_documented_rule(data, k, method, l):
    """Every TimeOptimal class equals a straightforward implementation of the documented rule
    (tests/_helpers/cp2025.py: the reference's floating-point distances computed pair by pair
    with numpy's sum, ties to the lower row index), with correct [min, max] ranges."""
    kinds, rows = data
    q = len(kinds)
    cls = {("s", None): lambda: A.SuppressionKAnonymityTimeOptimal(k),
           ("g", None): lambda: A.GeneralizationKAnonymityTimeOptimal(k, kinds),
           ("a", None): lambda: A.AggregationKAnonymityTimeOptimal(k, kinds),
           ("s", 2): lambda: A.SuppressionLDiversityTimeOptimal(k, 2),
           ("g", 2): lambda: A.GeneralizationLDiversityTimeOptimal(k, 2, kinds),
           ("a", 2): lambda: A.AggregationLDiversityTimeOptimal(k, 2, kinds)}[(method, l)]()
    out = cls.depersonalize([list(r) for r in rows], sensitives_ids=[q])
    qi = [r[:q] for r in rows]
    groups = None if len(rows) < k else time_optimal_groups(
        qi, [r[q:] for r in rows], kinds, k, l, hamming=method == "s")
    if groups is None:
        assert out == ([[r[q]] for r in rows], None)
        return
    expected = [e + r[q:] for e, r in zip(recode(qi, groups, kinds, method), rows)]
    assert same_table(out[0], expected)
    changed = sum(not (a == b) or isinstance(b, GR) or isnan(b)
                  for r0, r in zip(qi, out[0]) for a, b in zip(r0, r[:q]))
    assert out[1] == changed


def _brute_force_min_suppression(qi, k):
    """The reference's own definition: the fewest suppressed cells making the table
    k-anonymous (missing cells equal), by enumerating every pattern."""
    n, q = len(qi), len(qi[0])
    best = None
    for mask in itertools.product([False, True], repeat=n * q):
        cost = sum(mask)
        if best is not None and cost >= best:
            continue
        keys = [tuple(None if mask[i * q + j] else qi[i][j] for j in range(q)) for i in range(n)]
        counts = {}
        for key in keys:
            counts[key] = counts.get(key, 0) + 1
        if min(counts.values()) >= k:
            best = cost
    return best


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 5), st.integers(1, 2), st.integers(2, 3), st.data())
def test_baseline_is_minimal(n, q, k, data):
    qi = [[data.draw(st.integers(0, 2)) for _ in range(q)] for _ in range(n)]
    out, count = A.SuppressionKAnonymityBaseline(k).depersonalize(qi)
    if n < k:
        assert (out, count) == (None, None)
        return
    assert count == _brute_force_min_suppression(qi, k)
    assert sum(isnan(v) for r in out for v in r) == count


@settings(max_examples=40, deadline=None)
@given(tables(max_rows=20), st.integers(1, 4))
def test_datafly_and_greedy_outputs_are_k_anonymous_and_truthful(data, k):
    from pdanon.compat.cp2025.utility.metrics import find_k_anonimus

    kinds, rows = data
    q = len(kinds)
    for alg in (A.Datafly(k, kinds), A.GeneralizationGreedyByOneEqualSizedGroups(k, kinds)):
        out = alg.depersonalize([list(r) for r in rows], sensitives_ids=[q])
        if len(rows) < k:
            assert out[1] is None
            continue
        kept = [r[:q] for r in out[0] if not all(isnan(v) for v in r[:q])]
        if kept:
            assert find_k_anonimus(np.array(kept, dtype=object)) >= k
        suppressed = len(rows) - len(kept)
        if isinstance(alg, A.Datafly):
            assert suppressed <= k - 1
        for r0, r in zip(rows, out[0]):
            for v, c in zip(r0[:q], r[:q]):
                assert isnan(c) or (v in c if isinstance(c, GR) else v == c)


# ============================================================================ accessor equivalents


ADULTISH = pd.DataFrame({
    "name": [f"p{i}" for i in range(12)],
    "age": [23, 25, 31, 35, 38, 41, 44, 47, 52, 58, 61, 66],
    "sex": ["F", "M"] * 6,
    "disease": ["flu", "hiv", "flu", "cold", "hiv", "flu", "cold", "flu", "hiv", "cold", "flu",
                "hiv"],
})
ROLES = dict(identifiers=["name"], quasi_identifiers={"age": "real", "sex": "unordered"},
             sensitive=["disease"])


#: the classic API publishes the reference's exact ranges (docs/compat.md); the accessor widens
#: bounds held by fewer than k rows unless asked for the exact ones
EXACT = {"exact_bounds": True}


def _classic(alg, **kw):
    return alg.depersonalize(ADULTISH, identifiers_ids=[0], sensitives_ids=[3], **kw)[0]


def _same_frame(classic: pd.DataFrame, accessor: pd.DataFrame) -> bool:
    rows = accessor.astype(object).where(accessor.notna(), np.nan).to_numpy().tolist()
    return same_table(classic.to_numpy().tolist(), rows)


@pytest.mark.parametrize("alg, call", [
    (A.GeneralizationKAnonymityTimeOptimal(3, ["real", "unordered"]),
     lambda df: df.anon.k_anonymize(3, method="generalize", algorithm="nearest", **ROLES,
                                    options=EXACT, row_order="input")),
    (A.AggregationKAnonymityTimeOptimal(3, ["real", "unordered"]),
     lambda df: df.anon.k_anonymize(3, method="aggregate", algorithm="nearest", **ROLES, row_order="input")),
    (A.GeneralizationLDiversityTimeOptimal(3, 2, ["real", "unordered"]),
     lambda df: df.anon.l_diversify(2, k=3, method="generalize", algorithm="nearest", **ROLES,
                                    options=EXACT, row_order="input")),
    (A.Datafly(3, ["real", "unordered"]),
     lambda df: df.anon.k_anonymize(3, algorithm="datafly", max_suppressed_rows=2, **ROLES,
                                    options=EXACT, row_order="input")),
    (A.GeneralizationGreedyByOneEqualSizedGroups(3, ["real", "unordered"]),
     lambda df: df.anon.k_anonymize(3, algorithm="equal_groups",
                                    options={"unordered_order": "appearance", **EXACT},
                                    **ROLES, row_order="input")),
    (A.GroupJoinDepersonalizator(A.GroupJoinGeneralization(["real", "unordered"]),
                                 A.GroupJoinKAnonymity(3, seed=1)),
     lambda df: df.anon.k_anonymize(3, algorithm="group_join", seed=1, **ROLES, options=EXACT,
                                    row_order="input")),
    (A.GroupJoinDepersonalizator(A.GroupJoinAggregation(["real", "unordered"]),
                                 A.GroupJoinLDiversity(3, 2, seed=2)),
     lambda df: df.anon.l_diversify(2, k=3, method="aggregate", algorithm="group_join",
                                    seed=2, **ROLES, row_order="input")),
    (A.GroupJoinDepersonalizator(A.GroupJoinSuppression(),
                                 A.GroupJoinTCloseness(3, 0.3, ["unordered"], seed=0)),
     lambda df: df.anon.t_close(0.3, k=3, distance="reference", method="suppress",
                                algorithm="group_join", seed=0, **ROLES, row_order="input")),
    (A.SuppressionKAnonymityBaseline(3),
     lambda df: df.anon.k_anonymize(3, method="suppress", algorithm="exact",
                                    quasi_identifiers={"age": "unordered", "sex": "unordered"},
                                    identifiers=["name"], sensitive=["disease"], row_order="input")),
])
def test_accessor_equivalent_gives_the_same_table(alg, call):
    """docs/compat.md maps every class to a df.anon call; the tables agree (the exact solver
    may choose another minimal pattern: there the counts agree)."""
    classic = _classic(alg)
    acc = call(ADULTISH)
    assert list(acc.columns) == ["age", "sex", "disease"]
    if isinstance(alg, A.SuppressionKAnonymityBaseline):
        assert int(classic.isna().sum().sum()) == int(acc.isna().sum().sum())
        return
    assert _same_frame(classic, acc)


def test_accessor_equivalents_of_the_perturbations():
    classic = A.ShufflerInBatches([3], seed=0).depersonalize(
        ADULTISH, identifiers_ids=[0], sensitives_ids=[3])[0]
    acc = ADULTISH.anon.shuffle(["disease"], within="equivalence_classes", seed=0,
                                keep_identifiers=True, **ROLES)
    assert sorted(classic["disease"]) == sorted(acc["disease"])
    hashed = ADULTISH.anon.hash_identifiers(key=b"k" * 32, **ROLES)
    assert hashed["name"].str.len().eq(64).all()
    rnd = ADULTISH.anon.randomize(seed=0, scale=0.1, **ROLES)
    assert "name" not in rnd.columns and rnd["age"].between(23, 66).all()
