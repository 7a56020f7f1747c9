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
    """The original rows matching the anonymized rows: through the publisher-only way back
    of a release in a random order (:func:`pdanon.publisher_only.input_rows`; indexed like the
    release); the same frame when the indexes agree; the original rows at the anonymized
    labels when the anonymized frame lost rows."""
    check_frame(original, "original")
    check_frame(anonymized, "anonymized")
    from pdanon.roles import ATTRS_KEY
    from pdanon.publisher_only import input_rows

    at = input_rows(anonymized, original)
    if at is not None:  # the publisher-only way back of a release in a random order
        return original.iloc[at].set_axis(anonymized.index)
    info = anonymized.attrs.get(ATTRS_KEY, {}).get("info", {})
    held = info.get("publisher_only")
    matched = held is not None and "step_rows" in held
    if original.index.equals(anonymized.index) and (
            info.get("rows_match_input") is not False or matched):
        return original  # never reordered, or matched already through the way back
    if info.get("rows_match_input") is False:
        raise InvalidInputError(
            "the anonymized frame's rows are in a random order and this process holds no way "
            "back to the original's rows for it (a file read back, a frame rebuilt, a "
            "differentially private release - a random sample -, or an original that is not "
            "the frame the release was made from: pass that frame, with its index): they "
            "cannot be compared one by one. Measure the release alone (out.anon.metrics() "
            "without original=, out.anon.check() without it), or compare in the process that "
            "made it")
    if (anonymized.index.is_unique and original.index.is_unique
            and anonymized.index.isin(original.index).all()):
        return original.loc[anonymized.index]
    if len(original) == len(anonymized) and not anonymized.index.is_unique:
        return original
    raise InvalidInputError(
        "the anonymized frame's rows cannot be matched to the original's: keep the original "
        "index (pdanon's methods do), or reset both indexes to compare row by row"
    )


def release_marks(frame: pd.DataFrame, other: pd.DataFrame | None = None, *,
                  first: bool = False) -> list:
    """What marks ``frame`` as a release, as phrases: an anonymizer's ``info`` in its attrs,
    columns of the generalization dtype (or object columns holding generalized cells, as the
    classic API returns them) and, when ``other`` is given (rows matched by index), blank
    cells where ``other`` has a value. Empty for a frame that shows none of them.

    Example
    -------
    >>> raw = pd.DataFrame({"zip": ["123", "124"]})
    >>> release_marks(pd.DataFrame({"zip": ["12*", None]}), raw)
    ['1 blank cell(s) where the other frame has a value']
    >>> release_marks(raw, pd.DataFrame({"zip": ["12*", None]}))
    []
    """
    from pdanon.encode import has_generalized_cells, is_generalized

    out = []
    if (frame.attrs.get("pdanon") or {}).get("info"):
        out.append("a pdanon anonymizer's info in its attrs")
    dtyped = [c for c in frame.columns if is_generalized(frame[c])]
    if out and first:
        return out
    cells = [] if dtyped and first else [
        c for c in frame.columns if c not in dtyped and frame[c].dtype == object
        and has_generalized_cells(frame[c].to_numpy())]
    if dtyped or cells:
        out.append(f"generalized column(s) {dtyped + cells}")
    if out and first:
        return out
    if other is not None:
        shared = [c for c in frame.columns if c in other.columns]
        if shared and len(frame) == len(other):
            blank = (frame[shared].isna().to_numpy() & other[shared].notna().to_numpy())
            if blank.any():
                out.append(f"{int(blank.sum()):,} blank cell(s) where the other frame has a "
                           f"value")
    return out


def check_order(anonymized: pd.DataFrame, original: pd.DataFrame, *,
                call: str = "release.anon.metrics(original=raw)") -> None:
    """Refuse frames passed the wrong way round: ``anonymized`` shows no mark of a release
    (:func:`release_marks`: no anonymizer's info, no generalized column, no blank cell where
    ``original`` has a value) while ``original`` shows one. A pdanon release keeps every
    missing cell missing, so the original never holds a blank where the release has a value.
    ``call``: how to call it right, for the message.

    Example
    -------
    >>> raw = pd.DataFrame({"zip": ["123", "124"]})
    >>> check_order(raw, pd.DataFrame({"zip": ["12*", None]}))
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: the frames seem swapped: the original holds 1 blank cell(s) where the other frame has a value, the frame measured as the release none of these; pass the release first and the raw table as original: release.anon.metrics(original=raw)
    """
    check_frame(original, "original")
    check_frame(anonymized, "anonymized")
    if release_marks(anonymized, first=True):
        return
    try:
        matched = aligned(original, anonymized)
    except InvalidInputError:  # rows the "original" lacks: a release that dropped rows?
        matched = None
    if matched is not None and release_marks(anonymized, matched, first=True):
        return
    marks = release_marks(original if matched is None else matched,
                          None if matched is None else anonymized)
    if marks:
        raise InvalidInputError(
            f"the frames seem swapped: the original holds {' and '.join(marks)}, the frame "
            f"measured as the release none of these; pass the release first and the raw "
            f"table as original: {call}")
