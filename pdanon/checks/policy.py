"""A release policy you can check in code: ``pdanon.Policy`` and ``out.anon.check(policy)``.

A :class:`Policy` states what a release must achieve — ``k``, ``l`` (a variant), ``t`` (a
distance), β-likeness, δ-disclosure, and record-level risk limits (the share of records at
risk, the highest and average prosecutor risk, sample uniques, the share of suppressed rows).
:func:`check` measures the release on the same classes every other figure of pdanon uses (the
suppressed rows are one class; ``missing="value"``, or the semantics the release records for
k and the risks: local suppression's blanks match any value) and
returns a :class:`CheckResult`: ``passed``, one row per criterion (measured value, threshold,
passed, meaning), and the hazards it saw — a class whose members share a sensitive value,
sample uniques, a high share of suppressed rows, a sensitive column that is nearly unique.
Without a policy, the release's own request (``info["models"]``) is the policy, with a limit
on the records at risk when that request bounds no class's size (:meth:`Policy.default`);
the parts of a request a policy cannot state (the α of (α, k)-anonymity, enhanced β-likeness,
hierarchical t-closeness) are named among the hazards as not checked.

Example
-------
>>> import pandas as pd, pdanon
>>> df = pd.DataFrame({"age": [30, 31, 40, 42, 50, 52], "d": list("abacab")})
>>> out = df.anon.k_anonymize(2, quasi_identifiers=["age"], sensitive=["d"])
>>> result = out.anon.check(pdanon.Policy(k=2, l=2))
>>> result.passed, result.criteria["criterion"].tolist()
(True, ['k_anonymity', 'l_diversity_distinct'])
>>> bool(out.anon.check(pdanon.Policy(k=3)))
False
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, fields, replace

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError

__all__ = ["CheckResult", "Policy", "check"]

#: share of suppressed rows above which a hazard is flagged (when the policy sets no limit)
HIGH_SUPPRESSED_SHARE = 0.05
#: share of distinct values from which a sensitive column is nearly unique
NEARLY_UNIQUE = 0.95
#: the default verdict's limit on the share of records at risk (prosecutor risk above the
#: policy's ``risk_threshold``, 0.2: classes of fewer than 5 rows), added when the release's
#: own request bounds no class's size (:meth:`Policy.bounds_classes`)
DEFAULT_MAX_RECORDS_AT_RISK = 0.05


def _fraction(value, name: str, *, zero: bool = False):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(
            value) or not (0 <= value <= 1 if zero else 0 < value <= 1):
        raise InvalidInputError(
            f"{name} is a share of the rows in {'[0, 1]' if zero else '(0, 1]'}, got "
            f"{value!r} (pass 0.05 for 5 %)")
    return float(value)


@dataclass(frozen=True, kw_only=True)
class Policy:
    """What a release must achieve (every criterion optional, keyword-only).

    Parameters
    ----------
    k : int
        Every equivalence class has at least k rows.
    l, l_variant, c
        Every class is l-diverse in every sensitive column (``"distinct"``, ``"entropy"``,
        ``"recursive"`` with ``c``).
    t, t_distance
        Every class is within ``t`` (in (0, 1]) of the table in every sensitive column
        (``"emd"`` by default).
    beta, delta
        β-likeness (basic) and δ-disclosure privacy.
    max_records_at_risk : float in [0, 1]
        The share of rows whose prosecutor risk (1 / class size) exceeds ``risk_threshold``.
    risk_threshold : float in (0, 1]
        What "at risk" means (default 0.2: a class of fewer than 5 rows).
    max_highest_risk, max_average_risk : float in (0, 1]
        The highest prosecutor risk (1 / smallest class) and the average (classes / rows).
    max_sample_uniques : float in [0, 1]
        The share of rows unique on the quasi-identifiers.
    max_suppressed_share : float in [0, 1]
        The share of rows whose every quasi-identifier was suppressed.
    random_order : bool
        True (default): a release that records it kept the input's row order
        (``row_order="input"``, ``info["row_order"] == "input"``) fails (criterion
        ``random_row_order``): neighbouring rows of a sorted export give hidden cells back.
        False accepts such a release (for a file that stays in-house); the order's heuristic
        hazard still speaks.
    channels : bool
        True (default): no column published unchanged may give a generalized
        quasi-identifier back (:mod:`pdanon.screening.channels`): the criterion ``channel_share``
        (listed when such a column narrows any cell) is
        the largest share of a quasi-identifier's hidden cells that a column (not allowed
        with ``allow_channels=``, not sensitive) narrows to their value while lowering k
        below the policy's (at least 2), at most ``pdanon.screening.channels.MAX_SHARE`` (5 %).
    household_k : int, optional
        With a household column in the release (recorded in ``info["household"]`` by
        ``household=``, or passed to :func:`check`): every household's signature (its size
        and its members' published quasi-identifier combinations,
        :mod:`pdanon.screening.households`) is shared by at least this many households (criterion
        ``household_k``). Default: the policy's k (at least 2; at least l).
    max_global_risk, max_individual_risk : float in [0, 1]
        Survey microdata with sampling weights (``weights``): the global risk (the mean
        individual risk of sdcMicro's ``measure_risk``) and the highest individual risk of a
        row (:mod:`pdanon.metrics.survey`; criteria ``global_risk`` and
        ``highest_individual_risk``).
    max_expected_reidentifications : float >= 0
        The expected number of re-identifications (the sum of the individual risks:
        criterion ``expected_reidentifications``).
    weights : str, optional
        The column of sampling weights (people per row) the weighted criteria read; the
        ``weights=`` of :func:`check` wins. A weighted criterion without weights is refused.
        The column may be withheld from the release (``identifiers=["w"]``: stratum weights
        are a channel): :func:`check` with ``original=`` then reads it from the original,
        row by row through the release's publisher-only way back (the same figures as the
        column published; :func:`pdanon.metrics.survey.with_input_weights`).
    max_singling_out, max_linkability, max_inference : float in [0, 1]
        The attacks of :mod:`pdanon.attacks` (criteria ``singling_out_risk``,
        ``linkability_risk``, ``inference_risk``): the **upper bound** of the risk's 95 %
        interval, the success the release gives beyond a held-out control set, at most this.
        They need ``original=`` and ``control=`` in :func:`check` (refused without them,
        naming :func:`pdanon.attacks.holdout`); see :mod:`pdanon.checks.attack_risks` for the
        columns attacked and the number of attacks. Without them, a control set given to
        :func:`check` still shows the three risks as figures (``CheckResult.attacks``).
    max_difference_disclosed : int >= 0, optional
        Several releases of the same people (``check(earlier=[...], keys=[...])``): the
        number of persons to whom the **difference attack** (comparing the classes'
        published counts across the releases, :mod:`pdanon.republication.difference`) may
        leave one sensitive value, at most this (criterion ``difference_disclosed``; counted
        from below the candidates, so a person counted may be disclosed, one not counted is
        not). Measured whenever ``earlier=`` is given, with threshold 0 when the policy
        sets none; a policy setting it without ``earlier=`` is refused.
    missing_sensitive : {"unknown", "value"}
        How l, t, β and δ read a blank sensitive cell: ``"unknown"`` (default) - no value,
        so a class of 5 x hiv and 5 blanks has l = 1; ``"value"`` - one more value (the rule
        before 2026-12). The default policy takes the release's recorded rule.

    Example
    -------
    >>> Policy(k=5, l=2, max_records_at_risk=0.05)
    Policy(k=5, l=2, max_records_at_risk=0.05)
    >>> Policy(t=20)
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: t is a fraction in (0, 1]: pass 0.2, not 20
    """

    k: int | None = None
    l: float | None = None
    l_variant: str = "distinct"
    c: float | None = None
    t: float | None = None
    t_distance: str = "emd"
    beta: float | None = None
    delta: float | None = None
    max_records_at_risk: float | None = None
    risk_threshold: float = 0.2
    max_highest_risk: float | None = None
    max_average_risk: float | None = None
    max_sample_uniques: float | None = None
    max_suppressed_share: float | None = None
    random_order: bool = True
    channels: bool = True
    household_k: int | None = None
    max_global_risk: float | None = None
    max_expected_reidentifications: float | None = None
    max_individual_risk: float | None = None
    weights: str | None = None
    max_singling_out: float | None = None
    max_linkability: float | None = None
    max_inference: float | None = None
    max_difference_disclosed: int | None = None
    missing_sensitive: str = "unknown"

    def __post_init__(self):
        from pdanon.models.base import check_missing_sensitive

        check_missing_sensitive(self.missing_sensitive)
        from pdanon.models.diversity import L_VARIANTS

        if self.k is not None and (isinstance(self.k, bool) or not isinstance(
                self.k, numbers.Integral) or self.k < 1):
            raise InvalidInputError(f"k must be an integer >= 1, got {self.k!r}")
        if self.household_k is not None and (isinstance(self.household_k, bool) or not
                                             isinstance(self.household_k, numbers.Integral)
                                             or self.household_k < 1):
            raise InvalidInputError(f"household_k must be an integer >= 1, got "
                                    f"{self.household_k!r}")
        disclosed = self.max_difference_disclosed
        if disclosed is not None and (isinstance(disclosed, bool) or not isinstance(
                disclosed, numbers.Integral) or disclosed < 0):
            raise InvalidInputError(f"max_difference_disclosed is a number of persons >= 0, "
                                    f"got {disclosed!r}")
        if self.l is not None and (isinstance(self.l, bool) or not isinstance(
                self.l, numbers.Real) or not self.l >= 1):
            raise InvalidInputError(f"l must be a number >= 1, got {self.l!r}")
        if self.l_variant not in L_VARIANTS:
            raise InvalidInputError(f"l_variant must be one of {list(L_VARIANTS)}, got "
                                    f"{self.l_variant!r}")
        if self.t is not None and (isinstance(self.t, bool) or not isinstance(
                self.t, numbers.Real) or not 0 < self.t <= 1):
            raise InvalidInputError(f"t is a fraction in (0, 1]: pass 0.2, not {self.t!r}")
        for name in ("beta", "delta"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(
                    value, numbers.Real) or not value > 0):
                raise InvalidInputError(f"{name} must be a number > 0, got {value!r}")
        _fraction(self.risk_threshold, "risk_threshold")
        for name in ("max_highest_risk", "max_average_risk"):
            _fraction(getattr(self, name), name)
        for name in ("max_records_at_risk", "max_sample_uniques", "max_suppressed_share",
                     "max_global_risk", "max_individual_risk", "max_singling_out",
                     "max_linkability", "max_inference"):
            _fraction(getattr(self, name), name, zero=True)
        expected = self.max_expected_reidentifications
        if expected is not None and (isinstance(expected, bool) or not isinstance(
                expected, numbers.Real) or not math.isfinite(expected) or expected < 0):
            raise InvalidInputError(f"max_expected_reidentifications is a number of rows >= 0 "
                                    f"(the sum of the individual risks), got {expected!r}")
        if self.weights is not None and not isinstance(self.weights, str):
            raise InvalidInputError(f"weights names the column of sampling weights, e.g. "
                                    f"weights='w', got {self.weights!r}")
        if not isinstance(self.random_order, (bool, np.bool_)):
            raise InvalidInputError(f"random_order must be True or False, got "
                                    f"{self.random_order!r}")

    def __repr__(self) -> str:
        given = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                 if getattr(self, f.name) != f.default]
        return f"Policy({', '.join(given)})"

    @classmethod
    def of_release(cls, info: dict) -> "Policy":
        """The release's own request as a policy: the k, l, t, β and δ of the models its
        anonymizer verified (``info["models"]``; k for microaggregation and local
        suppression), and the highest / average risk thresholds when it was asked for them.

        Example
        -------
        >>> Policy.of_release({"models": [{"model": "KAnonymity", "params": {"k": 5}},
        ...                               {"model": "LDiversity", "params": {"l": 2}}]})
        Policy(k=5, l=2)
        """
        try:
            return cls._of_release(info)
        except InvalidInputError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidInputError(
                f"the release's info['models'] is damaged ({type(exc).__name__}: {exc}; "
                f"recorded {str(info.get('models'))[:120]}): each entry is {{model, params}} "
                "with the parameters its model records; take the info of the release that "
                "wrote it (out.anon.info) or pass policy= explicitly") from None

    @classmethod
    def _of_release(cls, info: dict) -> "Policy":
        kw: dict = {}
        for rec in info.get("models") or []:
            name, p = rec.get("model"), rec.get("params") or {}
            if name in ("KAnonymity", "AlphaKAnonymity") or (name == "HighestRisk"):
                kw["k"] = max(kw.get("k", 1), int(p["k"]))
            if name == "LDiversity":
                kw.update(l=p["l"], l_variant=p.get("variant", "distinct"), c=p.get("c"))
            elif name == "TCloseness":
                kw.update(t=p["t"], t_distance=p.get("distance", "emd"))
            elif name == "BetaLikeness" and p.get("beta_variant", "basic") == "basic":
                kw["beta"] = p["beta"]
            elif name == "DeltaDisclosure":
                kw["delta"] = p["delta"]
            elif name == "HighestRisk":
                kw["max_highest_risk"] = p["max_risk"]
            elif name == "AverageRisk":
                kw["max_average_risk"] = p["average_risk"]
            elif name == "EDDifferentialPrivacy":  # what a table can show: classes of k
                from pdanon.models import EDDifferentialPrivacy

                dp_k = EDDifferentialPrivacy(p["epsilon"], p["delta"],
                                             search_share=p["search_share"]).k
                kw["k"] = max(kw.get("k", 1), dp_k)
        from pdanon.models.record import recorded_rule

        rule = recorded_rule(info)
        if rule is not None and rule != "unknown":
            kw["missing_sensitive"] = rule
        if not kw and info.get("operation") in ("microaggregate", "local_suppression"):
            kw["k"] = int(info["k"])
        if kw.get("t_distance") == "hierarchical":
            kw.pop("t"), kw.pop("t_distance")  # its hierarchies are not recorded
        return cls(**kw)

    @staticmethod
    def unchecked(info: dict) -> list:
        """The parts of the release's own request a :class:`Policy` cannot state, which the
        default verdict therefore does not check — in words, with the measure to read.

        Example
        -------
        >>> Policy.unchecked({"models": [{"model": "AlphaKAnonymity",
        ...                               "params": {"alpha": 0.5, "k": 3}}]})
        ['alpha = 0.5 of (alpha, k)-anonymity (its k is checked): measure it with out.anon.alpha_k_anonymity()']
        """
        out = []
        for rec in info.get("models") or []:
            name, p = rec.get("model"), rec.get("params") or {}
            if name == "AlphaKAnonymity":
                out.append(f"alpha = {p.get('alpha')} of (alpha, k)-anonymity (its k is "
                           f"checked): measure it with out.anon.alpha_k_anonymity()")
            elif name == "BetaLikeness" and p.get("beta_variant", "basic") != "basic":
                out.append(f"{p.get('beta_variant')} beta-likeness (beta = {p.get('beta')}): "
                           f"measure it with out.anon.beta_likeness(variant="
                           f"{p.get('beta_variant')!r})")
            elif name == "TCloseness" and p.get("distance") == "hierarchical":
                out.append(f"t-closeness with the hierarchical distance (t = {p.get('t')}; "
                           f"its hierarchies are not recorded): measure it with "
                           f"out.anon.t_closeness(distance='hierarchical', hierarchies=...)")
        return out

    @classmethod
    def default(cls, info: dict) -> "Policy":
        """The policy a release is checked against when none is given: its own request
        (:meth:`of_release`) and, when that request bounds no class's size (no k > 1 nor
        l > 1: t-closeness, β-likeness or δ-disclosure alone), the default risk limit: at
        most :data:`DEFAULT_MAX_RECORDS_AT_RISK` of the rows at risk (prosecutor risk above
        0.2, i.e. in a class of fewer than 5 rows). A class size asked for is the risk the
        publisher chose (the rows in smaller classes than 5 are then a hazard, not a
        failure). An empty policy when the release records no request.

        Example
        -------
        >>> Policy.default({"models": [{"model": "TCloseness", "params": {"t": 0.2}}]})
        Policy(t=0.2, max_records_at_risk=0.05)
        >>> Policy.default({"models": [{"model": "LDiversity", "params": {"l": 2}}]})
        Policy(l=2)
        >>> Policy.default({"models": [{"model": "KAnonymity", "params": {"k": 5}}]})
        Policy(k=5)
        """
        own = cls.of_release(info)
        if own == cls() or own.bounds_classes() or own.max_records_at_risk is not None:
            return own
        return replace(own, max_records_at_risk=DEFAULT_MAX_RECORDS_AT_RISK)

    def bounds_classes(self) -> bool:
        """Does this policy bound every class's size from below, as k > 1 does — and as
        l > 1 does in every variant (a class holding l distinct sensitive values holds at
        least two rows)? Then the publisher has chosen the risk a class of that size carries,
        and :meth:`default` adds no limit of its own: a release asked for l = 2 and one asked
        for k = 2 and l = 2 get the same verdict (they used not to)."""
        return (self.k is not None and self.k > 1) or (self.l is not None and self.l > 1)


def _checked_init(init):
    """``Policy.__init__`` refusing an unknown criterion with a "did you mean", as the
    anonymizers refuse an unknown keyword (:func:`pdanon.keywords.refuse_unknown`)."""
    import functools

    from pdanon.keywords import refuse_unknown

    takes = [f.name for f in fields(Policy)]

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        if not set(takes).issuperset(kwargs):
            refuse_unknown("Policy", kwargs, takes)
        init(self, *args, **kwargs)

    return __init__


Policy.__init__ = _checked_init(Policy.__init__)

#: the criteria read from sampling weights
WEIGHTED_CRITERIA = ("max_global_risk", "max_expected_reidentifications",
                     "max_individual_risk")


@dataclass
class CheckResult:
    """What :func:`check` found: ``passed`` (every criterion held), ``criteria`` (a frame:
    ``criterion``, ``measured``, ``threshold``, ``passed``, ``meaning``), ``hazards`` (plain
    sentences), and the ``policy`` checked. ``bool(result)`` is ``passed``; it prints as a
    short verdict."""

    passed: bool
    criteria: pd.DataFrame
    hazards: list
    policy: Policy
    #: per column published unchanged, the k measured if an attacker also knew it (a
    #: figure, not a criterion; :func:`pdanon.screening.channels.k_if_known`)
    k_if_known: dict = field(default_factory=dict)
    #: the attacks run with ``control=`` (:mod:`pdanon.checks.attack_risks`):
    #: ``{"singling_out": AttackResult, "linkability": ..., "inference": {column: ...}}`` -
    #: figures; criteria only where the policy sets ``max_singling_out`` and the like
    attacks: dict = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.passed)

    def __repr__(self) -> str:
        head = "PASSED" if self.passed else "FAILED"
        lines = [f"{head}: {int(self.criteria['passed'].sum())} of {len(self.criteria)} "
                 f"criteria hold" + (f"; {len(self.hazards)} hazard(s)" if self.hazards
                                     else "")]
        for row in self.criteria.itertuples(index=False):
            word = "pass" if row.passed else "FAIL"
            lines.append(f"  [{word}] {row.criterion}: {_fmt(row.measured)} "
                         f"(threshold {row.rule} {_fmt(row.threshold)}) - {row.meaning}")
        lines += [f"  [hazard] {h}" for h in self.hazards]
        if self.k_if_known:
            lines.append("  k if an attacker also knew: " + ", ".join(
                f"{c} {k}" for c, k in self.k_if_known.items()))
        if self.attacks:
            from pdanon.checks.attack_risks import lines as attack_lines

            lines.append("  attack risks beyond the control, [95% interval]: "
                         + "; ".join(attack_lines(self.attacks)))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{'pass' if r.passed else '<b>FAIL</b>'}</td><td>{r.criterion}</td>"
            f"<td>{_fmt(r.measured)}</td><td>{r.rule} {_fmt(r.threshold)}</td>"
            f"<td>{r.meaning}</td></tr>" for r in self.criteria.itertuples(index=False))
        hazards = "".join(f"<li>{h}</li>" for h in self.hazards)
        return (f"<p><b>{'PASSED' if self.passed else 'FAILED'}</b></p><table>"
                f"<tr><th></th><th>criterion</th><th>measured</th><th>threshold</th>"
                f"<th>meaning</th></tr>{rows}</table>"
                + (f"<p>Hazards</p><ul>{hazards}</ul>" if hazards else ""))

    def to_dict(self) -> dict:
        """Plain JSON-ready form (the report's verdict)."""
        return {"passed": bool(self.passed),
                "criteria": [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
                             for row in self.criteria.to_dict(orient="records")],
                "hazards": list(self.hazards),
                "k_if_known": {str(c): int(k) for c, k in self.k_if_known.items()},
                "attacks": _attack_dicts(self.attacks),
                "policy": {f.name: getattr(self.policy, f.name) for f in fields(self.policy)}}


def _attack_dicts(found: dict) -> list:
    from pdanon.checks.attack_risks import as_dicts

    return as_dicts(found) if found else []


def _fmt(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if isinstance(v, float) and not float(v).is_integer():
        return f"{v:.4g}"
    return str(int(v)) if isinstance(v, (int, float, np.integer)) else str(v)


def check(release: pd.DataFrame, policy: Policy | None = None, *, original=None,
          quasi_identifiers=None, sensitive=None, household=None,
          weights=None, control=None, n_attacks=None, seed=None,
          attacks: dict | None = None, difference: dict | None = None) -> CheckResult:
    """Check ``release`` against ``policy`` (default: :meth:`Policy.default` of its
    ``info``: the release's own request, and the default risk limit when it bounds no class's
    size). Roles come from the keywords, else those the release remembers. ``household``: a
    column whose rows belong together (default: the one ``info["household"]`` records), whose
    household k is then a criterion (:mod:`pdanon.screening.households`). ``weights``: the column of
    sampling weights the policy's weighted criteria read (default: the policy's ``weights``);
    a column the release withholds is read from ``original``, row by row through the
    release's publisher-only way back (never written). ``original``
    (the frame before anonymization, same index) tells suppressed rows from rows missing
    every quasi-identifier from the start; without it ``info["suppressed_rows"]`` is used.
    ``control``: held-out rows of the same population the release was not made from
    (:func:`pdanon.attacks.holdout`); with ``original`` it runs singling out, linkability and
    inference (:mod:`pdanon.checks.attack_risks`; ``n_attacks`` per kind, default
    ``min(2000, rows)``; ``seed`` for tests, else a CSPRNG): criteria where the policy sets
    ``max_singling_out``, ``max_linkability`` or ``max_inference`` (the upper bound of the
    risk's interval), figures in ``attacks`` always. A policy setting them without
    ``control`` is refused, saying why and how to hold one out. ``attacks``: the attacks an
    earlier check of the same release ran (its :attr:`CheckResult.attacks`), read instead of
    attacking again, so that every verdict and report of one release shows the same draws.
    Without ``attacks`` and ``control``, the attacks the anonymizer itself ran
    (``evaluate=`` / ``control=`` of ``k_anonymize`` and the like; kept publisher-only, for
    this frame's content only) are read the same way.
    ``difference``: what the difference attack leaves across this release and earlier ones
    (:func:`pdanon.republication.releases.difference_figures`, which ``out.anon.check(earlier=,
    keys=)`` runs): the criterion ``difference_disclosed``, at most the policy's
    ``max_difference_disclosed`` (0 when it sets none); a policy setting it without one is
    refused. See :meth:`df.anon.check <pdanon.accessor.frame.AnonAccessor.check>`. A frame holding the
    columns of an explanation (``out.anon.explain(df)``, also joined into the release) is
    refused with :class:`~pdanon.PublisherOnlyError`: it cannot be published."""
    from pdanon import metrics
    from pdanon.metrics.keys import figure
    from pdanon.publisher_only import refuse_explanation
    from pdanon.roles import resolve_roles

    refuse_explanation(release, "check()")
    if policy is not None and not isinstance(policy, Policy):
        raise InvalidInputError(f"policy must be a pdanon.Policy, got {type(policy).__name__}")
    info = release.attrs.get("pdanon", {}).get("info") or {}
    unchecked = []
    if policy is None:
        policy = Policy.default(info)
        unchecked = [f"not checked by the default policy: {part}"
                     for part in Policy.unchecked(info)]
        if policy == Policy(channels=policy.channels):
            raise InvalidInputError(
                "the frame records no anonymization request to check against (it is not the "
                "output of a pdanon anonymizer, or was read back without its attrs): pass a "
                "policy, e.g. pdanon.Policy(k=5, l=2)")
    from pdanon.checks import attack_risks

    if policy.max_difference_disclosed is not None and difference is None:
        raise InvalidInputError(
            "the policy sets max_difference_disclosed, which compares this release with the "
            "earlier releases of the same people: pass them, out.anon.check(policy, earlier="
            "[first_release, ...], keys=[first_keys, ..., this_release_keys]) (keys: the "
            "publisher's person ids of each release's rows, never published)")
    wanted = attack_risks.asked(policy)
    if attacks is None and control is None:  # those the anonymizer ran (evaluate=)
        attacks = attack_risks.stored(release)
        if attacks is not None:
            attack_risks.refuse_missing(attacks, wanted)
    if attacks is None:
        attack_risks.refuse_without_control(wanted, original, control)
    if control is not None and original is None:
        raise InvalidInputError("control= is attacked beside the original: pass original=<the "
                                "rows the release was made from> too")
    keywords = {key: v for key, v in (("quasi_identifiers", quasi_identifiers),
                                      ("sensitive", sensitive)) if v is not None}
    r = resolve_roles(release, screen="warn", **keywords)
    qi, sens = r.qi, dict(r.sensitive)
    if not qi:
        raise InvalidInputError("the release has no quasi-identifier: pass quasi_identifiers="
                                "[...] (or check the frame an anonymizer returned)")
    missing = info.get("missing", "value")
    rule = policy.missing_sensitive  # how l, t, beta and delta read a blank sensitive cell
    n = len(release)
    rows: list = []
    found = dict(attacks) if attacks is not None else {} if control is None else \
        attack_risks.measure(release, original, control, qi, list(sens), missing=missing,
                             seed=seed, n_attacks=n_attacks, asked=set(wanted))

    def add(key, measured, rule, threshold, meaning):
        figure(key)  # every criterion is a figure of pdanon.metrics.FIGURES
        ok = measured is not None and (measured >= threshold - 1e-12 if rule == ">=" else
                                       measured <= threshold + 1e-12)
        if not n:  # no class to fail (a differentially private release may publish nothing)
            ok, meaning = True, f"{meaning} (the release is empty: no class to fail)"
        rows.append({"criterion": key, "measured": measured, "rule": rule,
                     "threshold": threshold, "passed": bool(ok), "meaning": meaning})

    def needs_sensitive(what):
        if not sens:
            raise InvalidInputError(f"the policy asks for {what}, which needs a sensitive "
                                    f"column: pass sensitive=[...]")

    if policy.k is not None:
        add("k_anonymity", metrics.k_anonymity(release, qi, missing=missing), ">=", policy.k,
            f"every class (the suppressed rows' too) holds at least {policy.k} rows")
    if policy.l is not None:
        needs_sensitive("l-diversity")
        measured = metrics.l_diversity(release, qi, list(sens), variant=policy.l_variant,
                                       c=policy.c, missing_sensitive=rule)
        add(f"l_diversity_{policy.l_variant}", measured, ">=", policy.l,
            f"every class shows at least l={policy.l} sensitive values ({policy.l_variant}"
            + ("; blanks are no value)" if rule == "unknown" else "; a blank is a value)"))
    if policy.t is not None:
        needs_sensitive("t-closeness")
        measured = metrics.t_closeness(release, qi, sens, distance=policy.t_distance,
                                       missing_sensitive=rule)
        add(f"t_closeness_{policy.t_distance}", measured, "<=", policy.t,
            "every class's sensitive values lie within t of the whole table's")
    if policy.beta is not None:
        needs_sensitive("beta-likeness")
        from pdanon.models import beta_likeness

        add("beta_likeness", beta_likeness(release, qi, sens, missing_sensitive=rule), "<=",
            policy.beta,
            "no class raises a sensitive value's share by more than beta (relative)")
    if policy.delta is not None:
        needs_sensitive("delta-disclosure")
        from pdanon.models import delta_disclosure

        add("delta_disclosure", delta_disclosure(release, qi, sens, missing_sensitive=rule),
            "<=", policy.delta,
            "no class's share of a sensitive value is more than e^delta from the table's")
    # k and every risk with the release's rule for missing cells (local suppression's blanks
    # match any value: measured so, as the release was made); l, t and the hazards of
    # classes read classes, which only missing cells as values form
    risk = metrics.risk_summary(release, qi, threshold=policy.risk_threshold,
                                missing=missing) if n else None
    for key, limit, meaning in (
            ("records_at_risk", policy.max_records_at_risk,
             f"share of rows whose prosecutor risk exceeds {policy.risk_threshold}"),
            ("highest_prosecutor_risk", policy.max_highest_risk,
             "the highest prosecutor risk (1 / smallest class)"),
            ("average_prosecutor_risk", policy.max_average_risk,
             "the average prosecutor risk (classes / rows)"),
            ("sample_uniques", policy.max_sample_uniques,
             "share of rows unique on the quasi-identifiers")):
        if limit is not None:
            add(key, float(risk[key]) if risk is not None else 0.0, "<=", limit, meaning)
    _weighted_criteria(release, qi, policy, weights, missing, add, original)
    suppressed = _suppressed_rows(release, original, qi, info, loose=control is not None)
    if policy.max_suppressed_share is not None:
        add("suppressed_share", suppressed / n if n else 0.0, "<=", policy.max_suppressed_share,
            "share of rows whose every quasi-identifier was suppressed")
    if policy.random_order and info.get("row_order") == "input":
        add("random_row_order", 0, ">=", 1,
            "the rows were published in the input's order (row_order='input'): a sorted "
            "export lets neighbouring rows give hidden cells back; publish the default random "
            "order (out.anon.in_random_order())")
    attack_risks.criteria(found, wanted, add)
    if difference is not None:
        limit = policy.max_difference_disclosed or 0
        add("difference_disclosed", int(difference["disclosed"]), "<=", limit,
            f"persons to whom comparing the classes' published counts across the "
            f"{difference['releases']} releases may leave one value of "
            f"{', '.join(map(repr, difference['sensitive']))} (of {difference['persons']:,} "
            f"persons; m-invariance, apply_recoding(..., invariance=m), prevents it)")
    grouped = _household_criterion(release, qi, policy, household, add)
    criteria = pd.DataFrame(rows, columns=["criterion", "measured", "rule", "threshold",
                                           "passed", "meaning"])
    hazards = unchecked + grouped + _hazards(release, qi, sens, n, suppressed, risk, policy)
    if info.get("row_order") != "random":
        hazards += _order_hazard(release, qi)
    known = {}
    if n:
        from pdanon.screening.channels import k_if_known

        channels, k_stake = _channels(release, qi, sens, info, policy)
        if policy.channels and not channels["sensitive"].all():  # a row only where one is seen
            rows.append(_channel_criterion(channels, k_stake))
            criteria = pd.DataFrame(rows, columns=criteria.columns)
        hazards += _channel_hazards(channels, k_stake)
        known = k_if_known(release, qi)
    return CheckResult(bool(criteria["passed"].all()), criteria, hazards, policy, known,
                       found)


def _weighted_criteria(release, qi, policy, weights, missing, add, original=None) -> None:
    """The criteria on the risk estimated from sampling weights (:mod:`pdanon.metrics.survey`):
    ``global_risk``, ``expected_reidentifications`` and ``highest_individual_risk``. Weights
    the release withholds are read from ``original`` (:func:`pdanon.metrics.survey.
    with_input_weights`)."""
    asked = [name for name in WEIGHTED_CRITERIA if getattr(policy, name) is not None]
    if not asked:
        return
    column = weights if weights is not None else policy.weights
    if column is None:
        raise InvalidInputError(
            f"the policy asks for {asked[0]}, a risk estimated from sampling weights: name the "
            f"weight column (check(..., weights='w') or Policy(..., weights='w'))")
    from pdanon.metrics.reidentification import record_risk
    from pdanon.metrics.survey import with_input_weights

    measured = with_input_weights(release, column, original)
    risk = (record_risk(measured, qi, weights=column, missing=missing)["individual"].to_numpy()
            if len(release) else np.zeros(0))
    figures = {"max_global_risk": float(risk.mean()) if len(risk) else 0.0,
               "max_expected_reidentifications": float(risk.sum()),
               "max_individual_risk": float(risk.max()) if len(risk) else 0.0}
    for name, key, meaning in (
            ("max_global_risk", "global_risk",
             f"the mean individual risk estimated from the sampling weights {column!r}"),
            ("max_expected_reidentifications", "expected_reidentifications",
             f"the rows an attacker is expected to re-identify (sum of the individual risks "
             f"from the weights {column!r})"),
            ("max_individual_risk", "highest_individual_risk",
             f"the highest individual risk of a row (from the weights {column!r})")):
        if getattr(policy, name) is not None:
            add(key, figures[name], "<=", getattr(policy, name), meaning)


def _household_criterion(release, qi, policy, household, add) -> list:
    """The criterion ``household_k`` when the release holds a household column (given, or
    recorded by the anonymizer): the fewest households that share a signature. Without one,
    the hazards of the columns published unchanged that group rows
    (:func:`pdanon.screening.households.grouping`), with their household k."""
    from pdanon.screening import households

    column = household
    if column is None:
        column = households.recorded_column(release)
    elif column not in release.columns:
        raise InvalidInputError(f"household={column!r} is not a column of the release")
    if column is None:
        out = []
        for c in release.columns:
            if c in set(qi) or not len(release):
                continue
            evidence = households.grouping(release[c], c)
            if evidence is not None:
                out.append(f"column {c!r} is published unchanged and groups rows ({evidence}):"
                           f" household k = {households.household_k(release, c, qi)}; check "
                           f"it with check(household={c!r}), protect it with k_anonymize(..., "
                           f"household={c!r})")
        return out
    need = policy.household_k or max(policy.k or 1, math.ceil(policy.l) if policy.l else 1, 2)
    measured = households.household_k(release, column, qi)
    add("household_k", need if measured is None else measured, ">=", need,
        f"every household's signature (its size and its members' published "
        f"quasi-identifier combinations, column {column!r}) is shared by at least {need} "
        f"households")
    return []


def _channels(release, qi, sens, info, policy):
    """(the channels of the release: what its plain rows teach, with the findings its
    anonymizer measured against the original when this process made it; the k at stake)."""
    from pdanon.screening import channels

    k_stake = max(policy.k or 1, math.ceil(policy.l) if policy.l else 1, 2)
    allowed = info.get("channels_allowed") or []
    found = channels.learned(release, qi, k=k_stake, allowed=allowed)
    facts = info.get("publisher_only")  # a PublisherOnly reads as an empty dict: no `or`
    recorded = facts.get("channels") if facts is not None else None
    if recorded:
        found = pd.concat([found, pd.DataFrame(recorded, columns=found.columns)],
                          ignore_index=True)
    found["allowed"] = found["column"].isin(list(allowed))  # as the release records now
    found["sensitive"] = found["column"].isin(list(sens))
    return found, k_stake


def _channel_criterion(found, k_stake) -> dict:
    from pdanon.screening.channels import MAX_SHARE, failing
    from pdanon.metrics.keys import figure

    figure("channel_share")
    lowering = failing(found[~found["sensitive"]].assign(share=1.0), k_stake)
    measured = float(found.loc[lowering.index, "share"].max()) if len(lowering) else 0.0
    return {"criterion": "channel_share", "measured": measured, "rule": "<=",
            "threshold": MAX_SHARE, "passed": measured <= MAX_SHARE + 1e-12,
            "meaning": f"no column published unchanged gives back more than {MAX_SHARE:.0%} "
                       f"of a quasi-identifier's hidden cells while lowering k below "
                       f"{k_stake} (allow_channels= and sensitive columns excepted)"}


def _channel_hazards(found, k_stake) -> list:
    out = []
    for (col, q), f in found.groupby(["column", "quasi_identifier"], sort=False):
        row = f.sort_values("share").iloc[-1]
        why = (" (allowed by the publisher)" if row["allowed"] else
               " (a sensitive column: not refused)" if row["sensitive"] else "")
        out.append(f"column {col!r} is published unchanged and determines {q!r}: it narrows "
                   f"{row['narrowed']:,} of the {row['hidden']:,} hidden {q!r} cells "
                   f"({row['share']:.1%}) to one value; with it k = {row['k_with']} "
                   f"({row['rows_below_k']:,} rows in classes under {k_stake}){why}")
    return out


def _order_hazard(release, qi) -> list:
    """The hazard of rows published in an order sorted on quasi-identifiers
    (:mod:`pdanon.checks.row_order`)."""
    from pdanon.checks.row_order import sorted_columns

    found = sorted_columns(release, qi)
    if not found:
        return []
    listed = ", ".join(f"{c!r} ({evidence})" for c, evidence in found)
    return [f"the rows are in an order sorted or grouped on {listed}: a suppressed or "
            f"generalized cell "
            f"can be read off its neighbours; publish out.anon.in_random_order() (rows in a "
            f"random order, numbered anew)"]


def _suppressed_rows(release, original, qi, info, loose: bool = False) -> int:
    """Rows whose every quasi-identifier was suppressed: counted against ``original`` row by
    row; ``loose`` (the original given for the attacks, which need no alignment: a DP sample,
    a synthetic table): from ``info`` when the rows cannot be matched."""
    blank = release[qi].isna().all(axis=1).to_numpy()
    if original is not None:
        from pdanon.metrics._common import aligned

        try:
            before = aligned(original, release)[qi].isna().all(axis=1).to_numpy()
            return int((blank & ~before).sum())
        except InvalidInputError:
            if not loose:
                raise
    return int(info.get("suppressed_rows", blank.sum()))


def _blank_beside_one_value(values: pd.Series, labels, sizes, col, n: int) -> list:
    """The hazard of classes whose known values of ``col`` are all the same beside blanks (a
    class of 5 x hiv and 5 blanks): counting the blank as a value calls it 2-diverse, yet a
    member's value is hiv or unknown. In words, whatever rule the policy reads blanks by."""
    codes, _ = pd.factorize(values, use_na_sentinel=True)
    known = codes >= 0
    m = int(codes.max()) + 1 if known.any() else 1
    pairs = np.unique(labels[known] * m + codes[known])
    one = np.bincount(pairs // m, minlength=len(sizes)) == 1
    blank = np.bincount(labels[~known], minlength=len(sizes)) > 0
    hit = one & blank
    if not hit.any():
        return []
    rows = int(sizes[hit].sum())
    return [f"every known value of {col!r} is the same in {int(hit.sum()):,} class(es) "
            f"({rows:,} rows, {rows / n:.1%}): the blanks beside them hide nothing, so "
            f"anyone who finds such a person's class learns the value or nothing (l = 1 of "
            f"known values; l-diversity with missing_sensitive='unknown' forbids it)"]


def _hazards(release, qi, sens, n, suppressed, risk, policy) -> list:
    """Plain-language hazards the criteria may not show."""
    from pdanon._groups import class_labels

    out = []
    if not n:
        return ["the release is empty: nothing was published (under differential privacy, "
                "every class had fewer sampled rows than its k; coarser hierarchies or a "
                "larger table publish more)"]
    labels = class_labels(release, qi)
    sizes = np.bincount(labels)
    for col in sens:
        codes, _ = pd.factorize(release[col], use_na_sentinel=False)
        key = labels * (int(codes.max()) + 1 if len(codes) else 1) + codes
        distinct = np.bincount(np.unique(key) // max(int(codes.max()) + 1, 1),
                               minlength=len(sizes))
        same = distinct == 1
        if same.any():
            rows = int(sizes[same].sum())
            out.append(f"in {int(same.sum()):,} class(es), {rows:,} rows ({rows / n:.1%}), every "
                       f"member has the same {col!r} value: anyone who finds such a person's "
                       f"class learns it (l = 1; ask for l-diversity or t-closeness)")
        out += _blank_beside_one_value(release[col], labels, sizes, col, n)
        values = release[col].dropna()
        if len(values) >= 50 and values.nunique() >= NEARLY_UNIQUE * len(values):
            out.append(f"sensitive column {col!r} is nearly unique ({values.nunique():,} "
                       f"distinct values in {len(values):,} rows): published as it is, it "
                       f"links rows to any other copy of it")
    at_risk = float(risk["records_at_risk"]) if risk is not None else 0.0
    if at_risk > 0 and policy.max_records_at_risk is None:
        smallest = math.ceil(1 / policy.risk_threshold - 1e-9)
        out.append(f"{at_risk:.1%} of rows are in classes of fewer than {smallest} rows "
                   f"(prosecutor risk above {policy.risk_threshold:g}): the policy allows "
                   f"it; pass Policy(max_records_at_risk=...) to hold it")
    uniques = float(risk["sample_uniques"]) if risk is not None else 0.0
    if uniques > 0 and policy.max_sample_uniques is None:
        out.append(f"{uniques:.1%} of rows are unique on the quasi-identifiers (sample "
                   f"uniques): each is a class of one")
    share = suppressed / n
    limit = policy.max_suppressed_share
    if share > HIGH_SUPPRESSED_SHARE and limit is None:
        out.append(f"{share:.1%} of rows are suppressed (every quasi-identifier blank): "
                   f"analyses of those columns lose them")
    return out
