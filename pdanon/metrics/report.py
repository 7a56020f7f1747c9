"""One tidy table of risk and utility figures (what ``df.anon.metrics()`` returns).

Equivalence classes are computed once and shared by every metric. With ``missing="wildcard"``
(a missing quasi-identifier cell matches any value) rows form no classes: the table then holds
the k-anonymity row measured with wildcard matching, and the cell comparisons with the
original.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
>>> table = metrics_table(df, quasi_identifiers=["zip"], sensitive=["d"])
>>> table.set_index("metric").loc["k_anonymity", ["label", "value"]].to_dict()
{'label': 'k-anonymity', 'value': 2.0}
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._groups import check_missing, class_labels, frequencies
from pdanon import distributions as _dist
from pdanon.metrics import perturbation, reidentification, utility
from pdanon.metrics import risk as class_risk
from pdanon.metrics._common import aligned, check_order, quasi_identifier_kinds
from pdanon.metrics.keys import row

#: the columns of the table: the figure's key (:data:`pdanon.metrics.FIGURES`), its label,
#: value, which way is better, meaning
COLUMNS = ["metric", "label", "value", "better", "meaning"]


class MetricsFrame(pd.DataFrame):
    """The table :func:`metrics_table` returns: a plain DataFrame that prints in full (no
    truncated meanings, compact numbers). Any operation on it gives a plain DataFrame."""

    @property
    def _constructor(self):
        return pd.DataFrame

    def _fmt(self, v) -> str:
        return f"{v:.6g}"

    def __repr__(self) -> str:
        return self.to_string(float_format=self._fmt, index=False)

    def _repr_html_(self):
        with pd.option_context("display.max_colwidth", None):
            return self.to_html(float_format=self._fmt, index=False)


def metrics_table(anonymized: pd.DataFrame, original: pd.DataFrame | None = None, *,
                  quasi_identifiers=None, sensitive=None, target=None, ml: bool = False,
                  random_state: int = 0, n_threads: int | None = None,
                  missing: str = "value", risk: bool = True, population=None,
                  sampling_fraction=None, weights=None, household=None,
                  threshold: float = 0.2, missing_sensitive: str | None = None) -> pd.DataFrame:
    """Risk and utility metrics of ``anonymized`` as a DataFrame with columns ``metric``
    (the figure's snake_case key, :data:`pdanon.metrics.FIGURES`), ``label`` (its name for
    display), ``value``, ``better`` ("higher" / "lower": for risk rows, safer; for utility
    rows, more useful) and ``meaning``.

    Without ``original`` only the metrics that need no original are reported. With
    ``ml=True`` (needs ``original``) the gradient-boosting linkage attack is run, and with a
    ``target`` column the gradient-boosting utility ratio too (``random_state`` and
    ``n_threads`` are passed to them). Frames passed the wrong way round (the original
    holding generalized or blank cells the "anonymized" frame does not, see
    :func:`check_order`) are refused.

    ``missing="value"`` (default): a missing quasi-identifier cell is a value of its own.
    ``missing="wildcard"``: it matches any value (sdcMicro's rule); the table then reports
    ``k_anonymity_wildcard`` (the smallest wildcard frequency) instead of the rows measured
    on equivalence classes (l, t, adversarial gains, classes, class size, distinctness,
    entropies), which need disjoint classes; the rows comparing cells with ``original`` and the
    ``ml`` rows stay.

    ``risk=True`` (the default; ``population=`` or ``sampling_fraction=`` imply it) adds the
    record-level risk rows of :func:`pdanon.metrics.risk_summary` (prosecutor, marketer,
    sample uniques, records above ``threshold``; journalist rows when a population is
    described, labelled "(estimate)" when it comes from a sampling fraction, and the estimated
    population uniques with a sampling fraction), under either ``missing`` rule;
    ``risk=False`` leaves them out. ``weights=<column>`` (sampling weights; implies the risk
    rows) estimates the population class sizes from the weights and adds the global risk and
    expected re-identifications of sdcMicro's ``measure_risk``; ``household=<column>`` the
    household figures (:mod:`pdanon.metrics.survey`). A weight column the release withholds
    is read from ``original``, row by row through its way back
    (:func:`pdanon.metrics.survey.with_input_weights`).

    ``missing_sensitive`` says how the l and t rows read a blank sensitive cell:
    ``"unknown"`` (no value: a class's known values against the table's known values) or
    ``"value"`` (one more value); default: the rule the release was made under
    (``info["models"]``), else ``"unknown"``. The adversarial gains count a blank as a value.
    """
    from pdanon.models.base import check_missing_sensitive, read_by_rule
    from pdanon.models.record import recorded_rule
    from pdanon.roles import stored_roles

    if missing_sensitive is None:
        info = anonymized.attrs.get("pdanon", {}).get("info") or {}
        missing_sensitive = recorded_rule(info) or "unknown"
    check_missing_sensitive(missing_sensitive)

    if original is not None:
        check_order(anonymized, original)
        from pdanon.metrics.survey import with_input_weights

        # sampling weights the release withholds: read from the original (publisher-only)
        anonymized = with_input_weights(anonymized, weights, original)
    qis = quasi_identifier_kinds(anonymized, quasi_identifiers, other=original)
    if sensitive is None:
        stored = stored_roles(anonymized)
        sensitive = dict(stored.sensitive) if stored is not None else {}
    sens = _dist.sensitive_kinds(anonymized, sensitive)
    rows: list[tuple] = []

    def add(key, value, **values):
        rows.append(row(key, value, **values))

    n = len(anonymized)
    risk_rows = (risk or population is not None or sampling_fraction is not None
                 or weights is not None or household is not None)
    survey = dict(weights=weights, household=household)
    if check_missing(missing) == "wildcard":
        fk = frequencies(anonymized, list(qis), missing="wildcard")
        add("k_anonymity_wildcard", fk.min() if n else 0)
        if risk_rows:
            _risk_rows(add, anonymized, list(qis), fk, population, sampling_fraction,
                       threshold, missing, **survey)
        _original_rows(add, anonymized, original, qis, None, target, ml, random_state,
                       n_threads)
        return MetricsFrame(rows, columns=COLUMNS)
    labels = class_labels(anonymized, list(qis))
    G = int(labels.max()) + 1 if n else 0
    sizes = np.bincount(labels) if n else np.zeros(0, dtype=np.int64)
    add("k_anonymity", sizes.min() if n else 0)
    if risk_rows:
        _risk_rows(add, anonymized, list(qis), sizes[labels], population, sampling_fraction,
                   threshold, missing, **survey)
    if sens:
        from pdanon import models

        data = _dist.SensitiveData({c: _dist.SensitiveColumn.from_values(anonymized[c], k,
                                                                         name=c)
                                    for c, k in sens.items()})
        if n:
            classes = read_by_rule(_dist.ClassCounts.from_labels(labels, data, groups=G),
                                   missing_sensitive)
            l_d = models.achieved_l(classes, "distinct").min()
            l_e = models.achieved_l(classes, "entropy").min()
            t = models.achieved_t(classes, "emd").max()
        else:
            l_d = l_e = t = 0.0
        add("l_diversity_distinct", l_d)
        add("l_diversity_entropy", l_e)
        add("t_closeness_emd", t)
        add("adversarial_knowledge_gain", class_risk.adversarial_knowledge_gain(
            anonymized, list(qis), sens, labels=labels))
        add("adversarial_accuracy_gain", class_risk.adversarial_accuracy_gain(
            anonymized, list(qis), sens, labels=labels))
    add("equivalence_classes", G)
    add("average_class_size", n / G if G else 0.0)
    add("distinctness", utility.distinctness(anonymized))
    h = utility._entropy_bits(labels)
    add("non_uniform_entropy", h)
    _original_rows(add, anonymized, original, qis, h, target, ml, random_state, n_threads)
    return MetricsFrame(rows, columns=COLUMNS)


#: the record-level risk figures in table order (keys of :data:`pdanon.metrics.FIGURES`,
#: as :func:`pdanon.metrics.reidentification.summarize` returns them)
RISK_KEYS = ("highest_prosecutor_risk", "average_prosecutor_risk", "median_prosecutor_risk",
             "records_at_risk", "sample_uniques", "marketer_risk", "highest_journalist_risk",
             "average_journalist_risk", "median_journalist_risk", "records_at_journalist_risk",
             "population_uniques", "global_risk", "expected_reidentifications",
             "household_global_risk", "household_expected_reidentifications")


def _risk_rows(add, anonymized, qis, f, population, sampling_fraction, threshold, missing,
               weights=None, household=None):
    """The record-level risk rows from ``f`` (class size or frequency per row)."""
    if weights is not None or household is not None:
        figures = reidentification.risk_summary(
            anonymized, qis, population=population, sampling_fraction=sampling_fraction,
            weights=weights, household=household, threshold=threshold, missing=missing)
        add_risk_rows(add, figures.to_dict(), threshold,
                      estimate="weights" if weights is not None else False)
        return
    F = None
    if population is not None or sampling_fraction is not None:
        F = reidentification.journalist_sizes(anonymized, qis, f, population=population,
                                              sampling_fraction=sampling_fraction,
                                              missing=missing)
    figures = reidentification.summarize(f, F, threshold=threshold)
    figures.update(reidentification.estimated_uniques(f, population, sampling_fraction,
                                                      missing))
    add_risk_rows(add, figures, threshold, estimate=population is None
                  and sampling_fraction is not None)


def add_risk_rows(add, figures: dict, threshold: float, *, estimate: bool) -> None:
    """Call ``add(key, value, threshold=..., estimate=...)`` for each record-level risk
    figure of ``figures`` (:func:`pdanon.metrics.reidentification.summarize` keys) in the
    order of :data:`RISK_KEYS`; ``estimate``: the journalist figures come from a sampling
    fraction (``True``) or from sampling weights (``"weights"``)."""
    for key in RISK_KEYS:
        if key in figures:
            add(key, figures[key], threshold=threshold,
                estimate=estimate if key == "marketer_risk" or "journalist" in key else False)


def _original_rows(add, anonymized, original, qis, h, target, ml, random_state, n_threads):
    """The rows comparing with ``original`` (``h``: the anonymized non-uniform entropy, None
    when the classes are not measured)."""
    if original is not None:
        from pdanon.metrics.labels import as_ranges

        from pdanon.metrics.published_loss import published_loss

        orig = aligned(original, anonymized)
        # hierarchy labels stand for the ranges of original values they cover
        anonymized, qis = as_ranges(anonymized, orig, dict(qis))
        try:  # the report's headline: each cell against the published domain
            loss = published_loss(anonymized, orig, dict(qis))
        except (ValueError, TypeError):  # a column the loss cannot price (mixed types)
            loss = None
        if loss is not None:
            add("information_loss", loss)
        add("changed_proportion", utility.changed_proportion(orig, anonymized, qis))
        if h is not None:
            h0 = utility._entropy_bits(class_labels(orig, list(qis)))
            add("entropy_information_loss", 1.0 - h / h0 if h0 else 0.0)
        add("by_element_distance", utility.by_element_distance(orig, anonymized, qis))
        for key, value in perturbation.perturbation_summary(orig, anonymized).items():
            add(key, value)
        from pdanon.metrics.linkage import linkage_summary

        for key, value in linkage_summary(orig, anonymized).items():  # perturbed numbers
            add(key, value)
        if ml:
            from pdanon.metrics import ml as _ml
            from pdanon.progress import progress_bar

            # seconds of model fitting: a bar (after 2 s, in a terminal or notebook; the
            # enclosing progress setting decides, e.g. the report's progress=)
            with progress_bar(1 + (target is not None), desc="metrics: linkage attack",
                              unit="model") as bar:
                add("boosting_security_score", _ml.boosting_security_score(
                    orig, anonymized, qis, random_state=random_state, n_threads=n_threads))
                bar.update()
                if target is not None:
                    bar.set_description(f"metrics: utility for {target!r}")
                    r = _ml.boosting_utility(orig, anonymized, target=target,
                                             quasi_identifiers=qis, random_state=random_state,
                                             n_threads=n_threads)
                    add(f"boosting_{r['metric']}_ratio", r["ratio"], target=target)
                    bar.update()
    elif ml:
        from pdanon._errors import InvalidInputError

        raise InvalidInputError("ml=True compares with the original: pass original=<frame>")
