"""``pdanon anonymize --epsilon E --dp-delta D``: a differentially private release (SafePub)
from the command line; the flags that do not apply to it are refused with the reason."""

import numpy as np
import pandas as pd
import pytest

from tests.test_cli_anonymize import _run


@pytest.fixture(autouse=True)
def replayable(monkeypatch):
    """The command line draws from the CSPRNG; the tests replay one seeded stream."""
    from pdanon.dp import mechanism

    init = mechanism.RandomSource.__init__
    monkeypatch.setattr(mechanism.RandomSource, "__init__",
                        lambda self, seed=None: init(self, 7 if seed is None else seed))


@pytest.fixture
def people(tmp_path):
    rng = np.random.default_rng(3)
    n = 20_000  # large enough that the output draw prefers nodes that publish rows
    df = pd.DataFrame({"person": [f"P{i:05d}" for i in range(n)],
                       "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n),
                       "zip": rng.choice(["02110", "02111", "10001", "10002"], n)})
    path = tmp_path / "people.csv"
    df.to_csv(path, index=False)
    return path


def _base(path, *extra, qi="age:real,sex,zip"):
    return [path, "--qi", qi, "--identifiers", "person",
            "--hierarchy", "age=intervals:10,30", "--hierarchy", "zip=mask:1,2,3",
            "--epsilon", 1, "--dp-delta", 1e-5, *extra]


def test_a_dp_release_from_the_command_line(tmp_path, people, capsys):
    out, report, config = tmp_path / "r.parquet", tmp_path / "r.html", tmp_path / "run.toml"
    code, _, err = _run(capsys, *_base(people, "-o", out, "--report", report,
                                       "--write-config", config))
    assert code == 0, err
    back = pd.read_parquet(out)
    dp = back.anon.info["dp"]
    assert dp["k"] == 58 and dp["epsilon"] == 1.0 and back.anon.info["algorithm"] == "safepub"
    assert 0 < len(back) < 20_000 and back.anon.k_anonymity() >= 58
    assert list(back.columns) == ["age", "sex", "zip"]
    # the walk ends early on this 30-node lattice: less than epsilon is spent
    assert f"privacy         epsilon={dp['epsilon_spent']:.4g} spent, delta=1e-05, " \
           f"sampling 0.5934, k=58" in err and dp["epsilon_spent"] <= 1
    assert "changed cells   n/a" in err and "a random sample" in err
    html = report.read_text()
    assert "differentially private release" in html and "P00001" not in html
    text = config.read_text()
    assert "spends epsilon again" in text and "epsilon = 1" in text
    assert "seed" not in text.split("\n", 3)[-1]  # no seed was drawn into the config
    # the config repeats the run (a new sample: another release, the same parameters)
    code, _, err = _run(capsys, "--config", config, "-o", tmp_path / "again.parquet")
    assert code == 0, err
    assert pd.read_parquet(tmp_path / "again.parquet").anon.info["dp"] == dp


def test_quality_and_target_reach_the_search(tmp_path, people, capsys):
    out = tmp_path / "r.parquet"
    code, _, err = _run(capsys, *_base(people, "-o", out, "--quality", "classification",
                                       "--target", "sex", "--steps", 5))
    assert code == 0, err
    info = pd.read_parquet(out).anon.info
    assert info["quality"] == "classification" and info["dp"]["steps"] <= 5


@pytest.mark.parametrize("extra,message", [
    (["-k", 5], "-k cannot be used with --epsilon"),
    (["--sensitive", "zip"], "--sensitive cannot be used with --epsilon"),
    (["--seed", 3], "--seed cannot be used with --epsilon: whoever knows the seed"),
    (["--save-recoding", "r.json"], "--save-recoding cannot be used with --epsilon"),
    (["--algorithm", "mondrian"], "--algorithm mondrian cannot publish under differential"),
    (["--dp-delta", 2], "--dp-delta must be strictly between 0 and 1"),
])
def test_flags_that_do_not_apply_are_refused(tmp_path, people, capsys, extra, message):
    qi = "age:real,sex" if "--sensitive" in extra else "age:real,sex,zip"
    code, _, err = _run(capsys, *_base(people, "-o", tmp_path / "r.csv", qi=qi), *extra)
    assert code == 2 and message in err
    assert not (tmp_path / "r.csv").exists()


def test_every_column_must_be_named(tmp_path, people, capsys):
    code, _, err = _run(capsys, people, "--qi", "age:real,sex", "--hierarchy",
                        "age=intervals:10,30", "--epsilon", 1, "--dp-delta", 1e-5)
    assert code == 2 and "name person, zip with --qi" in err


def test_dp_options_without_epsilon_are_refused(tmp_path, people, capsys):
    code, _, err = _run(capsys, people, "--qi", "age:real,sex", "--identifiers", "person,zip",
                        "-k", 5, "--quality", "loss")
    assert code == 2 and "--quality is an option of differential privacy" in err


def test_an_empty_release_says_so(tmp_path, capsys):
    path = tmp_path / "few.csv"
    pd.DataFrame({"age": range(30), "sex": ["F", "M"] * 15}).to_csv(path, index=False)
    code, _, err = _run(capsys, path, "--qi", "age:real,sex", "--hierarchy", "age=intervals:10",
                        "--epsilon", 1, "--dp-delta", 1e-5, "-o", tmp_path / "r.csv")
    assert code == 0, err
    assert "nothing was published: every class had fewer than k=58 sampled rows" in err
    assert pd.read_csv(tmp_path / "r.csv").empty
