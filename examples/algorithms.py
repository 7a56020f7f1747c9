"""Every anonymization algorithm of pdanon on one small table (runs in about a second).

    python examples/algorithms.py

The same request - 3-anonymity, then 2-diversity and 0.2-closeness of the diagnosis - answered
by each partitioner: ``nearest`` (the reference's TimeOptimal grouping), ``mondrian``
(multidimensional median splits), ``datafly`` (merge rare values, suppress a few rows) and
``equal_groups`` (cut every column into equal-size value groups). See docs/algorithms.md.
"""

import pandas as pd

import pdanon

df = pd.DataFrame({
    "name": ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lea"],
    "age": [23, 25, 27, 31, 33, 35, 41, 44, 47, 52, 58, 63],
    "zip": ["10001", "10001", "10002", "10002", "10001", "10003",
            "10003", "10002", "10001", "10003", "10002", "10001"],
    "sex": ["F", "M", "F", "M", "F", "F", "M", "M", "F", "M", "F", "M"],
    "diagnosis": ["flu", "asthma", "flu", "diabetes", "asthma", "flu",
                  "diabetes", "flu", "cancer", "asthma", "flu", "diabetes"],
})
roles = dict(identifiers=["name"], quasi_identifiers={"age": "real", "zip": "unordered",
                                                      "sex": "unordered"},
             sensitive=["diagnosis"])
df = df.anon.with_schema(pdanon.schema(**roles))

print("original\n", df, "\n")
for algorithm in ("nearest", "mondrian", "datafly", "equal_groups"):
    out = df.anon.k_anonymize(3, algorithm=algorithm)
    info = out.anon.info
    extra = {k: info[k] for k in ("group_size", "steps") if k in info}
    print(f"--- k=3, algorithm={algorithm!r}: {info['groups']} classes, "
          f"{info['changed_cells']} changed cells, {info['suppressed_rows']} suppressed rows "
          f"{extra or ''}")
    print(out.to_string(), "\n")
    assert info["achieved"]["k"] >= 3

# Datafly may suppress up to max_suppressed_rows rows (default k - 1) instead of generalizing
few = df.anon.k_anonymize(3, algorithm="datafly", max_suppressed_rows=0)
print(f"--- datafly without a suppression budget: {few.anon.info['steps']} steps, "
      f"{few.anon.info['groups']} classes\n")

# l-diversity and t-closeness: Mondrian checks the model on both halves of every split
l_out = df.anon.l_diversify(2, k=2, algorithm="mondrian")
print("--- 2-diverse, 2-anonymous (mondrian): l =", l_out.anon.l_diversity())
print(l_out.to_string(), "\n")
t_out = df.anon.t_close(0.5, algorithm="mondrian")
print(f"--- 0.5-close (EMD, mondrian): t = {t_out.anon.t_closeness():.3f}, "
      f"{t_out.anon.info['groups']} classes")

# algorithm="auto" (the default) says what it chose
auto = df.anon.l_diversify(2, variant="entropy")
print("---", auto.anon.info["note"])
