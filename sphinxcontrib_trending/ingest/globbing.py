"""``**`` globs that follow symbolic links yet visit each real directory once.

``glob.glob(recursive=True)`` follows links into directories without
remembering where it has been: one link back to a parent parses every file
dozens of times, two such links never finish.  Patterns with a ``**``
segment are expanded here by one walk from their fixed prefix, pruned by
real path; others cannot loop and go to :func:`glob.glob`.  Hidden names
match only a segment that starts with a dot, as in :mod:`glob`.
"""

from __future__ import annotations

import glob
import os
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import PurePath


def expand(pattern: str) -> list[str]:
    """Paths (files and directories) matching ``pattern``, each real file once."""
    parts = PurePath(pattern).parts
    if "**" not in parts:
        return glob.glob(pattern, recursive=True)
    fixed = next(index for index, part in enumerate(parts) if glob.has_magic(part))
    root = os.path.join(*parts[:fixed]) if fixed else os.curdir
    wanted = parts[fixed:]
    if not os.path.isdir(root):
        return []
    hidden = any(part.startswith(".") for part in wanted)
    found: list[str] = []
    seen_files: set[str] = set()
    visited = {os.path.realpath(root)}
    for folder, dirs, files in os.walk(root, followlinks=True):
        relative = PurePath(os.path.relpath(folder, root)).parts
        relative = () if relative == (os.curdir,) else relative
        dirs[:] = sorted(d for d in dirs if hidden or not d.startswith("."))
        fresh = []
        for name in dirs:
            real = os.path.realpath(os.path.join(folder, name))
            if real not in visited:
                visited.add(real)
                fresh.append(name)
        dirs[:] = fresh
        if _matches(wanted, relative):
            found.append(folder)
        for name in sorted(files):
            real = os.path.realpath(os.path.join(folder, name))
            if real not in seen_files and _matches(wanted, (*relative, name)):
                seen_files.add(real)
                found.append(os.path.join(folder, name))
    return found


@lru_cache(maxsize=4096)
def _matches(pattern: tuple[str, ...], path: tuple[str, ...]) -> bool:
    if not pattern:
        return not path
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        spans = range(len(path) + 1)
        return any(
            _matches(rest, path[span:])
            for span in spans
            if not any(part.startswith(".") for part in path[:span])
        )
    if not path or (path[0].startswith(".") and not head.startswith(".")):
        return False
    return fnmatchcase(path[0], head) and _matches(rest, path[1:])
