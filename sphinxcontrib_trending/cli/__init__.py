"""The ``sphinx-trending`` command: one sub-command per module.

Each sub-command module exposes ``register(subparsers)`` which adds its parser
and sets ``handler`` (a callable taking the parsed namespace and returning an
exit code).  Exit codes follow one convention: 0 success, 1 the work found
failures (bad inputs, failing verdicts), 2 usage or configuration errors,
70 an internal error (a bug: one line on stderr, the traceback in a file).
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import tempfile
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from sphinxcontrib_trending import __version__

SUBCOMMAND_MODULES: tuple[str, ...] = ("init", "export", "ingest", "check")

EXIT_FAILURES = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 70
"""EX_SOFTWARE of sysexits.h: never 1, which means "the work found failures"."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sphinx-trending",
        description="Performance trending from archived benchmark results.",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}", help="show the version"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in SUBCOMMAND_MODULES:
        module = importlib.import_module(f"sphinxcontrib_trending.cli.{name}")
        module.register(subparsers)
    return parser


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
        parser = build_parser()
        args = parser.parse_args(argv)
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
