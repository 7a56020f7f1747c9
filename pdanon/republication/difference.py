"""The difference attack on several releases: what the published counts of the classes leave
each person, measured from below (docs/republication.md, "The difference attack").

Releases made with one recoding publish, class by class, how many rows hold each sensitive
value. An attacker who knows who sits in which class of each release (the strongest
attacker of :func:`pdanon.check_releases`) and that a person's value does not change
subtracts: when six persons leave a class and its count of ``hiv`` drops by six while every
other count stays, the six held hiv, however many values the class shows. The exact question
("which values does some assignment of one value per person, consistent with every published
count, give this person?") is an integer program over all the classes at once, hard in
general; :func:`certified_candidates` answers it **from below**: it counts, per person, only
values for which it has built a consistent assignment, so it never says more is left than an
exact attacker leaves, and a person it counts at one value may be disclosed. Two
constructions, each an exchange that leaves every published count as it is:

* **twins** -- persons who sit in the same class of every release and in the same releases
  (the same *combined class*) can swap their values: each may hold any value one of them
  holds;
* **equal profiles** -- in a *component* (the classes linked by the persons who sit in them
  across releases, so no person has a row outside it), two values whose counts are equal in
  every class of the component can be exchanged in all its rows at once: a person holding one
  may hold the other. Counterfeit rows (m-invariance) are rows of no person, exchanged too.

A person's count is the number of values of the union of both. It is at most the values that
the intersection of their classes' value sets leaves (the composition attack), and the
count-difference reasoning above never leaves fewer: in the example of the module
:mod:`pdanon.republication.releases` the six who left count one value. When every release is m-invariant
(every class shows each value of its signature equally often, and a person's signature is the
same in every release) every component is one signature's classes and every two of its values
have equal profiles, so each person counts their whole signature: at least ``m``.

Memory grows with the rows and the distinct (class, value) pairs: the counts are kept per
pair, the components by one pass over the persons' classes (no rows x values matrix).

Example
-------
>>> import numpy as np
>>> # release 0: class 0 holds persons 0-2 (a, a, b); release 1: class 1 holds 1-2 (a, b)
>>> certified_candidates(person=np.array([0, 1, 2, 1, 2]), cls=np.array([0, 0, 0, 1, 1]),
...                      value=np.array([0, 0, 1, 0, 1]), combined=np.array([0, 1, 1]),
...                      counted=np.array([True, True])).tolist()
[1, 2, 2]
"""

from __future__ import annotations

import numpy as np

from pdanon.republication.valuesets import unique_sorted

__all__ = ["MAX_ROUNDS", "MAX_TRIPLES_PER_ROW", "MIN_TRIPLES", "attacked_candidates",
           "certified_candidates", "components"]

_SHIFT = np.int64(32)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _mix(x: np.ndarray) -> np.ndarray:
    """A 64-bit mixing of each value (splitmix64's finaliser)."""
    with np.errstate(over="ignore"):
        z = x.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def _arrays(person, cls, value, combined, counted) -> tuple:
    return (np.asarray(person, dtype=np.int64), np.asarray(cls, dtype=np.int64),
            np.asarray(value, dtype=np.int64), np.asarray(combined, dtype=np.int64),
            np.asarray(counted, dtype=bool))


def components(person: np.ndarray, cls: np.ndarray, classes: int) -> np.ndarray:
    """Per class its component: classes are linked when one person has a row in each."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    order = np.argsort(person, kind="stable")
    p, c = person[order], cls[order]
    same = p[1:] == p[:-1]
    a, b = c[:-1][same], c[1:][same]
    graph = coo_matrix((np.ones(len(a), dtype=np.int8), (a, b)), shape=(classes, classes))
    return np.asarray(connected_components(graph, directed=False)[1], dtype=np.int64)


def certified_candidates(*, person: np.ndarray, cls: np.ndarray, value: np.ndarray,
                         combined: np.ndarray, counted: np.ndarray) -> np.ndarray:
    """Per person ``0 .. P-1`` the number of values a consistent assignment is shown to give
    them (module docstring).

    Per row of every release: ``person`` (its person's number; a counterfeit row is a person
    of its own), ``cls`` (its class, numbered over all releases), ``value`` (its sensitive
    value's code, the person's value in every release). ``combined``: per person their
    combined class (persons with equal numbers sit in the same classes of the same
    releases). ``counted``: per value code whether it counts as a value (False for a blank
    cell read as unknown)."""
    person, cls, value, combined, counted = _arrays(person, cls, value, combined, counted)
    persons = len(combined)
    if not len(person):
        return np.zeros(persons, dtype=np.int64)
    classes = int(cls.max()) + 1
    comp = components(person, cls, classes)
    own = np.zeros(persons, dtype=np.int64)
    own[person] = value
    home = np.zeros(persons, dtype=np.int64)
    home[person] = comp[cls]
    # the count of every (class, value) pair, and per (component, value) its profile: the
    # (class, count) pairs of its classes, grouped when equal
    pair, n = unique_sorted((cls << _SHIFT) | value, counts=True)
    g, v = pair >> _SHIFT, pair & np.int64((1 << 32) - 1)
    cg = comp[g]
    order = np.lexsort((g, v, cg))
    g, v, cg, n = g[order], v[order], cg[order], n[order]
    seg_key = (cg << _SHIFT) | v
    starts = np.flatnonzero(np.r_[True, seg_key[1:] != seg_key[:-1]])
    lengths = np.diff(np.r_[starts, len(seg_key)])
    hashes = np.add.reduceat(_mix((g << np.int64(20)) ^ n) ^ _mix(g), starts) if len(
        starts) else np.zeros(0, dtype=np.uint64)
    order = np.lexsort((hashes.view(np.int64), lengths, cg[starts]))
    ranked = np.column_stack([cg[starts], lengths, hashes.view(np.int64)])[order]
    new = np.r_[True, (ranked[1:] != ranked[:-1]).any(axis=1)] if len(ranked) else \
        np.zeros(0, dtype=bool)
    group = np.empty(len(starts), dtype=np.int64)
    group[order] = np.cumsum(new) - 1
    # equal hashes are checked pair by pair against the group's first segment (no collision
    # ever counts a value that has no exchange)
    first = np.full(int(group.max()) + 1, len(starts), dtype=np.int64)
    np.minimum.at(first, group, np.arange(len(starts)))
    seg_of = np.repeat(np.arange(len(starts)), lengths)
    rank = np.arange(len(seg_key)) - starts[seg_of]
    rep = starts[first[group[seg_of]]] + rank
    bad = (g[rep] != g) | (n[rep] != n)
    if bad.any():
        wrong = unique_sorted(seg_of[bad])
        group[wrong] = group.max() + 1 + np.arange(len(wrong))
    seg_value = v[starts]
    size = np.bincount(group, weights=counted[seg_value], minlength=int(group.max()) + 1)

    def group_of(component, val):
        at = np.searchsorted(seg_key[starts], (component << _SHIFT) | val)
        return group[np.minimum(at, len(starts) - 1)]

    mine = group_of(home, own)
    # the twins' values: per combined class its distinct values, with their groups
    tv = unique_sorted((combined << _SHIFT) | own)
    t, w = tv >> _SHIFT, tv & np.int64((1 << 32) - 1)
    t_home = np.zeros(int(combined.max()) + 1, dtype=np.int64)
    t_home[combined] = home
    twins = np.bincount(t, weights=counted[w], minlength=len(t_home))
    tg = (t << _SHIFT) | group_of(t_home[t], w)
    tg_keys, tg_count = unique_sorted(tg[counted[w]], counts=True)
    common = np.zeros(persons, dtype=np.int64)
    if len(tg_keys):
        probe = (combined << _SHIFT) | mine
        at = np.minimum(np.searchsorted(tg_keys, probe), len(tg_keys) - 1)
        common = np.where(tg_keys[at] == probe, tg_count[at], 0)
    return (size[mine] + twins[combined] - common).astype(np.int64)


#: the most (combined class, class, value) triples :func:`attacked_candidates` lists per row
#: of the releases (and at least :data:`MIN_TRIPLES`), so its memory stays linear in the
#: rows; beyond it the count-difference attack is not run (the certified count does not
#: need it). Two releases of 1,000,000 rows, 20 values, list 1.06 per row
MAX_TRIPLES_PER_ROW = 8
MIN_TRIPLES = 1_000_000
#: rounds of bound propagation at most (each round tightens or the fixpoint is reached)
MAX_ROUNDS = 200


def attacked_candidates(*, person: np.ndarray, cls: np.ndarray, value: np.ndarray,
                        combined: np.ndarray, counted: np.ndarray) -> np.ndarray | None:
    """Per person the values the **count-difference attack** leaves them (from above: a value
    it removes is impossible; arguments as :func:`certified_candidates`), or None when the
    (combined class, class, value) triples it lists exceed :data:`MAX_TRIPLES_PER_ROW` per
    row (a class of many distinct values that many combined classes share).

    The unknowns are, per combined class T and value v, how many of T's persons hold v
    (0 .. |T|). Each class's published count of v is the sum over the combined classes in
    it, and each T's counts add up to its persons; bounds are propagated through both
    until nothing changes (a person who left a class whose count of hiv dropped by the
    number who left gets hiv as the only value). A value whose upper bound is 0 is gone.

    >>> # release 0: class 0 holds persons 0-2 (a, a, b); release 1: class 1 holds 1-2 (a, b)
    >>> attacked_candidates(person=np.array([0, 1, 2, 1, 2]), cls=np.array([0, 0, 0, 1, 1]),
    ...                     value=np.array([0, 0, 1, 0, 1]), combined=np.array([0, 1, 1]),
    ...                     counted=np.array([True, True])).tolist()
    [1, 2, 2]
    """
    person, cls, value, combined, counted = _arrays(person, cls, value, combined, counted)
    persons = len(combined)
    if not len(person):
        return np.zeros(persons, dtype=np.int64)
    low32 = np.int64((1 << 32) - 1)
    # the published counts N(c, v)
    cv, n_cv = unique_sorted((cls << _SHIFT) | value, counts=True)
    cv_cls = cv >> _SHIFT
    first = np.searchsorted(cv_cls, np.arange(int(cls.max()) + 2))
    # each combined class's classes, and its size
    size_t = np.bincount(combined)
    tc = unique_sorted((combined[person] << _SHIFT) | cls)
    t_of, c_of = tc >> _SHIFT, tc & low32
    classes_of_t = np.bincount(t_of, minlength=len(size_t))
    span = first[c_of + 1] - first[c_of]
    if int(span.sum()) > max(MAX_TRIPLES_PER_ROW * len(person), MIN_TRIPLES):
        return None
    # every (T, c, v) triple: the values of each class of T
    rep = np.repeat(np.arange(len(tc)), span)
    within = np.arange(int(span.sum())) - np.repeat(np.cumsum(span) - span, span)
    con = np.repeat(first[c_of], span) + within  # the (c, v) constraint of the triple
    tv_key = (t_of[rep] << _SHIFT) | (cv[con] & low32)
    pairs, pair_of, seen = unique_sorted(tv_key, inverse=True, counts=True)
    keep = seen == classes_of_t[pairs >> _SHIFT]  # v shown by every class of T
    renumber = np.cumsum(keep) - 1
    live = keep[pair_of]
    inc_pair, inc_con = renumber[pair_of[live]], con[live]
    pairs = pairs[keep]
    p_t, p_v = pairs >> _SHIFT, pairs & low32
    by_pair = np.argsort(inc_pair, kind="stable")  # every pair has an incidence: reduceat
    inc_pair, inc_con = inc_pair[by_pair], inc_con[by_pair]
    heads = np.flatnonzero(np.r_[True, inc_pair[1:] != inc_pair[:-1]])
    n_inc = n_cv[inc_con]
    hi = np.minimum(size_t[p_t], np.minimum.reduceat(n_inc, heads))
    lo = np.zeros(len(pairs), dtype=np.int64)
    for _ in range(MAX_ROUNDS):
        old_lo, old_hi = lo, hi
        lo_i, hi_i = lo[inc_pair], hi[inc_pair]
        s_lo = np.bincount(inc_con, weights=lo_i, minlength=len(cv)).astype(np.int64)
        s_hi = np.bincount(inc_con, weights=hi_i, minlength=len(cv)).astype(np.int64)
        hi = np.minimum(hi, np.minimum.reduceat(n_inc - (s_lo[inc_con] - lo_i), heads))
        lo = np.maximum(lo, np.maximum.reduceat(n_inc - (s_hi[inc_con] - hi_i), heads))
        t_lo = np.bincount(p_t, weights=lo, minlength=len(size_t)).astype(np.int64)
        t_hi = np.bincount(p_t, weights=hi, minlength=len(size_t)).astype(np.int64)
        hi = np.minimum(hi, size_t[p_t] - (t_lo[p_t] - lo))
        lo = np.maximum(lo, size_t[p_t] - (t_hi[p_t] - hi))
        if (lo == old_lo).all() and (hi == old_hi).all():
            break
    alive = (hi >= 1) & counted[p_v]
    per_t = np.bincount(p_t[alive], minlength=len(size_t))
    return per_t[combined]
