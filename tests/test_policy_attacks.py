"""The attacks in the verdict (issue 51, point 4): ``Policy(max_singling_out=,
max_linkability=, max_inference=)`` read the upper bound of each risk's interval in
``check()``, the report and the CLI; without a control set a policy asking for them is refused;
the default policy shows them as figures, not criteria."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon._errors import InvalidInputError
from pdanon.attacks import holdout

QI = ["a", "b", "c", "d"]


def _population(n=500, seed=0):
    """Four quasi-identifiers drawn from 1,000 values each (every half of a row is unique)
    and a sensitive column of four values."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({c: rng.integers(0, 1000, n) for c in QI})
    df["s"] = rng.choice(list("wxyz"), n)
    return df


def _independent(original, seed=0):
    """A release of random rows: every column permuted on its own, under a fresh index."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: rng.permutation(original[c].to_numpy()) for c in original.columns})


def _check(release, policy, original, control, seed=0):
    return pdanon.checks.policy.check(release, policy, original=original, control=control,
                                      quasi_identifiers=QI, sensitive=["s"], seed=seed)


def test_a_copy_of_the_original_fails_max_linkability():
    original, control = holdout(_population(), seed=0)
    result = _check(original.copy(), pdanon.Policy(max_linkability=0.2), original, control)
    assert not result.passed
    row = result.criteria.set_index("criterion").loc["linkability_risk"]
    lo, hi = result.attacks["linkability"].ci
    assert row["measured"] == pytest.approx(hi) and lo > 0.8  # the upper bound is read
    assert "upper bound" in row["meaning"]


def test_independent_rows_pass_every_attack_criterion():
    original, control = holdout(_population(), seed=0)
    policy = pdanon.Policy(max_singling_out=0.2, max_linkability=0.2, max_inference=0.2)
    result = _check(_independent(original), policy, original, control)
    assert result.passed, result
    assert set(result.criteria["criterion"]) == {"singling_out_risk", "linkability_risk",
                                                  "inference_risk"}
    assert (result.criteria["measured"] <= 0.2).all()


@settings(max_examples=4, deadline=None)
@given(st.integers(0, 2**16))
def test_property_copy_fails_and_independent_rows_pass(seed):
    original, control = holdout(_population(800, seed), seed=seed)
    policy = pdanon.Policy(max_linkability=0.3, max_singling_out=0.3)
    assert not _check(original.copy(), policy, original, control, seed=seed).passed
    assert _check(_independent(original, seed), policy, original, control, seed=seed).passed


def test_the_criterion_is_the_upper_bound_not_the_risk():
    original, control = holdout(_population(), seed=1)
    result = _check(original.copy(), pdanon.Policy(max_inference=0.01), original, control)
    inf = result.attacks["inference"]["s"]
    row = result.criteria.set_index("criterion").loc["inference_risk"]
    assert row["measured"] == pytest.approx(inf.ci[1]) and inf.ci[1] >= inf.risk


def test_without_a_control_set_the_policy_is_refused_naming_the_fix():
    original, _ = holdout(_population(), seed=0)
    with pytest.raises(InvalidInputError, match=r"max_linkability.*control=.*holdout"):
        _check(original.copy(), pdanon.Policy(k=1, max_linkability=0.2), original, None)
    with pytest.raises(InvalidInputError, match=r"original=.*control="):
        pdanon.checks.policy.check(original.copy(), pdanon.Policy(max_inference=0.2),
                                   quasi_identifiers=QI, sensitive=["s"])


def test_control_without_original_is_refused():
    original, control = holdout(_population(), seed=0)
    with pytest.raises(InvalidInputError, match="original="):
        pdanon.checks.policy.check(original.copy(), pdanon.Policy(k=1), control=control,
                                   quasi_identifiers=QI)


def test_criteria_that_cannot_run_are_refused():
    original, control = holdout(_population(), seed=0)
    with pytest.raises(InvalidInputError, match="two quasi-identifiers"):
        pdanon.checks.policy.check(original.copy(), pdanon.Policy(max_linkability=0.2),
                                   original=original, control=control,
                                   quasi_identifiers=["a"], sensitive=["s"])
    with pytest.raises(InvalidInputError, match="sensitive"):
        pdanon.checks.policy.check(original.copy(), pdanon.Policy(max_inference=0.2),
                                   original=original, control=control, quasi_identifiers=QI)
    with pytest.raises(InvalidInputError, match="max_linkability"):
        pdanon.Policy(max_linkability=20)


def test_the_default_policy_shows_the_attacks_as_figures_not_criteria():
    df = _population()
    original, control = holdout(df, seed=0)
    out = original.anon.k_anonymize(5, quasi_identifiers=QI, sensitive=["s"])
    result = out.anon.check(original=original, control=control, seed=0)
    assert result.criteria["criterion"].tolist() == ["k_anonymity"]
    assert sorted(result.attacks) == ["inference", "linkability", "singling_out"]
    assert "attack risks beyond the control" in repr(result)
    rows = result.to_dict()["attacks"]
    assert {r["attack"] for r in rows} == {"singling_out", "linkability", "inference"}
    assert out.anon.check(original=original).attacks == {}  # no control: nothing run


def test_the_report_has_the_attack_section_with_a_control_set():
    original, control = holdout(_population(), seed=0)
    out = original.anon.k_anonymize(5, quasi_identifiers=QI, sensitive=["s"])
    rep = out.anon.report(original, control=control)
    assert {r["attack"] for r in rep.attacks} == {"singling_out", "linkability", "inference"}
    assert all(0 <= r["ci_low"] <= r["risk"] <= r["ci_high"] <= 1 for r in rep.attacks)
    html = rep.to_html()
    assert "Singling out, linkability, inference" in html and "beyond" in html
    assert "linkability_risk" not in [c["criterion"] for c in rep.verdict["criteria"]]
    assert "Singling out, linkability, inference" not in out.anon.report(original).to_html()
    failed = out.anon.report(original, control=control,
                             policy=pdanon.Policy(k=5, max_linkability=0.0))
    assert "linkability_risk" in [c["criterion"] for c in failed.verdict["criteria"]]
    with pytest.raises(InvalidInputError, match="control="):
        out.anon.report(original, policy=pdanon.Policy(max_linkability=0.2))


def test_the_report_and_the_publication_show_the_verdicts_own_draws(tmp_path):
    # the report attacked again with fresh draws, so its figures could differ from the
    # verdict's; it shows the verdict's (and the CLI's report goes through publish)
    import json

    from pdanon.checks.attack_risks import as_dicts

    df, control = holdout(_population(), seed=0)
    out = df.anon.k_anonymize(2, quasi_identifiers=QI, sensitive=["s"], algorithm="mondrian")
    policy = pdanon.Policy(k=2, max_linkability=0.99, max_singling_out=0.99)
    done = out.anon.publish(tmp_path / "rel", original=df, control=control, policy=policy,
                            formats=("parquet",))
    with open(tmp_path / "rel" / "report.json", encoding="utf-8") as fh:
        shown = json.load(fh)
    assert shown["attacks"] == json.loads(json.dumps(as_dicts(done.verdict.attacks)))
    reported = {c["criterion"]: c["measured"] for c in shown["verdict"]["criteria"]}
    measured = done.verdict.criteria.set_index("criterion")["measured"]
    assert reported["linkability_risk"] == pytest.approx(measured["linkability_risk"])
    again = out.anon.report(df, policy=policy, attacks=done.verdict.attacks)
    assert again.attacks == shown["attacks"]
