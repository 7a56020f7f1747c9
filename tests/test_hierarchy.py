"""Hierarchies (pdanon.hierarchy) and df.anon.generalize: hand-checked outputs, validation
errors, and property tests against straightforward reference mappings."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon import hierarchy as hh
from pdanon.dtype import GeneralizationDtype, GeneralizationRange
from pdanon.hierarchy import dates, from_table, intervals, masking, read_arx_csv, tree
from tests._helpers.messy import time_limit

# ----------------------------------------------------------------------------- intervals


def test_intervals_labels_and_ranges_by_hand():
    h = intervals([5, 10, 20])
    table = h.levels_table([23, 41, 20, 29])
    assert table.to_dict("list") == {
        "value": [23, 41, 20, 29],
        "level1": ["20-24", "40-44", "20-24", "25-29"],
        "level2": ["20-29", "40-49", "20-29", "20-29"],
        "level3": ["20-39", "40-59", "20-39", "20-39"],
        "level4": ["*", "*", "*", "*"],
    }
    assert h.height == 4
    cl = hh.column_levels(h, pd.Series([23, 41, 20, 29], name="age"), "real")
    assert cl.cells(2).tolist() == [GeneralizationRange(20, 29, "real"),
                                   GeneralizationRange(40, 49, "real"),
                                   GeneralizationRange(20, 29, "real"),
                                   GeneralizationRange(20, 29, "real")]
    # the top covers the column with the widest bands ([20, 39] and [40, 59]), never the
    # column's least and greatest values (20 is a band's start here, 41 is no bound)
    assert cl.cells(4).astype(str).tolist() == ["[20, 59]"] * 4


def test_intervals_start_and_floats():
    h = intervals([10], start=5)
    assert h.map(pd.Series([4, 5, 14, 15]), 1).tolist() == ["-5-4", "5-14", "5-14", "15-24"]
    f = intervals([0.5])
    assert f.map(pd.Series([1.2, 1.7]), 1).tolist() == ["[1, 1.5)", "[1.5, 2)"]


def test_intervals_width_must_nest():
    with pytest.raises(pdanon.InvalidInputError, match="not a multiple of the previous width"):
        intervals([5, 10, 25])
    with pytest.raises(pdanon.InvalidInputError, match="positive"):
        intervals([0])


def test_intervals_need_numbers():
    with pytest.raises(pdanon.KindError, match="'zip'.*needs numbers"):
        intervals([10]).validate(pd.Series(["a", "b"], name="zip"))


# ----------------------------------------------------------------------------- masking


def test_masking_zip_codes():
    h = masking()
    s = pd.Series(["10001", "10002", "10103"], index=[7, 8, 9])
    assert h.map(s, 1).tolist() == ["1000*", "1000*", "1010*"]
    assert h.map(s, 2).tolist() == ["100**", "100**", "101**"]
    out = h.map(s, 5)
    assert out.tolist() == ["*****"] * 3 and list(out.index) == [7, 8, 9]


def test_masking_tutorial_steps_and_char():
    h = masking(char="X", steps=[2])
    # all three zips share 100XX: the top is not needed
    assert h.levels_table(["10001", "10002", "10003"])["level1"].tolist() == ["100XX"] * 3
    # 100XX and 102XX differ: a top "*" is added
    t = h.levels_table(["10001", "10201"])
    assert t.columns.tolist() == ["value", "level1", "level2"]
    assert t["level2"].tolist() == ["*", "*"]


def test_masking_bad_arguments():
    with pytest.raises(pdanon.InvalidInputError, match="one character"):
        masking(char="**")
    with pytest.raises(pdanon.InvalidInputError, match="increasing"):
        masking(steps=[2, 1])


# ----------------------------------------------------------------------------- trees, tables


def test_tree_nested_dict_unbalanced():
    h = tree({"Europe": {"West": ["France", "Spain"]}, "Asia": ["India"]})
    t = h.levels_table()
    assert t.to_dict("list") == {
        "value": ["France", "Spain", "India"],
        "level1": ["West", "West", "India"],
        "level2": ["Europe", "Europe", "Asia"],
        "level3": ["*", "*", "*"],
    }
    codes = h.codes_table()
    assert codes.loc["France"].tolist() == [0, 0, 0, 0]
    assert codes.loc["India"].tolist() == [2, 1, 1, 0]


def test_tree_repeated_label_is_not_a_coarsening():
    with pytest.raises(pdanon.InvalidInputError,
                       match=r"level 2 is not a coarsening of level 1: 'Other' .* both"):
        tree({"Europe": {"Other": ["Malta"]}, "Asia": {"Other": ["Laos"]}})


def test_from_table_and_conflicting_rows():
    t = pd.DataFrame({"value": ["HS-grad", "Masters", "Masters"],
                      "l1": ["School", "Higher", "Higher"], "l2": ["*", "*", "*"]})
    h = from_table(t)
    assert h.map(pd.Series(["Masters", "HS-grad"]), 1).tolist() == ["Higher", "School"]
    bad = pd.DataFrame({"value": ["a", "a"], "l1": ["X", "Y"]})
    with pytest.raises(pdanon.InvalidInputError, match="'a' appears more than once"):
        from_table(bad)


def test_missing_values_are_named():
    h = tree({"A": ["x", "y"]})
    with pytest.raises(pdanon.InvalidInputError,
                       match=r"column 'c' has no entry for 2 values of the column: \['z', 'w'\]"):
        h.validate(pd.Series(["x", "z", "w"], name="c"))


def test_dates_day_month_year():
    s = pd.Series(pd.to_datetime(["2024-03-05", "2024-03-28", "2023-12-31"]))
    h = dates()
    assert h.map(s, 1).tolist() == ["2024-03", "2024-03", "2023-12"]
    assert h.map(s, 2).tolist() == ["2024", "2024", "2023"]
    assert h.map(s, 3).tolist() == ["*"] * 3
    q = dates(["quarter", "decade"], top=None)
    assert q.map(s, 1).tolist() == ["2024Q1", "2024Q1", "2023Q4"]
    assert q.map(s, 2).tolist() == ["2020s", "2020s", "2020s"]
    with pytest.raises(pdanon.InvalidInputError, match="increasing"):
        dates(["year", "month"])


# ----------------------------------------------------------------------------- ARX files


def test_read_arx_csv_shipped_hierarchies():
    df = pdanon.datasets.load_adult(nrows=2000)
    for col in pdanon.datasets.ADULT_QUASI_IDENTIFIERS:
        h = read_arx_csv(pdanon.datasets.adult_hierarchy_path(col))
        h.validate(df[col])
    age = read_arx_csv(pdanon.datasets.adult_hierarchy_path("age"))
    # the file stores numbers as text; a numeric column still matches
    assert age.map(pd.Series([23, 41]), 2).tolist() == ["20-29", "40-49"]
    edu = read_arx_csv(pdanon.datasets.adult_hierarchy_path("education"))
    assert edu.height == 3
    assert edu.map(pd.Series(["Masters", "9th"]), 2).tolist() == ["Higher education",
                                                                  "Secondary education"]


def test_read_arx_csv_errors(tmp_path):
    p = tmp_path / "h.csv"
    p.write_text("a;A;*\nb;B\n")
    with pytest.raises(pdanon.InvalidInputError, match="row 2 .* has 2 fields"):
        read_arx_csv(p)
    p.write_text("")
    with pytest.raises(pdanon.InvalidInputError, match="empty"):
        read_arx_csv(p)
    p.write_text("a;A;*\nb;A;*\nc;C;*\n")
    h = read_arx_csv(p)
    assert h.levels_table()["level1"].tolist() == ["A", "A", "C"]
    assert h.to_frame().shape == (3, 3)


def test_map_level_out_of_range():
    with pytest.raises(pdanon.InvalidInputError, match="outside its hierarchy's levels 0..2"):
        intervals([10]).map(pd.Series([1], name="age"), 3)


# ----------------------------------------------------------------------------- generalize


def patients():
    return pd.DataFrame({
        "zipcode": ["10001", "10002", "10003", "10101"],
        "age": [23, 37, 41, 29],
        "gender": pd.Categorical(["M", "F", "F", "M"]),
        "disease": ["flu", "cold", "flu", "hiv"],
    })


def test_generalize_ranges_and_sets_by_hand():
    df = patients()
    before = df.copy()
    out = df.anon.generalize({"age": 1, "zipcode": 2},
                             hierarchies={"age": intervals([10]), "zipcode": masking()},
                             sensitive=["disease"], row_order="input")
    pd.testing.assert_frame_equal(df, before)  # input untouched
    assert isinstance(out["age"].dtype, GeneralizationDtype)
    assert out["age"].astype(str).tolist() == ["[20, 29]", "[30, 39]", "[40, 49]", "[20, 29]"]
    assert out["zipcode"].astype(str).tolist() == ["{10001, 10002, 10003}"] * 3 + ["10101"]
    assert out["gender"].tolist() == df["gender"].tolist()
    assert out.anon.info["levels"] == {"age": 1, "zipcode": 2}
    assert list(out.index) == list(df.index)


def test_generalize_labels():
    out = patients().anon.generalize({"age": 1, "zipcode": 1},
                                     hierarchies={"age": intervals([10]),
                                                  "zipcode": masking(char="X", steps=[2])},
                                     labels=True, row_order="input")
    assert out["age"].tolist() == ["20-29", "30-39", "40-49", "20-29"]
    assert out["zipcode"].tolist() == ["100XX", "100XX", "100XX", "101XX"]


def test_generalize_ordered_tree_to_range():
    df = pdanon.datasets.load_adult(nrows=50)
    h = read_arx_csv(pdanon.datasets.adult_hierarchy_path("education"))
    out = df.anon.generalize({"education": 2}, hierarchies={"education": h}, row_order="input")
    cells = out["education"]
    assert cells.array.kind == "ordered"
    first = df["education"].iloc[0]  # Bachelors -> Higher education: Some-college..Doctorate
    assert first == "Bachelors"
    assert str(cells.iloc[0]) == "[Some-college, Doctorate]"
    assert bool(cells.array.contains(df["education"].to_numpy()).all())


def test_generalize_level_zero_keeps_column():
    df = patients()
    out = df.anon.generalize({"age": 0}, hierarchies={"age": intervals([10])}, row_order="input")
    pd.testing.assert_series_equal(out["age"], df["age"])


def test_generalize_errors():
    df = patients()
    with pytest.raises(pdanon.UnknownColumnError, match="'height'"):
        df.anon.generalize({"height": 1}, hierarchies={"height": intervals([10])})
    with pytest.raises(pdanon.InvalidInputError, match="no hierarchy for column"):
        df.anon.generalize({"age": 1}, hierarchies={})
    with pytest.raises(pdanon.InvalidInputError, match="outside its hierarchy's levels 0..2"):
        df.anon.generalize({"age": 3}, hierarchies={"age": intervals([10])})
    with pytest.raises(pdanon.InvalidInputError, match="no entry for 1 value"):
        df.anon.generalize({"gender": 1}, hierarchies={"gender": {"Person": ["M"]}})


# ----------------------------------------------------------------------------- properties


def _reference_band(x, w, start):
    lo = start + ((x - start) // w) * w
    return f"{lo}-{lo + w - 1}"


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(-50, 150), min_size=1, max_size=40),
       base=st.integers(1, 6), factors=st.lists(st.integers(1, 4), min_size=1, max_size=3),
       start=st.integers(-10, 10))
def test_intervals_match_reference_and_coarsen(values, base, factors, start):
    widths = [base]
    for f in factors:
        widths.append(widths[-1] * f)
    h = intervals(widths, start=start)
    s = pd.Series(values, name="v")
    b = h.bind(pd.unique(s), name="v")
    for j, w in enumerate(widths, start=1):
        assert h.map(s, j).tolist() == [_reference_band(x, w, start) for x in values]
    # levels are monotone: equal nodes at level j stay equal at level j + 1
    for j in range(b.height):
        a, c = b.codes[j], b.codes[j + 1]
        for node in np.unique(a):
            assert len(np.unique(c[a == node])) == 1
    # every range contains its values
    cl = hh.column_levels(h, s, "real")
    for j in range(1, b.height + 1):
        assert bool(cl.cells(j).contains(s.to_numpy()).all())


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.text("0123456789", min_size=1, max_size=5), min_size=1, max_size=30))
def test_masking_matches_reference(values):
    s = pd.Series(values, name="zip")
    h = masking()
    b = h.bind(pd.unique(s), name="zip")
    longest = max(len(v) for v in values)
    for m in range(1, longest + 1):
        want = [v[:max(len(v) - m, 0)] + "*" * min(m, len(v)) for v in values]
        assert h.map(s, m).tolist() == want
    assert len(b.labels[b.height]) == 1  # a single top node


# ----------------------------------------------------------------------------- closedness


def test_float_bands_publish_what_their_labels_say():
    s = pd.Series([30.0, 35.0, 36.5, 34.999], name="x")
    cl = hh.column_levels(intervals([5, 10]), s, "real")
    assert intervals([5, 10]).map(s, 1).tolist() == ["[30, 35)", "[35, 40)", "[35, 40)",
                                                      "[30, 35)"]
    cells = cl.cells(1)
    assert cells.to_text().tolist() == ["[30, 35)", "[35, 40)", "[35, 40)", "[30, 35)"]
    assert cells.closed.tolist() == ["left"] * 4
    # 35.0 lies in exactly one published range
    published = pd.unique(cells)
    assert [35.0 in r for r in published] == [False, True]
    assert cells.contains(s).all()
    assert not cl.cells(1)[:1].contains([35.0])[0]
    # the top covers the column with the widest band, half-open as the bands (never the
    # column's greatest value 36.5)
    assert cl.cells(3).to_text().tolist() == ["[30, 40)"] * 4
    # integer columns keep closed integer bands, labelled alike
    ci = hh.column_levels(intervals([5]), pd.Series([30, 35, 34]), "real")
    assert ci.cells(1).to_text().tolist() == ["[30, 34]", "[35, 39]", "[30, 34]"]


# ----------------------------------------------------------------------------- missing values


def test_every_builder_accepts_missing_values():
    cases = [
        (intervals([10]), pd.Series([23, None, 37], name="a"), ["20-29", None, "30-39"]),
        (masking(steps=[2]), pd.Series(["10001", None, "10201"], name="z"),
         ["100**", None, "102**"]),
        (tree({"A": ["x", "y"], "B": ["z"]}), pd.Series(["x", np.nan, "z"], name="t"),
         ["A", None, "B"]),
        (dates(["year"]), pd.Series(pd.to_datetime(["2024-03-05", None, "2023-01-01"]),
                                    name="d"), ["2024", None, "2023"]),
    ]
    for h, s, level1 in cases:
        h.validate(s)  # a missing value is never unknown
        assert h.map(s, 1).tolist() == level1, h
        top = h.map(s, 2).tolist()
        assert top == ["*", "*", "*"], h  # at a single top node the missing value joins it


def test_missing_values_own_node_codes_and_table():
    h = tree({"A": ["x", "y"], "B": ["z"]})
    b = h.bind(pd.Series(["x", None, "z"]))
    assert b.na and b.codes[1].tolist() == [0, 1, 2] and b.labels[1].tolist() == ["A", "B", None]
    assert b.codes[2].tolist() == [0, 0, 0]
    assert b.holds_missing(1).tolist() == [False, False, True]
    assert b.only_missing(2).tolist() == [False]
    assert b.step(0, 1).tolist() == [0, 1, 2]
    t = h.levels_table(["x", None])
    assert t["level1"].isna().tolist() == [False, True] and t["level2"].tolist() == ["*", "*"]
    assert h.codes_table(["x", None]).to_numpy().tolist() == [[0, 0, 0], [1, 1, 0]]


def test_generalize_publishes_missing_below_the_top_and_the_top_or_missing():
    df = pd.DataFrame({"age": [23.0, np.nan, 37.0, 25.0],
                       "c": ["France", "India", None, "Spain"]})
    h = {"age": intervals([10]), "c": tree({"Europe": ["France", "Spain"], "Asia": ["India"]})}
    out = df.anon.generalize({"age": 1, "c": 1}, hierarchies=h, row_order="input")
    assert out["age"].array.to_text(na_rep="").tolist() == ["[20, 29]", "", "[30, 39]",
                                                            "[20, 29]"]
    assert out["c"].tolist()[:2] == [{"France", "Spain"}, "India"]
    assert pd.isna(out["c"][2])
    assert out.anon.info["changed_cells"] == 5  # missing cells stay missing: unchanged
    # at the top, shared with the missing value, every row publishes the top "or missing"
    # (not a blank column, as the same top publishes for a column without blanks)
    top = df.anon.generalize({"age": 2, "c": 2}, hierarchies=h, row_order="input")
    assert top["age"].astype(str).tolist() == ["[20, 39] or missing"] * 4
    assert top["c"].astype(str).tolist() == ["{France, India, Spain} or missing"] * 4
    assert top["age"].array.contains(df["age"]).all() and top["c"].array.contains(df["c"]).all()
    assert top.anon.info["changed_cells"] == 8  # every cell, the missing ones too
    labels = df.anon.generalize({"age": 1}, hierarchies=h, labels=True, row_order="input")
    assert labels["age"].astype(object).where(labels["age"].notna(), None).tolist()[:3] == [
        "20-29", None, "30-39"]
    assert labels["age"].cat.ordered and labels.anon.roles().quasi_identifiers["age"] == "ordered"
    assert df["age"].isna().sum() == 1  # the input is not modified


def test_without_a_single_top_the_missing_value_stays_apart():
    h = intervals([10], top=None)
    cl = hh.column_levels(h, pd.Series([23, None, 27]), "real")
    assert cl.node_codes(1).tolist() == [0, 1, 0]
    assert cl.cells(1).to_text(na_rep="").tolist() == ["[20, 29]", "", "[20, 29]"]


def test_tables_and_arx_files_may_place_the_missing_value(tmp_path):
    t = pd.DataFrame({"value": ["x", "?", None], "l1": ["A", "Unknown", "Unknown"],
                      "l2": ["*"] * 3})
    h = from_table(t)
    s = pd.Series(["x", None, "?"], name="q")
    assert h.map(s, 1).tolist() == ["A", "Unknown", "Unknown"]
    # 'Unknown' holds the missing value and '?': it publishes "? or missing"
    cells = hh.column_levels(h, s, "unordered").cells(1).tolist()
    assert cells[0] == "x" and str(cells[1]) == str(cells[2]) == "? or missing"
    assert cells[1].or_missing and None in cells[1] and "?" in cells[1]
    path = tmp_path / "h.csv"
    path.write_text("x;A;*\ny;A;*\nNULL;NULL;*\n")
    arx = read_arx_csv(path)
    assert arx.map(pd.Series(["y", None]), 1).tolist() == ["A", None]
    path.write_text("x;A;*\n;Other;*\n")
    assert read_arx_csv(path).map(pd.Series([np.nan]), 1).tolist() == ["Other"]
    bad = pd.DataFrame({"value": ["x", None, None], "l1": ["A", "B", "C"]})
    with pytest.raises(pdanon.InvalidInputError, match="missing value appears more than once"):
        from_table(bad)
    with pytest.raises(pdanon.InvalidInputError, match="empty label"):
        from_table(pd.DataFrame({"value": ["x"], "l1": [None]}))


def test_column_levels_encoded_maps_the_na_mask_to_the_missing_node():
    from dataclasses import dataclass

    @dataclass
    class Enc:  # an EncodedColumn as the encoder builds it: missing cells coded C, na mask
        name: str
        kind: str
        codes: np.ndarray
        categories: pd.Index
        na: np.ndarray
        numeric: bool = True

    cats = pd.Index([20.0, 31.0, 45.0])
    enc = Enc("age", "real", np.array([0, 3, 1, 3, 2]), cats,
              np.array([False, True, False, True, False]))
    cl = hh.column_levels_encoded(intervals([10]), enc, integer=True)
    assert cl.missing_rows.tolist() == [False, True, False, True, False]
    assert cl.node_codes(1).tolist() == [0, 3, 1, 3, 2]
    assert cl.node_codes(2).tolist() == [0, 0, 0, 0, 0]
    assert cl.cells(1).to_text(na_rep="").tolist() == ["[20, 29]", "", "[30, 39]", "",
                                                       "[40, 49]"]
    assert cl.plain_nodes(1).tolist() == [False, False, False, True]
    # without a mask (the encoder before missing values), codes are used as they are
    plain = Enc("age", "real", np.array([0, 1, 2]), cats, None)
    assert hh.column_levels_encoded(intervals([10]), plain).node_codes(1).tolist() == [0, 1, 2]


# ----------------------------------------------------------------------------- depth bound
# issue 27: tree() on a spec nested ~990 levels deep raised a bare RecursionError; deep
# builders (intervals with 100,000 widths, masking of 20,000-character values) ran or grew
# without bound. Every builder refuses more than MAX_HEIGHT levels before building them.


def nested(depth, leaf="leaf"):
    spec = [leaf]
    for i in range(depth):
        spec = {f"n{i}": spec}
    return spec


def test_max_height_is_documented_and_exported():
    assert hh.MAX_HEIGHT == 64 and "MAX_HEIGHT" in hh.__all__


@pytest.mark.parametrize("depth", [990, 5000, 100_000])
def test_tree_nested_too_deep_is_refused_without_recursion(depth):
    spec = nested(depth)
    with time_limit(10, f"tree() of depth {depth}"):
        with pytest.raises(pdanon.InvalidInputError, match="nested more than 64 levels"):
            tree(spec)
        with pytest.raises(pdanon.InvalidInputError, match="MAX_HEIGHT"):
            hh.as_hierarchy(spec, name="c")


def test_tree_that_contains_itself_is_refused():
    spec = {"a": ["x"]}
    spec["b"] = spec
    with time_limit(10, "tree() of a cyclic spec"):
        with pytest.raises(pdanon.InvalidInputError, match="contains itself"):
            tree(spec)


def test_tree_at_the_bound_is_built_and_one_more_is_refused():
    # nested(d) has height d (the leaf under d keys; the outermost key is the root)
    h = tree(nested(hh.MAX_HEIGHT))
    assert h.height == hh.MAX_HEIGHT
    assert h.map(pd.Series(["leaf"]), hh.MAX_HEIGHT).tolist() == ["n63"]
    with pytest.raises(pdanon.InvalidInputError, match="65 levels"):
        tree(nested(hh.MAX_HEIGHT + 1))
    # the walk keeps the recursive walk's order of the leaves
    t = tree({"*": {"A": ["x", {"B": ["y"]}, "z"], "C": {"D": None}}})
    assert t.levels_table()["value"].tolist() == ["x", "y", "z", "D"]


def test_from_table_and_arx_file_too_deep(tmp_path):
    ok = pd.DataFrame({"v": ["a", "b"], **{f"l{j}": ["L"] * 2 for j in range(64)}})
    assert from_table(ok).height == 64
    deep = ok.assign(extra="*")
    with pytest.raises(pdanon.InvalidInputError, match="66 columns.*65 levels"):
        from_table(deep)
    with pytest.raises(pdanon.InvalidInputError, match="65 levels"):
        hh.TableHierarchy(["a"], [["*"]] * 65)
    path = tmp_path / "deep.csv"
    path.write_text("\n".join(";".join([str(v)] + [f"L{j}" for j in range(1, 10_000)] + ["*"])
                              for v in range(8)))
    with time_limit(10, "read_arx_csv of 10,000 levels"):
        with pytest.raises(pdanon.InvalidInputError, match="10,000 levels.*MAX_HEIGHT"):
            read_arx_csv(path)


def test_intervals_and_masking_too_deep():
    assert intervals([1] * 63).height == 64
    with time_limit(10, "intervals with 100,000 widths"):
        with pytest.raises(pdanon.InvalidInputError, match="100,000 widths"):
            intervals([1] * 100_000)
    assert intervals([1] * 64, top=None).height == 64
    with pytest.raises(pdanon.InvalidInputError, match="65 levels"):
        intervals([1] * 64)
    with pytest.raises(pdanon.InvalidInputError, match="65 steps"):
        masking(steps=range(1, 66))
    long = pd.Series(["x" * 20_000, "y" * 20_000], name="note")
    with time_limit(10, "masking of 20,000-character values"):
        with pytest.raises(pdanon.InvalidInputError,
                           match=r"column 'note' of values up to 20,000 characters.*steps="):
            masking().map(long, 1)
    # the same values with explicit steps are fine
    assert masking(steps=[10_000]).map(long, 1).str.len().tolist() == [20_000, 20_000]
    # 64 characters: 64 levels, plus the top when the last level still has several nodes
    assert masking().height_for(["a" * 64, "b" * 64]) == 64
    with pytest.raises(pdanon.InvalidInputError, match="with its top level"):
        masking().height_for(["a" * 64, "b" * 63])
    assert dates(["month", "quarter", "year", "decade"]).height == 5


def test_custom_hierarchy_too_deep():
    class Deep(hh.Hierarchy):
        height = 1000
        description = "deep"

        def _labels(self, values, name):
            return [np.asarray(values, dtype=object)] * self.height

    with pytest.raises(pdanon.InvalidInputError, match="1,000 levels"):
        hh.as_hierarchy(Deep(), name="c")
    with pytest.raises(pdanon.InvalidInputError, match="1,000 levels"):
        Deep().map(pd.Series([1, 2]), 1)


def test_masking_numbers_warns_that_leading_zeros_may_be_lost():
    """Issue 28.3: a ZIP column read as numbers (4777 for 04777) is masked in its text."""
    import warnings

    df = pd.DataFrame({"zip": [4777, 501, 10001], "x": [1, 2, 3]})
    with pytest.warns(pdanon.KindWarning) as caught:
        df.anon.generalize({"zip": 1}, hierarchies={"zip": masking()},
                           quasi_identifiers={"zip": "unordered"}, insensitive=["x"])
    message = str(caught[0].message)
    assert message.startswith("masking() of column 'zip' masks numbers in their text form "
                              "(4777): a code read as a number has lost its leading zeros "
                              "(04777 is 4777); if they are codes, read them as text: "
                              "pd.read_csv(path, dtype={'zip': str})")
    assert caught[0].filename == __file__  # points at the caller's line
    with pytest.warns(pdanon.KindWarning, match=r"a float masks its decimals \('\.0'\) first"):
        masking().levels_table([10001.0, 4777.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", pdanon.KindWarning)  # text codes: nothing to say
        masking().levels_table(["04777", "10001", None])


def test_a_tree_of_text_codes_maps_a_column_of_mixed_codes():
    """Real columns mix 3 and "3" (an object column read from several sources): a tree of
    text leaves maps both, and still names a value it lacks."""
    from pdanon.hierarchy import tree

    h = tree({"any": {"low": ["1", "2"], "high": ["3"]}})
    assert h.map(pd.Series([3, 1, 2, "3"], dtype=object), 1).tolist() == [
        "high", "low", "low", "high"]
    with pytest.raises(pdanon.InvalidInputError,
                       match=r"no entry for 1 value of the column: \[9\]"):
        h.map(pd.Series([3, 9], dtype=object), 1)
