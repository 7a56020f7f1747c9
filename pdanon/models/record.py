"""A privacy model written down in ``info`` and rebuilt from it.

Every anonymizer records the parts of the model it verified in ``info["models"]`` (a list of
``{"model": class name, "params": ...}``, plain JSON). A later step on the same frame rebuilds
them (:func:`rebuild`) and verifies them with its own model, so that chaining anonymizers
never loses what an earlier step verified (``df.anon.k_anonymize(5).anon.l_diversify(2)`` is
still 5-anonymous). A model that reads a population table, t-closeness over hierarchies or a
model of your own cannot be rebuilt from ``info`` (their tables and trees are not recorded):
:func:`rebuild` raises :class:`CannotRebuild`, naming the model.

Example
-------
>>> from pdanon.models import AllOf, KAnonymity, LDiversity
>>> rec = record(AllOf(KAnonymity(5), LDiversity(2)))
>>> rec
[{'model': 'KAnonymity', 'params': {'k': 5}}, {'model': 'LDiversity', 'params': {'l': 2, 'variant': 'distinct', 'missing_sensitive': 'unknown'}}]
>>> rebuild(rec)
AllOf(KAnonymity(k=5), LDiversity(l=2))
"""

from __future__ import annotations

from pdanon._errors import InvalidInputError

__all__ = ["CannotRebuild", "rebuild", "record", "recorded_rule"]

#: the recorded models whose parameters hold a ``missing_sensitive`` rule
RULED = ("LDiversity", "TCloseness", "BetaLikeness", "DeltaDisclosure", "AlphaKAnonymity")


_FIX = ("the record is damaged: take it from the release that wrote it (out.anon.info, "
        "out.anon.recoding) or write the release again")


class CannotRebuild(InvalidInputError):
    """A recorded model part that :func:`rebuild` cannot make again (the message names it)."""


def _rule(params) -> str:
    """The recorded ``missing_sensitive`` rule. A record without one was written before the
    keyword existed (a missing sensitive cell was then one more value); it is read with
    today's default, ``"unknown"``, the stricter reading: a chained step or a check then
    holds the old release to it rather than to the rule that let "5 x hiv, 5 blanks" pass."""
    return params.get("missing_sensitive", "unknown")


def _builders() -> dict:
    from pdanon import models as m

    return {
        "KAnonymity": lambda p: m.KAnonymity(p["k"]),
        "LDiversity": lambda p: m.LDiversity(p["l"], variant=p.get("variant", "distinct"),
                                             c=p.get("c"), missing_sensitive=_rule(p)),
        "TCloseness": lambda p: m.TCloseness(p["t"], distance=p.get("distance", "emd"),
                                             missing_sensitive=_rule(p)),
        "BetaLikeness": lambda p: m.BetaLikeness(p["beta"],
                                                 variant=p.get("beta_variant", "basic"),
                                                 missing_sensitive=_rule(p)),
        "DeltaDisclosure": lambda p: m.DeltaDisclosure(p["delta"], missing_sensitive=_rule(p)),
        "AlphaKAnonymity": lambda p: m.AlphaKAnonymity(p["alpha"], p["k"], value=p.get("value"),
                                                     missing_sensitive=_rule(p)),
        "HighestRisk": lambda p: m.HighestRisk(p["max_risk"]),
        "EDDifferentialPrivacy": lambda p: m.EDDifferentialPrivacy(
            p["epsilon"], p["delta"], search_share=p["search_share"]),
        "AverageRisk": lambda p: m.AverageRisk(p["average_risk"], max_risk=p.get("max_risk"),
                                               records_at_risk=p.get("records_at_risk", 0.0)),
    }


def recorded_rule(info, prefer: str | None = None) -> str | None:
    """The ``missing_sensitive`` rule a release's ``info["models"]`` was verified under: that
    of the recorded part named ``prefer`` (e.g. ``"LDiversity"``) when there is one, else of
    any part that reads sensitive columns; ``None`` when no such part is recorded. A part
    recorded before the keyword existed is read as ``"unknown"`` (:func:`_rule`).

    Example
    -------
    >>> from pdanon.models import LDiversity
    >>> recorded_rule({"models": record(LDiversity(2, missing_sensitive="value"))})
    'value'
    >>> recorded_rule({"models": [{"model": "KAnonymity", "params": {"k": 2}}]}) is None
    True
    """
    recs = [r for r in (info or {}).get("models") or [] if r.get("model") in RULED]
    recs.sort(key=lambda r: r.get("model") != prefer)
    return _rule(recs[0].get("params") or {}) if recs else None


def record(model) -> list:
    """The parts of ``model`` as plain dicts (``model``: the class name, ``params``)."""
    out = []
    for part in model.parts():
        params = {k: v for k, v in part.params().items()}
        out.append({"model": type(part).__name__, "params": params})
    return out


def rebuild(records):
    """The model of ``records`` (from :func:`record`): one part, or an
    :class:`~pdanon.models.AllOf`. Raises :class:`CannotRebuild` for a part that is not
    rebuilt from its parameters (a population model, t-closeness over hierarchies, your own)."""
    from pdanon.models import AllOf

    builders = _builders()
    parts = []
    if not isinstance(records, (list, tuple)):
        raise InvalidInputError(f"the recorded models must be a list of {{model, params}} "
                                f"objects, got {type(records).__name__}; {_FIX}")
    for i, rec in enumerate(records):
        if not isinstance(rec, dict) or not isinstance(rec.get("params") or {}, dict):
            raise InvalidInputError(f"models[{i}]: expected an object {{model, params}} "
                                    f"with params an object, got {rec!r:.80}; {_FIX}")
        name, params = rec.get("model"), dict(rec.get("params") or {})
        build = builders.get(name) if isinstance(name, str) else None
        if build is None or (name == "TCloseness" and params.get("distance") == "hierarchical"):
            raise CannotRebuild(
                f"the model {name}({', '.join(f'{k}={v!r}' for k, v in params.items())}) "
                f"recorded by an earlier step cannot be rebuilt from info (its population "
                f"table, hierarchies or code are not recorded)")
        try:
            parts.append(build(params))
        except KeyError as exc:
            raise InvalidInputError(f"models[{i}]: the recorded model {name} has no parameter "
                                    f"{exc.args[0]!r} (params {params!r:.80}); {_FIX}") from None
        except (TypeError, ValueError) as exc:
            if isinstance(exc, InvalidInputError):
                raise
            raise InvalidInputError(f"models[{i}]: the recorded model {name} cannot be built "
                                    f"from params {params!r:.80} ({exc}); {_FIX}") from None
    if not parts:
        raise CannotRebuild("no model is recorded")
    return parts[0] if len(parts) == 1 else AllOf(*parts)
