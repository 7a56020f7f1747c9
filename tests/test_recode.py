"""pdanon.recode: group labels -> recoded quasi-identifier columns (suppress, generalize,
aggregate), exact on small hand-checked columns, and the recoding rules seen through
``df.anon.k_anonymize``."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon import recode
from pdanon.dtype import GeneralizationRange
from pdanon.encode import encode_column
from tests._helpers.memory import run_measured

#: two groups of three rows
LABELS = np.array([0, 0, 0, 1, 1, 1])


def enc(values, kind):
    s = pd.Series(values)
    return s, encode_column(s, kind)


# ----------------------------------------------------------------------------- aggregate


def test_aggregate_real_is_the_group_mean():
    s, col = enc([1, 3, 5, 10, 10, 10], "real")
    out, changed = recode.aggregate(s, col, LABELS)
    # (1 + 3 + 5) / 3 = 3; the second group is constant; rows 0 and 2 change, row 1 is 3
    assert out.tolist() == [3.0, 3.0, 3.0, 10.0, 10.0, 10.0]
    assert changed == 2


def test_aggregate_ordered_is_the_middle_of_the_sorted_group():
    s, col = enc([5, 1, 3, 7, 2, 9], "ordered")
    out, changed = recode.aggregate(s, col, LABELS)
    # sorted groups [1, 3, 5] and [2, 7, 9]: position 3 // 2 = 1 -> 3 and 7
    assert out.tolist() == [3, 3, 3, 7, 7, 7]
    assert changed == 4  # 5, 1, 2, 9 change; 3 and 7 stay
    assert out.dtype == s.dtype


def test_aggregate_unordered_is_the_mode():
    s, col = enc(["a", "b", "b", "c", "d", "c"], "unordered")
    out, changed = recode.aggregate(s, col, LABELS)
    assert out.tolist() == ["b", "b", "b", "c", "c", "c"]
    assert changed == 2  # a -> b, d -> c


def test_aggregate_mode_ties_go_to_the_value_met_first_in_build_order():
    s, col = enc(["p", "q", "q", "p"], "unordered")
    one_group = np.zeros(4, dtype=int)
    assert recode.aggregate(s, col, one_group)[0].tolist() == ["p"] * 4
    # the group was built from row 1 on: q is met first
    out, changed = recode.aggregate(s, col, one_group, np.array([1, 0, 2, 3]))
    assert out.tolist() == ["q"] * 4 and changed == 2


def test_aggregate_refuses_generalized_cells():
    g = pd.Series(pd.array([pdanon.GeneralizationRange(1, 2, "real"), 3],
                           dtype="generalization[real]"), name="age")
    with pytest.raises(pdanon.KindError, match="'age' is already generalized"):
        recode.aggregate(g, encode_column(g, "real"), np.array([0, 0]))


def test_group_means_keep_a_constant_group_exact():
    values = np.array([0.1, 0.1, 0.1, 0.2, 0.4])
    means = recode.group_means(values, np.array([0, 0, 0, 1, 1]), 2)
    assert means[:3].tolist() == [0.1, 0.1, 0.1]  # not 0.30000000000000004 / 3
    assert means[3:] == pytest.approx([0.3, 0.3])


# ----------------------------------------------------------------------------- suppress, generalize


def test_suppress_blanks_the_groups_that_are_not_constant():
    s, col = enc([1, 1, 1, 2, 3, 2], "real")
    out, changed = recode.suppress(s, col, LABELS)
    assert out.iloc[:3].tolist() == [1, 1, 1] and out.iloc[3:].isna().all()
    assert changed == 3


def test_generalize_real_gives_min_max_and_keeps_constant_groups():
    s, col = enc([1, 3, 5, 10, 10, 10], "real")
    out, changed = recode.generalize(s, col, LABELS)
    assert out.astype(str).tolist() == ["[1, 5]"] * 3 + ["10"] * 3
    assert str(out.dtype) == "generalization[real]" and changed == 3


def test_generalize_unordered_gives_the_set_of_the_group():
    s, col = enc(["x", "y", "x", "z", "z", "z"], "unordered")
    out, changed = recode.generalize(s, col, LABELS)
    assert out.astype(str).tolist() == ["{x, y}"] * 3 + ["z"] * 3
    assert changed == 3


def test_recode_column_dispatches_and_masks_missing_rows():
    s, col = enc([1.0, 3.0, 5.0, 10.0, 10.0, 10.0], "real")
    missing = np.array([False] * 5 + [True])
    for method in recode.METHODS:
        out, _ = recode.recode_column(method, s, col, LABELS, missing=missing)
        assert out.isna().tolist() == ([True] * 3 if method == "suppress" else [False] * 3) \
            + [False, False, True], method
    agg, changed = recode.recode_column("aggregate", s, col, LABELS)
    assert agg.tolist() == [3.0, 3.0, 3.0, 10.0, 10.0, 10.0] and changed == 2
    assert math.isnan(recode.recode_column("suppress", s, col, LABELS)[0].iloc[0])
    with pytest.raises(ValueError, match="unknown method 'blur'"):
        recode.recode_column("blur", s, col, LABELS)


# ----------------------------------------------------------------------------- through the accessor


def test_unordered_generalization_gives_sets():
    df = pd.DataFrame({"c": ["x", "y", "x", "y"], "n": [1, 1, 2, 2]})
    out = df.anon.k_anonymize(2, quasi_identifiers={"c": "unordered", "n": "real"}, row_order="input")
    assert out["c"].astype(str).tolist() == ["{x, y}", "{x, y}", "{x, y}", "{x, y}"]
    assert out["n"].astype(str).tolist() == ["1", "1", "2", "2"]


def test_aggregate_ordered_takes_middle_of_sorted_group_and_mode_ties_first_met():
    df = pd.DataFrame({"o": [3, 1, 2, 9], "u": ["b", "a", "a", "b"]})
    out = df.anon.k_anonymize(4, method="aggregate",
                              quasi_identifiers={"o": "ordered", "u": "unordered"})
    # one group; sorted o = [1, 2, 3, 9] -> position 4 // 2 = 2 -> 3
    assert out["o"].tolist() == [3, 3, 3, 3]
    # mode tie a/b (2 each): seed row 0 is 'b', so 'b' was met first
    assert out["u"].tolist() == ["b", "b", "b", "b"]


def test_aggregate_keeps_constant_real_groups_exact():
    df = pd.DataFrame({"x": [0.1] * 3 + [0.7] * 3})
    out = df.anon.k_anonymize(3, method="aggregate", algorithm="nearest", row_order="input")
    assert out["x"].tolist() == [0.1] * 3 + [0.7] * 3
    assert out.anon.info["changed_cells"] == 0


# ----------------------------------------------------------------------------- generalized sets


def _sets(cells):
    return pd.Series(pd.array(cells, dtype="generalization[unordered]"))


def _python(series):
    return [v.values_set if isinstance(v, GeneralizationRange) else
            (None if pd.isna(v) else v) for v in series]


def test_generalize_generalized_sets_unites_each_group():
    s = _sets([{"a", "b"}, "c", {"b", "c"}, None, "a", {"a", "b"}])
    col = encode_column(s, "unordered")
    out, changed = recode.generalize(s, col, np.array([0, 0, 1, 1, 2, 2]),
                                     missing=np.array([False] * 5 + [True]))
    # group 1 mixes {b, c} with a missing cell: both rows publish "{b, c} or missing"; row 5
    # is suppressed, and takes no part in its group's cell: row 4 alone publishes its own 'a'
    assert _python(out) == [frozenset("abc"), frozenset("abc"), frozenset("bc"),
                            frozenset("bc"), "a", None]
    assert out.array.or_missing.tolist() == [False, False, True, True, False, False]
    assert out.dtype.categories.tolist() == ["a", "b", "c"]
    assert changed == 5  # rows 0, 1 (a set of the group), 2, 3 ("or missing"), 5 (withheld)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.sampled_from("abcdef"),
                                    st.sets(st.sampled_from("abcdef"), min_size=2, max_size=4)),
                          st.integers(0, 4)), min_size=1, max_size=25))
def test_generalize_generalized_sets_is_the_union_of_the_group(rows):
    cells = [c for c, _ in rows]
    labels = np.unique([g for _, g in rows], return_inverse=True)[1].reshape(-1)
    s = _sets(cells)
    out, _ = recode.generalize(s, encode_column(s, "unordered"), labels)
    union = {}
    for c, g in zip(cells, labels):
        union.setdefault(g, set()).update(c if isinstance(c, set) else {c})
    expect = [frozenset(union[g]) if len(union[g]) > 1 else next(iter(union[g])) for g in labels]
    assert _python(out) == expect
    used = sorted(set().union(*union.values()))
    assert out.dtype.categories.tolist() == used  # published categories only


def test_published_categories_of_sets_keep_the_members_of_published_cells():
    s = pd.Series(pdanon.GeneralizationArray.from_members(
        [0, 2, 3, 4], [2, 0, 1, 0], ["a", "b", "c", "d"], mask=[False, True, False]))
    out = recode.published_categories(s)  # 'b' is only in a missing cell, 'd' in none
    assert out.dtype.categories.tolist() == ["a", "c"]
    assert _python(out) == [frozenset("ac"), None, "a"]
    assert recode.used_categories(s).tolist() == [True, False, True, False]
    with pytest.raises(ValueError, match="not among the categories"):
        recode.restrict_categories(s, np.array([True, True, False, True]))


@pytest.mark.slow
def test_generalize_generalized_sets_of_many_categories_is_sparse():
    got = run_measured("""
        import numpy as np, pandas as pd
        from pdanon import recode
        from pdanon.dtype import GeneralizationArray
        from pdanon.encode import encode_column
        n = 100_000
        rng = np.random.default_rng(2)
        first = GeneralizationArray.from_groups(rng.permutation(n), np.arange(n) // 2,
                                                kind="unordered", categories=np.arange(n))
        s = pd.Series(first)                     # 50,000 pairs over 100,000 categories
        col = encode_column(s, "unordered")
        labels = np.arange(n) // 10              # five pairs per group
    """, """
        out, changed = recode.generalize(s, col, labels)
    """, """
        assert out.array.member_counts.tolist() == [10] * n and changed == n
    """)
    assert got["peak"] < 100 * 2**20, got
