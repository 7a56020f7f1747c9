"""Attribute disclosure: β-likeness, δ-disclosure privacy and (α, k)-anonymity, measured and
enforced on the embedded Adult sample (runs in about a second).

    python examples/disclosure_models.py

k-anonymity hides *who* a row is; these models limit what an attacker who finds a person's
class learns about the person's *sensitive value* (here the salary class), compared with what
the whole table already tells. See docs/risk.md, "Attribute disclosure".
"""

import pdanon
from pdanon.models import AllOf, AlphaKAnonymity, BetaLikeness, DeltaDisclosure, KAnonymity

qis = ["age", "sex", "race", "education"]
adult = pdanon.datasets.load_adult(nrows=3000)[qis + ["salary-class"]]
roles = dict(quasi_identifiers=qis, sensitive=["salary-class"])


def report(label, frame):
    beta = frame.anon.beta_likeness(**roles)
    enhanced = frame.anon.beta_likeness(variant="enhanced", **roles)
    delta = frame.anon.delta_disclosure(**roles)
    ak = frame.anon.alpha_k_anonymity(**roles)
    rich = frame.anon.alpha_k_anonymity(value=">50K", **roles)
    print(f"{label:<36} beta={beta:7.3f} enhanced={enhanced:7.3f} delta={delta:6.3f} "
          f"alpha={ak.alpha:.3f} k={ak.k:<4} share of >50K <= {rich.alpha:.3f}")
    return beta, enhanced, delta, ak


print("whole table: " + ", ".join(f"{v} {s:.3f}" for v, s in
                                  adult["salary-class"].value_counts(normalize=True).items()))
report("5-anonymous (mondrian)", adult.anon.k_anonymize(5, algorithm="mondrian", **roles))

requests = {
    "basic beta-likeness, beta=1": BetaLikeness(1.0),
    "enhanced beta-likeness, beta=1": BetaLikeness(1.0, variant="enhanced"),
    "delta-disclosure, delta=0.7": DeltaDisclosure(0.7),
    "(alpha, k)-anonymity, 0.8 / 5": AlphaKAnonymity(0.8, 5),
    "5-anonymity + beta=0.5": AllOf(KAnonymity(5), BetaLikeness(0.5)),
}
for label, model in requests.items():
    out = adult.anon.anonymize(model, algorithm="mondrian", **roles)
    beta, enhanced, delta, ak = report(label, out)
    info = out.anon.info
    print(f"{'':<36} {info['groups']} classes, achieved {info['achieved']}")
    assert model.holds(out, qis, ["salary-class"])

# a class that is all "<=50K" tells an attacker a person's salary class for sure, though the
# table is 5-anonymous: alpha = 1 and delta = inf above; the models above rule that out
