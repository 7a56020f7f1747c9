"""Tests of the statistical offices' perturbations: PRAM, top / bottom coding, rank swapping
and additive / correlated noise (pdanon.perturb and the df.anon methods)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import pdanon  # noqa: F401  (registers df.anon)
from pdanon import perturb as P
from pdanon._errors import InvalidInputError, KindError, UnknownColumnError

# statistical tests use fixed seeds; a p-value threshold of 1e-3 makes a false alarm on a
# correct implementation a 1-in-1000 event for an arbitrary seed (and never for these seeds)
ALPHA = 1e-3


def same_missing(a: pd.Series, b: pd.Series) -> bool:
    return bool((a.isna().to_numpy() == b.isna().to_numpy()).all())


# ---------------------------------------------------------------------------------------- PRAM
def test_keep_matrix_hand_checked():
    m = P.keep_matrix(4, 0.7)
    assert np.allclose(m, [[0.7, 0.1, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1],
                           [0.1, 0.1, 0.7, 0.1], [0.1, 0.1, 0.1, 0.7]])
    assert P.keep_matrix(1, 0.3).tolist() == [[1.0]]


def test_invariant_matrix_hand_checked():
    # P = [[.8, .2], [.2, .8]], pi = (.3, .7): lambda = (.38, .62),
    # Q = [[.24/.38, .14/.38], [.06/.62, .56/.62]], R = P Q
    r = P.invariant_matrix(P.keep_matrix(2, 0.8), [3, 7])
    q = np.array([[0.24 / 0.38, 0.14 / 0.38], [0.06 / 0.62, 0.56 / 0.62]])
    assert np.allclose(r, np.array([[0.8, 0.2], [0.2, 0.8]]) @ q)
    assert np.allclose(r[0], [0.52461799, 0.47538201])
    assert np.allclose(np.array([0.3, 0.7]) @ r, [0.3, 0.7])


@given(st.lists(st.integers(0, 50), min_size=1, max_size=6),
       st.floats(0.0, 1.0), st.integers(0, 2**32 - 1))
@settings(max_examples=80, deadline=None)
def test_invariant_matrix_keeps_frequencies(counts, p, seed):
    k = len(counts)
    rng = np.random.default_rng(seed)
    # a random stochastic matrix with some zeros; every row keeps some mass
    given_m = rng.random((k, k)) * (rng.random((k, k)) < 0.7) + np.eye(k) * max(p, 1e-3)
    given_m /= given_m.sum(axis=1, keepdims=True)
    r = P.invariant_matrix(given_m, counts)
    assert np.allclose(r.sum(axis=1), 1.0) and (r >= -1e-15).all()
    if sum(counts):
        pi = np.array(counts, float) / sum(counts)
        assert np.allclose(pi @ r, pi, atol=1e-12)


def test_pram_swap_matrix_exact_output_keeps_missing_index_and_dtype():
    s = pd.Series(["a", None, "b", "a"], index=[10, 11, 12, 13], name="c")
    out, m = P.pram_series(s, matrix=[[0, 1], [1, 0]], invariant=False, rng=P.make_rng(0))
    assert out.fillna("-").tolist() == ["b", "-", "a", "b"]
    assert out.index.tolist() == [10, 11, 12, 13] and out.name == "c" and out.dtype == s.dtype
    assert m.index.tolist() == ["a", "b"]


def test_pram_given_dataframe_matrix_is_reordered_by_label():
    s = pd.Series([1, 2, 2, 3])
    m = pd.DataFrame([[1, 0, 0], [0, 0, 1], [0, 1, 0]], index=[1, 3, 2], columns=[1, 3, 2])
    out, used = P.pram_series(s, matrix=m, invariant=False, rng=P.make_rng(1))
    assert out.tolist() == [1, 3, 3, 2] and out.dtype == s.dtype
    assert used.to_numpy().tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]


def test_pram_categorical_keeps_dtype_and_unobserved_category():
    dtype = pd.CategoricalDtype(["lo", "mid", "hi"], ordered=True)
    s = pd.Series(["lo", "hi", np.nan, "lo"] * 50, dtype=dtype)
    inv, _ = P.pram_series(s, p=0.5, rng=P.make_rng(0))
    assert inv.dtype == dtype and same_missing(s, inv)
    # invariant: a category with observed frequency 0 is never produced
    assert "mid" not in set(inv.dropna())
    plain, _ = P.pram_series(s, p=0.5, invariant=False, rng=P.make_rng(0))
    assert "mid" in set(plain.dropna())


def test_pram_p_one_changes_nothing():
    s = pd.Series(list("abcabcaab"))
    for inv in (True, False):
        out, m = P.pram_series(s, p=1.0, invariant=inv, rng=P.make_rng(3))
        assert out.tolist() == s.tolist() and np.allclose(m.to_numpy(), np.eye(3))


def test_pram_invariant_chi_square_100000_rows():
    cats = np.array(["a", "b", "c", "d"])
    probs = np.array([0.5, 0.3, 0.15, 0.05])
    n = 100_000
    s = pd.Series(np.random.default_rng(11).choice(cats, n, p=probs))
    observed = s.value_counts().reindex(cats).to_numpy()
    out, r = P.pram_series(s, p=0.6, rng=P.make_rng(12))
    after = out.value_counts().reindex(cats).to_numpy()
    # invariant PRAM: expected counts after = observed counts before
    chi2 = ((after - observed) ** 2 / observed).sum()
    assert stats.chi2.sf(chi2, df=3) > ALPHA
    # share of changed cells: 1 - sum_i pi_i R_ii (binomial sd ~0.0016; tolerance 6 sd)
    changed = 1 - (observed / n) @ np.diag(r.to_numpy())
    assert abs((out != s).mean() - changed) < 0.01 and changed > 0.3
    # each category's transitions follow its row of R (chi-square per category)
    for i, c in enumerate(cats):
        moved = out[s == c].value_counts().reindex(cats, fill_value=0).to_numpy()
        exp = observed[i] * r.to_numpy()[i]
        keep = exp > 0
        assert moved[~keep].sum() == 0
        chi2 = ((moved[keep] - exp[keep]) ** 2 / exp[keep]).sum()
        assert stats.chi2.sf(chi2, df=keep.sum() - 1) > ALPHA


def test_pram_plain_matrix_moves_marginal_to_pi_p():
    cats = np.array(["a", "b", "c"])
    n = 100_000
    s = pd.Series(np.random.default_rng(5).choice(cats, n, p=[0.7, 0.2, 0.1]))
    observed = s.value_counts().reindex(cats).to_numpy()
    out, _ = P.pram_series(s, p=0.6, invariant=False, rng=P.make_rng(6))
    after = out.value_counts().reindex(cats).to_numpy()
    expected = observed @ P.keep_matrix(3, 0.6)
    assert stats.chi2.sf(((after - expected) ** 2 / expected).sum(), df=2) > ALPHA
    # ... and far from the observed marginal: that is what invariant PRAM corrects
    assert stats.chi2.sf(((after - observed) ** 2 / observed).sum(), df=2) < 1e-12


@given(st.lists(st.one_of(st.none(), st.sampled_from(["x", "y", "z"])), max_size=40),
       st.floats(0.0, 1.0), st.booleans(), st.integers(0, 2**32 - 1))
@settings(max_examples=80, deadline=None)
def test_pram_properties(values, p, invariant, seed):
    s = pd.Series(values, dtype=object)
    before = s.copy()
    out, m = P.pram_series(s, p=p, invariant=invariant, rng=P.make_rng(seed))
    assert s.equals(before)
    assert same_missing(s, out)
    assert set(out.dropna()) <= set(s.dropna())
    assert np.allclose(m.to_numpy().sum(axis=1), 1.0) if len(m) else True
    again, _ = P.pram_series(s, p=p, invariant=invariant, rng=P.make_rng(seed))
    assert again.equals(out)


def test_df_pram_info_roles_and_seed():
    df = pd.DataFrame({"id": [f"p{i}" for i in range(60)], "sex": ["F", "M", None] * 20,
                       "zip": ["1", "2", "3", "4"] * 15, "age": range(60)})
    before = df.copy()
    # age is unique and published as it is: it must be decided (here: on purpose)
    with pytest.raises(pdanon.RoleError, match="'age': unique or nearly"):
        df.anon.pram(["sex", "zip"], p={"sex": 0.5}, seed=1, identifiers=["id"], row_order="input")
    out = df.anon.pram(["sex", "zip"], p={"sex": 0.5}, seed=1, identifiers=["id"],
                       insensitive=["age"], row_order="input")
    assert df.equals(before)
    assert list(out.columns) == ["sex", "zip", "age"]
    assert out["age"].tolist() == list(range(60)) and same_missing(df["sex"], out["sex"])
    info = out.anon.info
    assert info["operation"] == "pram" and info["random_source"] == "seed given"
    assert info["identifiers_dropped"] == ["id"] and info["invariant"] is True
    assert info["columns"]["sex"]["p"] == 0.5 and info["columns"]["zip"]["p"] == 0.8
    assert info["columns"]["zip"]["categories"] == 4
    changed = int((out["sex"] != df["sex"])[df["sex"].notna()].sum())
    assert info["columns"]["sex"]["cells_changed"] == changed
    assert info["cells_changed"] == changed + int((out["zip"] != df["zip"]).sum())
    assert 0 < info["columns"]["sex"]["expected_kept"] < 1
    json.dumps(info)
    assert out.equals(df.anon.pram(["sex", "zip"], p={"sex": 0.5}, seed=1, identifiers=["id"],
                                    insensitive=["age"], row_order="input"))
    assert df.anon.pram("zip", identifiers=["id"], insensitive=["age"], row_order="input").anon.info[
        "random_source"] == "secrets"


def test_pram_matrix_per_column_and_info_given():
    df = pd.DataFrame({"a": ["x", "y"] * 5, "b": ["u", "v"] * 5})
    swap = pd.DataFrame([[0, 1], [1, 0]], index=["x", "y"], columns=["x", "y"])
    out = df.anon.pram(["a", "b"], matrix={"a": swap}, p=1.0, invariant=False, seed=0,
                       quasi_identifiers=["a", "b"], row_order="input")
    assert out["a"].tolist() == ["y", "x"] * 5 and out["b"].tolist() == df["b"].tolist()
    assert out.anon.info["columns"]["a"]["matrix"] == "given"
    assert out.anon.info["columns"]["a"]["p"] is None


@pytest.mark.parametrize("matrix, message", [
    ([[1.0]], "2 x 2"),
    ([[0.5, 0.6], [0.5, 0.5]], "sum to 1"),
    ([[1.5, -0.5], [0.5, 0.5]], ">= 0"),
    ([["a", "b"], [0, 1]], "not numeric"),
    (pd.DataFrame([[1, 0], [0, 1]], index=["x", "q"], columns=["x", "q"]), "categories"),
])
def test_pram_bad_matrix(matrix, message):
    df = pd.DataFrame({"c": ["x", "y", "x"]})
    with pytest.raises(InvalidInputError, match=message) as exc:
        df.anon.pram("c", matrix=matrix, quasi_identifiers=["c"])
    assert "'c'" in str(exc.value)


def test_pram_bad_arguments():
    df = pd.DataFrame({"id": ["a", "b"], "c": ["x", "y"]})
    with pytest.raises(InvalidInputError, match="p \\(the probability"):
        df.anon.pram("c", p=1.5, identifiers=["id"])
    with pytest.raises(InvalidInputError, match="columns"):
        df.anon.pram(None, identifiers=["id"])
    with pytest.raises(UnknownColumnError, match="nope"):
        df.anon.pram("nope", identifiers=["id"])
    with pytest.raises(InvalidInputError, match="identifiers"):
        df.anon.pram("id", identifiers=["id"])
    with pytest.raises(InvalidInputError, match="not being perturbed"):
        df.anon.pram("c", p={"id": 0.5}, identifiers=["id"])


# -------------------------------------------------------------------- top and bottom coding
def test_pram_pd_is_sdcmicros_random_diagonal_made_invariant_and_mixed():
    """pd= builds sdcMicro's matrix: diagonal drawn from [pd, 1] (the same draws from the
    seeded generator), off-diagonal (1 - d) / (L - 1), Qest[k, j] = P[j, k] p_j / s_k,
    R = P Qest, then alpha R + (1 - alpha) I, transcribed from sdcMicro's calcTransitionMatrix."""
    from pdanon.perturb.pram import pram_matrix
    from pdanon.perturb.randomness import make_rng

    s = pd.Series(list("aaaabbbccd"))
    got = pram_matrix(s, pd_=0.7, alpha=0.3, rng=make_rng(5)).to_numpy()
    L = 4
    d = make_rng(5).uniform(0.7, 1.0, L)
    P = np.repeat(((1 - d) / (L - 1))[:, None], L, axis=1)
    np.fill_diagonal(P, d)
    p = np.array([4, 3, 2, 1]) / 10
    Q = np.empty((L, L))
    for k in range(L):
        sk = (p * P[:, k]).sum()
        for j in range(L):
            Q[k, j] = P[j, k] * p[j] / sk
    expected = 0.3 * (P @ Q) + 0.7 * np.eye(L)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(p @ got, p, rtol=1e-12)  # still invariant
    assert np.allclose(pram_matrix(s, pd_=1.0, rng=make_rng(0)).to_numpy(), np.eye(L))


def test_pram_pd_keeps_far_more_cells_than_p_and_says_so():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"c": rng.choice(list("abcde"), 5000, p=[.4, .25, .15, .12, .08])})
    fixed = df.anon.pram("c", p=0.8, seed=1, insensitive=[]).anon.info["columns"]["c"]
    sdc = df.anon.pram("c", pd=0.8, seed=1, insensitive=[]).anon.info["columns"]["c"]
    assert fixed["matrix"] == "keep p" and sdc["matrix"] == "sdcMicro pd"
    assert sdc["pd"] == 0.8 and sdc["alpha"] == 0.5 and fixed["p"] == 0.8
    assert round(fixed["expected_kept"], 2) == 0.67 and round(sdc["expected_kept"], 2) == 0.93
    for info in (fixed, sdc):  # the draw follows the expectation
        assert abs(1 - info["cells_changed"] / 5000 - info["expected_kept"]) < 0.02
    with pytest.raises(pdanon.InvalidInputError, match="not p and pd"):
        df.anon.pram("c", p=0.8, pd=0.8, seed=1, insensitive=[])
    with pytest.raises(pdanon.InvalidInputError, match=r"alpha .* \[0, 1\]"):
        df.anon.pram("c", pd=0.8, alpha=2, seed=1, insensitive=[])
    out = pd.Series(list("ab" * 50)).anon.pram(pd=0.9, seed=0)
    assert out.anon.info["columns"]["value"]["matrix"] == "sdcMicro pd"


def test_top_code_threshold_exact_and_keeps_int_dtype():
    df = pd.DataFrame({"inc": [10, 100, 250, 99], "age": [1, 2, 3, 4]}, index=list("abcd"))
    before = df.copy()
    out = df.anon.top_code("inc", threshold=100, quasi_identifiers=["inc", "age"], row_order="input")
    assert df.equals(before)
    assert out["inc"].tolist() == [10, 100, 100, 99] and out["inc"].dtype == np.int64
    assert out.index.tolist() == list("abcd") and out["age"].tolist() == [1, 2, 3, 4]
    info = out.anon.info
    assert info["operation"] == "top_code" and info["cells_changed"] == 1
    assert info["columns"]["inc"] == {"threshold": 100.0, "quantile": None,
                                      "replacement": 100.0, "cells_beyond": 1,
                                      "cells_changed": 1}
    assert "random_source" not in info
    json.dumps(info)


def test_bottom_code_value_and_missing_stay_missing():
    s = pd.Series([1.5, None, -3.0, 0.0, 7.0])
    out, d = P.code_series(s, "bottom", threshold=0, value=-1)
    assert out.fillna(99).tolist() == [1.5, 99, -1.0, 0.0, 7.0] and same_missing(s, out)
    assert d["cells_changed"] == 1 and d["replacement"] == -1.0
    nullable = pd.Series([5, None, 50], dtype="Int64")
    coded, _ = P.code_series(nullable, "top", threshold=10)
    assert coded.dtype == "Int64" and coded.tolist()[0] == 5 and coded.isna().tolist()[1]
    assert coded.tolist()[2] == 10


def test_top_code_quantile_hand_checked():
    # numpy's linear 0.95-quantile of 1..100 is 95.05, between the kept 95 and the hidden 96:
    # the threshold is the value at or below it, 95, which the release publishes anyway
    s = pd.Series(np.arange(1, 101))
    out, d = P.code_series(s, "top", quantile=0.95)
    assert d["threshold"] == 95.0 and d["cells_changed"] == d["cells_beyond"] == 5
    assert out.dtype == np.int64 and out.iloc[95:].tolist() == [95] * 5
    assert out.iloc[:95].tolist() == list(range(1, 96))
    per = pd.DataFrame({"a": np.arange(10), "b": np.arange(10)}).anon.bottom_code(
        ["a", "b"], quantile={"a": 0.2}, threshold={"b": 3}, value={"a": -1},
        quasi_identifiers=["a", "b"], row_order="input")
    # the 0.2-quantile of 0..9 is 1.8: the threshold is the value at or above it, 2
    assert per["a"].tolist() == [-1, -1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert per.anon.info["columns"]["a"]["threshold"] == 2.0
    assert per["b"].tolist() == [3, 3, 3, 3, 4, 5, 6, 7, 8, 9]


def test_coding_counts_a_replaced_cell_equal_to_the_value_as_changed():
    """A hidden value equal to the replacement must not show in the counts: with one cell
    beyond the threshold, "0 changed" would say the hidden value was exactly ``value``."""
    s = pd.Series([10.0, 20.0, 150.0])
    out, d = P.code_series(s, "top", threshold=100, value=150)
    assert out.tolist() == [10.0, 20.0, 150.0]
    assert d["cells_beyond"] == d["cells_changed"] == 1
    _, other = P.code_series(pd.Series([10.0, 20.0, 160.0]), "top", threshold=100, value=150)
    assert other == d


@given(st.lists(st.one_of(st.none(), st.floats(-1e6, 1e6)), min_size=1, max_size=30),
       st.floats(0, 1), st.sampled_from(["top", "bottom"]))
@settings(max_examples=80, deadline=None)
def test_quantile_threshold_is_a_published_value(values, q, side):
    s = pd.Series(values, dtype=float)
    out, d = P.code_series(s, side, quantile=q)
    present = s.dropna()
    if present.empty:
        assert d["threshold"] is None and out.isna().all()
        return
    t = d["threshold"]
    assert t in set(out.dropna().tolist()) and t in set(present.tolist())
    # it lies on the kept side of numpy's interpolated quantile
    linear = float(np.quantile(present.to_numpy(), q))
    assert (t <= linear) if side == "top" else (t >= linear)
    assert d["cells_changed"] == d["cells_beyond"] == int(
        ((present > t) if side == "top" else (present < t)).sum())


@given(st.lists(st.one_of(st.none(), st.floats(-1e6, 1e6)), max_size=30),
       st.floats(-1e6, 1e6), st.sampled_from(["top", "bottom"]))
@settings(max_examples=80, deadline=None)
def test_coding_properties(values, t, side):
    s = pd.Series(values, dtype=float)
    out, d = P.code_series(s, side, threshold=t)
    assert same_missing(s, out)
    kept = out.dropna()
    assert ((kept <= t) if side == "top" else (kept >= t)).all()
    moved = (s != out) & s.notna()
    assert int(moved.sum()) == d["cells_changed"]
    assert (((s[moved] > t) if side == "top" else (s[moved] < t))).all()


def test_coding_errors():
    df = pd.DataFrame({"id": ["a", "b"], "x": [1, 2], "s": ["u", "v"]})
    kw = dict(identifiers=["id"])
    with pytest.raises(InvalidInputError, match="exactly one of threshold"):
        df.anon.top_code("x", **kw)
    with pytest.raises(InvalidInputError, match="exactly one of threshold"):
        df.anon.top_code("x", threshold=1, quantile=0.5, **kw)
    with pytest.raises(InvalidInputError, match="quantile for column 'x'"):
        df.anon.top_code("x", quantile=1.5, **kw)
    with pytest.raises(InvalidInputError, match="threshold for column 'x'"):
        df.anon.bottom_code("x", threshold=float("nan"), **kw)
    with pytest.raises(KindError, match="'s'"):
        df.anon.top_code("s", threshold=1, **kw)
    with pytest.raises(InvalidInputError, match="needs the columns"):
        df.anon.top_code(None, threshold=1, **kw)
    with pytest.raises(InvalidInputError, match="not being perturbed"):
        df.anon.top_code("x", threshold={"s": 1}, **kw)


def test_coding_infinite_values():
    """A quantile over infinite values is no threshold: refused, naming the column and the
    fix; a given threshold codes them."""
    df = pd.DataFrame({"x": [1.0, np.inf, 3.0, 4.0]})
    with pytest.raises(InvalidInputError, match=r"column 'x' .*threshold= codes .*1 infinite"):
        df.anon.top_code("x", quantile=0.9, row_order="input")
    assert df.anon.top_code("x", threshold=3.5, row_order="input")["x"].tolist() == [1.0, 3.5, 3.0, 3.5]
    assert df.anon.bottom_code("x", threshold=2.0, row_order="input")["x"].tolist() == [2.0, np.inf, 3.0, 4.0]


# ------------------------------------------------------------------------------ rank swapping
def ranks_of(values: np.ndarray) -> np.ndarray:
    return np.argsort(np.argsort(values, kind="stable"), kind="stable")


def test_rank_swap_hand_checked_adjacent_pairs():
    # p = 25% of 4 values: d = 1, blocks of 2 ranks; every swap is between neighbours
    s = pd.Series([10, 20, None, 30, 40], index=list("abcde"), name="x")
    out, d = P.rank_swap_series(s, p=25, rng=P.make_rng(0))
    assert out.fillna(0).tolist() == [20, 10, 0, 40, 30]
    assert d == {"p": 25.0, "rule": "blocks", "max_rank_distance": 1, "pairs": 2,
                 "top_coded": 0, "bottom_coded": 0, "cells_changed": 4}
    assert out.index.tolist() == list("abcde") and out.name == "x" and same_missing(s, out)


def _moore_direct(m: int, distance: int, u: np.ndarray) -> list:
    """Moore's rule as sdcMicro's RankSwapping.h reads, rank by rank with Python lists."""
    swapped = [False] * m
    partner = list(range(m))
    for j in range(m):
        if swapped[j]:
            continue
        swapped[j] = True
        free = [k for k in range(j + 1, min(m, j + distance + 1)) if not swapped[k]]
        if free:
            k = free[int(u[j] * len(free))]
            swapped[k] = True
            partner[j], partner[k] = k, j
    return partner


@settings(max_examples=40, deadline=None)
@given(m=st.integers(0, 60), distance=st.integers(0, 12), seed=st.integers(0, 10**6))
def test_moore_partners_are_the_sequential_rule(m, distance, seed):
    got = P.moore_partners(m, distance, P.make_rng(seed))
    u = P.make_rng(seed).random(m) if m >= 2 and distance >= 1 else np.zeros(m)
    assert got.tolist() == _moore_direct(m, distance, u)
    assert (got[got] == np.arange(m)).all() and (np.abs(got - np.arange(m)) <= distance).all()


def test_moore_rule_swaps_farther_than_blocks_and_tails_are_coded():
    r = np.arange(100_000)
    moore, blocks = P.moore_partners(100_000, 50, P.make_rng(1)), P.swap_partners(
        100_000, 50, P.make_rng(1))
    dm = np.abs(moore - r)[moore != r].mean()
    db = np.abs(blocks - r)[blocks != r].mean()
    assert 27 < dm < 30 and 16.5 < db < 18.5  # 28.4 against 17.3 ranks
    df = pd.DataFrame({"income": [float(v) for v in range(1, 21)], "n": list(range(20))})
    out = df.anon.rank_swap(["income", "n"], p=10, rule="moore", top_percent=10,
                            bottom_percent=10, seed=3, insensitive=[], row_order="input")
    info = out.anon.info["columns"]["income"]
    assert info["rule"] == "moore" and info["top_coded"] == 2 and info["bottom_coded"] == 2
    assert out["income"].nsmallest(2).tolist() == [1.5, 1.5]  # (1 + 2) / 2
    assert out["income"].nlargest(2).tolist() == [19.5, 19.5]
    assert sorted(out["income"].iloc[2:18]) == [float(v) for v in range(3, 19)]
    assert out["n"].dtype == df["n"].dtype and sorted(out["n"].iloc[:2]) == [0, 0]  # rounded
    with pytest.raises(InvalidInputError, match="rule must be one of"):
        df.anon.rank_swap("income", rule="sdc", insensitive=[], row_order="input")
    with pytest.raises(InvalidInputError, match=r"top_percent .* \[0, 50\)"):
        df.anon.rank_swap("income", top_percent=60, insensitive=[], row_order="input")


def test_swap_partners_pairing_rule_exact():
    # distance 2: blocks of 3 ranks after a random offset; pairs inside blocks only
    rng = P.make_rng(4)
    partner = P.swap_partners(9, 2, rng)
    assert (partner[partner] == np.arange(9)).all()
    assert (np.abs(partner - np.arange(9)) <= 2).all()
    offset = int(P.make_rng(4).integers(0, 3))
    block = (np.arange(9) + offset) // 3
    assert (block[partner] == block).all()
    sizes = np.bincount(block)
    # every block pairs all its ranks but one when odd
    assert (partner != np.arange(9)).sum() == sum(b - b % 2 for b in sizes)


@given(st.lists(st.one_of(st.none(), st.integers(-50, 50)), max_size=60),
       st.floats(0, 100), st.integers(0, 2**32 - 1))
@settings(max_examples=100, deadline=None)
def test_rank_swap_properties(values, p, seed):
    s = pd.Series(values, dtype="Int64")
    out, d = P.rank_swap_series(s, p=p, rng=P.make_rng(seed))
    assert out.dtype == s.dtype and same_missing(s, out)
    assert sorted(out.dropna().tolist()) == sorted(s.dropna().tolist())
    m = int(s.notna().sum())
    assert d["max_rank_distance"] == int(np.floor(p * m / 100 + 1e-9))
    # each value lands within d ranks: its new rank range among ties overlaps the old one
    x = s.dropna().to_numpy(dtype=float)
    y = out.dropna().to_numpy(dtype=float)
    lo_x, hi_x = np.searchsorted(np.sort(x), x, "left"), np.searchsorted(np.sort(x), x, "right") - 1
    lo_y, hi_y = np.searchsorted(np.sort(x), y, "left"), np.searchsorted(np.sort(x), y, "right") - 1
    assert (lo_y <= hi_x + d["max_rank_distance"]).all()
    assert (hi_y >= lo_x - d["max_rank_distance"]).all()
    assert d["cells_changed"] == int(((s != out) & s.notna()).sum())


def test_rank_swap_distance_distribution_100000_rows():
    # p = 1% of 100,000: d = 1,000, blocks of 1,001 ranks. Within a block, a random pair of
    # distinct ranks is on average (w + 1) / 3 = 334 apart (partial end blocks lower it by
    # < 1%); nearly every value is swapped. Tolerance 2% (sd of the mean ~0.8).
    n = 100_000
    x = np.random.default_rng(2).normal(size=n)
    out, d = P.rank_swap_series(pd.Series(x), p=1, rng=P.make_rng(3))
    assert d["max_rank_distance"] == 1000
    r_old = ranks_of(x)
    new = out.to_numpy()
    r_new = np.searchsorted(np.sort(x), new)          # distinct values: rank = position
    dist = np.abs(r_new - r_old)
    assert dist.max() <= 1000
    assert (dist == 0).sum() <= 101      # one unpaired rank per odd block (1,001 ranks: all)
    assert dist[dist > 0].mean() == pytest.approx(1002 / 3, rel=0.02)
    assert np.isclose(out.mean(), x.mean()) and np.isclose(out.std(), x.std())
    assert stats.spearmanr(x, new)[0] > 0.999


def test_rank_swap_ordered_categorical_datetime_and_frame():
    dtype = pd.CategoricalDtype(["lo", "mid", "hi"], ordered=True)
    df = pd.DataFrame({
        "id": [f"u{i}" for i in range(40)],
        "edu": pd.Series(["lo", "mid", "hi", None] * 10, dtype=dtype),
        "day": pd.date_range("2024-01-01", periods=40, freq="D"),
        "inc": np.linspace(0, 1, 40),
    })
    before = df.copy()
    out = df.anon.rank_swap(["edu", "day", "inc"], p={"day": 10}, seed=5, identifiers=["id"], row_order="input")
    assert df.equals(before) and "id" not in out.columns
    assert out["edu"].dtype == dtype and same_missing(df["edu"], out["edu"])
    assert out["day"].dtype == df["day"].dtype
    assert ((out["day"] - df["day"]).abs() <= pd.Timedelta(days=4)).all()   # 10% of 40
    assert sorted(out["day"]) == sorted(df["day"])
    info = out.anon.info
    assert info["operation"] == "rank_swap" and info["random_source"] == "seed given"
    assert info["columns"]["day"]["max_rank_distance"] == 4
    assert info["columns"]["inc"]["max_rank_distance"] == 2        # default 5% of 40
    assert info["identifiers_dropped"] == ["id"]
    json.dumps(info)
    assert out.equals(df.anon.rank_swap(["edu", "day", "inc"], p={"day": 10}, seed=5,
                                        identifiers=["id"], row_order="input"))


def test_rank_swap_errors():
    df = pd.DataFrame({"id": ["a", "b"], "s": ["u", "v"], "c": pd.Categorical(["u", "v"]),
                       "x": [1.0, 2.0]})
    with pytest.raises(KindError, match="'s'"):
        df.anon.rank_swap("s", identifiers=["id"])
    with pytest.raises(KindError, match="unordered Categorical"):
        df.anon.rank_swap("c", identifiers=["id"])
    with pytest.raises(InvalidInputError, match="percent"):
        df.anon.rank_swap("x", p=150, identifiers=["id"])
    with pytest.raises(InvalidInputError, match="needs the columns"):
        df.anon.rank_swap(None, identifiers=["id"])


# ------------------------------------------------------------------------------------- noise
def test_additive_noise_exact_formula_and_missing():
    df = pd.DataFrame({"a": [1.0, 2.0, None, 5.0], "b": [10, 20, 30, 40]})
    out, d = P.add_noise_frame(df, ["a", "b"], noise=0.5, rng=P.make_rng(7))
    z = P.make_rng(7).standard_normal((4, 2))
    sd = np.array([np.std([1.0, 2.0, 5.0], ddof=1), np.std([10, 20, 30, 40], ddof=1)])
    expected = df.to_numpy(dtype=float) + z * 0.5 * sd
    assert np.allclose(out["a"].to_numpy()[[0, 1, 3]], expected[[0, 1, 3], 0])
    assert np.isnan(out["a"][2])
    assert out["b"].dtype == np.int64 and out["b"].tolist() == np.rint(expected[:, 1]).tolist()
    assert d["noise_sd"] == pytest.approx({"a": 0.5 * sd[0], "b": 0.5 * sd[1]})


@pytest.mark.parametrize("method", ["additive", "correlated"])
def test_zero_noise_changes_nothing(method):
    df = pd.DataFrame({"a": [1.0, 2.0, 4.0], "b": pd.array([1, None, 3], dtype="Int64")})
    out, _ = P.add_noise_frame(df, ["a", "b"], method=method, noise=0.0, rng=P.make_rng(0))
    assert out.equals(df)


SIGMA = np.array([[4.0, 1.2, -0.8], [1.2, 1.0, 0.3], [-0.8, 0.3, 2.25]])


def mvn_frame(n=100_000, seed=21):
    x = np.random.default_rng(seed).multivariate_normal([50, 10, 0], SIGMA, n)
    return pd.DataFrame(x, columns=["x", "y", "z"])


def test_correlated_noise_covariance_factor_100000_rows():
    # expected covariance after: (1 + noise) * S. With 100,000 rows a sample covariance
    # entry has sd <= sqrt((S_ii S_jj + S_ij^2) / n) ~ 0.018 here; tolerance 0.1 (> 5 sd)
    df = mvn_frame()
    out = df.anon.add_noise(["x", "y", "z"], method="correlated", noise=0.5, seed=3,
                            quasi_identifiers=["x", "y", "z"], row_order="input")
    s = np.cov(df.to_numpy(), rowvar=False)
    s_out = np.cov(out[["x", "y", "z"]].to_numpy(), rowvar=False)
    assert np.allclose(s_out, 1.5 * s, atol=0.1)
    assert np.allclose(np.corrcoef(out.to_numpy(), rowvar=False),
                       np.corrcoef(df.to_numpy(), rowvar=False), atol=0.01)
    e = (out - df).to_numpy()
    assert np.allclose(np.cov(e, rowvar=False), 0.5 * s, atol=0.06)
    assert np.allclose(e.mean(axis=0), 0, atol=0.02)
    info = out.anon.info
    assert info["method"] == "correlated" and info["covariance_factor"] == 1.5
    assert info["complete_rows"] == 100_000 and info["cells_changed"] == 300_000
    assert info["noise_sd"]["x"] == pytest.approx(np.sqrt(0.5 * s[0, 0]))
    json.dumps(info)


def test_additive_noise_variances_100000_rows():
    # variance factor 1 + noise^2 = 1.25; independent noise: covariances kept,
    # correlations shrink by 1 / 1.25
    df = mvn_frame(seed=22)
    out = df.anon.add_noise(["x", "y", "z"], noise=0.5, seed=4, quasi_identifiers=["x", "y", "z"], row_order="input")
    s = np.cov(df.to_numpy(), rowvar=False)
    s_out = np.cov(out.to_numpy(), rowvar=False)
    assert np.allclose(np.diag(s_out), 1.25 * np.diag(s), rtol=0.03)
    off = ~np.eye(3, dtype=bool)
    assert np.allclose(s_out[off], s[off], atol=0.06)
    e = (out - df).to_numpy()
    assert np.allclose(np.corrcoef(e, rowvar=False)[off], 0, atol=0.015)
    assert out.anon.info["variance_factor"] == 1.25


def test_correlated_noise_missing_cells_and_singular_covariance():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0, None, 5.0], "b": [2.0, 4.0, 6.0, 8.0, None]})
    out, d = P.add_noise_frame(df, ["a", "b"], method="correlated", noise=1.0,
                               rng=P.make_rng(1))
    assert same_missing(df["a"], out["a"]) and same_missing(df["b"], out["b"])
    assert d["complete_rows"] == 3
    # b = 2a on the complete rows: S is singular and the noise keeps b-noise = 2 * a-noise
    e = (out - df).to_numpy()
    assert np.allclose(e[:3, 1], 2 * e[:3, 0])


def test_noise_errors():
    df = pd.DataFrame({"id": ["p", "q"], "x": [1.0, None], "y": [None, 2.0], "s": ["u", "v"]})
    kw = dict(identifiers=["id"])
    with pytest.raises(InvalidInputError, match="method"):
        df.anon.add_noise("x", method="multiplicative", **kw)
    with pytest.raises(InvalidInputError, match="noise must be"):
        df.anon.add_noise("x", noise=-1, **kw)
    with pytest.raises(KindError, match="'s'"):
        df.anon.add_noise("s", **kw)
    with pytest.raises(InvalidInputError, match="only 0 such row"):
        df.anon.add_noise(["x", "y"], method="correlated", **kw)
    with pytest.raises(InvalidInputError, match="needs the columns"):
        df.anon.add_noise(None, **kw)
    before = df.copy()
    df.anon.add_noise(["x", "y"], **kw)
    assert df.equals(before)


@pytest.mark.parametrize("method", ["additive", "correlated"])
def test_noise_refuses_infinite_and_overflowing_columns(method):
    """One infinite cell would make every cell of the column missing (its spread is
    infinite): refused, with the column and the first index."""
    df = pd.DataFrame({"x": [1.0, np.inf, 3.0, 4.0], "y": [1.0, 2.0, 3.0, 5.0]})
    with pytest.raises(InvalidInputError, match=r"column 'x' has 1 infinite.*index 1"):
        df.anon.add_noise(["x", "y"], method=method, seed=1)
    huge = pd.DataFrame({"x": [1e307, -1e307, 3.0], "y": [1.0, 2.0, 4.0]})
    with pytest.raises(InvalidInputError, match=r"\['x'\] overflows"):
        huge.anon.add_noise(["x", "y"], method=method, seed=1)


# ------------------------------------------------------------------------ local suppression
from pdanon._errors import InfeasibleError  # noqa: E402


def wildcard_k(frame: pd.DataFrame, cols) -> int:
    return frame.anon.k_anonymity(missing="wildcard", quasi_identifiers=list(cols))


def test_local_suppression_hand_checked_and_importance():
    df = pd.DataFrame({"sex": ["F", "F", "M", "M", "M"], "zip": ["1", "1", "1", "2", "2"],
                       "note": list("abcde")})
    before = df.copy()
    roles = dict(quasi_identifiers=["sex", "zip"], insensitive=["note"])
    # (M, 1) is unique; ties in distinct values: the later column (zip) goes first
    out = df.anon.local_suppression(2, **roles, row_order="input")
    assert df.equals(before)
    assert out["zip"].fillna("*").tolist() == ["1", "1", "*", "2", "2"]
    assert out["sex"].tolist() == df["sex"].tolist() and out["note"].tolist() == list("abcde")
    info = out.anon.info
    assert info["cells_suppressed"] == 1 and info["rows_changed"] == 1
    assert info["cells_suppressed_per_column"] == {"sex": 0, "zip": 1}
    assert info["order"] == ["zip", "sex"] and info["k_anonymity"] == 2
    json.dumps(info)
    # zip more important: sex is suppressed instead, and (*, 1) matches three rows
    out = df.anon.local_suppression(2, importance=["zip", "sex"], **roles, row_order="input")
    assert out["sex"].fillna("*").tolist() == ["F", "F", "*", "M", "M"]
    assert out.anon.info["k_anonymity"] == 2
    same = df.anon.local_suppression(2, importance={"zip": 1, "sex": 2}, **roles, row_order="input")
    assert same.equals(out)


def test_local_suppression_fallback_rounds_hand_checked():
    # (b, y) and (c, z) match nothing after any single suppression: round 1 suppresses their
    # least important cell (c2, later column on a tie), round 2 their c1 (then they match all)
    df = pd.DataFrame({"c1": ["a", "a", "b", "c"], "c2": ["x", "x", "y", "z"]})
    mask = P.suppression_mask(df, ["c1", "c2"], 2)
    assert mask.tolist() == [[False, False], [False, False], [True, True], [True, True]]


def test_local_suppression_keeps_missing_and_makes_ints_nullable():
    df = pd.DataFrame({"age": [30, 30, 40, 50, 50], "zip": ["1", None, "1", "2", "2"]})
    out = df.anon.local_suppression(2, quasi_identifiers=["age", "zip"], row_order="input")
    assert out["age"].dtype == "Int64"
    assert out["zip"].isna()[1]                       # missing stays missing
    kept = out.notna().to_numpy()                     # a present cell is kept or suppressed
    assert (out.to_numpy(dtype=object)[kept] == df.to_numpy(dtype=object)[kept]).all()
    # (40, 1) is unique; age has more distinct values, so it goes first: (NA, 1) matches 3 rows
    assert out["age"].isna().tolist() == [False, False, True, False, False]
    assert out["zip"].isna().tolist() == [False, True, False, False, False]
    assert wildcard_k(out, ["age", "zip"]) >= 2


def test_local_suppression_missing_cells_already_are_wildcards():
    # (_, 1) matches every row: the blank makes the table 3-anonymous with nothing suppressed,
    # although with missing as a value it is a class of one
    df = pd.DataFrame({"sex": ["F", "F", None], "zip": ["1", "1", "1"]})
    out = df.anon.local_suppression(3, quasi_identifiers=["sex", "zip"], row_order="input")
    info = out.anon.info
    assert info["cells_suppressed"] == 0 and info["k_anonymity"] == 3
    assert info["k_anonymity_value"] == 1 and info["missing"] == "wildcard"
    # (M, _) matches only rows with sex M: its sex goes, its blank zip stays blank
    df = pd.DataFrame({"sex": ["F", "F", "M"], "zip": ["1", "1", None]})
    out = df.anon.local_suppression(2, quasi_identifiers=["sex", "zip"], row_order="input")
    assert out["sex"].isna().tolist() == [False, False, True]
    assert out["zip"].isna().tolist() == [False, False, True]
    assert out.anon.info["cells_suppressed"] == 1 and out.anon.info["k_anonymity"] == 3
    assert out.anon.info["k_anonymity_value"] == 1


def test_local_suppression_nothing_to_do():
    df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": [1, 1, 2, 2]})
    out = df.anon.local_suppression(2, quasi_identifiers=["a", "b"], row_order="input")
    assert out.equals(df) and out.anon.info["cells_suppressed"] == 0


@given(st.lists(st.tuples(st.one_of(st.none(), st.sampled_from("abc")),
                          st.one_of(st.none(), st.integers(0, 3)),
                          st.sampled_from("xyz")), min_size=1, max_size=25),
       st.integers(1, 4))
@settings(max_examples=80, deadline=None)
def test_local_suppression_properties(rows, k):
    df = pd.DataFrame(rows, columns=["a", "b", "c"]).astype({"b": "Float64"})
    df["other"] = range(len(df))
    roles = dict(quasi_identifiers=["a", "b", "c"], insensitive=["other"])
    if len(df) < k:
        with pytest.raises(InfeasibleError):
            df.anon.local_suppression(k, **roles, row_order="input")
        return
    out = df.anon.local_suppression(k, **roles, row_order="input")
    assert wildcard_k(out, "abc") >= k
    assert out["other"].tolist() == df["other"].tolist()
    was_na, now_na = df[list("abc")].isna().to_numpy(), out[list("abc")].isna().to_numpy()
    assert (now_na | ~was_na).all() and (now_na >= was_na).all()
    kept = ~now_na
    assert (df[list("abc")].to_numpy()[kept] == out[list("abc")].to_numpy()[kept]).all()
    assert out.anon.info["cells_suppressed"] == int((now_na & ~was_na).sum())
    if k == 1:
        assert out.anon.info["cells_suppressed"] == 0


def test_local_suppression_5000_rows_prefers_unimportant_columns():
    rng = np.random.default_rng(8)
    n = 5_000
    df = pd.DataFrame({"region": rng.choice(list("NSEW"), n),
                       "age": rng.integers(18, 90, n),
                       "job": rng.choice([f"j{i}" for i in range(30)], n)})
    cols = ["region", "age", "job"]
    assert wildcard_k(df, cols) < 3
    out = df.anon.local_suppression(3, importance=["age", "region", "job"],
                                    quasi_identifiers=cols)
    info = out.anon.info
    assert wildcard_k(out, cols) == info["k_anonymity"] >= 3
    # every unsafe row is made safe by its least important cell alone: one cell per row
    unsafe = int((df.anon.frequencies(quasi_identifiers=cols) < 3).sum())
    assert info["cells_suppressed_per_column"] == {"region": 0, "age": 0, "job": unsafe}
    assert info["rows_changed"] == info["cells_suppressed"] == unsafe


def test_local_suppression_errors():
    df = pd.DataFrame({"a": ["x", "y"], "b": ["u", "v"]})
    roles = dict(quasi_identifiers=["a", "b"])
    with pytest.raises(InvalidInputError, match="k must be"):
        df.anon.local_suppression(0, **roles)
    with pytest.raises(InfeasibleError, match="at least k rows"):
        df.anon.local_suppression(3, **roles)
    with pytest.raises(InvalidInputError, match="every quasi-identifier"):
        df.anon.local_suppression(2, importance=["a"], **roles)
    with pytest.raises(InvalidInputError, match="every quasi-identifier"):
        df.anon.local_suppression(2, importance={"a": 1, "zz": 2}, **roles)


def test_rank_swap_r0_and_k0_derive_the_range_as_sdcmicro():
    """R0 and K0 give sdcMicro's rank range (RankSwapping.h): P = sqrt(2 var (1 - R0)) / delta
    and P = sqrt(8/3) K0 |mean| / delta, delta between the tails' inner bounds."""
    values = np.array([float(v) for v in range(1, 201)])
    df = pd.DataFrame({"x": values})
    out = df.anon.rank_swap("x", r0=0.95, top_percent=5, bottom_percent=5, seed=1,
                            insensitive=[])
    info = out.anon.info["columns"]["x"]
    middle = values[10:190]
    delta = abs(values[189 + 1] - values[9])  # smallest top-coded 191, largest bottom-coded 10
    expected = 100 * np.sqrt(2 * middle.var() * 0.05) / delta
    assert info["r0"] == 0.95 and info["p"] == pytest.approx(expected)
    assert info["max_rank_distance"] == int(np.floor(expected * 180 / 100))
    k = df.anon.rank_swap("x", k0=0.1, seed=1, insensitive=[]).anon.info["columns"]["x"]
    assert k["p"] == pytest.approx(100 * np.sqrt(8 / 3) * 0.1 * values.mean() / 199)
    with pytest.raises(InvalidInputError, match="not p and r0"):
        df.anon.rank_swap("x", p=5, r0=0.9, insensitive=[])
    with pytest.raises(InvalidInputError, match=r"r0 must be a number \[0, 1\]"):
        df.anon.rank_swap("x", r0=1.5, insensitive=[])
