"""News per period on hand-built daily histories: what is new, and since when."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sphinxcontrib_trending.analysis import summary
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.news import (
    failing_streak_start,
    news,
    parse_periods,
)
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from tests.hand_built import build_time, builds

LAST = 40
END = build_time(LAST)

LEVELS = {
    "drop": lambda n: 10e6 if n < 35 else 8e6,  # regression at build 35, 5 days ago
    "rise": lambda n: 5e6 if n < 20 else 6e6,  # progression at build 20, 20 days ago
    "broke": lambda n: 7e6 if n < 39 else None,  # failing since build 39, 1 day ago
    "fresh": lambda n: 7e6 if n < LAST else None,  # failed only in the newest build
    "recovered": lambda n: None if n == 38 else 7e6,  # failed once, passes again
    "stable": lambda n: 9e6,
}


def _trends() -> list[summary.TestTrend]:
    data = builds(LEVELS, range(1, LAST + 1))
    return [summarize(history, TrendOptions(), END) for history in histories(data, "mrr")]


def _summary(days: int) -> list[tuple[str, str, str]]:
    return [(item.kind, item.history.name, item.since.build) for item in news(_trends(), END, days)]


def test_the_last_day_holds_only_the_newest_build() -> None:
    # Windows are half-open, (end - 1 day, end]: build 39 ran exactly a day before.
    assert _summary(1) == [("failure", "fresh", "40")]


def test_a_week_newest_first() -> None:
    assert _summary(7) == [
        ("failure", "fresh", "40"),
        ("failure", "broke", "39"),
        ("regression", "drop", "35"),
    ]


def test_a_month_adds_the_older_progression_with_its_change() -> None:
    items = news(_trends(), END, 30)
    assert [(item.kind, item.history.name) for item in items][-1] == ("progression", "rise")
    rise = items[-1]
    assert rise.since.build == "20"
    assert rise.relative_change == pytest.approx(0.2)
    drop = next(item for item in items if item.kind == "regression")
    assert drop.relative_change == pytest.approx(-0.2)
    assert not any(item.history.name in ("recovered", "stable") for item in items)


def test_a_failure_is_dated_by_the_start_of_its_streak() -> None:
    runs = {h.name: h.runs for h in histories(builds(LEVELS, range(1, LAST + 1)), "mrr")}
    assert failing_streak_start(runs["broke"]) == 38  # index of build 39
    assert failing_streak_start(runs["recovered"]) is None
    assert failing_streak_start(runs["stable"]) is None
    assert failing_streak_start(()) is None


def test_a_test_failing_since_before_the_period_is_not_news() -> None:
    levels = {"long-broken": lambda n: 7e6 if n < 10 else None}
    data = builds(levels, range(1, LAST + 1))
    trends = [summarize(h, TrendOptions(), END) for h in histories(data, "mrr")]
    assert news(trends, END, 7) == []
    assert [item.since.build for item in news(trends, END, 31)] == ["10"]


def test_acknowledged_changes_are_not_news() -> None:
    trends = _trends()
    drop = next(trend for trend in trends if trend.history.name == "drop")
    start = drop.verdicts.index(next(v for v in drop.verdicts if v is not None))
    quiet = replace(drop, acknowledged={start: object()})
    assert news([drop], END, 7) and news([quiet], END, 7) == []


@pytest.mark.parametrize(
    ("text", "expected"), [("1,7,30", (1, 7, 30)), (" 14 ", (14,)), ("3, 1", (3, 1))]
)
def test_periods_parse(text: str, expected: tuple[int, ...]) -> None:
    assert parse_periods(text) == expected


@pytest.mark.parametrize("text", ["", "0", "7d", "-1", "1,x"])
def test_bad_periods_raise(text: str) -> None:
    with pytest.raises(ValueError):
        parse_periods(text)
