"""``cp2025.utility.boosting_security_score``: the gradient-boosting linkage attack
(:func:`pdanon.metrics.boosting_security_score`).

Example
-------
>>> import numpy as np
>>> x = np.arange(40, dtype=float).reshape(20, 2)
>>> 0.0 <= get_boosting_security_score(x[:15], x[:15], x[15:], x[15:]) <= 1.0
True
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["get_boosting_security_score"]


def get_boosting_security_score(train, train_depersonalized, test, test_depersonalized,
                                random_state=0):
    """1 − the accuracy with which a gradient-boosting classifier, trained on (original,
    anonymized) row pairs, re-identifies held-out anonymized rows (1.0 = safe).

    The four numeric feature matrices (e.g. from ``prepare_data``) are stacked into one
    original and one anonymized table and handed to pdanon's attack, which draws its own
    held-out rows (as many as ``test`` has, at most a fifth of all rows) with ``random_state``.
    """
    from pdanon.metrics import boosting_security_score

    orig = np.vstack([np.asarray(train, dtype=np.float64), np.asarray(test, dtype=np.float64)])
    anon = np.vstack([np.asarray(train_depersonalized, dtype=np.float64),
                      np.asarray(test_depersonalized, dtype=np.float64)])
    if orig.shape != anon.shape:
        raise ValueError(f"original and anonymized features differ in shape: {orig.shape} vs "
                         f"{anon.shape}; prepare both with the same columns")
    o = pd.DataFrame(orig.reshape(len(orig), -1))
    a = pd.DataFrame(anon.reshape(len(anon), -1))
    kinds = {c: "real" for c in o.columns}
    return float(boosting_security_score(o, a, kinds, train_rows=len(train),
                                         test_rows=len(test), random_state=random_state))
