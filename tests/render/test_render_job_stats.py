"""Job statistics tables and graphs."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sphinxcontrib_trending.analysis.job_stats import JobStats, job_stats
from sphinxcontrib_trending.render.job_stats import (
    HEADER,
    format_duration,
    job_figure,
    job_table,
)
from tests.hand_built import builds

LEVELS = {"a": lambda n: 5e6, "b": lambda n: None if n == 2 else 6e6}


def _stats() -> JobStats:
    (stats,) = job_stats(builds(LEVELS, range(1, 4), job="job<b>"))
    timed = replace(stats.builds[-1], duration=timedelta(hours=1, minutes=5))
    return replace(stats, builds=(*stats.builds[:-1], timed))


def test_table_newest_first_with_failures_marked() -> None:
    table = job_table(_stats())
    assert table.caption == "job<b>: 3 builds, 1 with failed tests"
    assert table.header == HEADER
    assert [row.cells for row in table.rows] == [
        ("job<b>/3", "2026-01-03 06:00 UTC", "26.02-rc0~3", "2", "0", "0", "1:05"),
        ("job<b>/2", "2026-01-02 06:00 UTC", "26.02-rc0~2", "1", "1", "0", ""),
        ("job<b>/1", "2026-01-01 06:00 UTC", "26.02-rc0~1", "2", "0", "0", ""),
    ]
    assert [row.classes for row in table.rows] == [(), ("trending-failure",), ()]


def test_figure_stacks_outcomes_and_draws_known_durations() -> None:
    figure = job_figure(_stats())
    passed, failed, duration = figure["data"]  # no skipped test: no skipped bars
    assert passed["y"] == [2, 1, 2] and failed["y"] == [0, 1, 0]
    assert duration["yaxis"] == "y2" and duration["y"] == [65.0]
    assert duration["x"] == ["2026-01-03 06:00:00"]
    assert figure["layout"]["barmode"] == "stack"
    assert figure["layout"]["title"]["text"] == "job&lt;b&gt;"
    assert "job&lt;b&gt;/2" in failed["text"][1] and "<b>" not in failed["text"][1]


def test_durations_in_hours_and_minutes() -> None:
    assert format_duration(timedelta(seconds=59)) == "0:01"
    assert format_duration(timedelta(hours=26, minutes=3)) == "26:03"
    assert format_duration(None) == ""
