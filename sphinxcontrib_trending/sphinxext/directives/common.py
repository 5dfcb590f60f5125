"""What every trending directive shares: picking the source, options, tables."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

from sphinxcontrib_trending.analysis.degradation.strategies import Strategies
from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.normalisation import is_rate
from sphinxcontrib_trending.analysis.summary import TestTrend, TrendOptions
from sphinxcontrib_trending.analysis.tagfilter import FilterError, compile_filter
from sphinxcontrib_trending.engine.collector import collector_paused
from sphinxcontrib_trending.ingest.model import metrics_note
from sphinxcontrib_trending.ingest.telemetry import (
    PREFIX,
    differing_labels,
    matching_series,
    parse_label_matchers,
)
from sphinxcontrib_trending.judging import comparison_strategies, trend_options
from sphinxcontrib_trending.render.csv_export import table_csv
from sphinxcontrib_trending.render.table import Table
from sphinxcontrib_trending.settings import SAMPLE_MODES
from sphinxcontrib_trending.sphinxext.config import settings_of
from sphinxcontrib_trending.sphinxext.downloads import CSV_ATTRIBUTE
from sphinxcontrib_trending.sphinxext.env_records import note_source_use, note_whole_use
from sphinxcontrib_trending.sphinxext.process_memo import (
    LoadedSource,
    load_source,
    select,
    source_histories,
    telemetry_metrics,
    trends_for,
)
from sphinxcontrib_trending.sphinxext.table_nodes import table_data_node
from sphinxcontrib_trending.sphinxext.warnings import warn


class Unusable(Exception):
    """Raised after a warning when a directive cannot render anything sensible."""


class NoBuilds(Exception):
    """The source holds no build: the page says so instead of showing empty tables.

    Windows end at the newest build, so without one a table would say "up
    to 1970-01-01"; the source's loading already warned once, and the page
    reader learns why the section is empty.
    """

    def __init__(self, loaded: LoadedSource) -> None:
        super().__init__(loaded.source.name)
        self.loaded = loaded

    def note(self) -> nodes.paragraph:
        """Names in literals, so SmartQuotes leaves them as conf.py spells them."""
        name = self.loaded.source.name
        dataset = self.loaded.dataset
        if dataset.files or dataset.parsed:
            why = "its inputs hold no usable build"
        else:
            why = "its paths match no input file"
        key = f"trending_sources[{name!r}]"
        note = nodes.paragraph(classes=["trending-no-data"])
        note += nodes.Text("No data to show: source ")
        note += nodes.literal(name, name)
        note += nodes.Text(f" has no build, as {why} (see ")
        note += nodes.literal(key, key)
        note += nodes.Text(" in conf.py and the warnings of the build).")
        return note


def samples_option(argument: str) -> str:
    return directives.choice(argument, SAMPLE_MODES)


class TrendingDirective(SphinxDirective):
    """Base of the trending directives: ``:source:``, ``:filter:``, ``:metric:``, ``:samples:``."""

    has_content = False
    option_spec: ClassVar[dict[str, Callable[[str], object]]] = {
        "source": directives.unchanged_required,
        "filter": directives.unchanged,
        "metric": directives.unchanged_required,
        "labels": directives.unchanged_required,
        "samples": samples_option,
    }
    _series: str | None = None
    """The telemetry series ``:metric:`` and ``:labels:`` chose (see :meth:`metric`)."""
    shows_whole_source: ClassVar[bool] = True
    """Whether what the directive shows may change with any series or build of its
    source; a directive that shows only the series it picks records what it picks
    instead, so its page is read again only when one of those may have changed."""

    def warn(self, message: str, subtype: str) -> None:
        warn(f"{self.name}: {message}", subtype, location=self.get_location())

    def run(self) -> list[nodes.Node]:
        """Render, or warn and render nothing: one bad directive never stops a build.

        Rendering runs without the cycle collector: a page of thousands of
        graphs makes millions of short-lived objects, which reference
        counting frees, and the collections they triggered walked every
        object the build keeps for nothing.
        """
        try:
            with collector_paused():
                return self.render()
        except Unusable:
            return []
        except NoBuilds as empty:
            return [empty.note()]

    def render(self) -> list[nodes.Node]:
        raise NotImplementedError

    def unusable(self, message: str, subtype: str) -> Unusable:
        self.warn(message, subtype)
        return Unusable(message)

    def loaded_source(self) -> LoadedSource:
        """The source this directive reads, recorded as used by the page.

        A source without builds raises :class:`NoBuilds`, after it is
        recorded: the page is read again once the data appears.

        A page is read again when its sources' fingerprint changes (see
        ``_outdated_by_data``), which covers every input's size and time and
        a store's listing.  A ``note_dependency`` per input would add nothing
        but cost: thousands of paths per page in the pickled environment,
        each unpickled and stat-ed at the start of every build.
        """
        sources = settings_of(self.config).sources
        name = self.options.get("source")
        if name is None:
            if len(sources) != 1:
                known = ", ".join(sorted(sources)) or "none configured"
                raise self.unusable(
                    f":source: is required when there is not exactly one source ({known})",
                    "option",
                )
            name = next(iter(sources))
        if name not in sources:
            known = ", ".join(sorted(sources)) or "none configured in trending_sources"
            raise self.unusable(f"unknown source {name!r}; known sources: {known}", "option")
        loaded = load_source(self.env, name)
        note_source_use(self.env, self.env.docname, name, loaded.fingerprint, loaded.provenance)
        if self.shows_whole_source:
            note_whole_use(self.env, self.env.docname, name)
        settings = settings_of(self.config)
        for path in (settings.known_changes_path, settings.excluded_runs_path):
            if path is not None:
                self.env.note_dependency(str(path))
        if not loaded.dataset.builds:
            raise NoBuilds(loaded)
        return loaded

    def tag_filter(self) -> Callable[[tuple[str, ...]], bool] | None:
        """The compiled ``:filter:`` tag expression, or None when there is none."""
        expression = self.options.get("filter")
        if not expression:
            return None
        try:
            return compile_filter(expression)
        except FilterError as error:
            raise self.unusable(f"bad :filter: {expression!r}: {error}", "filter") from None

    def regex_option(self, option: str) -> re.Pattern[str] | None:
        """The compiled regular expression of ``:option:``, or None when it is not given."""
        pattern = self.options.get(option)
        if pattern is None:
            return None
        try:
            return re.compile(pattern)
        except re.error as error:
            raise self.unusable(
                f"bad :{option}: regular expression {pattern!r}: {error}", "option"
            ) from None

    def metric(self, loaded: LoadedSource) -> str:
        """The metric the directive shows; a telemetry name with ``:labels:``, the one
        series of the source they select."""
        written: str = self.options.get("metric", loaded.source.metric)
        if "labels" not in self.options and not written.startswith(PREFIX):
            return written
        if self._series is None:
            self._series = self._telemetry_series(loaded, written)
        return self._series

    def _telemetry_series(self, loaded: LoadedSource, written: str) -> str:
        """The one series of ``telemetry:<name>`` whose labels pass ``:labels:``.

        A series spelt whole in ``:metric:`` needs no ``:labels:``; several
        matches are refused, naming the labels that tell them apart, since
        a view shows one metric.
        """
        if not written.startswith(PREFIX):
            raise self.unusable(":labels: needs a telemetry :metric: (telemetry:<name>)", "option")
        try:
            matchers = parse_label_matchers(self.options.get("labels", ""))
        except ValueError as error:
            raise self.unusable(f"bad :labels:: {error}", "option") from None
        known = telemetry_metrics(loaded)
        if not matchers and written in known:
            return written
        found = matching_series(known, written, matchers)
        if len(found) == 1:
            return found[0]
        shown = " ".join(map(str, matchers)) or "(none)"
        if not found:
            named = matching_series(known, written, ())
            some = ", ".join(named[:5]) + (", ..." if len(named) > 5 else "")
            raise self.unusable(
                f"no telemetry series of source {loaded.source.name!r} is {written} with "
                f"labels {shown} (its series: {some or 'none'})",
                "data",
            )
        apart = "; ".join(
            f"{key}: {', '.join(values[:5])}{', ...' if len(values) > 5 else ''}"
            for key, values in differing_labels(found).items()
        )
        raise self.unusable(
            f"{len(found)} telemetry series of {written} match labels {shown}; "
            f"add :labels: to choose one (they differ in {apart})",
            "option",
        )

    def trend_options(self, loaded: LoadedSource) -> TrendOptions:
        return trend_options(
            settings_of(self.config),
            loaded.source,
            self.metric(loaded),
            samples=self.options.get("samples"),
        )

    def selected_histories(
        self, loaded: LoadedSource, tag_filter: Callable[[tuple[str, ...]], bool] | None
    ) -> list[TestHistory]:
        """The histories of the directive's metric that pass the filter; warns when none do."""
        metric = self.metric(loaded)
        selected = select(source_histories(loaded, metric), tag_filter)
        if not selected:
            self.warn(
                f"no test of source {loaded.source.name!r} has metric {metric!r} "
                f"and matches the filter ({metrics_note(loaded.dataset.builds)})",
                "data",
            )
        return selected

    def normalised(self, shown: Sequence[TestHistory]) -> str:
        """``normalised to 2 GHz`` when every shown value was scaled, else empty."""
        norm = settings_of(self.config).norm_frequency
        if norm is None or not shown or not all(h.unit and is_rate(h.unit) for h in shown):
            return ""
        if any(norm.factor(history.testbed) is None for history in shown):
            return ""
        return norm.label

    def strategies(self) -> Strategies:
        """The degradation rules of conf.py, or the ``:method:`` option's one method."""
        try:
            return comparison_strategies(
                settings_of(self.config), method=self.options.get("method")
            )
        except ValueError as error:
            raise self.unusable(f":method: {error}", "option") from None

    def trends(self, loaded: LoadedSource, selected: list[TestHistory]) -> list[TestTrend]:
        options = self.trend_options(loaded)
        return trends_for(loaded, selected, options, settings_of(self.config).known_changes)


def table_node(table: Table, source: str, classes: list[str]) -> nodes.container:
    """A trending table (:mod:`~sphinxcontrib_trending.sphinxext.table_nodes`) in its box.

    The box scrolls sideways in HTML when the table is wider than the page,
    so test names never have to wrap.  Data is shown as it is: SmartQuotes
    leaves its quotes alone, and control characters become visible.  The
    box carries the table as CSV, which the HTML builders turn into a
    download link (sphinxext/downloads.py).
    """
    box = nodes.container(classes=["trending-table-box"])
    box[CSV_ATTRIBUTE] = table_csv(table)
    box += table_data_node(table, source, ["trending-table", *classes])
    return box
