"""The reST directives; each one only renders what ingest and analysis computed."""

from __future__ import annotations

from sphinx.application import Sphinx


def register(app: Sphinx) -> None:
    from sphinxcontrib_trending.sphinxext import table_nodes
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

    table_nodes.register(app)  # the tables every directive but the graph's makes
    app.add_directive("trending-dashboard", DashboardDirective)
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
