"""Per-run views of a classification, in the caller's numbering."""

from __future__ import annotations

from sphinxcontrib_trending.analysis import (
    anomaly_per_run,
    classify,
    runs_in_last_group,
    trend_per_run,
)

RUNS = [None, 100.0, 101.0, None, 99.0, 100.0, 60.0, None, 61.0, 59.0, 60.0, None]


def test_trend_per_run_gives_the_group_average_and_none_for_gaps() -> None:
    result = classify(RUNS)
    first, second = result.groups
    assert trend_per_run(result) == [
        None,
        first.avg,
        first.avg,
        None,
        first.avg,
        first.avg,
        second.avg,
        None,
        second.avg,
        second.avg,
        second.avg,
        None,
    ]


def test_anomaly_lands_on_the_first_run_of_its_group() -> None:
    result = classify(RUNS)
    labels = anomaly_per_run(result)
    assert labels[6] == "regression"
    assert labels.count(None) == len(RUNS) - 1
    assert anomaly_per_run(classify(RUNS, direction="lower"))[6] == "progression"


def test_runs_in_last_group_counts_measured_runs_only() -> None:
    assert runs_in_last_group(classify(RUNS)) == 4
    assert runs_in_last_group(classify([])) == 0
    assert runs_in_last_group(classify([None, 5.0, None])) == 1


def test_helpers_on_empty_input() -> None:
    empty = classify([None, None])
    assert trend_per_run(empty) == [None, None]
    assert anomaly_per_run(empty) == [None, None]
