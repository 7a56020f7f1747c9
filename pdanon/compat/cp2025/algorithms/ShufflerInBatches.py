"""``cp2025.algorithms.ShufflerInBatches``: re-exports :class:`pdanon.algorithms.ShufflerInBatches`."""

from pdanon.algorithms import Depersonalizator, ShufflerInBatches  # noqa: F401
