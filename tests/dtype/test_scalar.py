"""The GeneralizationRange scalar and the GeneralizationDtype object."""

import pickle

import numpy as np
import pandas as pd
import pytest

from pdanon.dtype import GeneralizationDtype, GeneralizationRange

R = GeneralizationRange


# --------------------------------------------------------------------------- constructor


def test_reference_constructor_real():
    r = R(1, 4, "real")
    assert (r.min, r.max) == (1, 4)
    assert r.kind == r.column_type == "real"
    assert r.values_set is None


def test_default_column_type_is_ordered():
    r = R(1, 4)
    assert r.column_type == "ordered"


def test_reference_constructor_unordered():
    r = R(column_type="unordered", column_values=np.array(["a", "b", "c"]))
    assert r.values_set == frozenset({"a", "b", "c"})
    assert r.min is None and r.max is None
    assert all(type(v) is str for v in r.values_set)


def test_unordered_duplicates_collapse():
    assert R(column_type="unordered", column_values=["a", "a", "b"]).values_set == {"a", "b"}


def test_range_from_column_values():
    r = R(column_type="real", column_values=[5, 2, np.nan, 9])
    assert (r.min, r.max) == (2, 9)


def test_only_one_bound_gives_degenerate_range():
    assert (R(3, None, "real").min, R(3, None, "real").max) == (3, 3)
    assert (R(None, 7, "real").min, R(None, 7, "real").max) == (7, 7)


def test_numpy_scalars_become_python():
    r = R(np.int64(1), np.int64(4), "real")
    assert type(r.min) is int and type(r.max) is int


def test_min_greater_than_max_names_both():
    with pytest.raises(ValueError, match=r"5.*greater.*2"):
        R(5, 2, "real")


def test_missing_bounds_rejected():
    with pytest.raises(ValueError):
        R(np.nan, 3, "real")
    with pytest.raises(ValueError):
        R(None, None, "real")


def test_unknown_column_type():
    with pytest.raises(ValueError, match="column_type"):
        R(1, 2, "numeric")


def test_unordered_needs_values():
    with pytest.raises(ValueError):
        R(column_type="unordered")
    with pytest.raises(TypeError):
        R(column_type="unordered", column_values="abc")


def test_ordered_strings_are_not_order_checked():
    # the scalar does not know the category order ('HS-grad' < 'Bachelors' in education)
    r = R("HS-grad", "Bachelors", "ordered")
    assert (r.min, r.max) == ("HS-grad", "Bachelors")


# --------------------------------------------------------------------------- eq / hash / order


def test_equality_and_hash():
    assert R(1, 4, "real") == R(1, 4, "real")
    assert R(1, 4, "real") != R(1, 5, "real")
    assert hash(R(1, 4, "real")) == hash(R(1.0, 4.0, "real"))
    assert len({R(1, 4, "real"), R(1, 4, "real"), R(2, 4, "real")}) == 2
    a = R(column_type="unordered", column_values=["a", "b"])
    b = R(column_type="unordered", column_values=["b", "a"])
    assert a == b and hash(a) == hash(b)
    assert a != R(column_type="unordered", column_values=["a", "c"])


def test_degenerate_cells_equal_plain_values():
    assert R(5, 5, "real") == 5
    assert hash(R(5, 5, "real")) == hash(5)
    single = R(column_type="unordered", column_values=["x"])
    assert single == "x" and hash(single) == hash("x")


def test_set_equals_python_set():
    s = R(column_type="unordered", column_values=["a", "b"])
    assert s == frozenset({"a", "b"}) and s == {"a", "b"}


def test_range_never_equals_tuple():
    assert R(1, 4, "real") != (1, 4)
    assert R(1, 4, "real") != 1


def test_real_and_ordered_ranges_with_same_bounds_are_equal():
    assert R(1, 4, "real") == R(1, 4, "ordered")


def test_order_compares_min():
    a, b = R(1, 4, "real"), R(5, 6, "real")
    assert a < b and a <= b and b > a and b >= a
    assert not (b < a)
    assert sorted([b, a]) == [a, b]


def test_order_with_plain_numbers():
    r = R(20, 29, "real")
    assert r < 30 and r > 10 and 30 > r and 10 < r
    assert not (r < np.nan) and not (r > np.nan)


def test_order_unsupported_for_sets_and_unknown_types():
    s = R(column_type="unordered", column_values=["a", "b"])
    with pytest.raises(TypeError):
        s < s  # noqa: B015
    with pytest.raises(TypeError):
        R(1, 2, "real") < object()  # noqa: B015
    assert R(1, 2, "real").__lt__(object()) is NotImplemented
    assert R(1, 2, "real").__lt__(s) is NotImplemented


def test_not_iterable_and_scalar_for_pandas():
    r = R(1, 4, "real")
    with pytest.raises(TypeError):
        iter(r)
    assert not pd.api.types.is_list_like(r)
    assert not pd.api.types.is_list_like(R(column_type="unordered", column_values=["a", "b"]))


# --------------------------------------------------------------------------- contains


def test_contains_range():
    r = R(20, 29, "real")
    assert 20 in r and 29 in r and 24.5 in r
    assert 30 not in r and np.nan not in r and "x" not in r


def test_contains_set():
    s = R(column_type="unordered", column_values=["Asian", "White"])
    assert "White" in s and "Black" not in s and [1] not in s and None not in s


# --------------------------------------------------------------------------- repr


@pytest.mark.parametrize(
    "cell, text",
    [
        (R(1, 4, "real"), "[1, 4]"),
        (R(20.0, 29.0, "real"), "[20, 29]"),
        (R(20.5, 29, "real"), "[20.5, 29]"),
        (R("HS", "Masters", "ordered"), "[HS, Masters]"),
        (R(column_type="unordered", column_values=["White", "Asian"]), "{Asian, White}"),
        (R(column_type="unordered", column_values=[10, 9]), "{10, 9}"),
    ],
)
def test_repr(cell, text):
    assert repr(cell) == text
    assert str(cell) == text


def test_pickle_round_trip():
    for cell in (R(1, 4, "real"), R(column_type="unordered", column_values=["a", "b"])):
        back = pickle.loads(pickle.dumps(cell))
        assert back == cell and back.kind == cell.kind


def test_is_plain():
    assert R(3, 3, "real").is_plain and not R(3, 4, "real").is_plain
    assert R(column_type="unordered", column_values=["a"]).is_plain


# --------------------------------------------------------------------------- dtype object


def test_dtype_aliases_and_equality():
    for kind in ("real", "ordered", "unordered"):
        d = GeneralizationDtype(kind)
        assert d.name == f"generalization[{kind}]"
        assert d == d.name and str(d) == d.name
        assert GeneralizationDtype.construct_from_string(d.name) == d
        assert pd.api.types.pandas_dtype(d.name) == d
    assert GeneralizationDtype("real").kind == "O"  # numpy kind char, pandas needs it


def test_dtype_categories_matter():
    a = GeneralizationDtype("unordered", ["a", "b"])
    b = GeneralizationDtype("unordered", ["b", "a"])
    c = GeneralizationDtype("unordered", ["a", "b"])
    assert a != b and a == c and hash(a) == hash(c)
    assert a == "generalization[unordered]" and b == "generalization[unordered]"
    assert GeneralizationDtype("unordered") != a


def test_dtype_validation():
    with pytest.raises(ValueError):
        GeneralizationDtype("numeric")
    with pytest.raises(ValueError):
        GeneralizationDtype("real", ["a"])
    with pytest.raises(ValueError, match="unique"):
        GeneralizationDtype("unordered", ["a", "a"])
    with pytest.raises(TypeError):
        GeneralizationDtype.construct_from_string("generalization[foo]")


def test_dtype_repr_and_pickle():
    d = GeneralizationDtype("ordered", ["low", "mid", "high"])
    assert repr(d) == "GeneralizationDtype('ordered', categories=['low', 'mid', 'high'])"
    assert pickle.loads(pickle.dumps(d)) == d
    big = GeneralizationDtype("unordered", [f"v{i}" for i in range(50)])
    assert "50 categories" in repr(big)


def test_common_dtype_merges_categories():
    a = GeneralizationDtype("unordered", ["a", "b"])
    b = GeneralizationDtype("unordered", ["c", "a"])
    assert a._get_common_dtype([a, b]).categories.tolist() == ["a", "b", "c"]
    o1 = GeneralizationDtype("ordered", ["low", "high"])
    o2 = GeneralizationDtype("ordered", ["low", "mid"])
    o3 = GeneralizationDtype("ordered", ["mid", "high"])
    merged = o1._get_common_dtype([o1, o2, o3])
    assert merged.categories.tolist() == ["low", "mid", "high"]
    conflict = GeneralizationDtype("ordered", ["high", "low"])
    assert o1._get_common_dtype([o1, conflict]) is None
    real = GeneralizationDtype("real")
    assert real._get_common_dtype([real, np.dtype("int64")]) == real
    assert real._get_common_dtype([real, a]) is None
    assert a._get_common_dtype([a, np.dtype("int64")]) is None


# ----------------------------------------------------------------------------- closedness


def test_closedness_of_the_scalar():
    assert GeneralizationRange(30, 35, "real").closed == "both"
    half = GeneralizationRange.interval(30, 35, "real", closed="left")
    assert repr(half) == "[30, 35)" and half.closed == "left"
    assert (30 in half, 35 in half, 34.9 in half) == (True, False, True)
    assert half != GeneralizationRange(30, 35, "real")
    assert hash(half) != hash(GeneralizationRange(30, 35, "real"))
    assert half == GeneralizationRange.interval(30, 35, "real", closed="left")
    right = GeneralizationRange.interval(30, 35, "real", closed="right")
    assert repr(right) == "(30, 35]" and (30 in right, 35 in right) == (False, True)
    assert repr(GeneralizationRange.interval(1, 2, "real", closed="neither")) == "(1, 2)"
    assert pickle.loads(pickle.dumps(half)).closed == "left"
    with pytest.raises(ValueError, match=r"\[5, 5\) is empty"):
        GeneralizationRange.interval(5, 5, "real", closed="left")
    with pytest.raises(ValueError, match="closed must be one of"):
        GeneralizationRange.interval(1, 2, "real", closed="open")
    with pytest.raises(ValueError, match="a set has no ends"):
        GeneralizationRange.interval(1, 2, "unordered")


def test_closedness_in_arrays_text_and_intervals():
    arr = pd.array(["[30, 35)", "[30, 35]", "(30, 35]", pd.Interval(30, 35, closed="neither"),
                    None], dtype="generalization[real]")
    assert arr.closed.tolist() == ["left", "both", "right", "neither", "both"]
    assert arr.contains([35, 35, 30, 30, 30]).tolist() == [False, True, False, False, False]
    assert arr.contains([30, 30, 35, 31, 30]).tolist() == [True, True, True, True, False]
    s = pd.Series(arr)
    assert s.nunique() == 4 and s.duplicated().sum() == 0
    assert s.sort_values().astype(str).tolist()[:4] == ["[30, 35)", "[30, 35]", "(30, 35)",
                                                        "(30, 35]"]
    assert (s == GeneralizationRange.interval(30, 35, "real", closed="left")).tolist() == [
        True, False, False, False, False]
    h = pd.util.hash_pandas_object(s, index=False)
    assert h.nunique() == 5
    assert pd.array(arr.to_text(na_rep=None), dtype="generalization[real]").closed.tolist() == \
        arr.closed.tolist()
    with pytest.raises(ValueError, match="ordered categories always holds both"):
        pd.array(["[a, b)"], dtype=GeneralizationDtype("ordered", ["a", "b"]))
