"""No published bound is one person's exact value (pdanon.recode.bounds, issue 47 point 4).

Hand-checked tables: a dates() hierarchy's top never ends on the first or last birthday; an
intervals() top is the union of its widest bands (or a declared domain); Mondrian's class
holding the one oldest person publishes a grid bound, not his age. Hypothesis: for Mondrian,
nearest and group_join, every published bound is a value held by k rows or more of the input
column, or a point of the rule's grid (published for every value up to the next point), unless
exact bounds were asked for (then with a warning, recorded in info).
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.recode.bounds import ExactBoundsWarning, round_step, widen_published
from pdanon.dtype import GeneralizationArray
from pdanon.hierarchy import dates, intervals


def _bounds(series: pd.Series) -> set:
    """Every bound of the range cells of a published column (plain values excluded)."""
    arr = series.array
    ranged = ~np.asarray(arr.isna(), dtype=bool) & (np.asarray(arr.lo) != np.asarray(arr.hi))
    if arr.categories is not None:
        cats = arr.categories
        return set(cats[np.asarray(arr.lo)[ranged]]) | set(cats[np.asarray(arr.hi)[ranged]])
    return set(np.asarray(arr.lo)[ranged].tolist()) | set(np.asarray(arr.hi)[ranged].tolist())


def _rare(column: pd.Series, k: int) -> set:
    counts = column.value_counts()
    return set(counts.index[counts < k])


# ------------------------------------------------------------------ hierarchy tops


def _dob_table() -> pd.DataFrame:
    dob = pd.to_datetime(["1924-07-09", "1950-03-02", "1950-11-17", "1961-05-05",
                          "1975-08-30", "1988-01-12", "1999-12-01", "2009-06-29"])
    return pd.DataFrame({"DOB": dob, "sex": list("MFMFMFMF")})


def test_dates_top_is_whole_decades_not_the_first_and_last_birthday():
    df = _dob_table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.generalize({"DOB": 3}, hierarchies={"DOB": dates()},
                                 quasi_identifiers=["DOB", "sex"])
    # by hand: the oldest was born in 1924 (decade 1920s), the youngest in 2009 (2000s)
    assert out["DOB"].astype(str).unique().tolist() == ["[1920-01-01, 2009-12-31]"]
    cats = out["DOB"].dtype.categories
    assert pd.Timestamp("1924-07-09") not in cats and pd.Timestamp("2009-06-29") not in cats
    # read back from Parquet: the same cells, no birthday in the body or the categories
    buf = io.BytesIO()
    out.to_parquet(buf)
    back = pd.read_parquet(io.BytesIO(buf.getvalue()))
    assert back["DOB"].astype(str).unique().tolist() == ["[1920-01-01, 2009-12-31]"]
    assert b"1924-07-09" not in buf.getvalue() and b"2009-06-29" not in buf.getvalue()


def test_dates_top_moves_a_decade_out_when_a_birthday_is_its_boundary():
    # the top is '*': it never shows a date present, not even on its grid
    df = pd.DataFrame({"DOB": pd.to_datetime(["1920-01-01", "1955-06-01", "2009-12-31"]),
                       "sex": list("MFM")})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.generalize({"DOB": 3}, hierarchies={"DOB": dates()},
                                 quasi_identifiers=["DOB", "sex"])
    assert out["DOB"].astype(str).unique().tolist() == ["[1910-01-01, 2019-12-31]"]
    # the declared domain is published as declared
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.generalize({"DOB": 3}, quasi_identifiers=["DOB", "sex"], hierarchies={
            "DOB": dates(domain=("1900-01-01", "2025-12-31"))})
    assert out["DOB"].astype(str).unique().tolist() == ["[1900-01-01, 2025-12-31]"]
    with pytest.raises(pdanon.InvalidInputError, match="domain"):
        df.anon.generalize({"DOB": 3}, quasi_identifiers=["DOB", "sex"], hierarchies={
            "DOB": dates(domain=("1930-01-01", "2025-12-31"))})


def test_dates_top_with_the_optimal_algorithm():
    df = _dob_table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.k_anonymize(8, algorithm="optimal", hierarchies={"DOB": dates()},
                                  quasi_identifiers=["DOB", "sex"], row_order="input")
    dob = out["DOB"].dropna()
    assert len(dob) and dob.astype(str).unique().tolist() == ["[1920-01-01, 2009-12-31]"]


def test_intervals_top_is_its_bands_or_its_domain():
    s = pd.Series([17, 23, 41, 90], name="age")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        top = pd.DataFrame({"age": s}).anon.generalize(
            {"age": 3}, hierarchies={"age": intervals([10, 20])}, quasi_identifiers=["age"])
    # the widest bands of 20: [0, 19] holds 17, [80, 99] holds 90
    assert top["age"].astype(str).unique().tolist() == ["[0, 99]"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dom = pd.DataFrame({"age": s}).anon.generalize(
            {"age": 3}, hierarchies={"age": intervals([10, 20], domain=(0, 120))},
            quasi_identifiers=["age"])
    assert dom["age"].astype(str).unique().tolist() == ["[0, 120]"]
    with pytest.raises(pdanon.InvalidInputError, match="outside its declared domain"):
        intervals([10], domain=(20, 80)).map(s, 1)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-30_000, 30_000), min_size=1, max_size=30))
def test_dates_top_never_ends_on_a_date_present(days):
    values = pd.Timestamp("2000-01-01") + pd.to_timedelta(days, unit="D")
    s = pd.Series(values, name="d")
    for levels in (["month", "year"], ["year", "decade"]):
        cl = pdanon.hierarchy.column_levels(dates(levels), s, "ordered")
        cells = pd.Series(cl.cells(cl.height))
        assert _bounds(cells).isdisjoint(set(values))
        lo, hi = cells[0].min, cells[0].max
        assert lo < values.min() and hi > values.max()


# ------------------------------------------------------------------ local recodings


def _ages() -> pd.DataFrame:
    # five people of 20, four of 30 and one of 97 (the oldest, alone)
    return pd.DataFrame({"age": [20] * 5 + [30] * 4 + [97]})


def test_mondrian_widens_the_oldest_persons_age_to_the_grid():
    out = _ages().anon.k_anonymize(5, algorithm="mondrian", quasi_identifiers=["age"])
    # by hand: Mondrian's classes are the five 20s and {30 x 4, 97}; 30 is held by 4 < 5 rows:
    # the closest common value below is 20 (held by 5), the grid point at or below 30 (step
    # 10) is 30, nearer (published for any bound in 30..39); 97 is held by one: no common
    # value above, the grid point above is 100
    assert sorted(out["age"].astype(str)) == ["20"] * 5 + ["[30, 100]"] * 5
    assert out.anon.info["bounds"]["widened_cells"] == {"age": 5}
    assert out.anon.info["achieved"]["k"] == 5
    assert out.anon.check(pdanon.Policy(k=5)).passed


def test_exact_bounds_keep_the_data_with_a_warning():
    with pytest.warns(ExactBoundsWarning, match="exact values"):
        out = _ages().anon.k_anonymize(5, algorithm="mondrian", quasi_identifiers=["age"],
                                       options={"exact_bounds": True})
    assert sorted(out["age"].astype(str)) == ["20"] * 5 + ["[30, 97]"] * 5
    assert out.anon.info["bounds"]["rule"] == "exact"
    with pytest.raises(pdanon.InvalidInputError, match="exact_bounds"):
        _ages().anon.k_anonymize(5, algorithm="mondrian", quasi_identifiers=["age"],
                                 options={"exact_bounds": "yes"})


def test_widen_published_by_hand():
    ages = pd.Series([20, 20, 30, 30, 41, 99])
    cells = pd.Series(GeneralizationArray.from_bounds([20, 20, 30, 30, 30, 30],
                                                      [30, 30, 41, 41, 99, 99], kind="real"))
    out, n = widen_published(cells, ages, 2)
    # 41 and 99 are one person's each: 41 -> the grid point 50 (no common value above),
    # 99 -> 100; 20 and 30 are held by two rows and stay
    assert out.astype(str).tolist() == ["[20, 30]", "[20, 30]", "[30, 50]", "[30, 50]",
                                        "[30, 100]", "[30, 100]"]
    assert n == 4
    # a declared category order is the domain of an ordered column
    edu = pd.Series(pd.Categorical(["low", "low", "mid", "mid", "high"],
                                   categories=["none", "low", "mid", "high", "top"],
                                   ordered=True))
    cells = pd.Series(GeneralizationArray.from_bounds(
        [0, 0, 1, 1, 1], [1, 1, 2, 2, 2], kind="ordered", categories=["low", "mid", "high"]))
    out, n = widen_published(cells, edu, 2)
    assert out.astype(str).tolist() == ["[low, mid]"] * 2 + ["[mid, top]"] * 3
    # categories read off the data (no declared order): no domain to widen to, the cell is
    # withheld (its '*'); a range whose bounds are common stays
    codes = pd.Series(["p", "p", "q", "q", "r"])
    cells = pd.Series(GeneralizationArray.from_bounds(
        [0, 0, 1, 1, 1], [1, 1, 2, 2, 2], kind="ordered", categories=["p", "q", "r"]))
    out, n = widen_published(cells, codes, 2)
    assert out[:2].astype(str).tolist() == ["[p, q]"] * 2 and out[2:].isna().all() and n == 3


def test_mondrian_birth_dates_end_on_common_dates_or_year_boundaries():
    rng = np.random.default_rng(3)
    dob = pd.Timestamp("1930-01-01") + pd.to_timedelta(rng.integers(0, 25_000, 60), unit="D")
    df = pd.DataFrame({"DOB": dob, "sex": rng.choice(["F", "M"], 60)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.k_anonymize(4, algorithm="mondrian", quasi_identifiers=["DOB", "sex"])
    found = _bounds(out["DOB"])
    # every date is alone here: each bound is a year's first or last day
    assert found and all((t.month, t.day) in ((1, 1), (12, 31)) for t in found)


tables = st.integers(8, 40).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 60), min_size=n, max_size=n),
    st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n),
    st.lists(st.sampled_from(["x", "y", "z"]), min_size=n, max_size=n)))


@settings(max_examples=25, deadline=None)
@given(tables, st.integers(2, 4), st.sampled_from(["mondrian", "nearest", "group_join"]))
def test_no_published_bound_is_held_by_fewer_than_k_rows(table, k, algorithm):
    age, zone, d = table
    df = pd.DataFrame({"age": age, "zone": zone, "d": d})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = df.anon.k_anonymize(k, algorithm=algorithm, sensitive=["d"],
                                      quasi_identifiers={"age": "real", "zone": "unordered"})
        except pdanon.InfeasibleError:
            return
    rare = _rare(df["age"], k)
    step = round_step(df["age"].min(), df["age"].max())
    if isinstance(out["age"].dtype, pdanon.dtype.GeneralizationDtype):
        off_grid = {b for b in _bounds(out["age"]) if b % step}
        assert off_grid.isdisjoint(rare)
        # every cell still holds its row's value; k holds on the release
        back = out.anon.input_rows(df)
        shown = out["age"].notna().to_numpy()
        assert out["age"].array.contains(back["age"].to_numpy())[shown].all()
    assert out.anon.check(pdanon.Policy(k=k)).passed


def test_cli_widens_by_default_and_keeps_exact_bounds_with_the_option(tmp_path, capsys):
    from pdanon.__main__ import main

    src = tmp_path / "ages.csv"
    _ages().to_csv(src, index=False)
    published = {}
    for name, extra in (("widened", []), ("exact", ["--option", "exact_bounds=true"])):
        out = tmp_path / f"{name}.parquet"
        code = main(["anonymize", str(src), "--qi", "age:real", "-k", "5", "-a", "mondrian",
                     "-o", str(out), *extra])
        err = capsys.readouterr().err
        assert code == 0, err
        back = pd.read_parquet(out)
        published[name] = sorted(back["age"].astype(str))
        assert back.anon.info["bounds"]["rule"] == (
            "exact" if extra else "no bound held by fewer than 5 rows")
        assert ("ExactBoundsWarning" in err) == bool(extra), err
    assert published["widened"] == ["20"] * 5 + ["[30, 100]"] * 5
    assert published["exact"] == ["20"] * 5 + ["[30, 97]"] * 5


def test_a_widened_mondrian_recoding_applied_to_a_new_batch_stays_truthful():
    rng = np.random.default_rng(5)
    n = 400
    df = pd.DataFrame({"age": rng.integers(17, 95, n), "zone": rng.choice(list("abcd"), n),
                       "d": rng.choice(list("xyz"), n)})
    roles = dict(quasi_identifiers={"age": "real", "zone": "unordered"}, sensitive=["d"])
    jan, feb = df.iloc[:200].reset_index(drop=True), df.iloc[200:].reset_index(drop=True)
    out = jan.anon.k_anonymize(5, algorithm="mondrian", row_order="input", **roles)
    assert out.anon.info["bounds"]["widened_cells"]  # some ages are one person's
    new = feb.anon.apply_recoding(out.anon.recoding, max_suppressed_rows=0.95,
                                  sensitive=["d"], row_order="input")
    held = np.asarray(new["age"].array.contains(feb["age"]), dtype=bool)
    assert (held | new["age"].isna().to_numpy()).all()
    assert pdanon.metrics.k_anonymity(new, ["age", "zone"]) >= 5


def test_dates_of_one_year_widen_to_months_not_to_the_year():
    # admissions over one year, each date held by a row or two: a rare bound went to the
    # year's first or last day, so every class merged into one ([2024-01-01, 2024-12-31]);
    # under three years the grid is the months' first and last days
    import warnings

    rng = np.random.default_rng(1)
    days = rng.choice(366, 200, replace=False)  # every date one person's
    df = pd.DataFrame({"adm": pd.Timestamp("2024-01-01") + pd.to_timedelta(days, unit="D"),
                       "sex": rng.choice(["F", "M"], 200), "dx": rng.choice(list("abc"), 200)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.k_anonymize(5, quasi_identifiers={"adm": "ordered", "sex": "unordered"},
                                  sensitive=["dx"], algorithm="mondrian")
    held = df["adm"].value_counts()
    arr = out["adm"].array
    cats = pd.DatetimeIndex(arr.categories)
    present = ~np.asarray(arr.isna())
    for bound, first in ((cats[np.asarray(arr.lo)[present]], True),
                         (cats[np.asarray(arr.hi)[present]], False)):
        on_grid = bound.is_month_start if first else bound.is_month_end
        common = held.reindex(bound).fillna(0).to_numpy() >= 5
        assert (on_grid | common).all()
    assert out.anon.info["groups"] >= 12 and out.anon.check().passed
