"""GroupJoin (the reference's default algorithm) and the exact minimum-suppression solver.

    python examples/group_join.py
"""

import pandas as pd

import pdanon

# ---- GroupJoin on a sample of Adult: k, l and t, the three recoding methods
adult = pdanon.datasets.load_adult(nrows=3000)  # roles remembered: 8 QIs, salary sensitive

out = adult.anon.k_anonymize(5, algorithm="group_join", seed=0)
info = out.anon.info
print(f"k=5, generalize: k = {out.anon.k_anonymity()}, classes = {info['groups']}, "
      f"total loss = {info['loss']:.1f}, partners = {info['partners']!r}, "
      f"{info['seconds']:.2f} s")

for method in ("suppress", "aggregate"):
    out = adult.anon.k_anonymize(5, method=method, algorithm="group_join", seed=0)
    print(f"k=5, {method}: changed cells = {out.anon.info['changed_cells']}, "
          f"loss = {out.anon.info['loss']:.1f}")

out = adult.anon.l_diversify(2, k=5, algorithm="group_join", seed=0)
print(f"l=2, k=5: achieved l = {out.anon.l_diversity()}, k = {out.anon.k_anonymity()}")

# the reference's t-closeness distance (Jensen-Shannon for categorical sensitive columns)
out = adult.anon.t_close(0.05, k=5, distance="reference", algorithm="group_join",
                         seed=0)
print(f"t=0.05 (reference distance): achieved t = "
      f"{out.anon.t_closeness(distance='reference'):.2g}, classes = {out.anon.info['groups']}")

# a user loss function, with the reference's signature (called with arrays of partners)
favour_small = lambda loss, size1, size2, k: loss * (1 + 0.1 * size2)  # noqa: E731
out = adult.anon.k_anonymize(5, algorithm="group_join",
                             seed=0, options={"loss_function": favour_small})
print(f"custom loss function: classes = {out.anon.info['groups']}")

# ---- the exact solver: the fewest suppressed cells (the reference's Baseline classes)
df = pd.DataFrame([[1, 1, 1, 1, "a"], [1, 1, 1, 2, "b"], [1, 1, 1, 3, "c"],
                   [1, 4, 4, 4, "a"], [1, 4, 4, 5, "b"]], columns=["q1", "q2", "q3", "q4", "s"])
roles = dict(quasi_identifiers=["q1", "q2", "q3", "q4"], sensitive=["s"])
for name, out in [
    ("k=2", df.anon.k_anonymize(2, method="suppress", algorithm="exact", **roles)),
    ("k=2, l=2", df.anon.l_diversify(2, k=2, method="suppress", algorithm="exact", **roles)),
    ("k=2, t=0.075 (reference)", df.anon.t_close(0.075, k=2, distance="reference",
                                                  method="suppress", algorithm="exact",
                                                  **roles)),
]:
    info = out.anon.info
    print(f"\nexact, {name}: {info['suppressed_cells']} suppressed cells "
          f"(optimal: {info['optimal']})")
    print(out.to_string())
