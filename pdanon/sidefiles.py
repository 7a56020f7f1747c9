"""Reading the files beside a table (config, policy, recoding JSON, schema YAML, hierarchy
CSV, key file): only regular files, and never more than a documented number of bytes.

A side file is a small description written by a person or by pdanon. Reading one that is a
FIFO without a writer would wait forever, and ``/dev/zero`` or a runaway file would fill the
memory (4-5 GB before this module), so :func:`read_side_bytes` refuses at once, naming the
path and what it is:

* anything but a regular file (a directory, a FIFO / named pipe, a character or block device
  such as ``/dev/zero``, a socket): checked by :func:`os.stat` before the file is opened, and
  again on the open descriptor (opened non-blocking, so a file swapped for a FIFO in between
  cannot block either);
* a file larger than its limit: checked by its size, and by reading at most the limit plus
  one byte (a file that grows while read is refused too).

The limits (:data:`TEXT_LIMIT` for config, policy, recoding and schema files,
:data:`HIERARCHY_LIMIT` for a hierarchy CSV) are far above any real side file; a caller who
needs more passes ``max_bytes=`` (``--max-side-file-mib`` on the command line).

The table itself (``-i``, ``--population``, a path given to :func:`pdanon.read_csv`) is
data, of any size: it must be a regular file too (a pipe cannot be read twice, and the CSV
reader reads the header first), but no size limit applies (:func:`check_regular`).
``depersonalize --key-file`` keeps its own bounded reader (4,096 bytes): a key may come
through a pipe (``--key-file <(pass show key)``), so a FIFO is read (opened non-blocking: one without a writer reads as empty).

Example
-------
>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> read_side_text(folder, what="--config")
Traceback (most recent call last):
...
pdanon.sidefiles.SideFileError: --config ... is a directory, not a regular file; give the path of the file itself
"""

from __future__ import annotations

import os
import stat

from pdanon._errors import InvalidInputError

__all__ = ["HIERARCHY_LIMIT", "MIB", "SideFileError", "TEXT_LIMIT", "check_regular", "file_kind",
           "read_side_bytes", "read_side_text"]

MIB = 1 << 20
#: the most bytes of a config, policy, recoding JSON or schema YAML file (64 MiB)
TEXT_LIMIT = 64 * MIB
#: the most bytes of a hierarchy CSV file (256 MiB: a hierarchy lists every value)
HIERARCHY_LIMIT = 256 * MIB
_BLOCK = 1 << 20


class SideFileError(InvalidInputError):
    """A side file that is not a regular file, or larger than its limit (the message names
    the path, what it is and the fix)."""


def file_kind(mode: int) -> str | None:
    """What a file of this :func:`os.stat` mode is, in words (``"a FIFO (named pipe)"``), or
    None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, text in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return text
    return "not a regular file"


def _refuse(path, what: str, mode: int) -> None:
    kind = file_kind(mode)
    if kind is None:
        return
    fix = ("give the path of the file itself" if kind == "a directory" else
           "write its content to a regular file first and give that file's path")
    raise SideFileError(f"{what} {str(path)!r} is {kind}, not a regular file; {fix}")


def check_regular(path, *, what: str) -> os.stat_result:
    """The :func:`os.stat` of ``path`` (symlinks followed), or a :class:`SideFileError` when
    it is missing or not a regular file (a directory, FIFO, device or socket).

    >>> check_regular("/dev/null", what="the input")
    Traceback (most recent call last):
    ...
    pdanon.sidefiles.SideFileError: the input '/dev/null' is a character device, not a regular file; write its content to a regular file first and give that file's path
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise SideFileError(f"{what} {str(path)!r}: file not found") from None
    except OSError as exc:
        raise SideFileError(f"{what} {str(path)!r}: cannot read it ({exc.strerror})") from None
    _refuse(path, what, info.st_mode)
    return info


def _too_big(path, what: str, limit: int, size: int | None) -> SideFileError:
    held = "grew while read to" if size is None else f"holds {size} bytes,"
    return SideFileError(
        f"{what} {str(path)!r} {held} more than the limit of {limit} bytes"
        f"{f' ({limit / MIB:g} MiB)' if limit >= MIB else ''} for such a file; is it the right file? If it is, raise the "
        f"limit (max_bytes=, or --max-side-file-mib on the command line)")


def read_side_bytes(path, *, what: str, max_bytes: int = TEXT_LIMIT) -> bytes:
    """The bytes of the side file ``path``, read only if it is a regular file of at most
    ``max_bytes`` bytes (module docstring); ``what`` names it in the errors (``--config``,
    ``hierarchy file``).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
    ...     _ = fh.write(b'{"k": 5}')
    >>> read_side_bytes(fh.name, what="--policy")
    b'{"k": 5}'
    >>> read_side_bytes(fh.name, what="--policy", max_bytes=4)
    Traceback (most recent call last):
    ...
    pdanon.sidefiles.SideFileError: --policy ... holds 8 bytes, more than the limit of 4 bytes ...
    """
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise InvalidInputError(f"max_bytes must be a positive integer, got {max_bytes!r}")
    info = check_regular(path, what=what)
    if info.st_size > max_bytes:
        raise _too_big(path, what, max_bytes, info.st_size)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise SideFileError(f"{what} {str(path)!r}: cannot read it ({exc.strerror})") from None
    try:
        _refuse(path, what, os.fstat(fd).st_mode)  # swapped for a FIFO since the stat
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, min(_BLOCK, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise SideFileError(f"{what} {str(path)!r}: cannot read it ({exc.strerror})") from None
    finally:
        os.close(fd)
    if size > max_bytes:
        raise _too_big(path, what, max_bytes, None)
    return b"".join(chunks)


def read_side_text(path, *, what: str, max_bytes: int = TEXT_LIMIT,
                   encoding: str = "utf-8") -> str:
    """:func:`read_side_bytes` decoded (``encoding``); bytes that are not text in it are a
    :class:`SideFileError` naming the file and the position."""
    data = read_side_bytes(path, what=what, max_bytes=max_bytes)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise SideFileError(f"{what} {str(path)!r} is not {encoding} text (byte {exc.start}: "
                            f"{exc.reason}); save it as {encoding}") from None
