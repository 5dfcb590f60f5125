"""News tables, one per period and testbed, the newest event first; and the feed's entries."""

from __future__ import annotations

from collections.abc import Sequence

from sphinxcontrib_trending.analysis.environment_changes import labelled
from sphinxcontrib_trending.analysis.news import NewsItem
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.display import percent, with_testbed
from sphinxcontrib_trending.render.atom import FeedEntry, stable_id
from sphinxcontrib_trending.render.ranges import RANGE_COLUMN, range_cell
from sphinxcontrib_trending.render.table import LABEL, NUMBER, TEXT, Row, Table, raw_percent
from sphinxcontrib_trending.render.times import iso_time

HEADER = (
    "Test Case",
    "News",
    "Since [Time]",
    "Since [DUT build]",
    "Since [CI job build]",
    RANGE_COLUMN,
    "Change [%]",
)
RAW_HEADER = (*HEADER[:2], "Since [UTC, ISO 8601]", *HEADER[3:])
KINDS = (LABEL, TEXT, LABEL, LABEL, LABEL, LABEL, NUMBER)

_LABELS = {"failure": "Failure", "regression": "Regression", "progression": "Progression"}


def period_label(days: int) -> str:
    return "Last day" if days == 1 else f"Last {days} days"


def label(item: NewsItem) -> str:
    """The kind of news as the table and the feed name it, and what the machine changed."""
    text = _LABELS[item.kind] + (" (provisional)" if item.provisional else "")
    return f"{text}, {labelled(item.environment)}" if item.environment else text


def _row(item: NewsItem, links: LinkTemplates) -> Row:
    run = item.since
    where = (run.job, run.build, run.dut_version, run.testbed)
    span, compare = range_cell(item.change_range, links)
    return Row(
        cells=(
            item.history.display_name,
            label(item),
            item.since.time.strftime("%Y-%m-%d %H:%M %Z").strip(),
            item.since.dut_version or "",
            item.since.job_build,
            span,
            percent(item.relative_change),
        ),
        link_key=item.history.ref,
        classes=(f"trending-{item.kind}",)
        + (("trending-environment",) if item.environment else ()),
        raw=(
            item.history.display_name,
            label(item),
            iso_time(item.since.time),
            item.since.dut_version,
            item.since.job_build,
            span or None,
            raw_percent(item.relative_change),
        ),
        links=(
            *(None, None, None),
            links.version_url(*where),
            links.build_url(*where),
            compare,
            None,
        ),
    )


def news_tables(
    items: Sequence[NewsItem], days: int, links: LinkTemplates | None = None
) -> list[Table]:
    """The news of one period, one table per testbed (in name order), rows as given;
    the builds and versions news started at link where ``links`` say."""
    links = links or LinkTemplates()
    by_testbed: dict[str | None, list[NewsItem]] = {}
    for item in items:
        by_testbed.setdefault(item.history.testbed, []).append(item)
    period = period_label(days)
    tables = []
    for testbed in sorted(by_testbed, key=lambda name: (name is None, name or "")):
        caption = f"{period}, testbed {testbed}" if testbed else period
        rows = tuple(_row(item, links) for item in by_testbed[testbed])
        tables.append(
            Table(caption=caption, header=HEADER, rows=rows, raw_header=RAW_HEADER, kinds=KINDS)
        )
    return tables


def feed_entries(items: Sequence[NewsItem], source: str) -> list[FeedEntry]:
    """An entry per item, in the given order (newest first, as the news tables)."""
    entries = []
    for item in items:
        history = item.history
        change = (
            f", change {percent(item.relative_change)} %"
            if item.relative_change is not None
            else ""
        )
        version = f" (DUT {item.since.dut_version})" if item.since.dut_version else ""
        span = f", range {item.change_range.text()}" if item.change_range else ""
        entries.append(
            FeedEntry(
                id=stable_id(source, item.kind, history.ref.identity, item.since.job_build),
                title=f"{label(item)}: {with_testbed(history.display_name, history.testbed)}",
                updated=item.since.time,
                summary=f"{label(item)} since {item.since.job_build}{version}{span}{change}",
                ref=history.ref,
            )
        )
    return entries
