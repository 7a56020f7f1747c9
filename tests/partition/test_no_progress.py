"""Every partitioner loop that could stop advancing raises NoProgressError naming the algorithm
instead of looping forever. Each guard is forced by monkeypatching one helper to do nothing."""

import numpy as np
import pandas as pd
import pytest

from pdanon._errors import AnonymizationError, NoProgressError
from pdanon.engine import anonymize
from pdanon.models import AllOf, KAnonymity, LDiversity
from pdanon.partition import datafly as datafly_mod
from pdanon.partition import equal_groups as equal_groups_mod
from pdanon.partition import exact as exact_mod
from pdanon.partition import group_join as group_join_mod
from pdanon.partition import nearest as nearest_mod
from pdanon.partition.common import no_progress
from pdanon.roles import resolve_roles


def ages():
    return pd.DataFrame({"age": [30, 31, 40, 42, 50, 52]})


def run(df, algorithm, model=None, **options):
    return anonymize(df, resolve_roles(df), model=model or KAnonymity(2), method="generalize",
                     algorithm=algorithm, **options)


def test_the_error_names_the_algorithm_and_is_a_pdanon_error():
    err = no_progress("mondrian", "a cut left one side of a partition empty")
    assert isinstance(err, AnonymizationError) and isinstance(err, RuntimeError)
    assert str(err) == ("algorithm='mondrian' made no progress (a cut left one side of a "
                        "partition empty); this is a bug in pdanon, please report it")


def test_nearest_raises_when_a_seed_gets_an_empty_group(monkeypatch):
    monkeypatch.setattr(nearest_mod, "_k_nearest", lambda dist, k: np.zeros(0, np.int64))
    with pytest.raises(NoProgressError, match=r"^algorithm='nearest' made no progress \(the "
                       r"group of seed row 0 is empty or holds rows already grouped\)"):
        run(ages(), "nearest")


def test_datafly_raises_when_a_step_merges_nothing(monkeypatch):
    monkeypatch.setattr(datafly_mod, "_ordered_merges",
                        lambda sizes, reps, na: iter([(reps[0], reps[0])]))
    with pytest.raises(NoProgressError, match=r"^algorithm='datafly' made no progress \(the "
                       r"step on column 0 merged no two value groups\)"):
        run(ages(), "datafly")


def test_group_join_raises_when_a_violating_group_has_no_partner(monkeypatch):
    monkeypatch.setattr(group_join_mod._Neighbours, "candidates",
                        lambda self, groups, g: np.zeros(0, np.int64))
    with pytest.raises(NoProgressError, match=r"^algorithm='group_join' made no progress "
                       r"\(violating group \d+ has no partner to merge with\)"):
        run(ages(), "group_join", partners="near")


def test_equal_groups_raises_when_a_cut_takes_no_value(monkeypatch):
    # a searchsorted that never moves forward: the cut would start at the same value forever
    real = np.searchsorted

    class FrozenNp:
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def searchsorted(a, v, side="left"):
            return 0 if v > a[0] else real(a, v, side=side)

    monkeypatch.setattr(equal_groups_mod, "np", FrozenNp())
    with pytest.raises(NoProgressError, match=r"^algorithm='equal_groups' made no progress "
                       r"\(a cut of group size \d+ took no value\)"):
        run(ages(), "equal_groups")


def test_exact_raises_when_a_round_of_cuts_leaves_the_solution_unchanged(monkeypatch):
    # recursive (c, l)-diversity is cut lazily: the first solution violates it here
    df = pd.DataFrame({"q": [1, 1, 1, 0, 0, 0], "s": list("xxxzyz")})
    roles = resolve_roles(df, quasi_identifiers={"q": "unordered"},
                          sensitive={"s": "unordered"})
    model = AllOf(KAnonymity(2), LDiversity(2, variant="recursive", c=2))
    _, info = anonymize(df, roles, model=model, method="suppress", algorithm="exact")
    assert info["rounds"] > 1  # the guard below is reached
    first = {}
    real = exact_mod._Program.solve

    def same_answer(self, time_limit):  # a solver that ignores the new cuts
        if "res" not in first:
            first["res"] = real(self, time_limit)
        return first["res"]

    monkeypatch.setattr(exact_mod._Program, "solve", same_answer)
    with pytest.raises(NoProgressError, match=r"^algorithm='exact' made no progress \(round 2 "
                       r"of cuts left the solution unchanged\)"):
        anonymize(df, roles, model=model, method="suppress", algorithm="exact")


@pytest.mark.parametrize("algorithm", ["nearest", "mondrian", "datafly", "equal_groups",
                                       "group_join", "optimal"])
def test_the_guards_leave_normal_runs_alone(algorithm):
    from pdanon.hierarchy import intervals

    options = {"hierarchies": {"age": intervals([10, 20])}} if algorithm == "optimal" else {}
    out, info = run(ages(), algorithm, **options)
    assert info["achieved"]["k"] >= 2
