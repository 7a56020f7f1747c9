"""Linked tables: several tables of one frame, protected together.

Tables built from one frame share cells — region × sex and region × age both hold each
region's total — and protecting each alone is unsafe: a cell withheld in one table may be
published in the other, or the two tables' equations together may recompute a cell that each
table alone protects. :func:`link` joins the tables: their distinct cells (a cell two tables
share is one cell, :mod:`pdanon.tables.union`), every table's equations on them, the primary
levels of each table (the same on a shared cell) — one problem, solved by the same methods
as a single table (:func:`pdanon.tables.suppress.solve`) and verified against the attacker
who knows every table at once. A shared cell gets one status in every table.

>>> import pandas as pd
>>> import pdanon
>>> df = pd.DataFrame({"r": list("NNNNNNSSSSSSSS"), "s": list("fmmmmmffffmmmm"),
...                    "a": list("xxxyyyxxxxyyyy")})
>>> p = link(df.anon.table(index="r", columns="s"),
...          df.anon.table(index="r", columns="a")).protect({"min_frequency": 3})
>>> p.audit.ok, [t.audit.ok for t in p.tables]
(True, [True, True])
>>> p.cells.loc[p.cells.status != "safe", ["r", "s", "a", "status"]].values.tolist()
[['N', 'f', 'Total', 'primary'], ['N', 'm', 'Total', 'secondary'], ['S', 'f', 'Total', 'secondary'], ['S', 'm', 'Total', 'secondary']]
>>> p.cells.loc[p.cells.tables.map(len) == 2, ["r", "s", "a", "status"]].values.tolist()
[['N', 'Total', 'Total', 'safe'], ['S', 'Total', 'Total', 'safe'], ['Total', 'Total', 'Total', 'safe']]
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.tables.protected import ProtectedTable, ProtectedTables
from pdanon.tables.rules import check_rules, primary
from pdanon.tables.suppress import (Problem, check, closed_cells, models_singletons, solve,
                                    statuses)
from pdanon.tables.suppress import protect as protect_one
from pdanon.tables.union import CellUnion, merge_levels, union_of

__all__ = ["LinkedTables", "link", "protect"]


class LinkedTables:
    """Tables of one frame, to protect together (build it with :func:`link`).

    ``tables``: the tables, in order; ``cells``: one row per distinct cell (a column per
    variable of any table, ``"Total"`` where a table sums the variable out, ``value``,
    ``frequency``, ``tables``: the positions of the tables holding it); ``constraints``:
    every table's additivity equations on the distinct cells; ``union``: all of it
    (:class:`pdanon.tables.union.CellUnion`).
    """

    def __init__(self, union: CellUnion):
        self.union = union
        self.tables = list(union.tables)

    @property
    def cells(self) -> pd.DataFrame:
        return self.union.cells

    @property
    def constraints(self):
        return self.union.A

    def __repr__(self) -> str:
        return (f"<LinkedTables: {len(self.tables)} tables, {len(self.cells)} distinct cells "
                f"({sum(len(t.cells) for t in self.tables)} in all)>")

    def protect(self, rules=None, *, method: str = "optimal", cost: str = "value",
                time_limit: float = 60.0, singletons="auto",
                secondary_zeros: bool = False) -> ProtectedTables:
        """Primary suppression by ``rules`` in every table, then secondary suppression of all
        the tables together by ``method`` (as :meth:`pdanon.tables.Table.protect`, with the
        same ``singletons`` and ``secondary_zeros``), verified against the attacker who knows
        every table; returns :class:`ProtectedTables`."""
        check(method, cost, time_limit, singletons, secondary_zeros)
        start = time.perf_counter()
        u = self.union
        levels = merge_levels(u, [primary(t, rules) for t in self.tables])
        holder = None
        if models_singletons(self.tables[0], singletons):  # one frame: one holder per cell
            holder = np.full(len(u.x), -1, dtype=np.int64)
            for t, idx in zip(self.tables, u.ids):
                holder[idx] = t.sole_holder()
        keys = u.cells[[c for c in u.cells.columns if c not in ("value", "frequency", "tables")]]
        prob = Problem(u.A, u.x, levels, near=u.neighbourhood, holder=holder,
                       closed=closed_cells(u.cells, levels, secondary_zeros, u.A),
                       keys=keys)
        withheld, info = solve(prob, method=method, cost=cost, time_limit=time_limit,
                               start=start)
        info["rules"] = check_rules(rules, is_count=u.is_count)
        info["tables"] = len(self.tables)
        members = []
        for t, idx in zip(self.tables, u.ids):
            lv = levels.iloc[idx].set_axis(t.cells.index)
            cells = statuses(t.cells, lv, withheld[idx])
            x, hid = u.x[idx], withheld[idx]
            mine = dict(info, linked=True, primary=int((cells.status == "primary").sum()),
                        secondary=int((cells.status == "secondary").sum()),
                        withheld_value=float(x[hid].sum()),
                        withheld_share=float(x[hid].sum() / x.sum()) if x.sum() > 0 else 0.0)
            members.append(ProtectedTable(t, cells, mine))
        out = ProtectedTables(members, statuses(u.cells, levels, withheld), info, u)
        out.certificates = prob.certificates
        return out


def link(*tables) -> LinkedTables:
    """Join tables built from the same frame (``df.anon.table``), with the same ``aggfunc``,
    ``values`` and ``contributor``, to protect them together; tables from different frames
    are refused. Two cells are the same when they cover the same rows by construction (for
    each variable, the same values; a variable a table does not use is its total), whatever
    each table's hierarchy. ``link([t1, t2])`` works too.

    Example
    -------
    >>> import pandas as pd
    >>> import pdanon
    >>> df = pd.DataFrame({"r": list("aabb"), "s": list("fmff"), "g": list("xyyy")})
    >>> link(df.anon.table(index="r", columns="s"), df.anon.table(index="g"))
    <LinkedTables: 2 tables, 11 distinct cells (12 in all)>
    """
    if len(tables) == 1 and isinstance(tables[0], (list, tuple)):
        tables = tuple(tables[0])
    return LinkedTables(union_of(tables))


def protect(table, rules=None, *, method: str = "optimal", cost: str = "value",
            time_limit: float = 60.0, singletons="auto", secondary_zeros: bool = False):
    """Primary suppression by ``rules``, secondary suppression by ``method``, verified by the
    audit. ``table`` is a table (returns a :class:`pdanon.tables.ProtectedTable`), or a list
    of tables of one frame or :class:`LinkedTables` (protected together: returns
    :class:`pdanon.tables.ProtectedTables`). See :func:`pdanon.tables.suppress.protect`.

    Example
    -------
    >>> import pandas as pd
    >>> import pdanon
    >>> df = pd.DataFrame({"r": list("aabbbb"), "s": list("fmfmfm"), "g": list("xyxyxx")})
    >>> p = protect([df.anon.table(index="r", columns="s"), df.anon.table(index="r",
    ...             columns="g")], {"min_frequency": 2})
    >>> type(p).__name__, len(p.tables), p.audit.ok
    ('ProtectedTables', 2, True)
    """
    if isinstance(table, (list, tuple)):
        table = link(*table)
    if isinstance(table, LinkedTables):
        return table.protect(rules, method=method, cost=cost, time_limit=time_limit,
                             singletons=singletons, secondary_zeros=secondary_zeros)
    if not hasattr(table, "dims"):
        raise InvalidInputError(
            f"protect: expected a table (df.anon.table(...)) or a list of tables of one "
            f"frame, got {type(table).__name__}")
    return protect_one(table, rules, method=method, cost=cost, time_limit=time_limit,
                       singletons=singletons, secondary_zeros=secondary_zeros)
