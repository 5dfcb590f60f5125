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
from collections.abc import Iterator
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


def local_files(root: str) -> list[tuple[str, os.stat_result]]:
    """Every file under the local folder ``root``: its relative name and its state.

    What :func:`os.walk` finds (a linked file by what it names; a linked
    folder, whose files fsspec's listing leaves out too, not entered), in
    half its time and a third of fsspec's: a store holds a file per input
    and day, 1,500 for a year of two daily jobs, listed by every build.  A
    folder that cannot be read, and a link to nothing, are left out.
    """
    found: list[tuple[str, os.stat_result]] = []
    for name, entry in local_entries(root):
        try:
            found.append((name, entry.stat()))
        except OSError:
            continue
    return found


def local_entries(
    root: str, hidden: tuple[str, ...] = ()
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every entry under the local folder ``root`` that is not a folder, with its
    relative name; a name starting with one of ``hidden`` is left out, a folder's
    with all it holds.  A linked folder is not entered, a folder that cannot be
    read is left out (see :func:`local_files`)."""
    folders = [("", root)]
    while folders:
        prefix, folder = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if hidden and entry.name.startswith(hidden):
                continue
            try:
                if not entry.is_dir():
                    yield prefix + entry.name, entry
                elif not entry.is_symlink():
                    folders.append((f"{prefix}{entry.name}/", entry.path))
            except OSError:
                continue


def _local_state(root: Path) -> list[object]:
    """A local folder's files (or the one file it names) as :func:`location_state` lists them."""
    if root.is_file():
        return [[".", *_stat_state(root.stat())]]
    return sorted([name, *_stat_state(info)] for name, info in local_files(str(root)))


def _stat_state(info: os.stat_result) -> list[object]:
    return [info.st_size, str(info.st_mtime)]
