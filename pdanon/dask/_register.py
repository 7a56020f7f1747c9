"""Teach Dask the generalization dtype: non-empty meta arrays and a meta scalar.

Dask builds every partition's schema from a *meta* frame and, when it needs sample data, from a
two-row "non-empty" version of it (``make_array_nonempty``); ``make_scalar`` gives a sample
scalar for the dtype's scalar type. With both registered, Dask frames holding generalized
columns compute, repartition, concatenate and round-trip through Parquet (the Arrow extension
type of :mod:`pdanon.dtype` carries kind and categories).

Example
-------
>>> import pdanon.dask  # registers
>>> from dask.dataframe.extensions import make_array_nonempty
>>> from pdanon.dtype import GeneralizationDtype
>>> make_array_nonempty(GeneralizationDtype("real")).tolist()
[[0, 1], 0]
"""

from __future__ import annotations

import numpy as np
from dask.dataframe.extensions import make_array_nonempty, make_scalar

from pdanon.dtype import GeneralizationArray, GeneralizationDtype, GeneralizationRange

__all__ = ["nonempty_array", "sample_scalar"]


@make_array_nonempty.register(GeneralizationDtype)
def nonempty_array(dtype: GeneralizationDtype) -> GeneralizationArray:
    """Two valid cells of ``dtype`` (a range/set and a plain value), as Dask's meta needs."""
    kind = dtype.column_type
    cats = dtype.categories
    if kind == "unordered":
        if cats is None or len(cats) == 0:
            return GeneralizationArray._from_sequence(["a", "a"], dtype=GeneralizationDtype(
                "unordered", ["a"]))
        if len(cats) > 1:  # {cats[0], cats[1]} and cats[0], in sparse form
            return GeneralizationArray.from_members([0, 2, 3], [0, 1, 0], cats)
        return GeneralizationArray.from_members([0, 1, 2], [0, 0], cats)
    if cats is not None:
        if len(cats) == 0:
            return GeneralizationArray.from_bounds([np.nan, np.nan], [np.nan, np.nan], kind=kind,
                                                   categories=cats)
        top = min(1, len(cats) - 1)
        return GeneralizationArray.from_bounds([0, 0], [top, 0], kind=kind, categories=cats)
    return GeneralizationArray.from_bounds(np.array([0, 0]), np.array([1, 0]), kind=kind)


@make_scalar.register(GeneralizationRange)
def sample_scalar(_) -> GeneralizationRange:
    """A sample generalized cell (Dask's meta scalar for the dtype's ``type``)."""
    return GeneralizationRange(0, 1, "real")
