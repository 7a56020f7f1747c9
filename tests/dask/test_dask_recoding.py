"""``ddf.anon.apply_recoding``: the pandas face's release, bit for bit, on a Dask frame, and
its failures (synchronous scheduler)."""

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import pdanon  # noqa: E402
import pdanon.dask  # noqa: E402, F401  (registers ddf.anon)
from pdanon._errors import InfeasibleError, InvalidInputError  # noqa: E402
from pdanon.datasets import DISCHARGE_ROLES, make_discharges  # noqa: E402
from pdanon.hierarchy import intervals  # noqa: E402
from pdanon.models import KAnonymity  # noqa: E402

KEEP = {k: v for k, v in DISCHARGE_ROLES.items() if k != "quasi_identifiers"}
pytestmark = pytest.mark.usefixtures("synchronous_scheduler")  # tests/dask/conftest.py


@pytest.fixture(scope="module")
def release():
    df = make_discharges(1600, seed=2)
    jan, feb = df.iloc[:800].reset_index(drop=True), df.iloc[800:].reset_index(drop=True)
    # Datafly's own value groups (exact bounds): the batch below was worked out on them
    out = jan.anon.k_anonymize(5, l=2, algorithm="datafly", **DISCHARGE_ROLES, row_order="input",
                               options={"exact_bounds": True})
    return out.anon.recoding, feb


@pytest.mark.parametrize("parts", [1, 3])
def test_same_release_as_pandas(release, parts):
    rec, feb = release
    ddf = dd.from_pandas(feb, npartitions=parts)
    out = ddf.anon.apply_recoding(rec, max_suppressed_rows=0.1, **KEEP, row_order="input")
    got = out.compute()
    want = feb.anon.apply_recoding(rec, max_suppressed_rows=0.1, **KEEP, row_order="input")
    assert list(got.columns) == list(want.columns)
    for c in got.columns:
        assert got[c].astype(str).tolist() == want[c].astype(str).tolist(), c
    info, pinfo = out.anon.info, want.anon.info
    for key in ("unseen_cells", "suppressed_rows", "unseen_rows", "rows", "models",
                "recoding"):
        assert info[key] == pinfo[key], key
    assert info["verified"]["k"] == pinfo["achieved"]["k"] >= 5
    assert "patient_id" not in got.columns


def test_failures_as_on_pandas(release):
    rec, feb = release
    ddf = dd.from_pandas(feb, npartitions=2)
    with pytest.raises(InfeasibleError, match="rows are in classes that fail"):
        ddf.anon.apply_recoding(rec, max_suppressed_rows=0, **KEEP, row_order="input")
    with pytest.raises(InvalidInputError, match="must be a pdanon.Recoding"):
        ddf.anon.apply_recoding({}, **KEEP, row_order="input")


def test_hand_checked_small_frame():
    first = pd.DataFrame({"age": [31, 33, 36, 38]}).anon.generalize(
        {"age": 1}, hierarchies={"age": intervals([5])})
    batch = pd.DataFrame({"age": [30, 34, 35, 39, 36, 80, 81]})
    out = dd.from_pandas(batch, npartitions=3).anon.apply_recoding(
        first.anon.recoding, model=KAnonymity(2), max_suppressed_rows=1, row_order="input")
    cells = [None if pd.isna(c) else str(c) for c in out.compute()["age"]]
    assert cells == ["[30, 34]", "[30, 34]", "[35, 39]", "[35, 39]", "[35, 39]", None, None]
    assert out.anon.info["unseen_cells"] == {"age": 2}
    # 80 and 81 are unseen: published blank on every quasi-identifier, as suppressed rows
    assert out.anon.info["suppressed_rows"] == out.anon.info["unseen_rows"] == 2
    assert out.anon.info["verified"]["k"] == 2
    pandas = batch.anon.apply_recoding(first.anon.recoding, model=KAnonymity(2),
                                       max_suppressed_rows=1, row_order="input").anon.info
    assert (pandas["suppressed_rows"], pandas["unseen_rows"]) == (2, 2)
    np.testing.assert_array_equal(batch["age"], [30, 34, 35, 39, 36, 80, 81])


@pytest.mark.parametrize("algorithm", ["mondrian", "nearest"])
def test_local_recodings_as_on_pandas(algorithm):
    df = make_discharges(1000, seed=2)
    jan, feb = df.iloc[:500].reset_index(drop=True), df.iloc[500:].reset_index(drop=True)
    rec = jan.anon.k_anonymize(5, algorithm=algorithm, **DISCHARGE_ROLES,
                               row_order="input").anon.recoding
    assert rec.classes is not None
    want = feb.anon.apply_recoding(rec, max_suppressed_rows=0.95, **KEEP, row_order="input")
    out = dd.from_pandas(feb, npartitions=3).anon.apply_recoding(
        rec, max_suppressed_rows=0.95, **KEEP, row_order="input")
    got = out.compute()
    for c in rec.columns:
        assert got[c].astype(str).tolist() == want[c].astype(str).tolist(), c
    assert out.anon.info["suppressed_rows"] == want.anon.info["suppressed_rows"]
