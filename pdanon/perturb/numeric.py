"""Helpers of the numeric perturbations (noise, rank swapping, top and bottom coding):
per-column options, numeric checks and putting new values back into a column's dtype."""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError


def per_column(option, column):
    """``option[column]`` for a ``{column: value}`` mapping (``None`` when absent), else the
    option itself.

    Example
    -------
    >>> per_column({"a": 1}, "a"), per_column({"a": 1}, "b"), per_column(2, "b")
    (1, None, 2)
    """
    if isinstance(option, Mapping):
        return option.get(column)
    return option


def check_option_columns(option, columns, name: str) -> None:
    """A ``{column: value}`` option names only columns being perturbed."""
    if isinstance(option, Mapping):
        stray = [c for c in option if c not in columns]
        if stray:
            raise InvalidInputError(
                f"{name}= names column(s) {stray} that are not being perturbed; add them to "
                f"columns= or remove them from {name}="
            )


def check_numeric(series: pd.Series, what: str) -> None:
    """``series`` holds numbers (not booleans, not generalized cells)."""
    dtype = series.dtype
    numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    if numeric:
        return
    hint = (f"convert it (e.g. pd.to_numeric(df[{series.name!r}])) or leave it out of columns="
            if not str(getattr(dtype, "name", "")).startswith("generalization")
            else "perturb plain values (before generalizing)")
    raise KindError(f"column {series.name!r} has dtype {dtype} but {what} needs numbers; {hint}")


def float_values(series: pd.Series) -> np.ndarray:
    """The column as float64, missing cells as NaN."""
    return series.to_numpy(dtype=np.float64, na_value=np.nan)


def numeric_result(series: pd.Series, values: np.ndarray, *, round_integers: bool) -> pd.Series:
    """Float ``values`` (NaN where ``series`` is missing) back in ``series``' dtype.

    Integer columns: rounded to the nearest integer when ``round_integers``; otherwise they
    keep their dtype only when every value is a whole number, and become float64 (Float64
    for nullable integers) when not. Index and name are kept.

    Example
    -------
    >>> numeric_result(pd.Series([1, 2]), np.array([1.4, 2.6]), round_integers=True).tolist()
    [1, 3]
    >>> numeric_result(pd.Series([1, 2]), np.array([1.5, 2.0]), round_integers=False).tolist()
    [1.5, 2.0]
    """
    dtype = series.dtype
    values = np.asarray(values, dtype=np.float64)
    if pd.api.types.is_integer_dtype(dtype):
        if round_integers:
            values = np.rint(values)
        valid = ~np.isnan(values)
        if not np.array_equal(values[valid], np.rint(values[valid])):
            dtype = "Float64" if not isinstance(dtype, np.dtype) else np.float64
        elif isinstance(dtype, np.dtype):
            return pd.Series(values.astype(dtype), index=series.index, name=series.name)
    return pd.Series(values, index=series.index, name=series.name).astype(dtype)
