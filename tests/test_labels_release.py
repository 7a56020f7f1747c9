"""A release of hierarchy labels (``labels=True``) stays coherent (issue 28.2): its roles say
what the labels are (ordered labels of a real column are ``ordered``, in the hierarchy's
order), and metrics, the report, read_csv(schema=), Parquet, explain and a second
anonymization work; figures against the original equal those of the same levels published
as ranges."""

import io

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon.hierarchy import dates, intervals, masking


def _table(n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    return pd.DataFrame({
        "age": rng.integers(18, 90, n).astype(float),
        "zip": rng.choice(["04777", "04778", "10001", "10002", "10003"], n),
        "adm": pd.to_datetime("2024-01-01") + pd.to_timedelta(rng.integers(0, 365, n), "D"),
        "dx": rng.choice(["E11", "I10", "J45", "K21"], n),
    })


HIERARCHIES = {"age": intervals([10, 20, 40]), "zip": masking(), "adm": dates(["month", "quarter", "year"])}
QIS = {"age": "real", "zip": "unordered", "adm": "ordered"}


def _pair(route: str):
    df = _table()
    kw = dict(quasi_identifiers=QIS, sensitive=["dx"])
    if route == "generalize":
        levels = {"age": 2, "zip": 2, "adm": 2}
        run = lambda labels: df.anon.generalize(levels, hierarchies=HIERARCHIES,  # noqa: E731
                                                labels=labels, **kw, row_order="input")
    else:
        run = lambda labels: df.anon.k_anonymize(  # noqa: E731
            5, algorithm="optimal", hierarchies=HIERARCHIES, labels=labels,
            max_suppressed_rows=0.02, **kw, row_order="input")
    return df, run(True), run(False)


@pytest.mark.parametrize("route", ["generalize", "optimal"])
def test_labels_release_records_what_it_holds(route):
    df, labelled, _ = _pair(route)
    roles = labelled.anon.roles()
    levels = labelled.anon.info["levels"]
    for c, kind in QIS.items():
        if levels[c] == 0:
            continue
        col = labelled[c]
        assert isinstance(col.dtype, pd.CategoricalDtype)
        assert col.cat.ordered == (kind != "unordered")
        assert roles.quasi_identifiers[c] == ("unordered" if kind == "unordered" else "ordered")
    if levels["age"]:
        cats = labelled["age"].cat.categories.tolist()
        lows = [float(str(c).split("-")[0]) for c in cats if c != "*"]
        assert lows == sorted(lows)  # the hierarchy's order, not the text's


@pytest.mark.parametrize("route", ["generalize", "optimal"])
def test_figures_against_the_original_equal_the_ranges_release(route):
    df, labelled, ranges = _pair(route)
    assert labelled.anon.info["levels"] == ranges.anon.info["levels"]
    a = labelled.anon.metrics(original=df).set_index("metric")["value"]
    b = ranges.anon.metrics(original=df).set_index("metric")["value"]
    pd.testing.assert_series_equal(a, b, check_names=False)
    assert {"changed_proportion", "by_element_distance"} <= set(a.index)
    report = labelled.anon.report(df)
    ref = ranges.anon.report(df)
    assert report.passed == ref.passed
    assert [c.get("relative_width") for c in report.columns] == [
        c.get("relative_width") for c in ref.columns]
    assert any(c.get("relative_width") for c in report.columns)


@pytest.mark.parametrize("route", ["generalize", "optimal"])
def test_labels_release_reads_back_and_anonymizes_again(tmp_path, route):
    df, labelled, _ = _pair(route)
    back = pdanon.read_csv(io.StringIO(labelled.to_csv(index=False)),
                           schema=labelled.anon.schema)
    pd.testing.assert_frame_equal(back, labelled)
    path = tmp_path / "labels.parquet"
    labelled.to_parquet(path)
    pq = pd.read_parquet(path)
    pd.testing.assert_frame_equal(pq, labelled)
    assert pq.anon.roles() == labelled.anon.roles()
    assert pq.anon.k_anonymity() == labelled.anon.k_anonymity()
    if route == "optimal":  # explain() explains anonymizers' releases
        assert labelled.anon.explain(df).shape[0] == len(df)
    again = labelled.anon.l_diversify(2, algorithm="mondrian", row_order="input")
    assert again.anon.l_diversity() >= 2
    assert again.anon.k_anonymity() >= labelled.anon.k_anonymity() or route == "generalize"
