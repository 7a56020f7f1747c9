"""pdanon.partition.auto.choose: which partitioner ``algorithm="auto"`` runs, and the reason the
engine records (tests/test_engine.py checks that ``info`` carries them)."""

from types import SimpleNamespace

import pytest

from pdanon.models import AllOf, KAnonymity, LDiversity, TCloseness
from pdanon.partition.auto import AUTO_MONDRIAN_ROWS, choose


def table(n):
    """``choose`` reads only the row count of the encoded table."""
    return SimpleNamespace(n=n)


def test_the_threshold_is_5000_rows():
    assert AUTO_MONDRIAN_ROWS == 5_000
    assert choose(table(4_999), KAnonymity(5), {}) == ("nearest", "nearest (4,999 rows < 5,000)")
    assert choose(table(5_000), KAnonymity(5), {}) == ("mondrian",
                                                       "mondrian (5,000 rows >= 5,000)")
    assert choose(table(1), KAnonymity(1), {}) == ("nearest", "nearest (1 rows < 5,000)")


@pytest.mark.parametrize("model", [KAnonymity(2), LDiversity(2),
                                   AllOf(KAnonymity(3), LDiversity(2))])
def test_models_decided_by_sizes_and_distinct_values_use_nearest(model):
    assert choose(table(100), model, {}) == ("nearest", "nearest (100 rows < 5,000)")


@pytest.mark.parametrize("model", [LDiversity(1.5, variant="entropy"),
                                   LDiversity(2, variant="recursive", c=3), TCloseness(0.2),
                                   AllOf(KAnonymity(3), TCloseness(0.2))])
def test_other_models_use_mondrian(model):
    assert choose(table(100), model, {}) == (
        "mondrian", "mondrian (nearest supports k-anonymity and distinct l-diversity only)")


def test_a_suppression_budget_alone_keeps_nearest_other_options_do_not():
    assert choose(table(40), KAnonymity(2), {"max_suppressed_rows": 3})[0] == "nearest"
    assert choose(table(40), KAnonymity(2), {"seed": 1, "max_suppressed_rows": 3}) == (
        "mondrian", "mondrian (options ['max_suppressed_rows', 'seed'] are not nearest's)")


def test_hierarchies_choose_optimal_before_every_other_rule():
    why = "optimal (hierarchies given: optimal full-domain generalization)"
    for n, model in ((10, KAnonymity(2)), (50_000, KAnonymity(2)), (10, TCloseness(0.1))):
        assert choose(table(n), model, {"hierarchies": {"age": object()}}) == ("optimal", why)
