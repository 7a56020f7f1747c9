"""Roles and kinds: resolution, inference, pandera schemas, with_schema."""

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pytest

import pdanon
from pdanon.schema import infer_kind, resolve_roles


def frame():
    return pd.DataFrame({
        "name": ["a", "b", "c"],
        "age": [30, 40, 50],
        "edu": pd.Categorical(["lo", "hi", "lo"], categories=["lo", "hi"], ordered=True),
        "sex": ["F", "M", "F"],
        "flag": [True, False, True],
        "disease": ["x", "y", "z"],
    })


def test_infer_kind():
    df = frame()
    assert infer_kind(df["age"]) == "real"
    assert infer_kind(df["edu"]) == "ordered"
    assert infer_kind(df["sex"]) == "unordered"
    assert infer_kind(df["flag"]) == "unordered"
    assert infer_kind(pd.Series(pd.Categorical(["a"]))) == "unordered"
    assert infer_kind(pd.Series(pd.to_datetime(["2020-01-01"]))) == "ordered"


def test_default_roles_all_quasi_identifiers():
    r = resolve_roles(frame())
    assert r.qi == ["name", "age", "edu", "sex", "flag", "disease"]
    assert r.identifiers == () and r.sensitive == {}


def test_keywords_and_rest_insensitive_when_qis_given():
    r = resolve_roles(frame(), identifiers="name", quasi_identifiers=["age", "edu"],
                      sensitive={"disease": "unordered"})
    assert r.identifiers == ("name",)
    assert r.quasi_identifiers == {"age": "real", "edu": "ordered"}
    assert r.sensitive == {"disease": "unordered"}
    assert r.insensitive == ("sex", "flag")


def test_remaining_columns_are_qis_when_qis_not_given():
    r = resolve_roles(frame(), identifiers=["name"], sensitive=["disease"], insensitive=["flag"])
    assert r.qi == ["age", "edu", "sex"]


def test_schema_metadata_and_yaml_roundtrip():
    s = pdanon.schema(identifiers=["name"], quasi_identifiers={"age": "real", "sex": "unordered"},
                      sensitive={"disease": "unordered"}, insensitive=["flag"])
    assert isinstance(s, pa.DataFrameSchema)
    assert s.columns["age"].metadata == {"role": "quasi_identifier", "kind": "real"}
    assert s.columns["name"].metadata == {"role": "identifier"}
    from pdanon.schema import roles_from_schema, schema_from_yaml, schema_to_yaml

    back = schema_from_yaml(schema_to_yaml(s))
    assert isinstance(back, pa.DataFrameSchema)
    assert back.columns["age"].metadata == {"role": "quasi_identifier", "kind": "real"}
    assert back.columns["name"].metadata == {"role": "identifier"}
    assert roles_from_schema(back)["quasi_identifiers"] == {"age": "real", "sex": "unordered"}
    assert roles_from_schema(back)["insensitive"] == ["flag"]


def test_with_schema_validates_and_remembers():
    df = frame()
    s = pdanon.schema(identifiers=["name"], quasi_identifiers={"age": "real", "edu": "ordered"},
                      sensitive={"disease": "unordered"}, insensitive=["sex", "flag"])
    safe = df.anon.with_schema(s)
    assert safe is not df
    assert safe.anon.roles().quasi_identifiers == {"age": "real", "edu": "ordered"}
    assert "pdanon" not in df.attrs  # input untouched
    # the roles survive selections and copies
    assert safe[["age", "edu", "disease"]].anon.roles().sensitive == {"disease": "unordered"}
    # keywords still win over remembered roles
    assert safe.anon.roles(quasi_identifiers=["sex"]).qi == ["sex"]
    assert safe.anon.schema.columns["edu"].metadata["kind"] == "ordered"


def test_with_schema_rejects_missing_column():
    s = pdanon.schema(quasi_identifiers={"zip": "unordered"})
    with pytest.raises(Exception, match="zip"):
        frame().anon.with_schema(s)


def test_infer_schema():
    s = pdanon.infer_schema(frame(), identifiers=["name"], sensitive=["disease"])
    assert s.columns["edu"].metadata == {"role": "quasi_identifier", "kind": "ordered"}
    assert s.columns["disease"].metadata == {"role": "sensitive", "kind": "unordered"}


def test_errors_name_the_column_and_fix():
    with pytest.raises(pdanon.UnknownColumnError, match=r"unknown sensitive column\(s\) \['dis'\]"):
        resolve_roles(frame(), sensitive=["dis"])
    with pytest.raises(pdanon.KindError, match="unknown kind 'nominal'"):
        pdanon.schema(quasi_identifiers={"a": "nominal"})
    with pytest.raises(pdanon.InvalidInputError, match="two roles"):
        pdanon.schema(identifiers=["a"], quasi_identifiers={"a": "real"})
    with pytest.raises(TypeError, match="DataFrame"):
        resolve_roles(np.zeros(3))


def test_keywords_override_only_the_roles_they_name():
    df = pd.DataFrame({"name": list("abcd"), "age": [30, 31, 40, 42], "d": list("xyxz"),
                       "sex": list("FFMM")})
    s = pdanon.schema(identifiers=["name"], quasi_identifiers={"age": "real", "sex": "unordered"},
                      sensitive={"d": "unordered"})
    safe = df.anon.with_schema(s)
    # a remembered identifier is never published because another role keyword was given
    out = safe.anon.k_anonymize(2, quasi_identifiers=["age"])
    assert "name" not in out.columns and out.anon.info["dropped_identifiers"] == ["name"]
    assert out["sex"].tolist() == ["F", "F", "M", "M"]  # no longer a QI: insensitive
    out = safe.anon.l_diversify(2, sensitive=["d"])
    assert "name" not in out.columns
    assert out.anon.roles().qi == ["age", "sex"]
    # a keyword can still move a remembered column to another role
    r = safe.anon.roles(quasi_identifiers=["age", "name"])
    assert r.identifiers == () and r.qi == ["name", "age"]
    assert r.sensitive == {"d": "unordered"}
