"""Issue 48, point 1 on Dask: every Dask face that publishes rows (Mondrian with each method
and order, optimal, apply_recoding, a path written) returns them in a CSPRNG order across
partitions under a fresh index; ``row_order="input"`` keeps the input's and fails check()'s
default policy by fact, as on pandas (pdanon/dask/_order.py)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import pdanon  # noqa: E402
import pdanon.dask  # noqa: E402,F401
from pdanon.dask._order import publish_order  # noqa: E402
from pdanon.hierarchy import intervals, tree  # noqa: E402
from pdanon.models import KAnonymity  # noqa: E402

pytestmark = pytest.mark.usefixtures("synchronous_scheduler")

N = 600
ROLES = dict(quasi_identifiers={"age": "real", "zip": "unordered"}, insensitive=["rid"],
             sensitive=["dx"])


def _table(n: int = N, seed: int = 0) -> pd.DataFrame:
    """Sorted on zip then age (an export's order); ``rid`` (published unchanged) numbers the
    input rows, and the index holds a token per row."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"age": rng.integers(18, 90, n),
                       "zip": rng.choice(["02139", "02140", "02141"], n),
                       "dx": rng.choice(["flu", "cold", "hiv"], n)})
    df = df.sort_values(["zip", "age"]).reset_index(drop=True)
    df["rid"] = np.arange(n)
    df.index = pd.RangeIndex(7_000_000, 7_000_000 + n)
    return df


def _rank_z(positions: np.ndarray) -> float:
    """Spearman's rank correlation of the published position against the input position as
    a z score: sqrt(n - 1) * rho is about standard normal for an order independent of the
    input's; |z| >= 4.5 has a false-alarm rate of about 7e-6 per test."""
    rho = np.corrcoef(np.arange(len(positions)), positions)[0, 1]
    return float(rho * math.sqrt(len(positions) - 1))


def _recoding():
    first = _table(seed=9).anon.generalize({"age": 1}, hierarchies={"age": intervals([10])},
                                           quasi_identifiers={"age": "real"},
                                           insensitive=["zip", "dx", "rid"])
    return first.anon.recoding


FACES = {
    "mondrian": lambda d, **kw: d.anon.k_anonymize(5, max_rows_per_part=150, **ROLES, **kw),
    "part": lambda d, **kw: d.anon.k_anonymize(5, max_rows_per_part=150, order="part",
                                               **ROLES, **kw),
    "suppress": lambda d, **kw: d.anon.k_anonymize(5, method="suppress", **ROLES, **kw),
    "aggregate": lambda d, **kw: d.anon.l_diversify(2, k=4, method="aggregate", **ROLES, **kw),
    "optimal": lambda d, **kw: d.anon.k_anonymize(
        5, algorithm="optimal", hierarchies={
            "age": intervals([5, 10, 20]), "zip": tree({"021**": ["02139", "02140", "02141"]})},
        **ROLES, **kw),
    "apply_recoding": lambda d, **kw: d.anon.apply_recoding(
        _recoding(), model=KAnonymity(3), insensitive=["zip", "dx", "rid"], **kw),
}


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


@pytest.mark.parametrize("face", sorted(FACES))
def test_every_dask_face_publishes_rows_in_a_random_order_under_a_fresh_index(face):
    df = _table()
    ddf = dd.from_pandas(df, npartitions=4)
    out = _quiet(FACES[face], ddf)
    info = out.anon.info
    assert info["row_order"] == "random" and info["rows_match_input"] is False
    got = out.compute()
    assert got.index.is_unique and got.index.str.match(r"^r\d+$").all()
    assert not got.index.isin(df.index).any()
    assert df.assign(x=got["rid"])["x"].isna().all()  # a careless join pairs no row
    at = got["rid"].to_numpy()
    assert sorted(at.tolist()) == list(range(N))
    assert abs(_rank_z(at)) < 4.5
    # across partitions, not only within: the first output partition holds rows from every
    # quarter of the input (each quarter misses it with probability (3/4)^rows at random)
    first = out.get_partition(0).compute()["rid"].to_numpy()
    assert len(first) > 40 and len(np.unique(first // (N // 4))) == 4
    # the same cells as the input's order, row for row through rid
    kept = _quiet(FACES[face], ddf, row_order="input")
    assert kept.anon.info["row_order"] == "input"
    ref = kept.compute()
    if face == "part":  # the input's labels, rows grouped by part
        assert sorted(ref.index) == list(df.index)
    else:
        assert ref.index.equals(df.index) and (ref["rid"].to_numpy() == np.arange(N)).all()
    pd.testing.assert_frame_equal(got.set_index("rid").sort_index().astype(str),
                                  ref.set_index("rid").sort_index().astype(str))


def test_input_order_fails_check_by_fact_as_on_pandas():
    df = _table(seed=3)
    ddf = dd.from_pandas(df, npartitions=3)
    kept = _quiet(ddf.anon.k_anonymize, 5, row_order="input", **ROLES).compute()
    verdict = kept.anon.check()
    row = verdict.criteria.set_index("criterion").loc["random_row_order"]
    assert row["measured"] == 0 and not row["passed"] and not verdict.passed
    pandas_kept = _quiet(df.anon.k_anonymize, 5, algorithm="mondrian", row_order="input",
                         **ROLES)
    assert not pandas_kept.anon.check().passed
    assert kept.anon.check(pdanon.Policy(k=5, random_order=False)).passed
    shuffled = _quiet(ddf.anon.k_anonymize, 5, **ROLES).compute()
    assert "random_row_order" not in set(shuffled.anon.check().criteria["criterion"])
    assert shuffled.anon.check().passed
    with pytest.raises(pdanon.InvalidInputError, match="row_order='sideways'"):
        ddf.anon.k_anonymize(5, row_order="sideways", **ROLES)


def test_a_path_holds_the_random_order_and_no_input_label(tmp_path):
    df = _table(seed=5)
    out = _quiet(dd.from_pandas(df, npartitions=3).anon.k_anonymize, 5, path=str(tmp_path / "o"),
                 **ROLES)
    back = pd.read_parquet(tmp_path / "o")
    assert not back.index.isin(df.index).any()
    assert abs(_rank_z(back["rid"].to_numpy())) < 4.5
    raw = b"".join(p.read_bytes() for p in (tmp_path / "o").glob("*.parquet"))
    assert b"7000000" not in raw and b"7000001" not in raw
    assert out.anon.info["row_order"] == "random"


def test_the_permutation_is_uniform():
    """Each of 6 rows in 3 partitions lands at each of the 6 places about equally often over
    60 draws (a 6 x 6 table, 10 expected per cell; chi-square with 25 degrees of freedom: the
    bound 65 is exceeded by chance with probability about 2e-5), and a fresh label's prefix
    avoids the input's."""
    from scipy.stats import chi2

    ddf = dd.from_pandas(pd.DataFrame({"v": range(6)}), npartitions=3)
    table = np.zeros((6, 6))
    for seed in range(60):
        table[publish_order(ddf, seed=seed).compute()["v"].to_numpy(), np.arange(6)] += 1
    statistic = ((table - 10) ** 2 / 10).sum()
    assert chi2.sf(65, 25) < 3e-5 and statistic < 65, table
    labelled = dd.from_pandas(pd.DataFrame({"v": [1, 2]}, index=["r0", "r1"]), npartitions=1)
    assert publish_order(labelled).compute().index.str.startswith("s").all()
