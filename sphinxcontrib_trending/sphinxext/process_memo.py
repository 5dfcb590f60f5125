"""Loading sources and analysing tests once per process, however many pages ask.

A site has many pages over few sources.  Datasets are memoised by source name
and fingerprint, and each test's analysis by its options, so ten dashboards
over one archive parse it once.  The memo lives in process memory only: a
forked parallel reader inherits what the main process preloaded, and nothing
bulky is pickled into the environment.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from sphinxcontrib_trending.analysis.acknowledged import KnownChanges
from sphinxcontrib_trending.analysis.history import TestHistory, histories
from sphinxcontrib_trending.analysis.summary import TestTrend, TrendOptions, summarize
from sphinxcontrib_trending.ingest import fingerprint, load
from sphinxcontrib_trending.ingest.model import Dataset
from sphinxcontrib_trending.settings import Source
from sphinxcontrib_trending.sphinxext.config import settings_of
from sphinxcontrib_trending.sphinxext.warnings import warn

logger = logging.getLogger("sphinxcontrib_trending")


@dataclass
class LoadedSource:
    source: Source
    fingerprint: str
    dataset: Dataset

    @property
    def end(self) -> datetime:
        """Newest build time: every window ends here, never at the wall clock."""
        if self.dataset.builds:
            return self.dataset.builds[-1].time
        return datetime.fromtimestamp(0, tz=timezone.utc)


_loaded: dict[tuple[str, str], LoadedSource] = {}
_histories: dict[tuple[str, str, str], list[TestHistory]] = {}
_trends: dict[tuple[str, str, str, TrendOptions, KnownChanges | None], TestTrend] = {}


def current_fingerprint(env: BuildEnvironment, source: Source) -> str:
    return fingerprint(source.spec, settings_of(env.config).cache_dir)


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

    dataset = load(source.spec, settings.cache_dir, progress=progress)
    logger.info(
        "[trending] source %r: %d build(s) from %d file(s), %d parsed, the rest from the cache",
        name,
        len(dataset.builds),
        len(dataset.files),
        len(dataset.parsed),
    )
    for problem in dataset.problems:
        warn(f"source {name!r}: {problem}", problem.subtype)
    if not dataset.builds:
        warn(
            f"configuration trending_sources[{name!r}]: matched no usable build "
            f"({', '.join(source.spec.paths)})",
            "config",
        )
    loaded = LoadedSource(source, current, dataset)
    _loaded[(name, current)] = loaded
    return loaded


def source_histories(loaded: LoadedSource, metric: str) -> list[TestHistory]:
    key = (loaded.source.name, loaded.fingerprint, metric)
    if key not in _histories:
        _histories[key] = histories(loaded.dataset.builds, metric)
    return _histories[key]


def trends_for(
    loaded: LoadedSource,
    selected: list[TestHistory],
    options: TrendOptions,
    known: KnownChanges | None,
) -> list[TestTrend]:
    """Analyses of the selected histories, each computed once per process."""
    result = []
    for history in selected:
        key = (loaded.source.name, loaded.fingerprint, history.key, options, known)
        trend = _trends.get(key)
        if trend is None:
            trend = _trends[key] = summarize(history, options, loaded.end, known)
        result.append(trend)
    return result


def select(
    candidates: list[TestHistory],
    tag_filter: Callable[[tuple[str, ...]], bool] | None,
) -> list[TestHistory]:
    if tag_filter is None:
        return list(candidates)
    return [history for history in candidates if tag_filter(history.tags)]


def preload(env: BuildEnvironment) -> None:
    """Parse every configured source in the main process before readers fork."""
    for name in settings_of(env.config).sources:
        load_source(env, name)
