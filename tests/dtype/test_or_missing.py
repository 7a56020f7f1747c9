"""Cells that cover a missing value too ("[20, 25] or missing"): text, Parquet and CSV round
trips, equality and grouping, containment (issue 50, point 5)."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon.containment import population_matches
from pdanon.dtype import GeneralizationDtype, GeneralizationRange

REAL = ["[20, 25] or missing", "[20, 25]", "7 or missing", None, "[30, 35) or missing"]
SETS = ["{a, b} or missing", "{a, b}", "a or missing", "a", None]
ORDER = ["low", "mid", "high"]
ORDERED = ["[low, mid] or missing", "[low, mid]", "high or missing", "high", None]


def _frame() -> pd.DataFrame:
    return pd.DataFrame({
        "age": pd.array(REAL, dtype="generalization[real]"),
        "sex": pd.array(SETS, dtype="generalization[unordered]"),
        "band": pd.array(ORDERED, dtype=GeneralizationDtype("ordered", ORDER)),
    })


def test_text_form_and_flag_per_kind():
    df = _frame()
    assert df["age"].array.or_missing.tolist() == [True, False, True, False, True]
    assert df["sex"].array.or_missing.tolist() == [True, False, True, False, False]
    assert df["band"].array.or_missing.tolist() == [True, False, True, False, False]
    # the text reads back as written: a single value "or missing" shows as itself
    assert df["age"].astype(str).tolist()[:3] == ["[20, 25] or missing", "[20, 25]",
                                                  "7 or missing"]
    assert [str(c) for c in df["sex"].tolist()[:4]] == SETS[:4]
    assert [str(c) for c in df["band"].tolist()[:4]] == ORDERED[:4]
    assert df["age"].array[4].closed == "left"  # the open end and the flag are kept apart


def test_scalar_flag_equality_hash_and_pickle():
    plain = GeneralizationRange(20, 25, "real")
    cell = plain.with_missing()
    assert cell.or_missing and not plain.or_missing
    assert cell != plain and hash(cell) != hash(plain)
    assert cell == GeneralizationRange(20, 25, "real").with_missing()
    assert str(cell) == "[20, 25] or missing"
    assert pickle.loads(pickle.dumps(cell)) == cell
    assert None in cell and np.nan in cell and 22 in cell and 26 not in cell
    assert None not in plain
    s = GeneralizationRange(column_type="unordered", column_values=["a", "b"]).with_missing()
    assert str(s) == "{a, b} or missing" and None in s and "a" in s and "c" not in s


def test_equal_cells_compare_equal_including_the_flag():
    arr = _frame()["age"].array
    assert (arr == arr[0]).tolist() == [True, False, False, False, False]
    sets = _frame()["sex"].array
    assert (sets == sets[0]).tolist() == [True, False, False, False, False]
    assert (sets == sets[2]).tolist() == [False, False, True, False, False]  # "a or missing"
    # grouping: a cell "or missing" is a class of its own
    codes, uniques = sets.factorize()
    assert len(uniques) == 4 and codes[0] != codes[1] and codes[2] != codes[3]


def test_equivalence_classes_in_check_tell_the_flag_apart():
    df = pd.DataFrame({
        "age": pd.array(["[20, 25] or missing"] * 2 + ["[20, 25]"] * 2,
                        dtype="generalization[real]"),
        "sex": pd.array(["{F, M} or missing"] * 2 + ["{F, M}"] * 2,
                        dtype="generalization[unordered]"),
    })
    assert df.anon.k_anonymity(quasi_identifiers=["age", "sex"]) == 2
    assert not df.anon.check(pdanon.Policy(k=3), quasi_identifiers=["age", "sex"]).passed
    assert df.anon.check(pdanon.Policy(k=2), quasi_identifiers=["age", "sex"]).passed


def test_contains_a_missing_value_only_in_a_cell_covering_missing():
    arr = _frame()["age"].array
    assert arr.contains([None, None, np.nan, None, None]).tolist() == [True, False, True,
                                                                       False, True]
    assert arr.contains([22, 22, 7, 22, 35]).tolist() == [True, True, True, False, False]
    sets = _frame()["sex"].array
    assert sets.contains([None, None, None, None, None]).tolist() == [True, False, True,
                                                                      False, False]
    band = _frame()["band"].array
    assert band.contains([None, "mid", None, None, None]).tolist() == [True, True, True,
                                                                       False, False]


def test_population_containment_reads_the_flag():
    published = pd.DataFrame({
        "age": pd.array(["[20, 29] or missing", "[20, 29]"], dtype="generalization[real]"),
        "sex": pd.array(["{F, M} or missing", "F"], dtype="generalization[unordered]"),
    })
    population = pd.DataFrame({"age": [20, 25, None, None, 40],
                               "sex": ["F", None, "M", None, "F"]})
    counts, _ = population_matches(published, np.array([0, 1]), population, ["age", "sex"])
    # class 0 holds the four rows within [20, 29] or missing and {F, M} or missing
    assert counts.tolist() == [4, 1]


def test_parquet_round_trip(tmp_path):
    df = _frame()
    path = tmp_path / "cells.parquet"
    df.to_parquet(path)
    back = pd.read_parquet(path)
    for c in df:
        assert back[c].dtype == df[c].dtype
        assert back[c].array.or_missing.tolist() == df[c].array.or_missing.tolist()
        assert back[c].astype(str).tolist() == df[c].astype(str).tolist()
        assert back[c].isna().tolist() == df[c].isna().tolist()


def test_csv_round_trip_through_the_release_schema(tmp_path):
    df = pd.DataFrame({"age": [20, 25, None, 40, 41, 42], "sex": ["F", "M", None, "F", "F", "F"],
                       "dx": list("abcabc")})
    with pytest.warns(pdanon.ExactBoundsWarning):
        out = df.anon.k_anonymize(3, algorithm="mondrian", quasi_identifiers={
            "age": "real", "sex": "unordered"}, sensitive=["dx"], row_order="input",
            options={"exact_bounds": True})
    assert out["age"].array.or_missing.any()
    path = tmp_path / "out.csv"
    out.to_csv(path, index=False)
    back = pdanon.read_csv(path, schema=out.anon.schema)
    for c in ["age", "sex"]:
        assert back[c].dtype == out[c].dtype
        assert back[c].astype(str).tolist() == out[c].astype(str).tolist()
        assert back[c].array.or_missing.tolist() == out[c].array.or_missing.tolist()
    assert back.anon.k_anonymity() == 3
    assert back.anon.check().passed == out.anon.check().passed
