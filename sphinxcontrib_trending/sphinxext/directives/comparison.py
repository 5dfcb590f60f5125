"""``.. trending-comparison::``: two periods, releases or values of a dimension side by side."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinxcontrib_trending.analysis.build_selection import UnknownBuild
from sphinxcontrib_trending.analysis.comparison import (
    ComparisonRow,
    Judging,
    Period,
    PeriodError,
    compare_periods,
    default_periods,
    larger_than,
    parse_period,
    worst_first,
)
from sphinxcontrib_trending.analysis.dimension_comparison import COMPARABLE, compare_dimension
from sphinxcontrib_trending.ingest.dimensions import normalise_dimension, rules_for
from sphinxcontrib_trending.ingest.model import Build
from sphinxcontrib_trending.render.comparison import comparison_table, samples_table
from sphinxcontrib_trending.render.csv_export import table_csv
from sphinxcontrib_trending.sphinxext.directives.common import TrendingDirective, table_node
from sphinxcontrib_trending.sphinxext.downloads import SAMPLES_ATTRIBUTE
from sphinxcontrib_trending.sphinxext.process_memo import LoadedSource


def _percent(argument: str) -> float:
    value = float(directives.unchanged_required(argument).rstrip("% "))
    if value < 0:
        raise ValueError("the threshold must not be negative")
    return value


def _compared(argument: str) -> str:
    return directives.choice(normalise_dimension(argument), (*COMPARABLE, "version"))


class ComparisonDirective(TrendingDirective):
    option_spec: ClassVar = {
        **TrendingDirective.option_spec,
        "a": directives.unchanged_required,
        "b": directives.unchanged_required,
        "method": directives.unchanged_required,
        "min-change": _percent,
        "compare": _compared,
        "period": directives.unchanged_required,
    }

    def _deprecated(self, message: str) -> None:
        self.warn(message, "option")

    def _period(self, builds: Sequence[Build], name: str, spec: str) -> Period:
        try:
            return parse_period(builds, spec, self._deprecated)
        except (PeriodError, UnknownBuild) as error:
            raise self.unusable(f":{name}: {error}", "option") from None

    def _periods(self, loaded: LoadedSource) -> tuple[Period, Period]:
        builds = loaded.dataset.builds
        given = [name for name in ("a", "b") if name in self.options]
        if not given:
            return default_periods(builds)
        if len(given) == 1:
            raise self.unusable("give both :a: and :b:, or neither", "option")
        if self.options.get("compare") == "version":
            return (
                self._period(builds, "a", f"version {self.options['a']}"),
                self._period(builds, "b", f"version {self.options['b']}"),
            )
        return (
            self._period(builds, "a", self.options["a"]),
            self._period(builds, "b", self.options["b"]),
        )

    def render(self) -> list[nodes.Node]:
        loaded = self.loaded_source()
        compared = self.options.get("compare")
        if compared not in (None, "version"):
            return self._along(loaded, compared)
        if "period" in self.options:
            raise self.unusable(":period: goes with :compare: of a dimension", "option")
        a, b = self._periods(loaded)
        for name, period in (("a", a), ("b", b)):
            if not period.builds:
                self.warn(f"period {name.upper()} ({period.label or 'empty'}) has no build", "data")
        judging = self._judging(loaded)
        rows = compare_periods(a, b, judging, rules_for(loaded.source.spec.dimensions))
        return self._table(loaded, rows, a, b, judging.direction)

    def _along(self, loaded: LoadedSource, dimension: str) -> list[nodes.Node]:
        """Two values of ``dimension`` in one period (``:period:``, default the last week)."""
        if "a" not in self.options or "b" not in self.options:
            raise self.unusable(
                f":compare: {dimension} needs the two values, :a: and :b:", "option"
            )
        builds = loaded.dataset.builds
        period = (
            self._period(builds, "period", self.options["period"])
            if "period" in self.options
            else default_periods(builds)[1]
        )
        if not period.builds:
            self.warn(f"period {period.label or 'empty'} has no build", "data")
        judging = self._judging(loaded)
        rows = compare_dimension(
            period,
            dimension,
            self.options["a"],
            self.options["b"],
            rules_for(loaded.source.spec.dimensions),
            judging,
        )
        a, b = (
            Period(f"{dimension} {self.options[side]}, {period.label}", period.builds)
            for side in ("a", "b")
        )
        return self._table(loaded, rows, a, b, judging.direction)

    def _judging(self, loaded: LoadedSource) -> Judging:
        """What every comparison's verdicts are made with, from the page's options."""
        tag_filter = self.tag_filter()
        metric = self.metric(loaded)
        return Judging(
            metric=metric,
            source=loaded.source.name,
            direction=loaded.source.direction_for(metric),
            strategies=self.strategies(),
            accept=(lambda test: tag_filter(test.tags)) if tag_filter else None,
            samples=self.trend_options(loaded).samples,
        )

    def _table(
        self,
        loaded: LoadedSource,
        rows: list[ComparisonRow],
        a: Period,
        b: Period,
        direction: str,
    ) -> list[nodes.Node]:
        if "min-change" in self.options:
            rows = larger_than(rows, self.options["min-change"] / 100)
        ordered = worst_first(rows, direction)
        unit = self._unit(loaded)
        table = comparison_table(ordered, a, b, unit)
        if not table.rows:
            text = f"{table.caption}: no test to compare."
            return [nodes.paragraph(text, text, classes=["trending-comparison"])]
        box = table_node(table, loaded.source.name, ["trending-comparison", "trending-changes"])
        box[SAMPLES_ATTRIBUTE] = table_csv(samples_table(ordered, unit))
        return [box]

    def _unit(self, loaded: LoadedSource) -> str | None:
        if loaded.source.spec.unit:
            return loaded.source.spec.unit
        metric = self.metric(loaded)
        for build in reversed(loaded.dataset.builds):
            for test in build.tests:
                measurement = test.measurement(metric)
                if measurement is not None:
                    return measurement.unit
        return None
