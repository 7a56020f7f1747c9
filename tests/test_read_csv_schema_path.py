"""pdanon.read_csv reads a release back with the schema file itself: a path was silently
ignored before (the columns came back as text and check() measured k = 1 on a 5-anonymous
release)."""

from __future__ import annotations

import pathlib

import pandas as pd
import pytest

import pdanon
from pdanon._errors import InvalidInputError


@pytest.fixture()
def written(tmp_path):
    df = pd.DataFrame({"age": [30, 31, 32, 40, 41, 42], "zip": ["01002"] * 3 + ["02139"] * 3,
                       "diag": list("abcabc")})
    out = df.anon.k_anonymize(3, quasi_identifiers=["age", "zip"], sensitive=["diag"])
    out.to_csv(tmp_path / "rel.csv", index=False)
    (tmp_path / "rel.yaml").write_text(pdanon.schema_to_yaml(out.anon.schema))
    return tmp_path, out


@pytest.mark.parametrize("as_path", [str, pathlib.Path])
def test_a_schema_path_reads_the_release_back(written, as_path):
    d, out = written
    by_path = pdanon.read_csv(d / "rel.csv", schema=as_path(d / "rel.yaml"))
    by_object = pdanon.read_csv(d / "rel.csv",
                                schema=pdanon.schema_from_yaml(str(d / "rel.yaml")))
    pd.testing.assert_frame_equal(by_path, by_object)
    assert isinstance(by_path["age"].dtype, pdanon.GeneralizationDtype)
    assert by_path.anon.k_anonymity() == out.anon.k_anonymity() == 3


def test_a_schema_that_is_not_a_file_or_a_schema_is_refused(written):
    d, _ = written
    with pytest.raises(InvalidInputError, match="is not a file"):
        pdanon.read_csv(d / "rel.csv", schema=str(d / "missing.yaml"))
    with pytest.raises(InvalidInputError, match="schema must be"):
        pdanon.read_csv(d / "rel.csv", schema=42)
