"""The order of a release's rows (pdanon/checks/row_order.py): the hazard of an order sorted on a
quasi-identifier, and publishing in a random order."""

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon.checks.row_order import in_random_order, sorted_columns

QIS = {"zip": "unordered", "age": "real"}


def _export(n=300, seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "zip": rng.choice(["02139", "02140", "02141", "04777", "04778"], n,
                          p=[.3, .3, .3, .05, .05]),
        "age": rng.integers(20, 90, n), "dx": rng.choice(["flu", "cold", "hiv"], n)})


def test_neighbours_give_hidden_cells_back_when_the_export_was_sorted():
    """The attack the hazard is about: in a release of an export sorted by ZIP, copying the
    previous row's ZIP recovers most suppressed ZIP cells; in a random order it does not."""
    recovered = {}
    for order in ("input", "sorted"):
        df = _export()
        if order == "sorted":
            df = df.sort_values(["zip", "age"]).reset_index(drop=True)
        out = df.anon.k_anonymize(5, quasi_identifiers=QIS, sensitive=["dx"],
                                  method="suppress", algorithm="mondrian", row_order="input")
        hidden = out["zip"].isna().to_numpy()
        assert hidden.sum() >= 20
        guess = out["zip"].ffill().bfill()
        recovered[order] = (guess[hidden] == df["zip"][hidden]).mean()
    assert recovered["sorted"] > 0.35 and recovered["sorted"] > 3 * recovered["input"]
    assert [c for c, _ in sorted_columns(out, list(QIS))] == ["zip"]
    hazard = [h for h in out.anon.check().hazards if "sorted or grouped on 'zip'" in h]
    assert len(hazard) == 1 and "out.anon.in_random_order()" in hazard[0]
    # the report shows the same hazard (one verdict)
    assert any("sorted or grouped on 'zip'" in h for h in out.anon.report().verdict["hazards"])
    published = out.anon.in_random_order(seed=0)
    assert not any("sorted or grouped" in h for h in published.anon.check().hazards)
    assert published.index.tolist() == [f"r{i}" for i in range(len(out))]
    # the default: every anonymizer already returns its rows so
    default = df.anon.k_anonymize(5, quasi_identifiers=QIS, sensitive=["dx"],
                                  method="suppress", algorithm="mondrian")
    assert not any("sorted or grouped" in h for h in default.anon.check().hazards)


@pytest.mark.parametrize("seed", range(20))
def test_a_random_order_is_no_hazard(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 3000))
    df = pd.DataFrame({"a": rng.integers(0, int(rng.integers(2, 200)), n),
                       "b": rng.choice(list("abcdefgh"), n, p=np.full(8, 1 / 8)),
                       "c": rng.normal(size=n), "d": rng.choice(["x", "y"], n, p=[.9, .1])})
    assert sorted_columns(df, list(df.columns)) == []


def test_sorted_and_grouped_columns_are_found():
    n = 400
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"up": np.sort(rng.integers(0, 1000, n)),
                       "down": np.sort(rng.normal(size=n))[::-1],
                       "blocks": np.repeat(["c", "a", "d", "b"], n // 4),
                       "noise": rng.integers(0, 1000, n)})
    found = dict(sorted_columns(df, list(df.columns)))
    assert set(found) == {"up", "down", "blocks"}
    assert "kappa" in found["blocks"] and "in order" in found["up"]
    # too few rows to tell
    assert sorted_columns(df.head(10), ["up"]) == []


def test_in_random_order_keeps_the_cells_and_says_the_rows_moved():
    df = _export(60)
    out = df.anon.k_anonymize(5, quasi_identifiers=QIS, sensitive=["dx"], row_order="input")
    a, b = in_random_order(out, seed=1), out.anon.in_random_order()
    for shuffled in (a, b):
        assert shuffled.index.tolist() == [f"r{i}" for i in range(len(out))]
        pd.testing.assert_frame_equal(
            shuffled.astype(str).sort_values(list(out.columns)).reset_index(drop=True),
            out.astype(str).sort_values(list(out.columns)).reset_index(drop=True))
        info = shuffled.anon.info
        assert info["rows_match_input"] is False and info["row_order"] == "random"
        assert shuffled.anon.k_anonymity() == out.anon.k_anonymity()
    assert out.anon.info["row_order"] == "input"  # the release itself is not changed
    # the way back is kept, so the shuffled frame still compares with the input
    pd.testing.assert_frame_equal(a.anon.metrics(original=df), out.anon.metrics(original=df))
