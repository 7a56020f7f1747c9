"""Re-identification risk of survey microdata with sampling weights: the individual risk of
sdcMicro's ``measure_risk`` / ``indivRisk`` (the approximation of Benedetti & Franconi 1998 in
the form of Franconi & Polettini 2004), the global risk, the expected number of
re-identifications, and the household (hierarchical) risk.

A survey row stands for ``w`` people of the population (its sampling weight, a grossing-up
factor: ``w >= 1``). For a row of class k (its quasi-identifier combination) with sample
frequency ``f_k`` the population frequency is estimated as ``F_k = sum of the weights of the
class``. Under the super-population model of Benedetti & Franconi, ``F_k - f_k`` given ``f_k``
is negative binomial with success probability ``p_k = f_k / F_k``, and the risk of the
attacker's match being right is ``r_k = E[1 / F_k | f_k]``:

* ``f_k = 1``: ``r_k = p / (1 - p) * ln(1 / p)`` (exact);
* ``f_k = 2``: ``r_k = p / (1 - p) - (p / (1 - p))**2 * ln(1 / p)`` (exact);
* ``f_k >= 3``: ``r_k ~ p / (f_k - (1 - p))``, the first term of the series (sdcMicro's
  default ``method="approx"``). It lies a little above the exact expectation (by at most
  about 4 %, at ``f_k = 3`` and ``p_k`` near 0.3; under 1.2 % from ``f_k = 5``, checked by
  numerical integration in ``tests/metrics/test_survey.py``), so it errs on the safe side;
* ``F_k = f_k`` (every weight 1: the sample is the population): ``r_k = 1 / f_k``.

The global risk is the mean of ``r`` over the rows and the expected number of
re-identifications its sum (sdcMicro's ``global_risk`` and ``global_risk_ER``). With
``household=``, the household risk of every member is ``1 - prod(1 - r)`` over the
household's rows (the chance that at least one member is re-identified, members taken as
independent; sdcMicro's ``hier_risk`` with ``fast_hier=TRUE``), and its mean and sum are
reported too.

``missing="wildcard"`` follows sdcMicro's ``freqCalc`` (``alpha=1``): a missing key cell matches
any value, ``f_k`` is the row's frequency and ``F_k`` the sum of the weights of the rows it
matches.

Sampling weights are a channel (:mod:`pdanon.screening.channels`): stratum weights published
beside a generalized ZIP code give the ZIP back. A publisher may withhold them
(``identifiers=["w"]``) and still measure the weighted risk: given the original the release
was made from, ``check(..., weights="w", original=df)``, ``report(df, weights="w")``,
``metrics(df, weights="w")`` and ``publish(..., original=df)`` with ``Policy(weights="w")``
read the weights from the original, row by row through the release's publisher-only way back
(:func:`with_input_weights`). The figures are those the published column would give; the
weights stay in this process (a publisher-only fact, never written).

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"sex": ["F", "F", "M"], "w": [10.0, 30.0, 1.0]})
>>> r = survey_risk(df, ["sex"], weights="w")
>>> r["population_size"].tolist(), r["individual_risk"].round(4).tolist()
([40.0, 40.0, 1.0], [0.0443, 0.0443, 1.0])
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon import _groups
from pdanon._errors import InvalidInputError, UnknownColumnError

__all__ = ["SURVEY_KEYS", "HOUSEHOLD_KEYS", "WITHHELD_WEIGHTS", "check_weights",
           "household_risk", "survey_roles", "individual_risk", "population_estimates",
           "survey_risk", "survey_summary", "with_input_weights"]

#: the figures of a weighted risk summary (keys of :data:`pdanon.metrics.FIGURES`)
SURVEY_KEYS = ("global_risk", "expected_reidentifications")
#: the figures added with ``household=``
HOUSEHOLD_KEYS = ("household_global_risk", "household_expected_reidentifications")


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def check_weights(df: pd.DataFrame, weights, quasi_identifiers=(), *,
                  bad_rows: int | None = None) -> np.ndarray:
    """The sampling weights of ``df`` (a column name) as float64; refused, naming the column
    and the row, when a weight is missing, not finite or below 1 (a weight is the number of
    people a row stands for), or when the column is a quasi-identifier. ``bad_rows``: how
    many such rows the whole table holds, when ``df`` is a part of it (Dask)."""
    if not isinstance(weights, str) and not np.isscalar(weights):
        raise InvalidInputError(f"weights must name a column of sampling weights, e.g. "
                                f"weights='w', got {type(weights).__name__}")
    if weights in list(quasi_identifiers):
        raise InvalidInputError(f"the weight column {weights!r} is also a quasi-identifier: "
                                f"weights are not matched on; leave it out of "
                                f"quasi_identifiers")
    col = df[weights] if weights in df.columns else _withheld(df, weights)
    if not pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype):
        raise InvalidInputError(f"weight column {weights!r} holds {col.dtype} values: sampling "
                                f"weights are numbers (people per row)")
    w = col.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.flatnonzero(~np.isfinite(w) | (w < 1))
    if len(bad):
        at = bad[0]
        count = len(bad) if bad_rows is None else bad_rows
        raise InvalidInputError(
            f"weight column {weights!r}, row {_plain(df.index[at])!r}: "
            f"{_plain(col.iloc[at])!r} is not a sampling weight ({count:,} such rows): a "
            f"weight is the number of people a row "
            f"stands for, a finite number >= 1; pass the survey's design weights, not "
            f"normalized ones")
    return w


#: the publisher-only fact (``info["publisher_only"]``) holding the sampling weights a release
#: withholds, read from its original by :func:`with_input_weights`: column name -> Series
#: indexed like the release
WITHHELD_WEIGHTS = "withheld_weights"


def _withheld(df: pd.DataFrame, weights) -> pd.Series:
    """The weights ``df`` withholds (:func:`with_input_weights`), row-aligned with ``df``;
    refused, saying how to measure them, when it holds none under that name."""
    from pdanon.publisher_only import facts_of

    held = (facts_of(df).get(WITHHELD_WEIGHTS) or {}).get(weights)
    if held is None:
        raise UnknownColumnError(
            f"weights={weights!r} is not a column; the frame has {list(df.columns)}. Sampling "
            f"weights withheld from a release (identifiers=[{weights!r}]) are read from the "
            f"original it was made from: pass original=<that frame> (check(..., weights="
            f"{weights!r}, original=df), report(df, weights={weights!r}), metrics(df, "
            f"weights={weights!r}))")
    if not df.index.isin(held.index).all():
        raise InvalidInputError(
            f"the withheld weights {weights!r} were read for other rows than this frame's: "
            f"measure the frame the anonymizer returned (with original=)")
    return held.reindex(df.index)


def with_input_weights(release: pd.DataFrame, weights, original) -> pd.DataFrame:
    """``release`` as the weighted risk reads it: the frame itself when ``weights`` is None,
    one of its columns, or no ``original`` is given; otherwise (the weights withheld from the
    release, e.g. ``identifiers=["w"]``) a shallow view of it whose publisher-only facts hold
    the original's weights, row by row through the release's way back
    (:func:`pdanon.metrics._common.aligned`: the rows suppressed stay with their weights, the
    rows withheld are not read). The view holds no weight column (every other figure of it is
    the release's) and its facts are never written (:class:`pdanon.publisher_only.PublisherOnly`).

    Example
    -------
    >>> df = pd.DataFrame({"sex": ["F", "F", "M", "M"], "w": [10.0, 30.0, 5.0, 7.0]})
    >>> out = df.anon.k_anonymize(2, quasi_identifiers=["sex"], identifiers=["w"])
    >>> "w" in out.columns
    False
    >>> seen = with_input_weights(out, "w", df)
    >>> list(seen.columns) == list(out.columns)
    True
    >>> sorted(survey_risk(seen, ["sex"], weights="w")["population_size"].tolist())
    [12.0, 12.0, 40.0, 40.0]
    """
    if weights is None or original is None or not (isinstance(weights, str) or np.isscalar(
            weights)) or weights in release.columns:
        return release  # (a weights= that names no column is refused by check_weights)
    if weights not in original.columns:
        raise UnknownColumnError(
            f"weights={weights!r} is a column of neither the release ({list(release.columns)}) "
            f"nor the original: name the column of sampling weights")
    from pdanon.metrics._common import aligned
    from pdanon.publisher_only import ATTRS_KEY, PublisherOnly, facts_of

    matched = aligned(original, release)
    if len(matched) != len(release):
        raise InvalidInputError(f"the original's rows cannot be matched one by one with the "
                                f"release's to read the weights {weights!r}: pass the frame "
                                f"the release was made from")
    values = pd.Series(matched[weights].to_numpy(), index=release.index, name=weights)
    facts = facts_of(release)
    facts[WITHHELD_WEIGHTS] = {**(facts.get(WITHHELD_WEIGHTS) or {}), weights: values}
    view = release.copy(deep=False)
    attrs = dict(release.attrs)
    block = dict(attrs.get(ATTRS_KEY) or {})
    block["info"] = {**(block.get("info") or {}), "publisher_only": PublisherOnly(facts)}
    attrs[ATTRS_KEY] = block
    view.attrs = attrs
    return view


def population_estimates(df: pd.DataFrame, quasi_identifiers, w: np.ndarray, *,
                         missing: str = "value") -> tuple:
    """``(f, F)`` per row: the sample frequency (int64) and the estimated population
    frequency, the sum of the weights of the rows it matches (float64)."""
    qis = list(quasi_identifiers)
    f, F = _groups.weighted_frequencies(df, qis, w, missing=missing)
    return f, F


def individual_risk(f: np.ndarray, F: np.ndarray) -> np.ndarray:
    """sdcMicro's individual risk (``indivRisk(method="approx")``) per row from its sample
    frequency ``f`` and estimated population frequency ``F`` (see the module text).

    Example
    -------
    >>> individual_risk(np.array([1, 2, 3, 4]), np.array([10.0, 10.0, 10.0, 4.0])).round(4)
    array([0.2558, 0.1494, 0.1304, 0.25  ])
    """
    f = np.asarray(f, dtype=np.float64)
    F = np.asarray(F, dtype=np.float64)
    p = f / F
    out = np.empty(len(f))
    whole = F <= f  # the sample is the population: 1 / f
    one, two = (f == 1) & ~whole, (f == 2) & ~whole
    many = (f > 2) & ~whole
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = p / (1.0 - p)
        out[one] = ratio[one] * np.log(1.0 / p[one])
        out[two] = ratio[two] - ratio[two] ** 2 * np.log(1.0 / p[two])
    out[many] = p[many] / (f[many] - (1.0 - p[many]))
    out[whole] = 1.0 / f[whole]
    return out


def household_risk(risk: np.ndarray, households) -> np.ndarray:
    """Per row, ``1 - prod(1 - r)`` over the rows of its household (missing household ids:
    each row its own household).

    Example
    -------
    >>> household_risk(np.array([0.5, 0.5, 0.1]), pd.Series([7, 7, 8])).round(6).tolist()
    [0.75, 0.75, 0.1]
    """
    ids = pd.Series(households)
    codes, _ = pd.factorize(ids, use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.int64)
    alone = codes < 0
    if alone.any():
        codes = codes.copy()
        codes[alone] = codes.max(initial=-1) + 1 + np.arange(int(alone.sum()))
    r = np.asarray(risk, dtype=np.float64)
    with np.errstate(divide="ignore"):
        logs = np.log1p(-np.minimum(r, 1.0))
    sure = np.bincount(codes, weights=(r >= 1.0).astype(np.float64)) > 0
    kept = 1.0 - np.exp(np.bincount(codes, weights=np.where(r >= 1.0, 0.0, logs)))
    kept[sure] = 1.0
    return kept[codes]


def _check_household(df: pd.DataFrame, household, weights, qis) -> pd.Series:
    if household not in df.columns:
        raise UnknownColumnError(f"household={household!r} is not a column; the frame has "
                                 f"{list(df.columns)}")
    if household == weights or household in qis:
        raise InvalidInputError(f"household={household!r} names the weight column or a "
                                f"quasi-identifier; pass the household id column")
    return df[household]


def survey_risk(df: pd.DataFrame, quasi_identifiers=None, *, weights, household=None,
                missing: str = "value") -> pd.DataFrame:
    """Per row, indexed like ``df``: ``class_size`` (f), ``population_size`` (F, the sum of
    weights), ``individual_risk`` and, with ``household=``, ``household_risk``.

    See :func:`pdanon.metrics.record_risk` (``weights=``), which adds them to the prosecutor
    and journalist risks."""
    from pdanon.metrics._common import check_frame, quasi_identifier_kinds

    check_frame(df)
    qis = list(quasi_identifier_kinds(df, quasi_identifiers))
    w = check_weights(df, weights, qis)
    f, F = population_estimates(df, qis, w, missing=missing)
    out = pd.DataFrame({"class_size": f.astype(np.int64), "population_size": F,
                        "individual_risk": individual_risk(f, F)}, index=df.index)
    if household is not None:
        out["household_risk"] = household_risk(
            out["individual_risk"].to_numpy(), _check_household(df, household, weights, qis))
    return out


def survey_summary(risk: np.ndarray, household: np.ndarray | None = None) -> dict:
    """The global risk (mean individual risk), the expected re-identifications (its sum) and,
    with the household risks, the same of those (:data:`SURVEY_KEYS`,
    :data:`HOUSEHOLD_KEYS`)."""
    n = len(risk)
    out = {"global_risk": float(np.mean(risk)) if n else 0.0,
           "expected_reidentifications": float(np.sum(risk))}
    if household is not None:
        out["household_global_risk"] = float(np.mean(household)) if n else 0.0
        out["household_expected_reidentifications"] = float(np.sum(household))
    return out


def survey_roles(roles: dict, *columns, frame: pd.DataFrame | None = None) -> dict:
    """``roles`` with the weight and household columns published as they are
    (``insensitive``) unless the caller gave them a role: they are never matched on. With
    ``frame``, a column it does not hold (weights withheld from the release, read from the
    original: :func:`with_input_weights`) is given no role."""
    named = {c for v in roles.values() for c in (v if isinstance(v, (list, tuple, dict))
                                                 else [v])}
    extra = [c for c in columns if c is not None and c not in named
             and (frame is None or c in frame.columns)]
    if not extra:
        return roles
    keep = roles.get("insensitive") or []
    keep = [keep] if isinstance(keep, str) else list(keep)
    return {**roles, "insensitive": keep + extra}
