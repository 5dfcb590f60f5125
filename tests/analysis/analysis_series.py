"""Generators of test series shared by the analysis tests.

Series mimic what trending sees (levels with shifts, noise, outliers) plus the
inputs that stress tie-breaking: constant stretches and small integers, where
many partitions cost nearly or exactly the same.
"""

from __future__ import annotations

import random

import jumpavg
from hypothesis import strategies as st

MAGNITUDES = (1e-6, 1e-3, 1.0, 50.0, 1e3, 1e7, 1e12)
NOISES = (0.0, 1e-4, 0.01, 0.05, 0.3)


def make_series(
    rng: random.Random, length: int, magnitude: float, trials: str
) -> list[float | list[float]]:
    """Levels with shifts, noise and outliers; runs are floats, trial lists or both."""
    integers = rng.random() < 0.15
    runs: list[float | list[float]] = []
    level = magnitude
    noise = rng.choice(NOISES)
    while len(runs) < length:
        stretch = rng.randint(1, max(1, length // rng.randint(1, 4)))
        level = magnitude * rng.uniform(0.1, 10.0) if runs else level
        if rng.random() < 0.3:
            noise = rng.choice(NOISES)
        for _ in range(min(stretch, length - len(runs))):
            count = 1 if trials == "floats" else rng.randint(1, 5)
            values = []
            for _ in range(count):
                if integers:
                    value = float(rng.randint(0, 4))
                else:
                    value = abs(rng.gauss(level, noise * level))
                    if rng.random() < 0.03:
                        value *= rng.uniform(0.2, 3.0)
                values.append(value)
            use_list = trials == "trials" or (trials == "mixed" and rng.random() < 0.5)
            runs.append(values if use_list else values[0])
    if _largest(runs) <= 0.0:
        runs[0] = [1.0] if isinstance(runs[0], list) else 1.0
    return runs


def _largest(runs: list[float | list[float]]) -> float:
    return max(max(run) if isinstance(run, list) else run for run in runs)


def resolution(rng: random.Random, magnitude: float) -> tuple[float | None, float | None]:
    """(unit, sbps): the defaults, an sbps, or an explicit unit."""
    choice = rng.random()
    if choice < 0.5:
        return None, None
    if choice < 0.8:
        return None, float(rng.choice((1, 4, 8, 12, 16, 24)))
    return magnitude * rng.uniform(1e-4, 1.0), None


@st.composite
def series_cases(
    draw: st.DrawFn, max_length: int = 40
) -> tuple[list[float | list[float]], float | None, float | None]:
    """A series with its (unit, sbps); hypothesis draws the shape, a seed the values."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    length = draw(st.integers(1, max_length))
    magnitude = draw(st.sampled_from(MAGNITUDES))
    trials = draw(st.sampled_from(("floats", "trials", "mixed")))
    runs = make_series(rng, length, magnitude, trials)
    unit, sbps = resolution(rng, magnitude)
    return runs, unit, sbps


def reference_starts(groups: jumpavg.BitCountingGroupList) -> list[int]:
    """Start index of each group of a reference classification."""
    starts, position = [], 0
    for group in groups:
        starts.append(position)
        position += len(group)
    return starts
