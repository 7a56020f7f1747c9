"""Privacy levels (k, l, t) and the model classes: exact values on hand-checked tables and
property tests against straightforward per-class loops written here."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from scipy.stats import entropy as scipy_entropy
from scipy.stats import wasserstein_distance

import pdanon
from pdanon.distributions import ClassCounts, SensitiveData
from pdanon import models
from pdanon._errors import InfeasibleError, InvalidInputError, KindError, UnknownColumnError
from pdanon.dtype import GeneralizationRange as R
from pdanon.models import (
    KAnonymity,
    LDiversity,
    TCloseness,
    k_anonymity,
    l_diversity,
    t_closeness,
)

# --------------------------------------------------------------------------- reference loops


def groups_of(df, qis):
    """Rows of each equivalence class (NaN equal to NaN), by plain Python."""
    out = {}
    for i, row in enumerate(df[qis].itertuples(index=False)):
        key = tuple("<NA>" if pd.isna(v) else v for v in row)
        out.setdefault(key, []).append(i)
    return list(out.values())


def norm(v):
    return "<NA>" if pd.isna(v) else v


def ref_l(df, qis, sens, variant="distinct", c=None, rule="value"):
    """``rule="unknown"``: missing cells left out (a class without a known value: l = 0)."""
    best = math.inf
    for rows in groups_of(df, qis):
        for s in sens:
            vals = [norm(v) for v in df[s].iloc[rows]]
            if rule == "unknown":
                vals = [v for v in vals if v != "<NA>"]
                if not vals:
                    best = 0
                    continue
            counts = sorted(pd.Series(vals).value_counts().tolist(), reverse=True)
            if variant == "distinct":
                got = len(counts)
            elif variant == "entropy":
                p = np.array(counts) / sum(counts)
                got = math.exp(-(p * np.log(p)).sum())
            else:
                got = 0
                for l in range(1, len(counts) + 1):
                    if counts[0] < c * sum(counts[l - 1:]):
                        got = l
            best = min(best, got)
    return best


def dist_vectors(values_all, values_cls, order):
    """p (class) and q (table) over the values in ``order``."""
    q = np.array([sum(1 for v in values_all if v == o) for o in order], float)
    p = np.array([sum(1 for v in values_cls if v == o) for o in order], float)
    return p / p.sum(), q / q.sum()


def ordered_values(values):
    nonna = sorted({v for v in values if v != "<NA>"})
    return nonna + (["<NA>"] if "<NA>" in values else [])


def ref_emd_lp(p, q, ground):
    """EMD by linear programming: min Σ f_ij d_ij, Σ_j f_ij = p_i, Σ_i f_ij = q_j."""
    m = len(p)
    cost = ground.reshape(-1)
    a_eq = []
    for i in range(m):
        row = np.zeros((m, m))
        row[i, :] = 1
        a_eq.append(row.reshape(-1))
    for j in range(m):
        col = np.zeros((m, m))
        col[:, j] = 1
        a_eq.append(col.reshape(-1))
    res = linprog(cost, A_eq=np.array(a_eq), b_eq=np.concatenate([p, q]), bounds=(0, None),
                  method="highs")
    return res.fun


def ref_t(df, qis, sens_kinds, distance="emd", rule="value"):
    """``rule="unknown"``: the class's known values against the table's (a class without a
    known value: distance 0)."""
    worst = 0.0
    for rows in groups_of(df, qis):
        for s, kind in sens_kinds.items():
            all_v = [norm(v) for v in df[s]]
            cls_v = [all_v[i] for i in rows]
            known = [i for i in rows if all_v[i] != "<NA>"]
            if rule == "unknown":
                all_v = [v for v in all_v if v != "<NA>"]
                cls_v = [v for v in cls_v if v != "<NA>"]
                if not cls_v:
                    continue
            if distance == "reference" and kind == "real":
                a = df[s].to_numpy(float)
                b = a[known] if rule == "unknown" else a[rows]
                a = a[~np.isnan(a)] if rule == "unknown" else a
                d = wasserstein_distance(a, b) / (a.max() - a.min() + 1e-10)
            elif distance in ("jensen_shannon", "reference"):
                order = list(dict.fromkeys(all_v))
                p, q = dist_vectors(all_v, cls_v, order)
                m = (p + q) / 2
                d = (scipy_entropy(p, m) + scipy_entropy(q, m)) / 2
            elif kind == "unordered":
                order = list(dict.fromkeys(all_v))
                p, q = dist_vectors(all_v, cls_v, order)
                d = 0.5 * np.abs(p - q).sum()
            else:
                order = ordered_values(all_v)
                p, q = dist_vectors(all_v, cls_v, order)
                m = len(order)
                d = 0.0 if m == 1 else sum(
                    abs(sum(p[j] - q[j] for j in range(i + 1))) for i in range(m)) / (m - 1)
            worst = max(worst, d)
    return worst


# --------------------------------------------------------------------------- k


def test_k_anonymity_lead_behaviour_kept():
    df = pd.DataFrame({"age": [1, 1, 2, 2, 2]})
    assert k_anonymity(df, ["age"]) == 2
    assert KAnonymity(2).holds(df, ["age"]) and not KAnonymity(3).holds(df, ["age"])
    assert k_anonymity(df.iloc[:0], ["age"]) == 0
    assert k_anonymity(df, []) == 5


def test_k_on_generalized_and_suppressed_cells():
    df = pd.DataFrame({
        "age": pd.Series([R(20, 29, "real"), R(20, 29, "real"), None, None, 35],
                         dtype="generalization[real]"),
        "sex": ["F", "F", None, None, "M"],
    })
    assert k_anonymity(df, ["age", "sex"]) == 1
    assert k_anonymity(df.iloc[:4], ["age", "sex"]) == 2


# --------------------------------------------------------------------------- l


TABLE = pd.DataFrame({
    "zip": [1, 1, 1, 2, 2, 2, 2],
    "d": ["a", "a", "b", "a", "b", "c", "c"],
    "e": ["x", "y", "z", "x", "x", "x", "y"],
})


def test_l_distinct_hand_checked():
    assert l_diversity(TABLE, ["zip"], ["d"]) == 2
    assert l_diversity(TABLE, ["zip"], ["e"]) == 2
    assert l_diversity(TABLE, ["zip"], ["d", "e"]) == 2
    assert l_diversity(TABLE.iloc[:3], ["zip"], ["d"]) == 2
    assert l_diversity(TABLE, ["zip"], {"d": "unordered"}) == 2


def test_l_entropy_hand_checked():
    # class 1: a, a, b -> H = -(2/3 ln 2/3 + 1/3 ln 1/3); class 2: a, b, c, c
    h1 = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    h2 = -(2 * 0.25 * math.log(0.25) + 0.5 * math.log(0.5))
    got = l_diversity(TABLE, ["zip"], ["d"], variant="entropy")
    assert isinstance(got, float)
    assert got == pytest.approx(math.exp(min(h1, h2)), abs=1e-12)
    assert got == pytest.approx(1.8898815748423097)


def test_l_recursive_hand_checked():
    # class 1 counts (2, 1); class 2 counts (2, 1, 1)
    # c = 2: class 1: l=1: 2 < 2*3 ok; l=2: 2 < 2*1 no -> 1. class 2: l=2: 2 < 2*2 ok;
    # l=3: 2 < 2*1 no -> 2. min = 1
    assert l_diversity(TABLE, ["zip"], ["d"], variant="recursive", c=2) == 1
    assert l_diversity(TABLE, ["zip"], ["d"], variant="recursive", c=3) == 2
    assert l_diversity(TABLE.iloc[3:], ["zip"], ["d"], variant="recursive", c=3) == 3
    # c <= 1 and a constant class: not even l = 1
    const = pd.DataFrame({"q": [1, 1], "s": ["a", "a"]})
    assert l_diversity(const, ["q"], ["s"], variant="recursive", c=1) == 0


def test_l_missing_values_are_unknown_or_one_value():
    df = pd.DataFrame({"q": [1, 1, 1, 2, 2], "s": ["a", None, None, "b", np.nan]})
    # known values: class 1 {a}, class 2 {b}; the blanks beside them hide nothing
    assert l_diversity(df, ["q"], ["s"]) == 1
    assert l_diversity(df, ["q"], ["s"], missing_sensitive="value") == 2
    # 5 x hiv and 5 blanks: l = 1 (entropy and recursive too); every cell blank: l = 0
    hiv = pd.DataFrame({"q": [1] * 10 + [2] * 2, "s": ["hiv"] * 5 + [None] * 7})
    assert l_diversity(hiv.iloc[:10], ["q"], ["s"]) == 1
    assert l_diversity(hiv.iloc[:10], ["q"], ["s"], variant="entropy") == 1.0
    assert l_diversity(hiv.iloc[:10], ["q"], ["s"], variant="recursive", c=2) == 1
    assert l_diversity(hiv, ["q"], ["s"]) == 0
    assert l_diversity(hiv, ["q"], ["s"], variant="entropy") == 0.0
    assert l_diversity(hiv.iloc[:10], ["q"], ["s"], missing_sensitive="value") == 2
    assert not LDiversity(2).holds(hiv.iloc[:10], ["q"], ["s"])
    assert LDiversity(2, missing_sensitive="value").holds(hiv.iloc[:10], ["q"], ["s"])
    with pytest.raises(InvalidInputError, match="missing_sensitive must be"):
        l_diversity(df, ["q"], ["s"], missing_sensitive="blank")


def test_l_on_generalized_qis():
    df = pd.DataFrame({
        "age": pd.Series([R(20, 29, "real")] * 3 + [40, 40], dtype="generalization[real]"),
        "s": ["a", "b", "c", "a", "a"],
    })
    assert l_diversity(df, ["age"], ["s"]) == 1
    assert l_diversity(df.iloc[:3], ["age"], ["s"]) == 3


def test_l_errors():
    with pytest.raises(InvalidInputError, match="sensitive"):
        l_diversity(TABLE, ["zip"], [])
    with pytest.raises(InvalidInputError, match="variant"):
        l_diversity(TABLE, ["zip"], ["d"], variant="nope")
    with pytest.raises(InvalidInputError, match="c > 0"):
        l_diversity(TABLE, ["zip"], ["d"], variant="recursive")
    with pytest.raises(UnknownColumnError, match="nope"):
        l_diversity(TABLE, ["nope"], ["d"])
    with pytest.raises(UnknownColumnError, match="nope"):
        l_diversity(TABLE, ["zip"], ["nope"])
    assert l_diversity(TABLE.iloc[:0], ["zip"], ["d"]) == 0


# --------------------------------------------------------------------------- t


def test_t_emd_unordered_hand_checked():
    df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    # table (3/4, 1/4); class 1 (1/2, 1/2): TV 1/4; class 2 (1, 0): TV 1/4
    assert t_closeness(df, ["zip"], ["d"]) == pytest.approx(0.25)


def test_t_emd_ordered_hand_checked():
    # Li et al.'s salary example: values 3k..11k, table uniform over 9 values; class {3k,4k,5k}
    vals = [3, 4, 5, 6, 7, 8, 9, 10, 11]
    df = pd.DataFrame({"q": [0, 0, 0] + [1] * 6, "s": vals})
    # class 0: p = 1/3 on the three lowest; cumulative diffs 2/9, 4/9, 6/9, 5/9, 4/9, 3/9,
    # 2/9, 1/9, 0 -> sum 27/9 = 3, / (m-1 = 8) = 0.375 (the paper's 0.375)
    assert t_closeness(df, ["q"], {"s": "ordered"}) == pytest.approx(0.375)
    # real uses the same ordered-distance EMD over the sorted distinct values
    assert t_closeness(df, ["q"], {"s": "real"}) == pytest.approx(0.375)
    # {6k, 8k, 11k}-type class from the paper: 0.167
    df2 = pd.DataFrame({"q": [0, 1, 1, 0, 1, 0, 1, 1, 0], "s": vals})
    # class 0 = {3, 6, 8, 11}? compute with the loop instead
    assert t_closeness(df2, ["q"], {"s": "ordered"}) == pytest.approx(
        ref_t(df2, ["q"], {"s": "ordered"}))


def test_t_paper_example_disease_equal_distance():
    # equal-distance EMD of a class holding only one of three equally frequent values
    df = pd.DataFrame({"q": [0, 1, 1, 2, 2, 2], "s": ["x", "x", "y", "y", "z", "z"]})
    # table (1/3, 1/3, 1/3); class 0 = (1, 0, 0) -> TV 2/3
    assert t_closeness(df, ["q"], ["s"]) == pytest.approx(2 / 3)


def test_t_jensen_shannon_is_the_divergence_natural_log():
    df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    got = t_closeness(df, ["zip"], ["d"], distance="jensen_shannon")
    # class 2: P = (1, 0), Q = (3/4, 1/4), M = (7/8, 1/8)
    kl_pm = math.log(8 / 7)
    kl_qm = 0.75 * math.log(0.75 / 0.875) + 0.25 * math.log(2)
    assert got == pytest.approx((kl_pm + kl_qm) / 2, abs=1e-12)
    assert got == pytest.approx(0.09560258894703261, abs=1e-12)
    # "reference" uses it for unordered columns
    assert t_closeness(df, ["zip"], ["d"], distance="reference") == got
    # largest possible value ln 2 is approached only asymptotically; disjoint supports:
    far = pd.DataFrame({"q": [0, 1], "s": ["a", "b"]})
    p, q = np.array([1, 0.0]), np.array([0.5, 0.5])
    m = (p + q) / 2
    assert t_closeness(far, ["q"], ["s"], distance="jensen_shannon") == pytest.approx(
        (scipy_entropy(p, m) + scipy_entropy(q, m)) / 2)


def test_t_wasserstein_reference_formula():
    vals = np.array([3.0, 4, 5, 6, 7, 8, 9, 10, 11])
    df = pd.DataFrame({"q": [0, 0, 0] + [1] * 6, "s": vals})
    expected = max(wasserstein_distance(vals, vals[:3]), wasserstein_distance(vals, vals[3:])) / (
        8 + 1e-10)
    got = t_closeness(df, ["q"], {"s": "real"}, distance="wasserstein")
    assert got == pytest.approx(expected, rel=1e-12)
    assert t_closeness(df, ["q"], {"s": "real"}, distance="reference") == got
    with pytest.raises(KindError, match="unordered"):
        t_closeness(df, ["q"], {"s": "unordered"}, distance="wasserstein")
    df.loc[0, "s"] = np.nan
    with pytest.raises(InvalidInputError, match="missing"):
        t_closeness(df, ["q"], {"s": "real"}, distance="wasserstein", missing_sensitive="value")
    # by default the distance is measured on the known values
    a = vals[1:]
    expected = max(wasserstein_distance(a, a[:2]), wasserstein_distance(a, a[2:])) / (
        7 + 1e-10)
    assert t_closeness(df, ["q"], {"s": "real"}, distance="wasserstein") == pytest.approx(
        expected, rel=1e-12)


def test_t_hierarchical_emd():
    # leaves a, b under X; c under Y; root above: height 2
    h = {"a": ["X"], "b": ["X"], "c": ["Y"]}
    df = pd.DataFrame({"q": [0, 0, 1, 1], "s": ["a", "b", "c", "c"]})
    # table (1/4, 1/4, 1/2); class 0 = (1/2, 1/2, 0): moving 1/2 from X to Y costs 1 per unit
    # (LCA = root, height 2/2): EMD 0.5
    got = t_closeness(df, ["q"], ["s"], distance="hierarchical", hierarchies={"s": h})
    assert got == pytest.approx(0.5)
    # same hierarchy as an ARX-style frame with an explicit root column
    frame = pd.DataFrame([["a", "X", "*"], ["b", "X", "*"], ["c", "Y", "*"]])
    assert t_closeness(df, ["q"], ["s"], distance="hierarchical",
                       hierarchies={"s": frame}) == pytest.approx(0.5)
    # siblings only: a vs b inside X costs 1/2 per unit
    df2 = pd.DataFrame({"q": [0, 1], "s": ["a", "b"]})
    # table (1/2, 1/2); class 0 = (1, 0): move 1/2 from a to b at cost 1/2 -> 0.25
    assert t_closeness(df2, ["q"], ["s"], distance="hierarchical",
                       hierarchies={"s": h}) == pytest.approx(0.25)
    with pytest.raises(InvalidInputError, match="lacks"):
        t_closeness(df2, ["q"], ["s"], distance="hierarchical", hierarchies={"s": {"a": ["X"]}})
    with pytest.raises(InvalidInputError, match="hierarchies"):
        t_closeness(df2, ["q"], ["s"], distance="hierarchical")


def test_t_hierarchical_accepts_pdanon_hierarchies():
    from pdanon import hierarchy

    df = pd.DataFrame({"q": [0, 0, 1, 1], "s": ["a", "b", "c", "c"]})
    tree = hierarchy.tree({"X": ["a", "b"], "Y": ["c"]})
    assert t_closeness(df, ["q"], ["s"], distance="hierarchical",
                       hierarchies={"s": tree}) == pytest.approx(0.5)
    # a rule-based hierarchy is evaluated on the column's values: 23 -> 20-24 -> 20-29 -> *
    ages = pd.DataFrame({"q": [0, 0, 1, 1], "s": [23, 24, 37, 41]})
    # class {23, 24} vs uniform table: TV 1/2 at each of the three levels below the root
    assert t_closeness(ages, ["q"], {"s": "real"}, distance="hierarchical",
                       hierarchies={"s": hierarchy.intervals([5, 10])}) == pytest.approx(0.5)


def test_t_hierarchical_with_shipped_adult_hierarchy():
    adult = pdanon.datasets.load_adult(nrows=3000)
    frame = pd.read_csv(pdanon.datasets.adult_hierarchy_path("occupation"), sep=";",
                        header=None)
    got = t_closeness(adult, ["sex", "race"], ["occupation"], distance="hierarchical",
                      hierarchies={"occupation": frame})
    # equals the LP earth mover's distance with ground distance height(LCA)/2
    parent = dict(zip(frame[0], frame[1]))
    order = list(dict.fromkeys(adult["occupation"]))
    ground = np.array([[0 if a == b else (0.5 if parent[a] == parent[b] else 1.0)
                        for b in order] for a in order])
    worst = 0.0
    for rows in groups_of(adult, ["sex", "race"]):
        cls = adult["occupation"].iloc[rows].tolist()
        p, q = dist_vectors(adult["occupation"].tolist(), cls, order)
        worst = max(worst, ref_emd_lp(p, q, ground))
    assert got == pytest.approx(worst, abs=1e-7)


def test_t_multiple_columns_take_the_max_and_kinds_override():
    df = pd.DataFrame({"q": [0, 0, 1, 1], "a": ["x", "y", "x", "y"], "b": [1, 1, 2, 2]})
    assert t_closeness(df, ["q"], ["a"]) == 0
    assert t_closeness(df, ["q"], ["a", "b"]) == pytest.approx(0.5)
    assert t_closeness(df, ["q"], ["a", "b"], kinds={"b": "unordered"}) == pytest.approx(0.5)
    with pytest.raises(InvalidInputError, match="distance"):
        t_closeness(df, ["q"], ["a"], distance="cosine")


def test_t_ordered_categorical_uses_category_order():
    cat = pd.Categorical(["hi", "lo", "mid", "lo"], categories=["lo", "mid", "hi"], ordered=True)
    df = pd.DataFrame({"q": [0, 0, 1, 1], "s": cat})
    # table lo 1/2, mid 1/4, hi 1/4; class 0 = {hi, lo}: p = (1/2, 0, 1/2)
    # cumulative diffs: 0, -1/4, 0 -> 1/4 / 2 = 0.125; class 1 = {mid, lo}: (1/2, 1/2, 0):
    # 0, 1/4, 0 -> 0.125
    assert t_closeness(df, ["q"], ["s"]) == pytest.approx(0.125)


def test_t_missing_values_are_one_value_ranked_last():
    df = pd.DataFrame({"q": [0, 0, 1, 1], "s": [1.0, np.nan, 2.0, np.nan]})
    # ordered values 1, 2, NaN: table (1/4, 1/4, 1/2), class 0 (1/2, 0, 1/2): cum 1/4, 0 -> 1/8
    assert t_closeness(df, ["q"], {"s": "ordered"},
                       missing_sensitive="value") == pytest.approx(0.125)


def test_t_missing_values_unknown_by_default():
    df = pd.DataFrame({"q": [0, 0, 1, 1, 2], "s": [1.0, np.nan, 2.0, np.nan, np.nan]})
    # known values 1, 2: table (1/2, 1/2); class 0 (1, 0): cum |1 - 1/2| / 1 = 1/2; class 2
    # has no known value: distance 0 (it shows nothing)
    assert t_closeness(df, ["q"], {"s": "ordered"}) == pytest.approx(0.5)
    assert t_closeness(df.iloc[[0, 2, 4]], ["q"], {"s": "unordered"}) == pytest.approx(0.5)
    assert t_closeness(df.iloc[[0, 4]], ["q"], {"s": "unordered"}) == 0.0
    assert t_closeness(df.iloc[[0, 4]], ["q"], {"s": "unordered"},
                       missing_sensitive="value") == pytest.approx(0.5)
    assert TCloseness(0.1).holds(df.iloc[[0, 4]], ["q"], ["s"])
    assert not TCloseness(0.1, missing_sensitive="value").holds(df.iloc[[0, 4]], ["q"], ["s"])


def test_t_empty_frame():
    df = pd.DataFrame({"q": pd.Series([], dtype=int), "s": pd.Series([], dtype=str)})
    assert t_closeness(df, ["q"], ["s"]) == 0.0


# --------------------------------------------------------------------------- property tests

values = st.sampled_from(["a", "b", "c", "d", None])


@st.composite
def frames(draw, numeric_sensitive=False):
    n = draw(st.integers(1, 40))
    q1 = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    q2 = draw(st.lists(st.sampled_from(["x", "y", None]), min_size=n, max_size=n))
    if numeric_sensitive:
        s = draw(st.lists(st.sampled_from([1.0, 2.5, 3.0, 7.0, 10.0]), min_size=n, max_size=n))
    else:
        s = draw(st.lists(values, min_size=n, max_size=n))
    s2 = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    return pd.DataFrame({"q1": q1, "q2": q2, "s": s, "s2": s2})


SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(frames(), st.sampled_from(["distinct", "entropy", "recursive"]),
       st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0]), st.sampled_from(["unknown", "value"]))
def test_l_matches_loop(df, variant, c, rule):
    got = l_diversity(df, ["q1", "q2"], ["s", "s2"], variant=variant,
                      c=c if variant == "recursive" else None, missing_sensitive=rule)
    assert got == pytest.approx(ref_l(df, ["q1", "q2"], ["s", "s2"], variant, c, rule),
                                abs=1e-9)


@SETTINGS
@given(frames(), st.sampled_from(["emd", "jensen_shannon"]),
       st.sampled_from(["unknown", "value"]))
def test_t_categorical_matches_loop(df, distance, rule):
    kinds = {"s": "unordered", "s2": "ordered"}
    got = t_closeness(df, ["q1", "q2"], kinds, distance=distance, missing_sensitive=rule)
    assert got == pytest.approx(ref_t(df, ["q1", "q2"], kinds, distance, rule), abs=1e-9)


@SETTINGS
@given(frames(numeric_sensitive=True), st.sampled_from(["emd", "reference"]))
def test_t_real_matches_loop(df, distance):
    kinds = {"s": "real"}
    got = t_closeness(df, ["q1", "q2"], kinds, distance=distance)
    assert got == pytest.approx(ref_t(df, ["q1", "q2"], kinds, distance), abs=1e-9)


@SETTINGS
@given(frames())
def test_ordered_emd_matches_linear_program(df):
    sub = df.dropna(subset=["s"]).reset_index(drop=True)
    if len(sub) == 0:
        return
    got_all = models.achieved_t(
        ClassCounts.from_labels(pdanon._groups.class_labels(sub, ["q1"]),
                                SensitiveData.from_frame(sub, {"s2": "ordered"})), "emd")
    order = sorted(set(sub["s2"]))
    m = len(order)
    ground = (np.abs(np.subtract.outer(np.arange(m), np.arange(m))) / max(m - 1, 1))
    for g, rows in enumerate(groups_of(sub, ["q1"])):
        p, q = dist_vectors(sub["s2"].tolist(), sub["s2"].iloc[rows].tolist(), order)
        assert got_all[g] == pytest.approx(ref_emd_lp(p, q, ground), abs=1e-7)


# --------------------------------------------------------------------------- model classes


def test_ldiversity_model():
    m = LDiversity(2)
    assert repr(m) == "LDiversity(l=2)"
    assert m.params() == {"l": 2, "variant": "distinct", "missing_sensitive": "unknown"}
    assert m.holds(TABLE, ["zip"], ["d"]) and not LDiversity(3).holds(TABLE, ["zip"], ["d"])
    ctx = m.context(TABLE, ["d"])
    labels = np.array([0, 0, 0, 1, 1, 1, 2])
    assert m.groups_ok(labels, ctx).tolist() == [True, True, False]
    # a partitioner's candidate rows: take keeps the table's distributions
    assert m.groups_ok(np.array([0, 0]), ctx.take(np.array([0, 2]))).tolist() == [True]
    e = LDiversity(1.5, variant="entropy")
    assert repr(e) == "LDiversity(l=1.5, variant='entropy')"
    assert e.holds(TABLE, ["zip"], ["d"])
    r = LDiversity(2, variant="recursive", c=3)
    assert r.params() == {"l": 2, "variant": "recursive", "c": 3.0,
                          "missing_sensitive": "unknown"}
    v = LDiversity(2, missing_sensitive="value")
    assert repr(v) == "LDiversity(l=2, missing_sensitive='value')"
    assert v.params()["missing_sensitive"] == "value"
    assert r.holds(TABLE, ["zip"], ["d"]) and not LDiversity(
        2, variant="recursive", c=2).holds(TABLE, ["zip"], ["d"])
    with pytest.raises(InvalidInputError):
        LDiversity(0)
    with pytest.raises(InvalidInputError):
        LDiversity(2.5)
    with pytest.raises(InvalidInputError):
        LDiversity(2, variant="recursive")


def test_ldiversity_entropy_exact_threshold():
    df = pd.DataFrame({"q": [0, 0, 1, 1], "s": ["a", "b", "a", "b"]})
    assert LDiversity(2, variant="entropy").holds(df, ["q"], ["s"])  # H = ln 2 exactly


def test_ldiversity_groups_ok_with_engine_context():
    from pdanon.encode import encode_table
    from pdanon.roles import resolve_roles

    roles = resolve_roles(TABLE, quasi_identifiers=["zip"], sensitive=["d"])
    enc = encode_table(TABLE, roles)
    assert LDiversity(2).groups_ok(np.array([0, 0, 0, 1, 1, 1, 2]), enc).tolist() == [
        True, True, False]


def test_ldiversity_check_feasible():
    roles = pdanon.resolve_roles(TABLE, quasi_identifiers=["zip"], sensitive=["d"])
    LDiversity(3).check_feasible(TABLE, roles)
    with pytest.raises(InfeasibleError, match="l=3"):
        LDiversity(4).check_feasible(TABLE, roles)
    with pytest.raises(InfeasibleError, match="entropy"):
        LDiversity(3, variant="entropy").check_feasible(TABLE, roles)
    with pytest.raises(InfeasibleError, match="raise c"):
        LDiversity(3, variant="recursive", c=1).check_feasible(TABLE, roles)
    no_sens = pdanon.resolve_roles(TABLE, quasi_identifiers=["zip"])
    with pytest.raises(InvalidInputError, match="sensitive"):
        LDiversity(2).check_feasible(TABLE, no_sens)


def test_tcloseness_model():
    df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    m = TCloseness(0.25)
    assert repr(m) == "TCloseness(t=0.25)"
    assert m.params() == {"t": 0.25, "distance": "emd", "missing_sensitive": "unknown"}
    assert repr(TCloseness(0.25, missing_sensitive="value")) == (
        "TCloseness(t=0.25, missing_sensitive='value')")
    assert m.holds(df, ["zip"], ["d"]) and not TCloseness(0.2).holds(df, ["zip"], ["d"])
    ctx = m.context(df, ["d"])
    assert TCloseness(0.2).groups_ok(np.array([0, 0, 1, 1]), ctx).tolist() == [False, False]
    # groups {a, b, a} (TV 1/12) and {a} (TV 1/4)
    assert TCloseness(0.2).groups_ok(np.array([0, 0, 0, 1]), ctx).tolist() == [True, False]
    js = TCloseness(0.1, distance="jensen_shannon")
    assert repr(js) == "TCloseness(t=0.1, distance='jensen_shannon')"
    assert js.holds(df, ["zip"], ["d"])
    # remembered kinds apply when sensitive columns come as names
    num = pd.DataFrame({"q": [0, 0, 1, 1], "s": [1, 2, 3, 4]})
    assert TCloseness(0.3, kinds={"s": "unordered"}).holds(num, ["q"], ["s"]) is False
    assert TCloseness(0.5, kinds={"s": "unordered"}).holds(num, ["q"], ["s"])
    roles = pdanon.resolve_roles(df, quasi_identifiers=["zip"], sensitive=["d"])
    TCloseness(0).check_feasible(df, roles)
    with pytest.raises(InvalidInputError):
        TCloseness(-1)
    with pytest.raises(InvalidInputError):
        TCloseness(0.1, distance="hierarchical")


def test_models_work_inside_the_engine_combination():
    from pdanon.models import AllOf

    both = AllOf(KAnonymity(3), LDiversity(2))
    assert both.holds(TABLE, ["zip"], ["d"])
    assert not AllOf(KAnonymity(4), LDiversity(2)).holds(TABLE, ["zip"], ["d"])


def test_inputs_not_mutated():
    df = TABLE.copy()
    before = df.copy()
    l_diversity(df, ["zip"], ["d"], variant="entropy")
    t_closeness(df, ["zip"], {"d": "ordered"})
    pd.testing.assert_frame_equal(df, before)


# --------------------------------------------------------------------------- t is a fraction


def test_t_above_one_is_refused_with_the_fraction_named():
    df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    for call in (lambda: TCloseness(20),
                 lambda: df.anon.t_close(20, quasi_identifiers=["zip"], sensitive=["d"]),
                 lambda: pdanon.metrics.is_t_close(df, 20, ["zip"], ["d"])):
        with pytest.raises(InvalidInputError,
                           match=r"t is a fraction in \[0, 1\].*pass 0\.2, not 20$"):
            call()
    with pytest.raises(InvalidInputError, match="pass 0.015, not 1.5"):
        TCloseness(1.5, distance="jensen_shannon")
    for bad in (-0.1, float("nan"), float("inf"), 150, True, "0.2", None):
        with pytest.raises(InvalidInputError, match=r"t is a fraction in \[0, 1\].*got"):
            TCloseness(bad)
    # the bounds themselves are fine: 0 (the table's own distribution), 1 (every table)
    assert TCloseness(0).t == 0.0 and TCloseness(1).holds(df, ["zip"], ["d"])
    assert pdanon.metrics.is_t_close(df, 1, ["zip"], ["d"])


@SETTINGS
@given(frames(numeric_sensitive=True),
       st.sampled_from(["emd", "jensen_shannon", "wasserstein", "reference"]))
def test_every_t_distance_is_at_most_one(df, distance):
    """Why t > 1 is refused: no distance can exceed 1 (Jensen–Shannon: ln 2), whatever the
    classes; one row per class is the farthest a release can be from the table."""
    for kinds in ({"s": "real"}, {"s2": "ordered"}, {"s2": "unordered"}):
        if distance == "wasserstein" and "s2" in kinds and kinds["s2"] == "unordered":
            continue  # Wasserstein needs an order
        for qis in (["q1", "q2"], ["q1"]):
            got = t_closeness(df.reset_index(), ["index"], kinds, distance=distance)
            assert 0.0 <= got <= (math.log(2) if distance == "jensen_shannon" else 1.0) + 1e-12
            assert 0.0 <= t_closeness(df, qis, kinds, distance=distance) <= 1.0 + 1e-12


def test_hierarchical_t_is_at_most_one():
    df = pd.DataFrame({"q": [0, 1, 2, 3], "s": ["flu", "cold", "hiv", "cancer"]})
    tree = {"flu": ["respiratory", "*"], "cold": ["respiratory", "*"],
            "hiv": ["other", "*"], "cancer": ["other", "*"]}
    got = t_closeness(df, ["q"], ["s"], distance="hierarchical", hierarchies={"s": tree})
    assert 0.0 < got <= 1.0
