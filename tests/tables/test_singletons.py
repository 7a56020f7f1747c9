"""Singletons (a contributor who knows its own cell) and empty cells in secondary suppression,
checked on hand-worked tables and by an attacker written here with SciPy's linprog."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import pdanon  # noqa: F401  (registers df.anon)
from pdanon._errors import InvalidInputError
from pdanon.tables import audit, build
from tests.tables.test_tables import frame_from_counts


def two_singletons() -> pd.DataFrame:
    """One line: a (one firm, 100), b (one firm, 80), c (three firms of 50): Total 330."""
    return pd.DataFrame({"g": ["a", "b", "c", "c", "c"], "x": [100.0, 80.0, 50.0, 50.0, 50.0]})


def test_two_singletons_in_a_line_need_a_third_cell():
    t = build(two_singletons(), index="g", values="x", aggfunc="sum")
    rules = {"p_percent": 10}
    # the outsider: a and b withheld, c and Total published -> a + b = 180, each in [0, 180]
    alone = t.protect(rules, singletons=False)
    st_alone = dict(zip(alone.cells.g, alone.cells.status))
    assert st_alone == {"a": "primary", "b": "primary", "c": "safe", "Total": "safe"}
    assert alone.audit.ok
    # ... but a's firm knows a = 100 and computes b = 180 - 100 exactly: a third cell is needed
    both = t.protect(rules)  # "auto": on for magnitude tables
    st_both = dict(zip(both.cells.g, both.cells.status))
    assert st_both["a"] == st_both["b"] == "primary"
    assert "secondary" in (st_both["c"], st_both["Total"])
    assert both.info["singleton_blocks"] > 0


def test_counts_of_rows_do_not_model_singletons_unless_asked():
    df = pd.DataFrame({"g": ["a", "b"] + ["c"] * 5})
    t = build(df, index="g")
    off = t.protect({"min_frequency": 2})
    on = t.protect({"min_frequency": 2}, singletons=True)
    assert off.info["singleton_blocks"] == 0
    assert (off.cells.status != "safe").sum() == 2  # a and b: a + b = 2, each in [0, 2]
    assert (on.cells.status != "safe").sum() == 3
    assert on.info["singleton_blocks"] > 0


def test_a_holders_cells_are_frozen_together():
    """Firm 1 is the only contributor of a and of d (two lines); both are frozen when it
    attacks, so a cell it could recompute from either stays protected."""
    df = pd.DataFrame({"r": ["r0", "r0", "r0", "r1", "r1", "r1", "r1"],
                       "c": ["a", "b", "c", "a", "b", "c", "c"],
                       "firm": [1, 2, 3, 1, 4, 5, 6],
                       "x": [90.0, 70.0, 60.0, 80.0, 75.0, 40.0, 40.0]})
    t = build(df, index="r", columns="c", values="x", aggfunc="sum", contributor="firm")
    holder = t.sole_holder()
    cells = t.cells.assign(h=holder)
    col_a = cells[(cells.c == "a")]
    # (r0, a) and (r1, a) are firm 1's alone, and so is their column total (a, Total)
    assert len(set(col_a.h)) == 1 and (col_a.h >= 0).all()
    p = t.protect({"p_percent": 10})
    assert p.audit.ok


def attacker_range(table, withheld: np.ndarray, known: list[int], cell: int):
    """min and max of ``cell`` over non-negative tables that agree with every published cell
    and with the ``known`` cells (a coalition's own), by linprog on the table's equations."""
    x = table.cells["value"].to_numpy(dtype=float)
    A = table.constraints.toarray().astype(float)
    fixed = ~withheld.copy()
    fixed[known] = True
    bounds = [(x[i], x[i]) if fixed[i] else (0, None) for i in range(len(x))]
    c = np.zeros(len(x))
    c[cell] = 1.0
    lo = linprog(c, A_eq=A, b_eq=np.zeros(len(A)), bounds=bounds, method="highs")
    hi = linprog(-c, A_eq=A, b_eq=np.zeros(len(A)), bounds=bounds, method="highs")
    return lo.fun, (-hi.fun if hi.status == 0 else np.inf)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.lists(st.floats(1, 100).map(round), min_size=0, max_size=3),
                min_size=6, max_size=6),
       st.sampled_from(["optimal", "fast"]))
def test_no_singletons_holder_recomputes_a_primary_cell(contribs, method):
    """Random 2 x 3 magnitude tables (0 to 3 firms per cell), p % rule: for every primary cell
    of one firm and every other primary cell in one of its lines, the firm's own knowledge
    leaves the other cell its protection levels."""
    rows = [(f"r{k // 3}", f"c{k % 3}", v) for k, cell in enumerate(contribs) for v in cell]
    if len(rows) < 2:
        return
    df = pd.DataFrame(rows, columns=["r", "c", "x"])
    t = build(df, index="r", columns="c", values="x", aggfunc="sum")
    try:
        p = t.protect({"p_percent": 20}, method=method)
    except InvalidInputError:
        return  # no pattern exists (said before any is returned)
    assert p.audit.ok
    withheld = (p.cells.status != "safe").to_numpy()
    prim = np.flatnonzero((p.cells.status == "primary").to_numpy())
    holder = t.sole_holder()
    A = abs(t.constraints.toarray())
    x = t.cells["value"].to_numpy()
    for q in prim:
        if holder[q] < 0:
            continue
        known = list(np.flatnonzero(holder == holder[q]))
        lines = A[A[:, q] > 0]
        near = np.flatnonzero(lines.sum(axis=0) > 0)
        for cell in near:
            if cell in known or p.cells.status.iloc[cell] != "primary":
                continue
            lo, hi = attacker_range(t, withheld, known, cell)
            row = p.cells.iloc[cell]
            assert hi >= x[cell] + row["upper"] - 1e-6
            assert lo <= x[cell] - row["lower"] + 1e-6


def test_empty_cells_are_not_secondaries_by_default():
    # the cheapest pattern for the frequency rule n = 2 withholds an empty cell (11 against 13)
    counts = np.array([[1, 0, 3], [3, 4, 0], [4, 0, 0]])
    t = build(frame_from_counts(counts), index="r", columns="c")
    default = t.protect({"min_frequency": 2}, cost="value")
    assert (default.cells.loc[default.cells.frequency == 0, "status"] == "safe").all()
    assert default.audit.ok
    allowed = t.protect({"min_frequency": 2}, cost="value", secondary_zeros=True)
    assert allowed.audit.ok
    assert (allowed.cells.loc[allowed.cells.frequency == 0, "status"] == "secondary").any()
    assert allowed.info["withheld_value"] == 11 and default.info["withheld_value"] == 13


@pytest.mark.parametrize("method", ["optimal", "fast", "gauss", "modular"])
def test_no_method_withholds_an_empty_cell_by_default(method):
    counts = np.array([[1, 0, 3], [3, 4, 0], [4, 0, 0]])
    t = build(frame_from_counts(counts), index="r", columns="c")
    p = t.protect({"min_frequency": 2}, method=method)
    assert (p.cells.loc[p.cells.frequency == 0, "status"] == "safe").all()
    assert p.audit.ok


@pytest.mark.parametrize("method", ["optimal", "fast", "gauss", "modular"])
def test_every_method_protects_against_a_singletons_holder(method):
    t = build(two_singletons(), index="g", values="x", aggfunc="sum")
    p = t.protect({"p_percent": 10}, method=method)
    st_ = dict(zip(p.cells.g, p.cells.status))
    assert "secondary" in (st_["c"], st_["Total"])


def test_bad_keywords_are_refused():
    t = build(two_singletons(), index="g", values="x", aggfunc="sum")
    with pytest.raises(InvalidInputError, match="singletons="):
        t.protect({"p_percent": 10}, singletons="yes")
    with pytest.raises(InvalidInputError, match="secondary_zeros="):
        t.protect({"p_percent": 10}, secondary_zeros=1)


def test_outsider_audit_unchanged_by_the_singleton_rule():
    t = build(two_singletons(), index="g", values="x", aggfunc="sum")
    p = t.protect({"p_percent": 10})
    r = audit(t, (p.cells.status != "safe").to_numpy(), rules={"p_percent": 10})
    assert r.ok
