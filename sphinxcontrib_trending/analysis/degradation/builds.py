"""Comparing a target build against its baselines, test by test.

The degradation methods compare two sample sets per location; archives come
as builds.  This module picks a baseline build for every test of the target
(a pinned build, the newest build of a DUT version, or the nearest earlier
build that ran the test), always from the target's own job so that one
testbed is never compared with another, and runs the configured strategies.
The ``trending-degradation`` directive and ``sphinx-trending check
--baseline`` both use it, so the site and the gate agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from sphinxcontrib_trending.analysis.build_selection import find_build
from sphinxcontrib_trending.analysis.degradation.baseline import build_samples, select_baseline
from sphinxcontrib_trending.analysis.degradation.registry import resolve_method
from sphinxcontrib_trending.analysis.degradation.report import MISSING_BASELINE, Report, unknown
from sphinxcontrib_trending.analysis.degradation.strategies import (
    Rule,
    Strategies,
    Subject,
    check_with_strategies,
)
from sphinxcontrib_trending.ingest.dimensions import DimensionRules, rules_for
from sphinxcontrib_trending.ingest.model import Build, TestResult

DEFAULT_METHOD = "welch_t_test"
"""Trial samples of one run suit a significance test better than a 2x ratio."""


@dataclass(frozen=True)
class BaselineChoice:
    """How to pick the baseline; neither ``build`` nor ``dut_version`` means the nearest
    earlier build.

    ``job`` names the job the baselines come from, for a branch or pull-request
    build judged against the main job; None means the target's own job.
    """

    build: str | None = None
    dut_version: str | None = None
    job: str | None = None


@dataclass(frozen=True)
class BuildComparison:
    """``metric``'s reports for ``target``, one per (test, rule)."""

    target: Build
    metric: str
    reports: list[Report]
    baselines: dict[str, Build | None] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)


def _no_baseline(job: str | None) -> str:
    where = "this job" if job is None else f"the baseline job {job}"
    return f"no earlier build of {where} ran the test"


def single_method(method: str = DEFAULT_METHOD, **options: object) -> Strategies:
    """Strategies of one rule that applies to every test."""
    resolved = resolve_method(method)
    return Strategies((Rule(index=0, method=resolved, options=dict(options)),))


def with_direction(strategies: Strategies, direction: str) -> Strategies:
    """Give every rule the source's direction unless the rule sets its own."""
    rules = tuple(
        replace(rule, options={"direction": direction, **rule.options}) for rule in strategies.rules
    )
    return replace(strategies, rules=rules)


def compare_builds(
    builds: Sequence[Build],
    target: Build,
    *,
    metric: str,
    source: str,
    direction: str,
    strategies: Strategies | None = None,
    choice: BaselineChoice = BaselineChoice(),
    accept: Callable[[TestResult], bool] | None = None,
    deprecated: Callable[[str], None] | None = None,
    rules: DimensionRules | None = None,
) -> BuildComparison:
    """One report per (test, rule) of ``target``, each test named as every view
    names it, by the source's dimension ``rules`` (the built-in ones when None).

    A pinned baseline is looked up among the builds of the baseline job
    (the target's own unless ``choice.job`` names another) with
    :func:`.find_build`, which raises UnknownBuild and tells ``deprecated``
    about an old-style name.
    """
    naming = rules or rules_for()
    baseline_job = choice.job or target.job
    own_job = [build for build in builds if build.job == baseline_job]
    pinned = None if choice.build is None else find_build(own_job, choice.build, deprecated)
    strategies = with_direction(strategies or single_method(), direction)
    tests = [test for test in target.tests if accept is None or accept(test)]
    by_baseline: dict[tuple[str, str], list[str]] = {}
    baselines: dict[str, Build | None] = {}
    for test in tests:
        baseline = select_baseline(
            own_job,
            target,
            test.test_id,
            build=None if pinned is None else (pinned.job, pinned.build),
            dut_version=choice.dut_version,
            metric=metric,
        )
        baselines[test.test_id] = baseline
        if baseline is not None:
            by_baseline.setdefault(baseline.key, []).append(test.test_id)
    reports: list[Report] = []
    subjects = {test.test_id: Subject(test.tags, metric, source) for test in tests}
    target_samples = build_samples(target, metric)
    for key, test_ids in by_baseline.items():
        baseline_build = next(build for build in own_job if build.key == key)
        reports += check_with_strategies(
            strategies,
            {test_id: subjects[test_id] for test_id in test_ids},
            build_samples(baseline_build, metric, test_ids),
            {test_id: target_samples[test_id] for test_id in test_ids if test_id in target_samples},
        )
    for test_id, baseline in baselines.items():
        if baseline is None:
            reports.append(unknown(test_id, "", MISSING_BASELINE, _no_baseline(choice.job)))
    order = {test.test_id: position for position, test in enumerate(tests)}
    reports.sort(key=lambda report: order.get(report.location, len(order)))
    return BuildComparison(
        target=target,
        metric=metric,
        reports=reports,
        baselines=baselines,
        names={test.test_id: naming.display_name(test, target.testbed) for test in tests},
    )


__all__ = [
    "DEFAULT_METHOD",
    "BaselineChoice",
    "BuildComparison",
    "compare_builds",
    "single_method",
    "with_direction",
]
