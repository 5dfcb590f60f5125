"""Incidents in words and as JSON, for ``check``, ``incidents``, the e-mail and the pages.

Every output says the same things about an incident (its kind, how many
tests, where it started, what they share, how far it spread), so the
words and the JSON record are made here once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from sphinxcontrib_trending.analysis.build_selection import build_name
from sphinxcontrib_trending.analysis.incident_sources import from_verdicts
from sphinxcontrib_trending.analysis.incidents import Anomaly, Incident, Spread, incidents
from sphinxcontrib_trending.analysis.test_run import Run
from sphinxcontrib_trending.analysis.verdicts import Verdict
from sphinxcontrib_trending.display import percent, with_testbed
from sphinxcontrib_trending.reports.records import GraphLinks

DIMENSION_LABELS = {
    "testbed": "testbed",
    "nic": "NIC",
    "driver": "driver",
    "frame_size": "frame size",
    "cores": "cores",
    "test_type": "test type",
}
"""How each of :data:`~sphinxcontrib_trending.ingest.dimensions.DIMENSIONS` is named."""

_KIND_LABELS = {"regression": "Regression", "progression": "Progression", "failure": "Failure"}


def gate_incidents(verdicts: Iterable[Verdict]) -> list[Incident]:
    """The incidents among the gate's verdicts (acknowledged changes left out)."""
    return incidents(from_verdicts(verdicts))


def _finite(value: float | None) -> float | None:
    """JSON has no NaN or infinity: such a change is null."""
    return value if value is not None and math.isfinite(value) else None


def kind_label(incident: Incident) -> str:
    return _KIND_LABELS[incident.kind] + (" (provisional)" if incident.provisional else "")


def signed_percent(change: float | None) -> str:
    return "" if change is None else f"{'+' if change > 0 else ''}{percent(change)} %"


def spread_text(spread: Spread | None) -> str:
    """``-12.00 % (-14.00 % to -10.00 %)``: the median, then the range when there is one."""
    if spread is None:
        return ""
    median = signed_percent(spread.median)
    if spread.minimum == spread.maximum:
        return median
    return f"{median} ({signed_percent(spread.minimum)} to {signed_percent(spread.maximum)})"


def shared_text(incident: Incident) -> str:
    """``testbed 2n-icx, NIC 100ge2p1e810cq``; empty when the members share nothing."""
    return ", ".join(f"{DIMENSION_LABELS[name]} {value}" for name, value in incident.shared.items())


def run_text(run: Run | None) -> str:
    """A run as people find it again: its DUT version, and its CI job build."""
    if run is None:
        return "none"
    where = build_name(run.job, run.build)
    return f"{run.dut_version} ({where})" if run.dut_version else where


def headline(incident: Incident) -> str:
    """One line: kind, size, where it started, how far it went, what the tests share."""
    count = len(incident.members)
    text = (
        f"{kind_label(incident)}: {count} test{'s' if count != 1 else ''} since "
        f"{run_text(incident.first_bad)}, last good {run_text(incident.last_good)}"
    )
    spread = spread_text(incident.spread)
    if spread:
        text += f"; change {spread}"
    shared = shared_text(incident)
    if shared:
        text += f"; shared: {shared}"
    return text


def member_label(member: Anomaly) -> str:
    history = member.history
    change = signed_percent(member.relative_change)
    return with_testbed(history.display_name, history.testbed) + (f": {change}" if change else "")


def compare_url(
    source: str, last_good: Run | None, first_bad: Run, links: GraphLinks
) -> str | None:
    """The commits between the last good and the first bad version, where the source's
    ``compare_url`` template says (see :mod:`~sphinxcontrib_trending.conf.links`)."""
    if last_good is None:
        return None
    return links.templates(source).compare_url(
        last_good.dut_version, first_bad.dut_version, first_bad.job, first_bad.testbed
    )


def incident_compare_url(incident: Incident, links: GraphLinks) -> str | None:
    return compare_url(incident.witness.source, incident.last_good, incident.first_bad, links)


def incident_lines(incidents: Sequence[Incident], links: GraphLinks | None = None) -> list[str]:
    """Each incident's headline (and the commits between, where a template says), its
    member tests indented under it."""
    links = links or GraphLinks()
    lines = []
    for incident in incidents:
        lines.append(f"* {headline(incident)}")
        commits = incident_compare_url(incident, links)
        if commits:
            lines.append(f"  commits: {commits}")
        lines.extend(f"    - {member_label(member)}" for member in incident.members)
    return lines


def _run_record(run: Run | None, source: str, links: GraphLinks) -> dict[str, Any] | None:
    if run is None:
        return None
    templates = links.templates(source)
    where = (run.job, run.build, run.dut_version, run.testbed)
    return {
        "version": run.dut_version,
        "job": run.job,
        "build": run.build,
        "job_build": build_name(run.job, run.build),
        "time": run.time.isoformat(),
        "build_url": templates.build_url(*where),
        "version_url": templates.version_url(*where),
    }


def _member_record(member: Anomaly, links: GraphLinks) -> dict[str, Any]:
    history = member.history
    return {
        "source": member.source,
        "key": history.key,
        "name": history.display_name,
        "testbed": history.testbed,
        "metric": history.metric,
        "change": _finite(member.relative_change),
        "provisional": member.provisional,
        "first_bad": _run_record(member.first_bad_run, member.source, links),
        "last_good": _run_record(member.last_good_run, member.source, links),
        "compare_url": compare_url(
            member.source, member.last_good_run, member.first_bad_run, links
        ),
        "graph": links.series_url(member.source, history.ref),
    }


def incident_record(incident: Incident, links: GraphLinks | None = None) -> dict[str, Any]:
    """The JSON-ready facts of an incident; changes are ratios, not percentages."""
    links = links or GraphLinks()
    source = incident.witness.source
    spread = incident.spread
    return {
        "kind": incident.kind,
        "provisional": incident.provisional,
        "first_bad": _run_record(incident.first_bad, source, links),
        "last_good": _run_record(incident.last_good, source, links),
        "compare_url": incident_compare_url(incident, links),
        "shared": incident.shared,
        "changes": None
        if spread is None
        else {
            "count": spread.count,
            "min": _finite(spread.minimum),
            "median": _finite(spread.median),
            "max": _finite(spread.maximum),
        },
        "tests": [_member_record(member, links) for member in incident.members],
    }
