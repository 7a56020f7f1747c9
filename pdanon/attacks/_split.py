"""Hold out a control set before anonymizing (docs/attacks.md, "Why a control set")."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, UnknownColumnError

#: the share of rows held out as the control set unless the caller says otherwise
SHARE = 0.2


def holdout(df: pd.DataFrame, share: float = SHARE, *, stratify=None, seed=None,
            every_stratum: bool = False):
    """``(original, control)``: ``df`` split at random, ``share`` of its rows held out as the
    control set (rounded, per stratum with ``stratify=<column or columns>``: every
    combination of their values keeps its share, so the control looks like the original).
    Anonymize ``original``; attack with ``control=control``. Both keep ``df``'s index labels
    (disjoint); ``df`` is not modified. ``seed``: for tests (else a CSPRNG).

    Refused when either part would be empty; with ``every_stratum=True`` (the anonymizers'
    ``evaluate=``) also when a stratum's share rounds to none or all of its rows (a
    stratum of one row at ``share=0.5``): that stratum would lie wholly on one side, and
    the control would not look like the original in it.

    Example
    -------
    >>> df = pd.DataFrame({"sex": ["F"] * 10 + ["M"] * 10, "x": range(20)})
    >>> original, control = holdout(df, 0.2, stratify="sex", seed=0)
    >>> len(original), len(control), sorted(control["sex"])
    (16, 4, ['F', 'F', 'M', 'M'])
    """
    from pdanon._groups import class_labels
    from pdanon.attacks._result import rng_of

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"holdout splits a DataFrame, got {type(df).__name__}")
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share < 1:
        raise InvalidInputError(f"share must lie strictly between 0 and 1, got {share!r}")
    rng = rng_of(seed)
    n = len(df)
    if stratify is None:
        labels = np.zeros(n, dtype=np.int64)
    else:
        cols = [stratify] if isinstance(stratify, (str, int)) else list(stratify)
        missing = [c for c in cols if c not in set(df.columns)]
        if missing:
            raise UnknownColumnError(f"holdout: unknown stratify column(s) {missing}; the "
                                     f"frame has columns {list(df.columns)}")
        labels = class_labels(df, cols)
    sizes = np.bincount(labels) if n else np.zeros(0, dtype=np.int64)
    take = np.floor(sizes * share + 0.5).astype(np.int64)
    # a random rank of every row within its stratum: the lowest ranks are held out
    order = np.lexsort((rng.random(n), labels))
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]]) if len(sizes) else sizes
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - np.repeat(start, sizes)
    if every_stratum and stratify is not None and len(sizes):
        lopsided = np.flatnonzero((take == 0) | (take == sizes))
        if len(lopsided):
            first = df.iloc[np.flatnonzero(labels == lopsided[0])[:1]][cols]
            shown = ", ".join(f"{c}={v!r}" for c, v in first.iloc[0].items())
            raise InvalidInputError(
                f"holdout: {len(lopsided)} of the {len(sizes)} strata of {cols} are too small "
                f"to split at share={share} (e.g. {shown}: {int(sizes[lopsided[0]])} row(s), "
                f"all on one side); a stratified control cannot be held out. Stratify on "
                f"fewer or coarser columns (stratify=None: at random), or hold the control "
                f"out yourself and pass control=")
    held = rank < take[labels]
    if not held.any() or held.all():
        raise InvalidInputError(
            f"holdout: {n} rows split at share={share} leave "
            f"{'no control row' if not held.any() else 'no row to anonymize'}; the attacks "
            f"need both (a larger table or another share), so no risk can be reported")
    return df.iloc[np.flatnonzero(~held)], df.iloc[np.flatnonzero(held)]
