"""equal_groups (GeneralizationGreedyByOneEqualSizedGroups): the reference's documented examples
(outputs computed with cp2025 1.0.3), hand-checked cuts, and a straightforward reference."""

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.dtype import GeneralizationRange
from pdanon.partition.equal_groups import _cut


def cells(series: pd.Series) -> list:
    out = []
    for v in series.array:
        if isinstance(v, GeneralizationRange):
            out.append(v.values_set if v.kind == "unordered" else (v.min, v.max))
        else:
            out.append(v)
    return out


def rows_of(out, cols):
    return [list(t) for t in zip(*(cells(out[c]) for c in cols))]


#: the reference's bounds as they are (pdanon.recode.bounds widens rare ones by default)
EXACT = {"exact_bounds": True}

T1 = [[1, 20, 1], [2, 21, 1], [3, 22, 2], [4, 23, 2], [5, 30, 3], [6, 31, 3], [7, 40, 4],
      [8, 41, 4], [8, 41, 5]]


# ----------------------------------------------------------------------------- seed example


def test_seed_example_matches_reference():
    df = pd.DataFrame([[1, 1, 1, 1], [1, 1, 1, 1], [2, 2, 2, 2], [2, 2, 2, 3]], columns=list("abcd"))
    out = df.anon.k_anonymize(2, algorithm="equal_groups",
                              quasi_identifiers={c: "real" for c in "abcd"}, row_order="input")
    # cp2025: [[1,1,1,1],[1,1,1,1],[2,2,2,[2, 3]],[2,2,2,[2, 3]]], group_size 2
    assert rows_of(out, "abcd") == [[1, 1, 1, 1], [1, 1, 1, 1], [2, 2, 2, (2, 3)],
                                   [2, 2, 2, (2, 3)]]
    assert out.anon.info["group_size"] == 2
    assert out.anon.info["changed_cells"] == 2


def test_larger_group_size_like_reference():
    df = pd.DataFrame([[1, 5], [2, 5], [3, 6], [4, 7], [5, 7], [9, 8], [9, 8]], columns=["x", "y"])
    out = df.anon.k_anonymize(2, algorithm="equal_groups",
                              quasi_identifiers={"x": "real", "y": "real"}, row_order="input")
    # cp2025: x -> [1,3] x3, [4,9] x4; y -> [5,6] x3, [7,8] x4; group_size 3
    assert rows_of(out, "xy") == [[(1, 3), (5, 6)]] * 3 + [[(4, 9), (7, 8)]] * 4
    assert out.anon.info["group_size"] == 3


def test_mixed_kinds_match_reference():
    df = pd.DataFrame(T1, columns=list("abc"))
    # the reference's groups with their exact bounds (the default widens the rare ones,
    # tests/test_bounds_global.py)
    out = df.anon.k_anonymize(2, algorithm="equal_groups",
                              quasi_identifiers={"a": "real", "b": "ordered", "c": "unordered"},
                              row_order="input", options=EXACT)
    assert rows_of(out, "abc") == [
        [(1, 2), (20, 21), 1], [(1, 2), (20, 21), 1], [(3, 4), (22, 23), 2],
        [(3, 4), (22, 23), 2], [(5, 6), (30, 31), 3], [(5, 6), (30, 31), 3],
        [(7, 8), (40, 41), frozenset({4, 5})], [(7, 8), (40, 41), frozenset({4, 5})],
        [(7, 8), (40, 41), frozenset({4, 5})]]
    assert out.anon.info["group_size"] == 2
    out3 = df.anon.k_anonymize(3, algorithm="equal_groups",
                               quasi_identifiers={"a": "real", "b": "ordered", "c": "real"},
                               row_order="input", options=EXACT)
    assert rows_of(out3, "abc") == [[(1, 4), (20, 23), (1, 2)]] * 4 + \
        [[(5, 8), (30, 41), (3, 5)]] * 5
    assert out3.anon.info["group_size"] == 4


# ----------------------------------------------------------------------------- hand-checked


def test_cut_extends_over_equal_values_and_tail_joins_last_group():
    # rows per sorted value -> group of every value
    assert _cut(np.array([1, 1, 1, 1, 1]), 3).tolist() == [0, 0, 0, 0, 0]  # tail of 2 joins
    assert _cut(np.array([2, 3, 1, 3]), 3).tolist() == [0, 0, 1, 1]  # 2+3 rows, then 1+3
    assert _cut(np.array([4, 1, 1, 1]), 2).tolist() == [0, 1, 1, 1]  # 4 | 1+1 (+1 joins)
    assert _cut(np.array([1, 1, 1, 1, 1, 1, 1]), 3).tolist() == [0, 0, 0, 1, 1, 1, 1]


def test_already_anonymous_table_is_returned_unchanged():
    df = pd.DataFrame({"x": [1, 1, 2, 2]})
    out = df.anon.k_anonymize(2, algorithm="equal_groups", row_order="input")
    assert cells(out["x"]) == [1, 1, 2, 2]
    assert out.anon.info["group_size"] == 1 and out.anon.info["changed_cells"] == 0


def test_unordered_values_taken_most_frequent_first():
    df = pd.DataFrame({"c": ["r", "p", "p", "q", "q", "q", "s"]})
    out = df.anon.k_anonymize(2, algorithm="equal_groups", row_order="input")
    # order q(3) p(2) r(1) s(1): groups {q}, {p}, {r, s}
    assert cells(out["c"]) == [frozenset("rs"), "p", "p", "q", "q", "q", frozenset("rs")]
    app = df.anon.k_anonymize(2, algorithm="equal_groups",
                              options={"unordered_order": "appearance"}, row_order="input")
    # order r p q s: {r, p}, {q}, then s (1 row) joins the last group
    assert cells(app["c"]) == [frozenset("rp")] * 3 + [frozenset("qs")] * 3 + [frozenset("qs")]


def test_l_diversity_and_t_closeness_models():
    df = pd.DataFrame({"x": range(8), "d": list("aabbaabb")})
    out = df.anon.l_diversify(2, algorithm="equal_groups", sensitive=["d"], row_order="input")
    assert out.anon.l_diversity() >= 2
    # size 2 leaves {0, 1} = a, a; size 3: {0..2}, then {3..5} with the 2-row tail joining
    assert out.anon.info["group_size"] == 3
    assert cells(out["x"]) == [(0, 2)] * 3 + [(3, 7)] * 5
    t = df.anon.t_close(1e-9, algorithm="equal_groups", sensitive=["d"], row_order="input")
    assert t.anon.t_closeness() == 0.0
    with pytest.raises(pdanon.InvalidInputError, match="t = 0"):
        df.anon.t_close(0.0, algorithm="equal_groups", sensitive=["d"], row_order="input")


def test_budget_rejected():
    df = pd.DataFrame({"x": [1, 2, 3]})
    with pytest.raises(pdanon.InvalidInputError, match="never suppresses"):
        df.anon.k_anonymize(2, algorithm="equal_groups", max_suppressed_rows=1)


# ----------------------------------------------------------------------------- reference


def reference_equal_groups(columns, kinds, k, unordered_order="frequency"):
    """The documented search, cell by cell: returns (group_size, per column list of the
    group (frozenset of values) of every row)."""
    n = len(columns[0])

    def cut_column(values, kind, size):
        if kind == "unordered":
            count = Counter(values)
            first = {}
            for i, v in enumerate(values):
                first.setdefault(v, i)
            if unordered_order == "frequency":
                order = sorted(count, key=lambda v: (-count[v], first[v]))
            else:
                order = sorted(count, key=lambda v: first[v])
            stream = [v for v in order for _ in range(count[v])]
        else:
            stream = sorted(values)
        groups, i = [], 0
        while n - i >= size:
            j = i + size - 1
            while j + 1 < n and stream[j + 1] == stream[j]:
                j += 1
            groups.append(set(stream[i:j + 1]))
            i = j + 1
        if i < n:
            groups[-1] |= set(stream[i:])
        of = {v: frozenset(g) for g in groups for v in g}
        return [of[v] for v in values]

    def anonymous(table):
        rows = list(zip(*table))
        count = Counter(rows)
        return min(count[r] for r in rows) >= k

    plain = [[frozenset([v]) for v in col] for col in columns]
    if anonymous(plain):
        return 1, plain
    for size in range(max(k, 2), n + 1):
        table = [cut_column(col, kind, size) for col, kind in zip(columns, kinds)]
        if anonymous(table):
            return size, table
    raise AssertionError("unreachable")


tables = st.integers(1, 22).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 6), min_size=n, max_size=n),
        st.lists(st.sampled_from(["x", "y", "z", "w"]), min_size=n, max_size=n),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
        st.sampled_from(["real", "ordered", "unordered"]),
        st.integers(1, n),
        st.sampled_from(["frequency", "appearance"]),
    )
)


@settings(max_examples=150, deadline=None)
@given(tables)
def test_matches_reference(table):
    a, b, c, kind_c, k, how = table
    df = pd.DataFrame({"a": a, "b": b, "c": c}, index=np.arange(len(a)) * 3)
    kinds = ["real", "unordered", kind_c]
    before = df.copy()
    out = df.anon.k_anonymize(k, algorithm="equal_groups",
                              quasi_identifiers=dict(zip("abc", kinds)),
                              options={"unordered_order": how}, row_order="input")
    pd.testing.assert_frame_equal(df, before)
    assert out.index.equals(df.index)
    size, table_ref = reference_equal_groups([a, b, c], kinds, k, how)
    assert out.anon.info["group_size"] == size
    for j, col in enumerate("abc"):
        got = cells(out[col])
        values = [a, b, c][j]
        for i in range(len(a)):
            g = table_ref[j][i]
            if len(g) == 1:
                assert got[i] == values[i]
            elif kinds[j] == "unordered":
                assert got[i] == g
            else:
                assert got[i] == (min(g), max(g))
        # a published range / set is exactly the min..max / values of the rows carrying it
        carried = {}
        for v, g in zip(values, got):
            carried.setdefault(g, set()).add(v)
        for g, members in carried.items():
            if isinstance(g, tuple):
                assert g == (min(members), max(members))
            elif isinstance(g, frozenset):
                assert g == frozenset(members)


def test_ordered_column_with_unused_categories_aggregates():
    # categories that never occur form value groups without rows (found by fuzzing)
    df = pd.DataFrame({
        "edu": pd.Categorical(["mid"], categories=["lo", "mid", "hi"], ordered=True),
        "zip": pd.Categorical(["c"], categories=["a", "b", "c", "d"]),
    })
    out = df.anon.k_anonymize(1, method="aggregate", algorithm="equal_groups")
    assert out["edu"].tolist() == ["mid"] and out["zip"].tolist() == ["c"]
