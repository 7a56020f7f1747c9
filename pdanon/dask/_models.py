"""Privacy models on Dask: feasibility and per-group checks from counts, and the distributed
verification of an output. The models answer themselves
(:meth:`pdanon.models.PrivacyModel.classes_ok` on :class:`pdanon.distributions.ClassCounts`);
this module only gathers the counts they read.
"""

from __future__ import annotations

import numpy as np

from pdanon import distributions as _dist
from pdanon._errors import InfeasibleError, InvalidInputError, VerificationError

__all__ = ["check_feasible", "groups_ok_from_counts", "k_of", "model_info", "needs_context",
           "verify_output"]


def groups_ok_from_counts(model, sizes: np.ndarray, dense: dict, sensitive: dict) -> np.ndarray:
    """Does each group meet ``model``, given its row count and its (group, sensitive value)
    counts per sensitive column (``dense[name]``: groups x values)? The model answers
    itself (:meth:`~pdanon.models.PrivacyModel.classes_ok`), as on pandas frames."""
    names = list(dense) if model.requirements().sensitive else []
    classes = _dist.ClassCounts(np.asarray(sizes, dtype=np.int64),
                                [sensitive[c].column for c in names],
                                [np.asarray(dense[c]) for c in names])
    return np.asarray(model.classes_ok(classes), dtype=bool)


def needs_context(model) -> bool:
    return model.requirements().sensitive


def k_of(model) -> int:
    return model.requirements().min_size


def check_feasible(model, n: int, sensitive: dict) -> None:
    from pdanon.models import KAnonymity, LDiversity, TCloseness

    parts = model.parts()
    other = [p for p in parts if not isinstance(p, (KAnonymity, LDiversity, TCloseness))]
    if other:
        raise InvalidInputError(
            f"on Dask pdanon verifies k-anonymity, l-diversity and t-closeness with distributed "
            f"group-bys; {other[0]!r} is supported on pandas frames (compute() first)")
    for p in parts:
        if isinstance(p, KAnonymity) and n and p.k > n:
            raise InvalidInputError(f"k={p.k} is larger than the number of rows ({n}); choose "
                                    f"k <= {n}")
        if isinstance(p, LDiversity) and n:
            for c, g in sensitive.items():
                dense = {c: g.column.global_counts.reshape(1, -1)}
                if not groups_ok_from_counts(p, np.array([n]), dense, {c: g})[0]:
                    raise InfeasibleError(
                        f"{p!r} cannot be met: the whole table is not l-diverse in sensitive "
                        f"column {c!r} ({p.variant} l-diversity); lower l"
                        + (" or raise c" if p.variant == "recursive" else ""))
    if n:
        # input errors of t-closeness (unknown distance, missing hierarchy, ...) before any work
        sizes = np.array([n])
        dense = {c: g.column.global_counts.reshape(1, -1) for c, g in sensitive.items()}
        if needs_context(model):
            groups_ok_from_counts(model, sizes, dense, sensitive)


def verify_output(result, qnames: list, sensitive: dict, model, n: int) -> dict:
    """Distributed check of the output: class sizes by a Dask group-by (k), per-class l / t
    from (class, sensitive value) counts. Raises VerificationError; returns what was found.

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from pdanon.models import KAnonymity
    >>> ddf = dd.from_pandas(pd.DataFrame({"a": [1, 1, 2, 2]}), npartitions=2)
    >>> verify_output(ddf, ["a"], {}, KAnonymity(2), 4)
    {'rows': 4, 'classes': 2, 'k': 2}
    """
    import dask

    from pdanon.dask import _metrics as m
    from pdanon.models import LDiversity, TCloseness

    parts = model.parts()
    keys, names = m.class_keys(result, qnames)
    summary = m._size_summary(m.group_sizes(keys, names, m.split_out_of(result)))
    lazies = {"rows": summary["rows"], "k": summary["k"], "classes": summary["classes"]}
    for i, p in enumerate(parts):
        for c, g in sensitive.items():
            if isinstance(p, LDiversity):
                what, param = p.variant, p.c
                how = "min"
            elif isinstance(p, TCloseness):
                what, param, how = "t", (p.distance, (p.hierarchies or {}).get(c)), "max"
            else:
                continue
            known = p.missing_sensitive == "unknown"  # l and t as the model reads them
            lazies[(i, c)] = m._lazy_measures(result, qnames, g, [("v", what, param, how)],
                                              known)["v"]
    got = dict(zip(lazies, dask.compute(*lazies.values())))
    found = {"rows": int(got["rows"]), "classes": int(got["classes"]), "k": int(got["k"])}
    problems = []
    if found["rows"] != n:
        problems.append(f"{found['rows']} output rows for {n} input rows")
    for i, p in enumerate(parts):
        # the worst levels (per sensitive column for l and t); the model says if they suffice
        key = "l" if isinstance(p, LDiversity) else "t" if isinstance(p, TCloseness) else None
        checks = {None: {"k": found["k"]}}
        if key is not None:
            checks = {c: {"k": found["k"], key: float(got[(i, c)])} for c in sensitive}
            found.update({f"{key}[{c}]": levels[key] for c, levels in checks.items()})
        for c, levels in checks.items():
            if not p.accepts(levels):
                where = f" in {c!r}" if c is not None else ""
                problems.append(f"{p!r} fails{where}: the worst class reaches {levels}")
    if problems:
        raise VerificationError(f"the Dask output does not satisfy {model!r}: "
                                + "; ".join(problems) + "; this is a bug in pdanon, please report it")
    return found


def model_info(algorithm: str, model, roles, qnames: list, n: int) -> dict:
    """The first entries of a Dask anonymizer's ``info``, as the pandas engine writes them
    (algorithm, method, model, its parameters and recorded parts, quasi-identifiers, dropped
    identifiers, rows).

    Example
    -------
    >>> from pdanon.models import KAnonymity
    >>> from pdanon.roles import Roles
    >>> model_info("mondrian (dask)", KAnonymity(2), Roles(), ["age"], 4)["models"]
    [{'model': 'KAnonymity', 'params': {'k': 2}}]
    """
    from pdanon.models.record import record

    return {"algorithm": algorithm, "method": "generalize", "model": model.name,
            "params": model.params(), "models": record(model), "quasi_identifiers": qnames,
            "dropped_identifiers": list(roles.identifiers), "rows": n}
