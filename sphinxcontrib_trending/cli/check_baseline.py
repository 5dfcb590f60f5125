"""``check --baseline/--baseline-version/--previous/--target``: Perun-style build comparisons.

Where the default mode judges the newest run against its whole history, this
mode compares a target build with baseline builds test by test, with the
same strategies and vocabulary as the ``trending-degradation`` directive:
No Change, Degradation, Optimization, Maybe Degradation, Maybe Optimization,
Unknown.  The job fails (exit 1) when a report's result is in
``--fail-on-change``.  With ``--all`` every build of the target's job is
compared with its baseline, as Perun's ``check all`` walks every version.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sphinxcontrib_trending.analysis.build_selection import (
    UnknownBuild,
    branch_build,
    builds_of_job,
    find_build,
    newest_builds,
)
from sphinxcontrib_trending.analysis.degradation import VERDICTS
from sphinxcontrib_trending.analysis.degradation.builds import BaselineChoice, compare_builds
from sphinxcontrib_trending.analysis.degradation.strategies import (
    Strategies,
    StrategyError,
    parse_strategies,
)
from sphinxcontrib_trending.cli.check_loading import Loaded, Messages, print_lines
from sphinxcontrib_trending.cli.exits import EXIT_FAILURES, EXIT_USAGE
from sphinxcontrib_trending.ingest.dimensions import rules_for
from sphinxcontrib_trending.ingest.model import Build
from sphinxcontrib_trending.judging import comparison_strategies
from sphinxcontrib_trending.reports.degradation import (
    TargetRecords,
    json_document,
    junit_suites,
    target_records,
    text_table,
)
from sphinxcontrib_trending.reports.junit import junit_tree, write_junit
from sphinxcontrib_trending.reports.verdicts_json import write_json
from sphinxcontrib_trending.settings import Settings

DEFAULT_FAIL_ON_CHANGE = "Degradation"


class ComparisonError(ValueError):
    """A baseline, target, method or strategy that cannot be used: exit code 2."""


@dataclass(frozen=True)
class Comparison:
    """What to compare: neither ``baseline`` nor ``baseline_version`` means the previous build.

    ``strategies`` are ``--strategy`` rules (``KEY=VALUE,...``); ``method``
    replaces every rule.
    """

    baseline: str | None = None
    baseline_version: str | None = None
    target: str | None = None
    baseline_job: str | None = None
    """Baselines from this job's builds instead of the target's own job's."""
    method: str | None = None
    strategies: tuple[str, ...] = ()
    fail_on_change: str = DEFAULT_FAIL_ON_CHANGE


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
        "--baseline-job",
        metavar="JOB",
        help="judge a branch's or pull request's build (--build or --target, default: the "
        "newest build of any other job) against this job's history, e.g. main's nightly",
    )
    group.add_argument(
        "--target",
        metavar="JOB/BUILD",
        help="the build to judge (default: the newest build of every job)",
    )
    group.add_argument(
        "--method",
        metavar="NAME",
        help="degradation method for every test, replacing every strategy "
        "(default: the strategies, else welch_t_test)",
    )
    group.add_argument(
        "--strategy",
        action="append",
        default=[],
        metavar="RULE",
        help="strategy rule KEY=VALUE,... such as 'tags=1t1c,method=wtt,alpha=0.01', tried "
        "before trending_degradation_strategies (repeatable)",
    )
    group.add_argument(
        "--fail-on-change",
        default=DEFAULT_FAIL_ON_CHANGE,
        metavar="RESULTS",
        help="comma-separated results that fail the job (default: %(default)s)",
    )


def from_args(args: argparse.Namespace) -> Comparison | None:
    """The comparison asked for, or None for the trend mode."""
    if not (args.baseline or args.baseline_version or args.previous or args.target):
        if args.method or args.strategy:
            raise ComparisonError(
                "--method and --strategy choose degradation methods; add --previous, "
                "--baseline, --baseline-version or --target"
            )
        return None
    return Comparison(
        baseline=args.baseline,
        baseline_version=args.baseline_version,
        target=args.target,
        baseline_job=args.baseline_job,
        method=args.method,
        strategies=tuple(args.strategy),
        fail_on_change=args.fail_on_change,
    )


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


def option_value(text: str) -> object:
    """A rule value as typed on the command line: a number, true/false, or text."""
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text.strip()


def parse_rule(text: str) -> dict[str, object]:
    """One ``--strategy`` rule, ``KEY=VALUE,...``, as the dict conf.py would hold."""
    rule: dict[str, object] = {}
    for part in text.split(","):
        key, equals, value = part.partition("=")
        if not equals or not key.strip():
            raise ComparisonError(f"--strategy {text!r}: {part.strip()!r} is not KEY=VALUE")
        rule[key.strip()] = option_value(value)
    return rule


def _strategies(settings: Settings, comparison: Comparison) -> Strategies | None:
    try:
        rules = (
            parse_strategies(
                [parse_rule(text) for text in comparison.strategies], setting="--strategy"
            )
            if comparison.strategies
            else None
        )
        return comparison_strategies(settings, method=comparison.method, rules=rules)
    except StrategyError as error:
        raise ComparisonError(str(error)) from None
    except ValueError as error:
        raise ComparisonError(f"--method: {error}") from None


def _targets(builds: Sequence[Build], comparison: Comparison, messages: Messages) -> list[Build]:
    if comparison.baseline_job:
        job, target = comparison.baseline_job, comparison.target
        return [branch_build(builds, job, target, messages.deprecated)]
    if comparison.target:
        return [find_build(builds, comparison.target, messages.deprecated)]
    return newest_builds(builds)


def _compared(builds: Sequence[Build], targets: Sequence[Build]) -> list[Build]:
    """With --all: every build of the targets' jobs."""
    jobs = sorted({target.job for target in targets})
    return [build for job in jobs for build in builds_of_job(builds, job)]


def compare_sources(
    settings: Settings,
    loaded: Sequence[Loaded],
    comparison: Comparison,
    every_build: bool,
    messages: Messages,
) -> tuple[list[TargetRecords], list[TargetRecords]]:
    """The gate's records (the targets) and, with ``every_build``, every build's, newest first."""
    strategies = _strategies(settings, comparison)
    choice = BaselineChoice(
        build=comparison.baseline,
        dut_version=comparison.baseline_version,
        job=comparison.baseline_job,
    )
    gate: list[TargetRecords] = []
    history: list[TargetRecords] = []
    for item in loaded:
        try:
            targets = _targets(item.builds, comparison, messages)
            compared = _compared(item.builds, targets) if every_build else targets
            records = {
                build.key: target_records(
                    compare_builds(
                        item.builds,
                        build,
                        metric=item.metric,
                        source=item.source.name,
                        direction=item.source.direction_for(item.metric),
                        strategies=strategies,
                        choice=choice,
                        accept=item.accept,
                        deprecated=messages.deprecated,
                        rules=rules_for(item.source.spec.dimensions),
                    )
                )
                for build in compared
            }
        except UnknownBuild as error:
            raise ComparisonError(f"source {item.source.name!r}: {error}") from None
        gate += [records[target.key] for target in targets]
        if every_build:
            history += records.values()
    history.sort(key=lambda target: target.time, reverse=True)
    return gate, history


def run_comparison(
    settings: Settings,
    loaded: Sequence[Loaded],
    comparison: Comparison,
    *,
    every_build: bool,
    verbose: bool,
    json_path: Path | None,
    junit_path: Path | None,
    messages: Messages,
) -> int:
    """The baseline mode of ``check``: degradation reports instead of trend verdicts.

    The exit status and JUnit XML are those of the targets; with
    ``every_build`` the table and JSON (``history``) hold every build too.
    """
    fail_on = fail_set(comparison.fail_on_change)
    gate, history = compare_sources(settings, loaded, comparison, every_build, messages)
    try:
        if json_path:
            report = json_document(gate, fail_on)
            if history:
                report["history"] = json_document(history, fail_on)["targets"]
            write_json(json_path, report)
        if junit_path:
            suites = junit_suites(gate, fail_on)
            write_junit(junit_path, junit_tree("sphinx-trending check --baseline", suites))
    except OSError as error:
        messages.error(f"cannot write output: {error}")
        return EXIT_USAGE
    lines = []
    if history:
        lines += text_table(history, fail_on, verbose, gate=False)
        lines.append("Gate (the targets):")
    print_lines(lines + text_table(gate, fail_on, verbose))
    failing = any(r.result in fail_on for target in gate for r in target.records)
    return EXIT_FAILURES if failing else 0
