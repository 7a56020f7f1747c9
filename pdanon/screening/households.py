"""Rows that belong together: households, families, cases, clusters.

A column whose values repeat in small groups (a household id: most values held by 2 to
:data:`GROUP_MAX` rows) links those rows. Published unchanged, it turns a table of k-anonymous
*people* into a table of *households*, each described by the combination of its members'
published cells: a household of a 34-year-old woman, a 36-year-old man and two children of
2 and 5 is rarely shared by another household even when each of the four rows sits in a class
of k. sdcMicro measures this as the household risk (the probability that at least one member
is re-identified, 1 - prod(1 - r_i) over the members' individual risks r_i). pdanon states it
as a k-anonymity of households:

* a household's **signature** is the multiset of its members' published quasi-identifier
  combinations (a missing cell is a value, as in every class of pdanon) together with its
  size;
* the release is **household-k-anonymous** when every signature is shared by at least k
  households (:func:`household_k`). An attacker who knows all the members' quasi-identifiers
  then finds k households; one who knows only some of them finds at least as many (every
  household whose signature holds what they know).

What pdanon does with such a column:

* **detection** (:func:`grouping`; :mod:`pdanon.screening` calls it for every column without
  a role): a grouping column left without a role is refused (:class:`pdanon.RoleError`) with
  the fixes; one declared ``insensitive=`` or ``sensitive=`` is published unchanged with a
  :class:`pdanon.RoleWarning` naming ``household=`` (the publisher decided);
* **protection** (:func:`protect`, ``df.anon.k_anonymize(..., household="hh")`` and every
  other face that publishes rows, through :mod:`pdanon.accessor.household_step`; a
  differentially private or m-invariant release only with ``household_ids="drop"``): the
  face runs on the other columns, then
  the household id is published **renumbered** (fresh ids from the operating system's random
  source, in no relation to the input's values or order), and every household whose signature
  is shared by fewer than k households (k of the model, at least 2) is **unlinked**: its rows
  stay in the release (each still in a class of k rows) with a missing household id. Nothing
  else changes, so the classes the model verified hold as they were; ``info["household"]``
  records the counts. ``household_ids="drop"`` publishes no household id at all;
* **verification** (:func:`pdanon.checks.policy.check`): the criterion ``household_k`` (the
  smallest number of households sharing a signature) is measured whenever the release holds
  a household column (recorded in ``info["household"]`` or passed as ``household=``); the
  default policy asks for the release's k (at least 2).

Example
-------
>>> import pandas as pd
>>> release = pd.DataFrame({"hh": [1, 1, 2, 2, 3, 3, 4],
...                         "age": ["[30, 39]", "[0, 9]", "[30, 39]", "[0, 9]",
...                                 "[30, 39]", "[30, 39]", "[0, 9]"]})
>>> household_k(release, "hh", ["age"])   # households 3 and 4 are the only ones like them
1
>>> sorted(shared_by(release, "hh", ["age"]).tolist())
[1, 1, 2, 2]
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

import warnings

from pdanon._errors import InvalidInputError, RoleWarning, VerificationError, user_stacklevel
from pdanon._groups import class_labels, column_codes

__all__ = ["MIN_GROUPS_UNNAMED", "CELLS_PER_GROUP", "GROUPED_SHARE", "GROUPED_SHARE_UNNAMED", "GROUP_MAX", "HOUSEHOLD_IDS",
           "HOUSEHOLD_WORDS", "MIN_GROUPS", "MIN_ROWS", "grouping", "grouping_of_sizes", "household_k",
           "protect", "shared_by", "signatures"]

#: words of a column name that say it groups rows (compared with each word of the name,
#: split at non-letters and camelCase, and with the whole name without separators)
HOUSEHOLD_WORDS = frozenset({
    "household", "households", "hh", "hhid", "hhld", "hid", "hhnr", "hhno", "hhnum",
    "family", "families", "fam", "famid", "familyid", "dwelling", "dwellingid", "home",
    "homeid", "cluster", "clusterid", "clust", "case", "caseid", "caseno", "serialno",
    "serial", "haushalt", "hogar", "menage", "famiglia", "famille", "familie", "unit",
    "unitid", "couple", "sibling", "siblings", "twin", "pair", "pairid", "group", "groupid",
})
#: largest number of rows a value holds and still counts as a small group
GROUP_MAX = 10
#: a grouping column holds at least this many values repeated in small groups
MIN_GROUPS = 10
#: ... and at least this many when its name says nothing: more than a measurement of whole
#: numbers has values (an age on a table of 300 rows repeats in small groups too)
MIN_GROUPS_UNNAMED = 200
#: fewest non-missing cells examined (see :data:`pdanon.screening.MIN_ROWS`)
MIN_ROWS = 50
#: share of the rows in small groups that makes a column named like a grouping one grouping
GROUPED_SHARE = 0.5
#: the same share for a column whose name says nothing: most rows, with few values held once
GROUPED_SHARE_UNNAMED = 0.75
#: a column whose name says nothing also holds at least one repeated value per this many
#: cells (households are small: a measurement of whole numbers, such as an age, repeats its
#: values in larger groups)
CELLS_PER_GROUP = 6
#: what ``household_ids=`` accepts: ``"renumber"`` (fresh random ids) or ``"drop"`` (none)
HOUSEHOLD_IDS = ("renumber", "drop")


def _words(name) -> set:
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", str(name))
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", text.lower()) if p]
    return set(parts) | {"".join(parts)}


def named_like(name) -> bool:
    """Does a column name say it groups rows (:data:`HOUSEHOLD_WORDS`)?

    Example
    -------
    >>> named_like("hh_id"), named_like("FamilyID"), named_like("age")
    (True, True, False)
    """
    return bool(_words(name) & HOUSEHOLD_WORDS)


def grouping(series: pd.Series, name=None, counts: pd.Series | None = None, *,
             ranges: bool = False) -> str | None:
    """The evidence that a column groups rows (a household, family, case or cluster id), or
    None. It does when, among at least :data:`MIN_ROWS` non-missing cells of text, codes or
    whole numbers (not fractional numbers, dates or booleans), at least :data:`MIN_GROUPS`
    values are each held by 2 to :data:`GROUP_MAX` rows, and those rows are at least
    :data:`GROUPED_SHARE` of the cells when the name says so (:data:`HOUSEHOLD_WORDS`), else
    at least :data:`GROUPED_SHARE_UNNAMED` with a repeated value per :data:`CELLS_PER_GROUP`
    cells and at least :data:`MIN_GROUPS_UNNAMED` such values — a column of few values held by many rows each
    (sex, a region, a code) or of values held once (a measurement) is none. ``ranges``: the
    column is published as ranges (a numeric quasi-identifier): only its name can then make
    it a grouping column. ``counts``: its value counts, when at hand.

    Example
    -------
    >>> hh = pd.Series([i // 3 for i in range(90)])
    >>> print(grouping(hh, "hh"))
    its values repeat in small groups, as a household's do: 30 values held by 2 to 10 rows each (90 of 90 rows)
    >>> grouping(pd.Series(["F", "M"] * 45), "sex") is None
    True
    """
    name = series.name if name is None else name
    whole = True
    if pd.api.types.is_float_dtype(series.dtype):
        values = series.dropna().to_numpy()
        whole = not len(values) or bool(np.all(np.mod(values, 1) == 0))
    if not _may_group(series.dtype, name, whole=whole, ranges=ranges):
        return None
    try:  # (a column of unhashable cells groups nothing pdanon can count)
        sizes = (series.dropna().value_counts(sort=False) if counts is None
                 else counts).to_numpy()
    except TypeError:
        return None
    return grouping_of_sizes(name, sizes)


def _may_group(dtype, name, *, whole: bool, ranges: bool) -> bool:
    """Can a column of ``dtype`` group rows at all? Not booleans, dates, periods, durations,
    fractional numbers (``whole=False``: they measure something), nor a column published as
    ranges unless its name says so."""
    if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_datetime64_any_dtype(dtype) or \
            isinstance(dtype, pd.PeriodDtype) or pd.api.types.is_timedelta64_dtype(dtype):
        return False
    if ranges and not named_like(name):
        return False
    return whole or not pd.api.types.is_float_dtype(dtype)


def grouping_of_sizes(name, sizes, values=None, *, dtype=None, whole: bool = True,
                      ranges: bool = False) -> str | None:
    """:func:`grouping`'s rule on a column's value counts: ``values[i]`` distinct values are
    each held by ``sizes[i]`` rows (``values`` default one per entry: ``sizes`` are then the
    value counts themselves). Distributed faces pass the histogram of the value counts (a
    few rows, whatever the column's size). With ``dtype`` (and ``whole``: every number is
    whole) the column's kind is checked as :func:`grouping` does.

    Example
    -------
    >>> print(grouping_of_sizes("hh", [3, 1], [30, 5]))
    its values repeat in small groups, as a household's do: 30 values held by 2 to 10 rows each (90 of 95 rows)
    """
    if dtype is not None and not _may_group(dtype, name, whole=whole, ranges=ranges):
        return None
    sizes = np.asarray(sizes, dtype=np.int64)
    values = np.ones(len(sizes), dtype=np.int64) if values is None else np.asarray(
        values, dtype=np.int64)
    keep = sizes > 0
    sizes, values = sizes[keep], values[keep]
    named = named_like(name)
    cells = int((sizes * values).sum())
    if cells < MIN_ROWS:
        return None
    small = (sizes >= 2) & (sizes <= GROUP_MAX)
    groups, grouped = int(values[small].sum()), int((sizes * values)[small].sum())
    share = GROUPED_SHARE if named else GROUPED_SHARE_UNNAMED
    if groups < MIN_GROUPS or grouped < share * cells or (not named and (
            groups < MIN_GROUPS_UNNAMED or groups * CELLS_PER_GROUP < cells)):
        return None
    return (f"its values repeat in small groups, as a household's do: {groups:,} values held "
            f"by 2 to {GROUP_MAX} rows each ({grouped:,} of {cells:,} rows)")


# ------------------------------------------------------------------ signatures
def _household_codes(values) -> np.ndarray:
    """Codes 0..H-1 of the households (by their ids), -1 for a row without one."""
    codes, _ = pd.factorize(pd.Series(values, copy=False).to_numpy(dtype=object)
                            if not isinstance(values, pd.Series) else values, sort=False,
                            use_na_sentinel=True)
    return np.asarray(codes, dtype=np.int64)


def signatures(release: pd.DataFrame, column, qi) -> tuple[np.ndarray, np.ndarray]:
    """``(household, signature)``: per row the code of its household (-1 without one), and
    per household (codes 0..H-1) the code of its signature — two households get one code
    exactly when they have the same size and the same multiset of published
    quasi-identifier combinations (a missing cell is a value). Vectorized: the rows are
    sorted by (household, combination), and the signature is built position by position, one
    ``np.unique`` per position over the households that long.

    Example
    -------
    >>> r = pd.DataFrame({"hh": ["a", "a", "b", "b", "c"], "age": [1, 2, 2, 1, 1]})
    >>> sig = signatures(r, "hh", ["age"])[1]   # a and b hold {1, 2}; c holds {1}
    >>> bool(sig[0] == sig[1] != sig[2])
    True
    """
    if column not in release.columns:
        raise InvalidInputError(f"household column {column!r} is not in the frame")
    hh = _household_codes(release[column])
    n = len(release)
    key = (class_labels(release, list(qi), what="household signatures") if qi
           else np.zeros(n, dtype=np.int64))
    linked = hh >= 0
    hh_l, key_l = hh[linked], key[linked]
    n_hh = int(hh_l.max()) + 1 if len(hh_l) else 0
    if not n_hh:
        return hh, np.zeros(0, dtype=np.int64)
    size = np.bincount(hh_l, minlength=n_hh)
    order = np.lexsort((key_l, hh_l))
    hs, ks = hh_l[order], key_l[order]
    start = np.concatenate(([0], np.cumsum(size)[:-1]))
    pos = np.arange(len(hs)) - start[hs]
    by_pos = np.argsort(pos, kind="stable")
    bounds = np.searchsorted(pos[by_pos], np.arange(int(size.max()) + 1))
    width = int(key.max()) + 1 if n else 1
    sig = np.zeros(n_hh, dtype=np.int64)  # the code of each household's prefix so far
    for j in range(int(size.max())):
        rows = by_pos[bounds[j]:bounds[j + 1]]  # each household's (j+1)-th combination
        pair = sig[hs[rows]] * width + ks[rows]
        _, sig[hs[rows]] = np.unique(pair, return_inverse=True)
    # households of one size ended at the same position: their prefixes share a numbering
    _, out = np.unique(sig * (int(size.max()) + 1) + size, return_inverse=True)
    return hh, np.asarray(out, dtype=np.int64).reshape(-1)


def shared_by(release: pd.DataFrame, column, qi) -> np.ndarray:
    """Per household (in the order of first appearance of its id), the number of households
    that share its signature (:func:`signatures`), itself included."""
    _, sig = signatures(release, column, qi)
    return np.bincount(sig)[sig] if len(sig) else np.zeros(0, dtype=np.int64)


def household_k(release: pd.DataFrame, column, qi) -> int | None:
    """The household k of a release: the smallest number of households sharing a signature
    (:func:`signatures`); None when no row holds a household id."""
    counts = shared_by(release, column, qi)
    return int(counts.min()) if len(counts) else None


# ------------------------------------------------------------------ the anonymizers' step
def check_options(df: pd.DataFrame, household, household_ids: str) -> None:
    """Refuse a ``household=`` that is no column of ``df`` or an unknown ``household_ids``."""
    if household_ids not in HOUSEHOLD_IDS:
        raise InvalidInputError(f"household_ids must be one of {list(HOUSEHOLD_IDS)}, got "
                                f"{household_ids!r}")
    if household is not None and household not in df.columns:
        raise InvalidInputError(
            f"household={household!r} is not a column of the frame (columns: "
            f"{list(df.columns)[:20]})")


def model_k(parts) -> int:
    """The k a household signature must be shared by: the largest class size the model's
    ``parts`` ask for (``(name, k)`` pairs: k-anonymity's k, a highest-risk threshold's
    class size), at least 2 — a household no other household resembles is singled out
    whatever the model."""
    return max([2, *(int(k) for _, k in parts)])


def protect(original: pd.DataFrame, out: pd.DataFrame, qi, info: dict, *, column, k: int,
            ids: str = "renumber", permutation=None) -> pd.DataFrame:
    """The release ``out`` (rows in ``original``'s order and index, or some of them when rows
    were withheld; without the household column) with the household column of ``original`` added as the release publishes it:
    renumbered with fresh random ids (``permutation(n)``: a random order of ``range(n)``,
    the anonymizers pass :class:`pdanon.dp.mechanism.RandomSource`'s; default numpy's
    generator seeded by the operating system), every
    household whose signature fewer than ``k`` households share unlinked (its id missing),
    or (``ids="drop"``) not at all. ``info["household"]`` records what was done. The
    household k of the result is verified before it is returned.

    Example
    -------
    >>> original = pd.DataFrame({"hh": [7, 7, 8, 8, 9], "age": [1, 2, 1, 2, 1]})
    >>> out = protect(original, original[["age"]].copy(), ["age"], info := {}, column="hh", k=2)
    >>> out["hh"].notna().tolist(), info["household"]["unlinked_households"]
    ([True, True, True, True, False], 1)
    """
    check_options(original, column, ids)
    if ids == "drop":
        info["household"] = dropped(column, k)
        return out
    if out.index.equals(original.index):
        source = original[column].to_numpy()
    elif out.index.is_unique and original.index.is_unique and \
            out.index.isin(original.index).all():  # rows withheld: the others, as they are
        source = original[column].reindex(out.index).to_numpy()
    else:
        raise InvalidInputError(
            f"household={column!r} needs the release's rows to be rows of the input (a "
            f"differentially private release is a sample of new rows, an m-invariant one "
            f"adds counterfeit rows): pass household_ids='drop' to publish no household id, "
            f"or drop the column (identifiers=[{column!r}])")
    probe = out.copy(deep=False)
    probe[column] = source
    hh, sig = signatures(probe, column, qi)
    count = np.bincount(sig)[sig] if len(sig) else np.zeros(0, dtype=np.int64)
    keep = count >= k  # per household
    n_hh = len(sig)
    fresh = np.full(n_hh, -1, dtype=np.int64)
    linked_hh = np.flatnonzero(keep)
    permutation = permutation or np.random.default_rng().permutation
    fresh[linked_hh] = np.asarray(permutation(len(linked_hh)), dtype=np.int64) + 1
    row_id = np.where(hh >= 0, fresh[np.maximum(hh, 0)], -1)
    published = pd.array(np.where(row_id > 0, row_id, 0), dtype="Int64")
    published[row_id <= 0] = pd.NA
    result = out.copy(deep=False)
    result[column] = published
    result = result[[*(c for c in original.columns if c in result.columns or c == column)]]
    achieved = household_k(result, column, qi)
    if achieved is not None and achieved < k:  # a bug, never a release
        raise VerificationError(f"household k {achieved} < {k} after protection")
    unlinked = ~keep
    rows = int(np.isin(hh, np.flatnonzero(unlinked)).sum())
    info["household"] = record(column, k, households=n_hh, linked=int(keep.sum()),
                               unlinked_rows=rows, without=int((hh < 0).sum()),
                               achieved=achieved)
    return result


def record(column, k: int, *, households: int, linked: int, unlinked_rows: int, without: int,
           achieved) -> dict:
    """``info["household"]`` of a release whose household ids were renumbered (pandas and
    Dask alike), with the :class:`pdanon.RoleWarning` naming the households unlinked."""
    unlinked = households - linked
    if unlinked:
        warnings.warn(
            f"household column {column!r}: {unlinked:,} of {households:,} households "
            f"({unlinked_rows:,} rows) have a signature fewer than {k} households share and are "
            f"published unlinked (household id missing; info['household']). To keep more "
            f"links, publish the quasi-identifiers coarser (e.g. hierarchies= with "
            f"algorithm='optimal': age in bands) or fewer of them.", RoleWarning,
            stacklevel=user_stacklevel())
    return {
        "column": str(column) if not isinstance(column, (int, np.integer)) else column,
        "ids": "renumbered", "k": int(k), "households": int(households),
        "linked_households": int(linked), "unlinked_households": int(unlinked),
        "unlinked_rows": int(unlinked_rows), "rows_without_household": int(without),
        "household_k": achieved,
    }


def dropped(column, k: int) -> dict:
    """``info["household"]`` of a release that publishes no household id
    (``household_ids="drop"``)."""
    return {"column": None, "source_column": str(column), "ids": "dropped", "k": int(k)}


def warning_text(found: dict) -> str:
    """The warning for grouping columns declared ``insensitive=`` or ``sensitive=``
    (``{column: evidence}``): published unchanged on the publisher's decision."""
    listed = "; ".join(f"{c!r} ({e})" for c, e in found.items())
    names = list(found)
    return (f"column(s) {listed} are published unchanged as declared, and link the rows that "
            f"share a value: a household of people each k-anonymous is often unique as a "
            f"household. To verify the release at household level, pass household="
            f"{names[0]!r} (fresh ids; households too rare are unlinked); to publish no link, "
            f"identifiers={names!r}.")


def refusal_lines(names: list) -> list:
    """The fixes :func:`pdanon.screening.refusal` adds for grouping columns."""
    first = names[0]
    return [f"Rows sharing a value of {names!r} belong together (a household, a family, a "
            f"case): household={first!r} (k_anonymize(..., household={first!r}), and the "
            f"same keyword of every face) publishes it renumbered and makes "
            f"every household's combined record shared by k households (or "
            f"household_ids='drop' publishes no link); quasi_identifiers={names!r} "
            f"generalizes it; identifiers={names!r} drops it; insensitive={names!r} publishes "
            f"the link unchanged (with a warning)."]


def recorded_column(df: pd.DataFrame):
    """The household column an earlier pdanon step recorded (``info["household"]``) if the
    frame still holds it, else None: a chained step verifies it again."""
    info = (df.attrs.get("pdanon") or {}).get("info") or {}
    column = (info.get("household") or {}).get("column")
    if column is None:
        return None
    for c in df.columns:
        if c == column or str(c) == str(column):
            return c
    return None


def refuse_roles(household, roles: dict) -> None:
    """Refuse a household column that a role keyword names too: it has one role."""
    for key, spec in roles.items():
        if spec is None:
            continue
        named = [spec] if isinstance(spec, (str, int)) else list(spec)
        if household in named:
            raise InvalidInputError(
                f"household={household!r} is also named in {key}=: the household column has "
                f"its own role (published renumbered and verified at household level); "
                f"remove it from {key}")
