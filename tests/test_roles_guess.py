"""Columns that look like identifiers (unique integers or strings in >= 50 rows) are never
published when no roles name them (pdanon.roles.looks_like_identifier, RoleWarning)."""

import warnings

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon.roles import IDENTIFIER_MIN_ROWS, looks_like_identifier, resolve_roles

MSG = (r"column\(s\) \['id'\] look like identifiers \(integers or strings with no repeated "
       r"value in 100 rows\) and are treated as identifiers: dropped, never published\. Pass "
       r"roles to decide yourself: identifiers=\[\.\.\.\] and quasi_identifiers=\[\.\.\.\]")


def frame(n=100, ids=None):
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "id": ids if ids is not None else [f"R{i:05d}" for i in range(n)],
        "age": rng.integers(20, 60, n),
        "sex": rng.choice(["F", "M"], n),
        "score": rng.random(n),  # unique floats: never taken for an identifier
        "disease": rng.choice(["flu", "cold", "hiv"], n),
    })


def no_warning():
    return warnings.catch_warnings(action="error", category=pdanon.RoleWarning)


def test_role_warning_is_exported_user_warning():
    assert issubclass(pdanon.RoleWarning, UserWarning)
    assert "RoleWarning" in pdanon.__all__


def test_threshold_and_kinds():
    assert IDENTIFIER_MIN_ROWS == 50
    assert looks_like_identifier(pd.Series(range(50)))
    assert not looks_like_identifier(pd.Series(range(49)))
    assert looks_like_identifier(pd.Series([f"a{i}" for i in range(50)]))
    assert looks_like_identifier(pd.Series([f"a{i}" for i in range(50)], dtype=object))
    assert looks_like_identifier(pd.Series(pd.Categorical([f"a{i}" for i in range(50)])))
    assert looks_like_identifier(pd.Series(list(range(50)) + [None], dtype="Int64"))
    assert not looks_like_identifier(pd.Series(list(range(49)) + [0]))  # one repeat
    assert not looks_like_identifier(pd.Series(np.arange(60) + 0.5))  # floats
    assert not looks_like_identifier(pd.Series(pd.date_range("2020-01-01", periods=60)))
    assert not looks_like_identifier(pd.Series([1, "a"] * 30))  # mixed


def test_resolve_roles_guesses_only_without_identifier_or_qi_keywords():
    df = frame()
    with pytest.warns(pdanon.RoleWarning, match=MSG):
        r = resolve_roles(df)
    assert r.identifiers == ("id",)
    assert r.qi == ["age", "sex", "score", "disease"]
    # sensitive= alone leaves the quasi-identifiers to the default: still guessed
    with pytest.warns(pdanon.RoleWarning, match=MSG):
        r = resolve_roles(df, sensitive=["disease"])
    assert r.identifiers == ("id",) and r.qi == ["age", "sex", "score"]
    with no_warning():
        assert resolve_roles(df, identifiers=["sex"]).qi == ["id", "age", "score", "disease"]
        assert resolve_roles(df, quasi_identifiers=["id", "age"]).qi == ["id", "age"]
        assert resolve_roles(df, guess_identifiers="ignore").identifiers == ()
        assert resolve_roles(df.head(49)).identifiers == ()  # too small to tell
    with pytest.warns(pdanon.RoleWarning, match="counted as quasi-identifiers here"):
        assert resolve_roles(df, guess_identifiers="warn").qi[0] == "id"
    with pytest.raises(pdanon.InvalidInputError, match="guess_identifiers must be one of"):
        resolve_roles(df, guess_identifiers="drop")


def test_remembered_roles_win():
    df = frame()
    kept = df.anon.with_schema(pdanon.schema(quasi_identifiers={"id": "unordered"},
                                             insensitive=["age", "sex", "score", "disease"]))
    with no_warning():
        assert kept.anon.roles().qi == ["id"]


def test_infer_schema_applies_the_rule():
    with pytest.warns(pdanon.RoleWarning, match=MSG):
        s = pdanon.infer_schema(frame())
    assert s.columns["id"].metadata == {"role": "identifier"}


def test_k_anonymize_never_publishes_an_id_column():
    df = frame()
    with pytest.warns(pdanon.RoleWarning, match=MSG) as caught:
        out = df.anon.k_anonymize(5)
    assert caught[0].filename == __file__  # points at the caller
    assert "id" not in out.columns
    assert out.anon.info["dropped_identifiers"] == ["id"]
    text = repr(out.attrs) + out.to_csv()
    for c in out.columns:
        categories = getattr(out[c].dtype, "categories", None)
        if categories is not None:
            text += repr(list(categories))
    leaked = [v for v in df["id"] if v in text]
    assert leaked == []
    assert out.anon.k_anonymity() >= 5


def test_integer_ids_and_other_faces():
    df = frame(ids=np.arange(1000, 1100))
    with pytest.warns(pdanon.RoleWarning):
        out = df.anon.l_diversify(2, k=2, sensitive=["disease"])
    assert "id" not in out.columns
    with pytest.warns(pdanon.RoleWarning):
        assert "id" not in df.anon.shuffle(seed=0).columns
    with pytest.warns(pdanon.RoleWarning):
        hashed = df.anon.hash_identifiers(key=b"k" * 32)
    assert not set(hashed["id"].astype(str)) & {str(v) for v in df["id"]}


def test_metrics_keep_the_quasi_identifiers_and_warn():
    df = frame()
    with pytest.warns(pdanon.RoleWarning, match="counted as quasi-identifiers here"):
        assert df.anon.k_anonymity() == 1  # id is still a quasi-identifier
    with pytest.warns(pdanon.RoleWarning, match="counted as quasi-identifiers here"):
        assert pdanon.metrics.k_anonymity(df) == 1
    with no_warning():
        assert df.anon.k_anonymity(quasi_identifiers=["sex"]) == df["sex"].value_counts().min()
