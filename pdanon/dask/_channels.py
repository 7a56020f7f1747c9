"""The channel rule on Dask: no column published unchanged gives a generalized
quasi-identifier back (:mod:`pdanon.screening.channels`, the same rule, threshold, refusal and
``allow_channels=`` opt-out as on pandas frames).

A column C *pins* a quasi-identifier Q when the rows holding a value c all held one original
Q value q (at least two rows, and chance agreement unlikely: ``p(q) ** (m - 1) <``
:data:`~pdanon.screening.channels.CHANCE` over the number of C values held by two rows or
more). A row is *narrowed* when its c pins Q and its published Q cell does not show q. On Dask
the figures come from group-bys that scale with the number of distinct values, never from
collecting the frame:

1. the input and the release are read as *keys*: every cell becomes a short text (a value's
   canonical form, ``1`` and ``1.0`` alike; a range or set its own text under a prefix; a
   blank one sentinel), so that an original value and a plainly published cell of the same
   value are one key, in every partition alike;
2. per column C of the input that repeats a value, and per quasi-identifier Q that hides a
   cell (a first pass of counts says which): a group-by on (C, Q) counts the rows of every
   pair, a second one on C gives per value its rows, its number of Q values and the Q value;
   the pins are the values with one Q value that pass the chance test (Q's counts from the
   same pairs), persisted (one row per pinning value);
3. the release (its rows in any order: a pinned value says which Q its rows held, so no
   alignment with the input is needed) is merged with the pins on C: a narrowed row is one
   whose published Q key is not its pinned key; for a column that narrows a cell, ``k with
   it`` is the smallest class once every narrowed cell reads its pinned value (a group-by
   over the quasi-identifiers' keys), ``k_without`` the release's own;
4. the hidden cells of Q (the share's denominator): ranges and sets, plus the cells blank in
   the release but not in the input (a blank count of each). A release of group means
   (``method="aggregate"``) publishes another single value where it hides one, which only a
   row-by-row comparison tells: there the denominator is the narrowed cells plus the new
   blanks (a lower bound: the share is never understated, the rule is stricter than on
   pandas).

The index is not tested: a Dask release gets a fresh index (``row_order="random"``, the
default), and one published with ``row_order="input"`` fails ``check()``'s default policy.

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> from pdanon.dtype import GeneralizationDtype
>>> original = pd.DataFrame({"zip": ["a"] * 8 + ["b"] * 8, "w": [2.5] * 8 + [4.0] * 8})
>>> release = original.assign(zip=pd.array(["{a, b}"] * 16,
...                                        dtype=GeneralizationDtype("unordered")))
>>> f = measure(dd.from_pandas(original, npartitions=2), dd.from_pandas(release, npartitions=3),
...             ["zip"], ["w"], k=10)
>>> f[["column", "quasi_identifier", "narrowed", "hidden", "k_with"]].to_dict("records")
[{'column': 'w', 'quasi_identifier': 'zip', 'narrowed': 16, 'hidden': 16, 'k_with': 8}]
"""

from __future__ import annotations

import datetime

import numpy as np
import pandas as pd

__all__ = ["guard", "keys", "measure"]

#: the key of a blank cell
NA_KEY = "\x00NA"
#: the prefix of a range's or a set's key (never a value's)
CELL_PREFIX = "\x01"


def _canonical(value) -> str:
    """One value's key: numbers by their value (``1`` and ``1.0`` alike), times by their ISO
    text, anything else by its text."""
    if isinstance(value, (bool, np.bool_)):
        return f"b:{bool(value)}"
    if isinstance(value, (int, np.integer)):
        return f"n:{int(value)}"
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return f"n:{int(f)}" if f.is_integer() else f"n:{f!r}"
    if isinstance(value, (pd.Timestamp, datetime.datetime, datetime.date)):
        return "t:" + pd.Timestamp(value).isoformat()
    return f"s:{value}"


def _value_keys(values) -> np.ndarray:
    """Keys of plain values (one :func:`_canonical` per distinct value)."""
    codes, uniques = pd.factorize(pd.Series(values, copy=False), use_na_sentinel=True)
    table = np.array([_canonical(u) for u in uniques] + [NA_KEY], dtype=object)
    return table[np.asarray(codes)]


def keys(series: pd.Series) -> np.ndarray:
    """Every cell of ``series`` as a key: a value (or a generalized cell that shows one value)
    its canonical text, a range or a set its text under :data:`CELL_PREFIX`, a blank
    :data:`NA_KEY`.

    >>> from pdanon.dtype import GeneralizationDtype
    >>> cells = pd.Series(pd.array([34, "[30, 40]", None], dtype=GeneralizationDtype("real")))
    >>> [k.replace(CELL_PREFIX, "~").replace(NA_KEY, "NA") for k in keys(cells)]
    ['n:34', '~[30, 40]', 'NA']
    >>> keys(pd.Series([34.0, None])).tolist() == ["n:34", NA_KEY]
    True
    """
    from pdanon.dtype import GeneralizationDtype

    if not isinstance(series.dtype, GeneralizationDtype):
        return _value_keys(series)
    arr = series.array
    na = np.asarray(arr.isna(), dtype=bool)
    plain = np.asarray(arr.is_plain, dtype=bool) & ~na
    out = np.full(len(arr), NA_KEY, dtype=object)
    if plain.any():
        out[plain] = _value_keys(arr[plain].to_numpy())
    boxed = ~plain & ~na
    if boxed.any():
        out[boxed] = np.char.add(CELL_PREFIX, arr[boxed].to_text().astype(str)).astype(object)
    return out


def _keyed(pdf: pd.DataFrame, columns: dict) -> pd.DataFrame:
    """One partition as keys: ``{key column: source column}``."""
    return pd.DataFrame({k: pd.Series(keys(pdf[c]), dtype=object) for k, c in columns.items()},
                        index=pd.RangeIndex(len(pdf)))


def _keyed_frame(ddf, columns: dict):
    meta = pd.DataFrame({k: pd.Series(dtype=object) for k in columns})
    return ddf.map_partitions(_keyed, columns, meta=meta, clear_divisions=True)


def _names(qi: list, columns: list) -> tuple[dict, dict]:
    """Key columns: ``q0..`` for the quasi-identifiers, ``c0..`` for the tested columns."""
    return ({f"q{i}": q for i, q in enumerate(qi)}, {f"c{i}": c for i, c in enumerate(columns)})


def _pins(orig, c: str, q: str, n: int):
    """The values of column key ``c`` that pin quasi-identifier key ``q`` (a lazy frame
    indexed by the value, its column ``pin`` the pinned key): the rule of
    :func:`pdanon.screening.channels.measure`, by two group-bys."""
    from pdanon.screening.channels import CHANCE

    pairs = orig[[c, q]].groupby([c, q]).size().to_frame("rows").reset_index()
    per = pairs.groupby(c).agg({"rows": ["sum", "count"], q: "first"})
    per.columns = ["m", "distinct", "pin"]
    q_rows = pairs.groupby(q)["rows"].sum().to_frame("q_rows")
    tested = (per["m"] >= 2).sum()  # (a pin needs m >= 2: none when no value is tested)
    one = per[(per["distinct"] == 1) & (per["m"] >= 2)]
    one = one.merge(q_rows, left_on="pin", right_index=True, how="left")
    chance = (one["q_rows"] / n) ** (one["m"] - 1)
    return one[chance < CHANCE / (tested + (tested == 0))][["pin"]]


def measure(original, release, qi, columns, *, k: int = 2, allowed=(),
            aggregate: bool = False) -> pd.DataFrame:
    """The channels of the Dask ``release`` measured against the Dask ``original`` (the rows
    of both in any order and partitions): the columns of
    :func:`pdanon.screening.channels.measure`, one row per (column, quasi-identifier) where
    the column narrows a cell. ``aggregate``: the release publishes group values (module
    docstring, point 4)."""
    import dask

    from pdanon.screening.channels import FINDING_COLUMNS

    qi, columns = list(qi), list(columns)
    qk, ck = _names(qi, columns)
    empty = pd.DataFrame([], columns=FINDING_COLUMNS)
    if not qi or not columns:
        return empty
    orig = _keyed_frame(original, {**qk, **ck})
    rel = _keyed_frame(release, {**qk, **ck})
    n = len(original)
    if not n:
        return empty
    q_names = list(qk)
    # 1. which quasi-identifiers hide cells, which columns repeat a value (cheap counts)
    lazy = {}
    for q in q_names:
        lazy[("boxed", q)] = rel[q].str.startswith(CELL_PREFIX).sum()
        lazy[("na_out", q)] = (rel[q] == NA_KEY).sum()
        lazy[("na_in", q)] = (orig[q] == NA_KEY).sum()
    for c in ck:
        lazy[("repeats", c)] = orig[c].value_counts().max()
    got = dict(zip(lazy, dask.compute(*lazy.values())))
    blanked = {q: max(int(got[("na_out", q)]) - int(got[("na_in", q)]), 0) for q in q_names}
    hiding = [q for q in q_names if aggregate or int(got[("boxed", q)]) + blanked[q]]
    tested = [c for c in ck if int(got[("repeats", c)]) >= 2]
    if not hiding or not tested:
        return empty
    # 2. the pins of every (column, quasi-identifier), and the cells they narrow
    pins = dict(zip([(c, q) for c in tested for q in hiding], dask.persist(*[
        _pins(orig, c, q, n).rename(columns={"pin": f"pin_{q}"})
        for c in tested for q in hiding])))

    def narrowing(c):
        merged = rel[[*q_names, c]]
        for q in hiding:
            merged = merged.merge(pins[(c, q)], left_on=c, right_index=True, how="left")
        pin = {q: merged[f"pin_{q}"] for q in hiding}
        return merged, {q: ~pin[q].isna() & (merged[q] != pin[q]) for q in hiding}, pin

    lazy = {}
    for c in tested:
        _, narrowed, _ = narrowing(c)
        for q in hiding:
            lazy[(c, q)] = narrowed[q].sum()
    count = dict(zip(lazy, (int(v) for v in dask.compute(*lazy.values()))))
    found = [c for c in tested if any(count[(c, q)] for q in hiding)]
    if not found:
        return empty
    # 3. k with each column that narrows a cell (and the release's own)
    lazy = {"k_without": rel.groupby(q_names).size().min()}
    for c in found:
        merged, narrowed, pin = narrowing(c)
        views = {q: merged[q].where(~narrowed[q], pin[q]) for q in hiding}
        sizes = merged.assign(**views)[q_names].groupby(q_names).size()
        lazy[("k_with", c)] = sizes.min()
        lazy[("below", c)] = sizes[sizes < k].sum()
    got.update(zip(lazy, dask.compute(*lazy.values())))
    rows = []
    for c in found:
        for q in hiding:
            narrowed = count[(c, q)]
            if not narrowed:
                continue
            hidden = max(narrowed + blanked[q] if aggregate
                         else int(got[("boxed", q)]) + blanked[q], narrowed)
            rows.append([ck[c], qk[q], narrowed, hidden, float(narrowed / hidden),
                         int(got[("k_with", c)]), int(got["k_without"]),
                         int(got[("below", c)]), False])
    out = pd.DataFrame(rows, columns=FINDING_COLUMNS)
    out["allowed"] = out["column"].isin(list(allowed or ()))
    return out


def allowed(allow_channels, meta: pd.DataFrame, qi) -> list:
    """``allow_channels`` checked against the columns the release publishes unchanged
    (:func:`pdanon.screening.channels.allowed_columns` on the release's meta)."""
    from pdanon.screening.channels import allowed_columns

    return allowed_columns(allow_channels, meta, qi)


def guard(original, release, qi, info: dict, *, k: int, allow_channels=None, sensitive=(),
          aggregate: bool = False) -> None:
    """What a Dask anonymizer does before returning ``release``, as
    :func:`pdanon.screening.channels.guard` on pandas: measure the columns it publishes
    unchanged but the ``sensitive`` ones (:func:`measure`), refuse the first that breaks the
    rule (:class:`pdanon.ChannelError`, the pandas message), record ``channels_allowed`` and
    the findings (``info["publisher_only"]["channels"]``, never written)."""
    from pdanon.screening.channels import record, refuse

    names = allowed(allow_channels, release._meta, qi)
    k = max(int(k), 2)
    skip = set(qi) | set(sensitive)
    columns = [c for c in release.columns if c not in skip]
    findings = measure(original, release, qi, columns, k=k, allowed=names, aggregate=aggregate)
    refuse(findings, k=k)
    record(info, names, findings)
