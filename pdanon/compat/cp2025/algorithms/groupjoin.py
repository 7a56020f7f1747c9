"""``cp2025.algorithms.groupjoin``: the GroupJoin method, metric and depersonalizator classes
of :mod:`pdanon.algorithms.groupjoin`."""

from pdanon.algorithms import Depersonalizator  # noqa: F401
from pdanon.algorithms.groupjoin import (  # noqa: F401
    GroupJoinAggregation,
    GroupJoinDepersonalizator,
    GroupJoinGeneralization,
    GroupJoinKAnonymity,
    GroupJoinLDiversity,
    GroupJoinMethod,
    GroupJoinMetric,
    GroupJoinSuppression,
    GroupJoinTCloseness,
)
from pdanon.compat.cp2025.utility.algorithms import aggregation, generalization, suppression  # noqa: F401
from pdanon.compat.cp2025.utility.metrics import (  # noqa: F401
    get_elements_frequencies,
    real_sample_distance,
)
from pdanon.compat.cp2025.utility.statistics import mode  # noqa: F401
from pdanon.compat.cp2025.utility.utility import count_column_params_for_my_loss  # noqa: F401

__all__ = [
    "GroupJoinAggregation",
    "GroupJoinDepersonalizator",
    "GroupJoinGeneralization",
    "GroupJoinKAnonymity",
    "GroupJoinLDiversity",
    "GroupJoinMethod",
    "GroupJoinMetric",
    "GroupJoinSuppression",
    "GroupJoinTCloseness",
]
