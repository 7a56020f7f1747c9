"""pdanon.partition.common: what every partitioner shares - the suppression budget
(``max_suppressed_rows``) and whether class sizes alone decide a model."""

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon.hierarchy import intervals
from pdanon.models import AllOf, KAnonymity, LDiversity
from pdanon.partition.common import check_suppression_budget, sizes_decide, suppression_budget


def test_fractions_round_down_on_the_exact_product():
    assert suppression_budget(0.1, 25, default=0) == 2  # 2.5 rows
    assert suppression_budget(0.999, 1000, default=0) == 999
    # 0.29 * 100 is 28.999999999999996 in floating point: still 29 rows
    assert suppression_budget(0.29, 100, default=0) == 29
    assert suppression_budget(np.float64(0.5), 9, default=0) == 4


def test_counts_none_and_numpy_integers():
    assert suppression_budget(None, 10, default=5) == 5
    assert suppression_budget(0, 10, default=5) == 0  # zero is a count, not "default"
    assert suppression_budget(np.int64(3), 10, default=0) == 3


@pytest.mark.parametrize("bad", [-2, -0.1, 2.5, float("nan"), float("inf"), np.bool_(True),
                                 True, "0.1", 0.0, 1.0, 3.0, np.float64(1.0)])
def test_bad_budgets_name_the_option(bad):
    with pytest.raises(pdanon.InvalidInputError, match=r"max_suppressed_rows"):
        suppression_budget(bad, 10, default=1)
    with pytest.raises(pdanon.InvalidInputError, match=r"max_suppressed_rows"):
        check_suppression_budget(bad)


def test_ambiguous_float_budgets_name_what_to_pass():
    """A float is a fraction strictly between 0 and 1; 1.0 could mean one row or every row,
    0.0 is the count 0, 5.0 is 5 rows or 5 %: each message names the value to pass."""
    cases = {1.0: "pass 1 for one row or 0.05 for 5 %", 0.0: "pass 0 to suppress no row",
             5.0: "pass 5 for 5 rows or 0.05 for 5 %", 2.5: "or 0.025 for 2.5 %",
             -1: "is negative: pass 0", float("nan"): "is not a budget"}
    for value, hint in cases.items():
        with pytest.raises(pdanon.InvalidInputError) as err:
            check_suppression_budget(value)
        assert hint in str(err.value), (value, str(err.value))
    assert [check_suppression_budget(v) for v in (None, 0, 7, 0.5, np.float64(0.05))] == [
        None, 0, 7, 0.5, 0.05]


def test_ambiguous_budget_is_refused_before_work():
    df = pd.DataFrame({"age": [30, 31, 40, 41, 50, 99], "sex": list("FMFMFM")})
    for algorithm in ("datafly", "optimal"):
        with pytest.raises(pdanon.InvalidInputError, match="pass 1 for one row"):
            df.anon.k_anonymize(2, algorithm=algorithm, max_suppressed_rows=1.0,
                                hierarchies={"age": intervals([10, 20])} if
                                algorithm == "optimal" else None)
    # the same values as int / fraction work
    out = df.anon.k_anonymize(2, algorithm="datafly", max_suppressed_rows=1)
    assert out.anon.info["suppressed_rows"] <= 1


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
    with pytest.raises(pdanon.InvalidInputError, match="pass 3 for 3 rows"):
        suppression_budget(3.0, 100, default=0)
    with pytest.raises(pdanon.InvalidInputError):
        suppression_budget(1.5, 100, default=0)
