"""The channel rule on Dask (pdanon.dask._channels): a column published unchanged whose value
pins a generalized quasi-identifier is refused by the Dask anonymizers as on pandas (the same
table, the same message), allow_channels= lets it through and records it, and the Dask
measure equals the pandas one (pdanon.screening.channels.measure) on random tables."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

dd = pytest.importorskip("dask.dataframe")

import pdanon  # noqa: E402
import pdanon.dask  # noqa: E402,F401
from pdanon.dask import _channels  # noqa: E402
from pdanon.dtype import GeneralizationDtype  # noqa: E402
from pdanon.screening import channels  # noqa: E402

pytestmark = pytest.mark.usefixtures("synchronous_scheduler")

QI = {"age": "real", "zip": "unordered", "sex": "unordered"}
WEIGHTS = {"10001": 120.5, "10002": 80.0, "10003": 310.25}


def stratified(n: int = 60, seed: int = 1) -> pd.DataFrame:
    """The table of tests/test_channels.py: 3 ZIPs of n/3 rows, one survey weight per ZIP."""
    rng = np.random.default_rng(seed)
    zips = np.repeat(list(WEIGHTS), n // 3)
    return pd.DataFrame({"age": rng.integers(20, 70, len(zips)), "zip": zips,
                         "sex": rng.choice(["F", "M"], len(zips)),
                         "weight": pd.Series(zips).map(WEIGHTS).to_numpy()})


def quiet(func, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kw)


def refusal(call) -> str:
    with pytest.raises(pdanon.ChannelError) as err:
        quiet(call)
    return str(err.value)


def test_stratum_weight_is_refused_on_dask_as_on_pandas():
    df = stratified()
    ddf = dd.from_pandas(df, npartitions=3)
    pandas_text = refusal(lambda: df.anon.k_anonymize(5, quasi_identifiers=QI,
                                                      insensitive=["weight"]))
    text = refusal(lambda: ddf.anon.k_anonymize(5, quasi_identifiers=QI,
                                                insensitive=["weight"]))
    for part in ("column 'weight'", "quasi-identifier 'zip'", "100.0%", "k = 5 is at stake",
                 "among the quasi-identifiers", "identifiers=['weight']",
                 "allow_channels=['weight']"):
        assert part in text and part in pandas_text
    # undecided (inferred insensitive) is published unchanged too
    refusal(lambda: ddf.anon.k_anonymize(5, quasi_identifiers=QI))


def test_optimal_recoding_refuses_a_weight_that_gives_the_ages_back():
    from pdanon.hierarchy import intervals

    # 15 ages of 4 rows each, one weight per age: k=5 publishes ages as bands
    age = np.repeat(np.arange(30, 45), 4)
    df = pd.DataFrame({"age": age, "sex": np.tile(["F", "M"], 30),
                       "weight": 100.0 + 7.5 * (age - 30)})
    kw = dict(quasi_identifiers={"age": "real", "sex": "unordered"}, insensitive=["weight"],
              algorithm="optimal", hierarchies={"age": intervals([5, 10])})
    pandas_text = refusal(lambda: df.anon.k_anonymize(5, **kw))
    ddf = dd.from_pandas(df, npartitions=3)
    text = refusal(lambda: ddf.anon.k_anonymize(5, **kw))
    assert text == pandas_text
    out = quiet(ddf.anon.k_anonymize, 5, allow_channels=["weight"], **kw)
    assert out.anon.info["channels_allowed"] == ["weight"]


def test_allow_channels_lets_it_through_and_records_it(tmp_path):
    df = stratified()
    ddf = dd.from_pandas(df, npartitions=3)
    out = quiet(ddf.anon.k_anonymize, 5, quasi_identifiers=QI, insensitive=["weight"],
                allow_channels=["weight"])
    info = out.anon.info
    assert info["channels_allowed"] == ["weight"]
    found = info["publisher_only"]["channels"]
    assert [(f["column"], f["quasi_identifier"], f["allowed"]) for f in found] == [
        ("weight", "zip", True)]
    assert found[0]["narrowed"] == found[0]["hidden"] > 0 and found[0]["k_with"] < 5
    # the computed release's check: the same verdict as a pandas release's
    release = out.compute()
    result = release.anon.check()
    assert result.passed
    assert any("'weight'" in h and "allowed by the publisher" in h for h in result.hazards)
    # written to Parquet: the allowance is in the files' metadata
    written = quiet(ddf.anon.k_anonymize, 5, quasi_identifiers=QI, insensitive=["weight"],
                    allow_channels="weight", path=str(tmp_path / "out"))
    assert dd.read_parquet(str(tmp_path / "out")).compute().anon.info[
        "channels_allowed"] == ["weight"]
    assert written.anon.info["channels_allowed"] == ["weight"]
    with pytest.raises(pdanon.InvalidInputError, match="allow_channels names 'wieght'"):
        quiet(ddf.anon.k_anonymize, 5, quasi_identifiers=QI, insensitive=["weight"],
              allow_channels=["wieght"])


def test_refused_release_is_not_written(tmp_path):
    ddf = dd.from_pandas(stratified(), npartitions=2)
    refusal(lambda: ddf.anon.k_anonymize(5, quasi_identifiers=QI, insensitive=["weight"],
                                         path=str(tmp_path / "out")))
    assert not (tmp_path / "out").exists()


def test_apply_recoding_refuses_the_weight_on_dask():
    from pdanon.hierarchy import intervals, masking
    from pdanon.models import KAnonymity

    kw = dict(hierarchies={"zip": masking(), "age": intervals([10])}, quasi_identifiers=QI)
    first = quiet(stratified().drop(columns="weight").anon.generalize, {"zip": 5, "age": 1},
                  **kw)
    batch = dd.from_pandas(stratified(seed=2), npartitions=3)
    text = refusal(lambda: batch.anon.apply_recoding(
        first.anon.recoding, model=KAnonymity(5), insensitive=["weight"],
        max_suppressed_rows=0.3))
    assert "column 'weight'" in text and "quasi-identifier 'zip'" in text
    out = quiet(batch.anon.apply_recoding, first.anon.recoding, model=KAnonymity(5),
                insensitive=["weight"], allow_channels=["weight"], max_suppressed_rows=0.3)
    found = out.anon.info["publisher_only"]["channels"]
    assert [(f["column"], f["quasi_identifier"], f["narrowed"], f["hidden"]) for f in found] \
        == [("weight", "zip", 60, 60)]


def test_correlated_column_passes_on_dask():
    df = stratified(90).drop(columns="weight")
    rng = np.random.default_rng(3)
    code = df["zip"].map({"10001": "N", "10002": "S", "10003": "E"}).to_numpy()
    flip = rng.random(len(df)) < 0.2
    code[flip] = rng.choice(["N", "S", "E"], int(flip.sum()))
    df["region"] = code
    out = quiet(dd.from_pandas(df, npartitions=3).anon.k_anonymize, 5, quasi_identifiers=QI,
                insensitive=["region"])
    assert "channels" not in (out.anon.info.get("publisher_only") or {})


# ------------------------------------------------------------------ the same figures as pandas
GEN = {"zip": GeneralizationDtype("unordered"), "age": GeneralizationDtype("real")}


@st.composite
def released(draw):
    """An original and a release of it (same rows): ZIPs shown, as a set or blank; ages
    shown or as a range; a weight per ZIP (sometimes shared) and a noisy code."""
    n = draw(st.integers(8, 40))
    zips = draw(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=n, max_size=n))
    ages = draw(st.lists(st.integers(20, 25), min_size=n, max_size=n))
    hide = draw(st.lists(st.sampled_from(["show", "set", "blank"]), min_size=n, max_size=n))
    wide = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    weights = draw(st.fixed_dictionaries({z: st.sampled_from([1.5, 2.0, 3.0])
                                          for z in ["a", "b", "c", None]}))
    code = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    original = pd.DataFrame({"zip": pd.array(zips, dtype=object), "age": ages,
                             "w": [weights[z] for z in zips], "code": code})
    zcell = [z if h == "show" or z is None else ("{a, b, c}" if h == "set" else None)
             for z, h in zip(zips, hide)]
    acell = ["[20, 25]" if w else a for a, w in zip(ages, wide)]
    release = original.assign(zip=pd.array(zcell, dtype=GEN["zip"]),
                              age=pd.array(acell, dtype=GEN["age"]))
    return original, release


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(released(), st.integers(1, 3), st.integers(1, 3))
def test_dask_measure_equals_pandas(table, p_in, p_out):
    original, release = table
    qi, cols = ["zip", "age"], ["w", "code"]
    want = channels.measure(original, release, qi, cols, k=3)
    # the release's rows in another order and partitioning: no alignment is needed
    shuffled = release.sample(frac=1, random_state=0)
    got = _channels.measure(dd.from_pandas(original, npartitions=p_in),
                            dd.from_pandas(shuffled, npartitions=p_out), qi, cols, k=3)
    key = ["column", "quasi_identifier"]
    got = got.sort_values(key).reset_index(drop=True)
    want = want.sort_values(key).reset_index(drop=True)
    # the pandas measure reads a blank that was a value and a blank from the start as two
    # cells (it has both tables row by row); an attacker sees one blank, and so does the
    # Dask measure: the class figures agree where the release blanks no value
    blanked = bool((release["zip"].isna() & original["zip"].notna()).any())
    figures = key + ["narrowed", "hidden", "share", "allowed"] + (
        [] if blanked else ["k_with", "k_without", "rows_below_k"])
    pd.testing.assert_frame_equal(got[figures], want[figures], check_dtype=False)
