"""``s.anon`` (issue 28.7): the column-level operations on one Series equal the frame methods
on ``s.to_frame()``; table methods point to ``df[["col"]]``."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, strategies as st

import pdanon
from pdanon.hierarchy import intervals, masking

INCOME = pd.Series([20.0, 35.0, np.nan, 900.0], index=[10, 11, 12, 13], name="income")


@pytest.fixture(autouse=True)
def _no_role_guess():
    """A Series operation decides its column: nothing is inferred, nothing is said."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", pdanon.RoleWarning)
        yield


def test_top_and_bottom_code_keep_index_name_and_missing():
    before = INCOME.copy()
    out = INCOME.anon.top_code(threshold=100)
    assert out.tolist()[:2] == [20.0, 35.0] and np.isnan(out[12]) and out[13] == 100.0
    assert out.index.tolist() == [10, 11, 12, 13] and out.name == "income"
    assert out.anon.info["columns"]["income"]["cells_changed"] == 1
    pd.testing.assert_series_equal(INCOME, before)  # the input is untouched
    low = INCOME.anon.bottom_code(threshold=30, value=0)
    assert low.fillna(-1).tolist() == [0.0, 35.0, -1.0, 900.0]


@pytest.mark.parametrize("method, options", [
    ("top_code", {"quantile": 0.5}),
    ("bottom_code", {"threshold": 30}),
    ("add_noise", {"noise": 0.3, "seed": 4}),
    ("rank_swap", {"p": 50, "seed": 1}),
])
def test_numeric_operations_equal_the_frame_method(method, options):
    frame_out = getattr(INCOME.to_frame().anon, method)(["income"], insensitive=["income"],
                                                        row_order="input", **options)
    series_out = getattr(INCOME.anon, method)(**options)
    pd.testing.assert_series_equal(series_out, frame_out["income"])
    assert series_out.anon.info == frame_out.anon.info


def test_pram_equals_the_frame_method_and_keeps_categories():
    sex = pd.Series(["F", "M", None, "F"] * 25, name="sex")
    out = sex.anon.pram(p=0.7, seed=3)
    ref = sex.to_frame().anon.pram("sex", p=0.7, seed=3, insensitive=["sex"],
                                   row_order="input")["sex"]
    pd.testing.assert_series_equal(out, ref)
    assert set(out.dropna()) <= {"F", "M"} and out.isna().sum() == 25


def test_generalize_with_a_hierarchy():
    age = pd.Series([23, 37, None], name="age")
    out = age.anon.generalize(1, hierarchy=intervals([10]))
    assert out.astype(str).tolist()[:2] == ["[20, 29]", "[30, 39]"] and out.isna().tolist() == [
        False, False, True]
    assert str(out.dtype) == "generalization[real]"
    assert out.anon.info["levels"] == {"age": 1}
    zips = pd.Series(["04777", "04778", "10001"], name="zip")
    assert zips.anon.generalize(1, hierarchy=masking(), labels=True).tolist() == \
        ["0477*", "0477*", "1000*"]
    # the kind can be stated: digit codes as an ordered column
    ordered = zips.anon.generalize(0, hierarchy=masking(), kind="ordered")
    assert ordered.tolist() == zips.tolist()


def test_hash_identifiers_and_the_key_stays_out_of_files(tmp_path):
    phone = pd.Series(["+7900", None, "+7900"], name="phone")
    out = phone.anon.hash_identifiers(key=b"k" * 32)
    ref = phone.to_frame().anon.hash_identifiers(key=b"k" * 32, identifiers=["phone"],
                                                row_order="input")
    assert out.tolist() == ref["phone"].tolist() and out[0] == out[2] and out.isna()[1]
    generated = phone.anon.hash_identifiers()
    key = bytes(generated.anon.info["key"])
    path = tmp_path / "p.parquet"
    generated.to_frame().to_parquet(path)
    assert key not in path.read_bytes() and key.hex().encode() not in path.read_bytes()


def test_unnamed_series_stays_unnamed():
    out = pd.Series([1, 5, 70]).anon.top_code(threshold=10)
    assert out.name is None and out.tolist() == [1, 5, 10]


@pytest.mark.parametrize("method", ["k_anonymize", "l_diversify", "metrics", "risk",
                                    "k_anonymity", "microaggregate", "explain"])
def test_table_methods_point_to_a_one_column_frame(method):
    with pytest.raises(AttributeError) as e:
        getattr(pd.Series([1, 2], name="age").anon, method)
    assert str(e.value).startswith(
        f"{method} works on a table, not on one column: select the column as a frame, "
        f"df[['age']].anon.{method}(...)")
    assert "A Series has: generalize, top_code, bottom_code" in str(e.value)


def test_unknown_attribute_lists_what_a_series_has():
    with pytest.raises(AttributeError, match="no attribute 'foo'; a Series has: generalize"):
        pd.Series([1]).anon.foo  # noqa: B018


def test_a_misspelled_keyword_gets_a_did_you_mean():
    with pytest.raises(pdanon.keywords.UnknownKeywordError,
                       match=r"top_code\(\) got an unexpected keyword argument 'treshold'; did "
                             r"you mean threshold=\? It takes: threshold, quantile, value$"):
        INCOME.anon.top_code(treshold=100)


def test_bad_input_names_the_column():
    with pytest.raises(pdanon.InvalidInputError, match="income"):
        INCOME.anon.top_code(threshold=10, quantile=0.5)


@given(st.lists(st.one_of(st.none(), st.integers(-1000, 1000)), min_size=1, max_size=40),
       st.integers(-1000, 1000))
def test_top_code_property(values, threshold):
    s = pd.Series(values, dtype="Float64", name="x")
    out = s.anon.top_code(threshold=threshold)
    assert out.isna().tolist() == s.isna().tolist()
    kept = s.notna()
    assert (out[kept] <= threshold).all()
    assert (out[kept & (s <= threshold)] == s[kept & (s <= threshold)]).all()
