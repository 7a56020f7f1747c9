"""The composition attack's value sets kept once per class (pdanon.republication.valuesets): the same
counts as intersecting per person's sets by hand, in memory linear in the rows."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import pdanon
from pdanon.republication import valuesets
from pdanon.republication.valuesets import ValueSets, common_counts


def _reference(releases, keys, qi, sensitive, known_only=False):
    """Per person the intersection of the value sets of their classes, by Python sets
    (``known_only``: a missing value adds none)."""
    left = {}
    for df, key in zip(releases, keys):
        groups = df.groupby(qi, dropna=False, sort=False)[sensitive]
        sets = {name: set(map(repr, g.dropna() if known_only else g)) for name, g in groups}
        for (name, g) in groups:
            for k in key[g.index.to_numpy()]:
                left[k] = left.get(k, sets[name]) & sets[name]
    return {k: len(v) for k, v in left.items()}


releases_strategy = st.integers(1, 3).flatmap(lambda r: st.tuples(
    st.lists(st.tuples(st.integers(1, 12), st.integers(0, 2**31)), min_size=r, max_size=r),
    st.just(r)))


@settings(max_examples=60, deadline=None)
@given(releases_strategy, st.integers(0, 2**31))
def test_candidates_equal_a_reference_by_python_sets(spec, seed):
    rng = np.random.default_rng(seed)
    frames, keys = [], []
    for rows, _ in spec[0]:
        qi = rng.integers(0, 3, rows)
        d = rng.integers(0, 4, rows).astype(float)
        d[rng.random(rows) < 0.2] = np.nan  # a missing value is one more value
        frames.append(pd.DataFrame({"q": qi, "d": d}))
        keys.append(rng.permutation(15)[:rows])
    # the old rule (a missing value is one more value), which ReleaseHistory keeps too
    result = pdanon.check_releases(frames, keys=keys, quasi_identifiers=[["q"]] * len(frames),
                                   sensitive="d", missing_sensitive="value")
    expected = _reference(frames, keys, ["q"], "d")
    assert result.intersected.to_dict() == expected
    assert (result.candidates <= result.intersected).all()
    known = pdanon.check_releases(frames, keys=keys, quasi_identifiers=[["q"]] * len(frames),
                                  sensitive="d")  # the default: a blank is no value
    assert known.intersected.to_dict() == _reference(frames, keys, ["q"], "d", known_only=True)
    history = pdanon.ReleaseHistory()
    for df, key in zip(frames, keys):
        history.add(df, keys=key, quasi_identifiers=["q"], sensitive="d")
    asked = list(range(17))
    assert history.candidates(asked).tolist() == [expected.get(k, -1) for k in asked]


def test_left_after_counts_the_next_release_without_recording_it():
    h = pdanon.ReleaseHistory()
    first = pd.DataFrame({"q": [0, 0, 0, 1, 1], "d": ["a", "b", "c", "a", "d"]})
    h.add(first, keys=[1, 2, 3, 4, 5], quasi_identifiers=["q"], sensitive="d")
    # person 1 ({a,b,c}) meets {a, b}; 4 ({a,d}) meets {a, b}; 9 is new: {c}
    codes = h.value_codes(pd.Series(["a", "b", "c"]), grow=True)
    left = h.left_after(h.rows_of([1, 4, 9]), np.array([0, 0, 1]), codes)
    assert left.tolist() == [2, 1, 1]
    assert h.candidates([1, 4, 9]).tolist() == [3, 2, -1]


def test_counting_is_done_in_bounded_chunks(monkeypatch):
    """Large classes are listed a chunk at a time: the same counts with a tiny chunk."""
    monkeypatch.setattr(valuesets, "CHUNK_PAIRS", 3)
    store = ValueSets()
    store.add_classes(np.array([0] * 6 + [1] * 4), np.array([1, 2, 3, 4, 5, 6, 3, 4, 9, 9]))
    store.add_classes(np.array([0] * 5 + [1]), np.array([2, 3, 4, 9, 7, 1]))
    counts = common_counts(store, np.array([0, 0, 1, 1, 2, 3]), np.array([0, 2, 1, 2, 3, 0]), 5)
    assert counts.tolist() == [3, 3, 1, 6, -1]


@pytest.mark.slow
def test_two_releases_of_120000_distinct_values_stay_under_1_gb():
    """The case that ended in MemoryError at 3.6 GB with a bit per person per value."""
    import tracemalloc

    rng = np.random.default_rng(5)
    n = 120_000
    value = rng.random(n)  # per person one value, 120,000 distinct ones
    keys = [np.arange(n), rng.permutation(n)]
    frames = [pd.DataFrame({"q": rng.integers(0, n // 5, n), "d": value[key]}) for key in keys]
    tracemalloc.start()
    result = pdanon.check_releases(frames, keys=keys, quasi_identifiers=[["q"], ["q"]],
                                   sensitive="d")
    h = pdanon.ReleaseHistory()
    for df, key in zip(frames, keys):
        h.add(df, keys=key, quasi_identifiers=["q"], sensitive="d")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 30
    assert result.value_changed == 0 and result.combined_l == 1
    assert result.candidates.max() > 1
    assert (h.candidates(np.arange(n)) == result.intersected.sort_index().to_numpy()).all()


@pytest.mark.parametrize("keys, message", [
    (5, "expected one key per row .* got int"),
    (None, "got NoneType"),
    ("abcd", "got str"),
    ({1: 2, 3: 4, 5: 6, 7: 8}, "got dict"),
    ({1, 2, 3, 4}, "got set"),
    (np.arange(8).reshape(4, 2), r"a flat array of keys, got an array of shape \(4, 2\)"),
    ([[1], [2], [3], [4]], r"a key is a list \(\[1\]\); keys are numbers or text"),
    (pd.DataFrame({"a": [1, 2, 3, 4]}), "got DataFrame"),
    ([1, 2, None, 4], "1 row\\(s\\) have no key, the first is row 2"),
    ([1, 2], "2 keys for the release's 4 rows"),
])
def test_odd_key_arrays_are_refused_naming_the_keys(keys, message):
    r = pd.DataFrame({"q": [1, 1, 2, 2], "d": list("abab")})
    with pytest.raises(pdanon.InvalidInputError, match=r"keys\[0\] \(release 0\): .*" + message):
        pdanon.check_releases([r], keys=[keys], quasi_identifiers=[["q"]], sensitive="d")
    h = pdanon.ReleaseHistory()
    with pytest.raises(pdanon.InvalidInputError, match="keys: .*" + message):
        h.add(r, keys=keys, quasi_identifiers=["q"], sensitive="d")
    if keys is not None and not isinstance(keys, str):  # None: no keys; a str: a column
        with pytest.raises(pdanon.InvalidInputError, match="keys: .*" + message):
            r.anon.apply_recoding(_recoding(), history=h, keys=keys, invariance=1,
                                  quasi_identifiers=["q"], sensitive=["d"])
    h.add(r, keys=[1, 2, 3, 4], quasi_identifiers=["q"], sensitive="d")
    if not isinstance(keys, list) or len(keys) == 4:  # candidates takes any number of keys
        with pytest.raises(pdanon.InvalidInputError, match="keys: .*" + message):
            h.candidates(keys)


def _recoding():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = pd.DataFrame({"q": [1, 1, 2, 2], "d": list("abab")}).anon.k_anonymize(
            2, quasi_identifiers=["q"], sensitive=["d"], algorithm="optimal")
    return out.anon.recoding
