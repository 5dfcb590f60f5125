"""Trend compliance: short/long windows in time or runs, and no value when empty."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone, tzinfo

import pytest

from sphinxcontrib_trending.analysis import (
    Compliance,
    classify,
    compliance,
    count_anomalies,
    history,
)
from sphinxcontrib_trending.analysis.compliance import in_window, window_marks
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.settings import Windows

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


def test_windows_end_at_the_end_given_not_at_the_tests_newest_run() -> None:
    """A test last measured on day 19 of a source that ends on day 40: its
    regression of day 15 is neither this week's change nor this week's anomaly."""
    runs = [100.0] * 15 + [80.0] * 5
    times = daily(20)
    result = classify(runs)
    end = START + timedelta(days=40)
    found = compliance(times, result, end=end)
    assert found.trend == 80.0
    assert found.short_reference == 80.0  # the level in force on day 33
    assert found.short_change == 0.0
    assert found.long_reference == 100.0
    marks = window_marks(times, result, end=end)
    assert marks.recent_from == 20  # no run after day 33
    assert count_anomalies(times, result, marks.recent_from) == (0, 0)
    # by default the windows end at the series' newest run (day 19)
    assert compliance(times, result).short_change == pytest.approx(-0.2)
    assert count_anomalies(times, result, window_marks(times, result).recent_from) == (1, 0)
    # failed runs after the last measured one are part of the series: they move its end
    with_failures = compliance(daily(22), classify([*runs, None, None]))
    assert with_failures.short_reference == 100.0  # the level on day 21 - 7 = day 14
    assert with_failures.trend == 80.0


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


class _Unknown(tzinfo):
    """A zone that cannot say its offset: its times are not aware."""

    def utcoffset(self, moment: datetime | None) -> timedelta | None:
        return None


class _Eastern(tzinfo):
    """A zone of our own (not ``datetime.timezone``) that knows its offset."""

    def utcoffset(self, moment: datetime | None) -> timedelta:
        return timedelta(hours=2)

    def dst(self, moment: datetime | None) -> timedelta:
        return timedelta(0)


def test_only_the_naive_time_is_refused_among_aware_ones() -> None:
    result = classify([1.0, 2.0, 3.0])
    mixed = [*daily(2), datetime(2024, 1, 3)]
    with pytest.raises(ValueError, match="time of run 2 is not timezone-aware"):
        compliance(mixed, result)
    unknown = [*daily(2), datetime(2024, 1, 3, tzinfo=_Unknown())]
    with pytest.raises(ValueError, match="time of run 2 is not timezone-aware"):
        compliance(unknown, result)
    # a zone other than datetime.timezone is fine when it knows its offset
    eastern = [moment.astimezone(_Eastern()) for moment in daily(3)]
    assert compliance(eastern, result) == compliance(daily(3), result)


def test_times_like_the_last_checked_pass_and_times_changed_since_are_checked() -> None:
    """Times equal to those last found good are not checked again, each time: a
    list changed in place since, or a naive time at the same moment, still is."""
    result = classify([1.0, 2.0, 3.0])
    times = [moment + timedelta(hours=5) for moment in daily(3)]  # none checked before
    assert compliance(times, result) == compliance(list(times), result)
    times[2] = times[0]
    with pytest.raises(ValueError, match="time of run 2 is earlier"):
        compliance(times, result)
    good = daily(3)
    compliance(good, result)
    naive = [*good[:2], good[2].replace(tzinfo=None)]
    with pytest.raises(ValueError, match="time of run 2 is not timezone-aware"):
        compliance(naive, result)
    unknown = [*good[:2], good[2].replace(tzinfo=_Unknown())]
    with pytest.raises(ValueError, match="time of run 2 is not timezone-aware"):
        compliance(unknown, result)


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
    # a window opening at a moment holds the runs strictly after it (in_window)
    assert count_anomalies(times, result, since=times[59]) == (1, 1)
    assert count_anomalies(times, result, since=times[60]) == (1, 0)
    # ... and one opening at a run index holds that run
    assert count_anomalies(times, result, since=60) == (1, 1)
    assert count_anomalies(times, result, since=61) == (1, 0)
    assert count_anomalies(times, result, since=times[-1] + timedelta(days=1)) == (0, 0)
    with pytest.raises(ValueError, match="timezone"):
        count_anomalies(times, result, since=datetime(2024, 1, 1))


def test_runs_at_the_same_moment_as_a_window_s_start_are_all_outside_it() -> None:
    runs = [100.0] * 20 + [50.0] * 20
    result = classify(runs)
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    # two runs a day, each pair at the same moment; the change is at run 20 (day 10)
    times = [start + timedelta(days=index // 2) for index in range(len(runs))]
    assert count_anomalies(times, result, since=times[19]) == (1, 0)
    assert count_anomalies(times, result, since=times[20]) == (0, 0)
    two_zones = [
        time.astimezone(timezone(timedelta(hours=index % 3))) for index, time in enumerate(times)
    ]
    assert count_anomalies(two_zones, result, since=times[19]) == (1, 0)


def test_a_seven_day_window_holds_seven_daily_runs() -> None:
    """The anomaly count and the short change describe the same stretch."""
    runs = [100.0] * 30 + [80.0] * 7
    times = daily(len(runs))
    result = classify(runs)
    marks = window_marks(times, result)
    assert marks.recent_from == 30  # days 30..36: seven runs
    assert marks.short_reference == 29  # day 29, the level before them
    found = compliance(times, result)
    assert found.short_change == pytest.approx(-0.2)
    assert count_anomalies(times, result, marks.recent_from) == (1, 0)
    longer = [100.0] * 30 + [80.0] * 8
    longer_marks = window_marks(daily(38), classify(longer))
    assert compliance(daily(38), classify(longer)).short_change == 0.0
    assert count_anomalies(daily(38), classify(longer), longer_marks.recent_from) == (0, 0)
    assert in_window(times[1], times[0]) and not in_window(times[0], times[0])


def test_runs_mode_windows_count_measured_runs_for_compliance_and_anomalies() -> None:
    """Failed runs count in neither window: the regression behind the short
    change is counted even when twenty failed runs follow it."""
    runs = [100.0] * 20 + [50.0] * 3 + [None] * 20
    times = daily(len(runs))
    result = classify(runs)
    marks = window_marks(times, result, short=14, long=180, mode="runs")
    assert marks.last == 22
    assert marks.short_reference == 8  # 14 measured runs before the last
    assert marks.recent_from == 9
    found = compliance(times, result, short=14, long=180, mode="runs")
    assert found.short_change == pytest.approx(-0.5)
    assert count_anomalies(times, result, marks.recent_from) == (1, 0)


def test_long_change_uses_the_part_of_the_long_window_the_history_has() -> None:
    """30 days of history, a 90-day window: the best of days 0..23 is the reference."""
    runs = [100.0] * 20 + [90.0] * 10
    found = compliance(daily(30), classify(runs))
    assert found.long_reference == 100.0
    assert found.long_change == pytest.approx(-0.1)


def test_negative_levels_change_by_their_magnitude() -> None:
    """From -2 to -1 is up 50 %, whatever the sign."""
    runs = [-2.0] * 30 + [-1.0] * 30
    found = compliance(daily(60), classify(runs), short=timedelta(days=40))
    assert found.short_reference == -2.0
    assert found.short_change == pytest.approx(0.5)


def test_end_must_be_timezone_aware_and_not_before_the_newest_run() -> None:
    with pytest.raises(ValueError, match="end must be timezone-aware"):
        compliance(daily(3), classify([1.0, 2.0, 3.0]), end=datetime(2024, 2, 1))
    with pytest.raises(ValueError, match="before the newest run"):
        compliance(daily(3), classify([1.0, 2.0, 3.0]), end=START + timedelta(days=1))


def _history(values: list[float | None]) -> history.TestHistory:
    runs = tuple(
        history.Run(
            time=START + timedelta(days=day),
            job="job",
            build=str(day),
            dut_version=None,
            testbed=None,
            status="FAIL" if value is None else "PASS",
            message="",
            values=() if value is None else (value,),
            average=value,
            stdev=None if value is None else 0.0,
        )
        for day, value in enumerate(values)
    )
    return history.TestHistory("t", "t", "t", "s", (), None, None, "mrr", "pps", runs)


@pytest.mark.parametrize("mode", ["time", "runs"])
def test_the_dashboard_counts_the_anomalies_behind_its_short_change(mode: str) -> None:
    """summarize: the same window for the short change and the anomaly count,
    ending at the source's newest build, in both modes."""
    series = _history([100.0] * 30 + [50.0] * 3 + [None] * 4)
    windows = Windows(mode=mode, short_runs=5)
    end = START + timedelta(days=36)
    trend = summarize(series, TrendOptions(windows=windows), end)
    assert trend.compliance.short_change == pytest.approx(-0.5)
    assert trend.counts.regressions == 1
    later = summarize(series, TrendOptions(windows=windows), end + timedelta(days=30))
    if mode == "time":  # a month later nothing has changed in the last week
        assert later.compliance.short_change == 0.0
        assert later.counts.regressions == 0
    else:  # runs mode counts measured runs, wherever the end is
        assert later.compliance.short_change == pytest.approx(-0.5)
        assert later.counts.regressions == 1


def test_an_empty_short_window_holds_no_run_in_either_mode() -> None:
    """A short window of 0 runs (or 0 days) ends at the newest run and holds none:
    its change is nil and it sees no anomaly, as the same window counted in time."""
    runs = [100.0] * 30 + [50.0] * 30
    result = classify(runs)
    times = daily(len(runs))
    by_runs = window_marks(times, result, short=0, long=50, mode="runs")
    by_time = window_marks(times, result, short=timedelta(0), long=timedelta(days=50))
    assert by_runs.recent_from == by_time.recent_from == len(runs)
    assert by_runs.short_reference == by_time.short_reference == len(runs) - 1
    found = compliance(times, result, short=0, long=50, mode="runs")
    assert found.short_change == 0.0
