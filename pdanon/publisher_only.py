"""Facts about a release that only its publisher may see, kept beside ``info`` but never
written with the release.

``df.attrs`` travel with a frame, and pandas writes them as JSON into every Parquet file
(``PANDAS_ATTRS``). Most of what ``info`` holds is safe to publish (counts, parameters, the
levels reached); a few figures are computed against the original table in a way that can give
a hidden value back — for instance the information loss of ``algorithm="optimal"``, which
divides each range's width by the original column's span, so a suppressed outlier that widened
that span can be solved for. Such figures go into ``info["publisher_only"]``, a
:class:`PublisherOnly`: it reads like a mapping inside the process that made the release
(``info["publisher_only"]["objective_value"]``), survives copies (pandas propagating attrs,
``copy.deepcopy``) and serializes as ``{}`` — in Parquet, JSON and pickles.

Example
-------
>>> import json
>>> facts = PublisherOnly({"objective_value": 0.25})
>>> facts["objective_value"], json.dumps({"publisher_only": facts})
(0.25, '{"publisher_only": {}}')
"""

from __future__ import annotations

__all__ = ["PublisherOnly"]


class PublisherOnly(dict):
    """Read-only facts withheld from every file (an empty ``dict`` to any serializer).

    Why a ``dict`` subclass that stays empty: ``json.dumps`` and pandas' Parquet writer see
    ``{}``; pickling withholds the facts too (:meth:`__reduce__`). Inside the process,
    ``facts[key]``, ``key in facts``, :meth:`get` and :meth:`facts` read them.
    """

    __slots__ = ("_facts",)

    def __init__(self, facts=None):
        super().__init__()
        object.__setattr__(self, "_facts", dict(facts or {}))

    def __getitem__(self, key):
        try:
            return self._facts[key]
        except KeyError:
            raise KeyError(
                f"{key!r} is not among the publisher-only facts {sorted(self._facts)} (a "
                "frame read back from a file holds none: they are never written)") from None

    def get(self, key, default=None):
        return self._facts.get(key, default)

    def __contains__(self, key) -> bool:
        return key in self._facts

    def facts(self) -> dict:
        """A plain copy of the facts (do not publish it)."""
        return dict(self._facts)

    def __repr__(self) -> str:
        names = ", ".join(map(str, self._facts)) or "none"
        return f"PublisherOnly(<withheld from files: {names}>)"

    __str__ = __repr__

    def __copy__(self):
        return PublisherOnly(self._facts)

    def __deepcopy__(self, memo):
        return PublisherOnly(self._facts)

    def __reduce__(self):
        return (PublisherOnly, ())

    def _readonly(self, *args, **kwargs):
        raise TypeError("PublisherOnly is read-only")

    __setitem__ = __delitem__ = update = setdefault = pop = popitem = clear = _readonly
