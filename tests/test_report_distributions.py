"""pdanon.report.distributions: the internal report's before/after distributions and the
association kept, on hand-checked tables and random ones."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.dtype import GeneralizationArray
from pdanon.report import build_report
from pdanon.report.distributions import association, cramers_v, distribution


def test_integer_ranges_spread_over_the_integers_they_cover():
    original = pd.Series([30, 31, 40, 42], name="age")
    published = pd.Series(GeneralizationArray.from_bounds([30, 30, 40, 40], [31, 31, 42, 42],
                                                          kind="real"), name="age")
    d = distribution(original, published, "real")
    # 30..43 in round bins of 2; [40, 42] covers 40, 41, 42: 2/3 of its 2 rows in 40-41
    assert d["bins"] == ["30-31", "32-33", "34-35", "36-37", "38-39", "40-41", "42-43"]
    assert d["before"] == [2, 0, 0, 0, 0, 1, 1]
    assert d["after"] == pytest.approx([2, 0, 0, 0, 0, 4 / 3, 2 / 3])
    assert d["chart"] == "histogram"
    assert (d["original_rows"], d["published_rows"]) == (4, 4)


def test_sets_spread_over_their_members_and_blank_cells_count_nowhere():
    original = pd.Series(["a", "b", "c", "c", "d"], name="zip")
    published = pd.Series(pd.array([{"a", "b"}, {"a", "b"}, "c", "c", None],
                                    dtype="generalization[unordered]"), name="zip")
    d = distribution(original, published, "unordered")
    got = dict(zip(d["bins"], zip(d["before"], d["after"])))
    assert got == {"c": (2, 2), "a": (1, 1), "b": (1, 1), "d": (1, 0)}
    assert (d["original_rows"], d["published_rows"]) == (5, 4)
    assert d["chart"] == "bars"


def test_many_categories_keep_the_most_frequent_and_fold_the_rest():
    values = [f"v{i:02d}" for i in range(20) for _ in range(20 - i)]
    s = pd.Series(values, name="code")
    d = distribution(s, s, "unordered")
    assert d["bins"] == [f"v{i:02d}" for i in range(8)] + ["other"]
    assert d["before"] == d["after"] == [20, 19, 18, 17, 16, 15, 14, 13,
                                         sum(range(1, 13))]


def test_dates_fall_in_calendar_bins():
    days = pd.to_datetime(["2024-01-03", "2024-01-20", "2024-02-10", "2024-03-31"])
    original = pd.Series(days, name="admitted")
    d = distribution(original, original, "ordered")
    assert d["bins"] == ["2024-01", "2024-02", "2024-03"]
    assert d["before"] == d["after"] == [2, 1, 1]
    # a release by calendar month: each month's cell is spread over its own days
    df = pd.DataFrame({"admitted": days.repeat(2)})
    out = df.anon.k_anonymize(2, algorithm="mondrian", quasi_identifiers={"admitted":
                                                                          "ordered"},
                              options={"calendar": {"admitted": "month"}})
    d = distribution(df["admitted"], out["admitted"], "ordered")
    assert d["bins"] == ["2024-01", "2024-02", "2024-03"]
    assert d["before"] == [4, 2, 2] and d["after"] == pytest.approx([4, 2, 2])


def test_cramers_v_and_the_association_kept():
    a = np.array([0, 0, 1, 1] * 25)
    assert cramers_v(a, a) == pytest.approx(1.0)
    assert cramers_v(a, np.array([0, 1] * 50)) == pytest.approx(0.0)
    assert cramers_v(a, np.zeros(100, dtype=np.int64)) is None  # one category
    df = pd.DataFrame({"x": ["p", "q"] * 50, "y": ["p", "q"] * 50,
                       "z": ["p", "p", "q", "q"] * 25})
    kept = association(df, df, ["x", "y", "z"])
    assert kept[0]["columns"] == ["x", "y"]
    assert kept[0]["before"] == pytest.approx(1.0) == kept[0]["after"]
    # generalizing y to one set {p, q} leaves no association with it
    blurred = df.assign(y=pd.array([{"p", "q"}] * 100, dtype="generalization[unordered]"))
    lost = {tuple(r["columns"]): r for r in association(df, blurred, ["x", "y", "z"])}
    assert lost["x", "y"]["before"] == pytest.approx(1.0)
    assert lost["x", "y"]["after"] is None or lost["x", "y"]["after"] == pytest.approx(0.0)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ages=st.lists(st.integers(0, 99), min_size=6, max_size=60),
       zips=st.data(), k=st.integers(2, 4))
def test_before_and_after_count_the_rows_they_describe(ages, zips, k):
    n = len(ages)
    z = zips.draw(st.lists(st.sampled_from(["01", "02", "03", "10", None]), min_size=n,
                           max_size=n))
    df = pd.DataFrame({"age": ages, "zip": pd.Series(z, dtype=object)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.k_anonymize(min(k, n), algorithm="datafly", max_suppressed_rows=0.3,
                                  quasi_identifiers={"age": "real", "zip": "unordered"})
    for col, kind in (("age", "real"), ("zip", "unordered")):
        d = distribution(df[col], out[col], kind)
        assert sum(d["before"]) == d["original_rows"] == df[col].notna().sum()
        assert sum(d["after"]) == pytest.approx(d["published_rows"])
        assert d["published_rows"] == out[col].notna().sum()
        assert min(d["after"]) >= -1e-9 and len(d["bins"]) == len(d["before"])


def test_the_internal_report_is_the_publishers_and_says_so():
    df = pdanon.datasets.make_patients(300, seed=3)
    roles = dict(quasi_identifiers={"zipcode": "unordered", "age": "real"},
                 sensitive=["disease"])
    out = df.anon.k_anonymize(5, algorithm="mondrian", **roles)
    with pytest.raises(pdanon.InvalidInputError, match="pass original="):
        build_report(out, internal=True)
    public, internal = out.anon.report(df), out.anon.report(df, internal=True)
    assert public.distributions == [] and public.association == []
    assert [d["column"] for d in internal.distributions] == ["zipcode", "age", "disease"]
    assert internal.association and internal.left_out == []
    assert "by_element_distance" in set(internal.metrics["metric"])
    assert "by_element_distance" not in set(public.metrics["metric"])
    page = internal.to_html()
    assert "INTERNAL REPORT, for the publisher only" in page
    assert page.index("INTERNAL REPORT") < page.index("<h2>What was lost</h2>")
    assert page.count("<figure>") == 3 + 3  # shares, class sizes, risk; a column each
    data = json.loads(internal.to_json())
    assert data["internal"] is True and len(data["distributions"]) == 3
    assert "INTERNAL" not in public.to_html()
    assert "in the internal report" in public.to_html()
    assert public.passed is internal.passed is True
