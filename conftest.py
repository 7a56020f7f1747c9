"""Root pytest configuration (tests in tests/, doctests in pdanon/).

``pandas.tests.extension.conftest`` provides the generic fixtures (``box_in_series``,
``as_frame``, ``comparison_op`` ...) that pandas' ExtensionArray conformance suite needs; the
dtype-specific fixtures live in ``tests/dtype/test_conformance.py``. Modules of optional extras
are left out of doctest collection when the extra is not installed.

``tests/`` and each of its folders are packages (``__init__.py``), so test modules are named
``tests.partition.test_mondrian`` and so on: basenames may repeat across folders, and shared
helpers import as ``tests._helpers.<module>``.

Property tests (hypothesis) run **derandomized** by default, on every plain
``python -m pytest`` run, with or without the ``CI`` variable: each test tries the same
examples on every run (drawn from a seed derived from the test's source), with no example
database (no ``.hypothesis/`` replay of past failures) and no deadline (a slow or busy machine
cannot fail a test, and ``HealthCheck.too_slow`` is off), so a result depends on the commit
alone. Two environment variables change that (CONTRIBUTING.md, "Property tests"):

* ``PDANON_HYPOTHESIS=explore``: new random examples on every run, failing ones kept in
  ``.hypothesis/`` and replayed first on the next run; a failure prints its
  ``@reproduce_failure`` blob. ``PDANON_HYPOTHESIS=derandomize`` is the default.
* ``PDANON_HYPOTHESIS_SCALE=<factor>``: every property test tries ``factor`` times its own
  ``max_examples`` (in either mode), e.g. ``10`` for a long exploration.

With ``explore``, ``--hypothesis-seed=N`` (hypothesis' pytest option) fixes the random seed:
a loop over N is a reproducible exploration (a derandomized run ignores the option).

**Two selections.** A plain ``python -m pytest`` (the README's command) runs the default
selection, a few minutes of CPU: every test except those marked ``slow`` (scale runs, the
browser, long sweeps), and every property test with a fifth of its own ``max_examples``
(:data:`QUICK_SCALE`, at least :data:`QUICK_MIN` examples). ``python -m pytest --full`` is the
exhaustive suite CI runs: the ``slow`` tests too, and every property test with all its
examples. ``-m`` chooses by marker as usual (``-m slow``: the slow tests only);
``PDANON_HYPOTHESIS_SCALE`` sets the examples in either selection.
"""

import importlib.util
import os

import pytest
from hypothesis import HealthCheck, settings

MODES = ("derandomize", "explore")
_common = dict(deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("derandomize", derandomize=True, database=None, **_common)
settings.register_profile("explore", derandomize=False, **_common)
settings.register_profile("ci", settings.get_profile("derandomize"))   # the old name


def _mode() -> str:
    mode = os.environ.get("PDANON_HYPOTHESIS", "").strip().lower() or "derandomize"
    if mode not in MODES:
        raise pytest.UsageError(
            f"PDANON_HYPOTHESIS={os.environ['PDANON_HYPOTHESIS']!r}: use 'derandomize' (the "
            f"default: the same examples on every run) or 'explore' (new random examples)")
    return mode


def _scale() -> float:
    text = os.environ.get("PDANON_HYPOTHESIS_SCALE", "").strip()
    try:
        factor = float(text) if text else 1.0
    except ValueError:
        factor = -1.0
    if not factor > 0 or factor == float("inf"):
        raise pytest.UsageError(
            f"PDANON_HYPOTHESIS_SCALE={text!r}: give a positive number, the factor applied to "
            f"every property test's max_examples (e.g. 10)")
    return factor


MODE, SCALE, FULL = "derandomize", 1.0, False
#: the share of each property test's own ``max_examples`` the default selection tries
QUICK_SCALE = 0.2
#: and the fewest examples it tries (or the test's own count, when smaller)
QUICK_MIN = 5
_DESELECTED = []
#: docstring examples (doctest items have no decorators) that are slow tests: they train
#: gradient-boosting models on the Adult table
SLOW_DOCTESTS = ("pdanon.metrics.ml.boosting_utility",
                 "pdanon.metrics.ml.boosting_security_score",
                 "pdanon.compat.cp2025.utility.boosting_security_score")


def pytest_addoption(parser):
    parser.addoption(
        "--full", action="store_true", default=False,
        help="pdanon: the exhaustive suite (CI): the tests marked slow too, and every property "
             "test with all its examples; without it, the default selection runs (conftest.py)")


@pytest.hookimpl(tryfirst=True)     # before hypothesis' own options build on the profile
def pytest_configure(config):
    """Load the profile before any test module builds its ``@settings`` (they copy it)."""
    global MODE, SCALE, FULL
    FULL = bool(config.getoption("full", False))
    MODE, SCALE = _mode(), _scale()
    settings.load_profile(MODE)


@pytest.hookimpl(tryfirst=True)     # the slow doctests are marked before -m reads marks
def pytest_collection_modifyitems(config, items):
    """The default selection (without ``--full``, unless ``-m`` chooses): the tests marked
    ``slow`` are deselected, and each property test tries :data:`QUICK_SCALE` of its own
    ``max_examples``; ``PDANON_HYPOTHESIS_SCALE`` sets the factor in either selection."""
    for item in items:
        if isinstance(item, pytest.DoctestItem) and item.name in SLOW_DOCTESTS:
            item.add_marker(pytest.mark.slow)
    if not FULL and not config.getoption("markexpr", ""):
        slow = [item for item in items if item.get_closest_marker("slow") is not None]
        if slow:
            _DESELECTED[:] = slow
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if item.get_closest_marker("slow") is None]
    explicit = bool(os.environ.get("PDANON_HYPOTHESIS_SCALE", "").strip())
    if SCALE == 1.0 and (FULL or explicit):
        return
    quick = not FULL and not explicit
    done = set()
    for item in items:
        test = getattr(item, "obj", None)
        test = getattr(test, "__func__", test)           # a method of a test class
        if not getattr(test, "is_hypothesis_test", False) or id(test) in done:
            continue                                 # parametrized items share one function
        done.add(id(test))
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if not isinstance(own, settings):
            raise pytest.UsageError(
                f"{item.nodeid} has no settings where this conftest looks for them to set its "
                f"examples (hypothesis changed?); run with --full and without "
                f"PDANON_HYPOTHESIS_SCALE")
        n = own.max_examples
        n = min(n, max(QUICK_MIN, round(n * QUICK_SCALE))) if quick else max(1, round(n * SCALE))
        # hypothesis reads this attribute when the test runs; @given and @settings set it
        test._hypothesis_internal_use_settings = settings(own, max_examples=n)


def pytest_terminal_summary(terminalreporter):
    """Lines after the results: which selection ran, which examples the property tests
    tried."""
    if FULL:
        terminalreporter.write_line("pdanon: the exhaustive suite (--full): the slow tests too, "
                                    "every property test with all its examples")
    else:
        explicit = bool(os.environ.get("PDANON_HYPOTHESIS_SCALE", "").strip())
        terminalreporter.write_line(
            f"pdanon: the default selection ({len(_DESELECTED)} slow tests left out"
            + ("" if explicit else f", property tests at {QUICK_SCALE:g} of their examples")
            + "); `python -m pytest --full` runs the exhaustive suite (CI)")
    terminalreporter.write_line(
        f"hypothesis: {MODE}" + (f", max_examples x{SCALE:g}" if SCALE != 1.0 else "") + (
            " (new random examples; failing ones kept in .hypothesis/)" if MODE == "explore"
            else " (the same examples every run; PDANON_HYPOTHESIS=explore for new ones: "
                 "CONTRIBUTING.md)"))


pytest_plugins = ["pandas.tests.extension.conftest"]

collect_ignore = []
if importlib.util.find_spec("dask") is None or importlib.util.find_spec("distributed") is None:
    collect_ignore.append("pdanon/dask")
if importlib.util.find_spec("matplotlib") is None:
    collect_ignore.append("pdanon/plot.py")
