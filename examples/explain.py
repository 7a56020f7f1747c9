"""Why each row changed: ``out.anon.explain(df)`` on the Adult data (a few seconds).

    python examples/explain.py

For every input row, explain() gives its published class and size, the quasi-identifiers that
were generalized, aggregated or suppressed, and the reason: the model part its original
combination violated (``k``, ``l``), or, when it was safe on its own, ``grouping`` (a local
algorithm put it with rows that needed it) or ``global recoding`` (its whole column was
generalized). See docs/guide.md, "Why was this row changed?".

The table is for the publisher only: beside the release it gives original values back, so
it says so when shown and warns (pdanon.PublisherOnlyWarning) when written to a file.
"""

import pandas as pd

import pdanon
from pdanon.hierarchy import intervals, read_arx_csv

qis = ["age", "sex", "race", "marital-status"]
adult = pdanon.datasets.load_adult(nrows=3000)[qis + ["salary-class"]]
roles = dict(quasi_identifiers=qis, sensitive=["salary-class"])

runs = {
    "mondrian, k=5": adult.anon.k_anonymize(5, algorithm="mondrian", **roles),
    "mondrian, k=5, aggregate": adult.anon.k_anonymize(5, algorithm="mondrian",
                                                       method="aggregate", **roles),
    "datafly, k=5": adult.anon.k_anonymize(5, algorithm="datafly", max_suppressed_rows=30,
                                           **roles),
    # optimal needs a hierarchy for each column of more than 5 values (sex, race go without)
    "optimal, k=5": adult.anon.k_anonymize(
        5, algorithm="optimal", max_suppressed_rows=30,
        hierarchies={"age": intervals([5, 10, 20, 40]), "marital-status": read_arx_csv(
            pdanon.datasets.adult_hierarchy_path("marital-status"))}, **roles),
    "mondrian, k=5 + l=2": adult.anon.l_diversify(2, k=5, algorithm="mondrian", **roles),
    # the statistical offices' methods are explained with k as their model
    "microaggregate, k=5": adult.anon.microaggregate(5, **roles),
    "local_suppression, k=5": adult.anon.local_suppression(5, **roles),
}
counts = {}
for name, out in runs.items():
    ex = out.anon.explain(adult)
    # explain agrees with the output and with info
    published = ~ex["row_suppressed"]
    if "suppressed_rows" in out.anon.info:
        assert int(ex["row_suppressed"].sum()) == out.anon.info["suppressed_rows"]
        # the release's rows come in a random order: match them with adult's rows through
        # the publisher-only way back (out.anon.input_rows), then compare per input row
        came_from = out.anon.input_rows(adult).index
        classes = out.anon.equivalence_classes().set_axis(came_from).reindex(adult.index)
        pairs = pd.DataFrame({"explained": ex.loc[published, "class_id"],
                              "published": classes[published]}).drop_duplicates()
        assert pairs["explained"].is_unique and pairs["published"].is_unique  # one partition
    elif name.startswith("micro"):  # classes of the published cells: info's k
        assert ex.loc[published, "class_size"].min() == out.anon.info["k_anonymity"]
    else:  # local suppression: every row's published cells match at least k rows
        assert (ex.loc[published, "class_size"] >= 5).all()
    counts[name] = ex["reason"].fillna("(unchanged)").value_counts()

print("rows by reason (3,000 Adult rows; quasi-identifiers: " + ", ".join(qis) + ")\n")
print(pd.DataFrame(counts).fillna(0).astype(int).to_string(), "\n")

out = runs["datafly, k=5"]
ex = out.anon.explain(adult)
print("datafly: which columns were generalized, and why")
print(ex.groupby(["generalized", "reason"], dropna=False).size().to_string(), "\n")
print("the first suppressed rows (explain's table is for the publisher only: it is computed")
print("from the input and gives original values back, so keep it with the input)")
first = ex[ex["row_suppressed"]].head()  # still an Explanation: says whom it is for
print(repr(first).splitlines()[0])
print(first.to_string())
