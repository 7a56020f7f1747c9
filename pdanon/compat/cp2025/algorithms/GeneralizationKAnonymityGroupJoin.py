"""``cp2025.algorithms.GeneralizationKAnonymityGroupJoin``: re-exports :class:`pdanon.algorithms.GeneralizationKAnonymityGroupJoin`."""

from pdanon.algorithms import Depersonalizator, GeneralizationKAnonymityGroupJoin  # noqa: F401
from pdanon.compat.cp2025.utility.algorithms import generalization  # noqa: F401
