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

_KEY = _roles.ATTRS_KEY
ROLE_KEYWORDS = ("identifiers", "quasi_identifiers", "sensitive", "insensitive")


@pd.api.extensions.register_dataframe_accessor("anon")
class AnonAccessor:
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
                risk: bool = False, population: pd.DataFrame | None = None,
                sampling_fraction=None, threshold: float = 0.2, **roles) -> pd.DataFrame:
        """Risk and utility figures of this (anonymized) frame as a tidy table with columns
        ``metric``, ``value``, ``better`` ("higher"/"lower": safer for risk rows, more useful
        for utility rows) and ``meaning``.

        Without ``original`` only the metrics that need no original are reported (k, l, t,
        adversarial gains, class sizes, distinctness, entropy). With ``original`` (the frame
        before anonymization, same index) also the changed proportion, entropy information
        loss and by-element distance; ``ml=True`` adds the gradient-boosting linkage attack
        and, with ``target=<column>``, the gradient-boosting utility ratio (seeded by
        ``random_state``; ``n_threads`` limits scikit-learn's threads).
        ``missing="wildcard"`` measures k with a missing quasi-identifier cell matching any
        value and leaves out the rows measured on equivalence classes. ``risk=True`` (implied
        by ``population=`` or ``sampling_fraction=``) adds the record-level risk rows of
        :meth:`risk_summary` (threshold ``threshold``). See :mod:`pdanon.metrics`.

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

    # ---- record-level risk (metrics.reidentification) and SUDA (metrics.special_uniques)
    def risk(self, *, population: pd.DataFrame | None = None, sampling_fraction=None,
             missing: str = "value", **roles) -> pd.DataFrame:
        """Per-row re-identification risk, indexed like the frame: ``class_id``,
        ``class_size``, ``prosecutor`` (1 / class size) and, with ``population=<table>`` (exact)
        or ``sampling_fraction=p`` (estimate), ``journalist`` (1 / population class size). See
        :func:`pdanon.metrics.record_risk` and docs/risk.md.

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 30, 40]})
        >>> df.anon.risk()["prosecutor"].tolist()
        [0.5, 0.5, 1.0]
        """
        from pdanon.metrics.reidentification import record_risk

        return record_risk(self._df, self._measured_roles(roles).quasi_identifiers,
                           population=population, sampling_fraction=sampling_fraction,
                           missing=missing)

    def risk_summary(self, *, population: pd.DataFrame | None = None, sampling_fraction=None,
                     threshold: float = 0.2, missing: str = "value", **roles) -> pd.Series:
        """Highest, average and median prosecutor risk, share of records at risk (prosecutor
        risk above ``threshold``), marketer risk, share of sample uniques, and the journalist
        figures when a population is described. See :func:`pdanon.metrics.risk_summary`.

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 30, 40, 40]})
        >>> float(df.anon.risk_summary()["highest_prosecutor"])
        0.5
        """
        from pdanon.metrics.reidentification import risk_summary

        return risk_summary(self._df, self._measured_roles(roles).quasi_identifiers,
                            population=population, sampling_fraction=sampling_fraction,
                            threshold=threshold, missing=missing)

    def suda(self, max_size: int | None = None, *, dis_fraction: float = 0.01,
             missing: str = "value", **roles) -> pd.DataFrame:
        """Minimal sample uniques (MSUs) of every row up to ``max_size`` attributes (default:
        all quasi-identifiers): ``msu_count``, ``msu_min_size`` (0: none), ``suda_score`` and
        ``dis_suda`` (sampling fraction ``dis_fraction``). See :func:`pdanon.metrics.suda`.

        Example
        -------
        >>> df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
        >>> df.anon.suda()["msu_count"].tolist()
        [1, 2, 2]
        """
        from pdanon.metrics.special_uniques import suda

        return suda(self._df, self._measured_roles(roles).quasi_identifiers,
                    max_size=max_size, dis_fraction=dis_fraction, missing=missing)

    def suda_contributions(self, max_size: int | None = None, *, total: bool = False,
                           missing: str = "value", **roles):
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
                                  max_size=max_size, total=total, missing=missing)

    # ------------------------------------------------------------------ anonymizers
    def anonymize(self, model, *, method: str = "generalize", algorithm: str = "auto",
                  max_suppressed_rows=None, options: dict | None = None, hierarchies=None,
                  objective: str | None = None, seed=None, **roles) -> pd.DataFrame:
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
                               objective=objective, seed=seed)

    def k_anonymize(self, k: int, *, method: str = "generalize", algorithm: str = "auto",
                    max_suppressed_rows=None, options: dict | None = None,
                    hierarchies=None, objective: str | None = None, seed=None,
                    **roles) -> pd.DataFrame:
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

        return self._anonymize(models.KAnonymity(k), method, algorithm, max_suppressed_rows,
                               options, roles, hierarchies=hierarchies, objective=objective,
                               seed=seed)

    def l_diversify(self, l, *, k: int = 1, variant: str = "distinct", c: float | None = None,
                    method: str = "generalize", algorithm: str = "auto",
                    max_suppressed_rows=None, options: dict | None = None,
                    hierarchies=None, objective: str | None = None, seed=None,
                    **roles) -> pd.DataFrame:
        """Make every equivalence class l-diverse in every sensitive column (and k-anonymous).

        Parameters
        ----------
        l : int (float for ``variant="entropy"``)
            ``"distinct"``: at least l distinct sensitive values per class; ``"entropy"``:
            class entropy >= log(l); ``"recursive"``: recursive (c, l)-diversity,
            r1 < c·(r_l + ... + r_m) (needs ``c``).
        k : int
            Also require k-anonymity (default 1: none beyond l-diversity).
        method, algorithm, max_suppressed_rows, options, hierarchies, objective, seed
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

        model = models.AllOf(models.KAnonymity(k), LDiversity(l, variant=variant, c=c))
        return self._anonymize(model, method, algorithm, max_suppressed_rows, options, roles,
                               needs_sensitive="l-diversity", hierarchies=hierarchies,
                               objective=objective, seed=seed)

    def t_close(self, t: float, *, k: int = 1, distance: str = "emd", method: str = "generalize",
                algorithm: str = "auto", max_suppressed_rows=None, options: dict | None = None,
                hierarchies=None, objective: str | None = None, seed=None,
                **roles) -> pd.DataFrame:
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
        method, algorithm, max_suppressed_rows, options, objective, seed
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
        model = models.AllOf(models.KAnonymity(k),
                             TCloseness(t, distance=distance, hierarchies=sensitive_h))
        return self._anonymize(model, method, algorithm, max_suppressed_rows, options, roles,
                               needs_sensitive="t-closeness", hierarchies=qi_h,
                               objective=objective, seed=seed)

    def _anonymize(self, model, method, algorithm, max_suppressed_rows, options, roles,
                   needs_sensitive: str | None = None, hierarchies=None,
                   objective: str | None = None, seed=None) -> pd.DataFrame:
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
                                     algorithm=algorithm, **extra)
        return self._result(out, r.restricted_to(out.columns), info)

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

    # ---- perturbation
    def shuffle(self, columns=None, *, within=None, seed=None, keep_identifiers: bool = False,
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
        >>> sorted(out["disease"][:2]), sorted(out["disease"][2:])
        (['flu', 'gout'], ['flu', 'hiv'])
        """
        from pdanon import perturb

        out, r, info = perturb.shuffle_by_roles(self._df, self.roles(**roles), columns,
                                                within=within, seed=seed,
                                                keep_identifiers=keep_identifiers)
        return self._result(out, r, info)

    def randomize(self, columns=None, *, scale: float = 1.0, low=None, high=None, noise=None,
                  seed=None, clip: bool = True, keep_identifiers: bool = False,
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

        out, r, info = perturb.randomize_by_roles(self._df, self.roles(**roles), columns,
                                                  scale=scale, low=low, high=high, noise=noise,
                                                  seed=seed, clip=clip,
                                                  keep_identifiers=keep_identifiers)
        return self._result(out, r, info)

    def microaggregate(self, k: int, *, columns=None, method: str = "mdav", gamma=None,
                       block_size="auto", keep_identifiers: bool = False,
                       **roles) -> pd.DataFrame:
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

        ``info`` reports the groups, their sizes, the achieved k-anonymity of the
        microaggregated columns, SSE/SST and IL1s.

        Example
        -------
        >>> df = pd.DataFrame({"age": [20, 21, 22, 50, 52, 54], "income": [1, 2, 3, 7, 8, 9]})
        >>> out = df.anon.microaggregate(3)
        >>> out["age"].tolist(), out.anon.info["k_anonymity"]
        ([21.0, 21.0, 21.0, 52.0, 52.0, 52.0], 3)
        """
        from pdanon import perturb

        out, r, info = perturb.microaggregate_by_roles(
            self._df, self.roles(**roles), k, columns=columns, method=method, gamma=gamma,
            block_size=block_size, keep_identifiers=keep_identifiers)
        return self._result(out, r, info)

    def pram(self, columns, *, matrix=None, p: float = 0.8, invariant: bool = True, seed=None,
             keep_identifiers: bool = False, **roles) -> pd.DataFrame:
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
            the other categories uniformly (default 0.8).
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

        out, r, info = perturb.pram_by_roles(self._df, self.roles(**roles), columns,
                                             matrix=matrix, p=p, invariant=invariant,
                                             seed=seed, keep_identifiers=keep_identifiers)
        return self._result(out, r, info)

    def top_code(self, columns, *, threshold=None, quantile=None, value=None,
                 keep_identifiers: bool = False, **roles) -> pd.DataFrame:
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
        >>> df.anon.top_code("income", threshold=100)["income"].tolist()
        [20, 35, 50, 100]
        """
        from pdanon import perturb

        out, r, info = perturb.code_by_roles(self._df, self.roles(**roles), columns, "top",
                                             threshold=threshold, quantile=quantile,
                                             value=value, keep_identifiers=keep_identifiers)
        return self._result(out, r, info)

    def bottom_code(self, columns, *, threshold=None, quantile=None, value=None,
                    keep_identifiers: bool = False, **roles) -> pd.DataFrame:
        """Bottom coding: values below ``threshold`` (or below the ``quantile`` of the
        column's values) become ``value`` (default: the threshold). Options as
        :meth:`top_code`.

        Example
        -------
        >>> df = pd.DataFrame({"age": [3, 17, 40, 71]})
        >>> out = df.anon.bottom_code("age", threshold=18, value=0)
        >>> out["age"].tolist(), out.anon.info["cells_changed"]
        ([0, 0, 40, 71], 2)
        """
        from pdanon import perturb

        out, r, info = perturb.code_by_roles(self._df, self.roles(**roles), columns, "bottom",
                                             threshold=threshold, quantile=quantile,
                                             value=value, keep_identifiers=keep_identifiers)
        return self._result(out, r, info)

    def rank_swap(self, columns, *, p: float = 5.0, seed=None, keep_identifiers: bool = False,
                  **roles) -> pd.DataFrame:
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
        seed : int, optional
            Reproducible results; without it the randomness comes from :mod:`secrets`.
        keep_identifiers : bool
            Identifier columns are dropped unless True.

        Values only move between non-missing cells of the same column (missing cells, the
        column's values and its dtype are kept).

        Example
        -------
        >>> df = pd.DataFrame({"income": [100.0 * i for i in range(100)]})
        >>> out = df.anon.rank_swap("income", p=2, seed=0)
        >>> float((out["income"] - df["income"]).abs().max()) <= 200, sorted(out["income"]) == sorted(df["income"])
        (True, True)
        """
        from pdanon import perturb

        out, r, info = perturb.rank_swap_by_roles(self._df, self.roles(**roles), columns, p=p,
                                                  seed=seed, keep_identifiers=keep_identifiers)
        return self._result(out, r, info)

    def add_noise(self, columns, *, method: str = "additive", noise: float = 0.1, seed=None,
                  keep_identifiers: bool = False, **roles) -> pd.DataFrame:
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

        out, r, info = perturb.add_noise_by_roles(self._df, self.roles(**roles), columns,
                                                  method=method, noise=noise, seed=seed,
                                                  keep_identifiers=keep_identifiers)
        return self._result(out, r, info)

    def local_suppression(self, k: int, *, importance=None, keep_identifiers: bool = False,
                          **roles) -> pd.DataFrame:
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

        Numpy integer and boolean columns with a suppressed cell become nullable
        (``Int64``/``boolean``). ``info`` gives the cells suppressed (total and per column),
        the rows changed and the achieved k.

        Example
        -------
        >>> df = pd.DataFrame({"sex": ["F", "F", "M", "M", "M"], "zip": ["1", "1", "1", "2", "2"]})
        >>> out = df.anon.local_suppression(2)
        >>> out["zip"].fillna("*").tolist(), out.anon.k_anonymity(missing="wildcard")
        (['1', '1', '*', '2', '2'], 2)
        """
        from pdanon import perturb

        out, r, info = perturb.local_suppression_by_roles(
            self._df, self.roles(**roles), k, importance=importance,
            keep_identifiers=keep_identifiers)
        return self._result(out, r, info)

    def hash_identifiers(self, columns=None, *, key=None, context=None,
                         **roles) -> pd.DataFrame:
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
        >>> len(out["phone"][0]), out["phone"].isna().tolist(), out.anon.info["key"].nbytes
        (64, [False, True], 32)
        >>> two = pd.DataFrame({"home": ["+7900"], "work": ["+7900"]})
        >>> sep = two.anon.hash_identifiers(key=b"0" * 32, context="column",
        ...                                 identifiers=["home", "work"])
        >>> sep["home"][0] == sep["work"][0]
        False
        """
        from pdanon import perturb

        out, r, info = perturb.hash_by_roles(self._df, self.roles(**roles), columns, key=key,
                                             context=context)
        return self._result(out, r, info)

    def drop_identifiers(self, **roles) -> pd.DataFrame:
        """The frame without its identifier columns.

        Example
        -------
        >>> df = pd.DataFrame({"name": ["Ann", "Bob"], "age": [30, 40]})
        >>> list(df.anon.drop_identifiers(identifiers=["name"]).columns)
        ['age']
        """
        from pdanon import perturb

        out, r, info = perturb.drop_identifiers_by_roles(self._df, self.roles(**roles))
        return self._result(out, r, info)


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
