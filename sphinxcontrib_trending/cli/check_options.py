"""``check``'s command line: the options, and the typed values :func:`.check.run` takes.

The metavars are those of ``docs/cli_check.rst``; a test compares them.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sphinxcontrib_trending.alerts.smtp import DEFAULT_PASSWORD_ENV, SECURITIES, SmtpSettings
from sphinxcontrib_trending.alerts.webhook import WebhookSettings
from sphinxcontrib_trending.analysis.verdicts import DEFAULT_FAIL_ON
from sphinxcontrib_trending.cli import check_baseline
from sphinxcontrib_trending.cli.sources import add_source_arguments
from sphinxcontrib_trending.conf.checks import is_http_url
from sphinxcontrib_trending.reports.records import DEFAULT_GRAPH_PAGE
from sphinxcontrib_trending.settings import SAMPLE_MODES, SEARCHES

DEFAULT_SENDER = "sphinx-trending@localhost"
"""From address of a message written with --email but no --mail-from."""

DEFAULT_FAIL_ON_TEXT = ",".join(sorted(reason.value for reason in DEFAULT_FAIL_ON))


class MailError(ValueError):
    """E-mail options that cannot work together: exit code 2."""


@dataclass(frozen=True)
class Outputs:
    """What to write besides the table, and how to link to the graphs."""

    json: Path | None = None
    junit: Path | None = None
    email: Path | None = None
    markdown: Path | None = None
    verbose: bool = False
    docs_base_url: str | None = None
    graph_page: str = DEFAULT_GRAPH_PAGE


@dataclass(frozen=True)
class Mail:
    """The alert e-mail's addresses, and the SMTP server when it is to be sent."""

    sender: str | None = None
    recipients: tuple[str, ...] = ()
    subject_prefix: str = "[trending]"
    send: bool = False
    smtp: SmtpSettings = field(default_factory=lambda: SmtpSettings(host="localhost"))

    def check(self, email: Path | None) -> None:
        """Refuse to send what cannot be sent, before any work is done."""
        if not self.send:
            return
        missing = [
            option
            for option, value in (
                ("--email FILE", email),
                ("--mail-from", self.sender),
                ("--mail-to", self.recipients),
            )
            if not value
        ]
        if missing:
            raise MailError(
                f"--send needs {', '.join(missing)} (the message is written to --email first, "
                "so a failed delivery loses nothing)"
            )
        if self.smtp.user and self.smtp.password_env not in os.environ:
            raise MailError(
                f"--smtp-user needs the password in the environment variable "
                f"{self.smtp.password_env} (passwords are never taken from the command line)"
            )


@dataclass(frozen=True)
class Webhook:
    """Where the failing verdict is posted: ``url`` None means ``trending_webhook``."""

    url: str | None = None
    timeout: float = 10.0
    retries: int = 3

    def settings(self, configured: str | None) -> WebhookSettings | None:
        """The delivery settings, or None when no webhook is set anywhere."""
        url = self.url or configured
        return WebhookSettings(url, self.timeout, self.retries) if url else None


def _webhook_url(text: str) -> str:
    """Refuses a malformed URL without echoing it: argparse would print a bad value whole."""
    if not is_http_url(text):
        raise argparse.ArgumentTypeError(
            "expected an http:// or https:// URL (the value is a secret: not shown)"
        )
    return text


def _seconds(text: str) -> float:
    try:
        number = float(text)
    except ValueError:
        number = 0.0
    if not number > 0 or number == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, got {text!r}")
    return number


def _positive_rate(text: str) -> float:
    """An argparse type for a rate above zero (false alarms per 100 runs)."""
    try:
        rate = float(text)
    except ValueError:
        rate = math.nan
    if not 0.0 < rate < math.inf:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return rate


def whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type for a whole number of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            number = minimum - 1
        if number < minimum:
            raise argparse.ArgumentTypeError(
                f"expected a whole number of at least {minimum}, got {text!r}"
            )
        return number

    return parse


def add_selection_arguments(group: argparse._ArgumentGroup, verb: str) -> None:
    """What to read and how to group it: one spelling for every command over sources."""
    group.add_argument(
        "--metric",
        metavar="METRIC",
        help=f"metric to {verb}; with paths also the metric a --value-pattern's group "
        "'value' and CSV/JSON Lines rows without a metric column stand for (default: the "
        "source's metric, else mrr)",
    )
    group.add_argument(
        "--filter",
        metavar="EXPRESSION",
        help=f"{verb} only tests whose tags match, e.g. 'mrr and (1t1c or 2t1c)' "
        "(the syntax of the directives' :filter: option)",
    )
    group.add_argument(
        "--search",
        choices=SEARCHES,
        help="grouping search (default: trending_search, or exact)",
    )
    group.add_argument(
        "--samples", choices=SAMPLE_MODES, help="runs or trials (default: the source's)"
    )


def add_graph_link_arguments(group: argparse._ArgumentGroup) -> None:
    """Where the published graphs are, for the links a report gives each test."""
    group.add_argument(
        "--docs-base-url",
        metavar="URL",
        help="published address of the docs, for graph links (default: trending_docs_base_url)",
    )
    group.add_argument(
        "--graph-page",
        default=DEFAULT_GRAPH_PAGE,
        metavar="PAGE",
        help="document holding the per-test graphs, without .html (default: %(default)s)",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_source_arguments(parser)
    check_baseline.add_arguments(parser)
    mode = parser.add_argument_group("what to judge").add_mutually_exclusive_group()
    mode.add_argument(
        "--build",
        metavar="JOB/BUILD",
        help="judge this build (job name, slash, build number) instead of the newest ones",
    )
    mode.add_argument(
        "--all",
        action="store_true",
        help="judge every build as it was judged at its time, newest first; with a baseline "
        "option, compare every build of the target's job with its baseline",
    )
    analysis = parser.add_argument_group("analysis")
    analysis.add_argument(
        "--known-changes",
        type=Path,
        metavar="FILE",
        help="TOML file of acknowledged anomalies, which never fail the job "
        "(default: trending_known_changes of --conf)",
    )
    analysis.add_argument(
        "--excluded-runs",
        type=Path,
        metavar="FILE",
        help="TOML file of runs left out of every grouping, with reasons "
        "(default: trending_excluded_runs of --conf)",
    )
    add_selection_arguments(analysis, "judge")
    analysis.add_argument(
        "--false-alarm-target",
        type=_positive_rate,
        metavar="RATE",
        help="raise each test's confidence threshold until its stated false-alarm rate "
        "is at most RATE per 100 runs (default: trending_false_alarm_target, or none)",
    )
    engine = analysis.add_mutually_exclusive_group()
    engine.add_argument(
        "--workers",
        type=whole_number(1),
        metavar="N",
        help="parse new inputs and classify the tests' histories on N local worker "
        "processes (default: in-process)",
    )
    engine.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="classify on the Dask cluster behind this scheduler, e.g. tcp://HOST:8786",
    )
    analysis.add_argument(
        "--fail-on",
        default=DEFAULT_FAIL_ON_TEXT,
        metavar="VERDICTS",
        help="comma-separated verdicts that fail the job (default: %(default)s; empty: never fail)",
    )
    analysis.add_argument(
        "--unconfirmed",
        choices=("fail", "pass"),
        default="fail",
        help="whether a regression seen in the newest run only (to be confirmed by a "
        "re-run) fails the job (default: %(default)s)",
    )
    analysis.add_argument(
        "--environment-changes",
        choices=("fail", "pass"),
        default="pass",
        help="whether a change whose first run ran on another environment (hosts, TG, "
        "build pattern fields) than the run before fails the job (default: %(default)s)",
    )
    output = parser.add_argument_group("output")
    output.add_argument("--json", type=Path, metavar="FILE", help="write the verdicts as JSON")
    output.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    output.add_argument("--email", type=Path, metavar="FILE", help="write the alert e-mail (.eml)")
    output.add_argument(
        "--markdown",
        type=Path,
        metavar="FILE",
        help="write a compact Markdown summary, for pull-request comments and job summaries",
    )
    output.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="list Normal verdicts (No Change reports with a baseline option) in the table too",
    )
    add_graph_link_arguments(output)
    _add_mail_arguments(parser)
    _add_webhook_arguments(parser)


def _add_webhook_arguments(parser: argparse.ArgumentParser) -> None:
    hook = parser.add_argument_group("chat webhook")
    hook.add_argument(
        "--webhook",
        type=_webhook_url,
        metavar="URL",
        help="post a Slack-compatible message here when a verdict fails the job "
        "(default: trending_webhook)",
    )
    hook.add_argument(
        "--webhook-timeout",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="give up on one attempt after this many seconds (default: %(default)g)",
    )
    hook.add_argument(
        "--webhook-retries",
        type=whole_number(0),
        default=3,
        metavar="N",
        help="attempts after the first when the server is busy or unreachable, "
        "pausing 1, 2, 4... seconds (default: %(default)s)",
    )


def _add_mail_arguments(parser: argparse.ArgumentParser) -> None:
    mail = parser.add_argument_group("e-mail delivery")
    mail.add_argument("--send", action="store_true", help="send the --email message over SMTP")
    mail.add_argument(
        "--smtp-host",
        default="localhost",
        metavar="HOST",
        help="SMTP server (default: %(default)s)",
    )
    mail.add_argument(
        "--smtp-port",
        type=int,
        metavar="PORT",
        help="SMTP port (default: 25 with none, 587 with starttls, 465 with ssl)",
    )
    mail.add_argument(
        "--smtp-security",
        choices=SECURITIES,
        default="starttls",
        help="plain SMTP, STARTTLS or implicit TLS (default: %(default)s)",
    )
    mail.add_argument(
        "--smtp-user", metavar="USER", help="log in as this user (password from the environment)"
    )
    mail.add_argument(
        "--smtp-password-env",
        default=DEFAULT_PASSWORD_ENV,
        metavar="VAR",
        help="environment variable holding the SMTP password (default: %(default)s)",
    )
    mail.add_argument(
        "--smtp-ca-file", metavar="FILE", help="CA bundle to verify the server's certificate"
    )
    mail.add_argument(
        "--smtp-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="give up on the server after this many seconds (default: 30)",
    )
    mail.add_argument(
        "--mail-from",
        metavar="ADDRESS",
        help=f"sender address; required with --send (a message only written: {DEFAULT_SENDER})",
    )
    mail.add_argument(
        "--mail-to", action="append", default=[], metavar="ADDRESS", help="recipient (repeatable)"
    )
    mail.add_argument(
        "--subject-prefix",
        default="[trending]",
        metavar="TEXT",
        help="start of the e-mail's subject (default: %(default)s)",
    )


def outputs_from_args(args: argparse.Namespace) -> Outputs:
    return Outputs(
        json=args.json,
        junit=args.junit,
        email=args.email,
        markdown=args.markdown,
        verbose=args.verbose,
        docs_base_url=args.docs_base_url,
        graph_page=args.graph_page,
    )


def mail_from_args(args: argparse.Namespace) -> Mail:
    return Mail(
        sender=args.mail_from,
        recipients=tuple(args.mail_to),
        subject_prefix=args.subject_prefix,
        send=args.send,
        smtp=SmtpSettings(
            host=args.smtp_host,
            port=args.smtp_port,
            security=args.smtp_security,
            user=args.smtp_user,
            password_env=args.smtp_password_env,
            ca_file=args.smtp_ca_file,
            timeout=args.smtp_timeout,
        ),
    )


def webhook_from_args(args: argparse.Namespace) -> Webhook:
    return Webhook(url=args.webhook, timeout=args.webhook_timeout, retries=args.webhook_retries)
