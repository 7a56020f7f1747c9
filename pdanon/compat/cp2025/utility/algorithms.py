"""``cp2025.utility.algorithms``: recode given groups of rows by suppression, generalization or
aggregation (pdanon's recoders, :mod:`pdanon.recode`), and :func:`mode`.

``groups`` are lists of row positions covering every row once; ``quasi_identifiers`` a 2-D
array. Generalized ranges always contain their cells (``[min, max]`` of the group).

Example
-------
>>> import numpy as np
>>> qi = np.array([[1, "a"], [3, "a"], [7, "b"]], dtype=object)
>>> generalization([[0, 1], [2]], qi, ["real", "unordered"])
(array([[[1, 3], 'a'],
       [[1, 3], 'a'],
       [7, 'b']], dtype=object), 2)
>>> suppression([[0, 1], [2]], qi)[0]
2
"""

from __future__ import annotations

import numpy as np

from pdanon.algorithms._base import recode_groups
from pdanon.compat.cp2025.utility.GeneralizationRange import GeneralizationRange  # noqa: F401
from pdanon.compat.cp2025.utility.statistics import mode

__all__ = ["aggregation", "generalization", "mode", "suppression"]


def suppression(groups, quasi_identifiers):
    """Suppress every column that is not constant within a group. Returns
    ``(suppressed cells, table)`` (this order, as the reference)."""
    q = np.asarray(quasi_identifiers, dtype=object)
    table, count = recode_groups(groups, q, ["unordered"] * q.shape[1], "suppress")
    return count, table


def generalization(groups, quasi_identifiers, quasi_identifiers_types):
    """Generalize every non-constant column of a group to ``[min, max]`` / the set of its
    values. Returns ``(table, generalized cells)``."""
    q = np.asarray(quasi_identifiers, dtype=object)
    return recode_groups(groups, q, list(quasi_identifiers_types), "generalize")


def aggregation(groups, quasi_identifiers, quasi_identifiers_types):
    """Replace a group's cells by its mean (real), the element at position len // 2 of its
    sorted values (ordered) or its mode (unordered; ties to the value met first in the
    group). Returns ``(table, replaced cells)``."""
    q = np.asarray(quasi_identifiers, dtype=object)
    return recode_groups(groups, q, list(quasi_identifiers_types), "aggregate")
