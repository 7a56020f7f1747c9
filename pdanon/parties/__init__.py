"""Two data owners, one k-anonymous vertical join: commutative elliptic-curve encryption of
row ids (secp256k1), GroupJoin aggregation on each side.

Two owners hold different columns of the same rows (row ``i`` is the same person at both).
Neither may see the other's raw values, yet together they want one table that is k-anonymous
over *all* quasi-identifiers. The protocol (after Jiang & Clifton 2005, with GroupJoin in place
of Datafly, as in cp2025's ``DistributedDataOwnerKAnonymityDepersonalizator``):

1. **hello** — each owner k-anonymizes its own quasi-identifiers locally (GroupJoin with
   aggregation, :func:`pdanon.partition.group_join.group_join_partition`) and sends its row
   count, k, column names, a random nonce and its public key ``a·G``; the salt of the session
   is SHA-256 of both nonces.
2. **single** — each owner hashes every row id to a curve point ``H(salt, id)`` (hash to
   curve: nobody knows its discrete logarithm), encrypts it with its secret scalar ``a``
   (``a·H``) and sends the points grouped by its local groups (groups under random public
   labels, points shuffled inside each group), with a Chaum–Pedersen proof that the points
   sum to ``a·ΣH``.
3. **double** — each owner multiplies the other's points by its own secret (``b·a·H =
   a·b·H``: the encryption commutes) and returns them, shuffled inside each group. Now both
   hold every row as one doubly encrypted point labelled with *both* owners' groups, without
   knowing which row it is. A proof over Fiat–Shamir-weighted group sums shows that every
   returned group holds ``b·`` (the points sent in it): an owner that used a secret per row
   or moved points between groups to learn the other's groups is caught
   (:class:`ProtocolError`).
4. **round** — both compute the sizes of all intersections of a group of one owner with a
   group of the other. The partitions are "equal" when none is in 1..k−1. Otherwise each owner
   merges its smallest group with the partner of least aggregation-loss increase (the engine's
   losses) and sends the two public labels it merged; repeat. No point is ever encrypted again.
5. **table** — both send their aggregated table (QIs recoded, sensitive columns as they are)
   in row order; ``joined`` = [QIs of the first owner, its sensitive columns, QIs of the
   second, its sensitive columns], verified k-anonymous over all quasi-identifiers.

Every step is a bytes message (:mod:`pdanon.parties._wire`: magic, JSON header, binary
points), so the owners can run in separate processes (:func:`run_party` over a
:class:`SocketChannel` or a :mod:`multiprocessing` ``Pipe``); :func:`run_local` and the classic
``pdanon.algorithms.DistributedDataOwnerKAnonymityDepersonalizator`` are thin drivers over the
same messages.
docs/parties.md lists what each owner learns (group sizes, intersection sizes, the final
table).

Example
-------
>>> import pandas as pd
>>> from pdanon.parties import DataOwner, run_local
>>> a = DataOwner(pd.DataFrame({"age": [30, 31, 50, 52]}), k=2, backend="ecpy")
>>> b = DataOwner(pd.DataFrame({"zip": [1000, 1001, 2000, 2001]}), k=2, backend="ecpy")
>>> run_local(a, b).values.tolist()
[[30.5, 1000.5], [30.5, 1000.5], [51.0, 2000.5], [51.0, 2000.5]]
"""

from pdanon.parties._curve import (
    ProtocolError,
    WeakKeyWarning,
    backends,
    check_secret,
    get_backend,
    hash_ids,
    random_secret,
)
from pdanon.parties._owner import DataOwner, run_local, run_party
from pdanon.parties._wire import SocketChannel

__all__ = [
    "DataOwner",
    "ProtocolError",
    "SocketChannel",
    "WeakKeyWarning",
    "check_secret",
    "backends",
    "get_backend",
    "hash_ids",
    "random_secret",
    "run_local",
    "run_party",
]
