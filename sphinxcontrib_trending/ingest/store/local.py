"""A store folder on this machine: the build's and ``ingest``'s data path.

Only the loader writes here, under a lock, in one transaction per run:
new data files first, the manifest last, then the files nothing lists any
more are removed.  Reading verifies each file against the manifest (size,
SHA-256), then its schema marker, column types and values, before trusting
a row of it; with a cache folder, the rows it verified are kept decoded
(:mod:`.decoded`) and stand for an input's files until one changes.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path, PurePosixPath

import pyarrow as pa
import pyarrow.parquet as pq

from sphinxcontrib_trending.engine.read_ahead import read_ahead
from sphinxcontrib_trending.ingest.atomic import write_atomically
from sphinxcontrib_trending.ingest.model import Build, Problem
from sphinxcontrib_trending.ingest.store.bounded import read_regular
from sphinxcontrib_trending.ingest.store.checked import (
    CheckedFiles,
    WrittenLook,
    hashed_now,
    written_look,
)
from sphinxcontrib_trending.ingest.store.columns import MODEL_COLUMNS, STORE_MARKER, STORE_VERSION
from sphinxcontrib_trending.ingest.store.decoded import DecodedCopies, copy_name, scoped
from sphinxcontrib_trending.ingest.store.layout import (
    file_name,
    is_our_file,
    partition_folder,
)
from sphinxcontrib_trending.ingest.store.listing import local_entries
from sphinxcontrib_trending.ingest.store.manifest import (
    DataFile,
    Entry,
    Manifest,
    read_manifest,
)
from sphinxcontrib_trending.ingest.store.rows import (
    SharedValues,
    check_plausible,
    tables_by_partition,
)
from sphinxcontrib_trending.ingest.store.stored_tests import (
    BuildHead,
    DeferredInput,
    builds_from_input,
    input_rows,
    prepared_rows,
    unreadable_input,
)

LOCK_NAME = "_lock"
DOWNLOADS_NAME = "_downloads"
"""Where ``ingest`` keeps copies of URLs (hidden from the data by its ``_``)."""

READ_ERRORS = (OSError, pa.ArrowException, ValueError, KeyError, TypeError, AttributeError)
"""What a damaged or planted data file raises on its way into the model."""


class CorruptFile(ValueError):
    """A data file that is not what the manifest says it is."""


class LocalStore:
    def __init__(self, root: Path, decoded_dir: Path | None = None) -> None:
        """``decoded_dir`` keeps each input's checked rows decoded between reads
        (:mod:`.decoded`); without it every read decodes and checks each file."""
        self.root = root
        self.decoded_dir = decoded_dir
        self.shared = SharedValues()  # repeated values shared by the builds read back

    @contextmanager
    def locked(self) -> Iterator[None]:
        """One writer at a time: two builds sharing a store take turns."""
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / LOCK_NAME).open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def manifest(self) -> tuple[Manifest, list[Problem]]:
        """The manifest, and a problem per file in the tree it does not explain."""
        manifest, complaint = read_manifest(self.root)
        problems = [complaint] if complaint is not None else []
        referenced = manifest.referenced()
        for relative in self._files():
            if relative not in referenced and not is_our_file(relative):
                problems.append(
                    Problem(
                        str(self.root / relative), "foreign file in the store, skipped", "cache"
                    )
                )
        return manifest, problems

    def _files(self) -> list[str]:
        """Every file's relative path, sorted, except names starting with ``_`` or ``.``
        (and what such folders hold): what ``ingest`` lists twice a run, at a file
        per input and day."""
        return sorted(name for name, _ in local_entries(str(self.root), hidden=("_", ".")))

    def read(
        self, entry: Entry, *, passed_messages: bool = True
    ) -> tuple[list[Build] | None, Problem | None]:
        """The builds of one input's files, or the problem that keeps them from use.

        ``passed_messages`` as for :func:`.prepared_rows`.
        """
        return self.read_many([entry], passed_messages=passed_messages)[0]

    def read_many(
        self, entries: Sequence[Entry], *, passed_messages: bool = True
    ) -> list[tuple[list[Build] | None, Problem | None]]:
        """:meth:`read` of each entry, in order, its files verified on a thread per core.

        Reading, hashing, decoding, checking and sorting an input's rows
        release the GIL; making the builds does not, so this thread makes
        them while the others verify and prepare the next inputs' rows
        (:func:`.read_ahead`).

        An input whose decoded copy is unchanged since the last read gives
        the builds that read noted, its rows read only when first asked for
        (:class:`.DeferredInput`), as a store read as a source does: a site
        keeps its histories between builds and needs only the new inputs'
        rows.  Made from every input's rows, the read of a site reading its
        archives grew with the history: 0.76 s at 60 builds of two jobs of
        2,000 tests, 2.7 s at 360 (0.5 and 0.7 s through the noted builds,
        the new archive's parse included).
        """
        decoded = self._decoded(passed_messages)  # once per read, not per input
        found: list[tuple[list[Build] | None, Problem | None]] = []
        noted = [self._noted_builds(entry, decoded, passed_messages) for entry in entries]
        unread = [entry for entry, builds in zip(entries, noted, strict=True) if builds is None]
        rows_of = partial(self._input_rows, passed_messages=passed_messages, decoded=decoded)
        verified = read_ahead(rows_of, unread)
        for entry, builds in zip(entries, noted, strict=True):
            if builds is not None:
                found.append((builds, None))
                continue
            rows = next(verified)
            if isinstance(rows, Problem):
                found.append((None, rows))
            elif rows is None:  # an input that gave no builds
                found.append(([], None))
            else:
                made, complaint = self._builds(entry, rows)
                found.append((made, complaint))
                if decoded is not None and made:
                    heads = [BuildHead.of(build) for build in made]
                    decoded.note_builds(_copy_of(entry), self._identity(entry), heads)
        if decoded is not None:
            decoded.save_builds()
        return found

    def _noted_builds(
        self, entry: Entry, decoded: DecodedCopies | None, passed_messages: bool
    ) -> list[Build] | None:
        """The entry's builds as the last read noted them, their rows unread (None: read it)."""
        if decoded is None or not entry.files:
            return None
        try:
            heads = decoded.builds_of(_copy_of(entry), self._identity(entry))
        except OSError:
            return None  # a file gone: the read reports it
        if heads is None:
            return None
        where = self.root / entry.files[0].path

        def read() -> pa.Table:
            rows = self._input_rows(entry, passed_messages, decoded)
            if not isinstance(rows, pa.Table):
                raise unreadable_input(str(where), rows.message if rows else "no files")
            return rows

        forget = partial(decoded.forget, _copy_of(entry))
        return DeferredInput(read, self.shared, _provenance(entry), forget).builds(heads)

    def _identity(self, entry: Entry) -> list[list[object]]:
        """What the entry's files are now, as their decoded copy records them (OSError: one
        is gone)."""
        return [
            [data.path, data.size, data.sha256, (self.root / data.path).stat().st_mtime_ns]
            for data in entry.files
        ]

    def _decoded(self, passed_messages: bool) -> DecodedCopies | None:
        if self.decoded_dir is None:
            return None
        return scoped(self.decoded_dir, str(self.root.absolute()), passed_messages)

    def _input_rows(
        self, entry: Entry, passed_messages: bool, decoded: DecodedCopies | None
    ) -> pa.Table | Problem | None:
        """An entry's rows in order (:func:`.input_rows`), verified now or when last decoded;
        None for an entry without files.

        A decoded copy stands for the entry's files while each keeps the
        size, digest and modification time it had then: a file written in
        place is verified again.
        """
        if not entry.files:
            return None
        name = _copy_of(entry)
        try:
            identity = self._identity(entry)
        except OSError as error:
            return _unusable(Path(error.filename or self.root / entry.files[0].path), error)
        copy = decoded.read(name, identity) if decoded is not None else None
        if copy is not None:
            return copy
        tables = []
        for data in entry.files:
            path = self.root / data.path
            try:
                tables.append(_verified_table(path, data, passed_messages))
            except READ_ERRORS as error:
                return _unusable(path, error)
        try:
            rows = input_rows(tables)
        except READ_ERRORS as error:
            return _unusable(self.root / entry.files[0].path, error)
        if decoded is not None:
            decoded.write(name, identity, rows)
        return rows

    def _builds(self, entry: Entry, rows: pa.Table) -> tuple[list[Build] | None, Problem | None]:
        try:
            builds = builds_from_input(rows, self.shared, _provenance(entry))
        except READ_ERRORS as error:
            return None, _unusable(self.root / entry.files[0].path, error)
        return builds, None

    def damaged(self, entry: Entry) -> Problem | None:
        """Why an entry's files are not what the manifest says (size, SHA-256), if they are not.

        ``ingest`` reads no rows of the inputs it keeps; this is its check
        that their files still hold them, so a damaged one is written anew.
        A file an earlier run hashed and that looks as it did then is not
        hashed again (:mod:`.checked`; :meth:`keep_checked` saves what this
        run hashed).
        """
        for data in entry.files:
            path = self.root / data.path
            try:
                info = path.stat()
                if self.checked.vouches_for(data, info):
                    continue
                hashed = hashed_now()
                check_listed(read_regular(path, data.size), data)
            except FileNotFoundError as error:
                return Problem(
                    str(path), f"missing store file, its input is parsed again: {error}", "cache"
                )
            except (OSError, ValueError) as error:
                return _unusable(path, error)
            self.checked.note(data, info, hashed)
        return None

    @functools.cached_property
    def checked(self) -> CheckedFiles:
        """The files earlier runs hashed; read on the first :meth:`damaged`."""
        return CheckedFiles(self.root)

    def keep_checked(self) -> None:
        """Save which files :meth:`damaged` hashed or trusted, for the next run."""
        if "checked" in self.__dict__:
            self.checked.save()

    def note_written(self, files: tuple[DataFile, ...], looks: tuple[WrittenLook, ...]) -> None:
        """``files`` were written by this run and looked as ``looks`` right after:
        :meth:`keep_checked` keeps them with the files checked, so the next run need not
        hash them."""
        for data, look in zip(files, looks, strict=True):
            self.checked.note_written(data, look)

    def written_looks(self, files: tuple[DataFile, ...]) -> tuple[WrittenLook, ...]:
        """How ``files`` look right after :meth:`write` wrote them."""
        return tuple(written_look(self.root / data.path) for data in files)

    def write(self, key: str, builds: list[Build]) -> tuple[DataFile, ...]:
        """New files holding ``builds``; nothing lists them until a commit does."""
        written = []
        for partition, table in tables_by_partition(builds).items():
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink, compression="snappy")
            data = sink.getvalue().to_pybytes()
            digest = hashlib.sha256(data).hexdigest()
            relative = f"{partition_folder(partition)}/{file_name(key, digest)}"
            write_atomically(self.root / relative, [data])
            written.append(DataFile(relative, len(data), digest))
        return tuple(written)

    def commit(self, manifest: Manifest) -> None:
        """Make ``manifest`` the store's, then remove files of ours it does not list.

        Those are the replaced versions of changed inputs, the inputs that
        were removed, and whatever an interrupted run left behind.
        """
        manifest.write(self.root)
        keep = manifest.referenced()
        for relative in self._files():
            if relative not in keep and is_our_file(relative):
                (self.root / relative).unlink(missing_ok=True)
        for passed_messages in (False, True):
            if (decoded := self._decoded(passed_messages)) is not None:
                decoded.keep_only(_copy_of(entry) for entry in manifest.entries.values())


def _copy_of(entry: Entry) -> str:
    return copy_name(data.path for data in entry.files)


def _provenance(entry: Entry) -> tuple[str, ...]:
    """The names of the entry's files (see :attr:`.StoredTests.provenance`)."""
    return tuple(sorted(PurePosixPath(data.path).name for data in entry.files))


def _unusable(path: Path, error: Exception) -> Problem:
    message = f"corrupt or foreign store file, its input is parsed again: {error}"
    return Problem(str(path), message, "cache")


def check_listed(raw: bytes, data: DataFile) -> bytes:
    """``raw`` if it is the file the manifest lists (size and SHA-256), else CorruptFile.

    Read it with the manifest's size as the cap (:func:`.read_regular`): a longer one is refused.
    """
    if len(raw) != data.size:
        raise CorruptFile(f"{len(raw)} bytes, the manifest says {data.size}")
    if hashlib.sha256(raw).hexdigest() != data.sha256:
        raise CorruptFile("its content changed since it was written")
    return raw


def _verified_table(path: Path, data: DataFile, passed_messages: bool) -> pa.Table:
    """The file's rows, checked against the manifest and prepared (:func:`.prepared_rows`)."""
    raw = check_listed(read_regular(path, data.size), data)
    table = pq.read_table(pa.BufferReader(raw), columns=list(MODEL_COLUMNS))
    if (table.schema.metadata or {}).get(STORE_MARKER) != STORE_VERSION:
        raise CorruptFile("not a file of this store's layout")
    table = prepared_rows(table, passed_messages=passed_messages)
    check_plausible(table)
    return table
