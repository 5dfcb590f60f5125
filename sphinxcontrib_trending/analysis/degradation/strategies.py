"""Which method checks which test: Perun's ordered strategy rules.

``trending_degradation_strategies`` in conf.py is a list of rules; each rule
selects tests by a tag filter expression, a metric and a source, and names a
method with its options.  For every test the rules are tried in order and
the first matching one is used (``apply="first"``) or every matching one
(``apply="all"``).  The configuration is validated up front so a typo is an
error naming the rule and the key, not a silently skipped check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from difflib import get_close_matches
from fnmatch import fnmatchcase
from typing import Any

from ..tagfilter import FilterError, compile_filter
from .compare import Samples, compare
from .registry import Method, resolve_method
from .report import Report, unknown

APPLY_MODES = ("first", "all")
SELECTOR_KEYS = ("tags", "metric", "source")
NO_STRATEGY = "no strategy"


class StrategyError(ValueError):
    """A strategy rule that cannot be used; the message names rule and key."""


@dataclass(frozen=True, slots=True)
class Subject:
    """What rules can select a test by."""

    tags: tuple[str, ...] = ()
    metric: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class Rule:
    """One validated rule: its selectors, its method and the method's options."""

    index: int
    method: Method
    options: Mapping[str, Any]
    tags: str | None = None
    metric: str | None = None
    source: str | None = None
    tag_filter: Callable[[Iterable[str]], bool] | None = field(default=None, repr=False)

    def matches(self, subject: Subject) -> bool:
        """All given selectors hold; metric and source are case-insensitive globs."""
        if self.tag_filter is not None and not self.tag_filter(subject.tags):
            return False
        for pattern, value in ((self.metric, subject.metric), (self.source, subject.source)):
            if pattern is not None and (value is None or not fnmatchcase(value.lower(), pattern)):
                return False
        return True


@dataclass(frozen=True)
class Strategies:
    """The validated rule list and how to apply it."""

    rules: tuple[Rule, ...]
    apply: str = "first"

    def rules_for(self, subject: Subject) -> list[Rule]:
        """The rules that apply to ``subject``, in configuration order."""
        matching = [rule for rule in self.rules if rule.matches(subject)]
        return matching[:1] if self.apply == "first" else matching


def _parse_rule(index: int, raw: object, setting: str) -> Rule:
    where = f"{setting}[{index}]"
    if not isinstance(raw, Mapping):
        raise StrategyError(f"{where}: a rule must be a dict, not {type(raw).__name__}")
    if "method" not in raw:
        raise StrategyError(f"{where}: missing key 'method'")
    selectors: dict[str, str] = {}
    for key in SELECTOR_KEYS:
        value = raw.get(key)
        if value is not None and not isinstance(value, str):
            raise StrategyError(f"{where}: key {key!r} must be a string, not {value!r}")
        if value is not None:
            selectors[key] = value
    method_name = raw["method"]
    if not isinstance(method_name, str):
        raise StrategyError(f"{where}: key 'method' must be a string, not {method_name!r}")
    try:
        method = resolve_method(method_name)
    except ValueError as error:
        raise StrategyError(f"{where}: key 'method': {error}") from None
    options = {key: value for key, value in raw.items() if key not in (*SELECTOR_KEYS, "method")}
    for key in options:
        if key not in method.option_names:
            close = get_close_matches(str(key), (*SELECTOR_KEYS, *method.option_names), n=1)
            raise StrategyError(
                f"{where}: key {key!r} is neither a selector ({', '.join(SELECTOR_KEYS)}) "
                f"nor an option of method {method.name!r} "
                f"({', '.join(method.option_names)})"
                + (f"; did you mean {close[0]!r}?" if close else "")
            )
    try:
        method.make_options(options)
    except ValueError as error:
        raise StrategyError(f"{where}: {error}") from None
    try:
        tag_filter = compile_filter(selectors["tags"]) if "tags" in selectors else None
    except FilterError as error:
        raise StrategyError(f"{where}: key 'tags': {error}") from None
    return Rule(
        index=index,
        method=method,
        options=options,
        tags=selectors.get("tags"),
        metric=selectors["metric"].lower() if "metric" in selectors else None,
        source=selectors["source"].lower() if "source" in selectors else None,
        tag_filter=tag_filter,
    )


def parse_strategies(
    rules: Sequence[Mapping[str, Any]],
    apply: str = "first",
    *,
    setting: str = "trending_degradation_strategies",
) -> Strategies:
    """Validate conf.py rules into :class:`Strategies`.

    ``setting`` names the configuration value in error messages.  Raises
    :class:`StrategyError` on the first bad rule.
    """
    if apply not in APPLY_MODES:
        raise StrategyError(f"apply must be 'first' or 'all', not {apply!r}")
    if isinstance(rules, str | bytes) or not isinstance(rules, Sequence):
        raise StrategyError(f"{setting} must be a list of rules, not {type(rules).__name__}")
    return Strategies(
        tuple(_parse_rule(index, raw, setting) for index, raw in enumerate(rules)), apply
    )


def layered(over: Strategies | None, under: Strategies | None) -> Strategies | None:
    """Rules of ``over`` (the command line) tried before those of ``under`` (conf.py).

    As Perun lets runtime configuration win over the project's, an earlier
    rule wins with ``apply="first"``; the apply mode is ``under``'s, as only
    the configuration sets one.
    """
    if over is None or under is None:
        return over or under
    rules = over.rules + tuple(
        replace(rule, index=len(over.rules) + position) for position, rule in enumerate(under.rules)
    )
    return Strategies(rules, under.apply)


def check_with_strategies(
    strategies: Strategies,
    subjects: Mapping[str, Subject],
    baseline: Mapping[str, Samples],
    target: Mapping[str, Samples],
) -> list[Report]:
    """Check every location with the methods its rules choose.

    A location missing from ``subjects`` is treated as a test with no tags,
    metric or source, so only rules without selectors apply to it.  A
    location no rule applies to is reported as Unknown with subtype
    ``no strategy`` rather than left out.  Reports come in location order
    (baseline first, then target-only locations), rules in order within one
    location.
    """
    locations = list(baseline) + [location for location in target if location not in baseline]
    per_rule: dict[int, list[str]] = {}
    unmatched = []
    for location in locations:
        chosen = strategies.rules_for(subjects.get(location, Subject()))
        if not chosen:
            unmatched.append(location)
        for rule in chosen:
            per_rule.setdefault(rule.index, []).append(location)
    found: dict[tuple[str, int], Report] = {}
    for rule in strategies.rules:
        selected = per_rule.get(rule.index, [])
        if not selected:
            continue
        reports = compare(
            {location: baseline[location] for location in selected if location in baseline},
            {location: target[location] for location in selected if location in target},
            rule.method,
            **rule.options,
        )
        for report in reports:
            found[(report.location, rule.index)] = report
    for location in unmatched:
        found[(location, -1)] = unknown(
            location, "", NO_STRATEGY, "no strategy rule selects this test"
        )
    order = {location: position for position, location in enumerate(locations)}
    return [found[key] for key in sorted(found, key=lambda key: (order[key[0]], key[1]))]
