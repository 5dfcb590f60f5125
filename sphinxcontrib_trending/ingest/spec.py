"""What a user asks to be ingested: one named source of archived results.

The same specification is built from ``trending_sources`` in conf.py and from
the command-line options of ``sphinx-trending export`` and ``check``, so both
read data identically.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sphinxcontrib_trending.ingest.limits import DEFAULT_LIMITS, ReadLimits
from sphinxcontrib_trending.ingest.naming import DEFAULT_BUILD_PATTERN
from sphinxcontrib_trending.ingest.registry import DEFAULT_FORMAT, format_names

DEFAULT_VERSION_PATTERN = r"VPP [Vv]ersion:\s*(?P<version>\S+)"
DEFAULT_METRIC = "mrr"

FORMATS = format_names()
"""Known input format names, the default first (from the format registry)."""


@dataclass(frozen=True)
class SourceSpec:
    """Where to find archives and how to read them.

    ``testbed_pattern`` is a regular expression searched in the job name (its
    ``testbed`` group, else the whole match, names the testbed);
    ``testbed_map`` maps a traffic-generator address from the "Setup of TG
    node <ip>" message to a testbed name.  Suite metadata ``testbed`` wins over
    both.

    ``value_pattern`` (a regular expression whose named groups are metrics)
    and ``value_keyword`` say where a Robot Framework test that is not a
    CSIT test keeps its values; ``metric="elapsed"`` trends test durations.
    """

    paths: tuple[str, ...]
    format: str = DEFAULT_FORMAT
    build_pattern: str = DEFAULT_BUILD_PATTERN
    version_pattern: str = DEFAULT_VERSION_PATTERN
    testbed_pattern: str | None = None
    testbed_map: Mapping[str, str] = field(default_factory=dict)
    metric: str = DEFAULT_METRIC
    unit: str | None = None
    direction: str | None = None
    """``higher`` or ``lower`` is better; None takes each metric's from the metric table."""
    value_pattern: str | None = None
    value_keyword: str | None = None
    limits: ReadLimits = DEFAULT_LIMITS
    encoding: str | None = None
    """Text encoding of CSV/JSON Lines files without a byte-order mark (default UTF-8)."""
    dimensions: tuple[tuple[str, str], ...] = ()
    """(dimension, rule) pairs replacing built-in rules (see ``ingest.dimensions``)."""
    days: int | None = None
    """``parquet`` sources: read only the newest ``days`` days of the store's partitions."""
    metrics: tuple[str, ...] | None = None
    """``parquet`` sources: read only these metrics (and the failed tests)."""
