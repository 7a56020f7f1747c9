"""A distributed WorkerPlugin that imports pdanon.dask on every worker.

Unpickling the plugin imports this module, hence the ``pdanon.dask`` package, which registers
the generalization dtype (Arrow extension type for Parquet, Dask meta) in the worker process.
"""

from __future__ import annotations

from distributed.diagnostics.plugin import WorkerPlugin


class ImportPdanonDask(WorkerPlugin):
    """Import ``pdanon.dask`` in every worker (current and future ones)."""

    name = "pdanon.dask"

    def setup(self, worker):
        # importing a submodule runs the package's __init__ (dtype registration included)
        from pdanon.dask import _register  # noqa: F401


def ensure_workers() -> None:
    """Register :class:`ImportPdanonDask` with the default client, if there is one (once)."""
    from distributed import default_client

    try:
        client = default_client()
    except ValueError:
        return
    if getattr(client, "_pdanon_registered", False):
        return
    if client.status not in ("running", "connecting", "newly-created"):
        return
    client.register_plugin(ImportPdanonDask())
    client._pdanon_registered = True
