"""Randomization: noise for real columns, random neighbours for ordered ones, random values for unordered ones."""

from __future__ import annotations

import math
from typing import Callable, Hashable, Mapping

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, KindError
from pdanon.perturb.common import check_columns
from pdanon.perturb.randomness import make_rng
from pdanon.perturb.shuffle import take_rows

KINDS = ("real", "ordered", "unordered")
HISTOGRAM_BINS = 30


def _is_generalized(series: pd.Series) -> bool:
    return str(getattr(series.dtype, "name", "")).startswith("generalization")


def _is_integer_dtype(dtype) -> bool:
    return pd.api.types.is_integer_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _check_real(series: pd.Series, what: str) -> None:
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
        raise KindError(
            f"column {series.name!r} has dtype {dtype} but {what} needs numbers; convert it "
            f"(e.g. pd.to_numeric(df[{series.name!r}])) or declare its kind 'ordered' or "
            "'unordered'"
        )


def _numeric_result(series: pd.Series, valid: np.ndarray, values: np.ndarray) -> pd.Series:
    """Put new float ``values`` (for the non-missing rows) back into a column of the original
    dtype: integer columns are rounded to the nearest integer, missing cells stay missing."""
    full = np.full(len(series), np.nan)
    full[valid] = values
    dtype = series.dtype
    if _is_integer_dtype(dtype):
        full = np.rint(full)
        if isinstance(dtype, np.dtype):
            return pd.Series(full.astype(dtype), index=series.index, name=series.name)
    return pd.Series(full, index=series.index, name=series.name).astype(dtype)


def _apply_noise_function(func: Callable, x: np.ndarray, column) -> np.ndarray:
    """Call ``func`` once on the whole array; if it does not give back one number per value,
    treat it as a scalar function and call it once per value."""
    try:
        y = func(x.copy())
        y = np.asarray(y, dtype=np.float64)
        if y.shape == x.shape:
            return y
    except (TypeError, ValueError):
        pass
    try:
        return np.fromiter((func(v) for v in x.tolist()), dtype=np.float64, count=len(x))
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(
            f"noise function for column {column!r} must map an array of values to an array of "
            f"numbers of the same length, or one number to one number: {exc}"
        ) from exc


def randomize_series(series: pd.Series, kind: str, *, rng: np.random.Generator,
                     scale: float = 1.0, low=None, high=None, noise: Callable | None = None,
                     noise_mode: str = "add", histogram: str = "uniform",
                     clip: bool = True) -> tuple[pd.Series, str]:
    """Randomize one column; returns ``(new column, method name)``.

    Missing cells stay missing and are not used. Methods, in order of precedence:

    * ``noise`` (real columns): ``noise_mode="add"`` gives ``x + noise(x)``, ``"replace"`` gives
      ``noise(x)``. ``noise`` is first called once with the array of values (float64); if it
      does not return one number per value it is called once per value (a scalar function).
    * ``low``/``high`` (real columns): ``x + U(low, high)``.
    * default for the kind (the reference's ``RandomizationBaselineDepersonalizator``), with
      n = number of non-missing values:

      - ``unordered``: a fair coin per cell keeps the value or replaces it by the value of a
        uniformly drawn row of the column;
      - ``ordered``: with ``pos`` = first position of the value in the sorted column, take the
        sorted column's element at ``clip(pos + int(z·n·scale), 0, n−1)``, ``z ~ N(0, 1)``
        (``int`` truncates toward zero);
      - ``real``: draw n values from a 30-bin histogram of the column and sort them (``samples``);
        with ``pos`` = first position of the value in ``samples``, return ``samples`` linearly
        interpolated at ``pos + z·n·scale`` (clamped to the ends). ``histogram="edges"`` draws bin
        left edges as the reference does; ``"uniform"`` (default) draws uniformly inside the bin,
        which removes the reference's downward bias of half a bin width. A constant column is
        returned unchanged.

    Real results are clipped to the column's observed [min, max] when ``clip`` (the default
    methods never leave it anyway); integer columns are rounded to the nearest integer and keep
    their dtype. Ordered and unordered results are values of the column, so the dtype (e.g. an
    ordered Categorical with its categories) is kept exactly.

    Example
    -------
    >>> s = pd.Series([1, 2, 3, 4, 5])
    >>> out, how = randomize_series(s, "real", rng=make_rng(0), low=1, high=1)
    >>> out.tolist(), how
    ([2, 3, 4, 5, 5], 'uniform[1, 1]')
    """
    if kind not in KINDS:
        raise KindError(f"unknown kind {kind!r} for column {series.name!r}; use one of {list(KINDS)}")
    if noise_mode not in ("add", "replace"):
        raise InvalidInputError(f"noise_mode must be 'add' or 'replace', got {noise_mode!r}")
    if histogram not in ("uniform", "edges"):
        raise InvalidInputError(f"histogram must be 'uniform' or 'edges', got {histogram!r}")
    if _is_generalized(series):
        raise KindError(
            f"column {series.name!r} holds generalized cells; randomize plain values "
            "(before generalizing) instead"
        )
    valid = ~series.isna().to_numpy()
    idx = np.flatnonzero(valid)
    n = len(idx)
    uses_noise = noise is not None or low is not None or high is not None
    if uses_noise:
        _check_real(series, "noise")
        if kind != "real":
            raise KindError(
                f"noise applies to real columns; column {series.name!r} is {kind!r} (declare it "
                f"real, e.g. quasi_identifiers={{{series.name!r}: 'real'}}, or drop the noise)"
            )
        if noise is None and (low is None or high is None):
            raise InvalidInputError(
                f"give both low and high for uniform noise on column {series.name!r}"
            )
    if noise is not None:
        method = f"function ({noise_mode})"
    elif uses_noise:
        method = f"uniform[{low}, {high}]"
    else:
        method = f"default-{kind}"
    if n == 0:
        return series.copy(), method

    if kind == "real":
        _check_real(series, "real randomization")
        x = series.to_numpy(dtype=np.float64, na_value=np.nan)[idx]
        lo, hi = float(x.min()), float(x.max())
        if noise is not None:
            y = _apply_noise_function(noise, x, series.name)
            r = x + y if noise_mode == "add" else y
        elif uses_noise:
            low, high = float(low), float(high)
            if not (math.isfinite(low) and math.isfinite(high)) or low > high:
                raise InvalidInputError(
                    f"uniform noise on column {series.name!r} needs finite low <= high, "
                    f"got low={low}, high={high}"
                )
            r = x + rng.uniform(low, high, n)
        else:
            if lo == hi:
                return series.copy(), method
            r = _histogram_shift(x, rng, scale, histogram)
        if clip:
            r = np.clip(r, lo, hi)
        return _numeric_result(series, valid, r), method

    if kind == "ordered":
        codes = _order_codes(series, valid)
        sorted_rows = np.argsort(codes, kind="stable")
        sorted_codes = codes[sorted_rows]
        pos = np.searchsorted(sorted_codes, codes, side="left")
        shift = np.clip(rng.standard_normal(n) * (n * float(scale)), -(n + 1), n + 1)
        new_pos = np.clip(pos + shift.astype(np.int64), 0, n - 1)
        rows = np.arange(len(series))
        rows[idx] = idx[sorted_rows[new_pos]]
        return take_rows(series, rows), method

    # unordered
    replace = rng.random(n) < 0.5
    donors = rng.integers(0, n, n)
    rows = np.arange(len(series))
    rows[idx] = np.where(replace, idx[donors], idx)
    return take_rows(series, rows), method


def _histogram_shift(x: np.ndarray, rng, scale: float, histogram: str) -> np.ndarray:
    n = len(x)
    # np.histogram's equal-width edges; a span of a few ulps (e.g. [0, 5e-324]) has fewer
    # distinct edges than bins, where np.histogram refuses: keep the distinct ones
    edges = np.unique(np.linspace(float(x.min()), float(x.max()), HISTOGRAM_BINS + 1))
    # drawing a bin with probability count/n == the bin of a uniformly drawn value
    bin_of = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(edges) - 2)
    bins = bin_of[rng.integers(0, n, n)]
    samples = edges[bins]
    if histogram == "uniform":
        samples = samples + rng.random(n) * (edges[bins + 1] - edges[bins])
    samples.sort()
    pos = np.searchsorted(samples, x, side="left")
    new_pos = pos + rng.standard_normal(n) * (n * float(scale))
    return np.interp(new_pos, np.arange(n, dtype=np.float64), samples)


def _order_codes(series: pd.Series, valid: np.ndarray) -> np.ndarray:
    """Codes of the non-missing cells that follow the value order (categories order for
    categoricals)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return np.asarray(series.cat.codes.to_numpy()[valid], dtype=np.int64)
    try:
        codes, _ = pd.factorize(series.iloc[np.flatnonzero(valid)], sort=True)
    except TypeError as exc:
        raise KindError(
            f"column {series.name!r} cannot be sorted ({exc}); convert it to one type "
            f"(e.g. df[{series.name!r}].astype(str)) or declare it 'unordered'"
        ) from exc
    return np.asarray(codes, dtype=np.int64)


def _per_column(option, column):
    if isinstance(option, Mapping):
        return option.get(column)
    return option


def randomize_frame(df: pd.DataFrame, kinds: Mapping[Hashable, str], *,
                    rng: np.random.Generator | None = None, scale: float = 1.0, low=None,
                    high=None, noise=None, noise_mode: str = "add", histogram: str = "uniform",
                    clip: bool = True) -> tuple[pd.DataFrame, dict]:
    """Randomize the columns named in ``kinds`` (``{column: kind}``) with
    :func:`randomize_series`; returns ``(new frame, {column: method})``.

    ``low``, ``high`` and ``noise`` are either one value for every column or ``{column: value}``.
    A single ``low``/``high``/``noise`` applies to the real columns only (as in the reference,
    other kinds get their default method); naming a non-real column in a dict is a
    :class:`~pdanon.KindError`. Columns are processed in the order of ``kinds``, each drawing
    from ``rng`` in turn.

    Example
    -------
    >>> df = pd.DataFrame({"age": [20, 30, 40], "sex": ["F", "M", "F"]})
    >>> out, how = randomize_frame(df, {"age": "real", "sex": "unordered"}, rng=make_rng(0),
    ...                            low=0, high=0)
    >>> out["age"].tolist(), how["age"], how["sex"]
    ([20, 30, 40], 'uniform[0, 0]', 'default-unordered')
    """
    rng = make_rng() if rng is None else rng
    check_columns(df, list(kinds), "randomize")
    scale = float(scale)
    if not math.isfinite(scale) or scale < 0:
        raise InvalidInputError(f"scale must be a finite number >= 0, got {scale}")
    for name, opt in (("low", low), ("high", high), ("noise", noise)):
        if isinstance(opt, Mapping):
            check_columns(df, list(opt), f"{name}=")
            stray = [c for c in opt if c not in kinds]
            if stray:
                raise InvalidInputError(
                    f"{name}= names column(s) {stray} that are not being randomized; "
                    f"add them to columns= or remove them from {name}="
                )
            wrong = [c for c in opt if kinds[c] != "real"]
            if wrong:
                raise KindError(
                    f"{name}= names column(s) {wrong} whose kind is not 'real'; noise applies "
                    "to real columns (declare them real or drop the noise)"
                )
        elif noise is not None and name == "noise" and not callable(noise):
            raise InvalidInputError("noise must be a function or {column: function}")
    out = df.copy(deep=False)
    methods = {}
    for col, kind in kinds.items():
        c_low, c_high, c_noise = (_per_column(o, col) for o in (low, high, noise))
        if kind != "real":
            c_low = c_high = c_noise = None
        if c_noise is not None and not callable(c_noise):
            raise InvalidInputError(f"noise for column {col!r} must be a function, got {c_noise!r}")
        new, methods[col] = randomize_series(
            df[col], kind, rng=rng, scale=scale, low=c_low, high=c_high, noise=c_noise,
            noise_mode=noise_mode, histogram=histogram, clip=clip)
        out[col] = new.array
    return out, methods
