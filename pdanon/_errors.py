"""Exception and warning types of pdanon.

Every error pdanon raises on bad input derives from :class:`AnonymizationError` *and* from the
builtin the user would expect (``ValueError``, ``KeyError``, ``TypeError``), so both
``except pdanon.AnonymizationError`` and ``except ValueError`` work.
"""

from __future__ import annotations

import sys


class AnonymizationError(Exception):
    """Base class of pdanon's own errors."""


class InvalidInputError(AnonymizationError, ValueError):
    """The input frame or an argument is not usable (empty frame, NaN, k < 1, duplicate names...)."""


class UnknownColumnError(AnonymizationError, KeyError):
    """A column named in a role or option does not exist in the frame."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


class KindError(AnonymizationError, TypeError):
    """A column's kind (real / ordered / unordered) does not fit its values or the operation."""


class InfeasibleError(AnonymizationError, ValueError):
    """The privacy model cannot be met on this table with these parameters."""


class VerificationError(AnonymizationError, AssertionError):
    """An anonymizer's output failed the check of its own privacy model (a bug: please report)."""


class NoProgressError(AnonymizationError, RuntimeError):
    """An anonymization algorithm's loop made no progress (a bug: please report). Raised
    instead of looping forever; the message names the algorithm."""


class RoleError(InvalidInputError):
    """A column has no role and looks like it identifies people (an identifier-like name,
    free text, a date of birth, unique values): pdanon publishes no column without a decision.
    The message names each column, the evidence and the fixes (``identifiers=[...]`` to drop
    it, ``insensitive=[...]`` to publish it unchanged on purpose); see
    :mod:`pdanon.screening`."""


class PublisherOnlyError(InvalidInputError):
    """A writer or a check that pdanon controls was given a table meant for the publisher
    only (the explanation of ``out.anon.explain(df)``, or a frame that holds its columns): it
    refuses it unless told that the file stays with the publisher (``publisher_only=True``).
    The message names the columns and the fixes (see :mod:`pdanon.publisher_only`)."""
class ChannelError(RoleError):
    """A column published unchanged gives a generalized or suppressed quasi-identifier back:
    its value determines the quasi-identifier (stratum weights pin the ZIP code), so whoever
    knows the dependency reads the exact value the release hid. The message names the
    column, the quasi-identifier, the rows it narrows, the k with it and the fixes (make it a
    quasi-identifier, drop or generalize it, perturb it, or ``allow_channels=[...]`` for a
    column judged safe); see :mod:`pdanon.screening.channels`."""


class KindWarning(UserWarning):
    """pdanon inferred a column's kind in a way you may not mean (e.g. digit strings taken as
    unordered codes); the message says how to convert the column or state the kind."""


class RoleWarning(UserWarning):
    """pdanon chose a column's role for you (e.g. a column that looks like an identifier was
    treated as one); pass the roles explicitly to decide yourself and silence it."""


class SingleClassWarning(UserWarning):
    """An anonymizer published one equivalence class of a table that could have had more
    (every quasi-identifier generalized to the whole table); the message says why and which
    algorithms may find more classes (:func:`pdanon.engine.anonymize` documents the rule)."""


class PublisherOnlyWarning(UserWarning):
    """A table meant for the publisher only is being written out, e.g. the explanation of
    ``out.anon.explain(df)``: it is derived from the original and, beside the release, gives
    original values back. Keep it with the original data; never publish it."""


def user_stacklevel() -> int:
    """The ``stacklevel`` for :func:`warnings.warn` called here that points the warning at
    the first caller outside pdanon (the user's line, not pdanon's internals)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("pdanon"):
        frame, level = frame.f_back, level + 1
    return level
