"""Column roles and kinds: resolution, inference, validation and pandera schemas.

A column has a **role** (``identifier``, ``quasi_identifier``, ``sensitive``, ``insensitive``) and,
for quasi-identifiers and sensitive columns, a **kind** (``real``, ``ordered``, ``unordered``).

Roles travel with a frame in ``df.attrs["pdanon"]["roles"]`` as plain dictionaries (cheap to
copy), and can be exported as a pandera ``DataFrameSchema`` whose column metadata carry role and
kind (:func:`schema`, :func:`infer_schema`).

Example
-------
>>> import pandas as pd, pdanon
>>> df = pd.DataFrame({"name": ["a", "b"], "age": [30, 41], "disease": ["flu", "cold"]})
>>> r = resolve_roles(df, identifiers=["name"], sensitive=["disease"])
>>> r.quasi_identifiers
{'age': 'real'}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

import re
import warnings

import numpy as np
import pandas as pd

from pdanon._errors import (InvalidInputError, KindError, KindWarning, RoleError, RoleWarning,
                             UnknownColumnError, user_stacklevel)
from pdanon.publisher_only import ATTRS_KEY  # one definition: a frame's key in df.attrs

KINDS = ("real", "ordered", "unordered")
ROLES = ("identifier", "quasi_identifier", "sensitive", "insensitive")

#: what :func:`resolve_roles` does with the columns whose role it infers: ``"refuse"``
#: (anonymizers, perturbations: a column that looks like it identifies people is refused,
#: :mod:`pdanon.screening`, and one :class:`RoleWarning` lists the roles chosen), ``"warn"``
#: (the metrics, which publish nothing: suspects stay quasi-identifiers, with a warning),
#: ``"ignore"`` (no examination, no warning)
SCREENS = ("refuse", "warn", "ignore")
#: kept for :func:`looks_like_identifier` (see :data:`pdanon.screening.MIN_ROWS`)
IDENTIFIER_MIN_ROWS = 50


@dataclass(frozen=True)
class Roles:
    """Resolved roles of a frame's columns (kinds for quasi-identifiers and sensitive columns)."""

    identifiers: tuple = ()
    quasi_identifiers: dict = field(default_factory=dict)
    sensitive: dict = field(default_factory=dict)
    insensitive: tuple = ()
    #: the columns whose role pdanon inferred (no keyword, schema or remembered role named
    #: them), ``{column: role}``; not remembered with the frame (a published frame's roles
    #: are decided)
    inferred: dict = field(default_factory=dict, compare=False, repr=False)
    #: the quasi-identifier and sensitive columns named without a kind (inferred)
    inferred_kinds: tuple = field(default=(), compare=False, repr=False)

    @property
    def qi(self) -> list:
        """Quasi-identifier column names, in frame order."""
        return list(self.quasi_identifiers)

    def kind(self, column) -> str:
        """The kind of a quasi-identifier or sensitive column."""
        if column in self.quasi_identifiers:
            return self.quasi_identifiers[column]
        return self.sensitive[column]

    def to_dict(self) -> dict:
        """Plain-dict form, as stored in ``df.attrs``."""
        return {
            "identifiers": list(self.identifiers),
            "quasi_identifiers": dict(self.quasi_identifiers),
            "sensitive": dict(self.sensitive),
            "insensitive": list(self.insensitive),
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> "Roles":
        return cls(
            identifiers=tuple(d.get("identifiers", ())),
            quasi_identifiers=dict(d.get("quasi_identifiers", {})),
            sensitive=dict(d.get("sensitive", {})),
            insensitive=tuple(d.get("insensitive", ())),
        )

    def restricted_to(self, columns: Iterable) -> "Roles":
        """The same roles for the columns still present (e.g. after identifiers were dropped)."""
        cols = set(columns)
        return Roles(
            identifiers=tuple(c for c in self.identifiers if c in cols),
            quasi_identifiers={c: k for c, k in self.quasi_identifiers.items() if c in cols},
            sensitive={c: k for c, k in self.sensitive.items() if c in cols},
            insensitive=tuple(c for c in self.insensitive if c in cols),
        )


def infer_kind(series: pd.Series) -> str:
    """The kind pdanon assumes for a column: numeric -> real, ordered Categorical -> ordered,
    dates (datetime64 with or without a time zone, ``datetime.date`` objects, periods) and
    durations -> ordered, generalized columns keep their kind, anything else -> unordered."""
    dtype = series.dtype
    if type(dtype).__name__ == "GeneralizationDtype":
        return dtype.column_type
    if isinstance(dtype, pd.CategoricalDtype):
        return "ordered" if dtype.ordered else "unordered"
    if pd.api.types.is_bool_dtype(dtype):
        return "unordered"
    if pd.api.types.is_numeric_dtype(dtype):
        return "real"
    if pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(
            dtype) or isinstance(dtype, pd.PeriodDtype):
        return "ordered"
    if dtype == object and _holds_dates(series):
        return "ordered"
    return "unordered"


#: the largest code of a column of small whole numbers read as codes (race 1-4, region 1-9)
CODE_MAX = 9
#: how many rows per distinct value such a column holds at least (its values repeat: codes,
#: not a handful of measurements)
CODE_REPEATS = 5


def looks_like_codes(series: pd.Series) -> bool:
    """Does a numeric column hold codes rather than quantities: whole numbers from 0 to
    :data:`CODE_MAX` only (race 1-4, sex 1-2, region 1-9; blanks allowed), each distinct
    value repeated on average at least :data:`CODE_REPEATS` times? Such a column, given
    no kind, is a quasi-identifier or sensitive column of kind ``unordered`` (a range
    ``[1, 3]`` of race codes means nothing); declare ``real`` (or ``ordered``) for counts.
    The command line applies the same rule (:func:`pdanon.cli.anonymize.convert_column`).

    Example
    -------
    >>> looks_like_codes(pd.Series([1, 2, 3, 4, None] * 5))
    True
    >>> looks_like_codes(pd.Series([30, 41, 52] * 10)), looks_like_codes(pd.Series([1, 2]))
    (False, False)
    """
    dtype = series.dtype
    if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype) or \
            type(dtype).__name__ == "GeneralizationDtype":
        return False
    values = pd.unique(series.dropna().to_numpy())
    present = int(series.notna().sum())
    if not len(values) or present < CODE_REPEATS * len(values) or len(values) > CODE_MAX + 1:
        return False
    values = np.asarray(values, dtype=np.float64)
    return bool(np.all(values == np.round(values)) and values.min() >= 0
                and values.max() <= CODE_MAX)


def role_kind(series: pd.Series) -> str:
    """The kind a quasi-identifier or sensitive column named without one gets:
    :func:`infer_kind`, but ``unordered`` for codes (:func:`looks_like_codes`)."""
    kind = infer_kind(series)
    return "unordered" if kind == "real" and looks_like_codes(series) else kind


def _holds_dates(series: pd.Series) -> bool:
    """An object column of ``datetime.date`` values (and missing cells): dates, in order."""
    head = series.head(1000).dropna()
    if not len(head) or pd.api.types.infer_dtype(head, skipna=True) != "date":
        return False
    return pd.api.types.infer_dtype(series, skipna=True) == "date"


def _check_frame(df: pd.DataFrame) -> None:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")
    if df.columns.has_duplicates:
        dups = sorted({str(c) for c in df.columns[df.columns.duplicated()]})
        raise InvalidInputError(
            f"duplicate column names {dups}: give every column a unique name "
            "(e.g. df.columns = [...]) before anonymizing"
        )


def _is_one_name(df: pd.DataFrame, spec) -> bool:
    """A role given as a single column name (a string, an int, or a tuple naming a column)."""
    if isinstance(spec, bool):
        return False
    if isinstance(spec, (str, int)):
        return True
    return isinstance(spec, tuple) and spec in set(df.columns)


def _check_columns(df: pd.DataFrame, names: Iterable, what: str) -> None:
    existing = set(df.columns)  # exact names: a MultiIndex must not accept partial keys
    missing = [c for c in names if c not in existing]
    if missing:
        raise UnknownColumnError(
            f"unknown {what} column(s) {missing}; the frame has columns {list(df.columns)}"
        )


def _kinds_for(df: pd.DataFrame, spec, what: str, listed: list | None = None) -> dict:
    """Normalize a role spec (None, a name, a list of names, or {name: kind}) to {name: kind}."""
    if spec is None:
        return {}
    if _is_one_name(df, spec):
        spec = [spec]
    if isinstance(spec, Mapping):
        items = list(spec.items())
    else:
        items = [(c, None) for c in spec]
    _check_columns(df, [c for c, _ in items], what)
    out = {}
    for col, kind in items:
        if kind is None:
            kind = role_kind(df[col])
            if listed is not None:
                listed.append(col)
        if kind not in KINDS:
            raise KindError(
                f"unknown kind {kind!r} for {what} column {col!r}; use one of {list(KINDS)}"
            )
        out[col] = kind
    return out


def _names(df: pd.DataFrame, spec, what: str) -> tuple:
    if spec is None:
        return ()
    if _is_one_name(df, spec):
        spec = [spec]
    spec = list(spec)
    _check_columns(df, spec, what)
    return tuple(spec)


def looks_like_identifier(series: pd.Series) -> bool:
    """Whether a column without a role would be refused as one that identifies people
    (:func:`pdanon.screening.examine`: an identifier-like name, free text, a date of birth, or
    unique or nearly unique values among at least 50 cells).

    Example
    -------
    >>> looks_like_identifier(pd.Series([f"R{i:05d}" for i in range(50)]))
    True
    >>> looks_like_identifier(pd.Series(range(49)))   # too few rows to tell
    False
    """
    from pdanon.screening import examine

    return examine(series) is not None


def _screen(df: pd.DataFrame, roles: "Roles", mode: str, decided=(),
            generalized: bool = True) -> None:
    """Examine the columns whose role was inferred: refuse (``"refuse"``) or name (``"warn"``)
    those that look like they identify people; in ``"refuse"`` mode one :class:`RoleWarning`
    lists every role chosen. A column taken as unordered whose cells are digit strings gets a
    :class:`KindWarning` naming ``pd.to_numeric``."""
    if mode not in SCREENS:
        raise InvalidInputError(f"screen must be one of {list(SCREENS)}, got {mode!r}")
    if mode == "ignore":
        return
    from pdanon import screening

    if mode == "refuse" and len(df) and not screening.is_fresh_index(df.index):
        suspects = screening.index_suspects(df.index)  # (a release's own labels pass)
        if suspects:
            raise RoleError(screening.index_refusal(suspects))
    inferred = dict(roles.inferred)
    examined = [c for c in inferred if c not in set(decided)]
    ranges = [c for c in examined if generalized and roles.quasi_identifiers.get(c) == "real"]
    found = screening.suspects(df, examined, ranges=ranges) if examined and len(df) else []
    kinds_inferred = set(inferred) | set(roles.inferred_kinds)
    digits = [c for c in list(roles.quasi_identifiers) + list(roles.sensitive)
              if c in kinds_inferred and roles.kind(c) == "unordered" and digit_codes(df[c])]
    decide(roles, found, mode, {c: df[c].dropna().iloc[0] for c in digits})
    if mode == "refuse" and len(df):
        _declared_groupings(df, roles, set(inferred) | set(decided))


def _declared_groupings(df: pd.DataFrame, roles: "Roles", skip: set) -> None:
    """Warn about the columns declared insensitive that are named like a household, family
    or case id and group rows (:func:`pdanon.screening.households.grouping`): published unchanged on
    the caller's decision, they link a household's rows, which ``household=`` would verify.
    (A declared column whose name says nothing is not examined: every role given means
    nothing is said; ``check()`` names it among its hazards.)"""
    from pdanon.screening import households

    found = {}
    for c in roles.insensitive:
        if c not in skip and households.named_like(c):
            evidence = households.grouping(df[c], c)
            if evidence is not None:
                found[c] = evidence
    if found:
        warnings.warn(households.warning_text(found), RoleWarning, stacklevel=user_stacklevel())


def decide(roles: "Roles", found: list, mode: str, digit_columns: dict | None = None) -> None:
    """What :func:`resolve_roles` does once the inferred columns were examined (``found``:
    :class:`pdanon.screening.Suspect` objects; ``digit_columns``: {column: a digit-string
    cell} of columns taken as unordered): refuse or name the suspects, warn about digit codes,
    list the roles chosen. Faces that examine columns themselves (Dask) call it too."""
    from pdanon import screening

    if mode == "ignore":
        return
    inferred = dict(roles.inferred)
    if found and mode == "refuse":
        raise RoleError(screening.refusal(found))
    # a measure reads only the quasi-identifiers: the suspects it counts as ones are named
    found = [f for f in found if inferred.get(f.column) == "quasi_identifier"]
    if found:
        listed = "; ".join(f"{s.column!r} ({s.evidence})" for s in found)
        warnings.warn(f"column(s) without a role look like they identify people and are "
                      f"counted as quasi-identifiers here: "
                      f"{listed}. Pass roles to choose (identifiers=[...], "
                      f"quasi_identifiers=[...], insensitive=[...]).", RoleWarning,
                      stacklevel=user_stacklevel())
    for c, sample in (digit_columns or {}).items():
        warnings.warn(
            f"column {c!r} holds digit strings (such as {sample!r}) and is taken as unordered "
            f"text codes. If they are numbers, convert them first: df[{c!r}] = "
            f"pd.to_numeric(df[{c!r}]) (kind real); if they are codes (ZIP, ICD, leading zeros "
            f"kept), say so: {{{c!r}: 'unordered'}}.", KindWarning,
            stacklevel=user_stacklevel())
    if mode == "refuse" and inferred:
        warnings.warn(_inferred_text(roles, inferred), RoleWarning, stacklevel=user_stacklevel())


def _inferred_text(roles: "Roles", inferred: dict) -> str:
    from pdanon.screening import looks_sensitive

    parts = []
    qi = [c for c in roles.quasi_identifiers if c in inferred]
    if qi:
        parts.append("quasi-identifiers " + ", ".join(
            f"{c!r} ({roles.quasi_identifiers[c]})" for c in qi))
    sens = [c for c in roles.sensitive if c in inferred]
    if sens:
        parts.append("sensitive " + ", ".join(
            f"{c!r} ({roles.sensitive[c]}{', its name' if looks_sensitive(c) else ''})"
            for c in sens))
    ins = [c for c in roles.insensitive if c in inferred]
    if ins:
        parts.append("insensitive (published unchanged) " + ", ".join(map(repr, ins)))
    return ("pdanon chose roles for the columns you did not name: " + "; ".join(parts)
            + ". Pass roles to decide yourself (identifiers=, quasi_identifiers=, sensitive=, "
            "insensitive=, or df.anon.with_schema(pdanon.schema(...))).")


def digit_codes(series: pd.Series) -> bool:
    """Are a text column's cells (a sample) all digit strings, such as '04777'?"""
    dtype = series.dtype
    if not (pd.api.types.is_string_dtype(dtype) or dtype == object) or isinstance(
            dtype, pd.CategoricalDtype):
        return False
    values = series.dropna().head(1000)
    if not len(values) or not values.map(lambda v: isinstance(v, str)).all():
        return False
    return bool(values.astype(str).str.fullmatch(r"[+-]?\d+(\.\d+)?").all())


def stored_roles(df: pd.DataFrame) -> Roles | None:
    """Roles remembered by :meth:`df.anon.with_schema` or an earlier pdanon call, if any."""
    stored = df.attrs.get(ATTRS_KEY, {}).get("roles")
    if stored is None:
        return None
    return _named_as(Roles.from_dict(stored), df.columns).restricted_to(df.columns)


def as_columns(names, columns) -> list:
    """``names`` (read back from attrs) as the columns they name: see :func:`_named_as`."""
    present = set(columns)
    texts: dict = {}
    for c in columns:
        texts.setdefault(str(c), []).append(c)
    return [c if c in present or len(texts.get(str(c), ())) != 1 else texts[str(c)][0]
            for c in names]


def _named_as(roles: Roles, columns) -> Roles:
    """``roles`` with each name that is not a column but is the text of exactly one column
    given that column: attrs written to Parquet as JSON turn the column name ``0`` into the
    text ``"0"``, and the roles of a frame with integer column names were lost (its k then
    measured over no quasi-identifier)."""
    named = [*roles.identifiers, *roles.quasi_identifiers, *roles.sensitive,
             *roles.insensitive]
    name = dict(zip(named, as_columns(named, columns))).__getitem__
    return Roles(identifiers=tuple(name(c) for c in roles.identifiers),
                 quasi_identifiers={name(c): k for c, k in roles.quasi_identifiers.items()},
                 sensitive={name(c): k for c, k in roles.sensitive.items()},
                 insensitive=tuple(name(c) for c in roles.insensitive))


def resolve_roles(
    df: pd.DataFrame,
    *,
    identifiers=None,
    quasi_identifiers=None,
    sensitive=None,
    insensitive=None,
    screen: str = "refuse",
    decided=(),
    generalized: bool = True,
) -> Roles:
    """Work out every column's role and kind.

    Keywords win for the roles they name. Roles remembered in ``df.attrs`` (from
    ``with_schema`` or an earlier pdanon step) fill in the roles not given as keywords — so a
    remembered identifier stays an identifier (and is dropped) unless a keyword gives that column
    another role. Kinds default to :func:`infer_kind`.

    The roles of columns nobody named are **inferred**: when ``quasi_identifiers`` is given
    (or remembered), they are ``insensitive`` (published unchanged); otherwise they are
    quasi-identifiers, except a column whose name looks like a sensitive attribute
    (``diagnosis``, ``disease``, ``salary``...: :func:`pdanon.screening.looks_sensitive`),
    which is inferred sensitive — never a quasi-identifier. Columns added after roles were
    remembered are inferred insensitive.

    ``screen`` says what happens to the inferred columns before anything is published:

    * ``"refuse"`` (default; every anonymizer and perturbation): a column that looks like it
      identifies people (:mod:`pdanon.screening`: an identifier-like name, free text, a date
      of birth, unique or nearly unique values) is refused with a :class:`pdanon.RoleError`
      naming each such column, the evidence and the two fixes; otherwise one
      :class:`pdanon.RoleWarning` lists the roles chosen, so nothing is decided silently;
    * ``"warn"`` (the metrics, which publish nothing): such columns keep their inferred role,
      named in a :class:`pdanon.RoleWarning`;
    * ``"ignore"``: no examination, no warning.

    A column whose kind is inferred as unordered while its cells are digit strings
    (``"04777"``) gets a :class:`pdanon.KindWarning` naming ``pd.to_numeric``. ``decided``:
    columns the call names in another way (the columns a perturbation perturbs), which are
    not examined. ``generalized``: the caller publishes the quasi-identifiers generalized
    (the anonymizers; a numeric one as ranges, so its unique values are no evidence), not as
    they are (the perturbations of other columns).

    Example
    -------
    >>> import warnings
    >>> df = pd.DataFrame({"age": [30, 40] * 30, "disease": ["flu", "hiv"] * 30})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r = resolve_roles(df)
    >>> r.qi, list(r.sensitive), caught[0].category.__name__
    (['age'], ['disease'], 'RoleWarning')
    >>> df["patient_id"] = [f"P{i:04d}" for i in range(60)]
    >>> resolve_roles(df, quasi_identifiers=["age"], sensitive=["disease"])
    Traceback (most recent call last):
    ...
    pdanon._errors.RoleError: column 'patient_id' has no role and looks like it identifies people; pdanon publishes no column without a decision:
      - 'patient_id': its name looks like an identifier; no value repeats in 60 rows
    Decide: identifiers=['patient_id'] drops it (or df.anon.hash_identifiers pseudonymizes it); insensitive=['patient_id'] publishes it unchanged on purpose.
    """
    from pdanon.screening import looks_sensitive

    _check_frame(df)
    if screen not in SCREENS:
        raise InvalidInputError(f"screen must be one of {list(SCREENS)}, got {screen!r}")
    explicit = any(x is not None for x in (identifiers, quasi_identifiers, sensitive, insensitive))
    stored = stored_roles(df)
    if not explicit and stored is not None:
        roles = _complete(df, stored)
        _screen(df, roles, screen, decided, generalized)
        return roles
    listed = []  # columns named without a kind: the kind is inferred
    ids = _names(df, identifiers, "identifier")
    sens = _kinds_for(df, sensitive, "sensitive", listed)
    ins = _names(df, insensitive, "insensitive")
    qis = None if quasi_identifiers is None else _kinds_for(df, quasi_identifiers,
                                                            "quasi-identifier", listed)
    inferred: dict = {}
    if stored is not None:
        # remembered roles fill in what the keywords leave open
        named = set(ids) | set(sens) | set(ins) | set(qis or ())
        if identifiers is None:
            ids = tuple(c for c in stored.identifiers if c not in named)
        if sensitive is None:
            sens = {c: k for c, k in stored.sensitive.items() if c not in named}
        if insensitive is None:
            ins = tuple(c for c in stored.insensitive if c not in named)
        if qis is None:
            qis = {c: k for c, k in stored.quasi_identifiers.items() if c not in named}
    elif qis is None:
        taken = set(ids) | set(sens) | set(ins)
        rest = [c for c in df.columns if c not in taken]
        sens = dict(sens)
        for c in rest:  # a column that sounds sensitive is never made a quasi-identifier
            if looks_sensitive(c):
                sens[c] = role_kind(df[c])
                inferred[c] = "sensitive"
        qis = {c: role_kind(df[c]) for c in rest if c not in sens}
        inferred.update({c: "quasi_identifier" for c in qis})
    seen: dict = {}
    for role, cols in (("identifier", ids), ("quasi_identifier", qis), ("sensitive", sens),
                       ("insensitive", ins)):
        for c in cols:
            if c in seen:
                raise InvalidInputError(
                    f"column {c!r} is given two roles ({seen[c]} and {role}); give it one"
                )
            seen[c] = role
    rest = tuple(c for c in df.columns if c not in seen)
    inferred.update({c: "insensitive" for c in rest})
    roles = Roles(
        identifiers=tuple(c for c in df.columns if c in set(ids)),
        quasi_identifiers={c: qis[c] for c in df.columns if c in qis},
        sensitive={c: sens[c] for c in df.columns if c in sens},
        insensitive=tuple(c for c in df.columns if c in set(ins)) + rest,
        inferred={c: inferred[c] for c in df.columns if c in inferred},
        inferred_kinds=tuple(listed),
    )
    _screen(df, roles, screen, decided, generalized)
    return roles


def _complete(df: pd.DataFrame, roles: Roles) -> Roles:
    """Columns added after roles were stored are insensitive (inferred)."""
    known = set(roles.identifiers) | set(roles.quasi_identifiers) | set(roles.sensitive) | set(
        roles.insensitive
    )
    extra = tuple(c for c in df.columns if c not in known)
    if not extra:
        return roles
    return Roles(roles.identifiers, roles.quasi_identifiers, roles.sensitive,
                 roles.insensitive + extra, inferred={c: "insensitive" for c in extra})


def foreign_attrs(attrs: dict) -> dict:
    """The attrs a result carries of its input's: none but pdanon's own. The others are
    named in a warning: attrs travel with Parquet files and pickles, and pdanon cannot tell
    whether they hold something the release should hide (a cohort's ids, a query)."""
    dropped = [k for k in attrs if k != ATTRS_KEY]
    if dropped:
        warnings.warn(
            f"the input's attrs {sorted(map(str, dropped))} are not carried into the result: "
            f"attrs travel with Parquet files and pickles, and pdanon cannot tell whether "
            f"they hold something the release should hide (a cohort's ids, a query); set "
            f"them on the result yourself if they do not", UserWarning,
            stacklevel=user_stacklevel())
    return {}


def with_roles(df: pd.DataFrame, roles: Roles) -> pd.DataFrame:
    """Return ``df`` (same object) with ``roles`` remembered in its attrs."""
    meta = dict(df.attrs.get(ATTRS_KEY, {}))
    meta["roles"] = roles.restricted_to(df.columns).to_dict()
    df.attrs[ATTRS_KEY] = meta
    return df


# --------------------------------------------------------------------------- pandera schemas


def schema(
    *,
    identifiers: Iterable = (),
    quasi_identifiers: Mapping | Iterable = (),
    sensitive: Mapping | Iterable = (),
    insensitive: Iterable = (),
    name: str | None = None,
    columns: Mapping | None = None,
):
    """Build a pandera ``DataFrameSchema`` that records each column's role and kind, and
    checks that each quasi-identifier and sensitive column holds what its kind says.

    Roles and kinds go into each column's ``metadata`` (``{"role": ..., "kind": ...}``) and,
    because pandera's YAML/JSON export drops column metadata, also into the schema-level
    ``metadata["pdanon"]`` block. ``columns`` adds what a column stores,
    ``{column: {"dtype": ..., "categories": [...], "ordered": bool}}`` (as
    :func:`column_spec` describes a column; :func:`infer_schema` and ``df.anon.schema`` fill it
    from the frame), so that :func:`pdanon.read_csv` can restore the column exactly.

    Each quasi-identifier and sensitive column gets a ``pdanon_kind`` check
    (:mod:`pdanon.dtype.schema_checks`): a ``real`` column holds numbers, dates or generalized
    ranges (a ``birth_year`` of strings fails, naming ``pd.to_numeric``); a column whose
    categories are given holds only them, in their order when ``ordered``. Missing cells
    always pass. ``df.anon.with_schema`` reports failures one line each.

    Example
    -------
    >>> s = schema(identifiers=["name"], quasi_identifiers={"age": "real", "sex": "unordered"},
    ...            sensitive={"disease": "unordered"})
    >>> s.columns["age"].metadata
    {'role': 'quasi_identifier', 'kind': 'real'}
    >>> s = schema(quasi_identifiers={"edu": "ordered"},
    ...            columns={"edu": {"dtype": "category", "categories": ["HS", "BSc"],
    ...                             "ordered": True}})
    >>> s.columns["edu"].metadata["categories"]
    ['HS', 'BSc']
    >>> import pandas as pd
    >>> s = schema(quasi_identifiers={"birth_year": "real"})
    >>> s.validate(pd.DataFrame({"birth_year": ["1990"]}))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pandera.errors.SchemaError: ... column 'birth_year' (quasi-identifier, kind 'real'): convert it with ...
    """
    import pandera.pandas as pa

    from pdanon.dtype import schema_checks

    def as_kinds(spec, what):
        if isinstance(spec, Mapping):
            items = dict(spec)
        else:
            items = {c: "unordered" for c in spec}
        for c, k in items.items():
            if k not in KINDS:
                raise KindError(f"unknown kind {k!r} for {what} column {c!r}; use one of {list(KINDS)}")
        return items

    qis = as_kinds(quasi_identifiers, "quasi-identifier")
    sens = as_kinds(sensitive, "sensitive")
    specs = {c: dict(spec) for c, spec in (columns or {}).items()}
    columns = {}
    roles = {"identifiers": list(identifiers), "quasi_identifiers": qis, "sensitive": sens,
             "insensitive": list(insensitive)}
    seen = set()
    for role, cols in (("identifier", roles["identifiers"]), ("quasi_identifier", qis),
                       ("sensitive", sens), ("insensitive", roles["insensitive"])):
        for c in cols:
            if c in seen:
                raise InvalidInputError(f"column {c!r} is given two roles; give it one")
            seen.add(c)
            meta = {"role": role}
            checks = []
            if role in ("quasi_identifier", "sensitive"):
                meta["kind"] = cols[c]
                spec = specs.get(c, {})
                checks.append(schema_checks.kind_check(  # dates' ISO text: checked by kind
                    c, cols[c], role, None if spec.get("categories_type") else
                    spec.get("categories")))
            meta.update(specs.get(c, {}))
            columns[c] = pa.Column(nullable=True, required=True, metadata=meta, checks=checks)
    unknown = [c for c in specs if c not in seen]
    if unknown:
        raise InvalidInputError(f"columns= describes column(s) {unknown} that have no role; "
                                f"give them one (e.g. insensitive=[...])")
    if specs:
        roles["columns"] = specs
    return pa.DataFrameSchema(columns, name=name, metadata={"pdanon": roles})


def column_spec(series: pd.Series) -> dict:
    """What a column stores, for a schema: ``{"dtype": name}``, plus ``"categories"`` (a
    list) and ``"ordered"`` for a Categorical, and ``"categories"`` for a generalized column
    that has them (ordered categories in their order).

    Example
    -------
    >>> column_spec(pd.Series(pd.Categorical(["HS"], categories=["HS", "BSc"], ordered=True)))
    {'dtype': 'category', 'categories': ['HS', 'BSc'], 'ordered': True}
    >>> column_spec(pd.Series([1.5]))
    {'dtype': 'float64'}
    """
    from pdanon.dtype._common import plain_categories

    dtype = series.dtype
    spec: dict = {"dtype": str(dtype)}
    categories = getattr(dtype, "categories", None)
    if not (isinstance(dtype, pd.CategoricalDtype) or (
            getattr(dtype, "name", "").startswith("generalization[") and categories is not None)):
        return spec
    text, ctype = plain_categories(categories)  # dates and times: ISO text, and their type
    spec["categories"] = _plain_list(categories) if ctype is None else text
    if isinstance(dtype, pd.CategoricalDtype):
        spec["ordered"] = bool(dtype.ordered)
    if ctype is not None:
        spec["categories_type"] = ctype
    return spec


def _plain_list(index: pd.Index) -> list:
    """Categories as plain Python values (numpy scalars unwrapped)."""
    return [v.item() if hasattr(v, "item") and not isinstance(v, (str, bytes)) else v
            for v in index.tolist()]


def frame_schema(df: pd.DataFrame, roles: Roles, *, name: str | None = None):
    """The pandera schema of resolved ``roles`` with what each column of ``df`` but the
    identifiers stores (:func:`column_spec`): the schema ``df.anon.schema`` returns.

    Example
    -------
    >>> df = pd.DataFrame({"edu": pd.Categorical(["BSc", "HS"], categories=["HS", "BSc"],
    ...                                          ordered=True)})
    >>> frame_schema(df, resolve_roles(df)).columns["edu"].metadata["categories"]
    ['HS', 'BSc']
    """
    # identifiers are never published (nor read back): their metadata stays the role alone
    named = set(roles.quasi_identifiers) | set(roles.sensitive) | set(roles.insensitive)
    specs = {c: column_spec(df[c]) for c in df.columns if c in named}
    out = schema(identifiers=roles.identifiers, quasi_identifiers=roles.quasi_identifiers,
                 sensitive=roles.sensitive, insensitive=roles.insensitive, name=name,
                 columns=specs)
    facts = release_facts(df.attrs.get(ATTRS_KEY, {}).get("info") or {})
    if facts:
        out.metadata["pdanon"]["release"] = facts
    return out


#: what a schema carries of the release's ``info``: what its verdict reads (the request, the
#: rule for missing cells, the rows suppressed, the order of the rows), so a CSV read back
#: with its schema is checked as the release was; public figures only
RELEASE_FACTS = ("operation", "algorithm", "model", "models", "params", "k", "missing",
                 "suppressed_rows", "rows_match_input", "row_order", "dp", "achieved",
                 "quasi_identifiers", "channels_allowed", "household")


def release_facts(info: dict) -> dict:
    """The part of a release's ``info`` a schema records (:data:`RELEASE_FACTS`)."""
    import json

    facts = {k: info[k] for k in RELEASE_FACTS if k in info}
    return json.loads(json.dumps(facts, default=str)) if facts else {}


def schema_block(sch) -> dict:
    """The ``metadata["pdanon"]`` block of a pandera schema (roles, column specs, the
    release's facts, how its CSV was written); ``{}`` for a schema without one or a dict."""
    if isinstance(sch, Mapping):
        return {}
    return (getattr(sch, "metadata", None) or {}).get("pdanon") or {}


def roles_from_schema(sch) -> dict:
    """Role keywords (for :func:`resolve_roles`) from a pandera schema made by :func:`schema`
    or from any pandera schema whose columns carry ``{"role", "kind"}`` metadata."""
    meta = schema_block(sch)
    if meta:
        return {
            "identifiers": list(meta.get("identifiers", [])),
            "quasi_identifiers": dict(meta.get("quasi_identifiers", {})),
            "sensitive": dict(meta.get("sensitive", {})),
            "insensitive": list(meta.get("insensitive", [])),
        }
    out = {"identifiers": [], "quasi_identifiers": {}, "sensitive": {}, "insensitive": []}
    for name, col in sch.columns.items():
        m = col.metadata or {}
        role = m.get("role", "insensitive")
        if role == "identifier":
            out["identifiers"].append(name)
        elif role == "quasi_identifier":
            out["quasi_identifiers"][name] = m.get("kind")
        elif role == "sensitive":
            out["sensitive"][name] = m.get("kind")
        else:
            out["insensitive"].append(name)
    return out


def infer_schema(df: pd.DataFrame, *, identifiers=None, quasi_identifiers=None, sensitive=None,
                 insensitive=None, name: str | None = None):
    """A pandera schema for ``df`` with roles as :func:`resolve_roles` would resolve them
    (columns that look like identifiers become identifiers, with a :class:`pdanon.RoleWarning`,
    when neither ``identifiers`` nor ``quasi_identifiers`` is given).

    Each column's metadata also says what it stores (:func:`column_spec`: dtype, and the
    categories of Categorical and generalized columns), which :func:`pdanon.read_csv` uses to
    restore the columns exactly.

    Example
    -------
    >>> df = pd.DataFrame({"age": [30, 41], "sex": ["F", "M"]})
    >>> infer_schema(df).columns["sex"].metadata
    {'role': 'quasi_identifier', 'kind': 'unordered', 'dtype': 'str'}
    """
    r = resolve_roles(df, identifiers=identifiers, quasi_identifiers=quasi_identifiers,
                      sensitive=sensitive, insensitive=insensitive)
    return frame_schema(df, r, name=name)


def roles_to_schema(roles: Roles):
    """The pandera schema of resolved roles."""
    return schema(identifiers=roles.identifiers, quasi_identifiers=roles.quasi_identifiers,
                  sensitive=roles.sensitive, insensitive=roles.insensitive)


def validate_qi_values(df: pd.DataFrame, columns: Iterable) -> None:
    """Raise a teaching error for QI columns an anonymizer cannot process (infinite numbers,
    mixed types in a column read in order; missing cells are data); the rules live in
    :func:`pdanon.encode.validate_values`."""
    from pdanon.encode import validate_values

    validate_values(df, columns)


def schema_to_yaml(sch, path=None) -> str | None:
    """Serialize a pdanon schema to YAML *with* its roles and kinds.

    pandera's own ``to_yaml`` drops column and schema metadata, so the roles would be lost;
    this writes pandera's YAML under ``pandera:`` and the roles under ``pdanon:``. Read it back
    with :func:`schema_from_yaml`. Returns the text when ``path`` is None.

    Example
    -------
    >>> s = schema(quasi_identifiers={"age": "real"})
    >>> schema_from_yaml(schema_to_yaml(s)).columns["age"].metadata
    {'role': 'quasi_identifier', 'kind': 'real'}
    """
    import yaml

    roles = roles_from_schema(sch)
    specs = _column_specs_of(sch)
    if specs:
        roles["columns"] = specs
    block = schema_block(sch)
    for key in ("release", "csv"):  # the release's facts; how its CSV was written
        if block.get(key):
            roles[key] = block[key]
    try:
        doc = {"pdanon": roles, "pandera": yaml.safe_load(sch.to_yaml())}
        text = yaml.dump(doc, Dumper=_quoting_dumper(), sort_keys=False)
    except yaml.representer.RepresenterError as exc:
        bad = exc.args[1] if len(exc.args) > 1 else None
        where = [c for c, spec in (roles.get("columns") or {}).items()
                 if bad is not None and bad in (spec.get("categories") or [])]
        raise InvalidInputError(
            f"the schema cannot be written as YAML: column {where[0] if where else '?'!r} "
            f"holds {type(bad).__name__} values that have no text form here (timestamps of "
            f"several time zones in one column?); convert the column to one time zone "
            f"(pd.to_datetime(..., utc=True)) or to text first") from None
    if path is None:
        return text
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return None


#: plain scalars a YAML 1.2 reader takes for something else than text (its core schema:
#: integers with a leading zero such as 02139, octal and hex forms, floats, booleans, null)
_YAML12_NOT_TEXT = re.compile(
    r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)"
    r"(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|true|True|TRUE|false|"
    r"False|FALSE|null|Null|NULL|~|)$")


def _quoting_dumper():
    """A YAML safe dumper that quotes every text a YAML 1.2 reader would read as a number, a
    boolean or null (PyYAML reads YAML 1.1 and leaves ``02139`` plain)."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def text(dumper, value):
        style = "'" if _YAML12_NOT_TEXT.match(value) else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return Dumper


_SPEC_KEYS = ("dtype", "categories", "ordered", "categories_type")


def _column_specs_of(sch) -> dict:
    """``{column: {dtype, categories, ordered}}`` recorded in a schema's column metadata."""
    out = {}
    for c, col in sch.columns.items():
        spec = {k: v for k, v in (col.metadata or {}).items() if k in _SPEC_KEYS}
        if spec:
            out[c] = spec
    return out


def schema_from_yaml(source):
    """Read a schema written by :func:`schema_to_yaml` (a path or the YAML text)."""
    import os

    import pandera.pandas as pa
    import yaml

    from pdanon.dtype import schema_checks

    schema_checks.register()  # the pdanon_kind checks in the YAML
    text = source
    if isinstance(source, (str, os.PathLike)) and os.path.exists(source):
        from pdanon.sidefiles import read_side_text

        text = read_side_text(source, what="schema file")  # a regular file, <= 64 MiB
    doc = yaml.safe_load(text)
    if not isinstance(doc, dict) or "pdanon" not in doc or "pandera" not in doc:
        raise InvalidInputError("not a pdanon schema file (expected 'pdanon:' and 'pandera:' keys)")
    sch = pa.DataFrameSchema.from_yaml(yaml.safe_dump(doc["pandera"]))
    roles = doc["pdanon"]
    updates = {}
    specs = roles.get("columns") or {}
    for role, names in (("identifier", roles.get("identifiers", [])),
                        ("quasi_identifier", roles.get("quasi_identifiers", {})),
                        ("sensitive", roles.get("sensitive", {})),
                        ("insensitive", roles.get("insensitive", []))):
        for c in names:
            meta = {"role": role}
            if isinstance(names, dict):
                meta["kind"] = names[c]
            meta.update(specs.get(c, {}))
            if c in sch.columns:
                updates[c] = {"metadata": meta}
    sch = sch.update_columns(updates)
    sch.metadata = {"pdanon": roles}
    return sch
