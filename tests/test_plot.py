"""pdanon.plot: the trade-off figure and the information loss it plots."""

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon.hierarchy import intervals, masking
from pdanon.plot import information_loss, tradeoff

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

H = {"age": intervals([10, 20]), "zipcode": masking()}
ROLES = dict(quasi_identifiers=["zipcode", "age"], sensitive=["disease"])


def patients():
    return pdanon.datasets.make_patients(300, seed=3)


def test_information_loss_by_hand():
    df = pd.DataFrame({"age": [20, 30, 40, 50], "zip": ["a", "b", "c", "c"]})
    out = df.anon.generalize({"age": 1}, hierarchies={"age": intervals([20])})
    # [20, 39], [20, 39], [40, 59], [40, 59] over a span of 30: 19/30 capped at 1
    assert information_loss(df, out, ["age"]) == pytest.approx(19 / 30)
    sets = df.anon.generalize({"zip": 1}, hierarchies={"zip": {"AB": ["a", "b"], "C": ["c"]}})
    # {a, b} holds 2 of 3 values: 1/2 for two cells; c stays plain
    assert information_loss(df, sets, ["zip"]) == pytest.approx(0.25)
    supp = df.assign(age=[np.nan, 30, 40, 50])
    assert information_loss(df, supp, ["age"]) == pytest.approx(0.25)
    labels = df.anon.generalize({"age": 1}, hierarchies={"age": intervals([20])}, labels=True)
    assert information_loss(df, labels, ["age"]) == 1.0


def test_information_loss_equals_optimal_objective():
    df = pdanon.datasets.load_adult(nrows=3000)
    h = {c: pdanon.hierarchy.read_arx_csv(pdanon.datasets.adult_hierarchy_path(c))
         for c in pdanon.datasets.ADULT_QUASI_IDENTIFIERS}
    out = df.anon.k_anonymize(5, algorithm="optimal", hierarchies=h, max_suppressed_rows=0.05)
    assert information_loss(df, out) == pytest.approx(out.anon.info["publisher_only"]["objective_value"])


def test_tradeoff_over_k():
    fig, table = tradeoff(patients(), k=[2, 5, 10], hierarchies=H, max_suppressed_rows=0.05,
                          **ROLES)
    assert table["k"].tolist() == [2, 5, 10]
    assert list(table.columns) == ["k", "information_loss", "suppressed_rows",
                                   "suppressed_fraction", "classes", "seconds"]
    # optimal loss never decreases with k: every node acceptable for k + 1 is for k
    assert table["information_loss"].is_monotonic_increasing
    assert (table["suppressed_rows"] <= 15).all()
    assert len(fig.axes) == 2
    assert fig.axes[0].get_xlabel().startswith("k")


def test_tradeoff_over_l_and_t_and_existing_axes():
    import matplotlib.pyplot as plt

    fig0, ax = plt.subplots()
    fig, table = tradeoff(patients(), l=[2, 3], hierarchies=H, ax=ax, **ROLES)
    assert fig is fig0 and table["l"].tolist() == [2, 3]
    fig, table = tradeoff(patients(), t=[0.3, 0.15], k=2, hierarchies=H, **ROLES)
    assert table["t"].tolist() == [0.3, 0.15]
    assert (table["information_loss"].diff().dropna() >= -1e-12).all()
    plt.close("all")


def test_tradeoff_other_algorithm_and_unreachable():
    fig, table = tradeoff(patients(), l=[2, 6], algorithm="mondrian", **ROLES)
    # five diseases: l = 6 cannot be met and is drawn as unreachable
    assert table["information_loss"].notna().tolist() == [True, False]
    assert 0 < table["information_loss"].iloc[0] < 1
    with pytest.raises(pdanon.InvalidInputError, match="either l"):
        tradeoff(patients(), l=[2], t=[0.1], **ROLES)
