"""The anonymization step's parameters (pdanon.dp.params) against ARX and against an
independent summation of the binomial tails."""

import math

import pytest

from pdanon.dp.params import delta_for_k, sampling_probability, smallest_k

# k from ARX's ParameterCalculation (compiled from ARX's sources, 2025-09 snapshot) for
# (epsilon_anon, delta). ARX raises its counter after the successful test, so its k is one
# more than the smallest k that meets delta: pdanon's k is ARX's minus one.
ARX_K = {
    (0.1, 1e-5): 50, (0.1, 1e-6): 61,
    (0.5, 1e-5): 52, (0.5, 1e-6): 64,
    (math.log(2), 1e-5): 56, (math.log(2), 1e-6): 68,
    (1.0, 1e-5): 62, (1.0, 1e-6): 75,
    (1.5, 1e-5): 81, (1.5, 1e-6): 100,
    (1.9, 1e-5): 103, (1.9, 1e-6): 119,
    (2.0, 1e-5): 114, (2.0, 1e-6): 132,
}


@pytest.mark.parametrize("eps,delta", sorted(ARX_K))
def test_k_is_arx_minus_its_extra_one(eps, delta):
    assert smallest_k(eps, delta) == ARX_K[(eps, delta)] - 1


def _tail(n: int, beta: float, gamma: float) -> float:
    """P[Bin(n, beta) > gamma * n], summed term by term in log space (no scipy)."""
    first = math.floor(gamma * n) + 1
    total = 0.0
    for j in range(first, n + 1):
        log_term = (math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1)
                    + j * math.log(beta) + (n - j) * math.log1p(-beta))
        total += math.exp(log_term)
    return total


@pytest.mark.parametrize("k,eps", [(5, 1.0), (20, 0.5), (61, 1.0), (30, 2.0)])
def test_delta_equals_the_largest_tail(k, eps):
    beta = -math.expm1(-eps)
    gamma = (math.exp(eps) - 1 + beta) / math.exp(eps)
    n_m = math.ceil(k / gamma - 1)
    brute = max(_tail(n, beta, gamma) for n in range(n_m, n_m + 1500))
    assert delta_for_k(k, sampling_probability(eps), eps) == pytest.approx(brute, rel=1e-6)


@pytest.mark.parametrize("eps,delta", [(0.3, 1e-4), (1.0, 1e-5), (2.0, 1e-8), (0.9, 0.2)])
def test_smallest_k_is_smallest(eps, delta):
    k = smallest_k(eps, delta)
    beta = sampling_probability(eps)
    assert delta_for_k(k, beta, eps) <= delta
    assert k == 1 or delta_for_k(k - 1, beta, eps) > delta


def test_beta_never_exceeds_what_epsilon_allows():
    for eps in (1e-3, 0.1, 1.0, 5.0):
        beta = sampling_probability(eps)
        assert beta < 1 - math.exp(-eps)
        assert -math.log1p(-beta) <= eps


@pytest.mark.parametrize("delta", [0, 1, -1e-5, 1.5])
def test_delta_out_of_range_refused(delta):
    with pytest.raises(Exception, match="delta must lie strictly between 0 and 1"):
        smallest_k(1.0, delta)
