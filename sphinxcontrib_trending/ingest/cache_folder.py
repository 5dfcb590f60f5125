"""Whether a cache folder can be written at all, asked once before a build relies on it.

Stores, decoded copies, groupings and downloads are written all through a
build; a read-only folder (a cache restored from a read-only mount, a CI
volume) would fail each of those places differently.  Asking once up front
lets the build go on without its cache instead.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def unwritable(folder: Path) -> str | None:
    """Why nothing can be written into ``folder`` (created if missing), or None if it can."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".write-probe-")
    except OSError as error:
        return str(error)
    os.close(handle)
    Path(probe).unlink(missing_ok=True)
    return None


_REPORTED: set[Path] = set()
"""Folders whose failed writes were already reported in this process."""


def report_unwritable(folder: Path, error: OSError, warn: Callable[[str], None]) -> None:
    """Warn, once per folder and process, that a write into ``folder`` failed mid-build.

    A disk can fill up after :func:`usable` asked: every writer of the folder
    then fails, and one warning says so for all of them.
    """
    if folder in _REPORTED:
        return
    _REPORTED.add(folder)
    warn(
        f"cache folder {folder} cannot be written ({error}): "
        "going on without it, what it lacks is computed anew and not kept"
    )


def usable(folder: Path | None, warn: Callable[[str], None]) -> Path | None:
    """``folder`` if it can be written; else None (no cache) after one warning saying why."""
    if folder is None or (reason := unwritable(folder)) is None:
        return folder
    warn(
        f"cache folder {folder} cannot be written ({reason}): "
        "going on without it, parsing and grouping everything anew"
    )
    return None
