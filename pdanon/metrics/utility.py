"""Utility metrics: how much of the data's information an anonymized table keeps.

All functions take DataFrames. Quasi-identifiers default to the roles remembered by the frame
(``df.anon.with_schema`` or an earlier pdanon step), else every column; pass a list of names or
``{name: kind}`` to choose. Functions comparing two frames match rows by index (the anonymized
frame keeps the original's index; rows it dropped are left out of the comparison).

Missing cells: the measures over equivalence classes (average class size, distinctness,
entropies) group with a missing cell as a value of its own (``missing="value"``, the only
choice; ``"wildcard"`` forms no classes and is refused). The cell comparisons (changed
proportion, by-element distance) count a cell missing in both frames as unchanged (distance
0) and a present cell published missing - a suppressed cell - as fully changed (distance 1).

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"age": [30, 30, 40, 41]})
>>> average_class_size(df, ["age"])
1.3333333333333333
>>> non_uniform_entropy(df, ["age"])
1.5
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._groups import class_labels, refuse_wildcard
from pdanon.metrics import _cells
from pdanon.metrics._common import aligned, check_frame, quasi_identifier_kinds

__all__ = [
    "average_class_size",
    "by_element_distance",
    "changed_proportion",
    "distinctness",
    "entropy_information_loss",
    "microaggregation_loss",
    "non_uniform_entropy",
]


def _columns(df: pd.DataFrame, columns) -> list:
    if columns is None:
        return list(df.columns)
    return list(quasi_identifier_kinds(df, columns))


def average_class_size(df: pd.DataFrame, quasi_identifiers=None, *,
                       missing: str = "value") -> float:
    """Average equivalence class size: rows / number of distinct quasi-identifier combinations
    (missing equals missing). Higher means more rows hide together (less detail). 0.0 for an
    empty frame. [reference: ``average_equivalence_class_size``]

    Example
    -------
    >>> average_class_size(pd.DataFrame({"a": [1, 1, 2]}), ["a"])
    1.5
    """
    check_frame(df)
    refuse_wildcard(missing, "the average class size")
    qis = list(quasi_identifier_kinds(df, quasi_identifiers))
    n = len(df)
    if n == 0:
        return 0.0
    return n / (int(class_labels(df, qis).max()) + 1)


def distinctness(df: pd.DataFrame, columns=None, *, missing: str = "value") -> float:
    """Distinct rows / rows over ``columns`` (default: every column of the frame, i.e. the
    published rows). 1.0 means every row is unique. 0.0 for an empty frame.
    [reference: ``distinctness``]

    Example
    -------
    >>> distinctness(pd.DataFrame({"a": [1, 1, 2, 3]}))
    0.75
    """
    check_frame(df)
    refuse_wildcard(missing, "distinctness")
    cols = _columns(df, columns)
    n = len(df)
    if n == 0:
        return 0.0
    return (int(class_labels(df, cols).max()) + 1) / n


def _entropy_bits(labels: np.ndarray) -> float:
    if len(labels) == 0:
        return 0.0
    counts = np.bincount(labels)
    counts = counts[counts > 0]
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum()) + 0.0


def non_uniform_entropy(df: pd.DataFrame, quasi_identifiers=None, *,
                        missing: str = "value") -> float:
    """Shannon entropy (bits) of the distribution of whole quasi-identifier rows:
    ``-Σ p·log2 p`` over the distinct rows, p their frequencies. Higher = more detail kept.
    [reference: ``non_uniform_entropy``]

    Example
    -------
    >>> non_uniform_entropy(pd.DataFrame({"a": [1, 1, 2, 3]}), ["a"])
    1.5
    """
    check_frame(df)
    refuse_wildcard(missing, "the non-uniform entropy")
    qis = list(quasi_identifier_kinds(df, quasi_identifiers))
    return _entropy_bits(class_labels(df, qis))


def entropy_information_loss(original: pd.DataFrame, anonymized: pd.DataFrame,
                             quasi_identifiers=None, *, missing: str = "value") -> float:
    """``1 − H(anonymized) / H(original)`` with H the :func:`non_uniform_entropy` of the
    quasi-identifier rows: 0 = nothing lost, 1 = everything. 0.0 when the original has no
    entropy (a single distinct row). [reference: ``entropy_based_information_loss``]

    Example
    -------
    >>> orig = pd.DataFrame({"a": [1, 2, 3, 4]})
    >>> anon = pd.DataFrame({"a": [1, 1, 3, 3]})
    >>> entropy_information_loss(orig, anon, ["a"])
    0.5
    """
    refuse_wildcard(missing, "the entropy information loss")
    original = aligned(original, anonymized)
    qis = list(quasi_identifier_kinds(anonymized, quasi_identifiers, other=original))
    h0 = _entropy_bits(class_labels(original, qis))
    if h0 == 0:
        return 0.0
    return 1.0 - _entropy_bits(class_labels(anonymized, qis)) / h0


def changed_proportion(original: pd.DataFrame, anonymized: pd.DataFrame,
                       quasi_identifiers=None) -> float:
    """Changed quasi-identifier cells / all quasi-identifier cells. A cell is unchanged when
    the anonymized cell is the very same value (a cell missing in both frames is unchanged; a
    present cell published missing is changed; a range or set is a change even when it
    contains the value). [reference: ``changed_proportion``]

    Example
    -------
    >>> orig = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    >>> anon = pd.DataFrame({"a": [1, 2], "b": ["x", None]})
    >>> changed_proportion(orig, anon, ["a", "b"])
    0.25
    """
    original = aligned(original, anonymized)
    kinds = quasi_identifier_kinds(anonymized, quasi_identifiers, other=original)
    n = len(anonymized)
    if n == 0 or not kinds:
        return 0.0
    changed = 0
    for c, k in kinds.items():
        changed += int((~_cells.equal_cells(original[c], anonymized[c], k)).sum())
    return changed / (n * len(kinds))


# --------------------------------------------------------------------------- by-element distance


def _uniform_abs_diff(a1, a2, b1, b2):
    """E|X − Y| for X ~ U[a1, a2], Y ~ U[b1, b2] (a2 > a1, b2 > b1)."""
    def phi(u):
        return np.abs(u) ** 3 / 6.0

    return (phi(a2 - b1) - phi(a1 - b1) - phi(a2 - b2) + phi(a1 - b2)) / ((a2 - a1) * (b2 - b1))


def _interval_distance(a: _cells.Intervals, b: _cells.Intervals, scale: float) -> np.ndarray:
    """Per-row distance of two interval columns on one scale (ranks or values)."""
    n = len(a.lo)
    d = np.zeros(n)
    one_na = a.na ^ b.na
    both = ~a.na & ~b.na
    ra = a.is_range
    rb = b.is_range
    pp = both & ~ra & ~rb
    d[pp] = np.abs(a.lo[pp] - b.lo[pp]) / scale
    # value vs range [b1, b2]: ((a − b1)² + (a − b2)²) / (2·scale·(b2 − b1))
    for x, r, mask in ((a, b, both & ~ra & rb), (b, a, both & ra & ~rb)):
        v = x.lo[mask]
        lo, hi = r.lo[mask], r.hi[mask]
        d[mask] = ((v - lo) ** 2 + (v - hi) ** 2) / (2 * scale * (hi - lo))
    rr = both & ra & rb
    if rr.any():
        d[rr] = _uniform_abs_diff(a.lo[rr], a.hi[rr], b.lo[rr], b.hi[rr]) / scale
    d[one_na] = 1.0
    return d


def _real_distance(orig: pd.Series, anon: pd.Series) -> np.ndarray:
    a, b = _cells.interval_pair(orig, anon, "real")
    vals = np.concatenate([a.lo[~a.na], a.hi[~a.na]])
    span = float(vals.max() - vals.min()) if len(vals) else 0.0
    if span == 0:
        # the reference returns 0 for a constant column; a suppressed cell still counts 1
        return (a.na ^ b.na).astype(np.float64)
    return _interval_distance(a, b, span)


def _ordered_distance(orig: pd.Series, anon: pd.Series) -> np.ndarray:
    a, b = _cells.interval_pair(orig, anon, "ordered")
    n = len(a.lo)
    if n <= 1:
        return (a.na ^ b.na).astype(np.float64)
    # rank of x: its first position among the sorted original values (a range contributes its
    # two ends, as in the reference)
    ref = np.sort(np.concatenate([a.lo[~a.na & ~a.is_range], a.lo[a.is_range],
                                  a.hi[a.is_range]]))

    def rank(x):
        out = np.searchsorted(ref, np.nan_to_num(x, nan=0.0), side="left").astype(np.float64)
        return out

    ra = _cells.Intervals(rank(a.lo), rank(a.hi), a.na)
    rb = _cells.Intervals(rank(b.lo), rank(b.hi), b.na)
    return _interval_distance(ra, rb, float(n - 1))


def _unordered_distance(orig: pd.Series, anon: pd.Series) -> np.ndarray:
    a, b = _cells.set_pair(orig, anon)
    n = len(a.codes)
    d = np.zeros(n)
    one_na = a.na ^ b.na
    both = ~a.na & ~b.na
    pp = both & ~a.is_set & ~b.is_set
    d[pp] = (a.codes[pp] != b.codes[pp]).astype(np.float64)
    # value vs set B: 1 − 1/|B| if the value is in B, else 0 (as the reference computes)
    for x, s, mask in ((a, b, both & ~a.is_set & b.is_set), (b, a, both & a.is_set & ~b.is_set)):
        rows = np.flatnonzero(mask)
        if len(rows):
            inside = s.holds(rows, x.codes[rows])
            size = s.sizes()[rows]
            d[rows] = np.where(inside, 1.0 - 1.0 / size, 0.0)
    ss = np.flatnonzero(both & a.is_set & b.is_set)
    if len(ss):
        inter = a.common(b, ss)
        union = a.sizes()[ss] + b.sizes()[ss] - inter
        d[ss] = 1.0 - inter / union
    d[one_na] = 1.0
    return d


_BY_KIND = {"real": _real_distance, "ordered": _ordered_distance,
            "unordered": _unordered_distance}


def by_element_distance(original: pd.DataFrame, anonymized: pd.DataFrame,
                        quasi_identifiers=None, *, per_column: bool = False):
    """Mean over quasi-identifier columns of the mean over rows of a cell distance in [0, 1]
    between the original and the anonymized cell. [reference: ``my_by_element_distance``]

    Cell distances (M, m: max and min of the original column; r(x): first position of x among
    the n sorted original values; n the row count):

    * missing vs value → 1 (a suppressed cell loses everything); missing vs missing → 0 (a
      cell missing in the original and in the release loses nothing);
    * real: |a − b|/(M − m); value a vs range [b1, b2]: ((a−b1)² + (a−b2)²)/(2·(M−m)·(b2−b1));
      a constant column contributes 0;
    * ordered: the same on ranks r(·) with (n − 1) in place of (M − m);
    * unordered: a ≠ b; value a vs set B: 1 − 1/|B| if a ∈ B else 0 (the reference's formula);
      set vs set: 1 − |A∩B|/|A∪B|;
    * range vs range (the reference leaves it out, i.e. 0): E|X − Y| / (M − m) for X, Y uniform
      on the two ranges (pdanon's extension; it equals the value-vs-range formula in the limit
      of a range shrinking to a value inside the other).

    ``per_column=True`` returns a Series of the per-column means instead of their mean.

    Example
    -------
    >>> orig = pd.DataFrame({"x": [1, 1, 2, 3]})
    >>> anon = pd.DataFrame({"x": [1, 1, 2.5, 2.5]})
    >>> by_element_distance(orig, anon, {"x": "real"})
    0.125
    """
    original = aligned(original, anonymized)
    kinds = quasi_identifier_kinds(anonymized, quasi_identifiers, other=original)
    per = {}
    for c, k in kinds.items():
        d = _BY_KIND[k](original[c], anonymized[c])
        per[c] = float(d.mean()) if len(d) else 0.0
    if per_column:
        return pd.Series(per, name="by_element_distance", dtype=np.float64)
    return float(np.mean(list(per.values()))) if per else 0.0


def by_element_distances(original: pd.DataFrame, anonymized: pd.DataFrame,
                         quasi_identifiers=None) -> pd.DataFrame:
    """The cell distances of :func:`by_element_distance` themselves, one column per
    quasi-identifier, indexed like the anonymized frame.

    Example
    -------
    >>> orig = pd.DataFrame({"x": ["a", "b"]})
    >>> by_element_distances(orig, pd.DataFrame({"x": ["a", None]}), ["x"])["x"].tolist()
    [0.0, 1.0]
    """
    original = aligned(original, anonymized)
    kinds = quasi_identifier_kinds(anonymized, quasi_identifiers, other=original)
    return pd.DataFrame({c: _BY_KIND[k](original[c], anonymized[c]) for c, k in kinds.items()},
                        index=anonymized.index)


def microaggregation_loss(original: pd.DataFrame, anonymized: pd.DataFrame,
                          quasi_identifiers=None) -> dict:
    """sdcMicro's information loss of a perturbed release over its real and ordered
    quasi-identifiers (ordered ones through their mid-ranks; unordered ones are left out),
    present cells only: ``{"sse", "sst", "sse_sst", "il1s"}`` with SSE/SST on standardized
    columns and IL1s the mean of ``|x - x'| / (sqrt(2) * S_j)``. The same figures
    ``df.anon.microaggregate`` puts in ``info`` (see
    :func:`pdanon.perturb.microaggregation.information_loss`).

    Example
    -------
    >>> orig = pd.DataFrame({"x": [1.0, 3.0, 5.0, 7.0]})
    >>> loss = microaggregation_loss(orig, pd.DataFrame({"x": [2.0, 2.0, 6.0, 6.0]}), ["x"])
    >>> loss["sse_sst"], round(loss["il1s"], 4)
    (0.2, 0.2739)
    """
    from pdanon.perturb.microaggregation import information_loss, loss_pair

    original = aligned(original, anonymized)
    kinds = quasi_identifier_kinds(anonymized, quasi_identifiers, other=original)
    pairs = {c: loss_pair(original[c], anonymized[c], k) for c, k in kinds.items()}
    return information_loss({c: p for c, p in pairs.items() if p is not None})
