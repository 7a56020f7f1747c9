"""Several releases checked together: what an attacker gains by putting them side by side.

Each release alone may be k-anonymous, and yet a person who appears in two of them lies in
the *intersection* of the classes that contain them in each: an attacker who knows the
person's quasi-identifiers finds one class per release, and only the people who share all
of those classes remain candidates. :func:`check_releases` counts, for every person, the
people who are in the same class as them in every release (the *combined class*), and the
smallest such count, the *combined k*.

Who is the same person across releases is something only the publisher knows: ``keys`` (one
array or Series per release, aligned with its rows: a patient number, a register id) links
the rows and is never published. The attacker modelled is the strongest one: they know which
releases hold the person (so people absent from a release are told apart from those present,
who are one more "class" of it) and can link the releases' rows perfectly wherever the
persons' classes allow. Two projections of one table (different columns of the same rows)
are the same case, keyed by the row.

The count is exact and vectorized: per release the classes of its published cells
(missing cells are a value, as in every other pdanon measure), per person the tuple of
their classes, and the size of every distinct tuple.

Example
-------
>>> import pandas as pd, pdanon
>>> r1 = pd.DataFrame({"age": ["[30, 39]"] * 2 + ["[40, 49]"] * 2})
>>> r2 = pd.DataFrame({"zip": ["021**", "100**", "021**", "100**"]})
>>> result = pdanon.check_releases([r1, r2], keys=[[1, 2, 3, 4], [1, 3, 2, 4]],
...                                quasi_identifiers=[["age"], ["zip"]])
>>> result.k_each, result.combined_k
([2, 2], 2)
>>> result = pdanon.check_releases([r1, r2], keys=[[1, 2, 3, 4], [1, 2, 3, 4]],
...                                quasi_identifiers=[["age"], ["zip"]])
>>> result.combined_k, result.persons_below(2)
(1, 4)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdanon._keys import number_keys
from pdanon._errors import InvalidInputError, UnknownColumnError


@dataclass(frozen=True)
class ReleasesCheck:
    """What :func:`check_releases` measured.

    * ``combined`` -- per person (indexed by key) the size of their combined class;
    * ``combined_k`` -- its minimum over the persons; ``k_each`` -- each release's own k;
    * ``releases_of`` -- per person the number of releases that hold them;
    * with ``sensitive=``: ``candidates`` -- per person the number of sensitive values that
      every class holding them shows (what the intersection of the class signatures leaves
      an attacker), ``combined_l`` -- its minimum over the persons whose value is the same
      in every release, ``value_changed`` -- how many persons' value differs between
      releases (the intersection assumes it does not; they are left out of the minimum).
    """

    combined: pd.Series
    releases_of: pd.Series
    k_each: list
    combined_k: int
    candidates: pd.Series | None = None
    combined_l: int | None = None
    value_changed: int = 0

    def persons_below(self, k: int) -> int:
        """How many persons' combined class holds fewer than ``k`` persons."""
        return int((self.combined < k).sum())

    def summary(self) -> dict:
        sizes = self.combined.to_numpy()
        out = {"persons": len(sizes), "k_each": list(self.k_each),
               "combined_k": self.combined_k,
               "persons_alone": int((sizes == 1).sum()),
               "persons_below_min_k": self.persons_below(min(self.k_each, default=0))}
        if self.candidates is not None:
            out.update({"combined_l": self.combined_l,
                        "persons_one_value": int((self.candidates == 1).sum()),
                        "value_changed": self.value_changed})
        return out


def check_releases(releases, *, keys, quasi_identifiers=None, sensitive=None,
                   missing_sensitive: str = "unknown") -> ReleasesCheck:
    """Measure the combined classes of several releases of the same population (module
    docstring).

    Parameters
    ----------
    releases : list of DataFrame
        The published frames.
    keys : list of array-like
        Per release, one key per row naming the person (known only to the publisher; never
        published). A key may appear once per release.
    quasi_identifiers : list of lists, optional
        Per release, the columns an attacker can match on; default: each release's
        quasi-identifiers from its pdanon roles (``df.attrs``), else all its columns.
    sensitive : str, optional
        A sensitive column every release publishes: also measure the composition attack
        (per person the sensitive values left by intersecting the value sets of the classes
        that hold them).
    missing_sensitive : {"unknown", "value"}
        How a blank sensitive cell enters a class's value set: ``"unknown"`` (default) - it
        is no value, so a class of hiv and blanks leaves one candidate (hiv) and a class of
        blanks only leaves none (``combined_l`` 0, as l-diversity counts it);
        ``"value"`` - one more value (the rule before 2026-12).

    Returns a :class:`ReleasesCheck`.

    Example
    -------
    >>> a = pd.DataFrame({"age": ["20-29"] * 4, "d": ["hiv", "hiv", None, None]})
    >>> check_releases([a], keys=[[1, 2, 3, 4]], quasi_identifiers=[["age"]],
    ...                sensitive="d").combined_l
    1
    >>> check_releases([a], keys=[[1, 2, 3, 4]], quasi_identifiers=[["age"]], sensitive="d",
    ...                missing_sensitive="value").combined_l
    2
    """
    from pdanon._groups import class_labels
    from pdanon.models.base import check_missing_sensitive

    check_missing_sensitive(missing_sensitive)
    if not isinstance(releases, (list, tuple)) or len(releases) < 1:
        raise InvalidInputError("releases must be a list of DataFrames (at least one)")
    if not isinstance(keys, (list, tuple)) or len(keys) != len(releases):
        raise InvalidInputError(
            f"keys must be a list with one key array per release ({len(releases)}), got "
            f"{type(keys).__name__}")
    if quasi_identifiers is not None and len(quasi_identifiers) != len(releases):
        raise InvalidInputError("quasi_identifiers must give one list of columns per release")
    key_arrays, labels_of, k_each = [], [], []
    for i, df in enumerate(releases):
        if not isinstance(df, pd.DataFrame):
            raise InvalidInputError(f"release {i} is a {type(df).__name__}, not a DataFrame")
        cols = _columns(df, None if quasi_identifiers is None else quasi_identifiers[i], i)
        key = keys[i].array if isinstance(keys[i], (pd.Series, pd.Index)) else np.asarray(
            keys[i])
        if len(key) != len(df):
            raise InvalidInputError(
                f"release {i} has {len(df)} rows but {len(key)} keys: give one key per row")
        labels = class_labels(df, cols) if len(df) else np.zeros(0, dtype=np.int64)
        k_each.append(int(np.bincount(labels).min()) if len(labels) else 0)
        key_arrays.append(pd.Series(key, copy=False))
        labels_of.append(labels)
        if sensitive is not None and sensitive not in df.columns:
            raise UnknownColumnError(f"release {i} has no sensitive column {sensitive!r}; it "
                                     f"has {list(df.columns)}")
    codes, everyone = number_keys(pd.concat(key_arrays, ignore_index=True))
    n = len(everyone)
    bounds = np.cumsum([0] + [len(k) for k in key_arrays])
    tuple_codes = np.zeros(n, dtype=np.int64)
    releases_of = np.zeros(n, dtype=np.int64)
    for i, labels in enumerate(labels_of):
        where = codes[bounds[i]:bounds[i + 1]]
        if (where < 0).any():
            raise InvalidInputError(f"release {i} has rows without a key: every row needs one")
        counts = np.bincount(where, minlength=n)
        if counts.max(initial=0) > 1:
            raise InvalidInputError(
                f"release {i} holds the key {everyone[int(np.argmax(counts))]!r} more than "
                "once: a person may appear once per release")
        cls = np.full(n, -1, dtype=np.int64)  # -1: absent from this release
        cls[where] = labels
        releases_of[where] += 1
        if i == 0:
            tuple_codes = cls + 1
            continue
        width = int(labels.max()) + 2 if len(labels) else 1
        # the classes so far and this release's, renumbered by one hash pass
        tuple_codes = np.asarray(pd.factorize(tuple_codes * width + (cls + 1))[0],
                                 dtype=np.int64)
    sizes = np.bincount(tuple_codes) if n else np.zeros(0, dtype=np.int64)
    index = pd.Index(everyone)
    combined = pd.Series(sizes[tuple_codes], index=index, name="combined_class")
    extra = {}
    if sensitive is not None:
        left, changed = _signatures([df[sensitive] for df in releases], labels_of, codes,
                                    bounds, n, known_only=missing_sensitive == "unknown")
        extra = {"candidates": pd.Series(left, index=index, name="candidates"),
                 "combined_l": int(left[~changed].min()) if (~changed).any() else 0,
                 "value_changed": int(changed.sum())}
    return ReleasesCheck(combined=combined,
                         releases_of=pd.Series(releases_of, index=index, name="releases"),
                         k_each=k_each, combined_k=int(sizes[sizes > 0].min()) if n else 0,
                         **extra)


def _signatures(values: list, labels_of: list, codes: np.ndarray, bounds, n: int, *,
                known_only: bool = False):
    """Per person the number of sensitive values that every class holding them shows, and
    whether their own value differs between releases. A class's value set is a bitset
    (64 values a word); a person's candidates are the AND of their classes' bitsets.
    ``known_only``: a blank cell adds no value to its class's set."""
    value_codes, uniques = pd.factorize(pd.concat([pd.Series(v.array) for v in values],
                                                  ignore_index=True), use_na_sentinel=True)
    value_codes = np.asarray(value_codes, dtype=np.int64)
    blank = value_codes < 0
    value_codes[blank] = len(uniques)  # a blank: one code of its own
    words = max(1, (int(value_codes.max(initial=0)) + 64) // 64)
    left = np.full((n, words), np.iinfo(np.uint64).max, dtype=np.uint64)
    own = np.full(n, -1, dtype=np.int64)
    changed = np.zeros(n, dtype=bool)
    for i, labels in enumerate(labels_of):
        v = value_codes[bounds[i]:bounds[i + 1]]
        where = codes[bounds[i]:bounds[i + 1]]
        counted = ~blank[bounds[i]:bounds[i + 1]] if known_only else slice(None)
        left[where] &= class_value_bits(labels[counted], v[counted], words,
                                        classes=int(labels.max(initial=-1)) + 1)[labels]
        changed[where] |= (own[where] >= 0) & (own[where] != v)
        own[where] = v
    return np.bitwise_count(left).sum(axis=1).astype(np.int64), changed


def _columns(df: pd.DataFrame, given, i: int) -> list:
    from pdanon.roles import ATTRS_KEY

    if given is None:
        qi = df.attrs.get(ATTRS_KEY, {}).get("roles", {}).get("quasi_identifiers")
        cols = list(qi) if qi else list(df.columns)
    else:
        cols = [given] if isinstance(given, (str, int)) else list(given)
    unknown = [c for c in cols if c not in df.columns]
    if unknown:
        raise UnknownColumnError(f"release {i} has no column(s) {unknown}; it has "
                                 f"{list(df.columns)}")
    if not cols:
        raise InvalidInputError(f"release {i}: name at least one quasi-identifier column")
    return cols


def class_value_bits(labels: np.ndarray, values: np.ndarray, words: int, *,
                     classes: int | None = None) -> np.ndarray:
    """Per class the set of value codes its rows hold, as bitsets: a ``(classes, words)``
    uint64 array, value ``v`` at bit ``v % 64`` of word ``v // 64`` (``classes``: default
    one more than the largest label)."""
    if classes is None:
        classes = int(labels.max()) + 1 if len(labels) else 0
    bits = np.zeros((classes, words), dtype=np.uint64)
    np.bitwise_or.at(bits, (labels, values // 64),
                     np.left_shift(np.uint64(1), (values % 64).astype(np.uint64)))
    return bits


# ----------------------------------------------------------------------------- history


class ReleaseHistory:
    """What the publisher remembers between releases to keep the composition attack in
    check: per person (by key) the sensitive values every class that held them showed (the
    intersection so far). It names people: keep it with the original data, never with a
    release.

    ``batch.anon.apply_recoding(recoding, history=h, keys=..., invariance=m)`` suppresses the
    rows of the people whose intersection would drop below ``m`` values; ``h.add(release,
    keys=..., sensitive=...)`` records a published release. Values are compared by their
    text (``str``); a missing value is one more value.

    Example
    -------
    >>> import pandas as pd
    >>> h = ReleaseHistory()
    >>> r = pd.DataFrame({"age": ["[30, 39]"] * 3, "d": ["flu", "cold", "flu"]})
    >>> h.add(r, keys=[1, 2, 3], quasi_identifiers=["age"], sensitive="d")
    >>> h.candidates([1, 2, 9]).tolist()      # 9: never published, no constraint yet
    [2, 2, -1]
    """

    def __init__(self):
        self.keys = pd.Index([], dtype=object)
        self.values = pd.Index([], dtype=object)  # the value texts seen, in order
        self.bits = np.zeros((0, 1), dtype=np.uint64)

    @property
    def words(self) -> int:
        return self.bits.shape[1]

    def value_codes(self, values, *, grow: bool = False) -> np.ndarray:
        """The dictionary code of each value's text (``grow``: new texts are added). The
        values are factorized first, so only the distinct ones are turned into text."""
        local, uniq = pd.factorize(pd.Series(values, copy=False), use_na_sentinel=True)
        texts = pd.Index([str(v) for v in uniq] + ["<NA>"], dtype=object)
        text = texts[np.where(local < 0, len(uniq), local)]
        if grow:
            new = texts[np.unique(np.where(local < 0, len(uniq), local))].difference(
                self.values, sort=False)
            if len(new):
                self.values = self.values.append(pd.Index(new, dtype=object))
                need = (len(self.values) + 63) // 64
                if need > self.words:  # a fresh word: every past person's bits all set
                    pad = np.full((len(self.bits), need - self.words),
                                  np.iinfo(np.uint64).max, dtype=np.uint64)
                    self.bits = np.hstack([self.bits, pad])
        return np.asarray(self.values.get_indexer(text), dtype=np.int64)

    def rows_of(self, keys) -> np.ndarray:
        """The history row of each key (-1: not seen yet)."""
        return np.asarray(self.keys.get_indexer(pd.Index(np.asarray(keys, dtype=object))),
                          dtype=np.int64)

    def candidates(self, keys) -> np.ndarray:
        """Per key the number of values its intersection still holds (-1: never published)."""
        at = self.rows_of(keys)
        m = len(self.values)
        valid = np.full(self.words, np.iinfo(np.uint64).max, dtype=np.uint64)
        if m % 64:  # the last word holds m % 64 values; its other bits are padding
            valid[m // 64] = np.uint64((1 << (m % 64)) - 1)
        valid[(m + 63) // 64:] = 0
        held = self.bits[np.maximum(at, 0)] & valid
        return np.where(at < 0, -1, np.bitwise_count(held).sum(axis=1).astype(np.int64))

    def left_after(self, rows: np.ndarray, labels: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Per row the values its person's intersection would hold after a release whose
        classes are ``labels``: ``rows`` from :meth:`rows_of` (the persons' keys), ``codes``
        from ``value_codes(values, grow=True)`` (the rows' sensitive values)."""
        bits = class_value_bits(labels, codes, self.words)[labels]
        past = np.where((rows >= 0)[:, None], self.bits[np.maximum(rows, 0)], bits)
        return np.bitwise_count(past & bits).sum(axis=1).astype(np.int64)

    def add(self, release: pd.DataFrame, *, keys, sensitive: str,
            quasi_identifiers=None) -> None:
        """Record a published release: every person's intersection with their class's
        values (``quasi_identifiers``: default the release's pdanon roles)."""
        from pdanon._groups import class_labels

        cols = _columns(release, quasi_identifiers, 0)
        if sensitive not in release.columns:
            raise UnknownColumnError(f"the release has no sensitive column {sensitive!r}")
        keys = pd.Index(np.asarray(keys, dtype=object))
        if len(keys) != len(release) or keys.has_duplicates:
            raise InvalidInputError("give one key per row of the release, each once")
        labels = class_labels(release, cols) if len(release) else np.zeros(0, np.int64)
        codes = self.value_codes(release[sensitive], grow=True)
        bits = class_value_bits(labels, codes, self.words)[labels]
        at = self.rows_of(keys)
        old = at >= 0
        self.bits[at[old]] &= bits[old]
        if (~old).any():
            self.keys = self.keys.append(keys[~old])
            self.bits = np.vstack([self.bits, bits[~old]])
