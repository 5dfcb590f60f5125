"""Two periods side by side: every number checked by hand on tiny histories."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest
from scipy import stats

from sphinxcontrib_trending.analysis.build_selection import UnknownBuild
from sphinxcontrib_trending.analysis.comparison import (
    Judging,
    PeriodError,
    compare_periods,
    default_periods,
    larger_than,
    parse_period,
    relative_change_interval,
    worst_first,
)
from sphinxcontrib_trending.analysis.degradation import DEGRADATION, NO_CHANGE
from sphinxcontrib_trending.analysis.degradation.builds import BaselineChoice, compare_builds
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult

JOB = "daily-2n"
DAY0 = datetime(2026, 10, 1, 6, 0, tzinfo=timezone.utc)


def _test(name: str, trials: tuple[float, ...] | None) -> TestResult:
    return TestResult(
        test_id=f"perf.{name}",
        name=name,
        suite="perf",
        tags=("MRR",),
        status="PASS" if trials is not None else "FAIL",
        start=None,
        message="",
        measurements=() if trials is None else (Measurement("mrr", "pps", trials),),
    )


def _build(number: int, version: str, **trials: tuple[float, ...] | None) -> Build:
    return Build(
        job=JOB,
        build=str(number),
        time=DAY0 + timedelta(days=number - 1),
        dut_version=version,
        testbed="2n",
        origin="hand",
        tests=tuple(_test(name, values) for name, values in trials.items()),
    )


def _history() -> list[Build]:
    """Builds 1-2 are version v1, 3-4 v2; test ``up`` rises 10.5 -> 12.25, ``down`` falls."""
    return [
        _build(1, "v1", up=(10.0, 12.0), down=(101.0, 99.0)),
        _build(2, "v1", up=(10.0,), down=(103.0, 98.0), gone=(5.0, 5.0)),
        _build(3, "v2", up=(11.0, 13.0), down=(80.0, 82.0), broken=None),
        _build(4, "v2", up=(14.0, 11.0), down=(78.0, 80.0)),
    ]


def test_interval_by_hand() -> None:
    # A = [10, 12]: mean 11, variance 2; B = [9, 9, 12]: mean 10, variance 3.
    interval = relative_change_interval([10.0, 12.0], [9.0, 9.0, 12.0])
    change = 10 / 11 - 1
    term_a = 10**2 * 2 / (2 * 11**4)
    term_b = 3 / (3 * 11**2)
    freedom = (term_a + term_b) ** 2 / (term_a**2 / 1 + term_b**2 / 2)
    half = stats.t.ppf(0.975, freedom) * math.sqrt(term_a + term_b)
    assert interval == pytest.approx((change - half, change + half))
    assert freedom == pytest.approx(2.8199, abs=1e-4)
    assert interval == pytest.approx((-0.4964, 0.3146), abs=1e-4)  # -0.0909 +- 3.300 * 0.12286


def test_interval_needs_two_values_a_side_and_a_nonzero_baseline() -> None:
    assert relative_change_interval([10.0], [9.0, 9.0]) is None
    assert relative_change_interval([0.0, 0.0], [9.0, 9.0]) is None
    assert relative_change_interval([5.0, 5.0], [6.0, 6.0]) == pytest.approx((0.2, 0.2))


def test_versions_side_by_side_by_hand() -> None:
    builds = _history()
    a, b = parse_period(builds, "version v1"), parse_period(builds, "version v2")
    found = compare_periods(a, b, Judging("mrr", "s", "higher"))
    rows = {row.name: row for row in found}
    up = rows["up"]
    # One observation per run: A's runs average 11 and 10, B's 12 and 12.5.
    assert (up.a.runs, up.a.trials) == (2, 3)
    assert up.a.mean == pytest.approx(10.5)
    assert up.a.stdev == pytest.approx(math.sqrt(0.5))
    assert (up.b.runs, up.b.trials, up.b.mean) == (2, 4, pytest.approx(12.25))
    assert up.b.stdev == pytest.approx(math.sqrt(0.125))
    assert up.change == pytest.approx(12.25 / 10.5 - 1)  # +16.7 %
    assert up.interval == pytest.approx(relative_change_interval([11.0, 10.0], [12.0, 12.5]))
    down = rows["down"]
    assert down.a.mean == pytest.approx(100.25)
    assert down.b.mean == pytest.approx(80.0)
    assert down.change == pytest.approx(80 / 100.25 - 1)
    assert [r.result for r in down.reports] == [DEGRADATION]
    assert down.reports[0].method == "welch_t_test"
    # Only in A: no B side, no change, an Unknown missing-target report.
    gone = rows["gone"]
    assert gone.b is None and gone.change is None and gone.interval is None
    assert gone.reports[0].subtype == "missing target"
    assert "broken" not in rows  # failed runs carry no value


def test_trials_mode_pools_every_trial_by_hand() -> None:
    builds = _history()
    a, b = parse_period(builds, "version v1"), parse_period(builds, "version v2")
    found = compare_periods(a, b, Judging("mrr", "s", "higher", samples="trials"))
    up = next(row for row in found if row.name == "up")
    # A pools 10, 12, 10: mean 32/3; B pools 11, 13, 14, 11: mean 12.25.
    assert (up.a.runs, up.a.trials) == (2, 3)
    assert up.a.mean == pytest.approx(32 / 3)
    squares = (10 - 32 / 3) ** 2 * 2 + (12 - 32 / 3) ** 2
    assert up.a.stdev == pytest.approx(math.sqrt(squares / 2))
    assert up.b.mean == pytest.approx(12.25)
    assert up.change == pytest.approx(12.25 / (32 / 3) - 1)
    assert up.interval == pytest.approx(
        relative_change_interval([10.0, 12.0, 10.0], [11.0, 13.0, 14.0, 11.0])
    )


def test_runs_that_differ_widen_the_interval_trials_would_hide_it() -> None:
    """Ten tight trials a run, runs at different levels: pooled trials look precise."""
    levels_a, levels_b = (100.0, 104.0, 97.0, 102.0), (101.0, 98.0, 105.0, 99.0)
    builds = [
        _build(n + 1, "v1" if n < 4 else "v2", t=tuple(level + 0.01 * k for k in range(10)))
        for n, level in enumerate(levels_a + levels_b)
    ]
    a, b = parse_period(builds, "version v1"), parse_period(builds, "version v2")
    by_run = compare_periods(a, b, Judging("mrr", "s", "higher"))[0]
    pooled = compare_periods(a, b, Judging("mrr", "s", "higher", samples="trials"))[0]
    assert by_run.change == pytest.approx(pooled.change)
    assert by_run.interval is not None and pooled.interval is not None
    width = by_run.interval[1] - by_run.interval[0]
    assert width > 2.5 * (pooled.interval[1] - pooled.interval[0])
    assert by_run.interval[0] < 0 < by_run.interval[1]


def test_samples_must_be_runs_or_trials() -> None:
    builds = _history()
    a, b = parse_period(builds, "version v1"), parse_period(builds, "version v2")
    with pytest.raises(ValueError, match="samples"):
        compare_periods(a, b, Judging("mrr", "s", "higher", samples="builds"))


def test_worst_first_respects_direction_and_threshold() -> None:
    builds = _history()
    a, b = parse_period(builds, "version v1"), parse_period(builds, "version v2")
    rows = compare_periods(a, b, Judging("mrr", "s", "higher"))
    assert [row.name for row in worst_first(rows, "higher")] == ["down", "up", "gone"]
    assert [row.name for row in worst_first(rows, "lower")] == ["up", "down", "gone"]
    assert [row.name for row in larger_than(rows, 0.18)] == ["down"]
    assert [row.name for row in larger_than(rows, 0.10)] == ["down", "up"]


def test_direction_turns_the_verdict() -> None:
    builds = _history()
    a, b = parse_period(builds, "version v1"), parse_period(builds, "version v2")
    rows = compare_periods(a, b, Judging("mrr", "s", "lower"))
    down = next(row for row in rows if row.name == "down")
    assert down.reports[0].result == "Optimization"


def test_two_single_builds_agree_with_check_baseline() -> None:
    builds = _history()
    a = parse_period(builds, f"builds {JOB}/1..1")
    b = parse_period(builds, f"builds {JOB}/3..{JOB}/3")
    rows = compare_periods(a, b, Judging("mrr", "s", "higher"))
    gate = compare_builds(
        builds,
        builds[2],
        metric="mrr",
        source="s",
        direction="higher",
        choice=BaselineChoice(build=f"{JOB}/1"),
    )
    gate_results = {r.location: (r.result, r.relative_change) for r in gate.reports}
    for row in rows:
        if row.test_id in gate_results and row.a and row.b:
            assert (row.reports[0].result, row.change) == pytest.approx(gate_results[row.test_id])
    assert {row.name for row in rows if row.a and row.b} == {"up", "down"}


def test_build_ranges_dates_and_bad_specs() -> None:
    builds = _history()
    assert [b.build for b in parse_period(builds, f"builds {JOB}/2..4").builds] == ["2", "3", "4"]
    dates = parse_period(builds, "dates 2026-10-02..2026-10-03")
    assert [b.build for b in dates.builds] == ["2", "3"]
    with pytest.raises(PeriodError, match="come"):
        parse_period(builds, f"builds {JOB}/3..1")
    with pytest.raises(PeriodError, match="end before"):
        parse_period(builds, "dates 2026-10-03..2026-10-02")
    with pytest.raises(PeriodError, match="not a date"):
        parse_period(builds, "dates 2026-13-01..2026-10-02")
    with pytest.raises(PeriodError, match="write 'dates"):
        parse_period(builds, "week 1")
    with pytest.raises(UnknownBuild):
        parse_period(builds, f"builds {JOB}/9..10")


def test_default_periods_are_the_last_two_weeks() -> None:
    builds = [_build(n, "v", up=(1.0, 1.0)) for n in range(1, 16)]
    a, b = default_periods(builds)
    # Newest is build 15: B holds builds 9-15, A builds 2-8; build 1 is 14 days back.
    assert [x.build for x in b.builds] == [str(n) for n in range(9, 16)]
    assert [x.build for x in a.builds] == [str(n) for n in range(2, 9)]
    rows = compare_periods(a, b, Judging("mrr", "s", "higher"))
    assert rows[0].change == 0.0 and rows[0].reports[0].result == NO_CHANGE
