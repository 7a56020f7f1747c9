"""Additive and correlated noise (sdcMicro's ``addNoise``, methods ``"additive"`` and
``"correlated"``; Brand 2002)."""

from __future__ import annotations

import math
import numbers
from typing import Sequence

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.encode import check_finite
from pdanon.perturb.common import check_columns
from pdanon.perturb.numeric import check_numeric, float_values, numeric_result
from pdanon.perturb.randomness import make_rng

METHODS = ("additive", "correlated")
DEFAULT_NOISE = 0.1


def _check_noise(noise) -> float:
    if (isinstance(noise, (bool, np.bool_)) or not isinstance(noise, numbers.Real)
            or not math.isfinite(float(noise)) or noise < 0):
        raise InvalidInputError(f"noise must be a finite number >= 0, got {noise!r}")
    return float(noise)


def correlated_draws(cov: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` draws of a multivariate normal ``N(0, cov)`` (``n × p``), through the
    eigendecomposition of ``cov`` (so a singular covariance, e.g. of collinear columns, is
    fine; tiny negative eigenvalues from rounding count as 0).

    Example
    -------
    >>> d = correlated_draws(np.array([[4.0, 2.0], [2.0, 1.0]]), 100_000, make_rng(0))
    >>> np.cov(d.T).round(1).tolist()
    [[4.0, 2.0], [2.0, 1.0]]
    """
    vals, vecs = np.linalg.eigh(np.asarray(cov, dtype=np.float64))
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    return rng.standard_normal((n, len(vals))) @ root.T


def add_noise_frame(df: pd.DataFrame, columns: Sequence, *, method: str = "additive",
                    noise: float = DEFAULT_NOISE,
                    rng: np.random.Generator | None = None) -> tuple[pd.DataFrame, dict]:
    """Add normal noise to numeric ``columns``; returns ``(new frame, details)``.

    * ``"additive"``: ``x_j + e_j``, ``e_j ~ N(0, (noise · s_j)²)`` independently per cell,
      ``s_j`` the standard deviation of column ``j`` (non-missing values, ddof 1; a column
      with fewer than two values gets no noise). The expected variance of the column becomes
      ``(1 + noise²) · s_j²``; covariances between columns are kept, correlations shrink by
      ``1 / (1 + noise²)``.
    * ``"correlated"``: ``x + e`` with ``e ~ N(0, noise · S)`` per row, ``S`` the covariance
      matrix of the columns over the rows where all of them are present (ddof 1). The expected
      covariance becomes ``(1 + noise) · S``: every correlation is kept.

    Missing cells stay missing (the noise of a missing cell is dropped). Integer columns are
    rounded to the nearest integer and keep their dtype (rounding adds about 1/12 to the
    variance). ``details``: ``noise_sd`` per column and, for ``"correlated"``,
    ``complete_rows`` (the rows ``S`` was estimated on).

    Example
    -------
    >>> df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [2.0, 4.0, 6.0]})
    >>> out, d = add_noise_frame(df, ["a", "b"], method="correlated", noise=0.0, rng=make_rng(0))
    >>> out.equals(df), d["noise_sd"]
    (True, {'a': 0.0, 'b': 0.0})
    """
    if method not in METHODS:
        raise InvalidInputError(f"method must be one of {list(METHODS)}, got {method!r}")
    noise = _check_noise(noise)
    rng = make_rng() if rng is None else rng
    check_columns(df, columns, "add_noise", unique=True)
    for c in columns:
        check_numeric(df[c], "noise")
        check_finite(df[c], c, index=df.index)  # one infinity would make every cell NaN
    x = np.column_stack([float_values(df[c]) for c in columns]) if len(columns) else \
        np.zeros((len(df), 0))
    present = ~np.isnan(x)
    details: dict = {}
    if method == "additive":
        with np.errstate(over="ignore", invalid="ignore"):  # overflow: refused below
            sd = np.array([np.std(x[present[:, j], j], ddof=1) if present[:, j].sum() > 1
                           else 0.0 for j in range(x.shape[1])])
        e = rng.standard_normal(x.shape) * (noise * sd)
        scale = noise * sd
    else:
        complete = present.all(axis=1)
        if complete.sum() < 2:
            raise InvalidInputError(
                f"correlated noise estimates the covariance of columns {list(columns)} on the "
                f"rows where all are present; only {int(complete.sum())} such row(s): use "
                "method='additive' or fewer columns"
            )
        with np.errstate(over="ignore", invalid="ignore"):  # overflow: refused below
            cov = np.atleast_2d(np.cov(x[complete], rowvar=False, ddof=1))
        e = correlated_draws(noise * cov, len(df), rng)
        scale = np.sqrt(noise * np.diag(cov))
        details["complete_rows"] = int(complete.sum())
    huge = [c for j, c in enumerate(columns) if not np.isfinite(scale[j])]
    if huge:
        raise InvalidInputError(
            f"the spread of column(s) {huge} overflows float64 (values near 1e308); rescale "
            f"them (e.g. divide by a power of ten) before adding noise")
    details["noise_sd"] = {c: float(scale[j]) for j, c in enumerate(columns)}
    out = df.copy(deep=False)
    new = x + e
    for j, c in enumerate(columns):
        out[c] = numeric_result(df[c], new[:, j], round_integers=True).array
    return out, details
