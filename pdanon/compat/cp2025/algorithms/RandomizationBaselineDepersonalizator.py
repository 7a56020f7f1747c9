"""``cp2025.algorithms.RandomizationBaselineDepersonalizator``: the import path the reference's
documentation uses (the package itself ships the class in ``RandomizationDepersonalizator``);
both work here."""

from pdanon.compat.cp2025.algorithms.RandomizationDepersonalizator import (  # noqa: F401
    Depersonalizator,
    RandomizationBaselineDepersonalizator,
    RandomOrdered,
    RandomUnordered,
)
