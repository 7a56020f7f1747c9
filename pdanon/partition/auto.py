"""``algorithm="auto"``: which partitioner to run, and why.

Not a partitioner itself: :func:`choose` looks at the table, the model and the options and
returns a partitioner's name with the reason, which the engine records in ``info``
(``info["algorithm"]`` is the choice, ``info["requested_algorithm"]`` is ``"auto"`` and
``info["note"]`` starts with the reason).

The rule:

1. hierarchies given, or a model with a table-level condition (average risk, δ-presence
   with δmin > 0) -> ``optimal`` (optimal full-domain generalization over them); a model
   against a population table otherwise (k-map, δ-presence with δmin = 0) -> ``mondrian``;
2. fewer than :data:`AUTO_MONDRIAN_ROWS` rows, a model decided by class sizes and distinct
   sensitive values (k-anonymity, distinct l-diversity) and no option other than a suppression
   budget -> ``nearest`` (the reference's TimeOptimal grouping, O(n²/k): under about a second
   there, and it often publishes tighter cells);
3. otherwise -> ``mondrian`` (O(n log n); every model).

Example
-------
>>> from types import SimpleNamespace
>>> from pdanon.models import KAnonymity, LDiversity
>>> choose(SimpleNamespace(n=30_000), KAnonymity(5), {})
('mondrian', 'mondrian (30,000 rows >= 5,000)')
>>> choose(SimpleNamespace(n=300), LDiversity(2, variant="entropy"), {})
('mondrian', 'mondrian (nearest supports k-anonymity and distinct l-diversity only)')
"""

from __future__ import annotations

#: ``algorithm="auto"`` uses Mondrian from this many rows on (and for every model that the
#: nearest-neighbour grouping does not support).
AUTO_MONDRIAN_ROWS = 5_000


def choose(enc, model, options: dict) -> tuple[str, str]:
    """``(partitioner name, reason)`` for ``algorithm="auto"`` (see the module docstring)."""
    req = model.requirements()
    if req.mechanism:
        return "safepub", "safepub (differential privacy: sampling and a private search)"
    if options.get("hierarchies"):
        return "optimal", "optimal (hierarchies given: optimal full-domain generalization)"
    if req.table:
        return "optimal", ("optimal (the model has a table-level condition, which only the "
                           "lattice search enforces)")
    if req.population:
        return "mondrian", ("mondrian (a population model without hierarchies: the population "
                            "rides through the cuts)")
    if enc.n >= AUTO_MONDRIAN_ROWS:
        return "mondrian", f"mondrian ({enc.n:,} rows >= {AUTO_MONDRIAN_ROWS:,})"
    if not model.requirements().exact:
        return "mondrian", "mondrian (nearest supports k-anonymity and distinct l-diversity only)"
    if set(options) - {"max_suppressed_rows"}:
        return "mondrian", f"mondrian (options {sorted(options)} are not nearest's)"
    return "nearest", f"nearest ({enc.n:,} rows < {AUTO_MONDRIAN_ROWS:,})"
