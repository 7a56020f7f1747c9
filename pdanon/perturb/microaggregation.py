"""Microaggregation: rows are grouped by MDAV or V-MDAV and each group's cells are replaced by
the group's mean (real), median (ordered) or mode (unordered).

The grouping algorithms live in :mod:`pdanon.perturb.mdav`; this module turns columns into
their distance space, splits the table into strata (missing cells) and blocks (large tables),
publishes the group values and measures what was lost.

**Distance space.** A real column enters as its value, an ordered column as the mid-rank of its
value among the column's present cells (ties share the average rank, as in Spearman's
correlation; an ordered Categorical is ranked in its category order). Both are standardized to
z-scores, ``(v - mean) / std`` over the column's present cells (population standard deviation;
a constant column contributes 0). An unordered column adds ``MISMATCH = 2`` to the squared
distance when two values differ (0/1 distance; 2 is the mean squared difference of two
independent values of a standardized column). See :mod:`pdanon.perturb.mdav` for the exact
distance, centroid and tie-breaking rules (ties: the lowest row position).

**Missing values stay missing.** Rows are first split by their *missingness pattern* (which
microaggregated columns are missing), and each pattern of at least ``k`` rows is grouped on
its own: its distances use exactly its present columns. Rows of rarer patterns are pooled into
one more stratum (joined to the largest stratum if they are fewer than ``k``), where a missing
coordinate counts as the column's mean (z = 0) and a missing unordered cell as one more value,
for distances only. A group's value is computed from its present cells; a missing cell is never
replaced by a value. Groups mixing missing and present cells can make the published
combinations differ inside a group, so ``info["k_anonymity"]`` reports what was achieved.

**Blocks.** A stratum of more than ``exact_rows`` rows (``block_size="auto"``: 100,000) is cut
by median cuts on its widest standardized column into blocks of at most ``block_rows`` rows
(``"auto"``: 12,500; median cuts halve a block, so blocks hold between half that and
that many rows), and exact MDAV runs in each block: O(n * B / k) work instead of
O(n**2 / k).

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"age": [20, 21, 22, 50, 52, 54]})
>>> out, info = microaggregate_frame(df, {"age": "real"}, 3)
>>> out["age"].tolist(), info["k_anonymity"]
([21.0, 21.0, 21.0, 52.0, 52.0, 52.0], 3)
"""

from __future__ import annotations

import numbers
import time

import numpy as np
import pandas as pd

from pdanon._errors import InfeasibleError, InvalidInputError, KindError, VerificationError
from pdanon.encode import check_finite, factorize, is_generalized, is_real_dtype
from pdanon.losses import il1s_rows
from pdanon.perturb.mdav import MISMATCH, block_rows, mdav_groups, vmdav_groups
from pdanon.progress import progress_bar

METHODS = ("mdav", "vmdav")
#: gain factor of V-MDAV when none is given (Solanas & Martinez-Balleste suggest 0.2 for
#: scattered data and about 1.1 for clustered data)
DEFAULT_GAMMA = 0.2
#: with ``block_size="auto"``: strata above this many rows are cut into blocks ...
AUTO_EXACT_ROWS = 100_000
#: ... of at most this many rows
AUTO_BLOCK_ROWS = 12_500
#: tables from this many rows may show a progress bar (progress=None; see pdanon.progress)
PROGRESS_ROWS = 20_000
PUBLISHED = {"real": "mean", "ordered": "median", "unordered": "mode"}


# ----------------------------------------------------------------------------- checks


def check_k(k, n: int) -> int:
    """``k`` is an int >= 1 and at most the number of rows."""
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1:
        raise InvalidInputError(f"k must be an integer >= 1, got {k!r}")
    k = int(k)
    if n and k > n:
        raise InfeasibleError(
            f"k={k} is more than the {n} rows of the table: no group of {k} rows can be "
            f"formed; use k <= {n}"
        )
    return k


def _check_options(method, gamma, block_size, k: int):
    if method not in METHODS:
        raise InvalidInputError(f"method must be one of {list(METHODS)}, got {method!r}")
    if method == "mdav" and gamma is not None:
        raise InvalidInputError("gamma= is V-MDAV's gain factor; pass method='vmdav' to use it")
    if method == "vmdav":
        gamma = DEFAULT_GAMMA if gamma is None else gamma
        if (isinstance(gamma, (bool, np.bool_)) or not isinstance(gamma, numbers.Real)
                or not np.isfinite(gamma) or gamma <= 0):
            raise InvalidInputError(f"gamma must be a positive number, got {gamma!r}")
        gamma = float(gamma)
    if isinstance(block_size, str):
        if block_size != "auto":
            raise InvalidInputError(
                f"block_size must be 'auto', None or an integer, got {block_size!r}")
        return gamma, (AUTO_EXACT_ROWS, AUTO_BLOCK_ROWS)
    if block_size is None:
        return gamma, None
    if (isinstance(block_size, (bool, np.bool_)) or not isinstance(block_size, numbers.Integral)
            or block_size < 2 * k):
        raise InvalidInputError(
            f"block_size must be None, 'auto' or an integer >= 2*k = {2 * k} (a median cut "
            f"must leave at least k rows on each side), got {block_size!r}"
        )
    return gamma, (int(block_size), int(block_size))


# ----------------------------------------------------------------------------- columns


class _Column:
    """One microaggregated column: its kind, codes (ordered/unordered, -1 missing) and the
    numbers it enters the distance space with (real value or mid-rank, NaN missing)."""

    def __init__(self, series: pd.Series, kind: str):
        name = series.name
        self.series, self.kind, self.name = series, kind, name
        if is_generalized(series):
            raise KindError(
                f"column {name!r} holds generalized cells; microaggregate the original values "
                "(before generalizing) instead"
            )
        self.codes = self.categories = None
        where = f"column {name!r}"
        if kind == "real":
            if not is_real_dtype(series.dtype):
                raise KindError(
                    f"column {name!r} has kind 'real' but holds {series.dtype} values; convert "
                    f"it to numbers (pd.to_numeric(df[{name!r}])) or declare it 'ordered' or "
                    "'unordered'"
                )
            self.value = series.to_numpy(dtype=np.float64, na_value=np.nan)
            self.missing = np.isnan(self.value)
            if np.isinf(self.value).any():
                check_finite(series, name, index=series.index)  # raises, naming the first row
            return
        self.missing = np.asarray(series.isna(), dtype=bool)
        if kind in ("ordered", "unordered"):
            if isinstance(series.dtype, pd.CategoricalDtype) and (
                    kind == "unordered" or series.dtype.ordered):
                codes, cats = np.asarray(series.cat.codes, np.int64), series.cat.categories
            else:
                check_finite(series, name, index=series.index)
                codes, cats = factorize(series, where=where, sort=kind == "ordered")
            self.codes, self.categories = codes, pd.Index(cats)
            self.value = self._mid_ranks() if kind == "ordered" else None
        else:
            raise KindError(f"unknown kind {kind!r} for column {name!r}; use real, ordered or "
                            "unordered")

    def _mid_ranks(self) -> np.ndarray:
        present = ~self.missing
        counts = np.bincount(self.codes[present], minlength=len(self.categories))
        self.rank_of_code = (np.cumsum(counts) - counts) + (counts - 1) / 2.0
        return self.ranks(self.codes)

    def ranks(self, codes: np.ndarray) -> np.ndarray:
        """The mid-rank of every code (NaN for -1, a missing cell)."""
        mid = np.append(self.rank_of_code, np.nan)  # code -1 reads the NaN
        return mid[np.where(codes < 0, len(self.rank_of_code), codes)]

    @property
    def numeric(self) -> bool:
        return self.kind != "unordered"

    def standardized(self) -> np.ndarray:
        """z-scores over the present cells (0 for a constant column, NaN where missing)."""
        v = self.value
        present = v[~self.missing]
        mean = present.mean() if len(present) else 0.0
        std = present.std() if len(present) else 0.0
        if not std > 0:
            return np.where(self.missing, np.nan, 0.0)
        return (v - mean) / std


# ----------------------------------------------------------------------------- strata and groups


def strata(missing: np.ndarray, k: int) -> list[np.ndarray]:
    """Rows split by missingness pattern (``missing``: n x c booleans): each pattern of at
    least ``k`` rows is a stratum (in order of first appearance); rows of rarer patterns form
    one more stratum, joined to the largest stratum (the first among equals) when fewer than
    ``k``. Each stratum's row positions are sorted.

    Example
    -------
    >>> m = np.array([[0], [1], [0], [0], [1]], dtype=bool)
    >>> [s.tolist() for s in strata(m, 2)]
    [[0, 2, 3], [1, 4]]
    >>> [s.tolist() for s in strata(m, 3)]
    [[0, 1, 2, 3, 4]]
    """
    n = missing.shape[0]
    if missing.shape[1] == 0 or not missing.any():
        return [np.arange(n)]
    _, first, inverse = np.unique(missing, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    sizes = np.bincount(inverse)
    big = [p for p in np.argsort(first, kind="stable") if sizes[p] >= k]
    out = [np.flatnonzero(inverse == p) for p in big]
    rare = np.flatnonzero(sizes[inverse] < k)
    if len(rare) >= k or not out:
        out.append(rare)
    elif len(rare):
        largest = int(np.argmax([len(s) for s in out]))
        out[largest] = np.sort(np.concatenate([out[largest], rare]))
    return out


def group_labels(num: np.ndarray, cat: np.ndarray, k: int, *, method: str = "mdav",
                 gamma: float | None = None, blocks=None, tick=None) -> tuple[np.ndarray, int]:
    """Group labels of the rows of one stratum (``num``: m x n z-scores, ``cat``: u x n codes)
    and the number of blocks used. ``blocks`` is ``None`` (exact) or ``(exact_rows,
    block_rows)``; ``tick(rows)`` is told of the rows grouped by every step of MDAV or
    V-MDAV (not of the last few rows of a block, grouped at its end).

    Example
    -------
    >>> labels, nblocks = group_labels(np.array([[0.0, 1.0, 2.0, 10.0]]), np.zeros((0, 4), int), 2)
    >>> labels.tolist(), nblocks
    ([1, 1, 0, 0], 1)
    """
    n = num.shape[1] if num.shape[0] else cat.shape[1]
    parts = [np.arange(n)]
    if blocks is not None and n > blocks[0]:
        parts = block_rows(num, blocks[1])
    labels = np.empty(n, dtype=np.int64)
    offset = 0
    for rows in parts:
        if method == "mdav":
            sub = mdav_groups(num[:, rows], cat[:, rows], k, tick=tick)
        else:
            sub = vmdav_groups(num[:, rows], cat[:, rows], k, gamma, tick=tick)
        labels[rows] = sub + offset
        offset += int(sub.max()) + 1
    return labels, len(parts)


# ----------------------------------------------------------------------------- publishing


def _group_means(values: np.ndarray, present: np.ndarray, labels: np.ndarray,
                 groups: int) -> np.ndarray:
    """Per group, the mean of its present values (NaN for none); a group of equal values
    keeps that exact value."""
    lab, v = labels[present], values[present]
    sums = np.bincount(lab, weights=v, minlength=groups)
    counts = np.bincount(lab, minlength=groups)
    lo = np.full(groups, np.inf)
    hi = np.full(groups, -np.inf)
    np.minimum.at(lo, lab, v)
    np.maximum.at(hi, lab, v)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(lo == hi, lo, sums / counts)
    return np.where(counts > 0, means, np.nan)


def _group_pick(codes: np.ndarray, present: np.ndarray, labels: np.ndarray, groups: int,
                kind: str) -> np.ndarray:
    """Per group, the code published: the median of the present codes (ordered: the element
    at position size // 2 of the sorted codes) or their mode (unordered: ties to the lowest
    code); -1 for a group without present cells."""
    lab, c = labels[present], codes[present]
    pick = np.full(groups, -1, dtype=np.int64)
    if not len(lab):
        return pick
    if kind == "ordered":
        by = np.lexsort((c, lab))
        counts = np.bincount(lab, minlength=groups)
        starts = np.cumsum(counts) - counts
        has = counts > 0
        pick[has] = c[by[starts[has] + counts[has] // 2]]
        return pick
    width = int(c.max()) + 1
    pairs, counts = np.unique(lab * width + c, return_counts=True)
    g, code = pairs // width, pairs % width
    best = np.lexsort((code, -counts, g))
    head = best[np.r_[True, g[best][1:] != g[best][:-1]]]
    pick[g[head]] = code[head]
    return pick


def _from_codes(col: _Column, codes: np.ndarray) -> pd.Series:
    series = col.series
    if isinstance(series.dtype, pd.CategoricalDtype):
        values = pd.Categorical.from_codes(codes, dtype=series.dtype)
        return pd.Series(values, index=series.index, name=series.name)
    out = pd.Series(col.categories.take(codes, allow_fill=True), index=series.index,
                    name=series.name)
    try:
        return out.astype(series.dtype)
    except (TypeError, ValueError):
        return out


def _real_values(col: _Column, values: np.ndarray):
    """The published cells of a real column: float64, or ``Float64`` for a nullable column
    (missing cells ``pd.NA``)."""
    if isinstance(col.series.dtype, pd.api.extensions.ExtensionDtype):
        return pd.array(values, dtype="Float64")
    return values


# ----------------------------------------------------------------------------- losses


def information_loss(columns: dict) -> dict:
    """SSE, SST, SSE/SST and IL1s over numeric columns: ``{name: (v, v_published)}`` float
    arrays (NaN missing; a real column's values, an ordered column's mid-ranks).

    * SSE = sum over present cells of ``((v - v') / sigma_j) ** 2`` and SST = sum of
      ``((v - mean_j) / sigma_j) ** 2`` (population sigma over the present cells: the
      standardized data of the distances; a constant column adds 0 to both);
    * IL1s = the mean over present cells of ``|v - v'| / (sqrt(2) * S_j)``, S_j the sample
      standard deviation (sdcMicro's IL1s, :func:`pdanon.losses.il1s_column`; a constant
      column's unchanged cells add 0).

    Example
    -------
    >>> v = np.array([1.0, 3.0, 5.0, 7.0])
    >>> loss = information_loss({"a": (v, np.array([2.0, 2.0, 6.0, 6.0]))})
    >>> loss["sse_sst"], round(loss["il1s"], 4)
    (0.2, 0.2739)
    """
    pairs = list(columns.values())
    full = [j for j, (v, w) in enumerate(pairs) if not (np.isnan(v).any() or np.isnan(w).any())]
    batches = [(full, np.array([pairs[j][0] for j in full]),
                np.array([pairs[j][1] for j in full]))] if full else []
    for j in sorted(set(range(len(pairs))) - set(full)):
        v, w = pairs[j]
        present = ~np.isnan(v) & ~np.isnan(w)
        batches.append(([j], v[present][None, :], w[present][None, :]))
    parts = {}  # column -> (IL1s part, cells, SSE, SST): the columns without missing cells
    for js, x, y in batches:  # are measured together (rows: columns, each its present cells)
        il = il1s_rows(x, y)
        sigma = sse = sst = np.zeros(len(x))  # population sigma; no spread below two cells
        if x.shape[1] > 1:
            sigma = x.std(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                sse = np.square(x - y).sum(axis=1) / sigma**2
                sst = np.square(x - x.mean(axis=1)[:, None]).sum(axis=1) / sigma**2
        for i, j in enumerate(js):
            ok = sigma[i] > 0
            parts[j] = (float(il[i]), x.shape[1], float(sse[i]) if ok else 0.0,
                        float(sst[i]) if ok else 0.0)
    sse = sst = il = 0.0
    cells = 0
    for j in range(len(pairs)):  # summed in column order
        il += parts[j][0]
        cells += parts[j][1]
        sse += parts[j][2]
        sst += parts[j][3]
    return {"sse": sse, "sst": sst, "sse_sst": sse / sst if sst > 0 else 0.0,
            "il1s": il / cells if cells else 0.0}


def loss_pair(original: pd.Series, published: pd.Series, kind: str):
    """The numbers :func:`information_loss` compares for one column: ``(v, v')`` float arrays
    (a real column's values; an ordered column's mid-ranks among the original's present
    cells, a published value looked up among the original's values), NaN where missing;
    ``None`` for an unordered column.

    Example
    -------
    >>> v, w = loss_pair(pd.Series(["a", "b", "b", "c"]), pd.Series(["b", "b", "b", "b"]),
    ...                  "ordered")
    >>> v.tolist(), w.tolist()
    ([0.0, 1.5, 1.5, 3.0], [1.5, 1.5, 1.5, 1.5])
    """
    if kind == "unordered":
        return None
    col = _Column(original, kind)
    if is_generalized(published):
        raise KindError(f"column {published.name!r} holds generalized cells; the information "
                        "loss of microaggregation compares plain values")
    if kind == "real":
        if not is_real_dtype(published.dtype):
            raise KindError(f"column {published.name!r} of the published frame holds "
                            f"{published.dtype} values, not numbers")
        return col.value, published.to_numpy(dtype=np.float64, na_value=np.nan)
    values = published.astype(object) if isinstance(published.dtype, pd.CategoricalDtype) \
        else published
    codes = np.asarray(col.categories.get_indexer(pd.Index(values.array)), dtype=np.int64)
    unknown = (codes < 0) & ~np.asarray(published.isna(), dtype=bool)
    if unknown.any():
        raise KindError(f"column {published.name!r} publishes values that are not in the "
                        f"original column (e.g. {published[unknown].iloc[0]!r}); ranks need "
                        "values of the column")
    return col.value, col.ranks(codes)


def _published_k(out: pd.DataFrame, cols: list, table: list, sizes: np.ndarray) -> int:
    """The smallest class of the published columns. Without missing cells every row shows
    its group's values (``table``: per column, one value per group), so the classes are the
    groups with equal value rows, merged; otherwise the published frame is grouped."""
    if any(c.missing.any() for c in cols):
        from pdanon._groups import class_labels

        return int(np.bincount(class_labels(out, [c.name for c in cols])).min())
    rows = np.array(table)  # (columns, groups)
    order = np.lexsort(rows)
    ranked = rows[:, order]
    starts = np.flatnonzero(np.r_[True, (ranked[:, 1:] != ranked[:, :-1]).any(axis=0)])
    return int(np.add.reduceat(sizes[order], starts).min())


# ----------------------------------------------------------------------------- the frame


def microaggregate_frame(df: pd.DataFrame, kinds: dict, k: int, *, method: str = "mdav",
                         gamma: float | None = None, block_size="auto", progress=None):
    """Microaggregate the columns ``kinds`` (``{column: "real" | "ordered" | "unordered"}``) of
    ``df``; returns ``(new frame, info)``. The input is not modified; other columns, the index
    and the row order are kept.

    Real columns publish their group's mean (float; a nullable column gives ``Float64``),
    ordered columns the median of the group's values (the element at position size // 2 of
    the sorted values, a value of the column), unordered columns the mode (ties: the value
    first in category order for a Categorical, else the one met first in the column).
    Missing cells stay missing and are left out of every group value. ``progress``: a bar
    over the rows grouped (``None``: for long runs in a terminal or notebook; see
    :mod:`pdanon.progress`).

    Example
    -------
    >>> df = pd.DataFrame({"age": [30, 31, 32, 60, 61, 62], "sex": list("FFMMMF")})
    >>> out, info = microaggregate_frame(df, {"age": "real", "sex": "unordered"}, 3)
    >>> out["age"].tolist(), out["sex"].tolist()
    ([31.0, 31.0, 31.0, 61.0, 61.0, 61.0], ['F', 'F', 'F', 'M', 'M', 'M'])
    >>> info["groups"], info["group_sizes"], info["k_anonymity"]
    (2, {'min': 3, 'max': 3}, 3)
    """
    started = time.perf_counter()
    n = len(df)
    k = check_k(k, n)
    gamma, blocks = _check_options(method, gamma, block_size, k)
    if not kinds:
        raise InvalidInputError("no column to microaggregate; name the columns")
    cols = [_Column(df[c], kind) for c, kind in kinds.items()]
    out = df.copy(deep=False)
    info = {"operation": "microaggregate", "method": method, "k": k}
    if method == "vmdav":
        info["gamma"] = gamma
    info["columns"] = {c.name: {"kind": c.kind, "published": PUBLISHED[c.kind]} for c in cols}
    numeric = [c for c in cols if c.numeric]
    unordered = [c for c in cols if not c.numeric]
    z = np.array([c.standardized() for c in numeric]).reshape(len(numeric), n)
    num = np.where(np.isnan(z), 0.0, z)
    cat = np.array([np.where(c.codes < 0, len(c.categories), c.codes) for c in unordered],
                   dtype=np.int64).reshape(len(unordered), n)
    if n == 0:
        info.update({"groups": 0, "k_anonymity": 0, "changed_cells": 0})
        return out, info
    labels = np.empty(n, dtype=np.int64)
    nblocks = offset = 0
    parts = strata(np.array([c.missing for c in cols]).T.reshape(n, len(cols)), k)
    with progress_bar(n, desc="microaggregation: rows grouped", unit="row", enabled=progress,
                      long=n >= PROGRESS_ROWS) as bar:
        for rows in parts:
            sub, used = group_labels(num[:, rows], cat[:, rows], k, method=method, gamma=gamma,
                                     blocks=blocks, tick=bar.update)
            labels[rows] = sub + offset
            offset += int(sub.max()) + 1
            nblocks += used
        bar.update(n - bar.count)
    groups = offset
    sizes = np.bincount(labels, minlength=groups)
    if sizes.min() < k:
        raise VerificationError(
            f"microaggregation built a group of {int(sizes.min())} rows < k={k} (a bug: please "
            "report it)")
    changed = 0
    losses = {}
    table = []  # per column, the value each group publishes
    for c in cols:
        present = ~c.missing
        if c.kind == "real":
            means = _group_means(c.value, present, labels, groups)
            new = np.where(present, means[labels], np.nan)
            changed += int(np.sum(present & (new != c.value)))
            out[c.name] = _real_values(c, new)
            losses[c.name] = (c.value, new)
            table.append(means)
            continue
        pick = _group_pick(c.codes, present, labels, groups, c.kind)
        codes = np.where(present, pick[labels], -1)
        changed += int(np.sum(present & (codes != c.codes)))
        out[c.name] = _from_codes(c, codes)
        if c.kind == "ordered":
            losses[c.name] = (c.value, c.ranks(codes))
        table.append(pick.astype(np.float64))
    published_k = _published_k(out, cols, table, sizes)
    info.update({
        "distance": f"squared Euclidean on z-scores (real: value, ordered: mid-rank); "
                    f"unordered: {MISMATCH:g} per mismatch",
        "groups": groups,
        "group_sizes": {"min": int(sizes.min()), "max": int(sizes.max())},
        "k_anonymity": published_k,
        "strata": len(parts),
        "blocks": nblocks,
        "block_rows": None if blocks is None else blocks[1],
        "changed_cells": changed,
        **information_loss(losses),
        "seconds": time.perf_counter() - started,
    })
    return out, info
