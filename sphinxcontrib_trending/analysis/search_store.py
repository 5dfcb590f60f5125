"""Where the exact searches of one cache scope wait for the next build: a file per series.

A CSIT-sized site saves twenty thousand search states of about 15 KB each.
Kept in one document, the process that groups had to read all of them, hold
them, receive every new one from its workers and write them all again:
hundreds of megabytes in memory, twice, on every build that adds a run.  So
each state is a file of its own (:meth:`.SavedSearch.to_bytes`), named by
the series and the content it describes, which the worker that extends the
series reads and the worker that groups it writes; the process that
schedules them keeps only a small index: per series, the content hash and
length of the runs its state has seen, and the state's file.

Everything here is read as untrusted input: the index is checked entry by
entry, a file name must be one this module makes, and a state file is only
ever decoded by :meth:`.SavedSearch.from_bytes`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sphinxcontrib_trending.analysis.cache_documents import cache_document
from sphinxcontrib_trending.ingest.atomic import write_atomically

INDEX_FORMAT = "sphinxcontrib-trending/saved-searches/2"
STATE_NAME = re.compile(r"[0-9a-f]{32}\.state")


@dataclass(frozen=True)
class Saved:
    """One series' entry: its state describes ``runs`` runs whose content hash is ``content``."""

    content: str
    runs: int
    file: str


def state_name(identity: str, content: str) -> str:
    """The file of a series' state after the runs hashed to ``content``."""
    return hashlib.sha256(f"{identity}\0{content}".encode()).hexdigest()[:32] + ".state"


def write_state(folder: Path, identity: str, content: str, state: bytes) -> str:
    """Write a state where :class:`SearchStore` finds it; return its file name.

    Workers call this themselves, so the states never pass through the
    process that schedules them.
    """
    name = state_name(identity, content)
    write_atomically(folder / name, [state])
    return name


class SearchStore:
    """The index of one scope's saved searches, read on first use, written by :meth:`save`.

    ``folder`` None keeps nothing: a cache without a folder saves no search.
    """

    def __init__(self, folder: Path | None, name: str) -> None:
        self.index_path = None if folder is None else folder / f"{name}.searches.json"
        self.folder = None if folder is None else folder / f"{name}.searches"
        self.scope = name
        self._index: dict[str, Saved] | None = None
        self._replaced: set[str] = set()
        self._dirty = False

    def saved(self, identity: str) -> Saved | None:
        return self._entries().get(identity)

    def path(self, saved: Saved) -> Path:
        assert self.folder is not None  # an entry exists only with a folder
        return self.folder / saved.file

    def record(self, identity: str, content: str, runs: int, file: str | None) -> None:
        """The series' state is now ``file`` (None: it has none)."""
        if self.folder is None:
            return
        entries = self._entries()
        previous = entries.pop(identity, None)
        if file is not None:
            entries[identity] = Saved(content, runs, file)
        if previous is not None and previous.file != file:
            self._replaced.add(previous.file)
        self._dirty = True

    def save(self) -> None:
        """Write the index, then delete the state files it no longer names.

        Only files this object replaced are deleted: a parallel reader of the
        same build may have written others that its own index names.
        """
        if self.index_path is None or self.folder is None or not self._dirty:
            return
        entries = self._entries()
        document = {
            "format": INDEX_FORMAT,
            "scope": self.scope,
            "searches": {
                identity: [saved.content, saved.runs, saved.file]
                for identity, saved in entries.items()
            },
        }
        write_atomically(self.index_path, [json.dumps(document).encode()])
        named = {saved.file for saved in entries.values()}
        for file in self._replaced - named:
            (self.folder / file).unlink(missing_ok=True)
        self._replaced.clear()
        self._dirty = False

    def _entries(self) -> dict[str, Saved]:
        if self._index is None:
            self._index = _read_index(self.index_path, self.scope)
        return self._index


def _read_index(path: Path | None, scope: str) -> dict[str, Saved]:
    """The entries of an index file of this scope; a malformed entry is left out."""
    searches = cache_document(path, INDEX_FORMAT, scope, "searches")
    return {identity: Saved(*entry) for identity, entry in searches.items() if _well_formed(entry)}


def _well_formed(entry: Any) -> bool:
    if not (isinstance(entry, list) and len(entry) == 3):
        return False
    content, runs, file = entry
    return (
        isinstance(content, str)
        and type(runs) is int
        and runs >= 1
        and isinstance(file, str)
        and STATE_NAME.fullmatch(file) is not None
    )
