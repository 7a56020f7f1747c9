"""The frequency rule's named cases: group attribute disclosure ("all in one", the zero case)
and within-group disclosure ("all but one"), on the handbook's table and against an attacker
written here with scipy's linprog on random 2-D tables."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import pdanon  # noqa: F401  (registers df.anon)
from pdanon._errors import InvalidInputError
from pdanon.tables import primary
from pdanon.tables.structure import dimension, sibling_groups
from tables_data import frame_from_counts



def handbook() -> pd.DataFrame:
    """Marital status by hours worked (Hundepool et al. 2012, §5.2): every married person
    works full time; the divorced split 5 and 1."""
    rows = ([("Married", "FT")] * 6 + [("Divorced", "FT")] * 5 + [("Divorced", "PT")]
            + [("Single", "FT")] * 2 + [("Single", "PT")] * 2)
    return pd.DataFrame(rows, columns=["marital", "hours"])


def test_the_handbook_table_names_both_cases():
    t = handbook().anon.table(index="marital", columns="hours")
    got = pd.concat([t.cells, primary(t, {"group": True})], axis=1)
    flagged = got[got.status == "primary"].set_index(["marital", "hours"])
    assert sorted(flagged.index) == [("Divorced", "PT"), ("Married", "PT")]
    assert flagged.loc[("Married", "PT"), "rule"] == "group (all in one)"
    assert flagged.loc[("Divorced", "PT"), "rule"] == "group (all but one)"
    assert (flagged["upper"] == 1).all() and (flagged["lower"] == 0).all()
    # Single splits 2 and 2, the margins 13 and 3: nothing to say about a group there
    assert set(got.loc[got.marital == "Single", "status"]) == {"safe"}


def test_without_the_rule_the_zero_cell_is_published_and_discloses():
    t = handbook().anon.table(index="marital", columns="hours")
    cells = t.protect({"min_frequency": 2}).cells.set_index(["marital", "hours"])
    # no small cell in the Married row: its 0 is published, so "all married work full time"
    assert cells.loc[("Married", "PT"), "status"] == "safe"
    cells = t.protect({"min_frequency": 2, "group": True}).cells.set_index(["marital", "hours"])
    assert cells.loc[("Married", "PT"), "status"] == "primary"
    assert cells.loc[("Married", "FT"), "status"] != "safe"  # else 6 - 6 = 0 again


def test_margin_rows_and_tables_without_margins_have_groups():
    # every person is in c0: the column margin row (Total, c0..c2) is "all in one" too
    t = frame_from_counts(np.array([[3, 0, 0], [4, 0, 0]])).anon.table(index="r", columns="c")
    got = pd.concat([t.cells, primary(t, {"group": True})], axis=1).set_index(["r", "c"])
    assert got.loc[("Total", "c1"), "rule"] == "group (all in one)"
    # no margins: the categories side by side are the group
    d = dimension(pd.Series(["a", "b", "b"], name="x"), margins=False)
    assert sibling_groups([d]).toarray().tolist() == [[1, 1]]
    t = frame_from_counts(np.array([[3, 0, 0], [2, 1, 1]])).anon.table(
        index="r", columns="c", margins=False)
    got = pd.concat([t.cells, primary(t, {"group": True})], axis=1).set_index(["r", "c"])
    assert got.loc[("r0", "c1"), "rule"] == "group (all in one)"
    assert got.loc[("r1", "c1"), "status"] == "safe"  # r1 splits 2, 1, 1: no group case


def test_group_is_for_counts_and_takes_a_bool():
    df = handbook().assign(v=1.0)
    t = df.anon.table(index="marital", columns="hours", values="v", aggfunc="sum")
    with pytest.raises(InvalidInputError, match="group"):
        t.protect({"group": True})
    t = df.anon.table(index="marital", columns="hours")
    with pytest.raises(InvalidInputError, match="True or False"):
        t.protect({"group": "yes"})


def attacker_max(counts: np.ndarray, cells: pd.DataFrame, target, own=None) -> float:
    """The largest value a reader of the published cells (and the equations of an r × c
    table with margins) can give the interior cell ``target``; ``own`` = a cell the reader
    knows holds at least one person (themselves). 2-D tables with margins are totally
    unimodular, so the linear program's optimum is an integer table."""
    nr, nc = counts.shape
    full = np.zeros((nr + 1, nc + 1))
    full[:nr, :nc] = counts
    full[:nr, nc] = counts.sum(axis=1)
    full[nr, :nc] = counts.sum(axis=0)
    full[nr, nc] = counts.sum()
    label_r = [f"r{i}" for i in range(nr)] + ["Total"]
    label_c = [f"c{j}" for j in range(nc)] + ["Total"]
    status = cells.set_index(["r", "c"])["status"]
    idx = {(i, j): k for k, (i, j) in enumerate(itertools.product(range(nr + 1), range(nc + 1)))}
    rows = []
    for i in range(nr + 1):  # each row's total is the sum of its cells
        a = np.zeros(len(idx))
        a[idx[(i, nc)]] = 1
        for j in range(nc):
            a[idx[(i, j)]] = -1
        rows.append(a)
    for j in range(nc + 1):
        a = np.zeros(len(idx))
        a[idx[(nr, j)]] = 1
        for i in range(nr):
            a[idx[(i, j)]] = -1
        rows.append(a)
    bounds = []
    for (i, j), k in sorted(idx.items(), key=lambda kv: kv[1]):
        if status.loc[(label_r[i], label_c[j])] == "safe":
            bounds.append((full[i, j], full[i, j]))
        else:
            bounds.append((1 if own == (i, j) else 0, None))
    c = np.zeros(len(idx))
    c[idx[target]] = -1
    res = linprog(c, A_eq=np.array(rows), b_eq=np.zeros(len(rows)), bounds=bounds,
                  method="highs")
    assert res.status in (0, 3)
    return np.inf if res.status == 3 else -res.fun


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.integers(0, 4), min_size=6, max_size=6), st.sampled_from(["optimal", "fast"]))
def test_no_reader_can_rule_out_one_more_person(flat, method):
    counts = np.array(flat).reshape(2, 3)
    if counts.sum() == 0:
        return
    t = frame_from_counts(counts).anon.table(index="r", columns="c")
    p = t.protect({"group": True}, method=method)
    for _, row in p.cells[p.cells["rule"].str.startswith("group")].iterrows():
        if "Total" in (row["r"], row["c"]):
            continue  # the interior cells carry the property; margins are checked by audit
        target = (int(row["r"][1:]), int(row["c"][1:]))
        value = counts[target]
        # an outsider cannot tell that nobody more is there ...
        assert attacker_max(counts, p.cells, target) >= value + 1
        # ... nor can the one person of an "all but one" row, who knows they are there
        if value == 1:
            assert attacker_max(counts, p.cells, target, own=target) >= 2
    # and no row of the published table shows everybody, or all but one, in one column
    status = p.cells.set_index(["r", "c"])["status"]
    for i in range(2):
        published = [counts[i, j] for j in range(3) if status.loc[(f"r{i}", f"c{j}")] == "safe"]
        if len(published) == 3 and counts[i].sum() > 0:
            occupied = sorted(v for v in counts[i] if v > 0)
            assert not (len(occupied) == 1 or (len(occupied) == 2 and occupied[0] == 1))


@pytest.mark.parametrize("method", ["optimal", "fast", "gauss"])
def test_empty_categories_are_not_flagged_and_flagged_sub_totals_can_move(method):
    # nobody is in c0: the published (Total, c0) = 0 says so of everyone, so r0's 0 in c0
    # is no group disclosure (and the sub-total would pin it)
    t = frame_from_counts(np.array([[0, 0, 1], [0, 2, 1]])).anon.table(index="r", columns="c")
    got = pd.concat([t.cells, primary(t, {"group": True})], axis=1).set_index(["r", "c"])
    assert got.loc[("r0", "c0"), "status"] == "safe"
    assert got.loc[("r0", "c1"), "rule"] == "group (all in one)"
    t.protect({"group": True}, method=method)  # a pattern exists and passes the audit
    # one person: the empty row r0 is flagged (everyone is in r1); its empty parts must be
    # open as secondaries, or (r0, Total) could never move
    t = frame_from_counts(np.array([[0, 0, 0], [0, 0, 1]])).anon.table(index="r", columns="c")
    p = t.protect({"group": True}, method=method)
    cells = p.cells.set_index(["r", "c"])
    assert cells.loc[("r0", "Total"), "status"] == "primary"
    assert (cells.loc["r0", "status"] != "safe").any()
    assert p.audit.ok


def test_the_command_line_takes_group_and_the_report_counts_it(tmp_path, capsys):
    from pdanon.__main__ import main

    handbook().to_csv(tmp_path / "in.csv", index=False)
    code = main(["table", str(tmp_path / "in.csv"), "-o", str(tmp_path / "out.csv"),
                 "--index", "marital", "--columns", "hours", "--rule", "group=true",
                 "--report", str(tmp_path / "rep.json")])
    err = capsys.readouterr().err
    assert code == 0, err
    rep = __import__("json").loads((tmp_path / "rep.json").read_text())
    assert rep["cells"]["primary_by_rule"] == {"group": 2}
    assert rep["rules"]["group"] is True
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    married = out[(out.marital == "Married") & (out.hours == "PT")]
    assert married["status"].tolist() == ["withheld"]
    assert main(["table", str(tmp_path / "in.csv"), "-o", str(tmp_path / "o2.csv"),
                 "--index", "marital", "--rule", "group=maybe"]) == 2
    assert "group takes true or false" in capsys.readouterr().err


@pytest.mark.parametrize("method", ["fast", "gauss", "modular"])
def test_a_flagged_sub_total_can_use_its_empty_parts(method):
    """(rs, z, v) is empty and flagged, and so are the sub-totals above its parts' rows, but
    its parts (r, z, v) and (s, z, v) are not: no rule flags them. Unless they may be
    withheld as secondaries, the sub-total cannot move and no pattern exists (this table
    failed with "no suppression pattern can protect" before they were opened)."""
    from pdanon.hierarchy import tree

    rows = [("p", "x", "u")] * 2 + [("p", "x", "v"), ("p", "z", "u"), ("q", "y", "u"),
                                    ("q", "z", "u"), ("q", "z", "v"), ("r", "x", "u")] \
        + [("s", "x", "u")] * 3
    df = pd.DataFrame(rows, columns=["a", "b", "c"])
    t = df.anon.table(index=["a", "b"], columns="c",
                      hierarchies={"a": tree({"pq": ["p", "q"], "rs": ["r", "s"]})})
    got = pd.concat([t.cells, primary(t, {"group": True})], axis=1).set_index(["a", "b", "c"])
    assert got.loc[("rs", "z", "v"), "status"] == "primary"
    assert got.loc[("r", "z", "v"), "status"] == "safe" == got.loc[("s", "z", "v"), "status"]
    p = t.protect({"group": True}, method=method)
    assert p.audit.ok
