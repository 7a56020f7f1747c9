"""Unordered cells are stored sparsely: memory O(rows + members), never rows × categories.

The memory tests run in a child interpreter under an address-space limit
(:mod:`tests._helpers.memory`), so a dense membership matrix fails at once instead of taking
the machine down (issue 27: ``pdanon.read_csv`` of 200,000 two-member sets asked numpy for
74.5 GiB).
"""

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.dtype import GeneralizationArray, GeneralizationRange
from tests._helpers.memory import run_measured

MB = 2**20

# 200,000 distinct two-member sets over 400,000 categories: 4 MB of text
_SET_FILE = """
import io
import numpy as np, pandas as pd
import pdanon
n = 200_000
text = "s\\n" + "".join(f'"{{v{2 * i}, v{2 * i + 1}}}"\\n' for i in range(n))
assert 3.5e6 < len(text) < 5e6
"""


@pytest.mark.slow
def test_read_csv_of_many_two_member_sets_is_sparse():
    got = run_measured(_SET_FILE, """
        df = pdanon.read_csv(io.StringIO(text), schema={"s": "unordered"})
    """, """
        arr = df["s"].array
        assert len(arr) == n and len(arr.categories) == 2 * n
        assert df["s"].iloc[7] == {"v14", "v15"}
    """)
    assert got["peak"] < 400 * MB, got


@pytest.mark.slow
def test_parquet_round_trip_of_many_sets_is_sparse(tmp_path):
    path = tmp_path / "sets.parquet"
    got = run_measured(_SET_FILE + f"""
df = pdanon.read_csv(io.StringIO(text), schema={{"s": "unordered"}})
path = {str(path)!r}
""", """
        df.to_parquet(path)
        back = pd.read_parquet(path)
    """, """
        assert back["s"].dtype == df["s"].dtype
        assert (back["s"].array == df["s"].array).all()
    """)
    assert got["peak"] < 300 * MB, got


_BIG_COLUMN = """
import numpy as np, pandas as pd
from pdanon.dtype import GeneralizationArray
rng = np.random.default_rng(0)
n, c = 200_000, 200_000
cats = [f"c{i}" for i in range(c)]
groups = rng.integers(0, 60_000, n)          # about 60,000 distinct sets of ~3 members
values = rng.integers(0, c, n)
arr = GeneralizationArray.from_groups(values, groups, kind="unordered", categories=cats)
s = pd.Series(arr)
"""


@pytest.mark.slow
def test_column_operations_on_many_categories_are_sparse():
    got = run_measured(_BIG_COLUMN, """
        eq = arr == arr[0]
        inside = arr.contains(np.asarray(cats, dtype=object)[values])
        codes, uniq = arr.factorize()
        order = s.sort_values().index
        h = pd.util.hash_pandas_object(s, index=False)
        both = pd.concat([s, pd.Series(arr.copy()[::-1])], ignore_index=True)
        other = arr.astype(pd.api.types.pandas_dtype(arr.dtype).__class__(
            "unordered", cats[::-1]))
        counts = s.value_counts()
        offsets, members = arr.members()
        sizes = arr.member_counts
        text = arr.to_text()
    """, """
        assert inside.all() and eq.sum() >= 1
        assert len(uniq) == len(counts) and (h.groupby(codes).nunique() == 1).all()
        assert (other == arr).all() and len(both) == 2 * n
        assert len(members) == sizes.sum() == offsets[-1]
    """)
    assert got["peak"] < 300 * MB, got


def test_from_groups_with_many_categories_is_sparse():
    got = run_measured("""
        import numpy as np
        from pdanon.dtype import GeneralizationArray
        n = 100_000
        rng = np.random.default_rng(1)
        values = rng.permutation(n)          # 100,000 categories, each once
        groups = np.arange(n) // 5           # 20,000 sets of five members
    """, """
        arr = GeneralizationArray.from_groups(values, groups, kind="unordered",
                                              categories=np.arange(n))
    """, """
        assert arr.member_counts.tolist() == [5] * n
        assert len(set(arr.codes.tolist())) == n // 5
    """)
    assert got["peak"] < 60 * MB, got


# ----------------------------------------------------------------------------- the sparse API


def test_members_and_member_counts_by_hand():
    arr = pd.array(["b", {"a", "c"}, None, {"c", "b", "a"}], dtype="generalization[unordered]")
    offsets, codes = arr.members()
    assert offsets.tolist() == [0, 1, 3, 3, 6]
    assert codes.tolist() == [1, 0, 2, 0, 1, 2]  # positions in categories ['a', 'b', 'c']
    assert arr.member_counts.tolist() == [1, 2, 0, 3]
    np.testing.assert_array_equal(arr.membership, [[0, 1, 0], [1, 0, 1], [0, 0, 0], [1, 1, 1]])
    with pytest.raises(AttributeError):
        pd.array([1, 2], dtype="generalization[real]").members()


def test_from_members_by_hand():
    arr = GeneralizationArray.from_members([0, 2, 3, 3, 6], [2, 0, 1, 1, 1, 0], ["a", "b", "c"],
                                           mask=[False, False, False, True])
    assert arr[0] == frozenset({"a", "c"}) and arr[1] == "b"
    assert arr.isna().tolist() == [False, False, True, True]
    rep = GeneralizationArray.from_members([0, 3], [1, 1, 1], ["a", "b"])  # repeats count once
    assert rep.tolist() == ["b"]
    with pytest.raises(ValueError, match="category positions"):
        GeneralizationArray.from_members([0, 2], [0, 5], ["a", "b"])
    with pytest.raises(ValueError, match="offsets"):
        GeneralizationArray.from_members([0, 3], [0, 1], ["a", "b"])


_cats = [f"k{i}" for i in range(9)]
_cell = st.one_of(st.none(), st.sampled_from(_cats),
                  st.sets(st.sampled_from(_cats), min_size=2, max_size=6).map(frozenset))


def _python_key(v):
    """The documented order: sets by their member positions as tuples (plain = 1 member)."""
    members = v if isinstance(v, frozenset) else {v}
    return tuple(sorted(_cats.index(m) for m in members))


def _as_python(v):
    return v.values_set if isinstance(v, GeneralizationRange) else v


@pytest.mark.parametrize("bitmap", [32, 0])  # 0: contains searches the members, no bitmap
@settings(max_examples=150, deadline=None)
@given(st.lists(_cell, min_size=1, max_size=30), st.lists(_cell, min_size=1, max_size=30),
       st.permutations(_cats))
def test_set_columns_agree_with_python_sets(bitmap, a, b, order):
    dtype = pdanon.GeneralizationDtype("unordered", _cats)
    x = pd.array(a, dtype=dtype)
    y = pd.array(b, dtype=dtype)  # a table of its own
    # members / from_members round trip
    offsets, codes = x.members()
    back = GeneralizationArray.from_members(offsets, codes, _cats)
    assert [_as_python(v) for v in back] == [_as_python(v) for v in x]
    assert x.member_counts.tolist() == [0 if v is None else (len(v) if isinstance(v, frozenset)
                                        else 1) for v in a]
    # equality across tables, concat, factorize
    both = pd.concat([pd.Series(x), pd.Series(y)], ignore_index=True).array
    cells = a + b
    codes, uniq = both.factorize()
    for i, u in enumerate(cells):
        for j, v in enumerate(cells):
            if u is not None and v is not None:
                assert (codes[i] == codes[j]) == (u == v)
    assert [_as_python(v) for v in both] == [_as_python(v) for v in pd.array(cells, dtype=dtype)]
    if len(b) == len(a):
        assert (x == y).tolist() == [u is not None and u == v for u, v in zip(a, b)]
    # hashing: equal cells hash alike, whatever the table or the category order
    other = x.astype(pdanon.GeneralizationDtype("unordered", list(order)))
    assert [_as_python(v) for v in other] == [_as_python(v) for v in x]
    h1 = pd.util.hash_pandas_object(pd.Series(x), index=False).to_numpy()
    h2 = pd.util.hash_pandas_object(pd.Series(other), index=False).to_numpy()
    np.testing.assert_array_equal(h1, h2)
    # sorting: by member positions, like tuples
    ranks = x._values_for_argsort()
    present = [i for i, v in enumerate(a) if v is not None]
    for i in present:
        for j in present:
            assert (ranks[i] < ranks[j]) == (_python_key(a[i]) < _python_key(a[j]))
    # containment of a member value, of a value before / after / between the members
    from pdanon.dtype import storage

    saved, storage.BITMAP_BYTES = storage.BITMAP_BYTES, bitmap
    try:
        for pick in (min, max, lambda v: "k4", lambda v: "k0", lambda v: "k8"):
            probe = [pick(sorted(v)) if isinstance(v, frozenset) else (v or "k0") for v in a]
            expect = [v is not None and (p in v if isinstance(v, frozenset) else p == v)
                      for p, v in zip(probe, a)]
            assert x.contains(probe).tolist() == expect
    finally:
        storage.BITMAP_BYTES = saved


def test_hash_collisions_never_merge_different_sets(monkeypatch):
    from pdanon.dtype import storage

    # every set of one length now has the same key: only the member-by-member check tells
    monkeypatch.setattr(storage, "_mix", lambda x, seed: np.zeros(len(x), dtype=np.uint64))
    cells = [{"a", "b"}, {"a", "c"}, {"b", "c"}, {"a", "b"}, "a", {"a", "b", "c"}, {"b", "c"}]
    arr = pd.array(cells, dtype="generalization[unordered]")
    assert len(arr._table) == 4
    assert arr.codes.tolist() == [3, 4, 5, 3, 0, 6, 5]
    assert [_as_python(v) for v in arr] == [frozenset(c) if isinstance(c, set) else c
                                            for c in cells]
    arr[4] = {"a", "c"}  # looked up in the table: found, not appended
    assert arr.codes[4] == 4 and len(arr._table) == 4
    other = pd.array([{"c", "a"}, {"c", "b"}, {"a", "b", "c"}], dtype=arr.dtype)
    assert (arr.take([1, 2, 5]) == other).all()


def test_sort_values_of_long_sets_with_shared_prefixes():
    # nested sets share long prefixes: ranks by prefix doubling, a prefix first
    cats = list(range(300))
    cells = [set(range(k)) for k in (300, 2, 150, 151, 3)] + [{0, 299}, 5]
    arr = pd.array(cells, dtype=pdanon.GeneralizationDtype("unordered", cats))
    order = pd.Series(arr).sort_values().index.tolist()
    assert order == [1, 4, 2, 3, 0, 5, 6]


def test_parquet_written_by_the_dense_storage_reads_back():
    # written by pdanon at commit be08286, before sets were stored sparsely (the Arrow layout did not
    # change); kept as base64 text (the repository ignores *.parquet)
    import base64
    from pathlib import Path

    path = Path(__file__).parents[1] / "data" / "sets_written_by_dense_storage.parquet.b64"
    back = pd.read_parquet(io.BytesIO(base64.b64decode(path.read_text())))
    assert back["race"].dtype == pdanon.GeneralizationDtype("unordered",
                                                            ["Asian", "Black", "White"])
    assert back["race"].isna().tolist() == [False, False, True, False, False, False]
    assert [_as_python(v) for v in back["race"].dropna()] == [
        "White", frozenset({"Asian", "White"}), frozenset({"Asian", "Black", "White"}),
        "Black", frozenset({"Asian", "White"})]
    assert back["race"].array.codes[1] == back["race"].array.codes[5]
    assert back["code"].dtype.categories.tolist() == [1, 2, 3, 10]
    assert [_as_python(v) for v in back["code"].dropna()] == [
        3, frozenset({1, 2}), frozenset({2, 3, 10}), 1, frozenset({1, 2})]
    mixed = [_as_python(v) for v in back["mixed"].dropna()]
    assert back["mixed"].dtype.categories.tolist() == [1, "a", "1", 2.5]
    assert mixed == [1, frozenset({"1", "a"}), frozenset({1, 2.5}), "a",
                     frozenset({1, "1", "a", 2.5})]
    assert sorted(map(repr, mixed[4])) == ["'1'", "'a'", "1", "2.5"]  # 1 and '1' both kept


@pytest.mark.parametrize("budget", [2, 1 << 22])
def test_population_matches_of_sets_by_hand(budget):
    # class 0 publishes {a, b}, class 1 'c', class 2 a missing cell (holds missing values only)
    from pdanon.containment import population_matches

    published = pd.DataFrame({"z": pd.array([{"a", "b"}, {"a", "b"}, "c", None],
                                            dtype="generalization[unordered]")})
    population = pd.DataFrame({"z": ["a", "b", "c", None, "d", "a"]})
    counts, shared = population_matches(published, np.array([0, 0, 1, 2]), population, ["z"],
                                        shared=True, budget=budget)
    assert counts.tolist() == [3, 1, 1] and shared.tolist() == [1, 1, 1]
