"""``cp2025.algorithms.SuppressionTClosenessBaseline``: re-exports :class:`pdanon.algorithms.SuppressionTClosenessBaseline`."""

from pdanon.algorithms import Depersonalizator, SuppressionTClosenessBaseline  # noqa: F401
from pdanon.compat.cp2025.utility.metrics import is_t_close  # noqa: F401
