"""``.. trending-graph::``: interactive Plotly trend graphs."""

from __future__ import annotations

import functools
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.identity import SeriesTarget
from sphinxcontrib_trending.analysis.summary import TestTrend
from sphinxcontrib_trending.conf.sources import Source
from sphinxcontrib_trending.ingest.dimensions import Dimensions
from sphinxcontrib_trending.ingest.model import metrics_note
from sphinxcontrib_trending.ingest.telemetry import PREFIX
from sphinxcontrib_trending.render.figure import X_AXES, series_label, trend_figure
from sphinxcontrib_trending.render.latency_curves import PERCENTILE_RUNS
from sphinxcontrib_trending.render.script_data import script_bytes
from sphinxcontrib_trending.render.visible import visible
from sphinxcontrib_trending.sphinxext.directives.common import TrendingDirective
from sphinxcontrib_trending.sphinxext.env_records import (
    GraphSelection,
    claim_anchor,
    note_selection,
    note_whole_use,
)
from sphinxcontrib_trending.sphinxext.figure_files import data_files, page_runs
from sphinxcontrib_trending.sphinxext.figure_workers import Drawing, per_test_figures
from sphinxcontrib_trending.sphinxext.nodes import (
    GraphEntry,
    graph_entry,
    graph_group,
    new_graph_id,
    single_graph,
)
from sphinxcontrib_trending.sphinxext.process_memo import (
    LoadedSource,
    select,
    source_histories,
)


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
            return [graph_group(self._per_test(trends, loaded.source))]
        return [single_graph(self._graph(trends, loaded.source, title))]

    def _per_test(self, trends: list[TestTrend], source: Source) -> list[GraphEntry]:
        """A graph per test, each test named above it (drawn on the build's workers, see
        :mod:`~.figure_workers`)."""
        drawing = Drawing(
            trials="trials" in self.options,
            x_axis=self.options.get("x-axis", "time"),
            links=source.links,
            percentile_runs=self.options.get("percentile-runs", PERCENTILE_RUNS),
        )
        notes = [self.normalised([trend.history]) for trend in trends]
        ids = [new_graph_id(self.env) for _ in trends]
        files = data_files(self.env)
        figures = per_test_figures(trends, notes, page_runs(self.env), drawing, ids, files)
        return [
            self._entry([trend], source, figure, heading=_heading(trend), graph_id=graph_id)
            for trend, figure, graph_id in zip(trends, figures, ids, strict=True)
        ]

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

    def _graph(self, trends: list[TestTrend], source: Source, title: str) -> GraphEntry:
        """One graph of every trend, under ``title``."""
        figure = trend_figure(
            trends,
            title,
            self.normalised([trend.history for trend in trends]),
            trials="trials" in self.options,
            x_axis=self.options.get("x-axis", "time"),
            links=source.links,
            percentile_runs=self.options.get("percentile-runs", PERCENTILE_RUNS),
            shared_layout=True,  # only encoded, below
            page_runs=page_runs(self.env),  # what the page's figures share, sent once
        )
        return self._entry(trends, source, script_bytes(figure), title=title)

    def _entry(
        self,
        trends: list[TestTrend],
        source: Source,
        figure: bytes | None,
        title: str = "",
        heading: str = "",
        graph_id: str | None = None,
    ) -> GraphEntry:
        """The graph of ``figure`` (script bytes naming the page's table, or None if it
        was written as graph ``graph_id``'s data file), and the test it shows named above
        it if ``heading`` is given.

        Anchors are settled when all pages are read.
        """
        claims = []
        for trend in trends:
            target = SeriesTarget(source.name, trend.history.ref)
            if claim_anchor(self.env, target, self.lineno, *_search_text(trend.history)):
                claims.append(target)
        return graph_entry(
            self.env,
            figure,
            title=title or heading,
            tests=len(trends),
            claims=claims,
            heading=heading,
            shares_table=True,
            graph_id=graph_id,
        )


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
