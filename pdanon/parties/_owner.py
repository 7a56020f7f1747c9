"""One data owner of the two-party protocol, as a message-in / message-out state machine.

See :mod:`pdanon.parties` for the protocol and docs/parties.md for its security notes.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time

import numpy as np
import pandas as pd

from pdanon import progress as _progress
from pdanon._errors import InvalidInputError, VerificationError
from pdanon.parties import _curve, _proofs, _wire
from pdanon.parties._curve import ProtocolError
from pdanon.parties._wire import VERSION

__all__ = ["DataOwner", "run_local", "run_party"]

_SALT_DST = b"pdanon/parties/v1/session-salt"
#: tables from this many rows may show a progress bar (progress=None; see pdanon.progress)
PROGRESS_ROWS = 1_000
_RNG = secrets.SystemRandom()  # shuffles that hide row order from the other owner


class FaultyPeerTableError(ProtocolError, VerificationError):
    """The joined table fails k-anonymity although this owner's own table passed: the other
    owner's table is faulty (a :class:`ProtocolError` and a
    :class:`~pdanon.VerificationError`)."""


class DataOwner:
    """One of two owners of the same rows (a vertical partition: each holds other columns).

    Each owner k-anonymizes its own columns with GroupJoin and aggregation (the engine's
    :func:`~pdanon.partition.group_join.group_join_partition` and
    :mod:`pdanon.recode`), then both refine their groups until no group of one intersects a
    group of the other in 1..k−1 rows, learning the intersections only through row ids under
    commutative elliptic-curve encryption. Finally they swap their aggregated tables; ``joined``
    is ``[QIs of the first owner, its sensitive columns, QIs of the second, its sensitive
    columns]`` and is k-anonymous over all quasi-identifiers (verified).

    Parameters
    ----------
    data : DataFrame
        This owner's columns; row ``i`` is the same person at both owners.
    k : int
        Must be the same at both owners.
    quasi_identifiers, sensitive, identifiers :
        Roles as in :func:`pdanon.roles.resolve_roles` (names, or ``{name: kind}``). Identifier
        columns and columns with no role are never sent. Without any, roles remembered in
        ``data.attrs`` are used, else every column is a quasi-identifier.
    secret : int, optional
        This owner's secret scalar; default a random 256-bit scalar from :mod:`secrets`. A
        key under 128 bits is accepted with a :class:`~pdanon.parties.WeakKeyWarning`.
    seed : int, optional
        Seed of the local GroupJoin (which violating group is merged first).
    backend : {"auto", "ecpy", "coincurve"}
        Curve arithmetic; ``"auto"`` uses coincurve when installed.
    partners : str
        GroupJoin's partner search for the local anonymization (``"auto"``, ``"all"``,
        ``"near"``).

    The protocol is driven by :meth:`start` and :meth:`receive` (bytes in, bytes out), by
    :func:`run_local` (both owners in one process) or :func:`run_party` (one owner on a
    channel to the other process).

    Example
    -------
    >>> import pandas as pd
    >>> a = DataOwner(pd.DataFrame({"age": [21, 22, 35, 36]}), k=2, backend="ecpy")
    >>> b = DataOwner(pd.DataFrame({"zip": [100, 101, 300, 301]}), k=2, backend="ecpy")
    >>> run_local(a, b)[["age", "zip"]].values.tolist()
    [[21.5, 100.5], [21.5, 100.5], [35.5, 300.5], [35.5, 300.5]]
    """

    def __init__(self, data: pd.DataFrame, *, k: int, quasi_identifiers=None, sensitive=None,
                 identifiers=None, secret=None, seed=None, backend="auto",
                 partners: str = "auto"):
        from pdanon.models import KAnonymity
        from pdanon.roles import resolve_roles, validate_qi_values

        if not isinstance(data, pd.DataFrame):
            raise InvalidInputError(
                f"DataOwner needs a pandas DataFrame, got {type(data).__name__}; use "
                "DistributedDataOwnerKAnonymityDepersonalizator for numpy arrays")
        self.model = KAnonymity(k)
        self.k = self.model.k
        roles = resolve_roles(data, identifiers=identifiers, quasi_identifiers=quasi_identifiers,
                              sensitive=sensitive)
        self.roles = roles
        self.quasi_identifiers = list(roles.quasi_identifiers)
        self.sensitive = list(roles.sensitive)
        cols = self.quasi_identifiers + self.sensitive
        if len(cols) > _wire.MAX_COLUMNS:
            raise InvalidInputError(
                f"DataOwner has {len(cols):,} columns (quasi-identifiers and sensitive), more "
                f"than the {_wire.MAX_COLUMNS:,} the protocol allows; send fewer columns")
        frame = data.copy(deep=False)
        frame.attrs = {}
        self._frame = frame[cols]
        self._index = data.index
        self.n = len(data)
        validate_qi_values(self._frame, dict(roles.quasi_identifiers))  # kinds: real must be finite
        self.model.check_feasible(self._frame, roles)
        self._secret = (_curve.random_secret() if secret is None
                        else _curve.check_secret(secret, name="secret", stacklevel=2))
        self.seed = seed
        self.partners = partners
        self.backend = _curve.get_backend(backend)
        self._allow_duplicate_names = False
        self._reset()

    def __repr__(self) -> str:  # never shows the secret
        return (f"DataOwner(rows={self.n}, k={self.k}, quasi_identifiers={self.quasi_identifiers}"
                f", sensitive={self.sensitive}, backend={self.backend.name!r}, "
                f"state={self._state!r})")

    def _reset(self) -> None:
        self._state = "new"
        self.first = None
        self.joined = None
        self.tables = None
        self.stats = {"backend": self.backend.name, "rows": self.n, "k": self.k,
                      "scalar_multiplications": 0, "rounds": 0, "messages_sent": 0,
                      "bytes_sent": 0, "bytes_received": 0, "seconds": {"proofs": 0.0}}

    # ------------------------------------------------------------------ helpers
    def _timed(self, what: str, started: float) -> None:
        sec = self.stats["seconds"]
        sec[what] = sec.get(what, 0.0) + time.perf_counter() - started

    def _out(self, header: dict, payload: bytes = b"") -> bytes:
        msg = _wire.encode(header, payload)
        self.stats["messages_sent"] += 1
        self.stats["bytes_sent"] += len(msg)
        return msg

    def _multiply(self, points: list) -> list:
        self.stats["scalar_multiplications"] += len(points)
        return self.backend.multiply(points, self._secret)

    # ------------------------------------------------------------------ local anonymization
    def _local(self) -> None:
        """GroupJoin with aggregation on this owner's quasi-identifiers; keeps the engine's
        group state so later merges are priced by the same losses."""
        from pdanon.encode import encode_table
        from pdanon.partition.group_join import GroupState, group_join_partition

        started = time.perf_counter()
        n = self.n
        self._groups = None
        if n == 0 or not self.quasi_identifiers:
            labels = np.zeros(n, dtype=np.int64)
        else:
            roles = self.roles.restricted_to(self.quasi_identifiers)
            self._enc = encode_table(self._frame, roles)
            part, info = group_join_partition(self._enc, self.model, method="aggregate",
                                              seed=self.seed, partners=self.partners)
            labels = part.labels
            self.stats["local_loss"] = info["loss"]
            # the engine's per-group summaries, so later merges are priced by the same losses
            self._groups = GroupState.from_labels(self._enc, "aggregate", self.model, labels)
        self._labels0 = labels
        self.stats["local_groups"] = int(labels.max()) + 1 if n else 0
        self._timed("local_anonymization", started)

    def _current_labels(self) -> np.ndarray:
        if self._groups is None:
            return np.zeros(self.n, dtype=np.int64)
        return np.unique(self._groups.label, return_inverse=True)[1].reshape(-1)

    # ------------------------------------------------------------------ protocol steps
    def start(self, *, first: bool) -> bytes:
        """Anonymize locally and return the opening message (``hello``). ``first``: whose
        columns come first in the joined table (exactly one owner passes True)."""
        if self._state not in ("new", "done"):
            raise InvalidInputError("this owner is in the middle of a protocol run")
        self._reset()
        self.first = bool(first)
        self._local()
        self._nonce = secrets.token_bytes(32)
        started = time.perf_counter()
        self._key = self.backend.multiply_base(self._secret)  # public key Y = a·G
        self._timed("proofs", started)
        self._state = "hello"
        names = [_wire._name(c) for c in self.quasi_identifiers + self.sensitive]
        return self._out({"type": "hello", "version": VERSION, "first": self.first,
                          "rows": self.n, "k": self.k, "nonce": self._nonce.hex(),
                          "key": self._key.hex(), "columns": names})

    def max_message_bytes(self) -> int:
        """Largest message this owner accepts next (header cap plus the exact payload): a
        channel refuses a peer that announces more (:func:`run_party` passes it on)."""
        if self._state == "table":
            header = _wire.table_header_cap(self.n, len(getattr(self, "_peer_columns", [])))
        else:
            header = _wire.MAX_HEADER
        points = self.n * _curve.POINT_BYTES if self._state in ("single", "double") else 0
        return 8 + header + points

    def receive(self, message: bytes) -> bytes | None:
        """Consume the other owner's message; return this owner's next message, or None when
        the joined table is ready (:attr:`joined`). A malformed, oversized or inconsistent
        message, or a proof that does not verify, raises :class:`ProtocolError`."""
        max_header = self.max_message_bytes() - 8
        if self._state not in ("hello", "single", "double", "round", "table"):
            raise ProtocolError(f"no message expected in state {self._state!r}")
        try:
            header, payload = _wire.decode(message, max_header=max_header)
            self.stats["bytes_received"] += len(message)
            _wire.check_header(header)
            if header["type"] == "abort":
                raise ProtocolError(
                    f"the other owner aborted the protocol ({header['reason']})")
            if header["type"] not in ("single", "double") and payload:
                raise ProtocolError(f"the other owner's {header['type']!r} message carries "
                                    "unexpected binary data")
            handler = {"hello": self._on_hello, "single": self._on_single,
                       "double": self._on_double, "round": self._on_round,
                       "table": self._on_round}[self._state]
            return handler(header, payload)
        except BaseException:
            self._state = "failed"
            raise

    def abort_message(self, reason: str = "error") -> bytes:
        """A message telling the other owner that this one gave up."""
        return _wire.encode({"type": "abort", "reason": str(reason)[:200]})

    def _expect(self, header: dict, kind: str) -> None:
        if header["type"] != kind:
            raise ProtocolError(f"expected a {kind!r} message, got {header['type']!r}")

    def _role(self, first: bool) -> bytes:
        return b"first" if first else b"second"

    def _on_hello(self, header: dict, payload: bytes) -> bytes:
        self._expect(header, "hello")
        if header["first"] is self.first:
            raise ProtocolError("both owners claim the same place in the joined table; pass "
                                "first=True to exactly one of them")
        if header["rows"] != self.n:
            raise InvalidInputError(
                f"the owners hold different numbers of rows ({self.n} here, "
                f"{header['rows']} at the other owner); both must hold the same rows in "
                "the same order")
        if header["k"] != self.k:
            raise InvalidInputError(f"the owners use different k ({self.k} here, "
                                    f"{header['k']} at the other owner); agree on one k")
        peer_names = header["columns"]
        mine = [_wire._name(c) for c in self.quasi_identifiers + self.sensitive]
        clash = [c for c in mine if c in peer_names]
        if clash and not self._allow_duplicate_names:
            raise InvalidInputError(
                f"both owners have column(s) {clash}; rename them on one side so the joined "
                "table has distinct column names")
        self._peer_columns = peer_names
        peer_key = bytes.fromhex(header["key"])
        _curve._decode_xy(peer_key)  # a point of the curve (33 bytes: never infinity)
        if peer_key == self._key:
            raise ProtocolError("the other owner sent this owner's own public key")
        self._peer_key = peer_key
        peer_nonce = bytes.fromhex(header["nonce"])
        pair = (self._nonce, peer_nonce) if self.first else (peer_nonce, self._nonce)
        salt = hashlib.sha256(_SALT_DST + pair[0] + pair[1]).digest()
        self._salt = salt
        self._keys = (self._key, peer_key) if self.first else (peer_key, self._key)

        # own row ids -> points -> encrypted once, sent grouped by (shuffled) own groups
        started = time.perf_counter()
        points = _curve.hash_ids(range(self.n), salt=salt, backend=self.backend)
        self._timed("hash_to_curve", started)
        started = time.perf_counter()
        # both owners hash the same ids with the same salt: ΣH is the same at both
        self._sum_h = self.backend.add(points) if self.n else None
        if self.n and self._sum_h is None:  # pragma: no cover - probability ~2^-256
            raise ProtocolError("the hashed row ids sum to the point at infinity")
        self._timed("proofs", started)
        started = time.perf_counter()
        single = self._encrypt_own(points)
        self._timed("encrypt_own", started)
        labels = self._labels0
        G0 = int(labels.max()) + 1 if self.n else 0
        public = list(range(G0))
        _RNG.shuffle(public)  # public label of each local group: a random permutation
        self._public0 = np.asarray(public, dtype=np.int64)  # local label -> public label
        self._G0 = G0
        by_public = np.empty(G0, dtype=np.int64)
        by_public[self._public0] = np.arange(G0)
        order = np.argsort(labels, kind="stable")
        counts = np.bincount(labels, minlength=G0)
        members = np.split(order, np.cumsum(counts)[:-1]) if G0 else []
        sizes, chunks = [], []
        for p in range(G0):
            rows = members[by_public[p]].tolist()
            _RNG.shuffle(rows)
            sizes.append(len(rows))
            chunks.extend(single[r] for r in rows)
        self._own_sizes = sizes
        started = time.perf_counter()
        # kept to verify the other owner's double: what was sent, and its sum per group
        self._single_payload = b"".join(chunks)
        self._own_group_sums = _proofs.group_sums(self.backend, chunks, sizes)
        # ΣP = a·ΣH for the honest payload: one multiplication instead of n point decodings
        proof = self._prove(self._sum_h, self.backend.multiply([self._sum_h], self._secret)[0]
                            if self.n else None, b"single")
        self._timed("proofs", started)
        self._state = "single"
        return self._out({"type": "single", "sizes": sizes, "proof": proof},
                         self._single_payload)

    def _encrypt_own(self, points: list) -> list:
        """This owner's hashed ids times its secret (a hook: tests override it to cheat)."""
        return self._multiply(points)

    def _prove(self, T, U, what: bytes):
        """Chaum–Pedersen proof that U = secret·T (None for an empty table)."""
        if not self.n:
            return None
        return _proofs.prove(self.backend, self._secret, self._key, T, U, salt=self._salt,
                             context=what + b"/" + self._role(self.first))

    def _verify(self, proof, T, U, what: str) -> None:
        if not self.n:
            if proof is not None:
                raise ProtocolError(f"the other owner sent a {what} proof for no rows")
            return
        if proof is None:
            raise ProtocolError(f"the other owner's {what} message has no proof")
        _proofs.verify(self.backend, self._peer_key, T, U, proof, salt=self._salt,
                       context=what.encode() + b"/" + self._role(not self.first), what=what)

    def _points(self, header: dict, payload: bytes) -> tuple[list, list]:
        sizes = header["sizes"]
        if sum(sizes) != self.n or len(payload) != self.n * _curve.POINT_BYTES:
            raise ProtocolError("the other owner's groups do not cover the rows exactly once")
        B = _curve.POINT_BYTES
        pts = [payload[i:i + B] for i in range(0, len(payload), B)]
        return sizes, pts

    def _on_single(self, header: dict, payload: bytes) -> bytes:
        self._expect(header, "single")
        sizes, pts = self._points(header, payload)
        if any(s < self.k for s in sizes):
            raise ProtocolError("the other owner's local groups are smaller than k")
        # the other owner proves ΣP = b·ΣH: it multiplied by the secret behind its key
        started = time.perf_counter()
        self._verify(header["proof"], self._sum_h, self.backend.add(pts) if self.n else None,
                     "single")
        self._timed("proofs", started)
        started = time.perf_counter()
        double = self._encrypt_other(pts)
        self._timed("encrypt_other", started)
        # keep the other owner's groups (its public labels) over the doubly encrypted ids,
        # and send them back shuffled inside each group
        self._peer_points = double
        self._peer_G0 = len(sizes)
        self._peer_labels = np.repeat(np.arange(len(sizes)), sizes)
        out, start = [], 0
        for s in sizes:
            chunk = double[start:start + s]
            _RNG.shuffle(chunk)
            out.extend(chunk)
            start += s
        out = self._returned(out, sizes)
        returned = b"".join(out)
        started = time.perf_counter()
        proof = None
        if self.n:  # Σ r_g·D_g = a·Σ r_g·S_g over the other owner's groups g
            r = _proofs.coefficients(self._salt, self._keys, payload, returned, sizes)
            T = _proofs.lincomb(self.backend, r, _proofs.group_sums(self.backend, pts, sizes))
            if T is None:
                raise ProtocolError("the other owner's points combine to the point at "
                                    "infinity; refusing")
            proof = self._prove(T, self.backend.multiply([T], self._secret)[0], b"double")
        self._timed("proofs", started)
        self._state = "double"
        return self._out({"type": "double", "sizes": sizes, "proof": proof}, returned)

    def _encrypt_other(self, points: list) -> list:
        """The other owner's points times this owner's secret (a hook for cheating tests)."""
        return self._multiply(points)

    def _returned(self, points: list, sizes: list) -> list:
        """The doubly encrypted points as returned (a hook for cheating tests)."""
        return points

    def _on_double(self, header: dict, payload: bytes) -> bytes:
        self._expect(header, "double")
        sizes, pts = self._points(header, payload)
        if sizes != self._own_sizes:
            raise ProtocolError("the other owner returned this owner's groups with other sizes")
        own_labels = np.repeat(np.arange(len(sizes)), sizes)
        xo = np.array(pts, dtype=f"S{_curve.POINT_BYTES}")
        xp = np.array(self._peer_points, dtype=f"S{_curve.POINT_BYTES}")
        oo = np.argsort(xo, kind="stable")
        op = np.argsort(xp, kind="stable")
        xo, xp = xo[oo], xp[op]
        if len(xo) > 1 and (xo[1:] == xo[:-1]).any():
            raise ProtocolError("the doubly encrypted ids contain duplicates")
        if not np.array_equal(xo, xp):
            raise ProtocolError(
                "the doubly encrypted row ids of the two owners differ: they do not hold the "
                "same rows (or the other owner is faulty)")
        # the other owner proves that every returned group holds b·(what was sent in it)
        started = time.perf_counter()
        if self.n:
            r = _proofs.coefficients(self._salt, self._keys, self._single_payload, payload,
                                     sizes)
            T = _proofs.lincomb(self.backend, r, self._own_group_sums)
            U = _proofs.lincomb(self.backend, r, _proofs.group_sums(self.backend, pts, sizes))
            self._verify(header["proof"], T, U, "double")
        else:
            self._verify(header["proof"], None, None, "double")
        self._timed("proofs", started)
        # one entry per row, in an order neither owner can link to row numbers
        self._lab_own = own_labels[oo]
        self._lab_peer = self._peer_labels[op]
        del self._peer_points, self._single_payload, self._own_group_sums
        G = self._groups
        alive = np.flatnonzero(G.alive) if G is not None else np.zeros(0, np.int64)
        # internal group id (smallest row) -> public label
        self._pub = {int(r): int(self._public0[self._labels0[r]]) for r in alive}
        self._round = 0
        self._best_delta = None
        self._rounds_started = time.perf_counter()
        return self._next()

    def _equal(self) -> bool:
        """No own group meets a group of the other owner in 1..k−1 rows."""
        if self.n == 0:
            return True
        width = max(self._peer_G0, 1)
        key = self._lab_own * width + self._lab_peer
        counts = np.unique(key, return_counts=True)[1]
        return bool(counts.min() >= self.k)

    def _next(self) -> bytes:
        if self._equal():
            self._timed("rounds", self._rounds_started)
            self.stats["rounds"] = self._round
            self._state = "table"
            table = self._published()
            self._my_table = table
            cols = _wire.table_to_json(table, self._table_roles)
            message = self._out({"type": "table", "round": self._round, "columns": cols})
            cap = _wire.table_header_cap(self.n, len(cols)) + 8
            if len(message) > cap:
                raise InvalidInputError(
                    f"this owner's aggregated table takes {len(message):,} bytes, more than the "
                    f"{cap:,} the other owner accepts (an average of "
                    f"{_wire.MAX_CELL_BYTES} bytes per cell, at most "
                    f"{_wire.MAX_TABLE_HEADER:,} bytes); shorten long text cells or "
                    "send fewer columns")
            return message
        merge = self._merge_step()
        self._state = "round"
        return self._out({"type": "round", "round": self._round, "merge": merge})

    def _merge_step(self) -> list:
        """Merge this owner's smallest group with its cheapest partner (least increase of the
        engine's aggregation loss); among several smallest groups, the one whose merge is
        cheapest (then the smallest id). Returns the two public labels merged.

        Every group's best partner is cached and kept exact: after a merge only the groups
        whose best partner disappeared are re-priced, and the new group is priced against all
        others once (one vectorized :meth:`union_loss` call)."""
        G = self._groups
        alive = np.flatnonzero(G.alive) if G is not None else np.zeros(0, np.int64)
        if len(alive) < 2:  # cannot happen: one group meets every k-group in >= k rows
            raise ProtocolError("the partitions differ but this owner has a single group")
        if not hasattr(self, "_best_delta") or self._best_delta is None:
            self._best_delta = np.full(self.n, np.inf)
            self._best_partner = np.full(self.n, -1, dtype=np.int64)
        bd, bp = self._best_delta, self._best_partner
        sizes = G.size[alive]
        tier = alive[sizes == sizes.min()]
        for g in tier[bp[tier] < 0].tolist():
            self._price(g, alive)
        d = bd[tier]
        best = float(d.min())
        g = int(tier[np.flatnonzero(d <= best + _tol(best))[0]])  # tier is sorted by id
        c = int(bp[g])
        union = float(G.union_loss(g, np.array([c]))[0])
        lo, hi = sorted((self._pub.pop(g), self._pub.pop(c)))
        new = G.merge(g, c, union)
        self._pub[int(new)] = lo
        self._lab_own[self._lab_own == hi] = lo
        # invalidate: the merged pair, and every group whose best partner was one of them
        bd[[g, c]] = np.inf
        bp[[g, c]] = -1
        stale = (bp == g) | (bp == c)
        bd[stale] = np.inf
        bp[stale] = -1
        # price the new group against all others; it may become another group's best partner
        others = np.flatnonzero(G.alive)
        others = others[others != new]
        if len(others):
            delta = self._price(new, np.append(others, new))
            cached = bp[others] >= 0
            cur = np.where(cached, bd[others], 0.0)
            tol = _tol_arr(cur)
            better = cached & ((delta < cur - tol)
                               | ((np.abs(delta - cur) <= tol) & (new < bp[others])))
            bd[others[better]] = delta[better]
            bp[others[better]] = new
        return [lo, hi]

    def _price(self, g: int, alive: np.ndarray) -> np.ndarray:
        """Loss increase of merging group g with every other alive group; caches the best
        (ties: smallest partner id) and returns the increases (one per other group)."""
        G = self._groups
        cands = alive[alive != g]
        loss = G.union_loss(g, cands)
        delta = loss - G.fval[g] - G.fval[cands]
        best = float(delta.min())
        pick = int(np.flatnonzero(delta <= best + _tol(best))[0])
        self._best_delta[g] = delta[pick]
        self._best_partner[g] = cands[pick]
        return delta

    def _on_round(self, header: dict, payload: bytes):
        if self._state == "round":
            self._expect(header, "round")
            if header["round"] != self._round:
                raise ProtocolError("the owners are out of step (different round numbers)")
            merge = header["merge"]
            if merge[0] >= merge[1]:
                raise ProtocolError("malformed merge in the other owner's round message (the "
                                    "smaller label comes first)")
            lo, hi = merge
            where = self._lab_peer == hi
            if not where.any() or not (self._lab_peer == lo).any():
                raise ProtocolError("the other owner merged a group that does not exist")
            self._lab_peer[where] = lo
            self._round += 1
            return self._next()
        # state "table": the other owner must have found the partitions equal too
        if header["type"] == "round":
            raise ProtocolError("the other owner did not find the partitions equal")
        self._expect(header, "table")
        if header["round"] != self._round:
            raise ProtocolError("the owners finished in different rounds")
        names = [c["name"] for c in header["columns"]]
        if names != self._peer_columns:
            raise ProtocolError("the other owner's table does not have the columns it announced "
                                "in its hello")
        peer, peer_roles = _wire.table_from_json(header["columns"], self.n)
        peer.index = self._index
        self._join(peer, peer_roles)
        self._state = "done"
        return None

    # ------------------------------------------------------------------ output
    def _published(self) -> pd.DataFrame:
        """This owner's aggregated table (QIs recoded, sensitive columns as they are), row
        order kept, k-anonymous on its own (verified)."""
        from pdanon import recode
        from pdanon._groups import class_labels

        labels = self._current_labels()
        self.final_labels = labels
        self.stats["final_groups"] = int(labels.max()) + 1 if self.n else 0
        out = {}
        for j, c in enumerate(self.quasi_identifiers):
            s = self._frame[c]
            if self.n:
                s, _ = recode.recode_column("aggregate", s, self._enc.columns[j], labels)
            out[c] = s
        table = pd.DataFrame(out, index=self._frame.index)
        for c in self.sensitive:
            table[c] = self._frame[c]
        table = table[self.quasi_identifiers + self.sensitive]
        # categories no row uses are not sent; drop them here too so both joined tables agree
        table = _wire.drop_unused_categories(self._publish(table, labels))
        self._table_roles = ([("qi", k) for k in self.roles.quasi_identifiers.values()]
                             + [("sensitive", k) for k in self.roles.sensitive.values()])
        if self.n and self.quasi_identifiers:
            cls = class_labels(table.set_axis(range(table.shape[1]), axis=1),
                               range(len(self.quasi_identifiers)))
            if np.bincount(cls).min() < self.k:
                raise VerificationError(
                    f"this owner's aggregated table is not {self.k}-anonymous; this is a bug in "
                    "pdanon, please report it")
        return table

    def _publish(self, table: pd.DataFrame, labels: np.ndarray) -> pd.DataFrame:
        """Hook: the table as it is sent (the classic API turns it into object cells)."""
        return table

    def _join(self, peer: pd.DataFrame, peer_roles: list) -> None:
        from pdanon._groups import class_labels

        mine = self._my_table.set_axis(self._index, axis=0)
        first, second = (mine, peer) if self.first else (peer, mine)
        r1, r2 = ((self._table_roles, peer_roles) if self.first
                  else (peer_roles, self._table_roles))
        self.tables = (first, second)
        joined = pd.concat([first, second], axis=1)
        roles = r1 + r2
        qi_pos = [j for j, (role, _) in enumerate(roles) if role == "qi"]
        if self.n and qi_pos:
            cls = class_labels(joined.set_axis(range(joined.shape[1]), axis=1), qi_pos)
            smallest = int(np.bincount(cls).min())
            if smallest < self.k:
                raise FaultyPeerTableError(
                    f"the joined table is only {smallest}-anonymous over both owners' "
                    f"quasi-identifiers (k={self.k}); this is a bug in pdanon or a faulty "
                    "other owner")
        self.joined = joined
        self.joined_roles = roles
        self.stats["joined_min_class"] = int(np.bincount(cls).min()) if (
            self.n and qi_pos) else self.n


def _tol(x: float) -> float:
    from pdanon.partition.group_join import TIE

    return TIE * max(1.0, abs(x))


def _tol_arr(x: np.ndarray) -> np.ndarray:
    from pdanon.partition.group_join import TIE

    return TIE * np.maximum(1.0, np.abs(x))


# ============================================================================ drivers


class _RoundsBar:
    """The progress bar of a protocol run: opened once the owners have anonymized locally
    (GroupJoin draws its own bar there), it shows the encryption phase, then counts the merge
    rounds up to their bound (each round merges one group of every owner, so a run takes fewer
    rounds than the fewest local groups; most end sooner)."""

    def __init__(self, owners):
        groups = min(int(o.stats.get("local_groups", 0)) for o in owners)
        self._owner = owners[0]
        self._cm = _progress.progress_bar(
            max(groups - 1, 0) or None, desc="parties: encrypting row ids", unit="round",
            long=self._owner.n >= PROGRESS_ROWS)
        self._rounds = False

    def __enter__(self):
        self.bar = self._cm.__enter__()
        return self

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)

    def advance(self) -> None:
        owner = self._owner
        if owner._state in ("round", "table", "done"):
            if not self._rounds:
                self._rounds = True
                self.bar.set_description("parties: merge rounds")
            self.bar.update(owner._round - self.bar.count)


def run_local(first: DataOwner, second: DataOwner, *, observer=None,
              progress=None) -> pd.DataFrame:
    """Run the protocol between two owners in this process, passing the serialized messages
    back and forth (exactly what two processes would exchange). ``observer(sender, message)``
    sees every message (``sender`` is ``"first"`` or ``"second"``). Returns the joined table
    (also in ``first.joined`` and ``second.joined``). ``progress``: a bar over the merge
    rounds (and the owners' GroupJoin bars; ``None``: for long runs in a terminal or notebook,
    see :mod:`pdanon.progress`).

    Example
    -------
    >>> import pandas as pd
    >>> a = DataOwner(pd.DataFrame({"x": [1, 2, 3, 4]}), k=2, backend="ecpy")
    >>> b = DataOwner(pd.DataFrame({"y": [5, 6, 7, 8]}), k=2, backend="ecpy")
    >>> seen = []
    >>> run_local(a, b, observer=lambda who, m: seen.append(who)).shape
    (4, 2)
    >>> a.stats["scalar_multiplications"], len(seen)
    (8, 8)
    """
    if first is second:
        raise InvalidInputError("the two owners must be different objects")
    with _progress.setting(progress):
        ma = first.start(first=True)
        mb = second.start(first=False)
        with _RoundsBar([first, second]) as rounds:
            while ma is not None or mb is not None:
                if ma is None or mb is None:
                    raise ProtocolError("one owner finished before the other")
                if observer is not None:
                    observer("first", ma)
                    observer("second", mb)
                ma, mb = first.receive(mb), second.receive(ma)
                rounds.advance()
    return first.joined


def _receive(channel, cap: int, timeout):
    """The next message from ``channel``: at most ``cap`` bytes, within ``timeout`` seconds."""
    if isinstance(channel, _wire.SocketChannel):
        return channel.recv_bytes(cap, timeout=timeout)
    poll = getattr(channel, "poll", None)
    if timeout is not None and poll is not None and not poll(timeout):
        raise ProtocolError(f"timed out waiting for the other owner (no message within "
                            f"{timeout} s); pass a larger timeout= if it is just slow")
    try:
        return channel.recv_bytes(cap)
    except OSError as exc:  # multiprocessing: "bad message length" above the cap
        if isinstance(exc, TimeoutError):
            raise ProtocolError("timed out waiting for the other owner") from None
        raise ProtocolError(f"could not receive the other owner's message ({exc}); it may "
                            f"exceed the {cap} bytes accepted here") from None


def _exchange(owner: DataOwner, channel, out: bytes, timeout) -> bytes | None:
    """Send ``out`` (from a helper thread) while receiving the other owner's message; return
    this owner's answer to it."""
    errors = []

    def send():
        try:
            channel.send_bytes(out)
        except BaseException as exc:  # reported below
            errors.append(exc)

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    incoming = _receive(channel, owner.max_message_bytes(), timeout)
    sender.join(timeout)
    if errors:
        raise errors[0]
    if sender.is_alive():
        raise ProtocolError("timed out sending to the other owner")
    return owner.receive(incoming)


def run_party(owner: DataOwner, channel, *, first: bool, timeout="auto",
              progress=None) -> pd.DataFrame:
    """Run one owner over ``channel`` (anything with ``send_bytes`` / ``recv_bytes(maxlength)``:
    a :class:`multiprocessing.connection.Connection` or :class:`SocketChannel`); the other
    process runs ``run_party`` with the opposite ``first``. Each message is sent from a
    helper thread while this one receives, so large messages cannot deadlock. On an error
    the other owner is told to stop. Returns the joined table.

    Every receive is capped at the size this owner expects next
    (:meth:`DataOwner.max_message_bytes`) and bounded in time: ``timeout`` seconds per message
    (``"auto"``: 60 s plus 20 ms per row, room for a pure-Python peer encrypting every row;
    None waits forever). A peer that stays silent raises :class:`ProtocolError` ("timed out
    waiting for the other owner"); a channel with neither :class:`SocketChannel`'s timeout nor
    ``poll`` cannot be bounded. ``progress``: as in :func:`run_local` (this owner's bar).

    Example
    -------
    >>> import socket, threading, pandas as pd
    >>> from pdanon.parties import SocketChannel
    >>> s1, s2 = socket.socketpair()
    >>> a = DataOwner(pd.DataFrame({"x": [1, 2, 3, 4]}), k=2, backend="ecpy")
    >>> b = DataOwner(pd.DataFrame({"y": [5, 6, 7, 8]}), k=2, backend="ecpy")
    >>> t = threading.Thread(target=run_party, args=(b, SocketChannel(s2)),
    ...                      kwargs={"first": False}); t.start()
    >>> run_party(a, SocketChannel(s1), first=True, timeout=30).shape; t.join()
    (4, 2)
    """
    if timeout == "auto":
        timeout = 60.0 + 0.02 * owner.n
    elif timeout is not None and (isinstance(timeout, bool) or not isinstance(
            timeout, (int, float)) or not timeout > 0):
        raise InvalidInputError(f"timeout must be a positive number of seconds, 'auto' or None, "
                                f"got {timeout!r}")
    progress = _progress.check(progress)
    out = None
    try:
        with _progress.setting(progress):
            out = owner.start(first=first)
            with _RoundsBar([owner]) as rounds:
                while out is not None:
                    out = _exchange(owner, channel, out, timeout)
                    rounds.advance()
    except EOFError:
        raise ProtocolError("the other owner closed the connection before the end") from None
    except BaseException as exc:
        if not (isinstance(exc, ProtocolError) and "aborted" in str(exc)):
            try:
                channel.send_bytes(owner.abort_message(type(exc).__name__))
            except Exception:
                pass
        raise
    return owner.joined
