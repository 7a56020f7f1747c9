"""What a release lost, column by column: the distribution of each quasi-identifier and
sensitive column before and after anonymization, and how strongly pairs of columns are
associated before and after.

These figures read the original's values, so they belong to the *internal* report only
(``build_report(..., internal=True)``), the publisher's own, which never travels with the
release (docs/report.md).

Each column gets one axis, shared by both sides:

* numbers and dates (``real`` and ordered-by-value columns): at most :data:`BINS` bins over
  the span of the original and the published bounds, of a round width for numbers (whole for
  integers) and of calendar months, quarters, years or decades for dates;
* categories (``unordered``, text, and ordered columns of few categories): one bar per
  category, the :data:`TOP` most frequent, the rest as ``other``.

*Before* counts the original's non-missing cells. *After* spreads every published cell
uniformly over what it covers: a range over its width (the integers ``20..29`` of ``[20, 29]``
a tenth each), a set over its members, an ordered range over its categories; a plain value is
a point; a blank cell counts nowhere. So a column's after-bars sum to its published rows and
its before-bars to the original's, and suppression shows as the difference.

Everything is computed per distinct published cell (``np.unique``), never per row in Python.

Example
-------
>>> import pandas as pd, pdanon
>>> df = pd.DataFrame({"age": [30, 31, 40, 42], "zip": ["a", "b", "a", "b"]})
>>> out = df.anon.k_anonymize(2, algorithm="mondrian", quasi_identifiers=["age"],
...                           insensitive=["zip"])
>>> d = distribution(df["age"], out["age"], "real")
>>> d["bins"][:3], d["before"][:3], d["after"][:3]
(['30-31', '32-33', '34-35'], [2.0, 0.0, 0.0], [0.363636, 0.363636, 0.363636])
>>> round(association(df, out, ["age", "zip"])[0]["before"], 3)
0.0
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["BINS", "TOP", "association", "distribution"]

#: histogram bins of a number or date column
BINS = 12
#: categories shown of a category column (the rest summed as "other")
TOP = 8
#: pairs of columns shown in the association table (the strongest before anonymization)
PAIRS = 5
_DAY = 86_400 * 10**9


def _instants(values) -> np.ndarray | None:
    """Dates and times as float nanoseconds since the epoch (UTC), None for other values."""
    idx = pd.Index(values)
    if isinstance(idx, pd.PeriodIndex):
        idx = idx.to_timestamp()
    if not isinstance(idx, pd.DatetimeIndex):
        if idx.dtype != object or not len(idx):
            return None
        from pandas.api.types import infer_dtype

        if infer_dtype(idx, skipna=True) not in ("date", "datetime", "datetime64", "period"):
            return None
        if infer_dtype(idx, skipna=True) == "period":
            idx = pd.PeriodIndex(idx).to_timestamp()
        else:
            idx = pd.DatetimeIndex(pd.to_datetime(idx, utc=True))
    if idx.tz is not None:
        idx = idx.tz_convert("UTC").tz_localize(None)
    out = idx.as_unit("ns").asi8.astype(np.float64)
    out[idx.isna()] = np.nan
    return out


def _numbers(s: pd.Series) -> np.ndarray | None:
    """A plain column's values as floats (dates as nanoseconds), None if not numeric."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    if is_bool_dtype(s.dtype):
        return None
    if is_numeric_dtype(s.dtype):
        return pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    return _instants(s.to_numpy())


class _Cells:
    """A published column as weighted intervals (numbers) or weighted category codes."""

    def __init__(self, published: pd.Series):
        from pdanon.dtype import GeneralizationDtype

        self.s = published
        self.generalized = isinstance(published.dtype, GeneralizationDtype)
        self.arr = published.array if self.generalized else None

    def intervals(self):
        """(lo, hi, rows, integer) per distinct published cell on a numeric axis (floats,
        dates as ns), or None when the column is not numeric. ``integer``: a cell
        ``[a, b]`` covers the integers (or days) a..b."""
        if self.generalized:
            arr = self.arr
            if arr.kind == "unordered":
                return None
            lo, hi = np.asarray(arr.lo, dtype=np.float64), np.asarray(arr.hi, dtype=np.float64)
            present = ~np.asarray(arr.isna(), dtype=bool)
            cats = arr.categories
            if cats is not None:
                inst = _instants(cats)
                if inst is None:
                    return None
                lo_i, hi_i = lo[present].astype(np.int64), hi[present].astype(np.int64)
                lo, hi = inst[lo_i], inst[hi_i]
                daily = bool(np.all(np.mod(inst[~np.isnan(inst)], _DAY) == 0))
                return (*_distinct(lo, hi), "day" if daily else None)
            lo, hi = lo[present], hi[present]
            integer = bool(arr.is_integer)
            return (*_distinct(lo, hi), "int" if integer else None)
        v = _numbers(self.s)
        if v is None:
            return None
        v = v[~np.isnan(v)]
        from pandas.api.types import is_integer_dtype

        step = ("int" if is_integer_dtype(self.s.dtype) else
                "day" if len(v) and np.all(np.mod(v, _DAY) == 0) and _instants_like(self.s)
                else None)
        return (*_distinct(v, v), step)

    def intervals_per_row(self) -> tuple:
        """``(codes, lo, hi)``: each row's distinct-cell code (-1 blank) and the bounds of
        each distinct cell on the numeric axis (dates as ns)."""
        if self.generalized:
            arr = self.arr
            present = ~np.asarray(arr.isna(), dtype=bool)
            lo = np.asarray(arr.lo, dtype=np.float64)
            hi = np.asarray(arr.hi, dtype=np.float64)
            if arr.categories is not None:
                inst = _instants(arr.categories)
                lo = np.where(present, inst[np.maximum(lo, 0).astype(np.int64)], np.nan)
                hi = np.where(present, inst[np.maximum(hi, 0).astype(np.int64)], np.nan)
        else:
            lo = hi = _numbers(self.s)
            present = ~np.isnan(lo)
        codes = np.full(len(lo), -1, dtype=np.int64)
        if not present.any():
            return codes, np.zeros(0), np.zeros(0)
        pairs, inverse = np.unique(np.stack([lo[present], hi[present]], axis=1), axis=0,
                                   return_inverse=True)
        codes[present] = inverse.reshape(-1)
        return codes, pairs[:, 0], pairs[:, 1]

    def category_weights(self, names: pd.Index, group: np.ndarray, bins: int) -> tuple:
        """``(codes, weights)`` on a category axis (``names`` and their bin ``group``)."""
        if self.generalized and self.arr.kind == "unordered":
            arr = self.arr
            raw = np.asarray(arr.codes)
            uniq, first, inverse = np.unique(raw, return_index=True, return_inverse=True)
            inverse = inverse.reshape(-1)
            keep = uniq >= 0
            remap = np.full(len(uniq), -1, dtype=np.int64)
            remap[keep] = np.arange(int(keep.sum()))
            offsets, members = arr.take(first[keep]).members()
            sizes = np.diff(offsets)
            where = group[names.get_indexer(pd.Index(arr.categories).astype(str))]
            weights = np.zeros((int(keep.sum()), bins))
            np.add.at(weights, (np.repeat(np.arange(len(sizes)), sizes), where[members]),
                      np.repeat(1.0 / np.maximum(sizes, 1), sizes))
            return remap[inverse], weights
        if self.generalized:  # ordered categories: a range spread over its positions
            arr = self.arr
            present = ~np.asarray(arr.isna(), dtype=bool)
            lo, hi = np.asarray(arr.lo), np.asarray(arr.hi)
            codes = np.full(len(lo), -1, dtype=np.int64)
            if not present.any():
                return codes, np.zeros((0, bins))
            pairs, inverse = np.unique(np.stack([lo[present], hi[present]], axis=1), axis=0,
                                       return_inverse=True)
            codes[present] = inverse.reshape(-1)
            pos_group = group[names.get_indexer(pd.Index(arr.categories).astype(str))]
            starts = np.searchsorted(pos_group, np.arange(bins), side="left")
            edges = np.append(starts, len(pos_group)).astype(np.float64)
            return codes, _overlaps(pairs[:, 0].astype(np.float64),
                                    pairs[:, 1].astype(np.float64) + 1.0, edges)
        text = self.s.astype(object).where(self.s.notna(), None)
        codes, uniques = pd.factorize(text)
        weights = np.zeros((len(uniques), bins))
        pos = names.get_indexer(pd.Index(uniques).astype(str))
        weights[np.arange(len(uniques)), group[pos]] = 1.0
        return np.asarray(codes, dtype=np.int64), weights

    def category_mass(self) -> pd.Series:
        """Rows per published category, a set's row spread over its members."""
        if self.generalized and self.arr.kind == "unordered":
            arr = self.arr
            codes = np.asarray(arr.codes)
            uniq, first, counts = np.unique(codes, return_index=True, return_counts=True)
            keep = uniq >= 0
            first, counts = first[keep], counts[keep]
            sub = arr.take(first)
            offsets, members = sub.members()
            sizes = np.diff(offsets)
            weights = np.repeat(counts / np.maximum(sizes, 1), sizes)
            mass = np.bincount(members, weights=weights, minlength=len(arr.categories))
            return pd.Series(mass, index=pd.Index(arr.categories).astype(str))
        if self.generalized:  # ordered categories (few): spread over positions lo..hi
            arr = self.arr
            present = ~np.asarray(arr.isna(), dtype=bool)
            lo = np.asarray(arr.lo)[present]
            hi = np.asarray(arr.hi)[present]
            m = len(arr.categories)
            pairs, counts = np.unique(np.stack([lo, hi], axis=1), axis=0, return_counts=True)
            diff = np.zeros(m + 1)
            share = counts / (pairs[:, 1] - pairs[:, 0] + 1)
            np.add.at(diff, pairs[:, 0], share)
            np.add.at(diff, pairs[:, 1] + 1, -share)
            return pd.Series(np.cumsum(diff)[:m], index=pd.Index(arr.categories).astype(str))
        return self.s.dropna().astype(str).value_counts(sort=False).astype(np.float64)


def _instants_like(s: pd.Series) -> bool:
    return _instants(s.to_numpy()[:1]) is not None


def _distinct(lo: np.ndarray, hi: np.ndarray):
    pairs, counts = np.unique(np.stack([lo, hi], axis=1), axis=0, return_counts=True)
    return pairs[:, 0], pairs[:, 1], counts.astype(np.float64)


def _nice_width(span: float, unit: float) -> float:
    """The smallest of 1, 2, 2.5, 5 x 10^k (a whole multiple of ``unit`` when given) giving
    at most :data:`BINS` bins over ``span``."""
    raw = max(span / BINS, unit, 1e-300)
    mag = 10 ** math.floor(math.log10(raw))
    for step in (1, 2, 2.5, 5, 10):
        width = step * mag
        if width >= raw * (1 - 1e-12) and (not unit or float(width / unit).is_integer()):
            return width
    return 10 * mag


def _edges(lo_all: float, hi_all: float, step: str | None) -> np.ndarray:
    """At most :data:`BINS` + 1 round edges covering [lo_all, hi_all] (integers: a cell
    ``[a, b]`` covers up to ``b + 1``)."""
    unit = 1.0 if step == "int" else 0.0
    top = hi_all + unit
    if top <= lo_all:
        return np.array([lo_all, lo_all + 1.0])
    width = _nice_width(top - lo_all, unit)
    start = math.floor(lo_all / width) * width
    count = max(math.ceil((top - start) / width - 1e-9), 1)
    if count > BINS:  # the floor moved the start below a boundary: one width up
        width = _nice_width((top - start) * 1.0001, unit) if unit else width * 2
        start = math.floor(lo_all / width) * width
        count = max(math.ceil((top - start) / width - 1e-9), 1)
    return start + width * np.arange(count + 1)


#: calendar bins of date axes, finest first: (pandas frequency, label form)
_CALENDAR = (("MS", "month"), ("QS", "quarter"), ("YS", "year"), ("10YS", "decade"))


def _date_edges(lo_all: float, hi_all: float, daily: bool):
    """Calendar edges (months, quarters, years or decades: the finest giving at most
    :data:`BINS` bins) over the instants [lo_all, hi_all] and their labels (as pdanon's
    calendar labels: ``2024-03``, ``2024-Q1``, ``2024``, ``2020s``); equal bins for a span
    within one month."""
    first = pd.Timestamp(int(lo_all))
    last = pd.Timestamp(int(hi_all) + (_DAY if daily else 1))
    for freq, form in _CALENDAR:
        if form == "decade":
            start = pd.Timestamp(year=first.year // 10 * 10, month=1, day=1)
        elif form == "year":
            start = pd.Timestamp(year=first.year, month=1, day=1)
        elif form == "quarter":
            start = pd.Timestamp(year=first.year, month=(first.month - 1) // 3 * 3 + 1, day=1)
        else:
            start = pd.Timestamp(year=first.year, month=first.month, day=1)
        edges = pd.date_range(start, periods=BINS + 2, freq=freq).as_unit("ns")
        cut = int(np.searchsorted(edges.asi8, last.value, side="left"))
        if cut <= BINS:
            edges = edges[:cut + 1]
            if form == "month" and len(edges) < 3:
                break
            labels = [(f"{e.year}-{e.month:02d}" if form == "month" else
                       f"{e.year}-Q{(e.month - 1) // 3 + 1}" if form == "quarter" else
                       f"{e.year}" if form == "year" else f"{e.year}s") for e in edges[:-1]]
            return edges.asi8.astype(np.float64), labels
    edges = np.linspace(lo_all, float(last.value), BINS + 1)
    return edges, [pd.Timestamp(int(e)).strftime("%Y-%m-%d") for e in edges[:-1]]


def _bin_labels(edges: np.ndarray, step: str | None) -> list:
    if step == "int":
        return [f"{int(a):d}" if b - a == 1 else f"{int(a):d}-{int(b) - 1:d}"
                for a, b in zip(edges[:-1], edges[1:])]
    if np.all(np.mod(edges, 1) == 0):
        return [f"{int(a):,}-{int(b):,}" for a, b in zip(edges[:-1], edges[1:])]
    return [f"{a:.3g}-{b:.3g}" for a, b in zip(edges[:-1], edges[1:])]


class _Axis:
    """The bins of one column, shared by the original and the release: ``labels``, the bin
    of each original cell (:meth:`before_codes`) and the spread of each distinct published
    cell over the bins (:meth:`after_weights`)."""

    def __init__(self, original: pd.Series, published: pd.Series, kind: str):
        self.cells = _Cells(published)
        self.original = original
        self.chart = None
        if kind != "unordered":
            self._numeric()
        if self.chart is None:
            self._categorical()

    # -- numbers and dates ---------------------------------------------------------------
    def _numeric(self):
        found = self.cells.intervals()
        orig = _numbers(self.original)
        if found is None or orig is None:
            return
        lo, hi, _, step = found
        dates = _instants_like(self.original)
        seen = orig[~np.isnan(orig)]
        lows = [x.min() for x in (seen, lo) if len(x)]
        highs = [x.max() for x in (seen, hi) if len(x)]
        if not lows:
            return
        if step is None and not dates and self.cells.generalized and all(
                np.all(np.mod(x, 1) == 0) for x in (seen, lo, hi)):
            step = "int"
        self.step, self.values = step, orig
        if dates:
            self.edges, self.labels = _date_edges(float(min(lows)), float(max(highs)),
                                                  step == "day")
        else:
            self.edges = _edges(float(min(lows)), float(max(highs)), step)
            self.labels = _bin_labels(self.edges, step)
        self.chart = "histogram"

    def _numeric_weights(self):
        found = self.cells.intervals_per_row()
        codes, lo, hi = found
        unit = 0.0 if self.step is None else (1.0 if self.step == "int" else float(_DAY))
        return codes, _overlaps(lo, hi + unit, self.edges)

    # -- categories ------------------------------------------------------------------------
    def _categorical(self):
        cells = self.cells
        mass = cells.category_mass().groupby(level=0, sort=False).sum()
        before = self.original.dropna().astype(str).value_counts(sort=False)
        names = pd.Index(mass.index).append(pd.Index(before.index).difference(mass.index))
        total = (mass.reindex(names, fill_value=0.0)
                 + before.reindex(names, fill_value=0).astype(np.float64))
        ordered = cells.generalized and cells.arr.kind != "unordered"
        if ordered:  # keep the order of the categories; many in BINS consecutive groups
            group = np.arange(len(names))
            if len(names) > 2 * TOP:
                group = group * BINS // len(names)
            labels = [str(names[group == g][0]) if (group == g).sum() == 1 else
                      f"{names[group == g][0]} - {names[group == g][-1]}"
                      for g in range(int(group.max()) + 1)] if len(names) else []
        else:
            order = np.argsort(-total.to_numpy(), kind="stable")
            group = np.empty(len(names), dtype=np.int64)
            if len(names) > TOP + 1:
                group[order[:TOP]] = np.arange(TOP)
                group[order[TOP:]] = TOP
                labels = [str(names[i]) for i in order[:TOP]] + ["other"]
            else:
                group[order] = np.arange(len(names))
                labels = [str(names[i]) for i in order]
        self.names, self.group, self.labels = names, group, labels
        self.chart = "bars"

    def before_codes(self) -> np.ndarray:
        """The bin of each original cell, -1 where it is missing."""
        if self.chart == "histogram":
            v = self.values
            out = np.full(len(v), -1, dtype=np.int64)
            ok = ~np.isnan(v)
            out[ok] = np.clip(np.searchsorted(self.edges, v[ok], side="right") - 1, 0,
                              len(self.labels) - 1)
            return out
        pos = self.names.get_indexer(self.original.astype(str))
        out = np.where(pos >= 0, self.group[np.maximum(pos, 0)], -1)
        out[self.original.isna().to_numpy()] = -1
        return out.astype(np.int64)

    def after_weights(self) -> tuple:
        """``(codes, weights)``: each published row's distinct-cell code (-1 blank) and, per
        distinct cell, its spread over the bins (rows of ``weights`` sum to 1)."""
        if self.chart == "histogram":
            return self._numeric_weights()
        return self.cells.category_weights(self.names, self.group, len(self.labels))


def _overlaps(a: np.ndarray, b: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """(cells, bins): the share of each [a, b) in each bin (a point wholly in its bin)."""
    bins = len(edges) - 1
    out = np.zeros((len(a), bins))
    point = b <= a
    if point.any():
        at = np.clip(np.searchsorted(edges, a[point], side="right") - 1, 0, bins - 1)
        out[np.flatnonzero(point), at] = 1.0
    wide = ~point
    if wide.any():
        lo, hi = a[wide][:, None], b[wide][:, None]
        overlap = np.clip(np.minimum(hi, edges[1:][None, :]) - np.maximum(lo, edges[:-1][None, :]),
                          0, None)
        out[wide] = overlap / (hi - lo)
    return out


def _rows_per_bin(axis: _Axis) -> tuple:
    before = np.bincount(axis.before_codes()[axis.before_codes() >= 0],
                         minlength=len(axis.labels)).astype(np.float64)
    codes, weights = axis.after_weights()
    counts = np.bincount(codes[codes >= 0], minlength=len(weights)).astype(np.float64)
    return before, counts @ weights if len(weights) else np.zeros(len(axis.labels))


def distribution(original: pd.Series, published: pd.Series, kind: str) -> dict:
    """The before/after distribution of one column: ``bins`` (labels), ``before`` (rows of
    the original per bin), ``after`` (published rows per bin, each cell spread uniformly
    over what it covers), ``chart`` ("histogram" or "bars"), ``original_rows`` and
    ``published_rows`` (non-missing cells of each)."""
    axis = _Axis(original, published, kind)
    before, after = _rows_per_bin(axis)
    return {"column": str(published.name), "chart": axis.chart, "bins": list(axis.labels),
            "before": [float(round(v, 6)) for v in before],
            "after": [float(round(v, 6)) for v in after],
            "original_rows": int(original.notna().sum()),
            "published_rows": int(published.notna().sum())}


def _v(table: np.ndarray, n: int) -> float | None:
    """Bias-corrected Cramér's V (Bergsma 2013) of a contingency table of ``n`` rows (empty
    rows and columns dropped); None when a side has one category."""
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    r, c = table.shape
    if n < 2 or r < 2 or c < 2:
        return None
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
    chi2 = float(((table - expected) ** 2 / expected).sum())
    phi2 = max(chi2 / table.sum() - (r - 1) * (c - 1) / (n - 1), 0.0)
    rc, cc = r - (r - 1) ** 2 / (n - 1), c - (c - 1) ** 2 / (n - 1)
    denom = min(rc - 1, cc - 1)
    return float(math.sqrt(phi2 / denom)) if denom > 0 else None


def cramers_v(a: np.ndarray, b: np.ndarray) -> float | None:
    """Bias-corrected Cramér's V of two code arrays (-1: missing, left out pairwise).

    Example
    -------
    >>> round(cramers_v(np.array([0, 0, 1, 1] * 5), np.array([0, 0, 1, 1] * 5)), 3)
    1.0
    """
    ok = (a >= 0) & (b >= 0)
    a, b = a[ok], b[ok]
    if not len(a):
        return None
    r, c = int(a.max()) + 1, int(b.max()) + 1
    table = np.bincount(a * c + b, minlength=r * c).reshape(r, c).astype(np.float64)
    return _v(table, len(a))


def _spread_v(a: tuple, b: tuple) -> float | None:
    """Cramér's V of the published table, each row's pair of cells spread uniformly (and
    independently) over the bins the two cells cover."""
    (ca, wa), (cb, wb) = a, b
    ok = (ca >= 0) & (cb >= 0)
    if not ok.any():
        return None
    key = ca[ok] * (len(wb) + 1) + cb[ok]
    uniq, counts = np.unique(key, return_counts=True)
    ua, ub = uniq // (len(wb) + 1), uniq % (len(wb) + 1)
    table = (wa[ua] * counts[:, None].astype(np.float64)).T @ wb[ub]
    return _v(table, int(ok.sum()))


def association(original: pd.DataFrame, published: pd.DataFrame, columns, kinds=None,
                pairs: int = PAIRS) -> list:
    """The ``pairs`` most associated pairs of ``columns`` in the original, each with its
    bias-corrected Cramér's V ``before`` and ``after``, on the bins of :func:`distribution`
    (the published cells spread uniformly over the bins they cover, as an analyst who
    reads a range as uniform would)."""
    kinds = kinds or {}
    columns = [c for c in columns if c in original.columns and c in published.columns]
    axes = {c: _Axis(original[c], published[c], kinds.get(c, "")) for c in columns}
    before = {c: axes[c].before_codes() for c in columns}
    after = {c: axes[c].after_weights() for c in columns}
    rows = []
    for i, a in enumerate(columns):
        for b in columns[i + 1:]:
            v = cramers_v(before[a], before[b])
            if v is None:
                continue
            rows.append({"columns": [str(a), str(b)], "before": v,
                         "after": _spread_v(after[a], after[b])})
    rows.sort(key=lambda r: -r["before"])
    return rows[:pairs]
