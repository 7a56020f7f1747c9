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
import dataclasses
import importlib

import numpy as np
import pandas as pd

_roles = importlib.import_module("pdanon.roles")
from pdanon._errors import InvalidInputError
from pdanon.accessor.anonymize import AnonymizeMethods
from pdanon.accessor.dp import DPMethods
from pdanon.accessor.perturb import PerturbationMethods
from pdanon.accessor.risk import RiskMethods
from pdanon.accessor.tables import TableMethods

_KEY = _roles.ATTRS_KEY
from pdanon.keywords import ROLE_KEYWORDS, checked  # noqa: F401 (ROLE_KEYWORDS: public)


def _plain_cells(series: pd.Series) -> np.ndarray:
    """Cells that show one value (not missing, not a range or set)."""
    from pdanon.dtype import GeneralizationDtype

    present = series.notna().to_numpy()
    if isinstance(series.dtype, GeneralizationDtype):
        return present & np.asarray(series.array.is_plain, dtype=bool)
    return present


def _chained_counts(before: pd.DataFrame, out: pd.DataFrame, qi, earlier: dict,
                    info: dict) -> dict:
    """``info`` of a step that ran on an earlier pdanon step's output, with the counts taken
    against the original table, as the earlier step's were: the rows and cells suppressed
    (the earlier step's plus this one's, which counts only cells its input still showed),
    and the changed cells (the earlier step's plus the cells this step changed among those
    its input still held as they were, plain; a cell already generalized is not counted
    twice). After a step that changes cells into other single values (microaggregation,
    noise, swapping) a changed cell cannot be told from an original one, so the count is an
    upper bound, never above the table's cells. Without this a chained step reported 0
    suppressed rows and a check without the original passed a suppression limit the release
    breaks."""
    from pdanon.dtype import GeneralizationDtype

    out_info = dict(info)
    for key in ("suppressed_rows", "suppressed_cells"):
        if key in earlier and key in info:
            out_info[key] = int(earlier[key]) + int(info[key])
    if "changed_cells" in earlier and "changed_cells" in info:
        newly = 0
        for c in qi:
            if c not in before.columns or c not in out.columns:
                continue
            was = _plain_cells(before[c])
            if isinstance(out[c].dtype, GeneralizationDtype):
                kept = _plain_cells(out[c])  # truthful: a plain cell keeps its value
            else:
                a, b = before[c].to_numpy(dtype=object), out[c].to_numpy(dtype=object)
                kept = out[c].notna().to_numpy() & (a == b)
            newly += int((was & ~kept).sum())
        total = int(earlier["changed_cells"]) + newly
        if earlier.get("method") == "aggregate" or earlier.get("operation") in _PLAIN_CHANGING:
            # the earlier step changed cells that still show one value (a group's mean, a
            # noised value): some counted twice; no more cells than the table holds changed
            shown = [c for c in qi if c in out.columns and c in before.columns
                     and (out[c].notna().any() or before[c].notna().any())]
            cells = len(out) * len(shown)  # a column missing throughout changes no cell
            total = min(total, cells)
        out_info["changed_cells"] = total
    return out_info


#: steps that change a cell into another single value (the others generalize or blank it)
_PLAIN_CHANGING = ("microaggregate", "add_noise", "randomize", "rank_swap", "pram", "shuffle",
                   "top_code", "bottom_code")


@pd.api.extensions.register_dataframe_accessor("anon")
class AnonAccessor(AnonymizeMethods, DPMethods, RiskMethods, PerturbationMethods, TableMethods):
    """De-identification methods on a DataFrame (``df.anon``).

    Role keywords accepted by every method: ``identifiers=[...]``,
    ``quasi_identifiers=[...] or {col: kind}``, ``sensitive=[...] or {col: kind}``,
    ``insensitive=[...]``.
    """

    def __init__(self, df: pd.DataFrame):
        self._df = df

    # ------------------------------------------------------------------ roles and state
    @checked
    def roles(self, **roles) -> _roles.Roles:
        """The roles every anonymizer and perturbation uses (see
        :func:`pdanon.roles.resolve_roles`): keywords, then roles remembered by the frame, then
        inferred ones, each inferred column examined first — one that looks like it identifies
        people is refused (:class:`pdanon.RoleError`), and a :class:`pdanon.RoleWarning` lists
        the roles chosen."""
        return _roles.resolve_roles(self._df, **roles)

    def _roles_for(self, columns, roles: dict, generalized: bool = False) -> _roles.Roles:
        """:meth:`roles` for a perturbation of ``columns``: naming a column to perturb is a
        decision, so those columns are not examined as undecided ones. ``generalized``: the
        perturbation publishes the quasi-identifiers aggregated (microaggregation), not as
        they are."""
        if columns is None:
            named = ()
        elif isinstance(columns, (str, int)) or isinstance(columns, tuple) and (
                columns in set(self._df.columns)):
            named = (columns,)
        else:
            named = tuple(columns)
        return _roles.resolve_roles(self._df, decided=named, generalized=generalized, **roles)

    def _measured_roles(self, roles: dict) -> _roles.Roles:
        """Roles for the metrics: a column that looks like an identifier stays a
        quasi-identifier (a metric never changes the quasi-identifiers silently), with a
        :class:`pdanon.RoleWarning`."""
        return _roles.resolve_roles(self._df, screen="warn", **roles)

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
        import pandera.errors

        from pdanon.dtype import schema_checks

        keywords = _roles.roles_from_schema(schema)
        try:
            validated = schema.validate(self._df, lazy=True)
        except (pandera.errors.SchemaErrors, pandera.errors.SchemaError) as e:
            raise schema_checks.summarize(e, self._df, schema_checks.kinds_of(schema)) from None
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
    def _result(self, out: pd.DataFrame, roles: _roles.Roles, info: dict, *,
                row_order: str = "random") -> pd.DataFrame:
        """Attach roles and info to a new frame (one the face owns, rows in the input's
        order) and return it as the face publishes it: rows in a random order under a fresh
        index, the way back publisher-only (:func:`pdanon.checks.row_order.publish_order`), unless
        ``row_order="input"``. A quasi-identifier published as hierarchy labels
        (``labels=True``) is recorded with the kind its labels have (ordered labels of a real
        column are ``ordered``), so the release is measured, reported and read back as what
        it holds.

        The published-categories rule is applied here, once for every face that returns a
        release (the anonymizers, ``generalize``, the perturbations, ``apply_recoding``,
        ``dp_anonymize``): every Categorical and generalization dtype lists only the values
        some published cell shows (:func:`pdanon.recode.publish_frame`), so the categories of
        withheld, suppressed or PRAM-moved values leave no trace in the dtype or a file."""
        from pdanon.publisher_only import refuse_explanation
        from pdanon.recode import publish_frame
        from pdanon.checks.row_order import check_row_order, publish_order

        check_row_order(row_order)
        refuse_explanation(out, "publishing")  # a release never carries an explanation
        publish_frame(out)
        roles = roles.restricted_to(out.columns)
        if info.get("labels") or info.get("algorithm") == "safepub":  # safepub shows labels
            from pdanon.hierarchy.levels import labelled_kinds

            kinds = labelled_kinds(out, roles)
            if kinds:
                roles = dataclasses.replace(roles, quasi_identifiers={
                    c: kinds.get(c, k) for c, k in roles.quasi_identifiers.items()})
        earlier = self._df.attrs.get(_KEY, {}).get("info") or {}
        if "dp" not in earlier:
            info = _chained_counts(self._df, out, roles.qi, earlier, info)
        if "dp" in earlier and "dp" not in info:
            # a step after a differentially private release is post-processing: the release
            # keeps its accounting, and its rows still are a shuffled sample of the input's
            info = {**info, "dp": earlier["dp"], "rows_match_input": False}
        out.attrs = {**_roles.foreign_attrs(self._df.attrs),
                     _KEY: {"roles": roles.to_dict(), "info": info}}
        return publish_order(self._df, out, row_order=row_order)

    # ------------------------------------------------------------------ privacy levels
    @checked
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

    def _missing(self, missing: str | None) -> str:
        """``missing``, or the rule the release was made under (``info["missing"]``), else
        ``"value"``: every default measure reads a release as its anonymizer did."""
        if missing is not None:
            return missing
        return (self._df.attrs.get(_KEY, {}).get("info") or {}).get("missing", "value")

    def _missing_sensitive(self, given: str | None, prefer: str) -> str:
        """``given``, or the ``missing_sensitive`` rule the release's model ``prefer`` (else
        another sensitive model) was verified under (``info["models"]``), else
        ``"unknown"``: a default measure reads missing sensitive cells as the anonymizer did."""
        from pdanon.models.base import check_missing_sensitive
        from pdanon.models.record import recorded_rule

        if given is None:
            info = self._df.attrs.get(_KEY, {}).get("info") or {}
            given = recorded_rule(info, prefer) or "unknown"
        return check_missing_sensitive(given)

    @checked
    def frequencies(self, *, missing: str | None = None, **roles) -> pd.Series:
        """How many rows share every row's quasi-identifiers (sdcMicro's ``fk``), indexed like
        the frame. ``missing="value"``: a missing cell is a value of its own (the size of the
        row's equivalence class); ``missing="wildcard"``: a missing cell matches any value;
        default (``None``) the rule the release was made under (``info["missing"]``: wildcards
        for local suppression), else ``"value"``. See :func:`pdanon.metrics.frequencies`.

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 30, None], "sex": ["F", None, "F"]})
        >>> df.anon.frequencies(missing="wildcard").tolist()
        [3, 3, 3]
        """
        from pdanon.metrics.risk import frequencies

        r = self._measured_roles(roles)
        return frequencies(self._df, r.quasi_identifiers, missing=self._missing(missing))

    @checked
    def k_anonymity(self, *, missing: str | None = None, **roles) -> int:
        """The largest k for which the frame is k-anonymous: the smallest class size (0 when
        the frame is empty). ``missing="wildcard"``: the smallest :meth:`frequencies` with a
        missing cell matching any value; default: the release's rule, as :meth:`frequencies`.

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
        return models.k_anonymity(self._df, r.qi, missing=self._missing(missing))

    # ---- privacy levels and metrics
    def _sensitive_roles(self, roles: dict, what: str):
        r = self._measured_roles(roles)
        if not r.sensitive:
            raise InvalidInputError(
                f"{what} needs at least one sensitive column: pass sensitive=[...] (or "
                f"{{column: kind}}), or give the frame roles with df.anon.with_schema(...)"
            )
        return r

    @checked
    def l_diversity(self, *, variant: str = "distinct", c: float | None = None,
                    missing: str = "value", missing_sensitive: str | None = None, **roles):
        """The l the frame achieves: the smallest, over equivalence classes and sensitive
        columns, of the number of distinct sensitive values (``variant="distinct"``, int),
        ``exp(entropy)`` (``"entropy"``, float) or the largest l of recursive
        (c, l)-diversity (``"recursive"``, needs ``c``). ``missing_sensitive``: how a
        missing sensitive cell is read, ``"unknown"`` (no value: known values only) or
        ``"value"`` (one more value); default: the rule the release was made under
        (``info["models"]``), else ``"unknown"``. ``missing`` is ``"value"`` only
        (``"wildcard"`` forms no classes). See :func:`pdanon.models.l_diversity`.

        Example
        -------
        >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "c"]})
        >>> df.anon.l_diversity(quasi_identifiers=["zip"], sensitive=["d"])
        2
        >>> df.loc[1, "d"] = None  # class 1: a and a blank
        >>> df.anon.l_diversity(quasi_identifiers=["zip"], sensitive=["d"])
        1
        """
        from pdanon import models

        r = self._sensitive_roles(roles, "l-diversity")
        return models.l_diversity(self._df, r.qi, r.sensitive, variant=variant, c=c,
                                  missing=missing, missing_sensitive=self._missing_sensitive(
                                      missing_sensitive, "LDiversity"))

    @checked
    def t_closeness(self, *, distance: str = "emd", hierarchies=None, missing: str = "value",
                    missing_sensitive: str | None = None, **roles) -> float:
        """The smallest t for which the frame is t-close: the largest distance between a
        class's distribution of a sensitive column and the whole table's. ``distance``:
        ``"emd"`` (default), ``"hierarchical"`` (with ``hierarchies={column: ...}``),
        ``"jensen_shannon"``, ``"wasserstein"``, ``"reference"``. ``missing_sensitive``:
        ``"unknown"`` (known values against the table's known values) or ``"value"``
        (missing is one value, after the largest for the ordered EMD); default: the
        release's rule, else ``"unknown"``. ``missing`` is ``"value"`` only. See
        :func:`pdanon.models.t_closeness`.

        Example
        -------
        >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
        >>> df.anon.t_closeness(quasi_identifiers=["zip"], sensitive=["d"])
        0.25
        """
        from pdanon import models

        r = self._sensitive_roles(roles, "t-closeness")
        return models.t_closeness(self._df, r.qi, r.sensitive, distance=distance,
                                  hierarchies=hierarchies, missing=missing,
                                  missing_sensitive=self._missing_sensitive(
                                      missing_sensitive, "TCloseness"))

    @checked
    def metrics(self, original: pd.DataFrame | None = None, *, target=None, ml: bool = False,
                random_state: int = 0, n_threads: int | None = None,
                missing: str | None = None, risk: bool = True, population: pd.DataFrame | None = None,
                sampling_fraction=None, weights=None, household=None,
                threshold: float = 0.2, progress=None, **roles) -> pd.DataFrame:
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
        value and leaves out the rows measured on equivalence classes (default: the release's
        rule, as :meth:`frequencies`). The record-level risk rows
        of :meth:`risk_summary` (threshold ``threshold``; journalist rows with ``population=``
        or ``sampling_fraction=``; the global risk and expected re-identifications with
        ``weights=<column>``, household figures with ``household=<column>``) are shown unless
        ``risk=False``. ``progress``: a bar over the machine-learning models (``None``: when
        they last, in a terminal or notebook; see :mod:`pdanon.progress`). See
        :mod:`pdanon.metrics`.

        Example
        -------
        >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
        >>> m = df.anon.metrics(quasi_identifiers=["zip"], sensitive=["d"])
        >>> float(m.set_index("metric").loc["t_closeness_emd", "value"])
        0.25
        """
        from pdanon import progress as _progress
        from pdanon.metrics.survey import survey_roles
        from pdanon.metrics.report import metrics_table

        r = self._measured_roles(survey_roles(roles, weights, household, frame=self._df))
        with _progress.setting(progress):
            return metrics_table(self._df, original, quasi_identifiers=r.quasi_identifiers,
                                 sensitive=r.sensitive, target=target, ml=ml,
                                 random_state=random_state, n_threads=n_threads,
                                 missing=self._missing(missing), risk=risk,
                                 population=population,
                                 sampling_fraction=sampling_fraction, weights=weights,
                                 household=household, threshold=threshold)

    @checked
    def check(self, policy=None, *, original: pd.DataFrame | None = None, household=None,
              weights=None, control: pd.DataFrame | None = None, n_attacks=None, seed=None,
              earlier=None, keys=None, **roles):
        """Check this release against a :class:`pdanon.Policy` (default: the release's own
        request, from ``info["models"]``): a :class:`pdanon.checks.policy.CheckResult` with
        ``passed``, one row per criterion (measured value, threshold, passed, meaning) and the
        hazards seen (a class whose members share a sensitive value, sample uniques, a high
        share of suppressed rows, a nearly unique sensitive column). Usable in an ETL script
        (``if not out.anon.check(policy): ...``). ``household``: a column whose rows belong
        together (default: the one the release records), measured as the criterion
        ``household_k`` (:mod:`pdanon.screening.households`). ``weights``: the column of sampling
        weights read by the policy's weighted criteria (``max_global_risk``,
        ``max_expected_reidentifications``, ``max_individual_risk``; default the policy's
        ``weights``); a weight column the release withholds (``identifiers=["w"]``: stratum
        weights are a channel) is read from ``original``, row by row, never written.
        ``control``: held-out rows (:func:`pdanon.attacks.holdout`): with
        ``original`` the release is attacked (singling out, linkability, inference;
        ``n_attacks``, ``seed``), the criteria ``max_singling_out``, ``max_linkability``,
        ``max_inference`` read the upper bound of each risk's interval, and ``attacks``
        holds the figures (:mod:`pdanon.checks.attack_risks`). ``earlier``: the releases of
        the same people published before this one (with ``keys``: one key array per
        release, the earlier ones first, this release's last - the publisher's person ids
        of the rows each was made from, as :func:`pdanon.check_releases` takes them): the
        criterion ``difference_disclosed`` counts the persons to whom comparing the classes'
        published counts across the releases may leave one sensitive value, at most the
        policy's ``max_difference_disclosed`` (0 when it sets none;
        :func:`pdanon.republication.releases.difference_figures`). See
        :mod:`pdanon.checks.policy`.

        Example
        -------
        >>> import pdanon
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42], "d": ["a", "b", "a", "a"]})
        >>> out = df.anon.k_anonymize(2, quasi_identifiers=["age"], sensitive=["d"])
        >>> result = out.anon.check(pdanon.Policy(k=2, l=2))
        >>> result.passed, result.criteria["measured"].tolist()
        (False, [2, 1])
        """
        from pdanon.checks.policy import check

        difference = None
        if earlier is not None or keys is not None:
            difference = self._difference(policy, earlier, keys, roles)
        return check(self._df, policy, original=original, household=household,
                     weights=weights, control=control, n_attacks=n_attacks, seed=seed,
                     difference=difference, **roles)

    def _difference(self, policy, earlier, keys, roles: dict) -> dict:
        """:func:`pdanon.republication.releases.difference_figures` of this release after
        ``earlier``, on the roles :meth:`check` measures."""
        from pdanon.republication.releases import difference_figures

        if earlier is None or keys is None:
            raise InvalidInputError("the difference attack needs both earlier= (the releases "
                                    "published before this one) and keys= (one key array "
                                    "per release, this release's last)")
        r = self._measured_roles(roles)
        from pdanon.checks.policy import Policy

        rule = (policy if policy is not None else Policy.of_release(self.info)
                ).missing_sensitive  # the rule the verdict reads l and t with
        return difference_figures(self._df, earlier, keys, quasi_identifiers=r.qi,
                                  sensitive=list(r.sensitive),
                                  missing_sensitive=rule)

    def in_random_order(self, *, seed=None) -> pd.DataFrame:
        """This frame with its rows in a random order (the operating system's CSPRNG) under
        a fresh index, as every pdanon face already returns them: for a release made with
        ``row_order="input"``, or a frame that did not come from pdanon. The publisher-only
        way back to the input's rows is kept (``metrics(original=)``, ``check(original=)`` and
        ``explain`` still match rows in this process). See :mod:`pdanon.checks.row_order`.

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42], "d": ["a", "b", "a", "b"]})
        >>> out = df.anon.k_anonymize(2, quasi_identifiers=["age"], sensitive=["d"],
        ...                           row_order="input")
        >>> out.anon.check().passed, out.index.tolist()
        (False, [0, 1, 2, 3])
        >>> published = out.anon.in_random_order()
        >>> published.anon.check().passed, published.index.str.startswith("r").all()
        (True, np.True_)
        """
        from pdanon.checks.row_order import in_random_order

        return in_random_order(self._df, seed=seed)

    def input_rows(self, original: pd.DataFrame) -> pd.DataFrame:
        """The rows of ``original`` (the frame this release was made from) that the release's
        rows came from, in the release's order and with the original's index labels, through
        the publisher-only way back (:mod:`pdanon.checks.row_order`): compare a release with its
        input cell by cell in the process that made it. It holds original values: never
        publish it. Refused for a frame with no way back (a file read back, a DP sample).

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42]})
        >>> out = df.anon.k_anonymize(2)
        >>> before = out.anon.input_rows(df)
        >>> bool(out["age"].array.contains(before["age"].to_numpy()).all())
        True
        """
        from pdanon.metrics._common import aligned, check_frame
        from pdanon.publisher_only import input_rows

        at = input_rows(self._df, check_frame(original, "original"))
        # without a way back: a frame never reordered, or a refusal that says why
        return aligned(original, self._df) if at is None else original.iloc[at]

    def publish(self, where, *, formats=("parquet",), report: bool = True,
                recoding: bool = False, policy=None, original: pd.DataFrame | None = None,
                force: bool = False, overwrite: bool = False, csv_escape: bool = True,
                title: str = "pdanon release report", control: pd.DataFrame | None = None):
        """Publish this release into the folder ``where``, the one way out: check it
        (``policy``, default its own request; a failing verdict writes nothing unless
        ``force=True``), write the data (``formats``: ``"parquet"`` and/or ``"csv"``), its
        schema, the report (HTML and JSON) and, with ``recoding=True``, the recoding; then
        read the data back and measure it again. The report's digests are the files' bytes,
        its row labels their places in the file. ``control``: held-out rows for the attacks
        a policy asks for (``max_singling_out`` and the like). Returns a
        :class:`pdanon.release.Publication`. See :func:`pdanon.release.publish` and
        docs/guide.md#publishing-a-release.

        Example
        -------
        >>> import tempfile
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42]})
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     df.anon.k_anonymize(2).anon.publish(folder, original=df).verdict.passed
        True
        """
        from pdanon.release import publish

        return publish(self._df, where, formats=formats, report=report, recoding=recoding,
                       policy=policy, original=original, force=force, overwrite=overwrite,
                       csv_escape=csv_escape, title=title, control=control)

    @checked
    def report(self, original: pd.DataFrame | None = None, path=None, *,
               title: str = "pdanon release report", target=None, tradeoff=None,
               digest_key=None, policy=None, internal: bool = False, progress=None,
               weights=None, household=None, control=None, attacks=None, earlier=None,
               keys=None, **roles):
        """The release report of this (anonymized) frame: one self-contained HTML page
        (written to ``path`` when given) that opens with the verdict (``policy``: a
        :class:`pdanon.Policy`; default the release's own request, see :meth:`check`), then
        what was lost (the headline information loss, how each quasi-identifier and
        sensitive column was published), the privacy in detail, the rows suppressed by
        reason and the parameters of the release. ``internal=True`` writes the publisher's
        own report instead, which adds every column's distribution before and after and the
        association kept between columns: it reads the original's values and must not
        travel with the release.
        Returns a :class:`pdanon.report.ReleaseReport` (``to_html()``, ``to_json()``,
        shown in Jupyter). It never holds an original cell, a seed or a key. ``control``:
        held-out rows (:func:`pdanon.attacks.holdout`): the release is attacked and the
        section "Singling out, linkability, inference" shows the three risks (figures;
        criteria when the policy sets ``max_singling_out`` and the like); ``attacks``: those a
        check already ran (``CheckResult.attacks``), shown as drawn. ``earlier``, ``keys``:
        the releases of the same people published before this one, as in :meth:`check`: the
        verdict adds the criterion ``difference_disclosed``. See
        :func:`pdanon.report.build_report` and docs/report.md.

        Example
        -------
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42]})
        >>> df.anon.k_anonymize(2).anon.report(df).privacy["k_anonymity"]
        2
        """
        from pdanon.report import build_report

        difference = None
        if earlier is not None or keys is not None:
            difference = self._difference(policy, earlier, keys, roles)
        rep = build_report(self._df, original, title=title, target=target, tradeoff=tradeoff,
                           digest_key=digest_key, policy=policy, internal=internal,
                           progress=progress, weights=weights, household=household,
                           control=control, attacks=attacks, difference=difference, **roles)
        if path is not None:
            rep.save(path)
        return rep
