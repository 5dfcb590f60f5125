"""``.. trending-graph::``: interactive Plotly trend graphs."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.identity import SeriesTarget
from sphinxcontrib_trending.analysis.summary import TestTrend
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.conf.sources import Source
from sphinxcontrib_trending.engine.forked import map_forked
from sphinxcontrib_trending.ingest.dimensions import Dimensions
from sphinxcontrib_trending.ingest.model import metrics_note
from sphinxcontrib_trending.ingest.telemetry import PREFIX
from sphinxcontrib_trending.render.figure import X_AXES, script_json, series_label, trend_figure
from sphinxcontrib_trending.render.latency_curves import PERCENTILE_RUNS
from sphinxcontrib_trending.render.visible import visible
from sphinxcontrib_trending.sphinxext.directives.common import TrendingDirective
from sphinxcontrib_trending.sphinxext.env_records import (
    GraphSelection,
    claim_anchor,
    note_selection,
    note_whole_use,
)
from sphinxcontrib_trending.sphinxext.nodes import graph_node
from sphinxcontrib_trending.sphinxext.process_memo import (
    LoadedSource,
    page_workers,
    select,
    source_histories,
)

FORKED_FIGURES = 100
"""Figures a forked worker draws at a time: a page of at least two such batches
draws them on the processes a page may fork (:func:`.page_workers`)."""


def _heading(trend: TestTrend) -> str:
    return visible(series_label(trend.history))


class GraphDirective(TrendingDirective):
    option_spec: ClassVar = {
        **TrendingDirective.option_spec,
        "tests": directives.unchanged_required,
        "title": directives.unchanged,
        "per-test": directives.flag,
        "trials": directives.flag,
        "x-axis": lambda argument: directives.choice(argument, X_AXES),
        "percentile-runs": directives.nonnegative_int,
    }
    shows_whole_source = False

    def render(self) -> list[nodes.Node]:
        loaded = self.loaded_source()
        self._note_selection(loaded)
        tag_filter = self.tag_filter()
        metric = self.metric(loaded)
        selected = select(source_histories(loaded, metric), tag_filter, self.regex_option("tests"))
        if not selected:
            raise self.unusable(
                f"no test of source {loaded.source.name!r} with metric {metric!r} "
                f"matches :tests: and :filter: ({metrics_note(loaded.dataset.builds)})",
                "data",
            )
        trends = self.trends(loaded, selected)
        title = self.options.get("title", "")
        if "per-test" in self.options:
            figures = self._figures([[trend] for trend in trends], loaded.source, "")
            return [
                node
                for trend, figure in zip(trends, figures, strict=True)
                for node in self._graph([trend], figure, loaded.source, heading=_heading(trend))
            ]
        (figure,) = self._figures([trends], loaded.source, title)
        return self._graph(trends, figure, loaded.source, title=title)

    def _figures(self, graphs: list[list[TestTrend]], source: Source, title: str) -> list[str]:
        """Each graph's figure as the page's script holds it.

        Drawing is most of a page of per-test graphs; a page of thousands
        draws them on forked workers, which inherit the analyses (nothing
        is sent to them but which batch to draw).
        """
        drawing = _Drawing(
            title,
            "trials" in self.options,
            self.options.get("x-axis", "time"),
            source.links,
            self.options.get("percentile-runs", PERCENTILE_RUNS),
        )
        jobs = [(trends, self.normalised([trend.history for trend in trends])) for trends in graphs]
        batches = [
            functools.partial(drawing.figures, jobs[start : start + FORKED_FIGURES])
            for start in range(0, len(jobs), FORKED_FIGURES)
        ]
        drawn = map_forked(_called, batches, page_workers() or 1)
        return [figure for batch in drawn for figure in batch]

    def _note_selection(self, loaded: LoadedSource) -> None:
        """What the graph picks, as written, before anything can refuse it.

        A graph of a telemetry series (``:labels:`` choose one among many)
        counts as showing the whole source: the page is read again whenever
        its data changes, as every other directive's is.
        """
        metric = self.options.get("metric", loaded.source.metric)
        name, docname = loaded.source.name, self.env.docname
        if "labels" in self.options or metric.startswith(PREFIX):
            note_whole_use(self.env, docname, name)
            return
        selection = GraphSelection(metric, self.options.get("tests"), self.options.get("filter"))
        note_selection(self.env, docname, name, selection)

    def _graph(
        self,
        trends: list[TestTrend],
        figure: str,
        source: Source,
        title: str = "",
        heading: str = "",
    ) -> list[nodes.Node]:
        """An optional heading, then the graph; anchors are settled when all pages are read."""
        claims = []
        for trend in trends:
            target = SeriesTarget(source.name, trend.history.ref)
            if claim_anchor(self.env, target, self.lineno, *_search_text(trend.history)):
                claims.append(target)
        graph = graph_node(
            self.env,
            figure,
            title=title or heading,
            tests=len(trends),
            claims=claims,
        )
        if not heading:
            return [graph]
        graph["heading"] = True
        rubric = nodes.rubric(
            heading, heading, classes=["trending-graph-heading"], support_smartquotes=False
        )
        return [rubric, graph]


@dataclass(frozen=True)
class _Drawing:
    """A directive's options for each of its graphs' figures."""

    title: str
    trials: bool
    x_axis: str
    links: LinkTemplates
    percentile_runs: int

    def figures(self, jobs: Sequence[tuple[list[TestTrend], str]]) -> list[str]:
        """The figure of each (trends, ``normalised`` note) of ``jobs``."""
        return [
            script_json(
                trend_figure(
                    trends,
                    self.title,
                    normalised,
                    trials=self.trials,
                    x_axis=self.x_axis,
                    links=self.links,
                    percentile_runs=self.percentile_runs,
                )
            )
            for trends, normalised in jobs
        ]


def _called(batch: Callable[[], list[str]]) -> list[str]:
    """A batch's figures; the batch is inherited by the forked worker, not sent to it."""
    return batch()


def _search_text(history: TestHistory) -> tuple[str, str]:
    """What the site's search box lists and matches: the name, then where it ran."""
    labels = _labels(history.dimensions)
    if history.testbed and history.dimensions.testbed is None:
        labels = (f"testbed={history.testbed}", *labels)
    return history.display_name, " ".join(labels)


@functools.lru_cache(maxsize=4096)
def _labels(dimensions: Dimensions) -> tuple[str, ...]:
    """The labels of a series' dimensions, made once for all series that share them.

    Graph pages show thousands of series with a few hundred dimensions
    between them, and making the labels (a deep copy of the dimensions)
    cost each graph more than claiming its anchor.
    """
    return dimensions.labels()
