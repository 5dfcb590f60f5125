"""The ``sphinx-trending`` command: one sub-command per module.

Each sub-command module exposes ``register(subparsers)`` which adds its parser
and sets ``handler`` (a callable taking the parsed namespace and returning an
exit code).  Exit codes follow one convention: 0 success, 1 the work found
failures (bad inputs, failing verdicts), 2 usage or configuration errors.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from sphinxcontrib_trending import __version__

SUBCOMMAND_MODULES: tuple[str, ...] = ("init", "export", "check")

EXIT_FAILURES = 1
EXIT_USAGE = 2


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
