"""Rows that belong together (issue 47, point 2): a household column is refused without a
decision, ``household=`` publishes it renumbered with every household's signature shared by
k households, and ``check()`` measures ``household_k``."""

import subprocess
import sys
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.screening import households
from pdanon.datasets import load_adult, make_discharges, make_patients

QI = ["age", "sex", "region"]


def household_table(n_households=400, seed=0, *, name="hh", ages=90):
    """Random households of 1 to 5 people: the region is the household's, age and sex each
    member's (the issue's scenario at a small scale)."""
    rng = np.random.default_rng(seed)
    sizes = rng.choice([1, 2, 3, 4, 5], size=n_households, p=[.2, .3, .25, .15, .1])
    n = int(sizes.sum())
    return pd.DataFrame({
        name: np.repeat(rng.permutation(n_households) + 50_001, sizes),
        "age": rng.integers(0, ages, n),
        "sex": rng.choice(["F", "M"], n),
        "region": np.repeat(rng.choice(list("ABCD"), n_households), sizes),
        "income": rng.choice(["low", "mid", "high"], n),
    })


def python_signatures(release, column, qi) -> Counter:
    """Per household id: (size, sorted member combinations), counted over households — the
    definition, written without pdanon."""
    members: dict = {}
    for row in release[[column, *qi]].itertuples(index=False):
        hh = row[0]
        if pd.isna(hh):
            continue
        members.setdefault(hh, []).append(tuple("<NA>" if pd.isna(v) else str(v)
                                                for v in row[1:]))
    return Counter((len(m), tuple(sorted(m))) for m in members.values())


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


# ------------------------------------------------------------------ a hand-checked table
def six_households():
    # H1 and H2: an adult and a child; H3 and H4: two adults; H5: an adult and two
    # children; H6: one adult. Every row's class (adult: 8 rows, child: 4) holds 2 or more.
    hh = ["H1", "H1", "H2", "H2", "H3", "H3", "H4", "H4", "H5", "H5", "H5", "H6"]
    who = ["a", "c", "a", "c", "a", "a", "a", "a", "a", "c", "c", "a"]
    return pd.DataFrame({"hh": hh, "who": who, "d": list("xyxyxyxyxyxy")})


def test_signatures_of_a_hand_checked_release():
    release = six_households()
    hh, sig = households.signatures(release, "hh", ["who"])
    # households in order of appearance: H1..H6; H1 = H2, H3 = H4, H5 and H6 alone
    assert sig[0] == sig[1] and sig[2] == sig[3]
    assert len({sig[0], sig[2], sig[4], sig[5]}) == 4
    assert households.shared_by(release, "hh", ["who"]).tolist() == [2, 2, 2, 2, 1, 1]
    assert households.household_k(release, "hh", ["who"]) == 1
    # size counts: {a} and {a, a} are different signatures
    two = pd.DataFrame({"hh": [1, 2, 2], "who": ["a", "a", "a"]})
    assert households.household_k(two, "hh", ["who"]) == 1


def test_k_anonymize_with_household_unlinks_the_households_no_other_resembles():
    df = six_households()
    out = df.anon.k_anonymize(2, household="hh", quasi_identifiers={"who": "unordered"},
                              sensitive=["d"], algorithm="mondrian", row_order="input")
    assert out["who"].astype(str).tolist() == df["who"].tolist()  # already 2-anonymous
    ids = out["hh"]
    assert str(ids.dtype) == "Int64"
    # H1..H4 keep a link (four fresh ids 1..4), H5 (3 rows) and H6 (1 row) lose it
    assert ids.iloc[:8].notna().all() and ids.iloc[8:].isna().all()
    assert sorted(set(ids.iloc[:8])) == [1, 2, 3, 4]
    for a, b in ((0, 1), (2, 3), (4, 5), (6, 7)):  # members keep one id, households differ
        assert ids.iloc[a] == ids.iloc[b]
    assert ids.iloc[[0, 2, 4, 6]].nunique() == 4
    info = out.anon.info["household"]
    assert (info["linked_households"], info["unlinked_households"], info["unlinked_rows"],
            info["k"], info["household_k"]) == (4, 2, 4, 2, 2)
    verdict = out.anon.check(pdanon.Policy(k=2, random_order=False))  # (input order asked)
    assert verdict.passed and "household_k" in verdict.criteria["criterion"].tolist()


def test_household_ids_drop_publishes_no_link():
    df = six_households()
    out = df.anon.k_anonymize(2, household="hh", household_ids="drop",
                              quasi_identifiers={"who": "unordered"}, sensitive=["d"])
    assert "hh" not in out.columns
    assert out.anon.info["household"]["ids"] == "dropped"


def test_household_options_are_checked():
    df = six_households()
    with pytest.raises(pdanon.InvalidInputError, match="household_ids"):
        df.anon.k_anonymize(2, household="hh", household_ids="keep",
                            quasi_identifiers=["who"], sensitive=["d"])
    with pytest.raises(pdanon.InvalidInputError, match="not a column"):
        df.anon.k_anonymize(2, household="nope", quasi_identifiers=["who"], sensitive=["d"],
                            insensitive=["hh"])
    with pytest.raises(pdanon.InvalidInputError, match="also named"):
        df.anon.k_anonymize(2, household="hh", quasi_identifiers=["who"], sensitive=["d"],
                            insensitive=["hh"])


# ------------------------------------------------------------------ the scenario
def test_an_undecided_household_column_is_refused_with_the_fixes():
    df = household_table()
    with pytest.raises(pdanon.RoleError) as caught:
        quiet(df.anon.k_anonymize, 3, quasi_identifiers=QI, sensitive=["income"])
    text = str(caught.value)
    assert "'hh'" in text and "small groups" in text and "household='hh'" in text
    # whatever it is called: the structure says it
    renamed = household_table(name="x7")
    with pytest.raises(pdanon.RoleError, match="household='x7'"):
        quiet(renamed.anon.k_anonymize, 3, quasi_identifiers=QI, sensitive=["income"])


def test_household_k_holds_on_the_release_verified_independently():
    df = household_table()
    base = quiet(df.anon.k_anonymize, 3, quasi_identifiers=QI, sensitive=["income"],
                 insensitive=["hh"])
    # published unchanged: most households have a signature of their own
    counts = python_signatures(base, "hh", QI)
    assert sum(c for c in counts.values() if c == 1) > 0.5 * df["hh"].nunique()
    assert not base.anon.check(household="hh").passed

    out = quiet(df.anon.k_anonymize, 3, quasi_identifiers=QI, sensitive=["income"],
                household="hh", row_order="input")
    signatures = python_signatures(out, "hh", QI)
    assert signatures and min(signatures.values()) >= 3
    assert out.anon.k_anonymity() >= 3
    # the published ids carry no input value, and one input household has one id or none
    assert not set(out["hh"].dropna()) & set(df["hh"])
    pairs = pd.DataFrame({"old": df["hh"], "new": out["hh"]})
    assert (pairs.groupby("old")["new"].nunique(dropna=False) == 1).all()
    # a household is unlinked exactly when its signature (the release's cells, the
    # input's households) is shared by fewer than 3 households
    probe = out.assign(hh=df["hh"].to_numpy())
    shared = python_signatures(probe, "hh", QI)
    for old, rows in probe.groupby("hh"):
        sig = (len(rows), tuple(sorted(tuple(str(v) for v in r)
                                       for r in rows[QI].itertuples(index=False))))
        assert out.loc[rows.index, "hh"].isna().all() == (shared[sig] < 3)
    info = out.anon.info["household"]
    assert info["households"] == df["hh"].nunique()
    assert info["linked_households"] == sum(signatures.values())
    result = out.anon.check(pdanon.Policy(k=3, random_order=False))  # (input order asked)
    assert result.passed
    assert result.criteria.set_index("criterion").loc["household_k", "measured"] >= 3


def test_check_fails_a_release_whose_recorded_household_column_is_under_k():
    df = household_table()
    out = quiet(df.anon.k_anonymize, 3, quasi_identifiers=QI, sensitive=["income"],
                household="hh", row_order="input")
    broken = out.copy()
    broken.attrs = out.attrs
    blank = broken["hh"].isna().to_numpy()
    broken.loc[blank, "hh"] = df["hh"].to_numpy()[blank] + 10**6  # the unlinked, linked again
    result = broken.anon.check(pdanon.Policy(k=3, random_order=False))
    row = result.criteria.set_index("criterion").loc["household_k"]
    assert not result.passed and row["measured"] < 3
    assert broken.anon.check(pdanon.Policy(k=3, household_k=1, random_order=False)).passed
    with pytest.raises(pdanon.InvalidInputError, match="household_k"):
        pdanon.Policy(household_k=0)


def test_a_chained_step_verifies_the_recorded_household_column_again():
    df = household_table(ages=4)
    first = quiet(df.anon.k_anonymize, 2, quasi_identifiers=QI, sensitive=["income"],
                  household="hh")
    second = quiet(first.anon.k_anonymize, 4)
    assert second.anon.info["household"]["k"] == 4
    counts = python_signatures(second, "hh", QI)
    assert counts and min(counts.values()) >= 4


def test_the_other_faces_take_household():
    df = household_table(200, seed=3)
    out = quiet(df.anon.l_diversify, 2, k=2, quasi_identifiers=QI, sensitive=["income"],
                household="hh")
    assert min(python_signatures(out, "hh", QI).values()) >= 2
    assert out.anon.check().passed


# ------------------------------------------------------------------ no legitimate column
def test_legitimate_columns_are_not_taken_for_households():
    adult = load_adult(nrows=5_000)
    quiet(adult.anon.roles, quasi_identifiers=["age", "sex", "race"],
          sensitive=["salary-class"])  # the rest inferred insensitive: no refusal
    for frame in (load_adult(), make_patients(300), make_discharges(2_000)):
        for c in frame.columns:
            assert households.grouping(frame[c], c) is None or c in ("name", "note"), c
    rng = np.random.default_rng(1)
    n = 2_000
    strata = rng.integers(0, 40, n)
    legit = pd.DataFrame({
        "stratum_weight": np.round(100 + 7.3 * strata, 2),  # weights per stratum
        "weight_int": (100 + 7 * strata).astype(int),  # 40 values, 50 rows each
        "code": rng.choice(list("ABCDEFG"), n),  # a few codes
        "kg": np.round(rng.normal(75, 12, n), 1),  # a measurement
        "age": rng.integers(18, 90, n),
    })
    for c in legit.columns:
        assert households.grouping(legit[c], c) is None, c


def test_a_declared_household_column_is_published_with_a_warning():
    df = household_table(200)
    with pytest.warns(pdanon.RoleWarning, match="household='hh'"):
        df.anon.k_anonymize(2, quasi_identifiers=QI, sensitive=["income"], insensitive=["hh"])


# ------------------------------------------------------------------ the command line
def test_cli_household(tmp_path):
    src, dst = tmp_path / "in.csv", tmp_path / "out.csv"
    household_table(300, ages=5).to_csv(src, index=False)
    cmd = [sys.executable, "-m", "pdanon", "anonymize", str(src), "-o", str(dst),
           "--qi", "age:real,sex,region", "--sensitive", "income", "-k", "3"]
    refused = subprocess.run(cmd, capture_output=True, text=True)
    assert refused.returncode == 2 and "--household hh" in refused.stderr
    done = subprocess.run([*cmd, "--household", "hh", "--policy", "k=3,household_k=3"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    release = pd.read_csv(dst)
    counts = python_signatures(release, "hh", QI)
    assert counts and min(counts.values()) >= 3


# ------------------------------------------------------------------ the property
@st.composite
def household_frames(draw):
    n_households = draw(st.integers(3, 40))
    sizes = draw(st.lists(st.integers(1, 4), min_size=n_households, max_size=n_households))
    n = sum(sizes)
    ages = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    sexes = draw(st.lists(st.sampled_from("FM"), min_size=n, max_size=n))
    return pd.DataFrame({"hh": np.repeat(np.arange(n_households) * 7 + 3, sizes),
                         "age": ages, "sex": sexes})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(household_frames(), st.integers(2, 3),
       st.sampled_from(["mondrian", "nearest", "datafly"]))
def test_property_household_signatures_meet_k(df, k, algorithm):
    if len(df) < k:
        return
    out = quiet(df.anon.k_anonymize, k, household="hh", algorithm=algorithm,
                quasi_identifiers={"age": "real", "sex": "unordered"})
    counts = python_signatures(out, "hh", ["age", "sex"])
    assert not counts or min(counts.values()) >= k
    assert households.household_k(out, "hh", ["age", "sex"]) in (None, *counts.values())
    assert out.anon.k_anonymity() >= k
    linked = out["hh"].notna().sum()
    info = out.anon.info["household"]
    assert info["linked_households"] == sum(counts.values())
    assert linked + info["unlinked_rows"] == len(df)


def test_the_report_and_a_schema_read_back_carry_the_household_criterion(tmp_path):
    df = household_table(300, ages=5)
    out = quiet(df.anon.k_anonymize, 3, quasi_identifiers=QI, sensitive=["income"],
                household="hh")
    html = tmp_path / "report.html"
    quiet(out.anon.report, df, str(html))
    text = html.read_text()
    assert "household_k" in text and "household column" in text
    out.to_csv(tmp_path / "r.csv", index=False)
    back = pdanon.read_csv(tmp_path / "r.csv", schema=out.anon.schema)
    criteria = back.anon.check().criteria["criterion"].tolist()
    assert "household_k" in criteria


def test_a_small_table_s_age_is_no_household():
    # 120 rows of ages: most values held by 2 to 10 rows, as a household id's would be
    ages = pd.Series(np.random.default_rng(0).integers(18, 80, 120), name="age")
    assert households.grouping(ages) is None
    assert households.grouping(ages.rename("household")) is not None  # the name decides


# ------------------------------------------------------------------ every face that publishes rows
from pdanon.hierarchy import intervals  # noqa: E402

BANDS = {"age": intervals([10, 30])}
ROLES = dict(quasi_identifiers=QI, sensitive=["income"])


def _recoding(df):
    first = quiet(df.anon.k_anonymize, 3, algorithm="optimal", hierarchies=BANDS,
                  household="hh", **ROLES)
    return first.anon.recoding


#: per face a call of it on a frame (the household keywords added by the test)
FACES = {
    "generalize": lambda df, **kw: df.anon.generalize({"age": 1}, hierarchies=BANDS, **ROLES,
                                                      **kw),
    "apply_recoding": lambda df, **kw: df.anon.apply_recoding(_recoding(df), **kw),
    "microaggregate": lambda df, **kw: df.anon.microaggregate(3, **ROLES, **kw),
    "local_suppression": lambda df, **kw: df.anon.local_suppression(2, **ROLES, **kw),
    "shuffle": lambda df, **kw: df.anon.shuffle(["income"], seed=0, **ROLES, **kw),
    "randomize": lambda df, **kw: df.anon.randomize(["age"], seed=0, **ROLES, **kw),
    "pram": lambda df, **kw: df.anon.pram(["sex"], p=0.8, seed=0, **ROLES, **kw),
    "top_code": lambda df, **kw: df.anon.top_code("age", threshold=60, **ROLES, **kw),
    "bottom_code": lambda df, **kw: df.anon.bottom_code("age", threshold=10, **ROLES, **kw),
    "rank_swap": lambda df, **kw: df.anon.rank_swap("age", p=5, seed=0, **ROLES, **kw),
    "add_noise": lambda df, **kw: df.anon.add_noise("age", noise=0.1, seed=0, **ROLES, **kw),
    "hash_identifiers": lambda df, **kw: df.anon.hash_identifiers(
        key=b"0" * 32, quasi_identifiers=QI, identifiers=["income"], **kw),
    "drop_identifiers": lambda df, **kw: df.anon.drop_identifiers(**ROLES, **kw),
}


@pytest.mark.parametrize("face", [*FACES, "dp_anonymize"])
def test_every_face_refuses_an_undecided_household_column(face):
    df = household_table(300, ages=30)
    if face == "dp_anonymize":  # no roles named: every column not dropped would be published
        call = lambda: df.anon.dp_anonymize(1.0, 1e-5, hierarchies=BANDS)  # noqa: E731
    elif face == "apply_recoding":
        rec = _recoding(df)
        call = lambda: df.anon.apply_recoding(rec)  # noqa: E731
    else:
        call = lambda: FACES[face](df)  # noqa: E731
    with pytest.raises(pdanon.RoleError, match="household='hh'"):
        quiet(call)


@pytest.mark.parametrize("face", list(FACES))
def test_every_face_takes_household_and_verifies_it(face):
    df = household_table(300, ages=30)
    out = quiet(FACES[face], df, household="hh")
    info = out.anon.info["household"]
    k = info["k"]
    assert k >= 2 and info["ids"] == "renumbered"
    qi = [c for c in QI if c in out.columns]
    counts = python_signatures(out, "hh", qi)
    if info["linked_households"] == 0:  # (microaggregated means: no two households alike)
        assert info["household_k"] is None and out["hh"].isna().all()
        return
    assert info["household_k"] >= k
    assert counts and min(counts.values()) >= k  # the definition, without pdanon
    # the ids are fresh: none of the input's, one per linked household
    assert not set(out["hh"].dropna()) & set(df["hh"])
    assert out["hh"].dropna().nunique() == info["linked_households"]
    measured = out.anon.check(pdanon.Policy(k=1)).criteria.set_index("criterion")
    assert measured.loc["household_k", "measured"] >= k
    dropped = quiet(FACES[face], df, household="hh", household_ids="drop")
    assert "hh" not in dropped.columns and dropped.anon.info["household"]["ids"] == "dropped"


def test_generalize_and_apply_recoding_round_trip_with_household():
    df = household_table(400, ages=30)
    out = quiet(df.anon.generalize, {"age": 2}, hierarchies=BANDS, household="hh",
                row_order="input", **ROLES)
    assert out.anon.info["household"]["k"] == 2  # generalize verifies no model: k 2
    assert households.household_k(out, "hh", QI) >= 2
    assert (out["hh"].isna() | ~out["hh"].isin(df["hh"])).all()  # never an input id
    pairs = pd.DataFrame({"old": df["hh"], "new": out["hh"]})
    assert (pairs.groupby("old")["new"].nunique(dropna=False) == 1).all()  # one id each
    # the next batch with the release's recoding: the model's k (3) at household level
    batch = household_table(300, seed=9, ages=30)
    again = quiet(batch.anon.apply_recoding, _recoding(df), household="hh", row_order="input")
    assert again.anon.info["household"]["k"] == 3
    counts = python_signatures(again, "hh", QI)
    assert counts and min(counts.values()) >= 3
    assert not set(again["hh"].dropna()) & set(batch["hh"])
    assert again.anon.check().criteria.set_index("criterion").loc["household_k",
                                                                  "measured"] >= 3
    # a chained face verifies the recorded column again, with its own k
    chained = quiet(out.anon.local_suppression, 4)
    assert chained.anon.info["household"]["k"] == 4
    counts = python_signatures(chained, "hh", QI)
    assert not counts or min(counts.values()) >= 4


def test_household_where_no_household_can_be_verified_is_refused_naming_the_fix():
    df = household_table(300, ages=30)
    with pytest.raises(pdanon.InvalidInputError, match="household_ids='drop'"):
        df.anon.dp_anonymize(1.0, 1e-5, hierarchies=BANDS, household="hh")
    out = quiet(df.anon.dp_anonymize, 1.0, 1e-5, hierarchies=BANDS, household="hh",
                household_ids="drop", quasi_identifiers=QI)
    assert "hh" not in out.columns and out.anon.info["household"]["ids"] == "dropped"
    people = df.assign(pid=np.arange(len(df)))
    with pytest.raises(pdanon.InvalidInputError, match="household_ids='drop'"):
        people.anon.apply_recoding(_recoding(df), history=pdanon.ReleaseHistory(), keys="pid",
                                   invariance=2, household="hh", identifiers=["pid"])
    with pytest.raises(pdanon.InvalidInputError, match="also named in columns"):
        df.anon.microaggregate(3, columns=["age", "hh"], household="hh", **ROLES)


def test_cli_household_with_a_kept_recoding(tmp_path):
    first, batch, rec = (tmp_path / n for n in ("first.csv", "batch.csv", "rec.json"))
    household_table(300, ages=5).to_csv(first, index=False)
    household_table(300, seed=4, ages=5).to_csv(batch, index=False)
    run = [sys.executable, "-m", "pdanon", "anonymize"]
    made = subprocess.run([*run, str(first), "-o", str(tmp_path / "a.csv"), "--qi",
                           "age:real,sex,region", "--sensitive", "income", "-k", "3",
                           "--household", "hh", "--save-recoding", str(rec)],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    out = tmp_path / "b.csv"
    again = subprocess.run([*run, str(batch), "-o", str(out), "--recoding", str(rec),
                            "--household", "hh", "--max-suppressed", "0.5"],
                           capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    counts = python_signatures(pd.read_csv(out), "hh", QI)
    assert not counts or min(counts.values()) >= 3
