"""Publishing a protected or perturbed table: the cells, the pivot and the report, written
from the allow-list of :func:`pdanon.report.tables.public` alone.

:func:`publish_table` is what ``pdanon.publish(protected, folder)`` runs for a table
(:func:`pdanon.release.publish.publish` hands it over), :func:`publish_table_files` the same
with a path per file (``pdanon table`` on the command line writes through it). In order:

1. **the allow-list**: :func:`~pdanon.report.tables.public` builds the published cells (the
   dimensions' labels, the value of each published cell, ``status`` published/withheld) and
   the report's facts (counts, parameters, the audit's counts, figures of published values);
   nothing else of the table is passed on;
2. **refuse** a protected table whose audit finds an unsafe cell (:class:`PublishError`;
   ``pdanon.tables.protect`` never returns one, but a table made or changed elsewhere may);
3. **write** under temporary names: ``table.csv`` (formula-guarded,
   :func:`pdanon.io.csvsafe.write_csv`; withheld values empty or ``marker``) and/or
   ``table.parquet`` (withheld values null, a status column; no index, no attrs), optionally
   ``table_pivot.csv``, and ``report.html`` / ``report.json`` with each data file's size and
   SHA-256;
4. **read back** each data file and compare it with the published cells (same labels, same
   published values, every withheld value empty), then move every file into place; a failure
   removes what was written. Existing files are replaced only with ``overwrite=True``.

Example
-------
>>> import tempfile, pandas as pd, pdanon
>>> df = pd.DataFrame({"r": list("aabbbbccc"), "s": list("xyxyxyxyx")})
>>> p = df.anon.table(index="r", columns="s").protect({"min_frequency": 2})
>>> with tempfile.TemporaryDirectory() as folder:
...     done = pdanon.publish(p, folder, formats=("csv", "parquet"), pivot=True)
...     sorted(done.files), done.audit_ok
(['report.html', 'report.json', 'table.csv', 'table.parquet', 'table_pivot.csv'], True)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.release.files import PublishError, file_digest, remove_written

__all__ = ["TABLE_FORMATS", "TablePublication", "publish_perturbed_tables_files",
           "publish_table", "publish_table_files", "publish_tables", "publish_tables_files",
           "tables_files"]

#: the data formats :func:`publish_table` writes
TABLE_FORMATS = ("csv", "parquet")
#: the name of each file in the folder
TABLE_NAMES = {"csv": "table.csv", "parquet": "table.parquet", "pivot": "table_pivot.csv",
               "report": "report.html", "report_json": "report.json"}


@dataclass(frozen=True)
class TablePublication:
    """What :func:`publish_table` wrote: ``folder``; ``files`` (name -> ``{"path", "bytes",
    "sha256"}``); ``audit_ok`` (the check of the pattern as it leaves passed — the full
    audit or the certificates, ``audit=``; None for a perturbed table);
    ``report`` (a :class:`pdanon.report.tables.TableReport`, or None)."""

    folder: str
    files: dict = field(repr=False)
    audit_ok: bool | None
    #: which check ran: "full" (the full audit) or "certificates" (None for a perturbed table)
    audit_check: str | None = None
    report: object = field(default=None, repr=False)

    def __repr__(self) -> str:
        names = ", ".join(f"{n} ({f['bytes']:,} bytes)" for n, f in self.files.items())
        return f"TablePublication({self.folder!r}: {names})"


def is_table(obj) -> bool:
    """A protected or perturbed table (read by its parts)."""
    return (not isinstance(obj, pd.DataFrame) and hasattr(obj, "table")
            and isinstance(getattr(obj, "cells", None), pd.DataFrame)
            and hasattr(obj, "info"))


def publish_table(obj, where, *, formats=("csv",), pivot: bool = False, report: bool = True,
                  marker=None, overwrite: bool = False, title: str = "pdanon table report",
                  pivot_index=None, pivot_columns=None, audit="auto"
                  ) -> TablePublication:
    """Write a protected or perturbed table into the folder ``where`` (module docstring).

    Parameters
    ----------
    obj : ProtectedTable or PerturbedTable
    where : str or path
        A folder (made when missing).
    formats : "csv", "parquet" or both
        The tidy cells: one row per cell, the dimensions, ``value`` and (protected) ``status``.
    pivot : bool
        Also write ``table_pivot.csv`` (``pivot_index`` down, ``pivot_columns`` across;
        default all dimensions but the last down).
    report : bool
        Write ``report.html`` and ``report.json``.
    marker : str, optional
        What a withheld value is written as in the CSV files (e.g. ``"x"``); default empty.
        Parquet always writes null (its column keeps one type).
    overwrite : bool
        Replace files already there; default False refuses, naming them.
    title : str
        The report's title.
    audit : True, False or "auto"
        How the pattern is checked as it leaves, before anything is written; a table it finds
        unsafe is refused. True: the full audit (two linear programs per withheld cell:
        minutes on 20,000 cells); False: the certificates (:func:`pdanon.tables.verify`, each
        primary cell's stored proof re-checked against the cells, under a second on 20,000
        cells); "auto" (default): the full audit up to 2,000 withheld cells. The report says
        which ran.
    """
    given, folder = _formats_folder(formats, where)
    keys = list(dict.fromkeys(given)) + (["pivot"] if pivot else []) + \
        (["report", "report_json"] if report else [])
    paths = {k: os.path.join(folder, TABLE_NAMES[k]) for k in keys}
    return publish_table_files(obj, paths, marker=marker, overwrite=overwrite, title=title,
                               folder=folder, pivot_index=pivot_index,
                               pivot_columns=pivot_columns, audit=audit)


def publish_table_files(obj, paths: dict, *, marker=None, overwrite: bool = False,
                        title: str = "pdanon table report", folder: str | None = None,
                        pivot_index=None, pivot_columns=None,
                        audit="auto") -> TablePublication:
    """:func:`publish_table` with a path per file: ``paths`` maps ``"csv"``, ``"parquet"``,
    ``"pivot"``, ``"report"`` (HTML) and ``"report_json"`` to where each goes (a key left out
    is not written; at least one is needed)."""
    from pdanon.report.tables import public, table_report

    if not is_table(obj):
        raise InvalidInputError(
            f"publish_table writes a protected table (table.protect(...)) or a perturbed one "
            f"(table.cell_key(...)), got {type(obj).__name__}")
    paths = {k: os.fspath(p) for k, p in paths.items() if p is not None}
    unknown = [k for k in paths if k not in TABLE_NAMES]
    if unknown or not paths:
        raise InvalidInputError(f"paths must map some of {list(TABLE_NAMES)} to files; got "
                                f"{sorted(paths)}")
    _check_paths(list(paths.values()), marker, overwrite)
    # 1. the allow-list: everything below is rendered from `pub` alone
    pub = public(obj, audit=audit)
    audit = pub.facts.get("audit")
    if audit is not None and audit["ok"] is False:
        raise PublishError(
            f"the table's audit finds {audit['unsafe']} withheld cells an attacker can narrow "
            f"below their protection: nothing was written. Protect it with "
            f"table.protect(rules) (whose patterns pass the audit)")
    linked = (pub.facts.get("linked") or {}).get("audit")
    if linked is not None and linked["ok"] is False:
        raise PublishError(
            f"this table is one of {pub.facts['linked']['tables']} linked tables whose audit "
            f"finds {linked['unsafe']} unsafe cells: nothing was written. Protect the tables "
            f"together again (pdanon.tables.link(...).protect(rules)) and publish them with "
            f"pdanon.publish(protected_tables, folder)")
    data = {k: p for k, p in paths.items() if k not in ("report", "report_json")}
    reports = {k: p for k, p in paths.items() if k in ("report", "report_json")}

    def render(files):
        return table_report(pub, title=title, files=files)

    files, rep = _write_all([(pub, data, pivot_index, pivot_columns)], reports, render,
                            marker)
    folder = folder or os.path.dirname(os.path.abspath(next(iter(paths.values()))))
    return TablePublication(folder=folder, files=files,
                            audit_ok=None if audit is None else audit["ok"],
                            audit_check=None if audit is None else audit.get("check"), report=rep)


def publish_tables(obj, where, *, names=None, formats=("csv",), pivot: bool = False,
                   report: bool = True, marker=None, overwrite: bool = False,
                   title: str = "pdanon linked tables report", audit="auto"
                   ) -> TablePublication:
    """Write linked protected tables (:class:`pdanon.tables.ProtectedTables`) into the
    folder ``where``: per table ``NAME.csv`` and/or ``NAME.parquet`` (and ``NAME_pivot.csv``
    with ``pivot=True``), ``NAME`` from ``names`` (default ``table_1``, ``table_2``, ...),
    and one ``report.html`` / ``report.json`` over all of them
    (:func:`pdanon.report.tables.linked_report`). Everything is rendered from the allow-list
    :func:`pdanon.report.tables.public_tables`; the linked audit (the attacker who sees
    every table) runs first and an unsafe cell refuses the whole set, nothing written.
    ``formats``, ``marker``, ``overwrite``, ``audit`` as :func:`publish_table`.

    Example
    -------
    >>> import tempfile, pandas as pd, pdanon
    >>> df = pd.DataFrame({"r": list("NNNNNNSSSSSSSS"), "s": list("fmmmmmffffmmmm"),
    ...                    "a": list("xxxyyyxxxxyyyy")})
    >>> p = pdanon.tables.link(df.anon.table(index="r", columns="s"),
    ...                        df.anon.table(index="r", columns="a")).protect({"min_frequency": 3})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     done = pdanon.publish(p, folder, names=["by_sex", "by_age"], formats="csv",
    ...                           pivot=True)
    ...     sorted(done.files), done.audit_ok
    (['by_age.csv', 'by_age_pivot.csv', 'by_sex.csv', 'by_sex_pivot.csv', 'report.html', 'report.json'], True)
    """
    from pdanon.report.tables import check_names

    given, folder = _formats_folder(formats, where)
    if not is_tables(obj):
        raise InvalidInputError(f"publish_tables writes linked protected tables, got "
                                f"{type(obj).__name__}")
    names = check_names(names, len(obj.tables))
    tables = tables_files(folder, names, given, pivot)
    reports = {k: os.path.join(folder, TABLE_NAMES[k]) for k in ("report", "report_json")} \
        if report else {}
    return publish_tables_files(obj, tables, reports, names=names, marker=marker,
                                overwrite=overwrite, title=title, folder=folder, audit=audit)


def tables_files(folder: str, names: list, formats, pivot: bool) -> list:
    """Where each of several tables goes in ``folder``: per name, ``NAME.csv`` and/or
    ``NAME.parquet`` (``formats``) and, with ``pivot``, ``NAME_pivot.csv`` — the ``tables``
    argument of :func:`publish_tables_files`.

    >>> tables_files("out", ["a"], ["csv"], True) == [
    ...     {"csv": os.path.join("out", "a.csv"), "pivot": os.path.join("out", "a_pivot.csv")}]
    True
    """
    out = []
    for name in names:
        mine = {k: os.path.join(folder, f"{name}.{k}") for k in dict.fromkeys(formats)}
        if pivot:
            mine["pivot"] = os.path.join(folder, f"{name}_pivot.csv")
        out.append(mine)
    return out


def publish_tables_files(obj, tables: list, reports: dict, *, names=None, marker=None,
                         overwrite: bool = False, title: str = "pdanon linked tables report",
                         folder: str | None = None, audit="auto") -> TablePublication:
    """:func:`publish_tables` with a path per file: ``tables`` holds one dict per table
    mapping ``"csv"``, ``"parquet"`` and ``"pivot"`` to where each goes; ``reports`` maps
    ``"report"`` (HTML) and ``"report_json"`` (either may be left out). ``pdanon table``
    with several ``--table`` writes through it."""
    from pdanon.report.tables import linked_report, public_tables

    if not is_tables(obj):
        raise InvalidInputError(f"publish_tables writes linked protected tables "
                                f"(pdanon.tables.link(t1, t2).protect(...)), got "
                                f"{type(obj).__name__}")
    tables, reports, everything = _tables_paths(tables, reports, len(obj.tables), marker,
                                                overwrite)
    # 1. the allow-list: everything below is rendered from `pub` alone
    pub = public_tables(obj, names=names, marker=None, audit=audit)
    verdict = pub.facts["audit"]
    if verdict["ok"] is False:
        raise PublishError(
            f"the linked audit (the attacker who sees every table) finds {verdict['unsafe']} "
            f"cells an attacker can narrow below their protection: nothing was written. "
            f"Protect the tables together with pdanon.tables.link(...).protect(rules) (whose "
            f"patterns pass the audit)")

    def render(files):
        return linked_report(pub, title=title, files=files)

    files, rep = _write_all([(p, t, None, None) for p, t in zip(pub.tables, tables)], reports,
                            render, marker)
    folder = folder or os.path.dirname(os.path.abspath(everything[0]))
    return TablePublication(folder=folder, files=files, audit_ok=verdict["ok"],
                            audit_check=verdict.get("check"), report=rep)


def publish_perturbed_tables_files(objs: list, tables: list, *, marker=None,
                                   overwrite: bool = False) -> TablePublication:
    """Write several perturbed tables (``table.cell_key(...)`` of one frame, keys and
    p-table) together: ``tables`` holds one dict per table mapping ``"csv"``, ``"parquet"``
    and ``"pivot"`` to paths, as :func:`publish_tables_files`. Each table's files are
    rendered from its allow-list (:func:`pdanon.report.tables.public`), written under
    temporary names, read back and moved into place together; a failure removes what was
    written. No report: the linked report describes a suppression pattern and its audit
    (``pdanon table --cell-key`` with several ``--table`` writes through it).

    Example
    -------
    >>> import os, tempfile, pandas as pd, pdanon
    >>> from pdanon.tables import ptable, record_keys
    >>> df = pd.DataFrame({"r": list("aabbb"), "s": list("xyxyx"), "g": list("ppqqq")})
    >>> keys, pt = record_keys(df, seed=1), ptable(D=2, V=1)
    >>> objs = [df.anon.table(index="r", columns=c).cell_key(pt, keys) for c in ("s", "g")]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     done = publish_perturbed_tables_files(
    ...         objs, [{"csv": os.path.join(folder, f"{n}.csv")} for n in ("a", "b")])
    ...     sorted(done.files), done.audit_ok
    (['a.csv', 'b.csv'], None)
    """
    from pdanon.report.tables import public

    if not objs or not all(is_table(o) and "noise" in o.cells.columns
                           and "status" not in o.cells.columns for o in objs):
        raise InvalidInputError("publish_perturbed_tables_files writes perturbed tables "
                                "(table.cell_key(...)); protected tables go together through "
                                "publish_tables")
    tables, _, everything = _tables_paths(tables, None, len(objs), marker, overwrite)
    jobs = [(public(o), t, None, None) for o, t in zip(objs, tables)]
    files, _ = _write_all(jobs, {}, None, marker)
    return TablePublication(folder=os.path.dirname(os.path.abspath(everything[0])),
                            files=files, audit_ok=None)


def _tables_paths(tables: list, reports: dict | None, n: int, marker, overwrite: bool):
    """Check the paths of several tables' files (one dict per table: ``"csv"``,
    ``"parquet"``, ``"pivot"``) and, unless ``reports`` is None (no report is written), the
    report's (``"report"``, ``"report_json"``), before anything is written: one set per
    table, known keys, a data file per table, no path twice, nothing overwritten unless
    ``overwrite``. Returns them normalized, with every path in one list."""
    if len(tables) != n:
        raise InvalidInputError(f"give one set of paths per table ({n}), in order")
    tables = [{k: os.fspath(p) for k, p in t.items() if p is not None} for t in tables]
    bad = [k for t in tables for k in t if k not in ("csv", "parquet", "pivot")]
    if reports is not None:
        reports = {k: os.fspath(p) for k, p in reports.items() if p is not None}
        bad += [k for k in reports if k not in ("report", "report_json")]
    if bad or not all(set(t) - {"pivot"} for t in tables):
        said = "" if reports is None else ", the report 'report' and/or 'report_json'"
        raise InvalidInputError(f"each table needs 'csv' and/or 'parquet' (and may take "
                                f"'pivot'){said}; got {bad or tables}")
    everything = [p for t in tables for p in t.values()] + list((reports or {}).values())
    if len({os.path.abspath(p) for p in everything}) != len(everything):
        raise InvalidInputError("two files would be written to the same path: give each "
                                "table its own name")
    _check_paths(everything, marker, overwrite)
    return tables, reports, everything


def _formats_folder(formats, where) -> tuple:
    given = (formats,) if isinstance(formats, str) else tuple(formats or ())
    unknown = [f for f in given if f not in TABLE_FORMATS]
    if unknown or not given:
        raise InvalidInputError(f"formats={formats!r}: give one or more of "
                                f"{list(TABLE_FORMATS)}, e.g. formats=('csv', 'parquet')")
    folder = os.fspath(where)
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise InvalidInputError(f"{folder!r} is a file: publish() writes into a folder")
    return given, folder


def is_tables(obj) -> bool:
    """Linked protected tables (read by their parts)."""
    members = getattr(obj, "tables", None)
    return (hasattr(obj, "union") and isinstance(members, list) and bool(members)
            and all(is_table(m) for m in members))


def _check_paths(paths, marker, overwrite: bool) -> None:
    if marker is not None and (not isinstance(marker, str) or not marker.strip()):
        raise InvalidInputError(f"marker={marker!r}: give a short text such as 'x' or '..' "
                                f"(or None for an empty cell)")
    odd = [p for p in paths if os.path.lexists(p) and not os.path.isfile(p)]
    if odd:
        raise PublishError(f"{odd} exist and are not regular files: give file paths")
    present = [p for p in paths if os.path.exists(p)]
    if present and not overwrite:
        raise PublishError(f"{present} already exist: publish into a new folder, or pass "
                           f"overwrite=True to replace them")


def _write_all(jobs: list, reports: dict, render, marker) -> tuple:
    """Write each job's data files (``(public table, {kind: path}, pivot index, pivot
    columns)``) and the report under temporary names, read each data file back, then move
    all into place; a failure removes what was written. Returns ``(files, report)``."""
    tag = os.urandom(4).hex()
    temp = [{k: f"{p}.pdanon-{tag}.tmp" for k, p in paths.items()} for _, paths, _, _ in jobs]
    rtemp = {k: f"{p}.pdanon-{tag}.tmp" for k, p in reports.items()}
    final = [(t[k], paths[k]) for t, (_, paths, _, _) in zip(temp, jobs) for k in paths]
    final += [(rtemp[k], reports[k]) for k in reports]
    written: list = []
    rep = None
    try:
        for p, _ in final:
            os.makedirs(os.path.dirname(os.path.abspath(p)), exist_ok=True)
        for (pub, _, index, columns), t in zip(jobs, temp):
            _write_data(pub, t, marker, written, index, columns)
        files = {os.path.basename(dest): file_digest(tmp) for tmp, dest in final
                 if tmp not in rtemp.values()}
        if rtemp:
            rep = render([{"name": n, "bytes": f["bytes"], "sha256": f["sha256"]}
                          for n, f in files.items()])
            if "report" in rtemp:
                _write_text(rtemp["report"], rep.to_html(), written)
            if "report_json" in rtemp:
                _write_text(rtemp["report_json"], rep.to_json() + "\n", written)
        for tmp, dest in final:
            os.replace(tmp, dest)
        files = {os.path.basename(dest): file_digest(dest) for _, dest in final}
    except BaseException:
        remove_written(written)
        raise
    return files, rep


def _write_text(path: str, text: str, written: list) -> None:
    written.append(path)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def _labels_as_text(frame: pd.DataFrame, dims: list) -> pd.DataFrame:
    """Dimension columns as text (a leaf ``3`` beside ``"Total"``: one type per column, as
    Parquet needs), missing labels kept missing."""
    out = frame.copy()
    for d in dims:
        out[d] = out[d].astype("string")
    out.attrs = {}
    return out


def _write_data(pub, temp: dict, marker, written: list, pivot_index, pivot_columns) -> None:
    """Write the data files from the published cells and check each read back."""
    from pdanon.io.csvsafe import write_csv

    dims = pub.dimensions
    frame = _labels_as_text(pub.frame, dims)
    shown = frame["value"].copy()
    if marker is not None:
        frame_csv = frame.copy()
        frame_csv["value"] = shown.astype(object).where(shown.notna(), marker)
    else:
        frame_csv = frame
    if "csv" in temp:
        written.append(temp["csv"])
        write_csv(frame_csv, temp["csv"], escape_formulas=True)
        back = pd.read_csv(temp["csv"], dtype=str, keep_default_na=False)
        _same(back["value"], shown, marker, "csv")
    if "parquet" in temp:
        written.append(temp["parquet"])
        frame.to_parquet(temp["parquet"], index=False)
        back = pd.read_parquet(temp["parquet"])
        _same(back["value"], shown, None, "parquet")
    if "pivot" in temp:
        wide = pub.pivot(index=pivot_index, columns=pivot_columns)
        if marker is not None:
            wide = wide.astype(object).where(wide.notna(), marker)
        written.append(temp["pivot"])
        wide.columns = [" / ".join(map(str, c)) if isinstance(c, tuple) else str(c)
                        for c in wide.columns]
        write_csv(wide.reset_index(), temp["pivot"], escape_formulas=True)
        back = pd.read_csv(temp["pivot"], dtype=str, keep_default_na=False)
        if back.shape != (len(wide), wide.shape[1] + wide.index.nlevels):
            raise PublishError("the pivot reads back with another shape: nothing was "
                               "published. This is a bug: please report it")


def _same(back: pd.Series, shown: pd.Series, marker, fmt: str) -> None:
    """The value column read back holds the published values and nothing where withheld."""
    hidden = shown.isna().to_numpy()
    if len(back) != len(shown):
        raise PublishError(f"the {fmt} file reads back with {len(back)} cells for "
                           f"{len(shown)}: nothing was published. This is a bug")
    if fmt == "csv":
        blank = "" if marker is None else str(marker)
        ok_hidden = (back.to_numpy()[hidden] == blank).all()
        got = pd.to_numeric(pd.Series(back.to_numpy()[~hidden]), errors="coerce").to_numpy(
            dtype=float)
    else:
        ok_hidden = back.isna().to_numpy()[hidden].all()
        got = pd.to_numeric(back[~hidden], errors="coerce").to_numpy(dtype=float)
    want = shown[~hidden].to_numpy(dtype=float)
    if not ok_hidden or not np.allclose(got, want, rtol=1e-12, atol=0, equal_nan=False):
        raise PublishError(f"the {fmt} file does not read back as the published cells: "
                           f"nothing was published. This is a bug: please report it")
