"""The attacks of :mod:`pdanon.attacks` in the verdict: ``Policy(max_singling_out=,
max_linkability=, max_inference=)``.

:func:`measure` runs singling out, linkability and inference on a release for
:func:`pdanon.checks.policy.check` (and through it the report and the CLI's ``--attacks``), with
the roles the check reads: singling out over the quasi-identifiers and the sensitive columns
(as ``df.anon.attacks``), linkability with the quasi-identifiers dealt alternately into two
halves (it needs two), inference of every sensitive column from the quasi-identifiers. Each
runs :data:`N_ATTACKS` attacks (fewer when the original or the control has fewer rows: the
targets are drawn without replacement) at the confidence level :data:`LEVEL`.

A criterion is met when the **upper bound** of the risk's interval is at most the limit: a
release passes only when the attacks show, at that confidence, that the risk beyond the
control set is no higher. The figures (risk, interval, rates) are kept on the
:class:`~pdanon.checks.policy.CheckResult` (``attacks``) whether a criterion asks for them or
not; the default policy asks for none (figures, not criteria).

Example
-------
>>> import pandas as pd
>>> original = pd.DataFrame({"a": range(0, 80, 2), "b": range(0, 80, 2)})
>>> control = pd.DataFrame({"a": range(1, 81, 2), "b": range(79, 0, -2)})
>>> found = measure(original, original, control, ["a", "b"], [], missing="value", seed=0,
...                 asked={"linkability"})
>>> sorted(found), found["linkability"].main_rate
(['linkability', 'singling_out'], 1.0)
"""

from __future__ import annotations

from pdanon._errors import InvalidInputError

__all__ = ["ASKED", "LEVEL", "N_ATTACKS", "criteria", "measure", "refuse_without_control"]

#: attacks per kind unless the original or the control has fewer rows
N_ATTACKS = 2000
#: the confidence level of the intervals the criteria read
LEVEL = 0.95
#: policy field -> (attack, criterion key, what a success means)
ASKED = {
    "max_singling_out": ("singling_out", "singling_out_risk",
                         "a predicate read off the release isolates exactly one real person"),
    "max_linkability": ("linkability", "linkability_risk",
                        "two halves of a person's record (the quasi-identifiers split in two) "
                        "are joined through the release"),
    "max_inference": ("inference", "inference_risk",
                      "a sensitive value is guessed from the release rows matching a person's "
                      "quasi-identifiers"),
}


def asked(policy) -> dict:
    """``{attack: limit}`` of the attack criteria ``policy`` sets."""
    return {ASKED[name][0]: getattr(policy, name) for name in ASKED
            if getattr(policy, name) is not None}


def refuse_without_control(wanted: dict, original, control) -> None:
    """The policy asks for attack criteria: refuse, with the reason and the fix, when the
    original or the control set is missing (no baseline, no risk)."""
    if not wanted or (original is not None and control is not None):
        return
    names = ", ".join(f"max_{a}" for a in wanted)
    lack = " and ".join(w for w, v in (("original=", original), ("control=", control))
                        if v is None)
    raise InvalidInputError(
        f"the policy sets {names}, measured by attacking the release: pass {lack}. The "
        f"attacks run against the original (the rows the release was made from) and against "
        f"a control set (held-out rows of the same population the release never saw); "
        f"without the control a success rate cannot be told from what any table of that "
        f"population gives, so no risk can be measured. Hold the control out before "
        f"anonymizing: original, control = pdanon.attacks.holdout(df); out = "
        f"original.anon.k_anonymize(...); out.anon.check(policy, original=original, "
        f"control=control) (CLI: --attacks CONTROL.csv)")


def measure(release, original, control, qi: list, sens: list, *, missing: str,
            seed=None, n_attacks=None, asked=frozenset()) -> dict:
    """``{"singling_out": AttackResult, "linkability": ..., "inference": {col: ...}}``: the
    attacks that can run on these roles. An attack ``asked`` for (a criterion) that cannot run
    is refused: linkability with fewer than two quasi-identifiers, inference without a
    sensitive column outside them; one not asked for is left out (a figure only)."""
    from pdanon.attacks import inference, linkability, singling_out

    qi, sens = list(qi), [c for c in sens if c not in set(qi)]
    if "linkability" in asked and len(qi) < 2:
        raise InvalidInputError(
            f"max_linkability needs two quasi-identifiers (the attacker holds two disjoint "
            f"halves of a record); the release has {qi}: drop the criterion or name more "
            f"quasi-identifiers")
    if "inference" in asked and not sens:
        raise InvalidInputError("max_inference guesses a sensitive column from the "
                                "quasi-identifiers: pass sensitive=[...] (a column that is not "
                                "a quasi-identifier)")
    kw = dict(seed=seed, level=LEVEL, missing=missing,
              n_attacks=n_attacks if n_attacks is not None else
              min(N_ATTACKS, len(original), len(control)))
    out = {"singling_out": singling_out(release, original, control=control,
                                        columns=qi + sens, **kw)}
    if len(qi) >= 2:
        out["linkability"] = linkability(release, original, control=control,
                                         aux_cols=(qi[0::2], qi[1::2]), **kw)
    if sens:
        out["inference"] = {c: inference(release, original, control=control, aux_cols=qi,
                                         secret=c, **kw) for c in sens}
    return out


def _worst(found):
    """The result with the highest upper bound (inference: over the sensitive columns)."""
    if isinstance(found, dict):
        col, res = max(found.items(), key=lambda kv: kv[1].ci[1])
        return res, f" (worst column: {col!r})" if len(found) > 1 else ""
    return found, ""


def criteria(found: dict, wanted: dict, add) -> None:
    """One criterion per attack limit: the upper bound of the risk's interval <= the limit."""
    for name, (attack, key, success) in ASKED.items():
        if attack not in wanted:
            continue
        res, which = _worst(found[attack])
        lo, hi = res.ci
        add(key, float(hi), "<=", wanted[attack],
            f"upper bound of the {attack.replace('_', ' ')} risk at {res.level:.0%} (risk "
            f"{res.risk:.3f}, interval [{lo:.3f}, {hi:.3f}], {res.n_attacks} attacks{which}): "
            f"how much more often than on held-out rows {success}")


def lines(found: dict) -> list:
    """One plain line per attack figure (for the verdict's printout)."""
    out = []
    for attack, res in found.items():
        for col, r in (res.items() if isinstance(res, dict) else [(None, res)]):
            lo, hi = r.ci
            name = attack.replace("_", " ") + (f" of {col!r}" if col is not None else "")
            out.append(f"{name} {r.risk:.3f} [{lo:.3f}, {hi:.3f}]")
    return out


def as_dicts(found: dict) -> list:
    """The figures as JSON-ready rows (``attack``: ``singling_out``, ``linkability`` or
    ``inference``; ``secret``: inference's column; ``risk``, ``ci_low``, ``ci_high``, ...)."""
    rows = []
    for attack, res in found.items():
        for col, r in (res.items() if isinstance(res, dict) else [(None, res)]):
            rows.append({**r.as_dict(), "attack": attack,
                         "secret": None if col is None else str(col)})
    return rows


# ------------------------------------------------- attacks an anonymizer ran (evaluate=)

#: the publisher-only facts of a release that hold the attacks its anonymizer ran
#: (``evaluate=`` / ``control=``) and the content they were run on
STORED, STORED_ON = "attacks", "attacks_of"


def fingerprint(frame) -> tuple | None:
    """The content of ``frame`` whatever its rows' order: columns, rows and two
    order-free sums of the rows' hashes (None when pandas cannot hash a column)."""
    import numpy as np
    import pandas as pd

    try:
        h = pd.util.hash_pandas_object(frame, index=False).to_numpy(dtype=np.uint64)
    except (TypeError, ValueError):
        return None
    with np.errstate(over="ignore"):
        mixed = (h ^ (h >> np.uint64(29))) * np.uint64(0x9E3779B97F4A7C15)
    return (tuple(map(str, frame.columns)), len(frame), int(h.sum(dtype=np.uint64)),
            int(mixed.sum(dtype=np.uint64)))


def stored(release) -> dict | None:
    """The attacks the anonymizer that made ``release`` ran (``evaluate=`` or ``control=``
    of the anonymizers, kept publisher-only), or None: none were run, the frame was read
    back from a file (the facts never leave), or its content changed since (a column
    dropped or edited: the figures were measured on another table)."""
    from pdanon.publisher_only import facts_of

    facts = facts_of(release)
    found = facts.get(STORED)
    if not found or facts.get(STORED_ON) is None or facts.get(STORED_ON) != fingerprint(release):
        return None
    return dict(found)


def refuse_missing(found: dict, wanted: dict) -> None:
    """A criterion asks for an attack the stored attacks do not hold (the roles of the
    anonymizer's release could not run it): refuse, saying why and the fix."""
    why = {"linkability": "it needs two quasi-identifiers",
           "inference": "it needs a sensitive column outside the quasi-identifiers",
           "singling_out": "no column was attacked"}
    lacking = [a for a in wanted if a not in found]
    if lacking:
        raise InvalidInputError(
            f"the policy sets {', '.join('max_' + a for a in lacking)}, but the attacks the "
            f"anonymizer ran (evaluate=) hold no {lacking[0].replace('_', ' ')} figure: "
            f"{why[lacking[0]]}. Drop the criterion, or give the roles it needs and attack "
            f"with check(original=, control=)")
