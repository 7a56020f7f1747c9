"""The cell-key method: noise on a table's counts that is the same for the same cell in every
table (the ABS method, Fraser & Wooton 2005; Thompson, Broadfoot & Elazar 2013; as sdcTools'
cellKey and ONS's ``cell-key-perturbation`` apply it).

1. Every microdata row gets a *record key*, a uniform integer ``0 .. M - 1`` drawn once from a
   CSPRNG (:func:`record_keys`) and **stored with the microdata**: the keys must stay with the
   publisher (never published, never shared), and be reused for every table from that
   microdata, or the noise is no longer consistent.
2. A cell's *cell key* is the sum of its rows' record keys mod ``M`` (ONS: ``M = 256``,
   keys 0..255). The same rows give the same cell key, whichever table the cell is in.
3. The noise is read from a p-table (:mod:`pdanon.tables.ptable`) at (count, cell key); the
   published count is the count plus its noise. A margin or sub-total is a cell of its own,
   with its own rows, key and noise: it is *not* re-added from the perturbed cells, so a
   perturbed table is not additive (as the ABS method intends: re-adding would accumulate
   the inner cells' noise on the totals).
4. A sum (magnitude) table gets noise in proportion to each cell's largest contributions
   (``m=``, ``top_k=``, ``epsilon=``, as sdcTools' cellKey's simple parameters), drawn with
   the same cell key from the p-table's row for large counts.

>>> import pandas as pd
>>> import pdanon
>>> from pdanon.tables import ptable, record_keys
>>> df = pd.DataFrame({"region": list("NNNNNSSSSW"), "sex": list("fmfmffmfmf")})
>>> keys = record_keys(df, seed=1)  # a seed only for tests: leave it out
>>> out = df.anon.table(index="region", columns="sex").cell_key(ptable(D=2, V=1), keys)
>>> out.to_frame().columns.tolist()
['region', 'sex', 'value']
>>> bool((out.cells.noise.abs() <= 2).all())
True
"""

from __future__ import annotations

import secrets
import time

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError
from pdanon.tables.ptable import PTable

__all__ = ["PerturbedTable", "cell_key", "record_keys"]


def record_keys(df: pd.DataFrame, *, bits: int = 16, seed=None,
                name: str = "record_key") -> pd.Series:
    """A uniform record key per row, integers ``0 .. 2**bits - 1``, from the operating
    system's CSPRNG (:mod:`secrets`). Store them as a column of the microdata and keep them
    with the publisher: anyone holding the keys and the p-table can take the noise off.
    ``bits`` must match the p-table's modulus (``2**bits``): 16 for :func:`ptable`'s default,
    8 for ONS's p-tables (cell keys 0..255). ``seed`` (tests only) draws them from NumPy's PCG64
    instead, reproducibly -- and predictably.

    Example
    -------
    >>> import pandas as pd
    >>> k = record_keys(pd.DataFrame({"x": range(4)}), bits=8, seed=0)
    >>> k.name, bool(k.between(0, 255).all()), len(k)
    ('record_key', True, 4)
    """
    if not isinstance(df, (pd.DataFrame, pd.Series)):
        raise InvalidInputError(f"record_keys takes the microdata frame, not {type(df).__name__}")
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)) or not 1 <= bits <= 32:
        raise InvalidInputError(f"record_keys: bits={bits!r} must be an integer in 1..32 "
                                f"(16 for pdanon's p-tables, 8 for ONS's 256 cell keys)")
    n = len(df)
    if seed is None:
        raw = np.frombuffer(secrets.token_bytes(4 * n), dtype=np.uint32) if n else \
            np.zeros(0, dtype=np.uint32)
        keys = (raw.astype(np.int64) & ((1 << int(bits)) - 1))
    else:
        keys = np.random.Generator(np.random.PCG64(seed)).integers(0, 1 << int(bits), n)
    return pd.Series(keys.astype(np.int64), index=df.index, name=name)


class PerturbedTable:
    """A count table with cell-key noise: what :func:`cell_key` returns.

    ``cells``: the table's cells with ``value`` the published (perturbed) count, ``original``
    and ``noise`` (publisher only); ``to_frame()`` is what may leave (the dimensions and the
    perturbed value); ``info``: the p-table, cells changed, noise statistics, seconds. Neither
    the record keys nor the cell keys are kept.
    """

    def __init__(self, table, cells: pd.DataFrame, info: dict):
        self.table = table
        self.cells = cells
        self.info = info

    def __repr__(self) -> str:
        return (f"<PerturbedTable: {len(self.cells)} cells, {self.info['changed']} changed, "
                f"mean |noise| {self.info['mean_abs_noise']:.3f}>")

    def to_frame(self) -> pd.DataFrame:
        """The publishable cells: the dimensions and the perturbed value."""
        return self.cells[self.table.dimensions + ["value"]].copy()

    def pivot(self, **kwargs) -> pd.DataFrame:
        """The perturbed table as a pivot (see :meth:`pdanon.tables.Table.pivot`)."""
        from pdanon.tables.output import pivot
        return pivot(self.cells, self.table, **kwargs)


def _keys(table, keys, modulus: int) -> np.ndarray:
    """The record keys as int64 in the rows' order, checked."""
    n = len(table._raw[0])
    if isinstance(keys, str):
        raise InvalidInputError(
            f"cell_key: keys={keys!r} is a name; pass the keys themselves (df[{keys!r}])")
    if isinstance(keys, pd.Series):
        rows = getattr(table, "row_index", None)
        if rows is not None and len(keys) == len(rows) and not keys.index.equals(rows):
            if keys.index.is_unique and rows.is_unique and set(keys.index) == set(rows):
                keys = keys.reindex(rows)
            else:
                raise InvalidInputError(
                    "cell_key: the keys' index is not the microdata's: pass the record keys "
                    "stored with the frame the table was built from (df['record_key'])")
        s = keys
    else:
        s = pd.Series(np.asarray(keys))
    if len(s) != n:
        raise InvalidInputError(
            f"cell_key: {len(s)} record keys for a table built from {n} rows: pass one key "
            f"per row of the frame the table was built from (draw them once with "
            f"pdanon.tables.record_keys(df) and store them with the microdata)")
    if s.isna().any():
        raise InvalidInputError(
            f"cell_key: {int(s.isna().sum())} rows have no record key; every row needs one "
            f"(draw the missing ones with pdanon.tables.record_keys and store them)")
    if not pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
        raise InvalidInputError(f"cell_key: record keys must be integers, not {s.dtype}")
    arr = s.to_numpy(dtype=np.float64)
    if (arr != np.round(arr)).any():
        raise InvalidInputError("cell_key: record keys must be whole numbers 0..M-1 (ONS's "
                                "and pdanon's keys are integers; scale real keys in [0, 1) "
                                "by M and floor them)")
    arr = arr.astype(np.int64)
    if arr.min() < 0 or arr.max() >= modulus:
        raise InvalidInputError(
            f"cell_key: record keys run from {arr.min()} to {arr.max()}, but the p-table has "
            f"cell keys 0..{modulus - 1}: draw the keys with record_keys(df, bits="
            f"{int(np.log2(modulus)) if modulus & (modulus - 1) == 0 else '?'}) or use the "
            f"p-table made for these keys")
    if n >= 64 and arr.max() < modulus // 4:
        raise InvalidInputError(
            f"cell_key: all {n} record keys are below {arr.max() + 1}, a quarter of the "
            f"p-table's {modulus} cell keys: they were drawn for a smaller key range, and "
            f"their sums would not be uniform; use the p-table made for these keys (e.g. "
            f"ptable(..., modulus={1 << int(arr.max()).bit_length()}))")
    return arr


def cell_key(table, ptable: PTable, keys, *, m: float | None = None, top_k: int = 1,
             epsilon=None) -> PerturbedTable:
    """Perturb a table by the cell-key method. Counts: each cell's count plus the noise the
    p-table gives for (count, cell key), the cell key being the sum of its rows' record keys
    mod the p-table's modulus. Margins are cells of their own (perturbed, not re-added).
    The same cell (the same rows) gets the same noise in every table of the same microdata
    and keys.

    Sums (magnitudes), as sdcTools' cellKey does with its simple parameters: the cell's
    ``top_k`` largest contributions ``x_1 >= x_2 >= ...`` (rows, or holders with
    ``contributor=``) each add ``epsilon_j * m * x_j * v_j``, where ``v_j`` is the p-table's
    noise for large counts (its last row, ``|v| <= D``) at the cell's ``j``-th key: the cell
    key for ``j = 1``, then the cell key shifted by ``(j - 1) * floor(M * 0.618...)`` mod M.
    ``m`` (required for sums) is the noise as a share of the largest contribution; ``epsilon``
    (default all 1, non-increasing, first 1) weighs the others. ``m * D <= 1`` keeps every sum
    non-negative.

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.tables import build, ptable, record_keys
    >>> df = pd.DataFrame({"a": list("xxxyyy"), "b": list("uvuvuv"), "c": list("ppqqpq")})
    >>> keys = record_keys(df, seed=3)
    >>> pt = ptable(D=2, V=1)
    >>> t1 = cell_key(build(df, index="a", columns="b"), pt, keys).cells
    >>> t2 = cell_key(build(df, index="a", columns="c"), pt, keys).cells
    >>> # "a = x, Total" holds the same three rows in both tables: the same published count
    >>> t1.loc[(t1.a == "x") & (t1.b == "Total"), "value"].item() == \\
    ...     t2.loc[(t2.a == "x") & (t2.c == "Total"), "value"].item()
    True
    >>> # a sum: noise of at most m * D times each cell's largest contribution
    >>> s = build(df.assign(x=[5., 1., 2., 8., 3., 4.]), index="a", values="x", aggfunc="sum")
    >>> out = cell_key(s, pt, keys, m=0.1)
    >>> bool((out.cells.noise.abs() <= 0.1 * 2 * s.largest(1)[:, 0]).all())
    True
    """
    start = time.perf_counter()
    if not isinstance(ptable, PTable):
        raise InvalidInputError(
            f"cell_key: ptable must be a pdanon.tables.PTable (from ptable(D=, V=) or "
            f"read_ptable(path)), not {type(ptable).__name__}")
    is_count = getattr(table, "is_count", None)
    if is_count is None:
        raise InvalidInputError(
            f"cell_key perturbs a table built by df.anon.table, not {type(table).__name__}")
    weights = None
    if is_count:
        if m is not None or epsilon is not None or top_k != 1:
            raise InvalidInputError(
                "cell_key: m=, top_k= and epsilon= are for sum tables; a count table takes "
                "its noise from the p-table alone (drop them)")
    else:
        weights = _magnitude_params(m, top_k, epsilon, ptable)
    arr = _keys(table, keys, ptable.modulus)
    ckey = np.rint(np.mod(table.sum_by_cell(arr), ptable.modulus)).astype(np.int64)
    cells = table.cells.copy()
    if is_count:
        original = table.cells["value"].to_numpy(dtype=np.int64)
        noise = ptable.noise(original, ckey)
    else:
        original = table.cells["value"].to_numpy(dtype=np.float64)
        noise = _magnitude_noise(table, ptable, ckey, weights)
    cells["original"] = original
    cells["value"] = original + noise
    cells["noise"] = noise
    changed = noise != 0
    extra = {} if is_count else {"m": float(m), "top_k": int(top_k),
                                 "epsilon": [float(e) for e in weights / float(m)]}
    info = {"method": "cell key", "ptable": repr(ptable), "params": dict(ptable.params), **extra,
            "cells": len(cells), "changed": int(changed.sum()),
            "mean_abs_noise": float(np.abs(noise).mean()) if len(noise) else 0.0,
            "max_abs_noise": np.abs(noise).max().item() if len(noise) else 0,
            "mean_noise": float(noise.mean()) if len(noise) else 0.0,
            "seconds": time.perf_counter() - start}
    return PerturbedTable(table, cells, info)


#: the shift between a cell's successive keys for its top contributions, as a share of M
_GOLDEN = (np.sqrt(5.0) - 1) / 2


def _magnitude_params(m, top_k, epsilon, ptable: PTable) -> np.ndarray:
    """epsilon_j * m per top contribution, checked."""
    if m is None:
        raise InvalidInputError(
            "cell_key on a sum table needs m= (the noise as a share of a cell's largest "
            "contribution, e.g. m=0.05), as sdcTools' cellKey does")
    if isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 1:
        raise InvalidInputError(f"cell_key: top_k={top_k!r} must be an integer >= 1")
    eps = np.ones(int(top_k)) if epsilon is None else np.asarray(epsilon, dtype=np.float64)
    if eps.shape != (int(top_k),) or eps[0] != 1 or (np.diff(eps) > 0).any() or \
            (eps < 0).any():
        raise InvalidInputError(
            f"cell_key: epsilon={epsilon!r} must list top_k={top_k} weights, the first 1, "
            f"non-increasing, >= 0 (e.g. epsilon=[1, 0.5] with top_k=2)")
    try:
        m = float(m)
    except (TypeError, ValueError):
        raise InvalidInputError(f"cell_key: m={m!r} must be a number") from None
    D = int(np.abs(ptable.grid[-1]).max())
    if D == 0:
        raise InvalidInputError(
            "cell_key: this p-table adds no noise to large counts (its last row is all 0), "
            "so it would leave every sum as it is; build one with ptable(D=, V=)")
    if not (0 < m) or m * D > 1:
        raise InvalidInputError(
            f"cell_key: m={m} must be > 0 and at most 1/D = {1 / max(D, 1):g} for this "
            f"p-table (largest noise {D}): beyond it a sum could be published negative")
    return m * eps


def _magnitude_noise(table, ptable: PTable, ckey: np.ndarray, weights: np.ndarray):
    """sum_j epsilon_j * m * x_j * v_j, v_j from the p-table's last row at the j-th key."""
    M = ptable.modulus
    top = table.largest(len(weights))
    row = ptable.grid[-1]
    shift = int(np.floor(M * _GOLDEN))
    noise = np.zeros(len(ckey))
    for j, w in enumerate(weights):  # top_k columns, each vectorized over the cells
        noise += w * top[:, j] * row[(ckey + j * shift) % M]
    return noise
