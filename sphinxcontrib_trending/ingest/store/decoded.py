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

import pyarrow as pa
import pyarrow.ipc as ipc

from sphinxcontrib_trending.ingest.atomic import write_atomically
from sphinxcontrib_trending.ingest.cache_scopes import use_scope

DECODED_VERSION = "2"
"""Raise it when what a store read hands on changes (columns, checks, message handling)."""

_IDENTITY_KEY = b"sphinxcontrib-trending.decoded"
_SUFFIX = ".arrow"


class DecodedCopies:
    """One folder of decoded inputs, for one store and one way of reading it.

    A scope per store location and read settings (``passed_messages``,
    metrics): rows prepared for one way are not the rows another wants.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

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
    name = hashlib.sha256(json.dumps(scope, default=str).encode()).hexdigest()[:16]
    use_scope(folder, name)
    return DecodedCopies(folder / name)


def _identity_bytes(identity: object) -> bytes:
    return json.dumps([DECODED_VERSION, identity], sort_keys=True).encode()
