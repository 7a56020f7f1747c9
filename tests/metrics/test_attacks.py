"""pdanon.attacks: singling out, linkability and inference against a control set (issue 51).

Hand-checked small tables with known answers per attack, the input checks, a property (a copy
of the original is at risk near 1, independent random rows near 0) and every kind of release.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon import attacks
from pdanon._errors import InvalidInputError, KindError, UnknownColumnError
from pdanon.dtype import GeneralizationRange
from pdanon.hierarchy import read_arx_csv


def test_wilson_interval_known_values():
    lo, hi = attacks.wilson(8, 10)  # Wilson (1927); e.g. Newcombe 1998, table I
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    assert attacks.wilson(0, 0) == (0.0, 1.0)
    assert attacks.wilson(0, 20)[0] == 0.0


def test_risk_is_excess_over_control_and_ci_brackets_it():
    r = attacks.AttackResult("x", 0.6, 0.2, 0.1, 100, 60, 20, 100)
    assert r.risk == pytest.approx((0.6 - 0.2) / (1 - 0.2))
    lo, hi = r.ci
    assert lo < r.risk < hi
    assert attacks.AttackResult("x", 0.1, 0.3, 0.1, 100, 10, 30, 100).risk == 0.0
    assert attacks.AttackResult("x", 1.0, 1.0, 0.1, 100, 100, 100, 100).risk == 0.0


# -- singling out ---------------------------------------------------------------------------

def test_univariate_singling_out_hand_checked():
    original = pd.DataFrame({"age": [20, 30, 40, 50], "sex": ["F", "F", "M", "M"]})
    control = pd.DataFrame({"age": [21, 31, 41, 51], "sex": ["F", "F", "M", "M"]})
    r = attacks.singling_out(original, original, control=control, mode="univariate", seed=0)
    # predicates: age == 20, 30, 40, 50 (each published once), age <= 20, age >= 50; sex: none
    assert r.n_attacks == 6
    assert r.main_rate == 1.0
    # on the control only "age >= 50" isolates a row (51)
    assert r.control_rate == pytest.approx(1 / 6)
    assert r.risk == 1.0


def test_multivariate_singling_out_on_a_copy_is_certain_and_divides_by_predicates_made():
    rng = np.random.default_rng(0)
    original = pd.DataFrame({"x": rng.permutation(60), "y": rng.permutation(60)})
    control = pd.DataFrame({"x": rng.permutation(60) + 0.5, "y": rng.permutation(60) + 0.5})
    r = attacks.singling_out(original, original, control=control, n_attacks=30, seed=1)
    # ">= / <= the row's values" isolates a row of 60 only near the corners: fewer than asked
    assert 5 <= r.n_attacks < 30 and len(r.detail) == r.n_attacks
    assert r.main_rate == 1.0 and (r.detail["original_matches"] == 1).all()
    assert any(f"gave {r.n_attacks} singling-out predicates of the 30" in n for n in r.notes)


def test_generalized_classes_give_no_singling_out_predicate():
    rng_cell = [GeneralizationRange(20, 29, "real")] * 2 + [GeneralizationRange(30, 39, "real")] * 2
    release = pd.DataFrame({"age": pd.array(rng_cell, dtype="generalization[real]"),
                            "sex": ["F", "F", "M", "M"]})
    original = pd.DataFrame({"age": [21, 25, 33, 38], "sex": ["F", "F", "M", "M"]})
    control = pd.DataFrame({"age": [22, 26, 31, 35], "sex": ["F", "F", "M", "M"]})
    r = attacks.singling_out(release, original, control=control, n_attacks=10, seed=0)
    assert r.n_attacks == 0 and r.risk == 0.0
    assert any("gave 0" in n for n in r.notes)


def test_a_published_range_is_a_predicate_on_the_original():
    # one class is unique in the release: its range isolates the one original row inside
    cells = [GeneralizationRange(20, 29, "real"), GeneralizationRange(30, 39, "real"),
             GeneralizationRange(30, 39, "real")]
    release = pd.DataFrame({"age": pd.array(cells, dtype="generalization[real]")})
    original = pd.DataFrame({"age": [25, 31, 35]})
    control = pd.DataFrame({"age": [22, 27, 36]})
    r = attacks.singling_out(release, original, control=control, mode="univariate", seed=0)
    assert r.n_attacks == 1  # the range [20, 29], published once
    assert r.main_rate == 1.0 and r.control_rate == 0.0


# -- linkability ----------------------------------------------------------------------------

def test_linkability_through_a_generalized_class_is_no_better_than_the_control():
    cells = [GeneralizationRange(0, 9, "real")] * 2 + [GeneralizationRange(10, 19, "real")] * 2
    release = pd.DataFrame({"a": pd.array(cells, dtype="generalization[real]"),
                            "b": ["x", "y", "x", "y"]})
    original = pd.DataFrame({"a": [1, 2, 11, 12], "b": ["x", "y", "x", "y"]})
    control = pd.DataFrame({"a": [5, 6, 15, 16], "b": ["x", "y", "x", "y"]})
    # half a points at the 2 rows of its class, half b at the 2 rows of its value: they share
    # exactly the target's row, for the original and the control alike
    r = attacks.linkability(release, original, control=control, aux_cols=(["a"], ["b"]),
                            n_neighbors=2, seed=0)
    assert r.main_rate == 1.0 and r.control_rate == 1.0 and r.risk == 0.0


def test_linkability_of_a_copy_with_distinct_values():
    original = pd.DataFrame({"a": range(0, 80, 2), "b": range(0, 80, 2)})
    control = pd.DataFrame({"a": range(1, 81, 2), "b": range(79, 0, -2)})
    r = attacks.linkability(original, original, control=control, aux_cols=(["a"], ["b"]),
                            seed=0)
    assert r.main_rate == 1.0 and r.control_rate < 0.2
    assert (r.detail["rows_a"].map(tuple) == r.detail["rows_b"].map(tuple)).all()
    # the naive attacker: two random rows of 40 meet about 1 time in 40
    assert r.baseline_rate < 0.2


def test_linkability_ties_are_broken_independently_per_half():
    # all four release rows share every cell: each half picks at random, so they meet 1/4
    release = pd.DataFrame({"a": [1] * 4, "b": [1] * 4})
    original = pd.DataFrame({"a": [1] * 400, "b": [1] * 400})
    control = pd.DataFrame({"a": [1] * 400, "b": [1] * 400})
    r = attacks.linkability(release, original, control=control, aux_cols=(["a"], ["b"]),
                            n_attacks=400, seed=3)
    assert 0.15 < r.main_rate < 0.35


def test_linkability_on_a_k_anonymous_release_is_at_most_one_in_k():
    adult = pdanon.datasets.load_adult(nrows=4000)
    control = adult.iloc[2000:].reset_index(drop=True)
    original = adult.iloc[:2000]
    k = 5
    release = original.anon.k_anonymize(k)
    qi = list(pdanon.datasets.ADULT_QUASI_IDENTIFIERS)
    r = attacks.linkability(release, original, control=control,
                            aux_cols=(qi[0::2], qi[1::2]), n_attacks=1000, seed=0)
    # each half lands in a set of >= k rows sharing its cells; random picks meet <= 1/k
    assert r.main_rate <= 1 / k + 3 * np.sqrt(1 / k / 1000)


# -- inference ------------------------------------------------------------------------------

def test_inference_majority_of_the_matches():
    release = pd.DataFrame({"zip": ["a", "a", "a", "b", "b"], "sick": [1, 1, 0, 0, 0]})
    original = release.copy()
    control = pd.DataFrame({"zip": ["a", "a", "a", "b", "b"], "sick": [1, 0, 0, 1, 0]})
    r = attacks.inference(release, original, control=control, aux_cols=["zip"],
                          secret="sick", seed=0)
    # zip a: guess 1 (two of three), right for 2 of 3; zip b: guess 0, right for both
    assert r.main_rate == pytest.approx(4 / 5)
    assert r.control_rate == pytest.approx(2 / 5)  # control: one "a" row is 1, one "b" row 0
    assert r.risk == pytest.approx((0.8 - 0.4) / 0.6)
    assert set(r.detail["matches"]) == {2, 3}


def test_inference_numeric_secret_published_as_a_range_guesses_its_midpoint():
    cells = [GeneralizationRange(100, 200, "real")] * 2
    release = pd.DataFrame({"zip": ["a", "a"],
                            "pay": pd.array(cells, dtype="generalization[real]")})
    original = pd.DataFrame({"zip": ["a", "a"], "pay": [150.0, 100.0]})
    control = pd.DataFrame({"zip": ["a", "a"], "pay": [155.0, 300.0]})
    r = attacks.inference(release, original, control=control, aux_cols=["zip"], secret="pay",
                          seed=0, tolerance=0.05)
    assert r.main_rate == 0.5  # 150 within 5 % of 150; 100 not
    assert r.control_rate == 0.5  # 155: |150 - 155| <= 7.75
    assert sorted(r.detail["guess"]) == [150.0, 150.0]


def test_inference_baseline_is_matched_by_position_not_by_row_label():
    # a release whose index labels equal the original's: matching guesses by label would
    # compare each target with its own row
    release = pd.DataFrame({"z": list("abcdefghij") * 10, "s": list(range(10)) * 10})
    original = release.copy()
    control = release.copy().assign(z=list("bcdefghija") * 10)
    r = attacks.inference(release, original, control=control, aux_cols=["z"], secret="s",
                          n_attacks=100, seed=0)
    assert r.baseline_rate < 0.3  # a random release row's secret: right about 1 in 10


# -- input checks ---------------------------------------------------------------------------

@pytest.fixture
def tables():
    rng = np.random.default_rng(0)
    original = pd.DataFrame({"a": rng.normal(size=50), "b": rng.normal(size=50),
                             "s": rng.choice(list("xyz"), 50)})
    control = pd.DataFrame({"a": rng.normal(size=50), "b": rng.normal(size=50),
                            "s": rng.choice(list("xyz"), 50)})
    return original, control


def test_bad_input_is_refused_before_work_and_nothing_is_mutated(tables):
    original, control = tables
    before = (original.copy(), control.copy())
    with pytest.raises(UnknownColumnError, match="'nope'"):
        attacks.linkability(original, original, control=control, aux_cols=(["a"], ["nope"]))
    with pytest.raises(InvalidInputError, match="both groups"):
        attacks.linkability(original, original, control=control, aux_cols=(["a"], ["a", "b"]))
    with pytest.raises(InvalidInputError, match="also an auxiliary"):
        attacks.inference(original, original, control=control, aux_cols=["a", "s"], secret="s")
    with pytest.raises(InvalidInputError, match="control= rows"):
        attacks.singling_out(original, original, control=None)
    with pytest.raises(InvalidInputError, match="control= rows"):
        attacks.inference(original, original, control=None, aux_cols=["a"], secret="s")
    with pytest.raises(InvalidInputError, match="n_attacks <= 50"):
        attacks.linkability(original, original, control=control, aux_cols=(["a"], ["b"]),
                            n_attacks=51)
    with pytest.raises(InvalidInputError, match="rows of the original"):
        attacks.linkability(original, original, control=original.sample(frac=1.0,
                                                                         random_state=1),
                            aux_cols=(["a"], ["b"]))
    with pytest.raises(KindError, match="'s'"):
        attacks.inference(original, original, aux_cols=["a"], secret="s",
                          control=control.assign(s=np.arange(50)))
    pd.testing.assert_frame_equal(original, before[0])
    pd.testing.assert_frame_equal(control, before[1])


def test_the_content_check_ignores_the_index_and_allows_real_duplicates(tables):
    original, control = tables
    shared = original.iloc[:20].reset_index(drop=True)  # same rows, other labels
    with pytest.raises(InvalidInputError, match="held out"):
        attacks.linkability(original, original, control=pd.concat([shared, control]),
                            aux_cols=(["a"], ["b"]))
    # a table of few values repeats itself: a genuine control repeats it as often
    cats = pd.DataFrame({"a": ["x", "y"] * 30, "b": ["u", "v", "w"] * 20})
    other = pd.DataFrame({"a": ["y", "x"] * 30, "b": ["w", "u", "v"] * 20})
    attacks.linkability(cats, cats, control=other, aux_cols=(["a"], ["b"]), seed=0)


# -- property: a copy is at risk, independent rows are not ----------------------------------

@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(150, 300))
def test_copy_is_at_risk_and_independent_rows_are_not(seed, n):
    rng = np.random.default_rng(seed)

    def table():
        return pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                             "c": rng.normal(size=n), "d": rng.exponential(size=n) + 1})

    original, control, other = table(), table(), table()
    aux = (["a", "b"], ["c", "d"])
    copy_link = attacks.linkability(original, original, control=control, aux_cols=aux,
                                    n_attacks=100, seed=seed)
    rand_link = attacks.linkability(other, original, control=control, aux_cols=aux,
                                    n_attacks=100, seed=seed)
    assert copy_link.risk > 0.9
    assert rand_link.ci[0] == 0.0 and rand_link.risk < 0.15
    copy_inf = attacks.inference(original, original, control=control, aux_cols=["a", "b", "c"],
                                 secret="d", n_attacks=100, seed=seed)
    rand_inf = attacks.inference(other, original, control=control, aux_cols=["a", "b", "c"],
                                 secret="d", n_attacks=100, seed=seed)
    assert copy_inf.risk > 0.9
    assert rand_inf.ci[0] == 0.0 and rand_inf.risk < 0.2
    copy_so = attacks.singling_out(original, original, control=control, n_attacks=50,
                                   seed=seed)
    rand_so = attacks.singling_out(other, original, control=control, n_attacks=50, seed=seed)
    assert copy_so.main_rate == 1.0 and copy_so.risk > 0.5
    assert rand_so.ci[0] == 0.0


# -- every kind of release ------------------------------------------------------------------

@pytest.fixture(scope="module")
def adult_split():
    adult = pdanon.datasets.load_adult(nrows=3000)
    return adult.iloc[:1500], adult.iloc[1500:].reset_index(drop=True)


def _all_three(release, original, control, **kw):
    qi = list(pdanon.datasets.ADULT_QUASI_IDENTIFIERS)
    out = release.anon.attacks(original, control=control, n_attacks=300, seed=0,
                               quasi_identifiers=qi, sensitive=["salary-class"], **kw)
    for name, r in out.items():
        assert 0.0 <= r.risk <= 1.0, name
        lo, hi = r.ci
        assert 0.0 <= lo <= r.risk <= hi <= 1.0, name
        assert 0.0 <= r.main_rate <= 1.0 and 0.0 <= r.control_rate <= 1.0
    return out


def _hierarchies(df):
    return {c: read_arx_csv(pdanon.datasets.adult_hierarchy_path(c)) for c in df.columns}


@pytest.mark.parametrize("make", [
    lambda df: df.anon.k_anonymize(5),
    lambda df: df.anon.k_anonymize(5, algorithm="optimal", hierarchies=_hierarchies(df)),
    lambda df: df.anon.microaggregate(5),
    lambda df: df.anon.dp_anonymize(2.0, 1e-3, seed=0, hierarchies=_hierarchies(df)),
], ids=["mondrian", "optimal", "mdav", "dp"])
def test_attacks_read_every_kind_of_release(adult_split, make):
    original, control = adult_split
    out = _all_three(make(original), original, control)
    assert set(out) == {"singling_out", "linkability", "inference"}
    assert out["linkability"].main_rate < 0.5


def test_attacks_read_a_locally_suppressed_release_with_missing_as_wildcard(adult_split):
    original, control = adult_split
    release = original.anon.local_suppression(3)
    _all_three(release, original, control)


def test_attacks_read_a_release_read_back_from_csv_and_parquet(adult_split, tmp_path):
    original, control = adult_split
    release = original.anon.k_anonymize(5)
    qi = list(pdanon.datasets.ADULT_QUASI_IDENTIFIERS)
    path = tmp_path / "release.csv"
    release.to_csv(path, index=False)
    back = pdanon.read_csv(path, schema=release.anon.schema)
    pq = tmp_path / "release.parquet"
    release.to_parquet(pq)
    back_pq = pd.read_parquet(pq)
    aux = (qi[0::2], qi[1::2])
    results = [attacks.linkability(t, original, control=control, aux_cols=aux, n_attacks=300,
                                   seed=0) for t in (release, back, back_pq)]
    assert results[0].main_rate == results[1].main_rate == results[2].main_rate


def test_inference_a_published_set_shares_its_vote_and_a_star_matches_anything():
    release = pd.DataFrame({
        "zip": pd.Categorical(["*", "*", "*"], categories=["a", "b", "*"], ordered=True),
        "s": pd.array([{"x", "y"}, "x", {"y", "z"}], dtype="generalization[unordered]")})
    original = pd.DataFrame({"zip": pd.Categorical(["a", "b", "a"], categories=["a", "b"],
                                                   ordered=True), "s": ["x", "y", "x"]})
    control = pd.DataFrame({"zip": pd.Categorical(["b", "a", "b"], categories=["a", "b"],
                                                  ordered=True), "s": ["z", "x", "y"]})
    r = attacks.inference(release, original, control=control, aux_cols=["zip"], secret="s",
                          seed=0)
    # "*" holds every zip: all three rows match; votes x 1.5, y 1, z 0.5: the guess is x
    assert set(r.detail["matches"]) == {3}
    assert r.main_rate == pytest.approx(2 / 3) and r.control_rate == pytest.approx(1 / 3)


def test_a_published_hierarchy_label_covers_its_values_and_needs_the_hierarchy():
    edu = pdanon.datasets.EDUCATION_ORDER
    h = read_arx_csv(pdanon.datasets.adult_hierarchy_path("education"))
    cat = pd.CategoricalDtype(edu, ordered=True)
    original = pd.DataFrame({"education": pd.Series(["HS-grad", "11th", "Masters"], dtype=cat),
                             "s": ["x", "x", "y"]})
    control = pd.DataFrame({"education": pd.Series(["9th", "Doctorate", "12th"], dtype=cat),
                            "s": ["x", "y", "y"]})
    labels = pd.CategoricalDtype(list(edu) + ["High School"], ordered=True)
    release = pd.DataFrame({"education": pd.Series(["High School", "High School", "Masters"],
                                                   dtype=labels), "s": ["x", "x", "y"]})
    with pytest.raises(InvalidInputError, match="hierarchies="):
        attacks.inference(release, original, control=control, aux_cols=["education"],
                          secret="s", seed=0)
    r = attacks.inference(release, original, control=control, aux_cols=["education"],
                          secret="s", seed=0, hierarchies={"education": h})
    # "High School" holds HS-grad, 11th, 9th and 12th: those targets match its two rows (x)
    assert r.main_rate == 1.0
    assert sorted(r.detail["matches"]) == [1, 2, 2]
    # control: 9th -> High School -> x (right); Doctorate -> nearest by position, Masters -> y
    # (right); 12th -> High School -> x (wrong)
    assert r.control_rate == pytest.approx(2 / 3)


def test_a_weight_column_published_unchanged_shows_up_as_inference_risk():
    # the leak of a survey weight kept beside a k-anonymous release: the weight is unique per
    # person, so whoever holds a target's weight finds its row and reads its salary
    adult = pdanon.datasets.load_adult(nrows=3000)
    rng = np.random.default_rng(5)
    adult = adult.assign(w=rng.uniform(50, 5000, len(adult)).round(2))
    original, control = adult.iloc[:1500], adult.iloc[1500:].reset_index(drop=True)
    qi = list(pdanon.datasets.ADULT_QUASI_IDENTIFIERS)
    safe = original.drop(columns="w").anon.k_anonymize(5, row_order="input")
    leaky = safe.assign(w=original["w"].to_numpy())
    r = attacks.inference(leaky, original, control=control, aux_cols=["w"],
                          secret="salary-class", n_attacks=500, seed=0)
    assert r.main_rate == 1.0 and r.ci[0] > 0.5
    # the same release without the weight: the quasi-identifiers' classes say little more
    # than the control
    r = attacks.inference(safe, original, control=control, aux_cols=qi,
                          secret="salary-class", n_attacks=500, seed=0)
    assert r.risk < 0.5


def test_holdout_keeps_each_strata_share_and_refuses_an_empty_part():
    df = pd.DataFrame({"s": ["a"] * 50 + ["b"] * 30 + ["c"] * 3, "x": range(83)})
    before = df.copy()
    original, control = attacks.holdout(df, 0.2, stratify="s", seed=1)
    assert control["s"].value_counts().to_dict() == {"a": 10, "b": 6, "c": 1}
    assert len(original) + len(control) == 83
    assert not set(original.index) & set(control.index)
    pd.testing.assert_frame_equal(df, before)
    # the split feeds the attacks: no row of the control is a row of the original
    attacks.linkability(original, original, control=control, aux_cols=(["s"], ["x"]), seed=0)
    with pytest.raises(InvalidInputError, match="no control row"):
        attacks.holdout(df.iloc[:2], 0.2)
    with pytest.raises(InvalidInputError, match="between 0 and 1"):
        attacks.holdout(df, 1.0)


def test_a_seed_repeats_every_draw_baselines_included_and_no_seed_draws_afresh(tables):
    original, control = tables
    release = original.sample(frac=1.0, random_state=2).reset_index(drop=True)
    kw = dict(control=control, aux_cols=(["a"], ["b"]), n_neighbors=3)
    one = attacks.linkability(release, original, seed=7, **kw)
    two = attacks.linkability(release, original, seed=7, **kw)
    assert one.baseline_rate == two.baseline_rate and one.main_rate == two.main_rate
    assert (one.detail["rows_a"].map(tuple) == two.detail["rows_a"].map(tuple)).all()
    fresh = [tuple(attacks.linkability(release, original, **kw).detail["target"])
             for _ in range(2)]
    assert fresh[0] != fresh[1]  # the CSPRNG: 50 targets in another order (odds 1 in 50!)


def test_inference_detail_names_the_guessed_values():
    release = pd.DataFrame({"zip": ["a", "a", "b"], "job": ["nurse", "nurse", "cook"]})
    control = pd.DataFrame({"zip": ["a", "b", "b"], "job": ["cook", "nurse", "cook"]})
    r = attacks.inference(release, release, control=control, aux_cols=["zip"], secret="job",
                          seed=0)
    assert sorted(r.detail["guess"]) == ["cook", "nurse", "nurse"]
