"""Protected tables: counts and sums by group, published with primary and secondary
suppression, and audited as an attacker would; linked tables of one frame protected together;
or published with cell-key noise (docs/tables.md).

Run: python examples/tables.py
"""

import numpy as np
import pandas as pd

import pdanon
from pdanon.hierarchy import tree

rng = np.random.default_rng(7)
n = 120
df = pd.DataFrame({
    "region": rng.choice(["north", "south", "east", "west"], n, p=[0.4, 0.3, 0.2, 0.1]),
    "industry": rng.choice(["farming", "mining", "retail", "services"], n,
                           p=[0.1, 0.05, 0.35, 0.5]),
    "firm": rng.integers(0, 30, n),
    "turnover": rng.gamma(2.0, 50.0, n).round(1),
})

# 1. A count table with its margins: cells of 1 or 2 people are primary, and enough other
#    cells are withheld that none can be recomputed from the rest.
counts = df.anon.table(index="region", columns="industry")
print(counts.pivot(), "\n")
protected = counts.protect({"min_frequency": 3})
print(protected)
print(protected.cells.pivot(index="region", columns="industry", values="status"), "\n")
print(pdanon.tables.audit(protected))  # every withheld cell keeps the range its rule asks
# the fast method for large tables: Gaussian elimination, then linear programs for any
# protection level still short (info says how many cells each step withheld)
g = counts.protect({"min_frequency": 3}, method="gauss")
print(g, g.info["elimination_secondary"], g.info["repair_added"], g.audit.ok)
# group disclosure: a row whose people all (or all but one) fall in one industry tells every
# reader that industry of each of them; group=True makes that row's empty cells (and its
# cells of 1) primary, so a reader cannot rule out one more person there
# (the handbook's table: every married person works full time; the divorced split 5 and 1)
people = pd.DataFrame({"marital": ["married"] * 6 + ["divorced"] * 6 + ["single"] * 4,
                       "hours": ["full"] * 6 + ["full"] * 5 + ["part"] + ["full", "part"] * 2})
grp = people.anon.table(index="marital", columns="hours").protect({"group": True})
print(grp.cells[["marital", "hours", "value", "status", "rule"]], "\n")

# 2. A magnitude table with a hierarchy (two sub-totals) and holding-level rules: the
#    p % rule reads each firm's pooled turnover in every cell.
sectors = tree({"primary": ["farming", "mining"], "tertiary": ["retail", "services"]})
sums = df.anon.table(index="region", columns="industry", values="turnover", aggfunc="sum",
                     hierarchies={"industry": sectors}, contributor="firm")
p = sums.protect({"min_frequency": 3, "p_percent": 10}, method="fast")
print(p, p.info["withheld_share"].__round__(3))
print(p.to_frame().head(8))

# 2b. The modular (HiTaS-like) method for large hierarchical tables: one small sub-table per
#     parent and its children, protected exactly from the top down, then checked (and if need
#     be repaired) on the whole table.
m = df.anon.table(index="region", columns="industry", hierarchies={"industry": sectors}
                  ).protect({"min_frequency": 3}, method="modular")
print(m, {k: m.info[k] for k in ("subtables_solved", "subtables_proven", "repair_cells")})
assert pdanon.tables.audit(m).ok

# 3. Any pattern can be audited, e.g. one made by hand: withholding one cell of a row with
#    its total published gives the cell away.
where = counts.cells.index[(counts.cells.region == "west") & (counts.cells.industry == "farming")]
print(pdanon.tables.audit(counts, where, rules={"min_frequency": 3}).cells)

# 4. Linked tables: region x industry and region x firm size share each region's total. Each
#    protected alone may leave a cell that the two tables' equations recompute together;
#    protected together, a shared cell has one status and the audit sees every table.
sized = df.assign(size=np.where(df.firm < 10, "large", "small"))
size_t = sized.anon.table(index="region", columns="size")
industry_t = sized.anon.table(index="region", columns="industry")
both = pdanon.tables.protect([industry_t, size_t], {"min_frequency": 3})
print(both, both.audit)
print(both.tables[1].to_frame())  # each member publishes as a single table does
shared = both.cells[both.cells.tables.map(len) == 2]
print(shared[["region", "industry", "size", "value", "status"]])
# each member's audit is the linked one (the attacker who sees both tables), its own rows
assert both.tables[1].audit.ok and both.tables[1].linked is both
# published together: each table's files and one report over both, from the allow-list;
# refused (nothing written) if the linked audit found an unsafe cell
import json  # noqa: E402
import os  # noqa: E402
import tempfile  # noqa: E402

with tempfile.TemporaryDirectory() as folder:
    done = pdanon.publish(both, folder, names=["by_industry", "by_size"], formats="csv",
                          pivot=True)
    print(sorted(done.files), done.audit_ok)
    report = json.load(open(os.path.join(folder, "report.json")))
    print(report["audit"], report["distinct_cells"]["by_status"],
          [(t["name"], t["cells"]["by_status"]["withheld"]) for t in report["tables"]])

# 5. Cell-key noise instead of suppression: a record key per row, drawn once from the CSPRNG and
#    kept with the microdata (never published); the same rows get the same noise in every table.
from pdanon.tables import ptable, record_keys  # noqa: E402

df["record_key"] = record_keys(df)
pt = ptable(D=3, V=2, js=2)  # noise within ±3, variance 2, no published count of 1 or 2
print(pt.rows)
by_industry = df.anon.table(index="region", columns="industry").cell_key(pt, df["record_key"])
by_firm_size = df.assign(large=np.where(df.firm < 10, "large", "small")).anon.table(
    index="region", columns="large").cell_key(pt, df["record_key"])
print(by_industry.pivot())
a, b = by_industry.cells, by_firm_size.cells
# each region's total holds the same rows in both tables: the same published count
assert (a[a.industry == "Total"].value.to_numpy() == b[b.large == "Total"].value.to_numpy()).all()
print(by_industry, "published columns:", list(by_industry.to_frame().columns))

# 5. Publishing: the cells (withheld values empty or a marker, a status column), the pivot and
#    a report (rules, method, cells by status and rule, the audit, the information loss), all
#    written from an allow-list: no withheld value, frequency, level or range leaves.
with tempfile.TemporaryDirectory() as folder:
    done = pdanon.publish(p, folder, formats=("csv", "parquet"), pivot=True, marker="x")
    print(done)
    print(open(os.path.join(folder, "table_pivot.csv")).read())
    report = json.load(open(os.path.join(folder, "report.json")))
    print(report["audit"], report["cells"]["primary_by_rule"],
          report["information_loss"]["withheld_value_share"])
    # a perturbed table is published the same way (its report: the noise, never the keys)
    pdanon.publish(by_industry, os.path.join(folder, "noisy"), formats="csv")
    print(json.load(open(os.path.join(folder, "noisy", "report.json")))["noise"])
