"""``sphinx-trending check``: the Performance Analysis job as a CI gate.

It reads the same sources as the docs (a project's conf.py, or paths given
on the command line), judges the newest run of every test, prints a table,
writes JSON / JUnit XML / an alert e-mail on request, sends the e-mail over
SMTP, and exits 1 when a verdict fails the job.

The command is split into steps (sources, judgement per mode, outputs,
delivery) so that further modes, such as baseline/target comparisons, plug
in as one more judgement function.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from sphinxcontrib_trending.alerts.message import Addresses, compose
from sphinxcontrib_trending.alerts.smtp import (
    DEFAULT_PASSWORD_ENV,
    SECURITIES,
    DeliveryError,
    SmtpSettings,
    deliver,
)
from sphinxcontrib_trending.analysis.acknowledged import (
    KnownChanges,
    KnownChangesError,
    load_known_changes,
)
from sphinxcontrib_trending.analysis.degradation.strategies import Strategies
from sphinxcontrib_trending.analysis.history import TestHistory, histories
from sphinxcontrib_trending.analysis.summary import TrendOptions
from sphinxcontrib_trending.analysis.tagfilter import FilterError, compile_filter
from sphinxcontrib_trending.analysis.verdicts import (
    DEFAULT_FAIL_ON,
    BuildVerdicts,
    Reason,
    UnknownBuild,
    Verdict,
    acknowledge,
    judge_build,
    judge_every_build,
    judge_latest,
    parse_reasons,
)
from sphinxcontrib_trending.cli import EXIT_USAGE, check_baseline
from sphinxcontrib_trending.cli.sources import (
    Selection,
    SourceError,
    add_source_arguments,
    sources_from_args,
)
from sphinxcontrib_trending.ingest import SpecError, load
from sphinxcontrib_trending.ingest.model import Build, TestResult
from sphinxcontrib_trending.reports.junit import Suite, junit_tree, verdict_case, write_junit
from sphinxcontrib_trending.reports.records import DEFAULT_GRAPH_PAGE, GraphLinks
from sphinxcontrib_trending.reports.text import history_table, verdict_table
from sphinxcontrib_trending.reports.verdicts_json import document, write_json
from sphinxcontrib_trending.settings import SAMPLE_MODES, SEARCHES, Source

DEFAULT_SENDER = "sphinx-trending@localhost"
"""From address of a message written with --email but no --mail-from."""

EXIT_FAILED_VERDICTS = 1
EXIT_DELIVERY = 3
"""The alert could not be sent; it wins over EXIT_FAILED_VERDICTS so that a
broken mail set-up never hides behind an expected "unstable" job result."""

ALL_DEFAULT_SEARCH = "jumpavg"


class UsageError(Exception):
    """Bad options or configuration: reported, exit code 2."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check",
        help="judge the newest results: CI gate, JSON, JUnit XML, alert e-mail",
        description="Regroup each test's history and judge its newest run (or a chosen "
        "build, or every build) as the methodology's Performance Analysis job does: "
        "Normal, Regression, Progression, Failed or Missing.  Exit status: 0 no failing "
        "verdict, 1 a failing verdict, 2 usage or configuration error, 3 the alert e-mail "
        "could not be sent.",
        # No prefix matching: "--smtp-password SECRET" must be an error, not
        # silently taken as --smtp-password-env.
        allow_abbrev=False,
    )
    add_source_arguments(parser)
    check_baseline.add_arguments(parser)
    mode = parser.add_argument_group("what to judge").add_mutually_exclusive_group()
    mode.add_argument(
        "--build",
        metavar="JOB-BUILD",
        help="judge this build (job name, dash, build number) instead of the newest ones",
    )
    mode.add_argument(
        "--all",
        action="store_true",
        help="judge every build as it was judged at its time, newest first",
    )
    analysis = parser.add_argument_group("analysis")
    analysis.add_argument(
        "--known-changes",
        type=Path,
        metavar="FILE",
        help="TOML file of acknowledged anomalies, which never fail the job "
        "(default: trending_known_changes of --conf)",
    )
    analysis.add_argument("--metric", help="metric to judge (default: the source's metric)")
    analysis.add_argument(
        "--filter",
        metavar="EXPRESSION",
        help="judge only tests whose tags match, e.g. 'mrr and (1t1c or 2t1c)' "
        "(the syntax of the directives' :filter:)",
    )
    analysis.add_argument(
        "--search",
        choices=SEARCHES,
        help="grouping search (default: trending_search, or exact; "
        f"with --all: {ALL_DEFAULT_SEARCH})",
    )
    analysis.add_argument(
        "--samples", choices=SAMPLE_MODES, help="runs or trials (default: the source's)"
    )
    analysis.add_argument(
        "--fail-on",
        default=",".join(sorted(reason.value for reason in DEFAULT_FAIL_ON)),
        metavar="VERDICTS",
        help="comma-separated verdicts that fail the job (default: %(default)s; empty: never fail)",
    )
    output = parser.add_argument_group("output")
    output.add_argument("--json", type=Path, metavar="FILE", help="write the verdicts as JSON")
    output.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    output.add_argument("--email", type=Path, metavar="FILE", help="write the alert e-mail (.eml)")
    output.add_argument(
        "--verbose", "-v", action="store_true", help="list Normal verdicts in the table too"
    )
    output.add_argument(
        "--docs-base-url",
        metavar="URL",
        help="published address of the docs, for graph links (default: trending_docs_base_url)",
    )
    output.add_argument(
        "--graph-page",
        default=DEFAULT_GRAPH_PAGE,
        metavar="PAGE",
        help="document holding the per-test graphs, without .html (default: %(default)s)",
    )
    mail = parser.add_argument_group("e-mail delivery")
    mail.add_argument("--send", action="store_true", help="send the --email message over SMTP")
    mail.add_argument("--smtp-host", default="localhost", help="default: %(default)s")
    mail.add_argument("--smtp-port", type=int, help="default: 25 (none), 587 (starttls), 465 (ssl)")
    mail.add_argument("--smtp-security", choices=SECURITIES, default="starttls")
    mail.add_argument("--smtp-user", help="log in as this user (password from the environment)")
    mail.add_argument(
        "--smtp-password-env",
        default=DEFAULT_PASSWORD_ENV,
        metavar="VAR",
        help="environment variable holding the SMTP password (default: %(default)s)",
    )
    mail.add_argument("--smtp-ca-file", help="CA bundle to verify the server's certificate")
    mail.add_argument("--smtp-timeout", type=float, default=30.0, help="seconds (default: 30)")
    mail.add_argument("--mail-from", metavar="ADDRESS", help="sender address")
    mail.add_argument(
        "--mail-to", action="append", default=[], metavar="ADDRESS", help="recipient (repeatable)"
    )
    mail.add_argument("--subject-prefix", default="[trending]", help="default: %(default)s")
    parser.set_defaults(handler=run)


@dataclass
class Judged:
    """What a judgement mode produced: the gate verdicts, and a history for --all."""

    verdicts: list[Verdict] = field(default_factory=list)
    history: list[BuildVerdicts] = field(default_factory=list)
    search: str | None = None


@dataclass(frozen=True)
class Loaded:
    source: Source
    builds: list[Build]
    histories: list[TestHistory]
    options: TrendOptions


def _error(message: str) -> None:
    print(f"sphinx-trending check: {message}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    try:
        fail_on = _fail_on(args.fail_on)
        accept = _tag_filter(args.filter)
        _check_mail_options(args)
        selection = sources_from_args(args, warn=_error)
        loaded = [_load(source, selection, args, accept) for source in selection.sources]
        if check_baseline.requested(args):
            return _run_comparison(args, loaded, selection.strategies, accept)
        judged = _acknowledged(_judge(args, loaded), _known_changes(args, selection))
    except (
        UsageError,
        SourceError,
        SpecError,
        UnknownBuild,
        check_baseline.ComparisonError,
    ) as error:
        _error(str(error))
        return EXIT_USAGE
    links = GraphLinks(args.docs_base_url or selection.docs_base_url, args.graph_page)
    try:
        message = _write_outputs(args, judged, fail_on, links)
    except OSError as error:
        _error(f"cannot write output: {error}")
        return EXIT_USAGE
    _print_table(args, judged, fail_on, several_sources=len(loaded) > 1)
    code = EXIT_FAILED_VERDICTS if any(v.fails(fail_on) for v in judged.verdicts) else 0
    if args.send and message is not None:
        try:
            _send(args, message)
        except DeliveryError as error:
            _error(f"alert e-mail not sent: {error}; the message is kept in {args.email}")
            return EXIT_DELIVERY
        print(f"alert e-mail sent to {', '.join(args.mail_to)}")
    return code


def _run_comparison(
    args: argparse.Namespace,
    loaded: Sequence[Loaded],
    strategies: Strategies | None,
    accept: Callable[[TestResult], bool] | None,
) -> int:
    """The baseline mode: degradation reports instead of trend verdicts."""
    if args.all or args.build:
        raise UsageError("--all and --build judge trends; use --target with a baseline option")
    if args.email or args.send:
        raise UsageError("alert e-mails report trend verdicts; drop --email/--send here")
    fail_on = check_baseline.fail_set(args.fail_on_change)
    comparisons = [
        comparison
        for item in loaded
        for comparison in check_baseline.compare_source(
            args, item.source, item.builds, strategies, accept
        )
    ]
    try:
        check_baseline.write_outputs(args, comparisons, fail_on)
    except OSError as error:
        _error(f"cannot write output: {error}")
        return EXIT_USAGE
    print("\n".join(check_baseline.table(comparisons, fail_on)), flush=True)
    failing = any(r.result in fail_on for c in comparisons for r in c.reports)
    return EXIT_FAILED_VERDICTS if failing else 0


def _tag_filter(expression: str | None) -> Callable[[TestResult], bool] | None:
    if not expression:
        return None
    try:
        matches = compile_filter(expression)
    except FilterError as error:
        raise UsageError(f"--filter: {error}") from None
    return lambda test: matches(test.tags)


def _fail_on(text: str) -> frozenset[Reason]:
    try:
        return parse_reasons(text)
    except ValueError as error:
        raise UsageError(f"--fail-on: {error}") from None


def _check_mail_options(args: argparse.Namespace) -> None:
    if not args.send:
        return
    missing = [
        option
        for option, value in (
            ("--email FILE", args.email),
            ("--mail-from", args.mail_from),
            ("--mail-to", args.mail_to),
        )
        if not value
    ]
    if missing:
        raise UsageError(
            f"--send needs {', '.join(missing)} (the message is written to --email first, "
            "so a failed delivery loses nothing)"
        )
    if args.smtp_user and args.smtp_password_env not in os.environ:
        raise UsageError(
            f"--smtp-user needs the password in the environment variable "
            f"{args.smtp_password_env} (passwords are never taken from the command line)"
        )


def _known_changes(args: argparse.Namespace, selection: Selection) -> KnownChanges | None:
    """--known-changes wins over the conf.py's trending_known_changes."""
    if args.known_changes is None:
        return selection.known_changes
    try:
        return load_known_changes(args.known_changes)
    except KnownChangesError as error:
        raise UsageError(f"--known-changes: {error}") from None


def _acknowledged(judged: Judged, known: KnownChanges | None) -> Judged:
    if known is None:
        return judged
    return Judged(
        verdicts=acknowledge(judged.verdicts, known),
        history=[
            replace(entry, verdicts=acknowledge(entry.verdicts, known)) for entry in judged.history
        ],
        search=judged.search,
    )


def _load(
    source: Source,
    selection: Selection,
    args: argparse.Namespace,
    accept: Callable[[TestResult], bool] | None,
) -> Loaded:
    """Read one source and cut it into the histories of the judged metric."""

    def progress(message: str) -> None:
        if args.verbose:
            print(f"{source.name}: {message}", file=sys.stderr)

    dataset = load(source.spec, selection.cache_dir, progress=progress)
    for problem in dataset.problems:
        _error(f"warning: source {source.name!r}: {problem}")
    if not dataset.builds:
        raise UsageError(
            f"source {source.name!r} has no usable build in {', '.join(source.spec.paths)}"
        )
    metric = args.metric or source.metric
    selected = histories(dataset.builds, metric, accept, keep_failing=True)
    if all(history.unit is None for history in selected):
        matching = f" matching --filter {args.filter!r}" if args.filter else ""
        raise UsageError(f"source {source.name!r} has no test{matching} with a {metric!r} value")
    options = TrendOptions(
        samples=args.samples or source.samples,
        search=args.search or (ALL_DEFAULT_SEARCH if args.all else selection.search),
        direction=source.direction,
        policy=selection.policy,
        sbps=selection.sbps,
    )
    return Loaded(source, dataset.builds, selected, options)


def _judge_latest(args: argparse.Namespace, loaded: Loaded) -> Judged:
    del args
    name = loaded.source.name
    return Judged(judge_latest(name, loaded.histories, loaded.builds, loaded.options))


def _judge_build(args: argparse.Namespace, loaded: Loaded) -> Judged:
    name = loaded.source.name
    return Judged(judge_build(name, loaded.histories, loaded.builds, args.build, loaded.options))


def _judge_all(args: argparse.Namespace, loaded: Loaded) -> Judged:
    """Every build's verdicts; the gate (exit code, JUnit, e-mail) stays on the newest."""
    name = loaded.source.name
    total = len(loaded.histories)
    done = 0

    def progress(history: TestHistory) -> None:
        nonlocal done
        done += 1
        if args.verbose:
            print(f"{name}: judged every build of {done}/{total}: {history.name}", file=sys.stderr)

    history = judge_every_build(name, loaded.histories, loaded.builds, loaded.options, progress)
    latest = judge_latest(name, loaded.histories, loaded.builds, loaded.options)
    return Judged(latest, history)


Mode = Callable[[argparse.Namespace, Loaded], Judged]


def _mode(args: argparse.Namespace) -> Mode:
    if args.all:
        return _judge_all
    if args.build:
        return _judge_build
    return _judge_latest


def _judge(args: argparse.Namespace, loaded: Sequence[Loaded]) -> Judged:
    """Judge every source with the selected mode and put the results together.

    With several sources ``--build`` must exist in at least one of them; a
    source that lacks it is skipped, as its tests are no concern of that build.
    """
    mode = _mode(args)
    combined = Judged()
    unknown: list[str] = []
    for item in loaded:
        try:
            judged = mode(args, item)
        except UnknownBuild as error:
            unknown.append(str(error))
            continue
        combined.search = item.options.search
        combined.verdicts.extend(judged.verdicts)
        combined.history.extend(judged.history)
    if unknown and len(unknown) == len(loaded):
        raise UnknownBuild("; ".join(unknown))
    combined.history.sort(key=lambda entry: entry.time, reverse=True)
    return combined


def _print_table(
    args: argparse.Namespace, judged: Judged, fail_on: frozenset[Reason], several_sources: bool
) -> None:
    lines = []
    if judged.history:
        lines += history_table(judged.history, fail_on, args.verbose, several_sources)
        lines.append("Gate (newest build of every job):")
    lines += verdict_table(judged.verdicts, fail_on, args.verbose, several_sources)
    try:
        print("\n".join(lines), flush=True)
    except BrokenPipeError:
        # The reader (head, a closed pager) went away; the verdict and the
        # files written still count, so stop printing and carry on.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _mode_name(args: argparse.Namespace) -> str:
    return "all" if args.all else "build" if args.build else "latest"


def _write_outputs(
    args: argparse.Namespace, judged: Judged, fail_on: frozenset[Reason], links: GraphLinks
) -> EmailMessage | None:
    """Write what was asked for; the alert message is returned for --send."""
    if args.json:
        write_json(
            args.json,
            document(
                judged.verdicts,
                fail_on,
                links,
                _mode_name(args),
                judged.history,
                search=judged.search,
            ),
        )
    if args.junit:
        by_source: dict[str, list[Verdict]] = {}
        for verdict in judged.verdicts:
            by_source.setdefault(verdict.source, []).append(verdict)
        suites = [
            Suite(
                name=f"performance {source}",
                cases=[verdict_case(verdict, fail_on, links) for verdict in verdicts],
                timestamp=max(verdict.time for verdict in verdicts),
                properties=(("source", source), ("fail_on", args.fail_on)),
            )
            for source, verdicts in by_source.items()
        ]
        write_junit(args.junit, junit_tree("sphinx-trending check", suites))
    if not args.email:
        return None
    addresses = Addresses(args.mail_from or DEFAULT_SENDER, tuple(args.mail_to))
    message = compose(judged.verdicts, fail_on, addresses, links, args.subject_prefix)
    args.email.write_bytes(bytes(message))
    return message


def _send(args: argparse.Namespace, message: EmailMessage) -> None:
    settings = SmtpSettings(
        host=args.smtp_host,
        port=args.smtp_port,
        security=args.smtp_security,
        user=args.smtp_user,
        password_env=args.smtp_password_env,
        ca_file=args.smtp_ca_file,
        timeout=args.smtp_timeout,
    )
    deliver(message, settings)
