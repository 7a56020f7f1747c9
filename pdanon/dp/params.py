"""The parameters of SafePub's anonymization step: the sampling probability and the k that
(ε, δ) require (Li, Qardaji & Su 2012; Bild, Kuhn & Prasser 2018).

Li, Qardaji and Su prove (Theorem 5 of "On sampling, anonymization, and differential
privacy", AsiaCCS 2012) that drawing every row independently with probability β and then
applying a *safe* k-anonymization — a generalization scheme fixed independently of the data,
followed by the suppression of every class with fewer than k rows — satisfies
(ε, δ)-differential privacy for every ε >= -ln(1 - β) with

    δ = d(k, β, ε) = max_{n >= n_m}  Σ_{j > γ·n}^{n}  C(n, j) β^j (1 - β)^(n - j),
    γ = (e^ε - 1 + β) / e^ε,      n_m = ⌈k / γ - 1⌉,

the largest probability that a binomial Bin(n, β) count exceeds γ·n over the class sizes n
that can reach k. SafePub spends ε_anon = ε - ε_search on this step and takes the largest
sampling probability it allows, β = 1 - e^(-ε_anon) (so γ = 1 - e^(-2·ε_anon)), and the
smallest k whose d(k, β, ε_anon) is at most δ.

The maximum over infinitely many n is found exactly: every term is at most
c_n = exp(-n·(γ·ln(γ/β) - (γ - β))) (a Chernoff bound: the exponent is a lower bound of the
Kullback-Leibler divergence of γ from β, since (1-γ)·ln((1-γ)/(1-β)) >= β - γ), and c_n
falls with n, so once the running maximum reaches c_n no later term can exceed it.

ARX computes the same quantities in interval arithmetic; its search for k returns one more
than the smallest k that meets δ (``ParameterCalculation``: the counter is raised after the
test), a safe but needless loss. pdanon returns the smallest k. Where floating point could
tip a comparison it errs on the safe side: β is rounded down, a count j within rounding of
γ·n is counted in the tail, and the tail must be below δ by a relative 1e-9.

Example
-------
>>> round(sampling_probability(1.0), 4)
0.6321
>>> smallest_k(1.0, 1e-5)
61
"""

from __future__ import annotations

import math

import numpy as np

from pdanon._errors import InvalidInputError

__all__ = ["check_epsilon_anon", "delta_for_k", "sampling_probability", "smallest_k"]

#: Largest k :func:`smallest_k` tries before it reports δ as out of reach.
MAX_K = 1_000_000
#: Relative margin on the computed tail (the binomial tail is exact to ~1e-12 relative).
MARGIN = 1e-9
#: The range of ε_anon for which :func:`smallest_k` computes k (in about a second below 4,
#: ten above): under 1e-4 the sample holds almost no row (β ≈ ε_anon); above 5 the guarantee
#: is weak and the exact maximum needs class sizes in the millions.
MIN_EPSILON_ANON, MAX_EPSILON_ANON = 1e-4, 5.0


def sampling_probability(epsilon_anon: float) -> float:
    """β = 1 - e^(-ε_anon): the largest sampling probability ε_anon allows (rounded down
    by a relative 1e-12, so that floating point never samples more than ε_anon allows)."""
    return -math.expm1(-float(epsilon_anon)) * (1.0 - 1e-12)


def _gamma(beta: float, epsilon: float) -> float:
    return (math.exp(epsilon) - 1.0 + beta) / math.exp(epsilon)


def delta_for_k(k: int, beta: float, epsilon: float) -> float:
    """d(k, β, ε) of the module docstring: the δ that sampling with ``beta`` followed by
    suppressing classes under ``k`` rows gives at ``epsilon``.

    >>> delta_for_k(61, sampling_probability(1.0), 1.0) <= 1e-5 < delta_for_k(
    ...     60, sampling_probability(1.0), 1.0)
    True
    """
    from scipy.stats import binom

    if not 0.0 < beta < 1.0:
        raise InvalidInputError(f"the sampling probability must lie in (0, 1), got {beta}")
    if epsilon < -math.log1p(-beta) - 1e-12:
        raise InvalidInputError(f"epsilon={epsilon} is below -ln(1 - beta) for beta={beta}")
    gamma = _gamma(beta, epsilon)
    n_m = max(math.ceil(k / gamma - 1.0), 1)
    rate = gamma * math.log(gamma / beta) - (gamma - beta)  # > 0: gamma > beta
    worst = 0.0
    start, block = n_m, 256
    while True:
        n = np.arange(start, start + block, dtype=np.int64)
        # P[Bin(n, beta) > gamma * n]; where gamma * n is (within rounding) a whole number
        # that count is included too: rounding never leaves a term out
        edge = gamma * n
        tail = binom.sf(np.floor(edge - 1e-9 * np.maximum(edge, 1.0)), n, beta)
        for value, size in zip(tail.tolist(), n.tolist()):
            worst = max(worst, value)
            if worst >= math.exp(-size * rate):  # no later term can exceed ``worst``
                return worst
        start += block
        block = min(block * 2, 1 << 16)


def check_epsilon_anon(epsilon_anon: float, *, search_share: float | None = None,
                       epsilon=None) -> None:
    """Refuse an anonymization step's ε outside [:data:`MIN_EPSILON_ANON`,
    :data:`MAX_EPSILON_ANON`], the range :func:`smallest_k` computes k for. With
    ``search_share`` (and the ``epsilon`` the caller gave) the message states the range of
    ε itself at that share, rounded inwards (its ends are accepted).

    >>> check_epsilon_anon(0.9)
    >>> check_epsilon_anon(10.0, search_share=0.1, epsilon=11.1)
    Traceback (most recent call last):
    ...
    pdanon._errors.InvalidInputError: epsilon=11.1 is outside the range pdanon computes k for: at search_share=0.1, epsilon must lie in [0.000112, 5.55] (the anonymization step's share, epsilon x (1 - search_share), in [0.0001, 5]: above, the guarantee protects little and its k needs class sizes in the millions to compute)
    """
    if MIN_EPSILON_ANON <= epsilon_anon <= MAX_EPSILON_ANON:
        return
    why = (f"below, the sample would hold a share of only "
           f"{sampling_probability(epsilon_anon):.2g} of the rows" if epsilon_anon < MIN_EPSILON_ANON
           else "above, the guarantee protects little and its k needs class sizes in the "
                "millions to compute")
    if search_share is None:
        raise InvalidInputError(
            f"the anonymization step's epsilon, epsilon x (1 - search_share) = {epsilon_anon!r}, "
            f"must lie in [{MIN_EPSILON_ANON:g}, {MAX_EPSILON_ANON:g}] (pdanon.dp.params): "
            f"{why}; choose epsilon so that it does")
    keep = 1.0 - search_share
    lo = _round(MIN_EPSILON_ANON / keep, math.ceil)
    hi = _round(MAX_EPSILON_ANON / keep, math.floor)
    raise InvalidInputError(
        f"epsilon={epsilon!r} is outside the range pdanon computes k for: at "
        f"search_share={search_share:g}, epsilon must lie in [{lo:.3g}, {hi:.3g}] (the "
        f"anonymization step's share, epsilon x (1 - search_share), in "
        f"[{MIN_EPSILON_ANON:g}, {MAX_EPSILON_ANON:g}]: {why})")


def _round(value: float, direction) -> float:
    """``value`` to three significant digits, rounded by ``direction`` (math.ceil or
    math.floor), so that a bound rounded inwards is itself accepted."""
    scale = 10.0 ** (math.floor(math.log10(value)) - 2)
    return direction(value / scale) * scale


def smallest_k(epsilon_anon: float, delta: float) -> int:
    """The smallest k for which sampling with β = 1 - e^(-ε_anon) and suppressing every class
    under k rows is (ε_anon, δ)-differentially private (module docstring).

    >>> [smallest_k(e, 1e-5) for e in (0.5, 1.0, 2.0)]
    [51, 61, 113]
    """
    if not 0.0 < delta < 1.0:
        raise InvalidInputError(f"delta must lie strictly between 0 and 1, got {delta!r}")
    check_epsilon_anon(epsilon_anon)
    beta = sampling_probability(epsilon_anon)
    lo, hi = 1, 1
    # d(k) falls as k grows: double to a k that meets delta, then bisect
    while delta_for_k(hi, beta, epsilon_anon) * (1 + MARGIN) > delta:
        lo = hi + 1
        hi *= 2
        if hi > MAX_K:
            raise InvalidInputError(
                f"delta={delta!r} needs classes of more than {MAX_K:,} rows at "
                f"epsilon={epsilon_anon!r}: raise delta or epsilon")
    while lo < hi:
        mid = (lo + hi) // 2
        if delta_for_k(mid, beta, epsilon_anon) * (1 + MARGIN) <= delta:
            hi = mid
        else:
            lo = mid + 1
    return lo
