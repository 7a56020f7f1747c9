"""Tests of microaggregation: pdanon.perturb.mdav (the groupings), pdanon.perturb.microaggregation
(the frame) and df.anon.microaggregate.

The fast MDAV / V-MDAV are compared group for group with naive references written here from
the algorithms' definitions: Python lists of remaining rows, full sorts by (distance,
position), ``math.fsum`` centroids.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import warnings

import pdanon  # noqa: F401  (registers df.anon)
from pdanon import metrics
from pdanon._errors import InfeasibleError, InvalidInputError, KindError
from pdanon.perturb import mdav as M
from pdanon.perturb.microaggregation import information_loss, microaggregate_frame, strata

# ----------------------------------------------------------------------------- naive references


class Naive:
    """Distances and choices exactly as documented, one row list at a time."""

    def __init__(self, num, cat):
        self.X = np.asarray(num, dtype=np.float64).T.copy()  # n x m
        self.C = np.asarray(cat, dtype=np.int64).T.copy()  # n x u
        self.n = self.X.shape[0] if self.X.shape[1] else self.C.shape[0]

    def dist(self, p, pc, rows):
        rows = np.asarray(rows, dtype=np.int64)
        d = np.zeros(len(rows))
        for j in range(self.X.shape[1]):
            diff = self.X[rows, j] - p[j]
            d = d + diff * diff
        for j in range(self.C.shape[1]):
            d = d + M.MISMATCH * (self.C[rows, j] != pc[j])
        return d

    def row(self, i):
        return self.X[i], self.C[i]

    def centroid(self, rows):
        means = [math.fsum(self.X[rows, j].tolist()) / len(rows) for j in range(self.X.shape[1])]
        modes = []
        for j in range(self.C.shape[1]):
            counts = Counter(self.C[rows, j].tolist())
            modes.append(min(counts, key=lambda c: (-counts[c], c)))
        return np.array(means), np.array(modes, dtype=np.int64)

    def farthest(self, p, pc, rows):
        d = self.dist(p, pc, rows)
        rows = np.asarray(rows)
        return int(rows[np.lexsort((rows, -d))[0]])  # full sort by (-distance, position)

    def seed_group(self, seed, pool, count):
        others = np.array([i for i in pool if i != seed], dtype=np.int64)
        d = self.dist(*self.row(seed), others)
        order = np.lexsort((others, d))  # full sort by (distance, position)
        return [seed] + others[order[: count - 1]].tolist()


def naive_mdav(num, cat, k):
    nv = Naive(num, cat)
    rem = list(range(nv.n))
    groups = []
    while len(rem) >= 3 * k:
        r = nv.farthest(*nv.centroid(rem), rem)
        a = nv.seed_group(r, rem, k)
        taken = set(a)
        rest = [i for i in rem if i not in taken]
        s = nv.farthest(*nv.row(r), rest)
        b = nv.seed_group(s, rest, k)
        groups += [a, b]
        taken = set(b)
        rem = [i for i in rest if i not in taken]
    if len(rem) >= 2 * k:
        r = nv.farthest(*nv.centroid(rem), rem)
        a = nv.seed_group(r, rem, k)
        groups += [a, [i for i in rem if i not in set(a)]]
    elif rem:
        groups.append(rem)
    return _labels(groups, nv.n)


def naive_vmdav(num, cat, k, gamma):
    nv = Naive(num, cat)
    rem = list(range(nv.n))
    groups = []
    while len(rem) >= k:
        e = nv.farthest(*nv.centroid(rem), rem)
        g = nv.seed_group(e, rem, k)
        while len(g) < 2 * k - 1 and len(g) < len(rem):
            out = [i for i in rem if i not in set(g)]
            to_group = np.min([nv.dist(*nv.row(m), out) for m in g], axis=0)
            t = min(range(len(out)), key=lambda t: (to_group[t], out[t]))
            e_in, d_in = out[t], to_group[t]
            others = [i for i in out if i != e_in]
            d_out = nv.dist(*nv.row(e_in), others).min() if others else np.inf
            if not d_in < gamma**2 * d_out:
                break
            g.append(e_in)
        groups.append(g)
        rem = [i for i in rem if i not in set(g)]
    labels = _labels(groups, nv.n)
    for i in sorted(rem):  # leftovers join the group of nearest centroid
        best = None
        for gi, g in enumerate(groups):
            means = np.array([sum(nv.X[g, j].tolist()) / len(g) for j in range(nv.X.shape[1])])
            modes = np.array([min(set(nv.C[g, j].tolist()),
                                  key=lambda c, col=nv.C[g, j].tolist(): (-col.count(c), c))
                              for j in range(nv.C.shape[1])], dtype=np.int64)
            d = nv.dist(means, modes, [i])[0]
            if best is None or d < best[0]:
                best = (d, gi)
        labels[i] = best[1]
    return labels


def _labels(groups, n):
    labels = np.full(n, -1, dtype=np.int64)
    for g, rows in enumerate(groups):
        labels[rows] = g
    return labels


def _space(df, real=(), unordered=()):
    """z-scores and codes as microaggregate_frame builds them (complete columns)."""
    num = []
    for c in real:
        v = df[c].to_numpy(np.float64)
        num.append((v - v.mean()) / v.std() if v.std() > 0 else np.zeros(len(v)))
    cat = [pd.factorize(df[c])[0] for c in unordered]
    n = len(df)
    return np.array(num).reshape(len(num), n), np.array(cat, dtype=np.int64).reshape(len(cat), n)


# ----------------------------------------------------------------------------- exact MDAV


def both_paths(num, cat, k):
    """mdav_groups through its compact small-table path and through its large-table path
    (the sampled bounds, the centroid shortcut, the far-group search), which must agree."""
    saved = M.SMALL_ROWS
    try:
        M.SMALL_ROWS = 10**9
        small = M.mdav_groups(num, cat, k)
        M.SMALL_ROWS = 0
        large = M.mdav_groups(num, cat, k)
    finally:
        M.SMALL_ROWS = saved
    assert np.array_equal(small, large)
    return small


def test_exact_limb_sums_give_fsum_means_and_refuse_wide_exponents():
    rng = np.random.default_rng(5)
    num = rng.normal(size=(3, 400)) * 10.0 ** rng.integers(-12, 12, size=(3, 400))
    num[1, ::4] = 0.0
    limbs = M._Limbs(num)
    assert limbs.ok and limbs.L >= 3
    rows = rng.choice(400, size=173, replace=False)
    sums = limbs.combine(limbs.limbs[:, rows].sum(axis=1))
    for j in range(3):
        want = math.fsum(num[j, rows].tolist())
        assert math.ldexp(float(sums[j]), limbs.e0[j]) == want
    assert not M._Limbs(np.array([[1e-200, 1.0, 1e200]])).ok  # too many limbs: slow path
    big = M._Limbs(np.array([[3e300, -2e300, 0.0, 1e300]]))  # exponents near 1000: 2 limbs
    assert big.ok and big.L == 2 and big.e0 == [997 - 53]
    wide = np.array([[1e-150, 0.5, 1e150, -3.0, 7.0, 2.0, 1e-140]])
    assert np.array_equal(both_paths(wide, np.zeros((0, 7), np.int64), 2),
                          naive_mdav(wide, np.zeros((0, 7), np.int64), 2))


@pytest.mark.slow
def test_mdav_matches_the_naive_reference_group_for_group_on_10000_rows():
    rng = np.random.default_rng(17)
    num = rng.normal(size=(4, 10_000)) * [[1.0], [3.0], [0.5], [10.0]]
    num[1] = np.round(num[1])  # ties in one column
    cat = np.zeros((0, 10_000), dtype=np.int64)
    fast = M.mdav_groups(num, cat, 5)
    assert np.array_equal(fast, naive_mdav(num, cat, 5))
    sizes = np.bincount(fast)
    assert sizes.min() == 5 and sizes.max() <= 9 and (sizes[:-1] == 5).all()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 60), k=st.integers(1, 6), seed=st.integers(0, 10**6),
       levels=st.integers(1, 4), m=st.integers(0, 3), u=st.integers(0, 2))
def test_mdav_and_vmdav_match_the_references_on_tied_data(n, k, seed, levels, m, u):
    """Few distinct values (many exact ties), unordered columns, every size from k upwards."""
    if m + u == 0:
        m = 1
    k = min(k, n)
    rng = np.random.default_rng(seed)
    num = rng.integers(0, levels, size=(m, n)).astype(np.float64) * 0.7
    cat = rng.integers(0, levels, size=(u, n))
    fast = both_paths(num, cat, k)
    assert np.array_equal(fast, naive_mdav(num, cat, k))
    for gamma in (0.2, 1.1):
        v = M.vmdav_groups(num, cat, k, gamma)
        assert np.array_equal(v, naive_vmdav(num, cat, k, gamma))
        assert np.bincount(v).min() >= k


@settings(max_examples=20, deadline=None)
@given(n=st.integers(200, 1500), k=st.integers(2, 7), seed=st.integers(0, 10**6))
def test_mdav_matches_the_reference_on_larger_continuous_tables(n, k, seed):
    # large enough for the sampled bounds in nearest() and far_group() to be used
    rng = np.random.default_rng(seed)
    num = rng.standard_t(3, size=(3, n))
    cat = np.zeros((0, n), dtype=np.int64)
    assert np.array_equal(both_paths(num, cat, k), naive_mdav(num, cat, k))


def test_mdav_on_duplicated_rows_keeps_the_seed_in_its_group():
    num = np.zeros((1, 7))
    labels = M.mdav_groups(num, np.zeros((0, 7), np.int64), 2)
    # all rows equal: r = position 0, its group {0, 1}; s = position 2, {2, 3}; then 3 rows
    assert labels.tolist() == [0, 0, 1, 1, 2, 2, 2]


def test_exact_sum_is_exact():
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.normal(size=1000) * 10.0 ** rng.integers(-300, 300, 1000),
                             [5e-324, -5e-324, 0.0, 1e308, -1e308]])
    from fractions import Fraction

    exact = sum(Fraction(v) for v in values.tolist())
    assert M.exact_sum(values) == exact * 2**1074


# ----------------------------------------------------------------------------- the frame


def test_hand_checked_frame():
    df = pd.DataFrame({
        "age": [20, 21, 22, 40, 41, 45, 90],
        "edu": pd.Categorical(["hs", "hs", "ba", "ba", "ms", "ms", "phd"],
                              categories=["hs", "ba", "ms", "phd"], ordered=True),
        "sex": ["F", "M", "M", "F", "F", "M", "F"],
        "other": list("abcdefg"),
    })
    out, info = microaggregate_frame(df, {"age": "real", "edu": "ordered", "sex": "unordered"}, 3)
    # z-scores: age (-0.87, -0.83, -0.79, 0.01, 0.05, 0.23, 2.21), edu mid-ranks (0.5, 0.5,
    # 2.5, 2.5, 4.5, 4.5, 6) -> (-1.28, -1.28, -0.26, -0.26, 0.77, 0.77, 1.54); sex F=0, M=1.
    # 7 rows = 2k..3k-1: r = row 6 (7.25 from the centroid (0, 0, F)); its nearest: row 4
    # (5.25) and row 5 (6.52, a sex mismatch adds 2); rows 0-3 form the last group
    assert out["age"].tolist() == [25.75] * 4 + [176 / 3] * 3
    # edu medians: sorted [hs, hs, ba, ba] -> position 2 -> ba; [ms, ms, phd] -> position 1
    assert out["edu"].tolist() == ["ba"] * 4 + ["ms"] * 3
    assert out["edu"].dtype == df["edu"].dtype
    # sex modes: {F, M, M, F} ties -> F (met first); {F, M, F} -> F
    assert out["sex"].tolist() == ["F"] * 7
    assert out["other"].tolist() == list("abcdefg")
    assert info["groups"] == 2 and info["group_sizes"] == {"min": 3, "max": 4}
    assert info["k_anonymity"] == 3
    assert info["changed_cells"] == 7 + 3 + 3  # every age; hs->ba x2, phd->ms; M->F x3


def test_unordered_mode_ties_go_to_the_value_met_first():
    df = pd.DataFrame({"x": [0.0, 0.0, 0.0, 0.0], "c": ["b", "a", "a", "b"]})
    out, _ = microaggregate_frame(df, {"x": "real", "c": "unordered"}, 4)
    assert out["c"].tolist() == ["b"] * 4


def test_missing_values_stay_missing_and_group_values_use_present_cells():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0, np.nan, np.nan, 10.0, 11.0],
                       "b": [5.0, 6.0, 7.0, 1.0, 2.0, 8.0, 9.0]})
    out, info = microaggregate_frame(df, {"a": "real", "b": "real"}, 2)
    # pattern "a missing" (rows 3, 4) has 2 rows: its own stratum, grouped on b only
    assert pd.isna(out["a"]).tolist() == [False, False, False, True, True, False, False]
    assert out.loc[[3, 4], "b"].tolist() == [1.5, 1.5]
    assert info["strata"] == 2
    assert info["k_anonymity"] == 2
    assert not out["a"].isna()[[0, 1, 2, 5, 6]].any()


def test_rare_missingness_patterns_are_pooled_and_missing_cells_never_filled():
    df = pd.DataFrame({"a": [1.0, 2.0, np.nan, 4.0, 5.0, 6.0],
                       "b": [1.0, np.nan, 3.0, 4.0, 5.0, 6.0]})
    out, info = microaggregate_frame(df, {"a": "real", "b": "real"}, 3)
    assert pd.isna(out["a"]).tolist() == pd.isna(df["a"]).tolist()
    assert pd.isna(out["b"]).tolist() == pd.isna(df["b"]).tolist()
    # two single-row patterns (< k) join the 4 complete rows: one stratum, where a missing
    # z-score counts as 0. 6 rows = 2k: r = row 0 (farthest from the centroid), with rows 1
    # and 2 (distances 2.94 and 3.32); rows 3-5 form the other group.
    assert info["strata"] == 1 and info["group_sizes"] == {"min": 3, "max": 3}
    assert out["a"].tolist()[:2] == [1.5, 1.5] and out["a"].tolist()[3:] == [5.0] * 3
    assert out["b"].tolist()[0] == 2.0 and out["b"].tolist()[2:] == [2.0] + [5.0] * 3
    # the published combinations differ inside the first group: k-anonymity says so
    assert info["k_anonymity"] == 1


def _groups_of(out):
    """Published rows as tuples (complete rows: one tuple per group)."""
    return [tuple(r) for r in out.itertuples(index=False)]


def test_strata_rule():
    m = np.array([[0, 0], [1, 0], [0, 0], [0, 1], [1, 0], [0, 0]], dtype=bool)
    assert [s.tolist() for s in strata(m, 2)] == [[0, 2, 3, 5], [1, 4]]  # 3 joins the largest
    assert [s.tolist() for s in strata(m, 1)] == [[0, 2, 5], [1, 4], [3]]
    assert [s.tolist() for s in strata(m, 3)] == [[0, 2, 5], [1, 3, 4]]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 40), k=st.integers(1, 5), seed=st.integers(0, 10**6),
       p=st.floats(0, 0.6), complete=st.booleans())
def test_missing_cells_property(n, k, seed, p, complete):
    # complete: no missing cell, so info["k_anonymity"] comes from the groups' values; it
    # must equal the smallest class of the published frame (equal groups merge) either way
    k, p = min(k, n), 0.0 if complete else p
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 5, n).astype(float)
    a[rng.random(n) < p] = np.nan
    s = pd.Series(rng.choice(["x", "y"] if complete else ["x", "y", None], n), dtype=object)
    df = pd.DataFrame({"a": a, "s": s, "o": pd.array(rng.integers(0, 3, n), dtype="Int64")})
    df.loc[rng.random(n) < p, "o"] = pd.NA
    before = df.copy()
    out, info = microaggregate_frame(df, {"a": "real", "s": "unordered", "o": "ordered"}, k)
    pd.testing.assert_frame_equal(df, before)
    for c in df.columns:
        assert pd.isna(out[c]).tolist() == pd.isna(df[c]).tolist()
    assert info["group_sizes"]["min"] >= k
    assert info["k_anonymity"] == metrics.k_anonymity(out, ["a", "s", "o"])
    assert out["o"].dtype == "Int64"


def test_groups_publishing_the_same_values_form_one_class():
    df = pd.DataFrame({"a": [4.0] * 6 + [9.0, 9.5, 10.0]})
    out, info = microaggregate_frame(df, {"a": "real"}, 3)
    assert info["groups"] == 3 and info["group_sizes"] == {"min": 3, "max": 3}
    assert out["a"].tolist() == [4.0] * 6 + [9.5] * 3
    assert info["k_anonymity"] == 3  # the classes: six rows of 4.0, three of 9.5
    out, info = microaggregate_frame(df.iloc[:6], {"a": "real"}, 3)
    assert info["groups"] == 2 and info["k_anonymity"] == 6


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 4), n=st.integers(0, 40), seed=st.integers(0, 10**6),
       decimals=st.integers(0, 3))
def test_row_wise_il1s_and_mean_sd_equal_the_per_column_figures_bit_for_bit(rows, n, seed,
                                                                             decimals):
    from pdanon.losses import il1s_column, il1s_rows, mean_sd, mean_sd_rows

    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(0, 1, (rows, n)) * 10.0 ** rng.integers(-3, 4, (rows, 1)), decimals)
    x[0] = x[0, :1] if n else x[0]  # a constant row
    y = x + np.round(rng.normal(0, 1, (rows, n)), 1) * (rng.random((rows, 1)) < 0.7)
    got = il1s_rows(x, y)
    for j in range(rows):
        assert got[j] == il1s_column(x[j], y[j])[0]
    if n:
        mean, sd = mean_sd_rows(x)
        for j in range(rows):
            assert (mean[j], sd[j]) == mean_sd(x[j])


def test_nullable_integers_become_nullable_floats():
    df = pd.DataFrame({"a": pd.array([1, 2, None, 4], dtype="Int64")})
    out, _ = microaggregate_frame(df, {"a": "real"}, 1)
    assert out["a"].dtype == "Float64"
    assert out["a"].tolist()[:2] == [1.0, 2.0] and out["a"].isna().tolist()[2]


def test_k_1_changes_nothing():
    df = pd.DataFrame({"a": [3.0, 1.0, 2.0], "b": ["x", "y", "x"]})
    out, info = microaggregate_frame(df, {"a": "real", "b": "unordered"}, 1)
    assert out["a"].tolist() == [3.0, 1.0, 2.0] and out["b"].tolist() == ["x", "y", "x"]
    assert info["changed_cells"] == 0 and info["sse_sst"] == 0.0 and info["il1s"] == 0.0


def test_information_loss_against_the_formulas():
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"a": rng.normal(size=200), "b": rng.exponential(size=200)})
    out, info = microaggregate_frame(df, {"a": "real", "b": "real"}, 4)
    sse = sum(((df[c] - out[c]) ** 2).sum() / df[c].var(ddof=0) for c in "ab")
    sst = sum(((df[c] - df[c].mean()) ** 2).sum() / df[c].var(ddof=0) for c in "ab")
    il1s = sum((df[c] - out[c]).abs().sum() / (math.sqrt(2) * df[c].std()) for c in "ab") / 400
    assert info["sse_sst"] == pytest.approx(sse / sst, rel=1e-12)
    assert info["il1s"] == pytest.approx(il1s, rel=1e-12)
    assert 0 < info["sse_sst"] < 0.2


def test_information_loss_skips_missing_and_constant_columns():
    v = np.array([1.0, np.nan, 1.0])
    assert information_loss({"c": (v, v)}) == {"sse": 0.0, "sst": 0.0, "sse_sst": 0.0,
                                                "il1s": 0.0}


def test_same_input_same_output():
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.integers(0, 4, size=(300, 3)), columns=list("abc"))
    one, _ = microaggregate_frame(df, dict.fromkeys("abc", "real"), 3)
    two, _ = microaggregate_frame(df, dict.fromkeys("abc", "real"), 3)
    pd.testing.assert_frame_equal(one, two)


# ----------------------------------------------------------------------------- blocks


def test_blocks_group_within_median_cut_blocks():
    rng = np.random.default_rng(2)
    df = pd.DataFrame(rng.normal(size=(2000, 3)), columns=list("xyz"))
    kinds = dict.fromkeys("xyz", "real")
    out, info = microaggregate_frame(df, kinds, 5, block_size=300)
    exact, exact_info = microaggregate_frame(df, kinds, 5, block_size=None)
    assert info["blocks"] == 8 and exact_info["blocks"] == 1 and info["block_rows"] == 300
    assert info["group_sizes"]["min"] >= 5 and info["k_anonymity"] >= 5
    # the blocks of block_rows, then exact MDAV inside each: the same groups
    num, cat = _space(df, real="xyz")
    blocks = M.block_rows(num, 300)
    assert sorted(len(b) for b in blocks) == [250] * 8
    labels = _groups_of(out[list("xyz")])
    for rows in blocks:
        expect = M.mdav_groups(num[:, rows], cat[:, rows], 5)
        got = pd.factorize(pd.Series([labels[i] for i in rows]))[0]
        assert np.array_equal(pd.factorize(pd.Series(expect))[0], got)
    assert info["sse_sst"] <= exact_info["sse_sst"] * 1.25


def test_auto_blocks_only_above_the_documented_size(monkeypatch):
    from pdanon.perturb import microaggregation as MA

    df = pd.DataFrame({"x": np.arange(100.0)})
    monkeypatch.setattr(MA, "AUTO_EXACT_ROWS", 50)
    monkeypatch.setattr(MA, "AUTO_BLOCK_ROWS", 20)
    _, info = microaggregate_frame(df, {"x": "real"}, 3)
    assert info["blocks"] == 8 and info["block_rows"] == 20
    _, info = microaggregate_frame(df, {"x": "real"}, 3, block_size=None)
    assert info["blocks"] == 1 and info["block_rows"] is None


# ----------------------------------------------------------------------------- V-MDAV


def test_vmdav_frame():
    df = pd.DataFrame({"x": [0.0, 1.0, 10.0, 11.0, 12.0, 13.0]})
    out, info = microaggregate_frame(df, {"x": "real"}, 2, method="vmdav", gamma=1.1)
    assert out["x"].tolist() == [0.5, 0.5, 11.5, 11.5, 11.5, 11.5]
    assert info["method"] == "vmdav" and info["gamma"] == 1.1
    _, info = microaggregate_frame(df, {"x": "real"}, 2, method="vmdav")
    assert info["gamma"] == 0.2 and info["groups"] == 3


# ----------------------------------------------------------------------------- accessor


def test_accessor_roles_identifiers_and_input_unchanged():
    df = pd.DataFrame({"id": ["a", "b", "c", "d"], "age": [30, 32, 50, 54],
                       "disease": ["x", "y", "x", "z"]})
    before = df.copy()
    out = df.anon.microaggregate(2, identifiers=["id"], quasi_identifiers=["age"],
                                 sensitive=["disease"], row_order="input")
    pd.testing.assert_frame_equal(df, before)
    assert list(out.columns) == ["age", "disease"]
    assert out["age"].tolist() == [31.0, 31.0, 52.0, 52.0]
    assert out["disease"].tolist() == ["x", "y", "x", "z"]
    info = out.anon.info
    assert info["operation"] == "microaggregate" and info["identifiers_dropped"] == ["id"]
    assert out.anon.roles().quasi_identifiers == {"age": "real"}
    kept = df.anon.microaggregate(2, identifiers=["id"], quasi_identifiers=["age"],
                                  keep_identifiers=True, row_order="input")
    assert kept["id"].tolist() == ["a", "b", "c", "d"]


def test_accessor_errors():
    df = pd.DataFrame({"id": ["a", "b", "c"], "age": [30, 31, 32],
                       "when": pd.to_datetime(["2020-01-01", "2021-01-01", "2022-01-01"])})
    roles = {"identifiers": ["id"], "quasi_identifiers": ["age"]}
    with pytest.raises(InvalidInputError, match="identifiers"):
        df.anon.microaggregate(2, columns=["id"], **roles)
    for bad in (0, True, 2.0):
        with pytest.raises(InvalidInputError, match="k must be"):
            df.anon.microaggregate(bad, **roles)
    with pytest.raises(InfeasibleError, match="k=4"):
        df.anon.microaggregate(4, **roles)
    with pytest.raises(InvalidInputError, match="method"):
        df.anon.microaggregate(2, method="mdv", **roles)
    with pytest.raises(InvalidInputError, match="vmdav"):
        df.anon.microaggregate(2, gamma=0.5, **roles)
    with pytest.raises(InvalidInputError, match="gamma"):
        df.anon.microaggregate(2, method="vmdav", gamma=0, **roles)
    with pytest.raises(InvalidInputError, match="block_size"):
        df.anon.microaggregate(2, block_size=3, **roles)
    with pytest.raises(KindError, match="'when'"):
        df.anon.microaggregate(2, identifiers=["id"], quasi_identifiers={"when": "real"})
    with pytest.raises(InvalidInputError, match="infinite"):
        pd.DataFrame({"x": [1.0, np.inf]}).anon.microaggregate(1)
    generalized = pd.DataFrame({"age": [30, 31, 40, 41]}).anon.k_anonymize(2)
    with pytest.raises(KindError, match="generalized"):
        generalized.anon.microaggregate(2)


def test_accessor_dates_are_ordered_and_publish_medians():
    df = pd.DataFrame({"when": pd.to_datetime(["2020-01-01", "2020-01-03", "2020-01-02",
                                               "2024-01-01"])})
    out = df.anon.microaggregate(2, quasi_identifiers=["when"], row_order="input")
    assert out["when"].dtype == df["when"].dtype
    # ranks 0, 2, 1, 3; r = row 0 (tied with row 3, lower position) with row 2; medians are
    # the element at position 1 of each sorted group
    assert out["when"].dt.strftime("%Y-%m-%d").tolist() == [
        "2020-01-02", "2024-01-01", "2020-01-02", "2024-01-01"]


def test_empty_frame():
    df = pd.DataFrame({"a": pd.Series([], dtype=float)})
    out, info = microaggregate_frame(df, {"a": "real"}, 3)
    assert out.empty and info["groups"] == 0


def test_metrics_microaggregation_loss_equals_info():
    rng = np.random.default_rng(9)
    df = pd.DataFrame({
        "a": rng.normal(size=120),
        "o": pd.Categorical(rng.choice(["lo", "mid", "hi"], 120), categories=["lo", "mid", "hi"],
                            ordered=True),
        "u": rng.choice(["x", "y"], 120),
    })
    df.loc[:5, "a"] = np.nan
    out = df.anon.microaggregate(4)
    loss = metrics.microaggregation_loss(df, out, {"a": "real", "o": "ordered", "u": "unordered"})
    info = out.anon.info
    for key in ("sse", "sst", "sse_sst", "il1s"):
        assert loss[key] == pytest.approx(info[key], rel=1e-12)
    with pytest.raises(KindError, match="not in the original"):
        metrics.microaggregation_loss(pd.DataFrame({"o": ["a", "b"]}),
                                      pd.DataFrame({"o": ["a", "z"]}), {"o": "ordered"})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mdav_matches_the_reference_on_larger_tied_tables(seed):
    # sampled bounds, the centroid shortcut and the far-group search, with many exact ties
    rng = np.random.default_rng(seed)
    n, k = 900, 3
    num = rng.integers(0, 5, size=(2, n)).astype(np.float64)
    num[1] *= 0.3
    cat = np.zeros((0, n), dtype=np.int64)
    assert np.array_equal(both_paths(num, cat, k), naive_mdav(num, cat, k))
    mixed = rng.integers(0, 3, size=(1, n))
    assert np.array_equal(both_paths(num, mixed, k), naive_mdav(num, mixed, k))


def test_info_k_covers_the_declared_quasi_identifiers_and_a_left_one_is_named():
    # age is microaggregated, zip is a declared quasi-identifier left as it was: zip "z9" is
    # held by one row, so the release is 1-anonymous on the quasi-identifiers whatever the age
    # groups are (info said 5, check() said 1)
    df = pd.DataFrame({"age": [20, 21, 22, 23, 24, 60, 61, 62, 63, 64],
                       "zip": ["z1"] * 9 + ["z9"], "dx": list("abcdeabcde")})
    with pytest.warns(pdanon.RoleWarning, match=r"\['zip'\] were published as they were"):
        out = df.anon.microaggregate(5, columns=["age"], row_order="input",
                                     quasi_identifiers={"age": "real", "zip": "unordered"},
                                     sensitive=["dx"])
    info = out.anon.info
    assert info["k_microaggregated"] == 5 and info["k_anonymity"] == 1
    assert info["k_columns"] == ["age", "zip"] and info["quasi_identifiers_left"] == ["zip"]
    assert out.anon.check().criteria.set_index("criterion").loc["k_anonymity", "measured"] == 1
    # every declared quasi-identifier microaggregated: the figures agree, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", pdanon.RoleWarning)
        both = df.anon.microaggregate(5, quasi_identifiers={"age": "real", "zip": "unordered"},
                                      sensitive=["dx"])
    assert both.anon.info["k_anonymity"] == both.anon.info["k_microaggregated"] == 5
    assert "quasi_identifiers_left" not in both.anon.info
