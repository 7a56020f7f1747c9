"""Round trips of published frames through CSV (``pdanon.read_csv(path, schema=out.anon.schema)``)
and Parquet, for every kind of column, with missing cells; and the errors of read_csv."""

import io
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon import GeneralizationDtype as D
from pdanon import GeneralizationRange as R
from pdanon.hierarchy import intervals

EDU = ["hs", "some grad", "advanced"]  # not alphabetical: the order must come from the schema
KINDS = {"real": "real", "ordnum": "ordered", "ordcat": "ordered", "unord": "unordered",
         "g_real": "real", "g_ordnum": "ordered", "g_ordcat": "ordered", "g_unord": "unordered",
         "g_mixed": "unordered"}


def published() -> pd.DataFrame:
    """A column of every kind, plain and generalized, each with a missing cell."""
    out = pd.DataFrame({
        "real": [1.5, np.nan, 3.0, 4.25],
        "ordnum": [1, 2, 3, 4],
        "ordcat": pd.Categorical(["some grad", "advanced", None, "hs"], categories=EDU,
                                 ordered=True),
        "unord": ["a", None, "b", "a"],
        "g_real": pd.array([R.interval(30, 35, "real", closed="left"), None, 36.5,
                            R.interval(35, 40, "real", closed="left")], dtype="generalization[real]"),
        "g_ordnum": pd.array([R(1, 3, "ordered"), 2, None, 4], dtype="generalization[ordered]"),
        "g_ordcat": pd.array([R("some grad", "advanced", "ordered"), "hs", None, "advanced"],
                             dtype=D("ordered", EDU)),
        "g_unord": pd.array([{"x", "y"}, "y", None, "x"], dtype="generalization[unordered]"),
        # categories of several types whose texts differ (1, 2.5, 'a')
        "g_mixed": pd.array([{1, "a"}, 2.5, None, "a"], dtype="generalization[unordered]"),
        "ins": [1, 2, 3, 4],
    })
    return out.anon.with_schema(pdanon.schema(quasi_identifiers=KINDS, insensitive=["ins"]))


def test_csv_round_trip_with_the_frames_schema_returns_an_equal_frame():
    out = published()
    text = out.to_csv(index=False)
    assert '"[30, 35)"' in text and '"[some grad, advanced]"' in text
    back = pdanon.read_csv(io.StringIO(text), schema=out.anon.schema)
    pd.testing.assert_frame_equal(back, out)
    assert back["g_ordcat"].dtype.categories.tolist() == EDU
    assert back["g_real"].array.closed.tolist() == ["left", "both", "both", "left"]
    assert back["g_mixed"].tolist()[:2] == [{1, "a"}, 2.5]


def test_csv_round_trip_through_yaml_schema(tmp_path):
    from pdanon.roles import schema_from_yaml, schema_to_yaml

    out = published()
    path = tmp_path / "release.csv"
    out.to_csv(path, index=False)
    sch = schema_from_yaml(schema_to_yaml(out.anon.schema))
    pd.testing.assert_frame_equal(pdanon.read_csv(path, schema=sch), out)


def test_parquet_round_trip_keeps_closedness_and_mixed_categories(tmp_path):
    out = published()
    path = tmp_path / "release.parquet"
    out.to_parquet(path)
    back = pd.read_parquet(path)
    pd.testing.assert_frame_equal(back, out, check_flags=False)
    assert back["g_mixed"].dtype.categories.tolist() == out["g_mixed"].dtype.categories.tolist()
    assert [type(c) for c in back["g_mixed"].dtype.categories] == [float, str, int]


def test_issue_k_anonymized_ordered_categorical_round_trips():
    df = pd.DataFrame({
        "age": [30.0, 35.0, 36.5, 41.0, 32.0, 38.0],
        "edu": pd.Categorical(["some grad", "advanced", "some grad", "advanced", "hs", "hs"],
                              categories=EDU, ordered=True),
        "d": list("abcabc"),
    })
    out = df.anon.k_anonymize(2, quasi_identifiers={"age": "real", "edu": "ordered"},
                              sensitive={"d": "unordered"}, row_order="input")
    back = pdanon.read_csv(io.StringIO(out.to_csv(index=False)), schema=out.anon.schema)
    pd.testing.assert_frame_equal(back, out, check_flags=False)


def test_hierarchy_generalized_column_round_trips_half_open_bands():
    df = pd.DataFrame({"age": [30.0, 35.0, np.nan, 36.5]})
    out = df.anon.generalize({"age": 1}, hierarchies={"age": intervals([5])}, row_order="input")
    assert out["age"].array.to_text(na_rep="").tolist() == ["[30, 35)", "[35, 40)", "",
                                                            "[35, 40)"]
    back = pdanon.read_csv(io.StringIO(out.to_csv(index=False)), schema=out.anon.schema)
    pd.testing.assert_frame_equal(back, out, check_flags=False)


def test_categories_written_alike_fail_with_the_column_and_the_fix():
    out = pd.DataFrame({"u": pd.array([{1, "1"}, "a"], dtype="generalization[unordered]")})
    out = out.anon.with_schema(pdanon.schema(quasi_identifiers={"u": "unordered"}))
    with pytest.raises(pdanon.InvalidInputError,
                       match=r"column 'u': its categories .* both written '1'.*Parquet"):
        pdanon.read_csv(io.StringIO(out.to_csv(index=False)), schema=out.anon.schema)


def test_unquoted_comma_is_a_ragged_line():
    # a writer that did not quote: '[30' and ' 35)' became two fields; pandas used to make
    # the first one the index (every column shifted); now the line is named
    text = "age,d\n[30, 35),a\n[35, 40),b\n"
    with pytest.raises(pdanon.InvalidInputError,
                       match=r"^line 2 has 3 fields, but the header \(line 1\) has 2 \(a "
                             r"trailing comma, or a comma in a cell that is not quoted\?\)"):
        pdanon.read_csv(io.StringIO(text), schema={"age": "real"})
    # one column: pandas cannot shift, the range's second half is text in the real column
    with pytest.raises(pdanon.InvalidInputError,
                       match=r"column 'age', row 0: cannot parse '\[30'.*unquoted comma"):
        pdanon.read_csv(io.StringIO("age\n[30\n 35)\n"), schema={"age": "real"})


def test_real_column_with_text_names_row_and_text():
    with pytest.raises(pdanon.InvalidInputError, match=r"column 'age', row 1: cannot parse 'x'"):
        pdanon.read_csv(io.StringIO("age\n30\nx\n"), schema={"age": "real"})


def test_ordered_categories_are_checked_and_restored():
    sch = {"edu": {"kind": "ordered", "dtype": "category", "categories": EDU, "ordered": True}}
    back = pdanon.read_csv(io.StringIO("edu,x\nadvanced,1\n,2\nhs,3\n"), schema=sch)
    assert back["edu"].dtype == pd.CategoricalDtype(EDU, ordered=True)
    assert back["edu"].tolist()[0] == "advanced" and pd.isna(back["edu"][1])
    with pytest.raises(pdanon.InvalidInputError, match=r"column 'edu', row 1: value 'PhD'"):
        pdanon.read_csv(io.StringIO("edu\nhs\nPhD\n"), schema=sch)
    with pytest.raises(pdanon.InvalidInputError, match=r"column 'edu', row 0: value 'PhD'"):
        pdanon.read_csv(io.StringIO("edu\nPhD\n"), schema={"edu": ("ordered", EDU)})


def test_open_ranges_of_categories_are_refused():
    with pytest.raises(pdanon.InvalidInputError, match="open end.*write '\\[hs, advanced\\]'"):
        pdanon.read_csv(io.StringIO('edu\n"[hs, advanced)"\n'), schema={"edu": ("ordered", EDU)})


# ------------------------------------------------------------------ codes stay text (28.3)

ZIPS = ["04777", "00501", None, "04777", "00501", "10001"]


def test_read_csv_keeps_leading_zeros_of_code_columns():
    text = "zip,age,icd,w\n04777,30,E11,1.5\n00501,,I10,2\n,41,,3\n"
    back = pdanon.read_csv(io.StringIO(text), schema={"zip": "unordered", "age": "real",
                                                      "icd": ("ordered", ["E11", "I10"])})
    assert back["zip"].tolist()[:2] == ["04777", "00501"] and back["zip"].isna().tolist()[2]
    assert back["age"].dtype == np.float64 and back["w"].tolist() == [1.5, 2.0, 3.0]
    # the caller's dtype wins
    forced = pdanon.read_csv(io.StringIO(text), schema={"zip": "unordered"},
                             dtype={"zip": "float64"})
    assert forced["zip"].tolist()[:2] == [4777.0, 501.0]


@pytest.mark.parametrize("algorithm", ["mondrian", "datafly", "nearest"])
def test_released_zip_codes_round_trip_through_csv(tmp_path, algorithm):
    df = pd.DataFrame({"zip": ZIPS * 10, "age": list(range(20, 80)),
                       "dx": ["a", "b", "c"] * 20})
    out = df.anon.k_anonymize(3, algorithm=algorithm,
                              quasi_identifiers={"zip": "unordered", "age": "real"},
                              sensitive=["dx"], row_order="input")
    path = tmp_path / "release.csv"
    out.to_csv(path, index=False)
    back = pdanon.read_csv(path, schema=out.anon.schema)
    pd.testing.assert_frame_equal(back, out)
    cells = {str(c) for c in back["zip"].dropna()}
    assert any("04777" in c or "00501" in c for c in cells), cells
    yaml_back = pdanon.read_csv(path, schema=pdanon.schema_from_yaml(
        pdanon.schema_to_yaml(out.anon.schema)))
    pd.testing.assert_frame_equal(yaml_back, out)


def test_plain_zip_codes_of_a_release_stay_text(tmp_path):
    """Every published cell a plain code (no set): pandas alone would read 4777."""
    df = pd.DataFrame({"zip": ["04777"] * 5 + ["00501"] * 5, "dx": list("ababababab")})
    out = df.anon.k_anonymize(5, quasi_identifiers={"zip": "unordered"}, sensitive=["dx"])
    path = tmp_path / "r.csv"
    out.to_csv(path, index=False)
    back = pdanon.read_csv(path, schema=out.anon.schema)
    assert [str(v) for v in back["zip"]] == [str(v) for v in out["zip"]]
    assert "04777" in {str(v) for v in back["zip"]}


# ------------------------------------------------------------------ generalized dates (28.1)

def _dates(kind: str, n: int = 120) -> pd.Series:
    rng = np.random.default_rng(3)
    base = pd.to_datetime("2024-01-01") + pd.to_timedelta(rng.integers(0, 365, n), unit="D")
    if kind == "tz":
        return pd.Series(base.tz_localize("Europe/Oslo"))
    if kind == "nat":
        return pd.Series(base.where(rng.random(n) > 0.1))
    if kind == "times":
        return pd.Series(base + pd.to_timedelta(rng.integers(0, 86_400, n), unit="s"))
    if kind == "date":
        return pd.Series([d.date() for d in base], dtype=object)
    if kind == "duration":
        return pd.Series(base - pd.Timestamp("2024-01-01"))
    if kind == "period":
        return pd.Series(base.to_period("D"))
    return pd.Series(base)


def _date_release(route: str, kind: str) -> pd.DataFrame:
    df = pd.DataFrame({"adm": _dates(kind), "dx": list("abc") * 40})
    qi = {"adm": "ordered"}
    if route == "generalize":
        return df.anon.generalize({"adm": 1}, hierarchies={"adm": pdanon.hierarchy.dates()},
                                  quasi_identifiers=qi, sensitive=["dx"], row_order="input")
    if route == "optimal":
        return df.anon.k_anonymize(5, algorithm="optimal",
                                   hierarchies={"adm": pdanon.hierarchy.dates()},
                                   quasi_identifiers=qi, sensitive=["dx"], row_order="input")
    if route == "unordered":
        return df.anon.k_anonymize(5, algorithm="mondrian", quasi_identifiers={"adm": "unordered"},
                                   sensitive=["dx"], row_order="input")
    # times: every instant is one record's, so the bounds rule would widen each to its year
    # (pdanon.bounds, one class "2024"); the exact bounds keep the times this test reads back
    options = {"exact_bounds": True} if kind == "times" else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdanon.ExactBoundsWarning)
        return df.anon.k_anonymize(5, algorithm=route, quasi_identifiers=qi, sensitive=["dx"],
                                   options=options, row_order="input")


@pytest.mark.parametrize("kind", ["naive", "tz", "nat", "times", "date", "duration",
                                  "period"])
@pytest.mark.parametrize("route", ["mondrian", "nearest", "group_join", "equal_groups",
                                   "unordered", "generalize", "optimal"])
def test_generalized_dates_round_trip_through_parquet_and_csv(tmp_path, route, kind):
    if kind in ("duration", "period") and route in ("generalize", "optimal"):
        pytest.skip("the dates() hierarchy takes dates and timestamps")
    out = _date_release(route, kind)
    assert str(out["adm"].dtype).startswith("generalization[")
    path = tmp_path / "release.parquet"
    out.to_parquet(path)
    back = pd.read_parquet(path)
    pd.testing.assert_frame_equal(back, out)
    assert back.anon.k_anonymity() == out.anon.k_anonymity()
    if kind == "tz":  # the time zone is kept, in the dtype and in Arrow's own type
        import pyarrow.parquet as pq

        cats = back["adm"].dtype.categories
        assert str(cats.tz) == "Europe/Oslo"
        storage = str(pq.read_table(path).schema.field("adm").type.storage_type)
        assert "timestamp" in storage and "Europe/Oslo" in storage
    text = out.to_csv(index=False)
    again = pdanon.read_csv(io.StringIO(text), schema=out.anon.schema)
    pd.testing.assert_frame_equal(again, out)
    # the schema through YAML: date categories travel as ISO text with their type
    yaml_schema = pdanon.schema_from_yaml(pdanon.schema_to_yaml(out.anon.schema))
    pd.testing.assert_frame_equal(pdanon.read_csv(io.StringIO(text), schema=yaml_schema), out)
    if kind in ("naive", "nat", "date"):  # dates only: no midnight times in the cells
        assert "00:00:00" not in text
    if kind == "times" and route not in ("generalize", "optimal"):  # those print months
        assert re.search(r"\d\d:\d\d:\d\d", text)


@pytest.mark.parametrize("kind", ["naive", "tz", "nat", "times", "date"])
@pytest.mark.parametrize("route", ["generalize", "optimal"])
def test_dates_hierarchy_publishes_whole_calendar_units(route, kind):
    """A dates() node publishes its month (or year), not the first and last dates present,
    and prints as the unit: 2024-03, with or without times and time zone."""
    out = _date_release(route, kind)
    cells = out["adm"].dropna()
    text = cells.astype(str)
    assert text.str.fullmatch(r"\d{4}(-\d{2})?").all(), text.unique()[:5]
    for cell, label in zip(cells.array[:40], text[:40]):
        first, after = pdanon.dtype._common.calendar_unit(label)
        lo, hi = pd.Timestamp(cell.min), pd.Timestamp(cell.max)
        if kind == "tz":
            lo, hi = lo.tz_localize(None), hi.tz_localize(None)
        assert lo == first and hi.normalize() == after - pd.Timedelta(days=1)
    # no cell shows a date of the data that is no unit boundary (a record's exact date)
    bounds = [pd.Timestamp(v) for c in cells.array for v in (c.min, c.max)]
    assert all(b.day == 1 or b.is_month_end for b in bounds)


def test_a_calendar_cell_reads_back_from_text():
    from pdanon.dtype import GeneralizationArray

    cats = pd.DatetimeIndex(["2024-10-01", "2024-11-03", "2024-12-01", "2024-12-31"])
    arr = GeneralizationArray._from_text(["2024-12", "2024Q4", "2024-Q4",
                                          "[2024-11-03, 2024-12-01]"], "ordered", cats)
    assert arr.to_text().tolist() == ["2024-12", "2024-Q4", "2024-Q4", "[2024-11-03, 2024-12-01]"]
    assert (arr[1].min, arr[1].max) == (cats[0], cats[3])
    with pytest.raises(pdanon.InvalidInputError, match="not among the categories"):
        GeneralizationArray._from_text(["2023-05"], "ordered", cats)


@pytest.mark.parametrize("kind", ["naive", "tz", "nat", "times", "date", "duration", "period"])
def test_dates_of_every_type_are_inferred_ordered(kind):
    from pdanon.roles import infer_kind

    assert infer_kind(_dates(kind)) == "ordered"
    assert infer_kind(pd.Series(["2024-01-01", None], dtype=object)) == "unordered"  # text


def test_integers_beyond_64_bits_round_trip_through_parquet(tmp_path):
    """Python integers beyond int64 (20-digit account numbers) in a quasi-identifier: Parquet
    used to fail with a bare OverflowError; their categories travel exactly."""
    import warnings

    big = [98765432109876543210, 98765432109876543211, 12345678901234567890,
           12345678901234567891, -98765432109876543210, 5]
    df = pd.DataFrame({"acct": pd.Series(big, dtype=object), "sex": list("FFMMFM")})
    for kind in ("unordered", "ordered"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # exact bounds: the subject is the categories' travel (the default widens these
            # unique numbers past any bound, leaving nothing to carry)
            out = df.anon.k_anonymize(2, quasi_identifiers={"acct": kind, "sex": "unordered"},
                                      options={"exact_bounds": True})
        out.to_parquet(tmp_path / "r.parquet")
        back = pd.read_parquet(tmp_path / "r.parquet")
        assert back["acct"].dtype == out["acct"].dtype
        assert [str(c) for c in back["acct"]] == [str(c) for c in out["acct"]]
        assert 98765432109876543211 in list(back["acct"].dtype.categories)
