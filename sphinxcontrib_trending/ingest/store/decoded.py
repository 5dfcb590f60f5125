"""Store files' checked rows kept decoded, so a build re-reads what it read last time cheaply.

A site re-reads the whole store on every build that finds a new input.  At
CSIT's size that is 3,640 Parquet files: opening each (its footer carries
the reference's hundred columns), decoding its columns and checking every
value took about 11 s of CPU, while the same rows as LZ4-compressed Arrow
IPC read back in 1.5 s and take half the space of the Parquet files.

So a read with a cache folder keeps, per store file, the rows it handed on
(after :func:`.prepared_rows` and the plausibility checks) as one Arrow IPC
file named after the store file's path.  Each kept file records what the
store file was when it was decoded (its size and modification time, and
its digest where a manifest gives one) and this module's format version;
any difference, or a kept file that cannot be read, means the store file is
read and checked again and its kept copy replaced.  A store file rewritten
in place changes its modification time, so damage to it is still found.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc as ipc

from sphinxcontrib_trending.ingest.atomic import write_atomically

DECODED_VERSION = "1"
"""Raise it when what a store read hands on changes (columns, checks, message handling)."""

_IDENTITY_KEY = b"sphinxcontrib-trending.decoded"
_SUFFIX = ".arrow"


class DecodedFiles:
    """One folder of decoded store files, for one store and one way of reading it.

    A scope per store location and read settings (``passed_messages``,
    metrics): rows prepared for one way are not the rows another wants.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, relative: str) -> Path:
        return self.folder / f"{hashlib.sha256(relative.encode()).hexdigest()[:32]}{_SUFFIX}"

    def read(self, relative: str, identity: object) -> pa.Table | None:
        """The rows kept for the store file at ``relative`` if it still is ``identity``."""
        try:
            with pa.OSFile(str(self._path(relative))) as source:
                reader = ipc.open_file(source)
                metadata = dict(reader.schema.metadata or {})
                if metadata.pop(_IDENTITY_KEY, None) != _identity_bytes(identity):
                    return None
                table = reader.read_all()
        except (OSError, pa.ArrowException):
            return None  # none kept yet, or a kept file unreadable: decoded anew
        return table.replace_schema_metadata(metadata)

    def write(self, relative: str, identity: object, table: pa.Table) -> None:
        """Keep ``table`` as the decoded rows of the store file now at ``identity``.

        A cache that cannot be written costs only speed: the next build
        decodes the store file again.
        """
        metadata = {**(table.schema.metadata or {}), _IDENTITY_KEY: _identity_bytes(identity)}
        sink = pa.BufferOutputStream()
        options = ipc.IpcWriteOptions(compression="lz4")
        with ipc.new_file(sink, table.schema.with_metadata(metadata), options=options) as writer:
            writer.write_table(table)
        try:
            write_atomically(self._path(relative), [sink.getvalue().to_pybytes()])
        except OSError:
            return

    def keep_only(self, relatives: Iterable[str]) -> None:
        """Remove the kept files of store files not among ``relatives`` (gone from the store)."""
        if not self.folder.is_dir():
            return
        wanted = {self._path(relative).name for relative in relatives}
        for kept in self.folder.glob(f"*{_SUFFIX}"):
            if kept.name not in wanted:
                kept.unlink(missing_ok=True)


def scoped(folder: Path, *scope: object) -> DecodedFiles:
    """The decoded files of one store and read settings (``scope``), below ``folder``."""
    name = hashlib.sha256(json.dumps(scope, default=str).encode()).hexdigest()[:16]
    return DecodedFiles(folder / name)


def _identity_bytes(identity: object) -> bytes:
    return json.dumps([DECODED_VERSION, identity], sort_keys=True).encode()
