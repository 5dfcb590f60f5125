"""Are short excursions reported as changes?  Seeded synthetic histories with steps.

Usage::

    python benchmarks/eval_excursions.py [--seed 2] [--histories 200] [--setting K=V,...]

Each history is 120 runs of a level with Gaussian noise of 1 % of it, three
level steps of 10 to 30 % (up or down, at least 15 runs apart and from the
ends) and excursions: any run starts one with probability 2 %, of one run
(80 %), two or three, at 10 to 40 % off the level, up or down (next to a step, away from the other
level: 5 % from it at least).  Excursions
are placed wherever they fall: next to each other (each its own size and
direction, but never more than ``K`` = 3 adjacent runs away, the default
``outlier_runs``), next to a step, or right before or after one, except that
an excursion never touches the first or last two runs (a change at the end is
provisional by design) and a step never falls inside one.  The worst cases found in
practice are generated on purpose as well: every fifth history gets two
adjacent single-run excursions (up then down, or both the same way), and
every fifth another one an excursion two runs before a step.

Scores:

* ``excursions as changes``: the share of excursions with more change points
  on their runs and the run right after them than steps there (a regression
  plus a progression, or a change where nothing but the excursion happened;
  a step right before or after an excursion may be reported on its first or
  last run);
* ``steps found``: the share of steps with a change point within 2 runs;
* ``false changes``: reported change points within 2 runs of no step and of no
  excursion, per 100 runs.

The development seed is 1; the figures in the documentation are from seed 2,
which was not looked at while changing the outlier rule (held out).
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sphinxcontrib_trending.analysis import classify

LENGTH = 120
NOISE = 0.01
STEPS = 3
EXCURSION_RATE = 0.02
MAX_EXCURSION = 3

Detector = Callable[[Sequence[float]], list[int]]


@dataclass
class History:
    """One synthetic history and where its truth lies."""

    values: list[float]
    steps: list[int] = field(default_factory=list)
    """First run of each new level."""
    excursions: list[tuple[int, int]] = field(default_factory=list)
    """``[start, stop)`` of each excursion."""


def _step_positions(rng: random.Random) -> list[int]:
    while True:
        steps = sorted(rng.sample(range(15, LENGTH - 15), STEPS))
        if all(later - earlier >= 15 for earlier, later in itertools.pairwise(steps)):
            return steps


def _free(taken: list[bool], start: int, stop: int, steps: list[int]) -> bool:
    """Whether ``[start, stop)`` keeps off the ends, other excursions' runs and steps,
    and makes no stretch of adjacent excursion runs longer than ``MAX_EXCURSION``."""
    if start < 2 or stop > LENGTH - 2 or any(taken[start:stop]):
        return False
    if any(start < step < stop for step in steps):
        return False
    first, last = start, stop
    while first > 0 and taken[first - 1]:
        first -= 1
    while last < LENGTH and taken[last]:
        last += 1
    return last - first <= MAX_EXCURSION


def generate(rng: random.Random, forced: str = "") -> History:
    """A history; ``forced`` adds ``"adjacent"`` excursions or one ``"before-step"``."""
    steps = _step_positions(rng)
    levels = []
    level = 100.0
    for run in range(LENGTH):
        if run in steps:
            level *= 1.0 + rng.choice((-1, 1)) * rng.uniform(0.1, 0.3)
        levels.append(level)
    values = [lvl * (1.0 + rng.gauss(0.0, NOISE)) for lvl in levels]
    taken = [False] * LENGTH
    excursions: list[tuple[int, int]] = []

    def place(start: int, length: int, sign: int) -> None:
        size = sign * rng.uniform(0.1, 0.4)
        near = levels[max(start - 3, 0) : start + length + 3]
        if any(abs(levels[start] * (1.0 + size) / level - 1.0) < 0.05 for level in near):
            # next to a step, an excursion onto the other level would be the step itself
            size = -size
        for run in range(start, start + length):
            values[run] = levels[run] * (1.0 + size + rng.gauss(0.0, NOISE))
            taken[run] = True
        excursions.append((start, start + length))

    if forced == "adjacent":
        start = rng.randrange(20, LENGTH - 20)
        while not _free(taken, start, start + 2, steps):
            start = rng.randrange(20, LENGTH - 20)
        first = rng.choice((-1, 1))
        place(start, 1, first)
        place(start + 1, 1, rng.choice((-first, first)))
    elif forced == "before-step":
        step = rng.choice(steps)
        place(step - 2, 1, rng.choice((-1, 1)))
    for start in range(LENGTH):
        if rng.random() >= EXCURSION_RATE:
            continue
        length = rng.choices((1, 2, 3), weights=(8, 1, 1))[0]
        if _free(taken, start, start + length, steps):
            place(start, length, rng.choice((-1, 1)))
    excursions.sort()
    return History(values, steps, excursions)


def histories(seed: int, count: int) -> list[History]:
    rng = random.Random(seed)
    kinds = ("", "adjacent", "", "before-step", "")
    return [generate(rng, kinds[index % len(kinds)]) for index in range(count)]


@dataclass
class Score:
    excursions: int = 0
    excursions_as_changes: int = 0
    steps: int = 0
    steps_found: int = 0
    false_changes: int = 0
    runs: int = 0

    def line(self) -> str:
        excursion_share = self.excursions_as_changes / self.excursions
        return (
            f"excursions as changes {excursion_share:6.1%} "
            f"({self.excursions_as_changes}/{self.excursions}), "
            f"steps found {self.steps_found / self.steps:6.1%} "
            f"({self.steps_found}/{self.steps}), "
            f"false changes per 100 runs {100 * self.false_changes / self.runs:.2f}"
        )


def score(detector: Detector, cases: Sequence[History]) -> Score:
    total = Score()
    for history in cases:
        points = detector(history.values)
        total.runs += len(history.values)
        for start, stop in history.excursions:
            total.excursions += 1
            changes = sum(start <= point <= stop for point in points)
            if changes > sum(start <= step <= stop for step in history.steps):
                total.excursions_as_changes += 1
        for step in history.steps:
            total.steps += 1
            if any(abs(point - step) <= 2 for point in points):
                total.steps_found += 1
        for point in points:
            near_step = any(abs(point - step) <= 2 for step in history.steps)
            near_excursion = any(
                start - 2 <= point <= stop + 2 for start, stop in history.excursions
            )
            if not near_step and not near_excursion:
                total.false_changes += 1
    return total


def change_points(**options: object) -> Detector:
    """The first run of every group but the first, as ``classify(values, **options)`` groups."""

    def detect(values: Sequence[float]) -> list[int]:
        return [group.start for group in classify(values, **options).groups[1:]]  # type: ignore[arg-type]

    return detect


def parse_setting(text: str) -> dict[str, object]:
    options: dict[str, object] = {}
    for pair in filter(None, text.split(",")):
        key, _, value = pair.partition("=")
        options[key] = int(value) if value.lstrip("-").isdigit() else value
    return options


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seed", type=int, default=2, help="1 for development, 2 held out")
    parser.add_argument("--histories", type=int, default=200)
    parser.add_argument("--setting", action="append", default=[], help="classify options")
    args = parser.parse_args(argv)
    cases = histories(args.seed, args.histories)
    for setting in ["", *args.setting]:
        name = setting or "default"
        print(f"{name:>24}: {score(change_points(**parse_setting(setting)), cases).line()}")


if __name__ == "__main__":
    main()
