"""Partitioners: which rows form a group.

A partitioner takes an :class:`~pdanon._encode.EncodedTable` and a privacy model and returns a
:class:`Partition` (an int group label per row, plus the order in which each group was built).
The recoders in :mod:`pdanon.recode` then turn groups into output cells. A partitioner that
recodes globally (e.g. Datafly's per-value merging) may instead return a
:class:`~pdanon.recode.Recoded`.

Registered partitioners (``algorithm=`` in the accessor) live in :data:`PARTITIONERS`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Partition:
    """Group label per row (0..groups-1) and, optionally, the rows in group-build order.

    ``order`` lists every row once, groups contiguous, each group's rows in the order the
    algorithm added them (it decides aggregation ties). ``suppressed`` marks rows whose every
    quasi-identifier is to be suppressed (a suppression budget).
    """

    labels: np.ndarray
    order: np.ndarray | None = None
    suppressed: np.ndarray | None = None
    note: str = ""

    @property
    def groups(self) -> int:
        return int(self.labels.max()) + 1 if len(self.labels) else 0


PARTITIONERS: dict = {}


def register(name: str):
    """Decorator: make a partitioner reachable as ``algorithm=name``."""

    def deco(fn):
        PARTITIONERS[name] = fn
        return fn

    return deco
