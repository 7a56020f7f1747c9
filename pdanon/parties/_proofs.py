"""Non-interactive Chaum–Pedersen proofs (Fiat–Shamir) that an owner multiplied by the secret
behind its public key ``Y = a·G``.

A proof of ``log_G(Y) = log_T(U)`` (both equal ``a``): the prover draws a random ``w``, sets
``A1 = w·G``, ``A2 = w·T``, ``c = SHA-256(tag, G, Y, T, U, A1, A2, salt, context) mod N``,
``s = w + c·a mod N`` and sends ``(c, s)``. The verifier recomputes ``A1 = s·G − c·Y``,
``A2 = s·T − c·U`` and accepts when the hash gives ``c`` again.

Because points are shuffled inside groups, the verifier never knows which point answers which;
the protocol proves statements about *sums* of points instead (see :mod:`pdanon.parties` and
docs/parties.md): ``single`` proves ``ΣP = a·ΣH``; ``double`` proves ``Σ r_g·D_g = b·Σ r_g·S_g``
over the verifier's groups ``g`` with coefficients ``r_g`` derived from both messages.

Example
-------
>>> from pdanon.parties._curve import get_backend, hash_ids
>>> be = get_backend("ecpy")
>>> a = 123456789 * 2**140 + 1
>>> T = hash_ids([0], salt=b"s")[0]
>>> Y, U = be.multiply_base(a), be.multiply([T], a)[0]
>>> proof = prove(be, a, Y, T, U, salt=b"s", context=b"demo")
>>> verify(be, Y, T, U, proof, salt=b"s", context=b"demo", what="demo")
>>> try:
...     verify(be, Y, T, U, proof, salt=b"s", context=b"other", what="demo")
... except ProtocolError as exc:
...     print(str(exc)[:44])
the other owner's demo proof does not verify
"""

from __future__ import annotations

import hashlib

from pdanon.parties._curve import G_BYTES, N, ProtocolError, random_secret

__all__ = ["prove", "verify", "coefficients", "group_sums", "lincomb"]

_CP_DST = b"pdanon/parties/v2/chaum-pedersen"
_R_DST = b"pdanon/parties/v2/group-coefficients"
#: bits of each Fiat–Shamir group coefficient (the lowest bit is forced to 1)
COEFFICIENT_BITS = 128


def _hash(*parts: bytes) -> bytes:
    h = hashlib.sha256()
    for part in parts:  # length-prefixed: no two part lists hash the same bytes
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.digest()


def _challenge(Y, T, U, A1, A2, salt: bytes, context: bytes) -> int:
    return int.from_bytes(_hash(_CP_DST, G_BYTES, Y, T, U, A1, A2, salt, context), "big") % N


def lincomb(backend, scalars, points) -> bytes | None:
    """``Σ scalar_i·point_i`` (zero scalars and ``None`` points, i.e. infinity, skipped);
    None when the sum is the point at infinity."""
    terms = [backend.multiply([p], r)[0] for r, p in zip(scalars, points)
             if p is not None and r % N]
    return backend.add(terms) if terms else None


def group_sums(backend, points: list, sizes: list) -> list:
    """The sum of each group's points (``points`` listed group after group)."""
    out, start = [], 0
    for size in sizes:
        out.append(backend.add(points[start:start + size]))
        start += size
    return out


def coefficients(salt: bytes, keys: tuple, sent: bytes, returned: bytes, sizes: list) -> list:
    """Fiat–Shamir coefficients ``r_g`` (odd, 128 bits) of the verifier's groups, from both
    public keys (first owner's, then second's), the session salt, the group sizes and both
    whole payloads: the prover learns them only after fixing what it returns."""
    seed = _hash(_R_DST, salt, keys[0], keys[1],
                 b"".join(int(s).to_bytes(8, "big") for s in sizes), sent, returned)
    nbytes = COEFFICIENT_BITS // 8
    return [int.from_bytes(hashlib.sha256(seed + g.to_bytes(8, "big")).digest()[:nbytes], "big")
            | 1 for g in range(len(sizes))]


def prove(backend, secret: int, Y: bytes, T: bytes, U: bytes, *, salt: bytes,
          context: bytes) -> dict:
    """A proof that ``Y = a·G`` and ``U = a·T`` for the same secret ``a``, as JSON-able hex."""
    w = random_secret()
    A1 = backend.multiply_base(w)
    A2 = backend.multiply([T], w)[0]
    c = _challenge(Y, T, U, A1, A2, salt, context)
    s = (w + c * secret) % N
    return {"c": f"{c:064x}", "s": f"{s:064x}"}


def verify(backend, Y: bytes, T: bytes | None, U: bytes | None, proof: dict, *, salt: bytes,
           context: bytes, what: str) -> None:
    """Raise :class:`ProtocolError` unless ``proof`` shows ``log_G(Y) = log_T(U)``. ``proof``
    holds ``c`` and ``s`` as 64-digit hex strings (checked by the header validation)."""
    if T is None or U is None:
        raise ProtocolError(f"the other owner's {what} proof is about the point at infinity "
                            "(its points sum to zero); refusing")
    c, s = int(proof["c"], 16), int(proof["s"], 16)
    if not (0 <= c < N and 0 <= s < N):
        raise ProtocolError(f"the other owner's {what} proof has a number outside [0, N)")
    A1 = lincomb(backend, [s, N - c], [G_BYTES, Y])
    A2 = lincomb(backend, [s, N - c], [T, U])
    if A1 is None or A2 is None or _challenge(Y, T, U, A1, A2, salt, context) != c:
        raise ProtocolError(
            f"the other owner's {what} proof does not verify: it did not multiply by the "
            "secret behind its public key (a cheating or faulty owner); stopping")
