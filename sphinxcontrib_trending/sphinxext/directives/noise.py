"""``.. trending-noise::``: tests ranked by how far their numbers can be trusted."""

from __future__ import annotations

from datetime import timedelta
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinxcontrib_trending.analysis.noise import NOISE_ORDERS, measure
from sphinxcontrib_trending.render.noise import noise_tables
from sphinxcontrib_trending.sphinxext.config import settings_of
from sphinxcontrib_trending.sphinxext.directives.common import TrendingDirective, table_node
from sphinxcontrib_trending.sphinxext.directives.failed import positive_days


def order_option(argument: str) -> str:
    return directives.choice(argument, NOISE_ORDERS)


class NoiseDirective(TrendingDirective):
    option_spec: ClassVar = {
        **TrendingDirective.option_spec,
        "window": positive_days,
        "sort-by": order_option,
    }

    def render(self) -> list[nodes.Node]:
        loaded = self.loaded_source()
        selected = self.selected_histories(loaded, self.tag_filter())
        if not selected:
            return []
        window = settings_of(self.config).windows.long
        if "window" in self.options:
            window = timedelta(days=self.options["window"])
        options = self.trend_options(loaded)
        noises = [
            measure(trend, loaded.end, window, options) for trend in self.trends(loaded, selected)
        ]
        return [
            table_node(table, loaded.source.name, ["trending-noise"])
            for table in noise_tables(noises, self.options.get("sort-by", "noise"))
        ]
