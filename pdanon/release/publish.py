"""One way out: write a release, its schema, its report and its recoding together, then read the
data back and measure it again.

:func:`publish` is what ``out.anon.publish(folder)`` runs. In order:

1. **check** the release against ``policy`` (default: the release's own request,
   :meth:`pdanon.Policy.default`) with the original when given; a failing verdict writes
   nothing (:class:`PublishError`) unless ``force=True``, which the report then states;
2. **write** the rows as they are (a pdanon release is already in a random order under a fresh
   index, :mod:`pdanon.checks.row_order`), without the index: ``release.parquet`` (roles and ``info``
   in its metadata; publisher-only facts serialize as ``{}``) and/or ``release.csv``
   (formula-guarded, :func:`pdanon.io.csvsafe.write_csv`), and ``release.schema.yaml`` (roles,
   kinds, categories, the CSV guard), so that ``pdanon.read_csv(path, schema=...)`` restores
   the frame;
3. **read back** every data file and check it again with the same policy: the verdict and
   every criterion's figure must be those of step 1, else the files are removed and the call
   fails (what leaves is what was checked);
4. **report** (``report.html``, ``report.json``) made from the frame read back, its rows
   named by their place in the file (``0`` is the first row after the header), with the
   SHA-256 of every file's bytes beside the serialization digest;
5. the **recoding** (``recoding.json``) when asked.

No file is written before the verdict. Every file is written under a temporary name beside
its place and moved into place only when all are written, read back and checked, so a failure
leaves the folder as it was. Existing files are never replaced unless ``overwrite=True``, and
a path that is not a regular file (a device, a FIFO) is refused.

Example
-------
>>> import tempfile, pandas as pd, pdanon
>>> df = pd.DataFrame({"age": [30, 31, 40, 42, 50, 52], "zip": ["021"] * 6})
>>> out = df.anon.k_anonymize(2, quasi_identifiers=["age"], insensitive=["zip"])
>>> with tempfile.TemporaryDirectory() as folder:
...     done = out.anon.publish(folder, original=df)
...     sorted(done.files), done.verdict.passed
(['release.parquet', 'release.schema.yaml', 'report.html', 'report.json'], True)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.release.files import PublishError, file_digest, remove_written

__all__ = ["FORMATS", "Publication", "PublishError", "publish", "publish_files"]

#: the data formats :func:`publish` writes
FORMATS = ("parquet", "csv")
#: the name of each file in the folder
NAMES = {"parquet": "release.parquet", "csv": "release.csv", "schema": "release.schema.yaml",
         "report": "report.html", "report_json": "report.json", "recoding": "recoding.json"}


@dataclass(frozen=True)
class Publication:
    """What :func:`publish` wrote: ``folder``; ``files`` (name -> ``{"path", "bytes",
    "sha256"}``); the ``verdict`` (a :class:`pdanon.checks.policy.CheckResult`, of the files read
    back); the ``report`` (a :class:`pdanon.report.ReleaseReport`, or None); ``forced``
    (written although the verdict failed)."""

    folder: str
    files: dict = field(repr=False)
    verdict: object = field(repr=False)
    report: object = field(default=None, repr=False)
    forced: bool = False

    def __repr__(self) -> str:
        head = "PASSED" if self.verdict.passed else "FAILED (written with force=True)"
        names = ", ".join(f"{n} ({f['bytes']:,} bytes)" for n, f in self.files.items())
        return f"Publication({self.folder!r}: {head}; {names})"


def _formats(formats) -> tuple:
    given = (formats,) if isinstance(formats, str) else tuple(formats or ())
    unknown = [f for f in given if f not in FORMATS]
    if unknown or not given:
        raise InvalidInputError(f"formats={formats!r}: give one or more of {list(FORMATS)}, "
                                f"e.g. formats=('parquet', 'csv')")
    return tuple(dict.fromkeys(given))


_sha256 = file_digest


def _failed(verdict) -> str:
    rows = verdict.criteria[~verdict.criteria["passed"]]
    return "; ".join(f"{r.criterion} {r.measured!r} (needs {r.rule} {r.threshold!r})"
                     for r in rows.itertuples(index=False))


def _without_attacks(policy):
    """``policy`` without the attack limits (:mod:`pdanon.checks.attack_risks`)."""
    from dataclasses import replace

    from pdanon.checks.attack_risks import ASKED

    return replace(policy, **{name: None for name in ASKED})


def _same_verdict(first, again) -> bool:
    """Does the file read back (``again``) measure what the frame did (``first``)? The same
    criteria (but the attacks'), each with the same figure, and so the same verdict."""
    from pdanon.checks.attack_risks import ASKED

    attacks = {key for _, key, _ in ASKED.values()}
    kept = first.criteria[~first.criteria["criterion"].isin(attacks)]
    if bool(kept["passed"].all()) != bool(again.passed):
        return False
    a = kept.set_index("criterion")["measured"]
    b = again.criteria.set_index("criterion")["measured"]
    if sorted(a.index) != sorted(b.index):
        return False
    x = pd.to_numeric(a, errors="coerce").to_numpy(dtype=float)
    y = pd.to_numeric(b[a.index], errors="coerce").to_numpy(dtype=float)
    return bool(np.allclose(x, y, rtol=1e-9, atol=1e-12, equal_nan=True))


def _as_publisher_sees(again: pd.DataFrame, release: pd.DataFrame) -> pd.DataFrame:
    """The file read back (its rows are the release's, in the release's order), in this
    process only: labelled as the release, with the release's publisher-only facts (which no
    file carries), so that checks against the original pair the same rows."""
    import copy

    from pdanon.publisher_only import PublisherOnly, facts_of

    seen = again.set_axis(release.index)
    attrs = copy.deepcopy(again.attrs) if again.attrs.get("pdanon") else \
        copy.deepcopy(release.attrs)
    if attrs.get("pdanon") is not None:
        attrs["pdanon"].setdefault("info", {})["publisher_only"] = PublisherOnly(
            facts_of(release))
    seen.attrs = attrs
    return seen


def publish(release: pd.DataFrame, where, *, formats=("parquet",), report: bool = True,
            recoding: bool = False, policy=None, original: pd.DataFrame | None = None,
            force: bool = False, overwrite: bool = False, csv_escape: bool = True,
            title: str = "pdanon release report",
            control: pd.DataFrame | None = None, pivot: bool = False,
            marker=None, audit="auto", names=None) -> Publication:
    """Check ``release``, write it with its schema, report and recoding into the folder
    ``where``, read the data back and measure it again (module docstring).

    A protected or perturbed table (``table.protect(...)``, ``table.cell_key(...)``) is
    written by :func:`pdanon.release.tables.publish_table` (its cells, ``pivot=True`` its
    pivot, its report; ``marker`` for withheld values in CSV; ``audit=`` chooses the full audit
    or the certificates (default "auto"); ``formats``, ``report``, ``overwrite`` and ``title`` as here).
    Linked protected tables (``pdanon.tables.link(t1, t2).protect(...)``) are written by
    :func:`pdanon.release.tables.publish_tables`: every table (``table_1.csv`` ... or
    ``names=[...]``) and one report over all of them, refused when the linked audit finds
    an unsafe cell.

    Parameters
    ----------
    release : DataFrame
        A frame a pdanon face returned (its ``attrs`` hold the roles and ``info``).
    where : str or path
        A folder (made when missing).
    formats : "parquet", "csv" or both
        The data files; the schema is always written (a CSV needs it to read back).
    report : bool
        Write ``report.html`` and ``report.json``.
    recoding : bool
        Write ``recoding.json`` (the release's published cells per column, for the next
        batch: ``batch.anon.apply_recoding(pdanon.Recoding.from_json(text))``).
    policy : pdanon.Policy, optional
        Default: the release's own request (:meth:`pdanon.Policy.default`).
    original : DataFrame, optional
        The frame the release was made from (matched through the release's publisher-only
        way back): suppressed rows are told from rows blank from the start, and the report
        compares. It is never written.
    force : bool
        Write although the verdict fails (the report says so); default False refuses.
    overwrite : bool
        Replace files already in the folder; default False refuses, naming them.
    csv_escape : bool
        Guard CSV cells a spreadsheet would run as formulas (the schema records it, and
        ``pdanon.read_csv`` with it removes the guard).
    title : str
        The report's title.
    control : DataFrame, optional
        Held-out rows (:func:`pdanon.attacks.holdout`) for the attacks a policy asks for
        (``max_singling_out``, ``max_linkability``, ``max_inference``); the report shows the
        verdict's attacks as they were drawn.
    """
    from pdanon.release.tables import is_table, is_tables, publish_table, publish_tables

    if is_table(release) or is_tables(release):
        asked = [name for name, value in (("policy", policy), ("original", original),
                                          ("control", control)) if value is not None]
        asked += [name for name, value in (("recoding", recoding), ("force", force)) if value]
        if asked:
            raise InvalidInputError(f"publish() of a table takes no {', '.join(asked)}= "
                                    f"(they check microdata); a table is audited instead")
        if is_tables(release):
            return publish_tables(release, where, names=names, formats=formats, pivot=pivot,
                                  report=report, marker=marker, overwrite=overwrite,
                                  audit=audit, title="pdanon linked tables report"
                                  if title == "pdanon release report" else title)
        if names is not None:
            raise InvalidInputError("names= names the files of linked tables; a single "
                                    "table is written as table.csv ...")
        return publish_table(release, where, formats=formats, pivot=pivot, report=report,
                             marker=marker, overwrite=overwrite, audit=audit,
                             title="pdanon table report" if title == "pdanon release report"
                             else title)
    if pivot or marker is not None or not audit or names is not None:
        raise InvalidInputError("pivot=, marker=, audit= and names= are for protected "
                                "tables; a microdata release is written row by row")
    chosen = _formats(formats)
    folder = os.fspath(where)
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise InvalidInputError(f"{folder!r} is a file: publish() writes into a folder")
    paths = {key: os.path.join(folder, NAMES[key]) for key in chosen}
    paths["schema"] = os.path.join(folder, NAMES["schema"])
    if report:
        paths.update(report=os.path.join(folder, NAMES["report"]),
                     report_json=os.path.join(folder, NAMES["report_json"]))
    if recoding:
        paths["recoding"] = os.path.join(folder, NAMES["recoding"])
    return publish_files(release, paths, policy=policy, original=original, force=force,
                         overwrite=overwrite, csv_escape=csv_escape, title=title,
                         folder=folder, control=control)


def publish_files(release: pd.DataFrame, paths: dict, *, policy=None,
                  original: pd.DataFrame | None = None, force: bool = False,
                  overwrite: bool = False, csv_escape: bool = True,
                  title: str = "pdanon release report", folder: str | None = None,
                  verdict=None, survey: dict | None = None,
                  control: pd.DataFrame | None = None) -> Publication:
    """:func:`publish` with a path per file: ``paths`` maps ``"parquet"`` / ``"csv"`` (the
    data, at least one), ``"schema"``, ``"report"``, ``"report_json"`` and ``"recoding"`` to
    where each goes (a key left out is not written: a CSV is read back with the schema in
    memory, and the report is built when either of its files is asked for). The command
    line's ``pdanon anonymize`` writes through it. ``verdict`` is a check already made with
    ``policy`` (not made again before writing; its attacks are the report's). ``control``:
    held-out rows for the attacks a policy may ask for (``max_singling_out`` and the like;
    :func:`pdanon.attacks.holdout`), when no verdict is given. ``survey``: the report's
    ``weights`` and ``household`` columns (default: the policy's weights)."""
    from pdanon.checks.policy import check
    from pdanon.roles import ATTRS_KEY

    if not isinstance(release, pd.DataFrame):
        raise InvalidInputError(f"publish() writes a DataFrame, got {type(release).__name__}")
    if not (release.attrs.get(ATTRS_KEY) or {}).get("info"):
        raise PublishError("publish() writes a frame a pdanon face returned (its attrs hold "
                           "the roles and what was done); this one carries none: anonymize "
                           "it first, or give it roles with df.anon.with_schema(...) and check "
                           "it with df.anon.check(policy) before writing it yourself")
    paths = {key: os.fspath(path) for key, path in paths.items() if path is not None}
    unknown = [key for key in paths if key not in NAMES]
    data = [key for key in FORMATS if key in paths]
    if unknown or not data:
        raise InvalidInputError(f"paths must map one or more of {list(FORMATS)} (and "
                                f"optionally {[k for k in NAMES if k not in FORMATS]}) to "
                                f"files; got {sorted(paths)}")
    folder = folder or os.path.dirname(os.path.abspath(paths[data[0]]))
    odd = [p for p in paths.values() if os.path.lexists(p) and not os.path.isfile(p)]
    if odd:
        raise PublishError(f"{odd} exist and are not regular files (a device, a FIFO, a "
                           f"folder): publish writes files it can read back; give file paths")
    present = [p for p in paths.values() if os.path.exists(p)]
    if present and not overwrite:
        raise PublishError(f"{present} already exist: publish into a new folder, or pass "
                           f"overwrite=True to replace them")
    if verdict is None:
        verdict = check(release, policy, original=original, control=control)
    if not verdict.passed and not force:
        raise PublishError(f"the release fails its policy ({_failed(verdict)}); nothing was "
                           f"written. Anonymize further, or pass force=True to write it "
                           f"anyway (the report then says so)")
    names = {key: os.path.basename(p) for key, p in paths.items()}
    final_paths, written = paths, []
    # every file is written under a temporary name beside its place, read back from there,
    # and moved into place only when all of them are written and checked: a failure leaves
    # the folder as it was (the temporary files removed), never half a release
    tag = os.urandom(4).hex()
    paths = {key: f"{p}.pdanon-{tag}.tmp" for key, p in final_paths.items()}
    try:
        for p in paths.values():
            os.makedirs(os.path.dirname(os.path.abspath(p)), exist_ok=True)
        frame = release.reset_index(drop=True)
        frame.attrs = release.attrs
        back = _write_data(frame, data, paths, csv_escape, written)
        # each file read back is checked as its publisher sees it: the release's publisher-only
        # facts (the channels measured against the original, the way back) and the original,
        # so its verdict lists the criteria the frame's did, with the same figures
        # (the attacks' criteria are the frame's: they are drawn at random, and read the
        # same cells the other criteria compare)
        measured_back = {fmt: check(_as_publisher_sees(again, release),
                                    _without_attacks(verdict.policy), original=original)
                         for fmt, again in back.items()}
        for fmt, measured in measured_back.items():
            if not _same_verdict(verdict, measured):
                raise PublishError(
                    f"the {fmt} file reads back with another verdict ({measured!r} against "
                    f"{verdict!r}): nothing was published. This is a bug: please report it")
        if "recoding" in paths:
            _write_text(paths["recoding"], release.anon.recoding.to_json(indent=1) + "\n",
                        written)
        files = {names[key]: _sha256(paths[key]) for key in paths
                 if key not in ("report", "report_json")}
        rep = None
        if "report" in paths or "report_json" in paths:
            rep = _report(back, frame, release, original, verdict.policy, title, files, force,
                          verdict, survey)
            if "report" in paths:
                _write_text(paths["report"], rep.to_html(), written)
            if "report_json" in paths:
                _write_text(paths["report_json"], rep.to_json(), written)
        for key, path in paths.items():
            os.replace(path, final_paths[key])
            if names[key] in files:  # hashed above, under its temporary name
                files[names[key]]["path"] = final_paths[key]
    except BaseException:
        remove_written(written)
        raise
    files.update({names[key]: _sha256(final_paths[key]) for key in ("report", "report_json")
                  if key in final_paths})
    # the files' verdict; the frame's where it ran attacks (drawn once: the file read back
    # matched it on every other criterion)
    shown = verdict if getattr(verdict, "attacks", None) else next(iter(measured_back.values()))
    return Publication(folder=folder, files=files, verdict=shown,
                       report=rep,
                       forced=bool(force and not verdict.passed))


def _write_text(path: str, text: str, written: list) -> None:
    written.append(path)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def _write_data(frame: pd.DataFrame, chosen, paths: dict, csv_escape: bool,
                written: list) -> dict:
    """Write the data files and the schema; return each data file read back."""
    from pdanon.io.csvsafe import write_csv
    from pdanon.io import read_csv
    from pdanon.roles import schema_to_yaml

    sch = frame.anon.schema
    if "csv" in chosen and csv_escape:
        sch.metadata["pdanon"]["csv"] = {"formulas_guarded": True}
    if "schema" in paths:
        _write_text(paths["schema"], schema_to_yaml(sch), written)
    back = {}
    if "parquet" in chosen:
        path = paths["parquet"]
        written.append(path)
        frame.to_parquet(path, index=False)
        back["parquet"] = pd.read_parquet(path)
    if "csv" in chosen:
        path = paths["csv"]
        written.append(path)
        write_csv(frame, path, escape_formulas=csv_escape)
        back["csv"] = read_csv(path, schema=sch)
    return back


def _report(back: dict, frame, release, original, policy, title, files, forced, verdict,
            survey=None):
    """The report of the file read back (Parquet's when written), rows named by their place
    in the file, with the files' digests."""
    from pdanon.metrics._common import aligned
    from pdanon.report import build_report

    import copy

    from pdanon.publisher_only import PublisherOnly, facts_of

    shown = back.get("parquet", back.get("csv"))
    if shown.attrs.get("pdanon") is None:
        shown.attrs = copy.deepcopy(frame.attrs)
    matched = None
    if original is not None:
        matched = aligned(original, release).set_axis(shown.index)
        # the file's row i is the original's row matched[i]: say so, in this process only,
        # beside the release's other publisher-only facts (the channels it measured)
        info = shown.attrs["pdanon"]["info"]
        info["publisher_only"] = PublisherOnly({
            **facts_of(release),
            "step_rows": pd.Series(np.arange(len(shown)), index=shown.index),
            "step_index": matched.index})
    survey = {"weights": getattr(policy, "weights", None), **(survey or {})}
    # the attacks the verdict ran are shown as drawn (attacking again would draw anew)
    rep = build_report(shown, matched, title=title, policy=policy,
                       attacks=getattr(verdict, "attacks", None) or None, **survey)
    rep.parameters["files"] = [{"name": n, "bytes": f["bytes"], "sha256": f["sha256"]}
                               for n, f in files.items()]
    if forced and not verdict.passed:
        rep.notes.insert(0, f"Written with force=True although the release fails its "
                            f"policy: {_failed(verdict)}.")
    return rep
