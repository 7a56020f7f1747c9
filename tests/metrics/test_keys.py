"""One snake_case key per figure (pdanon.metrics.FIGURES), the same in the metrics table,
risk_summary, perturbation_summary, the report's JSON and HTML, and Dask."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon import metrics
from pdanon._errors import InvalidInputError
from pdanon.metrics import FIGURES, figure
from pdanon.metrics.keys import row

SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


def test_registry_is_well_formed():
    assert len(FIGURES) >= 40
    labels = [f.label for f in FIGURES.values()]
    assert len(set(labels)) == len(labels)  # no label names two figures
    for key, f in FIGURES.items():
        assert SNAKE.match(key) and f.key == key
        assert f.better in ("higher", "lower", None)
        assert f.kind in ("risk", "utility")
        assert f.label and f.meaning and not f.meaning.startswith(("risk:", "utility:"))
    with pytest.raises(TypeError):
        FIGURES["x"] = FIGURES["k_anonymity"]  # read-only


def test_unknown_key_names_the_closest():
    with pytest.raises(InvalidInputError, match=r"did you mean 'records_at_risk'"):
        figure("records_at_rsk")
    with pytest.raises(InvalidInputError, match="unknown figure 'zzz'; Every key"):
        figure("zzz")


def test_row_fills_the_meaning_and_marks_estimates():
    assert row("records_at_risk", 0.25, threshold=0.05) == (
        "records_at_risk", "records at risk", 0.25, "lower",
        "risk: share of rows with prosecutor risk > 0.05")
    key, text, _, _, meaning = row("marketer_risk", 0.1, estimate=True)
    assert (key, text) == ("marketer_risk", "marketer risk (estimate)")
    assert meaning.endswith(", F = f / sampling fraction")
    assert row("boosting_accuracy_ratio", 1, target="income")[4] == (
        "utility: accuracy of gradient boosting predicting 'income', anonymized / original")


def _release():
    df = pd.DataFrame({"age": [30, 31, 40, 42, 50, 51, 60, 61],
                       "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                       "d": ["a", "b", "a", "b", "a", "b", "a", "b"]})
    out = df.anon.k_anonymize(2, quasi_identifiers=["age"], sensitive=["d"],
                              algorithm="mondrian")
    return df, out


def test_every_place_uses_registry_keys():
    df, out = _release()
    table = out.anon.metrics(df, sampling_fraction=0.5)
    assert set(table["metric"]) <= set(FIGURES)
    assert table["label"].tolist() == [
        FIGURES[k].label + (" (estimate)" if "journalist" in k or k == "marketer_risk" else "")
        for k in table["metric"]]
    summary = metrics.risk_summary(out, ["age"], sampling_fraction=0.5)
    assert set(summary.index) <= set(FIGURES)
    # the same figure, the same key and value in the table and the summary
    values = table.set_index("metric")["value"]
    for key, value in summary.items():
        assert values[key] == pytest.approx(value), key
    noisy = df.assign(x=df["x"] + np.array([0.5, -0.5] * 4))
    assert set(metrics.perturbation_summary(df, noisy).index) <= set(FIGURES)
    rep = out.anon.report(df)
    data = json.loads(rep.to_json())
    keys = {"k_anonymity", "l_diversity_distinct", "l_diversity_entropy", "t_closeness_emd"}
    assert keys <= set(data["privacy"])
    assert set(data["privacy"]["risk_summary"]) <= set(FIGURES)
    figures = {k for k in data["utility"] if k != "ml"}
    assert figures <= set(FIGURES) and "changed_proportion" in figures
    assert set(data["left_out"]) <= set(FIGURES)
    assert {r["metric"] for r in data["metrics"]} <= set(FIGURES)
    assert data["utility"]["changed_proportion"] == pytest.approx(
        metrics.changed_proportion(df, out, ["age"]))
    # the page shows labels, each figure once; the keys are the JSON's
    page = rep.to_html()
    assert page.count("<td>highest prosecutor risk</td>") == 1
    assert "<td>highest_prosecutor_risk</td>" not in page
    assert "<td>changed proportion</td>" in page and "<td>equivalence classes</td>" in page


def test_dask_uses_the_same_keys():
    pytest.importorskip("dask")
    import dask.dataframe as dd

    import pdanon.dask as pdd

    df, out = _release()
    local = metrics.metrics_table(out, quasi_identifiers=["age"], sensitive=["d"])
    table = pdd.metrics(dd.from_pandas(out, npartitions=2), ["age"], ["d"])
    assert set(table["metric"]) <= set(FIGURES)
    assert table["metric"].tolist() == [*local["metric"], "discernibility"]
    assert table["label"].tolist()[:3] == local["label"].tolist()[:3]
    s = pdd.risk_summary(dd.from_pandas(out, npartitions=2), ["age"])
    assert list(s.index) == list(metrics.risk_summary(out, ["age"]).index)


def test_package_exports_the_registry():
    assert pdanon.metrics.FIGURES is metrics.keys.FIGURES
    assert "FIGURES" in metrics.__all__
