"""The household flags of ``pdanon anonymize``: ``--household COL`` and ``--household-ids``
(kept apart from :mod:`pdanon.cli.anonymize`, which is near the size limit).

``--household hh`` is ``k_anonymize(..., household="hh")``: the anonymizer runs on the other
columns, the household column is published renumbered, and every household whose signature
(size and members' published quasi-identifier cells) fewer than k households share is
unlinked (:mod:`pdanon.screening.households`). ``--household-ids drop`` publishes no household id.

Example
-------
>>> keywords({"household": "hh", "household_ids": None})
{'household': 'hh', 'household_ids': 'renumber'}
>>> keywords({})
{}
>>> print(flag_words("k_anonymize(..., household='hh') publishes it renumbered"))
--household hh publishes it renumbered
"""

from __future__ import annotations

import re
import shlex

from pdanon._errors import InvalidInputError
from pdanon.screening.households import HOUSEHOLD_IDS

__all__ = ["add_arguments", "flag_words", "keywords"]


def add_arguments(group) -> None:
    """Add ``--household`` and ``--household-ids`` to an argparse group."""
    group.add_argument("--household", help="a column whose rows belong together (household, "
                       "family, case id): published renumbered, every household's combined "
                       "record shared by k households (rarer ones unlinked)")
    group.add_argument("--household-ids", dest="household_ids", choices=HOUSEHOLD_IDS,
                       help="renumber (default) or drop the household ids")


def keywords(settings: dict) -> dict:
    """The anonymizer keywords of the household settings (none without ``--household``)."""
    if settings.get("household") is None:
        if settings.get("household_ids") is not None:
            raise InvalidInputError("--household-ids needs --household COL")
        return {}
    return {"household": settings["household"],
            "household_ids": settings.get("household_ids") or "renumber"}


def flag_words(text: str) -> str:
    """A library message about households in the flags' words."""
    text = re.sub(r"k_anonymize\(\.\.\., household=('[^']*'|\"[^\"]*\")\)",
                  lambda m: f"--household {shlex.quote(m.group(1)[1:-1])}", text)
    return re.sub(r"household_ids='drop'", "--household-ids drop", text)
