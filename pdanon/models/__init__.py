"""Privacy models as vectorized checks over equivalence classes.

A *model* object says when an equivalence class is acceptable; the engine uses it while
partitioning and verifies every output with :meth:`PrivacyModel.groups_ok` on the published
classes. The lower-case functions (:func:`k_anonymity`, :func:`l_diversity`, ...) measure the
level a frame achieves. One module per model:

=========================  ===============================================================
module                     what it holds
=========================  ===============================================================
``models/base.py``         :class:`Requirements`, :class:`PrivacyModel`, :class:`AllOf`
``models/anonymity.py``    :func:`k_anonymity`, :class:`KAnonymity`
``models/diversity.py``    :func:`l_diversity`, :class:`LDiversity`
``models/closeness.py``    :func:`t_closeness`, :class:`TCloseness`
``models/likeness.py``     :func:`beta_likeness`, :class:`BetaLikeness` (basic, enhanced)
``models/disclosure.py``   :func:`delta_disclosure`, :class:`DeltaDisclosure`
``models/alpha_k.py``      :func:`alpha_k_anonymity`, :class:`AlphaKAnonymity`
``models/shares.py``       class vs whole-table shares the three above read
``models/population.py``   :func:`k_map`, :class:`KMap` (population table or estimate),
                           :func:`delta_presence`, :class:`DeltaPresence`
``models/risk.py``         :class:`HighestRisk` (``max_risk``), :class:`AverageRisk`
=========================  ===============================================================

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"age": [1, 1, 2, 2, 2]})
>>> k_anonymity(df, ["age"])
2
>>> KAnonymity(2).holds(df, ["age"])
True
"""

from pdanon.models.base import TOLERANCE, AllOf, PrivacyModel, Requirements
from pdanon.models.anonymity import KAnonymity, k_anonymity
from pdanon.models.diversity import L_VARIANTS, LDiversity, achieved_l, l_diversity
from pdanon.models.closeness import TCloseness, achieved_t, t_closeness
from pdanon.models.likeness import BETA_VARIANTS, BetaLikeness, achieved_beta, beta_likeness
from pdanon.models.disclosure import DeltaDisclosure, achieved_delta, delta_disclosure
from pdanon.models.alpha_k import AlphaK, AlphaKAnonymity, achieved_alpha, alpha_k_anonymity
from pdanon.models.population import (DeltaPresence, EstimatedKMap, KMap, delta_presence,
                                      derived_k, k_map)
from pdanon.models.risk import AverageRisk, HighestRisk
from pdanon.models.dp import EDDifferentialPrivacy

__all__ = ["TOLERANCE", "AllOf", "PrivacyModel", "Requirements", "KAnonymity", "k_anonymity",
           "L_VARIANTS", "LDiversity", "achieved_l", "l_diversity", "TCloseness", "achieved_t",
           "t_closeness", "BETA_VARIANTS", "BetaLikeness", "achieved_beta", "beta_likeness",
           "DeltaDisclosure", "achieved_delta", "delta_disclosure", "AlphaK", "AlphaKAnonymity",
           "achieved_alpha", "alpha_k_anonymity", "DeltaPresence", "EstimatedKMap", "KMap",
           "delta_presence", "derived_k", "k_map", "AverageRisk", "HighestRisk",
           "EDDifferentialPrivacy"]
