"""``cp2025.utility.GeneralizationRange``: pdanon's :class:`~pdanon.dtype.GeneralizationRange`
(same constructor ``GeneralizationRange(mn=None, mx=None, column_type='ordered',
column_values=None)``) and the two joins Datafly uses.

Example
-------
>>> join_ordered(1, GeneralizationRange(3, 5, "real"), "real")
[1, 5]
>>> join_unordered("a", "b")
{a, b}
"""

from __future__ import annotations

from pdanon.dtype import GeneralizationRange

__all__ = ["GeneralizationRange", "join_ordered", "join_unordered"]


def _members(v) -> set:
    if isinstance(v, GeneralizationRange):
        return set(v.values_set) if v.kind == "unordered" else {v.min, v.max}
    return {v}


def join_unordered(lhs, rhs):
    """The set holding the values (or sets) ``lhs`` and ``rhs``; ``lhs`` when they are equal."""
    if lhs == rhs:
        return lhs
    return GeneralizationRange(None, None, "unordered", sorted(_members(lhs) | _members(rhs),
                                                                 key=repr))


def join_ordered(lhs, rhs, column_type):
    """The range from the smaller to the larger end of ``lhs`` and ``rhs`` (values or ranges);
    ``lhs`` when they are equal."""
    if lhs == rhs:
        return lhs
    lo = [v.min if isinstance(v, GeneralizationRange) else v for v in (lhs, rhs)]
    hi = [v.max if isinstance(v, GeneralizationRange) else v for v in (lhs, rhs)]
    return GeneralizationRange(min(lo), max(hi), column_type, None)
