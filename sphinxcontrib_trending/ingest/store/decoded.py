"""Store inputs' checked rows kept decoded, so a build re-reads what it read last time cheaply.

A site re-reads the whole store on every build that finds a new input.  At
CSIT's size that is 3,640 Parquet files: opening each (its footer carries
the reference's hundred columns), decoding its columns and checking every
value took about 11 s of CPU, and putting each input's rows from its
partition files into one table in order 2.5 s more; the same rows, kept
as LZ4-compressed Arrow IPC, read back in a fraction of that and take half
the space of the Parquet files.

So a read with a cache folder keeps, per input, the rows it handed on
(after :func:`.prepared_rows`, the plausibility checks and
:func:`.input_rows`) as one Arrow IPC file named after the input's files.
Each kept file records what those files were when they were decoded (their
sizes and modification times, and their digests where a manifest gives
them) and this module's format version; any difference, or a kept file
that cannot be read, means the files are read and checked again and the
copy replaced.  A store file rewritten in place changes its modification
time, so damage to it is still found.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.ipc as ipc

from sphinxcontrib_trending.ingest.atomic import write_atomically
from sphinxcontrib_trending.ingest.cache_scopes import scope_folder
from sphinxcontrib_trending.ingest.store.stored_tests import BuildHead

DECODED_VERSION = "2"
"""Raise it when what a store read hands on changes (columns, checks, message handling)."""

_IDENTITY_KEY = b"sphinxcontrib-trending.decoded"
_BUILDS_INDEX = "_builds.json"
"""Each copy's builds as the last read found them: what a read that does not need
an input's rows makes its builds of."""
_SUFFIX = ".arrow"


class DecodedCopies:
    """One folder of decoded inputs, for one store and one way of reading it.

    A scope per store location and read settings (``passed_messages``,
    metrics): rows prepared for one way are not the rows another wants.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._builds: dict[str, list[Any]] | None = None
        self._builds_changed = False

    def _path(self, name: str) -> Path:
        return self.folder / f"{hashlib.sha256(name.encode()).hexdigest()[:32]}{_SUFFIX}"

    def read(self, name: str, identity: object) -> pa.Table | None:
        """The rows kept under ``name`` if their files still are ``identity``."""
        try:
            with pa.OSFile(str(self._path(name))) as source:
                reader = ipc.open_file(source)
                metadata = dict(reader.schema.metadata or {})
                if metadata.pop(_IDENTITY_KEY, None) != _identity_bytes(identity):
                    return None
                table = reader.read_all()
        except (OSError, pa.ArrowException):
            return None  # none kept yet, or a kept file unreadable: decoded anew
        return table.replace_schema_metadata(metadata)

    def write(self, name: str, identity: object, table: pa.Table) -> None:
        """Keep ``table`` under ``name``, as the decoded rows of files now at ``identity``.

        A cache that cannot be written costs only speed: the next build
        decodes the input's files again.
        """
        metadata = {**(table.schema.metadata or {}), _IDENTITY_KEY: _identity_bytes(identity)}
        sink = pa.BufferOutputStream()
        options = ipc.IpcWriteOptions(compression="lz4")
        with ipc.new_file(sink, table.schema.with_metadata(metadata), options=options) as writer:
            writer.write_table(table)
        try:
            write_atomically(self._path(name), [sink.getvalue().to_pybytes()])
        except OSError:
            return

    def builds_of(self, name: str, identity: object) -> list[BuildHead] | None:
        """The builds the copy ``name`` held when last read, if its files are still
        ``identity`` and the copy is still there (see :class:`.DeferredInput`)."""
        path = self._path(name)
        entry = self._index().get(path.name)
        try:
            if entry[0] != _identity_bytes(identity).decode() or not path.exists():
                return None
            return [BuildHead.checked(cells) for cells in entry[1]]
        except (TypeError, IndexError, KeyError, ValueError):
            return None  # none noted (None), or a damaged note: the input is read

    def note_builds(self, name: str, identity: object, builds: list[BuildHead]) -> None:
        """Remember the builds of the copy ``name`` (kept by :meth:`save_builds`)."""
        entry = [_identity_bytes(identity).decode(), [list(head) for head in builds]]
        index = self._index()
        if index.get(self._path(name).name) != entry:
            index[self._path(name).name] = entry
            self._builds_changed = True

    def save_builds(self) -> None:
        """Write the builds noted, for the copies still there; a cache folder that
        cannot be written costs the next build a read of every input."""
        if not self._builds_changed:
            return
        index = {
            name: entry for name, entry in self._index().items() if (self.folder / name).exists()
        }
        try:
            write_atomically(self.folder / _BUILDS_INDEX, [json.dumps(index).encode()])
        except OSError:
            return
        self._builds_changed = False

    def _index(self) -> dict[str, list[Any]]:
        if self._builds is None:
            try:
                self._builds = json.loads((self.folder / _BUILDS_INDEX).read_bytes())
            except (OSError, ValueError):
                self._builds = {}  # none yet, or unreadable: every input is read
            if not isinstance(self._builds, dict):
                self._builds = {}
        return self._builds

    def forget(self, name: str) -> None:
        """Remove the copy ``name`` and every note of builds: the copy turned out
        damaged under a build that had made its builds of the notes, and so may
        others.  The next read reads every input, checking each copy, and the
        inputs whose files are damaged too are parsed again or reported."""
        self._builds, self._builds_changed = {}, False
        for kept in (self._path(name), self.folder / _BUILDS_INDEX):
            with contextlib.suppress(OSError):  # a read-only cache keeps them
                kept.unlink(missing_ok=True)

    def keep_only(self, names: Iterable[str]) -> None:
        """Remove the copies not named among ``names`` (their inputs left the store)."""
        if not self.folder.is_dir():
            return
        wanted = {self._path(name).name for name in names}
        for kept in self.folder.glob(f"*{_SUFFIX}"):
            if kept.name not in wanted:
                with contextlib.suppress(OSError):  # a read-only cache keeps them
                    kept.unlink(missing_ok=True)


def copy_name(paths: Iterable[str]) -> str:
    """What names an input's copy: the paths of its files, in order."""
    return "\n".join(paths)


def scoped(folder: Path, *scope: object) -> DecodedCopies:
    """The decoded copies of one store and read settings (``scope``), below ``folder``.

    The scope is marked used; scopes of settings no build uses any more go
    after a while (:func:`.use_scope`).
    """
    return DecodedCopies(scope_folder(folder, *scope))


def _identity_bytes(identity: object) -> bytes:
    return json.dumps([DECODED_VERSION, identity], sort_keys=True).encode()
