"""Missing values are data (ARX's semantics): every anonymizer takes NaN / None / pd.NA / NaT
in quasi-identifiers, and published cells stay truthful.

* a missing cell is a value of its own: two missing cells are equal;
* a group whose members are all missing in a column publishes missing there;
* a group mixing missing and present cells publishes, with ``method="generalize"``, the cell
  of its present values marked "or missing" (``a or missing``, ``[30, 31] or missing``) in
  every row, so no present cell is suppressed; ``suppress`` and ``aggregate`` publish it
  missing (a suppressed cell);
* no range or set claims to contain a missing value unless it says "or missing".
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon  # noqa: F401  (registers df.anon)
from pdanon._groups import class_labels

ALGORITHMS = ["nearest", "mondrian", "datafly", "equal_groups", "group_join"]
METHODS = ["generalize", "suppress", "aggregate"]


def cells(series) -> list:
    """Published cells as text, None for a missing cell."""
    return [None if pd.isna(v) else str(v) for v in series.tolist()]


def _run(df, qi, alg, method, k=2, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return df.anon.k_anonymize(k, quasi_identifiers=qi, algorithm=alg, method=method, **kw, row_order="input")


# ----------------------------------------------------------------------------- hand-checked


@pytest.mark.parametrize("alg", ALGORITHMS)
def test_missing_cells_group_together_and_stay_missing(alg):
    df = pd.DataFrame({"age": [30.0, 31.0, np.nan, np.nan]})
    out = _run(df, {"age": "real"}, alg, "generalize")
    assert cells(out["age"]) == ["[30, 31]", "[30, 31]", None, None]
    info = out.anon.info
    assert (info["changed_cells"], info["suppressed_cells"], info["suppressed_rows"]) == (2, 0, 0)
    assert info["achieved"]["k"] == 2


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA])
def test_a_group_mixing_missing_and_present_publishes_a_cell_or_missing(missing):
    df = pd.DataFrame({"zip": pd.Series(["a", missing, "b", "b"], dtype=object),
                       "age": [30, 30, 40, 40]})
    out = _run(df, {"zip": "unordered", "age": "real"}, "mondrian", "generalize")
    # {a, missing}: the value a, or missing - both rows publish it, none is blanked
    assert cells(out["zip"]) == ["a or missing", "a or missing", "b", "b"]
    assert out["zip"].array.or_missing.tolist() == [True, True, False, False]
    assert out["age"].tolist() == [30, 30, 40, 40]
    info = out.anon.info
    # changed: "a" and the missing cell (both now "a or missing"); nothing suppressed
    assert (info["changed_cells"], info["suppressed_cells"], info["suppressed_rows"]) == (2, 0, 0)
    # ... unless suppression is asked for: then the cell is suppressed, as before
    sup = _run(df, {"zip": "unordered", "age": "real"}, "mondrian", "suppress")
    assert pd.isna(sup["zip"]).tolist() == [True, True, False, False]
    assert sup.anon.info["suppressed_cells"] == 1


def test_every_missing_marker_is_one_value():
    df = pd.DataFrame({"c": pd.Series(["x", None, np.nan, pd.NA, "x", "y"], dtype=object)})
    out = _run(df, {"c": "unordered"}, "mondrian", "generalize")
    # three missing cells form one class; x, x, y the other
    assert cells(out["c"]) == ["{x, y}", None, None, None, "{x, y}", "{x, y}"]


def test_datetime_with_nat_and_ordered_categorical_with_missing():
    df = pd.DataFrame({
        "day": pd.to_datetime(["2020-01-01", "2020-01-02", None, None]),
        "edu": pd.Categorical(["lo", "lo", None, None], categories=["lo", "hi"], ordered=True),
    })
    out = _run(df, {"day": "ordered", "edu": "ordered"}, "nearest", "generalize")
    assert out["edu"].astype(str).tolist()[:2] == ["lo", "lo"]
    assert out["day"].isna().tolist() == [False, False, True, True]
    assert out["edu"].isna().tolist() == [False, False, True, True]


@pytest.mark.parametrize("method", METHODS)
def test_aggregate_and_suppress_publish_missing_for_mixed_groups(method):
    # in value order the missing cell comes last: the cut gives {30, 30} and {40, missing}
    df = pd.DataFrame({"age": [30.0, 30.0, np.nan, 40.0]})
    out = _run(df, {"age": "real"}, "mondrian", method)
    if method == "generalize":  # 40 or missing, 40 widened (one row holds it): no suppression
        assert cells(out["age"]) == ["30.0", "30.0", "[40, 50] or missing",
                                     "[40, 50] or missing"]
        assert out.anon.info["suppressed_cells"] == 0
        return
    assert cells(out["age"]) == ["30.0", "30.0", None, None]
    assert out.anon.info["suppressed_cells"] == 1


def test_datafly_merges_the_missing_value_last():
    # rarest values first: 1 (one row) merges with 2; the missing value stays its own
    df = pd.DataFrame({"a": [1, 2, 2, 3, 3, None, None]}, dtype="Int64")
    out = _run(df, {"a": "ordered"}, "datafly", "generalize", max_suppressed_rows=0)
    assert cells(out["a"]) == ["[1, 2]", "[1, 2]", "[1, 2]", "3", "3", None, None]


def test_exact_never_counts_a_missing_cell_as_suppressed():
    df = pd.DataFrame({"a": [1, 1, 2, 2], "b": ["x", None, "y", "y"]})
    out = _run(df, {"a": "ordered", "b": "unordered"}, "exact", "suppress")
    # one suppressed cell (row 0's "x") makes rows 0 and 1 equal: (1, missing)
    assert out["b"].isna().tolist() == [True, True, False, False]
    assert out["a"].tolist() == [1, 1, 2, 2]
    assert out.anon.info["changed_cells"] == 1
    assert out.anon.info["suppressed_cells"] == 1


def test_l_diversity_with_missing_quasi_identifiers_and_sensitive_values():
    df = pd.DataFrame({"age": [30, 31, None, None, 50, 51],
                       "s": ["x", "y", "x", None, None, "y"]})
    out = df.anon.l_diversify(2, quasi_identifiers={"age": "real"}, sensitive=["s"],
                              algorithm="mondrian", row_order="input")
    assert out.anon.info["achieved"]["l"] >= 2
    # the missing ages lie in their published cells: missing, or a cell "or missing"
    assert (out["age"].isna() | out["age"].array.contains(df["age"])).all()
    assert out["age"].isna().sum() + out["age"].array.or_missing.sum() >= 2


def test_mixed_value_types_in_an_unordered_column_are_compared_by_equality():
    df = pd.DataFrame({"code": pd.Series([1, "1", 1, "1", "a", "a"], dtype=object)})
    out = _run(df, {"code": "unordered"}, "mondrian", "generalize")
    assert out["code"].tolist() == [1, "1", 1, "1", "a", "a"]
    with pytest.raises(pdanon.KindError, match="mixes value types"):
        _run(df, {"code": "ordered"}, "mondrian", "generalize")


def test_input_with_missing_values_is_not_mutated():
    df = pd.DataFrame({"age": [30.0, np.nan, 40.0, 41.0], "z": ["a", None, "a", "b"]})
    before = df.copy()
    _run(df, {"age": "real", "z": "unordered"}, "group_join", "generalize")
    pd.testing.assert_frame_equal(df, before)


def test_classic_api_takes_missing_values():
    from pdanon.algorithms import GeneralizationKAnonymityTimeOptimal

    q = np.array([[30, "a"], [31, None], [None, "b"], [None, "b"]], dtype=object)
    out, changed = GeneralizationKAnonymityTimeOptimal(2, ["real", "unordered"]).depersonalize(q)
    # the classic API keeps the reference's exact cells, so the class {a, missing} publishes
    # missing there (pdanon's faces publish "a or missing", widened by the bounds rule)
    assert pd.isna(out[:, 1]).tolist() == [True, True, False, False]
    assert list(out[2:, 1]) == ["b", "b"]
    assert pd.isna(out[:, 0]).tolist() == [False, False, True, True]
    assert changed == 3  # 30, 31 and "a"


# ----------------------------------------------------------------------------- property


def _truthful(df, out, qi):
    """No published cell claims a missing value unless it says "or missing"; missing input
    stays missing or lies in such a cell; every published range or set holds its original
    value; no present cell is blanked."""
    from pdanon.dtype import GeneralizationDtype

    for c in qi:
        was, now = df[c].isna().to_numpy(), out[c].isna().to_numpy()
        if isinstance(out[c].dtype, GeneralizationDtype):
            covers = np.asarray(out[c].array.or_missing)
            assert (now | ~was | covers).all(), f"column {c}: a missing cell published as a value"
            ok = out[c].array.contains(df[c].array) | now
            assert ok.all()
        else:
            assert (now | ~was).all(), f"column {c}: a missing cell was published as a value"


values = st.one_of(st.none(), st.integers(0, 3))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(values, values, values), min_size=4, max_size=14),
       alg=st.sampled_from([*ALGORITHMS, "exact"]), method=st.sampled_from(METHODS),
       k=st.integers(1, 3))
def test_missing_values_property(rows, alg, method, k):
    if alg == "exact":
        method = "suppress"  # its only method
    df = pd.DataFrame(rows, columns=["r", "o", "u"]).astype(
        {"r": "float64", "o": "Int64", "u": object})
    df["u"] = df["u"].map(lambda v: None if v is None or pd.isna(v) else f"u{v}")
    qi = {"r": "real", "o": "ordered", "u": "unordered"}
    before = df.copy()
    if k > len(df):
        return
    out = _run(df, qi, alg, method, k=k)
    pd.testing.assert_frame_equal(df, before)
    info = out.anon.info
    # rows with every quasi-identifier blank publish nothing (ARX, Datafly): the others
    # form classes of at least k rows
    blank = out[list(qi)].isna().all(axis=1).to_numpy()
    labels = class_labels(out.loc[~blank], list(qi))
    if len(labels):
        assert np.bincount(labels).min() >= k
    if method == "generalize":
        _truthful(df, out, qi)
    else:  # suppress / aggregate never publish a value for a missing cell
        for c in qi:
            assert (out[c].isna() | ~df[c].isna()).all()
    newly = sum(int((out[c].isna() & ~df[c].isna()).sum()) for c in qi)
    assert info["suppressed_cells"] == newly


def test_optimal_keeps_missing_values_as_their_own_node():
    from pdanon import hierarchy as H

    df = pd.DataFrame({"age": [31.5, 33, np.nan, np.nan, 36, 38],  # not integers: [a, b)
                       "z": [np.nan] * 6})  # a column with no value at all
    out = _run(df, {"age": "real", "z": "real"}, "optimal", "generalize",
               hierarchies={"age": H.intervals([5, 10])})
    # level 1 bands ([30, 35), [35, 40)) keep both present pairs apart; missing stays missing
    assert cells(out["age"]) == ["[30, 35)", "[30, 35)", None, None, "[35, 40)", "[35, 40)"]
    assert out["z"].isna().all()
    assert out.anon.info["suppressed_cells"] == 0
