"""The ``sphinx-trending`` command: one sub-command per module.

Each sub-command module exposes ``register(subparsers, summary)`` which adds
its parser and sets ``handler`` (a callable taking the parsed namespace and
returning an exit code, one of those in ``exits``).  Only the module of the
command being run is imported: ``init`` brings Sphinx, ``ingest`` and
``check`` the results store, and ``check`` needs neither Sphinx nor the
other commands' options.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import tempfile
import traceback
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

from sphinxcontrib_trending.cli.exits import EXIT_INTERNAL
from sphinxcontrib_trending.version import __version__


class Command(NamedTuple):
    """A sub-command's module, imported when the command runs, and its one-line summary."""

    module: str
    summary: str


COMMANDS: dict[str, Command] = {
    "init": Command(
        "sphinxcontrib_trending.cli.init", "create a Sphinx trending site from templates"
    ),
    "export": Command("sphinxcontrib_trending.cli.export", "write archived results as JSON Lines"),
    "ingest": Command("sphinxcontrib_trending.cli.ingest", "parse inputs into a results store"),
    "check": Command(
        "sphinxcontrib_trending.cli.check",
        "judge the newest results: CI gate, JSON, JUnit XML, alert e-mail",
    ),
    "incidents": Command(
        "sphinxcontrib_trending.cli.incidents",
        "list the changes many tests share, newest first, with their tests",
    ),
}


def build_parser(full: Collection[str] = tuple(COMMANDS)) -> argparse.ArgumentParser:
    """The command line, with every option of the commands in ``full``.

    Any other command is there by name and summary only, enough for the list
    of commands in ``--help`` and for telling an unknown command apart.
    """
    parser = argparse.ArgumentParser(
        prog="sphinx-trending",
        description="Performance trending from archived benchmark results.",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}", help="show the version"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, command in COMMANDS.items():
        if name in full:
            importlib.import_module(command.module).register(subparsers, command.summary)
        else:
            subparsers.add_parser(name, help=command.summary)
    return parser


def command_named(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs: its first word that is not an option.

    The options before a command (``--help``, ``--version``) take no value,
    so the first other word is the command, whatever follows it.
    """
    return next((word for word in argv if not word.startswith("-")), None)


@contextmanager
def exit_on_terminate() -> Iterator[None]:
    """Inside, SIGTERM (a CI timeout) exits like Ctrl-C does, so temporary files are removed.

    The previous handler comes back afterwards: a process that calls
    :func:`main` as a function (a test, a script) keeps its own, and the
    processes it forks later are not left with one that raises.
    """
    previous = signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    with exit_on_terminate():
        words = sys.argv[1:] if argv is None else argv
        parser = build_parser(full={command_named(words)} & COMMANDS.keys())
        args = parser.parse_args(words)
        try:
            return int(args.handler(args))
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130
        except Exception as error:
            return _internal_error(error)


def _internal_error(error: Exception) -> int:
    """One line naming the cause and where the traceback went; a CI log stays readable."""
    with tempfile.NamedTemporaryFile(
        "w", prefix="sphinx-trending-error-", suffix=".txt", delete=False
    ) as report:
        traceback.print_exception(error, file=report)
    cause = f"{type(error).__name__}: {error}".splitlines()[0][:300]
    print(
        f"sphinx-trending: internal error ({cause}); traceback written to {report.name}",
        file=sys.stderr,
    )
    return EXIT_INTERNAL
