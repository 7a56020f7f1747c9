"""Risk and utility metrics: hand-computed values, the seed text's example, and
property tests against cell-by-cell loops written here from the formulas."""

from __future__ import annotations

import bisect
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon
from pdanon import metrics
from pdanon._errors import InvalidInputError, UnknownColumnError
from pdanon.dtype import GeneralizationRange as R

SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def isna(v):
    return not isinstance(v, R) and pd.isna(v)


def key(row):
    return tuple("<NA>" if isna(v) else v for v in row)


def classes(df, cols):
    out = {}
    for i, row in enumerate(df[cols].itertuples(index=False)):
        out.setdefault(key(row), []).append(i)
    return list(out.values())


# --------------------------------------------------------------------------- risk


def ref_knowledge_gain(df, qis, s):
    n = len(df)
    vals = ["<NA>" if isna(v) else v for v in df[s]]
    table = {v: vals.count(v) / n for v in set(vals)}
    total = 0.0
    for rows in classes(df, qis):
        cls = [vals[i] for i in rows]
        diff = sum(abs(table[v] - cls.count(v) / len(rows)) for v in table) / 2
        total += diff * len(rows)
    return total / n


def ref_accuracy_gain(df, qis, s):
    n = len(df)
    vals = ["<NA>" if isna(v) else v for v in df[s]]
    gain = -max(vals.count(v) for v in set(vals)) / n
    for rows in classes(df, qis):
        cls = [vals[i] for i in rows]
        gain += max(cls.count(v) for v in set(cls)) / n
    return gain


def test_adversarial_gains_hand_checked():
    df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    # table a 3/4, b 1/4; class 1 TV 1/4, class 2 TV 1/4 -> 1/4
    assert metrics.adversarial_knowledge_gain(df, ["zip"], ["d"]) == pytest.approx(0.25)
    # class modes: 1 + 2 = 3 right vs 3 by the table mode -> 0
    assert metrics.adversarial_accuracy_gain(df, ["zip"], ["d"]) == 0.0
    split = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "a", "b", "b"]})
    assert metrics.adversarial_knowledge_gain(split, ["zip"], ["d"]) == 0.5
    assert metrics.adversarial_accuracy_gain(split, ["zip"], ["d"]) == 0.5
    # one class: nothing gained
    one = split.assign(zip=1)
    assert metrics.adversarial_knowledge_gain(one, ["zip"], ["d"]) == 0.0
    assert metrics.adversarial_accuracy_gain(one, ["zip"], ["d"]) == 0.0


def test_adversarial_gains_several_sensitive_take_max_and_stored_roles():
    df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "b"], "e": [1, 1, 2, 2]})
    assert metrics.adversarial_knowledge_gain(df, ["zip"], ["d", "e"]) == 0.5
    with_roles = df.anon.with_schema(pdanon.schema(quasi_identifiers={"zip": "real"},
                                                   sensitive={"d": "unordered"}))
    assert metrics.adversarial_knowledge_gain(with_roles) == 0.0
    assert metrics.adversarial_accuracy_gain(with_roles) == 0.0
    with pytest.raises(InvalidInputError, match="sensitive"):
        metrics.adversarial_knowledge_gain(df, ["zip"])


frames = st.integers(1, 30).flatmap(lambda n: st.builds(
    lambda q, s, g: pd.DataFrame({"q": q, "g": g, "s": s}),
    st.lists(st.integers(0, 3), min_size=n, max_size=n),
    st.lists(st.sampled_from(["u", "v", "w", None]), min_size=n, max_size=n),
    st.lists(st.sampled_from(["x", "y", None]), min_size=n, max_size=n)))


@SETTINGS
@given(frames)
def test_adversarial_gains_match_loops(df):
    assert metrics.adversarial_knowledge_gain(df, ["q", "g"], ["s"]) == pytest.approx(
        ref_knowledge_gain(df, ["q", "g"], "s"), abs=1e-12)
    assert metrics.adversarial_accuracy_gain(df, ["q", "g"], ["s"]) == pytest.approx(
        ref_accuracy_gain(df, ["q", "g"], "s"), abs=1e-12)


def test_levels_and_checks():
    df = pd.DataFrame({"a": [1, 1, 2, 2], "s": ["x", "y", "x", "x"]})
    assert metrics.k_anonymity(df, ["a"]) == 2
    assert metrics.l_diversity(df, ["a"], ["s"]) == 1
    assert metrics.t_closeness(df, ["a"], ["s"]) == 0.25
    assert metrics.is_k_anonymous(df, 2, ["a"]) and not metrics.is_k_anonymous(df, 3, ["a"])
    assert metrics.is_l_diverse(df, 1, ["a"], ["s"], k=2)
    assert not metrics.is_l_diverse(df, 2, ["a"], ["s"])
    assert not metrics.is_l_diverse(df, 1, ["a"], ["s"], k=3)
    assert metrics.is_t_close(df, 0.25, ["a"], ["s"], k=2)
    assert not metrics.is_t_close(df, 0.2, ["a"], ["s"])
    assert not metrics.is_t_close(df, 0.25, ["a"], ["s"], k=3)
    # the reference's find_t_close (Jensen-Shannon for unordered)
    assert metrics.t_closeness(df, ["a"], ["s"], distance="reference") == pytest.approx(
        0.09560258894703261)


# --------------------------------------------------------------------------- simple utility


def test_class_size_distinctness_entropy_hand_checked():
    df = pd.DataFrame({"a": [1, 1, 2, 3], "b": ["x", "x", "y", "y"], "c": [1, 2, 3, 4]})
    assert metrics.average_class_size(df, ["a", "b"]) == pytest.approx(4 / 3)
    assert metrics.distinctness(df) == 1.0                 # whole rows, c is unique
    assert metrics.distinctness(df, ["a", "b"]) == 0.75
    # rows (1,x) 1/2, (2,y) 1/4, (3,y) 1/4 -> 1.5 bits
    assert metrics.non_uniform_entropy(df, ["a", "b"]) == pytest.approx(1.5)
    assert metrics.non_uniform_entropy(df, ["b"]) == pytest.approx(1.0)
    assert metrics.average_class_size(df.iloc[:0], ["a"]) == 0.0
    assert metrics.distinctness(df.iloc[:0]) == 0.0
    assert metrics.non_uniform_entropy(df.iloc[:0], ["a"]) == 0.0


def test_missing_and_generalized_cells_group_together():
    df = pd.DataFrame({"a": pd.Series([R(1, 3, "real"), R(1, 3, "real"), None, None, 2],
                                      dtype="generalization[real]")})
    assert metrics.average_class_size(df, ["a"]) == pytest.approx(5 / 3)
    p = np.array([2, 2, 1]) / 5
    assert metrics.non_uniform_entropy(df, ["a"]) == pytest.approx(-(p * np.log2(p)).sum())


def test_entropy_information_loss():
    orig = pd.DataFrame({"a": [1, 2, 3, 4]})
    assert metrics.entropy_information_loss(orig, pd.DataFrame({"a": [1, 1, 3, 3]}),
                                            ["a"]) == 0.5
    assert metrics.entropy_information_loss(orig, orig, ["a"]) == 0.0
    suppressed = pd.DataFrame({"a": [np.nan] * 4})
    assert metrics.entropy_information_loss(orig, suppressed, ["a"]) == 1.0
    const = pd.DataFrame({"a": [1, 1]})
    assert metrics.entropy_information_loss(const, const, ["a"]) == 0.0


def test_changed_proportion():
    orig = pd.DataFrame({"a": [1, 2, 3, np.nan], "b": ["x", "y", "z", "w"]})
    anon = pd.DataFrame({
        "a": pd.Series([1, R(2, 3, "real"), R(2, 3, "real"), None], dtype="generalization[real]"),
        "b": pd.Series(["x", R(column_type="unordered", column_values=["y", "z"]), "z", None],
                       dtype="generalization[unordered]"),
    })
    # a: row 1, 2 changed (ranges), row 3 NaN stays NaN; b: row 1 (set), row 3 suppressed
    assert metrics.changed_proportion(orig, anon, ["a", "b"]) == pytest.approx(4 / 8)
    assert metrics.changed_proportion(orig, orig, ["a", "b"]) == 0.0
    plain = orig.assign(b=["x", "y", "q", None])
    assert metrics.changed_proportion(orig, plain, ["b"]) == 0.5


def test_changed_proportion_ordered_categorical_vs_generalized():
    cats = ["lo", "mid", "hi"]
    orig = pd.DataFrame({"e": pd.Categorical(["lo", "mid", "hi"], categories=cats, ordered=True)})
    anon = pd.DataFrame({"e": pdanon.GeneralizationArray.from_bounds(
        np.array([0, 0, 2]), np.array([1, 1, 2]), kind="ordered", categories=pd.Index(cats))})
    assert metrics.changed_proportion(orig, anon, {"e": "ordered"}) == pytest.approx(2 / 3)


def test_rows_matched_by_index():
    orig = pd.DataFrame({"a": [1, 2, 3, 4]}, index=[10, 11, 12, 13])
    anon = pd.DataFrame({"a": [2, 9]}, index=[11, 13])  # two rows dropped
    assert metrics.changed_proportion(orig, anon, ["a"]) == 0.5
    with pytest.raises(InvalidInputError, match="index"):
        metrics.changed_proportion(orig, pd.DataFrame({"a": [1]}, index=[99]), ["a"])
    with pytest.raises(UnknownColumnError):
        metrics.changed_proportion(orig, orig, ["zz"])
    with pytest.raises(UnknownColumnError, match="original frame lacks"):
        metrics.by_element_distance(orig.rename(columns={"a": "b"}), orig, ["a"])


# --------------------------------------------------------------------------- by-element distance


def test_by_element_seed_example():
    """The seed text's example (my_by_element_distance_columns_ordered)."""
    initial = pd.DataFrame([[1, 1, 1, 1], [1, 1, 1, 1], [2, 2, 2, 2], [2, 2, 2, 3]],
                           columns=list("abcd"))
    anon = pd.DataFrame([[1, 1, 1, 1], [1, 1, 1, 1], [2, 2, 2, 2.5], [2, 2, 2, 2.5]],
                        columns=list("abcd"))
    # column d, ordered: sorted initial values 1, 1, 2, 3; r(2) = 2, r(2.5) = r(3) = 3;
    # row 3 |2 - 3|/(4 - 1) = 1/3, row 4 0 -> column mean 1/12, over four columns 1/48
    kinds = {c: "ordered" for c in "abcd"}
    assert metrics.by_element_distance(initial, anon, kinds) == pytest.approx(1 / 48)
    # real: |2 - 2.5|/(3 - 1) twice -> 1/8 per column d, 1/32 overall
    kinds = {c: "real" for c in "abcd"}
    assert metrics.by_element_distance(initial, anon, kinds) == pytest.approx(1 / 32)
    per = metrics.by_element_distance(initial, anon, kinds, per_column=True)
    assert per.tolist() == pytest.approx([0, 0, 0, 0.125])


def test_by_element_real_ranges_and_missing():
    orig = pd.DataFrame({"x": [0.0, 5.0, 10.0, 4.0, np.nan]})
    anon = pd.DataFrame({"x": pd.Series([R(0, 5, "real"), R(0, 5, "real"), 10, None, None],
                                        dtype="generalization[real]")})
    # M - m = 10; row 1: ((0-0)² + (0-5)²)/(2·10·5) = 0.25; row 2: same 0.25; row 3: 0;
    # row 4: suppressed -> 1; row 5: NaN vs NaN -> 0
    d = metrics.by_element_distances(orig, anon, {"x": "real"})["x"].tolist()
    assert d == pytest.approx([0.25, 0.25, 0.0, 1.0, 0.0])
    assert metrics.by_element_distance(orig, anon, {"x": "real"}) == pytest.approx(1.5 / 5)


def test_by_element_constant_real_column_is_zero():
    orig = pd.DataFrame({"x": [3.0, 3.0]})
    assert metrics.by_element_distance(orig, orig.assign(x=[3.0, np.nan]), {"x": "real"}) == 0.5
    assert metrics.by_element_distance(orig, orig, {"x": "real"}) == 0.0


def test_by_element_range_vs_range_extension():
    # E|X - Y| for two uniforms on [0, 1] is 1/3; the span of the original column is 1
    orig = pd.DataFrame({"x": pd.Series([R(0, 1, "real"), 0, 1], dtype="generalization[real]")})
    anon = pd.DataFrame({"x": pd.Series([R(0, 1, "real"), 0, 1], dtype="generalization[real]")})
    d = metrics.by_element_distances(orig, anon, {"x": "real"})["x"].tolist()
    assert d == pytest.approx([1 / 3, 0, 0])
    # disjoint ranges [0, 1] and [2, 4]: E|X - Y| = 3 - 0.5 = 2.5, span of the original 4
    orig = pd.DataFrame({"x": pd.Series([R(0, 1, "real"), 4], dtype="generalization[real]")})
    anon = pd.DataFrame({"x": pd.Series([R(2, 4, "real"), 4], dtype="generalization[real]")})
    assert metrics.by_element_distances(orig, anon, {"x": "real"})["x"][0] == pytest.approx(
        2.5 / 4)


def test_by_element_unordered_sets():
    orig = pd.DataFrame({"c": ["a", "a", "c", "b", None, "a"]})
    anon = pd.DataFrame({"c": pd.Series(
        ["a", R(column_type="unordered", column_values=["a", "b"]),
         R(column_type="unordered", column_values=["a", "b"]), "c", None, None],
        dtype="generalization[unordered]")})
    # a=a 0; a in {a,b}: 1 - 1/2; c not in {a,b}: 0 (the reference's formula); b != c 1;
    # NaN vs NaN 0; value vs NaN 1
    d = metrics.by_element_distances(orig, anon, ["c"])["c"].tolist()
    assert d == pytest.approx([0, 0.5, 0, 1, 0, 1])
    # set vs set: 1 - IoU
    o2 = pd.DataFrame({"c": pd.Series([R(column_type="unordered", column_values=["a", "b"])],
                                      dtype="generalization[unordered]")})
    a2 = pd.DataFrame({"c": pd.Series([R(column_type="unordered", column_values=["b", "c", "d"])],
                                      dtype="generalization[unordered]")})
    assert metrics.by_element_distance(o2, a2, {"c": "unordered"}) == pytest.approx(1 - 1 / 4)


def test_by_element_ordered_categorical():
    cats = ["lo", "mid", "hi"]
    orig = pd.DataFrame({"e": pd.Categorical(["lo", "mid", "hi"], categories=cats, ordered=True)})
    anon = pd.DataFrame({"e": pdanon.GeneralizationArray.from_bounds(
        np.array([0, 0, 2]), np.array([1, 1, 2]), kind="ordered", categories=pd.Index(cats))})
    # ranks 0, 1, 2, n - 1 = 2: lo vs [lo, mid]: (0 + 1)/(2·2·1) = 1/4; mid: 1/4; hi: 0
    assert metrics.by_element_distance(orig, anon, {"e": "ordered"}) == pytest.approx(1 / 6)


# -- property test against a cell loop written from the metrics' definitions (docs/metrics.md)


def ref_cell_real(a, b, span):
    if isna(a) and isna(b):
        return 0.0
    if isna(a) or isna(b):
        return 1.0
    if span == 0:
        return 0.0
    ra, rb = isinstance(a, R) and a.min != a.max, isinstance(b, R) and b.min != b.max
    a = a.min if isinstance(a, R) and not ra else a
    b = b.min if isinstance(b, R) and not rb else b
    if not ra and not rb:
        return abs(a - b) / span
    if ra and not rb:
        a, b = b, a
    if not (ra and rb):
        return ((a - b.min) ** 2 + (a - b.max) ** 2) / (2 * span * (b.max - b.min))
    raise AssertionError("range vs range not generated")


def ref_real(orig, anon):
    vals = [v for x in orig if not isna(x) for v in ((x.min, x.max) if isinstance(x, R) else (x,))]
    span = max(vals) - min(vals) if vals else 0
    return np.mean([ref_cell_real(a, b, span) for a, b in zip(orig, anon)])


def ref_ordered(orig, anon):
    ref = sorted(v for x in orig if not isna(x)
                 for v in ((x.min, x.max) if isinstance(x, R) else (x,)))
    n = len(orig)

    def r(x):
        return bisect.bisect_left(ref, x)

    total = 0.0
    for a, b in zip(orig, anon):
        if isna(a) and isna(b):
            continue
        if isna(a) or isna(b):
            total += 1
            continue
        if n == 1:
            continue
        lo_b, hi_b = (r(b.min), r(b.max)) if isinstance(b, R) else (r(b), r(b))
        ra = r(a)
        if lo_b == hi_b:
            total += abs(ra - lo_b) / (n - 1)
        else:
            total += ((ra - lo_b) ** 2 + (ra - hi_b) ** 2) / (2 * (n - 1) * (hi_b - lo_b))
    return total / n


def ref_unordered(orig, anon):
    total = 0.0
    for a, b in zip(orig, anon):
        if isna(a) and isna(b):
            continue
        if isna(a) or isna(b):
            total += 1
            continue
        sa = set(a.values_set) if isinstance(a, R) else {a}
        sb = set(b.values_set) if isinstance(b, R) else {b}
        if len(sa) == 1 and len(sb) == 1:
            total += float(sa != sb)
        elif len(sa) == 1 or len(sb) == 1:
            (v,), s = (sa, sb) if len(sa) == 1 else (sb, sa)
            total += 1 - 1 / len(s) if v in s else 0.0
        else:
            total += 1 - len(sa & sb) / len(sa | sb)
    return total / len(orig)


@st.composite
def generalized_pairs(draw, kind):
    n = draw(st.integers(1, 25))
    if kind == "unordered":
        pool = ["a", "b", "c", "d"]
        orig = draw(st.lists(st.sampled_from(pool + [None]), min_size=n, max_size=n))
        anon = []
        for v in orig:
            choice = draw(st.integers(0, 3))
            if choice == 0:
                anon.append(v)
            elif choice == 1:
                anon.append(None)
            elif choice == 2:
                anon.append(draw(st.sampled_from(pool)))
            else:
                members = draw(st.sets(st.sampled_from(pool), min_size=2, max_size=4))
                anon.append(R(column_type="unordered", column_values=sorted(members)))
        return orig, anon
    pool = [1.0, 2.0, 4.0, 7.0, 11.0]
    orig = draw(st.lists(st.sampled_from(pool + [None]), min_size=n, max_size=n))
    present = sorted({v for v in orig if v is not None}) or [1.0]
    anon = []
    for v in orig:
        choice = draw(st.integers(0, 3))
        if choice == 0 or v is None:
            anon.append(v if choice != 1 else None)
        elif choice == 1:
            anon.append(None)
        elif choice == 2:
            anon.append(draw(st.sampled_from(present)))
        else:
            lo = draw(st.sampled_from([p for p in present if p <= v]))
            hi = draw(st.sampled_from([p for p in present if p >= v]))
            anon.append(R(lo, hi, kind) if hi > lo else v)
    return orig, anon


@SETTINGS
@given(generalized_pairs("real"))
def test_by_element_real_matches_loop(pair):
    orig, anon = pair
    o = pd.DataFrame({"x": pd.Series(orig, dtype="float64")})
    a = pd.DataFrame({"x": pd.Series(anon, dtype="generalization[real]")})
    expected = ref_real([np.nan if v is None else v for v in orig], a["x"].tolist())
    assert metrics.by_element_distance(o, a, {"x": "real"}) == pytest.approx(expected, abs=1e-12)


@SETTINGS
@given(generalized_pairs("ordered"))
def test_by_element_ordered_matches_loop(pair):
    orig, anon = pair
    o = pd.DataFrame({"x": pd.Series(orig, dtype="float64")})
    a = pd.DataFrame({"x": pd.Series(anon, dtype="generalization[ordered]")})
    expected = ref_ordered([np.nan if v is None else v for v in orig], a["x"].tolist())
    assert metrics.by_element_distance(o, a, {"x": "ordered"}) == pytest.approx(expected,
                                                                                abs=1e-12)


@SETTINGS
@given(generalized_pairs("unordered"))
def test_by_element_unordered_matches_loop(pair):
    orig, anon = pair
    o = pd.DataFrame({"x": pd.Series(orig, dtype=object)})
    a = pd.DataFrame({"x": pd.Series(anon, dtype="generalization[unordered]")})
    expected = ref_unordered(o["x"].tolist(), a["x"].tolist())
    assert metrics.by_element_distance(o, a, {"x": "unordered"}) == pytest.approx(expected,
                                                                                  abs=1e-12)


@SETTINGS
@given(generalized_pairs("unordered"))
def test_changed_proportion_matches_loop(pair):
    orig, anon = pair
    o = pd.DataFrame({"x": pd.Series(orig, dtype=object)})
    a = pd.DataFrame({"x": pd.Series(anon, dtype="generalization[unordered]")})
    expected = np.mean([not ((isna(x) and isna(y)) or (not isna(x) and not isinstance(y, R)
                                                       and not isna(y) and x == y))
                        for x, y in zip(o["x"], a["x"])])
    assert metrics.changed_proportion(o, a, {"x": "unordered"}) == pytest.approx(expected)


# --------------------------------------------------------------------------- table & accessor


def test_metrics_table_without_original():
    df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    m = df.anon.metrics(quasi_identifiers=["zip"], sensitive=["d"])
    assert list(m.columns) == ["metric", "label", "value", "better", "meaning"]
    got = dict(zip(m["metric"], m["value"]))
    assert got == {
        "k_anonymity": 2.0,
        # the record-level risk rows: two classes of 2 -> every row's prosecutor risk is 1/2
        "highest_prosecutor_risk": 0.5, "average_prosecutor_risk": 0.5,
        "median_prosecutor_risk": 0.5, "records_at_risk": 1.0, "sample_uniques": 0.0,
        "marketer_risk": 0.5,
        "l_diversity_distinct": 1.0, "l_diversity_entropy": 1.0,
        "t_closeness_emd": 0.25, "adversarial_knowledge_gain": 0.25,
        "adversarial_accuracy_gain": 0.0, "equivalence_classes": 2.0,
        "average_class_size": 2.0, "distinctness": 0.75, "non_uniform_entropy": 1.0,
    }
    assert set(m["better"]) == {"higher", "lower"}
    # the key, label, better and meaning of every row come from the one registry
    for r in m.to_dict(orient="records"):
        f = metrics.FIGURES[r["metric"]]
        assert (r["label"], r["better"]) == (f.label, f.better)
        assert r["meaning"] == f.describe(threshold=0.2)
    assert m.set_index("metric").loc["t_closeness_emd", "label"] == "t-closeness (EMD)"
    text = repr(m)
    assert "..." not in text and "risk: largest class-to-table distance" in text
    # without sensitive columns only the k / utility rows
    m2 = df.anon.metrics(quasi_identifiers=["zip"])
    assert "t_closeness_emd" not in set(m2["metric"])


def test_metrics_table_with_original_matches_functions():
    adult = pdanon.datasets.load_adult(nrows=3000)
    qis = ["age", "sex", "race", "education"]
    out = adult.anon.k_anonymize(5, quasi_identifiers=qis, sensitive=["salary-class"])
    m = out.anon.metrics(adult).set_index("metric")["value"]
    assert m["k_anonymity"] >= 5
    assert m["changed_proportion"] == pytest.approx(metrics.changed_proportion(adult, out, qis))
    assert m["by_element_distance"] == pytest.approx(
        metrics.by_element_distance(adult, out, out.anon.roles().quasi_identifiers))
    assert m["entropy_information_loss"] == pytest.approx(
        metrics.entropy_information_loss(adult, out, qis))
    assert m["t_closeness_emd"] == pytest.approx(out.anon.t_closeness())
    assert m["l_diversity_distinct"] == out.anon.l_diversity()
    with pytest.raises(InvalidInputError, match="original"):
        out.anon.metrics(ml=True)


def test_accessor_levels():
    df = pd.DataFrame({"zip": [1, 1, 1, 2, 2, 2], "d": ["a", "a", "b", "a", "b", "c"]})
    assert df.anon.l_diversity(quasi_identifiers=["zip"], sensitive=["d"]) == 2
    assert df.anon.l_diversity(variant="entropy", quasi_identifiers=["zip"],
                               sensitive=["d"]) == pytest.approx(1.8898815748423097)
    assert df.anon.l_diversity(variant="recursive", c=2, quasi_identifiers=["zip"],
                               sensitive=["d"]) == 1
    assert df.anon.t_closeness(quasi_identifiers=["zip"], sensitive=["d"]) == pytest.approx(1 / 6)
    h = {"a": ["X"], "b": ["X"], "c": ["Y"]}
    assert df.anon.t_closeness(distance="hierarchical", hierarchies={"d": h},
                               quasi_identifiers=["zip"], sensitive=["d"]) >= 0
    with pytest.raises(InvalidInputError, match="sensitive"):
        df.anon.l_diversity(quasi_identifiers=["zip"])
    adult = pdanon.datasets.load_adult(nrows=500)  # roles remembered: salary-class sensitive
    assert adult.anon.l_diversity() == 1
    assert 0 < adult.anon.t_closeness() <= 1


def test_metrics_do_not_mutate_inputs():
    adult = pdanon.datasets.load_adult(nrows=400)
    out = adult.anon.k_anonymize(3, quasi_identifiers=["age", "sex"], sensitive=["salary-class"])
    a0, o0 = adult.copy(), out.copy()
    out.anon.metrics(adult)
    pd.testing.assert_frame_equal(adult, a0)
    pd.testing.assert_frame_equal(out, o0)


# --------------------------------------------------------------------------- frames swapped


def _raw():
    return pd.DataFrame({"age": [30, 31, 40, 42, 50, 51], "zip": list("aabbcc"),
                         "d": ["x", "y", "x", "y", "x", "y"]})


def test_swapped_frames_are_refused_with_the_right_call():
    raw = _raw()
    roles = dict(quasi_identifiers=["age", "zip"], sensitive=["d"])
    release = raw.anon.k_anonymize(2, algorithm="mondrian", **roles)
    with pytest.raises(InvalidInputError, match=r"the frames seem swapped: the original holds "
                                                r"a pdanon anonymizer's info.*"
                                                r"release\.anon\.metrics\(original=raw\)"):
        raw.anon.metrics(original=release, **roles)
    with pytest.raises(InvalidInputError, match="seem swapped"):
        metrics.metrics_table(raw, release, **roles)
    # the same release read back from CSV: no info, no generalized dtype, only blank cells
    blanked = raw.astype({"age": float}).copy()
    blanked.loc[[4, 5], ["age", "zip"]] = None
    with pytest.raises(InvalidInputError, match="holds 4 blank cell"):
        metrics.metrics_table(raw, blanked, **roles)
    # a release that dropped rows: the original's index lacks rows of the "release"
    with pytest.raises(InvalidInputError, match="seem swapped"):
        metrics.metrics_table(raw, release.iloc[:4], **roles)
    # the right way round works, and so do frames with no mark on either side
    m = release.anon.metrics(original=raw, **roles).set_index("metric")["value"]
    assert m["changed_proportion"] == pytest.approx(metrics.changed_proportion(raw, release))
    assert metrics.metrics_table(blanked, raw, **roles) is not None
    same = metrics.metrics_table(raw, raw.copy(), **roles).set_index("metric")["value"]
    assert same["changed_proportion"] == 0.0


def test_order_check_keeps_perturbations_and_generalized_originals():
    raw = _raw()
    noisy = raw.anon.add_noise(["age"], noise=0.1, seed=1, quasi_identifiers=["age", "zip"],
                               sensitive=["d"])
    # a perturbation publishes no blank or generalized cell, but carries its info
    assert "il1s" in set(noisy.anon.metrics(original=raw)["metric"])
    with pytest.raises(InvalidInputError, match="seem swapped"):
        raw.anon.metrics(original=noisy)
    # both frames generalized (re-anonymizing a release): no refusal
    first = raw.anon.k_anonymize(2, algorithm="mondrian", quasi_identifiers=["age", "zip"])
    again = first.anon.k_anonymize(3, algorithm="mondrian", quasi_identifiers=["age", "zip"])
    assert len(metrics.metrics_table(again, first, quasi_identifiers=["age", "zip"]))
