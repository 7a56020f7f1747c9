"""``pdanon anonymize`` for a survey publisher (pdanon/cli/survey.py): dates as the file writes
them (``--date-format``, ``--dayfirst``), sampling weights (``--weights``) reaching the policy,
the report, the closing lines and the exit code, ``--levels`` (Python's ``levels=``), and
refusals in the flags' words."""

import json

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon.__main__ import main


def _run(capsys, *argv):
    code = main(["anonymize", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def survey(n=240, seed=3):
    rng = np.random.default_rng(seed)
    dob = pd.Timestamp("1950-01-01") + pd.to_timedelta(rng.integers(0, 20000, n), unit="D")
    return pd.DataFrame({"id": np.arange(n), "dob": dob, "sex": rng.choice(["F", "M"], n),
                         "age": rng.integers(18, 90, n), "w": rng.uniform(50, 500, n).round(1),
                         "income": rng.integers(1000, 9000, n)})


@pytest.fixture
def us_dates(tmp_path):
    df = survey()
    path = tmp_path / "s.csv"
    df.assign(dob=df["dob"].dt.strftime("%m/%d/%Y")).to_csv(path, index=False)
    return df, path


def test_us_and_day_first_dates_are_read_as_dates(tmp_path, us_dates, capsys):
    df, path = us_dates
    flags = ["--qi", "dob:date,sex", "--identifiers", "id,age", "--sensitive", "income",
             "--insensitive", "w", "-k", 5, "-a", "optimal",
             "--hierarchy", "dob=dates:month,year,decade"]
    code, _, err = _run(capsys, path, "-o", tmp_path / "no.csv", *flags)
    assert code == 2, err
    assert "--date-format" in err  # the refusal names the flag that reads them
    out = tmp_path / "r.parquet"
    code, _, err = _run(capsys, path, "-o", out, "--date-format", "%m/%d/%Y", *flags)
    assert code == 0, err
    back = pd.read_parquet(out)
    assert back.anon.k_anonymity() >= 5
    # every published cell holds the birth dates of its rows (read as the month/day/year
    # the file wrote): the release is a generalization of the real dates
    assert str(back["dob"].dtype).startswith("generalization")
    day_first = tmp_path / "d.csv"
    df.assign(dob=df["dob"].dt.strftime("%d/%m/%Y")).to_csv(day_first, index=False)
    code, _, err = _run(capsys, day_first, "-o", tmp_path / "d.parquet", "--dayfirst", *flags)
    assert code == 0, err
    a = pd.read_parquet(out).anon.info["levels"]
    b = pd.read_parquet(tmp_path / "d.parquet").anon.info["levels"]
    assert a == b  # the same dates, read from either spelling


def test_a_cell_not_in_the_date_format_is_refused_by_name(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    pd.DataFrame({"dob": ["08/15/1971", "1971-08-16", "08/17/1971"],
                  "sex": ["F", "F", "F"]}).to_csv(path, index=False)
    code, _, err = _run(capsys, path, "--qi", "dob:date,sex", "-k", 2,
                        "--date-format", "%m/%d/%Y")
    assert code == 2
    assert "column 'dob'" in err and "'1971-08-16'" in err and "data row 2" in err


def _survey_csv(tmp_path):
    df = survey()
    path = tmp_path / "w.csv"
    df.drop(columns=["dob"]).to_csv(path, index=False)
    return df.drop(columns=["dob"]), path


def test_weights_reach_the_policy_the_exit_code_and_the_report(tmp_path, capsys):
    df, path = _survey_csv(tmp_path)
    flags = ["--qi", "sex,age", "--identifiers", "id", "--sensitive", "income", "-k", 5,
             "--weights", "w", "--row-order", "input"]
    out, report = tmp_path / "r.parquet", tmp_path / "r.html"
    code, _, err = _run(capsys, path, "-o", out, *flags, "--policy",
                        "k=5,max_global_risk=0.5,random_order=0", "--report", report)
    assert code == 0, err
    release = pd.read_parquet(out)
    assert release["w"].tolist() == df["w"].tolist()  # published as it is, in input order
    # the closing line and the verdict measure what Python measures on the release
    expected = release.anon.risk_summary(weights="w")
    assert f"global {expected['global_risk']:.4g}" in err
    assert "global_risk" in report.read_text()
    # a limit the release does not meet: exit code 3, nothing written
    code, _, err = _run(capsys, path, "-o", tmp_path / "no.csv", *flags, "--policy",
                        f"k=5,max_global_risk={expected['global_risk'] / 2},random_order=0")
    assert code == 3 and "global_risk" in err
    assert not (tmp_path / "no.csv").exists()


def test_a_weighted_criterion_without_weights_gives_the_flag(tmp_path, capsys):
    _, path = _survey_csv(tmp_path)
    code, _, err = _run(capsys, path, "--qi", "sex,age", "--identifiers", "id",
                        "--insensitive", "w", "--sensitive", "income", "-k", 5,
                        "--policy", "max_global_risk=0.1")
    assert code == 2 and "--weights COL" in err and "check(" not in err


def test_unknown_policy_criterion_says_did_you_mean(tmp_path, capsys):
    _, path = _survey_csv(tmp_path)
    code, _, err = _run(capsys, path, "--qi", "sex,age", "--identifiers", "id", "-k", 5,
                        "--weights", "w", "--sensitive", "income",
                        "--policy", "max_global_rsk=0.1")
    assert code == 2 and "max_global_risk" in err


def test_levels_restrict_the_search_as_in_python(tmp_path, capsys):
    df, path = _survey_csv(tmp_path)
    out = tmp_path / "r.parquet"
    config = tmp_path / "run.toml"
    code, _, err = _run(capsys, path, "-o", out, "--qi", "sex,age", "--identifiers", "id",
                        "--insensitive", "w", "--sensitive", "income", "-k", 3,
                        "-a", "optimal", "--hierarchy", "age=intervals:5,10,20",
                        "--levels", "age=2:3", "--write-config", config)
    assert code == 0, err
    got = pd.read_parquet(out).anon.info["levels"]
    python = df.anon.k_anonymize(
        3, algorithm="optimal", hierarchies={"age": pdanon.hierarchy.intervals([5, 10, 20])},
        levels={"age": (2, 3)}, quasi_identifiers=["sex", "age"], identifiers=["id"],
        insensitive=["w"], sensitive=["income"]).anon.info["levels"]
    assert got == python and 2 <= got["age"] <= 3
    free = df.anon.k_anonymize(
        3, algorithm="optimal", hierarchies={"age": pdanon.hierarchy.intervals([5, 10, 20])},
        quasi_identifiers=["sex", "age"], identifiers=["id"], insensitive=["w"],
        sensitive=["income"]).anon.info["levels"]
    assert free["age"] not in (2, 3)  # the flag, not the data, chose the level
    assert 'levels = "age=2:3"' in config.read_text()  # the config repeats it
    code, _, err = _run(capsys, "--config", config, "-o", tmp_path / "again.parquet")
    assert code == 0, err
    assert pd.read_parquet(tmp_path / "again.parquet").anon.info["levels"] == got


def test_levels_parse():
    from pdanon.cli.survey import levels, levels_text

    assert levels(["age=1:3", "zip=2, sex=0"]) == {"age": (1, 3), "zip": 2, "sex": 0}
    assert levels_text("age=1:3") == "age=1:3"
    with pytest.raises(pdanon.InvalidInputError, match="COL=N or COL=MIN:MAX"):
        levels(["age"])


def test_date_of_birth_refusal_gives_flags_not_python(tmp_path, capsys):
    df = survey()
    path = tmp_path / "b.csv"
    df.rename(columns={"dob": "date_of_birth"}).to_csv(path, index=False)
    code, _, err = _run(capsys, path, "--qi", "sex,age", "--identifiers", "id",
                        "--weights", "w", "--sensitive", "income", "-k", 5)
    assert code == 2
    assert ".dt.year" not in err and "algorithm='optimal'" not in err
    assert "--calendar date_of_birth=year" in err and "-a optimal" in err
    with pytest.raises(pdanon.RoleError, match=r"\.dt\.year"):  # Python keeps its own
        df.rename(columns={"dob": "date_of_birth"}).anon.k_anonymize(
            5, quasi_identifiers=["sex", "age"], identifiers=["id"], insensitive=["w"],
            sensitive=["income"])


def _coded(tmp_path):
    rng = np.random.default_rng(2)
    n = 400
    df = pd.DataFrame({"id": np.arange(n), "race": pd.array(rng.integers(1, 5, n), "Int64"),
                       "sex": rng.choice(["F", "M"], n), "age": rng.integers(18, 90, n),
                       "income": rng.integers(1000, 9000, n)})
    df.loc[rng.choice(n, 30, replace=False), "race"] = pd.NA  # blanks in the file
    path = tmp_path / "coded.csv"
    df.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("algorithm", ["auto", "mondrian"])
def test_python_and_the_cli_publish_the_same_cells(tmp_path, capsys, algorithm):
    from pdanon.io.csvsafe import write_csv

    path = _coded(tmp_path)
    df = pdanon.read_csv(path)
    out = df.anon.k_anonymize(5, algorithm=algorithm, quasi_identifiers=["race", "sex", "age"],
                              identifiers=["id"], sensitive=["income"], row_order="input")
    assert out.anon.roles().quasi_identifiers["race"] == "unordered"  # codes, not numbers
    write_csv(out, tmp_path / "python.csv")
    code, _, err = _run(capsys, path, "-o", tmp_path / "cli.csv", "--qi", "race,sex,age",
                        "--identifiers", "id", "--sensitive", "income", "-k", 5,
                        "-a", algorithm, "--row-order", "input",
                        "--policy", "k=5,random_order=0")
    assert code == 0, err
    assert "race unordered" in err
    python, cli = (pd.read_csv(tmp_path / f, dtype=str, keep_default_na=False)
                   for f in ("python.csv", "cli.csv"))
    pd.testing.assert_frame_equal(python, cli)  # the same cells, read as text
    race = python["race"]
    assert not race.str.contains(r"\.0").any()  # 2, not 2.0
    assert not race.str.match(r"^\[").any()  # no range of codes such as [1, 3]


def test_codes_rule_is_one_rule():
    from pdanon.cli.anonymize import convert_column
    from pdanon.roles import looks_like_codes

    codes = pd.Series(["1", "2", None, "4"] * 6)
    assert convert_column(codes, "race", None)[1] == "unordered"
    assert convert_column(codes, "race", "real")[1] == "real"  # declared: numbers
    assert convert_column(pd.Series(["30", "41", "52"] * 8), "age", None)[1] == "real"
    frame = pd.DataFrame({"race": [1.0, 2.0, np.nan, 4.0] * 6, "age": [30, 41, 52] * 8})
    r = pdanon.roles.resolve_roles(frame, quasi_identifiers=["race", "age"])
    assert r.quasi_identifiers == {"race": "unordered", "age": "real"}
    declared = pdanon.roles.resolve_roles(frame, quasi_identifiers={"race": "real"})
    assert declared.quasi_identifiers == {"race": "real"}
    assert not looks_like_codes(pd.Series([0.5, 1.0] * 10))  # not whole numbers
    assert not looks_like_codes(pd.Series([1, 2, 3]))  # too few rows to tell
    back = pdanon.read_csv(__import__("io").StringIO("race,x\n1,1.0\n,2.0\n3,\n"))
    assert str(back["race"].dtype) == "Int64" and str(back["x"].dtype) == "float64"


def test_levels_with_an_algorithm_that_searches_none_speaks_in_flags(tmp_path, capsys):
    _, path = _survey_csv(tmp_path)
    code, _, err = _run(capsys, path, "--qi", "sex,age", "--identifiers", "id",
                        "--weights", "w", "--sensitive", "income", "-k", 5, "-a", "nearest",
                        "--levels", "age=1")
    assert code == 2 and "-a nearest does not take --levels" in err
    assert "algorithm='" not in err


def test_the_published_report_measures_weighted_and_household_risk(tmp_path, capsys):
    rng = np.random.default_rng(5)
    n = 600
    df = pd.DataFrame({"hh": np.repeat(np.arange(300), 2), "sex": rng.choice(["F", "M"], n),
                       "age": rng.integers(18, 90, n), "w": rng.uniform(50, 500, n).round(1),
                       "income": rng.integers(1000, 9000, n)})
    path = tmp_path / "hh.csv"
    df.to_csv(path, index=False)
    report = tmp_path / "r.html"
    code, _, err = _run(capsys, path, "-o", tmp_path / "r.csv", "--qi", "sex,age",
                        "--sensitive", "income", "-k", 3, "--household", "hh",
                        "--weights", "w", "--report", report)
    assert code == 0, err
    page = report.read_text()
    assert "global risk (survey weights)" in page and "household risk (mean)" in page


def test_policy_text_names_the_weight_column():
    from pdanon.cli.config import parse_policy

    policy = parse_policy("k=5,max_global_risk=0.01,weights=w")
    assert policy.weights == "w" and policy.max_global_risk == 0.01
