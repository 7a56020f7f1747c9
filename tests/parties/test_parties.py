"""Two data owners (pdanon.parties): commutative EC encryption, the refinement rule against a
plaintext reference, message inspection, two processes, the classic API."""

from __future__ import annotations

import doctest
import hashlib
import multiprocessing
import socket
import threading
import warnings
from collections import Counter, defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._helpers.reference_groupjoin import group_loss

import pdanon.parties as parties
from pdanon.algorithms import DistributedDataOwnerKAnonymityDepersonalizator
from pdanon._errors import InvalidInputError, VerificationError
from pdanon.parties import (
    DataOwner,
    ProtocolError,
    SocketChannel,
    WeakKeyWarning,
    run_local,
    run_party,
)
from pdanon.parties import _curve, _owner, _proofs, _wire

HAS_COINCURVE = "coincurve" in parties.backends()
FAST = "coincurve" if HAS_COINCURVE else "ecpy"
TIE = 1e-9


# ============================================================================ helpers


def classes_min(frame: pd.DataFrame, cols) -> int:
    return int(frame.groupby(list(cols), dropna=False).size().min())


def partition(labels) -> set:
    groups = defaultdict(list)
    for r, g in enumerate(np.asarray(labels).tolist()):
        groups[g].append(r)
    return {frozenset(v) for v in groups.values()}


def intersections_ok(pa: set, pb: set, k: int) -> bool:
    return all(not (0 < len(a & b) < k) for a in pa for b in pb)


def reference_refine(cols_a, kinds_a, labels_a, cols_b, kinds_b, labels_b, k):
    """The refinement loop in plaintext: while some pair of groups meets in 1..k-1 rows, each
    owner merges, among its smallest groups, the one with the cheapest partner (least increase
    of the aggregation loss; ties: smallest ids). Returns both partitions and the rounds."""

    def groups_of(labels):
        d = defaultdict(list)
        for r, g in enumerate(labels):
            d[g].append(r)
        return {min(rows): sorted(rows) for rows in d.values()}

    def step(groups, fval, cols, kinds):
        m = min(len(r) for r in groups.values())
        tier = sorted(g for g, r in groups.items() if len(r) == m)
        choice = []
        for g in tier:
            scored = []
            for h in sorted(groups):
                if h == g:
                    continue
                loss = group_loss("aggregate", kinds, cols, groups[g] + groups[h])
                scored.append((loss - fval[g] - fval[h], h, loss))
            best = min(s[0] for s in scored)
            choice.append(next(s for s in scored if s[0] <= best + TIE * max(1, abs(best))))
        best = min(c[0] for c in choice)
        i = next(i for i, c in enumerate(choice) if c[0] <= best + TIE * max(1, abs(best)))
        g, (_, h, loss) = tier[i], choice[i]
        a, b = min(g, h), max(g, h)
        groups[a] = sorted(groups[a] + groups.pop(b))
        fval.pop(b)
        fval[a] = loss

    ga, gb = groups_of(labels_a), groups_of(labels_b)
    fa = {g: group_loss("aggregate", kinds_a, cols_a, r) for g, r in ga.items()}
    fb = {g: group_loss("aggregate", kinds_b, cols_b, r) for g, r in gb.items()}
    rounds = 0
    while not intersections_ok({frozenset(r) for r in ga.values()},
                               {frozenset(r) for r in gb.values()}, k):
        step(ga, fa, cols_a, kinds_a)
        step(gb, fb, cols_b, kinds_b)
        rounds += 1
    return ({frozenset(r) for r in ga.values()}, {frozenset(r) for r in gb.values()}, rounds)


def salt_of(messages) -> bytes:
    """The session salt, from the two hello messages (both nonces are public)."""
    hellos = {}
    for who, m in messages:
        h, _ = _wire.decode(m)
        if h["type"] == "hello":
            hellos[h["first"]] = bytes.fromhex(h["nonce"])
    return hashlib.sha256(_owner._SALT_DST + hellos[True] + hellos[False]).digest()


def points_of(payload: bytes) -> list:
    return [payload[i:i + 33] for i in range(0, len(payload), 33)]


# ============================================================================ the seed example


SEED_QI1 = np.array([[1, 1, 1], [1, 1, 2], [3, 3, 3], [3, 3, 4], [4, 4, 5], [4, 4, 4]],
                    dtype=object)
SEED_QI2 = np.array([[1, 1, 1], [1, 1, 2], [3, 3, 3], [4, 4, 5], [3, 3, 4], [4, 4, 4]],
                    dtype=object)


def _seed_pair(s1, s2, key1=None, key2=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WeakKeyWarning)
        d1 = DistributedDataOwnerKAnonymityDepersonalizator(
            SEED_QI1, s1, 2, key1, seed=7, quasi_identifiers_types=["real"] * 3)
        d2 = DistributedDataOwnerKAnonymityDepersonalizator(
            SEED_QI2, s2, 2, key2, seed=7, quasi_identifiers_types=["real"] * 3)
    d1.set_other_data_owner(d2)
    d2.set_other_data_owner(d1)
    return d1, d2


def test_seed_example_gives_a_k_anonymous_joined_table():
    d1, d2 = _seed_pair(np.array([]), np.array([]), 7, 8)
    assert d1.exchange_data() is None
    out = d1.joined_data
    assert out.dtype == object and out.shape == (6, 6)
    # hand-checked: owner 1 ends with {0,1},{2,3,4,5}; owner 2 with {0,1},{2,3,4,5}
    low = [1, 1, 1.5]
    high = [3.5, 3.5, 4.0]
    assert out.tolist() == [low + low] * 2 + [high + high] * 4
    assert isinstance(out[0, 0], int) and isinstance(out[0, 2], float)  # as the reference
    assert (d2.joined_data == out).all()
    assert classes_min(pd.DataFrame(out.tolist()), range(6)) >= 2
    assert d1.stats["rounds"] == 1 and d1.stats["scalar_multiplications"] == 12


def test_seed_example_with_sensitives_keeps_the_reference_column_order():
    s1 = np.array([[1], [2], [3], [4], [5], [6]], dtype=object)
    s2 = np.array([["a"], ["b"], ["c"], ["d"], ["e"], ["f"]], dtype=object)
    d1, d2 = _seed_pair(s1, s2)
    d2.exchange_data()  # d2 calls: d2's columns come first
    out = d2.joined_data
    assert out.shape == (6, 8)
    assert out[:, 3].tolist() == list("abcdef")  # [QI2, s2, QI1, s1]
    assert out[:, 7].tolist() == [1, 2, 3, 4, 5, 6]
    assert (d1.joined_data == out).all()
    assert classes_min(pd.DataFrame(out[:, [0, 1, 2, 4, 5, 6]].tolist()), range(6)) >= 2


def test_weak_keys_warn_and_none_draws_a_random_key():
    with pytest.warns(WeakKeyWarning, match="bits"):
        DistributedDataOwnerKAnonymityDepersonalizator(SEED_QI1, np.array([]), 2, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = DistributedDataOwnerKAnonymityDepersonalizator(SEED_QI1, np.array([]), 2, None)
        b = DistributedDataOwnerKAnonymityDepersonalizator(SEED_QI1, np.array([]), 2, None)
    assert 1 <= a._key < _curve.N and a._key != b._key
    assert a._key.bit_length() > 200 or b._key.bit_length() > 200


def test_classic_api_errors():
    d = DistributedDataOwnerKAnonymityDepersonalizator(SEED_QI1, np.array([]), 2, None)
    with pytest.raises(InvalidInputError, match="set_other_data_owner"):
        d.exchange_data()
    with pytest.raises(InvalidInputError, match="rows"):
        DistributedDataOwnerKAnonymityDepersonalizator(SEED_QI1, np.zeros((3, 1)), 2, None)
    with pytest.raises(InvalidInputError, match="quasi_identifiers_types"):
        DistributedDataOwnerKAnonymityDepersonalizator(SEED_QI1, np.array([]), 2, None,
                                                       quasi_identifiers_types=["real"])
    with pytest.raises(InvalidInputError, match="encryption key"):
        DistributedDataOwnerKAnonymityDepersonalizator(SEED_QI1, np.array([]), 2, "key")
    with pytest.raises(InvalidInputError, match="0 modulo"):
        DistributedDataOwnerKAnonymityDepersonalizator(SEED_QI1, np.array([]), 2, _curve.N)


def test_classic_name_is_reachable_from_algorithms_and_compat():
    import pdanon.algorithms as algorithms
    from pdanon.compat.cp2025.algorithms import DistributedDataKAnonymityDepersonalization as m

    assert algorithms.DistributedDataOwnerKAnonymityDepersonalizator is (
        DistributedDataOwnerKAnonymityDepersonalizator)
    assert m.DistributedDataOwnerKAnonymityDepersonalizator is (
        DistributedDataOwnerKAnonymityDepersonalizator)


def test_classic_api_with_ordered_and_unordered_strings():
    qi1 = np.array([["low", "x"], ["low", "y"], ["high", "x"], ["mid", "y"], ["high", "x"],
                    ["mid", "x"]], dtype=object)
    qi2 = np.array([[1.5], [1.5], [7.0], [7.0], [8.0], [8.0]], dtype=object)
    a = DistributedDataOwnerKAnonymityDepersonalizator(
        qi1, np.array([]), 2, None, quasi_identifiers_types=["ordered", "unordered"], seed=1)
    b = DistributedDataOwnerKAnonymityDepersonalizator(
        qi2, np.array([[10], [20], [30], [40], [50], [60]]), 2, None,
        quasi_identifiers_types=["real"], seed=1)
    a.set_other_data_owner(b)
    b.set_other_data_owner(a)
    a.exchange_data()
    out = a.joined_data
    assert out.shape == (6, 4)
    assert set(out[:, 0]) <= {"low", "mid", "high"} and set(out[:, 1]) <= {"x", "y"}
    assert out[:, 3].tolist() == [10, 20, 30, 40, 50, 60]
    assert classes_min(pd.DataFrame(out[:, :3].tolist()), range(3)) >= 2
    assert (b.joined_data == out).all()


# ============================================================================ DataOwner


def test_small_table_exact_output():
    a = DataOwner(pd.DataFrame({"age": [21, 22, 35, 36, 37, 60]}, index=list("uvwxyz")), k=2,
                  backend="ecpy", seed=0)
    b = DataOwner(pd.DataFrame({"zip": ["n", "n", "s", "s", "s", "s"],
                                "disease": ["flu", "hiv", "flu", "flu", "cold", "flu"]}),
                  k=2, sensitive=["disease"], backend="ecpy", seed=0)
    out = run_local(a, b)
    # local groups: a {0,1},{2,3},{4,5}; b {0,1},{2,3,4,5}: a's {4,5} meets b's groups in 2
    # rows, so the partitions are equal at once and nothing is merged
    assert list(out.columns) == ["age", "zip", "disease"]
    assert out.index.tolist() == list("uvwxyz")  # the first owner's own index
    assert out["age"].tolist() == [21.5, 21.5, 35.5, 35.5, 48.5, 48.5]
    assert out["zip"].tolist() == ["n", "n", "s", "s", "s", "s"]
    assert out["disease"].tolist() == ["flu", "hiv", "flu", "flu", "cold", "flu"]
    assert a.stats["rounds"] == 0
    assert b.joined.index.tolist() == list(range(6))  # each owner keeps its own index
    assert b.joined.reset_index(drop=True).equals(out.reset_index(drop=True))


def test_merges_until_no_intersection_is_below_k():
    a = DataOwner(pd.DataFrame({"x": [0, 0, 10, 10, 20, 20]}), k=2, backend="ecpy", seed=0)
    b = DataOwner(pd.DataFrame({"y": [0, 5, 0, 5, 0, 5]}), k=2, backend="ecpy", seed=0)
    out = run_local(a, b)
    assert intersections_ok(partition(a.final_labels), partition(b.final_labels), 2)
    assert a.stats["rounds"] == b.stats["rounds"] >= 1
    assert classes_min(out, ["x", "y"]) >= 2


@st.composite
def two_owners(draw):
    k = draw(st.integers(2, 3))
    n = draw(st.integers(k, 16))
    col = lambda hi: st.lists(st.integers(0, hi), min_size=n, max_size=n)  # noqa: E731
    a = pd.DataFrame({"r": draw(col(6)), "u": draw(col(3))})
    b = pd.DataFrame({"s": draw(col(9)), "v": [f"v{c}" for c in draw(col(2))]})
    return k, a, b


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_owners())
def test_protocol_matches_a_plaintext_reference(case):
    k, da, db = case
    qa = {"r": "real", "u": "unordered"}
    qb = {"s": "real", "v": "unordered"}
    a = DataOwner(da, k=k, quasi_identifiers=qa, backend=FAST, seed=3)
    b = DataOwner(db, k=k, quasi_identifiers=qb, backend=FAST, seed=4)
    out = run_local(a, b)
    pa, pb, rounds = reference_refine(
        [da["r"].tolist(), da["u"].tolist()], ["real", "unordered"], a._labels0.tolist(),
        [db["s"].tolist(), db["v"].tolist()], ["real", "unordered"], b._labels0.tolist(), k)
    assert partition(a.final_labels) == pa
    assert partition(b.final_labels) == pb
    assert a.stats["rounds"] == b.stats["rounds"] == rounds
    # published cells: group means (real) and modes, ties to the first row (unordered)
    for frame, part, real, nominal in ((da, pa, "r", "u"), (db, pb, "s", "v")):
        for rows in part:
            rows = sorted(rows)
            assert set(out.loc[rows, real]) == {frame.loc[rows, real].mean()}
            counts = Counter(frame.loc[rows, nominal])
            top = max(counts.values())
            mode = next(v for v in frame.loc[rows, nominal] if counts[v] == top)
            assert set(out.loc[rows, nominal]) == {mode}
    assert classes_min(out, ["r", "u", "s", "v"]) >= k
    assert out.equals(b.joined)


def test_k_equal_one_publishes_the_original_values():
    da = pd.DataFrame({"x": [3, 1, 2]})
    db = pd.DataFrame({"y": ["a", "b", "c"]})
    out = run_local(DataOwner(da, k=1, backend="ecpy"), DataOwner(db, k=1, backend="ecpy"))
    assert out["x"].tolist() == [3.0, 1.0, 2.0] and out["y"].tolist() == ["a", "b", "c"]


def test_empty_tables_and_owner_without_quasi_identifiers():
    e = run_local(DataOwner(pd.DataFrame({"x": pd.Series([], dtype=float)}), k=2),
                  DataOwner(pd.DataFrame({"y": pd.Series([], dtype=float)}), k=2))
    assert e.shape == (0, 2)
    a = DataOwner(pd.DataFrame({"salary": [1, 2, 3, 4]}), k=2, quasi_identifiers=[],
                  sensitive=["salary"], backend="ecpy")
    b = DataOwner(pd.DataFrame({"zip": [1, 2, 8, 9]}), k=2, backend="ecpy", seed=0)
    out = run_local(a, b)
    assert out.columns.tolist() == ["salary", "zip"]
    assert out["salary"].tolist() == [1, 2, 3, 4] and out["zip"].tolist() == [1.5, 1.5, 8.5, 8.5]


def test_input_errors():
    df = pd.DataFrame({"x": [1, 2, 3]})
    with pytest.raises(InvalidInputError, match="k=4 is larger"):
        DataOwner(df, k=4)
    with pytest.raises(InvalidInputError, match="DataFrame"):
        DataOwner(df.to_numpy(), k=2)
    with pytest.raises(InvalidInputError, match="infinite"):
        DataOwner(pd.DataFrame({"x": [1.0, np.inf, 3.0]}), k=2)
    with pytest.raises(InvalidInputError, match="backend"):
        DataOwner(df, k=2, backend="openssl")
    with pytest.raises(InvalidInputError, match="different numbers of rows"):
        run_local(DataOwner(df, k=2), DataOwner(pd.DataFrame({"y": [1, 2]}), k=2))
    with pytest.raises(InvalidInputError, match="different k"):
        run_local(DataOwner(df, k=2), DataOwner(pd.DataFrame({"y": [1, 2, 3]}), k=3))
    with pytest.raises(InvalidInputError, match="rename"):
        run_local(DataOwner(df, k=2), DataOwner(df, k=2))
    a, b = DataOwner(df, k=2), DataOwner(pd.DataFrame({"y": [1, 2, 3]}), k=2)
    ma, mb = a.start(first=True), b.start(first=True)
    with pytest.raises(ProtocolError, match="first=True"):
        a.receive(mb)
    assert "secret" not in repr(a) and str(a._secret) not in repr(a)


# ============================================================================ curves


def test_hash_to_curve_points_are_valid_and_salted():
    from ecpy.curves import Curve

    cv = Curve.get_curve("secp256k1")
    assert (cv.field, cv.order) == (_curve.P, _curve.N)
    pts = _curve.hash_ids(range(50), salt=b"s")
    assert len(set(pts)) == 50
    for p in pts[:5]:
        x, y = _curve._decode_xy(p)
        assert cv.is_on_curve(__import__("ecpy.curves").curves.Point(x, y, cv, check=False))
    assert not set(pts) & set(_curve.hash_ids(range(50), salt=b"t"))
    # not the reference's id·G, which the other owner could recompute
    G = cv.generator
    small = {bytes(cv.encode_point(i * G, compressed=True)) for i in range(1, 50)}
    assert not set(pts) & small


@pytest.mark.skipif(not HAS_COINCURVE, reason="coincurve not installed")
def test_ecpy_and_coincurve_give_identical_encrypted_ids():
    ecpy_ladder = _curve.EcpyBackend(window=None)
    ecpy_window = _curve.EcpyBackend()
    fast = _curve.CoincurveBackend()
    pts = _curve.hash_ids(range(40), salt=b"x" * 32)
    assert pts == _curve.hash_ids(range(40), salt=b"x" * 32, backend=fast)
    a, b = _curve.random_secret(), _curve.random_secret()
    for k in (1, 2, 3, 15, 16, 17, _curve.N - 1, _curve.N - 2, 2**255, a):
        got = fast.multiply(pts[:6], k)
        assert ecpy_ladder.multiply(pts[:6], k) == got
        assert ecpy_window.multiply(pts[:6], k) == got
    # commutative: b·(a·H) == a·(b·H), on either backend
    ab = fast.multiply(ecpy_window.multiply(pts, a), b)
    assert ab == ecpy_window.multiply(fast.multiply(pts, b), a)


def test_window_recoding_is_exact_and_regular():
    rng = np.random.default_rng(0)
    for w in (2, 4, 5):
        for k in [1, 3, 5, 2**w - 1, 2**w + 1] + [int(x) * 2 + 1 for x in
                                                  rng.integers(1, 2**62, 20)]:
            d = _curve._signed_odd_digits(k, w)
            acc = 0
            for x in d:
                acc = (acc << w) + x
            assert acc == k and all(x % 2 for x in d) and d[0] > 0
            assert all(abs(x) < 2**w for x in d)


def test_random_secrets_are_in_range_and_differ():
    keys = {_curve.random_secret() for _ in range(20)}
    assert len(keys) == 20 and all(1 <= s < _curve.N for s in keys)
    assert DataOwner(pd.DataFrame({"x": [1, 2]}), k=2)._secret != DataOwner(
        pd.DataFrame({"x": [1, 2]}), k=2)._secret


# ============================================================================ messages


def _traced_run(a, b):
    seen = []
    run_local(a, b, observer=lambda who, m: seen.append((who, m)))
    return seen


def test_messages_carry_no_row_ids_and_no_qi_data_before_the_table():
    n = 24
    rng = np.random.default_rng(5)
    index = [f"patient-{i:05d}" for i in range(n)]
    ages = rng.integers(20, 70, n) + 0.125  # distinctive values
    da = pd.DataFrame({"age": ages, "town": [f"town-{i % 7}-secret" for i in range(n)]},
                      index=index)
    db = pd.DataFrame({"job": [f"job-{i % 5}-secret" for i in range(n)],
                       "salary": rng.integers(1000, 9000, n)}, index=index)
    sa, sb = _curve.random_secret(), _curve.random_secret()
    a = DataOwner(da, k=3, secret=sa, backend=FAST, seed=0)
    b = DataOwner(db, k=3, quasi_identifiers=["job"], sensitive=["salary"], secret=sb,
                  backend=FAST, seed=0)
    seen = _traced_run(a, b)
    allowed = {"hello": {"type", "version", "first", "rows", "k", "nonce", "key", "columns"},
               "single": {"type", "sizes", "proof"}, "double": {"type", "sizes", "proof"},
               "round": {"type", "round", "merge"}, "table": {"type", "round", "columns"}}
    salt = salt_of(seen)
    backend = _curve.get_backend(FAST)
    hashed = _curve.hash_ids(range(n), salt=salt)
    from ecpy.curves import Curve

    cv = Curve.get_curve("secp256k1")
    id_g = {bytes(cv.encode_point(i * cv.generator, compressed=True)) for i in range(1, n + 1)}
    raw_values = ([f"{v!r}" for v in ages] + [f"town-{i}-secret" for i in range(7)]
                  + [f"job-{i}-secret" for i in range(5)] + index)
    types = []
    for who, m in seen:
        header, payload = _wire.decode(m)
        types.append(header["type"])
        assert set(header) == allowed[header["type"]]
        if header["type"] in ("single", "double"):
            pts = points_of(payload)
            assert len(pts) == n and sum(header["sizes"]) == n
            assert not set(pts) & set(hashed) and not set(pts) & id_g  # never a plain id
        else:
            assert payload == b""
        text = m.decode("latin-1")
        assert "patient-" not in text  # the index (row ids) is never sent
        if header["type"] != "table":
            assert not any(v in text for v in raw_values), header["type"]
        if header["type"] == "round":
            assert all(0 <= x < max(a.stats["local_groups"], b.stats["local_groups"])
                       for x in header["merge"])
    assert types[:6] == ["hello", "hello", "single", "single", "double", "double"]
    assert types[-2:] == ["table", "table"]
    # the tables that cross are the aggregated, k-anonymous ones
    for who, m in seen:
        header, _ = _wire.decode(m)
        if header["type"] == "table":
            frame, roles = _wire.table_from_json(header["columns"], n)
            qi = [c for c, (role, _) in zip(frame.columns, roles) if role == "qi"]
            assert classes_min(frame, qi) >= 3
            owner = a if who == "first" else b
            assert frame.equals(owner._my_table.reset_index(drop=True))
    assert set(a.joined["town"]) <= {f"town-{i}-secret" for i in range(7)}


def test_singly_encrypted_ids_are_grouped_and_shuffled():
    """With the secret in hand (only a test has it), every point of the first owner's
    'single' message is a·H(id) for one of its rows: the groups are its local groups, but
    the order inside the message does not follow the row order."""
    n = 40
    da = pd.DataFrame({"x": np.arange(n) // 4})
    db = pd.DataFrame({"y": np.arange(n) % 4})
    sa = _curve.random_secret()
    a = DataOwner(da, k=4, secret=sa, backend=FAST, seed=0)
    b = DataOwner(db, k=4, backend=FAST, seed=0)
    seen = _traced_run(a, b)
    salt = salt_of(seen)
    backend = _curve.get_backend(FAST)
    enc = backend.multiply(_curve.hash_ids(range(n), salt=salt), sa)
    row_of = {p: i for i, p in enumerate(enc)}
    single = next(_wire.decode(m) for who, m in seen
                  if who == "first" and _wire.decode(m)[0]["type"] == "single")
    rows = [row_of[p] for p in points_of(single[1])]
    assert sorted(rows) == list(range(n))
    groups, start = [], 0
    for s in single[0]["sizes"]:
        groups.append(frozenset(rows[start:start + s]))
        start += s
    assert set(groups) == partition(a._labels0)
    assert rows != sorted(rows)
    # ...and doubly encrypted points come back per group, never as a·H(id) or b·H(id)
    doubles = [points_of(_wire.decode(m)[1]) for who, m in seen
               if _wire.decode(m)[0]["type"] == "double"]
    assert not (set(doubles[0]) | set(doubles[1])) & set(enc)
    assert set(doubles[0]) == set(doubles[1])  # both owners' rows: the same set of points


def test_messages_are_plain_bytes_and_malformed_ones_are_rejected():
    a = DataOwner(pd.DataFrame({"x": [1, 2, 3, 4]}), k=2, backend="ecpy")
    b = DataOwner(pd.DataFrame({"y": [1, 2, 3, 4]}), k=2, backend="ecpy")
    ha, hb = a.start(first=True), b.start(first=False)
    assert isinstance(ha, bytes) and ha[:4] == b"PDP1"
    for bad in (b"", b"XXXX\x00\x00\x00\x02{}", ha[:10], "text"):
        with pytest.raises(ProtocolError):
            _wire.decode(bad)
    sa = a.receive(hb)
    sb = b.receive(ha)
    header, payload = _wire.decode(sb)
    # a point that is not on the curve
    bad = bytearray(payload)
    bad[1:33] = (7).to_bytes(32, "big")  # x = 7: 7^3 + 7 = 350 is not a square mod p
    c = DataOwner(pd.DataFrame({"x": [1, 2, 3, 4]}), k=2, backend="ecpy")
    c.start(first=True)
    c.receive(hb)
    with pytest.raises(ProtocolError, match="not a point"):
        c.receive(_wire.encode(header, bytes(bad)))
    # wrong message for the state
    with pytest.raises(ProtocolError, match="expected a 'single'"):
        a.receive(ha)


def test_tampered_double_and_abort_are_detected():
    a = DataOwner(pd.DataFrame({"x": [1, 2, 3, 4]}), k=2, backend=FAST)
    b = DataOwner(pd.DataFrame({"y": [1, 2, 3, 4]}), k=2, backend=FAST)
    ma, mb = a.start(first=True), b.start(first=False)
    ma, mb = a.receive(mb), b.receive(ma)
    ma, mb = a.receive(mb), b.receive(ma)
    header, payload = _wire.decode(mb)  # b returns a's groups, doubly encrypted
    other = _curve.hash_ids([99], salt=b"z")[0]
    with pytest.raises(ProtocolError, match="differ"):
        a.receive(_wire.encode(header, other + payload[33:]))
    with pytest.raises(ProtocolError, match="aborted"):
        b.receive(b.abort_message("test"))


def test_receiver_verifies_the_joined_table():
    """A faulty other owner that sends its raw QIs instead of the aggregated table is caught:
    the joined table would not be k-anonymous."""
    da = pd.DataFrame({"x": [0, 0, 0, 0]})
    db = pd.DataFrame({"y": [1, 2, 3, 4]})
    a = DataOwner(da, k=2, backend=FAST)
    b = DataOwner(db, k=2, backend=FAST, seed=0)
    ma, mb = a.start(first=True), b.start(first=False)
    while True:
        if _wire.decode(mb)[0]["type"] == "table":
            header, _ = _wire.decode(mb)
            header["columns"][0]["values"] = [1, 2, 3, 4]
            with pytest.raises(VerificationError, match="joined table"):
                a.receive(_wire.encode(header))
            break
        ma, mb = a.receive(mb), b.receive(ma)


# ============================================================================ processes


def _child(port: int, data: dict, result) -> None:
    try:
        owner = DataOwner(pd.DataFrame(data), k=3, sensitive=["s"], backend=FAST, seed=1)
        sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        joined = run_party(owner, SocketChannel(sock), first=False)
        sock.close()
        result.send(("ok", joined.to_dict(orient="list"), owner.stats["rounds"]))
    except BaseException as exc:  # pragma: no cover - reported to the parent
        result.send(("error", repr(exc), None))


def test_two_processes_over_a_local_socket():
    rng = np.random.default_rng(2)
    n = 60
    da = pd.DataFrame({"age": rng.integers(20, 60, n), "sex": rng.choice(["F", "M"], n)})
    db = {"zip": rng.integers(100, 120, n).tolist(), "s": rng.choice(["a", "b"], n).tolist()}
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods()
                                      else "spawn")
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(60)
    port = server.getsockname()[1]
    recv_end, send_end = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(port, db, send_end))
    proc.start()
    try:
        conn, addr = server.accept()
        assert addr[0] == "127.0.0.1"
        conn.settimeout(60)
        a = DataOwner(da, k=3, backend=FAST, seed=1)
        joined = run_party(a, SocketChannel(conn), first=True)
        status, theirs, rounds = recv_end.recv()
    finally:
        proc.join(60)
        server.close()
    assert status == "ok", theirs
    assert proc.exitcode == 0
    assert pd.DataFrame(theirs).equals(joined.reset_index(drop=True))
    assert rounds == a.stats["rounds"]
    assert classes_min(joined, ["age", "sex", "zip"]) >= 3
    # the same result as the in-process driver (randomness only hides, never decides)
    ref = run_local(DataOwner(da, k=3, backend=FAST, seed=1),
                    DataOwner(pd.DataFrame(db), k=3, sensitive=["s"], backend=FAST, seed=1))
    assert ref.equals(joined)


def test_pipe_channel_and_abort_reach_the_other_owner():
    left, right = multiprocessing.Pipe()
    a = DataOwner(pd.DataFrame({"x": [1, 2, 3, 4]}), k=2, backend="ecpy")
    b = DataOwner(pd.DataFrame({"y": [1, 2, 3, 4, 5]}), k=2, backend="ecpy")
    errors = []

    def other():
        try:
            run_party(b, right, first=False)
        except Exception as exc:
            errors.append(exc)

    t = threading.Thread(target=other)
    t.start()
    with pytest.raises(InvalidInputError, match="different numbers of rows"):
        run_party(a, left, first=True)
    t.join(30)
    assert len(errors) == 1 and isinstance(errors[0], InvalidInputError)


@pytest.mark.slow
def test_large_messages_do_not_deadlock_over_a_pipe():
    n = 3000  # ~100 kB of points each way: more than a pipe buffer
    a = DataOwner(pd.DataFrame({"x": np.arange(n) % 50}), k=5, backend=FAST, seed=0)
    b = DataOwner(pd.DataFrame({"y": np.arange(n) % 60}), k=5, backend=FAST, seed=0)
    left, right = multiprocessing.Pipe()
    t = threading.Thread(target=run_party, args=(b, right), kwargs={"first": False})
    t.start()
    out = run_party(a, left, first=True)
    t.join(60)
    assert classes_min(out, ["x", "y"]) >= 5 and b.joined.equals(out)


# ============================================================================ docs


@pytest.mark.parametrize("module", [parties, _curve, _wire, _owner, _proofs])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


@pytest.mark.parametrize("seed", range(4))
def test_refinement_with_many_rounds_matches_the_reference(seed):
    rng = np.random.default_rng(seed)
    n, k = 48, 3
    da = pd.DataFrame({"r": rng.integers(0, 30, n), "o": rng.integers(0, 6, n)})
    db = pd.DataFrame({"s": rng.normal(size=n).round(2), "u": rng.choice(list("abcd"), n)})
    qa = {"r": "real", "o": "ordered"}
    qb = {"s": "real", "u": "unordered"}
    a = DataOwner(da, k=k, quasi_identifiers=qa, backend=FAST, seed=seed)
    b = DataOwner(db, k=k, quasi_identifiers=qb, backend=FAST, seed=seed)
    out = run_local(a, b)
    pa, pb, rounds = reference_refine(
        [da["r"].tolist(), da["o"].tolist()], ["real", "ordered"], a._labels0.tolist(),
        [db["s"].tolist(), db["u"].tolist()], ["real", "unordered"], b._labels0.tolist(), k)
    assert rounds >= 2
    assert (partition(a.final_labels), partition(b.final_labels)) == (pa, pb)
    assert a.stats["rounds"] == rounds
    # ids are encrypted once (own ids, then the other's) and reused in every round
    assert a.stats["scalar_multiplications"] == b.stats["scalar_multiplications"] == 2 * n
    assert classes_min(out, ["r", "o", "s", "u"]) >= k


def test_missing_values_are_data_at_both_owners():
    a = pd.DataFrame({"zip": ["a", "a", None, "b", "b", None, "a", "b"],
                      "age": [30, 31, None, 40, 41, 45, np.nan, 33]})
    b = pd.DataFrame({"plan": ["x", None, "x", "y", "y", None, "x", "y"],
                      "claims": [1.0, 2, 3, np.nan, 5, 6, 7, 8],
                      "dis": ["f", None, "c", "f", "c", "f", "c", "c"]})
    first = DataOwner(a, k=2, quasi_identifiers={"zip": "unordered", "age": "real"}, seed=0)
    second = DataOwner(b, k=2, quasi_identifiers={"plan": "unordered", "claims": "real"},
                       sensitive=["dis"], seed=0)
    joined = run_local(first, second)
    qi = ["zip", "age", "plan", "claims"]
    sizes = joined.groupby(qi, dropna=False).size()
    assert sizes.min() >= 2
    for frame in (a, b):
        for c in frame.columns.intersection(qi):
            # a missing cell is never published as a value (its group publishes missing)
            assert joined.loc[frame[c].isna(), c].isna().all()
    assert joined["dis"].isna().tolist() == b["dis"].isna().tolist()
