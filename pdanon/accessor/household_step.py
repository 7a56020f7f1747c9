"""The household step every face that publishes rows shares (``household=``,
``household_ids=``): one code path, :func:`publish`, around the face's own work.

The face runs on the frame without the household column (so its model is verified on the
people's rows, as without one), then :func:`pdanon.screening.households.protect` publishes
the column renumbered with every household's signature shared by at least k households
(k of the face's model, at least 2), or not at all (``household_ids="drop"``), and records
``info["household"]``; ``check()`` then measures ``household_k``. A frame whose earlier
pdanon step recorded a household column passes it to the next face by itself.

Which faces take it (docs/security.md, "Rows that belong together"):

* the anonymizers (``anonymize``, ``k_anonymize``, ``l_diversify``, ``t_close``), with the
  model's k;
* ``generalize`` (k 2: it verifies no model), ``apply_recoding`` (the k of the model it
  verified), ``microaggregate`` and ``local_suppression`` (their ``k``), and the other
  perturbations of :mod:`pdanon.accessor.perturb` (k 2): their rows are the input's, so a
  household's signature of published cells is what an attacker matches;
* ``dp_anonymize`` only with ``household_ids="drop"``: a differentially private release is a
  sample of rows, so there is no household of the input to verify in it (and its guarantee
  is per row: a household of s members is protected at s times epsilon);
* ``apply_recoding(..., invariance=m)`` only with ``household_ids="drop"``: an m-invariant
  release publishes only the quasi-identifiers and the sensitive column (and counterfeit
  rows, which belong to no household).

Example
-------
>>> import pandas as pd, pdanon
>>> from pdanon.hierarchy import intervals
>>> df = pd.DataFrame({"hh": [1, 1, 2, 2, 3], "age": [31, 5, 33, 7, 62]})
>>> out = df.anon.generalize({"age": 1}, hierarchies={"age": intervals([10])},
...                          quasi_identifiers=["age"], household="hh")
>>> info = out.anon.info["household"]
>>> info["linked_households"], info["unlinked_households"], info["household_k"]
(2, 1, 2)
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from pdanon.screening import households

__all__ = ["k_of_models", "publish"]


def k_of_models(info: dict) -> int:
    """The k a household signature must be shared by for a release whose ``info["models"]``
    records what it verified (:func:`pdanon.screening.households.model_k`; 2 without one).

    Example
    -------
    >>> k_of_models({"models": [{"model": "KAnonymity", "params": {"k": 5}}]})
    5
    >>> k_of_models({})
    2
    """
    return households.model_k(
        (rec.get("model"), (rec.get("params") or {}).get("k", 1))
        for rec in info.get("models") or []
        if rec.get("model") in ("KAnonymity", "AlphaKAnonymity", "HighestRisk"))


def publish(accessor, make, *, household, household_ids: str, named: dict,
            row_order: str = "random", finish=None) -> pd.DataFrame:
    """Run a face with the household step. ``make(acc)`` does the face's work on the
    accessor ``acc`` and returns ``(out, roles, info, k)``: the release in ``acc``'s row
    order, its roles, its info and the k its households must meet (None: 2). ``named``:
    the face's keywords that name columns (roles, ``columns=``, ``within=``): the
    household column may be in none of them. Without a household column (given or
    recorded by the input) this is the face as it was. ``finish(out, roles, info,
    row_order=)``: what returns the release (default ``accessor._result``)."""
    finish = finish or accessor._result
    df = accessor._df
    households.check_options(df, household, household_ids)
    if household is None:
        household = households.recorded_column(df)
    if household is None:
        out, r, info, _ = make(accessor)
        return finish(out, r.restricted_to(out.columns), info, row_order=row_order)
    households.refuse_roles(household, named)
    inner = type(accessor)(df.drop(columns=[household]))
    out, r, info, k = make(inner)
    from pdanon.dp.mechanism import RandomSource

    out = households.protect(df, out, r.qi, info, column=household,
                             k=households.model_k(()) if k is None else k,
                             ids=household_ids, permutation=RandomSource().permutation)
    r = r.restricted_to(out.columns)
    if household in out.columns:
        r = dataclasses.replace(r, insensitive=(*r.insensitive, household))
    return finish(out, r, info, row_order=row_order)
