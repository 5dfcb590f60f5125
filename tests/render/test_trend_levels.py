"""The trend line's steps and a failed run's level, against a walk over every run."""

from __future__ import annotations

import math
import random

import pytest

from sphinxcontrib_trending.analysis import trend_per_run
from sphinxcontrib_trending.analysis.classify import Classification, Group
from sphinxcontrib_trending.render.trend_levels import TrendLevels


def _walked(levels: list[float | None], shown: list[int]) -> tuple[list[int], list[float | None]]:
    """The steps as the graph found them run by run: where the level differs from
    the previous shown run's (None before the first), then the last."""
    steps: list[int] = []
    level: float | None = None
    for position, index in enumerate(shown):
        if levels[index] != level:
            level = levels[index]
            steps.append(position)
    if shown and (not steps or steps[-1] != len(shown) - 1):
        steps.append(len(shown) - 1)
    return steps, [levels[shown[at]] for at in steps]


def _level_before(levels: list[float | None], index: int) -> float:
    first = next((value for value in levels if value is not None), 0.0)
    return next((v for v in reversed(levels[: index + 1]) if v is not None), first)


def _grouping(rng: random.Random) -> Classification:
    """Groups over some runs, with gaps, missing runs, repeated and odd averages."""
    count = rng.randint(1, 30)
    cuts = sorted(rng.sample(range(1, count + 1), k=rng.randint(1, min(5, count))))
    start = rng.choice([0, 0, 0, 0, 0, min(2, cuts[0] - 1)])
    groups = []
    for stop in cuts:
        if stop <= start:
            continue
        avg = rng.choice([0.0, 1.0, 2.0, 2.0, 2.0, 3.5, 3.5, math.nan, math.inf])
        groups.append(Group(start, stop, avg, 0.0, stop - start, "normal"))
        start = stop
    if groups and rng.random() < 0.1:  # runs after the last group: no level
        last = groups[-1]
        groups[-1] = Group(
            last.start, max(last.start + 1, last.stop - 1), last.avg, 0.0, 1, "normal"
        )
    inside = [i for group in groups for i in range(group.start + 1, group.stop)]
    missing = tuple(sorted(rng.sample(inside, k=min(len(inside), rng.choice([0, 0, 1, 3])))))
    return Classification(groups, 0.0, missing, count)


def _same(found: list[float | None], expected: list[float | None]) -> bool:
    return len(found) == len(expected) and all(
        a == b or (a is not None and b is not None and math.isnan(a) and math.isnan(b))
        for a, b in zip(found, expected, strict=True)
    )


@pytest.mark.parametrize("seed", range(300))
def test_steps_and_levels_are_those_of_a_walk_over_every_run(seed: int) -> None:
    rng = random.Random(seed)
    result = _grouping(rng)
    levels = trend_per_run(result)
    trend = TrendLevels(result)
    everything = list(range(result.run_count))
    known = [index for index in everything if levels[index] is not None]
    if known == everything:  # every run measured and shown
        steps, at_steps = trend.steps(everything)
        expected_steps, expected_levels = _walked(levels, everything)
        assert steps == expected_steps and _same(at_steps, expected_levels)
    shown = sorted(rng.sample(known, k=rng.randint(0, len(known))))  # a graph's points
    steps, at_steps = trend.steps(shown)
    expected_steps, expected_levels = _walked(levels, shown)
    assert steps == expected_steps and _same(at_steps, expected_levels)
    # runs without a level among them: alike wherever the line has a level to draw
    shown = sorted(rng.sample(everything, k=rng.randint(0, len(everything))))
    expected_steps, expected_levels = _walked(levels, shown)
    if None not in expected_levels:
        steps, at_steps = trend.steps(shown)
        assert steps == expected_steps and _same(at_steps, expected_levels)
    failed = sorted(rng.sample(everything, k=min(result.run_count, rng.randint(0, 8))))
    assert _same(trend.before(failed), [_level_before(levels, index) for index in failed])
    rng.shuffle(failed)  # in any order, each its own level
    assert _same(trend.before(failed), [_level_before(levels, index) for index in failed])
    assert _same([trend.level(index) for index in everything], levels)


def test_a_series_without_levels_puts_failed_runs_at_zero() -> None:
    trend = TrendLevels(Classification([], 0.0, (0, 1), 2))
    assert trend.before([0, 1]) == [0.0, 0.0]
