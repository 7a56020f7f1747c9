"""Compatibility layers for code written against other anonymization libraries.

:mod:`pdanon.compat.cp2025` mirrors every public module and name of the reference library
cp2025 1.0.3 (``cp2025.algorithms.Datafly``, ``cp2025.utility.metrics`` ...), so that code
written for it runs on pdanon after changing ``cp2025`` to ``pdanon.compat.cp2025`` in the
imports. Everything there re-exports or thinly wraps pdanon's own code; docs/compat.md lists
the deliberate differences.

Example
-------
>>> from pdanon.compat.cp2025.algorithms.Datafly import Datafly
>>> Datafly(2).depersonalize([["a"], ["a"], ["b"], ["b"]])
([['a'], ['a'], ['b'], ['b']], 0)
"""
