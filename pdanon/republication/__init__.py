"""Republication: new batches and several releases of the same people.

``recoding`` (:class:`Recoding`: a release's published cells kept as JSON and applied to a new
batch, the model verified again), with ``boxes`` (a local release's classes rebuilt to place new
rows) and ``recoding_check`` (every field of a recoding read from JSON checked); ``releases``
(:func:`check_releases`, :class:`ReleaseHistory`: the combined classes of several releases,
keyed by the publisher), with ``_keys`` (person keys numbered) and ``valuesets`` (each class's
sensitive values kept once); ``difference`` (the count-difference attack on several releases)
and ``invariance`` (m-invariance for ``apply_recoding(invariance=m)``).

May import: the engine, ``checks`` and everything below. Imported by ``release``, the faces and
``pdanon``.
"""
