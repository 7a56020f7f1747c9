"""``cp2025.algorithms.Shuffler``: re-exports :class:`pdanon.algorithms.Shuffler`."""

from pdanon.algorithms import Depersonalizator, Shuffler  # noqa: F401
from pdanon.compat.cp2025.utility.GeneralizationRange import GeneralizationRange  # noqa: F401
