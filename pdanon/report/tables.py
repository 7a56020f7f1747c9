"""What may leave with a protected or perturbed table: one allow-list, and the report.

A :class:`pdanon.tables.ProtectedTable` holds, besides what may be published, each withheld
cell's value, frequency and largest contributions, the rule it broke and its protection
levels (for a count cell the upper level is ``n - f``: it gives the frequency away), and its
audit holds the attacker's range of every withheld cell. A
:class:`pdanon.tables.PerturbedTable` holds each cell's original value and noise. None of that
may leave. Rather than filter each file, **everything written is rendered from one object,
:class:`PublicTable`, which :func:`public` builds by an allow-list**:

* ``frame``: per cell only the dimensions' labels, the value of a *published* cell (a
  withheld cell's is missing, or ``marker``; a sum on its decimal grid, :func:`on_grid`) and, for a protected table, ``status``
  (``"published"`` / ``"withheld"``; not primary/secondary, which would tell ``0 < f < n``);
* ``facts``: the table's shape (dimensions, count or sum, the values and contributor columns'
  names, cells), the rules and their parameters, the method, counts of cells by status and of
  primary cells by the rule that made them so, the audit's counts (withheld, unsafe, ok), the
  information loss (withheld cells; the withheld value's share as the range the *published*
  cells imply, computed from them alone, so it adds nothing an attacker cannot compute), and
  for a perturbed count table the noise statistics (cells changed, mean and largest absolute
  change). For a perturbed *sum* table only the cells changed: the size of a sum's noise is
  a share of its largest contribution, so its mean or largest would tell contributions.

No value, frequency, contribution, level, range, record key, cell key or p-table draw of a
withheld cell is read into it (the facts read counts and flags; the share reads published
values). :mod:`pdanon.release.tables` writes the CSV, Parquet, pivot and report from it alone.

Example
-------
>>> import pandas as pd
>>> from pdanon.tables import build
>>> p = build(pd.DataFrame({"g": list("aabbbbb")}), index="g").protect({"min_frequency": 3})
>>> pub = public(p)
>>> pub.frame.values.tolist()
[['a', <NA>, 'withheld'], ['b', <NA>, 'withheld'], ['Total', 7, 'published']]
>>> pub.facts["cells"]["by_status"], pub.facts["audit"]["ok"]
({'published': 1, 'withheld': 2, 'primary': 1, 'secondary': 1}, True)
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from html import escape

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.report import facts as _facts

__all__ = ["LinkedReport", "PublicTable", "PublicTables", "TableReport", "check_names",
           "linked_report", "on_grid", "public", "public_tables", "table_report"]

#: the rule keys a primary cell's ``rule`` label is counted under (its first word)
RULE_KEYS = ("min_frequency", "dominance", "p_percent", "pq", "zeros", "group")
#: the rules' parameters the report shows (:func:`pdanon.tables.rules.check_rules`'s keys)
RULE_PARAMS = RULE_KEYS + ("protection",)
#: the p-table's parameters the report shows (not, e.g., the path it was read from)
PTABLE_PARAMS = ("D", "V", "js", "modulus", "max_pcv", "cycle")
#: the statuses a protected table's cells may hold that are not withheld
SAFE = "safe"


@dataclass(frozen=True)
class PublicTable:
    """What may leave: the cells as published (``frame``), the facts of the report
    (``facts``, JSON-safe) and the pivot's layout (``dimensions``, ``labels``: each
    dimension's node labels in the table's order)."""

    frame: pd.DataFrame = field(repr=False)
    facts: dict
    dimensions: list
    labels: dict = field(repr=False)

    def pivot(self, *, index=None, columns=None) -> pd.DataFrame:
        """The published cells as a pivot: ``index`` dimensions down, ``columns`` across
        (default: all but the last down, the last across), each dimension in its node order
        (leaves, sub-totals, total); withheld cells missing or the marker."""
        from types import SimpleNamespace

        from pdanon.tables.output import pivot

        # the layout only (names and node labels): the table itself holds what may not leave
        shape = SimpleNamespace(dimensions=self.dimensions, dims=[
            SimpleNamespace(name=d, labels=self.labels[d]) for d in self.dimensions])
        return pivot(self.frame, shape, index=index, columns=columns)


def _kind(obj) -> str:
    cells = getattr(obj, "cells", None)
    if not (isinstance(cells, pd.DataFrame) and hasattr(obj, "table")
            and hasattr(obj, "info")):
        raise InvalidInputError(
            f"expected a protected table (table.protect(...)) or a perturbed one "
            f"(table.cell_key(...)), got {type(obj).__name__}")
    if "status" in cells.columns:
        return "protected"
    if "noise" in cells.columns:
        return "perturbed"
    raise InvalidInputError("this table is neither protected nor perturbed: call "
                            ".protect(rules) or .cell_key(ptable, keys) first")


def public(obj, *, marker=None, audit="auto") -> PublicTable:
    """The allow-list (module docstring): what of a protected or perturbed table may leave.

    ``marker`` (e.g. ``"x"``) stands for a withheld value (default: missing). ``audit``: how
    the pattern as it leaves is checked (:func:`check_counts`); a protected table whose check
    finds an unsafe cell is refused by the writers."""
    kind = _kind(obj)
    table = obj.table
    dims = list(table.dimensions)
    cells = obj.cells
    if kind == "protected":
        hidden = (cells["status"] != SAFE).to_numpy()
    else:
        hidden = np.zeros(len(cells), dtype=bool)
    frame = pd.DataFrame({d: cells[d].to_numpy(dtype=object) for d in dims})
    shown = cells["value"].to_numpy()[~hidden]
    if not table.is_count:
        shown = on_grid(shown.astype(np.float64))
    dtype = "Int64" if table.is_count else "Float64"
    if marker is None:
        value = pd.array([pd.NA] * len(cells), dtype=dtype)
        value[~hidden] = pd.array(shown, dtype=dtype)
    else:
        value = np.full(len(cells), marker, dtype=object)
        value[~hidden] = shown.astype(np.int64 if table.is_count else np.float64)
    frame["value"] = value
    if kind == "protected":
        frame["status"] = np.where(hidden, "withheld", "published")
    frame.attrs = {}
    labels = {d.name: list(d.labels) for d in table.dims}
    published = np.zeros(len(cells))
    published[~hidden] = shown
    facts = _table_facts(obj, kind, hidden, audit, published)
    return PublicTable(frame=frame, facts=_facts.plain(facts), dimensions=dims, labels=labels)


def on_grid(values: np.ndarray) -> np.ndarray:
    """Sums rounded to the coarsest decimal grid (0 to 12 decimals) that moves none of them
    by more than 1e-9 of its size. A float sum's last bits depend on the order and the
    values of what was added (``7940.950000000001`` or ``7940.95``), so a withheld cell's
    value could move a published total's last bits; data with cents give sums on the cent
    grid, and rounding there makes the published value a function of the exact sum alone.

    >>> on_grid(np.array([7940.950000000001, 12.5])).tolist()
    [7940.95, 12.5]
    """
    values = np.asarray(values, dtype=np.float64)
    tol = 1e-9 * np.maximum(1.0, np.abs(values))
    for d in range(13):
        rounded = np.round(values, d)
        if (np.abs(rounded - values) <= tol).all():
            return rounded
    return values


def _table_facts(obj, kind: str, hidden: np.ndarray, audit: bool,
                 published: np.ndarray) -> dict:
    """The report's facts: counts, flags, parameters and figures of published values."""
    table, info, cells = obj.table, obj.info, obj.cells
    shape = {"dimensions": [str(d) for d in table.dimensions],
             "nodes": {str(d.name): d.n_nodes for d in table.dims},
             "aggfunc": table.aggfunc,
             "values": None if table.values is None else str(table.values),
             "contributor": None if table.contributor is None else str(table.contributor),
             "cells": int(len(cells))}
    version = getattr(sys.modules.get("pdanon"), "__version__", "unknown")
    out: dict = {"kind": f"{kind} table", "pdanon_version": version, "table": shape}
    n = len(cells)
    if kind == "protected":
        status = cells["status"].astype(str)
        counts = {"published": int((~hidden).sum()), "withheld": int(hidden.sum())}
        for s in ("primary", "secondary"):
            counts[s] = int((status == s).sum())
        others = sorted(set(status) - {SAFE, "primary", "secondary"})
        counts.update({s: int((status == s).sum()) for s in others})
        rule_of = cells.loc[status == "primary", "rule"].astype(str).str.split(" ").str[0]
        by_rule = {r: int((rule_of == r).sum()) for r in RULE_KEYS if (rule_of == r).any()}
        other = int((~rule_of.isin(RULE_KEYS)).sum())
        if other:
            by_rule["other"] = other
        rules = info.get("rules")
        out["rules"] = None if not isinstance(rules, dict) else {
            k: rules[k] for k in RULE_PARAMS if k in rules}
        out["method"] = {"method": info.get("method"), "cost": info.get("cost"),
                         "proven_optimal": info.get("optimal")}
        out["cells"] = {"total": n, "by_status": counts, "primary_by_rule": by_rule}
        out["audit"] = check_counts(obj, audit)
        if getattr(obj, "linked", None) is not None:  # a member: the linked verdict too
            out["linked"] = {"tables": len(obj.linked.tables), "table": obj.position + 1,
                             "audit": check_counts(obj.linked, audit)}
        low, high = _withheld_share(table.constraints, hidden, published)
        out["information_loss"] = {
            "withheld_cells": int(hidden.sum()),
            "withheld_cell_share": float(hidden.sum() / n) if n else 0.0,
            "withheld_value_share": {"low": low, "high": high,
                                     "exact": bool(high - low <= 1e-9)}}
    else:
        changed = int(info.get("changed", 0))
        noise: dict = {"cells_changed": changed, "cells": n}
        if table.is_count:
            noise["mean_abs_change"] = float(info.get("mean_abs_noise", 0.0))
            noise["max_abs_change"] = float(info.get("max_abs_noise", 0))
        params = info.get("params") or {}
        out["method"] = {"method": "cell key",
                         "ptable": {k: params[k] for k in PTABLE_PARAMS if k in params},
                         **{k: info[k] for k in ("m", "top_k", "epsilon") if k in info}}
        out["cells"] = {"total": n, "by_status": {"published": n}}
        out["noise"] = noise
    return out


#: ``audit="auto"`` runs the full audit up to this many withheld cells, the certificates above
FULL_AUDIT_UP_TO = 2000


def check_counts(obj, audit="auto") -> dict:
    """How the pattern of ``obj`` (a protected table, linked tables or a member) is checked
    as it leaves, and the result: ``"full"`` — the full audit, every withheld cell's exact
    range (two linear programs per cell); ``"certificates"`` — :func:`pdanon.tables.verify`,
    each primary cell's stored proof re-checked against the cells as they are now, without a
    program (a table made by hand, with no certificates, gets the full audit). ``audit``:
    True (full), False (certificates) or ``"auto"`` (full up to :data:`FULL_AUDIT_UP_TO`
    withheld cells). Either way the counts are the cells checked, the unsafe ones and
    whether it passed; nothing else of the check leaves."""
    from pdanon.tables import verify

    if audit not in (True, False, "auto"):
        raise InvalidInputError(f"audit={audit!r}: use True (the full audit), False (the "
                                f"certificates) or 'auto'")
    target = obj.linked if getattr(obj, "linked", None) is not None else obj
    withheld = sum(int((m.cells["status"] != SAFE).sum()) for m in target.tables) \
        if hasattr(target, "union") else int((obj.cells["status"] != SAFE).sum())
    full = audit is True or (audit == "auto" and withheld <= FULL_AUDIT_UP_TO)
    if not full and getattr(target, "certificates", None) is not None:
        v = verify(obj)
        return {"withheld": v.withheld, "unsafe": v.unsafe, "ok": v.ok, "check": "certificates"}
    safe = obj.audit.cells["safe"].to_numpy(dtype=bool)
    return {"withheld": int(len(safe)), "unsafe": int((~safe).sum()), "ok": bool(safe.all()),
            "check": "full"}


def _withheld_share(A, hidden: np.ndarray, published: np.ndarray) -> tuple:
    """The range of the withheld cells' share of the table's total value (over all cells)
    that the published cells imply (``A``: the table's equations, or linked tables' on their
    distinct cells): the attacker's min and max of their sum, given the
    published values, the table's additivity and non-negativity, read from published values
    only, so publishing it tells nothing new. Per group of withheld cells that share an
    equation: when the equations fix the group's sum (its all-ones row is a combination
    ``y`` of them, found by least squares) it is ``y @ rhs``; else two linear programs."""
    from scipy.optimize import linprog
    from scipy.sparse.csgraph import connected_components
    from scipy.sparse.linalg import lsqr

    total_published = float(published.sum())
    if not hidden.any():
        return 0.0, 0.0
    A = A.astype(np.float64).tocsc()
    Aw = A[:, np.flatnonzero(hidden)].tocsr()
    rhs = -(A[:, np.flatnonzero(~hidden)] @ published[~hidden])
    rows = np.diff(Aw.indptr) > 0
    Aw, rhs = Aw[rows], rhs[rows]
    n_comp, comp = connected_components((abs(Aw).T @ abs(Aw)).tocsr(), directed=False)
    row_comp = comp[Aw.indices[Aw.indptr[:-1]]] if Aw.shape[0] else np.zeros(0, dtype=int)
    low = high = 0.0
    for c in range(n_comp):
        cells, eqs = np.flatnonzero(comp == c), np.flatnonzero(row_comp == c)
        if not len(eqs):  # in no equation with a published cell: anything >= 0
            high = np.inf
            continue
        sub, b = Aw[eqs][:, cells], rhs[eqs]
        y = lsqr(sub.T.tocsr(), np.ones(len(cells)), atol=1e-14, btol=1e-14,
                 iter_lim=20 * len(cells) + 100)[0]
        if np.abs(sub.T @ y - 1.0).max() < 1e-7:  # the equations fix the sum
            fixed = float(y @ b)
            low, high = low + fixed, high + fixed
            continue
        ones = np.ones(len(cells))
        lo = linprog(ones, A_eq=sub, b_eq=b, bounds=(0, None), method="highs")
        hi = linprog(-ones, A_eq=sub, b_eq=b, bounds=(0, None), method="highs")
        low += float(lo.fun) if lo.status == 0 else 0.0
        high += float(-hi.fun) if hi.status == 0 else np.inf
    low = max(low, 0.0)

    def share(s):  # 6 significant digits: the solver's last bits say nothing
        if not np.isfinite(s):
            return 1.0
        whole = total_published + s
        return float(f"{s / whole:.6g}") if whole > 0 else 0.0
    return share(low), share(max(high, low))


# ============================================================================ the report


@dataclass
class TableReport:
    """The report of a published table: ``title``, the facts of :func:`public` and the
    files written (name, bytes, SHA-256). ``to_json`` / ``to_html`` render them and nothing
    else."""

    title: str
    facts: dict
    files: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return _facts.plain({"title": self.title, **self.facts, "files": self.files,
                             "notes": self.notes})

    def to_json(self, indent: int | None = 1) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, allow_nan=False)

    def to_html(self) -> str:
        from pdanon.report import html

        return "\n".join([
            "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<link rel="icon" href="data:,">', f"<title>{escape(self.title)}</title>",
            f"<style>{html.CSS}</style>", "</head>", "<body>", "<main>", self._body(),
            "</main>", "</body>", "</html>", ""])

    def _repr_html_(self) -> str:
        from pdanon.report import html

        return f"<style>{html.CSS}</style>\n{self._body()}"

    def _body(self) -> str:
        f = self.facts
        parts = ['<div class="pdanon-report">', f"<h1>{escape(self.title)}</h1>"]
        parts += _verdict_html(f.get("audit"))
        parts.append(f"<p>{escape(_PREAMBLE[f['kind']])}</p>")
        if f.get("linked"):
            n = f["linked"]
            parts.append(f"<p>{escape(_member_note(n))}</p>")
        parts += ["<h2>Table, rules and method</h2>",
                  html_table(_shape_rows(f["table"]) + _method_rows(f), ["", ""],
                             caption="What was published and how")]
        parts += ["<h2>Cells</h2>"] + _cells_html(f["cells"])
        parts += _loss_html(f.get("information_loss"))
        noise = f.get("noise")
        if noise is not None:
            parts += ["<h2>Noise</h2>", html_table(
                [[k.replace("_", " "), v] for k, v in noise.items()], ["", ""],
                caption="Cell-key noise", numeric=(1,))]
        parts += _tail_html(self.files, self.notes)
        parts.append("</div>")
        return "\n".join(parts)


def html_table(*args, **kw) -> str:
    from pdanon.report import html

    return html.table(*args, **kw)


def _verdict_html(audit, what: str = "The attacker's linear programs on every withheld "
                                     "cell") -> list:
    from pdanon.report import html

    if audit is None:
        return []
    if audit["ok"] is None:
        return ['<div class="verdict">', "<h2>Audit: not run at publication</h2>",
                f"<p>{audit['withheld']:,} withheld cells. The pattern was verified when it "
                f"was protected: for every primary cell, a table consistent with the "
                f"published cells reaches its protection both ways.</p>", "</div>"]
    ok = audit["ok"]
    if audit.get("check") == "certificates":
        what = ("Each primary cell's proof (a change of the table that keeps it additive and "
                "non-negative, moves the cell by its protection level and touches only withheld "
                "cells) re-checked against the cells as published")
    return [f'<div class="verdict {"pass" if ok else "fail"}">',
            f"<h2>Audit: {'PASSED' if ok else 'FAILED'}</h2>",
            html.table([["withheld cells", audit["withheld"]],
                        ["unsafe cells", audit["unsafe"]]],
                       ["", "cells"], caption=what, numeric=(1,)), "</div>"]


def _shape_rows(shape: dict) -> list:
    what = "counts" if shape["aggfunc"] == "count" else f"sums of {shape['values']}"
    rows = [["table", f"{what} by {' × '.join(shape['dimensions'])}"],
            ["cells", shape["cells"]],
            ["nodes per dimension", shape["nodes"]]]
    if shape.get("contributor"):
        rows.append(["contributor", shape["contributor"]])
    return rows


def _method_rows(f: dict) -> list:
    method = f.get("method") or {}
    rows = [[k.replace("_", " "), v] for k, v in method.items() if v is not None]
    if f.get("rules"):
        rows.append(["rules", f["rules"]])
    return rows + [["pdanon", f["pdanon_version"]]]


def _cells_html(cells: dict, what: str = "cells") -> list:
    out = [html_table([[k, v] for k, v in cells["by_status"].items()], ["status", "cells"],
                      caption=f"{cells['total']:,} {what} by status", numeric=(1,))]
    if cells.get("primary_by_rule"):
        out.append(html_table(
            [[k, v] for k, v in cells["primary_by_rule"].items()], ["rule", "cells"],
            caption="Primary cells by the rule that made them unsafe", numeric=(1,)))
    return out


def _loss_html(loss, heading: str = "Information loss") -> list:
    from pdanon.report import html

    if loss is None:
        return []
    share = loss["withheld_value_share"]
    value = (html.fmt(share["low"], share=True) if share["exact"] else
             f"between {html.fmt(share['low'], share=True)} and "
             f"{html.fmt(share['high'], share=True)}")
    return [f"<h2>{escape(heading)}</h2>", html.table(
        [["withheld cells", loss["withheld_cells"]],
         ["share of cells withheld", html.fmt(loss["withheld_cell_share"], share=True)],
         ["share of the total value withheld", value]], ["", ""],
        caption="What the suppression costs", numeric=(1,)),
        "<p>The withheld value's share is the range the published cells imply (an "
        "attacker computes it too): a single figure when they fix it.</p>"]


def _tail_html(files: list, notes: list) -> list:
    out = []
    if files:
        out += ["<h2>Files</h2>", html_table(
            [[x["name"], x["bytes"], x["sha256"]] for x in files],
            ["file", "bytes", "SHA-256"], caption="What was written", numeric=(1,))]
    if notes:
        out += ["<h2>Notes</h2>",
                "<ul>" + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>"]
    return out


def _member_note(linked: dict) -> str:
    audit = linked.get("audit")
    verdict = "" if audit is None else (
        f" The linked audit over all {linked['tables']} tables "
        f"{'PASSED' if audit['ok'] else 'FAILED'}: {audit['withheld']:,} cells, "
        f"{audit['unsafe']:,} unsafe.")
    return (f"This is table {linked['table']} of {linked['tables']} linked tables protected "
            f"together: its audit is the attacker who sees all {linked['tables']} (every "
            f"cell's range given every table's published cells).{verdict} Publish the other "
            f"tables from the same protection only (pdanon.publish of the protected tables "
            f"writes them all with one report), never protected again on their own.")


_PREAMBLE = {
    "protected table": (
        "This report describes a protected table and may travel with it. It holds counts of "
        "cells and figures of the published cells only: no withheld value, frequency, "
        "contribution, protection level or attacker's range."),
    "perturbed table": (
        "This report describes a table published with cell-key noise and may travel with it. "
        "It holds the p-table's parameters and counts; never a record key, a cell key or a "
        "cell's original value."),
}


def table_report(obj_or_public, *, title: str = "pdanon table report", marker=None,
                 files=None, notes=None) -> TableReport:
    """The report of a protected or perturbed table (or of its :class:`PublicTable`).

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.tables import build
    >>> p = build(pd.DataFrame({"g": list("aabbbbb")}), index="g").protect({"min_frequency": 3})
    >>> rep = table_report(p)
    >>> rep.to_dict()["information_loss"]["withheld_cells"], "<h1>" in rep.to_html()
    (2, True)
    """
    pub = obj_or_public if isinstance(obj_or_public, PublicTable) else \
        public(obj_or_public, marker=marker)
    if not isinstance(title, str) or not title.strip():
        raise InvalidInputError("title must be a non-empty string, e.g. title='Table 2024'")
    return TableReport(title=title, facts=pub.facts, files=list(files or []),
                       notes=list(notes or []))


# ============================================================================ linked tables


@dataclass(frozen=True)
class PublicTables:
    """What may leave with linked tables: one :class:`PublicTable` per table (``tables``),
    their ``names`` and the report's ``facts`` over all of them (JSON-safe)."""

    tables: list = field(repr=False)
    names: list
    facts: dict


#: the facts of one member that the linked report shows per table (the rules, method and
#: verdict are the set's)
MEMBER_FACTS = ("table", "cells", "audit", "information_loss")


def public_tables(obj, *, names=None, marker=None, audit="auto") -> PublicTables:
    """The allow-list of linked tables (:class:`pdanon.tables.ProtectedTables`): each
    table's cells and facts by :func:`public` (its audit the linked one, restricted to its
    cells), and over all of them the linked audit's counts and verdict, the distinct cells
    by status and rule and their information loss — counts, flags, parameters and figures
    of published values only. ``names``: one per table (default ``table_1``, ...).

    Example
    -------
    >>> import pandas as pd
    >>> import pdanon
    >>> df = pd.DataFrame({"r": list("NNNNNNSSSSSSSS"), "s": list("fmmmmmffffmmmm"),
    ...                    "a": list("xxxyyyxxxxyyyy")})
    >>> p = pdanon.tables.link(df.anon.table(index="r", columns="s"),
    ...                        df.anon.table(index="r", columns="a")).protect({"min_frequency": 3})
    >>> pub = public_tables(p, names=["by_sex", "by_age"])
    >>> pub.facts["audit"], [t["cells"]["by_status"]["withheld"] for t in pub.facts["tables"]]
    ({'withheld': 4, 'unsafe': 0, 'ok': True, 'check': 'full'}, [4, 0])
    >>> pub.facts["distinct_cells"]["total"], pub.facts["distinct_cells"]["shared"]
    (15, 3)
    """
    members = getattr(obj, "tables", None)
    if not (hasattr(obj, "union") and isinstance(members, list) and members):
        raise InvalidInputError(f"public_tables takes linked protected tables "
                                f"(pdanon.tables.link(t1, t2).protect(...)), got "
                                f"{type(obj).__name__}")
    names = check_names(names, len(members))
    pubs = [public(m, marker=marker, audit=audit) for m in members]
    u = obj.union
    n = len(u.cells)
    published = np.zeros(n, dtype=bool)  # published by some table: known
    is_primary = np.zeros(n, dtype=bool)
    rule = np.full(n, "", dtype=object)
    for m, idx in zip(members, u.ids):
        status = m.cells["status"].astype(str).to_numpy()
        published[idx] |= status == SAFE
        is_primary[idx] |= status == "primary"
        r = m.cells["rule"].astype(str).to_numpy()
        fresh = (rule[idx] == "") & (status == "primary")
        rule[idx[fresh]] = r[fresh]
    hidden = ~published
    counts = {"published": int(published.sum()), "withheld": int(hidden.sum()),
              "primary": int(is_primary.sum()),
              "secondary": int((hidden & ~is_primary).sum())}
    first = pd.Series(rule[is_primary], dtype=object).str.split(" ").str[0]
    by_rule = {r: int((first == r).sum()) for r in RULE_KEYS if (first == r).any()}
    if (~first.isin(RULE_KEYS)).any():
        by_rule["other"] = int((~first.isin(RULE_KEYS)).sum())
    x = np.zeros(n)
    shown = u.x[published].astype(np.float64)
    x[published] = shown if u.is_count else on_grid(shown)
    low, high = _withheld_share(u.A, hidden, x)
    one = pubs[0].facts
    facts = {"kind": "linked tables", "pdanon_version": one["pdanon_version"],
             "rules": one.get("rules"), "method": one.get("method"),
             "audit": check_counts(obj, audit),
             "tables": [{"name": name, **{k: p.facts[k] for k in MEMBER_FACTS if k in p.facts}}
                        for name, p in zip(names, pubs)],
             "distinct_cells": {"total": n, "shared": int((u.cells["tables"].map(len) > 1).sum()),
                                "by_status": counts, "primary_by_rule": by_rule},
             "information_loss": {
                 "withheld_cells": int(hidden.sum()),
                 "withheld_cell_share": float(hidden.sum() / n) if n else 0.0,
                 "withheld_value_share": {"low": low, "high": high,
                                          "exact": bool(high - low <= 1e-9)}}}
    return PublicTables(tables=pubs, names=names, facts=_facts.plain(facts))


def check_names(names, n: int) -> list:
    """The tables' names (file stems): ``table_1`` ... by default; given ones must be
    distinct, plain file names (letters, digits, ``_``, ``-``, ``.``), and not ``report``.

    >>> check_names(None, 2), check_names(["by_sex", "by_age"], 2)
    (['table_1', 'table_2'], ['by_sex', 'by_age'])
    """
    import re

    if names is None:
        return [f"table_{i + 1}" for i in range(n)]
    if isinstance(names, str) or len(names) != n:
        raise InvalidInputError(f"names=: give one name per table ({n}), e.g. "
                                f"names={[f'table_{i + 1}' for i in range(n)]}")
    names = [str(x) for x in names]
    for x in names:
        if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}", x) or x.endswith(".") or \
                x.lower() == "report":
            raise InvalidInputError(f"names=: {x!r} is not a plain file name (letters, digits, "
                                    f"_, - and ., not 'report'): the files are NAME.csv ...")
    taken = {x.lower() for x in names}
    twice = [x for x in taken if sum(y.lower() == x for y in names) > 1]
    clash = [x for x in names if x.lower().endswith("_pivot") and x.lower()[:-6] in taken]
    if twice or clash:
        raise InvalidInputError(f"names=: {(twice or clash)[0]!r} names two files; give each "
                                f"table its own name")
    return names


@dataclass
class LinkedReport(TableReport):
    """The one report of published linked tables: the linked audit's verdict, the rules and
    method, per table its cells by status and rule, its audit (the linked one, its cells)
    and information loss, and over the distinct cells the same; the files written."""

    def _body(self) -> str:
        f = self.facts
        parts = ['<div class="pdanon-report">', f"<h1>{escape(self.title)}</h1>"]
        parts += _verdict_html(f.get("audit"), "The attacker who sees every table: linear "
                                               "programs on every withheld cell")
        parts.append(f"<p>{escape(_PREAMBLE['linked tables'])}</p>")
        parts += ["<h2>Rules and method</h2>",
                  html_table(_method_rows(f), ["", ""], caption="How the tables were protected")]
        for t in f["tables"]:
            parts.append(f"<h2>Table {escape(t['name'])}</h2>")
            parts.append(html_table(_shape_rows(t["table"]), ["", ""],
                                    caption="What was published"))
            parts += _cells_html(t["cells"])
            a = t.get("audit")
            if a is not None and a["ok"] is not None:
                parts.append(html_table(
                    [["withheld cells", a["withheld"]], ["unsafe cells", a["unsafe"]],
                     ["passed", "yes" if a["ok"] else "no"]], ["", "cells"],
                    caption="Its cells in the linked audit", numeric=(1,)))
            parts += _loss_html(t.get("information_loss"), f"Information loss: {t['name']}")
        d = f["distinct_cells"]
        parts += ["<h2>All the tables: distinct cells</h2>",
                  f"<p>{d['shared']:,} cells are shared by several tables; each has one "
                  f"status in all of them.</p>"] + _cells_html(d, "distinct cells")
        parts += _loss_html(f.get("information_loss"), "Information loss: all the tables")
        parts += _tail_html(self.files, self.notes)
        parts.append("</div>")
        return "\n".join(parts)


_PREAMBLE["linked tables"] = (
    "This report describes linked tables (tables of one frame that share cells), protected "
    "together and published together, and may travel with them. It holds counts of cells and "
    "figures of the published cells only: no withheld value, frequency, contribution, "
    "protection level or attacker's range.")


def linked_report(obj_or_public, *, title: str = "pdanon linked tables report", names=None,
                  marker=None, files=None, notes=None) -> LinkedReport:
    """The report of linked protected tables (or of their :class:`PublicTables`).

    Example
    -------
    >>> import pandas as pd
    >>> import pdanon
    >>> df = pd.DataFrame({"r": list("aabbbbb"), "s": list("fmfmfmf"), "g": list("xxyyxyx")})
    >>> p = pdanon.tables.protect([df.anon.table(index="r", columns="s"),
    ...                            df.anon.table(index="r", columns="g")], {"min_frequency": 2})
    >>> rep = linked_report(p)
    >>> [t["name"] for t in rep.to_dict()["tables"]], "Audit: PASSED" in rep.to_html()
    (['table_1', 'table_2'], True)
    """
    pub = obj_or_public if isinstance(obj_or_public, PublicTables) else \
        public_tables(obj_or_public, names=names, marker=marker)
    if not isinstance(title, str) or not title.strip():
        raise InvalidInputError("title must be a non-empty string, e.g. title='Tables 2024'")
    return LinkedReport(title=title, facts=pub.facts, files=list(files or []),
                        notes=list(notes or []))
