"""Dask metrics with missing quasi-identifier and sensitive cells: equal to the pandas figures
under ``missing="value"`` and ``missing="wildcard"``, whatever the partitioning."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

import pdanon.dask as pdd  # noqa: E402
from pdanon import metrics as pm  # noqa: E402
from pdanon._errors import InvalidInputError  # noqa: E402
from pdanon.dtype import GeneralizationRange as R  # noqa: E402

D1, D2 = pd.Timestamp("2020-01-01"), pd.Timestamp("2021-06-30")
QIS = ["age", "sex", "date"]


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def keys_table() -> pd.DataFrame:
    """r0 (30, F, D1) r1 (30, _, D1) r2 (_, F, _) r3 (40, _, D2) r4 (_, _, _) r5 (_, _, _);
    the sensitive column mixes None, NaN and pd.NA."""
    return pd.DataFrame({
        "age": [30.0, 30.0, np.nan, 40.0, np.nan, np.nan],
        "sex": pd.Series(["F", None, "F", pd.NA, np.nan, None], dtype=object),
        "date": pd.Series([D1, D1, pd.NaT, D2, pd.NaT, pd.NaT]),
        "d": pd.Series(["x", None, "x", pd.NA, np.nan, "y"], dtype=object),
    })


@pytest.mark.parametrize("parts", [1, 2, 3])
def test_k_under_each_mode_equals_the_hand_figures(parts):
    ddf = dd.from_pandas(keys_table(), npartitions=parts)
    # value: the blank rows r4, r5 are the only class of two; wildcard: r3 matches r2..r5 (see
    # tests/metrics/test_missing.py)
    assert pdd.k_anonymity(ddf, QIS) == 1
    assert pdd.k_anonymity(ddf, QIS, missing="wildcard") == 4
    table = pdd.metrics(ddf, QIS, ["d"], missing="wildcard")
    assert table["metric"].tolist() == ["k_anonymity_wildcard"]
    assert table["value"].tolist() == [4.0]


@pytest.mark.parametrize("parts", [1, 3])
def test_value_mode_metrics_with_missing_cells_equal_pandas(parts):
    df = keys_table()
    ddf = dd.from_pandas(df, npartitions=parts)
    got = pdd.metrics(ddf, QIS, ["d"]).set_index("metric")["value"].drop("discernibility")
    want = pm.metrics_table(df, quasi_identifiers=QIS, sensitive=["d"]).set_index(
        "metric")["value"]
    pd.testing.assert_series_equal(got, want, check_exact=False, rtol=1e-12)
    # class {r4, r5} holds d = (_, y): None, NaN and pd.NA are one value
    value = dict(missing_sensitive="value")
    assert pdd.l_diversity(ddf, QIS, ["d"], **value) == pm.l_diversity(df, QIS, ["d"],
                                                                      **value) == 1
    # by default a blank is no value: class {r3} holds d = <NA> alone, so l = 0
    assert pdd.l_diversity(ddf, QIS, ["d"]) == pm.l_diversity(df, QIS, ["d"]) == 0
    for rule in ("unknown", "value"):
        assert pdd.t_closeness(ddf, QIS, ["d"], missing_sensitive=rule) == pytest.approx(
            pm.t_closeness(df, QIS, ["d"], missing_sensitive=rule), abs=1e-12)
    assert sorted(pdd.class_sizes(ddf, QIS).compute().tolist()) == [1, 1, 1, 1, 2]


@pytest.mark.slow
def test_generalized_cells_under_wildcard():
    df = pd.DataFrame({
        "a": pd.Series([R(1, 3, "real"), R(1, 3, "real"), None, 2, None],
                       dtype="generalization[real]"),
        "b": pd.Series([R(column_type="unordered", column_values=["x", "y"]), None, "x", "x", "y"],
                       dtype="generalization[unordered]"),
        "c": pd.Categorical(["u", None, "u", "v", None]),
    })
    q = ["a", "b", "c"]
    # frequencies 2, 4, 2, 1, 2 (r3 = (2, x, v) matches no other row)
    assert pm.frequencies(df, q, missing="wildcard").tolist() == [2, 4, 2, 1, 2]
    for parts in (1, 2):
        assert pdd.k_anonymity(dd.from_pandas(df, npartitions=parts), q,
                               missing="wildcard") == 1
    without_r3 = df.drop(index=3)
    assert pdd.k_anonymity(dd.from_pandas(without_r3, npartitions=2), q,
                           missing="wildcard") == 2


def test_class_measures_refuse_wildcard_and_empty_frames():
    ddf = dd.from_pandas(keys_table(), npartitions=2)
    for call in (lambda: pdd.l_diversity(ddf, QIS, ["d"], missing="wildcard"),
                 lambda: pdd.t_closeness(ddf, QIS, ["d"], missing="wildcard"),
                 lambda: pdd.class_sizes(ddf, QIS, missing="wildcard"),
                 lambda: pdd.average_class_size(ddf, QIS, missing="wildcard"),
                 lambda: pdd.discernibility(ddf, QIS, missing="wildcard")):
        with pytest.raises(InvalidInputError, match="disjoint equivalence classes"):
            call()
    with pytest.raises(InvalidInputError, match="missing must be"):
        pdd.k_anonymity(ddf, QIS, missing="wild")
    empty = dd.from_pandas(keys_table().iloc[:0], npartitions=1)
    assert pdd.k_anonymity(empty, QIS, missing="wildcard") == 0
    assert pdd.k_anonymity(ddf, [], missing="wildcard") == 6


@st.composite
def tables(draw):
    n = draw(st.integers(1, 20))
    q = draw(st.integers(1, 3))
    cells = st.one_of(st.integers(0, 2), st.sampled_from([None, np.nan, pd.NA]))
    return pd.DataFrame({f"c{j}": pd.Series(draw(st.lists(cells, min_size=n, max_size=n)),
                                            dtype=object) for j in range(q)})


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.integers(1, 3))
def test_wildcard_k_equals_pandas(df, parts):
    cols = list(df.columns)
    ddf = dd.from_pandas(df, npartitions=parts)
    assert pdd.k_anonymity(ddf, cols, missing="wildcard") == pm.k_anonymity(
        df, cols, missing="wildcard")


def test_the_dask_accessor_passes_missing_through():
    df = pd.DataFrame({"a": [1, 1, np.nan, 2, 2], "b": ["x", None, "x", "y", "y"]})
    ddf = dd.from_pandas(df, npartitions=2)
    assert ddf.anon.k_anonymity() == df.anon.k_anonymity() == 1
    # wildcard: (1, x), (1, NA) and (NA, x) all match one another (3 each); (2, y) twice
    assert ddf.anon.k_anonymity(missing="wildcard") == 2
    assert df.anon.k_anonymity(missing="wildcard") == 2
    with pytest.raises(InvalidInputError, match="wildcard"):
        ddf.anon.discernibility(missing="wildcard")
