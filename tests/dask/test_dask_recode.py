"""Suppression and aggregation in distributed Mondrian (``method="suppress"`` / ``"aggregate"``
on Dask): one part gives exactly the pandas result, many parts give a verified result whose
groups follow the pandas recoding rules, published categories never list a hidden value
(dtype and Parquet file), missing cells stay missing."""

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import pdanon  # noqa: E402
import pdanon.dask  # noqa: E402,F401
from pdanon import engine  # noqa: E402
from pdanon import metrics as pm  # noqa: E402
from pdanon._errors import InvalidInputError  # noqa: E402
from pdanon.models import AllOf, KAnonymity, LDiversity, TCloseness  # noqa: E402

QIS = list(pdanon.datasets.ADULT_QUASI_IDENTIFIERS)
METHODS = ["suppress", "aggregate"]

pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword")


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture(scope="module")
def adult():
    return pdanon.datasets.load_adult(nrows=3000)


def cells(series) -> list:
    """Cells as plain Python values, missing as None (Dask's string dtype and pandas' str
    dtype compare equal this way)."""
    return [None if pd.isna(v) else v for v in series.astype(object)]


def same_dtype(a, b) -> bool:
    """Equal dtypes, with Dask's string dtype (``dataframe.convert-string``) equal to
    pandas' ``str``."""
    if pd.api.types.is_string_dtype(a) and pd.api.types.is_string_dtype(b) and not \
            isinstance(a, pd.CategoricalDtype) and not isinstance(b, pd.CategoricalDtype):
        return True
    return a == b


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("model_of", [
    lambda: KAnonymity(5),
    lambda: AllOf(KAnonymity(2), LDiversity(2)),
    lambda: AllOf(KAnonymity(1), TCloseness(0.2)),
])
def test_one_part_gives_exactly_the_pandas_result(adult, method, model_of):
    roles = adult.anon.roles()
    ref, rinfo = engine.anonymize(adult, roles, model=model_of(), method=method,
                                  algorithm="mondrian")
    out, info = pdanon.dask.anonymize(dd.from_pandas(adult, npartitions=3), roles,
                                      model=model_of(), method=method,
                                      max_rows_per_part=10**9, row_order="input")
    got = out.compute()
    assert info["parts"] == 1 and info["method"] == method
    assert got.index.equals(adult.index)
    for c in QIS:
        assert same_dtype(got[c].dtype, ref[c].dtype), c
        assert cells(got[c]) == cells(ref[c]), c
    for key in ("groups", "changed_cells", "suppressed_cells", "suppressed_rows"):
        assert info[key] == rinfo[key], key
    assert info["verified"]["rows"] == len(adult)


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("order", ["input", "part"])
def test_many_parts_are_verified_and_follow_the_recoding_rules(adult, method, order):
    before = adult.copy()
    ddf = dd.from_pandas(adult, npartitions=4)
    out = ddf.anon.l_diversify(2, k=3, method=method, max_rows_per_part=500, order=order,
                               row_order="input")
    got = out.compute()
    info = out.anon.info
    pd.testing.assert_frame_equal(adult, before)  # input untouched
    assert info["parts"] > 1 and info["method"] == method
    assert pm.k_anonymity(got, QIS) >= 3
    assert pm.l_diversity(got, QIS, ["salary-class"]) >= 2
    assert info["verified"]["k"] >= 3
    if order == "input":
        assert got.index.equals(adult.index) and out.npartitions == 4
    got = got.loc[adult.index]
    for c in QIS:
        new, old = got[c], adult[c]
        kept = new.notna().to_numpy()
        if method == "suppress":  # a published cell is the input cell
            assert (new[kept].astype(object) == old[kept].astype(object)).all(), c
        elif QIS_KINDS[c] != "real":  # a published value is some input value
            assert set(new[kept].astype(object)) <= set(old.astype(object)), c
    changed = sum(int((cells_differ(got[c], adult[c])).sum()) for c in QIS)
    assert info["changed_cells"] == changed


QIS_KINDS = dict(pdanon.datasets.ADULT_QUASI_IDENTIFIERS)


def cells_differ(new: pd.Series, old: pd.Series) -> np.ndarray:
    return np.array([b is not None and (a is None or a != b)
                     for a, b in zip(cells(new), cells(old))], dtype=bool)


def test_aggregate_publishes_group_means_medians_and_modes():
    df = pd.DataFrame({"age": [20, 22, 24, 60, 62, 70],
                       "grade": pd.Categorical(["a", "c", "b", "d", "e", "e"],
                                               categories=list("abcdef"), ordered=True),
                       "city": ["x", "y", "y", "z", "z", "w"]})
    ddf = dd.from_pandas(df, npartitions=2)
    got = ddf.anon.k_anonymize(3, method="aggregate", quasi_identifiers={
        "age": "real", "grade": "ordered", "city": "unordered"}, row_order="input").compute()
    assert got["age"].tolist() == [22.0, 22.0, 22.0, 64.0, 64.0, 64.0]
    assert got["grade"].tolist() == ["b", "b", "b", "e", "e", "e"]   # element len // 2
    assert got["city"].tolist() == ["y", "y", "y", "z", "z", "z"]    # the mode
    # only published categories remain, in the input's order
    assert got["grade"].cat.categories.tolist() == ["b", "e"] and got["grade"].cat.ordered


def test_suppress_hides_values_from_the_dtype_and_the_parquet_file(tmp_path):
    # "rare" sits in a mixed group: suppressed everywhere, so it must vanish from the file
    df = pd.DataFrame({"age": [30, 30, 30, 30, 50, 50, 50, 50],
                       "job": pd.Categorical(["a", "a", "a", "a", "b", "b", "b", "rare"])})
    ddf = dd.from_pandas(df, npartitions=2)
    out = ddf.anon.k_anonymize(4, method="suppress", path=str(tmp_path / "s"),
                               quasi_identifiers=["age", "job"], row_order="input")
    got = out.compute()
    assert cells(got["job"]) == ["a"] * 4 + [None] * 4
    assert cells(got["age"]) == [30.0] * 4 + [50.0] * 4
    assert got["job"].cat.categories.tolist() == ["a"]
    for f in sorted((tmp_path / "s").glob("*.parquet")):
        assert b"rare" not in f.read_bytes()
        table = pq.read_table(f)
        assert "rare" not in str(table.schema.metadata)
    assert out.anon.info["suppressed_cells"] == 4
    assert "rare" not in str(out.anon.info)


def test_integer_columns_publish_float_and_missing_stays_missing():
    df = pd.DataFrame({"age": [30, 31, 30, 40, 41, 40], "zip": [1.0, np.nan, 1.0, 2.0, 2.0,
                                                                 np.nan]})
    ddf = dd.from_pandas(df, npartitions=2)
    sup = ddf.anon.k_anonymize(3, method="suppress", row_order="input").compute()
    assert sup["age"].dtype == np.float64
    assert cells(sup["age"]) == [None] * 6
    assert cells(sup["zip"]) == [None] * 6
    agg = ddf.anon.k_anonymize(3, method="aggregate", row_order="input").compute()
    assert cells(agg["age"]) == [(30 + 31 + 30) / 3] * 3 + [(40 + 41 + 40) / 3] * 3
    assert cells(agg["zip"]) == [None] * 6  # each group holds a missing cell


rows = st.lists(st.tuples(st.integers(18, 70), st.sampled_from(["a", "b", "c", None]),
                          st.sampled_from([1.5, 2.5, 7.0, np.nan])),
                min_size=4, max_size=40)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::pdanon.SingleClassWarning")
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=rows, k=st.integers(1, 4), method=st.sampled_from(METHODS),
       nparts=st.integers(1, 3))
def test_random_tables_with_missing_cells(rows, k, method, nparts):
    df = pd.DataFrame(rows, columns=["age", "kind", "score"])
    k = min(k, len(df))
    qi = {"age": "real", "kind": "unordered", "score": "ordered"}
    ref, rinfo = engine.anonymize(df, pdanon.roles.resolve_roles(df, quasi_identifiers=qi),
                                  model=KAnonymity(k), method=method, algorithm="mondrian")
    ddf = dd.from_pandas(df, npartitions=nparts)
    one = ddf.anon.k_anonymize(k, method=method, quasi_identifiers=qi,
                               max_rows_per_part=10**6, row_order="input")
    got = one.compute()
    for c in qi:
        assert cells(got[c]) == cells(ref[c]), c
    assert one.anon.info["suppressed_cells"] == rinfo["suppressed_cells"]
    many = ddf.anon.k_anonymize(k, method=method, quasi_identifiers=qi, max_rows_per_part=8,
                                row_order="input")
    out = many.compute()
    assert pm.k_anonymity(out, list(qi)) >= k
    for c in qi:  # missing stays missing
        assert out[c].isna()[df[c].isna()].all()


def test_on_a_local_cluster(adult):
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=":0")
    try:
        with distributed.Client(cluster) as client, dask.config.set(scheduler=client):
            out = dd.from_pandas(adult, npartitions=4).anon.k_anonymize(
                5, method="aggregate", max_rows_per_part=10**9, row_order="input")
            got = out.compute()
    finally:
        cluster.close()
    ref = adult.anon.k_anonymize(5, method="aggregate", algorithm="mondrian", row_order="input")
    for c in QIS:
        assert cells(got[c]) == cells(ref[c]), c


def test_errors(adult):
    ddf = dd.from_pandas(adult, npartitions=2)
    with pytest.raises(InvalidInputError, match="unknown method 'blur'"):
        ddf.anon.k_anonymize(2, method="blur", row_order="input")
    with pytest.raises(InvalidInputError, match="algorithm='optimal' recodes by hierarchies"):
        ddf.anon.k_anonymize(2, method="suppress", algorithm="optimal", hierarchies={},
                             row_order="input")


def test_a_float_ordered_column_with_one_distinct_value_per_partition():
    # pandas 3's factorize(sort=True) refuses NumpyExtensionArray; the dictionaries unwrap it
    df = pd.DataFrame({"s": [1.5, 1.5, 2.5, 1.5]})
    got = dd.from_pandas(df, npartitions=1).anon.k_anonymize(
        1, quasi_identifiers={"s": "ordered"}, row_order="input").compute()
    assert got["s"].astype(str).tolist() == ["1.5", "1.5", "2.5", "1.5"]


@pytest.mark.parametrize("order", ["input", "part"])
def test_generalize_publishes_no_hidden_category(tmp_path, order):
    # "rare" shares its group with a missing cell: with method="suppress" the group
    # publishes missing, so "rare" is published nowhere and must not stay in the dtype
    # (generalization metadata) or the file; with "generalize" it publishes "rare or missing"
    df = pd.DataFrame({"age": [30, 30, 30, 30, 50, 50, 50, 50],
                       "job": pd.Categorical(["a", "a", "b", "b", "c", "c", None, "rare"])})
    qi = {"age": "real", "job": "unordered"}
    out = dd.from_pandas(df, npartitions=2).anon.k_anonymize(
        2, quasi_identifiers=qi, order=order, path=str(tmp_path / "g"), row_order="input",
        method="suppress")
    got = out.compute().sort_index()
    ref = df.anon.k_anonymize(2, quasi_identifiers=qi, algorithm="mondrian", row_order="input",
                              method="suppress")
    assert cells(got["job"]) == cells(ref["job"]) == ["a", "a", "b", "b", "c", "c", None, None]
    assert list(got["job"].cat.categories) == list(ref["job"].cat.categories) == \
        ["a", "b", "c"]
    for f in sorted((tmp_path / "g").glob("*.parquet")):
        assert b"rare" not in f.read_bytes()
    # generalize: the group publishes "rare or missing", written to and read from Parquet
    out = dd.from_pandas(df, npartitions=2).anon.k_anonymize(
        2, quasi_identifiers=qi, order=order, path=str(tmp_path / "h"), row_order="input")
    got = out.compute().sort_index()
    ref = df.anon.k_anonymize(2, quasi_identifiers=qi, algorithm="mondrian", row_order="input")
    assert [str(v) for v in cells(got["job"])] == [str(v) for v in cells(ref["job"])] == [
        "a", "a", "b", "b", "c", "c", "rare or missing", "rare or missing"]


@pytest.mark.parametrize("method", METHODS)
def test_categoricals_read_back_from_parquet(tmp_path, adult, method):
    # Dask's meta of a Categorical read from Parquet does not know its categories
    adult.to_parquet(tmp_path / "in.parquet")
    ddf = dd.read_parquet(str(tmp_path / "in.parquet"))
    out = ddf.anon.k_anonymize(5, method=method, max_rows_per_part=800,
                               path=str(tmp_path / "out"), row_order="input")
    got = out.compute()
    ref_cats = [c for c in adult["education"].cat.categories if c in set(got["education"])]
    assert got["education"].cat.categories.tolist() == ref_cats
    assert got["education"].cat.ordered
    assert out.anon.info["verified"]["k"] >= 5
