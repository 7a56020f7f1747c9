"""Verify a protected table by its certificates: fast, exact on the one question that matters
before a table leaves — does every primary cell keep its protection?

Every method's pattern passes the attacker's check before it is returned; the check keeps, for
each primary cell and direction (and each singleton holder's view), the *deviation* that
proves it: a change ``z`` of the table that keeps it additive (``A z = 0``) and non-negative,
moves the cell by its protection level and touches only withheld cells
(:func:`pdanon.tables.deviations.certify`). An attacker who sees the published cells cannot
tell the true table from the one moved by ``z``, so the cell's range reaches its level.

:func:`verify` re-checks those certificates against the pattern *as it leaves* (the cells'
statuses now, not when they were chosen) with sparse products and comparisons, no linear
program: a cell published since, a frozen cell moved, a level not reached — any of them fails
the verdict. The full audit (:func:`pdanon.tables.audit`) gives every withheld cell's exact
range instead, at two linear programs per cell (minutes on tens of thousands of cells).

>>> import pandas as pd
>>> from pdanon.tables import build
>>> df = pd.DataFrame({"r": list("aabbbccc"), "c": list("xyxyyxxy")})
>>> p = build(df, index="r", columns="c").protect({"min_frequency": 2})
>>> v = verify(p)
>>> v.ok, v.unsafe
(True, 0)
>>> p.cells.loc[p.cells.status == "secondary", "status"] = "safe"  # publish the secondaries
>>> verify(p).ok
False
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdanon._errors import InvalidInputError
from pdanon.tables.audit import TOL
from pdanon.tables.deviations import blocks

__all__ = ["Verdict", "verify"]


@dataclass(frozen=True)
class Verdict:
    """The verdict of :func:`verify`: ``ok``; ``withheld`` cells; ``unsafe`` primary cells
    (published, or with a protection no certificate still proves); ``checked`` certificates."""

    ok: bool
    withheld: int
    unsafe: int
    checked: int


def _linked_hidden(obj) -> np.ndarray:
    """Per distinct cell of linked tables: withheld in every table that holds it (a cell one
    table publishes is known)."""
    u = obj.union
    hidden = np.ones(len(u.x), dtype=bool)
    for member, idx in zip(obj.tables, u.ids):
        hidden[idx] &= (member.cells["status"] != "safe").to_numpy()
    return hidden


def verify(obj) -> Verdict:
    """Check a protected table (or linked tables, or a member of them: then the whole set)
    against its certificates, reading the pattern from its cells as they are now."""
    if getattr(obj, "linked", None) is not None:
        obj = obj.linked
    certs = getattr(obj, "certificates", None)
    if certs is None:
        raise InvalidInputError(
            "verify() needs a table protected by pdanon (table.protect(...) or "
            "pdanon.tables.link(...).protect(...)); audit a pattern made elsewhere with "
            "pdanon.tables.audit(table, suppressed, rules=...)")
    if hasattr(obj, "union"):
        A, x, hidden = obj.union.A, obj.union.x, _linked_hidden(obj)
    else:
        A = obj.table.constraints
        x = obj.table.cells["value"].to_numpy(dtype=np.float64)
        hidden = (obj.cells["status"] != "safe").to_numpy()
    levels = obj.cells[["status", "lower", "upper"]]
    A = A.astype(np.float64).tocsc()
    primary = (levels["status"] == "primary").to_numpy()
    bad = set(np.flatnonzero(primary & ~hidden).tolist())  # published: known exactly
    proven = set()
    for b, idx, z in certs:
        scale = 1.0 + float(np.abs(z).max(initial=0.0))
        ok = (hidden[idx].all()
              and not np.isin(idx, b.frozen).any()
              and np.abs(A[:, idx] @ z).max(initial=0.0) <= TOL * scale
              and (x[idx] + z >= -TOL * scale).all()
              and np.sign(b.level) * z[idx == b.cell].sum() >= abs(b.level) - TOL)
        if ok:
            proven.add((b.cell, b.level, b.frozen))
        else:
            bad.add(b.cell)
    for b in blocks(levels):  # every protection the levels ask for has its certificate
        if (b.cell, b.level, ()) not in proven:
            bad.add(b.cell)
    return Verdict(ok=not bad, withheld=int(hidden.sum()), unsafe=len(bad), checked=len(certs))
