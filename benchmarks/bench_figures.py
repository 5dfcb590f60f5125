"""Time the graph pages' figures before and after a change, interleaved in one run.

Usage::

    python benchmarks/bench_figures.py [--store PATH] [--series 2000] [--runs 20 120]
        [--page 10] [--repeat 5] [--before REV] [--columns | --tuples] [--json] [--cpu]
        [--cold] [--page-table]

Builds come from a store (``--store``, read as the parquet format) or are
made up here: ``--series`` tests on two testbeds, each with a few level
shifts, 2 % noise, a failed run now and then and, every fifth series, an
unmeasured run and a one-run spike.  For each ``--runs``, each testbed's
newest builds of that many make the histories of metric ``mrr``
(:func:`.histories`, as a site makes them), summarised as a graph page
does (:func:`.summarize` with the default options), then drawn ``--page``
series to a figure, with link templates as a CI site has them.

The figure code of ``--before`` (a git revision, read with ``git show``) and
the working tree's run in turn, the order swapped each repetition, after one
warm-up each (their caches of escaped texts are filled once per site, not per
page); with ``--cold`` each repetition starts with the module's caches
emptied, as a build's process starts (a cache an earlier repetition filled
holds its builds' objects, which the new histories' match only by value).
Every repetition draws histories made anew by :func:`.histories`,
as a build's are, so nothing read of them before is kept: with
``--columns`` (the default) their runs are the :class:`.ColumnRuns` it
gives; with ``--tuples`` tuples of those runs (made before the clock
starts), as a history made by hand has them, whose columns a figure that
reads them pays for.  Both versions' figures are checked equal, byte for
byte as JSON.  With ``--page-table`` both draw as a graph page does (a
shared layout), the working tree's figures naming rows of one table of
what they share (:mod:`~sphinxcontrib_trending.render.page_runs`, written
with them under ``--json``): its figures, put back together with the table,
are checked equal to the other's.  With ``--json`` each version's time
includes writing its figures as the graph directive does (its own
``script_json`` where its figure module has one); with
``--cpu`` times are the process's CPU time, not the wall clock's.  Printed:
each version's median milliseconds per page and microseconds per run, and
before/after.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

from sphinxcontrib_trending.analysis.history import TestHistory, histories
from sphinxcontrib_trending.analysis.summary import TestTrend, TrendOptions, summarize
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult
from sphinxcontrib_trending.render import figure as after
from sphinxcontrib_trending.render.page_runs import PageRuns, expand_figure
from sphinxcontrib_trending.render.script_data import script_json

ROOT = Path(__file__).resolve().parent.parent
LINKS = LinkTemplates(
    build="https://jenkins.example/job/{job}/{build}",
    compare="https://git.example/compare/{last_good}..{first_bad}",
)
START = datetime(2026, 1, 1, 3, 0, tzinfo=timezone.utc)


def _made_up(series: int, runs: int, seed: int = 7) -> list[Build]:
    """``series`` MRR tests on two testbeds over ``runs`` daily builds, oldest first."""
    rng = random.Random(seed)
    levels = []
    for number in range(series):
        base = rng.uniform(1e6, 2e7)
        shifts = sorted(rng.sample(range(1, runs), k=min(3, runs - 1)))
        levels.append((base, {at: rng.choice((0.9, 0.95, 1.05, 1.1)) for at in shifts}, number))
    builds = []
    for testbed in ("2n-skx", "3n-skx"):
        job = f"csit-vpp-perf-mrr-daily-master-{testbed}"
        level = [base for base, _, _ in levels]
        for day in range(runs):
            tests = []
            for at, (_, shifts, number) in enumerate(levels):
                level[at] *= shifts.get(day, 1.0)
                failed = rng.random() < 0.02
                unmeasured = number % 5 == 0 and day == runs // 2
                spike = 0.7 if number % 5 == 1 and day == runs // 3 else 1.0
                trials = tuple(level[at] * spike * rng.gauss(1.0, 0.02) for _ in range(10))
                name = f"{number}ge2p1x710-ethip4-ip4base-mrr"
                tests.append(
                    TestResult(
                        test_id=f"tests.vpp.perf.ip4.{name}",
                        name=name,
                        suite="tests.vpp.perf.ip4",
                        tags=("MRR", "2T1C"),
                        status="FAIL" if failed else "PASS",
                        start=None,
                        message="No traffic received" if failed else "",
                        measurements=()
                        if failed or unmeasured
                        else (Measurement("mrr", "pps", trials),),
                        thread_core="2T1C",
                    )
                )
            builds.append(
                Build(
                    job=job,
                    build=str(day + 1),
                    time=START + timedelta(days=day, minutes=30 * (testbed == "3n-skx")),
                    dut_version=f"26.02-rc0~{day + 1}-g{day * 7919 % 65536:04x}",
                    testbed=testbed,
                    origin=f"{job}/{day + 1}",
                    tests=tuple(tests),
                )
            )
    builds.sort(key=lambda build: build.time)
    return builds


def _stored(store: str) -> list[Build]:
    from sphinxcontrib_trending.ingest import SourceSpec, load

    return list(load(SourceSpec(paths=(store,), format="parquet")).builds)


def _newest(builds: Sequence[Build], runs: int) -> list[Build]:
    """Each testbed's newest ``runs`` builds, oldest first."""
    kept: dict[str | None, list[Build]] = {}
    for build in reversed(builds):
        mine = kept.setdefault(build.testbed, [])
        if len(mine) < runs:
            mine.append(build)
    return sorted((build for mine in kept.values() for build in mine), key=lambda b: b.time)


def _summarised(found: Sequence[TestHistory]) -> list[TestTrend]:
    options = TrendOptions()
    end = max(history.runs[-1].time for history in found)
    return [summarize(history, options, end) for history in found]


def _before(revision: str) -> ModuleType:
    """The figure module as ``revision`` has it, imported under a name of its own."""
    source = subprocess.run(
        ["git", "show", f"{revision}:sphinxcontrib_trending/render/figure.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "figure_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("figure_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _fresh(
    pages: list[list[TestTrend]], builds: list[Build], tuples: bool
) -> list[list[TestTrend]]:
    """The pages' trends with their histories made anew, as a new build reads them."""
    made = {history.key: history for history in histories(builds, "mrr")}
    return [
        [replace(trend, history=_anew(trend.history, made, tuples)) for trend in page]
        for page in pages
    ]


def _anew(history: TestHistory, made: dict[str, TestHistory], tuples: bool) -> TestHistory:
    """``history`` as made again, its runs a tuple if asked.

    Its display name is kept: a build works it out once per series, and its
    patterns would otherwise be most of the time measured.
    """
    found = made[history.key]
    if tuples:
        found = replace(found, runs=tuple(found.runs))
    found.__dict__["display_name"] = history.display_name
    return found


def _timed(
    module: ModuleType,
    pages: list[list[TestTrend]],
    written: bool,
    clock: Callable[[], float],
    cold: bool = False,
    page_table: bool = False,
) -> tuple[float, list[Any], PageRuns | None]:
    """The seconds ``module`` takes to draw ``pages``, its figures, and the table they
    share if ``page_table`` and the module is the working tree's."""
    if cold:
        for cached in vars(module).values():
            if callable(getattr(cached, "cache_clear", None)):
                cached.cache_clear()
    options: dict[str, Any] = {"shared_layout": True} if page_table else {}
    table = PageRuns() if page_table and module is after else None
    if table is not None:
        options["page_runs"] = table
    # an older tree's figure module encodes its figures itself; today's, render.script_data
    encode = getattr(module, "script_json", script_json)
    gc.collect()
    gc.freeze()  # as a build freezes what it loaded: the collector walks only what is new
    started = clock()
    figures = [module.trend_figure(page, links=LINKS, **options) for page in pages]
    if written:
        texts = [encode(figure) for figure in figures]
        if table is not None:
            texts.append(encode(table.table()))
    elapsed = clock() - started
    gc.unfreeze()
    if written and texts[: len(figures)] != [script_json(figure) for figure in figures]:
        raise SystemExit("the figures' JSON differs from the working tree's")
    return elapsed, figures, table


def _as_read(figure: dict[str, Any], table: PageRuns | None) -> Any:
    """The figure as its JSON reads, put back together with ``table`` if it names it."""
    read = json.loads(script_json(figure))
    if table is None:
        return read
    return expand_figure(read, json.loads(script_json(table.table())))


def _compare(
    label: str,
    builds: list[Build],
    series: int,
    page: int,
    repeat: int,
    before: ModuleType,
    tuples: bool,
    written: bool = False,
    clock: Callable[[], float] = time.perf_counter,
    cold: bool = False,
    page_table: bool = False,
) -> None:
    trends = _summarised(histories(builds, "mrr")[:series])
    pages = [trends[at : at + page] for at in range(0, len(trends), page)]
    runs = sum(len(trend.history.runs) for trend in trends)
    seconds: dict[str, list[float]] = {"before": [], "after": []}
    versions = {"before": before, "after": after}
    for repetition in range(repeat + 1):
        order = ("before", "after") if repetition % 2 else ("after", "before")
        drawn = {}
        tables = {}
        for name in order:
            elapsed, drawn[name], tables[name] = _timed(
                versions[name], _fresh(pages, builds, tuples), written, clock, cold, page_table
            )
            if repetition:  # the first is a warm-up
                seconds[name].append(elapsed)
        if repetition == 0:
            for old, new in zip(drawn["before"], drawn["after"], strict=True):
                if _as_read(old, None) != _as_read(new, tables["after"]):
                    raise SystemExit(f"{label}: the figures differ")
    medians = {name: statistics.median(found) for name, found in seconds.items()}
    print(f"{label}: {len(trends)} series, {runs} runs, {len(pages)} pages of {page}")
    for name, median in medians.items():
        print(
            f"  {name:6} {median * 1e3 / len(pages):8.2f} ms/page {median * 1e6 / runs:7.2f} us/run"
            f"  (min {min(seconds[name]) * 1e3:.0f} ms, max {max(seconds[name]) * 1e3:.0f} ms)"
        )
    ratios = [old / new for old, new in zip(seconds["before"], seconds["after"], strict=True)]
    print(
        f"  before/after {medians['before'] / medians['after']:.2f}x"
        f" (pairwise min {min(ratios):.2f}, max {max(ratios):.2f})"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", help="a trending store to read the mrr histories of")
    parser.add_argument("--series", type=int, default=2000)
    parser.add_argument("--runs", type=int, nargs="+", default=[20, 120])
    parser.add_argument("--page", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", default="1d2f692")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--columns", dest="columns", action="store_true", default=True)
    kind.add_argument("--tuples", dest="columns", action="store_false")
    parser.add_argument("--json", action="store_true", help="time writing the figures too")
    parser.add_argument("--cpu", action="store_true", help="time the process's CPU time")
    parser.add_argument("--cold", action="store_true", help="empty the caches each repetition")
    parser.add_argument(
        "--page-table",
        action="store_true",
        help="draw as a graph page: a shared layout, the working tree's with a page's table",
    )
    args = parser.parse_args(argv)
    clock = time.process_time if args.cpu else time.perf_counter  # CPU: not others' load
    before = _before(args.before)
    longest = max(args.runs)
    builds = _stored(args.store) if args.store else _made_up(args.series // 2, longest)
    kind_text = "ColumnRuns" if args.columns else "tuples"
    print(f"runs as {kind_text}; before = {args.before}, after = the working tree")
    for runs in args.runs:
        newest = _newest(builds, runs)
        label = f"{runs} runs"
        _compare(
            label,
            newest,
            args.series,
            args.page,
            args.repeat,
            before,
            not args.columns,
            args.json,
            clock,
            args.cold,
            args.page_table,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
