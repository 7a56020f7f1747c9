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
print(table[table["metric"].isin(["boosting_security_score", "boosting_accuracy_ratio"])]
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

# 7. Missing values are data ---------------------------------------------------------------
# A missing quasi-identifier cell (NaN, None, pd.NA, NaT, a suppressed cell) is a value of its
# own by default; missing="wildcard" (sdcMicro's rule) lets it match any value when counting
# how many rows share a row's quasi-identifiers. Missing sensitive values are one value.
survey = pd.DataFrame({
    "age": [30, 30, None, 40, None, 40],
    "sex": ["F", None, "F", "M", None, "M"],
    "disease": ["flu", None, "flu", "cancer", "flu", float("nan")],
})
qis = ["age", "sex"]
print("\nfrequencies, missing as a value:", metrics.frequencies(survey, qis).tolist())
print("frequencies, missing as wildcard:",
      metrics.frequencies(survey, qis, missing="wildcard").tolist())
print("k (value, wildcard):", metrics.k_anonymity(survey, qis),
      survey.anon.k_anonymity(quasi_identifiers=qis, missing="wildcard"))
print("l with a missing disease counted as one value:",
      metrics.l_diversity(survey, qis, ["disease"]))
print(survey.anon.metrics(quasi_identifiers=qis, missing="wildcard"))
