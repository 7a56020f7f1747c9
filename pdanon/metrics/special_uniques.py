"""SUDA: special uniques detection (Elliot, Manning & Ford 2002; SUDA2: Manning, Haglin &
Keane 2008) and DIS-SUDA scores.

A **minimal sample unique** (MSU) of a row is a set of its quasi-identifier values that no
other row shares, while every proper subset of it is shared by some other row. A row with a
small MSU (say, the only widowed 19-year-old) is *special*: an attacker needs to know little
about the person to single the row out. Rows that share all their quasi-identifiers with
another row have no MSU.

Per row:

* ``msu_count`` - number of MSUs of at most ``max_size`` attributes;
* ``msu_min_size`` - size of the smallest (0: none);
* ``suda_score`` - sum over the row's MSUs of (ATT - size)!, ATT the number of
  quasi-identifiers: Elliot et al.'s weight prod_{i=size}^{ATT-1} (ATT - i), the score of
  sdcMicro's ``suda2`` (``original_scores=TRUE``) and of the ``suda`` package; small MSUs
  weigh far more than large ones;
* ``dis_suda`` - the DIS-SUDA score, the SUDA score calibrated to a probability of a correct
  match with the data intrusion simulation measure (Elliot, Skinner & Dale 1998), as sdcMicro's
  ``suda2`` computes it: with sampling fraction pi (``dis_fraction``, default 0.01), U rows
  unique on all quasi-identifiers and P rows in classes of exactly two, the file-level DIS is
  U pi / (U pi + P (1 - pi)); a row with score s > 0 gets
  1 / (1 + P (1 - pi) / pi / (s^Q * sum over scored rows of s^-Q)), Q = 1 + (8 - ATT) / 20;
  rows without MSUs get 0.

Algorithm: rows are reduced to their distinct quasi-identifier combinations, then attribute
subsets are visited level by level (size 1, 2, ...). A combination can only have S as an MSU
if it is shared on every S minus one attribute, so the candidates for S are the intersection
of the "shared" sets of those subsets (empty: S is skipped); a row unique on a subset of S
never shares S-values with a candidate, so one weighted count over the candidates alone
decides which are unique on S. Every step is a numpy pass over the candidates; the work falls
quickly with the level. The number of subsets grows as 2^ATT: ``max_size`` bounds it.

The search is bounded before it starts: its work is estimated as (attribute subsets searched)
x (distinct combinations + :data:`SUBSET_OVERHEAD`), times :data:`WILDCARD_WEIGHT` under
``missing="wildcard"`` with missing cells, and a search of more than :data:`MAX_WORK` units
(about half a minute) is refused with an :class:`~pdanon.InvalidInputError` that gives the
estimate and the ``max_size=`` values that fit.

``missing="value"`` (default): a missing cell is a value of its own (the only row with a
missing income is special through it). ``missing="wildcard"`` (sdcMicro's rule for
frequencies): a missing cell matches any value, so it never makes a row special and never
belongs to an MSU; each subset's counts are then wildcard frequencies
(:func:`pdanon._groups.frequencies`), slower than ``"value"``. ``missing="unmatched"``
(sdcMicro's ``suda2``, which drops the items of missing cells): a missing cell matches no
value, neither another row's value nor another missing cell, and a set of attributes that
includes it is never an MSU of its row; U and P of DIS-SUDA then count missing as a value, as
``suda2`` does when it looks for whole-row duplicates.

``pad_to_three=True`` (sdcMicro's ``suda2`` with one or two keys, which it pads with constant
columns to three): the weights and DIS-SUDA's Q use ATT = 3, so a 1-MSU weighs 2! = 2 and a
2-MSU 1; the MSUs themselves are unchanged (a constant column never separates rows). The
default (False) keeps ATT = the number of quasi-identifiers, Elliot's definition.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
>>> suda(df, ["a", "b", "c"])[["msu_count", "msu_min_size", "suda_score"]]
   msu_count  msu_min_size  suda_score
0          1             1         2.0
1          2             1         4.0
2          2             2         2.0
"""

from __future__ import annotations

import itertools
import math
import numbers

import numpy as np
import pandas as pd

from pdanon import _groups
from pdanon._errors import InvalidInputError
from pdanon.metrics._common import check_frame, quasi_identifier_kinds
from pdanon.progress import progress_bar

__all__ = ["suda", "suda_contributions", "DEFAULT_DIS_FRACTION"]

#: sdcMicro's default sampling fraction for DIS-SUDA.
DEFAULT_DIS_FRACTION = 0.01
#: rows x attribute subsets from which SUDA may show a progress bar (progress=None)
PROGRESS_WORK = 5_000_000
#: Largest search, in work units: attribute subsets x (distinct combinations +
#: SUBSET_OVERHEAD), x WILDCARD_WEIGHT under missing="wildcard" with missing cells. Above it
#: SUDA refuses before searching and names the max_size= that fit.
MAX_WORK = 300_000_000
#: the fixed cost of visiting one attribute subset, in combinations (~60 us vs ~90 ns)
SUBSET_OVERHEAD = 700
#: missing="wildcard" on a table with missing cells counts wildcard frequencies per subset
#: (10-30 x slower than "value", measured on Adult with 2-5 % missing cells)
WILDCARD_WEIGHT = 20
#: seconds per work unit (measured on a 2-core machine: 70-120 ns; for the estimate shown)
SECONDS_PER_UNIT = 1e-7


class _Search:
    """The MSU search over the distinct combinations of one table."""

    def __init__(self, df: pd.DataFrame, qis: list, missing: str, pad_to_three: bool = False):
        from pdanon.encode import factorize

        if not isinstance(missing, str) or missing not in ("value", "wildcard", "unmatched"):
            raise InvalidInputError(
                f"missing must be 'value' (a missing key cell is a value of its own), "
                f"'wildcard' (it matches any value) or 'unmatched' (it matches no value and "
                f"is never part of an MSU: sdcMicro's suda2), got {missing!r}")
        self.wildcard = missing == "wildcard"
        unmatched = missing == "unmatched"
        n = len(df)
        raw, as_value, absent = [], [], []
        for c in qis:
            codes, uniques = factorize(df[c].array, where=f"column {c!r}")
            codes = np.asarray(codes, dtype=np.int64)
            absent.append(codes < 0)
            as_value.append(np.where(codes < 0, len(uniques), codes))
            if self.wildcard:  # keep a missing cell as -1
                raw.append(codes)
            elif unmatched:  # a code of its own per missing cell: it matches no row
                raw.append(np.where(codes < 0, len(uniques) + np.arange(n), codes))
            else:  # "value": a missing cell is one more value
                raw.append(as_value[-1])
        self.labels = _groups.combine_codes(
            [np.where(c < 0, c.max(initial=-1) + 1, c) for c in raw], n)  # combination per row
        self.weight = np.bincount(self.labels) if n else np.zeros(0, dtype=np.int64)
        G = len(self.weight)
        first = np.zeros(G, dtype=np.int64)
        first[self.labels] = np.arange(n)
        self.X = np.stack([c[first] for c in raw], axis=1) if G else np.zeros((0, len(qis)),
                                                                               np.int64)
        # "unmatched": which cells of each combination are missing (never part of an MSU),
        # and the class sizes with missing as a value (sdcMicro's U and P for DIS-SUDA)
        self.missing = (np.stack([a[first] for a in absent], axis=1)
                        if unmatched and G else None)
        self.value_sizes = None
        if unmatched and n:
            value_labels = _groups.combine_codes(as_value, n)
            self.value_sizes = np.bincount(value_labels)[value_labels]
        self.G, self.att = G, len(qis)
        # the ATT of the weights and of DIS-SUDA's Q (sdcMicro pads 1 or 2 keys to three)
        self.score_att = max(self.att, 3) if pad_to_three else self.att

    def unique_among(self, cand: np.ndarray, subset: tuple) -> np.ndarray:
        """Which candidate combinations are unique on ``subset`` (counting the candidates
        only, weighted by their rows)."""
        w = self.weight[cand]
        if self.wildcard:
            cols = self.X[cand][:, list(subset)]
            if (cols < 0).any():
                rows = np.repeat(np.arange(len(cand)), w)
                frame = pd.DataFrame(np.where(cols < 0, np.nan, cols)[rows].astype(np.float64))
                fk = _groups.frequencies(frame, list(frame.columns), missing="wildcard")
                starts = np.concatenate([[0], np.cumsum(w)[:-1]])
                return fk[starts] == 1
        key = _groups.combine_codes([self.X[cand, j] for j in subset], len(cand))
        return np.bincount(key, weights=w)[key] == 1

    def run(self, max_size: int, contributions: bool = False, progress=None):
        """Per combination: MSU count, smallest MSU size, SUDA score (and the per-attribute
        score contributions). ``progress``: a bar over the attribute subsets (see
        :mod:`pdanon.progress`)."""
        subsets = sum(math.comb(self.att, s) for s in range(1, max_size + 1))
        with progress_bar(subsets, desc="SUDA: attribute subsets", unit="subset",
                          enabled=progress, long=subsets * self.G >= PROGRESS_WORK) as bar:
            return self._run(max_size, contributions, bar)

    def _run(self, max_size: int, contributions: bool, bar):
        G, att = self.G, self.att
        count = np.zeros(G, dtype=np.int64)
        smallest = np.zeros(G, dtype=np.int64)
        score = np.zeros(G, dtype=np.float64)
        contrib = np.zeros((G, att), dtype=np.float64) if contributions else None
        scratch = np.zeros(G, dtype=bool)
        shared = {(): np.arange(G)}  # subset -> combinations shared on it (candidates above)
        for size in range(1, max_size + 1):
            weight = float(math.factorial(self.score_att - size))
            nxt = {}
            for subset in itertools.combinations(range(att), size):
                bar.update(1)
                parents = [subset[:i] + subset[i + 1:] for i in range(size)]
                if any(p not in shared for p in parents):
                    continue  # every combination is unique on a parent: no MSU, none above
                cand = min((shared[p] for p in parents), key=len)
                for p in parents:
                    if len(cand) == 0:
                        break
                    scratch[shared[p]] = True
                    cand = cand[scratch[cand]]
                    scratch[shared[p]] = False
                if len(cand) == 0:
                    continue
                unique = self.unique_among(cand, subset)
                msu = cand[unique]
                if self.missing is not None and len(msu):
                    msu = msu[~self.missing[np.ix_(msu, subset)].any(axis=1)]
                if len(msu):
                    count[msu] += 1
                    smallest[msu] = np.where(smallest[msu] == 0, size, smallest[msu])
                    score[msu] += weight
                    if contributions:
                        contrib[np.ix_(msu, subset)] += weight
                rest = cand[~unique]
                if len(rest):
                    nxt[subset] = rest
            shared = nxt
            if not shared:
                break
        return count, smallest, score, contrib

    def uniques_and_pairs(self) -> tuple[int, int]:
        """(rows unique on all quasi-identifiers, rows in classes of exactly two)."""
        if self.value_sizes is not None:  # "unmatched": counted with missing as a value
            return (int(np.count_nonzero(self.value_sizes == 1)),
                    int(np.count_nonzero(self.value_sizes == 2)))
        if not self.wildcard or not (self.X < 0).any():
            return (int(np.count_nonzero(self.weight == 1)),
                    int(self.weight[self.weight == 2].sum()))
        rows = np.repeat(np.arange(self.G), self.weight)
        frame = pd.DataFrame(np.where(self.X < 0, np.nan, self.X)[rows].astype(np.float64))
        fk = _groups.frequencies(frame, list(frame.columns), missing="wildcard")
        return int(np.count_nonzero(fk == 1)), int(np.count_nonzero(fk == 2))


def subsets_searched(att: int, max_size: int) -> int:
    """Attribute subsets of 1..``max_size`` of ``att`` quasi-identifiers."""
    return sum(math.comb(att, s) for s in range(1, max_size + 1))


def work_estimate(att: int, max_size: int, combinations: int, *, wildcard: bool = False) -> int:
    """Work units of a search (see :data:`MAX_WORK`): subsets x (combinations +
    :data:`SUBSET_OVERHEAD`), x :data:`WILDCARD_WEIGHT` for wildcard frequencies.

    Example
    -------
    >>> work_estimate(8, 8, 18_109)  # all of Adult: 255 subsets, 18,109 combinations
    4796295
    """
    units = subsets_searched(att, max_size) * (combinations + SUBSET_OVERHEAD)
    return units * (WILDCARD_WEIGHT if wildcard else 1)


def _seconds(units: int) -> str:
    s = units * SECONDS_PER_UNIT
    if s >= 3600 * 24 * 365:
        return f"about {s / (3600 * 24 * 365):.2g} years"
    if s >= 3600 * 24:
        return f"about {s / (3600 * 24):.2g} days"
    if s >= 3600:
        return f"about {s / 3600:.2g} hours"
    return f"about {max(s, 0.1):.2g} s"


def _check_work(search: "_Search", n: int, att: int, max_size: int) -> None:
    """Refuse, before any subset is visited, a search above :data:`MAX_WORK`."""
    wildcard = search.wildcard and bool((search.X < 0).any())
    units = work_estimate(att, max_size, search.G, wildcard=wildcard)
    if units <= MAX_WORK:
        return
    how = " (wildcard frequencies)" if wildcard else ""
    fit = [m for m in range(1, max_size)
           if work_estimate(att, m, search.G, wildcard=wildcard) <= MAX_WORK]
    if fit:
        options = "; ".join(
            f"max_size={m} searches {subsets_searched(att, m):,} subsets "
            f"({_seconds(work_estimate(att, m, search.G, wildcard=wildcard))})"
            for m in fit[-2:])
        fix = (f"pass max_size= (the largest MSU size searched) to bound it: {options}; "
               f"max_size={fit[-1]} is the largest within the bound")
    else:
        fix = "even max_size=1 exceeds it: use fewer quasi-identifiers or fewer rows"
    raise InvalidInputError(
        f"SUDA with max_size={max_size} on {att} quasi-identifiers would search "
        f"{subsets_searched(att, max_size):,} attribute subsets over {search.G:,} distinct "
        f"combinations ({n:,} rows){how}: {units:,} work units, more than the "
        f"{MAX_WORK:,} it searches ({_seconds(MAX_WORK)}); this search would take "
        f"{_seconds(units)}. The subsets grow as 2^ATT: {fix}"
    )


def _setup(df, quasi_identifiers, max_size, missing, pad_to_three=False):
    check_frame(df)
    qis = list(quasi_identifier_kinds(df, quasi_identifiers))
    if not qis:
        raise InvalidInputError("SUDA needs quasi-identifiers: name at least one column")
    att = len(qis)
    if max_size is None:
        max_size = att
    if (isinstance(max_size, bool) or not isinstance(max_size, numbers.Integral)
            or not 1 <= max_size <= att):
        raise InvalidInputError(
            f"max_size is the largest MSU size to search, an integer from 1 to the number of "
            f"quasi-identifiers ({att}), or None for all; got {max_size!r}"
        )
    if not isinstance(pad_to_three, bool):
        raise InvalidInputError(f"pad_to_three is True or False, got {pad_to_three!r}")
    search = _Search(df, qis, missing, pad_to_three)
    _check_work(search, len(df), att, int(max_size))
    return qis, int(max_size), search


def dis_scores(score: np.ndarray, uniques: int, pairs: int, att: int,
               dis_fraction: float) -> np.ndarray:
    """DIS-SUDA of every SUDA ``score`` (see the module docstring for the formula).

    Example
    -------
    >>> dis_scores(np.array([0.0, 2.0, 2.0]), uniques=2, pairs=0, att=3,
    ...            dis_fraction=0.01).tolist()
    [0.0, 1.0, 1.0]
    """
    if (isinstance(dis_fraction, bool) or not isinstance(dis_fraction, numbers.Real)
            or not 0 < dis_fraction <= 1):
        raise InvalidInputError(
            f"dis_fraction is the sampling fraction of the table, in (0, 1] (sdcMicro's "
            f"DisFraction, default 0.01), got {dis_fraction!r}"
        )
    out = np.zeros(len(score), dtype=np.float64)
    scored = score > 0
    if not scored.any() or uniques == 0:
        return out
    q = 1.0 + (8.0 - att) / 20.0
    sq = score[scored] ** q
    odds = pairs * (1.0 - dis_fraction) / dis_fraction  # U / DIS - U
    out[scored] = 1.0 / (1.0 + odds / (sq * np.sum(1.0 / sq)))
    return out


def suda(df: pd.DataFrame, quasi_identifiers=None, *, max_size: int | None = None,
         dis_fraction: float = DEFAULT_DIS_FRACTION, missing: str = "value",
         pad_to_three: bool = False, progress=None) -> pd.DataFrame:
    """Minimal sample uniques of every row, indexed like ``df``: columns ``msu_count``,
    ``msu_min_size`` (0: no MSU), ``suda_score`` and ``dis_suda`` (formulas in the module
    docstring). ``max_size``: the largest MSU size searched (default: all quasi-identifiers);
    ``dis_fraction``: the sampling fraction for DIS-SUDA (sdcMicro's ``DisFraction``);
    ``progress``: a bar over the attribute subsets searched (``None``: for long runs in a
    terminal or notebook; see :mod:`pdanon.progress`).

    A search above :data:`MAX_WORK` work units (subsets x distinct combinations, about half a
    minute; e.g. all subsets of 15 quasi-identifiers on 20,000 rows) raises
    :class:`~pdanon.InvalidInputError` before it starts, with its time estimate and the
    ``max_size=`` values that fit.

    Example
    -------
    >>> df = pd.DataFrame({"age": ["20s"] * 7 + ["60s"],
    ...                    "sex": ["m"] * 4 + ["f"] * 3 + ["m"],
    ...                    "income": ["50k+"] * 2 + ["50k-"] * 6,
    ...                    "edu": ["high"] * 4 + ["uni", "high", "middle", "uni"]})
    >>> suda(df, ["age", "sex", "income", "edu"])["suda_score"].tolist()
    [0.0, 0.0, 0.0, 0.0, 4.0, 2.0, 6.0, 8.0]
    """
    qis, max_size, search = _setup(df, quasi_identifiers, max_size, missing, pad_to_three)
    count, smallest, score, _ = search.run(max_size, progress=progress)
    uniques, pairs = search.uniques_and_pairs()
    dis = dis_scores(score, uniques, pairs, search.score_att, dis_fraction)
    lab = search.labels
    return pd.DataFrame({"msu_count": count[lab], "msu_min_size": smallest[lab],
                         "suda_score": score[lab], "dis_suda": dis[lab]}, index=df.index)


def suda_contributions(df: pd.DataFrame, quasi_identifiers=None, *,
                       max_size: int | None = None, total: bool = False,
                       missing: str = "value", pad_to_three: bool = False, progress=None):
    """Which quasi-identifiers make rows special.

    ``total=False`` (default): a DataFrame indexed like ``df`` with one column per
    quasi-identifier: the share (0..1) of the row's SUDA score that comes from MSUs containing
    the column (sdcMicro's ``contributionPercent``; a row's shares add up to more than 1 when
    its MSUs have several columns; rows without MSUs get 0). ``total=True``: a Series, per
    column, of its percentage of the table's total SUDA score (sdcMicro's
    ``attribute_contributions``).

    Example
    -------
    >>> df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
    >>> suda_contributions(df, ["a", "b", "c"], total=True).tolist()
    [50.0, 37.5, 37.5]
    """
    qis, max_size, search = _setup(df, quasi_identifiers, max_size, missing, pad_to_three)
    _, _, score, contrib = search.run(max_size, contributions=True, progress=progress)
    if total:
        rows = search.weight.astype(np.float64)  # scored combinations are single rows
        all_score = float((score * rows).sum())
        share = contrib.T @ rows / all_score * 100 if all_score else np.zeros(len(qis))
        return pd.Series(share, index=pd.Index(qis), name="contribution")
    per = np.divide(contrib, score[:, None], out=np.zeros_like(contrib),
                    where=score[:, None] > 0)
    return pd.DataFrame(per[search.labels], index=df.index, columns=pd.Index(qis))
