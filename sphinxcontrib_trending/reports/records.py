"""One flat record per verdict, shared by every output format.

The stdout table, JSON, JUnit XML and the alert e-mail all say the same
things about a verdict; building those words and numbers in one place keeps
them from disagreeing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from sphinxcontrib_trending.analysis.build_selection import build_name
from sphinxcontrib_trending.analysis.environment_changes import labelled
from sphinxcontrib_trending.analysis.identity import SeriesRef, SeriesTarget
from sphinxcontrib_trending.analysis.test_run import Run
from sphinxcontrib_trending.analysis.verdicts import (
    DEFAULT_FAIL_ON,
    UNCONFIRMED_NOTE,
    Reason,
    Verdict,
)
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.display import display_unit, percent

DEFAULT_GRAPH_PAGE = "graphs"
"""The page ``sphinx-trending init`` puts the per-test graphs on."""


@dataclass(frozen=True)
class GraphLinks:
    """Where each test's graph is published: ``<base_url>/<page>.html#<anchor>``.

    The anchor is the one the ``trending-graph`` directive sets for the test,
    so the link works as long as every test's graph is on ``page``.
    ``pages`` holds each source's URL templates of builds and versions
    (:mod:`~sphinxcontrib_trending.conf.links`), by source name.
    """

    base_url: str | None = None
    page: str = DEFAULT_GRAPH_PAGE
    pages: Mapping[str, LinkTemplates] = field(default_factory=dict)

    def build_url(self, verdict: Verdict) -> str | None:
        """The judged build's page, where the source's template says."""
        templates = self.pages.get(verdict.source, LinkTemplates())
        testbed = verdict.history.testbed
        return templates.build_url(verdict.job, verdict.build, verdict.version, testbed)

    def version_url(self, verdict: Verdict) -> str | None:
        """The page of the DUT version the judged build ran."""
        templates = self.pages.get(verdict.source, LinkTemplates())
        testbed = verdict.history.testbed
        return templates.version_url(verdict.job, verdict.build, verdict.version, testbed)

    def since_urls(self, verdict: Verdict) -> tuple[str | None, str | None]:
        """The pages of the build and the DUT version a new group started at."""
        since = verdict.since
        if since is None:
            return None, None
        templates = self.pages.get(verdict.source, LinkTemplates())
        where = (since.job, since.build, since.dut_version, since.testbed)
        return templates.build_url(*where), templates.version_url(*where)

    def run_urls(self, verdict: Verdict, run: Run) -> tuple[str | None, str | None]:
        """The pages of a run's build and DUT version, where the source's templates say."""
        templates = self.pages.get(verdict.source, LinkTemplates())
        where = (run.job, run.build, run.dut_version, run.testbed)
        return templates.build_url(*where), templates.version_url(*where)

    def compare_url(self, verdict: Verdict) -> str | None:
        """The commits between a change's last good and first bad version."""
        found = verdict.change_range
        if found is None:
            return None
        templates = self.pages.get(verdict.source, LinkTemplates())
        before, after = found.versions
        return templates.compare_url(before, after, verdict.job, verdict.history.testbed)

    def url(self, verdict: Verdict) -> str | None:
        return self.series_url(verdict.source, verdict.history.ref)

    def series_url(self, source: str, ref: SeriesRef) -> str | None:
        """The graph of one series of ``source``, when the docs' address is known."""
        if not self.base_url:
            return None
        anchor = SeriesTarget(source, ref).anchor
        page = quote(self.page.strip("/"), safe="/")
        return f"{self.base_url.rstrip('/')}/{page}.html#{anchor}"

    def templates(self, source: str) -> LinkTemplates:
        """``source``'s URL templates of builds and versions; none when it has none."""
        return self.pages.get(source, LinkTemplates())


def format_value(verdict: Verdict, value: float | None) -> str:
    """A value in the unit dashboards use (Mpps for packet rates), with its label."""
    if value is None:
        return ""
    unit = display_unit(verdict.history.unit)
    return f"{unit.format(value)} {unit.label}"


def format_change(verdict: Verdict) -> str:
    change = verdict.change
    return "" if change is None else f"{'+' if change > 0 else ''}{percent(change)} %"


def describe(verdict: Verdict, with_range: bool = True) -> str:
    """One line saying what happened, for people: trend move, failure or absence;
    without the change's range where a view shows it in a column of its own."""
    if verdict.anomaly:
        text = (
            f"trend {format_value(verdict, verdict.previous_trend)} -> "
            f"{format_value(verdict, verdict.trend)} ({format_change(verdict)})"
        )
        if verdict.confidence is not None:
            text += f", confidence {verdict.confidence:.3f}"
        if verdict.since is not None:
            text += f", new group since {build_name(verdict.since.job, verdict.since.build)}"
        if with_range and verdict.change_range is not None:
            text += f", range {verdict.change_range.text()}"
        if verdict.provisional:
            text += ", provisional"
        if verdict.environment:
            text += f", {labelled(verdict.environment)}"
        if verdict.confirmation:
            text += f", {_CONFIRMATION_WORDS[verdict.confirmation]}"
        if verdict.acknowledged:
            text += f", acknowledged: {verdict.acknowledged}"
        if verdict.waived:
            text += ", passes the gate"
        return text
    if verdict.reason is Reason.NORMAL:
        text = f"trend {format_value(verdict, verdict.trend)}"
        return f"{text}, {first_line(verdict.message)}" if verdict.confirmation else text
    return first_line(verdict.message)


_CONFIRMATION_WORDS = {
    "unconfirmed": UNCONFIRMED_NOTE,
    "confirmed": "confirmed",
    "dismissed": "dismissed",
}


def first_line(text: str, limit: int = 200) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def run_record(verdict: Verdict, run: Run | None, links: GraphLinks) -> dict[str, Any] | None:
    """One end of a change's range: its version, build and time, and their pages."""
    if run is None:
        return None
    build_url, version_url = links.run_urls(verdict, run)
    return {
        "version": run.dut_version,
        "build": run.job_build,
        "time": run.time.isoformat(),
        "build_url": build_url,
        "version_url": version_url,
    }


def record(
    verdict: Verdict,
    fail_on: Iterable[Reason] = DEFAULT_FAIL_ON,
    links: GraphLinks | None = None,
) -> dict[str, Any]:
    """The JSON-ready facts of a verdict; numbers stay raw, in the data's unit."""
    history = verdict.history
    since = verdict.since
    links = links or GraphLinks()
    since_build_url, since_version_url = links.since_urls(verdict)
    found = verdict.change_range
    return {
        "source": verdict.source,
        "key": history.key,
        "test_id": history.test_id,
        "name": history.display_name,
        "suite": history.suite,
        "testbed": history.testbed,
        "metric": history.metric,
        "unit": history.unit,
        "job": verdict.job,
        "build": verdict.build,
        "job_build": verdict.job_build,
        "time": verdict.time.isoformat(),
        "result": verdict.result(fail_on),
        "reason": verdict.reason.value,
        "value": verdict.value,
        "trend": verdict.trend,
        "previous_trend": verdict.previous_trend,
        "change": verdict.change,
        "since": build_name(since.job, since.build) if since is not None else None,
        "since_time": since.time.isoformat() if since is not None else None,
        "message": verdict.message,
        "confidence": verdict.confidence,
        "provisional": verdict.provisional,
        "false_alarms_per_100_runs": verdict.false_alarms_per_100_runs,
        "acknowledged": verdict.acknowledged or None,
        "environment_change": verdict.environment or None,
        "confirmation": verdict.confirmation or None,
        "waived": verdict.waived or None,
        "description": describe(verdict),
        "graph": links.url(verdict),
        "version": verdict.version,
        "build_url": links.build_url(verdict),
        "version_url": links.version_url(verdict),
        "since_build_url": since_build_url,
        "since_version_url": since_version_url,
        "last_good": run_record(verdict, found.last_good, links) if found else None,
        "first_bad": run_record(verdict, found.first_bad, links) if found else None,
        "compare_url": links.compare_url(verdict),
    }
