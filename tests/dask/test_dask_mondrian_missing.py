"""Missing values are data on Dask too: ``ddf.anon.k_anonymize`` / ``l_diversify`` /
``t_close`` / ``anonymize`` take NaN, None, pd.NA and NaT in quasi-identifiers with the pandas
engine's rules (tests/test_missing.py):

* a missing cell is a value of its own (two missing cells are equal), after every value;
* a group whose members are all missing in a column publishes missing there;
* a group mixing missing and present cells publishes that cell missing (a suppressed cell,
  counted in ``info["suppressed_cells"]``); no range or set claims to contain a missing value.

The expected outputs below were derived by hand from the cut rules (median cut in value order
with missing last; balanced split of categories with missing as one category), with the
partitions and ``max_rows_per_part`` chosen so that the top cuts on Dask do part of the work.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import pdanon  # noqa: E402
import pdanon.dask  # noqa: E402,F401
from pdanon import metrics as pm  # noqa: E402
from pdanon._groups import class_labels  # noqa: E402
from pdanon.dask import _mondrian as M  # noqa: E402
from pdanon.dtype import GeneralizationDtype  # noqa: E402
from pdanon.models import AllOf, KAnonymity, LDiversity  # noqa: E402
from pdanon.roles import resolve_roles  # noqa: E402

# these tests are about missing cells, not bounds: Dask and the pandas references keep the
# exact bounds (options exact_bounds; the bounds rule on Dask: tests/dask/test_dask.py)
pytestmark = [pytest.mark.filterwarnings("ignore:The inplace keyword"),
              pytest.mark.filterwarnings("ignore::pdanon.ExactBoundsWarning")]


EXACT = {"exact_bounds": True}


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def cells(series) -> list:
    """Published cells as text, None for a missing cell."""
    return [None if pd.isna(v) else str(v) for v in series.tolist()]


def pandas_result(df, qi, k=2, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return df.anon.k_anonymize(k, quasi_identifiers=qi, algorithm="mondrian", **kw,
                                   options={"exact_bounds": True}, row_order="input")


def dask_k(df, qi, k=2, npartitions=2, **kw):
    out = dd.from_pandas(df, npartitions=npartitions).anon.k_anonymize(
        k, quasi_identifiers=qi, **kw, row_order="input", options=EXACT)
    return out, out.compute()


def suppressed_counts(df, got, qi):
    """(rows, cells) as the pandas engine counts them: present cells published missing, and
    rows whose every quasi-identifier is missing with at least one of them suppressed."""
    newly = np.zeros(len(df), dtype=np.int64)
    blank = np.ones(len(df), dtype=bool)
    for c in qi:
        after = got[c].isna().to_numpy()
        newly += after & df[c].notna().to_numpy()
        blank &= after
    return int((blank & (newly > 0)).sum()), int(newly.sum())


def holey_frame(n=400, seed=1):
    rng = np.random.default_rng(seed)

    def holes(values, share):
        return np.where(rng.random(n) < share, None, values)

    return pd.DataFrame({
        "r": pd.to_numeric(pd.Series(holes(rng.integers(0, 50, n), .15), dtype=object)),
        "o": pd.array(holes(rng.integers(0, 8, n), .15), dtype="Int64"),
        "c": pd.Categorical(holes(rng.choice(["lo", "mid", "hi"], n), .1),
                            categories=["lo", "mid", "hi"], ordered=True),
        "u": pd.Series(holes(rng.choice(list("abcde"), n), .1), dtype=object),
        "s": pd.Series(holes(rng.choice(list("xyz"), n), .1), dtype=object),
    })


# ----------------------------------------------------------------------------- hand-checked


@pytest.mark.parametrize("order", ["input", "part"])
def test_real_missing_cells_are_cut_off_first_and_stay_missing(order):
    # codes 30..51 then missing (weight 51 + 21); width 2: the top cut (median) leaves
    # {30, 31, 40, 41} | {50, 51, nan, nan}; each part cuts once more
    df = pd.DataFrame({"age": [30, 31, np.nan, 40, 41, np.nan, 50, 51]})
    out, got = dask_k(df, {"age": "real"}, max_rows_per_part=4, order=order)
    got = got.loc[df.index]
    assert cells(got["age"]) == ["[30, 31]", "[30, 31]", None, "[40, 41]", "[40, 41]", None,
                                 "[50, 51]", "[50, 51]"]
    info = out.anon.info
    assert info["parts"] == 2 and info["cut_levels"] == 1
    assert (info["suppressed_cells"], info["suppressed_rows"]) == (0, 0)
    assert info["verified"] == {"rows": 8, "classes": 4, "k": 2}
    assert cells(pandas_result(df, {"age": "real"})["age"]) == cells(got["age"])


def test_a_part_mixing_missing_and_present_publishes_a_cell_or_missing():
    # top cuts: {30, 30, 40, 70, 70} | {80, nan, nan}, then {30, 30, 40} | {70, 70};
    # {80, nan, nan} cannot be cut (1 | 2 rows): it publishes "80 or missing", as on pandas
    df = pd.DataFrame({"age": [30, 30, 40, np.nan, 70, 70, 80, np.nan]})
    out, got = dask_k(df, {"age": "real"}, max_rows_per_part=4)
    assert cells(got["age"]) == ["[30, 40]", "[30, 40]", "[30, 40]", "80 or missing", "70.0",
                                 "70.0", "80 or missing", "80 or missing"]
    info = out.anon.info
    assert (info["parts"], info["cut_levels"]) == (3, 2)
    assert (info["suppressed_cells"], info["suppressed_rows"]) == (0, 0)
    assert info["verified"] == {"rows": 8, "classes": 3, "k": 2}
    ref = pandas_result(df, {"age": "real"})
    assert cells(ref["age"]) == cells(got["age"])
    assert ref.anon.info["suppressed_cells"] == info["suppressed_cells"]


def test_none_nan_and_na_are_one_unordered_value_across_partitions():
    # counts a 2, b 2, c 1, missing 3: the balanced split gives {missing, c} | {a, b};
    # {c, missing x3} cannot be cut (1 | 3): it publishes "c or missing"
    df = pd.DataFrame({"z": pd.Series(["a", None, "b", "b", np.nan, "a", "c", pd.NA],
                                      dtype=object)})
    out, got = dask_k(df, {"z": "unordered"}, max_rows_per_part=4)
    assert cells(got["z"]) == ["a", "c or missing", "b", "b", "c or missing", "a",
                               "c or missing", "c or missing"]
    assert (out.anon.info["parts"], out.anon.info["suppressed_cells"]) == (2, 0)
    assert isinstance(got["z"].dtype, GeneralizationDtype)
    # missing is no category
    assert list(got["z"].dtype.categories) == ["a", "b", "c"]
    ref = pandas_result(df, {"z": "unordered"})["z"]
    assert cells(ref) == cells(got["z"])
    assert list(ref.dtype.categories) == ["a", "b", "c"]


def test_ordered_categorical_with_missing_cells():
    # ranks a 0, b 2, c 3, d 4, e 5, missing one span above; top cut {a, a, b, c} |
    # {d, e, missing, missing}; then {a, a} | {b, c} and {d, e} | {missing, missing}
    edu = pd.Categorical(["a", None, "d", "b", "a", "e", None, "c"], categories=list("abcde"),
                         ordered=True)
    df = pd.DataFrame({"edu": edu})
    out, got = dask_k(df, {"edu": "ordered"}, max_rows_per_part=4)
    assert cells(got["edu"]) == ["a", None, "[d, e]", "[b, c]", "a", "[d, e]", None, "[b, c]"]
    assert out.anon.info["parts"] == 2 and out.anon.info["suppressed_cells"] == 0
    assert cells(pandas_result(df, {"edu": "ordered"})["edu"]) == cells(got["edu"])


@pytest.mark.parametrize("max_rows", [4, 100])
def test_numeric_ordered_with_pd_na(max_rows):
    # codes 1, 2, 3 then missing; the median cut gives {1, 2, 2} | {3, 3, NA, NA}. In the
    # second part 3 is the only present value: it is still cut from the missing cells, as on
    # the whole table
    df = pd.DataFrame({"o": pd.array([1, 2, 2, 3, 3, None, None], dtype="Int64")})
    out, got = dask_k(df, {"o": "ordered"}, max_rows_per_part=max_rows)
    assert cells(got["o"]) == ["[1, 2]", "[1, 2]", "[1, 2]", "3", "3", None, None]
    assert out.anon.info["parts"] == (2 if max_rows == 4 else 1)
    assert out.anon.info["suppressed_cells"] == 0
    assert cells(pandas_result(df, {"o": "ordered"})["o"]) == cells(got["o"])


def test_dates_with_nat():
    # codes Jan 1, Jan 2, Feb 1, Feb 3, then NaT; the top cut gives {Jan 1, Jan 2, Feb 1} |
    # {Feb 3, NaT, NaT}; neither can be cut again with k = 2 (2 | 1 rows): "Feb 3 or missing"
    day = pd.to_datetime(["2020-01-01", "2020-01-02", None, None, "2020-02-01", "2020-02-03"])
    df = pd.DataFrame({"day": day})
    out, got = dask_k(df, {"day": "ordered"}, npartitions=3, max_rows_per_part=2)
    assert got["day"].notna().all()
    assert cells(got["day"])[2:4] + cells(got["day"])[5:] == ["2020-02-03 or missing"] * 3
    assert got["day"].array.contains(df["day"].array).all()  # NaT too
    assert len(set(cells(got["day"])[:2] + cells(got["day"])[4:5])) == 1  # one range
    assert (out.anon.info["parts"], out.anon.info["suppressed_cells"]) == (2, 0)
    assert cells(pandas_result(df, {"day": "ordered"})["day"]) == cells(got["day"])


def test_one_part_equals_pandas_on_every_kind_with_missing_cells():
    df = holey_frame(300, seed=7)
    qi = {"r": "real", "o": "ordered", "c": "ordered", "u": "unordered"}
    before = df.copy()
    ref = pandas_result(df, qi, k=3, sensitive=["s"])
    out, got = dask_k(df, qi, k=3, npartitions=3, sensitive=["s"], max_rows_per_part=10**9)
    pd.testing.assert_frame_equal(df, before)  # the input is not mutated
    for c in qi:
        assert got[c].dtype == ref[c].dtype
        assert cells(got[c]) == cells(ref[c])
    info = out.anon.info
    assert info["suppressed_cells"] == ref.anon.info["suppressed_cells"]
    assert any(got[c].array.or_missing.any() for c in qi)  # classes mixing blanks
    assert info["suppressed_rows"] == ref.anon.info["suppressed_rows"]
    assert info["groups"] == ref.anon.info["groups"] == info["verified"]["classes"]


def test_missing_sensitive_values_are_one_value_as_on_pandas():
    df = pd.DataFrame({"age": [30, 31, None, None, 50, 51, 52, 53],
                       "s": pd.Series(["x", None, "x", None, None, "y", "x", "y"],
                                      dtype=object)})
    qi = {"age": "real"}
    ref = df.anon.l_diversify(2, quasi_identifiers=qi, sensitive=["s"], algorithm="mondrian",
                              options={"exact_bounds": True}, row_order="input")
    ddf = dd.from_pandas(df, npartitions=2)
    out = ddf.anon.l_diversify(2, quasi_identifiers=qi, sensitive=["s"],
                               max_rows_per_part=10**9, row_order="input", options=EXACT)
    got = out.compute()
    assert cells(got["age"]) == cells(ref["age"])
    # the missing ages lie in their cells: blank, or a cell "or missing"
    assert (got["age"].isna() | got["age"].array.contains(df["age"])).all()
    assert out.anon.info["verified"]["l[s]"] == pm.l_diversity(got, ["age"], ["s"]) >= 2
    # the same model through anonymize(), with top cuts
    out = ddf.anon.anonymize(AllOf(KAnonymity(2), LDiversity(2)), quasi_identifiers=qi,
                             sensitive=["s"], max_rows_per_part=4, row_order="input")
    got = out.compute()
    assert pm.l_diversity(got, ["age"], ["s"]) >= 2 and pm.k_anonymity(got, ["age"]) >= 2
    assert (got["age"].isna() | got["age"].array.contains(df["age"])).all()
    out = ddf.anon.t_close(0.5, quasi_identifiers=qi, sensitive=["s"], max_rows_per_part=4,
                           row_order="input")
    got = out.compute()
    assert pm.t_closeness(got, ["age"], ["s"]) <= 0.5
    assert out.anon.info["verified"]["t[s]"] == pm.t_closeness(got, ["age"], ["s"])


def test_missing_code_is_last_and_never_a_quantile_bin(monkeypatch):
    monkeypatch.setattr(M, "EXACT_CODES_LIMIT", 10)
    monkeypatch.setattr(M, "BINS", 8)
    rng = np.random.default_rng(3)
    n = 240
    hours = np.round(rng.random(n) * 60, 2)
    hours[rng.random(n) < .2] = np.nan
    df = pd.DataFrame({"hours": hours, "sex": rng.choice(["F", "M"], n)})
    qi = {"hours": "real", "sex": "unordered"}
    plan, _, info = M.plan_cuts(dd.from_pandas(df, npartitions=3), resolve_roles(
        df, quasi_identifiers=qi), model=KAnonymity(4), max_rows_per_part=60)
    q = plan.qis[0]
    assert info["binned_columns"] == ["hours"] and q.binned and q.has_na
    codes = q.encode(df["hours"])
    na = np.isnan(hours)
    assert (codes[na] == q.ncodes - 1).all()          # the missing code, after every bin
    assert codes[~na].max() == q.ncodes - 2 and codes[~na].min() == 0
    assert q.weight[-1] > q.weight[:-1].max()         # last in value order

    out, got = dask_k(df, qi, k=4, npartitions=3, max_rows_per_part=60)
    assert out.anon.info["parts"] > 2 and out.anon.info["verified"]["k"] >= 4
    assert (got["hours"].isna() | ~na).all()          # missing stays missing
    keep = got["hours"].notna().to_numpy()
    assert got["hours"].array.contains(df["hours"].to_numpy())[keep].all()
    rows, cells_ = suppressed_counts(df, got, qi)
    assert (out.anon.info["suppressed_rows"], out.anon.info["suppressed_cells"]) == (rows, cells_)


@pytest.mark.parametrize("model,split", [
    (KAnonymity(3), "balanced"), (KAnonymity(3), "frequency"), (KAnonymity(2), "appearance"),
    (AllOf(KAnonymity(2), LDiversity(2)), "balanced"),
])
def test_top_cuts_are_the_first_cuts_of_single_machine_mondrian_with_missing(
        model, split, monkeypatch):
    """Every class of the single-machine Mondrian (median cuts only) lies inside one Dask part:
    the top cuts treat missing cells as the pandas Mondrian does."""
    from pdanon.encode import encode_table
    from pdanon.engine import model_context
    from pdanon.partition import mondrian
    from pdanon.partition.mondrian import mondrian_partition

    monkeypatch.setattr(mondrian, "FALLBACK_CUTS", 0)
    df = holey_frame()
    roles = resolve_roles(df, quasi_identifiers={"r": "real", "o": "ordered", "c": "ordered",
                                                 "u": "unordered"}, sensitive=["s"])
    ref = mondrian_partition(encode_table(df, roles), model,
                             context=model_context(model, df, roles),
                             unordered_split=split).labels
    plan, _, info = M.plan_cuts(dd.from_pandas(df, npartitions=3), roles, model=model,
                                max_rows_per_part=60, unordered_split=split)
    assert info["parts"] > 4 and all(q.has_na for q in plan.qis)
    part = plan.part_of_node[M.route([q.encode(df[q.name]) for q in plan.qis],
                                     plan.tree_routing)]
    assert (pd.Series(part).groupby(ref).nunique() == 1).all()


# ----------------------------------------------------------------------------- property


values = st.one_of(st.none(), st.integers(0, 4))


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(values, values, values, values), min_size=4, max_size=24),
       k=st.integers(1, 3), max_rows=st.integers(3, 12), npartitions=st.integers(1, 3),
       order=st.sampled_from(["input", "part"]))
def test_missing_values_property(rows, k, max_rows, npartitions, order):
    df = pd.DataFrame(rows, columns=["r", "o", "c", "u"])
    df = df.astype({"r": "float64", "o": "Int64"})
    df["c"] = pd.Categorical(df["c"].map(lambda v: None if pd.isna(v) else "abcde"[int(v)]),
                             categories=list("abcde"), ordered=True)
    df["u"] = pd.Series(df["u"].map(lambda v: None if pd.isna(v) else f"u{int(v)}"),
                        dtype=object)
    qi = {"r": "real", "o": "ordered", "c": "ordered", "u": "unordered"}
    if k > len(df):
        return
    before = df.copy()
    out, got = dask_k(df, qi, k=k, npartitions=min(npartitions, len(df)),
                      max_rows_per_part=max_rows, order=order)
    pd.testing.assert_frame_equal(df, before)
    got = got.loc[df.index] if order == "part" else got
    assert got.index.equals(df.index)
    info = out.anon.info
    # the published classes meet k; rows with every quasi-identifier missing included
    # (they form classes of whole groups), and also without them
    labels = class_labels(got, list(qi))
    assert np.bincount(labels).min() >= k
    assert info["verified"]["k"] == np.bincount(labels).min()
    assert info["verified"]["classes"] == info["groups"] == labels.max() + 1
    blank = got[list(qi)].isna().all(axis=1).to_numpy()
    if (~blank).any():
        assert np.bincount(class_labels(got.loc[~blank], list(qi))).min() >= k
    for c in qi:  # a missing cell is published missing, or in a cell "or missing"
        was, now = df[c].isna().to_numpy(), got[c].isna().to_numpy()
        covers = np.asarray(got[c].array.or_missing, dtype=bool) \
            if isinstance(got[c].dtype, pdanon.GeneralizationDtype) else False
        assert (now | ~was | covers).all(), f"column {c}: a missing cell was published as a value"
        assert (got[c].array.contains(df[c].array) | now).all()
    assert (info["suppressed_rows"], info["suppressed_cells"]) == suppressed_counts(df, got, qi)
    if info["parts"] == 1:  # one part: exactly the pandas result
        ref = pandas_result(df, qi, k=k)
        for c in qi:
            assert cells(ref[c]) == cells(got[c])
