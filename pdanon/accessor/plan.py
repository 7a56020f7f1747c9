"""A dry run of an anonymization: ``df.anon.plan(...)`` (and ``pdanon anonymize --dry-run``)
says what the call would do before anything is published.

It does not estimate: it runs the anonymizer itself, in memory, through the same code path as
the call it plans (the same role resolution and screening, the same ``algorithm="auto"``
choice, the same partitioning and the same verification), keeps the figures of the result and
discards the release — nothing is written and no frame is returned. So ``expected_classes``
and ``expected_suppressed`` are the ones the real call gives on the same frame (every
algorithm is deterministic under its fixed default seed; a differentially private run draws
afresh each time, so its figures are one draw), and a plan costs the time of the run.

A refusal does not stop the plan: the screening of the columns nobody named and the run's
own error are collected in ``refusals`` (each a sentence saying why and the fix), the roles
are still shown (given, and inferred with the kind pdanon would give them).

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"age": [30, 31, 40, 42, 50, 52], "d": list("abacab")})
>>> p = df.anon.plan(k=2, quasi_identifiers=["age"], sensitive=["d"])
>>> p.algorithm, p.expected_classes, p.expected_suppressed, p.refusals
('nearest', 3, 0, [])
>>> p.roles["age"]
('quasi_identifier', 'real', 'given')
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import pandas as pd

__all__ = ["Plan", "plan"]

#: the keywords that name roles
_ROLE_KEYWORDS = ("identifiers", "quasi_identifiers", "sensitive", "insensitive")


@dataclass
class Plan:
    """What an anonymization would do (see :mod:`pdanon.accessor.plan`).

    ``roles``: per column ``(role, kind or None, "given" or "inferred")``; ``refusals``: the
    sentences of what would be refused and why (empty: the call would publish);
    ``warnings``: the warnings the call would give; ``algorithm``: the algorithm that would
    run (``requested``: the one asked for, e.g. ``"auto"``); ``model``: its name;
    ``hierarchies``: per quasi-identifier with a hierarchy, ``{"height", "levels"}`` (the
    range of levels searched) and, after an optimal search, ``"chosen"``;
    ``nodes_searched``: the lattice nodes the optimal search evaluated of the total;
    ``expected_classes`` / ``expected_suppressed`` / ``rows``: the figures of the run (None
    when it is refused)."""

    roles: dict
    refusals: list
    warnings: list
    algorithm: str | None
    requested: str
    model: str | None
    hierarchies: dict = field(default_factory=dict)
    nodes_searched: tuple | None = None
    expected_classes: int | None = None
    expected_suppressed: int | None = None
    rows: int = 0

    @property
    def ok(self) -> bool:
        """Would the call publish (nothing refused)?"""
        return not self.refusals

    def to_text(self) -> str:
        """The plan in plain lines (what ``pdanon anonymize --dry-run`` prints)."""
        lines = ["dry run: nothing is written"]
        for role in ("identifier", "quasi_identifier", "sensitive", "insensitive"):
            cols = [(c, kind, how) for c, (r, kind, how) in self.roles.items() if r == role]
            if cols:
                lines.append(f"{_ROLE_WORDS[role]:<18}" + ", ".join(
                    f"{c}" + (f" {kind}" if kind else "") + (" (inferred)" if how ==
                                                             "inferred" else "")
                    for c, kind, how in cols))
        lines.append(f"{'algorithm':<18}" + (self.algorithm or "none (refused)") + (
            f" ({self.requested})" if self.requested != self.algorithm else ""))
        if self.model:
            lines.append(f"{'model':<18}{self.model}")
        for col, h in self.hierarchies.items():
            low, high = h["levels"]
            top = "?" if h["height"] is None else h["height"]
            lines.append(f"{'hierarchy':<18}{col}: levels {low}..{top if high is None else high}"
                         f" of 0..{top}"
                         + (f", chosen {h['chosen']}" if "chosen" in h else ""))
        if self.nodes_searched is not None:
            lines.append(f"{'lattice':<18}{self.nodes_searched[0]:,} of "
                         f"{self.nodes_searched[1]:,} nodes evaluated")
        if self.expected_classes is not None:
            lines.append(f"{'classes':<18}{self.expected_classes:,} expected")
            lines.append(f"{'suppressed rows':<18}{self.expected_suppressed:,} expected of "
                         f"{self.rows:,}")
        for label, texts in (("warning", self.warnings), ("refused", self.refusals)):
            for text in texts:
                first, *rest = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
                lines += [f"{label:<18}{first}", *(" " * 18 + ln for ln in rest)]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.to_text()


_ROLE_WORDS = {"identifier": "identifiers", "quasi_identifier": "quasi-identifiers",
               "sensitive": "sensitive", "insensitive": "insensitive"}


def plan(df: pd.DataFrame, model=None, keywords: dict | None = None) -> Plan:
    """The :class:`Plan` of ``df.anon.anonymize(model, **keywords)`` (or, without a model,
    ``df.anon.k_anonymize(k, **keywords)`` with ``k`` among the keywords, default 1)."""
    from pdanon._errors import RoleError
    from pdanon.keywords import UnknownKeywordError
    from pdanon.roles import resolve_roles

    kw = dict(keywords or {})
    roles = {key: kw[key] for key in _ROLE_KEYWORDS if key in kw}
    refusals, said = [], []
    shown = _roles(df, roles, kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # the screening of the columns nobody named, as the anonymizer runs it: without the
        # household column (household= takes it out before, and puts it back renumbered)
        screened = df.drop(columns=[kw["household"]]) if kw.get("household") in df.columns \
            else df
        try:
            resolve_roles(screened, screen="refuse", **roles)
        except RoleError as exc:
            refusals.append(str(exc))
        except Exception:  # noqa: BLE001 - the run below says it, once
            pass
        out = None
        if not refusals:
            try:
                kw = {**kw, "row_order": "input"}  # nothing is published: no shuffle needed
                out = (df.anon.anonymize(model, **kw) if model is not None
                       else df.anon.k_anonymize(kw.pop("k", 1), **kw))
            except (KeyboardInterrupt, UnknownKeywordError):
                raise
            except Exception as exc:  # noqa: BLE001 - a refusal is what the plan reports
                refusals.append(f"{type(exc).__name__}: {exc}")
    for w in caught:
        text = " ".join(str(w.message).split())
        if text not in said:
            said.append(text)
    info = out.anon.info if out is not None else {}
    requested = str(kw.get("algorithm", "auto"))
    result = Plan(roles=shown, refusals=refusals, warnings=said,
                  algorithm=info.get("algorithm"), requested=requested,
                  model=info.get("model"), rows=len(df))
    if out is not None:
        result.expected_classes = int(info.get("groups", 0))
        result.expected_suppressed = int(info.get("suppressed_rows", 0))
        if "nodes_total" in info:
            result.nodes_searched = (int(info["nodes_evaluated"]), int(info["nodes_total"]))
    result.hierarchies = _hierarchies(kw, shown, info)
    return result


def _roles(df, roles: dict, kw: dict) -> dict:
    """Per column: (role, kind, given or inferred), as the anonymizer would resolve them."""
    from pdanon.roles import resolve_roles

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = resolve_roles(df, screen="ignore", **roles)
    except Exception:  # noqa: BLE001 - the run reports the error itself
        return {}
    out = {}
    household = kw.get("household")
    for c in df.columns:
        how = "inferred" if c in r.inferred else "given"
        if c in r.quasi_identifiers:
            out[c] = ("quasi_identifier", r.quasi_identifiers[c], how)
        elif c in r.sensitive:
            out[c] = ("sensitive", r.sensitive[c], how)
        elif c in r.identifiers:
            out[c] = ("identifier", None, how)
        else:
            out[c] = ("insensitive", None, "given" if c == household else how)
    return out


def _hierarchies(kw: dict, roles: dict, info: dict) -> dict:
    """Per quasi-identifier hierarchy: its height, the levels searched and the chosen one."""
    hierarchies = kw.get("hierarchies") or {}
    levels = kw.get("levels") or {}
    heights = info.get("heights") or {}
    out = {}
    for col, h in hierarchies.items():
        if col not in roles or roles[col][0] != "quasi_identifier":
            continue
        height = heights.get(col)
        if height is None:
            height = _height(h)
        asked = levels.get(col)
        low, high = ((asked, asked) if isinstance(asked, int) else tuple(asked)
                     if asked is not None else (0, height))
        entry = {"height": height, "levels": (low, high)}
        if col in (info.get("levels") or {}):
            entry["chosen"] = int(info["levels"][col])
        out[col] = entry
    return out


def _height(h):
    """A hierarchy's height before it meets the data (None when only the data tell)."""
    for name in ("height", "depth"):
        value = getattr(h, name, None)
        if isinstance(value, int):
            return value
    return None
