"""Mondrian on Dask publishes no bound held by fewer than k rows of the whole column
(pdanon.recode.bounds, pdanon.dask._bounds): numeric columns cut on quantile bins (more than
4,096 distinct values) and ordered categories (declared orders, dates, sorted values) too,
with the whole column's counts, as the pandas engine does; one part gives the pandas result.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

import pdanon  # noqa: E402
import pdanon.dask  # noqa: E402,F401
from pdanon import engine  # noqa: E402
from pdanon.dask import _mondrian as M  # noqa: E402
from pdanon.dtype import GeneralizationArray  # noqa: E402
from pdanon.models import KAnonymity  # noqa: E402
from pdanon.recode.bounds import category_blocks, round_step  # noqa: E402
from pdanon.roles import resolve_roles  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword")


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _ranges(series: pd.Series):
    """(lower bounds, upper bounds) of the range cells of a published column, as values."""
    arr = series.array
    ranged = ~np.asarray(arr.isna(), dtype=bool) & (np.asarray(arr.lo) != np.asarray(arr.hi))
    lo, hi = np.asarray(arr.lo)[ranged], np.asarray(arr.hi)[ranged]
    if arr.categories is not None:
        return list(arr.categories[lo.astype(int)]), list(arr.categories[hi.astype(int)])
    return lo.tolist(), hi.tolist()


def _on_grid(b: float, step: float) -> bool:
    q = b / step
    return math.isclose(q, round(q), abs_tol=1e-6)


def _strict(ddf, k, **kw):
    """Dask Mondrian with an ExactBoundsWarning raised as an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", pdanon.ExactBoundsWarning)
        out = ddf.anon.k_anonymize(k, **kw)
    assert "exact_columns" not in out.anon.info["bounds"]
    assert out.anon.info["verified"]["k"] >= k
    return out, out.compute()


def _rare_numeric_bounds(published: pd.Series, column: pd.Series, k: int) -> list:
    counts = column.value_counts()
    step = round_step(column.min(), column.max())
    lo, hi = _ranges(published)
    return sorted({b for b in lo + hi if 0 < counts.get(b, 0) < k and not _on_grid(b, step)})


def _incomes(n=6000, seed=3) -> pd.Series:
    """More than 4,096 distinct values (binned on Dask), a few common values, and extremes
    held by one person each."""
    rng = np.random.default_rng(seed)
    x = np.concatenate([np.round(rng.uniform(100, 9900, n - 200), 2),
                        np.repeat([2000.0, 4000.0, 6000.0, 8000.0], 49),
                        [-77.7, 12345.6, 15000.1, 21.5]])
    return pd.Series(rng.permutation(x), name="income")


# ============================================================================ binned numbers


def test_binned_column_publishes_no_bound_held_by_fewer_than_k_rows():
    income = _incomes()
    df = income.to_frame()
    assert income.nunique() > M.EXACT_CODES_LIMIT
    out, got = _strict(dd.from_pandas(df, npartitions=3), 5,
                       quasi_identifiers={"income": "real"}, max_rows_per_part=1500,
                       row_order="input")
    info = out.anon.info
    assert info["binned_columns"] == ["income"] and info["parts"] >= 4
    assert info["bounds"]["widened_cells"] > 0 and "bounds" in info["timings"]
    assert _rare_numeric_bounds(got["income"], income, 5) == []
    lo, hi = _ranges(got["income"])
    # the extremes (one person each) are no bound: the grid (step 1,000 ... 10,000) is
    assert not {-77.7, 12345.6, 15000.1} & set(lo + hi)
    assert min(lo) == -10000.0 and max(hi) == 20000.0
    # truthful: every published cell holds its row's income (row_order="input")
    assert got["income"].array.contains(income.to_numpy()).all()


def test_binned_column_exact_bounds_opt_out_warns_and_keeps_the_extremes():
    income = _incomes()
    with pytest.warns(pdanon.ExactBoundsWarning, match="exact_bounds=True"):
        out = dd.from_pandas(income.to_frame(), npartitions=3).anon.k_anonymize(
            5, quasi_identifiers={"income": "real"}, max_rows_per_part=1500,
            options={"exact_bounds": True})
    assert out.anon.info["bounds"]["rule"] == "exact"
    lo, hi = _ranges(out.compute()["income"])
    assert 15000.1 in hi and -77.7 in lo


# ============================================================================ ordered categories


def _grades(seed=5) -> pd.Series:
    """A declared order of 60 categories held by 1 .. 8 rows each (the first and last by
    one): classes end on rare categories inside the order's blocks."""
    rng = np.random.default_rng(seed)
    cats = [f"g{i:02d}" for i in range(60)]
    counts = rng.integers(1, 9, 60)
    counts[0] = counts[-1] = 1
    return pd.Series(pd.Categorical(rng.permutation(np.repeat(cats, counts)), categories=cats,
                                    ordered=True), name="grade")


def test_declared_order_publishes_bounds_held_by_k_rows_or_its_blocks_edges():
    grade = _grades()
    k = 5
    out, got = _strict(dd.from_pandas(grade.to_frame(), npartitions=3), k,
                       quasi_identifiers={"grade": "ordered"}, max_rows_per_part=100,
                       row_order="input")
    assert out.anon.info["parts"] >= 3 and out.anon.info["bounds"]["widened_cells"] > 0
    cats = list(grade.cat.categories)
    counts = grade.value_counts().reindex(cats).to_numpy()
    first, last = category_blocks(counts, k)
    lo, hi = _ranges(got["grade"])
    assert lo and hi
    # a lower bound is held by k rows or is its block's first category; an upper one its last
    assert [b for b in lo if counts[cats.index(b)] < k and first[cats.index(b)] !=
            cats.index(b)] == []
    assert [b for b in hi if counts[cats.index(b)] < k and last[cats.index(b)] !=
            cats.index(b)] == []
    assert got["grade"].array.contains(grade.to_numpy()).all()
    assert got["grade"].dtype.categories.isin(cats).all()


def test_birth_dates_publish_bounds_held_by_k_rows_or_year_boundaries():
    rng = np.random.default_rng(7)
    dob = pd.Series(pd.Timestamp("1940-01-01") + pd.to_timedelta(
        rng.integers(0, 25000, 3000), unit="D"), name="dob")
    dob.iloc[:3] = [pd.Timestamp("1924-07-09"), pd.Timestamp("2009-06-29"),
                    pd.Timestamp("2010-03-03")]
    k = 5
    out, got = _strict(dd.from_pandas(dob.to_frame(), npartitions=3), k,
                       quasi_identifiers={"dob": "ordered"}, max_rows_per_part=800)
    counts = dob.value_counts()
    lo, hi = _ranges(got["dob"])
    assert lo and hi
    assert all(counts.get(b, 0) >= k or (b.month, b.day) == (1, 1) for b in lo)
    assert all(counts.get(b, 0) >= k or (b.month, b.day) == (12, 31) for b in hi)
    assert min(lo) == pd.Timestamp("1924-01-01") and max(hi) == pd.Timestamp("2010-12-31")
    # one dtype in every partition (year boundaries added), listing only the dates a cell
    # shows as a bound or a value
    arr = got["dob"].array
    shown = ~np.asarray(arr.isna(), dtype=bool)
    used = set(np.asarray(arr.lo)[shown].tolist()) | set(np.asarray(arr.hi)[shown].tolist())
    assert used == set(range(len(arr.categories)))


# ============================================================================ one part = pandas


def _mixed(n=6000, seed=11) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    grade = pd.Categorical(rng.choice(list("abcdefghij"), n, p=[.001, .002, .1, .2, .3, .2,
                                                                 .1, .05, .046, .001]),
                           categories=list("abcdefghijk"), ordered=True)
    dob = pd.Timestamp("1950-01-01") + pd.to_timedelta(rng.integers(0, 20000, n), unit="D")
    size = rng.choice(["l", "m", "s", "xl"], n, p=[.4, .3, .2995, .0005])
    return pd.DataFrame({"income": _incomes(n, seed).to_numpy(), "grade": grade, "dob": dob,
                         "size": size, "age": rng.integers(18, 90, n)})


@pytest.mark.parametrize("columns", [["income"], ["grade"], ["dob"], ["size"],
                                     ["income", "grade", "dob", "size", "age"]])
def test_one_part_gives_the_pandas_result_widened_bounds_included(columns):
    df = _mixed()[columns]
    kinds = {"income": "real", "age": "real"}
    roles = resolve_roles(df, quasi_identifiers={c: kinds.get(c, "ordered") for c in columns})
    ref, ref_info = engine.anonymize(df, roles, model=KAnonymity(5), method="generalize",
                                     algorithm="mondrian")
    with warnings.catch_warnings():
        warnings.simplefilter("error", pdanon.ExactBoundsWarning)
        out, info = M.anonymize(dd.from_pandas(df, npartitions=3), roles, model=KAnonymity(5),
                                max_rows_per_part=10**9, row_order="input")
    got = out.compute()
    assert info["parts"] == 1
    assert info["bounds"]["widened_cells"] == sum(ref_info["bounds"]["widened_cells"].values())
    for c in columns:
        assert got[c].dtype == ref[c].dtype
        assert got[c].astype(str).tolist() == ref[c].astype(str).tolist()


# ============================================================================ property


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 6)), min_size=12, max_size=60),
       st.integers(2, 4), st.integers(1, 3), st.integers(4, 30))
def test_no_dask_bound_is_held_by_fewer_than_k_rows(monkeypatch, rows, k, parts, max_rows):
    """Random numbers (binned: the exact-codes limit lowered to 8) and a declared order, on
    several partitions and parts: every bound is held by k rows of the whole column or is
    on the grid (the numbers' step, the order's blocks); the output meets k."""
    monkeypatch.setattr(M, "EXACT_CODES_LIMIT", 8)
    x = pd.Series([r[0] * 1.5 for r in rows], name="x")
    cats = list("pqrstuv")
    g = pd.Series(pd.Categorical([cats[r[1]] for r in rows], categories=cats, ordered=True),
                  name="g")
    df = pd.DataFrame({"x": x, "g": g})
    if len(df) < k:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error", pdanon.ExactBoundsWarning)
        out = dd.from_pandas(df, npartitions=parts).anon.k_anonymize(
            k, quasi_identifiers={"x": "real", "g": "ordered"}, max_rows_per_part=max_rows)
    got = out.compute()
    assert out.anon.info["verified"]["k"] >= k
    if x.nunique() > 8:
        assert out.anon.info["binned_columns"] == ["x"]
    assert _rare_numeric_bounds(got["x"], x, k) == []
    counts = g.value_counts().reindex(cats).to_numpy()
    first, last = category_blocks(counts, k)
    lo, hi = _ranges(got["g"])
    assert all(counts[cats.index(b)] >= k or first[cats.index(b)] == cats.index(b) for b in lo)
    assert all(counts[cats.index(b)] >= k or last[cats.index(b)] == cats.index(b) for b in hi)


def test_widen_by_hand_a_binned_part():
    """A part's cells widened with the whole column's counts (pdanon.dask._bounds.widen)."""
    from pdanon.dask._bounds import widen
    from pdanon.dask._plan import binned_column

    q = binned_column("x", np.dtype(np.float64), np.array([1.0, 50.0, 97.0]))
    q.common, q.span = (np.array([30.0, 50.0]), np.array([6, 6])), (1.0, 97.0)
    part = GeneralizationArray.from_bounds([30.0, 31.0, 50.0], [97.0, 49.0, 96.0], kind="real")
    cells, grown = widen(q, part, 5)
    # 30 and 50 are common; 31 -> 30 (common below, nearer than the grid point 30 too),
    # 49 -> 50 (common above), 96 and 97 -> 100 (grid step 10; nothing common above)
    assert [str(c) for c in cells] == ["[30, 100]", "[30, 50]", "[50, 100]"] and grown == 3
