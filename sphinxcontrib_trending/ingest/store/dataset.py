"""A store, ours or the reference's, read as a source: local folder or fsspec URL.

``{"format": "parquet", "paths": ["store/"]}`` (or ``s3://bucket/trending``)
reads the Parquet files under each path.  A folder with our manifest is read
through it: only files it lists, others reported as foreign.  A folder
without one is a dataset written by someone else (the reference's ETL):
every ``.parquet`` file below it, each checked to carry the reference's
columns.  Reads are pruned and projected: partition folders outside the
requested days or result types are never opened, and only the columns the
model needs (or the requested metrics need) are read: a read of ``mrr``
leaves the reference's telemetry and latency histograms unread.
"""

from __future__ import annotations

import functools
import posixpath
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import fsspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fsspec.implementations.local import LocalFileSystem

from sphinxcontrib_trending.engine.read_ahead import read_ahead
from sphinxcontrib_trending.ingest.limits import PartsCap
from sphinxcontrib_trending.ingest.metrics import latency_base
from sphinxcontrib_trending.ingest.model import Build, Problem
from sphinxcontrib_trending.ingest.plausible import screen
from sphinxcontrib_trending.ingest.read_options import ReadOptions
from sphinxcontrib_trending.ingest.store.bounded import MANIFEST_MAX_BYTES, read_listed
from sphinxcontrib_trending.ingest.store.columns import (
    MODEL_COLUMNS,
    REFERENCE_HISTOGRAMS,
    REFERENCE_METRICS,
    STORE_MARKER,
)
from sphinxcontrib_trending.ingest.store.decoded import DecodedCopies, copy_name, scoped
from sphinxcontrib_trending.ingest.store.layout import (
    INPUT_PREFIX,
    in_days,
    in_test_types,
    is_data_file,
    is_our_file,
    partition_day,
    partition_values,
)
from sphinxcontrib_trending.ingest.store.listing import file_state, local_files
from sphinxcontrib_trending.ingest.store.local import READ_ERRORS, check_listed
from sphinxcontrib_trending.ingest.store.manifest import (
    MANIFEST_ERRORS,
    MANIFEST_NAME,
    DataFile,
    Manifest,
    parse_manifest,
)
from sphinxcontrib_trending.ingest.store.rows import (
    REFERENCE_ATTRIBUTES,
    SharedValues,
    builds_from_reference,
    check_plausible,
)
from sphinxcontrib_trending.ingest.store.stored_tests import (
    BuildHead,
    DeferredInput,
    builds_from_input,
    input_rows,
    prepared_rows,
    unreadable_input,
)
from sphinxcontrib_trending.ingest.telemetry import PREFIX as TELEMETRY

REFERENCE_REQUIRED = ("job", "build", "test_id", "passed", "start_time")
"""Columns without which a file is not the reference's trending data."""

_REFERENCE_CONTEXT = (
    *REFERENCE_REQUIRED,
    "dut_version",
    "hosts",
    "message",
    "tags",
    *REFERENCE_ATTRIBUTES,
)


@dataclass(frozen=True)
class Query:
    """What a reader wants: ``None`` means everything of that kind.

    ``days`` is an inclusive (first, last) range of partition days;
    ``recent_days`` the newest so many days of the partitions present
    (a site's windows end at its newest build, not at the wall clock);
    ``metrics`` our metric names, ``test_types`` partition values;
    ``passed_messages=False`` leaves passed tests' messages empty (what a
    site or a gate shows of a message is a failure's).
    """

    days: tuple[date, date] | None = None
    recent_days: int | None = None
    metrics: tuple[str, ...] | None = None
    test_types: tuple[str, ...] | None = None
    passed_messages: bool = True


@dataclass
class Found:
    builds: list[Build]
    problems: list[Problem]
    files_read: list[str]


def read_store(
    location: str, options: ReadOptions, query: Query = Query(), decoded_dir: Path | None = None
) -> Found:
    """Every build the store at ``location`` holds that ``query`` asks for.

    With ``decoded_dir``, our inputs' rows are kept there decoded between
    reads (:mod:`.decoded`).
    """
    found = Found([], [], [])
    try:
        fs, root = fsspec.core.url_to_fs(location)
        if not fs.isdir(root):
            raise FileNotFoundError("no such store folder")
        manifest = _manifest(fs, root)
        states = _data_files(fs, root)
    except (OSError, ValueError, ImportError) as error:
        found.problems.append(Problem(location, f"cannot read the store: {error}", "source"))
        return found
    listed = sorted(states)
    decoded = None
    if decoded_dir is not None:
        # the store as the file system names it: "store" and "/docs/store" are one store
        where = fs.unstrip_protocol(posixpath.normpath(root))
        decoded = scoped(decoded_dir, where, query.passed_messages, query.metrics)
        decoded.keep_only(_copy_names(listed))
    vouched: dict[str, DataFile] = {}
    if manifest is not None:
        _complain_about_unlisted(location, listed, manifest, found)
        listed = sorted(manifest.referenced())
        vouched = {data.path: data for entry in manifest.entries.values() for data in entry.files}
    else:
        listed = _without_orphans(location, listed, found)
    if query.recent_days is not None:
        query = replace(query, days=_recent(listed, query.recent_days))
    wanted = [
        (relative, values)
        for relative in listed
        if in_days(values := partition_values(relative), query.days)
        and in_test_types(values, query.test_types)
    ]
    kept = _Kept(decoded, states, vouched)
    _read_wanted(fs, root, location, wanted, query, options, found, kept)
    if manifest is not None:
        found.problems.extend(_recorded_problems(manifest, {relative for relative, _ in wanted}))
    return found


def _recorded_problems(manifest: Manifest, wanted: set[str]) -> list[Problem]:
    """What the parse of each input read now reported, as ``ingest`` kept it in the manifest.

    A site must warn about its data as a build parsing the inputs would;
    an input that gave no rows (unreadable) is always among them, one whose
    files all lie outside the query's days or types is not.
    """
    return [
        problem
        for entry in manifest.entries.values()
        if not entry.files or any(data.path in wanted for data in entry.files)
        for problem in entry.problems
    ]


@dataclass(frozen=True)
class _Kept:
    """Where a read keeps our inputs' decoded rows (nowhere without a cache folder)."""

    decoded: DecodedCopies | None
    states: dict[str, list[object]]
    """Each listed file's size and modification time or ETag, by relative path."""
    vouched: dict[str, DataFile]
    """What our manifest says each of its files is (empty for the reference's data)."""

    def read(self, relatives: list[str]) -> pa.Table | None:
        if self.decoded is None or (identity := self._identity(relatives)) is None:
            return None
        return self.decoded.read(copy_name(relatives), identity)

    def write(self, relatives: list[str], table: pa.Table) -> None:
        if self.decoded is not None and (identity := self._identity(relatives)) is not None:
            self.decoded.write(copy_name(relatives), identity, table)

    def builds_of(self, relatives: list[str]) -> list[BuildHead] | None:
        """The builds of the input's copy as the last read found them (None: read it)."""
        if self.decoded is None or (identity := self._identity(relatives)) is None:
            return None
        return self.decoded.builds_of(copy_name(relatives), identity)

    def forget(self, relatives: list[str]) -> None:
        """Drop the input's copy, so the next read reads its files."""
        if self.decoded is not None:
            self.decoded.forget(copy_name(relatives))

    def note_builds(self, relatives: list[str], builds: list[Build]) -> None:
        """Remember the builds of an input whose copy holds all of its rows."""
        if self.decoded is not None and (identity := self._identity(relatives)) is not None:
            heads = [BuildHead.of(build) for build in builds]
            self.decoded.note_builds(copy_name(relatives), identity, heads)

    def save_builds(self) -> None:
        if self.decoded is not None:
            self.decoded.save_builds()

    def _identity(self, relatives: list[str]) -> list[object] | None:
        """The files' listed states; None if one was not listed (a manifest's own)."""
        if not all(relative in self.states for relative in relatives):
            return None
        return [[relative, *self.states[relative]] for relative in relatives]


def _copy_names(listed: list[str]) -> list[str]:
    """The copy names of every input among the ``listed`` files (see :func:`_read_wanted`)."""
    by_input: dict[str, list[str]] = defaultdict(list)
    for relative in listed:
        by_input[_input_of(relative)].append(relative)
    return [copy_name(relatives) for relatives in by_input.values()]


def _input_of(relative: str) -> str:
    return posixpath.basename(relative)[:INPUT_PREFIX]


@dataclass
class _FileRead:
    """What one file gave: a reference file's builds, or the problem that skipped it."""

    where: str
    builds: list[Build] = field(default_factory=list)
    problem: Problem | None = None
    data_problems: list[Problem] = field(default_factory=list)
    """What its tests' telemetry or latency histograms had wrong (the tests are kept)."""


@dataclass
class _InputRead:
    """What an input's files gave on a reading thread.

    ``files`` holds each file's table or error (a reference file's table,
    or one of ours); ``rows``, our files' rows together (:func:`.input_rows`),
    or why they could not be put together.  From a decoded copy, ``files``
    is empty and the files count as read.
    """

    files: list[pa.Table | Exception]
    rows: pa.Table | Exception | None
    provenance: tuple[str, ...] = ()
    """The names of the input's files when ``rows`` holds every one of them (see
    :attr:`.StoredTests.provenance`); empty when a file is missing from them."""


def _read_wanted(
    fs: Any,
    root: str,
    location: str,
    wanted: list[tuple[str, dict[str, str]]],
    query: Query,
    options: ReadOptions,
    found: Found,
    kept: _Kept,
) -> None:
    """Read the files an input at a time, turning each input's rows into builds at once.

    pyarrow decodes and computes without the GIL, so an input's files are
    read, our rows checked, prepared (:func:`.prepared_rows`) and put in
    order (:func:`.input_rows`) on a thread per core, or its decoded copy
    read (:mod:`.decoded`), while this one builds the model
    (:func:`.read_ahead`).  An input's files lie in several partition
    folders; reading them together, a few inputs ahead, and dropping its
    tables as soon as its builds exist, the read never holds the whole store
    as tables.  What comes back is in the order of the files, as merging
    expects: the reference's builds by file, then ours by input, in the
    order of each input's first file.  Each build's tests are counted as its
    parts are read: one that passes ``max_tests`` is refused there
    (:class:`.PartsCap`), and no more of it is kept.
    """
    by_input: dict[str, list[int]] = defaultdict(list)
    for position, (relative, _) in enumerate(wanted):
        by_input[_input_of(relative)].append(position)
    reads: dict[int, _FileRead] = {}
    builds: dict[str, list[Build]] = {}  # ours, by input
    problems: list[Problem] = []  # of whole inputs
    shared = SharedValues()
    cap = PartsCap(options.limits.max_tests)

    def read_input(positions: list[int]) -> _InputRead:
        relatives = [wanted[position][0] for position in positions]
        whole = tuple(sorted(map(posixpath.basename, relatives)))
        copy = kept.read(relatives)
        if copy is not None:
            return _InputRead([], copy, whole)
        files = [
            _read_ours_or_theirs(fs, posixpath.join(root, name), query, kept.vouched.get(name))
            for name in relatives
        ]
        ours = [table for table in files if isinstance(table, pa.Table) and _is_ours(table)]
        if not ours:
            return _InputRead(files, None)
        try:
            rows = input_rows(ours)
        except READ_ERRORS as error:
            return _InputRead(files, error)
        if len(ours) < len(files):
            return _InputRead(files, rows)
        kept.write(relatives, rows)
        return _InputRead(files, rows, whole)

    def read_later(positions: list[int], where: str) -> Callable[[], pa.Table]:
        def read() -> pa.Table:
            rows = read_input(positions).rows
            if not isinstance(rows, pa.Table):
                raise unreadable_input(where, rows)
            return rows

        return read

    inputs = list(by_input.values())
    # by an input's first file: its builds as the last read found them, its rows read on use
    deferred: dict[int, list[Build]] = {}
    for positions in inputs:
        relatives = [wanted[position][0] for position in positions]
        heads = kept.builds_of(relatives)
        if heads is not None:
            whole = tuple(sorted(map(posixpath.basename, relatives)))
            where = _input_files(location, _input_of(relatives[0]))
            forget = functools.partial(kept.forget, relatives)
            later = DeferredInput(read_later(positions, where), shared, whole, forget)
            deferred[positions[0]] = later.builds(heads)
    unread = [positions for positions in inputs if positions[0] not in deferred]
    read_now_of = zip(unread, read_ahead(read_input, unread), strict=True)
    for positions in inputs:
        prefix = _input_of(wanted[positions[0]][0])
        if positions[0] in deferred:
            for position in positions:  # count as read, as from a decoded copy
                relative = wanted[position][0]
                reads[position] = _FileRead(posixpath.join(location.rstrip("/"), relative))
            builds[prefix] = cap.take(deferred[positions[0]], _input_files(location, prefix))
            continue
        _, read_now = next(read_now_of)
        for at, position in enumerate(positions):
            relative, values = wanted[position]
            read = reads[position] = _FileRead(posixpath.join(location.rstrip("/"), relative))
            if not read_now.files:  # from the decoded copy
                continue
            table = read_now.files[at]
            try:
                if isinstance(table, Exception):
                    raise table
                if not _is_ours(table):  # the reference's ETL screens nothing
                    read.builds = cap.take(
                        screen(
                            builds_from_reference(
                                table,
                                read.where,
                                values,
                                options,
                                query.metrics,
                                passed_messages=query.passed_messages,
                                problems=read.data_problems,
                            ),
                            problems,
                        ),
                        read.where,
                    )
            except READ_ERRORS as error:
                read.problem = Problem(read.where, f"corrupt or foreign file, skipped: {error}")
                read.data_problems.clear()  # of tests that are skipped with their file
        if read_now.rows is not None:
            prefix = _input_of(wanted[positions[0]][0])
            ours = _our_builds(
                location, prefix, read_now.rows, shared, problems, read_now.provenance
            )
            if read_now.provenance and ours:  # all its rows, kept decoded
                kept.note_builds([wanted[position][0] for position in positions], ours)
            builds[prefix] = cap.take(ours, _input_files(location, prefix))
        del read_now
    for position in range(len(wanted)):
        read = reads[position]
        found.builds.extend(cap.kept(read.builds))
        found.problems.extend(read.data_problems)
        if read.problem is None:
            found.files_read.append(read.where)
        else:
            found.problems.append(read.problem)
    for prefix in sorted(builds, key=lambda prefix: by_input[prefix][0]):
        found.builds.extend(cap.kept(builds[prefix]))
    found.problems.extend(problems)
    found.problems.extend(cap.refusals)
    kept.save_builds()


def _is_ours(table: pa.Table) -> bool:
    return STORE_MARKER in (table.schema.metadata or {})


def _read_ours_or_theirs(
    fs: Any, path: str, query: Query, vouched: DataFile | None
) -> pa.Table | Exception:
    """A file's rows: ours checked and prepared, the reference's as read; or what was wrong."""
    try:
        table = _read_file(fs, path, query, vouched)
        if not _is_ours(table):
            return table
        # ours were screened when parsed (check_rows checks that in one pass per column)
        table = prepared_rows(table, passed_messages=query.passed_messages)
        check_plausible(table)
        return table
    except READ_ERRORS as error:
        return error


def _our_builds(
    location: str,
    prefix: str,
    rows: pa.Table | Exception,
    shared: SharedValues,
    problems: list[Problem],
    provenance: tuple[str, ...],
) -> list[Build]:
    """One input's rows together: its builds come back whole, or not at all."""
    try:
        if isinstance(rows, Exception):
            raise rows
        return builds_from_input(rows, shared, provenance)
    except READ_ERRORS as error:
        problems.append(Problem(_input_files(location, prefix), f"corrupt rows, skipped: {error}"))
        return []


def _input_files(location: str, prefix: str) -> str:
    """The files of one of our inputs in the store, as a pattern a problem can name."""
    return f"{location.rstrip('/')}/**/{prefix}-*.parquet"


def _recent(listed: list[str], days: int) -> tuple[date, date] | None:
    """The newest ``days`` days of the partitions present (None: no dated partition)."""
    dated = [day for relative in listed if (day := partition_day(partition_values(relative)))]
    if not dated:
        return None
    newest = max(dated)
    return newest - timedelta(days=days - 1), newest


def _manifest(fs: Any, root: str) -> Manifest | None:
    path = posixpath.join(root, MANIFEST_NAME)
    if not fs.exists(path):
        return None
    try:
        return parse_manifest(read_listed(fs, path, MANIFEST_MAX_BYTES))
    except MANIFEST_ERRORS as error:
        raise ValueError(f"corrupt store manifest {MANIFEST_NAME}: {error}") from None


def _data_files(fs: Any, root: str) -> dict[str, list[object]]:
    """The store's data files, by relative path, each with its :func:`.file_state`;
    a local store's listed by the operating system (see :func:`.local_files`)."""
    if isinstance(fs, LocalFileSystem):
        listing = (
            (relative, {"size": info.st_size, "mtime": info.st_mtime})
            for relative, info in local_files(root)
        )
    else:
        found = fs.find(root, detail=True).items()
        listing = ((posixpath.relpath(path, root), info) for path, info in found)
    return {relative: file_state(info) for relative, info in listing if is_data_file(relative)}


def _complain_about_unlisted(
    location: str, listed: list[str], manifest: Manifest, found: Found
) -> None:
    referenced = manifest.referenced()
    for relative in listed:
        if relative not in referenced and not is_our_file(relative):
            where = posixpath.join(location.rstrip("/"), relative)
            found.problems.append(Problem(where, "foreign file in the store, skipped", "source"))


def _without_orphans(location: str, listed: list[str], found: Found) -> list[str]:
    """The files of a folder without our manifest, less those named as ours.

    Ours without a manifest are what an ``ingest`` killed before its first
    commit left: some inputs' rows, unverifiable, that would pass for a whole
    reference dataset.  They are skipped, with one problem saying why.
    """
    orphans = [relative for relative in listed if is_our_file(relative)]
    if orphans:
        found.problems.append(
            Problem(
                location,
                f"{len(orphans)} data file(s) named as sphinx-trending ingest names them but "
                f"no {MANIFEST_NAME}: an ingest that never finished (killed?) left them; "
                "skipped, run the ingest again",
                "source",
            )
        )
    return [relative for relative in listed if not is_our_file(relative)]


def _read_file(fs: Any, path: str, query: Query, vouched: DataFile | None) -> pa.Table:
    """One file's rows the query asks for, in the columns the model needs.

    A file our manifest lists is read whole and must be the size and SHA-256
    it lists (a swapped or rewritten file is never trusted); the reference's
    files are opened for the columns needed only.
    """
    with _opened(fs, path, vouched) as stream:
        parquet = pq.ParquetFile(stream)
        schema = parquet.schema_arrow
        if (schema.metadata or {}).get(STORE_MARKER) is not None:
            # the file already open: a dataset read would open and parse it again
            table = _read_ours(parquet, query.passed_messages)
            rows = _rows_of(query)
            return table if rows is None else table.filter(rows)
        names = set(schema.names)
        missing = [name for name in REFERENCE_REQUIRED if name not in names]
        if missing:
            raise ValueError(
                f"neither this store's nor the reference's data: no {', '.join(missing)}"
            )
        return parquet.read(columns=_reference_columns(names, query))


def _opened(fs: Any, path: str, vouched: DataFile | None) -> Any:
    if vouched is None:
        return fs.open(path, "rb")
    return pa.BufferReader(check_listed(read_listed(fs, path, vouched.size), vouched))


def _read_ours(parquet: pq.ParquetFile, passed_messages: bool) -> pa.Table:
    """Our columns of the file; without ``passed_messages``, a file whose tests all
    passed has its messages left unread: decoding them was a sixth of a read.

    One thread a file: the store read already keeps a thread per core busy.
    """
    schema = parquet.schema_arrow
    if passed_messages or not all(
        name in schema.names and schema.field(name).type.equals(pa.string())
        for name in ("message", "status")
    ):  # read as it is, for check_rows to name what is wrong
        return parquet.read(columns=list(MODEL_COLUMNS), use_threads=False)
    message = schema.field("message")
    at = MODEL_COLUMNS.index("message")
    table = parquet.read(columns=[*MODEL_COLUMNS[:at], *MODEL_COLUMNS[at + 1 :]], use_threads=False)
    status = table.column("status")
    if status.null_count == 0 and pc.all(pc.equal(status, "PASS")).as_py():
        messages = pa.array([""] * len(table), pa.string())
    else:
        messages = parquet.read(columns=["message"], use_threads=False).column(0)
    return table.add_column(at, message, messages)


def _rows_of(query: Query) -> pc.Expression | None:
    """The asked metrics' rows, and the rows of tests without values (failures).

    A telemetry name asked without labels wants every series of that name.
    """
    if query.metrics is None:
        return None
    metric = pc.field("metric")
    rows = metric.isin(list(query.metrics)) | metric.is_null()
    for name in query.metrics:
        if name.startswith(TELEMETRY) and "{" not in name:
            rows = rows | pc.starts_with(metric, pattern=f"{name}{{")
    return rows


def _reference_columns(names: set[str], query: Query) -> list[str]:
    """The reference's columns a read needs: context, then the asked metrics' values,
    latency histograms and telemetry (all of them when no metric is asked)."""
    wanted = [name for name in _REFERENCE_CONTEXT if name in names]
    asked = query.metrics

    def add(*columns: str) -> None:
        wanted.extend(name for name in columns if name in names and name not in wanted)

    for metric, columns in REFERENCE_METRICS.items():
        if asked is None or metric in asked:
            add(columns.value, columns.unit)
    for base, columns in REFERENCE_HISTOGRAMS.items():
        if asked is None or any(latency_base(metric) == base for metric in asked):
            add(columns.value, columns.unit)
    if asked is None or any(metric.startswith(TELEMETRY) for metric in asked):
        add("telemetry")
    return wanted
