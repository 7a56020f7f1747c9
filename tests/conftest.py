"""Shared pytest configuration.

``pandas.tests.extension.conftest`` provides the generic fixtures (``box_in_series``,
``as_frame``, ``comparison_op`` ...) that pandas' ExtensionArray conformance suite needs; the
dtype-specific fixtures (``dtype``, ``data``, ...) live in ``tests/test_dtype_conformance.py``.
"""

pytest_plugins = ["pandas.tests.extension.conftest"]
