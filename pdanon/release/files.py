"""What both writers (:mod:`pdanon.release.publish` for microdata, :mod:`pdanon.release.tables`
for protected tables) share: the error that says nothing was published, and each written
file's size and SHA-256.

>>> import tempfile, os
>>> with tempfile.TemporaryDirectory() as d:
...     path = os.path.join(d, "x.txt")
...     _ = open(path, "w").write("abc")
...     file_digest(path)["sha256"][:12], file_digest(path)["bytes"]
('ba7816bf8f01', 3)
"""

from __future__ import annotations

import hashlib
import os

from pdanon._errors import InvalidInputError

__all__ = ["PublishError", "file_digest"]


class PublishError(InvalidInputError):
    """:func:`publish` refused or undid the release: nothing it meant to write is left."""


def file_digest(path: str) -> dict:
    """``{"path", "bytes", "sha256"}`` of the file at ``path`` (read in 1 MiB blocks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return {"path": path, "bytes": os.path.getsize(path), "sha256": digest.hexdigest()}


def remove_written(written) -> None:
    """Remove the files a failed write had made (``written``: only paths this write created,
    never one that was there before); a file already gone is no error."""
    for path in written:
        try:
            if os.path.isfile(path):
                os.remove(path)
        except OSError:
            pass
