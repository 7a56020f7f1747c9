"""Shares of sensitive values in equivalence classes against the whole table's: what the
attribute-disclosure models read (β-likeness in :mod:`pdanon.models.likeness`, δ-disclosure
privacy in :mod:`pdanon.models.disclosure`, (α, k)-anonymity in :mod:`pdanon.models.alpha_k`).

Everything works on the distinct ``(class, value)`` pairs of a
:class:`~pdanon.distributions.ClassCounts` (``classes.pairs(j)``), all classes at once: for a
pair, ``q`` is the value's share of its class and ``p`` its share of the whole table
(``classes.columns[j].global_counts``, which a partitioner's candidate rows keep from the full
table). A value absent from a class has no pair; the models that care about absent values
(δ-disclosure) count the pairs of a class instead. Under ``missing_sensitive="unknown"`` (the
default of β-likeness and δ-disclosure) the models read ``classes.known()``: shares of known
values among a class's known values against their shares among the table's known values.

Example
-------
>>> from pdanon.distributions import ClassCounts, SensitiveColumn, SensitiveData
>>> col = SensitiveColumn.from_values(np.array(["a", "b", "a", "a"]), "unordered", name="s")
>>> cc = ClassCounts.from_labels(np.array([0, 0, 1, 1]), SensitiveData({"s": col}))
>>> pairs, q, p = pair_shares(cc, 0)
>>> q.tolist(), p.tolist()
([0.5, 0.5, 1.0], [0.75, 0.25, 0.75])
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon._groups import class_labels, refuse_wildcard
from pdanon.models.base import (PrivacyModel, check_missing_sensitive, check_qis, distributions,
                                read_by_rule, sensitive_data)


def table_shares(col) -> np.ndarray:
    """Share of every value code of a sensitive column in the whole table (0 for a code no
    row holds)."""
    counts = np.asarray(col.global_counts, dtype=np.float64)
    total = counts.sum()
    return counts / total if total else counts


def pair_shares(classes, j: int):
    """``(pairs, q, p)`` for sensitive column ``j``: the :class:`~pdanon.distributions.PairCounts`
    and, per pair, the value's share of its class (``q``) and of the whole table (``p``)."""
    pairs = classes.pairs(j)
    sizes = pairs.sizes[pairs.cls].astype(np.float64)  # values counted per class
    with np.errstate(divide="ignore", invalid="ignore"):
        q = pairs.count / sizes
    p = table_shares(classes.columns[j])[pairs.val]
    return pairs, q, p


def worst_per_class(values: np.ndarray, cls: np.ndarray, groups: int,
                    start: float = 0.0) -> np.ndarray:
    """The largest of ``values`` in every class (``start`` for a class with no pair)."""
    out = np.full(groups, start, dtype=np.float64)
    if len(values):
        np.maximum.at(out, cls, values)
    return out


def worst_over_columns(classes, per_column, what: str) -> np.ndarray:
    """``per_column(classes, j)`` (one float per class) maximized over the sensitive columns."""
    if not classes.columns:
        raise InvalidInputError(f"{what} needs at least one sensitive column: pass "
                                f"sensitive=[...] (or {{column: kind}})")
    out = np.zeros(classes.groups)
    for j in range(len(classes.columns)):
        out = np.maximum(out, per_column(classes, j))
    return out


def frame_classes(df: pd.DataFrame, quasi_identifiers, sensitive, missing: str, what: str,
                  missing_sensitive: str = "unknown"):
    """The :class:`~pdanon.distributions.ClassCounts` of ``df``'s equivalence classes over the
    ``sensitive`` columns (``None`` for an empty frame), after the checks every measure makes:
    ``missing="wildcard"`` is refused, unknown columns and a missing sensitive column named.
    Read by the rule ``missing_sensitive`` (:func:`~pdanon.models.base.read_by_rule`)."""
    rule = check_missing_sensitive(missing_sensitive)
    refuse_wildcard(missing, what)
    qis = check_qis(df, quasi_identifiers)
    data = sensitive_data(df, sensitive, what=what)
    if len(df) == 0:
        return None
    labels = class_labels(df, qis)
    return read_by_rule(distributions().ClassCounts.from_labels(labels, data), rule)


def require_table_context(context, what: str) -> None:
    """Models measured against the whole table's distribution need the context made by
    ``model.context(df, sensitive)`` (it carries that distribution)."""
    if not isinstance(context, distributions().SensitiveData):
        raise InvalidInputError(
            f"{what} measures classes against the whole table: pass the context made by "
            f"model.context(df, sensitive) (or its .take(rows)) to groups_ok"
        )


def check_positive(value, name: str, *, upper: float | None = None) -> float:
    """``value`` as a float > 0 (and <= ``upper``), or an error naming the parameter."""
    import numbers

    bad = isinstance(value, bool) or not isinstance(value, numbers.Real)
    if bad or not value > 0 or (upper is not None and not value <= upper) or value != value:
        bound = f"in (0, {upper:g}]" if upper is not None else "> 0"
        raise InvalidInputError(f"{name} must be a number {bound}, got {value!r}")
    return float(value)


class AgainstTable(PrivacyModel):
    """Base of the models that measure classes against the whole table's distribution
    (β-likeness, δ-disclosure privacy): their context carries that distribution, and
    ``groups_ok`` refuses one that does not. ``missing_sensitive`` (set by the subclass):
    how a missing sensitive cell is read (:data:`~pdanon.models.base.MISSING_SENSITIVE`)."""

    missing_sensitive = "unknown"

    def _read(self, classes):
        return read_by_rule(classes, self.missing_sensitive)

    def _rule_repr(self) -> str:
        rule = self.missing_sensitive
        return "" if rule == "unknown" else f", missing_sensitive={rule!r}"

    def context(self, df: pd.DataFrame, sensitive):
        """Encoded sensitive columns of ``df`` with the whole table's distributions."""
        return sensitive_data(df, sensitive, what=self.name)

    def groups_ok(self, labels: np.ndarray, context=None) -> np.ndarray:
        require_table_context(context, self.name)
        return super().groups_ok(labels, context)

    def check_feasible(self, df: pd.DataFrame, roles) -> None:
        # both models are preserved by merging classes, and the whole table as one class has
        # q = p for every value (gain 0, |ln 1| = 0), so every parameter > 0 is reachable;
        # only the inputs are checked here
        self.context(df, getattr(roles, "sensitive", roles))
