"""pdanon.Policy and out.anon.check (pdanon/checks/policy.py): criteria measured on the release's
classes (the suppressed rows' too), by hand; the release's own request as the default policy,
which every verified output passes; hazards in plain words; nonsense refused."""

import io
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon
from pdanon import Policy
from pdanon.keywords import UnknownKeywordError
from pdanon.models import AllOf, KAnonymity, LDiversity, TCloseness

ROLES = dict(quasi_identifiers={"age": "real", "zip": "unordered"}, sensitive=["d"])


def table():
    # classes over (age, zip) as published below: rows 0-2, 3-5 and 6-9
    return pd.DataFrame({
        "age": [30, 31, 32, 40, 41, 42, 50, 51, 52, 53],
        "zip": ["a", "a", "a", "b", "b", "b", "c", "c", "c", "c"],
        "d": ["flu", "flu", "flu", "hiv", "flu", "cold", "hiv", "flu", "hiv", "flu"],
    })


def release():
    # a frame published by zip alone (age kept on purpose): classes a (3 rows), b (3), c (4)
    return table().anon.with_schema(pdanon.schema(
        quasi_identifiers={"zip": "unordered"}, sensitive={"d": "unordered"},
        insensitive=["age"]))


def test_criteria_by_hand():
    out = release()
    assert out.anon.equivalence_classes().tolist() == [0] * 3 + [1] * 3 + [2] * 4
    result = out.anon.check(Policy(k=3, l=2, t=0.3, max_records_at_risk=0.0,
                                   max_highest_risk=1 / 3, max_sample_uniques=0.0))
    crit = result.criteria.set_index("criterion")
    assert crit.loc["k_anonymity", "measured"] == 3
    assert crit.loc["l_diversity_distinct", "measured"] == 1  # the first class is all flu
    # table: flu 6/10, hiv 3/10, cold 1/10; class 0 (flu x3): total variation 0.4
    assert crit.loc["t_closeness_emd", "measured"] == pytest.approx(0.4)
    assert crit.loc["records_at_risk", "measured"] == 1.0  # every class has <= 5 rows (> 0.2)
    assert crit.loc["highest_prosecutor_risk", "measured"] == pytest.approx(1 / 3)
    assert crit.loc["sample_uniques", "measured"] == 0
    assert crit["passed"].tolist() == [True, False, False, False, True, True]
    assert not result.passed and not result
    text = repr(result)
    assert text.startswith("FAILED: 3 of 6 criteria hold")
    assert "[FAIL] l_diversity_distinct: 1 (threshold >= 2)" in text
    # the class whose members share a sensitive value is a hazard, in words
    assert any("every member has the same 'd' value" in h and "3 rows (30.0%)" in h
               for h in result.hazards)
    json.dumps(result.to_dict())


def test_without_a_policy_the_release_own_request_is_checked():
    out = table().anon.l_diversify(2, k=3, algorithm="mondrian", **ROLES)
    result = out.anon.check()
    assert result.policy == Policy(k=3, l=2)
    assert result.passed and result.criteria["criterion"].tolist() == [
        "k_anonymity", "l_diversity_distinct"]
    chained = table().anon.k_anonymize(3, algorithm="mondrian", **ROLES).anon.t_close(0.5)
    assert chained.anon.check().policy == Policy(k=3, t=0.5)


def test_suppressed_rows_are_a_class_and_counted():
    df = pd.DataFrame({"x": [1, 1, 1, 2, 2, 2, 7, 9]})
    out = df.anon.k_anonymize(3, algorithm="datafly", max_suppressed_rows=5,
                              quasi_identifiers=["x"])
    # 7 and 9 fail k = 3; with the smallest class (1, three rows) they are five blank rows
    assert out["x"].isna().sum() == 5
    result = out.anon.check(Policy(k=3, max_suppressed_share=0.5), original=df)
    crit = result.criteria.set_index("criterion")
    assert crit.loc["k_anonymity", "measured"] == 3 == out.anon.info["achieved"]["k"]
    assert crit.loc["suppressed_share", "measured"] == pytest.approx(5 / 8)
    assert result.criteria["passed"].tolist() == [True, False]
    assert any("62.5% of rows are suppressed" in h for h in out.anon.check().hazards)


def test_every_verified_release_passes_its_own_request():
    df = pdanon.datasets.make_patients(400, seed=3)
    roles = dict(quasi_identifiers={"zipcode": "unordered", "age": "real",
                                    "gender": "unordered"}, sensitive=["disease"])
    for model in (KAnonymity(5), AllOf(KAnonymity(3), LDiversity(3)),
                  AllOf(KAnonymity(2), TCloseness(0.2))):
        for algorithm in ("mondrian", "datafly", "group_join"):
            out = df.anon.anonymize(model, algorithm=algorithm, max_suppressed_rows=20
                                    if algorithm == "datafly" else None, **roles)
            result = out.anon.check()
            assert result.passed, (model, algorithm, result)
            assert len(result.criteria) == len(model.parts())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ages=st.lists(st.integers(18, 70), min_size=8, max_size=40), k=st.integers(2, 4),
       data=st.data())
def test_check_agrees_with_the_engine(ages, k, data):
    n = len(ages)
    zips = data.draw(st.lists(st.sampled_from(["1", "2", "3"]), min_size=n, max_size=n))
    d = data.draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    df = pd.DataFrame({"age": ages, "zip": zips, "d": d})
    k = min(k, n)
    out = df.anon.k_anonymize(k, algorithm="datafly", max_suppressed_rows=0.3, **ROLES)
    result = out.anon.check(Policy(k=k))
    assert result.passed
    assert result.criteria["measured"].iloc[0] == out.anon.info["achieved"]["k"]
    assert out.anon.check(Policy(k=out.anon.info["achieved"]["k"] + 1)).passed is False


def test_nonsense_is_refused():
    with pytest.raises(pdanon.InvalidInputError, match="pass 0.2, not 20"):
        Policy(t=20)
    with pytest.raises(pdanon.InvalidInputError, match="k must be an integer"):
        Policy(k=0)
    with pytest.raises(pdanon.InvalidInputError, match=r"share of the rows in \[0, 1\]"):
        Policy(max_records_at_risk=5)
    with pytest.raises(TypeError):
        Policy(5)  # keyword-only: k= must be named
    with pytest.raises(pdanon.InvalidInputError, match="needs a sensitive column"):
        pd.DataFrame({"x": [1, 1]}).anon.check(Policy(l=2), quasi_identifiers=["x"])
    with pytest.raises(pdanon.InvalidInputError, match="must be a pdanon.Policy"):
        release().anon.check({"k": 3})


def test_usable_in_an_etl_script(tmp_path):
    out = release()
    policy = Policy(k=3, max_records_at_risk=1.0)
    if not out.anon.check(policy):
        raise AssertionError("would not be written")
    out.to_parquet(tmp_path / "r.parquet")
    back = pd.read_parquet(tmp_path / "r.parquet")
    assert back.anon.check(policy).passed  # the release read back gives the same verdict
    assert np.isclose(back.anon.check(policy).criteria["measured"],
                      out.anon.check(policy).criteria["measured"]).all()


def test_a_request_that_bounds_no_class_is_checked_with_the_default_risk_limit():
    """The default verdict: the release's own request, and when it bounds no class's size
    (t-closeness alone), at most 5 % of the rows at risk (classes of fewer than 5 rows): a
    t-close release of small classes fails it, in words, and the report says the same."""
    from pdanon.checks.policy import DEFAULT_MAX_RECORDS_AT_RISK

    df = pd.DataFrame({"age": [20, 21, 30, 31, 40, 41, 50, 51],
                       "d": ["a", "b", "a", "b", "a", "b", "a", "b"]})
    out = df.anon.t_close(0.5, quasi_identifiers=["age"], sensitive=["d"],
                          algorithm="mondrian")
    result = out.anon.check()
    assert result.policy == Policy(k=1, t=0.5, max_records_at_risk=DEFAULT_MAX_RECORDS_AT_RISK)
    crit = result.criteria.set_index("criterion")
    assert crit.loc["records_at_risk", "measured"] == 1.0  # every class has 2 rows
    assert not result.passed
    rep = out.anon.report(df)
    assert rep.passed is False
    assert "the default limit on records at risk" in rep.to_html()
    # a class size asked for (k, or l in any variant) is the risk the publisher chose
    assert Policy.default({"models": [{"model": "KAnonymity", "params": {"k": 3}}]}) == \
        Policy(k=3)
    assert Policy.default({}) == Policy()


def test_the_same_table_asked_by_l_or_by_k_and_l_gets_one_verdict():
    """l_diversify(2) and l_diversify(2, k=2) return the same table here; the default
    verdict used to fail the first (a risk limit added because no k was asked) and pass the
    second. Both ask classes of at least 2 rows: both pass, and the rows in classes under 5
    are a hazard in both."""
    df = pd.DataFrame({"age": [20, 21, 30, 31, 40, 41, 50, 51],
                       "d": ["a", "b", "a", "b", "a", "b", "a", "b"]})
    roles = dict(quasi_identifiers=["age"], sensitive=["d"], algorithm="mondrian")
    alone, with_k = df.anon.l_diversify(2, **roles), df.anon.l_diversify(2, k=2, **roles)
    def rows(frame):
        return frame.astype(str).sort_values(["age", "d"]).reset_index(drop=True)

    pd.testing.assert_frame_equal(rows(alone), rows(with_k))
    a, b = alone.anon.check(), with_k.anon.check()
    assert a.passed and b.passed
    assert a.hazards == b.hazards and any("classes of fewer than 5 rows" in h
                                          for h in a.hazards)
    assert alone.anon.report(df).passed is True


def test_parts_of_a_request_a_policy_cannot_state_are_named():
    df = pd.DataFrame({"age": list(range(20, 44)), "d": list("aab") * 8})
    out = df.anon.alpha_k_anonymize(0.7, 3, quasi_identifiers=["age"], sensitive=["d"]) \
        if hasattr(df.anon, "alpha_k_anonymize") else df.anon.anonymize(
            pdanon.models.AlphaKAnonymity(0.7, 3), quasi_identifiers=["age"], sensitive=["d"])
    result = out.anon.check()
    assert result.policy.k == 3
    assert any(h.startswith("not checked by the default policy: alpha = 0.7 of (alpha, "
                            "k)-anonymity") for h in result.hazards)
    explicit = out.anon.check(Policy(k=3))
    assert not any(h.startswith("not checked") for h in explicit.hazards)


def test_records_at_risk_that_the_policy_allows_are_a_hazard():
    df = pd.DataFrame({"age": [20, 21, 22, 30, 31, 32, 40, 41, 42]})
    out = df.anon.k_anonymize(3, algorithm="mondrian", quasi_identifiers=["age"])
    result = out.anon.check()
    assert result.passed  # k = 3 was asked and holds
    sizes = out["age"].astype(str).value_counts()
    share = sizes[sizes < 5].sum() / len(df)
    assert share > 0
    assert f"{share:.1%} of rows are in classes of fewer than 5 rows" in " ".join(
        result.hazards)
    held = out.anon.check(Policy(k=3, max_records_at_risk=1.0))
    assert not any("classes of fewer than" in h for h in held.hazards)  # a limit was set


def test_a_repeated_index_is_matched_row_by_row():
    """An index repeated over visits (an id per patient, four rows each) used to crash check
    and the report with numpy's 'operands could not be broadcast'."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(20, 90, 400), "sex": rng.choice(["F", "M"], 400),
                       "dx": rng.choice(["a", "b", "c"], 400)},
                      index=np.repeat(np.arange(100), 4))
    out = df.anon.k_anonymize(5, quasi_identifiers={"age": "real", "sex": "unordered"},
                              sensitive=["dx"], method="suppress", algorithm="mondrian",
                              max_suppressed_rows=0.1)
    verdict = out.anon.check(Policy(k=5, max_suppressed_share=0.2), original=df)
    assert verdict.criteria["measured"].tolist()[1] == out.anon.info["suppressed_rows"] / 400
    assert out.anon.report(df).passed == out.anon.check(original=df).passed


def test_check_refuses_to_compare_a_release_in_another_order_with_its_input():
    """A release whose way back is not in this process (read back from a file) is not
    compared with its input row by row; in the process that made it, it is."""
    df = pd.DataFrame({"age": list(range(40)), "d": list("ab") * 20})
    shuffled = df.anon.k_anonymize(4, quasi_identifiers=["age"], sensitive=["d"])
    assert shuffled.anon.check(original=df).passed  # matched through the way back
    buffer = io.BytesIO()
    shuffled.to_parquet(buffer, index=False)
    back = pd.read_parquet(buffer)
    with pytest.raises(pdanon.InvalidInputError, match="cannot be compared one by one"):
        back.anon.check(original=df)
    assert back.anon.check().passed  # the release alone is measured as before


def test_local_suppression_is_measured_with_blanks_as_wildcards_throughout():
    """k and the record risks of a verdict, and the report's figures, follow one rule for
    missing cells: the release's (local suppression's blanks match any value). The verdict
    used to pass k = 2 (wildcards) beside records at risk measured on classes of one."""
    import json

    df = pd.DataFrame({"age": [30, 30, 40, 40, 50, None], "sex": list("FFMMFM"),
                       "d": list("abcabc")})
    out = df.anon.local_suppression(2, quasi_identifiers=["age", "sex"], sensitive=["d"])
    assert out.anon.info["missing"] == "wildcard"
    policy = Policy(k=2, max_records_at_risk=1.0, max_sample_uniques=0)
    verdict = out.anon.check(policy)
    measured = dict(zip(verdict.criteria["criterion"], verdict.criteria["measured"]))
    assert measured == {"k_anonymity": 3, "records_at_risk": 1.0, "sample_uniques": 0.0}
    assert not any("unique" in h for h in verdict.hazards)
    report = json.loads(out.anon.report(df, policy=policy).to_json())
    assert report["privacy"]["k_anonymity"] == 3
    assert report["privacy"]["risk_summary"]["sample_uniques"] == 0.0
    assert report["verdict"]["passed"] is True


def test_a_csv_read_back_with_its_schema_gets_the_releases_verdict(tmp_path):
    """Without info a read-back counted the rows blank from the start as suppressed (0.2
    against 0.1) and had no request to check by default; the schema carries the facts the
    verdict reads (request, suppressed rows, rule for missing cells)."""
    df = pd.DataFrame({"age": [30, 31, 32, 33, 40, 41, 42, 43, 90, np.nan],
                       "zip": ["a", "a", "a", "a", "b", "b", "b", "b", "z", None],
                       "d": list("xyxyxyxyxy")})
    wild = pd.DataFrame({"age": [30, 30, 40, 40, 50, None], "sex": list("FFMMFM"),
                         "d": list("abcabc")})
    releases = [df.anon.k_anonymize(2, quasi_identifiers={"age": "real", "zip": "unordered"},
                                    sensitive=["d"], algorithm="mondrian",
                                    max_suppressed_rows=1),
                wild.anon.local_suppression(2, quasi_identifiers=["age", "sex"],
                                            sensitive=["d"])]
    for out in releases:
        out.to_csv(tmp_path / "r.csv", index=False)
        pdanon.schema_to_yaml(out.anon.schema, tmp_path / "r.yaml")
        back = pdanon.read_csv(tmp_path / "r.csv",
                               schema=pdanon.schema_from_yaml(tmp_path / "r.yaml"))
        for policy in (None, Policy(k=2, max_suppressed_share=0.1, max_records_at_risk=0.5)):
            a, b = out.anon.check(policy), back.anon.check(policy)
            assert a.passed == b.passed
            assert a.criteria["measured"].tolist() == b.criteria["measured"].tolist()
    assert back.anon.info["missing"] == "wildcard"


def survey_release(weights):
    # classes a (3 rows), b (3), c (4) by zip, as release(); w: sampling weights
    return table().assign(w=weights).anon.with_schema(pdanon.schema(
        quasi_identifiers={"zip": "unordered"}, sensitive={"d": "unordered"},
        insensitive=["age", "w"]))


def test_weighted_risk_criteria_by_hand():
    # every weight 1: the sample is the population, so each row's individual risk is 1 / f:
    # 1/3 in classes a and b, 1/4 in c; global risk 3 / 10, expected re-identifications 3
    out = survey_release([1.0] * 10)
    policy = Policy(max_global_risk=0.3, max_expected_reidentifications=3,
                    max_individual_risk=0.34, weights="w")
    result = out.anon.check(policy)
    got = result.criteria.set_index("criterion")
    assert got.loc["global_risk", "measured"] == pytest.approx(0.3)
    assert got.loc["expected_reidentifications", "measured"] == pytest.approx(3.0)
    assert got.loc["highest_individual_risk", "measured"] == pytest.approx(1 / 3)
    assert result.passed
    assert not out.anon.check(Policy(max_individual_risk=0.3, weights="w")).passed
    # f = 3, F = 30 (p = 0.1): r ~ p / (f - (1 - p)) = 0.1 / 2.1 (sdcMicro's approximation)
    heavy = survey_release([10.0] * 6 + [1.0] * 4)
    measured = heavy.anon.check(Policy(max_individual_risk=1.0), weights="w").criteria
    assert measured["measured"].iloc[0] == pytest.approx(0.25)  # class c: weights 1, 1/4
    glob = heavy.anon.check(Policy(max_global_risk=1.0, weights="w")).criteria
    assert glob["measured"].iloc[0] == pytest.approx((6 * 0.1 / 2.1 + 4 * 0.25) / 10)


def test_weighted_risk_needs_weights_and_reaches_the_report():
    out = survey_release([1.0] * 10)
    with pytest.raises(pdanon.InvalidInputError, match="weights='w'"):
        out.anon.check(Policy(max_global_risk=0.1))
    with pytest.raises(pdanon.InvalidInputError, match="max_expected_reidentifications"):
        Policy(max_expected_reidentifications=-1)
    rep = out.anon.report(policy=Policy(max_global_risk=0.1), weights="w")
    rows = {c["criterion"]: c for c in rep.verdict["criteria"]}
    assert rows["global_risk"]["measured"] == pytest.approx(0.3)
    assert rows["global_risk"]["passed"] is False


def test_unknown_policy_keyword_says_did_you_mean():
    with pytest.raises(TypeError, match=r"did you mean max_global_risk="):
        Policy(max_global_rsk=0.01)
    with pytest.raises(UnknownKeywordError, match="did you mean k="):
        Policy(kk=5)
