"""pdanon on Dask: the same ``.anon`` on a Dask DataFrame, from Parquet to Parquet.

Needs the extra: ``pip install "pdanon[dask]"`` (dask[dataframe] and distributed); without it
this script says so and exits. Runs a tiny LocalCluster (threads in this process) on 120,000
resampled Adult rows in a few seconds; on a real cluster only the ``Client`` line changes
(see docs/dask.md).
"""

import sys
import tempfile
from pathlib import Path

try:
    import dask.dataframe as dd
    from distributed import Client, LocalCluster
except ImportError:
    print("skipped: this example needs the dask extra (pip install 'pdanon[dask]')")
    sys.exit(0)

import numpy as np
import pandas as pd

import pdanon
import pdanon.dask  # registers ddf.anon and the generalization dtype with Dask

# 120,000 rows: Adult resampled with jittered ages, written as 4 Parquet files
adult = pdanon.datasets.load_adult()
rng = np.random.default_rng(0)
rows = adult.iloc[rng.integers(0, len(adult), 120_000)].reset_index(drop=True)
rows["age"] = np.clip(rows["age"].to_numpy() + rng.integers(-2, 3, len(rows)), 17, 90)

with tempfile.TemporaryDirectory() as tmp, \
        LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                     dashboard_address=":0") as cluster, Client(cluster) as client:
    source = Path(tmp, "adult")
    source.mkdir()
    for i, chunk in enumerate(np.array_split(np.arange(len(rows)), 4)):
        rows.iloc[chunk].to_parquet(source / f"part.{i}.parquet")

    # roles (8 quasi-identifiers, salary-class sensitive) travel with the Parquet files
    ddf = dd.read_parquet(source)
    print("partitions:", ddf.npartitions, "| roles:", ddf.anon.roles().sensitive)
    print("before: k =", ddf.anon.k_anonymity(), "| classes:", len(ddf.anon.class_sizes()))

    # k = 5: top cuts on the whole data until every part has <= 40,000 rows, then the
    # single-machine Mondrian per part; written to Parquet and verified on the written files
    out = ddf.anon.k_anonymize(5, max_rows_per_part=40_000, path=str(Path(tmp, "k5")))
    info = out.anon.info
    print(f"\nk=5: {info['parts']} parts after {info['cut_levels']} cut levels, "
          f"{info['groups']:,} classes, verified {info['verified']}")
    print("timings (s):", {k: round(v, 2) for k, v in info["timings"].items()})
    print("collected to the client:", f"{info['collected_bytes'] / 1024:.0f} KB of counts")
    with pd.option_context("display.width", 120, "display.max_columns", 10):
        print(out.head(3)[["age", "sex", "education", "occupation", "salary-class"]])

    # metrics as Dask group-bys: the same values pandas gives on the same rows
    table = out.anon.metrics()
    print()
    print(table)
    local = out.compute()
    assert table.set_index("metric").loc["k_anonymity", "value"] == local.anon.k_anonymity()
    assert out.anon.t_closeness() == local.anon.t_closeness()

    # l-diversity and t-closeness: the model is checked on counts for every cut
    l_out = ddf.anon.l_diversify(1.5, variant="entropy", k=5, max_rows_per_part=40_000)
    t_out = ddf.anon.t_close(0.2, k=5, max_rows_per_part=40_000)
    print(f"\nentropy l >= 1.5: l = {l_out.anon.l_diversity(variant='entropy'):.3f}, "
          f"{l_out.anon.info['groups']:,} classes")
    print(f"t <= 0.2:         t = {t_out.anon.t_closeness():.3f}, "
          f"{t_out.anon.info['groups']:,} classes")
    assert isinstance(local["age"].dtype, pdanon.GeneralizationDtype)
    # rows in a random order across partitions under a fresh index (r..), as on pandas
    assert local.index.str.startswith("r").all() and not local.index.isin(rows.index).any()

    # missing values are data: a missing occupation is a value of its own; a class mixing
    # missing and present occupations publishes a cell that covers both ("{a, b} or missing")
    holes = rows.assign(occupation=rows["occupation"].where(rng.random(len(rows)) > 0.05))
    Path(tmp, "holes").mkdir()
    for i, chunk in enumerate(np.array_split(np.arange(len(holes)), 4)):
        holes.iloc[chunk].to_parquet(Path(tmp, "holes", f"part.{i}.parquet"))
    # row_order="input": the input's order, to compare cell by cell (check() fails such a
    # release: not for publishing)
    m_out = dd.read_parquet(Path(tmp, "holes")).anon.k_anonymize(5, max_rows_per_part=40_000,
                                                                 row_order="input")
    m_local = m_out.compute()
    print(f"\n5% missing occupations: {m_out.anon.info['groups']:,} classes, "
          f"{m_out.anon.info['suppressed_cells']:,} suppressed cells, "
          f"verified {m_out.anon.info['verified']}")
    # a missing cell is never published as a value: missing, or in a cell "or missing"
    was_missing = holes["occupation"].isna().to_numpy()
    cell = m_local["occupation"]
    covers = np.asarray(cell.array.or_missing, dtype=bool) | cell.isna().to_numpy()
    assert covers[was_missing].all()
    print(f"missing occupations published in a cell 'or missing': "
          f"{int(np.asarray(cell.array.or_missing)[was_missing].sum()):,} of "
          f"{int(was_missing.sum()):,}")

    # suppression and aggregation: the same parts, published as the pandas engine publishes
    # them; a Categorical keeps only the categories some published cell holds
    s_out = ddf.anon.k_anonymize(5, method="suppress", max_rows_per_part=40_000)
    a_out = ddf.anon.k_anonymize(5, method="aggregate", max_rows_per_part=40_000)
    a_local = a_out.compute()
    print(f"\nsuppress: {s_out.anon.info['suppressed_cells']:,} cells suppressed, "
          f"{s_out.anon.info['groups']:,} classes; aggregate: "
          f"{a_out.anon.info['changed_cells']:,} cells changed, ages now group means "
          f"{a_local['age'].head(3).round(1).tolist()}")
    assert s_out.anon.info["verified"]["k"] >= 5 and a_out.anon.info["verified"]["k"] >= 5
    assert set(a_local["education"].cat.categories) == set(a_local["education"].dropna())

    # optimal full-domain recoding over Adult's hierarchies: the finest counts (one row per
    # distinct quasi-identifier combination) come to the client, the lattice search runs
    # there, and every partition applies the chosen levels; equal to the pandas result
    from pdanon.hierarchy import read_arx_csv

    hierarchies = {c: read_arx_csv(pdanon.datasets.adult_hierarchy_path(c))
                   for c in pdanon.datasets.ADULT_QUASI_IDENTIFIERS}
    o_out = ddf.anon.k_anonymize(5, algorithm="optimal", hierarchies=hierarchies,
                                 max_suppressed_rows=0.01, path=str(Path(tmp, "optimal")))
    o_info = o_out.anon.info
    print(f"\noptimal k=5: levels {o_info['levels']}, {o_info['suppressed_rows']:,} rows "
          f"suppressed, {o_info['combinations']:,} combinations collected, "
          f"verified {o_info['verified']}")
    o_pandas = rows.anon.k_anonymize(5, algorithm="optimal", hierarchies=hierarchies,
                                     max_suppressed_rows=0.01)
    assert o_pandas.anon.info["levels"] == o_info["levels"]
