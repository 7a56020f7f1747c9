"""Information loss of groups of rows: the reference's per-column losses (GroupJoin).

A *group* is a set of rows that will be published with one recoded value per quasi-identifier.
Its loss is the sum over quasi-identifier columns of a per-column loss that depends on the
recoding method and the column's kind (M, m are the column's largest and smallest value over
the whole table, n its number of rows; ranks are first positions in the sorted column):

============  ==========================================  =====================================
method        real / ordered                              unordered
============  ==========================================  =====================================
suppress      0 if the group's cells are equal, else the group size (any kind)
generalize    Σ over cells ((lo−x)² + (hi−x)²) / (2·(M−m)·(hi−lo)), lo/hi the group's min and
              max (0 when lo = hi); ordered: on ranks      |g| − |g| / #distinct values
              with (n−1) in place of (M−m)
aggregate     Σ |x − mean| / (M−m); ordered:               #cells different from the mode
              Σ |rank(x) − rank(median)| / (n−1), the
              median being the element at position
              len // 2 of the group's sorted values
============  ==========================================  =====================================

These are the distances of :func:`pdanon.metrics` ``by_element_distance`` summed over the
group's cells, so a lower loss means published cells closer to the original ones.

Real values are used *normalized*, ``u = (x − m)/(M − m)`` (and ``u = rank/(n − 1)`` for
ordered columns); every formula above is then free of the (M − m) divisor. A constant column
has zero loss under generalization and aggregation.

The GroupJoin partitioner (:mod:`pdanon.partition.group_join`) evaluates these losses for the
union of two groups from per-group summaries (count, Σu, Σu², min, max, value sets), and
transforms them with a *loss function* chosen by the privacy model (:func:`k_loss`,
:func:`l_loss`, :func:`t_loss` are the reference's defaults).

Example
-------
>>> import numpy as np, pandas as pd
>>> from pdanon.encode import encode_column
>>> col = encode_column(pd.Series([0.0, 1.0, 2.0, 4.0]), "real")
>>> group_losses("generalize", col, np.array([0, 0, 1, 1])).tolist()
[0.25, 0.5]
>>> table_loss("suppress", [col], np.array([0, 0, 1, 1]))
4.0
"""

from __future__ import annotations

import numpy as np

from pdanon.encode import EncodedColumn

__all__ = [
    "METHODS",
    "normalized_values",
    "group_losses",
    "suppression_losses",
    "unordered_losses",
    "range_losses",
    "table_loss",
    "generalization_loss",
    "unordered_generalization_loss",
    "k_loss",
    "l_loss",
    "t_loss",
    "default_loss_function",
    "il1s_column",
    "il1s_rows",
    "mean_sd",
    "mean_sd_rows",
]

METHODS = ("suppress", "generalize", "aggregate")


# ============================================================================ formulas


#: normalized position of a missing cell: one whole column span above the largest value, so
#: a group that mixes a missing cell with present ones costs about a full suppression
MISSING_POSITION = 2.0


def normalized_values(col: EncodedColumn) -> np.ndarray:
    """The cells of a real or ordered column scaled to [0, 1]: ``(x − m)/(M − m)`` for real
    columns (the midpoint of an already generalized range), ``rank/(n − 1)`` for ordered ones
    (rank = first position of the value in the sorted column). A constant column gives zeros.
    Scales are taken over the present cells; a missing cell is at :data:`MISSING_POSITION`.

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.encode import encode_column
    >>> normalized_values(encode_column(pd.Series([10, 20, 20, 30]), "ordered")).tolist()
    [0.0, 0.3333333333333333, 0.3333333333333333, 1.0]
    >>> normalized_values(encode_column(pd.Series([10.0, None, 30.0]), "real")).tolist()
    [0.0, 2.0, 1.0]
    """
    if col.kind not in ("real", "ordered"):
        raise ValueError(f"column {col.name!r} is unordered: it has no normalized values")
    if col.na is None:
        return _scaled(col, col.n)
    out = np.full(col.n, MISSING_POSITION)
    present = ~col.na
    out[present] = _scaled(col, int(present.sum()))[present]
    return out


def _scaled(col: EncodedColumn, n: int) -> np.ndarray:
    """:func:`normalized_values` of the first ``n`` ranks / the present values (missing cells,
    if any, come out above 1 and are overwritten by the caller)."""
    if col.kind == "ordered":
        if n <= 1:
            return np.zeros(col.n)
        return col.rank.astype(np.float64) / (n - 1)
    x = col.point
    if col.n == 0:
        return np.zeros(0)
    valid = x if col.na is None else x[~col.na]
    if not len(valid):
        return np.zeros(col.n)
    lo, hi = float(np.min(valid)), float(np.max(valid))
    if hi <= lo:
        return np.zeros(col.n)
    return (x - lo) / (hi - lo)


def generalization_loss(count, lo, hi, s1, s2):
    """Generalization loss of groups of normalized values from their summaries: ``count``
    cells with smallest ``lo``, largest ``hi``, sum ``s1`` and sum of squares ``s2``.

    Σ ((lo−u)² + (hi−u)²) / (2·(hi−lo)) = (count·(lo² + hi²) − 2·s1·(lo + hi) + 2·s2) /
    (2·(hi − lo)); 0 where lo = hi. Each cell costs between (hi−lo)/4 and (hi−lo)/2, so the
    result is clipped to that interval (it absorbs the rounding of the moment formula).

    Example
    -------
    >>> float(generalization_loss(2, 0.0, 1.0, 1.0, 1.0))  # cells 0 and 1
    1.0
    """
    count = np.asarray(count, dtype=np.float64)
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    w = hi - lo
    num = count * (lo * lo + hi * hi) - 2.0 * np.asarray(s1) * (lo + hi) + 2.0 * np.asarray(s2)
    # 0 where lo = hi; lean calls, as GroupJoin calls this once per merge
    loss = np.divide(num, 2.0 * w, out=np.zeros(np.shape(num)), where=w > 0)
    cw = count * w
    return np.minimum(np.maximum(loss, cw / 4.0), cw / 2.0)


def unordered_generalization_loss(count, distinct):
    """``count − count / distinct``: the loss of publishing ``count`` cells as one set of
    ``distinct`` values.

    Example
    -------
    >>> float(unordered_generalization_loss(4, 2))
    2.0
    """
    count = np.asarray(count, dtype=np.float64)
    return count - count / np.maximum(np.asarray(distinct, dtype=np.float64), 1.0)


# ============================================================================ per-group losses


def _check_method(method: str) -> None:
    if method not in METHODS:
        from pdanon._errors import InvalidInputError

        raise InvalidInputError(f"unknown method {method!r}; use one of {list(METHODS)}")


def group_losses(method: str, col: EncodedColumn, labels: np.ndarray,
                 groups: int | None = None) -> np.ndarray:
    """Loss of every group (labels 0..groups-1) in one column, vectorized (no loop over
    groups or cells).

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.encode import encode_column
    >>> col = encode_column(pd.Series(["a", "b", "a", "a"]), "unordered")
    >>> group_losses("generalize", col, np.array([0, 0, 1, 1])).tolist()
    [1.0, 0.0]
    >>> group_losses("aggregate", col, np.array([0, 0, 0, 1])).tolist()
    [1.0, 0.0]
    """
    _check_method(method)
    labels = np.asarray(labels, dtype=np.int64)
    if groups is None:
        groups = int(labels.max()) + 1 if len(labels) else 0
    if len(labels) == 0:
        return np.zeros(groups)
    if method == "suppress":
        return suppression_losses(col.codes, labels, groups)
    if col.kind == "unordered":
        return unordered_losses(method, col.codes, labels, groups)
    return range_losses(method, normalized_values(col), labels, groups, col.kind)


def _group_counts(labels: np.ndarray, groups: int | None):
    labels = np.asarray(labels, dtype=np.int64)
    if groups is None:
        groups = int(labels.max()) + 1 if len(labels) else 0
    return labels, groups, np.bincount(labels, minlength=groups).astype(np.float64)


def suppression_losses(codes, labels, groups: int | None = None) -> np.ndarray:
    """Suppression loss of every group, any kind: 0 when its cells are equal (equal ``codes``),
    else its size.

    Example
    -------
    >>> suppression_losses(np.array([4, 4, 1, 2]), np.array([0, 0, 1, 1])).tolist()
    [0.0, 2.0]
    """
    labels, groups, counts = _group_counts(labels, groups)
    codes = np.asarray(codes, dtype=np.int64)
    lo = np.full(groups, np.iinfo(np.int64).max)
    hi = np.full(groups, -1)
    np.minimum.at(lo, labels, codes)
    np.maximum.at(hi, labels, codes)
    return np.where(lo == hi, 0.0, counts)


def unordered_losses(method: str, codes, labels, groups: int | None = None) -> np.ndarray:
    """Generalization (``|g| − |g| / #distinct``) or aggregation (cells different from the
    mode) loss of every group of an unordered column given by value ``codes`` (>= 0).

    Example
    -------
    >>> unordered_losses("generalize", np.array([0, 1, 1]), np.array([0, 0, 0])).tolist()
    [1.5]
    >>> unordered_losses("aggregate", np.array([0, 1, 1]), np.array([0, 0, 0])).tolist()
    [1.0]
    """
    labels, groups, counts = _group_counts(labels, groups)
    codes = np.asarray(codes, dtype=np.int64)
    width = int(codes.max()) + 1
    pair_codes, pair_counts = np.unique(labels * width + codes, return_counts=True)
    if method == "generalize":
        per = np.bincount(pair_codes // width, minlength=groups)
        return unordered_generalization_loss(counts, per)
    top = np.zeros(groups, dtype=np.int64)
    np.maximum.at(top, pair_codes // width, pair_counts)
    return counts - top


def range_losses(method: str, u, labels, groups: int | None = None,
                 kind: str = "real") -> np.ndarray:
    """Generalization or aggregation loss of every group of a real or ordered column given by
    its normalized values ``u`` (:func:`normalized_values`); aggregation measures from the
    mean (real) or from the element at position len // 2 of the sorted values (ordered).

    Example
    -------
    >>> range_losses("generalize", np.array([0.0, 0.5, 1.0]), np.array([0, 0, 0])).tolist()
    [1.25]
    >>> range_losses("aggregate", np.array([0.0, 0.5, 1.0]), np.array([0, 0, 0])).tolist()
    [1.0]
    """
    labels, groups, counts = _group_counts(labels, groups)
    u = np.asarray(u, dtype=np.float64)
    if method == "generalize":
        lo = np.full(groups, np.inf)
        hi = np.full(groups, -np.inf)
        np.minimum.at(lo, labels, u)
        np.maximum.at(hi, labels, u)
        s1 = np.bincount(labels, weights=u, minlength=groups)
        s2 = np.bincount(labels, weights=u * u, minlength=groups)
        return generalization_loss(counts, lo, hi, s1, s2)
    # aggregate
    if kind == "real":
        centre = np.bincount(labels, weights=u, minlength=groups) / np.maximum(counts, 1)
    else:
        by = np.lexsort((u, labels))
        c = counts.astype(np.int64)
        starts = np.cumsum(c) - c
        centre = np.zeros(groups)
        has = c > 0
        centre[has] = u[by[starts[has] + c[has] // 2]]
    return np.bincount(labels, weights=np.abs(u - centre[labels]), minlength=groups)


def table_loss(method: str, columns, labels: np.ndarray) -> float:
    """Total loss of a partition: the sum over groups and columns of :func:`group_losses`.

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.encode import encode_column
    >>> cols = [encode_column(pd.Series([1, 1, 2, 3]), "real")]
    >>> table_loss("aggregate", cols, np.array([0, 0, 1, 1]))
    0.5
    """
    labels = np.asarray(labels, dtype=np.int64)
    groups = int(labels.max()) + 1 if len(labels) else 0
    return float(sum(group_losses(method, c, labels, groups).sum() for c in columns))


# ============================================================================ loss functions


def k_loss(loss, size1, size2, k):
    """Default GroupJoin loss function for k-anonymity: the loss itself.

    Example
    -------
    >>> k_loss(3.0, 1, 2, 5)
    3.0
    """
    return loss


def l_loss(loss, size1, size2, k, l, k_sens):
    """Default GroupJoin loss function for l-diversity: ``loss / sum(k_sens)``, ``k_sens``
    holding, per sensitive column, the number of distinct values in the merged group capped
    at ``l`` (merges that bring new sensitive values look cheaper).

    Example
    -------
    >>> l_loss(3.0, 1, 2, 2, 2, [1, 2])
    1.0
    """
    return loss / sum(k_sens)


def t_loss(loss, size1, size2, k, t, t_sens):
    """Default GroupJoin loss function for t-closeness: ``loss * sum(t_sens)``, ``t_sens``
    holding, per sensitive column, the distance of the merged group's distribution to the
    whole table's (merges that move closer to the table look cheaper).

    Example
    -------
    >>> t_loss(2.0, 1, 1, 2, 0.2, [0.25, 0.25])
    1.0
    """
    return loss * sum(t_sens)


def default_loss_function(family: str):
    """The reference's default loss function for ``"k"``, ``"l"`` or ``"t"``.

    Example
    -------
    >>> default_loss_function("l") is l_loss
    True
    """
    try:
        return {"k": k_loss, "l": l_loss, "t": t_loss}[family]
    except KeyError:
        raise ValueError(f"unknown family {family!r}; use 'k', 'l' or 't'") from None


# ============================================================================ perturbed values


def mean_sd(values: np.ndarray) -> tuple[float, float]:
    """The mean and the sample standard deviation (ddof 1; 0 for fewer than two values) of
    ``values`` (a float array without NaN), computed on the sorted values from the smallest
    one: equal values have an sd of exactly 0 and a mean of exactly their value (``x.std()``
    of three copies of 341.938 is 7e-14), and neither figure depends on the order of the
    values (sums of the same numbers in another order round differently).

    Example
    -------
    >>> mean_sd(np.array([341.938] * 3)), mean_sd(np.array([3.0, 1.0]))
    ((341.938, 0.0), (2.0, 1.4142135623730951))
    """
    v = np.asarray(values, dtype=np.float64)
    if len(v) == 0:
        return float("nan"), 0.0
    mean, sd = mean_sd_rows(v[None, :])
    return float(mean[0]), float(sd[0])


def mean_sd_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mean_sd` of every row of a 2-D float array without NaN (at least one column):
    the same figures, bit for bit, in a few whole-array operations.

    Example
    -------
    >>> mean, sd = mean_sd_rows(np.array([[3.0, 1.0], [5.0, 5.0]]))
    >>> mean.tolist(), sd.tolist()
    ([2.0, 5.0], [1.4142135623730951, 0.0])
    """
    v = np.sort(values, axis=1)
    n = v.shape[1]
    z = v - v[:, :1]
    m = z.mean(axis=1)
    sd = np.sqrt(np.square(z - m[:, None]).sum(axis=1) / (n - 1)) if n > 1 else np.zeros(len(v))
    return v[:, 0] + m, sd


def il1s_column(x: np.ndarray, y: np.ndarray) -> tuple[float, int]:
    """One column's share of sdcMicro's IL1s: ``(Σ |x − y| / (√2·S), cells)`` over the cells
    present in both ``x`` (original) and ``y`` (perturbed) (float arrays, NaN missing), S the
    sample standard deviation (ddof 1) of ``x`` over those cells (:func:`mean_sd`). IL1s is the
    sum of the first figures over columns divided by the sum of the second (a mean over
    cells). A column without spread (all its compared cells equal, or fewer than two) adds 0
    when ``y`` equals ``x`` there, else infinity (a change that no spread can scale). The sum
    runs over the sorted differences, so the figure does not depend on the order of the rows.
    The one implementation of IL1s: :func:`pdanon.metrics.il1s` and microaggregation's
    ``info["il1s"]`` use it.

    Example
    -------
    >>> part, cells = il1s_column(np.array([1.0, 3.0, np.nan]), np.array([2.0, 2.0, 5.0]))
    >>> round(part, 12), cells        # (1 + 1) / (√2 · √2): S = sd(1, 3) = √2
    (1.0, 2)
    """
    both = ~np.isnan(x) & ~np.isnan(y)
    a, b = x[both], y[both]
    return float(il1s_rows(a[None, :], b[None, :])[0]), len(a)


def il1s_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`il1s_column`'s first figure for every row of two 2-D float arrays without NaN
    (row j: a column's original and perturbed cells), bit for bit, in whole-array operations.

    Example
    -------
    >>> il1s_rows(np.array([[1.0, 3.0], [2.0, 2.0]]), np.array([[2.0, 2.0], [2.0, 2.0]]))
    array([1., 0.])
    """
    if x.shape[1] == 0:
        return np.zeros(len(x))
    d = np.sort(np.abs(x - y), axis=1)
    s = mean_sd_rows(x)[1] if x.shape[1] > 1 else np.zeros(len(x))
    total = d.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        part = total / (2.0**0.5 * s)
    return np.where(s > 0, part, np.where(total > 0, np.inf, 0.0))
