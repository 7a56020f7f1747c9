"""One way out (pdanon/release/publish.py): out.anon.publish(folder) checks, writes the data,
schema, report and recoding together, reads the data back and measures it again; and a canary
test over every file it writes."""

import hashlib
import json
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.release import PublishError

ROLES = dict(identifiers=["mrn", "name"], quasi_identifiers={"age": "real", "zip": "unordered"},
             sensitive=["dx"])


def _table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "mrn": [f"MRN-CANARY-{i:06d}" for i in range(n)],
        "name": [f"Name Canary{i:05d}" for i in range(n)],
        "age": rng.integers(18, 90, n),
        "zip": rng.choice(["02139", "02140", "02141", "04777"], n),
        "dx": rng.choice(["flu", "cold", "hiv", "gout"], n)})
    return df.sort_values(["zip", "age"]).reset_index(drop=True)


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


def test_publish_writes_every_file_and_the_report_describes_the_bytes(tmp_path):
    df = _table()
    out = _quiet(df.anon.l_diversify, 2, k=5, algorithm="mondrian", **ROLES)
    done = _quiet(out.anon.publish, tmp_path / "rel", original=df, formats=("parquet", "csv"),
                  recoding=True)
    assert done.verdict.passed and not done.forced
    assert sorted(done.files) == ["recoding.json", "release.csv", "release.parquet",
                                  "release.schema.yaml", "report.html", "report.json"]
    report = json.loads((tmp_path / "rel" / "report.json").read_text())
    listed = {f["name"]: f for f in report["parameters"]["files"]}
    for name in ("release.parquet", "release.csv", "release.schema.yaml", "recoding.json"):
        raw = (tmp_path / "rel" / name).read_bytes()
        assert listed[name]["sha256"] == hashlib.sha256(raw).hexdigest() == \
            done.files[name]["sha256"]
        assert listed[name]["bytes"] == len(raw)
    html = (tmp_path / "rel" / "report.html").read_text()
    assert listed["release.csv"]["sha256"] in html
    # the verdict in the report is that of the file read back, and equals the in-memory one
    assert report["verdict"]["passed"] is True
    back = pd.read_parquet(tmp_path / "rel" / "release.parquet")
    assert back.anon.k_anonymity() == out.anon.k_anonymity() >= 5
    csv = pdanon.read_csv(tmp_path / "rel" / "release.csv",
                          schema=pdanon.schema_from_yaml(
                              (tmp_path / "rel" / "release.schema.yaml").read_text()))
    assert csv.anon.l_diversity() == back.anon.l_diversity() >= 2


def test_report_names_suppressed_rows_by_their_place_in_the_file(tmp_path):
    df = _table(seed=1)
    out = _quiet(df.anon.k_anonymize, 5, algorithm="datafly", max_suppressed_rows=40, **ROLES)
    done = _quiet(out.anon.publish, tmp_path, original=df, formats="csv")
    report = json.loads((tmp_path / "report.json").read_text())
    back = pd.read_csv(tmp_path / "release.csv", dtype=str)
    blank = back[["age", "zip"]].isna().any(axis=1)
    listed = [label for row in report["suppressed"] for label in row["index"]]
    assert listed, "the run is meant to blank some rows"
    assert sorted(listed) == sorted(np.flatnonzero(blank.to_numpy()).tolist())
    assert done.verdict.passed


def test_a_failing_policy_writes_nothing_and_force_says_so(tmp_path):
    df = _table(seed=2)
    out = _quiet(df.anon.k_anonymize, 3, algorithm="mondrian", **ROLES)
    with pytest.raises(PublishError, match="k_anonymity"):
        _quiet(out.anon.publish, tmp_path / "a", policy=pdanon.Policy(k=50))
    assert not (tmp_path / "a").exists() or not os.listdir(tmp_path / "a")
    done = _quiet(out.anon.publish, tmp_path / "b", policy=pdanon.Policy(k=50), force=True)
    assert done.forced and not done.verdict.passed
    report = json.loads((tmp_path / "b" / "report.json").read_text())
    assert any("force=True" in n for n in report["notes"])
    # the input's order, kept on request, fails by fact
    kept = _quiet(df.anon.k_anonymize, 3, algorithm="mondrian", row_order="input", **ROLES)
    with pytest.raises(PublishError, match="random_row_order"):
        _quiet(kept.anon.publish, tmp_path / "c")


def test_existing_files_are_not_replaced_without_overwrite(tmp_path):
    df = _table(seed=3)
    out = _quiet(df.anon.k_anonymize, 5, **ROLES)
    _quiet(out.anon.publish, tmp_path)
    before = (tmp_path / "release.parquet").read_bytes()
    with pytest.raises(PublishError, match="overwrite=True"):
        _quiet(out.anon.publish, tmp_path)
    assert (tmp_path / "release.parquet").read_bytes() == before
    _quiet(out.anon.publish, tmp_path, overwrite=True)
    with pytest.raises(PublishError, match="a pdanon face returned"):
        pdanon.publish(df, tmp_path / "raw")
    with pytest.raises(pdanon.InvalidInputError, match="formats="):
        _quiet(out.anon.publish, tmp_path / "x", formats=("xlsx",))


FACES = {
    "mondrian": lambda d: d.anon.k_anonymize(4, algorithm="mondrian", **ROLES),
    "datafly": lambda d: d.anon.k_anonymize(4, algorithm="datafly", **ROLES),
    "nearest": lambda d: d.anon.k_anonymize(4, algorithm="nearest", **ROLES),
    "l": lambda d: d.anon.l_diversify(2, k=3, algorithm="mondrian", **ROLES),
    "suppress": lambda d: d.anon.k_anonymize(4, method="suppress", algorithm="mondrian",
                                             **ROLES),
    "local_suppression": lambda d: d.anon.local_suppression(3, **ROLES),
    "microaggregate": lambda d: d.anon.microaggregate(
        3, columns=["age"], identifiers=["mrn", "name"], quasi_identifiers={"age": "real"},
        insensitive=["zip"], sensitive=["dx"]),
}


@settings(max_examples=6)
@given(n=st.integers(60, 300), seed=st.integers(0, 2**16),
       face=st.sampled_from(sorted(FACES)), fmt=st.sampled_from(["parquet", "csv"]))
def test_no_canary_leaves_in_any_file(tmp_path_factory, n, seed, face, fmt):
    """Every value that must not leave carries a canary token: the identifiers (record
    numbers, names), and the input's index (a token per row). publish writes every file;
    no token appears in any byte written, and the published order is independent of the
    input's (sorted on zip and age)."""
    df = _table(n=n, seed=seed)
    df.index = pd.RangeIndex(7_000_000, 7_000_000 + n)  # row tokens as the index (row numbers)
    out = _quiet(FACES[face], df)
    folder = tmp_path_factory.mktemp("canary")
    done = _quiet(out.anon.publish, folder, original=df, formats=fmt,
                  recoding=face not in ("local_suppression", "microaggregate"))
    blobs = {name: open(f["path"], "rb").read() for name, f in done.files.items()}
    for name, raw in blobs.items():
        assert b"CANARY" not in raw.upper(), name
        text = raw.decode("utf-8", errors="replace")
        for token in ("7000000", "7000001", str(7_000_000 + n - 1)):
            assert token not in text, (name, token)
    back = (pd.read_parquet(done.files["release.parquet"]["path"]) if fmt == "parquet"
            else pd.read_csv(done.files["release.csv"]["path"], dtype=str))
    assert not back.index.isin(df.index).any()
    # the order: the published zips are not grouped as the input's are
    zips = back["zip"].astype(str).to_numpy()
    grouped = (zips[1:] == zips[:-1]).mean()
    assert grouped < 0.6


def test_a_path_that_is_not_a_regular_file_is_refused_and_left_alone(tmp_path):
    """publish reads every file back, so it writes regular files only; a device named as the
    data file is refused before anything is written (a failure used to remove what it had
    written: /dev/null itself, when a run wrote -o /dev/null)."""
    df = _table(seed=4)
    out = _quiet(df.anon.k_anonymize, 5, **ROLES)
    if os.path.exists(os.devnull):
        with pytest.raises(PublishError, match="not regular files"):
            _quiet(pdanon.release.publish_files, out, {"csv": os.devnull})
        assert not os.path.isfile(os.devnull)
    # a failure while writing leaves the folder as it was: no file, no temporary file
    with pytest.raises(PublishError, match="a pdanon face returned"):
        pdanon.release.publish_files(df, {"csv": tmp_path / "x.csv"})
    done = _quiet(pdanon.release.publish_files, out, {"csv": tmp_path / "r.csv",
                                                      "report": tmp_path / "r.html"})
    assert sorted(os.listdir(tmp_path)) == ["r.csv", "r.html"]
    assert done.files["r.csv"]["sha256"] == hashlib.sha256(
        (tmp_path / "r.csv").read_bytes()).hexdigest()


def _households(seed=7):
    # households of one to five people living in one of eight ZIP codes, sorted by ZIP
    rng = np.random.default_rng(seed)
    rows, hh = [], 0
    while len(rows) < 1500:
        hh += 1
        size, z = rng.integers(1, 6), rng.choice([f"0{i}" for i in (2134, 2138, 2139, 2140,
                                                                    2141, 2142, 1002, 1003)])
        for m in range(size):
            rows.append({"age": int(rng.integers(18, 90) if m < 2 else rng.integers(0, 18)),
                         "zip": z, "sex": rng.choice(["F", "M"]), "hh": f"H{hh:05d}",
                         "dx": rng.choice(["flu", "asthma", "diabetes", "hiv", "cancer"])})
    return pd.DataFrame(rows).sort_values(["zip", "age"]).reset_index(drop=True)


def test_the_file_read_back_the_report_and_check_list_the_same_criteria(tmp_path):
    # The household id narrows a few hidden ZIP cells (allowed by the publisher): a channel
    # the anonymizer measured against the original, a publisher-only fact no file holds, so the
    # file alone does not show it. The publication's verdict and the report, made from the
    # file read back, listed two criteria where check() in memory listed three; they must list
    # the same criteria with the same figures.
    from pdanon.screening.channels import learned

    df = _households()
    out = _quiet(df.anon.k_anonymize, 5, quasi_identifiers={"age": "real", "zip": "unordered",
                                                           "sex": "unordered"},
                 sensitive=["dx"], insensitive=["hh"], allow_channels=["hh"])
    in_memory = out.anon.check(original=df).criteria.set_index("criterion")["measured"]
    assert "channel_share" in in_memory.index
    done = _quiet(out.anon.publish, tmp_path / "rel", original=df, formats=("parquet", "csv"))
    back = pd.read_parquet(tmp_path / "rel" / "release.parquet")
    assert not len(learned(back, ["age", "zip", "sex"], k=5))  # the file alone shows none
    from_file = done.verdict.criteria.set_index("criterion")["measured"]
    with open(tmp_path / "rel" / "report.json", encoding="utf-8") as fh:
        reported = {c["criterion"]: c["measured"] for c in json.load(fh)["verdict"]["criteria"]}
    assert sorted(from_file.index) == sorted(in_memory.index) == sorted(reported)
    for name, figure in in_memory.items():
        assert from_file[name] == pytest.approx(figure) and reported[name] == pytest.approx(figure)
