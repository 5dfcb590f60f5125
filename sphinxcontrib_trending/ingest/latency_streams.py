"""A CSIT latency list, ``['min/avg/max/hdrh', 'min/avg/max/hdrh']``, as measurements.

The same list follows ``Latency at 50% PDR:`` and ``LATENCY [min/avg/max/hdrh]
per stream:`` in test messages, and the JSON model carries the same four
fields per direction; one reader serves all three.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from sphinxcontrib_trending.ingest.latency_histogram import percentiles
from sphinxcontrib_trending.ingest.metrics import LATENCY_DIRECTIONS, LATENCY_STATISTICS
from sphinxcontrib_trending.ingest.model import Measurement

_STREAM = re.compile(r"'([^'\n]*)'")
NOT_MEASURED = -1.0
"""What the traffic generator writes for a latency statistic it has no samples for."""


@dataclass(frozen=True, slots=True)
class Latencies:
    """What one latency list gave, and what was wrong with it.

    ``histograms`` keeps each stream's encoded HDR histogram under
    ``{base}_hdrh`` (e.g. ``latency_pdr50_forward_hdrh``), so nothing the
    traffic generator measured is lost even where no metric is made of it.
    An undecodable histogram is an error, but min/avg/max are still kept.
    """

    measurements: tuple[Measurement, ...]
    histograms: tuple[tuple[str, str], ...]
    errors: tuple[str, ...]


def stream_latencies(
    base: str, statistics: tuple[float, ...], hdrh: str, unit: str = "us"
) -> Latencies:
    """One direction: ``{base}_min/avg/max`` (but not the -1 "not measured") and percentiles."""
    found = [
        Measurement(f"{base}_{statistic}", unit, (number,))
        for statistic, number in zip(LATENCY_STATISTICS, statistics, strict=True)
        if number != NOT_MEASURED
    ]
    histograms = ((f"{base}_hdrh", hdrh),) if hdrh else ()
    try:
        found.extend(percentiles(hdrh, base, unit))
    except ValueError as error:
        return Latencies(tuple(found), histograms, (str(error),))
    return Latencies(tuple(found), histograms, ())


def read_streams(place: str, streams: str, what: str) -> Latencies:
    """``'min/avg/max/hdrh'`` items: forward first, then reverse, as ``latency_{place}_...``.

    ``what`` names the line in error messages.  A stream that is not three
    numbers raises ``ValueError``: its values would be guesses.
    """
    quoted = _STREAM.findall(streams)
    if not quoted:
        raise ValueError(f"malformed {what}: no 'min/avg/max' stream")
    measurements: list[Measurement] = []
    histograms: list[tuple[str, str]] = []
    errors: list[str] = []
    for direction, stream in zip(LATENCY_DIRECTIONS, quoted, strict=False):
        parts = stream.split("/", 3)
        try:
            numbers = tuple(float(part) for part in parts[:3])
        except ValueError:
            raise ValueError(f"malformed {what}: {stream!r} is not min/avg/max") from None
        if len(numbers) != len(LATENCY_STATISTICS) or not all(map(math.isfinite, numbers)):
            raise ValueError(f"malformed {what}: {stream!r} is not min/avg/max")
        hdrh = parts[3] if len(parts) == 4 else ""
        found = stream_latencies(f"latency_{place}_{direction}", numbers, hdrh)
        measurements.extend(found.measurements)
        histograms.extend(found.histograms)
        errors.extend(f"{what}: {error}" for error in found.errors)
    return Latencies(tuple(measurements), tuple(histograms), tuple(errors))
