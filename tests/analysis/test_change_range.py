"""The range a change lies in: the old level's last run and the new level's first."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sphinxcontrib_trending.analysis import classify
from sphinxcontrib_trending.analysis.change_range import ChangeRange, change_range, streak_range
from sphinxcontrib_trending.analysis.classify import Group
from sphinxcontrib_trending.analysis.test_run import Run

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _run(number: int, value: float | None, status: str = "PASS") -> Run:
    return Run(
        START + timedelta(days=number),
        "job",
        str(number),
        f"v{number}",
        "2n",
        status,
        "",
        () if value is None else (value,),
        value,
        None if value is None else 0.0,
    )


def test_a_step_is_bounded_by_the_old_levels_last_run_and_the_new_levels_first() -> None:
    values = [10.0, 10.1, 9.9, 10.0, 10.05, 9.95, 5.0, 5.1, 4.9, 5.0, 5.05, 4.95]
    runs = [_run(number, value) for number, value in enumerate(values)]
    groups = classify(values).groups
    assert [group.start for group in groups] == [0, 6]
    found = change_range(runs, groups, 6)
    assert found == ChangeRange(runs[5], runs[6])
    assert found.versions == ("v5", "v6")
    assert found.text() == "v5 .. v6"


def test_failed_runs_and_outliers_at_the_old_levels_end_are_not_its_last_good_run() -> None:
    runs = [_run(0, 10.0), _run(1, 10.0), _run(2, 30.0), _run(3, None, "FAIL"), _run(4, 5.0)]
    groups = [
        Group(0, 4, 10.0, 0.0, 3, "normal", outliers=(2,)),
        Group(4, 5, 5.0, 0.0, 1, "regression"),
    ]
    assert change_range(runs, groups, 4) == ChangeRange(runs[1], runs[4])


def test_only_a_later_groups_start_has_a_range() -> None:
    runs = [_run(0, 1.0), _run(1, 2.0)]
    groups = [Group(0, 1, 1.0, 0.0, 1, "normal"), Group(1, 2, 2.0, 0.0, 1, "progression")]
    assert change_range(runs, groups, 0) is None
    assert change_range(runs, groups, 1) == ChangeRange(runs[0], runs[1])


def test_a_failing_streak_starts_after_the_last_passed_run() -> None:
    runs = [_run(0, 1.0), _run(1, None, "FAIL"), _run(2, None, "FAIL")]
    assert streak_range(runs, 1) == ChangeRange(runs[0], runs[1])
    assert streak_range(runs[1:], 0) == ChangeRange(None, runs[1])


def test_without_versions_the_range_names_ci_builds() -> None:
    before, after = _run(1, 1.0)._replace(dut_version=None), _run(2, 2.0)
    assert ChangeRange(before, after).text() == "job/1 .. job/2"
    assert ChangeRange(None, after).text() == "v2"
