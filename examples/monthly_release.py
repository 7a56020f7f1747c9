"""Twelve monthly releases of a changing register with one recoding, each batch verified,
and the releases checked together.

Run: ``python examples/monthly_release.py``. A synthetic register (the discharge generator's
people) changes every month: about 3 % of the people leave and as many join. January is
anonymized from scratch with the optimal full-domain search over hierarchies (a global
recoding); its recoding is written to JSON (it holds only published cells) and every later
month is published with it: the same people get the same cells, the columns line up, and the
model is verified again on each batch. Finally ``pdanon.check_releases`` measures what an
attacker who puts all twelve releases side by side learns (docs/republication.md).
"""

import warnings

import numpy as np

import pdanon
from pdanon.hierarchy import dates, masking

rng = np.random.default_rng(12)
people = pdanon.datasets.make_discharges(9_000, seed=12)
roles = dict(identifiers=["patient_id", "name", "note"],
             quasi_identifiers={"birth_date": "ordered", "zip": "unordered",
                                "sex": "unordered", "ethnicity": "unordered"},
             sensitive=["diagnosis"],
             insensitive=["admission_date", "discharge_date", "charges", "weight"])

# who is in the register each month: 6,000 at first, ~3 % leave and join every month
active = np.zeros(len(people), dtype=bool)
active[:6_000] = True
waiting = list(range(6_000, len(people)))
months = []
for month in range(12):
    if month:
        leave = np.flatnonzero(active)[rng.random(int(active.sum())) < 0.03]
        active[leave] = False
        join, waiting = waiting[:len(leave)], waiting[len(leave):]
        active[join] = True
    months.append(people[active].reset_index(drop=True))

# January: anonymized from scratch (a global recoding), its recoding kept as JSON
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the roles are given; no RoleWarning to read here
    january = months[0].anon.k_anonymize(
        5, l=3, algorithm="optimal", max_suppressed_rows=0.02, **roles,
        hierarchies={"birth_date": dates(("month", "year", "decade")),
                     "zip": masking(steps=[1, 2, 3, 5])})
text = january.anon.recoding.to_json()
print(f"January: {len(january):,} rows, k = {january.anon.info['achieved']['k']}, "
      f"recoding {len(text):,} bytes of JSON")
assert not any(pid in text for pid in months[0]["patient_id"])  # no identifier in it

# February to December: the same recoding, verified on every batch
recoding = pdanon.Recoding.from_json(text)
releases = [january]
print(f"{'month':>5} {'rows':>6} {'kept cells':>10} {'unseen':>6} {'suppressed':>10} {'k':>3}")
for month, batch in enumerate(months[1:], start=2):
    out = batch.anon.apply_recoding(recoding, identifiers=roles["identifiers"],
                                    insensitive=roles["insensitive"])
    info = out.anon.info
    assert info["recoding"] == recoding.fingerprint and info["achieved"]["k"] >= 5
    print(f"{month:>5} {info['rows']:>6,} {info['rows_kept_cells']:>10,} "
          f"{sum(info['unseen_cells'].values()):>6} {info['suppressed_rows']:>10} "
          f"{info['achieved']['k']:>3}")
    releases.append(out)

# the twelve releases side by side; the patient ids link them and are never published
qi = list(roles["quasi_identifiers"])
check = pdanon.check_releases(releases, keys=[m["patient_id"] for m in months],
                              quasi_identifiers=[qi] * len(releases), sensitive="diagnosis")
summary = check.summary()
print(f"each release's k: {min(check.k_each)}..{max(check.k_each)}; "
      f"combined k over 12 months: {check.combined_k}; persons below k = 5 together: "
      f"{check.persons_below(5):,} of {summary['persons']:,}")
stayed = check.releases_of == 12
print(f"of the {int(stayed.sum()):,} people present all year, "
      f"{int((check.combined[stayed] < 5).sum())} are in a combined class below 5")
# Every release is 5-anonymous, yet together they are not: a person's combined class holds
# only those who share their cells in every month AND came and went in the same months (a
# class-mate who left in May is told apart from May on). This is the intersection attack of
# docs/republication.md; one recoding keeps the cells stable, it does not stop churn from
# splitting classes.
assert check.combined_k <= min(check.k_each)
assert check.persons_below(5) > 0
# The composition attack needs no key: the diagnoses a person's class shows in every month,
# intersected, are all an attacker who knows the person's cells can read
print(f"diagnoses left by intersecting each person's classes over the year: at least "
      f"{summary['min_intersected']}")

# The difference attack: a class's published counts, compared between months, give away the
# persons who left it or came (six hiv patients leave a class and its hiv count drops by six).
# check_releases counts per person the values some assignment consistent with every count
# leaves them (from below: never more than an exact attacker leaves)
print(f"the difference attack: {summary['persons_disclosed']:,} persons' diagnosis recovered "
      f"from the counts; {summary['persons_one_value']:,} not shown to have two "
      f"(the value sets alone leave everyone at least {summary['min_intersected']})")

# The same twelve months m-invariant (Xiao & Tao) from January on: every class shows each
# diagnosis of its signature equally often (counterfeit rows where needed, counted per class
# in info), a person's signature is the same every month, and a row that no signature fits
# is suppressed, else withheld. Counterfeit rows carry only the quasi-identifiers and the
# diagnosis, so the other columns are not published here
published = qi + ["diagnosis"]
history = pdanon.ReleaseHistory()
kept, kept_keys = [], []
for batch in months:
    out = batch[published + ["patient_id"]].anon.apply_recoding(
        recoding, history=history, keys="patient_id", invariance=3, withhold=True,
        max_suppressed_rows=0.1, identifiers=["patient_id"], sensitive=["diagnosis"])
    # keys are given in the batch's order: matched with the release's rows (in a random
    # order, withheld rows left out, counterfeit rows nobody) through the way back
    history.add(out, keys=batch["patient_id"], sensitive="diagnosis")
    kept.append(out)
    kept_keys.append(batch["patient_id"])
again = pdanon.check_releases(kept, keys=kept_keys, quasi_identifiers=[qi] * len(kept),
                              sensitive="diagnosis")
inv = [r.anon.info["invariance"] for r in kept]
real = sum(r.anon.info["rows"] for r in kept)
fakes = sum(i["counterfeit_rows"] for i in inv)
withheld = sum(r.anon.info["rows_withheld"] for r in kept)
suppressed = sum(i["rows_suppressed_for_it"] for i in inv)
print(f"with invariance=3: the difference attack leaves at least {again.combined_l} diagnoses "
      f"({again.summary()['persons_disclosed']} persons disclosed); over the year "
      f"{fakes:,} counterfeit rows beside {real:,} persons' rows, {suppressed} rows suppressed "
      f"and {withheld} withheld for it")
assert again.combined_l >= 3 and again.passes(l=3)
