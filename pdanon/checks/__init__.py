"""The verdict on a release before it leaves.

``policy`` holds :class:`Policy` and :func:`check`: the criteria a release must meet (its
models, risk, channels, households, order), measured on the release itself and, with the
original, through the publisher-only way back. ``row_order`` is the order every face publishes
its rows in (a CSPRNG permutation under a fresh index) and the hazard of a sorted order.

May import: the engine and everything below it (``metrics``, ``models``, ``screening``,
``roles``, ``dp``, ``publisher_only``). Imported by ``report``, ``republication``, ``release``
and the faces.
"""
