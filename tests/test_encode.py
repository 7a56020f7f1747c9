"""Encoding columns of any dtype to numeric arrays and back."""

import datetime as dt

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import pdanon
from pdanon.encode import encode_column, factorize, missing


def roundtrip(series, kind):
    e = encode_column(series, kind)
    return e, list(e.categories.take(e.codes))


def test_numbers_real():
    e, back = roundtrip(pd.Series([3, 1, 2, 3]), "real")
    assert e.codes.tolist() == [2, 0, 1, 2]  # codes follow value order
    assert back == [3, 1, 2, 3]
    assert e.lo.tolist() == [3.0, 1.0, 2.0, 3.0]


def test_ordered_categorical_uses_category_order():
    s = pd.Series(pd.Categorical(["hi", "lo", "mid"], categories=["lo", "mid", "hi"], ordered=True))
    e, back = roundtrip(s, "ordered")
    assert e.codes.tolist() == [2, 0, 1]
    assert back == ["hi", "lo", "mid"]
    assert e.rank.tolist() == [2, 0, 1]


def test_rank_is_first_position_in_sorted_column():
    e = encode_column(pd.Series([5, 1, 5, 5, 9]), "ordered")
    # sorted: 1 5 5 5 9 -> rank(1)=0, rank(5)=1, rank(9)=4
    assert e.rank.tolist() == [1, 0, 1, 1, 4]


def test_booleans_tuples_and_objects_unordered():
    e, back = roundtrip(pd.Series([True, False, True]), "unordered")
    assert back == [True, False, True] and e.codes.tolist() == [0, 1, 0]
    tuples = pd.Series([(1, "a"), (2, "b"), (1, "a")], dtype=object)
    e, back = roundtrip(tuples, "unordered")
    assert back == [(1, "a"), (2, "b"), (1, "a")]
    frozen = pd.Series([frozenset({1}), frozenset({2}), frozenset({1})], dtype=object)
    assert roundtrip(frozen, "unordered")[0].codes.tolist() == [0, 1, 0]


def test_dates_are_ordered():
    s = pd.Series(pd.to_datetime(["2021-03-01", "2020-01-01", "2021-03-01"]))
    e, back = roundtrip(s, "ordered")
    assert e.codes.tolist() == [1, 0, 1]
    assert back[1] == pd.Timestamp("2020-01-01")


def test_missing_is_a_value_of_its_own_after_every_category():
    e = encode_column(pd.Series(["a", None, "a", np.nan]), "unordered")
    assert e.codes.tolist() == [0, 1, 0, 1]
    assert e.na.tolist() == [False, True, False, True]
    assert e.value_codes.tolist() == [0, -1, 0, -1]
    o = encode_column(pd.Series([3, None, 1], dtype="Int64"), "ordered")
    assert (o.codes.tolist(), o.lo.tolist()) == ([1, 2, 0], [1, 2, 0])
    r = encode_column(pd.Series([10.0, None, 4.0]), "real")
    # the sentinel lies one column span (6) above the maximum: far from every value
    assert (r.codes.tolist(), r.lo.tolist()) == ([1, 2, 0], [10.0, 16.0, 4.0])
    assert encode_column(pd.Series([None, None], dtype=float), "real").lo.tolist() == [1.0, 1.0]
    assert encode_column(pd.Series(["a"]), "unordered").na is None


def test_unhashable_values_are_a_kind_error():
    with pytest.raises(pdanon.KindError, match="unhashable"):
        encode_column(pd.Series([[1], [2]], dtype=object), "unordered")


def test_unsortable_ordered_values():
    with pytest.raises(pdanon.KindError, match="cannot be sorted"):
        encode_column(pd.Series([1, "a"], dtype=object), "ordered")


def test_objects_anonymize_as_unordered():
    df = pd.DataFrame({"t": [(1, 2), (1, 2), (3, 4), (3, 5)], "d": [dt.date(2020, 1, 1)] * 4})
    out = df.anon.k_anonymize(2, method="aggregate", row_order="input")
    assert out["t"].tolist() == [(1, 2), (1, 2), (3, 4), (3, 4)]


@given(st.lists(st.one_of(st.integers(-5, 5), st.text(max_size=2)), min_size=1, max_size=30))
def test_unordered_roundtrip_property(values):
    s = pd.Series(values, dtype=object)
    e, back = roundtrip(s, "unordered")
    assert back == values
    # equal cells <-> equal codes
    codes = e.codes
    for i in range(len(values)):
        for j in range(len(values)):
            assert (codes[i] == codes[j]) == (values[i] == values[j] and type(values[i]) is type(values[j]))


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=40))
def test_real_codes_follow_value_order(values):
    e = encode_column(pd.Series(values), "real")
    order = np.argsort(values, kind="stable")
    assert np.all(np.diff(e.codes[order]) >= 0)
    assert list(e.categories.take(e.codes)) == values


@given(st.lists(st.lists(st.integers(0, 3), min_size=12, max_size=12), min_size=1, max_size=5))
def test_class_labels_match_tuple_grouping(columns):
    from pdanon._groups import combine_codes

    codes = [np.asarray(c) for c in columns]
    labels = combine_codes(codes, 12)
    tuples = list(zip(*columns))
    first = {}
    expected = [first.setdefault(t, len(first)) for t in tuples]
    assert labels.tolist() == expected


def test_class_labels_survive_wide_keys():
    from pdanon._groups import combine_codes

    rng = np.random.default_rng(1)
    cols = [rng.integers(0, 2**20, 500) for _ in range(5)]  # product of widths >> 2**63
    tuples = list(zip(*cols))
    first = {}
    expected = [first.setdefault(t, len(first)) for t in tuples]
    assert combine_codes(cols, 500).tolist() == expected


def test_huge_integers_are_refused_as_real():
    big = 2**53
    df = pd.DataFrame({"id": [big, big + 1, big + 10, big + 11]})
    with pytest.raises(pdanon.KindError, match="above 2\\*\\*53"):
        df.anon.k_anonymize(2, quasi_identifiers={"id": "real"}, row_order="input")
    with pytest.warns(pdanon.ExactBoundsWarning):
        out = df.anon.k_anonymize(2, quasi_identifiers={"id": "ordered"}, algorithm="nearest",
                                  row_order="input", options={"exact_bounds": True})
    # exact bounds: ordered huge integers are kept as categories, not rounded floats
    cells = out["id"].tolist()
    assert (cells[0].min, cells[0].max) == (big, big + 1)
    assert (cells[2].min, cells[2].max) == (big + 10, big + 11)


# ============================================================================ the shared rules


def test_missing_is_one_definition_for_every_kind_of_hole():
    from pdanon.dtype import GeneralizationArray

    cells = np.array([1.0, None, np.nan, pd.NA, pd.NaT, "x"], dtype=object)
    assert missing(cells).tolist() == [False, True, True, True, True, False]
    gen = GeneralizationArray.from_bounds([1.0, np.nan], [2.0, np.nan], kind="real")
    assert missing(gen).tolist() == [False, True]
    assert missing(pd.Series([1, 2])).tolist() == [False, False]


def test_missing_refuses_only_when_asked_and_names_the_column():
    s = pd.Series([1.0, None, None], index=[10, 11, 12])
    assert missing(s, na="accept").sum() == 2
    with pytest.raises(pdanon.InvalidInputError,
                       match=r"column .a. has 2 missing value\(s\) \(first at index .*11"):
        missing(s, na="refuse", where="column 'a'", index=s.index)
    with pytest.raises(ValueError, match="na must be one of"):
        missing(s, na="drop")


def test_missing_counts_weigh_tables_of_distinct_values():
    with pytest.raises(pdanon.InvalidInputError, match="has 7 missing"):
        missing(pd.Series(["a", None]), na="refuse", counts=np.array([3, 7]))


def test_factorize_mixed_type_policies():
    mixed_numbers = pd.Series([2.5, 1, 2.5], dtype=object)
    with pytest.raises(pdanon.KindError, match="cannot be sorted"):
        factorize(mixed_numbers, sort=True, mixed="refuse")
    codes, uniques = factorize(mixed_numbers, sort=True, mixed="compare")
    assert codes.tolist() == [1, 0, 1] and list(uniques) == [1, 2.5]
    ints_and_text = pd.Series([1, "a", 2], dtype=object)
    with pytest.raises(pdanon.KindError, match="cannot be sorted"):
        factorize(ints_and_text, sort=True, mixed="compare")
    codes, uniques = factorize(ints_and_text, sort=True, mixed="pandas")
    assert list(uniques) == [1, 2, "a"]  # pandas: numbers before strings


def test_factorize_tells_unhashable_from_unsortable():
    lists = pd.Series([[1], [2]], dtype=object)
    for sort in (False, True):
        with pytest.raises(pdanon.KindError, match="column 'q' holds unhashable"):
            factorize(lists, sort=sort, where="column 'q'")


def test_check_value_types_refuses_or_accepts():
    from pdanon.encode import check_value_types

    s = pd.Series([1, "1"], dtype=object)
    with pytest.raises(pdanon.KindError, match="mixes value types"):
        check_value_types(s, where="column 'z'")
    check_value_types(s, mixed="accept")
    check_value_types(pd.Series(["a", None, "b"]))  # one type: fine


def test_every_face_uses_the_same_missing_rule():
    """The engine, the classic API and sensitive columns agree on what is missing."""
    from pdanon.algorithms._base import BlockColumn
    from pdanon.distributions import SensitiveColumn

    cells = np.array(["a", None, pd.NA, np.nan], dtype=object)
    col = SensitiveColumn.from_values(pd.Series(cells), "unordered", name="s")
    assert col.has_na and col.codes.tolist() == [0, 1, 1, 1]
    assert encode_column(pd.Series(cells), "unordered").codes.tolist() == [0, 1, 1, 1]
    block = BlockColumn(cells, "ordered", 0, role="quasi-identifier")
    assert pd.isna(pd.array(block.series)).tolist() == [False, True, True, True]


def test_check_finite_counts_both_infinities_and_ignores_nan_and_other_columns():
    from pdanon.encode import check_finite
    from pdanon._errors import InvalidInputError

    check_finite(pd.Series([1.0, np.nan, 2.0]), "a")
    check_finite(pd.Series([1, 2]), "a")  # integers hold no infinity
    check_finite(pd.Series(["inf", "x"]), "a")  # not numbers: other rules apply
    with pytest.raises(InvalidInputError) as e:
        check_finite(pd.Series([np.inf, 1.0, -np.inf]), "a", where="sensitive column 'a'",
                     index=["x", "y", "z"])
    assert str(e.value) == ("sensitive column 'a' has 2 infinite value(s) (first at index "
                            "'x'); replace them (e.g. df['a'].replace([np.inf, -np.inf], ...)) "
                            "or drop those rows before anonymizing")


def test_every_missing_marker_is_one_value_in_any_container():
    from pdanon.encode import factorize, value_counts

    s = pd.Series(["a", None, np.nan, pd.NA, pd.NaT], dtype=object)
    for values in (s, s.array, s.to_numpy()):
        codes, uniques = factorize(values, na_sentinel=False)
        assert codes.tolist() == [0, 1, 1, 1, 1]
        assert uniques[0] == "a" and pd.isna(uniques[1]) and len(uniques) == 2
    assert value_counts(s.array)[1].tolist() == [1, 4]


def test_generalized_sets_encode_to_one_code_per_distinct_cell():
    s = pd.Series(pd.array([{"a", "b"}, "c", None, {"b", "a"}, "c"],
                           dtype="generalization[unordered]"))
    e = encode_column(s, "unordered")
    assert e.generalized and e.kind == "unordered"
    assert e.codes.tolist() == [0, 1, 2, 0, 1]  # missing: a value of its own, after the rest
    assert e.na.tolist() == [False, False, True, False, False]
    assert not hasattr(e, "membership")  # no rows x categories matrix is built


def test_a_sensitive_column_mixing_numbers_and_text_is_data_with_a_warning():
    """3 and '3' are two sensitive values (l = 2 here), but no file keeps the column as it
    is (Parquet refuses it, CSV writes both as 3): the publisher is told before releasing."""
    import pdanon

    df = pd.DataFrame({"age": [30, 31, 32, 33], "s": pd.Series([3, "3", 3, "3"], dtype=object)})
    with pytest.warns(pdanon.KindWarning, match=r"sensitive column 's' mixes value types "
                                                 r"\['int', 'str'\]"):
        out = df.anon.l_diversify(2, quasi_identifiers={"age": "real"},
                                  sensitive={"s": "unordered"})
    assert out.anon.l_diversity() == 2
