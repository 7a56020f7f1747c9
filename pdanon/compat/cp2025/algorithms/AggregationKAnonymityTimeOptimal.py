"""``cp2025.algorithms.AggregationKAnonymityTimeOptimal``: re-exports :class:`pdanon.algorithms.AggregationKAnonymityTimeOptimal`."""

from pdanon.algorithms import Depersonalizator, AggregationKAnonymityTimeOptimal  # noqa: F401
from pdanon.compat.cp2025.utility.diatances import dfs_rank_general_dist  # noqa: F401
from pdanon.compat.cp2025.utility.groupping import group_by_dist  # noqa: F401
from pdanon.compat.cp2025.utility.algorithms import aggregation  # noqa: F401
