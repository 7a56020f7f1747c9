"""``cp2025.algorithms.IdentifierHasher``: re-exports :class:`pdanon.algorithms.IdentifierHasher`."""

from pdanon.algorithms import Depersonalizator, IdentifierHasher  # noqa: F401
