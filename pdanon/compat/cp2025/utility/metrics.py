"""``cp2025.utility.metrics``: the reference's risk and utility metrics on 2-D arrays, as
wrappers over :mod:`pdanon.metrics` (vectorized; no per-row Python loops).

Arrays are rows × columns (object arrays may hold :class:`~pdanon.dtype.GeneralizationRange`
cells and ``nan`` for suppressed cells); sensitive arrays are rows × sensitive columns (1-D for
the adversarial gains). t-closeness uses the reference's distances: Jensen–Shannon divergence
(natural log) for ordered/unordered columns, 1-D Wasserstein distance / (max − min + 1e-10)
for real ones (``always_use_entropy``: Jensen–Shannon for all).

Example
-------
>>> import numpy as np
>>> qi = np.array([[1, "a"], [1, "a"], [2, "b"], [2, "b"]], dtype=object)
>>> find_k_anonimus(qi), average_equivalence_class_size(qi)
(2, 2.0)
>>> find_l_diverse(qi, np.array([["x"], ["y"], ["x"], ["x"]], dtype=object))
1
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon import metrics as _m
from pdanon.algorithms.groupjoin import categorical_sample_distance, real_sample_distance
from pdanon.compat.cp2025.utility._frames import as_table as _table
from pdanon.compat.cp2025.utility._frames import blocks_frame as _frame
from pdanon.compat.cp2025.utility.GeneralizationRange import GeneralizationRange  # noqa: F401
from pdanon.compat.cp2025.utility.prepare_data import is_nan  # noqa: F401

__all__ = [
    "adversarial_accuracy_gain",
    "adversarial_knowledge_gain",
    "average_equivalence_class_size",
    "categorical_sample_distance",
    "changed_proportion",
    "distinctness",
    "entropy_based_information_loss",
    "find_k_anonimus",
    "find_l_diverse",
    "find_t_close",
    "get_count_dict",
    "get_elements_frequencies",
    "get_most_common_key_from_count_dict",
    "is_k_anonimus",
    "is_k_anonimus_v0",
    "is_l_diverse",
    "is_t_close",
    "my_by_element_distance",
    "my_by_element_distance_columns_ordered",
    "my_by_element_distance_columns_real",
    "my_by_element_distance_columns_unordered",
    "non_uniform_entropy",
    "real_sample_distance",
]


# ============================================================================ conversions


def _t_distance(always_use_entropy: bool) -> str:
    return "jensen_shannon" if always_use_entropy else "reference"


def _s_kinds(labels, sensitives_types, always_use_entropy=False) -> dict:
    types = list(sensitives_types) if sensitives_types is not None else ["unordered"] * len(labels)
    return {c: ("unordered" if always_use_entropy else k) for c, k in zip(labels, types)}


# ============================================================================ k, l, t


def is_k_anonimus(df, k):
    """Is every class of identical rows at least ``k`` rows?"""
    frame, (cols,) = _frame(df)
    return bool(_m.is_k_anonymous(frame, k, cols))


is_k_anonimus_v0 = is_k_anonimus


def find_k_anonimus(df):
    """The smallest class size (0 for no rows)."""
    frame, (cols,) = _frame(df)
    return int(_m.k_anonymity(frame, cols)) if len(frame) else 0


def is_l_diverse(quasi_identifiers, sensitives, k, l):
    """k-anonymous, and ≥ l distinct values of every sensitive column in every class?"""
    frame, (qi, s) = _frame(quasi_identifiers, sensitives)
    if not s:
        return bool(_m.is_k_anonymous(frame, k, qi))
    return bool(_m.is_l_diverse(frame, l, qi, {c: "unordered" for c in s}, k=k))


def find_l_diverse(quasi_identifiers, sensitives):
    """The smallest number of distinct sensitive values in a class (−1 without rows or
    sensitive columns, as the reference)."""
    frame, (qi, s) = _frame(quasi_identifiers, sensitives)
    if not s or not len(frame):
        return -1
    return int(_m.l_diversity(frame, qi, {c: "unordered" for c in s}))


def is_t_close(quasi_identifiers, sensitives, sensitives_types, k, t, always_use_entropy=False):
    """k-anonymous, and every class within distance ``t`` of the table in every sensitive
    column?"""
    frame, (qi, s) = _frame(quasi_identifiers, sensitives)
    if not s:
        return bool(_m.is_k_anonymous(frame, k, qi))
    return bool(_m.is_t_close(frame, t, qi, _s_kinds(s, sensitives_types, always_use_entropy),
                              k=k, distance=_t_distance(always_use_entropy)))


def find_t_close(quasi_identifiers, sensitives, sensitives_types, always_use_entropy=False):
    """The largest distance of a class's sensitive distribution to the table's."""
    frame, (qi, s) = _frame(quasi_identifiers, sensitives)
    if not s or not len(frame):
        return 0
    return float(_m.t_closeness(frame, qi, _s_kinds(s, sensitives_types, always_use_entropy),
                                distance=_t_distance(always_use_entropy)))


# ============================================================================ distributions


def get_elements_frequencies(array, elements_set):
    """Relative frequency in ``array`` of every element of ``elements_set`` (in its iteration
    order)."""
    keys = list(elements_set)
    values = np.empty(len(array), dtype=object)
    values[:] = list(array)
    k = np.empty(len(keys), dtype=object)
    k[:] = keys
    index = pd.Index(k)
    pos = index.get_indexer(values)
    if (pos < 0).any():
        raise KeyError(values[np.flatnonzero(pos < 0)[0]])
    return np.bincount(pos, minlength=len(keys)) / len(values)


def get_count_dict(l):
    """``{value: count}`` in order of first appearance."""
    values = np.empty(len(l), dtype=object)
    values[:] = list(l)
    codes, uniques = pd.factorize(values, use_na_sentinel=False)
    return dict(zip(uniques.tolist(), np.bincount(codes).tolist()))


def get_most_common_key_from_count_dict(counts):
    """The key with the highest count (the first such key)."""
    return max(counts, key=counts.get) if counts else -1


# ============================================================================ adversarial gains


def _gain(fn, depersonalized_qi, sensitives):
    s = np.asarray(sensitives, dtype=object).reshape(len(sensitives), -1)
    frame, (qi, sc) = _frame(depersonalized_qi, s)
    return float(fn(frame, qi, {c: "unordered" for c in sc}))


def adversarial_knowledge_gain(depersonalized_qi, sensitives):
    """Brickell & Shmatikov's adversarial knowledge gain (:mod:`pdanon.metrics`)."""
    return _gain(_m.adversarial_knowledge_gain, depersonalized_qi, sensitives)


def adversarial_accuracy_gain(depersonalized_qi, sensitives):
    """Brickell & Shmatikov's adversarial accuracy gain (:mod:`pdanon.metrics`)."""
    return _gain(_m.adversarial_accuracy_gain, depersonalized_qi, sensitives)


# ============================================================================ utility


def _one(fn, df) -> float:
    frame, (cols,) = _frame(df)
    return float(fn(frame, cols))


def _two(fn, initial_qi, qi) -> float:
    a, (cols,) = _frame(initial_qi)
    b, _ = _frame(qi)
    return float(fn(a, b, cols))


def average_equivalence_class_size(qi):
    """Rows / number of distinct rows."""
    return _one(_m.average_class_size, qi)


def distinctness(df):
    """Distinct rows / rows."""
    return _one(_m.distinctness, df)


def changed_proportion(initial_qi, qi):
    """Changed cells / all cells."""
    return _two(_m.changed_proportion, initial_qi, qi)


def non_uniform_entropy(df):
    """Shannon entropy (bits) of the distribution of whole rows."""
    return _one(_m.non_uniform_entropy, df)


def entropy_based_information_loss(initial_qi, qi):
    """1 − H(qi) / H(initial_qi) (0 when the original has no entropy)."""
    return _two(_m.entropy_information_loss, initial_qi, qi)


def _by_element(initial_qi, qi, kinds):
    a, (cols,) = _frame(initial_qi)
    b, _ = _frame(qi)
    if not cols or not len(a):
        return 0.0
    kinds = list(kinds) if kinds is not None else ["unordered"] * len(cols)
    return float(_m.by_element_distance(a, b, dict(zip(cols, kinds))))


def my_by_element_distance_columns_unordered(initial_qi, qi):
    """Mean cell distance of an unordered column; a 2-D input gives the mean over
    its columns."""
    return _by_element(initial_qi, qi, ["unordered"] * _table(qi).shape[1])


def my_by_element_distance_columns_ordered(initial_qi, qi):
    """Mean cell distance of an ordered column (ranks among the original values); a 2-D
    input gives the mean over its columns."""
    return _by_element(initial_qi, qi, ["ordered"] * _table(qi).shape[1])


def my_by_element_distance_columns_real(initial_qi, qi):
    """Mean cell distance of a real column (differences / (max − min)); a 2-D input gives
    the mean over its columns."""
    return _by_element(initial_qi, qi, ["real"] * _table(qi).shape[1])


def my_by_element_distance(initial_qi, qi, column_types=None):
    """Mean over columns of the mean cell distance, column kinds
    ``column_types`` (default unordered)."""
    return _by_element(initial_qi, qi, column_types)
