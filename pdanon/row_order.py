"""The order of a release's rows: what it can give away, and a random order to publish in.

Every anonymizer keeps the input's rows in their order (and their index), so that a release
can be compared with its input row by row (``metrics(original=)``, ``explain``, the report).
A file published in that order shows it: when the input was sorted on a quasi-identifier (an
export ordered by ZIP code, then age), a suppressed or generalized cell can be read off its
neighbours — copying the previous row's ZIP recovered 80 % of the hidden ZIP cells of one
such table. :func:`sorted_columns` finds the quasi-identifiers a release is sorted or grouped
on (from the release alone: neighbouring rows that differ mostly rise, or equal cells stand
together far more often than a random order puts them), which
:func:`pdanon.policy.check` and the report list as a hazard; :func:`in_random_order`
returns the release in a random order drawn from the operating system's CSPRNG, numbered
anew, which is the form to write once the release has been checked against its input.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"zip": sorted(["02139", "02140", "02141"] * 10),
...                    "age": list(range(30)), "sex": ["F", "M"] * 15})
>>> [c for c, _ in sorted_columns(df, ["zip", "age", "sex"])]
['zip', 'age']
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["GROUPED_KAPPA", "SORTED_SHARE", "in_random_order", "sorted_columns"]

#: share of the neighbouring rows that differ on a column and rise (or fall) from which the
#: rows read as sorted on it (a random order gives about half)
SORTED_SHARE = 0.9
#: how much more often neighbouring rows hold the same cell than a random order makes them
#: (Cohen's kappa of a row and the next: 0 at random, 1 when equal cells always stand
#: together) from which the rows read as grouped on a column
GROUPED_KAPPA = 0.5
#: neighbouring pairs needed before a column's order is judged
MIN_PAIRS = 20


def _ranks(series: pd.Series) -> np.ndarray | None:
    """Dense ranks of the cells (NaN where missing), or None when they cannot be ordered."""
    try:
        return series.rank(method="dense", na_option="keep").to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        return None


def _grouped(ranks: np.ndarray) -> float | None:
    """Cohen's kappa of neighbouring cells being equal: (observed - expected) / (1 -
    expected), with the expected share of equal neighbours of a random order of the same
    cells (the sum of the squared shares of the values)."""
    if len(ranks) < MIN_PAIRS + 1:
        return None
    same = float((np.diff(ranks) == 0).mean())
    _, counts = np.unique(ranks, return_counts=True)
    expected = float(((counts / len(ranks)) ** 2).sum())
    return None if expected >= 1.0 else (same - expected) / (1.0 - expected)


def sorted_columns(release: pd.DataFrame, columns) -> list:
    """``[(column, evidence)]``: the ``columns`` whose cells the rows' order gives away —
    sorted (rising or falling from row to row in at least :data:`SORTED_SHARE` of the
    neighbouring rows that differ, over at least :data:`MIN_PAIRS` of them) or grouped (equal
    cells stand together far more often than at random: kappa at least
    :data:`GROUPED_KAPPA`). Missing cells are skipped."""
    found = []
    for c in columns:
        ranks = _ranks(release[c])
        if ranks is None:
            continue
        ranks = ranks[~np.isnan(ranks)]
        step = np.diff(ranks)
        step = step[step != 0]
        if len(step) >= MIN_PAIRS:
            rise = float((step > 0).mean())
            if max(rise, 1.0 - rise) >= SORTED_SHARE:
                found.append((c, f"{max(rise, 1.0 - rise):.0%} of neighbouring rows that "
                                 f"differ are in order"))
                continue
        kappa = _grouped(ranks)
        if kappa is not None and kappa >= GROUPED_KAPPA:
            same = float((np.diff(ranks) == 0).mean())
            found.append((c, f"{same:.0%} of neighbouring rows hold the same cell, kappa "
                             f"{kappa:.2f} against a random order"))
    return found


def in_random_order(frame: pd.DataFrame, *, seed=None) -> pd.DataFrame:
    """``frame``'s rows in a uniformly random order, numbered ``0 .. n-1`` (the old index
    would give the order back). The order comes from :func:`os.urandom` unless ``seed`` is
    given (tests only: whoever knows the seed can undo the order). The frame's attrs are
    kept; its ``info`` says the rows no longer match the input's
    (``rows_match_input=False``), so comparisons with the input row by row are refused:
    check and report the release against its input first, then publish this.

    Example
    -------
    >>> df = pd.DataFrame({"zip": ["02139", "02140", "02141"]}, index=[7, 8, 9])
    >>> out = in_random_order(df, seed=0)
    >>> sorted(out["zip"]) == sorted(df["zip"]), out.index.tolist()
    (True, [0, 1, 2])
    """
    import copy

    from pdanon.dp.mechanism import RandomSource
    from pdanon.roles import ATTRS_KEY

    order = RandomSource(seed).permutation(len(frame))
    out = frame.iloc[order].reset_index(drop=True)
    attrs = copy.deepcopy(frame.attrs)
    meta = attrs.get(ATTRS_KEY)
    if meta is not None:
        info = dict(meta.get("info") or {})
        info.update(rows_match_input=False, row_order="random")
        meta["info"] = info
    out.attrs = attrs
    return out
