"""``pdanon table`` (pdanon/cli/table.py, issue 52 points 7 and 9): the files it writes are
the Python call's protected table, a config file gives the same run as the flags, exit code 3
when an audited pattern is unsafe, and bad input exits 2 with one line naming the flag or
column and the fix."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import pdanon  # noqa: F401  (registers df.anon)
from pdanon.__main__ import main
from pdanon.hierarchy import read_arx_csv


def _run(capsys, *argv):
    code = main(["table", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(3)
    n = 400
    df = pd.DataFrame({
        "region": rng.choice(["north", "south", "east", "west"], n, p=[.4, .3, .25, .05]),
        "sex": rng.choice(["f", "m"], n),
        "age": rng.choice(["0-19", "20-64", "65+"], n, p=[.2, .7, .1]),
        "firm": rng.integers(0, 60, n),
        "income": rng.integers(1000, 90000, n) / 100,
        "key": 1000 + rng.integers(0, 60000, n)})
    df.to_csv(tmp_path / "in.csv", index=False)
    (tmp_path / "regions.csv").write_text("north;N\nsouth;S\neast;S\nwest;N\n")
    return tmp_path, df


def test_the_written_table_is_the_python_protected_table(files, capsys):
    tmp, df = files
    code, _, err = _run(capsys, tmp / "in.csv", "-o", tmp / "out.csv", "--index", "region",
                        "--columns", "sex,age", "--values", "income", "--rule",
                        "min_frequency=3", "--rule", "p_percent=10", "--hierarchy",
                        f"region={tmp / 'regions.csv'}", "--contributor", "firm",
                        "--method", "fast", "--report", tmp / "rep.html", "--pivot",
                        tmp / "piv.csv", "--marker", "x")
    assert code == 0, err
    assert "audit       PASSED (full audit)" in err
    text = df.astype({"region": str, "sex": str, "age": str, "firm": str})
    p = text.anon.table(index="region", columns=["sex", "age"], values="income",
                        aggfunc="sum", contributor="firm",
                        hierarchies={"region": read_arx_csv(str(tmp / "regions.csv"))}
                        ).protect({"min_frequency": 3, "p_percent": 10}, method="fast")
    out = pd.read_csv(tmp / "out.csv", dtype=str, keep_default_na=False)
    hidden = (p.cells["status"] != "safe").to_numpy()
    assert hidden.sum() > 0 and (~hidden).sum() > 0
    assert out[["region", "sex", "age"]].values.tolist() == \
        p.cells[["region", "sex", "age"]].values.tolist()
    assert (out["status"] == np.where(hidden, "withheld", "published")).all()
    assert (out.loc[hidden, "value"] == "x").all()
    np.testing.assert_allclose(out.loc[~hidden, "value"].astype(float),
                               p.cells.loc[~hidden, "value"], rtol=1e-12)
    piv = pd.read_csv(tmp / "piv.csv", dtype=str, keep_default_na=False)
    assert len(piv) == 7 * 3  # region nodes (4 + N + S + Total) x sex nodes
    html = (tmp / "rep.html").read_text()
    assert "Audit: PASSED" in html and "p_percent" in html


def test_a_config_file_runs_as_the_flags(files, capsys):
    tmp, _ = files
    flags = ["--index", "region", "--columns", "sex", "--rule", "min_frequency=5",
             "--cost", "count"]
    code, _, err = _run(capsys, tmp / "in.csv", "-o", tmp / "a.csv", *flags)
    assert code == 0, err
    (tmp / "t.toml").write_text('input = "in.csv"\noutput = "b.parquet"\nindex = "region"\n'
                                'columns = ["sex"]\ncost = "count"\nreport = "b.json"\n'
                                '[rules]\nmin_frequency = 5\n')
    code, _, err = _run(capsys, "--config", tmp / "t.toml")
    assert code == 0, err
    a = pd.read_csv(tmp / "a.csv")
    b = pd.read_parquet(tmp / "b.parquet")
    assert a["status"].tolist() == b["status"].tolist()
    assert a["value"].astype("Float64").equals(b["value"].astype("Float64"))
    rep = json.loads((tmp / "b.json").read_text())
    assert rep["rules"]["min_frequency"] == 5 and rep["audit"]["ok"]
    # a flag beside the config wins
    code, _, err = _run(capsys, "--config", tmp / "t.toml", "-o", tmp / "c.csv",
                        "--rule", "min_frequency=2")
    assert code == 0, err
    assert json.loads((tmp / "b.json").read_text())["rules"]["min_frequency"] == 2


def test_audit_only_exits_3_on_an_unsafe_pattern_and_0_on_a_safe_one(files, capsys):
    tmp, df = files
    flags = ["--index", "region", "--columns", "sex", "--rule", "min_frequency=15"]
    code, _, err = _run(capsys, tmp / "in.csv", "-o", tmp / "out.csv", *flags)
    assert code == 0, err
    # our own pattern, read back from the written table, passes
    code, _, err = _run(capsys, tmp / "in.csv", *flags, "--audit-only", "--suppressed",
                        tmp / "out.csv")
    assert code == 0 and "PASSED: 0 unsafe" in err, err
    out = pd.read_csv(tmp / "out.csv", dtype=str, keep_default_na=False)
    primary = df.astype(str).anon.table(index="region", columns="sex").protect(
        {"min_frequency": 15}).cells.status.eq("primary").to_numpy()
    # only the primary cells withheld: each is its row's total minus the rest
    only = out.loc[primary, ["region", "sex"]]
    only.to_csv(tmp / "only.csv", index=False)
    code, _, err = _run(capsys, tmp / "in.csv", *flags, "--audit-only", "--suppressed",
                        tmp / "only.csv")
    assert code == 3, err
    assert "FAILED" in err and "narrower than its protection" in err
    # a pattern publishing a primary cell is unsafe too (the audit alone reads withheld cells)
    out.loc[primary, "status"] = "published"
    out.to_csv(tmp / "shown.csv", index=False)
    code, _, err = _run(capsys, tmp / "in.csv", *flags, "--audit-only", "--suppressed",
                        tmp / "shown.csv")
    assert code == 3 and "primary but published" in err, err


def test_cell_key_on_the_command_line_is_the_python_call(files, capsys):
    tmp, df = files
    code, _, err = _run(capsys, tmp / "in.csv", "-o", tmp / "ck.csv", "--index", "region",
                        "--columns", "sex", "--cell-key", "--ptable", "D=3,V=2,js=2",
                        "--record-keys", "key", "--report", tmp / "ck.json")
    assert code == 0, err
    from pdanon.tables import ptable

    want = df.astype({"region": str, "sex": str}).anon.table(
        index="region", columns="sex").cell_key(ptable(D=3, V=2, js=2), df["key"])
    got = pd.read_csv(tmp / "ck.csv")
    assert got["value"].tolist() == want.cells["value"].tolist()
    rep = json.loads((tmp / "ck.json").read_text())
    assert rep["noise"]["cells_changed"] == want.info["changed"]


@pytest.mark.parametrize("extra, words", [
    (["--index", "regon", "--rule", "min_frequency=3"], ["--index", "'regon'",
                                                         "did you mean 'region'"]),
    (["--index", "region", "--values", "income", "--rule", "p_percent=120"],
     ["--rule p_percent=120", "outside (0, 100)", "give a value"]),
    (["--index", "region", "--values", "income", "--rule", "dominance=1,0"],
     ["--rule dominance k=0", "outside (0, 100]"]),
    (["--index", "region", "--rule", "min_freq=3"], ["'min_freq'",
                                                     "did you mean 'min_frequency'"]),
    (["--index", "region", "--rule", "p_percent=10"], ["count table", "--values"]),
    (["--index", "region", "--rule", "min_frequency"], ["--rule", "NAME=VALUE"]),
    (["--index", "region", "--values", "neg", "--rule", "p_percent=10"],
     ["'neg'", "negative", "split"]),
    (["--index", "region", "--values", "gap", "--rule", "p_percent=10"],
     ["'gap'", "missing", "fillna"]),
    (["--index", "region", "--values", "income", "--contributor", "owner", "--rule",
      "p_percent=10"], ["'owner'", "missing ids"]),
    (["--index", "region", "--hierarchy", "region=partial.csv", "--rule", "min_frequency=3"],
     ["'region'", "'west'", "add it"]),
    (["--index", "region", "--hierarchy", "region=twoparents.csv", "--rule",
      "min_frequency=3"], ["single parent"]),
    (["--index", "region", "--columns", "sex,age", "--values", "income", "--rule",
      "dominance=1,10"],
     ["no suppression pattern", "below zero", "k >= 50"]),
    (["--index", "region", "--cell-key", "--ptable", "D=3,V=2"], ["--record-keys"]),
    (["--index", "region", "--rule", "min_frequency=3", "--record-keys", "key"],
     ["--record-keys is for --cell-key"]),
    (["--index", "region", "--rule", "min_frequency=3", "--method", "best"],
     ["--method", "invalid choice"]),
    (["--index", "region:real", "--rule", "min_frequency=3"], ["--index", "kind"]),
    (["--rule", "min_frequency=3"], ["--index and/or --columns"]),
])
def test_bad_input_exits_2_with_one_line_naming_the_flag_and_fix(files, capsys, extra, words):
    tmp, df = files
    bad = df.assign(neg=np.where(np.arange(len(df)) == 5, -1.0, 1.0),
                    gap=np.where(np.arange(len(df)) == 7, np.nan, 1.0),
                    owner=np.where(np.arange(len(df)) == 9, None, "o"))
    bad.to_csv(tmp / "bad.csv", index=False)
    (tmp / "partial.csv").write_text("north;N\nsouth;S\neast;S\n")
    (tmp / "twoparents.csv").write_text("north;A;N\nsouth;A;S\neast;B;S\nwest;B;N\n")
    import os

    cwd = os.getcwd()
    os.chdir(tmp)
    try:
        if "--method" in extra and "best" in extra:
            with pytest.raises(SystemExit) as exc:
                main(["table", "bad.csv", "-o", "o.csv", *extra])
            code, err = exc.value.code, capsys.readouterr().err
        else:
            code, _, err = _run(capsys, "bad.csv", "-o", "o.csv", *extra)
    finally:
        os.chdir(cwd)
    assert code == 2, err
    lines = [ln for ln in err.splitlines() if "error" in ln]
    assert len(lines) == 1, err
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert not (tmp / "o.csv").exists()


def test_a_time_limit_reached_writes_the_audited_pattern_with_a_one_line_warning(tmp_path,
                                                                                 capsys):
    rng = np.random.default_rng(4)
    pd.DataFrame({"r": rng.integers(0, 8, 600), "c": rng.integers(0, 8, 600),
                  "d": rng.integers(0, 3, 600)}).to_csv(tmp_path / "in.csv", index=False)
    code, _, err = _run(capsys, tmp_path / "in.csv", "-o", tmp_path / "out.csv", "--index",
                        "r,d", "--columns", "c", "--rule", "min_frequency=5", "--time-limit",
                        "0.000001")
    assert code == 0, err
    warned = [ln for ln in err.splitlines() if "warning" in ln]
    assert len(warned) == 1 and "--time-limit 1e-06" in warned[0]
    assert "(SuppressionWarning)" in warned[0] and "audit       PASSED (full audit)" in err
    assert "not proven optimal" in err
    code, _, err = _run(capsys, tmp_path / "in.csv", "-o", tmp_path / "o2.csv", "--index",
                        "r,d", "--columns", "c", "--rule", "min_frequency=5",
                        "--no-full-audit", "--method", "fast")
    assert code == 0 and "audit       PASSED (certificates)" in err, err
    assert (pd.read_csv(tmp_path / "out.csv")["status"] == "withheld").any()


def test_help_has_an_example(capsys):
    with pytest.raises(SystemExit):
        main(["table", "--help"])
    out = capsys.readouterr().out
    assert "example:" in out and "pdanon table people.csv -o table.csv" in out
    assert "exit codes: 0 written, 2 bad input, 3" in out


# ------------------------------------------------------------------------- linked tables

LINKED = ["--table", "name=by_sex;index=region;columns=sex",
          "--table", "index=region;columns=age", "--values", "income", "--contributor",
          "firm", "--rule", "min_frequency=3", "--rule", "p_percent=10", "--method", "fast"]


def _linked_python(tmp, df, folder, **kw):
    """The Python call the command line stands for: the same tables of the text-read frame,
    protected together and published into ``folder``."""
    text = df.astype({"region": str, "sex": str, "age": str, "firm": str})
    spec = dict(values="income", aggfunc="sum", contributor="firm")
    hier = {"region": read_arx_csv(str(tmp / "regions.csv"))}
    p = pdanon.tables.link(text.anon.table(index="region", columns="sex", hierarchies=hier,
                                           **spec),
                           text.anon.table(index="region", columns="age", hierarchies=hier,
                                           **spec)
                           ).protect({"min_frequency": 3, "p_percent": 10}, method="fast")
    return p, pdanon.publish(p, folder, names=["by_sex", "table_2"], **kw)


def test_several_tables_are_the_python_linked_call_byte_for_byte(files, capsys):
    tmp, df = files
    code, _, err = _run(capsys, tmp / "in.csv", "-o", tmp / "cli", *LINKED, "--hierarchy",
                        f"region={tmp / 'regions.csv'}", "--pivots", "--formats",
                        "csv,parquet", "--marker", "x")
    assert code == 0, err
    assert "audit       PASSED (full audit) (linked" in err and "distinct    " in err
    p, done = _linked_python(tmp, df, tmp / "py", formats=("csv", "parquet"), pivot=True,
                             marker="x")
    assert sum((m.cells.status != "safe").sum() for m in p.tables) > 0
    names = sorted(f.name for f in (tmp / "cli").iterdir())
    assert names == sorted(done.files) == sorted(
        ["report.html", "report.json"] + [f"{n}{s}" for n in ("by_sex", "table_2")
                                          for s in (".csv", ".parquet", "_pivot.csv")])
    for name in names:
        assert (tmp / "cli" / name).read_bytes() == (tmp / "py" / name).read_bytes(), name
    rep = json.loads((tmp / "cli" / "report.json").read_text())
    assert rep["audit"]["ok"] and [t["name"] for t in rep["tables"]] == ["by_sex", "table_2"]


def test_a_config_tables_array_runs_as_the_flags(files, capsys):
    tmp, _ = files
    code, _, err = _run(capsys, tmp / "in.csv", "-o", tmp / "flags", *LINKED)
    assert code == 0, err
    (tmp / "t.toml").write_text(
        'input = "in.csv"\noutput = "conf"\nvalues = "income"\ncontributor = "firm"\n'
        'method = "fast"\n[rules]\nmin_frequency = 3\np_percent = 10\n'
        '[[tables]]\nname = "by_sex"\nindex = "region"\ncolumns = ["sex"]\n'
        '[[tables]]\nindex = "region"\ncolumns = "age"\n')
    code, _, err = _run(capsys, "--config", tmp / "t.toml")
    assert code == 0, err
    for name in ("by_sex.csv", "table_2.csv", "report.json"):
        assert (tmp / "conf" / name).read_bytes() == (tmp / "flags" / name).read_bytes()


def test_several_tables_exit_3_when_the_linked_audit_fails(files, capsys):
    """A pattern the linked audit rejects (here made so by hand after protect) writes
    nothing and exits 3, as for one table."""
    from unittest import mock

    from pdanon.tables.linked import LinkedTables

    tmp, _ = files
    real = LinkedTables.protect

    def broken(self, *a, **kw):
        p = real(self, *a, **kw)
        m = p.tables[1]  # region x age: its primary cells' secondaries published
        assert (m.cells["status"] == "secondary").any()
        m.cells["status"] = m.cells["status"].replace("secondary", "safe")
        return p

    with mock.patch.object(LinkedTables, "protect", broken):
        code, _, err = _run(capsys, tmp / "in.csv", "-o", tmp / "bad", *LINKED)
    assert code == 3, err
    assert "linked audit" in err and "nothing was written" in err
    assert not (tmp / "bad").exists() or not list((tmp / "bad").iterdir())


@pytest.mark.parametrize("extra, words", [
    (["--table", "index=region", "--index", "sex"], ["--index cannot go with --table"]),
    (["--table", "index=region", "--pivot", "p.csv"], ["--pivots"]),
    (["--table", "index=region", "--report", "r.html"], ["the one report goes"]),
    (["--table", "index=region", "--audit-only", "--suppressed", "p.csv"],
     ["--audit-only writes nothing; drop -o"]),
    (["--table", "index=region;hierarchy=sex:mask:1"], ["--table", "hierarchy=sex:mask:1",
                                                        "COL one of the table's columns"]),
    (["--table", "name=coarse;index=region;hierarchy=region:nofile.csv"],
     ["--table coarse: hierarchy=region:nofile.csv", "no hierarchy file",
      "give an ARX hierarchy file or a builder"]),
    (["--table", "index=region", "--table", "name=coarse;index=region;columns=sex;"
      "hierarchy=region:partial.csv"], ["--table coarse:", "'region'", "'west'", "add it"]),
    (["--table", "index=region;hierarchy=region:mask:1", "--hierarchy",
      "region=intervals:5"], ["--hierarchy region", "gives its own hierarchy", "drop"]),
    (["--table", "index=region;rows=sex"], ["--table", "'rows=sex'", "index=COLS"]),
    (["--table", "name=a"], ["--table", "name the table's dimensions"]),
    (["--table", "index=regon"], ["--table index", "'regon'", "did you mean 'region'"]),
    (["--table", "index=region", "--table", "index=sex", "--hierarchy",
      "age=intervals:5,10"], ["--hierarchy age", "no --table uses"]),
    (["--table", "name=a;index=region", "--table", "name=a;index=sex"], ["--table name",
                                                                        "names two files"]),
    (["--table", "index=region", "--formats", "xlsx"], ["--formats", "csv,parquet"]),
    (["--index", "region", "--pivots"], ["--pivots is for several tables"]),
])
def test_bad_linked_input_exits_2_with_one_line(files, capsys, monkeypatch, extra, words):
    tmp, _ = files
    monkeypatch.chdir(tmp)  # relative hierarchy files
    (tmp / "partial.csv").write_text("north;N\nsouth;S\neast;S\n")  # no west
    code, _, err = _run(capsys, tmp / "in.csv", "-o", tmp / "o", "--rule", "min_frequency=3",
                        *extra)
    assert code == 2, err
    lines = [ln for ln in err.splitlines() if "error" in ln]
    assert len(lines) == 1, err
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert not (tmp / "o").exists()


# ------------------------------------- linked tables: own hierarchies, audit-only, cell key

#: a second hierarchy of region, crossing the first (north+south, east+west)
PAIRS = "north;NS\nsouth;NS\neast;EW\nwest;EW\n"


def test_linked_tables_with_their_own_hierarchies_are_the_python_call(files, capsys):
    """Two tables with different hierarchies of region (one from --hierarchy, one its own,
    which wins for that table): the files are the Python call's byte for byte, the pattern
    passes the linked audit, and a config's [[tables]] hierarchies give the same files."""
    tmp, df = files
    (tmp / "pairs.csv").write_text(PAIRS)
    spec = ["--table", "name=by_sex;index=region;columns=sex",
            "--table", (f"name=by_age;index=region;columns=age;hierarchy=region:"
                        f"{tmp / 'pairs.csv'}"),
            "--hierarchy", f"region={tmp / 'regions.csv'}", "--rule", "min_frequency=12",
            "--method", "fast"]
    code, _, err = _run(capsys, tmp / "in.csv", "-o", tmp / "cli", *spec)
    assert code == 0, err
    assert "PASSED (full audit) (linked" in err
    text = df.astype({"region": str, "sex": str, "age": str})
    t1 = text.anon.table(index="region", columns="sex",
                         hierarchies={"region": read_arx_csv(str(tmp / "regions.csv"))})
    t2 = text.anon.table(index="region", columns="age",
                         hierarchies={"region": read_arx_csv(str(tmp / "pairs.csv"))})
    p = pdanon.tables.link(t1, t2).protect({"min_frequency": 12}, method="fast")
    assert p.audit.ok and sum((m.cells.status != "safe").sum() for m in p.tables) > 0
    pdanon.publish(p, tmp / "py", names=["by_sex", "by_age"], formats="csv")
    for name in ("by_sex.csv", "by_age.csv", "report.json"):
        assert (tmp / "cli" / name).read_bytes() == (tmp / "py" / name).read_bytes(), name
    ages = pd.read_csv(tmp / "cli" / "by_age.csv", dtype=str)
    sexes = pd.read_csv(tmp / "cli" / "by_sex.csv", dtype=str)
    assert {"NS", "EW"} <= set(ages["region"]) and not {"N", "S"} & set(ages["region"])
    assert {"N", "S"} <= set(sexes["region"]) and not {"NS", "EW"} & set(sexes["region"])
    # the written patterns pass the linked audit of the command line too
    code, _, err = _run(capsys, tmp / "in.csv", *spec[:-2], "--audit-only", "--suppressed",
                        tmp / "cli" / "by_sex.csv", "--suppressed", tmp / "cli" / "by_age.csv")
    assert code == 0 and "PASSED: 0 unsafe (linked" in err, err
    (tmp / "t.toml").write_text(
        'input = "in.csv"\noutput = "conf"\nmethod = "fast"\n[rules]\nmin_frequency = 12\n'
        '[hierarchies]\nregion = "regions.csv"\n'
        '[[tables]]\nname = "by_sex"\nindex = "region"\ncolumns = "sex"\n'
        '[[tables]]\nname = "by_age"\nindex = "region"\ncolumns = "age"\n'
        'hierarchies = {region = "pairs.csv"}\n')
    code, _, err = _run(capsys, "--config", tmp / "t.toml")
    assert code == 0, err
    for name in ("by_sex.csv", "by_age.csv", "report.json"):
        assert (tmp / "conf" / name).read_bytes() == (tmp / "py" / name).read_bytes(), name


@pytest.fixture
def pair(tmp_path):
    """The hand-checked pair of tests/tables/test_linked.py: region x sex and region x age
    band of 14 rows; N/f (1 person) is the one primary cell under min_frequency=3."""
    df = pd.DataFrame({"r": list("NNNNNNSSSSSSSS"), "s": list("fmmmmmffffmmmm"),
                       "a": list("xxxyyyxxxxyyyy")})
    df["key"] = pdanon.tables.record_keys(df, seed=5)
    df.to_csv(tmp_path / "in.csv", index=False)
    return tmp_path, df


PAIR = ["--table", "name=by_sex;index=r;columns=s", "--table", "name=by_age;index=r;columns=a",
        "--rule", "min_frequency=3"]


def test_audit_only_of_linked_tables_exits_3_on_a_pattern_only_the_pair_gives_away(pair,
                                                                                    capsys):
    tmp, df = pair
    # by region x sex: N/f, S/f and both region totals withheld; by age: both region totals.
    # Each table alone keeps N/f within [0, 5]; with the age table's N/x + N/y = N's total
    # known, N/f = N's total - N/m is exact.
    (tmp / "sex.csv").write_text("r,s\nN,f\nN,Total\nS,f\nS,Total\n")
    (tmp / "age.csv").write_text("r,a\nN,Total\nS,Total\n")
    for one, path in (("--index r --columns s", "sex.csv"), ("--index r --columns a",
                                                              "age.csv")):
        code, _, err = _run(capsys, tmp / "in.csv", *one.split(), "--rule", "min_frequency=3",
                            "--audit-only", "--suppressed", tmp / path)
        assert code == 0 and "PASSED: 0 unsafe" in err, err
    code, _, err = _run(capsys, tmp / "in.csv", *PAIR, "--audit-only", "--suppressed",
                        tmp / "sex.csv", "--suppressed", tmp / "age.csv")
    assert code == 3, err
    assert "FAILED: 1 unsafe (linked" in err
    assert "unsafe      by_sex: r=N, s=f (narrower than its protection)" in err
    # the same verdict as the Python call's
    text = df.astype(str)
    t1, t2 = text.anon.table(index="r", columns="s"), text.anon.table(index="r", columns="a")
    m1 = t1.cells.r.isin(["N", "S"]) & t1.cells.s.isin(["f", "Total"])
    m2 = t2.cells.r.isin(["N", "S"]) & (t2.cells.a == "Total")
    assert len(pdanon.tables.audit([t1, t2], [m1, m2], rules={"min_frequency": 3}).unsafe) == 1
    # a safe linked pattern (the linked protect's, read back from its files) exits 0
    code, _, err = _run(capsys, tmp / "in.csv", "-o", tmp / "out", *PAIR)
    assert code == 0, err
    code, _, err = _run(capsys, tmp / "in.csv", *PAIR, "--audit-only", "--suppressed",
                        tmp / "out" / "by_sex.csv", "--suppressed", tmp / "out" / "by_age.csv")
    assert code == 0 and "PASSED: 0 unsafe (linked" in err, err
    # the patterns in the wrong order: refused, naming the table and the order
    code, _, err = _run(capsys, tmp / "in.csv", *PAIR, "--audit-only", "--suppressed",
                        tmp / "age.csv", "--suppressed", tmp / "sex.csv")
    assert code == 2 and "table by_sex (--table 1)" in err and "in the order" in err, err
    code, _, err = _run(capsys, tmp / "in.csv", *PAIR, "--audit-only", "--suppressed",
                        tmp / "sex.csv")
    assert code == 2 and "one --suppressed PATTERN per table" in err and "1 given" in err, err
    # a config gives the patterns as a list, in the order of [[tables]]
    (tmp / "a.toml").write_text(
        'input = "in.csv"\naudit_only = true\nsuppressed = ["sex.csv", "age.csv"]\n'
        '[rules]\nmin_frequency = 3\n[[tables]]\nname = "by_sex"\nindex = "r"\n'
        'columns = "s"\n[[tables]]\nname = "by_age"\nindex = "r"\ncolumns = "a"\n')
    code, _, err = _run(capsys, "--config", tmp / "a.toml")
    assert code == 3 and "by_sex: r=N, s=f" in err, err
    # nothing withheld under n = 6: many cells unsafe, each listed once with its table (a
    # second unsafe cell crashed the listing with "'int' object is not subscriptable")
    (tmp / "none_s.csv").write_text("r,s\n")
    (tmp / "none_a.csv").write_text("r,a\n")
    code, _, err = _run(capsys, tmp / "in.csv", *PAIR[:-1], "min_frequency=6", "--audit-only",
                        "--suppressed", tmp / "none_s.csv", "--suppressed", tmp / "none_a.csv")
    assert code == 3, err
    listed = [line for line in err.splitlines() if line.startswith("unsafe")]
    assert len(listed) >= 2 and "by_sex: r=N, s=f (primary but published in by_sex)" in err
    assert any(line.startswith("unsafe      by_age: r=N, a=x") for line in listed), err


@pytest.mark.parametrize("sums", [False, True])
def test_cell_key_of_linked_tables_gives_a_shared_cell_one_value_in_every_file(files, capsys,
                                                                              sums):
    tmp, df = files
    extra = ["--values", "income", "--noise-share", "0.05"] if sums else []
    code, _, err = _run(capsys, tmp / "in.csv", "-o", tmp / "ck",
                        "--table", "name=by_sex;index=region;columns=sex",
                        "--table", f"name=by_age;index=region;columns=age;"
                                   f"hierarchy=region:{tmp / 'regions.csv'}",
                        "--cell-key", "--ptable", "D=3,V=2,js=2", "--record-keys", "key",
                        "--formats", "csv,parquet", *extra)
    assert code == 0, err
    assert sorted(f.name for f in (tmp / "ck").iterdir()) == [
        "by_age.csv", "by_age.parquet", "by_sex.csv", "by_sex.parquet"]
    sexes = pd.read_csv(tmp / "ck" / "by_sex.csv", dtype={"region": str, "sex": str})
    ages = pd.read_csv(tmp / "ck" / "by_age.csv", dtype={"region": str, "age": str})
    # the shared cells: each region's total and the grand total
    a = sexes[sexes.sex == "Total"].set_index("region")["value"]
    b = ages[ages.age == "Total"].set_index("region")["value"]
    shared = ["north", "south", "east", "west", "Total"]
    assert a[shared].tolist() == b[shared].tolist()
    # each file is the Python call's, with the same keys and p-table
    from pdanon.tables import ptable

    text = df.astype({"region": str, "sex": str, "age": str})
    kw = {"values": "income", "aggfunc": "sum"} if sums else {}
    pt = ptable(D=3, V=2, js=2)
    want = text.anon.table(index="region", columns="sex", **kw).cell_key(
        pt, df["key"], **({"m": 0.05} if sums else {}))
    assert (want.cells["noise"] != 0).any()
    np.testing.assert_allclose(sexes["value"], want.cells["value"], rtol=1e-9)
    assert pd.read_parquet(tmp / "ck" / "by_age.parquet")["value"].astype(float).tolist() == \
        pytest.approx(ages["value"].tolist(), rel=1e-12)


def test_a_category_named_total_needs_another_margins_name(tmp_path, capsys):
    pd.DataFrame({"g": ["Total"] * 4 + ["a"] * 5, "c": list("xyxyxyxyx")}).to_csv(
        tmp_path / "in.csv", index=False)
    code, _, err = _run(capsys, tmp_path / "in.csv", "-o", tmp_path / "out.csv", "--index", "g",
                        "--columns", "c")
    assert code == 2 and "--margins-name" in err and "'Total' names both" in err
    code, _, err = _run(capsys, tmp_path / "in.csv", "-o", tmp_path / "out.csv", "--index", "g",
                        "--columns", "c", "--margins-name", "All")
    assert code == 0, err
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert (out["g"] == "Total").sum() == 3 and (out["g"] == "All").sum() == 3
