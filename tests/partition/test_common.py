"""pdanon.partition.common: what every partitioner shares - the suppression budget
(``max_suppressed_rows``) and whether class sizes alone decide a model."""

import numpy as np
import pytest

import pdanon
from pdanon.models import AllOf, KAnonymity, LDiversity
from pdanon.partition.common import sizes_decide, suppression_budget


def test_fractions_round_down_on_the_exact_product():
    assert suppression_budget(0.1, 25, default=0) == 2  # 2.5 rows
    assert suppression_budget(0.999, 1000, default=0) == 999
    # 0.29 * 100 is 28.999999999999996 in floating point: still 29 rows
    assert suppression_budget(0.29, 100, default=0) == 29
    assert suppression_budget(np.float64(0.5), 9, default=0) == 4


def test_counts_none_and_numpy_integers():
    assert suppression_budget(None, 10, default=5) == 5
    assert suppression_budget(0, 10, default=5) == 0  # zero is a count, not "default"
    assert suppression_budget(0.0, 10, default=5) == 0
    assert suppression_budget(1.0, 10, default=0) == 1
    assert suppression_budget(np.int64(3), 10, default=0) == 3


@pytest.mark.parametrize("bad", [-2, -0.1, 2.5, float("nan"), float("inf"), np.bool_(True),
                                 "0.1"])
def test_bad_budgets_name_the_option(bad):
    with pytest.raises(pdanon.InvalidInputError, match=r"max_suppressed_rows must be a row count"):
        suppression_budget(bad, 10, default=1)


def test_sizes_decide_k_anonymity_only():
    assert sizes_decide(KAnonymity(2))
    assert not sizes_decide(LDiversity(2))
    assert not sizes_decide(AllOf(KAnonymity(2), LDiversity(2)))


# ----------------------------------------------------------------------------- moved


def test_fraction_budget():
    assert suppression_budget(None, 100, default=4) == 4
    assert suppression_budget(0.05, 100, default=4) == 5
    assert suppression_budget(7, 100, default=4) == 7
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(pdanon.InvalidInputError, match="max_suppressed_rows"):
            suppression_budget(bad, 100, default=4)


def test_suppression_budget():
    assert suppression_budget(None, 100, default=0) == 0
    assert suppression_budget(0.05, 30162, default=0) == 1508
    assert suppression_budget(7, 100, default=0) == 7
    assert suppression_budget(3.0, 100, default=0) == 3
    with pytest.raises(pdanon.InvalidInputError):
        suppression_budget(1.5, 100, default=0)
