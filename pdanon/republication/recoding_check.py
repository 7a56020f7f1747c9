"""Checking a recoding read back from JSON before anything uses it.

A recoding file (``--save-recoding``, ``out.anon.recoding.to_json()``) may be damaged by
hand editing or a transfer: a key dropped, a number turned into text, a list cut short.
:func:`check_recoding_dict` walks the whole document and refuses the first field that is
not what :meth:`pdanon.Recoding.to_dict` writes, with an
:class:`~pdanon.InvalidInputError` naming its JSON path (``columns[0].lo[3]``), the column,
what was expected and the fix, instead of a bare ``KeyError`` / ``TypeError`` deep inside
the lookup. :meth:`pdanon.Recoding.from_json` then builds each column's cells once, so an
inconsistency the structure does not show is named the same way (:func:`damaged`).

Example
-------
>>> check_recoding_dict({"format": "pdanon-recoding/1", "columns": [
...     {"name": "age", "kind": "real", "form": "ranges", "column_type": "real",
...      "categories": None, "integer": True, "lo": [30], "hi": [39]}]})
Traceback (most recent call last):
...
pdanon._errors.InvalidInputError: recoding field columns[0].closed (column 'age'): missing; the recoding file is damaged: write it again from the release (out.anon.recoding.to_json(), or pdanon anonymize --save-recoding) or restore a copy
"""

from __future__ import annotations

import math
import numbers

import pandas as pd

from pdanon._errors import InvalidInputError

__all__ = ["FIX", "check_recoding_dict", "damaged", "index_from_json"]

FIX = ("the recoding file is damaged: write it again from the release "
       "(out.anon.recoding.to_json(), or pdanon anonymize --save-recoding) or restore a copy")
KINDS = ("real", "ordered", "unordered")
FORMS = ("ranges", "sets", "values")
CLOSED = ("left", "right", "both", "neither")
_MISSING = object()


def index_from_json(d: dict) -> pd.Index:
    """The :class:`pandas.Index` of a typed list ``{"dtype": ..., "values": [...]}``."""
    dtype = d["dtype"]
    if dtype.startswith("datetime64"):
        return pd.Index(pd.to_datetime(d["values"])).astype(dtype)
    if dtype == "object":
        return pd.Index(d["values"], dtype=object)
    return pd.Index(d["values"]).astype(dtype)


def damaged(path: str, column, problem: str) -> InvalidInputError:
    """The error for a damaged field: its JSON path, the column, the problem and the fix."""
    where = "" if column is None else f" (column {column!r})"
    return InvalidInputError(f"recoding field {path}{where}: {problem}; {FIX}")


class _Fields:
    """Raises for a field at a JSON path, naming the column being read."""

    def __init__(self):
        self.column = None

    def fail(self, path: str, problem: str):
        raise damaged(path, self.column, problem)

    def get(self, d: dict, key: str, path: str, types, expected: str, *, optional=False):
        value = d.get(key, _MISSING)
        here = f"{path}.{key}" if path else key
        if value is _MISSING or (value is None and not optional):
            if optional and value is _MISSING:
                return None
            self.fail(here, "missing" if value is _MISSING else f"null, expected {expected}")
        if value is None or _is(value, types):
            return value
        self.fail(here, f"expected {expected}, got {type(value).__name__} {_short(value)}")

    def choice(self, d: dict, key: str, path: str, allowed) -> str:
        value = self.get(d, key, path, str, "text")
        if value not in allowed:
            self.fail(f"{path}.{key}", f"{value!r} is not one of {', '.join(allowed)}")
        return value

    def numbers(self, d: dict, key: str, path: str, length=None, *, integer=False) -> list:
        values = self.get(d, key, path, list, "a list of numbers")
        if length is not None and len(values) != length:
            self.fail(f"{path}.{key}", f"{len(values)} entries, expected {length} (one per cell)")
        for i, v in enumerate(values):
            ok = _is(v, numbers.Integral) if integer else (_is(v, numbers.Real)
                                                           and math.isfinite(v))
            if not ok:
                self.fail(f"{path}.{key}[{i}]", f"expected {'an integer' if integer else 'a finite number'}, "
                          f"got {type(v).__name__} {_short(v)}")
        return values

    def index(self, d: dict, key: str, path: str, *, optional=False):
        spec = self.get(d, key, path, dict, "a typed list {dtype, values}", optional=optional)
        if spec is None:
            return None
        here = f"{path}.{key}"
        dtype = self.get(spec, "dtype", here, str, "a pandas dtype name")
        self.get(spec, "values", here, list, "a list of values")
        try:
            return index_from_json(spec)
        except (TypeError, ValueError, OverflowError, KeyError) as exc:
            self.fail(f"{here}.values", f"cannot be read as {dtype} values "
                      f"({' '.join(str(exc).split())[:200]})")


def _is(value, types) -> bool:
    return isinstance(value, types) and not isinstance(value, bool) or (
        types is bool and isinstance(value, bool))


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_recoding_dict(d) -> None:
    """Refuse a recoding document (the parsed JSON) with any field that is not what
    :meth:`pdanon.Recoding.to_dict` writes (module docstring); None when it is whole."""
    f = _Fields()
    if not isinstance(d, dict):
        f.fail("(the document)", f"expected an object, got {type(d).__name__}")
    columns = f.get(d, "columns", "", list, "a list of columns")
    if not columns:
        f.fail("columns", "empty: a recoding has at least one quasi-identifier column")
    for key in ("algorithm", "method"):
        f.get(d, key, "", str, "text or null", optional=True)
    sensitive = f.get(d, "sensitive", "", dict, "an object of column: kind", optional=True)
    for name, kind in (sensitive or {}).items():
        if kind not in KINDS:
            f.fail(f"sensitive.{name}", f"{kind!r} is not one of {', '.join(KINDS)}")
    models = f.get(d, "models", "", list, "a list of models", optional=True)
    for i, rec in enumerate(models or []):
        if not isinstance(rec, dict):
            f.fail(f"models[{i}]", f"expected an object {{model, params}}, got "
                   f"{type(rec).__name__}")
        f.get(rec, "model", f"models[{i}]", str, "a model's class name")
        f.get(rec, "params", f"models[{i}]", dict, "an object of parameters", optional=True)
    sizes, names = [], set()
    for j, c in enumerate(columns):
        path = f"columns[{j}]"
        f.column = None
        if not isinstance(c, dict):
            f.fail(path, f"expected an object, got {type(c).__name__}")
        name = f.get(c, "name", path, (str, numbers.Integral), "the column's name")
        if name in names:
            f.fail(f"{path}.name", f"the column {name!r} is recoded twice")
        names.add(name)
        f.column = name
        kind = f.choice(c, "kind", path, KINDS)
        form = f.choice(c, "form", path, FORMS)
        spec = {k: v for k, v in c.items() if k not in ("name", "kind", "form")}
        sizes.append(_check_cells(f, spec, path, form))
    f.column = None
    classes = f.get(d, "classes", "", list, "a list of classes", optional=True)
    for i, row in enumerate(classes or []):
        if not isinstance(row, list) or len(row) != len(columns):
            f.fail(f"classes[{i}]", f"expected a list of {len(columns)} cell positions (one "
                   f"per column), got {_short(row)}")
        for j, at in enumerate(row):
            if not _is(at, numbers.Integral) or not -1 <= at < sizes[j]:
                f.fail(f"classes[{i}][{j}]", f"expected a cell position -1 .. {sizes[j] - 1}"
                       f", got {_short(at)}")


def _check_cells(f: _Fields, spec: dict, path: str, form: str):
    """Check the fields of one column's cells; returns the number of cells."""
    count = _check_cell_bounds(f, spec, path, form)
    flags = f.get(spec, "or_missing", path, list, "a list of true / false, one per cell",
                  optional=True)
    if flags is not None and (len(flags) != count or not all(isinstance(x, bool)
                                                             for x in flags)):
        f.fail(f"{path}.or_missing", f"expected {count} entries of true / false (one per "
               f"cell: does it cover missing too), got {_short(flags)}")
    return count


def _check_cell_bounds(f: _Fields, spec: dict, path: str, form: str):
    if form == "values":
        f.get(spec, "dtype", path, str, "a pandas dtype name")
        try:
            pd.api.types.pandas_dtype(spec["dtype"])
        except TypeError as exc:
            f.fail(f"{path}.dtype", f"not a pandas dtype ({exc})")
        return len(f.index(spec, "values", path))
    cats = f.index(spec, "categories", path, optional=form == "ranges")
    if form == "sets":
        members = f.get(spec, "members", path, list, "a list of category positions per cell")
        for i, m in enumerate(members):
            if not isinstance(m, list) or not m:
                f.fail(f"{path}.members[{i}]", f"expected a non-empty list of category "
                       f"positions, got {_short(m)}")
            for k, x in enumerate(m):
                if not _is(x, numbers.Integral) or not 0 <= x < len(cats):
                    f.fail(f"{path}.members[{i}][{k}]", f"expected a category position 0 .. "
                           f"{len(cats) - 1}, got {_short(x)}")
        return len(members)
    f.choice(spec, "column_type", path, ("real", "ordered"))
    integer = f.get(spec, "integer", path, bool, "true or false")
    whole = integer or cats is not None
    lo = f.numbers(spec, "lo", path, integer=whole)
    hi = f.numbers(spec, "hi", path, len(lo), integer=whole)
    closed = f.get(spec, "closed", path, list, "a list of left / right / both / neither")
    if len(closed) != len(lo):
        f.fail(f"{path}.closed", f"{len(closed)} entries, expected {len(lo)} (one per cell)")
    for i, c in enumerate(closed):
        if c not in CLOSED:
            f.fail(f"{path}.closed[{i}]", f"{_short(c)} is not one of {', '.join(CLOSED)}")
    for i, (a, b) in enumerate(zip(lo, hi)):
        if a > b:
            f.fail(f"{path}.lo[{i}]", f"{a} is above hi[{i}] = {b}")
        if cats is not None and not (0 <= a and b < len(cats)):
            f.fail(f"{path}.hi[{i}]" if a >= 0 else f"{path}.lo[{i}]",
                   f"expected category positions 0 .. {len(cats) - 1}, got [{a}, {b}]")
    return len(lo)
