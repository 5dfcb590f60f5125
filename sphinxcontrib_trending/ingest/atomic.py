"""Write-then-rename, so a concurrent reader sees the old file or the new one.

Parallel Sphinx builds and two CLI runs may share one cache folder; a reader
must never meet a half-written entry.  The temporary file lives in the target
folder so ``os.replace`` is a same-filesystem atomic rename.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


@contextmanager
def replaced_atomically(target: Path) -> Iterator[BinaryIO]:
    """A file to write ``target`` through: it replaces ``target`` when the block ends,
    and is removed if the block raises (a build stopped halfway leaves the old one)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            yield stream
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_atomically(target: Path, chunks: Iterable[bytes]) -> None:
    with replaced_atomically(target) as stream:
        for chunk in chunks:
            stream.write(chunk)
