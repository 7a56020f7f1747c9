"""The pandas faces: ``df.anon`` and ``s.anon``.

``frame`` is the DataFrame accessor, assembled from one mixin per family of methods:
``anonymize`` (the privacy models through the engine: ``k_anonymize``, ``l_diversify``, ...,
``generalize``, ``explain``), ``dp`` (``dp_anonymize``), ``perturb`` (microaggregation, noise,
swapping, PRAM, keyed hashing) and ``risk`` (record-level risk). ``series`` is the Series
accessor. Each method checks its keywords, resolves the roles and calls the engine or a
perturbation; ``frame`` turns the result into a release (published categories only, a random
row order, the channel rule).

May import: everything below the faces (the engine and its parts, ``checks``, ``report``,
``io``, ``republication``, ``release``). Only ``pdanon`` imports it (which registers both
accessors by importing ``frame`` and ``series``).
"""
