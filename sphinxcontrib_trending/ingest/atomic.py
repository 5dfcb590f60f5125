"""Write-then-rename, so a concurrent reader sees the old file or the new one.

Parallel Sphinx builds and two CLI runs may share one cache folder; a reader
must never meet a half-written entry.  The temporary file lives in the target
folder so ``os.replace`` is a same-filesystem atomic rename.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def write_atomically(target: Path, chunks: Iterable[bytes]) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            for chunk in chunks:
                stream.write(chunk)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
