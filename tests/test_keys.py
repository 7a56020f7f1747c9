"""Numbering person keys (pdanon.republication._keys.number_keys): the same partition as pandas' hash pass
for every kind of key, and the packed path taken where the keys' shape allows."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdanon.republication import _keys
from pdanon.republication._keys import number_keys


def _assert_numbering(keys: pd.Series, codes, persons):
    """codes number keys 0..P-1, equal keys <=> equal codes, persons[code] == key."""
    expected, uniques = pd.factorize(keys)
    assert len(codes) == len(keys)
    assert len(persons) == len(uniques)
    assert sorted(set(codes.tolist())) == list(range(len(uniques)))
    # same partition: a bijection between the two numberings
    pairs = set(zip(codes.tolist(), expected.tolist()))
    assert len(pairs) == len(uniques)
    assert [persons[c] for c in codes.tolist()] == keys.tolist()


def test_register_codes_in_key_order():
    keys = pd.Series(["P0000003", "P0000001", "P0000003", "P0000002"])
    codes, persons = number_keys(keys)
    assert codes.tolist() == [2, 0, 2, 1]
    assert list(persons) == ["P0000001", "P0000002", "P0000003"]
    assert _keys._packed_text(keys) is not None


def test_lengths_differ_and_nul_bytes_stay_apart():
    keys = pd.Series(["a", "a\x00", "ab", "", "a", "b", "\x00"])
    codes, persons = number_keys(keys)
    _assert_numbering(keys, codes, persons)
    assert list(persons) == ["", "\x00", "a", "a\x00", "ab", "b"]  # byte order


def test_non_ascii_and_object_dtype():
    keys = pd.Series(np.array(["Łódź-1", "Åsa-2", "Łódź-1", "z"], dtype=object), dtype=object)
    codes, persons = number_keys(keys)
    _assert_numbering(keys, codes, persons)


def test_sliced_and_chunked_arrow_keys():
    base = pd.Series([f"K{i:05d}" for i in range(50)])
    keys = pd.concat([base.iloc[7:30], base.iloc[3:12], base.iloc[40:]], ignore_index=True)
    assert isinstance(pa.array(keys.array), pa.ChunkedArray)
    codes, persons = number_keys(keys)
    _assert_numbering(keys, codes, persons)


def test_integer_keys_by_table_and_spread_out():
    codes, persons = number_keys(pd.Series([5, 2, 5, 9]))
    assert codes.tolist() == [1, 0, 1, 2] and list(persons) == [2, 5, 9]
    keys = pd.Series([10**12, 3, 10**12])
    codes, persons = number_keys(keys)
    _assert_numbering(keys, codes, persons)


@pytest.mark.parametrize("keys", [
    pd.Series(["a", None, "a"]),                          # a missing key: -1
    pd.Series(["x" * 40, "y" * 40, "x" * 40]),            # too long to pack
    pd.Series([1, "1", 1], dtype=object),                 # mixed types
    pd.Series(["b", "a", "b"], dtype="category"),         # categorical
])
def test_other_keys_hashed(keys):
    codes, persons = number_keys(keys)
    expected, uniques = pd.factorize(keys)
    assert codes.tolist() == expected.tolist()
    assert list(persons) == list(uniques)


def test_wide_alphabets_fall_back_to_integer_hash():
    rng = np.random.default_rng(3)
    keys = pd.Series(["".join(rng.choice(list("0123456789abcdef"), 6)) for _ in range(300)])
    number, span, _ = _keys._packed_text(keys)
    assert span > 4 * len(keys) + 1024  # not compact: numbered by hashing the integers
    codes, persons = number_keys(keys)
    _assert_numbering(keys, codes, persons)
    long_keys = keys + keys + keys + keys  # 24 bytes: more than int64 digits can hold
    assert _keys._packed_text(long_keys) is None
    codes, persons = number_keys(long_keys)
    _assert_numbering(long_keys, codes, persons)


def test_empty_strings_only():
    codes, persons = number_keys(pd.Series(["", ""]))
    assert codes.tolist() == [0, 0] and list(persons) == [""]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(codec="utf-8"), max_size=12), min_size=1,
                max_size=40),
       st.sampled_from(["str", object]))
def test_any_text_keys_partition_like_pandas(values, dtype):
    keys = pd.Series(values, dtype=dtype)
    codes, persons = number_keys(keys)
    _assert_numbering(keys, codes, persons)
