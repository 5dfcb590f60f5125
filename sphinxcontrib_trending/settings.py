"""Typed, validated configuration shared by the Sphinx extension and the CLI.

conf.py holds loose Python values; everything downstream wants typed ones.
Validation never raises on a single bad value: it records a
:class:`ConfigIssue` naming the key, falls back to the default, and lets the
caller decide how loudly to complain (a Sphinx warning, or exit code 2 in the
CLI).  Only a configuration that cannot produce anything is fatal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from sphinxcontrib_trending.analysis import AnomalyPolicy
from sphinxcontrib_trending.analysis.acknowledged import (
    KnownChanges,
    KnownChangesError,
    load_known_changes,
)
from sphinxcontrib_trending.analysis.degradation.strategies import (
    Strategies,
    StrategyError,
    parse_strategies,
)
from sphinxcontrib_trending.ingest.options import ReadOptions, SpecError
from sphinxcontrib_trending.ingest.spec import (
    DEFAULT_BUILD_PATTERN,
    DEFAULT_VERSION_PATTERN,
    DIRECTIONS,
    FORMATS,
    SourceSpec,
)

SEARCHES = ("exact", "jumpavg")
SAMPLE_MODES = ("runs", "trials")
WINDOW_MODES = ("time", "runs")
PLOTLYJS_CHOICES = ("bundled", "cdn")

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
)


@dataclass(frozen=True)
class ConfigIssue:
    """One rejected configuration value, reported with the key that holds it."""

    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.key}: {self.message}"


@dataclass(frozen=True)
class Source:
    """A named source: how to ingest it plus its analysis defaults."""

    name: str
    spec: SourceSpec
    samples: str = "runs"

    @property
    def metric(self) -> str:
        return self.spec.metric

    @property
    def direction(self) -> str:
        return self.spec.direction


@dataclass(frozen=True)
class Windows:
    """Trend-compliance and failed-tests windows.

    In ``time`` mode (the methodology's weeks and months) the windows are
    time spans; ``runs`` mode counts runs, as the reference implementation
    did, for sites that want its numbers.
    """

    short: timedelta = timedelta(days=7)
    long: timedelta = timedelta(days=90)
    failed: timedelta = timedelta(days=7)
    mode: str = "time"
    short_runs: int = 14
    long_runs: int = 180


@dataclass(frozen=True)
class Settings:
    sources: Mapping[str, Source] = field(default_factory=dict)
    windows: Windows = field(default_factory=Windows)
    cache_dir: Path | None = None
    plotlyjs: str = "bundled"
    search: str = "exact"
    docs_base_url: str | None = None
    strategies: Strategies | None = None
    policy: AnomalyPolicy = field(default_factory=AnomalyPolicy)
    sbps: float | None = None
    known_changes: KnownChanges | None = None
    known_changes_path: Path | None = None


DEFAULTS: dict[str, Any] = {
    "trending_sources": {},
    "trending_short_term_days": 7,
    "trending_long_term_days": 90,
    "trending_failed_days": 7,
    "trending_window_mode": "time",
    "trending_short_term_runs": 14,
    "trending_long_term_runs": 180,
    "trending_cache_dir": None,
    "trending_plotlyjs": "bundled",
    "trending_search": "exact",
    "trending_docs_base_url": None,
    "trending_degradation_strategies": [],
    "trending_degradation_apply": "first",
    "trending_anomaly_policy": {},
    "trending_sbps": None,
    "trending_known_changes": None,
}
"""Every ``trending_*`` conf.py value with its default, in one place."""


class _Validator:
    """Collects issues while turning raw values into typed ones."""

    def __init__(self, raw: Mapping[str, Any], base_dir: Path) -> None:
        self.raw = raw
        self.base_dir = base_dir
        self.issues: list[ConfigIssue] = []

    def value(self, key: str) -> Any:
        return self.raw.get(key, DEFAULTS[key])

    def reject(self, key: str, message: str) -> None:
        self.issues.append(ConfigIssue(key, message))

    def choice(self, key: str, choices: tuple[str, ...], value: Any = None) -> str:
        value = self.value(key) if value is None else value
        if isinstance(value, str) and value in choices:
            return value
        self.reject(key, f"expected one of {', '.join(choices)}, got {value!r}; using the default")
        return DEFAULTS[key]

    def positive_number(self, key: str) -> float:
        value = self.value(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return float(value)
        self.reject(key, f"expected a positive number, got {value!r}; using {DEFAULTS[key]}")
        return float(DEFAULTS[key])

    def days(self, key: str) -> timedelta:
        return timedelta(days=self.positive_number(key))

    def runs(self, key: str) -> int:
        return max(1, round(self.positive_number(key)))


def _regex(validator: _Validator, key: str, value: Any, default: str) -> str:
    if not isinstance(value, str):
        validator.reject(key, f"expected a regular expression string, got {value!r}")
        return default
    try:
        re.compile(value)
    except re.error as error:
        validator.reject(key, f"invalid regular expression {value!r}: {error}")
        return default
    return value


def _paths(validator: _Validator, key: str, value: Any) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(p, str) for p in items):
        validator.reject(key, f"expected a path, URL or glob, or a list of them, got {value!r}")
        return ()
    return tuple(
        p if "://" in p or Path(p).is_absolute() else str(validator.base_dir / p) for p in items
    )


def _source(validator: _Validator, name: str, raw: Any) -> Source | None:
    key = f"trending_sources[{name!r}]"
    if isinstance(raw, (str, list, tuple)):
        raw = {"paths": raw}
    if not isinstance(raw, Mapping):
        validator.reject(key, f"expected a dict with at least 'paths', got {raw!r}")
        return None
    for unknown in sorted(set(raw) - set(SOURCE_KEYS)):
        validator.reject(
            f"{key}[{unknown!r}]", f"unknown key; known keys: {', '.join(SOURCE_KEYS)}"
        )
    paths = _paths(validator, f"{key}['paths']", raw.get("paths"))
    if not paths:
        validator.reject(key, "has no usable 'paths'; the source is left out")
        return None
    testbed = raw.get("testbed")
    testbed_pattern: str | None = None
    testbed_map: dict[str, str] = {}
    if isinstance(testbed, Mapping):
        testbed_map = {str(k): str(v) for k, v in testbed.items()}
    elif testbed is not None:
        testbed_pattern = _regex(validator, f"{key}['testbed']", testbed, "") or None
    unit = raw.get("unit")
    if unit is not None and not isinstance(unit, str):
        validator.reject(f"{key}['unit']", f"expected a unit name such as 'pps', got {unit!r}")
        unit = None
    metric = raw.get("metric", "mrr")
    if not isinstance(metric, str) or not metric:
        validator.reject(f"{key}['metric']", f"expected a metric name, got {metric!r}")
        metric = "mrr"
    value_pattern = raw.get("value_pattern")
    if value_pattern is not None:
        value_pattern = _regex(validator, f"{key}['value_pattern']", value_pattern, "") or None
    value_keyword = raw.get("value_keyword")
    if value_keyword is not None and not isinstance(value_keyword, str):
        validator.reject(
            f"{key}['value_keyword']", f"expected a keyword name, got {value_keyword!r}"
        )
        value_keyword = None
    spec = SourceSpec(
        paths=paths,
        format=_source_choice(validator, key, raw, "format", FORMATS, "robot"),
        build_pattern=_regex(
            validator,
            f"{key}['build_pattern']",
            raw.get("build_pattern", DEFAULT_BUILD_PATTERN),
            DEFAULT_BUILD_PATTERN,
        ),
        version_pattern=_regex(
            validator,
            f"{key}['version_pattern']",
            raw.get("version_pattern", DEFAULT_VERSION_PATTERN),
            DEFAULT_VERSION_PATTERN,
        ),
        testbed_pattern=testbed_pattern,
        testbed_map=testbed_map,
        metric=metric,
        unit=unit,
        direction=_source_choice(validator, key, raw, "direction", DIRECTIONS, "higher"),
        value_pattern=value_pattern,
        value_keyword=value_keyword,
    )
    try:
        ReadOptions.from_spec(spec)
    except SpecError as error:
        validator.reject(key, f"{error}; the source is left out")
        return None
    samples = _source_choice(validator, key, raw, "samples", SAMPLE_MODES, "runs")
    return Source(name=name, spec=spec, samples=samples)


def _source_choice(
    validator: _Validator,
    key: str,
    raw: Mapping[str, Any],
    option: str,
    choices: tuple[str, ...],
    default: str,
) -> str:
    value = raw.get(option, default)
    if isinstance(value, str) and value in choices:
        return value
    validator.reject(
        f"{key}[{option!r}]",
        f"expected one of {', '.join(choices)}, got {value!r}; using {default!r}",
    )
    return default


def _plotlyjs(validator: _Validator) -> str:
    value = validator.value("trending_plotlyjs")
    if isinstance(value, str) and (value in PLOTLYJS_CHOICES or value.startswith("https://")):
        return value
    validator.reject(
        "trending_plotlyjs",
        f"expected 'bundled', 'cdn' or an https:// URL, got {value!r}; using 'bundled'",
    )
    return "bundled"


POLICY_KEYS = ("min_confidence", "min_change", "provisional_runs", "discount_serial_correlation")


def _policy(validator: _Validator) -> AnomalyPolicy:
    """The anomaly policy; an empty dict keeps the methodology's labels exactly."""
    raw = validator.value("trending_anomaly_policy")
    if not isinstance(raw, Mapping):
        validator.reject("trending_anomaly_policy", f"expected a dict, got {raw!r}")
        return AnomalyPolicy()
    unknown = sorted(set(raw) - set(POLICY_KEYS))
    if unknown:
        validator.reject(
            "trending_anomaly_policy",
            f"unknown key(s) {', '.join(map(repr, unknown))}; known: {', '.join(POLICY_KEYS)}",
        )
    try:
        return AnomalyPolicy(**{key: raw[key] for key in POLICY_KEYS if key in raw})
    except (TypeError, ValueError) as error:
        validator.reject("trending_anomaly_policy", f"{error}; using the default policy")
        return AnomalyPolicy()


def _sbps(validator: _Validator) -> float | None:
    value = validator.value("trending_sbps")
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    validator.reject("trending_sbps", f"expected a positive number or None, got {value!r}")
    return None


def _known_changes(validator: _Validator) -> tuple[KnownChanges | None, Path | None]:
    raw = validator.value("trending_known_changes")
    if raw is None:
        return None, None
    if not isinstance(raw, (str, Path)):
        validator.reject("trending_known_changes", f"expected a file path, got {raw!r}")
        return None, None
    path = validator.base_dir / raw
    try:
        return load_known_changes(path), path
    except KnownChangesError as error:
        validator.reject("trending_known_changes", f"{error}; no change is acknowledged")
        return None, path


def _strategies(validator: _Validator) -> Strategies | None:
    """None when no rule is configured: comparisons then use the default method."""
    rules = validator.value("trending_degradation_strategies")
    apply = validator.choice("trending_degradation_apply", ("first", "all"))
    if not rules:
        return None
    try:
        return parse_strategies(rules, apply)
    except StrategyError as error:
        validator.reject(
            "trending_degradation_strategies", f"{error}; using the default method for every test"
        )
        return None


def validate(raw: Mapping[str, Any], base_dir: Path) -> tuple[Settings, list[ConfigIssue]]:
    """Turn raw ``trending_*`` values into :class:`Settings`.

    Relative source paths are resolved against ``base_dir`` (the directory of
    conf.py), so a build gives the same result from any working directory.
    """
    validator = _Validator(raw, base_dir)
    sources_raw = validator.value("trending_sources")
    sources: dict[str, Source] = {}
    if not isinstance(sources_raw, Mapping):
        validator.reject("trending_sources", f"expected a dict name -> source, got {sources_raw!r}")
    else:
        for name, source_raw in sources_raw.items():
            if not isinstance(name, str) or not name:
                validator.reject("trending_sources", f"source names are strings, got {name!r}")
                continue
            source = _source(validator, name, source_raw)
            if source is not None:
                sources[name] = source
    windows = Windows(
        short=validator.days("trending_short_term_days"),
        long=validator.days("trending_long_term_days"),
        failed=validator.days("trending_failed_days"),
        mode=validator.choice("trending_window_mode", WINDOW_MODES),
        short_runs=validator.runs("trending_short_term_runs"),
        long_runs=validator.runs("trending_long_term_runs"),
    )
    if windows.long <= windows.short:
        validator.reject(
            "trending_long_term_days", "must be longer than trending_short_term_days; using 90"
        )
        windows = replace(windows, long=timedelta(days=90))
    cache_raw = validator.value("trending_cache_dir")
    cache_dir: Path | None = None
    if cache_raw is not None:
        if isinstance(cache_raw, (str, Path)):
            cache_dir = base_dir / cache_raw
        else:
            validator.reject("trending_cache_dir", f"expected a folder path, got {cache_raw!r}")
    base_url = validator.value("trending_docs_base_url")
    if base_url is not None and not isinstance(base_url, str):
        validator.reject("trending_docs_base_url", f"expected a URL string, got {base_url!r}")
        base_url = None
    known_changes, known_changes_path = _known_changes(validator)
    settings = Settings(
        policy=_policy(validator),
        sbps=_sbps(validator),
        known_changes=known_changes,
        known_changes_path=known_changes_path,
        strategies=_strategies(validator),
        sources=sources,
        windows=windows,
        cache_dir=cache_dir,
        plotlyjs=_plotlyjs(validator),
        search=validator.choice("trending_search", SEARCHES),
        docs_base_url=base_url,
    )
    return settings, validator.issues
