"""Results scaled to one reference CPU frequency, per testbed (the reference's NORM_FREQUENCY).

Testbeds run at different clock rates; a packet rate on a 2.6 GHz machine
and one on a 3.4 GHz machine compare better after each is scaled by
``reference / testbed frequency``, as the reference's dashboard offers.
Only what rises with the clock is scaled: rates and bandwidths, whose
units end in "per second" (``pps``, ``cps``, ``rps``, ``bps``, ``Gbps``).
Latencies, losses and times are left as measured, because they do not
scale with the clock alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult


@dataclass(frozen=True)
class FrequencyNorm:
    """The reference frequency and each testbed's, in GHz."""

    reference: float
    testbeds: tuple[tuple[str, float], ...]

    def factor(self, testbed: str | None) -> float | None:
        """``reference / frequency`` of the testbed; None when its frequency is unknown."""
        frequency = dict(self.testbeds).get(testbed or "")
        return None if frequency is None else self.reference / frequency

    @property
    def label(self) -> str:
        """``normalised to 2 GHz``: what axis labels and headers add."""
        return f"normalised to {self.reference:g} GHz"


def is_rate(unit: str) -> bool:
    """``pps``, ``Gbps``, ``cps``: a count per second, which scales with the clock."""
    return unit.lower().endswith("ps")


def normalise_builds(builds: Iterable[Build], norm: FrequencyNorm) -> tuple[list[Build], list[str]]:
    """The builds with every rate scaled by its testbed's factor, and the testbeds
    left as measured for want of a frequency (sorted)."""
    result = []
    unknown: set[str] = set()
    for build in builds:
        factor = norm.factor(build.testbed)
        if factor is None:
            unknown.add(build.testbed or "no testbed")
            result.append(build)
            continue
        tests = tuple(_scaled_test(test, factor) for test in build.tests)
        result.append(replace(build, tests=tests))
    return result, sorted(unknown)


def _scaled_test(test: TestResult, factor: float) -> TestResult:
    if not test.measurements:
        return test
    return replace(
        test,
        measurements=tuple(
            Measurement(m.metric, m.unit, tuple(value * factor for value in m.values))
            if is_rate(m.unit)
            else m
            for m in test.measurements
        ),
    )
