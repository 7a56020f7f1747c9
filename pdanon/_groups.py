"""Equivalence classes as integer labels, and record frequencies, computed without Python loops
over rows.

Every column is factorized on its own (missing cells - NaN, None, pd.NA, NaT, suppressed
generalized cells - form one value: suppressed cells are equal to each other), then the
per-column codes are combined pairwise and re-factorized so the mixed-radix label never
overflows.

Two ways to treat a missing quasi-identifier cell (the ``missing=`` keyword of the metrics):

* ``"value"`` (default): a missing cell is a value of its own; two rows both missing in a column
  agree there. Rows fall into disjoint equivalence classes (:func:`class_labels`).
* ``"wildcard"`` (sdcMicro's ``freqCalc``): a missing cell matches any value. The frequency of
  row i is the number of rows j (i included) that agree with i on every column where both are
  present (:func:`frequencies`). Matching is not transitive, so there are no classes, only
  frequencies.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"a": [1, 1, 2], "b": ["x", "x", None]})
>>> class_labels(df, ["a", "b"])
array([0, 0, 1])
>>> frequencies(pd.DataFrame({"a": [1, 1, None]}), ["a"], missing="wildcard").tolist()
[3, 3, 3]
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

#: The ``missing=`` choices of the metrics.
MISSING_MODES = ("value", "wildcard")
#: ``missing="wildcard"`` costs one group-by per pair of missingness patterns (which
#: quasi-identifiers a row lacks); more distinct patterns than this are refused.
WILDCARD_MAX_PATTERNS = 64


def check_missing(missing) -> str:
    """``missing`` if it is one of :data:`MISSING_MODES`, else a clear error."""
    from pdanon._errors import InvalidInputError

    if not isinstance(missing, str) or missing not in MISSING_MODES:
        raise InvalidInputError(
            f"missing must be 'value' (a missing quasi-identifier cell is a value of its own) or "
            f"'wildcard' (a missing cell matches any value, as sdcMicro counts), got {missing!r}"
        )
    return missing


def refuse_wildcard(missing, what: str) -> None:
    """Raise a clear error when a class-based measure ``what`` is asked for with
    ``missing="wildcard"`` (under which rows form no disjoint classes)."""
    from pdanon._errors import InvalidInputError

    if check_missing(missing) == "wildcard":
        raise InvalidInputError(
            f"{what} is measured on disjoint equivalence classes, and with missing='wildcard' a "
            f"row with a missing quasi-identifier matches rows of several classes: wildcard "
            f"matching applies to frequency measures only (k_anonymity, is_k_anonymous, "
            f"frequencies). Use missing='value' (a missing cell is a value of its own)"
        )


def column_codes(values, *, where: str = "column") -> tuple[np.ndarray, int]:
    """Codes 0..m-1 of a column's distinct cells (NA is one more distinct value) and m; the
    encoder's rules (:func:`pdanon.encode.factorize`: unhashable cells are a clear error)."""
    codes, m = _codes_with_na(values, where)
    if (codes < 0).any():
        codes = np.where(codes < 0, m, codes)
        m += 1
    return codes, m


def _codes_with_na(values, where: str) -> tuple[np.ndarray, int]:
    """Codes 0..m-1 of the present cells, -1 for every missing one, and m."""
    from pdanon.encode import factorize

    group_codes = getattr(values, "_group_codes", None)  # pdanon's published cells
    if group_codes is not None:
        return group_codes()
    codes, uniques = factorize(values, where=where)
    return codes, len(uniques)


def combine_codes(codes_list: Sequence[np.ndarray], n: int) -> np.ndarray:
    """One label per distinct combination of per-column codes, numbered by first appearance.

    Codes are combined into one mixed-radix integer key and factorized once; when the product
    of the column widths would overflow int64 the key built so far is compressed first.
    """
    key = np.zeros(n, dtype=np.int64)
    span = 1  # every key value lies in [0, span)
    for codes in codes_list:
        c = np.asarray(codes, dtype=np.int64)
        width = int(c.max()) + 1 if n else 1
        if span * width >= 2**62:
            key, uniq = pd.factorize(key)
            key = np.asarray(key, dtype=np.int64)
            span = max(len(uniq), 1)
        key = key * width + c
        span *= width
    label, _ = pd.factorize(key)
    return np.asarray(label, dtype=np.int64)


def class_labels(df: pd.DataFrame, columns: Sequence, *, missing: str = "value",
                 what: str = "this measure") -> np.ndarray:
    """Equivalence-class label of every row over ``columns`` (first class met gets 0); a
    missing cell is a value of its own. ``missing="wildcard"`` is refused (rows form no
    disjoint classes then), naming ``what`` was asked for."""
    refuse_wildcard(missing, what)
    n = len(df)
    return combine_codes([column_codes(df[c].array, where=f"column {c!r}")[0] for c in columns],
                         n)


def class_sizes(labels: np.ndarray) -> np.ndarray:
    """Size of the class of every row."""
    if len(labels) == 0:
        return np.zeros(0, dtype=np.int64)
    counts = np.bincount(labels)
    return counts[labels]


def frequencies(df: pd.DataFrame, columns: Sequence, *, missing: str = "value") -> np.ndarray:
    """How many rows (itself included) every row matches over ``columns``.

    ``missing="value"``: the size of the row's equivalence class (missing equals missing).
    ``missing="wildcard"``: the number of rows j that agree with the row on every column where
    both are present (sdcMicro's ``fk`` with ``alpha=1``); a row whose every column is missing
    matches all n rows and counts in every row's frequency.

    Cost of ``"wildcard"``: rows are first reduced to their distinct combinations (missing as
    a value); these are grouped by missingness pattern (the set of columns they lack), and for
    every pair of distinct patterns (P, Q) the combinations of Q are counted by a group-by over
    the columns present in both, then looked up for the combinations of P (and the other way
    round): patterns·(patterns − 1)/2 group-bys, each over the combinations of two patterns.
    No n × n matrix. More than :data:`WILDCARD_MAX_PATTERNS` patterns raise
    :class:`~pdanon.InvalidInputError`.

    Example
    -------
    >>> df = pd.DataFrame({"a": [1, 1, 2, None], "b": ["x", None, "x", "y"]})
    >>> frequencies(df, ["a", "b"]).tolist()
    [1, 1, 1, 1]
    >>> frequencies(df, ["a", "b"], missing="wildcard").tolist()
    [2, 3, 1, 2]
    """
    n = len(df)
    if check_missing(missing) == "value" or n == 0:
        return class_sizes(class_labels(df, columns))
    raw = [_codes_with_na(df[c].array, where=f"column {c!r}") for c in columns]
    if not any((codes < 0).any() for codes, _ in raw):
        return class_sizes(class_labels(df, columns))
    # distinct combinations (missing as one value) with their row counts: rows of one
    # combination have the same wildcard frequency
    labels = combine_codes([np.where(codes < 0, m, codes) for codes, m in raw], n)
    weight = np.bincount(labels)
    first = np.zeros(len(weight), dtype=np.int64)
    first[labels] = np.arange(n)  # any row of a combination will do
    codes = np.stack([c[first] for c, _ in raw], axis=1)  # (combinations, columns)
    return _wildcard_counts(codes, weight, list(columns))[labels]


def weighted_frequencies(df: pd.DataFrame, columns: Sequence, weights: np.ndarray, *,
                         missing: str = "value") -> tuple[np.ndarray, np.ndarray]:
    """``(f, F)`` per row: :func:`frequencies` and the sum of ``weights`` over the same rows
    (the row's class, or with ``missing="wildcard"`` the rows it matches).

    Example
    -------
    >>> df = pd.DataFrame({"a": [1, 1, 2, None]})
    >>> w = np.array([2.0, 3.0, 4.0, 10.0])
    >>> f, F = weighted_frequencies(df, ["a"], w, missing="wildcard")
    >>> f.tolist(), F.tolist()     # the missing cell matches every row
    ([3, 3, 2, 4], [15.0, 15.0, 14.0, 19.0])
    """
    n = len(df)
    w = np.asarray(weights, dtype=np.float64)
    raw = [_codes_with_na(df[c].array, where=f"column {c!r}") for c in columns]
    wildcard = check_missing(missing) == "wildcard" and any((c < 0).any() for c, _ in raw)
    if not wildcard or n == 0:
        labels = class_labels(df, columns)
        return class_sizes(labels), np.bincount(labels, weights=w)[labels]
    labels = combine_codes([np.where(codes < 0, m, codes) for codes, m in raw], n)
    rows = np.bincount(labels)
    mass = np.bincount(labels, weights=w)
    first = np.zeros(len(rows), dtype=np.int64)
    first[labels] = np.arange(n)
    codes = np.stack([c[first] for c, _ in raw], axis=1)
    f = _wildcard_counts(codes, rows, list(columns))
    F = _wildcard_counts(codes, mass, list(columns), integer=False)
    return f[labels], F[labels]


def _wildcard_counts(codes: np.ndarray, weight: np.ndarray, names, *,
                     integer: bool = True) -> np.ndarray:
    """Wildcard frequency of every distinct combination (row of ``codes``, -1 missing)
    weighted by ``weight`` rows each (``integer=False``: a sum of weights, as floats)."""
    from pdanon._errors import InvalidInputError

    G, q = codes.shape
    na = codes < 0
    pattern = combine_codes([na[:, j].astype(np.int64) for j in range(q)], G)
    P = int(pattern.max()) + 1
    if P > WILDCARD_MAX_PATTERNS:
        raise InvalidInputError(
            f"missing='wildcard' costs one group-by per pair of missingness patterns, and the "
            f"rows lack {P} different sets of the quasi-identifiers {list(names)} (at most "
            f"{WILDCARD_MAX_PATTERNS}); use missing='value', or fewer quasi-identifiers"
        )
    members = [np.flatnonzero(pattern == p) for p in range(P)]
    absent = [na[m[0]] for m in members]  # the columns each pattern lacks
    # combinations of one pattern differ where the pattern is present: each matches itself only
    w = weight.astype(np.float64)
    out = w.copy()
    for p in range(P):
        for r in range(p + 1, P):
            both = np.flatnonzero(~absent[p] & ~absent[r])
            rows = np.concatenate([members[p], members[r]])
            key = combine_codes([codes[rows, j] for j in both], len(rows))
            kp, kr = key[:len(members[p])], key[len(members[p]):]
            width = int(key.max()) + 1
            out[members[p]] += np.bincount(kr, weights=w[members[r]], minlength=width)[kp]
            out[members[r]] += np.bincount(kp, weights=w[members[p]], minlength=width)[kr]
    return np.rint(out).astype(np.int64) if integer else out
