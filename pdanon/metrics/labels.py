"""Utility of a release published as hierarchy labels (``labels=True``).

A labelled quasi-identifier holds the hierarchy's labels (``20-39``, ``0477*``, ``2024Q4``) as
a Categorical, which cannot be compared cell by cell with the original values. For every
figure measured against the original, :func:`as_ranges` puts in its place what the labels
stand for on these rows: each label becomes the range (real, ordered) or the set (unordered)
of the original values of the rows that carry it - the cells ``labels=False`` would have
published at the same levels - so changed cells, information loss and the report's column
figures are measured against the real original table. Only the publisher, who holds the
original, can do this; nothing of it is written into the release.

Example
-------
>>> import pandas as pd
>>> release = pd.DataFrame({"age": pd.Categorical(["20-39", "20-39", "40-59"],
...                                               categories=["20-39", "40-59"], ordered=True)})
>>> original = pd.DataFrame({"age": [23, 31, 44]})
>>> ranges, kinds = as_ranges(release, original, {"age": "ordered"})
>>> ranges["age"].astype(str).tolist(), kinds
(['[23, 31]', '[23, 31]', '44'], {'age': 'real'})
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def as_ranges(anonymized: pd.DataFrame, original: pd.DataFrame, qis: dict):
    """``(frame, kinds)``: ``anonymized`` with each labelled quasi-identifier replaced by the
    ranges or sets of ``original``'s values its labels stand for (rows aligned by index; a
    row whose label is missing - suppressed - stays missing), and the quasi-identifiers'
    kinds with those columns' original kinds. Returns the inputs unchanged when no column is
    labelled."""
    out, kinds = None, dict(qis)
    bands = anonymized.attrs.get("pdanon", {}).get("info", {}).get("label_ranges") or {}
    for c, kind in qis.items():
        if c not in original.columns or not _labelled(anonymized[c], original[c]):
            continue
        units = _units(anonymized[c], original[c]) if kind != "unordered" else None
        if c in bands:  # a declared band: the range the label stands for, as published
            arr, kinds[c] = _bands(anonymized[c], bands[c]), "real"
        elif units is not None:  # a month, quarter, year: the whole unit, as published
            arr, kinds[c] = units, "ordered"
        else:
            arr, kinds[c] = _hulls(anonymized[c], original[c], kind)
        out = anonymized.copy() if out is None else out
        out[c] = pd.Series(arr, index=anonymized.index, name=c)
    return (anonymized, dict(qis)) if out is None else (out, kinds)


def _hulls(labels: pd.Series, source: pd.Series, kind: str):
    """``(cells, kind)``: per row the range (real, ordered) or set (unordered) of the original
    values of the rows that carry its label; a missing label is a missing cell."""
    from pdanon.dtype import GeneralizationArray
    from pdanon.roles import infer_kind

    groups = np.asarray(labels.cat.codes, dtype=np.int64)
    okind = "unordered" if kind == "unordered" else infer_kind(source)
    okind = "ordered" if okind == "unordered" and kind != "unordered" else okind
    if okind == "real":
        values = pd.to_numeric(source, errors="coerce").to_numpy(dtype=np.float64)
        values = np.where(groups < 0, np.nan, values)
        return GeneralizationArray.from_groups(
            values, groups, kind="real",
            integer=bool(pd.api.types.is_integer_dtype(source.dtype))), okind
    codes, cats = _codes(source)
    codes = np.where(groups < 0, -1, codes)
    return GeneralizationArray.from_groups(codes, groups, kind=okind, categories=cats), okind


def _units(labels: pd.Series, source: pd.Series):
    """Per row the calendar unit its label names (``2024-03``, ``2024Q1``, ``2024``), as the
    ranges ``labels=False`` publishes for a ``dates()`` level, when ``source`` holds dates and
    every label is a unit; else None."""
    from pdanon.calendar import label_bounds
    from pdanon.dtype import GeneralizationArray
    from pdanon.dtype._common import calendar_unit
    from pdanon.hierarchy.levels import with_units

    present = source.dropna()
    stamps = pd.api.types.is_datetime64_any_dtype(source.dtype)
    if not len(present) or not (stamps or pd.api.types.infer_dtype(present) == "date"):
        return None
    names = labels.cat.categories
    if not len(names) or not all(isinstance(t, str) and calendar_unit(t) for t in names):
        return None
    values = pd.DatetimeIndex(present.unique()).sort_values() if stamps else pd.Index(
        sorted(set(present)), dtype=object)
    cats, units = with_units(values, {1: label_bounds(names, values)})
    lo_c, hi_c = units[1]
    codes = np.asarray(labels.cat.codes, dtype=np.int64)
    lo = np.where(codes >= 0, lo_c[np.maximum(codes, 0)], -1)
    hi = np.where(codes >= 0, hi_c[np.maximum(codes, 0)], -1)
    return GeneralizationArray.from_bounds(lo, hi, kind="ordered", categories=cats,
                                           mask=codes < 0)


def _bands(labels: pd.Series, bands: dict):
    """The declared ranges of ``labels`` (``{label: [lo, hi, closed]}``, recorded in
    ``info["label_ranges"]``); a label without one, or missing, is a missing cell."""
    from pdanon.dtype import GeneralizationArray

    # one band per category, then taken by each row's code (-1: missing)
    cats = labels.cat.categories
    lo_c = np.array([bands[t][0] if t in bands else np.nan for t in cats] + [np.nan])
    hi_c = np.array([bands[t][1] if t in bands else np.nan for t in cats] + [np.nan])
    closed_c = np.array([bands[t][2] if t in bands else "both" for t in cats] + ["both"],
                        dtype=object)
    codes = np.asarray(labels.cat.codes, dtype=np.int64)  # -1 takes the appended missing
    lo, hi, closed = lo_c[codes], hi_c[codes], closed_c[codes]
    present = ~np.isnan(lo)
    integer = bool(present.any()) and bool((lo[present] == np.round(lo[present])).all()) and \
        bool((hi[present] == np.round(hi[present])).all())
    return GeneralizationArray.from_bounds(lo, hi, kind="real", closed=closed,
                                           integer=integer and (closed[present] == "both").all())


def _labelled(published: pd.Series, original: pd.Series) -> bool:
    """A Categorical of labels: some original value is not one of its categories."""
    if not isinstance(published.dtype, pd.CategoricalDtype):
        return False
    present = original[original.notna()]
    return bool(len(present)) and not bool(present.isin(published.cat.categories).all())


def _codes(source: pd.Series):
    """Value codes (-1 missing) and categories in the column's order."""
    if isinstance(source.dtype, pd.CategoricalDtype):
        return np.asarray(source.cat.codes, dtype=np.int64), source.cat.categories
    codes, cats = pd.factorize(source, sort=True)
    return np.asarray(codes, dtype=np.int64), cats
