"""A table with its suppression pattern: what :func:`pdanon.tables.protect` returns.

>>> import pandas as pd
>>> from pdanon.tables import build
>>> p = build(pd.DataFrame({"g": list("aabbb")}), index="g").protect({"min_frequency": 3})
>>> p.to_frame().values.tolist()
[['a', <NA>, 'withheld'], ['b', <NA>, 'withheld'], ['Total', 5, 'published']]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["ProtectedTable"]


class ProtectedTable:
    """A table with its suppression pattern.

    ``cells``: the table's cells with ``status`` ("safe", "primary", "secondary"), the ``rule``
    a primary cell broke, its protection levels ``lower``/``upper``; ``table``: the
    :class:`pdanon.tables.Table`; ``audit``: the full audit of the pattern (computed on first
    use); ``info``: method, cost, whether the pattern is proven optimal, cells withheld and
    their value, seconds.

    A member of linked tables (one of :attr:`ProtectedTables.tables`) knows it: ``linked`` is
    its :class:`ProtectedTables` (None for a table protected alone) and ``position`` its
    place among them. Its ``audit`` is then the linked audit (the attacker who sees every
    table) restricted to its own cells, never the weaker single-table one, and
    ``pdanon.publish`` of it alone carries the linked audit's verdict.
    """

    def __init__(self, table, cells: pd.DataFrame, info: dict):
        self.table = table
        self.cells = cells
        self.info = info
        self.linked = None
        self.position = None
        self._audit = None
        #: per protection, the deviation that proves it (publisher-only; :func:`~pdanon.tables.verify`)
        self.certificates = None

    @property
    def audit(self):
        """The full audit (:func:`pdanon.tables.audit`): every withheld cell's exact range;
        for a member of linked tables, the linked audit's rows of its own cells. Computed on
        first use; :func:`~pdanon.tables.protect` has already verified each primary cell
        before returning."""
        if self._audit is None:
            from pdanon.tables.audit import audit
            self._audit = audit(self)
        return self._audit

    def __repr__(self) -> str:
        s = self.cells["status"].value_counts()
        return (f"<ProtectedTable: {len(self.cells)} cells, {int(s.get('primary', 0))} primary, "
                f"{int(s.get('secondary', 0))} secondary ({self.info['method']})>")

    def to_frame(self, *, marker=None) -> pd.DataFrame:
        """The publishable cells: withheld values are missing (or ``marker``), with a status
        column; the rule and protection levels stay with the publisher."""
        out = self.cells[self.table.dimensions + ["value", "status"]].copy()
        hidden = out["status"] != "safe"
        nullable = "Int64" if self.table.is_count else "Float64"
        out["value"] = out["value"].astype(object if marker is not None else nullable)
        out.loc[hidden, "value"] = marker if marker is not None else pd.NA
        out["status"] = np.where(hidden, "withheld", "published")
        return out


class ProtectedTables:
    """Linked tables (several tables of one frame) with one suppression pattern: what
    :meth:`pdanon.tables.LinkedTables.protect` returns.

    ``tables``: one :class:`ProtectedTable` per input table, in order (each has the usual
    ``cells``, ``to_frame()``, ``pivot()``); ``cells``: one row per distinct cell of all the
    tables (a column per variable, ``"Total"`` where a table sums the variable out, the value,
    frequency, ``tables`` holding it, status, rule, levels) — a cell two tables share has one
    status; ``audit``: the audit across all tables (:func:`pdanon.tables.audit`, computed on
    first use); ``info``: as a single table's; ``union``: the distinct cells and every table's
    equations on them (:func:`pdanon.tables.union.union_of`).
    """

    def __init__(self, tables: list, cells: pd.DataFrame, info: dict, union):
        self.tables = tables
        self.cells = cells
        self.info = info
        self.union = union
        self._audit = None
        self.certificates = None  # per protection, its deviation (publisher-only)
        for i, member in enumerate(tables):  # each member audits and publishes as linked
            member.linked, member.position = self, i

    @property
    def audit(self):
        """The audit across all the tables: every withheld cell's exact range given every
        table's published cells and equations, read from the members' own patterns (what
        each publishes). Computed on first use; the pattern has already been verified for
        each primary cell before it was returned."""
        if self._audit is None:
            from pdanon.tables.audit import audit
            self._audit = audit(self)
        return self._audit

    def __len__(self) -> int:
        return len(self.tables)

    def __getitem__(self, i: int) -> ProtectedTable:
        return self.tables[i]

    def __iter__(self):
        return iter(self.tables)

    def __repr__(self) -> str:
        s = self.cells["status"].value_counts()
        return (f"<ProtectedTables: {len(self.tables)} linked tables, {len(self.cells)} "
                f"distinct cells, {int(s.get('primary', 0))} primary, "
                f"{int(s.get('secondary', 0))} secondary ({self.info['method']})>")
