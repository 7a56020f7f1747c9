"""GeneralizationArray behaviour in frames, Parquet and CSV round trips, engine constructors."""

import io

import numpy as np
import pandas as pd
import pandas._testing as tm
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.dtype import GeneralizationArray, GeneralizationDtype, GeneralizationRange
from pdanon.io import parse_generalized, read_csv

R = GeneralizationRange


def S(*members):
    return R(column_type="unordered", column_values=list(members))


EDU = ["Preschool", "HS-grad", "Bachelors", "Masters", "Doctorate"]


@pytest.fixture
def gen_frame():
    return pd.DataFrame({
        "age": pd.array([39, R(20, 29, "real"), None, 50, R(30, 39, "real")],
                        dtype="generalization[real]"),
        "edu": pd.array(["HS-grad", R("HS-grad", "Masters", "ordered"), np.nan, "Preschool",
                         R("Bachelors", "Doctorate", "ordered")],
                        dtype=GeneralizationDtype("ordered", EDU)),
        "race": pd.array(["White", S("Asian", "White"), None, "Black", S("Asian", "White")],
                         dtype="generalization[unordered]"),
        "zip": pd.array([1300, S(1300, 1301), 1302, None, S(1301, 1302)],
                        dtype="generalization[unordered]"),
        "disease": ["flu", "cold", "flu", "hiv", "cold"],
    })


def _parquet_round_trip(df):
    buf = io.BytesIO()
    df.to_parquet(buf)
    buf.seek(0)
    return pd.read_parquet(buf)


# --------------------------------------------------------------------------- cells


def test_plain_values_ranges_and_na_side_by_side(gen_frame):
    age = gen_frame["age"]
    assert age[0] == 39 and type(age[0]) is int
    assert isinstance(age[1], GeneralizationRange) and age[1] == R(20, 29, "real")
    assert pd.isna(age[2])
    assert gen_frame["race"][0] == "White"
    assert gen_frame["race"][1] == S("Asian", "White")
    assert gen_frame["edu"][1] == R("HS-grad", "Masters", "ordered")
    assert gen_frame["race"].dtype.categories.tolist() == ["Asian", "Black", "White"]


def test_float_array_returns_floats():
    arr = pd.array([39.5, R(1.5, 2, "real")], dtype="generalization[real]")
    assert arr[0] == 39.5 and type(arr[0]) is float
    assert not arr.is_integer
    ints = GeneralizationArray.from_values(np.array([1, 2]), kind="real")
    assert ints.is_integer and type(ints[0]) is int


def test_repr_and_text(gen_frame):
    text = repr(gen_frame)
    assert "[20, 29]" in text and "{Asian, White}" in text and "[HS-grad, Masters]" in text
    assert gen_frame["age"].astype(str).tolist()[:2] == ["39", "[20, 29]"]
    assert "generalization[real]" in repr(gen_frame.dtypes)


def test_isna_and_eq(gen_frame):
    assert gen_frame["age"].isna().tolist() == [False, False, True, False, False]
    assert (gen_frame["age"] == R(20, 29, "real")).tolist() == [False, True, False, False, False]
    assert (gen_frame["age"] == 39).tolist() == [True, False, False, False, False]
    assert (gen_frame["race"] == {"Asian", "White"}).tolist() == [False, True, False, False,
                                                                  True]
    assert (gen_frame["race"] == "Martian").tolist() == [False] * 5
    assert (gen_frame["race"] != "White").tolist() == [False, True, True, True, True]
    other = gen_frame["race"].iloc[[4, 1, 2, 3, 0]].reset_index(drop=True)
    assert (gen_frame["race"] == other).tolist() == [False, True, False, True, False]


def test_order_comparisons_use_lower_bound(gen_frame):
    assert (gen_frame["age"] < 35).tolist() == [False, True, False, False, True]
    with pytest.raises(TypeError):
        gen_frame["race"] < "White"  # noqa: B015
    # ordered: category order, not text order
    assert (gen_frame["edu"] > "Preschool").tolist() == [True, True, False, False, True]


def test_groupby_sort_and_value_counts(gen_frame):
    df = pd.concat([gen_frame] * 3, ignore_index=True)
    counts = df.groupby("race").size()
    assert counts.to_dict() == {"Black": 3, "White": 3, S("Asian", "White"): 6}
    assert df.groupby("race", dropna=False).size().sum() == 15
    g = df.groupby(["age", "race"]).size()
    assert g.sum() == 12  # rows without NA in either key
    srt = df["age"].sort_values(na_position="last")
    assert srt.tolist()[:6] == [R(20, 29, "real")] * 3 + [R(30, 39, "real")] * 3
    assert srt.tolist()[6:9] == [39] * 3
    assert df["edu"].sort_values().tolist()[0] == "Preschool"
    vc = df["race"].value_counts()
    assert vc.iloc[0] == 6 and vc.index[0] == S("Asian", "White")


def test_concat_frames_generalized_separately():
    a = pd.DataFrame({"race": pd.array(["White", S("Asian", "White")],
                                       dtype="generalization[unordered]")})
    b = pd.DataFrame({"race": pd.array(["Black", S("Black", "Other")],
                                       dtype="generalization[unordered]")})
    both = pd.concat([a, b], ignore_index=True)
    assert isinstance(both["race"].dtype, GeneralizationDtype)
    assert set(both["race"].dtype.categories) == {"Asian", "Black", "Other", "White"}
    assert both["race"].tolist() == ["White", S("Asian", "White"), "Black", S("Black", "Other")]
    e1 = GeneralizationDtype("ordered", ["low", "mid"])
    e2 = GeneralizationDtype("ordered", ["mid", "high"])
    o = pd.concat([pd.Series(pd.array(["low", R("low", "mid")], dtype=e1)),
                   pd.Series(pd.array([R("mid", "high"), "high"], dtype=e2))])
    assert o.dtype.categories.tolist() == ["low", "mid", "high"]
    assert o.tolist() == ["low", R("low", "mid"), R("mid", "high"), "high"]


def test_concat_with_plain_numbers_stays_generalized():
    g = pd.Series(pd.array([R(20, 29, "real")], dtype="generalization[real]"))
    out = pd.concat([g, pd.Series([35, 40])], ignore_index=True)
    assert isinstance(out.dtype, GeneralizationDtype)
    assert out.tolist() == [R(20, 29, "real"), 35, 40]
    mixed = pd.concat([g, pd.Series(["x"])], ignore_index=True)
    assert mixed.dtype == object


def test_take_copy_setitem_and_views():
    arr = pd.array(["a", S("a", "b"), None], dtype="generalization[unordered]")
    t = arr.take([2, 1, -1], allow_fill=True)
    assert pd.isna(t[0]) and t[1] == S("a", "b") and pd.isna(t[2])
    view = arr[1:]
    view[1] = "b"
    assert arr[2] == "b"  # views write through
    arr2 = pd.array(["a", "b", "c"], dtype="generalization[unordered]")
    v = arr2[:2]
    v[0] = {"a", "c"}  # a set the array has never seen
    assert arr2[0] == S("a", "c") and v[0] == S("a", "c")
    with pytest.raises(ValueError, match="not among the categories"):
        arr2[0] = "zzz"
    ro = arr2[:]
    ro._readonly = True
    with pytest.raises(ValueError, match="read-only"):
        ro[0] = "a"
    assert ro[:1]._readonly


def test_series_setitem_and_where():
    s = pd.Series(pd.array([1, 2, 3], dtype="generalization[real]"))
    s[1] = R(1, 5, "real")
    s.iloc[2] = np.nan
    assert s.tolist()[:2] == [1, R(1, 5, "real")] and pd.isna(s[2])
    w = s.where(s.array.is_plain, R(0, 9, "real"))
    assert w.tolist() == [1, R(0, 9, "real"), R(0, 9, "real")]
    with pytest.raises((TypeError, ValueError)):
        s.array[0] = "not a number"


def test_astype(gen_frame):
    age = gen_frame["age"]
    obj = age.astype(object)
    assert obj.dtype == object and obj[1] == R(20, 29, "real")
    s = age.astype("string")
    assert s.tolist()[:2] == ["39", "[20, 29]"] and pd.isna(s[2])
    with pytest.raises(TypeError, match="lo / .hi"):
        age.astype(float)
    plain = pd.Series(pd.array([1, None, 3], dtype="generalization[real]"))
    assert plain.astype(float).tolist()[0] == 1.0
    assert age.astype("generalization[ordered]").tolist()[1] == R(20, 29, "ordered")


def test_merge_on_generalized_key(gen_frame):
    left = gen_frame[["race", "disease"]]
    right = pd.DataFrame({"race": gen_frame["race"].iloc[[1, 3]].reset_index(drop=True),
                          "x": [1, 2]})
    m = left.merge(right, on="race")
    assert sorted(m["x"].tolist()) == [1, 1, 2]


def test_hash_pandas_object_equal_cells_equal_hashes():
    a = pd.Series(pd.array(["a", S("a", "b"), S("b", "a"), None, "a"],
                           dtype="generalization[unordered]"))
    h = pd.util.hash_pandas_object(a, index=False).to_numpy()
    assert h[1] == h[2] and h[0] == h[4] and h[0] != h[1]
    b = pd.Series(pd.array([S("a", "b"), "a"], dtype=GeneralizationDtype("unordered",
                                                                        ["b", "a", "c"])))
    hb = pd.util.hash_pandas_object(b, index=False).to_numpy()
    assert hb[0] == h[1] and hb[1] == h[0]  # independent of category order


# --------------------------------------------------------------------------- engine API


def test_from_bounds_and_properties():
    arr = GeneralizationArray.from_bounds([20, 39, 0], [29, 39, 0], kind="real",
                                          mask=[False, False, True])
    assert arr.tolist()[:2] == [R(20, 29, "real"), 39] and pd.isna(arr[2])
    assert arr.is_plain.tolist() == [False, True, False]
    assert np.isnan(arr.lo[2]) and arr.lo[0] == 20 and arr.hi[0] == 29
    assert arr.contains([25, 39, 5]).tolist() == [True, True, False]
    with pytest.raises(ValueError, match="greater"):
        GeneralizationArray.from_bounds([5], [1], kind="real")
    with pytest.raises(ValueError):
        arr.lo[0] = 3  # read-only view


def test_from_bounds_ordered_categories():
    arr = GeneralizationArray.from_bounds([1, 0, -1], [3, 0, -1], kind="ordered",
                                          categories=EDU)
    assert arr[0] == R("HS-grad", "Masters", "ordered") and arr[1] == "Preschool"
    assert pd.isna(arr[2])
    assert arr.lo.tolist() == [1, 0, -1] and arr.lo.dtype == np.int64
    assert arr.contains(["Bachelors", "HS-grad", "HS-grad"]).tolist() == [True, False, False]
    cat = pd.Categorical(["Bachelors", "HS-grad", "HS-grad"], categories=EDU, ordered=True)
    assert arr.contains(cat).tolist() == [True, False, False]


def test_from_membership_and_membership():
    cats = ["Asian", "Black", "White"]
    m = np.array([[1, 0, 1], [0, 0, 1], [0, 0, 0], [1, 0, 1]], dtype=bool)
    arr = GeneralizationArray.from_membership(m, cats)
    assert arr.tolist()[:2] == [S("Asian", "White"), "White"] and pd.isna(arr[2])
    np.testing.assert_array_equal(arr.membership, m)
    assert arr.codes[0] == arr.codes[3] and arr.codes[1] == 2
    assert arr.is_plain.tolist() == [False, True, False, False]
    assert arr.contains(["White", "Black", "White", "Asian"]).tolist() == [True, False, False,
                                                                           True]


def test_from_groups():
    arr = GeneralizationArray.from_groups(np.array([25, 31, 40, 40, np.nan]),
                                          np.array([0, 0, 1, -1, 0]), kind="real", integer=True)
    assert arr.tolist()[:4] == [R(25, 31, "real"), R(25, 31, "real"), 40, 40]
    assert pd.isna(arr[4])
    u = GeneralizationArray.from_groups(np.array([0, 2, 1, 1, -1]), np.array([0, 0, 1, 1, 1]),
                                        kind="unordered", categories=["a", "b", "c"])
    assert u.tolist()[:4] == [S("a", "c"), S("a", "c"), "b", "b"] and pd.isna(u[4])


def test_from_values_categorical_and_errors():
    cat = pd.Categorical(["HS-grad", "Masters", None], categories=EDU, ordered=True)
    arr = GeneralizationArray.from_values(cat, kind="ordered")
    assert arr.dtype.categories.tolist() == EDU and arr.tolist()[:2] == ["HS-grad", "Masters"]
    with pytest.raises(ValueError, match="not among the categories"):
        GeneralizationArray.from_values(["x"], kind="unordered", categories=["a"])
    u = GeneralizationArray.from_values([(1, 2), (3, 4), (1, 2)], kind="unordered")
    assert u[0] == (1, 2) and len(u.dtype.categories) == 2


def test_set_table_grows_not_per_row():
    n = 10_000
    m = np.zeros((n, 30), dtype=bool)
    m[np.arange(n), np.arange(n) % 30] = True
    m[np.arange(n), (np.arange(n) + 1) % 30] = True
    arr = GeneralizationArray.from_membership(m, [f"c{i}" for i in range(30)])
    assert len(arr._table) == 30  # one row per distinct set, not per cell
    codes, uniques = pd.factorize(arr)
    assert len(uniques) == 30 and codes.max() == 29


# --------------------------------------------------------------------------- Parquet


def test_parquet_round_trip(gen_frame):
    back = _parquet_round_trip(gen_frame)
    tm.assert_frame_equal(back, gen_frame)
    assert back["age"].array.is_integer and type(back["age"][0]) is int
    assert back["zip"].dtype.categories.tolist() == [1300, 1301, 1302]
    assert back["edu"].dtype.categories.tolist() == EDU


def test_parquet_floats_and_int_categories():
    df = pd.DataFrame({
        "x": pd.array([1.5, R(0.25, 3, "real"), np.nan], dtype="generalization[real]"),
        "n": pd.array([7, {7, 9}, None], dtype="generalization[unordered]"),
        "o": pd.array([1, R(1, 3, "ordered"), None], dtype="generalization[ordered]"),
    })
    back = _parquet_round_trip(df)
    tm.assert_frame_equal(back, df)
    assert type(back["x"][0]) is float


def test_parquet_storage_is_readable_without_pdanon_types(gen_frame):
    import pyarrow as pa

    table = pa.Table.from_pandas(gen_frame)
    storage = table.column("race").chunk(0).storage
    assert storage.to_pylist()[:2] == [["White"], ["Asian", "White"]]
    age = table.column("age").chunk(0).storage
    # every range column carries the "or missing" flag of its cells (one storage type)
    assert age.to_pylist()[1] == {"lo": 20, "hi": 29, "or_missing": False}


def test_parquet_sliced_chunks(gen_frame):
    import pyarrow as pa

    table = pa.Table.from_pandas(gen_frame.iloc[1:4])
    back = table.to_pandas()
    tm.assert_frame_equal(back, gen_frame.iloc[1:4])


# --------------------------------------------------------------------------- CSV / text


def test_csv_round_trip_with_pandera_schema(gen_frame, tmp_path):
    path = tmp_path / "release.csv"
    gen_frame.to_csv(path, index=False)
    text = path.read_text()
    assert '"[20, 29]"' in text and '"{Asian, White}"' in text
    sch = pdanon.schema(quasi_identifiers={"age": "real", "race": "unordered",
                                           "zip": "unordered", "edu": "ordered"},
                        sensitive={"disease": "unordered"})
    sch.columns["edu"].metadata["categories"] = EDU
    back = read_csv(path, schema=sch)
    tm.assert_frame_equal(back, gen_frame)


def test_read_csv_dict_schema_and_untouched_columns(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text('a,b,c\n1,"[1, 2]",x\n2,3,"{x, y}"\n')
    df = read_csv(path, schema={"a": "real", "b": "real", "c": "unordered"})
    assert df["a"].dtype == np.int64  # no range syntax -> left as read
    assert df["b"].tolist() == [R(1, 2, "real"), 3]
    assert df["c"].tolist() == ["x", S("x", "y")]
    untouched = read_csv(path)
    assert untouched["b"].dtype != GeneralizationDtype("real")


# ragged lines (issue 27): every line has as many fields as the header, and the error says
# which line does not; pandas' implicit index (a first column taken as the index when data
# lines have one field more than the header) never happens


TRAILING = "name,age,sex\nann,30,F,\nbob,31,M,\n"
RAGGED_MESSAGE = ("line 2 has 4 fields, but the header (line 1) has 3 (a trailing comma, or a "
                  "comma in a cell that is not quoted?); every line must have as many fields "
                  "as the header")


def test_read_csv_trailing_comma_names_the_line_instead_of_shifting_columns(tmp_path):
    # before: the names became the index and every column shifted one to the left
    path = tmp_path / "t.csv"
    path.write_text(TRAILING)
    for source in (path, str(path), io.StringIO(TRAILING), io.BytesIO(TRAILING.encode())):
        with pytest.raises(pdanon.InvalidInputError) as err:
            read_csv(source, schema={"age": "real"})
        assert str(err.value) == RAGGED_MESSAGE


@pytest.mark.parametrize("text, kwargs, message", [
    ("a,b\n1,2\n3,4,5\n", {}, "line 3 has 3 fields, but the header (line 1) has 2"),
    ("a,b,c\n1,2,3\n4,5\n", {}, "line 3 has 2 fields, but the header (line 1) has 3"),
    ('a,b\n1,"x\ny"\n\n2,3,4\n', {}, "line 5 has 3 fields, but the header (line 1) has 2"),
    ("\n\na,b\n1,2,3\n", {}, "line 4 has 3 fields, but the header (line 3) has 2"),
    ("a;b\n1;2;3\n", {"sep": ";"}, "line 2 has 3 fields, but the header (line 1) has 2"),
    ("1,2\n3,4,5\n", {"header": None}, "line 2 has 3 fields, but line 1 has 2"),
    ("1,2,3\n4,5\n", {"header": None}, "line 2 has 2 fields, but line 1 has 3"),
    ("x\na,b\n1,2,3\n", {"header": 1}, "line 3 has 3 fields, but the header (line 2) has 2"),
    ('a,b\n"1,2",3,4\n', {}, "line 2 has 3 fields, but the header (line 1) has 2"),
])
def test_read_csv_ragged_lines_name_the_line(text, kwargs, message):
    with pytest.raises(pdanon.InvalidInputError) as err:
        read_csv(io.StringIO(text), **kwargs)
    assert str(err.value).startswith(message + " ("), str(err.value)


def test_read_csv_a_line_spanning_lines_is_named_by_its_first_line():
    with pytest.raises(pdanon.InvalidInputError) as err:
        read_csv(io.StringIO('a,b\n1,2\n3,"x\ny",4\n'))
    assert str(err.value) == (
        "line 3 has 3 fields, but the header (line 1) has 2 (the line continues to line 4 "
        "inside quotes: a quote left open?); every line must have as many fields as the header")
    # a quote left open to the end of the file: as many fields, pandas' error, reworded
    with pytest.raises(pdanon.InvalidInputError) as err:
        read_csv(io.StringIO('a,b\n1,2\n3,"open\nquote\n'))
    assert str(err.value) == ("cannot read the file as CSV: a quoted cell is not closed before "
                              "the end of the file (pandas: EOF inside string starting at row "
                              "2)")


def test_read_csv_equal_lines_still_read_as_pandas_reads_them(tmp_path):
    text = 'a,b\n1,"x, y"\n\n   \n2,"multi\nline"\n'
    got = read_csv(io.StringIO(text))
    tm.assert_frame_equal(got, pd.read_csv(io.StringIO(text)))
    assert got["b"].tolist() == ["x, y", "multi\nline"]
    # a CSV written with its index (first header field empty) reads with index_col=0
    df = pd.DataFrame({"a": [1, 2]}, index=[5, 6])
    tm.assert_frame_equal(read_csv(io.StringIO(df.to_csv()), index_col=0), df)
    # a stream is read from where it stands, and a file object is left where pandas leaves it
    buf = io.StringIO("junk\n" + text)
    buf.readline()
    tm.assert_frame_equal(read_csv(buf), got)
    gz = tmp_path / "x.csv.gz"
    import gzip

    with gzip.open(gz, "wt") as fh:
        fh.write(TRAILING)
    with pytest.raises(pdanon.InvalidInputError, match="line 2 has 4 fields"):
        read_csv(gz)


def test_read_csv_non_seekable_stream():
    class Stream(io.RawIOBase):
        def __init__(self, data):
            self._data = io.BytesIO(data)

        def readable(self):
            return True

        def seekable(self):
            return False

        def readinto(self, b):
            chunk = self._data.read(len(b))
            b[:len(chunk)] = chunk
            return len(chunk)

    with pytest.raises(pdanon.InvalidInputError, match="line 2 has 4 fields"):
        read_csv(io.BufferedReader(Stream(TRAILING.encode())))
    back = read_csv(io.BufferedReader(Stream(b"a,b\n1,2\n")))
    assert back.to_dict("list") == {"a": [1], "b": [2]}


def test_read_csv_a_100000_field_line_is_refused_in_well_under_a_second(tmp_path):
    import time

    # before: pandas built a 99,999-level implicit index and read_csv hung
    path = tmp_path / "wide.csv"
    path.write_text("a,b\n" + ",".join(["1"] * 100_000) + "\n")
    assert path.stat().st_size > 200_000
    started = time.perf_counter()
    with pytest.raises(pdanon.InvalidInputError, match="line 2 has 100000 fields, but the "
                       "header \\(line 1\\) has 2"):
        read_csv(path)
    assert time.perf_counter() - started < 1.0
    # the same line first, short lines after it: refused at line 2, never padded
    path.write_text(",".join(["1"] * 100_000) + "\n" + "1,2\n" * 50_000)
    started = time.perf_counter()
    with pytest.raises(pdanon.InvalidInputError, match="line 2 has 2 fields, but line 1 has "
                       "100000"):
        read_csv(path, header=None)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize("engine", ["c", "python", "pyarrow"])
def test_read_csv_every_engine_is_checked(engine):
    pytest.importorskip("pyarrow")
    good = read_csv(io.StringIO("a,b\n1,2\n"), engine=engine)
    assert good.to_dict("list") == {"a": [1], "b": [2]}
    with pytest.raises(pdanon.InvalidInputError, match="^" + RAGGED_MESSAGE.replace("(", "\\(")
                       .replace(")", "\\)").replace("?", "\\?") + "$"):
        read_csv(io.StringIO(TRAILING), engine=engine)


def test_read_csv_options_the_check_does_not_model_still_never_shift():
    # comment lines: the field check leaves the file to pandas, which is told index_col=False
    # and whose "more fields than the header" warning is an error
    with pytest.raises(pdanon.InvalidInputError) as err:
        read_csv(io.StringIO("# note\nname,age\nann,30,x\n"), comment="#")
    assert "more fields than the header" in str(err.value)
    with pytest.raises(pdanon.InvalidInputError, match="line 4"):
        read_csv(io.StringIO("# note\nname,age\nann,30\nbob,31,x\n"), comment="#")


def test_parse_generalized_typing():
    u = parse_generalized(["{1, 2}", "3", None, ""], "unordered")
    assert u.dtype.categories.tolist() == [1, 2, 3] and u[1] == 3
    assert pd.isna(u[2]) and pd.isna(u[3])
    f = parse_generalized(["1.5", "[2, 3.25]"], "real")
    assert f.tolist() == [1.5, R(2, 3.25, "real")] and not f.is_integer
    o = parse_generalized(["low", "[low, high]"], "ordered", categories=["low", "mid", "high"])
    assert o[1] == R("low", "high", "ordered")
    o2 = parse_generalized(["1", "[1, 3]"], "ordered")
    assert o2.dtype.categories is None and o2[1] == R(1, 3, "ordered")
    with pytest.raises(ValueError, match="cannot parse"):
        parse_generalized(["[1, 2", "x"], "real")
    with pytest.raises(ValueError, match="not among"):
        parse_generalized(["{a, z}"], "unordered", categories=["a", "b"])


def test_parse_categories_with_commas():
    cats = ["Married, spouse absent", "Never married", "Divorced"]
    arr = pd.array(["Divorced", S("Married, spouse absent", "Divorced")],
                   dtype=GeneralizationDtype("unordered", cats))
    back = parse_generalized(arr.to_text(), "unordered", categories=cats)
    assert back.tolist() == arr.tolist()
    o = pd.array([R("Married, spouse absent", "Divorced", "ordered")],
                 dtype=GeneralizationDtype("ordered", cats))
    assert parse_generalized(o.to_text(), "ordered", categories=cats).tolist() == o.tolist()


def test_json_round_trip(gen_frame):
    s = gen_frame["race"]
    back = pd.read_json(io.StringIO(s.to_json()), typ="series", dtype=s.dtype)
    tm.assert_series_equal(back, s, check_names=False)


# --------------------------------------------------------------------------- properties

_WORDS = ["Asian", "Black", "White", "Other", "Amer-Indian"]

_real_cell = st.one_of(
    st.none(),
    st.integers(-1000, 1000),
    st.tuples(st.integers(-1000, 1000), st.integers(0, 50)).map(
        lambda t: R(t[0], t[0] + t[1], "real")),
)
_float_cell = st.one_of(
    st.none(),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
    st.tuples(st.floats(-1e6, 1e6, allow_nan=False), st.floats(0, 1e3, allow_nan=False)).map(
        lambda t: R(t[0], t[0] + t[1], "real")),
)
_word_cell = st.one_of(
    st.none(),
    st.sampled_from(_WORDS),
    st.sets(st.sampled_from(_WORDS), min_size=1, max_size=4).map(
        lambda s: R(column_type="unordered", column_values=sorted(s))),
)
_int_set_cell = st.one_of(
    st.none(),
    st.integers(0, 20),
    st.sets(st.integers(0, 20), min_size=2, max_size=5).map(frozenset),
)


def _frame(cells, dtype):
    return pd.DataFrame({"c": pd.array(cells, dtype=dtype)})


def _same_cells(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if pd.isna(x) if not isinstance(x, GeneralizationRange) else False:
            assert pd.isna(y)
        else:
            assert x == y, (x, y)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_real_cell, min_size=1, max_size=30))
def test_property_real_round_trips(cells):
    df = _frame(cells, "generalization[real]")
    tm.assert_frame_equal(_parquet_round_trip(df), df)
    text = df.to_csv(index=False)
    back = read_csv(io.StringIO(text), schema={"c": "real"})
    _same_cells(back["c"].tolist(), df["c"].tolist())
    if (~df["c"].array.is_plain & ~df["c"].isna()).any():
        tm.assert_frame_equal(back, df)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_float_cell, min_size=1, max_size=20))
def test_property_float_round_trips(cells):
    df = _frame(cells, "generalization[real]")
    tm.assert_frame_equal(_parquet_round_trip(df), df)
    parsed = parse_generalized(df["c"].array.to_text(), "real")
    _same_cells(parsed.tolist(), df["c"].tolist())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_word_cell, min_size=1, max_size=30))
def test_property_unordered_strings_round_trip(cells):
    df = _frame(cells, "generalization[unordered]")
    tm.assert_frame_equal(_parquet_round_trip(df), df)
    text = df.to_csv(index=False)
    back = read_csv(io.StringIO(text), schema={"c": "unordered"})
    _same_cells(back["c"].tolist(), df["c"].tolist())
    if (~df["c"].array.is_plain & ~df["c"].isna()).any():
        tm.assert_frame_equal(back, df)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_int_set_cell, min_size=1, max_size=30))
def test_property_unordered_ints_round_trip(cells):
    df = _frame(cells, "generalization[unordered]")
    tm.assert_frame_equal(_parquet_round_trip(df), df)
    parsed = parse_generalized(df["c"].array.to_text(), "unordered",
                               categories=df["c"].dtype.categories)
    tm.assert_extension_array_equal(parsed, df["c"].array)


@settings(max_examples=40, deadline=None)
@given(st.lists(_word_cell, min_size=0, max_size=15), st.lists(_word_cell, min_size=0,
                                                                 max_size=15))
def test_property_concat_and_factorize_agree_with_python(a_cells, b_cells):
    a = pd.array(a_cells, dtype="generalization[unordered]") if a_cells else None
    b = pd.array(b_cells, dtype="generalization[unordered]") if b_cells else None
    parts = [pd.Series(x) for x in (a, b) if x is not None]
    if not parts:
        return
    both = pd.concat(parts, ignore_index=True)
    expected = [c for c in a_cells + b_cells]
    _same_cells(both.tolist(), [np.nan if c is None else c for c in expected])
    codes, uniques = pd.factorize(both)
    objs = both.tolist()
    for i in range(len(objs)):
        for j in range(len(objs)):
            if codes[i] >= 0 and codes[j] >= 0:
                assert (codes[i] == codes[j]) == (objs[i] == objs[j])


def test_min_max_where_with_sets_and_empty():
    s = pd.Series([39, R(20, 29, "real"), None], dtype="generalization[real]")
    assert s.min() == R(20, 29, "real") and s.max() == 39
    assert pd.isna(s.min(skipna=False))
    u = pd.Series(["a", S("a", "b"), None], dtype="generalization[unordered]")
    with pytest.raises(TypeError):
        u.min()
    assert u.where(u.isna(), {"a", "b"}).tolist()[:2] == [S("a", "b")] * 2
    filled = u.fillna(S("a", "b"))
    assert filled.tolist() == ["a", S("a", "b"), S("a", "b")]
    empty = GeneralizationDtype("unordered").empty((2,))
    assert empty.isna().all() and empty.dtype.categories is not None


_CSV_PIECES = st.sampled_from(["a", "b", ",", ",", '"', '""', "\n", "\r", "\r\n", " ", "\t",
                               "\n\n"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_CSV_PIECES, max_size=40).map("".join), st.sampled_from([0, None, 1]),
       st.sampled_from([None, 1, 3]), st.sampled_from([1, 2, 5, 1 << 22]))
def test_property_vectorized_field_check_agrees_with_the_csv_module(text, header, nrows, block):
    """The numpy scan (in blocks of any size) gives the csv module's answer: the same count,
    or the same error naming the same line; or it hands the file to the csv module."""
    import csv as _csv

    from pdanon.io import _byte_blocks, _csv_fields, _FALLBACK, _fast_fields, _Scan

    def outcome(run):
        try:
            return run()
        except pdanon.InvalidInputError as exc:
            return str(exc)

    data = text.encode()
    fast = outcome(lambda: _fast_fields(_byte_blocks(io.BytesIO(data), size=block),
                                        _Scan(header, nrows, ","), ord(","), ord('"')))
    slow = outcome(lambda: _csv_fields(io.StringIO(text, newline=""), _Scan(header, nrows, ","),
                                       dict(quotechar='"', doublequote=True, escapechar=None,
                                            skipinitialspace=False,
                                            quoting=_csv.QUOTE_MINIMAL)))
    if fast is not _FALLBACK:
        assert fast == slow, (text, fast, slow)
    # whatever the path, a file the check accepts has equal records for the csv module
    if isinstance(slow, int):
        rows = [r for r in _csv.reader(io.StringIO(text, newline=""))
                if r and (len(r) > 1 or r[0].strip(" \t\r\n"))]
        skip = header or 0
        wanted = rows[skip:]
        if nrows is not None:
            wanted = wanted[:nrows + (1 if header is not None else 0)]
        assert {len(r) for r in wanted} <= {slow}


def test_read_csv_reads_iso_dates_of_an_ordered_column_declared_by_kind(tmp_path):
    """A publisher's CSV export writes dates as ISO text; a schema that gives the column
    the kind 'ordered' (no dtype) reads them as datetimes, missing cells as NaT; a column of
    other text is still refused, naming it."""
    import pdanon

    raw = pd.DataFrame({"birth": pd.to_datetime(["1956-03-02", None, "2001-12-31"]),
                        "at": ["2024-01-01T08:30:00+01:00", "2024-06-01T08:30:00+02:00",
                               None],
                        "code": ["01234", "00999", "01234"]})
    path = tmp_path / "raw.csv"
    raw.to_csv(path, index=False)
    schema = pdanon.schema(quasi_identifiers={"birth": "ordered", "at": "ordered",
                                              "code": "unordered"})
    back = pdanon.read_csv(path, schema=schema)
    pd.testing.assert_series_equal(back["birth"], raw["birth"], check_dtype=False)
    assert str(back["at"].dt.tz) == "UTC"  # offsets that differ: one time line
    assert back["at"].iloc[0] == pd.Timestamp("2024-01-01T07:30:00Z")
    assert back["code"].tolist() == ["01234", "00999", "01234"]  # codes stay text
    (tmp_path / "bad.csv").write_text("birth\n1956-03-02\nsoon\n")
    with pytest.raises(pdanon.InvalidInputError, match="'birth'"):
        pdanon.read_csv(tmp_path / "bad.csv", schema=pdanon.schema(
            quasi_identifiers={"birth": "ordered"}))


# ------------------------------------------------- what pandas' reading would lose (csvcodes)


def test_codes_keep_their_leading_zeros_without_a_schema():
    text = ("zip,icd,code,age,score\n02139,034.0,007,30,1.5\n10001,250.01,010,31,2\n"
            ",034.0,007,32,\n")
    df = read_csv(io.StringIO(text))
    assert df["zip"].tolist()[:2] == ["02139", "10001"] and pd.isna(df["zip"][2])
    assert df["icd"].tolist() == ["034.0", "250.01", "034.0"]
    assert df["code"].tolist() == ["007", "010", "007"]
    # columns of numbers without a leading zero are read as pandas reads them
    tm.assert_series_equal(df["age"], pd.read_csv(io.StringIO(text))["age"])
    tm.assert_series_equal(df["score"], pd.read_csv(io.StringIO(text))["score"])
    # a caller's dtype wins; a schema's ordered kind without categories keeps codes as text
    assert read_csv(io.StringIO(text), dtype={"zip": float})["zip"].tolist()[:2] == [
        2139.0, 10001.0]
    assert read_csv(io.StringIO(text), schema={"zip": "ordered"})["zip"].tolist()[:2] == [
        "02139", "10001"]
    with pytest.warns(pdanon.KindWarning, match="'02139' -> 2139"):
        assert read_csv(io.StringIO(text), schema={"zip": "real"})["zip"][0] == 2139


def test_texts_pandas_takes_for_missing_are_values_of_a_release_read_with_its_schema():
    """'NA' (Namibia), 'None' (an answer): a file written from a frame holds its missing
    cells as empty fields, so read with that frame's schema they are values."""
    df = pd.DataFrame({"age": [30, 31, 32, 33, 40], "cc": ["NA", "US", "NA", "US", None],
                       "answer": ["None", "null", "None", "null", "yes"]})
    out = df.anon.k_anonymize(1, quasi_identifiers={"age": "real"},
                              sensitive={"answer": "unordered"}, insensitive=["cc"], row_order="input")
    text = out.to_csv(index=False)
    back = read_csv(io.StringIO(text), schema=out.anon.schema)
    assert back["cc"].tolist()[:4] == ["NA", "US", "NA", "US"] and pd.isna(back["cc"][4])
    assert back["answer"].tolist() == ["None", "null", "None", "null", "yes"]
    assert back.anon.l_diversity() == out.anon.l_diversity()
    # a raw export read with a kind alone: pandas' missing texts are missing, as pandas reads
    raw = read_csv(io.StringIO("cc,n\nN/A,1\nUS,2\n"), schema={"cc": "unordered"})
    assert pd.isna(raw["cc"][0])


def test_a_header_naming_a_column_twice_is_refused():
    with pytest.raises(pdanon.InvalidInputError, match=r"names column\(s\) \['zip'\] more "
                                                         r"than once"):
        read_csv(io.StringIO("zip,age,zip\n02139,30,02139\n"))


def test_blank_is_missing_beside_integers_beyond_64_bits():
    text = "acct\n12345678901234567890\n12345678901234567891\n\n"
    got = read_csv(io.StringIO(text + "1\n"), skip_blank_lines=False)
    assert pd.isna(got["acct"][2]) and got["acct"][0] in ("12345678901234567890",
                                                          12345678901234567890)


def test_integers_beyond_float_precision_are_refused_as_numbers():
    text = "acct\n98765432109876543210\n98765432109876543211\n5\n"
    for kind in ("real", "ordered"):
        with pytest.raises(pdanon.InvalidInputError, match=r"integer beyond 2\*\*53"):
            read_csv(io.StringIO(text), schema={"acct": kind})
    assert read_csv(io.StringIO(text), schema={"acct": "unordered"})["acct"].tolist() == [
        "98765432109876543210", "98765432109876543211", "5"]
    # floats in scientific notation are numbers, not codes
    assert read_csv(io.StringIO("x\n1.5e20\n2\n"), schema={"x": "real"})["x"][0] == 1.5e20


def test_text_recorded_as_text_is_not_read_as_generalized_cells():
    df = pd.DataFrame({"age": [30, 31, 32, 33], "s": ["x", "{x}", "x", "{x}"]})
    out = df.anon.l_diversify(2, quasi_identifiers={"age": "real"},
                              sensitive={"s": "unordered"}, row_order="input")
    back = read_csv(io.StringIO(out.to_csv(index=False)), schema=out.anon.schema)
    assert back["s"].tolist() == ["x", "{x}", "x", "{x}"]
    assert back.anon.l_diversity() == 2


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.sampled_from(["02139", "7", "-05", "0.5", "-0.25", "x, y", "a\"b",
                                          "", "2024-01-05", " 007", "+01", "10", "[1, 2]"]),
                         min_size=3, max_size=3), min_size=1, max_size=12))
def test_leading_zero_fields_agree_with_a_csv_parser(rows):
    """The vectorized scan finds exactly the fields that Python's csv module reads as
    numbers written with a leading zero (quoted separators and quotes honoured)."""
    import csv
    import re

    from pdanon.io import leading_zero_fields

    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([["a", "b", "c"], *rows])
    text = buf.getvalue()
    want = {j for row in csv.reader(io.StringIO(text)) for j, cell in enumerate(row)
            if re.match(r'^[ "]{0,2}[+-]?0\d', cell) or re.match(r"^ ?[+-]?0\d", cell)}
    got = leading_zero_fields(io.StringIO(text), {})
    # the scan reads the raw bytes: a quoted field's quote counts among the two characters
    # that may come before the zero
    assert got == want, text


def test_codes_with_leading_or_trailing_spaces_read_back():
    df = pd.DataFrame({"z": [" a", "a ", " a", "a ", "b", "b"], "age": [1, 2, 3, 4, 5, 5]})
    out = df.anon.k_anonymize(2, quasi_identifiers={"z": "unordered", "age": "real"},
                              algorithm="mondrian")
    back = read_csv(io.StringIO(out.to_csv(index=False)), schema=out.anon.schema)
    assert [str(c) for c in back["z"]] == [str(c) for c in out["z"]]
    assert back["z"].dtype == out["z"].dtype


def test_a_date_that_names_no_day_is_named_with_its_row():
    text = "d,dis\n2024-01-05,a\n2024-02-30,b\n2024-03-01,a\n"
    with pytest.raises(pdanon.InvalidInputError, match=r"column 'd', row 1: '2024-02-30' is "
                                                         r"not a date"):
        read_csv(io.StringIO(text), schema={"d": "ordered"})


def test_dates_with_and_without_an_offset_warn_that_the_others_are_utc():
    text = "d\n2024-01-05\n2024-01-05T23:30:00-05:00\n"
    with pytest.warns(pdanon.KindWarning, match=r"those without are taken as UTC"):
        back = read_csv(io.StringIO(text), schema={"d": "ordered"})
    assert str(back["d"].dt.tz) == "UTC"


def test_a_schema_of_several_time_zones_in_one_column_is_refused_in_words():
    import warnings

    ts = [pd.Timestamp("2024-01-01", tz="UTC"), pd.Timestamp("2024-01-02", tz="Europe/Paris"),
          pd.Timestamp("2024-01-03", tz="America/New_York"), pd.Timestamp("2024-01-04",
                                                                          tz="UTC")]
    df = pd.DataFrame({"t": pd.Series(ts, dtype=object), "sex": list("FFMM")})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # exact bounds: four unique timestamps would all be widened to blank cells, and the
        # subject is the schema of the zones the cells keep
        out = df.anon.k_anonymize(2, quasi_identifiers={"t": "ordered", "sex": "unordered"},
                                  algorithm="mondrian", options={"exact_bounds": True})
    with pytest.raises(pdanon.InvalidInputError, match=r"column 't' holds Timestamp values"):
        pdanon.schema_to_yaml(out.anon.schema)


def test_the_scan_for_leading_zeros_sees_every_form_of_the_file(tmp_path):
    """A quoted cell with a line break across the scan's 4 MB blocks, a gzip stream read with
    compression=, carriage-return line ends, an empty header field: the codes stay text (the
    review found each losing them, or refused)."""
    import gzip

    note = '"line one\nline two"'
    body = "".join(f"{note},{10001 + i % 7}\n" for i in range(150_000))
    (tmp_path / "big.csv").write_text("note,zip\n" + body + f"{note},02139\n")
    assert read_csv(tmp_path / "big.csv")["zip"].iloc[-1] == "02139"
    data = gzip.compress(b"zip,n\n02139,1\n10001,2\n")
    assert read_csv(io.BytesIO(data), compression="gzip")["zip"].tolist() == ["02139", "10001"]
    assert read_csv(io.StringIO("zip,n\r02139,1\r10001,2\r"))["zip"].tolist() == [
        "02139", "10001"]
    assert list(read_csv(io.StringIO("a,,\n1,2,3\n")).columns) == [
        "a", "Unnamed: 1", "Unnamed: 2"]
    for kw in ({"header": None}, {"names": ["zip", "n"], "header": 0}, {"index_col": 1},
               {"usecols": ["zip"]}):
        got = read_csv(io.StringIO("zip,n\n02139,1\n10001,2\n"), **kw)
        column = got.columns[0] if "header" in kw and kw["header"] is None else "zip"
        values = got[column].tolist()
        assert "02139" in values, (kw, values)
