"""``household=`` on Dask: a household, family or case id published renumbered and verified
at household level, as :func:`pdanon.screening.households.protect` does on pandas frames.

The anonymizer carries the household column through unchanged (it is neither a
quasi-identifier nor tested as a channel, as on pandas, where it is added after the model
is verified); then, on the release, by Dask group-bys and one shuffle on the household id:

1. every row's published quasi-identifier cells become one key
   (:func:`pdanon.dask._channels.keys`: a missing cell is a value);
2. the rows are shuffled on the household id, and each partition builds the **signature** of
   its households: the sorted members' keys joined (their multiset, hence the household's
   size too);
3. ``value_counts`` of the signatures says how many households share each; a household whose
   signature fewer than k share is **unlinked** (its id missing, its rows kept);
4. the linked households get **fresh ids** 1..L in a uniformly random order: a random 63-bit
   key per household from the operating system's random source (``secrets``), a
   distributed sort on it, and each household's rank; the table of ids (one row per
   household) is broadcast to the release's partitions, which map their rows' ids without
   moving a row (the rows keep their order and index);
5. the household k of the result is measured again from the published ids (the same steps
   1-3) and must reach k, or :class:`pdanon.VerificationError`.

``info["household"]`` records what was done (:func:`pdanon.screening.households.record`).

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> release = pd.DataFrame({"hh": [7, 7, 8, 8, 9], "age": [1, 2, 1, 2, 1]})
>>> out, info = protect(dd.from_pandas(release, npartitions=2), "hh", ["age"], k=2)
>>> info["unlinked_households"], int(out["hh"].isna().sum().compute())
(1, 1)
"""

from __future__ import annotations

import secrets

import numpy as np
import pandas as pd

from pdanon._errors import VerificationError

__all__ = ["begin", "finish", "household_k", "protect", "skipped"]

#: separates a row's cells in its key, and the members' keys in a signature
CELL_SEP, MEMBER_SEP = "\x1f", "\x1e"


def _row_keys(pdf: pd.DataFrame, column, qi: list) -> pd.DataFrame:
    """Per row its household id (``hh``) and one key for its published quasi-identifiers."""
    from pdanon.dask._channels import keys

    key = np.full(len(pdf), "", dtype=object)
    for i, q in enumerate(qi):
        key = key + (CELL_SEP if i else "") + keys(pdf[q])
    return pd.DataFrame({"hh": pdf[column].to_numpy(), "key": pd.Series(key, dtype=object)
                         .to_numpy()}, index=pd.RangeIndex(len(pdf)))


def _signatures(pdf: pd.DataFrame) -> pd.DataFrame:
    """One partition's households (whole, after the shuffle on ``hh``): signature and size."""
    pdf = pdf.sort_values(["hh", "key"], kind="stable")
    grouped = (pdf["key"] + MEMBER_SEP).groupby(pdf["hh"], sort=False)
    return pd.DataFrame({"sig": grouped.sum().astype(object), "size": grouped.size()})


def _households(release, column, qi: list):
    """The lazy table of households (indexed by the id): ``sig`` and ``size``."""
    meta = pd.DataFrame({"hh": release._meta[column].to_numpy(),
                         "key": pd.Series(dtype=object).to_numpy()})
    rows = release.map_partitions(_row_keys, column, list(qi), meta=meta,
                                  clear_divisions=True)
    rows = rows[~rows["hh"].isna()]
    moved = rows.shuffle(on="hh", shuffle_method="tasks")
    out_meta = pd.DataFrame({"sig": pd.Series(dtype=object), "size": pd.Series(dtype=np.int64)},
                            index=pd.Index([], dtype=release._meta[column].dtype, name="hh"))
    return moved.map_partitions(_signatures, meta=out_meta, clear_divisions=True)


def household_k(release, column, qi) -> int | None:
    """The household k of a Dask release (the smallest number of households sharing a
    signature, :func:`pdanon.screening.households.household_k`), None without any id."""
    import dask

    counts = _households(release, column, list(qi))["sig"].value_counts()
    got, n = dask.compute(counts.min(), counts.size)
    return int(got) if int(n) else None


def _random_keys(pdf: pd.DataFrame, entropy: int, partition_info=None) -> pd.DataFrame:
    number = 0 if partition_info is None else int(partition_info["number"])
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(number,)))
    return pd.DataFrame({"r": rng.integers(0, 2 ** 63 - 1, size=len(pdf), dtype=np.int64)},
                        index=pdf.index)


def _ranks(pdf: pd.DataFrame, offsets: list, partition_info=None) -> pd.Series:
    number = 0 if partition_info is None else int(partition_info["number"])
    return pd.Series(np.arange(len(pdf), dtype=np.int64) + offsets[number] + 1,
                     index=pdf.index, name="new")


def _attach(pdf: pd.DataFrame, ids: pd.Series, column) -> pd.DataFrame:
    """The partition with its household ids replaced by the fresh ones (missing: unlinked)."""
    out = pdf.copy(deep=False)
    out[column] = pd.array(pdf[column].map(ids), dtype="Int64")
    out.attrs = dict(pdf.attrs)
    return out


def protect(release, column, qi, *, k: int, seed=None):
    """The Dask ``release`` (it holds ``column`` as the input's household ids) with the
    household ids renumbered and the households too rare unlinked (module docstring);
    returns ``(frame, info_household)``. ``seed`` (tests only) replaces the CSPRNG draw."""
    import dask
    from pdanon.screening.households import record

    qi = list(qi)
    table = _households(release, column, qi).persist()
    shared = table["sig"].value_counts().to_frame("shared")
    table = table.merge(shared, left_on="sig", right_index=True, how="left")
    linked = table[table["shared"] >= k]
    entropy = secrets.randbits(128) if seed is None else int(seed)
    keyed = linked.map_partitions(_random_keys, entropy,
                                  meta=pd.DataFrame({"r": pd.Series(dtype=np.int64)},
                                                    index=linked._meta.index))
    ordered = keyed.sort_values("r")
    lengths, n_hh, n_linked, unlinked_rows, without = dask.compute(
        ordered.map_partitions(len), table.shape[0], linked.shape[0],
        table.loc[table["shared"] < k, "size"].sum(), release[column].isna().sum())
    offsets = np.concatenate(([0], np.cumsum(np.asarray(lengths, dtype=np.int64))))[:-1].tolist()
    ids = ordered.map_partitions(_ranks, offsets, meta=pd.Series(
        dtype=np.int64, name="new", index=ordered._meta.index))
    ids = ids.repartition(npartitions=1).to_delayed()[0]  # one row per linked household
    meta = release._meta.copy()
    meta[column] = pd.array([], dtype="Int64")
    out = release.map_partitions(_attach, ids, column, meta=meta)
    achieved = household_k(out, column, qi) if int(n_linked) else None
    if achieved is not None and achieved < k:  # a bug, never a release
        raise VerificationError(f"household k {achieved} < {k} after protection")
    info = record(column, k, households=int(n_hh), linked=int(n_linked),
                  unlinked_rows=int(unlinked_rows), without=int(without), achieved=achieved)
    return out, info


# ------------------------------------------------------------------ the anonymizers' steps
def skipped(household) -> list:
    """The columns the channel rule leaves to the household step: the household column
    carried to it (``household``: ``(column, ids, k)`` or None), as on pandas."""
    return [household[0]] if household is not None and household[1] == "renumber" else []


def begin(household, info: dict) -> None:
    """Record a dropped household column in ``info`` before anything is written."""
    from pdanon.screening.households import dropped

    if household is not None and household[1] == "drop":
        info["household"] = dropped(household[0], household[2])


def finish(out, household, qi, info: dict, *, persist: bool):
    """The release after the household step (``household``: ``(column, ids, k)``;
    :func:`protect` when ids are renumbered), its partitions' attrs carrying
    ``info["household"]`` (so that a Parquet file written from it records it)."""
    import copy

    from pdanon.dask._local import with_attrs

    if household is None or household[1] != "renumber":
        return out
    column, _, k = household
    out, info["household"] = protect(out, column, qi, k=k)
    attrs = copy.deepcopy(dict(out._meta.attrs))
    if "pdanon" in attrs:
        attrs["pdanon"].setdefault("info", {})["household"] = dict(info["household"])
    meta = out._meta.copy()
    meta.attrs = attrs
    out = out.map_partitions(with_attrs, attrs, meta=meta)
    return out.persist() if persist else out
