"""The anonymizers of ``df.anon``: ``anonymize``, ``k_anonymize``, ``l_diversify``,
``t_close``, ``generalize`` and ``explain`` (a mixin of :class:`pdanon.accessor.frame.AnonAccessor`).

Every anonymizer takes the same keywords, each in one place:

* the **model**: ``k=``, ``l=`` (with ``variant=``, ``c=``), ``t=`` (with ``distance=``),
  ``max_risk=``, ``average_risk=`` — ``k_anonymize``, ``l_diversify`` and ``t_close`` each
  accept the others' parameters, so ``t_close(0.2, k=3, l=2)`` is
  ``AllOf(KAnonymity(3), LDiversity(2), TCloseness(0.2))``;
* the **run**: ``method=``, ``algorithm=``, ``max_suppressed_rows=``, ``hierarchies=``,
  ``levels=``, ``labels=``, ``objective=``, ``seed=``, ``progress=`` (an algorithm that does
  not take one refuses it by name); ``options={...}`` holds only an algorithm's own tuning
  knobs (``unordered_split``, ``order``, ...);
* the **roles**: ``identifiers=``, ``quasi_identifiers=``, ``sensitive=``, ``insensitive=``.

A misspelled keyword gets a "did you mean" (:mod:`pdanon.keywords`). The models an earlier
step verified (recorded in the input's ``info["models"]``) are verified again with the new
one (:func:`pdanon.models.record.rebuild`), so chaining never loses them.

Example
-------
>>> import pandas as pd, pdanon
>>> df = pd.DataFrame({"age": [30, 31, 40, 42, 50, 51], "d": ["a", "b", "a", "b", "a", "b"]})
>>> out = df.anon.t_close(0.5, k=2, l=2, sensitive=["d"], algorithm="mondrian")
>>> out.anon.info["model"]
'k-anonymity + l-diversity + t-closeness'
"""

from __future__ import annotations

import importlib

import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.keywords import ROLE_KEYWORDS, checked

_roles = importlib.import_module("pdanon.roles")

#: the keywords that make the model (k_anonymize, l_diversify, t_close take them all)
MODEL_KEYWORDS = ("k", "l", "variant", "c", "t", "distance", "max_risk", "average_risk",
                  "missing_sensitive")
#: keywords of the anonymizers that are not an algorithm's own tuning knobs: refused inside
#: ``options={}`` (each has its one place)
FIRST_CLASS = ("hierarchies", "levels", "labels", "max_suppressed_rows", "seed", "progress",
               "objective", "method", "algorithm")


class AnonymizeMethods:
    """Anonymizers of :class:`pdanon.accessor.frame.AnonAccessor` (see the module docstring)."""

    _df: pd.DataFrame

    # ------------------------------------------------------------------ the four faces
    @checked
    def anonymize(self, model, *, method: str = "generalize", algorithm: str = "auto",
                  max_suppressed_rows=None, hierarchies=None, levels=None,
                  labels: bool = False, objective: str | None = None, seed=None,
                  progress=None, options: dict | None = None, row_order: str = "random",
                  allow_channels=None, household=None,
                  household_ids: str = "renumber", evaluate=None,
                  control: pd.DataFrame | None = None, **roles) -> pd.DataFrame:
        """Anonymize for any privacy model: a :class:`pdanon.models.PrivacyModel`, an
        :class:`~pdanon.models.AllOf` of several, or a model of your own (subclass
        ``PrivacyModel`` and implement ``classes_ok``; see docs/architecture.md).
        :meth:`k_anonymize`, :meth:`l_diversify` and :meth:`t_close` are this method with
        the model built for you; the other parameters are theirs.

        Example
        -------
        >>> import pandas as pd, pdanon
        >>> from pdanon.models import AllOf, KAnonymity, LDiversity
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42], "d": ["a", "b", "a", "c"]})
        >>> out = df.anon.anonymize(AllOf(KAnonymity(2), LDiversity(2)), sensitive=["d"],
        ...                         algorithm="mondrian")
        >>> sorted(out["age"].astype(str)), out.anon.info["model"]   # rows in a random order
        (['[30, 40]', '[30, 40]', '[40, 50]', '[40, 50]'], 'k-anonymity + l-diversity')
        """
        return self._from_keywords(locals())

    @checked
    def k_anonymize(self, k: int, *, l=None, variant: str | None = None,
                    c: float | None = None, t: float | None = None,
                    distance: str | None = None, max_risk=None, average_risk=None,
                    missing_sensitive: str | None = None,
                    method: str = "generalize", algorithm: str = "auto",
                    max_suppressed_rows=None, hierarchies=None, levels=None,
                    labels: bool = False, objective: str | None = None, seed=None,
                    progress=None, options: dict | None = None, row_order: str = "random",
                    allow_channels=None, household=None, household_ids: str = "renumber",
                    evaluate=None, control: pd.DataFrame | None = None,
                    **roles) -> pd.DataFrame:
        """Make the frame k-anonymous: every combination of quasi-identifier values is shared by
        at least ``k`` rows (and, with ``l=`` / ``t=``, l-diverse / t-close too).

        Parameters
        ----------
        k : int
            1 <= k <= number of rows.
        l, variant, c
            Also l-diversity (see :meth:`l_diversify`): ``l`` with ``variant`` (``"distinct"``,
            default; ``"entropy"``; ``"recursive"`` with ``c``).
        t, distance
            Also t-closeness (see :meth:`t_close`): ``t`` in (0, 1] with ``distance``
            (``"emd"``, default).
        missing_sensitive : {"unknown", "value"}, optional
            How l-diversity and t-closeness read a missing sensitive cell: ``"unknown"``
            (default) - no value: a class of 5 x hiv and 5 blanks has l = 1, and a class's
            known values are compared with the table's known values; ``"value"`` - one more
            value (the rule before 2026-12). Recorded in ``info["models"]``; see docs/risk.md.
        max_risk : float in (0, 1], optional
            ARX's highest-risk threshold: every row's prosecutor risk 1 / class size is at most
            ``max_risk`` (:class:`pdanon.models.HighestRisk`: classes of at least
            ceil(1 / max_risk) rows), with every algorithm.
        average_risk : float in (0, 1], optional
            ARX's average-risk threshold: classes / published rows at most ``average_risk``
            (:class:`pdanon.models.AverageRisk`, a condition on the whole table: only
            ``algorithm="optimal"`` searches for it; the others refuse it). See docs/risk.md.
        method : {"generalize", "suppress", "aggregate"}
            How a group's quasi-identifier cells are recoded: ranges/sets
            (generalization dtype), NaN where the group is not constant, or the group's
            mean / median / mode.
        algorithm : {"auto", "mondrian", "nearest", "datafly", "equal_groups", "group_join", \
"exact", "optimal"}
            ``"auto"`` (default): ``"optimal"`` with ``hierarchies=``, else ``"nearest"``
            below ``pdanon.engine.AUTO_MONDRIAN_ROWS`` (5,000) rows, ``"mondrian"`` from
            there on (``info["algorithm"]`` says which). ``"nearest"``: the reference's
            TimeOptimal grouping. ``"mondrian"``: LeFevre et al.'s multidimensional median
            splits, O(n log n). ``"datafly"``: Sweeney's Datafly (merge the rarest values of
            the column with most distinct values, then suppress within
            ``max_suppressed_rows``). See docs/algorithms.md.
        max_suppressed_rows : int or float, optional
            The suppression budget of ``datafly`` and ``optimal``: a row count (int >= 0), or
            a fraction of the rows strictly between 0 and 1; default k - 1 (datafly) and 0
            (optimal). The suppressed rows are one class, which meets the model too (so at
            least k rows or none; docs/guide.md). The other algorithms never suppress rows.
        hierarchies, levels, labels, objective
            ``algorithm="optimal"``: the optimal full-domain generalization over the lattice of
            hierarchy levels. ``hierarchies={column: hierarchy}`` (:mod:`pdanon.hierarchy`;
            a sensitive column's hierarchy drives ``distance="hierarchical"``), ``levels=
            {column: level or (min, max)}`` restricts the lattice, ``labels=True`` publishes
            hierarchy labels (``20-29``) instead of ranges and sets, ``objective`` one of
            ``"loss"`` (default), ``"precision"``, ``"discernibility"``, ``"entropy"``.
            ``out.anon.info["levels"]`` gives the chosen levels. See docs/hierarchies.md.
        seed : int or numpy Generator, optional
            For the randomized algorithms (``"group_join"`` draws the group to merge next); the
            others are deterministic and ignore it. Unseeded calls use the fixed seed 0, so the
            same call on the same frame gives the same table every run.
        progress : bool, optional
            A progress bar on standard error (or the notebook), drawn by the algorithm's loop
            (every algorithm has one): ``None`` (default) for long runs in a terminal or
            notebook, ``True`` always, ``False`` never. See :mod:`pdanon.progress`.
        options : dict, optional
            An algorithm's own tuning knobs only, e.g. ``{"unordered_split": "frequency"}``
            for Mondrian or ``{"unordered_order": "appearance"}`` for equal_groups.
            ``{"exact_bounds": True}`` keeps the ranges' bounds that the recodings
            (mondrian, nearest, group_join, datafly, equal_groups, optimal's ``*`` without
            a hierarchy) otherwise widen when fewer than k rows hold them (with
            :class:`pdanon.ExactBoundsWarning`; see :mod:`pdanon.recode.bounds`).
        allow_channels : list of str, optional
            Columns published unchanged that you have judged safe as channels. Before the
            release is returned, every column published unchanged (sensitive, insensitive,
            the index) is tested: one whose value determines a quasi-identifier the release
            generalized or suppressed (stratum weights pin the ZIP code) is refused with
            :class:`pdanon.ChannelError`, naming the fixes; a column named here is published
            anyway and recorded in ``info["channels_allowed"]``. See :mod:`pdanon.screening.channels`
            and docs/security.md.
        household : column name, optional
            A column whose rows belong together (a household, family, case or cluster id;
            :mod:`pdanon.screening.households`). The anonymizer runs on the other columns; the column
            is then published renumbered (fresh random ids) and verified at household level:
            every household's signature (its size and the multiset of its members' published
            quasi-identifier combinations) is shared by at least k households (k of the
            model, at least 2); a household under that is unlinked (its rows stay, their
            household id missing). ``info["household"]`` records the counts; ``check()``
            measures ``household_k``. A release that records a household column passes it to
            the next step by itself.
        household_ids : {"renumber", "drop"}
            ``"renumber"`` (default) as above; ``"drop"`` publishes no household id at all.
        evaluate : True or dict, optional
            Attack the release as it is made (:mod:`pdanon.accessor.evaluate`,
            docs/attacks.md): **hold out** ``share`` of the rows (default 0.5, stratified on
            the sensitive columns of categories; ``{"share": 0.5, "stratify": [...] or None,
            "n_attacks": 2000, "seed": None}``) **before** anonymizing, make the release from
            the other rows only — **the held-out rows are not published** — and run
            singling out, linkability and inference against them as the control set. The
            figures stay with the publisher (``info["publisher_only"]``, never in a file):
            ``out.anon.check()``, ``report()`` and ``publish()`` show them, and
            ``Policy(max_singling_out=, max_linkability=, max_inference=)`` is judged by
            them. Refused, saying why, when a part or a stratum is too small to split (pass
            ``control=``) or with ``household=`` (a split would cut households).
        control : DataFrame, optional
            Held-out rows you split off yourself (:func:`pdanon.attacks.holdout`): every
            row of the frame is anonymized and the release is attacked with them
            (``evaluate={"n_attacks": ..., "seed": ...}`` tunes the attacks).
        **roles
            ``identifiers``, ``quasi_identifiers``, ``sensitive``, ``insensitive``. A column
            given none is examined first: one that looks like it identifies people is refused
            (:class:`pdanon.RoleError`); see :func:`pdanon.roles.resolve_roles`.

        Returns a new frame: identifiers dropped, sensitive and insensitive cells unchanged,
        same index and row order, and no column's dtype listing a category that none of its
        cells needs (:func:`pdanon.recode.published_categories`); ``out.anon.info`` tells what
        was done (algorithm, changed cells, ``suppressed_rows`` and ``suppressed_cells``,
        groups, the verified ``models``, and in ``achieved`` the k, l or t reached by the
        published classes).

        Example
        -------
        >>> import pandas as pd, pdanon
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42]})
        >>> out = df.anon.k_anonymize(2, method="generalize", quasi_identifiers=["age"])
        >>> sorted(out["age"].astype(str))   # the rows come in a random order
        ['[30, 40]', '[30, 40]', '[40, 50]', '[40, 50]']

        Every age here is one person's, so no range ends on one: the bounds move out to the
        grid of tens (:mod:`pdanon.bounds`; ``options={"exact_bounds": True}`` keeps
        ``[30, 31]`` and ``[40, 42]``, with an :class:`~pdanon.ExactBoundsWarning`).

        Attacked as it is made: half the rows held out (not published), the three risks kept
        for the verdict.

        >>> big = pd.DataFrame({"age": range(20, 80), "d": ["a", "b", "c"] * 20})
        >>> out = big.anon.k_anonymize(3, quasi_identifiers=["age"], sensitive=["d"],
        ...                            evaluate={"seed": 0})
        >>> len(out), sorted(out.anon.check().attacks)
        (30, ['inference', 'singling_out'])
        """
        return self._from_keywords(locals(), always_k=False)

    @checked
    def l_diversify(self, l, *, k: int = 1, variant: str | None = None,
                    c: float | None = None, t: float | None = None,
                    distance: str | None = None, max_risk=None, average_risk=None,
                    missing_sensitive: str | None = None,
                    method: str = "generalize", algorithm: str = "auto",
                    max_suppressed_rows=None, hierarchies=None, levels=None,
                    labels: bool = False, objective: str | None = None, seed=None,
                    progress=None, options: dict | None = None, row_order: str = "random",
                    allow_channels=None, household=None, household_ids: str = "renumber",
                    evaluate=None, control: pd.DataFrame | None = None,
                    **roles) -> pd.DataFrame:
        """Make every equivalence class l-diverse in every sensitive column (and k-anonymous).

        Parameters
        ----------
        l : int (float for ``variant="entropy"``)
            ``variant="distinct"`` (default): at least l distinct sensitive values per class;
            ``"entropy"``: class entropy >= log(l); ``"recursive"``: recursive
            (c, l)-diversity, r1 < c·(r_l + ... + r_m) (needs ``c``).
        k : int
            Also require k-anonymity (default 1: none beyond l-diversity).
        t, distance
            Also t-closeness (see :meth:`t_close`).
        max_risk, average_risk, missing_sensitive, method, algorithm, max_suppressed_rows,
        hierarchies, levels, labels, objective, seed, progress, options, household,
        household_ids, evaluate, control
            As in :meth:`k_anonymize` (``missing_sensitive="unknown"``, the default: a
            missing sensitive cell is no value; ``evaluate=True``: half the rows held out,
            not published, and the release attacked with them). ``"nearest"`` supports the distinct variant only (each
            group grows until it has k rows and l distinct values); ``"auto"`` picks Mondrian
            for the other variants.
        **roles
            Role keywords; at least one sensitive column is needed.

        Raises :class:`~pdanon.InfeasibleError` before any work when the whole table is not
        l-diverse (e.g. fewer than l distinct sensitive values).

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42], "d": ["flu", "hiv", "flu", "cold"]})
        >>> out = df.anon.l_diversify(2, quasi_identifiers=["age"], sensitive=["d"])
        >>> out.anon.l_diversity()
        2
        """
        return self._from_keywords(locals())

    @checked
    def t_close(self, t: float, *, k: int = 1, l=None, variant: str | None = None,
                c: float | None = None, distance: str | None = None, max_risk=None,
                average_risk=None, missing_sensitive: str | None = None,
                method: str = "generalize", algorithm: str = "auto",
                max_suppressed_rows=None, hierarchies=None, levels=None,
                labels: bool = False, objective: str | None = None, seed=None,
                progress=None, options: dict | None = None, row_order: str = "random",
                allow_channels=None, household=None, household_ids: str = "renumber",
                evaluate=None, control: pd.DataFrame | None = None, **roles) -> pd.DataFrame:
        """Make every equivalence class t-close: in every sensitive column the distance between
        the class's distribution and the whole table's is at most ``t`` (and k-anonymous).

        Parameters
        ----------
        t : float in (0, 1]
            A fraction (every distance is at most 1): pass 0.2, not 20.
        k : int
            Also require k-anonymity (default 1).
        l, variant, c
            Also l-diversity (see :meth:`l_diversify`).
        distance : str
            ``"emd"`` (default; Li et al. 2007: total variation for unordered, ordered-distance
            EMD for ordered/real), ``"hierarchical"`` (with a sensitive column's hierarchy in
            ``hierarchies``), ``"jensen_shannon"``, ``"wasserstein"``, ``"reference"``
            (cp2025's ``find_t_close``). See :func:`pdanon.models.t_closeness`.
        hierarchies : {column: hierarchy}, optional
            Hierarchies of sensitive columns drive ``distance="hierarchical"``; those of
            quasi-identifiers drive ``algorithm="optimal"`` (as in :meth:`k_anonymize`).
        The other parameters
            Those of :meth:`k_anonymize` (``missing_sensitive="unknown"``, the default:
            known values against the table's known values; ``evaluate=`` / ``control=``: the
            release attacked as it is made, the held-out rows not published). With
            ``algorithm="auto"`` Mondrian runs (``"nearest"`` cannot express t-closeness).
        **roles
            Role keywords; at least one sensitive column is needed.

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42], "d": ["a", "b", "a", "b"]})
        >>> out = df.anon.t_close(0.2, quasi_identifiers=["age"], sensitive=["d"])
        >>> out.anon.t_closeness() <= 0.2
        True
        """
        return self._from_keywords(locals())

    def plan(self, model=None, **keywords):
        """A dry run: what ``anonymize(model, **keywords)`` (or, without a model,
        ``k_anonymize(k, **keywords)``) would do, publishing nothing — the roles (given and
        inferred, with their kinds), what would be refused and why, the algorithm
        ``"auto"`` resolves to, the hierarchies and levels searched, and the expected numbers
        of classes and suppressed rows. It runs the anonymizer itself in memory and discards
        the release, so the figures are the real call's (:mod:`pdanon.accessor.plan`).

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42], "zip": ["a", "a", "b", "b"]})
        >>> p = df.anon.plan(k=2, quasi_identifiers=["age", "zip"])
        >>> p.ok, p.algorithm, p.expected_classes
        (True, 'nearest', 2)
        """
        from pdanon.accessor.plan import plan

        return plan(self._df, model, keywords)

    # ------------------------------------------------------------------ shared path
    def _from_keywords(self, params: dict, always_k: bool = True) -> pd.DataFrame:
        """Run a face with its keywords (``locals()`` of the face): the model asked for (or
        given, for :meth:`anonymize`), then :meth:`_anonymize` with the run keywords."""
        p = {key: v for key, v in params.items() if key not in ("self", "__class__")}
        roles = p.pop("roles")
        model = p.pop("model", None)
        asked = {key: p.pop(key) for key in MODEL_KEYWORDS if key in p}
        if "model" in params:
            from pdanon.models import PrivacyModel

            if not isinstance(model, PrivacyModel):
                raise InvalidInputError(
                    f"model must be a pdanon.models.PrivacyModel (e.g. KAnonymity(5)), got "
                    f"{type(model).__name__}")
        else:
            model = self._request(**asked, hierarchies=p["hierarchies"], roles=roles,
                                  always_k=always_k)
        return self._anonymize(model, roles, **p)

    def _request(self, *, hierarchies, roles: dict, always_k: bool = True, **asked):
        """The model the keywords ask for (:func:`pdanon.models.request.request`; a sensitive
        column's hierarchy goes to t-closeness)."""
        from pdanon.models.request import request

        sens_h = None
        if asked.get("t") is not None and hierarchies:
            quiet = _roles.resolve_roles(self._df, screen="ignore", **_pick_roles(roles))
            sens_h = {col: h for col, h in hierarchies.items() if col in quiet.sensitive}
        return request(**asked, sensitive_hierarchies=sens_h, always_k=always_k)

    def _anonymize(self, model, roles: dict, *, row_order="random", household=None,
                   household_ids="renumber", evaluate=None, control=None, **run):
        """:meth:`_release` with the household step (:func:`pdanon.accessor.household_step.publish`:
        a household column given or recorded by the input is published renumbered and
        verified at household level with the model's k), then :meth:`_result`; with
        ``evaluate=`` / ``control=``, on the rows not held out, then the attacks
        (:mod:`pdanon.accessor.evaluate`)."""
        from pdanon.accessor import household_step
        from pdanon.screening import households

        households.check_options(self._df, household, household_ids)
        if evaluate is not None or control is not None:
            from pdanon.accessor import evaluate as _evaluate

            opts = _evaluate.options(evaluate, control)
            if opts is not None:
                if "control" not in opts:
                    _evaluate.refuse_households(self._df, household)
                part, held = _evaluate.split(self._df, opts, _pick_roles(roles))
                out = type(self)(part)._anonymize(model, roles, row_order=row_order,
                                                  household=household,
                                                  household_ids=household_ids, **run)
                return _evaluate.attach(out, self._df, part, held, opts)

        def make(acc):
            out, r, info, verified = acc._release(model, roles, **run)
            k = households.model_k((type(p).__name__, getattr(p, "k", 1))
                                   for p in verified.parts()
                                   if type(p).__name__ in ("KAnonymity", "AlphaKAnonymity",
                                                           "HighestRisk"))
            return out, r, info, k

        return household_step.publish(self, make, household=household,
                                      household_ids=household_ids, named=_pick_roles(roles),
                                      row_order=row_order)

    def _release(self, model, roles: dict, *, method, algorithm, max_suppressed_rows,
                 hierarchies, levels, labels, objective, seed, progress, options,
                 allow_channels=None):
        """(release in the input's order, roles, info, the model verified)."""
        from pdanon import engine

        from pdanon.accessor.dp import dp_roles, refuse_roles_beside_dp

        refuse_roles_beside_dp(model, roles)
        r = self.roles(**_pick_roles(roles))
        _no_extra(roles)
        model = self._with_earlier_models(model, r)
        if model.requirements().mechanism:  # differential privacy: every column is a QI
            r = dp_roles(self._df, r)
        if model.requirements().sensitive and not r.sensitive:
            raise InvalidInputError(
                f"{model.name} needs at least one sensitive column: pass sensitive=[...] "
                f"(or {{column: kind}}), or give the frame roles with df.anon.with_schema(...)")
        extra = dict(options or {})
        misplaced = [key for key in extra if key in FIRST_CLASS]
        if misplaced:
            key = misplaced[0]
            raise InvalidInputError(
                f"{key!r} is a keyword of the anonymizers, not an algorithm option: pass "
                f"{key}={extra[key]!r}, not options={{{key!r}: ...}}")
        sensitive = set(r.sensitive)
        from pdanon.partition.lattice import hierarchy_map

        qi_h = {col: h for col, h in hierarchy_map(hierarchies).items() if col not in sensitive}
        for key, value in (("max_suppressed_rows", max_suppressed_rows), ("hierarchies", qi_h),
                           ("levels", levels), ("objective", objective), ("seed", seed)):
            if value is not None and value != {}:
                extra[key] = value
        if labels:
            extra["labels"] = True
        out, info = engine.anonymize(self._df, r, model=model, method=method,
                                     algorithm=algorithm, progress=progress,
                                     allow_channels=allow_channels, **extra)
        return out, r, info, model

    def _with_earlier_models(self, model, r):
        """``model`` with the models an earlier pdanon step verified on this frame (recorded in
        its ``info``), so that chaining never loses them; refused, naming the earlier model,
        when they cannot be rebuilt or were verified over other quasi-identifiers."""
        from pdanon.models import AllOf, KAnonymity
        from pdanon.models.record import CannotRebuild, rebuild

        info = self._df.attrs.get(_roles.ATTRS_KEY, {}).get("info") or {}
        earlier, over = None, list(info.get("quasi_identifiers") or [])
        if "dp" in info:
            if model.requirements().mechanism:
                from pdanon.accessor.dp import refuse_dp_of_dp

                refuse_dp_of_dp(info)
            # anything done to a DP release keeps its guarantee (post-processing): the
            # mechanism is not re-run; this step verifies its own model only
            return model
        if info.get("models"):
            try:
                earlier = rebuild(info["models"])
            except CannotRebuild as exc:
                raise InvalidInputError(
                    f"this frame is the output of an earlier pdanon step, and {exc}; to keep "
                    f"what it verified, anonymize the original frame once with every model "
                    f"(e.g. df.anon.anonymize(AllOf(...)))") from None
        elif info.get("operation") in ("microaggregate", "local_suppression") and "k" in info:
            earlier = KAnonymity(int(info["k"]))  # what they guarantee, read as k-anonymity
            over = list(info.get("quasi_identifiers") or info.get("columns") or [])
        if earlier is None:
            return model
        present = [c for c in _roles.as_columns(over, self._df.columns)
                   if c in self._df.columns]
        if set(present) != set(r.qi):
            raise InvalidInputError(
                f"this frame is the output of an earlier step that verified {earlier!r} over "
                f"the quasi-identifiers {present}; this step uses {r.qi}. Chain with the same "
                f"quasi-identifiers, or anonymize the original frame once with every model")
        return _merged(AllOf(earlier, model))

    def explain(self, original: pd.DataFrame, *, model=None) -> pd.DataFrame:
        """Per row of ``original`` (the frame that was anonymized into this one): its published
        class (``class_id``, ``class_size``), the quasi-identifiers ``generalized``,
        ``aggregated`` or ``suppressed``, ``row_suppressed``, and the ``reason`` (``"k"``,
        ``"l"``, ``"t"``: its original combination violated them; ``"global recoding"``,
        ``"grouping"``, ``"suppression"``: it was safe but changed with others; missing:
        unchanged). ``original`` is needed because ``info`` keeps no original value;
        ``model`` defaults to the one ``info`` records (k, l, t; k for the output of
        ``microaggregate`` and ``local_suppression``). The result is for the publisher only
        (an :class:`pdanon.report.explain.Explanation`). See :mod:`pdanon.report.explain`.

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 31, 40, 40]})
        >>> out = df.anon.k_anonymize(2, algorithm="mondrian", quasi_identifiers=["age"])
        >>> out.anon.explain(df)["reason"].tolist()
        ['k', 'k', nan, nan]
        """
        from pdanon.report.explain import explain

        sensitive = _roles.resolve_roles(self._df, screen="ignore").sensitive
        return explain(self._df, original, info=self.info, model=model,
                       sensitive=dict(sensitive))

    # ---- hierarchies
    @checked
    def generalize(self, levels: dict, *, hierarchies: dict, labels: bool = False,
                   row_order: str = "random", allow_channels=None, household=None,
                   household_ids: str = "renumber", **roles) -> pd.DataFrame:
        """Generalize columns to chosen levels of their hierarchies (full-domain recoding by
        rules, e.g. age into 10-year bands and zip codes masked to 3 digits).

        Parameters
        ----------
        levels : {column: level}
            Level 0 keeps a column's cells unchanged; level ``h`` is its hierarchy's top.
        hierarchies : {column: hierarchy}
            :mod:`pdanon.hierarchy` objects (``intervals``, ``masking``, ``tree``,
            ``from_table``, ``dates``, ``read_arx_csv``), nested dicts, mapping tables or ARX
            CSV paths.
        labels : bool
            False (default): cells in the generalization dtype - ranges ``[20, 29]`` for
            real/ordered columns, the set of original values under the node for unordered
            ones. True: the hierarchy's labels (``20-29``, ``100**``) as text.
        household, household_ids
            As in :meth:`k_anonymize`, with k 2 (``generalize`` verifies no model): the
            household column is published renumbered, and a household whose signature of
            published cells fewer than 2 households share is unlinked
            (:mod:`pdanon.accessor.household_step`).
        **roles
            Role keywords; they decide each column's kind (inferred otherwise), and declared
            identifiers are dropped. A column given no role is examined first, as by every
            anonymizer (a household column left without a role is refused).

        Returns a new frame (the input is untouched) with every column kept but the
        identifiers (dropped, as by every transformation), each Categorical or generalized
        column listing only the categories its cells need
        (:func:`pdanon.recode.published_categories`); ``out.anon.info["levels"]`` records the
        levels applied.

        Example
        -------
        >>> from pdanon.hierarchy import intervals, masking
        >>> df = pd.DataFrame({"zip": ["10001", "10002"], "age": [23, 37]})
        >>> out = df.anon.generalize({"zip": 2, "age": 1}, quasi_identifiers=
        ...                          {"zip": "unordered", "age": "real"},
        ...                          hierarchies={"zip": masking(), "age": intervals([10])})
        >>> sorted(out["age"].astype(str)), out["zip"].astype(str).tolist()
        (['[20, 29]', '[30, 39]'], ['{10001, 10002}', '{10001, 10002}'])
        >>> labelled = df.anon.generalize({"zip": 2}, hierarchies={"zip": masking()},
        ...                               labels=True, quasi_identifiers={"zip": "unordered"},
        ...                               insensitive=["age"])
        >>> labelled["zip"].tolist()
        ['100**', '100**']
        """
        from pdanon.accessor import household_step

        _no_extra(roles)

        def make(acc):
            out, r, info = acc._generalized(levels, hierarchies, labels, allow_channels, roles)
            return out, r, info, None

        return household_step.publish(self, make, household=household,
                                      household_ids=household_ids,
                                      named={**_pick_roles(roles), "levels": list(levels or {}),
                                             "hierarchies": list(hierarchies or {})},
                                      row_order=row_order)

    def _generalized(self, levels, hierarchies, labels, allow_channels, roles):
        """:meth:`generalize`'s release in the input's order: (out, roles, info)."""
        from pdanon import hierarchy as _hierarchy

        r = self.roles(**_pick_roles(roles))
        df = self._df
        dropped = [c for c in (levels or {}) if c in set(r.identifiers)]
        if dropped:
            raise InvalidInputError(
                f"column(s) {dropped} are identifiers: they are dropped, never generalized; "
                f"give them another role to generalize them")
        kinds = {}
        for c in (levels or {}):
            if c in df.columns:
                kinds[c] = (r.quasi_identifiers.get(c) or r.sensitive.get(c)
                            or _roles.infer_kind(df[c]))
        out, info = _hierarchy.generalize_frame(df, levels, hierarchies, kinds, labels=labels)
        out = out.drop(columns=list(r.identifiers))  # identifiers are never published
        info = {"algorithm": "generalize", **info, "dropped_identifiers": list(r.identifiers)}
        from pdanon.screening import channels

        qi = list(dict.fromkeys([*(c for c in r.qi if c in out.columns),
                                 *(c for c in (levels or {}) if c in out.columns)]))
        channels.guard(df, out, qi, info, k=2, allow_channels=allow_channels,
                       sensitive=r.sensitive)
        return out, r.restricted_to(out.columns), info

    @property
    def recoding(self):
        """This release's recoding: per quasi-identifier column the cells it published, the
        model it was verified with, its sensitive columns (:class:`pdanon.Recoding`; no
        original value beyond the published cells). Write it with ``.to_json()`` and publish
        the next batch with ``batch.anon.apply_recoding(pdanon.Recoding.from_json(text))``.
        See docs/republication.md.

        Example
        -------
        >>> from pdanon.hierarchy import intervals
        >>> df = pd.DataFrame({"age": [31, 33, 36, 38]})
        >>> out = df.anon.generalize({"age": 1}, hierarchies={"age": intervals([5])})
        >>> out.anon.recoding.columns["age"].cells
        ['[30, 34]', '[35, 39]']
        """
        from pdanon.republication.recoding import Recoding

        return Recoding.from_release(self._df)

    @checked
    def apply_recoding(self, recoding, *, model=None, max_suppressed_rows=None,
                       history=None, keys=None, invariance=None, withhold: bool = False,
                       row_order: str = "random", allow_channels=None, household=None,
                       household_ids: str = "renumber", **roles) -> pd.DataFrame:
        """Publish this new batch with an earlier release's recoding: every value is published
        in the cell that holds it (a value no cell holds is *unseen* and published missing),
        then the model is verified on the batch's classes; the rows of failing classes are
        suppressed within ``max_suppressed_rows`` (default 5 % of the rows), or the call fails
        with the count and the fix. See :mod:`pdanon.republication.recoding` and docs/republication.md.

        Parameters
        ----------
        recoding : pdanon.Recoding
            From ``release.anon.recoding`` or ``pdanon.Recoding.from_json(text)``.
        model : PrivacyModel, optional
            Default: the model the release was verified with (none for ``generalize``
            releases, which record none: pass one).
        max_suppressed_rows : int or float, optional
            A row count, or a share of the rows strictly between 0 and 1.
        history, keys, invariance : optional
            ``invariance=m`` publishes the batch **m-invariant** (Xiao & Tao), which stops the
            difference attack: with ``history`` (a :class:`pdanon.ReleaseHistory` of the
            earlier releases, empty for the first, each published under ``invariance=m``)
            and ``keys`` (one per row or a column name, naming the person), every class
            shows at least ``m`` values, each equally often, and each person's signature
            (their class's value set) is the one they had before: rows no signature fits
            are suppressed, and **counterfeit rows** balance the classes (counted per class
            in ``info["invariance"]``; only the quasi-identifiers and the one sensitive
            column may be published, in a random order). Record the result with
            ``history.add(out, keys=..., sensitive=...)``. See docs/republication.md.
        withhold : bool
            A row that even suppression cannot make safe (no signature fits it in the blank
            class, or the suppressed rows together fail the model) is left out of this
            batch (not published; ``info["rows_withheld"]``) instead of failing the call.
        allow_channels : list of str, optional
            Columns the batch publishes unchanged that you have judged safe although their
            value gives a recoded quasi-identifier back (a stratum weight that pins the ZIP
            published as a set): without it such a column is refused with a
            :class:`pdanon.ChannelError`, as by the anonymizers (docs/security.md, "Columns
            published unchanged"); recorded in ``info["channels_allowed"]``.
        household, household_ids
            As in :meth:`k_anonymize`, with the k of the model the batch is verified with
            (at least 2): the household column is published renumbered, a household whose
            signature fewer than k households share is unlinked. With ``invariance=`` only
            ``household_ids="drop"`` (an m-invariant release publishes the
            quasi-identifiers and the sensitive column only).
        **roles
            Role keywords; the quasi-identifiers are the recoding's columns, the sensitive
            columns default to the release's, identifiers are dropped. A household column
            left without a role is refused, as by every face.

        ``out.anon.info``: ``rows_kept_cells`` (rows whose every cell is an old cell and
        that are not suppressed), ``unseen_cells`` per column, ``suppressed_rows``,
        ``achieved``, ``recoding`` (the recoding's fingerprint).

        Example
        -------
        >>> from pdanon.hierarchy import intervals
        >>> from pdanon.models import KAnonymity
        >>> first = pd.DataFrame({"age": [31, 33, 36, 38]}).anon.generalize(
        ...     {"age": 1}, hierarchies={"age": intervals([5])})
        >>> batch = pd.DataFrame({"age": [30, 34, 35, 39, 52, 61]})
        >>> out = batch.anon.apply_recoding(first.anon.recoding, model=KAnonymity(2))
        >>> sorted(out["age"].astype(str).fillna("blank"))   # rows in a random order
        ['[30, 34]', '[30, 34]', '[35, 39]', '[35, 39]', 'blank', 'blank']
        >>> out.anon.info["unseen_cells"], out.anon.info["rows_kept_cells"]
        ({'age': 2}, 4)

        m-invariance from the first batch on: the class [30, 34] shows flu twice and cold
        once, so one counterfeit cold row is published with it.

        >>> from pdanon import ReleaseHistory
        >>> history = ReleaseHistory()
        >>> batch = pd.DataFrame({"pid": [1, 2, 3, 4, 5], "age": [31, 32, 33, 36, 37],
        ...                       "d": ["flu", "flu", "cold", "hiv", "flu"]})
        >>> out = batch.anon.apply_recoding(first.anon.recoding, history=history, keys="pid",
        ...                                 invariance=2, identifiers=["pid"],
        ...                                 sensitive=["d"])
        >>> out.anon.info["invariance"]["counterfeits_by_class"], len(out)
        ({'[30, 34]': 1}, 6)
        >>> history.add(out, keys=batch["pid"], sensitive="d")
        >>> history.invariant
        [2]
        """
        from pdanon.accessor import household_step
        from pdanon.republication.recoding import Recoding

        recoding = Recoding.check(recoding)
        kw = _pick_roles(roles)
        _no_extra(roles)
        if invariance is not None and row_order == "input":
            raise InvalidInputError(
                "invariance= adds counterfeit rows, which the input's order would put last, "
                "where anyone tells them apart (and their values with them): publish in a "
                "random order (row_order='random', the default)")
        if invariance is not None and household is not None and household_ids != "drop":
            raise InvalidInputError(
                f"household={household!r} with invariance=: an m-invariant release publishes "
                f"only the quasi-identifiers and the sensitive column (and counterfeit rows, "
                f"which belong to no household), so no household id can be published: pass "
                f"household_ids='drop', or drop the column (identifiers=[{household!r}])")
        if isinstance(keys, str) and household is not None and keys == household:
            raise InvalidInputError(f"keys={keys!r} names the household column: keys name "
                                    f"the person, one per row")

        def make(acc):
            r = acc.roles(**recoding.role_keywords(kw, acc._df.columns))
            out, out_roles, info = recoding.apply(acc._df, r, model=model,
                                                  max_suppressed_rows=max_suppressed_rows,
                                                  history=history, keys=keys,
                                                  invariance=invariance, withhold=withhold,
                                                  allow_channels=allow_channels)
            return out, out_roles, info, household_step.k_of_models(info)

        def finish(out, out_roles, info, *, row_order):
            fakes = (info.get("invariance") or {}).get("counterfeit_rows", 0)
            if fakes:  # the rows it was made from: the batch's, then the counterfeits
                made_from = pd.concat([self._df, out.iloc[len(out) - fakes:]])
                made_from.attrs = self._df.attrs
                return made_from.anon._result(out, out_roles, info, row_order=row_order)
            return self._result(out, out_roles, info, row_order=row_order)

        return household_step.publish(self, make, household=household,
                                      household_ids=household_ids, named=kw,
                                      row_order=row_order, finish=finish)


def _merged(model):
    """``model`` without repeated parts: equal parts once, and of several k-anonymity parts
    only the largest k."""
    from pdanon.models import AllOf, KAnonymity

    parts, seen = [], set()
    ks = [p.k for p in model.parts() if type(p) is KAnonymity]
    for p in model.parts():
        if type(p) is KAnonymity:
            if p.k != max(ks) or "k" in seen:
                continue
            seen.add("k")
        key = (type(p).__name__, repr(p))
        if key in seen:
            continue
        seen.add(key)
        parts.append(p)
    return parts[0] if len(parts) == 1 else AllOf(*parts)


def _pick_roles(kwargs: dict) -> dict:
    return {k: kwargs[k] for k in ROLE_KEYWORDS if k in kwargs}


def _no_extra(kwargs: dict) -> None:
    qis = kwargs.get("quasi_identifiers")
    if qis is not None and not isinstance(qis, (str, int)) and len(qis) == 0:
        raise InvalidInputError("quasi_identifiers is empty: name at least one column")
