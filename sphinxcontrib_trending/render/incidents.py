"""Incident tables: one row per incident, and one table of each incident's member tests.

The overview says what happened where (kind, how many tests, the last good
and the first bad DUT version and CI build, what the tests share, how far
the change went); each member table lists the tests it moved, linked to
their graphs, so a reader opens the incident they care about and no other.
"""

from __future__ import annotations

from collections.abc import Sequence

from sphinxcontrib_trending.analysis.incidents import Anomaly, Incident
from sphinxcontrib_trending.analysis.test_run import Run
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.display import percent
from sphinxcontrib_trending.render.table import LABEL, NUMBER, TEXT, Row, Table, raw_percent
from sphinxcontrib_trending.render.times import iso_time
from sphinxcontrib_trending.reports.incidents import headline, kind_label, shared_text

HEADER = (
    "Incident",
    "Tests [#]",
    "Since [Time]",
    "Since [DUT build]",
    "Since [CI job build]",
    "Last good [DUT build]",
    "Last good [CI job build]",
    "Shared",
    "Change [%]",
    "Change min [%]",
    "Change max [%]",
)
RAW_HEADER = (*HEADER[:2], "Since [UTC, ISO 8601]", *HEADER[3:])
KINDS = (TEXT, NUMBER, LABEL, LABEL, LABEL, LABEL, LABEL, LABEL, NUMBER, NUMBER, NUMBER)

MEMBER_HEADER = (
    "Test Case",
    "Testbed",
    "Since [DUT build]",
    "Since [CI job build]",
    "Last good [DUT build]",
    "Last good [CI job build]",
    "Change [%]",
)
MEMBER_KINDS = (LABEL, LABEL, LABEL, LABEL, LABEL, LABEL, NUMBER)


def _where(run: Run | None, links: LinkTemplates) -> tuple[str, str, str | None, str | None]:
    """A run's DUT version and CI build, and their pages where templates say."""
    if run is None:
        return "", "", None, None
    place = (run.job, run.build, run.dut_version, run.testbed)
    return (
        run.dut_version or "",
        run.job_build,
        links.version_url(*place),
        links.build_url(*place),
    )


def _overview_row(incident: Incident, links: LinkTemplates) -> Row:
    first = incident.first_bad
    since_version, since_build, since_version_url, since_build_url = _where(first, links)
    good_version, good_build, good_version_url, good_build_url = _where(incident.last_good, links)
    spread = incident.spread
    changes: tuple[float | None, ...] = (None, None, None)
    if spread is not None:
        changes = (spread.median, spread.minimum, spread.maximum)
    text = (
        kind_label(incident),
        str(len(incident.members)),
        first.time.strftime("%Y-%m-%d %H:%M %Z").strip(),
        since_version,
        since_build,
        good_version,
        good_build,
        shared_text(incident),
    )
    return Row(
        cells=(*text, *(percent(change) for change in changes)),
        classes=(f"trending-{incident.kind}",),
        raw=(
            text[0],
            len(incident.members),
            iso_time(first.time),
            *text[3:],
            *(raw_percent(change) for change in changes),
        ),
        links=(
            None,
            None,
            None,
            since_version_url,
            since_build_url,
            good_version_url,
            good_build_url,
            None,
            None,
            None,
            None,
        ),
    )


def incidents_table(incidents: Sequence[Incident], links: LinkTemplates, caption: str) -> Table:
    """Every incident in one table, in the order given (newest first, see
    :func:`~sphinxcontrib_trending.analysis.incidents.incidents`)."""
    return Table(
        caption=caption,
        header=HEADER,
        rows=tuple(_overview_row(incident, links) for incident in incidents),
        raw_header=RAW_HEADER,
        kinds=KINDS,
    )


def _member_row(member: Anomaly, links: LinkTemplates) -> Row:
    history = member.history
    since_version, since_build, since_version_url, since_build_url = _where(
        member.first_bad_run, links
    )
    good_version, good_build, good_version_url, good_build_url = _where(member.last_good_run, links)
    text = (
        history.display_name,
        history.testbed or "",
        since_version,
        since_build,
        good_version,
        good_build,
    )
    return Row(
        cells=(*text, percent(member.relative_change)),
        link_key=history.ref,
        classes=(f"trending-{member.kind}",),
        raw=(*text, raw_percent(member.relative_change)),
        links=(
            None,
            None,
            since_version_url,
            since_build_url,
            good_version_url,
            good_build_url,
            None,
        ),
    )


def members_table(incident: Incident, links: LinkTemplates) -> Table:
    """The tests of one incident, the largest change first; captioned by its headline."""
    return Table(
        caption=headline(incident),
        header=MEMBER_HEADER,
        rows=tuple(_member_row(member, links) for member in incident.members),
        kinds=MEMBER_KINDS,
    )
