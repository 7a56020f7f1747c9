"""Utility of perturbed data: how far microaggregation, noise, swapping, top/bottom coding or
PRAM moved the values and the statistics of a table (sdcMicro's ``dUtility`` and more).

Every function compares an ``original`` and a ``perturbed`` frame, rows matched by index (as
the other utility metrics). The measures apply to plain values: a column holding generalized
cells (ranges, sets) is left out (compare it with ``by_element_distance``).

**Columns.** A column is *numeric* when both frames hold numbers in it (integer or float
dtypes, nullable ones included; not booleans), else *categorical*. A column is *perturbed*
when some cell present in both frames holds different values (a cell that only became missing
is a suppression, counted by ``changed_proportion``, not a perturbation). With
``columns=None``:

* the per-column measures (:func:`il1s`, :func:`distribution_changes`,
  :func:`category_share_distance`) use the perturbed columns;
* the measures of links between columns (:func:`eigenvalue_loss`,
  :func:`correlation_difference`, :func:`covariance_difference`) use every numeric column the
  two frames share, perturbed or not: swapping or noising one column changes its links with
  the untouched ones.

``columns=[...]`` uses exactly those columns for every measure (a numeric measure refuses a
non-numeric one with a ``KindError``; an unknown one is an ``UnknownColumnError``).

**Missing cells** (NaN, None, ``pd.NA``): a cell counts only where it is present in both
frames ("pairwise-present cells"); it is masked in both frames otherwise, so both frames are
measured on the same cells. Covariances and correlations of two columns use the rows where
both columns are present (pandas' pairwise-complete rule). Without missing cells this is the
plain definition.

**Constant columns.** A column without spread in the original (all its compared cells equal,
or fewer than two: standard deviation exactly 0) has no correlation and cannot scale a
change: it is left out of the measures of links, and its per-column figures are 0 when its
values did not change and infinite when they did. The correlation of two columns is
*undefined* when either has no spread on the rows where both are present (or fewer than two
such rows; its covariance is then exactly 0, or undefined too): a pair undefined in both
frames has nothing to compare and counts 0 in both matrices; a pair undefined in one frame
only (a column the release made constant) makes the correlation measures NaN. "No spread" is
decided exactly, not up to rounding: means and deviations are taken from the column's
smallest value, so equal values deviate by exactly 0 (``x - x.mean()`` of three copies of
341.938 does not).

**Row order.** Every figure is exactly the same for any order of the rows (matched by index):
sums run over the values sorted (per-column figures) or over the rows put in a canonical
order first (covariances and correlations), because floating-point sums of the same numbers
in another order round differently, and near-collinear columns (a near-zero eigenvalue)
magnify that rounding into visible differences. Column order changes the figures of links
only by rounding.

Example
-------
>>> import pandas as pd
>>> orig = pd.DataFrame({"x": [1.0, 3.0, 5.0, 7.0], "y": [1.0, 2.0, 3.0, 5.0]})
>>> pert = pd.DataFrame({"x": [2.0, 2.0, 6.0, 6.0], "y": [1.0, 2.0, 3.0, 5.0]})
>>> round(il1s(orig, pert), 4)
0.2739
>>> round(float(perturbation_summary(orig, pert)["correlation_difference"]), 4)
0.1376
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError, UnknownColumnError
from pdanon.encode import is_generalized
from pdanon.losses import il1s_column, mean_sd
from pdanon.metrics._common import aligned

__all__ = [
    "QUANTILES",
    "SUMMARY_KEYS",
    "category_share_distance",
    "correlation_difference",
    "covariance_difference",
    "distribution_changes",
    "eigenvalue_loss",
    "il1s",
    "perturbation_summary",
    "perturbation_utility",
]

#: the quantiles :func:`distribution_changes` compares
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
#: an eigenvalue of the original's matrix at most this (times the number of columns) is 0
EIGEN_TOLERANCE = 1e-12
#: a pair's sum of squared deviations below this share of its sum of squares around the
#: column's overall mean lost too many digits: :func:`pairwise_covariance` computes it again
CANCELLATION = 1e-6
#: the figures :func:`perturbation_summary` gives and ``metrics_table`` shows, in order: keys
#: of :data:`pdanon.metrics.FIGURES` (which holds their labels and meanings)
SUMMARY_KEYS = ("il1s", "eigenvalue_loss", "correlation_difference", "covariance_difference",
                "max_mean_change", "max_sd_change", "max_quantile_change",
                "category_share_distance")
NUMERIC_KEYS = SUMMARY_KEYS[:-1]
CATEGORY_KEY = SUMMARY_KEYS[-1]


# ----------------------------------------------------------------------------- columns


def _is_number(s: pd.Series) -> bool:
    dtype = s.dtype
    return (pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
            and not is_generalized(s))


def _floats(s: pd.Series) -> np.ndarray:
    return s.to_numpy(dtype=np.float64, na_value=np.nan)


def column_type(original: pd.Series, perturbed: pd.Series) -> str | None:
    """``"numeric"``, ``"categorical"`` or ``None`` (generalized cells in either frame, or
    numbers in one frame only: not comparable value by value).

    Example
    -------
    >>> column_type(pd.Series([1, 2]), pd.Series([1.5, 1.5])), column_type(pd.Series(["a"]), pd.Series(["b"]))
    ('numeric', 'categorical')
    """
    if is_generalized(original) or is_generalized(perturbed):
        return None
    num = _is_number(original), _is_number(perturbed)
    if all(num):
        return "numeric"
    return None if any(num) else "categorical"


def _present_both(o: pd.Series, p: pd.Series) -> np.ndarray:
    return ~np.asarray(o.isna(), dtype=bool) & ~np.asarray(p.isna(), dtype=bool)


def _objects(s: pd.Series) -> np.ndarray:
    return np.asarray(s.astype(object).to_numpy(), dtype=object)


def is_perturbed(original: pd.Series, perturbed: pd.Series, kind: str) -> bool:
    """Some cell present in both columns holds different values.

    Example
    -------
    >>> is_perturbed(pd.Series([1, 2]), pd.Series([1.0, None]), "numeric")
    False
    """
    both = _present_both(original, perturbed)
    if kind == "numeric":
        return bool(np.any(_floats(original)[both] != _floats(perturbed)[both]))
    return bool(np.any(_objects(original)[both] != _objects(perturbed)[both]))


def _frames(original, perturbed):
    return aligned(original, perturbed), perturbed


def _as_list(columns) -> list | None:
    if columns is None or isinstance(columns, list):
        return columns
    if isinstance(columns, (str, int)) and not isinstance(columns, bool):
        return [columns]
    return list(columns)


def _check_known(orig: pd.DataFrame, pert: pd.DataFrame, columns: list) -> None:
    for frame, what in ((pert, "perturbed"), (orig, "original")):
        unknown = [c for c in columns if c not in frame.columns]
        if unknown:
            raise UnknownColumnError(
                f"unknown column(s) {unknown}: the {what} frame has columns "
                f"{list(frame.columns)}; pass columns both frames hold")


def _types(orig: pd.DataFrame, pert: pd.DataFrame) -> dict:
    """``{column: type}`` of the columns both frames hold (type None: not comparable)."""
    return {c: column_type(orig[c], pert[c]) for c in pert.columns if c in orig.columns}


def _choose(orig, pert, columns, kind: str, *, links: bool = False) -> list:
    """The columns of ``kind`` a measure uses (see the module's "Columns")."""
    columns = _as_list(columns)
    if columns is not None:
        _check_known(orig, pert, columns)
        for c in columns:
            t = column_type(orig[c], pert[c])
            if t != kind:
                raise KindError(
                    f"column {c!r} is {t or 'not comparable value by value'} (original dtype "
                    f"{orig[c].dtype}, perturbed {pert[c].dtype}); this measure needs "
                    f"{kind} columns: leave {c!r} out of columns=")
        return columns
    types = _types(orig, pert)
    return [c for c, t in types.items()
            if t == kind and (links or is_perturbed(orig[c], pert[c], t))]


def _matrices(orig, pert, cols) -> tuple[np.ndarray, np.ndarray]:
    """``n × p`` float arrays of the columns, NaN where either frame misses the cell."""
    n = len(pert)
    x = np.column_stack([_floats(orig[c]) for c in cols]) if cols else np.zeros((n, 0))
    y = np.column_stack([_floats(pert[c]) for c in cols]) if cols else np.zeros((n, 0))
    gone = np.isnan(x) | np.isnan(y)
    return np.where(gone, np.nan, x), np.where(gone, np.nan, y)


# ----------------------------------------------------------------------------- per column


def il1s(original: pd.DataFrame, perturbed: pd.DataFrame, columns=None, *,
         per_column: bool = False):
    """sdcMicro's IL1s: the mean over the compared cells of ``|x − x'| / (√2·S_j)``, x the
    original and x' the perturbed value, S_j the sample standard deviation (ddof 1) of the
    original column j over its compared cells (pairwise-present cells of the perturbed
    numeric columns by default). 0 when nothing changed; about ``0.56·noise`` for additive
    noise of sd ``noise·S_j`` (E|N(0, σ²)| = σ·√(2/π)). A column without spread adds 0
    (unchanged) or infinity (changed). ``per_column=True``: a Series of each column's mean.

    sdcMicro's ``dUtility(x, xm, method="IL1s")`` returns the *sum* over cells (its earlier
    ``"IL1old"`` the mean); multiply by the number of compared cells to get it.

    Example
    -------
    >>> orig = pd.DataFrame({"x": [1.0, 3.0, 5.0, 7.0]})
    >>> round(il1s(orig, pd.DataFrame({"x": [2.0, 2.0, 6.0, 6.0]})), 4)   # 4 / (4·√2·S), S = √(20/3)
    0.2739
    """
    orig, pert = _frames(original, perturbed)
    cols = _choose(orig, pert, columns, "numeric")
    parts = {c: il1s_column(_floats(orig[c]), _floats(pert[c])) for c in cols}
    if per_column:
        return pd.Series({c: s / n if n else 0.0 for c, (s, n) in parts.items()},
                         name="il1s", dtype=np.float64)
    cells = sum(n for _, n in parts.values())
    return sum(s for s, _ in parts.values()) / cells if cells else 0.0


def _ratio(num: np.ndarray, den) -> np.ndarray:
    """``num / den``, with 0/0 = 0 and x/0 = ±inf (a column without spread)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.broadcast_to(np.asarray(den, dtype=np.float64), num.shape)
    flat = den == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(flat & (num == 0), 0.0, np.where(flat, np.sign(num) * np.inf, num / den))


def distribution_changes(original: pd.DataFrame, perturbed: pd.DataFrame, columns=None, *,
                         quantiles=QUANTILES) -> pd.DataFrame:
    """Per numeric column (perturbed ones by default), how its distribution moved, on the
    pairwise-present cells (S: the original's sample standard deviation, ddof 1):

    * ``mean_change`` = (mean' − mean) / S (the shift in standard deviations);
    * ``sd_change`` = S' / S − 1 (the relative change of the spread);
    * ``q05_change`` … ``q95_change`` = (q' − q) / S for each quantile (numpy's linear
      interpolation), in standard deviations;

    plus ``cells`` (compared cells), ``mean``, ``sd``. Signed: positive = the perturbed value
    is larger. A column without spread gives 0 (unchanged) or ±inf. Standardizing by S, not by
    the value itself, keeps the figures defined for columns centred on 0 and comparable
    across columns.

    Example
    -------
    >>> orig = pd.DataFrame({"x": [1.0, 3.0, 5.0, 7.0]})
    >>> t = distribution_changes(orig, pd.DataFrame({"x": [2.0, 2.0, 6.0, 6.0]}), quantiles=[0.5])
    >>> t.loc["x", ["mean_change", "q50_change"]].tolist(), round(float(t.loc["x", "sd_change"]), 4)
    ([0.0, 0.0], -0.1056)
    """
    orig, pert = _frames(original, perturbed)
    cols = _choose(orig, pert, columns, "numeric")
    qs = np.asarray(list(quantiles), dtype=np.float64)
    if qs.ndim != 1 or not np.all((qs >= 0) & (qs <= 1)):
        raise InvalidInputError(f"quantiles must be numbers in [0, 1], got {quantiles!r}")
    names = [f"q{round(q * 100):02d}_change" for q in qs]
    x, y = _matrices(orig, pert, cols)
    rows = []
    for j, c in enumerate(cols):
        a, b = x[:, j][~np.isnan(x[:, j])], y[:, j][~np.isnan(y[:, j])]
        if len(a) == 0:
            rows.append([0, np.nan, np.nan, np.nan, np.nan] + [np.nan] * len(qs))
            continue
        (mean, s), (mean2, s2) = mean_sd(a), mean_sd(b)
        q = _ratio(np.quantile(b, qs) - np.quantile(a, qs), s) if len(qs) else []
        rows.append([len(a), mean, s, float(_ratio(mean2 - mean, s)),
                     float(_ratio(s2 - s, s))] + list(q))
    out = pd.DataFrame(rows, columns=["cells", "mean", "sd", "mean_change", "sd_change"] + names,
                       index=pd.Index(cols, dtype=object))
    return out.astype({"cells": np.int64})


def category_share_distance(original: pd.DataFrame, perturbed: pd.DataFrame, columns=None, *,
                            per_column: bool = False):
    """The largest total variation distance between a column's category shares in the two
    frames, ``½·Σ_v |p_v − p'_v|`` (p_v: the share of value v among the column's
    pairwise-present cells), over the perturbed categorical columns by default. 0 = the same
    shares, 1 = no value in common. PRAM (invariant) keeps the shares in expectation, so this
    is small for it; it says nothing about which rows changed (see ``changed_proportion``).
    ``per_column=True``: a Series per column.

    Example
    -------
    >>> orig = pd.DataFrame({"c": ["a", "a", "b", "c"]})
    >>> category_share_distance(orig, pd.DataFrame({"c": ["a", "b", "b", "b"]}))
    0.5
    """
    orig, pert = _frames(original, perturbed)
    cols = _choose(orig, pert, columns, "categorical")
    per = {}
    for c in cols:
        both = _present_both(orig[c], pert[c])
        m = int(both.sum())
        if m == 0:
            per[c] = 0.0
            continue
        codes, _ = pd.factorize(np.concatenate([_objects(orig[c])[both],
                                                _objects(pert[c])[both]]))
        k = int(codes.max()) + 1
        share = np.bincount(codes[:m], minlength=k) - np.bincount(codes[m:], minlength=k)
        per[c] = float(np.abs(share).sum()) / (2.0 * m)
    if per_column:
        return pd.Series(per, name="category_share_distance", dtype=np.float64)
    return max(per.values()) if per else 0.0


# ----------------------------------------------------------------------------- links


def _row_hash(bits: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row, from the ``p × n`` bit patterns of its cells, column after
    column (each step a bijection of the state: xor, odd multiplier, xor-shift)."""
    h = np.full(bits.shape[1], 0x9E3779B97F4A7C15, dtype=np.uint64)
    for column in bits:
        h ^= column
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return h


def _canonical_rows(x: np.ndarray) -> np.ndarray:
    """The rows of ``x`` in an order that depends on the rows alone, not on the order they came
    in: every sum over them then rounds the same way for each order of the input, so the
    measures of links are exactly invariant to the order of rows. Negative zeros become 0.0
    and every NaN the same NaN first, so equal rows are equal bit for bit. Sorted by a 64-bit
    hash of each row (one sort); rows tied on the hash are then identical (any order of them
    gives the same matrix) unless two different rows collide, and then the rows are sorted by
    their bits, column by column (lexsort, about ten times slower)."""
    x = np.where(np.isnan(x), np.nan, x + 0.0)
    n, p = x.shape
    if n < 2 or p == 0:
        return x
    bits = np.ascontiguousarray(x.T).view(np.uint64)          # p × n, a column per row
    h = _row_hash(bits)
    order = np.argsort(h)          # ties: identical rows (any order) or a collision (below)
    h = h[order]
    tied = np.flatnonzero(h[1:] == h[:-1])
    if len(tied) and (bits[:, order[tied]] != bits[:, order[tied + 1]]).any():
        order = np.lexsort(bits[::-1])
    return x[order]


def _deviations(v: np.ndarray) -> np.ndarray:
    """``v − mean`` per column (NaN missing, 0 there), the mean taken from the column's
    smallest value: a column of equal values gives exactly 0 (``v − v.mean()`` does not when
    the mean rounds, as for three copies of 341.938)."""
    gone = np.isnan(v)
    z = np.where(gone, 0.0, v - np.fmin.reduce(v, axis=0, initial=np.inf))
    count = (~gone).sum(axis=0)
    return np.where(gone, 0.0, z - z.sum(axis=0) / np.maximum(count, 1))


def pairwise_covariance(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise-complete covariance (ddof 1) and correlation matrices of the columns of ``x``
    (``n × p``, NaN missing): entry (i, j) uses the rows where columns i and j are both
    present, as pandas' ``DataFrame.cov`` / ``corr``. NaN for fewer than two such rows; the
    correlation is NaN too when a column has no spread there (all its values on those rows
    equal: its covariances are then exactly 0).

    Exact where it matters: the rows are put in a canonical order first (so every figure is
    exactly invariant to the order of the rows), the deviations are taken from each column's
    mean computed from its smallest value (a column of equal values deviates by exactly 0),
    and with missing cells a pair whose sums of squares cancel by more than six digits
    (``CANCELLATION``: a column without or nearly without spread on the pair's rows) is
    computed again from its own means on its own rows. Matrix products, no loop over pairs
    otherwise.

    Example
    -------
    >>> cov, corr = pairwise_covariance(np.array([[1.0, 2.0], [2.0, np.nan], [3.0, 6.0]]))
    >>> cov.tolist(), corr.round(12).tolist()
    ([[1.0, 4.0], [4.0, 8.0]], [[1.0, 1.0], [1.0, 1.0]])
    >>> cov, corr = pairwise_covariance(np.array([[1.0, 341.938], [2.0, 341.938], [4.0, 341.938]]))
    >>> cov[1].tolist(), corr[1].tolist()       # no spread: covariance 0, correlation undefined
    ([0.0, 0.0], [nan, nan])
    """
    x = _canonical_rows(np.asarray(x, dtype=np.float64))
    n, p = x.shape
    m = ~np.isnan(x)
    z = _deviations(x)
    # sums over the rows of each pair: of z_i·z_j (cov) and, in var[i, j], of the squared
    # deviations of column i from its mean on the rows where i and j are both present
    if m.all():
        count = np.full((p, p), float(n))
        cov = z.T @ z
        var = np.repeat(np.diag(cov)[:, None], p, axis=1)
    else:
        mf = m.astype(np.float64)
        count = mf.T @ mf
        a = z.T @ mf                       # a[i, j]: Σ z_i over the rows of the pair
        squares = (z * z).T @ mf
        with np.errstate(invalid="ignore", divide="ignore"):
            cov = z.T @ z - a * a.T / count
            var = squares - a * a / count
        lost = (var <= CANCELLATION * squares) & (squares > 0)
        for i, j in np.argwhere(np.triu(lost | lost.T) & (count >= 2)):
            d = _deviations(x[m[:, i] & m[:, j]][:, [i, j]])
            cov[i, j] = cov[j, i] = d[:, 0] @ d[:, 1]
            var[i, j], var[j, i] = d[:, 0] @ d[:, 0], d[:, 1] @ d[:, 1]
    few = count < 2
    with np.errstate(invalid="ignore", divide="ignore"):
        cov, var = np.where(few, np.nan, cov / (count - 1)), var / (count - 1)
        spread = ~few & (var > 0) & (var.T > 0)
        corr = np.where(spread, cov / np.sqrt(var * var.T), np.nan)
    np.fill_diagonal(corr, np.where(np.diag(spread), 1.0, np.nan))
    return cov, corr


def _link_matrices(original, perturbed, columns):
    """The original's and the perturbed frame's pairwise covariance and correlation matrices
    over the columns of the measures of links (columns without spread in the original left
    out: variance exactly 0, or fewer than two compared cells)."""
    orig, pert = _frames(original, perturbed)
    cols = _choose(orig, pert, columns, "numeric", links=True)
    x, y = _matrices(orig, pert, cols)
    first, second = pairwise_covariance(x), pairwise_covariance(y)
    keep = np.diag(first[0]) > 0
    first, second = ([a[keep][:, keep] for a in pair] for pair in (first, second))
    for a, b in zip(first, second):
        # a pair without a defined figure in either frame (fewer than two rows present
        # together, or no spread there in both frames): nothing to compare
        gone = np.isnan(a) & np.isnan(b)
        a[gone] = b[gone] = 0.0
    return first, second


def _scaled(cov: np.ndarray, sd: np.ndarray) -> np.ndarray:
    return cov / np.outer(sd, sd)


def eigenvalue_loss(original: pd.DataFrame, perturbed: pd.DataFrame, columns=None, *,
                    matrix: str = "correlation") -> float:
    """sdcMicro's ``dUtility(x, xm, method="eigen")`` (Templ): ``Σ_i |e_i − e'_i| / e_i``, e
    and e' the eigenvalues, both sorted from largest to smallest, of the correlation matrices
    of the original and the perturbed columns (every shared numeric column by default).
    sdcMicro's print shows it ×100 as "Difference of Eigenvalues: …%".

    ``matrix="covariance"``: the covariance matrices of the columns scaled by the
    *original's* standard deviations (so a change of spread counts too; units do not).
    Correlations and covariances are pairwise-complete (see the module; a pair whose
    correlation is undefined in both frames counts 0 in both matrices); a tiny eigenvalue of
    the original (≤ 1e-12·p, collinear columns) adds 0 when the perturbed one is tiny too,
    else infinity. NaN when a correlation is undefined in one frame only (a column constant
    in the perturbed frame only, or on the rows it shares with another column). Exactly
    invariant to the order of rows (see the module's "Row order"); to the order of columns up
    to rounding.

    Example
    -------
    >>> orig = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 3.0, 2.0, 4.0]})
    >>> pert = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 2.0, 3.0, 4.0]})
    >>> eigenvalue_loss(orig, pert)   # eigenvalues 1.8, 0.2 against 2, 0
    1.1111111111111112
    """
    if matrix not in ("correlation", "covariance"):
        raise InvalidInputError(
            f"matrix must be 'correlation' or 'covariance', got {matrix!r}")
    return _eigen(*_link_matrices(original, perturbed, columns), matrix)


def _eigen(first, second, matrix: str = "correlation") -> float:
    (c1, r1), (c2, r2) = first, second
    if matrix == "covariance":
        sd = np.sqrt(np.diag(c1))
        r1, r2 = _scaled(c1, sd), _scaled(c2, sd)
    p = r1.shape[0]
    if p == 0:
        return 0.0
    if np.isnan(r1).any() or np.isnan(r2).any():
        return float("nan")
    e1 = np.sort(np.linalg.eigvalsh(r1))[::-1]
    e2 = np.sort(np.linalg.eigvalsh(r2))[::-1]
    tiny = EIGEN_TOLERANCE * p
    zero = e1 <= tiny
    d = np.abs(e1 - e2)
    terms = np.where(zero, np.where(d <= tiny, 0.0, np.inf), d / np.where(zero, 1.0, e1))
    return float(terms.sum())


def correlation_difference(original: pd.DataFrame, perturbed: pd.DataFrame, columns=None, *,
                           how: str = "max") -> float:
    """How much the Pearson correlations moved: the largest (``how="max"``) or the mean
    (``"mean"``) of ``|r'_ij − r_ij|`` over the pairs i < j of columns (every shared numeric
    column by default; pairwise-complete correlations). 0 with fewer than two columns; NaN
    when a correlation is undefined in one frame only (a column constant in the perturbed
    frame; see the module's "Constant columns"). Between 0 and 2.

    Example
    -------
    >>> orig = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 3.0, 2.0, 4.0]})
    >>> pert = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 2.0, 3.0, 4.0]})
    >>> round(correlation_difference(orig, pert), 12)   # r = 0.8 -> 1
    0.2
    """
    if how not in ("max", "mean"):
        raise InvalidInputError(f"how must be 'max' or 'mean', got {how!r}")
    return _correlation(*_link_matrices(original, perturbed, columns), how)


def _correlation(first, second, how: str = "max") -> float:
    r1, r2 = first[1], second[1]
    upper = np.triu_indices(r1.shape[0], 1)
    d = np.abs(r2 - r1)[upper]
    if len(d) == 0:
        return 0.0
    return float(d.max() if how == "max" else d.mean())


def covariance_difference(original: pd.DataFrame, perturbed: pd.DataFrame,
                          columns=None) -> float:
    """The relative Frobenius distance of the covariance matrices, on columns scaled by the
    original's standard deviations: ``‖D⁻¹(C' − C)D⁻¹‖_F / ‖D⁻¹CD⁻¹‖_F`` (C, C' the
    pairwise-complete covariance matrices of the original and the perturbed columns, every
    shared numeric column by default; D the original's standard deviations). Scaling makes
    it independent of the units (without it the widest column would decide alone): the
    denominator is the Frobenius norm of the original's correlation matrix. For additive
    noise of sd ``noise·S_j`` the diagonal grows by ``noise²``. 0 iff the scaled covariances
    are equal (exactly 0 for identical frames, constant columns included: a column without
    spread in the original is left out, and covariances with a column without spread on the
    pair's rows are exactly 0).

    Example
    -------
    >>> orig = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    >>> round(covariance_difference(orig, pd.DataFrame({"x": [0.0, 2.0, 3.0, 5.0]})), 12)
    1.6
    """
    return _covariance(*_link_matrices(original, perturbed, columns))


def _covariance(first, second) -> float:
    c1, c2 = first[0], second[0]
    if c1.shape[0] == 0:
        return 0.0
    sd = np.sqrt(np.diag(c1))
    base = float(np.linalg.norm(_scaled(c1, sd)))
    return float(np.linalg.norm(_scaled(c2 - c1, sd))) / base


# ----------------------------------------------------------------------------- together


def perturbation_utility(original: pd.DataFrame, perturbed: pd.DataFrame,
                         columns=None) -> pd.DataFrame:
    """One row per compared column (the perturbed ones by default, numeric and categorical;
    perturbed columns holding generalized cells or numbers in one frame only are listed with
    a ``note``): ``type``, ``cells`` (compared cells), ``suppressed`` (present in the
    original, missing in the perturbed frame), ``filled`` (missing in the original, present
    in the perturbed frame: should be 0, missing cells stay missing), ``il1s`` and the
    columns of :func:`distribution_changes` for numeric columns, ``share_distance``
    (:func:`category_share_distance`) for categorical ones, ``note``.

    Example
    -------
    >>> orig = pd.DataFrame({"x": [1.0, 3.0, 5.0, None], "c": ["a", "a", "b", "c"]})
    >>> pert = pd.DataFrame({"x": [2.0, 2.0, None, None], "c": ["a", "b", "b", "b"]})
    >>> t = perturbation_utility(orig, pert)
    >>> t[["type", "cells", "suppressed", "share_distance"]].to_dict("index")["c"]
    {'type': 'categorical', 'cells': 4, 'suppressed': 0, 'share_distance': 0.5}
    >>> int(t.loc["x", "cells"]), int(t.loc["x", "suppressed"]), round(float(t.loc["x", "il1s"]), 12)
    (2, 1, 0.5)
    """
    orig, pert = _frames(original, perturbed)
    cols = _as_list(columns)
    if cols is None:
        types = {c: t for c, t in _types(orig, pert).items()
                 if (is_perturbed(orig[c], pert[c], t) if t else
                     not orig[c].astype(object).equals(pert[c].astype(object)))}
    else:
        _check_known(orig, pert, cols)
        types = {c: column_type(orig[c], pert[c]) for c in cols}
    num = [c for c, t in types.items() if t == "numeric"]
    cat = [c for c, t in types.items() if t == "categorical"]
    table = pd.DataFrame(index=pd.Index(list(types), dtype=object))
    table["type"] = [t or "" for t in types.values()]
    o_na = {c: np.asarray(orig[c].isna(), dtype=bool) for c in types}
    p_na = {c: np.asarray(pert[c].isna(), dtype=bool) for c in types}
    table["cells"] = [int((~o_na[c] & ~p_na[c]).sum()) for c in types]
    table["suppressed"] = [int((~o_na[c] & p_na[c]).sum()) for c in types]
    table["filled"] = [int((o_na[c] & ~p_na[c]).sum()) for c in types]
    table["il1s"] = il1s(orig, pert, num, per_column=True) if num else np.nan
    changes = distribution_changes(orig, pert, num).drop(columns="cells")
    table = table.join(changes)
    table["share_distance"] = (category_share_distance(orig, pert, cat, per_column=True)
                               if cat else np.nan)
    table["note"] = ["" if t else ("generalized cells: compare with by_element_distance"
                                   if is_generalized(orig[c]) or is_generalized(pert[c])
                                   else "numbers in one frame only") for c, t in types.items()]
    return table


def perturbation_summary(original: pd.DataFrame, perturbed: pd.DataFrame,
                         columns=None) -> pd.Series:
    """The figures ``metrics_table`` shows, as a Series indexed by their keys
    (:data:`SUMMARY_KEYS`, labelled in :data:`pdanon.metrics.FIGURES`): ``il1s``,
    ``eigenvalue_loss``, ``correlation_difference`` (the largest absolute change),
    ``covariance_difference`` (relative), ``max_mean_change`` (in sd), ``max_sd_change``
    (relative), ``max_quantile_change`` (in sd) (each 0 when nothing changed; the largest
    absolute value over the columns for the per-column ones) when a numeric column is
    compared, and ``category_share_distance`` (the largest over the columns) when a
    categorical column is. Lower is more useful for every one.

    Example
    -------
    >>> orig = pd.DataFrame({"x": [1.0, 3.0, 5.0, 7.0]})
    >>> s = perturbation_summary(orig, pd.DataFrame({"x": [2.0, 2.0, 6.0, 6.0]}))
    >>> s.round(4).to_dict()["max_sd_change"], list(s.index)[:2]
    (0.1056, ['il1s', 'eigenvalue_loss'])
    """
    orig, pert = _frames(original, perturbed)
    table = perturbation_utility(orig, pert, columns)
    out = {}
    num = [c for c in table.index if table.loc[c, "type"] == "numeric"]
    if num:
        links = None if columns is None else num
        changes = table.loc[num]
        qcols = [c for c in table.columns if c.startswith("q") and c.endswith("_change")]
        mats = _link_matrices(orig, pert, links)
        values = [il1s(orig, pert, num), _eigen(*mats), _correlation(*mats), _covariance(*mats),
                  float(changes["mean_change"].abs().max()),
                  float(changes["sd_change"].abs().max()),
                  float(np.abs(changes[qcols].to_numpy()).max())]
        out.update(zip(NUMERIC_KEYS, values))
    if (table["type"] == "categorical").any():
        out[CATEGORY_KEY] = float(table.loc[table["type"] == "categorical",
                                            "share_distance"].max())
    return pd.Series(out, name="value", dtype=np.float64)
