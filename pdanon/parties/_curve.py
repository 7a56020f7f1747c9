"""secp256k1 for the two-party protocol: row ids hashed to curve points, commutative
encryption ``E_a(P) = a·P``, and two interchangeable backends (ECPy, coincurve).

Points travel as 33-byte SEC1 compressed encodings (``02``/``03`` || x), which both backends
read and write identically, so an owner using ECPy and one using coincurve interoperate.

Example
-------
>>> pts = hash_ids(range(3), salt=b"s" * 32)
>>> [len(p) for p in pts], pts[0][:1]
([33, 33, 33], b'\\x02')
>>> b = get_backend("ecpy")
>>> a, c = 5, 7
>>> b.multiply(b.multiply(pts, a), c) == b.multiply(b.multiply(pts, c), a)  # commutes
True
"""

from __future__ import annotations

import hashlib
import secrets
import warnings

from pdanon._errors import InvalidInputError

__all__ = ["P", "N", "G_BYTES", "POINT_BYTES", "random_secret", "check_secret", "hash_ids",
           "get_backend", "backends", "ProtocolError", "WeakKeyWarning"]

#: field prime and group order of secp256k1 (y² = x³ + 7 over GF(P); cofactor 1)
P = 2**256 - 2**32 - 977
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
POINT_BYTES = 33
_DST = b"pdanon/parties/v1/hash-to-curve/secp256k1"
#: the generator G of secp256k1, compressed
G_BYTES = bytes.fromhex("0279BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798")
#: secrets below this many bits can be found by trying keys
WEAK_KEY_BITS = 128
_EULER = (P - 1) // 2
_SQRT = (P + 1) // 4  # P ≡ 3 (mod 4)


class ProtocolError(InvalidInputError):
    """A message from the other owner is malformed or inconsistent with this owner's state."""


class WeakKeyWarning(UserWarning):
    """An encryption key small enough to be found by trying keys."""


# ============================================================================ secrets


def random_secret() -> int:
    """A uniformly random scalar in [1, N − 1] from :mod:`secrets` (256-bit).

    Example
    -------
    >>> 1 <= random_secret() < N
    True
    """
    return secrets.randbelow(N - 1) + 1


def check_secret(secret, *, name: str = "secret", stacklevel: int = 2) -> int:
    """``secret`` as a scalar in [1, N − 1]; raises on 0 (mod N) and non-integers, and warns
    (:class:`WeakKeyWarning`) when it has fewer than 128 bits: the other owner could find it
    by trying keys. ``name`` is the argument named in the warning; ``stacklevel`` counts from
    the caller of this function, as in :func:`warnings.warn`.

    Example
    -------
    >>> check_secret(N + 2**200)
    1606938044258990275541962092341162602522202993782792835301376
    """
    import numbers

    if isinstance(secret, bool) or not isinstance(secret, numbers.Integral):
        raise InvalidInputError(
            f"the encryption key must be an integer (a secret scalar), got {type(secret).__name__};"
            " pass None for a random 256-bit key")
    s = int(secret) % N
    if s == 0:
        raise InvalidInputError(
            "the encryption key is 0 modulo the curve order; pass None for a random key")
    if s.bit_length() < WEAK_KEY_BITS:
        warnings.warn(
            f"{name} has only {s.bit_length()} bits: the other owner can find it by trying keys "
            f"and link encrypted ids to rows; pass {name}=None for a random 256-bit key",
            WeakKeyWarning, stacklevel=stacklevel + 1)
    return s


# ============================================================================ hash to curve


def _id_bytes(i) -> bytes:
    return int(i).to_bytes(8, "big", signed=True)


def _candidates(salt: bytes, i):
    """x candidates for id ``i`` (try-and-increment)."""
    base = hashlib.sha256(_DST + len(salt).to_bytes(2, "big") + salt + _id_bytes(i))
    for ctr in range(256):
        h = base.copy()
        h.update(ctr.to_bytes(1, "big"))
        x = int.from_bytes(h.digest(), "big")
        if x < P:
            yield x
    raise RuntimeError("hash to curve failed 256 times")  # probability 2^-256


def _is_x_python(x: int) -> bool:
    rhs = (x * x * x + 7) % P
    return rhs != 0 and pow(rhs, _EULER, P) == 1


def hash_ids(ids, *, salt: bytes, backend=None) -> list[bytes]:
    """Map row ids to secp256k1 points (compressed, even y) whose discrete logarithms nobody
    knows: ``x = SHA-256(DST || salt || id || counter)`` for the first counter that gives a
    valid x coordinate (try-and-increment; the ids are not secret from the owner hashing them,
    so its data-dependent running time leaks nothing to the other owner).

    ``backend`` only speeds up the validity test (coincurve parses in C); every backend gives
    the same points.

    Example
    -------
    >>> hash_ids([1], salt=b"a") != hash_ids([1], salt=b"b")
    True
    """
    test = backend.is_x if backend is not None else (lambda x, enc: _is_x_python(x))
    out = []
    for i in ids:
        for x in _candidates(salt, i):
            enc = b"\x02" + x.to_bytes(32, "big")
            if test(x, enc):
                out.append(enc)
                break
    return out


# ============================================================================ backends


def _decode_xy(enc: bytes) -> tuple[int, int]:
    """Validated affine coordinates of a compressed point (raises ProtocolError)."""
    if len(enc) != POINT_BYTES or enc[0] not in (2, 3):
        raise ProtocolError("received a malformed curve point (expected 33-byte compressed)")
    x = int.from_bytes(enc[1:], "big")
    if x >= P:
        raise ProtocolError("received a curve point with x >= p")
    rhs = (x * x * x + 7) % P
    y = pow(rhs, _SQRT, P)
    if (y * y) % P != rhs or rhs == 0:
        raise ProtocolError("received bytes that are not a point of secp256k1")
    if (y & 1) != (enc[0] & 1):
        y = P - y
    return x, y


def _encode_xy(x: int, y: int) -> bytes:
    return bytes([2 | (y & 1)]) + x.to_bytes(32, "big")


def _jac_double(X: int, Y: int, Z: int) -> tuple[int, int, int]:
    """2·(X, Y, Z) in Jacobian coordinates on y² = x³ + 7 (``Z == 0``: infinity)."""
    if Z == 0 or Y == 0:
        return 0, 1, 0
    A = X * X % P
    B = Y * Y % P
    C = B * B % P
    D = 2 * ((X + B) * (X + B) - A - C) % P
    E = 3 * A % P
    X3 = (E * E - 2 * D) % P
    return X3, (E * (D - X3) - 8 * C) % P, 2 * Y * Z % P


def _jac_add_affine(X: int, Y: int, Z: int, x: int, y: int) -> tuple[int, int, int]:
    """(X, Y, Z) + (x, y): complete (doubling and opposite points included)."""
    if Z == 0:
        return x, y, 1
    ZZ = Z * Z % P
    H = (x * ZZ - X) % P
    R = (y * ZZ * Z - Y) % P
    if H == 0:
        return _jac_double(X, Y, Z) if R == 0 else (0, 1, 0)
    HH = H * H % P
    HHH = H * HH % P
    V = X * HH % P
    X3 = (R * R - HHH - 2 * V) % P
    return X3, (R * (V - X3) - Y * HHH) % P, Z * H % P


def sum_points(points) -> bytes | None:
    """The sum of compressed points (validated), compressed; None when it is the point at
    infinity. Pure Python (one field inversion in all); every backend gives the same bytes.

    Example
    -------
    >>> two = get_backend("ecpy").multiply_base(2)
    >>> sum_points([G_BYTES, G_BYTES]) == two, sum_points([]) is None
    (True, True)
    """
    X, Y, Z = 0, 1, 0
    for enc in points:
        X, Y, Z = _jac_add_affine(X, Y, Z, *_decode_xy(enc))
    if Z == 0:
        return None
    zi = pow(Z, -1, P)
    zi2 = zi * zi % P
    return _encode_xy(X * zi2 % P, Y * zi2 * zi % P)


def _signed_odd_digits(k: int, w: int) -> list[int]:
    """Odd ``k`` as odd digits in ±[1, 2^w − 1], most significant first, every window
    non-zero (a regular sequence: w doublings and one addition per window, whatever k is).

    Example
    -------
    >>> _signed_odd_digits(45, 2)  # 45 = (3·4 − 1)·4 + 1
    [3, -1, 1]
    """
    if not k & 1 or k < 1:
        raise ValueError("the recoding needs an odd positive scalar")
    m = 1 << w
    digits = []
    while k >= m:
        d = (k % (2 * m)) - m  # odd, in [-(m - 1), m - 1]
        digits.append(d)
        k = (k - d) >> w
    digits.append(k)  # odd, positive, < m
    return digits[::-1]


class EcpyBackend:
    """Pure-Python backend built on ECPy's secp256k1 arithmetic, ~350–700 multiplications/s.

    ``window=None`` multiplies with ECPy's own ``k * P`` (a Montgomery ladder: one point
    addition and one doubling per scalar bit). The default ``window=4`` recodes the secret
    scalar *once* into odd signed 4-bit digits (every window non-zero, so the sequence of
    operations does not depend on the key) and, per point, builds the 8 odd multiples
    P, 3P … 15P and runs 4 doublings + 1 addition per window with ECPy's Jacobian formulas
    (``WeierstrassCurve._dbl_jac`` / ``_add_jac``): about half the field operations of the
    ladder, the same result (tests compare both with coincurve). An even scalar k is handled
    as −(n − k). The recoding keeps every partial sum in (2^w, n), so the addition formula
    never meets equal or opposite points.
    """

    name = "ecpy"

    def __deepcopy__(self, memo):
        return self  # holds only curve constants: copies of an owner share it (and ECPy's
        # Curve objects cannot be deep-copied)

    def __init__(self, window: int | None = 4):
        from ecpy.curves import Curve, WeierstrassCurve

        self.curve = Curve.get_curve("secp256k1")
        if self.curve.field != P or self.curve.order != N:  # pragma: no cover
            raise RuntimeError("ECPy's secp256k1 parameters differ from pdanon's")
        self._dbl = getattr(WeierstrassCurve, "_dbl_jac", None)
        self._add = getattr(WeierstrassCurve, "_add_jac", None)
        self._j2a = getattr(WeierstrassCurve, "_jac2aff", None)
        if None in (self._dbl, self._add, self._j2a):  # pragma: no cover - other ECPy
            window = None
        if window is not None and not (isinstance(window, int) and 2 <= window <= 8):
            raise InvalidInputError(f"window must be an integer in 2..8 or None, got {window!r}")
        self.window = window

    @staticmethod
    def is_x(x: int, enc: bytes) -> bool:
        return _is_x_python(x)

    @staticmethod
    def add(points) -> bytes | None:
        """Sum of compressed points (None: the point at infinity)."""
        return sum_points(points)

    def multiply_base(self, scalar: int) -> bytes:
        """``scalar·G``, compressed."""
        return self.multiply([G_BYTES], scalar)[0]

    def multiply(self, points, scalar: int) -> list[bytes]:
        scalar %= N
        if scalar == 0:
            raise InvalidInputError("the scalar is 0 modulo the curve order")
        if self.window is None:
            return self._multiply_ladder(points, scalar)
        return self._multiply_window(points, scalar, self.window)

    def _multiply_ladder(self, points, scalar: int) -> list[bytes]:
        from ecpy.curves import Point

        cv = self.curve
        out = []
        for enc in points:
            x, y = _decode_xy(enc)
            Q = scalar * Point(x, y, cv, check=False)  # _decode_xy checked it is on the curve
            if Q.is_infinity:  # impossible for 0 < scalar < N and a group point
                raise ProtocolError("scalar multiplication gave the point at infinity")
            out.append(_encode_xy(Q.x, Q.y))
        return out

    def _multiply_window(self, points, scalar: int, w: int) -> list[bytes]:
        dbl, add, j2a = self._dbl, self._add, self._j2a
        q = P
        negate = not scalar & 1
        k = N - scalar if negate else scalar  # odd: N is odd
        digits = _signed_odd_digits(k, w)
        top = digits[0] >> 1
        rest = [(abs(d) >> 1, d < 0) for d in digits[1:]]
        half = 1 << (w - 1)
        out = []
        for enc in points:
            x, y = _decode_xy(enc)
            two = dbl(x, y, 1, q, 0)
            table = [(x, y, 1)]
            for _ in range(half - 1):
                table.append(add(*table[-1], *two, q))
            X, Y, Z = table[top]
            for idx, neg in rest:
                for _ in range(w):
                    X, Y, Z = dbl(X, Y, Z, q, 0)
                tx, ty, tz = table[idx]
                X, Y, Z = add(X, Y, Z, tx, q - ty if neg else ty, tz, q)
            if Z % q == 0:  # impossible (see the class docstring)
                raise ProtocolError("scalar multiplication gave the point at infinity")
            ax, ay = j2a(X, Y, Z, q)
            out.append(_encode_xy(ax, (q - ay) if negate else ay))
        return out


class CoincurveBackend:
    """libsecp256k1 through coincurve (``pip install pdanon[fast]``): constant time,
    ~12,000–26,000 multiplications/s."""

    name = "coincurve"

    def __init__(self):
        import coincurve

        self._PublicKey = coincurve.PublicKey

    def is_x(self, x: int, enc: bytes) -> bool:
        try:
            self._PublicKey(enc)
        except ValueError:
            return False
        return True

    def _key(self, enc: bytes):
        if len(enc) != POINT_BYTES or enc[0] not in (2, 3):
            raise ProtocolError("received a malformed curve point (expected 33-byte compressed)")
        try:
            return self._PublicKey(enc)
        except ValueError:
            raise ProtocolError("received bytes that are not a point of secp256k1") from None

    def add(self, points) -> bytes | None:
        """Sum of compressed points (None: the point at infinity)."""
        keys = [self._key(enc) for enc in points]
        if not keys:
            return None
        if len(keys) == 1:
            return keys[0].format(compressed=True)
        try:
            return self._PublicKey.combine_keys(keys).format(compressed=True)
        except ValueError:  # the sum is the point at infinity
            return None

    def multiply_base(self, scalar: int) -> bytes:
        """``scalar·G``, compressed."""
        scalar %= N
        if scalar == 0:
            raise InvalidInputError("the scalar is 0 modulo the curve order")
        return self._PublicKey.from_secret(scalar.to_bytes(32, "big")).format(compressed=True)

    def multiply(self, points, scalar: int) -> list[bytes]:
        pk = self._PublicKey
        scalar %= N
        if scalar == 0:
            raise InvalidInputError("the scalar is 0 modulo the curve order")
        k = scalar.to_bytes(32, "big")
        out = []
        for enc in points:
            if len(enc) != POINT_BYTES or enc[0] not in (2, 3):
                raise ProtocolError(
                    "received a malformed curve point (expected 33-byte compressed)")
            try:
                key = pk(enc)
            except ValueError:
                raise ProtocolError("received bytes that are not a point of secp256k1") from None
            out.append(key.multiply(k).format(compressed=True))
        return out


def backends() -> list[str]:
    """Backends usable here: ``"ecpy"`` always, ``"coincurve"`` when installed.

    Example
    -------
    >>> "ecpy" in backends()
    True
    """
    out = ["ecpy"]
    try:
        import coincurve  # noqa: F401
    except ImportError:
        pass
    else:
        out.append("coincurve")
    return out


def get_backend(backend="auto"):
    """A backend object: ``"auto"`` (coincurve when installed, else ECPy), ``"ecpy"``,
    ``"coincurve"``, or an object with ``name``, ``is_x``, ``multiply``, ``multiply_base`` and
    ``add``.

    Example
    -------
    >>> get_backend("ecpy").name
    'ecpy'
    """
    if not isinstance(backend, str):
        if all(hasattr(backend, a) for a in ("name", "is_x", "multiply", "multiply_base",
                                              "add")):
            return backend
        raise InvalidInputError(f"backend must be 'auto', 'ecpy' or 'coincurve', got {backend!r}")
    if backend == "auto":
        backend = "coincurve" if "coincurve" in backends() else "ecpy"
    if backend == "ecpy":
        return EcpyBackend()
    if backend == "coincurve":
        try:
            return CoincurveBackend()
        except ImportError:
            raise InvalidInputError(
                "backend='coincurve' needs the coincurve package: pip install 'pdanon[fast]' "
                "(or use backend='ecpy')") from None
    raise InvalidInputError(f"backend must be 'auto', 'ecpy' or 'coincurve', got {backend!r}")
