"""Top and bottom coding: values beyond a threshold are replaced by the threshold (or by a
given value), as sdcMicro's ``topBotCoding``."""

from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.encode import check_finite
from pdanon.perturb.numeric import check_numeric, float_values, numeric_result

SIDES = ("top", "bottom")


def _finite_number(x, name: str, column) -> float:
    if (isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real)
            or not math.isfinite(float(x))):
        raise InvalidInputError(
            f"{name} for column {column!r} must be a finite number, got {x!r}"
        )
    return float(x)


def code_series(series: pd.Series, side: str, *, threshold=None, quantile=None,
                value=None) -> tuple[pd.Series, dict]:
    """Top (``side="top"``: values ``> threshold``) or bottom (``"bottom"``: values
    ``< threshold``) coding of one numeric column; returns ``(new column, details)``.

    Give exactly one of ``threshold`` (a number) and ``quantile`` (in [0, 1]). With
    ``quantile`` the threshold is a value of the column itself, never one between two values:
    for top coding the largest non-missing value at or below that quantile (numpy's
    ``method="lower"``), for bottom coding the smallest at or above it (``"higher"``). Values
    beyond the threshold become ``value`` (default: the threshold itself); values at the
    threshold are kept, so a quantile threshold is a value the release publishes anyway.
    (numpy's default, linear interpolation, would fall between the largest kept value and the
    smallest hidden one, and give the hidden one back: hidden = kept + (threshold - kept) /
    fraction.) Missing cells stay missing. An integer column keeps its dtype when the
    replacement is a whole number and becomes float otherwise. ``details``: ``threshold``,
    ``quantile``, ``replacement``, ``cells_beyond`` (the cells replaced) and
    ``cells_changed`` (the same count: a replaced cell counts as changed even when its hidden
    value equalled ``value``, since counting those apart would tell that value).

    Example
    -------
    >>> s = pd.Series([1, 5, 9, None])
    >>> out, d = code_series(s, "top", threshold=6)
    >>> out.tolist(), d["cells_changed"]
    ([1.0, 5.0, 6.0, nan], 1)
    >>> code_series(pd.Series([1, 5, 9]), "bottom", quantile=0.5, value=0)[0].tolist()
    [0, 5, 9]
    >>> out, d = code_series(pd.Series([10, 20, 30, 1000]), "top", quantile=0.9)
    >>> out.tolist(), d["threshold"]      # 30, a published value (interpolation: 709)
    ([10, 20, 30, 30], 30.0)
    """
    if side not in SIDES:
        raise InvalidInputError(f"side must be one of {list(SIDES)}, got {side!r}")
    what = f"{side} coding"
    check_numeric(series, what)
    if (threshold is None) == (quantile is None):
        raise InvalidInputError(
            f"{what} of column {series.name!r} needs exactly one of threshold= (a value) and "
            "quantile= (e.g. 0.99 for top coding)"
        )
    x = float_values(series)
    valid = ~np.isnan(x)
    if quantile is not None:
        q = _finite_number(quantile, "quantile", series.name)
        if not 0 <= q <= 1:
            raise InvalidInputError(
                f"quantile for column {series.name!r} must be in [0, 1], got {quantile!r}"
            )
        # a quantile over infinite values is no threshold (threshold= codes them)
        check_finite(series, series.name, index=series.index,
                     where=f"{what} by quantile: column {series.name!r} (threshold= codes "
                           f"infinite values)")
        t = (float(np.quantile(x[valid], q, method="lower" if side == "top" else "higher"))
             if valid.any() else math.nan)
    else:
        q = None
        t = _finite_number(threshold, "threshold", series.name)
    repl = t if value is None else _finite_number(value, "value", series.name)
    beyond = np.zeros(len(x), dtype=bool)
    if valid.any():
        beyond[valid] = x[valid] > t if side == "top" else x[valid] < t
    new = x.copy()
    new[beyond] = repl
    out = numeric_result(series, new, round_integers=False) if beyond.any() else series.copy()
    details = {"threshold": None if math.isnan(t) else t, "quantile": q,
               "replacement": None if math.isnan(repl) else repl,
               "cells_beyond": int(beyond.sum()),
               "cells_changed": int(beyond.sum())}
    return out, details
