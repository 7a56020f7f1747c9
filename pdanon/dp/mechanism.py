"""The random draws of a differentially private release: a source that is cryptographically
secure unless a seed is given (for tests), and the exponential mechanism.

Without a seed every draw reads the operating system's CSPRNG (:func:`os.urandom`): uniform
numbers are 53 random bits, a permutation sorts 64-bit random keys. A seed (an int, or a numpy
Generator) makes runs reproducible for tests and is never written anywhere: ``info`` only
says whether one was given.

Example
-------
>>> source = RandomSource(seed=3)
>>> exponential_mechanism([0.0, -1.0, -50.0], epsilon=2.0, source=source) in (0, 1)
True
"""

from __future__ import annotations

import math
import os

import numpy as np

from pdanon._errors import InvalidInputError

__all__ = ["RandomSource", "exponential_mechanism", "selection_probabilities"]


class RandomSource:
    """Uniform numbers and permutations: from :func:`os.urandom` (``seed=None``), or from
    a seeded numpy Generator (tests only: a seeded release is reproducible by anyone who
    knows the seed)."""

    def __init__(self, seed=None):
        from pdanon.perturb.randomness import make_rng

        self.secure = seed is None
        self._rng = None if seed is None else make_rng(seed)

    def uniform(self, size: int) -> np.ndarray:
        """``size`` independent uniform numbers in [0, 1)."""
        if self._rng is not None:
            return self._rng.random(size)
        bits = np.frombuffer(os.urandom(8 * int(size)), dtype=np.uint64)
        return (bits >> np.uint64(11)).astype(np.float64) * 2.0 ** -53

    def permutation(self, n: int) -> np.ndarray:
        """A uniformly random order of ``range(n)``."""
        if self._rng is not None:
            return self._rng.permutation(n)
        keys = np.frombuffer(os.urandom(8 * int(n)), dtype=np.uint64)
        return np.argsort(keys, kind="stable")

    def describe(self) -> str:
        return "os.urandom (cryptographically secure)" if self.secure else \
            "seeded generator (tests only; the seed is not recorded)"


def selection_probabilities(scores, epsilon: float, *, spread: float = 2.0) -> np.ndarray:
    """The exponential mechanism's probabilities: P(i) ∝ exp(ε · score_i / spread) (McSherry
    & Talwar 2007). ``spread`` = 2 (the default) for scores already divided by their
    sensitivity (each moves by at most 1 between neighbouring tables); ``spread`` = 1 for
    scores whose changes between any two neighbouring tables lie, for every candidate at
    once, in one interval [a, a + 1] (a *range* of 1; :func:`pdanon.dp.scores.selection_score`):
    then exp(ε · score_i) moves by a factor within [e^(εa), e^(ε(a+1))] and so does the
    normaliser, so every probability moves by at most e^ε — the same ε with half the
    spread (the "bounded range" of Durfee & Rogers 2019; a monotone score is the case a = 0).

    >>> p = selection_probabilities([0.0, -1.0], 1.0, spread=1.0)
    >>> round(float(p[0] / p[1]), 6) == round(float(np.e), 6)
    True
    """
    if not (spread > 0 and math.isfinite(spread)):
        raise InvalidInputError(f"spread must be a positive number, got {spread!r}")
    s = np.asarray(scores, dtype=np.float64)
    if not len(s):
        raise InvalidInputError("the exponential mechanism needs at least one candidate")
    if not np.isfinite(s).all():
        raise InvalidInputError("every candidate's score must be finite")
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise InvalidInputError(f"epsilon must be a positive number, got {epsilon!r}")
    w = np.exp(epsilon / spread * (s - s.max()))  # the best candidate has weight 1
    return w / w.sum()


def exponential_mechanism(scores, *, epsilon: float, source: RandomSource,
                          spread: float = 2.0) -> int:
    """The index of one candidate drawn with :func:`selection_probabilities`: an
    ε-differentially private choice when every score changes by at most 1 between
    neighbouring tables (``spread`` = 2), or when the changes of all the scores lie in one
    interval of width 1 (``spread`` = 1)."""
    p = selection_probabilities(scores, epsilon, spread=spread)
    u = float(source.uniform(1)[0])
    return int(min(np.searchsorted(np.cumsum(p), u, side="right"), len(p) - 1))
