"""Columns as the attacks see them: published cells as predicates over plain values.

Every attacked column gets one value space shared by the release, the original and the
control set:

* ``num``: numbers (``real`` columns; dates and durations as their integer nanoseconds;
  ordered ranges of numbers or dates). A release cell is an interval ``[lo, hi]`` (a plain
  value has ``lo == hi``), strict at an open end; the distance of a value to a cell is its
  gap to the interval divided by the column's spread (Gower's rule for numbers).
* ``pos``: an ordered Categorical: category positions, read like ``num`` (spread: the number of
  categories less one).
* ``cat``: anything else (``unordered``): a cell is a plain value or a set of values; the
  distance is 0 when the cell contains the value, else 1.

A plain ``*`` published in a column of categories is the top of a hierarchy (pdanon's mark of
a column generalized away): it contains every value, unless the original itself holds ``*``.
A missing cell contains only missing values (``missing="value"``); with
``missing="wildcard"`` (local suppression) a missing release cell contains every value. A
missing value is at distance 1 from every cell that does not contain it.

:class:`Cells` holds cells in this space (the release's, or the singling-out predicates', which
are cells too: ``age >= 50`` is the interval ``[50, inf]``); :meth:`Column.contains` and
:meth:`Column.distance` compare a block of values with a block of cells, vectorized, returning a
values × cells matrix (callers chunk so that it stays within a memory budget).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError

#: a plain published "*": the top of a hierarchy, any value (unless the original holds "*")
STAR = "*"
#: the distance of a value to a cell whose open end it sits on (not contained, not apart)
EDGE = 1e-9


@dataclass
class Cells:
    """Cells of one column. ``num``/``pos``: ``lo``, ``hi`` (float, ±inf allowed), ``olo``,
    ``ohi`` (open ends). ``cat``: ``key`` (the value's key, -1 for a set) and, for sets, the
    CSR ``offsets``/``members`` (keys, sorted per cell). Both: ``na`` (a missing cell) and
    ``wild`` (contains every value)."""

    na: np.ndarray
    wild: np.ndarray
    lo: np.ndarray | None = None
    hi: np.ndarray | None = None
    olo: np.ndarray | None = None
    ohi: np.ndarray | None = None
    key: np.ndarray | None = None
    offsets: np.ndarray | None = None
    members: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.na)

    def take(self, idx) -> Cells:
        """The cells at positions ``idx``."""
        idx = np.asarray(idx, dtype=np.int64)
        out = Cells(self.na[idx], self.wild[idx])
        for name in ("lo", "hi", "olo", "ohi", "key"):
            v = getattr(self, name)
            if v is not None:
                setattr(out, name, v[idx])
        if self.offsets is not None:
            lens = np.diff(self.offsets)[idx]
            starts = self.offsets[:-1][idx]
            out.offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
            at = np.repeat(starts - out.offsets[:-1], lens) + np.arange(int(lens.sum()))
            out.members = self.members[at]
        return out


def _is_generalized(s: pd.Series) -> bool:
    return type(s.dtype).__name__ == "GeneralizationDtype"


def _as_float(s: pd.Series) -> np.ndarray:
    """Numbers, dates (ns) and durations (ns) as float64, NaN for missing."""
    dtype = s.dtype
    if pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype):
        na = s.isna().to_numpy()
        v = s.array.view("i8") if hasattr(s.array, "view") else s.astype("int64").to_numpy()
        return np.where(na, np.nan, np.asarray(v, dtype=np.float64))
    if pd.api.types.is_bool_dtype(dtype):
        raise KindError("booleans are unordered")
    return pd.to_numeric(s, errors="raise").to_numpy(dtype=np.float64, na_value=np.nan)


def _ends(arr) -> tuple[np.ndarray, np.ndarray]:
    closed = np.asarray(arr.closed, dtype=object)
    return np.isin(closed, ["right", "neither"]), np.isin(closed, ["left", "neither"])


class Column:
    """One attacked column: its space (from the original) and the conversions into it."""

    def __init__(self, name, original: pd.Series, release: pd.Series, others=(),
                 missing: str = "value", hierarchy=None):
        from pdanon.roles import infer_kind

        self.name = name
        self.missing = missing
        self.hierarchy = hierarchy
        self._seen = [original, *others]
        kind = infer_kind(original)
        self.categories = None
        self.star_is_value = any(bool((o.astype(object) == STAR).any())
                                 for o in [original, *others] if not _is_generalized(o))
        if isinstance(original.dtype, pd.CategoricalDtype) and original.dtype.ordered:
            self.space = "pos"
            self.categories = pd.Index(original.dtype.categories)
            self.scale = float(max(len(self.categories) - 1, 1))
            return
        if kind == "real" or (kind == "ordered" and not original.dtype == object):
            try:
                values = [_as_float(original)] + [_as_float(o) for o in others]
                self.space = "num"
            except (KindError, TypeError, ValueError):
                self.space = "cat"
            if self.space == "num":
                cells = self.release_cells(release)
                parts = values + [cells.lo[np.isfinite(cells.lo)], cells.hi[np.isfinite(cells.hi)]]
                allv = np.concatenate([p[~np.isnan(p)] for p in parts])
                spread = float(allv.max() - allv.min()) if len(allv) else 0.0
                self.scale = spread if spread > 0 else 1.0
                return
        self.space = "cat"
        self.scale = 1.0
        seen = [original, release] + list(others)  # "*" included: harmless as a category
        pieces = []
        for s in seen:
            if _is_generalized(s):
                pieces.append(pd.Index(s.array.categories, dtype=object))
            else:
                pieces.append(pd.Index(pd.unique(s.dropna().astype(object)), dtype=object))
        idx = pieces[0]
        for p in pieces[1:]:
            idx = idx.append(p)
        self.categories = pd.Index(pd.unique(idx), dtype=object, tupleize_cols=False)

    # -- values ----------------------------------------------------------------------------
    @property
    def missing_key(self) -> int:
        return len(self.categories)

    def values(self, s: pd.Series) -> np.ndarray:
        """The plain values of a target column in this space: float (NaN missing) for
        ``num``/``pos``, int keys (``missing_key`` for missing) for ``cat``."""
        if _is_generalized(s):
            raise KindError(f"column {self.name!r} of the original or control holds "
                            f"generalized cells; attack targets must be plain values")
        if self.space == "num":
            return _as_float(s)
        if self.space == "pos":
            cast = pd.Categorical(s.astype(object), categories=self.categories, ordered=True)
            bad = cast.isna() & s.notna().to_numpy()
            if bad.any():
                raise InvalidInputError(
                    f"column {self.name!r}: value {s[bad].iloc[0]!r} is not among the original's "
                    f"categories; give both tables the same categories")
            codes = cast.codes.astype(np.float64)
            return np.where(codes < 0, np.nan, codes)
        obj = s.astype(object).to_numpy()
        na = pd.isna(obj)
        pos = self.categories.get_indexer(pd.Index(obj, dtype=object, tupleize_cols=False))
        return np.where(na, self.missing_key, pos).astype(np.int64)

    # -- release cells ---------------------------------------------------------------------
    def release_cells(self, s: pd.Series) -> Cells:
        """The cells of a release column (generalized or plain) in this space."""
        n = len(s)
        na = s.isna().to_numpy()
        wild = na if self.missing == "wildcard" else np.zeros(n, dtype=bool)
        gen = _is_generalized(s)
        if not gen and self.space != "num":
            star = (s.astype(object) == STAR).to_numpy(dtype=bool)
            if star.any() and not self.star_is_value:  # the top of a hierarchy: any value
                cells = self.release_cells(s.astype(object).where(~star, None))
                cells.wild = cells.wild | star
                cells.na = cells.na & ~star
                return cells
            labels = self._labels(s)
            if labels is not None:
                return self._label_cells(s, labels, wild)
        if self.space in ("num", "pos"):
            olo = np.zeros(n, dtype=bool)
            ohi = np.zeros(n, dtype=bool)
            if not gen:
                v = self.values(s)
                lo = hi = v
            else:
                arr = s.array
                if arr.kind == "unordered":
                    raise KindError(f"column {self.name!r}: the release holds sets but the "
                                    f"original is ordered; give both the same kind")
                olo, ohi = _ends(arr)
                if arr.categories is None:
                    lo = np.asarray(arr.lo, dtype=np.float64)
                    hi = np.asarray(arr.hi, dtype=np.float64)
                else:
                    cats = self._category_values(arr.categories)
                    ilo, ihi = np.asarray(arr.lo), np.asarray(arr.hi)
                    lo = np.where(ilo < 0, np.nan, cats[np.maximum(ilo, 0)])
                    hi = np.where(ihi < 0, np.nan, cats[np.maximum(ihi, 0)])
            return Cells(na, wild, lo=np.where(na, np.nan, lo), hi=np.where(na, np.nan, hi),
                         olo=olo & ~na, ohi=ohi & ~na)
        if not gen:
            return Cells(na, wild, key=self.values(s))
        arr = s.array
        if arr.kind != "unordered":
            raise KindError(f"column {self.name!r}: the release holds ranges but the original "
                            f"is unordered; give both the same kind")
        cmap = self.categories.get_indexer(pd.Index(arr.categories, dtype=object,
                                                    tupleize_cols=False))
        offsets, members = arr.members()
        lens = np.diff(offsets)
        members = cmap[members]
        key = np.full(n, -1, dtype=np.int64)
        single = lens == 1
        key[single] = members[offsets[:-1][single]]
        key[na] = self.missing_key
        # per-cell sorted members (plain cells keep theirs too: harmless)
        order = np.lexsort((members, np.repeat(np.arange(n), lens)))
        return Cells(na, wild, key=key, offsets=offsets.astype(np.int64),
                     members=members[order].astype(np.int64))

    def _labels(self, s: pd.Series):
        """Plain published values that are no value of the original: hierarchy labels
        (``{label: [values it covers]}`` read from ``hierarchy``), or None when there are
        none. Without a hierarchy an unseen value of an unordered column is a value of its
        own, and one of an ordered column (no place in its order) is refused."""
        obj = pd.Index(pd.unique(s.dropna().astype(object)), dtype=object, tupleize_cols=False)
        known = pd.Index(pd.unique(pd.concat([o.dropna().astype(object) for o in self._seen])),
                         dtype=object, tupleize_cols=False)
        unknown = obj[~obj.isin(known)]
        if self.space == "cat" and len(unknown) == 0:
            return None
        if self.space == "pos":
            unknown = obj[self.categories.get_indexer(obj) < 0]
        if len(unknown) == 0 or (self.hierarchy is None and self.space == "cat"):
            return None  # unordered: an unseen value is a value of its own
        if self.hierarchy is None:
            raise InvalidInputError(
                f"column {self.name!r}: the release publishes {unknown[0]!r}, which is no value "
                f"of the original; if it is a hierarchy label, pass hierarchies={{"
                f"{self.name!r}: <the hierarchy the release was made with>}} so that the "
                f"attack reads which values it covers")
        table = self.hierarchy.levels_table(known.to_numpy())
        covers = {}
        for level in [c for c in table.columns if c != "value"]:
            for label, values in table.groupby(level, sort=False)["value"]:
                covers.setdefault(label, set()).update(v for v in values if not pd.isna(v))
        missing = [u for u in unknown if u not in covers]
        if missing:
            raise InvalidInputError(
                f"column {self.name!r}: the release publishes {missing[0]!r}, neither a value "
                f"of the original nor a label of the hierarchy given for it")
        return {u: sorted(covers[u], key=str) for u in unknown}

    def _label_cells(self, s: pd.Series, labels: dict, wild: np.ndarray) -> Cells:
        """Cells of a column that holds hierarchy labels: each label the set (``cat``) or
        the range of positions (``pos``) of the values it covers."""
        obj = s.astype(object)
        is_label = obj.isin(list(labels)).to_numpy(dtype=bool)
        base = self.release_cells(obj.where(~is_label, None))
        base.wild = wild | base.wild
        base.na = base.na & ~is_label
        names = list(labels)
        which = pd.Index(names, dtype=object, tupleize_cols=False).get_indexer(
            pd.Index(obj[is_label].to_numpy(), dtype=object, tupleize_cols=False))
        if self.space == "pos":
            pos = [self.categories.get_indexer(pd.Index(labels[u], dtype=object)) for u in names]
            base.lo[is_label] = np.array([float(p[p >= 0].min()) for p in pos])[which]
            base.hi[is_label] = np.array([float(p[p >= 0].max()) for p in pos])[which]
            return base
        # every label's member keys once (CSR over labels), then gathered per row
        per = [np.sort(self.categories.get_indexer(pd.Index(labels[u], dtype=object,
                                                            tupleize_cols=False)))
               for u in names]
        l_len = np.array([len(p) for p in per], dtype=np.int64)
        l_off = np.concatenate([[0], np.cumsum(l_len)]).astype(np.int64)
        l_mem = np.concatenate(per).astype(np.int64) if per else np.zeros(0, dtype=np.int64)
        lens = np.where(base.na | base.wild, 0, 1).astype(np.int64)
        lens[is_label] = l_len[which]
        offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        members = np.empty(int(offsets[-1]), dtype=np.int64)
        plain = (lens == 1) & ~is_label
        members[offsets[:-1][plain]] = base.key[plain]
        rows = np.flatnonzero(is_label)
        take = np.repeat(l_off[which] - (np.cumsum(l_len[which]) - l_len[which]), l_len[which])
        src = take + np.arange(int(l_len[which].sum()))
        dst = np.repeat(offsets[rows] - (np.cumsum(lens[rows]) - lens[rows]), lens[rows]) \
            + np.arange(int(lens[rows].sum()))
        members[dst] = l_mem[src]
        key = np.where(is_label, -1, base.key)
        single = is_label & (lens == 1)
        key[single] = members[offsets[:-1][single]]
        return Cells(base.na, base.wild, key=key, offsets=offsets, members=members)

    def _category_values(self, categories) -> np.ndarray:
        """Published categories of an ordered range in this space (positions or numbers)."""
        if self.space == "pos":
            pos = self.categories.get_indexer(pd.Index(categories))
            if (pos < 0).any():
                raise InvalidInputError(
                    f"column {self.name!r}: the release's category "
                    f"{list(pd.Index(categories)[pos < 0])[0]!r} is not among the original's; "
                    f"give both tables the same categories")
            return pos.astype(np.float64)
        return _as_float(pd.Series(categories))

    # -- comparisons -----------------------------------------------------------------------
    def contains(self, values: np.ndarray, cells: Cells) -> np.ndarray:
        """values × cells: does the cell contain the value?"""
        if self.space == "cat":
            v = values[:, None]
            out = cells.key[None, :] == v
            if cells.offsets is not None and (cells.key < 0).any():
                sets = np.flatnonzero(cells.key < 0)
                lens = np.diff(cells.offsets)[sets]
                width = self.missing_key + 2
                code = np.repeat(np.arange(len(sets)), lens) * width + cells.members[
                    np.repeat(cells.offsets[:-1][sets] - np.concatenate(
                        [[0], np.cumsum(lens)[:-1]]), lens) + np.arange(int(lens.sum()))]
                probe = np.arange(len(sets))[None, :] * width + values[:, None]
                at = np.searchsorted(code, probe)
                hit = code[np.minimum(at, len(code) - 1)] == probe if len(code) else \
                    np.zeros(probe.shape, dtype=bool)
                out[:, sets] = hit
            return out | cells.wild[None, :]
        v = values[:, None]
        vna = np.isnan(v)
        with np.errstate(invalid="ignore"):
            above = np.where(cells.olo[None, :], cells.lo[None, :] < v, cells.lo[None, :] <= v)
            below = np.where(cells.ohi[None, :], v < cells.hi[None, :], v <= cells.hi[None, :])
        inside = above & below & ~vna
        return inside | (vna & cells.na[None, :]) | cells.wild[None, :]

    def distance(self, values: np.ndarray, cells: Cells) -> np.ndarray:
        """values × cells distances in [0, 1] (0: contained)."""
        inside = self.contains(values, cells)
        if self.space == "cat":
            return (~inside).astype(np.float64)
        v = values[:, None]
        with np.errstate(invalid="ignore"):
            gap = np.maximum(np.maximum(cells.lo[None, :] - v, v - cells.hi[None, :]), 0.0)
        gap = np.minimum(gap / self.scale, 1.0)
        gap = np.where(np.isnan(gap), 1.0, gap)  # one side missing
        return np.where(inside, 0.0, np.maximum(gap, EDGE))
