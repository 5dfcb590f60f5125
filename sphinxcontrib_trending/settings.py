"""Typed, validated configuration shared by the Sphinx extension and the CLI.

conf.py holds loose Python values; everything downstream wants typed ones.
Each option is declared once, in :mod:`sphinxcontrib_trending.conf.values`.
Validation never raises on a single bad value: it records a
:class:`ConfigIssue` naming the key, falls back to the default, and lets the
caller decide how loudly to complain (a Sphinx warning, or exit code 2 in the
CLI).  Only a configuration that cannot produce anything is fatal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from sphinxcontrib_trending.analysis import AnomalyPolicy
from sphinxcontrib_trending.analysis.acknowledged import KnownChanges
from sphinxcontrib_trending.analysis.classify import DIRECTIONS, SEARCHES
from sphinxcontrib_trending.analysis.degradation.strategies import (
    Strategies,
    StrategyError,
    parse_strategies,
)
from sphinxcontrib_trending.analysis.excluded import NO_EXCLUSIONS, Exclusions
from sphinxcontrib_trending.analysis.identity import SAMPLE_MODES
from sphinxcontrib_trending.analysis.normalisation import FrequencyNorm
from sphinxcontrib_trending.analysis.windows import Windows
from sphinxcontrib_trending.conf.issues import Checker, ConfigIssue
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.conf.sources import Source
from sphinxcontrib_trending.conf.values import OPTIONS, ConfValues, raw_values

__all__ = [
    "DIRECTIONS",
    "OPTIONS",
    "SAMPLE_MODES",
    "SEARCHES",
    "ConfigIssue",
    "Settings",
    "Source",
    "Windows",
    "raw_values",
    "validate",
]


@dataclass(frozen=True)
class Settings:
    sources: Mapping[str, Source] = field(default_factory=dict)
    windows: Windows = field(default_factory=Windows)
    cache_dir: Path | None = None
    plotlyjs: str = "bundled"
    search: str = "exact"
    docs_base_url: str | None = None
    webhook: str | None = None
    strategies: Strategies | None = None
    policy: AnomalyPolicy = field(default_factory=AnomalyPolicy)
    sbps: float | None = None
    outlier_runs: int | None = None
    calibration: str = "auto"
    false_alarm_target: float | None = None
    known_changes: KnownChanges | None = None
    known_changes_path: Path | None = None
    excluded_runs: Exclusions = NO_EXCLUSIONS
    """Runs left out of every grouping; each source's grouping takes its own share."""
    excluded_runs_path: Path | None = None
    norm_frequency: FrequencyNorm | None = None
    workers: int | None = None


def validate(raw: Mapping[str, Any], base_dir: Path) -> tuple[Settings, list[ConfigIssue]]:
    """Turn raw ``trending_*`` values into :class:`Settings`.

    Relative paths are resolved against ``base_dir`` (the directory of
    conf.py), so a build gives the same result from any working directory.
    """
    checker = Checker(base_dir)
    values = ConfValues.parse(raw, checker)
    known = values.known_changes
    excluded = values.excluded_runs
    links = LinkTemplates(values.build_url, values.version_url, values.compare_url)
    settings = Settings(
        sources={
            name: replace(source, links=source.links.over(links))
            for name, source in values.sources.items()
        },
        windows=_windows(values, checker),
        cache_dir=values.cache_dir,
        plotlyjs=values.plotlyjs,
        search=values.search,
        docs_base_url=values.docs_base_url,
        webhook=values.webhook,
        strategies=_strategies(values, checker),
        policy=values.anomaly_policy,
        sbps=values.sbps,
        outlier_runs=values.outlier_runs,
        calibration=values.calibration,
        false_alarm_target=values.false_alarm_target,
        norm_frequency=values.norm_frequency,
        workers=values.workers,
        known_changes=known.changes if known else None,
        known_changes_path=known.path if known else None,
        excluded_runs=excluded.exclusions if excluded else NO_EXCLUSIONS,
        excluded_runs_path=excluded.path if excluded else None,
    )
    return settings, checker.issues


def _windows(values: ConfValues, checker: Checker) -> Windows:
    long = values.long_term_days
    if long <= values.short_term_days:
        long = timedelta(days=OPTIONS["trending_long_term_days"].default)
        checker.reject(
            "trending_long_term_days",
            f"must be longer than trending_short_term_days; using {long.days}",
        )
    return Windows(
        short=values.short_term_days,
        long=long,
        failed=values.failed_days,
        mode=values.window_mode,
        short_runs=values.short_term_runs,
        long_runs=values.long_term_runs,
    )


def _strategies(values: ConfValues, checker: Checker) -> Strategies | None:
    """None when no rule is configured: comparisons then use the default method."""
    if not values.degradation_strategies:
        return None
    try:
        return parse_strategies(values.degradation_strategies, values.degradation_apply)
    except StrategyError as error:
        checker.reject(
            "trending_degradation_strategies", f"{error}; using the default method for every test"
        )
        return None
