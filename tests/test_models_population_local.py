"""k-map and δ-presence against a population table, enforced by the local recoders
(Mondrian, GroupJoin): every output is checked here by a brute-force containment count
(a population row matches a published class when each of its values lies in the class's
cell; a missing value matches only a missing cell)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdanon import InvalidInputError
from pdanon._groups import class_labels
from pdanon.containment import population_matches
from pdanon.dtype import GeneralizationRange
from pdanon.hierarchy import intervals
from pdanon.models import DeltaPresence, KAnonymity, KMap, AllOf


def _cell_contains(cell, value) -> bool:
    if pd.isna(cell) if not isinstance(cell, GeneralizationRange) else False:
        return pd.isna(value)
    if isinstance(cell, GeneralizationRange):
        return value in cell  # a missing value: only in a cell "or missing"
    if pd.isna(value):
        return False
    return cell == value


def brute_force(out, population, qi):
    """(sample rows, population rows matched, classes matched per population row) per
    published class, with Python loops."""
    published = out[qi].astype(object)
    classes = {}
    for row in published.itertuples(index=False):
        key = tuple("<NA>" if (not isinstance(c, GeneralizationRange) and pd.isna(c)) else c
                    for c in row)
        classes.setdefault(key, [tuple(row), 0])[1] += 1
    pop_rows = [tuple(r) for r in population[qi].astype(object).itertuples(index=False)]
    matched = {key: [i for i, r in enumerate(pop_rows)
                     if all(_cell_contains(c, v) for c, v in zip(cells, r))]
               for key, (cells, _) in classes.items()}
    hits = np.zeros(len(pop_rows), dtype=int)
    for rows in matched.values():
        hits[rows] += 1
    return [(size, len(matched[key]), max((hits[i] for i in matched[key]), default=0))
            for key, (_, size) in classes.items()]


def check_kmap(out, population, qi, k):
    for size, pop, _ in brute_force(out, population, qi):
        assert pop >= k and pop >= size


def check_delta(out, population, qi, delta_max):
    for size, pop, shared in brute_force(out, population, qi):
        assert pop >= size
        assert size * max(shared, 1) / pop <= delta_max + 1e-9


# --------------------------------------------------------------------------- hand-checked

SAMPLE = pd.DataFrame({"age": [21, 23, 35, 38, 52, 57],
                       "zip": ["a", "b", "a", "b", "a", "a"]})
POPULATION = pd.DataFrame({"age": [20, 21, 22, 23, 24, 30, 35, 38, 39, 50, 52, 57, 60],
                           "zip": ["a", "a", "b", "b", "a", "a", "a", "b", "b", "a", "a", "a",
                                   "b"]})


def test_mondrian_kmap_hand_checked():
    out = SAMPLE.anon.anonymize(KMap(3, population=POPULATION), algorithm="mondrian",
                                quasi_identifiers=["age", "zip"], row_order="input")
    # the median cut: [21, 35] x {a, b} holds 21, 22, 23, 24, 30, 35 (6 population rows),
    # [38, 57] x {a, b} holds 38, 39, 50, 52, 57 (5); every further cut leaves a side with
    # fewer than 3 (e.g. [21, 23] holds 3, but [35, 35] x {a} only 1; 38 x {b} only 1)
    assert out["age"].astype(str).tolist() == ["[21, 35]"] * 3 + ["[38, 57]"] * 3
    assert [p for _, p, _ in brute_force(out, POPULATION, ["age", "zip"])] == [6, 5]
    assert out.anon.info["achieved"]["k_map"] == 5
    check_kmap(out, POPULATION, ["age", "zip"], 3)


def test_release_measured_against_raw_population():
    """The measures and ``holds`` read a release (generalized cells) against the raw
    population it was drawn from: a population row counts where its values lie in the
    cells."""
    qi = ["age", "zip"]
    model = KMap(3, population=POPULATION)
    out = SAMPLE.anon.anonymize(model, algorithm="mondrian", quasi_identifiers=qi)
    assert model.holds(out, qi) and not KMap(6, population=POPULATION).holds(out, qi)
    assert out.anon.k_map(population=POPULATION, quasi_identifiers=qi) == 5
    # classes of 3 rows in 6 and in 5 population rows; 2 population rows (60 x b, and none
    # other) lie outside them, so δmin is 0
    assert out.anon.delta_presence(population=POPULATION, quasi_identifiers=qi) == (0.0, 0.6)
    assert DeltaPresence(0, 0.6, population=POPULATION).holds(out, qi)
    assert not DeltaPresence(0, 0.5, population=POPULATION).holds(out, qi)
    with pytest.raises(InvalidInputError, match="wildcard"):
        out.anon.k_map(population=POPULATION, quasi_identifiers=qi, missing="wildcard")
    with pytest.raises(InvalidInputError, match="wildcard"):
        out.anon.delta_presence(population=POPULATION, quasi_identifiers=qi,
                                missing="wildcard")
    # a population that does not hold the sample: the error says so
    with pytest.raises(InvalidInputError, match="must contain the sample"):
        out.anon.k_map(population=POPULATION.iloc[:3], quasi_identifiers=qi)


def test_type_mismatch_is_named():
    sample = pd.DataFrame({"zip": [1, 1, 2]})
    with pytest.raises(InvalidInputError, match=r"'zip' \(int64 in the sample"):
        sample.anon.k_map(population=pd.DataFrame({"zip": ["1", "1", "2"]}))


def test_containment_count_matches_brute_force_on_hand_example():
    out = SAMPLE.anon.anonymize(KMap(3, population=POPULATION), algorithm="mondrian",
                                quasi_identifiers=["age", "zip"], row_order="input")
    labels = class_labels(out, ["age", "zip"])
    counts, shared = population_matches(out, labels, POPULATION, ["age", "zip"], shared=True)
    assert counts.tolist() == [6, 5] and shared.tolist() == [1, 1]


def test_group_join_kmap_and_delta_hand_checked():
    qi = ["age", "zip"]
    out = SAMPLE.anon.anonymize(KMap(3, population=POPULATION), algorithm="group_join",
                                quasi_identifiers=qi)
    check_kmap(out, POPULATION, qi, 3)
    out = SAMPLE.anon.anonymize(DeltaPresence(0, 0.6, population=POPULATION),
                                algorithm="group_join", quasi_identifiers=qi)
    check_delta(out, POPULATION, qi, 0.6)  # the whole table: 6 of 11 rows
    # suppression publishes missing cells, which match only missing population values
    from pdanon import InfeasibleError

    with pytest.raises(InfeasibleError):
        SAMPLE.anon.anonymize(KMap(3, population=POPULATION), algorithm="group_join",
                              method="suppress", quasi_identifiers=qi)
    out = SAMPLE.anon.anonymize(KMap(1, population=POPULATION), algorithm="group_join",
                                method="suppress", quasi_identifiers=qi)
    check_kmap(out, POPULATION, qi, 1)


def test_missing_cells():
    sample = pd.DataFrame({"age": [21.0, None, 35, None, 52, 57],
                           "zip": ["a", "b", "a", "b", "a", "a"]})
    population = pd.concat([sample, pd.DataFrame({"age": [None, None, 40, 22],
                                                  "zip": ["b", "a", None, "a"]})],
                           ignore_index=True)
    qi = ["age", "zip"]
    from pdanon import InfeasibleError

    # Mondrian starts from the whole table, whose cells are missing where a member is
    # missing (they then match only missing population values): it refuses
    with pytest.raises(InfeasibleError, match="whole table"):
        sample.anon.anonymize(KMap(2, population=population), algorithm="mondrian",
                              quasi_identifiers=qi)
    out = sample.anon.anonymize(KMap(2, population=population), algorithm="group_join",
                                quasi_identifiers=qi)
    check_kmap(out, population, qi, 2)
    out = sample.anon.anonymize(DeltaPresence(0, 0.9, population=population),
                                algorithm="group_join", quasi_identifiers=qi)
    check_delta(out, population, qi, 0.9)


def test_refusals_read_well():
    model = KMap(2, population=POPULATION)
    for algorithm in ("datafly", "equal_groups", "nearest"):
        with pytest.raises(InvalidInputError, match="population table.*mondrian"):
            SAMPLE.anon.anonymize(model, algorithm=algorithm, quasi_identifiers=["age", "zip"])
    with pytest.raises(InvalidInputError, match="method='generalize'"):
        SAMPLE.anon.anonymize(model, algorithm="mondrian", method="suppress",
                              quasi_identifiers=["age", "zip"])
    with pytest.raises(InvalidInputError, match="method='generalize' or 'suppress'"):
        SAMPLE.anon.anonymize(model, algorithm="group_join", method="aggregate",
                              quasi_identifiers=["age", "zip"])
    # δmin > 0 is a table-level condition: optimal only
    with pytest.raises(InvalidInputError, match="optimal"):
        SAMPLE.anon.anonymize(DeltaPresence(0.1, 0.5, population=POPULATION),
                              algorithm="mondrian", quasi_identifiers=["age", "zip"])


def test_auto_picks_mondrian_without_hierarchies():
    out = SAMPLE.anon.anonymize(KMap(3, population=POPULATION),
                                quasi_identifiers=["age", "zip"])
    assert out.anon.info["algorithm"] == "mondrian"


def test_containment_equals_optimal_count():
    from pdanon.engine import partition
    from pdanon.roles import resolve_roles

    rng = np.random.default_rng(3)
    population = pd.DataFrame({"age": rng.integers(20, 60, 300),
                               "zip": rng.choice(["10001", "10002", "10003", "20001"], 300)})
    sample = population.sample(60, random_state=1)
    # zip (4 values) without a hierarchy is kept or suppressed whole; age needs bands
    hier = {"age": intervals([10, 20])}
    qi = ["age", "zip"]
    model = KMap(4, population=population)
    roles = resolve_roles(sample, quasi_identifiers=qi)
    run = partition(sample, roles, model=model, method="generalize", algorithm="optimal",
                    hierarchies=hier, max_suppressed_rows=3)
    res = run.result
    out = sample.anon.anonymize(model, algorithm="optimal", hierarchies=hier,
                                quasi_identifiers=qi, max_suppressed_rows=3)
    pub = out.loc[~res.suppressed, qi]
    labels = class_labels(pub, qi)
    counts, shared = population_matches(pub, labels, population, qi, shared=True)
    recoded = pd.DataFrame({c: res.population[c] for c in qi})
    joint = class_labels(pd.concat([pub, recoded], ignore_index=True), qi)
    to = np.full(joint.max() + 1, -1)
    to[joint[:len(pub)]] = labels
    cls = to[joint[len(pub):]]
    assert counts.tolist() == np.bincount(cls[cls >= 0], minlength=len(counts)).tolist()
    assert (shared <= 1).all()


# --------------------------------------------------------------------------- property


@st.composite
def tables(draw):
    n_pop = draw(st.integers(8, 40))
    ages = st.one_of(st.integers(18, 30), st.none()) if draw(st.booleans()) else \
        st.integers(18, 30)
    pop = pd.DataFrame({
        "age": [draw(ages) for _ in range(n_pop)],
        "sex": [draw(st.sampled_from(["F", "M", "X"])) for _ in range(n_pop)]})
    pop["age"] = pop["age"].astype("Float64").astype(float)
    take = draw(st.lists(st.integers(0, n_pop - 1), min_size=2, max_size=n_pop, unique=True))
    return pop.iloc[sorted(take)].reset_index(drop=True), pop


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(tables(), st.integers(1, 4), st.sampled_from([0.5, 0.8, 1.0]),
       st.sampled_from(["mondrian", "group_join"]))
def test_outputs_satisfy_the_models(data, k, delta_max, algorithm):
    from pdanon import InfeasibleError

    sample, population = data
    qi = ["age", "sex"]
    for model, check in ((KMap(k, population=population), lambda o: check_kmap(
            o, population, qi, k)),
            (AllOf(KAnonymity(1), DeltaPresence(0, delta_max, population=population)),
             lambda o: check_delta(o, population, qi, delta_max))):
        try:
            out = sample.anon.anonymize(model, algorithm=algorithm, quasi_identifiers=qi)
        except InfeasibleError:
            continue
        check(out)
        # the release checks against the raw population, as the engine verified it
        assert model.holds(out, qi)
        counts = brute_force(out, population, qi)
        assert out.anon.k_map(population=population, quasi_identifiers=qi) == \
            min(p for _, p, _ in counts)
        low, high = out.anon.delta_presence(population=population, quasi_identifiers=qi)
        assert high == pytest.approx(max(s * max(m, 1) / p for s, p, m in counts))
