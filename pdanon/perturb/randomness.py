"""Randomness of every perturbation: reproducible from a seed, or from :mod:`secrets`."""

from __future__ import annotations

import numbers
import secrets

import numpy as np

from pdanon._errors import InvalidInputError


def make_rng(seed=None) -> np.random.Generator:
    """A numpy Generator: reproducible from ``seed``, or cryptographically seeded when ``None``.

    ``seed`` may be ``None``, a non-negative int, a :class:`numpy.random.SeedSequence` or an
    existing :class:`numpy.random.Generator` (returned as is). With ``None`` the PCG64 state is
    seeded with 128 bits from :func:`secrets.randbits` and that entropy is not kept.

    Example
    -------
    >>> make_rng(7).integers(0, 100, 3).tolist() == make_rng(7).integers(0, 100, 3).tolist()
    True
    """
    if seed is None:
        return np.random.Generator(np.random.PCG64(secrets.randbits(128)))
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.Generator(np.random.PCG64(seed))
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InvalidInputError(
            f"seed must be None, a non-negative int or a numpy Generator, got {seed!r}"
        )
    return np.random.Generator(np.random.PCG64(int(seed)))


def seed_info(seed):
    """How the randomness was sourced -- never the seed itself: ``info`` travels in
    ``df.attrs`` and so into Parquet files, and a published seed lets anyone replay (and so
    undo) a shuffle or subtract the noise of a randomization."""
    if seed is None:
        return {"random_source": "secrets"}
    if isinstance(seed, np.random.Generator):
        return {"random_source": "generator given"}
    if isinstance(seed, numbers.Integral) and int(seed) < GUESSABLE_SEEDS:
        import warnings

        from pdanon._errors import user_stacklevel

        warnings.warn(
            f"seed={int(seed)} is among the first {GUESSABLE_SEEDS:,} seeds: whoever tries "
            f"them in order (millions a second) replays the randomness and undoes this "
            f"perturbation (a shuffle, the noise) on the release; for a release pass "
            f"seed=None (the operating system's generator), or a seed of 128 random bits you "
            f"keep (secrets.randbits(128))", UserWarning, stacklevel=user_stacklevel())
    return {"random_source": "seed given"}


#: seeds below this are guessed by trying them in order (2**32: what people type)
GUESSABLE_SEEDS = 2 ** 32
