"""pdanon.progress: the bars of long runs (auto / forced / silenced, batching, without tqdm)."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

import pdanon  # noqa: F401  (registers df.anon)
from pdanon import InvalidInputError, progress
from pdanon.hierarchy import intervals

# tqdm is a dependency of pdanon: it is importable in every proper installation
needs_tqdm = pytest.mark.skipif(not progress.tqdm_available(),
                                reason="tqdm is not importable (pdanon installed without its "
                                       "dependencies)")


@pytest.fixture()
def frame():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.integers(0, 60, 2500), "b": rng.integers(0, 30, 2500)})
    # roles decided: the calls below infer none (no RoleWarning on standard error)
    return df.anon.with_schema(pdanon.schema(quasi_identifiers={"a": "real", "b": "real"}))


@pytest.fixture()
def no_tqdm(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # `import tqdm` raises ImportError
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)


@pytest.mark.parametrize("algorithm", ["group_join", "nearest"])
def test_auto_is_silent_off_a_terminal(frame, algorithm, capfd):
    out = frame.anon.k_anonymize(5, algorithm=algorithm)
    assert out.anon.k_anonymity() >= 5
    assert capfd.readouterr().err == ""


@needs_tqdm
@pytest.mark.parametrize("algorithm, desc", [("group_join", "group_join: violating groups"),
                                             ("nearest", "nearest: rows grouped")])
def test_forced_bar_on_stderr(frame, algorithm, desc, capfd):
    frame.anon.k_anonymize(5, algorithm=algorithm, progress=True)
    err = capfd.readouterr().err
    assert desc in err and "100%" in err


@needs_tqdm
def test_forced_bar_exact_and_optimal(frame, capfd):
    frame.head(60).anon.k_anonymize(3, algorithm="exact", method="suppress", progress=True)
    assert "exact: HiGHS round 1" in capfd.readouterr().err
    frame.anon.k_anonymize(5, algorithm="optimal", progress=True,
                           hierarchies={"a": intervals([5, 10, 20]), "b": intervals([5, 10])})
    assert "optimal: lattice nodes" in capfd.readouterr().err


def test_silenced(frame, capfd):
    frame.anon.k_anonymize(5, algorithm="group_join", progress=False)
    frame.anon.suda(progress=False)
    frame.anon.microaggregate(3, progress=False)
    assert capfd.readouterr().err == ""


@needs_tqdm
def test_suda_and_microaggregation_bars(frame, capfd):
    expected = frame.anon.suda()
    pd.testing.assert_frame_equal(frame.anon.suda(progress=True), expected)
    assert "SUDA: attribute subsets" in capfd.readouterr().err
    frame.anon.suda_contributions(progress=True)
    assert "SUDA: attribute subsets" in capfd.readouterr().err
    out = frame.anon.microaggregate(3, progress=True, row_order="input")
    err = capfd.readouterr().err
    assert "microaggregation: rows grouped" in err and "2500/2500" in err
    pd.testing.assert_frame_equal(out, frame.anon.microaggregate(3, row_order="input"))


@needs_tqdm
def test_the_output_does_not_depend_on_the_bar(frame):
    for alg in ("group_join", "nearest"):
        a = frame.anon.k_anonymize(4, algorithm=alg, progress=True, row_order="input")
        b = frame.anon.k_anonymize(4, algorithm=alg, progress=False, row_order="input")
        pd.testing.assert_frame_equal(a, b)


@needs_tqdm
def test_auto_on_a_terminal_draws_long_runs_only(monkeypatch, capfd):
    monkeypatch.setattr(progress, "_interactive", lambda: True)
    monkeypatch.setattr(progress, "AUTO_DELAY", 0.0)
    with progress.progress_bar(10, desc="long one") as bar:
        bar.update(10)
    with progress.progress_bar(10, desc="short one", long=False) as bar:
        bar.update(10)
    err = capfd.readouterr().err
    assert "long one" in err and "short one" not in err


@needs_tqdm
def test_auto_waits_for_the_delay(monkeypatch, capfd):
    monkeypatch.setattr(progress, "_interactive", lambda: True)
    assert progress.resolve(None) == (True, progress.AUTO_DELAY)
    with progress.progress_bar(10, desc="quick") as bar:
        bar.update(10)  # done well before AUTO_DELAY seconds: never drawn
    assert "quick" not in capfd.readouterr().err


@needs_tqdm
def test_setting_nests_and_enabled_wins():
    assert progress.current() is None
    with progress.setting(False):
        assert progress.resolve(None) == (False, 0.0)
        with progress.setting(None):  # None keeps the enclosing setting
            assert progress.current() is False
        with progress.setting(True):
            assert progress.resolve(None) == (True, 0.0)
        assert progress.resolve(True) == (True, 0.0)
    assert progress.current() is None


@pytest.mark.parametrize("bad", ["yes", 1, 0.5])
def test_bad_values_name_the_parameter(frame, bad):
    with pytest.raises(InvalidInputError, match="progress must be None"):
        frame.anon.k_anonymize(2, progress=bad)
    with pytest.raises(InvalidInputError, match="progress must be None"):
        frame.anon.suda(progress=bad)


def test_tqdm_is_a_dependency():
    import tomllib
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "pyproject.toml"
    if not path.exists():
        pytest.skip("not a source checkout")
    project = tomllib.loads(path.read_text())["project"]
    assert "tqdm>=4.66" in project["dependencies"]
    # the old extra still installs (`pip install "pdanon[progress]"`) and adds nothing
    assert project["optional-dependencies"]["progress"] == []
    assert progress.tqdm_available()


def test_without_tqdm(frame, no_tqdm, capfd):
    # unusual (pdanon installed without its dependencies), but it still works
    assert not progress.tqdm_available()
    with pytest.raises(InvalidInputError, match=r'dependency of pdanon.*pip install "tqdm>=4.66"'):
        frame.anon.k_anonymize(5, algorithm="group_join", progress=True)
    with pytest.raises(InvalidInputError, match="progress=True"):
        frame.anon.microaggregate(3, progress=True)
    # auto and False work, silently
    frame.anon.k_anonymize(5, algorithm="group_join")
    frame.anon.k_anonymize(5, algorithm="nearest", progress=False)
    assert capfd.readouterr().err == ""


def test_updates_are_batched(monkeypatch):
    tqdm = pytest.importorskip("tqdm")
    calls = []

    class Fake:
        def __init__(self, **kwargs):
            self.kwargs = kwargs

        def update(self, n):
            calls.append(n)

        def set_description_str(self, desc):
            pass

        def close(self):
            pass

    monkeypatch.setattr(tqdm, "tqdm", Fake)
    with progress.progress_bar(100_000, desc="rows", enabled=True) as bar:
        for _ in range(100_000):
            bar.update(1)
    assert sum(calls) == 100_000
    assert len(calls) <= progress.UPDATES + 1


def test_engine_takes_progress_not_as_a_partitioner_option(frame):
    from pdanon.engine import anonymize
    from pdanon.models import KAnonymity

    roles = frame.anon.roles()
    for alg in ("mondrian", "datafly", "equal_groups", "nearest"):
        out, info = anonymize(frame, roles, model=KAnonymity(3), method="generalize",
                              algorithm=alg, progress=False)
        assert info["achieved"]["k"] >= 3


# ============================================================================ the other faces
# Mondrian, Datafly and equal groups (issue 29.5): each draws its bar when asked, stays
# silent when refused and, in auto mode, off a terminal; on a terminal a long run draws it.

FACES = {
    "mondrian": ("mondrian: rows in final classes", "pdanon.partition.mondrian"),
    "datafly": ("datafly: generalization steps", "pdanon.partition.datafly"),
    "equal_groups": ("equal_groups: group size", "pdanon.partition.equal_groups"),
}


@needs_tqdm
@pytest.mark.parametrize("algorithm", sorted(FACES))
def test_partitioner_bars(frame, algorithm, capfd):
    desc = FACES[algorithm][0]
    shown = frame.anon.k_anonymize(5, algorithm=algorithm, progress=True, row_order="input")
    err = capfd.readouterr().err
    assert desc in err
    info = shown.anon.info
    # the bar's last count is the partitioner's own figure
    if algorithm == "mondrian":
        assert "2500/2500" in err
    elif algorithm == "datafly":
        assert info["steps"] > 0 and f"{info['steps']}/" in err
    else:
        assert info["group_size"] > 1 and f"{info['group_size']}/2500" in err
    quiet = frame.anon.k_anonymize(5, algorithm=algorithm, progress=False, row_order="input")
    auto = frame.anon.k_anonymize(5, algorithm=algorithm, row_order="input")  # stderr is not a terminal
    assert capfd.readouterr().err == ""
    pd.testing.assert_frame_equal(shown, quiet)
    pd.testing.assert_frame_equal(shown, auto)


@needs_tqdm
@pytest.mark.parametrize("algorithm", sorted(FACES))
def test_partitioner_bars_in_auto_mode_on_a_terminal(frame, algorithm, monkeypatch, capfd):
    import importlib

    desc, module = FACES[algorithm]
    monkeypatch.setattr(progress, "_interactive", lambda: True)
    monkeypatch.setattr(progress, "AUTO_DELAY", 0.0)
    frame.anon.k_anonymize(5, algorithm=algorithm)  # 2,500 rows: too short for a bar
    assert desc not in capfd.readouterr().err
    mod = importlib.import_module(module)
    name = "PROGRESS_WORK" if algorithm == "datafly" else "PROGRESS_ROWS"
    monkeypatch.setattr(mod, name, 1)  # every table counts as long
    frame.anon.k_anonymize(5, algorithm=algorithm)
    assert desc in capfd.readouterr().err
    frame.anon.k_anonymize(5, algorithm=algorithm, progress=False)
    assert capfd.readouterr().err == ""


@needs_tqdm
def test_datafly_bar_counts_every_step_of_a_checked_run(frame, capfd):
    # t-closeness is not monotone: Datafly checks the model after every step
    df = frame.assign(s=np.random.default_rng(1).integers(0, 4, len(frame)))
    df = df.anon.with_schema(pdanon.schema(quasi_identifiers={"a": "real", "b": "real"},
                                           sensitive=["s"]))
    out = df.anon.t_close(0.2, k=3, algorithm="datafly", progress=True)
    err = capfd.readouterr().err
    steps = out.anon.info["steps"]
    most = (frame["a"].nunique() - 1) + (frame["b"].nunique() - 1)
    assert f"{steps}/{most}" in err


def test_partitioner_bars_without_tqdm(frame, no_tqdm, capfd):
    for algorithm in sorted(FACES):
        frame.anon.k_anonymize(5, algorithm=algorithm)
        frame.anon.k_anonymize(5, algorithm=algorithm, progress=False)
        with pytest.raises(InvalidInputError, match="progress=True"):
            frame.anon.k_anonymize(5, algorithm=algorithm, progress=True)
    assert capfd.readouterr().err == ""


# ============================================================================ two owners


@pytest.fixture()
def owners():
    from pdanon.parties import DataOwner, backends

    backend = "coincurve" if "coincurve" in backends() else "ecpy"
    rng = np.random.default_rng(2)

    def make():
        return tuple(DataOwner(pd.DataFrame({c: rng.integers(0, 40, 200)}), k=3,
                               quasi_identifiers={c: "real"}, backend=backend) for c in "xy")
    return make


@needs_tqdm
def test_parties_run_local_bar(owners, capfd):
    from pdanon.parties import run_local

    a, b = owners()
    run_local(a, b, progress=True)
    err = capfd.readouterr().err
    # the owners' local GroupJoin, then the merge rounds up to the fewest local groups - 1
    assert "group_join: violating groups" in err and "parties: merge rounds" in err
    bound = min(a.stats["local_groups"], b.stats["local_groups"]) - 1
    assert a.stats["rounds"] > 0 and f"{a.stats['rounds']}/{bound}" in err
    for progress_value in (False, None):  # refused; auto off a terminal
        a, b = owners()
        run_local(a, b, progress=progress_value)
        assert capfd.readouterr().err == ""


@needs_tqdm
def test_parties_run_party_bar(owners, capfd):
    import socket
    import threading

    from pdanon.parties import SocketChannel, run_party

    a, b = owners()
    s1, s2 = socket.socketpair()
    other = threading.Thread(target=run_party, args=(b, SocketChannel(s2)),
                             kwargs={"first": False, "timeout": 60, "progress": False})
    other.start()
    run_party(a, SocketChannel(s1), first=True, timeout=60, progress=True)
    other.join()
    err = capfd.readouterr().err
    assert "parties: merge rounds" in err and f"{a.stats['rounds']}/" in err
    with pytest.raises(InvalidInputError, match="progress must be None"):
        run_party(a, SocketChannel(s1), first=True, progress="yes")


@pytest.mark.slow
@needs_tqdm
def test_report_bar_over_its_steps_and_the_linkage_attack(capfd):
    """The report draws one bar over its steps (and the linkage attack's models inside
    it); progress=False silences both, and auto mode off a terminal draws nothing."""
    from pdanon.report import build_report

    df = pdanon.datasets.make_patients(300, seed=3)
    roles = dict(quasi_identifiers={"zipcode": "unordered", "age": "real"},
                 sensitive=["disease"])
    out = df.anon.k_anonymize(5, algorithm="mondrian", **roles)
    capfd.readouterr()
    shown = build_report(out, df, target="gender", progress=True)
    err = capfd.readouterr().err
    assert "report" in err and "6/6" in err and "metrics: " in err
    quiet = build_report(out, df, target="gender", progress=False)
    assert capfd.readouterr().err == ""
    assert quiet.to_html() == shown.to_html()
    build_report(out, df)
    assert capfd.readouterr().err == ""
    build_report(out, df, internal=True, progress=True)
    assert "8/8" in capfd.readouterr().err
