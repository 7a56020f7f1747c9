"""Perturbation tables (p-tables) for the cell-key method: which noise a count gets for each
cell key (:class:`PTable`, built by :func:`ptable` or read by :func:`read_ptable`).

A p-table is, for each original count ``i``, a distribution of the noise ``v`` added to it.
:func:`ptable` builds it from stated parameters as the ABS / Eurostat method does (Fraser &
Wooton 2005; Giessing 2016; the constraints the sdcTools ``ptable`` package documents):

- the noise is bounded, ``|v| <= D``;
- it is unbiased, ``E[v] = 0``, with variance ``V``;
- a perturbed count is never negative, and never in ``1 .. js`` (small counts are published
  as 0 or above ``js``; counts ``1 .. js`` are always moved);
- zeros stay zeros (an empty cell has no rows, hence no key of its own to draw noise with);
- among the distributions that satisfy those, the one of maximum entropy
  (``p(v) ∝ exp(a v + b v²)`` on the allowed noises, ``a, b`` found by Newton's method on the
  convex dual).

For a small count the bounds leave less room: when the variance ``V`` cannot be reached (or
cannot be avoided) on the allowed noises, the row takes the closest variance it can and says so
in ``PTable.rows`` (a count just above ``js`` that cannot go below it within ``D`` is not
perturbed at all: unbiased noise that can only go up is none). Counts from ``js + D + 1`` up all have the same row (the constraints no
longer depend on the count).

The cell key selects the noise: record keys are integers ``0 .. M - 1`` (``M = modulus``), a
cell's key is the sum of its rows' keys mod ``M``, and key ``k`` falls at ``(k + 0.5) / M`` in
the row's cumulative distribution (the noise whose interval holds it). So ``M`` is the
resolution of the probabilities: ONS uses ``M = 256``; pdanon's default is ``2**16``.

:func:`read_ptable` reads ONS's CSV format (columns ``pcv``, ``ckey``, ``pvalue``: one row per
count and cell key, ``M`` = the largest ``ckey`` + 1); counts above the file's last ``pcv``
cycle through its last ``cycle`` rows (ONS: 250, so 751 uses row 501). :meth:`PTable.to_frame`
writes that format.

>>> pt = ptable(D=2, V=1)
>>> pt.rows[["i", "variance", "max_noise"]].to_dict("list")
{'i': [0, 1, 2, 3], 'variance': [0.0, 1.0, 1.0, 1.0], 'max_noise': [0, 2, 2, 2]}
>>> pt.noise([5, 5, 0], [0, 65535, 123]).tolist()
[-2, 2, 0]
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError

__all__ = ["PTable", "ptable", "read_ptable"]

ONS_COLUMNS = ("pcv", "ckey", "pvalue")


class PTable:
    """A perturbation table: ``grid[i, k]`` is the noise for a count whose row is ``i`` and
    whose cell key is ``k`` (``0 <= k < modulus``). Counts above the last row cycle through the
    last ``cycle`` rows. ``probabilities`` (built tables only) is the designed distribution,
    one row per count ``i`` and one column per noise ``-D .. D``; ``rows`` reports each row's
    mean, variance and largest noise as designed."""

    def __init__(self, grid: np.ndarray, *, cycle: int = 1, probabilities=None,
                 params: dict | None = None):
        self.grid = np.asarray(grid, dtype=np.int64)
        self.cycle = int(cycle)
        self.probabilities = probabilities
        self.params = dict(params or {})
        self.rows = _row_report(probabilities) if probabilities is not None else None

    @property
    def modulus(self) -> int:
        """The number of cell keys ``M``: record keys and cell keys are ``0 .. M - 1``."""
        return self.grid.shape[1]

    def __repr__(self) -> str:
        what = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"<PTable {what}: {self.grid.shape[0]} rows, cell keys 0..{self.modulus - 1}>"

    def row_of(self, values) -> np.ndarray:
        """The p-table row used for each count (the count itself up to the last row, then
        cycling through the last ``cycle`` rows)."""
        v = np.asarray(values, dtype=np.int64)
        last = self.grid.shape[0] - 1
        return np.where(v <= last, v, last - self.cycle + 1 + (v - last - 1) % self.cycle)

    def noise(self, values, cell_keys) -> np.ndarray:
        """The noise each count gets given its cell key (vectorized lookup)."""
        v = np.asarray(values, dtype=np.int64)
        k = np.asarray(cell_keys, dtype=np.int64)
        if v.shape != k.shape:
            raise InvalidInputError(f"noise: {v.size} counts but {k.size} cell keys")
        if (v < 0).any():
            raise InvalidInputError("noise: counts must be >= 0")
        if ((k < 0) | (k >= self.modulus)).any():
            raise InvalidInputError(
                f"noise: cell keys must be in 0..{self.modulus - 1} (this p-table's modulus)")
        return self.grid[self.row_of(v), k]

    def to_frame(self, max_pcv: int | None = None) -> pd.DataFrame:
        """The p-table in ONS's format: columns ``pcv`` (1 .. ``max_pcv``), ``ckey``
        (0 .. M - 1), ``pvalue``. ONS's ``create_perturbed_table`` looks counts up to 750
        directly and cycles larger ones through rows 501..750, so give ``max_pcv=750`` for it.

        >>> ptable(D=1, V=0.5, modulus=4).to_frame(max_pcv=2).pvalue.tolist()
        [-1, 0, 0, 1, -1, 0, 0, 1]
        """
        last = self.grid.shape[0] - 1
        max_pcv = last if max_pcv is None else int(max_pcv)
        if max_pcv < 1:
            raise InvalidInputError(f"to_frame: max_pcv={max_pcv} must be >= 1")
        if self.cycle > 1 and max_pcv > last:
            raise InvalidInputError(
                f"to_frame: this p-table cycles its last {self.cycle} rows; max_pcv={max_pcv} "
                f"beyond its {last} rows would change which row a count uses (give "
                f"max_pcv <= {last})")
        pcv = np.repeat(np.arange(1, max_pcv + 1), self.modulus)
        ckey = np.tile(np.arange(self.modulus), max_pcv)
        return pd.DataFrame({"pcv": pcv, "ckey": ckey, "pvalue": self.noise(pcv, ckey)})


# ------------------------------------------------------------------------------- building

def _support(i: int, D: int, js: int) -> np.ndarray:
    """Noises allowed for count ``i``: |v| <= D, i + v >= 0 and i + v not in 1..js."""
    v = np.arange(-D, D + 1)
    j = i + v
    return v[(j >= 0) & ~((j >= 1) & (j <= js))]


def _maxent(v: np.ndarray, V: float) -> tuple[np.ndarray, float]:
    """The maximum-entropy distribution on ``v`` with mean 0 and variance ``V`` (or the
    closest variance the support allows); returns (probabilities, achieved variance)."""
    p = np.zeros(len(v))
    if not (v < 0).any() or not (v > 0).any():
        # only one side (a zero, or a count just above js with D too small to go below it):
        # unbiased noise is no noise
        p[v == 0] = 1.0
        return p, 0.0
    lo, hi = v.min(), v.max()
    vmax = -lo * hi  # two points at the extremes
    neg, pos = v[v < 0].max(), v[v > 0].min()
    vmin = 0.0 if (v == 0).any() else -neg * pos  # two points nearest 0
    if V >= vmax - 1e-12 or V <= vmin + 1e-12 or len(v) == 2:
        a, b = (lo, hi) if (V >= vmax - 1e-12 or len(v) == 2) else (neg, pos)
        if a == b or (vmin == 0.0 and V <= 1e-12):  # V = 0 with 0 allowed: no noise
            p[v == 0] = 1.0
            return p, 0.0
        p[v == a], p[v == b] = b / (b - a), -a / (b - a)
        return p, float(-a * b)
    x = v.astype(np.float64)
    feats = np.stack([x, x * x])
    target = np.array([0.0, float(V)])
    lam = np.zeros(2)
    for _ in range(200):  # Newton on the dual: log sum exp(lam . f) - lam . target
        z = lam @ feats
        w = np.exp(z - z.max())
        w /= w.sum()
        mean = feats @ w
        grad = mean - target
        if np.abs(grad).max() < 1e-13:
            break
        cov = (feats * w) @ feats.T - np.outer(mean, mean)
        step = np.linalg.solve(cov + 1e-15 * np.eye(2), grad)
        dual = lambda lm: np.log(np.exp(lm @ feats - (lm @ feats).max()).sum()) \
            + (lm @ feats).max() - lm @ target  # noqa: E731
        t, base = 1.0, dual(lam)
        while dual(lam - t * step) > base - 1e-4 * t * grad @ step and t > 1e-10:
            t /= 2
        lam = lam - t * step
    z = lam @ feats
    w = np.exp(z - z.max())
    return w / w.sum(), float(V)


def ptable(D: int, V: float, *, js: int = 0, modulus: int = 2 ** 16) -> PTable:
    """A p-table for counts from stated parameters: noise within ``±D``, unbiased, of variance
    ``V``; perturbed counts never negative nor in ``1 .. js``; zeros unperturbed; maximum
    entropy otherwise (see the module's text). ``modulus`` is the number of cell keys ``M``
    (the record keys of :func:`pdanon.tables.record_keys` must be drawn with the same ``M``:
    ``bits=16`` for the default, ``bits=8`` for ONS's 256).

    A count of 1 can only become 0 or 2, 3 (``js=1`` bars 1): the two nearest, ±1, give
    variance 1 exactly. From 4 up the noise is symmetric.

    Example
    -------
    >>> pt = ptable(D=2, V=1, js=1)
    >>> pt.probabilities.round(3).loc[[1, 2, 4]]
    noise     -2     -1      0      1      2
    i                                       
    1      0.000  0.500  0.000  0.500  0.000
    2      0.155  0.000  0.572  0.238  0.036
    4      0.064  0.245  0.383  0.245  0.064
    """
    for name, val in (("D", D), ("js", js), ("modulus", modulus)):
        if isinstance(val, bool) or not isinstance(val, (int, np.integer)):
            raise InvalidInputError(f"ptable: {name}={val!r} must be an integer")
    D, js, modulus = int(D), int(js), int(modulus)
    if D < 1:
        raise InvalidInputError(f"ptable: D={D} must be >= 1 (the largest noise added)")
    try:
        V = float(V)
    except (TypeError, ValueError):
        raise InvalidInputError(f"ptable: V={V!r} must be a number (the noise variance)") \
            from None
    if not (0 < V < D * D):
        hint = f", or raise D (D >= {int(np.floor(np.sqrt(V))) + 1} allows V={V})" \
            if V >= D * D else ""
        raise InvalidInputError(
            f"ptable: V={V} is impossible for D={D}: noise within ±{D} with mean 0 has a "
            f"variance between 0 and {D * D} (D², reached only by ±{D} alone); give "
            f"0 < V < {D * D}{hint}")
    if js < 0 or js > D:
        raise InvalidInputError(
            f"ptable: js={js} must be in 0..D={D}: a count of 1 must be able to move to 0 "
            f"or above js within ±D (raise D or lower js)")
    if modulus < 2 * D + 1 or modulus > 2 ** 32:
        raise InvalidInputError(
            f"ptable: modulus={modulus} must be between {2 * D + 1} and 2**32 (the number of "
            f"cell keys; 2**16 is the default, 256 is ONS's)")
    last = js + D + 1
    noises = np.arange(-D, D + 1)
    probs = np.zeros((last + 1, 2 * D + 1))
    for i in range(last + 1):
        v = _support(i, D, js)
        if i == 0:
            v = np.array([0])
        p, _ = _maxent(v, V)
        probs[i, v + D] = p
    frame = pd.DataFrame(probs, index=pd.Index(range(last + 1), name="i"),
                         columns=pd.Index(noises, name="noise"))
    return PTable(_grid(probs, modulus, D), cycle=1, probabilities=frame,
                  params={"D": D, "V": V, "js": js, "modulus": modulus})


def _grid(probs: np.ndarray, modulus: int, D: int) -> np.ndarray:
    """Row × cell key -> noise: key k sits at (k + 0.5) / M in the row's cumulative
    distribution and takes the noise whose interval holds it."""
    cum = np.cumsum(probs, axis=1)
    cum[:, -1] = np.inf
    u = (np.arange(modulus, dtype=np.float64) + 0.5) / modulus
    idx = np.empty((probs.shape[0], modulus), dtype=np.int64)
    for r in range(probs.shape[0]):  # a few rows; each vectorized over the keys
        idx[r] = np.searchsorted(cum[r], u, side="right")
    return (idx - D).astype(np.int8 if D < 127 else np.int64)


def _row_report(probs: pd.DataFrame) -> pd.DataFrame:
    v = probs.columns.to_numpy(dtype=np.float64)
    p = probs.to_numpy()
    mean = p @ v
    var = p @ (v * v) - mean ** 2
    used = np.where(p > 0, np.abs(v), 0).max(axis=1).astype(np.int64)
    return pd.DataFrame({"i": probs.index.to_numpy(), "mean": mean.round(12) + 0.0,
                         "variance": var.round(12), "max_noise": used,
                         "p_stay": p[:, list(v).index(0.0)]})


# -------------------------------------------------------------------------------- reading

def read_ptable(source, *, cycle: int = 250) -> PTable:
    """Read a p-table in ONS's CSV format (a path or a frame with columns ``pcv``, ``ckey``,
    ``pvalue``): one row per count ``pcv`` (1 .. P) and cell key ``ckey`` (0 .. M - 1, M the
    modulus), ``pvalue`` the noise. A ``pcv`` of 0 is optional (without it zeros stay zero).
    Counts above P cycle through the last ``cycle`` rows, as ONS does (P = 750, cycle 250:
    751 uses row 501). Unlike ONS, which looks up rows 1..750 whatever the file holds and adds
    no noise where a row is missing, every count 1 .. P needs all M keys here.

    Example
    -------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"pcv": [1, 1, 2, 2], "ckey": [0, 1, 0, 1], "pvalue": [-1, 1, 0, 1]})
    >>> pt = read_ptable(f, cycle=1)
    >>> pt.noise([1, 2, 7], [1, 0, 1]).tolist()
    [1, 0, 1]
    """
    if isinstance(source, pd.DataFrame):
        frame, where = source, "the p-table frame"
    elif isinstance(source, (str, os.PathLike)):
        try:
            frame = pd.read_csv(source)
        except (OSError, ValueError) as err:
            raise InvalidInputError(f"read_ptable: cannot read {str(source)!r}: {err}") from None
        where = f"p-table file {str(source)!r}"
    else:
        raise InvalidInputError(
            f"read_ptable takes a CSV path or a DataFrame, not {type(source).__name__}")
    missing = [c for c in ONS_COLUMNS if c not in frame.columns]
    if missing:
        hint = ""
        if {"i", "j", "p"} <= set(frame.columns):
            hint = (" (this looks like an sdcTools ptable export with transition "
                    "probabilities: build the same table with pdanon.tables.ptable(D=, V=, js=))")
        raise InvalidInputError(
            f"{where} lacks the column(s) {missing}; it has {list(frame.columns)}. A p-table "
            f"in ONS's format has one row per count and cell key with columns 'pcv' (the "
            f"count), 'ckey' (the cell key, 0..M-1) and 'pvalue' (the noise){hint}")
    cols = {}
    for c in ONS_COLUMNS:
        s = frame[c]
        if s.isna().any() or not pd.api.types.is_numeric_dtype(s.dtype):
            raise InvalidInputError(f"{where}: column {c!r} must hold whole numbers, none "
                                    f"missing (found dtype {s.dtype}, {int(s.isna().sum())} "
                                    f"missing)")
        arr = s.to_numpy(dtype=np.float64)
        if (arr != np.round(arr)).any():
            raise InvalidInputError(f"{where}: column {c!r} must hold whole numbers")
        cols[c] = arr.astype(np.int64)
    pcv, ckey, pvalue = cols["pcv"], cols["ckey"], cols["pvalue"]
    if len(pcv) == 0 or pcv.min() < 0 or ckey.min() < 0:
        raise InvalidInputError(f"{where}: 'pcv' and 'ckey' must be >= 0 and the table "
                                f"must not be empty")
    P, M = int(pcv.max()), int(ckey.max()) + 1
    grid = np.full((P + 1, M), np.iinfo(np.int64).min, dtype=np.int64)
    flat = pcv * M + ckey
    if len(np.unique(flat)) < len(flat):
        raise InvalidInputError(f"{where}: some (pcv, ckey) pairs appear twice; keep one "
                                f"row per count and cell key")
    grid.reshape(-1)[flat] = pvalue
    if (pcv == 0).sum() == 0:
        grid[0] = 0  # zeros stay zero
    holes = np.argwhere(grid == np.iinfo(np.int64).min)
    if len(holes):
        i, k = holes[0]
        raise InvalidInputError(
            f"{where} lacks {len(holes)} (pcv, ckey) rows, first pcv={i}, ckey={k}: every "
            f"count 1..{P} needs a row for each cell key 0..{M - 1} (the modulus is the largest "
            f"ckey + 1)")
    neg = np.argwhere(np.arange(P + 1)[:, None] + grid < 0)
    if len(neg):
        i, k = neg[0]
        raise InvalidInputError(
            f"{where}: pcv={i}, ckey={k} has pvalue={grid[i, k]}, which makes the count "
            f"negative; fix the file (noise >= -pcv)")
    if isinstance(cycle, bool) or not isinstance(cycle, (int, np.integer)) or \
            not 1 <= cycle <= P:
        raise InvalidInputError(
            f"read_ptable: cycle={cycle!r} must be an integer in 1..{P} (the number of last "
            f"rows that counts above pcv={P} cycle through; ONS uses 250 with 750 rows)")
    return PTable(grid, cycle=int(cycle),
                  params={"source": where, "max_pcv": P, "modulus": M, "cycle": int(cycle)})
