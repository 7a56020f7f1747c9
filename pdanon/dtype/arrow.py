"""Arrow / Parquet support: the ``pdanon.generalization`` Arrow extension type.

The type is registered with pyarrow when :mod:`pdanon.dtype` is imported (pandas has already
imported pyarrow by then), so ``pd.read_parquet`` restores the exact dtype. Importing this module
also registers its two conversion functions, :func:`array_to_arrow` as the writer of
``GeneralizationArray.__arrow_array__`` and :func:`arrow_to_array` as the reader of
``GeneralizationDtype.__from_arrow__`` (the array and dtype modules do not import this one). The
conversion functions import pyarrow only when called.

>>> import pandas as pd
>>> arr = pd.array([39, None], dtype="generalization[real]")
>>> arr.__arrow_array__().storage.to_pylist()
[{'lo': 39, 'hi': 39, 'or_missing': False}, None]
>>> half = pd.array(["[30, 35)", "40"], dtype="generalization[real]")
>>> half.__arrow_array__().storage.to_pylist()[0]
{'lo': 30, 'hi': 35, 'closed': 'left', 'or_missing': False}

A cell that covers missing too (``[20, 29] or missing``, :mod:`pdanon.dtype.ormissing`) is
stored with the same storage type whether or not any cell of the column has the flag (so the
parts of a Dask frame, written one by one, share one schema): ranges always carry a boolean
``or_missing`` field next to ``lo``/``hi`` (a file without it, written before, reads as all
false); a set's list of members ends with a null member.

>>> both = pd.array(["[20, 29] or missing", "40"], dtype="generalization[real]")
>>> both.__arrow_array__().storage.to_pylist()
[{'lo': 20, 'hi': 29, 'or_missing': True}, {'lo': 40, 'hi': 40, 'or_missing': False}]
>>> sets = pd.array(["{a, b} or missing", "a"], dtype="generalization[unordered]")
>>> sets.__arrow_array__().storage.to_pylist()
[['a', 'b', None], ['a']]
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from pdanon.dtype._common import (CLOSED, OR_MISSING, categories_from_plain, closed_flags,
                                  infer_categories, plain_categories)
from pdanon.dtype.array import GeneralizationArray, register_arrow_writer
from pdanon.dtype.dtype import GeneralizationDtype, register_arrow_reader
from pdanon.dtype.storage import csr_members, gather_segments, sets_from_pairs

__all__ = ["array_to_arrow", "arrow_to_array"]

_ARROW_NAME = "pdanon.generalization"

#: categories of several types (e.g. 1, "1" and "a"): each is stored as [type, value] in the
#: metadata, and the cells hold category positions (one Arrow type cannot hold the values)
_MIXED = "mixed"
_TYPES = {"str": str, "int": int, "float": float, "bool": bool}


def _type_name(c) -> str | None:
    for name in ("bool", "int", "float", "str"):  # bool before int: True is an int too
        if isinstance(c, _TYPES[name]):
            return name
    return None


def _is_temporal(ctype) -> bool:
    return isinstance(ctype, str) and (ctype == "date" or ctype.startswith(
        ("datetime64", "timedelta64")))


def _arrow_categories(cats_json, ctype, pa):
    """The categories as one Arrow array (timestamps keep their unit and time zone)."""
    if not cats_json:
        return pa.array([], pa.string())
    if _is_temporal(ctype):
        values = categories_from_plain(cats_json, ctype)
        return pa.array(list(values) if ctype == "date" else values)
    return pa.array(cats_json)


def _categories_to_json(dtype: GeneralizationDtype):
    if dtype.categories is None:
        return None, None
    text, ctype = plain_categories(dtype.categories)  # dates and times: ISO text
    if ctype is not None:
        return text, ctype
    cl = dtype._cat_list
    if all(isinstance(c, str) for c in cl):
        return cl, "str"
    if all(isinstance(c, bool) for c in cl):
        return cl, "bool"
    if all(isinstance(c, int) and not isinstance(c, bool) for c in cl):
        if all(-2 ** 63 <= c < 2 ** 63 for c in cl):
            return cl, "int"
        # beyond 64 bits (a 20-digit account number): Arrow has no such integer, so the cells
        # hold category positions and the exact values travel in the JSON metadata
        return [["int", c] for c in cl], _MIXED
    if all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in cl):
        return [float(c) for c in cl], "float"
    names = [_type_name(c) for c in cl]
    if all(names):
        return [[t, c] for t, c in zip(names, cl)], _MIXED
    bad = next(c for c, t in zip(cl, names) if t is None)
    raise TypeError(
        f"categories of {dtype!r} hold {bad!r} (type {type(bad).__name__}), which pdanon cannot "
        "store in Parquet (str, int, float, bool, or dates, timestamps of one time zone and "
        "durations); convert the column first, e.g. with .astype(str)")


def _categories_from_json(values, ctype):
    if values is None:
        return None
    if _is_temporal(ctype) or (isinstance(ctype, str) and ctype.startswith("period[")):
        return categories_from_plain(values, ctype)  # periods are stored as their text
    if ctype == "float":
        return pd.Index(np.asarray(values, dtype=np.float64))
    if ctype == "int":
        return pd.Index(np.asarray(values, dtype=np.int64))
    if ctype == "bool":
        return pd.Index(np.asarray(values, dtype=bool), dtype=object)
    if ctype == _MIXED:
        out = np.empty(len(values), dtype=object)
        for i, (t, v) in enumerate(values):
            out[i] = _TYPES[t](v)
        return pd.Index(out, dtype=object, tupleize_cols=False)
    return pd.Index(values, dtype=object)


try:  # pyarrow is a dependency of pdanon (and already imported by pandas)
    import pyarrow as _pa
except ImportError:  # pragma: no cover
    _pa = None


if _pa is not None:

    class GeneralizationArrowType(_pa.ExtensionType):
        """Arrow extension type of generalized columns (name ``pdanon.generalization``).

        Storage: ``struct<lo, hi>`` of numbers (real / numeric ordered) or of category values
        (ordered with categories), ``list<value>`` of members (unordered). Kind and categories
        travel in the extension metadata, so ``pd.read_parquet`` restores the exact dtype once
        pdanon is imported; other readers see the plain storage.
        """

        def __init__(self, storage_type, kind: str, categories=None, categories_type=None):
            self._kind = kind
            self._categories = None if categories is None else list(categories)
            self._categories_type = categories_type
            super().__init__(storage_type, _ARROW_NAME)

        def __arrow_ext_serialize__(self) -> bytes:
            return json.dumps({"kind": self._kind, "categories": self._categories,
                               "categories_type": self._categories_type},
                              sort_keys=True).encode()

        @classmethod
        def __arrow_ext_deserialize__(cls, storage_type, serialized):
            meta = json.loads(serialized.decode())
            return cls(storage_type, meta["kind"], meta.get("categories"),
                       meta.get("categories_type"))

        def __reduce__(self):
            return (GeneralizationArrowType, (self.storage_type, self._kind, self._categories,
                                              self._categories_type))

        def __hash__(self):
            return hash((_ARROW_NAME, str(self.storage_type), self.__arrow_ext_serialize__()))

        def to_pandas_dtype(self):
            return GeneralizationDtype(self._kind, _categories_from_json(self._categories,
                                                                         self._categories_type))

    try:
        _pa.register_extension_type(GeneralizationArrowType(
            _pa.struct([("lo", _pa.float64()), ("hi", _pa.float64())]), "real"))
    except _pa.ArrowKeyError:  # already registered (module reloaded)
        pass


def array_to_arrow(arr: GeneralizationArray):
    """A GeneralizationArray as a pyarrow ExtensionArray of the ``pdanon.generalization`` type."""
    import pyarrow as pa

    dtype = arr.dtype
    cats_json, ctype = _categories_to_json(dtype)
    na = arr.isna()
    mask = pa.array(na, type=pa.bool_())
    if dtype.is_numeric_bounds:
        if arr._integer:
            lo = np.where(na, 0, np.nan_to_num(arr._lo)).astype(np.int64)
            hi = np.where(na, 0, np.nan_to_num(arr._hi)).astype(np.int64)
            typ = pa.int64()
        else:
            lo, hi = np.nan_to_num(arr._lo), np.nan_to_num(arr._hi)
            typ = pa.float64()
        fields = [pa.array(lo, typ), pa.array(hi, typ)]
        names = ["lo", "hi"]
        if (arr._open & 3).any():
            # which ends belong to each range, with pandas' names ("both", "left", ...)
            fields.append(pa.array(list(CLOSED)).take(pa.array(_closed_index(arr._open & 3))))
            names.append("closed")
        storage = pa.StructArray.from_arrays(fields, names=names, mask=mask)
    elif ctype == _MIXED:
        # categories of several types: the cells hold their positions in the categories
        lo = np.where(na, 0, np.nan_to_num(arr._lo)).astype(np.int64) if dtype.column_type \
            != "unordered" else None
        storage = _positions_storage(arr, na, mask, lo, pa)
    elif dtype.column_type == "ordered":
        cats = _arrow_categories(cats_json, ctype, pa)
        lo = np.where(na, 0, np.nan_to_num(arr._lo)).astype(np.int64)
        hi = np.where(na, 0, np.nan_to_num(arr._hi)).astype(np.int64)
        if len(cats_json) == 0:
            storage = pa.StructArray.from_arrays(
                [pa.nulls(len(arr), pa.string()), pa.nulls(len(arr), pa.string())],
                names=["lo", "hi"], mask=mask)
        else:
            storage = pa.StructArray.from_arrays([cats.take(pa.array(lo)), cats.take(pa.array(hi))],
                                                 names=["lo", "hi"], mask=mask)
    else:
        cats = _arrow_categories(cats_json, ctype, pa)
        offsets, flat = _members(arr, na)
        values = (cats.take(pa.array(flat, pa.int64(), mask=flat < 0)) if len(flat)
                  else pa.array([], cats.type))  # -1: the null member of a cell "or missing"
        storage = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), values, mask=mask)
    if dtype.column_type != "unordered":  # every range column: one storage type
        storage = _with_or_missing(storage, (arr._open & OR_MISSING) != 0, mask, pa)
    typ = GeneralizationArrowType(storage.type, dtype.column_type, cats_json, ctype)
    return pa.ExtensionArray.from_storage(typ, storage)


def _with_or_missing(storage, flags: np.ndarray, mask, pa):
    """A struct of bounds with the boolean ``or_missing`` field added."""
    fields = [storage.field(i) for i in range(storage.type.num_fields)]
    names = [storage.type.field(i).name for i in range(storage.type.num_fields)]
    return pa.StructArray.from_arrays(fields + [pa.array(flags, type=pa.bool_())],
                                      names=names + ["or_missing"], mask=mask)


def _range_flags(storage) -> np.ndarray | None:
    """The ``or_missing`` field of a struct of bounds (None: a file written without it)."""
    if storage.type.get_field_index("or_missing") < 0:
        return None
    return np.asarray(storage.field("or_missing").fill_null(False).to_numpy(
        zero_copy_only=False), dtype=bool)


def _null_member_rows(n: int, parents: np.ndarray, null: np.ndarray) -> np.ndarray | None:
    """Per row: does its list hold a null member (a set "or missing")? None when none does."""
    if not null.any():
        return None
    flags = np.zeros(n, dtype=bool)
    flags[parents[null]] = True
    return flags


def _closed_index(open_: np.ndarray) -> np.ndarray:
    """Open-end flags -> positions in CLOSED."""
    order = np.array([closed_flags(c) for c in CLOSED])
    lookup = np.empty(4, dtype=np.int64)
    lookup[order] = np.arange(4)
    return lookup[open_]


def _positions_storage(arr: GeneralizationArray, na, mask, lo, pa):
    """Storage of a column whose categories mix types: category positions."""
    if lo is not None:  # ordered
        hi = np.where(na, 0, np.nan_to_num(arr._hi)).astype(np.int64)
        return pa.StructArray.from_arrays([pa.array(lo, pa.int64()), pa.array(hi, pa.int64())],
                                          names=["lo", "hi"], mask=mask)
    offsets, flat = _members(arr, na)
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()),
                                    pa.array(flat, pa.int64(), mask=flat < 0), mask=mask)


def _members(arr: GeneralizationArray, na: np.ndarray):
    """(list offsets, flat category positions) of the members of every unordered cell; a cell
    that covers missing too ends with the position -1 (written as a null member)."""
    indptr, indices = csr_members(arr.dtype._n_categories, arr._table)
    codes = arr._codes
    lens = np.zeros(len(codes), dtype=np.int64)
    flat = np.zeros(0, dtype=np.int64)
    if (~na).any():
        lens[~na], flat = gather_segments(indptr, indices, codes[~na])
    flagged = ((arr._open & OR_MISSING) != 0) & ~na
    if flagged.any():  # one more slot at the end of each flagged cell's members
        ends = np.cumsum(lens)
        full = np.full(len(flat) + int(flagged.sum()), -1, dtype=np.int64)
        shift = np.cumsum(flagged) - flagged  # flagged cells before each row
        start = ends - lens + shift
        pos = np.repeat(start, lens) + (np.arange(len(flat)) - np.repeat(ends - lens, lens))
        full[pos] = flat
        flat, lens = full, lens + flagged
    return np.concatenate([[0], np.cumsum(lens)]).astype(np.int32), flat


def arrow_to_array(dtype: GeneralizationDtype, data) -> GeneralizationArray:
    """A GeneralizationArray of ``dtype`` from a pyarrow (Chunked)Array written by pdanon."""
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = data.chunks if isinstance(data, pa.ChunkedArray) else [data]
    parts = []
    for chunk in chunks:
        ext_dtype = dtype
        positions = False
        if isinstance(chunk.type, pa.BaseExtensionType):
            if isinstance(chunk.type, GeneralizationArrowType):
                positions = chunk.type._categories_type == _MIXED
                if dtype.categories is None or positions:
                    ext_dtype = chunk.type.to_pandas_dtype()
            chunk = chunk.storage
        if positions:
            parts.append(_positions_to_array(ext_dtype, chunk, pc))
        else:
            parts.append(_storage_to_array(ext_dtype, chunk, pa, pc))
    if not parts:
        return GeneralizationArray._empty((0,), dtype if dtype.column_type != "unordered"
                                          or dtype.categories is not None
                                          else GeneralizationDtype("unordered", []))
    return GeneralizationArray._concat_same_type(parts)


def _storage_to_array(dtype, storage, pa, pc) -> GeneralizationArray:
    n = len(storage)
    na = storage.is_null().to_numpy(zero_copy_only=False).astype(bool)
    if dtype.column_type != "unordered":
        lo_f, hi_f = storage.field("lo"), storage.field("hi")
        numeric = pa.types.is_integer(lo_f.type) or pa.types.is_floating(lo_f.type)
        if dtype.categories is None and numeric:
            integer = pa.types.is_integer(lo_f.type)
            lo = lo_f.fill_null(0).to_numpy(zero_copy_only=False).astype(np.float64)
            hi = hi_f.fill_null(0).to_numpy(zero_copy_only=False).astype(np.float64)
            closed = "both"
            if storage.type.get_field_index("closed") >= 0:
                closed = storage.field("closed").fill_null("both").to_numpy(zero_copy_only=False)
            return _flagged(GeneralizationArray.from_bounds(
                lo, hi, kind=dtype.column_type, mask=na, integer=integer, closed=closed),
                _range_flags(storage))
        lo_i, lo_d = _dict_encode(lo_f, pc)
        hi_i, hi_d = _dict_encode(hi_f, pc)
        if dtype.categories is None:
            dtype = GeneralizationDtype(dtype.column_type, infer_categories(
                np.concatenate([lo_d, hi_d]), sort=True))
        cats = dtype.categories
        lo = np.where(na, -1, _codes_via_dict(cats, lo_i, lo_d))
        hi = np.where(na, -1, _codes_via_dict(cats, hi_i, hi_d))
        if ((lo < 0) & ~na).any() or ((hi < 0) & ~na).any():
            raise ValueError("Parquet column holds missing bounds in non-missing cells")
        return _flagged(GeneralizationArray.from_bounds(lo, hi, kind=dtype.column_type,
                                                        categories=cats, mask=na),
                        _range_flags(storage))
    values = pc.list_flatten(storage)
    parents = pc.list_parent_indices(storage).to_numpy(zero_copy_only=False)
    vidx, vdict = _dict_encode(values, pc)
    if dtype.categories is None:
        dtype = GeneralizationDtype("unordered", infer_categories(vdict, sort=True))
    codes = _codes_via_dict(dtype.categories, vidx, vdict)
    null = vidx < 0  # a null member: the cell covers missing too
    keep = (~na[parents] & ~null) if len(parents) else np.zeros(0, bool)
    cell_codes, table = sets_from_pairs(n, parents[keep], codes[keep], dtype._n_categories)
    return _flagged(GeneralizationArray._new_sets(cell_codes, table, dtype),
                    _null_member_rows(n, parents, null))


def _flagged(arr: GeneralizationArray, flags: np.ndarray | None) -> GeneralizationArray:
    return arr if flags is None or not flags.any() else arr.with_or_missing(flags)


def _positions_to_array(dtype, storage, pc) -> GeneralizationArray:
    """A column whose categories mix types: its cells hold category positions."""
    na = storage.is_null().to_numpy(zero_copy_only=False).astype(bool)
    if dtype.column_type != "unordered":
        lo, hi = (storage.field(f).fill_null(-1).to_numpy(zero_copy_only=False)
                  for f in ("lo", "hi"))
        return _flagged(GeneralizationArray.from_bounds(lo, hi, kind=dtype.column_type,
                                                        categories=dtype.categories, mask=na),
                        _range_flags(storage))
    flat = pc.list_flatten(storage).fill_null(-1).to_numpy(zero_copy_only=False).astype(
        np.int64)
    parents = pc.list_parent_indices(storage).to_numpy(zero_copy_only=False)
    null = flat < 0  # a null member: the cell covers missing too
    keep = (~na[parents] & ~null) if len(parents) else np.zeros(0, bool)
    cell_codes, table = sets_from_pairs(len(storage), parents[keep], flat[keep],
                                        dtype._n_categories)
    return _flagged(GeneralizationArray._new_sets(cell_codes, table, dtype),
                    _null_member_rows(len(storage), parents, null))


def _dict_encode(values, pc):
    """Arrow array -> (int64 indices (-1 for null), object ndarray of distinct values)."""
    import pyarrow as pa

    enc = pc.dictionary_encode(values)
    idx = enc.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    if pa.types.is_temporal(enc.dictionary.type):  # Timestamps with their time zone, dates
        dct = np.asarray(list(enc.dictionary.to_pandas()), dtype=object)
    else:
        dct = np.asarray(enc.dictionary.to_numpy(zero_copy_only=False), dtype=object)
    return idx, dct


def _codes_via_dict(categories: pd.Index, idx: np.ndarray, dct: np.ndarray) -> np.ndarray:
    pos = categories.get_indexer(pd.Index(dct, tupleize_cols=False)) if len(dct) else \
        np.zeros(0, np.int64)
    if (pos < 0).any():
        raise ValueError(f"Parquet column holds values missing from its categories: "
                         f"{dct[pos < 0][:5].tolist()}")
    out = np.full(len(idx), -1, dtype=np.int64)
    ok = idx >= 0
    out[ok] = pos[idx[ok]]
    return out


register_arrow_writer(array_to_arrow)
register_arrow_reader(arrow_to_array)
