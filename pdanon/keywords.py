"""Keyword checks of the faces: a misspelled keyword gets a "did you mean", from the full
list of keywords the call takes.

The accessor's methods take their options as keyword-only parameters and the column roles as
``**roles`` (``identifiers``, ``quasi_identifiers``, ``sensitive``, ``insensitive``). Without
a check, ``df.anon.k_anonymize(5, max_supressed_rows=3)`` would reach the roles and fail with a
message about roles. :func:`checked` wraps such a method: an unknown keyword is refused before
any work with :class:`UnknownKeywordError`, naming the closest keywords the method takes.

Example
-------
>>> @checked
... def k_anonymize(k, *, max_suppressed_rows=None, **roles):
...     return roles
>>> k_anonymize(5, quasi_identifiers=["age"])
{'quasi_identifiers': ['age']}
>>> k_anonymize(5, max_supressed_rows=3)
Traceback (most recent call last):
...
pdanon.keywords.UnknownKeywordError: k_anonymize() got an unexpected keyword argument 'max_supressed_rows'; did you mean max_suppressed_rows=? It takes: k, max_suppressed_rows, identifiers, quasi_identifiers, sensitive, insensitive
"""

from __future__ import annotations

import difflib
import functools
import inspect

from pdanon._errors import AnonymizationError

__all__ = ["ROLE_KEYWORDS", "UnknownKeywordError", "checked", "refuse_unknown"]

#: the role keywords every method with ``**roles`` takes
ROLE_KEYWORDS = ("identifiers", "quasi_identifiers", "sensitive", "insensitive")


class UnknownKeywordError(AnonymizationError, TypeError):
    """A keyword the method does not take (a ``TypeError``, as Python's own); the message
    names the closest ones it does take."""


def _keywords(func) -> list:
    """The keywords ``func`` takes: its named parameters (not the first, ``self`` or the
    required positional one) and, when it has ``**roles``, the role keywords."""
    params = inspect.signature(func).parameters.values()
    names = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
             and p.name != "self"]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        names += [r for r in ROLE_KEYWORDS if r not in names]
    return names


def did_you_mean(word, choices) -> str:
    """``" (did you mean 'x'?)"`` for the closest of ``choices`` to ``word``, else ``""``.

    >>> did_you_mean("min_frequncy", ["min_frequency", "p_percent"])
    " (did you mean 'min_frequency'?)"
    """
    near = difflib.get_close_matches(str(word), list(choices), n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def refuse_unknown(name: str, given, takes: list) -> None:
    """Raise :class:`UnknownKeywordError` for the keywords of ``given`` that are not in
    ``takes`` (the method ``name`` takes them), with the closest matches."""
    unknown = [k for k in given if k not in takes]
    if not unknown:
        return
    k = unknown[0]
    close = difflib.get_close_matches(str(k), takes, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(c + '=' for c in close)}?" if close else ";"
    more = f" (and {unknown[1:]})" if len(unknown) > 1 else ""
    raise UnknownKeywordError(
        f"{name}() got an unexpected keyword argument {k!r}{more}{hint} It takes: "
        f"{', '.join(takes)}")


def checked(func):
    """Wrap ``func`` so that an unknown keyword is refused before it runs (see the module
    docstring). The wrapper keeps ``func``'s name, docstring and signature."""
    takes = _keywords(func)
    allowed = set(takes)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        # without **roles Python would refuse too, but with no "did you mean"
        if not allowed.issuperset(kwargs):
            refuse_unknown(func.__name__, kwargs, takes)
        return func(*args, **kwargs)

    wrapper.keywords = tuple(takes)
    return wrapper
