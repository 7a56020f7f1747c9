"""Tests of pdanon.csvsafe.neutralize_formulas (CSV formula injection)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import pdanon  # noqa: F401  (registers the generalization dtype)
from pdanon._errors import InvalidInputError
from pdanon.csvsafe import FORMULA_PREFIXES, neutralize_formulas
from pdanon.dtype import GeneralizationRange


def test_every_owasp_prefix_is_quoted_and_nothing_else():
    cells = ["=1+2", "+7900", "-x", "@SUM(A1)", "\tTAB", "\rCR", "a=b", " =1", "'=x", "", "[1, 2]"]
    df = pd.DataFrame({"t": cells})
    out = neutralize_formulas(df)
    assert out["t"].tolist() == ["'=1+2", "'+7900", "'-x", "'@SUM(A1)", "'\tTAB", "'\rCR",
                                 "a=b", " =1", "'=x", "", "[1, 2]"]
    assert FORMULA_PREFIXES == ("=", "+", "-", "@", "\t", "\r")
    assert df["t"].tolist() == cells  # input not modified
    # the same cells in an object column (all text, one missing): same result, still object
    obj = pd.DataFrame({"t": pd.Series(cells + [None], dtype=object)})
    got = neutralize_formulas(obj)["t"]
    assert got.dtype == object and got.tolist() == out["t"].tolist() + [None]


def test_numbers_are_never_touched():
    df = pd.DataFrame({
        "i": [-5, 3, -1],
        "f": [-0.5, np.nan, 2.0],
        "nullable": pd.array([-1, None, 4], dtype="Int64"),
        "b": [True, False, True],
        "d": pd.to_datetime(["2024-01-01", "2024-01-02", None]),
    })
    out = neutralize_formulas(df)
    pd.testing.assert_frame_equal(out, df)
    assert out.to_csv(index=False) == df.to_csv(index=False)


def test_object_columns_only_str_cells_change():
    mixed = pd.Series([-5, "-5", None, 2.5, "=A1", GeneralizationRange(-3, 4, "real")],
                      dtype=object)
    df = pd.DataFrame({"m": mixed, "s": pd.Series(["-1", None, "ok", "@x", "x", "+"],
                                                     dtype="str")})
    out = neutralize_formulas(df)
    got = out["m"].tolist()
    assert got[0] == -5 and got[1] == "'-5" and got[2] is None and got[3] == 2.5
    assert got[4] == "'=A1" and isinstance(got[5], GeneralizationRange)
    assert out["m"].dtype == object
    assert out["s"].dtype == df["s"].dtype
    assert out["s"].isna().tolist() == [False, True, False, False, False, False]
    assert out["s"].dropna().tolist() == ["'-1", "ok", "'@x", "x", "'+"]
    # written text: the generalized range keeps its own text
    text = out.to_csv(index=False).splitlines()
    assert text[1:] == ["-5,'-1", "'-5,", ",ok", "2.5,'@x", "'=A1,x", "\"[-3, 4]\",'+"]


def test_integer_object_column_is_skipped():
    df = pd.DataFrame({"n": pd.Series([-1, -2], dtype=object)})
    assert neutralize_formulas(df)["n"].tolist() == [-1, -2]


def test_categorical_string_categories():
    cat = pd.Categorical(["-a", "b", "-a", None], categories=["b", "-a"], ordered=True)
    out = neutralize_formulas(pd.DataFrame({"c": cat}))
    assert out["c"].dtype.ordered
    assert list(out["c"].cat.categories) == ["b", "'-a"]
    assert out["c"].tolist()[:3] == ["'-a", "b", "'-a"] and pd.isna(out["c"][3])
    # a quoted category that already exists: plain object values instead
    clash = pd.Categorical(["=x", "'=x"])
    out = neutralize_formulas(pd.DataFrame({"c": clash}))
    assert out["c"].tolist() == ["'=x", "'=x"] and out["c"].dtype == object
    # numeric categories are numbers
    nums = pd.Categorical([-1, 2])
    assert neutralize_formulas(pd.DataFrame({"c": nums}))["c"].tolist() == [-1, 2]


def test_generalized_columns():
    real = pd.Series(pd.array([-5, GeneralizationRange(-9, -6, "real"), None],
                              dtype="generalization[real]"))
    unordered = pd.Series(pd.array(["-b", GeneralizationRange(None, None, "unordered",
                                                              ["-b", "c"]), "c"],
                                   dtype="generalization[unordered]"))
    df = pd.DataFrame({"age": real, "grp": unordered})
    out = neutralize_formulas(df)
    assert out["age"].dtype == df["age"].dtype  # numbers: untouched, dtype kept
    assert out.to_csv(index=False).splitlines() == [
        "age,grp", "-5,'-b", "\"[-9, -6]\",\"{-b, c}\"", ",c"]
    # a generalized column without a formula-like text cell keeps its dtype
    safe = pd.DataFrame({"grp": pd.Series(pd.array(["a", "b"], dtype="generalization[unordered]"))})
    assert neutralize_formulas(safe)["grp"].dtype == safe["grp"].dtype


def test_header_labels_and_duplicate_columns():
    df = pd.DataFrame([["=1", 1], ["x", 2]], columns=["=cmd", "=cmd"])
    out = neutralize_formulas(df)
    assert list(out.columns) == ["'=cmd", "'=cmd"]
    assert out.iloc[:, 0].tolist() == ["'=1", "x"] and out.iloc[:, 1].tolist() == [1, 2]
    assert list(neutralize_formulas(df, header=False).columns) == ["=cmd", "=cmd"]
    assert list(df.columns) == ["=cmd", "=cmd"]


def test_round_trip_through_csv_text_is_quoted():
    df = pd.DataFrame({"note": ["=HYPERLINK(\"http://x\",\"y\")", "fine"]})
    buf = io.StringIO()
    neutralize_formulas(df).to_csv(buf, index=False)
    back = pd.read_csv(io.StringIO(buf.getvalue()))
    assert back["note"].tolist() == ["'=HYPERLINK(\"http://x\",\"y\")", "fine"]


def test_not_a_frame():
    with pytest.raises(InvalidInputError, match="DataFrame"):
        neutralize_formulas(pd.Series(["=1"]))
