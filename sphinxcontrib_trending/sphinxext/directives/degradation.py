"""``.. trending-degradation::``: a target build against its baselines."""

from __future__ import annotations

from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinxcontrib_trending.analysis.build_selection import UnknownBuild, find_build, newest_builds
from sphinxcontrib_trending.analysis.degradation.builds import BaselineChoice, compare_builds
from sphinxcontrib_trending.ingest.dimensions import rules_for
from sphinxcontrib_trending.ingest.model import Build
from sphinxcontrib_trending.render.degradation import degradation_table
from sphinxcontrib_trending.reports.degradation import target_records
from sphinxcontrib_trending.sphinxext.directives.common import TrendingDirective, table_node
from sphinxcontrib_trending.sphinxext.process_memo import LoadedSource


class DegradationDirective(TrendingDirective):
    option_spec: ClassVar = {
        **TrendingDirective.option_spec,
        "target": directives.unchanged_required,
        "baseline": directives.unchanged_required,
        "baseline-version": directives.unchanged_required,
        "method": directives.unchanged_required,
        "show-no-change": directives.flag,
    }

    def _deprecated(self, message: str) -> None:
        self.warn(message, "option")

    def _targets(self, loaded: LoadedSource) -> list[Build]:
        """The named target, else the newest build of every job."""
        builds = loaded.dataset.builds
        if "target" not in self.options:
            return newest_builds(builds)
        try:
            return [find_build(builds, self.options["target"], self._deprecated)]
        except UnknownBuild as error:
            raise self.unusable(f":target: {error}", "option") from None

    def render(self) -> list[nodes.Node]:
        loaded = self.loaded_source()
        tag_filter = self.tag_filter()
        strategies = self.strategies()
        choice = BaselineChoice(
            build=self.options.get("baseline"), dut_version=self.options.get("baseline-version")
        )
        if choice.build and choice.dut_version:
            raise self.unusable("give :baseline: or :baseline-version:, not both", "option")
        result: list[nodes.Node] = []
        for target in self._targets(loaded):
            try:
                comparison = compare_builds(
                    loaded.dataset.builds,
                    target,
                    metric=self.metric(loaded),
                    source=loaded.source.name,
                    direction=loaded.source.direction_for(self.metric(loaded)),
                    strategies=strategies,
                    choice=choice,
                    accept=(lambda test: tag_filter(test.tags)) if tag_filter else None,
                    deprecated=self._deprecated,
                    rules=rules_for(loaded.source.spec.dimensions),
                )
            except UnknownBuild as error:
                raise self.unusable(f":baseline: {error}", "option") from None
            unit = loaded.source.spec.unit or _unit_of(target, self.metric(loaded))
            records = target_records(comparison)
            table = degradation_table(records, unit, no_change="show-no-change" in self.options)
            if not table.rows:
                text = f"{table.caption}: No Change in all {len(records.records)} comparisons."
                result.append(nodes.paragraph(text, text, classes=["trending-degradation"]))
                continue
            result.append(
                table_node(table, loaded.source.name, ["trending-degradation", "trending-changes"])
            )
        return result


def _unit_of(build: Build, metric: str) -> str | None:
    for test in build.tests:
        measurement = test.measurement(metric)
        if measurement is not None:
            return measurement.unit
    return None
