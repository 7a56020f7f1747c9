"""Numbering the publisher's person keys (patient numbers, register ids) without hashing
them where their shape allows.

:func:`number_keys` gives every key a number 0 .. P-1. A hash pass over millions of text
keys is the slow part of checking releases together, and most registers' keys are codes of
a fixed shape (``P0000001``, ``19-004417``): each character position uses few distinct
characters. Such keys are read as numbers in a mixed radix, one digit per pair of byte
positions (the digit's value: the pair's rank among the pairs met at that position), which
is vectorized over the keys' bytes as Arrow stores them. When the numbers fill a compact
range they are numbered by a table lookup, as compact integer keys are; otherwise by one
hash pass over the integers; keys of no such shape (long free text, mixed types, missing
keys) by pandas' hash pass.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Text keys longer than this many bytes are hashed as text.
MAX_PACKED_BYTES = 32


def key_array(keys, what: str, rows: int | None = None) -> pd.Series:
    """The publisher's keys of one release as a Series (one per row, none missing), or an
    :class:`~pdanon.InvalidInputError` naming ``what`` (``keys[1]``) and the fix: the keys
    must be one flat list, array, Series or Index of hashable values (numbers, text), of
    length ``rows`` when given.

    >>> key_array(["P1", "P2"], "keys[0]", 2).tolist()
    ['P1', 'P2']
    >>> key_array("P1", "keys[0]")
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: keys[0]: expected one key per row (a list, array, Series or Index of numbers or text), got str; pass e.g. df["patient_id"]
    """
    from pdanon._errors import InvalidInputError

    def refuse(problem: str):
        raise InvalidInputError(f"{what}: {problem}; pass e.g. df[\"patient_id\"]")

    if isinstance(keys, (pd.Series, pd.Index)):
        if isinstance(keys, pd.MultiIndex):
            refuse("a MultiIndex holds tuples of keys; give one key per row")
        series = pd.Series(keys.array, copy=False)
    elif isinstance(keys, np.ndarray) or isinstance(keys, (list, tuple, range)):
        if isinstance(keys, np.ndarray) and keys.ndim != 1:
            refuse(f"expected a flat array of keys, got an array of shape {keys.shape}")
        series = pd.Series(keys)
    elif isinstance(keys, pd.api.extensions.ExtensionArray):
        series = pd.Series(keys, copy=False)
    else:
        refuse("expected one key per row (a list, array, Series or Index of numbers or "
               f"text), got {type(keys).__name__}")
    if rows is not None and len(series) != rows:
        refuse(f"{len(series)} keys for the release's {rows} rows: give one key per row")
    if series.dtype == object and pd.api.types.infer_dtype(series, skipna=True) not in (
            "string", "integer", "floating", "mixed-integer-float", "bytes", "empty"):
        try:  # one hash pass, only for keys that are not all text or numbers
            pd.factorize(series)
        except TypeError:
            bad = next(k for k in series if not _hashable(k))
            refuse(f"a key is a {type(bad).__name__} ({bad!r:.40}); keys are numbers or text")
    missing = np.flatnonzero(np.asarray(series.isna(), dtype=bool))
    if len(missing):
        refuse(f"{len(missing)} row(s) have no key, the first is row {int(missing[0])}: "
               "every row needs one")
    return series


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def number_keys(keys: pd.Series) -> tuple[np.ndarray, object]:
    """``(codes, persons)``: every key numbered 0 .. P-1 (-1 for a missing key) and the P
    distinct keys. Non-negative integer keys of a compact range, and text keys whose
    mixed-radix numbers form one, are numbered by a table lookup (in key order); any other
    keys by one hash pass (in order of first appearance).

    >>> codes, persons = number_keys(pd.Series(["P02", "P01", "P02"]))
    >>> codes.tolist(), list(persons)
    ([1, 0, 1], ['P01', 'P02'])
    """
    n = len(keys)
    if pd.api.types.is_integer_dtype(keys.dtype) and n and not keys.hasnans:
        raw = keys.to_numpy(dtype=np.int64)
        low, high = int(raw.min()), int(raw.max())
        if low >= 0 and high < 4 * n + 1024:
            codes, present = _table_numbers(raw, high + 1)
            return codes, np.flatnonzero(present)
    packed = _packed_text(keys) if n else None
    if packed is not None:
        number, span, fixed = packed
        if span <= 4 * n + 1024:
            codes, present = _table_numbers(number, span)
            persons_count = int(present.sum())
        else:
            codes, uniques = pd.factorize(number)
            codes, persons_count = np.asarray(codes, dtype=np.int64), len(uniques)
        first = np.empty(persons_count, dtype=np.intp)
        first[codes[::-1]] = np.arange(n - 1, -1, -1)
        return codes, fixed(first) if fixed is not None else keys.array.take(first)
    codes, persons = pd.factorize(keys)
    return np.asarray(codes, dtype=np.int64), persons


def _table_numbers(values: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """Numbers of non-negative integers below ``span`` by a presence table (equal values get
    equal numbers, in increasing order of the value), and the table."""
    present = np.zeros(span, dtype=bool)
    present[values] = True
    number = np.cumsum(present) - 1
    return number[values], present


def _packed_text(keys: pd.Series):
    """``(number, span, take)``: per key its mixed-radix number, the radix product and, for
    keys of one length, a function giving the keys at some rows as strings (else None); or
    None when the keys are not all present strings of at most :data:`MAX_PACKED_BYTES`
    bytes (or the numbers would not fit an int64). Equal keys <=> equal numbers; the order
    is the keys' byte order."""
    import pyarrow as pa

    if not (pd.api.types.is_string_dtype(keys.dtype) or keys.dtype == object):
        return None
    try:
        arr = pa.array(keys.array)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
        return None
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return None
    if arr.null_count:
        return None
    chunks = [c for c in (arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]) if len(c)]
    pieces = []
    for c in chunks:
        buffers = c.buffers()
        off_type = np.int64 if pa.types.is_large_string(c.type) else np.int32
        offsets = np.frombuffer(buffers[1], dtype=off_type)[c.offset:c.offset + len(c) + 1]
        data = (np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None
                else np.zeros(0, dtype=np.uint8))
        pieces.append((offsets.astype(np.int64), data))
    lengths = [np.diff(offsets) for offsets, _ in pieces]
    size = max(int(length.max()) for length in lengths)
    if size > MAX_PACKED_BYTES:
        return None
    same = all((length == size).all() for length in lengths)
    width = size + size % 2
    varying = not same or width != size
    digits = [_pair_columns(offsets, data, length, width, varying)
              for (offsets, data), length in zip(pieces, lengths)]
    if varying:  # the length is one more digit: padding stays apart from NUL bytes
        for d, length in zip(digits, lengths):
            d.append(length.astype(np.uint16))
    number = [np.zeros(len(length), dtype=np.int64) for length in lengths]
    span = 1
    for p in range(len(digits[0])):
        present = np.zeros(1 << 16, dtype=bool)
        for d in digits:
            present[d[p]] = True
        radix = int(present.sum())
        if radix == 1:
            continue
        span *= radix
        if span >= 2 ** 62:
            return None
        rank = (np.cumsum(present) - 1).astype(np.int64)
        for num, d in zip(number, digits):
            num *= radix
            num += rank[d[p]]
    take = None
    if same:
        rows = np.concatenate([data[offsets[0]:offsets[-1]].reshape(-1, size)
                               for offsets, data in pieces]) if size else None

        def take(at: np.ndarray):
            if rows is None:  # every key is the empty string
                return np.array([""] * len(at), dtype=object)
            text = pa.LargeStringArray.from_buffers(
                len(at), pa.py_buffer(np.arange(len(at) + 1, dtype=np.int64) * size),
                pa.py_buffer(np.take(rows, at, axis=0)))
            if keys.dtype == object:
                return text.to_numpy(zero_copy_only=False)
            return pd.array(text, dtype=keys.dtype)
    return np.concatenate(number), span, take


def _pair_columns(offsets, data, length, width: int, varying: bool) -> list:
    """The keys' bytes as ``width // 2`` columns of big-endian byte pairs (zero-padded)."""
    n = len(length)
    if not varying:
        pairs = data[offsets[0]:offsets[-1]].view(">u2").reshape(n, width // 2)
        return [pairs[:, p].astype(np.uint16) for p in range(width // 2)]  # native, contiguous
    last = max(len(data) - 1, 0)
    starts = offsets[:-1]
    source = data if len(data) else np.zeros(1, dtype=np.uint8)
    cols = []
    for j in range(width):
        byte = source[np.minimum(starts + j, last)].astype(np.uint16)
        byte[length <= j] = 0
        cols.append(byte)
    return [(cols[j] << 8) | cols[j + 1] for j in range(0, width, 2)]
