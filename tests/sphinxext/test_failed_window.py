"""The failed-tests window follows the compliance windows' rule: ``(end - window, end]``."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sphinxcontrib_trending.ingest.model import Build, TestResult
from sphinxcontrib_trending.render.failed import failed_tables

END = datetime(2024, 5, 8, tzinfo=timezone.utc)


def _failing(day: int) -> Build:
    test = TestResult("s.t", "t", "s", (), "FAIL", None, "boom")
    return Build("job", str(day), END - timedelta(days=day), None, None, "x", (test,))


def test_seven_days_hold_seven_daily_builds() -> None:
    """A build exactly at the window's start belongs to the week before."""
    builds = [_failing(day) for day in range(10, -1, -1)]
    (table,) = failed_tables(builds, END - timedelta(days=7), metric="mrr")
    (row,) = table.rows
    assert row.cells[1] == "7"
