"""Graded verdicts: the faithful default, maybe below thresholds, provisional, counts."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest
from analysis_series import series_cases
from hypothesis import given, settings

from sphinxcontrib_trending.analysis import (
    VERDICTS,
    AnomalyCounts,
    AnomalyPolicy,
    Group,
    anomaly_counts,
    anomaly_per_run,
    classify,
    count_anomalies,
    judge,
    judge_anomaly,
    verdict_per_run,
)

# 40 runs at 100, then 40 at 90 (a 10 % drop), then 40 at 91.5 (+1.7 %); noise 0.3
_rng = random.Random(2024)
LEVELS = (100.0, 90.0, 91.5)
RUNS = [_rng.gauss(level, 0.3) for level in LEVELS for _ in range(40)]
# a step of about 2.6 in noise of about 1: split, but on little evidence
WEAK = [98.6, 100.2, 99.7, 99.5, 101.0, 100.1, 99.7, 101.8, 99.5, 98.7, 98.6, 99.5]
WEAK += [102.2, 102.4, 102.6, 103.4, 103.2, 102.2, 102.9, 102.2, 101.0, 102.4, 101.6, 101.3]


def daily(count: int) -> list[datetime]:
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    return [start + timedelta(days=index) for index in range(count)]


def test_three_levels_are_found() -> None:
    result = classify(RUNS)
    assert [group.start for group in result.groups] == [0, 40, 80]
    assert [group.comment for group in result.groups] == ["normal", "regression", "progression"]


@settings(max_examples=80, deadline=None)
@given(series_cases(max_length=40))
def test_default_policy_reproduces_the_grouping_labels(case) -> None:
    runs, unit, sbps = case
    for direction in ("higher", "lower"):
        result = classify(runs, unit=unit, sbps=sbps, direction=direction, outlier_runs=0)
        verdicts = judge(result)
        assert [v.verdict for v in verdicts] == [g.comment for g in result.groups]
        assert not any(v.provisional for v in verdicts)
        assert judge(result, AnomalyPolicy()) == verdicts
        labels = [None] * result.run_count
        for group in result.groups:
            if group.comment != "normal":
                labels[group.start] = group.comment
        assert anomaly_per_run(result) == labels


def test_small_changes_become_maybe_with_min_change() -> None:
    result = classify(RUNS)
    verdicts = judge(result, AnomalyPolicy(min_change=0.05))
    assert [v.verdict for v in verdicts] == ["normal", "regression", "maybe progression"]
    assert verdicts[1].relative_change == pytest.approx(-0.1, abs=0.01)
    assert verdicts[2].relative_change == pytest.approx(0.0167, abs=0.01)
    assert [v.firm for v in verdicts] == [False, True, False]
    assert [v.anomaly for v in verdicts] == [False, True, True]


def test_maybe_follows_the_direction() -> None:
    result = classify(RUNS, direction="lower")
    verdicts = judge(result, AnomalyPolicy(min_change=0.05))
    assert [v.verdict for v in verdicts] == ["normal", "progression", "maybe regression"]


def test_weakly_supported_changes_become_maybe_with_min_confidence() -> None:
    weak = classify(WEAK)
    assert [group.start for group in weak.groups] == [0, 12]
    assert 0.7 < weak.groups[1].confidence < 0.8  # about 1.6 bits saved
    assert judge(weak, AnomalyPolicy(min_confidence=0.7))[1].verdict == "progression"
    assert judge(weak, AnomalyPolicy(min_confidence=0.95))[1].verdict == "maybe progression"
    lower = classify(WEAK, direction="lower")
    assert judge(lower, AnomalyPolicy(min_confidence=0.95))[1].verdict == "maybe regression"
    # the clear changes of RUNS keep their labels at the same threshold
    strong = judge(classify(RUNS), AnomalyPolicy(min_confidence=0.95))
    assert [v.verdict for v in strong] == ["normal", "regression", "progression"]


def test_unknown_confidence_is_a_maybe_only_when_a_threshold_is_set() -> None:
    previous = Group(0, 5, 100.0, 1.0, 5, "normal")
    group = Group(5, 10, 80.0, 1.0, 5, "regression")  # built by hand: no confidence
    assert judge_anomaly(group, previous, runs_since=5).verdict == "regression"
    policy = AnomalyPolicy(min_confidence=0.5)
    assert judge_anomaly(group, previous, policy, runs_since=5).verdict == "maybe regression"


def test_a_change_from_zero_is_never_too_small() -> None:
    previous = Group(0, 5, 0.0, 0.0, 5, "normal")
    group = Group(5, 10, 1e-9, 0.0, 5, "progression", 20.0, 0.99)
    verdict = judge_anomaly(group, previous, AnomalyPolicy(min_change=0.5), runs_since=5)
    assert (verdict.verdict, verdict.relative_change) == ("progression", None)


def test_recent_changes_are_provisional_counting_measured_runs_only() -> None:
    runs: list = [100.0] * 30 + [50.0, None, 50.0, None, 50.0, 50.0]
    result = classify(runs)
    assert [g.start for g in result.groups] == [0, 30]
    # the last group holds 4 measured runs (the two gaps do not count)
    assert judge(result, AnomalyPolicy(provisional_runs=3))[1].provisional is False
    last = judge(result, AnomalyPolicy(provisional_runs=4))[1]
    assert (last.provisional, last.verdict) == (True, "regression")
    assert judge(result, AnomalyPolicy(provisional_runs=4))[0].provisional is False


def test_discounting_serial_correlation_doubts_a_trend_cut_into_steps() -> None:
    trend = classify([100.0 + 2.0 * index for index in range(60)])
    assert len(trend.groups) > 2
    plain = AnomalyPolicy(min_confidence=0.95)
    discounting = replace(plain, discount_serial_correlation=True)
    assert all(v.firm for v in judge(trend, plain)[1:])
    assert not any(v.firm for v in judge(trend, discounting)[1:])
    # a real level shift in independent noise stays firm
    assert [v.verdict for v in judge(classify(RUNS), discounting)][1] == "regression"


def test_the_discounted_confidence_is_reported() -> None:
    trend = classify([100.0 + 2.0 * index for index in range(60)])
    group = trend.groups[1]
    verdict = judge(trend, AnomalyPolicy(discount_serial_correlation=True))[1]
    assert verdict.confidence < group.confidence
    assert judge(trend)[1].confidence == group.confidence


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_confidence": 1.5}, "min_confidence"),
        ({"min_confidence": -0.1}, "min_confidence"),
        ({"min_change": -0.01}, "min_change"),
        ({"min_change": float("nan")}, "min_change"),
        ({"min_change": float("inf")}, "min_change"),
        ({"provisional_runs": -1}, "provisional_runs"),
        ({"provisional_runs": 2.5}, "provisional_runs"),
        ({"provisional_runs": True}, "provisional_runs"),
    ],
)
def test_bad_policies_raise(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        AnomalyPolicy(**kwargs)


def test_per_run_views_apply_the_policy() -> None:
    runs: list = [None, *RUNS]
    result = classify(runs)
    policy = AnomalyPolicy(min_change=0.05, provisional_runs=40)
    labels = anomaly_per_run(result, policy)
    assert (labels[41], labels[81]) == ("regression", "maybe progression")
    assert labels.count(None) == len(runs) - 2
    verdicts = verdict_per_run(result, policy)
    assert verdicts[81].provisional and not verdicts[41].provisional
    assert verdicts[0] is None
    assert set(VERDICTS) >= {label for label in labels if label}


def test_counts_split_firm_maybe_provisional_and_acknowledged() -> None:
    result = classify(RUNS)
    times = daily(len(RUNS))
    policy = AnomalyPolicy(min_change=0.05, provisional_runs=40)
    assert anomaly_counts(times, result, times[0], policy) == AnomalyCounts(
        regressions=1,
        progressions=0,
        maybe_regressions=0,
        maybe_progressions=1,
        provisional=1,
        acknowledged=0,
    )
    assert anomaly_counts(times, result, times[0], policy, acknowledged={40}) == AnomalyCounts(
        0, 0, 0, 1, 1, 1
    )
    assert anomaly_counts(times, result, times[41], policy) == AnomalyCounts(0, 0, 0, 1, 1, 0)


def test_verdicts_judged_once_give_the_counts_and_marks_judged_apart() -> None:
    """A summary judges a grouping once and hands the verdicts to both views."""
    result = classify(RUNS)
    times = daily(len(RUNS))
    policy = AnomalyPolicy(min_change=0.05, provisional_runs=40)
    judged = judge(result, policy)
    assert [verdict.verdict for verdict in judged if verdict.anomaly] == [
        "regression",
        "maybe progression",
    ]
    assert anomaly_counts(times, result, times[0], policy, judged=judged) == anomaly_counts(
        times, result, times[0], policy
    )
    assert verdict_per_run(result, policy, judged) == verdict_per_run(result, policy)
    # the verdicts given are the ones used: without the regression it is not counted
    kept = [verdict for verdict in judged if verdict.verdict != "regression"]
    assert anomaly_counts(times, result, times[0], policy, judged=kept).regressions == 0
    assert verdict_per_run(result, policy, kept)[40] is None


def test_count_anomalies_keeps_its_signature_and_counts_firm_ones() -> None:
    result = classify(RUNS)
    times = daily(len(RUNS))
    assert count_anomalies(times, result, times[0]) == (1, 1)
    assert count_anomalies(times, result, times[0], AnomalyPolicy(min_change=0.05)) == (1, 0)
    assert count_anomalies(times, result, times[0], acknowledged={80}) == (1, 0)
    with pytest.raises(ValueError, match="timezone"):
        anomaly_counts(times, result, datetime(2024, 1, 1))
