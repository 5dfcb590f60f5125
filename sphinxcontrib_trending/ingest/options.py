"""A :class:`SourceSpec` checked and compiled once, before any file is read.

A wrong regular expression or format is the user's configuration, not bad
data: it raises :class:`SpecError` at once (the CLI turns it into exit code 2,
the Sphinx layer into a configuration error) instead of a warning per file.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Any

from sphinxcontrib_trending.ingest.dimensions import compile_rule
from sphinxcontrib_trending.ingest.limits import ReadLimits
from sphinxcontrib_trending.ingest.registry import format_names, input_format
from sphinxcontrib_trending.ingest.robot_values import VALUE_GROUP, keyword_key
from sphinxcontrib_trending.ingest.spec import SourceSpec


class SpecError(ValueError):
    """The source specification itself is unusable."""


def _compile(name: str, pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as error:
        raise SpecError(f"{name} {pattern!r} is not a valid regular expression: {error}") from None


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

    @classmethod
    def from_spec(cls, spec: SourceSpec) -> ReadOptions:
        if spec.format not in format_names():
            raise SpecError(f"format {spec.format!r} is not one of {', '.join(format_names())}")
        build_pattern = _compile("build pattern", spec.build_pattern)
        if not {"job", "build"} & set(build_pattern.groupindex):
            raise SpecError(
                f"build pattern {spec.build_pattern!r} has neither a (?P<job>...) "
                "nor a (?P<build>...) group"
            )
        if spec.encoding is not None:
            try:
                codecs.lookup(spec.encoding)
            except LookupError:
                message = f"encoding {spec.encoding!r} is not a known text encoding"
                raise SpecError(message) from None
        _check_own_options(spec)
        _check_dimensions(spec)
        return cls(
            format=spec.format,
            build_pattern=build_pattern,
            version_pattern=_compile("version pattern", spec.version_pattern),
            testbed_pattern=(
                _compile("testbed pattern", spec.testbed_pattern) if spec.testbed_pattern else None
            ),
            testbed_map=tuple(sorted((str(k), str(v)) for k, v in spec.testbed_map.items())),
            metric=spec.metric,
            unit=spec.unit,
            value_pattern=_value_pattern(spec),
            value_keyword=keyword_key(spec.value_keyword) if spec.value_keyword else None,
            limits=spec.limits,
            encoding=spec.encoding,
            days=_days(spec.days),
            metrics=tuple(spec.metrics) if spec.metrics is not None else None,
        )

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


_OWN_OPTIONS = ("value_pattern", "value_keyword", "days", "metrics")
"""SourceSpec fields that only some formats read (see ``InputFormat.own_options``)."""


def _check_own_options(spec: SourceSpec) -> None:
    fmt = input_format(spec.format)
    for option in _OWN_OPTIONS:
        if getattr(spec, option) is not None and option not in fmt.own_options:
            raise SpecError(f"{option} does not apply to format {fmt.name!r}")


def _check_dimensions(spec: SourceSpec) -> None:
    for dimension, rule in spec.dimensions:
        try:
            compile_rule(dimension, rule)
        except ValueError as error:
            raise SpecError(str(error)) from None


def _days(days: int | None) -> int | None:
    if days is not None and (isinstance(days, bool) or not isinstance(days, int) or days < 1):
        raise SpecError(f"days {days!r} is not a whole number of days, at least 1")
    return days


def _value_pattern(spec: SourceSpec) -> re.Pattern[str] | None:
    if spec.value_pattern is None:
        if spec.value_keyword is not None:
            raise SpecError("value_keyword needs a value_pattern to search its messages with")
        return None
    pattern = _compile("value pattern", spec.value_pattern)
    if not pattern.groupindex:
        raise SpecError(
            f"value pattern {spec.value_pattern!r} has no named group: name the number "
            f"(?P<{VALUE_GROUP}>...) or after its metric (?P<latency>...)"
        )
    return pattern
