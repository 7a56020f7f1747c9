"""What every partitioner shares: the sensitive columns a model reads, the suppression budget,
and checks of options that concern the model rather than one algorithm.

A partitioner imports from here (and from :mod:`pdanon.partition` for the result type and the
registry), never another partitioner's private names.

Example
-------
>>> suppression_budget(0.1, 25, default=0), suppression_budget(None, 25, default=4)
(2, 4)
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from pdanon._errors import InvalidInputError, NoProgressError


def sensitive_columns(enc, context) -> list:
    """The :class:`~pdanon.distributions.SensitiveColumn` objects a model reads: those of the
    engine's context (kinds and whole-table distributions), or -- without one -- the encoded
    sensitive codes of ``enc`` taken as unordered values."""
    from pdanon import distributions as d

    if context is not None and isinstance(getattr(context, "columns", None), dict):
        cols = list(context.columns.values())
        if all(len(c.codes) == enc.n for c in cols):
            return cols
    return d.sensitive_columns(enc)  # the encoded table carries {name: codes}


def sensitive_context(enc, context=None):
    """``context`` when given, else a :class:`~pdanon.distributions.SensitiveData` built
    from the encoded sensitive codes (as unordered values)."""
    from pdanon import distributions as d

    if context is not None:
        return context
    return d.SensitiveData({c.name: c for c in sensitive_columns(enc, None)})


def no_progress(algorithm: str, what: str) -> NoProgressError:
    """The error a partitioner raises when an iteration of its loop made no progress (instead
    of looping forever): it names the algorithm and what did not advance.

    Example
    -------
    >>> str(no_progress("nearest", "the grouping loop chose no row"))
    "algorithm='nearest' made no progress (the grouping loop chose no row); this is a bug in pdanon, please report it"
    """
    return NoProgressError(f"algorithm={algorithm!r} made no progress ({what}); this is a bug "
                           f"in pdanon, please report it")


def sizes_decide(model) -> bool:
    """Class sizes alone decide the model (k-anonymity): no sensitive column is read."""
    req = model.requirements()
    return req.exact and not req.sensitive


def check_suppression_budget(value):
    """``max_suppressed_rows`` checked, before any work: ``None``; an int >= 0 (a row count;
    numpy integers too); or a float strictly between 0 and 1 (a fraction of the rows). Any
    other float is refused with the value to pass instead: ``1.0`` is ambiguous (one row, or
    every row?), ``0.0`` is the count 0, ``5.0`` is 5 rows or 5 %; so are negatives, NaN,
    infinities, booleans and strings. Returns ``value``.

    Example
    -------
    >>> check_suppression_budget(0.05), check_suppression_budget(3)
    (0.05, 3)
    >>> check_suppression_budget(1.0)
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: max_suppressed_rows=1.0 is ambiguous: a row count is an int and a fraction of the rows lies strictly between 0 and 1; pass 1 for one row or 0.05 for 5 %
    """
    if value is None:
        return value
    head = (f"max_suppressed_rows={value!r} is ambiguous: a row count is an int and a "
            f"fraction of the rows lies strictly between 0 and 1; ")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InvalidInputError(
            f"max_suppressed_rows must be a row count (an int >= 0, e.g. 10) or a fraction of "
            f"the rows strictly between 0 and 1 (e.g. 0.05 for 5 %), got {value!r}")
    if isinstance(value, numbers.Integral):
        if value < 0:
            raise InvalidInputError(
                f"max_suppressed_rows={value!r} is negative: pass 0 to suppress no row, a row "
                f"count such as 10, or a fraction such as 0.05 for 5 %")
        return value
    v = float(value)
    if 0 < v < 1:
        return value
    if v == 0:
        hint = "pass 0 to suppress no row"
    elif v == 1:
        hint = "pass 1 for one row or 0.05 for 5 %"
    elif math.isfinite(v) and v > 1 and v.is_integer():
        hint = (f"pass {int(v)} for {int(v)} rows" + (f" or {v / 100:g} for {v:g} %"
                                                      if v < 100 else ""))
    elif math.isfinite(v) and v > 1:
        hint = f"pass a whole number of rows, or {v / 100:g} for {v:g} %"
    else:
        head = f"max_suppressed_rows={value!r} is not a budget: "
        hint = "pass a row count (an int >= 0, e.g. 10) or a fraction such as 0.05 for 5 %"
    raise InvalidInputError(head + hint)


def suppression_budget(value, n: int, *, default: int) -> int:
    """Rows that may be suppressed: ``None`` gives ``default``; an int >= 0 is a row count; a
    float strictly between 0 and 1 a fraction of ``n`` rows (rounded down); any other value
    is refused (:func:`check_suppression_budget`).

    Example
    -------
    >>> suppression_budget(3, 100, default=0), suppression_budget(0.025, 100, default=0)
    (3, 2)
    >>> suppression_budget(0.0, 100, default=0)
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: max_suppressed_rows=0.0 is ambiguous: a row count is an int and a fraction of the rows lies strictly between 0 and 1; pass 0 to suppress no row
    """
    check_suppression_budget(value)
    if value is None:
        return int(default)
    if isinstance(value, numbers.Integral):
        return int(value)
    return int(math.floor(float(value) * n + 1e-9))


def check_distance_option(model, distance) -> None:
    """``distance=`` may be passed along by the accessor; it must agree with the model."""
    if distance is None:
        return
    from pdanon.models import TCloseness

    t = [p for p in model.parts() if isinstance(p, TCloseness)]
    if not t:
        raise InvalidInputError("distance= applies to t-closeness only")
    if t[0].distance != distance:
        raise InvalidInputError(
            f"distance={distance!r} differs from the model's distance {t[0].distance!r}")
