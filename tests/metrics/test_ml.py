"""Gradient-boosting metrics: feature encoding (hand-checked), determinism, and sanity of the
utility ratio and the linkage attack. Boosting runs on one OpenMP thread here (``n_threads=1``):
the test machines' cores are shared, and oversubscribed OpenMP threads slow it down badly."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon import metrics
from pdanon._errors import InvalidInputError, UnknownColumnError
from pdanon.dtype import GeneralizationRange as R


def test_prepare_data_plain_columns():
    train = pd.DataFrame({"age": [20.0, 30.0, None], "sex": ["F", "M", "F"],
                          "edu": pd.Categorical(["lo", "hi", None], categories=["lo", "mid", "hi"],
                                                ordered=True)})
    test = pd.DataFrame({"age": [None, 50.0], "sex": ["X", "M"],
                         "edu": pd.Categorical(["mid", None], categories=["lo", "mid", "hi"],
                                               ordered=True)})
    kinds = {"age": "real", "sex": "unordered", "edu": "ordered"}
    tr, te = metrics.prepare_data(train, test, kinds)
    assert tr.columns.tolist() == ["age", "sex=F", "sex=M", "edu"]
    assert te.columns.tolist() == tr.columns.tolist()
    assert tr["age"].tolist() == [20.0, 30.0, 25.0]          # missing -> training mean
    assert te["age"].tolist() == [25.0, 50.0]
    assert tr[["sex=F", "sex=M"]].to_numpy().tolist() == [[1, 0], [0, 1], [1, 0]]
    assert te[["sex=F", "sex=M"]].to_numpy().tolist() == [[0, 0], [0, 1]]  # unseen X -> zeros
    # ordered: category positions lo 0, mid 1, hi 2; missing -> middle of sorted [0, 2] = 2
    assert tr["edu"].tolist() == [0.0, 2.0, 2.0]
    assert te["edu"].tolist() == [1.0, 2.0]
    assert list(tr.index) == list(train.index)


def test_prepare_data_generalized_columns():
    train = pd.DataFrame({
        "age": pd.Series([R(20, 29, "real"), 35, None], dtype="generalization[real]"),
        "race": pd.Series([R(column_type="unordered", column_values=["A", "B"]), "C", None],
                          dtype="generalization[unordered]"),
    })
    tr, te = metrics.prepare_data(train, train.iloc[[1]], {"age": "real", "race": "unordered"})
    assert tr.columns.tolist() == ["age_lo", "age_hi", "race=A", "race=B", "race=C"]
    # suppressed -> [min lo, max hi] of training
    assert tr[["age_lo", "age_hi"]].to_numpy().tolist() == [[20, 29], [35, 35], [20, 35]]
    assert tr[["race=A", "race=B", "race=C"]].to_numpy().tolist() == [
        [0.5, 0.5, 0], [0, 0, 1], [0, 0, 0]]
    assert te.to_numpy().tolist() == [[35, 35, 0, 0, 1]]


def test_prepare_data_caps_categories():
    train = pd.DataFrame({"c": list("aaabbc")})
    tr, _ = metrics.prepare_data(train, train, ["c"], max_categories=2)
    assert tr.columns.tolist() == ["c=a", "c=b"]
    with pytest.raises(UnknownColumnError):
        metrics.prepare_data(train, pd.DataFrame({"d": [1]}), ["c"])


def test_boosting_utility_identical_data_and_determinism():
    adult = pdanon.datasets.load_adult(nrows=1500)
    r = metrics.boosting_utility(adult, adult, target="salary-class",
                                 quasi_identifiers=["age", "sex", "education"], n_threads=1)
    assert r["task"] == "classification" and r["metric"] == "accuracy"
    assert r["ratio"] == 1.0 and r["original"] == r["anonymized"]
    assert 0.6 < r["original"] <= 1
    assert r["rows"] == 1500


def test_boosting_utility_generalized_and_regression():
    adult = pdanon.datasets.load_adult(nrows=1500)
    qis = ["age", "sex", "education"]
    out = adult.anon.k_anonymize(10, quasi_identifiers=qis, sensitive=["salary-class"])
    a = metrics.boosting_utility(adult, out, target="salary-class", quasi_identifiers=qis,
                                 random_state=3, n_threads=1)
    b = metrics.boosting_utility(adult, out, target="salary-class", quasi_identifiers=qis,
                                 random_state=3, n_threads=1)
    assert a == b
    assert 0.5 < a["ratio"] < 1.2
    # numeric target -> regression on RMSE; ratio = original RMSE / anonymized RMSE
    reg = metrics.boosting_utility(adult, out.assign(age=adult["age"]), target="age",
                                   quasi_identifiers=["sex", "education"], n_threads=1)
    assert reg["task"] == "regression" and reg["metric"] == "rmse"
    assert reg["ratio"] == pytest.approx(reg["original"] / reg["anonymized"])
    with pytest.raises(UnknownColumnError):
        metrics.boosting_utility(adult, out, target="nope")


def test_boosting_utility_sampling_bound():
    adult = pdanon.datasets.load_adult(nrows=800)
    r = metrics.boosting_utility(adult, adult, target="salary-class",
                                 quasi_identifiers=["age", "sex"], max_rows=300, n_threads=1)
    assert r["rows"] == 300


def test_boosting_security_score():
    adult = pdanon.datasets.load_adult(nrows=1500)
    qis = ["age", "sex", "race", "education", "occupation"]
    same = metrics.boosting_security_score(adult, adult, qis, train_rows=600, test_rows=60,
                                          n_threads=1)
    again = metrics.boosting_security_score(adult, adult, qis, train_rows=600, test_rows=60,
                                            n_threads=1)
    assert same == again
    assert 0.0 <= same < 0.9          # identical data: most rows are re-identified
    fully = adult.assign(**{c: np.nan for c in ["age"]}).astype({"age": "float64"})
    for c in ["sex", "race", "education", "occupation"]:
        fully[c] = pd.Series([None] * len(adult), dtype=object)
    # everything suppressed: every candidate ties, accuracy 1/60 in expectation
    safe = metrics.boosting_security_score(adult, fully, qis, train_rows=600, test_rows=60,
                                           n_threads=1)
    assert safe == pytest.approx(1 - 1 / 60)
    with pytest.raises(InvalidInputError, match="n_threads"):
        metrics.boosting_security_score(adult, adult, qis, n_threads=0)
    with pytest.raises(InvalidInputError, match="10 rows"):
        metrics.boosting_security_score(adult.iloc[:5], adult.iloc[:5], qis)


def test_metrics_table_with_ml():
    adult = pdanon.datasets.load_adult(nrows=1200)
    qis = ["age", "sex", "education"]
    out = adult.anon.k_anonymize(5, quasi_identifiers=qis, sensitive=["salary-class"])
    m = out.anon.metrics(adult, ml=True, target="salary-class", n_threads=1).set_index("metric")
    assert 0 <= m.loc["boosting_security_score", "value"] <= 1
    assert m.loc["boosting_security_score", "better"] == "higher"
    assert m.loc["boosting_accuracy_ratio", "better"] == "higher"
    assert 0.5 < m.loc["boosting_accuracy_ratio", "value"] < 1.2
