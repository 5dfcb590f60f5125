"""Loading sources and analysing tests once per process, however many pages ask.

A site has many pages over few sources.  Datasets are memoised by source name
and fingerprint, and each test's analysis by its options, so ten dashboards
over one archive parse it once.  The memo lives in process memory only: a
forked parallel reader inherits what the main process preloaded, and nothing
bulky is pickled into the environment.

Groupings are also kept on disk per series (:mod:`~sphinxcontrib_trending.analysis.many`),
so a warm build or one with a new run classifies only the series that
changed.  With ``sphinx-build -j N`` the main process classifies every
series of each source's default metric before the readers fork, on N
worker processes: otherwise each reader would classify, alone, every series
its pages show, and series shown on pages of two readers twice.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path

from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from sphinxcontrib_trending.analysis.acknowledged import KnownChanges
from sphinxcontrib_trending.analysis.classify import Classification
from sphinxcontrib_trending.analysis.history import TestHistory, histories
from sphinxcontrib_trending.analysis.identity import GroupingSpec
from sphinxcontrib_trending.analysis.kept_histories import KeptHistories
from sphinxcontrib_trending.analysis.many import (
    SLOW_START_NOTE,
    SeriesCache,
    classify_series,
    series_cache,
    series_jobs,
)
from sphinxcontrib_trending.analysis.normalisation import FrequencyNorm, normalise_builds
from sphinxcontrib_trending.analysis.summary import TestTrend, TrendOptions, summarize
from sphinxcontrib_trending.analysis.touched_series import Provenance, provenance_of
from sphinxcontrib_trending.engine.collector import collector_paused
from sphinxcontrib_trending.ingest import load
from sphinxcontrib_trending.ingest.cache_scopes import scope_folder
from sphinxcontrib_trending.ingest.dimensions import rules_for
from sphinxcontrib_trending.ingest.model import Dataset, metrics_in
from sphinxcontrib_trending.ingest.telemetry import PREFIX
from sphinxcontrib_trending.judging import trend_options
from sphinxcontrib_trending.settings import Settings, Source
from sphinxcontrib_trending.sphinxext.config import settings_of
from sphinxcontrib_trending.sphinxext.fingerprints import current_fingerprint
from sphinxcontrib_trending.sphinxext.warnings import warn

logger = logging.getLogger("sphinxcontrib_trending")


@dataclass(frozen=True)
class SeriesSet:
    """Every series of one metric of a source, as loaded with one fingerprint.

    What histories are memoised by; analyses add their settings
    (:class:`AnalysisScope`).  The metric is part of every key: two
    directives over one source that name two metrics never share a result.
    """

    source: str
    fingerprint: str
    metric: str


@dataclass(frozen=True)
class AnalysisScope:
    """Everything a series' analysis depends on besides its own runs.

    Hashed once, when made: each page looks up thousands of trends by it,
    and its options' nested settings took microseconds to hash each time.
    """

    series: SeriesSet
    options: TrendOptions
    known: KnownChanges | None
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.series, self.options, self.known)))

    def __hash__(self) -> int:
        return self._hash


@dataclass
class LoadedSource:
    source: Source
    fingerprint: str
    dataset: Dataset
    cache_dir: Path | None = None
    kept: KeptHistories | None = None
    """Where its histories are kept between builds (None: gathered whole each build)."""

    @cached_property
    def provenance(self) -> Provenance | None:
        """Where its builds were read from: what the next build compares its own with."""
        return provenance_of(self.dataset.builds)

    def series(self, metric: str) -> SeriesSet:
        """The identity of this source's series of ``metric``, as loaded now."""
        return SeriesSet(self.source.name, self.fingerprint, metric)

    @property
    def end(self) -> datetime:
        """Newest build time: every window ends here, never at the wall clock."""
        if self.dataset.builds:
            return self.dataset.builds[-1].time
        return datetime.fromtimestamp(0, tz=timezone.utc)


_loaded: dict[tuple[str, str], LoadedSource] = {}
_histories: dict[SeriesSet, list[TestHistory]] = {}
_trends: dict[tuple[AnalysisScope, str], TestTrend] = {}
"""Per scope and history key (unique within the scope's metric)."""
_scopes: dict[AnalysisScope, AnalysisScope] = {}
"""Each scope of :data:`_trends`, kept once."""
_series: dict[tuple[Path | None, str, GroupingSpec], SeriesCache] = {}
"""Per cache folder, source and grouping: the on-disk cache's own scope."""
_telemetry: dict[tuple[str, str], list[str]] = {}
"""Per source and fingerprint: every telemetry series its data holds."""
_page_workers: int | None = None
"""Processes a page's own grouping, and its figures, may fork (None: in this one); see
:func:`plan_grouping` and :mod:`.figure_workers`."""
_parse_workers: int | None = None
"""Processes the main process forks to parse a source's new inputs; see :func:`plan_grouping`."""


def page_workers() -> int | None:
    """The processes a page's own work may fork (None: none; see :func:`plan_grouping`)."""
    return _page_workers


def analysed_trends() -> list[TestTrend]:
    """Every trend this process has analysed so far, of every source and scope."""
    return list(_trends.values())


def plan_grouping(configured: int | None, parallel: int) -> int:
    """How many processes group series in this build, and where.

    ``configured`` is ``trending_workers`` (None: one per core, or ``-j N``
    if more).  New inputs of a source are parsed on that many processes
    forked from the main process (:func:`load_source`).  A serial build
    lets each page group the series it shows on that many forked workers,
    so a page over a few tests of a large source groups only those; a
    parallel build groups every series before its readers fork
    (:func:`preanalyse`), and the readers group the rest alone.
    """
    global _page_workers, _parse_workers
    workers = configured or max(parallel, os.cpu_count() or 1)
    _page_workers = workers if parallel <= 1 and workers > 1 else None
    _parse_workers = workers if workers > 1 else None
    return workers


def load_source(env: BuildEnvironment, name: str) -> LoadedSource:
    """The dataset of a configured source, parsed at most once per fingerprint.

    Problems found in the archives become warnings here, once per process,
    not once per page that uses the source.
    """
    settings = settings_of(env.config)
    source = settings.sources[name]
    current = current_fingerprint(env, source)
    loaded = _loaded.get((name, current))
    if loaded is not None:
        return loaded
    logger.info("[trending] loading source %r", name)

    def progress(message: str) -> None:
        logger.verbose("[trending] %s: %s", name, message)

    # forked from the main process only: a parallel reader that loads a source
    # on demand parses in its own process, as it groups in it
    forked = _parse_workers if multiprocessing.parent_process() is None else None
    dataset = load(
        source.spec, settings.cache_dir, progress=progress, passed_messages=False, forked=forked
    )
    logger.info(
        "[trending] source %r: %d build(s) from %d file(s), %s",
        name,
        len(dataset.builds),
        len(dataset.files),
        dataset.reading_note(),
    )
    for problem in dataset.problems:
        warn(f"source {name!r}: {problem}", problem.subtype)
    if settings.norm_frequency is not None:
        dataset = _normalised(name, dataset, settings.norm_frequency)
    if not dataset.builds:
        warn(
            f"configuration trending_sources[{name!r}]: matched no usable build "
            f"({', '.join(source.spec.paths)})",
            "config",
        )
    loaded = LoadedSource(
        source, current, dataset, settings.cache_dir, _kept_histories(settings, source)
    )
    _loaded[(name, current)] = loaded
    return loaded


def _kept_histories(settings: Settings, source: Source) -> KeptHistories | None:
    """Where the source's histories are kept in the cache folder: a folder per way of
    reading it, which only the main process writes (see :class:`.KeptHistories`)."""
    if settings.cache_dir is None:
        return None
    scope = (source.name, repr(source.spec), repr(settings.norm_frequency))
    return KeptHistories(
        scope_folder(settings.cache_dir / "histories", *scope),
        lambda message: warn(message, "cache"),
        writer=multiprocessing.parent_process() is None,
    )


def _normalised(name: str, dataset: Dataset, norm: FrequencyNorm) -> Dataset:
    """The dataset with its rates scaled to the reference frequency; a testbed
    without a frequency is left as measured, with one warning per source."""
    builds, unknown = normalise_builds(dataset.builds, norm)
    if unknown:
        warn(
            f"configuration trending_norm_frequency: source {name!r} has no frequency for "
            f"testbed(s) {', '.join(unknown)}; their values are not normalised",
            "config",
        )
    return replace(dataset, builds=builds)


def source_histories(loaded: LoadedSource, metric: str) -> list[TestHistory]:
    key = loaded.series(metric)
    if key not in _histories:
        rules = rules_for(loaded.source.spec.dimensions)
        with collector_paused():
            if loaded.kept is None:
                _histories[key] = histories(loaded.dataset.builds, metric, rules=rules)
            else:
                _histories[key] = loaded.kept.histories(loaded.dataset.builds, metric, rules)
            # kept for the build like the loaded data (see _preload), and
            # frozen with it before the collector would walk every new run
            gc.freeze()
    return _histories[key]


def telemetry_metrics(loaded: LoadedSource) -> list[str]:
    """Every telemetry series of the source, sorted: what ``:labels:`` chooses among."""
    key = (loaded.source.name, loaded.fingerprint)
    if key not in _telemetry:
        _telemetry[key] = [
            metric for metric in metrics_in(loaded.dataset.builds) if metric.startswith(PREFIX)
        ]
    return _telemetry[key]


def trends_for(
    loaded: LoadedSource,
    selected: list[TestHistory],
    options: TrendOptions,
    known: KnownChanges | None,
    workers: int | None = None,
) -> list[TestTrend]:
    """Analyses of the selected histories, each computed once per process.

    Every history must be of one metric: the scope of the memo is that
    metric's, and a history of another would be filed under it.  Groupings
    not in the per-series cache are computed on ``workers`` local processes
    (by default what :func:`plan_grouping` chose for pages).
    """
    metrics = {history.metric for history in selected}
    if len(metrics) > 1:
        raise ValueError(f"histories of several metrics analysed as one: {sorted(metrics)}")
    if not metrics:
        return []
    scope = AnalysisScope(loaded.series(metrics.pop()), options, known)
    # the scope the memo holds, if equal: each look-up then finds it by identity,
    # where an equal scope was compared setting by setting
    scope = _scopes.setdefault(scope, scope)
    missing = [history for history in selected if (scope, history.key) not in _trends]
    if missing:
        cache = _series_cache(loaded, options.grouping)
        workers = workers or _page_workers
        jobs = series_jobs(missing, options.grouping)

        def summarized(number: int, result: Classification) -> None:
            history = missing[number]
            _trends[scope, history.key] = summarize(history, options, loaded.end, known, result)

        with collector_paused():
            # each series summarised as its grouping arrives: while the workers group the rest
            classify_series(
                jobs, cache, workers=workers, each=summarized, slow_setup=_compiling_note
            )
            # kept for the build like the histories: out of the collector's
            # walks, which at CSIT's size went over every trend again and
            # again while the pages rendered (a second or more each)
            gc.freeze()
    return [_trends[scope, history.key] for history in selected]


def _compiling_note() -> None:
    """Why the build waits on the grouping's workers (see "Keep the installed extension
    too" in the Publishing page)."""
    logger.info("[trending] grouping: %s", SLOW_START_NOTE)


def _series_cache(loaded: LoadedSource, grouping: GroupingSpec) -> SeriesCache:
    """One cache object per source and grouping in this process, loaded from disk once."""
    memo_key = (loaded.cache_dir, loaded.source.name, grouping)
    cache = _series.get(memo_key)
    if cache is None:
        cache = _series[memo_key] = series_cache(
            loaded.cache_dir, loaded.source.name, grouping, lambda message: warn(message, "cache")
        )
    return cache


def select(
    candidates: list[TestHistory],
    tag_filter: Callable[[tuple[str, ...]], bool] | None,
    tests: re.Pattern[str] | None = None,
) -> list[TestHistory]:
    """The histories a view picks: by its tag filter, and by its ``:tests:`` pattern if any.

    A graph's page is read again when a new series would pass this
    (:mod:`.page_reuse`), so the graph and that test pick alike.
    """
    picked = candidates
    if tag_filter is not None:
        picked = [
            history for history in picked if tag_filter(history.tags + history.dimensions.labels())
        ]
    if tests is not None:
        picked = [history for history in picked if tests.search(history.test_id)]
    return list(picked)


def preload(env: BuildEnvironment) -> None:
    """Parse every configured source in the main process before readers fork."""
    for name in settings_of(env.config).sources:
        load_source(env, name)


def preanalyse(env: BuildEnvironment, workers: int) -> None:
    """Analyse every test of each source's default metric and options, on ``workers`` processes.

    Called before parallel readers fork, so they share one copy of the
    results (a serial build groups page by page instead, see
    :func:`plan_grouping`).
    """
    settings = settings_of(env.config)
    for name in settings.sources:
        loaded = load_source(env, name)
        candidates = source_histories(loaded, loaded.source.metric)
        options = trend_options(settings, loaded.source, loaded.source.metric)
        logger.info(
            "[trending] source %r: analysing %d series on %d processes",
            name,
            len(candidates),
            workers,
        )
        trends_for(loaded, candidates, options, settings.known_changes, workers=workers)
