"""Which anomalies of a history the known-changes file acknowledges."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from sphinxcontrib_trending.analysis import (
    AnomalyPolicy,
    acknowledged_anomalies,
    anomaly_counts,
    classify,
    count_anomalies,
)
from sphinxcontrib_trending.analysis.acknowledged import parse_known_changes
from sphinxcontrib_trending.analysis.test_run import Run

TEST_ID = "tests.vpp.perf.ip4.64b-1c-ethip4-ip4base-mrr"
LEVELS = [100.0] * 20 + [50.0] * 20 + [100.0] * 20 + [40.0] * 20
KNOWN = """\
[[change]]
test = "*ip4base-mrr"
build = "daily/20"
reason = "Expected: new driver halves the rate"

[[change]]
test = "tests.vpp.*"
date = 2024-03-01
reason = "Lab move"

[[change]]
test = "*ip4base-mrr"
build = "daily/0"
reason = "Matches the first run, which starts no anomaly"
"""


def _runs(values: list[float | None]) -> list[Run]:
    start = datetime(2024, 1, 1, 6, tzinfo=timezone.utc)
    return [
        Run(
            time=start + timedelta(days=index),
            job="daily",
            build=str(index),
            dut_version=None,
            testbed=None,
            status="PASS" if value is not None else "FAIL",
            message="",
            values=() if value is None else (value,),
            average=value,
            stdev=None if value is None else 0.0,
        )
        for index, value in enumerate(values)
    ]


def test_anomalies_matched_by_build_or_by_day_are_acknowledged() -> None:
    runs = _runs(LEVELS)
    result = classify([run.average for run in runs])
    assert [group.start for group in result.groups] == [0, 20, 40, 60]
    assert runs[60].time.date().isoformat() == "2024-03-01"
    known = parse_known_changes(KNOWN, "known_changes.toml")
    found = acknowledged_anomalies(known, TEST_ID, runs, result)
    assert sorted(found) == [20, 60]
    assert found[20].reason.startswith("Expected")
    assert found[60].reason == "Lab move"
    # another test is not covered by the build entry, only by the date one
    assert sorted(acknowledged_anomalies(known, "tests.vpp.other", runs, result)) == [60]
    assert acknowledged_anomalies(known, "tests.dpdk.other", runs, result) == {}


def test_acknowledged_anomalies_leave_the_counts() -> None:
    runs = _runs(LEVELS)
    times = [run.time for run in runs]
    result = classify([run.average for run in runs])
    found = acknowledged_anomalies(parse_known_changes(KNOWN, "k.toml"), TEST_ID, runs, result)
    assert count_anomalies(times, result, times[0]) == (2, 1)
    assert count_anomalies(times, result, times[0], acknowledged=found) == (0, 1)
    counts = anomaly_counts(times, result, times[0], AnomalyPolicy(), found)
    assert (counts.regressions, counts.progressions, counts.acknowledged) == (0, 1, 2)


def test_maybe_anomalies_can_be_acknowledged_too() -> None:
    values = [100.0] * 20 + [98.0] * 20  # a 2 % change: a maybe at min_change 5 %
    runs = _runs(values)
    result = classify(values)
    known = parse_known_changes(
        '[[change]]\ntest = "*"\nbuild = "daily/20"\nreason = "r"\n', "k.toml"
    )
    found = acknowledged_anomalies(known, TEST_ID, runs, result)
    assert sorted(found) == [20]
    times = [run.time for run in runs]
    policy = AnomalyPolicy(min_change=0.05)
    assert anomaly_counts(times, result, times[0], policy).maybe_regressions == 1
    counts = anomaly_counts(times, result, times[0], policy, found)
    assert (counts.maybe_regressions, counts.acknowledged) == (0, 1)


def test_missing_runs_keep_the_numbering() -> None:
    values: list[float | None] = [100.0] * 10 + [None, None] + [50.0] * 10
    runs = _runs(values)
    result = classify([run.average for run in runs])
    known = parse_known_changes(
        '[[change]]\ntest = "*"\nbuild = "daily/12"\nreason = "r"\n', "k.toml"
    )
    assert sorted(acknowledged_anomalies(known, TEST_ID, runs, result)) == [12]


def test_runs_must_match_the_classification() -> None:
    runs = _runs(LEVELS)
    with pytest.raises(ValueError, match="79 runs for a classification of 80"):
        acknowledged_anomalies(
            parse_known_changes("", "k.toml"), TEST_ID, runs[:-1], classify(LEVELS)
        )
