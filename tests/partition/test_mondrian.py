"""Mondrian (strict multidimensional partitioning): hand-checked tables, a straightforward
recursive reference implementation, and properties of the engine output."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.encode import encode_table
from pdanon.dtype import GeneralizationRange
from pdanon.models import AllOf
from pdanon.models import KAnonymity, LDiversity
from pdanon.partition import mondrian
from pdanon.partition.mondrian import FALLBACK_CUTS, _balanced_sides, mondrian_partition
from pdanon.roles import resolve_roles
from tests._helpers.frames import SURVEY_QI, skewed_survey
from tests._helpers.memory import run_measured

# the hand-checked tables below test the partitioning: they read the data's own bounds
# (options EXACT); the default widening of rare bounds is tested in tests/test_bounds.py
EXACT = {"exact_bounds": True}
pytestmark = pytest.mark.filterwarnings("ignore::pdanon.ExactBoundsWarning")


def cells(series: pd.Series) -> list:
    """Output cells as plain Python: (min, max) for ranges, frozenset for sets."""
    out = []
    for v in series.array:
        if isinstance(v, GeneralizationRange):
            out.append(v.values_set if v.kind == "unordered" else (v.min, v.max))
        else:
            out.append(v)
    return out


def groups_of(labels) -> set:
    labels = np.asarray(labels)
    return {frozenset(np.flatnonzero(labels == g).tolist()) for g in np.unique(labels)}


def partition(df, model, qi=None, sensitive=None, **kw):
    roles = resolve_roles(df, quasi_identifiers=qi, sensitive=sensitive)
    return mondrian_partition(encode_table(df, roles), model, **kw)


# ----------------------------------------------------------------------------- seed example


def test_seed_example():
    df = pd.DataFrame([[1, 1, 1, 1], [1, 1, 1, 1], [2, 2, 2, 2], [2, 2, 2, 3]], columns=list("abcd"))
    out = df.anon.k_anonymize(2, algorithm="mondrian", quasi_identifiers={c: "real" for c in "abcd"}, row_order="input", options=EXACT)
    assert cells(out["a"]) == [1, 1, 2, 2]
    assert cells(out["d"]) == [1, 1, (2, 3), (2, 3)]
    assert out.anon.info["changed_cells"] == 2
    assert out.anon.info["algorithm"] == "mondrian"


# ----------------------------------------------------------------------------- hand-checked


def test_one_column_splits_at_the_median_until_pairs():
    df = pd.DataFrame({"age": [21, 22, 23, 24, 50, 51, 52, 53]})
    out = df.anon.k_anonymize(2, algorithm="mondrian", row_order="input", options=EXACT)
    assert cells(out["age"]) == [(21, 22), (21, 22), (23, 24), (23, 24),
                                 (50, 51), (50, 51), (52, 53), (52, 53)]
    assert out.anon.info["groups"] == 4


def test_equal_values_never_straddle_a_cut():
    # median value 1: cutting before it leaves an empty half, so the cut goes after it
    df = pd.DataFrame({"x": [1, 1, 1, 1, 1, 2, 3, 4]})
    out = df.anon.k_anonymize(2, algorithm="mondrian", row_order="input", options=EXACT)
    assert cells(out["x"]) == [1, 1, 1, 1, 1, (2, 4), (2, 4), (2, 4)]


def test_cut_nearer_the_middle_is_chosen():
    # 10 rows, median value 3 spans positions 4..6: "< 3" leaves 4|6, "<= 3" leaves 7|3
    df = pd.DataFrame({"x": [1, 1, 2, 2, 3, 3, 3, 4, 5, 6]})
    p = partition(df, KAnonymity(3))
    assert groups_of(p.labels) == {frozenset(range(4)), frozenset(range(4, 7)),
                                   frozenset(range(7, 10))}


def test_next_widest_column_when_the_widest_cannot_be_split():
    # x and y both have normalized width 1; x (first) would leave 6|2 < k=3, so y is cut
    df = pd.DataFrame({"x": [0, 0, 0, 0, 0, 0, 10, 10], "y": [1, 2, 3, 4, 5, 6, 7, 8]})
    out = df.anon.k_anonymize(3, algorithm="mondrian", row_order="input", options=EXACT)
    assert cells(out["x"]) == [0, 0, 0, 0, (0, 10), (0, 10), (0, 10), (0, 10)]
    assert cells(out["y"]) == [(1, 4)] * 4 + [(5, 8)] * 4


def test_widest_normalized_column_is_split_first():
    # a spans 0..100 but inside the table only; b's relative spread is larger after one cut
    df = pd.DataFrame({"a": [0, 1, 2, 3, 97, 98, 99, 100], "b": [0, 10, 0, 10, 0, 10, 0, 10]})
    p = partition(df, KAnonymity(2))
    # first cut on a (width 1 vs b 1: tie -> first column), then b is the widest in each half
    assert groups_of(p.labels) == {frozenset({0, 2}), frozenset({1, 3}), frozenset({4, 6}),
                                   frozenset({5, 7})}


def test_ordered_width_uses_ranks():
    levels = ["lo", "mid", "hi"]
    df = pd.DataFrame({"o": pd.Categorical(["lo", "lo", "mid", "hi"], categories=levels,
                                           ordered=True)})
    out = df.anon.k_anonymize(2, algorithm="mondrian", row_order="input", options=EXACT)
    assert out["o"].astype(str).tolist() == ["lo", "lo", "[mid, hi]", "[mid, hi]"]


def test_unordered_balanced_split_pools_small_categories():
    df = pd.DataFrame({"c": ["a"] * 4 + ["b", "b", "c", "c"]})
    out = df.anon.k_anonymize(4, algorithm="mondrian", row_order="input")
    assert cells(out["c"]) == ["a"] * 4 + [frozenset({"b", "c"})] * 4


def test_unordered_balanced_split_is_greedy_largest_first():
    # counts a5 b4 c3 d2: a->left(5), b->right(4), c->right(7), d->left(7)
    df = pd.DataFrame({"c": list("aaaaabbbbcccdd")})
    out = df.anon.k_anonymize(7, algorithm="mondrian", row_order="input")
    got = cells(out["c"])
    assert got[0] == frozenset("ad") and got[5] == frozenset("bc")


def test_unordered_frequency_order_cuts_in_frequency_order():
    # frequency order a5 b4 c3 d2 (14 rows): median position 7 is in b; "<b" leaves 5|9, "<=b"
    # 9|5 -> tie keeps the "<=" cut: {a, b} | {c, d}
    df = pd.DataFrame({"c": list("aaaaabbbbcccdd")})
    p = partition(df, KAnonymity(5), unordered_split="frequency")
    assert groups_of(p.labels) == {frozenset(range(9)), frozenset(range(9, 14))}


def test_l_diversity_blocks_splits():
    df = pd.DataFrame({"age": [1, 2, 3, 4, 5, 6, 7, 8], "d": list("aabbaabb")})
    out = df.anon.l_diversify(2, sensitive=["d"], algorithm="mondrian", row_order="input",
                              options=EXACT)
    assert cells(out["age"]) == [(1, 4)] * 4 + [(5, 8)] * 4
    df2 = df.assign(d=list("abababab"))
    out2 = df2.anon.l_diversify(2, sensitive=["d"], algorithm="mondrian", row_order="input",
                                options=EXACT)
    assert cells(out2["age"]) == [(1, 2), (1, 2), (3, 4), (3, 4), (5, 6), (5, 6), (7, 8), (7, 8)]


def test_t_closeness_blocks_splits():
    df = pd.DataFrame({"age": [1, 2, 3, 4, 5, 6, 7, 8], "d": list("aaabbbab")})
    # median halves a,a,a,b and b,b,a,b are at total variation 0.25 from the table's 50/50;
    # the next cut outwards, after 5 (a,a,a,b,b | b,a,b: 0.1 and 1/6), is allowed; neither
    # side has an allowed cut (every one leaves a side at 0.5)
    strict = df.anon.t_close(0.2, sensitive=["d"], algorithm="mondrian", row_order="input")
    assert cells(strict["age"]) == [(1, 5)] * 5 + [(6, 8)] * 3
    loose = df.anon.t_close(0.3, sensitive=["d"], algorithm="mondrian", row_order="input")
    assert cells(loose["age"]) == [(1, 4)] * 4 + [(5, 8)] * 4
    assert loose.anon.t_closeness() == pytest.approx(0.25)


def test_other_cuts_nearest_the_middle_first_ties_to_more_rows_left():
    df = pd.DataFrame({"age": range(1, 9), "d": list("aabababb")})
    # the median halves a,a,b,a | b,a,b,b are at 0.25 > 0.2; the cuts after 3 and after 5
    # are both one row from the middle and allowed: the one with more rows on the left wins
    out = df.anon.t_close(0.2, sensitive=["d"], algorithm="mondrian", row_order="input")
    assert cells(out["age"]) == [(1, 3)] * 3 + [(4, 5)] * 2 + [(6, 8)] * 3


def test_skewed_sensitive_column_gets_many_classes():
    # the issue: recursive (c=2, l=3)-diversity of a fair-like survey; median cuts alone (and
    # Datafly, equal groups) publish one class of all rows, other cuts give 51
    df = skewed_survey()
    kw = dict(variant="recursive", c=2, quasi_identifiers=SURVEY_QI, sensitive=["rate"])
    out = df.anon.l_diversify(3, algorithm="mondrian", **kw)
    assert out.anon.info["groups"] == 51
    assert out.anon.l_diversity(variant="recursive", c=2) >= 3
    for algorithm in ("datafly", "equal_groups"):
        with pytest.warns(pdanon.SingleClassWarning, match=f"^{algorithm} published ONE"):
            assert df.anon.l_diversify(3, algorithm=algorithm, **kw).anon.info["groups"] == 1


def test_other_cuts_are_bounded(monkeypatch):
    # at most FALLBACK_CUTS candidates per partition, evenly spaced in distance order. Here
    # only the cut after 8 rows (a,a,a,a,b,b,b,b | a,b) is allowed; the candidates in
    # distance order are the cuts after 6, 4, 7, 3, 8, 2, 9, 1 rows; with FALLBACK_CUTS = 3
    # the 1st, 4th and 7th (r with 3r mod 8 < 3) are tried: after 6, 3 and 9 rows
    from pdanon.partition import mondrian

    df = pd.DataFrame({"age": range(1, 11), "d": list("aaaabbbbab")})
    wide = df.anon.t_close(1e-9, sensitive=["d"], algorithm="mondrian", row_order="input")
    assert cells(wide["age"]) == [(1, 8)] * 8 + [(9, 10)] * 2
    monkeypatch.setattr(mondrian, "FALLBACK_CUTS", 3)
    with pytest.warns(pdanon.SingleClassWarning, match="^mondrian published ONE"):
        narrow = df.anon.t_close(1e-9, sensitive=["d"], algorithm="mondrian", row_order="input")
    assert narrow.anon.info["groups"] == 1


def test_entropy_and_recursive_variants():
    df = pd.DataFrame({"age": range(12), "d": list("abcabcaabbcc")})
    for variant, c in (("entropy", None), ("recursive", 2)):
        out = df.anon.l_diversify(2, variant=variant, c=c, sensitive=["d"], algorithm="mondrian",
                                  options=EXACT)
        assert out.anon.l_diversity(variant=variant, c=c) >= 2
        assert out.anon.info["groups"] >= 2


def test_unknown_unordered_split():
    df = pd.DataFrame({"c": list("aabb")})
    with pytest.raises(pdanon.InvalidInputError, match="unknown unordered_split"):
        df.anon.k_anonymize(2, algorithm="mondrian", options={"unordered_split": "random"})


def test_unknown_option():
    df = pd.DataFrame({"c": list("aabb")})
    with pytest.raises(pdanon.InvalidInputError, match="does not take option"):
        df.anon.k_anonymize(2, algorithm="mondrian", options={"depth": 3})


def test_groups_numbered_by_first_row():
    df = pd.DataFrame({"x": [9, 1, 9, 1, 5, 5]})
    p = partition(df, KAnonymity(2))
    assert p.labels.tolist() == [0, 1, 0, 1, 2, 2]


# ----------------------------------------------------------------------------- reference


def reference_mondrian(columns, kinds, k, *, ok=None, unordered_split="balanced"):
    """Plain recursive Mondrian, straight from the rule in the module docstring (``ok`` None:
    k-anonymity alone, where no other cut is tried)."""
    n = len(columns[0])
    fallback = ok is not None
    ok = ok or (lambda rows: True)

    def first_codes(values):
        seen = {}
        for v in values:
            seen.setdefault(v, len(seen))
        return seen

    keys, scales, weights = [], [], []
    for values, kind in zip(columns, kinds):
        if kind == "unordered":
            code = first_codes(values)
            if unordered_split == "frequency":
                count = {v: values.count(v) for v in code}
                order = sorted(code, key=lambda v: (-count[v], code[v]))
                code = {v: i for i, v in enumerate(order)}
            keys.append([code[v] for v in values])
            weights.append(None)
            scales.append(len(code) - 1)
        else:
            srt = sorted(values)
            keys.append(list(values))
            if kind == "ordered":
                weights.append({v: srt.index(v) for v in srt})
            else:
                weights.append({v: v for v in srt})
            w = weights[-1]
            scales.append(w[srt[-1]] - w[srt[0]])

    def width(rows, j):
        if scales[j] <= 0:
            return 0.0
        vals = [keys[j][r] for r in rows]
        if kinds[j] == "unordered":
            return (len(set(vals)) - 1) / scales[j]
        return (weights[j][max(vals)] - weights[j][min(vals)]) / scales[j]

    def split(rows, j):
        vals = [keys[j][r] for r in rows]
        if kinds[j] == "unordered" and unordered_split == "balanced":
            count = {}
            for v in vals:
                count[v] = count.get(v, 0) + 1
            left_sum = right_sum = 0
            right_values = set()
            for v in sorted(count, key=lambda v: (-count[v], v)):
                if right_sum < left_sum:
                    right_values.add(v)
                    right_sum += count[v]
                else:
                    left_sum += count[v]
            go_right = [keys[j][r] in right_values for r in rows]
        else:
            srt = sorted(vals)
            size = len(srt)
            med = srt[size // 2]
            less = sum(v < med for v in srt)
            leq = sum(v <= med for v in srt)
            use_less = (abs(2 * less - size) < abs(2 * leq - size) or leq == size) and less > 0
            go_right = [(v >= med) if use_less else (v > med) for v in vals]
        return ([r for r, g in zip(rows, go_right) if not g],
                [r for r, g in zip(rows, go_right) if g])

    def other_cuts(rows, j):
        """Rule 4: the other cuts, nearest the middle first, at most FALLBACK_CUTS."""
        vals = [keys[j][r] for r in rows]
        count = {}
        for v in vals:
            count[v] = count.get(v, 0) + 1
        if kinds[j] == "unordered" and unordered_split == "balanced":
            order = sorted(count, key=lambda v: (-count[v], v))  # most frequent first
            key = {v: i for i, v in enumerate(order)}
            median = None
        else:
            key = {v: v for v in count}
            left, _ = split(rows, j)
            median = max(keys[j][r] for r in left)
        cuts = []
        for t in sorted(key.values()):
            size = sum(count[v] for v in count if key[v] <= t)
            if size >= max(k, 1) and len(rows) - size >= max(k, 1) and t != median:
                cuts.append((abs(2 * size - len(rows)), -size, t))
        cuts.sort()
        cuts = [c for i, c in enumerate(cuts) if (i * FALLBACK_CUTS) % len(cuts) < FALLBACK_CUTS]
        for _, _, t in cuts:
            yield ([r for r in rows if key[keys[j][r]] <= t],
                   [r for r in rows if key[keys[j][r]] > t])

    def rec(rows):
        widths = [width(rows, j) for j in range(len(columns))]
        for j in sorted(range(len(columns)), key=lambda j: (-widths[j], j)):
            if widths[j] <= 0:
                break
            left, right = split(rows, j)
            if len(left) >= k and len(right) >= k and ok(left) and ok(right):
                return rec(left) + rec(right)
            for left, right in other_cuts(rows, j) if fallback else ():
                if ok(left) and ok(right):
                    return rec(left) + rec(right)
        return [rows]

    return {frozenset(g) for g in rec(list(range(n)))}


tables = st.integers(1, 24).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 6), min_size=n, max_size=n),
        st.lists(st.sampled_from(["x", "y", "z", "w"]), min_size=n, max_size=n),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
        st.lists(st.sampled_from(["p", "q", "r"]), min_size=n, max_size=n),
        st.sampled_from(["real", "ordered", "unordered"]),
        st.integers(1, n),
        st.sampled_from(["balanced", "frequency"]),
    )
)


@settings(max_examples=120, deadline=None)
@given(tables)
def test_matches_reference_k(table):
    a, b, c, _, kind_c, k, how = table
    df = pd.DataFrame({"a": a, "b": b, "c": c})
    kinds = ["real", "unordered", kind_c]
    p = partition(df, KAnonymity(k), qi=dict(zip("abc", kinds)), unordered_split=how)
    expected = reference_mondrian([a, b, c], kinds, k, unordered_split=how)
    assert groups_of(p.labels) == expected


@settings(max_examples=80, deadline=None)
@given(tables, st.integers(1, 3))
def test_matches_reference_l(table, l):
    a, b, c, s, kind_c, k, how = table
    if len(set(s)) < l:
        return
    df = pd.DataFrame({"a": a, "b": b, "c": c, "s": s})
    kinds = ["ordered", "unordered", kind_c]
    model = AllOf(KAnonymity(k), LDiversity(l))
    p = partition(df, model, qi=dict(zip("abc", kinds)), sensitive=["s"], unordered_split=how)
    expected = reference_mondrian([a, b, c], kinds, k, unordered_split=how,
                                  ok=lambda rows: len({s[r] for r in rows}) >= l)
    assert groups_of(p.labels) == expected


def recursive_ok(values, l, c):
    counts = sorted((values.count(v) for v in set(values)), reverse=True)
    return len(counts) >= l and counts[0] < c * sum(counts[l - 1:])


@settings(max_examples=80, deadline=None)
@given(tables, st.integers(2, 3))
def test_matches_reference_recursive_l(table, l):
    # recursive (c=2, l)-diversity: the median cut fails often, so the other cuts decide
    a, b, c, s, kind_c, k, how = table
    s = [x if i % 3 else "p" for i, x in enumerate(s)]  # skewed towards "p"
    df = pd.DataFrame({"a": a, "b": b, "c": c, "s": s})
    kinds = ["real", "ordered", kind_c]
    model = AllOf(KAnonymity(k), LDiversity(l, variant="recursive", c=2))
    p = partition(df, model, qi=dict(zip("abc", kinds)), sensitive=["s"], unordered_split=how)
    expected = reference_mondrian([a, b, c], kinds, k, unordered_split=how,
                                  ok=lambda rows: recursive_ok([s[r] for r in rows], l, 2))
    assert groups_of(p.labels) == expected


# ----------------------------------------------------------------------------- engine output


def published_groups_exact(df, out, qi):
    """For every published range / set: exactly the min..max / the values of its rows."""
    for c in qi:
        vals = df[c].tolist()
        got = cells(out[c])
        by_cell = {}
        for v, g in zip(vals, got):
            by_cell.setdefault(g if not isinstance(g, float) or g == g else "nan", []).append(v)
        for g, members in by_cell.items():
            if isinstance(g, tuple):
                assert g == (min(members), max(members)), (c, g, members)
            elif isinstance(g, frozenset):
                assert g == frozenset(members), (c, g, members)
            else:
                assert set(members) == {g}, (c, g, members)


@settings(max_examples=60, deadline=None)
@given(tables, st.sampled_from(["generalize", "suppress", "aggregate"]))
def test_engine_output_properties(table, method):
    a, b, c, s, kind_c, k, how = table
    df = pd.DataFrame({"a": a, "b": b, "c": c, "s": s}, index=[f"r{i}" for i in range(len(a))])
    before = df.copy()
    qi = {"a": "real", "b": "unordered", "c": kind_c}
    out = df.anon.k_anonymize(k, algorithm="mondrian", method=method, quasi_identifiers=qi,
                              sensitive=["s"], options={"unordered_split": how, **EXACT},
                              row_order="input")
    pd.testing.assert_frame_equal(df, before)
    assert out.index.equals(df.index)
    assert out["s"].tolist() == s
    assert out.anon.k_anonymity() >= k
    if method == "generalize":
        published_groups_exact(df, out, list(qi))


def test_adult_k5_fast_and_valid():
    adult = pdanon.datasets.load_adult()
    out = adult.anon.k_anonymize(5, algorithm="mondrian")
    info = out.anon.info
    assert out.anon.k_anonymity() >= 5
    assert info["groups"] > 3_000  # anonypy's Mondrian: 3,785 classes; ARX local: 2,148
    assert info["seconds"] < 5


# ----------------------------------------------------------------------------- many categories


def greedy_sides_reference(key, sid):
    """The balanced rule one partition at a time: its categories, most rows first (ties: lower
    code), each to the half with fewer rows so far (ties: left). True: right."""
    side = np.zeros(len(key), dtype=bool)
    for s in np.unique(sid):
        rows = np.flatnonzero(sid == s)
        codes, counts = np.unique(key[rows], return_counts=True)
        left = right = 0
        to_right = set()
        for i in sorted(range(len(codes)), key=lambda i: (-counts[i], codes[i])):
            if right < left:
                right += counts[i]
                to_right.add(codes[i])
            else:
                left += counts[i]
        side[rows] = np.isin(key[rows], list(to_right))
    return side


@pytest.mark.parametrize("steps", [64, 0])  # 0: always by runs of equal category sizes
@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 12), min_size=2, max_size=40), min_size=1,
                max_size=6), st.integers(1, 30))
def test_balanced_sides_match_the_greedy_rule(steps, parts, spread):
    # many equal category sizes (runs of ties) and a few large ones, in several partitions
    key = np.concatenate([np.asarray(p, dtype=np.int64) * spread for p in parts])
    sid = np.repeat(np.arange(len(parts)), [len(p) for p in parts])
    keep = np.ones(len(key), dtype=bool)
    for s, p in enumerate(parts):  # the splitter only sees partitions of two categories or more
        if len(set(p)) < 2:
            keep[sid == s] = False
    if not keep.any():
        return
    key, sid = key[keep], np.unique(sid[keep], return_inverse=True)[1].reshape(-1)
    saved, mondrian.GREEDY_STEPS = mondrian.GREEDY_STEPS, steps
    try:
        got = _balanced_sides(key, sid, int(sid.max()) + 1, 13 * spread)
    finally:
        mondrian.GREEDY_STEPS = saved
    np.testing.assert_array_equal(got, greedy_sides_reference(key, sid))


@pytest.mark.parametrize("steps", [64, 0])
def test_balanced_sides_runs_of_equal_sizes_by_hand(steps, monkeypatch):
    # sizes 5, 1, 1, 1, 1, 1, 1: 5 left; then right until right >= left (1..5 -> right holds
    # five), then the last one left: left {0, 6}, right {1..5}
    monkeypatch.setattr(mondrian, "GREEDY_STEPS", steps)
    key = np.array([0] * 5 + [1, 2, 3, 4, 5, 6])
    got = _balanced_sides(key, np.zeros(len(key), dtype=np.int64), 1, 7)
    assert got.tolist() == [False] * 5 + [True] * 5 + [False]


_DISTINCT = """
import numpy as np, pandas as pd
import pdanon
n = {n}
rng = np.random.default_rng(0)
df = pd.DataFrame({{"q": [f"v{{i}}" for i in rng.permutation(n)], "s": rng.integers(0, 3, n)}})
"""


@pytest.mark.slow
def test_unordered_column_with_many_distinct_values_is_sparse():
    # issue 27: 20k rows took 0.55 GB, 50k 2.3 GB, 100k died in numpy under 6 GB
    got = run_measured(_DISTINCT.format(n=50_000), """
        out = df.anon.k_anonymize(5, algorithm="mondrian", quasi_identifiers={"q": "unordered"},
                                  sensitive=["s"])
    """, """
        assert out.anon.k_anonymity() >= 5
        sizes = out["q"].array.member_counts
        assert sizes.min() >= 5 and sizes.sum() == 50_000 + (sizes - 1).sum()
    """)
    assert got["peak"] < 150 * 2**20, got


@pytest.mark.slow
def test_balanced_split_of_many_distinct_values_is_fast():
    # the greedy split walked one category at a time: quadratic in the distinct values
    got = run_measured(_DISTINCT.format(n=200_000) + """
from pdanon.encode import encode_table
from pdanon.models import KAnonymity
from pdanon.partition.mondrian import mondrian_partition
from pdanon.roles import resolve_roles
enc = encode_table(df, resolve_roles(df, quasi_identifiers={"q": "unordered"}))
""", """
        p = mondrian_partition(enc, KAnonymity(5))
    """, """
        assert np.bincount(p.labels).min() >= 5
    """, timeout=60, trace=False)
    assert got["seconds"] < 15, got
