"""Record-level risk on Dask (pdanon/dask/_risk.py) equals the pandas results
(pdanon/metrics/reidentification.py): the summary and the per-row risk, with no population, a
sampling fraction or a population table (pandas or Dask), on raw, generalized and missing
cells."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

import pdanon  # noqa: E402
import pdanon.dask as pdd  # noqa: E402
from pdanon import metrics as pm  # noqa: E402
from pdanon._errors import InvalidInputError, UnknownColumnError  # noqa: E402

QIS = dict(pdanon.datasets.ADULT_QUASI_IDENTIFIERS)
pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword")


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture(scope="module")
def population():
    return pdanon.datasets.load_adult(nrows=4000)


@pytest.fixture(scope="module")
def sample(population):
    return population.sample(1500, random_state=3).sort_index()


def assert_summary_equal(got: pd.Series, ref: pd.Series):
    assert got.index.tolist() == ref.index.tolist()
    for key in ref.index:
        assert got[key] == pytest.approx(ref[key], rel=1e-12, abs=1e-15), key
    assert got.attrs == ref.attrs


def assert_rows_equal(got, ref: pd.DataFrame):
    got = got.compute()
    assert got.columns.tolist() == ref.columns.tolist()
    assert got.index.equals(ref.index)
    for c in ref.columns:
        assert np.array_equal(got[c].to_numpy(), ref[c].to_numpy()), c


@pytest.mark.parametrize("kind", ["raw", "anonymized"])
def test_summary_and_rows_equal_pandas(sample, kind):
    frame = sample if kind == "raw" else sample.anon.k_anonymize(3, algorithm="mondrian", row_order="input")
    qis = list(QIS)
    ddf = dd.from_pandas(frame, npartitions=4)
    for kw in ({}, {"sampling_fraction": 0.1}, {"threshold": 0.5}):
        assert_summary_equal(ddf.anon.risk_summary(**kw), frame.anon.risk_summary(**kw))
    assert_rows_equal(ddf.anon.risk(), frame.anon.risk())
    assert_rows_equal(pdd.record_risk(ddf, qis, sampling_fraction=0.25),
                      pm.record_risk(frame, qis, sampling_fraction=0.25))


def test_population_table_pandas_or_dask(population, sample):
    qis = ["age", "sex", "race", "marital-status"]
    ddf = dd.from_pandas(sample, npartitions=3)
    ref = pm.risk_summary(sample, qis, population=population)
    assert_summary_equal(pdd.risk_summary(ddf, qis, population=population), ref)
    assert_summary_equal(pdd.risk_summary(ddf, qis, population=dd.from_pandas(population, 5)),
                         ref)
    assert_rows_equal(pdd.record_risk(ddf, qis, population=population),
                      pm.record_risk(sample, qis, population=population))


def test_hand_checked_population():
    sample = pd.DataFrame({"zip": [1, 1, 2]}, index=[10, 11, 12])
    pop = pd.DataFrame({"zip": [1, 1, 1, 1, 2, 2]})
    ddf = dd.from_pandas(sample, npartitions=2)
    got = pdd.record_risk(ddf, ["zip"], population=pop).compute()
    assert got["class_id"].tolist() == [0, 0, 1]
    assert got["journalist"].tolist() == [0.25, 0.25, 0.5]
    s = pdd.risk_summary(ddf, ["zip"], population=pop, threshold=0.3)
    # journalist risks per row 1/4, 1/4, 1/2: mean 1/3, one row of three above 0.3
    assert s["average_journalist_risk"] == pytest.approx(1 / 3)
    assert s["records_at_journalist_risk"] == pytest.approx(1 / 3)
    assert s["marketer_risk"] == pytest.approx(1 / 3)


def test_missing_cells_are_values_and_wildcard_is_refused():
    df = pd.DataFrame({"age": [30.0, np.nan, np.nan, 30.0, 40.0],
                       "sex": ["F", None, None, "F", None]})
    ddf = dd.from_pandas(df, npartitions=2)
    assert_rows_equal(ddf.anon.risk(quasi_identifiers=["age", "sex"]),
                      df.anon.risk(quasi_identifiers=["age", "sex"]))
    assert_summary_equal(ddf.anon.risk_summary(quasi_identifiers=["age", "sex"]),
                         df.anon.risk_summary(quasi_identifiers=["age", "sex"]))
    with pytest.raises(InvalidInputError, match="missing='value'"):
        ddf.anon.risk_summary(quasi_identifiers=["age"], missing="wildcard")


def test_errors():
    ddf = dd.from_pandas(pd.DataFrame({"zip": [1, 1, 2]}), npartitions=2)
    with pytest.raises(InvalidInputError, match="must contain the sample"):
        pdd.risk_summary(ddf, ["zip"], population=pd.DataFrame({"zip": [1, 2, 2]}))
    with pytest.raises(InvalidInputError, match="must contain the sample"):
        pdd.record_risk(ddf, ["zip"], population=pd.DataFrame({"zip": [1, 2, 2]}))
    with pytest.raises(UnknownColumnError, match="lacks quasi-identifier"):
        pdd.risk_summary(ddf, ["zip"], population=pd.DataFrame({"other": [1]}))
    with pytest.raises(InvalidInputError, match="not both"):
        pdd.risk_summary(ddf, ["zip"], population=pd.DataFrame({"zip": [1]}),
                         sampling_fraction=0.1)
    with pytest.raises(InvalidInputError, match="sampling_fraction"):
        pdd.record_risk(ddf, ["zip"], sampling_fraction=1.5)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["a", "b", None])), min_size=1,
                max_size=40),
       st.integers(1, 4), st.integers(0, 5))
def test_random_tables_equal_pandas(rows, parts, extra):
    df = pd.DataFrame(rows, columns=["x", "y"])
    pop = pd.concat([df, df.iloc[:extra]], ignore_index=True)
    ddf = dd.from_pandas(df, npartitions=min(parts, len(df)))
    assert_rows_equal(pdd.record_risk(ddf, ["x", "y"], population=pop),
                      pm.record_risk(df, ["x", "y"], population=pop))
    assert_summary_equal(pdd.risk_summary(ddf, ["x", "y"], population=pop),
                         pm.risk_summary(df, ["x", "y"], population=pop))
    assert_summary_equal(pdd.risk_summary(ddf, ["x", "y"]), pm.risk_summary(df, ["x", "y"]))


def test_weights_and_households_equal_pandas():
    """weights= and household= on Dask give the pandas figures; the weight column is never
    matched on, and bad weights are refused with the count over the whole frame."""
    rng = np.random.default_rng(0)
    n = 2000
    df = pd.DataFrame({"a": rng.integers(0, 15, n), "b": rng.choice(["x", "y", "z"], n),
                       "w": rng.uniform(1, 300, n).round(1),
                       "hid": rng.integers(0, 800, n).astype(float)})
    df.loc[rng.random(n) < 0.05, "hid"] = np.nan
    ddf = dd.from_pandas(df, npartitions=4)
    for kw in (dict(weights="w"), dict(weights="w", household="hid"), dict(household="hid")):
        expected = df.anon.risk_summary(quasi_identifiers=["a", "b"], **kw)
        got = ddf.anon.risk_summary(quasi_identifiers=["a", "b"], **kw)
        assert list(got.index) == list(expected.index)
        np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=1e-12)
    rows = ddf.anon.risk(quasi_identifiers=["a", "b"], weights="w").compute()
    pd.testing.assert_frame_equal(rows, df.anon.risk(quasi_identifiers=["a", "b"],
                                                     weights="w"), check_dtype=False)
    bad = ddf.assign(w=ddf["w"] - 100)
    count = int((df["w"] - 100 < 1).sum())
    with pytest.raises(pdanon.InvalidInputError, match=f"not a sampling weight \\({count:,} "):
        bad.anon.risk_summary(quasi_identifiers=["a"], weights="w")
