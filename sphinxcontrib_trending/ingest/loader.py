"""``load`` and ``ingest``: the ingest layer's front door.

The loader owns the order of work: resolve the entries, fetch URLs, take each
input from the results store (:mod:`~sphinxcontrib_trending.ingest.store`) or
parse it, commit what was parsed, then drop duplicate builds and sort.  A
``parquet`` source skips all that: it reads a store as it is.
Bad data never raises; it is reported in ``Dataset.problems`` and the rest
is still read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa

from sphinxcontrib_trending.engine import map_ordered
from sphinxcontrib_trending.engine.collector import collector_paused
from sphinxcontrib_trending.engine.forked import map_forked
from sphinxcontrib_trending.ingest.archives import MEMBER_ERRORS, Document, iter_documents
from sphinxcontrib_trending.ingest.download import Downloads, temporary_folder
from sphinxcontrib_trending.ingest.downloaded import is_url, url_path
from sphinxcontrib_trending.ingest.environment import with_pattern_fields
from sphinxcontrib_trending.ingest.formats import Reading, StoreReader
from sphinxcontrib_trending.ingest.freshness import PARSER_VERSION
from sphinxcontrib_trending.ingest.limits import (
    Budget,
    BuildSizes,
    LimitExceeded,
    charging,
    enforce,
    too_many_tests,
)
from sphinxcontrib_trending.ingest.merging import merge_builds
from sphinxcontrib_trending.ingest.model import Build, Dataset, Problem
from sphinxcontrib_trending.ingest.options import SpecError, compile_options
from sphinxcontrib_trending.ingest.plausible import screen
from sphinxcontrib_trending.ingest.read_options import ReadOptions
from sphinxcontrib_trending.ingest.registry import input_format
from sphinxcontrib_trending.ingest.sources import resolve_entries
from sphinxcontrib_trending.ingest.spec import SourceSpec
from sphinxcontrib_trending.ingest.store.checked import WrittenLook
from sphinxcontrib_trending.ingest.store.local import LocalStore
from sphinxcontrib_trending.ingest.store.manifest import (
    DataFile,
    Entry,
    Manifest,
    file_digest,
    input_key,
)

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Parsed:
    """What parsing one input yielded."""

    builds: list[Build]
    problems: list[Problem]


@dataclass(frozen=True)
class _Input:
    """One resolved input: how to name it to the user, where it is on disk,
    and the name the build pattern is matched against (a URL's path)."""

    origin: str
    local: Path
    naming: str


def load(
    spec: SourceSpec,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    *,
    passed_messages: bool = True,
    forked: int | None = None,
) -> Dataset:
    """Read every input of ``spec`` into one :class:`Dataset`.

    With a ``cache_dir``, parsed inputs live in the results store
    ``cache_dir/store`` and URLs' copies in ``cache_dir/downloads``: only
    new or changed inputs are parsed.  Builds come sorted by time, then job
    and build number; when the same (job, build) appears twice the first
    input in resolve order is kept and a ``duplicate`` problem names both.
    Raises :class:`SpecError` only for an unusable spec (bad regular
    expression or format).  ``passed_messages=False`` is for readers that
    show failures' messages only (sites, gates): builds read from a store
    then come with passed tests' messages empty, which saves a quarter of
    the memory on CSIT's data (its messages repeat the trial values).
    With a ``cache_dir``, inputs parsed by this load are read back from the
    store too (see :func:`ingest`).  ``forked`` parses on that many processes
    forked from this one (see :func:`ingest`).
    """
    with collector_paused():
        try:
            if cache_dir is None:
                return ingest(
                    spec, None, progress=progress, passed_messages=passed_messages, forked=forked
                )
            return ingest(
                spec,
                cache_dir / "store",
                cache_dir / "downloads",
                progress=progress,
                passed_messages=passed_messages,
                forked=forked,
                decoded_dir=cache_dir / "decoded",
            )
        finally:
            # pyarrow's allocator keeps the pages of every table read for
            # later tables; the model holds the data now: give them back
            pa.default_memory_pool().release_unused()


def ingest(
    spec: SourceSpec,
    store_dir: Path | None,
    downloads_dir: Path | None = None,
    *,
    progress: Progress | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    read_back: bool = True,
    passed_messages: bool = True,
    forked: int | None = None,
    decoded_dir: Path | None = None,
) -> Dataset:
    """:func:`load` with the store and downloads folders named, and the engine's knobs.

    Inputs the store holds in their current state are read from it; the
    others are parsed through :func:`~sphinxcontrib_trending.engine.map_ordered`
    (``workers`` and ``scheduler`` go straight to it) and written to the
    store in one commit.  Without ``store_dir`` everything is parsed and
    nothing is written.  ``read_back=False`` (``sphinx-trending ingest``)
    leaves the inputs the store already holds unread, once their files are
    checked against the manifest (a missing or damaged file has its input
    parsed again): the dataset then has only what was parsed now.
    ``passed_messages`` as for :func:`load`.  ``forked`` (without ``workers``
    or ``scheduler``) parses on that many processes forked from this one
    (:func:`~sphinxcontrib_trending.engine.map_forked`): a Sphinx build's
    cold start parses every archive, and forked workers start in
    milliseconds where a Dask cluster's take seconds.  ``decoded_dir`` keeps
    store files' rows decoded between loads (:mod:`.store.decoded`).

    Without a ``scheduler``, each parse task writes its input's rows into
    the store itself, and with ``read_back`` the inputs parsed now are then
    read back from it like every other stored input: a cold build holds
    each input's rows as columns, as a warm one does, not every parsed
    build at once (at CSIT's size a cold build's peak went from 6.4 GB to 3.0).
    """
    options = compile_options(spec)
    fmt = input_format(options.format)
    report = progress or (lambda _message: None)
    if fmt.store is not None:
        return _from_stores(fmt.store, spec, options, passed_messages, decoded_dir)
    entries, problems = resolve_entries(spec)
    dataset = Dataset(problems=problems)
    store = LocalStore(store_dir, decoded_dir) if store_dir is not None else None
    with ExitStack() as stack:
        manifest = Manifest()
        writable = store is not None and _lock(store, stack, dataset)
        if store is not None:
            manifest, complaints = store.manifest()
            dataset.problems.extend(complaints)
        folder = downloads_dir if downloads_dir is not None else temporary_folder(stack)
        downloads = Downloads(folder, limits=options.limits)
        slots = [
            slot
            for entry in entries
            if (
                slot := _slot(
                    entry,
                    options,
                    downloads,
                    store,
                    manifest,
                    dataset,
                    report,
                    read_back=read_back,
                )
            )
        ]
        _read_stored(store, slots, dataset, passed_messages)
        writes_here = store if scheduler is None and writable else None
        engine = _Engine(workers, scheduler, forked)
        _parse_missing(slots, options, dataset, report, engine, writes_here)
        if store is not None and writable:
            _commit(store, manifest, slots, dataset)
            if not read_back:  # this run checked every kept file: what it wrote joins them
                for slot in slots:
                    if slot.written:
                        store.note_written(slot.entry.files, slot.written)
            store.keep_checked()
            if read_back:
                _read_back(store, slots, options, dataset, passed_messages)
    builds = [build for slot in slots for build in slot.builds or ()]
    for slot in slots:
        dataset.problems.extend(slot.problems)
    if fmt.merges_builds:
        builds = merge_builds(builds, dataset.problems, options.limits.max_tests)
    return _finished(dataset, builds)


def _lock(store: LocalStore, stack: ExitStack, dataset: Dataset) -> bool:
    """Take the store's writer lock for the run; False (and a problem) when it cannot be taken.

    A read-only folder (a mounted cache, a store published read-only) cannot
    hold the lock file, nor anything else this run would write: the store is
    then read as it is, what it lacks is parsed and kept in memory only.
    """
    try:
        stack.enter_context(store.locked())
    except OSError as error:
        message = (
            f"cannot write the results store ({error}): it is read as it is, "
            "and what is parsed now is not stored"
        )
        dataset.problems.append(Problem(str(store.root), message, "cache"))
        return False
    return True


def _finished(dataset: Dataset, builds: list[Build]) -> Dataset:
    dataset.builds = _without_duplicates(builds, dataset.problems)
    dataset.builds.sort(key=lambda build: (build.time, build.job, build.build))
    return dataset


@dataclass
class _Slot:
    """One input on its way through a load: from the store, or parsed now."""

    item: _Input
    key: str
    entry: Entry
    builds: list[Build] | None = None
    problems: tuple[Problem, ...] = ()
    changed: bool = False
    """The manifest's entry must change (parsed now, or a touched input's new state)."""
    parsed: bool = False
    stored: bool = False
    """Its rows are already in the store's files (written by the parsing task)."""
    unread: Entry | None = None
    """The store's entry of an unchanged input, its builds still to read (:func:`_read_stored`)."""
    written: tuple[WrittenLook, ...] = ()
    """How the entry's files looked right after this run wrote them (none if it did not)."""


def _slot(
    entry: str,
    options: ReadOptions,
    downloads: Downloads,
    store: LocalStore | None,
    manifest: Manifest,
    dataset: Dataset,
    report: Progress,
    *,
    read_back: bool,
) -> _Slot | None:
    item = _locate(entry, downloads, dataset, report)
    if item is None:
        return None
    if store is not None or not is_url(entry):
        dataset.files.append(str(item.local))
    try:
        info = item.local.stat()
    except OSError as error:
        dataset.problems.append(Problem(item.origin, f"cannot read: {error}", "source"))
        return None
    identity = {"input": item.origin, "options": options.identity()}
    state = {"size": info.st_size, "mtime_ns": info.st_mtime_ns, "parser": PARSER_VERSION}
    key = input_key(identity)
    validators = downloads.validators(entry) if is_url(entry) else None
    slot = _Slot(item, key, Entry(identity, state, "", validators=validators), changed=True)
    previous = manifest.entries.get(key)
    if store is None or previous is None or previous.state.get("parser") != PARSER_VERSION:
        return slot
    if previous.state != state:
        content = file_digest(item.local)
        if content != previous.content:
            slot.entry = replace(slot.entry, content=content)
            return slot
        previous = replace(previous, state=state, validators=validators)
    else:
        slot.changed = False
    if read_back:
        slot.unread = previous
        return slot
    complaint = store.damaged(previous)
    if complaint is not None:
        dataset.problems.append(complaint)
        slot.changed = True
        return slot
    slot.entry, slot.builds, slot.problems = previous, [], previous.problems
    return slot


def _read_stored(
    store: LocalStore | None, slots: list[_Slot], dataset: Dataset, passed_messages: bool
) -> None:
    """The builds of the inputs the store holds unchanged, read together (see
    :meth:`.LocalStore.read_many`); one the store cannot give is parsed again."""
    waiting = [slot for slot in slots if slot.unread is not None]
    if store is None or not waiting:
        return
    entries = [slot.unread for slot in waiting if slot.unread is not None]
    for slot, previous, (builds, complaint) in zip(
        waiting, entries, store.read_many(entries, passed_messages=passed_messages), strict=True
    ):
        slot.unread = None
        if complaint is not None:
            dataset.problems.append(complaint)
            slot.changed = True
            continue
        slot.entry, slot.builds, slot.problems = previous, builds, previous.problems


@dataclass(frozen=True)
class _ParseJob:
    """One input to parse, as handed to the engine (plain, picklable data)."""

    local: Path
    origin: str
    naming: str
    options: ReadOptions


def _parse_job(job: _ParseJob) -> Parsed:
    return parse_input(job.local, job.origin, job.naming, job.options)


@dataclass(frozen=True)
class _StoreJob:
    """Parse one input and write its rows into the store, where the task runs."""

    parse: _ParseJob
    store: Path
    key: str
    content: str
    """The input's digest when already known, else computed by the task."""


@dataclass(frozen=True)
class _Stored:
    """What a :class:`_StoreJob` sends back: the files' records, never the rows."""

    files: tuple[DataFile, ...] | None
    """None when the store could not be written (``error`` says why)."""
    content: str
    problems: tuple[Problem, ...]
    error: str = ""
    builds: tuple[Build, ...] = ()
    """The parsed builds, sent back only when the store could not be written."""
    sizes: tuple[tuple[tuple[str, str], int], ...] = ()
    """Each parsed build's key and number of tests, for the test cap across files."""
    looks: tuple[WrittenLook, ...] = ()
    """How each of ``files`` looked right after the task wrote it."""


def _parse_into_store_job(job: _StoreJob) -> _Stored:
    parsed = _parse_job(job.parse)
    sizes = tuple((build.key, len(build.tests)) for build in parsed.builds)
    try:
        store = LocalStore(job.store)
        files = store.write(job.key, parsed.builds)
        looks = store.written_looks(files)
        content = job.content or file_digest(job.parse.local)
    except (OSError, UnicodeEncodeError) as error:
        # a path that is not UTF-8 (a lone surrogate from the file system) cannot be a
        # Parquet text: the input is read all the same, only not stored
        reason = f"{job.parse.origin!r}: {error}"
        return _Stored(None, "", tuple(parsed.problems), reason, tuple(parsed.builds), sizes)
    return _Stored(files, content, tuple(parsed.problems), sizes=sizes, looks=looks)


@dataclass(frozen=True)
class _Engine:
    """Where parse tasks run: a local Dask cluster of ``workers``, the cluster behind
    ``scheduler``, ``forked`` processes forked from this one, or (none) here."""

    workers: int | None
    scheduler: str | None
    forked: int | None

    def map(
        self,
        task: Callable[[Any], Any],
        jobs: Sequence[Any],
        report: Progress,
        last: Callable[[Any], bool] | None = None,
    ) -> list[Any]:
        """The results of ``jobs`` in order, up to the first that ``last`` says ends them.

        The jobs after it are never started, here or on workers, and on a
        cluster those under way are cancelled: a folder of files whose
        build passes ``max_tests`` early is not parsed whole.
        """

        def progress(done: int, total: int) -> None:
            report(f"parsed {done}/{total}")

        if self.forked and self.workers is None and self.scheduler is None:
            return map_forked(task, jobs, self.forked, progress=progress, until=last)
        return map_ordered(
            task,
            jobs,
            workers=self.workers,
            scheduler=self.scheduler,
            progress=progress,
            until=last,
        )


def _parse_missing(
    slots: list[_Slot],
    options: ReadOptions,
    dataset: Dataset,
    report: Progress,
    engine: _Engine,
    writes_here: LocalStore | None,
) -> None:
    """Parse the inputs the store could not serve, through the engine.

    With ``writes_here`` (a store on this machine) each task writes its own
    rows into that store and sends back only the files' records: sending
    every parsed build back, only to write it here, makes this process the
    bottleneck of a local cluster (it unpickles and writes while the
    workers wait), and holds every parsed build until the commit.  The
    files are written before the commit and nothing lists them until it, so
    a killed run leaves the store as it was
    (:meth:`.LocalStore.commit` removes what no manifest lists).  Not with
    ``scheduler``: a remote worker need not see this machine's folder.
    """
    missing = [slot for slot in slots if slot.builds is None]
    if not missing:
        return
    jobs: list[_ParseJob] | list[_StoreJob]
    jobs = [_ParseJob(s.item.local, s.item.origin, s.item.naming, options) for s in missing]
    task: Callable[[Any], Parsed | _Stored] = _parse_job
    if writes_here is not None:
        jobs = [
            _StoreJob(job, writes_here.root, slot.key, slot.entry.content)
            for job, slot in zip(jobs, missing, strict=True)
        ]
        task = _parse_into_store_job
    report(f"parsing {len(jobs)} of {len(slots)} input(s)")
    passes = None
    if input_format(options.format).merges_builds:
        passes = _test_cap(options, [build for slot in slots for build in slot.builds or ()])
    results = engine.map(task, jobs, report, passes)
    if len(results) < len(missing):
        _left_unread(slots, missing[len(results) - 1], missing[len(results) :], dataset)
    store_name = str(writes_here.root) if writes_here is not None else ""
    for slot, result in zip(missing, results, strict=False):
        dataset.parsed.append(slot.item.origin)
        if isinstance(result, _Stored):
            _take_stored(slot, result, store_name, dataset)
        else:
            slot.builds, slot.problems = result.builds, tuple(result.problems)
            slot.parsed = True


def _test_cap(options: ReadOptions, stored: list[Build]) -> Callable[[Parsed | _Stored], bool]:
    """Whether a file's builds take one build of the files so far past ``max_tests``.

    A format whose files each add tests to a build (CSIT JSON: one test a
    file) is counted file by file, the ``stored`` builds first, so a folder
    of 300,000 of them stops where its build passes the cap instead of
    after every file is parsed.
    """
    tally = BuildSizes(options.limits.max_tests)
    for build in stored:
        tally.passes(build.key, len(build.tests))

    def passes(result: Parsed | _Stored) -> bool:
        if isinstance(result, _Stored):
            sizes = list(result.sizes)
        else:
            sizes = [(build.key, len(build.tests)) for build in result.builds]
        return any([tally.passes(key, tests) for key, tests in sizes])

    return passes


def _left_unread(slots: list[_Slot], last: _Slot, unread: list[_Slot], dataset: Dataset) -> None:
    """The inputs after the one that took a build past the cap: never parsed, never stored.

    Out of the slots, so the store records nothing for them and the next
    load reads them again.
    """
    message = f"{len(unread):,} input(s) after this one left unread: a build passed max_tests"
    dataset.problems.append(Problem(last.item.origin, message, "data"))
    left = {id(slot) for slot in unread}
    slots[:] = [slot for slot in slots if id(slot) not in left]


def _take_stored(slot: _Slot, stored: _Stored, store_name: str, dataset: Dataset) -> None:
    """A task wrote the slot's rows (or failed to): its entry now lists the files.

    A task that could not write sends its builds back instead, and the
    build goes on with them.
    """
    slot.builds, slot.problems = [], stored.problems
    if stored.files is None:
        message = f"cannot write the results store: {stored.error}"
        dataset.problems.append(Problem(store_name, message, "cache"))
        slot.builds, slot.changed = list(stored.builds), False
        return
    slot.entry = replace(
        slot.entry, content=stored.content, files=stored.files, problems=stored.problems
    )
    slot.written = stored.looks
    slot.parsed = slot.stored = True


def _commit(store: LocalStore, manifest: Manifest, slots: list[_Slot], dataset: Dataset) -> None:
    """Write what was parsed, drop inputs that are gone, then swap the manifest.

    Nothing is committed when nothing changed, so a warm build writes
    nothing.  A store that cannot be written is reported; the build goes on
    with what it parsed.
    """
    entries = dict(manifest.entries)
    vanished = [key for key, entry in entries.items() if _vanished(entry)]
    changed = [slot for slot in slots if slot.changed]
    if not changed and not vanished:
        return
    for key in vanished:
        del entries[key]
    try:
        for slot in changed:
            if slot.parsed and not slot.stored:
                slot.entry = replace(
                    slot.entry,
                    content=slot.entry.content or file_digest(slot.item.local),
                    files=store.write(slot.key, slot.builds or []),
                    problems=slot.problems,
                )
                slot.written = store.written_looks(slot.entry.files)
            entries[slot.key] = slot.entry
        store.commit(Manifest(entries))
    except OSError as error:
        problem = Problem(str(store.root), f"cannot write the results store: {error}", "cache")
        dataset.problems.append(problem)


def _read_back(
    store: LocalStore,
    slots: list[_Slot],
    options: ReadOptions,
    dataset: Dataset,
    passed_messages: bool,
) -> None:
    """The inputs whose tasks wrote their rows, read from the store (their builds' tests unmade).

    A file that cannot be read back is reported and its input parsed again
    here, so no input is lost to a store that misbehaves.
    """
    written = [slot for slot in slots if slot.stored]
    entries = [slot.entry for slot in written]
    for slot, (builds, complaint) in zip(
        written, store.read_many(entries, passed_messages=passed_messages), strict=True
    ):
        if complaint is not None:
            dataset.problems.append(complaint)
            item = slot.item
            builds = _parse_job(_ParseJob(item.local, item.origin, item.naming, options)).builds
        slot.builds = builds


def _vanished(entry: Entry) -> bool:
    """A local input that no longer exists: its rows leave the store."""
    origin = str(entry.identity.get("input", ""))
    return not is_url(origin) and not os.path.exists(origin)


def _from_stores(
    read: StoreReader,
    spec: SourceSpec,
    options: ReadOptions,
    passed_messages: bool,
    decoded_dir: Path | None,
) -> Dataset:
    """A ``parquet`` source: each path is a store (ours or the reference's) read whole.

    Each store refuses a build past ``max_tests`` as it reads it; a build
    that only passes the cap joined across stores is refused at the join.
    """
    dataset = Dataset()
    builds: list[Build] = []
    for location in spec.paths:
        found, problems, files_read = read(location, options, passed_messages, decoded_dir)
        builds.extend(found)
        dataset.problems.extend(problems)
        dataset.files.extend(path for path in files_read if os.path.exists(path))
    return _finished(dataset, merge_builds(builds, dataset.problems, options.limits.max_tests))


def _locate(entry: str, downloads: Downloads, dataset: Dataset, report: Progress) -> _Input | None:
    """The local file of an entry (None: a URL with neither download nor copy)."""
    if not is_url(entry):
        return _Input(entry, Path(entry), entry)
    report(f"fetching {entry}")
    fetched = downloads.fetch(entry)
    if fetched.problem is not None:
        dataset.problems.append(fetched.problem)
    return None if fetched.path is None else _Input(entry, fetched.path, url_path(entry))


def parse_input(local: Path, origin: str, naming: str, options: ReadOptions) -> Parsed:
    """Every build in one local file (plain, compressed or an archive).

    One member's error or cap spares the others; only a spent byte budget,
    or a build of a format whose documents each add tests to it passing the
    test cap, stops the whole input: its builds so far may be any part of it.
    """
    fmt = input_format(options.format)
    if fmt.read is None:
        raise SpecError(f"format {fmt.name!r} reads stores, not input files")
    builds: list[Build] = []
    problems: list[Problem] = []
    documents = 0
    budget = Budget(options.limits.max_expanded_bytes)
    tally = BuildSizes(options.limits.max_tests) if fmt.merges_builds else None
    try:
        for document in iter_documents(local, fmt.is_document, budget):
            documents += 1
            reading = _reading(document, origin, naming, options)
            try:
                with charging(budget):  # histograms in messages expand too
                    found, complaints = fmt.read(reading)
                found = with_pattern_fields(found, options.build_pattern, reading.names)
            except MEMBER_ERRORS as error:
                problems.append(Problem(reading.where, f"cannot read, skipped: {error}", "parse"))
                continue
            except LimitExceeded as error:
                problems.append(Problem(reading.where, str(error), "parse"))
                if budget.used > budget.limit:
                    break
                continue
            builds.extend(found)
            problems.extend(complaints)
            if tally is not None and (over := tally.over(found)) is not None:
                refusal = too_many_tests(options.limits.max_tests)
                where = f"build {over.job}/{over.build}"
                message = f"{where} {refusal} (the input is left out whole)"
                problems.append(Problem(origin, message, "data"))
                builds.clear()
                break
    except (*MEMBER_ERRORS, LimitExceeded) as error:
        problems.append(Problem(origin, f"cannot read: {error}", "parse"))
    else:
        if documents == 0:
            problems.append(Problem(origin, f"archive holds no {fmt.name} results", "parse"))
    problems.extend(
        Problem(origin, f"{damage}; the data read is kept but may be corrupt", "parse")
        for damage in budget.damaged
    )
    return Parsed(screen(enforce(builds, options.limits, origin, problems), problems), problems)


def _reading(document: Document, origin: str, naming: str, options: ReadOptions) -> Reading:
    member = document.member
    return Reading(
        stream=document.stream,
        where=origin if member is None else f"{origin}!{member}",
        names=(naming,) if member is None else (member, naming),
        options=options,
    )


def _without_duplicates(builds: list[Build], problems: list[Problem]) -> list[Build]:
    kept: dict[tuple[str, str], Build] = {}
    for build in builds:
        first = kept.setdefault(build.key, build)
        if first is not build:
            problems.append(
                Problem(
                    build.origin,
                    f"build {build.job} #{build.build} is also in {first.origin}; kept that one",
                    "duplicate",
                )
            )
    return list(kept.values())
