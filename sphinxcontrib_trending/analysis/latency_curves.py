"""A run's latency percentile curves: each load and direction of its HDR histograms.

The traffic generator keeps every latency stream's whole distribution.  A
trend of one percentile says that the tail moved; the curve of every
percentile of one run says how: a longer tail, a second mode, a higher
floor.  The curves are drawn against the percentile on a "nines" scale,
``100 / (100 - percentile)`` on a log axis, as csit-dash draws them: 0 %
sits at 1, 90 % at 10, 99 % at 100, 99.9 % at 1000.

A histogram has a step per distinct recorded value (hundreds at CSIT's
resolution), so each curve is thinned to at most :data:`MAX_STEPS` steps
along the log axis, keeping each span's highest value: the curve is never
drawn below what was measured, and its tail is kept whole.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sphinxcontrib_trending.ingest.latency_histogram import distribution

PERCENTILE_CAP = 99.999501
"""The highest percentile drawn: 100 % would sit at infinity.  Just above the
99.9995 % a 45,000-sample stream (9,001 pps for 5 s, CSIT's) can reach, so
that step keeps its own place."""
MAX_STEPS = 100
"""At most this many steps per curve: a few per tenth of a decade of the axis."""
_AXIS_DECADES = math.log10(100.0 / (100.0 - PERCENTILE_CAP))

_HISTOGRAM = re.compile(r"^latency_(?P<place>pdr\d+|ndr|pdr)_(?P<direction>forward|reverse)_hdrh$")
_PLACE_ORDER = ("pdr0", "pdr10", "pdr50", "pdr90", "ndr", "pdr")
PLACE_NAMES = {
    "pdr0": "no load",
    "pdr10": "10 % PDR",
    "pdr50": "50 % PDR",
    "pdr90": "90 % PDR",
    "ndr": "NDR",
    "pdr": "PDR",
}
"""How a curve's load is named: CSIT measures latency at these rates."""


@dataclass(frozen=True, slots=True)
class Curve:
    """One stream's distribution: ``values[i]`` (us) holds up to ``percentiles[i]``.

    ``positions`` are the percentiles on the nines scale, one more than the
    values: step ``i`` spans ``positions[i]`` to ``positions[i + 1]``.
    """

    place: str
    direction: str
    percentiles: tuple[float, ...]
    values: tuple[float, ...]

    @property
    def name(self) -> str:
        return f"{PLACE_NAMES.get(self.place, self.place)}, {self.direction}"

    @property
    def positions(self) -> tuple[float, ...]:
        return (1.0, *map(nines, self.percentiles))


def nines(percentile: float) -> float:
    """Where ``percentile`` sits on the log axis: 1 at 0 %, 10 at 90 %, 100 at 99 %."""
    return 100.0 / (100.0 - min(percentile, PERCENTILE_CAP))


def is_histogram(name: str) -> bool:
    """Whether a test attribute named ``name`` holds a latency's encoded histogram."""
    return _HISTOGRAM.match(name) is not None


def run_curves(histograms: Iterable[tuple[str, str]]) -> tuple[list[Curve], list[str]]:
    """The curves of a run's ``(attribute name, encoded histogram)`` pairs, by load
    then direction, and what was wrong with the histograms that gave none."""
    curves: list[Curve] = []
    errors: list[str] = []
    for name, encoded in histograms:
        found = _HISTOGRAM.match(name)
        if found is None:
            continue
        base = name.removesuffix("_hdrh")
        try:
            steps = distribution(encoded, base)
        except ValueError as error:
            errors.append(str(error))
            continue
        if steps:
            percentiles, values = zip(*thinned(steps), strict=True)
            curves.append(Curve(found["place"], found["direction"], percentiles, values))
    curves.sort(key=_order)
    return curves, errors


def _order(curve: Curve) -> tuple[int, str, str]:
    place = _PLACE_ORDER.index(curve.place) if curve.place in _PLACE_ORDER else len(_PLACE_ORDER)
    return place, curve.place, curve.direction


def thinned(
    steps: Sequence[tuple[float, float]], most: int = MAX_STEPS
) -> list[tuple[float, float]]:
    """At most ``most`` steps: those ending in one span of the log axis become one,
    up to the span's last percentile at its highest value.

    The values rise with the percentile, so the highest of a span is its
    last; the first span is never merged away, nor the tail.
    """
    if len(steps) <= most:
        return list(steps)
    kept: dict[int, tuple[float, float]] = {}
    for percentile, value in steps:
        span = min(int(math.log10(nines(percentile)) / _AXIS_DECADES * most), most - 1)
        before = kept.get(span)
        kept[span] = (percentile, value if before is None else max(value, before[1]))
    return [kept[span] for span in sorted(kept)]
