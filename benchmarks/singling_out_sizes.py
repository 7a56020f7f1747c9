"""Singling out against a smaller control: how the paper's size rescaling behaves.

Run: ``python benchmarks/singling_out_sizes.py`` (docs/attacks.md, "Why a control set"). A
table of 6,000 rows of 4 correlated numbers (rounded to 0.1), split at shares 0.1, 0.2 and
0.5 by ``attacks.holdout``; the release is the original with every column shuffled on its
own (true risk 0), attacked with 300 multivariate predicates, 6 seeds per share. Prints per
run the main rate, the control rate (rescaled), the risk, its upper bound and the factor.
"""

import numpy as np
import pandas as pd

from pdanon import attacks

N = 6000
for share in (0.1, 0.2, 0.5):
    for rep in range(6):
        rng = np.random.default_rng(rep)
        z = rng.normal(size=(N, 1))
        df = pd.DataFrame({f"x{i}": (z[:, 0] * 0.6 + rng.normal(size=N)).round(1)
                           for i in range(4)})
        original, control = attacks.holdout(df, share, seed=rep)
        release = pd.DataFrame({c: rng.permutation(original[c].to_numpy())
                                for c in df.columns})
        r = attacks.singling_out(release, original, control=control, n_attacks=300, seed=rep)
        factor = next((n.split()[4] for n in r.notes if "rescaled" in n), "none")
        print(f"share {share}  seed {rep}  main {r.main_rate:.3f}  control {r.control_rate:.3f}"
              f"  risk {r.risk:.3f}  upper {r.ci[1]:.3f}  factor {factor}", flush=True)
