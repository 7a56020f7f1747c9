"""``cp2025.algorithms.SuppressionLDiversityTimeOptimal``: re-exports :class:`pdanon.algorithms.SuppressionLDiversityTimeOptimal`."""

from pdanon.algorithms import Depersonalizator, SuppressionLDiversityTimeOptimal  # noqa: F401
from pdanon.compat.cp2025.utility.diatances import dfs_hamming_distances  # noqa: F401
from pdanon.compat.cp2025.utility.groupping import group_by_dist_with_l_diverse  # noqa: F401
from pdanon.compat.cp2025.utility.algorithms import suppression  # noqa: F401
