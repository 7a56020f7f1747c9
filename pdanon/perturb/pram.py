"""PRAM, the post-randomization method: each cell of a categorical column is replaced by a
category drawn from the row of a transition matrix (Gouweleeuw, Kooiman, Willenborg and de Wolf
1998; sdcMicro's ``pram``).

``P[i, j]`` is the probability that a cell holding category ``i`` is published as category
``j``; every row sums to 1. *Invariant* PRAM replaces ``P`` by ``R = P Q`` where ``Q`` is the
backward matrix ``Q[j, i] = P[i, j] pi_i / lambda_j`` built from the observed frequencies
``pi`` and ``lambda = pi P``: then ``pi R = pi``, so the expected frequency of every category
after PRAM equals its observed frequency.

Two ways to build ``P`` without giving it:

* ``p=`` (pdanon's default, 0.8): keep a value with probability exactly ``p``
  (:func:`keep_matrix`); after the invariant step fewer cells keep it (67 % on a skewed
  five-category column of ``tests/test_perturb_sdc.py``);
* ``pd=`` (sdcMicro's ``pram(pd=, alpha=)``): every diagonal entry is drawn uniformly from
  ``[pd, 1]`` (:func:`sdc_matrix`), the matrix is made invariant, then mixed with the identity,
  ``alpha R + (1 - alpha) I`` (``alpha=0.5`` by default, as sdcMicro): at ``pd=0.8`` 93 % of
  the cells of that column keep their value. ``info`` reports the expected share kept
  (``expected_kept``) either way.
"""

from __future__ import annotations

import numbers
from typing import Mapping

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError
from pdanon.perturb.randomness import make_rng
from pdanon.perturb.shuffle import take_rows

ROW_SUM_TOLERANCE = 1e-9
DEFAULT_KEEP = 0.8


def column_categories(series: pd.Series) -> tuple[pd.Index, np.ndarray]:
    """The categories PRAM moves between and each cell's code (``-1`` for missing cells).

    A Categorical column's categories are its dtype's categories, in their order (unobserved
    ones included); any other column's are its distinct non-missing values, sorted (in order of
    first appearance when they cannot be sorted).

    Example
    -------
    >>> cats, codes = column_categories(pd.Series(["b", "a", None, "b"]))
    >>> list(cats), codes.tolist()
    (['a', 'b'], [1, 0, -1, 1])
    """
    if str(getattr(series.dtype, "name", "")).startswith("generalization"):
        raise KindError(
            f"column {series.name!r} holds generalized cells; apply PRAM to plain values "
            "(before generalizing)"
        )
    if isinstance(series.dtype, pd.CategoricalDtype):
        return pd.Index(series.cat.categories), np.asarray(series.cat.codes, dtype=np.int64)
    try:
        codes, uniques = pd.factorize(series, sort=True)
    except TypeError:
        codes, uniques = pd.factorize(series, sort=False)
    return pd.Index(uniques), np.asarray(codes, dtype=np.int64)


def keep_matrix(k: int, p: float) -> np.ndarray:
    """The ``k × k`` matrix that keeps a value with probability ``p`` and spreads ``1 − p``
    evenly over the ``k − 1`` other categories (a single category is always kept).

    Example
    -------
    >>> keep_matrix(3, 0.8).round(2).tolist()
    [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]
    """
    p = _check_p(p)
    if k <= 1:
        return np.ones((k, k))
    m = np.full((k, k), (1.0 - p) / (k - 1))
    np.fill_diagonal(m, p)
    return m


def sdc_matrix(k: int, pd_: float, rng: np.random.Generator) -> np.ndarray:
    """sdcMicro's PRAM matrix before the invariant step: row ``i`` keeps its category with a
    probability drawn uniformly from ``[pd_, 1]`` and spreads the rest evenly over the other
    ``k - 1`` categories (a single category is always kept).

    Example
    -------
    >>> m = sdc_matrix(3, 0.8, make_rng(0))
    >>> bool((np.diag(m) >= 0.8).all()), m.sum(axis=1).round(12).tolist()
    (True, [1.0, 1.0, 1.0])
    """
    pd_ = _check_unit(pd_, "pd", "the lowest probability of keeping a value")
    if k <= 1:
        return np.ones((k, k))
    keep = rng.uniform(pd_, 1.0, k)
    m = np.repeat(((1.0 - keep) / (k - 1))[:, None], k, axis=1)
    np.fill_diagonal(m, keep)
    return m


def mix_identity(matrix: np.ndarray, alpha: float) -> np.ndarray:
    """``alpha M + (1 - alpha) I`` (sdcMicro's ``alpha``: 1 keeps ``M``, 0 changes nothing).

    Example
    -------
    >>> mix_identity(np.array([[0.0, 1.0], [1.0, 0.0]]), 0.5).tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    alpha = _check_unit(alpha, "alpha", "the weight of the PRAM matrix against the identity")
    return alpha * matrix + (1.0 - alpha) * np.eye(len(matrix))


def _check_unit(value, name: str, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not (
            0 <= value <= 1):
        raise InvalidInputError(f"{name} ({what}) must be a number in [0, 1], got {value!r}")
    return float(value)


def _check_p(p) -> float:
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real) or not 0 <= p <= 1:
        raise InvalidInputError(
            f"p (the probability of keeping a value) must be a number in [0, 1], got {p!r}"
        )
    return float(p)


def check_matrix(matrix, categories: pd.Index, column) -> np.ndarray:
    """A transition matrix as a float array in the order of ``categories``.

    ``matrix`` is a DataFrame whose index and columns are both exactly the column's categories
    (any order), or a square array in the order of ``categories``. Entries must be finite and
    ``>= 0`` and every row must sum to 1 (within 1e-9).

    Example
    -------
    >>> m = pd.DataFrame([[0.9, 0.1], [0.5, 0.5]], index=["y", "x"], columns=["y", "x"])
    >>> check_matrix(m, pd.Index(["x", "y"]), "c").tolist()
    [[0.5, 0.5], [0.1, 0.9]]
    """
    k = len(categories)
    if isinstance(matrix, pd.DataFrame):
        rows, cols = list(matrix.index), list(matrix.columns)
        want = set(categories)
        if (len(rows) != k or len(cols) != k or set(rows) != want or set(cols) != want
                or len(set(rows)) != k or len(set(cols)) != k):
            raise InvalidInputError(
                f"PRAM matrix of column {column!r} must have exactly the column's categories "
                f"{list(categories)} as its index and its columns; it has index {rows} and "
                f"columns {cols}"
            )
        matrix = matrix.loc[list(categories), list(categories)]
    try:
        m = np.array(matrix, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"PRAM matrix of column {column!r} is not numeric: {exc}") from exc
    if m.shape != (k, k):
        raise InvalidInputError(
            f"PRAM matrix of column {column!r} has shape {m.shape}; the column has {k} "
            f"categories {list(categories)}, so it must be {k} x {k} (rows and columns in that "
            "order), or a DataFrame labelled by the categories"
        )
    if not np.isfinite(m).all() or (m < 0).any():
        raise InvalidInputError(
            f"PRAM matrix of column {column!r} must hold finite probabilities >= 0"
        )
    sums = m.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_TOLERANCE)
    if len(bad):
        raise InvalidInputError(
            f"every row of the PRAM matrix of column {column!r} must sum to 1; row(s) "
            f"{[categories[i] for i in bad]} sum to {sums[bad].tolist()}"
        )
    return m


def invariant_matrix(matrix: np.ndarray, frequencies) -> np.ndarray:
    """``R = P Q``, the invariant matrix of ``P`` for the category ``frequencies`` (counts or
    shares): ``Q[j, i] = P[i, j] pi_i / lambda_j`` with ``lambda = pi P``, so ``pi R = pi``.
    A category that ``P`` never produces (``lambda_j = 0``) gets ``Q[j, j] = 1`` (unused).

    Example
    -------
    >>> r = invariant_matrix(keep_matrix(2, 0.8), [30, 70])
    >>> r.round(4).tolist(), (np.array([0.3, 0.7]) @ r).round(12).tolist()
    ([[0.5246, 0.4754], [0.2037, 0.7963]], [0.3, 0.7])
    """
    p = np.asarray(matrix, dtype=np.float64)
    pi = np.asarray(frequencies, dtype=np.float64)
    total = pi.sum()
    if total <= 0:
        return p.copy()
    pi = pi / total
    lam = pi @ p
    reached = lam > 0
    q = np.zeros_like(p)
    q[reached] = (p.T[reached] * pi[None, :]) / lam[reached, None]
    unreached = np.flatnonzero(~reached)
    q[unreached, unreached] = 1.0
    r = p @ q
    return r / r.sum(axis=1, keepdims=True)


def draw_categories(codes: np.ndarray, matrix: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One new code per code: a uniform draw ``u`` against the cumulative row of its category
    (the new code is the first ``j`` with ``cumsum(row)[j] > u``). All rows at once: the
    cumulative rows, shifted by their row number, make one sorted array searched for
    ``code + u``.

    Example
    -------
    >>> draw_categories(np.array([0, 1, 1]), np.array([[0.0, 1.0], [1.0, 0.0]]), make_rng(0)).tolist()
    [1, 0, 0]
    """
    k = matrix.shape[0]
    codes = np.asarray(codes, dtype=np.int64)
    if len(codes) == 0 or k == 0:
        return codes.copy()
    cum = np.cumsum(matrix, axis=1)
    cum[:, -1] = 1.0
    flat = (cum + np.arange(k, dtype=np.float64)[:, None]).ravel()
    u = rng.random(len(codes))
    pos = np.searchsorted(flat, codes + u, side="right") - codes * k
    return np.clip(pos, 0, k - 1)


def pram_matrix(series: pd.Series, *, matrix=None, p: float | None = None,
                invariant: bool = True, pd_: float | None = None, alpha: float | None = None,
                rng: np.random.Generator | None = None) -> pd.DataFrame:
    """The transition matrix PRAM applies to ``series``, labelled by its categories: the given
    ``matrix``, :func:`keep_matrix` of ``p`` (default 0.8) or, with ``pd_``, sdcMicro's
    :func:`sdc_matrix` (its diagonal drawn from ``rng``); made invariant
    (:func:`invariant_matrix`, from the observed frequencies) when ``invariant``; then mixed
    with the identity by ``alpha`` (:func:`mix_identity`; default 0.5 with ``pd_``, as
    sdcMicro, else none).

    Example
    -------
    >>> pram_matrix(pd.Series(["a", "b", "b", "b"]), p=0.5, invariant=False).values.tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    cats, codes = column_categories(series)
    given = [name for name, v in (("matrix", matrix), ("p", p), ("pd", pd_)) if v is not None]
    if len(given) > 1:
        raise InvalidInputError(f"pass one of matrix=, p= (a fixed keep probability) or pd= "
                                f"(sdcMicro's random diagonal), not {' and '.join(given)}")
    if matrix is not None:
        m = check_matrix(matrix, cats, series.name)
    elif pd_ is not None:
        m = sdc_matrix(len(cats), pd_, make_rng() if rng is None else rng)
        alpha = 0.5 if alpha is None else alpha
    else:
        m = keep_matrix(len(cats), DEFAULT_KEEP if p is None else p)
    if invariant:
        counts = np.bincount(codes[codes >= 0], minlength=len(cats))
        m = invariant_matrix(m, counts)
    if alpha is not None:
        m = mix_identity(m, alpha)
    return pd.DataFrame(m, index=cats, columns=cats)


def pram_series(series: pd.Series, *, rng: np.random.Generator | None = None, matrix=None,
                p: float | None = None, invariant: bool = True, pd_: float | None = None,
                alpha: float | None = None) -> tuple[pd.Series, pd.DataFrame]:
    """PRAM on one column; returns ``(new column, matrix used)``.

    Each non-missing cell of category ``i`` becomes category ``j`` with probability
    ``M[i, j]`` of the matrix :func:`pram_matrix` gives. Missing cells stay missing and are not
    counted in the frequencies. The new values are values of the column (categories of a
    Categorical), so the dtype is kept exactly; index and name too.

    Example
    -------
    >>> s = pd.Series(["a", "b", None, "a"])
    >>> out, m = pram_series(s, matrix=[[0.0, 1.0], [1.0, 0.0]], invariant=False, rng=make_rng(0))
    >>> out.fillna("-").tolist()
    ['b', 'a', '-', 'b']
    """
    rng = make_rng() if rng is None else rng
    used = pram_matrix(series, matrix=matrix, p=p, invariant=invariant, pd_=pd_, alpha=alpha,
                       rng=rng)
    cats, codes = column_categories(series)
    valid = codes >= 0
    new_codes = codes.copy()
    new_codes[valid] = draw_categories(codes[valid], used.to_numpy(), rng)
    if isinstance(series.dtype, pd.CategoricalDtype):
        cat = pd.Categorical.from_codes(new_codes, dtype=series.dtype)
        return pd.Series(cat, index=series.index, name=series.name), used
    # a value of each category: its first cell, so the column's own values (and dtype) are kept
    rows = np.flatnonzero(valid)
    present, at = np.unique(codes[rows], return_index=True)
    first = np.full(len(cats), -1, dtype=np.int64)
    first[present] = rows[at]
    take = np.arange(len(series))
    take[valid] = first[new_codes[valid]]
    return take_rows(series, take), used

