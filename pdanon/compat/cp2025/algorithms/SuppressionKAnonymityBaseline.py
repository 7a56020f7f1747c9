"""``cp2025.algorithms.SuppressionKAnonymityBaseline``: re-exports :class:`pdanon.algorithms.SuppressionKAnonymityBaseline`."""

from pdanon.algorithms import Depersonalizator, SuppressionKAnonymityBaseline  # noqa: F401
from pdanon.compat.cp2025.utility.metrics import is_k_anonimus  # noqa: F401
