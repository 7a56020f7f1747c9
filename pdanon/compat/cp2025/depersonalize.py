"""``cp2025.depersonalize``: the command line (:func:`pdanon.cli.depersonalize.main`) and the reference's
``AlgorithmRunner`` helper.

Example
-------
>>> from pdanon.algorithms import SuppressionKAnonymityTimeOptimal
>>> AlgorithmRunner([[1], [1]], None, "left", None).run(SuppressionKAnonymityTimeOptimal(2))
[[1], [1]]
"""

from __future__ import annotations

from pdanon.algorithms import *  # noqa: F401,F403
from pdanon.cli.depersonalize import main  # noqa: F401

__all__ = ["AlgorithmRunner", "main"]


class AlgorithmRunner:
    """Runs a classic algorithm on one table with fixed column roles; ``run`` returns the
    anonymized table only."""

    def __init__(self, df, i_ids, qi_ids, s_ids):
        self.df = df
        self.i_ids = i_ids
        self.qi_ids = qi_ids
        self.s_ids = s_ids

    def run(self, algorithm):
        return algorithm.depersonalize(self.df, identifiers_ids=self.i_ids,
                                       quasi_identifiers_ids=self.qi_ids,
                                       sensitives_ids=self.s_ids)[0]
