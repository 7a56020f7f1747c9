"""``cp2025.algorithms.GeneralizationGreedyByOneEqualSizedGroups``: re-exports :class:`pdanon.algorithms.GeneralizationGreedyByOneEqualSizedGroups`."""

from pdanon.algorithms import Depersonalizator, GeneralizationGreedyByOneEqualSizedGroups  # noqa: F401
from pdanon.compat.cp2025.utility.GeneralizationRange import GeneralizationRange  # noqa: F401
from pdanon.compat.cp2025.utility.metrics import is_k_anonimus  # noqa: F401
