"""Reading a store's own files without trusting what sits at their names.

A store folder may be shared, copied or tampered with: its manifest or a
data file can be a link to ``/dev/zero`` (endless), a FIFO (blocks on open),
or a sparse file of gigabytes.  Read naively each costs all the memory there
is.  Only a regular file within a size cap is read, and never more than the
cap, even if the file grows meanwhile.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

MANIFEST_MAX_BYTES = 256 * 1024 * 1024
"""Far above the manifest of a store of a hundred thousand inputs."""


class RefusedFile(ValueError):
    """Not a regular file, or larger than the reader would hold."""


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes (links followed).

    ``FileNotFoundError`` and other ``OSError`` pass through; anything that
    is not a regular file, or over ``limit``, is :class:`RefusedFile`.
    """
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block the open
    with os.fdopen(descriptor, "rb") as stream:
        found = os.fstat(descriptor)
        if not stat.S_ISREG(found.st_mode):
            raise RefusedFile("not a regular file")
        if found.st_size > limit:
            raise RefusedFile(f"{found.st_size:,} bytes, over the {limit:,} this file may have")
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise RefusedFile(f"grew past the {limit:,} bytes this file may have while read")
    return data


def read_listed(fs: Any, path: str, limit: int) -> bytes:
    """:func:`read_regular` through an fsspec file system (a local folder, ``s3://``, ...)."""
    info = fs.info(path)
    if info.get("type") != "file":
        raise RefusedFile("not a regular file")
    size = info.get("size") or 0
    if size > limit:
        raise RefusedFile(f"{size:,} bytes, over the {limit:,} this file may have")
    with fs.open(path, "rb") as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise RefusedFile(f"grew past the {limit:,} bytes this file may have while read")
    return bytes(data)
