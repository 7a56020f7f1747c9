"""Differentially private microdata: SafePub (Bild, Kuhn & Prasser, PoPETs 2018).

:mod:`pdanon.dp.params` derives the sampling probability and k from (ε, δ);
:mod:`pdanon.dp.mechanism` holds the random source and the exponential mechanism;
:mod:`pdanon.dp.scores` the score functions of the search; the algorithm itself is
:mod:`pdanon.partition.safepub` and the model :class:`pdanon.models.EDDifferentialPrivacy`.
``df.anon.dp_anonymize(epsilon, delta, ...)`` is the face (docs/differential_privacy.md).
"""
