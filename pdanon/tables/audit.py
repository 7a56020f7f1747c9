"""The audit: what an attacker can compute about each withheld cell.

The attacker knows every published cell, that the table adds up (each sub-total is the sum of
its parts: :func:`pdanon.tables.structure.constraints`) and that no cell is negative. For each
withheld cell they solve two linear programs — the smallest and the largest value the cell can
take in any table consistent with all that — and so learn the range ``[low, high]``. A primary
cell is protected when ``high >= value + upper`` and ``low <= value - lower`` (its protection
levels, :mod:`pdanon.tables.rules`); for counts the range is rounded inwards to whole numbers,
as an attacker would.

The programs are solved per connected group of withheld cells (cells that share an equation),
with SciPy's HiGHS; an equation holding one withheld cell gives it away exactly, without a
program. The audit reads only the table and the withheld pattern, so it checks a pattern made
anywhere (another tool's, a hand-made one).

>>> import pandas as pd
>>> from pdanon.tables.table import build
>>> t = build(pd.DataFrame({"g": list("aabbb")}), index="g")
>>> r = audit(t, [0], rules={"min_frequency": 3})  # only "a" withheld: Total - b gives it
>>> r.cells[["g", "low", "high", "safe"]].values.tolist()
[['a', 2.0, 2.0, False]]
>>> audit(t, [], rules={"min_frequency": 3}).unsafe[["g", "withheld"]].values.tolist()
[['a', False]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.optimize import linprog
from scipy.sparse.csgraph import connected_components

from pdanon._errors import InvalidInputError

__all__ = ["AuditResult", "audit", "ranges"]

TOL = 1e-6


@dataclass
class AuditResult:
    """The audit of one suppression pattern.

    ``cells``: one row per withheld cell and per primary cell the pattern publishes (its keys,
    ``value``, ``status``, ``withheld``, the required ``lower``/``upper`` levels, the
    attacker's ``low``/``high`` and ``safe``; a published primary cell is known exactly, so it
    is unsafe); ``unsafe``: the rows of ``cells`` whose range is narrower than required;
    ``ok``: no cell is unsafe.
    """

    cells: pd.DataFrame

    @property
    def unsafe(self) -> pd.DataFrame:
        return self.cells[~self.cells["safe"]]

    @property
    def ok(self) -> bool:
        return bool(self.cells["safe"].all())

    def __repr__(self) -> str:
        n = len(self.cells)
        bad = int((~self.cells["safe"]).sum())
        return f"<AuditResult: {n} withheld cells, {bad} unsafe>"


def ranges(A: sparse.csr_matrix, x: np.ndarray, withheld: np.ndarray, *,
           integer: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The attacker's ``(low, high)`` for every cell in ``withheld`` (indices into ``x``),
    given ``x`` at every other cell, ``A @ x == 0`` and ``x >= 0``. ``high`` is ``inf`` when
    nothing bounds the cell."""
    withheld = np.asarray(withheld, dtype=np.int64)
    n = len(x)
    low = np.zeros(len(withheld))
    high = np.full(len(withheld), np.inf)
    if len(withheld) == 0:
        return low, high
    is_w = np.zeros(n, dtype=bool)
    is_w[withheld] = True
    pos = np.full(n, -1, dtype=np.int64)
    pos[withheld] = np.arange(len(withheld))
    A = A.tocsc()
    As = A[:, withheld].tocsr()
    Ap = A[:, ~is_w]
    rhs = -(Ap @ x[~is_w])
    touched = np.diff(As.indptr) > 0
    As, rhs = As[touched], rhs[touched]
    # cells that share an equation form one program
    adj = (abs(As).T @ abs(As)).tocsr()
    n_comp, comp = connected_components(adj, directed=False)
    row_comp = comp[As.indices[As.indptr[:-1]]] if As.shape[0] else np.zeros(0, dtype=int)
    for c in range(n_comp):
        members = np.flatnonzero(comp == c)
        rows = np.flatnonzero(row_comp == c)
        if len(rows) == 0:  # in no equation with a published cell: anything >= 0
            continue
        sub = As[rows][:, members]
        b = rhs[rows]
        for j, cell in enumerate(members):
            obj = np.zeros(len(members))
            obj[j] = 1.0
            lo = linprog(obj, A_eq=sub, b_eq=b, bounds=(0, None), method="highs")
            hi = linprog(-obj, A_eq=sub, b_eq=b, bounds=(0, None), method="highs")
            if lo.status == 2 or hi.status == 2:
                raise InvalidInputError(
                    "the published cells are inconsistent with the table's sums (the "
                    "attacker's program has no solution): the table was changed after it was "
                    "built")
            low[cell] = lo.fun if lo.status == 0 else 0.0
            high[cell] = -hi.fun if hi.status == 0 else np.inf
    low = np.maximum(low, 0.0)  # no -0.0 from the solver
    if integer:
        low = np.ceil(low - TOL) + 0.0
        high = np.where(np.isfinite(high), np.floor(high + TOL), high)
    return low, high


def audit(table, suppressed=None, *, rules=None, levels: pd.DataFrame | None = None) -> AuditResult:
    """Audit a suppression pattern of ``table``, or of linked tables across all of them.

    ``table`` is a :class:`pdanon.tables.ProtectedTable` (its own pattern and levels are
    audited) or a :class:`pdanon.tables.Table` with ``suppressed`` — cell positions, a boolean
    mask over ``table.cells`` or the rows of ``table.cells`` withheld — and the ``rules`` that
    set the protection levels (or the ``levels`` frame of :func:`pdanon.tables.primary`).

    Linked tables (several tables of one frame, :func:`pdanon.tables.link`) are audited
    together: ``table`` is a :class:`pdanon.tables.ProtectedTables`, or a list of tables (or
    :class:`pdanon.tables.LinkedTables`) with one pattern per table in ``suppressed`` (and
    ``levels``, if given, one frame per table). The attacker then knows every table's
    published cells and equations; a cell withheld in one table but published in another is
    known exactly. ``cells`` has one row per distinct withheld cell, a column per variable of
    any table, ``tables`` (the tables that hold it) and ``published_in`` (those that publish
    it). A member of protected linked tables (``p.tables[i]``) is audited as linked too: the
    rows of the linked audit that are its cells, with its own labels.

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.tables.table import build
    >>> df = pd.DataFrame({"r": list("NNNNNNSSSSSSSS"), "s": list("fmmmmmffffmmmm"),
    ...                    "a": list("xxxyyyxxxxyyyy")})
    >>> t1, t2 = build(df, index="r", columns="s"), build(df, index="r", columns="a")
    >>> m1 = t1.cells.r.isin(["N", "S"]) & t1.cells.s.isin(["f", "Total"])
    >>> m2 = t2.cells.r.isin(["N", "S"]) & (t2.cells.a == "Total")
    >>> audit(t1, m1, rules={"min_frequency": 3}).ok  # region x sex alone: N/f is protected
    True
    >>> r = audit([t1, t2], [m1, m2], rules={"min_frequency": 3})  # N's total = N/x + N/y
    >>> r.unsafe[["r", "s", "a", "low", "high", "tables"]].values.tolist()
    [['N', 'f', 'Total', 1.0, 1.0, (0,)]]
    """
    from pdanon.tables.rules import primary
    if _is_linked(table) or isinstance(table, (list, tuple)):
        return _audit_linked(table, suppressed, rules, levels)
    if _is_protected(table) and getattr(table, "linked", None) is not None:
        if suppressed is not None:
            raise InvalidInputError("a protected table carries its own pattern: call "
                                    "audit(protected) without suppressed=")
        return _member(table)
    if _is_protected(table):
        if suppressed is not None:
            raise InvalidInputError("a protected table carries its own pattern: call "
                                    "audit(protected) without suppressed=")
        levels = table.cells[["status", "lower", "upper"]]
        mask = (table.cells["status"] != "safe").to_numpy()
        table = table.table
    else:
        if suppressed is None:
            raise InvalidInputError("audit(table, suppressed): say which cells are withheld "
                                    "(positions, a boolean mask, or rows of table.cells)")
        mask = _mask(suppressed, len(table.cells))
        if levels is None:
            levels = primary(table, rules)
        levels = _secondary(levels, mask)
    x = table.cells["value"].to_numpy(dtype=np.float64)
    # a primary cell the pattern publishes is known exactly: it is listed, and unsafe
    shown = (levels["status"] == "primary").to_numpy() & ~mask
    where = np.flatnonzero(mask | shown)
    hidden = mask[where]
    low, high = x[where].copy(), x[where].copy()
    low[hidden], high[hidden] = ranges(table.constraints, x, where[hidden],
                                       integer=table.is_count)
    return _result(table.cells, table.dimensions, x, where, levels.iloc[where], low, high,
                   hidden)


def _secondary(levels: pd.DataFrame, mask: np.ndarray) -> pd.DataFrame:
    """``levels`` with every withheld cell that no rule made primary marked secondary."""
    levels = levels.copy()
    levels.loc[mask & (levels["status"] == "safe").to_numpy(), "status"] = "secondary"
    return levels


def _result(cells, keys, x, where, lv, low, high, hidden) -> AuditResult:
    """The audit's rows: the cells ``where`` (withheld, or primary and published) with their
    levels ``lv`` and the attacker's range ``[low, high]``; ``hidden``: withheld from every
    table. A primary cell is safe when it is hidden and its range is wide enough."""
    need_hi = x[where] + lv["upper"].to_numpy()
    need_lo = x[where] - lv["lower"].to_numpy()
    is_primary = (lv["status"] == "primary").to_numpy()
    safe = ~is_primary | (hidden & (high >= need_hi - TOL) & (low <= need_lo + TOL)
                          & (high - low > TOL))
    out = cells.iloc[where][list(keys) + ["value"]].copy()
    out["status"] = lv["status"].to_numpy()
    out["withheld"] = hidden
    out["lower"] = lv["lower"].to_numpy()
    out["upper"] = lv["upper"].to_numpy()
    out["low"] = low
    out["high"] = high
    out["safe"] = safe
    return AuditResult(out)


def _audit_linked(obj, suppressed, rules, levels) -> AuditResult:
    """The audit of linked tables: every table's published cells and equations at once."""
    from pdanon.tables.rules import primary
    from pdanon.tables.union import merge_levels, union_of
    if "status" in getattr(obj, "cells", ()):  # ProtectedTables: what each member publishes
        if suppressed is not None:
            raise InvalidInputError("protected tables carry their own pattern: call "
                                    "audit(protected) without suppressed=")
        u = obj.union
        tables = [m.table for m in obj.tables]
        suppressed = [(m.cells["status"] != "safe").to_numpy() for m in obj.tables]
        levels = [m.cells[["status", "rule", "lower", "upper"]] for m in obj.tables]
    else:
        tables = list(obj.tables if _is_linked(obj) else obj)
        u = union_of(tables)
    if suppressed is None or isinstance(suppressed, (str, bytes)) or \
            len(suppressed) != len(tables):
        raise InvalidInputError(
            f"audit of {len(tables)} linked tables: give suppressed=[...] with one pattern "
            f"per table (positions, a boolean mask, or rows of its cells), in order")
    withheld = np.zeros(len(u.cells), dtype=bool)
    shown = np.zeros((len(u.cells), len(tables)), dtype=bool)  # published, per table
    for i, (t, idx, s) in enumerate(zip(tables, u.ids, suppressed)):
        m = _mask(s, len(t.cells))
        withheld[idx[m]] = True
        shown[idx[~m], i] = True
    if levels is None:
        levels = [primary(t, rules) for t in tables]
    if len(levels) != len(tables):
        raise InvalidInputError("levels=: give one frame per linked table, in order")
    lv = _secondary(merge_levels(u, list(levels)), withheld)
    hidden = withheld & ~shown.any(axis=1)  # withheld in every table that holds it
    # a primary cell published everywhere is listed too (known exactly, unsafe)
    where = np.flatnonzero(withheld | (lv["status"] == "primary").to_numpy())
    low = u.x[where].copy()  # known exactly, unless withheld everywhere
    high = u.x[where].copy()
    at = np.flatnonzero(hidden[where])
    low[at], high[at] = ranges(u.A, u.x, where[at], integer=u.is_count)
    keys = [c for c in u.cells.columns if c not in ("value", "frequency", "tables")]
    out = _result(u.cells, keys, u.x, where, lv.iloc[where], low, high, hidden[where])
    out.cells["tables"] = u.cells["tables"].iloc[where].to_numpy()
    out.cells["published_in"] = [tuple(np.flatnonzero(row).tolist()) for row in shown[where]]
    return out


def _member(p) -> AuditResult:
    """The audit of one member of linked tables: the linked audit's rows of the member's
    own cells (the attacker who sees every table), with the member's labels and index."""
    linked = p.linked.audit.cells
    ids = np.asarray(p.linked.union.ids[p.position])
    local = np.full(len(p.linked.union.cells), -1, dtype=np.int64)
    local[ids] = np.arange(len(ids))
    at = local[p.linked.union.cells.index.get_indexer(linked.index)]
    keep = np.flatnonzero(at >= 0)
    keep = keep[np.argsort(at[keep], kind="stable")]
    rows = at[keep]
    out = p.cells.iloc[rows][list(p.table.dimensions) + ["value"]].copy()
    keys = set(p.linked.union.cells.columns) - {"tables"}  # the variables, value, frequency
    for c in (c for c in linked.columns if c not in keys):
        out[c] = linked[c].to_numpy()[keep]
    return AuditResult(out)


def _is_linked(obj) -> bool:
    """Linked tables (:class:`pdanon.tables.LinkedTables` or ``ProtectedTables``), read by
    their parts: they import this module for their audit."""
    return hasattr(obj, "union") and isinstance(getattr(obj, "tables", None), list)


def _is_protected(obj) -> bool:
    """A :class:`pdanon.tables.ProtectedTable` (read by its parts: the protected table
    imports this module for its own audit)."""
    cells = getattr(obj, "cells", None)
    return hasattr(obj, "table") and isinstance(cells, pd.DataFrame) and "status" in cells


def _mask(suppressed, n: int) -> np.ndarray:
    if isinstance(suppressed, pd.DataFrame):
        suppressed = suppressed.index
    arr = np.asarray(suppressed)
    if arr.dtype == bool:
        if len(arr) != n:
            raise InvalidInputError(f"suppressed: a mask needs {n} entries, got {len(arr)}")
        return arr
    arr = arr.astype(np.int64)
    if len(arr) and (arr.min() < 0 or arr.max() >= n):
        raise InvalidInputError(f"suppressed: cell positions must be in 0..{n - 1}")
    mask = np.zeros(n, dtype=bool)
    mask[arr] = True
    return mask
