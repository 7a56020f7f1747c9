"""Roles and kinds: resolution, inference, pandera schemas (``df.anon.with_schema`` is in
tests/test_accessor.py)."""

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pytest

import pdanon
from pdanon.roles import infer_kind, resolve_roles
from tests._helpers.frames import roles_frame as frame


def test_infer_kind():
    df = frame()
    assert infer_kind(df["age"]) == "real"
    assert infer_kind(df["edu"]) == "ordered"
    assert infer_kind(df["sex"]) == "unordered"
    assert infer_kind(df["flag"]) == "unordered"
    assert infer_kind(pd.Series(pd.Categorical(["a"]))) == "unordered"
    assert infer_kind(pd.Series(pd.to_datetime(["2020-01-01"]))) == "ordered"


def test_default_roles_all_quasi_identifiers():
    # with no roles every column is a quasi-identifier, except one whose name sounds
    # sensitive; "name" looks like an identifier: refused unless nobody publishes
    # (tests/test_screening.py has the rules)
    with pytest.raises(pdanon.RoleError, match="'name'"):
        resolve_roles(frame())
    r = resolve_roles(frame(), screen="ignore")
    assert r.qi == ["name", "age", "edu", "sex", "flag"]
    assert r.identifiers == () and r.sensitive == {"disease": "unordered"}


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
    from pdanon.roles import roles_from_schema, schema_from_yaml, schema_to_yaml

    back = schema_from_yaml(schema_to_yaml(s))
    assert isinstance(back, pa.DataFrameSchema)
    assert back.columns["age"].metadata == {"role": "quasi_identifier", "kind": "real"}
    assert back.columns["name"].metadata == {"role": "identifier"}
    assert roles_from_schema(back)["quasi_identifiers"] == {"age": "real", "sex": "unordered"}
    assert roles_from_schema(back)["insensitive"] == ["flag"]


def test_infer_schema():
    s = pdanon.infer_schema(frame(), identifiers=["name"], sensitive=["disease"])
    assert s.columns["edu"].metadata == {"role": "quasi_identifier", "kind": "ordered",
                                         "dtype": "category", "categories": ["lo", "hi"],
                                         "ordered": True}
    assert s.columns["disease"].metadata == {"role": "sensitive", "kind": "unordered",
                                             "dtype": "str"}
    assert s.columns["age"].metadata["dtype"] == "int64"


def test_schema_carries_the_categories_of_generalized_columns_through_yaml():
    from pdanon.roles import schema_from_yaml, schema_to_yaml

    df = pd.DataFrame({
        "edu": pd.array(["hi", pdanon.GeneralizationRange("lo", "hi", "ordered")],
                        dtype=pdanon.GeneralizationDtype("ordered", ["lo", "hi"])),
        "sex": pd.array([{"F", "M"}, "F"], dtype="generalization[unordered]"),
    })
    s = df.anon.schema
    assert s.columns["edu"].metadata == {"role": "quasi_identifier", "kind": "ordered",
                                         "dtype": "generalization[ordered]",
                                         "categories": ["lo", "hi"]}
    assert s.columns["sex"].metadata["categories"] == ["F", "M"]
    back = schema_from_yaml(schema_to_yaml(s))
    assert back.columns["edu"].metadata == s.columns["edu"].metadata
    assert back.columns["sex"].metadata == s.columns["sex"].metadata


def test_schema_columns_need_a_role():
    with pytest.raises(pdanon.InvalidInputError, match=r"describes column\(s\) \['x'\]"):
        pdanon.schema(quasi_identifiers={"a": "real"}, columns={"x": {"dtype": "int64"}})


def test_errors_name_the_column_and_fix():
    with pytest.raises(pdanon.UnknownColumnError, match=r"unknown sensitive column\(s\) \['dis'\]"):
        resolve_roles(frame(), sensitive=["dis"])
    with pytest.raises(pdanon.KindError, match="unknown kind 'nominal'"):
        pdanon.schema(quasi_identifiers={"a": "nominal"})
    with pytest.raises(pdanon.InvalidInputError, match="two roles"):
        pdanon.schema(identifiers=["a"], quasi_identifiers={"a": "real"})
    with pytest.raises(TypeError, match="DataFrame"):
        resolve_roles(np.zeros(3))


def test_the_schema_function_and_the_roles_module_have_different_names():
    import types

    import pdanon
    import pdanon.roles

    assert isinstance(pdanon.roles, types.ModuleType)
    assert callable(pdanon.schema) and not isinstance(pdanon.schema, types.ModuleType)
    assert pdanon.schema is pdanon.roles.schema


def test_integer_column_names_keep_their_roles_through_parquet(tmp_path):
    """Parquet writes attrs as JSON, which turns the column name 0 into the text "0": the
    roles were lost and k was measured over no quasi-identifier (4 instead of 2)."""
    import warnings

    df = pd.DataFrame({0: [30, 31, 40, 41], 1: ["a", "a", "b", "b"], 2: list("xyxy")})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.k_anonymize(2, quasi_identifiers={0: "real", 1: "unordered"},
                                  sensitive=[2])
    out.to_parquet(tmp_path / "r.parquet")
    back = pd.read_parquet(tmp_path / "r.parquet")
    assert back.anon.k_anonymity() == out.anon.k_anonymity() == 2
    assert back.anon.l_diversity() == out.anon.l_diversity()
    assert back.anon.l_diversify(2).anon.l_diversity() >= 2  # chaining reads its roles too
