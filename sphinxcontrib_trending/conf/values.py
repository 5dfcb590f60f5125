"""Every ``trending_*`` conf.py value, declared once.

Each field of :class:`ConfValues` carries, in one :class:`Option`, the
conf.py default, the Python types it accepts, the check that turns it into
its typed value, what changing it rebuilds and a one-line help.  Sphinx
registration, the CLI's ``--conf`` reading, validation and the
configuration reference page are all generated from these fields, so a new
setting is one new field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from sphinxcontrib_trending.analysis import AnomalyPolicy
from sphinxcontrib_trending.analysis.calibration import CALIBRATIONS, Calibration
from sphinxcontrib_trending.analysis.classify import SEARCHES, Search
from sphinxcontrib_trending.analysis.degradation.strategies import APPLY_MODES
from sphinxcontrib_trending.analysis.normalisation import FrequencyNorm
from sphinxcontrib_trending.analysis.windows import WINDOW_MODES, WindowMode
from sphinxcontrib_trending.conf import checks
from sphinxcontrib_trending.conf.checks import ExclusionsFile, KnownChangesFile
from sphinxcontrib_trending.conf.issues import Checker, unknown_key_message
from sphinxcontrib_trending.conf.option import Option, declare
from sphinxcontrib_trending.conf.sources import Source, check_sources

PREFIX = "trending_"


@dataclass(frozen=True)
class ConfValues:
    """The typed value of every ``trending_*`` option, in reference-page order."""

    sources: dict[str, Source] = field(
        metadata=declare(
            default={},
            types=(dict,),
            check=check_sources,
            rebuild="env",
            help="Named sources of archived results: name -> dict of source keys.",
            doc_type="dict[str, dict]",
        )
    )
    short_term_days: timedelta = field(
        metadata=declare(
            default=7,
            types=(int, float),
            check=checks.days,
            rebuild="env",
            help="The short-term window of trend compliance and dashboard counts, in days.",
            doc_type="float",
        )
    )
    long_term_days: timedelta = field(
        metadata=declare(
            default=90,
            types=(int, float),
            check=checks.days,
            rebuild="env",
            help="The long-term window of trend compliance, in days.",
            doc_type="float",
        )
    )
    failed_days: timedelta = field(
        metadata=declare(
            default=7,
            types=(int, float),
            check=checks.days,
            rebuild="env",
            help="The window of the failed-tests tables, in days.",
            doc_type="float",
        )
    )
    window_mode: WindowMode = field(
        metadata=declare(
            default="time",
            types=(str,),
            check=checks.one_of(WINDOW_MODES),
            rebuild="env",
            help="Measure the windows in days (time) or in runs (runs).",
            doc_type='"time" | "runs"',
        )
    )
    short_term_runs: int = field(
        metadata=declare(
            default=14,
            types=(int, float),
            check=checks.runs,
            rebuild="env",
            help="The short-term window in runs mode.",
            doc_type="int",
        )
    )
    long_term_runs: int = field(
        metadata=declare(
            default=180,
            types=(int, float),
            check=checks.runs,
            rebuild="env",
            help="The long-term window in runs mode.",
            doc_type="int",
        )
    )
    search: Search = field(
        metadata=declare(
            default="exact",
            types=(str,),
            check=checks.one_of(SEARCHES),
            rebuild="env",
            help="The grouping's search: fewest bits (exact) or the reference library's (jumpavg).",
            doc_type='"exact" | "jumpavg"',
        )
    )
    anomaly_policy: AnomalyPolicy = field(
        metadata=declare(
            default={},
            types=(dict,),
            check=checks.policy,
            rebuild="env",
            help="How firmly anomalies are reported; empty reports every change firmly.",
            doc_type="dict",
        )
    )
    sbps: float | None = field(
        metadata=declare(
            default=None,
            types=(int, float),
            check=checks.positive,
            rebuild="env",
            help="Significant bits per sample of the grouping; None means 12.",
            doc_type="float | None",
        )
    )
    outlier_runs: int | None = field(
        metadata=declare(
            default=None,
            types=(int,),
            check=checks.outlier_runs,
            rebuild="env",
            help="Longest excursion (in runs) that can be an outlier, not two changes; "
            "0 for none, None for 3 with exact and 0 with jumpavg.",
            doc_type="int | None",
        )
    )
    calibration: Calibration = field(
        metadata=declare(
            default="auto",
            types=(str,),
            check=checks.one_of(CALIBRATIONS),
            rebuild="env",
            help="The grouping's resolution and judging: the seed's (1/8191 of the largest "
            "value, every change), the series' spread's (a quarter of its stdev, 95 % "
            "confidence with the serial-correlation discount), or auto (the seed's for "
            "CSIT's formats or when sbps is set, else the spread's).",
            doc_type='"auto" | "seed" | "spread"',
        )
    )
    false_alarm_target: float | None = field(
        metadata=declare(
            default=None,
            types=(int, float),
            check=checks.positive,
            rebuild="env",
            help="False alarms per 100 runs each test's confidence threshold is raised to "
            "reach under its own noise; None keeps the policy's threshold for every test.",
            doc_type="float | None",
        )
    )
    known_changes: KnownChangesFile | None = field(
        metadata=declare(
            default=None,
            types=(str, Path),
            check=checks.known_changes,
            rebuild="env",
            help="A TOML file of acknowledged anomalies, relative to conf.py.",
            doc_type="str | None",
        )
    )
    excluded_runs: ExclusionsFile | None = field(
        metadata=declare(
            default=None,
            types=(str, Path),
            check=checks.excluded_runs,
            rebuild="env",
            help="A TOML file of runs left out of every grouping, with reasons; "
            "relative to conf.py.",
            doc_type="str | None",
        )
    )
    norm_frequency: FrequencyNorm | None = field(
        metadata=declare(
            default=None,
            types=(dict,),
            check=checks.norm_frequency,
            rebuild="env",
            help="Scale rates to a reference CPU frequency: {'reference': GHz, "
            "'testbeds': {testbed: GHz}}; None leaves values as measured.",
            doc_type="dict | None",
        )
    )
    cache_dir: Path | None = field(
        metadata=declare(
            default=None,
            types=(str, Path),
            check=checks.folder,
            rebuild="",
            help="Where the results store and downloads are kept, relative to conf.py.",
            doc_type="str | None",
        )
    )
    workers: int | None = field(
        metadata=declare(
            default=None,
            types=(int,),
            check=checks.workers,
            rebuild="",
            help="Processes that parse new inputs and group series, forked from the build; "
            "None means one per core (or -j N if more), 1 keeps both in the build's own "
            "process.",
            doc_type="int | None",
        )
    )
    plotlyjs: str = field(
        metadata=declare(
            default="bundled",
            types=(str,),
            check=checks.plotlyjs,
            rebuild="html",
            help="Where graph pages load plotly.js from: bundled, cdn or an https:// URL.",
            doc_type='"bundled" | "cdn" | str',
        )
    )
    docs_base_url: str | None = field(
        metadata=declare(
            default=None,
            types=(str,),
            check=checks.as_is,
            rebuild="",
            help="The published address of the site, for links in alerts.",
            doc_type="str | None",
        )
    )
    build_url: str | None = field(
        metadata=declare(
            default=None,
            types=(str,),
            check=checks.link_template,
            rebuild="env",
            help="URL template of a CI job build's page ({job}, {build}, {version}, {testbed}).",
            doc_type="str | None",
        )
    )
    version_url: str | None = field(
        metadata=declare(
            default=None,
            types=(str,),
            check=checks.link_template,
            rebuild="env",
            help="URL template of a DUT version's page ({version}, {job}, {build}, {testbed}).",
            doc_type="str | None",
        )
    )
    compare_url: str | None = field(
        metadata=declare(
            default=None,
            types=(str,),
            check=checks.compare_template,
            rebuild="env",
            help="URL template of the commits a change lies between "
            "({last_good}, {first_bad}, {job}, {testbed}).",
            doc_type="str | None",
        )
    )
    webhook: str | None = field(
        metadata=declare(
            default=None,
            types=(str,),
            check=checks.webhook,
            rebuild="",
            help="Slack-compatible webhook URL that check posts a failing verdict to.",
            doc_type="str | None",
        )
    )
    degradation_strategies: list[Any] | tuple[Any, ...] = field(
        metadata=declare(
            default=[],
            types=(list, tuple),
            check=checks.as_is,
            rebuild="env",
            help="Ordered rules: which degradation method judges which tests.",
            doc_type="list[dict]",
        )
    )
    degradation_apply: str = field(
        metadata=declare(
            default="first",
            types=(str,),
            check=checks.one_of(APPLY_MODES),
            rebuild="env",
            help="Apply the first matching strategy rule to a test, or all of them.",
            doc_type='"first" | "all"',
        )
    )

    @classmethod
    def parse(cls, raw: Mapping[str, Any], checker: Checker) -> ConfValues:
        """Check every declared value of ``raw``; unknown ``trending_*`` names are issues."""
        for name in sorted(set(raw) - set(OPTIONS)):
            if name.startswith(PREFIX):
                checker.reject(name, unknown_key_message(name, tuple(OPTIONS), "setting"))
        return cls(
            **{
                name.removeprefix(PREFIX): option.parse(
                    raw[name] if name in raw else option.fresh_default(), checker
                )
                for name, option in OPTIONS.items()
            }
        )


OPTIONS: dict[str, Option] = {
    PREFIX + declared.name: replace(declared.metadata["option"], name=PREFIX + declared.name)
    for declared in fields(ConfValues)
}
"""Every option by its conf.py name, in declaration order."""


def raw_values(config: Any) -> dict[str, Any]:
    """The declared values of a Sphinx ``Config``, plus any other ``trending_*`` name
    conf.py set (a misspelt option is otherwise silently ignored)."""
    raw = {name: getattr(config, name) for name in OPTIONS}
    for name, value in getattr(config, "_raw_config", {}).items():
        if name.startswith(PREFIX):
            raw.setdefault(name, value)
    return raw
