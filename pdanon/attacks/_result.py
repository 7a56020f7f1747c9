"""The result of an attack: success rates, Wilson intervals and the risk beyond the control."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: the confidence level of every interval unless the caller gives another
LEVEL = 0.95


def wilson(successes: float, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson score interval of a success rate (``(0, 1)`` when ``n == 0``).

    >>> [round(x, 4) for x in wilson(8, 10)]
    [0.4902, 0.9433]
    """
    if n <= 0:
        return (0.0, 1.0)
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + level / 2))
    p = min(max(successes / n, 0.0), 1.0)
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


def excess(main: float, control: float) -> float:
    """``(main - control) / (1 - control)`` clipped to [0, 1] (0 when the control succeeds
    always: the release then adds nothing the control does not give)."""
    if control >= 1:
        return 0.0
    return float(min(max((main - control) / (1 - control), 0.0), 1.0))


@dataclass
class AttackResult:
    """What an attack found (see docs/attacks.md).

    ``main_rate``: share of attacks that succeeded on the original (whose rows the release was
    made from); ``control_rate``: the same attacks on held-out rows the release never saw;
    ``baseline_rate``: a naive attacker's success on the original (random guesses, no use of
    the release's rows); ``risk``: ``(main - control) / (1 - control)`` in [0, 1], the
    success the release gives beyond what any table from the same population would;
    ``ci``: the risk's interval at ``level`` (from Wilson intervals of the two rates, each at
    ``1 - (1 - level) / 2`` so the pair covers at ``level``); ``n_attacks``: attacks made;
    ``detail``: one row per attack."""

    attack: str
    main_rate: float
    control_rate: float
    baseline_rate: float
    n_attacks: int
    n_success: float
    n_control: float
    n_baseline: int
    level: float = LEVEL
    detail: pd.DataFrame = field(default=None, repr=False)
    notes: tuple = ()

    @property
    def risk(self) -> float:
        return excess(self.main_rate, self.control_rate)

    def _pair_level(self) -> float:
        return 1 - (1 - self.level) / 2

    @property
    def main_ci(self) -> tuple[float, float]:
        return wilson(self.n_success, self.n_attacks, self._pair_level())

    @property
    def control_ci(self) -> tuple[float, float]:
        return wilson(self.n_control, self.n_attacks, self._pair_level())

    @property
    def baseline_ci(self) -> tuple[float, float]:
        return wilson(self.main_baseline_successes, self.n_baseline, self.level)

    @property
    def main_baseline_successes(self) -> float:
        return self.baseline_rate * self.n_baseline

    @property
    def ci(self) -> tuple[float, float]:
        """The risk's interval: lowest main with highest control, and the reverse."""
        m_lo, m_hi = self.main_ci
        c_lo, c_hi = self.control_ci
        return (excess(m_lo, c_hi), excess(m_hi, c_lo))

    @property
    def baseline_warning(self) -> bool:
        """True when the attack does no better than the naive attacker (its upper bound is
        below the baseline): the attack is too weak for its figure to mean anything."""
        return self.main_ci[1] < self.baseline_rate

    def as_dict(self) -> dict:
        """The figures as a plain dict (for reports and JSON)."""
        lo, hi = self.ci
        return {"attack": self.attack, "risk": self.risk, "ci_low": lo, "ci_high": hi,
                "level": self.level, "main_rate": self.main_rate,
                "control_rate": self.control_rate, "baseline_rate": self.baseline_rate,
                "n_attacks": self.n_attacks}

    def __repr__(self) -> str:
        lo, hi = self.ci
        return (f"AttackResult({self.attack}: risk={self.risk:.3f} "
                f"[{lo:.3f}, {hi:.3f}] at {self.level:.0%}, main={self.main_rate:.3f}, "
                f"control={self.control_rate:.3f}, baseline={self.baseline_rate:.3f}, "
                f"n_attacks={self.n_attacks})")


def rate(successes: float, n: int) -> float:
    return float(successes) / n if n else 0.0


def rng_of(seed) -> np.random.Generator:
    """A seeded generator for tests, else one from the OS's CSPRNG (``secrets``)."""
    if seed is None:
        import secrets

        return np.random.default_rng(secrets.randbits(128))
    return np.random.default_rng(seed)
