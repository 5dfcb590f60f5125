"""What the grouping of one new build costs per series, on a short and a six times longer history.

When a new build arrives every series gains one run, and the grouping
extends each from its saved exact search.  That should cost about the same
whatever the history's length (issue 28).  This measures it on two results
stores of the same series (``bench_incremental.py`` makes such stores),
in one process, the two histories alternating so a change in the machine's
load falls on both alike:

- *warm*: each store's histories without their newest build are grouped
  once into a cache of their own (as the previous build left it);
- *measured*, per repeat and store: a copy of that warm cache, then the
  steps of a site's grouping phase with the newest build: the series' jobs
  (:func:`.series_jobs`), the cache loaded (:func:`.series_cache`) and
  :func:`.classify_series` on ``--workers`` forked workers (their CPU time
  counted apart), and the extension alone in this process
  (:func:`.extend_job` of every series from its saved state, as a worker
  runs it).

Each figure is the median over ``--repeats``, in microseconds per series,
and the ratio of the long history's to the short one's is printed beside.

Usage::

    python benchmarks/bench_grouping.py SHORT_STORE LONG_STORE [--series 2000]
        [--repeats 3] [--workers 2] [--workdir DIR] [--profile FILE]

``--profile FILE`` writes a cProfile dump of one :func:`.classify_series`
of the long store on one worker, which is this process: its batches as
workers run them, and the parent's work around them.
"""

from __future__ import annotations

import argparse
import cProfile
import resource
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from sphinxcontrib_trending.analysis.history import TestHistory, histories
from sphinxcontrib_trending.analysis.identity import GroupingSpec
from sphinxcontrib_trending.analysis.many import (
    classify_series,
    extend_job,
    series_cache,
    series_jobs,
)
from sphinxcontrib_trending.analysis.search_store import StateReader
from sphinxcontrib_trending.ingest import SourceSpec, load

SOURCE = "mrr"
METRIC = "mrr"
GROUPING = GroupingSpec()


@dataclass
class Store:
    """One store's histories with and without the newest build, and its warm cache."""

    name: str
    histories: list[TestHistory]
    warm: Path


def prepare(name: str, store: Path, series: int, workdir: Path, workers: int) -> Store:
    """The store's histories, and a cache grouped on all of them but the newest build."""
    dataset = load(SourceSpec(paths=(str(store),), format="parquet"), cache_dir=workdir / "load")
    builds = list(dataset.builds)
    newest = {build.job: index for index, build in enumerate(builds)}  # each testbed's
    previous = [build for index, build in enumerate(builds) if index not in newest.values()]
    older = histories(previous, METRIC)[:series]
    newer = {history.key: history for history in histories(builds, METRIC)}
    warm = workdir / f"{name}-warm"
    shutil.rmtree(warm, ignore_errors=True)
    cache = series_cache(warm, SOURCE, GROUPING)
    classify_series(series_jobs(older, GROUPING), cache, workers=workers)
    return Store(name, [newer[history.key] for history in older], warm)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(store: Store, workdir: Path, workers: int) -> dict[str, float]:
    """Seconds of each step of one new build's grouping, from a copy of the warm cache."""
    folder = workdir / f"{store.name}-run"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(store.warm, folder)
    times: dict[str, float] = {}
    started = time.perf_counter()
    jobs = series_jobs(store.histories, GROUPING)
    times["jobs"] = time.perf_counter() - started
    started = time.perf_counter()
    cache = series_cache(folder, SOURCE, GROUPING)
    times["cache load"] = time.perf_counter() - started
    tasks = [cache.task(job) for job in jobs]  # the states to extend, read before they change
    with StateReader() as reader:
        states = [
            (task.resume[0], reader.read(task.resume[1]))  # type: ignore[arg-type]
            for task in tasks
            if task.resume is not None
        ]
    resumed = [job for job, task in zip(jobs, tasks, strict=True) if task.resume is not None]
    cache = series_cache(folder, SOURCE, GROUPING)
    started, children = time.perf_counter(), _children_cpu()
    classify_series(jobs, cache, workers=workers)
    times["classify_series"] = time.perf_counter() - started
    times["workers' CPU"] = _children_cpu() - children
    started = time.perf_counter()
    for job, (seen, state) in zip(resumed, states, strict=True):
        extend_job(job, seen, state)
    times["extension alone"] = time.perf_counter() - started
    times["resumed"] = len(resumed) / len(jobs)  # a fraction, not seconds
    return times


def report(
    stores: list[Store], figures: dict[str, defaultdict[str, list[float]]], repeats: int
) -> None:
    """Each step's median per series, short and long, and their ratio."""
    short, long = (figures[store.name] for store in stores)
    runs = [len(store.histories[0].runs) for store in stores]
    count = len(stores[0].histories)
    print(f"{count} series, {runs[0]} and {runs[1]} runs; median of {repeats}")
    print(f"{'us per series':<18}{'short':>10}{'long':>10}{'ratio':>8}")
    for step in short:
        a, b = statistics.median(short[step]), statistics.median(long[step])
        if step == "resumed":
            print(f"{'resumed share':<18}{a:>10.2f}{b:>10.2f}")
            continue
        a, b = a / count * 1e6, b / count * 1e6
        print(f"{step:<18}{a:>10.0f}{b:>10.0f}{b / a:>8.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("short", type=Path)
    parser.add_argument("long", type=Path)
    parser.add_argument("--series", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--profile", type=Path)
    arguments = parser.parse_args()
    workdir = arguments.workdir or Path(tempfile.mkdtemp(prefix="bench-grouping-"))
    workdir.mkdir(parents=True, exist_ok=True)
    stores = [
        prepare(name, path, arguments.series, workdir, arguments.workers)
        for name, path in (("short", arguments.short), ("long", arguments.long))
    ]
    figures: dict[str, defaultdict[str, list[float]]] = {
        store.name: defaultdict(list) for store in stores
    }
    for _ in range(arguments.repeats):
        for store in stores:
            for step, seconds in measure(store, workdir, arguments.workers).items():
                figures[store.name][step].append(seconds)
    if arguments.repeats:
        report(stores, figures, arguments.repeats)
    if arguments.profile is not None:
        store = stores[-1]
        folder = workdir / "profiled"
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(store.warm, folder)
        jobs = series_jobs(store.histories, GROUPING)
        cache = series_cache(folder, SOURCE, GROUPING)
        cProfile.runctx(
            "classify_series(jobs, cache, workers=1)",
            globals(),
            {"jobs": jobs, "cache": cache},
            str(arguments.profile),
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
