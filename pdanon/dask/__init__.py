"""pdanon on Dask: ``ddf.anon`` for data larger than one machine's memory.

``import pdanon.dask`` (needs the extra: ``pip install "pdanon[dask]"``) does two things:

* registers the generalization dtype with Dask (``make_array_nonempty`` / ``make_scalar``), so
  Dask frames with generalized columns compute, repartition and round-trip through Parquet;
* registers the ``ddf.anon`` accessor on Dask DataFrames: privacy and utility metrics computed
  as Dask group-bys (values equal to the pandas ones) and Mondrian k-anonymity, l-diversity and
  t-closeness whose top cuts are chosen on the whole data from counts and whose parts are
  anonymized by the single-machine engine.

``import pdanon`` alone never imports Dask (it costs ~1.5 s); import ``pdanon.dask`` explicitly.
On a cluster, call :func:`register_workers` once so that every worker process imports it too
(Parquet files with generalized columns need it to be read back with their dtype).

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> import pdanon, pdanon.dask
>>> df = pd.DataFrame({"age": [30, 31, 40, 42, 30, 41], "sex": ["F", "F", "M", "M", "F", "M"]})
>>> ddf = dd.from_pandas(df, npartitions=2)
>>> out = ddf.anon.k_anonymize(3)
>>> out.anon.k_anonymity(), out.anon.info["parts"]
(3, 1)
>>> sorted(out.compute()["age"].astype(str))
['[30, 40]', '[30, 40]', '[30, 40]', '[40, 50]', '[40, 50]', '[40, 50]']

See docs/dask.md for running on a cluster and choosing partition sizes.
"""

from __future__ import annotations

import copy

from dask.dataframe.extensions import register_dataframe_accessor

from pdanon.dask import _register  # noqa: F401  (registers the dtype with Dask)
from pdanon.dask._metrics import (
    average_class_size,
    class_sizes,
    discernibility,
    distinctness,
    k_anonymity,
    l_diversity,
    metrics,
    non_uniform_entropy,
    t_closeness,
)
from pdanon.dask._mondrian import DEFAULT_MAX_ROWS_PER_PART, ORDERS, anonymize
from pdanon.dask._optimal import anonymize_optimal
from pdanon.dask._recode import publish_categoricals
from pdanon.dask._risk import record_risk, risk_summary
from pdanon._errors import InvalidInputError
from pdanon.keywords import checked

__all__ = [
    "DEFAULT_MAX_ROWS_PER_PART",
    "DaskAnonAccessor",
    "anonymize",
    "anonymize_optimal",
    "average_class_size",
    "class_sizes",
    "discernibility",
    "distinctness",
    "k_anonymity",
    "l_diversity",
    "metrics",
    "non_uniform_entropy",
    "record_risk",
    "register_workers",
    "risk_summary",
    "t_closeness",
]

ROLE_KEYWORDS = ("identifiers", "quasi_identifiers", "sensitive", "insensitive")


def register_workers(client) -> None:
    """Make every worker of a ``distributed.Client`` (current and future ones) import
    ``pdanon.dask``, so tasks that only read Parquet still see the generalization dtype.
    pdanon's own Dask functions do this for the default client automatically.

    Example
    -------
    >>> from distributed import Client, LocalCluster
    >>> with LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster:
    ...     with Client(cluster) as client:
    ...         register_workers(client)
    """
    from pdanon.dask._workers import ImportPdanonDask

    client.register_plugin(ImportPdanonDask())
    client._pdanon_registered = True


@register_dataframe_accessor("anon")
class DaskAnonAccessor:
    """De-identification on a Dask DataFrame (``ddf.anon``), mirroring ``df.anon``.

    Roles come from the keywords (``identifiers``, ``quasi_identifiers``, ``sensitive``,
    ``insensitive``), else from the roles remembered in the frame's meta
    (``ddf._meta.attrs``, which ``dd.from_pandas`` and Parquet files written by pdanon keep),
    else every column is a quasi-identifier.
    """

    def __init__(self, ddf):
        self._ddf = ddf

    # ------------------------------------------------------------------ roles and state
    def roles(self, **roles):
        """The resolved roles of this frame's columns (resolved on its meta).

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> ddf = dd.from_pandas(pd.DataFrame({"age": [30, 40], "d": ["a", "b"]}), npartitions=1)
        >>> ddf.anon.roles(sensitive=["d"]).quasi_identifiers
        {'age': 'real'}
        """
        from pdanon.roles import resolve_roles

        _no_extra(roles)
        # resolved on the meta: the metrics name columns that look like identifiers by their
        # name; the anonymizers examine the data too (_publishing_roles)
        return resolve_roles(self._ddf._meta, screen="warn", **roles)

    def _publishing_roles(self, roles: dict, quiet=()):
        """The roles an anonymizer publishes with: as :meth:`roles`, and every column whose
        role was inferred examined on the data (pdanon.screening: distinct counts in one
        distributed pass; text, digit codes and what the values say - names, dates of birth,
        id numbers - on a sample of 2,000 rows) — one that looks like
        it identifies people is refused, and a RoleWarning lists the roles chosen. A column
        that groups rows (a household, family or case id: most values held by 2 to 10 rows,
        :func:`pdanon.screening.households.grouping`) is refused with the pandas error, from
        the histogram of its value counts computed in the same pass; one declared
        ``insensitive=`` whose name says household gets the pandas RoleWarning (``quiet``:
        the columns ``household=`` names, which the household step verifies)."""
        import dask

        from pdanon import screening
        from pdanon.roles import decide, digit_codes, resolve_roles
        from pdanon.screening import households

        _no_extra(roles)
        # the index a Dask frame keeps and writes: judged by its name and dtype (its values
        # are not read; reset it to publish without it)
        suspects = screening.index_suspects(self._ddf._meta.index)
        if suspects:
            from pdanon._errors import RoleError

            raise RoleError(screening.index_refusal(suspects).replace(
                "df.reset_index", "ddf.reset_index"))
        r = resolve_roles(self._ddf._meta, screen="ignore", **roles)
        inferred = list(r.inferred)
        # declared insensitive but named like a household id: published on the publisher's
        # decision, with the pandas RoleWarning when its values group rows
        declared = [c for c in r.insensitive if c not in set(inferred) and c not in set(quiet)
                    and households.named_like(c)]
        found, digits, hist = [], {}, {}
        if inferred or declared:
            ddf = self._ddf[[*inferred, *declared]]
            # per column the histogram of its value counts (values held by 1, 2, ... rows:
            # the distinct values and the small groups of a household id), by a tree
            # reduction (split_out=1): no shuffle, whatever scheduler runs it
            floats = [c for c in ddf.columns if ddf._meta[c].dtype.kind == "f"]
            count, hist, whole = dask.compute(
                ddf.count(),
                [ddf[c].value_counts(dropna=True, split_out=1).value_counts()
                 for c in ddf.columns],
                [((ddf[c] % 1 == 0) | ddf[c].isna()).all() for c in floats])
            hist = {c: h[h.index > 0] for c, h in zip(ddf.columns, hist)}
            whole = dict(zip(floats, whole))
        if inferred:
            sample = ddf[inferred].head(2_000, npartitions=-1)
            for c in inferred:
                ranges = r.quasi_identifiers.get(c) == "real"
                facts = screening.facts(sample[c], numbers=not ranges)
                h = hist[c]
                grouped = None if facts.boolean else screening.grouped_of_sizes(
                    c, ddf._meta[c].dtype, h.index.to_numpy(), h.to_numpy(),
                    whole=bool(whole.get(c, True)), ranges=ranges)
                suspect = screening.judge(c, int(count[c]), int(h.sum()), facts.text,
                                          facts.boolean, contacts=facts.contacts,
                                          examined=facts.count, ranges=ranges,
                                          content=facts.content, grouped=grouped)
                if suspect is not None:
                    found.append(suspect)
            kinds = set(inferred) | set(r.inferred_kinds)
            digits = {c: sample[c].dropna().iloc[0] for c in list(r.quasi_identifiers)
                      + list(r.sensitive) if c in kinds and c in sample.columns
                      and r.kind(c) == "unordered" and digit_codes(sample[c])}
        grouping = {c: households.grouping_of_sizes(
            c, hist[c].index.to_numpy(), hist[c].to_numpy(), dtype=ddf._meta[c].dtype,
            whole=bool(whole.get(c, True))) for c in declared}
        grouping = {c: e for c, e in grouping.items() if e is not None}
        if grouping:
            import warnings

            from pdanon._errors import RoleWarning, user_stacklevel

            warnings.warn(households.warning_text(grouping), RoleWarning,
                          stacklevel=user_stacklevel())
        decide(r, found, "refuse", digits)
        return r

    @property
    def info(self) -> dict:
        """What the pdanon step that produced this frame did (parts, cuts, classes, timings,
        verification).

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> ddf = dd.from_pandas(pd.DataFrame({"age": [30, 31, 40, 42]}), npartitions=2)
        >>> ddf.anon.k_anonymize(2).anon.info["verified"]
        {'rows': 4, 'classes': 2, 'k': 2}
        """
        return copy.deepcopy(self._ddf._meta.attrs.get("pdanon", {}).get("info", {}))

    # ------------------------------------------------------------------ metrics
    def class_sizes(self, *, missing: str = "value", **roles):
        """Lazy Dask Series: the size of every equivalence class.

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [1, 1, 2]}), npartitions=2)
        >>> sorted(ddf.anon.class_sizes().compute().tolist())
        [1, 2]
        """
        return class_sizes(self._ddf, self.roles(**roles).quasi_identifiers, missing=missing)

    def k_anonymity(self, *, missing: str = "value", **roles) -> int:
        """Smallest equivalence class size (see :meth:`pandas.DataFrame.anon.k_anonymity`).

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> dd.from_pandas(pd.DataFrame({"a": [30, 30, 40]}), npartitions=2).anon.k_anonymity()
        1
        """
        return k_anonymity(self._ddf, self.roles(**roles).quasi_identifiers, missing=missing)

    def l_diversity(self, *, variant: str = "distinct", c: float | None = None,
                    missing: str = "value", missing_sensitive: str = "unknown", **roles):
        """The l the frame achieves (variants ``distinct``, ``entropy``, ``recursive``;
        ``missing_sensitive="unknown"``: a blank sensitive cell is no value).

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "c"]})
        >>> dd.from_pandas(df, npartitions=2).anon.l_diversity(quasi_identifiers=["zip"],
        ...                                                   sensitive=["d"])
        2
        """
        r = self._sensitive_roles(roles, "l-diversity")
        return l_diversity(self._ddf, r.quasi_identifiers, r.sensitive, variant=variant, c=c,
                           missing=missing, missing_sensitive=missing_sensitive)

    def t_closeness(self, *, distance: str = "emd", hierarchies=None, missing: str = "value",
                    missing_sensitive: str = "unknown", **roles) -> float:
        """The smallest t for which the frame is t-close (``distance``: ``emd``,
        ``hierarchical``, ``jensen_shannon``, ``wasserstein``, ``reference``;
        ``missing_sensitive="unknown"``: known values against the table's known values).

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
        >>> dd.from_pandas(df, npartitions=2).anon.t_closeness(quasi_identifiers=["zip"],
        ...                                                   sensitive=["d"])
        0.25
        """
        r = self._sensitive_roles(roles, "t-closeness")
        return t_closeness(self._ddf, r.quasi_identifiers, r.sensitive, distance=distance,
                           hierarchies=hierarchies, missing=missing,
                           missing_sensitive=missing_sensitive)

    def average_class_size(self, *, missing: str = "value", **roles) -> float:
        """Rows / equivalence classes.

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> dd.from_pandas(pd.DataFrame({"a": [1, 1, 2]}), npartitions=2).anon.average_class_size()
        1.5
        """
        return average_class_size(self._ddf, self.roles(**roles).quasi_identifiers, missing=missing)

    def distinctness(self, columns=None) -> float:
        """Distinct rows / rows over ``columns`` (default: every column).

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> dd.from_pandas(pd.DataFrame({"a": [1, 1, 2, 3]}), npartitions=2).anon.distinctness()
        0.75
        """
        return distinctness(self._ddf, columns)

    def non_uniform_entropy(self, *, missing: str = "value", **roles) -> float:
        """Entropy (bits) of the quasi-identifier rows.

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> ddf = dd.from_pandas(pd.DataFrame({"a": [1, 1, 2, 3]}), npartitions=2)
        >>> ddf.anon.non_uniform_entropy()
        1.5
        """
        return non_uniform_entropy(self._ddf, self.roles(**roles).quasi_identifiers,
                                   missing=missing)

    def discernibility(self, *, missing: str = "value", **roles) -> int:
        """Σ |class|² over the equivalence classes.

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> dd.from_pandas(pd.DataFrame({"a": [1, 1, 2]}), npartitions=2).anon.discernibility()
        5
        """
        return discernibility(self._ddf, self.roles(**roles).quasi_identifiers, missing=missing)

    def metrics(self, *, missing: str = "value", risk: bool = True, sampling_fraction=None,
                threshold: float = 0.2, **roles):
        """Risk and utility table (pandas DataFrame: metric, value, better, meaning) of the
        metrics that need no original, plus discernibility, and (unless ``risk=False``) the
        record-level risk rows of ``df.anon.metrics()``: prosecutor risk, records at risk
        above ``threshold``, marketer, sample uniques and, with ``sampling_fraction=``, the
        journalist estimates and the estimated population uniques.

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
        >>> m = dd.from_pandas(df, npartitions=2).anon.metrics(quasi_identifiers=["zip"],
        ...                                                    sensitive=["d"])
        >>> int(m.set_index("metric").loc["k_anonymity", "value"])
        2
        """
        r = self.roles(**roles)
        return metrics(self._ddf, r.quasi_identifiers, r.sensitive, missing=missing, risk=risk,
                       sampling_fraction=sampling_fraction, threshold=threshold)

    def risk(self, *, population=None, sampling_fraction=None, weights=None,
             missing: str = "value", **roles):
        """Per-row re-identification risk as a lazy Dask frame with this frame's index and
        partitions: ``class_id``, ``class_size``, ``prosecutor`` and, with ``population=`` (a
        pandas or Dask frame containing the sample) or ``sampling_fraction=``,
        ``journalist`` - equal to ``df.anon.risk()`` on the computed frame; ``weights=<column>``
        adds ``population_size`` and ``individual`` (sdcMicro's individual risk from the
        sampling weights). The class table (one row per class) is computed now and broadcast.
        See :func:`pdanon.dask.record_risk`.

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> ddf = dd.from_pandas(pd.DataFrame({"age": [30, 30, 40]}), npartitions=2)
        >>> ddf.anon.risk().compute()["prosecutor"].tolist()
        [0.5, 0.5, 1.0]
        """
        from pdanon.metrics.survey import survey_roles

        roles = survey_roles(roles, weights)
        return record_risk(self._ddf, self.roles(**roles).quasi_identifiers,
                           population=population, sampling_fraction=sampling_fraction,
                           weights=weights, missing=missing)

    def risk_summary(self, *, population=None, sampling_fraction=None, weights=None,
                     household=None, threshold: float = 0.2, missing: str = "value", **roles):
        """The risk summary of ``df.anon.risk_summary()`` (a pandas Series, same keys and
        values), computed by Dask group-bys: only one row per distinct (f, F) pair of class
        sizes reaches the client (with ``weights=<column>``, the global risk and expected
        re-identifications too: one row per class; with ``household=<column>``, the household
        figures: one row per household). See :func:`pdanon.dask.risk_summary`.

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> ddf = dd.from_pandas(pd.DataFrame({"age": [30, 30, 40, 40]}), npartitions=2)
        >>> float(ddf.anon.risk_summary()["highest_prosecutor_risk"])
        0.5
        """
        from pdanon.metrics.survey import survey_roles

        roles = survey_roles(roles, weights, household)
        return risk_summary(self._ddf, self.roles(**roles).quasi_identifiers,
                            population=population, sampling_fraction=sampling_fraction,
                            weights=weights, household=household, threshold=threshold,
                            missing=missing)

    # ------------------------------------------------------------------ anonymizers
    @checked
    def anonymize(self, model, *, method: str = "generalize", algorithm: str = "mondrian",
                  max_rows_per_part: int = DEFAULT_MAX_ROWS_PER_PART, order: str = "input",
                  unordered_split: str = "balanced", path=None, verify: bool = True,
                  write_options: dict | None = None, hierarchies=None,
                  objective: str | None = None, max_suppressed_rows=None, levels=None,
                  labels: bool = False, options: dict | None = None, progress=None,
                  row_order: str = "random", allow_channels=None, household=None,
                  household_ids: str = "renumber", **roles):
        """Anonymize with Mondrian (or optimal full-domain recoding) on Dask for a privacy
        model (:mod:`pdanon.models`: k-anonymity, l-diversity, t-closeness and their
        :class:`~pdanon.models.AllOf`); :meth:`k_anonymize`, :meth:`l_diversify` and
        :meth:`t_close` build the model for you.

        Parameters
        ----------
        model : pdanon.models.PrivacyModel
        method : {"generalize", "suppress", "aggregate"}
            As on pandas frames: generalized cells, cells of non-constant groups suppressed,
            or group means / medians / modes (``algorithm="mondrian"``; ``"optimal"``
            generalizes). ``suppress`` and ``aggregate`` run the parts when called, so that
            the published categories are known (docs/dask.md).
        algorithm : {"mondrian", "optimal"}
            ``"mondrian"`` (default): top cuts on the whole data, local Mondrian per part.
            ``"optimal"``: the optimal full-domain recoding of the pandas engine over the
            levels of ``hierarchies`` (docs/dask.md, "Optimal recoding on Dask"); the result
            equals the pandas result on the same rows.
        hierarchies, objective, max_suppressed_rows, levels, labels
            ``algorithm="optimal"`` only, as in the pandas ``k_anonymize``: hierarchies of the
            quasi-identifiers, ``"loss"`` (default) / ``"precision"`` / ``"discernibility"``
            / ``"entropy"``, the suppression budget (rows or a fraction strictly between 0 and
            1), the levels searched and hierarchy labels.
        options : dict, optional
            ``{"exact_bounds": True}`` (Mondrian) keeps the ranges' exact bounds, as on pandas
            (with an :class:`~pdanon.ExactBoundsWarning`; :mod:`pdanon.recode.bounds`); no
            other option: no Dask algorithm has tuning knobs beyond the keywords above.
        max_rows_per_part : int
            (Mondrian) Top cuts are chosen on the whole data until every part has at most this
            many rows (or cannot be split); each part is then anonymized by one task with the
            single-machine Mondrian. Choose it so that a part fits a worker comfortably
            (roughly 1 KB of working memory per row); default 500,000.
        order : {"input", "part"}
            How the parts' cells reach the output before its rows are put in a random order:
            ``"input"`` (default): by the input's partitions (only codes and generalized cells
            travel between workers); ``"part"``: one partition per part (less data movement).
            With ``row_order="input"`` this is the output's partitioning.
        row_order : {"random", "input"}
            ``"random"`` (default): rows in a uniformly random order across partitions drawn
            from the OS's CSPRNG, under a fresh index ``r..`` that shares no label with the
            input's (:mod:`pdanon.dask._order`); no way back to the input rows is kept.
            ``"input"``: the input's index and order (to compare with the input row by row);
            ``info["row_order"]`` records it and :func:`pdanon.checks.policy.check`'s default policy fails
            such a release.
        unordered_split : {"balanced", "frequency", "appearance", "sensitive"}
            As in the single-machine Mondrian.
        path : str, optional
            Write the result to Parquet there and return the frame read back from it (the
            verification then checks the written files).
        verify : bool
            Check the output with a distributed group-by (k; l / t for those models). Without
            ``path`` the output is persisted in worker memory for it. ``False`` returns the
            lazy output (each part is still verified by its own task).
        write_options : dict, optional
            Extra keywords for ``to_parquet`` (e.g. ``{"compression": "zstd"}``).
        progress : bool, optional
            A bar over the phases (Mondrian: cuts, parts, verification; optimal:
            dictionaries, counts, search, apply, verification) on standard error or in the
            notebook: ``None`` (default) when the run lasts more than 2 s in a terminal or
            notebook, ``True`` always, ``False`` never (see :mod:`pdanon.progress`).
        allow_channels : column name or list, optional
            Columns published unchanged that the publisher has judged safe although they give
            a quasi-identifier back. Before the release is written or returned, every column
            published unchanged (not sensitive) is tested as a channel, as on pandas
            (:mod:`pdanon.screening.channels`, by Dask group-bys:
            :mod:`pdanon.dask._channels`): one whose values pin a generalized
            quasi-identifier (stratum weights pin the ZIP) raises
            :class:`~pdanon.ChannelError` naming the column, the quasi-identifier, the effect
            and the fixes, unless named here; ``info["channels_allowed"]`` records it.
        household : column name, optional
            A column whose rows belong together (a household, family or case id), as on
            pandas (:mod:`pdanon.screening.households`): the anonymizer runs on the other
            columns, then the column is published renumbered (fresh random ids) and verified
            at household level by Dask group-bys (:mod:`pdanon.dask._households`): every
            household's signature is shared by at least k households, a rarer household is
            unlinked (its id missing). ``info["household"]`` records the counts. Left
            without a role, such a column is refused (:class:`pdanon.RoleError`).
        household_ids : {"renumber", "drop"}
            ``"renumber"`` (default) as above; ``"drop"`` publishes no household id at all.
        **roles
            Role keywords.

        Returns a Dask DataFrame (identifiers dropped, quasi-identifiers of the generalization
        dtype; rows as ``row_order`` says); ``out.anon.info`` tells what was done.

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42]})
        >>> from pdanon.models import KAnonymity
        >>> out = dd.from_pandas(df, npartitions=2).anon.anonymize(KAnonymity(2))
        >>> sorted(out.compute()["age"].astype(str))
        ['[30, 40]', '[30, 40]', '[40, 50]', '[40, 50]']
        """
        from pdanon.models import PrivacyModel

        if not isinstance(model, PrivacyModel):
            raise InvalidInputError(
                f"model must be a pdanon.models.PrivacyModel (e.g. KAnonymity(5)), got "
                f"{type(model).__name__}")
        needs = model.name if model.requirements().sensitive else None
        mondrian = {"max_rows_per_part": max_rows_per_part, "order": order,
                    "unordered_split": unordered_split}
        optimal = {"hierarchies": hierarchies, "objective": objective,
                   "max_suppressed_rows": max_suppressed_rows, "levels": levels,
                   "labels": labels or None, "options": options}
        return self._anonymize(model, method, algorithm, roles, needs_sensitive=needs,
                               mondrian=mondrian, optimal=optimal, path=path, verify=verify,
                               write_options=write_options, progress=progress,
                               row_order=row_order, allow_channels=allow_channels,
                               household=household, household_ids=household_ids)

    def apply_recoding(self, recoding, *, model=None, max_suppressed_rows=None,
                       row_order: str = "random", allow_channels=None, household=None,
                  household_ids: str = "renumber", **roles):
        """Publish this Dask frame with an earlier release's recoding, as ``df.anon.
        apply_recoding`` does (same lookup, same rules, the model verified on the whole frame
        by distributed group-bys; :mod:`pdanon.dask._recoding`). Returns a Dask frame (rows in
        a CSPRNG order under a fresh index unless ``row_order="input"``, as in
        :meth:`anonymize`) whose ``.anon.info`` records ``unseen_cells``, ``suppressed_rows``,
        ``verified``. The channel rule holds as in :meth:`anonymize` (``allow_channels=``).

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> from pdanon.hierarchy import intervals
        >>> from pdanon.models import KAnonymity
        >>> first = pd.DataFrame({"age": [31, 33, 36, 38]}).anon.generalize(
        ...     {"age": 1}, hierarchies={"age": intervals([5])})
        >>> batch = dd.from_pandas(pd.DataFrame({"age": [30, 34, 35, 39]}), npartitions=2)
        >>> out = batch.anon.apply_recoding(first.anon.recoding, model=KAnonymity(2))
        >>> sorted(out.compute()["age"].astype(str)), out.anon.info["verified"]["k"]
        (['[30, 34]', '[30, 34]', '[35, 39]', '[35, 39]'], 2)
        """
        from pdanon.dask._recoding import apply_recoding
        from pdanon.republication.recoding import Recoding

        recoding = Recoding.check(recoding)
        r = self._publishing_roles(recoding.role_keywords(roles, self._ddf.columns))
        out, _ = apply_recoding(self._ddf, r, recoding, model=recoding.model_for(model),
                                max_suppressed_rows=max_suppressed_rows, row_order=row_order,
                                allow_channels=allow_channels)
        # the other Categorical columns list only the categories a cell holds, as on pandas
        return publish_categoricals(out, self._ddf, recoding.columns)

    def k_anonymize(self, k: int, *, l=None, variant: str | None = None, c: float | None = None,
                    t: float | None = None, distance: str | None = None, hierarchies=None,
                    missing_sensitive: str | None = None, **options):
        """Make the frame k-anonymous with Mondrian on Dask (and l-diverse / t-close with
        ``l=`` / ``t=``, as the pandas ``k_anonymize``); ``options`` (``method``,
        ``algorithm``, ``max_rows_per_part``, ``order``, ``row_order``, ``unordered_split``,
        ``path``, ``verify``, ``write_options``, ``progress``, for ``algorithm="optimal"``
        ``objective``, ``max_suppressed_rows``, ``levels``, ``labels``, and role keywords) as
        in :meth:`anonymize`.

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42]})
        >>> out = dd.from_pandas(df, npartitions=2).anon.k_anonymize(2, quasi_identifiers=["age"])
        >>> sorted(out.compute()["age"].astype(str))
        ['[30, 40]', '[30, 40]', '[40, 50]', '[40, 50]']

        Households (``household=``: fresh ids, every household's signature shared by k):

        >>> homes = pd.DataFrame({"hh": [7, 7, 8, 8, 9, 9], "age": [30, 5, 31, 6, 32, 7]})
        >>> out = dd.from_pandas(homes, npartitions=2).anon.k_anonymize(
        ...     3, quasi_identifiers=["age"], household="hh")
        >>> out.anon.info["household"]["linked_households"], sorted(out.compute()["hh"].tolist())
        (3, [1, 1, 2, 2, 3, 3])
        """
        return self._faced(dict(k=k, l=l, variant=variant, c=c, t=t, distance=distance,
                                missing_sensitive=missing_sensitive),
                           hierarchies, options, always_k=False)

    def l_diversify(self, l, *, k: int = 1, variant: str | None = None, c: float | None = None,
                    t: float | None = None, distance: str | None = None, hierarchies=None,
                    missing_sensitive: str | None = None, **options):
        """Make every class l-diverse in every sensitive column (and k-anonymous, t-close
        with ``t=``) with Mondrian on Dask; ``options`` as in :meth:`anonymize`, models as in
        the pandas ``l_diversify``.

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42], "d": ["flu", "hiv", "flu", "cold"]})
        >>> out = dd.from_pandas(df, npartitions=2).anon.l_diversify(
        ...     2, quasi_identifiers=["age"], sensitive=["d"])
        >>> out.anon.l_diversity()
        2
        """
        return self._faced(dict(k=k, l=l, variant=variant, c=c, t=t, distance=distance,
                                missing_sensitive=missing_sensitive),
                           hierarchies, options)

    def t_close(self, t: float, *, k: int = 1, l=None, variant: str | None = None,
                c: float | None = None, distance: str | None = None, hierarchies=None,
                missing_sensitive: str | None = None, **options):
        """Make every class t-close to the whole table (and k-anonymous, l-diverse with
        ``l=``) with Mondrian on Dask; ``hierarchies`` of sensitive columns drive
        ``distance="hierarchical"``, those of quasi-identifiers ``algorithm="optimal"``;
        other ``options`` as in :meth:`anonymize`.

        Example
        -------
        >>> import pandas as pd, dask.dataframe as dd
        >>> df = pd.DataFrame({"age": [30, 31, 40, 42], "d": ["a", "b", "a", "b"]})
        >>> out = dd.from_pandas(df, npartitions=2).anon.t_close(
        ...     0.2, quasi_identifiers=["age"], sensitive=["d"])
        >>> out.anon.t_closeness() <= 0.2
        True
        """
        return self._faced(dict(k=k, l=l, variant=variant, c=c, t=t, distance=distance,
                                missing_sensitive=missing_sensitive),
                           hierarchies, options)

    def _faced(self, asked: dict, hierarchies, options: dict, always_k: bool = True):
        """The model ``asked`` (:func:`pdanon.models.request.request`; hierarchies of
        sensitive columns go to t-closeness, the others to the optimal search), anonymized."""
        from pdanon.models.request import request

        sensitive = set(self.roles(**{k: options[k] for k in ROLE_KEYWORDS
                                      if k in options}).sensitive) if hierarchies else set()
        sens_h = {c: h for c, h in (hierarchies or {}).items() if c in sensitive} or None
        qi_h = {c: h for c, h in (hierarchies or {}).items() if c not in sensitive} or None
        model = request(**asked, sensitive_hierarchies=sens_h, always_k=always_k)
        if qi_h is not None:
            options["hierarchies"] = qi_h
        return self.anonymize(model, **options)

    # ------------------------------------------------------------------ helpers
    def _sensitive_roles(self, roles: dict, what: str):
        r = self.roles(**roles)
        if not r.sensitive:
            raise InvalidInputError(
                f"{what} needs at least one sensitive column: pass sensitive=[...] (or "
                f"{{column: kind}})")
        return r

    def _anonymize(self, model, method, algorithm, roles, needs_sensitive=None, *, mondrian,
                   optimal, progress=None, row_order="random", household=None,
                   household_ids="renumber", **options):
        if algorithm not in ("mondrian", "auto", "optimal"):
            raise InvalidInputError(f"algorithm={algorithm!r} is not available on Dask; use "
                                    f"algorithm='mondrian' or 'optimal' (with hierarchies=)")
        if method not in ("generalize", "suppress", "aggregate"):
            raise InvalidInputError(f"unknown method {method!r}; use 'generalize', 'suppress' "
                                    f"or 'aggregate'")
        if algorithm == "optimal" and method != "generalize":
            raise InvalidInputError(f"algorithm='optimal' recodes by hierarchies "
                                    f"(method='generalize'); got method={method!r}: use "
                                    f"algorithm='mondrian' to suppress or aggregate")
        step, ddf, roles = _household_step(self._ddf, model, roles, household, household_ids)
        r = type(self)(ddf)._publishing_roles(roles, quiet=[step[0]] if step else [])
        options["household"] = step
        if needs_sensitive and not r.sensitive:
            raise InvalidInputError(
                f"{needs_sensitive} needs at least one sensitive column: pass sensitive=[...] "
                f"(or {{column: kind}})")
        from pdanon.progress import setting

        extra = dict(optimal.get("options") or {})
        exact_bounds = extra.pop("exact_bounds", False)  # Mondrian's (pdanon.recode.bounds)
        optimal = {**optimal, "options": extra or None}
        with setting(progress):
            if algorithm == "optimal":
                from pdanon.engine import check_exact_bounds

                out, _ = anonymize_optimal(ddf, r, model=model,
                                           **_optimal_options(optimal, mondrian),
                                           row_order=row_order,
                                           exact_bounds=check_exact_bounds(exact_bounds),
                                           **options)
                return out
            given = [k for k, v in optimal.items() if v is not None]
            if given:
                raise InvalidInputError(
                    f"{given} apply to algorithm='optimal' (hierarchies of quasi-identifiers, "
                    f"suppression); pass algorithm='optimal' or leave them out for Mondrian")
            from pdanon.engine import check_exact_bounds

            out, _ = anonymize(ddf, r, model=model, method=method, **mondrian,
                               row_order=row_order,
                               exact_bounds=check_exact_bounds(exact_bounds), **options)
        return out


def _household_step(ddf, model, roles: dict, household, household_ids: str):
    """``(step, frame, roles)`` for ``household=`` (or the household column an earlier step
    recorded): ``step`` the :func:`pdanon.dask._households.step` argument ``(column, ids,
    k)`` or None; the frame without the column when its ids are dropped; the roles with it
    declared insensitive (carried unchanged to the household step) otherwise."""
    from pdanon.screening import households

    households.check_options(ddf._meta, household, household_ids)
    if household is None:
        household = households.recorded_column(ddf._meta)
    if household is None:
        return None, ddf, roles
    households.refuse_roles(household, roles)
    k = households.model_k((type(p).__name__, getattr(p, "k", 1)) for p in model.parts()
                           if type(p).__name__ in ("KAnonymity", "AlphaKAnonymity",
                                                   "HighestRisk"))
    if household_ids == "drop":
        return (household, "drop", k), ddf.drop(columns=[household]), roles
    spec = roles.get("insensitive")
    declared = [] if spec is None else [spec] if isinstance(spec, (str, int)) else list(spec)
    return (household, "renumber", k), ddf, {**roles, "insensitive": [*declared, household]}


def _optimal_options(optimal: dict, mondrian: dict) -> dict:
    """The keywords of :func:`pdanon.dask._optimal.anonymize_optimal`; Mondrian's options
    left at their defaults, ``options`` holding only ``levels`` / ``labels``."""
    defaults = {"max_rows_per_part": DEFAULT_MAX_ROWS_PER_PART, "order": "input",
                "unordered_split": "balanced"}
    changed = [k for k, v in mondrian.items() if v != defaults[k]]
    if changed:
        raise InvalidInputError(f"{changed} apply to algorithm='mondrian'; algorithm='optimal' "
                                f"keeps the input's partitions: leave them out")
    extra = dict(optimal.get("options") or {})
    if extra:
        key = next(iter(extra))
        raise InvalidInputError(
            f"{key!r} is not an option of algorithm='optimal' on Dask"
            + (f": pass {key}={extra[key]!r}, not options={{{key!r}: ...}}"
               if key in ("levels", "labels", "hierarchies", "objective", "max_suppressed_rows")
               else "; its keywords are hierarchies=, objective=, max_suppressed_rows=, "
                    "levels=, labels="))
    return {k: v for k, v in optimal.items() if k != "options" and v is not None}


def _no_extra(kwargs: dict) -> None:
    extra = [k for k in kwargs if k not in ROLE_KEYWORDS]
    if extra:
        raise TypeError(f"unexpected keyword argument(s) {extra}; role keywords are "
                        f"{list(ROLE_KEYWORDS)}")
    if kwargs.get("quasi_identifiers") is not None and len(kwargs["quasi_identifiers"]) == 0:
        raise InvalidInputError("quasi_identifiers is empty: name at least one column")
