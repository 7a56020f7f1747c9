"""Side files (config, policy, recoding, hierarchy, schema) are read only from regular files
below a limit: a FIFO without a writer, /dev/zero or an oversize file is refused at once,
naming the path and the fix, in Python and on the command line (pdanon.sidefiles)."""

import json
import os
import subprocess
import sys

import pytest

import pdanon
from pdanon.hierarchy import read_arx_csv
from pdanon.sidefiles import MIB, SideFileError, TEXT_LIMIT, read_side_bytes, read_side_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
fifo_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")


def _cli(tmp_path, *argv, timeout=60):
    """``pdanon anonymize`` in a subprocess with a timeout: a regression cannot hang."""
    table = tmp_path / "in.csv"
    table.write_text("age,zip\n31,04777\n32,04777\n33,04777\n")
    env = {**os.environ, "PYTHONPATH": ROOT}
    done = subprocess.run([sys.executable, "-m", "pdanon", "anonymize", str(table), "-o",
                           str(tmp_path / "out.csv"), "--qi", "age:real", "-k", "2",
                           *map(str, argv)], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=tmp_path)
    return done.returncode, done.stderr


@pytest.mark.slow
@fifo_only
@pytest.mark.parametrize("flag", ["--config", "--policy", "--recoding", "--hierarchy",
                                  "--population", "input"])
def test_a_fifo_without_a_writer_is_refused_at_once(tmp_path, flag):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    if flag == "input":
        env = {**os.environ, "PYTHONPATH": ROOT}
        done = subprocess.run([sys.executable, "-m", "pdanon", "anonymize", str(fifo), "-o",
                               str(tmp_path / "o.csv"), "--qi", "age"], capture_output=True,
                              text=True, env=env, timeout=60)
        code, err = done.returncode, done.stderr
    else:
        value = f"age={fifo}" if flag == "--hierarchy" else fifo
        extra = ["--k-map", "2"] if flag == "--population" else []
        code, err = _cli(tmp_path, flag, value, *extra)
    assert code == 2, err
    assert "is a FIFO (named pipe), not a regular file" in err and str(fifo) in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize("flag", ["--config", "--policy", "--recoding", "--hierarchy"])
def test_dev_zero_is_refused_at_once(tmp_path, flag):
    value = "age=/dev/zero" if flag == "--hierarchy" else "/dev/zero"
    code, err = _cli(tmp_path, flag, value, timeout=60)
    assert code == 2 and "'/dev/zero' is a character device, not a regular file" in err, err


def test_an_oversize_file_is_refused_by_its_size_and_the_limit_can_be_raised(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:  # sparse: 65 MiB of nothing, written in no time
        fh.truncate(TEXT_LIMIT + MIB)
    code, err = _cli(tmp_path, "--recoding", big)
    assert code == 2 and "holds 68157440 bytes, more than the limit of 67108864" in err, err
    assert "--max-side-file-mib" in err
    code, err = _cli(tmp_path, "--recoding", big, "--max-side-file-mib", 66)
    assert code == 2 and "not a pdanon recoding (invalid JSON" in err, err


def test_python_readers_refuse_the_same(tmp_path):
    with pytest.raises(SideFileError, match="is a directory, not a regular file"):
        read_arx_csv(tmp_path)
    with pytest.raises(SideFileError, match="'/dev/zero' is a character device"):
        read_arx_csv("/dev/zero")
    with pytest.raises(SideFileError, match="file not found"):
        read_side_text(tmp_path / "missing.yaml", what="schema file")
    h = tmp_path / "age.csv"
    h.write_text("31;30-39;*\n45;40-49;*\n")
    assert read_arx_csv(h).height == 2
    with pytest.raises(SideFileError, match="holds 22 bytes, more than the limit of 10"):
        read_arx_csv(h, max_bytes=10)
    with pytest.raises(pdanon.InvalidInputError, match="max_bytes must be a positive"):
        read_side_bytes(h, what="x", max_bytes=0)


def test_a_file_that_grows_past_the_limit_while_read_is_refused(tmp_path, monkeypatch):
    """The size is checked by reading at most limit + 1 bytes, not only by stat."""
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"k": 5}))
    real_stat = os.stat

    class Small:  # what stat said before the file grew
        st_mode, st_size = real_stat(path).st_mode, 1

    monkeypatch.setattr(os, "stat", lambda p, *a, **k: Small if str(p) == str(path)
                        else real_stat(p, *a, **k))
    with pytest.raises(SideFileError, match="p.json' grew while read to more than the limit of 4 bytes"):
        read_side_bytes(path, what="--policy", max_bytes=4)


@fifo_only
def test_read_csv_refuses_a_fifo_path_and_reads_its_file_object(tmp_path):
    """pdanon.read_csv reads a path more than once: a FIFO's second open blocked forever."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code = ("import pdanon, subprocess, sys\n"
            f"p = {str(fifo)!r}\n"
            "try:\n    pdanon.read_csv(p)\nexcept pdanon.InvalidInputError as e:\n"
            "    print(e)\n"
            "w = subprocess.Popen(['sh', '-c', 'printf \"a,b\\\\n1,2\\\\n\" > ' + p])\n"
            "print(pdanon.read_csv(open(p)).shape)\nw.wait()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": ROOT}, timeout=60)
    assert "is a FIFO (named pipe), not a regular file" in done.stdout, done.stderr
    assert done.stdout.strip().endswith("(1, 2)"), done.stdout + done.stderr
