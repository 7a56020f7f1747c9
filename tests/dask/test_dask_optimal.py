"""algorithm="optimal" on Dask: levels, suppressed rows, output cells and info equal to the
pandas optimal run on the same rows (synchronous scheduler; one LocalCluster test)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import pdanon  # noqa: E402
import pdanon.dask  # noqa: E402,F401
from pdanon._errors import InvalidInputError  # noqa: E402
from pdanon.hierarchy import intervals, masking, read_arx_csv  # noqa: E402
from pdanon.models import KAnonymity  # noqa: E402

QIS = list(pdanon.datasets.ADULT_QUASI_IDENTIFIERS)
SAME_INFO = ("levels", "objective", "max_suppressed_rows", "nodes_evaluated",
             "nodes_total", "heights", "groups", "changed_cells", "suppressed_rows",
             "suppressed_cells", "achieved", "rows", "quasi_identifiers")

pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword",
                                        "ignore::pdanon.SingleClassWarning")


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture(scope="module")
def adult():
    return pdanon.datasets.load_adult(nrows=3000)


@pytest.fixture(scope="module")
def hierarchies():
    return {c: read_arx_csv(pdanon.datasets.adult_hierarchy_path(c)) for c in QIS}


def assert_same(pandas_out, dask_out, qis):
    """Cells, dtypes (quasi-identifiers) and info figures equal."""
    got = dask_out.compute()
    pd.testing.assert_frame_equal(pandas_out[qis], got[qis], check_exact=True)
    # other columns: Dask may convert strings to its string dtype
    pd.testing.assert_frame_equal(pandas_out, got, check_dtype=False)
    a, b = pandas_out.anon.info, dask_out.anon.info
    for key in SAME_INFO:
        assert a[key] == b[key], key
    fa, fb = a["publisher_only"].facts(), b["publisher_only"].facts()
    assert {k: v for k, v in fa.items() if k != "channels"} == \
        {k: v for k, v in fb.items() if k != "channels"}
    # both faces find the same channels, narrowing the same cells (pdanon.dask._channels;
    # the class figures read a blank as the attacker does on Dask)
    same = ("column", "quasi_identifier", "narrowed", "hidden", "share", "allowed")
    assert [{x: f[x] for x in same} for f in fa.get("channels", [])] == \
        [{x: f[x] for x in same} for f in fb.get("channels", [])]
    # every row is verified: the suppressed (blank) rows are one of the classes
    assert b["verified"]["rows"] == b["rows"]
    assert b["verified"]["k"] == got.anon.k_anonymity(quasi_identifiers=qis) == a["achieved"]["k"]


@pytest.mark.parametrize("budget", [None, 0.02])
def test_k_anonymity_equals_pandas_on_adult(adult, hierarchies, budget):
    kw = dict(algorithm="optimal", hierarchies=hierarchies, max_suppressed_rows=budget)
    a = adult.anon.k_anonymize(5, **kw, row_order="input")
    b = dd.from_pandas(adult, npartitions=4).anon.k_anonymize(5, **kw, row_order="input")
    assert_same(a, b, QIS)
    if budget:
        assert a.anon.info["suppressed_rows"] > 0


def test_l_diversity_and_t_closeness_equal_pandas(adult, hierarchies):
    qi = {c: pdanon.datasets.ADULT_QUASI_IDENTIFIERS[c] for c in QIS[:5]}
    h = {c: hierarchies[c] for c in qi}
    roles = dict(quasi_identifiers=qi, sensitive=["occupation"])
    ddf = dd.from_pandas(adult, npartitions=3)
    kw = dict(algorithm="optimal", hierarchies=h, max_suppressed_rows=0.05)
    # native-country, published unchanged, pins race in a few rows (pdanon.screening.channels):
    # both faces refuse it alike (tests/dask/test_dask_channels.py); judged safe here
    kw_pd = dict(row_order="input", allow_channels=["native-country"])
    a = adult.anon.l_diversify(3, k=2, **kw, **roles, **kw_pd)
    b = ddf.anon.l_diversify(3, k=2, **kw, **roles, **kw_pd)
    assert_same(a, b, list(qi))
    a = adult.anon.l_diversify(2.5, variant="entropy", **kw, **roles, **kw_pd)
    b = ddf.anon.l_diversify(2.5, variant="entropy", **kw, **roles, **kw_pd)
    assert_same(a, b, list(qi))
    a = adult.anon.t_close(0.3, **kw, **roles, **kw_pd)
    b = ddf.anon.t_close(0.3, **kw, **roles, **kw_pd)
    assert_same(a, b, list(qi))
    assert b.anon.info["verified"]["t[occupation]"] <= 0.3


def test_objectives_and_labels(adult, hierarchies):
    ddf = dd.from_pandas(adult, npartitions=2)
    for objective in ("precision", "discernibility", "entropy"):
        kw = dict(algorithm="optimal", hierarchies=hierarchies, objective=objective,
                  max_suppressed_rows=30)
        assert_same(adult.anon.k_anonymize(10, **kw, row_order="input"),
                    ddf.anon.k_anonymize(10, **kw, row_order="input"), QIS)
    kw = dict(algorithm="optimal", hierarchies=hierarchies, labels=True, levels={"sex": 0})
    a = adult.anon.k_anonymize(5, **kw, row_order="input")
    b = ddf.anon.k_anonymize(5, **kw, row_order="input")
    pd.testing.assert_frame_equal(a, b.compute(), check_dtype=False)
    assert a.anon.info["levels"] == b.anon.info["levels"]


def test_parquet_round_trip(adult, hierarchies, tmp_path):
    kw = dict(algorithm="optimal", hierarchies=hierarchies, max_suppressed_rows=0.02)
    a = adult.anon.k_anonymize(5, **kw, row_order="input")
    b = dd.from_pandas(adult, npartitions=3).anon.k_anonymize(5, path=str(tmp_path / "o"), **kw,
                                                              row_order="input")
    assert b.npartitions == 3
    back = dd.read_parquet(str(tmp_path / "o")).compute()
    assert [str(back[c].dtype) for c in QIS] == [str(a[c].dtype) for c in QIS]
    pd.testing.assert_frame_equal(a[QIS].astype(str), back[QIS].astype(str))
    assert b.anon.info["verified"]["k"] >= 5


def test_on_a_local_cluster(adult, hierarchies):
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=":0")
    try:
        with distributed.Client(cluster) as client, dask.config.set(scheduler=client):
            kw = dict(algorithm="optimal", hierarchies=hierarchies, max_suppressed_rows=0.02)
            b = dd.from_pandas(adult, npartitions=4).anon.k_anonymize(5, **kw, row_order="input")
            got = b.compute()
    finally:
        cluster.close()
    a = adult.anon.k_anonymize(5, **kw, row_order="input")
    pd.testing.assert_frame_equal(a[QIS], got[QIS], check_exact=True)
    assert a.anon.info["levels"] == b.anon.info["levels"]


rows = st.lists(st.tuples(st.integers(18, 70), st.sampled_from(["a", "b", "c", None]),
                          st.sampled_from(["x", "y", "z"]), st.sampled_from(["10001", "10002",
                                                                             "10111", "20001"])),
                min_size=4, max_size=40)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=rows, k=st.integers(2, 4), budget=st.sampled_from([None, 2, 0.2]),
       parts=st.integers(1, 3), model=st.sampled_from(["k", "l", "t"]))
def test_random_tables_equal_pandas(rows, k, budget, parts, model):
    df = pd.DataFrame(rows, columns=["age", "kind", "d", "zip"]).astype({"age": float})
    df.loc[df.index % 7 == 3, "age"] = np.nan
    h = {"age": intervals([10, 20]), "zip": masking()}
    roles = dict(quasi_identifiers={"age": "real", "kind": "unordered", "zip": "unordered"},
                 sensitive=["d"])
    kw = dict(algorithm="optimal", hierarchies=h, max_suppressed_rows=budget, **roles)
    ddf = dd.from_pandas(df, npartitions=min(parts, len(df)))
    call = {"k": lambda x, **o: x.anon.k_anonymize(k, **kw, **o),
            "l": lambda x, **o: x.anon.l_diversify(2, **kw, **o),
            "t": lambda x, **o: x.anon.t_close(0.4, **kw, **o)}[model]
    try:
        a = call(df, row_order="input")
    except pdanon.InfeasibleError:
        with pytest.raises(pdanon.InfeasibleError):
            call(ddf)
        return
    assert_same(a, call(ddf, row_order="input"), ["age", "kind", "zip"])


def test_weighted_search_equals_rows():
    """LatticeSearch on distinct combinations with weights = the search on the rows."""
    from pdanon.encode import encode_table
    from pdanon.partition.optimal import LatticeSearch, prepare_columns, search_result
    from pdanon.roles import resolve_roles

    rng = np.random.default_rng(3)
    df = pd.DataFrame({"age": rng.integers(20, 60, 400), "zip": rng.choice(["10001", "10002",
                                                                             "20001"], 400)})
    h = {"age": intervals([5, 10, 20]), "zip": masking()}
    enc = encode_table(df, resolve_roles(df))
    kw = dict(budget=8, objective="loss", bounds=[(0, 4), (0, 5)])
    plain = LatticeSearch(prepare_columns(enc, h), KAnonymity(6), [], **kw)
    combos = df.groupby(["age", "zip"], sort=False).size().reset_index(name="n")
    enc2 = encode_table(combos[["age", "zip"]], resolve_roles(combos[["age", "zip"]]))
    weighted = LatticeSearch(prepare_columns(enc2, h), KAnonymity(6), [], weights=combos["n"],
                             **kw)
    a, b = search_result(plain, KAnonymity(6), 8), search_result(weighted, KAnonymity(6), 8)
    assert a[0].tolist() == b[0].tolist() and a[2] == b[2]


def test_errors(adult, hierarchies):
    ddf = dd.from_pandas(adult.head(200), npartitions=2)
    with pytest.raises(InvalidInputError, match="algorithm='optimal'"):
        ddf.anon.k_anonymize(5, hierarchies=hierarchies, row_order="input")
    with pytest.raises(InvalidInputError, match="max_rows_per_part"):
        ddf.anon.k_anonymize(5, algorithm="optimal", max_rows_per_part=10, row_order="input")
    with pytest.raises(TypeError, match="unexpected keyword argument 'seed'"):
        ddf.anon.k_anonymize(5, algorithm="optimal", seed=1, row_order="input")
    with pytest.raises(InvalidInputError, match="pass levels="):
        ddf.anon.k_anonymize(5, algorithm="optimal", options={"levels": {"age": 1}},
                             row_order="input")
    with pytest.raises(InvalidInputError, match="objective"):
        ddf.anon.k_anonymize(5, algorithm="optimal", objective="fast", row_order="input")


def test_refusals_before_the_search(adult, hierarchies, monkeypatch):
    """The pandas refusals hold on Dask, before the counts pass: a many-valued column
    without a hierarchy, an ambiguous float budget."""
    from pdanon.dask import _optimal

    def no_counts(*a, **kw):
        raise AssertionError("the counts pass ran")

    monkeypatch.setattr(_optimal, "_collect_combos", no_counts)
    ddf = dd.from_pandas(adult.head(200), npartitions=2)
    some = {c: h for c, h in hierarchies.items() if c != "age"}
    with pytest.raises(InvalidInputError, match=r"'age' \(\d+ distinct values\).*"
                                                r"intervals\(\[5, 10, 20\]\).*mondrian"):
        ddf.anon.k_anonymize(5, algorithm="optimal", hierarchies=some, row_order="input")
    with pytest.raises(InvalidInputError, match="pass 1 for one row or 0.05 for 5 %"):
        ddf.anon.k_anonymize(5, algorithm="optimal", hierarchies=hierarchies,
                             max_suppressed_rows=1.0, row_order="input")


def test_a_column_without_hierarchy_publishes_no_extreme_at_its_top_as_on_pandas():
    """The '*' of a column without a hierarchy is read off the data ([20, 97] here): Dask
    widens its rare bound as pandas does (pdanon.recode.bounds), with the column's counts
    from the combinations' weights; exact_bounds keeps it, with a warning."""
    df = pd.DataFrame({"age": [20] * 5 + [30] * 4 + [97], "d": list("abababcabc")})
    out = dd.from_pandas(df, npartitions=2).anon.k_anonymize(
        5, quasi_identifiers=["age"], sensitive=["d"], algorithm="optimal")
    ref = df.anon.k_anonymize(5, quasi_identifiers=["age"], sensitive=["d"],
                              algorithm="optimal")
    got = out.compute()["age"].astype(str).tolist()
    assert got == ref["age"].astype(str).tolist() == ["[20, 100]"] * 10
    assert out.anon.info["bounds"]["widened_cells"] == {"age": 10}
    with pytest.warns(pdanon.ExactBoundsWarning):
        out = dd.from_pandas(df, npartitions=2).anon.k_anonymize(
            5, quasi_identifiers=["age"], sensitive=["d"], algorithm="optimal",
            options={"exact_bounds": True})
    assert out.compute()["age"].astype(str).tolist() == ["[20, 97]"] * 10
