"""The classic ``Depersonalizator`` interface and the bridge from index lists to the engine.

The reference library (cp2025) describes columns by *position*: ``depersonalize(df,
identifiers_ids=None, quasi_identifiers_ids='left', sensitives_ids=None)`` takes a list of
rows, a numpy array or a DataFrame, splits it into identifier / quasi-identifier / sensitive
blocks (object arrays), lets the algorithm (``__depersonalize__``) recode them and stitches the
result back together in the input's column order. This module does the same splitting and
stitching; the algorithms themselves are thin wrappers over :func:`pdanon.engine.anonymize`
(:func:`run_engine`) and :mod:`pdanon.perturb`.

Conversions done by :func:`run_engine`:

* ``real`` quasi-identifiers are passed as numbers; ``ordered`` ones as their positions in the
  sorted column and ``unordered`` ones as first-appearance codes, so any sortable (ordered) or
  hashable (unordered) Python value works, whatever its type;
* the engine's output is turned back into the reference's object cells: an unchanged cell is
  the very object of the input, a suppressed cell is ``nan``, a generalized cell a
  :class:`~pdanon.dtype.GeneralizationRange` over the original values, an aggregated cell the
  group's mean (real) or one of the group's values (ordered, unordered).

Example
-------
>>> from pdanon.algorithms import SuppressionKAnonymityTimeOptimal
>>> SuppressionKAnonymityTimeOptimal(2).depersonalize([[1, "a"], [1, "b"], [2, "c"], [2, "c"]])
([[1, nan], [1, nan], [2, 'c'], [2, 'c']], 2)
"""

from __future__ import annotations

import numbers
import warnings
from abc import ABC, abstractmethod

import numpy as np
import pandas as pd

from pdanon.recode import bounds
from pdanon._errors import InfeasibleError, InvalidInputError, KindError, user_stacklevel
from pdanon.recode.bounds import ExactBoundsWarning

KINDS = ("real", "ordered", "unordered")

__all__ = ["Depersonalizator", "block_frame", "check_kinds", "fill_left_columns_ids",
           "partition_rows", "recode_groups", "run_engine"]


# ============================================================================ index lists


def fill_left_columns_ids(size: int, other_list_1, other_list_2) -> list:
    """The column positions ``0..size-1`` named in neither list (what ``'left'`` stands for).

    Example
    -------
    >>> fill_left_columns_ids(5, [0], [3])
    [1, 2, 4]
    """
    taken = set(_as_ids(other_list_1, size, "ids")) | set(_as_ids(other_list_2, size, "ids"))
    return [i for i in range(size) if i not in taken]


def _as_ids(ids, ncols: int, what: str) -> list:
    if ids is None:
        return []
    if isinstance(ids, str):
        raise InvalidInputError(f"{what} must be a list of column positions or 'left', got {ids!r}")
    if isinstance(ids, numbers.Integral):
        ids = [ids]
    out = []
    for i in list(ids):
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral):
            raise InvalidInputError(
                f"{what} must hold integer column positions, got {i!r}; the classic API names "
                "columns by position (0 = first column)")
        i = int(i)
        if not -ncols <= i < ncols:
            raise InvalidInputError(
                f"{what} names column {i}, but the table has {ncols} column(s) (0..{ncols - 1})")
        out.append(i % ncols)
    return out


class _DefaultLeft(str):
    """The default ``quasi_identifiers_ids='left'``: equal to ``'left'``, but it tells that
    nobody chose these columns, so they are examined first (:func:`screen_default_left`)."""


#: ``depersonalize``'s default for ``quasi_identifiers_ids`` (a ``'left'`` nobody wrote)
DEFAULT_LEFT = _DefaultLeft("left")


def screen_default_left(table: np.ndarray, labels, qis: list) -> None:
    """Refuse, with :class:`pdanon.RoleError`, quasi-identifier columns that got their role
    from the default ``'left'`` and look like they identify people (:mod:`pdanon.screening`:
    an identifier-like label, free text, a date of birth, unique values): the reference would
    publish them generalized, names in sets."""
    from pdanon import screening
    from pdanon._errors import RoleError

    if not qis or not len(table):
        return
    frame = pd.DataFrame({(labels[i] if labels is not None else i): pd.Series(
        table[:, i], dtype=object).infer_objects() for i in qis})
    found = screening.suspects(frame, frame.columns)
    if found:
        where = {(labels[i] if labels is not None else i): i for i in qis}
        nums = [where[f.column] for f in found]
        listed = "; ".join(f"column {where[f.column]}"
                           + (f" ({f.column!r})" if labels is not None else "")
                           + f": {f.evidence}" for f in found)
        raise RoleError(
            f"quasi_identifiers_ids was left at its default 'left', and column(s) {nums} look "
            f"like they identify people: {listed}. Pass identifiers_ids={nums} to drop them, "
            f"or name the quasi-identifiers yourself (quasi_identifiers_ids=[...]).")


def resolve_ids(ncols: int, identifiers_ids, quasi_identifiers_ids, sensitives_ids):
    """The three position lists, with ``'left'`` expanded (at most one may be ``'left'``)."""
    given = [identifiers_ids, quasi_identifiers_ids, sensitives_ids]
    lefts = sum(isinstance(x, str) and x == "left" for x in given)
    if lefts > 1:
        raise ValueError("There can be only one ids with value 'left'")
    names = ("identifiers_ids", "quasi_identifiers_ids", "sensitives_ids")
    lists = [None if (isinstance(x, str) and x == "left") else _as_ids(x, ncols, name)
             for x, name in zip(given, names)]
    for j in range(3):
        if lists[j] is None:
            a, b = (lists[m] for m in range(3) if m != j)
            lists[j] = fill_left_columns_ids(ncols, a, b)
    return lists


# ============================================================================ input / output


def _object_table(df) -> np.ndarray:
    """The input as a 2-D object array (the reference's ``np.array(df, dtype=object)``)."""
    if isinstance(df, pd.DataFrame):
        arr = np.array(df.to_numpy(), dtype=object)
    elif isinstance(df, np.ndarray):
        arr = np.array(df, dtype=object)
    else:
        rows = list(df)
        width = {len(r) if hasattr(r, "__len__") and not isinstance(r, (str, bytes)) else -1
                 for r in rows}
        if len(width) != 1 or -1 in width:
            raise InvalidInputError(
                "depersonalize() needs a table: a list of rows of equal length, a 2-D numpy "
                f"array or a DataFrame (row lengths found: {sorted(width)})")
        arr = np.empty((len(rows), width.pop()), dtype=object)
        for i, r in enumerate(rows):  # cell by cell: tuples and lists inside cells stay cells
            arr[i, :] = list(r) if not isinstance(r, np.ndarray) else r.tolist()
    if arr.ndim != 2:
        raise InvalidInputError(
            f"depersonalize() needs a 2-D table (rows x columns), got {arr.ndim}-D input")
    return arr


class Depersonalizator(ABC):
    """Base class of the classic algorithm classes (the reference's ``Depersonalizator``).

    Subclasses implement ``__depersonalize__(identifiers, quasi_identifiers, sensitives)``: the
    three blocks are 2-D object arrays (rows x their columns); it returns
    ``(new_identifiers, new_quasi_identifiers, *extra)`` where a block that is ``None`` (or has
    fewer columns than given) is dropped from the output, and ``extra`` are the algorithm's
    counts. ``output_defaults`` are the counts returned for an empty table.

    Example
    -------
    >>> class Upper(Depersonalizator):
    ...     def __init__(self):
    ...         super().__init__([0])
    ...     def __depersonalize__(self, identifiers, quasi_identifiers, sensitives):
    ...         return None, np.vectorize(str.upper, otypes=[object])(quasi_identifiers), 0
    >>> Upper().depersonalize([["ann", "x"], ["bob", "y"]], identifiers_ids=[0])
    ([['X'], ['Y']], 0)
    """

    def __init__(self, output_defaults):
        self.output_defaults = output_defaults
        self.identifiers_ids = None
        self.quasi_identifiers_ids = None
        self.sensitives_ids = None
        self._width = None  # columns of the table being anonymized

    def _block_kinds(self, types, count: int, what: str = "quasi_identifiers_types") -> list:
        """:func:`check_kinds` for the quasi-identifier block (or the sensitive block, for
        ``what="sensitives_types"``) of the table being anonymized: one kind per block column
        or one per table column."""
        ids = self.sensitives_ids if what == "sensitives_types" else self.quasi_identifiers_ids
        return check_kinds(types, count, what, positions=ids, width=self._width)

    def depersonalize(self, df, identifiers_ids=None, quasi_identifiers_ids=DEFAULT_LEFT,
                      sensitives_ids=None):
        """Anonymize ``df`` (list of rows, numpy array or DataFrame); returns
        ``(table, *counts)`` with the table of the input's type.

        Column roles are position lists; one of them may be ``'left'`` (every column not in the
        other two; the default for quasi-identifiers). Identifier columns are dropped unless the
        algorithm returns them; a column in no list is left out. Quasi-identifiers that only
        the default ``'left'`` chose are examined first: one that looks like it identifies
        people (an identifier-like label, free text, unique values) is refused with a
        :class:`pdanon.RoleError` (pass ``identifiers_ids=`` or the quasi-identifiers).
        """
        if len(df) == 0:
            if self.output_defaults is not None:
                return (df, *self.output_defaults)
            return df
        is_list = isinstance(df, list)
        labels = list(df.columns) if isinstance(df, pd.DataFrame) else None
        table = _object_table(df)
        ncols = table.shape[1]
        ids, qis, sens = resolve_ids(ncols, identifiers_ids, quasi_identifiers_ids,
                                     sensitives_ids)
        if quasi_identifiers_ids is DEFAULT_LEFT and not self._blanks_changed_cells():
            screen_default_left(table, labels, qis)
        self.identifiers_ids, self.quasi_identifiers_ids, self.sensitives_ids = ids, qis, sens
        self._width = ncols
        identifiers = table[:, ids]
        quasi = table[:, qis]
        sensitive = table[:, sens]
        out_ids, out_qi, *extra = self.__depersonalize__(identifiers, quasi, sensitive)
        keep_ids = out_ids is not None and np.ndim(out_ids) == 2 and np.shape(out_ids)[1] == len(ids)
        keep_qi = out_qi is not None and np.ndim(out_qi) == 2 and np.shape(out_qi)[1] == len(qis)
        cols, kept = [], []
        for i in range(ncols):
            if i in ids and keep_ids:
                cols.append(np.asarray(out_ids, dtype=object)[:, ids.index(i)])
                kept.append(i)
            if i in qis and keep_qi:
                cols.append(np.asarray(out_qi, dtype=object)[:, qis.index(i)])
                kept.append(i)
            if i in sens:
                cols.append(sensitive[:, sens.index(i)])
                kept.append(i)
        if not cols:
            return (None, *extra)
        out = np.empty((table.shape[0], len(cols)), dtype=object)
        for j, c in enumerate(cols):
            out[:, j] = c
        if is_list:
            return (out.tolist(), *extra)
        if labels is not None:
            return (pd.DataFrame(out, columns=[labels[i] for i in kept], dtype=object), *extra)
        return (out, *extra)

    def _blanks_changed_cells(self) -> bool:
        """Does the algorithm publish a quasi-identifier cell only as it is or blank (the
        suppression classes)? Then an identifier taken for a quasi-identifier is blanked
        wherever it would single someone out, and it is not refused."""
        method = getattr(getattr(self, "group_join_method", None), "method", None)
        return (method or getattr(self, "_method", None)) == "suppress"

    @abstractmethod
    def __depersonalize__(self, identifiers, quasi_identifiers, sensitives):
        """Recode the blocks; see the class docstring."""


# ============================================================================ the engine bridge


def check_kinds(types, count: int, what: str = "quasi_identifiers_types", *,
                positions=None, width: int | None = None) -> list:
    """``types`` (None → all ``'unordered'``) checked against the number of columns.

    ``types`` has one kind per column of the block (``count``) or, when the block's
    ``positions`` in a table of ``width`` columns are given, one kind per column of the whole
    table: then the kinds at ``positions`` are taken (the reference accepts such a list too).

    Example
    -------
    >>> check_kinds(["real", "ordered"], 2)
    ['real', 'ordered']
    >>> check_kinds(["unordered", "real", "ordered"], 2, positions=[2, 1], width=3)
    ['ordered', 'real']
    """
    if types is None:
        return ["unordered"] * count
    if isinstance(types, str):
        raise InvalidInputError(f"{what} must be a list of kinds (e.g. ['real', 'unordered']), "
                                f"got the string {types!r}")
    types = list(types)
    whole = positions is not None and width is not None and len(positions) == count
    if len(types) != count and whole and len(types) == width:
        types = [types[p] for p in positions]
    if len(types) != count:
        other = whole and width != count  # a whole-table list would be another length
        table = f" and the table has {width}" if other else ""
        alt = " (or one per column of the table)" if other else ""
        raise InvalidInputError(
            f"{what} has {len(types)} entries but there are {count} such column(s){table}; "
            f"give one kind ({', '.join(KINDS)}) per column{alt}")
    bad = [t for t in types if t not in KINDS]
    if bad:
        raise KindError(f"{what}: unknown kind(s) {bad}; use {', '.join(KINDS)}")
    return types


def _refuse_ranges(values, where: str) -> None:
    from pdanon.encode import has_generalized_cells

    if has_generalized_cells(values):
        raise KindError(
            f"{where} already holds generalized cells (GeneralizationRange); the classic "
            "algorithms take plain values - anonymize the original data")


class BlockColumn:
    """One quasi-identifier (or sensitive) block column as the engine sees it, and the way
    back to the caller's objects.

    Missing cells (``None``, ``NaN``, ``pd.NA``, ``NaT``) are data: ``series`` holds them as
    missing (NaN for ``real``; ``pd.NA`` in the nullable integer codes of ``ordered`` and
    ``unordered`` columns), so the engine treats them as a value of their own."""

    def __init__(self, values: np.ndarray, kind: str, position, *, role: str):
        from pdanon import encode

        self.original = values
        self.kind = kind
        self.uniques = None
        where = f"{role} column {position}"
        na = np.asarray(pd.isna(values), dtype=bool) if len(values) else np.zeros(0, bool)
        if kind == "real":
            present = values[~na] if na.any() else values
            inferred = (pd.api.types.infer_dtype(present, skipna=False) if len(present)
                        else "floating")
            filled = values
            if na.any():  # pd.NA / None / NaT -> NaN, which float arrays hold
                filled = np.array(values, dtype=object)
                filled[na] = np.nan
            if inferred == "integer":
                try:
                    ints = np.asarray(present, dtype=np.int64)
                except OverflowError:
                    self.series = np.asarray(filled, dtype=np.float64)
                else:
                    self.series = ints if not na.any() else pd.arrays.IntegerArray(
                        _scatter(ints, na), na)
            elif inferred in ("floating", "mixed-integer-float", "decimal"):
                self.series = np.asarray(filled, dtype=np.float64)
            else:
                _refuse_ranges(values, where)
                example = next((v for v in values
                                if not isinstance(v, numbers.Real) or isinstance(v, bool)), None)
                raise KindError(
                    f"{where} is declared 'real' but holds non-numeric values (e.g. {example!r});"
                    " convert them to numbers or declare the column 'ordered' / 'unordered'")
        elif kind == "ordered":
            try:
                codes, uniques = encode.factorize(values, where=where, sort=True, mixed="pandas")
            except KindError:
                _refuse_ranges(values, where)
                raise
            _refuse_ranges(uniques, where)
            self.series = _nullable_codes(codes)
            self.uniques = np.asarray(uniques, dtype=object)
        else:
            codes, uniques = encode.factorize(values, where=where)
            _refuse_ranges(uniques, where)
            self.series = _nullable_codes(codes)
            self.uniques = encode.object_array(uniques)

    def decode(self, out: pd.Series, method: str, labels: np.ndarray | None) -> np.ndarray:
        """The engine's output column as the reference's object cells."""
        return self.decode_changed(out, method, labels)[0]

    def decode_changed(self, out: pd.Series, method: str, labels: np.ndarray | None):
        """:meth:`decode` and a mask of the cells whose value changed (``before != after``;
        a missing cell that stays missing is unchanged)."""
        from pdanon.dtype import GeneralizationDtype, GeneralizationRange
        from pdanon.encode import object_array

        n = len(out)
        res = self.original.copy()
        na = out.isna().to_numpy()
        was_na = np.asarray(pd.isna(self.original), dtype=bool) if n else np.zeros(0, bool)
        changed = na & ~was_na
        res[changed] = np.nan  # a missing cell that stays missing keeps the caller's object
        if isinstance(out.dtype, GeneralizationDtype):
            arr = out.array
            # the classic API keeps the reference's exact cells (no bounds rule), so a class
            # mixing blank and present cells stays blank there, as before cells "or missing":
            # "46 or missing" would be one person's exact age
            flagged = np.asarray(arr.or_missing, dtype=bool) & ~na
            res[flagged] = np.nan
            changed |= flagged & ~was_na
            ranged = ~arr.is_plain & ~na & ~flagged
            if ranged.any():
                codes, uniq = arr[ranged].factorize()
                boxed = uniq.to_numpy(dtype=object)
                if self.kind != "real":
                    boxed = object_array([self._range_back(c, GeneralizationRange)
                                           for c in boxed])
                res[ranged] = boxed[np.asarray(codes)]
                changed |= ranged
            return res, changed
        if method != "aggregate":
            return res, changed  # suppression: unchanged cells keep the caller's objects
        if self.kind == "real":
            # a group whose cells were all equal keeps them as they were (as the reference)
            x = np.asarray(self.series, dtype=np.float64)
            g = int(labels.max()) + 1 if n else 0
            lo = np.full(g, np.inf)
            hi = np.full(g, -np.inf)
            np.minimum.at(lo, labels, x)
            np.maximum.at(hi, labels, x)
            means = out.to_numpy(dtype=np.float64)
            mixed = (lo != hi)[labels] & ~na
            res[mixed] = np.asarray(means[mixed], dtype=object)
            changed |= mixed & (means != x)
            return res, changed
        valid = ~na
        codes = np.asarray(out.to_numpy(dtype=object)[valid], dtype=np.int64)
        res[valid] = self.uniques[codes]
        same = pd.array(self.series).to_numpy(dtype=np.int64, na_value=-1)[valid] == codes
        idx = np.flatnonzero(valid)
        res[idx[same]] = self.original[idx[same]]
        changed[idx[~same]] = True
        return res, changed

    def _range_back(self, cell, GeneralizationRange):
        if self.kind == "unordered":
            return GeneralizationRange(None, None, "unordered",
                                       [self.uniques[int(c)] for c in cell.values_set])
        # the column's values in their order: the cell answers `in` by position
        order = getattr(self, "_order", None)
        if order is None:
            order = self._order = pd.Index(list(self.uniques), dtype=object)
        return GeneralizationRange(self.uniques[int(cell.min)], self.uniques[int(cell.max)],
                                   "ordered", order)


def _scatter(present: np.ndarray, na: np.ndarray) -> np.ndarray:
    """``present`` values at the rows not flagged in ``na`` (0 at the others)."""
    full = np.zeros(len(na), dtype=present.dtype)
    full[~na] = present
    return full


def _nullable_codes(codes: np.ndarray):
    """Codes with ``-1`` (missing) as a nullable integer array (plain ints when none is)."""
    codes = np.asarray(codes, dtype=np.int64)
    na = codes < 0
    return pd.arrays.IntegerArray(np.where(na, 0, codes), na) if na.any() else codes


def _sensitive_series(values: np.ndarray, kind: str, position):
    """A sensitive block column for the engine: numbers for ``real`` (distances need them),
    first-appearance codes otherwise (only equality and, for t-closeness, frequencies matter;
    ordered columns keep their order)."""
    if kind == "real":
        return BlockColumn(values, "real", position, role="sensitive").series
    return BlockColumn(values, "ordered" if kind == "ordered" else "unordered", position,
                   role="sensitive").series


def block_frame(quasi: np.ndarray, sensitive: np.ndarray, kinds: list, sensitive_kinds=None,
                qi_positions=None, s_positions=None):
    """The blocks as a frame with positional labels (quasi-identifiers 0..q-1, sensitive
    columns q..q+s-1), its roles, and one column object per quasi-identifier whose
    ``decode(out, method, labels)`` turns the engine's output column back into the caller's
    object cells. ``qi_positions`` / ``s_positions`` name the columns in error messages.

    Example
    -------
    >>> q = np.array([[30, "x"], [40, "y"]], dtype=object)
    >>> frame, roles, cols = block_frame(q, q[:, :0], ["real", "unordered"])
    >>> frame.values.tolist(), dict(roles.quasi_identifiers)
    ([[30, 0], [40, 1]], {0: 'real', 1: 'unordered'})
    """
    from pdanon.roles import Roles

    q = quasi.shape[1]
    s = sensitive.shape[1]
    qi_positions = list(range(q)) if qi_positions is None else list(qi_positions)
    s_positions = list(range(s)) if s_positions is None else list(s_positions)
    sensitive_kinds = list(sensitive_kinds) if sensitive_kinds else ["unordered"] * s
    cols = [BlockColumn(quasi[:, j], kinds[j], qi_positions[j], role="quasi-identifier")
            for j in range(q)]
    data = {j: c.series for j, c in enumerate(cols)}
    for j in range(s):
        data[q + j] = _sensitive_series(sensitive[:, j], sensitive_kinds[j], s_positions[j])
    frame = pd.DataFrame(data, columns=list(range(q + s)), index=pd.RangeIndex(len(quasi)))
    roles = Roles(identifiers=(), quasi_identifiers={j: kinds[j] for j in range(q)},
                  sensitive={q + j: sensitive_kinds[j] for j in range(s)}, insensitive=())
    return frame, roles, cols


def _classes(labels: np.ndarray) -> list:
    """Rows of every class (lists of positions), classes in order of their first row."""
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    groups = [g.tolist() for g in np.split(order, bounds)] if len(order) else []
    groups.sort(key=lambda g: g[0])
    return groups


def run_engine(quasi: np.ndarray, sensitive: np.ndarray, *, kinds: list, model_for, method: str,
               algorithm: str, sensitive_kinds: list | None = None, qi_positions=None,
               s_positions=None, **options):
    """Anonymize the quasi-identifier block with :func:`pdanon.engine.anonymize`.

    ``model_for(has_sensitive)`` builds the privacy model. Returns ``(object block, changed
    cells, info)``; ``info["classes"]`` lists the rows of every published equivalence class.
    Raises :class:`~pdanon.InfeasibleError` when the model cannot be met.
    """
    from pdanon import engine
    from pdanon._groups import class_labels

    frame, roles, cols = block_frame(quasi, sensitive, kinds, sensitive_kinds, qi_positions,
                                     s_positions)
    model = model_for(sensitive.shape[1] > 0)
    with warnings.catch_warnings():  # the classic API's own warning below says it in its words
        warnings.simplefilter("ignore", ExactBoundsWarning)
        out, info = engine.anonymize(frame, roles, model=model, method=method,
                                     algorithm=algorithm, exact_bounds=True, **options)
    q = quasi.shape[1]
    _warn_rare_bounds(frame, out, q, info)
    labels = class_labels(out, list(range(q)))
    block = np.empty(quasi.shape, dtype=object)
    changed = 0
    for j, col in enumerate(cols):
        block[:, j], mask = col.decode_changed(out[j], method, labels)
        changed += int(mask.sum())
    info["classes"] = _classes(labels)
    return block, changed, info


def _warn_rare_bounds(frame: pd.DataFrame, out: pd.DataFrame, q: int, info: dict) -> None:
    """The classic API publishes the reference's ranges, ``[min, max]`` of each class's own
    values (``exact_bounds``, docs/compat.md): warn when one of those bounds is held by fewer
    than k rows of its column (one person's value, e.g. the oldest participant's age), and
    point to ``df.anon``, which widens such bounds (:mod:`pdanon.recode.bounds`)."""
    rule = info.get("bounds")
    if not rule or rule.get("rule") != "exact":
        return
    k = int(rule["k"])
    rare = [j for j in range(q) if bounds.widen_published(out[j], frame[j], k)[1]]
    if rare:
        warnings.warn(
            f"the classic API publishes the reference's exact ranges: quasi-identifier(s) at "
            f"position(s) {rare} show bounds held by fewer than {k} rows (a column's extremes "
            f"are often one person's value); df.anon.k_anonymize(...) widens them "
            f"(pdanon.recode.bounds, docs/compat.md)", ExactBoundsWarning, stacklevel=user_stacklevel())


def recode_groups(groups, quasi: np.ndarray, kinds: list, method: str):
    """Recode given groups (lists of row positions, every row exactly once; a group's order
    decides aggregation ties) with :func:`pdanon.recode.recode_column`. Returns
    ``(object block, changed cells)``.

    Example
    -------
    >>> q = np.array([[1, "a"], [2, "a"], [5, "b"]], dtype=object)
    >>> recode_groups([[0, 1], [2]], q, ["real", "unordered"], "aggregate")
    (array([[1.5, 'a'],
           [1.5, 'a'],
           [5, 'b']], dtype=object), 2)
    """
    from pdanon import recode
    from pdanon.encode import encode_column

    n = len(quasi)
    labels = np.full(n, -1, dtype=np.int64)
    order = []
    for g_id, g in enumerate(groups):
        rows = [int(r) for r in g]
        if any(labels[r] >= 0 for r in rows):
            raise InvalidInputError(f"row(s) of group {g_id} already belong to another group")
        labels[rows] = g_id
        order.extend(rows)
    if (labels < 0).any():
        raise InvalidInputError(
            f"groups leave row(s) {np.flatnonzero(labels < 0)[:5].tolist()} out; every row must "
            "be in one group")
    frame, _, cols = block_frame(quasi, quasi[:, :0], kinds)
    block = np.empty(quasi.shape, dtype=object)
    changed = 0
    for j, col in enumerate(cols):
        new, _ = recode.recode_column(method, frame[j], encode_column(frame[j], kinds[j]),
                                      labels, np.asarray(order, dtype=np.int64))
        block[:, j], mask = col.decode_changed(new, method, labels)
        changed += int(mask.sum())
    return block, changed


def partition_rows(quasi: np.ndarray, sensitive: np.ndarray, *, kinds: list, model_for,
                   method: str, algorithm: str, sensitive_kinds=None, **options) -> list:
    """The groups a registered partitioner (:data:`pdanon.partition.PARTITIONERS`, the
    engine's ``algorithm=``) forms, as lists of row positions in the order of their smallest
    row, without recoding them: the reference's group lists, which the published classes of
    :func:`run_engine` cannot give (two groups may publish equal cells). It runs the engine's
    first steps (:func:`pdanon.engine.partition`: validation, encoding, the partitioner).

    Example
    -------
    >>> from pdanon.models import KAnonymity
    >>> q = np.array([[1], [8], [2], [9]], dtype=object)
    >>> partition_rows(q, q[:, :0], kinds=["real"], method="generalize",
    ...                model_for=lambda s: KAnonymity(2), algorithm="group_join", seed=0)
    [[0, 2], [1, 3]]
    """
    from pdanon import engine
    from pdanon.partition import Partition

    if algorithm == "auto":
        raise InvalidInputError("partition_rows needs a partitioner's name, not 'auto'")
    frame, roles, _ = block_frame(quasi, sensitive, kinds, sensitive_kinds)
    model = model_for(sensitive.shape[1] > 0)
    run = engine.partition(frame, roles, model=model, method=method, algorithm=algorithm,
                           **options)
    partition = run.result
    if not isinstance(partition, Partition):
        raise InvalidInputError(
            f"algorithm={algorithm!r} recodes globally: it forms no row groups to list")
    return _classes(np.asarray(partition.labels))


def infeasible(exc: Exception) -> bool:
    """Errors that mean "this request cannot be met" (the reference returns ``None``)."""
    return isinstance(exc, InfeasibleError)
