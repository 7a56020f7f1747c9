"""A weighted survey table, measured before and after anonymization.

Run: ``python examples/survey_weights.py``. The synthetic discharge table stands in for a
survey sample: its ``weight`` column says how many people each row stands for, and a
household id groups the rows. The individual risk of sdcMicro's ``measure_risk`` (from the
sampling weights), the global risk, the expected number of re-identifications and the
household risk are measured on the raw table and on a 5-anonymous release (docs/risk.md,
"Survey weights"), checked against a policy on the weighted risk, and planned by a dry run
(``df.anon.plan``) before anonymizing. Last, the weights are withheld from the release
(``identifiers=``: stratum weights are a channel) and the weighted risk is measured from the
raw table (``check(policy, original=raw)``), with the same figures.
"""

import warnings

import numpy as np

import pdanon

raw = pdanon.datasets.make_discharges(20_000, seed=4)
raw["household"] = np.random.default_rng(4).integers(0, 9_000, len(raw))  # ~2 per household
roles = dict(identifiers=["patient_id", "name", "note"],
             quasi_identifiers={"birth_date": "ordered", "zip": "unordered",
                                "sex": "unordered", "ethnicity": "unordered"},
             sensitive=["diagnosis"],
             insensitive=["admission_date", "discharge_date", "charges", "weight",
                          "household"])
qis = roles["quasi_identifiers"]  # with their kinds

# 1. Before: the raw sample, with its weights (never a quasi-identifier)
before = raw.anon.risk_summary(quasi_identifiers=qis, weights="weight",
                               household="household")

# 2. After: 5-anonymous, birth dates cut to calendar years
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    release = raw.anon.k_anonymize(5, algorithm="mondrian",
                                   options={"calendar": {"birth_date": "year"}}, **roles)
after = release.anon.risk_summary(quasi_identifiers=qis, weights="weight",
                                  household="household")

keys = ["sample_uniques", "highest_journalist_risk", "global_risk",
        "expected_reidentifications", "household_global_risk",
        "household_expected_reidentifications"]
print(f"{'figure':38} {'before':>10} {'after':>10}")
for key in keys:
    print(f"{pdanon.metrics.FIGURES[key].label:38} {before[key]:10.4g} {after[key]:10.4g}")
assert after["expected_reidentifications"] < before["expected_reidentifications"]

# 3. Per row: the riskiest rows of the release, with their class and population sizes
rows = release.anon.risk(quasi_identifiers=qis, weights="weight", household="household")
print(rows.sort_values("individual", ascending=False).head(3)[
    ["class_size", "population_size", "individual", "household"]])

# 4. The report carries the same figures
report = release.anon.report(raw, weights="weight", household="household")
assert report.privacy["risk_summary"]["global_risk"] == after["global_risk"]

# 5. A policy on the weighted risk: a verdict (and, from the command line, an exit code)
policy = pdanon.Policy(k=5, max_global_risk=0.05, max_individual_risk=0.5, weights="weight")
verdict = release.anon.check(policy)
print(verdict.criteria[["criterion", "measured", "threshold", "passed"]])
assert verdict.criteria.set_index("criterion").loc["global_risk", "measured"] == \
    after["global_risk"]

# 6. A dry run before anonymizing: the roles, the algorithm, the expected classes and
# suppressed rows (the anonymizer run in memory, nothing published)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    plan = raw.anon.plan(k=5, algorithm="mondrian",
                         options={"calendar": {"birth_date": "year"}}, **roles)
print(plan)
assert plan.ok and plan.expected_classes == release.anon.info["groups"]

# 7. Weights used without being published: stratum weights are a channel (they can give a
# generalized ZIP back), so withhold them (identifiers=) and measure the weighted risk from
# the raw table, row by row through the release's publisher-only way back: the same figures
hidden_roles = {**roles, "identifiers": [*roles["identifiers"], "weight"],
                "insensitive": [c for c in roles["insensitive"] if c != "weight"]}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    withheld = raw.anon.k_anonymize(5, algorithm="mondrian",
                                    options={"calendar": {"birth_date": "year"}},
                                    **hidden_roles)
assert "weight" not in withheld.columns
hidden = withheld.anon.check(policy, original=raw).criteria.set_index("criterion")
published = release.drop(columns="weight").anon.check(policy, original=raw)
print(f"global risk, weights withheld: {hidden.loc['global_risk', 'measured']:.4g} "
      f"(published: {after['global_risk']:.4g})")
assert published.criteria.set_index("criterion").loc["global_risk", "measured"] == \
    after["global_risk"]
