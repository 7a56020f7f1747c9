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

Tables that are publisher-only as a whole — the explanation of ``out.anon.explain(df)`` — are
marked by their columns (:data:`EXPLANATION_COLUMNS`), which survive a join where pandas drops
the type and the attrs: pdanon's writers and checks refuse a frame holding them
(:func:`refuse_explanation`, unless ``publisher_only=True``) and pandas' writers warn
(:func:`guard_pandas_writers`, installed by ``import pdanon``).

Example
-------
>>> import json
>>> facts = PublisherOnly({"objective_value": 0.25})
>>> facts["objective_value"], json.dumps({"publisher_only": facts})
(0.25, '{"publisher_only": {}}')
"""

from __future__ import annotations

__all__ = ["ATTRS_KEY", "EXPLANATION_COLUMNS", "PublisherOnly", "explanation_columns", "facts_of",
           "guard_pandas_writers", "guarded_writer", "input_rows", "positions_at",
           "refuse_explanation", "warn_written"]


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


# ----------------------------------------------------------------------------- explanations

#: the columns of ``out.anon.explain(df)`` that say what happened to a row's original cells
#: (which were generalized, aggregated or suppressed, and why): two of them in one frame mark
#: it as holding an explanation, whatever pandas did to its type and attrs on the way
EXPLANATION_COLUMNS = ("generalized", "aggregated", "suppressed", "row_suppressed", "reason")
#: the pandas methods that write a frame (or a column) out
WRITERS = ("to_csv", "to_parquet", "to_json", "to_excel", "to_feather", "to_pickle", "to_orc",
           "to_hdf", "to_sql", "to_stata", "to_xml", "to_clipboard", "to_markdown", "to_latex",
           "to_html", "to_string")
#: writers that also render a frame for display (``repr`` calls ``to_string``): on a plain
#: frame they warn only when given a file (``buf``)
DISPLAY_WRITERS = ("to_html", "to_string")
FOR_PUBLISHER = ("pdanon explanation, for the publisher only: with the release it gives "
                 "original values back")


def explanation_columns(frame) -> list:
    """The columns of ``frame`` that come from an explanation (``out.anon.explain(df)``):
    every column of an :class:`~pdanon.report.explain.Explanation`, and in any other frame (a
    release joined, merged, concatenated or assigned with one: pandas keeps neither the type
    nor the attrs then) the :data:`EXPLANATION_COLUMNS` it holds when it holds two or more.
    A single such column copied under its own name is not recognised.

    Example
    -------
    >>> import pandas as pd
    >>> explanation_columns(pd.DataFrame(columns=["age", "generalized", "reason"]))
    ['generalized', 'reason']
    >>> explanation_columns(pd.DataFrame(columns=["age", "reason"]))
    []
    """
    if getattr(type(frame), "publisher_only_table", False):
        return [str(c) for c in getattr(frame, "columns", [getattr(frame, "name", None)])]
    columns = getattr(frame, "columns", None)
    if columns is None:
        return []
    held = [str(c) for c in columns if isinstance(c, str) and c in EXPLANATION_COLUMNS]
    return held if len(held) >= 2 else []


def refuse_explanation(frame, what: str, *, publisher_only: bool = False) -> None:
    """Raise :class:`~pdanon.PublisherOnlyError` when ``frame`` holds explanation columns
    (:func:`explanation_columns`) and ``publisher_only`` is not set: ``what`` names the
    writer or check that refuses it.

    Example
    -------
    >>> import pandas as pd
    >>> refuse_explanation(pd.DataFrame(columns=["suppressed", "reason"]),
    ...                    "write_csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pdanon._errors.PublisherOnlyError: write_csv refuses a frame holding the explanation ...
    >>> refuse_explanation(pd.DataFrame(columns=["suppressed", "reason"]), "write_csv",
    ...                    publisher_only=True)
    """
    from pdanon._errors import PublisherOnlyError

    held = [] if publisher_only else explanation_columns(frame)
    if held:
        raise PublisherOnlyError(
            f"{what} refuses a frame holding the explanation columns {held} of "
            "out.anon.explain(df): beside the release they give original values back. Drop "
            "them (frame.drop(columns=[...])) before publishing, or pass publisher_only=True "
            "for a file that stays with the original data.")


def warn_written(frame, name: str) -> None:
    """Warn with :class:`~pdanon.PublisherOnlyWarning` that ``frame``, which holds
    explanation columns, is written out by pandas' ``name``."""
    import warnings

    from pdanon._errors import PublisherOnlyWarning, user_stacklevel

    held = explanation_columns(frame)
    warnings.warn(f"{FOR_PUBLISHER}. You are writing it out ({name}; columns {held}): keep "
                  "the file with the original data, never beside the release (drop those "
                  "columns from a release).", PublisherOnlyWarning, stacklevel=user_stacklevel())


def _is_display(name: str, args, kwargs) -> bool:
    return name in DISPLAY_WRITERS and not args and kwargs.get("buf") is None


def guarded_writer(name: str, method):
    """``method`` (pandas' writer ``name``) warning first when its frame or column holds
    explanation columns (:func:`warn_written`); a display writer (``to_string``, ``to_html``)
    without a file warns only for an explanation itself."""

    def write(self, *args, **kwargs):
        table = getattr(type(self), "publisher_only_table", False)
        if (table or not _is_display(name, args, kwargs)) and explanation_columns(self):
            warn_written(self, name)
        return method(self, *args, **kwargs)

    write.__name__ = name
    write.__doc__ = method.__doc__
    write.__wrapped__ = method
    write.pdanon_guard = True
    return write


def guard_pandas_writers() -> None:
    """Make pandas' own writers (:data:`WRITERS`) of a DataFrame warn with
    :class:`~pdanon.PublisherOnlyWarning` when the frame holds explanation columns
    (:func:`explanation_columns`): an :class:`~pdanon.report.explain.Explanation`, or a release
    joined with one (``out.join(ex).to_parquet(...)``). pandas' writers cannot be stopped,
    only made to warn; pdanon's own writers refuse (:func:`refuse_explanation`). Called once
    by ``import pdanon``; the check reads the column names only."""
    import pandas as pd

    for name in WRITERS:
        method = getattr(pd.DataFrame, name, None)
        if method is not None and not getattr(method, "pdanon_guard", False):
            setattr(pd.DataFrame, name, guarded_writer(name, method))


# ------------------------------------------------------------------ the way back to the input

#: where a frame keeps its roles and ``info`` in ``df.attrs`` (also :data:`pdanon.roles.ATTRS_KEY`)
ATTRS_KEY = "pdanon"


def facts_of(frame) -> dict:
    """A plain copy of the publisher-only facts ``frame``'s ``info`` holds (``{}`` for a
    frame read back from a file, or made elsewhere)."""
    info = (frame.attrs.get(ATTRS_KEY) or {}).get("info") or {}
    held = info.get("publisher_only")
    return held.facts() if hasattr(held, "facts") else {}


def positions_at(rows, labels):
    """The positions ``rows`` (a way back: a Series label -> position) holds for ``labels``;
    None when some label is not among them (the frame lost its way back for those rows)."""
    import numpy as np

    at = rows.reindex(labels).to_numpy(dtype=np.float64)
    return None if np.isnan(at).any() else at.astype(np.int64)


def input_rows(release, original):
    """Positions in ``original`` of the rows ``release`` was made from, read from the
    publisher-only way back that :func:`pdanon.checks.row_order.publish_order` keeps (``original``
    is the first input, or the step's own input); None when the release holds none for that
    frame (a file read back, a frame made elsewhere) or some row is not found. The metrics,
    ``explain`` and the report pair a release's rows with the original's through it."""
    facts = facts_of(release)
    for rows, index in (("first_rows", "first_index"), ("step_rows", "step_index")):
        if rows in facts and facts[index].equals(original.index):
            return positions_at(facts[rows], release.index)
    return None
