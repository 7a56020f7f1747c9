"""Attacks on a release before it leaves: singling out, linkability and inference.

The three criteria of the EU Article 29 Working Party's Opinion 05/2014, measured the way
Anonymeter measures them (Giomi, Boenisch, Wehmeyer & Tasnádi, "A Unified Framework for
Quantifying Privacy Risk in Synthetic Data", PoPETs 2023) and extended to pdanon's
generalized cells: each attack runs against the **original** (the rows the release was made
from) and against a held-out **control** set of the same population, and the risk is the
success the release gives beyond the control, ``(main - control) / (1 - control)``, with a
Wilson interval. A published range or set is a predicate: a record matches a cell when the cell
contains its value; elsewhere records are compared by Gower's distance over the columns' kinds.
The attacks need no alignment of rows, so they read every release: generalized, suppressed,
microaggregated, perturbed, DP samples, tables read back from files.

* :func:`singling_out` -- predicates read off the release that isolate one original record;
* :func:`linkability` -- two disjoint halves of a record joined through the release;
* :func:`inference` -- a secret column guessed from the release rows nearest to the rest;
* :func:`holdout` -- the control set, held out (stratified if asked) before anonymizing.

Each returns an :class:`AttackResult` (``risk``, ``ci``, ``main_rate``, ``control_rate``,
``baseline_rate``, ``n_attacks``, per-attack ``detail``). ``df.anon.attacks(original,
control=...)`` runs the three at once. See docs/attacks.md.

Layering: this package may import pdanon's metrics-level code -- :mod:`pdanon.dtype`,
:mod:`pdanon.encode`, :mod:`pdanon._groups`, :mod:`pdanon.roles` (column kinds) and
:mod:`pdanon._errors` -- and never the faces (the accessor, the CLI, the report), which import
it.

Example
-------
>>> import pandas as pd
>>> from pdanon.attacks import linkability
>>> original = pd.DataFrame({"a": range(0, 60, 2), "b": range(0, 60, 2)})
>>> control = pd.DataFrame({"a": range(1, 61, 2), "b": range(59, 0, -2)})
>>> r = linkability(original, original, control=control, aux_cols=(["a"], ["b"]), seed=1)
>>> r.main_rate, r.control_rate < 0.2, r.risk > 0.8
(1.0, True, True)
"""

from __future__ import annotations

from pdanon.attacks._result import LEVEL, AttackResult, wilson
from pdanon.attacks._split import SHARE, holdout
from pdanon.attacks.inference import inference
from pdanon.attacks.linkability import linkability
from pdanon.attacks.singling_out import singling_out

__all__ = ["singling_out", "linkability", "inference", "holdout", "AttackResult", "wilson",
           "LEVEL", "SHARE"]
