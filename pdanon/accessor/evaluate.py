"""``evaluate=`` and ``control=`` of the anonymizers: attack the release as it is made.

``df.anon.k_anonymize(5, evaluate=True)`` (also ``anonymize``, ``l_diversify``, ``t_close``)

1. holds out a control set **before** anonymizing: :data:`SHARE` of the rows (``evaluate=
   {"share": ...}``), stratified on the sensitive columns of categories (``"stratify"``)
   with :func:`pdanon.attacks.holdout`;
2. anonymizes the remaining rows only: **the held-out rows are not published** (the release
   has fewer rows than ``df``; ``info["evaluate"]`` counts both parts);
3. runs singling out, linkability and inference on the release, against the rows it was made
   from and with the held-out rows as control (:func:`pdanon.checks.attack_risks.measure`:
   the roles the verdict reads; ``"n_attacks"``, ``"seed"`` for tests);
4. keeps the figures **publisher-only** (``info["publisher_only"]``, never written to a
   file), for this content only: ``out.anon.check()``, ``out.anon.report(...)`` and
   ``out.anon.publish(...)`` show them and judge ``Policy(max_singling_out=, ...)`` by them
   without attacking again. The held-out rows themselves are kept nowhere.

``control=<held-out rows>`` instead attacks with a control the caller held out (all of ``df``
is anonymized). Why the default share is one half: singling out depends on the table's size,
and no sound rescaling from a smaller control exists (docs/attacks.md, "Why a control set").

The publisher-only way back to the input's rows points into ``df`` (the frame the caller
holds), so ``out.anon.check(original=df)``, ``metrics(df)`` and ``report(df)`` pair the
release's rows with theirs.

Example
-------
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> df = pd.DataFrame({"age": rng.integers(20, 70, 400), "zip": rng.integers(0, 9, 400),
...                    "d": rng.choice(["flu", "hiv", "cold"], 400)})
>>> out = df.anon.k_anonymize(5, quasi_identifiers=["age", "zip"], sensitive=["d"],
...                           evaluate={"seed": 0})
>>> e = out.anon.info["evaluate"]          # about half held out (per stratum of d): not published
>>> len(out) == e["released_from_rows"], e["released_from_rows"] + e["control_rows"]
(True, 400)
>>> sorted(out.anon.check().attacks)
['inference', 'linkability', 'singling_out']
"""

from __future__ import annotations

import pandas as pd

from pdanon._errors import InvalidInputError

#: the share of rows ``evaluate=True`` holds out: the original and the control the same size,
#: so singling out is compared at one table size (docs/attacks.md, "Why a control set")
SHARE = 0.5
#: the keys ``evaluate={...}`` takes
KEYS = ("share", "stratify", "n_attacks", "seed")
#: the anonymizers that take ``evaluate=`` and ``control=``
FACES = ("anonymize", "k_anonymize", "l_diversify", "t_close")


def options(evaluate, control) -> dict | None:
    """The evaluation asked for (None: none), checked before any work."""
    if evaluate is None or evaluate is False:
        if control is None:
            return None
        evaluate = {}
    elif evaluate is True:
        evaluate = {}
    if not isinstance(evaluate, dict):
        raise InvalidInputError(
            f"evaluate must be True, False or a dict with keys among {list(KEYS)}, got "
            f"{type(evaluate).__name__}")
    unknown = [key for key in evaluate if key not in KEYS]
    if unknown:
        from pdanon.keywords import did_you_mean

        hint = did_you_mean(unknown[0], KEYS)
        raise InvalidInputError(f"evaluate= has unknown key(s) {unknown}{hint}; it takes "
                                f"{list(KEYS)}")
    opts = dict(evaluate)
    if control is not None:
        if not isinstance(control, pd.DataFrame):
            raise TypeError(f"control must be a pandas DataFrame of held-out rows, got "
                            f"{type(control).__name__}")
        split = [key for key in ("share", "stratify") if key in opts]
        if split:
            raise InvalidInputError(
                f"evaluate={{{split[0]!r}: ...}} splits the frame, control= is a control "
                f"already held out: pass one of them")
        opts["control"] = control
        return opts
    share = opts.setdefault("share", SHARE)
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share < 1:
        raise InvalidInputError(f"evaluate: share must lie strictly between 0 and 1 (the "
                                f"share of rows held out as the control), got {share!r}")
    return opts


def min_rows(level: float = 0.95) -> int:
    """The fewest rows a part may have: below it, even an attack that never succeeds on the
    original leaves the upper bound of its risk above one half at ``level`` (the Wilson
    bound of 0 successes out of that many attacks), so no risk could ever be bounded."""
    from pdanon.attacks import wilson

    m = 1
    while wilson(0, m, 1 - (1 - level) / 2)[1] >= 0.5:
        m += 1
    return m


def split(df: pd.DataFrame, opts: dict, roles: dict):
    """``(rows to anonymize, control)`` for ``opts`` (the caller's control, or a stratified
    holdout of ``df``), refused with the reason and the fix when the split is impossible."""
    from pdanon.attacks import holdout
    from pdanon.roles import resolve_roles

    if "control" in opts:
        return df, opts["control"]
    stratify = opts.get("stratify", "sensitive")
    if stratify == "sensitive":  # the secrets inference guesses: the control's base rates
        r = resolve_roles(df, screen="ignore", **roles)
        stratify = [c for c, kind in r.sensitive.items() if kind != "real"] or None
    least = min_rows()
    share = opts["share"]
    if min(len(df) * share, len(df) * (1 - share)) < least:
        raise InvalidInputError(
            f"evaluate: {len(df)} rows split at share={share} leave a part of fewer than "
            f"{least} rows, and with fewer no attack can bound a risk below one half at 95 % "
            f"(no risk could be reported). Evaluate a larger table, or hold a control out "
            f"yourself and pass control=")
    return holdout(df, share, stratify=stratify, seed=opts.get("seed"), every_stratum=True)


def refuse_households(df: pd.DataFrame, household) -> None:
    """A random split would cut households in two (a relative in the control): refused."""
    from pdanon.screening import households

    if household is not None or households.recorded_column(df) is not None:
        raise InvalidInputError(
            "evaluate= holds rows out at random, which would cut households in two (a "
            "member in the release, a relative in the control); hold out whole households "
            "yourself and pass control=<their rows>")


def attach(out: pd.DataFrame, df: pd.DataFrame, part: pd.DataFrame, control: pd.DataFrame,
           opts: dict) -> pd.DataFrame:
    """Attack ``out`` (made from ``part``) with ``control``; keep the figures publisher-only
    with the content they were measured on, count the parts in ``info["evaluate"]``, and
    point the way back into ``df``. ``out`` is the face's own new frame."""
    import copy

    import numpy as np

    from pdanon.checks import attack_risks
    from pdanon.publisher_only import PublisherOnly, facts_of
    from pdanon.roles import ATTRS_KEY, resolve_roles

    r = resolve_roles(out, screen="ignore")
    whole = part
    attrs = copy.deepcopy(out.attrs)
    info = dict(attrs[ATTRS_KEY].get("info") or {})
    part, control = _in_release_kinds(out, part, control, [*r.qi, *r.sensitive])
    found = attack_risks.measure(out, part, control, r.qi, list(r.sensitive),
                                 missing=info.get("missing", "value"), seed=opts.get("seed"),
                                 n_attacks=opts.get("n_attacks"))
    facts = facts_of(out)
    if whole is not df and "first_rows" in facts and facts["first_index"].equals(part.index):
        at = pd.Series(np.arange(len(df)), index=df.index).reindex(part.index).to_numpy()
        facts["first_rows"] = pd.Series(at[facts["first_rows"].to_numpy()],
                                        index=facts["first_rows"].index)
        facts["first_index"] = df.index
    facts.update({attack_risks.STORED: found,
                  attack_risks.STORED_ON: attack_risks.fingerprint(out)})
    info["publisher_only"] = PublisherOnly(facts)
    info["evaluate"] = {
        "share": None if whole is df else float(opts["share"]),
        "released_from_rows": int(len(part)), "control_rows": int(len(control)),
        "held_out": whole is not df,
        "attacks": sorted(found)}
    attrs[ATTRS_KEY]["info"] = info
    out.attrs = attrs
    return out


def _in_release_kinds(release, part, control, columns):
    """``part`` and ``control`` with each attacked column in the kind the release publishes
    it as (a ZIP of integers the roles read as categories is published as sets: the attacks
    compare like with like); copies, the caller's frames are not modified."""
    from pdanon.roles import infer_kind

    part, control = part.copy(), control.copy()
    for c in columns:
        want = infer_kind(release[c])
        if infer_kind(part[c]) == want and infer_kind(control[c]) == want:
            continue
        if want in ("unordered", "ordered"):
            values = pd.concat([part[c], control[c]]).dropna().unique()
            try:
                values = sorted(values)
            except TypeError:
                values = list(values)
            dtype = pd.CategoricalDtype(values, ordered=want == "ordered")
            part[c], control[c] = part[c].astype(dtype), control[c].astype(dtype)
        elif want == "real":
            part[c] = pd.to_numeric(part[c].astype(object), errors="coerce")
            control[c] = pd.to_numeric(control[c].astype(object), errors="coerce")
    return part, control
