"""Every ``trending_*`` conf.py value, declared once.

Each field of :class:`ConfValues` carries, in one :class:`Option`, the
conf.py default, the Python types it accepts, the check that turns it into
its typed value, what changing it rebuilds and a one-line help.  Sphinx
registration, the CLI's ``--conf`` reading, validation and the
configuration reference page are all generated from these fields, so a new
setting is one new field.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

from sphinxcontrib_trending.analysis import AnomalyPolicy
from sphinxcontrib_trending.analysis.acknowledged import (
    KnownChanges,
    KnownChangesError,
    load_known_changes,
)
from sphinxcontrib_trending.analysis.classify import SEARCHES, Search
from sphinxcontrib_trending.analysis.degradation.strategies import APPLY_MODES
from sphinxcontrib_trending.analysis.windows import WINDOW_MODES, WindowMode
from sphinxcontrib_trending.conf.issues import Checker, Invalid, unknown_key_message
from sphinxcontrib_trending.conf.sources import Source, check_sources

PREFIX = "trending_"

Rebuild = Literal["env", "html", ""]
"""Sphinx's rebuild kinds: re-read the pages, re-write them, or nothing."""

Check = Callable[[Any, str, Checker], Any]
"""Turns an accepted value into its typed one; raises :class:`Invalid` if unusable."""


@dataclass(frozen=True)
class Option:
    """The declaration of one conf.py value (its name is ``trending_`` + field name)."""

    default: Any
    types: tuple[type, ...]
    check: Check
    rebuild: Rebuild
    help: str
    doc_type: str
    name: str = ""

    def fresh_default(self) -> Any:
        """A copy, so that no caller can change the declared default in place."""
        return copy.deepcopy(self.default)

    def accepts(self, value: Any) -> bool:
        """Whether the value has one of the declared types (None where that is the default)."""
        if value is None:
            return self.default is None
        if isinstance(value, bool) and bool not in self.types:
            return False
        return isinstance(value, self.types)

    def parse(self, value: Any, checker: Checker) -> Any:
        """The typed value; an unusable value is reported and the default used instead."""
        try:
            if not self.accepts(value):
                raise Invalid(f"expected {self.doc_type}, got {value!r}")
            return self.check(value, self.name, checker)
        except Invalid as error:
            checker.reject(self.name, f"{error}; using the default {self.default!r}")
            return self.check(self.fresh_default(), self.name, checker)


def _declare(
    *,
    default: Any,
    types: tuple[type, ...],
    check: Check,
    rebuild: Rebuild,
    help: str,
    doc_type: str,
) -> dict[str, Option]:
    return {"option": Option(default, types, check, rebuild, help, doc_type)}


def _as_is(value: Any, key: str, checker: Checker) -> Any:
    return value


def _one_of(choices: Sequence[str]) -> Check:
    def check(value: Any, key: str, checker: Checker) -> str:
        if value not in choices:
            raise Invalid(f"expected one of {', '.join(choices)}, got {value!r}")
        return value

    return check


def _positive(value: Any, key: str, checker: Checker) -> Any:
    if value is not None and not 0 < value < math.inf:
        raise Invalid(f"expected a positive number, got {value!r}")
    return value


def _days(value: float, key: str, checker: Checker) -> timedelta:
    try:
        return timedelta(days=_positive(value, key, checker))
    except OverflowError:
        raise Invalid(f"{value!r} days is beyond any date") from None


def _runs(value: float, key: str, checker: Checker) -> int:
    return max(1, round(_positive(value, key, checker)))


def _folder(value: str | Path | None, key: str, checker: Checker) -> Path | None:
    return None if value is None else checker.base_dir / value


def _plotlyjs(value: str, key: str, checker: Checker) -> str:
    if value in ("bundled", "cdn") or value.startswith("https://"):
        return value
    raise Invalid(f"expected 'bundled', 'cdn' or an https:// URL, got {value!r}")


POLICY_KEYS = tuple(policy_field.name for policy_field in fields(AnomalyPolicy))


def _policy(value: Mapping[str, Any], key: str, checker: Checker) -> AnomalyPolicy:
    """The anomaly policy; an empty dict keeps the methodology's labels exactly."""
    checker.unknown_keys(key, value, POLICY_KEYS)
    try:
        return AnomalyPolicy(**{name: value[name] for name in POLICY_KEYS if name in value})
    except (TypeError, ValueError) as error:
        raise Invalid(str(error)) from None


@dataclass(frozen=True)
class KnownChangesFile:
    """The acknowledged-changes file: pages depend on it even when it is broken."""

    path: Path
    changes: KnownChanges | None


def _known_changes(value: str | Path | None, key: str, checker: Checker) -> KnownChangesFile | None:
    if value is None:
        return None
    path = checker.base_dir / value
    try:
        return KnownChangesFile(path, load_known_changes(path))
    except KnownChangesError as error:
        checker.reject(key, f"{error}; no change is acknowledged")
        return KnownChangesFile(path, None)


@dataclass(frozen=True)
class ConfValues:
    """The typed value of every ``trending_*`` option, in reference-page order."""

    sources: dict[str, Source] = field(
        metadata=_declare(
            default={},
            types=(dict,),
            check=check_sources,
            rebuild="env",
            help="Named sources of archived results: name -> dict of source keys.",
            doc_type="dict[str, dict]",
        )
    )
    short_term_days: timedelta = field(
        metadata=_declare(
            default=7,
            types=(int, float),
            check=_days,
            rebuild="env",
            help="The short-term window of trend compliance and dashboard counts, in days.",
            doc_type="float",
        )
    )
    long_term_days: timedelta = field(
        metadata=_declare(
            default=90,
            types=(int, float),
            check=_days,
            rebuild="env",
            help="The long-term window of trend compliance, in days.",
            doc_type="float",
        )
    )
    failed_days: timedelta = field(
        metadata=_declare(
            default=7,
            types=(int, float),
            check=_days,
            rebuild="env",
            help="The window of the failed-tests tables, in days.",
            doc_type="float",
        )
    )
    window_mode: WindowMode = field(
        metadata=_declare(
            default="time",
            types=(str,),
            check=_one_of(WINDOW_MODES),
            rebuild="env",
            help="Measure the windows in days (time) or in runs (runs).",
            doc_type='"time" | "runs"',
        )
    )
    short_term_runs: int = field(
        metadata=_declare(
            default=14,
            types=(int, float),
            check=_runs,
            rebuild="env",
            help="The short-term window in runs mode.",
            doc_type="int",
        )
    )
    long_term_runs: int = field(
        metadata=_declare(
            default=180,
            types=(int, float),
            check=_runs,
            rebuild="env",
            help="The long-term window in runs mode.",
            doc_type="int",
        )
    )
    search: Search = field(
        metadata=_declare(
            default="exact",
            types=(str,),
            check=_one_of(SEARCHES),
            rebuild="env",
            help="The grouping's search: fewest bits (exact) or the reference library's (jumpavg).",
            doc_type='"exact" | "jumpavg"',
        )
    )
    anomaly_policy: AnomalyPolicy = field(
        metadata=_declare(
            default={},
            types=(dict,),
            check=_policy,
            rebuild="env",
            help="How firmly anomalies are reported; empty reports every change firmly.",
            doc_type="dict",
        )
    )
    sbps: float | None = field(
        metadata=_declare(
            default=None,
            types=(int, float),
            check=_positive,
            rebuild="env",
            help="Significant bits per sample of the grouping; None means 12.",
            doc_type="float | None",
        )
    )
    known_changes: KnownChangesFile | None = field(
        metadata=_declare(
            default=None,
            types=(str, Path),
            check=_known_changes,
            rebuild="env",
            help="A TOML file of acknowledged anomalies, relative to conf.py.",
            doc_type="str | None",
        )
    )
    cache_dir: Path | None = field(
        metadata=_declare(
            default=None,
            types=(str, Path),
            check=_folder,
            rebuild="",
            help="Where parsed archives and downloads are cached, relative to conf.py.",
            doc_type="str | None",
        )
    )
    plotlyjs: str = field(
        metadata=_declare(
            default="bundled",
            types=(str,),
            check=_plotlyjs,
            rebuild="html",
            help="Where graph pages load plotly.js from: bundled, cdn or an https:// URL.",
            doc_type='"bundled" | "cdn" | str',
        )
    )
    docs_base_url: str | None = field(
        metadata=_declare(
            default=None,
            types=(str,),
            check=_as_is,
            rebuild="",
            help="The published address of the site, for links in alerts.",
            doc_type="str | None",
        )
    )
    degradation_strategies: list[Any] | tuple[Any, ...] = field(
        metadata=_declare(
            default=[],
            types=(list, tuple),
            check=_as_is,
            rebuild="env",
            help="Ordered rules: which degradation method judges which tests.",
            doc_type="list[dict]",
        )
    )
    degradation_apply: str = field(
        metadata=_declare(
            default="first",
            types=(str,),
            check=_one_of(APPLY_MODES),
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
