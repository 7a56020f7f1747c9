"""A privacy model of your own, used by every general partitioner and verified on the output.

The model below ("no sensitive value fills more than half of a class", a simple form of
beta-likeness) answers one question from per-class counts; pdanon's Mondrian, Datafly,
GroupJoin and the optimal lattice search then build classes that satisfy it, and the engine
checks every published class with it before returning the table.

Run: python examples/custom_model.py
"""

import numpy as np

import pdanon
from pdanon.models import AllOf, KAnonymity, PrivacyModel, Requirements


class MaxShare(PrivacyModel):
    """No sensitive value fills more than ``share`` of its equivalence class."""

    name = "max-share"

    def __init__(self, share: float):
        self.share = share

    def params(self) -> dict:
        return {"share": self.share}

    def requirements(self) -> Requirements:
        # reads sensitive columns; the union of two classes that satisfy it satisfies it
        return Requirements(sensitive=True, merge_monotone=True)

    def classes_ok(self, classes) -> np.ndarray:
        ok = np.ones(classes.groups, dtype=bool)
        for j in range(len(classes.columns)):
            pairs = classes.pairs(j)  # (class, value, count), sorted by class
            top = np.zeros(classes.groups, dtype=np.int64)
            np.maximum.at(top, pairs.cls, pairs.count)
            ok &= top <= self.share * classes.sizes
        return ok


df = pdanon.datasets.make_patients(2_000, seed=7)
roles = {"quasi_identifiers": ["zipcode", "age", "gender"], "sensitive": ["disease"]}
model = AllOf(KAnonymity(5), MaxShare(0.5))

for algorithm in ["mondrian", "datafly", "group_join"]:
    out = df.anon.anonymize(model, algorithm=algorithm, **roles)
    info = out.anon.info
    published = out[out[roles["quasi_identifiers"]].notna().any(axis=1)]
    classes = published.groupby([published[c].astype(str) for c in roles["quasi_identifiers"]])
    worst = classes["disease"].agg(lambda s: s.value_counts().max() / len(s)).max()
    print(f"{algorithm:>10}: {info['groups']:>4} classes, smallest {info['achieved']['k']}, "
          f"largest share of one disease {worst:.2f} (verified <= 0.5)")

# a model the partitioner cannot express is refused with a clear message
try:
    df.anon.anonymize(model, algorithm="nearest", **roles)
except pdanon.InvalidInputError as exc:
    print("nearest:", exc)
