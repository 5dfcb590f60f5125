"""Per-build failure tables: the newest build of each job, how it went and why tests failed."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sphinxcontrib_trending.analysis.build_selection import build_name, newest_builds
from sphinxcontrib_trending.analysis.failures import failure_groups
from sphinxcontrib_trending.analysis.history import history_key
from sphinxcontrib_trending.analysis.identity import SeriesRef
from sphinxcontrib_trending.analysis.job_stats import build_stats
from sphinxcontrib_trending.analysis.masking import mask
from sphinxcontrib_trending.ingest.dimensions import DimensionRules
from sphinxcontrib_trending.ingest.model import Build, TestResult
from sphinxcontrib_trending.render.job_stats import format_duration
from sphinxcontrib_trending.render.table import LABEL, NUMBER, TEXT, Row, Table

PER_BUILD_HEADER = ("Test Case", "Same failure [#]", "Message")
MESSAGE_COLUMN = PER_BUILD_HEADER.index("Message")
"""The column the Sphinx layer folds where a message is long."""


def _outcome(build: Build, accept: Callable[[TestResult], bool] | None) -> str:
    stats = build_stats(build, accept)
    parts = [f"{stats.passed} passed", f"{stats.failed} failed"]
    if stats.skipped:
        parts.append(f"{stats.skipped} skipped")
    duration = format_duration(stats.duration)
    if duration:
        parts.append(f"duration {duration}")
    where = [f"testbed {build.testbed}"] if build.testbed else []
    if build.dut_version:
        where.append(f"DUT build {build.dut_version}")
    where.append(build.time.strftime("%Y-%m-%d %H:%M %Z").strip())
    return f"{build_name(build.job, build.build)} ({', '.join(where)}): {', '.join(parts)}"


def per_build_failures(
    builds: Sequence[Build],
    rules: DimensionRules,
    *,
    metric: str,
    accept: Callable[[TestResult], bool] | None = None,
) -> list[Table]:
    """A table for the newest build of each job (by job name).

    Each failed test links to its graph of ``metric``.
    The caption gives the build's outcome; the rows its failures with their
    masked messages, equal failures (:func:`.failures.failure_key`) together,
    the largest group first, each row counting its group.  With a filter, a
    build none of whose tests it keeps is left out.
    """
    result = []
    for build in newest_builds(builds):
        if accept is not None and not any(accept(test) for test in build.tests):
            continue  # says nothing about the tests the page is about
        rows = tuple(
            Row(
                cells=(
                    rules.display_name(test, build.testbed),
                    str(len(group.tests)),
                    mask(test.message.strip()),
                ),
                link_key=SeriesRef(metric, history_key(build.testbed, test.test_id)),
            )
            for group in failure_groups(build, accept)
            for test in group.tests
        )
        result.append(
            Table(
                caption=_outcome(build, accept),
                header=PER_BUILD_HEADER,
                rows=rows,
                kinds=(LABEL, NUMBER, TEXT),
            )
        )
    return result
