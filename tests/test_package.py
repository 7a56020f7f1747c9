"""The top-level package: lazy subpackages, public names."""

import subprocess
import sys

import pandas as pd
import pytest

import pdanon


def test_metrics_reachable_after_import_pdanon():
    df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": ["a", "b", "a", "a"]})
    assert pdanon.metrics.k_anonymity(df, ["zip"]) == 2
    assert pdanon.metrics.t_closeness(df, ["zip"], ["d"]) == 0.25


def test_heavy_subpackages_load_on_first_use_only():
    code = ("import sys, pdanon; "
            "print(sorted(m for m in ('pdanon.metrics', 'pdanon.parties', 'sklearn') "
            "if m in sys.modules)); "
            "pdanon.metrics; print('pdanon.metrics' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[0] == "[]" and out[1] == "True"


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        pdanon.nothing  # noqa: B018
    assert "metrics" in dir(pdanon)
