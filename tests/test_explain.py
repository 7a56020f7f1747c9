"""df.anon.explain (pdanon/report/explain.py): consistent with the output on every algorithm and
method, checked against a cell-by-cell comparison written with plain Python loops."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon  # noqa: F401  (registers df.anon)
from pdanon import InvalidInputError, UnknownColumnError
from pdanon.dtype import GeneralizationRange
from pdanon.hierarchy import intervals, masking
from pdanon.models import AllOf, KAnonymity, LDiversity, PrivacyModel, Requirements

QI = ["age", "zip", "sex"]


def people(n=80, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "name": [f"p{i}" for i in range(n)],
        "age": rng.integers(20, 60, n),
        "zip": rng.choice(["10001", "10002", "10011", "10012", "10021"], n),
        "sex": rng.choice(["F", "M"], n),
        "disease": rng.choice(["flu", "hiv", "cold", "acne"], n),
    }, index=pd.RangeIndex(100, 100 + n))


def reference(df, out, qi, aggregate):
    """The changed cells, one cell at a time (obviously correct, slow)."""
    rows = []
    for i in range(len(df)):
        gen, sup = [], []
        for c in qi:
            v, p = df[c].iloc[i], out[c].iloc[i]
            if pd.isna(p):
                if not pd.isna(v):
                    sup.append(c)
            elif isinstance(p, GeneralizationRange) or not p == v:
                gen.append(c)
        blank = all(pd.isna(out[c].iloc[i]) for c in qi)
        rows.append((", ".join(gen), ", ".join(sup), blank and bool(sup)))
    gen, sup, whole = zip(*rows)
    return {"generalized" if not aggregate else "aggregated": list(gen),
            "suppressed": list(sup), "row_suppressed": list(whole)}


def check(df, out, ex, qi, *, k=None):
    info = out.anon.info
    assert ex.index.equals(df.index)
    # the published classes, as equivalence_classes gives them: the suppressed rows are one
    # of them (blank cells), as the engine verified
    eq = out.anon.equivalence_classes(quasi_identifiers=qi).to_numpy()
    assert (ex["class_id"].to_numpy() == eq).all()
    sizes = np.bincount(eq, minlength=eq.max() + 1)
    assert (ex["class_size"].to_numpy() == sizes[eq]).all()
    if len(sizes[sizes > 0]):
        assert info["achieved"]["k"] == sizes[sizes > 0].min() == out.anon.k_anonymity(
            quasi_identifiers=qi)
    # the changed cells, against the cell-by-cell comparison
    aggregate = info["method"] == "aggregate"
    for column, expected in reference(df, out, qi, aggregate).items():
        assert ex[column].tolist() == expected, column
    other = "generalized" if aggregate else "aggregated"
    assert (ex[other] == "").all()
    # the counts of info
    assert int(ex["row_suppressed"].sum()) == info["suppressed_rows"]
    cells = ex["suppressed"].map(lambda s: len(s.split(", ")) if s else 0).sum()
    assert cells == info["suppressed_cells"]
    # a reason exactly for the changed rows
    changed = (ex["generalized"] != "") | (ex["aggregated"] != "") | (ex["suppressed"] != "")
    assert ex["reason"][changed].notna().all() and ex["reason"][~changed].isna().all()
    global_recoding = info["algorithm"] in ("datafly", "optimal")
    assert not (ex["reason"] == ("grouping" if global_recoding else "global recoding")).any()
    if k is not None:  # k-anonymity only: "k" exactly where the combination had < k rows
        combo = df.groupby(qi, dropna=False)[qi[0]].transform("size").to_numpy()
        assert ((ex["reason"] == "k").to_numpy() == (changed.to_numpy() & (combo < k))).all()
    return ex


CASES = [
    ("mondrian", "generalize", {}),
    ("mondrian", "suppress", {}),
    ("mondrian", "aggregate", {}),
    ("nearest", "generalize", {}),
    ("nearest", "suppress", {}),
    ("group_join", "generalize", {"seed": 1}),
    ("group_join", "aggregate", {"seed": 1}),
    ("equal_groups", "generalize", {}),
    ("datafly", "generalize", {"max_suppressed_rows": 6}),
    ("exact", "suppress", {}),
    ("optimal", "generalize", {"hierarchies": {"age": intervals([5, 10, 20]),
                                               "zip": masking()},
                               "max_suppressed_rows": 4}),
]


@pytest.mark.parametrize("algorithm, method, extra", CASES)
def test_k_anonymity_every_algorithm(algorithm, method, extra):
    df = people(40 if algorithm == "exact" else 80)
    before = df.copy()
    out = df.anon.k_anonymize(3, algorithm=algorithm, method=method, identifiers=["name"],
                              quasi_identifiers=QI, sensitive=["disease"], **extra, row_order="input")
    info_before = out.anon.info
    ex = check(df, out, out.anon.explain(df), QI, k=3)
    pd.testing.assert_frame_equal(df, before)  # inputs unchanged
    assert out.anon.info == info_before  # nothing stored
    assert list(ex.columns) == ["class_id", "class_size", "generalized", "aggregated",
                                "suppressed", "row_suppressed", "reason"]
    assert ex["reason"].notna().any()


@pytest.mark.parametrize("algorithm", ["mondrian", "group_join", "nearest", "datafly"])
def test_l_diversity(algorithm):
    df = people()
    out = df.anon.l_diversify(2, k=3, algorithm=algorithm, identifiers=["name"],
                              quasi_identifiers=QI, sensitive=["disease"], row_order="input")
    ex = check(df, out, out.anon.explain(df), QI)
    tokens = set(", ".join(ex["reason"].dropna()).split(", "))
    assert tokens <= {"k", "l", "grouping", "global recoding", "suppression"}
    # "l" exactly where the original combination had fewer than 2 distinct diseases
    distinct = df.groupby(QI)["disease"].transform("nunique").to_numpy()
    has_l = ex["reason"].fillna("").str.split(", ").map(lambda t: "l" in t).to_numpy()
    changed = ex["reason"].notna().to_numpy()
    assert (has_l == (changed & (distinct < 2))).all()


@pytest.mark.parametrize("algorithm", ["mondrian", "exact"])
def test_t_closeness(algorithm):
    df = people(40)
    out = df.anon.t_close(0.3, k=2, algorithm=algorithm, identifiers=["name"],
                          quasi_identifiers=QI, sensitive=["disease"],
                          method="suppress", row_order="input")
    ex = check(df, out, out.anon.explain(df), QI)
    assert ex["reason"].str.contains("t").any()


def test_suppressed_rows_of_datafly_and_their_reason():
    df = pd.DataFrame({"a": [1, 1, 1, 2, 2, 2, 9], "b": list("xxxyyyz")})
    # the lone (9, z) fails k = 3; alone it would be a suppressed class of one, so the
    # smallest class, (1, x), first seen of the two of three rows, is suppressed with it
    out = df.anon.k_anonymize(3, algorithm="datafly", max_suppressed_rows=4, row_order="input")
    ex = check(df, out, out.anon.explain(df), ["a", "b"], k=3)
    assert ex["row_suppressed"].tolist() == [True] * 3 + [False] * 3 + [True]
    assert ex.loc[6, "reason"] == "k" and ex.loc[6, "suppressed"] == "a, b"
    assert (ex["reason"][:3] == "suppression").all()  # suppressed for the lone row's sake
    assert ex["reason"][3:6].isna().all()  # the others are published unchanged
    # the suppressed rows are one class of four, as verified
    assert ex["class_size"][[0, 1, 2, 6]].tolist() == [4] * 4
    assert ex["class_id"][0] == ex["class_id"][6] != ex["class_id"][3]


def test_global_recoding_reason():
    df = pd.DataFrame({"age": [21, 22, 23, 24, 35, 36, 37, 38, 39]})
    out = df.anon.k_anonymize(3, algorithm="optimal", hierarchies={"age": intervals([10])}, row_order="input")
    ex = check(df, out, out.anon.explain(df), ["age"], k=3)
    # every age is unique: all generalized because of k
    assert set(ex["reason"]) == {"k"}
    df2 = pd.DataFrame({"age": [21, 21, 21, 24, 35, 35, 35, 37, 39],
                        "sex": ["F"] * 9})
    out2 = df2.anon.k_anonymize(3, algorithm="optimal", hierarchies={"age": intervals([10])}, row_order="input")
    ex2 = check(df2, out2, out2.anon.explain(df2), ["age", "sex"], k=3)
    assert ex2["reason"].tolist() == ["global recoding"] * 3 + ["k"] + ["global recoding"] * 3 \
        + ["k", "k"]


def test_missing_values():
    df = pd.DataFrame({"a": [1.0, np.nan, 1.0, np.nan, 5.0, 5.0], "b": list("xxyyzz")})
    out = df.anon.k_anonymize(2, algorithm="mondrian", method="suppress", row_order="input")
    check(df, out, out.anon.explain(df), ["a", "b"], k=2)


def test_model_is_rebuilt_or_given():
    df = people()
    out = df.anon.l_diversify(3, variant="entropy", algorithm="mondrian", identifiers=["name"],
                              quasi_identifiers=QI, sensitive=["disease"])
    a = out.anon.explain(df)
    b = out.anon.explain(df, model=AllOf(KAnonymity(1), LDiversity(3, variant="entropy")))
    pd.testing.assert_frame_equal(a, b)

    class MaxShare(PrivacyModel):
        name = "max-share"

        def requirements(self):
            return Requirements(min_size=2, sensitive=True)

        def classes_ok(self, classes):
            return classes.sizes >= 2

    out = df.anon.anonymize(MaxShare(), algorithm="mondrian", identifiers=["name"],
                            quasi_identifiers=QI, sensitive=["disease"])
    with pytest.raises(InvalidInputError, match="pass model="):
        out.anon.explain(df)
    ex = out.anon.explain(df, model=MaxShare())
    assert set(ex["reason"].dropna()) <= {"max-share", "grouping"}


def test_errors_name_the_parameter():
    df = people(30)
    out = df.anon.k_anonymize(3, identifiers=["name"], quasi_identifiers=QI)
    with pytest.raises(InvalidInputError, match="original must be the frame"):
        out.anon.explain(df.iloc[:-1])
    with pytest.raises(InvalidInputError, match="another index"):
        out.anon.explain(df.reset_index(drop=True))
    with pytest.raises(InvalidInputError, match="original must be the DataFrame"):
        out.anon.explain(df.to_numpy())
    with pytest.raises(UnknownColumnError, match="zip"):
        out.anon.explain(df.drop(columns="zip"))
    with pytest.raises(InvalidInputError, match="k_anonymize"):
        df.anon.explain(df)  # not an anonymized frame


def test_info_carries_nothing_per_row():
    df = people(30)
    out = df.anon.k_anonymize(3, identifiers=["name"], quasi_identifiers=QI)
    out.anon.explain(df)
    text = repr(out.attrs)
    assert "explain" not in text and "reason" not in text


@st.composite
def small_tables(draw):
    n = draw(st.integers(4, 24))
    a = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    b = draw(st.lists(st.sampled_from(["x", "y", "z"]), min_size=n, max_size=n))
    c = draw(st.lists(st.one_of(st.none(), st.floats(0, 3).map(round)), min_size=n,
                      max_size=n))
    return pd.DataFrame({"a": a, "b": b, "c": pd.array(c, dtype="Float64")})


@pytest.mark.parametrize("algorithm, method", [("mondrian", "generalize"),
                                               ("nearest", "suppress"),
                                               ("group_join", "aggregate"),
                                               ("datafly", "generalize")])
@pytest.mark.filterwarnings("ignore::pdanon.SingleClassWarning")
@settings(max_examples=25, deadline=None)
@given(df=small_tables(), k=st.integers(2, 4))
def test_property_small_tables(algorithm, method, df, k):
    if k > len(df):
        return
    extra = {"max_suppressed_rows": 2} if algorithm == "datafly" else {}
    out = df.anon.k_anonymize(k, algorithm=algorithm, method=method, quasi_identifiers=list(df),
                              **extra, row_order="input")
    check(df, out, out.anon.explain(df), list(df), k=k)


# ------------------------------------------------------------- microaggregation, local suppression


def test_local_suppression_hand_checked():
    df = pd.DataFrame({"age": [30, 30, 31, 40, 40, 40], "zip": ["a", "a", "b", "c", "c", "c"]},
                      index=list("uvwxyz"))
    out = df.anon.local_suppression(2, quasi_identifiers=["age", "zip"])
    ex = out.anon.explain(df)
    # (31, b) matches no other row: both its cells go (a missing age alone, (NaN, b), would
    # still match only itself); the row then matches every row, and rows (30, a) match 3
    assert ex["suppressed"].tolist() == ["", "", "age, zip", "", "", ""]
    assert ex["row_suppressed"].tolist() == [False, False, True, False, False, False]
    assert ex["reason"].isna().tolist() == [True, True, False, True, True, True]
    assert ex.loc["w", "reason"] == "k"
    assert ex["class_size"].tolist()[:2] == [3, 3] and ex["class_size"].tolist()[3:] == [4] * 3


def test_microaggregation_hand_checked():
    df = pd.DataFrame({"age": [30, 30, 31, 40, 40, 40], "zip": ["a", "a", "b", "c", "c", "c"]})
    out = df.anon.microaggregate(2, quasi_identifiers={"age": "real", "zip": "unordered"}, row_order="input")
    ex = out.anon.explain(df)
    # groups: {0, 1}, {3, 4} unchanged; {2, 5}: mean age 35.5, zip mode b (first met)
    assert out["age"].tolist() == [30, 30, 35.5, 40, 40, 35.5]
    assert ex["aggregated"].tolist() == ["", "", "age", "", "", "age, zip"]
    assert ex["generalized"].tolist() == [""] * 6
    assert ex.loc[2, "reason"] == "k" and ex.loc[5, "reason"] == "grouping"
    assert ex["reason"].isna().tolist() == [True, True, False, True, True, False]
    assert ex["class_size"].tolist() == [2] * 6


@settings(max_examples=25, deadline=None)
@given(df=small_tables(), k=st.integers(2, 4))
def test_property_perturbations(df, k):
    """Local suppression: "k" exactly on the rows it changed, each of which had fewer than k
    matches (a missing cell matches any value), and every published row matches >= k rows.
    Microaggregation: a reason exactly on the changed rows, "k" where the original
    combination had fewer than k rows."""
    from pdanon._groups import frequencies

    if k > len(df):
        return
    qi = list(df)
    out = df.anon.local_suppression(k, quasi_identifiers=qi)
    ex = out.anon.explain(df)
    changed = (ex["suppressed"] != "").to_numpy()
    assert (ex["reason"].notna().to_numpy() == changed).all()
    assert (ex["reason"][changed] == "k").all()
    assert (frequencies(df, qi, missing="wildcard")[changed] < k).all()
    kept = ~ex["row_suppressed"].to_numpy()
    assert (ex["class_size"].to_numpy()[kept] >= k).all()
    out = df.anon.microaggregate(k, quasi_identifiers={"a": "real", "b": "unordered",
                                                       "c": "real"})
    ex = out.anon.explain(df)
    changed = (ex["aggregated"] != "").to_numpy()
    assert (ex["reason"].notna().to_numpy() == changed).all()
    combo = df.groupby(qi, dropna=False)["a"].transform("size").to_numpy()
    assert ((ex["reason"] == "k").to_numpy() == (changed & (combo < k))).all()


def test_rows_blanked_whole_by_suppress_form_the_smallest_class():
    """Found by hypothesis: with method="suppress" the rows blanked whole (5 here) are the
    smallest class of the engine's k; explain() reports them as suppressed rows that form
    one class, as every measure does."""
    df = pd.DataFrame({"a": [2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1], "b": list("yyyyyxxxxyy"),
                       "c": pd.array([None] * 11, dtype="Float64")})
    out = df.anon.k_anonymize(3, algorithm="nearest", method="suppress",
                              quasi_identifiers=list(df), row_order="input")
    ex = check(df, out, out.anon.explain(df), list(df), k=3)
    assert out.anon.info["achieved"]["k"] == 5 and int(ex["row_suppressed"].sum()) == 5
    assert sorted(ex["class_size"].unique().tolist()) == [5, 6]
    assert ex["class_size"][ex["row_suppressed"]].unique().tolist() == [5]
