"""``pdanon anonymize --attacks CONTROL`` (pdanon/cli/attacks.py, issue 51 point 4): the
attacks' criteria feed the verdict and the exit code, the closing lines show the three risks,
the report gains its section; a policy asking for them without a control file is refused."""

import numpy as np
import pandas as pd

from pdanon.__main__ import main
from pdanon.attacks import holdout


def _run(capsys, *argv):
    code = main(["anonymize", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def _files(tmp_path, n=600):
    rng = np.random.default_rng(5)
    df = pd.DataFrame({c: rng.integers(0, 1000, n) for c in "abcd"})
    df["s"] = rng.choice(list("wxyz"), n)
    original, control = holdout(df, seed=0)
    paths = tmp_path / "in.csv", tmp_path / "control.csv"
    original.to_csv(paths[0], index=False)
    control.to_csv(paths[1], index=False)
    return paths


FLAGS = ["--qi", "a,b,c,d", "--sensitive", "s", "-k", "2"]


def test_a_release_failing_max_singling_out_exits_3_and_writes_nothing(tmp_path, capsys):
    inp, control = _files(tmp_path)
    out = tmp_path / "out.csv"
    code, _, err = _run(capsys, inp, "-o", out, *FLAGS, "--attacks", control,
                        "--policy", "k=2,max_singling_out=0.05", "--report", tmp_path / "r.html")
    assert code == 3, err
    assert "attacks" in err and "singling out" in err and "FAILED" in err
    assert not out.exists()  # nothing published
    assert "Singling out, linkability, inference" in (tmp_path / "r.html").read_text()


def test_figures_without_criteria_pass_and_are_printed(tmp_path, capsys):
    inp, control = _files(tmp_path)
    out, report = tmp_path / "out.csv", tmp_path / "r.html"
    code, _, err = _run(capsys, inp, "-o", out, *FLAGS, "--attacks", control,
                        "--report", report)
    assert code == 0, err
    assert out.exists() and "singling out" in err
    assert "Singling out, linkability, inference" in report.read_text()


def test_a_policy_asking_for_attacks_without_a_control_file_is_refused(tmp_path, capsys):
    inp, _ = _files(tmp_path)
    code, _, err = _run(capsys, inp, "-o", tmp_path / "out.csv", *FLAGS,
                        "--policy", "k=2,max_linkability=0.2")
    assert code == 2 and "--attacks" in err and "control" in err
