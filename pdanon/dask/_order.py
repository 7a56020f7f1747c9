"""The order a Dask release publishes its rows in: uniformly random across partitions, drawn
from the operating system's CSPRNG, under a fresh index (as :mod:`pdanon.checks.row_order` does for
pandas frames).

The permutation is made in two steps that never bring the rows to one worker:

1. every row draws a random 63-bit key (a generator per input partition, seeded from one
   128-bit :func:`secrets.randbits` draw and the partition's number) and Dask's task shuffle
   sends it to the output partition its key hashes to: rows go to partitions independently and
   identically, whatever partition or place they held;
2. every output partition permutes its rows with a generator of its own.

Given how many rows each output partition holds (which depends on the random keys only), every
assignment of the rows to the places with those sizes is equally likely, and so is every order
inside a partition: the published order is a uniformly random permutation of the rows, which
carries nothing of the input's partitions, divisions or order. The index is fresh:
``r{i * m + j}`` for the ``i``-th row of output partition ``j`` of ``m`` (unique labels, none of
them the input's; ``s`` instead of ``r`` when the input's own labels start with ``r``).

Dask keeps **no way back** to the input's rows (the pandas faces keep one in memory,
publisher-only): Dask's metrics, risk and verification read the release alone. To compare a
Dask release with its input row by row, make it with ``row_order="input"``: it keeps the
input's partitions, index and order, records ``info["row_order"] = "input"``, and
:func:`pdanon.checks.policy.check`'s default policy fails it by that fact (criterion ``random_row_order``).

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> df = pd.DataFrame({"age": range(10)})
>>> out = publish_order(dd.from_pandas(df, npartitions=3), seed=0).compute()
>>> sorted(out["age"]) == list(range(10)), out.index.str.startswith("r").all()
(True, np.True_)
"""

from __future__ import annotations

import secrets

import numpy as np
import pandas as pd

from pdanon.checks.row_order import check_row_order

__all__ = ["KEY", "publish_order", "shuffled_info"]

#: the temporary column that carries each row's random key through the shuffle
KEY = "__pdanon_order_key__"


def _rng(entropy: int, step: int, number: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(step, number)))


def _keyed(pdf: pd.DataFrame, entropy: int, partition_info=None) -> pd.DataFrame:
    """``pdf`` with a random key per row (step 1) and a plain position index."""
    number = 0 if partition_info is None else int(partition_info["number"])
    keys = _rng(entropy, 0, number).integers(0, 2 ** 63 - 1, size=len(pdf), dtype=np.int64)
    out = pdf.reset_index(drop=True)
    out[KEY] = keys
    out.attrs = dict(pdf.attrs)
    return out


def _permuted(pdf: pd.DataFrame, entropy: int, prefix: str, parts: int,
              partition_info=None) -> pd.DataFrame:
    """An output partition's rows in a random order (step 2) under its fresh labels."""
    number = 0 if partition_info is None else int(partition_info["number"])
    order = _rng(entropy, 1, number).permutation(len(pdf))
    out = pdf.drop(columns=[KEY]).iloc[order]
    labels = np.arange(len(pdf), dtype=np.int64) * parts + number
    out.index = pd.Index(np.char.add(prefix, labels.astype(str)), dtype="str")
    out.attrs = dict(pdf.attrs)
    return out


def _prefix(ddf) -> str:
    """``"r"``, or ``"s"`` when the input's own labels are text starting with ``r`` (a chained
    step's input is a release); only a text index is read (one pass over the labels)."""
    index = ddf._meta.index
    if pd.api.types.is_numeric_dtype(index.dtype) or \
            pd.api.types.is_datetime64_any_dtype(index.dtype) or \
            isinstance(index, pd.MultiIndex):
        return "r"
    clash = ddf.index.map_partitions(
        lambda ix: pd.Series([bool(pd.Index(ix).astype(str).str.startswith("r").any())]),
        meta=pd.Series(dtype=bool)).any().compute()
    return "s" if bool(clash) else "r"


def publish_order(out, row_order: str = "random", *, before=None, seed=None):
    """``out`` (a Dask release) as it is published: with ``row_order="random"`` its rows in a
    uniformly random order across partitions under a fresh index (module docstring), with
    ``"input"`` as it is. ``before`` is the step's input (its index is avoided; default
    ``out``). ``seed`` (tests only) replaces the CSPRNG draw: whoever knows it can undo the
    order."""
    check_row_order(row_order)
    if row_order == "input":
        return out
    entropy = secrets.randbits(128) if seed is None else int(seed)
    prefix = _prefix(out if before is None else before)
    parts = max(int(out.npartitions), 1)
    meta = _keyed(out._meta, entropy)
    keyed = out.map_partitions(_keyed, entropy, meta=meta, clear_divisions=True)
    moved = keyed.shuffle(on=KEY, npartitions=parts, shuffle_method="tasks")
    meta = _permuted(meta, entropy, prefix, parts)
    return moved.map_partitions(_permuted, entropy, prefix, parts, meta=meta,
                                clear_divisions=True)


def shuffled_info(info: dict, row_order: str) -> dict:
    """``info`` with what :func:`publish_order` did: ``row_order`` and, for a random order,
    ``rows_match_input = False`` (no way back is kept on Dask)."""
    info["row_order"] = check_row_order(row_order)
    if row_order == "random":
        info["rows_match_input"] = False
    return info
