"""Risk metrics: how much an attacker who knows a person's quasi-identifiers learns.

Privacy levels (max k, max l, min t) and their checks, and Brickell & Shmatikov's (2008, §4.4)
adversarial knowledge gain and adversarial accuracy gain, and the frequency of every record.
Quasi-identifiers and sensitive columns default to the roles remembered by the frame.

``missing=`` says what a missing quasi-identifier cell (NaN, None, pd.NA, NaT, a suppressed
cell) matches: ``"value"`` (default) - only another missing cell, so rows form disjoint
equivalence classes; ``"wildcard"`` (sdcMicro's) - any value, for the frequency measures
(:func:`frequencies`, :func:`k_anonymity`, :func:`is_k_anonymous`); the class-based measures
(l, t, adversarial gains) refuse it with a clear error.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
>>> adversarial_knowledge_gain(df, ["zip"], ["d"])
0.25
>>> adversarial_accuracy_gain(df, ["zip"], ["d"])
0.0
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon import _groups
from pdanon._groups import class_labels
from pdanon import distributions as _dist
from pdanon.metrics._common import check_frame, quasi_identifier_kinds, sensitive_spec

__all__ = [
    "adversarial_accuracy_gain",
    "adversarial_knowledge_gain",
    "frequencies",
    "is_k_anonymous",
    "is_l_diverse",
    "is_t_close",
    "k_anonymity",
    "l_diversity",
    "t_closeness",
]


def _qis(df, quasi_identifiers):
    return list(quasi_identifier_kinds(df, quasi_identifiers))


def frequencies(df: pd.DataFrame, quasi_identifiers=None, *, missing: str = "value"
                ) -> pd.Series:
    """How many rows (itself included) share every row's quasi-identifiers, indexed like
    ``df`` (sdcMicro's ``fk``).

    ``missing="value"``: the size of the row's equivalence class (a missing cell is a value of
    its own). ``missing="wildcard"``: the number of rows that agree with the row on every
    quasi-identifier where both are present (sdcMicro's ``freqCalc`` with ``alpha=1``); never
    lower. Cost and limits: :func:`pdanon._groups.frequencies`.

    Example
    -------
    >>> df = pd.DataFrame({"age": [30, 30, 40, None], "sex": ["F", None, "F", "M"]})
    >>> frequencies(df, ["age", "sex"]).tolist()
    [1, 1, 1, 1]
    >>> frequencies(df, ["age", "sex"], missing="wildcard").tolist()
    [2, 3, 1, 2]
    """
    check_frame(df)
    qis = _qis(df, quasi_identifiers)
    return pd.Series(_groups.frequencies(df, qis, missing=missing), index=df.index,
                     name="frequency")


def k_anonymity(df: pd.DataFrame, quasi_identifiers=None, *, missing: str = "value") -> int:
    """Largest k for which ``df`` is k-anonymous: the smallest :func:`frequencies` (with
    ``missing="value"``, the smallest equivalence class). [reference: ``find_k_anonimus``]

    Example
    -------
    >>> k_anonymity(pd.DataFrame({"a": [1, 1, 2, 2, 2]}), ["a"])
    2
    >>> k_anonymity(pd.DataFrame({"a": [1, 1, None]}), ["a"], missing="wildcard")
    3
    """
    from pdanon import models

    check_frame(df)
    return models.k_anonymity(df, _qis(df, quasi_identifiers), missing=missing)


def l_diversity(df: pd.DataFrame, quasi_identifiers=None, sensitive=None, *,
                variant: str = "distinct", c: float | None = None, missing: str = "value",
                missing_sensitive: str = "unknown"):
    """Largest l for which ``df`` is l-diverse (see :func:`pdanon.models.l_diversity`;
    ``missing_sensitive="unknown"``: a missing sensitive cell is no value).
    [reference: ``find_l_diverse`` for ``variant="distinct"``]

    Example
    -------
    >>> l_diversity(pd.DataFrame({"a": [1, 1, 2, 2], "s": ["x", "y", "x", "z"]}), ["a"], ["s"])
    2
    """
    from pdanon import models

    check_frame(df)
    _groups.refuse_wildcard(missing, "l-diversity")
    return models.l_diversity(df, _qis(df, quasi_identifiers), sensitive_spec(df, sensitive),
                              variant=variant, c=c, missing_sensitive=missing_sensitive)


def t_closeness(df: pd.DataFrame, quasi_identifiers=None, sensitive=None, *,
                distance: str = "emd", kinds=None, hierarchies=None,
                missing: str = "value", missing_sensitive: str = "unknown") -> float:
    """Smallest t for which ``df`` is t-close (see :func:`pdanon.models.t_closeness`;
    ``missing_sensitive="unknown"``: known values against the table's known values).
    [reference: ``find_t_close`` for ``distance="reference"``]

    Example
    -------
    >>> t_closeness(pd.DataFrame({"a": [1, 1, 2, 2], "s": ["x", "y", "x", "x"]}), ["a"], ["s"])
    0.25
    """
    from pdanon import models

    check_frame(df)
    _groups.refuse_wildcard(missing, "t-closeness")
    return models.t_closeness(df, _qis(df, quasi_identifiers), sensitive_spec(df, sensitive),
                              distance=distance, kinds=kinds, hierarchies=hierarchies,
                              missing_sensitive=missing_sensitive)


def is_k_anonymous(df: pd.DataFrame, k: int, quasi_identifiers=None, *,
                   missing: str = "value") -> bool:
    """Is every row's frequency at least ``k`` (with ``missing="value"``: every equivalence
    class at least ``k`` rows)? [reference: ``is_k_anonimus``]

    Example
    -------
    >>> is_k_anonymous(pd.DataFrame({"a": [1, 1, 2]}), 2, ["a"])
    False
    """
    from pdanon import models

    model = models.KAnonymity(k)
    check_frame(df)
    qis = _qis(df, quasi_identifiers)
    return len(df) == 0 or models.k_anonymity(df, qis, missing=missing) >= model.k


def is_l_diverse(df: pd.DataFrame, l, quasi_identifiers=None, sensitive=None, *,
                 k: int | None = None, variant: str = "distinct", c: float | None = None,
                 missing: str = "value") -> bool:
    """Is every class l-diverse (and, when ``k`` is given, at least ``k`` rows, as the
    reference's ``is_l_diverse(qi, s, k, l)`` requires)?

    Example
    -------
    >>> is_l_diverse(pd.DataFrame({"a": [1, 1], "s": ["x", "y"]}), 2, ["a"], ["s"], k=2)
    True
    """
    from pdanon import models

    _groups.refuse_wildcard(missing, "l-diversity")
    qis = _qis(df, quasi_identifiers)
    ok = models.LDiversity(l, variant=variant, c=c).holds(df, qis, sensitive_spec(df, sensitive))
    return ok and (k is None or models.KAnonymity(k).holds(df, qis))


def is_t_close(df: pd.DataFrame, t: float, quasi_identifiers=None, sensitive=None, *,
               k: int | None = None, distance: str = "emd", hierarchies=None,
               missing: str = "value") -> bool:
    """Is every class within distance ``t`` of the table (and at least ``k`` rows when ``k`` is
    given, as the reference's ``is_t_close`` requires)?

    Example
    -------
    >>> is_t_close(pd.DataFrame({"a": [1, 1], "s": ["x", "y"]}), 0.0, ["a"], ["s"])
    True
    """
    from pdanon import models

    _groups.refuse_wildcard(missing, "t-closeness")
    qis = _qis(df, quasi_identifiers)
    model = models.TCloseness(t, distance=distance, hierarchies=hierarchies)
    ok = model.holds(df, qis, sensitive_spec(df, sensitive))
    return ok and (k is None or models.KAnonymity(k).holds(df, qis))


def _pairs_per_column(df, quasi_identifiers, sensitive, labels=None):
    check_frame(df)
    spec = _dist.sensitive_kinds(df, sensitive_spec(df, sensitive))
    if not spec:
        from pdanon._errors import InvalidInputError

        raise InvalidInputError("this metric needs a sensitive column: pass sensitive=[...]")
    if labels is None:
        labels = class_labels(df, _qis(df, quasi_identifiers))
    G = int(labels.max()) + 1 if len(labels) else 0
    for c, k in spec.items():
        col = _dist.SensitiveColumn.from_values(df[c], "unordered", name=c)
        yield col, _dist.PairCounts.from_codes(labels, col.codes, col.m, G)


def adversarial_knowledge_gain(df: pd.DataFrame, quasi_identifiers=None, sensitive=None, *,
                               labels=None, missing: str = "value") -> float:
    """Brickell & Shmatikov (2008, §4.4) knowledge gain: the average, over rows, of the total
    variation distance ½·Σ_s|p(s | class) − p(s)| between the sensitive values of the row's
    equivalence class and of the whole table, i.e. Σ_classes |class|/n · TV(class, table).
    0 = the classes reveal nothing beyond the table's distribution; 1 = full disclosure.
    Several sensitive columns: the largest value. [reference: ``adversarial_knowledge_gain``]

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "a", "b", "b"]})
    >>> adversarial_knowledge_gain(df, ["zip"], ["d"])
    0.5
    """
    _groups.refuse_wildcard(missing, "the adversarial knowledge gain")
    return _largest_share(df, quasi_identifiers, sensitive, labels,
                          lambda col, pairs: (_dist.total_variation(pairs, col)
                                              * pairs.sizes).sum())


def adversarial_accuracy_gain(df: pd.DataFrame, quasi_identifiers=None, sensitive=None, *,
                              labels=None, missing: str = "value") -> float:
    """Brickell & Shmatikov (2008, §4.4) accuracy gain: how much more often an attacker guesses
    a person's sensitive value right by taking the most frequent value of the person's
    equivalence class instead of the table's most frequent value:
    (Σ_classes max_s count(s, class) − max_s count(s)) / n. 0 = no gain.
    Several sensitive columns: the largest value. [reference: ``adversarial_accuracy_gain``]

    Example
    -------
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "a", "b", "b"]})
    >>> adversarial_accuracy_gain(df, ["zip"], ["d"])
    0.5
    """
    def gain(col, pairs):
        starts = np.flatnonzero(pairs.first_in_class())
        top = np.maximum.reduceat(pairs.count, starts)  # pairs are sorted by class
        return top.sum() - col.global_counts.max()

    _groups.refuse_wildcard(missing, "the adversarial accuracy gain")
    return _largest_share(df, quasi_identifiers, sensitive, labels, gain)


def _largest_share(df, quasi_identifiers, sensitive, labels, rows_of) -> float:
    """The largest ``rows_of(column, pairs) / n`` over the sensitive columns (0 when empty)."""
    n = len(df)
    if n == 0:
        return 0.0
    return max((float(rows_of(col, pairs) / n) for col, pairs in
                _pairs_per_column(df, quasi_identifiers, sensitive, labels)), default=0.0)
