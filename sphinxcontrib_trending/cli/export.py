"""``sphinx-trending export``: archived results as JSON Lines on stdout.

One object per (build, test, metric), in build time order, so any tool
(jq, pandas, a database loader) can use what the ingest layer reads.  A
failed test, or one with no result, is one object with ``metric`` null and
``values`` empty; a telemetry series' objects carry its ``labels`` too.
Problems go to stderr, one per line, naming the file and line; the exit
code is 1 when any input could not be read or parsed (after everything else
was exported).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from sphinxcontrib_trending.cli.exits import EXIT_FAILURES, EXIT_USAGE, FAILING_SUBTYPES
from sphinxcontrib_trending.cli.reading import (
    add_metric_argument,
    add_reading_arguments,
    metric_of,
    spec_from_args,
)
from sphinxcontrib_trending.ingest import Build, Dataset, SpecError, load
from sphinxcontrib_trending.ingest.codec import result_fields
from sphinxcontrib_trending.ingest.dimensions import DimensionRules, rules_for
from sphinxcontrib_trending.ingest.telemetry import split_series
from sphinxcontrib_trending.ingest.timestamps import format_time
from sphinxcontrib_trending.reports.terminal import visible


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], summary: str) -> None:
    parser = subparsers.add_parser(
        "export",
        help=summary,
        description="Write archived results as JSON Lines on stdout: one object per build, "
        "test and metric, in build time order.  Exit status: 0 everything read, 1 an input "
        "could not be read or parsed (the rest is still written), 2 usage error.",
    )
    parser.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="file, directory, glob pattern or http(s) URL",
    )
    add_reading_arguments(parser)
    add_metric_argument(parser)
    parser.add_argument(
        "--quiet", action="store_true", help="no progress messages on stderr (problems still)"
    )
    parser.set_defaults(handler=run)


def records(build: Build, rules: DimensionRules | None = None) -> Iterator[dict[str, Any]]:
    """The export objects of one build, in test order.

    ``name`` is the display name (led by testbed, NIC, driver, frame size and
    cores for a test that names a NIC), so two tests differing only by NIC
    never export under one name; reading an export back names them the same.
    A telemetry series is written as its name (``telemetry:calls_total``)
    and its ``labels`` as an object, which reading the export back joins again.
    """
    rules = rules or rules_for()
    head = {
        "job": build.job,
        "build": build.build,
        "time": format_time(build.time),
        "dut_version": build.dut_version,
        "testbed": build.testbed,
    }
    for test in build.tests:
        body = result_fields(test)
        body["name"] = rules.display_name(test, build.testbed)
        body["hosts"] = test.attribute("hosts")
        if not test.measurements:
            yield {**head, **body, "metric": None, "unit": None, "values": []}
        for measurement in test.measurements:
            metric, labels = split_series(measurement.metric)
            record = {
                **head,
                **body,
                "metric": metric,
                "unit": measurement.unit,
                "values": list(measurement.values),
            }
            yield {**record, "labels": labels} if labels else record


def write_dataset(dataset: Dataset, out: TextIO, rules: DimensionRules | None = None) -> None:
    for build in dataset.builds:
        for record in records(build, rules):
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def run(args: argparse.Namespace) -> int:
    def progress(message: str) -> None:
        print(f"sphinx-trending export: {message}", file=sys.stderr, flush=True)

    try:
        spec = spec_from_args(args.sources, args, metric=metric_of(args))
        dataset = load(spec, cache_dir=args.cache_dir, progress=None if args.quiet else progress)
    except SpecError as error:
        print(f"sphinx-trending export: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        write_dataset(dataset, sys.stdout, rules_for(spec.dimensions))
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader (head, a closed pager) went away: stop writing, still report.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    for problem in dataset.problems:
        print(visible(f"{problem} [{problem.subtype}]"), file=sys.stderr)
    return EXIT_FAILURES if any(p.subtype in FAILING_SUBTYPES for p in dataset.problems) else 0
