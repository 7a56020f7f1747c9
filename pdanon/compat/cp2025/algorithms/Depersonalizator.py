"""``cp2025.algorithms.Depersonalizator``: re-exports :class:`pdanon.algorithms.Depersonalizator`."""

from pdanon.algorithms import Depersonalizator  # noqa: F401
from pdanon.compat.cp2025.utility.utility import fill_left_columns_ids  # noqa: F401
