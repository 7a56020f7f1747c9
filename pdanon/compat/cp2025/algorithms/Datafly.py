"""``cp2025.algorithms.Datafly``: re-exports :class:`pdanon.algorithms.Datafly`."""

from pdanon.algorithms import Depersonalizator, Datafly  # noqa: F401
from pdanon.compat.cp2025.utility.GeneralizationRange import join_unordered, join_ordered  # noqa: F401
