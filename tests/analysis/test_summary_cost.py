"""A build's summaries cost what the groups and windows need, not a walk of every run."""

from __future__ import annotations

import bisect
import importlib
import random
from datetime import UTC, datetime, timedelta

import pytest

from sphinxcontrib_trending.analysis import classify, summary
from sphinxcontrib_trending.analysis.grading import measured_between, missing_runs
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from tests import hand_built

compliance = importlib.import_module("sphinxcontrib_trending.analysis.compliance")
"""The module (the package's ``compliance`` is its function of that name)."""


def test_measured_runs_are_counted_from_the_missing_ones_as_a_walk_counts_them() -> None:
    rng = random.Random(7)
    for _ in range(300):
        length = rng.randrange(0, 30)
        runs = [None if rng.random() < 0.3 else 100.0 + rng.random() for _ in range(length)]
        result = classify(runs)
        missing = missing_runs(result)
        for start in range(length + 1):
            for stop in range(start, length + 1):
                walked = sum(1 for index in range(start, stop) if runs[index] is not None)
                assert measured_between(missing, start, stop) == walked


def test_a_summary_of_a_grouped_series_does_not_make_its_samples_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    builds = hand_built.builds({"flat": lambda number: 1e7}, range(1, 30))
    (history,) = histories(builds, "mrr")
    end = builds[-1].time
    expected = summarize(history, TrendOptions(), end)

    def walked(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("every run walked again for the grouping's samples")

    monkeypatch.setattr(summary, "run_samples", walked)
    assert summarize(history, TrendOptions(), end, None, expected.result) == expected


def test_a_summary_checks_its_times_once_and_makes_no_level_per_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    builds = hand_built.builds({"step": lambda number: 2e7 if number < 30 else 1e7}, range(1, 60))
    (history,) = histories(builds, "mrr")
    end = builds[-1].time
    expected = summarize(history, TrendOptions(), end)
    assert expected.compliance.long_change == pytest.approx(-0.5)
    checked = []
    check = compliance._check_times
    monkeypatch.setattr(compliance, "_check_times", lambda *args: checked.append(check(*args)))

    def walked(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a level made for every run")

    monkeypatch.setattr(compliance, "trend_per_run", walked, raising=False)
    assert summarize(history, TrendOptions(), end, None, expected.result) == expected
    assert len(checked) == 1


def _marks_among_measured(
    times: list[datetime], runs: list[float | None], end: datetime
) -> compliance.WindowMarks:
    """The time windows' marks found among the measured runs' times, as a walk finds them."""
    measured = [index for index, run in enumerate(runs) if run is not None]
    at = [times[index] for index in measured]
    last = bisect.bisect_right(at, end) - 1
    if not measured or last < 0:
        return compliance.WindowMarks(None, None, None, len(runs))
    short = bisect.bisect_right(at, end - timedelta(days=7)) - 1
    long = bisect.bisect_right(at, end - timedelta(days=90)) - 1
    return compliance.WindowMarks(
        last=measured[last],
        short_reference=measured[short] if short >= 0 else None,
        long_start=measured[max(long, 0)],
        recent_from=bisect.bisect_right(times, end - timedelta(days=7)),
    )


def test_time_windows_are_placed_from_the_missing_runs_as_among_the_measured_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def listed(*_args: object) -> None:
        raise AssertionError("a list of every measured run made")

    monkeypatch.setattr(compliance, "_measured_runs", listed)
    rng = random.Random(11)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for _ in range(400):
        length = rng.randrange(1, 40)
        runs = [None if rng.random() < 0.3 else 100.0 + rng.random() for _ in range(length)]
        days = sorted(rng.choice((0, 3, 7, 20, 60, 90)) * rng.random() for _ in range(length))
        times = [start + timedelta(days=round(day)) for day in days]  # ties too
        end = times[-1] + timedelta(days=rng.choice((0, 1, 30)))
        result = classify(runs)
        expected = _marks_among_measured(times, runs, end)
        assert compliance.window_marks(times, result, end=end) == expected
