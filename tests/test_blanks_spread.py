"""Blanks spread only where the model needs them (issue 50, point 5): a class that mixes blank
and present cells of a column publishes the cell of its present values "or missing", unless
suppression is asked for; optimal's top level of a column with blanks publishes the top."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.hierarchy import intervals

LOCAL = ["mondrian", "nearest", "group_join"]


def _run(df, qi, algorithm, k, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return df.anon.k_anonymize(k, quasi_identifiers=qi, algorithm=algorithm,
                                   row_order="input", **kw)


@pytest.mark.parametrize("algorithm", LOCAL + ["datafly", "equal_groups"])
def test_a_class_of_20_25_and_a_blank_publishes_20_25_or_missing(algorithm):
    # one class of three rows (k=3): its age cell covers 20, 25 and the blank
    df = pd.DataFrame({"age": [20.0, 25.0, np.nan]})
    out = _run(df, {"age": "real"}, algorithm, 3, options={"exact_bounds": True}
               if algorithm in LOCAL else None)
    assert out["age"].astype(str).tolist() == ["[20, 25] or missing"] * 3
    assert out.anon.info["suppressed_cells"] == 0
    assert out.anon.k_anonymity() == 3


@pytest.mark.parametrize("algorithm", LOCAL + ["datafly", "equal_groups"])
def test_a_class_of_a_b_and_a_blank_publishes_the_set_or_missing(algorithm):
    df = pd.DataFrame({"sex": pd.Series(["a", "b", None], dtype=object)})
    out = _run(df, {"sex": "unordered"}, algorithm, 3)
    assert out["sex"].astype(str).tolist() == ["{a, b} or missing"] * 3
    assert out["sex"].array.contains(df["sex"]).all()  # the blank lies in its cell too


def test_suppression_asked_for_still_blanks_the_mixed_class():
    df = pd.DataFrame({"age": [20.0, 25.0, np.nan]})
    out = _run(df, {"age": "real"}, "mondrian", 3, method="suppress")
    assert out["age"].isna().all()
    assert out.anon.info["suppressed_cells"] == 2


def test_optimal_top_level_of_a_column_with_blanks_publishes_the_top_not_blank():
    df = pd.DataFrame({"age": [31, 35, 52, 58, 44, np.nan, 39, 61],
                       "education": [10.0, 12.0, np.nan, 16.0, 9.0, 11.0, 13.0, 20.0],
                       "d": list("xyxyxyxy")})
    h = {"age": intervals([10, 20]), "education": intervals([5, 10])}
    out = _run(df, {"age": "real", "education": "real"}, "optimal", 8, hierarchies=h,
               sensitive=["d"])
    levels = out.anon.info["levels"]
    assert levels["education"] == 3  # its top: one class of all rows needs it
    assert out["education"].notna().all()  # the top, "or missing", not a blank column
    assert out["education"].array.or_missing.all()
    assert out["education"].array.contains(df["education"]).all()
    assert out["age"].array.contains(df["age"]).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shuffled = df.anon.k_anonymize(8, quasi_identifiers={"age": "real", "education": "real"},
                                       algorithm="optimal", hierarchies=h, sensitive=["d"])
    assert shuffled.anon.check().passed


def test_check_agrees_with_the_anonymizer_on_classes_with_cells_or_missing():
    rng = np.random.default_rng(4)
    n = 300
    df = pd.DataFrame({"age": rng.integers(18, 80, n).astype(float),
                       "zip": rng.choice(["02111", "02112", "02113", "02114"], n),
                       "d": rng.choice(list("abcd"), n)})
    df.loc[rng.choice(n, 3, replace=False), "age"] = np.nan  # fewer than k: they must mix
    df.loc[rng.choice(n, 3, replace=False), "zip"] = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.k_anonymize(5, l=2, quasi_identifiers={"age": "real", "zip": "unordered"},
                                  algorithm="mondrian", sensitive=["d"])
    assert out["age"].array.or_missing.any() and out["zip"].array.or_missing.any()
    report = out.anon.check()
    assert report.passed
    assert out.anon.k_anonymity() == out.anon.info["achieved"]["k"] >= 5


values = st.one_of(st.none(), st.integers(0, 6))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(values, values), min_size=4, max_size=30),
       k=st.integers(2, 4), algorithm=st.sampled_from(LOCAL))
def test_local_recoding_never_adds_blanks_and_every_value_lies_in_its_cell(rows, k, algorithm):
    df = pd.DataFrame(rows, columns=["r", "u"]).astype({"r": "float64", "u": object})
    df["u"] = df["u"].map(lambda v: None if v is None or pd.isna(v) else f"u{v}")
    if k > len(df):
        return
    out = _run(df, {"r": "real", "u": "unordered"}, algorithm, k)
    aligned = out.anon.input_rows(df)
    for c in ("r", "u"):
        # no present cell is blanked when no suppression is asked for
        assert out[c].isna().sum() <= df[c].isna().sum()
        cells = out[c].array
        if isinstance(out[c].dtype, pdanon.GeneralizationDtype):
            # every original value, missing ones included, lies in its published cell (or
            # the cell is blank and so was the value)
            inside = np.asarray(cells.contains(aligned[c]), dtype=bool)
            blank_both = out[c].isna().to_numpy() & aligned[c].isna().to_numpy()
            assert (inside | blank_both).all()
    assert out.anon.k_anonymity() >= k


def test_the_recoding_file_keeps_cells_or_missing():
    df = pd.DataFrame({"age": [20.0, 25.0, np.nan, 40, 41, 44],
                       "sex": ["F", None, "M", "F", "F", "F"], "d": list("abcabc")})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.k_anonymize(3, algorithm="mondrian", sensitive=["d"],
                                  quasi_identifiers={"age": "real", "sex": "unordered"})
    recoding = out.anon.recoding
    back = type(recoding).from_json(recoding.to_json())
    published = {c: set(out[c].astype(str)) for c in ("age", "sex")}
    for column in back.columns.values() if isinstance(back.columns, dict) else back.columns:
        cells = column.cell_array()
        assert set(cells.astype(str)) == published[column.name]  # "... or missing" kept
        assert cells.or_missing.any()


def test_a_rare_value_or_missing_is_widened_like_a_range():
    """A class of one 90-year-old and one blank age published "90 or missing": the exact age
    of one person. The bounds rule treats such a cell as the range [90, 90] and widens it."""
    df = pd.DataFrame({"age": [30, 31, 32, 33, 40, 41, 42, 43, 90, np.nan],
                       "zip": list("aaaabbbbz") + [None], "d": list("xyxyxyxyxy")})
    out = df.anon.k_anonymize(2, quasi_identifiers=["age", "zip"], sensitive=["d"],
                              algorithm="mondrian", row_order="input")
    cells = out["age"].astype(str).tolist()
    assert "90 or missing" not in cells
    assert cells[8] == cells[9] == "[90, 100] or missing"
    # exact bounds keep it, with the warning
    with pytest.warns(pdanon.ExactBoundsWarning):
        exact = df.anon.k_anonymize(2, quasi_identifiers=["age", "zip"], sensitive=["d"],
                                    algorithm="mondrian", row_order="input",
                                    options={"exact_bounds": True})
    assert exact["age"].astype(str).tolist()[8] == "90 or missing"
