"""Why each row of an anonymized frame looks the way it does (``out.anon.explain(df)``).

For every row of the input, :func:`explain` reports its published equivalence class, the
quasi-identifier cells that were generalized, aggregated or suppressed, and which part of the
privacy model forced the change. It is computed on demand from the published frame, the input
frame and the model, never stored: ``out.anon.info`` travels with the frame (``attrs``, Parquet
metadata) and must not carry per-row facts about values the release hides.

The table is for the publisher only: beside the release it gives original values back (after
``method="aggregate"`` on a binary column, ``aggregated`` marks exactly the rows whose value
is not the published mode; ``suppressed`` tells a withheld cell from a missing one; a
``reason`` of ``"k"`` says a row's combination was rarer than k). :func:`explain` returns an
:class:`Explanation`, a DataFrame that says so when shown and warns
(:class:`~pdanon.PublisherOnlyWarning`) when written to a file, as does a release joined with
it; ``check()``, publishing, the report and pdanon's writers refuse both
(:mod:`pdanon.publisher_only`).

Columns of the result (indexed like the input):

``class_id``
    The row's published equivalence class: the label ``out.anon.equivalence_classes()`` gives
    it. The suppressed rows (every quasi-identifier blank) share the same blank cells: they
    are one class, with any row published blank anyway (see
    :mod:`pdanon.partition.suppressed`).
``class_size``
    Rows of that class, as the engine verified the model on it (suppressed rows included).
``generalized`` / ``aggregated`` / ``suppressed``
    The quasi-identifier columns (comma-separated, in column order; ``""`` for none) whose
    published cell differs from the row's original value: replaced by a range, a set or a
    hierarchy label containing it (``generalized``), by its group's mean, median or mode
    (``aggregated``: ``method="aggregate"``), or made missing (``suppressed``; a cell that was
    missing in the input and still is counts as unchanged).
``row_suppressed``
    Every quasi-identifier of the row is missing and at least one of them was suppressed (the
    rows counted in ``info["suppressed_rows"]``).
``reason``
    Why the row was changed (missing, ``NaN``, when none of its quasi-identifier cells
    changed). The
    row's *original combination* is the set of input rows with exactly its quasi-identifier
    values (its finest equivalence class). The model's parts are checked on the original
    combinations with their own ``classes_ok`` (as the engine verifies the output):

    * ``"k"``, ``"l"``, ``"t"`` (or another part's name, comma-separated when several): the
      original combination violates these parts — the row could not be published as it was;
      whatever happened to it (generalized, aggregated, cells or the whole row suppressed) was
      forced by them;
    * ``"suppression"``: the original combination satisfies the model, but the row was
      suppressed: its class at the chosen generalization violated the model (merging can break
      t-closeness, entropy l-diversity and other models that are not monotone) and the
      algorithm spent its suppression budget on it;
    * ``"global recoding"``: the original combination satisfies the model, but the algorithm
      recodes whole columns (``datafly``, ``optimal``): its cells were generalized with their
      column, for the sake of other rows;
    * ``"grouping"``: the original combination satisfies the model, but the algorithm
      (``mondrian``, ``nearest``, ``group_join``, ``equal_groups``, ``exact``) put the row in a
      group or pattern with rows that needed it.

The statistical offices' methods that guarantee k are explained too, with k as their model:

* ``df.anon.microaggregate(k)``: the microaggregated columns are the quasi-identifiers, their
  replaced cells are ``aggregated`` (group means, medians, modes); ``"k"`` marks rows whose
  original combination had fewer than k rows, ``"grouping"`` the others (MDAV puts every row
  in a group of at least k similar rows);
* ``df.anon.local_suppression(k)``: ``class_size`` is what local suppression guarantees, the
  number of rows the row's published cells match, a missing cell matching any value
  (sdcMicro's fk), and ``"k"`` marks rows whose original cells matched fewer than k rows (the
  only rows it changes).

Example
-------
>>> import pandas as pd, pdanon
>>> df = pd.DataFrame({"age": [30, 30, 31, 40, 40, 40]})
>>> out = df.anon.k_anonymize(2, algorithm="mondrian")
>>> ex = out.anon.explain(df)
>>> ex[["class_id", "class_size", "generalized", "reason"]]
pdanon explanation, for the publisher only: with the release it gives original values back
   class_id  class_size generalized    reason
0         0           3         age  grouping
1         0           3         age  grouping
2         0           3         age         k
3         1           3                   NaN
4         1           3                   NaN
5         1           3                   NaN

Age 31 is alone (fewer than k = 2 rows): ``"k"``. The two rows of age 30 were safe on their
own, but Mondrian cut the ages at their median and put them with 31: ``"grouping"``. The
rows of age 40 are published unchanged (no reason).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdanon._errors import InvalidInputError, UnknownColumnError
from pdanon._groups import class_labels, frequencies
from pdanon.encode import missing
from pdanon.publisher_only import FOR_PUBLISHER, WRITERS, guarded_writer

__all__ = ["Explanation", "explain", "model_from_info", "GLOBAL_RECODING", "PERTURBATIONS",
           "SHORT_NAMES"]

class ExplanationColumn(pd.Series):
    """A column of an :class:`Explanation`: a Series that warns when written out."""

    publisher_only_table = True  # pdanon.publisher_only.explanation_columns reads it

    @property
    def _constructor(self):
        return ExplanationColumn

    @property
    def _constructor_expanddim(self):
        return Explanation

    def __repr__(self) -> str:  # shown, not written: pandas' repr calls to_string
        return pd.Series(self, copy=False).__repr__()


class Explanation(pd.DataFrame):
    """What :func:`explain` returns: a pandas DataFrame (every DataFrame operation works, and
    the frames and columns taken from it are explanations too) for the publisher only. Its
    repr begins with :data:`FOR_PUBLISHER`; pandas' writers (``to_csv``, ``to_parquet``,
    ``to_html``, ``to_string`` and the other :data:`~pdanon.publisher_only.WRITERS`) warn with
    :class:`~pdanon.PublisherOnlyWarning`, also on a frame it was joined into
    (:func:`pdanon.publisher_only.guard_pandas_writers`); pdanon's writers and checks (the
    report, ``check()``, :func:`pdanon.io.csvsafe.write_csv`, the CLI) refuse it unless told
    ``publisher_only=True`` (:func:`pdanon.publisher_only.refuse_explanation`).

    Example
    -------
    >>> ex = Explanation({"reason": ["k", None]})
    >>> print(repr(ex.head(1)).splitlines()[0])
    pdanon explanation, for the publisher only: with the release it gives original values back
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = ex.to_csv()
    >>> caught[0].category.__name__
    'PublisherOnlyWarning'
    """

    publisher_only_table = True  # pdanon.publisher_only.explanation_columns reads it

    @property
    def _constructor(self):
        return Explanation

    @property
    def _constructor_sliced(self):
        return ExplanationColumn

    def __repr__(self) -> str:  # shown, not written: pandas' repr calls to_string
        return f"{FOR_PUBLISHER}\n{pd.DataFrame(self, copy=False).__repr__()}"

    def _repr_html_(self) -> str | None:
        from html import escape

        body = super()._repr_html_()
        return None if body is None else f"<p><strong>{escape(FOR_PUBLISHER)}</strong></p>{body}"


# a DataFrame's writers warn on an explanation (pdanon.publisher_only.guard_pandas_writers,
# run by import pdanon); a Series' writers are wrapped here, for an explanation's columns
for _name in WRITERS:
    if hasattr(pd.Series, _name):
        setattr(ExplanationColumn, _name, guarded_writer(_name, getattr(pd.Series, _name)))


#: algorithms that recode whole columns (a row is generalized with its column)
GLOBAL_RECODING = ("datafly", "optimal")
#: the ``reason`` token of a model part (other models: their ``name``)
SHORT_NAMES = {"k-anonymity": "k", "l-diversity": "l", "t-closeness": "t"}
_SEE = "pass model= (the privacy model the frame was anonymized with)"


def model_from_info(info: dict):
    """The privacy model an anonymizer recorded in ``info`` (``model`` and ``params``),
    rebuilt for k-anonymity, l-diversity and t-closeness; other models (and t-closeness over
    hierarchies, whose trees are not recorded) raise :class:`InvalidInputError`: pass the
    model yourself.

    Example
    -------
    >>> model_from_info({"model": "k-anonymity + l-diversity",
    ...                  "params": {"k": 2, "l": 2, "variant": "distinct"}})
    AllOf(KAnonymity(k=2), LDiversity(l=2))
    >>> model_from_info({"model": "l-diversity", "params": {"l": 2, "variant": "distinct",
    ...                                                     "missing_sensitive": "value"}})
    LDiversity(l=2, missing_sensitive='value')
    """
    from pdanon.models import AllOf, KAnonymity, LDiversity, TCloseness

    params = info.get("params") or {}
    rule = params.get("missing_sensitive", "unknown")  # how l and t read a blank cell
    parts = []
    for name in str(info.get("model", "")).split(" + "):
        if name == "k-anonymity":
            parts.append(KAnonymity(params["k"]))
        elif name == "l-diversity":
            parts.append(LDiversity(params["l"], variant=params.get("variant", "distinct"),
                                    c=params.get("c"), missing_sensitive=rule))
        elif name == "t-closeness" and params.get("distance") != "hierarchical":
            parts.append(TCloseness(params["t"], distance=params.get("distance", "emd"),
                                    missing_sensitive=rule))
        else:
            raise InvalidInputError(
                f"explain() cannot rebuild the model {name!r} from out.anon.info: {_SEE}")
    return parts[0] if len(parts) == 1 else AllOf(*parts)


#: perturbations that guarantee k, explained with k-anonymity as their model
PERTURBATIONS = ("microaggregate", "local_suppression")


def _quasi_identifiers(info: dict) -> list:
    if info.get("operation") == "microaggregate":
        return list(info.get("columns", {}))
    return list(info.get("quasi_identifiers", []))


def _check(out: pd.DataFrame, original, info: dict, qi: list) -> None:
    k_recorded = info.get("operation") in PERTURBATIONS and isinstance(info.get("k"), int)
    if not k_recorded and ("model" not in info or "quasi_identifiers" not in info):
        raise InvalidInputError(
            "explain() explains a frame returned by df.anon.k_anonymize / l_diversify / t_close "
            "/ anonymize / microaggregate / local_suppression (its anon.info names the model "
            "or k); this frame has no such record")
    if not isinstance(original, pd.DataFrame):
        raise InvalidInputError(
            f"original must be the DataFrame that was anonymized (out.anon.explain(df)), got "
            f"{type(original).__name__}")
    if len(original) != len(out) or not original.index.equals(out.index):
        raise InvalidInputError(
            "original must be the frame that was anonymized, with the same index and row order "
            f"as the output ({len(out)} rows); got {len(original)} rows"
            + ("" if len(original) != len(out) else " with another index"))
    absent = [c for c in qi if c not in original.columns or c not in out.columns]
    if absent:
        raise UnknownColumnError(
            f"quasi-identifier(s) {absent} are missing from original or from the output; pass "
            "the frame that was anonymized")


def _same_cells(before: pd.Series, after: pd.Series) -> np.ndarray:
    """Per row: is the published cell the original value (both present)?"""
    from pdanon.dtype import GeneralizationDtype

    if isinstance(after.dtype, GeneralizationDtype):
        arr = after.array
        if isinstance(before.dtype, GeneralizationDtype):  # chained: compare the cells' text
            return np.asarray(arr.to_text() == before.array.to_text(), dtype=bool)
        if isinstance(before.dtype, pd.CategoricalDtype):
            values = before.array
        elif pd.api.types.is_numeric_dtype(before.dtype):
            values = before.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            values = pd.Categorical(before.array)
        return np.asarray(arr.is_plain & arr.contains(values), dtype=bool)
    numeric = (pd.api.types.is_numeric_dtype(before.dtype)
               and pd.api.types.is_numeric_dtype(after.dtype)
               and not isinstance(before.dtype, pd.CategoricalDtype)
               and not isinstance(after.dtype, pd.CategoricalDtype))
    if numeric:
        a = before.to_numpy(dtype=np.float64, na_value=np.nan)
        b = after.to_numpy(dtype=np.float64, na_value=np.nan)
        return a == b
    both = np.concatenate([before.to_numpy(dtype=object), after.to_numpy(dtype=object)])
    codes, _ = pd.factorize(both, use_na_sentinel=True)
    n = len(before)
    return (codes[:n] == codes[n:]) & (codes[:n] >= 0)


def _joined(mask: np.ndarray, names: list) -> np.ndarray:
    """Per row, the names of the columns ``mask`` marks, comma-separated (one string built
    per distinct pattern, not per row)."""
    n, q = mask.shape
    if n == 0 or q == 0:
        return np.full(n, "", dtype=object)
    packed = np.ascontiguousarray(np.packbits(mask, axis=1))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    texts = np.array([", ".join(c for c, m in zip(names, mask[i]) if m) for i in first],
                     dtype=object)
    return texts[inverse.reshape(-1)]


def _reasons(original: pd.DataFrame, qi: list, model, sensitive: dict, changed: np.ndarray,
             row_suppressed: np.ndarray, algorithm: str, wildcard: bool = False) -> np.ndarray:
    """The ``reason`` of every row (module docstring), from the model's parts checked on the
    original combinations: one ``classes_ok`` per part over all of them, no loop over rows.
    ``wildcard``: k-anonymity as local suppression reads it (a missing cell matches any
    value), checked on every row's original matches."""
    from pdanon.distributions import ClassCounts

    parts = model.parts()
    if wildcard:
        finest = np.arange(len(original), dtype=np.int64)
        bits = (frequencies(original, qi, missing="wildcard") < model.k).astype(np.int64)
    else:
        finest = class_labels(original, qi)
        context = (model.context(original, sensitive)
                   if sensitive and model.requirements().sensitive else None)
        classes = ClassCounts.from_labels(finest, context)
        bits = np.zeros(classes.groups, dtype=np.int64)
        for j, part in enumerate(parts):
            bits |= (~np.asarray(part.classes_ok(classes), dtype=bool)).astype(np.int64) << j
    code = bits[finest]  # > 0: the failing parts of the row's original combination
    code[code == 0] = -3 if algorithm in GLOBAL_RECODING else -4
    code[(bits[finest] == 0) & row_suppressed] = -2
    code[~changed] = -1
    text = {-1: None, -2: "suppression", -3: "global recoding", -4: "grouping"}
    values, inverse = np.unique(code, return_inverse=True)
    for v in values[values > 0].tolist():
        text[v] = ", ".join(SHORT_NAMES.get(p.name, p.name) for j, p in enumerate(parts)
                            if v >> j & 1)
    return np.array([text[v] for v in values.tolist()], dtype=object)[inverse.reshape(-1)]


def explain(out: pd.DataFrame, original: pd.DataFrame, *, info: dict, sensitive: dict,
            model=None) -> Explanation:
    """Per row of ``original``: its published class, changed cells and the reason (module
    docstring), as an :class:`Explanation` (for the publisher only), indexed like
    ``original`` and in its order (a release in a random order is matched through its
    publisher-only way back; its own labels are not used, so joining the explanation to the
    release pairs no rows). ``out`` is the
    anonymized frame, ``info`` its ``out.anon.info``, ``sensitive`` its sensitive columns
    ``{name: kind}``; ``model`` the privacy model (default: rebuilt from ``info`` by
    :func:`model_from_info`). Neither frame is modified.
    """
    from pdanon.models import KAnonymity

    qi = _quasi_identifiers(info)
    if isinstance(original, pd.DataFrame) and not original.index.equals(out.index):
        from pdanon.publisher_only import input_rows

        at = input_rows(out, original)  # a release in a random order: the way back
        if at is not None:  # explained per row of the original, in its order and index
            order = np.argsort(at, kind="stable")
            original = original.iloc[at[order]]
            out = out.iloc[order].set_axis(original.index)
    _check(out, original, info, qi)
    operation = info.get("operation")
    if model is None:
        model = KAnonymity(info["k"]) if operation in PERTURBATIONS else model_from_info(info)
    wildcard = operation == "local_suppression"
    if wildcard and not isinstance(model, KAnonymity):
        raise InvalidInputError("local suppression guarantees k-anonymity only: pass no model= "
                                "(or KAnonymity(k))")
    n = len(out)
    aggregate = info.get("method") == "aggregate" or operation == "microaggregate"
    suppressed = np.zeros((n, len(qi)), dtype=bool)
    recoded = np.zeros((n, len(qi)), dtype=bool)
    for j, c in enumerate(qi):
        before, after = original[c], out[c]
        gone = missing(after)
        suppressed[:, j] = gone & ~missing(before)
        recoded[:, j] = ~gone & ~_same_cells(before, after)
    all_blank = np.ones(n, dtype=bool)
    for c in qi:
        all_blank &= missing(out[c])
    row_suppressed = all_blank & suppressed.any(axis=1)
    labels = class_labels(out, qi) if qi else np.zeros(n, dtype=np.int64)
    sizes = np.bincount(labels, minlength=int(labels.max(initial=-1)) + 1)
    row_sizes = sizes[labels]
    if wildcard:  # what local suppression guarantees: the rows each row's cells match
        row_sizes = frequencies(out, qi, missing="wildcard")
    none = np.zeros((n, len(qi)), dtype=bool)
    result = pd.DataFrame({
        "class_id": labels.astype(np.int64),
        "class_size": np.asarray(row_sizes, dtype=np.int64),
        "generalized": _joined(none if aggregate else recoded, qi),
        "aggregated": _joined(recoded if aggregate else none, qi),
        "suppressed": _joined(suppressed, qi),
        "row_suppressed": row_suppressed,
        "reason": _reasons(original, qi, model, sensitive, recoded.any(axis=1)
                           | suppressed.any(axis=1), row_suppressed,
                           str(info.get("algorithm", operation or "")), wildcard),
    }, index=out.index)
    for c in ("generalized", "aggregated", "suppressed", "reason"):
        result[c] = result[c].astype("str")
    return Explanation(result)
