"""``.. trending-incidents::``: the changes many tests share, each with its tests folded.

An incident (see :mod:`~sphinxcontrib_trending.analysis.incidents`) is one
row of an overview table; below it, each incident's member tests are a
table inside an HTML ``<details>`` element whose summary is the incident's
headline, closed until clicked.  Other builders (LaTeX, text) show the
member tables open, captioned by the same headline.
"""

from __future__ import annotations

import html
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinxcontrib_trending.analysis.incident_sources import from_news
from sphinxcontrib_trending.analysis.incidents import Incident, incidents
from sphinxcontrib_trending.analysis.news import news
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.render.incidents import incidents_table, members_table
from sphinxcontrib_trending.render.news import period_label
from sphinxcontrib_trending.reports.incidents import headline
from sphinxcontrib_trending.sphinxext.directives.common import TrendingDirective, table_node

DEFAULT_DAYS = 30
"""The period an incident's first bad run must fall in, as ``sphinx-trending incidents``'s."""


def incident_nodes(
    found: list[Incident], source: str, links: LinkTemplates, caption: str
) -> list[nodes.Node]:
    """The overview table, then each incident's members folded under its headline."""
    output: list[nodes.Node] = [
        table_node(incidents_table(found, links, caption), source, ["trending-incidents"])
    ]
    for incident in found:
        summary = html.escape(headline(incident))
        output.append(
            nodes.raw(
                "",
                f'<details class="trending-incident trending-{incident.kind}">'
                f"<summary>{summary}</summary>",
                format="html",
            )
        )
        output.append(
            table_node(members_table(incident, links), source, ["trending-incident-members"])
        )
        output.append(nodes.raw("", "</details>", format="html"))
    return output


class IncidentsDirective(TrendingDirective):
    option_spec: ClassVar = {
        **TrendingDirective.option_spec,
        "days": directives.positive_int,
    }

    def render(self) -> list[nodes.Node]:
        days = self.options.get("days", DEFAULT_DAYS)
        loaded = self.loaded_source()
        selected = self.selected_histories(loaded, self.tag_filter())
        if not selected:
            return []
        trends = self.trends(loaded, selected)
        name = loaded.source.name
        found = incidents(from_news(news(trends, loaded.end, days), name))
        caption = f"Incidents, {period_label(days).lower()}"
        if not found:
            text = f"{period_label(days)}: no incident."
            return [nodes.paragraph(text, text, classes=["trending-incidents"])]
        return incident_nodes(found, name, loaded.source.links, caption)
