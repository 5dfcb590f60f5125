"""Classifying many series at once: in parallel, and only the ones that changed.

The MDL grouping of one series is independent of every other, and depends
only on the series' values and four settings.  So a site or a gate with
thousands of series sends the ones it has no answer for through
:func:`~.map_ordered` (worker processes, or a cluster), and keeps every
answer in a per-series cache: a warm build, or a build where a few series
got a new run, classifies only those.

An entry is named by the series' identity (source, metric, history key,
settings) and valid for one content hash (the values, the settings and the
analysis code).  Keeping the identity separate from the content is what lets
an entry be *extended* later: a series that only gained runs finds its
previous entry under the same name, and with it the exact search's state
after those runs (:class:`~.saved_search.SavedSearch`, kept in a file per
batch of series that only a build with new runs reads, see
:mod:`~.search_store`), so its grouping costs one search step instead of a
whole search.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import struct
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.batch_extend import StateBuffer, extend_batch
from sphinxcontrib_trending.analysis.cache_documents import cache_document
from sphinxcontrib_trending.analysis.calibration import calibrated_unit
from sphinxcontrib_trending.analysis.classification_json import (
    classification_from_json,
    classification_to_json,
)
from sphinxcontrib_trending.analysis.classify import Classification
from sphinxcontrib_trending.analysis.excluded import Exclusions
from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.identity import GroupingSpec
from sphinxcontrib_trending.analysis.incremental import IncrementalClassifier
from sphinxcontrib_trending.analysis.runs import is_number_array
from sphinxcontrib_trending.analysis.saved_search import SavedSearch
from sphinxcontrib_trending.analysis.search_store import (
    Location,
    SearchStore,
    StateReader,
    StateRef,
    free_read_files,
    write_states,
)
from sphinxcontrib_trending.analysis.summary import run_samples
from sphinxcontrib_trending.analysis.warm_up import load_grouping
from sphinxcontrib_trending.engine.mapping import Progress, map_ordered
from sphinxcontrib_trending.engine.ready_workers import ReadyWorkers, can_fork
from sphinxcontrib_trending.ingest.atomic import write_atomically
from sphinxcontrib_trending.ingest.cache_folder import report_unwritable
from sphinxcontrib_trending.ingest.cache_scopes import use_scope
from sphinxcontrib_trending.ingest.json_documents import json_bytes

SLOW_START_NOTE = (
    "waiting for the compiled search: the first grouping after installing the extension "
    "compiles it (up to about 20 s), later ones load it in under a second"
)
"""What a build or ``check`` tells its user when the workers' helper is slow to load the
compiled search (``slow_setup`` of :func:`classify_series`)."""

CACHE_FORMAT = "sphinxcontrib-trending/classified-series"
MIN_PARALLEL = 64
"""Fewer series than this are classified in-process: starting workers costs more."""
BATCH = 200
"""At most this many series per task."""

Sample = float | Sequence[float] | None
Item = TypeVar("Item")
FloatArray = npt.NDArray[np.float64]


@functools.cache
def analysis_digest() -> str:
    """A hash of the analysis code: a cache entry is only as valid as the code that made it.

    Computed once per process, on first use rather than at import.
    """
    folder = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        digest.update(path.relative_to(folder).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True, repr=False)
class SeriesJob:
    """One series to classify: a picklable task item for the workers."""

    identity: str
    samples: Sequence[Sample]
    """The runs as the grouping sees them, oldest first.  :meth:`of` gives a series of
    run averages as one float array, NaN where a run measured nothing or is left out:
    hashed and prepared whole, where a tuple of numbers was walked run by run in the
    process that schedules the grouping and again in the worker."""
    settings: GroupingSpec

    @classmethod
    def of(cls, identity: str, history: TestHistory, settings: GroupingSpec) -> SeriesJob:
        if settings.samples != "trials":  # the runs' averages, the usual kind
            return cls(identity, _run_averages(history, settings.exclusions), settings)
        samples = run_samples(history, settings.samples, settings.exclusions)
        trials = tuple(None if sample is None else tuple(sample) for sample in samples)
        return cls(identity, trials, settings)

    def __repr__(self) -> str:
        return f"series {self.identity}"

    @property
    def content(self) -> str:
        """Hash of the values, settings and code; the cache asks for it twice per series."""
        return self._hashes[1]

    def prefix_content(self, runs: int) -> str:
        """:attr:`content` of the series' first ``runs`` runs: what an entry saved then had."""
        if runs == len(self.samples) - 1:
            return self._hashes[0]
        return _contents(self.settings, self.samples[: max(runs, 0)])[1]

    @functools.cached_property
    def _hashes(self) -> tuple[str, str]:
        """The content hashes without the newest run and with it, from one encoding.

        A daily build adds a run to every series: the cache compares the
        whole series with its entry, then the series but its newest run with
        the saved search's.
        """
        return _contents(self.settings, self.samples)


def _run_averages(history: TestHistory, exclusions: Exclusions) -> FloatArray:
    """The history's run averages, NaN where a run measured nothing or is excluded.

    :func:`.run_samples` of ``samples="runs"`` as one array: a missing run is
    NaN there as it is ``None`` in those samples, and both are missing to the
    grouping (:func:`.prepare_runs`).
    """
    averages = np.asarray(history.columns.averages, dtype=np.float64)
    excluded = exclusions.in_history(history.test_id, history.runs)
    if excluded:
        averages = averages.copy()
        averages[list(excluded)] = np.nan
    return averages


def _contents(settings: GroupingSpec, samples: Sequence[Sample]) -> tuple[str, str]:
    """The content hashes of ``samples`` but the newest run, and of them all.

    A series of numbers and missing runs is hashed as its array of doubles
    (:func:`_numbers_contents`); any other run by run (:func:`_runs_bytes`).
    Each encoding has its own tag after the header, so the two never give
    the same bytes.
    """
    numbers = _as_numbers(samples)
    if numbers is not None:
        return _numbers_contents(settings, numbers)
    kinds, values, newest = _runs_bytes(samples)
    whole = _content(settings, kinds, values)
    shorter = None if 2 in kinds[:-1] else _as_numbers(samples[:-1])
    if shorter is not None:  # trials in the newest run only: numbers before it
        return _numbers_contents(settings, shorter)[1], whole
    return _content(settings, kinds[:-1], values[: len(values) - newest]), whole


def _numbers_contents(settings: GroupingSpec, numbers: FloatArray) -> tuple[str, str]:
    """:func:`_contents` of a series of numbers: its doubles, NaN for a missing run.

    The series but its newest run is the same bytes but the last eight, so
    both hashes take one pass over the values, with no call per run.
    """
    data = memoryview(np.ascontiguousarray(numbers, dtype="<f8")).cast("B")
    digest = _seeded(settings, b"numbers").copy()
    digest.update(data[: max(len(data) - 8, 0)])
    before = digest.hexdigest()
    if len(data):
        digest.update(data[-8:])
    return before, digest.hexdigest()


def _as_numbers(samples: Sequence[Sample]) -> FloatArray | None:
    """``samples`` as an array of doubles, NaN for a missing run; None if a run is trials
    (or a number of another type: an integer keeps its own encoding)."""
    if isinstance(samples, np.ndarray):
        return samples if is_number_array(samples) else None
    if not all(sample is None or isinstance(sample, float) for sample in samples):
        return None
    return np.array([np.nan if sample is None else sample for sample in samples], dtype=np.float64)


def _content(settings: GroupingSpec, kinds: bytes, values: bytes) -> str:
    """The hash of the analysis code, the settings and the runs :func:`_runs_bytes` encoded."""
    digest = _seeded(settings, b"runs").copy()
    for part in (struct.pack("<Q", len(kinds)), kinds, values):
        digest.update(part)
    return digest.hexdigest()


@functools.cache
def _seeded(settings: GroupingSpec, encoding: bytes) -> Any:
    """A hash that has taken in the analysis code, the settings and the encoding's tag:
    what every content hash of these settings starts with, copied for each series."""
    return hashlib.sha256(_header(settings) + b"\0" + encoding + b"\0")


@functools.cache
def _header(settings: GroupingSpec) -> bytes:
    """What a content hash starts with: the analysis code and the settings."""
    return json.dumps([analysis_digest(), settings.fields()], sort_keys=True).encode()


def _runs_bytes(samples: Sequence[Sample]) -> tuple[bytes, bytes, int]:
    """Runs exactly and unambiguously: a kind byte each, their numbers, the newest's length.

    A run is missing (kind 0, no number), a number (1, a double) or trials
    (2, their count, then a double each); with the count of runs first the
    encoding is unambiguous.  The newest run's numbers end the values, so
    the series but its newest run is a slice away.
    """
    kinds = bytes(
        0 if sample is None else 1 if isinstance(sample, (float, int)) else 2 for sample in samples
    )
    chunks = [
        struct.pack("<d", sample)
        if kind == 1
        else struct.pack(f"<I{len(sample)}d", len(sample), *sample)  # type: ignore[arg-type]
        for sample, kind in zip(samples, kinds, strict=True)
        if kind
    ]
    newest = len(chunks[-1]) if kinds and kinds[-1] else 0
    return kinds, b"".join(chunks), newest


def series_jobs(histories: Sequence[TestHistory], grouping: GroupingSpec) -> list[SeriesJob]:
    """One job per history, named by metric and history key (unique within a source)."""
    return [SeriesJob.of(h.ref.identity, h, grouping) for h in histories]


def series_cache(
    cache_dir: Path | None,
    source: str,
    grouping: GroupingSpec,
    warn: Callable[[str], None] | None = None,
) -> SeriesCache:
    """The cache of one source's groupings under these settings, shared by the site and check.

    The scope is derived from the whole :class:`~.identity.GroupingSpec`;
    each series' entry is named by its :attr:`~.identity.SeriesRef.identity`.
    ``warn`` is told once when the cache's folder cannot be written.
    """
    folder = None if cache_dir is None else cache_dir / "classified"
    scope = json.dumps([source, grouping.fields()], sort_keys=True)
    return SeriesCache(folder, scope, warn)


@dataclass(frozen=True)
class Grouped:
    """A series' grouping, and where the exact search's state to extend it later went.

    The worker wrote the state at ``search_at`` (in the cache's folder), or
    sent it back as ``search_state`` when it may not share that folder (a
    Dask cluster); neither when there is no state to keep.
    """

    classification: Classification
    search_at: Location | None = None
    search_state: bytes | None = None
    unwritten: OSError | None = None
    """Why the state could not be written where it was to be kept (a full disk)."""
    entry: bytes | None = None
    """The cache's entry for the grouping, as JSON: encoded by the worker, in parallel, so
    the process that writes the cache only copies it (:meth:`SeriesCache.save`)."""


@dataclass(frozen=True)
class SeriesTask:
    """A series to group, from scratch or from the saved search after its first runs."""

    job: SeriesJob
    resume: tuple[int, StateRef | bytes] | None = None
    """(runs the saved search has seen, its state: where to read it, or its bytes)."""
    keep_in: Path | None = None
    """Where to write the new search state (the cache's folder of states)."""
    send_back: bool = False
    """Return the new state instead (the worker may not share the cache's folder)."""
    known_content: str | None = None
    """The job's :attr:`~SeriesJob.content`, if the process that made the task has it: a
    worker forked before that process hashed the series would hash it again."""

    def __repr__(self) -> str:
        return repr(self.job)

    @property
    def content(self) -> str:
        return self.known_content or self.job.content

    def place(self) -> tuple[tuple[int, StateRef | bytes] | None, Path | None, bool, str]:
        """What the task says besides its job: sent to a worker that has the job already."""
        return self.resume, self.keep_in, self.send_back, self.content


def classify_job(job: SeriesJob) -> tuple[Classification, SavedSearch | None]:
    """:func:`.classify` of one series from scratch, with the search state to save.

    Only the exact search has a state (see :meth:`.IncrementalClassifier.save`).
    """
    settings = job.settings
    classifier = IncrementalClassifier(
        unit=calibrated_unit(job.samples, settings.calibration),
        sbps=settings.sbps,
        search=settings.search,  # type: ignore[arg-type]
        direction=settings.direction,  # type: ignore[arg-type]
        outlier_runs=settings.outlier_runs,
    )
    return classifier.extend(job.samples), classifier.save(copy=False)  # encoded at once


def extend_job(
    job: SeriesJob, seen: int, state: bytes
) -> tuple[Classification, SavedSearch | None]:
    """The grouping of a series that gained runs since its search was saved after ``seen``.

    A state that does not load or does not describe those runs is dropped
    and the series grouped from scratch.
    """
    settings = job.settings
    try:
        classifier, result = IncrementalClassifier.continued(
            job.samples,
            seen,
            SavedSearch.from_bytes(state),
            unit=calibrated_unit(job.samples, settings.calibration),
            sbps=settings.sbps,
            direction=settings.direction,  # type: ignore[arg-type]
            outlier_runs=settings.outlier_runs,
        )
    except ValueError:
        return classify_job(job)
    return result, classifier.save(copy=False)


def group_task(task: SeriesTask) -> Grouped:
    """The task run in-process: one series, extended where its search was saved."""
    return classify_batch((task,))[0]


def classify_batch(tasks: tuple[SeriesTask, ...]) -> list[Grouped]:
    """The task sent to a worker: several series, so scheduling costs little per series.

    Their states are read through one open file where they share one, the
    series that gained a run extended together (:func:`extend_jobs`), and
    the new states written into one file: a file per series cost more than
    the search of a new run.
    """
    with StateReader() as reader:
        resumes = [number for number, task in enumerate(tasks) if _can_read(task, reader)]
        states = StateBuffer([_state_length(tasks[number]) for number in resumes])
        readable = []
        for slot, number in enumerate(resumes):
            state = tasks[number].resume[1]  # type: ignore[index]
            try:
                if isinstance(state, bytes):
                    states.slot(slot)[:] = state
                else:
                    reader.read_into(state, states.slot(slot))
            except (OSError, ValueError):
                continue  # grouped from scratch
            readable.append(slot)
    free_read_files(reader.read_whole())  # read: their states are all replaced below
    extending = [resumes[slot] for slot in readable]
    extended = extend_jobs(
        [tasks[number].job for number in extending],
        [tasks[number].resume[0] for number in extending],  # type: ignore[index]
        states,
        readable,
    )
    found = dict(zip(extending, extended, strict=True))
    done = [
        found[number] if number in found else classify_job(task.job)
        for number, task in enumerate(tasks)
    ]
    encoded = {
        number: saved if isinstance(saved, (bytes, memoryview)) else saved.to_bytes()
        for number, (task, (_, saved)) in enumerate(zip(tasks, done, strict=True))
        if saved is not None and (task.keep_in is not None or task.send_back)
    }
    kept: dict[Path, list[int]] = {}
    for number in encoded:
        folder = tasks[number].keep_in
        if folder is not None:
            kept.setdefault(folder, []).append(number)
    places: dict[int, Location] = {}
    unwritten: OSError | None = None
    for folder, numbers in kept.items():
        states = [(tasks[n].job.identity, tasks[n].content, encoded[n]) for n in numbers]
        try:
            places.update(zip(numbers, write_states(folder, states), strict=True))
        except OSError as error:  # the groupings stand; only the way to extend them is lost
            unwritten = error
    return [
        Grouped(
            result,
            places.get(number),
            bytes(encoded[number]) if task.send_back and number in encoded else None,
            unwritten if task.keep_in is not None and number not in places else None,
            _entry(task.content, result),
        )
        for number, (task, (result, _)) in enumerate(zip(tasks, done, strict=True))
    ]


def extend_jobs(
    jobs: Sequence[SeriesJob], seen: Sequence[int], states: StateBuffer, slots: Sequence[int]
) -> list[tuple[Classification, SavedSearch | memoryview | None]]:
    """:func:`extend_job` of each job, its saved search having seen ``seen`` of its runs
    (its state in ``states``' slot of ``slots``): most in one compiled call for them all
    (:func:`.batch_extend.extend_batch`, which gives the new state's bytes), the others
    one by one."""
    batched = extend_batch(jobs, seen, states, slots)
    return [
        extend_job(job, runs, bytes(states.slot(slot))) if answer is None else answer
        for job, runs, slot, answer in zip(jobs, seen, slots, batched, strict=True)
    ]


def _can_read(task: SeriesTask, reader: StateReader) -> bool:
    """Whether the task has a saved state that lies where its index says: the others are
    grouped from scratch."""
    if task.resume is None:
        return False
    state = task.resume[1]
    return isinstance(state, bytes) or reader.lies_within(state)


def _state_length(task: SeriesTask) -> int:
    """The length of the task's saved state."""
    state = task.resume[1]  # type: ignore[index]
    return len(state) if isinstance(state, bytes) else state.length


def _entry(content: str, result: Classification) -> bytes:
    """A series' entry in the cache's file (see :meth:`SeriesCache.save`).

    Written by orjson (:func:`.json_bytes`), but for a number that is not
    finite: orjson writes it as null, which an optional field would read
    back as None, where the standard library's ``NaN`` makes the entry
    refused when read (:func:`.classification_from_json`) and the series
    grouped again, as before.
    """
    document = {"content": content, "classification": classification_to_json(result)}
    if not _all_finite(result):
        return json.dumps(document).encode()
    return json_bytes(document)


def _all_finite(result: Classification) -> bool:
    """Whether every number of ``result`` is finite (or None)."""
    numbers = [result.bits, result.unit]
    for group in result.groups:
        numbers += (group.avg, group.stdev, group.bits_saved, group.confidence)
        numbers.append(group.serial_correlation)
    return all(number is None or math.isfinite(number) for number in numbers)


class SeriesCache:
    """Classifications by series identity, each valid for one content hash.

    Kept in memory and, with a folder, in one JSON file per ``scope``
    (written by :meth:`save`); the saved searches in a
    :class:`~.search_store.SearchStore` beside it, read only when a series
    needs its search (a build with no new run never does).  Entries on disk
    are untrusted: a file that does not decode, or an entry of the wrong
    shape, is ignored and the series classified again.  An entry is decoded
    when its content is asked for, or when the file is written again: on a
    build where every series gained a run none is, as none is used.

    A write that fails (a full disk, a folder made read-only mid-build)
    does not fail the build: ``warn`` is told once, naming the folder, and
    the cache goes on in memory only, as one without a folder.
    """

    def __init__(
        self, folder: Path | None, scope: str, warn: Callable[[str], None] | None = None
    ) -> None:
        digest = _digest(scope)
        if folder is not None:  # the scope's files, whose names start with its digest
            use_scope(folder, digest, lambda name: name.split(".", 1)[0])
        self.folder = folder
        self.path = None if folder is None else folder / f"{digest}.json"
        self.searches = SearchStore(folder, digest)
        self.scope = scope
        self.entries: dict[str, tuple[str, Classification]] = {}
        self._undecoded: dict[str, Any] = {}  # entries as read, until decoded (_decode)
        self._encoded: dict[str, bytes] = {}  # entries put as their workers encoded them
        self.dirty = False
        self._warn = warn
        self._load()

    def get(self, job: SeriesJob) -> Classification | None:
        entry = self.entries.get(job.identity)
        if entry is None and job.identity in self._undecoded:
            read = self._undecoded[job.identity]
            if not isinstance(read, dict) or read.get("content") != job.content:
                return None  # not this content's: left as read, for save to check
            entry = self._decode(job.identity)
        if entry is None or entry[0] != job.content:
            return None
        return entry[1]

    def task(self, job: SeriesJob, local: bool = True) -> SeriesTask:
        """What grouping ``job`` takes: from its saved search if it only gained runs.

        ``local`` workers share this machine's folders: they read and write
        the states' files themselves; others get and send the bytes.
        """
        folder = self.searches.folder
        keep_in = folder if local else None
        send_back = folder is not None and not local
        saved = self.searches.saved(job.identity)
        if saved is None or saved.runs >= len(job.samples):
            return SeriesTask(job, None, keep_in, send_back)
        if job.prefix_content(saved.runs) != saved.content:
            return SeriesTask(job, None, keep_in, send_back)
        ref = self.searches.ref(saved)
        if local:
            return SeriesTask(job, (saved.runs, ref), keep_in, send_back)
        try:
            with StateReader() as reader:
                return SeriesTask(job, (saved.runs, reader.read(ref)), keep_in, send_back)
        except (OSError, ValueError):
            return SeriesTask(job, None, keep_in, send_back)

    def put(self, job: SeriesJob, grouped: Grouped) -> None:
        self.entries[job.identity] = (job.content, grouped.classification)
        self._undecoded.pop(job.identity, None)
        if grouped.entry is None:
            self._encoded.pop(job.identity, None)
        else:
            self._encoded[job.identity] = grouped.entry
        self.dirty = True
        if grouped.unwritten is not None:
            self._stop_writing(grouped.unwritten)
        place = grouped.search_at
        if grouped.search_state is not None and self.searches.folder is not None:
            states = [(job.identity, job.content, grouped.search_state)]
            try:
                place = write_states(self.searches.folder, states)[0]
            except OSError as error:
                self._stop_writing(error)
        self.searches.record(job.identity, job.content, len(job.samples), place)

    def save(self) -> None:
        """Write what changed: the groupings, then the index of the saved searches."""
        try:
            if self.path is not None and self.dirty:
                for identity in list(self._undecoded):  # written back only if well formed
                    self._decode(identity)
                encoded = self._encoded
                entries = (
                    (identity, encoded.get(identity) or _entry(content, result))
                    for identity, (content, result) in self.entries.items()
                )
                head = {"format": CACHE_FORMAT, "scope": self.scope}
                write_atomically(self.path, _json_chunks(head, "entries", entries))
                self.dirty = False
            self.searches.save()
        except OSError as error:
            self._stop_writing(error)

    def _stop_writing(self, error: OSError) -> None:
        """Go on in memory: nothing more is written, and no saved search is read."""
        if self.folder is None:
            return
        if self._warn is not None:
            report_unwritable(self.folder, error, self._warn)
        self.folder = self.path = None
        self.searches = SearchStore(None, self.searches.scope)

    def _load(self) -> None:
        self._undecoded = cache_document(self.path, CACHE_FORMAT, self.scope, "entries")

    def _decode(self, identity: str) -> tuple[str, Classification] | None:
        """The entry as read for ``identity``, checked and kept; None (and dropped) if it is
        not one this code could have written."""
        entry = self._undecoded.pop(identity)
        try:
            content = entry["content"]
            if not isinstance(content, str):
                raise TypeError("content hash is not a string")
            decoded = (content, classification_from_json(entry["classification"]))
        except (KeyError, TypeError, ValueError):
            return None
        self.entries[identity] = decoded
        return decoded


def _json_chunks(
    head: dict[str, Any], key: str, entries: Iterable[tuple[str, Any]]
) -> Iterator[bytes]:
    """``{**head, key: dict(entries)}`` as JSON, an entry at a time.

    The groupings of a CSIT-sized site are tens of megabytes: one string of
    all of them, and its bytes, would double that at the end of the grouping.
    A value given as bytes is JSON already (a worker encoded it): written as it is.
    """
    yield json.dumps(head)[:-1].encode() + b", " + json.dumps(key).encode() + b": {"
    for number, (name, value) in enumerate(entries):
        yield (b", " if number else b"") + json_bytes(name) + b": "
        yield value if isinstance(value, bytes) else json_bytes(value)
    yield b"}}"


def classify_series(
    jobs: Sequence[SeriesJob],
    cache: SeriesCache,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
    each: Callable[[int, Classification], None] | None = None,
    slow_setup: Callable[[], None] | None = None,
) -> list[Classification]:
    """The classification of every job, in order: cached ones as they are, the rest computed.

    A series that only gained runs since it was cached is extended from its
    saved search; the others are grouped from scratch.  The missing ones
    are grouped in batches on ``workers`` processes forked from a helper
    (:class:`~.ready_workers.ReadyWorkers`: forked as soon as
    :data:`MIN_PARALLEL` are missing, it loads the compiled search once
    while this process asks the cache about the rest, and each batch is
    filed in the cache as it comes), on the Dask cluster at ``scheduler``
    (:func:`~.map_ordered`), or here when neither is given or fewer than
    :data:`MIN_PARALLEL` are missing.  The cache is saved once at the end.

    ``each(number, classification)`` is called for every job as soon as its
    classification is known (the computed ones as they arrive, then the
    cached ones): what a caller makes of them is made while the workers
    group the next batches, where this process only waited for them.
    ``slow_setup()`` is called once if the workers' helper is still loading
    the compiled search a few seconds after its work is ready for it
    (:meth:`.ReadyWorkers.results`): the first use of an install compiles it.
    """
    # workers of a helper forked early: two or more (with one, this process groups)
    forked = (workers or 0) if scheduler is None and can_fork() else 0
    with contextlib.ExitStack() as helper:
        ready: ReadyWorkers[Sequence[SeriesJob]] | None = None
        results: list[Classification | None] = []
        missing: list[int] = []
        for number, job in enumerate(jobs):
            result = cache.get(job)
            results.append(result)
            if result is None:
                missing.append(number)
                if forked > 1 and len(missing) == MIN_PARALLEL:
                    ready = helper.enter_context(ReadyWorkers(load_grouping, jobs, forked))
        todo = [cache.task(jobs[number], local=scheduler is None) for number in missing]
        computed: Iterable[Grouped]
        if len(todo) < MIN_PARALLEL or not (workers or scheduler):
            computed = map_ordered(group_task, todo, progress=progress)
        else:
            slots = workers or 1
            size = max(1, min(BATCH, -(-len(todo) // (4 * slots))))
            done: Iterable[list[Grouped]]
            if ready is not None:  # each batch filed as it comes, while the next are grouped
                numbered = [
                    (number, *task.place()) for number, task in zip(missing, todo, strict=True)
                ]
                sent = _batched(numbered, size)
                done = ready.results(_classify_numbered, sent, progress, slow_setup)
            else:
                batches = _batched(todo, size)
                done = map_ordered(classify_batch, batches, scheduler=scheduler, progress=progress)
            computed = (grouped for batch in done for grouped in batch)
        try:
            for number, grouped in zip(missing, computed, strict=True):
                results[number] = grouped.classification
                cache.put(jobs[number], grouped)
                if each is not None:
                    each(number, grouped.classification)
        finally:  # stopped too: the workers deleted the files of the states they replaced
            cache.save()  # while the helper, if any, ends its workers
    if each is not None:
        computed_here = set(missing)
        for number, result in enumerate(results):
            if number not in computed_here and result is not None:
                each(number, result)
    return [result for result in results if result is not None]


Numbered = tuple[int, tuple[int, StateRef | bytes] | None, Path | None, bool, str]
"""A :class:`SeriesTask` with its job's number among the jobs in place of the job."""


def _classify_numbered(jobs: Sequence[SeriesJob], batch: tuple[Numbered, ...]) -> list[Grouped]:
    """:func:`classify_batch` on a helper's worker, of jobs it inherited, sent by number."""
    return classify_batch(
        tuple(SeriesTask(jobs[number], *place) for number, *place in batch)  # type: ignore[arg-type]
    )


def _batched(items: Sequence[Item], size: int) -> list[tuple[Item, ...]]:
    """``items`` in tuples of ``size`` (the last may be shorter): a worker's task each."""
    return [tuple(items[start : start + size]) for start in range(0, len(items), size)]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]
