"""Helpers every perturbation face shares: column lists and their checks."""

from __future__ import annotations

import numbers

import pandas as pd

from pdanon._errors import InvalidInputError, UnknownColumnError


def as_column_list(columns) -> list | None:
    if columns is None:
        return None
    if isinstance(columns, (str, numbers.Integral)) and not isinstance(columns, bool):
        return [columns]
    return list(columns)


def check_columns(df: pd.DataFrame, columns, what: str, *, unique: bool = False) -> None:
    """Every name in ``columns`` is a column of ``df`` (and, with ``unique``, none twice)."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise UnknownColumnError(
            f"unknown column(s) {missing} for {what}; the frame has columns {list(df.columns)}"
        )
    if unique and len(set(columns)) != len(columns):
        raise InvalidInputError(f"columns {list(columns)} names a column twice")
