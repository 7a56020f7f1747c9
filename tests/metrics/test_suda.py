"""SUDA (pdanon.metrics.suda, df.anon.suda / suda_contributions) against hand-checked tables,
sdcMicro's published examples and brute-force enumeration of attribute subsets."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import pdanon  # noqa: F401  (registers df.anon)
from pdanon._errors import InvalidInputError
from pdanon.metrics import special_uniques as S
from tests._helpers.messy import time_limit


def brute_force(rows, max_size, wildcard=False, unmatched=False):
    """Per row: list of MSUs (tuples of column positions), by enumerating every subset.
    ``unmatched``: a missing cell agrees with no other row, and a subset with a missing cell
    of the row is never its MSU (sdcMicro's suda2)."""
    n, m = len(rows), len(rows[0]) if rows else 0

    def na(v):
        return v is None or (isinstance(v, float) and math.isnan(v))

    def agree(i, j, cols):
        if unmatched and i == j:
            return True
        for c in cols:
            a, b = rows[i][c], rows[j][c]
            if na(a) or na(b):
                if unmatched:
                    return False
                if wildcard or (na(a) and na(b)):
                    continue
                return False
            if a != b:
                return False
        return True

    def unique(i, cols):
        return sum(agree(i, j, cols) for j in range(n)) == 1

    out = []
    for i in range(n):
        msus = []
        for size in range(1, max_size + 1):
            for cols in itertools.combinations(range(m), size):
                if unmatched and any(na(rows[i][c]) for c in cols):
                    continue
                if unique(i, cols) and not any(
                        unique(i, cols[:k] + cols[k + 1:]) for k in range(size) if size > 1):
                    msus.append(cols)
        out.append(msus)
    return out


def expected_scores(msus, att):
    return [sum(math.factorial(att - len(s)) for s in row) for row in msus]


def test_sdcmicro_contribution_example():
    # sdcMicro's tests: a = (2, 1, 1), b = (0, 3, 0), c = (0, 6, 0) -> 50, 37.5, 37.5
    # row 0: {a} (score 2!); row 1: {b}, {c} (2 + 2); row 2: {a, b}, {a, c} (1 + 1)
    df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
    out = df.anon.suda(quasi_identifiers=["a", "b", "c"])
    assert out["msu_count"].tolist() == [1, 2, 2]
    assert out["msu_min_size"].tolist() == [1, 1, 2]
    assert out["suda_score"].tolist() == [2.0, 4.0, 2.0]
    total = df.anon.suda_contributions(quasi_identifiers=["a", "b", "c"], total=True)
    assert total.to_dict() == {"a": 50.0, "b": 37.5, "c": 37.5}
    per = df.anon.suda_contributions(quasi_identifiers=["a", "b", "c"])
    assert per.to_numpy().tolist() == [[1, 0, 0], [0, 0.5, 0.5], [1, 0.5, 0.5]]
    # the order of the columns does not matter
    assert df[["c", "a", "b"]].anon.suda_contributions(total=True).to_dict() == total.to_dict()


def test_sdcmicro_book_example_and_dis():
    tab = pd.DataFrame({"age": ["20s"] * 7 + ["60s"],
                        "gender": ["male"] * 4 + ["female"] * 3 + ["male"],
                        "income": ["50k+"] * 2 + ["50k-"] * 6,
                        "education": ["high"] * 4 + ["uni", "high", "middle", "uni"]},
                       index=list("abcdefgh"))
    out = S.suda(tab, list(tab))  # income would be taken as sensitive by its name
    assert out["suda_score"].tolist() == [0, 0, 0, 0, 4, 2, 6, 8]
    assert list(out.index) == list("abcdefgh")
    # DIS: U = 4 unique rows, P = 2 rows in a pair (e, h share nothing; a, b are a pair; c, d a
    # pair -> P = 4). Q = 1.2, odds = P (1 - pi) / pi
    q, pi = 1 + (8 - 4) / 20, 0.01
    s = np.array([4, 2, 6, 8.0])
    odds = 4 * (1 - pi) / pi
    want = 1 / (1 + odds / (s ** q * (1 / s ** q).sum()))
    assert out["dis_suda"].to_numpy()[4:] == pytest.approx(want)
    assert (out["dis_suda"].to_numpy()[:4] == 0).all()


def test_max_size_limits_the_search():
    df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
    out = S.suda(df, ["a", "b", "c"], max_size=1)
    assert out["msu_count"].tolist() == [1, 2, 0]
    assert out["msu_min_size"].tolist() == [1, 1, 0]


def test_duplicates_have_no_msu_and_input_unchanged():
    df = pd.DataFrame({"a": [1, 1, 2], "b": ["x", "x", "y"]})
    before = df.copy()
    out = S.suda(df)
    assert out["msu_count"].tolist() == [0, 0, 2]
    pd.testing.assert_frame_equal(df, before)


def test_bad_arguments():
    df = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(InvalidInputError, match="max_size"):
        S.suda(df, ["a"], max_size=2)
    with pytest.raises(InvalidInputError, match="max_size"):
        S.suda(df, ["a"], max_size=0)
    with pytest.raises(InvalidInputError, match="dis_fraction"):
        S.suda(df, ["a"], dis_fraction=0)
    with pytest.raises(InvalidInputError, match="missing"):
        S.suda(df, ["a"], missing="drop")
    with pytest.raises(InvalidInputError, match="quasi-identifier"):
        S.suda(df, [])


def test_empty_frame():
    out = S.suda(pd.DataFrame({"a": pd.Series([], dtype="int64")}), ["a"])
    assert list(out.columns) == ["msu_count", "msu_min_size", "suda_score", "dis_suda"]
    assert len(out) == 0


def test_missing_value_and_wildcard():
    df = pd.DataFrame({"a": [1, 1, 1, 2], "b": ["x", None, "x", "y"]})
    # value: row 1 is the only one missing b: {b} is its MSU; row 3: {a}, {b}
    value = S.suda(df)
    assert value["msu_count"].tolist() == [0, 1, 0, 2]
    # wildcard: a missing cell is never unique, and row 1's blank b matches row 3's "y"
    wild = S.suda(df, missing="wildcard")
    assert wild["msu_count"].tolist() == [0, 0, 0, 1]


values = st.one_of(st.integers(0, 2), st.none())


@st.composite
def tables(draw, with_missing=False):
    m = draw(st.integers(1, 4))
    n = draw(st.integers(1, 12))
    cell = values if with_missing else st.integers(0, 2)
    return [[draw(cell) for _ in range(m)] for _ in range(n)]


def check_against_brute_force(rows, max_size, missing, pad_to_three=False):
    m = len(rows[0])
    att = max(m, 3) if pad_to_three else m
    df = pd.DataFrame(rows, columns=[f"c{j}" for j in range(m)], dtype=object)
    max_size = min(max_size, m)
    msus = brute_force(rows, max_size, wildcard=missing == "wildcard",
                       unmatched=missing == "unmatched")
    out = S.suda(df, list(df.columns), max_size=max_size, missing=missing,
                 pad_to_three=pad_to_three)
    assert out["msu_count"].tolist() == [len(x) for x in msus]
    assert out["msu_min_size"].tolist() == [min(map(len, x), default=0) for x in msus]
    assert out["suda_score"].tolist() == pytest.approx(expected_scores(msus, att))
    if missing == "unmatched":  # DIS: U and P count whole rows with missing as a value
        keys = [tuple("NA" if v is None else v for v in r) for r in rows]
        sizes = [keys.count(key) for key in keys]
        uniques, pairs = sizes.count(1), sizes.count(2)
        score = np.array(expected_scores(msus, att), dtype=float)
        want = np.zeros(len(rows))
        if uniques and (score > 0).any():
            q = 1 + (8 - att) / 20
            adj = sum(v ** -q for v in score if v > 0)
            odds = pairs * 0.99 / 0.01
            want = np.array([1 / (1 + odds / (v ** q * adj)) if v > 0 else 0.0 for v in score])
        assert out["dis_suda"].tolist() == pytest.approx(want.tolist())
    per = S.suda_contributions(df, list(df.columns), max_size=max_size, missing=missing,
                               pad_to_three=pad_to_three)
    for i, row in enumerate(msus):
        score = sum(math.factorial(att - len(s)) for s in row)
        want = [sum(math.factorial(att - len(s)) for s in row if j in s) / score if score else 0
                for j in range(m)]
        assert per.iloc[i].tolist() == pytest.approx(want)


@settings(max_examples=150, deadline=None)
@given(tables(), st.integers(1, 4))
def test_matches_brute_force(rows, max_size):
    check_against_brute_force(rows, max_size, "value")


@settings(max_examples=150, deadline=None)
@given(tables(with_missing=True), st.integers(1, 4),
       st.sampled_from(["value", "wildcard", "unmatched"]), st.booleans())
def test_matches_brute_force_with_missing(rows, max_size, missing, pad_to_three):
    check_against_brute_force(rows, max_size, missing, pad_to_three)


def test_unmatched_missing_as_sdcmicro_suda2():
    # rows: (1,1,5) (1,2,5) (2,1,5) (2,2,6) (NA,1,5). Row 4's blank a matches nobody and is in
    # no MSU; its b=1 and c=5 and (1, 5) are shared, so it has none. Row 0: {a,b} = (1,1)
    # is unique because row 4's blank does not match; {a} (row 1), {b} and {c} are shared.
    # Row 3: c=6 alone (2! = 2) and {a,b} = (2,2) (1! = 1). All five rows are distinct with
    # missing as a value: U = 5, P = 0, so every scored row has DIS-SUDA 1.
    df = pd.DataFrame({"a": [1, 1, 2, 2, None], "b": [1, 2, 1, 2, 1], "c": [5, 5, 5, 6, 5]})
    out = S.suda(df, ["a", "b", "c"], missing="unmatched")
    assert out["suda_score"].tolist() == [1.0, 2.0, 2.0, 3.0, 0.0]
    assert out["msu_min_size"].tolist() == [2, 2, 2, 1, 0]
    assert out["dis_suda"].tolist() == [1.0, 1.0, 1.0, 1.0, 0.0]
    # "value" gives row 4 the 1-MSU {a} (the only blank), "wildcard" lets it match a = 1 or 2
    assert S.suda(df, ["a", "b", "c"])["suda_score"].tolist() == [1.0, 2.0, 2.0, 3.0, 2.0]
    with pytest.raises(InvalidInputError, match="'unmatched'"):
        S.suda(df, ["a"], missing="none")


def test_pad_to_three_weighs_one_and_two_keys_as_sdcmicro():
    # keys (1,1) (1,2) (2,2) (3,2): rows 0, 2, 3 have a 1-MSU, row 1 the 2-MSU {a, b}
    df = pd.DataFrame({"a": [1, 1, 2, 3], "b": [1, 2, 2, 2]})
    assert S.suda(df)["suda_score"].tolist() == [1.0, 1.0, 1.0, 1.0]  # (2 - size)!
    padded = S.suda(df, pad_to_three=True)
    assert padded["suda_score"].tolist() == [2.0, 1.0, 2.0, 2.0]  # (3 - size)!
    one = S.suda(df[["a"]], pad_to_three=True)
    assert one["suda_score"].tolist() == [0.0, 0.0, 2.0, 2.0]
    # DIS with Q = 1 + (8 - 3) / 20 = 1.25: U = 4 rows unique, P = 0, so 1 for scored rows
    assert padded["dis_suda"].tolist() == [1.0, 1.0, 1.0, 1.0]
    with pytest.raises(InvalidInputError, match="pad_to_three"):
        S.suda(df, pad_to_three="yes")


def test_adult_smallest_msu_is_smallest_unique_subset():
    adult = pdanon.datasets.load_adult(nrows=2000)
    out = adult.anon.suda(max_size=2)
    qis = list(adult.anon.roles().quasi_identifiers)
    # smallest unique subset of size <= 2, by group-bys
    smallest = np.zeros(len(adult), dtype=np.int64)
    for size in (2, 1):
        for cols in itertools.combinations(qis, size):
            unique = adult.groupby(list(cols), observed=True)[cols[0]].transform("size") == 1
            smallest[unique.to_numpy()] = size
    assert out["msu_min_size"].tolist() == smallest.tolist()


# ----------------------------------------------------------------------------- the work bound
# issue 27: with max_size=None the search visits 2^ATT - 1 subsets; 30 quasi-identifiers on
# 100 rows (or 15 on 20,000) ran past any time limit. It is refused up front now.


def random_table(att, rows, values=2, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.integers(0, values, (rows, att)),
                        columns=[f"q{i}" for i in range(att)])


@pytest.mark.parametrize("att, rows", [(30, 100), (15, 20_000)])
def test_too_many_subsets_refused_before_work(att, rows, monkeypatch):
    df = random_table(att, rows)
    with time_limit(20, f"suda on {att} quasi-identifiers x {rows} rows"):
        with pytest.raises(InvalidInputError, match="max_size="):
            S.suda(df)
    ran = []
    monkeypatch.setattr(S._Search, "run", lambda self, *a, **k: ran.append(1))
    for call in (lambda: S.suda(df), lambda: df.anon.suda(),
                 lambda: df.anon.suda_contributions(total=True)):
        with pytest.raises(InvalidInputError, match="max_size=") as err:
            call()
        msg = str(err.value)
        subsets = 2 ** att - 1
        assert f"{subsets:,} attribute subsets" in msg and f"{att} quasi-identifiers" in msg
        assert f"{S.MAX_WORK:,}" in msg and "s)" in msg  # the bound and the time it stands for
    assert ran == []  # nothing searched


def test_refusal_names_the_largest_max_size_within_the_bound():
    df = random_table(15, 20_000)
    with pytest.raises(InvalidInputError) as err:
        S.suda(df)
    msg = str(err.value)
    g = len(df.drop_duplicates())
    fits = [m for m in range(1, 16)
            if sum(math.comb(15, s) for s in range(1, m + 1)) * (g + S.SUBSET_OVERHEAD)
            <= S.MAX_WORK]
    best = max(fits)
    subsets = sum(math.comb(15, s) for s in range(1, best + 1))
    assert f"max_size={best} searches {subsets:,} subsets" in msg
    assert f"max_size={best + 1} searches" not in msg
    assert f"max_size={best} is the largest within the bound" in msg
    assert "this search would take about" in msg


def test_work_estimate_counts_distinct_combinations():
    # 200,000 rows that take only 4 distinct combinations: the full search is cheap
    df = pd.DataFrame({"a": [0, 1] * 100_000, "b": [0, 0, 1, 1] * 50_000})
    assert S.suda(df)["msu_count"].sum() == 0
    assert S.work_estimate(2, 2, 4) == 3 * (4 + S.SUBSET_OVERHEAD)


def test_explicit_max_size_is_bounded_too():
    df = random_table(30, 100)
    with pytest.raises(InvalidInputError, match="max_size=30"):
        S.suda(df, max_size=30)
    out = S.suda(df, max_size=2)  # 465 subsets
    assert (out["msu_count"] >= 0).all()


def test_wildcard_with_missing_cells_weighs_more():
    df = random_table(8, 1000).astype("float64")
    df.iloc[::7, 0] = np.nan
    value = S.work_estimate(8, 8, 1000)
    assert S.work_estimate(8, 8, 1000, wildcard=True) == value * S.WILDCARD_WEIGHT
    S.suda(df, missing="wildcard", max_size=2)


def test_current_uses_fit_the_bound():
    # the largest documented use: SUDA on all of Adult (30,162 rows x 8 quasi-identifiers)
    adult = pdanon.datasets.load_adult()
    qis = list(adult.anon.roles().quasi_identifiers)
    g = len(adult[qis].drop_duplicates())
    assert S.work_estimate(len(qis), len(qis), g) * 20 < S.MAX_WORK
