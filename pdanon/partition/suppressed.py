"""The suppressed rows are a class too: which rows a suppression budget must take.

Changes: **partitioning** (of partitioners with a suppression budget: ``datafly``,
``optimal``, and Dask's optimal path). They suppress the rows of classes that violate the
privacy model by publishing every quasi-identifier of those rows as missing.

A suppressed row is still in the release: its sensitive and insensitive cells are published,
and all suppressed rows share the same (blank) quasi-identifier cells, so they form **one
equivalence class** -- together with any row whose published cells are blank anyway (a row
missing every quasi-identifier in the input, or generalized to a top node that holds the
missing value). That is how every measure of pdanon reads a release (``missing="value"``:
a blank cell is a value of its own), and it is what an attacker sees: someone who knows that a
person is in the table, and finds no published class containing the person's
quasi-identifiers, knows the person is among the blank rows. So that class must meet the
privacy model like any other (a model read against a population sees it match every
population row: a row that publishes nothing could be anyone) (ARX and Datafly leave it out of the check: one suppressed row
is then that person, sensitive value included).

:func:`plan` decides, from the classes' counts, which classes to suppress: the violating
ones, and -- when their union with the blank class still violates the model -- the smallest
satisfying classes, as few rows as possible, until it does not. A partitioner compares the
planned rows with its budget; the engine then verifies every published class, the blank one
included.

Example
-------
>>> from pdanon.distributions import ClassCounts
>>> from pdanon.models import KAnonymity
>>> classes = ClassCounts([1, 6, 5, 9])          # one row alone violates k = 5
>>> ok = classes.sizes >= 5
>>> plan(classes, ok, KAnonymity(5)).tolist()   # it takes the smallest class with it
[True, False, True, False]
>>> int(classes.sizes[plan(classes, ok, KAnonymity(5))].sum())
6
"""

from __future__ import annotations

import numpy as np

__all__ = ["blank_class", "plan", "published_classes"]


def blank_class(codes: list, blank_codes: list) -> int | None:
    """The index of the class whose every column holds the node (or value) published as a
    blank cell, or None. ``codes[c]``: per class its code in column ``c``; ``blank_codes[c]``:
    the code of column ``c`` published blank (``None`` or -1: the column has none, so no
    class is published blank).

    Example
    -------
    >>> blank_class([np.array([0, 2, 2]), np.array([1, 0, 3])], [2, 3])
    2
    """
    if not codes:
        return None
    hit = None
    for col, b in zip(codes, blank_codes):
        if b is None or b < 0:
            return None
        m = np.asarray(col) == b
        hit = m if hit is None else hit & m
    found = np.flatnonzero(hit)
    return int(found[0]) if len(found) else None


def _population_of(classes, members: np.ndarray) -> int | None:
    """The population rows the union of ``members`` (the suppressed rows' class) matches: a
    row that publishes no quasi-identifier could be anyone, so every population row."""
    if classes.population is None:
        return None
    return classes.population_rows if classes.population_rows is not None else int(
        classes.population.sum())


def _union_ok(classes, members: np.ndarray, model) -> bool:
    """Does the union of the classes marked by ``members`` meet ``model``?"""
    mapping = np.where(members, 0, 1)
    population = None
    if classes.population is not None:
        population = [_population_of(classes, members),
                      int(classes.population[~members].sum())]
    merged = classes.merged(mapping, 2, population=population)
    return bool(np.asarray(model.classes_ok(merged), dtype=bool)[0])


def _dense_counts(classes, j: int, rows: np.ndarray) -> np.ndarray:
    """The value counts of sensitive column ``j`` of the classes ``rows``, one dense row each."""
    p = classes.pairs(j)
    m = classes.columns[j].m
    where = np.full(classes.groups, -1, dtype=np.int64)
    where[rows] = np.arange(len(rows))
    on = where[p.cls] >= 0
    out = np.zeros((len(rows), m), dtype=np.int64)
    np.add.at(out, (where[p.cls[on]], p.val[on]), p.count[on])
    return out


def _shortest_prefix(classes, members: np.ndarray, candidates: np.ndarray, model):
    """The smallest ``m`` such that the union of ``members`` and ``candidates[:m]`` meets
    ``model``, or None. All prefixes of a chunk are checked at once: their value counts are
    cumulative sums of the candidates' counts (dense rows), one class per prefix."""
    from pdanon.distributions import ClassCounts

    base_rows = np.flatnonzero(members)
    widths = [max(col.m, 1) for col in classes.columns]
    base = [_dense_counts(classes, j, base_rows).sum(axis=0) for j in range(len(widths))]
    base_size = int(classes.sizes[members].sum())
    pop_total = classes.population_rows

    start, chunk = 0, 1
    while start < len(candidates):
        # a chunk of prefixes costs chunk x values per sensitive column
        chunk = max(1, min(chunk, 4_000_000 // max(max(widths, default=1), 1)))
        rows = candidates[start:start + chunk]
        sizes = base_size + np.cumsum(classes.sizes[rows])
        counts = []
        for j in range(len(widths)):
            dense = np.cumsum(_dense_counts(classes, j, rows), axis=0) + base[j]
            counts.append(dense)
            base[j] = dense[-1]  # the next chunk's prefixes start from this one's last
        base_size = int(sizes[-1])
        population = None
        if classes.population is not None:  # the suppressed rows' class: every population row
            population = np.full(len(rows), _population_of(classes, members), dtype=np.int64)
        prefixes = ClassCounts(sizes, classes.columns, counts, population=population,
                               population_rows=pop_total)
        ok = np.flatnonzero(np.asarray(model.classes_ok(prefixes), dtype=bool))
        if len(ok):
            return start + int(ok[0]) + 1
        start += len(rows)
        chunk *= 2
    return None


def plan(classes, ok, model, *, blank: int | None = None, first=None) -> np.ndarray:
    """Boolean per class: suppress it? The violating classes (``~ok``) and, when their
    union with the ``blank`` class (published blank anyway; ``None``: there is none) violates
    ``model``, the satisfying classes in order of size (ties: the one whose first row comes
    first; ``first``: per class its first row, default class order) up to the shortest
    prefix whose union meets the model. If even every class together violates the model,
    every class is marked (the caller's budget then refuses). With nothing violating,
    nothing is suppressed.

    For k-anonymity and distinct l-diversity the smallest satisfying class is always enough
    (it has k rows and l values on its own); for models that merging can break (t-closeness,
    entropy l-diversity, ...) longer prefixes may be needed: they are checked a chunk at a
    time, vectorized.

    Example
    -------
    >>> from pdanon.distributions import ClassCounts
    >>> from pdanon.models import KAnonymity
    >>> classes = ClassCounts([2, 3, 7])           # the blank class (2 rows) joins the 3
    >>> plan(classes, np.array([False, False, True]), KAnonymity(5), blank=0).tolist()
    [True, True, False]
    """
    ok = np.asarray(ok, dtype=bool)
    sizes = classes.sizes
    bad = ~ok & (sizes > 0)
    if not bad.any():
        return bad
    members = bad.copy()
    if blank is not None:
        members[blank] = True
    if _union_ok(classes, members, model):
        return bad
    candidates = np.flatnonzero(ok & ~members & (sizes > 0))
    tie = candidates if first is None else np.asarray(first)[candidates]
    candidates = candidates[np.lexsort((tie, sizes[candidates]))]
    m = _shortest_prefix(classes, members, candidates, model)
    if m is None:
        return bad | ok & (sizes > 0)
    chosen = bad.copy()
    chosen[candidates[:m]] = True
    return chosen


def published_classes(classes, bad, blank: int | None = None):
    """The classes a release publishes when the classes marked ``bad`` are suppressed: those
    left that hold rows, and the suppressed rows with the ``blank`` class as one class (when
    there is any such row), for a model's table-level condition.

    Example
    -------
    >>> from pdanon.distributions import ClassCounts
    >>> published_classes(ClassCounts([1, 6, 2, 0]), np.array([True, False, True, False])
    ...                   ).sizes.tolist()
    [6, 3]
    """
    sizes = classes.sizes
    members = np.asarray(bad, dtype=bool) & (sizes > 0)
    if blank is not None:
        members[blank] = True
    keep = ~members & (sizes > 0)
    mapping = np.cumsum(keep) - 1
    groups = int(keep.sum())
    if members.any() and sizes[members].sum() > 0:
        mapping = np.where(members, groups, mapping)
        groups += 1
    mapping = np.where(members | keep, mapping, groups)  # empty classes: dropped below
    population = None
    if classes.population is not None:
        population = np.bincount(mapping, weights=classes.population, minlength=groups + 1)
        if members.any() and sizes[members].sum() > 0:
            population[groups - 1] = _population_of(classes, members)
    merged = classes.merged(mapping, groups + 1, population=population)
    return merged.select(np.arange(groups + 1) < groups)
