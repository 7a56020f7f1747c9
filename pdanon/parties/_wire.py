"""Messages of the two-party protocol as plain bytes, and the channels that carry them.

A message is ``MAGIC`` (4 bytes) · header length (4 bytes, big endian) · UTF-8 JSON header ·
binary payload. The header always has ``"type"``; curve points travel in the payload as
concatenated 33-byte compressed encodings. Nothing is pickled: a message from the other owner
is parsed as data only, its size is capped before it is read, and every header field is
type-checked (:func:`check_header`) before the owner looks at it.

Example
-------
>>> m = encode({"type": "round", "round": 0, "merge": [0, 1]}, b"")
>>> decode(m)
({'type': 'round', 'round': 0, 'merge': [0, 1]}, b'')
>>> check_header(decode(m)[0])
>>> check_header({"type": "round", "round": True, "merge": [0, 1]})
Traceback (most recent call last):
...
pdanon.parties._curve.ProtocolError: field 'round' of the other owner's 'round' message must be an integer, got bool
"""

from __future__ import annotations

import json
import math
import re
import select
import socket
import struct
import time

import numpy as np
import pandas as pd

from pdanon.parties._curve import POINT_BYTES, ProtocolError

__all__ = ["MAGIC", "VERSION", "encode", "decode", "check_header", "table_to_json",
           "table_from_json", "table_header_cap", "SocketChannel"]

MAGIC = b"PDP1"
#: protocol version, checked in ``hello`` (2: public keys and Chaum–Pedersen proofs)
VERSION = 2
_LEN = struct.Struct(">I")
#: largest header of every message but ``table`` (bytes)
MAX_HEADER = 1 << 20
#: a ``table`` header may take ``MAX_HEADER + rows × columns × MAX_CELL_BYTES`` bytes: the
#: average cell (value and its category, JSON-encoded) may take this many bytes
MAX_CELL_BYTES = 512
#: most columns an owner may announce in ``hello`` and send in ``table`` (its quasi-identifiers
#: and sensitive columns); the ``table`` cap above counts at most this many
MAX_COLUMNS = 1000
#: largest ``table`` header whatever the rows and columns (bytes): the parse, the checks and
#: the restore after the receive stay bounded (measured at this size, worst case over cells
#: of 2-byte ints, short floats, short strings and full tables: <= 6 s and <= 1 GB)
MAX_TABLE_HEADER = 64 << 20
#: most JSON lists and objects a header may hold (outside strings): a ``table`` needs about
#: four per column; an empty ``[]`` costs ~64 bytes of Python objects for 2-3 bytes of JSON
MAX_CONTAINERS = 4 * MAX_COLUMNS + 16
#: default cap of a :class:`SocketChannel` message when the owner gives none
MAX_MESSAGE = 64 << 20
#: largest integer accepted in a header (counts, sizes, labels, cells)
_MAX_INT = 1 << 63
_MAX_NAME = 1000
_HEX = re.compile(r"[0-9a-f]*")
_CHUNK = 1 << 22
_DTYPE = re.compile(
    r"(bool|boolean|object|category|string|str|(u?int|Int|UInt)(8|16|32|64)|"
    r"(float|Float)(16|32|64)|(datetime64|timedelta64)\[(s|ms|us|ns)(, [A-Za-z0-9_/+:-]{1,40})?\])")


def encode(header: dict, payload: bytes = b"") -> bytes:
    """One message: magic, header length, JSON header, payload."""
    head = json.dumps(header, separators=(",", ":"), allow_nan=False).encode("utf-8")
    return MAGIC + _LEN.pack(len(head)) + head + payload


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def decode(message, *, max_header: int = MAX_HEADER) -> tuple[dict, bytes]:
    """``(header, payload)`` of a message; raises :class:`ProtocolError` (and nothing else) when
    it is malformed or its header is longer than ``max_header`` bytes."""
    if not isinstance(message, (bytes, bytearray, memoryview)):
        raise ProtocolError(f"a message must be bytes, got {type(message).__name__}")
    message = bytes(message)
    if len(message) < 8 or message[:4] != MAGIC:
        raise ProtocolError("not a pdanon.parties message (bad magic bytes)")
    (hlen,) = _LEN.unpack(message[4:8])
    if hlen > max_header:
        raise ProtocolError(f"the message header has {hlen} bytes, more than the {max_header} "
                            "this message may have; refusing")
    if 8 + hlen > len(message):
        raise ProtocolError("truncated message")
    containers = _containers(message[8:8 + hlen])
    if containers > MAX_CONTAINERS:
        raise ProtocolError(
            f"the message header holds {containers:,} JSON lists or objects, more than the "
            f"{MAX_CONTAINERS:,} any message needs (about 4 per column, at most "
            f"{MAX_COLUMNS:,} columns); refusing before parsing it")
    try:
        header = json.loads(message[8:8 + hlen].decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError):
        raise ProtocolError("message header is not valid JSON") from None
    except RecursionError:
        raise ProtocolError("message header is nested too deeply") from None
    if not isinstance(header, dict) or not isinstance(header.get("type"), str):
        raise ProtocolError("message header has no 'type'")
    return header, message[8 + hlen:]


def _containers(head: bytes) -> int:
    """JSON lists and objects in a header: its ``[`` and ``{`` outside string literals (the
    literals are only looked for when the raw count is over the cap: brackets in text cells).
    One numpy pass per 4 MiB chunk, carrying whether the chunk starts inside a string and the
    backslashes just before it (a quote after an odd run of backslashes is escaped)."""
    count = head.count(b"[") + head.count(b"{")
    if count <= MAX_CONTAINERS:
        return count
    data = np.frombuffer(head, dtype=np.uint8)
    count, inside, run = 0, 0, 0
    for start in range(0, len(data), _CHUNK):
        c = data[start:start + _CHUNK]
        plain = np.flatnonzero(c != 92)  # not a backslash
        quotes = np.flatnonzero(c == 34)
        before = np.searchsorted(plain, quotes) - 1  # the last plain byte before each quote
        last = np.where(before >= 0, plain[np.maximum(before, 0)], -1 - run)
        real = quotes[(quotes - 1 - last) % 2 == 0]  # after an even run of backslashes
        brackets = np.flatnonzero((c == 91) | (c == 123))
        count += int(np.count_nonzero((np.searchsorted(real, brackets) + inside) % 2 == 0))
        inside = (inside + len(real)) % 2
        run = len(c) - 1 - int(plain[-1]) if len(plain) else run + len(c)
    return count


def table_header_cap(rows: int, columns: int) -> int:
    """Largest ``table`` header accepted from an owner with ``columns`` columns (bytes):
    ``MAX_HEADER + rows × columns × MAX_CELL_BYTES``, columns counted up to
    :data:`MAX_COLUMNS`, at most :data:`MAX_TABLE_HEADER`.

    >>> table_header_cap(12, 1), table_header_cap(10**6, 150_000) == MAX_TABLE_HEADER
    (1054720, True)
    """
    return min(MAX_HEADER + rows * min(columns, MAX_COLUMNS) * MAX_CELL_BYTES,
               MAX_TABLE_HEADER)


def _column_count(kind: str, columns: list) -> None:
    if len(columns) > MAX_COLUMNS:
        raise ProtocolError(
            f"the other owner's {kind!r} message has {len(columns):,} columns, more than the "
            f"{MAX_COLUMNS:,} the protocol allows (pdanon.parties._wire.MAX_COLUMNS); "
            "refusing")


# ============================================================================ header checks


def _bad(kind: str, field: str, what: str, value) -> ProtocolError:
    return ProtocolError(f"field {field!r} of the other owner's {kind!r} message must be {what}"
                         f", got {type(value).__name__}")


def _int(kind, field, v, lo=0):
    if type(v) is not int:
        raise _bad(kind, field, "an integer", v)
    if not lo <= v < _MAX_INT:
        raise ProtocolError(f"field {field!r} of the other owner's {kind!r} message is out of "
                            f"range ({v})")
    return v


def _hexfield(kind, field, v, nbytes):
    if not isinstance(v, str) or len(v) != 2 * nbytes or not _HEX.fullmatch(v):
        raise ProtocolError(f"field {field!r} of the other owner's {kind!r} message must be "
                            f"{2 * nbytes} lowercase hex digits")
    return v


def _is_scalar_name(x) -> bool:
    if x is None or type(x) in (bool, int):
        return type(x) is not int or abs(x) < _MAX_INT
    if type(x) is float:
        return math.isfinite(x)
    return isinstance(x, str) and len(x) <= _MAX_NAME


def _column_name(kind, v):
    if _is_scalar_name(v) or (isinstance(v, list) and 1 <= len(v) <= 16
                              and all(_is_scalar_name(x) for x in v)):
        return v
    raise ProtocolError(f"a column name in the other owner's {kind!r} message is not a string, "
                        "number or list of them (or is longer than 1000 characters)")


def _proof(kind, v):
    if v is None:
        return v
    if not isinstance(v, dict) or set(v) != {"c", "s"}:
        raise ProtocolError(f"field 'proof' of the other owner's {kind!r} message must be null "
                            "or {\"c\": hex, \"s\": hex}")
    for f in ("c", "s"):
        _hexfield(kind, f"proof.{f}", v[f], 32)
    return v


_FIELDS = {
    "hello": ("version", "first", "rows", "k", "nonce", "key", "columns"),
    "single": ("sizes", "proof"),
    "double": ("sizes", "proof"),
    "round": ("round", "merge"),
    "table": ("round", "columns"),
    "abort": ("reason",),
}
_COLUMN_FIELDS = {"name", "role", "kind", "dtype", "values"}
_KINDS = ("real", "ordered", "unordered")


def check_header(header: dict) -> None:
    """Type-check every field of a decoded header (exactly the fields of its message type);
    raises :class:`ProtocolError` naming the field. The values are checked against this
    owner's state by the owner."""
    kind = header["type"]
    if kind not in _FIELDS:
        raise ProtocolError(f"unknown message type {kind[:40]!r} from the other owner")
    if kind == "hello" and header.get("version") != VERSION:
        v = header.get("version")
        raise ProtocolError(f"the other owner speaks protocol version "
                            f"{v if type(v) is int else '?'}, this one {VERSION}; use the same "
                            "pdanon version on both sides")
    want = set(_FIELDS[kind]) | {"type"}
    if set(header) != want:
        extra, missing = sorted(set(header) - want), sorted(want - set(header))
        raise ProtocolError(f"the other owner's {kind!r} message has unexpected fields "
                            f"{[x[:40] for x in extra]} / lacks {missing}")
    h = header
    if kind == "hello":
        if type(h["first"]) is not bool:
            raise _bad(kind, "first", "true or false", h["first"])
        _int(kind, "rows", h["rows"])
        _int(kind, "k", h["k"], lo=1)
        _hexfield(kind, "nonce", h["nonce"], 32)
        _hexfield(kind, "key", h["key"], POINT_BYTES)
        if not isinstance(h["columns"], list):
            raise _bad(kind, "columns", "a list of column names", h["columns"])
        _column_count(kind, h["columns"])
        for name in h["columns"]:
            _column_name(kind, name)
    elif kind in ("single", "double"):
        if not isinstance(h["sizes"], list):
            raise _bad(kind, "sizes", "a list of group sizes", h["sizes"])
        for size in h["sizes"]:
            _int(kind, "sizes", size, lo=1)
        _proof(kind, h["proof"])
    elif kind == "round":
        _int(kind, "round", h["round"])
        m = h["merge"]
        if not isinstance(m, list) or len(m) != 2:
            raise _bad(kind, "merge", "a list of two group labels", m)
        _int(kind, "merge", m[0])
        _int(kind, "merge", m[1])
    elif kind == "table":
        _int(kind, "round", h["round"])
        if not isinstance(h["columns"], list):
            raise _bad(kind, "columns", "a list of columns", h["columns"])
        _column_count(kind, h["columns"])
        for col in h["columns"]:
            _check_column(col)
    elif kind == "abort":
        if not isinstance(h["reason"], str) or len(h["reason"]) > 200:
            raise _bad(kind, "reason", "a string of at most 200 characters", h["reason"])


def _check_column(col) -> None:
    kind = "table"
    if not isinstance(col, dict) or not (set(col) == _COLUMN_FIELDS or set(col) == (
            _COLUMN_FIELDS | {"categories", "ordered"})):
        raise ProtocolError("malformed column in the other owner's table (its fields must be "
                            "name, role, kind, dtype, values [, categories, ordered])")
    _column_name(kind, col["name"])
    if col["role"] not in ("qi", "sensitive"):
        raise ProtocolError("a column role in the other owner's table is not 'qi' or "
                            "'sensitive'")
    if col["kind"] not in _KINDS:
        raise ProtocolError(f"a column kind in the other owner's table is not one of "
                            f"{list(_KINDS)}")
    if not isinstance(col["dtype"], str) or not _DTYPE.fullmatch(col["dtype"]):
        raise ProtocolError("a column of the other owner's table has an unsupported dtype")
    if not isinstance(col["values"], list):
        raise _bad(kind, "values", "a list", col["values"])
    if "categories" in col:
        if not isinstance(col["categories"], list):
            raise _bad(kind, "categories", "a list", col["categories"])
        if type(col["ordered"]) is not bool:
            raise _bad(kind, "ordered", "true or false", col["ordered"])
    if not _cells_ok(col["values"]) or not _cells_ok(col.get("categories", [])):
        raise ProtocolError("a cell of the other owner's table is not null, a boolean, a "
                            "64-bit integer, a finite number or a string")


_CELL_TYPES = {type(None), bool, int, float, str}


def _cells_ok(cells: list) -> bool:
    """Every cell null, a boolean, a 64-bit integer (signed or unsigned), a finite number or a
    string: the types in one pass, then the ranges of the integers and floats (C-speed passes,
    not a Python call per cell: the checks after a receive stay bounded in time).

    >>> _cells_ok([None, True, 3, 2.5, "x"]), _cells_ok([1 << 64]), _cells_ok([1e999])
    (True, False, False)
    """
    types = set(map(type, cells))
    if not types <= _CELL_TYPES:
        return False
    for t in (int, float):
        if t in types:
            some = cells if len(types) == 1 else [v for v in cells if type(v) is t]
            if t is int and (min(some) < -_MAX_INT or max(some) >= 2 * _MAX_INT):
                return False
            if t is float and not np.isfinite(np.asarray(some, dtype=np.float64)).all():
                return False
    return True


# ============================================================================ tables


def _cell(v):
    """A JSON-able cell (None for missing)."""
    if v is None:
        return None
    if isinstance(v, (np.generic,)):
        v = v.item()
    if isinstance(v, float):
        return None if math.isnan(v) else v
    if isinstance(v, (bool, int, str)):
        return v
    if v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, pd.Timestamp):
        return v.isoformat()
    if isinstance(v, pd.Timedelta):
        return v.isoformat()
    try:
        if pd.isna(v):
            return None
    except (TypeError, ValueError):
        pass
    raise ProtocolError(
        f"cannot send a cell of type {type(v).__name__} ({v!r}); convert the column to numbers "
        "or strings first")


def _name(name):
    if name is None or isinstance(name, (str, int, float, bool)):
        return name
    if isinstance(name, np.generic):
        return name.item()
    if isinstance(name, tuple):
        return [_name(x) for x in name]
    return str(name)


def drop_unused_categories(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every Categorical column reduced to the categories its rows use (order
    kept): the categories of a column are sent with it, so an unused one would reach the other
    owner although no row holds it. Returns ``frame`` itself when nothing changes."""
    cat = [j for j in range(frame.shape[1])
           if isinstance(frame.dtypes.iloc[j], pd.CategoricalDtype)]
    if not cat:
        return frame
    out = frame.copy(deep=False)
    for j in cat:
        out.isetitem(j, frame.iloc[:, j].cat.remove_unused_categories())
    return out


def table_to_json(frame: pd.DataFrame, roles: dict) -> list:
    """Columns of ``frame`` as JSON-able dicts: name, role (``"qi"``/``"sensitive"``), kind,
    dtype and the values in row order (the index is *not* sent: it may hold identifiers).
    A Categorical column also sends its categories — only those its rows use, in order.

    Example
    -------
    >>> s = pd.Categorical(["b", "b"], categories=["a", "b", "SECRET"], ordered=True)
    >>> table_to_json(pd.DataFrame({"c": s}), [("qi", "ordered")])[0]["categories"]
    ['b']
    """
    frame = drop_unused_categories(frame)
    cols = []
    for j, name in enumerate(frame.columns):
        s = frame.iloc[:, j]
        role, kind = roles[j]
        entry = {"name": _name(name), "role": role, "kind": kind, "dtype": str(s.dtype)}
        if isinstance(s.dtype, pd.CategoricalDtype):
            entry["categories"] = [_cell(c) for c in s.cat.categories]
            entry["ordered"] = bool(s.cat.ordered)
        entry["values"] = [_cell(v) for v in s.tolist()]
        cols.append(entry)
    return cols


def _restore(entry: dict, n: int) -> pd.Series:
    values = entry["values"]
    if len(values) != n:
        raise ProtocolError("a table column of the other owner has the wrong number of rows")
    dtype = entry["dtype"]
    if "categories" in entry:
        cats = entry["categories"]
        if len({(type(c), c) for c in cats}) != len(cats) or None in cats:
            raise ProtocolError("a categorical column of the other owner's table repeats a "
                                "category or has a null category")
        known = {(type(c), c) for c in cats}
        if any(v is not None and (type(v), v) not in known for v in values):
            raise ProtocolError("a categorical column of the other owner's table holds a "
                                "value that is not among its categories")
        return pd.Series(pd.Categorical(values, categories=cats, ordered=entry["ordered"]))
    cells = np.empty(n, dtype=object)
    cells[:] = [np.nan if v is None else v for v in values]
    if dtype == "object":
        return pd.Series(cells, dtype=object)
    s = pd.Series(cells, dtype=object)
    try:
        if dtype.startswith("datetime64"):
            return pd.Series(pd.to_datetime(s), dtype=dtype)
        if dtype.startswith("timedelta64"):
            return pd.Series(pd.to_timedelta(s), dtype=dtype)
        if s.isna().any() and dtype.startswith(("int", "uint")):
            return s.astype("float64")
        return s.astype(dtype)
    except (TypeError, ValueError, OverflowError):
        return s


def table_from_json(cols, n: int) -> tuple[pd.DataFrame, list]:
    """Inverse of :func:`table_to_json`: the frame (RangeIndex) and its ``(role, kind)``
    list. ``cols`` must have passed :func:`check_header` (as part of a ``table`` header)."""
    if not isinstance(cols, list):
        raise ProtocolError("the table message has no column list")
    data, names, roles = [], [], []
    for entry in cols:
        _check_column(entry)
        name = entry["name"]
        names.append(tuple(name) if isinstance(name, list) else name)
        try:
            data.append(_restore(entry, n))
        except ProtocolError:
            raise
        except Exception as exc:  # pandas refusing the values: a malformed column
            raise ProtocolError(f"a column of the other owner's table cannot be restored "
                                f"({type(exc).__name__})") from None
        roles.append((entry["role"], entry["kind"]))
    frame = pd.concat(data, axis=1) if data else pd.DataFrame(index=pd.RangeIndex(n))
    frame.columns = names if data else frame.columns
    return frame, roles


# ============================================================================ channels


class SocketChannel:
    """Length-prefixed messages over a connected socket, with the ``send_bytes`` /
    ``recv_bytes`` interface of :class:`multiprocessing.connection.Connection` (so either can
    carry the protocol).

    ``timeout`` (seconds, None: wait forever) bounds each :meth:`recv_bytes` — the whole
    message, not each chunk — so a peer that announces a message and sends nothing raises
    :class:`ProtocolError` instead of blocking forever. ``max_size`` caps the size a peer may
    announce (:func:`run_party` passes the cap its owner computes for the next message).

    Example
    -------
    >>> import socket
    >>> a, b = socket.socketpair()
    >>> SocketChannel(a).send_bytes(b"hi"); SocketChannel(b).recv_bytes()
    b'hi'
    >>> a.sendall((1 << 40).to_bytes(8, "big")); SocketChannel(b).recv_bytes()
    Traceback (most recent call last):
    ...
    pdanon.parties._curve.ProtocolError: the other owner announced a 1099511627776-byte message, more than the 67108864 accepted here; refusing
    """

    def __init__(self, sock: socket.socket, *, timeout: float | None = 60.0,
                 max_size: int = MAX_MESSAGE):
        self.sock = sock
        self.timeout = timeout
        self.max_size = max_size

    def send_bytes(self, data: bytes) -> None:
        self.sock.sendall(struct.pack(">Q", len(data)) + data)

    def _exact(self, size: int, deadline: float | None, timeout) -> bytes:
        chunks, got = [], 0
        pending = getattr(self.sock, "pending", None)  # TLS: bytes already decrypted
        while got < size:
            if deadline is not None and not (pending is not None and pending()):
                left = deadline - time.monotonic()
                ready = left > 0 and select.select([self.sock], [], [], left)[0]
                if not ready:
                    raise ProtocolError(
                        f"timed out waiting for the other owner (no complete message within "
                        f"{timeout} s); pass a larger timeout= if it is just slow")
            chunk = self.sock.recv(min(size - got, 1 << 20))
            if not chunk:
                raise EOFError("the other owner closed the connection")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def recv_bytes(self, maxlength: int | None = None, *, timeout="default") -> bytes:
        """One message; at most ``maxlength`` bytes (default ``max_size``), within
        ``timeout`` seconds (default the channel's)."""
        timeout = self.timeout if timeout == "default" else timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        cap = self.max_size if maxlength is None else maxlength
        (size,) = struct.unpack(">Q", self._exact(8, deadline, timeout))
        if size > cap:
            raise ProtocolError(f"the other owner announced a {size}-byte message, more than the "
                                f"{cap} accepted here; refusing")
        return self._exact(size, deadline, timeout)

    def close(self) -> None:
        self.sock.close()
