"""Population uniqueness estimators (pdanon.metrics.uniqueness): exact values on hand-checked
frequency tables, each model's equations checked by independent direct sums, Dankar's rule,
edge cases, and hypothesis properties."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

import pdanon  # noqa: F401  (registers df.anon)
from pdanon import metrics
from pdanon._errors import InvalidInputError
from pdanon.metrics import uniqueness as U

# classes of size 2, 1, 1, 3, 1: three sample uniques, one pair, one triple
SAMPLE = pd.DataFrame({"zip": [1, 1, 2, 3, 4, 4, 4, 5], "sex": list("FFMFMMMF")})
TABLE = {1: 3, 2: 1, 3: 1}
# a larger table on which both Pitman's and SNB's equations have roots
BIG = {1: 300, 2: 100, 3: 40, 4: 20, 10: 5, 50: 3}


def hypergeom_one(N: int, K: int, n: int) -> float:
    """P(exactly one of a class of K population rows is among n drawn of N), by counting."""
    return K * math.comb(N - K, n - 1) / math.comb(N, n)


def zayatz_by_hand(table: dict, fraction: float) -> float:
    n = sum(s * c for s, c in table.items())
    N = round(n / fraction)
    hits = {s: hypergeom_one(N, s, n) for s in table}
    c1 = table.get(1, 0)
    conditional = c1 * hits[1] / sum(c * hits[s] for s, c in table.items())
    return c1 * conditional / fraction / N


# ---------------------------------------------------------------------------- Zayatz


def test_zayatz_hand_checked():
    # N = 16, n = 8: P(one of s drawn) = s·C(16-s, 7)/C(16, 8) = 1/2, 8/15, 2/5 for s = 1, 2, 3;
    # population uniques = 3 · (3/2 / (3/2 + 8/15 + 2/5)) / 0.5 = 135/36.5; / N = 135/584
    assert zayatz_by_hand(TABLE, 0.5) == pytest.approx(135 / 584)
    m = U.uniqueness_models(TABLE, sampling_fraction=0.5)
    assert m.zayatz == pytest.approx(135 / 584, rel=1e-12)
    assert metrics.population_uniques(SAMPLE, ["zip"], sampling_fraction=0.5,
                                      estimator="zayatz") == pytest.approx(135 / 584)


@pytest.mark.parametrize("fraction", [0.01, 0.05, 0.1, 0.3, 0.5, 0.9])
def test_zayatz_matches_direct_formula(fraction):
    m = U.uniqueness_models(BIG, sampling_fraction=fraction)
    assert m.zayatz == pytest.approx(zayatz_by_hand(BIG, fraction), rel=1e-9)


# ---------------------------------------------------------------------------- Pitman


def pitman_sides(theta, alpha, table):
    """Both sides of Pitman's two likelihood equations, by plain loops (Hoshino 2001)."""
    n = sum(s * c for s, c in table.items())
    u = sum(table.values())
    a1 = sum(1 / (theta + i * alpha) for i in range(1, u))
    b1 = sum(1 / (theta + i) for i in range(1, n))
    a2 = sum(i / (theta + i * alpha) for i in range(1, u))
    b2 = sum(c * sum(1 / (j - alpha) for j in range(1, s)) for s, c in table.items())
    return (a1, b1), (a2, b2)


@pytest.mark.parametrize("fraction", [0.01, 0.1])
def test_pitman_solves_its_likelihood_equations(fraction):
    m = U.uniqueness_models(BIG, sampling_fraction=fraction)
    theta, alpha = m.pitman_parameters
    assert theta + alpha > 0 and alpha < 1
    for lhs, rhs in pitman_sides(theta, alpha, BIG):
        assert lhs == pytest.approx(rhs, rel=1e-7)
    N = 900 / fraction
    expected = math.exp(math.lgamma(theta + 1) - math.lgamma(theta + alpha)) * N ** alpha / N
    assert m.pitman == pytest.approx(expected, rel=1e-9)
    # the parameters do not depend on the fraction; the estimate does (through N)
    other = U.uniqueness_models(BIG, sampling_fraction=0.3).pitman_parameters
    assert other == pytest.approx((theta, alpha), rel=1e-6)


def crp_labels(rows: int, theta: float, alpha: float, seed: int) -> np.ndarray:
    """A partition drawn from Pitman's model (Chinese restaurant process), plain loop."""
    rng = np.random.default_rng(seed)
    label, size = np.zeros(rows, dtype=np.int64), []
    for i in range(rows):
        if rng.random() * (theta + i) < theta + len(size) * alpha:
            label[i] = len(size)
            size.append(1)
            continue
        while True:
            k = label[rng.integers(i)]
            if rng.random() * size[k] < size[k] - alpha:
                break
        label[i] = k
        size[k] += 1
    return label


def test_pitman_recovers_a_pitman_population():
    pop = crp_labels(20_000, 300.0, 0.6, seed=3)
    F = np.bincount(pop)[pop]
    sample = pd.DataFrame({"c": pop[np.random.default_rng(4).choice(20_000, 2_000, replace=False)]})
    est = metrics.population_uniques(sample, ["c"], sampling_fraction=0.1, estimator="all")
    theta, alpha = U.uniqueness_models(U.class_size_counts(sample, ["c"]),
                                       sampling_fraction=0.1).pitman_parameters
    assert alpha == pytest.approx(0.6, abs=0.1)
    assert est["pitman"] == pytest.approx(np.mean(F == 1), rel=0.15)
    assert est.attrs["dankar_model"] == "pitman" and est["dankar"] == est["pitman"]


def test_pitman_without_a_root_is_nan_with_a_reason():
    m = U.uniqueness_models(TABLE, sampling_fraction=0.05)
    assert np.isnan(m.pitman) and "Pitman" in m.notes["pitman"]
    assert m.dankar_model == "zayatz" and m.dankar == m.zayatz  # Dankar's fallback
    with pytest.warns(UserWarning, match="no pitman estimate"):
        assert np.isnan(U.population_uniques_from_counts(TABLE, sampling_fraction=0.05,
                                                         estimator="pitman"))


# ---------------------------------------------------------------------------- SNB


def shlosser_by_hand(table, q):
    u = sum(table.values())
    c1 = table.get(1, 0)
    a = sum(s * q * q * (1 - q * q) ** (s - 1) * c for s, c in table.items())
    b = sum(((1 - q) ** s) * ((1 + q) ** s - 1) * c for s, c in table.items())
    e = sum((1 - q) ** s * c for s, c in table.items())
    g = sum(s * q * (1 - q) ** (s - 1) * c for s, c in table.items())
    return u + c1 * (a / b) * (e / g) ** 2


def snb_expected_by_sum(K, q, alpha, beta, top=20_000):
    """Expected sample uniques and pairs by summing over population class sizes 1 + NB."""
    j = np.arange(1, top)
    pF = stats.nbinom.pmf(j - 1, alpha, beta)
    return (K * np.sum(pF * stats.binom.pmf(1, j, q)), K * np.sum(pF * stats.binom.pmf(2, j, q)))


@pytest.mark.parametrize("fraction", [0.3, 0.5, 0.8])
def test_snb_matches_its_model(fraction):
    m = U.uniqueness_models(BIG, sampling_fraction=fraction)
    K, alpha, beta = m.snb_parameters
    assert K == pytest.approx(shlosser_by_hand(BIG, fraction), rel=1e-12)
    e1, e2 = snb_expected_by_sum(K, fraction, alpha, beta)
    assert e1 == pytest.approx(300, rel=1e-6) and e2 == pytest.approx(100, rel=1e-6)
    assert m.snb == pytest.approx(K * beta ** alpha / (900 / fraction), rel=1e-9)


def test_snb_needs_pairs():
    m = U.uniqueness_models({1: 10, 3: 4}, sampling_fraction=0.5)
    assert np.isnan(m.snb) and "size 2" in m.notes["snb"]
    assert m.dankar_model == "zayatz"


# ---------------------------------------------------------------------------- Dankar


def test_dankar_rule():
    small = U.uniqueness_models(BIG, sampling_fraction=0.1)  # at 0.1 the rule takes Pitman
    assert small.dankar_model == "pitman" and small.dankar == small.pitman
    for fraction in (0.2, 0.5, 0.9):
        m = U.uniqueness_models(BIG, sampling_fraction=fraction)
        assert m.dankar == min(m.zayatz, m.snb)
        assert m.dankar_model == ("snb" if m.snb <= m.zayatz else "zayatz")
    assert U.DANKAR_SMALL_FRACTION == 0.1


# ---------------------------------------------------------------------------- edge cases


def test_no_sample_uniques_gives_zero():
    m = U.uniqueness_models({2: 5, 7: 1}, sampling_fraction=0.1)
    assert (m.pitman, m.zayatz, m.snb, m.dankar) == (0.0, 0.0, 0.0, 0.0)
    df = pd.DataFrame({"a": [1, 1, 2, 2]})
    assert metrics.population_uniques(df, ["a"], sampling_fraction=0.01) == 0.0


def test_all_sample_uniques():
    m = U.uniqueness_models({1: 50}, sampling_fraction=0.05)
    # Zayatz: every class of the sample is a unique, so every sample unique is taken for a
    # population unique and the population (50 / 0.05 rows) is all uniques
    assert m.zayatz == pytest.approx(1.0) and m.dankar == pytest.approx(1.0)
    assert np.isnan(m.pitman) and np.isnan(m.snb)


def test_fraction_one_is_the_sample_itself():
    est = metrics.population_uniques(SAMPLE, ["zip"], sampling_fraction=1, estimator="all")
    assert est.tolist() == [3 / 8] * 4 and est.attrs["dankar_model"] == "exact"


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, True, "0.1", None, float("nan")])
def test_invalid_fraction(bad):
    with pytest.raises(InvalidInputError, match="sampling_fraction"):
        metrics.population_uniques(SAMPLE, ["zip"], sampling_fraction=bad)
    with pytest.raises(InvalidInputError, match="sampling_fraction"):
        U.uniqueness_models(TABLE, sampling_fraction=bad)


def test_sampling_fraction_is_required_and_keyword_only():
    with pytest.raises(TypeError):
        metrics.population_uniques(SAMPLE, ["zip"])
    with pytest.raises(TypeError):
        metrics.population_uniques(SAMPLE, ["zip"], 0.1)


def test_invalid_estimator_and_counts():
    with pytest.raises(InvalidInputError, match="estimator must be one of"):
        metrics.population_uniques(SAMPLE, ["zip"], sampling_fraction=0.1, estimator="arx")
    for bad in ([1, 2, 3], {0: 3}, {1.5: 2}, {1: -1}, {1: 2.5}, {"a": 1}):
        with pytest.raises(InvalidInputError, match="size_counts|class size"):
            U.uniqueness_models(bad, sampling_fraction=0.1)


def test_empty_frame():
    empty = SAMPLE.iloc[:0]
    assert metrics.population_uniques(empty, ["zip"], sampling_fraction=0.1) == 0.0
    assert U.uniqueness_models({}, sampling_fraction=0.1).dankar_model == "none"


def test_missing_is_a_value_of_its_own():
    holey = pd.DataFrame({"a": [1.0, None, None, 2.0, 2.0, 3.0], "b": ["x", None, None, "y",
                                                                     "y", None]})
    filled = holey.fillna({"a": -1.0, "b": "?"})
    before = holey.copy()
    assert U.class_size_counts(holey, ["a", "b"]).to_dict() == {1: 2, 2: 2}
    got = metrics.population_uniques(holey, ["a", "b"], sampling_fraction=0.2, estimator="all")
    pd.testing.assert_series_equal(got, metrics.population_uniques(
        filled, ["a", "b"], sampling_fraction=0.2, estimator="all"))
    pd.testing.assert_frame_equal(holey, before)  # input never mutated


def test_wildcard_is_refused_with_a_teaching_error():
    with pytest.raises(InvalidInputError, match="equivalence classes.*missing='value'"):
        metrics.population_uniques(SAMPLE, ["zip"], sampling_fraction=0.1, missing="wildcard")
    with pytest.raises(InvalidInputError, match="missing must be"):
        metrics.population_uniques(SAMPLE, ["zip"], sampling_fraction=0.1, missing="skip")


def test_counts_helpers_agree_with_pandas():
    counts = U.class_size_counts(SAMPLE, ["zip", "sex"])
    expected = SAMPLE.groupby(["zip", "sex"]).size().value_counts().sort_index()
    assert counts.to_dict() == expected.to_dict()
    assert U.population_uniques_from_counts(expected, sampling_fraction=0.5) == \
        metrics.population_uniques(SAMPLE, ["zip", "sex"], sampling_fraction=0.5)


# ---------------------------------------------------------------------------- risk_summary


def test_risk_summary_reports_dankar_with_a_sampling_fraction():
    s = metrics.risk_summary(SAMPLE, ["zip"], sampling_fraction=0.5)
    assert s.index[-1] == "population_uniques"
    assert s["population_uniques"] == pytest.approx(
        metrics.population_uniques(SAMPLE, ["zip"], sampling_fraction=0.5))
    assert "population_uniques" not in metrics.risk_summary(SAMPLE, ["zip"])
    pop = pd.concat([SAMPLE, SAMPLE])
    assert "population_uniques" not in metrics.risk_summary(SAMPLE, ["zip"], population=pop)
    wild = metrics.risk_summary(SAMPLE, ["zip"], sampling_fraction=0.5, missing="wildcard")
    assert "population_uniques" not in wild
    table = metrics.metrics_table(SAMPLE, quasi_identifiers=["zip"], sampling_fraction=0.5)
    row = table.set_index("metric").loc["population_uniques"]
    assert row["value"] == pytest.approx(s["population_uniques"]) and row["better"] == "lower"
    assert "Dankar" in row["meaning"]


# ---------------------------------------------------------------------------- properties


tables = st.dictionaries(st.integers(1, 60), st.integers(0, 400), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(tables, st.sampled_from([0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.99]))
def test_estimates_are_shares(table, fraction):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warnings leak out
        m = U.uniqueness_models(table, sampling_fraction=fraction)
    for value in (m.pitman, m.zayatz, m.snb, m.dankar):
        assert np.isnan(value) or 0.0 <= value <= 1.0
    assert not np.isnan(m.dankar) and not np.isnan(m.zayatz)
    if table.get(1, 0) == 0:
        assert m.dankar == 0.0


@settings(max_examples=40, deadline=None)
@given(tables)
def test_fraction_one_is_exact(table):
    n = sum(s * c for s, c in table.items())
    est = U.population_uniques_from_counts(table, sampling_fraction=1.0, estimator="all")
    expected = table.get(1, 0) / n if n else 0.0
    assert est.tolist() == pytest.approx([expected] * 4)
