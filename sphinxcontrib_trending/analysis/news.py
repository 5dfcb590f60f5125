"""What changed lately: new failures, regressions and progressions per period.

The page a team reads first in the morning lists only what is *new* in each
period, every period ending at ``end``, the newest build of the source (the
same rule, :func:`~.compliance.in_window`, as the dashboard and failed-tests
windows, so the pages agree):

- a **new failure** is a test whose newest run failed and whose current
  failing streak (the runs since its last passed run, or since its first run
  when it never passed) started inside the period.  A test that failed and
  recovered is not news any more: the failed-tests table lists it;
- a **new regression** or **new progression** is a firm anomaly (not a
  "maybe", not acknowledged as a known change) whose group starts at a run
  inside the period, as graded on the test's dashboard row.

Each item carries the moment the news started, so the newest comes first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from sphinxcontrib_trending.analysis.change_range import ChangeRange, change_range, streak_range
from sphinxcontrib_trending.analysis.compliance import in_window
from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.summary import TestTrend
from sphinxcontrib_trending.analysis.test_run import Run

NewsKind = Literal["failure", "regression", "progression"]

DEFAULT_PERIODS: tuple[int, ...] = (1, 7, 30)
"""Days: yesterday, the last week, the last month."""


@dataclass(frozen=True)
class NewsItem:
    """One new event of one test, with the run where it started."""

    kind: NewsKind
    history: TestHistory
    since: Run
    relative_change: float | None = None
    """The anomaly's ``(avg - previous avg) / |previous avg|``; None for failures."""
    provisional: bool = False
    """An anomaly too recent to be sure of (see :class:`~.grading.AnomalyPolicy`)."""
    change_range: ChangeRange | None = None
    """The last good run and ``since``: the old level's last run, or the last passed one."""
    environment: str = ""
    """What the machine changed where the anomaly starts (see :mod:`.environment_changes`)."""


def parse_periods(text: str) -> tuple[int, ...]:
    """Comma-separated whole days, each at least 1, e.g. ``1, 7, 30``."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts:
        raise ValueError("give at least one period in days, e.g. 1,7,30")
    days = []
    for part in parts:
        if not part.isdigit() or int(part) < 1:
            raise ValueError(f"{part!r} is not a whole number of days of at least 1")
        days.append(int(part))
    return tuple(days)


def failing_streak_start(runs: Sequence[Run]) -> int | None:
    """Index of the first run of the failing streak the newest run ends; None if it passed."""
    if not runs or runs[-1].status == "PASS":
        return None
    start = len(runs) - 1
    while start > 0 and runs[start - 1].status != "PASS":
        start -= 1
    return start


def _anomalies(trend: TestTrend, since: datetime) -> Iterable[NewsItem]:
    runs = trend.history.runs
    for index, verdict in enumerate(trend.verdicts):
        if verdict is None or not verdict.firm or index in trend.acknowledged:
            continue
        if in_window(runs[index].time, since):
            kind: NewsKind = "regression" if verdict.verdict == "regression" else "progression"
            yield NewsItem(
                kind,
                trend.history,
                runs[index],
                verdict.relative_change,
                verdict.provisional,
                change_range(runs, trend.result.groups, index),
                trend.environment.get(index, ""),
            )


def news(trends: Iterable[TestTrend], end: datetime, days: int) -> list[NewsItem]:
    """What is new in the ``days`` up to ``end``: newest first, then by test name."""
    since = end - timedelta(days=days)
    items: list[NewsItem] = []
    for trend in trends:
        runs = trend.history.runs
        streak = failing_streak_start(runs)
        if streak is not None and in_window(runs[streak].time, since):
            items.append(
                NewsItem(
                    "failure", trend.history, runs[streak], change_range=streak_range(runs, streak)
                )
            )
        items.extend(_anomalies(trend, since))
    return sorted(
        items, key=lambda item: (-item.since.time.timestamp(), item.history.display_name, item.kind)
    )
