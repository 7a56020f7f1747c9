"""Publishing protected and perturbed tables (pdanon/release/tables.py, the allow-list in
pdanon/report/tables.py; issue 52 point 7): the files read back as the protected table, and
nothing written carries a withheld cell's value, frequency, contributions, protection levels,
audit range, a record key or a cell key (canary scans of every byte, and byte-identical files
for two tables that differ only in their withheld cells)."""

from __future__ import annotations

import json
import os
import re
import struct
import warnings

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdanon
from pdanon._errors import InvalidInputError
from pdanon.release import PublishError, publish_table
from pdanon.report.tables import public
from pdanon.tables import ProtectedTable, build, primary, record_keys, ptable

ALL = dict(formats=("csv", "parquet"), pivot=True, report=True)


def firms(seed: int = 0, canary: tuple = (5123.75, 2653.5)) -> pd.DataFrame:
    """Firms by region and sex; the cell (east, f) holds two firms (the canary's
    contributions), every other cell four firms with random cents."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in ("east", "north", "south"):
        for s in ("f", "m"):
            if (r, s) == ("east", "f"):
                rows += [(r, s, canary[0], "z1"), (r, s, canary[1], "z2")]
                continue
            rows += [(r, s, float(rng.integers(10000, 99999)) / 100, f"{r}{s}{i}")
                     for i in range(4)]
    return pd.DataFrame(rows, columns=["region", "sex", "income", "firm"])


RULES = {"min_frequency": 3, "protection": 13}


def protected_firms(**kw) -> ProtectedTable:
    t = firms(**kw).anon.table(index="region", columns="sex", values="income",
                               aggfunc="sum", contributor="firm")
    return t.protect(RULES)


def read_all(folder) -> dict:
    """Every file of ``folder``: its bytes, and for Parquet also its decoded values,
    statistics and key-value metadata as text."""
    out = {}
    for path in sorted(folder.iterdir()):
        data = path.read_bytes()
        text = data.decode("utf-8", errors="replace")
        if path.suffix == ".parquet":
            f = pq.ParquetFile(path)
            meta = f.metadata
            kv = {k.decode(): v.decode() for k, v in (f.schema_arrow.metadata or {}).items()}
            stats = []
            for g in range(meta.num_row_groups):
                for c in range(meta.num_columns):
                    st = meta.row_group(g).column(c).statistics
                    if st is not None and st.has_min_max:
                        stats += [st.min, st.max]
            table = f.read().to_pandas()
            text = "\n".join([json.dumps(kv), repr(stats), table.to_csv(index=False),
                              text])
        out[path.name] = (data, text)
    return out


def renderings(v: float) -> set:
    """The ways a number may be written: repr, fixed decimals, significant digits,
    thousands separators, rounded to a whole number."""
    v = float(v)
    out = {repr(v), f"{v:.1f}", f"{v:.2f}", f"{v:.3f}", f"{v:.3g}", f"{v:.4g}", f"{v:.6g}",
           f"{v:,.2f}", f"{v:,.1f}", f"{v:,}", f"{v:.2e}"}
    if abs(v) >= 100:
        out |= {str(int(round(v))), f"{int(round(v)):,}", str(int(v))}
    if v.is_integer():
        out.add(str(int(v)))
    return {r for r in out if len(r.replace(",", "").replace(".", "").lstrip("0")) >= 3}


def binary(v: float) -> list:
    out = [struct.pack("<d", float(v)), struct.pack("<f", float(v))]
    if float(v).is_integer():
        out += [struct.pack("<q", int(v)), struct.pack("<i", int(v))]
    return out


def leaks(files: dict, secrets: dict) -> list:
    """(file, secret name, rendering) for every secret found: as a number token in the
    text (not inside a longer number), or packed in a Parquet file's bytes."""
    found = []
    for name, (data, text) in files.items():
        for what, v in secrets.items():
            for r in renderings(v):
                if re.search(rf"(?<![\d.]){re.escape(r)}(?![\d])", text):
                    found.append((name, what, r))
            if name.endswith(".parquet"):
                found += [(name, what, "binary") for b in binary(v) if b in data]
    return found


def secrets_of(p: ProtectedTable) -> dict:
    """What may not leave: every withheld cell's value, frequency, largest contributions,
    levels and audit range (a range bound that equals a published value is public)."""
    cells = p.cells
    hidden = cells["status"] != "safe"
    published = cells.loc[~hidden, "value"].to_numpy(dtype=float)
    top = p.table.largest(2)
    out = {}
    for i in np.flatnonzero(hidden.to_numpy()):
        out[f"value {i}"] = cells["value"].iloc[i]
        out[f"frequency {i}"] = cells["frequency"].iloc[i]
        for j in range(2):
            if top[i, j] > 0:
                out[f"contribution {i}.{j}"] = top[i, j]
        for lv in ("lower", "upper"):
            if cells[lv].iloc[i] > 0:
                out[f"{lv} {i}"] = cells[lv].iloc[i]
    aud = p.audit.cells
    for i, row in aud.iterrows():
        for b in ("low", "high"):
            v = float(row[b])
            if np.isfinite(v) and v > 0 and not np.isclose(published, v).any():
                out[f"audit {b} {i}"] = v
    return {k: float(v) for k, v in out.items() if float(v) >= 100}


# ----------------------------------------------------------------------------- read back

def test_files_read_back_as_the_protected_table(tmp_path):
    p = protected_firms()
    done = pdanon.publish(p, tmp_path, marker="x", **ALL)
    assert sorted(done.files) == ["report.html", "report.json", "table.csv",
                                  "table.parquet", "table_pivot.csv"]
    hidden = (p.cells["status"] != "safe").to_numpy()
    assert hidden.sum() >= 4  # the canary cell and its secondaries
    csv = pd.read_csv(tmp_path / "table.csv", dtype=str, keep_default_na=False)
    assert csv.columns.tolist() == ["region", "sex", "value", "status"]
    assert csv["region"].tolist() == p.cells["region"].tolist()
    assert csv["sex"].tolist() == p.cells["sex"].tolist()
    assert (csv["status"] == np.where(hidden, "withheld", "published")).all()
    assert (csv.loc[hidden, "value"] == "x").all()
    np.testing.assert_allclose(csv.loc[~hidden, "value"].astype(float),
                               p.cells.loc[~hidden, "value"])
    par = pd.read_parquet(tmp_path / "table.parquet")
    assert par["value"].isna().to_numpy().tolist() == hidden.tolist()  # null, not the marker
    np.testing.assert_allclose(par.loc[~hidden, "value"].astype(float),
                               p.cells.loc[~hidden, "value"])
    assert par.attrs == {} and par.index.equals(pd.RangeIndex(len(par)))
    piv = pd.read_csv(tmp_path / "table_pivot.csv", dtype=str, keep_default_na=False,
                      index_col=0)
    cells = p.cells.set_index(["region", "sex"])
    for r in piv.index:
        for s in piv.columns:
            v, st = cells.loc[(r, s), ["value", "status"]]
            if st != "safe":
                assert piv.loc[r, s] == "x"
            else:
                assert float(piv.loc[r, s]) == pytest.approx(v, rel=1e-12)
    rep = json.loads((tmp_path / "report.json").read_text())
    assert rep["audit"] == {"withheld": int(hidden.sum()), "unsafe": 0, "ok": True, "check": "full"}
    assert rep["cells"]["by_status"]["withheld"] == int(hidden.sum())
    assert rep["cells"]["primary_by_rule"] == {"min_frequency": 1}
    assert rep["rules"]["min_frequency"] == 3 and rep["method"]["method"] == "optimal"
    assert rep["information_loss"]["withheld_cells"] == int(hidden.sum())
    # the withheld share: here the published row totals fix it, so it is exact and true
    share = rep["information_loss"]["withheld_value_share"]
    assert share["exact"] and share["low"] == pytest.approx(p.info["withheld_share"])
    digests = {f["name"]: f["sha256"] for f in rep["files"]}
    assert digests["table.csv"] == done.files["table.csv"]["sha256"]
    html = (tmp_path / "report.html").read_text()
    assert "Audit: PASSED" in html and "Primary cells by the rule" in html


def test_the_withheld_share_is_the_range_the_published_cells_imply():
    """Withhold the row east and the row of totals (nothing then fixes the east cells'
    sum): the share is a range, computed from published cells only, holding the true one."""
    p = protected_firms()
    cells = p.cells.copy()
    east = cells["region"].isin(["east", "Total"]).to_numpy()
    cells["status"] = np.where(east, "secondary", cells["status"])
    cells.loc[east & (cells["sex"] == "f"), "status"] = "primary"
    q = ProtectedTable(p.table, cells, dict(p.info))
    share = public(q).facts["information_loss"]["withheld_value_share"]
    true = cells.loc[east, "value"].sum() / cells["value"].sum()
    assert not share["exact"]
    assert share["low"] <= true <= share["high"] and share["high"] > share["low"]


# ----------------------------------------------------------------------------- canaries

def test_canary_no_withheld_fact_leaves_in_any_artifact(tmp_path):
    p = protected_firms()
    assert p.cells.loc[0, "value"] == 7777.25 and p.cells.loc[0, "status"] == "primary"
    secrets = secrets_of(p)
    # the canary's own figures are among the secrets
    assert {7777.25, 5123.75, 2653.5} <= set(secrets.values())
    assert any(abs(v - 0.13 * 7777.25) < 1e-9 for v in secrets.values())  # the levels
    assert any(k.startswith("audit") for k in secrets)
    for marker in (None, "x"):
        folder = tmp_path / f"m{marker}"
        pdanon.publish(p, folder, marker=marker, **ALL)
        files = read_all(folder)
        assert set(files) == {"report.html", "report.json", "table.csv", "table.parquet",
                              "table_pivot.csv"}
        assert leaks(files, secrets) == []
        # the published values are there (the scan reads what was written)
        assert "8568.25" in files["table.csv"][1] or "east" in files["table.csv"][1]


def test_the_canary_scan_catches_a_report_that_prints_the_audit(tmp_path):
    """The scan must fail if a file carried the audit table, the cells or the levels."""
    p = protected_firms()
    pdanon.publish(p, tmp_path, **ALL)
    secrets = secrets_of(p)
    for extra in (p.audit.cells.to_html(), p.cells.to_csv(), json.dumps(
            p.cells[["lower", "upper"]].to_dict("list"))):
        (tmp_path / "report.html").write_text(extra)
        assert leaks(read_all(tmp_path), secrets)
    p.cells.to_parquet(tmp_path / "table.parquet")
    (tmp_path / "report.html").write_text("")
    assert leaks(read_all(tmp_path), secrets)


def test_count_canary_frequency_and_levels_do_not_leave(tmp_path):
    """A count table: the withheld cell's frequency 2613 and its upper level 10000 - 2613 =
    7387 (which gives the frequency away) leave nowhere."""
    counts = {("east", "f"): 2613, ("east", "m"): 10421, ("north", "f"): 11234,
              ("north", "m"): 12001, ("south", "f"): 10877, ("south", "m"): 13159}
    df = pd.DataFrame([k for k, n in counts.items() for _ in range(n)],
                      columns=["region", "sex"])
    p = df.anon.table(index="region", columns="sex").protect({"min_frequency": 10000})
    assert p.cells.loc[0, "upper"] == 7387 and p.cells.loc[0, "status"] == "primary"
    secrets = secrets_of(p)
    assert {2613.0, 7387.0} <= set(secrets.values())
    pdanon.publish(p, tmp_path, marker="..", **ALL)
    assert leaks(read_all(tmp_path), secrets) == []


@pytest.mark.parametrize("shift", [1.25, 37.5, 400.0])
def test_every_file_depends_on_the_published_cells_only(tmp_path, shift):
    """Two tables with the same published cells and the same pattern, whose withheld cells
    differ (a shift around the rectangle of withheld cells keeps every margin): every file
    written, report included, is the same, byte for byte."""
    p = protected_firms()
    hidden = p.cells.loc[p.cells.status != "safe", ["region", "sex"]]
    assert len(hidden) == 4 and set(hidden.region) == {"east", "south"}
    df = firms()
    moved = df.copy()
    for (r, s), sign in {("east", "f"): 1, ("east", "m"): -1, ("south", "f"): -1,
                         ("south", "m"): 1}.items():
        i = moved.index[(moved.region == r) & (moved.sex == s)][0]
        moved.loc[i, "income"] += sign * shift
    t2 = moved.anon.table(index="region", columns="sex", values="income", aggfunc="sum",
                          contributor="firm")
    assert not np.allclose(t2.cells["value"], p.cells["value"])
    cells2 = t2.cells.copy()
    cells2["status"] = p.cells["status"].to_numpy()
    levels = primary(t2, RULES)
    for c in ("rule", "lower", "upper"):
        cells2[c] = levels[c].to_numpy()
    q = ProtectedTable(t2, cells2, dict(p.info))
    assert q.audit.ok
    pdanon.publish(p, tmp_path / "a", **ALL)
    pdanon.publish(q, tmp_path / "b", **ALL)
    for name in ("report.html", "report.json", "table.csv", "table.parquet",
                 "table_pivot.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), \
            name


def test_perturbed_table_keys_and_originals_do_not_leave(tmp_path):
    n = 40
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"region": rng.choice(["east", "north", "south"], n),
                       "sex": rng.choice(["f", "m"], n)})
    keys = pd.Series(40000 + 337 * np.arange(n) % 20000, index=df.index)  # 5-digit keys
    t = df.anon.table(index="region", columns="sex")
    out = t.cell_key(ptable(D=2, V=1, js=1), keys)
    cell_keys = np.mod(t.sum_by_cell(keys.to_numpy()), 2 ** 16)
    secrets = {f"key {i}": float(k) for i, k in enumerate(keys)}
    secrets |= {f"cell key {i}": float(k) for i, k in enumerate(cell_keys) if k >= 100}
    done = pdanon.publish(out, tmp_path, **ALL)
    assert done.audit_ok is None
    files = read_all(tmp_path)
    assert leaks(files, secrets) == []
    back = pd.read_csv(tmp_path / "table.csv")
    assert back.columns.tolist() == ["region", "sex", "value"]
    assert back["value"].tolist() == out.cells["value"].tolist()
    rep = json.loads(files["report.json"][1])
    assert rep["noise"]["cells_changed"] == int((out.cells["noise"] != 0).sum())
    assert rep["noise"]["max_abs_change"] == float(out.cells["noise"].abs().max())
    assert "mean_noise" not in files["report.json"][1]  # the signed mean gives the total back


def test_a_perturbed_sum_reports_no_noise_size(tmp_path):
    """The size of a sum's noise is a share of its largest contribution: only the count of
    cells changed is reported."""
    df = firms()
    t = df.anon.table(index="region", values="income", aggfunc="sum")
    out = t.cell_key(ptable(D=2, V=1), record_keys(df, seed=1), m=0.05)
    pdanon.publish(out, tmp_path, formats="csv")
    rep = json.loads((tmp_path / "report.json").read_text())
    assert set(rep["noise"]) == {"cells_changed", "cells"}


def test_a_missing_category_is_published_missing_and_labelled_in_the_pivot(tmp_path):
    df = pd.DataFrame({"a": ["p", "q", "q", None, "r", "r", "r"], "b": list("xxyyxyx")})
    t = df.anon.table(index="a", columns="b")
    assert t.pivot().index.tolist() == ["p", "q", "r", "(missing)", "Total"]
    pdanon.publish(t.protect({"min_frequency": 2}), tmp_path, formats="parquet", pivot=True)
    assert pd.read_parquet(tmp_path / "table.parquet")["a"].isna().sum() == 3
    piv = pd.read_csv(tmp_path / "table_pivot.csv", dtype=str, keep_default_na=False)
    assert piv["a"].tolist() == ["p", "q", "r", "(missing)", "Total"]


def test_audit_false_checks_the_certificates_and_says_so(tmp_path):
    p = protected_firms()
    done = pdanon.publish(p, tmp_path, formats="csv", audit=False)
    assert done.audit_ok is True
    rep = json.loads((tmp_path / "report.json").read_text())
    assert rep["audit"] == {"withheld": 4, "unsafe": 0, "ok": True, "check": "certificates"}
    assert "proof" in (tmp_path / "report.html").read_text()
    # a secondary cell published after protect: the certificates no longer hold, nothing
    # is written
    q = protected_firms()
    q.cells.loc[q.cells.status == "secondary", "status"] = "safe"
    with pytest.raises(PublishError):
        pdanon.publish(q, tmp_path / "tampered", formats="csv", audit=False)
    assert not (tmp_path / "tampered").exists() or not any((tmp_path / "tampered").iterdir())
    with pytest.raises(InvalidInputError, match="audit= and names= are for protected"):
        pdanon.publish(pd.DataFrame({"a": [1]}), tmp_path / "m", audit=False)


# ----------------------------------------------------------------------------- refusals

def test_a_pattern_the_audit_rejects_is_not_published(tmp_path):
    p = protected_firms()
    cells = p.cells.copy()
    cells["status"] = np.where(cells["status"] == "primary", "primary", "safe")  # alone
    bad = ProtectedTable(p.table, cells, dict(p.info))
    with pytest.raises(PublishError, match="audit finds 1 withheld"):
        publish_table(bad, tmp_path / "out", formats=("csv", "parquet"), pivot=True)
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_existing_files_are_kept_and_microdata_options_refused(tmp_path):
    p = protected_firms()
    pdanon.publish(p, tmp_path, formats="csv")
    before = (tmp_path / "table.csv").read_bytes()
    with pytest.raises(PublishError, match="already exist"):
        pdanon.publish(p, tmp_path, formats="csv")
    assert (tmp_path / "table.csv").read_bytes() == before
    with pytest.raises(InvalidInputError, match="takes no policy="):
        pdanon.publish(p, tmp_path / "b", policy=pdanon.Policy(k=2))
    with pytest.raises(InvalidInputError, match="formats"):
        pdanon.publish(p, tmp_path / "c", formats="xlsx")
    with pytest.raises(InvalidInputError, match="marker"):
        pdanon.publish(p, tmp_path / "d", marker="")
    with pytest.raises(InvalidInputError, match="protected table"):
        publish_table(p.table, tmp_path / "e")


# ----------------------------------------------------------------------------- bad input

def test_protection_no_pattern_can_give_names_the_cells():
    """(1, 10)-dominance asks a range reaching below zero for a dominated cell: refused
    before any work, naming the cells and the fix."""
    df = pd.DataFrame({"g": ["a", "a", "b", "b", "b"], "v": [90.0, 10, 30, 30, 40]})
    t = build(df, index="g", values="v", aggfunc="sum")
    with pytest.raises(InvalidInputError, match=r"\(g='a'\) by dominance \(1, 10\).*below "
                                                r"zero.*k >= 50"):
        t.protect({"dominance": (1, 10)})
    # a k >= 50 asks no more than the value: protected
    assert t.protect({"dominance": (1, 60)}).audit.ok


@pytest.mark.parametrize("a, b, n", [(1, 1, 3), (1, 4, 3), (2, 2, 5), (1, 9, 10), (3, 0, 4)])
def test_every_min_frequency_on_a_two_cell_table_has_a_pattern(a, b, n):
    """One primary cell and a single other one, with the total: withholding the three
    protects every frequency rule (the attacker then knows only that counts are >= 0), so
    protect always returns an audited pattern; there is no impossible min_frequency."""
    df = pd.DataFrame({"g": ["a"] * a + ["b"] * b})
    p = build(df, index="g").protect({"min_frequency": n})
    assert p.audit.ok and (p.cells["status"] == "primary").any()


def test_a_time_limit_reached_returns_the_audited_fast_pattern_with_a_warning():
    from pdanon.tables.suppress import SuppressionWarning

    rng = np.random.default_rng(4)
    df = pd.DataFrame({"r": rng.integers(0, 8, 600), "c": rng.integers(0, 8, 600),
                       "d": rng.integers(0, 3, 600)})
    t = build(df, index=["r", "d"], columns="c")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = t.protect({"min_frequency": 5}, time_limit=1e-6)
    assert any(issubclass(w.category, SuppressionWarning) and "time_limit" in str(w.message)
               for w in caught)
    assert p.info["optimal"] is not True and p.audit.ok


@pytest.mark.parametrize("kwargs, words", [
    (dict(index="g", values="neg", aggfunc="sum"), ["'neg'", "negative", "split"]),
    (dict(index="g", values="na", aggfunc="sum"), ["'na'", "missing", "fillna"]),
    (dict(index="g", contributor="who"), ["'who'", "missing ids", "unique id"]),
])
def test_bad_magnitude_and_contributor_columns_name_the_column_and_fix(kwargs, words):
    df = pd.DataFrame({"g": list("ab"), "neg": [1.0, -1.0], "na": [1.0, None],
                       "who": [1, None]})
    with pytest.raises(InvalidInputError) as err:
        build(df, **kwargs)
    for w in words:
        assert w in str(err.value)


def test_a_hierarchy_that_is_not_a_tree_or_misses_values_is_named(tmp_path):
    from pdanon.hierarchy import read_arx_csv, tree

    df = pd.DataFrame({"country": ["fr", "es", "in", "de"]})
    with pytest.raises(InvalidInputError, match=r"'country'.*\['de'\].*add it"):
        build(df, index="country", hierarchies={"country": tree({"EU": ["fr", "es"],
                                                                 "AS": ["in"]})})
    path = tmp_path / "h.csv"
    path.write_text("fr;West;EU\nes;West;EU2\nin;East;AS\nde;Mid;EU\n")
    with pytest.raises(InvalidInputError, match="'West'.*both 'EU' and 'EU2'.*single parent"):
        build(df, index="country", hierarchies={"country": read_arx_csv(path)})


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.integers(0, 6), min_size=9, max_size=9), st.integers(2, 4),
       st.integers(0, 2 ** 32 - 1))
def test_property_files_do_not_read_the_withheld_cells(flat, n, seed):
    """Random 3 x 3 count tables: garbling what a protected table holds of its withheld
    cells (value, frequency, the rule's detail) changes no byte written."""
    import tempfile

    counts = np.array(flat).reshape(3, 3)
    if counts.sum() == 0:
        return
    rows = [(f"r{i}", f"c{j}") for i in range(3) for j in range(3) for _ in range(counts[i, j])]
    p = pd.DataFrame(rows, columns=["r", "c"]).anon.table(index="r", columns="c").protect(
        {"min_frequency": n}, method="fast")
    hidden = (p.cells["status"] != "safe").to_numpy()
    rng = np.random.default_rng(seed)
    cells = p.cells.copy()
    cells.loc[hidden, "value"] = rng.integers(0, 10 ** 6, int(hidden.sum()))
    cells.loc[hidden, "frequency"] = rng.integers(0, 10 ** 6, int(hidden.sum()))
    cells.loc[hidden, "rule"] = cells.loc[hidden, "rule"] + f" ({seed})"
    q = ProtectedTable(p.table, cells, dict(p.info))
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        pdanon.publish(p, a, marker="x", **ALL)
        pdanon.publish(q, b, marker="x", **ALL)
        for name in ("report.html", "report.json", "table.csv", "table.parquet",
                     "table_pivot.csv"):
            with open(f"{a}/{name}", "rb") as fa, open(f"{b}/{name}", "rb") as fb:
                assert fa.read() == fb.read(), name


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.integers(0, 9), min_size=12, max_size=12),
       st.lists(st.booleans(), min_size=20, max_size=20))
def test_property_the_withheld_share_is_the_attackers_range(flat, withheld):
    """The share's range (per group of withheld cells, least squares when the equations fix
    a group's sum) is the attacker's: min and max of the withheld total by two linear
    programs over the whole table."""
    from scipy.optimize import linprog

    counts = np.array(flat).reshape(3, 4)
    if counts.sum() == 0 or not any(withheld):
        return
    rows = [(f"r{i}", f"c{j}") for i in range(3) for j in range(4) for _ in range(counts[i, j])]
    t = pd.DataFrame(rows, columns=["r", "c"]).anon.table(index="r", columns="c")
    x = t.cells["value"].to_numpy(dtype=float)
    hidden = np.array(withheld[:len(x)])
    cells = t.cells.assign(status=np.where(hidden, "secondary", "safe"), rule="",
                           lower=0.0, upper=0.0)
    share = public(ProtectedTable(t, cells, {"method": "hand"}), audit=False).facts[
        "information_loss"]["withheld_value_share"]
    A = t.constraints.toarray().astype(float)
    bounds = [(0, None) if h else (v, v) for h, v in zip(hidden, x)]
    lo = linprog(hidden.astype(float), A_eq=A, b_eq=np.zeros(len(A)), bounds=bounds)
    hi = linprog(-hidden.astype(float), A_eq=A, b_eq=np.zeros(len(A)), bounds=bounds)
    published = x[~hidden].sum()
    want_lo = lo.fun / (published + lo.fun) if published + lo.fun > 0 else 0.0
    want_hi = 1.0 if hi.status == 3 else (-hi.fun / (published - hi.fun)
                                          if published - hi.fun > 0 else 0.0)
    assert share["low"] == pytest.approx(want_lo, rel=1e-5, abs=1e-9)
    assert share["high"] == pytest.approx(want_hi, rel=1e-5, abs=1e-9)
    assert share["exact"] == bool(abs(want_hi - want_lo) < 1e-9)


# ----------------------------------------------------------------------------- linked tables

def linked_firms(**kw):
    """Region x sex and region x band of the firms, protected together: (east, f) holds the
    canary's two firms (7777.25), (east, young) the firm of 2653.5 and one other."""
    df = firms(**kw)
    young = df.firm.isin(["z2", "eastm0"]) | (df.firm.str[-1].isin(["0", "1"])
                                              & ~df.region.eq("east"))
    df["band"] = np.where(young, "young", "old")
    spec = dict(values="income", aggfunc="sum", contributor="firm")
    return pdanon.tables.link(df.anon.table(index="region", columns="sex", **spec),
                              df.anon.table(index="region", columns="band", **spec)
                              ).protect(RULES)


def linked_secrets(p) -> dict:
    """Every member's secrets (secrets_of, its audit the linked one), less an audit bound
    that equals a value some table publishes."""
    shown = np.concatenate([m.cells.loc[m.cells.status == "safe", "value"].to_numpy(float)
                            for m in p.tables])
    out = {}
    for i, m in enumerate(p.tables):
        for k, v in secrets_of(m).items():
            if not (k.startswith("audit") and np.isclose(shown, v).any()):
                out[f"table {i} {k}"] = v
    return out


def test_linked_tables_publish_every_table_and_one_report(tmp_path):
    p = linked_firms()
    done = pdanon.publish(p, tmp_path, names=["by_sex", "by_band"], marker="x", **ALL)
    assert sorted(done.files) == sorted(
        ["report.html", "report.json"] + [f"{n}{s}" for n in ("by_sex", "by_band")
                                          for s in (".csv", ".parquet", "_pivot.csv")])
    assert done.audit_ok is True
    for name, m in zip(("by_sex", "by_band"), p.tables):
        hidden = (m.cells["status"] != "safe").to_numpy()
        assert 0 < hidden.sum() < len(hidden)
        dims = m.table.dimensions
        csv = pd.read_csv(tmp_path / f"{name}.csv", dtype=str, keep_default_na=False)
        assert csv.columns.tolist() == [*dims, "value", "status"]
        assert csv[dims].values.tolist() == m.cells[dims].values.tolist()
        assert (csv.loc[hidden, "value"] == "x").all()
        np.testing.assert_allclose(csv.loc[~hidden, "value"].astype(float),
                                   m.cells.loc[~hidden, "value"])
        par = pd.read_parquet(tmp_path / f"{name}.parquet")
        assert par["value"].isna().to_numpy().tolist() == hidden.tolist()
        piv = pd.read_csv(tmp_path / f"{name}_pivot.csv", dtype=str, keep_default_na=False)
        assert piv.shape == (4, 4)  # 3 regions and the total; the label column, 2 + total
    rep = json.loads((tmp_path / "report.json").read_text())
    linked = p.audit.cells
    assert rep["kind"] == "linked tables"
    assert rep["audit"] == {"withheld": len(linked), "unsafe": 0, "ok": True, "check": "full"}
    assert [t["name"] for t in rep["tables"]] == ["by_sex", "by_band"]
    for t, m in zip(rep["tables"], p.tables):
        hid = int((m.cells.status != "safe").sum())
        assert t["cells"]["by_status"]["withheld"] == hid == t["audit"]["withheld"]
        assert t["cells"]["primary_by_rule"] == {"min_frequency": 1}
        assert t["information_loss"]["withheld_cells"] == hid
    d = rep["distinct_cells"]
    assert d["total"] == len(p.cells) == 20 and d["shared"] == 4
    assert d["by_status"] == {"published": int((p.cells.status == "safe").sum()),
                              "withheld": len(linked), "primary": 2,
                              "secondary": len(linked) - 2}
    assert rep["information_loss"]["withheld_cells"] == len(linked)
    share = rep["information_loss"]["withheld_value_share"]
    true = p.cells.loc[p.cells.status != "safe", "value"].sum() / p.cells["value"].sum()
    assert share["low"] - 1e-6 <= true <= share["high"] + 1e-6
    assert rep["rules"]["min_frequency"] == 3 and rep["method"]["method"] == "optimal"
    digests = {f["name"]: f["sha256"] for f in rep["files"]}
    assert digests["by_band.csv"] == done.files["by_band.csv"]["sha256"]
    html = (tmp_path / "report.html").read_text()
    assert "Audit: PASSED" in html and "Table by_band" in html and "distinct cells" in html
    # default names, one format
    again = pdanon.publish(p, tmp_path / "d", formats="csv")
    assert sorted(again.files) == ["report.html", "report.json", "table_1.csv", "table_2.csv"]


def test_linked_canary_no_withheld_fact_leaves_in_any_artifact(tmp_path):
    p = linked_firms()
    secrets = linked_secrets(p)
    values = set(secrets.values())
    assert {7777.25, 5123.75, 2653.5, 3519.05} <= values  # both tables' canaries
    assert any(abs(v - 0.13 * 3519.05) < 1e-9 for v in values)  # a level of table 2
    assert any(" audit " in k for k in secrets)
    for marker in (None, "x"):
        folder = tmp_path / f"m{marker}"
        pdanon.publish(p, folder, marker=marker, **ALL)
        files = read_all(folder)
        assert len(files) == 8
        assert leaks(files, secrets) == []
        assert "10218.86" in files["table_1.csv"][1]  # the scan reads what was written
    # and the scan would see the linked audit or the distinct cells if a file carried them
    for extra in (p.audit.cells.to_html(), p.cells.to_csv()):
        (folder / "report.html").write_text(extra)
        assert leaks(read_all(folder), secrets)


def test_linked_tables_whose_audit_fails_are_not_published(tmp_path):
    """A pattern changed after protect: table 1 publishes its secondary cells, so its
    primary cell is recomputable. Nothing is written, for the set or for either member."""
    p = linked_firms()
    m = p.tables[0]
    m.cells["status"] = np.where(m.cells.status == "secondary", "safe", m.cells.status)
    m._audit = p._audit = None
    with pytest.raises(PublishError, match="linked audit .* finds 1 cells"):
        pdanon.publish(p, tmp_path / "set", **ALL)
    with pytest.raises(PublishError):
        pdanon.publish(p.tables[1], tmp_path / "one", formats="csv")
    assert not any((tmp_path / d).exists() and any((tmp_path / d).iterdir())
                   for d in ("set", "one"))


def test_linked_names_are_checked(tmp_path):
    p = linked_firms()
    for names, words in ((["a"], "one name per table"), (["a", "A"], "names two files"),
                         (["a", "a_pivot"], "names two files"), (["../a", "b"], "plain"),
                         (["report", "b"], "plain")):
        with pytest.raises(InvalidInputError, match=words):
            pdanon.publish(p, tmp_path / "x", names=names, pivot=True)
    assert not (tmp_path / "x").exists()
    with pytest.raises(InvalidInputError, match="names= names the files of linked"):
        pdanon.publish(p.tables[0], tmp_path / "y", names=["a"])


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.integers(0, 5), min_size=12, max_size=12), st.integers(2, 4),
       st.integers(0, 2 ** 32 - 1))
def test_property_linked_files_do_not_read_the_withheld_cells(flat, n, seed):
    """Random linked count tables (r x c and r x d of one frame): garbling what each member
    holds of its withheld cells (value, frequency, the rule's detail) changes no byte of the
    set's files, report included."""
    import tempfile

    counts = np.array(flat).reshape(3, 2, 2)
    if counts.sum() == 0:
        return
    rows = [(f"r{i}", f"c{j}", f"d{k}") for i in range(3) for j in range(2) for k in range(2)
            for _ in range(counts[i, j, k])]
    df = pd.DataFrame(rows, columns=["r", "c", "d"])
    p = pdanon.tables.link(df.anon.table(index="r", columns="c"),
                           df.anon.table(index="r", columns="d")).protect(
        {"min_frequency": n}, method="fast")
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        pdanon.publish(p, a, marker="x", **ALL)
        for m in p.tables:
            hidden = (m.cells["status"] != "safe").to_numpy()
            m.cells.loc[hidden, "value"] = rng.integers(0, 10 ** 6, int(hidden.sum()))
            m.cells.loc[hidden, "frequency"] = rng.integers(0, 10 ** 6, int(hidden.sum()))
            m.cells.loc[hidden, "rule"] = m.cells.loc[hidden, "rule"] + f" ({seed})"
        pdanon.publish(p, b, marker="x", **ALL)
        names = sorted(os.listdir(a))
        assert names == sorted(os.listdir(b)) and len(names) == 8
        for name in names:
            with open(f"{a}/{name}", "rb") as fa, open(f"{b}/{name}", "rb") as fb:
                assert fa.read() == fb.read(), name
