"""SafePub releases (df.anon.dp_anonymize): the accounting, what the release holds and
withholds, the model verified, bad input, and a statistical test of the guarantee."""

import io
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.dp.mechanism import RandomSource, selection_probabilities
from pdanon.dp.params import delta_for_k, smallest_k
from pdanon.hierarchy import intervals
from pdanon.models import EDDifferentialPrivacy


def _table(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "patient": [f"P{i:05d}" for i in range(n)],
        "age": rng.integers(20, 70, n),
        "sex": rng.choice(["F", "M"], n),
        "diagnosis": rng.choice(["flu", "asthma", "copd"], n),
    })


def _release(df, **kw):
    kw.setdefault("hierarchies", {"age": intervals([10, 50])})
    kw.setdefault("identifiers", ["patient"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return df.anon.dp_anonymize(kw.pop("epsilon", 1.0), kw.pop("delta", 1e-5), **kw)


def test_accounting_recomputed_independently():
    out = _release(_table(), steps=7, seed=1)
    dp = out.anon.info["dp"]
    # the guarantee from the recorded figures alone
    assert dp["epsilon_anonymization"] + dp["epsilon_search"] == pytest.approx(dp["epsilon"])
    assert -math.log1p(-dp["sampling_probability"]) <= dp["epsilon_anonymization"]
    assert delta_for_k(dp["k"], dp["sampling_probability"],
                       dp["epsilon_anonymization"]) <= dp["delta"]
    assert dp["k"] == smallest_k(dp["epsilon_anonymization"], dp["delta"])
    assert dp["steps"] <= 7
    # half of epsilon_search over the walk's 7 steps, half on the output draw
    assert dp["epsilon_per_step"] == pytest.approx(dp["epsilon_search"] / 2 / 7)
    assert dp["epsilon_final_choice"] == pytest.approx(dp["epsilon_search"] / 2)
    assert dp["epsilon_spent"] == pytest.approx(
        dp["epsilon_anonymization"] + dp["steps"] * dp["epsilon_per_step"]
        + dp["epsilon_final_choice"])
    assert dp["epsilon_spent"] <= dp["epsilon"] + 1e-12


def test_release_holds_classes_of_k_and_every_column_generalized_or_kept():
    df = _table()
    before = df.copy()
    out = _release(df, seed=2)
    pd.testing.assert_frame_equal(df, before)  # the input is not mutated
    k = out.anon.info["dp"]["k"]
    assert list(out.columns) == ["age", "sex", "diagnosis"]  # the identifier dropped
    assert out.anon.roles().qi == ["age", "sex", "diagnosis"]  # every column a QI
    assert len(out) == 0 or out.anon.k_anonymity() >= k
    assert out.index.equals(pdanon.checks.row_order.fresh_index(len(out)))  # no input label
    assert out.anon.check().passed


def test_nothing_about_the_input_or_the_seed_is_published(tmp_path):
    df = _table()
    out = _release(df, seed=123456789)
    text = json.dumps(out.attrs, default=str)
    assert "123456789" not in text
    for secret in ("input_rows", "sampled_rows", "withheld", "score", "seconds"):
        assert secret not in text
    assert out.anon.info["rows"] == len(out)
    assert out.anon.info["suppressed_rows"] == 0  # withheld rows are not in the release
    assert out.anon.info["publisher_only"]["input_rows"] == len(df)
    path = tmp_path / "r.parquet"
    out.to_parquet(path)
    raw = path.read_bytes()
    assert b"123456789" not in raw and b"input_rows" not in raw and b"P0000" not in raw


def test_rows_come_in_a_random_order():
    from pdanon import engine
    from pdanon.roles import Roles

    df = _table()[["age", "sex"]]
    roles = Roles(quasi_identifiers={"age": "real", "sex": "unordered"})
    run = engine.partition(df, roles, model=EDDifferentialPrivacy(2.0, 1e-5), method="generalize",
                           algorithm="safepub", hierarchies={"age": intervals([10, 50])},
                           seed=5)
    rows = run.result.release_rows
    assert len(rows) and len(set(rows.tolist())) == len(rows)
    assert not (np.diff(rows) > 0).all()


def test_secure_source_by_default():
    out = _release(_table())
    assert "os.urandom" in out.anon.info["random_source"]
    u = RandomSource().uniform(20000)
    assert 0.49 < u.mean() < 0.51 and u.min() >= 0 and u.max() < 1
    p = RandomSource().permutation(1000)
    assert sorted(p.tolist()) == list(range(1000))


def test_seeded_runs_repeat():
    a = _release(_table(), seed=9)
    b = _release(_table(), seed=9)
    pd.testing.assert_frame_equal(a, b)


def test_anonymize_with_the_model_is_the_same_release():
    df = _table()
    model = EDDifferentialPrivacy(1.0, 1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = df.anon.anonymize(model, hierarchies={"age": intervals([10, 50])}, seed=4,
                              identifiers=["patient"])
    b = _release(df, seed=4)
    pd.testing.assert_frame_equal(a, b)
    assert a.anon.info["algorithm"] == "safepub"


def test_other_algorithms_refuse_the_model():
    with pytest.raises(pdanon.InvalidInputError, match="randomized mechanism"):
        _table().anon.anonymize(EDDifferentialPrivacy(1.0, 1e-5), algorithm="optimal",
                                hierarchies={"age": intervals([10, 50])},
                                identifiers=["patient"])


def test_sensitive_columns_refused_beside_dp():
    with pytest.raises(pdanon.InvalidInputError, match="covers every published column"):
        _table().anon.anonymize(EDDifferentialPrivacy(1.0, 1e-5), sensitive=["diagnosis"],
                                hierarchies={"age": intervals([10, 50])},
                                identifiers=["patient"])


@pytest.mark.parametrize("kw,match", [
    ({"epsilon": 0}, "epsilon must be a positive"),
    ({"epsilon": math.inf}, "epsilon must be a positive"),
    ({"delta": 1.0}, "delta must be strictly between 0 and 1"),
    ({"steps": 0}, "steps must be a positive int"),
    ({"quality": "fast"}, "unknown quality"),
    ({"search_share": 1.0}, "search_share must be strictly between 0 and 1"),
    ({"hierarchies": {}}, "algorithm='safepub' needs a hierarchy for the quasi-identifier 'age'"),
    ({"quality": "classification"}, "needs target="),
    ({"quality": "classification", "target": "salary"}, "target \\['salary'\\] is not"),
    ({"target": "sex"}, "target= is read by quality='classification' only"),
])
def test_bad_input_refused(kw, match):
    with pytest.raises(pdanon.InvalidInputError, match=match):
        _release(_table(500), **kw)


@pytest.mark.parametrize("quality", ["loss", "precision", "discernibility", "group_size",
                                     "classification"])
def test_every_quality_publishes_a_verified_release(quality):
    extra = {"target": "diagnosis"} if quality == "classification" else {}
    out = _release(_table(), quality=quality, seed=3, **extra)
    assert out.anon.info["quality"] == quality
    assert len(out) == 0 or out.anon.k_anonymity() >= out.anon.info["dp"]["k"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-50, 50), min_size=1, max_size=8), st.floats(0.01, 3.0),
       st.integers(0, 7), st.floats(-1, 1))
def test_exponential_mechanism_ratio_within_epsilon(scores, eps, which, shift):
    # a neighbouring table moves every score by at most 1 (scores are sensitivity-scaled)
    s = np.array(scores)
    t = s.copy()
    t[which % len(s)] += shift
    p, q = selection_probabilities(s, eps), selection_probabilities(t, eps)
    assert np.all(np.log(p) - np.log(q) <= eps + 1e-9)


@settings(max_examples=25, deadline=None)
@given(st.integers(200, 1500), st.integers(0, 10_000), st.sampled_from([0.5, 1.0, 2.0]))
def test_random_tables_publish_k_anonymous_samples(n, seed, eps):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"age": rng.integers(0, 100, n), "sex": rng.choice(["F", "M"], n)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.dp_anonymize(eps, 1e-3, hierarchies={"age": intervals([5, 25, 100])},
                                   steps=10, seed=seed)
    k = out.anon.info["dp"]["k"]
    assert len(out) <= n
    if len(out):
        assert out.groupby(["age", "sex"], observed=True).size().min() >= k


def _outcomes(df, runs, start_seed, search="walk"):
    """How often each event occurs in ``runs`` seeded releases of ``df``. The events: each
    whole output (the multiset of published rows), each number of published rows, each
    choice of levels (the output shows it)."""
    counts = {}
    how = {"steps": 2} if search == "walk" else {"search": "all"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in range(start_seed, start_seed + runs):
            out = df.anon.dp_anonymize(1.0, 0.2, seed=s, quasi_identifiers=["sex", "smoker"],
                                       **how)
            rows = tuple(sorted(map(tuple, out.astype(str).to_numpy().tolist())))
            levels = tuple(sorted(out.anon.info["levels"].items()))
            for event in (("rows", rows), ("size", len(rows)), ("levels", levels)):
                counts[event] = counts.get(event, 0) + 1
    return counts


def _violations(a, b, runs, eps, delta, confidence=1e-3):
    """The outcomes whose counts in ``a`` and ``b`` (``runs`` runs each) break
    P[A] <= e^eps P[B] + delta or the reverse at the given confidence: Clopper-Pearson
    bounds at 1 - confidence, Bonferroni over the outcomes and both directions."""
    from scipy.stats import beta as beta_dist

    events = sorted(set(a) | set(b))
    alpha = confidence / (2 * len(events))

    def lower(x):
        return 0.0 if x == 0 else float(beta_dist.ppf(alpha, x, runs - x + 1))

    def upper(x):
        return 1.0 if x == runs else float(beta_dist.ppf(1 - alpha, x + 1, runs - x))

    return [(e, a.get(e, 0), b.get(e, 0)) for e in events
            if lower(a.get(e, 0)) > math.exp(eps) * upper(b.get(e, 0)) + delta
            or lower(b.get(e, 0)) > math.exp(eps) * upper(a.get(e, 0)) + delta]


_D = pd.DataFrame({"sex": list("FFFFFFMMMM"), "smoker": list("yynnnnyynn")})
_D2 = _D.iloc[1:].reset_index(drop=True)  # the neighbour: one person fewer


@pytest.mark.slow
@pytest.mark.parametrize("search", ["walk", "all"])
def test_output_distribution_of_neighbours_within_epsilon_delta(search):
    """(ε, δ)-DP on counted events: for a table D and its neighbour D' (one row removed),
    P[M(D) ∈ S] <= e^ε P[M(D') ∈ S] + δ and the reverse, for every event S of
    :func:`_outcomes` (a whole output, a number of published rows, a choice of levels).
    1,500 seeded runs each, ε = 1, δ = 0.2 (k = 4 on ten rows); every event with its
    Clopper-Pearson bounds at 99.9 %
    (Bonferroni over the events and both directions): the test fails only when a bound is
    violated at that confidence. It cannot see violations smaller than its sampling error
    (about ±0.04 on a probability) nor events it does not count; the next test shows it
    catches a release without sampling."""
    runs = 1500
    a, b = _outcomes(_D, runs, 0, search), _outcomes(_D2, runs, 10_000, search)
    assert _violations(a, b, runs, 1.0, 0.2) == []
    # the test can see something: the release is not always empty
    assert runs - a.get(("size", 0), 0) > runs // 10


@pytest.mark.slow
def test_the_statistical_test_catches_a_release_without_sampling(monkeypatch):
    """The same test on a broken mechanism (every row kept: β = 1) finds the violation."""
    init = EDDifferentialPrivacy.__init__

    def unsampled(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.beta = 1.0

    monkeypatch.setattr(EDDifferentialPrivacy, "__init__", unsampled)
    runs = 300
    a, b = _outcomes(_D, runs, 0), _outcomes(_D2, runs, 10_000)
    assert _violations(a, b, runs, 1.0, 0.2)


# The argmax attack of issue 53 (ARX returns the node with the best exact score): two
# neighbouring tables on which the best node flips with one row. Columns a and b have no
# hierarchy (value -> *); at epsilon = 1, delta = 0.2 (k = 4, beta = 0.593) only the classes
# of 7 or more rows count in the selection score (beta * rows >= k - 1 = 3). Without the
# extra row the nodes "keep a" (classes u: 7, v: 4) and "keep b" (u: 7, v: 4) score exactly
# the same, and an argmax takes the first; the extra row (v, u) makes "keep b"'s class u 8
# rows and "keep b" strictly the best.
_A2 = pd.DataFrame({"a": list("uuuuu" "uu" "vv" "vv"), "b": list("uuuuu" "vv" "uu" "vv")})
_A1 = pd.concat([_A2, pd.DataFrame({"a": ["v"], "b": ["u"]})], ignore_index=True)


def _chosen_levels(df, runs, start_seed):
    counts = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in range(start_seed, start_seed + runs):
            out = df.anon.dp_anonymize(1.0, 0.2, seed=s, search="all",
                                       quasi_identifiers=["a", "b"])
            event = ("levels", tuple(sorted(out.anon.info["levels"].items())))
            counts[event] = counts.get(event, 0) + 1
    return counts


@pytest.mark.slow
def test_argmax_attack_of_issue_53_stays_within_epsilon():
    """P[chosen node | A1] <= e^epsilon P[chosen node | A2] + delta and the reverse for
    every node, at 99.9 % confidence (Clopper-Pearson, Bonferroni), 400 runs each: the
    exponential mechanism over every node keeps the bound that an exact argmax breaks (the
    next test)."""
    runs = 400
    a, b = _chosen_levels(_A1, runs, 0), _chosen_levels(_A2, runs, 50_000)
    assert _violations(a, b, runs, 1.0, 0.2) == []
    assert len(a) > 1 and len(b) > 1  # the draw does not always pick the same node


def test_the_argmax_attack_catches_an_exact_argmax(monkeypatch):
    """The same test with the draw replaced by ARX's exact argmax over the same scores:
    "keep b" is chosen every time with the extra row and never without it."""
    import pdanon.dp.mechanism as mechanism

    monkeypatch.setattr(mechanism, "exponential_mechanism",
                        lambda scores, **_: int(np.argmax(np.asarray(scores))))
    runs = 60
    a, b = _chosen_levels(_A1, runs, 0), _chosen_levels(_A2, runs, 50_000)
    keep_b = ("levels", (("a", 1), ("b", 0)))
    assert a.get(keep_b) == runs and keep_b not in b
    assert _violations(a, b, runs, 1.0, 0.2)


def _node_scores(df, sampled, hierarchies, quality, k, beta=None):
    """Every lattice node's score for ``df`` with the rows ``sampled`` (internal API)."""
    from pdanon.encode import encode_table
    from pdanon.models import KAnonymity
    from pdanon.partition.lattice import lattice_bounds, prepare_columns
    from pdanon.partition.optimal import LatticeSearch
    from pdanon.partition.safepub import _Scorer, public_structure
    from pdanon.roles import Roles

    roles = Roles(quasi_identifiers={"age": "real", "job": "unordered", "sex": "unordered"})
    enc = encode_table(df, roles)
    hierarchies, single_top, integers = public_structure(enc, hierarchies, df)
    cols = prepare_columns(enc, hierarchies, algorithm="safepub", integers=integers)
    search = LatticeSearch(cols, KAnonymity(1), [], budget=len(df), objective="loss",
                           bounds=lattice_bounds(cols, None),
                           weights=np.asarray(sampled, dtype=np.int64))
    listed = [c.name == "job" for c in cols]  # the tree lists its leaves
    scorer = _Scorer(search, quality, len(df), k, listed, single_top, targets=[2],  # sex
                     beta=beta)
    return {tuple(int(v) for v in search.L[i]): scorer(i) for i in range(len(search.L))}


@settings(max_examples=60, deadline=None)
@given(st.integers(5, 60), st.integers(0, 10_000), st.integers(1, 9),
       st.sampled_from(["loss", "precision", "discernibility", "group_size",
                        "classification"]), st.booleans())
def test_scores_change_by_at_most_one_between_neighbours(n, seed, k, quality, rootless):
    """The sensitivity the exponential mechanism relies on: removing one row (sampled or
    not, with a value no other row has or not) moves every node's score by at most 1 — also
    with hierarchies whose top level has several nodes (``rootless``), where whether the
    top holds one node must not be read off the data."""
    from pdanon.hierarchy import TableHierarchy, tree

    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "age": rng.integers(0, 100, n).astype(float),
        "job": rng.choice(["nurse", "cook", "clerk", "pilot"], n),
        "sex": rng.choice(["F", "M"], n),
    })
    df.loc[rng.random(n) < 0.1, "age"] = np.nan
    sampled = rng.random(n) < 0.6
    hierarchies = {"age": intervals([10, 50]),
                   "job": tree({"care": ["nurse", "cook"], "office": ["clerk", "pilot"]})}
    if rootless:
        hierarchies = {"age": intervals([50], top=None), "job": TableHierarchy(
            ["nurse", "cook", "clerk", "pilot"], [["care", "care", "office", "office"]])}
    drop = int(rng.integers(0, n))
    keep = np.arange(n) != drop
    a = _node_scores(df, sampled, hierarchies, quality, k)
    b = _node_scores(df[keep].reset_index(drop=True), sampled[keep], hierarchies, quality, k)
    assert a.keys() == b.keys()
    for node in a:
        assert abs(a[node] - b[node]) <= 1 + 1e-9, (node, a[node], b[node])


@settings(max_examples=60, deadline=None)
@given(st.integers(5, 60), st.integers(0, 10_000), st.integers(1, 9),
       st.sampled_from(["loss", "precision"]), st.booleans(), st.floats(0.05, 1.0))
def test_selection_scores_move_within_a_range_of_one(n, seed, k, quality, rootless, beta):
    """What ``search="all"`` relies on (it draws with exp(ε · score)): removing one row of
    the input moves the selection score of every node by an amount in one interval of
    width 1 — the largest change minus the smallest, over all nodes, is at most 1."""
    from pdanon.hierarchy import TableHierarchy, tree

    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "age": rng.integers(0, 100, n).astype(float),
        "job": rng.choice(["nurse", "cook", "clerk", "pilot"], n),
        "sex": rng.choice(["F", "M"], n),
    })
    df["age"] = (df["age"] // 40) * 40  # few distinct values: classes around k
    df.loc[rng.random(n) < 0.1, "age"] = np.nan
    everyone = np.ones(n, dtype=bool)  # the selection reads the input, not the sample
    hierarchies = {"age": intervals([10, 50]),
                   "job": tree({"care": ["nurse", "cook"], "office": ["clerk", "pilot"]})}
    if rootless:
        hierarchies = {"age": intervals([50], top=None), "job": TableHierarchy(
            ["nurse", "cook", "clerk", "pilot"], [["care", "care", "office", "office"]])}
    drop = int(rng.integers(0, n))
    keep = np.arange(n) != drop
    a = _node_scores(df, everyone, hierarchies, quality, k, beta=beta)
    b = _node_scores(df[keep].reset_index(drop=True), everyone[keep], hierarchies, quality,
                     k, beta=beta)
    moves = [a[node] - b[node] for node in a]
    assert max(moves) - min(moves) <= 1 + 1e-9, (moves, k)


@settings(max_examples=30, deadline=None)
@given(st.integers(5, 300), st.integers(0, 10_000), st.integers(1, 9), st.floats(0.05, 1.0))
def test_scan_scores_every_node_as_the_optimal_search_does(n, seed, k, beta):
    """search='all' scores nodes by its own roll-up (_scan_scores); every node's score equals
    the one computed from the optimal search's class tables."""
    from pdanon.encode import encode_table
    from pdanon.hierarchy import tree
    from pdanon.models import KAnonymity
    from pdanon.partition.lattice import lattice_bounds, prepare_columns
    from pdanon.partition.optimal import LatticeSearch
    from pdanon.partition.safepub import _scan_scores, _Scorer, public_structure
    from pdanon.roles import Roles

    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"age": rng.integers(0, 100, n).astype(float),
                       "job": rng.choice(["nurse", "cook", "clerk", "pilot"], n),
                       "sex": rng.choice(["F", "M"], n)})
    df.loc[rng.random(n) < 0.1, "age"] = np.nan
    hierarchies = {"age": intervals([10, 50]),
                   "job": tree({"care": ["nurse", "cook"], "office": ["clerk", "pilot"]})}
    roles = Roles(quasi_identifiers={"age": "real", "job": "unordered", "sex": "unordered"})
    enc = encode_table(df, roles)
    hierarchies, single_top, integers = public_structure(enc, hierarchies, df)
    cols = prepare_columns(enc, hierarchies, algorithm="safepub", integers=integers)

    def scorer():
        search = LatticeSearch(cols, KAnonymity(1), [], budget=n, objective="loss",
                               bounds=lattice_bounds(cols, None))
        listed = [c.name == "job" for c in cols]
        return search, _Scorer(search, "loss", n, k, listed, single_top, beta=beta)

    search, sc = scorer()
    fast = _scan_scores(search, sc)
    search, sc = scorer()
    slow = [sc(i) for i in range(len(search.L))]
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-9)


def test_selection_score_is_pessimistic_and_exact_away_from_k():
    """At beta = 1 the selection score never rates a node better than the true one
    (:func:`score` divided by the same scale) and equals it when no class lies in
    [k, 3(k - 1))."""
    from pdanon.dp.scores import SLOPE, score, selection_score

    rng = np.random.default_rng(3)
    for _ in range(200):
        k, d = int(rng.integers(1, 12)), int(rng.integers(1, 5))
        counts = rng.integers(0, 40, int(rng.integers(1, 8)))
        cost = rng.random(len(counts)) * d
        n = int(counts.sum() + rng.integers(0, 30))
        sel = selection_score("loss", counts=counts, cost=cost, n=n, k=k, columns=d, beta=1.0)
        true = score("loss", counts=counts, cost=cost, n=n, k=k, columns=d) \
            * max(k - 1, 1) / (1 + SLOPE)
        assert sel <= true + 1e-9
        if not ((counts >= k) & (counts < 3 * (k - 1))).any():
            assert sel == pytest.approx(true)


def test_search_all_accounting_and_options():
    out = _release(_table(), seed=1)
    dp = out.anon.info["dp"]
    assert out.anon.info["search"] == "all"  # the default without steps=
    assert dp["steps"] == 0 and dp["epsilon_per_step"] == 0
    assert dp["epsilon_final_choice"] == pytest.approx(dp["epsilon_search"])
    assert dp["epsilon_spent"] == pytest.approx(dp["epsilon"])
    assert len(out) == 0 or out.anon.k_anonymity() >= dp["k"]
    assert _release(_table(), seed=1, steps=5).anon.info["search"] == "walk"
    with pytest.raises(pdanon.InvalidInputError, match="steps= is read by search='walk'"):
        _release(_table(500), search="all", steps=5)
    with pytest.raises(pdanon.InvalidInputError, match="search must be 'all'"):
        _release(_table(500), search="greedy")
    # the other qualities are ranked by SafePub's walk
    assert _release(_table(), seed=1, quality="group_size").anon.info["search"] == "walk"
    with pytest.raises(pdanon.InvalidInputError, match="search='all' ranks nodes for quality"):
        _release(_table(500), search="all", quality="discernibility")


def test_row_by_row_comparisons_with_the_input_are_refused():
    df = _table()
    out = _release(df, seed=6)
    assert out.anon.info["rows_match_input"] is False and "changed_cells" not in out.anon.info
    with pytest.raises(pdanon.InvalidInputError,
                       match="differentially private release - a random sample"):
        out.anon.metrics(original=df)
    figures = out.anon.metrics()  # the release alone is measured
    assert int(figures.set_index("metric").loc["k_anonymity", "value"]) >= 58


def test_report_states_the_accounting():
    out = _release(_table(), seed=7)
    notes = " ".join(json.loads(out.anon.report().to_json())["notes"])
    assert "differentially private release" in notes and "epsilon = 1 spent" in notes
    assert "probability 0.5934" in notes and "under 58 rows" in notes


def test_a_cell_never_shows_another_rows_value():
    """A column without a hierarchy and one with a masking hierarchy: generalized cells are
    the hierarchy's labels (``*``, ``12***``), never a set or range read off the published
    rows, so a rare value shows only in its own row's cell."""
    from pdanon.hierarchy import masking

    rng = np.random.default_rng(4)
    n = 3000
    df = pd.DataFrame({"sex": rng.choice(["F", "M"], n), "zip": rng.choice(
        ["10115", "10117", "10119", "20095", "20097"], n)})
    df.loc[17, "sex"] = "X"  # one person only
    seen_levels = set()
    for seed in range(12):
        out = _release(df, seed=seed, hierarchies={"zip": masking(steps=[1, 2, 3, 4, 5])},
                       identifiers=[], steps=20)
        levels = out.anon.info["levels"]
        seen_levels.add(tuple(sorted(levels.items())))
        cells = set(out["sex"].astype(str))
        if levels["sex"] == 1:
            assert cells <= {"*"}
        else:
            assert cells <= {"F", "M", "X"}
        if levels["zip"] > 0:
            assert not isinstance(out["zip"].dtype, pdanon.GeneralizationDtype)
            assert all("*" in z for z in out["zip"].astype(str))
        buf = io.BytesIO()
        out.to_parquet(buf)
        if "X" not in cells:
            assert b'"X"' not in buf.getvalue()
    assert len(seen_levels) > 1  # more than one scheme was drawn


def test_no_recoding_is_reused_from_a_dp_release():
    df = _table()
    out = _release(df, seed=8)
    with pytest.raises(pdanon.InvalidInputError, match="has no reusable recoding"):
        out.anon.recoding
    first = df.anon.k_anonymize(5, algorithm="optimal", hierarchies={"age": intervals([10, 50])},
                                identifiers=["patient"], sensitive=["diagnosis"])
    with pytest.raises(pdanon.InvalidInputError, match="randomized mechanism"):
        df.anon.apply_recoding(first.anon.recoding, model=EDDifferentialPrivacy(1.0, 1e-5),
                               identifiers=["patient"], sensitive=["diagnosis"])


def test_chaining_after_a_dp_release_is_post_processing():
    df = _table()
    out = _release(df, seed=10)
    again = out.anon.k_anonymize(5)  # post-processing: the mechanism is not re-run
    assert again.anon.info["algorithm"] != "safepub" and len(again) == len(out)
    assert again.anon.k_anonymity() >= 5
    # it still is the DP release's sample: its accounting travels, row-by-row use is refused
    shuffled = out.anon.shuffle(["sex"], seed=1)
    for later in (again, shuffled):
        assert later.anon.info["dp"] == out.anon.info["dp"]
        with pytest.raises(pdanon.InvalidInputError, match="random sample"):
            later.anon.metrics(original=df)
    with pytest.raises(pdanon.InvalidInputError, match="already a differentially private"):
        out.anon.dp_anonymize(1.0, 1e-5, hierarchies={"age": intervals([10, 50])})
    with pytest.raises(pdanon.InvalidInputError, match="already a differentially private"):
        out.anon.anonymize(EDDifferentialPrivacy(1.0, 1e-5),
                           hierarchies={"age": intervals([10, 50])})


def test_an_empty_release_passes_its_check_with_a_hazard():
    tiny = _table(40)  # k = 58 > 40 rows: nothing can be published
    out = _release(tiny, seed=1)
    assert len(out) == 0
    verdict = out.anon.check()
    assert verdict.passed and any("the release is empty" in h for h in verdict.hazards)
    assert "differentially private release" in " ".join(
        json.loads(out.anon.report().to_json())["notes"])


def test_classification_of_the_only_column():
    from pdanon.dp.scores import classification_score

    # one column, the target itself: every kept class is one group; its top cell counts
    value = classification_score(counts=np.array([6, 5, 2]), codes=[np.array([0, 1, 2])],
                                 targets=[0], levels=[0], heights=[1], k=5)
    assert value == pytest.approx(6 / 5)
    out = _release(_table()[["diagnosis"]], quality="classification", target="diagnosis",
                   seed=2, identifiers=[], hierarchies=None)
    assert len(out) == 0 or out.anon.k_anonymity() >= 58


@pytest.mark.parametrize("quality", ["loss", "precision", "discernibility", "group_size",
                                     "classification"])
def test_a_lone_person_in_a_top_band_of_their_own_moves_no_score_by_more_than_one(quality):
    """Regression: with a top level of several bands (intervals(top=None)), adding one
    unsampled person in a band no one else holds once made the top look like a single
    node on one table and not on the other, and a score moved by 6.6. Whether the top is one
    node now comes from the hierarchy (public_structure)."""
    from pdanon.hierarchy import TableHierarchy

    rng = np.random.default_rng(0)
    n = 200
    d = pd.DataFrame({"age": rng.integers(20, 50, n),
                      "job": rng.choice(["nurse", "cook"], n), "sex": rng.choice(["F", "M"], n)})
    sampled = rng.random(n) < 0.6
    d2 = pd.concat([d, pd.DataFrame({"age": [60], "job": ["clerk"], "sex": ["F"]})],
                   ignore_index=True)
    hierarchies = {"age": intervals([50], top=None), "job": TableHierarchy(
        ["nurse", "cook", "clerk", "pilot"], [["care", "care", "office", "office"]])}
    a = _node_scores(d, sampled, hierarchies, quality, 5)
    b = _node_scores(d2, np.append(sampled, False), hierarchies, quality, 5)
    assert a.keys() == b.keys()
    assert max(abs(a[node] - b[node]) for node in a) <= 1 + 1e-9


# ---------------------------------------------------------------- the structure is public
# (findings of an adversarial review: each rule below once read the values, so one person,
# even one never published, could change every cell, the dtype or the lattice)


def _people(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(20, 70, n), "city": rng.choice(list("ABCD"), n),
                         "sex": rng.choice(["F", "M"], n)})


def test_bands_follow_the_dtype_not_the_values():
    """Integer dtype: closed integer bands; float dtype: half-open bands, whether or not a
    (never published) row holds a fraction."""
    import re

    ints = _people()
    floats = ints.assign(age=ints["age"].astype(float))
    outlier = floats.copy()
    outlier.loc[0, "age"] = 150.5  # alone in its band: always withheld
    for df, pattern in ((ints, r"\[\d+, \d+\]"), (floats, r"\[\d+, \d+\)"),
                        (outlier, r"\[\d+, \d+\)")):
        checked = 0
        for seed in range(4):
            out = _release(df, seed=seed, identifiers=[], steps=30, epsilon=2.0)
            if out.anon.info["levels"]["age"] == 1 and len(out):
                assert all(re.fullmatch(pattern, c) for c in out["age"].astype(str)), pattern
                checked += 1
        assert checked, pattern  # some release published the 10-year bands


def test_unordered_categories_are_sorted_not_in_the_inputs_order():
    df = _people()
    df.loc[0, "city"] = "D"  # the first row's value came first in the dtype
    checked = 0
    for seed in range(6):
        out = _release(df, seed=seed, identifiers=[], steps=30, epsilon=2.0)
        for c in ("city", "sex"):
            cats = [str(v) for v in out[c].dtype.categories]
            assert cats == sorted(cats), (c, cats)
            checked += len(cats) > 1
    assert checked


def test_dates_publish_their_units_label_never_bounds_read_at_the_values_resolution():
    from pdanon.hierarchy import dates

    rng = np.random.default_rng(0)
    n = 4000
    base = pd.DataFrame({"day": pd.Timestamp("2024-01-01") + pd.to_timedelta(
        rng.integers(0, 60, n), unit="D"), "sex": rng.choice(["F", "M"], n)})
    odd = base.copy()
    odd.loc[0, "day"] = pd.Timestamp("1999-07-13 00:00:00.000001")  # always withheld
    seen = {}
    for name, df in (("base", base), ("odd", odd)):
        for seed in range(4):
            out = _release(df, seed=seed, identifiers=[], steps=5, epsilon=2.0,
                           hierarchies={"day": dates(["month", "year"])})
            level = out.anon.info["levels"]["day"]
            if level:
                cats = [str(v) for v in out["day"].dtype.categories]
                assert all(len(c) in (1, 4, 7) for c in cats), cats  # '*', 2024, 2024-01
                seen.setdefault(level, set()).add((name, tuple(cats)))
    assert seen
    for versions in seen.values():
        assert len({cats for _, cats in versions}) == 1  # the odd row changed nothing


def test_masking_needs_steps_and_always_ends_at_its_top():
    from pdanon.hierarchy import masking

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"zip": rng.choice(["10001", "10002"], 3000),
                       "sex": rng.choice(["F", "M"], 3000)})
    with pytest.raises(pdanon.InvalidInputError, match="needs steps="):
        _release(df, seed=1, identifiers=[], hierarchies={"zip": masking()})
    other = df.copy()
    other.loc[0, "zip"] = "20001"  # two nodes at the last step: the top was added only here
    heights = {_release(d, seed=1, identifiers=[], hierarchies={"zip": masking(steps=[1, 4])}
                        ).anon.info["heights"]["zip"] for d in (df, other)}
    assert heights == {3}


def test_the_walk_spends_its_whole_share_on_the_draws_it_makes():
    """A lattice of 2 x 2 nodes has 3 draws to make, whatever steps= says; the walk's half of
    epsilon_search is split over them, so the release spends all of epsilon."""
    df = _people().drop(columns="city")
    out = _release(df, seed=3, identifiers=[], steps=100, hierarchies={"age": intervals([50],
                                                                                         top=None)})
    dp = out.anon.info["dp"]
    assert dp["steps"] == 3
    assert dp["epsilon_per_step"] == pytest.approx(dp["epsilon_search"] / 2 / 3)
    assert dp["epsilon_spent"] == pytest.approx(dp["epsilon"])


@pytest.mark.parametrize("epsilon", [1e-6, 10.0, 900.0])
def test_epsilon_outside_the_computable_range_is_refused_at_once(epsilon):
    with pytest.raises(pdanon.InvalidInputError, match=r"epsilon must lie in \[0.000112, 5.55\]"
                       ) as caught:
        EDDifferentialPrivacy(epsilon, 1e-5)
    # the reason given is the side's own
    assert ("below, the sample" in str(caught.value)) == (epsilon < 1)
    assert ("above, the guarantee" in str(caught.value)) == (epsilon > 1)


def test_smallest_k_called_directly_states_the_range_of_its_own_epsilon():
    from pdanon.dp.params import smallest_k

    with pytest.raises(pdanon.InvalidInputError, match=r"= 6.0, must lie in \[0.0001, 5\]"):
        smallest_k(6.0, 1e-5)


def test_a_release_with_a_column_at_its_top_can_be_anonymized_further():
    """A real column published at its top is recorded with the kind of what it publishes, so
    a later step (post-processing) reads it: the hierarchy's grid, a range (pdanon.bounds:
    intervals([10, 50]) over ages 20..69 tops out at [0, 99], never the data's extremes)."""
    df = _people().drop(columns="city")
    for seed in range(30):
        out = _release(df, seed=seed, identifiers=[], steps=5)
        if out.anon.info["levels"]["age"] == out.anon.info["heights"]["age"] and len(out):
            break
    else:
        pytest.skip("no release put age at its top")
    assert set(out["age"].astype(str)) == {"[0, 99]"}
    assert out.anon.roles().quasi_identifiers["age"] == "real"
    again = out.anon.k_anonymize(len(out) // 3)
    assert again.anon.info["dp"] == out.anon.info["dp"]


def test_an_empty_input_states_its_accounting_and_bad_targets_are_refused():
    df = _people()
    empty = _release(df.iloc[:0], identifiers=[])
    assert empty.anon.info["dp"]["epsilon_spent"] == pytest.approx(1.0)
    assert empty.anon.info["rows_match_input"] is False
    with pytest.raises(pdanon.InvalidInputError, match="more than once"):
        _release(df, identifiers=[], quality="classification", target=["sex", "sex"])
    for wrong in ([intervals([10])], []):
        with pytest.raises(pdanon.InvalidInputError, match="must be a dict"):
            _release(df, identifiers=[], hierarchies=wrong)


def test_an_ordered_column_of_numbers_beyond_float_precision_is_refused():
    """One value above 2**53 would make pdanon read an ordered column of numbers as
    categories (another dtype, other cells): refused rather than published in a form one
    value chose."""
    df = _people().drop(columns="city")
    df.loc[5, "age"] = 2 ** 53 + 3
    with pytest.raises(pdanon.InvalidInputError, match="beyond 2\\*\\*53"):
        _release(df, identifiers=[], quasi_identifiers={"age": "ordered", "sex": "unordered"})


def test_the_role_warning_names_what_a_dp_release_makes_of_each_column():
    # 'salary' sounds sensitive: the general warning called it "sensitive", a role a DP
    # release does not have (it publishes every kept column through its hierarchy); with
    # quasi_identifiers named, the other columns are dropped and nothing is announced
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(18, 90, 4000), "sex": rng.choice(["F", "M"], 4000),
                       "salary": rng.integers(1, 9, 4000) * 1000})
    hier = {"age": intervals([10, 50]), "salary": intervals([2000, 8000])}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = df.anon.dp_anonymize(1.0, 1e-5, hierarchies=hier, steps=3, seed=1)
    said = [str(w.message) for w in caught if issubclass(w.category, pdanon.RoleWarning)]
    assert len(said) == 1 and "quasi-identifiers 'age' (real), 'sex' (unordered), 'salary'" \
        in said[0] and "sensitive" not in said[0], said
    assert set(out.anon.roles().quasi_identifiers) == {"age", "sex", "salary"}
    with warnings.catch_warnings():
        warnings.simplefilter("error", pdanon.RoleWarning)
        out = df.anon.dp_anonymize(1.0, 1e-5, hierarchies={"age": hier["age"]}, steps=3,
                                   seed=1, quasi_identifiers=["age", "sex"])
    assert list(out.columns) == ["age", "sex"]
