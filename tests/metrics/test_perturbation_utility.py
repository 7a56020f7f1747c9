"""Utility of perturbed data (pdanon.metrics.perturbation): hand-checked values, properties,
missing cells, errors and the rows of metrics_table."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon  # noqa: F401  (the accessor)
from pdanon import metrics
from pdanon._errors import InvalidInputError, KindError, UnknownColumnError
from pdanon.metrics.perturbation import NUMERIC_KEYS, pairwise_covariance

S4 = math.sqrt(20 / 3)        # sample sd of 1, 3, 5, 7
ORIG = pd.DataFrame({"x": [1.0, 3.0, 5.0, 7.0]})
MICRO = pd.DataFrame({"x": [2.0, 2.0, 6.0, 6.0]})     # pairs (1, 3) and (5, 7) averaged


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
        "microaggregate": df.anon.microaggregate(3, quasi_identifiers=cols),
        "add_noise": df.anon.add_noise(cols, seed=1, quasi_identifiers=cols),
        "correlated": df.anon.add_noise(cols, method="correlated", seed=1,
                                        quasi_identifiers=cols),
        "rank_swap": df.anon.rank_swap(cols, p=5, seed=1, quasi_identifiers=cols),
        "top_code": df.anon.top_code("b", quantile=0.9, quasi_identifiers=cols),
        "bottom_code": df.anon.bottom_code("a", quantile=0.1, quasi_identifiers=cols),
        "pram": df.anon.pram("c", seed=1, quasi_identifiers=["c"]),
        "local_suppression": df.anon.local_suppression(3, quasi_identifiers=["a", "c"]),
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
    for name in a.index:
        x, y = a[name], b[name]
        assert (np.isnan(x) and np.isnan(y)) or x == pytest.approx(y, rel=1e-6, abs=1e-9), name


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
