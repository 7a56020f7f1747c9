"""Protected tables: counts and sums by group, published with primary and secondary
suppression, and audited as an attacker would; or published with cell-key noise
(docs/tables.md).

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

# 2. A magnitude table with a hierarchy (two sub-totals) and holding-level rules: the
#    p % rule reads each firm's pooled turnover in every cell.
sectors = tree({"primary": ["farming", "mining"], "tertiary": ["retail", "services"]})
sums = df.anon.table(index="region", columns="industry", values="turnover", aggfunc="sum",
                     hierarchies={"industry": sectors}, contributor="firm")
p = sums.protect({"min_frequency": 3, "p_percent": 10}, method="fast")
print(p, p.info["withheld_share"].__round__(3))
print(p.to_frame().head(8))

# 3. Any pattern can be audited, e.g. one made by hand: withholding one cell of a row with
#    its total published gives the cell away.
where = counts.cells.index[(counts.cells.region == "west") & (counts.cells.industry == "farming")]
print(pdanon.tables.audit(counts, where, rules={"min_frequency": 3}).cells)

# 4. Cell-key noise instead of suppression: a record key per row, drawn once from the CSPRNG and
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
