"""A :class:`SourceSpec` checked and compiled once, before any file is read.

A wrong regular expression or format is the user's configuration, not bad
data: it raises :class:`SpecError` at once (the CLI turns it into exit code 2,
the Sphinx layer into a configuration error) instead of a warning per file.
"""

from __future__ import annotations

import codecs
import re

from sphinxcontrib_trending.ingest.dimensions import compile_rule
from sphinxcontrib_trending.ingest.read_options import ReadOptions
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


def compile_options(spec: SourceSpec) -> ReadOptions:
    """The options every reader of ``spec`` gets; :class:`SpecError` if the spec is unusable."""
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
    return ReadOptions(
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
