"""Person names recognised by what the cells hold, whatever the column is called.

The name list (``pdanon/data/names.txt.gz``, see ``pdanon/data/README.md``) holds the
5,163 given names and the 10,000 most frequent surnames of the US Census Bureau's 1990 name
frequency files (public domain), lower-cased. They include many Spanish, German, Italian,
French, Irish and Asian surnames; a name not on the list still counts through its shape.

:func:`person_names` examines the distinct texts of a column (a sample of
:data:`NAME_VALUES` of them for a larger column), accents folded (``Müller`` is ``muller``).
A column of fewer than :data:`NAME_DISTINCT` distinct values is never taken for names (a
ward named after a person, a handful of surnames as categories). Otherwise

* at least :data:`SHAPE_SHARE` of its distinct values must have the **shape** of names: one
  to four capitalized (or all capital) words, hyphenated parts capitalized too (``Ann Lee``,
  ``LEE, ANN``, ``María José García-López``, ``O'Brien``, ``John A. Smith``; a particle such
  as ``van``, ``de``, ``von`` may be lower-case): ``Self-emp-not-inc`` or ``Type 2
  diabetes`` are not;
* and their mean **score** must reach :data:`NAME_SCORE`: a value of several words scores 1
  when its first word is a given name of the list and 1 when its last word is a surname (after
  a comma the given name comes first: ``Lee, Ann``); a value of one word scores 2 when it is
  a given name or a surname.

Full names of the census list score 2; German full names of the test battery
(``tests/test_screening_battery.py``) 1.5 (half their given names are not on the list),
German given names alone 1.35; the 50 largest US cities 0.68 (``Houston``, ``Denver``,
``Charlotte`` are names, ``San Antonio`` is not), Adult's countries 0.56, 30 countries of
birth 0.63. A column of small US towns named after people can reach the score: publish it
with ``insensitive=[...]`` then.

Example
-------
>>> import pandas as pd
>>> people = pd.Series([f"{g} {s}" for g in ("Ann", "John", "Maria", "Li", "Mary")
...                      for s in ("Lee", "Smith", "Garcia", "Wang", "Jones")])
>>> print(person_names(people.unique())[1])
of 25 distinct values, 25 are two to four capitalized words, 25 of them beginning with a given name, 25 ending with a surname of the census name list
>>> person_names(pd.Series(["White", "Black", "Asian-Pac-Islander", "Other"]).unique()) is None
True
"""

from __future__ import annotations

import gzip
from functools import lru_cache
from importlib import resources

import numpy as np
import pandas as pd

__all__ = ["NAME_DISTINCT", "NAME_SCORE", "NAME_VALUES", "SHAPE_SHARE",
           "given_names", "person_names", "surnames"]

#: distinct values a column needs before its cells can be taken for person names
NAME_DISTINCT = 20
#: share of distinct values that must have the shape of names (one to four capitalized words)
SHAPE_SHARE = 0.8
#: mean score of the values of the shape of names from which they are taken for names: a
#: value of several words scores 1 for a given name first and 1 for a surname last, a value
#: of one word 2 when it is a given name or a surname
NAME_SCORE = 1.2
#: distinct values examined (a larger column: a sample of them)
NAME_VALUES = 20_000

# a word of a name: capitalized (or all capitals), its parts joined by a hyphen or an
# apostrophe each capitalized; particles may be lower-case
_WORD = r"(?:[^\W\d_][^\W\d_']*['’])?[^\W\d_a-zß-ÿ][^\W\d_]*(?:-[^\W\d_a-zß-ÿ][^\W\d_]*)*\.?"
_PARTICLE = r"(?:van|von|de|del|della|der|den|da|di|du|dos|das|la|le|ter|ten|y|al|bin|ibn)"
_NAME = rf"{_WORD}(?:,?\s+(?:{_PARTICLE}\s+)*{_WORD}){{0,3}}"


@lru_cache(maxsize=1)
def _lists() -> tuple:
    raw = resources.files("pdanon").joinpath("data", "names.txt.gz").read_bytes()
    lines = gzip.decompress(raw).decode("ascii").split("\n")
    split = lines.index("# surnames")
    given = frozenset(w for w in lines[1:split] if w)
    return given, frozenset(w for w in lines[split + 1:] if w)


def given_names() -> frozenset:
    """The given names of the list, lower-case ASCII.

    Example
    -------
    >>> "mary" in given_names(), len(given_names())
    (True, 5163)
    """
    return _lists()[0]


def surnames() -> frozenset:
    """The surnames of the list, lower-case ASCII.

    Example
    -------
    >>> "garcia" in surnames(), len(surnames())
    (True, 10000)
    """
    return _lists()[1]


def _folded(text: pd.Series) -> pd.Series:
    """Lower-case ASCII letters: accents dropped (``García`` -> ``garcia``, ``ß`` -> ``ss``)."""
    out = text.str.replace("ß", "ss", regex=False).str.normalize("NFKD")
    return out.str.encode("ascii", "ignore").str.decode("ascii").str.lower()


def person_names(values) -> tuple | None:
    """``(what, evidence)`` when the distinct texts ``values`` of a column look like person
    names (see the module docstring), else None. The evidence gives counts, never a name.

    Example
    -------
    >>> import pandas as pd
    >>> surnames_col = pd.Series(["Smith", "Jones", "Miller", "Garcia", "Lee", "Brown", "Davis",
    ...                           "Wilson", "Moore", "Taylor", "Clark", "Lewis", "Walker", "Hall",
    ...                           "Young", "Allen", "King", "Wright", "Scott", "Green"])
    >>> print(person_names(surnames_col)[1])
    of 20 distinct values, 20 are one capitalized word, 20 of them a given name or a surname of the census name list
    >>> person_names(pd.Series(["Cardiology", "Oncology", "Ward 3"] * 10)) is None
    True
    """
    values = pd.Series(values, dtype=object)
    values = values[values.str.len().notna().to_numpy()].drop_duplicates()  # the strings
    if len(values) < NAME_DISTINCT:
        return None
    if len(values) > NAME_VALUES:
        values = values.sample(NAME_VALUES, random_state=0)
    text = values.astype(str).str.strip()
    total = len(text)
    shaped = text.str.fullmatch(_NAME).to_numpy()
    if shaped.sum() < SHAPE_SHARE * len(text):
        return None
    names = _folded(text[shaped])
    # "Lee, Ann": the given name follows the comma
    names = names.str.replace(r"^([^,]*),\s*(.*)$", r"\2 \1", regex=True)
    names = names.str.replace(rf"\b{_PARTICLE}\s+", "", regex=True)
    words = names.str.replace("'", "", regex=False).str.findall(r"[a-z]+")
    counts = words.str.len().to_numpy()
    given, last = _lists()
    first_given = words.str[0].isin(given).to_numpy()
    last_surname = words.str[-1].isin(last).to_numpy()
    single = counts == 1
    # a value's score: a given name first (1) and a surname last (1); one word: 2 when it is
    # either
    score = np.where(single, 2 * (first_given | last_surname), first_given.astype(int)
                     + last_surname)
    if score.mean() < NAME_SCORE:
        return None
    n_single, n_several = int(single.sum()), int((counts > 1).sum())
    said = []
    if n_several:
        said.append(f"{n_several:,} are two to four capitalized words, "
                    f"{int((first_given & ~single).sum()):,} of them beginning with a given "
                    f"name, {int((last_surname & ~single).sum()):,} ending with a surname")
    if n_single:
        said.append(f"{n_single:,} are one capitalized word, "
                    f"{int(((first_given | last_surname) & single).sum()):,} of them a given "
                    f"name or a surname")
    return ("person names", f"of {total:,} distinct values, " + "; ".join(said)
            + " of the census name list")
