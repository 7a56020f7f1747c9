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
    sample = [replace(c, rows=c.rows[:n]) for c in columns]
    population = [c.rows[n:] for c in columns]
    return sample, population


def population_cells(columns: list, population_rows: list, levels, *, labels: bool = False
                     ) -> dict:
    """The population's cells at the chosen ``levels`` (as the sample's are published)."""
    return {col.name: replace(col, rows=rows).cells(int(levels[c]), labels=labels)
            for c, (col, rows) in enumerate(zip(columns, population_rows))}


def published_table_ok(model, classes, published: np.ndarray) -> bool:
    """The model's table-level condition on the ``published`` classes of a
    :class:`~pdanon.distributions.ClassCounts`."""
    return bool(model.table_ok(classes.select(published)))
