"""``.. trending-news::``: new failures, regressions and progressions per period.

A period where several tests' news started at one build or DUT version
opens with its incidents (see :mod:`.incidents`); every item is then listed
per testbed.  Where no news is shared, the incidents would only repeat the
tables, so they are left out.
"""

from __future__ import annotations

from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinxcontrib_trending.analysis.incident_sources import from_news
from sphinxcontrib_trending.analysis.incidents import incidents
from sphinxcontrib_trending.analysis.news import DEFAULT_PERIODS, news, parse_periods
from sphinxcontrib_trending.render.news import feed_entries, news_tables, period_label
from sphinxcontrib_trending.sphinxext.directives.common import TrendingDirective, table_node
from sphinxcontrib_trending.sphinxext.directives.incidents import incident_nodes
from sphinxcontrib_trending.sphinxext.feeds import feed_node


class NewsDirective(TrendingDirective):
    option_spec: ClassVar = {
        **TrendingDirective.option_spec,
        "periods": directives.unchanged_required,
    }

    def _periods(self) -> tuple[int, ...]:
        if "periods" not in self.options:
            return DEFAULT_PERIODS
        try:
            return parse_periods(self.options["periods"])
        except ValueError as error:
            raise self.unusable(f":periods: {error}", "option") from None

    def render(self) -> list[nodes.Node]:
        periods = self._periods()
        loaded = self.loaded_source()
        selected = self.selected_histories(loaded, self.tag_filter())
        if not selected:
            return []
        trends = self.trends(loaded, selected)
        output: list[nodes.Node] = []
        name = loaded.source.name
        for days in periods:
            items = news(trends, loaded.end, days)
            found = incidents(from_news(items, name))
            if any(len(incident.members) > 1 for incident in found):
                caption = f"Incidents, {period_label(days).lower()}"
                output.extend(incident_nodes(found, name, loaded.source.links, caption))
            tables = news_tables(items, days, loaded.source.links)
            if not tables:
                text = f"{period_label(days)}: nothing new."
                output.append(nodes.paragraph(text, text, classes=["trending-news"]))
            output.extend(
                table_node(table, loaded.source.name, ["trending-news"]) for table in tables
            )
        # The longest period's news holds every shorter one's: one entry per event.
        entries = feed_entries(news(trends, loaded.end, max(periods)), loaded.source.name)
        output.append(feed_node(loaded.source.name, entries, loaded.end))
        return output
