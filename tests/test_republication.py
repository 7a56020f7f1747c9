"""Publishing again: a release's recoding kept as JSON and applied to new batches, and several
releases checked together (pdanon.republication.recoding, pdanon.republication.releases; docs/republication.md)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon
from pdanon import metrics
from pdanon._errors import InfeasibleError, InvalidInputError, KindError, UnknownColumnError
from pdanon.datasets import DISCHARGE_ROLES, make_discharges
from pdanon.hierarchy import intervals, tree
from pdanon.models import KAnonymity, LDiversity

AGES = {"age": intervals([5, 10])}
KEEP_ROLES = {k: v for k, v in DISCHARGE_ROLES.items() if k != "quasi_identifiers"}


def _first(k=3):
    df = pd.DataFrame({"age": [31, 32, 33, 36, 37, 38, 41, 42, 44],
                       "sex": list("FFFMMMFFF"),
                       "disease": ["flu", "cold", "flu", "cold", "flu", "cold", "flu", "cold",
                                   "asthma"]})
    return df, df.anon.k_anonymize(k, algorithm="optimal", hierarchies=AGES,
                                   quasi_identifiers=["age", "sex"], sensitive=["disease"], row_order="input")


def test_hand_checked_batch_seen_unseen_and_missing_values():
    _, first = _first()
    rec = first.anon.recoding
    assert rec.columns["age"].cells == ["[30, 34]", "[35, 39]", "[40, 44]"]
    assert rec.columns["sex"].cells == ["F", "M"]
    assert rec.models == [{"model": "KAnonymity", "params": {"k": 3}}]
    batch = pd.DataFrame({"age": [30, 34, 33, 35, 39, 36, 40, 43, 44, 77, 78, 79, None],
                          "sex": list("FFFMMMFFFMMMM"),
                          "disease": ["flu"] * 13})
    before = batch.copy()
    out = batch.anon.apply_recoding(rec, row_order="input")
    pd.testing.assert_frame_equal(batch, before)  # the input is never changed
    assert [None if pd.isna(c) else str(c) for c in out["age"]] == (
        ["[30, 34]"] * 3 + ["[35, 39]"] * 3 + ["[40, 44]"] * 3 + [None] * 4)
    assert out["age"].dtype == first["age"].dtype  # the columns line up with the release's
    info = out.anon.info
    assert info["unseen_cells"] == {"age": 3, "sex": 0}  # 77, 78, 79: no cell holds them
    assert info["rows_kept_cells"] == 10 and info["suppressed_rows"] == 0
    assert info["achieved"] == {"k": 3}  # the four M rows without an age cell are a class
    assert info["recoding"] == rec.fingerprint


def test_rows_blank_everywhere_for_unseen_values_count_as_suppressed():
    """A row none of whose values any cell holds is published blank on every
    quasi-identifier, as a suppressed row: info counts it, so check() without the original
    agrees with check(original=) (it used to count only the protection's suppressions)."""
    _, first = _first()
    batch = pd.DataFrame({"age": [30, 34, 33, 35, 39, 36, 77, 78, 79],
                          "sex": list("FFFMMMXXX"), "disease": ["flu"] * 9})
    out = batch.anon.apply_recoding(first.anon.recoding, max_suppressed_rows=0, row_order="input")
    info = out.anon.info
    assert info["suppressed_rows"] == info["unseen_rows"] == 3
    assert out.iloc[6:9][["age", "sex"]].isna().all().all()
    policy = pdanon.Policy(k=3, max_suppressed_share=0.2)
    alone, against = out.anon.check(policy), out.anon.check(policy, original=batch)
    # (kept in the input's order, it also fails the order criterion: measured 0)
    assert alone.criteria["measured"].tolist() == against.criteria["measured"].tolist() == [
        3, 1 / 3, 0]
    assert not alone.passed and not against.passed


def test_json_round_trip_and_fingerprint():
    _, first = _first()
    rec = first.anon.recoding
    text = rec.to_json()
    back = pdanon.Recoding.from_json(text)
    assert back.to_dict() == rec.to_dict() and back.fingerprint == rec.fingerprint
    assert json.loads(text)["format"] == "pdanon-recoding/1"
    with pytest.raises(InvalidInputError, match="not a pdanon recoding"):
        pdanon.Recoding.from_json('{"format": "something else"}')
    with pytest.raises(InvalidInputError, match="invalid JSON"):
        pdanon.Recoding.from_json("{not json")


def _published_tokens(out: pd.DataFrame, columns) -> set:
    """Every value the published cells show, read from their text: the members of a set,
    the bounds of a range, a plain value."""
    tokens = set()
    for c in columns:
        for cell in out[c].dropna().astype(str):
            inner = cell.strip("[](){}")
            tokens |= {t.strip() for t in inner.split(",")} if cell[:1] in "[({" else {cell}
    return tokens


def _json_leaves(obj) -> list:
    if isinstance(obj, dict):
        return [x for v in obj.values() for x in _json_leaves(v)]
    if isinstance(obj, list):
        return [x for v in obj for x in _json_leaves(v)]
    return [obj]


def test_the_recoding_holds_no_value_that_no_published_cell_shows():
    rares = ["99991-RARE", "88882-RARE", "77773-RARE"]  # three rows, suppressed together
    df = pd.DataFrame({"name": [f"ID-PERSON-{i:03d}" for i in range(13)],
                       "zip": ["10001"] * 10 + rares,
                       "age": [30, 31, 32, 33, 34, 40, 41, 42, 43, 44, 55, 66, 77],
                       "disease": ["flu", "cold"] * 6 + ["flu"]})
    zips = tree({"1xxxx": ["10001"], "9xxxx": [rares[0]], "8xxxx": [rares[1]],
                 "7xxxx": [rares[2]]})
    out = df.anon.k_anonymize(3, algorithm="optimal", max_suppressed_rows=3,
                              hierarchies={"age": intervals([5, 10, 50]), "zip": zips},
                              identifiers=["name"],
                              quasi_identifiers={"zip": "unordered", "age": "real"},
                              sensitive=["disease"])
    assert out.anon.info["suppressed_rows"] == 3
    shown = _published_tokens(out, ["zip", "age"])
    assert not set(rares) & shown  # the rare rows were suppressed
    rec = out.anon.recoding
    text = rec.to_json()
    for secret in [*rares, "55", "66", "77", "9xxxx", *df["name"]]:
        assert secret not in text
    # every value the recoding holds is one a published cell shows (as text)
    for col in json.loads(text)["columns"]:
        held = _json_leaves({k: v for k, v in col.items()
                             if k in ("categories", "values", "lo", "hi")})
        dtypes = ("object", "str", "int64", "float64")
        held = [h for h in held if h is not None and not (isinstance(h, str) and h in dtypes)]
        for value in held:
            if col["form"] in ("sets", "values") and isinstance(value, int) and \
                    col.get("categories") is not None:
                continue  # a member position into the categories, not a value
            as_text = str(value)
            as_text = as_text[:-2] if as_text.endswith(".0") else as_text
            assert as_text in shown, (col["name"], value)


def test_discharge_table_dates_zip_codes_and_identifiers():
    df = make_discharges(1200)
    jan, feb = df.iloc[:600].reset_index(drop=True), df.iloc[600:].reset_index(drop=True)
    # exact bounds: with the widened birth dates (whole years, pdanon.recode.bounds) 3 of
    # February's rows land in classes under 5 that suppressing cannot mend; this test is about
    # identifiers, truthfulness and codes
    out = jan.anon.k_anonymize(5, algorithm="datafly", **DISCHARGE_ROLES, row_order="input",
                               options={"exact_bounds": True})
    text = out.anon.recoding.to_json()
    assert not any(pid in text for pid in jan["patient_id"])
    assert not any(n in text for n in jan["name"].head(100))
    new = feb.anon.apply_recoding(pdanon.Recoding.from_json(text),
                                  identifiers=DISCHARGE_ROLES["identifiers"],
                                  insensitive=DISCHARGE_ROLES["insensitive"], row_order="input")
    assert not {"patient_id", "name", "note"} & set(new.columns)
    qi = list(DISCHARGE_ROLES["quasi_identifiers"])
    assert metrics.k_anonymity(new, qi) == new.anon.info["achieved"]["k"] >= 5
    for c in qi:
        assert new[c].dtype == out[c].dtype
        # truthful: every published cell holds the batch's value, or is missing
        held = np.asarray(new[c].array.contains(feb[c]), dtype=bool)
        assert (held | new[c].isna().to_numpy()).all()
    assert any(str(z).startswith("0") for z in new["zip"].dtype.categories)  # "02104"


def test_codes_read_as_numbers_and_dates_read_as_text():
    df = make_discharges(600)
    out = df.anon.k_anonymize(5, algorithm="datafly", **DISCHARGE_ROLES)
    rec = out.anon.recoding
    keep = {k: v for k, v in DISCHARGE_ROLES.items() if k != "quasi_identifiers"}
    as_numbers = df.assign(zip=df["zip"].astype(int))  # leading zeros lost
    with pytest.raises(KindError, match="leading zeros.*pdanon.read_csv"):
        as_numbers.anon.apply_recoding(rec, **keep)
    as_text = df.assign(birth_date=df["birth_date"].dt.strftime("%Y-%m-%d"))
    a = as_text.anon.apply_recoding(rec, **keep)
    b = df.anon.apply_recoding(rec, **keep)
    assert a["birth_date"].astype(str).tolist() == b["birth_date"].astype(str).tolist()
    with pytest.raises(KindError, match="pd.to_datetime"):
        df.assign(birth_date=np.arange(len(df))).anon.apply_recoding(rec, **keep)
    with pytest.raises(InvalidInputError, match="first release's recoding"):
        _ = b.anon.recoding


def test_failing_classes_are_suppressed_within_the_budget_or_the_call_fails():
    _, first = _first()
    rec = first.anon.recoding
    batch = pd.DataFrame({"age": [31, 32, 33, 36, 37, 38, 41, 42],
                          "sex": list("FFFMMMFF"), "disease": ["flu"] * 8})
    with pytest.raises(InfeasibleError, match=r"2 of its 8 rows .* fail KAnonymity\(k=3\)"):
        batch.anon.apply_recoding(rec, row_order="input")  # the 2 rows of [40, 44] F fail; suppressed, too
    batch = pd.DataFrame({"age": [31, 32, 33, 36, 37, 38, 41, 42, 31, 36, 37],
                          "sex": list("FFFMMMFFFMM"), "disease": ["flu"] * 11})
    with pytest.raises(InfeasibleError, match="more than the budget of 0"):
        batch.anon.apply_recoding(rec, max_suppressed_rows=0, row_order="input")
    # under k = 2 the two rows alone in their classes ([30, 34] without a sex; no age cell,
    # no sex) fail and are suppressed: together they are a class of two, which passes
    batch = pd.DataFrame({"age": [31, 32, 33, 36, 37, 38, 41, 42, 99],
                          "sex": [None, "F", "F", "M", "M", "M", "F", "F", None],
                          "disease": ["flu"] * 9})
    out = batch.anon.apply_recoding(rec, model=KAnonymity(2), max_suppressed_rows=3, row_order="input")
    assert out.anon.info["suppressed_rows"] == 2 and out.anon.info["achieved"]["k"] == 2
    assert out.iloc[[0, 8]][["age", "sex"]].isna().all().all()


def test_the_recorded_model_with_sensitive_columns_is_verified_again():
    df = pd.DataFrame({"age": [31, 32, 33, 36, 37, 38] * 2,
                       "disease": ["flu", "cold", "asthma"] * 4})
    first = df.anon.l_diversify(2, k=2, algorithm="optimal", hierarchies={"age": intervals([5])},
                                quasi_identifiers=["age"], sensitive=["disease"])
    rec = first.anon.recoding
    assert rec.sensitive == {"disease": "unordered"}
    same = pd.DataFrame({"age": [30, 31, 35, 36], "disease": ["flu", "flu", "cold", "flu"]})
    with pytest.raises(InfeasibleError, match="fail"):
        same.anon.apply_recoding(rec, max_suppressed_rows=4)  # [30, 34] holds only flu
    good = pd.DataFrame({"age": [30, 31, 35, 36], "disease": ["flu", "cold", "cold", "flu"]})
    out = good.anon.apply_recoding(rec)
    assert metrics.l_diversity(out, ["age"], "disease") == 2


def test_errors_name_the_column_and_the_fix():
    _, first = _first()
    rec = first.anon.recoding
    with pytest.raises(UnknownColumnError, match="age"):
        pd.DataFrame({"sex": ["F"]}).anon.apply_recoding(rec)
    with pytest.raises(KindError, match="numeric ranges.*pd.to_numeric"):
        pd.DataFrame({"age": ["x"] * 3, "sex": ["F"] * 3,
                      "disease": ["flu"] * 3}).anon.apply_recoding(rec)
    with pytest.raises(InvalidInputError, match="must be a pdanon.Recoding"):
        pd.DataFrame({"age": [1]}).anon.apply_recoding({"age": []})
    with pytest.raises(InvalidInputError, match="no pdanon release"):
        _ = pd.DataFrame({"age": [1]}).anon.recoding
    labelled = pd.DataFrame({"age": [31, 32, 33, 36, 37, 38]}).anon.k_anonymize(
        3, algorithm="optimal", labels=True, hierarchies=AGES)
    with pytest.raises(InvalidInputError, match="labels=False"):
        _ = labelled.anon.recoding
    aggregated = pd.DataFrame({"age": [31, 32, 33, 36, 37, 38]}).anon.k_anonymize(
        3, method="aggregate")
    with pytest.raises(InvalidInputError, match="method='generalize' or 'suppress'"):
        _ = aggregated.anon.recoding
    with pytest.raises(InvalidInputError, match="recoding's columns"):
        pd.DataFrame({"age": [31], "sex": ["F"]}).anon.apply_recoding(
            rec, quasi_identifiers=["age"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(6, 60), m=st.integers(0, 60), k=st.integers(2, 4),
       seed=st.integers(0, 10**6))
def test_property_truthful_and_verified_on_every_batch(n, m, k, seed):
    rng = np.random.default_rng(seed)

    def table(rows):
        return pd.DataFrame({"age": rng.integers(18, 70, rows).astype(float),
                             "sex": rng.choice(["F", "M", None], rows)})

    df = table(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            first = df.anon.k_anonymize(k, algorithm="optimal", max_suppressed_rows=k - 1,
                                        hierarchies={"age": intervals([5, 10, 20])},
                                        quasi_identifiers=["age", "sex"], row_order="input")
        except InfeasibleError:
            return
    rec = pdanon.Recoding.from_json(first.anon.recoding.to_json())
    batch = table(m)
    try:
        out = batch.anon.apply_recoding(rec, max_suppressed_rows=m, row_order="input")
    except InfeasibleError as exc:  # only when the suppressed rows fail together
        assert "suppressed together" in str(exc)
        return
    assert len(out) == m
    if m:
        assert metrics.k_anonymity(out, ["age", "sex"]) >= k
        assert out.anon.info["achieved"]["k"] == metrics.k_anonymity(out, ["age", "sex"])
    held = np.asarray(out["age"].array.contains(batch["age"]), dtype=bool)
    assert (held | out["age"].isna().to_numpy()).all()
    vocabulary = set(first["age"].dropna().astype(str))
    assert set(out["age"].dropna().astype(str)) <= vocabulary


# ----------------------------------------------------------------------------- check_releases


def test_two_5_anonymous_releases_that_together_single_people_out():
    # 25 people; release 1 cuts ages into five bands of five, release 2 groups them into five
    # ZIP regions of five; every band and every region share exactly one person
    rng = np.random.default_rng(0)
    ids = np.arange(25)
    band = np.repeat(["[20, 29]", "[30, 39]", "[40, 49]", "[50, 59]", "[60, 69]"], 5)
    zipg = np.tile(["021**", "100**", "606**", "112**", "044**"], 5)
    r1 = pd.DataFrame({"age": band})
    r2 = pd.DataFrame({"zip": zipg})
    assert r1.anon.k_anonymity(quasi_identifiers=["age"]) == 5
    assert r2.anon.k_anonymity(quasi_identifiers=["zip"]) == 5
    order = rng.permutation(25)  # release 2 lists the people in another order
    res = pdanon.check_releases([r1, r2.iloc[order].reset_index(drop=True)],
                                keys=[ids, ids[order]],
                                quasi_identifiers=[["age"], ["zip"]])
    assert res.k_each == [5, 5]
    assert res.combined_k == 1 and res.persons_below(2) == 25
    assert res.combined.to_dict() == {i: 1 for i in range(25)}
    # the same recoding applied to the same people twice stays as safe as one release
    res = pdanon.check_releases([r1, r1], keys=[ids, ids], quasi_identifiers=[["age"], ["age"]])
    assert res.combined_k == 5 and res.summary()["persons_alone"] == 0


def test_people_in_one_release_only_and_projections_of_one_table():
    r1 = pd.DataFrame({"a": ["x", "x", "x", "y", "y", "y"]})
    r2 = pd.DataFrame({"b": ["p", "p", "q", "q"]})
    res = pdanon.check_releases([r1, r2], keys=[[1, 2, 3, 4, 5, 6], [1, 2, 4, 5]],
                                quasi_identifiers=[["a"], ["b"]])
    # 1, 2: x & p; 3: x & absent; 4: y & q... 5: y & q; 6: y & absent
    assert res.combined.to_dict() == {1: 2, 2: 2, 3: 1, 4: 2, 5: 2, 6: 1}
    assert res.releases_of.to_dict() == {1: 2, 2: 2, 3: 1, 4: 2, 5: 2, 6: 1}
    table = pd.DataFrame({"a": list("xxxxyyyy"), "b": list("ppqqppqq"), "c": list("uvuvuvuv")})
    res = pdanon.check_releases([table[["a", "b"]], table[["b", "c"]]],
                                keys=[table.index, table.index])
    assert res.k_each == [2, 2] and res.combined_k == 1  # (a, b, c) is unique


def test_check_releases_errors():
    r = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(InvalidInputError, match="one key per row"):
        pdanon.check_releases([r], keys=[[1]])
    with pytest.raises(InvalidInputError, match="more than once"):
        pdanon.check_releases([r], keys=[[1, 1]])
    with pytest.raises(InvalidInputError, match="one key array per release"):
        pdanon.check_releases([r, r], keys=[[1, 2]])
    with pytest.raises(UnknownColumnError, match="zip"):
        pdanon.check_releases([r], keys=[[1, 2]], quasi_identifiers=[["zip"]])


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), releases=st.integers(1, 3), seed=st.integers(0, 10**6))
def test_property_combined_classes_equal_a_join_and_group_by(n, releases, seed):
    rng = np.random.default_rng(seed)
    frames, keys = [], []
    for _ in range(releases):
        present = np.flatnonzero(rng.random(n) < 0.8)
        rng.shuffle(present)
        frames.append(pd.DataFrame({"q": rng.integers(0, 3, len(present)),
                                    "r": rng.choice(["a", None], len(present))}))
        keys.append(present)
    if not any(len(k) for k in keys):
        return
    res = pdanon.check_releases(frames, keys=keys)
    # brute force: per person the tuple of (q, r) cells in each release (absent: a marker)
    people = sorted(set().union(*[set(k.tolist()) for k in keys]))
    rows = {p: [] for p in people}
    for f, key in zip(frames, keys):
        cell = {int(p): (f["q"].iloc[i], f["r"].iloc[i]) for i, p in enumerate(key)}
        for p in people:
            rows[p].append(cell.get(p, "absent"))
    signature = {p: repr(v) for p, v in rows.items()}
    counts = pd.Series(signature).value_counts()
    expected = {p: int(counts[s]) for p, s in signature.items()}
    assert res.combined.to_dict() == expected
    assert res.combined_k == min(expected.values())


def test_composition_attack_hand_checked():
    # r1: a = {flu, cold}, b = {hiv, flu, cold}; r2: x = {flu}, y = {cold, hiv}
    d = ["flu", "cold", "flu", "hiv", "flu", "cold"]
    r1 = pd.DataFrame({"age": ["a"] * 3 + ["b"] * 3, "d": d})
    r2 = pd.DataFrame({"zip": list("xyxyxy"), "d": d})
    res = pdanon.check_releases([r1, r2], keys=[range(6), range(6)],
                                quasi_identifiers=[["age"], ["zip"]], sensitive="d")
    assert res.intersected.tolist() == [1, 1, 1, 2, 1, 2]  # person 3: {hiv, cold}
    # the counts leave persons 3 and 5 (in b and y both: hiv, cold) two values too
    assert res.candidates.tolist() == [1, 1, 1, 2, 1, 2]
    assert res.combined_l == 1 and res.value_changed == 0
    assert res.summary()["persons_one_value"] == 4
    # each release alone shows every person at least two values
    alone = pdanon.check_releases([r1], keys=[range(6)], quasi_identifiers=[["age"]],
                                  sensitive="d")
    assert alone.combined_l == 2
    # a person whose value changed is left out of the minimum
    r2b = r2.assign(d=["flu", "cold", "flu", "hiv", "cold", "cold"])
    res = pdanon.check_releases([r1, r2b], keys=[range(6), range(6)],
                                quasi_identifiers=[["age"], ["zip"]], sensitive="d")
    assert res.value_changed == 1
    with pytest.raises(UnknownColumnError, match="sensitive column 'nope'"):
        pdanon.check_releases([r1], keys=[range(6)], sensitive="nope")


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 30), releases=st.integers(1, 3), values=st.integers(1, 70),
       seed=st.integers(0, 10**6))
def test_property_candidates_equal_set_intersections(n, releases, values, seed):
    rng = np.random.default_rng(seed)
    value = rng.integers(0, values, n)  # one sensitive value per person, constant
    frames, keys = [], []
    for _ in range(releases):
        present = np.flatnonzero(rng.random(n) < 0.8)
        rng.shuffle(present)
        frames.append(pd.DataFrame({"q": rng.integers(0, 3, len(present)),
                                    "s": value[present]}))
        keys.append(present)
    if not any(len(k) for k in keys):
        return
    res = pdanon.check_releases(frames, keys=keys, quasi_identifiers=[["q"]] * releases,
                                sensitive="s")
    expected = {}
    for f, key in zip(frames, keys):
        sets = f.groupby("q")["s"].agg(set).to_dict()
        for i, p in enumerate(key):
            got = sets[f["q"].iloc[i]]
            expected[int(p)] = expected.get(int(p), got) & got
    assert {int(p): int(c) for p, c in res.intersected.items()} == {
        p: len(v) for p, v in expected.items()}
    assert res.value_changed == 0
    # the difference attack (the counts, not only the sets) never leaves more
    assert (res.candidates <= res.intersected).all() and (res.candidates >= 1).all()
    assert res.combined_l == int(res.candidates.min())


# ----------------------------------------------------------------------------- invariance


def _january():
    """January published m-invariant (m = 2) from the start: [30, 34] shows flu and cold
    twice each, [35, 39] hiv and flu twice each, so no counterfeit row is needed."""
    jan = pd.DataFrame({"pid": range(8), "age": [31, 32, 33, 34, 36, 37, 38, 39],
                        "d": ["flu", "cold", "flu", "cold", "hiv", "flu", "hiv", "flu"]})
    first = jan.anon.k_anonymize(2, l=2, algorithm="optimal",
                                 hierarchies={"age": intervals([5])}, identifiers=["pid"],
                                 quasi_identifiers=["age"], sensitive=["d"])
    history = pdanon.ReleaseHistory()
    out = jan.anon.apply_recoding(first.anon.recoding, history=history, keys="pid",
                                  invariance=2, identifiers=["pid"])
    history.add(out, keys=jan["pid"], sensitive="d")
    return jan, out, history, first.anon.recoding


def test_invariance_keeps_every_signature_hand_checked():
    jan, first, history, rec = _january()
    assert first.anon.info["invariance"]["counterfeit_rows"] == 0 and history.invariant == [2]
    # 8 (hiv) cannot join [30, 34], whose persons' signature is {flu, cold}, nor 10
    # (asthma) [35, 39] ({hiv, flu}): both suppressed, they make the blank class {hiv,
    # asthma}; 11 (flu, new) joins [30, 34], which then needs one counterfeit cold
    feb = pd.DataFrame({"pid": [0, 1, 8, 11, 4, 9, 10],
                        "age": [31, 32, 33, 34, 36, 37, 38],
                        "d": ["flu", "cold", "hiv", "flu", "hiv", "flu", "asthma"]})
    out = feb.anon.apply_recoding(rec, identifiers=["pid"], history=history, keys="pid",
                                  invariance=2, max_suppressed_rows=2)
    info = out.anon.info
    assert info["invariance"] == {"m": 2, "people_seen_before": 3, "rows_suppressed_for_it": 2,
                                  "missing_sensitive": "unknown",
                                  "counterfeit_rows": 1,
                                  "counterfeits_by_class": {"[30, 34]": 1}}
    assert info["rows"] == 7 and len(out) == 8 and info["rows_withheld"] == 0
    shown = out.groupby(out["age"].astype(str).fillna("blank"))["d"].agg(sorted).to_dict()
    assert shown == {"[30, 34]": ["cold", "cold", "flu", "flu"], "[35, 39]": ["flu", "hiv"],
                     "blank": ["asthma", "hiv"]}
    keys = pdanon.release_keys(out, feb["pid"])
    assert sorted(k for k in keys if k is not None) == sorted(feb["pid"])
    assert sum(k is None for k in keys) == 1 and "pid" not in out.columns
    history.add(out, keys=feb["pid"], sensitive="d")
    assert history.invariant == [2, 2]
    after = pdanon.check_releases([first, out], keys=[jan["pid"], feb["pid"]], sensitive="d")
    assert after.combined_l == 2 and after.passes(l=2) and len(after.combined) == 12


def test_invariance_errors():
    jan, first, history, rec = _january()
    feb = pd.DataFrame({"pid": [0, 1, 8], "age": [31, 32, 33], "d": ["flu", "cold", "hiv"]})
    kw = dict(identifiers=["pid"], history=history, keys="pid", invariance=2,
              model=KAnonymity(1), max_suppressed_rows=3)
    # 8 (hiv) fits no signature, and alone in the blank class shows one value
    with pytest.raises(InfeasibleError, match="cannot keep 1 rows m-invariant"):
        feb.anon.apply_recoding(rec, **kw)
    out = feb.anon.apply_recoding(rec, withhold=True, **kw)
    assert out.anon.info["rows_withheld"] == 1 and sorted(out["d"]) == ["cold", "flu"]
    with pytest.raises(InvalidInputError, match="random order"):
        feb.anon.apply_recoding(rec, row_order="input", **kw)
    with pytest.raises(InvalidInputError, match=r"\['note'\] would have to be invented"):
        feb.assign(note="x").anon.apply_recoding(rec, **kw)
    with pytest.raises(InvalidInputError, match="1 row\\(s\\) of 'd' are blank"):
        feb.assign(d=["flu", None, "hiv"]).anon.apply_recoding(rec, **kw)
    with pytest.raises(InvalidInputError, match="needs history"):
        feb.anon.apply_recoding(rec, identifiers=["pid"], keys="pid", invariance=2)
    with pytest.raises(InvalidInputError, match="go with invariance"):
        feb.anon.apply_recoding(rec, identifiers=["pid"], history=history)
    with pytest.raises(UnknownColumnError, match="keys='who'"):
        feb.anon.apply_recoding(rec, identifiers=["pid"], history=history, keys="who",
                                invariance=2)
    with pytest.raises(InvalidInputError, match="integer >= 1"):
        feb.anon.apply_recoding(rec, identifiers=["pid"], history=history, keys="pid",
                                invariance=0)
    # a month with nobody to publish keeps the history m-invariant
    empty = feb.iloc[:0].anon.apply_recoding(rec, **kw)
    history.add(empty, keys=feb["pid"].iloc[:0], sensitive="d")
    assert len(empty) == 0 and history.invariant[-1] >= 2
    assert len(feb.anon.apply_recoding(rec, withhold=True, **kw)) == 2
    # a history that records a release not published m-invariant
    old = pdanon.ReleaseHistory()
    old.add(jan.iloc[:7].anon.apply_recoding(rec, identifiers=["pid"], row_order="input"),
            keys=jan["pid"].iloc[:7], sensitive="d")  # [35, 39]: hiv twice, flu once
    assert old.invariant == [0]
    with pytest.raises(InvalidInputError, match="release 1 is not m-invariant for m = 2"):
        feb.anon.apply_recoding(rec, **{**kw, "history": old})
    # and an old history (pickled before signatures were kept) counts as not invariant
    state = old._state()
    for field in ("signature", "signature_sets", "signature_ids", "invariant"):
        state.pop(field)
    from pdanon.republication.releases import _history_from_state

    assert _history_from_state(state).invariant == [0]
    state = history._state()
    for field in ("signature", "signature_sets", "signature_ids", "invariant"):
        state.pop(field)
    back = _history_from_state(state)
    assert back.invariant == [0] and (back.signature == -1).all()


# ----------------------------------------------------------------------------- local recodings


def test_mondrian_release_is_kept_by_its_classes_and_places_its_own_rows_back():
    from pdanon.republication import boxes as recoding_boxes

    df = make_discharges(1200, seed=1)
    jan = df.iloc[:600].reset_index(drop=True)
    # the data's own bounds: Mondrian's cuts leave gaps between the classes' ranges, which the
    # tree finds again (widened bounds may touch or overlap: then a new row goes to a class
    # whose cells hold it, as for nearest; tests/test_bounds.py)
    with pytest.warns(pdanon.ExactBoundsWarning):
        out = jan.anon.k_anonymize(5, algorithm="mondrian", **DISCHARGE_ROLES,
                                   row_order="input", options={"exact_bounds": True})
    rec = out.anon.recoding
    assert rec.classes is not None and len(rec.classes) == out.anon.info["groups"]
    back = pdanon.Recoding.from_json(rec.to_json())
    assert back.classes == rec.classes
    qi = list(rec.columns)

    placed = recoding_boxes.place(jan, back.columns, back.classes)
    got = np.column_stack([placed[c] for c in qi])
    # every row of a class without a suppressed cell is placed in exactly its own cells
    cells = {c: {t: i for i, t in enumerate(rec.columns[c].cells)} for c in qi}
    mine = np.column_stack([[(-1 if pd.isna(v) else cells[c][str(v)]) for v in out[c]]
                            for c in qi])
    complete = (mine >= 0).all(axis=1)
    assert complete.mean() > 0.5
    assert (got[complete] == mine[complete]).all()
    # a new month: every published cell holds the row's value; the model is verified
    feb = df.iloc[600:].reset_index(drop=True)
    new = feb.anon.apply_recoding(back, max_suppressed_rows=0.95, **KEEP_ROLES, row_order="input")
    for c in qi:
        held = np.asarray(new[c].array.contains(feb[c]), dtype=bool)
        assert (held | new[c].isna().to_numpy()).all(), c
    assert metrics.k_anonymity(new, qi) >= 5
    # the batch's values are checked as by the global lookup
    with pytest.raises(KindError, match="pd.to_datetime"):
        feb.assign(birth_date=np.arange(len(feb))).anon.apply_recoding(back, **KEEP_ROLES, row_order="input")
    with pytest.raises(KindError, match="leading zeros"):
        feb.assign(zip=feb["zip"].astype(int)).anon.apply_recoding(back, **KEEP_ROLES, row_order="input")


def test_nearest_groupings_place_rows_in_the_nearest_enclosing_class(monkeypatch):
    from pdanon.republication import boxes as recoding_boxes

    df = make_discharges(600, seed=1)
    out = df.anon.k_anonymize(5, algorithm="nearest", **DISCHARGE_ROLES, row_order="input")
    rec = out.anon.recoding
    qi = list(rec.columns)
    again = df.anon.apply_recoding(rec, max_suppressed_rows=0.5, **KEEP_ROLES, row_order="input")
    for c in qi:  # truthful, and most rows find a class holding all their values
        held = np.asarray(again[c].array.contains(df[c]), dtype=bool)
        assert (held | again[c].isna().to_numpy()).all(), c
    assert again.anon.info["rows_kept_cells"] > 0.6 * len(df)
    assert metrics.k_anonymity(again, qi) >= 5
    monkeypatch.setattr(recoding_boxes, "MAX_BAG_CHECKS", 1000)
    with pytest.raises(InvalidInputError, match="overlap in every column.*checks"):
        df.anon.apply_recoding(rec, **KEEP_ROLES, row_order="input")


def test_a_bag_takes_the_first_class_holding_all_values_else_the_most():
    from pdanon.republication.boxes import build_tree, route

    # two classes overlapping in both columns: no split, one bag
    lo, hi = {"a": np.array([0.0, 5.0])}, {"a": np.array([10.0, 20.0])}
    sets = {"s": [{0, 1}, {1, 2}]}
    tree = build_tree(lo, hi, sets)
    assert tree[0] == "bag"
    rows = route(tree, {"a": np.array([7.0, 15.0, 7.0, 30.0])},
                 {"s": np.array([1, 1, 2, 0])}, (lo, hi, sets))
    # 7/1: both hold all -> the first; 15/1: only class 1 holds a; 7/2: class 1 holds both;
    # 30/0: class 0 holds s, class 1 nothing -> class 0
    assert rows.tolist() == [0, 1, 1, 0]
