"""Two values of one dimension side by side: NIC against NIC, cores, frame size, testbed.

The question a CSIT engineer asks of a release: how does the same test do
on the E810 and on the XXV710, on 2 cores and on 4?  Each side holds the
tests whose dimension has that value; a row pairs the tests that are the
same in everything else (the other dimensions, and the name with the
compared value taken out), so only tests that exist on both sides compare.
Both sides come from one period of builds; the statistics and the verdict
are :func:`.comparison.compare_sides`', each side trimmed to
:func:`.comparison.within_fences` as csit-dash trims its comparisons.
"""

from __future__ import annotations

import re

from sphinxcontrib_trending.analysis.comparison import (
    ComparisonRow,
    Judging,
    KeyOf,
    Period,
    compare_sides,
)
from sphinxcontrib_trending.ingest.dimensions import DIMENSIONS, DimensionRules, Dimensions
from sphinxcontrib_trending.ingest.model import Build, TestResult

COMPARABLE = DIMENSIONS
"""The dimensions a comparison can be made along (releases are periods, not dimensions)."""

_LEAD = ("testbed", "nic", "driver", "frame_size", "cores")
"""The dimensions a paired row's name starts with, in the dashboard's order."""
_SEPARATORS = re.compile(r"[-\s]+")


_CORE_COUNTS = r"\d+t\d+c|\d+c"
"""Cores as names write them: an ndrpdr id says ``1c`` where its tag says ``2T1C``."""


def _without(text: str, value: str, dimension: str) -> str:
    """``text`` with ``value`` taken out where it stands as a whole token (for
    cores, any core count, however the name writes it)."""
    body = _CORE_COUNTS if dimension == "cores" else re.escape(value)
    token = re.compile(rf"(?<![a-z0-9])(?:{body})(?![a-z0-9])", re.IGNORECASE)
    rest = token.sub(" ", text)
    return _SEPARATORS.sub(lambda gap: "-" if "-" in gap.group(0) else " ", rest).strip(" -")


def pair_name(test: TestResult, dimensions: Dimensions, dimension: str) -> str:
    """What a paired row is called: the other hardware first, then the case name,
    without the compared value anywhere (``2n-icx avf 64b 2t1c ethip4-ip4base-ndrpdr``
    for a NIC comparison)."""
    compared = dimensions.value(dimension) or ""
    lead = [
        value.lower() for name in _LEAD if name != dimension and (value := dimensions.value(name))
    ]
    rest = _without(test.name, compared, dimension) if compared else test.name
    for name in _LEAD:
        value = dimensions.value(name)
        if name != dimension and value:
            rest = _without(rest, value, name)
    return " ".join([*lead, rest] if rest else lead)


def side_of(dimension: str, value: str, rules: DimensionRules) -> KeyOf:
    """The runs of the tests whose ``dimension`` is ``value`` (any case), keyed by
    everything they share with their twins on the other side."""
    wanted = value.strip().lower()

    def key_of(build: Build, test: TestResult) -> tuple[str, str] | None:
        dimensions = rules.derive(test, build.testbed)
        found = dimensions.value(dimension)
        if found is None or found.lower() != wanted:
            return None
        others = tuple(
            (name, (dimensions.value(name) or "").lower())
            for name in DIMENSIONS
            if name != dimension
        )
        name = pair_name(test, dimensions, dimension)
        identity = _without(test.test_id, found, dimension)
        return repr((others, identity)), name

    return key_of


def compare_dimension(
    period: Period,
    dimension: str,
    a: str,
    b: str,
    rules: DimensionRules,
    judging: Judging,
) -> list[ComparisonRow]:
    """A row per test measured with ``dimension`` = ``a`` and with ``b`` in ``period``;
    A is the baseline.  Tests on one side only are left out: they compare with nothing."""
    if dimension not in COMPARABLE:
        raise ValueError(f"unknown dimension {dimension!r}; known: {', '.join(COMPARABLE)}")
    rows = compare_sides(
        (period, side_of(dimension, a, rules)),
        (period, side_of(dimension, b, rules)),
        judging,
        trim=True,
    )
    return [row for row in rows if row.a is not None and row.b is not None]
