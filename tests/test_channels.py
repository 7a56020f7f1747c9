"""Columns published unchanged as channels (pdanon.screening.channels): a column whose value determines
a generalized quasi-identifier is refused by every anonymizer unless allowed; check() fails
on it; a merely correlated column passes. Hand-checked tables and a property against a
straightforward reference (pandas group-bys)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.screening import channels
from pdanon.dtype import GeneralizationDtype

QI = ["age", "zip", "sex"]
WEIGHTS = {"10001": 120.5, "10002": 80.0, "10003": 310.25}


def stratified(n: int = 60, seed: int = 1) -> pd.DataFrame:
    """A sample drawn per ZIP stratum: 3 ZIPs of n/3 rows, one survey weight per ZIP."""
    rng = np.random.default_rng(seed)
    zips = np.repeat(list(WEIGHTS), n // 3)
    return pd.DataFrame({"age": rng.integers(20, 70, len(zips)), "zip": zips,
                         "sex": rng.choice(["F", "M"], len(zips)),
                         "weight": pd.Series(zips).map(WEIGHTS).to_numpy()})


def anonymize(df, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return df.anon.k_anonymize(kw.pop("k", 5), quasi_identifiers={
            "age": "real", "zip": "unordered", "sex": "unordered"}, **kw)


# ------------------------------------------------------------------ hand-checked
def test_measure_hand_checked():
    # three ZIPs of 6 rows, one weight each
    original = pd.DataFrame({"zip": list("aaaaaabbbbbbcccccc"),
                             "w": [2.5] * 6 + [4.0] * 6 + [7.0] * 6})
    gen = GeneralizationDtype("unordered")
    every = original.assign(zip=pd.array(["{a, b, c}"] * 18, dtype=gen))
    f = channels.measure(original, every, ["zip"], k=10)
    # chance: (1/3) ** 5 = 0.004 < 0.05 / 3 values: each weight pins its ZIP; all 18 set
    # cells are narrowed; with them the one class of 18 splits into the 3 ZIPs of 6
    assert f[["column", "quasi_identifier", "narrowed", "hidden", "k_with", "k_without",
              "rows_below_k"]].values.tolist() == [["w", "zip", 18, 18, 6, 18, 18]]
    assert channels.failing(f, 10).index.tolist() == [0]
    assert channels.failing(f, 6).empty  # k = 6 still holds with it
    # the release teaches it too when 5 of each ZIP's 6 rows show the ZIP plainly
    # ((1/3) ** 4 = 0.012 < 0.05 / 3): the sixth row's set is narrowed
    cells = ["a"] * 5 + ["{a, b}"] + ["b"] * 5 + ["{b, c}"] + ["c"] * 5 + ["{a, c}"]
    some = original.assign(zip=pd.array(cells, dtype=gen))
    learned = channels.learned(some, ["zip"], k=4)
    assert learned[["narrowed", "hidden", "k_with", "k_without"]].values.tolist() == [
        [3, 3, 6, 1]]
    assert channels.measure(original, some, ["zip"], k=4)["narrowed"].tolist() == [3]
    # 4 plain rows per weight are not enough evidence ((1/3) ** 3 = 0.037)
    cells = ["a"] * 4 + ["{a, b}"] * 2 + ["b"] * 4 + ["{b, c}"] * 2 + ["c"] * 4 + ["{a, c}"] * 2
    assert channels.learned(original.assign(zip=pd.array(cells, dtype=gen)), ["zip"]).empty
    assert channels.k_if_known(every, ["zip"]) == {"w": 6}


def test_chance_agreement_is_not_a_pin():
    # a lab value held by two rows that happen to share a ZIP (of three equally common
    # ZIPs: chance 1/3) pins nothing; a weight held by the 4 rows of one ZIP does
    original = pd.DataFrame({"zip": list("aabbcc") * 2,
                             "lab": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 1.0, 7.0, 8.0, 9.0, 10.0, 11.0]})
    release = original.assign(zip=[None] * 12)
    assert channels.measure(original, release, ["zip"]).empty


def test_weights_drawn_per_stratum_are_refused_naming_column_qi_and_fixes():
    df = stratified()
    with pytest.raises(pdanon.ChannelError) as err:
        anonymize(df, insensitive=["weight"])
    text = str(err.value)
    for part in ("column 'weight'", "quasi-identifier 'zip'", "100.0%", "k = 5 is at stake",
                 "among the quasi-identifiers", "identifiers=['weight']",
                 "allow_channels=['weight']"):
        assert part in text
    assert isinstance(err.value, pdanon.RoleError)  # and a ValueError
    # undecided (inferred insensitive) is published unchanged too: refused the same way
    with pytest.raises(pdanon.ChannelError):
        anonymize(df)
    # and by every face
    with pytest.raises(pdanon.ChannelError):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            df.assign(d=np.arange(len(df)) % 3).anon.l_diversify(
                2, k=5, quasi_identifiers=QI, sensitive=["d"], insensitive=["weight"])


def test_the_fixes_work():
    df = stratified()
    dropped = anonymize(df, identifiers=["weight"])
    assert "weight" not in dropped.columns
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qi = df.anon.k_anonymize(5, quasi_identifiers=[*QI, "weight"])
    assert qi.anon.k_anonymity() >= 5


def test_opt_out_is_recorded_in_info_schema_and_report():
    df = stratified()
    out = anonymize(df, insensitive=["weight"], allow_channels=["weight"])
    info = out.anon.info
    assert info["channels_allowed"] == ["weight"]
    found = info["publisher_only"]["channels"]
    assert [(f["column"], f["quasi_identifier"], f["allowed"]) for f in found] == [
        ("weight", "zip", True)]
    assert found[0]["narrowed"] == found[0]["hidden"] > 0 and found[0]["k_with"] < 5
    assert out.anon.schema.metadata["pdanon"]["release"]["channels_allowed"] == ["weight"]
    rep = out.anon.report(df)
    assert rep.parameters["channels_allowed"] == ["weight"]
    assert "columns allowed as channels" in rep.to_html()
    result = out.anon.check()
    assert result.passed
    assert any("'weight'" in h and "allowed by the publisher" in h for h in result.hazards)
    assert result.k_if_known["weight"] < 5
    assert rep.verdict["k_if_known"] == {"weight": result.k_if_known["weight"]}


def test_allow_channels_names_a_column_published_unchanged():
    with pytest.raises(pdanon.InvalidInputError, match="allow_channels names 'wieght'"):
        anonymize(stratified(), insensitive=["weight"], allow_channels=["wieght"])


def test_check_fails_on_a_channel_without_the_allowance():
    df = stratified()
    out = anonymize(df, insensitive=["weight"], allow_channels=["weight"])
    attrs = out.attrs["pdanon"]
    out.attrs["pdanon"] = {**attrs, "info": {k: v for k, v in attrs["info"].items()
                                             if k not in ("channels_allowed", "publisher_only")}}
    result = out.anon.check()  # learned from the release alone: its plain ZIP cells
    assert not result.passed
    row = result.criteria.set_index("criterion").loc["channel_share"]
    assert row["measured"] == 1.0 and not row["passed"]
    assert out.anon.check(pdanon.Policy(k=5, channels=False)).passed


def test_correlated_column_passes():
    # a region code that agrees with the ZIP in 80 % of rows: every code mixes ZIPs
    df = stratified(90).drop(columns="weight")
    rng = np.random.default_rng(3)
    code = df["zip"].map({"10001": "N", "10002": "S", "10003": "E"}).to_numpy()
    flip = rng.random(len(df)) < 0.2
    code[flip] = rng.choice(["N", "S", "E"], int(flip.sum()))
    df["region"] = code
    out = anonymize(df, insensitive=["region"])
    assert "channels" not in (out.anon.info.get("publisher_only") or {})
    assert "channel_share" not in out.anon.check().criteria["criterion"].tolist()


def test_no_channel_no_criterion():
    df = pd.DataFrame({"age": [30, 31, 40, 42, 50, 52], "d": list("abacab")})
    out = df.anon.k_anonymize(2, quasi_identifiers=["age"], sensitive=["d"])
    assert out.anon.check().criteria["criterion"].tolist() == ["k_anonymity"]


def test_adult_is_not_refused():
    from pdanon.datasets import load_adult

    adult = load_adult()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert adult.anon.k_anonymize(5).anon.k_anonymity() >= 5  # its own roles
        # native-country published unchanged: it determines race for a few countries
        # (1 of the 119 race cells published as sets), under the documented share
        out = adult.anon.k_anonymize(5, quasi_identifiers=["age", "sex", "race",
                                                           "marital-status"])
    found = out.anon.info["publisher_only"]["channels"]
    assert [(f["column"], f["quasi_identifier"]) for f in found] == [
        ("native-country", "race")]
    assert found[0]["share"] <= channels.MAX_SHARE


# ------------------------------------------------------------------ property
def reference_k_with(original, release, qi, col):
    """k over ``qi`` once every cell ``col`` pins is recovered: group-bys, no codes. The
    release's rows (in a random order) are matched with the original's through its
    publisher-only way back."""
    from pdanon.metrics._common import aligned

    original = aligned(original, release)
    n = len(original)
    text, shares = {}, {}
    for q in qi:
        pub, orig = release[q], original[q]
        if isinstance(pub.dtype, GeneralizationDtype):
            plain = np.asarray(pub.array.is_plain, dtype=bool)
        else:
            plain = pub.notna().to_numpy() & (pub.astype(object) == orig.astype(object))
        hidden = ~plain & ~(pub.isna().to_numpy() & orig.isna().to_numpy())
        g = pd.DataFrame({"c": original[col].astype(str), "q": orig.astype(str)})
        by = g.groupby("c")["q"]
        m, distinct = by.size(), by.nunique()
        share = g["q"].value_counts(normalize=True)
        first = by.first()
        tested = int((m >= 2).sum())
        chance = share.reindex(first).to_numpy() ** (m - 1).to_numpy()
        pins = pd.Series((distinct == 1).to_numpy() & (m >= 2).to_numpy()
                         & (chance < channels.CHANCE / max(tested, 1)), index=m.index)
        narrowed = pins.reindex(g["c"]).to_numpy() & hidden
        shown = ~hidden | narrowed
        text[q] = np.where(shown, "v:" + orig.astype(str).to_numpy(),
                           "p:" + pub.astype(str).to_numpy())
        shares[q] = narrowed.sum() / max(int(hidden.sum()), 1)
    frame = pd.DataFrame(text)
    k = int(frame.groupby(list(qi)).size().min()) if n else 0
    return k, shares


tables = st.integers(12, 45).flatmap(lambda n: st.tuples(
    st.lists(st.integers(20, 60), min_size=n, max_size=n),
    st.lists(st.sampled_from(list(WEIGHTS)), min_size=n, max_size=n),
    st.lists(st.sampled_from("FM"), min_size=n, max_size=n),
    st.lists(st.integers(0, 4), min_size=n, max_size=n),
    st.sampled_from(["weight", "noisy", "random"]),
    st.integers(2, 4), st.sampled_from(["nearest", "mondrian", "datafly"])))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables)
def test_no_unchanged_column_lowers_k_property(table):
    ages, zips, sexes, noise, kind, k, algorithm = table
    weight = pd.Series(zips).map(WEIGHTS).to_numpy()
    extra = {"weight": weight, "noisy": np.where(np.array(noise) == 0, 1.0, weight),
             "random": np.array(noise, dtype=float)}[kind]
    df = pd.DataFrame({"age": ages, "zip": zips, "sex": sexes, "extra": extra})
    try:
        out = anonymize(df, k=k, insensitive=["extra"], algorithm=algorithm)
    except pdanon.ChannelError as exc:
        assert "'extra'" in str(exc)
        k_with, shares = reference_k_with(df, anonymize(
            df, k=k, insensitive=["extra"], algorithm=algorithm, allow_channels=["extra"]),
            QI, "extra")
        assert k_with < k and max(shares.values()) > channels.MAX_SHARE
        return
    except pdanon.InfeasibleError:
        return
    k_with, shares = reference_k_with(df, out, QI, "extra")
    # every release returned: the column narrows at most the documented share of any
    # quasi-identifier's hidden cells, or k with it recovered still holds
    assert k_with >= min(k, out.anon.k_anonymity()) or all(
        s <= channels.MAX_SHARE for s in shares.values())


def test_a_repeated_index_is_a_channel_too():
    # a household number as the index: one household of 8 rows, one ZIP (chance:
    # (1/3) ** 7 = 0.0005 < 0.05 / 12 households)
    df = stratified(96)
    df.index = pd.Index(np.arange(len(df)) // 8, name="household")
    with pytest.raises(pdanon.ChannelError, match=r"the index is published unchanged .*"
                       r"df.reset_index\(drop=True\)"):
        anonymize(df.drop(columns="weight"))
    out = anonymize(df.drop(columns="weight"), allow_channels=[channels.INDEX])
    assert out.anon.info["channels_allowed"] == ["(index)"]


def test_command_line_refuses_a_channel_and_takes_the_opt_out(tmp_path, capsys):
    from pdanon.__main__ import main

    path = tmp_path / "sample.csv"
    stratified().to_csv(path, index=False)
    argv = ["anonymize", str(path), "-o", str(tmp_path / "out.csv"), "--qi",
            "age:real,zip,sex", "--insensitive", "weight", "-k", "5"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "column 'weight'" in err and "--allow-channels weight" in err
    assert "--identifiers weight" in err
    assert main([*argv, "--allow-channels", "weight",
                 "--write-config", str(tmp_path / "run.toml")]) == 0
    assert 'allow_channels = ["weight"]' in (tmp_path / "run.toml").read_text()


def test_check_reads_the_findings_the_anonymizer_recorded():
    # suppressed ZIP cells: the release alone teaches nothing (a blank may have been
    # missing), the anonymizer measured the channel against the original
    df = stratified()
    out = anonymize(df, k=10, insensitive=["weight"], allow_channels=["weight"],
                    method="suppress", algorithm="datafly")  # every ZIP cell suppressed
    assert channels.learned(out, QI).empty
    assert out.anon.check().passed
    info = out.attrs["pdanon"]["info"]
    del info["channels_allowed"]  # the allowance lost: the recorded finding fails
    result = out.anon.check()
    assert not result.passed
    assert result.criteria.set_index("criterion").loc["channel_share", "measured"] == 1.0
    assert any("narrows 60 of the 60 hidden 'zip' cells" in h for h in result.hazards)


def test_generalize_refuses_a_channel_too():
    from pdanon.hierarchy import intervals, masking

    df = stratified()
    levels = {"zip": 5, "age": 1}  # every ZIP becomes {10001, 10002, 10003}, age 10 years
    kw = dict(hierarchies={"zip": masking(), "age": intervals([10])},
              quasi_identifiers={"zip": "unordered", "age": "real", "sex": "unordered"},
              insensitive=["weight"])
    with pytest.raises(pdanon.ChannelError, match="column 'weight'.*quasi-identifier 'zip'"):
        df.anon.generalize(levels, **kw)
    out = df.anon.generalize(levels, allow_channels=["weight"], **kw)
    assert out.anon.info["channels_allowed"] == ["weight"]
    assert out["zip"].nunique() == 1


# ------------------------------------------- the other faces: recoding, suppression, MDAV
def test_apply_recoding_refuses_a_weight_that_pins_the_recoded_zip():
    from pdanon.hierarchy import intervals, masking
    from pdanon.models import KAnonymity

    kw = dict(hierarchies={"zip": masking(), "age": intervals([10])},
              quasi_identifiers={"zip": "unordered", "age": "real", "sex": "unordered"})
    # January without the weight: ZIP published as {10001, 10002, 10003}
    first = stratified().drop(columns="weight").anon.generalize({"zip": 5, "age": 1}, **kw)
    batch = stratified(seed=2)  # February's batch publishes its stratum weight
    with pytest.raises(pdanon.ChannelError,
                       match="column 'weight'.*quasi-identifier 'zip'.*allow_channels"):
        batch.anon.apply_recoding(first.anon.recoding, model=KAnonymity(5),
                                  insensitive=["weight"], max_suppressed_rows=0.3)
    # the weight pins every ZIP cell: 60 of 60 narrowed
    out = batch.anon.apply_recoding(first.anon.recoding, model=KAnonymity(5),
                                    insensitive=["weight"], allow_channels=["weight"],
                                    max_suppressed_rows=0.3)
    info = out.anon.info
    assert info["channels_allowed"] == ["weight"]
    found = info["publisher_only"]["channels"]
    assert [(f["column"], f["quasi_identifier"], f["narrowed"], f["hidden"]) for f in found] \
        == [("weight", "zip", 60, 60)]
    # no weight, no refusal
    plain = batch.drop(columns="weight").anon.apply_recoding(
        first.anon.recoding, model=KAnonymity(5), max_suppressed_rows=0.3)
    assert "channels_allowed" not in plain.anon.info


def _ages(seed: int = 0) -> pd.DataFrame:
    """15 ages of 4 rows each, one weight per age (the age is the stratum)."""
    rng = np.random.default_rng(seed)
    age = np.repeat(np.arange(30, 45), 4)
    return pd.DataFrame({"age": age, "sex": rng.choice(["F", "M"], len(age)),
                         "weight": 100.0 + 7.5 * (age - 30)})


def test_microaggregate_refuses_a_weight_that_gives_the_ages_back():
    df = _ages()
    # groups of at least 5 rows share their mean age; the weight names each row's age,
    # whose 4 rows are fewer than k = 5
    with pytest.raises(pdanon.ChannelError, match="column 'weight'.*quasi-identifier 'age'"):
        df.anon.microaggregate(5, quasi_identifiers=["age"], insensitive=["weight", "sex"])
    out = df.anon.microaggregate(5, quasi_identifiers=["age"], insensitive=["weight", "sex"],
                                 allow_channels=["weight"])
    assert out.anon.info["channels_allowed"] == ["weight"]
    assert out.anon.info["publisher_only"]["channels"][0]["k_with"] == 4
    # a weight that mixes ages pins nothing
    mixed = df.assign(weight=np.tile([1.0, 2.0], len(df) // 2))
    assert "channels_allowed" not in mixed.anon.microaggregate(
        5, quasi_identifiers=["age"], insensitive=["weight", "sex"]).anon.info


def test_local_suppression_refuses_a_weight_that_gives_the_suppressed_zip_back():
    # 10 rows per ZIP of age 30, sex F, and one lone row per ZIP (age 50, M): to reach k = 3
    # the lone rows lose their ZIP (the least important column); the weight gives it back
    rows = [(30, z, "F") for z in WEIGHTS for _ in range(10)] + \
        [(50, z, "M") for z in WEIGHTS]
    df = pd.DataFrame(rows, columns=QI).assign(weight=lambda d: d["zip"].map(WEIGHTS))
    kw = dict(quasi_identifiers=QI, insensitive=["weight"], importance=["age", "sex", "zip"])
    with pytest.raises(pdanon.ChannelError, match="column 'weight'.*quasi-identifier 'zip'"):
        df.anon.local_suppression(3, **kw)
    out = df.anon.local_suppression(3, allow_channels=["weight"], **kw)
    assert out["zip"].isna().sum() == 3
    assert out.anon.info["channels_allowed"] == ["weight"]
    found = out.anon.info["publisher_only"]["channels"]
    assert (found[0]["narrowed"], found[0]["hidden"], found[0]["k_with"]) == (3, 3, 1)
