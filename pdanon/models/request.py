"""The privacy model an anonymizer's keywords ask for: ``k=``, ``l=`` (``variant=``,
``c=``), ``t=`` (``distance=``, a sensitive column's hierarchy), ``max_risk=``,
``average_risk=``. Every face builds its model here (``df.anon`` and ``ddf.anon``), so that
``k_anonymize``, ``l_diversify`` and ``t_close`` each accept the others' parameters.

Example
-------
>>> request(k=3, l=2, t=0.2)
AllOf(KAnonymity(k=3), LDiversity(l=2), TCloseness(t=0.2))
>>> request(k=5, always_k=False)
KAnonymity(k=5)
"""

from __future__ import annotations

from pdanon._errors import InvalidInputError

__all__ = ["request"]


def request(*, k: int = 1, l=None, variant: str | None = None, c: float | None = None,
            t: float | None = None, distance: str | None = None, sensitive_hierarchies=None,
            max_risk=None, average_risk=None, always_k: bool = True,
            missing_sensitive: str | None = None):
    """k-anonymity, with l-diversity / t-closeness when ``l`` / ``t`` are given and ARX's risk
    thresholds when asked; one part alone unless ``always_k`` (``l_diversify`` and
    ``t_close`` always report their k part). ``variant=`` / ``c=`` without ``l`` and
    ``distance=`` without ``t`` are refused (they would do nothing), and so is
    ``missing_sensitive=`` (how l and t read a missing sensitive cell: ``"unknown"``, the
    default, or ``"value"``) without either."""
    from pdanon import models

    if l is None and (variant is not None or c is not None):
        raise InvalidInputError("variant= and c= are options of l-diversity: pass l=... too "
                                "(e.g. l=2, variant='entropy')")
    if t is None and distance is not None:
        raise InvalidInputError("distance= is an option of t-closeness: pass t=... too (e.g. "
                                "t=0.2, distance='emd')")
    if t is not None and not isinstance(t, bool) and isinstance(t, (int, float)) and t == 0:
        raise InvalidInputError(
            "t = 0 asks every class to repeat the whole table's distribution exactly, "
            "which almost no table allows: pass a bound in (0, 1], such as 0.2 (or 1e-9 "
            "if an exact match is really meant)")
    if l is None and t is None and missing_sensitive is not None:
        raise InvalidInputError("missing_sensitive= says how l-diversity and t-closeness read a "
                                "missing sensitive cell: pass l=... or t=... too")
    rule = missing_sensitive or "unknown"
    parts = [models.KAnonymity(k)]
    if l is not None:
        parts.append(models.LDiversity(l, variant=variant or "distinct", c=c,
                                       missing_sensitive=rule))
    if t is not None:
        parts.append(models.TCloseness(t, distance=distance or "emd",
                                       hierarchies=sensitive_hierarchies or None,
                                       missing_sensitive=rule))
    model = parts[0] if len(parts) == 1 and not always_k else models.AllOf(*parts)
    extra = [models.HighestRisk(max_risk)] if max_risk is not None else []
    if average_risk is not None:
        extra.append(models.AverageRisk(average_risk))
    return models.AllOf(model, *extra) if extra else model
