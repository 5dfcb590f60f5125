"""``sphinx-trending incidents``: the changes many tests share, over the last days.

It reads the same sources as ``check`` (a project's conf.py, or paths),
takes each source's news of the last ``--days`` (firm regressions and
progressions, new failures, acknowledged changes left out, as the
``trending-news`` page does) and groups them into incidents (see
:mod:`~sphinxcontrib_trending.analysis.incidents`): one per build or DUT
version that started them.  It prints them newest first, each with its
member tests, and writes them as JSON on request.

As asv structures its commands, the argument setup (:func:`register`,
:func:`run_from_args`) stays apart from :func:`run`, which takes the
settings and typed options: tests and scripts call it without argparse.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sphinxcontrib_trending.analysis.incident_sources import from_news
from sphinxcontrib_trending.analysis.incidents import Anomaly, Incident, incidents
from sphinxcontrib_trending.analysis.many import classify_series, series_cache, series_jobs
from sphinxcontrib_trending.analysis.news import news
from sphinxcontrib_trending.analysis.summary import summarize
from sphinxcontrib_trending.cli.check_loading import (
    Loaded,
    LoadError,
    Messages,
    load_sources,
    print_lines,
)
from sphinxcontrib_trending.cli.check_options import (
    add_graph_link_arguments,
    add_selection_arguments,
    whole_number,
)
from sphinxcontrib_trending.cli.exits import EXIT_USAGE
from sphinxcontrib_trending.cli.printer import Printer
from sphinxcontrib_trending.cli.sources import SourceError, add_source_arguments, writable_settings
from sphinxcontrib_trending.ingest import SpecError
from sphinxcontrib_trending.reports.incidents import incident_lines, incident_record
from sphinxcontrib_trending.reports.records import DEFAULT_GRAPH_PAGE, GraphLinks
from sphinxcontrib_trending.reports.terminal import visible
from sphinxcontrib_trending.settings import Settings

DEFAULT_DAYS = 30
SCHEMA = "sphinx-trending-incidents/1"


def register(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        "incidents",
        help=summary,
        description="List the incidents of the last days: regressions, progressions and new "
        "failures of many tests started by the same build or DUT version, each with its "
        "tests, the last good and first bad version and build, what the tests share and "
        "how far the change went.  Exit status: 0 listed (with or without incidents), "
        "2 usage or configuration error.",
        allow_abbrev=False,
    )
    add_source_arguments(parser)
    chosen = parser.add_argument_group("what to list")
    chosen.add_argument(
        "--days",
        type=whole_number(1),
        default=DEFAULT_DAYS,
        metavar="N",
        help="incidents whose first bad run is in the N days up to each source's newest "
        "build (default: %(default)s)",
    )
    add_selection_arguments(chosen, "list")
    output = parser.add_argument_group("output")
    output.add_argument("--json", type=Path, metavar="FILE", help="write the incidents as JSON")
    add_graph_link_arguments(output)
    parser.set_defaults(handler=run_from_args)


PRINTER = Printer("incidents")


def run_from_args(args: argparse.Namespace) -> int:
    """Turn the parsed command line into :func:`run`'s typed arguments."""
    try:
        settings = writable_settings(args, PRINTER.error, PRINTER.warning)
    except (SourceError, SpecError) as error:
        PRINTER.error(str(error))
        return EXIT_USAGE
    return run(
        settings,
        days=args.days,
        json_path=args.json,
        metric=args.metric,
        tag_filter=args.filter,
        search=args.search,
        samples=args.samples,
        docs_base_url=args.docs_base_url,
        graph_page=args.graph_page,
    )


def source_anomalies(loaded: Loaded, settings: Settings, days: int) -> list[Anomaly]:
    """One source's news of the ``days`` up to its newest build, as anomalies.

    The groupings come from the series cache ``check`` keeps (``--cache-dir``),
    so running both in one CI job groups every history once.
    """
    end = max(build.time for build in loaded.builds)
    grouping = loaded.options.grouping
    classified = classify_series(
        series_jobs(loaded.histories, grouping),
        series_cache(settings.cache_dir, loaded.source.name, grouping),
    )
    trends = [
        summarize(history, loaded.options, end, settings.known_changes, grouped)
        for history, grouped in zip(loaded.histories, classified, strict=True)
    ]
    return from_news(news(trends, end, days), loaded.source.name)


def run(
    settings: Settings,
    *,
    days: int = DEFAULT_DAYS,
    json_path: Path | None = None,
    metric: str | None = None,
    tag_filter: str | None = None,
    search: str | None = None,
    samples: str | None = None,
    docs_base_url: str | None = None,
    graph_page: str = DEFAULT_GRAPH_PAGE,
) -> int:
    """List the incidents of every source of ``settings``; returns the exit status."""
    messages = Messages(PRINTER.error)
    try:
        loaded = load_sources(settings, metric, tag_filter, search, samples, messages)
    except (LoadError, SpecError) as error:
        PRINTER.error(str(error))
        return EXIT_USAGE
    found = incidents(
        anomaly for item in loaded for anomaly in source_anomalies(item, settings, days)
    )
    links = GraphLinks(
        docs_base_url or settings.docs_base_url,
        graph_page,
        {name: source.links for name, source in settings.sources.items()},
    )
    if json_path is not None:
        try:
            json_path.write_text(
                json.dumps(document(found, days, links), indent=2, ensure_ascii=False) + "\n",
                encoding="utf-8",
            )
        except OSError as error:
            PRINTER.error(f"cannot write output: {error}")
            return EXIT_USAGE
    print_lines(text_report(found, days, links))
    return 0


def document(found: Sequence[Incident], days: int, links: GraphLinks) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "days": days,
        "incidents": [incident_record(incident, links) for incident in found],
    }


def text_report(found: Sequence[Incident], days: int, links: GraphLinks) -> list[str]:
    period = "the last day" if days == 1 else f"the last {days} days"
    count = f"{len(found)} incident{'s' if len(found) != 1 else ''}"
    # Names come from the data: control characters are shown, never sent to the terminal.
    return [
        f"{count} in {period}{':' if found else '.'}",
        *map(visible, incident_lines(found, links)),
    ]
