"""Progress bars for runs that can last more than a few seconds.

The bars are drawn by tqdm, a dependency of pdanon (``pip install pdanon`` installs it; the
``pdanon[progress]`` extra of earlier versions still installs, and adds nothing). Every
long-running face takes ``progress=`` (keyword-only):

* ``None`` (default, *auto*): a bar only when standard error is a terminal or the code runs in
  a Jupyter kernel, and the task is expected to be long (the caller's size heuristic,
  ``long=``); the bar then appears only once the task has lasted :data:`AUTO_DELAY` seconds,
  so short runs, scripts writing to files and test runs stay silent;
* ``True``: always a bar (on standard error, or the notebook's widget), from the start;
* ``False``: never a bar.

An environment where tqdm cannot be imported (pdanon installed without its dependencies, e.g.
``pip install --no-deps``) is unusual: there auto mode stays silent and ``True`` is an
:class:`~pdanon.InvalidInputError` that says how to install tqdm.

A face (``df.anon.k_anonymize(progress=...)``, :func:`pdanon.engine.anonymize`, the CLI) runs its
work inside :func:`setting`; the loops inside it open bars with :func:`progress_bar` and read the
setting from there, so no partitioner takes a ``progress`` option. Updates are batched: a bar
forwards its count to tqdm about 200 times per run at most, whatever the number of calls to
:meth:`Bar.update`.

Example
-------
>>> with progress_bar(1000, desc="example", enabled=False) as bar:
...     for _ in range(10):
...         bar.update(100)
>>> bar.count
1000
"""

from __future__ import annotations

import contextvars
import sys
from contextlib import contextmanager

import numpy as np

from pdanon._errors import InvalidInputError

#: seconds an *auto* bar waits before it is drawn (tqdm's ``delay``)
AUTO_DELAY = 2.0
#: a bar forwards its count to tqdm at most about this many times over a known total
UPDATES = 200
#: how to install tqdm where it is missing (it is a dependency of pdanon: a missing tqdm means
#: pdanon was installed without its dependencies)
INSTALL = 'pip install "tqdm>=4.66"'

_SETTING: contextvars.ContextVar = contextvars.ContextVar("pdanon_progress", default=None)


def check(progress) -> bool | None:
    """``progress`` as ``None``, ``True`` or ``False``; anything else is refused.

    Example
    -------
    >>> check(None), check(True), check(np.bool_(False))
    (None, True, False)
    """
    if progress is None:
        return None
    if isinstance(progress, (bool, np.bool_)):
        return bool(progress)
    raise InvalidInputError(
        f"progress must be None (a bar for long runs in a terminal or notebook), True (always) "
        f"or False (never), got {progress!r}")


@contextmanager
def setting(progress):
    """Run the block with ``progress`` as the default of every bar opened inside it; ``None``
    keeps the setting of an enclosing block (auto at the top level).

    Example
    -------
    >>> with setting(False):
    ...     current()
    False
    >>> current() is None
    True
    """
    value = check(progress)
    if value is None:
        yield
        return
    token = _SETTING.set(value)
    try:
        yield
    finally:
        _SETTING.reset(token)


def current() -> bool | None:
    """The setting of the enclosing :func:`setting` block (``None``: auto)."""
    return _SETTING.get()


def tqdm_available() -> bool:
    """Is tqdm importable? (It is a dependency of pdanon: ``False`` only in an installation
    without its dependencies.)"""
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    return True


def in_notebook() -> bool:
    """Does the code run in a Jupyter kernel (where standard error is not a terminal)?"""
    ipython = sys.modules.get("IPython")
    if ipython is None or "ipykernel" not in sys.modules:
        return False
    shell = getattr(ipython, "get_ipython", lambda: None)()
    return type(shell).__name__ == "ZMQInteractiveShell"


def _interactive() -> bool:
    return bool(getattr(sys.stderr, "isatty", lambda: False)()) or in_notebook()


def resolve(enabled=None, *, long: bool = True) -> tuple[bool, float]:
    """``(draw a bar?, delay in seconds)`` for a bar opened now: ``enabled`` if given, else the
    enclosing :func:`setting`, else auto (an interactive standard error or a notebook, and
    ``long``; drawn after :data:`AUTO_DELAY` seconds; never without tqdm).

    Example
    -------
    >>> resolve(False)
    (False, 0.0)
    """
    value = check(enabled)
    if value is None:
        value = current()
    if value is False:
        return False, 0.0
    if value is True:
        if not tqdm_available():
            raise InvalidInputError(
                f"progress=True draws the bar with tqdm, a dependency of pdanon that cannot be "
                f"imported here (was pdanon installed without its dependencies?): {INSTALL}, "
                f"or pass progress=False")
        return True, 0.0
    if long and tqdm_available() and _interactive():
        return True, AUTO_DELAY
    return False, 0.0


class Bar:
    """What :func:`progress_bar` yields: :meth:`update` adds to the count (batched before it
    reaches tqdm), :meth:`set_description` renames the bar. Silent when no tqdm bar is drawn;
    ``count`` is kept either way."""

    def __init__(self, bar=None, total=None):
        self._bar = bar
        self.count = 0
        self._sent = 0
        self._step = max(1, int(total) // UPDATES) if total else 1

    def update(self, n: int = 1) -> None:
        self.count += n
        if self._bar is not None and self.count - self._sent >= self._step:
            self._flush()

    def set_description(self, desc: str) -> None:
        if self._bar is not None:
            self._flush()
            self._bar.set_description_str(desc)

    def _flush(self) -> None:
        self._bar.update(self.count - self._sent)
        self._sent = self.count

    def close(self) -> None:
        if self._bar is not None:
            self._flush()
            self._bar.close()
            self._bar = None


@contextmanager
def progress_bar(total=None, *, desc: str, enabled=None, long: bool = True, unit: str = "it"):
    """A progress bar over ``total`` units (``None``: unknown; the bar counts), labelled
    ``desc``; ``enabled`` and ``long`` as in :func:`resolve`. Yields a :class:`Bar`.

    Example
    -------
    >>> with progress_bar(3, desc="rows", enabled=False) as bar:
    ...     bar.update(3)
    >>> bar.count
    3
    """
    draw, delay = resolve(enabled, long=long)
    inner = None
    if draw:
        if in_notebook():
            from tqdm.auto import tqdm
        else:
            from tqdm import tqdm
        inner = tqdm(total=total, desc=desc, unit=unit, delay=delay, file=sys.stderr,
                     dynamic_ncols=True)
    bar = Bar(inner, total)
    try:
        yield bar
    finally:
        bar.close()
