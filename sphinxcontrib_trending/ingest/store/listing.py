"""What a store's files are now, from a listing alone: a fingerprint's input.

Every build asks whether a store changed before it reads it, so this takes
the listing only, never a file, and nothing of the store's reading (pyarrow):
a build that finds nothing changed never imports it.
"""

from __future__ import annotations

import posixpath
from typing import Any

import fsspec


def location_state(location: str) -> list[object]:
    """Each file's relative name, size and modification time (or ETag), by name.

    A location that cannot be listed yields the reason, so the fingerprint
    still changes when it comes back.
    """
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
