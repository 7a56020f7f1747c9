"""``cp2025.algorithms.DistributedDataKAnonymityDepersonalization``: the two-party k-anonymity
protocol. It is provided by :mod:`pdanon.parties` (a separate part of pdanon); when that module
is not installed, importing the class raises ImportError with an explanation."""

from pdanon.compat.cp2025.algorithms.groupjoin import (  # noqa: F401
    GroupJoinAggregation,
    GroupJoinDepersonalizator,
    GroupJoinKAnonymity,
)
from pdanon.compat.cp2025.utility.algorithms import aggregation, mode, suppression  # noqa: F401
from pdanon.compat.cp2025.utility.utility import count_column_params_for_my_loss  # noqa: F401


def __getattr__(name):
    if name == "DistributedDataOwnerKAnonymityDepersonalizator":
        try:
            from pdanon import parties

            return getattr(parties, name)
        except (ImportError, AttributeError):
            raise ImportError(
                "DistributedDataOwnerKAnonymityDepersonalizator needs pdanon.parties (the "
                "two-party protocol), which this pdanon version does not ship yet") from None
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
