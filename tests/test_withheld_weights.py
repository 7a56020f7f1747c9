"""Sampling weights used for the risk without being published (issue 50 point 2, issue 47
point 1): stratum weights published beside a generalized ZIP give the ZIP back (the channel
rule refuses them), so a publisher withholds them (``identifiers=["w"]``, ``--identifiers w``)
and the weighted risk, the policy's weighted criteria and the report's survey figures are
measured from the original's weights, row by row through the release's publisher-only way
back (:func:`pdanon.metrics.survey.with_input_weights`), with the figures the published
column gives. The canary (no weight in any written file) is in tests/test_canary_sweep.py."""

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.__main__ import main

#: ZIP -> its stratum weight (one weight per ZIP: the weight names the ZIP)
STRATA = {"01002": 51.84, "01003": 337.43, "02134": 268.78, "02138": 364.02,
          "02139": 321.49, "02141": 155.06}
QI = {"age": "real", "zip": "unordered", "sex": "unordered"}
WEIGHTED = ("global_risk", "expected_reidentifications", "highest_individual_risk")


def survey(n: int = 480, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    zips = rng.choice(list(STRATA), n)
    return pd.DataFrame({
        "ref": np.arange(10_000, 10_000 + n), "zip": zips,
        "sex": rng.choice(["F", "M"], n), "age": rng.integers(0, 90, n),
        "wt": [STRATA[z] for z in zips], "diag": rng.choice(["flu", "hiv", "gout", "cold"], n),
        "income": rng.integers(1000, 90_000, n)})


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


def _measured(result) -> dict:
    return dict(zip(result.criteria["criterion"], result.criteria["measured"]))


POLICY = pdanon.Policy(k=5, max_global_risk=0.05, max_expected_reidentifications=50,
                       max_individual_risk=0.5, weights="wt")


# ------------------------------------------------------------------ Python


def test_hand_checked_risk_from_withheld_weights():
    """Two classes of two rows: F (weights 10, 30: F = 40) and M (5, 7: F = 12). For f = 2
    the individual risk is p/(1-p) - (p/(1-p))**2 ln(1/p), p = f / F (sdcMicro's exact
    formula). The weights are withheld; check reads them from the original."""
    df = pd.DataFrame({"sex": ["F", "F", "M", "M"], "w": [10.0, 30.0, 5.0, 7.0],
                       "d": ["a", "b", "a", "b"]})
    out = _quiet(df.anon.k_anonymize, 2, quasi_identifiers=["sex"], sensitive=["d"],
                 identifiers=["w"])
    assert "w" not in out.columns

    def r(p):
        q = p / (1 - p)
        return q - q * q * math.log(1 / p)

    risks = [r(2 / 40)] * 2 + [r(2 / 12)] * 2
    policy = pdanon.Policy(k=2, max_global_risk=1.0, max_expected_reidentifications=4,
                           max_individual_risk=1.0)
    got = _measured(out.anon.check(policy, weights="w", original=df))
    assert got["global_risk"] == pytest.approx(np.mean(risks), rel=1e-12)
    assert got["expected_reidentifications"] == pytest.approx(sum(risks), rel=1e-12)
    assert got["highest_individual_risk"] == pytest.approx(r(2 / 12), rel=1e-12)
    # Policy(weights=) reads them the same way
    pol = pdanon.Policy(k=2, max_global_risk=1.0, weights="w")
    assert _measured(out.anon.check(pol, original=df))["global_risk"] == \
        pytest.approx(np.mean(risks), rel=1e-12)


def test_without_the_original_the_refusal_says_how():
    df = survey(60)
    out = _quiet(df.anon.k_anonymize, 5, quasi_identifiers=QI, sensitive=["diag"],
                 identifiers=["ref", "wt"], insensitive=["income"])
    with pytest.raises(pdanon.UnknownColumnError, match=r"original=") as err:
        out.anon.check(POLICY)
    assert "check(..., weights='wt', original=df)" in str(err.value)
    # a column neither frame holds is named as such
    with pytest.raises(pdanon.UnknownColumnError, match="neither"):
        out.anon.check(POLICY, weights="nope", original=df)


def test_the_refusal_of_published_stratum_weights_says_they_can_be_withheld():
    df = survey()
    with pytest.raises(pdanon.ChannelError) as err:
        _quiet(df.anon.k_anonymize, 5, quasi_identifiers=QI, sensitive=["diag"],
               identifiers=["ref"], insensitive=["wt", "income"])
    text = str(err.value)
    assert "identifiers=['wt']" in text
    assert "check(..., weights='wt', original=df) still measures the weighted risk" in text
    # the advice works: withheld, the same table is published and measured
    out = _quiet(df.anon.k_anonymize, 5, quasi_identifiers=QI, sensitive=["diag"],
                 identifiers=["ref", "wt"], insensitive=["income"])
    assert out.anon.check(POLICY, original=df).passed


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**16), method=st.sampled_from(["generalize", "suppress",
                                                            "aggregate"]),
       k=st.integers(2, 8), budget=st.sampled_from([0, 0.1]))
def test_withheld_weights_give_the_figures_of_the_published_column(seed, method, k, budget):
    """Property: the same release with the weight column and without it (dropped after
    anonymizing: the same rows, suppressed ones included) measures the same weighted
    figures, in the verdict, the metrics and the report, when the weights are read from the
    original."""
    df = survey(160, seed)
    pub = _quiet(df.anon.k_anonymize, k, quasi_identifiers=QI, sensitive=["diag"],
                 identifiers=["ref"], insensitive=["wt", "income"], allow_channels=["wt"],
                 method=method, max_suppressed_rows=budget)
    hid = pub.drop(columns="wt")
    assert "wt" not in hid.columns
    policy = pdanon.Policy(k=k, max_global_risk=0.5, max_expected_reidentifications=1e6,
                           max_individual_risk=1.0, weights="wt")
    a, b = _measured(pub.anon.check(policy)), _measured(hid.anon.check(policy, original=df))
    for key in WEIGHTED:
        assert b[key] == a[key]
    ma = pub.anon.metrics(df, weights="wt").set_index("metric")["value"]
    mb = hid.anon.metrics(df, weights="wt").set_index("metric")["value"]
    for key in ("global_risk", "expected_reidentifications", "average_journalist_risk"):
        assert mb[key] == ma[key]
    ra = _quiet(pub.anon.report, df, weights="wt", policy=policy)
    rb = _quiet(hid.anon.report, df, weights="wt", policy=policy)
    assert rb.privacy["risk_summary"] == ra.privacy["risk_summary"]
    assert [c for c in rb.verdict["criteria"] if c["criterion"] in WEIGHTED] == \
        [c for c in ra.verdict["criteria"] if c["criterion"] in WEIGHTED]
    assert "wt" not in [c["column"] for c in rb.columns]


def test_rows_withheld_by_a_recoding_are_not_read():
    """apply_recoding(withhold=True) leaves rows out (the row aged 140: no band of the
    earlier release holds it, published blank and alone it fails k): the weights read are
    those of the rows published, as the published column would give."""
    from pdanon.hierarchy import intervals
    from pdanon.models import KAnonymity

    roles = dict(identifiers=["ref"], quasi_identifiers={"age": "real"}, sensitive=["diag"],
                 insensitive=["zip", "sex", "wt", "income"])
    first = _quiet(survey(300, 4).anon.generalize, {"age": 1},
                   hierarchies={"age": intervals([10, 20, 40])}, **roles)
    batch = pd.concat([survey(300, 5), pd.DataFrame({
        "ref": [1], "zip": ["01002"], "sex": ["F"], "age": [140], "wt": [51.84],
        "diag": ["flu"], "income": [5]})], ignore_index=True)
    pub = _quiet(batch.anon.apply_recoding, first.anon.recoding, model=KAnonymity(2),
                 withhold=True, **roles)
    assert pub.anon.info["rows_withheld"] >= 1 and len(pub) < len(batch)
    hid = pub.drop(columns="wt")
    policy = pdanon.Policy(max_global_risk=1.0, max_expected_reidentifications=1e6,
                           weights="wt")
    a = _measured(pub.anon.check(policy, quasi_identifiers=["age"]))
    b = _measured(hid.anon.check(policy, original=batch, quasi_identifiers=["age"]))
    assert b["global_risk"] == a["global_risk"]
    assert b["expected_reidentifications"] == a["expected_reidentifications"]


def test_publish_measures_withheld_weights_and_writes_none(tmp_path):
    df = survey()
    out = _quiet(df.anon.k_anonymize, 5, quasi_identifiers=QI, sensitive=["diag"],
                 identifiers=["ref", "wt"], insensitive=["income"])
    done = _quiet(out.anon.publish, tmp_path / "pub", formats=("parquet", "csv"),
                  original=df, policy=POLICY, recoding=True)
    measured = _measured(done.verdict)
    assert set(WEIGHTED) <= set(measured)
    assert measured["global_risk"] == _measured(out.anon.check(POLICY, original=df))[
        "global_risk"]
    assert "global_risk" in done.report.privacy["risk_summary"]
    assert "wt" not in pd.read_parquet(tmp_path / "pub" / "release.parquet").columns


# ------------------------------------------------------------------ the command line


def _run(capsys, *argv):
    code = main(["anonymize", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def _weighted_line(err: str) -> str:
    return next(line for line in err.splitlines() if line.startswith("weighted risk"))


def _verdict_figure(page: str, criterion: str) -> str:
    """The measured figure of a criterion in the report's verdict table."""
    text = re.sub(r"<[^>]+>", " ", page)
    return re.search(rf"{criterion}\s+([0-9.e-]+)", text).group(1)


def test_cli_withheld_weights_measure_what_the_published_column_measures(tmp_path, capsys):
    """The walk's command: --weights wt published is refused (a channel) with the advice to
    withhold it; with wt also in --identifiers the run succeeds (exit code by the policy),
    wt is in no file, and the closing line, the verdict and the report show the figures of
    the same run with wt published (--allow-channels wt)."""
    df = survey()
    src = tmp_path / "s.csv"
    df.to_csv(src, index=False)
    flags = ["--qi", "age,zip,sex", "--sensitive", "diag,income", "--weights", "wt",
             "-k", 5, "-l", 2, "--seed", 7]
    policy = "k=5,l=2,max_global_risk=0.05"
    code, _, err = _run(capsys, src, "-o", tmp_path / "no.csv", "--identifiers", "ref",
                        *flags, "--policy", policy)
    assert code == 2 and "column 'wt'" in err
    assert "--identifiers wt" in err and "--weights wt still measures the weighted risk" in err
    assert "check(" not in err
    runs = {}
    for name, extra in (("withheld", ["--identifiers", "ref,wt"]),
                        ("published", ["--identifiers", "ref", "--allow-channels", "wt"])):
        out, rep = tmp_path / f"{name}.parquet", tmp_path / f"{name}.html"
        code, _, err = _run(capsys, src, "-o", out, "--report", rep, *extra, *flags,
                            "--policy", policy)
        assert code == 0, err
        runs[name] = (pd.read_parquet(out), rep.read_text(), _weighted_line(err))
    hid, page_hid, line_hid = runs["withheld"]
    pub, page_pub, line_pub = runs["published"]
    assert "wt" not in hid.columns and "wt" in pub.columns
    assert not any(str(w) in page_hid for w in STRATA.values())
    expected = pub.anon.risk_summary(weights="wt")
    assert line_hid == line_pub
    assert f"global {expected['global_risk']:.4g}" in line_hid
    assert _verdict_figure(page_hid, "global_risk") == _verdict_figure(page_pub, "global_risk")
    # the exit code follows the policy: a limit under the measured risk fails (3)
    limit = expected["global_risk"] / 2
    code, _, err = _run(capsys, src, "-o", tmp_path / "fail.csv", "--identifiers", "ref,wt",
                        *flags, "--policy", f"k=5,l=2,max_global_risk={limit}")
    assert code == 3 and "global_risk" in err
    assert not (tmp_path / "fail.csv").exists()


def test_cli_a_dp_release_cannot_read_withheld_weights_and_says_so(tmp_path, capsys):
    """A DP release is a random sample with no way back to the input's rows: weights
    withheld from it cannot be read, and the refusal says so in the flags' words. (SafePub
    may publish no row at all, about one run in ten here: nothing is then measured, and the
    run is drawn again.)"""
    df = survey(3000, 2)[["zip", "sex", "wt"]]
    src = tmp_path / "s.csv"
    df.to_csv(src, index=False)
    for _ in range(6):
        out = tmp_path / "dp.csv"
        code, _, err = _run(capsys, src, "-o", out, "--qi", "zip,sex",
                            "--hierarchy", "zip=mask:1,2,3", "--identifiers", "wt",
                            "--weights", "wt", "--epsilon", 1, "--dp-delta", "1e-5",
                            "--policy", "max_global_risk=0.5")
        if code != 0:
            break
        assert len(pd.read_csv(out)) == 0  # passed only with nothing published
        out.unlink()
    assert code == 2 and "differentially private" in err and "--epsilon" in err
    assert "original=" not in err and "check(" not in err
    assert not (tmp_path / "dp.csv").exists()
