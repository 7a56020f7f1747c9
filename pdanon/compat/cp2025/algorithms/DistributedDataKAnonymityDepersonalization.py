"""``cp2025.algorithms.DistributedDataKAnonymityDepersonalization``: the two-party k-anonymity
protocol, provided by :mod:`pdanon.parties`."""

from pdanon.compat.cp2025.algorithms.groupjoin import (  # noqa: F401
    GroupJoinAggregation,
    GroupJoinDepersonalizator,
    GroupJoinKAnonymity,
)
from pdanon.compat.cp2025.utility.algorithms import aggregation, mode, suppression  # noqa: F401
from pdanon.compat.cp2025.utility.utility import count_column_params_for_my_loss  # noqa: F401
from pdanon.algorithms.distributed import DistributedDataOwnerKAnonymityDepersonalizator  # noqa: F401
