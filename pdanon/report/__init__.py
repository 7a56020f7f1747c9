"""The release report: one self-contained HTML page (and a JSON export) that tells a publisher
what a de-identified table is, how it was made, how safe and how useful it is.

:func:`build_report` gathers the facts (``df.anon.report(...)`` and ``depersonalize --report``
call it); :class:`ReleaseReport` holds them and renders itself (``to_html``, ``to_json``,
``save``, and ``_repr_html_`` for Jupyter). The page has no script and no URL: styles and
SVG figures are inline, so it opens offline and can travel with the release.

A report never holds a cell of the original frame, a seed or a key (see docs/report.md):
the original is compared with the release and digested, never copied.

Example
-------
>>> import pandas as pd, pdanon
>>> df = pd.DataFrame({"age": [30, 31, 40, 42], "d": ["a", "b", "a", "b"]})
>>> out = df.anon.k_anonymize(2, sensitive=["d"], algorithm="mondrian")
>>> rep = build_report(out, df)
>>> rep.privacy["k"], rep.utility["changed_cells"]
(2, 4)
>>> rep.to_html().startswith("<!DOCTYPE html>")
True
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass, field

import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.report import columns as _columns
from pdanon.report import facts as _facts

__all__ = ["ReleaseReport", "build_report"]


@dataclass
class ReleaseReport:
    """The facts of a release, ready to render.

    Attributes
    ----------
    title : str
    parameters : dict
        Roles and kinds, operation, model and its parameters, options, hierarchy levels,
        randomness source, pdanon version, digests of the released and original frames.
    privacy : dict
        ``k``, ``l_distinct``, ``l_entropy``, ``t_emd``, ``risk_summary`` (as
        :func:`pdanon.metrics.risk_summary`), ``class_sizes`` and per-row ``prosecutor`` risk.
    utility : dict
        Changed cells, classes, average class size, C_AVG, discernibility, information loss,
        ``ml`` (gradient-boosting figures when a target was given).
    columns : list of dict
        One per quasi-identifier: how it was published.
    suppressed : DataFrame
        ``row`` (index label), ``suppressed`` ("row" or "cells"), ``reason`` and the published
        quasi-identifier cells of every suppressed row.
    metrics : DataFrame
        :func:`pdanon.metrics.metrics_table` of the release.
    tradeoff : DataFrame or None
        The candidates tried (e.g. the table of :func:`pdanon.plot.tradeoff`).
    notes : list of str
    """

    title: str
    parameters: dict
    privacy: dict
    utility: dict
    columns: list
    suppressed: pd.DataFrame
    metrics: pd.DataFrame
    tradeoff: pd.DataFrame | None = None
    notes: list = field(default_factory=list)
    original_given: bool = False

    def to_dict(self) -> dict:
        """Every fact as JSON-safe Python objects (NaN and infinities as None)."""
        tables = {name: None if t is None else _facts.plain(t.to_dict(orient="records"))
                  for name, t in (("suppressed", self.suppressed), ("metrics", self.metrics),
                                  ("tradeoff", self.tradeoff))}
        return _facts.plain({"title": self.title, "parameters": self.parameters,
                             "privacy": self.privacy, "utility": self.utility,
                             "columns": self.columns, **tables, "notes": self.notes,
                             "original_given": self.original_given})

    def to_json(self, indent: int | None = 1) -> str:
        """The facts as JSON (:meth:`to_dict`; strict JSON: no NaN)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, allow_nan=False)

    def to_html(self) -> str:
        """The whole report as one self-contained HTML document."""
        from pdanon.report import html

        return html.page(self)

    def _repr_html_(self) -> str:
        from pdanon.report import html

        return f"<style>{html.CSS}</style>\n{html.body(self)}"

    def save(self, path) -> str:
        """Write :meth:`to_html` to ``path`` (UTF-8) and return the path."""
        path = os.fspath(path)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(self.to_html())
        return path


def _candidates(tradeoff: pd.DataFrame) -> pd.DataFrame:
    """The candidates table without its timings (``seconds``: they differ between runs, and
    the same input must give the same page, byte for byte)."""
    table = pd.DataFrame(tradeoff).reset_index(drop=True)
    return table.drop(columns=[c for c in table.columns if str(c).endswith("seconds")])


def _check(anonymized, original, title, target, tradeoff) -> None:
    if not isinstance(anonymized, pd.DataFrame):
        raise InvalidInputError(f"report needs the released table as a pandas DataFrame, got "
                                f"{type(anonymized).__name__}")
    if original is not None and not isinstance(original, pd.DataFrame):
        raise InvalidInputError(f"original must be the DataFrame that was anonymized (or "
                                f"None), got {type(original).__name__}")
    if not isinstance(title, str) or not title.strip():
        raise InvalidInputError("title must be a non-empty string, e.g. title='Survey 2024'")
    if target is not None:
        if original is None:
            raise InvalidInputError("target= measures ML utility against the original: pass "
                                    "original=<the frame before anonymization>")
        for name, frame in (("original", original), ("released table", anonymized)):
            if target not in frame.columns:
                raise InvalidInputError(f"target={target!r} is not a column of the {name}; "
                                        f"choose one of {list(frame.columns)}")
    if tradeoff is not None:
        ok = (isinstance(tradeoff, pd.DataFrame) and len(tradeoff.columns)
              and "information_loss" in tradeoff.columns)
        if not ok:
            raise InvalidInputError("tradeoff must be a DataFrame whose first column is the "
                                    "parameter tried and with an 'information_loss' column, "
                                    "such as the table of pdanon.plot.tradeoff")


def build_report(anonymized: pd.DataFrame, original: pd.DataFrame | None = None, *,
                 title: str = "pdanon release report", target=None,
                 tradeoff: pd.DataFrame | None = None, threshold: float = 0.2,
                 random_state: int = 0, **roles) -> ReleaseReport:
    """Gather the facts of the release ``anonymized`` (a frame made by any pdanon
    anonymizer or perturbation, or read back from Parquet) into a :class:`ReleaseReport`.

    Parameters
    ----------
    original : DataFrame, optional
        The frame before anonymization (same index). Without it the report leaves out what
        needs it (changed cells, information loss, suppressed cells told apart from cells
        missing from the start) and says so in its notes.
    title : str
    target : column, optional
        Measure machine-learning utility: gradient boosting predicting ``target`` on the
        original vs the release (and the linkage attack), seeded by ``random_state``.
    tradeoff : DataFrame, optional
        Several candidates tried: the parameter in the first column, ``information_loss``
        and optionally ``suppressed_fraction`` (the table of :func:`pdanon.plot.tradeoff`).
    threshold : float
        Prosecutor risk above which a record is counted as at risk (default 0.2).
    **roles
        ``identifiers``, ``quasi_identifiers``, ``sensitive``, ``insensitive``; default: the
        roles the release remembers.
    """
    from pdanon.metrics.report import metrics_table
    from pdanon.roles import resolve_roles

    _check(anonymized, original, title, target, tradeoff)
    unknown = [k for k in roles if k not in ("identifiers", "quasi_identifiers", "sensitive",
                                             "insensitive")]
    if unknown:
        raise InvalidInputError(f"unknown keyword(s) {unknown}; role keywords are "
                                f"identifiers, quasi_identifiers, sensitive, insensitive")
    r = resolve_roles(anonymized, guess_identifiers="warn", **roles)
    qis, sens = dict(r.quasi_identifiers), dict(r.sensitive)
    if not qis:
        raise InvalidInputError("the report needs at least one quasi-identifier: pass "
                                "quasi_identifiers=[...] or report on a frame pdanon made")
    info = copy.deepcopy(anonymized.attrs.get("pdanon", {}).get("info", {}))
    notes = []
    orig = None
    if original is not None:
        from pdanon.metrics._common import aligned

        orig = aligned(original, anonymized)
        missing = [c for c in qis if c not in orig.columns]
        if missing:
            raise InvalidInputError(f"original lacks the quasi-identifier column(s) {missing}: "
                                    f"pass the frame that was anonymized")
    ml = target is not None
    try:
        table = metrics_table(anonymized, orig, quasi_identifiers=qis, sensitive=sens,
                              target=target, ml=ml, random_state=random_state,
                              threshold=threshold)
    except ImportError as exc:  # scikit-learn missing: the rest of the report still stands
        notes.append(f"ML utility left out: {exc}")
        table = metrics_table(anonymized, orig, quasi_identifiers=qis, sensitive=sens,
                              threshold=threshold)
    suppressed, full = _columns.suppressed_rows(anonymized, orig, qis, info)
    params = _facts.parameters(anonymized, original, r, info, title)
    privacy = _facts.privacy(anonymized, list(qis), sens, table, threshold, info)
    report = ReleaseReport(
        title=title, parameters=params, privacy=privacy,
        utility=_facts.utility(anonymized, orig, qis, table, info, full,
                               privacy["requested"]),
        columns=_facts.plain(_columns.column_facts(anonymized, orig, qis, info)),
        suppressed=suppressed, metrics=pd.DataFrame(table),
        tradeoff=None if tradeoff is None else _candidates(tradeoff),
        notes=notes + _notes(original, target, info, sens), original_given=orig is not None)
    if full.any():
        report.notes.insert(0, f"k is measured on every published row: the {int(full.sum()):,} "
                            f"rows withheld whole (every quasi-identifier missing) form one "
                            f"class of their own. The anonymizer's own check, which leaves "
                            f"them out, recorded "
                            f"{_achieved(info) or 'nothing'}.")
    return report


def _achieved(info: dict) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in (info.get("achieved") or {}).items())


def _notes(original, target, info: dict, sensitive: dict) -> list:
    out = []
    if original is None:
        out.append("No original table was given: changed cells, information loss and "
                   "utility comparisons are left out, and a missing quasi-identifier cell "
                   "counts as suppressed even if it was missing from the start.")
    if target is None:
        out.append("Machine-learning utility was not measured: pass target=<column>.")
    if not sensitive:
        out.append("No sensitive column is declared: l-diversity and t-closeness are not "
                   "measured.")
    if not info:
        out.append("The table carries no pdanon info (it was not made by pdanon, or its "
                   "attributes were lost): the parameters of the release are unknown.")
    out.append("Seeds and keys are never stored by pdanon and never appear here; keep them "
               "apart from the release.")
    return out
