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

With ``sensitive=`` it also measures what the sensitive values give away: the intersection
of the value sets of a person's classes (the composition attack, ``intersected``) and the
**difference attack**, which compares the classes' published counts across releases
(:mod:`pdanon.republication.difference`: ``candidates`` from below, ``attacked`` from above).
:class:`ReleaseHistory` keeps what the publisher needs between releases to publish them
m-invariant (``apply_recoding(..., invariance=m)``, :mod:`pdanon.republication.invariance`).

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

from pdanon.republication._keys import key_array, number_keys
from pdanon.checks.row_order import in_release_order
from pdanon._errors import InvalidInputError, UnknownColumnError


@dataclass(frozen=True)
class ReleasesCheck:
    """What :func:`check_releases` measured.

    * ``combined`` -- per person (indexed by key) the size of their combined class (persons
      only: counterfeit rows of an m-invariant release are no persons);
    * ``combined_k`` -- its minimum over the persons; ``k_each`` -- each release's own k;
    * ``releases_of`` -- per person the number of releases that hold them;
    * with ``sensitive=``: ``candidates`` -- per person the number of sensitive values left
      after the **difference attack** (the values some assignment consistent with every
      class's published counts gives them, counted from below: :mod:`pdanon.republication.difference`),
      ``intersected`` -- the values left by intersecting the value sets of their classes
      alone (the composition attack; never fewer than ``candidates``), ``attacked`` -- the
      values the count-difference attack itself leaves (bounds propagated through every
      published count: an upper bound, so ``candidates <= exact <= attacked``; a person at
      ``attacked == 1`` is disclosed; None beyond
      :data:`pdanon.republication.difference.MAX_TRIPLES_PER_ROW`), ``combined_l`` --
      the minimum of ``candidates`` over the persons whose value is the same in every
      release, ``value_changed`` -- how many persons' value differs between releases (the
      attacks assume it does not; they are left out of the minimum).
    """

    combined: pd.Series
    releases_of: pd.Series
    k_each: list
    combined_k: int
    candidates: pd.Series | None = None
    combined_l: int | None = None
    value_changed: int = 0
    intersected: pd.Series | None = None
    changed: pd.Series | None = None
    attacked: pd.Series | None = None

    def persons_below(self, k: int) -> int:
        """How many persons' combined class holds fewer than ``k`` persons."""
        return int((self.combined < k).sum())

    def persons_below_l(self, l: int) -> int:
        """How many persons (whose value did not change) the difference attack leaves fewer
        than ``l`` candidate values."""
        if self.candidates is None:
            raise InvalidInputError("pass sensitive= to check_releases to count candidates")
        return int(((self.candidates < l) & ~self.changed).sum())

    def criteria(self, *, k: int | None = None, l: int | None = None) -> list:
        """The criteria the releases are judged by together: ``k`` - every combined class
        holds at least ``k`` persons; ``l`` - the difference attack leaves every person at
        least ``l`` values (use ``l = m`` for m-invariant releases). Each a dict with the
        measured figure, the threshold, the persons below it and ``passed``.

        Example
        -------
        >>> a = pd.DataFrame({"age": ["20-29"] * 4, "d": ["flu", "cold", "hiv", "flu"]})
        >>> res = check_releases([a], keys=[[1, 2, 3, 4]], quasi_identifiers=[["age"]],
        ...                      sensitive="d")
        >>> [(c["criterion"], c["measured"], c["passed"]) for c in res.criteria(k=4, l=3)]
        [('combined_k', 4, True), ('difference_candidates', 3, True)]
        """
        out = []
        if k is not None:
            out.append({"criterion": "combined_k", "measured": self.combined_k,
                        "threshold": int(k), "persons_below": self.persons_below(k),
                        "passed": self.combined_k >= k})
        if l is not None:
            below = self.persons_below_l(l)
            out.append({"criterion": "difference_candidates", "measured": self.combined_l,
                        "threshold": int(l), "persons_below": below, "passed": below == 0})
        return out

    def passes(self, *, k: int | None = None, l: int | None = None) -> bool:
        """Whether every criterion of :meth:`criteria` holds."""
        return all(c["passed"] for c in self.criteria(k=k, l=l))

    def summary(self) -> dict:
        sizes = self.combined.to_numpy()
        out = {"persons": len(sizes), "k_each": list(self.k_each),
               "combined_k": self.combined_k,
               "persons_alone": int((sizes == 1).sum()),
               "persons_below_min_k": self.persons_below(min(self.k_each, default=0))}
        if self.candidates is not None:
            kept = ~self.changed.to_numpy()
            left = self.candidates.to_numpy()[kept]
            out.update({"combined_l": self.combined_l,
                        "min_candidates": int(left.min()) if len(left) else 0,
                        "persons_one_value": int((left == 1).sum()),
                        "min_intersected": int(self.intersected.to_numpy()[kept].min())
                        if len(left) else 0,
                        "value_changed": self.value_changed})
            if self.attacked is not None:
                hit = self.attacked.to_numpy()[kept]
                out.update({"persons_disclosed": int((hit == 1).sum()),
                            "exact_share": float((hit == left).mean()) if len(left) else 1.0})
        return out


def difference_figures(release: pd.DataFrame, earlier, keys, *, quasi_identifiers,
                       sensitive, missing_sensitive: str = "unknown") -> dict:
    """What the difference attack leaves across ``earlier`` releases and ``release`` (the
    last), as :func:`pdanon.checks.policy.check` reads it (``difference=``): ``disclosed``
    (persons to whom some sensitive column is left one candidate value,
    :attr:`ReleasesCheck.candidates`: counted from below, so a person counted may be
    disclosed and one not counted is not), ``persons``, ``releases`` and the ``sensitive``
    columns measured. ``keys``: one key array per release, the earlier ones first (as
    :func:`check_releases`); ``quasi_identifiers``: ``release``'s (the earlier ones' from
    their pdanon roles, these where they record none); ``sensitive``: ``release``'s sensitive columns, each measured where
    every earlier release publishes it (one at least).

    Example
    -------
    >>> jan = pd.DataFrame({"age": ["30-34"] * 12, "d": ["hiv"] * 7 + ["flu", "cold"] * 2
    ...                     + ["asthma"]})
    >>> feb = jan.iloc[6:].reset_index(drop=True)
    >>> difference_figures(feb, [jan], [range(12), range(6, 12)], quasi_identifiers=["age"],
    ...                    sensitive=["d"])["disclosed"]
    6
    """
    earlier = [earlier] if isinstance(earlier, pd.DataFrame) else list(earlier or [])
    if not earlier:
        raise InvalidInputError("earlier= lists the releases published before this one (at "
                                "least one DataFrame)")
    if not isinstance(keys, (list, tuple)) or len(keys) != len(earlier) + 1:
        raise InvalidInputError(
            f"keys= gives one key array per release, the {len(earlier)} earlier one(s) first "
            f"and this release's last ({len(earlier) + 1} in all): the publisher's person ids "
            f"of the rows each release was made from")
    columns = [c for c in sensitive if all(c in df.columns for df in earlier)]
    if not columns:
        raise InvalidInputError(
            f"the difference attack compares a sensitive column every release publishes: "
            f"this release's sensitive columns {list(sensitive)} are not in every earlier "
            f"release (pass sensitive=[...])")
    from pdanon.roles import ATTRS_KEY

    qis = [None if df.attrs.get(ATTRS_KEY, {}).get("roles", {}).get("quasi_identifiers")
           else list(quasi_identifiers) for df in earlier] + [list(quasi_identifiers)]
    hit, persons = None, 0
    for column in columns:
        res = check_releases([*earlier, release], keys=list(keys), quasi_identifiers=qis,
                             sensitive=column, missing_sensitive=missing_sensitive)
        one = (res.candidates == 1) & ~res.changed
        hit = one if hit is None else (hit | one)
        persons = len(res.candidates)
    return {"disclosed": int(hit.sum()), "persons": int(persons),
            "releases": len(earlier) + 1, "sensitive": [str(c) for c in columns]}


def release_keys(release: pd.DataFrame, keys) -> np.ndarray:
    """The publisher's ``keys`` (one per row of the batch the release was made from, in its
    order; or a Series indexed like the release) as an object array in the release's order,
    with ``None`` for each counterfeit row an m-invariant release added (it is nobody).

    Example
    -------
    >>> r = pd.DataFrame({"age": ["[30, 39]"] * 2})
    >>> release_keys(r, [7, 8]).tolist()
    [7, 8]
    """
    keys, fake = _release_keys(release, keys)
    if not fake.any():
        return keys.to_numpy()
    out = np.full(len(fake), None, dtype=object)
    out[~fake] = keys.to_numpy(dtype=object)
    return out


def _release_keys(release: pd.DataFrame, keys) -> tuple:
    """``(keys of the persons' rows as a Series, in their dtype; per row of the release
    whether it is a counterfeit)``."""
    inv = (release.attrs.get("pdanon", {}).get("info") or {}).get("invariance") or {}
    fakes = int(inv.get("counterfeit_rows", 0) or 0)
    if fakes and not (isinstance(keys, pd.Series) and keys.index.equals(release.index)):
        real = key_array(keys, "keys").to_numpy(dtype=object)
        at = in_release_order(release, np.arange(len(real) + fakes))
        if not isinstance(at, np.ndarray) or len(at) != len(release):
            raise InvalidInputError(
                f"the release holds {fakes} counterfeit rows and {len(release) - fakes} "
                f"persons' rows, and its way back to the batch is gone (a file read back?): "
                f"give the keys as a Series indexed like the release, None for a counterfeit "
                f"row; got {len(real)} keys")
        at = np.asarray(at, dtype=np.int64)
        fake = at >= len(real)
        return pd.Series(real[at[~fake]]).infer_objects(), fake
    arr = in_release_order(release, keys)
    if isinstance(arr, pd.Series) and arr.index.equals(release.index) and arr.isna().any():
        fake = arr.isna().to_numpy()  # None marks a counterfeit row
        return pd.Series(arr.array[~fake]).infer_objects(), fake
    return key_array(arr, "keys", len(release)), np.zeros(len(release), dtype=bool)


def check_releases(releases, *, keys, quasi_identifiers=None, sensitive=None,
                   missing_sensitive: str = "unknown") -> ReleasesCheck:
    """Measure the combined classes of several releases of the same population, and with
    ``sensitive=`` what the difference attack leaves each person (module docstring).

    Parameters
    ----------
    releases : list of DataFrame
        The published frames.
    keys : list of array-like
        Per release, one key per row naming the person (known only to the publisher; never
        published), given in the order of the rows the release was made from (the input's
        id column): a release in a random order is matched through its publisher-only way
        back (:func:`pdanon.checks.row_order.in_release_order`); a Series indexed like the release
        is taken as it is (None for a counterfeit row). A key may appear once per release.
        The counterfeit rows of an m-invariant release (``apply_recoding(...,
        invariance=m)``) are found through the way back and are nobody.
    quasi_identifiers : list of lists, optional
        Per release, the columns an attacker can match on; default: each release's
        quasi-identifiers from its pdanon roles (``df.attrs``), else all its columns.
    sensitive : str, optional
        A sensitive column every release publishes: also measure the composition attack
        (``intersected``: the values left by intersecting the value sets of the classes
        that hold a person) and the difference attack (``candidates``: the values left
        once the classes' published counts are compared, :mod:`pdanon.republication.difference`).
    missing_sensitive : {"unknown", "value"}
        How a blank sensitive cell counts: ``"unknown"`` (default) - it is no value, so a
        class of hiv and blanks leaves one candidate (hiv) and a class of blanks only
        leaves none (``combined_l`` 0, as l-diversity counts it); ``"value"`` - one more
        value (the rule before 2026-12).

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

    Six hiv patients leave a class that shows four values: its counts give them away.

    >>> jan = pd.DataFrame({"age": ["30-34"] * 12, "d": ["hiv"] * 7 + ["flu", "cold"] * 2
    ...                     + ["asthma"]})
    >>> feb = jan.iloc[6:].reset_index(drop=True)
    >>> res = check_releases([jan, feb], keys=[range(12), range(6, 12)],
    ...                      quasi_identifiers=[["age"], ["age"]], sensitive="d")
    >>> res.intersected.tolist()[:6], res.candidates.tolist()[:6]
    ([4, 4, 4, 4, 4, 4], [1, 1, 1, 1, 1, 1])
    >>> res.summary()["persons_disclosed"], res.passes(l=3)
    (6, False)
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
    key_arrays, labels_of, k_each, fake_of = [], [], [], []
    for i, df in enumerate(releases):
        if not isinstance(df, pd.DataFrame):
            raise InvalidInputError(f"release {i} is a {type(df).__name__}, not a DataFrame")
        cols = _columns(df, None if quasi_identifiers is None else quasi_identifiers[i], i)
        try:  # keys given in the input's row order, matched through the release's way back
            key, fake = _release_keys(df, keys[i])
        except InvalidInputError as exc:
            raise InvalidInputError(str(exc).replace("keys", f"keys[{i}] (release {i})", 1)) \
                from None
        labels = class_labels(df, cols) if len(df) else np.zeros(0, dtype=np.int64)
        real_sizes = np.bincount(labels[~fake]) if (~fake).any() else np.zeros(0, np.int64)
        k_each.append(int(real_sizes[real_sizes > 0].min()) if len(real_sizes) else 0)
        key_arrays.append(key)
        labels_of.append(labels)
        fake_of.append(fake)
        if sensitive is not None and sensitive not in df.columns:
            raise UnknownColumnError(f"release {i} has no sensitive column {sensitive!r}; it "
                                     f"has {list(df.columns)}")
    real_codes, everyone = number_keys(pd.concat(key_arrays, ignore_index=True))
    n = len(everyone)
    # per release each row's person: a real person's number, or a counterfeit of its own
    codes_of, at, fakes = [], 0, n
    for i, fake in enumerate(fake_of):
        codes = np.empty(len(fake), dtype=np.int64)
        m = int((~fake).sum())
        codes[~fake] = real_codes[at:at + m]
        codes[fake] = fakes + np.arange(int(fake.sum()))
        at, fakes = at + m, fakes + int(fake.sum())
        if (codes[~fake] < 0).any():
            raise InvalidInputError(f"release {i} has rows without a key: every row needs one")
        counts = np.bincount(codes[~fake], minlength=n)
        if counts.max(initial=0) > 1:
            raise InvalidInputError(
                f"release {i} holds the key {everyone[int(np.argmax(counts))]!r} more than "
                "once: a person may appear once per release")
        codes_of.append(codes)
    tuple_codes, releases_of = _combined(codes_of, labels_of, fakes)
    real = tuple_codes[:n]
    sizes = np.bincount(real) if n else np.zeros(0, dtype=np.int64)
    index = pd.Index(everyone)
    combined = pd.Series(sizes[real], index=index, name="combined_class")
    extra = {}
    if sensitive is not None:
        extra = _sensitive_figures([df[sensitive] for df in releases], labels_of, codes_of,
                                   fakes, n, tuple_codes, index,
                                   known_only=missing_sensitive == "unknown")
    return ReleasesCheck(combined=combined,
                         releases_of=pd.Series(releases_of[:n], index=index, name="releases"),
                         k_each=k_each, combined_k=int(sizes[sizes > 0].min()) if n else 0,
                         **extra)


def _combined(codes_of: list, labels_of: list, persons: int):
    """Per person the number of their combined class (the tuple of their classes, -1 where
    absent) and the number of releases that hold them."""
    tuple_codes = np.zeros(persons, dtype=np.int64)
    releases_of = np.zeros(persons, dtype=np.int64)
    for i, (where, labels) in enumerate(zip(codes_of, labels_of)):
        cls = np.full(persons, -1, dtype=np.int64)  # -1: absent from this release
        cls[where] = labels
        releases_of[where] += 1
        if i == 0:
            tuple_codes = cls + 1
            continue
        width = int(labels.max()) + 2 if len(labels) else 1
        # the classes so far and this release's, renumbered by one hash pass
        tuple_codes = np.asarray(pd.factorize(tuple_codes * width + (cls + 1))[0],
                                 dtype=np.int64)
    if persons and len(codes_of) == 1:
        tuple_codes = np.asarray(pd.factorize(tuple_codes)[0], dtype=np.int64)
    return tuple_codes, releases_of


def _sensitive_figures(values: list, labels_of: list, codes_of: list, persons: int, n: int,
                       tuple_codes: np.ndarray, index: pd.Index, *, known_only: bool) -> dict:
    """``candidates`` (the difference attack, from below), ``intersected`` (the composition
    attack), ``combined_l`` and ``value_changed`` of :class:`ReleasesCheck`."""
    from pdanon.republication.difference import attacked_candidates, certified_candidates

    stacked = pd.concat([pd.Series(v.array) for v in values], ignore_index=True)
    blank = stacked.isna().to_numpy()
    value_codes, uniques = pd.factorize(stacked, use_na_sentinel=False)
    value_codes = np.asarray(value_codes, dtype=np.int64)
    bounds = np.cumsum([0] + [len(c) for c in codes_of])
    left, changed = _signatures(value_codes, blank, labels_of, codes_of, bounds, persons,
                                tuple_codes, known_only=known_only)
    # the difference attack: a person whose value changed is one person per release (the
    # attack's premise, one value per person, holds for no one else)
    person = np.concatenate(codes_of)
    split = changed[person]
    person = np.where(split, persons + np.arange(len(person)), person)
    analysed, _ = pd.factorize(person)
    analysed = np.asarray(analysed, dtype=np.int64)
    offsets = np.cumsum([0] + [int(labels.max(initial=-1)) + 1 for labels in labels_of])
    cls = np.concatenate([labels + offsets[i] for i, labels in enumerate(labels_of)])
    count = int(analysed.max()) + 1 if len(analysed) else 0
    traj, _ = _combined([analysed[bounds[i]:bounds[i + 1]] for i in range(len(labels_of))],
                        labels_of, count)
    counted = np.ones(max(len(uniques), 1), dtype=bool)
    if known_only:
        counted[np.unique(value_codes[blank])] = False
    args = dict(person=analysed, cls=cls, value=value_codes, combined=traj, counted=counted)
    owner = np.concatenate(codes_of)

    def per_person(counts):
        out = np.full(persons, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(out, owner, counts[analysed])
        return np.minimum(out[:n], left[:n])  # equal but for persons whose value changed

    cand = per_person(certified_candidates(**args))
    upper = attacked_candidates(**args)
    real_changed = changed[:n]
    return {"candidates": pd.Series(cand, index=index, name="candidates"),
            "attacked": None if upper is None else pd.Series(per_person(upper), index=index,
                                                             name="attacked"),
            "intersected": pd.Series(left[:n], index=index, name="intersected"),
            "changed": pd.Series(real_changed, index=index, name="value_changed"),
            "combined_l": int(cand[~real_changed].min()) if (~real_changed).any() else 0,
            "value_changed": int(real_changed.sum())}


def _signatures(value_codes: np.ndarray, blank: np.ndarray, labels_of: list, codes_of: list,
                bounds, n: int, tuple_codes: np.ndarray, *, known_only: bool = False):
    """Per person the number of sensitive values that every class holding them shows, and
    whether their own value differs between releases. Each class's value set is kept once
    (:class:`pdanon.republication.valuesets.ValueSets`); persons of one combined class share their
    intersection, which is counted once per combined class (memory linear in the rows).
    ``known_only``: a blank cell adds no value to its class's set."""
    from pdanon.republication.valuesets import ValueSets, common_counts

    own = np.full(n, -1, dtype=np.int64)
    changed = np.zeros(n, dtype=bool)
    store = ValueSets()
    tuples = int(tuple_codes.max()) + 1 if n else 0
    first_person = np.full(tuples, n, dtype=np.int64)
    np.minimum.at(first_person, tuple_codes, np.arange(n))
    member_item, member_class = [], []
    for i, labels in enumerate(labels_of):
        v = value_codes[bounds[i]:bounds[i + 1]]
        where = codes_of[i]
        changed[where] |= (own[where] >= 0) & (own[where] != v)
        own[where] = v
        counted = ~blank[bounds[i]:bounds[i + 1]] if known_only else slice(None)
        offset = store.add_classes(labels[counted], v[counted],
                                   classes=int(labels.max(initial=-1)) + 1)
        cls = np.full(n + 1, -1, dtype=np.int64)  # [n]: a combined code no person has
        cls[where] = labels + offset
        rep = cls[first_person]  # every person of a combined class is in the same classes
        member_item.append(np.flatnonzero(rep >= 0))
        member_class.append(rep[rep >= 0])
    left = common_counts(store, np.concatenate(member_item), np.concatenate(member_class),
                         tuples)
    return left[tuple_codes], changed


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


# ----------------------------------------------------------------------------- history


class ReleaseHistory:
    """What the publisher remembers between releases to keep the composition attack in
    check: per person (by key) the sensitive values every class that held them showed (the
    intersection so far). It names people: keep it with the original data, never with a
    release.

    What it holds: ``keys`` (the publisher's person keys: patient numbers, register ids),
    ``values`` (the text of every sensitive value seen) and ``bits`` (per person, which of
    those values are still possible for them): with the keys, a list of the values each
    named person may hold. So it is publisher-only: pickling it (``pickle.dumps``,
    ``df.to_pickle`` of a frame whose attrs hold it, ``copy`` aside) raises
    :class:`~pdanon.PublisherOnlyError`; :meth:`dumps` with ``publisher_only=True`` writes it
    for the publisher's next run and :meth:`loads` reads it back (a pickle: load only files
    you wrote). It is not JSON, so it cannot ride in a Parquet file's attrs either.

    It also keeps, per person, their **signature** (the value set of their class) and, per
    recorded release, the ``m`` it is m-invariant for (``invariant``; 0 when some class shows
    its values unequally often). ``batch.anon.apply_recoding(recoding, history=h, keys=...,
    invariance=m)`` publishes the batch m-invariant with it (:mod:`pdanon.republication.invariance`);
    ``h.add(release, keys=..., sensitive=...)`` records a published release (its
    counterfeit rows count in their classes and are nobody). Values are compared by their
    text (``str``).

    ``missing_sensitive="unknown"`` (the default, as in :func:`check_releases` and the
    privacy models): a blank sensitive cell is no value: it adds nothing to its class's value
    set, so a class of hiv and blanks leaves its persons one candidate (hiv), its signature
    is {hiv} and it counts as showing one value for m-invariance. ``"value"``: a blank is one
    more value (the rule before 2026-12). Kept in ``missing_sensitive`` for every release the
    history records; a history written before the keyword existed reads ``"value"``.

    Example
    -------
    >>> import pandas as pd
    >>> h = ReleaseHistory()
    >>> r = pd.DataFrame({"age": ["[30, 39]"] * 3, "d": ["flu", "cold", "flu"]})
    >>> h.add(r, keys=[1, 2, 3], quasi_identifiers=["age"], sensitive="d")
    >>> h.candidates([1, 2, 9]).tolist()      # 9: never published, no constraint yet
    [2, 2, -1]
    >>> b = pd.DataFrame({"age": ["[30, 39]"] * 4, "d": ["hiv", "hiv", None, None]})
    >>> h = ReleaseHistory()
    >>> h.add(b, keys=[1, 2, 3, 4], quasi_identifiers=["age"], sensitive="d")
    >>> h.candidates([1, 3]).tolist(), h.invariant
    ([1, 1], [1])
    >>> old = ReleaseHistory(missing_sensitive="value")
    >>> old.add(b, keys=[1, 2, 3, 4], quasi_identifiers=["age"], sensitive="d")
    >>> old.candidates([1, 3]).tolist(), old.invariant
    ([2, 2], [2])
    """

    def __init__(self, *, missing_sensitive: str = "unknown"):
        from pdanon.models.base import check_missing_sensitive
        from pdanon.republication.valuesets import ValueSets

        #: how a blank sensitive cell counts in every release recorded (see the class doc)
        self.missing_sensitive = check_missing_sensitive(missing_sensitive)

        self.keys = pd.Index([], dtype=object)
        self.values = pd.Index([], dtype=object)  # the value texts seen, in order
        # per person the last node of their chain of classes (one node per release that held
        # them; persons with the same classes so far share nodes), per node the node before
        # (-1: none) and the class, whose value set is kept once in ``sets``
        self.sets = ValueSets()
        self.node = np.zeros(0, dtype=np.int64)
        self.parent = np.zeros(0, dtype=np.int64)
        self.node_class = np.zeros(0, dtype=np.int64)
        # m-invariance: per person their signature (the value set of their class, the same
        # in every release under invariance=m; -1: none), the distinct signatures' value
        # sets (``signature_sets``: signature ``s`` is class ``s`` of it), and per recorded
        # release the m it is invariant for (0: some class shows its values unequally often)
        self.signature = np.zeros(0, dtype=np.int64)
        self.signature_sets = ValueSets()
        self.signature_ids = {}
        self.invariant = []

    def __reduce_ex__(self, protocol):
        if not getattr(self, "_dumping", False):
            from pdanon._errors import PublisherOnlyError

            raise PublisherOnlyError(
                "a ReleaseHistory names people (their keys and the sensitive values still "
                "possible for each) and is for the publisher only: it is not pickled into a "
                "file unknowingly (a frame's attrs, a pickled release). Keep it with "
                "history.dumps(publisher_only=True) and ReleaseHistory.loads(data)")
        return (_history_from_state, (self._state(),))

    def _state(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_dumping"}

    def __copy__(self):
        return _history_from_state(self._state())

    def __deepcopy__(self, memo):
        import copy

        return _history_from_state(copy.deepcopy(self._state(), memo))

    def dumps(self, *, publisher_only: bool = False) -> bytes:
        """This history as bytes (a pickle), for the publisher's next release: refused
        without ``publisher_only=True``, which says the bytes stay with the original data.

        Example
        -------
        >>> h = ReleaseHistory()
        >>> h.add(pd.DataFrame({"a": [1, 1], "d": ["x", "y"]}), keys=[7, 8],
        ...       quasi_identifiers=["a"], sensitive="d")
        >>> ReleaseHistory.loads(h.dumps(publisher_only=True)).candidates([7, 8]).tolist()
        [2, 2]
        """
        import pickle

        from pdanon._errors import PublisherOnlyError

        if not publisher_only:
            raise PublisherOnlyError(
                "a ReleaseHistory names people: pass publisher_only=True to say the bytes "
                "stay with the original data, never beside a release")
        self._dumping = True
        try:
            return pickle.dumps(self)
        finally:
            del self._dumping

    @classmethod
    def loads(cls, data: bytes) -> "ReleaseHistory":
        """The history :meth:`dumps` wrote (a pickle: load only bytes you wrote)."""
        import pickle

        history = pickle.loads(data)
        if not isinstance(history, cls):
            raise InvalidInputError(f"the bytes hold a {type(history).__name__}, not a "
                                    "ReleaseHistory written by dumps(publisher_only=True)")
        return history

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
        return np.asarray(self.values.get_indexer(text), dtype=np.int64)

    def rows_of(self, keys) -> np.ndarray:
        """The history row of each key (-1: not seen yet)."""
        keys = pd.Index(key_array(keys, "keys").astype(object))
        return np.asarray(self.keys.get_indexer(keys), dtype=np.int64)

    def _members(self, nodes: np.ndarray):
        """``(item, class)``: the classes of the chain ending at each node (item = its
        position in ``nodes``; a node -1 has none)."""
        items, classes = [], []
        idx, cur = np.arange(len(nodes)), np.asarray(nodes, dtype=np.int64)
        while len(idx):
            live = cur >= 0
            idx, cur = idx[live], cur[live]
            items.append(idx)
            classes.append(self.node_class[cur])
            cur = self.parent[cur]
        return np.concatenate(items), np.concatenate(classes)

    def candidates(self, keys) -> np.ndarray:
        """Per key the number of values its intersection still holds (-1: never published)."""
        from pdanon.republication.valuesets import common_counts

        at = self.rows_of(keys)
        nodes, inverse = np.unique(np.where(at >= 0, self.node[np.maximum(at, 0)], -1)
                                   if len(self.node) else np.full(len(at), -1),
                                   return_inverse=True)
        item, cls = self._members(nodes)
        return common_counts(self.sets, item, cls, len(nodes))[inverse.ravel()]

    def left_after(self, rows: np.ndarray, labels: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Per row the values its person's intersection would hold after a release whose
        classes are ``labels``: ``rows`` from :meth:`rows_of` (the persons' keys), ``codes``
        from ``value_codes(values, grow=True)`` (the rows' sensitive values)."""
        from pdanon.republication.valuesets import ValueSets, common_counts

        trial = ValueSets()  # the history's sets and this release's (the history unchanged)
        trial.keys, trial.offsets = self.sets.keys, self.sets.offsets
        codes = np.asarray(codes, dtype=np.int64)
        shown = codes >= 0  # a code < 0 (a blank read as no value) adds no value
        first = trial.add_classes(labels[shown], codes[shown],
                                  classes=int(np.max(labels, initial=-1)) + 1)
        nodes, new, inverse = self._next_nodes(rows, labels)
        item, cls = self._members(nodes)
        item = np.concatenate([item, np.arange(len(nodes))])
        cls = np.concatenate([cls, new + first])
        return common_counts(trial, item, cls, len(nodes))[inverse]

    def _next_nodes(self, rows: np.ndarray, labels: np.ndarray):
        """``(past node, class, inverse)``: per distinct (past node, class) of the rows the
        node and the class, and per row its position among them."""
        rows = np.asarray(rows, dtype=np.int64)
        labels = np.asarray(labels, dtype=np.int64)
        past = np.where(rows >= 0, self.node[np.maximum(rows, 0)], -1) if len(self.node) \
            else np.full(len(rows), -1, dtype=np.int64)
        width = int(labels.max()) + 1 if len(labels) else 1
        from pdanon.republication.valuesets import unique_sorted

        pair, inverse = unique_sorted((past + 1) * width + labels, inverse=True)
        return pair // width - 1, pair % width, inverse

    def add(self, release: pd.DataFrame, *, keys, sensitive: str,
            quasi_identifiers=None) -> None:
        """Record a published release: every person's intersection with their class's
        values, their signature (their class's value set) and whether the release is
        m-invariant (``quasi_identifiers``: default the release's pdanon roles). The
        counterfeit rows of an m-invariant release count in their classes and are nobody."""
        from pdanon._groups import class_labels

        cols = _columns(release, quasi_identifiers, 0)
        if sensitive not in release.columns:
            raise UnknownColumnError(f"the release has no sensitive column {sensitive!r}")
        real, fake = _release_keys(release, keys)
        keys = pd.Index(real.to_numpy(dtype=object))
        if keys.has_duplicates:
            raise InvalidInputError(
                f"keys: the key {keys[keys.duplicated()][0]!r} appears more than once; give "
                "one key per row of the release, each once")
        labels = class_labels(release, cols) if len(release) else np.zeros(0, np.int64)
        classes = int(labels.max(initial=-1)) + 1
        shown = np.ones(len(release), dtype=bool)
        if self.missing_sensitive == "unknown":  # a blank cell is no value of its class
            shown = release[sensitive].notna().to_numpy()
        codes = np.full(len(release), -1, dtype=np.int64)
        codes[shown] = self.value_codes(release[sensitive][shown], grow=True)
        self.invariant.append(_invariant_for(labels[shown], codes[shown]))
        first = self.sets.add_classes(labels[shown], codes[shown], classes=classes)
        class_signature = self._signature_ids(labels[shown], codes[shown], classes)
        labels = labels[~fake]
        at = self.rows_of(keys)
        past, cls, inverse = self._next_nodes(at, labels)
        node = len(self.parent) + inverse
        self.parent = np.concatenate([self.parent, past])
        self.node_class = np.concatenate([self.node_class, cls + first])
        old = at >= 0
        self.node[at[old]] = node[old]
        self.signature[at[old]] = class_signature[labels[old]]
        if (~old).any():
            self.keys = self.keys.append(keys[~old])
            self.node = np.concatenate([self.node, node[~old]])
            self.signature = np.concatenate([self.signature, class_signature[labels[~old]]])

    def _signature_ids(self, labels: np.ndarray, codes: np.ndarray,
                       classes: int | None = None) -> np.ndarray:
        """Per class (``classes`` of them) the number of its value set among the signatures
        seen (new ones are added; -1 for a class that shows no value)."""
        from pdanon.republication.valuesets import pair_keys

        pairs = pair_keys(labels, codes)
        cls = pairs >> np.int64(32)
        values = pairs & np.int64((1 << 32) - 1)
        starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]]) if len(pairs) else \
            np.zeros(0, dtype=np.int64)
        ends = np.r_[starts[1:], len(pairs)]
        if classes is None:
            classes = int(labels.max(initial=-1)) + 1
        out = np.full(classes, -1, dtype=np.int64)
        new_labels, new_codes = [], []
        for a, b in zip(starts, ends):
            key = values[a:b].tobytes()
            sid = self.signature_ids.get(key)
            if sid is None:
                sid = self.signature_ids[key] = len(self.signature_ids)
                new_labels.append(np.full(b - a, sid, dtype=np.int64))
                new_codes.append(values[a:b])
            out[cls[a]] = sid
        if new_labels:  # signatures are numbered in the order added, classes of one store
            lab = np.concatenate(new_labels)
            self.signature_sets.add_classes(lab - lab.min(), np.concatenate(new_codes))
        return out

    def signatures_of(self, rows: np.ndarray) -> np.ndarray:
        """Per history row (:meth:`rows_of`; -1 for a person not seen) their signature's
        number (-1: none)."""
        rows = np.asarray(rows, dtype=np.int64)
        if not len(self.signature):
            return np.full(len(rows), -1, dtype=np.int64)
        return np.where(rows >= 0, self.signature[np.maximum(rows, 0)], -1)

    def signature_holds(self, signature: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Whether each signature (a number >= 0) holds each value code."""
        probe = (np.asarray(signature, dtype=np.int64) << np.int64(32)) | codes
        keys = self.signature_sets.keys
        if not len(keys):
            return np.zeros(len(probe), dtype=bool)
        at = np.minimum(np.searchsorted(keys, probe), len(keys) - 1)
        return keys[at] == probe


def _invariant_for(labels: np.ndarray, codes: np.ndarray) -> int:
    """The m a release is m-invariant for by its counts: the fewest distinct values of a
    class when every class shows each of its values equally often, else 0 (a release of no
    row shows nothing: invariant for every m)."""
    if not len(labels):
        return int(np.iinfo(np.int64).max)
    from pdanon.republication.valuesets import unique_sorted

    pair, count = unique_sorted((np.asarray(labels, np.int64) << np.int64(32)) | codes,
                                counts=True)
    cls = pair >> np.int64(32)
    low = np.full(int(cls.max()) + 1, np.iinfo(np.int64).max)
    high = np.zeros(int(cls.max()) + 1, dtype=np.int64)
    np.minimum.at(low, cls, count)
    np.maximum.at(high, cls, count)
    present = high > 0
    if (low[present] != high[present]).any():
        return 0
    return int(np.bincount(cls)[present].min())


def _history_from_state(state: dict) -> ReleaseHistory:
    history = ReleaseHistory.__new__(ReleaseHistory)
    history.__dict__.update(ReleaseHistory().__dict__)  # fields a history of an older
    history.__dict__.update(state)  # version lacks (its releases then count as not invariant)
    if "missing_sensitive" not in state:  # written when a blank was one more value
        history.missing_sensitive = "value"
    if len(history.signature) != len(history.keys):
        history.signature = np.full(len(history.keys), -1, dtype=np.int64)
        history.invariant = [0] * max(len(history.invariant), 1)
    return history
