"""Two data owners against a faulty or cheating other owner: what crosses the wire, the
Chaum–Pedersen proofs, header validation, size caps, timeouts, fuzzing, weak secrets."""

from __future__ import annotations

import copy
import json
import multiprocessing
import socket
import threading
import time
import warnings
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon.algorithms.distributed
import pdanon.parties as parties
from pdanon.algorithms import DistributedDataOwnerKAnonymityDepersonalizator
from pdanon._errors import InvalidInputError
from pdanon.parties import (
    DataOwner,
    ProtocolError,
    SocketChannel,
    WeakKeyWarning,
    run_local,
    run_party,
)
from pdanon.parties import _curve, _owner, _proofs, _wire

FAST = "coincurve" if "coincurve" in parties.backends() else "ecpy"
B = _curve.POINT_BYTES


def points_of(payload: bytes) -> list:
    return [payload[i:i + B] for i in range(0, len(payload), B)]


def traced(a, b) -> list:
    seen = []
    run_local(a, b, observer=lambda who, m: seen.append((who, m)))
    return seen


def pair(n=12, k=3, cls_a=DataOwner, cls_b=DataOwner, **kw):
    """Two owners whose local groups differ: a groups by x // 3, b by x % 4 (so b's
    groups cut across a's)."""
    da = pd.DataFrame({"x": np.arange(n) // 3 * 10})
    db = pd.DataFrame({"y": (np.arange(n) % 4) * 7})
    a = cls_a(da, k=k, backend=FAST, seed=0, **kw)
    b = cls_b(db, k=k, backend=FAST, seed=0)
    return a, b


def partition(labels) -> set:
    groups = defaultdict(set)
    for r, g in enumerate(np.asarray(labels).tolist()):
        groups[g].add(r)
    return {frozenset(v) for v in groups.values()}


# ============================================================================ 1. the wire


def test_unused_categories_index_and_secrets_never_cross():
    n = 12
    cats = ["low", "SECRET-UNUSED", "mid", "high"]  # an ordered scale; one level unused
    level = pd.Categorical(["low", "mid", "high"] * 4, categories=cats, ordered=True)
    index = [f"person-{i:04d}-idx" for i in range(n)]
    da = pd.DataFrame({"level": level, "age": np.arange(n) + 20}, index=index)
    db = pd.DataFrame({"zip": np.arange(n) % 3 * 100,
                       "diag": pd.Categorical(["flu"] * n, categories=["flu", "SECRET-DIAG"])},
                      index=index)
    sa, sb = _curve.random_secret(), _curve.random_secret()
    a = DataOwner(da, k=3, quasi_identifiers={"level": "ordered", "age": "real"}, secret=sa,
                  backend=FAST, seed=0)
    b = DataOwner(db, k=3, quasi_identifiers={"zip": "real"}, sensitive=["diag"], secret=sb,
                  backend=FAST, seed=0)
    seen = traced(a, b)
    assert {_wire.decode(m)[0]["type"] for _, m in seen} >= {"hello", "single", "double",
                                                             "table"}
    forbidden = [b"SECRET-UNUSED", b"SECRET-DIAG"] + [i.encode() for i in index]
    for s in (sa, sb):
        forbidden += [str(s).encode(), f"{s:x}".encode(), f"{s:064x}".encode(),
                      s.to_bytes(32, "big")]
    for who, m in seen:
        for f in forbidden:
            assert f not in m, (who, _wire.decode(m)[0]["type"], f[:20])
    # the categories that did cross keep the scale's order; both owners' joined tables agree
    used = set(a.joined["level"])  # the medians of the aggregated groups
    assert list(a.joined["level"].cat.categories) == [c for c in cats if c in used]
    assert len(used) >= 2 and not used - {"low", "mid", "high"}
    assert a.joined["level"].cat.ordered
    assert list(b.joined["diag"].cat.categories) == ["flu"]
    assert a.joined.reset_index(drop=True).equals(b.joined.reset_index(drop=True))
    assert a.joined.index.tolist() == index  # each owner keeps its own index locally


def test_table_to_json_sends_only_used_categories_in_order():
    s = pd.Categorical(["c", "a", "c"], categories=["c", "b", "a", "z"], ordered=True)
    frame = pd.DataFrame({"q": s})
    [col] = _wire.table_to_json(frame, [("qi", "ordered")])
    assert col["categories"] == ["c", "a"] and col["ordered"] is True
    assert col["values"] == ["c", "a", "c"]
    back, roles = _wire.table_from_json([col], 3)
    assert list(back["q"].cat.categories) == ["c", "a"] and back["q"].tolist() == ["c", "a", "c"]
    assert list(frame["q"].cat.categories) == ["c", "b", "a", "z"]  # input not mutated


# ============================================================================ 2. proofs


def test_honest_run_carries_keys_and_proofs_that_verify():
    a, b = pair()
    seen = traced(a, b)
    heads = [(who, _wire.decode(m)[0]) for who, m in seen]
    hello = {who: h for who, h in heads if h["type"] == "hello"}
    assert bytes.fromhex(hello["first"]["key"]) == a.backend.multiply_base(a._secret)
    assert bytes.fromhex(hello["second"]["key"]) == b.backend.multiply_base(b._secret)
    for who, h in heads:
        if h["type"] in ("single", "double"):
            assert set(h["proof"]) == {"c", "s"} and len(h["proof"]["s"]) == 64
    for o in (a, b):
        assert 0 < o.stats["seconds"]["proofs"]
        assert o.stats["scalar_multiplications"] == 2 * o.n  # proofs are not counted there


class PerRowSecrets(DataOwner):
    """The attack: row i encrypted with its own secret a_i in 'single' (the public key and
    the proof use a's nominal secret)."""

    def _encrypt_own(self, points):
        self.row_secrets = [_curve.random_secret() for _ in points]
        self.row_points = [self.backend.multiply([p], s)[0]
                           for p, s in zip(points, self.row_secrets)]
        return self.row_points


def _attack(a, b, *, verify_single=True, verify_double=True, monkeypatch=None):
    """Drive the cheater a against the honest b by hand: a sees b's single and b's double of
    its own points before it answers (a network lets it wait), learns b's group of every row
    and answers consistently. Returns (learned partition, b's reply to a's double)."""
    real = _proofs.verify

    def selective(*args, what, **kw):
        if (what == "single" and verify_single) or (what == "double" and verify_double):
            return real(*args, what=what, **kw)

    monkeypatch.setattr(_proofs, "verify", selective)
    ha, hb = a.start(first=True), b.start(first=False)
    sa = a.receive(hb)
    sb = b.receive(ha)
    db = b.receive(sa)  # b verifies a's single here
    # a: b's single (b·H_j in b's groups) and b's double of a's points (b·a_i·H_i)
    hs, ps = _wire.decode(sb)
    returned = set(points_of(_wire.decode(db)[1]))
    b_points = points_of(ps)
    b_group = np.repeat(np.arange(len(hs["sizes"])), hs["sizes"])
    learned, answer = {}, {}
    for i, ai in enumerate(a.row_secrets):
        for j, q in enumerate(b_points):
            x = a.backend.multiply([q], ai)[0]
            if x in returned:  # a_i·b·H_j is returned only for j == row i
                learned[i] = int(b_group[j])
                answer[j] = x
    # a's 'double', consistent with what b returned (so the set-equality check passes)
    out = b"".join(answer[j] for j in range(len(b_points)))
    r = _proofs.coefficients(a._salt, a._keys, ps, out, hs["sizes"])
    T = _proofs.lincomb(a.backend, r, _proofs.group_sums(a.backend, b_points, hs["sizes"]))
    proof = a._prove(T, a.backend.multiply([T], a._secret)[0], b"double")
    reply = b.receive(_wire.encode({"type": "double", "sizes": hs["sizes"], "proof": proof},
                                   out))
    return partition([learned[i] for i in range(a.n)]), reply


def test_per_row_secret_attack_works_without_the_proofs(monkeypatch):
    """The threat is real: with both proofs switched off the cheater learns the other owner's
    local group of every row and the run goes on."""
    a, b = pair(cls_a=PerRowSecrets)
    learned, reply = _attack(a, b, verify_single=False, verify_double=False,
                             monkeypatch=monkeypatch)
    assert learned == partition(b._labels0)
    assert len(partition(b._labels0)) > 1
    assert _wire.decode(reply)[0]["type"] in ("round", "table")


def test_per_row_secrets_are_caught_by_the_single_proof(monkeypatch):
    a, b = pair(cls_a=PerRowSecrets)
    with pytest.raises(ProtocolError, match="single proof does not verify"):
        _attack(a, b, monkeypatch=monkeypatch)
    assert b._state == "failed"


def test_consistent_per_row_answers_are_caught_by_the_double_proof(monkeypatch):
    """Even with the single proof switched off, the cheater's consistent 'double' (per-row
    secrets again) does not prove: its groups do not hold b·(what b sent) in sum."""
    a, b = pair(cls_a=PerRowSecrets)
    with pytest.raises(ProtocolError, match="double proof does not verify"):
        _attack(a, b, verify_single=False, monkeypatch=monkeypatch)


class MovesOnePoint(DataOwner):
    """Returns the other's points with one point of group 0 swapped with one of group 1
    (sizes unchanged, the set of points unchanged), and proves honestly otherwise."""

    def _returned(self, points, sizes):
        points = list(points)
        points[0], points[sizes[0]] = points[sizes[0]], points[0]
        return points


def test_moving_a_returned_point_to_another_group_is_caught():
    a, b = pair(cls_b=MovesOnePoint)
    with pytest.raises(ProtocolError, match="double proof does not verify"):
        run_local(a, b)


def _first_messages(a, b):
    ha, hb = a.start(first=True), b.start(first=False)
    return ha, hb


def _with(message: bytes, **fields) -> bytes:
    h, p = _wire.decode(message)
    h.update(fields)
    return _wire.encode(h, p)


def test_tampered_proof_is_caught():
    a, b = pair()
    ha, hb = _first_messages(a, b)
    sa = a.receive(hb)
    b.receive(ha)
    h, _ = _wire.decode(sa)
    s = (int(h["proof"]["s"], 16) + 1) % _curve.N
    with pytest.raises(ProtocolError, match="single proof does not verify"):
        b.receive(_with(sa, proof={"c": h["proof"]["c"], "s": f"{s:064x}"}))


@pytest.mark.parametrize("field", ["c", "s"])
def test_proof_numbers_outside_the_group_order_are_refused(field):
    a, b = pair()
    ha, hb = _first_messages(a, b)
    sa = a.receive(hb)
    b.receive(ha)
    proof = dict(_wire.decode(sa)[0]["proof"])
    proof[field] = f"{_curve.N + 1:064x}"
    with pytest.raises(ProtocolError, match=r"outside \[0, N\)"):
        b.receive(_with(sa, proof=proof))


def test_wrong_public_key_is_caught_by_the_first_proof():
    a, b = pair()
    ha, hb = _first_messages(a, b)
    other = a.backend.multiply_base(_curve.random_secret()).hex()
    sa = a.receive(hb)
    b.receive(_with(ha, key=other))  # a valid point, but not a's key
    with pytest.raises(ProtocolError, match="single proof does not verify"):
        b.receive(sa)


@pytest.mark.parametrize("key, match", [
    ("02" + (7).to_bytes(32, "big").hex(), "not a point"),  # x = 7 is not on the curve
    ("04" + "11" * 32, "malformed curve point"),
    ("02" + "ff" * 32, "x >= p"),
])
def test_invalid_public_keys_are_refused(key, match):
    a, b = pair()
    ha, hb = _first_messages(a, b)
    with pytest.raises(ProtocolError, match=match):
        b.receive(_with(ha, key=key))


def test_own_public_key_reflected_is_refused():
    a, b = pair()
    ha, hb = _first_messages(a, b)
    with pytest.raises(ProtocolError, match="own public key"):
        b.receive(_with(ha, key=b._key.hex()))


def test_missing_proof_is_refused():
    a, b = pair()
    ha, hb = _first_messages(a, b)
    sa = a.receive(hb)
    b.receive(ha)
    with pytest.raises(ProtocolError, match="no proof"):
        b.receive(_with(sa, proof=None))


@pytest.mark.skipif(FAST != "coincurve", reason="coincurve not installed")
def test_backends_agree_on_sums_and_proofs():
    e, c = _curve.EcpyBackend(), _curve.CoincurveBackend()
    pts = _curve.hash_ids(range(25), salt=b"sum")
    neg = bytes([pts[3][0] ^ 1]) + pts[3][1:]
    for sub in (pts, pts[:1], pts + pts[:4], [pts[3], neg], [pts[3], neg, pts[5]], []):
        assert e.add(sub) == c.add(sub)
    assert e.add([pts[3], neg]) is None and e.add([pts[3], neg, pts[5]]) == pts[5]
    assert e.add([pts[2]] * 3) == c.multiply([pts[2]], 3)[0]
    for k in (1, 2, 3, _curve.N - 1, _curve.random_secret()):
        assert e.multiply_base(k) == c.multiply_base(k)
    assert e.multiply_base(1) == _curve.G_BYTES
    # a proof made with one backend verifies with the other
    a = _curve.random_secret()
    T = pts[0]
    Y, U = c.multiply_base(a), c.multiply([T], a)[0]
    proof = _proofs.prove(c, a, Y, T, U, salt=b"x", context=b"t")
    _proofs.verify(e, Y, T, U, proof, salt=b"x", context=b"t", what="t")


@pytest.mark.skipif(FAST != "coincurve", reason="coincurve not installed")
def test_ecpy_and_coincurve_owners_interoperate():
    da = pd.DataFrame({"x": np.arange(9) // 3})
    db = pd.DataFrame({"y": np.arange(9) % 3})
    out = run_local(DataOwner(da, k=3, backend="ecpy", seed=0),
                    DataOwner(db, k=3, backend="coincurve", seed=0))
    assert out.shape == (9, 2)


def test_group_coefficients_are_odd_128_bit_and_bound_to_the_payloads():
    r = _proofs.coefficients(b"s", (b"k1", b"k2"), b"sent", b"back", [3, 4, 5])
    assert len(r) == 3 and all(x % 2 == 1 and x < 2**128 for x in r)
    assert len(set(r)) == 3
    assert r != _proofs.coefficients(b"s", (b"k1", b"k2"), b"sent", b"back!", [3, 4, 5])
    assert r != _proofs.coefficients(b"s", (b"k2", b"k1"), b"sent", b"back", [3, 4, 5])
    assert r != _proofs.coefficients(b"s", (b"k1", b"k2"), b"sent", b"back", [4, 3, 5])


# ============================================================================ 3. headers, sizes


def _in_state(state: str):
    """(owner a in ``state``, b's valid message for that state)."""
    a, b = pair()
    ma, mb = a.start(first=True), b.start(first=False)
    while a._state != state:
        ma, mb = a.receive(mb), b.receive(ma)
    return a, mb


BAD_HELLO = [
    ({"rows": True}, "'rows'.*integer"),
    ({"rows": -1}, "out of range"),
    ({"rows": 12.0}, "'rows'.*integer"),
    ({"k": 0}, "out of range"),
    ({"first": 0}, "'first'"),
    ({"columns": "abc"}, "'columns'"),
    ({"columns": 5}, "'columns'"),
    ({"columns": [{"a": 1}]}, "column name"),
    ({"columns": ["x" * 1001]}, "column name"),
    ({"nonce": "AB" * 32}, "'nonce'.*hex"),
    ({"nonce": "ab" * 31}, "'nonce'.*hex"),
    ({"key": "02" + "ab" * 31}, "'key'.*hex"),
    ({"version": 1}, "version 1"),
    ({"version": "2"}, "version"),
    ({"extra": 1}, "unexpected fields"),
]


@pytest.mark.parametrize("fields, match", BAD_HELLO)
def test_hello_fields_are_type_checked(fields, match):
    a, hb = _in_state("hello")
    with pytest.raises(ProtocolError, match=match):
        a.receive(_with(hb, **fields))
    assert a._state == "failed"


@pytest.mark.parametrize("fields, match", [
    ({"sizes": [True] * 12}, "'sizes'.*integer"),
    ({"sizes": "12"}, "'sizes'"),
    ({"sizes": [0, 12]}, "out of range"),
    ({"sizes": [6, 7]}, "cover the rows"),
    ({"proof": "00"}, "'proof'"),
    ({"proof": {"c": "00", "s": "00"}}, "proof.c"),
    ({"proof": {"c": "0" * 64, "s": "0" * 64, "w": 1}}, "'proof'"),
])
def test_single_fields_are_type_checked(fields, match):
    a, sb = _in_state("single")
    with pytest.raises(ProtocolError, match=match):
        a.receive(_with(sb, **fields))


def test_missing_field_and_payload_size_are_checked():
    a, sb = _in_state("single")
    h, p = _wire.decode(sb)
    del h["proof"]
    with pytest.raises(ProtocolError, match=r"lacks \['proof'\]"):
        a.receive(_wire.encode(h, p))
    for payload in (p[:-1], p + b"\x02" * 33, b""):
        a, sb = _in_state("single")
        with pytest.raises(ProtocolError, match="cover the rows"):
            a.receive(_wire.encode(_wire.decode(sb)[0], payload))
    a, hb = _in_state("hello")
    with pytest.raises(ProtocolError, match="unexpected binary data"):
        a.receive(hb + b"\x00")


def test_round_and_table_fields_are_type_checked():
    a, m = _in_state("table")
    h, _ = _wire.decode(m)
    assert h["type"] == "table"
    bad_cols = [
        ("dtype", "float64; import os"), ("role", "identifier"), ("kind", "secret"),
        ("values", "x"), ("values", [[1]]), ("values", [1] * 5), ("name", {"a": 1}),
    ]
    for field, value in bad_cols:
        a, m = _in_state("table")
        h, _ = _wire.decode(m)
        h["columns"][0][field] = value
        with pytest.raises(ProtocolError):
            a.receive(_wire.encode(h))
    a, m = _in_state("table")
    h, _ = _wire.decode(m)
    h["columns"][0]["name"] = "not-announced"
    with pytest.raises(ProtocolError, match="announced"):
        a.receive(_wire.encode(h))
    # a round message with a malformed merge
    for merge in (["a", 1], [1], [1, 0], [True, 2], None):
        a, _ = _in_state("double")
        a._state = "round"  # expecting a round message
        a._round = 0
        with pytest.raises(ProtocolError):
            a.receive(_wire.encode({"type": "round", "round": 0, "merge": merge}))


def test_decode_refuses_nesting_nan_and_long_headers():
    deep = b"[" * 100_000 + b"]" * 100_000
    msg = _wire.MAGIC + len(deep).to_bytes(4, "big") + deep
    with pytest.raises(ProtocolError, match="nested too deeply|not valid JSON|lists or objects"):
        _wire.decode(msg)
    deep_obj = ('{"type":"hello","columns":' + "[" * 50_000 + "]" * 50_000 + "}").encode()
    with pytest.raises(ProtocolError):
        _wire.decode(_wire.MAGIC + len(deep_obj).to_bytes(4, "big") + deep_obj)
    nan = b'{"type":"round","round":NaN,"merge":[0,1]}'
    with pytest.raises(ProtocolError, match="not valid JSON"):
        _wire.decode(_wire.MAGIC + len(nan).to_bytes(4, "big") + nan)
    big = _wire.encode({"type": "abort", "reason": "x" * (_wire.MAX_HEADER + 1)})
    with pytest.raises(ProtocolError, match="more than"):
        _wire.decode(big)
    assert _wire.decode(big, max_header=2 * _wire.MAX_HEADER)[0]["type"] == "abort"


def test_max_message_bytes_follows_the_state():
    a, _ = _in_state("single")
    assert a.max_message_bytes() == 8 + _wire.MAX_HEADER + 12 * B
    a, _ = _in_state("table")
    assert a.max_message_bytes() == 8 + _wire.table_header_cap(12, 1)
    assert _wire.table_header_cap(12, 1) == _wire.MAX_HEADER + 12 * _wire.MAX_CELL_BYTES


# ============================================================================ timeouts


def test_socket_channel_times_out_when_the_peer_announces_and_sends_nothing():
    s1, s2 = socket.socketpair()
    try:
        s2.sendall((100).to_bytes(8, "big"))  # a 100-byte message announced, nothing follows
        started = time.monotonic()
        with pytest.raises(ProtocolError, match="timed out waiting for the other owner"):
            SocketChannel(s1, timeout=0.5).recv_bytes()
        assert 0.4 < time.monotonic() - started < 5
        s2.sendall((1 << 33).to_bytes(8, "big"))
        with pytest.raises(ProtocolError, match="refusing"):
            SocketChannel(s1, timeout=0.5).recv_bytes(1000)
    finally:
        s1.close()
        s2.close()


def test_run_party_times_out_and_refuses_oversized_announcements():
    s1, s2 = socket.socketpair()
    a, _ = pair()
    try:
        s2.sendall((50).to_bytes(8, "big"))
        started = time.monotonic()
        with pytest.raises(ProtocolError, match="timed out waiting for the other owner"):
            run_party(a, SocketChannel(s1), first=True, timeout=0.5)
        assert time.monotonic() - started < 5
    finally:
        s1.close()
        s2.close()
    s1, s2 = socket.socketpair()
    a, _ = pair()
    try:  # a hello is small: a 100 MB announcement is refused before anything is read
        s2.sendall((100 << 20).to_bytes(8, "big"))
        with pytest.raises(ProtocolError, match="refusing"):
            run_party(a, SocketChannel(s1, max_size=1 << 40), first=True, timeout=5)
    finally:
        s1.close()
        s2.close()
    left, right = multiprocessing.Pipe()
    a, _ = pair()
    with pytest.raises(ProtocolError, match="timed out waiting for the other owner"):
        run_party(a, left, first=True, timeout=0.5)
    with pytest.raises(InvalidInputError, match="timeout"):
        run_party(a, left, first=True, timeout=-1)


# ============================================================================ fuzzing

_STATES = ("hello", "single", "double", "table")
_SNAPSHOTS = {}


def _snapshot(state: str):
    if state not in _SNAPSHOTS:
        _SNAPSHOTS[state] = _in_state(state)
    owner, message = _SNAPSHOTS[state]
    return copy.deepcopy(owner), message


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=4),
    max_leaves=10)


@st.composite
def fuzzed(draw):
    state = draw(st.sampled_from(_STATES))
    _, valid = _snapshot(state)
    how = draw(st.sampled_from(["random", "flip", "truncate", "extend", "field", "nested"]))
    if how == "random":
        msg = draw(st.binary(max_size=300))
        if draw(st.booleans()):
            msg = _wire.MAGIC + msg
    elif how == "flip":
        msg = bytearray(valid)
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(msg) - 1))
            msg[i] ^= draw(st.integers(1, 255))
        msg = bytes(msg)
    elif how == "truncate":
        msg = valid[:draw(st.integers(0, len(valid) - 1))]
    elif how == "extend":
        msg = valid + draw(st.binary(min_size=1, max_size=80))
    elif how == "field":
        h, p = _wire.decode(valid)
        field = draw(st.sampled_from(sorted(h) + ["extra"]))
        h[field] = draw(json_values)
        if draw(st.booleans()) and h.get("type") in ("single", "double"):
            p = draw(st.binary(max_size=40)) + p
        msg = _wire.MAGIC + len(json.dumps(h).encode()).to_bytes(4, "big") + json.dumps(
            h).encode() + p
    else:
        depth = draw(st.integers(500, 5000))
        head = ('{"type":"hello","columns":' + "[" * depth + "]" * depth + "}").encode()
        msg = _wire.MAGIC + len(head).to_bytes(4, "big") + head
    return state, msg


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fuzzed())
def test_receive_raises_only_protocol_or_input_errors(case):
    state, msg = case
    owner, _ = _snapshot(state)
    started = time.monotonic()
    try:
        owner.receive(msg)
    except (ProtocolError, InvalidInputError):
        pass
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("state", _STATES)
def test_snapshots_accept_their_valid_message(state):
    """The fuzzing base is sound: each snapshot accepts the unmodified message."""
    owner, msg = _snapshot(state)
    owner.receive(msg)


# ============================================================================ 4. weak secrets


def test_weak_secret_warns_exactly_once_in_both_apis():
    df = pd.DataFrame({"x": [1, 2, 3, 4]})
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        a = DataOwner(df, k=2, secret=7, backend=FAST)
        b = DataOwner(pd.DataFrame({"y": [1, 2, 3, 4]}), k=2, backend=FAST)
        run_local(a, b)
    weak = [w for w in got if issubclass(w.category, WeakKeyWarning)]
    assert len(weak) == 1 and "secret has only 3 bits" in str(weak[0].message)
    assert weak[0].filename == __file__  # points at the caller's line
    qi = np.array([[1], [1], [5], [5]], dtype=object)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        d1 = DistributedDataOwnerKAnonymityDepersonalizator(qi, np.array([]), 2, 8,
                                                           quasi_identifiers_types=["real"])
        d2 = DistributedDataOwnerKAnonymityDepersonalizator(qi, np.array([]), 2, None,
                                                           quasi_identifiers_types=["real"])
        d1.set_other_data_owner(d2)
        d2.set_other_data_owner(d1)
        d1.exchange_data()  # builds the owners again: no second warning
    weak = [w for w in got if issubclass(w.category, WeakKeyWarning)]
    assert len(weak) == 1 and "encryption_key has only 4 bits" in str(weak[0].message)
    assert weak[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DataOwner(df, k=2, secret=2**200 + 1, quasi_identifiers=["x"])
        DataOwner(df, k=2, quasi_identifiers=["x"])
    assert parties.WeakKeyWarning is _curve.WeakKeyWarning
    assert pdanon.algorithms.distributed.WeakKeyWarning is _curve.WeakKeyWarning


def test_a_faulty_peer_table_is_both_a_protocol_and_a_verification_error():
    from pdanon._errors import VerificationError

    assert issubclass(_owner.FaultyPeerTableError, ProtocolError)
    assert issubclass(_owner.FaultyPeerTableError, VerificationError)


def test_a_table_over_the_size_cap_fails_at_the_sender():
    """The sender refuses to send a table the other owner would refuse (long text cells)."""
    long = "x" * (_wire.MAX_HEADER + 10)
    a = DataOwner(pd.DataFrame({"age": [21, 22, 35, 36], "note": [long] * 4}), k=2,
                  quasi_identifiers=["age"], sensitive=["note"], backend=FAST)
    b = DataOwner(pd.DataFrame({"zip": [100, 101, 300, 301]}), k=2, backend=FAST)
    with pytest.raises(InvalidInputError, match="shorten long text cells"):
        run_local(a, b)


# ============================================================================ 5. work bounds
# issue 27: a hostile owner announcing 150,000 column names in hello (within the 1 MiB header
# cap) made the honest owner size its table cap from that count: a 680 MB header then killed
# it with a MemoryError, or a 22.5 MB table cost ~100 s after the receive. Columns are capped
# in hello, the table header has an absolute cap, and JSON containers are counted before the
# header is parsed.


def _names(count: int) -> list:
    """``count`` distinct short column names (at most 3 characters up to 226,981), never the
    honest owner's "x"."""
    digits = "0123456789abcdefghijklmnopqrstuvwyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    out = []
    for i in range(count):
        s = ""
        while True:
            i, r = divmod(i, len(digits))
            s = digits[r] + s
            if not i:
                break
        out.append(s)
    return out


def test_hello_with_150000_columns_is_refused():
    from tests._helpers.messy import time_limit

    a, hb = _in_state("hello")
    names = _names(150_000)
    msg = _with(hb, columns=names)
    assert len(msg) < _wire.MAX_HEADER  # within the header cap: only the count is wrong
    with time_limit(10, "a hello with 150,000 columns"):
        with pytest.raises(ProtocolError, match=r"150,000 columns.*1,000"):
            a.receive(msg)
    assert a._state == "failed"
    a, hb = _in_state("hello")
    a.receive(_with(hb, columns=["y"] + _names(_wire.MAX_COLUMNS - 1)[1:] + ["zz"]))
    assert a._state == "single"  # exactly MAX_COLUMNS names are accepted


def test_table_cap_is_bounded_whatever_the_peer_announces():
    assert _wire.MAX_COLUMNS == 1000
    assert _wire.table_header_cap(9, 150_000) == _wire.table_header_cap(9, _wire.MAX_COLUMNS)
    assert _wire.table_header_cap(10**6, 1000) == _wire.MAX_TABLE_HEADER == 64 << 20
    assert _wire.table_header_cap(12, 1) == _wire.MAX_HEADER + 12 * _wire.MAX_CELL_BYTES
    a, _ = _in_state("table")
    a._peer_columns = _names(150_000)  # even if a hello had got through
    assert a.max_message_bytes() <= 8 + _wire.MAX_TABLE_HEADER


def test_table_with_too_many_columns_or_containers_is_refused_before_parsing(monkeypatch):
    from tests._helpers.messy import time_limit

    many = {"type": "table", "round": 0, "columns": [
        {"name": c, "role": "qi", "kind": "real", "dtype": "int64", "values": [1]}
        for c in _names(1001)]}
    with pytest.raises(ProtocolError, match="1,001 columns"):
        _wire.check_header(_wire.decode(_wire.encode(many))[0])
    # 3 MB of empty lists: 24 bytes of Python objects per byte if parsed; refused unparsed
    head = b'{"type":"table","round":0,"columns":[' + b"[]," * 1_000_000 + b"[]]}"
    msg = _wire.MAGIC + len(head).to_bytes(4, "big") + head
    parsed = []
    monkeypatch.setattr(_wire.json, "loads", lambda *a, **k: parsed.append(1))
    with time_limit(10, "a header of a million empty lists"):
        with pytest.raises(ProtocolError, match="1,000,003 JSON lists or objects.*4,016"):
            _wire.decode(msg, max_header=len(head))
    assert parsed == []
    # brackets inside strings are not containers: a text cell may hold them
    monkeypatch.undo()
    text = {"type": "abort", "reason": "["}
    cells = _wire.encode({"type": "table", "round": 0, "columns": [
        {"name": "t", "role": "sensitive", "kind": "unordered", "dtype": "object",
         "values": ['a "[quoted]" {x}' + "[" * 5000, "\\[", "x"]}]})
    h, _ = _wire.decode(cells, max_header=len(cells))
    assert h["columns"][0]["values"][1] == "\\["
    assert _wire.decode(_wire.encode(text))[0] == text


def test_an_owner_with_too_many_columns_fails_at_construction():
    df = pd.DataFrame(np.zeros((4, _wire.MAX_COLUMNS + 1), dtype=int),
                      columns=[f"c{i}" for i in range(_wire.MAX_COLUMNS + 1)])
    with pytest.raises(InvalidInputError, match="1,001 columns.*1,000"):
        DataOwner(df, k=2, quasi_identifiers=["c0"], sensitive=list(df.columns[1:]),
                  backend=FAST)


def test_a_table_over_the_absolute_cap_fails_at_the_sender(monkeypatch):
    monkeypatch.setattr(_wire, "MAX_TABLE_HEADER", 2000)  # below the per-cell cap (1 MiB + ...)
    assert _wire.table_header_cap(4, 2) == 2000

    def owners(note):
        a = DataOwner(pd.DataFrame({"age": [21, 22, 35, 36], "note": [note] * 4}), k=2,
                      quasi_identifiers=["age"], sensitive=["note"], backend=FAST)
        b = DataOwner(pd.DataFrame({"zip": [100, 101, 300, 301]}), k=2, backend=FAST)
        return a, b

    assert run_local(*owners("x" * 300)).shape == (4, 3)  # a table of ~1.5 kB
    with pytest.raises(InvalidInputError, match="2,008 the other owner accepts"):
        run_local(*owners("x" * 600))


def _count_containers(v) -> int:
    if isinstance(v, list):
        return 1 + sum(_count_containers(x) for x in v)
    if isinstance(v, dict):
        return 1 + sum(_count_containers(x) for x in v.values())
    return 0


tricky_text = st.text(alphabet='[]{}"\\ab\u00e9', max_size=12)
json_with_brackets = st.recursive(
    st.none() | st.integers(-5, 5) | tricky_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(tricky_text, inner, max_size=3),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(json_with_brackets, st.integers(1, 9), st.booleans())
def test_container_count_skips_brackets_inside_strings(value, chunk, ascii_only):
    head = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8")
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_wire, "MAX_CONTAINERS", -1)  # always the exact count
        m.setattr(_wire, "_CHUNK", chunk)  # chunk edges inside strings and escape runs
        assert _wire._containers(head) == _count_containers(value)


def test_cell_checks_in_bulk():
    ok = [None, True, False, -(1 << 63), (1 << 64) - 1, 0.5, -1e308, "", "x"]
    assert _wire._cells_ok(ok) and _wire._cells_ok([]) and _wire._cells_ok([1, 2, 3])
    for bad in ([1 << 64], [-(1 << 63) - 1], [1.0, float("inf")], [float("nan")], [[1]],
                [{"a": 1}], ["x", 1e999], [1, (1 << 64) + 5, "s"]):
        assert not _wire._cells_ok(bad), bad
