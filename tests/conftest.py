"""Test configuration: see the root ``conftest.py`` (pandas' extension fixtures are loaded
there, because pytest only accepts ``pytest_plugins`` in the top-level conftest)."""
