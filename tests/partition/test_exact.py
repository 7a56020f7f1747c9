"""algorithm="exact": minimum suppression for k, l and t, compared with brute force."""

import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdanon.encode import encode_table
from pdanon._errors import InfeasibleError, InvalidInputError
from pdanon.engine import anonymize
from pdanon.models import AllOf
from pdanon.models import KAnonymity, LDiversity, TCloseness
from pdanon.partition import exact as exact_mod
from pdanon.partition.exact import exact_suppression
from pdanon.roles import resolve_roles

from tests._helpers.reference_groupjoin import Model, brute_force_suppression


def solve(df, qis, model, sensitive=None):
    roles = resolve_roles(df, quasi_identifiers=qis, sensitive=sensitive or {})
    return anonymize(df, roles, model=model, method="suppress", algorithm="exact")


# ----------------------------------------------------------------------------- seed examples


def test_seed_example_k():
    df = pd.DataFrame([[1, 1, 1, 1], [1, 1, 1, 1], [2, 2, 2, 2], [2, 2, 2, 3]],
                      columns=list("abcd"))
    out, info = solve(df, list("abcd"), KAnonymity(2))
    assert info["changed_cells"] == 2 and info["suppressed_cells"] == 2
    assert info["optimal"] is True
    assert out.isna().values.tolist() == [[False] * 4, [False] * 4,
                                          [False, False, False, True],
                                          [False, False, False, True]]
    assert out.iloc[:2].values.tolist() == [[1, 1, 1, 1], [1, 1, 1, 1]]


def test_seed_example_l():
    df = pd.DataFrame([[1, 1, 1, 1, 1], [1, 1, 1, 1, 2], [2, 2, 2, 2, 2], [2, 2, 2, 3, 1]],
                      columns=list("abcds"))
    model = AllOf(KAnonymity(2), LDiversity(2))
    out, info = solve(df, list("abcd"), model, {"s": "unordered"})
    want, _ = brute_force_suppression(df[list("abcd")].values.tolist(),
                                      Model(k=2, l=2, sensitive=[df["s"].tolist()]))
    assert want == 2
    assert info["changed_cells"] == 2
    assert out["d"].isna().tolist() == [False, False, True, True]


def test_seed_example_t_reference_distance():
    df = pd.DataFrame([[1, 1, 1, 1, "a"], [1, 1, 1, 2, "b"], [1, 1, 1, 3, "c"],
                       [1, 4, 4, 4, "a"], [1, 4, 4, 5, "b"]], columns=list("abcds"))
    model = AllOf(KAnonymity(2), TCloseness(0.075, distance="reference"))
    out, info = solve(df, list("abcd"), model, {"s": "unordered"})
    want, _ = brute_force_suppression(
        df[list("abcd")].values.tolist(),
        Model(k=2, t=0.075, distance="reference", sensitive=[df["s"].tolist()]))
    # {a, b, c} and {a, b} are within 0.075 (JS): suppress d in every row
    assert want == 5
    assert info["changed_cells"] == 5
    assert out["d"].isna().all() and out[list("abc")].notna().all().all()


# ----------------------------------------------------------------------------- brute force


def tiny_table(seed, n, c, card, sens_kind="unordered"):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.integers(0, card, (n, c)), columns=[f"q{j}" for j in range(c)])
    if sens_kind == "real":
        df["s"] = rng.integers(0, 4, n).astype(float)
    else:
        df["s"] = rng.choice(list("xyz"), n)
    return df


def pdanon_and_reference(family, df, sens_kind, k, l, t, distance):
    s = df["s"].tolist()
    if family == "k":
        return KAnonymity(k), Model(k=k)
    if family == "l":
        return AllOf(KAnonymity(k), LDiversity(l)), Model(k=k, l=l, sensitive=[s])
    return (AllOf(KAnonymity(k), TCloseness(t, distance=distance)),
            Model(k=k, t=t, distance=distance, sensitive=[s], sens_kinds=[sens_kind]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), n=st.integers(1, 5), c=st.integers(1, 3),
       card=st.integers(1, 3), k=st.integers(1, 3), l=st.integers(1, 3),
       t=st.sampled_from([0.05, 0.15, 0.3, 0.5]),
       case=st.sampled_from([("k", "unordered", "emd"), ("l", "unordered", "emd"),
                             ("t", "unordered", "emd"), ("t", "unordered", "reference"),
                             ("t", "unordered", "jensen_shannon"), ("t", "real", "reference"),
                             ("t", "real", "emd"), ("t", "real", "wasserstein")]))
def test_matches_brute_force(seed, n, c, card, k, l, t, case):
    if n * c > 12:
        c = max(1, 12 // n)
    family, sens_kind, distance = case
    df = tiny_table(seed, n, c, card, sens_kind)
    qis = [f"q{j}" for j in range(c)]
    model, ref = pdanon_and_reference(family, df, sens_kind, k, l, t, distance)
    want, _ = brute_force_suppression(df[qis].values.tolist(), ref)
    roles = resolve_roles(df, quasi_identifiers={q: "unordered" for q in qis},
                          sensitive={"s": sens_kind})
    if want is None:
        with pytest.raises((InfeasibleError, InvalidInputError)):
            anonymize(df, roles, model=model, method="suppress", algorithm="exact")
        return
    out, info = anonymize(df, roles, model=model, method="suppress", algorithm="exact")
    assert info["changed_cells"] == want
    assert int(out[qis].isna().values.sum()) == want
    # unsuppressed cells keep their values
    keep = out[qis].notna().values
    assert (out[qis].values[keep] == df[qis].values[keep]).all()
    assert model.holds(out, qis, {"s": sens_kind} if family == "t" else ["s"])


class LVariant(Model):
    """Entropy or recursive (c, l)-diversity, written out."""

    def __init__(self, variant, l, c=None, **kw):
        super().__init__(**kw)
        self.variant, self.lv, self.c = variant, l, c

    def ok(self, rows):
        import math
        from collections import Counter

        if len(rows) < self.k:
            return False
        counts = sorted(Counter(self.sensitive[0][r] for r in rows).values(), reverse=True)
        if self.variant == "entropy":
            h = -sum(x / len(rows) * math.log(x / len(rows)) for x in counts)
            return math.exp(h) >= self.lv - 1e-12 * self.lv
        need = self.lv
        return need <= len(counts) and counts[0] < self.c * sum(counts[need - 1:])


@pytest.mark.parametrize("variant,l,c", [("entropy", 2, None), ("entropy", 1.5, None),
                                         ("recursive", 2, 2)])
def test_other_l_variants_against_brute_force(variant, l, c):
    """Entropy (tangent cuts) and recursive (cuts forbidding a class) l-diversity."""
    for seed in range(6):
        df = tiny_table(seed, 5, 2, 2)
        qis = ["q0", "q1"]
        model = AllOf(KAnonymity(2), LDiversity(l, variant=variant, c=c))
        ref = LVariant(variant, l, c, k=2, sensitive=[df["s"].tolist()])
        want, _ = brute_force_suppression(df[qis].values.tolist(), ref)
        roles = resolve_roles(df, quasi_identifiers={q: "unordered" for q in qis},
                              sensitive={"s": "unordered"})
        if want is None:
            with pytest.raises(InfeasibleError):
                anonymize(df, roles, model=model, method="suppress", algorithm="exact")
            continue
        out, info = anonymize(df, roles, model=model, method="suppress", algorithm="exact")
        assert info["changed_cells"] == want


# ----------------------------------------------------------------------------- size and speed


def test_fourteen_rows_five_columns_under_five_seconds():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.integers(0, 3, (14, 5)), columns=list("abcde"))
    df["s"] = rng.choice(list("xyz"), 14)
    qis = {c: "unordered" for c in "abcde"}
    for model in (KAnonymity(3), AllOf(KAnonymity(2), LDiversity(2)),
                  AllOf(KAnonymity(2), TCloseness(0.2)),
                  AllOf(KAnonymity(2), TCloseness(0.1, distance="reference"))):
        started = time.perf_counter()
        out, info = solve(df, qis, model, {"s": "unordered"})
        assert time.perf_counter() - started < 5
        assert info["optimal"]


def test_larger_than_brute_force_can_go():
    # 40 rows x 5 columns: 2^200 patterns for the reference, well under a second here
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.integers(0, 3, (40, 5)), columns=list("abcde"))
    out, info = solve(df, {c: "unordered" for c in "abcde"}, KAnonymity(2))
    assert out.anon.k_anonymity(quasi_identifiers=list("abcde")) >= 2
    assert info["optimal"]


def test_too_large_tables_name_a_scalable_algorithm():
    df = pd.DataFrame(np.zeros((10, 13), dtype=int), columns=[f"c{i}" for i in range(13)])
    with pytest.raises(InvalidInputError, match="group_join"):
        solve(df, list(df.columns), KAnonymity(2))
    df = pd.DataFrame(np.arange(2000 * 10).reshape(2000, 10) % 7,
                      columns=[f"c{i}" for i in range(10)])
    with pytest.raises(InvalidInputError, match="mondrian"):
        solve(df, list(df.columns), KAnonymity(2))


def test_time_limit_gives_a_clear_error():
    rng = np.random.default_rng(3)
    df = pd.DataFrame(rng.integers(0, 4, (120, 6)), columns=list("abcdef"))
    roles = resolve_roles(df)
    with pytest.raises(InvalidInputError, match="time_limit"):
        anonymize(df, roles, model=KAnonymity(4), method="suppress", algorithm="exact",
                  time_limit=0.001)


def test_limits_are_documented_constants():
    assert exact_mod.MAX_COLUMNS >= 5
    assert exact_mod.MAX_PATTERN_ROWS >= 14 * 2 ** 5


# ----------------------------------------------------------------------------- errors, edges


def test_only_suppression():
    df = pd.DataFrame({"a": [1, 1, 2, 2]})
    with pytest.raises(InvalidInputError, match="method='suppress'"):
        anonymize(df, resolve_roles(df), model=KAnonymity(2), method="generalize",
                  algorithm="exact")


def test_infeasible_l():
    df = pd.DataFrame({"a": [1, 2, 3, 4], "s": ["x", "x", "x", "y"]})
    roles = resolve_roles(df, quasi_identifiers=["a"], sensitive=["s"])
    with pytest.raises(InfeasibleError):
        anonymize(df, roles, model=AllOf(KAnonymity(1), LDiversity(3)), method="suppress",
                  algorithm="exact")


def test_already_anonymous_needs_nothing():
    df = pd.DataFrame({"a": [1, 1, 2, 2], "b": ["x", "x", "y", "y"]})
    out, info = solve(df, ["a", "b"], KAnonymity(2))
    assert info["changed_cells"] == 0
    pd.testing.assert_frame_equal(out, df)


def test_hierarchical_t_closeness_against_brute_force():
    from tests._helpers.reference_groupjoin import total_variation

    h = {"x": ["xy"], "y": ["xy"], "z": ["z"]}

    class Hier(Model):  # hierarchical EMD of a two-level tree: mean of the levels' TV
        def ok(self, rows):
            s = self.sensitive[0]
            vals = [s[r] for r in rows]
            up = [h[v][0] for v in vals]
            d = (total_variation(vals, s) + total_variation(up, [h[v][0] for v in s])) / 2
            return len(rows) >= self.k and d <= self.t + 1e-12

    for seed in range(4):
        df = tiny_table(seed, 6, 2, 2)
        model = AllOf(KAnonymity(2), TCloseness(0.2, distance="hierarchical",
                                                hierarchies={"s": h}))
        want, _ = brute_force_suppression(df[["q0", "q1"]].values.tolist(),
                                          Hier(k=2, t=0.2, sensitive=[df["s"].tolist()]))
        out, info = solve(df, ["q0", "q1"], model, {"s": "unordered"})
        assert info["changed_cells"] == want
