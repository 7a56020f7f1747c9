"""Root pytest configuration (tests in tests/, doctests in pdanon/).

``pandas.tests.extension.conftest`` provides the generic fixtures (``box_in_series``,
``as_frame``, ``comparison_op`` ...) that pandas' ExtensionArray conformance suite needs; the
dtype-specific fixtures live in ``tests/dtype/test_conformance.py``. Modules of optional extras
are left out of doctest collection when the extra is not installed.

``tests/`` and each of its folders are packages (``__init__.py``), so test modules are named
``tests.partition.test_mondrian`` and so on: basenames may repeat across folders, and shared
helpers import as ``tests._helpers.<module>``.

Property tests (hypothesis) explore new random tables on every local run; under CI (the ``CI``
environment variable set) they run the derandomized "ci" profile, so a CI result depends on the
commit alone.
"""

import importlib.util
import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

pytest_plugins = ["pandas.tests.extension.conftest"]

collect_ignore = []
if importlib.util.find_spec("dask") is None or importlib.util.find_spec("distributed") is None:
    collect_ignore.append("pdanon/dask")
if importlib.util.find_spec("matplotlib") is None:
    collect_ignore.append("pdanon/plot.py")
