"""What a store's files are now, from a listing alone: a fingerprint's input.

Every build asks whether a store changed before it reads it, so this takes
the listing only, never a file, and nothing of the store's reading (pyarrow):
a build that finds nothing changed never imports it.  A local folder is
listed by the operating system, the same names, sizes and times fsspec's
listing gives (fsspec and asyncio are a twentieth of a second to import);
fsspec lists a URL.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Any


def location_state(location: str) -> list[object]:
    """Each file's relative name, size and modification time (or ETag), by name.

    A location that cannot be listed yields the reason, so the fingerprint
    still changes when it comes back.
    """
    if "://" not in location:
        return _local_state(Path(location))
    import fsspec

    try:
        fs, root = fsspec.core.url_to_fs(location)
        listing = fs.find(root, detail=True)
    except (OSError, ValueError, ImportError) as error:
        return [location, str(error)]
    return [
        [posixpath.relpath(path, root), *file_state(info)] for path, info in sorted(listing.items())
    ]


def file_state(info: dict[str, Any]) -> list[object]:
    """A listed file's size and modification time (or ETag): changes when its content does."""
    return [
        info.get("size"),
        str(info.get("mtime") or info.get("ETag") or info.get("LastModified") or ""),
    ]


def _local_state(root: Path) -> list[object]:
    """A local folder's files (or the one file it names) as :func:`location_state` lists them."""
    if root.is_file():
        return [[".", *_stat_state(root)]]
    found = []
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder, name)
            try:
                state = _stat_state(path)
            except OSError:
                continue
            found.append([path.relative_to(root).as_posix(), *state])
    return sorted(found)


def _stat_state(path: Path) -> list[object]:
    info = path.stat()
    return [info.st_size, str(info.st_mtime)]
