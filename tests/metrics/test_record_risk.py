"""Record-level risk (pdanon.metrics.reidentification; df.anon.risk / risk_summary): exact
figures on hand-checked tables and hypothesis checks against brute force."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import pdanon  # noqa: F401  (registers df.anon)
from pdanon import metrics
from pdanon._errors import InvalidInputError, UnknownColumnError

# classes: (30, F) x3, (30, M) x2, (40, F) x1
SAMPLE = pd.DataFrame({"age": [30, 30, 30, 30, 30, 40], "sex": ["F", "F", "M", "F", "M", "F"],
                       "d": list("abcdef")}, index=[10, 11, 12, 13, 14, 15])
# population: (30, F) x6, (30, M) x4, (40, F) x2, (50, M) x5
POP = pd.DataFrame({"age": [30] * 10 + [40] * 2 + [50] * 5,
                    "sex": ["F"] * 6 + ["M"] * 4 + ["F"] * 2 + ["M"] * 5})
QIS = ["age", "sex"]


def test_per_row_prosecutor():
    before = SAMPLE.copy()
    r = SAMPLE.anon.risk(quasi_identifiers=QIS)
    assert list(r.columns) == ["class_id", "class_size", "prosecutor"]
    assert list(r.index) == [10, 11, 12, 13, 14, 15]
    assert r["class_id"].tolist() == [0, 0, 1, 0, 1, 2]
    assert r["class_size"].tolist() == [3, 3, 2, 3, 2, 1]
    assert r["prosecutor"].tolist() == pytest.approx([1 / 3, 1 / 3, 0.5, 1 / 3, 0.5, 1.0])
    assert r["class_id"].tolist() == SAMPLE.anon.equivalence_classes(
        quasi_identifiers=QIS).tolist()
    pd.testing.assert_frame_equal(SAMPLE, before)


def test_summary_without_population():
    s = SAMPLE.anon.risk_summary(quasi_identifiers=QIS)
    assert list(s.index) == ["highest_prosecutor_risk", "average_prosecutor_risk",
                             "median_prosecutor_risk", "records_at_risk", "marketer_risk",
                             "sample_uniques"]
    assert s["highest_prosecutor_risk"] == 1.0
    assert s["average_prosecutor_risk"] == pytest.approx(3 / 6)  # 3 classes / 6 rows
    assert s["median_prosecutor_risk"] == pytest.approx((1 / 3 + 0.5) / 2)
    assert s["records_at_risk"] == pytest.approx(6 / 6)  # every risk > 0.2
    assert s["marketer_risk"] == pytest.approx(0.5)
    assert s["sample_uniques"] == pytest.approx(1 / 6)
    s4 = SAMPLE.anon.risk_summary(quasi_identifiers=QIS, threshold=0.4)
    assert s4["records_at_risk"] == pytest.approx(3 / 6)  # the 0.5 and 1.0 rows
    assert SAMPLE.anon.risk_summary(quasi_identifiers=QIS, threshold=1)["records_at_risk"] == 0


def test_population_table():
    r = SAMPLE.anon.risk(quasi_identifiers=QIS, population=POP)
    assert r["journalist"].tolist() == pytest.approx([1 / 6, 1 / 6, 1 / 4, 1 / 6, 1 / 4, 1 / 2])
    assert r.attrs["journalist"] == "journalist: population table"
    s = SAMPLE.anon.risk_summary(quasi_identifiers=QIS, population=POP, threshold=0.2)
    assert s["highest_journalist_risk"] == 0.5  # smallest population class met by the sample: 2
    assert s["average_journalist_risk"] == pytest.approx((3 / 6 + 2 / 4 + 1 / 2) / 6)
    # marketer: sum over sample classes of f / F, / n
    assert s["marketer_risk"] == pytest.approx((3 / 6 + 2 / 4 + 1 / 2) / 6)
    assert s["median_journalist_risk"] == pytest.approx((1 / 6 + 1 / 4) / 2)
    assert s["records_at_journalist_risk"] == pytest.approx(3 / 6)  # 1/4 and 1/2 > 0.2
    # prosecutor figures do not depend on the population
    assert s["highest_prosecutor_risk"] == 1.0
    assert s["average_prosecutor_risk"] == pytest.approx(0.5)


def test_sampling_fraction_is_an_estimate():
    r = SAMPLE.anon.risk(quasi_identifiers=QIS, sampling_fraction=0.1)
    # F = f / 0.1: journalist = 0.1 / f
    assert r["journalist"].tolist() == pytest.approx([0.1 / 3, 0.1 / 3, 0.05, 0.1 / 3, 0.05,
                                                      0.1])
    assert "estimate" in r.attrs["journalist"]
    s = SAMPLE.anon.risk_summary(quasi_identifiers=QIS, sampling_fraction=0.1)
    assert s["highest_journalist_risk"] == pytest.approx(0.1)
    assert s["marketer_risk"] == pytest.approx(0.1 * 0.5)  # sampling fraction x classes / n
    assert "estimate" in s.attrs["journalist"]
    # fraction 1: the table is the population
    whole = SAMPLE.anon.risk(quasi_identifiers=QIS, sampling_fraction=1.0)
    assert whole["journalist"].tolist() == whole["prosecutor"].tolist()


def test_bad_population_and_arguments():
    with pytest.raises(InvalidInputError, match="must contain the sample"):
        SAMPLE.anon.risk(quasi_identifiers=QIS, population=POP.iloc[:5])
    with pytest.raises(UnknownColumnError, match="sex"):
        SAMPLE.anon.risk(quasi_identifiers=QIS, population=POP[["age"]])
    with pytest.raises(InvalidInputError, match="not both"):
        SAMPLE.anon.risk(quasi_identifiers=QIS, population=POP, sampling_fraction=0.5)
    for bad in (0, 1.5, -0.1, True, "0.1"):
        with pytest.raises(InvalidInputError, match="sampling_fraction"):
            SAMPLE.anon.risk(quasi_identifiers=QIS, sampling_fraction=bad)
    for bad in (-0.1, 1.5, None, "x"):
        with pytest.raises(InvalidInputError, match="threshold"):
            SAMPLE.anon.risk_summary(quasi_identifiers=QIS, threshold=bad)
    with pytest.raises(InvalidInputError, match="missing"):
        SAMPLE.anon.risk(quasi_identifiers=QIS, missing="drop")
    with pytest.raises(TypeError, match="population"):
        metrics.record_risk(SAMPLE, QIS, population=[1, 2])


def test_empty_frame():
    empty = SAMPLE.iloc[:0]
    r = empty.anon.risk(quasi_identifiers=QIS)
    assert len(r) == 0 and list(r.columns) == ["class_id", "class_size", "prosecutor"]
    s = empty.anon.risk_summary(quasi_identifiers=QIS, sampling_fraction=0.5)
    assert (s == 0).all() and "highest_journalist_risk" in s


# ------------------------------------------------------------------------- missing values

MISSING = pd.DataFrame({"age": [30, 30, None, 40, None, 40],
                        "sex": ["F", None, "F", "M", None, "M"]})


def test_missing_value_and_wildcard():
    value = MISSING.anon.risk(quasi_identifiers=QIS)
    assert value["class_size"].tolist() == [1, 1, 1, 2, 1, 2]
    wild = MISSING.anon.risk(quasi_identifiers=QIS, missing="wildcard")
    assert "class_id" not in wild.columns  # no classes under wildcard matching
    assert wild["class_size"].tolist() == [4, 4, 4, 3, 6, 3]  # docs/metrics.md's example
    assert wild["prosecutor"].tolist() == pytest.approx([1 / 4, 1 / 4, 1 / 4, 1 / 3, 1 / 6,
                                                         1 / 3])
    s = MISSING.anon.risk_summary(quasi_identifiers=QIS, missing="wildcard")
    assert s["sample_uniques"] == 0 and s["highest_prosecutor_risk"] == pytest.approx(1 / 3)
    # population under wildcard: population rows matching each sample row
    pop = pd.concat([MISSING, pd.DataFrame({"age": [30, 50], "sex": ["M", None]})],
                    ignore_index=True)
    r = MISSING.anon.risk(quasi_identifiers=QIS, population=pop, missing="wildcard")
    # the extra (30, M) matches r1 (30, _) and r4 (_, _); the extra (50, _) matches r2 (_, F)
    # and r4 (_, _)
    assert (1 / r["journalist"]).tolist() == pytest.approx([4, 5, 5, 3, 8, 3])


def brute_force_frequencies(rows, wildcard):
    def na(v):
        return v is None or (isinstance(v, float) and math.isnan(v))

    def agree(a, b):
        return all((na(x) and na(y)) or (wildcard and (na(x) or na(y)))
                   or (not na(x) and not na(y) and x == y) for x, y in zip(a, b))

    return [sum(agree(a, b) for b in rows) for a in rows]


cells = st.one_of(st.integers(0, 2), st.none())


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(cells, cells), min_size=1, max_size=12),
       st.lists(st.tuples(cells, cells), max_size=8),
       st.sampled_from(["value", "wildcard"]), st.sampled_from([0.0, 0.2, 0.34, 0.5]))
def test_against_brute_force(sample, extra, missing, threshold):
    df = pd.DataFrame(sample, columns=["a", "b"], dtype=object)
    pop = pd.DataFrame(sample + extra, columns=["a", "b"], dtype=object)
    wildcard = missing == "wildcard"
    f = brute_force_frequencies(sample, wildcard)
    # population = sample + extra: the population rows matching each sample row
    F = [sum(1 for row in sample + extra
             if brute_force_frequencies([s, row], wildcard)[0] == 2) for s in sample]
    r = metrics.record_risk(df, ["a", "b"], population=pop, missing=missing)
    assert r["class_size"].tolist() == f
    assert (1 / r["journalist"]).round().astype(int).tolist() == F
    s = metrics.risk_summary(df, ["a", "b"], population=pop, threshold=threshold,
                             missing=missing)
    p = [1 / x for x in f]
    j = [1 / x for x in F]
    assert s["highest_prosecutor_risk"] == pytest.approx(max(p))
    assert s["average_prosecutor_risk"] == pytest.approx(sum(p) / len(p))
    assert s["median_prosecutor_risk"] == pytest.approx(statistics.median(p))
    assert s["records_at_risk"] == pytest.approx(sum(x > threshold for x in p) / len(p))
    assert s["sample_uniques"] == pytest.approx(f.count(1) / len(f))
    assert s["highest_journalist_risk"] == pytest.approx(max(j))
    assert s["marketer_risk"] == pytest.approx(sum(j) / len(j))
    assert s["records_at_journalist_risk"] == pytest.approx(
        sum(x > threshold for x in j) / len(j))
    if not wildcard:
        # marketer without a population = classes / n
        classes = len(set(map(tuple, df.astype(str).to_numpy())))
        assert metrics.risk_summary(df, ["a", "b"])["marketer_risk"] == pytest.approx(
            classes / len(df))


# ------------------------------------------------------------------------- metrics() rows


def test_metrics_rows():
    m = SAMPLE.anon.metrics(quasi_identifiers=QIS)  # the risk rows are on by default
    v = m.set_index("metric")["value"]
    s = SAMPLE.anon.risk_summary(quasi_identifiers=QIS)
    assert v["highest_prosecutor_risk"] == s["highest_prosecutor_risk"]
    assert v["records_at_risk"] == s["records_at_risk"]
    assert v["sample_uniques"] == s["sample_uniques"]
    assert v["marketer_risk"] == s["marketer_risk"]
    assert m["meaning"].str.len().gt(10).all()
    assert "highest_journalist_risk" not in v
    # risk=False leaves them out; the rest of the table is unchanged
    off = SAMPLE.anon.metrics(quasi_identifiers=QIS, risk=False)
    assert "marketer_risk" not in set(off["metric"])
    assert off["metric"].tolist() == [x for x in m["metric"] if "risk" not in x
                                      and x != "sample_uniques"]
    # a population implies the rows; a sampling fraction labels them estimates
    v = SAMPLE.anon.metrics(quasi_identifiers=QIS, population=POP).set_index("metric")["value"]
    assert v["highest_journalist_risk"] == 0.5
    m = SAMPLE.anon.metrics(quasi_identifiers=QIS, sampling_fraction=0.1, threshold=0.05)
    v = m.set_index("metric")["value"]
    assert v["highest_journalist_risk"] == pytest.approx(0.1)
    assert v["records_at_journalist_risk"] == pytest.approx(1 / 6)
    assert "> 0.05" in m.set_index("metric").loc["records_at_risk", "meaning"]
    # estimates keep their key; the label and the meaning say "estimate"
    shown = m.set_index("metric")
    assert shown.loc["highest_journalist_risk", "label"] == "highest journalist risk (estimate)"
    assert shown.loc["marketer_risk", "label"] == "marketer risk (estimate)"
    assert shown.loc["highest_prosecutor_risk", "label"] == "highest prosecutor risk"
    assert shown.loc["marketer_risk", "meaning"].endswith("F = f / sampling fraction")


def test_metrics_rows_under_wildcard():
    m = MISSING.anon.metrics(quasi_identifiers=QIS, missing="wildcard", risk=True)
    assert m["metric"].tolist()[:2] == ["k_anonymity_wildcard", "highest_prosecutor_risk"]
    v = m.set_index("metric")["value"]
    assert v["highest_prosecutor_risk"] == pytest.approx(1 / 3)
    assert v["marketer_risk"] == pytest.approx(np.mean([1 / 4, 1 / 4, 1 / 4, 1 / 3, 1 / 6,
                                                        1 / 3]))
