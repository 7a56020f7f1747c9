"""A population table alongside the sample in the optimal lattice search (k-map and
δ-presence against a population; see :mod:`pdanon.models.population`).

Full-domain generalization recodes every value of a column the same way, so the population
can be generalized exactly as the sample: each quasi-identifier is encoded over the sample's
rows followed by the population's, and bound to its hierarchy once, so a node's codes cover
both. The search then groups the two together: a class of a node has its sample rows (the
class size) and its population rows (``ClassCounts.population``); a population cell with no
sample row is a class of size 0, which matters to δ-presence and publishes nothing. Values
only the population holds are part of the hierarchy's domain (ARX does the same: the
population is the data, the sample its research subset), so published sets list them too:
an attacker who generalizes the population must find every population member in some
published cell.

Example
-------
>>> import pandas as pd
>>> from pdanon.encode import encode_table
>>> from pdanon.roles import resolve_roles
>>> sample = pd.DataFrame({"zip": ["a", "b"]})
>>> enc = encode_table(sample, resolve_roles(sample))
>>> joint = joint_encoded(enc, sample, pd.DataFrame({"zip": ["a", "c", "b"]}))
>>> joint.n, joint.columns[0].categories.tolist()
(5, ['a', 'b', 'c'])
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.encode import EncodedTable, encode_column


def joint_encoded(enc, frame: pd.DataFrame, population: pd.DataFrame) -> EncodedTable:
    """The quasi-identifiers of ``frame`` then of ``population``, encoded with the kinds of
    ``enc`` (the sample's encoding). A categorical column keeps the sample's categories (and
    their order); a population value outside them is refused."""
    if frame is None:
        raise InvalidInputError("a population model needs the original frame (frame=)")
    cols = []
    for col in enc.columns:
        name = col.name
        own, other = frame[name], population[name]
        if isinstance(own.dtype, pd.CategoricalDtype):
            cast = other.astype(own.dtype)
            lost = cast.isna().to_numpy() & ~other.isna().to_numpy()
            if lost.any():
                raise InvalidInputError(
                    f"population column {name!r} holds values outside the sample's categories "
                    f"(e.g. {other[lost].iloc[0]!r}); add them to the categories of the "
                    f"sample's column")
            other = cast
        joint = pd.concat([own, other], ignore_index=True)
        cols.append(encode_column(joint.rename(name), col.kind))
    return EncodedTable(cols, {}, len(frame) + len(population))


def split_columns(columns: list, n: int):
    """Bound columns over sample + population rows -> (the sample's columns, per column the
    population rows' value codes)."""
    # the population is public: cells show every value under a node (the population's too)
    sample = [replace(c, rows=c.rows[:n], public_values=True) for c in columns]
    population = [c.rows[n:] for c in columns]
    return sample, population


def population_cells(columns: list, population_rows: list, levels, *, labels: bool = False
                     ) -> dict:
    """The population's cells at the chosen ``levels`` (as the sample's are published)."""
    return {col.name: replace(col, rows=rows).cells(int(levels[c]), labels=labels)
            for c, (col, rows) in enumerate(zip(columns, population_rows))}


# --------------------------------------------------------------------------- local recoding


def local_population(enc, model, frame, method: str, algorithm: str):
    """``(the sample's columns encoded with the population, the population's codes per
    column, the population table)`` for a local recoder (Mondrian, GroupJoin) asked for a
    population model, or None for another model. Only ``method="generalize"`` and
    ``"suppress"`` publish cells an attacker can match population rows against in advance
    of the partition; ``"aggregate"`` (means, medians) is refused."""
    from pdanon.models.population import population_table

    if not model.requirements().population:
        return None
    if method not in ("generalize", "suppress"):
        raise InvalidInputError(
            f"algorithm={algorithm!r} enforces {model!r} with method='generalize' or "
            f"'suppress' (an attacker matches population rows against published ranges, sets "
            f"and values); got method={method!r}")
    population = population_table(model)
    n = enc.n
    sample, pop = [], []
    for col in joint_encoded(enc, frame, population).columns:
        cut = {f: (None if getattr(col, f) is None else getattr(col, f)[:n])
               for f in ("codes", "lo", "hi", "na")}
        if cut["na"] is not None and not cut["na"].any():
            cut["na"] = None
        sample.append(replace(col, **cut))
        pop.append(np.asarray(col.codes[n:], dtype=np.int64))
    return sample, pop, population


class RegionPopulation:
    """The population rows Mondrian carries through its cuts (k-map, δ-presence against a
    table with ``method="generalize"``).

    Every open partition (a region: a box of codes, or of category sets) holds the
    population rows that its published cells may still contain; a class's population rows are
    those inside its published cells: per range column ``[min, max]`` of its members' codes,
    per unordered column the set of its members' codes, and only the missing value in a column
    where a member is missing (the recoder publishes missing there). The codes are those of
    the sample and the population encoded together (value order), so a range of codes is the
    range of values. A child's cells lie inside its region, regions of one level are disjoint,
    so every population row is inside at most one class; a row outside both children's cells
    is dropped (no later class can contain it).

    ``codes``: per column the sample rows' codes; ``pop``: per column the population rows'
    codes; ``sets``: per column True for unordered ones.
    """

    def __init__(self, columns: list, pop: list):
        self.codes = [np.asarray(c.codes, dtype=np.int64) for c in columns]
        self.sets = [c.kind == "unordered" for c in columns]
        self.miss = [len(c.categories) for c in columns]  # the joint missing code
        self.width = [len(c.categories) + 1 for c in columns]
        self.pop = pop
        self.total = len(pop[0]) if pop else 0
        self.live = np.arange(self.total, dtype=np.int64)  # population rows, grouped by ``sid``
        self.sid = np.zeros(self.total, dtype=np.int64)

    def _pairs(self, halves: np.ndarray, rows: np.ndarray, parents: np.ndarray):
        """(half, live position, inside) for every half and every population row of its
        parent partition (``parents``: the open partition of every row of ``rows``)."""
        h = int(halves.max()) + 1 if len(halves) else 0
        par = np.zeros(h, dtype=np.int64)
        par[halves] = parents
        nseg = int(max(parents.max(initial=-1), self.sid.max(initial=-1))) + 1
        psize = np.bincount(self.sid, minlength=nseg)
        pstart = np.cumsum(psize) - psize
        size = psize[par]
        which = np.repeat(np.arange(h, dtype=np.int64), size)
        at = np.repeat(pstart[par] - (np.cumsum(size) - size), size) + np.arange(int(size.sum()))
        inside = np.ones(len(at), dtype=bool)
        prow = self.live[at]
        for codes, pop, is_set, miss, width in zip(self.codes, self.pop, self.sets, self.miss,
                                                   self.width):
            key = codes[rows]
            blank = np.bincount(halves, weights=key == miss, minlength=h) > 0
            value = pop[prow]
            if is_set:
                members = np.unique(halves * width + key)
                ok = np.isin(which * width + value, members)
            else:
                lo = np.full(h, np.iinfo(np.int64).max)
                hi = np.full(h, -1, dtype=np.int64)
                np.minimum.at(lo, halves, key)
                np.maximum.at(hi, halves, key)
                ok = (lo[which] <= value) & (value <= hi[which])
            inside &= np.where(blank[which], value == miss, ok)
        return which, at, inside

    def counts(self, halves: np.ndarray, rows: np.ndarray, parents: np.ndarray) -> np.ndarray:
        """Population rows inside the cells of every half (labels ``halves`` over the sample
        rows ``rows``)."""
        which, _, inside = self._pairs(halves, rows, parents)
        h = int(halves.max()) + 1 if len(halves) else 0
        return np.bincount(which[inside], minlength=h)

    def groups_ok(self, model, halves, rows, parents, context) -> np.ndarray:
        """``model.groups_ok`` on the halves, with their population rows."""
        from pdanon.distributions import ClassCounts

        classes = ClassCounts.from_labels(halves, context)
        classes.population = self.counts(halves, rows, parents)
        classes.population_rows = self.total
        # a class whose suppressed cells (a member missing) hide its members from the
        # population it would be matched against is refused: the population must contain it
        return np.asarray(model.classes_ok(classes), dtype=bool) & (
            classes.population >= classes.sizes)

    def route(self, halves, rows, parents) -> None:
        """Move every live population row into the half (the new open partition ``halves``)
        whose cells contain it; drop the others (and those of partitions not in
        ``parents``)."""
        which, at, inside = self._pairs(halves, rows, parents)
        order = np.argsort(which[inside], kind="stable")
        self.live = self.live[at[inside][order]]
        self.sid = which[inside][order]

    def keep(self, partitions: np.ndarray) -> None:
        """Keep the population rows of the open partitions marked in ``partitions`` (a mask
        over the current numbering), renumbered ``0..`` in order."""
        new_id = np.cumsum(partitions) - 1
        on = partitions[self.sid]
        self.live, self.sid = self.live[on], new_id[self.sid[on]]


class GroupPopulation:
    """Population rows inside the cells a group of sample rows would publish, for an
    agglomerative partitioner (GroupJoin) asked for k-map or δ-presence against a table.

    A group's cells: ``method="generalize"``: per range column ``[min, max]`` of its members'
    codes, per unordered column the set of its members' codes; ``"suppress"``: the value when
    every member has it, else missing; in both, missing when a member is missing (the recoders'
    rule, :mod:`pdanon.recode`). Codes are those of the sample and the population encoded
    together (value order). The population is reduced to its distinct combinations (with their
    row counts); every group is compared with all of them, in chunks.
    """

    def __init__(self, columns: list, pop: list, method: str, budget: int = 1 << 22):
        from pdanon._groups import combine_codes

        self.codes = np.stack([np.asarray(c.codes, dtype=np.int64) for c in columns], axis=1)
        self.sets = [c.kind == "unordered" for c in columns]
        self.miss = np.array([len(c.categories) for c in columns], dtype=np.int64)
        self.suppress = method == "suppress"
        self.total = len(pop[0]) if pop else 0
        combos = combine_codes(list(pop), self.total) if self.total else np.zeros(0, np.int64)
        self.weights = np.bincount(combos) if self.total else np.zeros(0, np.int64)
        first = np.full(len(self.weights), self.total, dtype=np.int64)
        np.minimum.at(first, combos, np.arange(self.total, dtype=np.int64))
        self.values = np.stack([p[first] for p in pop], axis=1) if self.total else None
        self.step = max(1, budget // max(len(self.weights), 1))

    def _singletons(self, rows: np.ndarray) -> np.ndarray:
        """Population rows equal to each of ``rows`` (groups of one row)."""
        from pdanon._groups import combine_codes

        joint = np.concatenate([self.codes[rows], self.values])
        labels = combine_codes([joint[:, j] for j in range(joint.shape[1])], len(joint))
        m = len(rows)
        per = np.bincount(labels[m:], weights=self.weights,
                          minlength=int(labels.max()) + 1 if len(labels) else 0)
        return np.rint(per[labels[:m]]).astype(np.int64)

    def counts(self, members: list) -> np.ndarray:
        """Population rows inside the cells of every group (``members``: its sample rows)."""
        if not members or self.values is None:
            return np.zeros(len(members), dtype=np.int64)
        sizes = np.array([len(m) for m in members])
        if (sizes == 1).all():
            return self._singletons(np.array([m[0] for m in members], dtype=np.int64))
        out = np.zeros(len(members), dtype=np.int64)
        for g0 in range(0, len(members), self.step):
            part = members[g0:g0 + self.step]
            out[g0:g0 + len(part)] = self._chunk(part)
        return out

    def _chunk(self, members: list) -> np.ndarray:
        g = len(members)
        rows = np.concatenate(members)
        seg = np.repeat(np.arange(g), [len(m) for m in members])
        mask = np.ones((g, len(self.weights)), dtype=bool)
        for j, is_set in enumerate(self.sets):
            key, value, miss = self.codes[rows, j], self.values[:, j], self.miss[j]
            lo = np.full(g, np.iinfo(np.int64).max)
            hi = np.full(g, -1, dtype=np.int64)
            np.minimum.at(lo, seg, key)
            np.maximum.at(hi, seg, key)
            blank = (np.bincount(seg, weights=key == miss, minlength=g) > 0)
            if self.suppress:
                blank |= lo != hi
            if is_set and not self.suppress:
                width = int(max(self.codes[:, j].max(), value.max(initial=0), miss)) + 1
                member = np.zeros((g, width), dtype=bool)
                member[seg, key] = True
                inside = member[:, value]
            else:
                inside = (lo[:, None] <= value[None, :]) & (value[None, :] <= hi[:, None])
            mask &= np.where(blank[:, None], (value == miss)[None, :], inside)
        return mask.astype(np.int64) @ self.weights
