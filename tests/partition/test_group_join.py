"""GroupJoin: exact outputs, equality with a direct implementation of the rule, quality of the
candidate restriction, losses, loss functions, t-closeness distances, errors."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon
from pdanon import losses
from pdanon.encode import encode_column, encode_table
from pdanon._errors import InfeasibleError, InvalidInputError
from pdanon.engine import anonymize
from pdanon.models import AllOf
from pdanon.models import KAnonymity, LDiversity, TCloseness
from pdanon.partition.group_join import group_join_partition
from pdanon.roles import resolve_roles

from tests._helpers.reference_groupjoin import Model, column_loss, direct_group_join, group_loss

KINDS = {"a": "real", "b": "ordered", "c": "unordered"}


def random_table(seed, n, sens_kind="unordered"):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "a": rng.integers(0, 12, n).astype(float),
        "b": rng.integers(0, 6, n),
        "c": rng.choice(list("wxyz"), n),
    })
    if sens_kind == "real":
        df["s"] = rng.integers(0, 5, n).astype(float)
    else:
        df["s"] = rng.choice(list("pqr"), n)
    return df


def encode(df, sens_kind="unordered"):
    roles = resolve_roles(df, quasi_identifiers=KINDS, sensitive={"s": sens_kind})
    return encode_table(df, roles), roles


def models_for(family, df, sens_kind="unordered", distance="emd", k=2, l=2, t=0.3):
    """(pdanon model, its context, the direct reference's model)."""
    s = df["s"].tolist()
    if family == "k":
        return KAnonymity(k), None, Model(k=k)
    if family == "l":
        m = AllOf(KAnonymity(k), LDiversity(l))
        return m, m.models[1].context(df, {"s": sens_kind}), Model(
            k=k, l=l, sensitive=[s], sens_kinds=[sens_kind])
    m = AllOf(KAnonymity(k), TCloseness(t, distance=distance))
    return m, m.models[1].context(df, {"s": sens_kind}), Model(
        k=k, t=t, distance=distance, sensitive=[s], sens_kinds=[sens_kind])


def direct(df, method, ref, seed):
    return direct_group_join([df[c].tolist() for c in KINDS], list(KINDS.values()), method, ref,
                             seed=seed)


# ----------------------------------------------------------------------------- hand-checked


def test_hand_checked_generalization():
    # ages 20, 21 | 40, 41 | 60, 62: merging neighbours is always cheapest
    df = pd.DataFrame({"age": [60, 20, 40, 21, 62, 41]})
    roles = resolve_roles(df, quasi_identifiers={"age": "real"})
    # the data's own bounds (the default widens these one-person bounds: tests/test_bounds.py)
    with pytest.warns(pdanon.ExactBoundsWarning):
        out, info = anonymize(df, roles, model=KAnonymity(2), method="generalize",
                              algorithm="group_join", seed=0, exact_bounds=True)
    assert out["age"].astype(str).tolist() == ["[60, 62]", "[20, 21]", "[40, 41]", "[20, 21]",
                                              "[60, 62]", "[40, 41]"]
    # each pair costs |a - b| / (62 - 20): (1 + 1 + 2) / 42
    assert info["loss"] == pytest.approx(4 / 42)
    assert info["changed_cells"] == 6
    assert info["partners"] == "all"


def test_hand_checked_suppression_prefers_identical_rows():
    df = pd.DataFrame({"zip": ["a", "a", "b", "b", "b"], "sex": ["F", "F", "M", "M", "M"],
                       "job": ["x", "x", "y", "y", "x"]})
    roles = resolve_roles(df)
    for seed in range(5):
        out, info = anonymize(df, roles, model=KAnonymity(2), method="suppress",
                              algorithm="group_join", seed=seed)
        # rows 0, 1 merge at no cost; row 4 differs from rows 2, 3 in one column and from
        # rows 0, 1 in three, so whatever the order {2, 3, 4} forms with "job" suppressed
        assert out["job"].isna().tolist() == [False, False, True, True, True]
        assert out[["zip", "sex"]].notna().all().all()
        assert info["loss"] == 3.0
        assert info["changed_cells"] == 3


def test_hand_checked_aggregation_and_seed_example():
    # the reference's documentation example: aggregation, t-closeness, k=2, t=0.075
    df = pd.DataFrame([[1, 1, 1, 1, "a"], [1, 1, 1, 2, "b"], [1, 1, 1, 3, "c"],
                       [1, 4, 4, 4, "a"], [1, 4, 4, 5, "b"]], columns=list("abcds"))
    roles = resolve_roles(df, quasi_identifiers={c: "real" for c in "abcd"},
                          sensitive={"s": "unordered"})
    model = AllOf(KAnonymity(2), TCloseness(0.075, distance="reference"))
    out, info = anonymize(df, roles, model=model, method="aggregate", algorithm="group_join",
                          seed=0)
    # {a, b} is within 0.075 of the table (JS = 0.0749), so two classes: {0, 1, 2}, {3, 4};
    # loss: column d, |1-2| + |3-2| over span 4, plus |4-4.5| + |5-4.5| over 4 = 0.75
    assert out.drop(columns="s").values.tolist() == [[1, 1, 1, 2], [1, 1, 1, 2], [1, 1, 1, 2],
                                                    [1, 4, 4, 4.5], [1, 4, 4, 4.5]]
    assert info["loss"] == pytest.approx(0.75)
    assert info["changed_cells"] == 4
    assert pdanon.models.t_closeness(out, list("abcd"), ["s"], distance="reference") <= 0.075


# ----------------------------------------------------------------------------- the rule


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(2, 28),
       method=st.sampled_from(["suppress", "generalize", "aggregate"]),
       family=st.sampled_from(["k", "l", "t"]), k=st.integers(1, 4))
def test_all_partners_reproduce_the_direct_rule(seed, n, method, family, k):
    df = random_table(seed, n)
    enc, _ = encode(df)
    model, ctx, ref = models_for(family, df, k=k)
    try:
        labels, total = direct(df, method, ref, seed)
    except ValueError:  # the whole table violates the model
        with pytest.raises(InfeasibleError):
            group_join_partition(enc, model, method=method, seed=seed, partners="all",
                                 context=ctx)
        return
    p, stats = group_join_partition(enc, model, method=method, seed=seed, partners="all",
                                    context=ctx)
    assert p.labels.tolist() == labels.tolist()
    assert stats["loss"] == pytest.approx(total, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("distance,sens_kind", [
    ("reference", "unordered"), ("reference", "real"), ("jensen_shannon", "unordered"),
    ("wasserstein", "real"), ("emd", "real"), ("emd", "unordered")])
def test_t_closeness_distances_match_the_direct_rule(distance, sens_kind):
    for seed in range(4):
        df = random_table(seed, 24, sens_kind)
        enc, _ = encode(df, sens_kind)
        model, ctx, ref = models_for("t", df, sens_kind, distance, k=2, t=0.15)
        labels, total = direct(df, "generalize", ref, seed)
        p, stats = group_join_partition(enc, model, method="generalize", seed=seed,
                                        partners="all", context=ctx)
        assert p.labels.tolist() == labels.tolist()
        assert stats["loss"] == pytest.approx(total)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["generalize", "suppress", "aggregate"])
def test_candidate_restriction_quality_300_rows(method):
    """partners="near" (defaults, and a deliberately small window) against the direct
    implementation of the rule (full scan): the mean total loss over seeds stays within 5%."""
    rng = np.random.default_rng(7)
    n = 300
    df = pd.DataFrame({"a": np.round(rng.normal(50, 15, n)), "b": rng.integers(0, 8, n),
                       "c": rng.choice(list("xyzwv"), n)})
    enc = encode_table(df, resolve_roles(df, quasi_identifiers=KINDS))
    ref_total, near_default, near_small = [], [], []
    for seed in range(2 if method == "generalize" else 4):  # the direct rule is slow
        ref_total.append(direct(df, method, Model(k=4), seed)[1])
        near_default.append(group_join_partition(enc, KAnonymity(4), method=method, seed=seed,
                                                 partners="near")[1]["loss"])
        near_small.append(group_join_partition(enc, KAnonymity(4), method=method, seed=seed,
                                               partners="near", window=8,
                                               max_candidates=64)[1]["loss"])
    assert np.mean(near_default) <= 1.05 * np.mean(ref_total)
    assert np.mean(near_small) <= 1.05 * np.mean(ref_total)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), method=st.sampled_from(["suppress", "generalize",
                                                             "aggregate"]))
def test_candidate_restriction_quality_random_tables(seed, method):
    """Random tables of 30-300 rows: the default candidate restriction over three seeds stays
    within 5% of the full scan (the vectorized partners="all", equal to the direct rule)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 301))
    df = random_table(seed, n)
    enc, _ = encode(df)
    full, near = [], []
    for s in range(3):
        full.append(group_join_partition(enc, KAnonymity(3), method=method, seed=s,
                                         partners="all")[1]["loss"])
        near.append(group_join_partition(enc, KAnonymity(3), method=method, seed=s,
                                         partners="near")[1]["loss"])
    assert np.mean(near) <= 1.05 * np.mean(full) + 1e-9


def test_near_partners_on_adult_sample_close_to_full_scan():
    df = pdanon.datasets.load_adult().sample(1500, random_state=1)
    enc = encode_table(df, df.anon.roles())
    full = group_join_partition(enc, KAnonymity(5), method="generalize", seed=0,
                                partners="all")[1]["loss"]
    near = group_join_partition(enc, KAnonymity(5), method="generalize", seed=0,
                                partners="near")[1]["loss"]
    assert near <= 1.05 * full


# ----------------------------------------------------------------------------- engine, models


@pytest.mark.parametrize("method", ["suppress", "generalize", "aggregate"])
@pytest.mark.parametrize("family", ["k", "l", "t"])
def test_every_output_satisfies_the_model(method, family):
    df = random_table(11, 80)
    roles = resolve_roles(df, quasi_identifiers=KINDS, sensitive={"s": "unordered"})
    model, _, _ = models_for(family, df, k=3, t=0.2)
    out, info = anonymize(df, roles, model=model, method=method, algorithm="group_join",
                          seed=5, partners="near", window=2)
    assert model.holds(out, list(KINDS), ["s"])
    assert info["merges"] > 0 and info["loss"] > 0
    assert out["s"].tolist() == df["s"].tolist()


def test_accessor_methods_reach_group_join():
    df = random_table(2, 60)
    roles = dict(quasi_identifiers=KINDS, sensitive={"s": "unordered"})
    out = df.anon.k_anonymize(3, algorithm="group_join", seed=1, **roles)
    assert out.anon.k_anonymity() >= 3 and out.anon.info["algorithm"] == "group_join"
    out = df.anon.l_diversify(2, k=2, algorithm="group_join", method="suppress",
                              seed=1, **roles)
    assert out.anon.l_diversity() >= 2
    out = df.anon.t_close(0.2, k=2, distance="reference", algorithm="group_join",
                          method="aggregate", seed=1, **roles)
    assert out.anon.t_closeness(distance="reference") <= 0.2


def test_entropy_and_recursive_l_diversity():
    df = random_table(4, 50)
    roles = resolve_roles(df, quasi_identifiers=KINDS, sensitive={"s": "unordered"})
    for part in (LDiversity(1.8, variant="entropy"), LDiversity(2, variant="recursive", c=3)):
        model = AllOf(KAnonymity(2), part)
        out, _ = anonymize(df, roles, model=model, method="generalize",
                           algorithm="group_join", seed=0)
        assert model.holds(out, list(KINDS), ["s"])


def test_seed_reproducible_and_random():
    df = random_table(9, 70)
    enc, _ = encode(df)
    a = group_join_partition(enc, KAnonymity(3), method="generalize", seed=4)[0].labels
    b = group_join_partition(enc, KAnonymity(3), method="generalize", seed=4)[0].labels
    assert a.tolist() == b.tolist()
    others = {tuple(group_join_partition(enc, KAnonymity(3), method="generalize",
                                         seed=s)[0].labels) for s in range(6)}
    assert len(others) > 1
    gen = np.random.default_rng(4)
    c = group_join_partition(enc, KAnonymity(3), method="generalize", seed=gen)[0].labels
    assert c.tolist() == a.tolist()


def test_input_not_mutated():
    df = random_table(1, 30)
    before = df.copy()
    roles = resolve_roles(df, quasi_identifiers=KINDS)
    anonymize(df, roles, model=KAnonymity(3), method="aggregate", algorithm="group_join", seed=0)
    pd.testing.assert_frame_equal(df, before)


# ----------------------------------------------------------------------------- loss functions


def test_reference_style_loss_functions_equal_the_defaults():
    df = random_table(3, 40)
    enc, _ = encode(df)
    for family, fn in [("k", lambda loss, size1, size2, k: loss),
                       ("l", lambda loss, size1, size2, k, l, k_sens: loss / sum(k_sens)),
                       ("t", lambda loss, size1, size2, k, t, t_sens: loss * sum(t_sens))]:
        model, ctx, _ = models_for(family, df, k=2, t=0.25)
        a = group_join_partition(enc, model, method="generalize", seed=2, context=ctx)[0]
        b = group_join_partition(enc, model, method="generalize", seed=2, context=ctx,
                                 loss_function=fn)[0]
        assert a.labels.tolist() == b.labels.tolist()


def test_scalar_only_loss_function_is_called_per_partner():
    df = random_table(5, 30)
    enc, _ = encode(df)
    calls = []

    def fn(loss, size1, size2, k):
        calls.append(type(loss))
        return math.sqrt(loss) + 0.01 * size2  # math.sqrt refuses arrays

    p, _ = group_join_partition(enc, KAnonymity(3), method="generalize", seed=0,
                                loss_function=fn)
    assert float in calls
    assert np.bincount(p.labels).min() >= 3


def test_loss_function_changes_the_result():
    # prefer partners by size: a loss function that rewards big partners builds one big group
    df = random_table(6, 24)
    enc, _ = encode(df)
    p, _ = group_join_partition(enc, KAnonymity(2), method="generalize", seed=0,
                                loss_function=lambda loss, s1, s2, k: -1000.0 * s2)
    assert p.groups == 1


# ----------------------------------------------------------------------------- losses module


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(0, 9), min_size=1, max_size=25),
       kind=st.sampled_from(["real", "ordered", "unordered"]),
       method=st.sampled_from(["suppress", "generalize", "aggregate"]),
       groups=st.integers(1, 5), seed=st.integers(0, 100))
def test_group_losses_match_cell_by_cell(values, kind, method, groups, seed):
    series = pd.Series([float(v) for v in values] if kind == "real" else values)
    col = encode_column(series, kind)
    labels = np.random.default_rng(seed).integers(0, groups, len(values))
    labels = np.unique(labels, return_inverse=True)[1]
    got = losses.group_losses(method, col, labels)
    column = series.tolist()
    for g in range(labels.max() + 1):
        cells = [column[i] for i in np.flatnonzero(labels == g)]
        assert got[g] == pytest.approx(column_loss(method, kind, cells, column), abs=1e-9)


def test_table_loss_equals_direct_group_loss():
    df = random_table(8, 20)
    enc, _ = encode(df)
    labels = np.arange(20) % 4
    for method in ("suppress", "generalize", "aggregate"):
        want = sum(group_loss(method, list(KINDS.values()), [df[c].tolist() for c in KINDS],
                              list(np.flatnonzero(labels == g))) for g in range(4))
        assert losses.table_loss(method, enc.columns, labels) == pytest.approx(want)


# ----------------------------------------------------------------------------- errors


def test_infeasible_requests_raise_clear_errors():
    df = random_table(0, 10)
    df["s"] = "p"
    roles = resolve_roles(df, quasi_identifiers=KINDS, sensitive={"s": "unordered"})
    with pytest.raises(InfeasibleError, match="l"):
        anonymize(df, roles, model=AllOf(KAnonymity(2), LDiversity(2)), method="suppress",
                  algorithm="group_join")
    with pytest.raises(InvalidInputError, match="k=11"):
        anonymize(df, roles, model=KAnonymity(11), method="suppress", algorithm="group_join")


@pytest.mark.parametrize("options,match", [
    ({"partners": "some"}, "partners"), ({"window": 0}, "window"),
    ({"seed": "x"}, "seed"), ({"loss_function": 3}, "loss_function"),
    ({"frobnicate": 1}, "frobnicate"), ({"max_candidates": 1.5}, "max_candidates"),
])
def test_bad_options(options, match):
    df = random_table(0, 10)
    roles = resolve_roles(df, quasi_identifiers=KINDS)
    with pytest.raises(InvalidInputError, match=match):
        anonymize(df, roles, model=KAnonymity(2), method="suppress", algorithm="group_join",
                  **options)


def test_single_row_and_k_one():
    df = pd.DataFrame({"a": [1.0]})
    roles = resolve_roles(df)
    out, info = anonymize(df, roles, model=KAnonymity(1), method="generalize",
                          algorithm="group_join")
    assert out["a"].astype(str).tolist() == ["1.0"] or out["a"].astype(str).tolist() == ["1"]
    assert info["merges"] == 0


def test_fallbacks_without_dense_tables_give_the_same_groups(monkeypatch):
    """Python-set value sets (very wide unordered columns) and row-based sensitive counts
    (many sensitive values) give exactly what the bitsets and dense counts give."""
    from pdanon.partition import group_join as gj

    df = random_table(12, 40)
    enc, _ = encode(df)
    runs = []
    for cells in (gj._DENSE_CELLS, 0):
        monkeypatch.setattr(gj, "_DENSE_CELLS", cells)
        for family in ("l", "t"):
            model, ctx, _ = models_for(family, df, k=2, t=0.2)
            for method in ("generalize", "aggregate"):
                p, stats = group_join_partition(enc, model, method=method, seed=3,
                                                partners="all", context=ctx)
                runs.append((cells, family, method, p.labels.tolist(), stats["loss"]))
    half = len(runs) // 2
    for a, b in zip(runs[:half], runs[half:]):
        assert a[3] == b[3] and a[4] == pytest.approx(b[4])


def _wide_table(rows=600, seed=0):
    """A wide unordered column (a few frequent codes, hundreds of rare ones, blanks), a
    narrow one, an ordered and a real column, and a sensitive column."""
    rng = np.random.default_rng(seed)
    frequent = rng.choice([f"F{i}" for i in range(5)], rows)
    rare = np.array([f"R{i:04d}" for i in rng.integers(0, 400, rows)], dtype=object)
    wide = np.where(rng.random(rows) < 0.3, frequent, rare).astype(object)
    wide[rng.random(rows) < 0.05] = None
    return pd.DataFrame({
        "code": wide, "sex": rng.choice(["F", "M"], rows),
        "day": pd.Categorical(rng.integers(0, 30, rows), ordered=True),
        "age": rng.integers(20, 80, rows).astype(float),
        "s": rng.choice(list("abcdefgh"), rows)})


def test_wide_columns_counted_through_their_rows_give_the_same_groups(monkeypatch):
    """A wide unordered column as a full bitset, as bits for its frequent values plus rows
    for the rare ones, and as rows only, gives the same groups and losses."""
    from pdanon.partition import group_join as gj

    df = _wide_table()
    roles = resolve_roles(df, quasi_identifiers={"code": "unordered", "sex": "unordered",
                                                 "day": "ordered", "age": "real"},
                          sensitive={"s": "unordered"})
    enc = encode_table(df, roles)
    runs = {}
    for name, words, cells in (("bitset", 64, gj._DENSE_CELLS), ("frequent+rows", 1,
                                                                 gj._DENSE_CELLS),
                               ("rows", 1, 0)):
        monkeypatch.setattr(gj, "_FREQUENT_WORDS", words)
        monkeypatch.setattr(gj, "_DENSE_CELLS", cells)
        G = gj.GroupState(enc, "generalize", KAnonymity(3))
        assert bool(G.rare) == (name != "bitset")
        for family in ("k", "l"):
            model, ctx, _ = models_for(family, df, k=3)
            for partners in ("all", "near"):
                p, stats = group_join_partition(enc, model, method="generalize", seed=5,
                                                partners=partners, context=ctx)
                runs.setdefault((family, partners), []).append((p.labels.tolist(),
                                                                stats["loss"]))
    for key, got in runs.items():
        assert got[1][0] == got[0][0] and got[2][0] == got[0][0], key
        assert got[1][1] == pytest.approx(got[0][1]) and got[2][1] == pytest.approx(got[0][1])


@pytest.mark.parametrize("method", ["generalize", "suppress", "aggregate"])
def test_state_from_labels_equals_the_state_built_by_merges(monkeypatch, method):
    """GroupState.from_labels summarizes each group as merging its rows one by one would
    (union losses of every pair of groups agree), wide columns included."""
    from pdanon.partition import group_join as gj

    monkeypatch.setattr(gj, "_FREQUENT_WORDS", 1)
    df = _wide_table(rows=120, seed=2)
    roles = resolve_roles(df, quasi_identifiers={"code": "unordered", "sex": "unordered",
                                                 "day": "ordered", "age": "real"})
    enc = encode_table(df, roles)
    labels = np.random.default_rng(1).integers(0, 25, len(df))
    labels = np.unique(labels, return_inverse=True)[1].reshape(-1)
    built = gj.GroupState.from_labels(enc, method, KAnonymity(2), labels)
    merged = gj.GroupState(enc, method, KAnonymity(2))
    for group in range(labels.max() + 1):
        rows = np.flatnonzero(labels == group).tolist()
        for r in rows[1:]:
            merged.merge(rows[0], r, 0.0)
    ids = np.flatnonzero(built.alive)
    assert ids.tolist() == np.flatnonzero(merged.alive).tolist()
    for g in ids.tolist():
        others = ids[ids != g]
        np.testing.assert_allclose(built.union_loss(g, others), merged.union_loss(g, others))


# ----------------------------------------------------------------------------- reproducible by default


def test_two_unseeded_calls_give_the_same_table_and_seed_zero_is_the_default():
    df = random_table(3, 40)
    qis = [c for c in df.columns if c != "s"]
    runs = [df.anon.k_anonymize(3, algorithm="group_join", quasi_identifiers=qis, row_order="input")
            for _ in range(2)]
    pd.testing.assert_frame_equal(runs[0], runs[1])
    seeded = df.anon.k_anonymize(3, algorithm="group_join", quasi_identifiers=qis, seed=0, row_order="input")
    pd.testing.assert_frame_equal(runs[0], seeded)
    options = df.anon.k_anonymize(3, algorithm="group_join", quasi_identifiers=qis,
                                  seed=0, row_order="input")
    pd.testing.assert_frame_equal(runs[0], options)
    # another seed draws other merges (this table has more than one outcome)
    others = [df.anon.k_anonymize(3, algorithm="group_join", quasi_identifiers=qis, seed=s, row_order="input")
              for s in range(1, 6)]
    assert any(not o.equals(runs[0]) for o in others)


def test_seed_goes_to_the_algorithms_that_declare_it_and_deterministic_ones_ignore_it():
    df = pd.DataFrame({"age": [30, 31, 40, 42], "d": list("abab")})
    for algorithm in ("nearest", "mondrian", "auto"):
        a = df.anon.k_anonymize(2, algorithm=algorithm, seed=7, quasi_identifiers=["age"], row_order="input")
        b = df.anon.k_anonymize(2, algorithm=algorithm, quasi_identifiers=["age"], row_order="input")
        pd.testing.assert_frame_equal(a, b)
    # the data's own bounds: widened, the two classes' one-person bounds meet on one grid
    # range and the classes merge (tests/test_bounds.py)
    with pytest.warns(pdanon.ExactBoundsWarning):
        out = df.anon.l_diversify(2, algorithm="group_join", seed=1, quasi_identifiers=["age"],
                                  sensitive=["d"], row_order="input",
                                  options={"exact_bounds": True})
    assert out.anon.info["achieved"] == {"k": 2, "l": 2, "l_variant": "distinct"}
    out = df.anon.t_close(0.5, algorithm="group_join", seed=1, quasi_identifiers=["age"],
                          sensitive=["d"], row_order="input")
    assert out.anon.info["achieved"]["t_distance"] == "emd"
