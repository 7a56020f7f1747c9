"""The nearest (TimeOptimal) partitioner's distances: the reference's floating-point order."""

import numpy as np
import pandas as pd
import pytest

from pdanon.encode import encode_table
from pdanon.partition.nearest import RowCoordinates, nearest_partition, pairwise_sum
from pdanon.roles import resolve_roles


@pytest.mark.parametrize("length", [1, 2, 7, 8, 9, 15, 16, 17, 63, 128, 129, 136, 257, 300])
def test_pairwise_sum_adds_in_numpys_order(length):
    """Bit for bit numpy's 1-D float64 sum, for every branch (left to right below 8 terms,
    eight partial sums up to 128, halves above); ``None`` terms are exact zeros."""
    rng = np.random.default_rng(length)
    x = rng.random((length, 50)) * 10.0 ** rng.integers(-8, 8, (length, 1))
    x[rng.random(length) < 0.2] = 0.0
    zero = ~x.any(axis=1)
    got = pairwise_sum(lambda j: None if zero[j] else x[j].copy(), length)
    want = np.array([np.sum(x[:, c]) for c in range(50)])
    if zero.all():
        assert got is None
    else:
        assert np.array_equal(got, want)
        # and a plain left-to-right sum does differ somewhere (the order matters) from 8 on
        if length >= 8:
            assert not np.array_equal(np.cumsum(x, axis=0)[-1], want)


def _reference_distances(df, kinds):
    """The reference's distance written out pair by pair: per cell a coordinate ((x - min) /
    (max - min), first sorted position / n, 0 for unordered), numpy's sum of the absolute
    coordinate differences, plus the count of differing unordered cells."""
    n = len(df)
    coords = np.zeros((n, len(kinds)))
    for j, (col, kind) in enumerate(kinds.items()):
        values = df[col].tolist()
        if kind == "ordered":
            ordered = sorted(values)
            coords[:, j] = [ordered.index(v) / n for v in values]
        elif kind == "real":
            lo, hi = min(values), max(values)
            coords[:, j] = [0.0 if hi == lo else (v - lo) / (hi - lo) for v in values]
    unordered = df[[c for c, k in kinds.items() if k == "unordered"]].to_numpy(dtype=object)
    return np.array([[np.abs(coords[a] - coords[b]).sum() + (unordered[a] != unordered[b]).sum()
                      for b in range(n)] for a in range(n)])


@pytest.mark.parametrize("width", [1, 3, 7, 8, 9, 12, 17, 24])
def test_distances_equal_the_reference_bit_for_bit(width):
    rng = np.random.default_rng(width)
    n = 30
    kinds, data = {}, {}
    for j in range(width):
        kind = ["real", "ordered", "unordered"][j % 3]
        kinds[f"c{j}"] = kind
        if kind == "real":
            data[f"c{j}"] = np.round(rng.uniform(-3, 3, n), 1) if j % 2 else rng.integers(0, 7, n)
        elif kind == "ordered":
            data[f"c{j}"] = rng.integers(0, 5, n)
        else:
            data[f"c{j}"] = rng.choice(list("abc"), n)
    df = pd.DataFrame(data)
    enc = encode_table(df, resolve_roles(df, quasi_identifiers=kinds))
    rc = RowCoordinates.from_encoded(enc)
    want = _reference_distances(df, kinds)
    assert np.array_equal(rc.matrix(), want)
    for s in (0, 7, n - 1):
        assert np.array_equal(rc.distances(s), want[s])
    part = np.array([3, 9, 11, 20, 29])
    assert np.array_equal(rc.take(part).distances(1), want[9][part])


def test_a_tie_on_paper_is_decided_as_the_reference_decides_it():
    """x = 3, 4, 2, 0, 5: rows 1 and 2 are both 1/5 from row 0 on paper, but in the reference's
    order |0.8 - 0.6| = 0.20000000000000007 > |0.6 - 0.4| = 0.19999999999999996, so row 2 joins
    row 0 (cp2025 1.0.3 groups [0, 2], [1, 4, 3]; |a - b| / 5 would give row 1)."""
    df = pd.DataFrame({"x": [3, 4, 2, 0, 5]})
    enc = encode_table(df, resolve_roles(df, quasi_identifiers={"x": "real"}))
    d = RowCoordinates.from_encoded(enc).distances(0)
    assert d[1] == 0.20000000000000007 and d[2] == 0.19999999999999996
    p = nearest_partition(enc, k=2)
    assert p.labels.tolist() == [0, 1, 0, 1, 1]
    assert p.order.tolist() == [0, 2, 1, 4, 3]


def test_hamming_and_constant_columns():
    df = pd.DataFrame({"a": [1, 1, 2], "b": [5.0, 5.0, 5.0], "c": ["x", "y", "y"]})
    enc = encode_table(df, resolve_roles(df, quasi_identifiers={"a": "real", "b": "real",
                                                                "c": "unordered"}))
    assert RowCoordinates.from_encoded(enc).distances(0).tolist() == [0.0, 1.0, 2.0]
    assert RowCoordinates.from_encoded(enc, hamming=True).distances(0).tolist() == [0.0, 1.0, 2.0]
    only_constant = encode_table(df[["b"]], resolve_roles(df[["b"]]))
    assert RowCoordinates.from_encoded(only_constant).distances(2).tolist() == [0.0, 0.0, 0.0]


def test_constant_columns_only_group_after_compaction():
    """Every coordinate is an exact zero: the distances keep the length of the compacted rows
    (regression: a boolean mask was taken as that many rows)."""
    df = pd.DataFrame({"age": [7] * 10})
    enc = encode_table(df, resolve_roles(df, quasi_identifiers={"age": "real"}))
    rc = RowCoordinates.from_encoded(enc)
    mask = np.arange(10) % 3 == 0
    assert rc.take(mask).distances(0).tolist() == [0.0] * 4
    assert nearest_partition(enc, k=2).labels.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
