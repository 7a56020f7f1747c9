"""``df.anon``'s perturbation methods: shuffling, randomization, microaggregation, PRAM,
top/bottom coding, rank swapping, noise, local suppression, keyed hashing and dropping
identifiers.

A mixin of :class:`pdanon.accessor.frame.AnonAccessor` (which supplies ``_df``, ``roles`` and
``_result``); the algorithms live in :mod:`pdanon.perturb`.
"""

from __future__ import annotations

import pandas as pd

from pdanon.keywords import checked


class PerturbationMethods:
    """The perturbation half of ``df.anon`` (see :mod:`pdanon.perturb`)."""

    def _households(self, make, household, household_ids, roles, row_order, *, columns=None,
                    within=None, k=None) -> pd.DataFrame:
        """The face's release through the household step every face shares
        (:func:`pdanon.accessor.household_step.publish`): ``household=`` (or a household
        column the input records) is published renumbered and verified at household level
        with the face's k (2 for a perturbation without one)."""
        from pdanon.accessor import household_step

        named = dict(roles)
        for key, value in (("columns", columns), ("within", within)):
            if value is not None and not (isinstance(value, str) and
                                          value == "equivalence_classes"):
                named[key] = value

        def made(acc):  # the perturbations' (out, roles, info), with the face's k
            return (*make(acc), k)

        return household_step.publish(self, made, household=household,
                                      household_ids=household_ids, named=named,
                                      row_order=row_order)

    @checked
    def shuffle(self, columns=None, *, within=None, seed=None, keep_identifiers: bool = False,
                row_order: str = "random", household=None, household_ids: str = "renumber",
                **roles) -> pd.DataFrame:
        """Permute each listed column independently (each column gets its own permutation).

        Parameters
        ----------
        columns : column name or list, optional
            Default: the quasi-identifier and sensitive columns, minus the ``within`` grouping
            columns (which a within-group shuffle cannot change).
        within : None, "equivalence_classes", column name or list of names
            ``None`` shuffles whole columns; ``"equivalence_classes"`` only moves values between
            rows with identical quasi-identifier values (the reference's ShufflerInBatches);
            column names define the groups instead.
        seed : int, optional
            Reproducible shuffles; without it the randomness comes from :mod:`secrets`.
        keep_identifiers : bool
            Identifier columns are dropped (as by every anonymizer) unless True.

        Example
        -------
        >>> df = pd.DataFrame({"zip": ["A", "A", "B", "B"], "disease": ["flu", "gout", "flu", "hiv"]})
        >>> out = df.anon.shuffle(within="equivalence_classes", seed=0,
        ...                       quasi_identifiers=["zip"], sensitive=["disease"])
        >>> out.groupby("zip")["disease"].agg(sorted).to_dict()   # within each class
        {'A': ['flu', 'gout'], 'B': ['flu', 'hiv']}
        """
        from pdanon import perturb

        def make(acc):
            return perturb.shuffle_by_roles(
                acc._df, acc._roles_for(columns, roles), columns, within=within, seed=seed,
                keep_identifiers=keep_identifiers)

        return self._households(make, household, household_ids, roles, row_order,
                                columns=columns, within=within)

    @checked
    def randomize(self, columns=None, *, scale: float = 1.0, low=None, high=None, noise=None,
                  seed=None, clip: bool = True, keep_identifiers: bool = False,
                  row_order: str = "random", household=None, household_ids: str = "renumber",
                  **roles) -> pd.DataFrame:
        """Randomize columns (default: the quasi-identifiers) by the reference's per-kind method,
        uniform noise or your own noise functions. See :func:`pdanon.perturb.randomize_series`.

        Parameters
        ----------
        scale : float
            Spread of the default method: the rank shift is ``N(0, 1)·n·scale``.
        low, high : number or {column: number}
            Uniform noise ``U(low, high)`` added to real columns.
        noise : function or {column: function}
            ``f(values) -> noise`` added to real columns; ``f`` gets the column's non-missing
            values as a float array (or, if it does not return an array, is called per value).
        seed : int, optional
            Reproducible results; without it the randomness comes from :mod:`secrets`.
        clip : bool
            Keep real values inside the column's observed [min, max] (default True).
        keep_identifiers : bool
            Identifier columns are dropped unless True.

        Integer columns stay integer (rounded), ordered/unordered columns only take values of the
        column (an ordered Categorical keeps its categories), missing cells stay missing.

        Example
        -------
        >>> df = pd.DataFrame({"age": [20, 30, 40, 50]})
        >>> bool(df.anon.randomize(low=-2, high=2, seed=0)["age"].between(20, 50).all())
        True
        """
        from pdanon import perturb

        def make(acc):
            return perturb.randomize_by_roles(
                acc._df, acc._roles_for(columns, roles), columns, scale=scale, low=low,
                high=high, noise=noise, seed=seed, clip=clip, keep_identifiers=keep_identifiers)

        return self._households(make, household, household_ids, roles, row_order,
                                columns=columns)

    @checked
    def microaggregate(self, k: int, *, columns=None, method: str = "mdav", gamma=None,
                       block_size="auto", keep_identifiers: bool = False, progress=None,
                       row_order: str = "random", allow_channels=None,
                 household=None, household_ids: str = "renumber", **roles) -> pd.DataFrame:
        """Microaggregate columns (default: the quasi-identifiers): MDAV groups of at least
        ``k`` similar rows, each cell replaced by its group's mean (real), median (ordered)
        or mode (unordered). Missing cells stay missing. See docs/perturbation.md and
        :mod:`pdanon.perturb.microaggregation`.

        Parameters
        ----------
        k : int
            Minimum group size (groups have k..2k-1 rows with MDAV).
        columns : column name or list, optional
            Default: the quasi-identifiers, with their kinds.
        method : "mdav" or "vmdav"
            Fixed-size MDAV, or V-MDAV (variable group sizes, gain factor ``gamma``).
        gamma : float, optional
            V-MDAV's gain factor (default 0.2); only with ``method="vmdav"``.
        block_size : "auto", None or int
            ``"auto"``: exact up to 100,000 rows, above that blocks of at most 12,500 rows
            cut at medians; ``None``: always exact; an int: blocks of at most that many rows.
        keep_identifiers : bool
            Identifier columns are dropped unless True.
        progress : bool, optional
            A bar over the rows grouped: ``None`` (default) for long runs in a terminal or
            notebook, ``True`` always, ``False`` never
            (:mod:`pdanon.progress`).
        allow_channels : list of str, optional
            Columns published unchanged that you have judged safe although their value
            gives an aggregated cell's original value back (e.g. a stratum weight that pins
            the ZIP): without it such a column is refused with a
            :class:`pdanon.ChannelError`, as by the anonymizers (docs/security.md, "Columns
            published unchanged"); recorded in ``info["channels_allowed"]``.

        ``info`` reports the groups, their sizes, the achieved k-anonymity of the
        microaggregated columns, SSE/SST and IL1s.

        Example
        -------
        >>> df = pd.DataFrame({"age": [20, 21, 22, 50, 52, 54], "income": [1, 2, 3, 7, 8, 9]})
        >>> out = df.anon.microaggregate(3)
        >>> sorted(out["age"]), out.anon.info["k_anonymity"]
        ([21.0, 21.0, 21.0, 52.0, 52.0, 52.0], 3)
        """
        from pdanon import perturb

        def make(acc):
            return perturb.microaggregate_by_roles(
                acc._df, acc._roles_for(columns, roles, generalized=True), k, columns=columns,
                method=method, gamma=gamma, block_size=block_size,
                keep_identifiers=keep_identifiers, progress=progress,
                allow_channels=allow_channels)

        return self._households(make, household, household_ids, roles, row_order,
                                columns=columns, k=k)

    @checked
    def pram(self, columns, *, matrix=None, p: float | None = None, invariant: bool = True,
             seed=None, pd: float | None = None, alpha: float | None = None,
             keep_identifiers: bool = False, row_order: str = "random",
                 household=None, household_ids: str = "renumber", **roles) -> pd.DataFrame:
        """PRAM (post-randomization) of categorical columns: each cell of category ``i``
        becomes category ``j`` with probability ``M[i, j]``. See docs/perturbation.md and
        :func:`pdanon.perturb.pram.pram_series`.

        Parameters
        ----------
        columns : column name or list
            The columns to randomize (any kind; their categories are a Categorical's
            categories, else their distinct values).
        matrix : DataFrame, square array or {column: matrix}, optional
            The transition matrix: a DataFrame labelled by the column's categories (index and
            columns), or an array in their order (a Categorical's order, else sorted); rows
            sum to 1.
        p : float or {column: float}
            Without ``matrix``: keep a value with probability ``p``, else move it to one of
            the other categories uniformly (default 0.8). After the invariant step fewer
            cells keep it (``info``'s ``expected_kept``).
        pd, alpha : float or {column: float}
            sdcMicro's ``pram(pd=, alpha=)`` instead of ``p``: each category keeps its value
            with a probability drawn uniformly from ``[pd, 1]``, the matrix is made invariant
            and then mixed with the identity, ``alpha R + (1 - alpha) I`` (``alpha`` 0.5 by
            default), as sdcMicro does: far more cells keep their value than with ``p``
            at the same number. ``alpha`` alone mixes the ``p`` or given matrix the same
            way.
        invariant : bool
            Replace the matrix ``P`` by the invariant ``R = P Q`` (``Q`` the backward matrix
            from the observed frequencies), so the expected frequency of every category
            equals the observed one (default True).
        seed : int, optional
            Reproducible results; without it the randomness comes from :mod:`secrets`.
        keep_identifiers : bool
            Identifier columns are dropped unless True.

        Missing cells stay missing; the dtype is kept. ``info`` gives per column the number of
        categories, the expected share of kept values and the cells changed;
        :func:`pdanon.perturb.pram_matrix` gives the matrix used.

        Example
        -------
        >>> df = pd.DataFrame({"sex": ["F", "M"] * 50})
        >>> out = df.anon.pram("sex", p=0.9, seed=0)
        >>> sorted(out["sex"].unique()), out.anon.info["columns"]["sex"]["categories"]
        (['F', 'M'], 2)
        """
        from pdanon import perturb

        def make(acc):
            return perturb.pram_by_roles(
                acc._df, acc._roles_for(columns, roles), columns, matrix=matrix, p=p,
                invariant=invariant, seed=seed, keep_identifiers=keep_identifiers, pd_=pd,
                alpha=alpha)

        return self._households(make, household, household_ids, roles, row_order,
                                columns=columns)

    @checked
    def top_code(self, columns, *, threshold=None, quantile=None, value=None,
                 keep_identifiers: bool = False, row_order: str = "random",
                 household=None, household_ids: str = "renumber", **roles) -> pd.DataFrame:
        """Top coding: values above ``threshold`` (or above the ``quantile`` of the column's
        values) become ``value`` (default: the threshold). See :meth:`bottom_code` and
        :func:`pdanon.perturb.coding.code_series`.

        Parameters
        ----------
        columns : column name or list
            Numeric columns to code.
        threshold, quantile, value : number or {column: number}
            Exactly one of ``threshold`` and ``quantile`` (in [0, 1]) per column; ``value``
            is optional.
        keep_identifiers : bool
            Identifier columns are dropped unless True.

        Missing cells stay missing; integer columns stay integer when the replacement is a
        whole number. ``info`` gives per column the threshold, the replacement and the
        cells changed.

        Example
        -------
        >>> df = pd.DataFrame({"income": [20, 35, 50, 900]})
        >>> sorted(df.anon.top_code("income", threshold=100)["income"])
        [20, 35, 50, 100]
        """
        return self._code(columns, "top", threshold, quantile, value, keep_identifiers, roles,
                          row_order, household, household_ids)

    @checked
    def bottom_code(self, columns, *, threshold=None, quantile=None, value=None,
                    keep_identifiers: bool = False, row_order: str = "random",
                 household=None, household_ids: str = "renumber", **roles) -> pd.DataFrame:
        """Bottom coding: values below ``threshold`` (or below the ``quantile`` of the
        column's values) become ``value`` (default: the threshold). Options as
        :meth:`top_code`.

        Example
        -------
        >>> df = pd.DataFrame({"age": [3, 17, 40, 71]})
        >>> out = df.anon.bottom_code("age", threshold=18, value=0)
        >>> sorted(out["age"]), out.anon.info["cells_changed"]
        ([0, 0, 40, 71], 2)
        """
        return self._code(columns, "bottom", threshold, quantile, value, keep_identifiers, roles,
                          row_order, household, household_ids)

    def _code(self, columns, side, threshold, quantile, value, keep_identifiers, roles,
              row_order="random", household=None, household_ids="renumber"):
        from pdanon import perturb

        def make(acc):
            return perturb.code_by_roles(
                acc._df, acc._roles_for(columns, roles), columns, side, threshold=threshold,
                quantile=quantile, value=value, keep_identifiers=keep_identifiers)

        return self._households(make, household, household_ids, roles, row_order,
                                columns=columns)

    @checked
    def rank_swap(self, columns, *, p: float | None = None, seed=None, rule: str = "blocks",
                  top_percent: float = 0.0, bottom_percent: float = 0.0,
                  r0: float | None = None, k0: float | None = None,
                  keep_identifiers: bool = False, row_order: str = "random",
                 household=None, household_ids: str = "renumber", **roles) -> pd.DataFrame:
        """Rank swapping (Moore 1996): each value of a column is exchanged with the value of
        at most one partner whose rank differs by at most ``p`` percent of the column's
        non-missing cells. See docs/perturbation.md and
        :func:`pdanon.perturb.swap.swap_partners` for the pairing rule.

        Parameters
        ----------
        columns : column name or list
            Numeric, date or ordered Categorical columns; each is swapped on its own.
        p : float or {column: float}
            The largest rank distance, in percent (0-100, default 5).
        rule : "blocks" or "moore"
            ``"blocks"`` (default, vectorized): ranks paired inside random blocks of the
            distance; ``"moore"``: sdcMicro's sequential rule (each unswapped rank picks a
            partner uniformly among the unswapped ranks above it within the distance), whose
            swaps are about 1.65 times longer at the same ``p``.
        top_percent, bottom_percent : float or {column: float}
            sdcMicro's ``TopPercent`` / ``BottomPercent`` (0 here by default; sdcMicro's
            default is 5): the largest / smallest values are first replaced by their mean and
            left out of the swapping (numeric columns).
        r0, k0 : float or {column: float}
            sdcMicro's preservation factors instead of ``p``: ``r0`` (in [0, 1]) the
            correlation of a value with its swapped value to keep, ``k0`` (>= 0) the
            subset-mean preservation; the rank range is derived from them
            (:func:`pdanon.perturb.swap.percent_from`) and recorded in ``info``.
        seed : int, optional
            Reproducible results; without it the randomness comes from :mod:`secrets`.
        keep_identifiers : bool
            Identifier columns are dropped unless True.

        Values only move between non-missing cells of the same column (missing cells, the
        column's values and its dtype are kept; with tails, the tails' values become their
        mean, rounded in an integer column).

        Example
        -------
        >>> df = pd.DataFrame({"income": [100.0 * i for i in range(100)]})
        >>> out = df.anon.rank_swap("income", p=2, seed=0, row_order="input")  # to compare
        >>> float((out["income"] - df["income"]).abs().max()) <= 200, sorted(out["income"]) == sorted(df["income"])
        (True, True)
        """
        from pdanon import perturb

        def make(acc):
            return perturb.rank_swap_by_roles(
                acc._df, acc._roles_for(columns, roles), columns, p=p, seed=seed,
                keep_identifiers=keep_identifiers, rule=rule, top_percent=top_percent,
                bottom_percent=bottom_percent, r0=r0, k0=k0)

        return self._households(make, household, household_ids, roles, row_order,
                                columns=columns)

    @checked
    def add_noise(self, columns, *, method: str = "additive", noise: float = 0.1, seed=None,
                  keep_identifiers: bool = False, row_order: str = "random",
                 household=None, household_ids: str = "renumber", **roles) -> pd.DataFrame:
        """Add normal noise to numeric columns (sdcMicro's ``addNoise``). See
        docs/perturbation.md and :func:`pdanon.perturb.noise.add_noise_frame`.

        Parameters
        ----------
        columns : column name or list
            Numeric columns.
        method : "additive" or "correlated"
            ``"additive"``: each column gets independent ``N(0, (noise·s_j)²)`` noise (``s_j``
            its standard deviation), so its variance grows by the factor ``1 + noise²``.
            ``"correlated"``: each row gets noise ``N(0, noise·S)`` (``S`` the columns'
            covariance matrix), so the covariance becomes ``(1 + noise)·S`` and the
            correlations are kept.
        noise : float
            The noise level (default 0.1), as above.
        seed : int, optional
            Reproducible results; without it the randomness comes from :mod:`secrets`.
        keep_identifiers : bool
            Identifier columns are dropped unless True.

        Missing cells stay missing; integer columns are rounded and keep their dtype.
        ``info`` records the factor and each column's noise standard deviation.

        Example
        -------
        >>> df = pd.DataFrame({"income": [1000.0, 2000.0, 3000.0, 4000.0]})
        >>> out = df.anon.add_noise("income", noise=0.2, seed=0)
        >>> out.anon.info["variance_factor"], round(out.anon.info["noise_sd"]["income"], 1)
        (1.04, 258.2)
        """
        from pdanon import perturb

        def make(acc):
            return perturb.add_noise_by_roles(
                acc._df, acc._roles_for(columns, roles), columns, method=method, noise=noise,
                seed=seed, keep_identifiers=keep_identifiers)

        return self._households(make, household, household_ids, roles, row_order,
                                columns=columns)

    @checked
    def local_suppression(self, k: int, *, importance=None, keep_identifiers: bool = False,
                          row_order: str = "random", allow_channels=None,
                 household=None, household_ids: str = "renumber", **roles) -> pd.DataFrame:
        """sdcMicro's local suppression: set few quasi-identifier cells missing, preferring
        unimportant columns, until every row matches at least ``k`` rows with a missing cell
        matching any value (``df.anon.k_anonymity(missing="wildcard") >= k``; verified). See
        docs/perturbation.md and :func:`pdanon.perturb.suppression.suppression_mask`.

        Parameters
        ----------
        k : int
            The wildcard k-anonymity to reach.
        importance : None, list of columns or {column: number}
            ``None``: columns with more distinct values are suppressed first; a list names
            every quasi-identifier from the most to the least important; sdcMicro's
            ``{column: number}``: 1 = most important, higher numbers suppressed first.
        keep_identifiers : bool
            Identifier columns are dropped unless True.
        allow_channels : list of str, optional
            Columns published unchanged that you have judged safe although their value
            gives a suppressed cell back; without it such a column is refused with a
            :class:`pdanon.ChannelError` (as by the anonymizers); recorded in ``info``.

        Numpy integer and boolean columns with a suppressed cell become nullable
        (``Int64``/``boolean``). ``info`` gives the cells suppressed (total and per column),
        the rows changed and the achieved k.

        Example
        -------
        >>> df = pd.DataFrame({"sex": ["F", "F", "M", "M", "M"], "zip": ["1", "1", "1", "2", "2"]})
        >>> out = df.anon.local_suppression(2)
        >>> sorted(out["zip"].fillna("*")), out.anon.k_anonymity(missing="wildcard")
        (['*', '1', '1', '2', '2'], 2)
        """
        from pdanon import perturb

        def make(acc):
            return perturb.local_suppression_by_roles(
                acc._df, acc.roles(**roles), k, importance=importance,
                keep_identifiers=keep_identifiers, allow_channels=allow_channels)

        return self._households(make, household, household_ids, roles, row_order, k=k)

    def utility(self, original: pd.DataFrame, columns=None, *, summary: bool = False):
        """How much of ``original``'s statistics this perturbed frame keeps (rows matched by
        index). ``summary=False``: one row per perturbed column
        (:func:`pdanon.metrics.perturbation_utility`: cells, suppressed, filled, IL1s, mean /
        sd / quantile changes in standard deviations, category share distance, note);
        ``summary=True``: the Series of the rows ``df.anon.metrics(original)`` shows (IL1s,
        eigenvalue loss, correlation and covariance difference, ...;
        :func:`pdanon.metrics.perturbation_summary`). ``columns`` restricts every measure to
        those columns. See docs/perturbation.md, "Measuring utility of perturbed data".

        Example
        -------
        >>> df = pd.DataFrame({"age": [20, 21, 22, 50, 52, 54], "income": [1, 2, 3, 7, 8, 9]})
        >>> out = df.anon.microaggregate(3, quasi_identifiers=["age", "income"])
        >>> round(float(out.anon.utility(df, summary=True)["il1s"]), 4)
        0.09
        """
        from pdanon.metrics.perturbation import perturbation_summary, perturbation_utility

        measure = perturbation_summary if summary else perturbation_utility
        return measure(original, self._df, columns)

    @checked
    def hash_identifiers(self, columns=None, *, key=None, context=None,
                         row_order: str = "random",
                         household=None, household_ids: str = "renumber", **roles) -> pd.DataFrame:
        """Replace identifier cells by keyed pseudonyms: HMAC-SHA-256 (hex) of each cell's text
        (:func:`pdanon.perturb.canonical_text`). Missing cells stay missing; the columns keep
        the identifier role.

        ``key`` is secret: the same key gives the same pseudonyms in every call and frame, so
        joins still work. ``bytes`` are used as is (use ``secrets.token_bytes(32)``); a ``str``
        is a passphrase of at least 12 characters, turned into a key by scrypt
        (:func:`pdanon.perturb.derive_key`). With ``key=None`` a random 256-bit key is
        generated and returned as ``out.anon.info["key"]`` (a
        :class:`pdanon.perturb.SecretKey`: ``bytes(key)`` gives it; it is never printed or
        written into saved files), with its ``key_fingerprint``; a given key leaves no trace
        in ``info`` (``"key_source": "given"``).

        ``context`` separates columns: ``None`` (default) gives equal values equal pseudonyms
        in every column; ``"column"`` mixes each column's name into the HMAC message, so the
        same phone number in two columns gets two unrelated pseudonyms; a str is one context
        for every column; ``{column: str or None}`` sets each hashed column's context.

        Example
        -------
        >>> df = pd.DataFrame({"phone": ["+79001234567", None], "age": [30, 40]})
        >>> out = df.anon.hash_identifiers(identifiers=["phone"])
        >>> out["phone"].dropna().str.len().tolist(), int(out["phone"].isna().sum())
        ([64], 1)
        >>> out.anon.info["key"].nbytes
        32
        >>> two = pd.DataFrame({"home": ["+7900"], "work": ["+7900"]})
        >>> sep = two.anon.hash_identifiers(key=b"0" * 32, context="column",
        ...                                 identifiers=["home", "work"])
        >>> sep["home"].iloc[0] == sep["work"].iloc[0]
        False
        """
        from pdanon import perturb

        def make(acc):
            return perturb.hash_by_roles(
                acc._df, acc._roles_for(columns, roles), columns, key=key, context=context)

        return self._households(make, household, household_ids, roles, row_order,
                                columns=columns)

    @checked
    def drop_identifiers(self, *, row_order: str = "random",
                         household=None, household_ids: str = "renumber", **roles) -> pd.DataFrame:
        """The frame without its identifier columns.

        Example
        -------
        >>> df = pd.DataFrame({"name": ["Ann", "Bob"], "age": [30, 40]})
        >>> list(df.anon.drop_identifiers(identifiers=["name"]).columns)
        ['age']
        """
        from pdanon import perturb

        def make(acc):
            return perturb.drop_identifiers_by_roles(
                acc._df, acc.roles(**roles))

        return self._households(make, household, household_ids, roles, row_order)
