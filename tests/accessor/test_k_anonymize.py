"""k_anonymize with the nearest (TimeOptimal) partitioner: exact outputs, properties, errors."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.encode import encode_table
from pdanon.partition.nearest import nearest_partition
from pdanon.roles import resolve_roles

from tests._helpers.frames import seed_frame
from tests._helpers.reference import time_optimal_groups

# the hand-checked groupings below read the data's own bounds (EXACT); the default widening of
# bounds held by fewer than k rows is tested in tests/test_bounds.py
EXACT = {"exact_bounds": True}
pytestmark = pytest.mark.filterwarnings("ignore::pdanon.ExactBoundsWarning")


# ----------------------------------------------------------------------------- seed examples


def test_seed_example_generalization():
    out = seed_frame().anon.k_anonymize(2, method="generalize",
                                        quasi_identifiers={c: "real" for c in "abcd"}, row_order="input")
    assert out["a"].astype(str).tolist() == ["1", "1", "2", "2"]
    assert out["d"].astype(str).tolist() == ["1", "1", "[2, 3]", "[2, 3]"]
    assert out.anon.info["changed_cells"] == 2
    assert out.anon.k_anonymity() == 2


def test_seed_example_suppression():
    out = seed_frame().anon.k_anonymize(2, method="suppress", row_order="input")
    assert out["d"].isna().tolist() == [False, False, True, True]
    assert out[["a", "b", "c"]].notna().all().all()
    assert out.anon.info["changed_cells"] == 2


def test_seed_example_aggregation():
    out = seed_frame().anon.k_anonymize(2, method="aggregate",
                                        quasi_identifiers={c: "real" for c in "abcd"}, row_order="input")
    assert out["d"].tolist() == [1.0, 1.0, 2.5, 2.5]
    assert out.anon.info["changed_cells"] == 2


# ----------------------------------------------------------------------------- hand-checked


def test_leftover_rows_join_last_group():
    df = pd.DataFrame({"x": [0, 10, 1, 11, 5]})
    out = df.anon.k_anonymize(2, row_order="input", options=EXACT)
    # seed 0 takes 2 (|0-1|), seed 10 takes 11, row 5 is left over and joins the last group
    assert out["x"].astype(str).tolist() == ["[0, 1]", "[5, 11]", "[0, 1]", "[5, 11]", "[5, 11]"]


def test_ties_go_to_lower_row_index():
    df = pd.DataFrame({"x": ["a", "b", "c", "d"]})
    p = nearest_partition(encode_table(df, resolve_roles(df)), k=2)
    assert p.labels.tolist() == [0, 0, 1, 1]


def test_ordered_categorical_ranges_follow_category_order():
    levels = ["low", "mid", "high"]
    df = pd.DataFrame({"lvl": pd.Categorical(["high", "low", "mid", "high"], categories=levels,
                                             ordered=True)})
    out = df.anon.k_anonymize(2, row_order="input", options=EXACT)
    # ranks: high=2, low=0, mid=1 (rank/n): seed row0 (high) nearest row3 (high)
    cells = out["lvl"].astype(str).tolist()
    assert cells[0] == cells[3] == "high"
    assert cells[1] == cells[2] == "[low, mid]"


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize("k", [0, -1, 1.5, "2", True])
def test_bad_k(k):
    with pytest.raises(ValueError, match="k must be an integer"):
        seed_frame().anon.k_anonymize(k)


def test_k_larger_than_rows():
    with pytest.raises(pdanon.InvalidInputError, match=r"k=5 is larger than the number of rows \(4\)"):
        seed_frame().anon.k_anonymize(5)


# ----------------------------------------------------------------------------- properties

frames = st.integers(1, 18).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 4), min_size=n, max_size=n),
        st.lists(st.sampled_from(["x", "y", "z"]), min_size=n, max_size=n),
        st.lists(st.sampled_from([0.5, 1.5, 7.0]), min_size=n, max_size=n),
        st.integers(1, n),
    )
)


@settings(max_examples=60, deadline=None)
@given(frames, st.sampled_from(["generalize", "suppress", "aggregate"]))
def test_matches_reference_grouping_and_model_holds(data, method):
    a, b, c, k = data
    df = pd.DataFrame({"a": a, "b": b, "c": c}, index=np.arange(len(a))[::-1] * 3)
    before = df.copy()
    kinds = {"a": "real", "b": "unordered", "c": "ordered"}
    out = df.anon.k_anonymize(k, method=method, quasi_identifiers=kinds, row_order="input",
                              options=EXACT)
    pd.testing.assert_frame_equal(df, before)
    assert out.index.equals(df.index)
    assert out.anon.k_anonymity() >= k
    groups = time_optimal_groups([df[x].to_numpy() for x in kinds], list(kinds.values()), k,
                                 hamming=method == "suppress")
    assert out.anon.info["partitions"] == len(groups)
    assert out.anon.info["groups"] == out.anon.equivalence_classes().nunique()
    for g in groups:
        rows = out.iloc[g]
        for col in kinds:
            assert rows[col].astype(str).nunique(dropna=False) == 1
            orig = df[col].iloc[g]
            if method == "generalize":
                cell = rows[col].iloc[0]
                if orig.nunique() == 1:
                    assert str(cell) == str(orig.iloc[0])
                elif kinds[col] == "unordered":
                    assert cell.values_set == frozenset(orig)
                else:
                    assert (cell.min, cell.max) == (orig.min(), orig.max())
            if method == "suppress":
                assert rows[col].isna().all() == (orig.nunique() > 1)


# ----------------------------------------------------------------------------- review findings


def test_ordered_categorical_with_numeric_categories_follows_category_order():
    c = pd.Categorical([3, 1, 2, 2], categories=[3, 1, 2], ordered=True)
    out = pd.DataFrame({"lvl": c}).anon.k_anonymize(2, algorithm="nearest", row_order="input",
                                                    options=EXACT)
    arr = out["lvl"].array
    assert list(arr.categories) == [3, 1, 2]
    assert out["lvl"].astype(str).tolist() == ["[3, 1]", "[3, 1]", "2", "2"]
    assert not arr.contains(np.array([2, 2, 2, 2]))[0]


def test_nearest_rejects_options_it_cannot_honour():
    with pytest.raises(pdanon.InvalidInputError, match="does not take option"):
        seed_frame().anon.k_anonymize(2, algorithm="nearest", max_suppressed_rows=1)


def test_models_k_anonymity_accepts_one_name():
    from pdanon.models import k_anonymity

    assert k_anonymity(seed_frame(), "a") == 2
    with pytest.raises(pdanon.UnknownColumnError):
        k_anonymity(seed_frame(), "zz")
