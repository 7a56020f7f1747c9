"""What a pandera schema made by :func:`pdanon.schema` checks in each column, and how its
failures read.

A quasi-identifier or sensitive column's kind says what it may hold:

* ``real`` - numbers, dates or durations (any numeric, datetime64, timedelta64 or period
  dtype, Python numbers or dates in an object column, a Categorical of those) or generalized
  cells of kind real. A column of text, such as a ``birth_year`` read as strings, fails.
* ``ordered`` and ``unordered`` - anything, but when the schema lists the column's categories
  (``df.anon.schema`` records them for Categorical and generalized columns) every value must
  be one of them, and an ordered Categorical must list them in the schema's order.
* a column of generalized cells must be generalized as its kind says (``generalization[real]``
  for a real column).

Missing cells are data: they never fail a check. The check is registered with pandera's
extension API as ``pdanon_kind``, so a schema keeps it through ``to_yaml`` / ``from_yaml``.

:func:`summarize` turns pandera's ``SchemaErrors`` (a JSON dump) into one line per problem,
naming the column, what it holds and the fix.

Example
-------
>>> import pandas as pd, pdanon
>>> s = pdanon.schema(quasi_identifiers={"birth_year": "real"})
>>> pd.DataFrame({"birth_year": ["1990", "1985"]}).anon.with_schema(s)
Traceback (most recent call last):
...
pdanon._errors.InvalidInputError: the frame does not match the schema (1 problem):
  - column 'birth_year' (quasi-identifier, kind 'real') holds text, such as '1990': convert it with df['birth_year'] = pd.to_numeric(df['birth_year']) (or pd.to_datetime for dates), or declare its kind 'ordered' or 'unordered'
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from pdanon._errors import InvalidInputError

CHECK_NAME = "pdanon_kind"

#: what :func:`pandas.api.types.infer_dtype` calls values a real column may hold
_REAL_INFERRED = frozenset({
    "empty", "integer", "floating", "mixed-integer-float", "decimal", "complex", "boolean",
    "datetime64", "datetime", "date", "timedelta64", "timedelta", "period",
})

_registered = False


def register() -> None:
    """Register the ``pdanon_kind`` check with pandera (once; needed before a schema that
    uses it is built or read from YAML)."""
    global _registered
    if _registered:
        return
    import pandera.extensions as extensions

    extensions.register_check_method(statistics=["kind", "categories"],
                                     check_type="vectorized")(pdanon_kind)
    _registered = True


def pdanon_kind(pandas_obj: pd.Series, *, kind: str, categories: list | None = None) -> bool:
    """The registered check: True when the column can hold a column of ``kind``."""
    return problem(pandas_obj, kind, categories) is None


def kind_check(column: Any, kind: str, role: str, categories: list | None = None):
    """The pandera ``Check`` of one column of a pdanon schema."""
    import pandera.pandas as pa

    register()
    return pa.Check.pdanon_kind(kind=kind, categories=categories,
                                error=_declared(column, role, kind) + ": " + _fix(column, kind))


def problem(series: pd.Series, kind: str, categories: list | None = None) -> str | None:
    """Why ``series`` cannot be a column of ``kind`` with ``categories`` (None when it can)."""
    dtype = series.dtype
    column_type = getattr(dtype, "column_type", None)
    if type(dtype).__name__ == "GeneralizationDtype":
        if column_type != kind:
            return f"holds generalized cells of kind {column_type!r}"
        return None
    values = series[series.notna()]
    if kind == "real":
        return None if _holds_real(values) else _text_example(values)
    if categories is not None and len(values):
        return _outside(series, values, categories, ordered=kind == "ordered")
    return None


def _holds_real(values: pd.Series) -> bool:
    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return _holds_real(pd.Series(dtype.categories))
    if isinstance(dtype, pd.PeriodDtype) or (pd.api.types.is_numeric_dtype(dtype)
                                             or pd.api.types.is_datetime64_any_dtype(dtype)
                                             or pd.api.types.is_timedelta64_dtype(dtype)):
        return True
    return pd.api.types.infer_dtype(values, skipna=True) in _REAL_INFERRED


def _text_example(values: pd.Series) -> str:
    # the example: a word that is no number, else a non-blank text, else any text
    text = values.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
    word = pd.to_numeric(values, errors="coerce").isna().to_numpy()
    filled = (values.astype(str).str.strip() != "").to_numpy()
    for pick in (text & word & filled, text & filled, text, word):
        if pick.any():
            example = values[pick].iloc[0]
            break
    else:
        example = values.iloc[0]
    if hasattr(example, "item") and not isinstance(example, str):
        example = example.item()
    if isinstance(example, str):
        return f"holds text, such as {example!r}"
    return f"holds {type(example).__name__} values, such as {example!r}"


def _outside(series: pd.Series, values: pd.Series, categories: list, *, ordered: bool):
    allowed = list(categories)
    inside = values.isin(allowed)
    if not inside.all():
        # a category written back as text ('4777' for 4777) is still that category
        as_text = {str(c) for c in allowed}
        inside = inside | values.astype(str).isin(as_text)
    if not inside.all():
        example = values[~inside].iloc[0]
        if hasattr(example, "item") and not isinstance(example, str):
            example = example.item()  # 4777, not np.int64(4777)
        hint = ""
        if isinstance(example, (int, float)) and any(
                isinstance(c, str) and c.lstrip("0") == str(example) and c != str(example)
                for c in allowed[:10_000]):
            hint = " (a code read as a number lost its leading zeros: read it as text)"
        return (f"holds {int((~inside).sum()):,} value(s) that are not among the schema's "
                f"{len(allowed):,} categories, such as {example!r}{hint}")
    dtype = series.dtype
    if ordered and isinstance(dtype, pd.CategoricalDtype):
        listed = set(allowed)
        mine = [c for c in dtype.categories if c in listed]
        theirs = [c for c in allowed if c in set(dtype.categories)]
        if mine != theirs:
            return (f"orders its categories {mine[:4]}... differently from the schema "
                    f"({theirs[:4]}...)")
    return None


def _declared(column, role: str, kind: str) -> str:
    return f"column {column!r} ({role.replace('_', '-')}, kind {kind!r})"


def _fix(column, kind: str) -> str:
    if kind == "real":
        return (f"convert it with df[{column!r}] = pd.to_numeric(df[{column!r}]) (or "
                f"pd.to_datetime for dates), or declare its kind 'ordered' or 'unordered'")
    return ("give the schema the column's categories (df.anon.schema records them), or "
            "convert the column to them")


def kinds_of(schema) -> dict:
    """``{column: (role, kind, categories)}`` of the checked columns of a pdanon schema."""
    out = {}
    for name, col in getattr(schema, "columns", {}).items():
        meta = col.metadata or {}
        if meta.get("role") in ("quasi_identifier", "sensitive") and meta.get("kind"):
            out[name] = (meta["role"], meta["kind"], meta.get("categories"))
    return out


def summarize(errors, df: pd.DataFrame, kinds: dict) -> InvalidInputError:
    """One :class:`pdanon.InvalidInputError` for pandera's ``SchemaErrors``: a line per
    problem (a missing column, a column whose values do not fit its kind, pandera's own
    checks), not pandera's JSON. ``kinds`` maps a column to ``(role, kind, categories)``;
    pandera's errors stay reachable as the error's ``schema_errors``."""
    lines: list[str] = []
    for err in getattr(errors, "schema_errors", [errors]):
        line = _line(err, df, kinds)
        if line not in lines:
            lines.append(line)
    n = len(lines)
    out = InvalidInputError(f"the frame does not match the schema ({n} problem"
                            f"{'s' if n != 1 else ''}):\n" + "\n".join(f"  - {x}" for x in lines))
    out.schema_errors = errors
    return out


def _missing_name(err):
    """The missing column's name: pandera keeps it as the failure case."""
    case = getattr(err, "failure_cases", None)
    if isinstance(case, pd.DataFrame) and "failure_case" in case:
        case = case["failure_case"].iloc[0] if len(case) else None
    elif isinstance(case, pd.Series):
        case = case.iloc[0] if len(case) else None
    return case


def _line(err, df: pd.DataFrame, kinds: dict) -> str:
    reason = getattr(getattr(err, "reason_code", None), "name", "")
    column = getattr(getattr(err, "schema", None), "name", None)
    if reason == "COLUMN_NOT_IN_DATAFRAME":
        column = _missing_name(err) or column  # the frame's schema reports it, by name
        present = list(df.columns)
        shown = ", ".join(repr(c) for c in present[:12]) + (", ..." if len(present) > 12 else "")
        return (f"column {column!r} is missing (the frame has {shown}): add it, or leave it "
                f"out of the schema")
    if getattr(getattr(err, "check", None), "name", None) == CHECK_NAME and column in kinds \
            and column in df.columns:
        role, kind, categories = kinds[column]
        why = problem(df[column], kind, categories) or "does not fit its kind"
        return f"{_declared(column, role, kind)} {why}: {_fix(column, kind)}"
    text = str(err).strip().splitlines()
    return text[0] if text else reason or type(err).__name__
