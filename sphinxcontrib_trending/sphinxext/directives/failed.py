"""``.. trending-failed-tests::``: tests that failed within the window, or per newest build."""

from __future__ import annotations

from datetime import timedelta
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinxcontrib_trending.ingest.dimensions import rules_for
from sphinxcontrib_trending.render.failed import failed_tables
from sphinxcontrib_trending.sphinxext.config import settings_of
from sphinxcontrib_trending.sphinxext.directives.common import TrendingDirective, table_node
from sphinxcontrib_trending.sphinxext.directives.per_build import per_build_nodes

MODES = ("window", "per-build")


def positive_days(argument: str) -> float:
    days = float(directives.unchanged_required(argument))
    if days <= 0:
        raise ValueError("the window is a positive number of days")
    return days


def mode_option(argument: str) -> str:
    return directives.choice(argument, MODES)


class FailedTestsDirective(TrendingDirective):
    option_spec: ClassVar = {
        **TrendingDirective.option_spec,
        "window": positive_days,
        "mode": mode_option,
    }

    def render(self) -> list[nodes.Node]:
        if self.options.get("mode") == "per-build":
            return per_build_nodes(self)
        loaded = self.loaded_source()
        tag_filter = self.tag_filter()
        window = settings_of(self.config).windows.failed
        if "window" in self.options:
            window = timedelta(days=self.options["window"])
        since = loaded.end - window
        tables = failed_tables(
            loaded.dataset.builds,
            since,
            metric=self.metric(loaded),
            accept=(
                (lambda test, dimensions: tag_filter(test.tags + dimensions.labels()))
                if tag_filter
                else None
            ),
            rules=rules_for(loaded.source.spec.dimensions),
            links=loaded.source.links,
        )
        if not tables:
            days = window / timedelta(days=1)
            text = f"No test failed in the {days:g} days up to {loaded.end:%Y-%m-%d %H:%M}."
            return [nodes.paragraph(text, text, classes=["trending-no-failures"])]
        return [
            table_node(table, loaded.source.name, ["trending-failed-tests"]) for table in tables
        ]
