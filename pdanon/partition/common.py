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


def suppression_budget(value, n: int, *, default: int) -> int:
    """Rows that may be suppressed: ``None`` gives ``default``; an int (or an integral float
    such as ``2.0``) >= 0 is a row count; a float in ``[0, 1)`` a fraction of ``n`` rows
    (rounded down).

    Example
    -------
    >>> suppression_budget(3, 100, default=0), suppression_budget(2.0, 100, default=0)
    (3, 2)
    >>> suppression_budget(1.5, 100, default=0)
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: max_suppressed_rows must be a row count (int >= 0) or a fraction in [0, 1), got 1.5
    """
    if value is None:
        return int(default)
    message = ("max_suppressed_rows must be a row count (int >= 0) or a fraction in [0, 1), "
               f"got {value!r}")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InvalidInputError(message)
    if isinstance(value, numbers.Integral):
        if value < 0:
            raise InvalidInputError(message)
        return int(value)
    v = float(value)
    if math.isnan(v) or v < 0:
        raise InvalidInputError(message)
    if v < 1:
        return int(math.floor(v * n + 1e-9))
    if v.is_integer():
        return int(v)
    raise InvalidInputError(message)


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
