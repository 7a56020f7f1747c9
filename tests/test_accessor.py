"""The DataFrame accessor's generic behaviour (``df.anon``): roles and their errors,
``with_schema``, ``info``, chaining, and that no anonymizer changes the frame it is called on.
The anonymizers' own outputs are tested in tests/accessor/."""

import copy

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon.hierarchy import intervals
from pdanon.models import KAnonymity
from tests._helpers.frames import roles_frame as frame
from tests._helpers.frames import seed_frame


def patients():
    """Eight rows with every role, a categorical, a missing sensitive value, attrs and a
    non-default index."""
    df = pd.DataFrame({
        "name": ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"],
        "age": [23, 27, 35, 38, 41, 44, 52, 58],
        "edu": pd.Categorical(["lo", "hi", "lo", "hi", "mid", "mid", "hi", "lo"],
                              categories=["lo", "mid", "hi"], ordered=True),
        "zip": ["101", "102", "101", "102", "201", "202", "201", "202"],
        "disease": ["flu", "hiv", "flu", "gout", "hiv", "flu", None, "gout"],
    }, index=[f"p{i}" for i in range(8)])
    df.attrs["source"] = {"file": "patients.csv"}
    return df


ROLES = dict(identifiers=["name"], quasi_identifiers={"age": "real", "edu": "ordered",
                                                       "zip": "unordered"},
             sensitive=["disease"])
KEY = b"0123456789abcdef0123456789abcdef"

# every method of df.anon that returns a new frame
ANONYMIZERS = {
    "k_anonymize": lambda df: df.anon.k_anonymize(2, **ROLES, row_order="input"),
    "k_anonymize_suppress": lambda df: df.anon.k_anonymize(2, method="suppress",
                                                           algorithm="mondrian", **ROLES, row_order="input"),
    "k_anonymize_aggregate": lambda df: df.anon.k_anonymize(2, method="aggregate", **ROLES, row_order="input"),
    "l_diversify": lambda df: df.anon.l_diversify(2, algorithm="mondrian", **ROLES, row_order="input"),
    "t_close": lambda df: df.anon.t_close(0.6, algorithm="mondrian", **ROLES, row_order="input"),
    "anonymize": lambda df: df.anon.anonymize(KAnonymity(4), algorithm="datafly", **ROLES, row_order="input"),
    "generalize": lambda df: df.anon.generalize({"age": 1}, hierarchies={"age": intervals([10])},
                                                **ROLES, row_order="input"),
    "shuffle": lambda df: df.anon.shuffle(["disease"], seed=0, **ROLES, row_order="input"),
    "randomize": lambda df: df.anon.randomize(["age"], low=-3, high=3, seed=0, **ROLES, row_order="input"),
    "hash_identifiers": lambda df: df.anon.hash_identifiers(key=KEY, **ROLES, row_order="input"),
    "drop_identifiers": lambda df: df.anon.drop_identifiers(**ROLES, row_order="input"),
    "with_schema": lambda df: df.anon.with_schema(pdanon.schema(**ROLES)),
}


@pytest.mark.parametrize("name", sorted(ANONYMIZERS))
def test_input_frame_unchanged_by_every_anonymizer(name):
    df = patients()
    before, attrs = df.copy(deep=True), copy.deepcopy(df.attrs)
    if name == "with_schema":  # a frame with roles, not a result: its attrs are the input's
        out = ANONYMIZERS[name](df)
        assert out.attrs["source"] == {"file": "patients.csv"}
    else:
        # attrs travel with Parquet files and pickles: the input's own are not carried into
        # a result (they may hold a cohort's ids), and the warning names them
        with pytest.warns(UserWarning, match=r"the input's attrs \['source'\] are not "
                                             r"carried into the result"):
            out = ANONYMIZERS[name](df)
        assert set(out.attrs) == {"pdanon"}
    assert out is not df
    pd.testing.assert_frame_equal(df, before)
    assert df.attrs == attrs and "pdanon" not in df.attrs
    assert out.index.equals(df.index)


@pytest.mark.parametrize("name", sorted(ANONYMIZERS))
def test_every_anonymizer_drops_or_keeps_identifiers_as_documented(name):
    """Identifiers are dropped, except by hash_identifiers (pseudonyms) and with_schema (no
    recoding); generalize drops them like every other transformation."""
    out = ANONYMIZERS[name](patients())
    if name in ("hash_identifiers", "with_schema"):
        assert "name" in out.columns
        assert (out["name"] == patients()["name"]).all() == (name != "hash_identifiers")
    else:
        assert "name" not in out.columns


def test_info_is_a_copy_and_empty_for_a_plain_frame():
    assert patients().anon.info == {}
    out = patients().anon.k_anonymize(2, algorithm="nearest", **ROLES)
    info = out.anon.info
    assert info["algorithm"] == "nearest" and info["dropped_identifiers"] == ["name"]
    info["algorithm"] = "changed"
    assert out.anon.info["algorithm"] == "nearest"


def test_roles_are_remembered_by_the_output():
    out = patients().anon.k_anonymize(2, **ROLES, row_order="input")
    r = out.anon.roles()
    assert r.qi == ["age", "edu", "zip"] and r.identifiers == ()
    assert r.sensitive == {"disease": "unordered"}
    # a second step needs no role keywords: the disease column stays sensitive
    again = out.anon.l_diversify(2, algorithm="mondrian", row_order="input")
    assert again["disease"].tolist() == patients()["disease"].tolist()


# ----------------------------------------------------------------------------- moved


def test_roles_identifiers_dropped_sensitive_kept_index_kept():
    df = pd.DataFrame(
        {"name": ["A", "B", "C", "D"], "age": [30, 31, 40, 42], "dis": ["x", "y", "z", "w"]},
        index=[10, 20, 30, 40],
    )
    before = df.copy()
    out = df.anon.k_anonymize(2, identifiers=["name"], sensitive=["dis"], row_order="input")
    assert list(out.columns) == ["age", "dis"]
    assert out.index.tolist() == [10, 20, 30, 40]
    assert out["dis"].tolist() == ["x", "y", "z", "w"]
    pd.testing.assert_frame_equal(df, before)
    info = out.anon.info
    assert info["algorithm"] == "nearest" and info["params"] == {"k": 2}
    assert info["dropped_identifiers"] == ["name"]
    assert out.anon.roles().sensitive == {"dis": "unordered"}


def test_chaining_remembers_roles():
    df = pdanon.datasets.load_adult(nrows=300)
    out = df.anon.k_anonymize(3, row_order="input").anon.k_anonymize(6, row_order="input")
    assert out.anon.k_anonymity() >= 6
    assert out["salary-class"].equals(df["salary-class"])


def test_empty_frame_returned_unchanged():
    df = pd.DataFrame({"a": pd.Series([], dtype=float)})
    out = df.anon.k_anonymize(3)
    assert len(out) == 0 and out.anon.info["changed_cells"] == 0


def test_unknown_column():
    with pytest.raises(pdanon.UnknownColumnError, match="unknown quasi-identifier column"):
        seed_frame().anon.k_anonymize(2, quasi_identifiers=["zzz"])


def test_wrong_kind():
    df = pd.DataFrame({"s": ["a", "b"]})
    with pytest.raises(pdanon.KindError, match="kind 'real'"):
        df.anon.k_anonymize(1, quasi_identifiers={"s": "real"})


def test_unknown_kind():
    with pytest.raises(pdanon.KindError, match="unknown kind 'numeric'"):
        seed_frame().anon.k_anonymize(2, quasi_identifiers={"a": "numeric"})


def test_nan_in_quasi_identifier_is_a_value():
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0]})
    out = df.anon.k_anonymize(1, row_order="input")
    assert out["a"].isna().tolist() == [False, True, False]
    assert out.anon.info["changed_cells"] == 0


def test_mixed_types():
    df = pd.DataFrame({"a": [1, "x", 2, "x"]})
    # unordered (inferred for an object column): equality decides the classes
    assert df.anon.k_anonymize(1, row_order="input")["a"].tolist() == [1, "x", 2, "x"]
    with pytest.raises(pdanon.KindError, match="mixes value types"):
        df.anon.k_anonymize(1, quasi_identifiers={"a": "ordered"}, row_order="input")


def test_duplicate_column_names():
    df = pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"])
    with pytest.raises(pdanon.InvalidInputError, match="duplicate column names"):
        df.anon.k_anonymize(1)


def test_two_roles_for_one_column():
    with pytest.raises(pdanon.InvalidInputError, match="two roles"):
        seed_frame().anon.k_anonymize(2, identifiers=["a"], sensitive=["a"])


def test_unknown_method_and_algorithm():
    with pytest.raises(ValueError, match="unknown method"):
        seed_frame().anon.k_anonymize(2, method="blur")
    with pytest.raises(ValueError, match="unknown algorithm"):
        seed_frame().anon.k_anonymize(2, algorithm="magic")


def test_unexpected_keyword():
    with pytest.raises(TypeError, match="unexpected keyword"):
        seed_frame().anon.k_anonymize(2, quasi=["a"])


def test_single_int_and_tuple_column_names_as_roles():
    df = pd.DataFrame({0: [30, 31, 40, 42], 1: list("FFMM")})
    assert df.anon.k_anonymize(2, quasi_identifiers=0).anon.roles().qi == [0]
    df = pd.DataFrame({("a", "x"): [30, 31, 40, 42], ("c", "z"): list("abac")})
    out = df.anon.k_anonymize(2, sensitive=("c", "z"))
    assert out.anon.roles().sensitive == {("c", "z"): "unordered"}
    with pytest.raises(pdanon.UnknownColumnError):
        df.anon.k_anonymize(2, sensitive=["c"])  # a partial MultiIndex key is not a column


def test_with_schema_validates_and_remembers():
    df = frame()
    s = pdanon.schema(identifiers=["name"], quasi_identifiers={"age": "real", "edu": "ordered"},
                      sensitive={"disease": "unordered"}, insensitive=["sex", "flag"])
    safe = df.anon.with_schema(s)
    assert safe is not df
    assert safe.anon.roles().quasi_identifiers == {"age": "real", "edu": "ordered"}
    assert "pdanon" not in df.attrs  # input untouched
    # the roles survive selections and copies
    assert safe[["age", "edu", "disease"]].anon.roles().sensitive == {"disease": "unordered"}
    # keywords still win over remembered roles
    assert safe.anon.roles(quasi_identifiers=["sex"]).qi == ["sex"]
    assert safe.anon.schema.columns["edu"].metadata["kind"] == "ordered"


def test_with_schema_rejects_missing_column():
    s = pdanon.schema(quasi_identifiers={"zip": "unordered"})
    with pytest.raises(Exception, match="zip"):
        frame().anon.with_schema(s)


def test_keywords_override_only_the_roles_they_name():
    df = pd.DataFrame({"name": list("abcd"), "age": [30, 31, 40, 42], "d": list("xyxz"),
                       "sex": list("FFMM")})
    s = pdanon.schema(identifiers=["name"], quasi_identifiers={"age": "real", "sex": "unordered"},
                      sensitive={"d": "unordered"})
    safe = df.anon.with_schema(s)
    # a remembered identifier is never published because another role keyword was given
    out = safe.anon.k_anonymize(2, quasi_identifiers=["age"], row_order="input")
    assert "name" not in out.columns and out.anon.info["dropped_identifiers"] == ["name"]
    assert out["sex"].tolist() == ["F", "F", "M", "M"]  # no longer a QI: insensitive
    out = safe.anon.l_diversify(2, sensitive=["d"], row_order="input")
    assert "name" not in out.columns
    assert out.anon.roles().qi == ["age", "sex"]
    # a keyword can still move a remembered column to another role
    r = safe.anon.roles(quasi_identifiers=["age", "name"])
    assert r.identifiers == () and r.qi == ["name", "age"]
    assert r.sensitive == {"d": "unordered"}
