"""No published bound is one person's value, for every k-anonymity algorithm of the pandas
face (pdanon.recode.bounds, issue 47 point 4): the global recodings (Datafly, equal groups,
optimal without hierarchies) widen their value groups' rare bounds as the local ones do;
exact (suppression only) publishes no range and no value held by fewer than k rows; an ordered
Categorical of unique values publishes ranges on the blocks of its declared order. Hand-checked
tables, then one hypothesis property over random numeric tables and every algorithm.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.dtype import GeneralizationArray, GeneralizationDtype
from pdanon.recode import bounds
from pdanon.recode.bounds import ExactBoundsWarning, round_step, widen_published


def _bounds(series: pd.Series) -> set:
    """Every bound of the range cells of a published column (plain values excluded)."""
    arr = series.array
    ranged = ~np.asarray(arr.isna(), dtype=bool) & (np.asarray(arr.lo) != np.asarray(arr.hi))
    if arr.categories is not None:
        cats = arr.categories
        return set(cats[np.asarray(arr.lo)[ranged]]) | set(cats[np.asarray(arr.hi)[ranged]])
    return set(np.asarray(arr.lo)[ranged].tolist()) | set(np.asarray(arr.hi)[ranged].tolist())


def _ages() -> pd.DataFrame:
    # five people of 20, four of 30 and one of 97 (the oldest, alone)
    return pd.DataFrame({"age": [20] * 5 + [30] * 4 + [97]})


@pytest.mark.parametrize("algorithm", ["datafly", "equal_groups"])
def test_global_recodings_widen_the_oldest_persons_age(algorithm):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = _ages().anon.k_anonymize(5, algorithm=algorithm, quasi_identifiers=["age"])
    # by hand: both merge 30 and 97 into one value group (20 x 5 is a class already); 30 is
    # held by 4 < 5 rows: the grid point at or below it (step 10) is 30 itself, nearer than
    # the common 20; 97 is one person's: no common value above, the grid point above is 100
    assert sorted(out["age"].astype(str)) == ["20"] * 5 + ["[30, 100]"] * 5
    assert out.anon.info["bounds"]["widened_cells"] == {"age": 5}
    assert out.anon.check(pdanon.Policy(k=5)).passed
    with pytest.warns(ExactBoundsWarning, match="exact values"):
        exact = _ages().anon.k_anonymize(5, algorithm=algorithm, quasi_identifiers=["age"],
                                         options={"exact_bounds": True})
    assert sorted(exact["age"].astype(str)) == ["20"] * 5 + ["[30, 97]"] * 5
    assert exact.anon.info["bounds"]["rule"] == "exact"


def test_optimal_without_a_hierarchy_publishes_no_extreme_at_its_top():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = _ages().anon.k_anonymize(5, algorithm="optimal", quasi_identifiers=["age"])
    # 3 distinct values: no hierarchy needed; the value level leaves 30 (4 rows) and 97 alone,
    # so every row goes to '*', which read off the data was [20, 97]: 20 (5 rows) stays,
    # the oldest person's 97 goes to the grid point 100
    assert out.anon.info["levels"] == {"age": 1}
    assert out["age"].astype(str).tolist() == ["[20, 100]"] * 10
    assert out.anon.info["bounds"]["widened_cells"] == {"age": 10}
    # a column of more values, its level fixed: its '*' ends on no one's age either
    ages = pd.DataFrame({"age": [17, 23, 23, 23, 23, 23, 35, 35, 35, 35, 35, 88]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = ages.anon.k_anonymize(5, algorithm="optimal", quasi_identifiers=["age"],
                                    levels={"age": 1})
    assert set(out["age"].astype(str)) == {"[10, 90]"}


def test_optimal_declared_hierarchy_levels_are_left_as_declared():
    from pdanon.hierarchy import intervals

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = _ages().anon.k_anonymize(5, algorithm="optimal", quasi_identifiers=["age"],
                                       hierarchies={"age": intervals([50])})
    # bands [0, 49] (9 rows) and [50, 99] (1 row) fail k = 5; the top is the union of the
    # hierarchy's widest bands, its own grid: nothing is read off the data, nothing widened
    assert out.anon.info["levels"] == {"age": 2}
    assert out["age"].astype(str).tolist() == ["[0, 99]"] * 10
    assert "bounds" not in out.anon.info


def test_exact_publishes_no_range_and_no_rare_value():
    df = pd.DataFrame({"age": [20, 20, 20, 31, 31, 31, 97], "zip": list("aaabbbc")})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.k_anonymize(3, algorithm="exact", method="suppress",
                                  quasi_identifiers=["age", "zip"])
    for c in ("age", "zip"):
        assert not isinstance(out[c].dtype, GeneralizationDtype)  # plain values, no range
        counts = df[c].value_counts()
        shown = out[c].dropna()
        # every value shown is held by its whole class, so by k rows or more
        assert len(shown) and (counts[shown].to_numpy() >= 3).all()
    assert out["age"].isna().sum() >= 1  # the oldest person's 97 is suppressed


def test_category_blocks_by_hand():
    first, last = bounds.category_blocks(np.array([0, 2, 1, 1, 1, 5, 1]), 3)
    # [0, 2, 1] holds 3 rows, [1, 1, 5] 7, the last category's 1 row joins that block
    assert first.tolist() == [0, 0, 0, 3, 3, 3, 3]
    assert last.tolist() == [2, 2, 2, 6, 6, 6, 6]
    first, last = bounds.category_blocks(np.array([1, 1]), 5)  # fewer than k rows in all: one block
    assert first.tolist() == [0, 0] and last.tolist() == [1, 1]


def test_ordered_categorical_of_unique_values_publishes_ranges_on_its_blocks():
    cats = [f"c{i:02d}" for i in range(40)]
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"grade": pd.Categorical(cats, categories=cats, ordered=True),
                       "d": rng.choice(list("ab"), 40)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.k_anonymize(5, algorithm="mondrian", quasi_identifiers=["grade"],
                                  sensitive=["d"])
    # every value is one person's; the declared order cut into blocks of 5 rows: c00-c04,
    # c05-c09, ... Each class publishes a block's first and last category, none is withheld
    # and the column is not one class of everything (before: every cell [c00, c39])
    assert out["grade"].notna().all()
    edges = {c for i in range(0, 40, 5) for c in (cats[i], cats[i + 4])}
    assert _bounds(out["grade"]) <= edges
    assert out["grade"].nunique() >= 4
    assert out.anon.check(pdanon.Policy(k=5)).passed
    back = out.anon.input_rows(df)
    arr = out["grade"].array
    pos = arr.categories.get_indexer(back["grade"].astype(str))
    assert ((np.asarray(arr.lo) <= pos) & (pos <= np.asarray(arr.hi))).all()


def test_widen_published_ordered_declared_blocks_by_hand():
    grade = pd.Series(pd.Categorical(["b", "c", "d", "e", "f", "f", "f"],
                                     categories=list("abcdefg"), ordered=True))
    cells = pd.Series(GeneralizationArray.from_bounds(
        [0, 0, 0, 3, 3, 3, 3], [2, 2, 2, 4, 4, 4, 4], kind="ordered",
        categories=list("bcdef")))
    out, n = widen_published(cells, grade, 3)
    # declared order a..g holds 0,1,1,1,1,3,0 rows: blocks a-d (3 rows), e-g (4 rows);
    # b (1 row) -> a, d -> d (its block's end), e -> e (its block's start),
    # f is held by 3: it stays
    assert out.astype(str).tolist() == ["[a, d]"] * 3 + ["[e, f]"] * 4
    assert n == 3


# ------------------------------------------------------------------ the property

ALGORITHMS = ["mondrian", "nearest", "group_join", "datafly", "equal_groups", "optimal",
              "exact"]

tables = st.integers(8, 30).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 60), min_size=n, max_size=n),
    st.lists(st.integers(0, 900).map(lambda x: x / 10), min_size=n, max_size=n),
    st.lists(st.sampled_from(["x", "y", "z"]), min_size=n, max_size=n)))


def _on_grid(b: float, step: float) -> bool:
    q = b / step
    return math.isclose(q, round(q), abs_tol=1e-6)


@settings(max_examples=30, deadline=None)
@given(tables, st.integers(2, 4), st.sampled_from(ALGORITHMS), st.booleans())
def test_no_algorithm_publishes_a_bound_held_by_fewer_than_k_rows(table, k, algorithm, exact):
    age, amount, d = table
    df = pd.DataFrame({"age": age, "amount": amount, "d": d})
    kw = dict(quasi_identifiers={"age": "real", "amount": "real"}, sensitive=["d"])
    if algorithm == "optimal":
        kw["levels"] = {"age": (0, 1), "amount": (0, 1)}  # value or '*', no hierarchy
        kw["max_suppressed_rows"] = k - 1
    if algorithm == "exact":
        if len(df) > 14:
            df = df.iloc[:14]
        kw["method"] = "suppress"
    options = {"exact_bounds": True} if exact else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = df.anon.k_anonymize(k, algorithm=algorithm, options=options, **kw)
        except (pdanon.InfeasibleError, pdanon.InvalidInputError):
            return
    generalized = [c for c in ("age", "amount") if isinstance(out[c].dtype, GeneralizationDtype)
                   and len(_bounds(out[c]))]
    if exact:
        if generalized:
            assert any(issubclass(w.category, ExactBoundsWarning) for w in caught)
        return
    assert not any(issubclass(w.category, ExactBoundsWarning) for w in caught)
    for c in ("age", "amount"):
        counts = df[c].value_counts()
        step = round_step(df[c].min(), df[c].max())
        if c in generalized:
            rare = [b for b in _bounds(out[c])
                    if 0 < counts.get(b, 0) < k and not _on_grid(b, step)]
            assert not rare, (algorithm, c, rare)
            back = out.anon.input_rows(df)
            shown = out[c].notna().to_numpy()
            assert out[c].array.contains(back[c].to_numpy())[shown].all()
        elif algorithm == "exact":  # plain values: each held by its whole class
            shown = out[c].dropna()
            assert (counts[shown].to_numpy() >= k).all()
    assert out.anon.check(pdanon.Policy(k=k)).passed
