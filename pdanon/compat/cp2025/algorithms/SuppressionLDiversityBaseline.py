"""``cp2025.algorithms.SuppressionLDiversityBaseline``: re-exports :class:`pdanon.algorithms.SuppressionLDiversityBaseline`."""

from pdanon.algorithms import Depersonalizator, SuppressionLDiversityBaseline  # noqa: F401
from pdanon.compat.cp2025.utility.metrics import is_l_diverse  # noqa: F401
