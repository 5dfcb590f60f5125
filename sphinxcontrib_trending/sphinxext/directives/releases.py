"""``.. trending-coverage::`` and ``.. trending-releases::``: a release's numbers, and
a test family's across releases (see :mod:`~sphinxcontrib_trending.analysis.release_views`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.release_views import (
    COVERAGE_RATES,
    coverage,
    coverage_latencies,
    release_boxes,
    versions_of,
)
from sphinxcontrib_trending.ingest.metrics import LATENCY_DIRECTIONS, LATENCY_LOADS
from sphinxcontrib_trending.render.release_views import coverage_table, releases_figure
from sphinxcontrib_trending.render.script_data import script_json
from sphinxcontrib_trending.sphinxext.directives.common import TrendingDirective, table_node
from sphinxcontrib_trending.sphinxext.nodes import graph_node
from sphinxcontrib_trending.sphinxext.process_memo import LoadedSource, select, source_histories


def _words(allowed: Sequence[str]) -> Callable[[str], tuple[str, ...]]:
    """An option taking some of ``allowed``, space-separated, each once, in the given order."""

    def parse(argument: str) -> tuple[str, ...]:
        words = tuple(dict.fromkeys((argument or "").split()))
        unknown = [word for word in words if word not in allowed]
        if not words or unknown:
            raise ValueError(f"expected some of {' '.join(allowed)}, got {argument!r}")
        return words

    return parse


class _ReleaseDirective(TrendingDirective):
    """What both views share: the ``:tests:`` regular expression over the test ids."""

    def _histories(self, loaded: LoadedSource, metric: str) -> list[TestHistory]:
        tests = self.regex_option("tests")
        chosen = select(source_histories(loaded, metric), self.tag_filter())
        return [history for history in chosen if tests is None or tests.search(history.test_id)]


class CoverageDirective(_ReleaseDirective):
    """No ``:metric:``: a coverage row shows NDR, PDR and the latency percentiles."""

    option_spec: ClassVar = {
        "source": directives.unchanged_required,
        "filter": directives.unchanged,
        "tests": directives.unchanged_required,
        "version": directives.unchanged_required,
        "loads": _words(LATENCY_LOADS),
        "directions": _words(LATENCY_DIRECTIONS),
    }

    def render(self) -> list[nodes.Node]:
        loaded = self.loaded_source()
        wanted = [
            *COVERAGE_RATES,
            *coverage_latencies(
                self.options.get("loads", LATENCY_LOADS),
                self.options.get("directions", LATENCY_DIRECTIONS),
            ),
        ]
        by_metric = {metric: self._histories(loaded, metric) for metric in wanted}
        versions = versions_of(history for found in by_metric.values() for history in found)
        if not versions:
            raise self.unusable(
                f"no test of source {loaded.source.name!r} measured NDR, PDR or latency "
                "with a DUT version and matches :tests: and :filter:",
                "data",
            )
        version = self.options.get("version", versions[-1])
        rows = coverage(by_metric, version)
        if not rows:
            raise self.unusable(
                f"no test of source {loaded.source.name!r} ran DUT version {version!r}; "
                f"versions in the data: {', '.join(versions)}",
                "data",
            )
        shown = [metric for metric in wanted if any(metric in row.values for row in rows)]
        table = coverage_table(rows, shown, version, loaded.source.name)
        return [table_node(table, loaded.source.name, ["trending-coverage"])]


class ReleasesDirective(_ReleaseDirective):
    option_spec: ClassVar = {
        **TrendingDirective.option_spec,
        "tests": directives.unchanged_required,
        "versions": directives.unchanged_required,
        "title": directives.unchanged,
    }

    def render(self) -> list[nodes.Node]:
        loaded = self.loaded_source()
        metric = self.metric(loaded)
        selected = self._histories(loaded, metric)
        wanted = self.regex_option("versions")
        versions = [
            version for version in versions_of(selected) if wanted is None or wanted.search(version)
        ]
        boxes = release_boxes(selected, versions)
        if not boxes:
            raise self.unusable(
                f"no test of source {loaded.source.name!r} measured {metric!r} in a DUT "
                "version matching :versions: and matches :tests: and :filter:",
                "data",
            )
        shown = [version for version in versions if any(box.version == version for box in boxes)]
        title = self.options.get("title", "")
        figure = releases_figure(boxes, shown, metric, title)
        tests = len({box.history.key for box in boxes})
        return [graph_node(self.env, script_json(figure), title=title, tests=tests, claims=[])]
