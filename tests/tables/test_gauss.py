"""Secondary suppression by Gaussian elimination (method="gauss"): hand-checked tables, the
exactness of the elimination, and properties on random tables (the pattern passes the audit)."""

from __future__ import annotations


import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon  # noqa: F401  (registers df.anon)
from pdanon.hierarchy import tree
from pdanon.tables import audit, build
from pdanon.tables.deviations import Deviations, blocks, uncovered
from pdanon.tables.gauss import coordinates, eliminate
from pdanon.tables.rules import primary
from tables_data import frame_from_counts



def model_matrix(table) -> np.ndarray:
    """Dense leaf cells × cells 0/1 matrix (small tables only): the Kronecker product of the
    dimensions' members."""
    m = np.ones((1, 1), dtype=np.int64)
    for d in table.dims:
        m = np.kron(m, d.members.toarray().astype(np.int64))
    return m


def rank(m: np.ndarray) -> int:
    """Exact rank over the rationals (fraction-free elimination on Python integers)."""
    rows = [list(map(int, r)) for r in m]
    r, ncol = 0, len(rows[0]) if rows else 0
    for c in range(ncol):
        piv = next((i for i in range(r, len(rows)) if rows[i][c]), None)
        if piv is None:
            continue
        rows[r], rows[piv] = rows[piv], rows[r]
        for i in range(len(rows)):
            if i != r and rows[i][c]:
                f, g = rows[r][c], rows[i][c]
                rows[i] = [f * a - g * b for a, b in zip(rows[i], rows[r])]
        r += 1
    return r


def determined(X: np.ndarray, published: np.ndarray, cell: int) -> bool:
    """Is ``cell``'s column a combination of the published columns (exact)?"""
    P = X[:, published]
    return rank(np.column_stack([P, X[:, cell]])) == rank(P) if P.size else \
        not X[:, cell].any()


# ----------------------------------------------------------------------------- hand-checked

def test_textbook_3x3_one_suppressed_cell_needs_a_partner_in_its_row_and_column():
    # one interior cell below the threshold: alone, it is its row total minus the rest; gauss
    # withholds a second cell in its row and one in its column (and the fourth corner)
    counts = np.array([[4, 1, 5], [3, 6, 2], [5, 4, 7]])
    t = build(frame_from_counts(counts), index="r", columns="c")
    p = t.protect({"min_frequency": 2}, method="gauss")
    c = p.cells
    hidden = c[c.status != "safe"]
    assert hidden.loc[hidden.status == "primary", ["r", "c"]].values.tolist() == [["r0", "c1"]]
    row, col = hidden[hidden.r == "r0"], hidden[hidden.c == "c1"]
    assert len(row) >= 2 and len(col) >= 2
    assert p.audit.ok and p.info["method"] == "gauss"
    # the elimination alone already does it: no LP repair needed for a width-1 level here
    assert p.info["elimination_secondary"] == int((c.status == "secondary").sum())
    # primary only is not enough (the audit's textbook case): gauss had to add cells
    assert not audit(t, c.index[c.status == "primary"], rules={"min_frequency": 2}).ok


def test_secondaries_are_the_cheap_cells():
    # r0c1 = 1 is primary; the cheapest partners are r0c0 (2) and r1c1 (2), then r1c0 (3)
    counts = np.array([[2, 1, 50], [3, 2, 60], [40, 30, 70]])
    t = build(frame_from_counts(counts), index="r", columns="c")
    p = t.protect({"min_frequency": 2}, method="gauss")
    sec = p.cells.loc[p.cells.status == "secondary", ["r", "c"]].values.tolist()
    assert sorted(sec) == [["r0", "c0"], ["r1", "c0"], ["r1", "c1"]]
    assert p.audit.ok


def test_elimination_never_leaves_a_primary_cell_determined():
    # on a 3-D table with a hierarchy, check the elimination's own pattern (before the repair)
    # with an exact rank computation on the dense model matrix
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 4, size=(3, 3, 2))
    df = frame_from_counts(counts, names=("a", "b", "c"))
    h = tree({"G": ["a0", "a1"], "H": ["a2"]})
    t = build(df, index=["a", "b"], columns="c", hierarchies={"a": h})
    levels = primary(t, {"min_frequency": 3})
    fixed = (levels.status == "primary").to_numpy()
    x = t.cells.value.to_numpy(float)
    cand = np.flatnonzero(~fixed)
    out = eliminate(coordinates(t.dims, x + 1), cand.tolist(), np.flatnonzero(fixed).tolist())
    withheld = fixed.copy()
    withheld[cand[out]] = True
    X = model_matrix(t)
    published = np.flatnonzero(~withheld)
    for p in np.flatnonzero(fixed):
        assert not determined(X, published, p)
    # and it is not wasteful: each secondary cell, published, would determine a primary cell
    for s in np.flatnonzero(withheld & ~fixed):
        more = np.sort(np.append(published, s))
        assert any(determined(X, more, p) for p in np.flatnonzero(fixed))


def test_coordinates_span_the_same_columns_as_the_model_matrix():
    # the change of basis keeps every linear dependence: the coordinates are M @ X for an
    # invertible M, so ranks of every column subset agree (checked on random subsets)
    df = frame_from_counts(np.ones((4, 3), dtype=int))
    h = tree({"G": ["r0", "r1", "r2"], "H": ["r3"]})
    t = build(df, index="r", columns="c", hierarchies={"r": h})
    X = model_matrix(t)
    cols = coordinates(t.dims, np.arange(len(t.cells), dtype=float))
    C = np.zeros_like(X)
    for j, col in enumerate(cols):
        for r, v in col.items():
            C[r, j] = v
    rng = np.random.default_rng(0)
    for _ in range(30):
        sub = rng.choice(X.shape[1], size=rng.integers(1, X.shape[1]), replace=False)
        assert rank(X[:, sub]) == rank(C[:, sub])


def test_elimination_is_exact_where_floating_point_is_not():
    # the primary column b = k1*a1 + k2*a2 + e3 is NOT a combination of a1 and a2 (the e3
    # part), but its entries are ~1e20 and floating point loses the e3: it sees rank 2
    k1, k2 = 3 ** 41, 5 ** 29
    a1 = {0: 1, 1: 7, 2: 2}
    a2 = {0: 2, 1: 3, 2: 1}
    b = {r: k1 * a1.get(r, 0) + k2 * a2.get(r, 0) + (r == 2) for r in range(3)}
    dense = np.array([[a1[r], a2[r], b[r]] for r in range(3)], dtype=np.float64)
    assert np.linalg.matrix_rank(dense) < 3  # float: b looks determined by a1, a2
    assert rank(np.array([[a1[r], a2[r], b[r]] for r in range(3)], dtype=object)) == 3
    e3 = {2: 1}
    # exact: publishing a1 and a2 leaves b undetermined; e3 then would complete it
    out = eliminate([dict(b), dict(a1), dict(a2), dict(e3)], [1, 2, 3], [0])
    assert out.tolist() == [False, False, True]
    # and when b really is a combination (no e3 part), the second candidate is withheld
    b2 = {r: k1 * a1[r] + k2 * a2[r] for r in range(3)}
    out = eliminate([b2, dict(a1), dict(a2), dict(e3)], [1, 2, 3], [0])
    assert out.tolist() == [False, True, False]


def test_many_cells_gauss_agrees_with_an_exact_rank_check():
    # 6 x 5 x 3 with margins (7 * 6 * 4 = 168 cells): every primary cell left undetermined
    rng = np.random.default_rng(11)
    counts = rng.integers(0, 5, size=(6, 5, 3))
    t = build(frame_from_counts(counts, names=("a", "b", "c")), index=["a", "b"], columns="c")
    p = t.protect({"min_frequency": 3}, method="gauss")
    X = model_matrix(t)
    published = np.flatnonzero((p.cells.status == "safe").to_numpy())
    for q in np.flatnonzero((p.cells.status == "primary").to_numpy()):
        assert not determined(X, published, q)
    assert p.audit.ok


def test_repair_covers_protection_levels_the_elimination_does_not():
    # 8 of the 9 interior cells are primary (n = 3): with only r2c1 = 3 and the margins
    # published, no primary cell is a combination of published cells (8 unknowns, 5
    # independent equations), so the elimination withholds nothing more. But the singletons
    # need an upper level of 2, and r2c0 + r2c2 = row total - 3 = 2 caps each of them at 2:
    # the attacker's range of r2c0 is [0, 2], short of 1 + 2. The repair withholds r2c1.
    counts = np.array([[2, 1, 1], [2, 2, 2], [1, 3, 1]])
    t = build(frame_from_counts(counts), index="r", columns="c")
    c = t.cells
    prim = c.index[(c.r != "Total") & (c.c != "Total") & ~((c.r == "r2") & (c.c == "c1"))]
    r = audit(t, prim, rules={"min_frequency": 3})
    assert not r.ok
    assert r.unsafe.set_index(["r", "c"]).loc[("r2", "c0"), "high"] == 2.0
    p = t.protect({"min_frequency": 3}, method="gauss")
    assert p.info["elimination_secondary"] == 0 and p.info["repair_added"] == 1
    assert p.cells.loc[p.cells.status == "secondary", ["r", "c"]].values.tolist() == \
        [["r2", "c1"]]
    assert p.audit.ok


# ----------------------------------------------------------------------------- properties

@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(2, 4), st.integers(2, 4), st.data(), st.sampled_from([2, 3]),
       st.booleans(), st.sampled_from(["value", "count"]))
def test_gauss_patterns_pass_the_audit(nr, nc, data, n, hierarchical, cost):
    counts = np.array(data.draw(st.lists(st.integers(0, 4), min_size=nr * nc,
                                         max_size=nr * nc))).reshape(nr, nc)
    if counts.sum() == 0:
        return
    hier = None
    if hierarchical:
        leaves = [f"r{i}" for i in range(nr)]
        cut = data.draw(st.integers(1, nr - 1))
        hier = {"r": tree({"G": leaves[:cut], "H": leaves[cut:]})}
    t = build(frame_from_counts(counts), index="r", columns="c", hierarchies=hier)
    p = t.protect({"min_frequency": n}, method="gauss", cost=cost)
    assert pdanon.tables.audit(p).ok
    levels = primary(t, {"min_frequency": n})
    x = t.cells.value.to_numpy(float)
    dev = Deviations(t.constraints.astype(float).tocsr(), x, float(x.max() + 10), None, None)
    assert uncovered(dev, blocks(levels), (p.cells.status != "safe").to_numpy()) == []


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from([(2, 2), (2, 3)]), st.data())
def test_gauss_withholds_no_less_than_the_optimum(shape, data):
    counts = np.array(data.draw(st.lists(st.integers(0, 3), min_size=shape[0] * shape[1],
                                         max_size=shape[0] * shape[1]))).reshape(shape)
    if counts.sum() == 0:
        return
    t = build(frame_from_counts(counts), index="r", columns="c")
    g = t.protect({"min_frequency": 3}, method="gauss")
    o = t.protect({"min_frequency": 3}, method="optimal")
    assert o.info["optimal"] in (True, None)
    assert g.info["withheld_value"] >= o.info["withheld_value"] - 1e-9
    assert g.audit.ok and o.audit.ok
