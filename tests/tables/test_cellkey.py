"""Cell-key perturbation: record keys, p-tables built from parameters or read from ONS's
format, and perturbed counts consistent across tables (issue 52 point 5). The side by side
with ONS's package is benchmarks/compare_cellkey.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon  # noqa: F401  (registers df.anon)
from pdanon._errors import InvalidInputError
from pdanon.tables import PTable, build, cell_key, ptable, read_ptable, record_keys


def row_stats(pt):
    p = pt.probabilities.to_numpy()
    v = pt.probabilities.columns.to_numpy(dtype=float)
    mean = p @ v
    return p, v, mean, p @ (v * v) - mean ** 2


# ------------------------------------------------------------------------------ p-tables

def test_ptable_d2_v1_satisfies_its_constraints():
    pt = ptable(D=2, V=1)
    p, v, mean, var = row_stats(pt)
    assert list(pt.probabilities.index) == [0, 1, 2, 3]
    assert np.allclose(p.sum(axis=1), 1)
    assert np.allclose(mean, 0, atol=1e-9)
    assert np.allclose(var[1:], 1, atol=1e-9)  # zeros stay zero; every other row has V
    assert p[0].tolist() == [0, 0, 1, 0, 0]
    assert (p[:, np.abs(v) > 2] == 0).all()
    i = pt.probabilities.index.to_numpy()[:, None]
    assert (p[(i + v) < 0] == 0).all()  # never negative
    # the full row is symmetric (maximum entropy: p ∝ exp(b v²)) and puts most on 0
    assert np.allclose(p[3], p[3][::-1]) and p[3].argmax() == 2
    # and the cell-key grid realizes it: mean 0 and variance 1 over the 65,536 keys
    assert np.allclose(pt.grid[1:].mean(axis=1), 0, atol=1e-4)
    assert np.allclose(pt.grid[1:].var(axis=1), 1, atol=1e-3)


def test_ptable_hand_checked_rows():
    # D = 1, V = 0.5: three noises, three equations: p(±1) = 0.25, p(0) = 0.5
    pt = ptable(D=1, V=0.5, modulus=4)
    assert np.allclose(pt.probabilities.loc[1], [0.25, 0.5, 0.25])
    # keys sit at (k + 0.5) / 4 = 1/8, 3/8, 5/8, 7/8 in the cumulative 0.25, 0.75, 1
    assert pt.grid[1].tolist() == [-1, 0, 0, 1]
    # js = 1: a count of 1 may become 0 or 2..3, never 1; ±1 alone gives V = 1 exactly
    pt = ptable(D=2, V=1, js=1)
    assert np.allclose(pt.probabilities.loc[1], [0, 0.5, 0, 0.5, 0])
    # D = 3, V = 2, js = 2: a count of 1 can only go to 0 (-1) or 3 (+2): 2/3 and 1/3
    pt = ptable(D=3, V=2, js=2)
    assert np.allclose(pt.probabilities.loc[1], [0, 0, 2 / 3, 0, 0, 1 / 3, 0])


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(D=st.integers(1, 6), frac=st.floats(0.02, 0.98), js=st.integers(0, 6))
def test_ptable_constraints_property(D, frac, js):
    js = min(js, D)
    V = frac * D * D
    pt = ptable(D=D, V=V, js=js, modulus=1024)
    p, v, mean, var = row_stats(pt)
    i = pt.probabilities.index.to_numpy()[:, None]
    j = i + v
    assert np.allclose(p.sum(axis=1), 1)
    assert np.allclose(mean, 0, atol=1e-7)
    assert (p[(j < 0) | ((j >= 1) & (j <= js))] == 0).all()
    assert (p[:, np.abs(v) > D] == 0).all()
    assert np.isclose(var[-1], V, atol=1e-7)  # the row every large count uses
    assert np.allclose(pt.rows["variance"], var.round(12))
    # every perturbed count in the grid obeys the same bounds
    out = pt.probabilities.index.to_numpy()[:, None] + pt.grid
    assert (out >= 0).all() and not ((out >= 1) & (out <= js)).any()
    assert (np.abs(pt.grid) <= D).all()


@pytest.mark.parametrize("D, V", [(2, 4), (2, 5.5), (1, 1), (3, 0), (2, -1)])
def test_impossible_variance_names_the_fix(D, V):
    with pytest.raises(InvalidInputError, match="impossible for D"):
        ptable(D=D, V=V)


def test_bad_ptable_parameters():
    with pytest.raises(InvalidInputError, match="js=3 must be in 0..D=2"):
        ptable(D=2, V=1, js=3)
    with pytest.raises(InvalidInputError, match="D=0 must be >= 1"):
        ptable(D=0, V=1)
    with pytest.raises(InvalidInputError, match="must be an integer"):
        ptable(D=2.5, V=1)


# --------------------------------------------------------------------- ONS's file format

def ons_like(P=750, M=256):
    """A p-table in ONS's format whose noise encodes its row: +1 when pcv is odd, -1 when
    even and the key is odd, else 0."""
    pcv = np.repeat(np.arange(1, P + 1), M)
    ckey = np.tile(np.arange(M), P)
    pvalue = np.where(pcv % 2 == 1, 1, np.where(ckey % 2 == 1, -1, 0))
    return pd.DataFrame({"pcv": pcv, "ckey": ckey, "pvalue": pvalue})


def test_read_ptable_lookup_and_ons_cycle(tmp_path):
    path = tmp_path / "pt.csv"
    ons_like().to_csv(path, index=False)
    pt = read_ptable(path)
    assert pt.modulus == 256 and pt.grid.shape == (751, 256)
    # counts above 750 cycle through rows 501..750 as ONS's ((v - 1) % 250) + 501
    v = np.array([0, 1, 750, 751, 1000, 1001, 1250, 123456])
    assert pt.row_of(v).tolist() == [0, 1, 750, 501, 750, 501, 750, ((123456 - 1) % 250) + 501]
    assert pt.noise([0, 3, 4, 4, 751, 752], [5, 0, 0, 1, 7, 7]).tolist() == [0, 1, 0, -1, 1, -1]
    # the same frame round-trips through to_frame
    assert pt.to_frame(max_pcv=750).equals(ons_like())


def test_built_ptable_exports_the_noise_it_applies():
    pt = ptable(D=3, V=2, js=2, modulus=256)
    back = read_ptable(pt.to_frame(max_pcv=750))
    v = np.repeat(np.arange(3000), 256)
    k = np.tile(np.arange(256), 3000)
    assert (pt.noise(v, k) == back.noise(v, k)).all()


def test_bad_ptable_files(tmp_path):
    path = tmp_path / "wrong.csv"
    pd.DataFrame({"i": [1], "j": [1], "p": [1.0], "v": [0]}).to_csv(path, index=False)
    with pytest.raises(InvalidInputError, match=r"lacks the column\(s\) \['pcv', 'ckey', "
                                                r"'pvalue'\].*sdcTools"):
        read_ptable(path)
    holes = ons_like(P=3, M=4).iloc[1:]
    with pytest.raises(InvalidInputError, match="lacks 1 .* first pcv=1, ckey=0"):
        read_ptable(holes, cycle=1)
    neg = ons_like(P=3, M=4)
    neg.loc[0, "pvalue"] = -2
    with pytest.raises(InvalidInputError, match="makes the count negative"):
        read_ptable(neg, cycle=1)
    with pytest.raises(InvalidInputError, match="appear twice"):
        read_ptable(pd.concat([ons_like(P=2, M=2)] * 2), cycle=1)
    with pytest.raises(InvalidInputError, match="cycle=250 must be an integer in 1..3"):
        read_ptable(ons_like(P=3, M=4))
    with pytest.raises(InvalidInputError, match="cannot read"):
        read_ptable(tmp_path / "absent.csv")


# ---------------------------------------------------------------------------- record keys

def test_record_keys_uniform_and_kept_with_the_rows():
    df = pd.DataFrame({"x": range(51_200)}, index=np.arange(51_200) * 3)
    k = record_keys(df, bits=8)
    assert k.index.equals(df.index) and k.between(0, 255).all()
    counts = np.bincount(k, minlength=256)
    # 200 expected per key; a chi-square with 255 df beyond 400 has p < 1e-8
    assert ((counts - 200) ** 2 / 200).sum() < 400
    assert not record_keys(df, bits=8).equals(k)  # fresh from the CSPRNG each call
    assert record_keys(df, seed=4).equals(record_keys(df, seed=4))
    assert record_keys(df, bits=16).max() > 255
    with pytest.raises(InvalidInputError, match="bits=40"):
        record_keys(df, bits=40)


# ------------------------------------------------------------------------ perturbed tables

def hand_ptable():
    """Rows 0..3 over 256 keys: zeros kept; otherwise noise (k mod 3) - 1."""
    grid = np.zeros((4, 256), dtype=np.int64)
    grid[1:] = np.arange(256) % 3 - 1
    return PTable(grid, cycle=1)


def test_cell_key_hand_checked():
    df = pd.DataFrame({"g": ["a", "a", "b"]})
    keys = pd.Series([10, 20, 250])
    out = cell_key(build(df, index="g"), hand_ptable(), keys)
    # a: rows 0, 1 -> key 30, 30 % 3 = 0 -> -1; b: key 250 -> 250 % 3 = 1 -> 0;
    # Total: 280 mod 256 = 24 -> -1 (a cell of its own, not a + b re-added)
    assert out.cells[["g", "original", "noise", "value"]].values.tolist() == [
        ["a", 2, -1, 1], ["b", 1, 0, 1], ["Total", 3, -1, 2]]
    assert out.info["changed"] == 2


def test_margins_are_cells_of_their_own():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"r": rng.choice(list("abcd"), 400), "s": rng.choice(list("xy"), 400)})
    keys = record_keys(df, seed=1)
    pt = ptable(D=2, V=1)
    out = df.anon.table(index="r", columns="s").cell_key(pt, keys)
    c = out.cells
    total = c[(c.r == "Total") & (c.s == "Total")]
    assert total.value.item() == 400 + pt.noise([400], [keys.sum() % 2 ** 16]).item()
    inner = c[(c.r != "Total") & (c.s != "Total")]
    assert total.value.item() != inner.value.sum()  # not additive: margins not re-added


def test_same_cell_same_noise_in_every_table():
    rng = np.random.default_rng(5)
    n = 3000
    df = pd.DataFrame({"region": rng.choice(list("NSEW"), n), "sex": rng.choice(list("fm"), n),
                       "age": rng.choice(["0-17", "18-64", "65+"], n)})
    keys = record_keys(df, seed=2)
    pt = ptable(D=3, V=2, js=2)
    a = df.anon.table(index="region", columns="sex").cell_key(pt, keys).cells
    b = df.anon.table(index="region", columns="age").cell_key(pt, keys).cells
    c = df.anon.table(index=["region", "sex"], columns="age").cell_key(pt, keys).cells
    ma = a[a.sex == "Total"].set_index("region").value
    mb = b[b.age == "Total"].set_index("region").value
    assert ma.equals(mb) and (a.noise != 0).any()
    # the 3-D table's margin over age is the 2-D table's cell
    mc = c[c.age == "Total"].set_index(["region", "sex"]).value
    assert mc.equals(a.set_index(["region", "sex"]).value.loc[mc.index])
    # rows in another order, keys carried with them: the same published table
    perm = rng.permutation(n)
    shuffled = df.iloc[perm].anon.table(index="region", columns="sex").cell_key(
        pt, keys.iloc[perm]).cells
    assert shuffled.value.tolist() == a.value.tolist()
    # keys given in another order than the frame's rows are aligned on the index
    again = df.anon.table(index="region", columns="sex").cell_key(pt, keys.iloc[perm]).cells
    assert again.value.tolist() == a.value.tolist()


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_consistency_property(data):
    n = data.draw(st.integers(1, 60))
    r = data.draw(st.lists(st.sampled_from("abc"), min_size=n, max_size=n))
    s = data.draw(st.lists(st.sampled_from("xyz"), min_size=n, max_size=n))
    t = data.draw(st.lists(st.sampled_from("pq"), min_size=n, max_size=n))
    keys = pd.Series(data.draw(st.lists(st.integers(0, 255), min_size=n, max_size=n)))
    df = pd.DataFrame({"r": r, "s": s, "t": t})
    pt = ptable(D=2, V=1, js=1, modulus=256)
    cells = [df.anon.table(index=ix, columns=col).cell_key(pt, keys).cells
             for ix, col in ((["r"], "s"), (["r"], "t"), (["r", "s"], "t"))]
    seen = {}
    for c in cells:  # a cell is the set of rows its labels select: the same rows, same value
        dims = [d for d in ("r", "s", "t") if d in c.columns]
        for _, row in c.iterrows():
            mask = np.ones(n, dtype=bool)
            for d in dims:
                if row[d] != "Total":
                    mask &= df[d].to_numpy() == row[d]
            key = tuple(np.flatnonzero(mask))
            assert row.original == len(key)
            expect = len(key) + pt.noise([len(key)], [int(keys[list(key)].sum()) % 256]).item()
            assert row.value == expect and row.value >= 0 and row.value != 1
            assert seen.setdefault(key, row.value) == row.value


def test_keys_never_in_the_published_output():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"g": rng.choice(list("ab"), 50), "h": rng.choice(list("uv"), 50)})
    keys = record_keys(df, seed=9)
    out = df.anon.table(index="g", columns="h").cell_key(ptable(D=2, V=1), keys)
    pub = out.to_frame()
    assert pub.columns.tolist() == ["g", "h", "value"]
    assert set(vars(out)) == {"table", "cells", "info"}
    assert "record_key" not in out.cells.columns and "ckey" not in out.cells.columns
    assert not any(np.array_equal(np.asarray(v), keys.to_numpy()) for v in out.info.values()
                   if not isinstance(v, (str, dict)))
    assert out.pivot().shape == (3, 3)


def test_bad_keys_and_tables_name_the_fix():
    df = pd.DataFrame({"g": list("aabb") * 20, "x": [1.0] * 80})
    t = build(df, index="g")
    pt = ptable(D=2, V=1)
    with pytest.raises(InvalidInputError, match="79 record keys for a table built from 80"):
        cell_key(t, pt, record_keys(df, seed=1).iloc[:79].to_numpy())
    with pytest.raises(InvalidInputError, match="keys' index is not the microdata's"):
        cell_key(t, pt, record_keys(df, seed=1).set_axis(range(100, 180)))
    with pytest.raises(InvalidInputError, match="bits=8"):
        cell_key(t, ptable(D=2, V=1, modulus=256), record_keys(df, seed=1))
    with pytest.raises(InvalidInputError, match="drawn for a smaller key range"):
        cell_key(t, pt, record_keys(df, bits=8, seed=1))
    with pytest.raises(InvalidInputError, match="no record key"):
        cell_key(t, pt, record_keys(df, seed=1).astype("Int64").where(lambda s: s > 9000))
    with pytest.raises(InvalidInputError, match="is a name"):
        cell_key(t, pt, "record_key")
    with pytest.raises(InvalidInputError, match="must be a pdanon.tables.PTable"):
        cell_key(t, ons_like(P=3, M=4), record_keys(df, seed=1))
    with pytest.raises(InvalidInputError, match="built by df.anon.table"):
        cell_key(df, pt, record_keys(df, seed=1))


# ----------------------------------------------------------------------------- magnitudes

def test_magnitudes_hand_checked():
    df = pd.DataFrame({"g": ["a", "a", "b"], "x": [10.0, 5.0, 7.0]})
    keys = pd.Series([1, 2, 3])
    t = build(df, index="g", values="x", aggfunc="sum")
    # keys: a 1 + 2 = 3, b 3, Total 6; last row's noise (k mod 3) - 1 -> -1, -1, -1
    out = cell_key(t, hand_ptable(), keys, m=0.1)
    assert np.allclose(out.cells.value, [15 - 1.0, 7 - 0.7, 22 - 1.0])
    # the second contribution uses the key shifted by floor(256 * 0.618...) = 158:
    # a: 3 + 158 = 161 -> +1, weighted 0.5 * 0.1 * 5; b has no second contribution;
    # Total: its second largest is 7, key 6 + 158 = 164 -> +1
    out = cell_key(t, hand_ptable(), keys, m=0.1, top_k=2, epsilon=[1, 0.5])
    assert np.allclose(out.cells.value, [14 + 0.25, 6.3, 21 + 0.35])
    assert out.info["top_k"] == 2 and out.info["epsilon"] == [1.0, 0.5]


def test_magnitudes_consistent_bounded_and_checked():
    rng = np.random.default_rng(8)
    n = 2000
    df = pd.DataFrame({"r": rng.choice(list("abcd"), n), "s": rng.choice(list("xy"), n),
                       "t": rng.choice(list("pq"), n), "firm": rng.integers(0, 300, n),
                       "x": rng.gamma(2.0, 100.0, n)})
    keys = record_keys(df, seed=6)
    pt = ptable(D=3, V=2)
    kw = dict(values="x", aggfunc="sum", contributor="firm")
    a = df.anon.table(index="r", columns="s", **kw).cell_key(pt, keys, m=0.05, top_k=2)
    b = df.anon.table(index="r", columns="t", **kw).cell_key(pt, keys, m=0.05, top_k=2)
    ca, cb = a.cells, b.cells
    assert np.allclose(ca[ca.s == "Total"].value.to_numpy(), cb[cb.t == "Total"].value.to_numpy())
    top = a.table.largest(2)
    assert (np.abs(ca.noise) <= 0.05 * 3 * top.sum(axis=1) + 1e-9).all()
    assert (ca.noise != 0).mean() > 0.5 and (ca.value >= 0).all()
    t = df.anon.table(index="r", **kw)
    with pytest.raises(InvalidInputError, match="needs m="):
        cell_key(t, pt, keys)
    with pytest.raises(InvalidInputError, match="at most 1/D"):
        cell_key(t, pt, keys, m=0.5)
    with pytest.raises(InvalidInputError, match="epsilon="):
        cell_key(t, pt, keys, m=0.05, top_k=2, epsilon=[0.5, 1])
    with pytest.raises(InvalidInputError, match="are for sum tables"):
        cell_key(df.anon.table(index="r"), pt, keys, m=0.05)
