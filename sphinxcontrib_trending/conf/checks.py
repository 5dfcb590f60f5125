"""The checks that turn accepted conf.py values into typed ones.

Each takes the value, its conf.py key and the :class:`Checker`; it raises
:class:`Invalid` when the value is unusable (the option then falls back to
its default) and reports lesser problems through the checker.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sphinxcontrib_trending.analysis import AnomalyPolicy
from sphinxcontrib_trending.analysis.acknowledged import (
    KnownChanges,
    KnownChangesError,
    load_known_changes,
)
from sphinxcontrib_trending.analysis.excluded import (
    NO_EXCLUSIONS,
    Exclusions,
    ExclusionsError,
    load_exclusions,
)
from sphinxcontrib_trending.analysis.normalisation import FrequencyNorm
from sphinxcontrib_trending.conf.issues import Checker, Invalid
from sphinxcontrib_trending.conf.links import COMPARE_FIELDS, check_link_template
from sphinxcontrib_trending.conf.option import Check


def as_is(value: Any, key: str, checker: Checker) -> Any:
    return value


def one_of(choices: Sequence[str]) -> Check:
    def check(value: Any, key: str, checker: Checker) -> str:
        if value not in choices:
            raise Invalid(f"expected one of {', '.join(choices)}, got {value!r}")
        return value

    return check


def positive(value: Any, key: str, checker: Checker) -> Any:
    if value is not None and not 0 < value < math.inf:
        raise Invalid(f"expected a positive number, got {value!r}")
    return value


def days(value: float, key: str, checker: Checker) -> timedelta:
    try:
        return timedelta(days=positive(value, key, checker))
    except OverflowError:
        raise Invalid(f"{value!r} days is beyond any date") from None


def runs(value: float, key: str, checker: Checker) -> int:
    return max(1, round(positive(value, key, checker)))


def outlier_runs(value: int | None, key: str, checker: Checker) -> int | None:
    if value is not None and (isinstance(value, bool) or value < 0):
        raise Invalid(f"expected an integer >= 0 or None, got {value!r}")
    return value


def workers(value: int | None, key: str, checker: Checker) -> int | None:
    if value is not None and (isinstance(value, bool) or value < 1):
        raise Invalid(f"expected an integer >= 1 or None, got {value!r}")
    return value


def norm_frequency(value: Any, key: str, checker: Checker) -> FrequencyNorm | None:
    """``{"reference": 2.0, "testbeds": {"2n-icx": 2.6}}`` (GHz), or None (off)."""
    if value is None:
        return None
    unknown = sorted(set(value) - {"reference", "testbeds"})
    if unknown:
        raise Invalid(f"unknown key(s) {', '.join(map(repr, unknown))}; known: reference, testbeds")
    testbeds = value.get("testbeds")
    if not isinstance(testbeds, Mapping) or not testbeds:
        raise Invalid(f"'testbeds' must be a non-empty dict of testbed -> GHz, got {testbeds!r}")
    frequencies = {"reference": value.get("reference")} | {
        str(name): frequency for name, frequency in testbeds.items()
    }
    for name, frequency in frequencies.items():
        if isinstance(frequency, bool) or not isinstance(frequency, (int, float)):
            raise Invalid(f"{name!r}: expected a frequency in GHz, got {frequency!r}")
        if not 0 < frequency < math.inf:
            raise Invalid(f"{name!r}: expected a positive frequency in GHz, got {frequency!r}")
    reference = float(frequencies.pop("reference"))
    return FrequencyNorm(reference, tuple(sorted((k, float(v)) for k, v in frequencies.items())))


def folder(value: str | Path | None, key: str, checker: Checker) -> Path | None:
    return None if value is None else checker.base_dir / value


def plotlyjs(value: str, key: str, checker: Checker) -> str:
    if value in ("bundled", "cdn") or value.startswith("https://"):
        return value
    raise Invalid(f"expected 'bundled', 'cdn' or an https:// URL, got {value!r}")


def is_http_url(text: str) -> bool:
    """An http(s) address with a host: all a webhook needs to be posted to."""
    parts = urlsplit(text)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def webhook(value: str | None, key: str, checker: Checker) -> str | None:
    """A webhook URL is a secret: the message says what is wrong without repeating it."""
    if value is None or is_http_url(value):
        return value
    raise Invalid("expected an http:// or https:// URL (the value is a secret: not shown)")


def link_template(value: str | None, key: str, checker: Checker) -> str | None:
    """A URL template for builds or versions (see :mod:`~.conf.links`)."""
    if value is None:
        return None
    try:
        return check_link_template(value)
    except ValueError as error:
        raise Invalid(str(error)) from None


def compare_template(value: str | None, key: str, checker: Checker) -> str | None:
    """A URL template of the commits between two versions (see :mod:`~.conf.links`)."""
    if value is None:
        return None
    try:
        return check_link_template(value, COMPARE_FIELDS)
    except ValueError as error:
        raise Invalid(str(error)) from None


POLICY_KEYS = tuple(policy_field.name for policy_field in fields(AnomalyPolicy))


def policy(value: Mapping[str, Any], key: str, checker: Checker) -> AnomalyPolicy:
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


def known_changes(value: str | Path | None, key: str, checker: Checker) -> KnownChangesFile | None:
    if value is None:
        return None
    path = checker.base_dir / value
    try:
        return KnownChangesFile(path, load_known_changes(path))
    except KnownChangesError as error:
        checker.reject(key, f"{error}; no change is acknowledged")
        return KnownChangesFile(path, None)


@dataclass(frozen=True)
class ExclusionsFile:
    """The excluded-runs file: pages depend on it even when it is broken."""

    path: Path
    exclusions: Exclusions


def excluded_runs(value: str | Path | None, key: str, checker: Checker) -> ExclusionsFile | None:
    """The file's usable entries; its bad entries are warned of where they are used."""
    if value is None:
        return None
    path = checker.base_dir / value
    try:
        return ExclusionsFile(path, load_exclusions(path))
    except ExclusionsError as error:
        checker.reject(key, f"{error}; no run is excluded")
        return ExclusionsFile(path, NO_EXCLUSIONS)
