"""Households on Dask (pdanon.dask._households, the screening in ddf.anon): an undecided
grouping column is refused with the pandas error; household= publishes renumbered ids
verified at household level, with the same counts as pandas on the same table."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")

import pdanon  # noqa: E402
import pdanon.dask  # noqa: E402,F401
from pdanon.hierarchy import intervals  # noqa: E402
from pdanon.screening.households import household_k  # noqa: E402

pytestmark = pytest.mark.usefixtures("synchronous_scheduler")


def families(n_households: int = 200, size: int = 2, seed: int = 0) -> pd.DataFrame:
    """Households of ``size`` people under scattered ids, ages 20-59, sex."""
    rng = np.random.default_rng(seed)
    n = n_households * size
    return pd.DataFrame({"hh_id": np.repeat(rng.permutation(n_households) * 7 + 1000, size),
                         "age": rng.integers(20, 60, n), "sex": rng.choice(["F", "M"], n)})


def quiet(func, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kw)


def test_undecided_grouping_column_is_refused_as_on_pandas():
    df = families(100, 3)
    ddf = dd.from_pandas(df, npartitions=3)
    errors = []
    for frame in (df, ddf):
        with pytest.raises(pdanon.RoleError) as err:
            quiet(frame.anon.k_anonymize, 3, quasi_identifiers=["age", "sex"])
        errors.append(str(err.value))
    assert errors[0] == errors[1]
    assert "'hh_id'" in errors[1] and "household='hh_id'" in errors[1]
    # a column whose name says nothing is found by its values too (most rows in small groups)
    unnamed = families(400, 3).rename(columns={"hh_id": "x7"})
    with pytest.raises(pdanon.RoleError, match="'x7'.*repeat in small groups"):
        quiet(dd.from_pandas(unnamed, npartitions=4).anon.k_anonymize, 3,
              quasi_identifiers=["age", "sex"])
    # declared, it is published (the publisher decided), with the pandas warning
    for frame in (df, ddf):
        with pytest.warns(pdanon.RoleWarning, match="'hh_id'.*household='hh_id'"):
            out = frame.anon.k_anonymize(3, quasi_identifiers=["age", "sex"],
                                         insensitive=["hh_id"])
        assert "hh_id" in out.columns
    # household= names it: no such warning (the household step verifies it)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ddf.anon.k_anonymize(3, quasi_identifiers=["age", "sex"], household="hh_id")
    assert not any("are published unchanged as declared" in str(w.message) for w in seen)


def test_household_ids_renumbered_and_verified_as_on_pandas():
    df = families()
    kw = dict(quasi_identifiers={"age": "real", "sex": "unordered"}, household="hh_id",
              algorithm="optimal", hierarchies={"age": intervals([10, 20, 40])},
              row_order="input")
    a = quiet(df.anon.k_anonymize, 3, **kw)
    ddf = dd.from_pandas(df, npartitions=3)
    b = quiet(ddf.anon.k_anonymize, 3, **kw)
    hb = b.anon.info["household"]
    assert hb == a.anon.info["household"]
    assert hb["ids"] == "renumbered" and hb["household_k"] >= 3
    assert 0 < hb["unlinked_households"] < hb["households"] == 200
    got = b.compute()
    assert got["hh_id"].dtype == "Int64"
    # the same rows are linked; each household keeps one fresh id, ids are 1..L
    linked = got["hh_id"].notna().to_numpy()
    assert (linked == a["hh_id"].notna().to_numpy()).all()
    pairs = pd.DataFrame({"old": df["hh_id"].to_numpy(), "new": got["hh_id"].to_numpy()})[linked]
    assert pairs.groupby("old")["new"].nunique().max() == 1
    assert pairs.groupby("new")["old"].nunique().max() == 1
    assert sorted(pairs["new"].unique()) == list(range(1, hb["linked_households"] + 1))
    assert not np.isin(pairs["new"], df["hh_id"]).all()  # fresh, not the input's ids
    assert household_k(got, "hh_id", ["age", "sex"]) >= 3
    # check() on the computed release measures household_k from the recorded column
    crit = got.anon.check().criteria.set_index("criterion")
    assert crit.loc["household_k", "passed"] and crit.loc["household_k", "measured"] >= 3


def test_household_on_dask_mondrian_and_random_order():
    df = families(150, 2, seed=3)
    ddf = dd.from_pandas(df, npartitions=3)
    out = quiet(ddf.anon.k_anonymize, 2, quasi_identifiers=["age", "sex"], household="hh_id")
    info = out.anon.info["household"]
    got = out.compute()
    assert info["households"] == 150
    assert got["hh_id"].notna().sum() == 2 * info["linked_households"]
    if info["linked_households"]:
        assert household_k(got, "hh_id", ["age", "sex"]) >= 2


def test_household_ids_drop_and_role_conflicts():
    ddf = dd.from_pandas(families(), npartitions=2)
    out = quiet(ddf.anon.k_anonymize, 3, quasi_identifiers=["age", "sex"], household="hh_id",
                household_ids="drop")
    assert "hh_id" not in out.columns
    assert out.anon.info["household"] == {"column": None, "source_column": "hh_id",
                                          "ids": "dropped", "k": 3}
    with pytest.raises(pdanon.InvalidInputError, match="also named in insensitive="):
        ddf.anon.k_anonymize(3, quasi_identifiers=["age", "sex"], household="hh_id",
                             insensitive=["hh_id"])
    with pytest.raises(pdanon.InvalidInputError, match="not a column"):
        ddf.anon.k_anonymize(3, quasi_identifiers=["age", "sex"], household="hh")
