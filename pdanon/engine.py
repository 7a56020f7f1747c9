"""The engine behind every face: (partitioner, privacy model, recoder).

:func:`anonymize` validates the request, encodes the quasi-identifiers, asks a partitioner
(:mod:`pdanon.partition`) for groups, recodes them (:mod:`pdanon.recode`), verifies the privacy
model on the output, and reports what it did. The accessor, the classic classes and the command
line all call it; no algorithm lives anywhere else.

Example
-------
>>> import pandas as pd
>>> from pdanon.roles import resolve_roles
>>> df = pd.DataFrame({"age": [30, 31, 40, 42]})
>>> out, info = anonymize(df, resolve_roles(df), model=KAnonymity(2), method="suppress",
...                       algorithm="nearest")
>>> out["age"].tolist(), info["changed_cells"]
([nan, nan, nan, nan], 4)
"""

from __future__ import annotations

import copy
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdanon import progress as _progress
from pdanon import recode
from pdanon.recode import bounds
from pdanon.encode import encode_table
from pdanon._errors import InvalidInputError, KindError, SingleClassWarning, user_stacklevel
from pdanon.models import AllOf, KAnonymity, PrivacyModel
from pdanon.models.record import record as record_model
from pdanon.partition import PARTITIONERS, Partition, auto
from pdanon.partition.auto import AUTO_MONDRIAN_ROWS  # noqa: F401  (documented here)
from pdanon.roles import Roles, validate_qi_values

__all__ = ["AllOf", "KAnonymity", "Partitioning", "algorithms", "anonymize", "model_context",
           "partition"]


def _load_partitioners() -> None:
    # importing the modules registers them
    from pdanon.partition import datafly, equal_groups, mondrian, nearest, optimal  # noqa: F401
    from pdanon.partition import exact, group_join, safepub  # noqa: F401


def algorithms() -> list[str]:
    """Names accepted by ``algorithm=``: every registered partitioner and ``"auto"``."""
    _load_partitioners()
    return sorted([*PARTITIONERS, "auto"])


def _check_method(method: str) -> None:
    if method not in recode.METHODS:
        raise InvalidInputError(
            f"unknown method {method!r}; use one of {list(recode.METHODS)}"
        )


def _check_algorithm(algorithm: str) -> None:
    names = algorithms()
    if algorithm not in names:
        raise InvalidInputError(f"unknown algorithm {algorithm!r}; use one of {names}")


@dataclass
class Partitioning:
    """What :func:`partition` did: the partitioner's result (a
    :class:`~pdanon.partition.Partition` or a :class:`~pdanon.recode.Recoded`), the encoded
    table, the model's context, the partitioner that ran and, for ``"auto"``, why."""

    result: object
    encoded: object
    context: object
    algorithm: str
    reason: str = ""


def partition(df: pd.DataFrame, roles: Roles, *, model: PrivacyModel, method: str,
              algorithm: str, progress=None, **options) -> Partitioning:
    """Steps 1-3 of :func:`anonymize` — validate, encode, choose and run the partitioner —
    without recoding or verifying: for a face that needs the groups themselves (the classic
    GroupJoin metric's group lists). ``df`` must have at least one row. ``progress`` as in
    :func:`anonymize`.

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"age": [30, 31, 40, 42]})
    >>> run = partition(df, resolve_roles(df), model=KAnonymity(2), method="generalize",
    ...                 algorithm="auto")
    >>> run.algorithm, run.result.labels.tolist()
    ('nearest', [0, 0, 1, 1])
    """
    _check_method(method)
    _check_algorithm(algorithm)
    progress_setting = _progress.check(progress)
    model.check_feasible(df, roles)
    validate_qi_values(df, roles.quasi_identifiers)  # {column: kind}: real ones must be finite
    context = model_context(model, df, roles)
    if method == "aggregate":
        for c in roles.qi:
            if getattr(df[c].dtype, "name", "").startswith("generalization"):
                raise KindError(f"column {c!r} is already generalized; cannot aggregate ranges")
    enc = encode_table(df, roles)
    reason = ""
    if algorithm == "auto":
        algorithm, reason = auto.choose(enc, model, options)
        if algorithm == "nearest":
            options.pop("max_suppressed_rows", None)  # nearest never suppresses
    partitioner = PARTITIONERS[algorithm]
    partitioner.check_model(model)
    if "seed" not in partitioner.options:
        options.pop("seed", None)  # deterministic algorithms need no seed
    partitioner.check_options(options)
    with _progress.setting(progress_setting):  # the partitioners' bars read it (progress.py)
        result = partitioner(enc, model, method=method, frame=df, context=context, **options)
    return Partitioning(result, enc, context, algorithm, reason)


def anonymize(df: pd.DataFrame, roles: Roles, *, model: PrivacyModel, method: str,
              algorithm: str, progress=None, allow_channels=None,
              **options) -> tuple[pd.DataFrame, dict]:
    """Anonymize ``df`` and return ``(new_frame, info)``.

    The new frame has the input's index and row order; identifier columns are dropped,
    quasi-identifiers recoded, every other column unchanged except that no column's dtype
    lists a category that none of its published cells needs
    (:func:`pdanon.recode.published_categories`). ``info`` holds the algorithm,
    method, model parameters, changed cells, suppressed rows, group count, achieved levels and
    the elapsed seconds.

    ``progress`` (keyword-only, not a partitioner option): ``None`` draws the partitioner's
    bar (every partitioner has one) for long runs in a terminal or notebook, ``True`` always,
    ``False`` never (see :mod:`pdanon.progress`).

    A local recoding's ranges (``method="generalize"``) end on no value held by fewer than
    k rows of its column: such a bound is widened (:func:`pdanon.recode.bounds.widen_published`)
    unless ``options={"exact_bounds": True}``; ``info["bounds"]`` says which rule applied.

    Before returning, every column published unchanged is tested as a channel
    (:func:`pdanon.screening.channels.guard`): one whose value determines a quasi-identifier the
    release hid raises :class:`~pdanon.ChannelError`, unless ``allow_channels`` names it.
    """
    started = time.perf_counter()
    _check_method(method)
    _check_algorithm(algorithm)
    n = len(df)
    keep = [c for c in df.columns if c not in set(roles.identifiers)]
    info = {
        "algorithm": algorithm,
        "method": method,
        "model": model.name,
        "params": model.params(),
        # the parts verified, as a later step rebuilds them (pdanon.models.record)
        "models": record_model(model),
        "quasi_identifiers": list(roles.qi),
        "dropped_identifiers": list(roles.identifiers),
        "rows": n,
        "groups": 0,
        "changed_cells": 0,
        "suppressed_rows": 0,
        "suppressed_cells": 0,
    }
    if n == 0:
        if hasattr(model, "accounting"):  # a DP release of nothing still states its terms
            info["dp"] = model.accounting(steps=0, epsilon_per_step=0.0,
                                          epsilon_final_choice=model.epsilon_search)
            info["rows_match_input"] = False
        info["seconds"] = time.perf_counter() - started
        return recode.publish_frame(df[keep].copy()), info
    if not roles.qi:
        raise InvalidInputError(
            "no quasi-identifier columns: pass quasi_identifiers=[...] (or roles that leave at "
            "least one column as a quasi-identifier)"
        )
    attrs = df.attrs
    if attrs:  # every column lookup deep-copies attrs: work on a shallow view without them
        df = df.copy(deep=False)
        df.attrs = {}
    calendar = options.pop("calendar", None) or {}
    exact_bounds = check_exact_bounds(options.pop("exact_bounds", False))
    seen = df
    if calendar:  # the partitioner sees each date as its unit's first day (pdanon.calendar)
        from pdanon import calendar as _calendar

        calendar = _calendar.check_calendar(calendar, df, roles.quasi_identifiers, method)
        seen = df.assign(**{c: _calendar.unit_starts(df[c], u) for c, u in calendar.items()})
        info["calendar"] = dict(calendar)
    run = partition(seen, roles, model=model, method=method, algorithm=algorithm,
                    progress=progress, **options)
    if calendar and not isinstance(run.result, Partition):
        raise InvalidInputError(
            f"calendar= needs an algorithm that partitions rows (mondrian, nearest, "
            f"group_join, ...), not {run.algorithm!r}; with algorithm='optimal' "
            f"or generalize, use the dates() hierarchy, which publishes whole units")
    enc, context, result = run.encoded, run.context, run.result
    if isinstance(result, Partition) and method == "generalize" and exact_bounds:
        _warn_exact_birth_dates(df, roles, calendar)
    if run.reason:
        info["algorithm"] = run.algorithm
        info["requested_algorithm"] = algorithm
    if "seed" in PARTITIONERS[run.algorithm].options:  # randomized: say how, never the seed
        seed = options.get("seed")
        info["random_source"] = (
            "pdanon's fixed default (the same call gives the same table)" if seed is None
            else "generator given" if isinstance(seed, np.random.Generator)
            else "given by the caller (not recorded)")
    note = "; ".join(x for x in (f"auto: {run.reason}" if run.reason else "", result.note) if x)
    info.update(result.info)
    suppressed = None

    out = df[keep].copy()
    req = model.requirements()
    bound_k = max(req.min_size, req.min_distinct)
    if isinstance(result, recode.Recoded):
        widened = _widen_recoded(result, seen, enc, bound_k,
                                 exact_bounds or method != "generalize")
        for c, col in result.columns.items():
            out[c] = col
        if result.data_bounds and method == "generalize":
            info["bounds"] = _bounds_info(exact_bounds, bound_k, widened)
        info["changed_cells"] = int(result.changed)
        suppressed = result.suppressed
    else:
        groups: Partition = result
        changed = 0
        widened: dict = {}
        for col in enc.columns:
            new, count = recode.recode_column(method, seen[col.name], col, groups.labels,
                                              groups.order)
            if col.name in calendar:  # whole units; no cell keeps a record's own date
                new = _calendar.widen_to_units(new, df[col.name], calendar[col.name])
                count = int(df[col.name].notna().sum())
            elif method == "generalize" and not col.generalized and not exact_bounds:
                # no bound held by fewer than k rows of the column (pdanon.recode.bounds)
                new, grown = bounds.widen_published(new, seen[col.name], bound_k)
                if grown:
                    widened[col.name] = grown
            out[col.name] = new
            changed += count
        if method == "generalize":
            info["bounds"] = _bounds_info(exact_bounds, bound_k, widened)
        if groups.suppressed is not None and groups.suppressed.any():
            rows = groups.suppressed
            for c in roles.qi:
                before = out[c].isna().to_numpy()
                out[c] = out[c].mask(rows)
                changed += int((rows & ~before).sum())
            suppressed = rows
        info["partitions"] = groups.groups
        info["changed_cells"] = changed
    if note:
        info["note"] = note
    source_rows = df  # the input rows behind the output's rows
    release = getattr(result, "release_rows", None)
    if release is not None:  # a sample is published (differential privacy): its rows only
        out = out.iloc[release].reset_index(drop=True)
        source_rows = df.iloc[release].reset_index(drop=True)
        suppressed = np.zeros(len(out), dtype=bool)
        info["rows"] = len(out)
        info.pop("changed_cells", None)  # counted on the input's rows, not the sample's
        # row i of the release is not row i of the input: nothing compares them row by row
        info["rows_match_input"] = False
    recode.publish_frame(out)  # categories of suppressed / merged-away values are not published
    out_roles = roles.restricted_to(out.columns)
    labels = _labels(out, out_roles.qi)  # the classes of the published frame
    if suppressed is None:
        suppressed = np.zeros(n, dtype=bool)
    # every published class is verified, the suppressed rows' too: they publish the same
    # blank cells, so they are one class (with any row blank anyway), which must meet the
    # model like any other (pdanon.partition.suppressed)
    kept, sub = labels, context
    population = _population_counts(model, out, roles.qi, result, suppressed, kept)
    classes = _verify_groups(model, kept, sub, suppressed.any(), population)
    if method == "generalize":
        _verify_truthful(source_rows, out, roles.qi, None if release is not None else enc,
                         coarsened=calendar)
    sizes = np.bincount(kept)
    achieved = model.achieved(classes) if classes is not None else (
        model.groups_achieved(kept, sub) if len(kept) else {})
    info["achieved"] = {"k": int(sizes.min()) if len(sizes) else 0, **achieved}
    info["groups"] = len(sizes)  # equivalence classes of the published (not suppressed) rows
    info["suppressed_rows"], info["suppressed_cells"] = _suppressed(source_rows, out, roles.qi)
    if len(sizes) == 1:
        _warn_single_class(int(sizes[0]), model, enc, run.algorithm, method,
                           info.get("partitions", 1))
    from pdanon.screening import channels

    req = model.requirements()
    channels.guard(source_rows, out, roles.qi, info, k=max(req.min_size, req.min_distinct),
                   allow_channels=allow_channels, sensitive=roles.sensitive)
    out.attrs = copy.deepcopy(attrs)
    info["seconds"] = time.perf_counter() - started
    if release is not None:  # how long the input took to process is not published either
        from pdanon.publisher_only import PublisherOnly

        info["publisher_only"] = PublisherOnly({**info.get("publisher_only", {}).facts(),
                                                "seconds": info.pop("seconds")})
    return out, info


def _widen_recoded(result, seen: pd.DataFrame, enc, k: int, exact: bool) -> dict:
    """Widen, in place, the ranges of a global recoding that the partitioner read off the data
    (``result.data_bounds``: Datafly's and equal groups' value groups, an undeclared hierarchy
    level of optimal such as the ``*`` of a column without a hierarchy), as a local recoding's
    (:func:`pdanon.recode.bounds.widen_published`). Widening is a function of the cell, so a
    value keeps one cell (the recoding stays global) and the population cells, recoded the
    same way, still match. Returns ``{column: cells widened}``."""
    widened: dict = {}
    if exact or not result.data_bounds:
        return widened
    given = {col.name for col in enc.columns if col.generalized}
    for name in result.data_bounds:
        if name in given or name not in result.columns:
            continue
        new, grown = _widen_like(result.columns[name], seen[name], k)
        if not grown:
            continue
        result.columns[name] = new
        widened[name] = grown
        if result.population is not None and name in result.population:
            result.population[name] = _widen_like(result.population[name], seen[name], k)[0]
    return widened


def _widen_like(cells, original: pd.Series, k: int):
    """``(cells widened with the column's counts, cells widened)``, in the type given (a
    Series or an array: optimal returns arrays); population cells get the same function of
    the cell as the published ones."""
    if isinstance(cells, pd.Series):
        return bounds.widen_published(cells, original, k)
    new, grown = bounds.widen_published(pd.Series(cells), original, k)
    return new.array, grown


def check_exact_bounds(value) -> bool:
    """``options['exact_bounds']`` checked: True or False, else a clear error."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidInputError(
            f"exact_bounds must be True or False, got {value!r} (options={{'exact_bounds': "
            f"True}} keeps bounds held by fewer than k rows; see pdanon.recode.bounds)")
    return bool(value)


def _bounds_info(exact: bool, k: int, widened: dict) -> dict:
    """``info["bounds"]``: which rule the published ranges' bounds follow (pdanon.recode.bounds)."""
    if exact:
        warnings.warn(
            "exact_bounds=True: the published ranges end on exact values of the data, some "
            f"held by fewer than {k} rows (a column's extremes are often one person's value); "
            "leave the option out to widen them (pdanon.recode.bounds)", bounds.ExactBoundsWarning,
            stacklevel=user_stacklevel())
        return {"rule": "exact", "k": k}
    return {"rule": f"no bound held by fewer than {k} rows", "k": k,
            "widened_cells": {c: int(n) for c, n in widened.items()}}


def _warn_exact_birth_dates(df: pd.DataFrame, roles: Roles, calendar: dict) -> None:
    """A date of birth that a local recoding publishes as ranges with ``exact_bounds``
    shows exact dates as their bounds (each class's first and last birthday): say so, with
    the fixes, unless calendar cuts publish whole units."""
    from pdanon.screening import BIRTH_WORDS, words

    found = [c for c in roles.quasi_identifiers if c not in calendar and words(c) & BIRTH_WORDS
             and (pd.api.types.is_datetime64_any_dtype(df[c].dtype)
                  or isinstance(df[c].dtype, pd.PeriodDtype))]
    if found:
        import warnings

        from pdanon._errors import KindWarning, user_stacklevel

        c = found[0]
        warnings.warn(
            f"quasi-identifier {c!r} looks like a date of birth, and this algorithm publishes "
            f"ranges whose bounds are exact dates (every class shows its first and last "
            f"birthday); publish whole units instead: options={{'calendar': {{{c!r}: "
            f"'year'}}}} (pdanon anonymize --calendar {c}=year), a dates() hierarchy with "
            f"algorithm='optimal', or the year alone", KindWarning, stacklevel=user_stacklevel())


def model_context(model: PrivacyModel, df: pd.DataFrame, roles: Roles):
    """The encoded sensitive columns a model checks classes against (``None`` when it reads
    none, or there is no sensitive column)."""
    if not roles.sensitive or not model.requirements().sensitive:
        return None
    return model.context(df, dict(roles.sensitive))


def _verify_groups(model: PrivacyModel, kept: np.ndarray, sub, some_suppressed: bool,
                   population=None):
    """Every class of the published rows (computed from the output frame; the suppressed
    rows are one of them) meets the model, and so does the table (``table_ok``). ``population``: the
    population rows per published class and in all, for a population model. Returns the
    :class:`~pdanon.distributions.ClassCounts` checked when the model needed one built here
    (a population or a table-level condition), else None."""
    from pdanon._errors import VerificationError
    from pdanon.distributions import ClassCounts

    classes = None
    if population is not None or model.requirements().table:
        per_class, total, shared = population if population is not None else (None,) * 3
        classes = ClassCounts.from_labels(kept, sub, groups=int(kept.max()) + 1 if len(kept)
                                          else 0)
        classes.population, classes.population_rows = per_class, total
        classes.population_shared = shared
        ok = np.asarray(model.classes_ok(classes), dtype=bool)
        ok = ok if model.table_ok(classes) else np.zeros(max(len(ok), 1), dtype=bool)
    elif not len(kept):
        return None
    else:
        ok = np.asarray(model.groups_ok(kept, sub), dtype=bool)
    if not ok.all():
        raise VerificationError(
            f"the output does not satisfy {model!r}"
            + (" (the suppressed rows, a class of their own, included)" if some_suppressed
               else "")
            + "; this is a bug in pdanon (or a model of your own that merging classes can "
            "break), please report it"
        )
    return classes


def _population_counts(model: PrivacyModel, out: pd.DataFrame, qi, result, suppressed,
                       kept):
    """``(population rows per published class, population rows, shared)`` for a model read
    against a population table, or None. A globally recoding partitioner returns the
    population recoded as the output (``Recoded.population``): its cells must contain the
    population's values, and each population row counts in the published class with the same
    cells (suppressed rows form none; ``shared`` is None: classes are disjoint). Otherwise
    (local recoding) a population row counts in every published class whose cells contain
    its values (:func:`pdanon.containment.population_matches`), and ``shared`` gives, per
    class, the most classes one of its population rows matches (δ-presence reads it)."""
    from pdanon._errors import VerificationError
    from pdanon.containment import population_matches
    from pdanon.models.population import population_table

    if not model.requirements().population:
        return None
    table = population_table(model)
    if table is None:
        raise VerificationError(
            f"{model!r} needs a population table, which none of its parts holds; this is a "
            "bug in pdanon, please report it")
    published = out.loc[:, list(qi)]
    groups = int(kept.max()) + 1 if len(kept) else 0
    cells = getattr(result, "population", None)
    shared = None
    if cells is None:
        per_class, shared = population_matches(published, kept, table, qi, shared=True)
    else:
        recoded = pd.DataFrame({c: cells[c] for c in qi}, index=table.index)
        _verify_truthful(table, recoded, qi)
        joint = _labels(pd.concat([published, recoded], ignore_index=True), qi)
        m = len(published)
        to_kept = np.full(int(joint.max()) + 1 if len(joint) else 0, -1, dtype=np.int64)
        to_kept[joint[:m]] = kept
        cls = to_kept[joint[m:]]
        per_class = np.bincount(cls[cls >= 0], minlength=groups)
    blank = published.isna().all(axis=1).to_numpy()
    if blank.any():
        # the class of the rows that publish no quasi-identifier (the suppressed ones, and any
        # blank anyway): it could be anyone, so it matches every population row
        per_class[int(kept[np.flatnonzero(blank)[0]])] = len(table)
    if (per_class < np.bincount(kept, minlength=groups)).any():
        raise VerificationError(
            "a published class holds more rows than the population rows it matches; this is "
            "a bug in pdanon, please report it")
    return per_class, len(table), shared


def _suppressed(df: pd.DataFrame, out: pd.DataFrame, qi) -> tuple[int, int]:
    """``(rows, cells)``: quasi-identifier cells blank in ``out`` that were not blank in
    ``df`` (suppressed cells), and rows whose every quasi-identifier is blank with at least
    one of them suppressed (suppressed rows: they publish no quasi-identifier)."""
    from pdanon.encode import missing

    n = len(df)
    blanked = np.zeros(n, dtype=np.int64)
    blank = np.ones(n, dtype=bool)
    for c in qi:
        after = missing(out[c])
        blanked += after & ~missing(df[c])
        blank &= after
    return int((blank & (blanked > 0)).sum()), int(blanked.sum())
#: algorithms the single-class warning suggests (those other than the one that ran)
ALTERNATIVES = {"mondrian": "mondrian (local multidimensional cuts)",
                "group_join": "group_join (agglomerative, slower)",
                "optimal": "optimal (with hierarchies=)"}


def single_class_expected(rows: int, model: PrivacyModel, enc) -> bool:
    """Is one class of ``rows`` published rows the only possible outcome? Yes when the rows
    cannot make two classes of the model's smallest class (``rows <= 2 * m``, ``m`` the
    larger of the model's ``min_size`` and ``min_distinct``), or when every row has the same
    quasi-identifiers. Otherwise :func:`anonymize` warns (:class:`SingleClassWarning`).

    Example
    -------
    >>> import pandas as pd
    >>> from pdanon.roles import resolve_roles
    >>> df = pd.DataFrame({"age": [30, 31, 40, 42, 50, 51]})
    >>> enc = encode_table(df, resolve_roles(df))
    >>> single_class_expected(6, KAnonymity(3), enc), single_class_expected(6, KAnonymity(2), enc)
    (True, False)
    """
    req = model.requirements()
    if rows <= 2 * max(req.min_size, req.min_distinct, 1):
        return True
    return all(len(col.codes) == 0 or col.codes.min() == col.codes.max() for col in enc.columns)


def _warn_single_class(rows: int, model: PrivacyModel, enc, algorithm: str, method: str,
                       partitions: int) -> None:
    if single_class_expected(rows, model, enc):
        return
    if partitions > 1:  # the recoding, not the partitioner, made the groups identical
        reason = (f"{algorithm} found {partitions} groups, but method={method!r} gave them "
                  "the same cells; method='generalize' keeps them apart")
    else:
        others = [text for name, text in ALTERNATIVES.items() if name != algorithm]
        reason = (f"no finer grouping {algorithm} tried satisfies {model!r}. "
                  f"{', '.join(others[:-1])} or {others[-1]} may find more classes; or relax "
                  "the model")
    warnings.warn(
        f"{algorithm} published ONE equivalence class of all {rows} rows (every row has the "
        f"same quasi-identifier cells): {reason}",
        SingleClassWarning, stacklevel=user_stacklevel())


def _labels(out: pd.DataFrame, qi) -> np.ndarray:
    from pdanon._groups import class_labels

    return class_labels(out, qi)


def _verify_truthful(df: pd.DataFrame, out: pd.DataFrame, qi, enc=None, coarsened=()) -> None:
    """Every published range or set contains the original value of its cell (``enc``'s
    codes stand for the original values, except in the ``coarsened`` columns)."""
    from pdanon._errors import VerificationError
    from pdanon.dtype import GeneralizationDtype

    encoded = {c.name: c for c in enc.columns if c.name not in coarsened} if enc is not None \
        else {}
    for c in qi:
        before, after = df[c], out[c]  # one lookup each: every lookup deep-copies attrs
        if not isinstance(after.dtype, GeneralizationDtype):
            continue
        if isinstance(before.dtype, GeneralizationDtype):
            continue  # chained generalization: checked against the plain values upstream
        arr = after.array
        col = encoded.get(c)
        if isinstance(before.dtype, pd.CategoricalDtype):
            values = before.array
        elif pd.api.types.is_numeric_dtype(before.dtype):
            values = before.to_numpy()
        elif col is not None and not col.generalized:
            # the codes are already known: no second hash pass over the strings
            values = pd.Categorical.from_codes(col.value_codes, categories=col.categories)
        else:
            # one hash pass; far cheaper than boxing a million strings into Python objects
            values = pd.Categorical(before.array)
        ok = arr.contains(values) | arr.isna()
        if not ok.all():
            bad = df.index[np.flatnonzero(~ok)[0]]
            raise VerificationError(
                f"column {c!r}: the generalized cell at index {bad!r} does not contain the "
                "original value; this is a bug in pdanon, please report it"
            )
