"""Tests of pdanon.perturb and the df.anon perturbation methods (shuffle, randomize,
hash_identifiers, drop_identifiers)."""

from __future__ import annotations

import bisect
import copy
import hashlib
import hmac
import json
import pickle
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon  # noqa: F401  (registers df.anon)
from pdanon import perturb as P
from pdanon.algorithms import _perturbation as P_ALGOS
from pdanon._errors import InvalidInputError, KindError, UnknownColumnError

KEY = b"0123456789abcdef0123456789abcdef"


def multiset(series) -> Counter:
    """Multiset of a column's cells, all missing values counted as one value."""
    return Counter("<NA>" if pd.isna(v) else v for v in series.tolist())


@pytest.fixture
def people():
    return pd.DataFrame(
        {
            "name": ["Ann", "Bob", "Cid", "Dan", "Eve", "Fay"],
            "zip": ["100", "100", "200", "200", "200", None],
            "age": [30, 30, 41, 41, 41, 55],
            "disease": ["flu", "gout", "flu", "hiv", "cold", "flu"],
            "note": list("abcdef"),
        },
        index=["r1", "r2", "r3", "r4", "r5", "r6"],
    )


ROLES = dict(identifiers=["name"], quasi_identifiers=["zip", "age"], sensitive=["disease"],
             insensitive=["note"])


# =========================================================================== randomness


def test_make_rng_seeded_is_reproducible_and_unseeded_is_not():
    assert P.make_rng(5).random(4).tolist() == P.make_rng(5).random(4).tolist()
    assert P.make_rng(None).random(4).tolist() != P.make_rng(None).random(4).tolist()
    g = np.random.default_rng(1)
    assert P.make_rng(g) is g


@pytest.mark.parametrize("bad", [-1, 1.5, "7", True])
def test_make_rng_rejects_bad_seeds(bad):
    with pytest.raises(InvalidInputError, match="seed"):
        P.make_rng(bad)


# =========================================================================== shuffling


def test_permutation_within_hand_checked_groups():
    labels = np.array([0, 1, 0, 1, 0, 2])
    perm = P.permutation_within(labels, P.make_rng(3))
    assert sorted(perm.tolist()) == list(range(6))
    assert (labels[perm] == labels).all()
    assert perm[5] == 5  # a singleton group cannot move


def test_permutation_within_is_uniform():
    labels = np.zeros(3, dtype=int)
    rng = P.make_rng(11)
    counts = Counter(tuple(P.permutation_within(labels, rng)) for _ in range(6000))
    assert len(counts) == 6
    assert all(850 < c < 1150 for c in counts.values())  # expected 1000 each


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=0, max_size=60), st.integers(0, 2**32 - 1))
def test_permutation_within_property(labels, seed):
    labels = np.array(labels, dtype=np.int64)
    perm = P.permutation_within(labels, P.make_rng(seed))
    assert sorted(perm.tolist()) == list(range(len(labels)))
    assert (labels[perm] == labels).all()


def test_shuffle_frame_permutes_each_column_independently_and_keeps_dtypes():
    n = 200
    df = pd.DataFrame({
        "a": np.arange(n),
        "b": np.arange(n),
        "cat": pd.Categorical(np.array(["x", "y", "z", "w"])[np.arange(n) % 4],
                              categories=["w", "x", "y", "z"], ordered=True),
        "nullable": pd.array([None if i % 7 == 0 else i for i in range(n)], dtype="Int64"),
        "when": pd.date_range("2020-01-01", periods=n, freq="D"),
        "s": [f"v{i}" for i in range(n)],
    }, index=pd.RangeIndex(1000, 1000 + n))
    before = df.copy(deep=True)
    out = P.shuffle_frame(df, list(df.columns), rng=P.make_rng(0))
    pd.testing.assert_frame_equal(df, before)  # input untouched
    assert out.dtypes.equals(df.dtypes)
    assert out.index.equals(df.index)
    for c in df.columns:
        assert multiset(out[c]) == multiset(df[c])
        assert not out[c].equals(df[c])
    # independent permutations: a and b held the same values, now they disagree
    assert (out["a"] != out["b"]).mean() > 0.9


def test_shuffle_frame_groups_and_errors():
    df = pd.DataFrame({"g": [0, 0, 1, 1, 1], "v": [1, 2, 3, 4, 5]})
    out = P.shuffle_frame(df, ["v"], groups=df["g"].to_numpy(), rng=P.make_rng(2))
    assert sorted(out["v"][:2]) == [1, 2] and sorted(out["v"][2:]) == [3, 4, 5]
    with pytest.raises(UnknownColumnError, match="nope"):
        P.shuffle_frame(df, ["nope"], rng=P.make_rng(0))
    with pytest.raises(InvalidInputError, match="one label per row"):
        P.shuffle_frame(df, ["v"], groups=np.array([0, 1]), rng=P.make_rng(0))


def test_accessor_shuffle_defaults(people):
    out = people.anon.shuffle(seed=1, **ROLES, row_order="input")
    assert list(out.columns) == ["zip", "age", "disease", "note"]  # identifier dropped
    assert out.index.equals(people.index)
    info = out.anon.info
    assert info["operation"] == "shuffle"
    assert info["columns"] == ["zip", "age", "disease"]
    assert info["within"] is None and info["random_source"] == "seed given"
    assert "seed" not in info
    assert info["identifiers_dropped"] == ["name"]
    assert out["note"].equals(people["note"])  # insensitive untouched
    for c in ["zip", "age", "disease"]:
        assert multiset(out[c]) == multiset(people[c])
    assert out.anon.roles().identifiers == ()
    assert out.anon.roles().sensitive == {"disease": "unordered"}
    # same seed, same result; the input is not modified
    pd.testing.assert_frame_equal(out, people.anon.shuffle(seed=1, **ROLES, row_order="input"))


def test_accessor_shuffle_unseeded_uses_fresh_randomness():
    df = pd.DataFrame({"x": np.arange(1000)})
    a = df.anon.shuffle(quasi_identifiers=["x"])  # unique integers: named, not guessed an ID
    b = df.anon.shuffle(quasi_identifiers=["x"])
    assert not a["x"].equals(b["x"])
    assert "seed" not in a.anon.info and a.anon.info["random_source"] == "secrets"


def test_accessor_shuffle_identifiers(people):
    with pytest.raises(InvalidInputError, match="keep_identifiers"):
        people.anon.shuffle(["name"], **ROLES, row_order="input")
    out = people.anon.shuffle(["name"], keep_identifiers=True, seed=0, **ROLES, row_order="input")
    assert multiset(out["name"]) == multiset(people["name"])
    assert out.anon.roles().identifiers == ("name",)
    kept = people.anon.shuffle(seed=0, keep_identifiers=True, **ROLES, row_order="input")
    assert kept["name"].equals(people["name"])  # kept, not shuffled unless listed


def test_accessor_shuffle_within_equivalence_classes(people):
    df = people.assign(row=np.arange(len(people)))
    out = df.anon.shuffle(["disease", "row"], within="equivalence_classes", seed=4, **ROLES, row_order="input")
    classes = df.anon.equivalence_classes(**ROLES).to_numpy()
    src = out["row"].to_numpy()
    assert (classes[src] == classes).all()  # every value came from the same class
    for c in np.unique(classes):
        m = classes == c
        assert multiset(out["disease"][m]) == multiset(df["disease"][m])
    assert out.anon.info["within"] == "equivalence_classes"
    assert out.anon.info["groups"] == 3
    # default columns inside classes: the sensitive ones
    assert people.anon.shuffle(within="equivalence_classes", seed=0,
                               **ROLES, row_order="input").anon.info["columns"] == ["disease"]
    # the QI values never change
    assert out[["zip", "age"]].equals(people[["zip", "age"]])


def test_accessor_shuffle_within_named_columns(people):
    out = people.anon.shuffle(["disease"], within="zip", seed=0, **ROLES, row_order="input")
    assert out.anon.info["within"] == ["zip"]
    for z in ["100", "200"]:
        m = people["zip"] == z
        assert multiset(out.loc[m, "disease"]) == multiset(people.loc[m, "disease"])
    assert out.loc["r6", "disease"] == "flu"  # its own group (NaN zip)
    with pytest.raises(UnknownColumnError, match="nope"):
        people.anon.shuffle(within=["nope"], **ROLES, row_order="input")
    with pytest.raises(InvalidInputError, match="quasi-identifier"):
        people.anon.shuffle(["note"], within="equivalence_classes", identifiers=["name"],
                            quasi_identifiers=[], sensitive=["disease"],
                            insensitive=["zip", "age", "note"], row_order="input")


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["a", "b", None]), st.integers(0, 2), st.integers(0, 9)),
             min_size=1, max_size=40),
    st.integers(0, 2**32 - 1),
)
def test_shuffle_within_classes_property(rows, seed):
    df = pd.DataFrame(rows, columns=["q1", "q2", "s"])
    df["row"] = np.arange(len(df))
    out = df.anon.shuffle(["s", "row"], within="equivalence_classes", seed=seed,
                          quasi_identifiers=["q1", "q2"], sensitive=["s"], insensitive=["row"], row_order="input")
    # straightforward reference: the class key of each row as a tuple (None == None)
    keys = [(a, b) for a, b in zip(df["q1"].tolist(), df["q2"].tolist())]
    keys = [("<NA>" if pd.isna(a) else a, b) for a, b in keys]
    src = out["row"].tolist()
    assert sorted(src) == list(range(len(df)))
    assert all(keys[j] == keys[i] for i, j in enumerate(src))
    for key in set(keys):
        idx = [i for i, k in enumerate(keys) if k == key]
        assert Counter(out["s"].iloc[idx]) == Counter(df["s"].iloc[idx])
    assert out[["q1", "q2"]].equals(df[["q1", "q2"]])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-5, 5)), min_size=0, max_size=50),
       st.integers(0, 2**32 - 1))
def test_shuffle_whole_column_property(values, seed):
    df = pd.DataFrame({"v": pd.array(values, dtype="Int64")})
    out = df.anon.shuffle(seed=seed) if len(df) else df.anon.shuffle(["v"], seed=seed)
    assert multiset(out["v"]) == multiset(df["v"])
    assert out["v"].dtype == df["v"].dtype


# =========================================================================== randomization


def ref_ordered(values, z, scale):
    """The reference's ordered randomization, cell by cell (values: plain, no NaN)."""
    s = sorted(values)
    n = len(s)
    out = []
    for x, zi in zip(values, z):
        pos = bisect.bisect_left(s, x)
        new = min(max(pos + int(zi * n * scale), 0), n - 1)
        out.append(s[new])
    return out


def ref_real(values, rng, scale, histogram="uniform"):
    """The reference's real randomization, cell by cell, drawing from ``rng`` in pdanon's
    documented order: row indices for the histogram bins, in-bin offsets, normal shifts."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    _, edges = np.histogram(x, bins=30)
    bin_of = []
    for v in x:
        b = bisect.bisect_right(edges.tolist(), v) - 1
        bin_of.append(min(b, 29))
    picks = rng.integers(0, n, n)
    bins = [bin_of[i] for i in picks]
    samples = [edges[b] for b in bins]
    if histogram == "uniform":
        u = rng.random(n)
        samples = [s + ui * (edges[b + 1] - edges[b]) for s, ui, b in zip(samples, u, bins)]
    samples = sorted(samples)
    z = rng.standard_normal(n)
    out = []
    for v, zi in zip(x, z):
        new = bisect.bisect_left(samples, v) + zi * n * scale
        if new < 0:
            out.append(samples[0])
        elif new >= n:
            out.append(samples[-1])
        else:
            i = int(new)
            if i == n - 1:
                out.append(samples[i])
            else:
                out.append(samples[i] + (new - i) * (samples[i + 1] - samples[i]))
    return np.array(out)


@pytest.mark.parametrize("scale", [0.0, 0.1, 1.0])
def test_randomize_ordered_matches_reference(scale):
    values = [5, 1, 3, 3, 9, 7, 1, 2, 8, 4]
    s = pd.Series(values)
    out, how = P.randomize_series(s, "ordered", rng=P.make_rng(42), scale=scale)
    z = P.make_rng(42).standard_normal(len(values))
    assert out.tolist() == ref_ordered(values, z, scale)
    assert how == "default-ordered"
    if scale == 0:
        assert out.tolist() == values


def test_randomize_ordered_categorical_keeps_categories_and_order():
    cats = ["low", "mid", "high"]
    s = pd.Series(pd.Categorical(["high", "low", "mid", "mid", "high", None],
                                 categories=cats, ordered=True))
    out, _ = P.randomize_series(s, "ordered", rng=P.make_rng(1), scale=0.3)
    assert out.dtype == s.dtype
    assert pd.isna(out[5])
    codes = s.cat.codes.to_numpy()[:5].tolist()
    z = P.make_rng(1).standard_normal(5)
    assert out.cat.codes.to_numpy()[:5].tolist() == ref_ordered(codes, z, 0.3)


@pytest.mark.parametrize("histogram", ["uniform", "edges"])
def test_randomize_real_matches_reference(histogram):
    values = [3.5, 10.0, 7.25, 1.0, 2.0, 8.0, 8.0, 4.0, 6.5, 9.0, 5.0, 2.5]
    out, _ = P.randomize_series(pd.Series(values), "real", rng=P.make_rng(9), scale=0.2,
                                histogram=histogram)
    expected = ref_real(values, P.make_rng(9), 0.2, histogram)
    np.testing.assert_allclose(out.to_numpy(), expected, rtol=0, atol=1e-12)


def test_randomize_real_edges_gives_bin_edges_or_interpolations():
    values = np.arange(100, dtype=float)
    out, _ = P.randomize_series(pd.Series(values), "real", rng=P.make_rng(0), scale=0.0,
                                histogram="edges")
    edges = np.histogram(values, bins=30)[1][:-1]
    # scale 0: exactly a sampled left edge
    assert np.isin(out.to_numpy(), edges).all()


def test_randomize_unordered_matches_reference():
    values = ["a", "b", "c", "a", "d", "b", "e"]
    out, _ = P.randomize_series(pd.Series(values), "unordered", rng=P.make_rng(7))
    rng = P.make_rng(7)
    coin = rng.random(7)
    donors = rng.integers(0, 7, 7)
    expected = [values[d] if c < 0.5 else v for v, c, d in zip(values, coin, donors)]
    assert out.tolist() == expected


def test_randomize_uniform_noise_hand_checked():
    s = pd.Series([1, 2, 3, 4, 5], name="x")
    assert P.randomize_series(s, "real", rng=P.make_rng(0), low=1, high=1)[0].tolist() == \
        [2, 3, 4, 5, 5]  # clipped to the max
    out, how = P.randomize_series(s, "real", rng=P.make_rng(0), low=1, high=1, clip=False)
    assert out.tolist() == [2, 3, 4, 5, 6] and out.dtype == np.int64 and how == "uniform[1, 1]"
    f = pd.Series([0.0, 1.0, np.nan, 2.0])
    u = P.make_rng(3).uniform(-0.5, 0.5, 3)
    out, _ = P.randomize_series(f, "real", rng=P.make_rng(3), low=-0.5, high=0.5, clip=False)
    np.testing.assert_allclose(out.to_numpy()[[0, 1, 3]], [0.0, 1.0, 2.0] + u)
    assert np.isnan(out[2])


def test_randomize_noise_functions_vectorized_and_scalar():
    s = pd.Series([10.0, 20.0, 30.0])
    seen = []

    def vec(x):
        seen.append(type(x))
        return np.full(len(x), 1.0)

    out, how = P.randomize_series(s, "real", rng=P.make_rng(0), noise=vec)
    assert out.tolist() == [11.0, 21.0, 30.0] and seen == [np.ndarray]
    assert how == "function (add)"
    calls = []

    def scalar(x):  # returns one number whatever it gets: applied per value
        calls.append(x)
        return -1.0

    out, _ = P.randomize_series(s, "real", rng=P.make_rng(0), noise=scalar, clip=False)
    assert out.tolist() == [9.0, 19.0, 29.0]
    assert calls[1:] == [10.0, 20.0, 30.0]
    out, _ = P.randomize_series(s, "real", rng=P.make_rng(0), noise=lambda x: x / 10,
                                noise_mode="replace", clip=False)
    assert out.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(InvalidInputError, match="noise function"):
        P.randomize_series(s, "real", rng=P.make_rng(0), noise=lambda x: "oops")


def test_randomize_constant_and_empty_and_missing():
    s = pd.Series([4.0, 4.0, np.nan])
    out, _ = P.randomize_series(s, "real", rng=P.make_rng(0))
    assert out.equals(s)
    empty = pd.Series([np.nan, np.nan])
    for kind in ("real", "ordered", "unordered"):
        assert P.randomize_series(empty, kind, rng=P.make_rng(0))[0].equals(empty)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.integers(-1000, 1000)), min_size=1, max_size=60),
    st.sampled_from(["real", "ordered", "unordered"]),
    st.floats(0, 3),
    st.integers(0, 2**32 - 1),
)
def test_randomize_stays_in_range_and_kind(values, kind, scale, seed):
    s = pd.Series(pd.array(values, dtype="Int64"))
    out, _ = P.randomize_series(s, kind, rng=P.make_rng(seed), scale=scale)
    assert out.dtype == s.dtype
    assert (out.isna() == s.isna()).all()
    present = s.dropna()
    got = out.dropna()
    if len(present):
        assert got.min() >= present.min() and got.max() <= present.max()
    if kind != "real":
        assert set(got) <= set(present)
    again, _ = P.randomize_series(s, kind, rng=P.make_rng(seed), scale=scale)
    assert again.equals(out)  # seeded: reproducible


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=80), st.integers(0, 2**32 - 1),
       st.sampled_from(["uniform", "edges"]))
def test_randomize_real_floats_in_range(values, seed, histogram):
    s = pd.Series(values)
    out, _ = P.randomize_series(s, "real", rng=P.make_rng(seed), histogram=histogram)
    assert out.dtype == np.float64
    assert out.min() >= s.min() and out.max() <= s.max()


@pytest.mark.parametrize("values", [[0.0, 5e-324], [1.0, np.nextafter(1.0, 2.0)],
                                    [0.0, 5e-324, 1e-323, 5e-324]])
def test_randomize_real_span_of_a_few_ulps(values):
    """A span narrower than 30 representable bins (hypothesis found [0, 5e-324]): fewer bins,
    values stay in range."""
    s = pd.Series(values)
    for histogram in ("uniform", "edges"):
        out, _ = P.randomize_series(s, "real", rng=P.make_rng(1), histogram=histogram)
        assert out.min() >= s.min() and out.max() <= s.max()


def test_randomize_frame_options_and_errors():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [10, 20, 30], "c": ["x", "y", "z"]})
    out, how = P.randomize_frame(df, {"a": "real", "b": "real", "c": "unordered"},
                                 rng=P.make_rng(0), low={"a": 0.5}, high={"a": 0.5},
                                 clip=False)
    assert out["a"].tolist() == [1.5, 2.5, 3.5]
    assert how == {"a": "uniform[0.5, 0.5]", "b": "default-real", "c": "default-unordered"}
    # a single low/high applies to real columns only; others get the default
    out, how = P.randomize_frame(df, {"a": "real", "c": "unordered"}, rng=P.make_rng(0),
                                 low=0, high=0)
    assert how["c"] == "default-unordered" and out["a"].equals(df["a"])
    with pytest.raises(KindError, match="'c'"):
        P.randomize_frame(df, {"c": "unordered"}, rng=P.make_rng(0), noise={"c": np.sin})
    with pytest.raises(InvalidInputError, match="not being randomized"):
        P.randomize_frame(df, {"a": "real"}, rng=P.make_rng(0), low={"b": 0}, high={"b": 1})
    with pytest.raises(InvalidInputError, match="scale"):
        P.randomize_frame(df, {"a": "real"}, rng=P.make_rng(0), scale=-1)
    with pytest.raises(InvalidInputError, match="low and high"):
        P.randomize_series(df["a"], "real", rng=P.make_rng(0), low=1)
    with pytest.raises(InvalidInputError, match="low <= high"):
        P.randomize_series(df["a"], "real", rng=P.make_rng(0), low=2, high=1)
    with pytest.raises(KindError, match="'c'"):
        P.randomize_series(df["c"], "real", rng=P.make_rng(0))


def test_accessor_randomize(people):
    before = people.copy(deep=True)
    out = people.anon.randomize(seed=3, scale=0.5, **ROLES, row_order="input")
    pd.testing.assert_frame_equal(people, before)
    assert list(out.columns) == ["zip", "age", "disease", "note"]
    assert out.index.equals(people.index)
    assert out["age"].dtype == people["age"].dtype
    assert out["age"].between(30, 55).all()
    assert set(out["zip"].dropna()) <= {"100", "200"} and pd.isna(out.loc["r6", "zip"])
    assert out["disease"].equals(people["disease"])  # sensitive untouched by default
    info = out.anon.info
    assert info["operation"] == "randomize" and info["random_source"] == "seed given"
    assert "seed" not in info and 3 not in info.values()
    assert info["columns"] == {"zip": {"kind": "unordered", "method": "default-unordered"},
                               "age": {"kind": "real", "method": "default-real"}}
    expected_changed = int((out["age"] != people["age"]).sum()
                           + (out["zip"].fillna("-") != people["zip"].fillna("-")).sum())
    assert info["cells_changed"] == expected_changed
    pd.testing.assert_frame_equal(out, people.anon.randomize(seed=3, scale=0.5, **ROLES, row_order="input"))
    with pytest.raises(InvalidInputError, match="identifiers"):
        people.anon.randomize(["name"], **ROLES, row_order="input")
    kept = people.anon.randomize(seed=0, keep_identifiers=True, **ROLES, row_order="input")
    assert kept["name"].equals(people["name"])
    # a sensitive column can be named; an insensitive one gets its inferred kind
    out = people.anon.randomize(["disease", "note"], seed=0, **ROLES, row_order="input")
    assert out.anon.info["columns"]["note"]["kind"] == "unordered"
    assert out["age"].equals(people["age"])


def test_accessor_randomize_noise_per_column():
    df = pd.DataFrame({"age": [20, 30, 40, 50], "income": [1.0, 2.0, 3.0, 4.0]})
    out = df.anon.randomize(noise={"income": lambda x: np.full(len(x), 0.5)}, low={"age": 0},
                            high={"age": 0}, clip=False, seed=0,
                            quasi_identifiers=["age", "income"], row_order="input")  # income sounds sensitive
    assert out["income"].tolist() == [1.5, 2.5, 3.5, 4.5]
    assert out["age"].tolist() == [20, 30, 40, 50]


# =========================================================================== hashing


def test_hmac_pseudonyms_rfc4231_vector_and_missing():
    # RFC 4231 test case 2 (key "Jefe")
    with pytest.warns(UserWarning, match="only 4 bytes"):
        key, _ = P.resolve_key(b"Jefe")
    assert key == b"Jefe"
    s = pd.Series(["what do ya want for nothing?", None, np.nan], index=[5, 6, 7], name="q")
    out = P.hmac_pseudonyms(s, key)
    assert out[5] == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    assert out[6:].isna().all() and out.name == "q" and list(out.index) == [5, 6, 7]
    # long keys are hashed first, as HMAC specifies
    long_key = bytes(range(100))
    assert P.hmac_pseudonyms(pd.Series(["x"]), long_key)[0] == \
        hmac.new(long_key, b"x", hashlib.sha256).hexdigest()


def test_canonical_text():
    assert P.canonical_text(42) == P.canonical_text(42.0) == P.canonical_text("42") == "42"
    assert P.canonical_text(np.int64(7)) == "7"
    assert P.canonical_text(0.1) == "0.1" and P.canonical_text(np.float64(2.5)) == "2.5"
    assert P.canonical_text(True) == "True"
    assert P.canonical_text(pd.Timestamp("2024-05-01")) == "2024-05-01T00:00:00"
    assert P.canonical_text(b"ab") == "ab"
    ints = P.hmac_pseudonyms(pd.Series([42, 7]), KEY)
    mixed = P.hmac_pseudonyms(pd.Series([42.0, np.nan, "7"], dtype=object), KEY)
    assert ints[0] == mixed[0] and ints[1] == mixed[2]
    assert ints[0] == hmac.new(KEY, b"42", hashlib.sha256).hexdigest()


def test_hash_identifiers_stable_per_key_and_joinable(people):
    out1 = people.anon.hash_identifiers(key=KEY, **ROLES, row_order="input")
    out2 = people.iloc[::-1].anon.hash_identifiers(key=KEY, **ROLES, row_order="input")
    assert out1["name"].iloc[0] == hmac.new(KEY, b"Ann", hashlib.sha256).hexdigest()
    assert out1["name"].str.len().eq(64).all() and out1["name"].nunique() == 6
    # another frame, another call: same pseudonyms, so joins still work
    visits = pd.DataFrame({"name": ["Eve", "Ann", "Eve"], "visit": [1, 2, 3]})
    v = visits.anon.hash_identifiers(key=KEY, identifiers=["name"], row_order="input")
    joined = v.merge(out2[["name", "disease"]], on="name")
    plain = visits.merge(people[["name", "disease"]], on="name")
    assert joined["disease"].tolist() == plain["disease"].tolist()
    assert out1["name"].equals(out2["name"].iloc[::-1])
    # other columns untouched, role kept, no key echoed
    assert out1.drop(columns="name").equals(people.drop(columns="name"))
    assert out1.anon.roles().identifiers == ("name",)
    assert "key" not in out1.anon.info and out1.anon.info["key_generated"] is False
    assert out1.anon.info["key_source"] == "given" and out1.anon.info["context"] is None


def test_hash_identifiers_differs_across_keys_and_keeps_nan():
    df = pd.DataFrame({"id": ["a", None, "b"], "x": [1, 2, 3]})
    a = df.anon.hash_identifiers(key=KEY, identifiers=["id"], row_order="input")
    b = df.anon.hash_identifiers(key=KEY[::-1], identifiers=["id"], row_order="input")
    assert (a["id"].dropna() != b["id"].dropna()).all()
    assert a["id"].isna().tolist() == [False, True, False]


def test_hash_identifiers_generated_key_is_returned_but_never_leaks(people, tmp_path):
    out = people.anon.hash_identifiers(**ROLES, row_order="input")
    key = out.anon.info["key"]
    assert isinstance(key, P.SecretKey) and key.nbytes == 32 and out.anon.info["key_generated"]
    raw = bytes(key)
    # reusing the key reproduces the pseudonyms; a second generated key does not
    again = people.anon.hash_identifiers(key=key, **ROLES, row_order="input")
    assert again["name"].equals(out["name"])
    assert people.anon.hash_identifiers(key=raw, **ROLES, row_order="input")["name"].equals(out["name"])
    other = people.anon.hash_identifiers(**ROLES, row_order="input")
    assert not other["name"].equals(out["name"])
    # not in any printed form
    for text in (repr(out), str(out.anon.info), repr(key), str(key), json.dumps(out.attrs)):
        assert raw.hex() not in text and repr(raw) not in text
    # not in a Parquet file (pandas stores attrs there) nor in a pickle
    path = tmp_path / "release.parquet"
    out.to_parquet(path)
    blob = path.read_bytes()
    assert raw not in blob and raw.hex().encode() not in blob
    assert pd.read_parquet(path)["name"].equals(out["name"])
    restored = pickle.loads(pickle.dumps(out))
    assert raw not in pickle.dumps(out)
    with pytest.raises(InvalidInputError, match="withheld"):
        bytes(restored.attrs["pdanon"]["info"]["key"])
    # copies inside the process keep it
    assert bytes(copy.deepcopy(key)) == raw and copy.deepcopy(key) == key
    with pytest.raises(TypeError):
        key["x"] = 1


def test_hash_identifiers_columns_and_errors(people):
    out = people.anon.hash_identifiers(["name", "note"], key=KEY, **ROLES, row_order="input")
    assert out.anon.roles().identifiers == ("name", "note")
    assert out["note"].iloc[0] == hmac.new(KEY, b"a", hashlib.sha256).hexdigest()
    with pytest.raises(InvalidInputError, match="identifiers="):
        pd.DataFrame({"a": [1]}).anon.hash_identifiers(row_order="input")
    with pytest.raises(UnknownColumnError, match="nope"):
        people.anon.hash_identifiers(["nope"], key=KEY, **ROLES, row_order="input")
    with pytest.raises(InvalidInputError, match="empty"):
        people.anon.hash_identifiers(key=b"", **ROLES, row_order="input")
    with pytest.raises(InvalidInputError, match="bytes, str"):
        people.anon.hash_identifiers(key=12345, **ROLES, row_order="input")
    with pytest.warns(UserWarning, match="only 3 bytes"):
        people.anon.hash_identifiers(key=b"abc", **ROLES, row_order="input")
    with pytest.raises(InvalidInputError, match="columns"):
        people.anon.hash_identifiers(["name", "name"], key=KEY, **ROLES, row_order="input")


# --------------------------------------------------------------------------- str keys (passphrases)


def test_str_key_is_derived_with_scrypt_and_documented_parameters(people):
    phrase = "correct horse battery staple"
    expected_key = hashlib.scrypt(phrase.encode(), salt=b"pdanon.perturb.resolve_key passphrase v1",
                                  n=2**15, r=8, p=1, dklen=32, maxmem=64 * 1024 * 1024)
    assert P.resolve_key(phrase) == (expected_key, False)
    out = people.anon.hash_identifiers(key=phrase, **ROLES, row_order="input")
    assert out["name"].iloc[0] == hmac.new(expected_key, b"Ann", hashlib.sha256).hexdigest()
    # not the raw UTF-8 bytes any more
    assert out["name"].iloc[0] != hmac.new(phrase.encode(), b"Ann", hashlib.sha256).hexdigest()
    # deterministic: the same passphrase in another release gives the same pseudonyms
    again = people.iloc[::-1].anon.hash_identifiers(key=phrase, **ROLES, row_order="input")
    assert again["name"].iloc[::-1].equals(out["name"])
    # nothing derived from the passphrase is recorded
    info = out.anon.info
    assert "key_fingerprint" not in info and "key" not in info
    assert info["key_source"] == "given"
    assert expected_key.hex()[:16] not in json.dumps(out.attrs, default=str)


@pytest.mark.parametrize("short", ["", "Jefe", "abc", "x" * 11])
def test_short_passphrases_are_refused(people, short):
    with pytest.raises(InvalidInputError, match=r"secrets\.token_bytes\(32\)") as err:
        people.anon.hash_identifiers(key=short, **ROLES)
    assert "at least 12" in str(err.value) and f"of {len(short)} character" in str(err.value)
    P.resolve_key("x" * 12)  # the minimum is accepted


def test_low_level_functions_refuse_str_keys():
    with pytest.raises(InvalidInputError, match="resolve_key"):
        P.hmac_pseudonyms(pd.Series(["a"]), "a long passphrase here")
    with pytest.raises(InvalidInputError, match="resolve_key"):
        P.key_fingerprint("a long passphrase here")


# --------------------------------------------------------------------------- key fingerprint


def test_fingerprint_only_for_generated_keys(people, tmp_path):
    gen = people.anon.hash_identifiers(**ROLES)
    info = gen.anon.info
    raw = bytes(info["key"])
    assert info["key_source"] == "generated" and info["key_generated"] is True
    assert info["key_fingerprint"] == hmac.new(raw, b"pdanon key fingerprint",
                                               hashlib.sha256).hexdigest()[:16]
    # a given key -- bytes, SecretKey (even one pdanon generated) or passphrase -- leaves none
    for key in (KEY, info["key"], "a long enough passphrase"):
        out = people.anon.hash_identifiers(key=key, **ROLES)
        assert out.anon.info["key_source"] == "given"
        assert "key_fingerprint" not in out.anon.info and "key" not in out.anon.info
        path = tmp_path / "given.parquet"
        out.to_parquet(path)
        blob = path.read_bytes()
        assert P.key_fingerprint(KEY).encode() not in blob
        assert P.key_fingerprint(raw).encode() not in blob
    # the public function still works for whoever wants to compare keys privately
    assert P.key_fingerprint(KEY) == hmac.new(KEY, b"pdanon key fingerprint",
                                              hashlib.sha256).hexdigest()[:16]


# --------------------------------------------------------------------------- domain separation


def test_context_none_keeps_plain_hmac_and_links_columns():
    df = pd.DataFrame({"patient_phone": ["+79001", "+79002"],
                       "emergency_phone": ["+79002", "+79001"]})
    out = df.anon.hash_identifiers(key=KEY, identifiers=["patient_phone", "emergency_phone"], row_order="input")
    assert out["patient_phone"].tolist() == [hmac.new(KEY, b"+79001", hashlib.sha256).hexdigest(),
                                             hmac.new(KEY, b"+79002", hashlib.sha256).hexdigest()]
    assert out["patient_phone"].tolist() == out["emergency_phone"].iloc[::-1].tolist()


def test_context_column_separates_columns_with_exact_digest():
    df = pd.DataFrame({"patient_phone": ["+79001", "+79002"],
                       "emergency_phone": ["+79001", None]})
    cols = ["patient_phone", "emergency_phone"]
    out = df.anon.hash_identifiers(key=KEY, context="column", identifiers=cols, row_order="input")
    assert out["patient_phone"][0] != out["emergency_phone"][0]
    # computed independently: 4-byte big-endian length of the context, the context, the value
    msg = (13).to_bytes(4, "big") + b"patient_phone" + b"+79001"
    assert out["patient_phone"][0] == hmac.new(KEY, msg, hashlib.sha256).hexdigest()
    # ...and the same by the HMAC definition with plain SHA-256 (a 32-byte key padded to 64)
    k64 = KEY.ljust(64, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in k64) + msg).digest()
    assert out["patient_phone"][0] == hashlib.sha256(bytes(b ^ 0x5C for b in k64)
                                                     + inner).hexdigest()
    msg2 = (15).to_bytes(4, "big") + b"emergency_phone" + b"+79001"
    assert out["emergency_phone"][0] == hmac.new(KEY, msg2, hashlib.sha256).hexdigest()
    assert pd.isna(out["emergency_phone"][1])
    assert out.anon.info["context"] == {"patient_phone": "patient_phone",
                                        "emergency_phone": "emergency_phone"}
    # the input is not modified
    assert df["patient_phone"].tolist() == ["+79001", "+79002"]


def test_context_same_key_and_context_across_releases():
    jan = pd.DataFrame({"phone": ["+1", "+2", "+3"], "x": [1, 2, 3]})
    feb = pd.DataFrame({"phone": ["+3", "+9", "+1"], "x": [4, 5, 6]})
    a = jan.anon.hash_identifiers(key=KEY, context="column", identifiers=["phone"], row_order="input")
    b = feb.anon.hash_identifiers(key=KEY, context={"phone": "phone"}, identifiers=["phone"], row_order="input")
    assert b["phone"][0] == a["phone"][2] and b["phone"][2] == a["phone"][0]
    assert b["phone"][1] not in set(a["phone"])
    # a different context (or none) gives unrelated pseudonyms
    c = feb.anon.hash_identifiers(key=KEY, context="phones-v2", identifiers=["phone"], row_order="input")
    d = feb.anon.hash_identifiers(key=KEY, identifiers=["phone"], row_order="input")
    assert not set(c["phone"]) & set(b["phone"]) and not set(d["phone"]) & set(b["phone"])


def test_context_is_length_prefixed_so_splits_do_not_collide():
    a = P.hmac_pseudonyms(pd.Series(["bc"]), KEY, context="a")[0]
    b = P.hmac_pseudonyms(pd.Series(["c"]), KEY, context="ab")[0]
    assert a != b
    assert a == hmac.new(KEY, b"\x00\x00\x00\x01abc", hashlib.sha256).hexdigest()
    assert b == hmac.new(KEY, b"\x00\x00\x00\x02abc", hashlib.sha256).hexdigest()
    # a non-ASCII context counts UTF-8 bytes
    assert P.context_prefix("é") == b"\x00\x00\x00\x02\xc3\xa9"


def test_context_one_str_dict_and_errors(people):
    one = people.anon.hash_identifiers(["name", "note"], key=KEY, context="clinic-7", **ROLES, row_order="input")
    pre = (8).to_bytes(4, "big") + b"clinic-7"
    assert one["name"].iloc[0] == hmac.new(KEY, pre + b"Ann", hashlib.sha256).hexdigest()
    assert one["note"].iloc[0] == hmac.new(KEY, pre + b"a", hashlib.sha256).hexdigest()
    mixed = people.anon.hash_identifiers(["name", "note"], key=KEY,
                                         context={"name": "column", "note": None}, **ROLES, row_order="input")
    assert mixed["name"].iloc[0] == hmac.new(KEY, (4).to_bytes(4, "big") + b"nameAnn",
                                             hashlib.sha256).hexdigest()
    assert mixed["note"].iloc[0] == hmac.new(KEY, b"a", hashlib.sha256).hexdigest()
    with pytest.raises(InvalidInputError, match=r"no context for column\(s\) \['note'\]"):
        people.anon.hash_identifiers(["name", "note"], key=KEY, context={"name": "x"}, **ROLES, row_order="input")
    with pytest.raises(InvalidInputError, match=r"\['zip'\] that are not being hashed"):
        people.anon.hash_identifiers(key=KEY, context={"name": "x", "zip": "y"}, **ROLES, row_order="input")
    with pytest.raises(InvalidInputError, match="must not be empty"):
        people.anon.hash_identifiers(key=KEY, context="", **ROLES, row_order="input")
    with pytest.raises(InvalidInputError, match="context must be"):
        people.anon.hash_identifiers(key=KEY, context=5, **ROLES, row_order="input")
    with pytest.raises(InvalidInputError, match="has none|have none"):
        P.hmac_pseudonyms(["a"], KEY, context="column")
    # integer column labels use their decimal text as context
    ints = pd.DataFrame({0: ["a"], 1: ["a"]}).anon.hash_identifiers(
        key=KEY, context="column", identifiers=[0, 1], row_order="input")
    assert ints[0][0] == hmac.new(KEY, b"\x00\x00\x00\x010a", hashlib.sha256).hexdigest()


def test_drop_identifiers(people):
    out = people.anon.drop_identifiers(**ROLES)
    assert list(out.columns) == ["zip", "age", "disease", "note"]
    info = out.anon.info
    assert {k: info[k] for k in ("operation", "dropped", "row_order")} == {
        "operation": "drop_identifiers", "dropped": ["name"], "row_order": "random"}
    assert set(info) == {"operation", "dropped", "row_order", "rows_match_input",
                         "publisher_only"}
    assert out.anon.roles().quasi_identifiers == {"zip": "unordered", "age": "real"}
    assert list(people.columns)[0] == "name"
    assert pd.DataFrame({"a": [1]}).anon.drop_identifiers(row_order="input").columns.tolist() == ["a"]


# =========================================================================== reference hasher


def test_reference_sha256_rows_hand_checked():
    ids = np.array([[1, "Ann"], [2, "Bob"]], dtype=object)
    out = P.reference_sha256_rows(ids)
    assert out[0, 0] == out[0, 1] == hashlib.sha256(b"[1 'Ann']").hexdigest()
    assert out[1, 0] == hashlib.sha256(b"[2 'Bob']").hexdigest()
    frame = pd.DataFrame({"id": [1, 2], "name": ["Ann", "Bob"]}, index=[10, 11])
    got = P.reference_sha256_rows(frame)
    assert got.index.tolist() == [10, 11] and got.loc[10, "name"] == out[0, 0]
    # a row of strings from a numpy string array prints with quotes
    s = P.reference_sha256_rows(np.array([["1", "1.1", "a"]]))
    assert s[0, 0] == hashlib.sha256(b"['1' '1.1' 'a']").hexdigest()


def test_dictionary_attack_breaks_unkeyed_sha256_but_not_hmac():
    rng = np.random.default_rng(0)
    # the attacker knows the format: Russian mobile numbers in one block of 10,000
    candidates = [f"+7900123{i:04d}" for i in range(10_000)]
    phones = [candidates[i] for i in rng.choice(10_000, size=300, replace=False)]
    df = pd.DataFrame({"phone": phones, "age": rng.integers(20, 70, 300)})

    # the reference: SHA-256 of str(row of identifiers)
    published = P.reference_sha256_rows(df[["phone"]])["phone"]
    table = {hashlib.sha256(str(np.array([c], dtype=object)).encode()).hexdigest(): c
             for c in candidates}
    recovered = [table.get(h) for h in published]
    assert recovered == phones  # every phone number recovered

    # pdanon: HMAC-SHA-256 with a secret key
    out = df.anon.hash_identifiers(identifiers=["phone"], row_order="input")
    plain = {hashlib.sha256(c.encode()).hexdigest(): c for c in candidates}
    guessed_keys = [b"", b"secret", b"key", b"pdanon", b"0" * 32]
    keyed_guesses = {hmac.new(k, c.encode(), hashlib.sha256).hexdigest()
                     for k in guessed_keys for c in candidates}
    hits = [h for h in out["phone"] if h in table or h in plain or h in keyed_guesses]
    assert hits == []
    # ...while the key holder can still link records
    key = bytes(out.anon.info["key"])
    own = {hmac.new(key, c.encode(), hashlib.sha256).hexdigest(): c for c in candidates}
    assert [own[h] for h in out["phone"]] == phones


# =========================================================================== classic classes


def test_keyed_identifier_hasher_classic_api():
    from pdanon.algorithms._perturbation import KeyedIdentifierHasher

    df = pd.DataFrame({"home": ["+1", None], "work": ["+1", "+2"], "age": [30, 40]})
    out = KeyedIdentifierHasher(KEY).depersonalize(df, identifiers_ids=[0, 1])[0]
    assert list(out.columns) == ["home", "work", "age"] and out["age"].tolist() == [30, 40]
    assert out["home"][0] == out["work"][0] == hmac.new(KEY, b"+1", hashlib.sha256).hexdigest()
    assert out["home"][1] is None
    sep = KeyedIdentifierHasher(KEY, context="column").depersonalize(df, identifiers_ids=[0, 1])[0]
    assert sep["home"][0] == hmac.new(KEY, b"\x00\x00\x00\x04home+1", hashlib.sha256).hexdigest()
    assert sep["work"][0] == hmac.new(KEY, b"\x00\x00\x00\x04work+1", hashlib.sha256).hexdigest()
    # without labels the context is the column's position
    rows = KeyedIdentifierHasher(KEY, context="column").depersonalize(
        [["a", 1]], identifiers_ids=[0])[0]
    assert rows[0][0] == hmac.new(KEY, b"\x00\x00\x00\x010a", hashlib.sha256).hexdigest()
    assert "withheld" in repr(KeyedIdentifierHasher(KEY)) and KEY.hex() not in repr(
        KeyedIdentifierHasher(KEY).__dict__)
    with pytest.raises(InvalidInputError, match="needs a key"):
        KeyedIdentifierHasher(None)
    with pytest.raises(InvalidInputError, match="at least 12"):
        KeyedIdentifierHasher("short")
    with pytest.raises(InvalidInputError, match="must not be empty"):
        KeyedIdentifierHasher(KEY, context="")


def _draws(make):
    r = make()
    return [r(v) for v in (5, 50, 95, 20, 70) * 4]


@pytest.mark.parametrize("make", [
    lambda: P_ALGOS.RandomOrdered(range(100), "ordered", 0.1),
    lambda: P_ALGOS.RandomOrdered([float(v) for v in range(100)], "real", 0.1),
    lambda: P_ALGOS.RandomUnordered(list("abcdefgh")),
])
def test_compat_randomizers_own_generator_leaves_global_numpy_state(make):
    def seeded():
        r = make()
        r.seed = 11
        return r

    np.random.seed(123)
    before = np.random.get_state()
    first = _draws(seeded)
    second = _draws(seeded)
    after = np.random.get_state()
    # the global generator was neither advanced nor reseeded
    assert before[0] == after[0] and np.array_equal(before[1], after[1])
    assert before[2:] == after[2:]
    # same seed, same draws; a different seed, different draws; and the draws move values
    assert first == second
    r = make()
    r.seed = 12
    assert [r(v) for v in (5, 50, 95, 20, 70) * 4] != first
    assert first != [5, 50, 95, 20, 70] * 4
    # the draws do not depend on numpy's global seed
    np.random.seed(999)
    assert _draws(seeded) == first
    # unseeded objects draw fresh randomness from secrets (two objects differ)
    assert _draws(make) != _draws(make)


def test_compat_randomizer_seed_is_validated_and_resettable():
    r = P_ALGOS.RandomUnordered(list("ab"))
    assert r.seed is None
    with pytest.raises(InvalidInputError, match="seed"):
        r.seed = -1
    r.seed = 3
    a = [r("x") for _ in range(10)]
    r.seed = 3
    assert [r("x") for _ in range(10)] == a
    # the reference's constructor signatures are kept
    import inspect

    assert list(inspect.signature(P_ALGOS.RandomOrdered).parameters) == [
        "sorted_values", "values_type", "scale"]
    assert list(inspect.signature(P_ALGOS.RandomUnordered).parameters) == ["values"]


# =========================================================================== chaining


def test_shuffle_after_k_anonymize_keeps_k_and_generalized_dtype():
    df = pd.DataFrame({"age": [30, 31, 40, 42, 44, 50], "sex": list("FFMMMF"),
                       "d": list("abcdef")})
    anon = df.anon.k_anonymize(2, quasi_identifiers=["age", "sex"], sensitive=["d"], row_order="input")
    out = anon.anon.shuffle(within="equivalence_classes", seed=0, row_order="input")
    assert out.anon.info["columns"] == ["d"]
    assert out.dtypes.equals(anon.dtypes)
    assert out[["age", "sex"]].equals(anon[["age", "sex"]])
    assert out.anon.k_anonymity() == anon.anon.k_anonymity() == 2
    labels = anon.anon.equivalence_classes().to_numpy()
    for c in np.unique(labels):
        assert multiset(out["d"][labels == c]) == multiset(anon["d"][labels == c])
    whole = anon.anon.shuffle(seed=0, row_order="input")  # generalized columns can be shuffled too
    assert whole.dtypes.equals(anon.dtypes)
    assert sorted(whole["age"].astype(str)) == sorted(anon["age"].astype(str))
    with pytest.raises(KindError, match="generalized"):
        anon.anon.randomize(seed=0, row_order="input")


def test_a_guessable_seed_is_named():
    """seed=2024 is found in a blink by trying seeds in order, and the noise it drew can be
    subtracted again: a perturbation says so; seed=None and a 128-bit seed do not warn."""
    import secrets
    import warnings

    import pdanon

    df = pd.DataFrame({"income": np.arange(50, dtype=float)})
    with pytest.warns(UserWarning, match=r"seed=2024 is among the first 4,294,967,296"):
        df.anon.add_noise(columns=["income"], seed=2024, insensitive=["income"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df.anon.add_noise(columns=["income"], insensitive=["income"])
        df.anon.add_noise(columns=["income"], seed=secrets.randbits(128) | 2 ** 100,
                          insensitive=["income"])
    assert pdanon  # registers df.anon
