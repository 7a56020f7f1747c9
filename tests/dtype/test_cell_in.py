"""``x in cell`` tells the truth: it answers as ``GeneralizationArray.contains`` does (issue 26.7).

The scalar of an ordered column knows its column's categories (shared, not copied) and reads a
value by its position among them; a hand-made ordered cell that knows no order refuses; numbers
compare by value, sets test membership, a missing value is in no cell. The last tests compare
``in`` with ``contains`` on every cell the anonymizers publish, and on random arrays.
"""

import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.datasets import EDUCATION_ORDER, adult_hierarchy_path
from pdanon.dtype import GeneralizationArray, GeneralizationDtype, GeneralizationRange
from pdanon.hierarchy import intervals, read_arx_csv, tree

R = GeneralizationRange
EDU = GeneralizationDtype("ordered", EDUCATION_ORDER)
MISSING = (None, np.nan, pd.NA, pd.NaT, float("nan"))


def _edu_column():
    cells = ["HS-grad", R("Some-college", "Assoc-voc", "ordered", EDUCATION_ORDER), None,
             R("9th", "Bachelors", "ordered", EDUCATION_ORDER)]
    return pd.Series(pd.array(cells, dtype=EDU))


# --------------------------------------------------------------------------- the reported case


def test_the_reported_case_some_college_is_in_its_range():
    # education order: ... HS-grad, Some-college, Assoc-voc, Assoc-acdm, Bachelors ...
    # alphabetically 'Some-college' > 'Assoc-voc', which made the old scalar answer False
    cell = _edu_column().iloc[1]
    assert repr(cell) == "[Some-college, Assoc-voc]"
    assert "Some-college" in cell and "Assoc-voc" in cell
    assert "HS-grad" not in cell and "Assoc-acdm" not in cell and "Bachelors" not in cell
    assert _edu_column().array.contains(["HS-grad", "Some-college", "HS-grad", "9th"]).tolist() \
        == [True, True, False, True]


def test_the_reported_case_on_load_adult_education():
    adult = pdanon.datasets.load_adult(nrows=60)
    arr = GeneralizationArray.from_bounds([9], [10], kind="ordered",
                                          categories=adult["education"].cat.categories)
    cell = arr[0]
    assert repr(cell) == "[Some-college, Assoc-voc]"
    assert ["Some-college" in cell, "Assoc-voc" in cell, "Bachelors" in cell] == [True, True, False]


def test_every_way_of_taking_a_cell_knows_the_order():
    s = _edu_column()
    ways = {
        "iloc": s.iloc[1], "loc": s.loc[1], "at": s.at[1], "getitem": s[1], "array": s.array[1],
        "values": s.values[1], "tolist": s.tolist()[1], "iter": list(s)[1],
        "to_numpy": s.to_numpy(dtype=object)[1], "astype": s.astype(object).iloc[1],
        "slice": s.array[1:3][0], "frame": pd.DataFrame({"e": s}).iloc[1, 0],
        "itertuples": list(pd.DataFrame({"e": s}).itertuples(index=False))[1][0],
    }
    for way, cell in ways.items():
        assert isinstance(cell, R), way
        assert ("Some-college" in cell, "Bachelors" in cell) == (True, False), way


def test_a_cell_shares_the_dtype_categories():
    s = _edu_column()
    cells = [c for c in s.tolist() if isinstance(c, R)]
    # one Index object held by the dtype, not a copy per cell (a 1M-row tolist stays cheap)
    assert len(cells) == 2 and all(c._cats is s.dtype._cat_object for c in cells)
    assert s.dtype._cat_object.tolist() == EDUCATION_ORDER
    sets = pd.array([{"a", "b"}, {"b", "c"}], dtype="generalization[unordered]")
    assert all(c._cats is sets.dtype._cat_object for c in sets)


# --------------------------------------------------------------------------- hand-made cells


def test_hand_made_ordered_cell_without_order_refuses_with_the_fix():
    cell = R("Some-college", "Assoc-voc", "ordered")
    with pytest.raises(pdanon.KindError, match=r"cannot tell whether 'Some-college' is in "
                       r"\[Some-college, Assoc-voc\].*column_values=.*series\.array\.contains"):
        "Some-college" in cell  # noqa: B015
    with pytest.raises(TypeError):  # KindError is a TypeError
        "x" in R("a", "b")  # noqa: B015
    for m in MISSING:  # a missing value is in no cell: no need to know the order for that
        assert m not in cell


def test_hand_made_ordered_cell_with_column_values():
    cell = R("Some-college", "Assoc-voc", "ordered", EDUCATION_ORDER)
    assert (cell.min, cell.max, repr(cell)) == ("Some-college", "Assoc-voc",
                                                "[Some-college, Assoc-voc]")
    assert [v in cell for v in ["HS-grad", "Some-college", "Assoc-voc", "Assoc-acdm", "PhD", 3]] \
        == [False, True, True, False, False, False]
    # an Index is kept as is (no copy); a list becomes one Index
    idx = pd.Index(EDUCATION_ORDER)
    assert R("9th", "12th", "ordered", idx)._cats is idx
    assert R("9th", "12th", "ordered", np.array(EDUCATION_ORDER))._cats.tolist() == EDUCATION_ORDER
    assert "10th" in R("9th", "12th", "ordered", pd.CategoricalDtype(EDUCATION_ORDER, ordered=True))
    # the classic equality does not depend on the order: cells equal to the plain-bound ones
    assert cell == R("Some-college", "Assoc-voc", "ordered")
    assert hash(cell) == hash(R("Some-college", "Assoc-voc", "ordered"))
    assert cell == _edu_column().iloc[1] and hash(cell) == hash(_edu_column().iloc[1])


def test_column_values_check_the_bounds_against_the_order():
    with pytest.raises(ValueError, match="'PhD' is not among column_values"):
        R("HS-grad", "PhD", "ordered", EDUCATION_ORDER)
    with pytest.raises(ValueError, match="'Masters' comes after its maximum 'HS-grad'"):
        R("Masters", "HS-grad", "ordered", EDUCATION_ORDER)
    with pytest.raises(TypeError, match="not a string"):
        R("a", "b", "ordered", "abc")
    one = R("HS-grad", None, "ordered", EDUCATION_ORDER)
    assert (one.min, one.max, "HS-grad" in one, "9th" in one) == ("HS-grad", "HS-grad", True, False)


def test_only_column_values_span_them_in_their_order():
    cell = R(column_type="ordered", column_values=["low", None, "mid", "high", "mid"])
    assert (cell.min, cell.max) == ("low", "high")
    assert ["low" in cell, "mid" in cell, "high" in cell, "top" in cell] == [True] * 3 + [False]
    # numbers keep their old meaning: min and max by value, compared by value
    num = R(column_type="ordered", column_values=[5, 2, np.nan, 9])
    assert (num.min, num.max, 3 in num, 10 in num) == (2, 9, True, False)
    assert R(1, 4, "ordered", [4, 3, 2, 1]).max == 4 and 2.5 in R(1, 4, "ordered", [4, 3, 2, 1])


def test_numbers_compare_by_value_with_open_ends():
    for kind in ("real", "ordered"):
        half = R.interval(30, 35, kind, closed="left")
        assert [30 in half, 34.999 in half, 35 in half, 29 in half] == [True, True, False, False]
        assert [v in R.interval(30, 35, kind, closed="right") for v in (30, 35)] == [False, True]
        assert [v in R.interval(30, 35, kind, closed="neither") for v in (30, 32, 35)] == \
            [False, True, False]
        assert [v in R(30, 35, kind) for v in (30, 35, np.int64(33), "x", (1, 2))] == \
            [True, True, True, False, False]
        for m in MISSING:
            assert m not in half


def test_sets_test_membership_and_never_hold_missing():
    s = R(column_type="unordered", column_values=["Asian", "White"])
    assert ["White" in s, "Black" in s, [1] in s] == [True, False, False]
    for m in MISSING:
        assert m not in s
    # values are categories by Python's equality, as in a Python set: 1 == 1.0 == True
    col = GeneralizationArray.from_members([0, 2, 4], [0, 1, 1, 2], [1, 2, 3])
    assert col.categories.dtype == np.int64
    assert (True in col[0], 1 in col[0], 1.0 in col[0], 3 in col[0]) == (True, True, True, False)
    assert True in R(column_type="unordered", column_values=[1, 2])


@pytest.mark.parametrize("categories", [[1, 2, 3], [1.0, 2.5], [0, 1, "a"], [True, False]])
def test_contains_answers_each_value_on_its_own(categories):
    # pandas' get_indexer reads an all-boolean batch as incomparable with numbers, and the same
    # booleans mixed with numbers as equal to them; contains must not depend on the batch
    cells = GeneralizationArray.from_members(list(range(len(categories) + 1)),
                                             list(range(len(categories))), categories)
    ordered = GeneralizationArray.from_bounds([0] * len(categories), [len(categories) - 1] *
                                              len(categories), kind="ordered",
                                              categories=categories)
    probes = [True, False, 1, 0, 1.0, 2.5, "a", "b", None]
    for arr in (cells, ordered):
        n = len(arr)
        for v in probes:
            alone = arr.contains([v] * n).tolist()
            for other in probes:
                mixed = arr.contains([v] + [other] * (n - 1)).tolist()
                assert mixed[0] == alone[0], (categories, v, other)
            cat = pd.Categorical([v] * n) if v is not None else pd.Categorical([None] * n)
            assert arr.contains(cat).tolist() == alone
            if v is not None:
                assert arr.contains(np.array([v] * n)).tolist() == alone
            assert [v in arr[i] if isinstance(arr[i], R) else (v == arr[i]) for i in range(n)] \
                == alone


def test_pickle_keeps_the_order_and_shares_it():
    cells = _edu_column().tolist()
    back = pickle.loads(pickle.dumps(cells))
    assert back[1] == cells[1] and back[3] == cells[3]
    assert "Some-college" in back[1] and "Bachelors" not in back[1] and "10th" in back[3]
    assert back[1]._cats is back[3]._cats  # pickled once for the whole list
    sets = pickle.loads(pickle.dumps(pd.array([{1, 2}, {2, 3}],
                                               dtype="generalization[unordered]").tolist()))
    assert (1 in sets[0], 3 in sets[0], "1" in sets[0]) == (True, False, False)
    assert sets[0]._cats is sets[1]._cats
    hand = pickle.loads(pickle.dumps(R("a", "b", "ordered", ["a", "x", "b"])))
    assert "x" in hand and "y" not in hand
    old_style = pickle.loads(pickle.dumps(R.interval(30, 35, "real", closed="left")))
    assert old_style.closed == "left" and 35 not in old_style


# --------------------------------------------------------------------------- in == contains


def _holds(cell, x) -> bool:
    """What a reader of the published cell concludes: ``x in cell`` for a range or set, equality
    for a plain value, nothing for a missing cell."""
    if isinstance(cell, R):
        return x in cell
    if pd.isna(cell) or pd.isna(x):
        return False
    return bool(x == cell)


def _compare(series: pd.Series, values: list, what: str) -> int:
    """Assert that ``in`` (on each cell of ``series.tolist()``) equals ``contains``; returns the
    number of range/set cells compared."""
    cells = series.tolist()
    got = [_holds(c, v) for c, v in zip(cells, values)]
    want = series.array.contains(values).tolist()
    bad = [(i, cells[i], values[i], got[i], want[i])
           for i in range(len(cells)) if got[i] != want[i]]
    assert not bad, f"{what}: in != contains at (row, cell, value, in, contains): {bad[:5]}"
    return sum(isinstance(c, R) for c in cells)


def _table() -> pd.DataFrame:
    """300 Adult rows: a real age with fractional values (hierarchies give half-open bands), the
    ordered Categorical education, unordered race and sex, missing cells in three columns."""
    df = pdanon.datasets.load_adult(nrows=300)[["age", "education", "race", "sex",
                                                "salary-class"]].copy()
    df["age"] = df["age"].astype(float)
    df.loc[df.index[::3], "age"] += 0.5
    rng = np.random.default_rng(1)
    for c in ("age", "education", "race"):
        df.loc[df.index[rng.choice(len(df), 10, replace=False)], c] = None
    return df


QI = {"age": "real", "education": "ordered", "race": "unordered", "sex": "unordered"}
#: the columns in which each case publishes ranges or sets (checked, so the test compares them)
GENERALIZED = {
    "mondrian": {"age", "education", "race", "sex"}, "datafly": {"age", "education"},
    "nearest": {"age", "education", "race", "sex"}, "group_join": {"age", "education", "race", "sex"},
    "equal_groups": {"age", "education", "race"}, "optimal": {"age", "education"},
    "generalize": {"age", "education", "race"},
}


def _published(case: str) -> pd.DataFrame:
    df = _table()
    race = tree({"*": {"White": ["White"],
                       "Other": ["Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"]}})
    hier = {"age": intervals([5, 10, 20]), "race": race,
            "education": read_arx_csv(adult_hierarchy_path("education")),
            "sex": read_arx_csv(adult_hierarchy_path("sex"))}
    roles = dict(quasi_identifiers=QI, sensitive={"salary-class": "unordered"})
    if case == "generalize":
        return df.anon.generalize({"age": 1, "education": 2, "race": 1}, hierarchies=hier,
                                  quasi_identifiers=QI, row_order="input")
    k, kw = 5, {}
    if case == "datafly":
        k, kw = 3, {"max_suppressed_rows": 0.2}
    elif case == "optimal":
        k, kw = 3, {"hierarchies": hier, "max_suppressed_rows": 0.2}
    return df.anon.k_anonymize(k, algorithm=case, **roles, **kw, row_order="input")


def _values_to_try(orig: pd.Series, out: pd.Series) -> dict:
    """Per row: its original value, other rows' values, values outside the column and (for
    ranges) the cell's own ends and the values of its column's kind next to them."""
    o = orig.astype(object).where(orig.notna(), None).tolist()
    tries = {"original": o, "next row": o[1:] + o[:1], "row + 7": o[7:] + o[:7]}
    n = len(o)
    if out.array.kind == "real":
        cells = out.tolist()
        lo = [c.min if isinstance(c, R) else 0.0 for c in cells]
        hi = [c.max if isinstance(c, R) else 0.0 for c in cells]
        tries.update({"min": lo, "max": hi, "min - 0.5": [v - 0.5 for v in lo],
                      "max - 1e-9": [v - 1e-9 for v in hi], "max + 0.5": [v + 0.5 for v in hi]})
        for v in (-1.0, 200.0, 35.0, 40.0, np.nan):
            tries[repr(v)] = [v] * n
    else:
        others = list(EDUCATION_ORDER) if out.array.kind == "ordered" else list(
            orig.dropna().unique())
        for v in others + ["Martian", "", None, 3]:
            tries[repr(v)] = [v] * n
    return tries


@pytest.mark.parametrize("case", ["mondrian", "datafly", "nearest", "group_join", "equal_groups",
                                  "optimal", "generalize"])
def test_in_equals_contains_on_every_published_cell(case):
    df = _table()
    out = _published(case)
    assert out.index.equals(df.index)
    generalized = set()
    for col in QI:
        if not isinstance(out[col].dtype, GeneralizationDtype):
            continue
        for what, values in _values_to_try(df[col], out[col]).items():
            if _compare(out[col], values, f"{case}, {col}, {what}"):
                generalized.add(col)
        # and the cells are truthful: a published range or set holds the row's original value
        present = (~out[col].isna() & df[col].notna()).to_numpy()
        orig = df[col].astype(object).tolist()
        assert all(_holds(c, v) for c, v, p in zip(out[col].tolist(), orig, present) if p)
    assert generalized == GENERALIZED[case]


def test_published_half_open_bands_answer_like_contains():
    out = _published("generalize")
    age = out["age"]
    assert set(age.array.closed[~age.isna().to_numpy()]) == {"left"}
    cell = next(c for c in age.tolist() if isinstance(c, R))
    assert cell.min in cell and cell.max not in cell


# --------------------------------------------------------------------------- random arrays


_text = st.text(alphabet="abcXY-", min_size=1, max_size=3)
_category = st.one_of(_text, st.integers(-3, 3), st.floats(-3, 3, allow_nan=False).map(
    lambda f: round(f, 1)), st.tuples(st.integers(0, 2), st.integers(0, 2)))
_probe = st.one_of(_category, st.booleans(), st.sampled_from([None, np.nan, pd.NA, "zz", 99]))


@st.composite
def _ordered_case(draw):
    cats = draw(st.lists(st.one_of(_text, st.integers(-5, 5)), min_size=1, max_size=8,
                         unique_by=lambda v: (type(v), v)))
    cats = draw(st.permutations(cats))  # any order, not the values' own
    cats = list(pd.Index(cats, tupleize_cols=False).unique())
    n = draw(st.integers(1, 12))
    lo = draw(st.lists(st.integers(0, len(cats) - 1), min_size=n, max_size=n))
    width = draw(st.lists(st.integers(0, len(cats)), min_size=n, max_size=n))
    hi = [min(a + w, len(cats) - 1) for a, w in zip(lo, width)]
    mask = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    arr = GeneralizationArray.from_bounds(lo, hi, kind="ordered", categories=cats, mask=mask)
    probes = draw(st.lists(st.one_of(st.sampled_from(cats), _probe), min_size=n, max_size=n))
    return arr, probes


@st.composite
def _numeric_case(draw):
    kind = draw(st.sampled_from(["real", "ordered"]))
    n = draw(st.integers(1, 12))
    lo = draw(st.lists(st.integers(-5, 5).map(float), min_size=n, max_size=n))
    width = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n, max_size=n))
    closed = [draw(st.sampled_from(["both", "left", "right", "neither"])) if w else "both"
              for w in width]
    mask = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    hi = [a + w for a, w in zip(lo, width)]
    arr = GeneralizationArray.from_bounds(lo, hi, kind=kind, mask=mask, closed=closed)
    ends = lo + hi + [v + 0.25 for v in lo] + [v - 0.25 for v in hi]
    probes = draw(st.lists(st.one_of(st.sampled_from(ends), st.integers(-7, 9), st.booleans(),
                                     st.sampled_from([None, np.nan])), min_size=n, max_size=n))
    return arr, probes


@st.composite
def _set_case(draw):
    cats = draw(st.lists(_category, min_size=1, max_size=8, unique_by=lambda v: (type(v), v)))
    cats = list(pd.Index(cats, tupleize_cols=False).unique())
    n = draw(st.integers(1, 12))
    offsets, members = [0], []
    for _ in range(n):
        m = draw(st.lists(st.integers(0, len(cats) - 1), max_size=4))
        members += m
        offsets.append(len(members))
    arr = GeneralizationArray.from_members(offsets, members, cats)
    probes = draw(st.lists(st.one_of(st.sampled_from(cats), _probe), min_size=n, max_size=n))
    return arr, probes


@settings(max_examples=300, deadline=None)
@given(st.one_of(_ordered_case(), _numeric_case(), _set_case()))
def test_in_equals_contains_on_random_arrays(case):
    arr, probes = case
    if arr.kind != "unordered" and arr.categories is None:
        probes = [np.nan if v is pd.NA else v for v in probes]  # contains casts to float
    want = arr.contains(probes)
    # plain cells are the values themselves (``in`` is not theirs); missing cells hold nothing
    shown = np.flatnonzero(arr.isna() | ~arr.is_plain)
    cells = [arr[i] for i in shown]
    assert all(isinstance(c, R) or arr.isna()[i] for c, i in zip(cells, shown))
    got = [isinstance(c, R) and probes[i] in c for c, i in zip(cells, shown)]
    assert got == want[shown].tolist(), list(zip(cells, [probes[i] for i in shown], got))
    # the same cells taken through tolist() and pickled answer alike
    back = pickle.loads(pickle.dumps(arr.tolist()))
    assert [isinstance(back[i], R) and probes[i] in back[i] for i in shown] == got


# ----------------------------------------------------------------------------- dates by value

@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 400), min_size=1, max_size=12, unique=True),
       st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), min_size=1, max_size=8),
       st.lists(st.one_of(st.none(), st.integers(-5, 405)), min_size=8, max_size=8),
       st.sampled_from(["naive", "tz", "date", "period"]))
def test_a_range_of_dates_holds_every_date_between_its_bounds(days, bounds, queries, kind):
    """A range of date categories holds any date between its bounds, category or not, in
    contains() and in ``in`` alike; the categories may then be only the bounds."""
    base = pd.Timestamp("2024-01-01")
    stamps = pd.DatetimeIndex(sorted(base + pd.Timedelta(days=d) for d in days))

    def as_kind(idx):
        if kind == "tz":
            return idx.tz_localize("Europe/Oslo")
        if kind == "date":
            return pd.Index([t.date() for t in idx], dtype=object)
        if kind == "period":
            return idx.to_period("D")
        return idx

    cats = as_kind(stamps)
    m = len(cats)
    lo = np.array([min(a % m, b % m) for a, b in bounds])
    hi = np.array([max(a % m, b % m) for a, b in bounds])
    arr = GeneralizationArray.from_bounds(lo, hi, kind="ordered", categories=cats)
    assert arr.dtype.dates_by_value
    picked = [None if q is None else base + pd.Timedelta(days=q) for q in queries][:len(arr)]
    picked += [None] * (len(arr) - len(picked))
    present = pd.DatetimeIndex([p if p is not None else pd.NaT for p in picked])
    values = as_kind(present) if kind != "date" else pd.Index(
        [None if p is None else p.date() for p in picked], dtype=object)
    got = arr.contains(values)
    expected = [p is not None and stamps[lo[i]] <= p <= stamps[hi[i]]
                for i, p in enumerate(picked)]
    assert got.tolist() == expected
    cells = [arr[i] for i in range(len(arr))]  # a plain cell is its value
    assert [v in c if isinstance(c, GeneralizationRange) else (v is not None and v == c)
            for v, c in zip(values, cells)] == expected
