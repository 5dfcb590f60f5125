"""``.. trending-comparison::``: two periods or releases side by side."""

from __future__ import annotations

from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinxcontrib_trending.analysis.build_selection import UnknownBuild
from sphinxcontrib_trending.analysis.comparison import (
    Period,
    PeriodError,
    compare_periods,
    default_periods,
    larger_than,
    parse_period,
    worst_first,
)
from sphinxcontrib_trending.ingest.dimensions import rules_for
from sphinxcontrib_trending.render.comparison import comparison_table
from sphinxcontrib_trending.sphinxext.directives.common import TrendingDirective, table_node
from sphinxcontrib_trending.sphinxext.process_memo import LoadedSource


def _percent(argument: str) -> float:
    value = float(directives.unchanged_required(argument).rstrip("% "))
    if value < 0:
        raise ValueError("the threshold must not be negative")
    return value


class ComparisonDirective(TrendingDirective):
    option_spec: ClassVar = {
        **TrendingDirective.option_spec,
        "a": directives.unchanged_required,
        "b": directives.unchanged_required,
        "method": directives.unchanged_required,
        "min-change": _percent,
    }

    def _deprecated(self, message: str) -> None:
        self.warn(message, "option")

    def _periods(self, loaded: LoadedSource) -> tuple[Period, Period]:
        builds = loaded.dataset.builds
        given = [name for name in ("a", "b") if name in self.options]
        if not given:
            return default_periods(builds)
        if len(given) == 1:
            raise self.unusable("give both :a: and :b:, or neither", "option")
        periods = []
        for name in ("a", "b"):
            try:
                periods.append(parse_period(builds, self.options[name], self._deprecated))
            except (PeriodError, UnknownBuild) as error:
                raise self.unusable(f":{name}: {error}", "option") from None
        return periods[0], periods[1]

    def render(self) -> list[nodes.Node]:
        loaded = self.loaded_source()
        tag_filter = self.tag_filter()
        strategies = self.strategies()
        a, b = self._periods(loaded)
        for name, period in (("a", a), ("b", b)):
            if not period.builds:
                self.warn(f"period {name.upper()} ({period.label or 'empty'}) has no build", "data")
        direction = loaded.source.direction_for(self.metric(loaded))
        rows = compare_periods(
            a,
            b,
            metric=self.metric(loaded),
            source=loaded.source.name,
            direction=direction,
            strategies=strategies,
            accept=(lambda test: tag_filter(test.tags)) if tag_filter else None,
            samples=self.trend_options(loaded).samples,
            rules=rules_for(loaded.source.spec.dimensions),
        )
        if "min-change" in self.options:
            rows = larger_than(rows, self.options["min-change"] / 100)
        table = comparison_table(worst_first(rows, direction), a, b, self._unit(loaded))
        if not table.rows:
            text = f"{table.caption}: no test to compare."
            return [nodes.paragraph(text, text, classes=["trending-comparison"])]
        return [table_node(table, loaded.source.name, ["trending-comparison", "trending-changes"])]

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
