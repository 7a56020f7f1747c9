"""Local suppression (sdcMicro's ``localSuppression``): set the fewest quasi-identifier cells
missing, preferring unimportant columns, until every row's frequency is at least ``k`` with a
missing cell matching any value (sdcMicro's k-anonymity)."""

from __future__ import annotations

import numbers
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from pdanon._errors import InfeasibleError, InvalidInputError, NoProgressError, VerificationError
from pdanon._groups import frequencies
from pdanon.perturb.common import check_columns


def suppression_order(df: pd.DataFrame, columns: Sequence, importance=None) -> list:
    """``columns`` in the order they are suppressed (least important first).

    ``importance`` is ``None`` (columns with more distinct values are suppressed first, ties
    in reverse frame order), a sequence naming every column from the most to the least
    important, or sdcMicro's ``{column: number}`` naming every column (``1`` = most important;
    higher numbers are suppressed first, ties in reverse frame order).

    Example
    -------
    >>> df = pd.DataFrame({"sex": ["F", "M"] * 3, "zip": list("abcdef"), "age": [1, 1, 2] * 2})
    >>> suppression_order(df, ["sex", "zip", "age"])
    ['zip', 'age', 'sex']
    >>> suppression_order(df, ["sex", "zip", "age"], ["zip", "age", "sex"])
    ['sex', 'age', 'zip']
    """
    cols = list(columns)
    if importance is None:
        score = {c: df[c].nunique(dropna=True) for c in cols}
    elif isinstance(importance, Mapping):
        bad = [v for v in importance.values()
               if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real)]
        if set(importance) != set(cols) or bad:
            raise InvalidInputError(
                f"importance {dict(importance)!r} must give a number to every quasi-identifier "
                f"{cols} and to nothing else (1 = most important, suppressed last)"
            )
        score = dict(importance)
    else:
        given = list(importance) if not isinstance(importance, str) else [importance]
        if sorted(map(str, given)) != sorted(map(str, cols)) or len(set(given)) != len(cols):
            raise InvalidInputError(
                f"importance {given!r} must list every quasi-identifier {cols} once, from the "
                "most to the least important"
            )
        score = {c: i for i, c in enumerate(given)}
    position = {c: i for i, c in enumerate(cols)}
    return sorted(cols, key=lambda c: (-score[c], -position[c]))


def _code_frame(df: pd.DataFrame, columns: Sequence) -> pd.DataFrame:
    """The quasi-identifiers as float codes (NaN = missing): cheap to copy and suppress."""
    out = {}
    for j, c in enumerate(columns):
        codes, _ = pd.factorize(df[c], use_na_sentinel=True)
        out[j] = np.where(codes < 0, np.nan, codes.astype(np.float64))
    return pd.DataFrame(out)


def suppression_mask(df: pd.DataFrame, columns: Sequence, k: int, *, importance=None,
                     max_rounds: int | None = None) -> np.ndarray:
    """Which cells of ``columns`` to suppress (a boolean ``n × q`` array) for k-anonymity with
    missing cells as wildcards.

    Greedy rounds, all rows at once. In a round, the rows whose wildcard frequency is below
    ``k`` are *unsafe*. The columns are tried from the least important
    (:func:`suppression_order`): for the unsafe rows not yet served that hold a value in the
    column, the frequency is recomputed with that cell suppressed in all of them; the rows it
    makes safe get that cell suppressed. Unsafe rows that no single cell makes safe get the
    cell of their least important present column suppressed. Suppressing a cell never lowers
    any row's frequency (a missing cell matches more rows), so rounds repeat until no row is
    unsafe; each round suppresses at least one cell. The result is a heuristic (as sdcMicro's):
    few cells, not provably the fewest.

    Example
    -------
    >>> df = pd.DataFrame({"sex": ["F", "F", "M"], "zip": ["1", "1", "1"]})
    >>> suppression_mask(df, ["sex", "zip"], 2).tolist()
    [[False, False], [False, False], [True, False]]
    """
    n = len(df)
    if n and n < k:
        raise InfeasibleError(
            f"k={k} needs at least k rows; the frame has {n} (a row matches at most all rows)"
        )
    order = suppression_order(df, columns, importance)
    pos = [list(columns).index(c) for c in order]
    codes = _code_frame(df, columns)
    names = list(codes.columns)
    start = codes.isna().to_numpy()
    rounds = max_rounds if max_rounds is not None else n * len(pos) + 1
    for _ in range(rounds):
        freq = frequencies(codes, names, missing="wildcard")
        unsafe = freq < k
        if not unsafe.any():
            return codes.isna().to_numpy() & ~start
        served = np.zeros(n, dtype=bool)
        chosen = np.full(n, -1)
        present = codes.notna().to_numpy()
        for j in pos:
            cand = unsafe & ~served & present[:, j]
            if not cand.any():
                continue
            trial = codes.copy()
            trial.iloc[np.flatnonzero(cand), j] = np.nan
            ok = cand & (frequencies(trial, names, missing="wildcard") >= k)
            chosen[ok] = j
            served |= ok
        rest = np.flatnonzero(unsafe & ~served)
        if len(rest):
            # no single cell makes these rows safe: their least important present cell goes
            present_in_order = present[rest][:, pos]
            chosen[rest] = np.array(pos)[np.argmax(present_in_order, axis=1)]
        rows = np.flatnonzero(chosen >= 0)
        if len(rows) == 0:
            break
        values = codes.to_numpy(copy=True)
        values[rows, chosen[rows]] = np.nan
        codes = pd.DataFrame(values, columns=names)
    raise NoProgressError(f"local suppression for k={k} made no progress on columns {list(columns)}")


def suppressed_column(series: pd.Series, mask: np.ndarray) -> pd.Series:
    """``series`` with the cells of ``mask`` missing: numpy integer and boolean columns become
    pandas' nullable ``Int64``/``boolean`` (so the other values keep their type)."""
    if not mask.any():
        return series.copy()
    if isinstance(series.dtype, np.dtype) and series.dtype.kind in "iub":
        series = series.astype("boolean" if series.dtype.kind == "b" else "Int64")
    return series.mask(pd.Series(mask, index=series.index))


def local_suppression_frame(df: pd.DataFrame, columns: Sequence, k: int, *,
                            importance=None) -> tuple[pd.DataFrame, dict]:
    """Suppress quasi-identifier cells (:func:`suppression_mask`) and verify the result;
    returns ``(new frame, details)``: ``order`` (suppressed first to last),
    ``cells_suppressed`` (total and per column), ``rows_changed``, ``k_anonymity`` (the
    smallest wildcard frequency afterwards: the rule suppression works and is verified with)
    and ``k_anonymity_value`` (the smallest class with a missing cell as a value of its own,
    ``missing="value"``: reported, not a target; it can be below k).

    Missing cells are data under one rule: a cell missing in ``df`` is a wildcard exactly as
    a suppressed one (sdcMicro's; a blank cannot tell rows apart), so it can make a row safe
    without any suppression, and it is never changed. A ``missing="value"`` rule is not
    offered: under it a suppressed cell would be a new value that splits classes, and
    suppression could lower frequencies instead of raising them.

    Example
    -------
    >>> df = pd.DataFrame({"sex": ["F", "F", "M", "M", "M"], "zip": ["1", "1", "1", "2", "2"]})
    >>> out, d = local_suppression_frame(df, ["sex", "zip"], 2)
    >>> out["zip"].fillna("*").tolist(), d["cells_suppressed"], d["k_anonymity"]
    (['1', '1', '*', '2', '2'], 1, 2)
    >>> d["k_anonymity_value"]          # (M, *) is a class of one when missing is a value
    1
    """
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1:
        raise InvalidInputError(f"k must be an integer >= 1, got {k!r}")
    check_columns(df, columns, "local_suppression", unique=True)
    if not len(columns):
        raise InvalidInputError("local_suppression needs at least one quasi-identifier")
    mask = suppression_mask(df, columns, int(k), importance=importance)
    out = df.copy(deep=False)
    for j, c in enumerate(columns):
        out[c] = suppressed_column(df[c], mask[:, j]).array
    achieved = int(frequencies(out, list(columns), missing="wildcard").min()) if len(out) else 0
    if len(out) and achieved < k:
        raise VerificationError(
            f"local suppression left a row matching only {achieved} rows (k={k}); please report"
        )
    details = {"order": suppression_order(df, columns, importance),
               "cells_suppressed": int(mask.sum()),
               "cells_suppressed_per_column": {c: int(mask[:, j].sum())
                                               for j, c in enumerate(columns)},
               "rows_changed": int(mask.any(axis=1).sum()), "k_anonymity": achieved,
               "k_anonymity_value": int(frequencies(out, list(columns)).min()) if len(out)
               else 0}
    return out, details
