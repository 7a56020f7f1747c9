"""Protected tables: counts and sums by group, published so that no contributor is disclosed.

Most data that leaves an organisation is tables: counts and sums by region, age band and
industry, with their margins. This package builds such tables from microdata, finds the cells
that disclose a contributor (*primary* rules: minimum frequency, (n, k)-dominance, p %, pq),
chooses further cells to withhold so that the withheld ones cannot be recomputed from the
published cells and margins (*secondary* suppression), and checks every pattern as an attacker
would (the *audit*: the range each withheld cell can take given everything published).

Layers: ``structure`` (dimensions, their trees, the additivity equations), ``table`` (building
the cells from microdata), ``rules`` (primary rules and protection levels), ``audit`` (the
attacker's linear programs), ``suppress`` (secondary suppression), ``union`` and ``linked``
(several tables of one frame protected together), ``output`` (tidy frame and pivot), ``ptable`` and ``cellkey`` (cell-key noise: record keys, p-tables, perturbed counts). It reads :mod:`pdanon.hierarchy` for sub-totals and SciPy's HiGHS for the linear and
integer programs; it imports nothing above the engine layer.

Example
-------
>>> import pandas as pd
>>> import pdanon
>>> df = pd.DataFrame({"region": list("NNNNSSSW"), "sex": list("fmfmffmf")})
>>> t = df.anon.table(index=["region"], columns=["sex"])
>>> p = t.protect({"min_frequency": 2})
>>> sorted(p.cells.loc[p.cells.status != "safe", "status"].unique())
['primary', 'secondary']
>>> pdanon.tables.audit(p).ok
True
"""

from pdanon.tables.audit import AuditResult, audit
from pdanon.tables.cellkey import PerturbedTable, cell_key, record_keys
from pdanon.tables.linked import LinkedTables, link, protect
from pdanon.tables.protected import ProtectedTable, ProtectedTables
from pdanon.tables.ptable import PTable, ptable, read_ptable
from pdanon.tables.rules import primary
from pdanon.tables.structure import Dimension, constraints, dimension
from pdanon.tables.table import Table, build
from pdanon.tables.verify import Verdict, verify

__all__ = ["AuditResult", "Dimension", "LinkedTables", "PTable", "PerturbedTable",
           "ProtectedTable", "ProtectedTables", "Table", "audit", "build", "cell_key",
           "constraints", "dimension", "link", "primary", "protect", "ptable", "read_ptable",
           "record_keys", "Verdict", "verify"]
