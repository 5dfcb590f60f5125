"""``.. trending-job-stats::``: per job, its builds' test outcomes and durations."""

from __future__ import annotations

from datetime import timedelta
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinxcontrib_trending.analysis.job_stats import JobStats, job_stats
from sphinxcontrib_trending.render.job_stats import job_figure, job_table, summary
from sphinxcontrib_trending.render.script_data import script_json
from sphinxcontrib_trending.sphinxext.config import settings_of
from sphinxcontrib_trending.sphinxext.directives.common import TrendingDirective, table_node
from sphinxcontrib_trending.sphinxext.directives.failed import positive_days
from sphinxcontrib_trending.sphinxext.directives.per_build import accepting
from sphinxcontrib_trending.sphinxext.nodes import graph_node, trending_graph


class JobStatsDirective(TrendingDirective):
    """No ``:metric:`` or ``:samples:``: outcomes and durations are the same for every metric."""

    option_spec: ClassVar = {
        "source": directives.unchanged_required,
        "filter": directives.unchanged,
        "window": positive_days,
        "jobs": directives.unchanged_required,
    }

    def render(self) -> list[nodes.Node]:
        jobs = self.regex_option("jobs")
        loaded = self.loaded_source()
        window = settings_of(self.config).windows.long
        if "window" in self.options:
            window = timedelta(days=self.options["window"])
        stats = job_stats(
            loaded.dataset.builds,
            loaded.end - window,
            accept=accepting(self.tag_filter()),
        )
        stats = [job for job in stats if jobs is None or jobs.search(job.job)]
        if not stats:
            days = window / timedelta(days=1)
            raise self.unusable(
                f"no build of source {loaded.source.name!r} in the {days:g} days up to "
                f"{loaded.end:%Y-%m-%d %H:%M} matches :jobs: and :filter:",
                "data",
            )
        output: list[nodes.Node] = []
        for job in stats:
            output.append(self._graph(job))
            output.append(table_node(job_table(job), loaded.source.name, ["trending-job-stats"]))
        return output

    def _graph(self, job: JobStats) -> trending_graph:
        newest = job.builds[-1]
        return graph_node(
            self.env,
            script_json(job_figure(job)),
            title=f"{job.job}: {summary(job)}",
            tests=newest.tests,
            claims=[],
        )
