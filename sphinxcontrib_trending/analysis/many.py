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
previous entry under the same name.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sphinxcontrib_trending.analysis.classify import Classification, Group, classify
from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.summary import TrendOptions, run_samples
from sphinxcontrib_trending.engine.forked import map_forked
from sphinxcontrib_trending.engine.mapping import Progress, map_ordered
from sphinxcontrib_trending.ingest.atomic import write_atomically

CACHE_FORMAT = "sphinxcontrib-trending/classified-series"
MIN_PARALLEL = 64
"""Fewer series than this are classified in-process: starting workers costs more."""
BATCH = 200
"""At most this many series per task."""

Sample = float | Sequence[float] | None


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


@dataclass(frozen=True)
class ClassifySettings:
    """The options that change a grouping (windows and policies do not)."""

    samples: str
    search: str
    direction: str
    sbps: float | None
    outlier_runs: int | None = None

    @classmethod
    def of(cls, options: TrendOptions) -> ClassifySettings:
        return cls(
            options.samples, options.search, options.direction, options.sbps, options.outlier_runs
        )


@dataclass(frozen=True, repr=False)
class SeriesJob:
    """One series to classify: a picklable task item for the workers."""

    identity: str
    samples: tuple[Sample, ...]
    settings: ClassifySettings

    @classmethod
    def of(cls, identity: str, history: TestHistory, settings: ClassifySettings) -> SeriesJob:
        samples = tuple(
            tuple(sample) if isinstance(sample, Sequence) else sample
            for sample in run_samples(history, settings.samples)
        )
        return cls(identity, samples, settings)

    def __repr__(self) -> str:
        return f"series {self.identity}"

    @functools.cached_property
    def content(self) -> str:
        """Hash of the values, settings and code; the cache asks for it twice per series."""
        state = [analysis_digest(), self.settings.__dict__, [_plain(s) for s in self.samples]]
        return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


def _plain(sample: Sample) -> Any:
    """JSON-able and exact: ``repr`` of each float (NaN included)."""
    if sample is None:
        return None
    if isinstance(sample, Sequence):
        return [repr(float(value)) for value in sample]
    return repr(float(sample))


def series_jobs(histories: Sequence[TestHistory], options: TrendOptions) -> list[SeriesJob]:
    """One job per history, named by metric and history key (unique within a source)."""
    settings = ClassifySettings.of(options)
    return [SeriesJob.of(f"{h.metric}/{h.key}", h, settings) for h in histories]


def series_cache(cache_dir: Path | None, source: str, options: TrendOptions) -> SeriesCache:
    """The cache of one source's groupings under these settings, shared by the site and check."""
    folder = None if cache_dir is None else cache_dir / "classified"
    scope = json.dumps([source, ClassifySettings.of(options).__dict__], sort_keys=True)
    return SeriesCache(folder, scope)


def classify_job(job: SeriesJob) -> Classification:
    """The task the workers run: :func:`.classify` of one series."""
    settings = job.settings
    return classify(
        list(job.samples),
        sbps=settings.sbps,
        search=settings.search,  # type: ignore[arg-type]
        direction=settings.direction,  # type: ignore[arg-type]
        outlier_runs=settings.outlier_runs,
    )


class SeriesCache:
    """Classifications by series identity, each valid for one content hash.

    Kept in memory and, with a folder, in one JSON file per ``scope``
    (written by :meth:`save`).  Entries on disk are untrusted: a file that
    does not decode, or an entry of the wrong shape, is ignored and the
    series classified again.
    """

    def __init__(self, folder: Path | None, scope: str) -> None:
        self.path = None if folder is None else folder / f"{_digest(scope)}.json"
        self.scope = scope
        self.entries: dict[str, tuple[str, Classification]] = {}
        self.dirty = False
        self._load()

    def get(self, job: SeriesJob) -> Classification | None:
        entry = self.entries.get(job.identity)
        if entry is None or entry[0] != job.content:
            return None
        return entry[1]

    def put(self, job: SeriesJob, result: Classification) -> None:
        self.entries[job.identity] = (job.content, result)
        self.dirty = True

    def save(self) -> None:
        if self.path is None or not self.dirty:
            return
        document = {
            "format": CACHE_FORMAT,
            "scope": self.scope,
            "entries": {
                identity: {"content": content, "classification": _to_json(result)}
                for identity, (content, result) in self.entries.items()
            },
        }
        write_atomically(self.path, [json.dumps(document).encode()])
        self.dirty = False

    def _load(self) -> None:
        if self.path is None:
            return
        try:
            document = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return
        if not isinstance(document, dict) or document.get("format") != CACHE_FORMAT:
            return
        if document.get("scope") != self.scope or not isinstance(document.get("entries"), dict):
            return
        for identity, entry in document["entries"].items():
            try:
                content = entry["content"]
                if not isinstance(content, str):
                    raise TypeError("content hash is not a string")
                self.entries[identity] = (content, _from_json(entry["classification"]))
            except (KeyError, TypeError, ValueError):
                continue


def classify_batch(jobs: tuple[SeriesJob, ...]) -> list[Classification]:
    """The task sent to a worker: several series, so scheduling costs little per series."""
    return [classify_job(job) for job in jobs]


def classify_series(
    jobs: Sequence[SeriesJob],
    cache: SeriesCache,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
) -> list[Classification]:
    """The classification of every job, in order: cached ones as they are, the rest computed.

    The missing ones are classified in batches on ``workers`` processes
    forked from this one (:func:`~.map_forked`), on the Dask cluster at
    ``scheduler`` (:func:`~.map_ordered`), or here when neither is given or
    fewer than :data:`MIN_PARALLEL` are missing.  The cache is saved once
    at the end.
    """
    results: list[Classification | None] = [cache.get(job) for job in jobs]
    missing = [number for number, result in enumerate(results) if result is None]
    todo = [jobs[number] for number in missing]
    if len(todo) < MIN_PARALLEL or not (workers or scheduler):
        computed = map_ordered(classify_job, todo, progress=progress)
    else:
        slots = workers or 1
        size = max(1, min(BATCH, -(-len(todo) // (4 * slots))))
        batches = [tuple(todo[start : start + size]) for start in range(0, len(todo), size)]
        if scheduler is not None:
            done = map_ordered(classify_batch, batches, scheduler=scheduler, progress=progress)
        else:
            done = map_forked(classify_batch, batches, slots, progress=progress)
        computed = [result for batch in done for result in batch]
    for number, result in zip(missing, computed, strict=True):
        results[number] = result
        cache.put(jobs[number], result)
    cache.save()
    return [result for result in results if result is not None]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


_GROUP_FLOATS = ("avg", "stdev")
_GROUP_OPTIONAL = ("bits_saved", "confidence", "serial_correlation")


def _to_json(result: Classification) -> dict[str, Any]:
    return {
        "groups": [{**group.__dict__, "outliers": list(group.outliers)} for group in result.groups],
        "bits": result.bits,
        "missing": list(result.missing),
        "run_count": result.run_count,
        "direction": result.direction,
        "search": result.search,
        "unit": result.unit,
        "outlier_runs": result.outlier_runs,
    }


def _from_json(entry: Any) -> Classification:
    if not isinstance(entry, dict):
        raise TypeError("classification is not an object")
    groups = [_group(group) for group in _typed(entry["groups"], list)]
    return Classification(
        groups=groups,
        bits=_number(entry["bits"]),
        missing=tuple(_integer(index) for index in _typed(entry["missing"], list)),
        run_count=_integer(entry["run_count"]),
        direction=_choice(entry["direction"], ("higher", "lower")),  # type: ignore[arg-type]
        search=_choice(entry["search"], ("exact", "jumpavg")),  # type: ignore[arg-type]
        unit=None if entry["unit"] is None else _number(entry["unit"]),
        outlier_runs=_integer(entry["outlier_runs"]),
    )


def _group(entry: Any) -> Group:
    fields = _typed(entry, dict)
    return Group(
        start=_integer(fields["start"]),
        stop=_integer(fields["stop"]),
        size=_integer(fields["size"]),
        comment=_choice(fields["comment"], ("normal", "regression", "progression")),  # type: ignore[arg-type]
        **{name: _number(fields[name]) for name in _GROUP_FLOATS},
        **{
            name: None if fields[name] is None else _number(fields[name])
            for name in _GROUP_OPTIONAL
        },
        outliers=tuple(_integer(run) for run in _typed(fields["outliers"], list)),
    )


def _typed(value: Any, kind: type) -> Any:
    if not isinstance(value, kind):
        raise TypeError(f"expected {kind.__name__}, found {type(value).__name__}")
    return value


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError(f"expected a count, found {value!r}")
    return value


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"expected a number, found {type(value).__name__}")
    if not math.isfinite(value) or abs(value) > 1e100:
        raise ValueError(f"implausible number {value!r}")
    return float(value)


def _choice(value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"expected one of {choices}, found {value!r}")
    return value
