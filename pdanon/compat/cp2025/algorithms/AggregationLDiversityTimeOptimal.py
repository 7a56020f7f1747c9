"""``cp2025.algorithms.AggregationLDiversityTimeOptimal``: re-exports :class:`pdanon.algorithms.AggregationLDiversityTimeOptimal`."""

from pdanon.algorithms import Depersonalizator, AggregationLDiversityTimeOptimal  # noqa: F401
from pdanon.compat.cp2025.utility.diatances import dfs_rank_general_dist  # noqa: F401
from pdanon.compat.cp2025.utility.groupping import group_by_dist_with_l_diverse  # noqa: F401
from pdanon.compat.cp2025.utility.algorithms import aggregation  # noqa: F401
