"""Population models and risk thresholds on Adult: k-map, δ-presence, highest and average risk
(docs/risk.md, "Population models: k-map, δ-presence; risk thresholds").

Adult (30,162 rows) plays the population; a 10 % sample of it is the release.

Run: ``python examples/population_models.py``
"""

import pdanon
from pdanon.hierarchy import read_arx_csv
from pdanon.models import AverageRisk, DeltaPresence, HighestRisk, KMap

adult = pdanon.datasets.load_adult()
qi = ["age", "sex", "race", "marital-status"]
population = adult[qi]
sample = population.sample(frac=0.1, random_state=0)
arx = {c: read_arx_csv(pdanon.datasets.adult_hierarchy_path(c)) for c in qi}

# 1. Measures on the raw sample: the smallest population class of a sample row (k-map), and
#    the range of sample shares over the population's classes (δ-presence)
print("k-map of the raw sample:", sample.anon.k_map(population=population, quasi_identifiers=qi))
print("δ of the raw sample:", sample.anon.delta_presence(population=population,
                                                         quasi_identifiers=qi))

# 2. k-map against the population table: every published class matches >= 20 population
#    rows (the population is generalized with the sample; only algorithm="optimal")
out = sample.anon.anonymize(KMap(20, population=population), algorithm="optimal",
                            hierarchies=arx, quasi_identifiers=qi, max_suppressed_rows=0.01)
print("KMap(20):", out.anon.info["levels"], out.anon.info["achieved"])
assert out.anon.info["achieved"]["k_map"] >= 20
# anyone can check the release against the raw population (containment in its cells)
assert out.anon.k_map(population=population, quasi_identifiers=qi) >= 20
assert KMap(20, population=population).holds(out, qi)

# 2b. The same with local recoding: Mondrian carries the population through its cuts; every
#     published class matches >= 20 population rows inside its ranges and sets
out = sample.anon.anonymize(KMap(20, population=population), algorithm="mondrian",
                            quasi_identifiers=qi)
print("KMap(20), mondrian:", out.anon.info["groups"], "classes", out.anon.info["achieved"])
assert out.anon.info["achieved"]["k_map"] >= 20

# 3. k-map estimated from the sampling fraction (no table): k-anonymity with a derived k,
#    enforceable by every partitioner
estimated = KMap(20, sampling_fraction=0.1)
print(estimated)  # derived_k = 8
out = sample.anon.anonymize(estimated, algorithm="mondrian", quasi_identifiers=qi)
assert out.anon.info["achieved"]["k"] >= estimated.k

# 4. δ-presence: no one in the population is in the release with probability above 0.15
out = sample.anon.anonymize(DeltaPresence(0.0, 0.15, population=population),
                            algorithm="optimal", hierarchies=arx, quasi_identifiers=qi)
print("δ-presence:", out.anon.info["levels"], out.anon.info["achieved"])
assert out.anon.info["achieved"]["delta_max"] <= 0.15

# 5. Risk thresholds: highest risk 0.2 is 5-anonymity (any partitioner); average risk 0.05
#    (classes / rows) is a table-level condition (algorithm="optimal")
out = sample.anon.anonymize(HighestRisk(0.2), algorithm="mondrian", quasi_identifiers=qi)
print("highest risk:", out.anon.risk_summary(quasi_identifiers=qi)["highest_prosecutor_risk"])
out = sample.anon.anonymize(AverageRisk(0.05), algorithm="optimal", hierarchies=arx,
                            quasi_identifiers=qi)
print("average risk:", out.anon.info["achieved"]["average_risk"], out.anon.info["levels"])
assert out.anon.info["achieved"]["average_risk"] <= 0.05

# 6. The same thresholds as keywords of k_anonymize (and l_diversify / t_close)
out = sample.anon.k_anonymize(2, max_risk=0.1, algorithm="mondrian", quasi_identifiers=qi)
assert out.anon.k_anonymity() >= 10
out = sample.anon.k_anonymize(2, average_risk=0.05, algorithm="optimal", hierarchies=arx,
                              quasi_identifiers=qi)
print("k_anonymize(average_risk=0.05):", out.anon.info["achieved"])
assert out.anon.risk_summary(quasi_identifiers=qi)["average_prosecutor_risk"] <= 0.05
