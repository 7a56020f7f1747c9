"""Keyed pseudonyms (HMAC-SHA-256) of identifiers, and the keys behind them."""

from __future__ import annotations

import hashlib
import math
import numbers
import secrets
import warnings
from datetime import date, datetime
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError


class SecretKey(dict):
    """A secret HMAC key that does not leak when the frame holding it is saved or printed.

    It is what ``df.anon.hash_identifiers()`` returns in ``out.anon.info["key"]`` when it
    generated the key. ``bytes(key)`` (or ``key.hex()``) gives the raw key: store it in a secret
    manager to pseudonymize later data consistently. The repr/str never shows the key.

    Why a ``dict`` subclass: ``df.attrs`` travel with the frame and pandas writes them as JSON
    into Parquet files. An empty dict serializes as ``{}``, so the key is never written into a
    published file; pickling (``to_pickle``) withholds it too. Copies inside the process
    (``copy.deepcopy``, pandas propagating attrs) keep it.

    Example
    -------
    >>> k = SecretKey(b"0" * 32)
    >>> repr(k), bytes(k) == b"0" * 32
    ('SecretKey(<withheld, 32 bytes>)', True)
    """

    __slots__ = ("_secret",)

    def __init__(self, secret: bytes | None):
        super().__init__()
        object.__setattr__(self, "_secret", None if secret is None else bytes(secret))

    def __bytes__(self) -> bytes:
        if self._secret is None:
            raise InvalidInputError(
                "this SecretKey was withheld when its frame was pickled; use the key saved "
                "when it was generated"
            )
        return self._secret

    def hex(self) -> str:
        """The key as hexadecimal text (to store it safely, e.g. in a secret manager)."""
        return bytes(self).hex()

    @property
    def nbytes(self) -> int:
        return 0 if self._secret is None else len(self._secret)

    def __repr__(self) -> str:
        if self._secret is None:
            return "SecretKey(<withheld, not available>)"
        return f"SecretKey(<withheld, {len(self._secret)} bytes>)"

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        if not isinstance(other, SecretKey):
            return NotImplemented
        if self._secret is None or other._secret is None:
            return self._secret is other._secret
        return secrets.compare_digest(self._secret, other._secret)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def __copy__(self):
        return SecretKey(self._secret)

    def __deepcopy__(self, memo):
        return SecretKey(self._secret)

    def __reduce__(self):
        return (SecretKey, (None,))

    def _readonly(self, *args, **kwargs):
        raise TypeError("SecretKey is read-only")

    __setitem__ = __delitem__ = update = setdefault = pop = popitem = clear = _readonly


PASSPHRASE_MIN_CHARS = 12
"""The shortest ``str`` key (passphrase) :func:`resolve_key` accepts, in characters."""

KDF_SALT = b"pdanon.perturb.resolve_key passphrase v1"
"""The fixed domain salt of the passphrase derivation. It is public and never changes, so the
same passphrase gives the same key (and pseudonyms) in every release; it only separates
pdanon's keys from other uses of the same passphrase."""

KDF_PARAMS = {"n": 2**15, "r": 8, "p": 1, "dklen": 32}
""":func:`hashlib.scrypt` cost parameters of the passphrase derivation (32 MiB of memory,
about 0.2 s per derivation), giving a 32-byte key."""

MIN_KEY_BYTES = 16
"""``bytes`` keys shorter than this give a warning."""


def derive_key(passphrase: str) -> bytes:
    """The 32-byte HMAC key of a passphrase: ``hashlib.scrypt(passphrase.encode("utf-8"),
    salt=KDF_SALT, n=2**15, r=8, p=1, dklen=32)``.

    A memory-hard derivation makes each guess of a passphrase cost about 0.2 s and 32 MiB, so
    offline guessing of a pseudonymized release is slow; it cannot make a short or common
    passphrase safe (hence :data:`PASSPHRASE_MIN_CHARS`). Deterministic: the same passphrase
    gives the same key on every machine and in every release.

    Example
    -------
    >>> derive_key("correct horse battery staple").hex()[:16]
    '68db446c57c05fbd'
    """
    if not isinstance(passphrase, str):
        raise InvalidInputError(f"a passphrase is a str, got {type(passphrase).__name__}")
    return hashlib.scrypt(passphrase.encode("utf-8"), salt=KDF_SALT, maxmem=64 * 1024 * 1024,
                          **KDF_PARAMS)


def resolve_key(key) -> tuple[bytes, bool]:
    """``(HMAC key bytes, generated?)`` from a user key or ``None``.

    * ``None``: a new random 256-bit key from :func:`secrets.token_bytes` (``generated`` is
      True);
    * ``bytes`` (or a :class:`SecretKey`): used as is; shorter than :data:`MIN_KEY_BYTES` (16)
      gives a warning, empty is an error;
    * ``str``: a passphrase of at least :data:`PASSPHRASE_MIN_CHARS` (12) characters, turned
      into a 32-byte key by :func:`derive_key` (scrypt with a fixed salt). A shorter passphrase
      is refused.

    Example
    -------
    >>> resolve_key("a long and secret passphrase")[0] == derive_key("a long and secret passphrase")
    True
    >>> k, generated = resolve_key(None); len(k), generated
    (32, True)
    """
    if key is None:
        return secrets.token_bytes(32), True
    if isinstance(key, SecretKey):
        raw = bytes(key)
    elif isinstance(key, (bytes, bytearray, memoryview)):
        raw = bytes(key)
    elif isinstance(key, str):
        if len(key) < PASSPHRASE_MIN_CHARS:
            raise InvalidInputError(
                f"key is a passphrase of {len(key)} character(s); a str key needs at least "
                f"{PASSPHRASE_MIN_CHARS} (a short passphrase can be guessed offline). Use a "
                "random key, key=secrets.token_bytes(32), or a longer passphrase"
            )
        return derive_key(key), False
    else:
        raise InvalidInputError(
            f"key must be bytes, str or a SecretKey, got {type(key).__name__}; e.g. "
            "key=secrets.token_bytes(32)"
        )
    if not raw:
        raise InvalidInputError("key is empty; use a secret of at least 32 random bytes "
                                "(secrets.token_bytes(32)) or leave key=None to generate one")
    if len(raw) < MIN_KEY_BYTES:
        warnings.warn(
            f"the HMAC key is only {len(raw)} bytes; a short or guessable key lets an attacker "
            "rebuild the pseudonyms by trying keys. Use secrets.token_bytes(32).",
            UserWarning, stacklevel=3,
        )
    return raw, False


def canonical_text(value) -> str:
    """The text form of a cell that is hashed (UTF-8 encoded) by :func:`hmac_pseudonyms`.

    * strings: themselves;
    * booleans: ``"True"`` / ``"False"``;
    * integers, and floats with an integral value (``42.0``, as pandas stores an integer column
      that has missing cells): decimal digits (``"42"``);
    * other floats: Python's shortest round-trip form (``"0.1"``, ``"1e-07"``, ``"inf"``);
    * timestamps, datetimes and dates: ISO 8601 (``"2024-05-01T00:00:00"``);
    * bytes: decoded as UTF-8 (with backslash escapes for invalid bytes);
    * anything else: ``str(value)``.

    So ``42``, ``42.0`` and ``"42"`` get the same pseudonym, which keeps joins working between
    frames that store the same identifier with different dtypes.

    Example
    -------
    >>> canonical_text(42.0), canonical_text(0.1), canonical_text("Ann")
    ('42', '0.1', 'Ann')
    """
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        v = float(value)
        if math.isfinite(v) and v.is_integer():
            return str(int(v))
        return repr(v)
    if isinstance(value, (pd.Timestamp, datetime, date)):
        return value.isoformat()
    if isinstance(value, np.datetime64):
        return pd.Timestamp(value).isoformat()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="backslashreplace")
    return str(value)


def _texts(uniques) -> list:
    """Canonical texts of distinct values (vectorized for numpy integer arrays)."""
    if isinstance(uniques, np.ndarray) and uniques.dtype.kind in "iu":
        return uniques.astype(str).tolist()
    if isinstance(getattr(uniques, "dtype", None), pd.StringDtype):
        return uniques.to_numpy(dtype=object).tolist()
    return [canonical_text(v) for v in uniques]


def _hmac_sha256_hex(key: bytes, messages: Iterable[bytes], prefix: bytes = b"") -> list:
    """HMAC-SHA-256 (RFC 2104) of ``prefix + m`` for many messages ``m`` with one key, as
    lowercase hex. The keyed inner state (after ``prefix``) and the outer state are computed
    once and copied per message (equal to ``hmac.new(key, prefix + m, "sha256")``)."""
    block = 64
    if len(key) > block:
        key = hashlib.sha256(key).digest()
    key = key.ljust(block, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
    inner.update(prefix)
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))
    icopy, ocopy = inner.copy, outer.copy
    out = []
    append = out.append
    for m in messages:
        h = icopy()
        h.update(m)
        o = ocopy()
        o.update(h.digest())
        append(o.hexdigest())
    return out


def key_fingerprint(key: bytes) -> str:
    """A short fingerprint of a key (first 16 hex digits of HMAC(key, "pdanon key
    fingerprint")): tells which key was used without revealing a *random* key.

    ``hash_identifiers`` records it in ``info`` only for the keys it generates (32 random
    bytes). Do not publish the fingerprint of a key chosen by a person (a passphrase, a word):
    anyone can try candidate keys against it offline.

    Example
    -------
    >>> len(key_fingerprint(b"k" * 32))
    16
    """
    return _hmac_sha256_hex(_key_bytes(key), [b"pdanon key fingerprint"])[0][:16]


def _key_bytes(key) -> bytes:
    if isinstance(key, SecretKey):
        return bytes(key)
    if isinstance(key, (bytes, bytearray, memoryview)):
        return bytes(key)
    if isinstance(key, str):
        raise InvalidInputError(
            "this function takes the key bytes; turn a passphrase into key bytes with "
            "pdanon.perturb.resolve_key(passphrase)[0], or use df.anon.hash_identifiers(key=...)"
        )
    raise InvalidInputError(f"key must be bytes or a SecretKey, got {type(key).__name__}")


def context_prefix(context) -> bytes:
    """The bytes put before every value's text in the HMAC message for a context:
    ``len(c).to_bytes(4, "big") + c`` with ``c = context.encode("utf-8")``, or ``b""`` for
    ``None`` (no context: the message is the value's text alone).

    The length prefix makes ``(context, value)`` → message one-to-one: ``("a", "bc")`` and
    ``("ab", "c")`` give different messages.

    Example
    -------
    >>> context_prefix("ab"), context_prefix(None)
    (b'\\x00\\x00\\x00\\x02ab', b'')
    """
    if context is None:
        return b""
    if not isinstance(context, str):
        raise InvalidInputError(
            f"a hashing context must be a str (or None), got {type(context).__name__} "
            f"{context!r}"
        )
    if not context:
        raise InvalidInputError("a hashing context must not be empty; use None for no context")
    c = context.encode("utf-8")
    return len(c).to_bytes(4, "big") + c


def hmac_pseudonyms(values, key: bytes, *, context=None, name=None, index=None) -> pd.Series:
    """HMAC-SHA-256 pseudonym (64 lowercase hex digits) of every cell, keyed by ``key``.

    ``key`` is the key bytes (or a :class:`SecretKey`); a passphrase goes through
    :func:`resolve_key` first. Each distinct value is hashed once (``pd.factorize``), using its
    :func:`canonical_text`. Missing cells stay missing. The result has pandas' string dtype.

    The HMAC message is ``context_prefix(context) + text`` (UTF-8; see :func:`context_prefix`):

    * ``context=None`` (default): the text alone. The same key gives the same pseudonym for the
      same value in *any* column and any frame (a phone number in ``patient_phone`` and in
      ``emergency_phone`` gets one pseudonym), which keeps cross-column linkage possible;
    * ``context="..."``: a domain label (e.g. the column name); the same value in two contexts
      gets unrelated pseudonyms, while the same key and context still give the same pseudonyms
      in every release. ``context="column"`` uses ``name`` (the Series name).

    Without the key the pseudonyms cannot be recomputed, so a dictionary of candidate values
    (all phone numbers, all names) is useless.

    Example
    -------
    >>> import hmac
    >>> s = hmac_pseudonyms(pd.Series(["ann", None, "ann"]), b"k" * 32)
    >>> s[0] == hmac.new(b"k" * 32, b"ann", "sha256").hexdigest(), s.isna().tolist()
    (True, [False, True, False])
    >>> c = hmac_pseudonyms(pd.Series(["ann"]), b"k" * 32, context="name")
    >>> c[0] == hmac.new(b"k" * 32, b"\\x00\\x00\\x00\\x04nameann", "sha256").hexdigest()
    True
    """
    if isinstance(values, pd.Series):
        index = values.index if index is None else index
        name = values.name if name is None else name
        values = values.array
    if isinstance(context, str) and context == "column":
        if name is None:
            raise InvalidInputError(
                "context='column' uses the column's name, but these values have none; pass "
                "name= or an explicit context='...'"
            )
        context = canonical_text(name)
    prefix = context_prefix(context)
    raw = _key_bytes(key)
    import pyarrow as pa

    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    texts = _texts(uniques)
    digests = pa.array(_hmac_sha256_hex(raw, (t.encode("utf-8") for t in texts), prefix),
                       type=pa.string())
    codes = np.asarray(codes, dtype=np.int64)
    missing = codes < 0
    taken = digests.take(pa.array(np.where(missing, 0, codes), mask=missing))
    return pd.Series(pd.array(taken, dtype="str"), index=index, name=name)


def column_contexts(context, columns: list) -> dict:
    """``{column: context str or None}`` from ``context=`` (None, "column", a str, or a dict
    naming every hashed column)."""
    if context is None:
        return {c: None for c in columns}
    if isinstance(context, str):
        if context == "column":
            return {c: canonical_text(c) for c in columns}
        context_prefix(context)  # validates
        return {c: context for c in columns}
    if isinstance(context, Mapping):
        stray = [c for c in context if c not in columns]
        if stray:
            raise InvalidInputError(
                f"context= names column(s) {stray} that are not being hashed (hashed: "
                f"{columns}); remove them or add them to columns="
            )
        missing = [c for c in columns if c not in context]
        if missing:
            raise InvalidInputError(
                f"context= gives no context for column(s) {missing}; name every hashed column "
                "(use None for no context), or pass context='column' / one str for all"
            )
        out = {}
        for c in columns:
            v = context[c]
            if isinstance(v, str) and v == "column":
                v = canonical_text(c)
            context_prefix(v)  # validates
            out[c] = v
        return out
    raise InvalidInputError(
        f"context must be None, 'column', a str or {{column: str}}, got {type(context).__name__}"
    )


def reference_sha256_rows(identifiers):
    """The reference ``IdentifierHasher`` output (UNSAFE, for compatibility only).

    For every row, ``hashlib.sha256(str(row).encode()).hexdigest()`` where ``row`` is the row of
    identifier cells as a numpy object array (so the text is numpy's array form, e.g.
    ``"[1 'Ann']"``), written into *every* identifier cell of that row. Unkeyed: anyone can hash
    candidate values (every phone number, every name) and recover the identifiers by a
    dictionary attack. Use :func:`hmac_pseudonyms` (``df.anon.hash_identifiers``) instead.

    ``identifiers`` is a 2-D array-like or a DataFrame (converted as the reference does:
    ``np.array(df.to_numpy(), dtype=object)``). For byte-exact compatibility the classic API
    passes the identifier columns sliced from the object array of the *whole* input table, as
    the reference does (a frame whose columns are all numeric turns integers into floats there).
    Returns the same type: an object array, or a DataFrame with the same index and columns.

    Example
    -------
    >>> out = reference_sha256_rows(np.array([[1, "Ann"]], dtype=object))
    >>> out[0, 0] == out[0, 1] == hashlib.sha256(b"[1 'Ann']").hexdigest()
    True
    """
    frame = identifiers if isinstance(identifiers, pd.DataFrame) else None
    if frame is not None:
        arr = np.array(frame.to_numpy(), dtype=object)
    else:
        arr = np.array(identifiers, dtype=object)
    if arr.ndim != 2:
        raise InvalidInputError(f"identifiers must be 2-D (rows x identifier columns), got {arr.ndim}-D")
    out = np.empty(arr.shape, dtype=object)
    if arr.shape[1]:
        for i in range(arr.shape[0]):
            out[i, :] = hashlib.sha256(str(arr[i]).encode()).hexdigest()
    if frame is not None:
        return pd.DataFrame(out, index=frame.index, columns=frame.columns, dtype=object)
    return out
