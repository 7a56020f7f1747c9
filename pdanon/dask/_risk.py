"""Record-level re-identification risk of Dask DataFrames: the summary and the per-row risk of
:mod:`pdanon.metrics.reidentification`, equal to the pandas results.

Every partition turns its quasi-identifiers into canonical class keys (:mod:`pdanon.dask._keys`)
and Dask counts the rows per class, f. With a population table (a pandas or Dask frame with the
same quasi-identifiers) the population's rows are keyed the same way and counted per class, F,
and the two class tables are merged on the keys; the population must contain the sample
(F >= f). With a sampling fraction p, F = f / p is an estimate, as on pandas.

What reaches the client:

* the summary (:func:`risk_summary`): one row per distinct (f, F) pair - the classes grouped by
  their sizes (:func:`pdanon.metrics.reidentification.summarize_groups`), never a row or a class;
* the per-row risk (:func:`record_risk`): the class table (one row per class: keys, f, F and
  the row position where the class first appears, to number the classes as pandas does) is
  computed and broadcast to every partition, which looks its rows up in it; the result is a
  lazy Dask frame with the original index and partitions. Its memory is that of the class
  table: tens of bytes per class.

With sampling weights (``weights=<column>``) F is the sum of the weights of each class, and the
individual risk of sdcMicro's ``measure_risk`` is computed per class
(:mod:`pdanon.metrics.survey`); the summary then gathers the class table (one row per class:
f and F) on the client. ``household=<column>`` (the household risk) is summarized by one
group-by over the households (one row per household reaches the client); the per-row
household risk is computed on pandas frames.

Missing cells are values of their own (``missing="value"``); ``"wildcard"`` (a missing cell
matches any value) forms no classes and is refused here.

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> df = pd.DataFrame({"age": [30, 30, 40, 50], "sex": ["F", "F", "M", "M"]})
>>> ddf = dd.from_pandas(df, npartitions=2)
>>> float(risk_summary(ddf, ["age", "sex"])["marketer_risk"])
0.75
>>> record_risk(ddf, ["age", "sex"]).compute()["prosecutor"].tolist()
[0.5, 0.5, 1.0, 1.0]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon import _groups
from pdanon._errors import InvalidInputError, UnknownColumnError
from pdanon.dask._keys import key_frame
from pdanon.dask._metrics import (check_dask_frame, check_qis, class_keys, column_dtypes,
                                  group_sizes, split_out_of)
from pdanon.metrics import reidentification, uniqueness

__all__ = ["risk_summary", "record_risk"]


def _check_inputs(missing, population, sampling_fraction):
    _groups.check_missing(missing)
    if missing == "wildcard":
        raise InvalidInputError(
            "record-level risk on Dask needs equivalence classes: use missing='value' (a "
            "missing cell is a value of its own); missing='wildcard' is computed on pandas "
            "frames (df.anon.risk_summary(missing='wildcard'))"
        )
    if population is not None and sampling_fraction is not None:
        raise InvalidInputError(
            "pass either population= (a population table: exact journalist risk) or "
            "sampling_fraction= (an estimate), not both"
        )
    if sampling_fraction is not None:
        return uniqueness.check_sampling_fraction(sampling_fraction)
    return None


def _population_keys(ddf, population, qis):
    """The population's class keys, made with the sample's column dtypes."""
    import dask.dataframe as dd

    if isinstance(population, pd.DataFrame):
        population = dd.from_pandas(population, npartitions=max(1, ddf.npartitions))
    elif not isinstance(population, dd.DataFrame):
        raise InvalidInputError(
            f"population must be a pandas or Dask DataFrame with the sample's "
            f"quasi-identifier columns, got {type(population).__name__}"
        )
    absent = [c for c in qis if c not in population.columns]
    if absent:
        raise UnknownColumnError(
            f"the population table lacks quasi-identifier column(s) {absent}; give it the same "
            f"quasi-identifier columns as the sample (it has {list(population.columns)})"
        )
    dtypes = column_dtypes(ddf, qis)
    population = population[qis]
    differ = {c: d for c, d in dtypes.items() if population._meta[c].dtype != d}
    if differ:
        try:
            population = population.astype(differ)
        except (TypeError, ValueError) as err:
            raise InvalidInputError(
                f"the population's column(s) {list(differ)} cannot take the sample's dtypes "
                f"{ {c: str(d) for c, d in differ.items()} } ({err}); give both tables the same "
                f"dtypes"
            ) from None
    meta = key_frame(ddf._meta[qis], qis, dtypes)
    return population.map_partitions(key_frame, qis, dtypes, meta=meta)


def _check_survey_columns(ddf, qis, weights, household, population, fraction) -> None:
    """Refuse weights (or households) that are quasi-identifiers, unknown, not numbers,
    missing, not finite or below 1 (found by one lazy count; the first bad row is looked up
    only when there is one)."""
    from pdanon.metrics import survey

    if weights is not None and (population is not None or fraction is not None):
        raise InvalidInputError(
            "weights= estimates each class's population size from the sampling weights; "
            "pass it alone, without population= or sampling_fraction=")
    for name in (weights, household):
        if name is not None and name not in ddf.columns:
            raise UnknownColumnError(f"{name!r} is not a column; the frame has "
                                     f"{list(ddf.columns)}")
    if household is not None and (household == weights or household in qis):
        raise InvalidInputError(f"household={household!r} names the weight column or a "
                                f"quasi-identifier; pass the household id column")
    if weights is None:
        return
    survey.check_weights(ddf._meta, weights, qis)  # the column's role and dtype
    w = ddf[weights].astype(np.float64)
    bad = int((~np.isfinite(w.fillna(np.inf)) | (w < 1)).sum().compute())
    if bad:
        rows = ddf[weights].map_partitions(
            lambda s: s[~np.isfinite(s.astype(np.float64).fillna(np.inf)) | (s < 1)])
        survey.check_weights(rows.head(1, npartitions=-1).to_frame(), weights, qis,
                             bad_rows=bad)


def _class_table(ddf, qis, population, first: bool, weights=None):
    """Lazy Dask frame, one row per class: key columns, ``f``, ``F`` (population, or the sum
    of ``weights``) and, when ``first``, ``first`` (the smallest row position of the
    class)."""
    keys, names = class_keys(ddf, qis)
    split_out = split_out_of(ddf)
    if weights is not None:
        dtypes = column_dtypes(ddf, qis)
        meta = keys._meta.assign(__w=np.zeros(0))
        keys = ddf.map_partitions(_weighted_keys, qis, dtypes, weights, meta=meta)
        grouped = keys.groupby(names, dropna=False, sort=False, observed=True)
        if first:
            offsets = np.concatenate([[0], np.cumsum(ddf.map_partitions(len).compute())])
            keys = keys.map_partitions(_with_position, offsets, meta=keys._meta.assign(
                __pos=np.zeros(0, np.int64)))
            grouped = keys.groupby(names, dropna=False, sort=False, observed=True)
            table = grouped.agg({"__w": ["size", "sum"], "__pos": "min"},
                                split_out=split_out)
            table.columns = ["f", "F", "first"]
        else:
            table = grouped.agg({"__w": ["size", "sum"]}, split_out=split_out)
            table.columns = ["f", "F"]
        return table.reset_index(), names
    if first:
        offsets = np.concatenate([[0], np.cumsum(ddf.map_partitions(len).compute())])
        keys = keys.map_partitions(_with_position, offsets, meta=keys._meta.assign(
            __pos=np.zeros(0, np.int64)))
        grouped = keys.groupby(names, dropna=False, sort=False, observed=True)["__pos"]
        table = grouped.agg(["size", "min"], split_out=split_out).reset_index()
        table = table.rename(columns={"size": "f", "min": "first"})
    else:
        table = group_sizes(keys, names, split_out).reset_index().rename(columns={"size": "f"})
    if population is not None:
        pkeys = _population_keys(ddf, population, qis)
        counts = group_sizes(pkeys, names, split_out).reset_index().rename(columns={"size": "F"})
        table = table.merge(counts, on=names, how="left")
        table["F"] = table["F"].fillna(0).astype(np.int64)
    return table, names


def _weighted_keys(pdf: pd.DataFrame, qis, dtypes, weights) -> pd.DataFrame:
    """One partition's class keys with its rows' weights (``__w``), row for row."""
    keys = (key_frame(pdf, qis, dtypes) if qis
            else pd.DataFrame({"k0": np.zeros(len(pdf), np.int64)}))
    return keys.assign(__w=pdf[weights].to_numpy(dtype=np.float64))


def _with_position(keys: pd.DataFrame, offsets, partition_info=None):
    start = offsets[partition_info["number"]] if partition_info else 0
    return keys.assign(__pos=np.arange(start, start + len(keys), dtype=np.int64))


def _check_contains(short_classes: int, short_rows: int) -> None:
    if short_classes:
        raise InvalidInputError(
            f"the population table must contain the sample's records, but {short_classes} "
            f"class(es) ({short_rows} sample row(s)) have more rows in the sample than in the "
            f"population; pass the population the sample was drawn from, with the same "
            f"(anonymized) quasi-identifier values, or sampling_fraction= instead"
        )


def risk_summary(ddf, quasi_identifiers=None, *, population=None, sampling_fraction=None,
                 weights=None, household=None,
                 threshold: float = reidentification.DEFAULT_THRESHOLD,
                 missing: str = "value") -> pd.Series:
    """The risk summary of :func:`pdanon.metrics.risk_summary` for a Dask frame (same keys,
    same values): prosecutor and marketer risk, records at risk, sample uniques and, with
    ``population=`` (a pandas or Dask frame containing the sample) or ``sampling_fraction=``,
    the journalist figures (and Dankar's estimated population uniques with a sampling
    fraction). Only one row per distinct (f, F) pair reaches the client.

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> ddf = dd.from_pandas(pd.DataFrame({"zip": [1, 1, 2]}), npartitions=2)
    >>> pop = pd.DataFrame({"zip": [1, 1, 1, 1, 2, 2]})
    >>> float(risk_summary(ddf, ["zip"], population=pop)["highest_journalist_risk"])
    0.5
    """
    import dask

    check_dask_frame(ddf)
    fraction = _check_inputs(missing, population, sampling_fraction)
    qis = check_qis(ddf, quasi_identifiers)
    _check_survey_columns(ddf, qis, weights, household, population, fraction)
    if weights is not None or household is not None:
        return _survey_summary(ddf, qis, weights, household, threshold)
    if fraction is not None or population is None:
        counts = dask.compute(group_sizes(*class_keys(ddf, qis), split_out_of(ddf))
                              .value_counts(split_out=1))[0]
        figures = reidentification.summarize_counts(counts, threshold=threshold,
                                                    sampling_fraction=fraction)
    else:
        table, _ = _class_table(ddf, qis, population, first=False)
        pairs = table.groupby(["f", "F"]).size(split_out=1).reset_index()
        pairs = dask.compute(pairs)[0]
        short = pairs[pairs["F"] < pairs["f"]]
        _check_contains(int(short[0].sum()), int((short["f"] * short[0]).sum()))
        figures = reidentification.summarize_groups(
            pairs["f"].to_numpy(), pairs[0].to_numpy(), pairs["F"].to_numpy(),
            threshold=threshold)
    out = pd.Series(figures, name="risk", dtype=np.float64)
    if population is not None or fraction is not None:
        out.attrs["journalist"] = (
            f"journalist: estimate, population class size F = f / {sampling_fraction} "
            f"(sampling fraction)" if fraction is not None else "journalist: population table")
    return out


def _survey_summary(ddf, qis, weights, household, threshold) -> pd.Series:
    """The weighted (and household) summary: the class table on the client, the household
    products by one group-by."""
    from pdanon.metrics.survey import individual_risk

    if weights is not None:
        table = _class_table(ddf, qis, None, first=False, weights=weights)[0].compute()
        f, F = table["f"].to_numpy(dtype=np.int64), table["F"].to_numpy(dtype=np.float64)
        figures = reidentification.summarize_groups(f, np.ones(len(f), dtype=np.int64), F,
                                                    threshold=threshold)
        r = individual_risk(f, F)
        n = int(f.sum())
        figures["global_risk"] = float((f * r).sum() / n) if n else 0.0
        figures["expected_reidentifications"] = float((f * r).sum())
    else:
        counts = group_sizes(*class_keys(ddf, qis), split_out_of(ddf)).value_counts(
            split_out=1).compute()
        figures = reidentification.summarize_counts(counts, threshold=threshold)
    if household is not None:
        figures.update(_household_figures(ddf, qis, weights, household))
    out = pd.Series(figures, name="risk", dtype=np.float64)
    if weights is not None:
        out.attrs["journalist"] = (f"journalist: estimate, population class size F = the sum "
                                   f"of the sampling weights {weights!r} of the class")
    return out


def _household_figures(ddf, qis, weights, household) -> dict:
    """Mean and sum over rows of 1 - prod(1 - r) over each row's household."""
    import dask
    import dask.dataframe as dd

    rows = record_risk(ddf, qis, weights=weights)
    column = "individual" if weights is not None else "prosecutor"
    meta = pd.DataFrame({"hid": ddf._meta[household], "r": np.zeros(0), "log": np.zeros(0),
                         "sure": np.zeros(0, np.int64)})
    frame = dd.map_partitions(_household_parts, rows[[column]], ddf[[household]], column,
                              household, meta=meta, align_dataframes=False)
    missing = frame["hid"].isna()
    alone = frame[missing]["r"].sum()
    grouped = frame[~missing].groupby("hid", sort=False).agg(
        {"r": "size", "log": "sum", "sure": "max"}, split_out=1)
    n, alone, grouped = dask.compute(frame.shape[0], alone, grouped)
    risk = np.where(grouped["sure"].to_numpy() > 0, 1.0,
                    1.0 - np.exp(grouped["log"].to_numpy()))
    total = float((grouped["r"].to_numpy() * risk).sum() + alone)
    return {"household_global_risk": total / n if n else 0.0,
            "household_expected_reidentifications": total}


def _household_parts(risk: pd.DataFrame, ids: pd.DataFrame, column, household):
    """One partition's rows: household id, risk r, log(1 - r) and whether r is 1."""
    r = risk[column].to_numpy(dtype=np.float64)
    sure = r >= 1.0
    with np.errstate(divide="ignore"):
        logs = np.where(sure, 0.0, np.log1p(-np.minimum(r, 1.0)))
    return pd.DataFrame({"hid": ids[household].to_numpy(), "r": r, "log": logs,
                         "sure": sure.astype(np.int64)})


def record_risk(ddf, quasi_identifiers=None, *, population=None, sampling_fraction=None,
                weights=None, missing: str = "value"):
    """Per-row risk as a lazy Dask frame with the index and partitions of ``ddf`` and the
    columns of :func:`pdanon.metrics.record_risk`: ``class_id`` (classes numbered in order of
    first appearance, as pandas numbers them), ``class_size``, ``prosecutor`` and, with a
    population, ``journalist``; with ``weights=<column>`` also ``population_size`` (the sum of
    the class's weights) and ``individual`` (sdcMicro's individual risk). The class table is
    computed now (one row per class) and broadcast to the partitions; the rows are looked up
    when the result is computed.

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> ddf = dd.from_pandas(pd.DataFrame({"zip": [1, 1, 2]}), npartitions=2)
    >>> record_risk(ddf, ["zip"], sampling_fraction=0.5).compute()["journalist"].tolist()
    [0.25, 0.25, 0.5]
    """
    check_dask_frame(ddf)
    fraction = _check_inputs(missing, population, sampling_fraction)
    qis = check_qis(ddf, quasi_identifiers)
    _check_survey_columns(ddf, qis, weights, None, population, fraction)
    lazy, names = _class_table(ddf, qis, population, first=True, weights=weights)
    table = lazy.compute().sort_values("first", kind="stable").reset_index(drop=True)
    if population is not None:
        short = table["F"] < table["f"]
        _check_contains(int(short.sum()), int(table.loc[short, "f"].sum()))
    table["class_id"] = np.arange(len(table), dtype=np.int64)
    table = table.drop(columns="first")
    journalist = population is not None or fraction is not None or weights is not None
    meta = pd.DataFrame({"class_id": np.zeros(0, np.int64), "class_size": np.zeros(0, np.int64),
                         "prosecutor": np.zeros(0)}, index=ddf._meta.index)
    if journalist:
        meta["journalist"] = np.zeros(0)
    if weights is not None:
        meta["population_size"] = np.zeros(0)
        meta["individual"] = np.zeros(0)
    dtypes = column_dtypes(ddf, qis)
    return ddf.map_partitions(_lookup, qis, dtypes, names, table, fraction, journalist,
                              weights is not None, meta=meta)


def _lookup(pdf, qis, dtypes, names, table, fraction, journalist, weighted=False):
    """The risk columns of one partition's rows from the broadcast class table."""
    keys = (key_frame(pdf, qis, dtypes) if qis
            else pd.DataFrame({"k0": np.zeros(len(pdf), np.int64)}))
    got = keys.merge(table, on=names, how="left", sort=False)
    f = got["f"].to_numpy(dtype=np.int64)
    out = pd.DataFrame({"class_id": got["class_id"].to_numpy(dtype=np.int64), "class_size": f,
                        "prosecutor": 1.0 / f.astype(np.float64)}, index=pdf.index)
    if journalist:
        F = (f / fraction if fraction is not None
             else got["F"].to_numpy(dtype=np.float64))
        out["journalist"] = 1.0 / F
    if weighted:
        from pdanon.metrics.survey import individual_risk

        out["population_size"] = F
        out["individual"] = individual_risk(f, F)
    return out
