"""Storage of unordered cells: the shared, append-only table of distinct sets.

An unordered column stores one int64 code per row: ``0 .. C-1`` a plain value
(``categories[code]``), ``C + j`` row ``j`` of a boolean membership table holding each distinct
set of two or more categories once, ``-1`` missing. This module builds and searches that table.

>>> codes, table = sets_from_pairs(3, [0, 0, 2], [1, 2, 0], 3)
>>> codes.tolist(), table.astype(int).tolist()
([3, -1, 0], [[0, 1, 1]])
"""

from __future__ import annotations

import numpy as np

__all__ = ["SetTable", "csr_members", "gather_segments", "sets_from_pairs", "sorted_unique",
           "unique_rows"]


def sorted_unique(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values (np.unique without return_* is hash-based and slow in numpy 2.4)."""
    s = np.sort(x, kind="stable")
    if len(s) == 0:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    keep[1:] = s[1:] != s[:-1]
    return s[keep]


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """bool (m, C) -> 1-D void array whose equal entries are equal rows."""
    packed = np.ascontiguousarray(np.packbits(rows, axis=1))
    width = packed.shape[1]
    if width == 0:
        return np.zeros(len(rows), dtype="V1")
    return packed.view(np.dtype((np.void, width))).ravel()


def unique_rows(rows: np.ndarray):
    """(unique rows in first-appearance order, inverse codes)."""
    if len(rows) == 0:
        return rows.copy(), np.zeros(0, dtype=np.int64)
    keys = _row_keys(rows)
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rows[first[order]], rank[inv.ravel()].astype(np.int64)


class SetTable:
    """Distinct sets (>= 2 members) of one unordered column family, as bool rows.

    Shared by an array, its views and copies. It only ever grows (rows are appended by
    ``lookup(..., append=True)``), so codes held by any sharer stay valid; rows are unique, so
    two cells of sharers are equal exactly when their codes are equal.
    """

    __slots__ = ("sets", "__weakref__")

    def __init__(self, sets: np.ndarray):
        self.sets = sets

    def lookup(self, rows: np.ndarray, append: bool) -> np.ndarray:
        """Row index of each of ``rows`` in the table (-1 if absent and not appended)."""
        m = len(rows)
        if m == 0:
            return np.zeros(0, dtype=np.int64)
        table = self.sets
        s = len(table)
        if s == 0:
            if not append:
                return np.full(m, -1, dtype=np.int64)
            uniq, inv = unique_rows(rows)
            self.sets = uniq
            return inv
        keys = np.concatenate([_row_keys(table), _row_keys(rows)])
        _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
        inv = inv.ravel()
        group_code = np.where(first < s, first, -1)
        res = group_code[inv[s:]].astype(np.int64)
        if append:
            missing = res < 0
            if missing.any():
                groups = inv[s:][missing]
                ug, first_pos = np.unique(groups, return_index=True)
                order = np.argsort(first_pos, kind="stable")
                new_codes = np.empty(len(ug), dtype=np.int64)
                new_codes[order] = s + np.arange(len(ug))
                res[missing] = new_codes[np.searchsorted(ug, groups)]
                new_rows = rows[np.flatnonzero(missing)[first_pos[order]]]
                self.sets = np.concatenate([table, new_rows])
        return res


def sets_from_pairs(n: int, rows: np.ndarray, cats: np.ndarray, n_cat: int):
    """Per-row cells from (row, category) member pairs -> (codes, table rows).

    Rows without any pair are missing (-1); rows with one member are plain codes.
    """
    rows = np.asarray(rows, dtype=np.int64)
    cats = np.asarray(cats, dtype=np.int64)
    codes = np.full(n, -1, dtype=np.int64)
    if len(rows) == 0:
        return codes, np.zeros((0, n_cat), dtype=bool)
    key = sorted_unique(rows * max(n_cat, 1) + cats)
    rows, cats = key // max(n_cat, 1), key % max(n_cat, 1)
    counts = np.bincount(rows, minlength=n)
    single = counts[rows] == 1
    codes[rows[single]] = cats[single]
    multi_rows = np.flatnonzero(counts >= 2)
    if len(multi_rows) == 0:
        return codes, np.zeros((0, n_cat), dtype=bool)
    local = np.full(n, -1, dtype=np.int64)
    local[multi_rows] = np.arange(len(multi_rows))
    dense = np.zeros((len(multi_rows), n_cat), dtype=bool)
    sel = ~single
    dense[local[rows[sel]], cats[sel]] = True
    uniq, inv = unique_rows(dense)
    codes[multi_rows] = n_cat + inv
    return codes, uniq


def csr_members(n_cat: int, table: np.ndarray):
    """CSR (indptr, indices) of the members of every code 0 .. C+S-1."""
    r, c = np.nonzero(table)
    t_indptr = np.concatenate([[0], np.cumsum(np.bincount(r, minlength=len(table)))])
    indptr = np.concatenate([np.arange(n_cat), n_cat + t_indptr]).astype(np.int64)
    indices = np.concatenate([np.arange(n_cat), c]).astype(np.int64)
    return indptr, indices


def gather_segments(indptr: np.ndarray, indices: np.ndarray, codes: np.ndarray):
    """Concatenate the CSR segments of ``codes`` -> (lengths, flat member codes)."""
    starts = indptr[codes]
    lens = indptr[codes + 1] - starts
    total = int(lens.sum())
    offs = np.concatenate([[0], np.cumsum(lens)])
    pos = np.arange(total, dtype=np.int64) - np.repeat(offs[:-1], lens) + np.repeat(starts, lens)
    return lens, indices[pos]

