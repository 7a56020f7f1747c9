"""Record-level re-identification risk and SUDA on Adult: who is exposed, how much, and why.

Run: ``python examples/risk.py`` (docs/risk.md explains every figure).
"""

import pandas as pd

import pdanon

adult = pdanon.datasets.load_adult()  # roles remembered: 8 quasi-identifiers

# 1. Per-row risk of the raw table: class, class size, prosecutor risk (1 / class size)
risk = adult.anon.risk()
print(risk.head())

# 2. The summary: raw Adult has many unique rows, so the highest prosecutor risk is 1.0;
#    the share of records at risk and the average say how widespread the problem is
print(adult.anon.risk_summary())

# 3. After 5-anonymization no class is smaller than 5: every prosecutor risk <= 0.2
release = adult.anon.k_anonymize(5)
summary = release.anon.risk_summary()
print(summary)
assert summary["highest_prosecutor_risk"] <= 0.2 and summary["records_at_risk"] == 0.0

# 4. Journalist risk: the release is a 10 % sample of a population. With only the fraction,
#    population class sizes are estimated as f / 0.1 (labelled an estimate) ...
print(release.anon.risk_summary(sampling_fraction=0.1))
# ... with the population table itself they are exact. Here the "population" is the whole
#    release and the published sample every 10th row of it.
sample = release.iloc[::10]
print(sample.anon.risk_summary(population=release))

# 5. The same figures as rows of the metrics table, each with a one-line meaning
table = release.anon.metrics(adult)
print(table[table["metric"].str.contains("risk|uniques")].to_string(index=False))

# 6. SUDA: minimal sample uniques of the raw table, and which columns make rows special
special = adult.anon.suda()
print(special.sort_values("suda_score", ascending=False).head())
print(adult.anon.suda_contributions(total=True).sort_values(ascending=False).round(1))
row = special["suda_score"].idxmax()
print("most special row:", adult.loc[row, list(adult.anon.roles().quasi_identifiers)].to_dict())
print(adult.anon.suda_contributions().loc[row].round(2).to_dict())

# 7. Missing values: a blank cell is a value of its own by default; missing="wildcard"
#    (sdcMicro's rule) lets it match any value, so it never makes a row unique
survey = pd.DataFrame({"age": [30, 30, None, 40, None, 40],
                       "sex": ["F", None, "F", "M", None, "M"]})
print(survey.anon.risk()["prosecutor"].tolist())                      # [1.0, 1.0, 1.0, 0.5, 1.0, 0.5]
print(survey.anon.risk(missing="wildcard")["class_size"].tolist())    # [4, 4, 4, 3, 6, 3]
print(survey.anon.suda(missing="wildcard")["msu_count"].tolist())     # no row is special
# sdcMicro's suda2: a blank matches nothing and is in no MSU; two keys weighed as three.
# Only row 0 is special: (30, F) is unique because rows 1 and 2's blanks match nobody
print(survey.anon.suda(missing="unmatched", pad_to_three=True)["suda_score"].tolist())
# [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]

# 8. Population uniqueness estimators: if Adult were a 10 % sample of a population, what share
#    of the population would be unique on the quasi-identifiers? Pitman, Zayatz and SNB are
#    statistical models of the population's class sizes; Dankar et al.'s rule picks one
#    (docs/risk.md, "Population uniqueness estimators")
from pdanon.metrics import population_uniques, uniqueness_models  # noqa: E402

qis = list(adult.anon.roles().quasi_identifiers)
for fraction in (0.01, 0.1, 0.5):
    est = population_uniques(adult, qis, sampling_fraction=fraction, estimator="all")
    print(fraction, est.round(4).to_dict(), "Dankar took", est.attrs["dankar_model"])
    assert 0 <= est["dankar"] <= 1
models = uniqueness_models(adult.groupby(qis, observed=True).size().value_counts(),
                           sampling_fraction=0.1)
print("Pitman's theta, alpha:", models.pitman_parameters, models.notes)
# the Dankar figure is also a row of risk_summary(sampling_fraction=...)
print(adult.anon.risk_summary(sampling_fraction=0.1)["population_uniques"])
