"""Compliance read from the groups and the missing runs, against the levels of
every run (:func:`trend_per_run`), as it was found before."""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta, timezone

import pytest

from sphinxcontrib_trending.analysis import trend_per_run
from sphinxcontrib_trending.analysis.classify import Classification, Group
from sphinxcontrib_trending.analysis.compliance import (
    Compliance,
    WindowMarks,
    _measured_runs,
    compliance_in,
    window_marks,
)
from sphinxcontrib_trending.analysis.grading import change_ratio

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _grouping(rng: random.Random) -> Classification:
    """Groups over some runs, now and then with gaps (of missing runs), missing runs
    inside groups and odd averages."""
    count = rng.randint(1, 40)
    cuts = sorted(rng.sample(range(1, count + 1), k=rng.randint(1, min(6, count))))
    start = 0 if rng.random() < 0.9 else min(2, cuts[0] - 1)
    groups = []
    for stop in cuts:
        if stop <= start:
            continue
        avg = rng.choice([-2.0, 0.0, 1.0, 2.0, 2.0, 3.5, 3.5, math.nan, math.inf])
        groups.append(Group(start, stop, avg, 0.0, stop - start, "normal"))
        start = stop if rng.random() < 0.9 else stop + 1  # a gap now and then
    inside = [i for group in groups for i in range(group.start + 1, group.stop)]
    missing = set(rng.sample(inside, k=min(len(inside), rng.choice([0, 1, 3, 9]))))
    grouped = {i for group in groups for i in range(group.start, group.stop)}
    missing |= set(range(count)) - grouped  # a run in no group measured nothing
    return Classification(
        groups, 0.0, tuple(sorted(missing)), count, direction=rng.choice(["higher", "lower"])
    )


def _plain(marks: WindowMarks, result: Classification) -> Compliance:
    """Compliance as a level per run gives it."""
    if marks.last is None:
        return Compliance(None, None, None, None, None)
    trends = trend_per_run(result)
    last_trend = trends[marks.last]
    assert last_trend is not None
    if marks.short_reference is None or marks.long_start is None:
        return Compliance(None, None, last_trend, None, None)
    short_reference = trends[marks.short_reference]
    window = [t for t in trends[marks.long_start : marks.short_reference + 1] if t is not None]
    long_reference = max(window) if result.direction == "higher" else min(window)
    return Compliance(
        short_change=None if short_reference is None else change_ratio(last_trend, short_reference),
        long_change=change_ratio(last_trend, long_reference),
        trend=last_trend,
        short_reference=short_reference,
        long_reference=long_reference,
    )


def _outcome(make: object) -> object:
    """What a compliance call gives: its fields (NaN made comparable), or its error's type."""
    try:
        found = make()  # type: ignore[operator]
    except (AssertionError, ValueError) as error:
        return type(error)
    return tuple("nan" if value != value else value for value in vars(found).values())


@pytest.mark.parametrize("seed", range(400))
def test_compliance_is_that_of_every_run_s_level(seed: int) -> None:
    rng = random.Random(seed)
    result = _grouping(rng)
    times = [START + timedelta(hours=12 * run) for run in range(result.run_count)]
    missing = set(result.missing)
    assert _measured_runs(result) == [i for i in range(result.run_count) if i not in missing]
    if rng.random() < 0.5:
        short = timedelta(hours=rng.randint(0, 200))
        marks = window_marks(times, result, short, short + timedelta(hours=rng.randint(0, 300)))
    else:
        short_runs = rng.randint(1, 12)
        marks = window_marks(times, result, short_runs, short_runs + rng.randint(0, 20), "runs")
    assert _outcome(lambda: compliance_in(marks, result)) == _outcome(lambda: _plain(marks, result))
