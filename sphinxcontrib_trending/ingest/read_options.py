"""What every format's reader is told about its source: a compiled :class:`SourceSpec`.

Formats, naming and the store read these options; making them from a spec
(:func:`~sphinxcontrib_trending.ingest.options.compile_options`) asks the
format registry, which knows the formats.  The type has a module of its own
so that the formats below the registry need nothing above it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sphinxcontrib_trending.ingest.limits import ReadLimits


@dataclass(frozen=True)
class ReadOptions:
    format: str
    build_pattern: re.Pattern[str]
    version_pattern: re.Pattern[str]
    testbed_pattern: re.Pattern[str] | None
    testbed_map: tuple[tuple[str, str], ...]
    metric: str
    unit: str | None
    limits: ReadLimits
    encoding: str | None
    value_pattern: re.Pattern[str] | None = None
    value_keyword: str | None = None
    days: int | None = None
    metrics: tuple[str, ...] | None = None

    def identity(self) -> dict[str, Any]:
        """Everything that changes what a parse yields, for cache keys and fingerprints."""
        return {
            "format": self.format,
            "build_pattern": self.build_pattern.pattern,
            "version_pattern": self.version_pattern.pattern,
            "testbed_pattern": self.testbed_pattern.pattern if self.testbed_pattern else None,
            "testbed_map": [list(pair) for pair in self.testbed_map],
            "metric": self.metric,
            "unit": self.unit,
            "value_pattern": self.value_pattern.pattern if self.value_pattern else None,
            "value_keyword": self.value_keyword,
            "limits": self.limits.identity(),
            "encoding": self.encoding,
            "days": self.days,
            "metrics": list(self.metrics) if self.metrics is not None else None,
        }
