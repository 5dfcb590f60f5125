"""``sphinx-trending check``: the Performance Analysis job as a CI gate.

It reads the same sources as the docs (a project's conf.py, or paths given
on the command line), judges the newest run of every test, prints a table,
writes JSON / JUnit XML / an alert e-mail on request, sends the e-mail over
SMTP, and exits 1 when a verdict fails the job.

As asv structures its commands, the argument setup (:func:`register`,
:func:`run_from_args`) stays apart from :func:`run`, which takes the
settings and explicit, typed options: tests and scripts call it without
argparse, and nothing below this module sees an ``argparse.Namespace``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from email.message import EmailMessage
from functools import partial
from pathlib import Path
from typing import Any

from sphinxcontrib_trending.alerts.markdown import summary as markdown_summary
from sphinxcontrib_trending.alerts.message import Addresses, compose
from sphinxcontrib_trending.alerts.slack import payload
from sphinxcontrib_trending.analysis.acknowledged import (
    KnownChanges,
    KnownChangesError,
    load_known_changes,
)
from sphinxcontrib_trending.analysis.build_selection import UnknownBuild, find_build
from sphinxcontrib_trending.analysis.excluded import ExclusionsError, load_exclusions
from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.many import (
    SLOW_START_NOTE,
    classify_series,
    series_cache,
    series_jobs,
)
from sphinxcontrib_trending.analysis.verdicts import (
    BuildVerdicts,
    Reason,
    Verdict,
    acknowledge,
    judge_build,
    judge_every_build,
    judge_latest,
    newest_verdicts,
    parse_reasons,
    waive,
)
from sphinxcontrib_trending.cli import check_baseline, check_options
from sphinxcontrib_trending.cli.check_branch import judge_against_job
from sphinxcontrib_trending.cli.check_delivery import post_webhook, send_mail
from sphinxcontrib_trending.cli.check_loading import (
    Loaded,
    LoadError,
    Messages,
    load_sources,
    print_lines,
)
from sphinxcontrib_trending.cli.check_options import (
    DEFAULT_FAIL_ON_TEXT,
    DEFAULT_SENDER,
    Mail,
    MailError,
    Outputs,
    Webhook,
)
from sphinxcontrib_trending.cli.exits import EXIT_FAILURES, EXIT_USAGE
from sphinxcontrib_trending.cli.printer import Printer
from sphinxcontrib_trending.cli.sources import SourceError, writable_settings
from sphinxcontrib_trending.engine import EngineError
from sphinxcontrib_trending.engine.progress import console_progress
from sphinxcontrib_trending.ingest import SpecError
from sphinxcontrib_trending.reports.incidents import gate_incidents, incident_lines
from sphinxcontrib_trending.reports.junit import Suite, junit_tree, verdict_case, write_junit
from sphinxcontrib_trending.reports.records import GraphLinks
from sphinxcontrib_trending.reports.terminal import visible
from sphinxcontrib_trending.reports.text import history_table, verdict_table
from sphinxcontrib_trending.reports.verdicts_json import document, write_json
from sphinxcontrib_trending.settings import Settings

EXIT_DELIVERY = 3
"""The alert (or webhook message) could not be sent; it wins over EXIT_FAILURES so that a
broken mail set-up never hides behind an expected "unstable" job result."""


NO_OUTPUTS = Outputs()
"""The table on stdout only."""
NO_MAIL = Mail()
NO_WEBHOOK = Webhook()
"""Post only to trending_webhook, if the settings name one."""


class UsageError(Exception):
    """Bad options or configuration: reported, exit code 2."""


def register(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        "check",
        help=summary,
        description="Regroup each test's history and judge its newest run (or a chosen "
        "build, or every build) as the methodology's Performance Analysis job does: "
        "Normal, Regression, Progression, Failed or Missing.  Exit status: 0 no failing "
        "verdict, 1 a failing verdict, 2 usage or configuration error, 3 the alert e-mail "
        "could not be sent.",
        # No prefix matching: "--smtp-password SECRET" must be an error, not
        # silently taken as --smtp-password-env.
        allow_abbrev=False,
    )
    check_options.add_arguments(parser)
    parser.set_defaults(handler=run_from_args)


PRINTER = Printer("check")


def run_from_args(args: argparse.Namespace) -> int:
    """Turn the parsed command line into :func:`run`'s typed arguments."""
    try:
        settings = writable_settings(args, PRINTER.error, PRINTER.warning)
        if args.false_alarm_target is not None:
            settings = replace(settings, false_alarm_target=args.false_alarm_target)
        comparison = check_baseline.from_args(args)
    except (SourceError, SpecError, check_baseline.ComparisonError) as error:
        PRINTER.error(str(error))
        return EXIT_USAGE
    return run(
        settings,
        build=args.build,
        every_build=args.all,
        baseline_job=args.baseline_job,
        metric=args.metric,
        tag_filter=args.filter,
        search=args.search,
        samples=args.samples,
        fail_on=args.fail_on,
        unconfirmed=args.unconfirmed,
        environment_changes=args.environment_changes,
        known_changes=args.known_changes,
        excluded_runs=args.excluded_runs,
        comparison=comparison,
        outputs=check_options.outputs_from_args(args),
        mail=check_options.mail_from_args(args),
        webhook=check_options.webhook_from_args(args),
        engine=Engine(settings.cache_dir, args.workers, args.scheduler, args.verbose),
    )


@dataclass(frozen=True)
class Engine:
    """Where the histories' groupings are kept (``cache_dir``) and computed.

    ``workers`` local processes or the Dask cluster at ``scheduler``; neither
    means in-process.  Only the groupings the cache lacks are computed.
    """

    cache_dir: Path | None = None
    workers: int | None = None
    scheduler: str | None = None
    show_progress: bool = False
    """Report the grouping's progress on stderr (a bar in a terminal, lines in a log)."""


IN_PROCESS = Engine()


@dataclass
class Judged:
    """What a judgement mode produced: the gate verdicts, and a history for --all."""

    verdicts: list[Verdict] = field(default_factory=list)
    history: list[BuildVerdicts] = field(default_factory=list)
    search: str | None = None


def run(
    settings: Settings,
    *,
    build: str | None = None,
    every_build: bool = False,
    baseline_job: str | None = None,
    metric: str | None = None,
    tag_filter: str | None = None,
    search: str | None = None,
    samples: str | None = None,
    fail_on: str = DEFAULT_FAIL_ON_TEXT,
    unconfirmed: str = "fail",
    environment_changes: str = "pass",
    known_changes: Path | None = None,
    excluded_runs: Path | None = None,
    comparison: check_baseline.Comparison | None = None,
    outputs: Outputs = NO_OUTPUTS,
    mail: Mail = NO_MAIL,
    webhook: Webhook = NO_WEBHOOK,
    engine: Engine = IN_PROCESS,
) -> int:
    """Judge every source of ``settings`` and report; returns the exit status.

    ``build`` (``JOB/BUILD``) or ``every_build`` choose what is judged,
    ``baseline_job`` judges a branch build on that job's history,
    ``comparison`` switches to baseline comparisons; the other arguments
    override the settings as the command-line options of the same names do;
    ``unconfirmed`` (``"fail"`` or ``"pass"``) decides whether a regression
    seen in one run only fails the job, ``environment_changes`` whether a
    change that came with an environment change does; ``excluded_runs`` replaces the
    settings' file of runs left out of the grouping.
    """
    messages = Messages(PRINTER.error, verbose=outputs.verbose)
    try:
        reasons = _fail_on(fail_on)
        mail.check(outputs.email)
        settings = _with_exclusions(settings, excluded_runs)
        for problem in settings.excluded_runs.warnings:
            PRINTER.warning(problem)
        loaded = load_sources(
            settings,
            metric,
            tag_filter,
            search,
            samples,
            messages,
            forked=engine.workers,
            keep_tests=comparison is not None or baseline_job is not None,  # they read results
        )
        if unconfirmed == "pass":  # a re-run then confirms with a Regression of its own
            loaded = [
                replace(item, options=replace(item.options, hold_unconfirmed=True))
                for item in loaded
            ]
        if comparison is not None:
            if build or mail.send or outputs.email or outputs.markdown or webhook.url:
                raise UsageError(
                    "--build, --markdown, --webhook and alert e-mails belong to trend verdicts; "
                    "use --target and --all with a baseline option"
                )
            return check_baseline.run_comparison(
                settings,
                loaded,
                comparison,
                every_build=every_build,
                verbose=outputs.verbose,
                json_path=outputs.json,
                junit_path=outputs.junit,
                messages=messages,
            )
        if baseline_job and every_build:
            raise UsageError(
                "--baseline-job judges one branch build; --all walks a job's own history"
            )
        if outputs.json is not None:  # the only report that states each test's rate
            loaded = [
                replace(item, options=replace(item.options, stated_rates=True)) for item in loaded
            ]
        judged = _judge(loaded, build, every_build, messages, engine, baseline_job)
        judged = _acknowledged(judged, _known_changes(known_changes, settings))
        judged = _waived(
            judged, unconfirmed=unconfirmed == "pass", environment=environment_changes == "pass"
        )
    except (
        UsageError,
        MailError,
        LoadError,
        SpecError,
        UnknownBuild,
        check_baseline.ComparisonError,
        EngineError,
    ) as error:
        PRINTER.error(str(error))
        return EXIT_USAGE
    links = GraphLinks(
        outputs.docs_base_url or settings.docs_base_url,
        outputs.graph_page,
        {name: source.links for name, source in settings.sources.items()},
    )
    mode = _mode_name(build, every_build, baseline_job)
    try:
        message = _write_outputs(outputs, judged, reasons, fail_on, links, mode, mail)
    except OSError as error:
        PRINTER.error(f"cannot write output: {error}")
        return EXIT_USAGE
    _print_table(outputs.verbose, judged, reasons, several_sources=len(loaded) > 1)
    code = EXIT_FAILURES if any(v.fails(reasons) for v in judged.verdicts) else 0
    sent = True
    if mail.send and message is not None:
        sent = send_mail(message, mail.smtp, outputs.email, PRINTER.error)
    hook = webhook.settings(settings.webhook)
    if hook is not None and code == EXIT_FAILURES:
        # tried even when the e-mail failed: one broken channel must not silence the other
        sent = post_webhook(payload(judged.verdicts, reasons, links), hook, PRINTER.error) and sent
    return code if sent else EXIT_DELIVERY


def _mode_name(build: str | None, every_build: bool, baseline_job: str | None) -> str:
    """The JSON report's ``mode``."""
    if baseline_job:
        return "baseline-job"
    return "all" if every_build else "build" if build else "latest"


def _fail_on(text: str) -> frozenset[Reason]:
    try:
        return parse_reasons(text)
    except ValueError as error:
        raise UsageError(f"--fail-on: {error}") from None


def _known_changes(path: Path | None, settings: Settings) -> KnownChanges | None:
    """--known-changes wins over the conf.py's trending_known_changes."""
    if path is None:
        return settings.known_changes
    try:
        return load_known_changes(path)
    except KnownChangesError as error:
        raise UsageError(f"--known-changes: {error}") from None


def _with_exclusions(settings: Settings, path: Path | None) -> Settings:
    """--excluded-runs wins over the conf.py's trending_excluded_runs."""
    if path is None:
        return settings
    try:
        return replace(settings, excluded_runs=load_exclusions(path), excluded_runs_path=path)
    except ExclusionsError as error:
        raise UsageError(f"--excluded-runs: {error}") from None


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


def _waived(judged: Judged, *, unconfirmed: bool, environment: bool) -> Judged:
    """The gate's choices of what passes although its reason fails
    (``--unconfirmed``, ``--environment-changes``)."""
    chosen = partial(waive, unconfirmed=unconfirmed, environment=environment)
    return Judged(
        verdicts=chosen(judged.verdicts),
        history=[
            replace(entry, verdicts=tuple(chosen(entry.verdicts))) for entry in judged.history
        ],
        search=judged.search,
    )


Mode = Callable[[Loaded], Judged]


def _judge_latest(engine: Engine, loaded: Loaded) -> Judged:
    """The newest builds' verdicts, from the histories' whole groupings (cached or parallel)."""
    name = loaded.source.name
    cache = series_cache(engine.cache_dir, name, loaded.options.grouping, PRINTER.warning)
    classified = classify_series(
        series_jobs(loaded.histories, loaded.options.grouping),
        cache,
        workers=engine.workers,
        scheduler=engine.scheduler,
        progress=console_progress(f"{name}: grouping histories") if engine.show_progress else None,
        slow_setup=lambda: PRINTER.error(f"{name}: {SLOW_START_NOTE}"),
    )
    return Judged(judge_latest(name, loaded.histories, loaded.builds, loaded.options, classified))


def _judge_named(build: str, messages: Messages, loaded: Loaded) -> Judged:
    chosen = find_build(loaded.builds, build, messages.deprecated)
    return Judged(judge_build(loaded.source.name, loaded.histories, chosen, loaded.options))


def _judge_every(messages: Messages, loaded: Loaded) -> Judged:
    """Every build's verdicts; the gate (exit code, JUnit, e-mail) stays on the newest."""
    name = loaded.source.name
    total = len(loaded.histories)
    done = 0

    def progress(history: TestHistory) -> None:
        nonlocal done
        done += 1
        messages.progress(f"{name}: judged every build of {done}/{total}: {history.display_name}")

    history = judge_every_build(name, loaded.histories, loaded.builds, loaded.options, progress)
    return Judged(newest_verdicts(history, loaded.histories, loaded.builds), history)


def _judge_branch(
    baseline_job: str, build: str | None, messages: Messages, loaded: Loaded
) -> Judged:
    return Judged(judge_against_job(loaded, baseline_job, build, messages))


def _mode(
    build: str | None,
    every_build: bool,
    messages: Messages,
    engine: Engine,
    baseline_job: str | None = None,
) -> Mode:
    """The judgement of one source: newest builds, one named build, every build, or a
    branch build against the baseline job."""
    if baseline_job:
        return partial(_judge_branch, baseline_job, build, messages)
    if every_build:
        return partial(_judge_every, messages)
    if build:
        return partial(_judge_named, build, messages)
    return partial(_judge_latest, engine)


def _judge(
    loaded: Sequence[Loaded],
    build: str | None,
    every_build: bool,
    messages: Messages,
    engine: Engine = IN_PROCESS,
    baseline_job: str | None = None,
) -> Judged:
    """Judge every source with the selected mode and put the results together.

    With several sources ``build`` (or ``baseline_job``) must exist in at
    least one of them; a source that lacks it is skipped, as its tests are no
    concern of that build.
    """
    mode = _mode(build, every_build, messages, engine, baseline_job)
    combined = Judged()
    unknown: list[str] = []
    for item in loaded:
        try:
            judged = mode(item)
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
    verbose: bool, judged: Judged, fail_on: frozenset[Reason], several_sources: bool
) -> None:
    lines = []
    found = gate_incidents(judged.verdicts)
    if found:
        lines += [f"Incidents ({len(found)}):", *map(visible, incident_lines(found)), ""]
    if judged.history:
        lines += history_table(judged.history, fail_on, verbose, several_sources)
        lines.append("Gate (newest build of every job):")
    lines += verdict_table(judged.verdicts, fail_on, verbose, several_sources)
    print_lines(lines)


def _write_outputs(
    outputs: Outputs,
    judged: Judged,
    fail_on: frozenset[Reason],
    fail_on_text: str,
    links: GraphLinks,
    mode: str,
    mail: Mail,
) -> EmailMessage | None:
    """Write what was asked for; the alert message is returned for sending."""
    if outputs.json:
        write_json(
            outputs.json,
            document(judged.verdicts, fail_on, links, mode, judged.history, search=judged.search),
        )
    if outputs.junit:
        by_source: dict[str, list[Verdict]] = {}
        for verdict in judged.verdicts:
            by_source.setdefault(verdict.source, []).append(verdict)
        suites = [
            Suite(
                name=f"performance {source}",
                cases=[verdict_case(verdict, fail_on, links) for verdict in verdicts],
                timestamp=max(verdict.time for verdict in verdicts),
                properties=(("source", source), ("fail_on", fail_on_text)),
            )
            for source, verdicts in by_source.items()
        ]
        write_junit(outputs.junit, junit_tree("sphinx-trending check", suites))
    if outputs.markdown:
        outputs.markdown.write_text(
            markdown_summary(judged.verdicts, fail_on, links), encoding="utf-8"
        )
    if not outputs.email:
        return None
    addresses = Addresses(mail.sender or DEFAULT_SENDER, mail.recipients)
    message = compose(judged.verdicts, fail_on, addresses, links, mail.subject_prefix)
    outputs.email.write_bytes(bytes(message))
    return message
