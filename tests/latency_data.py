"""Real HDR histograms for fixtures: what CSIT's traffic generator would encode."""

from __future__ import annotations

from hdrh.histogram import HdrHistogram


def hdrh_of(*microseconds: int) -> str:
    """The ``HISTF...`` string of a histogram holding ``microseconds``, padding dropped.

    CSIT's messages carry the base64 without its ``=`` padding, so fixtures do too.
    """
    histogram = HdrHistogram(1, 3_600_000_000, 3)
    for value in microseconds:
        histogram.record_value(value)
    return histogram.encode().decode("ascii").rstrip("=")
