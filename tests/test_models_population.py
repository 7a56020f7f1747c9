"""k-map, δ-presence, highest and average risk (pdanon/models/population.py, risk.py)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from pdanon._errors import InvalidInputError, UnknownColumnError
from pdanon.hierarchy import intervals, masking
from pdanon.models import (AllOf, AverageRisk, DeltaPresence, EstimatedKMap, HighestRisk,
                           KAnonymity, KMap, delta_presence, derived_k, k_map)

QI = ["zip", "age"]
H = {"zip": masking(), "age": intervals([5, 10, 20])}


def _population(seed=0, n=300):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"zip": rng.choice(["10001", "10002", "10011", "10012", "10021"], n),
                         "age": rng.integers(20, 60, n)})


POP = _population()
SAMPLE = POP.sample(60, random_state=1)


# --------------------------------------------------------------------------- measures

def test_k_map_and_delta_presence_hand_checked():
    sample = pd.DataFrame({"zip": [1, 1, 2, 3], "sex": ["F", "F", "M", "M"]})
    pop = pd.DataFrame({"zip": [1, 1, 1, 2, 2, 3, 3, 3, 3, 4],
                        "sex": ["F", "F", "F", "M", "M", "M", "M", "M", "M", "F"]})
    # F per class: (1,F)=3, (2,M)=2, (3,M)=4
    assert k_map(sample, ["zip", "sex"], population=pop) == 2
    # δ: 2/3, 1/2, 1/4 and (4,F) with no sample row: 0
    assert delta_presence(sample, ["zip", "sex"], population=pop) == (0.0, 2 / 3)
    assert sample.anon.k_map(population=pop, quasi_identifiers=["zip", "sex"]) == 2
    assert KMap(2, population=pop).holds(sample, ["zip", "sex"])
    assert not KMap(3, population=pop).holds(sample, ["zip", "sex"])
    assert DeltaPresence(0, 2 / 3, population=pop).holds(sample, ["zip", "sex"])
    assert not DeltaPresence(0, 0.6, population=pop).holds(sample, ["zip", "sex"])
    assert not DeltaPresence(0.1, 1, population=pop).holds(sample, ["zip", "sex"])
    assert DeltaPresence(0.1, 1, population=pop.iloc[:9]).holds(sample, ["zip", "sex"])


def test_missing_cells_are_a_value_of_their_own():
    sample = pd.DataFrame({"age": [30.0, np.nan], "sex": ["F", "F"]})
    pop = pd.DataFrame({"age": [30.0, 30.0, np.nan, 40.0], "sex": ["F", "F", "F", "M"]})
    assert k_map(sample, ["age", "sex"], population=pop) == 1  # (NaN, F) matches one row
    assert k_map(sample, ["age", "sex"], population=pop, missing="wildcard") == 3
    assert delta_presence(sample, ["age", "sex"], population=pop) == (0.0, 1.0)


def test_a_row_that_publishes_no_quasi_identifier_could_be_anyone():
    # every quasi-identifier blank (a suppressed row, or one missing them all): it matches
    # every population row, as the engine verifies the suppressed rows' class
    sample = pd.DataFrame({"age": [30.0, np.nan]})
    pop = pd.DataFrame({"age": [30.0, 30.0, np.nan, 40.0]})
    assert k_map(sample, ["age"], population=pop) == 2  # 30: two rows; blank: all four
    assert delta_presence(sample, ["age"], population=pop) == (0.25, 0.5)


def test_population_must_contain_the_sample_and_hold_the_columns():
    sample = pd.DataFrame({"zip": [1, 1, 2]})
    with pytest.raises(InvalidInputError, match="must contain the sample"):
        k_map(sample, ["zip"], population=pd.DataFrame({"zip": [1, 2, 2]}))
    with pytest.raises(UnknownColumnError, match="lacks quasi-identifier"):
        delta_presence(sample, ["zip"], population=pd.DataFrame({"z": [1]}))
    with pytest.raises(InvalidInputError, match="must contain the sample"):
        sample.anon.anonymize(KMap(2, population=pd.DataFrame({"zip": [1, 2]})),
                              algorithm="optimal", quasi_identifiers=["zip"])


# --------------------------------------------------------------------------- the estimator

def _arx_loop(k, pi, alpha, estimator):
    """ARX's loops (KMap.calculateKPoisson / calculateKZeroPoisson) with scipy."""
    lam = pi * k
    counter, value = (0, 0.0) if estimator == "poisson" else (1, 0.0)
    p0 = stats.poisson.pmf(0, lam)
    while value < 1 - alpha:
        if estimator == "poisson":
            value = stats.poisson.cdf(counter, lam)
        else:
            value += stats.poisson.pmf(counter, lam) / (1 - p0)
        counter += 1
        if counter >= k:
            value = 1.0
            break
    return min(k, counter + 1 if estimator == "poisson" else counter)


@pytest.mark.parametrize("estimator", ["poisson", "zero_truncated_poisson"])
@pytest.mark.parametrize("k,pi,alpha", [(10, 0.1, 0.01), (5, 0.01, 0.05), (50, 0.3, 0.01),
                                        (3, 0.5, 0.1), (100, 0.02, 0.001), (1, 0.5, 0.01)])
def test_derived_k_matches_the_formula_and_arx(estimator, k, pi, alpha):
    got = derived_k(k, pi, estimator=estimator, significance=alpha)
    # independently: the smallest c with P(X <= c) >= 1 - alpha
    lam = pi * k
    if estimator == "poisson":
        c = int(stats.poisson.ppf(1 - alpha, lam))
        expected = min(k, c + 2)
    else:
        c = 1
        while (stats.poisson.cdf(c, lam) - stats.poisson.pmf(0, lam)) / (
                1 - stats.poisson.pmf(0, lam)) < 1 - alpha - 1e-12:
            c += 1
        expected = min(k, c + 1)
    assert got == max(expected, 1)
    assert got == max(_arx_loop(k, pi, alpha, estimator), 1)


def test_estimated_kmap_is_k_anonymity_with_the_derived_k():
    m = KMap(10, sampling_fraction=0.1)
    assert isinstance(m, EstimatedKMap) and isinstance(m, KMap) and isinstance(m, KAnonymity)
    assert m.k == 6 and m.requirements().min_size == 6 and m.requirements().exact
    m = KMap(10, population_size=600)  # 60 rows of 600: π = 0.1
    out = SAMPLE.anon.anonymize(m, algorithm="mondrian", quasi_identifiers=QI)
    assert m.k == 6 and out.anon.info["achieved"]["k"] >= 6
    assert out.anon.info["params"]["population_size"] == 600


# --------------------------------------------------------------------------- enforcement

def _brute_force(sample, out, pop, levels, hierarchies=H):
    """(sample rows, population rows) per class of the population generalized with
    ``levels``, and which published classes they are (published rows only)."""
    def gen(frame):
        cols = {}
        for c in QI:
            h = hierarchies[c]
            cols[c] = h.map(frame[c].reset_index(drop=True), levels[c]).astype(str)
        return pd.DataFrame(cols)
    kept = out[QI].notna().any(axis=1).to_numpy()
    s = gen(sample[kept]).value_counts()
    p = gen(pop).value_counts()
    joined = pd.concat([s.rename("s"), p.rename("p")], axis=1).fillna(0)
    return joined["s"].to_numpy(), joined["p"].to_numpy()


@pytest.mark.parametrize("model", [KMap(12, population=POP),
                                   DeltaPresence(0.0, 0.25, population=POP),
                                   DeltaPresence(0.1, 0.4, population=POP),
                                   AllOf(KAnonymity(2), KMap(8, population=POP))])
@pytest.mark.parametrize("budget", [0, 6])
def test_optimal_meets_population_models_checked_by_brute_force(model, budget):
    out = SAMPLE.anon.anonymize(model, algorithm="optimal", hierarchies=H,
                                quasi_identifiers=QI, max_suppressed_rows=budget, row_order="input")
    assert out.anon.info["suppressed_rows"] <= budget
    s, p = _brute_force(SAMPLE, out, POP, out.anon.info["levels"])
    assert (p >= s).all()
    for part in model.parts():
        if isinstance(part, KMap):
            assert p[s > 0].min() >= part.k
        if isinstance(part, DeltaPresence):
            delta = s / p
            assert delta.max() <= part.delta_max + 1e-12
            assert delta.min() >= part.delta_min - 1e-12


def test_optimal_meets_average_risk():
    for threshold in (0.3, 0.1):
        out = SAMPLE.anon.anonymize(AverageRisk(threshold), algorithm="optimal",
                                    hierarchies=H, quasi_identifiers=QI)
        sizes = out.groupby(QI, dropna=False, observed=True).size()
        assert len(sizes) / sizes.sum() <= threshold
        assert out.anon.info["achieved"]["average_risk"] == pytest.approx(
            len(sizes) / sizes.sum())
    out = SAMPLE.anon.anonymize(AverageRisk(0.2, max_risk=0.25), algorithm="optimal",
                                hierarchies=H, quasi_identifiers=QI, max_suppressed_rows=5)
    kept = out[out[QI].notna().any(axis=1)]
    sizes = kept.groupby(QI, dropna=False, observed=True).size()
    assert sizes.min() >= 4 and len(sizes) / sizes.sum() <= 0.2


@pytest.mark.parametrize("algorithm", ["mondrian", "group_join", "datafly", "optimal",
                                       "nearest", "equal_groups"])
@pytest.mark.parametrize("model", [HighestRisk(0.2), KMap(10, sampling_fraction=0.2)])
def test_size_models_work_with_every_partitioner(algorithm, model):
    opts = {"hierarchies": H} if algorithm == "optimal" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = SAMPLE.anon.anonymize(model, algorithm=algorithm, quasi_identifiers=QI, **opts)
    sizes = out.groupby(QI, dropna=False, observed=True).size()
    assert sizes.min() >= model.k
    assert out.anon.info["achieved"]["k"] >= model.k


def test_highest_risk_is_k_anonymity_with_ceil_one_over_r():
    assert HighestRisk(0.2).k == 5 and HighestRisk(0.3).k == 4 and HighestRisk(1).k == 1
    assert HighestRisk(0.1999).k == 6  # never a risk above what was asked
    out = SAMPLE.anon.anonymize(HighestRisk(0.2), algorithm="mondrian", quasi_identifiers=QI)
    assert out.anon.info["achieved"]["highest_risk"] <= 0.2
    assert out.anon.risk_summary()["highest_prosecutor_risk"] <= 0.2


@pytest.mark.parametrize("algorithm", ["datafly", "nearest", "equal_groups"])
@pytest.mark.parametrize("model", [KMap(3, population=POP), AverageRisk(0.2),
                                   DeltaPresence(0, 0.5, population=POP)])
def test_other_partitioners_refuse_population_and_table_models(algorithm, model):
    with pytest.raises(InvalidInputError, match="'optimal'"):
        SAMPLE.anon.anonymize(model, algorithm=algorithm, quasi_identifiers=QI)


@pytest.mark.parametrize("algorithm", ["mondrian", "group_join"])
@pytest.mark.parametrize("model", [AverageRisk(0.2), DeltaPresence(0.1, 0.5, population=POP)])
def test_local_recoders_refuse_table_models(algorithm, model):
    with pytest.raises(InvalidInputError, match="algorithm='optimal'"):
        SAMPLE.anon.anonymize(model, algorithm=algorithm, quasi_identifiers=QI)


def test_auto_chooses_for_population_models():
    out = SAMPLE.anon.anonymize(KMap(5, population=POP), quasi_identifiers=QI,
                                hierarchies={"zip": masking(), "age": intervals([5, 10])})
    assert out.anon.info["algorithm"] == "optimal"
    assert out.anon.info["achieved"]["k_map"] >= 5
    out = SAMPLE.anon.anonymize(KMap(5, population=POP), quasi_identifiers=QI)
    assert out.anon.info["algorithm"] == "mondrian"  # no hierarchies: local recoding
    assert out.anon.info["achieved"]["k_map"] >= 5


def test_delta_min_cannot_be_met_by_suppression():
    # a population class without sample rows at every node but the top has delta 0
    pop = pd.concat([SAMPLE, pd.DataFrame({"zip": ["99999"] * 5, "age": [99] * 5})])
    hierarchies = {"zip": masking(), "age": intervals([100])}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one class is the only answer
        out = SAMPLE.anon.anonymize(DeltaPresence(0.01, 1, population=pop),
                                    algorithm="optimal", hierarchies=hierarchies,
                                    quasi_identifiers=QI, max_suppressed_rows=10)
    assert out.anon.info["levels"]["zip"] == 5  # only the top joins 99999 to the sample
    s, p = _brute_force(SAMPLE, out, pop, out.anon.info["levels"], hierarchies)
    assert (s > 0).all() and (s / p).min() >= 0.01


def test_population_values_unknown_to_the_sample_are_published_in_sets():
    sample = pd.DataFrame({"zip": ["10001", "10002"] * 2})
    pop = pd.concat([sample, pd.DataFrame({"zip": ["10003"] * 4})], ignore_index=True)
    out = sample.anon.anonymize(KMap(4, population=pop), algorithm="optimal",
                                hierarchies={"zip": masking()}, quasi_identifiers=["zip"])
    assert set(out["zip"].astype(str)) == {"{10001, 10002, 10003}"}


def test_input_frames_are_not_mutated():
    pop, sample = POP.copy(), SAMPLE.copy()
    SAMPLE.anon.anonymize(KMap(10, population=POP), algorithm="optimal", hierarchies=H,
                          quasi_identifiers=QI)
    pd.testing.assert_frame_equal(POP, pop)
    pd.testing.assert_frame_equal(SAMPLE, sample)


# --------------------------------------------------------------------------- parameters

@pytest.mark.parametrize("make,name", [
    (lambda: KMap(0, population=POP), "k"),
    (lambda: KMap(3), "sampling_fraction"),
    (lambda: KMap(3, sampling_fraction=0.1, population_size=10), "population_size"),
    (lambda: KMap(3, population=POP, sampling_fraction=0.1), "population="),
    (lambda: KMap(3, sampling_fraction=1.5), "sampling_fraction"),
    (lambda: KMap(3, sampling_fraction=0.1, significance=0), "significance"),
    (lambda: KMap(3, sampling_fraction=0.1, significance=1), "significance"),
    (lambda: KMap(3, sampling_fraction=0.1, estimator="binomial"), "estimator"),
    (lambda: DeltaPresence(0.5, 0.2, population=POP), "delta_min"),
    (lambda: DeltaPresence(-0.1, 0.2, population=POP), "delta_min"),
    (lambda: DeltaPresence(0, 1.2, population=POP), "delta_max"),
    (lambda: DeltaPresence(0, 0.5, population=[1, 2]), "population"),
    (lambda: HighestRisk(0), "max_risk"),
    (lambda: HighestRisk(1.5), "max_risk"),
    (lambda: AverageRisk(-1), "threshold"),
    (lambda: AverageRisk(0.1, records_at_risk=0.1), "max_risk"),
])
def test_invalid_parameters_name_the_parameter(make, name):
    with pytest.raises(InvalidInputError, match=name):
        make()


def test_population_lacking_a_column_is_refused():
    with pytest.raises(UnknownColumnError, match="lacks quasi-identifier"):
        SAMPLE.anon.anonymize(KMap(3, population=POP[["zip"]]), algorithm="optimal",
                              quasi_identifiers=QI)


def test_k_larger_than_population_is_refused():
    with pytest.raises(InvalidInputError, match="larger than the population"):
        SAMPLE.anon.anonymize(KMap(301, population=POP), algorithm="optimal",
                              quasi_identifiers=QI)


# --------------------------------------------------------------------------- properties

@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=25),
       st.lists(st.integers(0, 4), min_size=0, max_size=25))
def test_measures_agree_with_counting(sample_values, extra):
    sample = pd.DataFrame({"a": sample_values})
    pop = pd.DataFrame({"a": sample_values + extra})
    s = sample["a"].value_counts()
    p = pop["a"].value_counts()
    assert k_map(sample, ["a"], population=pop) == int(p[s.index].min())
    lo, hi = delta_presence(sample, ["a"], population=pop)
    d = (s.reindex(p.index, fill_value=0) / p)
    assert lo == pytest.approx(d.min()) and hi == pytest.approx(d.max())
    k = int(p[s.index].min())
    assert KMap(k, population=pop).holds(sample, ["a"])
    assert not KMap(k + 1, population=pop).holds(sample, ["a"])


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 200), st.floats(0.001, 0.999), st.floats(0.001, 0.5),
       st.sampled_from(["poisson", "zero_truncated_poisson"]))
def test_derived_k_is_between_one_and_k(k, pi, alpha, estimator):
    got = derived_k(k, pi, estimator=estimator, significance=alpha)
    assert 1 <= got <= k
    assert got == max(_arx_loop(k, pi, alpha, estimator), 1)


# --------------------------------------------------------------------------- accessor keywords

@pytest.mark.parametrize("algorithm", ["mondrian", "nearest", "datafly"])
def test_max_risk_keyword_raises_k_to_the_ceiling_of_one_over_r(algorithm):
    out = SAMPLE.anon.k_anonymize(2, max_risk=0.25, algorithm=algorithm, quasi_identifiers=QI)
    # 1 / 0.25 = 4 rows per class at least, although k=2 was asked; rows whose every
    # quasi-identifier was suppressed (datafly's budget) publish nothing and form no class
    published = out.dropna(subset=QI, how="all")
    sizes = published.groupby(QI, dropna=False, observed=True).size()
    assert sizes.min() >= 4
    assert published.anon.risk_summary(quasi_identifiers=QI)["highest_prosecutor_risk"] <= 0.25


def test_max_risk_keyword_on_l_diversify_and_t_close():
    df = SAMPLE.assign(d=np.resize(["a", "b", "c"], len(SAMPLE)))
    out = df.anon.l_diversify(2, max_risk=0.2, algorithm="mondrian", quasi_identifiers=QI,
                              sensitive=["d"])
    assert out.anon.k_anonymity(quasi_identifiers=QI) >= 5
    assert out.anon.l_diversity(quasi_identifiers=QI, sensitive=["d"]) >= 2
    out = df.anon.t_close(0.5, max_risk=0.2, algorithm="mondrian", quasi_identifiers=QI,
                          sensitive=["d"])
    assert out.anon.k_anonymity(quasi_identifiers=QI) >= 5


def test_average_risk_keyword_needs_optimal_and_holds_on_its_output():
    with pytest.raises(InvalidInputError, match="algorithm='optimal'"):
        SAMPLE.anon.k_anonymize(2, average_risk=0.1, algorithm="mondrian", quasi_identifiers=QI)
    out = SAMPLE.anon.k_anonymize(1, average_risk=0.1, algorithm="optimal", hierarchies=H,
                                  quasi_identifiers=QI)
    published = out.dropna(subset=QI, how="all")
    classes = published.groupby(QI, dropna=False, observed=True).ngroups
    assert classes / len(published) <= 0.1
    assert out.anon.info["achieved"]["average_risk"] == pytest.approx(classes / len(published))
