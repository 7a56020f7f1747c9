"""``ddf.anon.apply_recoding``: a kept recoding (:mod:`pdanon.republication.recoding`) applied to a Dask
frame, with the pandas face's rules and the model verified on the whole frame (global
recodings looked up column by column, local ones placed by their classes' tree, in every
partition alike).

1. one pass: in every partition each recoded column's values are looked up
   (:meth:`pdanon.republication.recoding.ColumnRecoding.lookup`, the pandas code), and the partition
   returns the distinct tuples of cell positions with their row counts (and, for a model that
   reads sensitive columns, their counts per sensitive value) and the unseen values per column;
2. on the driver the tuples are the published classes: the model answers on their counts
   (:func:`pdanon.dask._models.groups_ok_from_counts`); the rows of failing classes are
   suppressed, and together with the rows already blank everywhere they are one more class,
   which must meet the model too, within the budget — or the call fails as on pandas;
3. a second pass publishes every partition (the failing tuples broadcast), puts the rows in a
   CSPRNG order across partitions under a fresh index (:mod:`pdanon.dask._order`; unless
   ``row_order="input"``), and a distributed group-by on the output verifies the model again
   (:func:`pdanon.dask._models.verify_output`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdanon._errors import InfeasibleError, InvalidInputError
from pdanon.dask import _channels as channels
from pdanon.dask._local import with_attrs
from pdanon.dask._models import groups_ok_from_counts, verify_output
from pdanon.dask._order import publish_order, shuffled_info
from pdanon.roles import foreign_attrs
from pdanon.checks.row_order import check_row_order

__all__ = ["apply_recoding"]


@dataclass
class _Spec:
    """What every partition needs (broadcast once)."""

    recoding: object
    sensitive: dict        # name -> GlobalColumn, for a model that reads them
    failing: object        # a MultiIndex of the failing position tuples (or None)
    keep: list
    attrs: dict


def _positions(pdf: pd.DataFrame, spec: _Spec) -> pd.DataFrame:
    """Per row the position of its cell in every recoded column (-1 missing, -2 unseen):
    looked up column by column, or for a local recoding placed by its classes' tree."""
    placed = spec.recoding.place(pdf) if len(pdf) else None
    return pd.DataFrame({f"p{j}": col.lookup(pdf[col.name]) if placed is None
                         else placed[col.name]
                         for j, col in enumerate(spec.recoding.columns.values())},
                        index=pd.RangeIndex(len(pdf)))


def _tables(pdf: pd.DataFrame, spec: _Spec) -> dict:
    """One partition's counts: rows per tuple, per sensitive column rows per (tuple, value),
    unseen values per column."""
    pos = _positions(pdf, spec)
    names = list(pos.columns)
    unseen = (pos == -2).sum().to_numpy()
    # rows published blank everywhere because a value was unseen (not blank from the start)
    blanked = int(((pos < 0).all(axis=1) & (pos == -2).any(axis=1)).sum())
    pos = pos.clip(lower=-1)  # an unseen value is published missing, as a missing one
    out = {"rows": pos.groupby(names).size(), "unseen": unseen, "unseen_rows": blanked}
    for c, g in spec.sensitive.items():
        with_s = pos.assign(s=g.codes(pdf[c]))
        out[c] = with_s.groupby([*names, "s"]).size()
    return out


def _merge(tables: list) -> dict:
    """Several partitions' counts as one: the unseen counts added, the tables' counts added
    per tuple."""
    out = {"unseen": np.sum([t["unseen"] for t in tables], axis=0),
           "unseen_rows": sum(t["unseen_rows"] for t in tables)}
    for key in tables[0]:
        if key not in ("unseen", "unseen_rows"):
            s = pd.concat([t[key] for t in tables])
            out[key] = s.groupby(level=list(range(s.index.nlevels))).sum()
    return out


def _publish(pdf: pd.DataFrame, spec: _Spec) -> pd.DataFrame:
    out = pdf[spec.keep].copy()
    pos = _positions(pdf, spec).clip(lower=-1)
    suppressed = np.zeros(len(pdf), dtype=bool)
    if spec.failing is not None and len(spec.failing) and len(pdf):
        suppressed = pd.MultiIndex.from_frame(pos).isin(spec.failing)
    for j, col in enumerate(spec.recoding.columns.values()):
        out[col.name] = col.publish(np.where(suppressed, -1, pos[f"p{j}"].to_numpy()),
                                    pdf.index)
    out.attrs = dict(spec.attrs)
    return out


def apply_recoding(ddf, roles, recoding, *, model, max_suppressed_rows=None,
                   row_order: str = "random", seed=None, allow_channels=None):
    """Publish ``ddf`` with ``recoding`` (``roles``: resolved, its quasi-identifiers the
    recoding's columns; ``model``: a PrivacyModel or None); returns ``(frame, info)``. Before
    it returns, the channel rule (:func:`pdanon.dask._channels.guard`; ``allow_channels`` as
    on pandas), with the k of ``model`` (at least 2)."""
    import dask

    from pdanon.dask._metrics import sensitive_columns
    from pdanon.dask._models import check_feasible
    from pdanon.partition.common import check_suppression_budget, suppression_budget
    from pdanon.republication.recoding import DEFAULT_SUPPRESSED_SHARE, infeasible_message, record_or_empty

    started = time.perf_counter()
    check_row_order(row_order)
    check_suppression_budget(max_suppressed_rows)
    recoding.place(ddf._meta)  # refuses a local recoding kept without its classes
    qnames = list(recoding.columns)
    keep = [c for c in ddf.columns if c not in set(roles.identifiers)]
    reads = model is not None and model.requirements().sensitive
    sens_spec = dict(roles.sensitive) if reads else {}
    sensitive = {}
    if sens_spec:
        sensitive = sensitive_columns(ddf, sens_spec)
        sensitive.pop("extra")
    spec = _Spec(recoding, sensitive, None, keep, {})
    parts = [dask.delayed(_tables)(p, spec) for p in ddf.to_delayed()]
    while len(parts) > 1:
        parts = [dask.delayed(_merge)(parts[i:i + 16]) for i in range(0, len(parts), 16)]
    counts = dask.compute(parts[0])[0] if parts else {"rows": pd.Series(dtype=np.int64),
                                                      "unseen": np.zeros(len(qnames)),
                                                      "unseen_rows": 0}
    rows = counts["rows"]
    n = int(rows.sum())
    if model is not None:
        check_feasible(model, n, sensitive)
    budget = suppression_budget(max_suppressed_rows, n,
                                default=int(DEFAULT_SUPPRESSED_SHARE * n))
    failing = None
    suppressed = 0
    if model is not None and n:
        index = rows.index if isinstance(rows.index, pd.MultiIndex) else \
            pd.MultiIndex.from_arrays([rows.index])
        sizes = rows.to_numpy(np.int64)
        dense = {c: _dense(counts[c], index, sensitive[c].column.m) for c in sensitive}
        ok = groups_ok_from_counts(model, sizes, dense, sensitive)
        failing = index[~ok]
        suppressed = int(sizes[~ok].sum())
        blank = np.all(index.to_frame().to_numpy() == -1, axis=1)
        joined = ~ok | blank  # the suppressed rows and the rows blank everywhere: one class
        blank_ok = True
        if suppressed:
            blank_ok = bool(groups_ok_from_counts(
                model, np.array([sizes[joined].sum()]),
                {c: d[joined].sum(axis=0, keepdims=True) for c, d in dense.items()},
                sensitive)[0])
        if suppressed > budget or not blank_ok:
            raise InfeasibleError(infeasible_message(suppressed, n, model, budget, blank_ok))
    unseen = {c: int(u) for c, u in zip(qnames, counts["unseen"])}
    # rows blank everywhere for an unseen value count as suppressed (as on pandas), unless
    # the blank class failed and they are counted among the suppressed already
    blank_failed = failing is not None and len(failing) and bool(
        np.all(failing.to_frame().to_numpy() == -1, axis=1).any())
    unseen_rows = 0 if blank_failed else int(counts["unseen_rows"])
    info = {
        "operation": "apply_recoding", "recoding": recoding.fingerprint,
        "algorithm": recoding.algorithm, "method": recoding.method,
        "model": None if model is None else model.name,
        "params": {} if model is None else model.params(),
        "models": record_or_empty(model), "quasi_identifiers": qnames,
        "dropped_identifiers": list(roles.identifiers), "rows": n,
        "unseen_cells": unseen, "suppressed_rows": suppressed + unseen_rows,
        "unseen_rows": unseen_rows,
        "max_suppressed_rows": budget, "engine": "dask",
    }
    shuffled_info(info, row_order)
    allowed = channels.allowed(allow_channels, ddf._meta[keep], qnames)
    if allowed:
        info["channels_allowed"] = allowed
    attrs = foreign_attrs(ddf._meta.attrs)  # the input's own attrs are not published
    out_roles = roles.restricted_to(keep)
    spec = _Spec(recoding, {}, failing, keep, {**attrs, "pdanon": {
        "roles": out_roles.to_dict(), "info": dict(info)}})
    meta = _publish(ddf._meta, spec)
    out = publish_order(ddf.map_partitions(_publish, dask.delayed(spec, pure=True), meta=meta),
                        row_order, before=ddf, seed=seed).persist()
    if model is not None:
        info["verified"] = verify_output(out, qnames, sensitive, model, n)
        info["achieved"] = {"k": info["verified"]["k"]}
    if n:  # the channel rule (pdanon.dask._channels), as df.anon.apply_recoding
        req = model.requirements() if model is not None else None
        channels.guard(ddf, out, qnames, info,
                       k=max(req.min_size, req.min_distinct) if req is not None else 2,
                       allow_channels=allow_channels, sensitive=roles.sensitive,
                       aggregate=recoding.method == "aggregate")
    info["seconds"] = time.perf_counter() - started
    final = {**attrs, "pdanon": {"roles": out_roles.to_dict(), "info": info}}
    meta = out._meta.copy()
    meta.attrs = final
    return out.map_partitions(with_attrs, final, meta=meta), info


def _dense(pairs: pd.Series, index: pd.MultiIndex, m: int) -> np.ndarray:
    """(classes x sensitive values) counts from a Series indexed by (tuple..., value)."""
    out = np.zeros((len(index), m), dtype=np.int64)
    if len(pairs):
        frame = pairs.index.to_frame(index=False)
        tuples = pd.MultiIndex.from_frame(frame.iloc[:, :-1])
        cls = index.get_indexer(tuples)
        if (cls < 0).any():
            raise InvalidInputError("the sensitive counts name a class that the row counts do "
                                    "not (the data changed between passes?)")
        np.add.at(out, (cls, frame.iloc[:, -1].to_numpy(np.int64)), pairs.to_numpy())
    return out
