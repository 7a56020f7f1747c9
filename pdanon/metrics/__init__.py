"""Risk and utility metrics of anonymized tables, as plain functions on DataFrames.

Risk: :func:`frequencies` (rows sharing each row's quasi-identifiers), :func:`k_anonymity`,
:func:`l_diversity`, :func:`t_closeness` (achieved levels),
:func:`is_k_anonymous`, :func:`is_l_diverse`, :func:`is_t_close`,
:func:`adversarial_knowledge_gain`, :func:`adversarial_accuracy_gain`,
:func:`boosting_security_score` (gradient-boosting linkage attack),
:func:`record_risk` and :func:`risk_summary` (prosecutor, journalist and marketer risk per row
and summarized; with ``weights=``, the survey risk of :mod:`pdanon.metrics.survey`),
:func:`linkage_risk`, :func:`linkage_summary` and :func:`rmd_disclosure` (disclosure risk of
perturbed numbers: interval disclosure, distance-based record linkage), :func:`population_uniques` and :func:`uniqueness_models` (population
uniqueness estimators: Pitman, Zayatz, SNB, Dankar's rule), :func:`suda` and :func:`suda_contributions` (minimal sample uniques, SUDA and
DIS-SUDA scores).

Utility: :func:`average_class_size`, :func:`distinctness`, :func:`changed_proportion`,
:func:`non_uniform_entropy`, :func:`entropy_information_loss`, :func:`by_element_distance`,
:func:`microaggregation_loss` (SSE/SST and IL1s),
:func:`boosting_utility` (gradient boosting on original vs anonymized), :func:`prepare_data`.

Utility of perturbed data (microaggregation, noise, swapping, coding, PRAM):
:func:`perturbation_utility` (one row per perturbed column) and :func:`perturbation_summary`
(the figures of the table), :func:`il1s`, :func:`eigenvalue_loss`,
:func:`correlation_difference`, :func:`covariance_difference`, :func:`distribution_changes`
(mean, sd and quantiles), :func:`category_share_distance`.

:func:`metrics_table` gathers them in one tidy table (``df.anon.metrics()``). scikit-learn is
imported only when a gradient-boosting metric runs.

Every figure has one snake_case key, listed once in :data:`FIGURES` (:mod:`pdanon.metrics.keys`:
key, label, which way is better, meaning): the ``metric`` column of :func:`metrics_table`, the
index of :func:`risk_summary` and :func:`perturbation_summary`, the release report's JSON and
the command line's printed figures all use it.

Missing quasi-identifier cells are data: ``missing="value"`` (default) makes a missing cell a
value of its own; ``missing="wildcard"`` (sdcMicro's) lets it match any value, for the
frequency measures (:func:`frequencies`, :func:`k_anonymity`, :func:`is_k_anonymous`).

Example
-------
>>> import pandas as pd
>>> from pdanon import metrics
>>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
>>> metrics.k_anonymity(df, ["zip"]), metrics.t_closeness(df, ["zip"], ["d"])
(2, 0.25)
"""

from pdanon.metrics.keys import FIGURES, Figure, figure
from pdanon.metrics.ml import boosting_security_score, boosting_utility, prepare_data
from pdanon.metrics.perturbation import (
    category_share_distance,
    correlation_difference,
    covariance_difference,
    distribution_changes,
    eigenvalue_loss,
    il1s,
    perturbation_summary,
    perturbation_utility,
)
from pdanon.metrics.linkage import linkage_risk, linkage_summary, rmd_disclosure
from pdanon.metrics.reidentification import record_risk, risk_summary
from pdanon.metrics.report import metrics_table
from pdanon.metrics.risk import (
    adversarial_accuracy_gain,
    adversarial_knowledge_gain,
    frequencies,
    is_k_anonymous,
    is_l_diverse,
    is_t_close,
    k_anonymity,
    l_diversity,
    t_closeness,
)
from pdanon.metrics.special_uniques import suda, suda_contributions
from pdanon.metrics.uniqueness import (
    class_size_counts,
    population_uniques,
    population_uniques_from_counts,
    uniqueness_models,
)
from pdanon.metrics.utility import (
    average_class_size,
    by_element_distance,
    by_element_distances,
    changed_proportion,
    distinctness,
    entropy_information_loss,
    microaggregation_loss,
    non_uniform_entropy,
)

__all__ = [
    "FIGURES",
    "Figure",
    "figure",
    "perturbation_utility",
    "perturbation_summary",
    "il1s",
    "eigenvalue_loss",
    "distribution_changes",
    "covariance_difference",
    "correlation_difference",
    "category_share_distance",
    "adversarial_accuracy_gain",
    "adversarial_knowledge_gain",
    "average_class_size",
    "boosting_security_score",
    "boosting_utility",
    "by_element_distance",
    "class_size_counts",
    "by_element_distances",
    "changed_proportion",
    "distinctness",
    "entropy_information_loss",
    "microaggregation_loss",
    "frequencies",
    "is_k_anonymous",
    "is_l_diverse",
    "is_t_close",
    "k_anonymity",
    "l_diversity",
    "linkage_risk",
    "linkage_summary",
    "metrics_table",
    "non_uniform_entropy",
    "population_uniques",
    "population_uniques_from_counts",
    "prepare_data",
    "record_risk",
    "risk_summary",
    "rmd_disclosure",
    "suda",
    "suda_contributions",
    "t_closeness",
    "uniqueness_models",
]
