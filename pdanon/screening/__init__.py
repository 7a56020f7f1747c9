"""Columns nobody gave a role: do they look like they identify people?

Before anything is published, every column whose role was not given (by keywords, a schema or
roles remembered from an earlier step) is examined. A column is a **suspect** when

* its name looks like an identifier (``id``, ``*_id``, ``patientId``, ``name``, ``email``,
  ``phone``, ``ssn``, ``mrn``, ``address``, ...; :data:`IDENTIFIER_WORDS`),
* or like a date of birth (``dob``, ``birth_date``, ``born``; :data:`BIRTH_WORDS`; not
  ``country_of_birth`` or ``birth_weight``: :data:`BIRTH_OTHER`),
* or it is free text: strings with a median length of at least :data:`FREE_TEXT_LENGTH`
  characters, most holding a space, and at least half of them distinct; or its name says it
  holds notes (``note``, ``comments``, ``remarks``, ``narrative``, ...; :data:`NOTE_WORDS`),
* or some of its text cells hold contact details: e-mail addresses, phone numbers or
  social-security-like numbers (:data:`CONTACT_PATTERNS`) — one ``"called daughter at
  555-0123"`` among notes that mostly repeat is enough,
* or its values say so, whatever its name (:func:`pdanon.screening.content.finding`): person names
  (:mod:`pdanon.screening.names`), dates of birth, national-id-like digit strings, free text among
  ``none``/``n/a`` placeholders,
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
from typing import Hashable, Iterable, NamedTuple

import pandas as pd

from pdanon.screening.content import finding as content_finding
from pdanon.screening.households import grouping as grouping_evidence
from pdanon.screening.households import grouping_of_sizes
from pdanon.screening.households import named_like as named_like_grouping
from pdanon.screening.households import refusal_lines as grouping_fixes

__all__ = ["BIRTH_OTHER", "BIRTH_WORDS", "CONTACT_PATTERNS", "FREE_TEXT_LENGTH",
           "IDENTIFIER_WORDS", "MIN_ROWS", "NEARLY_UNIQUE", "NOTE_WORDS", "NUMBER_WORDS",
           "PERSON_NAMES", "RECORD_DIGITS", "RECORD_NOUNS", "SENSITIVE_WORDS", "Facts",
           "Suspect", "contact_details", "examine", "facts", "index_refusal", "index_suspects",
           "judge", "looks_sensitive", "refusal", "suspects"]

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
    "streetaddress", "contact", "fname", "lname", "patientname", "vorname", "nachname",
    "familienname", "nombre", "apellido", "apellidos", "prenom", "nom", "cognome", "nome",
    "achternaam", "voornaam",
})
#: nouns of people and their records: a name holding one of them and a number word
#: (:data:`NUMBER_WORDS`: ``patient_no``, ``case number``, ``TaxNr``) identifies people
RECORD_NOUNS = frozenset({
    "patient", "person", "case", "record", "member", "account", "policy", "insurance",
    "insured", "customer", "client", "employee", "student", "subject", "visit", "encounter",
    "admission", "claim", "chart", "medical", "social", "tax", "passport", "license",
    "licence", "national", "health", "hospital", "registration",
})
#: number words of a column name (with a :data:`RECORD_NOUNS` noun: an identifier)
NUMBER_WORDS = frozenset({"no", "nr", "num", "number", "nbr", "nummer", "numero"})
#: whole column names that name people (``Patient`` holding names or numbers)
PERSON_NAMES = frozenset({
    "patient", "person", "customer", "client", "employee", "student", "resident", "insured",
    "beneficiary", "applicant", "respondent",
})
#: words of a column name that say it is a date of birth
BIRTH_WORDS = frozenset({"dob", "birth", "birthdate", "birthday", "born", "dateofbirth",
                         "birthdt", "bdate", "bday", "geburtsdatum", "geburtstag",
                         "nacimiento", "naissance", "nascita"})
#: words that make a name with a :data:`BIRTH_WORDS` word something other than a date of birth
#: (``country_of_birth``, ``birth_weight``, ``birth_year``: the values are still examined)
BIRTH_OTHER = frozenset({"country", "place", "city", "town", "land", "nation", "nationality",
                         "state", "region", "weight", "order", "year", "month", "decade",
                         "cohort", "rate", "length", "height"})
#: words of a column name that say it holds notes written about people (free text)
NOTE_WORDS = frozenset({"note", "notes", "comment", "comments", "remark", "remarks",
                        "narrative", "narratives", "freetext", "memo", "memos", "annotation",
                        "annotations", "summary", "hpi", "anamnesis", "transcript",
                        "transcription"})
#: what contact details look like inside a text cell (:func:`contact_details`); each pattern
#: is searched in every distinct text of a column (at most :data:`CONTACT_VALUES` of them)
CONTACT_PATTERNS = {
    "e-mail addresses": r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+",
    # "john at example dot com", "john[at]example.com", "john (at) example (dot) com"
    "obfuscated e-mail addresses": (
        r"(?i)(?<![\w.+-])[\w.+-]*\w\s*(?:[\[({<]\s*at\s*[\])}>]|\s(?:at|@)\s)\s*"
        r"[\w-]+(?:(?:\.|\s*[\[({<]\s*dot\s*[\])}>]\s*|\s+dot\s+)[\w-]+)*"
        r"(?:\.|\s*[\[({<]\s*dot\s*[\])}>]\s*|\s+dot\s+)"
        r"(?:com|org|net|edu|gov|mil|info|biz|io|co|uk|de|fr|es|it|nl|be|ch|at|ca|us|au|"
        r"se|no|dk|fi|pl|pt|ie|jp|cn|in|br|mx|ru)(?![\w-])"),
    "phone numbers": (
        r"(?<![\w+.,/-])(?:"
        r"\+\d{1,3}[ .-]?(?:\(\d{1,4}\)|\d{1,4})(?:[ .-]?\d{2,4}){2,4}"  # +49 30 1234567
        r"|\(\d{2,5}\)[ .-]?\d{3,4}[ .-]?\d{3,4}"  # (617) 555-0123
        r"|\d{3}[ .-]\d{3}[ .-]\d{4}"  # 617-555-0123
        r"|0\d{2,4}[ /-]\d{5,8}"  # 030 1234567, 0171-1234567 (a ZIP+4 is not one)
        r"|\d{3}-\d{4}"  # 555-0123 (not 1000-1999 nor 2020 2021)
        r")(?![\w.,/:-]?\d)"),
    "social-security-like numbers": r"(?<![\w-])\d{3}-\d{2}-\d{4}(?![\w-])",
    "IP addresses": r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.])",
    "web addresses": r"(?i)(?<![\w@])(?:https?://|www\.)[\w-]",
    "social media handles": r"(?<![\w.@])@[A-Za-z_]\w{2,}",
    "street addresses": (  # a number, one to three capitalized words, a street word
        r"(?<!\w)\d{1,5}[a-z]?,?\s+(?:[A-Z][\w'.-]*\s+){1,3}(?:Street|St|Avenue|Ave|Road|"
        r"Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Place|Pl|Terrace|Way)\b"
        r"|(?<!\w)[A-ZÄÖÜ]\w*(?:straße|strasse|str\.|weg|gasse|platz)\s+\d{1,4}(?!\d)"),
}
#: digits from which unique integers of one length in an index are record numbers
RECORD_DIGITS = 6
#: distinct values from which a column named like notes is taken for free text (a column of
#: two or three set phrases says little about anyone)
NOTE_DISTINCT = 10
#: distinct texts of a column searched for contact details (a larger column: a sample of them)
CONTACT_VALUES = 200_000

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


def _whole(name) -> str:
    """The lower-case name without separators (``"Patient Name"`` -> ``"patientname"``)."""
    return "".join(re.split(r"[^a-z0-9]+", str(name).lower()))


def _record_key(name) -> bool:
    """A name written as one word of a person or record noun and ``id`` or a number word
    (``caseid``, ``PATIENTNO``)."""
    whole = _whole(name)
    return any(whole.endswith(end) and whole[:-len(end)] in RECORD_NOUNS | PERSON_NAMES
               for end in ("id", *NUMBER_WORDS))


def looks_sensitive(name) -> bool:
    """Does a column name look like a sensitive attribute (:data:`SENSITIVE_WORDS`)?

    Example
    -------
    >>> looks_sensitive("diagnosis_code"), looks_sensitive("salary-class"), looks_sensitive("zip")
    (True, True, False)
    """
    return bool(words(name) & SENSITIVE_WORDS)


def _is_text(series: pd.Series) -> bool:
    """Does the column hold text (strings, objects, or categories that are strings)?"""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return _is_text(pd.Series(dtype.categories))
    return pd.api.types.is_string_dtype(dtype) or dtype == object


def _distinct(series: pd.Series):
    """(non-missing cells, distinct values, their counts or None): the counts of a text
    column's distinct values (read again by :func:`contact_details`); unhashable cells count
    as distinct."""
    values = series.dropna()
    try:
        if _is_text(series):
            counts = values.value_counts(sort=False)
            counts = counts[counts.to_numpy() > 0]  # a Categorical lists unused categories
            return len(values), len(counts), counts
        return len(values), int(values.nunique()), None
    except TypeError:
        return len(values), len(values), None


def _text_facts(series: pd.Series):
    """(median length, share of cells with a space) of a string column's cells, on a sample;
    None when the column does not hold strings."""
    if not _is_text(series):
        return None
    values = series.dropna()
    if isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype(object)
    if len(values) > _SAMPLE:
        values = values.sample(_SAMPLE, random_state=0)
    values = values[values.map(lambda v: isinstance(v, str))]
    if not len(values):
        return None
    text = values.astype(str)
    return float(text.str.len().median()), float(text.str.contains(r"\s", regex=True).mean())


def contact_details(series: pd.Series, counts: pd.Series | None = None) -> dict:
    """``{what: cells}``: how many text cells of ``series`` hold e-mail addresses, phone
    numbers or social-security-like numbers (:data:`CONTACT_PATTERNS`). Each distinct text is
    searched once (``counts``: the column's value counts, when already at hand); a column of
    more than :data:`CONTACT_VALUES` distinct texts is searched on a sample of them, so its
    counts are a lower bound.

    Example
    -------
    >>> notes = pd.Series(["stable", "stable", "called daughter at 555-0123", None, "1990-1999"])
    >>> contact_details(notes)
    {'phone numbers': 1}
    >>> contact_details(pd.Series(["write to ann.lee@example.org", "dob 1975-02-03"]))
    {'e-mail addresses': 1}
    """
    if not _is_text(series):
        return {}
    if counts is None:
        try:
            counts = series.dropna().value_counts(sort=False)
        except TypeError:
            return {}
    counts = counts[counts.to_numpy() > 0]
    texts = counts[[isinstance(v, str) for v in counts.index]] if not \
        pd.api.types.is_string_dtype(series.dtype) else counts
    if len(texts) > CONTACT_VALUES:
        texts = texts.sample(CONTACT_VALUES, random_state=0)
    text = pd.Series(texts.index, dtype=object).astype(str)
    # a text without a digit, an @, a web prefix or an "at" holds none of the patterns
    maybe = text.str.contains(r"(?i)[\d@]|www\.|://|\bat\b", regex=True)
    text, cells = text[maybe.to_numpy()], texts.to_numpy()[maybe.to_numpy()]
    found = {}
    if len(text):
        for what, pattern in CONTACT_PATTERNS.items():
            hit = text.str.contains(pattern, regex=True).to_numpy()
            if hit.any():
                found[what] = int(cells[hit].sum())
    return found


class Facts(NamedTuple):
    """What :func:`judge` decides from (the Dask face computes the counts distributed):
    non-missing cells, distinct values, text facts (median length, share with a space) or
    None, boolean?, :func:`contact_details`, and what the values say
    (:func:`pdanon.screening.content.finding`) or None."""

    count: int
    distinct: int
    text: tuple | None
    boolean: bool
    contacts: dict
    content: tuple | None = None
    grouped: str | None = None


def facts(series: pd.Series, *, numbers: bool = True) -> Facts:
    """The :class:`Facts` of a column (``numbers=False``: a numeric column published as
    ranges, not read for id numbers: :func:`pdanon.screening.content.finding`)."""
    count, distinct, counts = _distinct(series)
    boolean = bool(pd.api.types.is_bool_dtype(series.dtype))
    return Facts(count, distinct, _text_facts(series), boolean,
                 contact_details(series, counts),
                 None if boolean else content_finding(series, counts, numbers=numbers),
                 _grouped(series, series.name, counts, ranges=not numbers))


def _grouped(series: pd.Series, name, counts, *, ranges: bool) -> str | None:
    """:func:`pdanon.screening.households.grouping`, but for a column named like a sensitive attribute
    (codes of a diagnosis repeat in small groups without linking anyone's rows) unless its
    name also says it groups rows."""
    if looks_sensitive(name) and not named_like_grouping(name):
        return None
    return grouping_evidence(series, name, counts, ranges=ranges)


def grouped_of_sizes(name, dtype, sizes, values=None, *, whole: bool = True,
                     ranges: bool = False) -> str | None:
    """:func:`facts`' evidence that a column groups rows, from the histogram of its value
    counts (``values[i]`` values held by ``sizes[i]`` rows each; ``whole``: its numbers are
    whole), as a distributed face computes it
    (:func:`pdanon.screening.households.grouping_of_sizes`): a column named like a sensitive
    attribute is none unless its name also says it groups rows.

    >>> print(grouped_of_sizes("hh", "int64", [3], [30]))
    its values repeat in small groups, as a household's do: 30 values held by 2 to 10 rows each (90 of 90 rows)
    """
    if looks_sensitive(name) and not named_like_grouping(name):
        return None
    return grouping_of_sizes(name, sizes, values, dtype=dtype, whole=whole, ranges=ranges)


def examine(series: pd.Series, name=None, *, ranges: bool = False,
            groups: bool = True) -> Suspect | None:
    """The :class:`Suspect` a column without a role is, or None.

    Example
    -------
    >>> examine(pd.Series(["flu", "cold"] * 30), "disease") is None
    True
    >>> examine(pd.Series(["Ann Lee", "Bo Ng"]), "name").evidence
    'its name looks like an identifier; no value repeats in 2 rows'
    """
    name = series.name if name is None else name
    count, distinct, counts = _distinct(series)
    text = _text_facts(series)
    boolean = bool(pd.api.types.is_bool_dtype(series.dtype))
    # what the values say counts for a column its name does not refuse (no text facts, and
    # ranges: neither free text nor unique values decide); contact details only for a column
    # nothing else refuses (each costs a pass over the distinct values)
    grouped = None if boolean or not groups else _grouped(series, name, counts, ranges=ranges)
    by_name = None if boolean else _suspect(name, count, distinct, None, True)
    values = None if boolean or by_name is not None else content_finding(
        series, counts, numbers=not ranges)
    found = None if boolean else _suspect(name, count, distinct, text, ranges, values, grouped)
    contacts = {} if boolean or found is not None or values is not None else \
        contact_details(series, counts)
    return judge(name, count, distinct, text, boolean, ranges=ranges, contacts=contacts,
                 content=values, grouped=grouped)


def judge(name, count: int, distinct: int, text=None, boolean: bool = False, *,
          ranges: bool = False, contacts: dict | None = None,
          examined: int | None = None, content: tuple | None = None,
          grouped: str | None = None) -> Suspect | None:
    """The :class:`Suspect` a column is, from its name and :func:`facts`, or None.
    ``ranges``: the column is to be published generalized into ranges (a numeric
    quasi-identifier): unique numbers are then no evidence (a range shows none of them); its
    name and text still are. ``contacts``: :func:`contact_details`, found among ``examined``
    non-missing cells (all ``count`` of them unless a sample was searched). ``content``: what
    the values say (:func:`pdanon.screening.content.finding`), decisive whatever the name and ``ranges``.
    ``grouped``: the evidence that the column groups rows (:func:`pdanon.screening.households.grouping`),
    decisive first: a household id is refused with its own fixes (``household=``).

    Example
    -------
    >>> judge("score", 1000, 998).evidence
    'unique or nearly: 998 distinct values in 1,000 rows'
    >>> judge("remarks", 3000, 12).evidence
    'its name looks like notes (free text); 12 distinct values in 3,000 rows'
    >>> print(judge("status", 3000, 40, contacts={"phone numbers": 7}).evidence)
    holds contact details: phone numbers in 7 of 3,000 cells
    >>> print(judge("x7", 900, 800, content=("id numbers", "900 of 900 cells are ...")).evidence)
    holds national-id-like numbers: 900 of 900 cells are ...
    """
    if boolean:
        return None
    found = _suspect(name, count, distinct, text, ranges, content, grouped)
    if contacts:
        among = (f"{count:,} cells" if examined is None else
                 f"{examined:,} cells of a sample")
        held = "holds contact details: " + ", ".join(
            f"{what} in {cells:,} of {among}" for what, cells in contacts.items())
        if found is None:
            return Suspect(name, "contact details", held)
        return Suspect(name, found.what, f"{found.evidence}; {held}")
    return found


#: what a :func:`pdanon.screening.content.finding` makes a column, and the words its evidence opens with
_CONTENT = {"person names": ("identifier", "holds person names"),
            "id numbers": ("identifier", "holds national-id-like numbers"),
            "date of birth": ("date of birth", "its values look like dates of birth"),
            "free text": ("free text", "free text among placeholders")}


def _birth_advice(name) -> str:
    return (f"publish the year instead, df[{name!r}].dt.year, or a quasi-identifier with a "
            f"dates() hierarchy and algorithm='optimal', which publishes whole months, years "
            f"or decades")


def _suspect(name, count: int, distinct: int, text, ranges: bool,
             found: tuple | None = None, grouped: str | None = None) -> Suspect | None:
    """:func:`judge` by the rows it groups (``grouped``), the name, the text facts, what the
    values say (``found``) and the distinct values."""
    if grouped is not None and named_like_grouping(name):  # hh_id: a household's id
        return Suspect(name, "grouping", grouped)
    w = words(name)
    spread = (f"no value repeats in {count:,} rows" if count and distinct == count
              else f"{distinct:,} distinct values in {count:,} rows")
    if w & IDENTIFIER_WORDS or (w & RECORD_NOUNS and w & NUMBER_WORDS) or _record_key(name):
        return Suspect(name, "identifier", f"its name looks like an identifier; {spread}")
    if _whole(name) in PERSON_NAMES:
        return Suspect(name, "identifier", f"its name says it names people; {spread}")
    if w & BIRTH_WORDS and not w & BIRTH_OTHER:
        return Suspect(name, "date of birth",
                       f"its name looks like a date of birth; {spread} ({_birth_advice(name)})")
    if found is not None:
        what, opening = _CONTENT[found[0]]
        advice = f" ({_birth_advice(name)})" if what == "date of birth" else ""
        return Suspect(name, what, f"{opening}: {found[1]}{advice}")
    if grouped is not None:  # (after what the name and the values say: names repeat too)
        return Suspect(name, "grouping", grouped)
    if text is not None and count and distinct >= 0.5 * count and text[0] >= FREE_TEXT_LENGTH \
            and text[1] >= 0.5:
        return Suspect(name, "free text",
                       f"free text: {distinct:,} distinct values in {count:,} rows, median "
                       f"{text[0]:.0f} characters")
    if w & NOTE_WORDS and distinct >= NOTE_DISTINCT:
        return Suspect(name, "free text", f"its name looks like notes (free text); {spread}")
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


#: the labels of a release's fresh index (:func:`pdanon.checks.row_order.fresh_index`): ``r`` or
#: ``s`` and digits, or ``r``, six hex digits and ``-`` when the input's index held both
FRESH_LABEL = r"(?:[rs]|r[0-9a-f]{6}-)\d+"


def is_fresh_index(index: pd.Index) -> bool:
    """Is ``index`` made of the labels a pdanon release gets (:data:`FRESH_LABEL`; a
    filtered part of a release too)? Such an index is no suspect: it numbers published rows
    in a random order and carries nothing of the input's.

    Example
    -------
    >>> is_fresh_index(pd.Index(["r0", "r2"])), is_fresh_index(pd.Index(["MRN1", "MRN2"]))
    (True, False)
    """
    if not len(index) or index.nlevels != 1 or not (
            pd.api.types.is_string_dtype(index.dtype) or index.dtype == object):
        return False
    try:
        return bool(pd.Series(index, dtype="str").str.fullmatch(FRESH_LABEL).all())
    except (TypeError, ValueError):
        return False


def index_suspects(index: pd.Index) -> list:
    """The :class:`Suspect` levels of a frame's index: a release keeps its index (and
    Parquet writes it), so an index of record numbers, names or dates of birth identifies
    people as a column would. A :class:`~pandas.RangeIndex` (row positions) and an index of
    integers (the row numbers a filter leaves) are no suspects unless their name says so
    (``patient_no``) or they are record numbers: unique, of one length of at least
    :data:`RECORD_DIGITS` digits, not one consecutive run (``10234567, 10298811, ...``). Any
    other level is judged like a column (:func:`judge`) under its name (``"index"`` without
    one).

    Example
    -------
    >>> idx = pd.Index([f"MRN{i:05d}" for i in range(60)], name="mrn")
    >>> [s.evidence for s in index_suspects(idx)]
    ['its name looks like an identifier; no value repeats in 60 rows']
    >>> index_suspects(pd.RangeIndex(60)), index_suspects(pd.Index([3, 8, 9]))
    ([], [])
    """
    if isinstance(index, pd.RangeIndex):
        return []
    found = []
    for i in range(index.nlevels):
        level = pd.Series(index.get_level_values(i), name=index.names[i])
        numbers = pd.api.types.is_integer_dtype(level.dtype)
        records = _record_numbers(level) if numbers else None
        if records is not None:
            found.append(Suspect("index" if level.name is None else level.name, "identifier",
                                 records))
            continue
        if level.name is None and numbers:
            continue  # row numbers
        # integers (named or not) are the row numbers a filter leaves unless their name
        # says otherwise: unique values are no evidence there
        # (an index that groups rows is left to the channel rule: a release gets a fresh
        # index unless row_order="input", and pdanon.screening.channels tests the one it keeps)
        suspect = examine(level, "index" if level.name is None else level.name,
                          ranges=numbers, groups=False)
        if suspect is not None:
            found.append(suspect)
    return found


def _record_numbers(level: pd.Series) -> str | None:
    """The evidence that an integer index holds record numbers, or None: at least
    :data:`MIN_ROWS` values, no value repeated, all of the same number of digits, at least
    :data:`RECORD_DIGITS` of them, and not one run of consecutive numbers (the rows a
    filter or a slice leaves of a long frame: their numbers vary in length, or run on)."""
    values = level.to_numpy()
    if len(values) < MIN_ROWS or level.isna().any():
        return None
    low, high = int(values.min()), int(values.max())
    if low < 10 ** (RECORD_DIGITS - 1) or len(str(low)) != len(str(high)):
        return None
    if high - low + 1 == len(values) or not level.is_unique:
        return None
    return (f"unique record numbers: {len(values):,} distinct integers of {len(str(low))} "
            f"digits, not consecutive (not the row numbers a filter leaves)")


def index_refusal(found: list) -> str:
    """The message that refuses an index whose levels are ``found`` suspects.

    Example
    -------
    >>> print(index_refusal([Suspect("mrn", "identifier", "its name looks like an identifier")]))
    the index looks like it identifies people, and a release keeps its index (Parquet writes it); pdanon publishes nothing without a decision:
      - index level 'mrn': its name looks like an identifier
    Decide: df.reset_index(drop=True) drops it; df.reset_index() makes it a column, whose role you then give (identifiers=[...] drops it, insensitive=[...] publishes it unchanged on purpose).
    """
    lines = ["the index looks like it identifies people, and a release keeps its index "
             "(Parquet writes it); pdanon publishes nothing without a decision:"]
    lines += [f"  - index level {s.column!r}: {s.evidence}" for s in found]
    lines.append("Decide: df.reset_index(drop=True) drops it; df.reset_index() makes it a "
                 "column, whose role you then give (identifiers=[...] drops it, "
                 "insensitive=[...] publishes it unchanged on purpose).")
    return "\n".join(lines)


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
    grouped = [s.column for s in found if s.what == "grouping"]
    if len(grouped) == len(names) == 1:
        lines = [f"column {names[0]!r} has no role and links the rows that share its values; "
                 f"pdanon publishes no column without a decision:"]
    lines += [f"  - {s.column!r}: {s.evidence}" for s in found]
    if grouped:
        lines += grouping_fixes(grouped)
        if len(grouped) == len(names):
            return "\n".join(lines)
    them = "it" if len(names) == 1 else "them"
    lines.append(f"Decide: identifiers={names!r} drops {them} (or df.anon.hash_identifiers "
                 f"pseudonymizes {them}); insensitive={names!r} publishes {them} unchanged on "
                 f"purpose.")
    return "\n".join(lines)
