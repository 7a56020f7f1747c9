"""``df.anon``'s record-level risk methods: per-row and summary re-identification risk
(:mod:`pdanon.metrics.reidentification`) and special uniques (:mod:`pdanon.metrics.special_uniques`).

A mixin of :class:`pdanon.accessor.frame.AnonAccessor` (which supplies ``_df`` and
``_measured_roles``).
"""

from __future__ import annotations

import pandas as pd

from pdanon.keywords import checked


class RiskMethods:
    """The record-level risk half of ``df.anon`` (see docs/risk.md)."""

    @checked
    def risk(self, *, population: pd.DataFrame | None = None, sampling_fraction=None,
             weights=None, household=None, missing: str | None = None,
             **roles) -> pd.DataFrame:
        """Per-row re-identification risk, indexed like the frame: ``class_id``,
        ``class_size``, ``prosecutor`` (1 / class size) and, with ``population=<table>`` (exact)
        or ``sampling_fraction=p`` (estimate), ``journalist`` (1 / population class size).
        ``weights=<column>`` (sampling weights): F is the sum of the class's weights, and
        ``population_size`` and ``individual`` (sdcMicro's individual risk) are added;
        ``household=<column>``: ``household`` (1 - prod(1 - r) over the household). The
        weight and household columns are never quasi-identifiers. ``missing``: as in
        :meth:`frequencies` (default: the rule the release was made under). See
        :func:`pdanon.metrics.record_risk` and docs/risk.md.

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 30, 40]})
        >>> df.anon.risk()["prosecutor"].tolist()
        [0.5, 0.5, 1.0]
        >>> df.assign(w=[50.0, 150.0, 1.0]).anon.risk(weights="w")["individual"].round(4).tolist()
        [0.0096, 0.0096, 1.0]
        """
        from pdanon.metrics.reidentification import record_risk

        from pdanon.metrics.survey import survey_roles

        roles = survey_roles(roles, weights, household)
        return record_risk(self._df, self._measured_roles(roles).quasi_identifiers,
                           population=population, sampling_fraction=sampling_fraction,
                           weights=weights, household=household,
                           missing=self._missing(missing))

    @checked
    def risk_summary(self, *, population: pd.DataFrame | None = None, sampling_fraction=None,
                     weights=None, household=None, threshold: float = 0.2,
                     missing: str | None = None, **roles) -> pd.Series:
        """Highest, average and median prosecutor risk, share of records at risk (prosecutor
        risk above ``threshold``), marketer risk, share of sample uniques, and the journalist
        figures when a population is described; with ``weights=<column>`` the global risk and
        the expected re-identifications of sdcMicro's ``measure_risk``, with
        ``household=<column>`` the household figures. See
        :func:`pdanon.metrics.risk_summary`.

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 30, 40, 40]})
        >>> float(df.anon.risk_summary()["highest_prosecutor_risk"])
        0.5
        """
        from pdanon.metrics.reidentification import risk_summary

        from pdanon.metrics.survey import survey_roles

        roles = survey_roles(roles, weights, household)
        return risk_summary(self._df, self._measured_roles(roles).quasi_identifiers,
                            population=population, sampling_fraction=sampling_fraction,
                            weights=weights, household=household, threshold=threshold,
                            missing=self._missing(missing))

    @checked
    def linkage_risk(self, original: pd.DataFrame, *, columns=None, k: float = 0.05,
                     summary: bool = False):
        """Disclosure risk of this perturbed frame against ``original`` (same index), for an
        attacker who holds the original values: per row, ``interval`` (every original value
        within ``k`` perturbed sds of the published one: sdcMicro's ``dRisk``) and
        ``linkage`` (the chance that distance-based record linkage over the standardized
        numeric columns finds the row; 1 / t among t tied). ``summary=True`` returns the
        shares instead (``interval_disclosure``, ``record_linkage``). ``columns``: the
        numeric columns compared (default: those the perturbation changed). See
        :mod:`pdanon.metrics.linkage` and docs/risk.md.

        Example
        -------
        >>> df = pd.DataFrame({"x": [1.0, 2.0, 10.0, 11.0]})
        >>> out = df.assign(x=[1.5, 1.5, 10.5, 11.0])
        >>> out.anon.linkage_risk(df, summary=True).to_dict()
        {'interval_disclosure': 0.25, 'record_linkage': 0.625}
        """
        from pdanon.metrics.linkage import linkage_risk, linkage_summary

        if summary:
            return linkage_summary(original, self._df, columns, k=k)
        return linkage_risk(original, self._df, columns, k=k)

    @checked
    def population_uniques(self, *, sampling_fraction, estimator: str = "dankar",
                           missing: str = "value", **roles):
        """Estimated share of the population's records that are unique on the
        quasi-identifiers, when this frame is a simple random sample holding
        ``sampling_fraction`` of that population (population uniques / N, N = rows /
        sampling_fraction, as ARX reports it).

        ``estimator``: ``"dankar"`` (default: Dankar et al.'s rule - Pitman at fractions
        <= 0.1, else the smaller of Zayatz and SNB), ``"pitman"``, ``"zayatz"``, ``"snb"`` (a
        float; NaN with a warning when the model has no solution) or ``"all"`` (a Series;
        ``attrs`` name the model Dankar's rule took and why an estimate is NaN).
        ``missing="value"``: a missing cell is a value of its own (``"wildcard"`` is refused:
        the estimators need equivalence classes). See
        :func:`pdanon.metrics.population_uniques` and docs/risk.md.

        Example
        -------
        >>> df = pd.DataFrame({"zip": [1, 1, 2, 3, 4, 4, 4, 5]})
        >>> df.anon.population_uniques(sampling_fraction=1.0, quasi_identifiers=["zip"])
        0.375
        """
        from pdanon.metrics.uniqueness import population_uniques

        return population_uniques(self._df, self._measured_roles(roles).quasi_identifiers,
                                  sampling_fraction=sampling_fraction, estimator=estimator,
                                  missing=missing)

    @checked
    def suda(self, max_size: int | None = None, *, dis_fraction: float = 0.01,
             missing: str = "value", pad_to_three: bool = False, progress=None,
             **roles) -> pd.DataFrame:
        """Minimal sample uniques (MSUs) of every row up to ``max_size`` attributes (default:
        all quasi-identifiers): ``msu_count``, ``msu_min_size`` (0: none), ``suda_score`` and
        ``dis_suda`` (sampling fraction ``dis_fraction``). ``progress``: a bar over the
        attribute subsets (:mod:`pdanon.progress`). A search above
        ``pdanon.metrics.special_uniques.MAX_WORK`` (subsets x distinct combinations, about
        half a minute) is refused before it starts, naming the ``max_size=`` that fit.
        ``missing="unmatched"`` and ``pad_to_three=True`` give sdcMicro's ``suda2`` rules (a
        missing key cell matches nothing; one or two keys weighed as three). See
        :func:`pdanon.metrics.suda`.

        Example
        -------
        >>> df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
        >>> df.anon.suda()["msu_count"].tolist()
        [1, 2, 2]
        """
        from pdanon.metrics.special_uniques import suda

        return suda(self._df, self._measured_roles(roles).quasi_identifiers,
                    max_size=max_size, dis_fraction=dis_fraction, missing=missing,
                    pad_to_three=pad_to_three, progress=progress)

    @checked
    def suda_contributions(self, max_size: int | None = None, *, total: bool = False,
                           missing: str = "value", pad_to_three: bool = False, progress=None,
                           **roles):
        """Which quasi-identifiers make rows special: per row, the share of its SUDA score
        from MSUs containing each column; ``total=True``: each column's percentage of the
        table's SUDA score. See :func:`pdanon.metrics.suda_contributions`.

        Example
        -------
        >>> df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
        >>> df.anon.suda_contributions(total=True).tolist()
        [50.0, 37.5, 37.5]
        """
        from pdanon.metrics.special_uniques import suda_contributions

        return suda_contributions(self._df, self._measured_roles(roles).quasi_identifiers,
                                  max_size=max_size, total=total, missing=missing,
                                  pad_to_three=pad_to_three, progress=progress)

    # ---- attribute-disclosure models (models/likeness.py, disclosure.py, alpha_k.py)

    @checked
    def beta_likeness(self, *, variant: str = "basic", missing: str = "value",
                      missing_sensitive: str | None = None, **roles) -> float:
        """The smallest β for which the frame is β-like (Cao & Karras 2012): the largest
        relative gain (q − p)/p of a sensitive value's class share q over its table share p
        (``variant="basic"``); ``"enhanced"`` also caps every gain at −ln p and gives ``inf``
        when a gain exceeds its cap. ``missing_sensitive``: ``"unknown"`` (shares among known
        values) or ``"value"`` (missing is one value); default: the release's rule, else
        ``"unknown"``. ``missing`` is ``"value"`` only. See
        :func:`pdanon.models.beta_likeness` and docs/risk.md.

        Example
        -------
        >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
        >>> df.anon.beta_likeness(quasi_identifiers=["zip"], sensitive=["d"])
        1.0
        """
        from pdanon import models

        r = self._sensitive_roles(roles, "beta-likeness")
        return models.beta_likeness(self._df, r.qi, r.sensitive, variant=variant,
                                    missing=missing, missing_sensitive=self._missing_sensitive(
                                        missing_sensitive, "BetaLikeness"))

    @checked
    def delta_disclosure(self, *, missing: str = "value", missing_sensitive: str | None = None,
                         **roles) -> float:
        """The largest |ln(q/p)| over classes, sensitive columns and values (Brickell &
        Shmatikov 2008): the frame is δ-disclosure-private for every δ above it; ``inf``
        when a class lacks a value of the table. ``missing_sensitive``: ``"unknown"`` (known
        values only) or ``"value"`` (missing is one value); default: the release's rule, else
        ``"unknown"``. ``missing`` is ``"value"`` only. See
        :func:`pdanon.models.delta_disclosure`.

        Example
        -------
        >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "b"]})
        >>> df.anon.delta_disclosure(quasi_identifiers=["zip"], sensitive=["d"])
        0.0
        """
        from pdanon import models

        r = self._sensitive_roles(roles, "delta-disclosure privacy")
        return models.delta_disclosure(self._df, r.qi, r.sensitive, missing=missing,
                                       missing_sensitive=self._missing_sensitive(
                                           missing_sensitive, "DeltaDisclosure"))

    @checked
    def alpha_k_anonymity(self, *, value=None, missing: str = "value",
                          missing_sensitive: str | None = None, **roles):
        """The (α, k) the frame achieves (Wong et al. 2006), as ``AlphaK(alpha, k)``: the
        largest share of a sensitive value (of ``value`` only, when given) in a class and the
        smallest class. ``missing_sensitive``: ``"unknown"`` (a blank may be any value and
        counts towards every value's share) or ``"value"`` (a blank is one value of its
        own); default: the release's rule, else ``"unknown"``. ``missing`` is ``"value"``
        only. See :func:`pdanon.models.alpha_k_anonymity`.

        Example
        -------
        >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
        >>> df.anon.alpha_k_anonymity(quasi_identifiers=["zip"], sensitive=["d"])
        AlphaK(alpha=1.0, k=2)
        """
        from pdanon import models

        r = self._sensitive_roles(roles, "(alpha, k)-anonymity")
        return models.alpha_k_anonymity(self._df, r.qi, r.sensitive, value=value,
                                        missing=missing,
                                        missing_sensitive=self._missing_sensitive(
                                            missing_sensitive, "AlphaKAnonymity"))

    # ---- population and risk models (models/population.py, models/risk.py)

    @checked
    def k_map(self, *, population: pd.DataFrame, missing: str = "value", **roles) -> int:
        """Largest k for which the frame meets k-map against the ``population`` table: the
        fewest population rows matching a row's quasi-identifiers (F). The population must
        contain the frame's rows. See :func:`pdanon.models.k_map` and docs/risk.md.

        Example
        -------
        >>> df = pd.DataFrame({"zip": [1, 1, 2]})
        >>> df.anon.k_map(population=pd.DataFrame({"zip": [1, 1, 1, 2, 2, 3]}))
        2
        """
        from pdanon.models.population import k_map

        return k_map(self._df, list(self._measured_roles(roles).quasi_identifiers),
                     population=population, missing=missing)

    @checked
    def delta_presence(self, *, population: pd.DataFrame, missing: str = "value",
                       **roles) -> tuple[float, float]:
        """``(δmin, δmax)``: over the classes of the ``population`` table, the smallest and
        largest share of their rows present in the frame (0 for a population class with no
        row in the frame). A frame with generalized cells (a release) is matched against the
        raw population by containment. ``missing="value"`` only: a missing cell is a value of
        its own. See :func:`pdanon.models.delta_presence` and docs/risk.md.

        Example
        -------
        >>> df = pd.DataFrame({"zip": [1, 2, 2]})
        >>> df.anon.delta_presence(population=pd.DataFrame({"zip": [1, 1, 2, 2, 3]}))
        (0.0, 1.0)
        """
        from pdanon.models.population import delta_presence

        return delta_presence(self._df, list(self._measured_roles(roles).quasi_identifiers),
                              population=population, missing=missing)

    @checked
    def attacks(self, original: pd.DataFrame, *, control: pd.DataFrame, columns=None,
                aux_cols=None, secret=None, n_attacks: int | None = None, seed=None,
                level: float = 0.95, missing: str | None = None, hierarchies=None,
                **roles) -> dict:
        """Singling out, linkability and inference on this release (see
        :mod:`pdanon.attacks` and docs/attacks.md): ``{"singling_out": result,
        "linkability": result, "inference": result}``, each an
        :class:`pdanon.attacks.AttackResult` (``risk``, ``ci``, ``main_rate``,
        ``control_rate``, ``baseline_rate``).

        ``original``: the rows the release was made from; ``control``: held-out rows of the
        same population (required: without them no risk is reported). ``columns``: what the
        attacker reads (default: the quasi-identifiers and sensitive columns);
        ``aux_cols``: linkability's two halves (default: the quasi-identifiers dealt
        alternately); ``secret``: inference's target (default: the first sensitive column;
        without one, no inference is run), guessed from the quasi-identifiers.
        ``missing``: as in :meth:`frequencies` (default: the release's own rule);
        ``hierarchies``: ``{column: hierarchy}`` to read published hierarchy labels.

        Example
        -------
        >>> original = pd.DataFrame({"a": range(0, 40, 2), "b": range(0, 40, 2),
        ...                          "s": ["x", "y"] * 10})
        >>> control = pd.DataFrame({"a": range(1, 41, 2), "b": range(39, 0, -2),
        ...                         "s": ["y", "x"] * 10})
        >>> out = original.anon.attacks(original, control=control, seed=0,
        ...                             quasi_identifiers=["a", "b"], sensitive=["s"])
        >>> sorted(out), out["linkability"].main_rate
        (['inference', 'linkability', 'singling_out'], 1.0)
        """
        from pdanon.attacks import inference, linkability, singling_out

        r = self._measured_roles(roles)
        qi, sens = list(r.quasi_identifiers), list(r.sensitive)
        rule = self._missing(missing)
        cols = list(columns) if columns is not None else (qi + sens or None)
        out = {"singling_out": singling_out(self._df, original, control=control,
                                            columns=cols, seed=seed, level=level,
                                            missing=rule, hierarchies=hierarchies,
                                            **({} if n_attacks is None else
                                               {"n_attacks": n_attacks}))}
        if aux_cols is None:
            aux_cols = (qi[0::2], qi[1::2])
        out["linkability"] = linkability(self._df, original, control=control, aux_cols=aux_cols,
                                         n_attacks=n_attacks, seed=seed, level=level,
                                         missing=rule, hierarchies=hierarchies)
        secret = secret if secret is not None else (sens[0] if sens else None)
        if secret is not None:
            aux = [c for c in qi if c != secret]
            out["inference"] = inference(self._df, original, control=control, aux_cols=aux,
                                         secret=secret, n_attacks=n_attacks, seed=seed,
                                         level=level, missing=rule, hierarchies=hierarchies)
        return out
