"""Partitioners: which rows form a group.

A partitioner takes an :class:`~pdanon.encode.EncodedTable` and a privacy model and returns a
:class:`Partition` (an int group label per row, plus the order in which each group was built).
The recoders in :mod:`pdanon.recode` then turn groups into output cells. A partitioner that
recodes globally (e.g. Datafly's per-value merging) may instead return a
:class:`~pdanon.recode.Recoded`.

Registered partitioners (``algorithm=`` in the accessor) live in :data:`PARTITIONERS`; each
declares the keyword options a user may pass (:func:`register`), and the engine refuses any
other before the partitioner runs. Every partitioner is called as
``fn(enc, model, *, method, frame, context, **declared_options)``. Helpers they share are in
:mod:`pdanon.partition.common`; ``algorithm="auto"`` is a chooser
(:func:`pdanon.partition.auto.choose`), not a partitioner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

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
    #: facts the engine copies into ``info`` (e.g. GroupJoin's total loss)
    info: dict = field(default_factory=dict)

    @property
    def groups(self) -> int:
        return int(self.labels.max()) + 1 if len(self.labels) else 0


@dataclass(frozen=True)
class Partitioner:
    """A registered partitioner: its function and the options it declares."""

    name: str
    function: Callable
    options: tuple = ()
    hint: str = ""
    #: what the partitioner can do beyond per-class models (``Requirements`` flags it
    #: honors): ``"population"`` (fills ``ClassCounts.population``), ``"table"`` (honors
    #: ``PrivacyModel.table_ok``)
    supports: tuple = ()

    def check_model(self, model) -> None:
        """Refuse a model that needs what the partitioner cannot do (a population table, a
        table-level condition), naming the partitioners that can."""
        from pdanon._errors import InvalidInputError

        req = model.requirements()
        needs = [flag for flag in ("population", "table", "mechanism") if getattr(req, flag)]
        missing = [flag for flag in needs if flag not in self.supports]
        if not missing:
            return
        able = sorted(p.name for p in PARTITIONERS.values()
                      if all(flag in p.supports for flag in needs))
        what = {"population": "the population rows of every class (a population table)",
                "table": "a condition on the whole published table",
                "mechanism": "a randomized mechanism (a sample and a private search), not a "
                             "property of the published table"}
        raise InvalidInputError(
            f"algorithm={self.name!r} cannot enforce {model!r}: the model needs "
            f"{' and '.join(what[f] for f in missing)}, which {self.name} does not "
            f"compute; use algorithm="
            f"{' or '.join(repr(a) for a in able) or 'optimal'} (with hierarchies=)"
            + ("; or df.anon.dp_anonymize(epsilon, delta, hierarchies=...)"
               if "mechanism" in missing else ""))

    def check_options(self, options: dict) -> None:
        """Refuse options the partitioner does not declare (a zero ``max_suppressed_rows``
        asks nothing of anyone and is always accepted)."""
        from pdanon._errors import InvalidInputError

        given = [k for k, v in options.items()
                 if not (k == "max_suppressed_rows" and not v)]
        extra = sorted(k for k in given if k not in self.options)
        if extra:
            takes = (f"it takes {', '.join(o + '=' for o in self.options)}" if self.options
                     else "it takes no options")
            raise InvalidInputError(
                f"algorithm={self.name!r} does not take option(s) {extra}; {takes}"
                + (f" ({self.hint})" if self.hint else ""))

    def __call__(self, enc, model, **kwargs):
        return self.function(enc, model, **kwargs)


PARTITIONERS: dict = {}


def register(name: str, *, options=(), hint: str = "", supports=()):
    """Decorator: make a partitioner reachable as ``algorithm=name``, declaring the keyword
    options (besides ``method``, ``frame`` and ``context``) a user may pass to it and what it
    ``supports`` beyond per-class models (see :attr:`Partitioner.supports`)."""

    def deco(fn):
        PARTITIONERS[name] = Partitioner(name, fn, tuple(options), hint, tuple(supports))
        return fn

    return deco
