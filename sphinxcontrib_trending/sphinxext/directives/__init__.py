"""The reST directives; each one only renders what ingest and analysis computed.

The directives bring the data stack with them (loading, grouping,
rendering: numpy, pyarrow and most of this package), and most builds of a
site read no page.  So they are registered when the first page is read
(``source-read``, in whichever process reads it), not when the extension
is set up: a build that finds nothing changed never imports them.  Their
tables' nodes are registered at once, as a page written again without
being read still holds them.
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.util.docutils import is_directive_registered

FIRST = "trending-dashboard"
"""A directive registered with all the others: if it is there, they all are."""


def register(app: Sphinx) -> None:
    from sphinxcontrib_trending.sphinxext import table_nodes

    table_nodes.register(app)  # the tables every directive but the graph's makes
    app.connect("source-read", _register_directives)


def _register_directives(app: Sphinx, docname: str, source: list[str]) -> None:
    """Once per process and build: Sphinx forgets registered directives when a build ends."""
    if is_directive_registered(FIRST):
        return
    from sphinxcontrib_trending.sphinxext.directives.comparison import ComparisonDirective
    from sphinxcontrib_trending.sphinxext.directives.dashboard import DashboardDirective
    from sphinxcontrib_trending.sphinxext.directives.degradation import DegradationDirective
    from sphinxcontrib_trending.sphinxext.directives.failed import FailedTestsDirective
    from sphinxcontrib_trending.sphinxext.directives.graph import GraphDirective
    from sphinxcontrib_trending.sphinxext.directives.incidents import IncidentsDirective
    from sphinxcontrib_trending.sphinxext.directives.job_stats import JobStatsDirective
    from sphinxcontrib_trending.sphinxext.directives.news import NewsDirective
    from sphinxcontrib_trending.sphinxext.directives.noise import NoiseDirective
    from sphinxcontrib_trending.sphinxext.directives.releases import (
        CoverageDirective,
        ReleasesDirective,
    )

    app.add_directive(FIRST, DashboardDirective)
    app.add_directive("trending-failed-tests", FailedTestsDirective)
    app.add_directive("trending-graph", GraphDirective)
    app.add_directive("trending-degradation", DegradationDirective)
    app.add_directive("trending-comparison", ComparisonDirective)
    app.add_directive("trending-news", NewsDirective)
    app.add_directive("trending-incidents", IncidentsDirective)
    app.add_directive("trending-job-stats", JobStatsDirective)
    app.add_directive("trending-noise", NoiseDirective)
    app.add_directive("trending-coverage", CoverageDirective)
    app.add_directive("trending-releases", ReleasesDirective)
