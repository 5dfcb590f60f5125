"""``check --baseline/--baseline-version/--target``: Perun-style build comparisons.

Where the default mode judges the newest run against its whole history, this
mode compares a target build with baseline builds test by test, with the
same strategies and vocabulary as the ``trending-degradation`` directive:
No Change, Degradation, Optimization, Maybe Degradation, Maybe Optimization,
Unknown.  The job fails (exit 1) when a report's result is in
``--fail-on-change``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from sphinxcontrib_trending.analysis.degradation import VERDICTS, Report, resolve_method
from sphinxcontrib_trending.analysis.degradation.baseline import BaselineError, find_build
from sphinxcontrib_trending.analysis.degradation.builds import (
    BaselineChoice,
    BuildComparison,
    compare_builds,
    single_method,
)
from sphinxcontrib_trending.analysis.degradation.strategies import Strategies
from sphinxcontrib_trending.ingest.model import Build, TestResult
from sphinxcontrib_trending.reports.junit import Case, Suite, junit_tree, write_junit
from sphinxcontrib_trending.reports.text import columns
from sphinxcontrib_trending.reports.verdicts_json import write_json
from sphinxcontrib_trending.settings import Source

DEFAULT_FAIL_ON_CHANGE = "Degradation"


class ComparisonError(ValueError):
    """A baseline, target or method that cannot be used: exit code 2."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "baseline comparison",
        "Compare a target build with baselines test by test (degradation methods) instead "
        "of judging the trend.",
    )
    choice = group.add_mutually_exclusive_group()
    choice.add_argument(
        "--baseline", metavar="JOB/BUILD", help="compare every test with this build"
    )
    choice.add_argument(
        "--baseline-version",
        metavar="VERSION",
        help="compare with the newest earlier build of this DUT version that ran the test",
    )
    choice.add_argument(
        "--previous",
        action="store_true",
        help="compare each test with the nearest earlier build of its job that ran it",
    )
    group.add_argument(
        "--target",
        metavar="JOB/BUILD",
        help="the build to judge (default: the newest build of every job)",
    )
    group.add_argument(
        "--method",
        help="degradation method for every test (default: trending_degradation_strategies, "
        "else welch_t_test)",
    )
    group.add_argument(
        "--fail-on-change",
        default=DEFAULT_FAIL_ON_CHANGE,
        metavar="RESULTS",
        help="comma-separated results that fail the job (default: %(default)s)",
    )


def requested(args: argparse.Namespace) -> bool:
    return bool(args.baseline or args.baseline_version or args.previous or args.target)


def fail_set(text: str) -> frozenset[str]:
    by_lower = {verdict.lower(): verdict for verdict in VERDICTS}
    chosen = set()
    for part in text.split(","):
        name = part.strip().lower()
        if name not in by_lower:
            raise ComparisonError(
                f"--fail-on-change: {part.strip()!r} is not one of {', '.join(VERDICTS)}"
            )
        chosen.add(by_lower[name])
    return frozenset(chosen)


def _strategies(args: argparse.Namespace, configured: Strategies | None) -> Strategies | None:
    if not args.method:
        return configured
    try:
        resolve_method(args.method)
    except ValueError as error:
        raise ComparisonError(f"--method: {error}") from None
    return single_method(args.method)


def _targets(builds: Sequence[Build], target: str | None) -> list[Build]:
    if target:
        return [find_build(builds, target)]
    newest: dict[str, Build] = {}
    for build in builds:
        newest[build.job] = build
    return sorted(newest.values(), key=lambda build: build.job)


def compare_source(
    args: argparse.Namespace,
    source: Source,
    builds: Sequence[Build],
    configured: Strategies | None,
    accept: Callable[[TestResult], bool] | None,
) -> list[BuildComparison]:
    """Every target of one source against its baselines; BaselineError for bad names."""
    choice = BaselineChoice(build=args.baseline, dut_version=args.baseline_version)
    strategies = _strategies(args, configured)
    try:
        return [
            compare_builds(
                builds,
                target,
                metric=args.metric or source.metric,
                source=source.name,
                direction=source.direction,
                strategies=strategies,
                choice=choice,
                accept=accept,
            )
            for target in _targets(builds, args.target)
        ]
    except BaselineError as error:
        raise ComparisonError(f"source {source.name!r}: {error}") from None


def _number(value: float | str | None) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else f"{value:.6g}"


def _report_record(comparison: BuildComparison, report: Report) -> dict[str, Any]:
    baseline = comparison.baselines.get(report.location)
    return {
        "test_id": report.location,
        "name": comparison.names.get(report.location, report.location),
        "result": report.result,
        "subtype": report.subtype,
        "method": report.method,
        "baseline": f"{baseline.job}-{baseline.build}" if baseline else None,
        "from": report.from_value,
        "to": report.to_value,
        "relative_change": report.relative_change,
        "confidence_type": report.confidence_type,
        "confidence": report.confidence,
        "reason": report.reason,
    }


def table(comparisons: Sequence[BuildComparison], fail_on: frozenset[str]) -> list[str]:
    lines = []
    for comparison in comparisons:
        target = comparison.target
        lines.append(f"Target {target.job}-{target.build} ({target.time:%Y-%m-%d %H:%M} UTC):")
        rows = [["", "RESULT", "TEST", "BASELINE", "FROM", "TO", "CHANGE", "CONFIDENCE"]]
        for report in comparison.reports:
            record = _report_record(comparison, report)
            change = report.relative_change
            rows.append(
                [
                    "FAIL" if report.result in fail_on else "pass",
                    report.result,
                    record["name"],
                    record["baseline"] or "-",
                    _number(report.from_value),
                    _number(report.to_value),
                    "" if change is None else f"{change * 100:+.2f}%",
                    ""
                    if report.confidence is None
                    else f"{report.confidence:.3f} {report.confidence_type}",
                ]
            )
        lines += ["  " + line for line in columns(rows)]
    failed = sum(r.result in fail_on for c in comparisons for r in c.reports)
    total = sum(len(c.reports) for c in comparisons)
    lines.append(f"{failed} of {total} comparisons fail the job ({', '.join(sorted(fail_on))}).")
    return lines


def write_outputs(
    args: argparse.Namespace, comparisons: Sequence[BuildComparison], fail_on: frozenset[str]
) -> None:
    if args.json:
        write_json(
            args.json,
            {
                "mode": "baseline",
                "fail_on": sorted(fail_on),
                "targets": [
                    {
                        "job": c.target.job,
                        "build": c.target.build,
                        "time": c.target.time.isoformat(),
                        "reports": [_report_record(c, report) for report in c.reports],
                    }
                    for c in comparisons
                ],
            },
        )
    if args.junit:
        suites = [
            Suite(
                name=f"degradation {c.target.job}-{c.target.build}",
                cases=[_case(c, report, fail_on) for report in c.reports],
                timestamp=c.target.time,
            )
            for c in comparisons
        ]
        write_junit(args.junit, junit_tree("sphinx-trending check --baseline", suites))


def _case(comparison: BuildComparison, report: Report, fail_on: frozenset[str]) -> Case:
    record = _report_record(comparison, report)
    failing = report.result in fail_on
    return Case(
        classname=f"{comparison.target.job}.{report.method or 'none'}",
        name=record["name"],
        failure_type=report.result if failing else None,
        failure_message=f"{report.result} ({report.subtype}): {report.reason}" if failing else "",
        output=f"{report.result} ({report.subtype}) against {record['baseline'] or 'no baseline'}",
    )
