"""``trending_sources``: each named entry checked and turned into a :class:`Source`.

A bad entry is left out (or a bad key falls back to its default) with an
issue that names the source and the key, so one typo never hides the rest
of the site.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sphinxcontrib_trending.analysis.classify import DIRECTIONS
from sphinxcontrib_trending.analysis.identity import SAMPLE_MODES
from sphinxcontrib_trending.conf.issues import Checker, Invalid
from sphinxcontrib_trending.conf.links import (
    COMPARE_FIELDS,
    LINK_FIELDS,
    LinkTemplates,
    check_link_template,
)
from sphinxcontrib_trending.ingest.dimensions import overrides_from
from sphinxcontrib_trending.ingest.limits import DEFAULT_LIMITS, ReadLimits
from sphinxcontrib_trending.ingest.metrics import Direction, metric_direction
from sphinxcontrib_trending.ingest.options import SpecError, compile_options
from sphinxcontrib_trending.ingest.spec import (
    DEFAULT_BUILD_PATTERN,
    DEFAULT_VERSION_PATTERN,
    FORMATS,
    SourceSpec,
)

SOURCE_KEYS = (
    "paths",
    "format",
    "build_pattern",
    "version_pattern",
    "testbed",
    "metric",
    "unit",
    "direction",
    "samples",
    "value_pattern",
    "value_keyword",
    "limits",
    "encoding",
    "dimensions",
    "days",
    "metrics",
    "build_url",
    "version_url",
    "compare_url",
)


@dataclass(frozen=True)
class Source:
    """A named source: how to ingest it plus its analysis defaults."""

    name: str
    spec: SourceSpec
    samples: str = "runs"
    links: LinkTemplates = field(default_factory=LinkTemplates)
    """Where its builds' and versions' pages are: its own templates over conf.py's."""

    @property
    def metric(self) -> str:
        return self.spec.metric

    @property
    def direction(self) -> str | None:
        """The direction the user set for this source, None if they left it to the metric."""
        return self.spec.direction

    def direction_for(self, metric: str) -> Direction:
        """Which way ``metric`` improves: the source's ``direction`` if set, else the table's."""
        return metric_direction(metric, self.spec.direction)


def check_sources(value: Mapping[Any, Any], key: str, checker: Checker) -> dict[str, Source]:
    sources: dict[str, Source] = {}
    for name, raw in value.items():
        if not isinstance(name, str) or not name:
            checker.reject(key, f"source names are strings, got {name!r}")
            continue
        source = _EntryChecker(checker, f"{key}[{name!r}]", name).source(raw)
        if source is not None:
            sources[name] = source
    return sources


class _EntryChecker:
    """Checks one entry, reporting every issue with the source's name and key."""

    def __init__(self, checker: Checker, key: str, name: str) -> None:
        self.checker = checker
        self.key = key
        self.name = name

    def reject(self, option: str | None, message: str) -> None:
        key = self.key if option is None else f"{self.key}[{option!r}]"
        self.checker.reject(key, message, self.name)

    def source(self, raw: Any) -> Source | None:
        if isinstance(raw, (str, list, tuple)):
            raw = {"paths": raw}
        if not isinstance(raw, Mapping):
            self.reject(None, f"expected a dict with at least 'paths', got {raw!r}")
            return None
        self.checker.unknown_keys(self.key, raw, SOURCE_KEYS, self.name)
        try:
            paths = _paths(raw.get("paths"), self.checker.base_dir)
        except Invalid as error:
            self.reject("paths" if raw.get("paths") else None, f"{error}; the source is left out")
            return None
        testbed = raw.get("testbed")
        by_address = isinstance(testbed, Mapping)
        testbed_map = {str(k): str(v) for k, v in testbed.items()} if by_address else {}
        spec = SourceSpec(
            paths=paths,
            format=self.choice(raw, "format", FORMATS, "robot"),
            build_pattern=self.regex(raw, "build_pattern", DEFAULT_BUILD_PATTERN),
            version_pattern=self.regex(raw, "version_pattern", DEFAULT_VERSION_PATTERN),
            testbed_pattern=None if by_address else self.regex(raw, "testbed", "") or None,
            testbed_map=testbed_map,
            metric=self.text(raw, "metric", "mrr", "a metric name"),
            unit=self.text(raw, "unit", None, "a unit name such as 'pps'"),
            direction=(
                self.choice(raw, "direction", DIRECTIONS, "higher")
                if raw.get("direction") is not None
                else None
            ),
            value_pattern=self.regex(raw, "value_pattern", "") or None,
            value_keyword=self.text(raw, "value_keyword", None, "a keyword name"),
            limits=self.limits(raw),
            encoding=self.text(raw, "encoding", None, "an encoding name such as 'latin-1'"),
            dimensions=self.dimensions(raw),
            days=self.days(raw),
            metrics=self.names(raw, "metrics"),
        )
        try:
            compile_options(spec)
        except SpecError as error:
            self.reject(None, f"{error}; the source is left out")
            return None
        links = LinkTemplates(
            self.template(raw, "build_url"),
            self.template(raw, "version_url"),
            self.template(raw, "compare_url", COMPARE_FIELDS),
        )
        return Source(self.name, spec, self.choice(raw, "samples", SAMPLE_MODES, "runs"), links)

    def template(
        self, raw: Mapping[str, Any], option: str, fields: tuple[str, ...] = LINK_FIELDS
    ) -> str | None:
        value = raw.get(option)
        if value is None:
            return None
        try:
            return check_link_template(value, fields) if isinstance(value, str) else None
        except ValueError as error:
            self.reject(option, f"{error}; no links")
            return None

    def choice(
        self, raw: Mapping[str, Any], option: str, choices: tuple[str, ...], default: str
    ) -> str:
        value = raw.get(option, default)
        if isinstance(value, str) and value in choices:
            return value
        self.reject(
            option, f"expected one of {', '.join(choices)}, got {value!r}; using {default!r}"
        )
        return default

    def regex(self, raw: Mapping[str, Any], option: str, default: str) -> str:
        value = raw.get(option, default)
        if value is None and not default:
            return default
        if not isinstance(value, str):
            self.reject(option, f"expected a regular expression string, got {value!r}")
            return default
        try:
            re.compile(value)
        except re.error as error:
            self.reject(option, f"invalid regular expression {value!r}: {error}")
            return default
        return value

    def limits(self, raw: Mapping[str, Any]) -> ReadLimits:
        value = raw.get("limits", {})
        try:
            if not isinstance(value, Mapping):
                raise ValueError(f"expected a dict of limits, got {value!r}")
            return ReadLimits.from_mapping(value)
        except ValueError as error:
            self.reject("limits", f"{error}; the default limits are used")
            return DEFAULT_LIMITS

    def dimensions(self, raw: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        """Rules replacing built-in dimension rules; a bad one leaves the built-ins."""
        value = raw.get("dimensions", {})
        try:
            if not isinstance(value, Mapping):
                raise ValueError(f"expected a dict of dimension rules, got {value!r}")
            return overrides_from(value)
        except ValueError as error:
            self.reject("dimensions", f"{error}; the built-in rules are used")
            return ()

    def days(self, raw: Mapping[str, Any]) -> int | None:
        value = raw.get("days")
        if value is None or (isinstance(value, int) and not isinstance(value, bool) and value > 0):
            return value
        self.reject("days", f"expected a whole number of days, at least 1, got {value!r}")
        return None

    def names(self, raw: Mapping[str, Any], option: str) -> tuple[str, ...] | None:
        value = raw.get(option)
        if value is None:
            return None
        if (
            isinstance(value, (list, tuple))
            and value
            and all(isinstance(name, str) and name for name in value)
        ):
            return tuple(value)
        self.reject(option, f"expected a list of metric names, got {value!r}; reading all")
        return None

    def text(self, raw: Mapping[str, Any], option: str, default: Any, what: str) -> Any:
        value = raw.get(option, default)
        if value is default or (isinstance(value, str) and value):
            return value
        self.reject(option, f"expected {what}, got {value!r}")
        return default


def _paths(value: Any, base_dir: Path) -> tuple[str, ...]:
    """Relative paths are made absolute against conf.py's folder; URLs stay as given."""
    if not value:
        raise Invalid("has no 'paths'")
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(p, str) for p in items):
        raise Invalid(f"expected a path, URL or glob, or a list of them, got {value!r}")
    return tuple(p if "://" in p or Path(p).is_absolute() else str(base_dir / p) for p in items)
