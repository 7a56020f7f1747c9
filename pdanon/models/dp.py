"""(ε, δ)-differential privacy for microdata, as SafePub provides it (Bild, Kuhn & Prasser,
PoPETs 2018).

Unlike the syntactic models, differential privacy is a property of the *mechanism*, not of a
table: no check of a published table can show it. What a table can show is the part the
proof rests on — every published class holds at least ``k`` rows of the sample — and that is
what :meth:`EDDifferentialPrivacy.classes_ok` verifies; the rest (rows sampled with
probability β, the generalization chosen by the exponential mechanism, nothing else
published) is :mod:`pdanon.partition.safepub`'s to keep. The accounting lives in
:meth:`EDDifferentialPrivacy.accounting`.

Example
-------
>>> m = EDDifferentialPrivacy(1.0, 1e-5)
>>> m.k, round(m.beta, 4), m.epsilon_search, m.epsilon_anonymization
(58, 0.5934, 0.1, 0.9)
"""

from __future__ import annotations

import math
import numbers


from pdanon._errors import InvalidInputError
from pdanon.models.anonymity import KAnonymity
from pdanon.models.base import PrivacyModel, Requirements

__all__ = ["EDDifferentialPrivacy"]

#: The share of ε spent on the search by default (ARX's default too).
DEFAULT_SEARCH_SHARE = 0.1


def _positive(value, name: str, *, below_one: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(
            value) or value <= 0 or (below_one and value >= 1):
        bound = "strictly between 0 and 1" if below_one else "a positive finite number"
        raise InvalidInputError(f"{name} must be {bound}, got {value!r}")
    return float(value)


class EDDifferentialPrivacy(PrivacyModel):
    """(ε, δ)-differential privacy by sampling, safe k-anonymization and a private search
    (SafePub). ``search_share`` of ε is spent on choosing the generalization (the
    exponential mechanism), the rest on the anonymization step, whose β and k follow from it
    (:mod:`pdanon.dp.params`).

    Parameters
    ----------
    epsilon : float > 0
    delta : float in (0, 1)
        Should be well below 1 / rows (e.g. 1e-5 or 1e-6 for tables of thousands of rows).
    search_share : float in (0, 1), default 0.1
    """

    name = "(epsilon, delta)-differential privacy"

    def __init__(self, epsilon: float, delta: float, *, search_share: float = DEFAULT_SEARCH_SHARE):
        from pdanon.dp.params import check_epsilon_anon, sampling_probability, smallest_k

        self.epsilon = _positive(epsilon, "epsilon")
        self.delta = _positive(delta, "delta", below_one=True)
        self.search_share = _positive(search_share, "search_share", below_one=True)
        self.epsilon_search = self.epsilon * self.search_share
        self.epsilon_anonymization = self.epsilon - self.epsilon_search
        check_epsilon_anon(self.epsilon_anonymization, search_share=self.search_share,
                           epsilon=epsilon)
        self.beta = sampling_probability(self.epsilon_anonymization)
        self.k = smallest_k(self.epsilon_anonymization, self.delta)

    def params(self) -> dict:
        return {"epsilon": self.epsilon, "delta": self.delta, "search_share": self.search_share}

    def __repr__(self) -> str:
        return (f"EDDifferentialPrivacy(epsilon={self.epsilon!r}, delta={self.delta!r}, "
                f"search_share={self.search_share!r})")

    def requirements(self) -> Requirements:
        return Requirements(min_size=self.k, exact=True, merge_monotone=True,
                            parts_monotone=True, mechanism=True)

    # what a table can show is k-anonymity's part: every class holds k rows of the sample
    classes_ok = KAnonymity.classes_ok
    accepts = KAnonymity.accepts
    achieved = KAnonymity.achieved

    def accounting(self, *, steps: int, epsilon_per_step: float,
                   epsilon_final_choice: float) -> dict:
        """The privacy accounting of one release (every figure data-independent): ε split
        into the anonymization step (β, k), ``steps`` exponential-mechanism draws of the
        search's walk at ``epsilon_per_step`` each and one draw of the output node at
        ``epsilon_final_choice``; their sum is the ε the release spends (sequential
        composition), never more than ``epsilon``.

        >>> m = EDDifferentialPrivacy(1.0, 1e-5)
        >>> a = m.accounting(steps=100, epsilon_per_step=0.0005, epsilon_final_choice=0.05)
        >>> round(a["epsilon_spent"], 12), a["k"]
        (1.0, 58)
        """
        spent = self.epsilon_anonymization + steps * epsilon_per_step + epsilon_final_choice
        if spent > self.epsilon * (1 + 1e-12):
            raise AssertionError(f"the search would spend {spent} > epsilon={self.epsilon}")
        return {
            "epsilon": self.epsilon, "delta": self.delta, "search_share": self.search_share,
            "epsilon_anonymization": self.epsilon_anonymization,
            "sampling_probability": self.beta, "k": self.k,
            "epsilon_search": self.epsilon_search, "steps": int(steps),
            "epsilon_per_step": epsilon_per_step,
            "epsilon_final_choice": epsilon_final_choice,
            "epsilon_spent": spent,
        }
