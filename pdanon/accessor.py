"""``df.anon``: the pandas face of pdanon.

The accessor holds no algorithm. It resolves column roles (keywords > roles remembered in
``df.attrs`` > defaults), calls the engine, and returns a **new** frame with the same index and
row order; what was done is in ``out.anon.info``. pandas 3 does not cache accessors, so this
object is stateless: everything it remembers lives in ``df.attrs["pdanon"]``.

Example
-------
>>> import pandas as pd, pdanon
>>> df = pd.DataFrame({"age": [30, 31, 40, 42], "sex": ["F", "F", "M", "M"]})
>>> out = df.anon.k_anonymize(2)
>>> out.anon.k_anonymity()
2
"""

from __future__ import annotations

import copy
import importlib

import pandas as pd

_roles = importlib.import_module("pdanon.roles")
from pdanon._errors import InvalidInputError
from pdanon.accessor_perturb import PerturbationMethods
from pdanon.accessor_risk import RiskMethods

_KEY = _roles.ATTRS_KEY
ROLE_KEYWORDS = ("identifiers", "quasi_identifiers", "sensitive", "insensitive")


@pd.api.extensions.register_dataframe_accessor("anon")
class AnonAccessor(RiskMethods, PerturbationMethods):
    """De-identification methods on a DataFrame (``df.anon``).

    Role keywords accepted by every method: ``identifiers=[...]``,
    ``quasi_identifiers=[...] or {col: kind}``, ``sensitive=[...] or {col: kind}``,
    ``insensitive=[...]``.
    """

    def __init__(self, df: pd.DataFrame):
        self._df = df

    # ------------------------------------------------------------------ roles and state
    def roles(self, **roles) -> _roles.Roles:
        """The resolved roles of this frame's columns (see :func:`pdanon.roles.resolve_roles`;
        columns that look like identifiers are identifiers when no roles are given)."""
        return _roles.resolve_roles(self._df, **roles)

    def _measured_roles(self, roles: dict) -> _roles.Roles:
        """Roles for the metrics: a column that looks like an identifier stays a
        quasi-identifier (a metric never changes the quasi-identifiers silently), with a
        :class:`pdanon.RoleWarning`."""
        return _roles.resolve_roles(self._df, guess_identifiers="warn", **roles)

    def with_schema(self, schema) -> pd.DataFrame:
        """Validate the frame against a pandera schema made by :func:`pdanon.schema` (or any
        schema whose columns carry ``{"role", "kind"}`` metadata) and return a new frame that
        remembers the roles.

        Example
        -------
        >>> import pandas as pd, pdanon
        >>> df = pd.DataFrame({"age": [30, 41], "sex": ["F", "M"]})
        >>> s = pdanon.schema(quasi_identifiers={"age": "real"}, sensitive={"sex": "unordered"})
        >>> df.anon.with_schema(s).anon.roles().sensitive
        {'sex': 'unordered'}
        """
        keywords = _roles.roles_from_schema(schema)
        validated = schema.validate(self._df, lazy=True)
        out = validated.copy(deep=False)
        out.attrs = copy.deepcopy(self._df.attrs)
        roles = _roles.resolve_roles(out, **keywords)
        return _roles.with_roles(out, roles)

    @property
    def schema(self):
        """A pandera schema of this frame's roles and kinds (remembered or inferred), and of
        what each column stores (dtype; the categories of Categorical and generalized
        columns, in their order), so that ``pdanon.read_csv(path, schema=df.anon.schema)``
        restores the frame from ``df.to_csv(path, index=False)``.

        Example
        -------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"edu": pd.Categorical(["BSc", "HS"], categories=["HS", "BSc"],
        ...                                          ordered=True)})
        >>> df.anon.schema.columns["edu"].metadata
        {'role': 'quasi_identifier', 'kind': 'ordered', 'dtype': 'category', 'categories': ['HS', 'BSc'], 'ordered': True}
        """
        return _roles.frame_schema(self._df, self.roles())

    @property
    def info(self) -> dict:
        """What the last pdanon step did to produce this frame (algorithm, parameters, counts)."""
        return copy.deepcopy(self._df.attrs.get(_KEY, {}).get("info", {}))

    # ------------------------------------------------------------------ helpers for faces
    def _result(self, out: pd.DataFrame, roles: _roles.Roles, info: dict) -> pd.DataFrame:
        """Attach roles and info to a new frame."""
        out.attrs = {k: v for k, v in self._df.attrs.items() if k != _KEY}
        out.attrs[_KEY] = {"roles": roles.restricted_to(out.columns).to_dict(), "info": info}
        return out

    # ------------------------------------------------------------------ privacy levels
    def equivalence_classes(self, *, missing: str = "value", **roles) -> pd.Series:
        """The equivalence-class label of every row over the quasi-identifiers (a missing cell
        is a value of its own: NaN equals NaN; ``missing="wildcard"`` forms no classes and is
        refused - use :meth:`frequencies`).

        Example
        -------
        >>> import pandas as pd, pdanon
        >>> df = pd.DataFrame({"age": [30, 30, 40], "sex": ["F", "F", "M"]})
        >>> df.anon.equivalence_classes().tolist()
        [0, 0, 1]
        """
        from pdanon._groups import class_labels

        r = self._measured_roles(roles)
        return pd.Series(class_labels(self._df, r.qi, missing=missing,
                                      what="equivalence_classes"),
                         index=self._df.index, name="class")

    def frequencies(self, *, missing: str = "value", **roles) -> pd.Series:
        """How many rows share every row's quasi-identifiers (sdcMicro's ``fk``), indexed like
        the frame. ``missing="value"`` (default): a missing cell is a value of its own (the
        size of the row's equivalence class); ``missing="wildcard"``: a missing cell matches
        any value. See :func:`pdanon.metrics.frequencies`.

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 30, None], "sex": ["F", None, "F"]})
        >>> df.anon.frequencies(missing="wildcard").tolist()
        [3, 3, 3]
        """
        from pdanon.metrics.risk import frequencies

        r = self._measured_roles(roles)
        return frequencies(self._df, r.quasi_identifiers, missing=missing)

    def k_anonymity(self, *, missing: str = "value", **roles) -> int:
        """The largest k for which the frame is k-anonymous: the smallest class size (0 when
        the frame is empty). ``missing="wildcard"``: the smallest :meth:`frequencies` with a
        missing cell matching any value.

        Example
        -------
        >>> import pandas as pd, pdanon
        >>> pd.DataFrame({"age": [30, 30, 40]}).anon.k_anonymity()
        1
        >>> pd.DataFrame({"age": [30, 30, None]}).anon.k_anonymity(missing="wildcard")
        3
        """
        from pdanon import models

        r = self._measured_roles(roles)
        return models.k_anonymity(self._df, r.qi, missing=missing)

    # ---- privacy levels and metrics
    def _sensitive_roles(self, roles: dict, what: str):
        r = self._measured_roles(roles)
        if not r.sensitive:
            raise InvalidInputError(
                f"{what} needs at least one sensitive column: pass sensitive=[...] (or "
                f"{{column: kind}}), or give the frame roles with df.anon.with_schema(...)"
            )
        return r

    def l_diversity(self, *, variant: str = "distinct", c: float | None = None,
                    missing: str = "value", **roles):
        """The l the frame achieves: the smallest, over equivalence classes and sensitive
        columns, of the number of distinct sensitive values (``variant="distinct"``, int),
        ``exp(entropy)`` (``"entropy"``, float) or the largest l of recursive
        (c, l)-diversity (``"recursive"``, needs ``c``). Missing sensitive values count as one
        value; ``missing`` is ``"value"`` only (``"wildcard"`` forms no classes). See
        :func:`pdanon.models.l_diversity`.

        Example
        -------
        >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "c"]})
        >>> df.anon.l_diversity(quasi_identifiers=["zip"], sensitive=["d"])
        2
        """
        from pdanon import models

        r = self._sensitive_roles(roles, "l-diversity")
        return models.l_diversity(self._df, r.qi, r.sensitive, variant=variant, c=c,
                                  missing=missing)

    def t_closeness(self, *, distance: str = "emd", hierarchies=None, missing: str = "value",
                    **roles) -> float:
        """The smallest t for which the frame is t-close: the largest distance between a
        class's distribution of a sensitive column and the whole table's. ``distance``:
        ``"emd"`` (default), ``"hierarchical"`` (with ``hierarchies={column: ...}``),
        ``"jensen_shannon"``, ``"wasserstein"``, ``"reference"``. Missing sensitive values are
        one value (after the largest for the ordered EMD); ``missing`` is ``"value"`` only.
        See :func:`pdanon.models.t_closeness`.

        Example
        -------
        >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
        >>> df.anon.t_closeness(quasi_identifiers=["zip"], sensitive=["d"])
        0.25
        """
        from pdanon import models

        r = self._sensitive_roles(roles, "t-closeness")
        return models.t_closeness(self._df, r.qi, r.sensitive, distance=distance,
                                  hierarchies=hierarchies, missing=missing)

    def metrics(self, original: pd.DataFrame | None = None, *, target=None, ml: bool = False,
                random_state: int = 0, n_threads: int | None = None, missing: str = "value",
                risk: bool = True, population: pd.DataFrame | None = None,
                sampling_fraction=None, threshold: float = 0.2, **roles) -> pd.DataFrame:
        """Risk and utility figures of this (anonymized) frame as a tidy table with columns
        ``metric``, ``value``, ``better`` ("higher"/"lower": safer for risk rows, more useful
        for utility rows) and ``meaning``.

        Without ``original`` only the metrics that need no original are reported (k, l, t,
        adversarial gains, class sizes, distinctness, entropy). With ``original`` (the frame
        before anonymization, same index) also the changed proportion, entropy information
        loss, by-element distance and, when values were perturbed (microaggregation, noise,
        swapping, coding, PRAM), IL1s, eigenvalue loss, correlation and covariance difference,
        mean / sd / quantile change and category share distance (see :meth:`utility`);
        ``ml=True`` adds the gradient-boosting linkage attack and, with ``target=<column>``, the gradient-boosting utility ratio (seeded by
        ``random_state``; ``n_threads`` limits scikit-learn's threads).
        ``missing="wildcard"`` measures k with a missing quasi-identifier cell matching any
        value and leaves out the rows measured on equivalence classes. The record-level risk rows
        of :meth:`risk_summary` (threshold ``threshold``; journalist rows with ``population=``
        or ``sampling_fraction=``) are shown unless ``risk=False``. See :mod:`pdanon.metrics`.

        Example
        -------
        >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
        >>> m = df.anon.metrics(quasi_identifiers=["zip"], sensitive=["d"])
        >>> float(m.set_index("metric").loc["t-closeness (EMD)", "value"])
        0.25
        """
        from pdanon.metrics.report import metrics_table

        r = self._measured_roles(roles)
        return metrics_table(self._df, original, quasi_identifiers=r.quasi_identifiers,
                             sensitive=r.sensitive, target=target, ml=ml,
                             random_state=random_state, n_threads=n_threads, missing=missing,
                             risk=risk, population=population,
                             sampling_fraction=sampling_fraction, threshold=threshold)

    def report(self, original: pd.DataFrame | None = None, path=None, *,
               title: str = "pdanon release report", target=None, tradeoff=None, **roles):
        """The release report of this (anonymized) frame: one self-contained HTML page
        (written to ``path`` when given) with the parameters of the release, the privacy and
        utility achieved, how each quasi-identifier was published and the rows suppressed.
        Returns a :class:`pdanon.report.ReleaseReport` (``to_html()``, ``to_json()``,
        shown in Jupyter). It never holds an original cell, a seed or a key. See
        :func:`pdanon.report.build_report` and docs/report.md.

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42]})
        >>> df.anon.k_anonymize(2).anon.report(df).privacy["k"]
        2
        """
        from pdanon.report import build_report

        rep = build_report(self._df, original, title=title, target=target, tradeoff=tradeoff,
                           **roles)
        if path is not None:
            rep.save(path)
        return rep

    # ------------------------------------------------------------------ anonymizers
    def anonymize(self, model, *, method: str = "generalize", algorithm: str = "auto",
                  max_suppressed_rows=None, options: dict | None = None, hierarchies=None,
                  objective: str | None = None, seed=None, progress=None,
                  **roles) -> pd.DataFrame:
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
        >>> out["age"].astype(str).tolist(), out.anon.info["model"]
        (['[30, 31]', '[30, 31]', '[40, 42]', '[40, 42]'], 'k-anonymity + l-diversity')
        """
        from pdanon.models import PrivacyModel

        if not isinstance(model, PrivacyModel):
            raise InvalidInputError(
                f"model must be a pdanon.models.PrivacyModel (e.g. KAnonymity(5)), got "
                f"{type(model).__name__}")
        needs = model.name if model.requirements().sensitive else None
        return self._anonymize(model, method, algorithm, max_suppressed_rows, options, roles,
                               needs_sensitive=needs, hierarchies=hierarchies,
                               objective=objective, seed=seed, progress=progress)

    def k_anonymize(self, k: int, *, method: str = "generalize", algorithm: str = "auto",
                    max_suppressed_rows=None, options: dict | None = None,
                    hierarchies=None, objective: str | None = None, seed=None,
                    max_risk=None, average_risk=None, progress=None, **roles) -> pd.DataFrame:
        """Make the frame k-anonymous: every combination of quasi-identifier values is shared by
        at least ``k`` rows.

        Parameters
        ----------
        k : int
            1 <= k <= number of rows.
        method : {"generalize", "suppress", "aggregate"}
            How a group's quasi-identifier cells are recoded: ranges/sets
            (generalization dtype), NaN where the group is not constant, or the group's
            mean / median / mode.
        algorithm : {"auto", "mondrian", "nearest", "datafly", "equal_groups"}
            ``"auto"`` (default): ``"nearest"`` below ``pdanon.engine.AUTO_MONDRIAN_ROWS``
            (5,000) rows, ``"mondrian"`` from there on (``info["algorithm"]`` says which).
            ``"nearest"``: the reference's TimeOptimal grouping (first ungrouped row with its
            k-1 nearest ungrouped rows). ``"mondrian"``: LeFevre et al.'s multidimensional
            median splits, O(n log n). ``"datafly"``: Sweeney's Datafly (merge the rarest values
            of the column with most distinct values, then suppress up to
            ``max_suppressed_rows`` rows). ``"equal_groups"``: the reference's
            GeneralizationGreedyByOneEqualSizedGroups. See docs/algorithms.md.
        max_suppressed_rows : int or float, optional
            Datafly's suppression budget: a row count, or a fraction of the rows in [0, 1);
            default k - 1. The other algorithms never need to suppress and ignore it
            (``equal_groups`` rejects a non-zero budget).
        options : dict, optional
            Algorithm-specific options, e.g. ``{"unordered_split": "frequency"}`` for
            Mondrian or ``{"unordered_order": "appearance"}`` for equal_groups.
        hierarchies, objective
            ``algorithm="optimal"``: the optimal full-domain generalization over the lattice of
            hierarchy levels. ``hierarchies={column: hierarchy}`` (see
            :mod:`pdanon.hierarchy`; a quasi-identifier without one is kept or suppressed
            whole), ``objective`` one of ``"loss"`` (default), ``"precision"``,
            ``"discernibility"``, ``"entropy"``; ``max_suppressed_rows`` defaults to 0 there.
            ``out.anon.info["levels"]`` gives the chosen levels. See docs/hierarchies.md.
        seed : int or numpy Generator, optional
            For the randomized algorithms (``"group_join"`` draws the group to merge next); the
            others are deterministic and ignore it. Unseeded calls use the fixed seed 0, so the
            same call on the same frame gives the same table every run.
        max_risk : float in (0, 1], optional
            ARX's highest-risk threshold: every row's prosecutor risk 1 / class size is at most
            ``max_risk`` (:class:`pdanon.models.HighestRisk`: classes of at least
            ceil(1 / max_risk) rows), with every algorithm.
        average_risk : float in (0, 1], optional
            ARX's average-risk threshold: classes / published rows at most ``average_risk``
            (:class:`pdanon.models.AverageRisk`, a condition on the whole table: only
            ``algorithm="optimal"`` searches for it; the others refuse it). See docs/risk.md.
        progress : bool, optional
            A progress bar on standard error (or the notebook) for the partitioners that can
            run long (``group_join``, ``nearest``, ``exact``, ``optimal``): ``None`` (default)
            for long runs in a terminal or notebook when tqdm is installed
            (``pip install "pdanon[progress]"``), ``True`` always, ``False`` never. See
            :mod:`pdanon.progress`.
        **roles
            ``identifiers``, ``quasi_identifiers``, ``sensitive``, ``insensitive``.

        Returns a new frame: identifiers dropped, sensitive and insensitive cells unchanged,
        same index and row order, and no column's dtype listing a category that none of its
        cells needs (:func:`pdanon.recode.published_categories`); ``out.anon.info`` tells what
        was done (algorithm, changed cells, ``suppressed_rows`` and ``suppressed_cells``,
        groups, and in ``achieved`` the k, l or t reached by the published classes).

        Example
        -------
        >>> import pandas as pd, pdanon
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42]})
        >>> out = df.anon.k_anonymize(2, method="generalize")
        >>> out["age"].astype(str).tolist()
        ['[30, 31]', '[30, 31]', '[40, 42]', '[40, 42]']
        """
        from pdanon import models

        model = _with_risk(models.KAnonymity(k), max_risk, average_risk)
        return self._anonymize(model, method, algorithm, max_suppressed_rows, options, roles,
                               hierarchies=hierarchies, objective=objective, seed=seed,
                               progress=progress)

    def l_diversify(self, l, *, k: int = 1, variant: str = "distinct", c: float | None = None,
                    method: str = "generalize", algorithm: str = "auto",
                    max_suppressed_rows=None, options: dict | None = None,
                    hierarchies=None, objective: str | None = None, seed=None,
                    max_risk=None, average_risk=None, progress=None, **roles) -> pd.DataFrame:
        """Make every equivalence class l-diverse in every sensitive column (and k-anonymous).

        Parameters
        ----------
        l : int (float for ``variant="entropy"``)
            ``"distinct"``: at least l distinct sensitive values per class; ``"entropy"``:
            class entropy >= log(l); ``"recursive"``: recursive (c, l)-diversity,
            r1 < c·(r_l + ... + r_m) (needs ``c``).
        k : int
            Also require k-anonymity (default 1: none beyond l-diversity).
        method, algorithm, max_suppressed_rows, options, hierarchies, objective, seed, max_risk,
        average_risk, progress
            As in :meth:`k_anonymize`. ``"nearest"`` supports the distinct variant only (each
            group grows until it has k rows and l distinct values); ``"auto"`` picks Mondrian
            for the other variants.
        **roles
            Role keywords; at least one sensitive column is needed.

        Raises :class:`~pdanon.InfeasibleError` before any work when the whole table is not
        l-diverse (e.g. fewer than l distinct sensitive values).

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42], "d": ["flu", "hiv", "flu", "cold"]})
        >>> out = df.anon.l_diversify(2, sensitive=["d"])
        >>> out.anon.l_diversity()
        2
        """
        from pdanon import models
        from pdanon.models import LDiversity

        model = _with_risk(models.AllOf(models.KAnonymity(k), LDiversity(l, variant=variant, c=c)),
                           max_risk, average_risk)
        return self._anonymize(model, method, algorithm, max_suppressed_rows, options, roles,
                               needs_sensitive="l-diversity", hierarchies=hierarchies,
                               objective=objective, seed=seed, progress=progress)

    def t_close(self, t: float, *, k: int = 1, distance: str = "emd", method: str = "generalize",
                algorithm: str = "auto", max_suppressed_rows=None, options: dict | None = None,
                hierarchies=None, objective: str | None = None, seed=None, progress=None,
                max_risk=None, average_risk=None, **roles) -> pd.DataFrame:
        """Make every equivalence class t-close: in every sensitive column the distance between
        the class's distribution and the whole table's is at most ``t`` (and k-anonymous).

        Parameters
        ----------
        t : float
            >= 0.
        k : int
            Also require k-anonymity (default 1).
        distance : str
            ``"emd"`` (default; Li et al. 2007: total variation for unordered, ordered-distance
            EMD for ordered/real), ``"hierarchical"`` (with ``hierarchies``),
            ``"jensen_shannon"``, ``"wasserstein"``, ``"reference"`` (cp2025's
            ``find_t_close``). See :func:`pdanon.models.t_closeness`.
        hierarchies : {column: hierarchy}, optional
            Hierarchies of sensitive columns drive ``distance="hierarchical"``; those of
            quasi-identifiers drive ``algorithm="optimal"`` (as in :meth:`k_anonymize`).
        method, algorithm, max_suppressed_rows, options, objective, seed, max_risk,
        average_risk, progress
            As in :meth:`k_anonymize`; ``"auto"`` and ``"nearest"``: t-closeness needs
            ``"mondrian"``, ``"datafly"`` or ``"equal_groups"`` (auto picks Mondrian).
        **roles
            Role keywords; at least one sensitive column is needed.

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42], "d": ["a", "b", "a", "b"]})
        >>> out = df.anon.t_close(0.2, sensitive=["d"])
        >>> out.anon.t_closeness() <= 0.2
        True
        """
        from pdanon import models
        from pdanon.models import TCloseness

        sensitive_h, qi_h = _split_hierarchies(hierarchies, self.roles(**_pick_roles(roles)))
        model = _with_risk(models.AllOf(models.KAnonymity(k),
                                        TCloseness(t, distance=distance, hierarchies=sensitive_h)),
                           max_risk, average_risk)
        return self._anonymize(model, method, algorithm, max_suppressed_rows, options, roles,
                               needs_sensitive="t-closeness", hierarchies=qi_h,
                               objective=objective, seed=seed, progress=progress)

    def _anonymize(self, model, method, algorithm, max_suppressed_rows, options, roles,
                   needs_sensitive: str | None = None, hierarchies=None,
                   objective: str | None = None, seed=None, progress=None) -> pd.DataFrame:
        from pdanon import engine

        r = self.roles(**_pick_roles(roles))
        _no_extra(roles)
        if needs_sensitive and not r.sensitive:
            raise InvalidInputError(
                f"{needs_sensitive} needs at least one sensitive column: pass sensitive=[...] "
                f"(or {{column: kind}}), or give the frame roles with df.anon.with_schema(...)"
            )
        extra = dict(options or {})
        if max_suppressed_rows is not None:
            extra["max_suppressed_rows"] = max_suppressed_rows
        if hierarchies:
            extra["hierarchies"] = hierarchies
        if objective is not None:
            extra["objective"] = objective
        if seed is not None:
            extra["seed"] = seed
        out, info = engine.anonymize(self._df, r, model=model, method=method,
                                     algorithm=algorithm, progress=progress, **extra)
        return self._result(out, r.restricted_to(out.columns), info)

    def explain(self, original: pd.DataFrame, *, model=None) -> pd.DataFrame:
        """Per row of ``original`` (the frame that was anonymized into this one): its published
        class (``class_id``, ``class_size``), the quasi-identifiers ``generalized``,
        ``aggregated`` or ``suppressed``, ``row_suppressed``, and the ``reason`` (``"k"``,
        ``"l"``, ``"t"``: its original combination violated them; ``"global recoding"``,
        ``"grouping"``, ``"suppression"``: it was safe but changed with others; missing:
        unchanged). ``original`` is needed because ``info`` keeps no original value;
        ``model`` defaults to the one ``info`` records (k, l, t; k for the output of
        ``microaggregate`` and ``local_suppression``). See :mod:`pdanon.explain`.

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 31, 40, 40]})
        >>> df.anon.k_anonymize(2, algorithm="mondrian").anon.explain(df)["reason"].tolist()
        ['k', 'k', nan, nan]
        """
        from pdanon.explain import explain

        return explain(self._df, original, info=self.info, model=model,
                       sensitive=dict(self.roles().sensitive))

    # ---- hierarchies
    def generalize(self, levels: dict, *, hierarchies: dict, labels: bool = False,
                   **roles) -> pd.DataFrame:
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
        **roles
            Role keywords; they only decide each column's kind (inferred otherwise).

        Returns a new frame (the input is untouched) with every column kept, each Categorical
        or generalized column listing only the categories its cells need
        (:func:`pdanon.recode.published_categories`); ``out.anon.info["levels"]`` records the
        levels applied.

        Example
        -------
        >>> from pdanon.hierarchy import intervals, masking
        >>> df = pd.DataFrame({"zip": ["10001", "10002"], "age": [23, 37]})
        >>> out = df.anon.generalize({"zip": 2, "age": 1},
        ...                          hierarchies={"zip": masking(), "age": intervals([10])})
        >>> out["age"].astype(str).tolist(), out["zip"].astype(str).tolist()
        (['[20, 29]', '[30, 39]'], ['{10001, 10002}', '{10001, 10002}'])
        >>> labelled = df.anon.generalize({"zip": 2}, hierarchies={"zip": masking()}, labels=True)
        >>> labelled["zip"].tolist()
        ['100**', '100**']
        """
        from pdanon import hierarchy as _hierarchy

        r = self.roles(**_pick_roles(roles))
        _no_extra(roles)
        df = self._df
        kinds = {}
        for c in (levels or {}):
            if c in df.columns:
                kinds[c] = (r.quasi_identifiers.get(c) or r.sensitive.get(c)
                            or _roles.infer_kind(df[c]))
        out, info = _hierarchy.generalize_frame(df, levels, hierarchies, kinds, labels=labels)
        info = {"algorithm": "generalize", **info}
        return self._result(out, r, info)



def _with_risk(model, max_risk, average_risk):
    """``model`` and, when asked, ARX's highest-risk / average-risk thresholds."""
    from pdanon import models

    extra = [models.HighestRisk(max_risk)] if max_risk is not None else []
    if average_risk is not None:
        extra.append(models.AverageRisk(average_risk))
    return models.AllOf(model, *extra) if extra else model


def _split_hierarchies(hierarchies, r):
    """``t_close(hierarchies=...)``: sensitive columns' hierarchies go to the t-closeness
    distance, the others (quasi-identifiers) to the generalization algorithm."""
    if not hierarchies:
        return None, None
    sens = {c: h for c, h in hierarchies.items() if c in r.sensitive}
    rest = {c: h for c, h in hierarchies.items() if c not in r.sensitive}
    return sens or None, rest or None


def _pick_roles(kwargs: dict) -> dict:
    return {k: kwargs[k] for k in ROLE_KEYWORDS if k in kwargs}


def _no_extra(kwargs: dict) -> None:
    extra = [k for k in kwargs if k not in ROLE_KEYWORDS]
    if extra:
        raise TypeError(
            f"unexpected keyword argument(s) {extra}; role keywords are {list(ROLE_KEYWORDS)}"
        )
    qis = kwargs.get("quasi_identifiers")
    if qis is not None and not isinstance(qis, (str, int)) and len(qis) == 0:
        raise InvalidInputError("quasi_identifiers is empty: name at least one column")
