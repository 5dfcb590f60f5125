"""Reading the sources ``check`` judges: one :class:`Loaded` per source.

Both of ``check``'s modes (trend verdicts and baseline comparisons) judge
the same histories with the same options, so they are read here once.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from sphinxcontrib_trending.analysis.history import TestHistory, histories
from sphinxcontrib_trending.analysis.summary import TrendOptions
from sphinxcontrib_trending.analysis.tagfilter import FilterError, compile_filter
from sphinxcontrib_trending.ingest import load
from sphinxcontrib_trending.ingest.dimensions import rules_for
from sphinxcontrib_trending.ingest.model import Build, TestResult, metrics_note
from sphinxcontrib_trending.judging import trend_options
from sphinxcontrib_trending.settings import Settings, Source


class LoadError(Exception):
    """A source that gives nothing to judge, or a bad --filter: exit code 2."""


@dataclass
class Messages:
    """Where ``check`` reports on stderr: errors, progress with --verbose, deprecations once."""

    error: Callable[[str], None]
    verbose: bool = False
    said: set[str] = field(default_factory=set)

    def progress(self, message: str) -> None:
        if self.verbose:
            print(message, file=sys.stderr)

    def deprecated(self, message: str) -> None:
        if message not in self.said:
            self.said.add(message)
            self.error(f"warning: {message}")


@dataclass(frozen=True)
class Loaded:
    source: Source
    builds: list[Build]
    histories: list[TestHistory]
    options: TrendOptions
    metric: str
    accept: Callable[[TestResult], bool] | None


def tag_filter(expression: str | None) -> Callable[[TestResult], bool] | None:
    if not expression:
        return None
    try:
        matches = compile_filter(expression)
    except FilterError as error:
        raise LoadError(f"--filter: {error}") from None
    return lambda test: matches(test.tags)


def load_sources(
    settings: Settings,
    metric: str | None,
    expression: str | None,
    search: str | None,
    samples: str | None,
    messages: Messages,
    forked: int | None = None,
    *,
    keep_tests: bool = True,
) -> list[Loaded]:
    """Every source of ``settings``, cut into the histories of the judged metric.

    A source that ends up with no build, or no test with a value of the
    metric, is an error: a gate must not pass on data it could not read.
    New inputs are parsed on ``forked`` processes forked from this one
    (``--workers``), as the site parses them.  ``keep_tests=False`` leaves
    the builds without their test results once the histories are cut:
    judging trends reads only the builds' names and times, and the results
    beside the histories' runs doubled what ``check --all`` held.
    """
    accept = tag_filter(expression)
    loaded = []
    for source in settings.sources.values():

        def progress(message: str, name: str = source.name) -> None:
            messages.progress(f"{name}: {message}")

        dataset = load(
            source.spec,
            settings.cache_dir,
            progress=progress,
            passed_messages=False,
            forked=forked,
        )
        for problem in dataset.problems:
            messages.error(f"warning: source {source.name!r}: {problem}")
        if not dataset.builds:
            raise LoadError(
                f"source {source.name!r} has no usable build in {', '.join(source.spec.paths)}"
            )
        judged_metric = metric or source.metric
        selected = histories(
            dataset.builds,
            judged_metric,
            accept,
            keep_failing=True,
            rules=rules_for(source.spec.dimensions),
        )
        if all(history.unit is None for history in selected):
            matching = f" matching --filter {expression!r}" if expression else ""
            raise LoadError(
                f"source {source.name!r} has no test{matching} with a {judged_metric!r} value "
                f"({metrics_note(dataset.builds)})"
            )
        options = trend_options(settings, source, judged_metric, samples=samples, search=search)
        builds = dataset.builds if keep_tests else [replace(b, tests=()) for b in dataset.builds]
        del dataset
        loaded.append(Loaded(source, builds, selected, options, judged_metric, accept))
    return loaded


def print_lines(lines: Sequence[str]) -> None:
    """Print a report; a reader that went away (head, a closed pager) stops only the printing."""
    try:
        print("\n".join(lines), flush=True)
    except BrokenPipeError:
        # The verdicts and the files written still count, so carry on.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
