"""Messages of the two-party protocol as plain bytes, and the channels that carry them.

A message is ``MAGIC`` (4 bytes) · header length (4 bytes, big endian) · UTF-8 JSON header ·
binary payload. The header always has ``"type"``; curve points travel in the payload as
concatenated 33-byte compressed encodings. Nothing is pickled: a message from the other owner
is parsed as data only.

Example
-------
>>> m = encode({"type": "round", "round": 0}, b"")
>>> decode(m)
({'type': 'round', 'round': 0}, b'')
"""

from __future__ import annotations

import json
import math
import socket
import struct

import numpy as np
import pandas as pd

from pdanon.parties._curve import ProtocolError

__all__ = ["MAGIC", "encode", "decode", "table_to_json", "table_from_json", "SocketChannel"]

MAGIC = b"PDP1"
_LEN = struct.Struct(">I")
#: largest message accepted (header + payload), against a peer that sends garbage lengths
MAX_MESSAGE = 1 << 31


def encode(header: dict, payload: bytes = b"") -> bytes:
    """One message: magic, header length, JSON header, payload."""
    head = json.dumps(header, separators=(",", ":"), allow_nan=False).encode("utf-8")
    return MAGIC + _LEN.pack(len(head)) + head + payload


def decode(message) -> tuple[dict, bytes]:
    """``(header, payload)`` of a message; raises :class:`ProtocolError` when malformed."""
    if not isinstance(message, (bytes, bytearray, memoryview)):
        raise ProtocolError(f"a message must be bytes, got {type(message).__name__}")
    message = bytes(message)
    if len(message) < 8 or message[:4] != MAGIC:
        raise ProtocolError("not a pdanon.parties message (bad magic bytes)")
    (hlen,) = _LEN.unpack(message[4:8])
    if 8 + hlen > len(message):
        raise ProtocolError("truncated message")
    try:
        header = json.loads(message[8:8 + hlen].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ProtocolError("message header is not valid JSON") from None
    if not isinstance(header, dict) or not isinstance(header.get("type"), str):
        raise ProtocolError("message header has no 'type'")
    return header, message[8 + hlen:]


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


def table_to_json(frame: pd.DataFrame, roles: dict) -> list:
    """Columns of ``frame`` as JSON-able dicts: name, role (``"qi"``/``"sensitive"``), kind,
    dtype and the values in row order (the index is *not* sent: it may hold identifiers)."""
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
    values = entry.get("values")
    if not isinstance(values, list) or len(values) != n:
        raise ProtocolError("a table column of the other owner has the wrong number of rows")
    dtype = entry.get("dtype", "object")
    if "categories" in entry:
        cats = entry["categories"]
        return pd.Series(pd.Categorical(values, categories=cats,
                                        ordered=bool(entry.get("ordered"))))
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
    except (TypeError, ValueError):
        return s


def table_from_json(cols, n: int) -> tuple[pd.DataFrame, list]:
    """Inverse of :func:`table_to_json`: the frame (RangeIndex) and its ``(role, kind)``
    list."""
    if not isinstance(cols, list):
        raise ProtocolError("the table message has no column list")
    data, names, roles = [], [], []
    for entry in cols:
        if not isinstance(entry, dict) or entry.get("role") not in ("qi", "sensitive"):
            raise ProtocolError("malformed column in the other owner's table")
        name = entry.get("name")
        names.append(tuple(name) if isinstance(name, list) else name)
        data.append(_restore(entry, n))
        roles.append((entry["role"], entry.get("kind")))
    frame = pd.concat(data, axis=1) if data else pd.DataFrame(index=pd.RangeIndex(n))
    frame.columns = names if data else frame.columns
    return frame, roles


# ============================================================================ channels


class SocketChannel:
    """Length-prefixed messages over a connected socket, with the ``send_bytes`` /
    ``recv_bytes`` interface of :class:`multiprocessing.connection.Connection` (so either can
    carry the protocol).

    Example
    -------
    >>> import socket
    >>> a, b = socket.socketpair()
    >>> SocketChannel(a).send_bytes(b"hi"); SocketChannel(b).recv_bytes()
    b'hi'
    """

    def __init__(self, sock: socket.socket):
        self.sock = sock

    def send_bytes(self, data: bytes) -> None:
        self.sock.sendall(struct.pack(">Q", len(data)) + data)

    def _exact(self, size: int) -> bytes:
        chunks, got = [], 0
        while got < size:
            chunk = self.sock.recv(min(size - got, 1 << 20))
            if not chunk:
                raise EOFError("the other owner closed the connection")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def recv_bytes(self) -> bytes:
        (size,) = struct.unpack(">Q", self._exact(8))
        if size > MAX_MESSAGE:
            raise ProtocolError(f"the other owner announced a {size}-byte message; refusing")
        return self._exact(size)

    def close(self) -> None:
        self.sock.close()
