"""A release's recoding, kept as JSON and applied to new batches (docs/republication.md).

A *recoding* is what a release did to each quasi-identifier column, written without the
original data: per column the distinct cells the release published (ranges, sets, plain
values) and the published dtype (its categories are those the published cells need), plus
the privacy model the release was verified with and the names of its sensitive columns.
Nothing else: no original value that no published cell shows, no seed, no key, no row.

:meth:`Recoding.apply` publishes a new batch with the same cell vocabulary. Each new value
is looked up column by column:

* a range cell ``[lo, hi]`` (real, dates, ordered categories) takes every value between its
  bounds (open ends honoured), seen before or not;
* a set cell ``{a, b}`` takes its members; a plain published value takes that value;
* a value no cell holds (an age above the last range, a ZIP code never published) is
  *unseen*: its cell is published missing, and ``info["unseen_cells"]`` counts it per column;
* a missing value stays missing.

This is a function of each column alone when the recoding is **global** (the cells of a
column do not overlap: optimal and Datafly releases, ``df.anon.generalize``). A Mondrian
release (local: cells overlap) is kept with its classes, and a new row is placed by the tree
of Mondrian's cuts rebuilt from them (:mod:`pdanon.republication.boxes`); groupings of nearest
rows, whose classes overlap in every column, place a row in the first class whose cells hold
all its values, else the one holding most of them.

The model is then verified on the batch's published classes, as the anonymizers verify
their own output: the rows of every class that fails are suppressed (all their
quasi-identifier cells missing; together they are one more class, which must meet the model
too) within ``max_suppressed_rows`` (default 5 % of the batch), or the call fails with the
count and the fix (anonymize the batch afresh).

Example
-------
>>> import pandas as pd, pdanon
>>> from pdanon.hierarchy import intervals
>>> df = pd.DataFrame({"age": [31, 32, 33, 36, 37, 38], "sex": list("FFFMMM")})
>>> first = df.anon.k_anonymize(3, algorithm="optimal", hierarchies={"age": intervals([5])},
...                             quasi_identifiers=["age", "sex"])
>>> text = first.anon.recoding.to_json()       # keep it with the release
>>> rec = pdanon.Recoding.from_json(text)
>>> rec.columns["age"].cells, sorted(rec.columns["sex"].cells)
(['[30, 34]', '[35, 39]'], ['F', 'M'])
>>> batch = pd.DataFrame({"age": [30, 34, 34, 39, 35, 36], "sex": list("FFFMMM")})
>>> again = batch.anon.apply_recoding(rec)     # verified with k = 3 again
>>> sorted(again["age"].astype(str)), again.anon.info["achieved"]
(['[30, 34]', '[30, 34]', '[30, 34]', '[35, 39]', '[35, 39]', '[35, 39]'], {'k': 3})
"""

from __future__ import annotations

import functools
import hashlib
import json
import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pdanon._errors import (AnonymizationError, InfeasibleError, InvalidInputError, KindError,
                            UnknownColumnError)
from pdanon.republication.recoding_check import check_recoding_dict, damaged, index_from_json

FORMAT = "pdanon-recoding/1"
#: the suppression budget of :meth:`Recoding.apply` when none is given: a share of the batch
DEFAULT_SUPPRESSED_SHARE = 0.05


# ----------------------------------------------------------------------------- JSON values


def _index_json(index: pd.Index) -> dict:
    """A typed list of values that :func:`index_from_json` rebuilds exactly (or an error)."""
    dtype = str(index.dtype)
    if pd.api.types.is_datetime64_any_dtype(index.dtype):
        values = [v.isoformat() for v in index]
    elif pd.api.types.is_bool_dtype(index.dtype) or pd.api.types.is_integer_dtype(index.dtype):
        values = [int(v) for v in index]
    elif pd.api.types.is_float_dtype(index.dtype):
        values = [float(v) for v in index]
    else:
        values = [v if isinstance(v, str) else _plain(v) for v in index]
    out = {"dtype": dtype, "values": values}
    back = index_from_json(out)
    if not back.equals(index) or str(back.dtype) != dtype:
        raise InvalidInputError(
            f"the values {list(index[:3])} (dtype {dtype}) cannot be written to JSON and read "
            "back unchanged; convert the column to strings, numbers or dates first")
    return out


def _plain(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        return float(v)
    return str(v)


# ----------------------------------------------------------------------------- one column


@dataclass(frozen=True)
class ColumnRecoding:
    """The recoding of one quasi-identifier column: its kind and the distinct cells the
    release published, as arrays (``form``: ``"ranges"``, ``"sets"`` or ``"values"``).

    ``cells`` is their text (``[30, 35)``, ``{a, b}``, ``F``), for reading."""

    name: str
    kind: str
    form: str
    spec: dict = field(repr=False)

    # ------------------------------------------------------------------ building
    @classmethod
    def from_series(cls, series: pd.Series, kind: str) -> "ColumnRecoding":
        from pdanon.encode import is_generalized

        name = series.name
        if not is_generalized(series):
            values = pd.Index(series.dropna().unique())
            try:
                values = values.sort_values()
            except TypeError:
                pass
            return cls(name, kind, "values", {"values": _index_json(values),
                                               "dtype": str(series.dtype)})
        arr = series.array
        _, uniques = arr.factorize()
        cells = uniques[~uniques.isna()]
        dtype = arr.dtype
        cats = None if dtype.categories is None else _index_json(dtype.categories)
        if dtype.column_type == "unordered":
            offsets, members = cells.members()
            return cls(name, kind, "sets", _with_flags(cells, {
                "categories": cats,
                "members": [members[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:])]}))
        order = np.argsort(cells.lo, kind="stable")
        cells = cells.take(order)
        lo, hi = cells.lo, cells.hi
        as_num = (lambda a: [int(x) for x in a]) if cats is not None or cells.is_integer \
            else (lambda a: [float(x) for x in a])
        return cls(name, kind, "ranges", _with_flags(cells, {
            "column_type": dtype.column_type, "categories": cats,
            "integer": bool(cells.is_integer), "lo": as_num(lo), "hi": as_num(hi),
            "closed": [str(c) for c in cells.closed]}))

    # ------------------------------------------------------------------ the cells
    def cell_array(self):
        """The distinct published cells, as the release typed them (a GeneralizationArray,
        or for a plain column the values as a pandas array); built once from ``spec``."""
        return self._cell_array

    @functools.cached_property
    def _cell_array(self):
        from pdanon.dtype import GeneralizationArray

        s = self.spec
        if self.form == "values":
            values = index_from_json(s["values"])
            return pd.array(values, dtype=s["dtype"])
        cats = None if s["categories"] is None else index_from_json(s["categories"])
        if self.form == "sets":
            members = s["members"]
            offsets = np.concatenate([[0], np.cumsum([len(m) for m in members])]).astype(
                np.int64)
            flat = np.array([x for m in members for x in m], dtype=np.int64)
            cells = GeneralizationArray.from_members(offsets, flat, cats)
        else:
            lo = np.array(s["lo"], dtype=np.int64 if s["integer"] or cats is not None else float)
            hi = np.array(s["hi"], dtype=lo.dtype)
            cells = GeneralizationArray.from_bounds(lo, hi, kind=s["column_type"],
                                                    categories=cats, integer=s["integer"],
                                                    closed=np.array(s["closed"], dtype=object))
        flags = s.get("or_missing")  # cells that cover missing too ("[20, 29] or missing")
        return cells if flags is None else cells.with_or_missing(np.array(flags, dtype=bool))

    def publish(self, positions: np.ndarray, index) -> pd.Series:
        """The published column: the cell at each position (a negative one: missing), with
        ``index``. Plain values become floats where an int column gets a missing cell."""
        cells = self.cell_array()
        at = np.where(positions < 0, -1, positions)
        new = (pd.Series(cells).reindex(at).to_numpy() if self.form == "values"
               else cells.take(at, allow_fill=True))
        return pd.Series(new, index=index, name=self.name)

    @property
    def cells(self) -> list[str]:
        arr = self.cell_array()
        if self.form == "values":
            return [str(v) for v in arr]
        return [str(t) for t in arr.to_text()]

    def overlap(self) -> str | None:
        """The first two cells that share a value (as text), or None when the cells are
        disjoint (a global recoding of this column); found once."""
        return self._overlap

    @functools.cached_property
    def _overlap(self) -> str | None:
        s = self.spec
        if self.form == "values":
            return None
        if self.form == "sets":
            seen = {}
            for i, m in enumerate(s["members"]):
                for x in m:
                    if x in seen:
                        return f"{self.cells[seen[x]]} and {self.cells[i]}"
                    seen[x] = i
            return None
        lo, hi, closed = s["lo"], s["hi"], s["closed"]
        for i in range(len(lo) - 1):
            touch = hi[i] == lo[i + 1] and (closed[i] in ("left", "neither") or
                                            closed[i + 1] in ("right", "neither"))
            if hi[i] > lo[i + 1] or (hi[i] == lo[i + 1] and not touch):
                return f"{self.cells[i]} and {self.cells[i + 1]}"
        return None

    # ------------------------------------------------------------------ lookup
    def lookup(self, series: pd.Series) -> np.ndarray:
        """Per value of ``series`` the position of the published cell that holds it, -1 for
        a missing value (the cell that covers missing, ``[20, 29] or missing``, when one
        does) and -2 for an unseen one (no cell holds it)."""
        missing = np.asarray(series.isna(), dtype=bool)
        cells = self.cell_array()
        if self.form == "values":
            pos = self.value_positions(series)
        elif self.form == "sets":
            offsets, members = cells.members()
            cats = cells.dtype.categories
            cell_of = np.full(len(cats) + 1, -1, dtype=np.int64)
            cell_of[members] = np.repeat(np.arange(len(cells)), np.diff(offsets))
            at = self.value_positions(series)
            pos = cell_of[np.where(at < 0, len(cats), at)]
        else:
            pos = self._range_lookup(cells, series)
        pos = np.asarray(pos, dtype=np.int64)
        covering = np.flatnonzero(np.asarray(getattr(cells, "or_missing", []), dtype=bool))
        blank = covering[0] if len(covering) else -1  # a global recoding has one at most
        return np.where(missing, blank, np.where(pos < 0, -2, pos))

    def value_positions(self, series: pd.Series) -> np.ndarray:
        """For a ``values`` or ``sets`` column: each value's position among the published
        values (plain) or the categories (sets); -1 for a missing or unknown value. Codes
        read back as numbers (lost leading zeros) are refused, naming the fix."""
        cells = self.cell_array()
        known = pd.Index(cells) if self.form == "values" else cells.dtype.categories
        _refuse_numbers_for_text(self.name, known, series)
        return _category_positions(known, series)

    def range_axis(self, series: pd.Series):
        """For a ``ranges`` column: ``(lo, hi, v, probe)``, the cells' bounds and the batch's
        values on one numeric axis (floats; for dates int64 instants, exact to the
        nanosecond), and the values ``cells.contains`` reads. A missing or unknown value is
        NaN (a missing date: the smallest int64). Values of the wrong kind are refused,
        naming the fix."""
        cells = self.cell_array()
        dtype = cells.dtype
        if dtype.is_numeric_bounds:
            if not (pd.api.types.is_numeric_dtype(series.dtype)
                    and not pd.api.types.is_bool_dtype(series.dtype)):
                raise KindError(
                    f"column {self.name!r} was published as numeric ranges but the new batch "
                    f"holds {series.dtype} values; convert it (pd.to_numeric(df[{self.name!r}]))")
            v = series.to_numpy(dtype=np.float64, na_value=np.nan)
            return (np.asarray(cells.lo, dtype=np.float64),
                    np.asarray(cells.hi, dtype=np.float64), v, v)
        if dtype.dates_by_value:
            cats = pd.DatetimeIndex(dtype.categories)
            if pd.api.types.is_numeric_dtype(series.dtype):
                raise KindError(
                    f"column {self.name!r} was published as date ranges but the new batch "
                    f"holds {series.dtype} numbers; convert it (pd.to_datetime(df[{self.name!r}]))")
            try:
                dates = pd.DatetimeIndex(pd.to_datetime(series.array)).as_unit(cats.unit)
            except (TypeError, ValueError) as exc:
                raise KindError(
                    f"column {self.name!r} was published as date ranges but the new batch's "
                    f"values are not dates ({exc}); convert it (pd.to_datetime)") from None
            return cats.asi8[cells.lo], cats.asi8[cells.hi], dates.asi8, dates.array
        # ordered categories: a value is placed by its position among them
        at = _category_positions(dtype.categories, series)
        return (np.asarray(cells.lo, dtype=np.float64), np.asarray(cells.hi, dtype=np.float64),
                np.where(at < 0, np.nan, at.astype(np.float64)), series.array)

    def _range_lookup(self, cells, series: pd.Series) -> np.ndarray:
        dtype = cells.dtype
        lo, _, v, probe = self.range_axis(series)
        if not len(cells):
            return np.full(len(series), -1, dtype=np.int64)
        cand = np.searchsorted(lo, v, side="right") - 1  # the last cell starting at or below
        cand = np.clip(cand, 0, len(cells) - 1)
        inside = np.asarray(cells.take(cand).contains(probe), dtype=bool)
        if not dtype.is_numeric_bounds and not dtype.dates_by_value:
            inside &= ~np.isnan(v)
        # a value at the shared bound of [a, b) and [b, c) is found by the later cell
        return np.where(inside, cand, -1)


def _refuse_numbers_for_text(name, published: pd.Index, series: pd.Series) -> None:
    """Codes published as text (ZIP codes, ICD codes) read back as numbers have lost their
    leading zeros: every value would be unseen. Say so instead."""
    text = pd.api.types.is_string_dtype(published.dtype) or (
        published.dtype == object and len(published)
        and all(isinstance(v, str) for v in published[:100]))
    if text and pd.api.types.is_numeric_dtype(series.dtype) and not \
            pd.api.types.is_bool_dtype(series.dtype):
        raise KindError(
            f"column {name!r} was published as text (e.g. {published[0]!r}) but the new batch "
            f"holds {series.dtype} numbers, which have lost any leading zeros; read the batch "
            f"with pdanon.read_csv or dtype={{{name!r}: str}}")


def _category_positions(cats: pd.Index, series: pd.Series) -> np.ndarray:
    values = series.astype(object) if isinstance(series.dtype, pd.CategoricalDtype) else series
    try:
        return np.asarray(cats.get_indexer(pd.Index(values.array)), dtype=np.int64)
    except (TypeError, ValueError):  # values of another type than the categories: unseen
        return np.full(len(series), -1, dtype=np.int64)


# ----------------------------------------------------------------------------- the recoding


@dataclass(frozen=True)
class Recoding:
    """A release's recoding (module docstring): ``columns`` (name -> :class:`ColumnRecoding`),
    the ``models`` it was verified with (records of :mod:`pdanon.models.record`), its
    ``sensitive`` columns (name -> kind), and the ``algorithm`` and ``method`` that made it.

    Build one with ``release.anon.recoding``; write it with :meth:`to_json`, read it with
    :meth:`from_json`; publish a new batch with ``batch.anon.apply_recoding(recoding)``."""

    columns: dict
    models: list
    sensitive: dict
    algorithm: str | None = None
    method: str | None = None
    #: a local recoding's published classes (per class the cell position in each column),
    #: from which apply rebuilds the tree that places new rows (pdanon.republication.boxes)
    classes: list | None = None

    @classmethod
    def from_release(cls, release: pd.DataFrame) -> "Recoding":
        """The recoding of a frame a pdanon anonymizer returned (its roles and ``info`` in
        ``attrs``)."""
        from pdanon.roles import ATTRS_KEY, Roles

        meta = release.attrs.get(ATTRS_KEY, {}) if isinstance(release, pd.DataFrame) else {}
        if "roles" not in meta or "info" not in meta:
            raise InvalidInputError(
                "this frame carries no pdanon release (no roles and info in df.attrs): take "
                "the recoding from the frame an anonymizer returned, before writing it to a "
                "file, e.g. out = df.anon.k_anonymize(5, algorithm='optimal', ...); "
                "out.anon.recoding.to_json()")
        roles = Roles.from_dict(meta["roles"])
        info = meta["info"]
        if info.get("operation") == "apply_recoding":
            raise InvalidInputError(
                f"this batch was published with the recoding {info.get('recoding')} and "
                "shows only the cells it needed; keep and reuse the first release's recoding "
                "(its JSON) for every batch")
        if "dp" in info:
            raise InvalidInputError(
                "a differentially private release has no reusable recoding: applying its "
                "levels to a new batch would publish every row of the batch, unsampled and "
                "with classes under k, which no (epsilon, delta) covers. Publish each batch with "
                "df.anon.dp_anonymize(epsilon, delta, hierarchies=...); batches that share "
                "people spend their epsilons together (docs/differential_privacy.md)")
        if info.get("operation") not in (None, "generalize") or not roles.qi:
            raise InvalidInputError(
                f"the release's last step ({info.get('operation')!r}) does not generalize "
                "quasi-identifiers; a recoding is kept for k_anonymize, l_diversify, "
                "t_close, anonymize and generalize releases")
        if info.get("labels"):
            raise InvalidInputError(
                "this release publishes hierarchy labels (labels=True, e.g. '100**'): a label "
                "does not list the values it stands for, so a new value cannot be looked up; "
                "publish with labels=False (ranges and sets) to keep a recoding")
        if info.get("method") == "aggregate":
            raise InvalidInputError(
                "this release published each class's aggregate (method='aggregate'): a "
                "published value does not hold the values it replaced, so it cannot be "
                "looked up for a new batch; publish with method='generalize' or 'suppress' "
                "to keep a recoding")
        columns = {c: ColumnRecoding.from_series(release[c], kind)
                   for c, kind in roles.quasi_identifiers.items()}
        classes = None
        if any(col.overlap() for col in columns.values()):  # local: keep the classes
            from pdanon.republication.boxes import class_table

            classes = class_table(release, columns)
        return cls(columns=columns, models=list(info.get("models") or []),
                   sensitive=dict(roles.sensitive), algorithm=info.get("algorithm"),
                   method=info.get("method"), classes=classes)

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        out = {"format": FORMAT, "algorithm": self.algorithm, "method": self.method,
               "models": self.models, "sensitive": self.sensitive,
               "columns": [{"name": c.name, "kind": c.kind, "form": c.form, **c.spec}
                           for c in self.columns.values()]}
        if self.classes is not None:
            out["classes"] = self.classes
        return out

    def to_json(self, **kwargs) -> str:
        """The recoding as JSON text (``kwargs`` go to :func:`json.dumps`, e.g. ``indent=1``)."""
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_json(cls, text: str) -> "Recoding":
        """Read :meth:`to_json`'s text back. Every field is checked first
        (:func:`pdanon.republication.recoding_check.check_recoding_dict`): a damaged file is refused with
        an :class:`InvalidInputError` naming the field's JSON path and the fix.

        >>> Recoding.from_json('{"format": "pdanon-recoding/1", "columns": [{"name": "age"}]}')
        Traceback (most recent call last):
        ...
        pdanon._errors.InvalidInputError: recoding field columns[0].kind (column 'age'): missing; the recoding file is damaged: ...
        """
        try:
            d = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"not a pdanon recoding (invalid JSON: {exc})") from None
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise InvalidInputError(
                f"not a pdanon recoding: expected format {FORMAT!r}, got "
                f"{d.get('format') if isinstance(d, dict) else type(d).__name__!r}")
        check_recoding_dict(d)
        columns = {}
        for c in d["columns"]:
            c = dict(c)
            name, kind, form = c.pop("name"), c.pop("kind"), c.pop("form")
            columns[name] = ColumnRecoding(name, kind, form, c)
        for j, col in enumerate(columns.values()):  # what the fields alone do not show
            try:
                col.cell_array()
            except (AnonymizationError, TypeError, ValueError, KeyError, IndexError,
                    OverflowError) as exc:
                raise damaged(f"columns[{j}]", col.name, "its cells cannot be rebuilt ("
                              f"{' '.join(str(exc).split())[:200]})") from None
        return cls(columns=columns, models=d.get("models") or [],
                   sensitive=d.get("sensitive") or {}, algorithm=d.get("algorithm"),
                   method=d.get("method"), classes=d.get("classes"))

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the canonical JSON (16 hex digits): ties each batch to its recoding."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def check_global(self) -> None:
        """Refuse a recoding whose cells overlap in some column (a local recoding): a new
        value could belong to several cells."""
        for col in self.columns.values():
            clash = col.overlap()
            if clash:
                raise InvalidInputError(
                    f"the release's cells overlap in column {col.name!r} ({clash}): it was a "
                    f"local recoding ({self.algorithm}), so a new value could belong to "
                    "several cells; publish the first release with a global recoding "
                    "(algorithm='optimal' with hierarchies, algorithm='datafly', or "
                    "df.anon.generalize) to reuse it")

    def place(self, df: pd.DataFrame):
        """None for a global recoding (each column is looked up alone,
        :meth:`ColumnRecoding.lookup`); for a local one, kept with its classes, per column
        each row's cell position (-1 missing, -2 none holds it) by the tree of those classes
        (:func:`pdanon.republication.boxes.place`). Refuses a local recoding kept without its
        classes."""
        if self.classes is None or not any(col.overlap() for col in self.columns.values()):
            self.check_global()
            return None
        from pdanon.republication.boxes import NotSeparable, place

        try:
            return place(df, self.columns, self.classes)
        except NotSeparable as exc:
            raise InvalidInputError(
                f"the release's classes overlap in every column ({self.algorithm}: a grouping "
                f"of nearest rows, not of regions), and {exc}; publish the first release with "
                "algorithm='mondrian' (regions) or a global recoding (algorithm='optimal' "
                "with hierarchies, 'datafly', df.anon.generalize) to reuse it") from None

    @property
    def kinds(self) -> dict:
        return {c.name: c.kind for c in self.columns.values()}

    @staticmethod
    def check(recoding) -> "Recoding":
        """``recoding`` if it is a :class:`Recoding`, else an error saying where one comes
        from (every face calls this first)."""
        if not isinstance(recoding, Recoding):
            raise InvalidInputError(
                f"recoding must be a pdanon.Recoding (release.anon.recoding, or "
                f"pdanon.Recoding.from_json(text)), got {type(recoding).__name__}")
        return recoding

    def role_keywords(self, roles: dict, columns) -> dict:
        """The role keywords a batch with ``columns`` is resolved with: the quasi-identifiers
        are this recoding's columns (a different list is refused), the sensitive columns
        default to the release's that the batch holds."""
        given = roles.get("quasi_identifiers")
        if given is not None:
            names = [given] if isinstance(given, (str, int)) else list(given)
            if set(names) != set(self.columns):
                raise InvalidInputError(
                    f"the quasi-identifiers are the recoding's columns {list(self.columns)}; "
                    f"drop quasi_identifiers={given!r}")
        out = {**roles, "quasi_identifiers": self.kinds}
        if "sensitive" not in out and self.sensitive:
            out["sensitive"] = {c: k for c, k in self.sensitive.items() if c in set(columns)}
        return out

    def model_for(self, model):
        """The model a batch is verified with: ``model`` (a PrivacyModel), else the one the
        release recorded (None when it recorded none)."""
        from pdanon.models.base import PrivacyModel
        from pdanon.models.record import rebuild

        if model is None:
            return rebuild(self.models) if self.models else None
        if not isinstance(model, PrivacyModel):
            raise InvalidInputError(f"model must be a pdanon privacy model (e.g. "
                                    f"pdanon.models.KAnonymity(5)) or None, got {model!r}")
        if model.requirements().mechanism:
            raise InvalidInputError(
                f"{model!r} is met by a randomized mechanism, not by a recoding applied to a "
                f"batch: publish the batch with df.anon.dp_anonymize(epsilon, delta, ...)")
        return model

    # ------------------------------------------------------------------ applying
    def apply(self, df: pd.DataFrame, roles, *, model=None, max_suppressed_rows=None,
              history=None, keys=None, invariance=None, withhold: bool = False,
              allow_channels=None):
        """Publish ``df`` (a new batch; ``roles``: its :class:`~pdanon.roles.Roles`, whose
        quasi-identifiers are this recoding's columns) with this recoding; returns ``(frame,
        info)``. See the module docstring; ``batch.anon.apply_recoding`` is the usual face.

        ``invariance=m`` with ``history`` (a :class:`pdanon.ReleaseHistory`) and ``keys``
        (one per row, or the name of a column): the batch is published m-invariant
        (:mod:`pdanon.republication.invariance`): rows no signature fits are suppressed (then withheld or
        refused), and counterfeit rows, appended last, balance every class
        (docs/republication.md, "m-invariance").

        Before it returns, the channel rule of every anonymizer
        (:func:`pdanon.screening.channels.guard`): a column the batch publishes unchanged
        whose value pins a quasi-identifier cell the recoding hid (a stratum weight that
        names the ZIP published as a set) raises :class:`pdanon.ChannelError`, unless
        ``allow_channels`` names it."""
        from pdanon._groups import class_labels
        from pdanon.partition.common import suppression_budget

        missing = [c for c in self.columns if c not in df.columns]
        if missing:
            raise UnknownColumnError(
                f"the new batch lacks the recoded column(s) {missing}; it has "
                f"{list(df.columns)}")
        from pdanon.republication import invariance as _inv

        inv = _inv.checked(invariance, history, keys, roles, df,
                           [c for c in df.columns if c not in set(roles.identifiers)])
        placed = self.place(df)
        model = self.model_for(model)
        if model is not None and model.requirements().population:
            raise InvalidInputError(
                f"{model!r} reads a population table, which a recoding does not keep; "
                "anonymize the batch afresh")
        n = len(df)
        qi = list(self.columns)
        keep = [c for c in df.columns if c not in set(roles.identifiers)]
        out = df[keep].copy()
        out.attrs = {}
        unseen = {}
        kept = np.ones(n, dtype=bool)
        changed = np.zeros(n, dtype=np.int64)  # quasi-identifier cells changed per row
        for col in self.columns.values():
            pos = col.lookup(df[col.name]) if placed is None else placed[col.name]
            cells = col.cell_array()
            unseen[col.name] = int((pos == -2).sum())
            kept &= pos != -2
            if col.form == "values":  # a plain value published is the value itself
                changed += pos == -2
            else:
                plain = np.append(np.asarray(cells.is_plain, dtype=bool), True)
                changed += (pos == -2) | ((pos >= 0) & ~plain[np.where(pos < 0, -1, pos)])
            out[col.name] = col.publish(pos, df.index)
        budget = suppression_budget(max_suppressed_rows, n,
                                    default=int(DEFAULT_SUPPRESSED_SHARE * n))
        suppressed = np.zeros(n, dtype=bool)
        out_roles = roles.restricted_to(out.columns)
        narrowed = 0
        withheld = np.zeros(n, dtype=bool)
        if (model is not None or inv is not None) and n:
            suppressed, withheld, narrowed = _protect(out, df, qi, roles, model, inv, history,
                                                      withhold, budget)
            present = np.column_stack([df[c].notna().to_numpy() for c in qi])
            changed = np.where(suppressed, present.sum(axis=1), changed)
        if (model is not None or inv is not None) and n:
            count = int((suppressed & ~withheld).sum())  # the budget bounds the protection's
            if count > budget:
                raise InfeasibleError(infeasible_message(count, n, model, budget, True))
        # a row every one of whose values was unseen is published blank like a suppressed
        # row: it counts as one in every figure read from info (check, report, CLI)
        unseen_rows = _all_blank(out, qi) & ~_all_blank(df, qi) & ~suppressed & ~withheld
        count = int(((suppressed | unseen_rows) & ~withheld).sum())
        if (model is not None or inv is not None) and n:
            if withheld.any():
                out = out[~withheld]
                kept &= ~withheld
        sizes = np.bincount(class_labels(out, qi)) if n else np.zeros(0, dtype=np.int64)
        guard_info = {}
        if n:  # the channel rule, on the rows published (before any counterfeit row)
            from pdanon.screening import channels

            req = model.requirements() if model is not None else None
            source = df.iloc[np.flatnonzero(~withheld)] if withheld.any() else df
            channels.guard(source, out, qi, guard_info,
                           k=max(req.min_size, req.min_distinct) if req else 2,
                           allow_channels=allow_channels, sensitive=roles.sensitive)
        fakes = {}
        if inv is not None and len(out):  # m-invariance: every class balanced
            codes = history.value_codes(inv[2], grow=True)[~withheld]
            labels = class_labels(out, qi)
            sig = history.signatures_of(history.rows_of(inv[1][~withheld]))
            chosen = _inv.chosen_signatures(labels, sig)
            fake, fakes = _inv.counterfeit_rows(out, labels, codes, chosen, history,
                                                next(iter(roles.sensitive)), qi, df.index)
            out = pd.concat([out, fake]) if len(fake) else out
        info = {
            "operation": "apply_recoding",
            "recoding": self.fingerprint,
            "algorithm": self.algorithm,
            "method": self.method,
            "model": None if model is None else model.name,
            "params": {} if model is None else model.params(),
            "models": record_or_empty(model),
            "quasi_identifiers": qi,
            "dropped_identifiers": list(roles.identifiers),
            "rows": n - int(withheld.sum()),
            "rows_kept_cells": int((kept & ~suppressed).sum()),
            "changed_cells": int(changed.sum()),
            "unseen_cells": unseen,
            "suppressed_rows": count,
            "unseen_rows": int(unseen_rows.sum()),
            "max_suppressed_rows": budget,
            **({} if inv is None else {"invariance": {
                "m": inv[0], "people_seen_before": int((history.rows_of(inv[1]) >= 0).sum()),
                "missing_sensitive": history.missing_sensitive,
                "rows_suppressed_for_it": narrowed,
                "counterfeit_rows": int(sum(fakes.values())),
                "counterfeits_by_class": fakes}}),
            "rows_withheld": int(withheld.sum()),
            "groups": int(len(sizes)),
            "achieved": {"k": int(sizes.min()) if len(sizes) else 0},
            **guard_info,
        }
        return out, out_roles, info


def _all_blank(frame: pd.DataFrame, qi) -> np.ndarray:
    """Rows whose every quasi-identifier cell is missing."""
    if not qi:
        return np.zeros(len(frame), dtype=bool)
    return ~np.column_stack([frame[c].notna().to_numpy() for c in qi]).any(axis=1)


def _protect(out, df, qi, roles, model, inv, history, withhold: bool, budget: int):
    """Suppress, in ``out`` (in place), the rows of the classes that fail ``model`` and of
    the people whose intersection would narrow below ``inv[0]`` values, until no row fails
    (suppressing a row changes its class and the blank class). ``withhold``: a row that even
    the blank class leaves failing (too few values for its person, or a blank class that
    fails the model) is left out of the batch instead of failing the call.
    Returns ``(suppressed, withheld, rows suppressed for the intersection)``."""
    from pdanon import engine
    from pdanon._groups import class_labels

    n = len(df)
    suppressed = np.zeros(n, dtype=bool)
    gone = np.zeros(n, dtype=bool)
    narrowed = 0
    context = None
    if inv is not None:  # the persons and their values, numbered once
        from pdanon.republication.invariance import conflicts

        signature = history.signatures_of(history.rows_of(inv[1]))
        codes = history.value_codes(inv[2], grow=True)
    while True:
        live = np.flatnonzero(~gone)
        every = len(live) == n  # no row withheld: no copies
        labels = class_labels(out if every else out.iloc[live], qi)
        bad = np.zeros(len(live), dtype=bool)
        if model is not None:
            if context is None or not every:
                context = engine.model_context(model, df if every else df.iloc[live], roles)
            bad |= ~np.asarray(model.groups_ok(labels, context), dtype=bool)[labels]
        narrow = np.zeros(len(live), dtype=bool)
        if inv is not None:
            narrow = conflicts(labels, signature[live], codes[live], history, inv[0])
            bad |= narrow
        stuck = bad & suppressed[live]  # suppressed already: nothing more to do for them
        if stuck.any() and withhold:  # rows no cell can publish safely: left out
            gone[live[stuck]] = True
            continue
        if (stuck & narrow).any():
            raise InfeasibleError(
                f"the recoding cannot keep {int((stuck & narrow).sum())} rows m-invariant "
                f"(m = {inv[0]}): in their class, and suppressed in the blank class too, "
                "their person's signature (the values their class showed before) differs "
                "from the class's, their value is not in the class's signature, or a class "
                f"of new persons shows fewer than {inv[0]} values; pass withhold=True to "
                "leave them out of this batch, anonymize the batch afresh, or lower "
                "invariance")
        if stuck.any():
            raise InfeasibleError(infeasible_message(
                int(suppressed.sum()), n, model, budget, False))
        fresh = bad & ~suppressed[live]
        if not fresh.any():
            return suppressed, gone, narrowed
        narrowed += int((narrow & fresh).sum())
        suppressed[live[fresh]] = True
        for c in qi:
            out[c] = out[c].mask(suppressed)


def infeasible_message(count: int, n: int, model, budget: int, together_ok: bool) -> str:
    """Why a batch cannot be published with a recoding, and the fix (pandas and Dask)."""
    why = (f"{count} of its {n} rows are in classes that fail {model!r}"
           + (f", more than the budget of {budget}" if count > budget else "")
           + ("" if together_ok else "; suppressed together they fail it too"))
    return (f"the recoding does not keep this batch private: {why}. Anonymize the batch "
            "afresh (e.g. df.anon.k_anonymize(...)), or raise max_suppressed_rows (a row count "
            "or a share such as 0.1)")


def record_or_empty(model) -> list:
    from pdanon.models.record import record

    return [] if model is None else record(model)


def _with_flags(cells, spec: dict) -> dict:
    """``spec`` with ``or_missing`` (one flag per cell: does it cover missing too, as
    ``[20, 29] or missing`` does) when some cell has it; the file stays as before otherwise."""
    flags = np.asarray(cells.or_missing, dtype=bool)
    if flags.any():
        spec["or_missing"] = [bool(x) for x in flags]
    return spec
