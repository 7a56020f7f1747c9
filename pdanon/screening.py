"""Columns nobody gave a role: do they look like they identify people?

Before anything is published, every column whose role was not given (by keywords, a schema or
roles remembered from an earlier step) is examined. A column is a **suspect** when

* its name looks like an identifier (``id``, ``*_id``, ``patientId``, ``name``, ``email``,
  ``phone``, ``ssn``, ``mrn``, ``address``, ...; :data:`IDENTIFIER_WORDS`),
* or like a date of birth (``dob``, ``birth_date``, ``born``; :data:`BIRTH_WORDS`),
* or it is free text: strings with a median length of at least :data:`FREE_TEXT_LENGTH`
  characters, most holding a space, and at least half of them distinct,
* or its values are unique or nearly so: at least :data:`NEARLY_UNIQUE` of at least
  :data:`MIN_ROWS` non-missing cells are distinct (a measurement such as a price can be too:
  publishing it unchanged links rows to any other copy of it) — except for a numeric column
  inferred a quasi-identifier, which is published generalized into ranges.

Each suspect comes with its evidence ("49,871 distinct values in 50,000 rows"), so that the
refusal (:func:`refusal`) names the column, says why, and gives the two fixes:
``identifiers=[...]`` drops it, ``insensitive=[...]`` publishes it unchanged on purpose.

A column whose name looks like a sensitive attribute (``diagnosis``, ``disease``, ``icd10``,
``salary``, ``income``, ...; :data:`SENSITIVE_WORDS`) is never made a quasi-identifier by
inference: :func:`looks_sensitive` lets :func:`pdanon.roles.resolve_roles` infer it sensitive.

The rules are a safety net, not a detector: pass every role explicitly (keywords or
:func:`pdanon.schema`), and nothing is inferred.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"patient_id": [f"P{i:04d}" for i in range(60)], "age": [30, 40] * 30})
>>> [(s.column, s.evidence) for s in suspects(df, df.columns)]
[('patient_id', 'its name looks like an identifier; no value repeats in 60 rows')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Hashable, Iterable

import pandas as pd

__all__ = ["BIRTH_WORDS", "FREE_TEXT_LENGTH", "IDENTIFIER_WORDS", "MIN_ROWS", "NEARLY_UNIQUE",
           "SENSITIVE_WORDS", "Suspect", "examine", "facts", "judge", "looks_sensitive",
           "refusal", "suspects"]

#: words of a column name that say it identifies people (compared with each word of the name,
#: split at non-letters and camelCase, and with the whole name without separators)
IDENTIFIER_WORDS = frozenset({
    "id", "ids", "uuid", "guid", "name", "names", "firstname", "lastname", "surname",
    "forename", "fullname", "givenname", "middlename", "maidenname", "nickname", "email",
    "mail", "phone", "telephone", "tel", "mobile", "cellphone", "fax", "ssn", "sin", "nin",
    "passport", "mrn", "nhs", "medicare", "medicaid", "iban", "account", "address", "street",
    "ip", "ipaddress", "username", "login", "userid", "url", "licence", "license", "plate",
    "vin", "patientid", "personid", "customerid", "clientid", "memberid", "subjectid",
    "employeeid", "studentid", "recordid", "phonenumber", "emailaddress", "socialsecurity",
    "streetaddress", "contact",
})
#: words of a column name that say it is a date of birth
BIRTH_WORDS = frozenset({"dob", "birth", "birthdate", "birthday", "born", "dateofbirth",
                         "birthdt"})
#: words of a column name that say it is a sensitive attribute
SENSITIVE_WORDS = frozenset({
    "diagnosis", "diagnoses", "diag", "disease", "diseases", "illness", "icd", "icd9", "icd10",
    "salary", "income", "wage", "wages", "earnings", "religion", "hiv", "treatment",
    "medication", "sensitive",
})
#: a column with at least this many non-missing cells can be called (nearly) unique
MIN_ROWS = 50
#: share of distinct values among the non-missing cells that makes a column nearly unique
NEARLY_UNIQUE = 0.95
#: median length (characters) from which strings read as free text
FREE_TEXT_LENGTH = 20
_SAMPLE = 2_000  # cells examined for the length and spaces of free text


@dataclass(frozen=True)
class Suspect:
    """A column without a role that looks like it identifies people: ``what`` (``"identifier"``,
    ``"free text"``, ``"date of birth"``) and the ``evidence``."""

    column: Hashable
    what: str
    evidence: str


def words(name) -> set:
    """The lower-case words of a column name (split at non-letters and camelCase), and the
    whole name without separators.

    Example
    -------
    >>> sorted(words("patientId")), sorted(words("date_of_birth"))
    (['id', 'patient', 'patientid'], ['birth', 'date', 'dateofbirth', 'of'])
    """
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", str(name))
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", text.lower()) if p]
    return set(parts) | {"".join(parts)}


def looks_sensitive(name) -> bool:
    """Does a column name look like a sensitive attribute (:data:`SENSITIVE_WORDS`)?

    Example
    -------
    >>> looks_sensitive("diagnosis_code"), looks_sensitive("salary-class"), looks_sensitive("zip")
    (True, True, False)
    """
    return bool(words(name) & SENSITIVE_WORDS)


def _distinct(series: pd.Series) -> tuple[int, int]:
    """(non-missing cells, distinct values); unhashable cells count as distinct."""
    values = series.dropna()
    try:
        return len(values), int(values.nunique())
    except TypeError:
        return len(values), len(values)


def _text_facts(series: pd.Series):
    """(median length, share of cells with a space) of a string column's cells, on a sample;
    None when the column does not hold strings."""
    dtype = series.dtype
    if not (pd.api.types.is_string_dtype(dtype) or dtype == object):
        return None
    values = series.dropna()
    if len(values) > _SAMPLE:
        values = values.sample(_SAMPLE, random_state=0)
    values = values[values.map(lambda v: isinstance(v, str))]
    if not len(values):
        return None
    text = values.astype(str)
    return float(text.str.len().median()), float(text.str.contains(r"\s", regex=True).mean())


def facts(series: pd.Series) -> tuple:
    """``(non-missing cells, distinct values, text facts or None, boolean?)`` of a column:
    what :func:`judge` decides from (the Dask face computes them distributed)."""
    count, distinct = _distinct(series)
    return count, distinct, _text_facts(series), bool(pd.api.types.is_bool_dtype(series.dtype))


def examine(series: pd.Series, name=None, *, ranges: bool = False) -> Suspect | None:
    """The :class:`Suspect` a column without a role is, or None.

    Example
    -------
    >>> examine(pd.Series(["flu", "cold"] * 30), "disease") is None
    True
    >>> examine(pd.Series(["Ann Lee", "Bo Ng"]), "name").evidence
    'its name looks like an identifier; no value repeats in 2 rows'
    """
    return judge(series.name if name is None else name, *facts(series), ranges=ranges)


def judge(name, count: int, distinct: int, text=None, boolean: bool = False, *,
          ranges: bool = False) -> Suspect | None:
    """The :class:`Suspect` a column is, from its name and :func:`facts`, or None.
    ``ranges``: the column is to be published generalized into ranges (a numeric
    quasi-identifier): unique numbers are then no evidence (a range shows none of them); its
    name and text still are.

    Example
    -------
    >>> judge("score", 1000, 998).evidence
    'unique or nearly: 998 distinct values in 1,000 rows'
    """
    w = words(name)
    spread = (f"no value repeats in {count:,} rows" if count and distinct == count
              else f"{distinct:,} distinct values in {count:,} rows")
    if boolean:
        return None
    if w & IDENTIFIER_WORDS:
        return Suspect(name, "identifier", f"its name looks like an identifier; {spread}")
    if w & BIRTH_WORDS:
        return Suspect(name, "date of birth",
                       f"its name looks like a date of birth; {spread} (publish it as a "
                       f"quasi-identifier, generalized, e.g. to the year)")
    if text is not None and count and distinct >= 0.5 * count and text[0] >= FREE_TEXT_LENGTH \
            and text[1] >= 0.5:
        return Suspect(name, "free text",
                       f"free text: {distinct:,} distinct values in {count:,} rows, median "
                       f"{text[0]:.0f} characters")
    if count >= MIN_ROWS and distinct >= NEARLY_UNIQUE * count and not ranges:
        return Suspect(name, "identifier", f"unique or nearly: {spread}")
    return None


def suspects(df: pd.DataFrame, columns: Iterable, *, ranges=()) -> list:
    """The :class:`Suspect` among ``columns`` of ``df`` (in their order); ``ranges``: those
    of them published generalized into ranges (see :func:`judge`)."""
    out = []
    ranges = set(ranges)
    for c in columns:
        found = examine(df[c], c, ranges=c in ranges)
        if found is not None:
            out.append(found)
    return out


def refusal(found: list, *, where: str = "publishing") -> str:
    """The message that refuses ``found`` suspects: each column, its evidence, and the two
    fixes.

    Example
    -------
    >>> print(refusal([Suspect("name", "identifier", "its name looks like an identifier")]))
    column 'name' has no role and looks like it identifies people; pdanon publishes no column without a decision:
      - 'name': its name looks like an identifier
    Decide: identifiers=['name'] drops it (or df.anon.hash_identifiers pseudonymizes it); insensitive=['name'] publishes it unchanged on purpose.
    """
    names = [s.column for s in found]
    head = (f"column {names[0]!r} has no role and looks" if len(names) == 1 else
            f"{len(names)} columns have no role and look")
    lines = [f"{head} like it identifies people; pdanon publishes no column without a "
             f"decision:" if len(names) == 1 else
             f"{head} like they identify people; pdanon publishes no column without a "
             f"decision:"]
    lines += [f"  - {s.column!r}: {s.evidence}" for s in found]
    them = "it" if len(names) == 1 else "them"
    lines.append(f"Decide: identifiers={names!r} drops {them} (or df.anon.hash_identifiers "
                 f"pseudonymizes {them}); insensitive={names!r} publishes {them} unchanged on "
                 f"purpose.")
    return "\n".join(lines)
