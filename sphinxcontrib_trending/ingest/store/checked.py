"""Which store files ``ingest`` has hashed already, so the next run need not hash them again.

``sphinx-trending ingest`` reads no rows of the inputs a store keeps, but it
checks that each kept file still is what the manifest says (size and
SHA-256) before trusting it: a damaged file has its input parsed again.
Hashing every file made one new build's ingest cost as much as the whole
history's bytes.  So a run notes, beside the manifest, what each file it
hashed looked like then (size, modification time, inode); the next run
hashes only files that look different, which a write in place, a rename
over it or a removal all make them.

A file is noted only when its modification time was well before the hash
(:data:`SETTLE_NS`): a write within the same clock tick as the hash could
otherwise leave the time unchanged.  The note is a cache: unreadable or
foreign, it is ignored and every file is hashed as before.

A file the run wrote itself is noted too, as it looked right after the
write (:meth:`CheckedFiles.note_written`): the run knows the bytes it
wrote, so the first run after a long one (a backfill of half a year) does
not hash every file that one just wrote.  A later write to it changes how
it looks, except one by someone else within the same clock tick as ours.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

from sphinxcontrib_trending.ingest.atomic import write_atomically
from sphinxcontrib_trending.ingest.store.bounded import read_regular
from sphinxcontrib_trending.ingest.store.manifest import DataFile

CHECKED_NAME = "_checked.json"
"""Beside the manifest; the leading ``_`` keeps it out of the store's data files."""
CHECKED_FORMAT = "sphinxcontrib-trending/checked-files/1"
SETTLE_NS = 2 * 10**9
"""How much older than its hash a file's modification time must be to be noted (two
seconds: coarser than any file system's timestamps that a store lives on)."""
CHECKED_MAX_BYTES = 64 * 1024 * 1024

Look = list[object]
"""What a file looked like when it was hashed: size, SHA-256, mtime (ns), inode."""

WrittenLook = tuple[int, int]
"""A file's modification time (ns) and inode right after this run wrote it."""


class CheckedFiles:
    """A store's files hashed by earlier runs, and those this run hashed, trusted or wrote."""

    def __init__(self, root: Path) -> None:
        self.path = root / CHECKED_NAME
        self._before = _read(self.path)
        self._now: dict[str, Look] = {}

    def vouches_for(self, data: DataFile, info: os.stat_result) -> bool:
        """Whether ``data``'s file was hashed as it says and looks as it did then."""
        look = _look(data, info)
        if self._before.get(data.path) != look:
            return False
        self._now[data.path] = look
        return True

    def note(self, data: DataFile, info: os.stat_result, hashed_ns: int) -> None:
        """``data``'s file (as ``info`` found it) was just hashed and matched it."""
        if info.st_mtime_ns + SETTLE_NS <= hashed_ns:
            self._now[data.path] = _look(data, info)

    def note_written(self, data: DataFile, written: WrittenLook) -> None:
        """``data`` was written by this run and looked as ``written`` then."""
        mtime_ns, inode = written
        self._now[data.path] = [data.size, data.sha256, mtime_ns, inode]

    def save(self) -> None:
        """Keep what this run hashed, trusted or wrote (the files it did not look at are let go).

        A store that cannot be written costs only speed: the next run hashes again.
        """
        if self._now == self._before:
            return
        document = {"format": CHECKED_FORMAT, "files": self._now}
        with contextlib.suppress(OSError):
            write_atomically(self.path, [json.dumps(document, sort_keys=True).encode()])


def written_look(path: Path) -> WrittenLook:
    """How a file looks right after this run wrote it (see :meth:`CheckedFiles.note_written`)."""
    info = path.stat()
    return info.st_mtime_ns, info.st_ino


def hashed_now() -> int:
    """The clock :meth:`CheckedFiles.note` compares modification times with."""
    return time.time_ns()


def _look(data: DataFile, info: os.stat_result) -> Look:
    return [data.size, data.sha256, info.st_mtime_ns, info.st_ino]


def _read(path: Path) -> dict[str, Look]:
    try:
        document = json.loads(read_regular(path, CHECKED_MAX_BYTES))
    except (OSError, ValueError):
        return {}
    if not isinstance(document, dict) or document.get("format") != CHECKED_FORMAT:
        return {}
    files = document.get("files")
    if not isinstance(files, dict):
        return {}
    return {name: look for name, look in files.items() if isinstance(look, list)}
