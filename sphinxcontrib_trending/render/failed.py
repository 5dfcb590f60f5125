"""Failed-tests tables: what failed within the window, per testbed."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from sphinxcontrib_trending.analysis.build_selection import build_name
from sphinxcontrib_trending.analysis.compliance import in_window
from sphinxcontrib_trending.analysis.history import history_key
from sphinxcontrib_trending.analysis.identity import SeriesRef
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.ingest.dimensions import (
    DimensionRules,
    Dimensions,
    display_name,
    rules_for,
)
from sphinxcontrib_trending.ingest.model import Build, TestResult
from sphinxcontrib_trending.render.table import LABEL, NUMBER, Row, Table
from sphinxcontrib_trending.render.times import iso_time

HEADER = (
    "Test Case",
    "Failures [#]",
    "Last Failure [Time]",
    "Last Failure [DUT build]",
    "Last Failure [CI job build]",
)
RAW_HEADER = (*HEADER[:2], "Last Failure [UTC, ISO 8601]", *HEADER[3:])
KINDS = (LABEL, NUMBER, LABEL, LABEL, LABEL)


@dataclass
class _Failures:
    name: str
    key: str
    count: int
    last: Build
    """The newest build the test failed in."""


Accept = Callable[[TestResult, Dimensions], bool]
"""Whether a failed test (with its dimensions) belongs in the tables."""


def _collect(
    builds: Iterable[Build], since: datetime, accept: Accept | None, rules: DimensionRules
) -> dict[str | None, dict[str, _Failures]]:
    by_testbed: dict[str | None, dict[str, _Failures]] = {}
    for build in builds:
        if not in_window(build.time, since):
            continue
        for test in build.tests:
            if test.passed:
                continue
            dimensions = rules.derive(test, build.testbed)
            if accept is not None and not accept(test, dimensions):
                continue
            key = history_key(build.testbed, test.test_id)
            failures = by_testbed.setdefault(build.testbed, {})
            seen = failures.get(key)
            if seen is None:
                seen = failures[key] = _Failures(display_name(test.name, dimensions), key, 0, build)
            seen.count += 1
            if build.time >= seen.last.time:
                seen.last = build
    return by_testbed


def _row(failures: _Failures, metric: str, links: LinkTemplates) -> Row:
    last = failures.last
    where = (last.job, last.build, last.dut_version, last.testbed)
    job_build = build_name(last.job, last.build)
    return Row(
        cells=(
            failures.name,
            str(failures.count),
            last.time.strftime("%Y-%m-%d %H:%M %Z").strip(),
            last.dut_version or "",
            job_build,
        ),
        link_key=SeriesRef(metric, failures.key),
        raw=(failures.name, failures.count, iso_time(last.time), last.dut_version, job_build),
        links=(None, None, None, links.version_url(*where), links.build_url(*where)),
    )


def failed_tables(
    builds: Iterable[Build],
    since: datetime,
    *,
    metric: str,
    accept: Accept | None = None,
    rules: DimensionRules | None = None,
    links: LinkTemplates | None = None,
) -> list[Table]:
    """One table per testbed, most failures first, then the most recent.

    A failure has no metric, so each name links to the graph of ``metric``
    (the source's own, unless the page names another); the last failure's
    build and DUT version link where ``links`` say.
    """
    links = links or LinkTemplates()
    tables = []
    by_testbed = _collect(builds, since, accept, rules or rules_for())
    for testbed in sorted(by_testbed, key=lambda name: (name is None, name or "")):
        ordered = sorted(
            by_testbed[testbed].values(),
            key=lambda f: (-f.count, -f.last.time.timestamp(), f.name),
        )
        rows = tuple(_row(f, metric, links) for f in ordered)
        # Generic data has no testbeds at all: then there is nothing to name.
        unnamed = "No testbed" if len(by_testbed) > 1 else ""
        caption = f"Testbed {testbed}" if testbed else unnamed
        tables.append(
            Table(caption=caption, header=HEADER, rows=rows, raw_header=RAW_HEADER, kinds=KINDS)
        )
    return tables
