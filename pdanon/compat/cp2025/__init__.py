"""The reference library cp2025 1.0.3, module for module, over pdanon (see
:mod:`pdanon.compat`). Change ``from cp2025...`` to ``from pdanon.compat.cp2025...``.

Example
-------
>>> from pdanon.compat.cp2025.utility.metrics import find_k_anonimus
>>> import numpy as np
>>> find_k_anonimus(np.array([[1, 2], [1, 2], [3, 4]], dtype=object))
1
"""
