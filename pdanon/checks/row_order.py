"""The order of a release's rows: a random one by construction, and what an order can give away.

Every face that publishes rows (the anonymizers, the perturbations, ``apply_recoding``,
``generalize``, ``hash_identifiers`` / ``drop_identifiers``) returns them in a uniformly random
order drawn from the operating system's CSPRNG, with a **fresh index** (``r0, r1, ...``) that
shares no label with the input's (:func:`publish_order`). Nothing of the input's order leaves:
when the input was sorted on a quasi-identifier (an export ordered by ZIP code, then age), a
release in that order lets a suppressed or generalized cell be read off its neighbours (copying
the previous row's ZIP recovered 80 % of the hidden ZIP cells of one such table). And a careless
``df.assign(x=out["age"])`` aligns on labels the input does not have, so it gives missing
values, never another person's cell.

The way back to the input's rows is **publisher-only**: the positions of the input rows each
published row came from are kept in ``info["publisher_only"]`` (in memory; every writer
serializes it as ``{}``), so ``metrics(original=)``, ``explain``, ``check(original=)`` and the
report match rows in the process that made the release (:func:`input_rows`), and a file read
back cannot. ``row_order="input"`` on any of those faces keeps the input's order and index (to
compare by eye, or for the reference library's behaviour); the release records it
(``info["row_order"] == "input"``) and :func:`pdanon.checks.policy.check`'s default policy fails it by
that fact. For frames that did not come from a pdanon face (a file read back, a frame built by
hand), :func:`sorted_columns` finds the quasi-identifiers the rows are sorted or grouped on
(from the release alone: neighbouring rows that differ mostly rise, or equal cells stand
together far more often than a random order puts them), which ``check`` and the report list as
a hazard; :func:`in_random_order` puts any frame in a random order.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"zip": sorted(["02139", "02140", "02141"] * 10),
...                    "age": list(range(30)), "sex": ["F", "M"] * 15})
>>> [c for c, _ in sorted_columns(df, ["zip", "age", "sex"])]
['zip', 'age']
>>> out = in_random_order(df)
>>> sorted_columns(out, ["zip", "age", "sex"]), out.index[:2].str.startswith("r").all()
([], np.True_)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon.publisher_only import facts_of, input_rows, positions_at  # noqa: F401 (the way back)
from pdanon.screening import is_fresh_index  # noqa: F401 (a release's own labels)

__all__ = ["GROUPED_KAPPA", "ROW_ORDERS", "SORTED_SHARE", "check_row_order", "fresh_index",
           "in_random_order", "in_release_order", "input_rows", "is_fresh_index",
           "publish_order", "sorted_columns"]

#: the orders a face publishes rows in: ``"random"`` (the default) or ``"input"``
ROW_ORDERS = ("random", "input")

#: share of the neighbouring rows that differ on a column and rise (or fall) from which the
#: rows read as sorted on it (a random order gives about half)
SORTED_SHARE = 0.9
#: how much more often neighbouring rows hold the same cell than a random order makes them
#: (Cohen's kappa of a row and the next: 0 at random, 1 when equal cells always stand
#: together) from which the rows read as grouped on a column
GROUPED_KAPPA = 0.5
#: neighbouring pairs needed before a column's order is judged
MIN_PAIRS = 20


def _ranks(series: pd.Series) -> np.ndarray | None:
    """Dense ranks of the cells (NaN where missing), or None when they cannot be ordered."""
    try:
        return series.rank(method="dense", na_option="keep").to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        return None


def _grouped(ranks: np.ndarray) -> float | None:
    """Cohen's kappa of neighbouring cells being equal: (observed - expected) / (1 -
    expected), with the expected share of equal neighbours of a random order of the same
    cells (the sum of the squared shares of the values)."""
    if len(ranks) < MIN_PAIRS + 1:
        return None
    same = float((np.diff(ranks) == 0).mean())
    _, counts = np.unique(ranks, return_counts=True)
    expected = float(((counts / len(ranks)) ** 2).sum())
    return None if expected >= 1.0 else (same - expected) / (1.0 - expected)


def sorted_columns(release: pd.DataFrame, columns) -> list:
    """``[(column, evidence)]``: the ``columns`` whose cells the rows' order gives away —
    sorted (rising or falling from row to row in at least :data:`SORTED_SHARE` of the
    neighbouring rows that differ, over at least :data:`MIN_PAIRS` of them) or grouped (equal
    cells stand together far more often than at random: kappa at least
    :data:`GROUPED_KAPPA`). Missing cells are skipped."""
    found = []
    for c in columns:
        ranks = _ranks(release[c])
        if ranks is None:
            continue
        ranks = ranks[~np.isnan(ranks)]
        step = np.diff(ranks)
        step = step[step != 0]
        if len(step) >= MIN_PAIRS:
            rise = float((step > 0).mean())
            if max(rise, 1.0 - rise) >= SORTED_SHARE:
                found.append((c, f"{max(rise, 1.0 - rise):.0%} of neighbouring rows that "
                                 f"differ are in order"))
                continue
        kappa = _grouped(ranks)
        if kappa is not None and kappa >= GROUPED_KAPPA:
            same = float((np.diff(ranks) == 0).mean())
            found.append((c, f"{same:.0%} of neighbouring rows hold the same cell, kappa "
                             f"{kappa:.2f} against a random order"))
    return found


def check_row_order(row_order) -> str:
    """``row_order`` if it is one of :data:`ROW_ORDERS`, else an :class:`InvalidInputError`
    naming them."""
    from pdanon._errors import InvalidInputError

    if not isinstance(row_order, str) or row_order not in ROW_ORDERS:
        raise InvalidInputError(
            f"row_order={row_order!r}: use 'random' (the default: rows in a random order with a "
            f"fresh index, safe to write) or 'input' (the input's order and index, to compare "
            f"by eye; check() fails such a release, since neighbouring rows can give hidden "
            f"cells back)")
    return row_order


def fresh_index(n: int, avoid: pd.Index | None = None) -> pd.Index:
    """Labels ``r0 .. r{n-1}`` for ``n`` published rows, none of which ``avoid`` (the input's
    index) holds: ``s0 ..`` when the input's labels start with ``r`` (a chained step's input
    is a release), and a random prefix when both clash.

    Example
    -------
    >>> fresh_index(3).tolist(), fresh_index(2, pd.Index(["r0", "r1"])).tolist()
    (['r0', 'r1', 'r2'], ['s0', 's1'])
    """
    import os

    numbers = np.arange(int(n)).astype(str)
    text = None  # only text labels can clash
    if avoid is not None and len(avoid) and not pd.api.types.is_numeric_dtype(avoid.dtype) \
            and not pd.api.types.is_datetime64_any_dtype(avoid.dtype) \
            and not isinstance(avoid, pd.MultiIndex):
        text = pd.Series(avoid.astype(str), dtype="str")
    for prefix in ("r", "s"):
        if text is None or not text.str.startswith(prefix).any():
            return pd.Index(np.char.add(prefix, numbers), dtype="str")
    while True:
        labels = pd.Index(np.char.add(f"r{os.urandom(3).hex()}-", numbers), dtype="str")
        if not text.isin(labels).any():
            return labels


def _positions(before: pd.DataFrame, out: pd.DataFrame) -> np.ndarray | None:
    """Per row of ``out`` (a step's result in its input's order), the position of the row
    of ``before`` (the step's input) it came from; None when they cannot be told."""
    if out.index.equals(before.index):
        return np.arange(len(out))
    if before.index.is_unique:
        at = before.index.get_indexer(out.index)
        if (at >= 0).all():
            return at.astype(np.int64)
    if len(out) == len(before):
        return np.arange(len(out))
    return None


def publish_order(before: pd.DataFrame, out: pd.DataFrame, *, row_order: str = "random",
                  seed=None) -> pd.DataFrame:
    """``out`` (a step's result on ``before``, rows in ``before``'s order, attrs set) as the
    step publishes it: with ``row_order="random"`` its rows in a CSPRNG order under a
    :func:`fresh_index`, and in ``info["publisher_only"]`` the way back (``first_rows``: per
    published label, the position of the first input's row; ``first_index``: that input's
    index; ``step_rows`` / ``step_index``: the same for ``before``). A sample (a
    differentially private release, whose rows the mechanism drew in a random order) keeps
    its order and gets a fresh index only: it is matched to no input row. With ``"input"``
    the rows keep their order and index and ``info["row_order"]`` says so. ``seed`` (tests only)
    draws the order from a seeded generator instead of the CSPRNG."""
    import copy

    from pdanon.dp.mechanism import RandomSource
    from pdanon.publisher_only import PublisherOnly
    from pdanon.roles import ATTRS_KEY

    check_row_order(row_order)
    attrs = copy.deepcopy(out.attrs)
    meta = attrs.get(ATTRS_KEY)
    info = dict((meta or {}).get("info") or {})
    if row_order == "input":
        if meta is not None and "dp" not in info:
            info["row_order"] = "input"
            meta["info"] = info
            out.attrs = attrs
        return out
    before_info = (before.attrs.get(ATTRS_KEY) or {}).get("info") or {}
    # a sample (differential privacy) is not matched to its input's rows at all
    sample = "dp" in info or "dp" in before_info or info.get("rows_match_input") is False
    if sample and seed is None:  # already in the mechanism's random order
        published = out.set_axis(fresh_index(len(out), before.index))
        published.attrs = attrs
        return published
    step = None if sample else _positions(before, out)
    first = None
    earlier = facts_of(before)
    if step is not None:
        if "first_rows" in earlier and "first_index" in earlier:
            through = positions_at(earlier["first_rows"], before.index)
            if through is not None:
                first = (through[step], earlier["first_index"])
        elif before_info.get("rows_match_input") is not False:
            first = (step, before.index)
    order = RandomSource(seed).permutation(len(out))
    published = out.iloc[order]
    published.index = fresh_index(len(out), before.index)
    facts = {k: v for k, v in facts_of(out).items()
             if k not in ("first_rows", "first_index", "step_rows", "step_index")}
    if step is not None:
        facts.update(step_rows=pd.Series(step[order], index=published.index),
                     step_index=before.index)
    if first is not None:
        facts.update(first_rows=pd.Series(first[0][order], index=published.index),
                     first_index=first[1])
    if meta is not None:
        info.update(row_order="random", rows_match_input=False)
        if facts:
            info["publisher_only"] = PublisherOnly(facts)
        meta["info"] = info
    published.attrs = attrs
    return published


def in_release_order(release: pd.DataFrame, values) -> np.ndarray:
    """Per-row ``values`` (a person's key, say) given for the rows of the frame ``release``
    was made from, in that frame's order, as an array in the release's order, through the
    publisher-only way back (rows the release left out are dropped). A Series indexed like
    the release, values for a release without a way back, or values of another length or
    form, are returned as they are.

    Example
    -------
    >>> df = pd.DataFrame({"zip": ["02139", "02140", "02141"], "pid": [7, 8, 9]})
    >>> out = df.anon.k_anonymize(1, identifiers=["pid"], quasi_identifiers=["zip"])
    >>> bool((out["zip"].to_numpy() == df["zip"].to_numpy()[in_release_order(out, df["pid"]) - 7]).all())
    True
    """
    facts = facts_of(release)
    if (isinstance(values, pd.Series) and values.index.equals(release.index)) or \
            "step_rows" not in facts or not isinstance(
                values, (pd.Series, pd.Index, np.ndarray, list, tuple, range)):
        return values  # as they are (a caller checks their form)
    array = (values.to_numpy() if isinstance(values, (pd.Series, pd.Index))
             else np.asarray(values) if not isinstance(values, (list, tuple, range))
             else pd.Series(list(values)).to_numpy())
    at = positions_at(facts["step_rows"], release.index)
    if array.ndim == 1 and len(array) == len(facts["step_index"]) and at is not None:
        return array[at]
    return values


def in_random_order(frame: pd.DataFrame, *, seed=None) -> pd.DataFrame:
    """``frame``'s rows in a uniformly random order under a :func:`fresh_index` (the old
    index would give the order back), as every pdanon face publishes them: for a frame that
    did not come from one (a file read back, a table built by hand), or a release made with
    ``row_order="input"``. The order comes from :func:`os.urandom` unless ``seed`` is given
    (tests only: whoever knows the seed can undo the order). The frame's attrs are kept, with
    ``info["row_order"] = "random"`` and the publisher-only way back to the rows, so a
    release can still be compared with its input in this process.

    Example
    -------
    >>> df = pd.DataFrame({"zip": ["02139", "02140", "02141"]}, index=[7, 8, 9])
    >>> out = in_random_order(df, seed=0)
    >>> sorted(out["zip"]) == sorted(df["zip"]), out.index.tolist()
    (True, ['r0', 'r1', 'r2'])
    """
    return publish_order(frame, frame.copy(deep=False), row_order="random", seed=seed)
