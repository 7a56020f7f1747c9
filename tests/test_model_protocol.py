"""The privacy-model protocol: models answer from per-class counts, and a model defined by a
user works with every partitioner that accepts any model, and with the engine's verification."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon  # noqa: F401  (registers df.anon)
from pdanon._errors import InvalidInputError, VerificationError
from pdanon.hierarchy import intervals
from pdanon.distributions import ClassCounts, SensitiveColumn, SensitiveData
from pdanon.models import (
    AllOf,
    KAnonymity,
    LDiversity,
    PrivacyModel,
    Requirements,
    TCloseness,
)


class MaxShare(PrivacyModel):
    """No sensitive value fills more than ``share`` of its class (a simple beta-likeness)."""

    name = "max-share"

    def __init__(self, share: float):
        self.share = share

    def params(self) -> dict:
        return {"share": self.share}

    def requirements(self) -> Requirements:
        return Requirements(sensitive=True, merge_monotone=True)

    def classes_ok(self, classes: ClassCounts) -> np.ndarray:
        ok = np.ones(classes.groups, dtype=bool)
        for j in range(len(classes.columns)):
            p = classes.pairs(j)
            top = np.zeros(classes.groups, dtype=np.int64)
            np.maximum.at(top, p.cls, p.count)
            ok &= top <= self.share * classes.sizes
        return ok


def max_share_by_loop(out: pd.DataFrame, qis, sensitive) -> float:
    """The largest share of one sensitive value in a published class (plain pandas)."""
    worst = 0.0
    for _, g in out.groupby([out[c].astype(str) for c in qis], dropna=False):
        worst = max(worst, g[sensitive].value_counts(dropna=False).max() / len(g))
    return worst


def table(n: int = 120, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(18, 80, n),
        "zip": rng.choice(["100", "101", "102", "200", "201"], n),
        "disease": rng.choice(["flu", "cold", "gout", "asthma"], n, p=[0.4, 0.3, 0.2, 0.1]),
    })


# ---------------------------------------------------------------------------- requirements


def test_requirements_of_builtin_models_and_their_combination():
    assert KAnonymity(4).requirements() == Requirements(
        min_size=4, exact=True, merge_monotone=True, parts_monotone=True)
    # known_only: a missing sensitive cell is no value (missing_sensitive="unknown")
    assert LDiversity(3).requirements() == Requirements(
        min_distinct=3, exact=True, sensitive=True, merge_monotone=True, parts_monotone=True,
        known_only=True)
    assert LDiversity(3, missing_sensitive="value").requirements() == Requirements(
        min_distinct=3, exact=True, sensitive=True, merge_monotone=True, parts_monotone=True)
    assert LDiversity(2.5, variant="entropy").requirements() == Requirements(
        min_distinct=3, sensitive=True, merge_monotone=True, known_only=True)
    assert TCloseness(0.2).requirements() == Requirements(sensitive=True, merge_monotone=True)
    both = AllOf(KAnonymity(5), LDiversity(2), TCloseness(0.3))
    assert both.requirements() == Requirements(min_size=5, min_distinct=2, exact=False,
                                               sensitive=True, merge_monotone=True,
                                               known_only=True)
    assert PrivacyModel().requirements() == Requirements()


def test_allof_flattens_nested_models_and_refuses_none():
    m = AllOf(KAnonymity(2), AllOf(LDiversity(2), TCloseness(0.5)))
    assert [p.name for p in m.parts()] == ["k-anonymity", "l-diversity", "t-closeness"]
    with pytest.raises(InvalidInputError, match="at least one"):
        AllOf()


# ---------------------------------------------------------------------------- classes_ok


def test_builtin_models_answer_from_counts_alone():
    # classes 0: (a, a, b), 1: (a, c), 2: (b)
    col = SensitiveColumn.from_values(np.array(["a", "a", "b", "a", "c", "b"]), "unordered",
                                      name="s")
    cc = ClassCounts.from_labels(np.array([0, 0, 0, 1, 1, 2]), SensitiveData({"s": col}))
    assert cc.sizes.tolist() == [3, 2, 1]
    assert KAnonymity(2).classes_ok(cc).tolist() == [True, True, False]
    assert LDiversity(2).classes_ok(cc).tolist() == [True, True, False]
    # whole table: a 1/2, b 1/3, c 1/6; class 1 (a 1/2, c 1/2): TV = (0 + 1/3 + 1/3) / 2
    assert TCloseness(1 / 3).classes_ok(cc).tolist() == [True, True, False]
    assert TCloseness(0.3).classes_ok(cc).tolist() == [True, False, False]
    # the same answers from a dense (classes x values) count matrix
    dense = np.array([[2, 1, 0], [1, 0, 1], [0, 1, 0]])
    cd = ClassCounts(np.array([3, 2, 1]), [col], [dense])
    assert LDiversity(2).classes_ok(cd).tolist() == [True, True, False]
    assert TCloseness(1 / 3).classes_ok(cd).tolist() == [True, True, False]


def test_a_user_model_must_implement_classes_ok():
    class Nothing(PrivacyModel):
        pass

    with pytest.raises(NotImplementedError, match="classes_ok"):
        Nothing().groups_ok(np.array([0, 0]))


# ---------------------------------------------------------------------------- a user model


@pytest.mark.parametrize("algorithm", ["mondrian", "group_join", "datafly", "equal_groups",
                                       "optimal"])
def test_user_model_works_with_every_general_partitioner(algorithm):
    df = table()
    model = AllOf(KAnonymity(3), MaxShare(0.6))
    optimal = algorithm == "optimal"  # it needs a hierarchy for a column of many values
    out = df.anon.anonymize(model, algorithm=algorithm, quasi_identifiers=["age", "zip"],
                            sensitive=["disease"], seed=0 if algorithm == "group_join" else None,
                            max_suppressed_rows=0 if optimal else None,
                            hierarchies={"age": intervals([10, 20])} if optimal else None)
    assert out.anon.info["model"] == "k-anonymity + max-share"
    published = out[out[["age", "zip"]].notna().any(axis=1)]
    assert max_share_by_loop(published, ["age", "zip"], "disease") <= 0.6
    assert published.groupby([published[c].astype(str) for c in ["age", "zip"]]).size().min() >= 3
    pd.testing.assert_frame_equal(df, table())  # input untouched


def test_user_model_is_verified_by_the_engine(monkeypatch):
    """A partitioner that returns classes violating the model makes the engine fail loudly."""
    from pdanon import engine
    from pdanon.partition import PARTITIONERS, Partition, Partitioner

    engine._load_partitioners()
    monkeypatch.setitem(PARTITIONERS, "one_row_groups",
                        Partitioner("one_row_groups",
                                    lambda enc, model, **kw: Partition(np.arange(enc.n))))
    df = table(20)
    with pytest.raises(VerificationError, match=r"MaxShare\(share=0.5\)"):
        df.anon.anonymize(MaxShare(0.5), algorithm="one_row_groups",
                          quasi_identifiers=["age", "zip"], sensitive=["disease"])


def test_partitioners_that_cannot_express_a_user_model_say_so():
    df = table(30)
    with pytest.raises(InvalidInputError, match="nearest"):
        df.anon.anonymize(MaxShare(0.6), algorithm="nearest", quasi_identifiers=["age", "zip"],
                          sensitive=["disease"])
    with pytest.raises(InvalidInputError, match="exact"):
        df.anon.anonymize(MaxShare(0.6), algorithm="exact", quasi_identifiers=["age", "zip"],
                          sensitive=["disease"])


def test_anonymize_refuses_what_is_not_a_model():
    with pytest.raises(InvalidInputError, match="PrivacyModel"):
        table(10).anon.anonymize(5)


def test_auto_with_a_user_model_picks_mondrian():
    out = table(60).anon.anonymize(MaxShare(0.7), quasi_identifiers=["age", "zip"],
                                   sensitive=["disease"])
    assert out.anon.info["algorithm"] == "mondrian"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(10, 60), st.integers(0, 10_000), st.sampled_from([0.5, 0.6, 0.8]))
def test_user_model_holds_on_random_tables(n, seed, share):
    df = table(n, seed)
    # feasible only when the whole table meets the share
    if df["disease"].value_counts().max() > share * n:
        return
    out = df.anon.anonymize(MaxShare(share), algorithm="mondrian",
                            quasi_identifiers=["age", "zip"], sensitive=["disease"])
    assert max_share_by_loop(out, ["age", "zip"], "disease") <= share + 1e-12
