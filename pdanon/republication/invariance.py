"""m-invariance for batches published with one recoding (Xiao & Tao, "m-Invariance: Towards
Privacy Preserving Re-publication of Dynamic Datasets", SIGMOD 2007; docs/republication.md).

A person's *signature* is the set of sensitive values their class shows. A sequence of
releases is **m-invariant** when every class shows at least ``m`` distinct values, each of
them equally often (Xiao & Tao ask each value once; a class of a kept recoding may hold many
rows of one value, and equal counts keep the property their proof uses), and every person's
signature is the same in every release that holds them. Then the published counts never
single a value out: in a class whose values all appear equally often, exchanging two values
of the signature in every class of that signature leaves every count as it is, so each
person may hold any value of their signature (:mod:`pdanon.republication.difference` counts exactly this).

With a kept recoding the classes are fixed by the cells, so the publisher cannot
re-partition as Xiao & Tao's algorithm does. :func:`conflicts` finds the rows that cannot
keep the property in their class (a person whose signature differs from the class's, a value
the class's signature lacks, a new class with fewer than ``m`` values); the caller suppresses
them (the blank class is one more class, judged the same way) and, where even that fails,
withholds them or refuses. :func:`counterfeit_rows` then adds to every class the
**counterfeit rows** that bring each value of its signature to the class's largest count:
published like any row, counted honestly in ``info["invariance"]`` (per class, as Xiao &
Tao publish the counterfeits' number beside the table).

Example
-------
>>> import numpy as np
>>> from pdanon.republication.valuesets import ValueSets
>>> signatures = ValueSets()          # signature 0: values {5, 6, 9}
>>> signatures.add_classes(np.zeros(3, dtype=np.int64), np.array([5, 6, 9]))
0
>>> # class 0 (signature 0) shows 5, 5, 6; class 1 (new persons) shows 7, 8
>>> need = needed(labels=np.array([0, 0, 0, 1, 1]), codes=np.array([5, 5, 6, 7, 8]),
...               chosen=np.array([0, -1]), sets=signatures)
>>> [(int(c), int(v), int(k)) for c, v, k in zip(*need)]
[(0, 6, 1), (0, 9, 2)]
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, UnknownColumnError
from pdanon.republication.valuesets import unique_sorted

__all__ = ["checked", "chosen_signatures", "class_text", "conflicts", "counterfeit_rows",
           "needed"]

_SHIFT = np.int64(32)
_LOW = np.int64((1 << 32) - 1)


def checked(m, history, keys, roles, df: pd.DataFrame, published) -> tuple | None:
    """``(m, keys, sensitive values)`` for ``invariance=m``, checked; None without it.
    ``published``: the columns the batch publishes (counterfeit rows must be made of
    them)."""
    if m is None:
        if history is not None or keys is not None:
            raise InvalidInputError("history= and keys= go with invariance=m (m-invariance: "
                                    "each class at least m values, each person's signature "
                                    "the same in every release)")
        return None
    from pdanon.republication._keys import key_array
    from pdanon.republication.releases import ReleaseHistory

    if isinstance(m, (bool, np.bool_)) or not isinstance(m, numbers.Integral) or m < 1:
        raise InvalidInputError(f"invariance must be an integer >= 1, got {m!r}")
    if not isinstance(history, ReleaseHistory):
        raise InvalidInputError(
            "invariance= needs history=pdanon.ReleaseHistory() holding the earlier releases "
            "(an empty one for the first release; history.add(release, keys=..., "
            "sensitive=...) after each one)")
    if len(roles.sensitive) != 1:
        raise InvalidInputError(
            f"invariance= reads one sensitive column; this batch has {list(roles.sensitive)}")
    weak = [i for i, level in enumerate(history.invariant) if level < m]
    if weak:
        raise InvalidInputError(
            f"the history's release {weak[0] + 1} is not m-invariant for m = {int(m)} (some "
            f"class shows its values unequally often, or fewer than {int(m)} of them): "
            "comparing its counts with this batch's would give away who left or came (the "
            "difference attack). m-invariance holds only when every release is published "
            "under it: publish the first batch with apply_recoding(recoding, "
            "history=pdanon.ReleaseHistory(), keys=..., invariance=m) too, and record each "
            "release with history.add")
    sensitive = next(iter(roles.sensitive))
    other = [c for c in published if c not in set(roles.qi) and c != sensitive]
    if other:
        raise InvalidInputError(
            f"invariance= publishes counterfeit rows, and their cells of {other} would have "
            "to be invented (a blank or copied cell tells a counterfeit apart, and its value "
            "with it): publish the quasi-identifiers and the sensitive column only (declare "
            f"{other} identifiers=, or drop them)")
    blank = int(df[sensitive].isna().sum())
    if blank:
        raise InvalidInputError(
            f"invariance= needs every sensitive value: {blank} row(s) of {sensitive!r} are "
            "blank, and a blank is no value of a signature; fill them or leave those rows out")
    if isinstance(keys, str):
        if keys not in df.columns:
            raise UnknownColumnError(f"keys={keys!r} is not a column of the batch")
        keys = df[keys]
    if keys is None:
        raise InvalidInputError("invariance= needs keys: one per row (or a column name), "
                                "naming the person across releases")
    key_values = key_array(keys, "keys", len(df)).to_numpy(dtype=object)
    return int(m), key_values, df[sensitive]


def conflicts(labels: np.ndarray, signature: np.ndarray, codes: np.ndarray, history,
              m: int) -> np.ndarray:
    """Per row whether it cannot keep m-invariance in its class: each class takes the
    signature most of its persons seen before hold (none: the set of its own values), and
    a row conflicts when its person holds another signature, its value is not in the
    class's signature, or a class of new persons shows fewer than ``m`` values."""
    labels = np.asarray(labels, dtype=np.int64)
    chosen = chosen_signatures(labels, signature)
    mine = chosen[labels]
    bad = (signature >= 0) & (signature != mine)
    has = mine >= 0
    bad[has] |= ~history.signature_holds(mine[has], codes[has])
    distinct = np.bincount(unique_sorted((labels << _SHIFT) | codes) >> _SHIFT,
                           minlength=len(chosen))
    bad |= ~has & (distinct[labels] < m)
    return bad


def chosen_signatures(labels: np.ndarray, signature: np.ndarray) -> np.ndarray:
    """Per class the signature most of its persons seen before hold (the smallest number of
    a tie), -1 when it holds none."""
    classes = int(labels.max(initial=-1)) + 1
    chosen = np.full(classes, -1, dtype=np.int64)
    seen = signature >= 0
    if seen.any():
        pair, count = unique_sorted((labels[seen] << _SHIFT) | signature[seen], counts=True)
        cls, sig = pair >> _SHIFT, pair & _LOW
        order = np.lexsort((sig, -count, cls))  # per class the most held, then smallest
        first = np.r_[True, cls[order][1:] != cls[order][:-1]]
        chosen[cls[order][first]] = sig[order][first]
    return chosen


def needed(labels: np.ndarray, codes: np.ndarray, chosen: np.ndarray, sets) -> tuple:
    """``(class, value code, rows)``: the counterfeit rows each class needs so that each
    value of its signature (``chosen[class]``, a class of the store ``sets``; -1: the
    class's own values) is shown as often as its most frequent one."""
    labels = np.asarray(labels, dtype=np.int64)
    codes = np.asarray(codes, dtype=np.int64)
    chosen = np.asarray(chosen, dtype=np.int64)
    pair, count = unique_sorted((labels << _SHIFT) | codes, counts=True)
    cls, val = pair >> _SHIFT, pair & _LOW
    top = np.zeros(len(chosen), dtype=np.int64)
    np.maximum.at(top, cls, count)
    # the signature's values of every class that takes one, found among the present pairs
    fixed = np.flatnonzero((chosen >= 0) & (top > 0))
    size = sets.sizes(chosen[fixed]) if len(fixed) else np.zeros(0, dtype=np.int64)
    sig_cls = np.repeat(fixed, size)
    within = np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size, size)
    sig_val = sets.keys[np.repeat(sets.offsets[chosen[fixed]], size) + within] & _LOW
    probe = (sig_cls << _SHIFT) | sig_val
    at = np.minimum(np.searchsorted(pair, probe), max(len(pair) - 1, 0))
    absent = (pair[at] != probe) if len(pair) else np.ones(len(probe), dtype=bool)
    c = np.concatenate([cls, sig_cls[absent]])
    v = np.concatenate([val, sig_val[absent]])
    n = np.concatenate([top[cls] - count, top[sig_cls[absent]]])
    keep = n > 0
    order = np.lexsort((v[keep], c[keep]))
    return c[keep][order], v[keep][order], n[keep][order]


def counterfeit_rows(out: pd.DataFrame, labels: np.ndarray, codes: np.ndarray, chosen,
                     history, sensitive: str, qi: list, avoid: pd.Index):
    """``(frame, per class text the number)``: the counterfeit rows that balance every class
    of ``out`` (its quasi-identifier cells, the sensitive value), labelled apart from
    ``avoid``. ``chosen``: per class its signature (-1: its own values)."""
    cls, val, n = needed(labels, codes, chosen, history.signature_sets)
    total = int(n.sum())
    if not total:
        return out.iloc[:0], {}
    first_row = np.full(len(chosen), -1, dtype=np.int64)
    first_row[labels[::-1]] = np.arange(len(labels) - 1, -1, -1)
    rep = np.repeat(first_row[cls], n)
    fake = out.iloc[rep].copy()
    label = [f"counterfeit{i}" for i in range(total)]
    if avoid.isin(label).any():
        import secrets

        tag = secrets.token_hex(4)
        label = [f"counterfeit-{tag}-{i}" for i in range(total)]
    fake.index = pd.Index(label, dtype=object)
    cells = _cells(out[sensitive], codes, np.repeat(val, n), history)
    if isinstance(cells.dtype, pd.CategoricalDtype) and not cells.dtype.categories.equals(
            out[sensitive].dtype.categories):  # a value only earlier releases showed
        out[sensitive] = out[sensitive].cat.set_categories(cells.dtype.categories)
        fake[sensitive] = out[sensitive].iloc[rep].to_numpy()
    fake[sensitive] = cells.set_axis(fake.index)
    text = class_text(out.iloc[first_row[cls]], qi)
    by_class = pd.Series(n).groupby(text, sort=True).sum()
    return fake, {str(k): int(v) for k, v in by_class.items()}


def class_text(frame: pd.DataFrame, qi: list) -> np.ndarray:
    """Each row's class named by its quasi-identifier cells: their text (``str``) joined by
    ``|``, a blank cell written ``<blank>`` (the names of ``counterfeits_by_class``).

    >>> class_text(pd.DataFrame({"age": ["[30, 34]", None], "sex": ["F", "M"]}), ["age", "sex"])
    array(['[30, 34]|F', '<blank>|M'], dtype=object)
    """
    parts = [np.where(frame[c].notna().to_numpy(), frame[c].astype(str).to_numpy(dtype=object),
                      "<blank>") for c in qi]
    out = parts[0].astype(object)
    for p in parts[1:]:
        out = out + "|" + p
    return out


def _cells(column: pd.Series, codes: np.ndarray, wanted: np.ndarray, history) -> pd.Series:
    """The sensitive cells of the counterfeit rows: a value the batch holds is copied from
    one of its rows (same dtype); a value only earlier releases held is built from its text
    (the history keeps values as text), in the column's dtype."""
    position = np.full(int(max(codes.max(initial=-1), wanted.max(initial=-1))) + 1, -1,
                       dtype=np.int64)
    position[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)
    at = position[wanted]
    values = column.iloc[np.maximum(at, 0)].to_numpy(dtype=object) if len(column) else \
        np.empty(len(wanted), dtype=object)
    missing = at < 0
    if missing.any():
        values[missing] = np.asarray(history.values[wanted[missing]], dtype=object)
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        cats = dtype.categories
        if missing.any():  # the values only earlier releases showed become categories
            new = pd.Index(pd.unique(values[missing])).astype(cats.dtype)
            cats = cats.append(new.difference(cats, sort=False))
        return pd.Series(pd.Categorical(values, categories=cats, ordered=dtype.ordered))
    try:
        return pd.Series(values).astype(dtype) if missing.any() else pd.Series(
            pd.array(values, dtype=dtype) if dtype != object else values)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"the counterfeit rows need values of {column.name!r} that only earlier releases "
            f"showed ({list(values[missing][:3])}), kept as text, which is not a "
            f"{dtype} value: publish the sensitive column as text") from None
