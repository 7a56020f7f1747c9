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
from pdanon.release.files import PublishError, file_digest

__all__ = ["TABLE_FORMATS", "TablePublication", "publish_table", "publish_table_files"]

#: the data formats :func:`publish_table` writes
TABLE_FORMATS = ("csv", "parquet")
#: the name of each file in the folder
TABLE_NAMES = {"csv": "table.csv", "parquet": "table.parquet", "pivot": "table_pivot.csv",
               "report": "report.html", "report_json": "report.json"}


@dataclass(frozen=True)
class TablePublication:
    """What :func:`publish_table` wrote: ``folder``; ``files`` (name -> ``{"path", "bytes",
    "sha256"}``); ``audit_ok`` (the full audit passed; None for a perturbed table or
    ``audit=False``);
    ``report`` (a :class:`pdanon.report.tables.TableReport`, or None)."""

    folder: str
    files: dict = field(repr=False)
    audit_ok: bool | None
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
                  pivot_index=None, pivot_columns=None, audit: bool = True
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
    audit : bool
        Run the full audit first (default) and refuse a table it finds unsafe. ``False``
        skips it for a large table (its full audit solves two linear programs per withheld
        cell: minutes on 20,000 cells) and relies on :func:`pdanon.tables.protect`'s check
        of every primary cell; the report says the audit was not run at publication.
    """
    given = (formats,) if isinstance(formats, str) else tuple(formats or ())
    unknown = [f for f in given if f not in TABLE_FORMATS]
    if unknown or not given:
        raise InvalidInputError(f"formats={formats!r}: give one or more of "
                                f"{list(TABLE_FORMATS)}, e.g. formats=('csv', 'parquet')")
    folder = os.fspath(where)
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise InvalidInputError(f"{folder!r} is a file: publish() writes into a folder")
    keys = list(dict.fromkeys(given)) + (["pivot"] if pivot else []) + \
        (["report", "report_json"] if report else [])
    paths = {k: os.path.join(folder, TABLE_NAMES[k]) for k in keys}
    return publish_table_files(obj, paths, marker=marker, overwrite=overwrite, title=title,
                               folder=folder, pivot_index=pivot_index,
                               pivot_columns=pivot_columns, audit=audit)


def publish_table_files(obj, paths: dict, *, marker=None, overwrite: bool = False,
                        title: str = "pdanon table report", folder: str | None = None,
                        pivot_index=None, pivot_columns=None,
                        audit: bool = True) -> TablePublication:
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
    if marker is not None and (not isinstance(marker, str) or not marker.strip()):
        raise InvalidInputError(f"marker={marker!r}: give a short text such as 'x' or '..' "
                                f"(or None for an empty cell)")
    odd = [p for p in paths.values() if os.path.lexists(p) and not os.path.isfile(p)]
    if odd:
        raise PublishError(f"{odd} exist and are not regular files: give file paths")
    present = [p for p in paths.values() if os.path.exists(p)]
    if present and not overwrite:
        raise PublishError(f"{present} already exist: publish into a new folder, or pass "
                           f"overwrite=True to replace them")
    # 1. the allow-list: everything below is rendered from `pub` alone
    pub = public(obj, audit=audit)
    audit = pub.facts.get("audit")
    if audit is not None and audit["ok"] is False:
        raise PublishError(
            f"the table's audit finds {audit['unsafe']} withheld cells an attacker can narrow "
            f"below their protection: nothing was written. Protect it with "
            f"table.protect(rules) (whose patterns pass the audit)")
    folder = folder or os.path.dirname(os.path.abspath(next(iter(paths.values()))))
    names = {k: os.path.basename(p) for k, p in paths.items()}
    tag = os.urandom(4).hex()
    temp = {k: f"{p}.pdanon-{tag}.tmp" for k, p in paths.items()}
    written: list = []
    try:
        for p in temp.values():
            os.makedirs(os.path.dirname(os.path.abspath(p)), exist_ok=True)
        _write_data(pub, temp, marker, written, pivot_index, pivot_columns)
        files = {names[k]: file_digest(temp[k]) for k in temp if k not in ("report", "report_json")}
        rep = None
        if "report" in temp or "report_json" in temp:
            rep = table_report(pub, title=title, files=[
                {"name": n, "bytes": f["bytes"], "sha256": f["sha256"]}
                for n, f in files.items()])
            if "report" in temp:
                _write_text(temp["report"], rep.to_html(), written)
            if "report_json" in temp:
                _write_text(temp["report_json"], rep.to_json() + "\n", written)
        for k, p in temp.items():
            os.replace(p, paths[k])
        files = {names[k]: {**file_digest(paths[k])} for k in paths}
    except BaseException:
        for p in written:
            try:
                if os.path.isfile(p):
                    os.remove(p)
            except OSError:
                pass
        raise
    return TablePublication(folder=folder, files=files,
                            audit_ok=None if audit is None else audit["ok"], report=rep)


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
