"""Record-level re-identification risk: prosecutor, journalist and marketer risk (El Emam &
Dankar 2008), per row and summarized.

An attacker knows a person's quasi-identifiers and looks for the matching rows of the release:

* **prosecutor** - the attacker knows the person IS in the release: the chance of picking the
  right row is 1 / f, f the size of the row's equivalence class in the release;
* **journalist** - the attacker does not know whether the person is in the release and links
  it with a population register: 1 / F, F the size of the row's class in the population (the
  release is a sample of it). Given as a population table (``population=``: exact F) or as a
  sampling fraction (``sampling_fraction=``: F is estimated as f / fraction - an estimate,
  labelled so);
* **marketer** - the attacker re-identifies as many rows as possible, not one person: the
  expected share of rows re-identified, mean(1 / f) = classes / n without a population,
  mean(1 / F) = sum over classes of f / F, divided by n, with one.

``missing="value"`` (default): a missing quasi-identifier cell is a value of its own.
``missing="wildcard"`` (sdcMicro's rule): a missing cell matches any value; f is then the
row's frequency (the rows agreeing with it wherever both are present, see
:func:`pdanon._groups.frequencies`), there are no classes (no ``class_id``), and with a
population table F counts the population rows matching the row the same way.

The figures' keys are those of :data:`pdanon.metrics.FIGURES` (``highest_prosecutor_risk``,
``records_at_risk``, ...), the keys of the same rows of ``df.anon.metrics()``.

With ``sampling_fraction=`` :func:`risk_summary` also reports ``population_uniques``: the
estimated share of the population's records that are unique on the quasi-identifiers, by
Dankar et al.'s decision rule among the Pitman, Zayatz and SNB models
(:mod:`pdanon.metrics.uniqueness`, which gives every estimator).

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"age": [30, 30, 40, 50], "sex": ["F", "F", "M", "M"]})
>>> record_risk(df, ["age", "sex"])["prosecutor"].tolist()
[0.5, 0.5, 1.0, 1.0]
>>> float(risk_summary(df, ["age", "sex"])["marketer_risk"])
0.75
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from pdanon import _groups
from pdanon._errors import InvalidInputError, UnknownColumnError
from pdanon.metrics import uniqueness
from pdanon.metrics._common import check_frame, quasi_identifier_kinds

__all__ = ["record_risk", "risk_summary", "summarize", "summarize_counts", "summarize_groups",
           "population_sizes", "journalist_sizes", "estimated_uniques", "DEFAULT_THRESHOLD",
           "PROSECUTOR_KEYS", "JOURNALIST_KEYS"]

#: the keys :func:`summarize` always returns, in order (:data:`pdanon.metrics.FIGURES`)
PROSECUTOR_KEYS = ("highest_prosecutor_risk", "average_prosecutor_risk",
                   "median_prosecutor_risk", "records_at_risk", "marketer_risk",
                   "sample_uniques")
#: the keys it adds when a population is described
JOURNALIST_KEYS = ("highest_journalist_risk", "average_journalist_risk",
                   "median_journalist_risk", "records_at_journalist_risk")

#: Prosecutor (or journalist) risk above which a record counts as "at risk": 0.2, i.e. classes
#: of fewer than 5 rows (ARX's default threshold for the share of records at risk).
DEFAULT_THRESHOLD = 0.2


def _check_threshold(threshold) -> float:
    if (isinstance(threshold, bool) or not isinstance(threshold, numbers.Real)
            or not 0 <= threshold <= 1):
        raise InvalidInputError(
            f"threshold is a probability of re-identification in [0, 1] (0.2: classes of fewer "
            f"than 5 rows are at risk), got {threshold!r}"
        )
    return float(threshold)


def _sample_sizes(df: pd.DataFrame, qis: list, missing: str):
    """(class label per row or None under wildcard, f per row)."""
    if _groups.check_missing(missing) == "wildcard":
        return None, _groups.frequencies(df, qis, missing="wildcard")
    labels = _groups.class_labels(df, qis)
    return labels, _groups.class_sizes(labels)


def population_sizes(df: pd.DataFrame, population: pd.DataFrame, quasi_identifiers, *,
                     missing: str = "value", sample_sizes: np.ndarray | None = None
                     ) -> np.ndarray:
    """F per row of ``df``: how many rows of ``population`` share the row's quasi-identifiers
    (with ``missing="wildcard"``: match it wherever both are present). The population must
    contain the sample, so F >= f for every row; otherwise a clear error. ``sample_sizes``:
    the rows' wildcard frequencies in ``df`` when already known.

    Example
    -------
    >>> sample = pd.DataFrame({"zip": [1, 1, 2]})
    >>> pop = pd.DataFrame({"zip": [1, 1, 1, 2, 2, 3]})
    >>> population_sizes(sample, pop, ["zip"]).tolist()
    [3, 3, 2]
    """
    qis = list(quasi_identifiers)
    if _groups.check_missing(missing) == "wildcard":
        return _wildcard_population(df, population, qis, sample_sizes)
    return _value_population(df, population, qis)[2]


def _joint_frame(df, population, qis) -> pd.DataFrame:
    """The quasi-identifiers of the sample rows, then of the population rows."""
    check_frame(population, "population")
    absent = [c for c in qis if c not in population.columns]
    if absent:
        raise UnknownColumnError(
            f"the population table lacks quasi-identifier column(s) {absent}; give it the same "
            f"quasi-identifier columns as the sample (it has {list(population.columns)})"
        )
    return pd.concat([df[qis], population[qis]], ignore_index=True)


def _value_population(df, population, qis):
    """(class label per sample row, f, F) from one encoding of sample + population; the
    labels are numbered as :func:`pdanon._groups.class_labels` numbers the sample's."""
    n = len(df)
    joint = _groups.class_labels(_joint_frame(df, population, qis), qis)
    G = int(joint.max()) + 1 if len(joint) else 0
    own = joint[:n]
    f = np.bincount(own, minlength=G)[own]
    F = np.bincount(joint[n:], minlength=G)[own]
    _check_contains(df, f, F)
    labels, _ = pd.factorize(own)  # first appearance among the sample rows
    return np.asarray(labels, dtype=np.int64), f, F


def _wildcard_population(df, population, qis, f=None):
    """F under wildcard matching. Matching is symmetric: a sample row's matches among
    sample + population rows, minus its matches among the sample rows, are its population
    matches."""
    joint = _joint_frame(df, population, qis)
    if f is None:
        f = _groups.frequencies(df, qis, missing="wildcard")
    F = _groups.frequencies(joint, qis, missing="wildcard")[:len(df)] - f
    _check_contains(df, f, F)
    return F


def _check_contains(df, f, F) -> None:
    from pdanon.models.population import check_contains

    check_contains(df, f, F, hint=", or sampling_fraction= instead")


def journalist_sizes(df: pd.DataFrame, quasi_identifiers, f: np.ndarray, *, population=None,
                     sampling_fraction=None, missing: str = "value") -> np.ndarray | None:
    """F per row (float): from the ``population`` table, or the estimate f /
    ``sampling_fraction``; None when neither is given. ``f``: the sample sizes per row.

    Example
    -------
    >>> journalist_sizes(pd.DataFrame({"a": [1]}), ["a"], np.array([2]),
    ...                  sampling_fraction=0.5).tolist()
    [4.0]
    """
    return _journalist_sizes(df, list(quasi_identifiers), f, population, sampling_fraction,
                             missing)[0]


def _journalist_sizes(df, qis, f, population, sampling_fraction, missing):
    """(F per row as float, True when it is an estimate) or (None, False)."""
    if population is not None and sampling_fraction is not None:
        raise InvalidInputError(
            "pass either population= (a population table: exact journalist risk) or "
            "sampling_fraction= (an estimate), not both"
        )
    if population is not None:
        return population_sizes(df, population, qis, missing=missing,
                                sample_sizes=f).astype(np.float64), False
    if sampling_fraction is not None:
        return f / uniqueness.check_sampling_fraction(sampling_fraction), True
    return None, False


def summarize(f: np.ndarray, F: np.ndarray | None = None, *,
              threshold: float = DEFAULT_THRESHOLD) -> dict:
    """The summary figures from f (sample class size, or frequency, per row) and, when a
    population is described, F (population class size per row; may be an estimate).

    Example
    -------
    >>> summarize(np.array([2, 2, 1, 1]), threshold=0.5)["records_at_risk"]
    0.5
    """
    threshold = _check_threshold(threshold)
    n = len(f)
    out = dict.fromkeys(PROSECUTOR_KEYS, 0.0)
    if F is not None:
        out.update(dict.fromkeys(JOURNALIST_KEYS, 0.0))
    if n == 0:
        return out
    p = 1.0 / np.asarray(f, dtype=np.float64)
    out.update(highest_prosecutor_risk=float(p.max()), average_prosecutor_risk=float(p.mean()),
               median_prosecutor_risk=float(np.median(p)),
               records_at_risk=float(np.count_nonzero(p > threshold) / n),
               marketer_risk=float(p.mean()),
               sample_uniques=float(np.count_nonzero(np.asarray(f) == 1) / n))
    if F is not None:
        j = 1.0 / np.asarray(F, dtype=np.float64)
        out.update(highest_journalist_risk=float(j.max()),
                   average_journalist_risk=float(j.mean()),
                   median_journalist_risk=float(np.median(j)),
                   records_at_journalist_risk=float(np.count_nonzero(j > threshold) / n),
                   marketer_risk=float(j.mean()))
    return out


def _weighted_median(values: np.ndarray, rows: np.ndarray) -> float:
    """``np.median`` of the multiset holding ``values[i]`` ``rows[i]`` times."""
    order = np.argsort(values, kind="stable")
    v, cum = values[order], np.cumsum(rows[order])
    n = int(cum[-1])
    low, high = np.searchsorted(cum, [(n - 1) // 2, n // 2], side="right")
    return float((v[low] + v[high]) / 2)


def summarize_groups(f, classes, F=None, *, threshold: float = DEFAULT_THRESHOLD) -> dict:
    """The figures of :func:`summarize` from groups of equal classes: ``classes[i]`` classes
    of ``f[i]`` rows each, whose population class size is ``F[i]`` (or no population when
    ``F`` is None). What a distributed group-by collects: one entry per distinct (f, F), not
    one per class or row. Equal to :func:`summarize` on the rows (up to float rounding in the
    averages).

    Example
    -------
    >>> summarize_groups([1, 2], [2, 1], threshold=0.5) == summarize(np.array([1, 1, 2, 2]),
    ...                                                              threshold=0.5)
    True
    >>> summarize_groups([1, 2], [2, 1], [4, 4])["highest_journalist_risk"]
    0.25
    """
    threshold = _check_threshold(threshold)
    f = np.asarray(f, dtype=np.float64)
    rows = f * np.asarray(classes, dtype=np.float64)
    n = float(rows.sum())
    if n == 0:
        return summarize(np.zeros(0), None if F is None else np.zeros(0), threshold=threshold)

    def figures(p: np.ndarray, tag: str, at_risk: str) -> dict:
        return {f"highest_{tag}_risk": float(p[rows > 0].max()),
                f"average_{tag}_risk": float((p * rows).sum() / n),
                f"median_{tag}_risk": _weighted_median(p, rows),
                at_risk: float(rows[p > threshold].sum() / n)}

    out = figures(1.0 / f, "prosecutor", "records_at_risk")
    out["marketer_risk"] = out["average_prosecutor_risk"]
    out["sample_uniques"] = float(rows[f == 1].sum() / n)
    out = {k: out[k] for k in PROSECUTOR_KEYS}
    if F is not None:
        out.update(figures(1.0 / np.asarray(F, dtype=np.float64), "journalist",
                           "records_at_journalist_risk"))
        out["marketer_risk"] = out["average_journalist_risk"]
    return out


def summarize_counts(size_counts, *, threshold: float = DEFAULT_THRESHOLD,
                     sampling_fraction=None) -> dict:
    """The figures of :func:`summarize` from the frequency-of-frequencies table alone
    (``{class size: number of classes}``, as :func:`pdanon.metrics.class_size_counts` gives),
    with, for ``sampling_fraction=p``, the journalist estimates (F = f / p) and Dankar's
    population uniques (:func:`summarize_groups` does the rest).

    Example
    -------
    >>> summarize_counts({1: 2, 2: 1}, threshold=0.5) == summarize(np.array([1, 1, 2, 2]),
    ...                                                             threshold=0.5)
    True
    >>> summarize_counts({1: 2, 2: 1}, sampling_fraction=0.5)["highest_journalist_risk"]
    0.5
    """
    sizes, classes = uniqueness.check_size_counts(size_counts)
    if sampling_fraction is None:
        return summarize_groups(sizes, classes, threshold=threshold)
    fraction = uniqueness.check_sampling_fraction(sampling_fraction)
    out = summarize_groups(sizes, classes, sizes / fraction, threshold=threshold)
    out["population_uniques"] = uniqueness.population_uniques_from_counts(
        dict(zip(sizes.tolist(), classes.tolist())), sampling_fraction=fraction
    ) if len(sizes) else 0.0
    return out


def estimated_uniques(f: np.ndarray, population, sampling_fraction, missing: str) -> dict:
    """``{"population_uniques": Dankar's estimate}`` from the class size of every row when the
    population is described by a sampling fraction under ``missing="value"``; else ``{}``.

    Example
    -------
    >>> estimated_uniques(np.array([1, 2, 2]), None, 1.0, "value")
    {'population_uniques': 0.3333333333333333}
    """
    if population is not None or sampling_fraction is None or missing != "value":
        return {}
    counts = uniqueness.counts_from_row_sizes(f)
    return {"population_uniques": uniqueness.population_uniques_from_counts(
        counts, sampling_fraction=sampling_fraction)}


def _sizes(df, qis, population, sampling_fraction, missing, w=None):
    """(class labels or None, f, F or None, F is an estimate) for the sample ``df``; with a
    population table and ``missing="value"`` one encoding of sample + population serves
    both; with sampling weights ``w`` F is the sum of the weights of the row's class."""
    if w is not None:
        if population is not None or sampling_fraction is not None:
            raise InvalidInputError(
                "weights= estimates each class's population size from the sampling weights; "
                "pass it alone, without population= or sampling_fraction=")
        from pdanon.metrics.survey import population_estimates

        f, F = population_estimates(df, qis, w, missing=missing)
        labels = (_groups.class_labels(df, qis) if _groups.check_missing(missing) == "value"
                  else None)
        return labels, f, F, True
    if (population is not None and sampling_fraction is None
            and _groups.check_missing(missing) == "value"):
        labels, f, F = _value_population(df, population, qis)
        return labels, f, F.astype(np.float64), False
    labels, f = _sample_sizes(df, qis, missing)
    F, estimate = _journalist_sizes(df, qis, f, population, sampling_fraction, missing)
    return labels, f, F, estimate


def _note(estimate: bool, sampling_fraction, weights=None) -> str:
    if weights is not None:
        return (f"journalist: estimate, population class size F = the sum of the sampling "
                f"weights {weights!r} of the class")
    if estimate:
        return (f"journalist: estimate, population class size F = f / {sampling_fraction} "
                f"(sampling fraction)")
    return "journalist: population table"


def _weights_and_household(df, qis, weights, household):
    """The checked weights (or None) and household ids (or None)."""
    from pdanon.metrics import survey

    w = None if weights is None else survey.check_weights(df, weights, qis)
    ids = None if household is None else survey._check_household(df, household, weights, qis)
    return w, ids


def _measure(df, quasi_identifiers, population, sampling_fraction, weights, household,
             missing):
    """(labels, f, F, estimate, weights array or None, household ids or None) of ``df``."""
    check_frame(df)
    qis = list(quasi_identifier_kinds(df, quasi_identifiers))
    w, ids = _weights_and_household(df, qis, weights, household)
    return (*_sizes(df, qis, population, sampling_fraction, missing, w), w, ids)


def _individual(f, F, w) -> np.ndarray:
    """Individual risk: sdcMicro's estimate from the weights, else 1 / f."""
    from pdanon.metrics.survey import individual_risk

    return individual_risk(f, F) if w is not None else 1.0 / np.asarray(f, dtype=np.float64)


def record_risk(df: pd.DataFrame, quasi_identifiers=None, *, population=None,
                sampling_fraction=None, weights=None, household=None,
                missing: str = "value") -> pd.DataFrame:
    """Per-row re-identification risk, indexed like ``df``.

    Columns: ``class_id`` (the row's equivalence class, as
    :meth:`df.anon.equivalence_classes`; absent with ``missing="wildcard"``, which forms no
    classes), ``class_size`` (f: rows sharing the row's quasi-identifiers; its wildcard
    frequency under ``"wildcard"``), ``prosecutor`` (1 / f) and, when a population is described,
    ``journalist`` (1 / F): with ``population=<table>`` F is the size of the row's class in that
    table (which must contain the sample); with ``sampling_fraction=p`` F is the estimate
    f / p, and ``result.attrs["journalist"]`` says so.

    With ``weights=<column>`` (sampling weights, people per row) F is the sum of the weights
    of the row's class, and ``individual`` is the individual risk of sdcMicro's
    ``measure_risk`` (:mod:`pdanon.metrics.survey`); with ``household=<column>`` (household
    ids), ``household`` is the chance that at least one member of the row's household is
    re-identified, 1 - prod(1 - r) over its rows (r: the individual risk, or 1 / f without
    weights).

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2]})
    >>> pop = pd.DataFrame({"zip": [1, 1, 1, 1, 2, 2]})
    >>> record_risk(df, ["zip"], population=pop)
       class_id  class_size  prosecutor  journalist
    0         0           2         0.5        0.25
    1         0           2         0.5        0.25
    2         1           1         1.0        0.50
    """
    labels, f, F, estimate, w, ids = _measure(df, quasi_identifiers, population,
                                              sampling_fraction, weights, household, missing)
    cols = {} if labels is None else {"class_id": labels}
    cols["class_size"] = f.astype(np.int64)
    cols["prosecutor"] = 1.0 / f.astype(np.float64)
    if F is not None:
        cols["journalist"] = 1.0 / F
    if w is not None:
        cols["population_size"] = F
        cols["individual"] = _individual(f, F, w)
    if ids is not None:
        from pdanon.metrics.survey import household_risk

        cols["household"] = household_risk(_individual(f, F, w), ids)
    out = pd.DataFrame(cols, index=df.index)
    if F is not None:
        out.attrs["journalist"] = _note(estimate, sampling_fraction, weights)
    return out


def risk_summary(df: pd.DataFrame, quasi_identifiers=None, *, population=None,
                 sampling_fraction=None, weights=None, household=None,
                 threshold: float = DEFAULT_THRESHOLD,
                 missing: str = "value") -> pd.Series:
    """Summary of the record-level risks as a float Series:

    * ``highest_prosecutor_risk`` - 1 / smallest class: the risk of the most exposed row
      (1.0 as soon as one row is unique);
    * ``average_prosecutor_risk`` - mean of 1 / f over rows (= classes / rows);
    * ``median_prosecutor_risk`` - the typical row's risk;
    * ``records_at_risk`` - share of rows whose prosecutor risk exceeds ``threshold``
      (default 0.2: classes of fewer than 5 rows);
    * ``marketer_risk`` - expected share of rows re-identified by an attacker matching every row:
      classes / rows, or with a population mean of 1 / F (sum over classes of f / F, / rows);
    * ``sample_uniques`` - share of rows unique in the table (f = 1);
    * with ``population=`` or ``sampling_fraction=``: ``highest_journalist_risk``,
      ``average_journalist_risk``, ``median_journalist_risk``, ``records_at_journalist_risk``
      (1 / F above ``threshold``); from a sampling fraction they are estimates
      (``result.attrs["journalist"]`` says so);
    * with ``sampling_fraction=`` (and ``missing="value"``): ``population_uniques`` - the
      estimated share of the population's records unique on the quasi-identifiers (Dankar
      et al.'s rule, :func:`pdanon.metrics.population_uniques`); not reported under
      ``missing="wildcard"``, where rows form no classes;
    * with ``weights=<column>`` (sampling weights): the journalist figures with F the sum of
      the weights of each class, and ``global_risk`` (the mean individual risk of sdcMicro's
      ``measure_risk``) and ``expected_reidentifications`` (its sum);
    * with ``household=<column>``: ``household_global_risk`` and
      ``household_expected_reidentifications``, the mean and sum over rows of the household
      risk (:func:`record_risk`).

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 3]})
    >>> s = risk_summary(df, ["zip"], sampling_fraction=0.1, threshold=0.5)
    >>> s[["highest_prosecutor_risk", "records_at_risk", "highest_journalist_risk"]].tolist()
    [1.0, 0.5, 0.1]
    """
    _, f, F, estimate, w, ids = _measure(df, quasi_identifiers, population, sampling_fraction,
                                         weights, household, missing)
    figures = summarize(f, F, threshold=threshold)
    figures.update(estimated_uniques(f, population, sampling_fraction, missing))
    if w is not None or ids is not None:
        from pdanon.metrics.survey import household_risk, survey_summary

        r = _individual(f, F, w)
        both = survey_summary(r, None if ids is None else household_risk(r, ids))
        if w is None:  # households without weights: only their figures
            both = {k: v for k, v in both.items() if k.startswith("household")}
        figures.update(both)
    out = pd.Series(figures, name="risk", dtype=np.float64)
    if F is not None:
        out.attrs["journalist"] = _note(estimate, sampling_fraction, weights)
    return out
