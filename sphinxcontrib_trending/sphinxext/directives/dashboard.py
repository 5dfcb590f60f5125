"""``.. trending-dashboard::``: trend, compliance and anomaly counts per test."""

from __future__ import annotations

from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinxcontrib_trending.render.dashboard import dashboard_tables
from sphinxcontrib_trending.render.grouping import GroupByError, parse_group_by
from sphinxcontrib_trending.sphinxext.directives.common import TrendingDirective, table_node

DEFAULT_GROUP_BY = "testbed, cores"


class DashboardDirective(TrendingDirective):
    option_spec: ClassVar = {
        **TrendingDirective.option_spec,
        "group-by": directives.unchanged,
    }

    def render(self) -> list[nodes.Node]:
        loaded = self.loaded_source()
        tag_filter = self.tag_filter()
        try:
            group_by = parse_group_by(self.options.get("group-by", DEFAULT_GROUP_BY))
        except GroupByError as error:
            raise self.unusable(str(error), "option") from None
        selected = self.selected_histories(loaded, tag_filter)
        if not selected:
            return []
        trends = self.trends(loaded, selected)
        return [
            table_node(table, loaded.source.name, ["trending-dashboard", "trending-changes"])
            for table in dashboard_tables(
                trends, group_by, self.normalised(selected), loaded.source.links
            )
        ]
