"""Linked tables (issue 52 points 1, 3 and 4): tables of one frame share cells; they are
protected together and audited across all their equations. Hand-checked small tables and a
property over random frames and random sets of tables."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon  # noqa: F401  (registers df.anon)
from pdanon._errors import InvalidInputError
from pdanon.hierarchy import tree
from pdanon.tables import (
    LinkedTables,
    ProtectedTables,
    audit,
    build,
    link,
    primary,
    protect,
)
from pdanon.tables.output import pivot
from pdanon.tables.union import CellUnion

RULES = {"min_frequency": 3}


def sex_age():
    """Region N: f 1, m 5; ages x 3, y 3. Region S: f 4, m 4; ages x 4, y 4."""
    return pd.DataFrame({"r": list("NNNNNNSSSSSSSS"), "s": list("fmmmmmffffmmmm"),
                         "a": list("xxxyyyxxxxyyyy")})


def at(cells, **keys):
    mask = np.ones(len(cells), dtype=bool)
    for k, v in keys.items():
        mask &= (cells[k] == v).to_numpy()
    return mask


# ------------------------------------------------------------------------- identity

def test_shared_cells_are_the_region_margins_and_the_total():
    df = sex_age()
    lt = link(df.anon.table(index="r", columns="s"), df.anon.table(index="r", columns="a"))
    assert isinstance(lt, LinkedTables)
    assert len(lt.cells) == 9 + 9 - 3
    shared = lt.cells[lt.cells.tables.map(len) == 2]
    assert shared[["r", "s", "a", "value"]].values.tolist() == [
        ["N", "Total", "Total", 6], ["S", "Total", "Total", 8], ["Total", "Total", "Total", 14]]
    # every table's equations hold on the distinct cells
    assert np.abs(lt.constraints @ lt.cells.value.to_numpy(dtype=float)).max() == 0
    # a one-dimensional table of the region is made of shared cells only
    lt3 = link([df.anon.table(index="r", columns="s"), df.anon.table(index="r")])
    assert len(lt3.cells) == 9 and lt3.union.ids[1].tolist() == [2, 5, 8]


def test_a_sub_total_is_shared_only_when_it_covers_the_same_values():
    df = pd.DataFrame({"c": ["fr", "es", "in", "cn", "fr", "in"], "s": list("fmfmff")})
    eu_as = tree({"EU": ["fr", "es"], "AS": ["in", "cn"]})
    same_eu = tree({"Europe": ["es", "fr"], "Asia": ["in", "cn"]})  # other names, same sets
    mixed = tree({"A": ["fr", "in"], "B": ["es", "cn"]})
    t1 = build(df, index="c", hierarchies={"c": eu_as})
    t2 = build(df, index="c", columns="s", hierarchies={"c": same_eu})
    t3 = build(df, index="c", hierarchies={"c": mixed})
    u = link(t1, t2, t3).union
    # t1's 7 cells (4 countries, EU, AS, Total) are all in t2 (its sex-Total row)
    assert len(set(u.ids[0]) - set(u.ids[1])) == 0
    # t3's A and B are new cells; its 4 countries and Total are shared
    assert len(set(u.ids[2]) - set(u.ids[0])) == 2
    new = u.cells.iloc[sorted(set(u.ids[2]) - set(u.ids[0]))]
    assert sorted(new["c"]) == ["A", "B"] and new["value"].tolist() == [4, 2]
    europe = t2.cells.index[at(t2.cells, c="Europe", s="Total")][0]
    eu = t1.cells.index[at(t1.cells, c="EU")][0]
    assert u.ids[1][europe] == u.ids[0][eu]


@pytest.mark.parametrize("second, message", [
    (lambda df: build(df.iloc[:-1], index="r", columns="a"), "same frame: they hold"),
    (lambda df: build(df.assign(r=df.r[::-1].to_numpy()), index="r", columns="a"),
     "column 'r' has different values"),
    (lambda df: build(df.assign(v=1.0), index="r", values="v", aggfunc="sum"), "aggfunc"),
    (lambda df: df, "not a table"),
])
def test_tables_of_different_frames_are_refused(second, message):
    df = sex_age()
    with pytest.raises(InvalidInputError, match=message):
        link(build(df, index="r", columns="s"), second(df))


def test_different_values_or_contributors_are_refused():
    df = sex_age().assign(v=np.arange(14.0), w=1.0, firm=np.arange(14) % 3)
    with pytest.raises(InvalidInputError, match="values"):
        link(build(df, index="r", values="v", aggfunc="sum"),
             build(df, index="s", values="w", aggfunc="sum"))
    with pytest.raises(InvalidInputError, match="contributor"):
        link(build(df, index="r", values="v", aggfunc="sum", contributor="firm"),
             build(df, index="s", values="v", aggfunc="sum"))


# ------------------------------------------------------------------------- the audit

def naive_patterns(t1, t2):
    """Region x sex: N/f (primary), N's and S's totals and S/f withheld: N/f can move with
    S/f in that table. Region x age: the two region totals withheld (secondary), nothing
    else."""
    m1 = at(t1.cells, r="N") & t1.cells.s.isin(["f", "Total"]).to_numpy() | \
        at(t1.cells, r="S") & t1.cells.s.isin(["f", "Total"]).to_numpy()
    m2 = t2.cells.r.isin(["N", "S"]).to_numpy() & at(t2.cells, a="Total")
    return m1, m2


def test_a_pattern_safe_in_each_table_is_unsafe_linked():
    df = sex_age()
    t1, t2 = build(df, index="r", columns="s"), build(df, index="r", columns="a")
    m1, m2 = naive_patterns(t1, t2)
    # each alone: in region x sex, N/f = 1 + d, N/Total = 6 + d, S/f = 4 - d, S/Total = 8 - d
    # for -1 <= d <= 4, so N/f ranges over [0, 5] (levels: up 2, down 1); region x age has no
    # primary cell
    one = audit(t1, m1, rules=RULES)
    assert one.ok
    row = one.cells[at(one.cells, r="N", s="f")]
    assert (row.low.item(), row.high.item()) == (0.0, 5.0)
    assert audit(t2, m2, rules=RULES).ok
    # together: N/Total = N/x + N/y = 6 is known from region x age, so N/f = 6 - N/m = 1
    both = audit([t1, t2], [m1, m2], rules=RULES)
    assert not both.ok
    bad = both.unsafe
    assert bad[["r", "s", "a", "low", "high"]].values.tolist() == [["N", "f", "Total", 1.0, 1.0]]
    assert bad.tables.tolist() == [(0,)]
    shared = both.cells[at(both.cells, r="N", s="Total", a="Total")]
    assert shared.tables.tolist() == [(0, 1)] and shared.published_in.tolist() == [()]
    # the same check through a LinkedTables
    assert not audit(link(t1, t2), [m1, m2], rules=RULES).ok


def test_a_cell_withheld_in_one_table_and_published_in_the_other_is_known():
    df = sex_age()
    t1, t2 = build(df, index="r", columns="s"), build(df, index="r", columns="a")
    m1, _ = naive_patterns(t1, t2)
    r = audit([t1, t2], [m1, np.zeros(len(t2.cells), dtype=bool)], rules=RULES)
    n_total = r.cells[at(r.cells, r="N", s="Total")]
    assert n_total.published_in.tolist() == [(1,)]
    assert (n_total.low.item(), n_total.high.item()) == (6.0, 6.0)
    assert r.unsafe[["r", "s"]].values.tolist() == [["N", "f"]]


def naive_protected():
    """Linked tables protected, then their pattern changed to the naive one (safe in each
    table alone, unsafe linked), as a pattern edited after protect would be."""
    df = sex_age()
    t1, t2 = build(df, index="r", columns="s"), build(df, index="r", columns="a")
    p = protect([t1, t2], RULES)
    for m, mask in zip(p.tables, naive_patterns(t1, t2)):
        primary_ = m.cells.status.eq("primary").to_numpy()
        m.cells["status"] = np.where(primary_, "primary", np.where(mask, "secondary", "safe"))
        m._audit = None
    p._audit = None
    return p


def test_a_member_audits_as_linked_and_knows_its_set():
    """p.tables[0].audit is the attacker who sees both tables (it was the single table's,
    which passes the naive pattern), and pdanon.tables.audit(member) is the same."""
    p = naive_protected()
    m0, m1 = p.tables
    assert m0.linked is p and m1.linked is p and (m0.position, m1.position) == (0, 1)
    assert not p.audit.ok  # read from what each member publishes
    assert not m0.audit.ok
    bad = m0.audit.unsafe
    assert bad[["r", "s", "low", "high", "tables"]].values.tolist() == [
        ["N", "f", 1.0, 1.0, (0,)]]
    assert not audit(m0).ok
    # table 2 holds no primary cell: its cells are safe, and its audit lists its withheld
    # cells (the two region totals) with the linked ranges
    assert m1.audit.ok and m1.audit.cells[["r", "a"]].values.tolist() == [
        ["N", "Total"], ["S", "Total"]]
    # the single-table attacker alone would pass table 1
    one = m0.cells[["status", "rule", "lower", "upper"]]
    assert audit(m0.table, m0.cells.status.ne("safe").to_numpy(), levels=one).ok


def test_a_member_published_alone_carries_the_linked_verdict(tmp_path):
    import json

    from pdanon.release import PublishError, publish
    p = naive_protected()
    with pytest.raises(PublishError, match="audit finds 1 withheld"):
        publish(p.tables[0], tmp_path / "a", formats="csv")
    # table 2 is safe on its own cells, but it is one of a set whose audit fails: refused
    with pytest.raises(PublishError, match="one of 2 linked tables whose audit finds 1"):
        publish(p.tables[1], tmp_path / "b", formats="csv")
    assert not any((tmp_path / d).exists() and any((tmp_path / d).iterdir())
                   for d in ("a", "b"))
    good = protect(list(p.tables[i].table for i in range(2)), RULES)
    done = publish(good.tables[1], tmp_path / "c", formats="csv")
    rep = json.loads((tmp_path / "c" / "report.json").read_text())
    assert done.audit_ok and rep["linked"]["tables"] == 2 and rep["linked"]["table"] == 2
    assert rep["linked"]["audit"]["ok"] is True
    assert "table 2 of 2 linked tables" in (tmp_path / "c" / "report.html").read_text()


def test_linked_protect_fixes_it_and_each_table_keeps_its_face():
    df = sex_age()
    t1, t2 = build(df, index="r", columns="s"), build(df, index="r", columns="a")
    p = protect([t1, t2], RULES, cost="count")
    assert isinstance(p, ProtectedTables) and len(p) == 2
    assert p.audit.ok and all(m.audit.ok for m in p)
    assert p.info["optimal"] is True and p.info["tables"] == 2
    # a deviation needs two withheld cells in every line it touches: at least a rectangle of
    # 4 cells through N/f; N/Total cannot be one of them (region x age would need 4 more),
    # so N/m is, and the region totals stay published in both tables
    hidden = p.cells[p.cells.status != "safe"]
    assert len(hidden) == 4
    assert hidden[["r", "s", "status"]].values.tolist()[:2] == [
        ["N", "f", "primary"], ["N", "m", "secondary"]]
    assert (p.cells.loc[p.cells.tables.map(len) == 2, "status"] == "safe").all()
    # the members: their own cells, counts, frames and pivots
    first = p.tables[0]
    assert (first.info["primary"], first.info["secondary"], first.info["linked"]) == (1, 3, True)
    assert p.tables[1].info["secondary"] == 0 == p.tables[1].info["withheld_value"]
    assert first.table is t1 and list(first.cells.index) == list(t1.cells.index)
    out = first.to_frame()
    assert out.loc[out.status == "withheld", "value"].isna().all()
    wide = pivot(out, first.table)
    assert wide.loc["N", "Total"] == 6 and pd.isna(wide.loc["N", "f"])
    assert p.tables[1].to_frame().status.eq("published").all()
    assert p.tables[1].table.pivot().loc["Total", "Total"] == 14
    # fast too
    f = link(t1, t2).protect(RULES, method="fast")
    assert f.audit.ok and all(m.audit.ok for m in f)


def test_linked_protect_of_a_sum_with_holders():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"r": rng.choice(list("abc"), 60), "s": rng.choice(list("fm"), 60),
                       "k": rng.choice(list("xyz"), 60), "firm": rng.integers(0, 25, 60),
                       "v": rng.gamma(2.0, 10.0, 60).round(1)})
    tabs = [build(df, index="r", columns="s", values="v", aggfunc="sum", contributor="firm"),
            build(df, index="r", columns="k", values="v", aggfunc="sum", contributor="firm")]
    rules = {"min_frequency": 3, "p_percent": 15}
    p = protect(tabs, rules, method="fast")
    assert p.audit.ok and all(m.audit.ok for m in p)
    # each table's own primary cells are primary in its member, with the same levels
    for t, m in zip(tabs, p):
        lv = primary(t, rules)
        assert (m.cells.status.eq("primary") == lv.status.eq("primary")).all()
        assert np.allclose(m.cells.upper, lv.upper)


# ------------------------------------------------------------------------- property

VALUES = {"a": ["a0", "a1", "a2", "a3"], "b": ["b0", "b1", "b2"], "c": ["c0", "c1"],
          "d": ["d0", "d1", "d2"]}
HIER = {"a": {"A01": ["a0", "a1"], "A23": ["a2", "a3"]}}


def covered(table, cell) -> tuple:
    """The cell's identity read from the frame's values: per variable, the set of values it
    covers (a variable the table does not use, or its total: all of them)."""
    out = []
    for v in sorted(VALUES):
        label = cell[v] if v in table.dimensions else "Total"
        if label == "Total":
            out.append(frozenset(VALUES[v]))
        elif label in HIER.get(v, {}):
            out.append(frozenset(HIER[v][label]))
        else:
            out.append(frozenset([label]))
    return tuple(out)


@st.composite
def linked_case(draw):
    n = draw(st.integers(6, 30))
    rows = {v: draw(st.lists(st.sampled_from(vals), min_size=n, max_size=n))
            for v, vals in VALUES.items()}
    df = pd.DataFrame(rows)
    for v, vals in VALUES.items():
        df[v] = pd.Categorical(df[v], categories=vals)
    specs = []
    for _ in range(draw(st.integers(2, 3))):
        dims = draw(st.lists(st.sampled_from(sorted(VALUES)), min_size=1, max_size=2,
                             unique=True))
        hier = draw(st.booleans()) and "a" in dims
        specs.append((dims, hier))
    return df, specs, draw(st.sampled_from([2, 3])), draw(st.sampled_from(["optimal", "fast"]))


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(linked_case())
def test_linked_patterns_pass_every_audit_and_shared_cells_agree(case):
    df, specs, n, method = case
    tables = [build(df, index=dims[0], columns=dims[1:] or None,
                    hierarchies={"a": tree(HIER["a"])} if hier else None)
              for dims, hier in specs]
    rules = {"min_frequency": n}
    p = protect(tables, rules, method=method, time_limit=30)
    assert p.audit.ok
    for t, m in zip(tables, p):
        # each table alone with the linked pattern (the single-table attacker)...
        hid = m.cells.status.ne("safe").to_numpy()
        assert audit(t, hid, levels=m.cells[["status", "rule", "lower", "upper"]]).ok
        # ... and the member's own audit: the linked audit's rows of its cells
        mine = audit(m)
        assert mine.ok and len(mine.cells) == int(hid.sum())
        assert set(mine.cells.value) <= set(p.audit.cells.value)
        # the member's primary cells are the table's own
        assert (m.cells.status.eq("primary") == primary(t, rules).status.eq("primary")).all()
    # a cell (the values it covers, per variable) has one status and one value everywhere
    seen: dict = {}
    for t, m in zip(tables, p):
        for _, cell in m.cells.iterrows():
            key = covered(t, cell)
            seen.setdefault(key, set()).add((cell["status"], cell["value"]))
    assert all(len(v) == 1 for v in seen.values())
    assert len(seen) == len(p.cells)  # pdanon found the same distinct cells
    # the same pattern given by hand to the linked audit
    again = audit(tables, [m.cells.status.ne("safe").to_numpy() for m in p], rules=rules)
    assert again.ok and len(again.cells) == int(p.cells.status.ne("safe").sum())


def test_the_neighbourhood_of_a_cell_in_linked_tables():
    """The fast method's first try on large linked tables: per variable, the cell's node, the
    nodes above and below it, and the ``width`` cheapest siblings on its line."""
    df = pd.DataFrame({"r": [f"r{i:02d}" for i in range(12)] * 2, "s": list("fm") * 12,
                       "a": list("xxyy") * 6})
    u = link(build(df, index="r", columns="s"), build(df, index="r", columns="a")).union
    p = int(np.flatnonzero(at(u.cells, r="r00", s="f", a="Total"))[0])
    price = np.ones(len(u.cells))
    cheap = u.cells.r.isin(["r05", "r07"]).to_numpy() & at(u.cells, s="f")
    price[cheap] = 0.0
    near = u.neighbourhood(p, price, 2)
    got = u.cells.iloc[near]
    assert sorted(got.r.unique()) == ["Total", "r00", "r05", "r07"]
    # every cell of those regions, in both tables (sex and age, their totals)
    assert len(got) == 4 * (3 + 3 - 1)
    assert u.neighbourhood(p, price, 20) is None  # all 11 siblings: every cell


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_the_fast_method_through_the_neighbourhood_passes_the_linked_audit(data):
    """Regions of 14 values (the neighbourhood keeps 8 siblings), two or three linked tables,
    every table treated as large: the fast method tries each cell's neighbourhood first."""
    n = data.draw(st.integers(20, 60))
    df = pd.DataFrame({"r": data.draw(st.lists(st.integers(0, 13), min_size=n, max_size=n)),
                       "s": data.draw(st.lists(st.sampled_from("fm"), min_size=n, max_size=n)),
                       "a": data.draw(st.lists(st.sampled_from("xyz"), min_size=n,
                                               max_size=n))})
    specs = [("r", "s"), ("r", "a"), ("s", "a")][:data.draw(st.integers(2, 3))]
    tables = [build(df, index=i, columns=c) for i, c in specs]
    used = []
    near = CellUnion.neighbourhood

    def spy(self, p, price, width):
        out = near(self, p, price, width)
        used.append(out is not None)
        return out

    with mock.patch("pdanon.tables.fast.LOCAL_ABOVE", 0), \
            mock.patch.object(CellUnion, "neighbourhood", spy):
        p = protect(tables, {"min_frequency": 3}, method="fast")
    assert p.audit.ok and all(m.audit.ok for m in p)
    assert any(used) or p.info["primary"] == 0


def test_linked_audit_lists_a_primary_cell_published_everywhere():
    df = pd.DataFrame({"r": list("abbbb"), "s": list("fmfmf"), "g": list("xyxyx")})
    t1, t2 = df.anon.table(index="r", columns="s"), df.anon.table(index="r", columns="g")
    r = audit([t1, t2], [[], []], rules={"min_frequency": 2})
    assert not r.ok
    bad = r.unsafe
    assert (~bad["withheld"]).all() and (bad["low"] == bad["high"]).all()
    assert ("a", "Total") in set(zip(bad["r"], bad["s"]))
