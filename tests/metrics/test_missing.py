"""Missing values are data in the metrics and the model layer: missing quasi-identifier cells
under ``missing="value"`` and ``missing="wildcard"``, missing sensitive values as one value of
their own for l and t, and the cell comparisons of the utility measures. Figures are computed by
hand in the comments; the property tests compare with a brute-force O(n²) count."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdanon import _groups, distributions, metrics, models
from pdanon._errors import InvalidInputError
from pdanon.dtype import GeneralizationRange as R

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
D1, D2 = pd.Timestamp("2020-01-01"), pd.Timestamp("2021-06-30")


def keys_table() -> pd.DataFrame:
    """Rows r0..r5; '_' marks a missing cell (every kind of NA appears):

    r0 (30, F, D1)   r1 (30, _, D1)   r2 (_, F, _)   r3 (40, _, D2)   r4 (_, _, _)   r5 (_, _, _)
    """
    return pd.DataFrame({
        "age": [30.0, 30.0, np.nan, 40.0, np.nan, np.nan],
        "sex": pd.Series(["F", None, "F", pd.NA, np.nan, None], dtype=object),
        "date": pd.Series([D1, D1, pd.NaT, D2, pd.NaT, pd.NaT]),
        "d": ["x", "y", "x", "z", "y", "x"],
    })


QIS = ["age", "sex", "date"]


# --------------------------------------------------------------------------- frequencies, k


def test_frequencies_value_and_wildcard_hand_checked():
    df = keys_table()
    before = df.copy()
    # value: every row is its own class except the two fully blank rows r4, r5 (None, NaN,
    # pd.NA, NaT are one value)
    assert metrics.frequencies(df, QIS).tolist() == [1, 1, 1, 1, 2, 2]
    # wildcard: r0 matches r0, r1, r2, r4, r5 (not r3: age 30 vs 40) -> 5; r1 the same -> 5;
    # r2 (_, F, _) matches every row (r3 lacks sex, r2 lacks age and date) -> 6;
    # r3 (40, _, D2) matches r2, r3, r4, r5 -> 4; the blank rows match all six
    wild = metrics.frequencies(df, QIS, missing="wildcard")
    assert wild.tolist() == [5, 5, 6, 4, 6, 6]
    assert wild.name == "frequency" and wild.index.equals(df.index)
    assert metrics.k_anonymity(df, QIS) == 1
    assert metrics.k_anonymity(df, QIS, missing="wildcard") == 4
    assert metrics.is_k_anonymous(df, 4, QIS, missing="wildcard")
    assert not metrics.is_k_anonymous(df, 5, QIS, missing="wildcard")
    assert not metrics.is_k_anonymous(df, 2, QIS)
    pd.testing.assert_frame_equal(df, before)


def test_frequencies_keep_the_index_and_accept_every_missing_dtype():
    df = pd.DataFrame({
        "i": pd.Series([1, pd.NA, 1, 2], dtype="Int64"),
        "s": pd.Series(["a", "a", None, "b"], dtype="string"),
        "c": pd.Categorical(["u", "u", "u", None]),
    }).set_axis([10, 20, 30, 40])
    q = ["i", "s", "c"]
    # r0 (1,a,u) r1 (_,a,u) r2 (1,_,u) r3 (2,b,_): r0-r1, r0-r2, r1-r2 match; r3 matches none
    got = metrics.frequencies(df, q, missing="wildcard")
    assert got.tolist() == [3, 3, 3, 1] and list(got.index) == [10, 20, 30, 40]
    assert metrics.frequencies(df, q).tolist() == [1, 1, 1, 1]


def test_fully_blank_rows_under_each_mode():
    df = pd.DataFrame({"a": [1.0, 1.0, 2.0, np.nan], "b": ["x", "x", "y", None]})
    # value: the blank row is a class of its own (k = 1); wildcard: it matches every row
    # (frequency 4) and adds one to every other row's frequency
    assert metrics.frequencies(df, ["a", "b"]).tolist() == [2, 2, 1, 1]
    assert metrics.frequencies(df, ["a", "b"], missing="wildcard").tolist() == [3, 3, 2, 4]
    blank = pd.DataFrame({"a": [np.nan] * 3, "b": [None, pd.NA, np.nan]}, dtype=object)
    assert metrics.k_anonymity(blank, ["a", "b"]) == 3
    assert metrics.k_anonymity(blank, ["a", "b"], missing="wildcard") == 3


def test_generalized_and_suppressed_cells_under_wildcard():
    df = pd.DataFrame({
        "a": pd.Series([R(1, 3, "real"), R(1, 3, "real"), None, 2, None],
                       dtype="generalization[real]"),
        "b": pd.Series([R(column_type="unordered", column_values=["x", "y"]), None, "x", "x", "y"],
                       dtype="generalization[unordered]"),
    })
    # r0 ([1,3], {x,y}) r1 ([1,3], _) r2 (_, x) r3 (2, x) r4 (_, y): a range matches only the
    # same range; r1 matches r0, r2, r4; r2 matches r1, r3; r3 matches r2; r4 matches r1
    assert metrics.frequencies(df, ["a", "b"], missing="wildcard").tolist() == [2, 4, 3, 2, 2]


def test_no_quasi_identifier_and_empty_frame():
    df = pd.DataFrame({"a": [1.0, np.nan]})
    assert metrics.k_anonymity(df, [], missing="wildcard") == 2
    assert metrics.k_anonymity(df.iloc[:0], ["a"], missing="wildcard") == 0
    assert metrics.frequencies(df.iloc[:0], ["a"], missing="wildcard").tolist() == []


def test_too_many_missingness_patterns_are_refused():
    q = 7  # the 2**7 = 128 subsets of 7 columns as missingness patterns
    masks = np.array([[(p >> j) & 1 for j in range(q)] for p in range(2 ** q)], dtype=bool)
    df = pd.DataFrame(np.where(masks, np.nan, 1.0), columns=[f"c{j}" for j in range(q)])
    with pytest.raises(InvalidInputError, match=r"128 different sets.*at most 64.*missing='value'"):
        metrics.frequencies(df, list(df.columns), missing="wildcard")
    assert metrics.k_anonymity(df, list(df.columns)) == 1  # value mode is not limited


def test_unknown_missing_mode_and_class_measures_refuse_wildcard():
    df = keys_table()
    with pytest.raises(InvalidInputError, match=r"missing must be 'value'.*or 'wildcard'"):
        metrics.k_anonymity(df, QIS, missing="any")
    calls = {
        "l-diversity": lambda: metrics.l_diversity(df, QIS, ["d"], missing="wildcard"),
        "t-closeness": lambda: metrics.t_closeness(df, QIS, ["d"], missing="wildcard"),
        "l-diversity ": lambda: metrics.is_l_diverse(df, 2, QIS, ["d"], missing="wildcard"),
        "t-closeness ": lambda: metrics.is_t_close(df, 0.5, QIS, ["d"], missing="wildcard"),
        "knowledge gain": lambda: metrics.adversarial_knowledge_gain(df, QIS, ["d"],
                                                                     missing="wildcard"),
        "accuracy gain": lambda: metrics.adversarial_accuracy_gain(df, QIS, ["d"],
                                                                   missing="wildcard"),
        "average class size": lambda: metrics.average_class_size(df, QIS, missing="wildcard"),
        "distinctness": lambda: metrics.distinctness(df, missing="wildcard"),
        "non-uniform entropy": lambda: metrics.non_uniform_entropy(df, QIS, missing="wildcard"),
        "entropy information loss": lambda: metrics.entropy_information_loss(
            df, df, QIS, missing="wildcard"),
        "equivalence_classes": lambda: df.anon.equivalence_classes(quasi_identifiers=QIS,
                                                                   missing="wildcard"),
        "l-diversity  ": lambda: models.l_diversity(df, QIS, ["d"], missing="wildcard"),
    }
    for what, call in calls.items():
        with pytest.raises(InvalidInputError, match="disjoint equivalence classes") as err:
            call()
        assert what.strip() in str(err.value) and "missing='value'" in str(err.value)


def test_metrics_table_under_each_mode():
    df = keys_table()
    anon = df.copy()
    anon.loc[0, "age"] = np.nan  # one present cell published missing: a suppressed cell
    value = metrics.metrics_table(anon, df, quasi_identifiers=QIS, sensitive=["d"])
    v = value.set_index("metric")["value"]
    # anon rows: r0 (_, F, D1) is now its own class; the blank rows r4, r5 stay one class
    assert v["k_anonymity"] == 1 and v["equivalence_classes"] == 5
    assert v["changed_proportion"] == pytest.approx(1 / 18)
    wild = metrics.metrics_table(anon, df, quasi_identifiers=QIS, sensitive=["d"],
                                 missing="wildcard", risk=False)
    assert wild["metric"].tolist() == ["k_anonymity_wildcard", "information_loss",
                                       "changed_proportion", "by_element_distance"]
    # r0 (_, F, D1) matches r0, r1, r2, r4, r5 -> 5; r1 (30, _, D1) matches r0..r2, r4, r5 -> 5;
    # r3 (40, _, D2) still matches r2, r3, r4, r5 -> 4. Information loss: every blank cell
    # costs 1, the others are as they were: blank age 4 (r0 now), sex 4, date 3 -> 11 / 18
    assert wild["value"].tolist() == [4.0, pytest.approx(11 / 18), pytest.approx(1 / 18),
                                      pytest.approx(1 / 18)]
    assert df.anon.metrics(quasi_identifiers=QIS, missing="wildcard",
                           risk=False)["value"].tolist() == [4.0]
    # by default the record-level risk rows follow, from the same wildcard frequencies
    v = metrics.metrics_table(anon, df, quasi_identifiers=QIS, sensitive=["d"],
                              missing="wildcard").set_index("metric")["value"]
    assert v["highest_prosecutor_risk"] == 1 / 4 and v["sample_uniques"] == 0.0


def test_accessor_passes_missing_through():
    df = keys_table()
    assert df.anon.frequencies(quasi_identifiers=QIS, missing="wildcard").tolist() == [
        5, 5, 6, 4, 6, 6]
    assert df.anon.frequencies(quasi_identifiers=QIS).tolist() == [1, 1, 1, 1, 2, 2]
    assert df.anon.k_anonymity(quasi_identifiers=QIS, missing="wildcard") == 4
    assert df.anon.equivalence_classes(quasi_identifiers=QIS).tolist() == [0, 1, 2, 3, 4, 4]
    with pytest.raises(InvalidInputError, match="t-closeness"):
        df.anon.t_closeness(quasi_identifiers=QIS, sensitive=["d"], missing="wildcard")
    with pytest.raises(InvalidInputError, match="l-diversity"):
        df.anon.l_diversity(quasi_identifiers=QIS, sensitive=["d"], missing="wildcard")


# --------------------------------------------------------------------------- property tests


def brute_force(values: np.ndarray, na: np.ndarray) -> list[int]:
    n, q = values.shape
    out = []
    for i in range(n):
        out.append(sum(all(na[i, c] or na[j, c] or values[i, c] == values[j, c]
                           for c in range(q)) for j in range(n)))
    return out


NAS = [None, np.nan, pd.NA, pd.NaT]


@st.composite
def tables(draw, missing=True):
    n = draw(st.integers(0, 25))
    q = draw(st.integers(1, 4))
    cells = st.one_of(st.integers(0, 2), st.sampled_from(NAS)) if missing else st.integers(0, 2)
    cols = {f"c{j}": pd.Series(draw(st.lists(cells, min_size=n, max_size=n)), dtype=object)
            for j in range(q)}
    return pd.DataFrame(cols, index=pd.RangeIndex(n))


@SETTINGS
@given(tables())
def test_wildcard_frequencies_equal_a_brute_force_count(df):
    cols = list(df.columns)
    na = df.isna().to_numpy()
    wild = metrics.frequencies(df, cols, missing="wildcard").to_numpy()
    value = metrics.frequencies(df, cols).to_numpy()
    assert wild.tolist() == brute_force(df.to_numpy(dtype=object), na)
    assert (wild >= value).all()
    if len(df):
        assert metrics.k_anonymity(df, cols, missing="wildcard") == wild.min()


@SETTINGS
@given(tables(missing=False))
def test_wildcard_equals_value_without_missing_cells(df):
    cols = list(df.columns)
    assert (metrics.frequencies(df, cols, missing="wildcard").tolist()
            == metrics.frequencies(df, cols).tolist())


# --------------------------------------------------------------------------- sensitive values


def sensitive_table(values, dtype=None) -> pd.DataFrame:
    return pd.DataFrame({"zip": [1, 1, 1, 2, 2, 2], "d": pd.Series(values, dtype=dtype)})


@pytest.mark.parametrize("values, dtype", [
    (["a", None, np.nan, "a", pd.NA, "b"], object),
    (["a", pd.NaT, None, "a", np.nan, "b"], object),
    (["a", None, None, "a", None, "b"], "string"),
    ([D1, pd.NaT, pd.NaT, D1, pd.NaT, D2], None),
    ([1, pd.NA, pd.NA, 1, pd.NA, 2], "Int64"),
    ([1.0, np.nan, np.nan, 1.0, np.nan, 2.0], None),
])
def test_missing_sensitive_values_are_one_value_for_l(values, dtype):
    df = sensitive_table(values, dtype)
    value = dict(missing_sensitive="value")
    # class 1: {a, _, _} -> 2 distinct; class 2: {a, _, b} -> 3 distinct
    assert metrics.l_diversity(df, ["zip"], ["d"], **value) == 2
    # entropy of (1/3, 2/3): exp(H) = 3 / 2**(2/3); class 2 has exp(ln 3) = 3
    assert metrics.l_diversity(df, ["zip"], ["d"], variant="entropy", **value) == pytest.approx(
        3 / 2 ** (2 / 3), abs=1e-12)
    # recursive c = 2: class 1 counts (2, 1): l = 1 holds (2 < 2·3), l = 2 fails (2 < 2·1)
    assert metrics.l_diversity(df, ["zip"], ["d"], variant="recursive", c=2, **value) == 1
    assert models.LDiversity(2, **value).holds(df, ["zip"], ["d"])
    assert not models.LDiversity(3, **value).holds(df, ["zip"], ["d"])
    # by default every kind of missing cell is unknown: class 1 shows a alone (l = 1, exp(H)
    # = 1, recursive 1), class 2 a and b
    assert metrics.l_diversity(df, ["zip"], ["d"]) == 1
    assert metrics.l_diversity(df, ["zip"], ["d"], variant="entropy") == pytest.approx(1.0)
    assert metrics.l_diversity(df, ["zip"], ["d"], variant="recursive", c=2) == 1
    assert not models.LDiversity(2).holds(df, ["zip"], ["d"])
    # known values: table (a 2/3, b 1/3); class 1 (1, 0): TV 1/3; class 2 (1/2, 1/2): 1/6
    assert metrics.t_closeness(df, ["zip"], {"d": "unordered"}) == pytest.approx(1 / 3)
    # the model layer's context: one code for every kind of missing value
    col = models.LDiversity(2).context(df, ["d"]).columns["d"]
    assert col.m == 3 and col.has_na and col.global_counts.tolist()[-1] == 3
    # unordered t: q = (a 1/3, _ 1/2, b 1/6); class 1 p = (1/3, 2/3, 0), class 2 (1/3, 1/3, 1/3)
    # -> total variation 1/6 for both
    assert metrics.t_closeness(df, ["zip"], {"d": "unordered"}, **value) == pytest.approx(1 / 6)


def test_ordered_emd_puts_missing_after_the_largest_value():
    df = pd.DataFrame({"zip": [1, 1, 2, 2], "s": [1.0, np.nan, 2.0, 3.0]})
    # order 1, 2, 3, _ (m = 4, ground distance |i - j| / 3), q = 1/4 each.
    # class 1 p = (1/2, 0, 0, 1/2): cumulative p - q = 1/4, 0, -1/4, 0 -> (1/2) / 3 = 1/6
    # class 2 p = (0, 1/2, 1/2, 0): cumulative p - q = -1/4, 0, 1/4, 0 -> 1/6
    # (missing placed first would give class 1: 1/4, 1/2, 1/4, 0 -> 1/3)
    value = dict(missing_sensitive="value")
    for kind in ("real", "ordered"):
        assert metrics.t_closeness(df, ["zip"], {"s": kind}, **value) == pytest.approx(1 / 6)
        # by default: known 1, 2, 3 (q = 1/3 each); class 1 (1): cum 2/3, 1/3 -> 1/2;
        # class 2 (2, 3): cum -1/3, -1/6 -> 1/4
        assert metrics.t_closeness(df, ["zip"], {"s": kind}) == pytest.approx(1 / 2)
        model = models.TCloseness(1 / 6, **value)
        assert model.holds(df, ["zip"], {"s": kind})
        ctx = model.context(df, {"s": kind})
        ok = model.groups_ok(np.array([0, 0, 1, 1]), ctx)
        assert ok.tolist() == [True, True]
        assert not models.TCloseness(0.16, **value).groups_ok(np.array([0, 0, 1, 1]),
                                                              ctx).any()
        assert (distributions.ClassCounts.from_labels(np.array([0, 0, 1, 1]), ctx)
                .distance(0, "emd").tolist() == pytest.approx([1 / 6, 1 / 6]))
    # an ordered Categorical with a missing value: the same order, the same figure
    cat = df.assign(s=pd.Categorical(["lo", None, "mid", "hi"], categories=["lo", "mid", "hi"],
                                     ordered=True))
    assert metrics.t_closeness(cat, ["zip"], {"s": "ordered"}, **value) == pytest.approx(1 / 6)
    with pytest.raises(InvalidInputError, match="missing values.*Wasserstein"):
        metrics.t_closeness(df, ["zip"], {"s": "real"}, distance="wasserstein", **value)
    # known values only: 1, 2, 3 -> class 1 {1}: W = 1 over span 2; class 2 {2, 3}: 1/2 / 2
    assert metrics.t_closeness(df, ["zip"], {"s": "real"},
                               distance="wasserstein") == pytest.approx(0.5, abs=1e-9)


def test_jensen_shannon_counts_missing_as_one_value():
    df = sensitive_table(["a", None, pd.NA, "a", np.nan, "b"], object)
    # class 1: p = (a 1/3, _ 2/3) vs q = (1/3, 1/2, 1/6); M = (1/3, 7/12, 1/12)
    q = np.array([1 / 3, 1 / 2, 1 / 6])
    p = np.array([1 / 3, 2 / 3, 0.0])
    mid = (p + q) / 2
    js1 = 0.5 * sum(pi * math.log(pi / mi) for pi, mi in zip(p, mid) if pi) + 0.5 * sum(
        qi * math.log(qi / mi) for qi, mi in zip(q, mid))
    p2 = np.array([1 / 3, 1 / 3, 1 / 3])
    mid2 = (p2 + q) / 2
    js2 = 0.5 * sum(a * math.log(a / b) for a, b in zip(p2, mid2)) + 0.5 * sum(
        a * math.log(a / b) for a, b in zip(q, mid2))
    got = metrics.t_closeness(df, ["zip"], ["d"], distance="jensen_shannon",
                              missing_sensitive="value")
    assert got == pytest.approx(max(js1, js2), abs=1e-12)


def test_engine_codes_with_a_missing_sentinel_are_one_value():
    class Encoded:  # what an encoder that marks missing sensitive values with -1 would pass
        sensitive = {"d": np.array([0, -1, -1, 0, -1, 1])}

    (col,) = distributions.sensitive_columns(Encoded())
    assert col.m == 3 and col.codes.tolist() == [0, 2, 2, 0, 2, 1]
    assert col.global_counts.tolist() == [2, 1, 3]
    ok = models.LDiversity(3, missing_sensitive="value").groups_ok(
        np.array([0, 0, 0, 1, 1, 1]), Encoded())
    assert ok.tolist() == [False, True]
    # the sentinel marks a missing cell, so by default it is no value: class 2 holds 2
    ok = models.LDiversity(2).groups_ok(np.array([0, 0, 0, 1, 1, 1]), Encoded())
    assert ok.tolist() == [False, True]


# --------------------------------------------------------------------------- utility


@pytest.mark.parametrize("kind, orig, anon", [
    ("real", [1.0, np.nan, 3.0, 5.0], [1.0, np.nan, np.nan, 5.0]),
    ("ordered", pd.Series([D1, pd.NaT, D2, D2]), pd.Series([D1, pd.NaT, pd.NaT, D2])),
    ("unordered", pd.Series(["a", pd.NA, "b", "c"], dtype=object),
     pd.Series(["a", None, np.nan, "c"], dtype=object)),
])
def test_missing_in_both_loses_nothing_suppressed_loses_all(kind, orig, anon):
    o = pd.DataFrame({"x": orig})
    a = pd.DataFrame({"x": anon})
    # row 1 missing in both -> 0; row 2 present, published missing -> 1; others unchanged
    assert metrics.by_element_distances(o, a, {"x": kind})["x"].tolist() == [0, 0, 1, 0]
    assert metrics.by_element_distance(o, a, {"x": kind}) == 0.25
    assert metrics.changed_proportion(o, a, {"x": kind}) == 0.25
