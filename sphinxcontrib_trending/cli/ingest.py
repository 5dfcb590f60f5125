"""``sphinx-trending ingest``: add inputs to a results store, once, for many builds.

A CI job ingests each day's archives into a store (a folder, shared or
synced); sites then read it with a ``parquet`` source instead of parsing
archives themselves.  Only new or changed inputs are parsed; the store
changes in one commit at the end, so an interrupted run leaves it as it
was.  Exit status as for ``export``: 1 when an input could not be read or
parsed (the rest is still stored), 2 for usage errors.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from sphinxcontrib_trending.cli.exits import EXIT_FAILURES, EXIT_USAGE, FAILING_SUBTYPES
from sphinxcontrib_trending.cli.reading import (
    add_metric_argument,
    add_reading_arguments,
    metric_of,
    spec_from_args,
)
from sphinxcontrib_trending.ingest import SourceSpec, SpecError
from sphinxcontrib_trending.ingest.loader import ingest
from sphinxcontrib_trending.ingest.registry import input_format
from sphinxcontrib_trending.ingest.store.local import DOWNLOADS_NAME
from sphinxcontrib_trending.ingest.store.manifest import read_manifest
from sphinxcontrib_trending.reports.terminal import visible

PROGRESS_EVERY_SECONDS = 5.0
"""How often a log (not a terminal) gets a progress line."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], summary: str) -> None:
    parser = subparsers.add_parser(
        "ingest",
        help=summary,
        description="Parse new or changed inputs into a Parquet results store.  Exit status: "
        "0 everything read and stored, 1 an input could not be read, parsed or stored (the "
        "rest is still stored), 2 usage error.",
    )
    parser.add_argument(
        "sources", nargs="+", metavar="SOURCE", help="file, directory, glob pattern or URL"
    )
    parser.add_argument("--store", type=Path, required=True, metavar="DIR", help="the store folder")
    add_reading_arguments(parser, cache_dir=False)
    add_metric_argument(parser)
    parser.add_argument(
        "--workers", type=int, metavar="N", help="parse with N local worker processes"
    )
    parser.add_argument(
        "--scheduler", metavar="tcp://HOST:PORT", help="parse on an existing Dask cluster"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.set_defaults(handler=run_from_args)


def run_from_args(args: argparse.Namespace) -> int:
    try:
        spec = spec_from_args(args.sources, args, metric=metric_of(args))
    except SpecError as error:
        print(f"sphinx-trending ingest: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    return run(
        spec,
        args.store,
        workers=args.workers,
        scheduler=args.scheduler,
        quiet=args.quiet,
    )


@dataclass
class _Progress:
    """Every message in a terminal (one line, rewritten); in a log, every few seconds."""

    err: TextIO
    terminal: bool
    last: float = field(default_factory=time.monotonic)

    def __call__(self, message: str) -> None:
        if self.terminal:
            self.err.write(f"\r\x1b[Ksphinx-trending ingest: {message}")
            self.err.flush()
            return
        now = time.monotonic()
        if message.startswith("parsed ") and now - self.last < PROGRESS_EVERY_SECONDS:
            return
        self.last = now
        print(f"sphinx-trending ingest: {message}", file=self.err, flush=True)

    def done(self) -> None:
        if self.terminal:
            self.err.write("\n")


def run(
    spec: SourceSpec,
    store: Path,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    quiet: bool = False,
    err: TextIO | None = None,
) -> int:
    """Ingest ``spec``'s inputs into ``store``; returns the exit status."""
    err = err or sys.stderr
    if workers is not None and workers < 1:
        print("sphinx-trending ingest: error: --workers must be at least 1", file=err)
        return EXIT_USAGE
    if spec.format == "parquet":
        print("sphinx-trending ingest: error: a parquet store is not an input", file=err)
        return EXIT_USAGE
    if input_format(spec.format).store is not None:
        message = f"a {spec.format} source is read whole by each build; it is not ingested"
        print(f"sphinx-trending ingest: error: {message}", file=err)
        return EXIT_USAGE
    progress = _Progress(err, terminal=err.isatty())
    # local workers are forked from this process, as a site build's are: a
    # local Dask cluster's start and stop took 1 to 2 s of an ingest of one
    # new build at CSIT's size; where nothing forks, it still serves
    forks = scheduler is None and "fork" in multiprocessing.get_all_start_methods()
    try:
        dataset = ingest(
            spec,
            store,
            store / DOWNLOADS_NAME,
            progress=None if quiet else progress,
            workers=None if forks else workers,
            scheduler=scheduler,
            read_back=False,
            forked=workers if forks else None,
        )
    except SpecError as error:
        print(f"sphinx-trending ingest: error: {error}", file=err)
        return EXIT_USAGE
    if not quiet:
        progress.done()
    for problem in dataset.problems:
        print(visible(f"{problem} [{problem.subtype}]"), file=err)
    unstored = _unstored(store, dataset.parsed)
    print(
        f"sphinx-trending ingest: {store}: {len(dataset.files)} input(s), "
        f"{len(dataset.parsed)} parsed, {len(dataset.files) - len(dataset.parsed)} unchanged"
        + (f", {len(unstored)} parsed but not stored" if unstored else ""),
        file=err,
    )
    failed = unstored or any(p.subtype in FAILING_SUBTYPES for p in dataset.problems)
    return EXIT_FAILURES if failed else 0


def _unstored(store: Path, parsed: list[str]) -> list[str]:
    """Inputs parsed now that the store's manifest does not list: its write failed."""
    manifest, _complaint = read_manifest(store)
    listed = {entry.identity.get("input") for entry in manifest.entries.values()}
    return [origin for origin in parsed if origin not in listed]
