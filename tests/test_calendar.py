"""Calendar cuts (pdanon.calendar): dates partitioned and published in whole units."""

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import pdanon
from pdanon import InvalidInputError, KindError

ALGORITHMS = ["mondrian", "group_join", "nearest"]


def _frame(n=240, seed=0, tz=None, times=False, missing=0.0):
    rng = np.random.default_rng(seed)
    d = pd.to_datetime("2023-11-01") + pd.to_timedelta(rng.integers(0, 500, n), unit="D")
    if times:
        d = d + pd.to_timedelta(rng.integers(0, 86_400, n), unit="s")
    if tz:
        d = d.tz_localize(tz, ambiguous="NaT", nonexistent="shift_forward")
    d = pd.Series(d).where(rng.random(n) >= missing)
    return pd.DataFrame({"adm": d, "sex": rng.choice(["F", "M"], n), "x": np.arange(n)})


def _release(df, unit, algorithm, k=5):
    return df.anon.k_anonymize(k, algorithm=algorithm,
                               quasi_identifiers={"adm": "ordered", "sex": "unordered"},
                               insensitive=["x"], options={"calendar": {"adm": unit}}, row_order="input")


def test_a_hand_checked_table():
    df = pd.DataFrame({"adm": pd.to_datetime(["2024-03-02", "2024-03-30", "2024-04-01",
                                              "2024-06-10", "2024-06-11", "2024-07-01"]),
                       "x": range(6)})
    out = df.anon.k_anonymize(2, algorithm="mondrian", quasi_identifiers={"adm": "ordered"},
                              insensitive=["x"], options={"calendar": {"adm": "month"}}, row_order="input")
    # months 3, 3, 4 | 6, 6, 7: each class covers whole months
    assert out["adm"].astype(str).tolist() == ["[2024-03-01, 2024-04-30]"] * 3 + [
        "[2024-06-01, 2024-07-31]"] * 3
    q = df.anon.k_anonymize(2, algorithm="mondrian", quasi_identifiers={"adm": "ordered"},
                            insensitive=["x"], options={"calendar": {"adm": "quarter"}}, row_order="input")
    assert q["adm"].astype(str).tolist() == ["2024-Q1", "2024-Q1", "2024-Q2", "2024-Q2",
                                             "2024-Q2", "2024-Q3"] or \
        q["adm"].astype(str).tolist() == ["2024-Q1"] * 2 + ["[2024-04-01, 2024-09-30]"] * 4
    assert q.anon.info["calendar"] == {"adm": "quarter"}
    assert q.anon.k_anonymity() >= 2


def _whole_units(cells: pd.Series, unit: str) -> bool:
    months = {"month": 1, "quarter": 3, "year": 12}[unit]
    for cell in cells.dropna().array:
        lo, hi = pd.Timestamp(cell.min), pd.Timestamp(cell.max)
        if lo.tz is not None:
            lo, hi = lo.tz_localize(None), hi.tz_localize(None)
        after = hi.normalize() + pd.Timedelta(days=1)
        if lo != lo.normalize() or lo.day != 1 or after.day != 1:
            return False
        if ((after.year - lo.year) * 12 + after.month - lo.month) % months or (
                lo.month - 1) % months:
            return False
    return True


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("shape", [{}, {"tz": "Europe/Oslo"}, {"times": True},
                                   {"missing": 0.1}, {"tz": "America/New_York", "times": True},
                                   {"tz": "America/Havana"}])  # skips a midnight in March
def test_every_cell_covers_whole_units_and_round_trips(tmp_path, algorithm, shape):
    df = _frame(**shape)
    out = _release(df, "month", algorithm)
    assert out.anon.k_anonymity() >= 5
    assert _whole_units(out["adm"], "month")
    # every cell holds its row's date (the anonymizer checked it too)
    kept = df["adm"].notna() & out["adm"].notna()
    assert out["adm"].array[kept.to_numpy()].contains(df["adm"][kept].to_numpy()).all()
    path = tmp_path / "r.parquet"
    out.to_parquet(path)
    pd.testing.assert_frame_equal(pd.read_parquet(path), out)
    back = pdanon.read_csv(io.StringIO(out.to_csv(index=False)), schema=out.anon.schema)
    pd.testing.assert_frame_equal(back, out)
    assert back.anon.k_anonymity() == out.anon.k_anonymity()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["month", "quarter", "year"]),
       st.sampled_from(ALGORITHMS), st.integers(2, 6))
def test_the_model_holds_and_cells_are_units_on_random_tables(seed, unit, algorithm, k):
    df = _frame(n=60, seed=seed, missing=0.05)
    out = _release(df, unit, algorithm, k=k)
    assert out.anon.k_anonymity() >= k
    assert _whole_units(out["adm"], unit)
    assert out.anon.info["changed_cells"] >= int(df["adm"].notna().sum())


def test_bad_requests_teach():
    df = _frame(40)
    ask = dict(quasi_identifiers={"adm": "ordered", "sex": "unordered"}, insensitive=["x"])
    with pytest.raises(InvalidInputError, match="use one of"):
        df.anon.k_anonymize(2, options={"calendar": {"adm": "week"}}, **ask)
    with pytest.raises(InvalidInputError, match="not a quasi-identifier"):
        df.anon.k_anonymize(2, options={"calendar": {"x": "month"}}, **ask)
    with pytest.raises(KindError, match="pd.to_datetime"):
        df.anon.k_anonymize(2, options={"calendar": {"sex": "month"}}, **ask)
    with pytest.raises(InvalidInputError, match="method='generalize' only"):
        df.anon.k_anonymize(2, method="suppress", options={"calendar": {"adm": "month"}}, **ask)
    with pytest.raises(InvalidInputError, match="dates\\(\\) hierarchy"):
        df.anon.k_anonymize(2, algorithm="optimal", options={"calendar": {"adm": "month"}},
                            hierarchies={"adm": pdanon.hierarchy.dates()}, **ask)
    assert df.equals(_frame(40))  # the input is never changed


def test_the_no_end_placeholder_9999_12_31_publishes_and_reads_back(tmp_path):
    """A unit in the year 9999 ends on 10000-01-01, past Python's dates: the calendar label,
    the dates() hierarchy and the read-back used to fail with 'year 10000 is out of range'."""
    import warnings

    from pdanon.dtype._common import calendar_unit
    from pdanon.hierarchy import dates

    assert calendar_unit("9999-12") == (pd.Timestamp(9999, 12, 1),
                                        pd.Timestamp(9999, 12, 1) + pd.Timedelta(days=31))
    assert calendar_unit("9990s")[1] - calendar_unit("9990s")[0] == pd.Timedelta(days=3652)
    df = pd.DataFrame({"end": pd.to_datetime(["9999-12-01", "9999-12-31"] * 2
                                             + ["2024-01-01", "2024-01-02"] * 2),
                       "sex": list("FFMMFFMM")})
    roles = dict(quasi_identifiers={"end": "ordered", "sex": "unordered"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        releases = [df.anon.k_anonymize(2, algorithm="mondrian", **roles),
                    df.anon.k_anonymize(2, algorithm="optimal", max_suppressed_rows=0,
                                        hierarchies={"end": dates(["month", "year"])}, **roles)]
    for out in releases:
        assert "9999-12" in out["end"].astype(str).tolist()
        path = tmp_path / "r.csv"
        out.to_csv(path, index=False)
        back = pdanon.read_csv(path, schema=out.anon.schema)
        assert back["end"].astype(str).tolist() == out["end"].astype(str).tolist()


def test_a_date_of_birth_published_as_exact_bounds_warns_with_the_fix():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"birth_date": pd.Timestamp("1950-01-01")
                       + pd.to_timedelta(rng.integers(0, 20000, 60), unit="D"),
                       "d": ["a", "b"] * 30})
    roles = dict(quasi_identifiers={"birth_date": "ordered"}, sensitive=["d"])
    with pytest.warns(pdanon.KindWarning, match=r"looks like a date of birth.*calendar"):
        df.anon.k_anonymize(5, algorithm="mondrian", options={"exact_bounds": True}, **roles)
    import warnings

    # by default no bound is a birthday held by fewer than 5 rows (pdanon.recode.bounds): here
    # every date is one person's, so every bound is a year's first or last day
    with warnings.catch_warnings():
        warnings.simplefilter("error", pdanon.KindWarning)
        widened = df.anon.k_anonymize(5, algorithm="mondrian", **roles)
    cells = widened["birth_date"].array
    ranged = cells.lo != cells.hi
    ends = list(cells.categories[cells.lo[ranged]]) + list(cells.categories[cells.hi[ranged]])
    assert ends and all((t.month, t.day) in ((1, 1), (12, 31)) for t in ends)

    with warnings.catch_warnings():
        warnings.simplefilter("error", pdanon.KindWarning)
        out = df.anon.k_anonymize(5, algorithm="mondrian",
                                  options={"calendar": {"birth_date": "year"}}, **roles)
    import re

    whole_years = re.compile(r"^(\d{4}|\d{4}s|\[\d{4}-01-01, \d{4}-12-31\])$")
    assert all(whole_years.match(str(c)) for c in out["birth_date"].dropna()), \
        out["birth_date"].astype(str).unique()[:5]
