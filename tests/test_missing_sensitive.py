"""Missing sensitive values are not diversity (issue 47, point 5): by default
(``missing_sensitive="unknown"``) l-diversity, t-closeness, β-likeness and δ-disclosure read a
blank sensitive cell as no value, in every partitioner, measure, check and chain; the old
rule stays behind ``missing_sensitive="value"``, recorded in ``info``."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon
from pdanon._errors import InfeasibleError, InvalidInputError
from pdanon.models import AllOf, KAnonymity, LDiversity, TCloseness
from pdanon.models.record import rebuild, record, recorded_rule
from pdanon.models.request import request

ROLES = dict(quasi_identifiers=["age"], sensitive=["d"])


def hiv_table() -> pd.DataFrame:
    """Ages 20-29 hold 5 x hiv and 5 blanks; ages 40-49 two rounds of flu, cold, hiv, flu,
    cold. Counting the blank as a value, [20, 29] is a 2-diverse class of 10 rows."""
    return pd.DataFrame({"age": list(range(20, 30)) + list(range(40, 50)),
                         "d": ["hiv"] * 5 + [None] * 5 + ["flu", "cold", "hiv", "flu", "cold"] * 2})


def known_per_class(out: pd.DataFrame, qis=("age",), col="d") -> pd.Series:
    """Distinct known values of ``col`` per published class, by plain pandas."""
    return out.astype({q: str for q in qis}).groupby(list(qis), dropna=False)[col].nunique(
        dropna=True)


def l_diversify(df, algorithm, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdanon.SingleClassWarning)
        return df.anon.l_diversify(2, k=5, algorithm=algorithm, **ROLES, **kw)


@pytest.mark.parametrize("algorithm", ["mondrian", "datafly", "nearest", "group_join",
                                       "equal_groups"])
def test_hiv_beside_blanks_fails_l2_by_default_and_passes_with_the_old_rule(algorithm):
    df = hiv_table()
    out = l_diversify(df, algorithm)
    assert known_per_class(out).min() >= 2
    assert out.anon.l_diversity() >= 2
    assert out.anon.info["models"][-1]["params"]["missing_sensitive"] == "unknown"
    assert out.anon.check().passed and out.anon.check(pdanon.Policy(k=5, l=2)).passed
    old = l_diversify(df, algorithm, missing_sensitive="value")
    assert old.anon.info["models"][-1]["params"]["missing_sensitive"] == "value"
    # the old rule counts the blank: l = 2 measured by it, the measure reads it from info
    assert old.anon.l_diversity() == old.anon.l_diversity(missing_sensitive="value") >= 2
    pd.testing.assert_frame_equal(df, hiv_table())  # the input is not touched


@pytest.mark.parametrize("algorithm", ["mondrian", "nearest"])
def test_the_old_rule_publishes_the_hiv_class_and_check_names_it(algorithm):
    old = l_diversify(hiv_table(), algorithm, missing_sensitive="value")
    assert old.anon.l_diversity(missing_sensitive="unknown") == 1
    # the default policy is the release's request, read by its recorded rule: it passes,
    # and the hazard is named in words
    own = old.anon.check()
    assert own.passed and own.policy.missing_sensitive == "value"
    hazard = [h for h in own.hazards if h.startswith("every known value of 'd' is the same")]
    assert hazard and "the blanks beside them hide nothing" in hazard[0]
    if algorithm == "mondrian":  # the class [20, 29]: 5 x hiv, 5 blanks
        assert "in 1 class(es) (10 rows, 50.0%)" in hazard[0]
    strict = old.anon.check(pdanon.Policy(k=5, l=2))
    assert not strict.passed
    row = strict.criteria.set_index("criterion").loc["l_diversity_distinct"]
    assert row["measured"] == 1 and "blanks are no value" in row["meaning"]
    assert old.anon.check(pdanon.Policy(k=5, l=2, missing_sensitive="value")).passed


def test_check_of_an_unanonymized_table_with_blanks():
    df = pd.DataFrame({"zip": [1] * 10 + [2] * 4, "d": ["hiv"] * 5 + [None] * 5 + list("abab")})
    from pdanon.checks.policy import check

    res = check(df, pdanon.Policy(l=2), quasi_identifiers=["zip"], sensitive=["d"])
    assert not res.passed
    assert any("every known value of 'd' is the same in 1 class(es) (10 rows, 71.4%)" in h
               for h in res.hazards)
    with pytest.raises(InvalidInputError, match="missing_sensitive must be"):
        pdanon.Policy(l=2, missing_sensitive="na")


def test_nearest_flu_beside_four_blanks():
    # the nearest rule used to close a group of k = 5 at "1 x flu, 4 x blank"
    df = pd.DataFrame({"age": list(range(10)),
                       "d": ["flu", None, None, None, None, "cold", "flu", "cold", "hiv", "flu"]})
    out = df.anon.l_diversify(2, k=5, algorithm="nearest", **ROLES)
    assert known_per_class(out).min() >= 2
    old = df.anon.l_diversify(2, k=5, algorithm="nearest", missing_sensitive="value", **ROLES)
    assert old.anon.l_diversity(missing_sensitive="unknown") == 1


def test_a_class_of_blanks_only_has_l_0_and_no_distance():
    df = pd.DataFrame({"q": [1, 1, 2, 2], "d": [None, None, "a", "b"]})
    assert pdanon.models.l_diversity(df, ["q"], ["d"]) == 0
    assert pdanon.models.l_diversity(df, ["q"], ["d"], variant="entropy") == 0.0
    assert pdanon.models.l_diversity(df, ["q"], ["d"], variant="recursive", c=3) == 0
    # it shows nothing of the column: every distribution model passes it
    assert pdanon.models.t_closeness(df, ["q"], ["d"]) == 0.0
    for distance in ("jensen_shannon", "emd"):
        assert TCloseness(0.01, distance=distance).holds(df, ["q"], ["d"])


def test_whole_table_with_one_known_value_is_infeasible():
    df = pd.DataFrame({"age": range(8), "d": ["hiv"] * 4 + [None] * 4})
    with pytest.raises(InfeasibleError, match="missing_sensitive='unknown'"):
        df.anon.l_diversify(2, **ROLES)
    out = df.anon.l_diversify(2, missing_sensitive="value", **ROLES)
    assert out.anon.l_diversity() == 2


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(6, 40), seed=st.integers(0, 10_000),
       blank=st.sampled_from([0.1, 0.4, 0.7]),
       algorithm=st.sampled_from(["mondrian", "datafly", "nearest", "group_join"]))
def test_every_class_of_an_l_diverse_release_holds_l_known_values(n, seed, blank, algorithm):
    rng = np.random.default_rng(seed)
    d = rng.choice(["flu", "cold", "hiv"], n).astype(object)
    d[rng.random(n) < blank] = None
    df = pd.DataFrame({"age": rng.integers(20, 60, n), "zip": rng.choice(["a", "b", "c"], n),
                       "d": d})
    qis = {"age": "real", "zip": "unordered"}
    if pd.Series(d).nunique() < 2:
        with pytest.raises(InfeasibleError):
            df.anon.l_diversify(2, quasi_identifiers=qis, sensitive=["d"], algorithm=algorithm)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdanon.SingleClassWarning)
        out = df.anon.l_diversify(2, k=2, quasi_identifiers=qis, sensitive=["d"],
                                  algorithm=algorithm)
    assert known_per_class(out, tuple(qis)).min() >= 2
    assert out.anon.l_diversity() >= 2


def test_exact_counts_known_values_and_refuses_what_it_cannot_model():
    df = hiv_table().iloc[::2].reset_index(drop=True)
    out = df.anon.l_diversify(2, k=2, algorithm="exact", method="suppress", **ROLES)
    assert known_per_class(out).min() >= 2
    with pytest.raises(InvalidInputError, match="algorithm='exact' cannot express"):
        df.anon.t_close(0.5, algorithm="exact", method="suppress", **ROLES)
    out = df.anon.t_close(0.5, algorithm="exact", method="suppress",
                          missing_sensitive="value", **ROLES)
    assert out.anon.t_closeness() <= 0.5


def test_t_beta_delta_releases_agree_with_their_measures():
    df = hiv_table()
    out = df.anon.t_close(0.3, **ROLES)
    assert out.anon.t_closeness() <= 0.3 + 1e-12
    assert out.anon.t_closeness() == pdanon.models.t_closeness(out, ["age"], ["d"])
    for model, measure, bound in (
            (pdanon.models.BetaLikeness(1.0), "beta_likeness", 1.0),
            (pdanon.models.DeltaDisclosure(1.5), "delta_disclosure", 1.5)):
        out = df.anon.anonymize(model, algorithm="mondrian", **ROLES)
        assert getattr(out.anon, measure)() <= bound
        assert out.anon.info["models"][0]["params"]["missing_sensitive"] == "unknown"


def test_request_records_and_rebuilds_the_rule():
    with pytest.raises(InvalidInputError, match="pass l=... or t=..."):
        request(k=3, missing_sensitive="value")
    m = request(k=3, l=2, t=0.3, missing_sensitive="value")
    assert repr(m) == ("AllOf(KAnonymity(k=3), LDiversity(l=2, missing_sensitive='value'), "
                       "TCloseness(t=0.3, missing_sensitive='value'))")
    assert repr(rebuild(record(m))) == repr(m)
    assert recorded_rule({"models": record(m)}, "TCloseness") == "value"
    # a record from before the keyword is read with today's default
    old = [{"model": "LDiversity", "params": {"l": 2, "variant": "distinct"}}]
    assert rebuild(old).missing_sensitive == "unknown"
    assert recorded_rule({"models": old}) == "unknown"


def test_chain_and_parquet_keep_the_rule(tmp_path):
    df = hiv_table().assign(zip=["a", "b"] * 10)
    roles = dict(quasi_identifiers={"age": "real"}, sensitive=["d"])
    first = df.anon.l_diversify(2, k=5, algorithm="mondrian", missing_sensitive="value",
                                **roles)
    path = tmp_path / "r.parquet"
    first.to_parquet(path)
    back = pd.read_parquet(path)
    assert back.anon.info["models"] == first.anon.info["models"]
    assert back.anon.l_diversity() == first.anon.l_diversity() == 2  # the value rule
    assert back.anon.l_diversity(missing_sensitive="unknown") == 1
    second = back.anon.k_anonymize(5, algorithm="mondrian", **roles)
    parts = {p["model"]: p["params"] for p in second.anon.info["models"]}
    assert parts["LDiversity"]["missing_sensitive"] == "value"
    assert second.anon.l_diversity() >= 2
    # the same chain under the default rule keeps the default
    strict = df.anon.l_diversify(2, k=5, algorithm="mondrian", **roles)
    strict.to_parquet(path)
    again = pd.read_parquet(path).anon.k_anonymize(5, algorithm="mondrian", **roles)
    assert {p["model"]: p["params"] for p in again.anon.info["models"]}["LDiversity"][
        "missing_sensitive"] == "unknown"
    assert known_per_class(again).min() >= 2


def test_metrics_table_reads_the_release_rule():
    old = l_diversify(hiv_table(), "mondrian", missing_sensitive="value")
    table = lambda **kw: pdanon.metrics.metrics_table(old, **kw).set_index("metric")["value"]
    assert table()["l_diversity_distinct"] == 2
    assert table(missing_sensitive="unknown")["l_diversity_distinct"] == 1


def test_check_releases_counts_known_values():
    a = pd.DataFrame({"age": ["20-29"] * 4 + ["30-39"] * 4,
                      "d": ["hiv", "hiv", None, None, "flu", "cold", None, "flu"]})
    b = pd.DataFrame({"zip": ["1", "2"] * 4, "d": a["d"]})
    keys = [list(range(8)), list(range(8))]
    qis = [["age"], ["zip"]]
    res = pdanon.check_releases([a, b], keys=keys, quasi_identifiers=qis, sensitive="d")
    old = pdanon.check_releases([a, b], keys=keys, quasi_identifiers=qis, sensitive="d",
                                missing_sensitive="value")
    # person 0: age 20-29 {hiv, _} & zip 1 {hiv, _, flu, _} -> {hiv} (old rule {hiv, _})
    assert res.candidates[0] == 1 and old.candidates[0] == 2
    assert res.combined_l == 1 and old.combined_l == 2
    # a class of blanks alone leaves no candidate
    blanks = pd.DataFrame({"age": ["x"] * 2, "d": [None, None]})
    assert pdanon.check_releases([blanks], keys=[[1, 2]], quasi_identifiers=[["age"]],
                                 sensitive="d").combined_l == 0
    with pytest.raises(InvalidInputError, match="missing_sensitive"):
        pdanon.check_releases([a], keys=[keys[0]], sensitive="d", missing_sensitive="x")


def test_dask_measures_and_release_agree_with_pandas():
    dd = pytest.importorskip("dask.dataframe")
    import dask

    import pdanon.dask  # noqa: F401  (registers ddf.anon)

    df = hiv_table()
    with dask.config.set(scheduler="synchronous"):
        ddf = dd.from_pandas(df, npartitions=3)
        labels = pd.Series(np.repeat([0, 1, 2, 3], 5)).astype(str)
        grouped = df.assign(age=labels)
        gdd = dd.from_pandas(grouped, npartitions=2)
        for rule in ("unknown", "value"):
            for variant, c in (("distinct", None), ("entropy", None), ("recursive", 2)):
                assert gdd.anon.l_diversity(variant=variant, c=c, missing_sensitive=rule,
                                            **ROLES) == pytest.approx(
                    pdanon.models.l_diversity(grouped, ["age"], ["d"], variant=variant, c=c,
                                              missing_sensitive=rule))
        # classes of 5: hiv x 5 (l = 1), 5 blanks (l = 0), then flu/cold/hiv mixes
        assert gdd.anon.l_diversity(**ROLES) == 0
        assert gdd.anon.l_diversity(missing_sensitive="value", **ROLES) == 1
        out = ddf.anon.l_diversify(2, k=5, **ROLES).compute()
        assert known_per_class(out).min() >= 2


def test_the_report_names_the_hazard_and_measures_l_by_the_rule():
    old = l_diversify(hiv_table(), "mondrian", missing_sensitive="value")
    rep = old.anon.report(progress=False, policy=pdanon.Policy(k=5, l=2))
    assert rep.passed is False
    assert any("every known value of 'd' is the same" in h for h in rep.verdict["hazards"])
    l_row = [c for c in rep.verdict["criteria"] if c["criterion"] == "l_diversity_distinct"]
    assert l_row[0]["measured"] == 1
    assert "the blanks beside them hide nothing" in rep.to_html()


@pytest.mark.parametrize("variant", ["distinct", "entropy"])
def test_optimal_search_reads_known_values(variant):
    from pdanon.hierarchy import intervals

    df = hiv_table()
    out = df.anon.l_diversify(2, k=5, variant=variant, algorithm="optimal",
                              hierarchies={"age": intervals([10, 20])}, max_suppressed_rows=5,
                              **ROLES)
    published = out.dropna(subset=["age"])
    assert known_per_class(published).min() >= 2
    assert out.anon.l_diversity(variant=variant) >= 2 - 1e-9
    t = df.anon.t_close(0.4, k=5, algorithm="optimal", hierarchies={"age": intervals([10, 20])},
                        **ROLES)
    assert t.anon.t_closeness() <= 0.4 + 1e-12
