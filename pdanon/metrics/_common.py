"""Argument handling shared by the metric functions."""

from __future__ import annotations

from typing import Mapping

import pandas as pd

from pdanon._errors import InvalidInputError, UnknownColumnError


def check_frame(df, what: str = "df") -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what} must be a pandas DataFrame, got {type(df).__name__}")
    return df


def quasi_identifier_kinds(df: pd.DataFrame, quasi_identifiers=None, *,
                           other: pd.DataFrame | None = None) -> dict:
    """``{column: kind}`` of the quasi-identifiers: the given list/mapping (kinds inferred where
    missing), else the roles remembered by ``df`` (or ``other``), else every column."""
    from pdanon.roles import KINDS, resolve_roles, stored_roles
    from pdanon._errors import KindError

    if quasi_identifiers is None:
        for frame in (df, other):
            if frame is not None and stored_roles(frame) is not None:
                qis = resolve_roles(frame).quasi_identifiers
                quasi_identifiers = {c: k for c, k in qis.items() if c in df.columns} or dict(qis)
                break
        else:
            # a metric never changes the quasi-identifiers silently: an ID-like column stays
            # one, with a RoleWarning
            quasi_identifiers = resolve_roles(df, screen="warn").quasi_identifiers
    if isinstance(quasi_identifiers, (str, int)) and not isinstance(quasi_identifiers, bool):
        quasi_identifiers = [quasi_identifiers]
    items = (dict(quasi_identifiers) if isinstance(quasi_identifiers, Mapping)
             else {c: None for c in quasi_identifiers})
    missing = [c for c in items if c not in df.columns]
    if missing:
        raise UnknownColumnError(
            f"unknown quasi-identifier column(s) {missing}; the frame has columns "
            f"{list(df.columns)}"
        )
    out = {}
    for c, k in items.items():
        if k is None:
            k = _kind_of(df[c], None if other is None or c not in other.columns else other[c])
        if k not in KINDS:
            raise KindError(f"unknown kind {k!r} for quasi-identifier column {c!r}; use one of "
                            f"{list(KINDS)}")
        out[c] = k
    if other is not None:
        missing = [c for c in out if c not in other.columns]
        if missing:
            raise UnknownColumnError(
                f"the original frame lacks quasi-identifier column(s) {missing}; compare frames "
                f"with the same quasi-identifier columns"
            )
    return out


def _kind_of(column: pd.Series, original: pd.Series | None) -> str:
    """A generalized column's own kind; else the original column's inferred kind."""
    from pdanon.roles import infer_kind

    kind = getattr(column.dtype, "column_type", None)
    if kind is not None:
        return kind
    return infer_kind(column if original is None else original)


def sensitive_spec(df: pd.DataFrame, sensitive=None):
    """The sensitive columns: the given spec, else the roles remembered by ``df``."""
    from pdanon.roles import stored_roles

    if sensitive is not None:
        return sensitive
    roles = stored_roles(df)
    if roles is not None and roles.sensitive:
        return dict(roles.sensitive)
    raise InvalidInputError(
        "no sensitive column: pass sensitive=[...] (or {column: kind}), or give the frame roles "
        "with df.anon.with_schema(...)"
    )


def aligned(original: pd.DataFrame, anonymized: pd.DataFrame) -> pd.DataFrame:
    """The original rows matching the anonymized rows: the same frame when the indexes agree;
    the original rows at the anonymized labels when the anonymized frame lost rows."""
    check_frame(original, "original")
    check_frame(anonymized, "anonymized")
    if original.index.equals(anonymized.index):
        return original
    if (anonymized.index.is_unique and original.index.is_unique
            and anonymized.index.isin(original.index).all()):
        return original.loc[anonymized.index]
    if len(original) == len(anonymized) and not anonymized.index.is_unique:
        return original
    raise InvalidInputError(
        "the anonymized frame's rows cannot be matched to the original's: keep the original "
        "index (pdanon's methods do), or reset both indexes to compare row by row"
    )
