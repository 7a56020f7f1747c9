"""The release report: one self-contained HTML page (and a JSON export) that tells a publisher
what a de-identified table is, how it was made, how safe and how useful it is.

:func:`build_report` gathers the facts (``df.anon.report(...)`` and ``depersonalize --report``
call it); :class:`ReleaseReport` holds them and renders itself (``to_html``, ``to_json``,
``save``, and ``_repr_html_`` for Jupyter). The page has no script and no URL: styles and
SVG figures are inline, so it opens offline and can travel with the release.

A report may travel with the release, so it holds nothing that lets a recipient recompute a
value the release hides (see docs/report.md): no cell of the original, no seed, no key, no
unkeyed digest of the original (only a keyed one, with ``digest_key=``), no width or loss
measured against the original's range, no figure that measures how far hidden values lie
from the published ones, and it never tells a suppressed cell from a missing one.

Example
-------
>>> import pandas as pd, pdanon
>>> df = pd.DataFrame({"age": [30, 31, 40, 42], "d": ["a", "b", "a", "b"]})
>>> out = df.anon.k_anonymize(2, sensitive=["d"], algorithm="mondrian")
>>> rep = build_report(out, df)
>>> rep.privacy["k_anonymity"], rep.utility["changed_cells"]
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
        randomness source, pdanon version, the digest of the released frame and, with
        ``digest_key``, the keyed digest of the original.
    privacy : dict
        ``k_anonymity``, ``l_diversity_distinct``, ``l_diversity_entropy``,
        ``t_closeness_emd``, ``risk_summary`` (as :func:`pdanon.metrics.risk_summary`:
        ``highest_prosecutor_risk``, ``records_at_risk``, ...), ``achieved`` and
        ``requested`` (as the anonymizer recorded them), ``threshold``, ``class_sizes`` and
        per-row ``prosecutor`` risk.
    utility : dict
        ``rows``, ``changed_cells``, ``changed_proportion``, ``information_loss``,
        ``equivalence_classes``, ``average_class_size``, ``normalized_average_class_size``
        (C_AVG), ``discernibility``, ``ml`` (gradient-boosting figures when a target was
        given: ``boosting_security_score``, ``boosting_accuracy_ratio``). Every figure's key
        is that of :data:`pdanon.metrics.FIGURES` (and of the ``metric`` column of
        ``metrics``); the HTML page shows their labels.
    columns : list of dict
        One per quasi-identifier and sensitive column (``role``): how it was published.
    suppressed : DataFrame
        The rows published with blank quasi-identifier cells, one row per reason: ``reason``
        (the method's rule), ``rows``, ``blank`` ("every quasi-identifier" or "some
        quasi-identifiers"), ``columns`` (those blank in some of its rows) and ``index`` (the
        index labels of all its rows). From the release alone: a blank cell the method
        withheld and one missing from the start are counted alike.
    metrics : DataFrame
        :func:`pdanon.metrics.metrics_table` of the release, and of its comparisons with the
        original those that cannot be solved for a hidden value (see ``left_out``).
    left_out : list of str
        The keys of the metrics computed against the original that the report leaves out.
    tradeoff : DataFrame or None
        The candidates tried (e.g. the table of :func:`pdanon.plot.tradeoff`).
    notes : list of str
    verdict : dict or None
        :func:`pdanon.checks.policy.check` of the release (``passed``, ``criteria``, ``hazards``,
        ``policy``, ``policy_given``); :attr:`passed` reads it.
    internal : bool
        The publisher's own report (``internal=True``): it also holds ``distributions`` and
        ``association``, computed from the original's values, and every metric. It must not
        travel with the release.
    distributions : list of dict
        Internal only: per quasi-identifier and sensitive column, the rows per bin before
        and after (:func:`pdanon.report.distributions.distribution`).
    association : list of dict
        Internal only: the most associated pairs of columns, Cramer's V before and after
        (:func:`pdanon.report.distributions.association`).
    attacks : list of dict
        With ``control=``: singling out, linkability and inference on the release
        (:mod:`pdanon.checks.attack_risks`), one row per attack (inference: per sensitive
        column): ``attack``, ``secret``, ``risk``, ``ci_low``, ``ci_high``, ``level``,
        ``main_rate``, ``control_rate``, ``baseline_rate``, ``n_attacks``. Figures; criteria
        of the verdict only where the policy sets ``max_singling_out`` and the like.
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
    left_out: list = field(default_factory=list)
    verdict: dict | None = None
    internal: bool = False
    distributions: list = field(default_factory=list)
    association: list = field(default_factory=list)
    attacks: list = field(default_factory=list)

    @property
    def passed(self) -> bool | None:
        """Did the release meet the policy of the verdict (the one given, or the release's
        own request)? None when there was nothing to check against."""
        return None if self.verdict is None else bool(self.verdict["passed"])

    def to_dict(self) -> dict:
        """Every fact as JSON-safe Python objects (NaN and infinities as None)."""
        tables = {name: None if t is None else _facts.plain(t.to_dict(orient="records"))
                  for name, t in (("suppressed", self.suppressed), ("metrics", self.metrics),
                                  ("tradeoff", self.tradeoff))}
        return _facts.plain({"title": self.title, "verdict": self.verdict,
                             "parameters": self.parameters,
                             "privacy": self.privacy, "utility": self.utility,
                             "columns": self.columns, **tables, "notes": self.notes,
                             "original_given": self.original_given,
                             "left_out": self.left_out, "internal": self.internal,
                             "distributions": self.distributions,
                             "association": self.association, "attacks": self.attacks})

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
    the same input must give the same page, byte for byte), its information loss rounded to
    two decimals: :func:`pdanon.plot.tradeoff_table` measures it against the original's
    range, which rows the release withholds widen (a candidate that is the release would
    otherwise give that range away)."""
    table = pd.DataFrame(tradeoff).reset_index(drop=True)
    table = table.drop(columns=[c for c in table.columns if str(c).endswith("seconds")])
    table["information_loss"] = pd.to_numeric(table["information_loss"],
                                              errors="coerce").round(2)
    return table


def _check_not_explanation(**frames) -> None:
    """A report may travel with the release: it refuses an explanation, and a frame holding
    an explanation's columns (a release joined with one), whatever ``internal`` says."""
    from pdanon.publisher_only import explanation_columns, refuse_explanation

    for name, frame in frames.items():
        if explanation_columns(frame):
            refuse_explanation(frame, f"the report ({name}: the table of explain() is for "
                                      "the publisher only; pass the released frame)")


def _check(anonymized, original, title, target, tradeoff) -> None:
    _check_not_explanation(anonymized=anonymized, original=original, tradeoff=tradeoff)
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
                 tradeoff: pd.DataFrame | None = None, threshold: float | None = None,
                 random_state: int = 0, digest_key=None, policy=None,
                 internal: bool = False, progress=None, weights=None, household=None,
                 control: pd.DataFrame | None = None, attacks: dict | None = None,
                 difference: dict | None = None, **roles) -> ReleaseReport:
    """Gather the facts of the release ``anonymized`` (a frame made by any pdanon
    anonymizer or perturbation, or read back from Parquet) into a :class:`ReleaseReport`.

    Parameters
    ----------
    original : DataFrame, optional
        The frame before anonymization (same index). Without it the report leaves out what
        needs it (changed cells, information loss, ML utility) and says so in its notes.
        Frames given the wrong way round (the original holding generalized or blank cells,
        or an anonymizer's info, and the release none) are refused.
        The original is compared with the release, never copied, and only into figures that
        cannot be solved for a hidden value (docs/report.md).
    title : str
    target : column, optional
        Measure machine-learning utility: gradient boosting predicting ``target`` on the
        original vs the release (and the linkage attack), seeded by ``random_state``.
    tradeoff : DataFrame, optional
        Several candidates tried: the parameter in the first column, ``information_loss``
        and optionally ``suppressed_fraction`` (the table of :func:`pdanon.plot.tradeoff`).
    threshold : float, optional
        Prosecutor risk above which a record is counted as at risk (default: the policy's
        ``risk_threshold``, 0.2), so that the verdict and the risk figures agree.
    policy : pdanon.Policy, optional
        The verdict the page opens with: every criterion measured, with its threshold and
        whether it holds, and the hazards seen (:func:`pdanon.checks.policy.check`). Default
        :meth:`pdanon.Policy.default`: the release's own request (``info["models"]``), and
        a limit on the records at risk when it bounds no class's size.
    internal : bool
        Write the publisher's own report: it adds, per quasi-identifier and sensitive
        column, the distribution before and after, the association kept between the most
        associated pairs of columns, and every metric of ``metrics(original)``. These read
        the original's values, so this report must never travel with the release (it says
        so at its top). Needs ``original``.
    weights, household : column, optional
        Sampling weights (people per row) and household ids of a survey release: the risk
        figures add the global risk and the expected re-identifications of sdcMicro's
        ``measure_risk``, and the household figures (:mod:`pdanon.metrics.survey`). Both
        columns are never quasi-identifiers. A weight column the release withholds
        (``identifiers=["w"]``) is read from ``original``, row by row (the same figures as
        the column published); the report shows only the aggregate figures, never a weight.
    difference : dict, optional
        What the difference attack leaves across this release and earlier ones
        (:func:`pdanon.republication.releases.difference_figures`; ``out.anon.report(earlier=,
        keys=)`` passes it): the verdict shows the criterion ``difference_disclosed``.
    control : DataFrame, optional
        Held-out rows of the same population the release was not made from
        (:func:`pdanon.attacks.holdout`; needs ``original``): the release is attacked
        (singling out, linkability, inference, :mod:`pdanon.checks.attack_risks`) and the
        section "Singling out, linkability, inference" shows the three risks, their
        intervals and what each means. Figures, unless the policy sets ``max_singling_out``,
        ``max_linkability`` or ``max_inference`` (then criteria of the verdict).
    attacks : dict, optional
        The attacks a check of this release already ran (``CheckResult.attacks``): shown
        instead of attacking again, so the report and the verdict show the same draws.
    progress : bool, optional
        A progress bar over the report's steps (None: for large tables in a terminal or
        notebook; see :mod:`pdanon.progress`).
    digest_key : bytes or str, optional
        Record a keyed digest of the original (HMAC-SHA-256, :func:`facts.digest`) that
        only this key verifies: keep the key with your records. Without it the report holds
        no digest of the original (an unkeyed one would let anyone enumerate the few values
        the release hides).
    **roles
        ``identifiers``, ``quasi_identifiers``, ``sensitive``, ``insensitive``; default: the
        roles the release remembers.
    """
    from pdanon import progress as _progress
    from pdanon.roles import resolve_roles

    _check(anonymized, original, title, target, tradeoff)
    if not isinstance(internal, bool):
        raise InvalidInputError(f"internal must be True or False, got {internal!r}")
    if internal and original is None:
        raise InvalidInputError("internal=True compares the release with the original's "
                                "values: pass original=<the frame before anonymization>")
    if control is not None and original is None:
        raise InvalidInputError("control= is attacked beside the original: pass the original "
                                "(the rows the release was made from) too")
    if original is not None:
        from pdanon.metrics._common import check_order

        check_order(anonymized, original, call="release.anon.report(raw), or "
                                               "build_report(release, raw)")
    unknown = [k for k in roles if k not in ("identifiers", "quasi_identifiers", "sensitive",
                                             "insensitive")]
    if unknown:
        raise InvalidInputError(f"unknown keyword(s) {unknown}; role keywords are "
                                f"identifiers, quasi_identifiers, sensitive, insensitive")
    from pdanon.metrics.survey import survey_roles

    r = resolve_roles(anonymized, screen="warn", **survey_roles(roles, weights, household,
                                                                 frame=anonymized))
    qis, sens = dict(r.quasi_identifiers), dict(r.sensitive)
    if not qis:
        raise InvalidInputError("the report needs at least one quasi-identifier: pass "
                                "quasi_identifiers=[...] or report on a frame pdanon made")
    steps = _STEPS + (2 if internal else 0)
    with _progress.setting(progress), _progress.progress_bar(
            steps, desc="report", long=len(anonymized) >= 20_000, unit="step") as bar:
        report = _gather(anonymized, original, r, qis, sens, title=title, target=target,
                         tradeoff=tradeoff, threshold=threshold, random_state=random_state,
                         digest_key=digest_key, policy=policy, internal=internal, bar=bar,
                         survey=dict(weights=weights, household=household), control=control,
                         attacks=attacks, difference=difference)
    return report


#: steps of the progress bar of :func:`build_report` (two more when internal)
_STEPS = 6


def _gather(anonymized, original, r, qis: dict, sens: dict, *, title, target, tradeoff,
            threshold, random_state, digest_key, policy, internal, bar,
            survey, control=None, attacks=None, difference=None) -> ReleaseReport:
    from pdanon.metrics.report import metrics_table

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
    bar.set_description("report: verdict")
    verdict, why, checked = _verdict(anonymized, policy, orig, qis, sens, survey["weights"],
                                     control, attacks, difference)
    if why:
        notes.append(why)
    if threshold is None:
        threshold = checked.risk_threshold if checked is not None else 0.2
    bar.update()
    bar.set_description("report: metrics of the release")
    # sampling weights the release withholds are read from the original (publisher-only)
    from pdanon.metrics.survey import with_input_weights

    weighed = with_input_weights(anonymized, survey["weights"], original)
    released = metrics_table(weighed, quasi_identifiers=qis, sensitive=sens,
                             threshold=threshold, missing=info.get("missing", "value"),
                             **survey)
    bar.update()
    compared = None
    bar.set_description("report: comparison with the original"
                        + (" (machine learning)" if target is not None else ""))
    if orig is not None:
        kw = dict(quasi_identifiers=qis, sensitive=sens, risk=False)
        try:
            compared = metrics_table(anonymized, orig, target=target, ml=target is not None,
                                     random_state=random_state, **kw)
        except ImportError as exc:  # scikit-learn missing: the rest of the report stands
            notes.append(f"ML utility left out: {exc}")
            compared = metrics_table(anonymized, orig, **kw)
    table = _facts.comparison_rows(released, compared, every=internal)
    bar.update()
    bar.set_description("report: columns")
    measured, measured_qis = anonymized, qis  # labels: the ranges they stand for
    if orig is not None:
        from pdanon.metrics.labels import as_ranges

        measured, measured_qis = as_ranges(anonymized, orig, qis)
    left_out = _facts.left_out_names() if orig is not None and not internal else []
    suppressed, full = _columns.suppressed_rows(anonymized, qis, info)
    described = {**measured_qis, **{c: k for c, k in sens.items() if c not in measured_qis}}
    columns = _columns.column_facts(measured, orig, described, info)
    for row in columns:
        row["role"] = "sensitive" if row["column"] in map(str, sens) and \
            row["column"] not in map(str, qis) else "quasi-identifier"
    bar.update()
    bar.set_description("report: parameters and digests")
    params = _facts.parameters(anonymized, original, r, info, title, digest_key)
    bar.update()
    bar.set_description("report: privacy")
    privacy = _facts.privacy(weighed, list(qis), sens, table, threshold, info, **survey)
    bar.update()
    distributions, association = [], []
    if internal:
        from pdanon.report import distributions as _dist

        bar.set_description("report: distributions")
        shown = {c: k for c, k in described.items() if c in orig.columns}
        for c, kind in shown.items():
            distributions.append(_dist.distribution(orig[c], anonymized[c], kind))
        bar.update()
        bar.set_description("report: association")
        association = _dist.association(orig, anonymized, list(shown), shown)
        bar.update()
    report = ReleaseReport(
        title=title, parameters=params, privacy=privacy, verdict=verdict,
        utility=_facts.utility(measured, orig, measured_qis, table, info, full,
                               privacy["requested"]),
        columns=_facts.plain(columns),
        suppressed=suppressed, metrics=table,
        tradeoff=None if tradeoff is None else _candidates(tradeoff),
        notes=notes + _notes(original, target, info, sens, left_out),
        original_given=orig is not None, left_out=left_out, internal=internal,
        distributions=_facts.plain(distributions), association=_facts.plain(association),
        attacks=(verdict or {}).get("attacks") or [])
    if full.any():
        report.notes.insert(0, f"the {int(full.sum()):,} rows published with every "
                            f"quasi-identifier blank form one class of their own, measured "
                            f"and verified like any other")
    return report


def _verdict(anonymized, policy, orig, qis: dict, sens: dict, weights=None, control=None,
             attacks=None, difference=None):
    """(the verdict as a dict, or None; a note saying why there is none; the policy
    checked, or None)."""
    from pdanon.checks.policy import check

    try:
        result = check(anonymized, policy, original=orig, quasi_identifiers=dict(qis),
                       sensitive=dict(sens), weights=weights, control=control,
                       attacks=attacks, difference=difference)
    except InvalidInputError as exc:
        if policy is not None or control is not None or difference is not None:
            raise
        return None, f"no verdict: {exc}", None
    return (_facts.plain({**result.to_dict(), "policy_given": policy is not None}), "",
            result.policy)


def _notes(original, target, info: dict, sensitive: dict, left_out: list) -> list:
    out = []
    if original is None:
        out.append("No original table was given: changed cells, information loss and "
                   "utility comparisons are left out, and every blank quasi-identifier cell "
                   "is counted as suppressed.")
    if left_out:
        from pdanon.metrics.keys import label

        out.append(f"Left out because a recipient holding the release could solve them for "
                   f"the values it hides: {', '.join(map(label, left_out))}, and any other "
                   f"figure that measures how far original values lie from the published "
                   f"ones; compute them on your own machine with "
                   f"release.anon.metrics(original=raw).")
    if target is None:
        out.append("Machine-learning utility was not measured: pass target=<column>.")
    dp = info.get("dp")
    if dp:
        out.append(
            f"An (epsilon, delta)-differentially private release (SafePub): epsilon = "
            f"{dp['epsilon_spent']:g} spent ({dp['epsilon_anonymization']:g} on sampling rows with "
            f"probability {dp['sampling_probability']:.4f} and suppressing classes under "
            f"{dp['k']} rows, {dp['steps'] * dp['epsilon_per_step']:g} over "
            f"{dp['steps']} search steps, {dp['epsilon_final_choice']:g} on the final "
            f"choice), delta = {dp['delta']:g}. The guarantee is the mechanism's, not the "
            f"table's: the k-anonymity shown is only the part a table can show. Every other "
            f"release of the same people spends its own epsilon (docs/differential_privacy.md).")
    elif not sensitive:
        out.append("No sensitive column is declared: l-diversity and t-closeness are not "
                   "measured.")
    if not info:
        out.append("The table carries no pdanon info (it was not made by pdanon, or its "
                   "attributes were lost): the parameters of the release are unknown.")
    out.append("Seeds and keys are never stored by pdanon and never appear here; keep them "
               "apart from the release.")
    return out
