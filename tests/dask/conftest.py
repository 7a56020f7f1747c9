"""Fixtures shared by the Dask tests (opt-in: a test module names the ones it uses)."""

import pytest


@pytest.fixture
def synchronous_scheduler():
    """Run Dask on the synchronous scheduler (one thread, exceptions with their frames)."""
    dask = pytest.importorskip("dask")
    with dask.config.set(scheduler="synchronous"):
        yield
