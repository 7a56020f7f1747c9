"""pdanon.report: the release report on the output of every kind of anonymizer, its JSON, its
HTML (accessibility basics, no URL), determinism, and that it never carries an original
value, a seed or a key."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon.hierarchy import intervals, masking
from pdanon.report import ReleaseReport, build_report
from pdanon.report.columns import published_loss
from tests._helpers.html_checks import accessibility_problems, count_graphics, external_urls

ROLES = dict(quasi_identifiers=["zipcode", "age"], sensitive=["disease"])
H = {"age": intervals([10, 20]), "zipcode": masking()}
RARE_ZIP = "99917"  # one row's zip code: a distinctive original value
SEED = 987654321
KEY = b"KEY-SECRET-0123456789-abcdef-XYZ"


def patients(n: int = 300) -> pd.DataFrame:
    df = pdanon.datasets.make_patients(n, seed=3)
    df.loc[7, "zipcode"] = RARE_ZIP
    return df


FACES = {
    "mondrian": lambda df: df.anon.k_anonymize(5, algorithm="mondrian", **ROLES, row_order="input"),
    "optimal": lambda df: df.anon.k_anonymize(5, algorithm="optimal", hierarchies=H,
                                              max_suppressed_rows=0.05, **ROLES, row_order="input"),
    "datafly": lambda df: df.anon.k_anonymize(5, algorithm="datafly", max_suppressed_rows=6,
                                              **ROLES, row_order="input"),
    "group_join": lambda df: df.anon.k_anonymize(4, algorithm="group_join", seed=SEED,
                                                 **ROLES, row_order="input"),
    "l_diversify": lambda df: df.anon.l_diversify(2, k=3, **ROLES, row_order="input"),
    "t_close": lambda df: df.anon.t_close(0.4, k=3, **ROLES, row_order="input"),
    "suppress": lambda df: df.anon.k_anonymize(3, method="suppress", algorithm="mondrian",
                                               **ROLES, row_order="input"),
    "microaggregate": lambda df: df.anon.microaggregate(3, **ROLES, row_order="input"),
    "add_noise": lambda df: df.anon.add_noise(columns=["age"], seed=SEED, **ROLES, row_order="input"),
    "local_suppression": lambda df: df.anon.local_suppression(3, **ROLES, row_order="input"),
    "pram": lambda df: df.anon.pram(columns=["gender"], seed=SEED, **ROLES, row_order="input"),
    "generalize": lambda df: df.anon.generalize({"age": 1, "zipcode": 2}, hierarchies=H,
                                                **ROLES, row_order="input"),
}


@pytest.fixture(scope="module")
def releases():
    df = patients()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return df, {name: face(df) for name, face in FACES.items()}


def _check_report(rep: ReleaseReport, out: pd.DataFrame, original) -> None:
    assert rep.privacy["k_anonymity"] == out.anon.k_anonymity(**ROLES)
    expected = out.anon.risk_summary(**ROLES)
    assert rep.privacy["risk_summary"] == pytest.approx(expected.to_dict())
    data = json.loads(rep.to_json())
    assert data["privacy"]["k_anonymity"] == rep.privacy["k_anonymity"]
    assert [(c["column"], c["role"]) for c in data["columns"]] == [
        ("zipcode", "quasi-identifier"), ("age", "quasi-identifier"), ("disease", "sensitive")]
    page = rep.to_html()
    assert accessibility_problems(page) == []
    assert external_urls(page) == []
    for heading in ("What was lost", "Privacy in detail", "Suppressed rows",
                    "Parameters of the release", "Notes"):
        assert f"<h2>{heading}</h2>" in page
    assert page.index('<section class="verdict') < page.index("<h2>What was lost</h2>")
    assert count_graphics(page) == 3  # per-column shares, class sizes, risk
    # the blank-cells summary, from the release alone: one row per reason
    blank = out[["zipcode", "age"]].isna()
    summary = rep.suppressed
    assert list(summary.columns) == ["reason", "rows", "blank", "columns", "index"]
    assert summary["rows"].sum() == blank.any(axis=1).sum()
    whole = blank.all(axis=1)
    some = blank.any(axis=1) & ~whole
    for row in summary.to_dict(orient="records"):
        rows = whole if row["blank"] == "every quasi-identifier" else some
        assert row["rows"] == rows.sum() and row["index"] == out.index[rows].tolist()
        assert row["columns"] == [c for c in ("zipcode", "age") if blank.loc[rows, c].any()]
    assert len(summary) <= 2  # grows with the reasons, never with the rows


@pytest.mark.parametrize("name", list(FACES))
def test_report_on_every_face(releases, name):
    df, outs = releases
    out = outs[name]
    before, attrs = out.copy(), json.dumps(out.attrs, default=str)
    rep = out.anon.report(df)
    _check_report(rep, out, df)
    pd.testing.assert_frame_equal(out, before)  # nothing mutated
    assert json.dumps(out.attrs, default=str) == attrs
    info = out.anon.info
    summary = rep.suppressed
    if "suppressed_rows" in info:
        whole = summary["blank"] == "every quasi-identifier"
        full = summary.loc[whole, "rows"].sum()
        reasons = set(summary.loc[whole, "reason"])
        assert full == info["suppressed_rows"]  # no QI is missing in the input
        if info.get("method") == "suppress":  # cells blanked where a group differs
            assert reasons <= {"method='suppress' blanks every quasi-identifier cell of a "
                               "group that differs in each"}
        elif full:
            assert reasons == {
                f"{info['algorithm']} withholds outliers whose class would not satisfy "
                f"{info['model']}, rather than generalizing every other row further"
                f" (suppression budget: {info['max_suppressed_rows']} rows); the withheld rows "
                "are one class, which meets the model too (the smallest classes are withheld "
                "with them when needed)"}
    if name == "local_suppression":
        per = info["cells_suppressed_per_column"]
        qi_facts = [c for c in rep.columns if c["role"] == "quasi-identifier"]
        assert {c["column"]: c["suppressed_cells"] for c in qi_facts} == per
        assert {c["column"]: c["blank_cells"] for c in qi_facts} == per
        assert summary["reason"].str.contains("local suppression").all()
    if name == "optimal":
        levels = {h["column"]: h["level"] for h in rep.parameters["hierarchy_levels"]}
        assert levels == info["levels"]
    assert rep.parameters["operation"] == info.get("algorithm", info.get("operation"))
    assert rep.utility["changed_cells"] == sum(c["changed_cells"] for c in rep.columns
                                               if c["role"] == "quasi-identifier")
    # every face is priced (local suppression's nullable integers with pd.NA included),
    # against the published domain
    assert rep.utility["information_loss"] == pytest.approx(
        published_loss(out, df, {"zipcode": "unordered", "age": "real"}))
    # nothing measured against the original beyond what may be printed
    names = set(rep.metrics["metric"])
    assert not names & set(rep.left_out)
    assert names - set(out.anon.metrics(**ROLES)["metric"]) == {"changed_proportion"}
    for key in ("objective_value", "loss", "sse", "sst", "sse_sst", "il1s"):
        assert key not in rep.parameters["options"]
    assert "loss=" not in json.dumps(rep.parameters["options"])
    requested = rep.privacy["requested"]
    if "k" in info.get("params", {}) or isinstance(info.get("k"), int):
        assert requested["k"] == info.get("params", {}).get("k", info.get("k"))
    if name == "group_join":  # randomized: how, never the seed
        assert rep.parameters["randomness"] == "given by the caller (not recorded)"


def test_datafly_suppressed_rows_by_hand():
    df = pd.DataFrame({"age": [30, 30, 30, 31, 31, 31, 90], "zip": ["a"] * 6 + ["RARE-Z"],
                       "d": ["x", "y"] * 3 + ["x"]})
    # the lone (90, RARE-Z) fails k = 3; withheld alone it would be a class of one row, so
    # the smallest class (age 30, first seen of the two of three rows) is withheld with it
    out = df.anon.k_anonymize(3, algorithm="datafly", max_suppressed_rows=4,
                              quasi_identifiers=["age", "zip"], sensitive=["d"], row_order="input")
    rep = out.anon.report(df)
    assert rep.suppressed.to_dict(orient="records") == [
        {"reason": "datafly withholds outliers whose class would not satisfy k-anonymity, "
                   "rather than generalizing every other row further (suppression budget: "
                   "4 rows); the withheld rows are one class, which meets the model too (the "
                   "smallest classes are withheld with them when needed)",
         "rows": 4, "blank": "every quasi-identifier", "columns": ["age", "zip"],
         "index": [0, 1, 2, 6]}]
    assert [c["suppressed_cells"] for c in rep.columns] == [4, 4, 0]  # age, zip, d
    assert [c["blank_cells"] for c in rep.columns] == [4, 4, 0]
    assert rep.utility["discernibility"] == 3 ** 2 + 4 * 7
    assert rep.privacy["k_anonymity"] == 3 == out.anon.info["achieved"]["k"]
    page, text = rep.to_html(), rep.to_json()
    assert "RARE-Z" not in page and "RARE-Z" not in text


def test_no_original_value_seed_or_key_in_the_report(releases):
    df, outs = releases
    for name in ("datafly", "optimal", "group_join", "add_noise", "pram", "suppress"):
        out = outs[name]
        for rep in (out.anon.report(df), out.anon.report()):
            for text in (rep.to_html(), rep.to_json()):
                assert RARE_ZIP not in text, name
                assert str(SEED) not in text, name
    hashed = patients().assign(name=lambda d: [f"PERSON-{i:05d}" for i in range(len(d))])
    out = hashed.anon.hash_identifiers(key=KEY, identifiers=["name"], **ROLES)
    generated = hashed.anon.hash_identifiers(identifiers=["name"], **ROLES)
    for o in (out, generated):
        rep = o.anon.report(hashed, identifiers=["name"], **ROLES)
        for text in (rep.to_html(), rep.to_json()):
            assert "PERSON-0" not in text
            assert KEY.decode() not in text and KEY.hex() not in text
            assert "fingerprint" not in text
            if "key_fingerprint" in o.anon.info:
                assert o.anon.info["key_fingerprint"] not in text


def test_report_without_original(releases):
    df, outs = releases
    out = outs["datafly"]
    rep = out.anon.report()
    assert rep.parameters["digest_original"] is None
    assert rep.utility["changed_cells"] == out.anon.info["changed_cells"]
    assert rep.utility["information_loss"] is None
    assert any("No original table was given" in n for n in rep.notes)
    assert "No original table was given" in rep.to_html()
    _check_report(rep, out, None)


def test_parquet_round_trip(releases, tmp_path):
    df, outs = releases
    for name in ("datafly", "optimal", "microaggregate"):
        out = outs[name]
        out.to_parquet(tmp_path / f"{name}.parquet")
        back = pd.read_parquet(tmp_path / f"{name}.parquet")
        assert back.anon.info == out.anon.info
        rep, direct = back.anon.report(df), out.anon.report(df)
        _check_report(rep, back, df)
        for part in ("privacy", "utility", "columns"):
            assert getattr(rep, part) == getattr(direct, part)
        pd.testing.assert_frame_equal(rep.suppressed, direct.suppressed)


def test_deterministic_and_json_safe(releases):
    df, outs = releases
    out = outs["optimal"]
    a, b = out.anon.report(df), out.anon.report(df)
    assert a.to_html() == b.to_html() and a.to_json() == b.to_json()
    assert "seconds" not in a.to_json()
    data = json.loads(a.to_json())
    assert data["parameters"]["digest_anonymized"] == a.parameters["digest_anonymized"]
    assert data["parameters"]["digest_original"] is None  # no key: no digest of the original
    keyed = out.anon.report(df, digest_key=KEY)
    assert keyed.to_json() == out.anon.report(df, digest_key=KEY).to_json()
    assert len(keyed.parameters["digest_original"]) == 64
    assert keyed.parameters["digest_original"] != out.anon.report(
        df, digest_key=KEY + b"!").parameters["digest_original"]
    assert "HMAC-SHA-256 (keyed)" in keyed.to_html()
    # NaN is null in the JSON (a metric with no value)
    rep = pd.DataFrame({"age": [1.0, 1.0]}).anon.report()
    assert json.loads(rep.to_json())["utility"]["information_loss"] is None


def test_repr_html_and_save(releases, tmp_path):
    df, outs = releases
    path = tmp_path / "r.html"
    rep = outs["mondrian"].anon.report(df, path, title="Patients <2024>")
    page = path.read_text(encoding="utf-8")
    assert page == rep.to_html()
    assert "<h1>Patients &lt;2024&gt;</h1>" in page
    frag = rep._repr_html_()
    assert frag.startswith("<style>") and "<html" not in frag and "<h1>" in frag


@pytest.mark.slow
def test_tradeoff_and_ml_utility():
    from pdanon.plot import tradeoff_table

    pytest.importorskip("sklearn")
    df = patients(200)
    table = tradeoff_table(df, k=[2, 5, 10], hierarchies=H, max_suppressed_rows=0.05, **ROLES)
    out = df.anon.k_anonymize(5, algorithm="optimal", hierarchies=H, max_suppressed_rows=0.05,
                              **ROLES)
    rep = out.anon.report(df, target="disease", tradeoff=table)
    assert set(rep.utility["ml"]) == {"boosting_security_score", "boosting_accuracy_ratio"}
    assert all(v == round(v, 2) for v in rep.utility["ml"].values())  # two decimals
    assert rep.tradeoff["information_loss"].tolist() == table["information_loss"].round(
        2).tolist()
    page = rep.to_html()
    assert "<h2>Privacy and utility trade-off</h2>" in page
    assert "<h3>Utility for the target</h3>" in page
    assert "the linkage attack trains on 2,000 sampled rows" in page  # bounded, and says so
    assert count_graphics(page) == 4 and accessibility_problems(page) == []
    assert json.loads(rep.to_json())["tradeoff"][0]["k"] == 2
    # the same input gives the same page: the candidates' timings are left out
    again = tradeoff_table(df, k=[2, 5, 10], hierarchies=H, max_suppressed_rows=0.05, **ROLES)
    assert "seconds" in again and "seconds" not in rep.tradeoff
    assert out.anon.report(df, tradeoff=again).to_html() == out.anon.report(
        df, tradeoff=table).to_html()


def test_tradeoff_table_varies_k_under_a_fixed_l():
    """One l with a list of k: every candidate is k-anonymous and l-diverse, so the release
    chosen among them lies on the curve."""
    from pdanon.plot import information_loss, tradeoff_table

    df = patients(200)
    table = tradeoff_table(df, k=[2, 5], l=2, algorithm="mondrian", **ROLES)
    assert table["k"].tolist() == [2, 5]
    release = df.anon.l_diversify(2, k=5, algorithm="mondrian", **ROLES)
    assert table.loc[1, "information_loss"] == pytest.approx(
        information_loss(df, release, ["zipcode", "age"]))
    assert table.loc[1, "classes"] == release.anon.info["groups"]


def test_errors():
    df = patients(50)
    out = df.anon.k_anonymize(3, algorithm="mondrian", **ROLES)
    with pytest.raises(pdanon.InvalidInputError, match="original"):
        out.anon.report(df.to_numpy())
    with pytest.raises(pdanon.InvalidInputError, match="target"):
        out.anon.report(df, target="nope")
    with pytest.raises(pdanon.InvalidInputError, match="original"):
        out.anon.report(target="disease")
    with pytest.raises(pdanon.InvalidInputError, match="title"):
        out.anon.report(df, title="")
    with pytest.raises(pdanon.InvalidInputError, match="tradeoff"):
        out.anon.report(df, tradeoff=[1, 2])
    with pytest.raises(pdanon.InvalidInputError, match="DataFrame"):
        build_report([1, 2])
    with pytest.raises(pdanon.InvalidInputError, match="unknown keyword"):
        build_report(out, df, qis=["age"])


def test_large_table_is_fast():
    import time

    df = pdanon.datasets.make_patients(30_000, seed=0)
    out = df.anon.k_anonymize(10, algorithm="mondrian", **ROLES)
    started = time.perf_counter()
    rep = out.anon.report(df)
    rep.to_html(), rep.to_json()
    assert time.perf_counter() - started < 30  # a few seconds on one core; generous bound
    assert rep.privacy["k_anonymity"] >= 10 and len(rep.privacy["prosecutor"]) == 30_000
    assert np.isclose(sum(rep.privacy["class_sizes"]), 30_000)


def _banded_release():
    """A hand-made release: ages in two published bands of 19 years (20-39, 40-59) and one
    row withheld whose original age, 113, lies far outside them."""
    from pdanon.dtype import GeneralizationArray

    original = pd.DataFrame({"age": [21, 25, 30, 41, 45, 50, 113]})
    age = GeneralizationArray.from_bounds([20] * 3 + [40] * 3 + [0], [39] * 3 + [59] * 3 + [0],
                                          kind="real", mask=[False] * 6 + [True])
    return original, pd.DataFrame({"age": age})


def test_widths_and_loss_are_relative_to_the_published_range():
    original, out = _banded_release()
    rep = build_report(out, original, quasi_identifiers={"age": "real"})
    age = rep.columns[0]
    assert age["mean_width"] == 19.0 and age["relative_width"] == pytest.approx(19 / 39)
    # six bands of 19 over the published 20..59, one blank cell costing 1
    assert rep.utility["information_loss"] == pytest.approx((6 * 19 / 39 + 1) / 7)
    # pdanon.plot prices them against the original's 21..113 instead: never in the report
    assert pdanon.plot.information_loss(original, out, ["age"]) == pytest.approx(
        (6 * 19 / 92 + 1) / 7)
    # the report is the same whatever the withheld age was
    other = original.assign(age=[21, 25, 30, 41, 45, 50, 61])
    assert build_report(out, other, quasi_identifiers={"age": "real"}).to_json() == \
        rep.to_json()


def test_published_loss_matches_plot_when_the_domains_agree():
    df = pd.DataFrame({"age": [30, 31, 40, 42, 50, 58], "zip": list("aabbcc")})
    qis = {"age": "real", "zip": "unordered"}
    # the data's own bounds, so the published domain is the original's (widened, the ranges
    # would reach the grid point 60 beyond the original's 58)
    with pytest.warns(pdanon.ExactBoundsWarning):
        out = df.anon.k_anonymize(2, algorithm="mondrian", quasi_identifiers=qis,
                                  options={"exact_bounds": True})
    # ages [30, 40] and [42, 58] of 30..58; zips {a, b} and {b, c}: 2 of 3 categories
    expected = (3 * 10 / 28 + 3 * 16 / 28 + 6 * 0.5) / 12
    assert published_loss(out, df, qis) == pytest.approx(expected)
    assert pdanon.plot.information_loss(df, out, list(qis)) == pytest.approx(expected)
    assert out.anon.report(df).columns[0]["relative_width"] == pytest.approx(13 / 28)


def test_report_leaves_out_what_solves_for_hidden_values():
    df = patients(200)
    out = df.anon.top_code("age", threshold=70, **ROLES)
    rep = out.anon.report(df)
    assert rep.left_out[:3] == ["entropy_information_loss", "by_element_distance", "il1s"]
    assert "max_sd_change" in rep.left_out
    assert not set(rep.metrics["metric"]) & set(rep.left_out)
    assert "changed_proportion" in set(rep.metrics["metric"])
    page = rep.to_html()
    assert "Left out (computed against the original" in page
    assert any("release.anon.metrics(original=raw)" in n for n in rep.notes)
    # the same list whatever the data: which figures a table held tells nothing
    assert build_report(df.anon.top_code("age", threshold=200, **ROLES), df).left_out == \
        rep.left_out
    assert out.anon.report().left_out == []


def test_suppressed_section_is_a_compact_summary():
    """Local suppression blanks hundreds of age cells: the section summarizes them by
    reason (one line each), not one table row per suppressed row; the index labels are
    folded, a few hundred at most in HTML, all in the JSON."""
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"age": rng.integers(20, 80, 2000),
                       "zip": rng.choice([str(z) for z in range(10000, 10010)], 2000)})
    out = df.anon.local_suppression(3, quasi_identifiers={"age": "real", "zip": "unordered"})
    assert out["age"].isna().sum() > 200
    rep = out.anon.report(df)
    assert len(rep.suppressed) <= 3
    assert rep.suppressed["rows"].sum() == out[["age", "zip"]].isna().any(axis=1).sum()
    assert len(rep.suppressed) == 1 and rep.suppressed["columns"][0] == ["age"]
    labels = rep.suppressed["index"][0]
    assert labels == out.index[out[["age", "zip"]].isna().any(axis=1)].tolist()
    section = rep.to_html().split("<h2>Suppressed rows</h2>")[1].split("<h2>")[0]
    assert section.count("<tr>") == len(rep.suppressed) + 1
    assert section.count("<details>") == 1 and "more (the JSON export lists all)" in section
    assert "the release does not tell them apart" in section
    assert json.loads(rep.to_json())["suppressed"][0]["index"] == labels


def test_report_refuses_swapped_frames():
    df = patients(60)
    out = df.anon.k_anonymize(5, algorithm="mondrian", **ROLES)
    with pytest.raises(pdanon.InvalidInputError,
                       match=r"seem swapped.*release\.anon\.report\(raw\)"):
        df.anon.report(out, **ROLES)
    with pytest.raises(pdanon.InvalidInputError, match=r"build_report\(release, raw\)"):
        build_report(df, out, **ROLES)
    assert out.anon.report(df).privacy["k_anonymity"] >= 5  # the right way round


# ----------------------------------------------------------------------------- the verdict


def test_the_report_opens_with_the_verdict_of_check():
    df = pdanon.datasets.make_patients(300, seed=2)
    roles = dict(quasi_identifiers={"zipcode": "unordered", "age": "real",
                                    "gender": "unordered"}, sensitive=["disease"])
    out = df.anon.k_anonymize(5, **roles)
    policy = pdanon.Policy(k=5, l=3, max_records_at_risk=0.0)
    rep = out.anon.report(df, policy=policy)
    result = out.anon.check(policy, original=df)
    assert rep.passed is result.passed is False
    assert rep.verdict["criteria"] == json.loads(json.dumps(result.to_dict()))["criteria"]
    page = rep.to_html()
    body = page.split("<body>")[1]
    # the verdict box is the first thing under the title
    assert body.split("</h1>\n", 1)[1].startswith('<section class="verdict fail"')
    assert "<h2>Verdict: FAILED</h2>" in page and "<strong>FAILED</strong>" in page
    assert '<td class="bad">\u2718 FAIL</td>' in page  # in words (and a sign), not colour
    assert page.count("<h2>Verdict") == 1
    assert json.loads(rep.to_json())["verdict"]["passed"] is False
    # without a policy: the release's own request, which it meets
    own = out.anon.report(df)
    assert own.passed is True and [c["criterion"] for c in own.verdict["criteria"]] == [
        "k_anonymity"]
    assert "No policy was given: the release&#x27;s own request is checked" in own.to_html()
    # a frame pdanon did not make records no request: no verdict, and the notes say why
    plain = df.anon.with_schema(pdanon.schema(**{**roles, "quasi_identifiers": roles[
        "quasi_identifiers"]}))
    rep = plain.anon.report()
    assert rep.passed is None and any("no verdict" in n for n in rep.notes)


@pytest.mark.parametrize("algorithm", ["mondrian", "optimal", "group_join"])
def test_digest_is_the_documented_serialization(algorithm):
    """facts.digest formats each distinct generalized cell once, and hashes exactly what
    DIGEST_RULE says: the dtypes, then pandas' to_csv of the frame."""
    import hashlib

    from pdanon.report import facts

    df = pdanon.datasets.make_discharges(600, seed=4)
    extra = {"hierarchies": {"admission_date": pdanon.hierarchy.dates(), "zip": masking()},
             "max_suppressed_rows": 0.05} if algorithm == "optimal" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.k_anonymize(
            3, algorithm=algorithm, identifiers=["patient_id", "name", "note", "birth_date"],
            quasi_identifiers={"admission_date": "ordered", "zip": "unordered",
                               "sex": "unordered", "ethnicity": "unordered"},
            sensitive=["diagnosis"], insensitive=["discharge_date", "charges", "weight"], **extra)
    head = json.dumps([[str(c), str(t)] for c, t in out.dtypes.items()], ensure_ascii=False)
    body = head + "\n" + out.to_csv(lineterminator="\n", na_rep="")
    assert facts.digest(out) == hashlib.sha256(body.encode("utf-8")).hexdigest()
    assert out["zip"].isna().any() or "{" in body  # sets (or suppressed cells) are in it


def test_date_widths_are_time_and_the_headline_is_a_metrics_figure():
    # a dates() hierarchy publishes a decade as a range of two categories, a month too: the
    # width was "2.0 categories" whatever the level; it is the days the range covers, over the
    # published span in days
    from pdanon.hierarchy import dates

    rng = np.random.default_rng(2)
    born = pd.Timestamp("1950-01-01") + pd.to_timedelta(rng.integers(0, 365 * 40, 600), "D")
    df = pd.DataFrame({"born": born, "sex": rng.choice(["F", "M"], 600)})
    widths = {}
    for level in (1, 3):  # months, decades
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = df.anon.generalize({"born": level}, hierarchies={
                "born": dates(["month", "year", "decade"])},
                quasi_identifiers={"born": "ordered", "sex": "unordered"})
        rep = out.anon.report(df)
        facts = {c["column"]: c for c in rep.columns}["born"]
        arr = out["born"].array
        cats = pd.DatetimeIndex(arr.categories)
        lo = cats[np.asarray(arr.lo)].to_numpy()
        hi = cats[np.asarray(arr.hi)].to_numpy()
        days = (hi - lo) / np.timedelta64(1, "D")
        span = (hi.max() - lo.min()) / np.timedelta64(1, "D")
        assert facts["width_unit"] == "days"
        assert facts["mean_width"] == pytest.approx(days.mean())
        assert facts["relative_width"] == pytest.approx(days.mean() / span)
        widths[level] = facts["mean_width"]
        # the headline is metrics(original=)'s information_loss, under that name
        shown = out.anon.metrics(original=df).set_index("metric")["value"]
        assert rep.utility["information_loss"] == pytest.approx(shown["information_loss"])
        assert "<code>information_loss</code>" in rep.to_html()
    assert 27 <= widths[1] <= 30 and 3000 <= widths[3] <= 3660, widths
