"""How often a test would alarm where nothing changed, under its own measured noise.

A team can only trust an alarm if it knows how often the same test cries
wolf.  The rate depends on the test's noise (its shape, not just its size:
quantised timings and heavy tails alarm more than Gaussian noise of the same
stdev), on the resolution and on the policy, so it is measured rather than
derived: the test's own residuals (each measured run's average minus its
level, see :func:`firm_levels`) are shuffled into :data:`NULL_SERIES` histories of up to
:data:`NULL_RUNS` runs at the current level, which destroys any order and
hence any real change, and each is grouped and judged exactly as the test
is.  Every firm change found there is a false alarm; their count per 100
simulated runs is the stated rate.

Since the policy's confidence threshold only relabels changes, one set of
simulated histories gives the rate at every threshold: a target rate is
reached by raising the test's ``min_confidence`` just above the confidence
of the first null change the target has no room for.  A threshold fitted
to one set of shuffles would state an optimistic rate on that same set
(on real CI data, a third to a tenth of the rate then observed), so the
rate stated under a target is measured on a second, independent set.  The
shuffles are seeded, so the same history always states the same rate.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sphinxcontrib_trending.analysis.calibration import SPREAD_POLICY, calibrated_unit, spread_unit
from sphinxcontrib_trending.analysis.classify import Classification, classify
from sphinxcontrib_trending.analysis.grading import AnomalyPolicy, judge
from sphinxcontrib_trending.analysis.identity import GroupingSpec
from sphinxcontrib_trending.analysis.runs import Run, prepare_runs

NULL_SERIES = 8
"""Shuffled histories per test: enough for a stable rate summed over a site's tests."""
NULL_RUNS = 60
"""Length cap of a shuffled history, bounding the cost to a few ms per history."""
MIN_RUNS = 10
"""Fewer measured runs give too few residuals to speak of a noise."""
SEED = 20241127


@dataclass(frozen=True)
class Sensitivity:
    """A test's stated false-alarm rate and the confidence a firm change needs for it."""

    false_alarms_per_100_runs: float
    """Firm changes per 100 runs of the test's own noise, shuffled, at ``min_confidence``."""
    min_confidence: float
    """The policy's threshold, or the higher one a target rate asked for."""
    simulated_runs: int


def _classify(values: list[float], grouping: GroupingSpec) -> Classification:
    """``values`` grouped as the test is (its samples are run averages here)."""
    return classify(
        values,
        unit=calibrated_unit(values, grouping.calibration),
        sbps=grouping.sbps,
        search=grouping.search,  # type: ignore[arg-type]
        direction=grouping.direction,  # type: ignore[arg-type]
        outlier_runs=grouping.outlier_runs,
    )


def firm_levels(runs: Sequence[Run]) -> tuple[list[float], list[float]]:
    """The measured runs' averages, and the level each belongs to.

    The levels are those a strict judgement keeps: the spread calibration's
    groups, merged wherever :data:`~.calibration.SPREAD_POLICY` does not call
    the change firm.  Taking the noise around the test's own groups instead
    would hide part of it: a fine grouping that cut a cluster of slow runs
    into a group of its own has taken that cluster out of the residuals (on
    heavy-tailed noise, a third fewer alarms stated than observed).
    """
    prepared = prepare_runs(runs)
    averages = (prepared.avgs + prepared.offset).tolist()
    values = list(averages)
    if not values:
        return [], []
    grouped = classify(values, unit=spread_unit(values))
    starts = [
        group.start
        for group, verdict in zip(grouped.groups, judge(grouped, SPREAD_POLICY), strict=True)
        if verdict.firm or group.start == 0
    ]
    levels: list[float] = []
    for start, stop in zip(starts, [*starts[1:], len(values)], strict=True):
        segment = values[start:stop]
        levels += [sum(segment) / len(segment)] * len(segment)
    return averages, levels


def residuals(runs: Sequence[Run]) -> list[float]:
    """Each measured run's average minus its level (:func:`firm_levels`), outliers included."""
    averages, levels = firm_levels(runs)
    return [average - level for average, level in zip(averages, levels, strict=True)]


def null_confidences(
    runs: Sequence[Run],
    grouping: GroupingSpec,
    policy: AnomalyPolicy,
    seed: int = SEED,
) -> tuple[list[float], int] | None:
    """The judged confidences of every firm change in the shuffled histories, and their runs.

    Judged with ``policy`` but no confidence threshold, so that any threshold
    can be applied afterwards.  None when the history has too few runs.
    """
    averages, levels = firm_levels(runs)
    if len(averages) < MIN_RUNS:
        return None
    noise = [average - level for average, level in zip(averages, levels, strict=True)]
    level = levels[-1]
    length = min(len(noise), NULL_RUNS)
    open_policy = replace(policy, min_confidence=0.0, provisional_runs=0)
    shuffler = random.Random(seed)
    confidences = []
    for _ in range(NULL_SERIES):
        values = [level + value for value in shuffler.sample(noise, length)]
        verdicts = judge(_classify(values, grouping), open_policy)
        confidences += [
            1.0 if verdict.confidence is None else verdict.confidence
            for verdict in verdicts
            if verdict.firm
        ]
    return confidences, NULL_SERIES * length


def threshold_for(confidences: Sequence[float], runs: int, target: float, floor: float) -> float:
    """The lowest ``min_confidence`` at or above ``floor`` that keeps the rate within ``target``.

    The rate can only be brought down to the changes whose confidence is
    exactly 1.0 (beyond what a double tells apart from certainty).
    """
    allowed = math.floor(target * runs / 100.0)
    above = sorted((value for value in confidences if value >= floor), reverse=True)
    if len(above) <= allowed:
        return floor
    return min(math.nextafter(above[allowed], math.inf), 1.0)


def sensitivity(
    runs: Sequence[Run],
    grouping: GroupingSpec,
    policy: AnomalyPolicy,
    target: float | None = None,
) -> Sensitivity | None:
    """The test's stated false-alarm rate under ``policy``, or under the threshold ``target`` asks.

    ``target`` (false alarms per 100 runs) only ever raises the policy's
    ``min_confidence``.  None when the history is too short to measure its noise.
    """
    null = null_confidences(runs, grouping, policy)
    if null is None:
        return None
    confidences, simulated = null
    threshold = policy.min_confidence
    if target is not None:
        threshold = threshold_for(confidences, simulated, target, threshold)
        fresh = null_confidences(runs, grouping, policy, seed=SEED + 1)
        assert fresh is not None  # the same runs: as long as the first set
        confidences, simulated = fresh
    alarms = sum(1 for value in confidences if value >= threshold)
    return Sensitivity(100.0 * alarms / simulated, threshold, simulated)
