"""pdanon on Dask: dtype registration, metrics equal to pandas, distributed Mondrian.

Skipped when the ``dask`` extra (dask[dataframe], distributed) is not installed. Most tests use
the synchronous scheduler; the ``cluster`` tests run on a small in-process LocalCluster.
"""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import pdanon  # noqa: E402
import pdanon.dask as pdd  # noqa: E402
from pdanon import metrics as pm  # noqa: E402
from pdanon._errors import (InfeasibleError, InvalidInputError, KindError,  # noqa: E402
                            VerificationError)
from pdanon._groups import class_labels  # noqa: E402
from pdanon.dask import _cuts as C  # noqa: E402
from pdanon.dask import _local as L  # noqa: E402
from pdanon.dask import _mondrian as M  # noqa: E402
from pdanon.dask import _models  # noqa: E402
from pdanon.dtype import GeneralizationArray, GeneralizationDtype  # noqa: E402
from pdanon.models import AllOf, KAnonymity  # noqa: E402
from pdanon.models import LDiversity, TCloseness  # noqa: E402

QIS = dict(pdanon.datasets.ADULT_QUASI_IDENTIFIERS)

# dask's Parquet reader still calls set_index(inplace=True), which pandas 3.1 deprecates
# exact_bounds=True keeps exact bounds and says so (ExactBoundsWarning)
pytestmark = [pytest.mark.filterwarnings("ignore:The inplace keyword"),
              pytest.mark.filterwarnings("ignore::pdanon.ExactBoundsWarning")]


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture(scope="module")
def adult():
    return pdanon.datasets.load_adult(nrows=3000)


@pytest.fixture(scope="module")
def adult_anon(adult):
    return adult.anon.k_anonymize(5, algorithm="mondrian", row_order="input")


def ddf_of(df, n=4):
    return dd.from_pandas(df, npartitions=n)


def as_text(series):
    return series.astype(str).tolist()


# ============================================================================ registration


def test_import_pdanon_does_not_import_dask():
    code = ("import sys, pdanon; pdanon.datasets.load_adult(nrows=5).anon.k_anonymize(2); "
            "print(any(m == 'dask' or m.startswith('dask.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("dtype", [GeneralizationDtype("real"), GeneralizationDtype("ordered"),
                                   GeneralizationDtype("ordered", ["lo", "mid", "hi"]),
                                   GeneralizationDtype("unordered", ["a", "b", "c"]),
                                   GeneralizationDtype("unordered", ["a"])])
def test_nonempty_meta_has_the_dtype(dtype):
    from dask.dataframe.extensions import make_array_nonempty, make_scalar

    arr = make_array_nonempty(dtype)
    assert len(arr) == 2 and arr.dtype == dtype and not arr.isna().any()
    assert make_scalar(dtype.type(0, 1, "real")).kind == "real"


def test_generalized_frames_compute_repartition_and_round_trip_parquet(adult_anon, tmp_path):
    ddf = ddf_of(adult_anon, 3)
    gen = [c for c in adult_anon.columns if isinstance(adult_anon[c].dtype, GeneralizationDtype)]
    assert set(gen) == set(QIS)
    for got in (ddf.compute(), ddf.repartition(npartitions=2).compute()):
        for c in gen:
            assert got[c].dtype == adult_anon[c].dtype
            assert as_text(got[c]) == as_text(adult_anon[c])
    ddf.to_parquet(tmp_path / "p")
    back = dd.read_parquet(tmp_path / "p")
    assert all(back.dtypes[c] == adult_anon[c].dtype for c in gen)
    got = back.compute()
    assert got.index.equals(adult_anon.index)
    for c in gen:
        assert got[c].dtype == adult_anon[c].dtype
        assert as_text(got[c]) == as_text(adult_anon[c])
    # the roles travel in the meta attrs
    assert back.anon.roles().sensitive == {"salary-class": "unordered"}


def test_accessor_is_registered_and_reads_roles_from_meta(adult):
    ddf = ddf_of(adult)
    assert isinstance(ddf.anon, pdd.DaskAnonAccessor)
    r = ddf.anon.roles()
    assert r.quasi_identifiers == QIS and r.sensitive == {"salary-class": "unordered"}
    assert ddf.anon.roles(quasi_identifiers=["age"]).qi == ["age"]
    with pytest.raises(TypeError, match="unexpected keyword"):
        ddf.anon.roles(colour="red")


# ============================================================================ metrics


def hierarchy_marital():
    path = pdanon.datasets.adult_hierarchy_path("marital-status")
    return pd.read_csv(path, sep=";", header=None)


def assert_same_metrics(frame, ddf, qis, sens):
    labels = class_labels(frame, list(qis))
    sizes = np.sort(np.bincount(labels)) if len(frame) else np.zeros(0, np.int64)
    assert np.sort(pdd.class_sizes(ddf, qis).compute().to_numpy()).tolist() == sizes.tolist()
    assert pdd.k_anonymity(ddf, qis) == pm.k_anonymity(frame, qis)
    assert pdd.average_class_size(ddf, qis) == pm.average_class_size(frame, qis)
    assert pdd.distinctness(ddf) == pm.distinctness(frame)
    assert pdd.non_uniform_entropy(ddf, qis) == pytest.approx(
        pm.non_uniform_entropy(frame, qis), rel=1e-12, abs=1e-12)
    assert pdd.discernibility(ddf, qis) == int((sizes.astype(np.int64) ** 2).sum())
    for variant, c in (("distinct", None), ("entropy", None), ("recursive", 2), ("recursive", 1)):
        assert pdd.l_diversity(ddf, qis, sens, variant=variant, c=c) == pm.l_diversity(
            frame, qis, sens, variant=variant, c=c)
    for distance in ("emd", "jensen_shannon", "reference"):
        assert pdd.t_closeness(ddf, qis, sens, distance=distance) == pm.t_closeness(
            frame, qis, sens, distance=distance)


@pytest.mark.parametrize("which", ["raw", "anonymized"])
def test_metrics_equal_pandas_on_adult(adult, adult_anon, which):
    frame = adult if which == "raw" else adult_anon
    ddf = ddf_of(frame, 5)
    assert_same_metrics(frame, ddf, QIS, {"salary-class": "unordered"})
    table = pdd.metrics(ddf)
    ref = frame.anon.metrics().set_index("metric")["value"]
    got = table.set_index("metric")["value"]
    for metric, value in ref.items():
        assert got[metric] == pytest.approx(value, rel=1e-12, abs=0), metric
    assert got["discernibility"] == pdd.discernibility(ddf)
    assert ddf.anon.k_anonymity() == frame.anon.k_anonymity()
    assert ddf.anon.t_closeness() == frame.anon.t_closeness()
    assert ddf.anon.l_diversity(variant="entropy") == frame.anon.l_diversity(variant="entropy")



def test_risk_rows_with_a_sampling_fraction_equal_pandas(adult_anon):
    """The record-level risk rows come from the frequency-of-frequencies table on Dask."""
    ddf = ddf_of(adult_anon, 5)
    kw = dict(sampling_fraction=0.05, threshold=0.1)
    ref = adult_anon.anon.metrics(**kw).set_index("metric")["value"]
    got = ddf.anon.metrics(**kw).set_index("metric")["value"]
    risk_rows = [m for m in ref.index if "risk" in m or "uniques" in m]
    assert "population_uniques" in risk_rows and len(risk_rows) == 11
    for metric in risk_rows:
        assert got[metric] == pytest.approx(ref[metric], rel=1e-12, abs=0), metric
    assert not any("risk" in m for m in ddf.anon.metrics(risk=False)["metric"])

def test_every_t_distance_and_several_sensitive_columns_equal_pandas(adult_anon):
    qis = {c: k for c, k in QIS.items() if c not in ("marital-status",)}
    frame = adult_anon.copy()
    frame["age_s"] = pdanon.datasets.load_adult(nrows=3000)["age"]
    frame["ms"] = pdanon.datasets.load_adult(nrows=3000)["marital-status"]
    ddf = ddf_of(frame, 3)
    sens = {"salary-class": "unordered", "age_s": "real", "ms": "unordered"}
    h = {"ms": hierarchy_marital()}
    for distance in ("emd", "jensen_shannon", "wasserstein", "reference", "hierarchical"):
        s = sens if distance != "wasserstein" else {"age_s": "real"}
        hh = h if distance == "hierarchical" else None
        assert pdd.t_closeness(ddf, qis, s, distance=distance, hierarchies=hh) == \
            pm.t_closeness(frame, qis, s, distance=distance, hierarchies=hh), distance
    assert pdd.l_diversity(ddf, qis, sens, variant="entropy") == pm.l_diversity(
        frame, qis, sens, variant="entropy")


def test_metric_input_errors_match_pandas(adult):
    ddf = ddf_of(adult)
    with pytest.raises(InvalidInputError, match="unknown distance"):
        pdd.t_closeness(ddf, distance="manhattan")
    with pytest.raises(InvalidInputError, match="hierarchies"):
        pdd.t_closeness(ddf, distance="hierarchical")
    with pytest.raises(InvalidInputError, match="recursive"):
        pdd.l_diversity(ddf, variant="recursive")
    with pytest.raises(TypeError, match="Dask DataFrame"):
        pdd.k_anonymity(adult)


def test_empty_frame():
    df = pd.DataFrame({"a": pd.Series([], dtype=np.int64), "s": pd.Series([], dtype=object)})
    ddf = ddf_of(df, 1)
    assert pdd.k_anonymity(ddf, ["a"]) == 0
    assert pdd.average_class_size(ddf, ["a"]) == 0.0
    assert pdd.distinctness(ddf) == 0.0
    assert pdd.non_uniform_entropy(ddf, ["a"]) == 0.0
    assert pdd.l_diversity(ddf, ["a"], ["s"]) == 0
    assert pdd.t_closeness(ddf, ["a"], ["s"]) == 0.0


def test_many_categories_use_text_keys():
    rng = np.random.default_rng(3)
    cats = [f"c{i:02d}" for i in range(70)]
    codes = rng.integers(0, 70, 400)
    groups = rng.integers(0, 40, 400)
    arr = GeneralizationArray.from_groups(codes, groups, kind="unordered", categories=cats)
    frame = pd.DataFrame({"x": arr, "s": rng.choice(list("pqr"), 400)})
    ddf = ddf_of(frame, 3)
    assert_same_metrics(frame, ddf, {"x": "unordered"}, {"s": "unordered"})


cells = st.one_of(st.none(), st.integers(0, 3))


@st.composite
def frames(draw):
    n = draw(st.integers(1, 25))
    a = draw(st.lists(cells, min_size=n, max_size=n))
    b = draw(st.lists(st.sampled_from(["x", "y", "z", None]), min_size=n, max_size=n))
    s = draw(st.lists(st.sampled_from(["p", "q", "r", None]), min_size=n, max_size=n))
    g = draw(st.lists(st.integers(-1, 3), min_size=n, max_size=n))
    v = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    frame = pd.DataFrame({
        "a": pd.Series(a, dtype="float64"),
        "b": pd.Series(b, dtype=object),
        "g": GeneralizationArray.from_groups(np.array(v), np.array(g), kind="real"),
        "u": GeneralizationArray.from_groups(np.array(v) % 3, np.array(g), kind="unordered",
                                             categories=["k", "l", "m"]),
        "s": pd.Series(s, dtype=object),
    })
    return frame, draw(st.integers(1, 4))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_metrics_equal_pandas_on_random_frames_with_missing_cells(case):
    from pdanon.metrics.report import metrics_table

    frame, parts = case
    ddf = ddf_of(frame, parts)
    qis = {"a": "real", "b": "unordered", "g": "real", "u": "unordered"}
    sens = {"s": "unordered"}
    got = pdd.metrics(ddf, qis, sens).set_index("metric")["value"]
    ref = metrics_table(frame, quasi_identifiers=qis, sensitive=sens).set_index("metric")
    for metric, value in ref["value"].items():
        assert got[metric] == pytest.approx(value, rel=1e-12, abs=1e-12), metric
    sizes = np.sort(np.bincount(class_labels(frame, list(qis))))
    assert np.sort(pdd.class_sizes(ddf, qis).compute().to_numpy()).tolist() == sizes.tolist()
    assert pdd.l_diversity(ddf, qis, sens, variant="recursive", c=1.5) == pm.l_diversity(
        frame, qis, sens, variant="recursive", c=1.5)


# ============================================================================ counts -> cuts


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=2, max_size=40))
def test_median_threshold_from_counts_equals_the_mondrian_median(keys):
    from pdanon.partition.mondrian import _median_sides

    keys = np.array(keys)
    if len(np.unique(keys)) < 2:
        return
    right, _ = _median_sides(keys, np.zeros(len(keys), np.int64), 1, 7)
    t = C.median_threshold(np.bincount(keys, minlength=7))
    assert (right == (keys > t)).all()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=2, max_size=40))
def test_balanced_split_from_counts_equals_the_mondrian_split(keys):
    from pdanon.partition.mondrian import _balanced_sides

    keys = np.array(keys)
    if len(np.unique(keys)) < 2:
        return
    right = _balanced_sides(keys, np.zeros(len(keys), np.int64), 1, 6)
    rset = C.balanced_right(np.bincount(keys, minlength=6))
    assert (right == rset[keys]).all()


MODELS = [
    KAnonymity(3),
    AllOf(KAnonymity(2), LDiversity(2)),
    AllOf(KAnonymity(1), LDiversity(1.5, variant="entropy")),
    AllOf(KAnonymity(1), LDiversity(2, variant="recursive", c=2)),
    AllOf(KAnonymity(1), TCloseness(0.2)),
    AllOf(KAnonymity(1), TCloseness(0.1, distance="jensen_shannon")),
]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3)), min_size=1, max_size=40),
       st.sampled_from(range(len(MODELS))), st.sampled_from(["unordered", "ordered"]))
def test_model_from_counts_equals_model_on_rows(rows, which, kind):
    from pdanon.distributions import SensitiveColumn, SensitiveData

    model = MODELS[which]
    labels = np.array([r[0] for r in rows])
    _, labels = np.unique(labels, return_inverse=True)
    values = np.array([r[1] for r in rows])
    col = SensitiveColumn.from_values(values, kind, name="s")
    expected = model.groups_ok(labels, SensitiveData({"s": col}))
    G = labels.max() + 1
    dense = np.zeros((G, col.m), dtype=np.int64)
    np.add.at(dense, (labels, col.codes), 1)
    glob = pdd._metrics.GlobalColumn(
        SensitiveColumn("s", kind, np.zeros(0, np.int64), col.m, col.has_na, col.uniques,
                        col.values, col.global_counts), pd.Index([]), [])
    got = M.groups_ok_from_counts(model, np.bincount(labels), {"s": dense}, {"s": glob})
    assert got.tolist() == np.asarray(expected).tolist()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3)), min_size=1, max_size=30),
       st.lists(st.tuples(st.integers(0, 1), st.integers(0, 5)), min_size=0, max_size=6))
def test_route_follows_the_cut_bounds(rows, splits):
    tree = M.Tree()
    ncodes = [6, 4]
    for col, t in splits:  # split the leftmost leaf each time
        leaf = tree.leaves()[0]
        rset = (np.arange(4) % 2 == 1) if col == 1 else None
        tree.split(leaf, col, t, rset, [0, 0])
    codes = [np.array([r[0] for r in rows]), np.array([r[1] for r in rows])]
    got = M.route(codes, tree.routing(ncodes))
    for i in range(len(rows)):  # straightforward per-row walk
        v = 0
        while tree.col[v] >= 0:
            x = codes[tree.col[v]][i]
            right = tree.right_set[v][x] if v in tree.right_set else x > tree.thr[v]
            v = tree.right[v] if right else tree.left[v]
        assert got[i] == v


# ============================================================================ Mondrian


@pytest.mark.parametrize("model_of", [
    lambda: KAnonymity(5),
    lambda: AllOf(KAnonymity(2), LDiversity(2)),
    lambda: AllOf(KAnonymity(1), TCloseness(0.2)),
])
def test_one_part_gives_exactly_the_pandas_result(adult, model_of):
    from pdanon import engine

    roles = adult.anon.roles()
    # with the bounds rule too: a part widens with the whole column's counts (the plan's), so
    # one part publishes what pandas does, widened bounds included (age's [60, 79] -> [60, 80])
    ref, _ = engine.anonymize(adult, roles, model=model_of(), method="generalize",
                              algorithm="mondrian")
    out, info = M.anonymize(ddf_of(adult), roles, model=model_of(), max_rows_per_part=10**9,
                            row_order="input")
    got = out.compute()
    assert info["parts"] == 1 and info["cut_levels"] == 0
    assert got.index.equals(adult.index)
    for c in QIS:
        assert got[c].dtype == ref[c].dtype
        assert as_text(got[c]) == as_text(ref[c])


def test_dask_mondrian_widens_rare_bounds_with_the_whole_columns_counts():
    """As the pandas engine (pdanon.recode.bounds): a bound held by fewer than k rows of the
    whole column is widened, judged on the whole column (the plan's counts), not the part."""
    import warnings

    df = pd.DataFrame({"age": [20, 20, 20, 30, 30, 30, 97]})  # 97: one person
    with warnings.catch_warnings():
        warnings.simplefilter("error", pdanon.ExactBoundsWarning)
        out = ddf_of(df, 2).anon.k_anonymize(3, quasi_identifiers={"age": "real"},
                                             row_order="input")
    assert out.anon.info["bounds"] == {"rule": "no bound held by fewer than 3 rows", "k": 3,
                                       "widened_cells": 4}
    assert as_text(out.compute()["age"]) == ["20"] * 3 + ["[30, 100]"] * 4
    with pytest.warns(pdanon.ExactBoundsWarning, match="exact_bounds=True"):
        out = ddf_of(df, 2).anon.k_anonymize(3, quasi_identifiers={"age": "real"},
                                             row_order="input", options={"exact_bounds": True})
    assert out.anon.info["bounds"]["rule"] == "exact"
    assert "[30, 97]" in as_text(out.compute()["age"])
    with pytest.raises(pdanon.InvalidInputError, match="exact_bounds"):
        ddf_of(df, 2).anon.k_anonymize(3, quasi_identifiers={"age": "real"},
                                       options={"exact_bounds": "yes"})
    # the rarity is the whole column's (the plan's counts), not the part's: a part holding
    # three of the column's six 30s and the one 97 keeps 30 (and 50) and widens 97
    from pdanon.dask._bounds import widen as _widen
    from pdanon.dask._plan import qi_column, value_table_capped

    column = pd.Series([30.0] * 6 + [50.0] * 6 + [97.0], name="age")
    q = qi_column("age", "real", column.dtype, value_table_capped(column, None), limit=4096)
    part = GeneralizationArray.from_bounds([30.0] * 3 + [50.0], [97.0] * 4, kind="real")
    cells, grown = _widen(q, part, 5)
    assert [str(c) for c in cells] == ["[30, 100]"] * 3 + ["[50, 100]"] and grown == 4


def test_dask_mondrian_widens_ordered_categories_and_keeps_them_exact_on_request():
    """Ordered categories follow the rule too (declared order: its blocks of >= k rows,
    tests/dask/test_dask_bounds.py); exact_bounds=True keeps them, with the warning."""
    import warnings

    df = pd.DataFrame({"grade": pd.Categorical(list("aabbbcdde"), ordered=True)})
    with warnings.catch_warnings():
        warnings.simplefilter("error", pdanon.ExactBoundsWarning)
        out = ddf_of(df, 2).anon.k_anonymize(3, quasi_identifiers={"grade": "ordered"},
                                             row_order="input")
        ddf_of(df, 2).anon.k_anonymize(3, quasi_identifiers={"grade": "ordered"},
                                       method="suppress")
    assert "exact_columns" not in out.anon.info["bounds"]
    # the same cells as pandas: [c, e] ends on c and e (one row each), the first and last
    # categories of the order's block c..e (>= 3 rows): its grid
    ref = df.anon.k_anonymize(3, quasi_identifiers={"grade": "ordered"}, row_order="input",
                              algorithm="mondrian")
    assert as_text(out.compute()["grade"]) == as_text(ref["grade"])
    with pytest.warns(pdanon.ExactBoundsWarning, match="exact_bounds=True"):
        out = ddf_of(df, 2).anon.k_anonymize(3, quasi_identifiers={"grade": "ordered"},
                                             options={"exact_bounds": True})
    assert out.anon.info["bounds"]["rule"] == "exact"


@pytest.mark.parametrize("max_rows", [400, 1100])
@pytest.mark.parametrize("model_of,split", [
    (lambda: KAnonymity(5), "balanced"),
    (lambda: KAnonymity(3), "frequency"),
    (lambda: AllOf(KAnonymity(2), LDiversity(1.4, variant="entropy")), "balanced"),
    (lambda: AllOf(KAnonymity(1), TCloseness(0.15)), "appearance"),
])
def test_top_cuts_are_the_first_cuts_of_single_machine_mondrian(adult, max_rows, model_of,
                                                                split, monkeypatch):
    """Every class of the single-machine Mondrian lies inside one Dask part: the top cuts
    chosen from counts are the cuts Mondrian makes first -- with median cuts only: the top
    cuts do not yet try other cuts when a median cut fails the model (FALLBACK_CUTS = 0)."""
    from pdanon.encode import encode_table
    from pdanon.engine import model_context
    from pdanon.partition import mondrian
    from pdanon.partition.mondrian import mondrian_partition

    monkeypatch.setattr(mondrian, "FALLBACK_CUTS", 0)

    roles = adult.anon.roles()
    model = model_of()
    context = model_context(model, adult, roles)
    ref = mondrian_partition(encode_table(adult, roles), model, context=context,
                             unordered_split=split).labels
    plan, _, info = M.plan_cuts(ddf_of(adult), roles, model=model, max_rows_per_part=max_rows,
                                unordered_split=split)
    assert info["parts"] > 1
    leaf = M.route([q.encode(adult[q.name]) for q in plan.qis], plan.tree_routing)
    part = plan.part_of_node[leaf]
    per_class = pd.Series(part).groupby(ref).nunique()
    assert (per_class == 1).all()
    sizes = np.bincount(part)
    assert sizes.sum() == len(adult)
    # a part above the limit is one that Mondrian cannot split at all (one class)
    for p in np.flatnonzero(sizes > max_rows):
        assert len(np.unique(ref[part == p])) == 1


def test_categorical_boolean_date_and_integer_quasi_identifiers():
    rng = np.random.default_rng(0)
    n = 1500
    df = pd.DataFrame({
        "c": pd.Categorical(rng.choice(list("abcde"), n)), "b": rng.random(n) > 0.5,
        "d": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 50, n), "D"),
        "x": rng.integers(0, 100, n), "s": rng.choice(list("pq"), n)})
    qis = {"c": "unordered", "b": "unordered", "d": "ordered", "x": "real"}
    ref = df.anon.k_anonymize(4, algorithm="mondrian", quasi_identifiers=qis, sensitive=["s"],
                              row_order="input")
    ddf = ddf_of(df, 3)
    got = ddf.anon.k_anonymize(4, quasi_identifiers=qis, sensitive=["s"],
                               max_rows_per_part=10**9, row_order="input").compute()
    for c in qis:
        assert got[c].dtype == ref[c].dtype and as_text(got[c]) == as_text(ref[c])
    out = ddf.anon.k_anonymize(4, quasi_identifiers=qis, sensitive=["s"], max_rows_per_part=300,
                               row_order="input")
    got = out.compute()
    assert out.anon.info["parts"] > 4 and pm.k_anonymity(got, list(qis)) >= 4
    for c in qis:
        assert got[c].array.contains(df[c].array).all()
    assert pdd.k_anonymity(ddf_of(got, 3), list(qis)) == pm.k_anonymity(got, list(qis))


def check_output(out_pdf, adult, info, model_k):
    assert sorted(out_pdf.index) == sorted(adult.index)
    src = adult.loc[out_pdf.index]
    assert pm.k_anonymity(out_pdf, list(QIS)) >= model_k
    for c in QIS:
        assert isinstance(out_pdf[c].dtype, GeneralizationDtype)
        assert out_pdf[c].array.contains(src[c].array).all()
    assert (out_pdf["salary-class"].astype(str) == src["salary-class"].astype(str)).all()
    assert info["groups"] == int(class_labels(out_pdf, list(QIS)).max()) + 1
    assert info["verified"]["classes"] == info["groups"]


@pytest.mark.parametrize("order", ["input", "part"])
def test_several_parts_k_anonymize(adult, order, monkeypatch):
    calls = []
    real = L.local_columns

    def counted(plan, arrays):
        calls.append(len(arrays["c0"]))
        return real(plan, arrays)

    monkeypatch.setattr(L, "local_columns", counted)
    ddf = ddf_of(adult, 5)
    out = ddf.anon.k_anonymize(5, max_rows_per_part=500, order=order, row_order="input")
    info = out.anon.info
    assert info["parts"] == len(calls) > 4  # every part anonymized exactly once
    assert sum(calls) == len(adult)
    got = out.compute()
    if order == "input":
        assert got.index.equals(adult.index)  # same rows, same order
        assert out.npartitions == ddf.npartitions and out.divisions == ddf.divisions
    else:
        assert out.npartitions == info["parts"]
    check_output(got, adult, info, 5)
    # every partition has the same dtype (global categories)
    dts = [p.dtypes.to_dict() for p in dask.compute(*out.to_delayed())]
    assert all(d == dts[0] for d in dts)
    assert got.anon.info["parts"] == info["parts"]  # computed frames carry info and roles
    assert got.anon.roles().sensitive == {"salary-class": "unordered"}
    assert info["achieved"]["k"] >= 5 and info["verified"]["k"] == pm.k_anonymity(got)


def test_identifiers_dropped_and_insensitive_kept(adult):
    df = adult.assign(name=[f"p{i}" for i in range(len(adult))], note=np.arange(len(adult)))
    out = ddf_of(df).anon.k_anonymize(4, identifiers=["name"], quasi_identifiers=["age", "sex"],
                                      sensitive=["salary-class"], insensitive=["note"],
                                      max_rows_per_part=700, row_order="input")
    got = out.compute()
    assert "name" not in got.columns and (got["note"] == df["note"]).all()
    assert list(got.columns) == [c for c in df.columns if c != "name"]
    assert pm.k_anonymity(got, ["age", "sex"]) >= 4
    assert not isinstance(got["race"].dtype, GeneralizationDtype)


def test_parquet_to_parquet(adult, tmp_path):
    adult.to_parquet(tmp_path / "in.parquet")
    ddf = dd.read_parquet(tmp_path / "in.parquet").repartition(npartitions=3)
    out = ddf.anon.k_anonymize(5, max_rows_per_part=800, path=str(tmp_path / "out"),
                               row_order="input")
    info = out.anon.info
    assert info["parts"] > 1 and info["verified"]["k"] >= 5
    back = pd.read_parquet(tmp_path / "out")
    for c in QIS:
        assert isinstance(back[c].dtype, GeneralizationDtype)
    check_output(back, adult, info, 5)
    assert pdd.k_anonymity(dd.read_parquet(tmp_path / "out"), list(QIS)) == pm.k_anonymity(
        back, list(QIS))


def test_l_diversify_and_t_close(adult):
    ddf = ddf_of(adult, 3)
    out = ddf.anon.l_diversify(2, k=3, max_rows_per_part=600, row_order="input")
    got = out.compute()
    assert out.anon.info["parts"] > 1
    assert pm.l_diversity(got, list(QIS), ["salary-class"]) >= 2
    assert pm.k_anonymity(got, list(QIS)) >= 3
    out = ddf.anon.l_diversify(1.6, variant="entropy", max_rows_per_part=600, row_order="input")
    assert pm.l_diversity(out.compute(), list(QIS), ["salary-class"], variant="entropy") >= 1.6
    out = ddf.anon.t_close(0.15, k=2, max_rows_per_part=600, unordered_split="sensitive",
                           row_order="input")
    got = out.compute()
    assert out.anon.info["parts"] > 1
    assert pm.t_closeness(got, list(QIS), ["salary-class"]) <= 0.15 + 1e-12
    assert out.anon.t_closeness() == pm.t_closeness(got, list(QIS), ["salary-class"])


def test_real_columns_with_many_values_are_cut_on_quantile_bins(adult, monkeypatch):
    monkeypatch.setattr(M, "EXACT_CODES_LIMIT", 10)
    monkeypatch.setattr(M, "BINS", 8)
    df = adult.assign(hours=(adult["age"] * 7.3) % 61)
    out = ddf_of(df).anon.k_anonymize(5, quasi_identifiers=["age", "hours", "sex"],
                                      max_rows_per_part=500, row_order="input")
    info = out.anon.info
    assert info["binned_columns"] == ["age", "hours"] and info["parts"] > 1
    got = out.compute()
    assert pm.k_anonymity(got, ["age", "hours", "sex"]) >= 5
    assert got["hours"].array.contains(df["hours"].to_numpy()).all()
    assert got["age"].array.is_integer  # integer input stays integer


def test_errors(adult, adult_anon):
    ddf = ddf_of(adult)
    with pytest.raises(InvalidInputError, match="larger than the number of rows"):
        ddf.anon.k_anonymize(5000, row_order="input")
    with pytest.raises(InfeasibleError, match="salary-class"):
        ddf.anon.l_diversify(3, row_order="input")
    with pytest.raises(InvalidInputError, match="unknown method"):
        ddf.anon.k_anonymize(2, method="blur", row_order="input")
    with pytest.raises(InvalidInputError, match="algorithm='nearest'"):
        ddf.anon.k_anonymize(2, algorithm="nearest", row_order="input")
    with pytest.raises(InvalidInputError, match="unknown order"):
        ddf.anon.k_anonymize(2, order="sorted", row_order="input")
    with pytest.raises(InvalidInputError, match="max_rows_per_part"):
        ddf.anon.k_anonymize(2, max_rows_per_part=0, row_order="input")
    with pytest.raises(InvalidInputError, match="sensitive"):
        ddf.anon.l_diversify(2, sensitive=[], quasi_identifiers=["age"], row_order="input")
    with pytest.raises(KindError, match="already generalized"):
        ddf_of(adult_anon).anon.k_anonymize(2, row_order="input")
    with pytest.raises(KindError, match="'sex' has kind 'real'"):
        ddf.anon.k_anonymize(2, quasi_identifiers={"sex": "real"}, row_order="input")


def test_verification_catches_an_output_that_breaks_the_model(adult):
    ddf = ddf_of(adult)
    with pytest.raises(VerificationError, match=r"KAnonymity\(k=5\) fails: the worst class reaches \{'k': 1\}"):
        _models.verify_output(ddf, list(QIS), {}, KAnonymity(5), len(adult))


def test_lazy_output_without_verification(adult):
    out = ddf_of(adult).anon.k_anonymize(5, max_rows_per_part=1000, verify=False, row_order="input")
    assert "verified" not in out.anon.info
    assert pm.k_anonymity(out.compute(), list(QIS)) >= 5


# ============================================================================ LocalCluster


@pytest.fixture()
def client():
    # closed after its test: a client left open makes Dask choose p2p shuffles for the later
    # tests of this module, which run on the threaded scheduler (the docstring examples
    # failed so under --full)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=":0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.mark.slow
def test_on_a_local_cluster(client, adult, adult_anon, tmp_path):
    with dask.config.set(scheduler=client):
        ddf = ddf_of(adult_anon, 4)
        assert pdd.k_anonymity(ddf) == pm.k_anonymity(adult_anon)
        assert pdd.t_closeness(ddf, distance="jensen_shannon") == pm.t_closeness(
            adult_anon, distance="jensen_shannon")
        assert pdd.l_diversity(ddf, variant="entropy") == pm.l_diversity(
            adult_anon, variant="entropy")
        assert client._pdanon_registered
        out = ddf_of(adult, 4).anon.k_anonymize(5, max_rows_per_part=700,
                                                path=str(tmp_path / "o"), row_order="input")
        info = out.anon.info
        assert info["parts"] > 1 and info["verified"]["k"] >= 5
        check_output(out.compute(), adult, info, 5)


# ============================================================================ docstrings


@pytest.mark.parametrize("module", ["pdanon.dask", "pdanon.dask._register", "pdanon.dask._keys",
                                    "pdanon.dask._metrics", "pdanon.dask._mondrian",
                                    "pdanon.dask._plan", "pdanon.dask._cuts", "pdanon.dask._local"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
