"""Utility of perturbed data (pdanon.metrics.perturbation): hand-checked values, properties,
missing cells, errors and the rows of metrics_table."""

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon  # noqa: F401  (the accessor)
from pdanon import metrics
from pdanon._errors import InvalidInputError, KindError, UnknownColumnError
from pdanon.metrics.perturbation import (
    NUMERIC_KEYS, _canonical_rows, _row_hash, pairwise_covariance)

S4 = math.sqrt(20 / 3)        # sample sd of 1, 3, 5, 7
ORIG = pd.DataFrame({"x": [1.0, 3.0, 5.0, 7.0]})
MICRO = pd.DataFrame({"x": [2.0, 2.0, 6.0, 6.0]})     # pairs (1, 3) and (5, 7) averaged


def same(a, b) -> bool:
    """Equal floats, NaN equal to NaN: the figures must match exactly, not approximately."""
    return a == b or (math.isnan(a) and math.isnan(b))


# --------------------------------------------------------------------------- hand-checked


def test_il1s_hand_checked():
    # |d| = 1 in every cell: 1 / (sqrt(2) * S) = sqrt(3 / 40)
    assert metrics.il1s(ORIG, MICRO) == pytest.approx(math.sqrt(3 / 40))
    # missing cells: rows 0 and 3 are present in both; S = sd(1, 5) = sqrt(8); Σ|d| = 1
    o = pd.DataFrame({"x": [1.0, 3.0, np.nan, 5.0]})
    p = pd.DataFrame({"x": [2.0, np.nan, 4.0, 5.0]})
    assert metrics.il1s(o, p) == pytest.approx(1 / (math.sqrt(2) * math.sqrt(8)) / 2)
    assert metrics.il1s(o, p, per_column=True).to_dict() == {"x": pytest.approx(0.125)}


def test_il1s_is_the_mean_over_cells_of_all_columns():
    o = pd.DataFrame({"x": [1.0, 3.0, 5.0, 7.0], "y": [0.0, 0.0, 1.0, 1.0]})
    p = pd.DataFrame({"x": [2.0, 2.0, 6.0, 6.0], "y": [0.0, 0.0, 1.0, 2.0]})
    sy = math.sqrt(1 / 3)
    expected = (4 / (math.sqrt(2) * S4) + 1 / (math.sqrt(2) * sy)) / 8
    assert metrics.il1s(o, p) == pytest.approx(expected)


def test_il1s_matches_microaggregation_info():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.normal(0, 1, 60), "b": rng.lognormal(2, 1, 60)})
    out = df.anon.microaggregate(3, quasi_identifiers=["a", "b"])
    assert metrics.il1s(df, out) == pytest.approx(out.anon.info["il1s"], rel=1e-12)
    assert metrics.microaggregation_loss(df, out, ["a", "b"])["il1s"] == pytest.approx(
        out.anon.info["il1s"], rel=1e-12)


def test_eigenvalue_loss_hand_checked():
    o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 3.0, 2.0, 4.0]})   # r = 0.8
    p = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 2.0, 3.0, 4.0]})   # r = 1
    # eigenvalues (1.8, 0.2) against (2, 0): 0.2 / 1.8 + 0.2 / 0.2
    assert metrics.eigenvalue_loss(o, p) == pytest.approx(10 / 9)
    # the reverse: the original's 0 eigenvalue against 0.2 -> infinite
    assert metrics.eigenvalue_loss(p, o) == math.inf
    # covariance matrices scaled by the original sds: [[1, .8], [.8, 1]] against all ones
    assert metrics.eigenvalue_loss(o, p, matrix="covariance") == pytest.approx(10 / 9)
    assert metrics.eigenvalue_loss(o, o) == 0.0


def test_correlation_and_covariance_difference_hand_checked():
    o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 3.0, 2.0, 4.0]})
    p = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 2.0, 3.0, 4.0]})
    assert metrics.correlation_difference(o, p) == pytest.approx(0.2)
    assert metrics.correlation_difference(o, p, how="mean") == pytest.approx(0.2)
    # scaled covariances [[1, .8], [.8, 1]] -> all ones: sqrt(2 * 0.04) / sqrt(3.28)
    assert metrics.covariance_difference(o, p) == pytest.approx(math.sqrt(1 / 41))
    # one column: variance 5/3 -> 13/3
    assert metrics.covariance_difference(o[["x"]], pd.DataFrame(
        {"x": [0.0, 2.0, 3.0, 5.0]})) == pytest.approx(1.6)


def test_correlation_mean_over_pairs():
    o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 3.0, 2.0, 4.0],
                      "z": [4.0, 3.0, 2.0, 1.0]})
    p = o.assign(y=[1.0, 2.0, 3.0, 4.0])
    # pairs: (x, y) 0.8 -> 1, (x, z) -1 -> -1, (y, z) -0.8 -> -1
    assert metrics.correlation_difference(o, p) == pytest.approx(0.2)
    assert metrics.correlation_difference(o, p, how="mean") == pytest.approx(0.4 / 3)


def test_distribution_changes_hand_checked():
    t = metrics.distribution_changes(ORIG, MICRO)
    row = t.loc["x"]
    assert row["cells"] == 4 and row["mean"] == 4.0 and row["sd"] == pytest.approx(S4)
    assert row["mean_change"] == 0.0
    assert row["sd_change"] == pytest.approx(math.sqrt(0.8) - 1)
    # numpy's linear quantiles of 1, 3, 5, 7: 1.3, 2.5, 4, 5.5, 6.7; of 2, 2, 6, 6: 2, 2, 4, 6, 6
    expected = np.array([0.7, -0.5, 0.0, 0.5, -0.7]) / S4
    got = row[["q05_change", "q25_change", "q50_change", "q75_change", "q95_change"]]
    assert got.to_numpy(dtype=float) == pytest.approx(expected)
    shifted = metrics.distribution_changes(ORIG, ORIG + 2, quantiles=[0.5])
    assert shifted.loc["x", "mean_change"] == pytest.approx(2 / S4)
    assert list(shifted.columns) == ["cells", "mean", "sd", "mean_change", "sd_change",
                                     "q50_change"]


def test_category_share_distance_hand_checked():
    o = pd.DataFrame({"c": ["a", "a", "b", "c"], "d": pd.Categorical(["u", "v", "u", "v"])})
    p = pd.DataFrame({"c": ["a", "b", "b", "b"], "d": pd.Categorical(["v", "u", "v", "u"])})
    assert metrics.category_share_distance(o, p) == 0.5
    per = metrics.category_share_distance(o, p, per_column=True)
    assert per.to_dict() == {"c": 0.5, "d": 0.0}      # d swapped: the shares are kept
    # missing cells: only the cells present in both count (rows 0, 1)
    o2 = pd.DataFrame({"c": ["a", "b", None, "b"]})
    p2 = pd.DataFrame({"c": ["b", "b", "a", None]})
    assert metrics.category_share_distance(o2, p2) == 0.5


def test_summary_and_table_hand_checked():
    o = ORIG.assign(c=["a", "a", "b", "c"], same=[1, 2, 3, 5])
    p = MICRO.assign(c=["a", "b", "b", "b"], same=[1, 2, 3, 5])
    table = metrics.perturbation_utility(o, p)
    assert list(table.index) == ["x", "c"]           # only perturbed columns
    assert table.loc["x", "il1s"] == pytest.approx(math.sqrt(3 / 40))
    assert table.loc["c", "share_distance"] == 0.5 and np.isnan(table.loc["c", "il1s"])
    s = metrics.perturbation_summary(o, p)
    assert list(s.index) == list(NUMERIC_KEYS) + ["category_share_distance"]
    assert s["il1s"] == pytest.approx(math.sqrt(3 / 40))
    assert s["max_mean_change"] == 0.0
    assert s["max_sd_change"] == pytest.approx(1 - math.sqrt(0.8))
    assert s["max_quantile_change"] == pytest.approx(0.7 / S4)
    # the links use every shared numeric column: x with the untouched "same"
    assert s["correlation_difference"] == pytest.approx(
        metrics.correlation_difference(o, p, ["x", "same"]))
    assert s["correlation_difference"] > 0


def test_pairwise_covariance_matches_pandas():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 4))
    x[rng.random((50, 4)) < 0.2] = np.nan
    cov, corr = pairwise_covariance(x)
    frame = pd.DataFrame(x)
    assert cov == pytest.approx(frame.cov().to_numpy(), abs=1e-12)
    assert corr == pytest.approx(frame.corr().to_numpy(), abs=1e-12)


# --------------------------------------------------------------------------- missing, constant


def test_missing_cells_are_masked_in_both_frames():
    o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0], "y": [2.0, 1.0, 4.0, 3.0, 5.0]})
    p = o.copy()
    p.loc[4, "x"] = np.nan                      # a suppressed cell: not a perturbation
    assert metrics.perturbation_summary(o, p).empty
    table = metrics.perturbation_utility(o, p, ["x"])
    assert table.loc["x", ["cells", "suppressed", "filled"]].tolist() == [4, 1, 0]
    assert metrics.il1s(o, p, ["x"]) == 0.0
    assert metrics.correlation_difference(o, p) == 0.0   # both frames without row 4's x


def test_constant_columns():
    o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "k": [5.0, 5.0, 5.0, 5.0]})
    assert metrics.il1s(o, o.assign(k=[5.0, 5.0, 5.0, 6.0]), ["k"]) == math.inf
    assert metrics.il1s(o, o, ["k"]) == 0.0
    # left out of the links (no correlation): x alone
    assert metrics.correlation_difference(o, o.assign(x=[2.0, 1.0, 3.0, 4.0])) == 0.0
    # a column constant in the perturbed frame only: its correlations are undefined
    p = o.assign(x=[2.5] * 4, y=[1.0, 3.0, 2.0, 4.0])
    oy = o.assign(y=[1.0, 3.0, 2.0, 4.0])
    assert math.isnan(metrics.correlation_difference(oy, p))
    assert math.isnan(metrics.eigenvalue_loss(oy, p))
    assert metrics.distribution_changes(oy, p).loc["x", "sd_change"] == -1.0


def test_every_perturbation_keeps_missing_cells_missing():
    rng = np.random.default_rng(5)
    n = 300
    df = pd.DataFrame({"a": rng.normal(50, 10, n), "b": rng.lognormal(3, 1, n).round(2),
                       "c": rng.choice(["x", "y", "z"], n)})
    for col in df:
        df.loc[rng.random(n) < 0.1, col] = None
    cols = ["a", "b"]
    outs = {
        "microaggregate": df.anon.microaggregate(3, quasi_identifiers=cols, row_order="input"),
        "add_noise": df.anon.add_noise(cols, seed=1, quasi_identifiers=cols, row_order="input"),
        "correlated": df.anon.add_noise(cols, method="correlated", seed=1,
                                        quasi_identifiers=cols, row_order="input"),
        "rank_swap": df.anon.rank_swap(cols, p=5, seed=1, quasi_identifiers=cols, row_order="input"),
        "top_code": df.anon.top_code("b", quantile=0.9, quasi_identifiers=cols, row_order="input"),
        "bottom_code": df.anon.bottom_code("a", quantile=0.1, quasi_identifiers=cols, row_order="input"),
        # every column decided: unique-looking columns without a role are refused
        "pram": df.anon.pram("c", seed=1, quasi_identifiers=["c"], insensitive=["a", "b"], row_order="input"),
        "local_suppression": df.anon.local_suppression(3, quasi_identifiers=["a", "c"],
                                                       insensitive=["b"], row_order="input"),
    }
    for name, out in outs.items():
        table = metrics.perturbation_utility(df, out, ["a", "b", "c"])
        assert (table["filled"] == 0).all(), name
        if name != "local_suppression":
            assert (table["suppressed"] == 0).all(), name
        for c in df:
            assert not (df[c].isna().to_numpy() & out[c].notna().to_numpy()).any(), (name, c)


def test_rank_swap_keeps_every_distribution_figure():
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"a": rng.normal(0, 1, 500), "b": rng.normal(0, 1, 500)})
    out = df.anon.rank_swap(["a", "b"], p=10, seed=3, quasi_identifiers=["a", "b"])
    s = metrics.perturbation_summary(df, out)
    for name in ("max_mean_change", "max_sd_change",
                 "max_quantile_change"):
        assert s[name] == pytest.approx(0.0, abs=1e-12)
    assert s["il1s"] > 0


# --------------------------------------------------------------------------- errors


def test_errors():
    o = pd.DataFrame({"x": [1.0, 2.0], "c": ["a", "b"]})
    with pytest.raises(UnknownColumnError, match="'nope'"):
        metrics.il1s(o, o, ["nope"])
    with pytest.raises(KindError, match="column 'c'.*numeric"):
        metrics.il1s(o, o, ["c"])
    with pytest.raises(KindError, match="column 'x'.*categorical"):
        metrics.category_share_distance(o, o, ["x"])
    with pytest.raises(InvalidInputError, match="cannot be matched"):
        metrics.il1s(o, pd.DataFrame({"x": [1.0, 2.0, 3.0]}))
    with pytest.raises(InvalidInputError, match="matrix"):
        metrics.eigenvalue_loss(o, o, matrix="robust")
    with pytest.raises(InvalidInputError, match="how"):
        metrics.correlation_difference(o, o, how="median")
    with pytest.raises(InvalidInputError, match="quantiles"):
        metrics.distribution_changes(o, o, quantiles=[1.5])


def test_inputs_not_mutated_and_rows_matched_by_index():
    o = pd.DataFrame({"x": [1.0, 3.0, 5.0, 7.0]}, index=[10, 11, 12, 13])
    p = pd.DataFrame({"x": [6.0, 6.0, 2.0, 2.0]}, index=[13, 12, 11, 10])
    before = (o.copy(), p.copy())
    assert metrics.il1s(o, p) == pytest.approx(math.sqrt(3 / 40))
    metrics.perturbation_utility(o, p)
    pd.testing.assert_frame_equal(o, before[0])
    pd.testing.assert_frame_equal(p, before[1])


def test_generalized_columns_are_left_out():
    df = pd.DataFrame({"age": [30, 31, 40, 41], "w": [1.0, 2.0, 3.0, 4.0]})
    out = df.anon.k_anonymize(2, quasi_identifiers=["age"])
    if not str(out["age"].dtype).startswith("generalization"):
        pytest.skip("the default recoding published plain values")
    assert metrics.perturbation_summary(df, out).empty
    table = metrics.perturbation_utility(df, out)
    assert table.loc["age", "note"].startswith("generalized cells")


# --------------------------------------------------------------------------- properties

values = st.floats(-1e3, 1e3, allow_nan=False).map(lambda v: round(v, 3))


@st.composite
def frame_pairs(draw):
    n = draw(st.integers(3, 12))
    cols = draw(st.integers(1, 3))
    cell = st.one_of(values, values, values, st.just(np.nan))     # about 1 in 4 missing
    o = {f"c{j}": draw(st.lists(cell, min_size=n, max_size=n)) for j in range(cols)}
    p = {c: [v + draw(st.sampled_from([0.0, 0.0, 1.0, -2.5])) for v in vs]
         for c, vs in o.items()}
    return pd.DataFrame(o), pd.DataFrame(p)


@settings(max_examples=60, deadline=None)
@given(frame_pairs())
def test_identical_frames_lose_nothing(pair):
    o, _ = pair
    assert metrics.il1s(o, o, list(o)) == 0.0
    assert metrics.covariance_difference(o, o) == 0.0
    assert metrics.correlation_difference(o, o) == 0.0
    ev = metrics.eigenvalue_loss(o, o)
    assert ev == 0.0
    t = metrics.distribution_changes(o, o, list(o))
    changes = t[[c for c in t if c.endswith("_change")]]
    assert (changes[t["cells"] > 0].to_numpy() == 0).all()
    assert changes[t["cells"] == 0].isna().all().all()      # no cell to compare: NaN
    assert metrics.perturbation_summary(o, o).empty      # nothing perturbed


@settings(max_examples=60, deadline=None)
@given(frame_pairs())
def test_il1s_zero_iff_equal(pair):
    o, p = pair
    equal = bool(((o.to_numpy() == p.to_numpy()) | o.isna().to_numpy()).all())
    assert (metrics.il1s(o, p, list(o)) == 0.0) == equal


@settings(max_examples=60, deadline=None)
@given(frame_pairs(), st.randoms(use_true_random=False))
def test_invariant_to_row_order(pair, rnd):
    o, p = pair
    order = list(range(len(o)))
    rnd.shuffle(order)
    o2, p2 = o.iloc[order], p.iloc[order]
    a = metrics.perturbation_summary(o, p)
    b = metrics.perturbation_summary(o2, p2)
    assert list(a.index) == list(b.index)
    for name in a.index:         # exactly: the rows are summed in a canonical order
        assert same(a[name], b[name]), name


@settings(max_examples=60, deadline=None)
@given(frame_pairs())
def test_correlation_difference_is_symmetric(pair):
    o, p = pair
    if (o.std() == 0).any() or (p.std() == 0).any() or o.isna().any().any():
        return
    a, b = metrics.correlation_difference(o, p), metrics.correlation_difference(p, o)
    assert (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=1, max_size=20),
       st.lists(st.sampled_from(["a", "b", "d", None]), min_size=20, max_size=20))
def test_category_share_distance_symmetric_and_bounded(a, b):
    o = pd.DataFrame({"c": a})
    p = pd.DataFrame({"c": b[:len(a)]})
    d1 = metrics.category_share_distance(o, p, ["c"])
    assert d1 == metrics.category_share_distance(p, o, ["c"])
    assert 0.0 <= d1 <= 1.0


@settings(max_examples=25, deadline=None)
@given(st.integers(6, 40), st.integers(2, 3), st.integers(0, 10**6))
def test_microaggregation_keeps_means(n, k, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.normal(0, 1, n), "b": rng.uniform(0, 9, n)})
    out = df.anon.microaggregate(k, quasi_identifiers=["a", "b"])
    t = metrics.distribution_changes(df, out, ["a", "b"])
    assert np.abs(t["mean_change"].to_numpy()).max() < 1e-9
    assert (t["sd_change"].to_numpy() <= 1e-12).all()     # group means shrink the spread


# --------------------------------------------------------------------------- exactness (issue 26)

INEXACT = 341.938     # three copies of it have a floating-point mean that is not 341.938
ALL_LINKS = (
    ("eigenvalue_loss", lambda o, p: metrics.eigenvalue_loss(o, p)),
    ("eigenvalue_loss covariance", lambda o, p: metrics.eigenvalue_loss(o, p, matrix="covariance")),
    ("correlation_difference", lambda o, p: metrics.correlation_difference(o, p)),
    ("correlation_difference mean", lambda o, p: metrics.correlation_difference(o, p, how="mean")),
    ("covariance_difference", lambda o, p: metrics.covariance_difference(o, p)),
)



def test_constant_column_whose_mean_is_inexact():
    # the reported case: covariance_difference of identical frames was NaN (sd 1e-14, 0/0)
    assert np.array([INEXACT] * 3).mean() != INEXACT and np.array([INEXACT] * 3).std() > 0
    k = pd.DataFrame({"c0": [INEXACT] * 3})
    for name, f in ALL_LINKS:
        assert f(k, k) == 0.0, name
    o = pd.DataFrame({"x": [1.0, 2.0, 4.0], "k": [INEXACT] * 3})
    for name, f in ALL_LINKS:
        assert f(o, o) == 0.0, name
    # left out of the links (it has no correlation): the figures of x alone
    assert metrics.covariance_difference(o, o.assign(x=[2.0, 1.0, 4.0])) == 0.0
    # a change of a column without spread: infinite, not 1e11 (the sd was 7e-14)
    changed = o.assign(k=[INEXACT, INEXACT, 342.0])
    assert metrics.il1s(o, changed, ["k"]) == math.inf
    t = metrics.distribution_changes(o, changed, ["k"])
    assert t.loc["k", "sd"] == 0.0 and t.loc["k", "mean"] == INEXACT
    assert t.loc["k", "mean_change"] == math.inf and t.loc["k", "sd_change"] == math.inf
    assert t.loc["k", "q05_change"] == 0.0 and t.loc["k", "q95_change"] == math.inf
    assert metrics.distribution_changes(o, o, ["k"]).loc["k", "mean_change"] == 0.0
    # a column the release made constant: its sd is exactly 0, so sd_change exactly -1
    flat = metrics.distribution_changes(o, o.assign(x=[INEXACT] * 3), ["x"])
    assert flat.loc["x", "sd_change"] == -1.0


def test_pair_without_spread_on_its_shared_rows():
    # y varies, but not on the rows where x is present: corr(x, y) is undefined there
    o = pd.DataFrame({"x": [0.0, 1.0, 2.0, np.nan, np.nan],
                      "y": [INEXACT, INEXACT, INEXACT, 1.0, 2.0]})
    cov, corr = pairwise_covariance(o.to_numpy())
    assert cov[0, 1] == cov[1, 0] == 0.0
    assert np.isnan(corr[0, 1]) and np.isnan(corr[1, 0])
    assert corr[0, 0] == corr[1, 1] == 1.0
    # undefined in both frames: nothing to compare
    for name, f in ALL_LINKS:
        assert f(o, o) == 0.0, name
    # the release gives the pair a spread: undefined in one frame only
    p = o.assign(y=[INEXACT, INEXACT, 342.0, 1.0, 2.0])
    assert math.isnan(metrics.correlation_difference(o, p))
    assert math.isnan(metrics.eigenvalue_loss(o, p))
    assert math.isfinite(metrics.covariance_difference(o, p))   # a covariance of 0 is defined


def test_constant_on_a_single_cell_and_without_cells():
    o = pd.DataFrame({"x": [1.0, 2.0, 4.0, 8.0], "one": [np.nan, np.nan, np.nan, 3.0],
                      "none": [np.nan] * 4})
    for name, f in ALL_LINKS:
        assert f(o, o) == 0.0, name
    assert metrics.covariance_difference(o, o.assign(x=[1.0, 2.0, 4.0, 9.0])) > 0


def test_row_order_regressions():
    # near-collinear x, y: the eigenvalue loss moved from 1.0318028650 to 1.0318038354
    o = pd.DataFrame({"x": [0.0, 5.0, -2.0, 2.0, -4.0],
                      "y": [-0.001, 15.001, -6.0, 6.0, -12.001], "z": [0.0, 0.1, 0.1, 0.1, 0.2]})
    p = o.assign(z=[0.1, 0.1, 0.1, 0.1, 0.2])
    order = [0, 1, 4, 3, 2]
    for name, f in ALL_LINKS:
        assert same(f(o, p), f(o.iloc[order], p.iloc[order])), name
    assert metrics.eigenvalue_loss(o, p) == pytest.approx(1.0318, abs=1e-4)
    # the reported example: x, w constant on the rows shared with z; NaN in one order, 2.0 in
    # another (the covariance's rounding decided whether z had spread on those rows)
    nan = np.nan
    o = pd.DataFrame({"x": [0.0, 0.0, nan, nan, 0.0, nan, nan, 1.0],
                      "w": [0.0, nan, 0.0, nan, 0.0, nan, 0.0, 0.0],
                      "z": [0.0, nan, -1.0, -511.219, 0.0, 0.0, 4.0, 0.0]})
    p = o.assign(z=[0.0, nan, -1.0, -511.219, 0.0, 0.0, 4.0, 1.0])
    order = [2, 4, 3, 6, 5, 0, 1, 7]
    for name, f in ALL_LINKS:
        assert same(f(o, p), f(o.iloc[order], p.iloc[order])), name
    assert math.isnan(metrics.eigenvalue_loss(o, p))     # corr(x, z) undefined in o only


def test_negative_zero_and_nan_payloads_do_not_change_the_order():
    o = pd.DataFrame({"x": [0.0, -0.0, 1.0, 2.0, 0.0], "y": [1.0, 2.0, 2.0, 7.0, -0.0]})
    p = o.assign(y=[1.0, 2.5, 2.0, 7.0, 0.0])
    for order in ([1, 0, 2, 3, 4], [4, 3, 2, 1, 0]):
        for name, f in ALL_LINKS:
            assert f(o, p) == f(o.iloc[order], p.iloc[order]), name
    # missing cells written as NaNs of different bit patterns are one missing value
    payload = np.array([0x7FF8000000000001, 0xFFF8000000000000], dtype=np.uint64).view(np.float64)
    x = np.array([[1.0, 2.0], [payload[0], 3.0], [2.0, payload[1]], [4.0, 1.0], [np.nan, 5.0]])
    for order in ([1, 2, 0, 3, 4], [4, 2, 1, 0, 3]):
        for m1, m2 in zip(pairwise_covariance(x), pairwise_covariance(x[order])):
            assert np.array_equal(m1, m2, equal_nan=True)


def test_canonical_order_when_two_rows_share_a_hash():
    # rows (0, 1) and (1, y) collide when y's bits are h1(0) ^ bits(1) ^ h1(1), h1 the hash
    # after the first column: the rows are then sorted by their bits, the same for each order
    one = np.array([0.0, 1.0]).view(np.uint64)
    h1 = _row_hash(one[None, :])
    y = np.array([h1[0] ^ one[1] ^ h1[1]], dtype=np.uint64).view(np.float64)[0]
    x = np.array([[0.0, 1.0], [1.0, y], [2.0, 3.0]])
    assert not np.isnan(y)
    h = _row_hash(np.ascontiguousarray(x.T).view(np.uint64))
    assert h[0] == h[1] != h[2]
    first = _canonical_rows(x)
    for order in ([1, 0, 2], [2, 1, 0], [0, 2, 1]):
        assert np.array_equal(_canonical_rows(x[order]).view(np.uint64), first.view(np.uint64))
    # duplicated rows tie on the hash too, and any order of them is the same matrix
    dup = np.array([[1.0, 2.0], [1.0, 2.0], [0.0, -0.0], [0.0, 0.0], [np.nan, 1.0]])
    assert np.array_equal(_canonical_rows(dup).view(np.uint64),
                          _canonical_rows(dup[::-1]).view(np.uint64))


# properties: frames with constant columns, nearly collinear columns, ties and missing cells

CONSTANTS = st.sampled_from([INEXACT, 0.1, 1000 / 3, -2.5, 0.0, 1e-300])


@st.composite
def hard_frames(draw):
    n = draw(st.integers(2, 14))
    cells = st.lists(values, min_size=n, max_size=n)
    base = draw(cells)
    cols = {}
    for j, kind in enumerate(draw(st.lists(
            st.sampled_from(["free", "constant", "collinear", "ties"]), min_size=1, max_size=4))):
        if kind == "free":
            v = draw(cells)
        elif kind == "constant":
            v = [draw(CONSTANTS)] * n
        elif kind == "collinear":           # a·base + a tiny wobble: a near-zero eigenvalue
            a = draw(st.sampled_from([3.0, -0.7, 1 / 3, 1e6]))
            eps = draw(st.sampled_from([0.0, 1e-9, 1e-3]))
            v = [a * b + eps * draw(st.integers(-1, 1)) for b in base]
        else:
            v = draw(st.lists(st.sampled_from([0.0, -0.0, 0.1, 0.2]), min_size=n, max_size=n))
        gaps = draw(st.lists(st.booleans(), min_size=n, max_size=n)) if draw(st.booleans()) else []
        cols[f"{kind}{j}"] = [np.nan if g else x for x, g in zip(v, gaps + [False] * n)]
    o = pd.DataFrame(cols, dtype=np.float64)
    p = o.copy()
    for c in p:                  # move some cells, or flatten the column in the release
        how = draw(st.sampled_from(["keep", "move", "move", "flatten"]))
        if how == "move":
            p[c] = p[c] + [draw(st.sampled_from([0.0, 0.0, 0.1, -2.5])) for _ in range(n)]
        elif how == "flatten":
            p[c] = p[c].where(p[c].isna(), draw(CONSTANTS))
    return o, p


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(hard_frames(), st.data())
def test_every_figure_is_exactly_invariant_to_row_order(pair, data):
    o, p = pair
    order = data.draw(st.permutations(range(len(o))))
    o2, p2 = o.iloc[order], p.iloc[order]
    for name, f in ALL_LINKS:
        assert same(f(o, p), f(o2, p2)), name
    a, b = metrics.perturbation_summary(o, p), metrics.perturbation_summary(o2, p2)
    assert list(a.index) == list(b.index)
    for name in a.index:
        assert same(a[name], b[name]), name
    pd.testing.assert_frame_equal(metrics.perturbation_utility(o, p),
                                  metrics.perturbation_utility(o2, p2), check_exact=True)
    for m1, m2 in zip(pairwise_covariance(o.to_numpy()), pairwise_covariance(o2.to_numpy())):
        assert np.array_equal(m1, m2, equal_nan=True)


def exact_pairwise(x: np.ndarray):
    """Pairwise-complete covariances and variances in exact arithmetic (fractions)."""
    p = x.shape[1]
    cov, var = np.full((p, p), np.nan), np.full((p, p), np.nan)
    for i in range(p):
        for j in range(p):
            rows = ~np.isnan(x[:, i]) & ~np.isnan(x[:, j])
            if rows.sum() < 2:
                continue
            a, b = ([Fraction(float(v)) for v in x[rows, k]] for k in (i, j))
            ma, mb = sum(a) / len(a), sum(b) / len(b)
            cov[i, j] = float(sum((u - ma) * (v - mb) for u, v in zip(a, b)) / (len(a) - 1))
            var[i, j] = float(sum((u - ma) ** 2 for u in a) / (len(a) - 1))
    return cov, var


@settings(max_examples=150, deadline=None)
@given(hard_frames())
def test_pairwise_covariance_matches_exact_arithmetic(pair):
    x = pair[0].to_numpy()
    cov, corr = pairwise_covariance(x)
    want, var = exact_pairwise(x)
    assert np.array_equal(np.isnan(cov), np.isnan(want))
    scale = np.sqrt(np.abs(var * var.T))
    ok = ~np.isnan(want)
    assert (np.abs(cov - want)[ok] <= 1e-9 * scale[ok]).all()
    assert (cov[ok & ((var == 0) | (var.T == 0))] == 0).all()    # no spread: exactly 0
    # no spread on the pair's rows (exactly, not up to rounding): undefined correlation
    undefined = ~ok | (var == 0) | (var.T == 0)
    assert np.array_equal(np.isnan(corr), undefined)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = want / scale
    np.fill_diagonal(r, 1.0)
    assert np.allclose(corr[~undefined], r[~undefined], rtol=0, atol=1e-9)


@settings(max_examples=150, deadline=None)
@given(hard_frames())
def test_identical_hard_frames_lose_nothing(pair):
    o, _ = pair
    for name, f in ALL_LINKS:
        assert f(o, o) == 0.0, name
    assert metrics.il1s(o, o, list(o)) == 0.0
    t = metrics.distribution_changes(o, o, list(o))
    changes = t[[c for c in t if c.endswith("_change")]]
    assert (changes[t["cells"] > 0].to_numpy() == 0).all()


@settings(max_examples=150, deadline=None)
@given(hard_frames())
def test_constant_columns_have_no_spread(pair):
    o, p = pair
    cov, corr = pairwise_covariance(o.to_numpy())
    t = metrics.distribution_changes(o, p, list(o))
    for j, c in enumerate(o):
        present = o[c].dropna()
        if len(present) and present.nunique() == 1:      # no spread: exactly 0, no correlation
            assert cov[j, j] == 0.0 or (len(present) < 2 and np.isnan(cov[j, j]))
            assert np.isnan(corr[j]).all()
        both = o[c].notna() & p[c].notna()
        if both.any() and o[c][both].nunique() == 1:
            assert t.loc[c, "sd"] == 0.0
            moved = (o[c][both] != p[c][both]).any()
            assert metrics.il1s(o, p, [c]) == (math.inf if moved else 0.0)


# --------------------------------------------------------------------------- metrics_table


def test_metrics_rows_on_microaggregated_frame_equal_the_functions():
    rng = np.random.default_rng(7)
    n = 200
    df = pd.DataFrame({"age": rng.integers(18, 90, n).astype(float),
                       "income": rng.lognormal(10, 0.5, n).round(2),
                       "hours": rng.normal(40, 8, n).round(1),
                       "sex": rng.choice(["F", "M"], n)})
    qis = ["age", "income", "sex"]
    out = df.anon.microaggregate(5, quasi_identifiers=qis)
    m = out.anon.metrics(df).set_index("metric")
    assert set(NUMERIC_KEYS) <= set(m.index)
    assert (m.loc[list(NUMERIC_KEYS), "better"] == "lower").all()
    v = m["value"]
    assert v["il1s"] == pytest.approx(metrics.il1s(df, out))
    assert v["eigenvalue_loss"] == pytest.approx(metrics.eigenvalue_loss(df, out))
    assert v["correlation_difference"] == pytest.approx(
        metrics.correlation_difference(df, out))
    assert v["covariance_difference"] == pytest.approx(
        metrics.covariance_difference(df, out))
    t = metrics.distribution_changes(df, out)
    assert list(t.index) == ["age", "income"]        # hours untouched, sex not numeric
    assert v["max_mean_change"] == pytest.approx(t["mean_change"].abs().max())
    assert v["max_sd_change"] == pytest.approx(t["sd_change"].abs().max())
    qcols = [c for c in t if c.startswith("q")]
    assert v["max_quantile_change"] == pytest.approx(np.abs(t[qcols].to_numpy()).max())
    # the mode of a sex column is a perturbation of a categorical column
    assert v["category_share_distance"] == pytest.approx(
        metrics.category_share_distance(df, out))
    # the links include the untouched numeric column hours
    assert v["eigenvalue_loss"] == pytest.approx(
        metrics.eigenvalue_loss(df, out, ["age", "income", "hours"]))
    assert v["il1s"] == pytest.approx(out.anon.info["il1s"])


def test_metrics_rows_absent_without_perturbation():
    df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    m = df.anon.metrics(df, quasi_identifiers=["zip"], sensitive=["d"])
    assert not set(NUMERIC_KEYS) & set(m["metric"])


def test_pair_without_common_rows_is_left_out_not_nan():
    o = pd.DataFrame({"x": [1.0, 2.0, 3.0, np.nan, np.nan, np.nan],
                      "y": [np.nan, np.nan, np.nan, 1.0, 3.0, 2.0]})
    assert metrics.eigenvalue_loss(o, o) == 0.0
    assert metrics.correlation_difference(o, o) == 0.0
    assert metrics.covariance_difference(o, o) == 0.0
