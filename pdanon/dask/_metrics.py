"""Privacy and utility metrics of Dask DataFrames, computed as Dask group-bys.

Nothing here collects rows. Each partition turns its quasi-identifiers into canonical key
columns (:mod:`pdanon.dask._keys`); Dask groups by them to get one count per equivalence class
(and, for l-diversity / t-closeness, one count per (class, sensitive value) pair). The per-class
measures run *inside* Dask tasks, on the pair counts of whole classes (pairs are shuffled by
class key when the group-by output has several partitions), with the same vectorized functions
pandas uses (:mod:`pdanon.distributions`), so the values equal the pandas results exactly; only
scalars come back to the client.

What is collected to the client: the scalars themselves, and for every sensitive column its
distinct values with their counts (one small table; it fixes the value codes and the whole
table's distribution that t-closeness compares with).

Missing quasi-identifier cells: ``missing="value"`` (default) makes a missing cell a value of
its own, as pandas does. ``missing="wildcard"`` (a missing cell matches any value; only
:func:`k_anonymity` and :func:`metrics`) works on the table of class sizes: its missingness
patterns (at most :data:`pdanon._groups.WILDCARD_MAX_PATTERNS`) are collected, then for every
pair of patterns (P, Q) the classes of Q are summed by a Dask group-by over the columns present
in both and merged into the classes of P - patterns² group-bys and merges, the cost documented
for :func:`pdanon.metrics.frequencies`.

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> import pdanon.dask as pdd
>>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
>>> ddf = dd.from_pandas(df, npartitions=2)
>>> pdd.k_anonymity(ddf, ["zip"]), pdd.t_closeness(ddf, ["zip"], ["d"])
(2, 0.25)
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pdanon import _groups
from pdanon._errors import InvalidInputError
from pdanon.dask._keys import key_frame, key_names
from pdanon.encode import factorize, missing, value_counts
from pdanon import distributions as _dist
from pdanon.models.base import check_missing_sensitive

__all__ = [
    "average_class_size",
    "class_sizes",
    "discernibility",
    "distinctness",
    "global_sensitive_column",
    "k_anonymity",
    "l_diversity",
    "metrics",
    "non_uniform_entropy",
    "t_closeness",
]


# --------------------------------------------------------------------------- arguments


def check_dask_frame(ddf):
    """Raise a clear TypeError unless ``ddf`` is a Dask DataFrame."""
    import dask.dataframe as dd

    if not isinstance(ddf, dd.DataFrame):
        raise TypeError(f"expected a Dask DataFrame, got {type(ddf).__name__}; for pandas frames "
                        f"use df.anon / pdanon.metrics")
    _ensure_workers()
    return ddf


def _ensure_workers() -> None:
    """With a distributed client, make its workers import pdanon.dask (once)."""
    import sys

    if "distributed" in sys.modules:
        from pdanon.dask._workers import ensure_workers

        ensure_workers()


def check_qis(ddf, quasi_identifiers) -> list:
    from pdanon.metrics._common import quasi_identifier_kinds

    return list(quasi_identifier_kinds(ddf._meta, quasi_identifiers))


def _sensitive(ddf, sensitive, kinds=None) -> dict:
    from pdanon.metrics._common import sensitive_spec

    spec = _dist.sensitive_kinds(ddf._meta, sensitive_spec(ddf._meta, sensitive), kinds)
    if not spec:
        raise InvalidInputError("this measure needs at least one sensitive column: pass "
                                "sensitive=[...] (or {column: kind})")
    return spec


def split_out_of(ddf) -> int:
    """Output partitions of the class group-bys: one per 32 input partitions."""
    return max(1, int(math.ceil(ddf.npartitions / 32)))


# --------------------------------------------------------------------------- class keys


def column_dtypes(ddf, columns) -> dict:
    return {c: ddf._meta[c].dtype for c in columns}


def class_keys(ddf, columns):
    """(lazy Dask frame of key columns, their names) for the classes over ``columns``."""
    dtypes = column_dtypes(ddf, columns)
    names = key_names(columns, dtypes)
    if not names:  # no column: every row is in one class
        meta = pd.DataFrame({"k0": np.zeros(0, np.int64)})
        return ddf.map_partitions(lambda p: pd.DataFrame({"k0": np.zeros(len(p), np.int64)}),
                                  meta=meta), ["k0"]
    meta = key_frame(ddf._meta, columns, dtypes)
    return ddf.map_partitions(key_frame, columns, dtypes, meta=meta), names


def class_sizes(ddf, quasi_identifiers=None, *, missing: str = "value"):
    """Size of every equivalence class as a lazy Dask Series (one entry per class, indexed by
    the class's key columns). Missing equals missing (``missing="wildcard"`` forms no classes
    and is refused).

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> ddf = dd.from_pandas(pd.DataFrame({"a": [1, 1, 2]}), npartitions=2)
    >>> sorted(class_sizes(ddf, ["a"]).compute().tolist())
    [1, 2]
    """
    check_dask_frame(ddf)
    _groups.refuse_wildcard(missing, "class_sizes")
    keys, names = class_keys(ddf, check_qis(ddf, quasi_identifiers))
    return group_sizes(keys, names, split_out_of(ddf))


def group_sizes(keys, names, split_out):
    return keys.groupby(names, dropna=False, sort=False, observed=True).size(
        split_out=split_out).rename("size")


def _size_summary(sizes):
    """Lazy scalars over class sizes: rows, classes, smallest, Σ s·log2 s, Σ s²."""
    as_float = sizes.astype(np.float64)
    return {
        "rows": sizes.sum(),
        "classes": sizes.count(),
        "k": sizes.min(),
        "slog": (as_float * np.log2(as_float)).sum(),
        "squares": (as_float * as_float).sum(),
    }


def _entropy(rows: int, slog: float) -> float:
    if rows == 0:
        return 0.0
    # -Σ p·log2 p with p = s/n equals log2 n - Σ s·log2 s / n
    return max(float(math.log2(rows) - slog / rows), 0.0) + 0.0


def k_anonymity(ddf, quasi_identifiers=None, *, missing: str = "value") -> int:
    """Largest k for which the frame is k-anonymous: the smallest class size (0 when empty);
    with ``missing="wildcard"`` the smallest frequency when a missing cell matches any value,
    as :func:`pdanon.metrics.k_anonymity`.

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> k_anonymity(dd.from_pandas(pd.DataFrame({"a": [1, 1, 2, 2, 2]}), npartitions=2), ["a"])
    2
    >>> k_anonymity(dd.from_pandas(pd.DataFrame({"a": [1, 1, None]}), npartitions=2), ["a"],
    ...             missing="wildcard")
    3
    """
    import dask

    if _groups.check_missing(missing) == "wildcard":
        check_dask_frame(ddf)
        qis = check_qis(ddf, quasi_identifiers)
        if qis:
            return int(dask.compute(*_wildcard_k(ddf, qis))[0])
    sizes = class_sizes(ddf, quasi_identifiers)
    rows, k = dask.compute(sizes.sum(), sizes.min())
    return int(k) if int(rows) else 0


def _flagged_keys(pdf, columns, dtypes, flags):
    """Key columns of one partition plus a missing flag per column."""
    from pdanon.encode import missing as missing_mask

    return key_frame(pdf, columns, dtypes,
                     extra={f: missing_mask(pdf[c]) for f, c in zip(flags, columns)})


def _wildcard_k(ddf, qis) -> list:
    """[lazy smallest wildcard frequency] (0 when empty); the patterns are computed now."""
    dtypes = column_dtypes(ddf, qis)
    per_column = [key_names([c], dtypes) for c in qis]
    names, j = [], 0
    for keys in per_column:  # renumber: key_frame numbers the key columns of all columns
        names.append([f"k{j + i}" for i in range(len(keys))])
        j += len(keys)
    flags = [f"__m{i}" for i in range(len(qis))]
    meta = key_frame(ddf._meta, qis, dtypes, extra={f: np.zeros(0, bool) for f in flags})
    keys = ddf.map_partitions(_flagged_keys, qis, dtypes, flags, meta=meta)
    flat = [k for ks in names for k in ks]
    table = keys.groupby(flat + flags, dropna=False, sort=False, observed=True).size(
        split_out=split_out_of(ddf)).rename("__n").reset_index()
    # a tree reduction (no shuffle): the distinct patterns are few
    found = table.groupby(flags, sort=False).size().compute()
    patterns = (found.index.to_frame(index=False).to_numpy(dtype=bool) if len(found)
                else np.zeros((0, len(flags)), bool))
    if len(patterns) > _groups.WILDCARD_MAX_PATTERNS:
        raise InvalidInputError(
            f"missing='wildcard' costs one group-by per pair of missingness patterns, and the "
            f"rows lack {len(patterns)} different sets of the quasi-identifiers {qis} (at most "
            f"{_groups.WILDCARD_MAX_PATTERNS}); use missing='value', or fewer quasi-identifiers")
    if len(patterns) == 0:  # no row
        return [0]
    if len(patterns) == 1:  # no missing cell, or every row lacks the same columns
        return [table["__n"].min()]

    def rows_of(p):
        mask = None
        for f, v in zip(flags, p):
            m = table[f] == bool(v)
            mask = m if mask is None else mask & m
        return table[mask]

    lows = []
    for p in patterns:
        part = rows_of(p)
        freq = part["__n"].astype(np.float64)
        for i, r in enumerate(patterns):
            if (r == p).all():
                continue  # classes of one pattern differ where it is present: own size only
            on = [k for c, ks in enumerate(names) if not (p[c] or r[c]) for k in ks]
            other = rows_of(r)
            if not on:  # no column present in both: every row of r matches
                freq = freq + other["__n"].sum()
                continue
            counts = other.groupby(on, dropna=False, sort=False, observed=True)["__n"].sum(
                ).rename(f"__c{i}").reset_index()
            # task-based shuffles run on every scheduler (p2p needs the distributed one)
            part = part.assign(__f=freq).merge(counts, on=on, how="left",
                                               shuffle_method="tasks")
            freq = part["__f"] + part[f"__c{i}"].fillna(0)
        lows.append(freq.min())
    return [_min_of(lows)]


def _min_of(lazies):
    import dask

    return dask.delayed(lambda *v: int(min(v)))(*lazies)


def average_class_size(ddf, quasi_identifiers=None, *, missing: str = "value") -> float:
    """Rows / equivalence classes (0.0 when empty), as :func:`pdanon.metrics.average_class_size`.

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> average_class_size(dd.from_pandas(pd.DataFrame({"a": [1, 1, 2]}), npartitions=2), ["a"])
    1.5
    """
    import dask

    _groups.refuse_wildcard(missing, "the average class size")
    sizes = class_sizes(ddf, quasi_identifiers)
    rows, classes = dask.compute(sizes.sum(), sizes.count())
    return int(rows) / int(classes) if int(rows) else 0.0


def distinctness(ddf, columns=None, *, missing: str = "value") -> float:
    """Distinct rows / rows over ``columns`` (default: every column), as
    :func:`pdanon.metrics.distinctness`.

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> distinctness(dd.from_pandas(pd.DataFrame({"a": [1, 1, 2, 3]}), npartitions=2))
    0.75
    """
    import dask

    _groups.refuse_wildcard(missing, "distinctness")
    check_dask_frame(ddf)
    cols = list(ddf.columns) if columns is None else check_qis(ddf, columns)
    keys, names = class_keys(ddf, cols)
    sizes = group_sizes(keys, names, split_out_of(ddf))
    rows, classes = dask.compute(sizes.sum(), sizes.count())
    return int(classes) / int(rows) if int(rows) else 0.0


def non_uniform_entropy(ddf, quasi_identifiers=None, *, missing: str = "value") -> float:
    """Shannon entropy (bits) of the distribution of quasi-identifier rows, as
    :func:`pdanon.metrics.non_uniform_entropy` (equal up to float summation order).

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> non_uniform_entropy(dd.from_pandas(pd.DataFrame({"a": [1, 1, 2, 3]}), npartitions=2),
    ...                     ["a"])
    1.5
    """
    import dask

    _groups.refuse_wildcard(missing, "the non-uniform entropy")
    s = _size_summary(class_sizes(ddf, quasi_identifiers))
    rows, slog = dask.compute(s["rows"], s["slog"])
    return _entropy(int(rows), float(slog))


def discernibility(ddf, quasi_identifiers=None, *, missing: str = "value") -> int:
    """Discernibility metric Σ |class|² (lower keeps more detail).

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> discernibility(dd.from_pandas(pd.DataFrame({"a": [1, 1, 2]}), npartitions=2), ["a"])
    5
    """
    _groups.refuse_wildcard(missing, "the discernibility")
    sizes = class_sizes(ddf, quasi_identifiers)
    return int((sizes.astype(np.int64) ** 2).sum().compute())


# --------------------------------------------------------------------------- sensitive columns


def _value_table(series: pd.Series) -> pd.DataFrame:
    """Distinct values of one partition in order of appearance (missing included) and counts."""
    uniq, counts = value_counts(series.array, where=f"sensitive column {series.name!r}")
    return pd.DataFrame({"v": uniq, "n": counts})


class GlobalColumn:
    """A sensitive column of the whole Dask frame: the :class:`~pdanon.distributions.
    SensitiveColumn` pandas would build (codes in the same order, the whole table's counts)
    without per-row codes, and the lookup that gives each partition its rows' codes."""

    def __init__(self, column: _dist.SensitiveColumn, lookup: pd.Index, lookup_codes):
        self.column = column
        self.lookup = lookup
        self.lookup_codes = np.asarray(lookup_codes, dtype=np.int64)

    @property
    def name(self):
        return self.column.name

    def codes(self, series: pd.Series) -> np.ndarray:
        """Global code of every row of a partition (missing: the last code)."""
        local, uniq = factorize(series.array, where=f"sensitive column {self.name!r}")
        if len(uniq):
            pos = self.lookup.get_indexer(uniq)
            if (pos < 0).any():
                raise InvalidInputError(
                    f"sensitive column {self.name!r} holds values that were not seen when its "
                    f"distribution was computed (the data changed between passes?)")
            mapped = self.lookup_codes[pos]
        else:
            mapped = np.zeros(0, np.int64)
        out = np.full(len(local), self.column.m - 1, dtype=np.int64)
        ok = local >= 0
        out[ok] = mapped[local[ok]]
        return out


def global_sensitive_column(table: pd.DataFrame, kind: str, name) -> GlobalColumn:
    """Build the whole table's sensitive column from the per-partition value tables
    (concatenated in partition order)."""
    uniq, counts = value_counts(table["v"].array, where=f"sensitive column {name!r}",
                                weights=table["n"].to_numpy(np.float64))
    col = _dist.SensitiveColumn.from_values(pd.Series(uniq, dtype=table["v"].dtype), kind,
                                            name=name)
    global_counts = (np.bincount(col.codes, weights=counts, minlength=col.m)
                     if len(col.codes) else np.zeros(col.m))
    column = _dist.SensitiveColumn(name, kind, np.zeros(0, np.int64), col.m, col.has_na,
                                   col.uniques, col.values,
                                   np.rint(global_counts).astype(np.int64))
    na = missing(pd.Series(uniq, dtype=table["v"].dtype))
    lookup = pd.Index(pd.Series(uniq, dtype=table["v"].dtype)[~na].array)
    return GlobalColumn(column, lookup, col.codes[~na])


def sensitive_columns(ddf, spec: dict, *, extra=()) -> dict:
    """{name: GlobalColumn} for ``spec`` ({name: kind}) in one pass over ``ddf`` (``extra``:
    more lazy objects to compute in the same pass; their results come back under "extra")."""
    import dask

    lazies = []
    for c in spec:
        meta = pd.DataFrame({"v": ddf._meta[c].array[:0], "n": np.zeros(0, np.int64)})
        lazies.append(ddf[c].map_partitions(_value_table, meta=meta))
    results = dask.compute(*lazies, *extra)
    out = {c: global_sensitive_column(results[i], kind, c) for i, (c, kind) in
           enumerate(spec.items())}
    out["extra"] = results[len(spec):]
    return out


# --------------------------------------------------------------------------- per-class measures

_NEUTRAL = {"min": np.inf, "max": -np.inf, "sum": 0.0}


def _pair_keys(pdf, columns, dtypes, gcol: GlobalColumn):
    return key_frame(pdf, columns, dtypes, extra={"__s": gcol.codes(pdf[gcol.name])})


def _pair_counts(pdf: pd.DataFrame, names) -> _dist.PairCounts:
    """PairCounts (sorted by class, then value code) of one partition of (class, value) counts
    holding whole classes."""
    from pdanon._groups import class_labels

    labels = class_labels(pdf, names)
    val = pdf["__s"].to_numpy(np.int64)
    cnt = pdf["__n"].to_numpy(np.int64)
    order = np.lexsort((val, labels))
    cls = labels[order]
    groups = int(cls.max()) + 1
    sizes = np.rint(np.bincount(cls, weights=cnt[order], minlength=groups)).astype(np.int64)
    return _dist.PairCounts(cls, val[order], cnt[order], sizes)


def _measure(pairs: _dist.PairCounts, col: _dist.SensitiveColumn, what: str, param):
    """Per-class values of one measure (as pdanon.models computes them)."""
    if what == "distinct":
        return _dist.distinct_counts(pairs).astype(np.float64)
    if what == "entropy":
        return np.exp(_dist.entropies(pairs))
    if what == "recursive":
        return _dist.recursive_l(pairs, float(param)).astype(np.float64)
    if what == "t":
        distance, hierarchy = param
        return _dist.class_distances(pairs, col, distance, hierarchy)
    if what == "knowledge":  # Σ |C|·TV(C): summed, divided by n on the client
        return _dist.total_variation(pairs, col) * pairs.sizes
    if what == "accuracy":  # Σ max count in C
        starts = np.flatnonzero(pairs.first_in_class())
        return np.maximum.reduceat(pairs.count, starts).astype(np.float64)
    raise ValueError(what)


#: the measures that read a class's known values only under missing_sensitive="unknown"
_RULED = ("distinct", "entropy", "recursive", "t")


def _measures_of_pairs(pdf, names, col, measures, known_only=False):
    """One row: every measure reduced over the classes of this partition. ``known_only``
    (``missing_sensitive="unknown"``): l and t read the known values of each class
    (:meth:`pdanon.distributions.ClassCounts.known`), as the pandas models do."""
    row = {}
    if len(pdf) == 0:
        return pd.DataFrame({label: [_NEUTRAL[how]] for label, _, _, how in measures})
    pairs = _pair_counts(pdf, names)
    view = None
    if known_only and col.has_na:
        view = _dist.ClassCounts(pairs.sizes, [col], [pairs]).known()
    for label, what, param, how in measures:
        if view is not None and what in _RULED:
            v = _measure(view.pairs(0), view.columns[0], what, param)
            if what in ("entropy", "t"):  # a class without a known value: l 0, distance 0
                v = np.where(view.blank(0), 0.0, v)
        else:
            v = _measure(pairs, col, what, param)
        row[label] = [float(v.min() if how == "min" else v.max() if how == "max" else v.sum())]
    return pd.DataFrame(row)


def _lazy_measures(ddf, qis, gcol: GlobalColumn, measures, known_only: bool = False):
    """Lazy {label: scalar} of per-class ``measures`` [(label, what, param, how)] for one
    sensitive column (``known_only``: l and t over known values, see
    :func:`_measures_of_pairs`)."""
    dtypes = column_dtypes(ddf, qis)
    names = key_names(qis, dtypes) if qis else []
    if not names:
        # no quasi-identifier: one class; give every row the same key
        base = ddf.assign(__one=0)
        qis, dtypes, names = ["__one"], {"__one": np.dtype(np.int64)}, ["k0"]
    else:
        base = ddf
    meta = key_frame(base._meta, qis, dtypes, extra={"__s": np.zeros(0, np.int64)})
    keys = base.map_partitions(_pair_keys, qis, dtypes, gcol, meta=meta)
    split_out = split_out_of(ddf)
    pairs = keys.groupby(names + ["__s"], dropna=False, sort=False, observed=True).size(
        split_out=split_out).rename("__n").reset_index()
    if split_out > 1:
        pairs = pairs.shuffle(on=names, npartitions=split_out)
    out_meta = pd.DataFrame({label: np.zeros(0) for label, _, _, _ in measures})
    per_part = pairs.map_partitions(_measures_of_pairs, names, gcol.column, measures,
                                    known_only, meta=out_meta)
    lazy = {}
    for label, _, _, how in measures:
        col = per_part[label]
        lazy[label] = col.min() if how == "min" else col.max() if how == "max" else col.sum()
    return lazy


def _check_measure_inputs(gcols: dict, distance=None, hierarchies=None, known=False):
    """Raise the errors pandas raises (unknown distance, missing hierarchy, Wasserstein on
    missing values under ``missing_sensitive="value"``, ...) before any Dask work, by
    evaluating on no class."""
    if distance is None:
        return
    from pdanon.models.closeness import check_distance

    data = _dist.SensitiveData({c: g.column for c, g in gcols.items()})
    check_distance(distance, hierarchies, data)
    empty = _dist.PairCounts(np.zeros(0, np.int64), np.zeros(0, np.int64),
                             np.zeros(0, np.int64), np.zeros(0, np.int64))
    for c, g in gcols.items():
        col = g.column.known() if known else g.column
        _dist.class_distances(empty, col, distance, (hierarchies or {}).get(c))


def l_diversity(ddf, quasi_identifiers=None, sensitive=None, *, variant: str = "distinct",
                c: float | None = None, missing: str = "value",
                missing_sensitive: str = "unknown"):
    """The l the frame achieves (see :func:`pdanon.models.l_diversity` for the variants and
    ``missing_sensitive``): the smallest over classes and sensitive columns; equal to the
    pandas value.

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> df = pd.DataFrame({"zip": [1, 1, 1, 2, 2, 2], "d": ["a", "a", "b", "a", "b", "c"]})
    >>> ddf = dd.from_pandas(df, npartitions=2)
    >>> l_diversity(ddf, ["zip"], ["d"]), round(l_diversity(ddf, ["zip"], ["d"], variant="entropy"), 4)
    (2, 1.8899)
    """
    import dask
    from pdanon.models.diversity import check_variant

    check_dask_frame(ddf)
    check_variant(variant, c)
    known = check_missing_sensitive(missing_sensitive) == "unknown"
    _groups.refuse_wildcard(missing, "l-diversity")
    qis = check_qis(ddf, quasi_identifiers)
    spec = _sensitive(ddf, sensitive)
    gcols = sensitive_columns(ddf, spec)
    gcols.pop("extra")
    if sum(int(g.column.global_counts.sum()) for g in gcols.values()) == 0:
        return 0.0 if variant == "entropy" else 0
    lazies = [_lazy_measures(ddf, qis, g, [("l", variant, c, "min")], known)["l"]
              for g in gcols.values()]
    value = float(min(dask.compute(*lazies)))
    return value if variant == "entropy" else int(round(value))


def t_closeness(ddf, quasi_identifiers=None, sensitive=None, *, distance: str = "emd",
                kinds=None, hierarchies=None, missing: str = "value",
                missing_sensitive: str = "unknown") -> float:
    """The smallest t for which the frame is t-close (see :func:`pdanon.models.t_closeness` for
    the distances and ``missing_sensitive``): the largest class-to-table distance; equal to
    the pandas value.

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    >>> t_closeness(dd.from_pandas(df, npartitions=2), ["zip"], ["d"])
    0.25
    """
    import dask

    check_dask_frame(ddf)
    known = check_missing_sensitive(missing_sensitive) == "unknown"
    _groups.refuse_wildcard(missing, "t-closeness")
    qis = check_qis(ddf, quasi_identifiers)
    spec = _sensitive(ddf, sensitive, kinds)
    gcols = sensitive_columns(ddf, spec)
    gcols.pop("extra")
    _check_measure_inputs(gcols, distance, hierarchies, known)
    if sum(int(g.column.global_counts.sum()) for g in gcols.values()) == 0:
        return 0.0
    lazies = [_lazy_measures(ddf, qis, g, [("t", "t", (distance, (hierarchies or {}).get(c)),
                                            "max")], known)["t"] for c, g in gcols.items()]
    return float(max(0.0, *dask.compute(*lazies)))


def metrics(ddf, quasi_identifiers=None, sensitive=None, *, missing: str = "value",
            risk: bool = True, sampling_fraction=None, threshold: float = 0.2,
            missing_sensitive: str = "unknown") -> pd.DataFrame:
    """The original-free rows of :func:`pdanon.metrics.metrics_table` for a Dask frame (k, l
    distinct / entropy, t (EMD), adversarial gains, classes, average class size, distinctness,
    non-uniform entropy) plus the discernibility Σ|class|², computed in one Dask pass per
    group-by. ``sensitive`` defaults to the roles remembered by the frame's meta (none: the l,
    t and adversarial rows are left out). ``missing="wildcard"``: one row,
    ``k_anonymity_wildcard``, as :func:`pdanon.metrics.metrics_table` (the other rows need
    classes). The ``metric`` column holds the keys of :data:`pdanon.metrics.FIGURES`.
    ``risk=True`` (default) adds the record-level risk rows (prosecutor, records at risk above
    ``threshold``, marketer, sample uniques; with ``sampling_fraction=`` the journalist
    estimates and the estimated population uniques) from the classes' frequency-of-frequencies
    table (:func:`pdanon.metrics.reidentification.summarize_counts`): one number per distinct
    class size reaches the client, not one per class. ``missing_sensitive``: how the l and t
    rows read a blank sensitive cell (``"unknown"``, default: no value), as pandas.

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    >>> m = metrics(dd.from_pandas(df, npartitions=2), ["zip"], ["d"])
    >>> float(m.set_index("metric").loc["t_closeness_emd", "value"])
    0.25
    """
    import dask
    from pdanon.metrics.keys import row
    from pdanon.metrics.reidentification import summarize_counts
    from pdanon.metrics.report import COLUMNS, MetricsFrame, add_risk_rows
    from pdanon.roles import stored_roles

    check_dask_frame(ddf)
    qis = check_qis(ddf, quasi_identifiers)
    if _groups.check_missing(missing) == "wildcard":
        k = k_anonymity(ddf, qis, missing="wildcard")
        return MetricsFrame([row("k_anonymity_wildcard", k)], columns=COLUMNS)
    if sensitive is None:
        stored = stored_roles(ddf._meta)
        sensitive = dict(stored.sensitive) if stored is not None else {}
    spec = _dist.sensitive_kinds(ddf._meta, sensitive)
    sizes = class_sizes(ddf, qis)
    sizes_qi = _size_summary(sizes)
    keys_all, names_all = class_keys(ddf, list(ddf.columns))
    distinct_rows = group_sizes(keys_all, names_all, split_out_of(ddf)).count()
    extra = [sizes_qi[k] for k in ("rows", "classes", "k", "slog", "squares")] + [distinct_rows]
    extra.append(sizes.value_counts(split_out=1) if risk or sampling_fraction is not None
                 else None)
    gcols = sensitive_columns(ddf, spec, extra=extra) if spec else {"extra": dask.compute(*extra)}
    rows, classes, k, slog, squares, distinct, size_counts = gcols.pop("extra")
    rows, classes = int(rows), int(classes)
    out = []

    def add(key, value, **values):
        out.append(row(key, value, **values))

    add("k_anonymity", int(k) if rows else 0)
    if size_counts is not None:
        figures = summarize_counts(size_counts, threshold=threshold,
                                   sampling_fraction=sampling_fraction)
        add_risk_rows(add, figures, threshold, estimate=sampling_fraction is not None)
    if gcols:
        measures = [("l_d", "distinct", None, "min"), ("l_e", "entropy", None, "min"),
                    ("t", "t", ("emd", None), "max"), ("kg", "knowledge", None, "sum"),
                    ("ag", "accuracy", None, "sum")]
        known = check_missing_sensitive(missing_sensitive) == "unknown"
        lazy = [_lazy_measures(ddf, qis, g, measures, known) for g in gcols.values()
                ] if rows else []
        got = dask.compute(*lazy)
        if rows:
            l_d = min(r["l_d"] for r in got)
            l_e = min(r["l_e"] for r in got)
            t = max(0.0, *(r["t"] for r in got))
            kg = max(0.0, *(r["kg"] / rows for r in got))
            ag = max(0.0, *((r["ag"] - g.column.global_counts.max()) / rows
                            for r, g in zip(got, gcols.values())))
        else:
            l_d = l_e = t = kg = ag = 0.0
        add("l_diversity_distinct", l_d)
        add("l_diversity_entropy", l_e)
        add("t_closeness_emd", t)
        add("adversarial_knowledge_gain", kg)
        add("adversarial_accuracy_gain", ag)
    add("equivalence_classes", classes if rows else 0)
    add("average_class_size", rows / classes if rows else 0.0)
    add("distinctness", int(distinct) / rows if rows else 0.0)
    add("non_uniform_entropy", _entropy(rows, float(slog)))
    add("discernibility", int(squares) if rows else 0)
    return MetricsFrame(out, columns=COLUMNS)
