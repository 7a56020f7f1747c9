"""No column leaves without a decision (pdanon/screening.py, pdanon.roles.resolve_roles): the
columns nobody gave a role are examined; one that looks like it identifies people is refused,
naming the column, the evidence and the two fixes; inferred roles are listed in one
RoleWarning; a column that sounds sensitive is never made a quasi-identifier."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon import screening
from pdanon.roles import resolve_roles


def frame(n=100, ids=None):
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "id": ids if ids is not None else [f"R{i:05d}" for i in range(n)],
        "age": rng.integers(20, 60, n),
        "sex": rng.choice(["F", "M"], n),
        "score": rng.random(n),  # unique floats: a measurement that links rows
        "disease": rng.choice(["flu", "cold", "hiv"], n),
    })


def no_warning():
    return warnings.catch_warnings(action="error", category=pdanon.RoleWarning)


# ----------------------------------------------------------------------------- the rules


@pytest.mark.parametrize("name", ["id", "patient_id", "patientId", "PatientID", "ID", "name",
                                  "first_name", "Surname", "email", "e-mail", "phone_number",
                                  "SSN", "mrn", "home address", "ip_address", "userId",
                                  "Patient_No", "case number", "TaxNr", "insurance_num",
                                  "caseid"])
def test_identifier_names(name):
    s = screening.examine(pd.Series(["a", "b", "a"]), name)
    assert s is not None and s.what == "identifier"
    assert s.evidence == "its name looks like an identifier; 2 distinct values in 3 rows"


@pytest.mark.parametrize("name", ["dob", "date_of_birth", "birthDate", "born"])
def test_birth_names(name):
    s = screening.examine(pd.Series(pd.to_datetime(["1990-01-02", "1991-05-03"])), name)
    assert s is not None and s.what == "date of birth"
    # the advice says how: the year, or a dates() hierarchy (whole units)
    assert f"df[{name!r}].dt.year" in s.evidence and "dates() hierarchy" in s.evidence


@pytest.mark.parametrize("name", ["bdate", "Geburtsdatum", "fecha_nacimiento",
                                  "date_de_naissance"])
def test_birth_names_in_other_forms(name):
    assert screening.examine(pd.Series(["1990-01-02", "1991-05-03"]), name).what == \
        "date of birth"


@pytest.mark.parametrize("name", ["Patient", "CUSTOMER", "insured", "Respondent"])
def test_a_name_that_is_a_person_word_alone(name):
    s = screening.examine(pd.Series(["Ann Lee", "Bo Ng", "Ann Lee"]), name)
    assert (s.what, s.evidence) == ("identifier", "its name says it names people; 2 distinct "
                                                  "values in 3 rows")


@pytest.mark.parametrize("name", ["patient_age", "room_no", "member_since", "visit_type",
                                  "code", "tax_rate", "subject_area", "subject", "owner",
                                  "user", "hospital_code", "admission_type_code", "Case Code"])
def test_person_and_number_words_alone_are_not_identifiers(name):
    assert screening.examine(pd.Series(["a", "b"] * 30), name) is None


@pytest.mark.parametrize("name", ["age", "zip", "zipcode", "sex", "valid", "paid", "idx",
                                  "width", "admission_date", "diagnosis"])
def test_ordinary_names_are_not_suspects(name):
    assert screening.examine(pd.Series(["a", "b"] * 30), name) is None


def test_uniqueness_needs_fifty_cells_and_ninety_five_percent():
    assert screening.MIN_ROWS == 50 and screening.NEARLY_UNIQUE == 0.95
    judge = screening.examine
    assert judge(pd.Series(range(50)), "x").evidence == "unique or nearly: no value repeats " \
        "in 50 rows"
    assert judge(pd.Series(range(49)), "x") is None  # too few cells to tell
    assert judge(pd.Series(list(range(48)) + [0, 1]), "x").evidence == \
        "unique or nearly: 48 distinct values in 50 rows"  # 0.96
    assert judge(pd.Series(list(range(45)) + [0] * 5), "x") is None  # 0.90
    assert judge(pd.Series(np.arange(60) + 0.5), "x") is not None  # floats too
    assert judge(pd.Series(pd.date_range("2020-01-01", periods=60)), "x") is not None
    assert judge(pd.Series([True, False] * 40), "id") is None  # booleans identify no one
    assert judge(pd.Series(list(range(50)) + [None] * 20, dtype="Int64"), "x") is not None


def test_free_text():
    notes = pd.Series([f"patient {i} seen by Dr Smith, stable at discharge" for i in range(8)])
    s = screening.examine(notes, "note")
    assert s.what == "free text"
    assert s.evidence == "free text: 8 distinct values in 8 rows, median 47 characters"
    # long codes without spaces, or few distinct texts, are not free text
    assert screening.examine(pd.Series(["x" * 30, "y" * 30] * 4), "code") is None
    assert screening.examine(pd.Series(["same long text here, stable"] * 8), "status") is None


def test_a_column_named_like_notes_is_free_text_from_ten_distinct_values():
    notes = pd.Series([f"pt stable, bed {i % 12}" for i in range(40)] + [None] * 5)
    s = screening.examine(notes, "Comments")
    assert (s.what, s.evidence) == (
        "free text", "its name looks like notes (free text); 12 distinct values in 40 rows")
    for name in ("note", "nurse_notes", "Remarks", "freeText", "memo"):
        assert screening.examine(notes, name) is not None, name
    # two set phrases, or a yes/no flag about notes, identify no one
    assert screening.examine(pd.Series(["pt stable", None, "ok"] * 20), "summary") is None
    assert screening.examine(pd.Series([True, False] * 5), "has_notes") is None


def test_contact_details_in_notes_that_mostly_repeat():
    """Free text that escapes the length and distinctness rule is still refused when some of
    its cells hold a phone number, an e-mail address or an SSN-like number."""
    notes = pd.Series(["pt stable"] * 50 + ["called daughter at 555-0123"] * 2
                      + ["write to a.lee@example.org"] + [None] * 3, name="status")
    s = screening.examine(notes)
    assert s.what == "contact details"
    assert s.evidence == ("holds contact details: e-mail addresses in 1 of 53 cells, phone "
                          "numbers in 2 of 53 cells")
    ssn = pd.Series(["ok"] * 10 + ["SSN 078-05-1120 on file"], name="flag")
    assert screening.examine(ssn).evidence == (
        "holds contact details: social-security-like numbers in 1 of 11 cells")
    # a column refused for another reason is not searched (the search costs a pass of
    # regular expressions): its evidence is that reason
    both = screening.examine(pd.Series([f"seen {i}, phone (617) 555-01{i:02d}" for i in
                                        range(60)], name="x"))
    assert both.what == "free text" and "contact" not in both.evidence


@pytest.mark.parametrize("text", [
    "555-0123", "617-555-0123", "617.555.0123", "(617) 555-0123", "(030)1234567",
    "+49 30 1234567", "+1 617 555 0123", "+44 20 7946 0958", "030 1234567", "0171-1234567",
    "call 555-0123 today", "tel:555-0123."])
def test_phone_numbers_found(text):
    assert screening.contact_details(pd.Series([text])) == {"phone numbers": 1}, text


@pytest.mark.parametrize("text, what", [
    ("from 10.1.0.7 at night", "IP addresses"), ("see https://example.org/u/ann", "web addresses"),
    ("www.facebook.com/ann.lee", "web addresses"), ("follows @ann_lee", "social media handles"),
    ("lives at 12 Main St, Springfield", "street addresses"),
    ("1400 Pennsylvania Avenue", "street addresses"),
    ("Hauptstraße 5, Berlin", "street addresses"),
])
def test_other_contact_details_found(text, what):
    assert screening.contact_details(pd.Series([text])) == {what: 1}, text


@pytest.mark.parametrize("text", ["ann.lee@example.org", "v1.2.3.4", "version 2.10.3",
                                  "seen 3 times by Dr Lee", "meet @ 5pm", "flu", "E11.9",
                                  "taken 2 times to court", "stage 3 of the disease"])
def test_no_other_contact_details_in(text):
    found = screening.contact_details(pd.Series([text]))
    assert set(found) <= {"e-mail addresses"}, (text, found)


@pytest.mark.parametrize("text", [
    "1990-1999", "2001-2010", "1000-1999", "2020 2021", "batch 4711-0815", "BP 120 8000",
    "555 0123", "2024-03-01", "2024-03-01T10:22:00+01:00", "12:38:00",
    "E11.9", "J45.909", "02139-1234", "MRN-001690", "123.4567", "1234.5678", "45,000",
    "1 234 567", "v1.2.3.4", "ratio 3/4", "10001", "5550123", "seen 12/03/2024", "3.14159265",
    "P-000123", "ab 12 cd 34", "ISBN 978-3-16-148410-0"])
def test_no_phone_number_in(text):
    assert screening.contact_details(pd.Series([text])) == {}, text


def test_contact_details_counts_cells_and_reads_only_text():
    s = pd.Series(["555-0123"] * 5 + ["x"] * 5 + [None])
    assert screening.contact_details(s) == {"phone numbers": 5}
    assert screening.contact_details(pd.Series([5550123, 6170000])) == {}  # numbers: no text
    mixed = pd.Series(["555-0123", 3, None, "ok"], dtype=object)
    assert screening.contact_details(mixed) == {"phone numbers": 1}


def test_categorical_text_is_examined_like_text():
    """A Categorical of strings is text: its contact details and free text are found, and its
    unused categories are no values."""
    notes = pd.Series(pd.Categorical(["stable"] * 30 + ["call daughter at 617-555-0001"] * 2,
                                     categories=["stable", "call daughter at 617-555-0001",
                                                 "unused"]), name="status")
    s = screening.examine(notes)
    assert (s.what, s.evidence) == ("contact details", "holds contact details: phone numbers "
                                                       "in 2 of 32 cells")
    f = screening.facts(notes)
    assert (f.count, f.distinct) == (32, 2)
    text = pd.Series(pd.Categorical([f"patient {i} seen by Dr Smith, stable" for i in range(8)]))
    assert screening.examine(text, "x").what == "free text"


def test_sensitive_names():
    assert screening.looks_sensitive("diagnosis_code") and screening.looks_sensitive("ICD10")
    assert screening.looks_sensitive("salary-class") and screening.looks_sensitive("Income")
    assert not screening.looks_sensitive("zip") and not screening.looks_sensitive("age")


# ----------------------------------------------------------------------------- resolve_roles


def test_no_roles_refuses_the_suspects_with_evidence_and_fixes():
    with pytest.raises(pdanon.RoleError) as err:
        resolve_roles(frame())
    # score would be a quasi-identifier, published as ranges: its unique values show nowhere
    assert str(err.value) == (
        "column 'id' has no role and looks like it identifies people; pdanon publishes no "
        "column without a decision:\n"
        "  - 'id': its name looks like an identifier; no value repeats in 100 rows\n"
        "Decide: identifiers=['id'] drops it (or df.anon.hash_identifiers pseudonymizes it); "
        "insensitive=['id'] publishes it unchanged on purpose.")
    assert isinstance(err.value, ValueError)  # a pdanon InvalidInputError
    with pytest.raises(pdanon.RoleError, match="'score': unique or nearly"):
        resolve_roles(frame(), quasi_identifiers=["age", "sex"], identifiers=["id"])


def test_inferred_roles_are_listed_in_one_warning():
    with pytest.warns(pdanon.RoleWarning) as caught:
        r = resolve_roles(frame(), identifiers=["id"], insensitive=["score"])
    assert len(caught) == 1
    assert str(caught[0].message) == (
        "pdanon chose roles for the columns you did not name: quasi-identifiers 'age' (real), "
        "'sex' (unordered); sensitive 'disease' (unordered, its name). Pass roles to decide "
        "yourself (identifiers=, quasi_identifiers=, sensitive=, insensitive=, or "
        "df.anon.with_schema(pdanon.schema(...))).")
    # the column that sounds sensitive is never made a quasi-identifier
    assert r.qi == ["age", "sex"] and r.sensitive == {"disease": "unordered"}
    assert r.inferred == {"age": "quasi_identifier", "sex": "quasi_identifier",
                          "disease": "sensitive"}


def test_columns_left_out_of_given_roles_are_examined_too():
    df = frame()
    with pytest.raises(pdanon.RoleError, match="'id'.*'score'"):
        resolve_roles(df, quasi_identifiers=["age", "sex"], sensitive=["disease"])
    df = df.assign(score=df["score"].round(1))  # ten values: no longer nearly unique
    with pytest.warns(pdanon.RoleWarning, match=r"insensitive \(published unchanged\) 'score'"):
        r = resolve_roles(df, quasi_identifiers=["age", "sex"], sensitive=["disease"],
                          identifiers=["id"])
    assert r.insensitive == ("score",)


def test_every_role_given_means_nothing_is_examined_or_said():
    with no_warning():
        r = resolve_roles(frame(), identifiers=["id"], quasi_identifiers=["age", "sex"],
                          sensitive=["disease"], insensitive=["score"])
    assert r.inferred == {}
    # a column you name yourself is your decision, even one that looks like an identifier
    with no_warning():
        r = resolve_roles(frame(), quasi_identifiers={"id": "unordered"},
                          insensitive=["age", "sex", "score", "disease"])
    assert r.qi == ["id"]


def test_screen_modes():
    df = frame()
    with pytest.warns(pdanon.RoleWarning, match="counted as quasi-identifiers here"):
        assert resolve_roles(df, screen="warn").qi[0] == "id"
    with no_warning():
        assert resolve_roles(df, screen="ignore").qi == ["id", "age", "sex", "score"]
    with pytest.raises(pdanon.InvalidInputError, match="screen must be one of"):
        resolve_roles(df, screen="drop")


def test_remembered_roles_and_columns_added_later():
    df = frame().drop(columns=["id", "score"])
    safe = df.anon.with_schema(pdanon.schema(quasi_identifiers={"age": "real", "sex": "unordered"},
                                             sensitive={"disease": "unordered"}))
    with no_warning():
        assert safe.anon.roles().qi == ["age", "sex"]
    later = safe.assign(patient_id=[f"P{i}" for i in range(len(safe))])
    with pytest.raises(pdanon.RoleError, match="'patient_id'"):
        later.anon.k_anonymize(5)


def test_digit_strings_taken_as_unordered_warn_with_the_fix():
    df = pd.DataFrame({"zip": ["04777", "02111", "10001"] * 20, "sex": ["F", "M"] * 30})
    with pytest.warns(pdanon.KindWarning, match=r"pd\.to_numeric\(df\['zip'\]\)") as caught:
        resolve_roles(df, quasi_identifiers=["zip", "sex"])
    assert "'04777'" in str(caught[0].message)
    with warnings.catch_warnings(action="error", category=pdanon.KindWarning):
        resolve_roles(df, quasi_identifiers={"zip": "unordered", "sex": "unordered"})


# ----------------------------------------------------------------------------- the faces


def discharges():
    return pdanon.datasets.make_discharges(600, seed=2)


DECIDED = dict(identifiers=["patient_id", "name", "note"],
               quasi_identifiers={"zip": "unordered", "sex": "unordered"},
               sensitive=["diagnosis"],
               insensitive=["birth_date", "admission_date", "discharge_date", "ethnicity",
                            "charges", "weight"])


def test_the_discharge_table_is_refused_until_every_column_is_decided():
    d = discharges()
    with pytest.raises(pdanon.RoleError) as err:
        d.anon.k_anonymize(5, quasi_identifiers=["zip", "sex"], sensitive=["diagnosis"])
    text = str(err.value)
    for col in ("patient_id", "name", "note", "birth_date", "charges"):
        assert f"'{col}'" in text
    assert "'zip'" not in text.split("Decide")[0] and "'weight'" not in text
    with pytest.warns(pdanon.RoleWarning, match="'ethnicity'"):
        out = d.anon.k_anonymize(5, quasi_identifiers={"zip": "unordered", "sex": "unordered"},
                                 sensitive=["diagnosis"], identifiers=["patient_id", "name", "note"],
                                 insensitive=["birth_date", "charges"])
    assert not {"patient_id", "name", "note"} & set(out.columns)
    with no_warning():
        out = d.anon.k_anonymize(5, **DECIDED)
    assert not {"patient_id", "name", "note"} & set(out.columns)


FACES = {
    "k_anonymize": lambda d, **r: d.anon.k_anonymize(5, **r),
    "l_diversify": lambda d, **r: d.anon.l_diversify(2, **r),
    "t_close": lambda d, **r: d.anon.t_close(0.5, **r),
    "anonymize": lambda d, **r: d.anon.anonymize(pdanon.models.KAnonymity(3), **r),
    "generalize": lambda d, **r: d.anon.generalize(
        {"sex": 1}, hierarchies={"sex": pdanon.hierarchy.tree({"*": ["F", "M"]})}, **r),
    "shuffle": lambda d, **r: d.anon.shuffle(["sex"], seed=0, **r),
    "randomize": lambda d, **r: d.anon.randomize(["weight"], seed=0, **r),
    "microaggregate": lambda d, **r: d.anon.microaggregate(3, **r),
    "pram": lambda d, **r: d.anon.pram(["sex"], seed=0, **r),
    "top_code": lambda d, **r: d.anon.top_code(["weight"], threshold=200, **r),
    "add_noise": lambda d, **r: d.anon.add_noise(["weight"], seed=0, **r),
    "local_suppression": lambda d, **r: d.anon.local_suppression(3, **r),
    "hash_identifiers": lambda d, **r: d.anon.hash_identifiers(key=b"k" * 32, **r),
    "drop_identifiers": lambda d, **r: d.anon.drop_identifiers(**r),
}


@pytest.mark.parametrize("face", sorted(FACES))
def test_every_face_refuses_an_undecided_identifier(face):
    d = discharges()
    partial = dict(quasi_identifiers={"zip": "unordered", "sex": "unordered"},
                   sensitive=["diagnosis"], identifiers=["patient_id", "name"],
                   insensitive=["birth_date", "admission_date", "discharge_date", "ethnicity",
                                "charges", "weight"])
    with pytest.raises(pdanon.RoleError, match="'note': free text"):
        FACES[face](d, **partial)
    with no_warning():
        out = FACES[face](d, **DECIDED)
    assert not {"patient_id", "name", "note"} & set(out.columns) or face == "hash_identifiers"


def test_generalize_drops_declared_identifiers():
    d = discharges()
    out = d.anon.generalize({"sex": 1}, hierarchies={"sex": pdanon.hierarchy.tree(
        {"*": ["F", "M"]})}, **DECIDED)
    assert "name" not in out.columns and out.anon.info["dropped_identifiers"] == [
        "patient_id", "name", "note"]


def test_metrics_keep_the_quasi_identifiers_and_warn():
    df = frame()
    with pytest.warns(pdanon.RoleWarning, match="counted as quasi-identifiers here"):
        assert df.anon.k_anonymity() == 1  # id is still a quasi-identifier
    with pytest.warns(pdanon.RoleWarning, match="counted as quasi-identifiers here"):
        assert pdanon.metrics.k_anonymity(df) == 1
    with no_warning():
        assert df.anon.k_anonymity(quasi_identifiers=["sex"]) == df["sex"].value_counts().min()


def test_the_warning_points_at_the_caller():
    df = frame().drop(columns=["id", "score"])
    with pytest.warns(pdanon.RoleWarning) as caught:
        df.anon.k_anonymize(5)
    assert [w.filename for w in caught] == [__file__]


def test_classic_api_refuses_default_left_identifiers():
    from pdanon.algorithms import Datafly

    d = discharges()[["patient_id", "zip", "sex"]]
    with pytest.raises(pdanon.RoleError, match=r"column 0 \('patient_id'\)"):
        Datafly(3, ["unordered"] * 3).depersonalize(d)
    table, _ = Datafly(3, ["unordered"] * 2).depersonalize(d, identifiers_ids=[0])
    assert "patient_id" not in table.columns
    # naming the quasi-identifiers yourself is a decision
    Datafly(3, ["unordered"] * 3).depersonalize(d, quasi_identifiers_ids=[0, 1, 2])


def test_dask_refuses_too():
    dd = pytest.importorskip("dask.dataframe")
    import pdanon.dask  # noqa: F401

    ddf = dd.from_pandas(discharges(), npartitions=3)
    with pytest.raises(pdanon.RoleError, match="'charges': unique or nearly"):
        ddf.anon.k_anonymize(5, quasi_identifiers={"zip": "unordered", "sex": "unordered"},
                             sensitive=["diagnosis"], identifiers=["patient_id", "name", "note",
                                                                   "birth_date"])
    with no_warning():
        out = ddf.anon.k_anonymize(5, **DECIDED)
    assert not {"patient_id", "name", "note"} & set(out.columns)


# ----------------------------------------------------------------------------- the index


def test_an_index_of_record_ids_is_refused_before_anything_is_published():
    """A release keeps its index (Parquet writes it, the report lists suppressed rows by
    it): an index of MRNs identifies people as a column would."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(20, 90, 100), "sex": ["F", "M"] * 50,
                       "dx": ["flu", "hiv"] * 50},
                      index=pd.Index([f"MRN{i:05d}" for i in range(100)], name="mrn"))
    roles = dict(quasi_identifiers={"age": "real", "sex": "unordered"}, sensitive=["dx"])
    with pytest.raises(pdanon.RoleError) as caught:
        df.anon.k_anonymize(5, **roles, row_order="input")
    text = str(caught.value)
    assert "index level 'mrn': its name looks like an identifier; no value repeats in 100 " \
           "rows" in text
    assert "df.reset_index(drop=True) drops it" in text
    assert "MRN00" not in text  # the evidence never shows a value
    out = df.reset_index(drop=True).anon.k_anonymize(5, **roles, row_order="input")
    assert out.index.equals(pd.RangeIndex(100))
    # an unnamed index of unique text, dates of birth, or a MultiIndex level: refused too
    for index in (pd.Index([f"P{i}" for i in range(100)]),
                  pd.MultiIndex.from_arrays([np.arange(100), pd.date_range(
                      "1950-01-01", periods=100)], names=[None, "dob"])):
        with pytest.raises(pdanon.RoleError, match="the index looks like it identifies"):
            df.set_axis(index).anon.k_anonymize(5, **roles, row_order="input")
    # row numbers (a RangeIndex, or the integers a filter leaves) and repeated labels pass
    kept = df.reset_index(drop=True)
    assert len(kept[kept["age"] > 30].anon.k_anonymize(5, **roles, row_order="input"))
    assert len(df.set_axis(pd.Index(["a", "b"] * 50, name="ward")).anon.k_anonymize(5, **roles, row_order="input"))


def test_the_index_is_not_examined_by_the_measures():
    df = pd.DataFrame({"age": list(range(60)), "d": ["a", "b"] * 30},
                      index=pd.Index([f"MRN{i:05d}" for i in range(60)], name="mrn"))
    assert df.anon.k_anonymity(quasi_identifiers=["age"]) == 1  # nothing is published


# ----------------------------------------------------------------------------- by content
# (pdanon/screening/content.py, pdanon/screening/names.py: what the cells hold, whatever the column is called)


GIVEN = ["Ann", "John", "Maria", "Peter", "Mary", "James", "Laura", "Karen", "David", "Susan"]
LAST = ["Lee", "Smith", "Garcia", "Miller", "Jones", "Brown", "Davis", "Wilson", "Moore",
        "Taylor"]


def test_person_names_under_a_neutral_name():
    names = pd.Series([f"{g} {s}" for g in GIVEN for s in LAST] * 2)
    s = screening.examine(names, "col3")
    assert s.what == "identifier"
    assert s.evidence == ("holds person names: of 100 distinct values, 100 are two to four "
                          "capitalized words, 100 of them beginning with a given name, 100 "
                          "ending with a surname of the census name list")
    # the given name after a comma; capitals; surnames alone
    assert screening.examine(pd.Series([f"{s.upper()}, {g.upper()}" for g in GIVEN
                                        for s in LAST]), "v").what == "identifier"
    surnames = pd.Series(LAST + ["Clark", "Lewis", "Walker", "Hall", "Young", "Allen", "King",
                                 "Wright", "Scott", "Green"] * 5)
    assert "20 are one capitalized word, 20 of them" in screening.examine(surnames, "k").evidence


def test_adult_like_categories_and_places_pass_though_some_are_surnames():
    rng = np.random.default_rng(0)
    # 'White', 'Black', 'Private', 'England', 'Jamaica' are surnames or given names too
    for values in (["White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other"],
                   ["Private", "Self-emp-not-inc", "Local-gov", "State-gov", "Without-pay"],
                   ["United-States", "England", "Jamaica", "Germany", "India", "China", "Cuba",
                    "Mexico", "France", "Canada", "Poland", "Ireland", "Italy", "Japan",
                    "Philippines", "Vietnam", "Peru", "Haiti", "Honduras", "Scotland",
                    "Greece", "Iran", "Laos", "Thailand", "Portugal"],
                   ["Houston", "Phoenix", "Dallas", "Austin", "Chicago", "Seattle", "Detroit",
                    "Boston", "Denver", "Miami", "Atlanta", "Tucson", "Fresno", "Omaha",
                    "Tulsa", "Wichita", "New York", "Los Angeles", "San Diego", "El Paso"]):
        col = pd.Series(rng.choice(values, 500))
        assert screening.examine(col, "x") is None, values
    # twenty distinct names at least: nineteen surnames as categories say nothing
    assert screening.examine(pd.Series(LAST[:9] * 20), "x") is None


BIRTHS = pd.Series(pd.to_datetime(np.random.default_rng(1).integers(-12_000, 12_000, 500),
                                  unit="D"))  # 1937 .. 2002


@pytest.mark.parametrize("form", [None, "%d.%m.%Y", "%m/%d/%Y", "%Y-%m-%d", "%Y%m%d"])
def test_dates_of_birth_under_a_neutral_name(form):
    col = BIRTHS if form is None else BIRTHS.dt.strftime(form)
    s = screening.examine(col, "geb_dat")
    assert s.what == "date of birth"
    assert s.evidence.startswith("its values look like dates of birth: ")
    assert "from 1937 to 2002" in s.evidence and "df['geb_dat'].dt.year" in s.evidence
    # as a quasi-identifier to be published in ranges: refused all the same (a local
    # recoding's range shows exact birthdays as its bounds)
    assert screening.examine(col, "geb_dat", ranges=True) is not None


def test_event_dates_pass():
    rng = np.random.default_rng(2)
    admitted = pd.Series(pd.Timestamp("2023-01-01")
                         + pd.to_timedelta(rng.integers(0, 3 * 365, 2000), unit="D"))
    assert screening.examine(admitted, "d1") is None  # three years: not births
    # (published as ranges, as an inferred quasi-identifier is, unique values are no
    # evidence:) times of day are events, however spread; dates to come; five dates
    stamps = BIRTHS + pd.to_timedelta(rng.integers(1, 86_400, 500), unit="s")
    assert screening.examine(stamps, "d1", ranges=True) is None
    assert screening.examine(BIRTHS + pd.DateOffset(years=60), "d1", ranges=True) is None
    assert screening.examine(pd.Series(BIRTHS[:5].tolist() * 100), "d1") is None
    # a year of birth is no date of birth by its name; a place of birth neither
    assert screening.examine(pd.Series(["Mexico", "Peru"] * 50), "country_of_birth") is None
    assert screening.examine(pd.Series([1950, 1960] * 50), "birth_year", ranges=True) is None



@settings(max_examples=30, deadline=None)
@given(first=st.integers(1920, 1990), years=st.integers(20, 35), n=st.integers(60, 3000),
       seed=st.integers(0, 2 ** 32 - 1), event_years=st.integers(1, 10))
def test_property_birth_dates_refused_event_dates_pass(first, years, n, seed, event_years):
    """Dates without a time spread over 20 years or more in the past: refused, whatever the
    rows; dates of a stretch of ten years or less: passed, however many distinct."""
    rng = np.random.default_rng(seed)
    start = pd.Timestamp(f"{first}-01-01")
    born = pd.Series(start + pd.to_timedelta(rng.integers(0, 365 * years, n), unit="D"))
    assert screening.examine(born, "x").what == "date of birth"
    event = pd.Series(start + pd.to_timedelta(rng.integers(0, 365 * event_years, n), unit="D"))
    assert screening.examine(event, "x", ranges=True) is None


def test_obfuscated_email_addresses():
    cells = pd.Series(["john at example dot com", "mary.lee[at]mail.org", "k.m (at) uni-bonn "
                       "(dot) de", "ann @ web.de", "met at home at noon", "seen at St. Mary "
                       "hospital.", "arrived at clinic.Stable", "called at 5 pm"])
    assert screening.contact_details(cells) == {"obfuscated e-mail addresses": 4}
    notes = pd.Series(["stable"] * 60 + ["write to john (at) example (dot) com"])
    assert screening.examine(notes, "status").evidence == (
        "holds contact details: obfuscated e-mail addresses in 1 of 61 cells")


def test_id_numbers_without_separators():
    rng = np.random.default_rng(3)
    ssn = pd.Series([f"{v:09d}" for v in rng.integers(1, 10 ** 9, 100)][:70] * 2)
    s = screening.examine(ssn, "n1")
    assert s.evidence == ("holds national-id-like numbers: 140 of 140 cells are numbers of 9 "
                          "digits without separators, 70 of them distinct")
    # integers published unchanged; as ranges (an inferred numeric quasi-identifier) they pass
    ints = pd.Series(rng.integers(10 ** 8, 10 ** 9, 70).tolist() * 2)
    assert screening.examine(ints, "n2").what == "identifier"
    assert screening.examine(ints, "n2", ranges=True) is None
    # codes repeat: ZIP codes, an 11-digit drug code of 40 drugs, an ICD code
    zips = pd.Series([f"{v:05d}" for v in rng.integers(1000, 99_999, 1000)])
    ndc = pd.Series([f"{v:011d}" for v in rng.integers(10 ** 9, 10 ** 10, 40)] * 25)
    for col in (zips, ndc, pd.Series(["E11.9", "I10"] * 50)):
        assert screening.examine(col, "code_x", ranges=True) is None


def test_free_text_under_placeholders():
    notes = pd.Series(["none"] * 500 + ["n/a", "-"] * 100
                      + [f"fell at home on day {i}, daughter called the ward" for i in range(30)])
    s = screening.examine(notes, "info")
    assert s.what == "free text"
    assert s.evidence == ("free text among placeholders: 30 distinct texts in the 30 cells not "
                          "placeholders (700 of 730 cells read none, n/a or the like), median "
                          "48 characters")
    # set phrases among placeholders are no free text
    phrases = pd.Series(["none"] * 500 + ["stable, no complaints", "discharged home today",
                                          "follow up in two weeks"] * 30)
    assert screening.examine(phrases, "info") is None


def test_an_index_of_record_numbers_is_refused_whatever_its_name():
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"age": rng.integers(20, 90, 100), "sex": ["F", "M"] * 50})
    roles = dict(quasi_identifiers={"age": "real", "sex": "unordered"})
    numbers = pd.Index(rng.choice(np.arange(10_000_000, 99_999_999), 100, replace=False))
    for name in (None, "row"):
        with pytest.raises(pdanon.RoleError) as caught:
            df.set_axis(numbers.rename(name)).anon.k_anonymize(5, **roles)
        assert "unique record numbers: 100 distinct integers of 8 digits, not consecutive" in \
            str(caught.value)
    # the rows a filter or a slice leaves of a long frame: numbers of several lengths, or
    # consecutive ones
    for kept in (pd.Index(np.sort(rng.choice(2_000_000, 100, replace=False))),
                 pd.RangeIndex(1_400_000, 1_400_100).astype("int64")):
        assert len(df.set_axis(kept).anon.k_anonymize(5, **roles)) == 100


def test_dask_reads_the_values_too():
    dd = pytest.importorskip("dask.dataframe")
    import pdanon.dask  # noqa: F401

    rng = np.random.default_rng(5)
    df = pd.DataFrame({"age": rng.integers(20, 90, 200), "sex": ["F", "M"] * 100,
                       "x7": [f"{g} {s}" for g in GIVEN for s in LAST] * 2})
    with pytest.raises(pdanon.RoleError, match="'x7': holds person names"):
        dd.from_pandas(df, npartitions=2).anon.k_anonymize(5)
