"""Trend compliance: short/long windows in time or runs, and no value when empty."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from sphinxcontrib_trending.analysis import (
    Compliance,
    classify,
    compliance,
    count_anomalies,
)

START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def daily(count: int) -> list[datetime]:
    return [START + timedelta(days=day) for day in range(count)]


def test_time_windows_compare_with_a_week_and_the_best_of_the_quarter() -> None:
    # 100 days: 200 for 50 days, 100 for 40 days, then 150 for the last 10
    runs = [200.0] * 50 + [100.0] * 40 + [150.0] * 10
    result = classify(runs)
    assert [g.avg for g in result.groups] == [200.0, 100.0, 150.0]
    found = compliance(daily(100), result)
    # a week before day 99 is day 92: already 150
    assert found.short_reference == 150.0
    assert found.short_change == 0.0
    # the quarter [day 9, day 92] contains the 200 level
    assert found.long_reference == 200.0
    assert found.long_change == pytest.approx(-0.25)
    assert found.trend == 150.0
    shorter = compliance(daily(100), result, short=timedelta(days=12), long=timedelta(days=30))
    assert shorter.short_reference == 100.0
    assert shorter.short_change == pytest.approx(0.5)
    assert shorter.long_reference == 100.0  # days 69..87 are all at 100


def test_long_window_includes_the_level_in_force_at_its_start() -> None:
    """AVG is a step function: the trend at the window's start counts, even
    when its run is older than the window."""
    times = [START, START + timedelta(days=60), START + timedelta(days=95)]
    result = classify([300.0, 300.0, 300.0])
    found = compliance(times, result, long=timedelta(days=30))
    assert found.long_reference == 300.0
    assert found.short_reference == 300.0


def test_a_window_without_a_run_gives_no_value() -> None:
    result = classify([10.0] * 5)
    found = compliance(daily(5), result)  # five days: nothing a week back
    assert found == Compliance(None, None, 10.0, None, None)


def test_lower_is_better_takes_the_minimum_as_the_long_reference() -> None:
    runs = [5.0] * 40 + [9.0] * 40 + [7.0] * 20
    result = classify(runs, direction="lower")
    found = compliance(daily(100), result)
    assert found.long_reference == 5.0
    assert found.long_change == pytest.approx(0.4)


def test_windows_end_at_the_newest_measured_run_not_the_clock() -> None:
    runs = [100.0] * 20 + [None] * 3
    times = daily(23)
    found = compliance(times, classify(runs))
    assert found.trend == 100.0
    assert found.short_reference == 100.0  # day 19 - 7 = day 12


def test_runs_mode_counts_measured_runs() -> None:
    runs = [200.0] * 100 + [None] * 5 + [100.0] * 100
    result = classify(runs)
    found = compliance(daily(len(runs)), result, mode="runs")  # 14 and 180 by default
    assert found.short_reference == 100.0
    assert found.long_reference == 200.0
    assert found.long_change == pytest.approx(-0.5)
    narrow = compliance(daily(len(runs)), result, short=3, long=50, mode="runs")
    assert narrow.long_reference == 100.0
    few = compliance(daily(5), classify([1.0] * 5), short=14, long=180, mode="runs")
    assert few.short_reference is None
    assert few.long_change is None


def test_zero_reference_gives_no_change() -> None:
    result = classify([0.0] * 10)
    found = compliance(daily(10), result, short=timedelta(days=2))
    assert found.short_reference == 0.0
    assert found.short_change is None


def test_nothing_measured_gives_no_values() -> None:
    assert compliance(daily(2), classify([None, None])) == Compliance(None, None, None, None, None)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mode": "weeks"}, "mode"),
        ({"short": 7}, "timedelta"),
        ({"mode": "runs", "short": timedelta(days=7)}, "run count"),
        ({"mode": "runs", "short": True}, "run count"),
        ({"short": timedelta(days=10), "long": timedelta(days=5)}, "shorter"),
        ({"short": timedelta(days=-1)}, "negative"),
    ],
)
def test_bad_windows_raise(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        compliance(daily(3), classify([1.0, 2.0, 3.0]), **kwargs)


def test_times_must_match_and_be_aware_and_ordered() -> None:
    result = classify([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="3 runs"):
        compliance(daily(2), result)
    with pytest.raises(ValueError, match="timezone"):
        compliance([datetime(2024, 1, day) for day in (1, 2, 3)], result)
    with pytest.raises(ValueError, match="earlier"):
        compliance(list(reversed(daily(3))), result)


def test_count_anomalies_counts_groups_starting_in_the_window() -> None:
    runs = [100.0] * 30 + [50.0] * 30 + [100.0] * 30 + [40.0] * 10
    result = classify(runs)
    assert [g.comment for g in result.groups] == [
        "normal",
        "regression",
        "progression",
        "regression",
    ]
    times = daily(len(runs))
    assert count_anomalies(times, result, since=times[0]) == (2, 1)
    assert count_anomalies(times, result, since=times[60]) == (1, 1)
    assert count_anomalies(times, result, since=times[61]) == (1, 0)
    assert count_anomalies(times, result, since=times[-1] + timedelta(days=1)) == (0, 0)
    with pytest.raises(ValueError, match="timezone"):
        count_anomalies(times, result, since=datetime(2024, 1, 1))
