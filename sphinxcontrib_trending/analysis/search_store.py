"""Where the exact searches of one cache scope wait for the next build: a file per batch.

A CSIT-sized site saves twenty thousand search states of about 12 KB each.
Kept in one document, the process that groups had to read all of them, hold
them, receive every new one from its workers and write them all again:
hundreds of megabytes in memory, twice, on every build that adds a run.  So
the worker that groups a batch of series writes their states itself
(:meth:`.SavedSearch.to_bytes`, one after the other) into one file named by
the series and contents they describe, and the worker that extends a series
reads its state back from where it lies in that file; the process that
schedules them keeps only a small index: per series, the content hash and
length of the runs its state has seen, and the state's file, offset and
length.  A file per series cost more than the search of the new run did
(creating, filling and later deleting a file is about 0.2 ms of a core;
writing one more state into a batch's file, 0.02 ms).

A file is deleted once no series' entry names it.  A series that stops
gaining runs keeps its batch's file alive, so a file whose live states
fill less than half of it is rewritten with only those (:meth:`SearchStore.save`).
A worker deletes the files it read whole as soon as it has read them
(:func:`free_read_files`): every state in them is replaced by this build's.
Deleted at the end instead, they held their memory while the new states
took fresh pages, which on a virtual machine cost the workers of a build
four times what writing into freed ones did (a tenth of a second of CPU for
the 110 MB of states at 4,000 series of 360 runs).  A build stopped before
it saves the index loses the searches of those files: their series are
grouped afresh next time.

Everything here is read as untrusted input: the index is checked entry by
entry, a file name must be one this module makes, a state is read only
within its file, and only ever decoded by :meth:`.SavedSearch.from_bytes`.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO, NamedTuple

from sphinxcontrib_trending.analysis.cache_documents import cache_document
from sphinxcontrib_trending.ingest.atomic import write_atomically
from sphinxcontrib_trending.ingest.json_documents import json_bytes

INDEX_FORMAT = "sphinxcontrib-trending/saved-searches/3"
FILE_PER_SERIES_FORMAT = "sphinxcontrib-trending/saved-searches/2"
"""The index before batch files: ``[content, runs, file]`` per series, a file each."""
STATE_NAME = re.compile(r"[0-9a-f]{32}\.state")


class Location(NamedTuple):
    """Where one state lies: its file (in the scope's folder), first byte and length."""

    file: str
    offset: int
    length: int


class StateRef(NamedTuple):
    """A :class:`Location` with its folder: what a worker needs to read the state."""

    path: Path
    offset: int
    length: int


@dataclass(frozen=True)
class Saved:
    """One series' entry: its state describes ``runs`` runs whose content hash is ``content``."""

    content: str
    runs: int
    location: Location


def write_states(
    folder: Path, states: Sequence[tuple[str, str, bytes | memoryview]]
) -> list[Location]:
    """Write ``(identity, content, state)`` one after the other in a new file; where each went.

    Workers call this once per batch, so the states never pass through the
    process that schedules them.  The file is named by the series and
    contents, so a second writer of the same batch writes the same bytes.
    """
    digest = hashlib.sha256()
    for identity, content, _ in states:
        # surrogatepass: an identity may hold a lone surrogate (a test name from JSON)
        digest.update(f"{identity}\0{content}\0".encode("utf-8", "surrogatepass"))
    name = digest.hexdigest()[:32] + ".state"
    # joined first: a write per state cost three times as much as a copy and one write
    write_atomically(folder / name, [b"".join(state for _, _, state in states)])
    offsets = itertools.accumulate((len(state) for _, _, state in states), initial=0)
    return [
        Location(name, offset, len(state))
        for offset, (_, _, state) in zip(offsets, states, strict=False)
    ]


def free_read_files(paths: Sequence[Path]) -> None:
    """Delete state files a worker read whole (see the module's description); one
    that cannot be deleted stays until the index no longer names it."""
    for path in paths:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


class StateReader:
    """Reads states, keeping the last file open: a batch's states mostly share one file.

    A state said to reach past the end of its file raises ``ValueError``
    (the index is untrusted), a file that cannot be opened ``OSError``.
    """

    def __init__(self) -> None:
        self._path: Path | None = None
        self._file: BinaryIO | None = None
        self._sizes: dict[Path, int] = {}
        """Each file's size, as found when it was opened."""
        self._read: dict[Path, int] = {}

    def read(self, ref: StateRef) -> bytes:
        self._seek(ref)
        state = self._file.read(ref.length)  # type: ignore[union-attr]
        self._read[ref.path] = self._read.get(ref.path, 0) + len(state)
        return state

    def read_into(self, ref: StateRef, target: memoryview) -> None:
        """:meth:`read` into ``target`` (``ref.length`` bytes): a batch's states are read
        straight into the one buffer they are extended from (:mod:`.batch_extend`)."""
        self._seek(ref)
        if self._file.readinto(target) != ref.length:  # type: ignore[union-attr]
            raise ValueError("a saved search lies beyond the end of its file")
        self._read[ref.path] = self._read.get(ref.path, 0) + ref.length

    def read_whole(self) -> list[Path]:
        """The files whose every byte was read, as the states' lengths add up.

        An index naming one range twice can make a file look read whole: the
        states of the series it also held are then lost, and those series
        grouped afresh, which is all an untrusted index can cause.
        """
        return [path for path, count in self._read.items() if count == self._sizes[path]]

    def lies_within(self, ref: StateRef) -> bool:
        """Whether the state lies within its file (which can be opened): a buffer is made
        for the states of a batch before they are read, and the index is untrusted."""
        try:
            self._open(ref.path)
        except OSError:
            return False
        return ref.offset + ref.length <= self._sizes[ref.path]

    def _seek(self, ref: StateRef) -> None:
        self._open(ref.path)
        if ref.offset + ref.length > self._sizes[ref.path]:
            raise ValueError("a saved search lies beyond the end of its file")
        self._file.seek(ref.offset)  # type: ignore[union-attr]

    def _open(self, path: Path) -> None:
        if self._file is None or path != self._path:
            self.close()
            self._file = path.open("rb", buffering=0)
            self._path = path
            self._sizes[path] = self._file.seek(0, 2)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        self._file = self._path = None

    def __enter__(self) -> StateReader:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class SearchStore:
    """The index of one scope's saved searches, read on first use, written by :meth:`save`.

    ``folder`` None keeps nothing: a cache without a folder saves no search.
    """

    def __init__(self, folder: Path | None, name: str) -> None:
        self.index_path = None if folder is None else folder / f"{name}.searches.json"
        self.folder = None if folder is None else folder / f"{name}.searches"
        self.scope = name
        self._index: dict[str, Saved] | None = None
        self._paths: dict[str, Path] = {}
        self._replaced: set[str] = set()
        self._dirty = False

    def saved(self, identity: str) -> Saved | None:
        return self._entries().get(identity)

    def ref(self, saved: Saved) -> StateRef:
        assert self.folder is not None  # an entry exists only with a folder
        file, offset, length = saved.location
        path = self._paths.get(file)
        if path is None:  # a path per file, not per series: joining one cost more than
            path = self._paths[file] = self.folder / file  # the rest of finding a state
        return StateRef(path, offset, length)

    def record(self, identity: str, content: str, runs: int, location: Location | None) -> None:
        """The series' state is now at ``location`` (None: it has none)."""
        if self.folder is None:
            return
        entries = self._entries()
        previous = entries.pop(identity, None)
        if location is not None:
            entries[identity] = Saved(content, runs, location)
        if previous is not None and (location is None or previous.location.file != location.file):
            self._replaced.add(previous.location.file)
        self._dirty = True

    def save(self) -> None:
        """Write the index, then delete the state files it no longer names.

        Only files this object replaced states of are deleted or compacted:
        a parallel reader of the same build may have written others that
        its own index names.
        """
        if self.index_path is None or self.folder is None or not self._dirty:
            return
        entries = self._entries()
        self._compact(entries)
        document = {
            "format": INDEX_FORMAT,
            "scope": self.scope,
            "searches": {
                identity: [saved.content, saved.runs, *saved.location]
                for identity, saved in entries.items()
            },
        }
        write_atomically(self.index_path, [json_bytes(document)])
        named = {saved.location.file for saved in entries.values()}
        for file in self._replaced - named:
            (self.folder / file).unlink(missing_ok=True)
        self._replaced.clear()
        self._dirty = False

    def _compact(self, entries: dict[str, Saved]) -> None:
        """Move the states still named in a replaced file that is mostly stale to a new file.

        Without this a series that no longer gains runs would keep its
        whole batch's file alive, build after build.  A state that cannot
        be read is dropped: its series is then grouped afresh.
        """
        assert self.folder is not None
        kept: dict[str, list[str]] = {}
        for identity, saved in entries.items():
            if saved.location.file in self._replaced:
                kept.setdefault(saved.location.file, []).append(identity)
        for file, identities in kept.items():
            try:
                size = (self.folder / file).stat().st_size
            except OSError:
                size = 0
            if 2 * sum(entries[identity].location.length for identity in identities) >= size:
                continue
            states = []
            with StateReader() as reader:
                for identity in identities:
                    saved = entries.pop(identity)
                    try:
                        states.append((identity, saved, reader.read(self.ref(saved))))
                    except (OSError, ValueError):
                        continue
            if states:
                moved = [(identity, saved.content, state) for identity, saved, state in states]
                for (identity, saved, _), location in zip(
                    states, write_states(self.folder, moved), strict=True
                ):
                    entries[identity] = Saved(saved.content, saved.runs, location)

    def _entries(self) -> dict[str, Saved]:
        if self._index is None:
            self._index = _read_index(self.index_path, self.scope)
            # a cache of the previous release: its files are never read again,
            # and the first save deletes them instead of leaving them for good
            self._replaced |= _files_per_series(self.index_path, self.scope)
        return self._index


def _read_index(path: Path | None, scope: str) -> dict[str, Saved]:
    """The entries of an index file of this scope; a malformed entry is left out."""
    searches = cache_document(path, INDEX_FORMAT, scope, "searches")
    return {
        identity: Saved(entry[0], entry[1], Location(*entry[2:]))
        for identity, entry in searches.items()
        if _well_formed(entry)
    }


def _files_per_series(path: Path | None, scope: str) -> set[str]:
    """The state files an index of the file-per-series format names, if that is what is there."""
    searches = cache_document(path, FILE_PER_SERIES_FORMAT, scope, "searches")
    return {
        entry[2]
        for entry in searches.values()
        if isinstance(entry, list)
        and len(entry) == 3
        and isinstance(entry[2], str)
        and STATE_NAME.fullmatch(entry[2]) is not None
    }


def _well_formed(entry: Any) -> bool:
    if not (isinstance(entry, list) and len(entry) == 5):
        return False
    content, runs, file, offset, length = entry
    return (
        isinstance(content, str)
        and type(runs) is int
        and runs >= 1
        and isinstance(file, str)
        and STATE_NAME.fullmatch(file) is not None
        and type(offset) is int
        and offset >= 0
        and type(length) is int
        and length >= 1
    )
