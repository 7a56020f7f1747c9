"""Survey weights in the risk figures (pdanon.metrics.survey): sdcMicro's individual risk
(measure_risk / indivRisk, method "approx"), global risk, expected re-identifications and
household risk, on hand-computed tables, against the negative-binomial expectation they
approximate, and against a direct per-row transcription of the formulas."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.integrate import quad

import pdanon
from pdanon.metrics import record_risk, risk_summary
from pdanon.metrics.survey import household_risk, individual_risk


def expected_inverse(f: int, p: float) -> float:
    """E[1 / F | f] when F - f ~ NegBin(f, p): sum_h C(f+h-1, h) p^f (1-p)^h / (f + h),
    which is the integral over t in (0, 1) of (p t / (1 - (1 - p) t))^f / t."""
    return quad(lambda t: (p * t / (1 - (1 - p) * t)) ** f / t, 0, 1, limit=200)[0]


def test_hand_computed_table():
    df = pd.DataFrame({"sex": ["F", "M", "M", "X", "X", "X", "Y"],
                       "w": [10.0, 4.0, 6.0, 5.0, 5.0, 20.0, 1.0]})
    r = record_risk(df, ["sex"], weights="w")
    # F: a class of one with weight 10 (p = 0.1): 0.1 / 0.9 * ln 10
    # M: f = 2, F = 10 (p = 0.2): 0.25 - 0.25**2 * ln 5
    # X: f = 3, F = 30 (p = 0.1): 0.1 / (3 - 0.9);  Y: weight 1, F = f: 1 / f
    expected = [0.1 / 0.9 * math.log(10), 0.25 - 0.0625 * math.log(5),
                0.25 - 0.0625 * math.log(5), 0.1 / 2.1, 0.1 / 2.1, 0.1 / 2.1, 1.0]
    assert r["individual"].tolist() == pytest.approx(expected)
    assert r["population_size"].tolist() == [10, 10, 10, 30, 30, 30, 1]
    assert r["journalist"].tolist() == pytest.approx([0.1, 0.1, 0.1] + [1 / 30] * 3 + [1.0])
    assert "sum of the sampling weights 'w'" in r.attrs["journalist"]
    s = risk_summary(df, ["sex"], weights="w")
    assert s["global_risk"] == pytest.approx(np.mean(expected))
    assert s["expected_reidentifications"] == pytest.approx(np.sum(expected))
    assert s["highest_journalist_risk"] == 1.0


def test_closed_forms_are_the_expectation_and_the_approximation_is_close_above_it():
    for p in (0.01, 0.1, 0.3, 0.6, 0.9):
        for f in (1, 2):  # exact
            got = individual_risk(np.array([f]), np.array([f / p]))[0]
            assert got == pytest.approx(expected_inverse(f, p), rel=1e-7)
        for f in (3, 4, 5, 10, 30):  # the first term of the series: a little above it
            got = individual_risk(np.array([f]), np.array([f / p]))[0]
            exact = expected_inverse(f, p)
            assert exact <= got <= 1.05 * exact, (f, p, got, exact)


def test_unit_weights_give_the_prosecutor_risk():
    df = pd.DataFrame({"a": [1, 1, 2, 3, 3, 3], "w": 1.0})
    r = record_risk(df, ["a"], weights="w")
    assert r["individual"].tolist() == r["prosecutor"].tolist()


def test_wildcard_sums_the_weights_of_the_rows_a_row_matches():
    df = pd.DataFrame({"a": [1, 1, 2, None], "w": [2.0, 3.0, 4.0, 10.0]})
    r = record_risk(df, ["a"], weights="w", missing="wildcard")
    assert r["class_size"].tolist() == [3, 3, 2, 4]
    assert r["population_size"].tolist() == [15.0, 15.0, 14.0, 19.0]
    assert "class_id" not in r.columns


def test_household_risk_is_one_minus_the_product_over_its_members():
    df = pd.DataFrame({"a": ["x", "x", "y", "z"], "w": [20.0, 20.0, 1.0, 50.0],
                       "hid": [1, 2, 2, None]})
    r = record_risk(df, ["a"], weights="w", household="hid")
    ind = r["individual"].to_numpy()
    assert r["household"].tolist() == pytest.approx(
        [ind[0], 1 - (1 - ind[1]) * (1 - ind[2]), 1 - (1 - ind[1]) * (1 - ind[2]), ind[3]])
    assert r["household"].iloc[1] == 1.0  # a member sure to be found (y: weight 1, alone)
    s = risk_summary(df, ["a"], weights="w", household="hid")
    assert s["household_expected_reidentifications"] == pytest.approx(r["household"].sum())
    # without weights the household risk is built on 1 / f
    plain = record_risk(df, ["a"], household="hid")
    assert plain["household"].tolist() == pytest.approx([0.5, 1.0, 1.0, 1.0])
    assert household_risk(np.array([0.5, 0.5]), pd.Series([None, None])).tolist() == [0.5, 0.5]


def _direct(rows, weights):
    """The formulas of sdcMicro's indivRisk(method="approx"), row by row."""
    out = []
    for key in rows:
        f = sum(1 for other in rows if other == key)
        F = sum(w for other, w in zip(rows, weights) if other == key)
        p = f / F
        if f == F:
            out.append(1 / f)
        elif f == 1:
            out.append(p / (1 - p) * math.log(1 / p))
        elif f == 2:
            out.append(p / (1 - p) - (p / (1 - p)) ** 2 * math.log(1 / p))
        else:
            out.append(p / (f - (1 - p)))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from([0, 1]),
                          st.floats(1.0, 500.0)), min_size=1, max_size=40))
def test_vectorized_equals_the_formulas_row_by_row(data):
    df = pd.DataFrame(data, columns=["a", "b", "w"])
    r = record_risk(df, ["a", "b"], weights="w")
    assert r["individual"].tolist() == pytest.approx(
        _direct(list(zip(df["a"], df["b"])), df["w"].tolist()), rel=1e-9)
    assert ((r["individual"] > 0) & (r["individual"] <= 1 + 1e-12)).all()


def test_weights_reach_every_face_and_bad_weights_are_refused():
    df = pd.DataFrame({"sex": ["F", "F", "M", "M"], "age": [30, 30, 40, 40],
                       "w": [10.0, 30.0, 2.0, 2.0]})
    summary = df.anon.risk_summary(quasi_identifiers=["sex", "age"], weights="w")
    table = df.anon.metrics(quasi_identifiers=["sex", "age"], weights="w").set_index("metric")
    for key in ("global_risk", "expected_reidentifications", "highest_journalist_risk"):
        assert table.loc[key, "value"] == pytest.approx(summary[key])
    assert "(estimate)" in table.loc["highest_journalist_risk", "label"]
    # F is the sum of the class's weights, not f over a sampling fraction (none was given)
    for key in ("marketer_risk", "highest_journalist_risk", "average_journalist_risk"):
        assert table.loc[key, "meaning"].endswith("F = the sum of the sampling weights of the "
                                                  "class"), table.loc[key, "meaning"]
    fraction = df.anon.metrics(quasi_identifiers=["sex", "age"], sampling_fraction=0.5)
    assert fraction.set_index("metric").loc["marketer_risk", "meaning"].endswith(
        "F = f / sampling fraction")
    # the weight column is never matched on, even when no role is given
    assert df.anon.risk(weights="w")["class_size"].tolist() == [2, 2, 2, 2]
    with pytest.raises(pdanon.InvalidInputError, match="also a quasi-identifier"):
        record_risk(df, ["sex", "w"], weights="w")
    for bad, words in ((0.5, "not a sampling weight"), (np.nan, "not a sampling weight"),
                       (np.inf, "not a sampling weight")):
        with pytest.raises(pdanon.InvalidInputError, match=words):
            record_risk(df.assign(w=[10.0, bad, 2.0, 2.0]), ["sex"], weights="w")
    with pytest.raises(pdanon.InvalidInputError, match="holds str values"):
        record_risk(df.assign(w=["a", "b", "c", "d"]), ["sex"], weights="w")
    with pytest.raises(pdanon.UnknownColumnError, match="'weight' is not a column"):
        record_risk(df, ["sex"], weights="weight")
    with pytest.raises(pdanon.InvalidInputError, match="pass it alone"):
        risk_summary(df, ["sex"], weights="w", sampling_fraction=0.1)


def test_the_report_carries_the_weighted_figures():
    df = pdanon.datasets.make_patients(300, seed=3).assign(
        w=np.random.default_rng(1).uniform(1, 400, 300).round())
    roles = dict(quasi_identifiers={"zipcode": "unordered", "age": "real"},
                 sensitive=["disease"], insensitive=["w"])
    out = df.anon.k_anonymize(5, algorithm="mondrian", **roles)
    rep = out.anon.report(df, weights="w")
    expected = out.anon.risk_summary(quasi_identifiers=["zipcode", "age"], weights="w")
    assert rep.privacy["risk_summary"] == pytest.approx(expected.to_dict())
    page = rep.to_html()
    assert page.count("<td>expected re-identifications</td>") == 1
    assert "global risk (survey weights)" in page
