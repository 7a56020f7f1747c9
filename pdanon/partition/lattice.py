"""The inputs of the optimal search (:mod:`pdanon.partition.optimal`): a hierarchy bound
to every quasi-identifier (:func:`prepare_columns`), the levels searched
(:func:`lattice_bounds`) and the bounds on the lattice's size (:func:`check_lattice`), checked
before anything is allocated. Shared by the pandas and Dask paths.

Example
-------
>>> import pandas as pd
>>> from pdanon.encode import encode_table
>>> from pdanon.hierarchy import intervals
>>> from pdanon.roles import resolve_roles
>>> df = pd.DataFrame({"age": [23, 37, 41]})
>>> cols = prepare_columns(encode_table(df, resolve_roles(df)), {"age": intervals([10])})
>>> lattice_bounds(cols, None), lattice_bounds(cols, {"age": 1})
([(0, 2)], [(1, 1)])
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, UnknownColumnError

__all__ = ["MAX_LATTICE", "MAX_LEVEL_MAPS", "MAX_VALUES_WITHOUT_HIERARCHY", "check_lattice",
           "check_star_columns", "lattice_bounds", "prepare_columns"]

#: Most distinct values a quasi-identifier may have without a hierarchy. Such a column gets
#: the two-level hierarchy value → ``*``: the search can publish every value or none. With a
#: handful of values (sex, a yes/no flag, Adult's five races) publishing them exact is a real
#: choice; with more (ages, ZIP codes, dates, occupations) the search nearly always ends at
#: ``*``, i.e. the column blanked in every row. :func:`prepare_columns` refuses that before the
#: search and names the builder that fits the column.
MAX_VALUES_WITHOUT_HIERARCHY = 5

#: Largest lattice searched (nodes); beyond it the search asks for fewer levels.
MAX_LATTICE = 2_000_000
#: Most entries of the code maps between any two levels of a column the search keeps (over
#: the columns, Σ over levels a of nodes(a) · (height − a + 1)): 50 M int64, 400 MB.
MAX_LEVEL_MAPS = 50_000_000


def prepare_columns(enc, hierarchies, *, levels=None, algorithm: str = "optimal",
                    integers=None) -> list:
    """Bind a hierarchy to every quasi-identifier of an encoded table; columns without one
    get the two-level hierarchy value → ``*`` (keep or suppress the whole column). A real
    column holds integers when all its values are whole numbers, or as ``integers``
    ({column: bool}) says. A column
    without a hierarchy with more than :data:`MAX_VALUES_WITHOUT_HIERARCHY` distinct values
    is refused (:func:`check_star_columns`) unless ``levels`` (the search's ``levels=``
    option) fixes its level.

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.encode import encode_table
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"age": range(20, 30)})
    >>> prepare_columns(encode_table(df, resolve_roles(df)), None)
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: algorithm='optimal' needs a hierarchy for the quasi-identifier 'age' (10 distinct values): without one it can only publish every value or replace the whole column by '*'. Pass hierarchies={'age': intervals([5, 10, 20])} (builders of pdanon.hierarchy: intervals for numbers, masking for codes such as ZIPs, dates for dates, tree or read_arx_csv for categories), or use algorithm='mondrian', which needs no hierarchy. Columns with at most 5 distinct values (sex, a yes/no flag) may go without one.
    """
    from pdanon.hierarchy import as_hierarchy, column_levels_encoded

    hierarchies = hierarchy_map(hierarchies)
    names = enc.names
    unknown = [c for c in hierarchies if c not in names]
    if unknown:
        raise UnknownColumnError(
            f"hierarchies given for {unknown}, which are not quasi-identifiers; the "
            f"quasi-identifiers are {names}")
    check_star_columns(enc.columns, hierarchies, levels, algorithm=algorithm)
    cols = []
    for col in enc.columns:
        if col.generalized:
            raise InvalidInputError(
                f"column {col.name!r} is already generalized; algorithm='optimal' needs the "
                f"original values")
        spec = hierarchies.get(col.name)
        if spec is None:
            h = _star_hierarchy(col)
        else:
            h = as_hierarchy(spec, name=col.name)
        if integers is not None:  # fixed by the caller (safepub: from the dtypes)
            integer = bool(integers.get(col.name, False))
        else:
            integer = col.kind == "real" and bool(np.all(np.mod(
                np.asarray(col.categories, dtype=np.float64), 1) == 0))
        cols.append(column_levels_encoded(h, col, integer=integer))
    return cols


def hierarchy_map(hierarchies) -> dict:
    """``hierarchies`` (a mapping {column: hierarchy} or None) as a new dict; anything else is
    refused with the form it should take."""
    if hierarchies is not None and not isinstance(hierarchies, Mapping):
        raise InvalidInputError(
            f"hierarchies must be a dict {{column: hierarchy}}, got {type(hierarchies).__name__}"
            f": e.g. hierarchies={{'age': intervals([5, 10, 20])}}")
    return dict(hierarchies or {})


def check_star_columns(columns, hierarchies, levels=None, *, algorithm: str = "optimal") -> None:
    """Refuse encoded quasi-identifier ``columns`` without a hierarchy that have more than
    :data:`MAX_VALUES_WITHOUT_HIERARCHY` distinct values (and no fixed level in ``levels``),
    naming each with its distinct count and the builder that fits its kind; ``algorithm``
    names the search in the message (``"safepub"``: the other fix is to drop the column)."""
    fixed, hierarchies = set(levels or {}), dict(hierarchies or {})
    wide = [col for col in columns if col.name not in hierarchies
            and col.name not in fixed and not col.generalized
            and len(col.categories) > MAX_VALUES_WITHOUT_HIERARCHY]
    if not wide:
        return
    which = ", ".join(f"{col.name!r} ({len(col.categories):,} distinct values)" for col in wide)
    fixes = ", ".join(f"{col.name!r}: {_builder(col)}" for col in wide)
    one = len(wide) == 1
    raise InvalidInputError(
        f"algorithm={algorithm!r} needs a hierarchy for the quasi-identifier{'' if one else 's'} "
        f"{which}: without one it can only publish every value or replace the whole column "
        f"by '*'. Pass hierarchies={{{fixes}}} (builders of pdanon.hierarchy: intervals for "
        f"numbers, masking for codes such as ZIPs, dates for dates, tree or read_arx_csv for "
        f"categories), "
        + ("or leave the column out of the release (identifiers=)" if algorithm == "safepub"
           else "or use algorithm='mondrian', which needs no hierarchy")
        + f". Columns with at "
        f"most {MAX_VALUES_WITHOUT_HIERARCHY} distinct values (sex, a yes/no flag) may go "
        f"without one.")


def _builder(col) -> str:
    """The pdanon.hierarchy builder call that fits the encoded column ``col``."""
    values = col.categories
    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        return "dates()"
    if col.kind == "real" or (pd.api.types.is_numeric_dtype(values.dtype)
                              and not pd.api.types.is_bool_dtype(values.dtype)):
        return "intervals([5, 10, 20])"
    text = pd.Series(values, dtype=object).astype(str)
    if len(text) and text.str.fullmatch(r"[0-9]+").all() and text.str.len().nunique() == 1:
        return "masking()"  # digit codes of one length: ZIPs, area codes
    return "tree({...})"


def _star_hierarchy(col):
    from pdanon.hierarchy import TableHierarchy

    values = list(col.categories) or ["*"]  # a column of missing cells only: a lone top
    return TableHierarchy(values, [["*"] * len(values)], description="value → *")


def check_lattice(columns, bounds) -> None:
    """Refuse a search beyond its documented bounds before anything is allocated: a column
    deeper than :data:`pdanon.hierarchy.MAX_HEIGHT`, level maps of more than
    :data:`MAX_LEVEL_MAPS` entries, a lattice of more than :data:`MAX_LATTICE` nodes."""
    from pdanon.hierarchy import MAX_HEIGHT

    names = [c.name for c in columns]
    deep = {c.name: c.height for c in columns if c.height > MAX_HEIGHT}
    if deep:
        raise InvalidInputError(
            f"algorithm='optimal' got hierarchies with {deep} levels, more than the "
            f"{MAX_HEIGHT} a hierarchy may have (pdanon.hierarchy.MAX_HEIGHT); use hierarchies "
            f"with fewer levels")
    maps = {c.name: sum(c.bound.nodes(a) * (c.height - a + 1) for a in range(c.height + 1))
            for c in columns}
    if sum(maps.values()) > MAX_LEVEL_MAPS:
        per = ", ".join(f"{name!r}: {m:,}" for name, m in maps.items())
        raise InvalidInputError(
            f"algorithm='optimal' would keep {sum(maps.values()):,} level-map entries (per "
            f"column, nodes at each level x the levels above it: {per}), more than its "
            f"{MAX_LEVEL_MAPS:,}; use hierarchies with fewer levels, or fewer distinct values "
            f"at their low levels (coarsen the column first)")
    dims = [hi - lo + 1 for lo, hi in bounds]
    total = math.prod(dims)
    if total > MAX_LATTICE:
        raise InvalidInputError(
            f"the lattice has {total:,} nodes (levels per column {dict(zip(names, dims))}), "
            f"more than the {MAX_LATTICE:,} algorithm='optimal' searches; fix some levels with "
            f"options={{'levels': {{column: level}}}}, use hierarchies with fewer levels, or "
            f"use algorithm='mondrian'")


def lattice_bounds(cols, levels) -> list:
    """``(min, max)`` level per column from the ``levels`` option (default: all levels)."""
    levels = dict(levels or {})
    names = [c.name for c in cols]
    unknown = [c for c in levels if c not in names]
    if unknown:
        raise UnknownColumnError(
            f"levels given for {unknown}, which are not quasi-identifiers {names}")
    out = []
    for col in cols:
        h = col.height
        spec = levels.get(col.name)
        if spec is None:
            out.append((0, h))
            continue
        if isinstance(spec, tuple) and len(spec) == 2:
            lo, hi = spec
        else:
            lo = hi = spec
        for v in (lo, hi):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= v <= h:
                raise InvalidInputError(
                    f"levels[{col.name!r}] must be a level in 0..{h} or a (min, max) pair, got "
                    f"{spec!r}")
        if lo > hi:
            raise InvalidInputError(f"levels[{col.name!r}] = {spec!r}: min is above max")
        out.append((int(lo), int(hi)))
    return out
