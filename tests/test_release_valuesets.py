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
    # the old rule (a missing value is one more value)
    result = pdanon.check_releases(frames, keys=keys, quasi_identifiers=[["q"]] * len(frames),
                                   sensitive="d", missing_sensitive="value")
    expected = _reference(frames, keys, ["q"], "d")
    assert result.intersected.to_dict() == expected
    assert (result.candidates <= result.intersected).all()
    known = pdanon.check_releases(frames, keys=keys, quasi_identifiers=[["q"]] * len(frames),
                                  sensitive="d")  # the default: a blank is no value
    assert known.intersected.to_dict() == _reference(frames, keys, ["q"], "d", known_only=True)
    # a history follows the same rule: a blank is no value by default, one with "value"
    history = pdanon.ReleaseHistory(missing_sensitive="value")
    unknown = pdanon.ReleaseHistory()
    for df, key in zip(frames, keys):
        history.add(df, keys=key, quasi_identifiers=["q"], sensitive="d")
        unknown.add(df, keys=key, quasi_identifiers=["q"], sensitive="d")
    asked = list(range(17))
    assert history.candidates(asked).tolist() == [expected.get(k, -1) for k in asked]
    by_known = _reference(frames, keys, ["q"], "d", known_only=True)
    assert unknown.candidates(asked).tolist() == [by_known.get(k, -1) for k in asked]


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


def test_history_reads_a_blank_as_no_value_by_default():
    # one class: hiv, hiv, blank, blank. Its value set is {hiv}: every person is left one
    # candidate, the signature is {hiv} and the class shows one value (m = 1). The old
    # reading: {hiv, <NA>}, two candidates, m = 2.
    b = pd.DataFrame({"age": ["[30, 39]"] * 4, "d": ["hiv", "hiv", None, None]})
    new = pdanon.ReleaseHistory()
    new.add(b, keys=[1, 2, 3, 4], quasi_identifiers=["age"], sensitive="d")
    assert new.missing_sensitive == "unknown"
    assert new.candidates([1, 2, 3, 4]).tolist() == [1, 1, 1, 1]
    assert new.invariant == [1] and list(new.values) == ["hiv"]
    old = pdanon.ReleaseHistory(missing_sensitive="value")
    old.add(b, keys=[1, 2, 3, 4], quasi_identifiers=["age"], sensitive="d")
    assert old.candidates([1, 2, 3, 4]).tolist() == [2, 2, 2, 2] and old.invariant == [2]
    # the same count as check_releases under its default
    res = pdanon.check_releases([b], keys=[[1, 2, 3, 4]], quasi_identifiers=[["age"]],
                                sensitive="d")
    assert res.intersected.tolist() == new.candidates([1, 2, 3, 4]).tolist()
    # a class of blanks only shows no value: its persons keep no candidate and no signature,
    # and it lowers no release's m (the other class shows x and y once each: m = 2)
    c = pd.DataFrame({"age": ["a", "a", "b", "b"], "d": [None, None, "x", "y"]})
    h = pdanon.ReleaseHistory()
    h.add(c, keys=[1, 2, 3, 4], quasi_identifiers=["age"], sensitive="d")
    assert h.candidates([1, 3]).tolist() == [0, 2]
    assert h.signatures_of(h.rows_of([1, 3])).tolist()[0] == -1 and h.invariant == [2]
    # the rule survives dumps/loads; a history of before the keyword reads "value"
    back = pdanon.ReleaseHistory.loads(old.dumps(publisher_only=True))
    assert back.missing_sensitive == "value"
    from pdanon.republication.releases import _history_from_state

    state = {k: v for k, v in new._state().items() if k != "missing_sensitive"}
    assert _history_from_state(state).missing_sensitive == "value"
    with pytest.raises(pdanon.InvalidInputError, match="missing_sensitive"):
        pdanon.ReleaseHistory(missing_sensitive="blank")


def test_a_release_whose_blanks_made_it_look_2_invariant_is_refused():
    # January's classes: hiv x2 + blank x2, and flu x2 + cold x2. Read with blanks as a
    # value it was "2-invariant" and February could lean on it; a blank is no value, so
    # the hiv class shows one value and invariance=2 is refused
    from pdanon.hierarchy import intervals

    jan = pd.DataFrame({"age": ["[30, 34]"] * 4 + ["[35, 39]"] * 4,
                        "d": ["hiv", "hiv", None, None, "flu", "cold", "flu", "cold"]})
    history = pdanon.ReleaseHistory()
    history.add(jan, keys=range(8), quasi_identifiers=["age"], sensitive="d")
    assert history.invariant == [1]
    feb = pd.DataFrame({"pid": range(8), "age": [31, 32, 33, 34, 36, 37, 38, 39],
                        "d": ["hiv", "hiv", "flu", "cold", "flu", "cold", "flu", "cold"]})
    rec = feb.anon.k_anonymize(2, algorithm="optimal", hierarchies={"age": intervals([5])},
                               identifiers=["pid"], quasi_identifiers=["age"],
                               sensitive=["d"]).anon.recoding
    with pytest.raises(pdanon.InvalidInputError, match="not m-invariant"):
        feb.anon.apply_recoding(rec, history=history, keys="pid", invariance=2,
                                identifiers=["pid"])
