"""``cp2025.algorithms.GeneralizationKAnonymityTimeOptimal``: re-exports :class:`pdanon.algorithms.GeneralizationKAnonymityTimeOptimal`."""

from pdanon.algorithms import Depersonalizator, GeneralizationKAnonymityTimeOptimal  # noqa: F401
from pdanon.compat.cp2025.utility.diatances import dfs_rank_general_dist  # noqa: F401
from pdanon.compat.cp2025.utility.groupping import group_by_dist  # noqa: F401
from pdanon.compat.cp2025.utility.algorithms import generalization  # noqa: F401
