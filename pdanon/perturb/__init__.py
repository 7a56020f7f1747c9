"""Perturbation: shuffling, randomization and keyed hashing of identifiers.

Modules: :mod:`~pdanon.perturb.randomness` (seeds and generators),
:mod:`~pdanon.perturb.shuffle`, :mod:`~pdanon.perturb.randomize`,
:mod:`~pdanon.perturb.pseudonyms` (keyed hashing), :mod:`~pdanon.perturb.mdav` and
:mod:`~pdanon.perturb.microaggregation` (MDAV / V-MDAV microaggregation),
:mod:`~pdanon.perturb.pram` (post-randomization), :mod:`~pdanon.perturb.coding` (top and bottom
coding), :mod:`~pdanon.perturb.swap` (rank swapping), :mod:`~pdanon.perturb.noise` (additive and
correlated noise), :mod:`~pdanon.perturb.suppression` (local suppression) and :mod:`~pdanon.perturb.faces` (the
engines of the ``df.anon`` methods, over resolved roles); every public name is importable from
``pdanon.perturb``.

The pure functions work on plain DataFrames / Series and explicit arguments (no roles);
``df.anon.shuffle``, ``df.anon.randomize``, ``df.anon.hash_identifiers`` and the classic
``Shuffler`` / ``ShufflerInBatches`` / ``RandomizationBaselineDepersonalizator`` /
``IdentifierHasher`` classes are thin faces over them.

Randomness: every function takes a :class:`numpy.random.Generator`; :func:`make_rng` builds one
from a user seed (reproducible) or, when the seed is ``None``, from 128 bits drawn from
:mod:`secrets` (the operating system's cryptographically secure source). The generated entropy is
never stored anywhere, so an unseeded shuffle cannot be replayed (and so undone) from the output.
A user seed is not stored either: ``info`` says only how randomness was sourced.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"age": [30, 31, 40, 42], "disease": ["flu", "cold", "flu", "gout"]})
>>> out = shuffle_frame(df, ["disease"], rng=make_rng(0))
>>> sorted(out["disease"]) == sorted(df["disease"])
True
"""


from pdanon.perturb.coding import code_series
from pdanon.perturb.faces import (
    add_noise_by_roles,
    code_by_roles,
    drop_identifiers_by_roles,
    hash_by_roles,
    local_suppression_by_roles,
    microaggregate_by_roles,
    pram_by_roles,
    randomize_by_roles,
    rank_swap_by_roles,
    shuffle_by_roles,
)
from pdanon.perturb.noise import add_noise_frame, correlated_draws
from pdanon.perturb.pram import (
    check_matrix,
    invariant_matrix,
    keep_matrix,
    pram_matrix,
    pram_series,
)
from pdanon.perturb.pseudonyms import (
    SecretKey,
    canonical_text,
    context_prefix,
    derive_key,
    hmac_pseudonyms,
    key_fingerprint,
    reference_sha256_rows,
    resolve_key,
)
from pdanon.perturb.randomize import HISTOGRAM_BINS, KINDS, randomize_frame, randomize_series
from pdanon.perturb.randomness import make_rng
from pdanon.perturb.shuffle import permutation_within, shuffle_frame
from pdanon.perturb.suppression import (
    local_suppression_frame,
    suppression_mask,
    suppression_order,
)
from pdanon.perturb.swap import moore_partners, rank_swap_series, swap_partners

__all__ = [
    "SecretKey",
    "canonical_text",
    "context_prefix",
    "correlated_draws",
    "derive_key",
    "drop_identifiers_by_roles",
    "hash_by_roles",
    "key_fingerprint",
    "local_suppression_by_roles",
    "local_suppression_frame",
    "add_noise_by_roles",
    "add_noise_frame",
    "check_matrix",
    "code_by_roles",
    "code_series",
    "invariant_matrix",
    "keep_matrix",
    "microaggregate_by_roles",
    "pram_by_roles",
    "pram_matrix",
    "pram_series",
    "randomize_by_roles",
    "shuffle_by_roles",
    "hmac_pseudonyms",
    "make_rng",
    "permutation_within",
    "randomize_frame",
    "randomize_series",
    "rank_swap_by_roles",
    "rank_swap_series",
    "reference_sha256_rows",
    "resolve_key",
    "shuffle_frame",
    "suppression_mask",
    "suppression_order",
    "swap_partners",
    "moore_partners",
]
