"""Disclosure risk of perturbed numeric data: how many records an attacker who holds the
original values can still find in a release whose numbers were microaggregated, noised,
swapped or rounded.

Two attackers, both holding the original table (or the records of the people they look for)
and the release, row for row unknown:

* **interval disclosure** (sdcMicro's ``dRisk``): a record is at risk when *every* one of its
  original values lies within ``k`` standard deviations of its perturbed value (the interval
  ``[x' - k sd', x' + k sd']``, sd' the perturbed column's sample standard deviation): the
  published value tells the original to within that interval. ``k = 0.05`` by default, as
  sdcMicro; a missing cell is never outside its interval (sdcMicro's ``na.rm``);
* **distance-based record linkage** (Domingo-Ferrer & Torra 2001; sdcMicro's ``dRiskRMD`` is
  a robust variant, :func:`rmd_disclosure`): the attacker links each published record to the
  nearest original record (Euclidean distance over the columns standardized by the
  original's mean and sd); a record counts as linked when that nearest record is its own
  original. Ties are exact: a record whose own original is among ``t`` originals at the
  smallest distance counts ``1 / t`` (a random pick among them). Records with a missing cell
  are left out (``NaN`` per row; the share is over the complete records, and says how many).

Both are computed without an n x n matrix: the linkage uses a KD-tree (scipy's ``cKDTree``)
over the originals, O(n log n).

Example
-------
>>> import pandas as pd
>>> orig = pd.DataFrame({"x": [1.0, 2.0, 10.0, 11.0]})
>>> pert = pd.DataFrame({"x": [1.5, 1.5, 10.5, 11.0]})
>>> r = linkage_risk(orig, pert)
>>> r["interval"].tolist(), r["linkage"].tolist()     # row 3 unchanged; 0 and 1 tie
([False, False, False, True], [0.5, 0.5, 0.5, 1.0])
>>> linkage_summary(orig, pert).to_dict()
{'interval_disclosure': 0.25, 'record_linkage': 0.625}
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError

__all__ = ["LINKAGE_KEYS", "RMD_KEYS", "interval_disclosure", "linkage_risk",
           "linkage_summary", "record_linkage", "rmd_disclosure"]

#: the figures of :func:`linkage_summary` (keys of :data:`pdanon.metrics.FIGURES`)
LINKAGE_KEYS = ("interval_disclosure", "record_linkage")
#: the figures of :func:`rmd_disclosure` (sdcMicro's names: risk1, risk2, wrisk1, wrisk2)
RMD_KEYS = ("rmd_interval_risk", "rmd_isolated_risk", "rmd_interval_weighted",
            "rmd_isolated_weighted")


def _columns(original: pd.DataFrame, perturbed: pd.DataFrame, columns) -> list:
    """The numeric columns compared: ``columns``, else the numeric columns the perturbation
    changed (as :func:`pdanon.metrics.perturbation_utility` finds them)."""
    from pdanon.metrics import perturbation

    orig, pert = perturbation._frames(original, perturbed)
    if columns is None:
        table = perturbation.perturbation_utility(orig, pert)
        cols = [c for c in table.index if table.loc[c, "type"] == "numeric"]
    else:
        cols = perturbation._as_list(columns)
        perturbation._check_known(orig, pert, cols)
        for c in cols:
            if perturbation.column_type(orig[c], pert[c]) != "numeric":
                raise InvalidInputError(
                    f"column {c!r} is not numeric in both frames: linkage risk compares "
                    f"numbers (a generalized or categorical column is measured by the "
                    f"record-level risk, df.anon.risk())")
    return cols


def _matrices(original, perturbed, columns):
    from pdanon.metrics import perturbation

    orig, pert = perturbation._frames(original, perturbed)
    cols = _columns(orig, pert, columns)
    x = np.column_stack([orig[c].to_numpy(dtype=np.float64, na_value=np.nan) for c in cols]) \
        if cols else np.zeros((len(orig), 0))
    y = np.column_stack([pert[c].to_numpy(dtype=np.float64, na_value=np.nan) for c in cols]) \
        if cols else np.zeros((len(pert), 0))
    return x, y, cols, pert.index


def _check_k(k, name: str) -> float:
    if isinstance(k, bool) or not isinstance(k, numbers.Real) or not np.isfinite(k) or k <= 0:
        raise InvalidInputError(f"{name} is a positive number of standard deviations (sdcMicro's "
                                f"default is 0.05), got {k!r}")
    return float(k)


def interval_disclosure(original: pd.DataFrame, perturbed: pd.DataFrame, columns=None, *,
                        k: float = 0.05) -> np.ndarray:
    """Per row: does every original value lie within ``k`` perturbed sds of its perturbed
    value? (sdcMicro's ``dRisk``: its mean is the share at risk.)"""
    k = _check_k(k, "k")
    x, y, _, _ = _matrices(original, perturbed, columns)
    return _interval(x, y, k)


def _interval(x: np.ndarray, y: np.ndarray, k: float) -> np.ndarray:
    if not x.shape[1]:
        return np.zeros(len(x), dtype=bool)
    sd = np.array([np.nanstd(y[:, j], ddof=1) if np.count_nonzero(~np.isnan(y[:, j])) > 1
                   else np.nan for j in range(y.shape[1])])
    with np.errstate(invalid="ignore"):
        outside = (x < y - k * sd) | (x > y + k * sd)  # NaN compares False: never outside
    return ~outside.any(axis=1)


def _standardize(x: np.ndarray, y: np.ndarray):
    """Both matrices standardized by the original's mean and sd (a constant column: sd 1)."""
    mean = np.nanmean(x, axis=0) if len(x) else np.zeros(x.shape[1])
    sd = np.nanstd(x, axis=0, ddof=1) if len(x) > 1 else np.ones(x.shape[1])
    sd = np.where(np.isfinite(sd) & (sd > 0), sd, 1.0)
    return (x - mean) / sd, (y - mean) / sd


def record_linkage(original: pd.DataFrame, perturbed: pd.DataFrame,
                   columns=None) -> np.ndarray:
    """Per row: 1 / t when the row's own original is among the t originals nearest to its
    perturbed record (standardized Euclidean distance), else 0; NaN for a row with a missing
    cell."""
    x, y, _, _ = _matrices(original, perturbed, columns)
    return _linkage(x, y)


def _linkage(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    from scipy.spatial import cKDTree

    n = len(x)
    out = np.full(n, np.nan)
    complete = ~(np.isnan(x).any(axis=1) | np.isnan(y).any(axis=1))
    if not x.shape[1] or not complete.any():
        return out
    xs, ys = _standardize(x[complete], y[complete])
    tree = cKDTree(xs)
    nearest, _ = tree.query(ys, k=1)
    own = np.sqrt(((ys - xs) ** 2).sum(axis=1))
    tol = 1e-9 * np.maximum(own, 1.0)
    hit = own <= nearest + tol
    linked = np.zeros(len(xs))
    if hit.any():
        ties = tree.query_ball_point(ys[hit], r=own[hit] + tol[hit], return_length=True)
        linked[hit] = 1.0 / np.maximum(np.asarray(ties, dtype=np.float64), 1.0)
    out[complete] = linked
    return out


def linkage_risk(original: pd.DataFrame, perturbed: pd.DataFrame, columns=None, *,
                 k: float = 0.05) -> pd.DataFrame:
    """Per row of the perturbed frame (its index): ``interval`` (interval disclosure at
    ``k``) and ``linkage`` (the chance that distance-based record linkage finds the row: 1, 1 /
    t among t tied, 0; NaN with a missing cell). ``columns``: the numeric columns compared
    (default: the numeric columns the perturbation changed). ``attrs["columns"]`` names
    them."""
    k = _check_k(k, "k")
    x, y, cols, index = _matrices(original, perturbed, columns)
    out = pd.DataFrame({"interval": _interval(x, y, k), "linkage": _linkage(x, y)},
                       index=index)
    out.attrs["columns"] = list(cols)
    return out


def linkage_summary(original: pd.DataFrame, perturbed: pd.DataFrame, columns=None, *,
                    k: float = 0.05) -> pd.Series:
    """``interval_disclosure`` (the share of rows at interval risk) and ``record_linkage``
    (the expected share of complete rows that distance-based record linkage finds), as a
    Series keyed as :data:`pdanon.metrics.FIGURES`; empty when no numeric column is
    compared."""
    rows = linkage_risk(original, perturbed, columns, k=k)
    if not rows.attrs["columns"]:
        return pd.Series({}, dtype=np.float64, name="value")
    linked = rows["linkage"].to_numpy()
    complete = ~np.isnan(linked)
    out = pd.Series({"interval_disclosure": float(rows["interval"].mean()) if len(rows) else 0.0,
                     "record_linkage": float(linked[complete].mean()) if complete.any()
                     else 0.0}, name="value", dtype=np.float64)
    out.attrs["complete_rows"] = int(complete.sum())
    return out


def rmd_disclosure(original: pd.DataFrame, perturbed: pd.DataFrame, columns=None, *,
                   k: float = 0.01, k2: float = 0.05, random_state: int = 0) -> pd.Series:
    """sdcMicro's ``dRiskRMD``: intervals scaled by each record's robust Mahalanobis distance
    (outlying records get wider intervals, because an attacker finds them more easily).

    Both frames are standardized (each by its own mean and sd, as R's ``scale``); ``rmd`` is
    0.05 times the Mahalanobis distance of the original record from the column means under a
    robust covariance (the minimum covariance determinant, scikit-learn's ``MinCovDet``;
    sdcMicro uses robustbase's ``covMcd``, whose small-sample correction differs slightly).
    ``rmd_interval_risk`` (sdcMicro's ``risk1``): the share of records with *some*
    perturbed value within ``k * rmd`` of the original; ``rmd_isolated_risk`` (``risk2``):
    of those, the share whose nearest other perturbed record lies farther than ``k2``
    (isolated: found for sure); ``rmd_interval_weighted`` / ``rmd_isolated_weighted``
    (``wrisk1`` / ``wrisk2``): sdcMicro's weighted forms, (records x sum of their rmd) / n.
    Records with a missing cell are left out. The nearest neighbours come from a KD-tree,
    not an n x n matrix."""
    from scipy.spatial import cKDTree
    from sklearn.covariance import MinCovDet

    k, k2 = _check_k(k, "k"), _check_k(k2, "k2")
    x, y, cols, _ = _matrices(original, perturbed, columns)
    complete = ~(np.isnan(x).any(axis=1) | np.isnan(y).any(axis=1))
    x, y = x[complete], y[complete]
    n = len(x)
    if not cols or n < x.shape[1] + 2:
        return pd.Series(dict.fromkeys(RMD_KEYS, 0.0), name="value")

    def scale(m):
        sd = m.std(axis=0, ddof=1)
        return (m - m.mean(axis=0)) / np.where(sd > 0, sd, 1.0)

    xs, ys = scale(x), scale(y)
    cov = MinCovDet(random_state=random_state).fit(xs).covariance_
    centred = xs - xs.mean(axis=0)
    rmd = 0.05 * np.sqrt(np.einsum("ij,jk,ik->i", centred, np.linalg.pinv(cov), centred))
    near = ((ys > xs - k * rmd[:, None]) & (ys < xs + k * rmd[:, None])).any(axis=1)
    isolated = np.zeros(n, dtype=bool)
    if near.any() and n > 1:
        d, _ = cKDTree(ys).query(ys[near], k=2)
        isolated[near] = d[:, 1] > k2
    out = {"rmd_interval_risk": near.sum() / n, "rmd_isolated_risk": isolated.sum() / n,
           "rmd_interval_weighted": near.sum() * rmd[near].sum() / n,
           "rmd_isolated_weighted": isolated.sum() * rmd[isolated].sum() / n}
    result = pd.Series(out, name="value", dtype=np.float64)
    result.attrs["complete_rows"] = n
    return result
