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
>>> float(table.set_index("metric").loc["k-anonymity", "value"])
2.0
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._groups import check_missing, class_labels, frequencies
from pdanon import distributions as _dist
from pdanon.metrics import perturbation, reidentification, utility
from pdanon.metrics import risk as class_risk
from pdanon.metrics._common import aligned, quasi_identifier_kinds

COLUMNS = ["metric", "value", "better", "meaning"]


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
                  sampling_fraction=None, threshold: float = 0.2) -> pd.DataFrame:
    """Risk and utility metrics of ``anonymized`` as a DataFrame with columns ``metric``,
    ``value``, ``better`` ("higher" / "lower": for risk rows, safer; for utility rows, more
    useful) and ``meaning``.

    Without ``original`` only the metrics that need no original are reported. With
    ``ml=True`` (needs ``original``) the gradient-boosting linkage attack is run, and with a
    ``target`` column the gradient-boosting utility ratio too (``random_state`` and
    ``n_threads`` are passed to them).

    ``missing="value"`` (default): a missing quasi-identifier cell is a value of its own.
    ``missing="wildcard"``: it matches any value (sdcMicro's rule); the table then reports
    ``k-anonymity (wildcard)`` (the smallest wildcard frequency) instead of the rows measured
    on equivalence classes (l, t, adversarial gains, classes, class size, distinctness,
    entropies), which need disjoint classes; the rows comparing cells with ``original`` and the
    ``ml`` rows stay.

    ``risk=True`` (the default; ``population=`` or ``sampling_fraction=`` imply it) adds the
    record-level risk rows of :func:`pdanon.metrics.risk_summary` (prosecutor, marketer,
    sample uniques, records above ``threshold``; journalist rows when a population is
    described, marked "(estimate)" when it comes from a sampling fraction, and the estimated
    population uniques with a sampling fraction), under either ``missing`` rule;
    ``risk=False`` leaves them out.
    """
    from pdanon.roles import stored_roles

    qis = quasi_identifier_kinds(anonymized, quasi_identifiers, other=original)
    if sensitive is None:
        stored = stored_roles(anonymized)
        sensitive = dict(stored.sensitive) if stored is not None else {}
    sens = _dist.sensitive_kinds(anonymized, sensitive)
    rows: list[tuple] = []

    def add(metric, value, better, meaning):
        rows.append((metric, float(value), better, meaning))

    n = len(anonymized)
    risk_rows = risk or population is not None or sampling_fraction is not None
    if check_missing(missing) == "wildcard":
        fk = frequencies(anonymized, list(qis), missing="wildcard")
        add("k-anonymity (wildcard)", fk.min() if n else 0, "higher",
            "risk: fewest rows a row matches (a missing cell matches any value)")
        if risk_rows:
            _risk_rows(add, anonymized, list(qis), fk, population, sampling_fraction,
                       threshold, missing)
        _original_rows(add, anonymized, original, qis, None, target, ml, random_state,
                       n_threads)
        return MetricsFrame(rows, columns=COLUMNS)
    labels = class_labels(anonymized, list(qis))
    G = int(labels.max()) + 1 if n else 0
    sizes = np.bincount(labels) if n else np.zeros(0, dtype=np.int64)
    add("k-anonymity", sizes.min() if n else 0, "higher",
        "risk: rows in the smallest equivalence class")
    if risk_rows:
        _risk_rows(add, anonymized, list(qis), sizes[labels], population, sampling_fraction,
                   threshold, missing)
    if sens:
        from pdanon import models

        data = _dist.SensitiveData({c: _dist.SensitiveColumn.from_values(anonymized[c], k,
                                                                         name=c)
                                    for c, k in sens.items()})
        if n:
            classes = _dist.ClassCounts.from_labels(labels, data, groups=G)
            l_d = models.achieved_l(classes, "distinct").min()
            l_e = models.achieved_l(classes, "entropy").min()
            t = models.achieved_t(classes, "emd").max()
        else:
            l_d = l_e = t = 0.0
        add("l-diversity (distinct)", l_d, "higher",
            "risk: fewest distinct sensitive values in a class")
        add("l-diversity (entropy)", l_e, "higher",
            "risk: exp(lowest class entropy of sensitive values)")
        add("t-closeness (EMD)", t, "lower",
            "risk: largest class-to-table distance (sensitive)")
        add("adversarial knowledge gain", class_risk.adversarial_knowledge_gain(
            anonymized, list(qis), sens, labels=labels), "lower",
            "risk: mean class-to-table total variation")
        add("adversarial accuracy gain", class_risk.adversarial_accuracy_gain(
            anonymized, list(qis), sens, labels=labels), "lower",
            "risk: gain in guessing a sensitive value by class")
    add("equivalence classes", G, "higher", "utility: distinct quasi-identifier combinations")
    add("average class size", n / G if G else 0.0, "lower",
        "utility: rows per equivalence class")
    add("distinctness", utility.distinctness(anonymized), "higher",
        "utility: distinct published rows / rows")
    h = utility._entropy_bits(labels)
    add("non-uniform entropy", h, "higher", "utility: entropy (bits) of quasi-identifier rows")
    _original_rows(add, anonymized, original, qis, h, target, ml, random_state, n_threads)
    return MetricsFrame(rows, columns=COLUMNS)


#: (summary key, metric name, meaning) of the record-level risk rows; "{t}" is the threshold.
RISK_ROWS = (
    ("highest_prosecutor", "highest prosecutor risk",
     "risk: 1 / smallest class; 1.0 as soon as one row is unique"),
    ("average_prosecutor", "average prosecutor risk",
     "risk: mean over rows of 1 / class size (= classes / rows)"),
    ("median_prosecutor", "median prosecutor risk", "risk: the typical row's 1 / class size"),
    ("records_at_risk", "records at risk", "risk: share of rows with prosecutor risk > {t}"),
    ("sample_uniques", "sample uniques", "risk: share of rows unique on the quasi-identifiers"),
    ("marketer", "marketer risk",
     "risk: expected share of rows re-identified when all are matched"),
    ("highest_journalist", "highest journalist risk",
     "risk: 1 / smallest population class met by the table"),
    ("average_journalist", "average journalist risk",
     "risk: mean over rows of 1 / population class size"),
    ("median_journalist", "median journalist risk",
     "risk: the typical row's 1 / population class size"),
    ("records_at_journalist_risk", "records at journalist risk",
     "risk: share of rows with journalist risk > {t}"),
    ("population_uniques", "population uniques (estimate)",
     "risk: estimated share of the population unique on the QIs (Dankar's rule)"),
)


def _risk_rows(add, anonymized, qis, f, population, sampling_fraction, threshold, missing):
    """The record-level risk rows from ``f`` (class size or frequency per row)."""
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
    """Call ``add(metric, value, better, meaning)`` for each record-level risk figure of
    ``figures`` (:func:`pdanon.metrics.reidentification.summarize` keys) in the order of
    :data:`RISK_ROWS`; ``estimate``: the journalist figures come from a sampling fraction."""
    for key, name, meaning in RISK_ROWS:
        if key in figures:
            if estimate and (key == "marketer" or "journalist" in key):
                name, meaning = f"{name} (estimate)", f"{meaning}, F = f / sampling fraction"
            add(name, figures[key], "lower", meaning.format(t=threshold))


def _original_rows(add, anonymized, original, qis, h, target, ml, random_state, n_threads):
    """The rows comparing with ``original`` (``h``: the anonymized non-uniform entropy, None
    when the classes are not measured)."""
    if original is not None:
        orig = aligned(original, anonymized)
        add("changed proportion", utility.changed_proportion(orig, anonymized, qis), "lower",
            "utility: changed quasi-identifier cells / all")
        if h is not None:
            h0 = utility._entropy_bits(class_labels(orig, list(qis)))
            add("entropy information loss", 1.0 - h / h0 if h0 else 0.0, "lower",
                "utility: 1 - entropy(anonymized) / entropy(original)")
        add("by-element distance", utility.by_element_distance(orig, anonymized, qis), "lower",
            "utility: mean cell distance to the original, 0..1")
        for name, value in perturbation.perturbation_summary(orig, anonymized).items():
            add(name, value, "lower", perturbation.MEANINGS[name])
        if ml:
            from pdanon.metrics import ml as _ml

            add("linkage attack security", _ml.boosting_security_score(
                orig, anonymized, qis, random_state=random_state, n_threads=n_threads),
                "higher",
                "risk: 1 - accuracy of a model matching rows to originals on a small "
                "held-out sample (misleads: guessing scores high; read records_at_risk)")
            if target is not None:
                r = _ml.boosting_utility(orig, anonymized, target=target,
                                         quasi_identifiers=qis, random_state=random_state,
                                         n_threads=n_threads)
                add(f"boosting {r['metric']} ratio", r["ratio"], "higher",
                    f"utility: {r['task']} of {target!r}, anonymized vs original")
    elif ml:
        from pdanon._errors import InvalidInputError

        raise InvalidInputError("ml=True compares with the original: pass original=<frame>")
