"""``pdanon anonymize --dry-run``: the plan of the run the other flags ask for, printed on
standard output, with nothing written (kept apart from :mod:`pdanon.cli.anonymize`, which is
near the size limit). It is ``df.anon.plan(model, ...)`` (:mod:`pdanon.accessor.plan`) with the
keywords the run would pass: the roles (given and inferred, with their kinds), what would be
refused and why (in the flags' words), the algorithm ``auto`` resolves to, the hierarchies
and levels searched, and the expected numbers of classes and suppressed rows — the figures of
the anonymizer run in memory, its release discarded. Exit code 0 when the run would publish,
2 when it would be refused.

Example
-------
>>> refuse_beside({"dry_run": True, "epsilon": 1.0})
Traceback (most recent call last):
...
pdanon._errors.InvalidInputError: --dry-run plans a fresh anonymization: not with --epsilon (each run draws anew)
"""

from __future__ import annotations

import sys

from pdanon._errors import InvalidInputError

__all__ = ["add_arguments", "refuse_beside", "show"]


def add_arguments(group) -> None:
    """Add ``--dry-run``."""
    group.add_argument("--dry-run", dest="dry_run", action="store_const", const=True,
                       help="write nothing: print the roles (given and inferred), what "
                            "would be refused and why, the algorithm, the hierarchies and "
                            "levels searched, and the expected classes and suppressed rows")


def refuse_beside(s: dict) -> None:
    """Refuse ``--dry-run`` beside the runs it does not plan."""
    if not s.get("dry_run"):
        return
    if s.get("recoding") is not None:
        raise InvalidInputError("--dry-run plans a fresh anonymization: not with --recoding "
                                "(a kept recoding is applied as recorded)")
    if s.get("epsilon") is not None or s.get("dp_delta") is not None:
        raise InvalidInputError("--dry-run plans a fresh anonymization: not with --epsilon "
                                "(each run draws anew)")


def show(df, model, keywords: dict, prog: str, caught: list) -> int:
    """Print the plan of ``df.anon.anonymize(model, **keywords)``; the exit code."""
    from pdanon.cli.common import EXIT_BAD_INPUT, EXIT_OK, warning_lines
    from pdanon.cli.words import cli_words

    p = df.anon.plan(model, **{**keywords, "progress": False})
    for line in warning_lines(prog, caught):  # the reading's, before the plan
        print(cli_words(line), file=sys.stderr)
    caught.clear()
    print(cli_words(p.to_text()))
    return EXIT_OK if p.ok else EXIT_BAD_INPUT
