"""``cp2025.algorithms.RandomizationDepersonalizator``: re-exports
:class:`pdanon.algorithms.RandomizationBaselineDepersonalizator` and the reference's per-value
randomizers ``RandomOrdered`` / ``RandomUnordered``."""

from pdanon.algorithms import Depersonalizator, RandomizationBaselineDepersonalizator  # noqa: F401
from pdanon.algorithms._perturbation import RandomOrdered, RandomUnordered  # noqa: F401
