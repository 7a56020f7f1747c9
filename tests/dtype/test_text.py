"""The text parser of generalized cells (pdanon/dtype/text.py): errors, the cell length limit,
and linear work in the length of a cell."""

import io
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, strategies as st

import pdanon
from pdanon import InvalidInputError
from pdanon.dtype._common import calendar_label, calendar_unit
from pdanon.dtype import GeneralizationArray, GeneralizationDtype, GeneralizationRange
from pdanon.dtype import text as T
from pdanon.io import parse_generalized, read_csv

R = GeneralizationRange


def S(*members):
    return R(column_type="unordered", column_values=list(members))


def test_read_csv_and_dtype_share_the_parser():
    cells = ["39", "[20, 29]", "", "[1.5, 2]"]
    a = parse_generalized(cells, "real")
    b = GeneralizationArray._from_sequence_of_strings(cells, dtype=GeneralizationDtype("real"))
    pd.testing.assert_extension_array_equal(a, b)
    assert pdanon.io.MAX_CELL_LENGTH is T.MAX_CELL_LENGTH == 1_000_000


def test_cell_over_the_limit_names_column_row_and_limit():
    text = 'age,race\n39,White\n"[20, 29]","{' + ", ".join(f"m{i}" for i in range(40)) + '}"\n'
    df = read_csv(io.StringIO(text), schema={"race": "unordered"})
    assert df["race"][1] == S(*[f"m{i}" for i in range(40)])
    with pytest.raises(InvalidInputError, match=r"column 'race', row 1: a cell of 190 "
                                                r"characters is longer than the limit of 100"):
        read_csv(io.StringIO(text), schema={"race": "unordered"}, max_cell_length=100)
    with pytest.raises(ValueError, match="limit of 1,000,000"):
        parse_generalized(["{" + "a, " * 400_000 + "b}"], "unordered")


def test_parse_errors_name_column_row_and_text():
    text = "age,edu\n39,HS\n\"[20, x]\",HS\n"
    with pytest.raises(InvalidInputError, match=r"column 'age', row 1: cannot parse '\[20, x\]'"):
        read_csv(io.StringIO(text), schema={"age": "real"})
    text = 'edu\nHS\n"[HS, PhD]"\nHS\n'
    with pytest.raises(InvalidInputError, match=r"column 'edu', row 1: value 'PhD' is not among"):
        read_csv(io.StringIO(text), schema={"edu": ("ordered", ["HS", "BSc"])})
    with pytest.raises(InvalidInputError, match=r"row 2: an empty set '\{ \}'"):
        parse_generalized(["a", "a", "{ }"], "unordered")
    with pytest.raises(InvalidInputError, match=r"column 'x', row 3: range minimum 5 is greater"):
        parse_generalized(["1", "1", "2", "[5, 1]"], "real", column="x")
    with pytest.raises(InvalidInputError, match=r"column 'x', row 0: value 'z' is not among"):
        parse_generalized(["{a, z}"], "unordered", categories=["a", "b"], column="x")
    # the row is the frame's index label; long texts are shortened in the message
    long = "[1, " + "2" * 5000 + "x]"
    with pytest.raises(InvalidInputError, match=r"row 'r2': cannot parse .*\.\.\. \(5,00[0-9] "
                                                r"characters\)") as e:
        GeneralizationArray._from_text(["1", "2", long], "real", index=pd.Index(["r0", "r1", "r2"]))
    assert len(str(e.value)) < 400


def test_categories_with_separators_split_as_before():
    cats = ["a, b", "a", "b, c, d", "c", "d"]
    dt = GeneralizationDtype("unordered", cats)
    # greedy from the left: the shortest run of pieces that is a category
    assert T.split_set_text("{a, b, c, d}", dt) == ["a", "b, c, d"]
    assert T.split_set_text("{a, b, c, d, a}", dt) == ["a", "b, c, d", "a"]
    assert T.split_set_text("{a, b, c}", dt) == ["a", "b", "c"]  # no fit: split at each comma
    assert T.split_set_text("{a,c}", dt) == ["a", "c"]  # tolerant split
    assert T.split_range_text("[a, b, c]", GeneralizationDtype("ordered", cats)) == ("a, b", "c")
    assert T.split_range_text("[a, b, c, d]", GeneralizationDtype("ordered", cats)) == \
        ("a", "b, c, d")
    assert dt._cat_lookup[1] == 2


class _CountingDict(dict):
    """A category lookup that counts its lookups (the parser's unit of work)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.lookups = 0

    def __contains__(self, key):
        self.lookups += 1
        return super().__contains__(key)

    def get(self, key, default=None):
        self.lookups += 1
        return super().get(key, default)


def _lookups_for(m: int, kind: str) -> int:
    cats = [f"v{i}" for i in range(m)] + ["x, y, z"]  # a category holding separators
    dtype = GeneralizationDtype(kind, cats)
    lookup, sep = dtype._cat_lookup
    counting = _CountingDict(lookup)
    dtype._cat_lookup_cache = (counting, sep)
    # an unknown first member defeats the one-split fast path: the worst case for re-joining
    if kind == "unordered":
        cell = "{zz, " + ", ".join(cats[:m]) + "}"
        assert T.split_set_text(cell, dtype)[:2] == ["zz", "v0"]  # tolerant fallback
    else:
        cell = "[zz, " + ", ".join(cats[:m]) + "]"
        with pytest.raises(ValueError, match="cannot parse range"):
            T.split_range_text(cell, dtype)
    return counting.lookups


@pytest.mark.parametrize("kind", ["unordered", "ordered"])
def test_work_is_linear_in_the_number_of_members(kind):
    small, large = _lookups_for(2000, kind), _lookups_for(4000, kind)
    assert large <= 2 * small + 10
    if kind == "ordered":  # only the first separators can end a category
        assert large == small


def test_large_set_cell_time_grows_linearly():
    def best(m):
        cell = '"{' + ", ".join(f"member{i}" for i in range(m)) + '}"'
        text = "c\n" + cell + "\n"
        times = []
        for _ in range(3):
            t = time.perf_counter()
            df = read_csv(io.StringIO(text), schema={"c": "unordered"})
            times.append(time.perf_counter() - t)
        assert len(df["c"].dtype.categories) == m
        return min(times)

    small, large = best(25_000), best(50_000)
    assert large < 3 * small + 0.05  # quadratic parsing took 4x per doubling


def test_na_texts_and_stripping():
    arr = parse_generalized([" 39 ", "NaN", "null", "None", "<NA>", " ", " [1, 2] "], "real")
    assert arr[0] == 39 and arr[6] == R(1, 2, "real")
    assert arr.isna().tolist() == [False, True, True, True, True, True, False]
    u = parse_generalized(["{b,a}", " a "], "unordered")
    assert u.tolist() == [S("a", "b"), "a"]
    assert not T.has_syntax(["1", "x", np.nan]) and T.has_syntax([np.nan, "{a}"])


# ------------------------------------------------------------------ calendar cells (28.1)


@pytest.mark.parametrize("lo, hi, label", [
    ("2024-12-01", "2024-12-31", "2024-12"),
    ("2024-02-01", "2024-02-29", "2024-02"),
    ("2023-02-01", "2023-02-28", "2023-02"),
    ("2024-10-01", "2024-12-31", "2024-Q4"),
    ("2024-01-01", "2024-12-31", "2024"),
    ("2020-01-01", "2029-12-31", "2020s"),
    ("2024-12-01", "2024-12-31 23:59:59.999999", "2024-12"),
    ("2024-12-01", "2024-12-30", None),
    ("2024-12-02", "2024-12-31", None),
    ("2024-11-01", "2024-12-31", None),  # two months: no unit
    ("2024-02-01", "2024-04-30", None),  # three months, not a quarter
    ("2024-12-01 00:00:01", "2024-12-31", None),
    ("2024-12-01", "2024-12-31 12:00", None),
])
def test_calendar_label(lo, hi, label):
    assert calendar_label(pd.Timestamp(lo), pd.Timestamp(hi)) == label


def test_calendar_label_reads_the_wall_clock_of_its_time_zone():
    oslo = "Europe/Oslo"  # a quarter that spans the change to summer time
    lo, hi = pd.Timestamp("2024-01-01", tz=oslo), pd.Timestamp("2024-03-31", tz=oslo)
    assert calendar_label(lo, hi) == "2024-Q1"
    assert calendar_label(pd.Timestamp("2024-01-01").date(), pd.Timestamp("2024-12-31").date()) \
        == "2024"
    assert calendar_label(1, 2) is None and calendar_unit("12/2024") is None


@given(st.dates(min_value=pd.Timestamp("1900-01-01").date(),
                  max_value=pd.Timestamp("2100-01-01").date()),
        st.integers(0, 4000))
def test_a_label_is_written_exactly_for_whole_units(start, days):
    lo = pd.Timestamp(start)
    hi = lo + pd.Timedelta(days=days)
    label = calendar_label(lo, hi)
    units = {1: "M", 3: "Q", 12: "Y"}
    whole = False
    for months, freq in units.items():
        p = lo.to_period(freq)
        whole |= (p.start_time == lo and p.end_time.normalize() == hi)
    whole |= (lo.year % 10 == 0 and lo == pd.Timestamp(lo.year, 1, 1)
              and hi == pd.Timestamp(lo.year + 9, 12, 31))
    assert (label is not None) == whole
    if label is not None:
        first, after = calendar_unit(label)
        assert (first, after - pd.Timedelta(days=1)) == (lo, hi)
