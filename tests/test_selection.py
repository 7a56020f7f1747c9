"""The root conftest's two selections: the default one (the README's ``python -m pytest``)
leaves out the tests marked ``slow`` and runs each property test with a fifth of its
examples; ``--full`` (CI) runs everything with every example; ``-m`` chooses as usual."""

import pathlib

import pytest

pytest_plugins = ["pytester"]

ROOT = pathlib.Path(__file__).resolve().parents[1]

TESTS = """
import pytest
from hypothesis import given, settings, strategies as st

CALLS = []


@pytest.mark.slow
def test_slow():
    pass


def test_fast():
    pass


@settings(max_examples=100)
@given(st.integers())
def test_property(x):
    CALLS.append(x)


@settings(max_examples=3)
@given(st.integers())
def test_small_property(x):
    CALLS.append(x)


def test_count_examples():  # runs after the property tests (file order)
    print(f"\\nEXAMPLES={len(CALLS)}")
"""


@pytest.fixture
def tree(pytester, monkeypatch):
    monkeypatch.delenv("PDANON_HYPOTHESIS", raising=False)
    monkeypatch.delenv("PDANON_HYPOTHESIS_SCALE", raising=False)
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    pytester.makepyprojecttoml((ROOT / "pyproject.toml").read_text(encoding="utf-8")
                               .replace('testpaths = ["tests", "pdanon"]', "")
                               .replace("--doctest-modules", ""))
    pytester.makepyfile(test_sel=TESTS)
    return pytester


def _run(tree, *args):
    result = tree.runpytest_subprocess("-s", "-p", "no:cacheprovider", *args)
    examples = [line for line in result.outlines if line.startswith("EXAMPLES=")]
    return result, int(examples[0].split("=")[1]) if examples else None


def test_the_default_selection_leaves_slow_tests_out_and_tries_fewer_examples(tree):
    result, examples = _run(tree)
    result.assert_outcomes(passed=4, deselected=1)
    assert examples == 20 + 3  # a fifth of 100; a test with fewer than 5 keeps its own
    assert "1 slow tests left out" in result.stdout.str()
    assert "pytest --full" in result.stdout.str()


def test_full_runs_every_test_with_every_example(tree):
    result, examples = _run(tree, "--full")
    result.assert_outcomes(passed=5)
    assert examples == 100 + 3


@pytest.mark.slow
def test_a_marker_expression_chooses_and_the_scale_variable_wins(tree, monkeypatch):
    result, _ = _run(tree, "-m", "slow")
    result.assert_outcomes(passed=1, deselected=4)
    monkeypatch.setenv("PDANON_HYPOTHESIS_SCALE", "0.5")
    result, examples = _run(tree)
    result.assert_outcomes(passed=4, deselected=1)
    assert examples == 50 + 2
