"""A pdanon schema checks what it says (issue 28.6): the ``pdanon_kind`` check per kind, and
``with_schema``'s one-line-per-problem summary instead of pandera's JSON."""

import datetime as dt

import numpy as np
import pandas as pd
import pandera.errors
import pytest
from hypothesis import given, strategies as st

import pdanon
from pdanon.dtype import schema_checks

REAL = pdanon.schema(quasi_identifiers={"x": "real"})


def _fails(df, sch=REAL) -> str:
    with pytest.raises(pdanon.InvalidInputError) as e:
        df.anon.with_schema(sch)
    return str(e.value)


def test_text_birth_year_fails_with_the_column_and_the_fix():
    sch = pdanon.schema(quasi_identifiers={"birth_year": "real"}, sensitive={"dx": "unordered"})
    df = pd.DataFrame({"birth_year": ["1990", "1985"], "dx": ["a", "b"]})
    assert _fails(df, sch) == (
        "the frame does not match the schema (1 problem):\n"
        "  - column 'birth_year' (quasi-identifier, kind 'real') holds text, such as '1990': "
        "convert it with df['birth_year'] = pd.to_numeric(df['birth_year']) (or pd.to_datetime "
        "for dates), or declare its kind 'ordered' or 'unordered'")
    # pandera's own call runs the same check
    with pytest.raises(pandera.errors.SchemaError, match="birth_year.*pd.to_numeric"):
        sch.validate(df)


def test_problems_are_summarized_not_dumped_as_json():
    sch = pdanon.schema(identifiers=["name"], quasi_identifiers={"age": "real"},
                        sensitive={"disease": "unordered"})
    df = pd.DataFrame({"name": ["Ann"], "age": ["30"]})
    with pytest.raises(pdanon.InvalidInputError) as e:
        df.anon.with_schema(sch)
    text = str(e.value)
    assert text.splitlines() == [
        "the frame does not match the schema (2 problems):",
        "  - column 'disease' is missing (the frame has 'name', 'age'): add it, or leave it "
        "out of the schema",
        "  - column 'age' (quasi-identifier, kind 'real') holds text, such as '30': convert it "
        "with df['age'] = pd.to_numeric(df['age']) (or pd.to_datetime for dates), or declare "
        "its kind 'ordered' or 'unordered'",
    ]
    assert "{" not in text
    assert e.value.__cause__ is None and e.value.__suppress_context__
    assert isinstance(e.value.schema_errors, pandera.errors.SchemaErrors)


@pytest.mark.parametrize("values", [
    [1, 2, 3],
    [1.5, np.nan, 3.0],
    pd.array([1, pd.NA, 3], dtype="Int64"),
    pd.to_datetime(["2024-01-01", None, "2024-03-01"]),
    pd.to_datetime(["2024-01-01", "2024-02-01", "2024-03-01"]).tz_localize("Europe/Oslo"),
    [dt.date(2024, 1, 1), None, dt.date(2024, 3, 1)],
    pd.to_timedelta([1, 2, 3], unit="D"),
    pd.period_range("2024-01", periods=3, freq="M"),
    pd.Categorical([1, 2, 1]),
    [None, None, None],
    [np.nan, np.nan, np.nan],
    [1, 2.5, None],                # object column of Python numbers
])
def test_real_accepts_numbers_dates_durations_and_missing(values):
    out = pd.DataFrame({"x": values}).anon.with_schema(REAL)
    assert out.anon.roles().quasi_identifiers == {"x": "real"}


@pytest.mark.parametrize("values, holds", [
    (["a", "b"], "holds text, such as 'a'"),
    ([1, "x", 3], "holds text, such as 'x'"),     # the example is the value that is not a number
    (["1", "2"], "holds text, such as '1'"),
    ([True, "no"], "holds text, such as 'no'"),
    (["", " ", "12"], "holds text, such as '12'"),  # a blank is not the example while a word is
    (["", ""], "holds text, such as ''"),
])
def test_real_refuses_text(values, holds):
    assert holds in _fails(pd.DataFrame({"x": values}))


def test_generalized_cells_must_have_the_declared_kind():
    pat = pdanon.datasets.make_patients()
    rel = pat.anon.k_anonymize(5, quasi_identifiers={"zipcode": "unordered", "age": "real",
                                                     "gender": "unordered"},
                               sensitive=["disease"])
    # the release passes its own schema, and a schema that calls age real
    rel.anon.schema.validate(rel)
    rel[["age"]].anon.with_schema(pdanon.schema(quasi_identifiers={"age": "real"}))
    wrong = pdanon.schema(quasi_identifiers={"age": "ordered", "zipcode": "real"},
                          sensitive={"disease": "unordered"})
    text = _fails(rel.drop(columns="gender"), wrong)
    assert "column 'age' (quasi-identifier, kind 'ordered') holds generalized cells of kind " \
           "'real'" in text
    assert "column 'zipcode' (quasi-identifier, kind 'real') holds generalized cells of kind " \
           "'unordered'" in text


def test_categories_given_are_the_only_values():
    sch = pdanon.schema(quasi_identifiers={"zip": "unordered"},
                        columns={"zip": {"dtype": "str", "categories": ["04777", "01234"]}})
    pd.DataFrame({"zip": ["04777", None, "01234"]}).anon.with_schema(sch)
    text = _fails(pd.DataFrame({"zip": ["04777", "99999", "88888"]}), sch)
    assert "column 'zip' (quasi-identifier, kind 'unordered') holds 2 value(s) that are not " \
           "among the schema's 2 categories, such as '99999'" in text
    # a code read as a number: the leading zero is gone, and the message says so
    text = _fails(pd.DataFrame({"zip": [4777, 1234]}), sch)
    assert "such as 4777 (a code read as a number lost its leading zeros: read it as text)" \
        in text


def test_ordered_categories_must_keep_the_schema_order():
    order = ["HS", "BSc", "MSc"]
    sch = pdanon.schema(quasi_identifiers={"edu": "ordered"},
                        columns={"edu": {"dtype": "category", "categories": order,
                                         "ordered": True}})
    ok = pd.Categorical(["BSc", "HS"], categories=order, ordered=True)
    pd.DataFrame({"edu": ok}).anon.with_schema(sch)
    other = pd.Categorical(["BSc", "HS"], categories=["MSc", "BSc", "HS"], ordered=True)
    assert "orders its categories ['MSc', 'BSc', 'HS']... differently from the schema " \
           "(['HS', 'BSc', 'MSc']...)" in _fails(pd.DataFrame({"edu": other}), sch)


def test_identifiers_and_insensitive_columns_are_not_checked():
    sch = pdanon.schema(identifiers=["name"], quasi_identifiers={"age": "real"},
                        insensitive=["note"])
    df = pd.DataFrame({"name": [1, 2], "age": [30, 40], "note": [object(), None]})
    assert df.anon.with_schema(sch).anon.roles().identifiers == ("name",)


def test_check_survives_yaml_and_a_release_read_back(tmp_path):
    pat = pdanon.datasets.make_patients()
    rel = pat.anon.k_anonymize(5, quasi_identifiers={"zipcode": "unordered", "age": "real",
                                                     "gender": "unordered"},
                               sensitive=["disease"])
    text = pdanon.schema_to_yaml(rel.anon.schema)
    assert "pdanon_kind" in text
    back = pdanon.schema_from_yaml(text)
    path = tmp_path / "release.csv"
    rel.to_csv(path, index=False)
    again = pdanon.read_csv(path, schema=back)
    assert again.anon.with_schema(back).anon.k_anonymity() == rel.anon.k_anonymity()
    bad = again.assign(age=["old"] * len(again))
    assert "column 'age' (quasi-identifier, kind 'real') holds text, such as 'old'" in \
        _fails(bad, back)


def test_read_csv_names_a_quasi_identifier_the_file_lacks(tmp_path):
    sch = pdanon.schema(identifiers=["name"], quasi_identifiers={"birth_year": "real",
                                                                 "zip": "unordered"})
    path = tmp_path / "release.csv"
    path.write_text("zip\n04777\n")  # the identifier 'name' is dropped on purpose
    with pytest.raises(pdanon.InvalidInputError) as err:
        pdanon.read_csv(path, schema=sch)
    assert str(err.value) == (
        "the schema gives column(s) 'birth_year' a kind, but the file has no such column (it "
        "has 'zip'): read the file the schema describes, or leave the column(s) out of the "
        "schema")
    # columns left out with usecols= are not asked for
    assert pdanon.read_csv(path, schema=sch, usecols=["zip"])["zip"].tolist() == ["04777"]


@given(st.lists(st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=False),
                          st.integers(-10**6, 10**6)), min_size=1, max_size=30))
def test_real_accepts_any_numbers_with_missing_cells(values):
    assert schema_checks.problem(pd.Series(values, dtype=object), "real") is None


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=20),
       st.text(alphabet="abcxyz -", min_size=1, max_size=8), st.integers(0, 20))
def test_real_refuses_any_column_with_a_word(numbers, word, at):
    values = list(numbers)
    values.insert(min(at, len(values)), word)
    assert schema_checks.problem(pd.Series(values, dtype=object), "real") == \
        f"holds text, such as {word!r}"
