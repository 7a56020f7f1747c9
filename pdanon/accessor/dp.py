"""``df.anon.dp_anonymize``: an (ε, δ)-differentially private release (SafePub), a mixin of
:class:`pdanon.accessor.frame.AnonAccessor`. The algorithm is :mod:`pdanon.partition.safepub`,
run by the same engine as every anonymizer; docs/differential_privacy.md.

Example
-------
>>> import pandas as pd, pdanon
>>> from pdanon.hierarchy import intervals
>>> df = pd.DataFrame({"age": list(range(20, 70)) * 400, "sex": ["F", "M"] * 10_000})
>>> out = df.anon.dp_anonymize(1.0, 1e-5, hierarchies={"age": intervals([10, 50])},
...                            steps=3, seed=3, quasi_identifiers=["age", "sex"])
>>> dp = out.anon.info["dp"]
>>> dp["k"], round(dp["sampling_probability"], 4), dp["steps"], dp["epsilon_per_step"]
(58, 0.5934, 3, 0.016666666666666666)
"""

from __future__ import annotations

import importlib

import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.keywords import checked

_roles = importlib.import_module("pdanon.roles")


def dp_roles(df: pd.DataFrame, r):
    """The roles of a differentially private release: identifiers are dropped, every other
    column is a quasi-identifier — differential privacy protects every attribute, so none is
    published outside the classes (a sensitive or insensitive column is generalized, or kept,
    by the search like the others)."""
    qi = {}
    for c in df.columns:
        if c in r.identifiers:
            continue
        qi[c] = (r.quasi_identifiers.get(c) or r.sensitive.get(c)
                 or _roles.infer_kind(df[c]))
    return _roles.Roles(identifiers=tuple(r.identifiers), quasi_identifiers=qi)


class DPMethods:
    """Differentially private releases of :class:`pdanon.accessor.frame.AnonAccessor`."""

    _df: pd.DataFrame

    @checked
    def dp_anonymize(self, epsilon: float, delta: float, *, hierarchies=None,
                     quality: str = "loss", target=None, steps: int | None = None,
                     search: str | None = None, search_share: float = 0.1,
                     seed=None, progress=None, identifiers=None,
                     quasi_identifiers=None, household=None,
                     household_ids: str = "renumber") -> pd.DataFrame:
        """An (ε, δ)-differentially private release by SafePub (Bild, Kuhn & Prasser 2018):
        a random sample of the rows, generalized by hierarchy levels the exponential
        mechanism chose, every class under k sampled rows left out.

        Parameters
        ----------
        epsilon : float > 0
            The privacy budget of this release (every release of the same people spends its
            own: budgets add up).
        delta : float in (0, 1)
            Well below 1 / rows (1e-5, 1e-6).
        hierarchies : {column: hierarchy}
            One per column with more than five distinct values (as for
            ``algorithm="optimal"``), fixed before looking at the data.
        quality : {"loss", "precision", "discernibility", "group_size", "classification"}
            The score the search maximizes (:mod:`pdanon.dp.scores`).
        target : column name or list of them
            For ``quality="classification"``: the column(s) a classifier trained on the
            release will predict from the others.
        search : {"all", "walk"}, optional
            How the generalization is chosen. ``"all"`` (the default when ``steps`` is not
            given and the lattice has at most 50,000 nodes): every node is scored on the
            sample and one exponential-mechanism draw with the whole of ε_search picks
            among all of them. ``"walk"``: SafePub's walk from the top (the default for
            larger lattices).
        steps : int
            Draws of the walk (default 100; giving it chooses the walk); half of ε_search is
            split evenly over them, the other half is spent on one more draw that chooses
            the output among the nodes visited.
        search_share : float in (0, 1)
            The share of ε spent on the search (ε_search); the rest fixes β and k.
        seed : int or numpy Generator, optional
            For tests only: a seeded release can be replayed by whoever knows the seed.
            Without one every draw comes from the operating system's CSPRNG. Never recorded.
        identifiers, quasi_identifiers
            Columns to drop, and the columns to publish (default: every other column). There
            are no sensitive or insensitive columns: differential privacy covers every
            published attribute. A household column left without a role is refused, as by
            every face.
        household, household_ids
            A column whose rows belong together (a household id) is taken only with
            ``household_ids="drop"``: it is left out and ``info["household"]`` records it.
            ``"renumber"`` is refused: the release is a sample of rows, so no household of
            the input can be verified in it, and differential privacy protects each row (a
            household of s members is protected at s times epsilon, group privacy).

        The release holds only the published rows, in a random order with a new index.
        ``info["dp"]`` holds the accounting (ε, δ, β, k, the steps and the ε of each
        draw, ε spent); the
        input's row counts and the sample's size are publisher-only.
        """
        from pdanon import engine
        from pdanon.accessor import household_step
        from pdanon.models import EDDifferentialPrivacy

        from pdanon.screening.households import recorded_column

        refuse_dp_of_dp(self.info)
        grouped = household if household is not None else recorded_column(self._df)
        if grouped is not None and household_ids != "drop":
            raise InvalidInputError(
                f"household={grouped!r}: a differentially private release is a random "
                f"sample of rows, so no household of the input can be verified in it (and "
                f"its guarantee is per row: a household of s members is protected at s times "
                f"epsilon). Pass household_ids='drop' to leave the household id out, or drop "
                f"the column (identifiers=[{grouped!r}])")
        model = EDDifferentialPrivacy(epsilon, delta, search_share=search_share)
        keywords = {key: v for key, v in (("identifiers", identifiers),
                                          ("quasi_identifiers", quasi_identifiers))
                    if v is not None}
        options = {"quality": quality}
        if steps is not None:
            options["steps"] = steps
        if search is not None:
            options["search"] = search
        if target is not None:
            options["target"] = target
        if hierarchies is not None:
            options["hierarchies"] = hierarchies
        if seed is not None:
            options["seed"] = seed

        def make(acc):
            r = dp_release_roles(acc._df, keywords)
            out, info = engine.anonymize(acc._df, r, model=model, method="generalize",
                                         algorithm="safepub", progress=progress, **options)
            return out, r.restricted_to(out.columns), info, None

        return household_step.publish(
            self, make, household=household, household_ids=household_ids,
            named={**keywords, "hierarchies": list(hierarchies or {}),
                   **({"target": target} if target is not None else {})})


def refuse_dp_of_dp(info: dict) -> None:
    """A DP release given to a DP anonymizer again: refused (it would not be a release of
    the input, and its cells are already generalized)."""
    if "dp" in info:
        raise InvalidInputError(
            "this frame is already a differentially private release; a second dp_anonymize "
            "of it would not be a release of the input. Publish the original frame again (it "
            "spends epsilon again), or post-process this release (that keeps its guarantee)")


def dp_release_roles(df: pd.DataFrame, keywords: dict):
    """The roles of ``df.anon.dp_anonymize(**keywords)``. With ``quasi_identifiers`` given,
    every other column is dropped: nothing is inferred, examined or announced. Without, every
    column not an identifier is published through its hierarchy: the columns nobody named are
    examined (an identifier-like one is refused) and one :class:`pdanon.RoleWarning` lists
    them as what they become, quasi-identifiers (the general warning would call a column
    whose name sounds sensitive "sensitive", a role a DP release does not have)."""
    import warnings

    from pdanon._errors import RoleWarning, user_stacklevel

    if keywords.get("quasi_identifiers") is not None:
        r = _roles.resolve_roles(df, screen="ignore", **keywords)
        dropped = [c for c in df.columns
                   if c not in r.identifiers and c not in r.quasi_identifiers]
        return _roles.Roles(identifiers=tuple(r.identifiers) + tuple(dropped),
                            quasi_identifiers=dict(r.quasi_identifiers))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoleWarning)
        r = _roles.resolve_roles(df, **keywords)
    out = dp_roles(df, r)
    chosen = [c for c in out.quasi_identifiers if c in (r.inferred or {})]
    if chosen:
        named = ", ".join(f"{c!r} ({out.quasi_identifiers[c]})" for c in chosen)
        warnings.warn(
            f"pdanon chose roles for the columns you did not name: quasi-identifiers {named}, "
            f"published through their hierarchies like every column a DP release keeps. Name "
            f"the columns to publish with quasi_identifiers= (the others are dropped) and the "
            f"ones to drop with identifiers=", RoleWarning, stacklevel=user_stacklevel())
    return out


def refuse_roles_beside_dp(model, roles: dict) -> None:
    """``df.anon.anonymize(EDDifferentialPrivacy(...))`` with sensitive or insensitive
    columns named: refused (nothing is published outside the classes under DP)."""
    named = [key for key in ("sensitive", "insensitive") if roles.get(key)]
    if named and model.requirements().mechanism:
        raise InvalidInputError(
            f"{model!r} covers every published column: there are no {' or '.join(named)} "
            f"columns published unchanged. Name the columns to drop as identifiers=, give "
            f"the others hierarchies (df.anon.dp_anonymize(epsilon, delta, hierarchies=...))")
