"""The classic class-per-algorithm API of the reference library cp2025, over pdanon's engine.

Every class takes its parameters in the constructor and anonymizes with
``depersonalize(df, identifiers_ids=None, quasi_identifiers_ids='left', sensitives_ids=None)``:
``df`` is a list of rows, a numpy array or a DataFrame, columns are named by position, one of
the three role lists may be ``'left'`` (all other columns). It returns the same type first
(object cells: ranges and sets as :class:`~pdanon.dtype.GeneralizationRange`, suppressed cells
``nan``), then the algorithm's counts. The algorithms themselves run in
:func:`pdanon.engine.anonymize` and :mod:`pdanon.perturb`; these classes only translate.

The reference's module paths (``cp2025.algorithms.Datafly`` ...) are available under
:mod:`pdanon.compat.cp2025`. The ``df.anon`` accessor is the pandas-native face of the same
engine; docs/compat.md maps every class to it.

Example
-------
>>> from pdanon.algorithms import Datafly
>>> df = [[1, 1, 1, 1], [1, 1, 1, 1], [2, 2, 2, 2], [2, 2, 2, 3]]
>>> Datafly(2, ["real"] * 4).depersonalize(df)
([[1, 1, 1, 1], [1, 1, 1, 1], [2, 2, 2, [2, 3]], [2, 2, 2, [2, 3]]], 2)
"""

from pdanon.algorithms._base import Depersonalizator
from pdanon.algorithms._grouping import (
    AggregationKAnonymityTimeOptimal,
    AggregationLDiversityTimeOptimal,
    Datafly,
    GeneralizationGreedyByOneEqualSizedGroups,
    GeneralizationKAnonymityTimeOptimal,
    GeneralizationLDiversityTimeOptimal,
    SuppressionKAnonymityBaseline,
    SuppressionKAnonymityTimeOptimal,
    SuppressionLDiversityBaseline,
    SuppressionLDiversityTimeOptimal,
    SuppressionTClosenessBaseline,
)
from pdanon.algorithms._perturbation import (
    IdentifierHasher,
    RandomizationBaselineDepersonalizator,
    Shuffler,
    ShufflerInBatches,
)
from pdanon.algorithms.groupjoin import (
    GeneralizationKAnonymityGroupJoin,
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

__all__ = [
    "AggregationKAnonymityTimeOptimal",
    "AggregationLDiversityTimeOptimal",
    "Datafly",
    "Depersonalizator",
    "DistributedDataOwnerKAnonymityDepersonalizator",  # lazily, from pdanon.parties
    "GeneralizationGreedyByOneEqualSizedGroups",
    "GeneralizationKAnonymityGroupJoin",
    "GeneralizationKAnonymityTimeOptimal",
    "GeneralizationLDiversityTimeOptimal",
    "GroupJoinAggregation",
    "GroupJoinDepersonalizator",
    "GroupJoinGeneralization",
    "GroupJoinKAnonymity",
    "GroupJoinLDiversity",
    "GroupJoinMethod",
    "GroupJoinMetric",
    "GroupJoinSuppression",
    "GroupJoinTCloseness",
    "IdentifierHasher",
    "RandomizationBaselineDepersonalizator",
    "Shuffler",
    "ShufflerInBatches",
    "SuppressionKAnonymityBaseline",
    "SuppressionKAnonymityTimeOptimal",
    "SuppressionLDiversityBaseline",
    "SuppressionLDiversityTimeOptimal",
    "SuppressionTClosenessBaseline",
]


def __getattr__(name):
    # the two-party class drives pdanon.parties; imported on first use (it loads ECPy)
    if name == "DistributedDataOwnerKAnonymityDepersonalizator":
        from pdanon.algorithms.distributed import DistributedDataOwnerKAnonymityDepersonalizator

        return DistributedDataOwnerKAnonymityDepersonalizator
    raise AttributeError(f"module 'pdanon.algorithms' has no attribute {name!r}")
