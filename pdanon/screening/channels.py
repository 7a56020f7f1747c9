"""Channels: columns published unchanged that give a generalized quasi-identifier back.

A release publishes its sensitive and insensitive columns (and its index) as they were. Such a
column C is a *channel* for a quasi-identifier Q when its value determines Q: every row
holding C = c holds one single Q value. Survey weights drawn per stratum are the classic case
(the weight names the stratum, the stratum is a ZIP code), so is a code that maps to one
region. Whoever knows the dependency - it is design information, or the release teaches it
in the rows where Q is published plainly - reads the exact Q value off C in every row whose Q
cell the anonymizer published as a range, a set or a blank, and the classes the release
verified split into smaller ones.

The rule, in numbers (docs/security.md "Columns published unchanged"):

* a value c **pins** Q when the rows holding it all hold one Q value q (a missing Q is a
  value), at least two rows hold it, and that agreement is not chance: the probability that
  the other m - 1 rows of c fall on q by chance, ``p(q) ** (m - 1)`` with ``p(q)`` the share
  of q in the column, is below :data:`CHANCE` (0.05) divided by the number of the column's
  values held by two rows or more (so that all of them together agree by chance with a
  probability under 5 %; a stratum weight repeated over dozens of rows passes easily). A
  column merely correlated with Q (a
  value that mixes Q values) pins nothing; a value held by one row is the uniqueness problem
  the screening and :func:`k_if_known` measure, not a pin;
* a row is **narrowed** when its c pins Q and its Q cell is hidden (published as a range, a
  set, a blank where the original held a value, or another single value);
* **k with it**: the smallest class over the quasi-identifiers once every narrowed cell is
  replaced by its original value (a recovered cell equals a plainly published one);
* the anonymizers refuse (:class:`pdanon.ChannelError`) a column, unless the caller allowed
  it with ``allow_channels=[...]``, that narrows more than :data:`MAX_SHARE` (5 %) of a
  quasi-identifier's hidden cells and lowers k below the k at stake (the model's smallest
  class, at least 2) and below the release's own.

:func:`measure` computes the findings against the original (the anonymizers have both);
:func:`learned` from the release alone, where a dependency is what its plainly published
rows show (``check()``); :func:`k_if_known` is the k an attacker who also knew a column
measures (a figure, not a refusal). Every function works on integer codes
(:func:`pdanon._groups.column_codes`, one ``bincount`` per pair of columns), without a loop
over rows.

This module is self-contained: it imports :mod:`pdanon._groups`, :mod:`pdanon.encode`
(``missing``), :mod:`pdanon.dtype` (the generalized cells), :mod:`pdanon.publisher_only`
and :mod:`pdanon._errors`. The engine (:func:`pdanon.engine.anonymize`), ``df.anon.generalize``
and :func:`pdanon.checks.policy.check` call it.

Example
-------
>>> import pandas as pd
>>> original = pd.DataFrame({"zip": ["a"] * 8 + ["b"] * 8, "w": [2.5] * 8 + [4.0] * 8})
>>> release = original.assign(zip=[None] * 16)        # every ZIP suppressed
>>> measure(original, release, ["zip"])[["column", "quasi_identifier", "narrowed",
...                                      "hidden", "k_with"]].to_dict("records")
[{'column': 'w', 'quasi_identifier': 'zip', 'narrowed': 16, 'hidden': 16, 'k_with': 8}]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._errors import ChannelError
from pdanon._groups import column_codes, combine_codes

__all__ = ["CHANCE", "INDEX", "MAX_SHARE", "k_if_known", "learned", "measure", "record", "refuse",
           "unchanged_columns"]

#: a pin counts when chance agreement of its rows on one value is less likely than this
CHANCE = 0.05
#: the share of a quasi-identifier's hidden cells a column may narrow before it is refused
MAX_SHARE = 0.05
#: the name under which the index (published with the release) is measured
INDEX = "(index)"
#: the columns of :func:`measure` and :func:`learned`
FINDING_COLUMNS = ["column", "quasi_identifier", "narrowed", "hidden", "share", "k_with",
                   "k_without", "rows_below_k", "allowed"]


def unchanged_columns(release: pd.DataFrame, qi) -> list:
    """The columns ``release`` publishes as they were: every column that is not a
    quasi-identifier, and the index (as :data:`INDEX`) when it repeats values (a unique
    index pins nothing; whether it identifies people is the screening's question).

    >>> unchanged_columns(pd.DataFrame({"age": [1], "w": [2.0]}), ["age"])
    ['w']
    """
    out = [c for c in release.columns if c not in set(qi)]
    if not isinstance(release.index, pd.RangeIndex) and INDEX not in release.columns \
            and not release.index.is_unique:
        out.append(INDEX)
    return out


def _values(frame: pd.DataFrame, col):
    return frame.index.array if col == INDEX and col not in frame.columns else frame[col].array


def _codes(frame: pd.DataFrame, col) -> tuple[np.ndarray, int]:
    return column_codes(_values(frame, col), where=f"column {col!r}")


def _hidden(before: pd.Series, after: pd.Series) -> np.ndarray:
    """Cells of ``after`` that do not show ``before``'s value: a range or set, a blank
    where a value was, or another single value (an aggregate)."""
    from pdanon.dtype import GeneralizationDtype
    from pdanon.encode import missing

    was, now = missing(before), missing(after)
    out = now & ~was
    if isinstance(after.dtype, GeneralizationDtype):
        return out | (~now & ~np.asarray(after.array.is_plain, dtype=bool))
    if isinstance(before.dtype, GeneralizationDtype):
        return out
    both = ~now & ~was
    if both.any():
        a = np.asarray(after.to_numpy(dtype=object)[both])
        b = np.asarray(before.to_numpy(dtype=object)[both])
        out[np.flatnonzero(both)[a != b]] = True
    return out


def _pins(c: np.ndarray, mc: int, q: np.ndarray, rows: np.ndarray | None = None):
    """Per value of ``c`` (codes < ``mc``): does it pin ``q``, and to which code? Only the
    rows ``rows`` (a mask; all when None) teach the dependency."""
    cs, qs = (c, q) if rows is None else (c[rows], q[rows])
    pin = np.zeros(mc, dtype=bool)
    q_of = np.zeros(mc, dtype=np.int64)
    if not len(cs):
        return pin, q_of
    m = np.bincount(cs, minlength=mc)
    pair = combine_codes([cs, qs], len(cs))
    first = np.zeros(int(pair.max()) + 1, dtype=np.int64)
    first[pair] = np.arange(len(cs))
    distinct = np.bincount(cs[first], minlength=mc)
    q_of[cs] = qs
    share = np.bincount(qs) / len(qs)
    chance = share[q_of] ** np.maximum(m - 1, 0).astype(np.float64)
    tested = m >= 2
    # the chance that some value of the column agrees by chance stays below CHANCE
    # (Bonferroni over the values tested)
    pin = (distinct == 1) & tested & (chance < CHANCE / max(int(tested.sum()), 1))
    return pin, q_of


def _classes(codes: list) -> np.ndarray:
    """The size of every class of the combined ``codes``."""
    labels = combine_codes(codes, len(codes[0]))
    return np.bincount(labels)[labels]


def _findings(rows: list, allowed) -> pd.DataFrame:
    out = pd.DataFrame(rows, columns=FINDING_COLUMNS)
    out["allowed"] = out["column"].isin(list(allowed or ()))
    return out


def measure(original: pd.DataFrame, release: pd.DataFrame, qi, columns=None, *, k: int = 2,
            allowed=()) -> pd.DataFrame:
    """Every channel of ``release`` measured against ``original`` (same rows in the same
    order): one row per (``column``, ``quasi_identifier``) where the column narrows at least
    one cell, with ``narrowed`` (rows), ``hidden`` (the quasi-identifier's hidden cells),
    ``share`` (narrowed / hidden), ``k_with`` (the smallest class once every cell the column
    narrows, in any quasi-identifier, is recovered), ``k_without`` (the release's own),
    ``rows_below_k`` (rows in classes under ``k`` with it) and ``allowed`` (named in
    ``allowed``). ``columns``: default :func:`unchanged_columns`.

    >>> original = pd.DataFrame({"zip": list("aabb"), "lab": [1.0, 2.0, 1.0, 2.0]})
    >>> measure(original, original.assign(zip=[None] * 4), ["zip"]).empty  # correlated only
    True
    """
    qi = list(qi)
    columns = unchanged_columns(release, qi) if columns is None else list(columns)
    n = len(release)
    if not n or not qi:
        return _findings([], allowed)
    pub, orig, hidden, mq = {}, {}, {}, {}
    for q in qi:
        hidden[q] = _hidden(original[q], release[q])
        if hidden[q].any():
            orig[q], mq[q] = _codes(original, q)
            pub[q] = column_codes(release[q].array, where=f"column {q!r}")[0]

    def view(q, narrowed=None):
        """The quasi-identifier's codes as an attacker reads them: a shown or narrowed cell
        is its value, a hidden one its published cell."""
        if q not in pub:
            return column_codes(release[q].array, where=f"column {q!r}")[0]
        known = ~hidden[q] if narrowed is None else (~hidden[q] | narrowed)
        return np.where(known, orig[q], mq[q] + pub[q])

    base = {q: view(q) for q in qi}
    k_without = int(_classes(list(base.values())).min())
    rows = []
    for col in columns:
        c, mc = _codes(release, col)
        if np.bincount(c).max() < 2:
            continue  # every value held by one row: pins nothing (see k_if_known)
        found = {}
        for q in pub:
            pin, _ = _pins(c, mc, orig[q])
            narrowed = pin[c] & hidden[q]
            if narrowed.any():
                found[q] = narrowed
        if not found:
            continue
        sizes = _classes([view(q, found[q]) if q in found else base[q] for q in qi])
        k_with, below = int(sizes.min()), int((sizes < k).sum())
        for q, narrowed in found.items():
            rows.append([col, q, int(narrowed.sum()), int(hidden[q].sum()),
                         float(narrowed.sum() / hidden[q].sum()), k_with, k_without, below,
                         False])
    return _findings(rows, allowed)


def learned(release: pd.DataFrame, qi, columns=None, *, k: int = 2,
            allowed=()) -> pd.DataFrame:
    """The channels the release teaches by itself: a value c pins Q when the rows that
    publish Q plainly and hold c all show one Q value (by the rule of :func:`measure`, over
    those rows); the cells it narrows are the ranges and sets of Q in rows holding c (a
    blank cell may have been missing from the start: not counted). The same columns as
    :func:`measure`.

    >>> release = pd.DataFrame({"zip": pd.array(["a", "a", "a", None], dtype=object),
    ...                         "w": [2.5, 2.5, 2.5, 2.5]})
    >>> learned(release, ["zip"]).empty      # a blank is not counted
    True
    """
    from pdanon.dtype import GeneralizationDtype

    qi = list(qi)
    columns = unchanged_columns(release, qi) if columns is None else list(columns)
    if not len(release) or not qi:
        return _findings([], allowed)
    pub, plain, hidden = {}, {}, {}
    for q in qi:
        s = release[q]
        pub[q] = column_codes(s.array, where=f"column {q!r}")[0]
        if isinstance(s.dtype, GeneralizationDtype):
            shown = np.asarray(s.array.is_plain, dtype=bool)
            plain[q], hidden[q] = shown, ~shown & ~s.isna().to_numpy()
    k_without = int(_classes(list(pub.values())).min())
    rows = []
    for col in columns:
        c, mc = _codes(release, col)
        found = {}
        for q in hidden:
            if not hidden[q].any():
                continue
            pin, q_of = _pins(c, mc, pub[q], plain[q])
            narrowed = pin[c] & hidden[q]
            if narrowed.any():
                found[q] = np.where(narrowed, q_of[c], pub[q])
        if not found:
            continue
        sizes = _classes([found.get(q, pub[q]) for q in qi])
        k_with, below = int(sizes.min()), int((sizes < k).sum())
        for q, view in found.items():
            count = int((view != pub[q]).sum())
            rows.append([col, q, count, int(hidden[q].sum()),
                         float(count / hidden[q].sum()), k_with, k_without, below, False])
    return _findings(rows, allowed)


def failing(findings: pd.DataFrame, k: int) -> pd.DataFrame:
    """The findings that break the rule: not allowed, more than :data:`MAX_SHARE` of the
    hidden cells narrowed, and k with the column below both ``k`` and the release's own."""
    f = findings
    return f[~f["allowed"] & (f["share"] > MAX_SHARE) & (f["k_with"] < k)
             & (f["k_with"] < f["k_without"])]


def refuse(findings: pd.DataFrame, *, k: int) -> None:
    """Raise :class:`pdanon.ChannelError` for the first finding that breaks the rule (see
    :func:`failing`), naming the column, the quasi-identifier, the effect and the fixes."""
    bad = failing(findings, k)
    if bad.empty:
        return
    row = bad.sort_values("share", ascending=False).iloc[0]
    col, q = row["column"], row["quasi_identifier"]
    what = "the index" if col == INDEX else f"column {col!r}"
    others = sorted(set(bad["column"]) - {col})
    drop = ("df.reset_index(drop=True)" if col == INDEX else
            f"withhold it (identifiers=[{col!r}]; if it holds sampling weights, check(..., "
            f"weights={col!r}, original=df) still measures the weighted risk from the input, "
            f"never writing them) or generalize it")
    raise ChannelError(
        f"{what} is published unchanged and gives quasi-identifier {q!r} back: in "
        f"{row['narrowed']:,} of the {row['hidden']:,} rows whose {q!r} is published as a "
        f"range, a set or a blank ({row['share']:.1%}), its value is held only by rows of one "
        f"{q!r} value, so whoever knows that dependency (stratum weights, a code that maps to "
        f"one region) reads the exact {q!r} there. With it the smallest class holds "
        f"{row['k_with']} row(s) (k = {k} is at stake, the release has "
        f"{row['k_without']}; {row['rows_below_k']:,} rows sit in classes under {k}). Fixes: "
        f"name it among the quasi-identifiers (it is then generalized with them), {drop}, "
        f"calibrate or perturb it (weights: noise, or a rounding to a few levels), or, if you "
        f"have judged it safe, allow_channels=[{col!r}] (recorded in info)"
        + (f". Also channels: {others}" if others else ""))


def k_if_known(release: pd.DataFrame, qi, columns=None) -> dict:
    """Per column published unchanged (default :func:`unchanged_columns`): the smallest
    class over the quasi-identifiers and that column, i.e. the k measured if an attacker
    also knew it. A figure, not a refusal: a lab value is rarely known to an attacker, a
    weight or a household size often is.

    >>> release = pd.DataFrame({"age": ["[30, 40]"] * 4, "w": [1.0, 1.0, 2.0, 2.0],
    ...                         "lab": [5.1, 5.2, 5.3, 5.4]})
    >>> k_if_known(release, ["age"])
    {'w': 2, 'lab': 1}
    """
    qi = list(qi)
    columns = unchanged_columns(release, qi) if columns is None else list(columns)
    if not len(release):
        return {col: 0 for col in columns}
    base = [column_codes(release[q].array, where=f"column {q!r}")[0] for q in qi]
    return {col: int(_classes([*base, _codes(release, col)[0]]).min()) for col in columns}


def allowed_columns(allow_channels, release: pd.DataFrame, qi) -> list:
    """``allow_channels`` as a list of columns published unchanged (a name alone is a list
    of one), or a clear error naming one that is not such a column."""
    from pdanon._errors import InvalidInputError

    if allow_channels is None:
        return []
    names = [allow_channels] if isinstance(allow_channels, (str, int)) else list(allow_channels)
    possible = unchanged_columns(release, qi)
    for name in names:
        if name not in possible and not (name == INDEX):
            raise InvalidInputError(
                f"allow_channels names {name!r}, which is not a column this release publishes "
                f"unchanged ({possible}; the index is {INDEX!r}): name the columns you have "
                f"judged safe to publish beside the generalized quasi-identifiers")
    return names


def guard(original: pd.DataFrame, release: pd.DataFrame, qi, info: dict, *, k: int,
          allow_channels=None, sensitive=(), release_k: int | None = None) -> None:
    """What an anonymizer does before returning ``release``: measure the channels of its
    columns published unchanged but the ``sensitive`` ones against ``original``
    (:func:`measure`), refuse the first that breaks the rule (:func:`refuse`),
    and record in ``info`` the columns allowed (``channels_allowed``, published) and the
    findings (``info["publisher_only"]["channels"]``: figures of the original, never
    written with the release). ``release_k``: the release's own k as its face verified it
    when that is not the k with a blank as a value (local suppression verifies k with a
    blank matching any value): it replaces ``k_without`` in the rule."""
    allowed = allowed_columns(allow_channels, release, qi)
    k = max(int(k), 2)
    columns = [c for c in unchanged_columns(release, qi) if c not in set(sensitive)]
    findings = measure(original, release, qi, columns, k=k, allowed=allowed)
    if release_k is not None and not findings.empty:
        findings["k_without"] = int(release_k)
    refuse(findings, k=k)
    record(info, allowed, findings)


def record(info: dict, allowed: list, findings: pd.DataFrame) -> None:
    """Record in ``info`` the columns allowed (``channels_allowed``, published) and the
    findings (``info["publisher_only"]["channels"]``: figures of the original, never written
    with the release)."""
    from pdanon.publisher_only import PublisherOnly

    if allowed:
        info["channels_allowed"] = list(allowed)
    if not findings.empty:
        earlier = info.get("publisher_only")
        facts = earlier.facts() if isinstance(earlier, PublisherOnly) else dict(earlier or {})
        info["publisher_only"] = PublisherOnly(
            {**facts, "channels": findings.to_dict("records")})
