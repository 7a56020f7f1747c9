"""Disclosure risk of perturbed numbers (pdanon.metrics.linkage): interval disclosure
(sdcMicro's dRisk), distance-based record linkage with exact ties, and the RMD variant
(dRiskRMD), on hand-checked tables and against direct n x n transcriptions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.metrics import linkage_risk, linkage_summary, rmd_disclosure


def test_hand_checked_interval_and_ties():
    orig = pd.DataFrame({"x": [1.0, 2.0, 10.0, 11.0], "y": [5.0, 5.0, 5.0, 6.0]})
    pert = pd.DataFrame({"x": [1.5, 1.5, 10.5, 11.0], "y": [5.0, 5.0, 5.0, 6.0]})
    r = linkage_risk(orig, pert)
    assert r.attrs["columns"] == ["x"]  # y was not perturbed
    # sd of the perturbed x is 5.20: k = 0.05 gives +-0.26; only the unchanged row is inside
    assert r["interval"].tolist() == [False, False, False, True]
    assert linkage_risk(orig, pert, k=0.1)["interval"].tolist() == [True, True, True, True]
    # rows 0 and 1 both sit half-way between originals 1 and 2: a tie of two each
    assert r["linkage"].tolist() == [0.5, 0.5, 0.5, 1.0]
    # with y too, (10.5, 5) is nearer its own (10, 5) than (11, 6)
    both = linkage_risk(orig, pert, columns=["x", "y"])
    assert both["linkage"].tolist() == [0.5, 0.5, 1.0, 1.0]


def test_missing_cells_are_left_out_of_the_linkage_and_never_outside_an_interval():
    orig = pd.DataFrame({"x": [1.0, 2.0, 3.0, np.nan]})
    pert = pd.DataFrame({"x": [1.0, 2.0, 30.0, 4.0]})
    r = linkage_risk(orig, pert)
    assert r["interval"].tolist() == [True, True, False, True]
    assert np.isnan(r["linkage"].iloc[3]) and r["linkage"].iloc[:2].tolist() == [1.0, 1.0]
    s = linkage_summary(orig, pert)
    assert s.attrs["complete_rows"] == 3
    assert s["record_linkage"] == pytest.approx(r["linkage"].iloc[:3].mean())


def _brute(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Record linkage with the full distance matrix (the definition)."""
    mean, sd = x.mean(axis=0), x.std(axis=0, ddof=1)
    sd = np.where(sd > 0, sd, 1.0)
    xs, ys = (x - mean) / sd, (y - mean) / sd
    d = np.sqrt(((ys[:, None, :] - xs[None, :, :]) ** 2).sum(axis=2))
    out = []
    for i in range(len(x)):
        best = d[i].min()
        tied = np.flatnonzero(np.isclose(d[i], best, rtol=1e-9, atol=1e-12))
        out.append(1 / len(tied) if i in tied else 0.0)
    return np.array(out)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_kd_tree_linkage_equals_the_full_distance_matrix(data):
    n = data.draw(st.integers(3, 40))
    p = data.draw(st.integers(1, 3))
    ints = st.integers(0, 6)  # small integers: many ties
    x = np.array(data.draw(st.lists(st.lists(ints, min_size=p, max_size=p), min_size=n,
                                    max_size=n)), dtype=np.float64)
    noise = np.array(data.draw(st.lists(st.lists(st.sampled_from([-1, 0, 0, 1]), min_size=p,
                                                 max_size=p), min_size=n, max_size=n)))
    cols = [f"c{j}" for j in range(p)]
    orig, pert = pd.DataFrame(x, columns=cols), pd.DataFrame(x + noise, columns=cols)
    got = linkage_risk(orig, pert, columns=cols)["linkage"].to_numpy()
    np.testing.assert_allclose(got, _brute(x, x + noise), rtol=1e-9)
    # sdcMicro's dRisk, as its R code reads
    sd = (x + noise).std(axis=0, ddof=1)
    inside = ((x >= x + noise - 0.05 * sd) & (x <= x + noise + 0.05 * sd)).all(axis=1)
    assert linkage_risk(orig, pert, columns=cols)["interval"].tolist() == inside.tolist()


def test_rmd_variant_equals_its_dense_transcription():
    from sklearn.covariance import MinCovDet

    rng = np.random.default_rng(3)
    x = rng.normal(size=(300, 3))
    y = x + rng.normal(scale=0.02, size=x.shape)
    cols = ["a", "b", "c"]
    got = rmd_disclosure(pd.DataFrame(x, columns=cols), pd.DataFrame(y, columns=cols))

    def scale(m):
        return (m - m.mean(axis=0)) / m.std(axis=0, ddof=1)

    xs, ys = scale(x), scale(y)
    cov = MinCovDet(random_state=0).fit(xs).covariance_
    rmd = 0.05 * np.sqrt(np.einsum("ij,jk,ik->i", xs, np.linalg.pinv(cov), xs))
    near = ((ys > xs - 0.01 * rmd[:, None]) & (ys < xs + 0.01 * rmd[:, None])).any(axis=1)
    d = np.sqrt(((ys[:, None] - ys[None]) ** 2).sum(axis=2))
    np.fill_diagonal(d, np.inf)
    isolated = near & (d.min(axis=1) > 0.05)
    assert got["rmd_interval_risk"] == pytest.approx(near.mean())
    assert got["rmd_isolated_risk"] == pytest.approx(isolated.mean())
    assert got["rmd_interval_weighted"] == pytest.approx(near.sum() * rmd[near].sum() / 300)
    assert 0 < got["rmd_interval_risk"] < 1


def test_metrics_and_reports_of_a_noised_release():
    df = pdanon.datasets.make_patients(400, seed=3)
    roles = dict(quasi_identifiers={"zipcode": "unordered", "age": "real"},
                 sensitive=["disease"])
    out = df.anon.add_noise(columns=["age"], seed=7, **roles)
    table = out.anon.metrics(original=df, **roles).set_index("metric")
    expected = linkage_summary(df, out)
    for key in ("interval_disclosure", "record_linkage"):
        assert table.loc[key, "value"] == pytest.approx(expected[key])
    assert out.anon.linkage_risk(df, summary=True).equals(expected)
    public, internal = out.anon.report(df, **roles), out.anon.report(df, internal=True, **roles)
    assert "record_linkage" in public.left_out  # an interval around a hidden value
    assert "record_linkage" not in set(public.metrics["metric"])
    assert "record_linkage" in set(internal.metrics["metric"])
    # nothing perturbed, nothing measured
    plain = df.anon.k_anonymize(5, algorithm="mondrian", **roles)
    assert "record_linkage" not in set(plain.anon.metrics(original=df, **roles)["metric"])
    with pytest.raises(pdanon.InvalidInputError, match="positive number"):
        linkage_risk(df, out, k=0)
    with pytest.raises(pdanon.InvalidInputError, match="not numeric in both"):
        linkage_risk(df, out, columns=["zipcode"])
