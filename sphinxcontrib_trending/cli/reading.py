"""The options that say how to read archives, shared by ``export``, ``ingest`` and ``check``.

One definition keeps the commands' names, meanings and defaults from
drifting apart.  Every option defaults to None, so a command can tell what
the user actually gave (``check --conf`` refuses reading options that would
be ignored); :func:`spec_from_args` fills in the real defaults.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sphinxcontrib_trending.ingest import SourceSpec, SpecError
from sphinxcontrib_trending.ingest.dimensions import overrides_from
from sphinxcontrib_trending.ingest.limits import ReadLimits
from sphinxcontrib_trending.ingest.registry import input_format
from sphinxcontrib_trending.ingest.sniffing import SNIFF_BYTES, not_robot_hint, sniffed_table
from sphinxcontrib_trending.ingest.spec import (
    DEFAULT_BUILD_PATTERN,
    DEFAULT_METRIC,
    DEFAULT_VERSION_PATTERN,
    FORMATS,
)

READING_OPTIONS = (
    "format",
    "build_pattern",
    "version_pattern",
    "testbed",
    "testbed_map",
    "limit",
    "encoding",
    "dimension",
    "value_pattern",
    "value_keyword",
)
"""Destinations of the options that describe how to read paths."""


def add_reading_arguments(parser: Any, *, cache_dir: bool = True) -> None:
    """Add the reading options to a parser or an argument group.

    ``ingest`` names its store instead of a cache folder: ``cache_dir=False``.
    """
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="input format (default: robot; a .csv or .jsonl file needs --format)",
    )
    parser.add_argument(
        "--build-pattern",
        metavar="REGEX",
        help="regex with (?P<job>) and (?P<build>) groups, searched in file and member names "
        "(default: the CSIT convention {job}__{build}__*)",
    )
    parser.add_argument(
        "--version-pattern",
        metavar="REGEX",
        help="regex finding the DUT version in messages (group 'version' or group 1)",
    )
    parser.add_argument(
        "--testbed",
        metavar="REGEX",
        help="regex naming the testbed from the job name (group 'testbed' or whole match)",
    )
    parser.add_argument(
        "--testbed-map",
        action="append",
        default=[],
        metavar="ADDRESS=NAME",
        help="testbed name for a 'Setup of TG node ADDRESS' message (repeatable)",
    )
    parser.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="raise or lower a cap on what one input may cost, e.g. max_tests=200000 "
        "(repeatable; see the formats page)",
    )
    parser.add_argument(
        "--encoding", help="text encoding of CSV/JSON Lines files without a BOM (default UTF-8)"
    )
    parser.add_argument(
        "--dimension",
        action="append",
        default=[],
        metavar="NAME=RULE",
        help="replace the built-in rule of a test dimension (nic, driver, frame_size, cores, "
        "test_type, testbed): a regex, 'tag:PREFIX' or empty to turn it off (repeatable)",
    )
    add_value_arguments(parser)
    if cache_dir:
        parser.add_argument(
            "--cache-dir", type=Path, metavar="DIR", help="results store and downloads folder"
        )


def add_value_arguments(parser: Any) -> None:
    """Where a Robot Framework test that is not CSIT's keeps its values (also ``init``'s)."""
    parser.add_argument(
        "--value-pattern",
        metavar="REGEX",
        help="regex searched in each passed test's message; each named group is a metric, "
        "the group 'value' the source's metric (robot only; replaces the CSIT wordings)",
    )
    parser.add_argument(
        "--value-keyword",
        metavar="NAME",
        help="search --value-pattern in the messages logged inside this keyword instead",
    )


def add_metric_argument(parser: Any) -> None:
    """``--metric`` for commands that read but do not judge (``export``, ``ingest``)."""
    parser.add_argument(
        "--metric",
        metavar="METRIC",
        help=f"the metric a --value-pattern's group 'value' and CSV/JSON Lines rows without a "
        f"metric column stand for; 'elapsed' adds Robot Framework test durations "
        f"(default: {DEFAULT_METRIC})",
    )


def parse_limits(pairs: list[str]) -> ReadLimits:
    """``--limit max_tests=500`` options; SpecError names a malformed or bad one."""
    raw = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals:
            raise SpecError(f"--limit {pair!r} is not NAME=VALUE")
        raw[name.strip()] = value.strip()
    try:
        return ReadLimits.from_mapping(raw)
    except ValueError as error:
        raise SpecError(f"--limit: {error}") from None


def parse_testbed_map(pairs: list[str]) -> dict[str, str]:
    mapping = {}
    for pair in pairs:
        address, equals, name = pair.partition("=")
        if not equals or not address or not name:
            raise SpecError(f"--testbed-map {pair!r} is not ADDRESS=NAME")
        mapping[address.strip()] = name.strip()
    return mapping


def parse_dimensions(pairs: list[str]) -> tuple[tuple[str, str], ...]:
    """``--dimension nic=tag:NIC_`` options; SpecError names a malformed or bad one."""
    rules = {}
    for pair in pairs:
        name, equals, rule = pair.partition("=")
        if not equals or not name.strip():
            raise SpecError(f"--dimension {pair!r} is not NAME=RULE")
        rules[name] = rule
    try:
        return overrides_from(rules)
    except ValueError as error:
        raise SpecError(f"--dimension: {error}") from None


def _head(path: str) -> bytes | None:
    """A file's first bytes; None if unreadable."""
    try:
        with open(path, "rb") as handle:
            return handle.read(SNIFF_BYTES)
    except OSError:
        return None


def _sniffed(path: str) -> str | None:
    """The table format a plain file's first bytes show, if any."""
    head = _head(path)
    return None if head is None else sniffed_table(head)


def _claims(fmt: str, path: str) -> bool:
    """Is ``path`` ``fmt``'s: by its name, and by its content where names are generic."""
    declared = input_format(fmt)
    if not declared.is_document(path):
        return False
    if declared.sniff is None:
        return True
    head = _head(path)
    return head is not None and declared.sniff(head)


def _not_robot(path: str) -> str | None:
    """The format a path given without --format is in, when that is not robot.

    The name decides where it says (``.csv``, ``.jsonl``); a plain file whose
    name says nothing is sniffed.  Folders, globs and URLs are left alone.
    """
    for fmt in FORMATS:
        if _claims(fmt, path):
            return None if fmt == "robot" else fmt
    if Path(path).is_file() and not path.lower().endswith(".xml"):
        return _sniffed(path)
    return None


def default_format(paths: list[str]) -> str:
    """robot, unless a path is clearly in another format: then a message saying what to pass."""
    for path in paths:
        fmt = _not_robot(path)
        if fmt is not None:
            raise SpecError(f"{path} {not_robot_hint(fmt)}")
    return "robot"


def metric_of(args: argparse.Namespace) -> str:
    """The ``--metric`` given, else the default one."""
    return args.metric or DEFAULT_METRIC


def spec_from_args(paths: list[str], args: argparse.Namespace, **analysis: Any) -> SourceSpec:
    """A SourceSpec from the reading options; ``analysis`` adds metric, unit, direction."""
    return SourceSpec(
        paths=tuple(paths),
        format=args.format or default_format(paths),
        build_pattern=args.build_pattern or DEFAULT_BUILD_PATTERN,
        version_pattern=args.version_pattern or DEFAULT_VERSION_PATTERN,
        testbed_pattern=args.testbed,
        testbed_map=parse_testbed_map(args.testbed_map),
        limits=parse_limits(args.limit),
        encoding=args.encoding,
        dimensions=parse_dimensions(args.dimension),
        value_pattern=args.value_pattern,
        value_keyword=args.value_keyword,
        **analysis,
    )
