"""``cp2025.algorithms.GeneralizationLDiversityTimeOptimal``: re-exports :class:`pdanon.algorithms.GeneralizationLDiversityTimeOptimal`."""

from pdanon.algorithms import Depersonalizator, GeneralizationLDiversityTimeOptimal  # noqa: F401
from pdanon.compat.cp2025.utility.diatances import dfs_rank_general_dist  # noqa: F401
from pdanon.compat.cp2025.utility.groupping import group_by_dist_with_l_diverse  # noqa: F401
from pdanon.compat.cp2025.utility.algorithms import generalization  # noqa: F401
