"""Generalized information loss against the published domain: the loss a release's cells
show, which the report's headline and ``metrics(original=)`` give as ``information_loss``.

Every width, span and domain is the *published* one: a range's width over the span of the
published column (its lowest published bound to its highest), a set's size over the categories
the release publishes. The original's span would include the rows the release withholds, and
with the published widths it gives a withheld value back (an outlier's age from the span and the
lowest band). The original is used for one thing only: which plain cells differ from it.

Example
-------
>>> import pandas as pd, pdanon
>>> df = pd.DataFrame({"age": [30, 31, 40, 42]})
>>> out = df.anon.k_anonymize(2, algorithm="mondrian")
>>> out["age"].astype(str).sort_values().tolist()   # every age is one person's: widened
['[30, 40]', '[30, 40]', '[40, 50]', '[40, 50]']
>>> round(published_loss(out, df, {"age": "real"}), 12)  # (10 + 10 + 10 + 10) / 20 / 4 rows
0.5
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["cell_loss", "extents", "published_loss"]


def extents(s: pd.Series) -> tuple | None:
    """``(extent per cell, unit, domain)`` of a generalized column, None for another: a real
    range's hi - lo ("units"; domain: the published span, highest bound - lowest bound), a
    range of dates its length in days ("days"; domain: the published span in days, so a month
    is about 30 and a decade about 3,650 however many categories the hierarchy made), another
    ordered range's categories ("categories"), a set's members ("values per set"; domain: the
    published categories). Blank cells have extent NaN."""
    from pdanon.dtype import GeneralizationDtype

    if not isinstance(s.dtype, GeneralizationDtype):
        return None
    arr = s.array
    present = ~np.asarray(arr.isna(), dtype=bool)
    extent = np.full(len(arr), np.nan)
    if arr.kind == "unordered":
        codes = np.asarray(arr.codes)
        uniq, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        sizes = np.full(len(uniq), np.nan)
        keep = uniq >= 0
        sizes[keep] = arr.take(first[keep]).member_counts
        extent = sizes[inverse.reshape(-1)]
        return extent, "values per set", float(len(arr.categories))
    lo = np.asarray(arr.lo, dtype=np.float64)
    hi = np.asarray(arr.hi, dtype=np.float64)
    if arr.categories is not None:
        cats = pd.Index(arr.categories)
        if isinstance(cats, pd.DatetimeIndex) and len(cats):
            # a range of dates is as long as the time it covers, not its categories
            day = cats.as_unit("s").asi8.astype(np.float64) / 86400.0
            at = present & (lo >= 0)
            first = np.where(at, lo, 0).astype(np.int64)
            last = np.where(at, hi, 0).astype(np.int64)
            extent[at] = day[last[at]] - day[first[at]]
            span = float(day[last[at]].max() - day[first[at]].min()) if at.any() else 0.0
            return extent, "days", span
        extent[present] = hi[present] - lo[present] + 1
        return extent, "categories", float(len(arr.categories))
    extent[present] = hi[present] - lo[present]
    span = float(hi[present].max() - lo[present].min()) if present.any() else 0.0
    return extent, "units", span


def cell_loss(s: pd.Series, original: pd.Series | None, kind: str) -> np.ndarray:
    """Per cell of a published column, its generalized information loss in [0, 1], against
    the published domain: a blank cell 1; a real range (hi - lo) / the published span, a range
    of dates its days / the published span in days; another ordered range or a set of m of the M published categories (m - 1) / (M - 1); a plain cell
    0 when it is the original value, else 1 (an aggregate, a coded or noised value: needs
    ``original``; without it, plain cells cost 0). A cell "or missing" (``{a, b} or missing``)
    counts the missing value as one more member: m / (M - 1) (at most 1), a single value
    "or missing" 1 / (M - 1); a real or date range "or missing" costs its width (a missing
    value adds none).

    Example
    -------
    >>> from pdanon.dtype import GeneralizationArray
    >>> arr = GeneralizationArray.from_bounds([20, 20, 40, 0], [29, 39, 60, 0], kind="real",
    ...                                       mask=[False, False, False, True])
    >>> cell_loss(pd.Series(arr), None, "real").tolist()      # of the published span 20..60
    [0.225, 0.475, 0.5, 1.0]
    """
    from pdanon.metrics import _cells

    na = s.isna().to_numpy()
    found = extents(s)
    if found is None:
        cost = (np.zeros(len(s)) if original is None else
                (~_cells.equal_cells(original, s, kind)).astype(np.float64))
    else:
        extent, unit, domain = found
        if unit in ("units", "days"):
            cost = extent / domain if domain > 0 else np.zeros(len(s))
        else:
            # a cell "or missing" holds the missing value as one more member: m / (M - 1)
            flagged = np.asarray(s.array.or_missing, dtype=bool)
            cost = (np.minimum((extent - 1 + flagged) / (domain - 1), 1.0) if domain > 1
                    else flagged.astype(np.float64))
    cost = np.where(na, 1.0, np.nan_to_num(cost, nan=0.0))
    return cost


def published_loss(anonymized: pd.DataFrame, original: pd.DataFrame | None,
                   qis: dict) -> float | None:
    """Generalized information loss (Iyengar 2002; ARX's "Loss") averaged over the
    quasi-identifier cells, each cell priced by :func:`cell_loss`, i.e. against the published
    domain: a figure the release alone (and which plain cells changed) determines. None
    without ``original``, which says whether a plain cell is the original value.
    :func:`pdanon.plot.information_loss` prices ranges against the original's span instead,
    which the report must not publish (rows the release withholds widen it)."""
    if original is None or not qis:
        return None
    n = len(anonymized)
    if n == 0:
        return 0.0
    total = sum(float(cell_loss(anonymized[c], original[c], kind).sum())
                for c, kind in qis.items())
    return total / (n * len(qis))
