"""Risk and utility metrics: is a release safe, and is it still useful?

Run: python examples/metrics.py   (a few seconds)
"""

import pandas as pd

import pdanon
from pdanon import hierarchy, metrics, models

# Adult remembers its roles: eight quasi-identifiers, salary-class sensitive.
adult = pdanon.datasets.load_adult(nrows=5000)
release = adult.anon.k_anonymize(5)

# 1. Privacy levels of the original and of the release -------------------------------------
for name, frame in (("original", adult), ("k=5 release", release)):
    print(f"{name:12s} k={frame.anon.k_anonymity():3d}  "
          f"l={frame.anon.l_diversity()}  "
          f"entropy-l={frame.anon.l_diversity(variant='entropy'):.3f}  "
          f"t(EMD)={frame.anon.t_closeness():.3f}  "
          f"t(reference JS)={frame.anon.t_closeness(distance='reference'):.3f}")

# 2. The tidy table: risk rows (k, l, t, adversarial gains) and utility rows --------------
print("\nrelease.anon.metrics(original=adult):")
print(release.anon.metrics(adult))

# 3. With the gradient-boosting attack and utility (sampled, deterministic) ---------------
table = release.anon.metrics(adult, ml=True, target="salary-class")
print("\nwith ml=True:")
print(table[table["metric"].isin(["linkage attack security", "boosting accuracy ratio"])]
      .to_string(index=False))

# 4. Plain functions work on any frames ---------------------------------------------------
patients = pd.DataFrame({
    "zip": ["130**", "130**", "130**", "148**", "148**", "148**"],
    "age": ["<30", "<30", "<30", ">=40", ">=40", ">=40"],
    "disease": ["flu", "flu", "cancer", "flu", "gastritis", "cancer"],
    "salary": [3, 4, 5, 6, 11, 8],
})
qis, sens = ["zip", "age"], ["disease"]
print("\npatients:", {
    "k": metrics.k_anonymity(patients, qis),
    "l": metrics.l_diversity(patients, qis, sens),
    "recursive (c=2) l": metrics.l_diversity(patients, qis, sens, variant="recursive", c=2),
    "t EMD disease": round(metrics.t_closeness(patients, qis, sens), 4),
    "t EMD salary (ordered)": round(metrics.t_closeness(patients, qis, {"salary": "ordered"}), 4),
    "knowledge gain": round(metrics.adversarial_knowledge_gain(patients, qis, sens), 4),
    "accuracy gain": round(metrics.adversarial_accuracy_gain(patients, qis, sens), 4),
})

# 5. Hierarchical EMD: a mix-up between two respiratory diseases costs less ----------------
tree = hierarchy.tree({"respiratory": ["flu", "cold"], "other": ["cancer", "gastritis"]})
print("hierarchical t:", round(models.t_closeness(
    patients, qis, sens, distance="hierarchical", hierarchies={"disease": tree}), 4))

# 6. Cell-level distances between original and release ------------------------------------
per_column = metrics.by_element_distance(adult, release, per_column=True)
print("\nby-element distance per quasi-identifier:\n", per_column.round(4).to_string())
