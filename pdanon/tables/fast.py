"""The fast method of secondary suppression: one deviation at a time.

For each primary cell and direction a deviation found earlier does not cover, one linear
program picks the cheapest deviation (:class:`~pdanon.tables.deviations.Deviations`; cells
already withheld cost nothing), and the cells it moves are withheld. A deviation stays valid
when more cells are withheld, so the pattern protects every primary cell by construction; it is
not minimal. Tables of more than :data:`LOCAL_ABOVE` cells solve each program on a
neighbourhood of the cell first.

>>> import numpy as np
>>> from scipy import sparse
>>> from pdanon.tables.deviations import Deviations
>>> A = sparse.csr_matrix(np.array([[-1.0, -1.0, 1.0]]))  # Total = a + b
>>> x = np.array([2.0, 3.0, 5.0])
>>> from pdanon.tables.deviations import Block
>>> fast(Deviations(A, x, big=10.0), x, [Block(0, 1.0)], np.array([True, False, False])).tolist()
[True, True, False]
"""

from __future__ import annotations

import numpy as np

from pdanon.tables.deviations import Deviations

__all__ = ["LOCAL_ABOVE", "fast"]

#: tables of more cells than this solve the fast method's programs on a neighbourhood first
LOCAL_ABOVE = 5000
#: the neighbourhoods tried first, in order: (siblings per dimension, with every ancestor and
#: its siblings); then the whole table
STAGES = ((8, False), (32, False), (32, True))


def fast(dev: Deviations, w, blocks, fixed):
    """One linear program per primary cell and direction not yet covered: the cheapest
    deviation (cells already withheld cost nothing), its cells withheld. On tables of more
    than :data:`LOCAL_ABOVE` cells the program is first solved on a neighbourhood of the cell
    (8, then 32 siblings per dimension, then 32 with every ancestor and its siblings:
    :data:`STAGES`), then on the whole table. A block's frozen cells (a
    coalition's knowledge) and the deviations' closed cells never move."""
    withheld = fixed.copy()
    for b in blocks:
        p, lvl = b.cell, b.level
        if dev.covers(p, lvl, dev.free(withheld, b)):
            continue
        price = np.where(withheld, 0.0, w)
        can = dev.open(withheld, b)
        moved = None
        for width, deep in STAGES if len(w) > LOCAL_ABOVE else ():
            cells = dev.neighbourhood(p, price, width, deep)
            if cells is None:
                break
            if deep:  # the cells already withheld cost nothing: let the deviation use them
                cells = np.union1d(cells, np.flatnonzero(withheld))
            moved = dev.cheapest(p, lvl, price, cells[can[cells]])
            if moved is not None:
                break
        if moved is None:
            moved = dev.cheapest(p, lvl, price, None if can.all() else np.flatnonzero(can))
        if moved is None:
            return None
        withheld[moved] = True
    return withheld


