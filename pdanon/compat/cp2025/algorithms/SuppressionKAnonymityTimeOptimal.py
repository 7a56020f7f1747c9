"""``cp2025.algorithms.SuppressionKAnonymityTimeOptimal``: re-exports :class:`pdanon.algorithms.SuppressionKAnonymityTimeOptimal`."""

from pdanon.algorithms import Depersonalizator, SuppressionKAnonymityTimeOptimal  # noqa: F401
from pdanon.compat.cp2025.utility.diatances import dfs_hamming_distances  # noqa: F401
from pdanon.compat.cp2025.utility.groupping import group_by_dist  # noqa: F401
from pdanon.compat.cp2025.utility.algorithms import suppression  # noqa: F401
