"""What the grouping of one new build costs per series, on a short and a six times longer history.

When a new build arrives every series gains one run, and the grouping
extends each from its saved exact search.  That should cost about the same
whatever the history's length (issue 28).  This measures it on two results
stores of the same series (``bench_incremental.py`` makes such stores), the
two histories alternating so a change in the machine's load falls on both
alike:

- *warm*: each store's histories without their newest build (one per
  testbed) are grouped once into a cache of their own, as the previous
  build left it;
- *measured*, per repeat and store, in a new process as a site build is:
  a copy of that warm cache, then the steps of the grouping phase with the
  newest build: the series' jobs (:func:`.series_jobs`), the cache loaded
  (:func:`.series_cache`), :func:`.classify_series` on ``--workers`` forked
  workers (their CPU time counted apart), and then in that process the
  extension alone (:func:`.extend_jobs` of every series from the state
  it was saved with, in batches of :data:`.many.BATCH` as a worker runs
  them, once the compiled loops are loaded).

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
import gc
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from sphinxcontrib_trending.analysis.batch_extend import StateBuffer
from sphinxcontrib_trending.analysis.history import TestHistory, histories
from sphinxcontrib_trending.analysis.identity import GroupingSpec
from sphinxcontrib_trending.analysis.many import (
    BATCH,
    classify_series,
    extend_jobs,
    series_cache,
    series_jobs,
)
from sphinxcontrib_trending.analysis.search_store import StateReader
from sphinxcontrib_trending.ingest import SourceSpec, load

SOURCE = "mrr"
METRIC = "mrr"
GROUPING = GroupingSpec()
STORES = ("short", "long")


def store_histories(
    store: Path, series: int, workdir: Path
) -> tuple[list[TestHistory], list[TestHistory]]:
    """The first ``series`` histories without each testbed's newest build, and with it."""
    dataset = load(SourceSpec(paths=(str(store),), format="parquet"), cache_dir=workdir / "load")
    builds = list(dataset.builds)
    newest = {build.job: index for index, build in enumerate(builds)}
    previous = [build for index, build in enumerate(builds) if index not in newest.values()]
    older = histories(previous, METRIC)[:series]
    newer = {history.key: history for history in histories(builds, METRIC)}
    return older, [newer[history.key] for history in older]


def warm(store: Path, series: int, workdir: Path, name: str, workers: int) -> Path:
    """A cache of the store's series grouped without their newest run."""
    older, _ = store_histories(store, series, workdir)
    folder = workdir / f"{name}-warm"
    shutil.rmtree(folder, ignore_errors=True)
    classify_series(
        series_jobs(older, GROUPING), series_cache(folder, SOURCE, GROUPING), workers=workers
    )
    return folder


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(store: Path, series: int, workdir: Path, name: str, workers: int) -> dict[str, float]:
    """Seconds of each step of one new build's grouping, from a copy of the warm cache."""
    _, newer = store_histories(store, series, workdir)
    gc.freeze()  # as a site does once its histories are made: no collection walks them again
    folder = workdir / f"{name}-run"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(workdir / f"{name}-warm", folder)
    times: dict[str, float] = {}
    started = time.perf_counter()
    jobs = series_jobs(newer, GROUPING)
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
    batches = [
        (
            resumed[start : start + BATCH],
            [seen for seen, _ in states[start : start + BATCH]],
            StateBuffer.of([state for _, state in states[start : start + BATCH]]),
        )
        for start in range(0, len(resumed), BATCH)
    ]
    first_jobs, first_seen, first_states = batches[0]
    extend_jobs(first_jobs[:1], first_seen[:1], first_states, [0])  # the compiled loops loaded
    started = time.perf_counter()
    for batch_jobs, seen, buffer in batches:
        extend_jobs(batch_jobs, seen, buffer, range(len(batch_jobs)))
    times["extension alone"] = time.perf_counter() - started
    times["resumed"] = len(resumed) / len(jobs)  # a fraction, not seconds
    return times


def report(figures: dict[str, defaultdict[str, list[float]]], series: int, repeats: int) -> None:
    """Each step's median per series, short and long, and their ratio."""
    short, long = (figures[name] for name in STORES)
    print(f"{series} series; median of {repeats}")
    print(f"{'us per series':<18}{'short':>10}{'long':>10}{'ratio':>8}")
    for step in short:
        a, b = statistics.median(short[step]), statistics.median(long[step])
        if step == "resumed":
            print(f"{'resumed share':<18}{a:>10.2f}{b:>10.2f}")
            continue
        a, b = a / series * 1e6, b / series * 1e6
        print(f"{step:<18}{a:>10.0f}{b:>10.0f}{b / a:>8.2f}")


def profile(store: Path, series: int, workdir: Path, output: Path) -> None:
    """cProfile of the long store's grouping in this process, its batches included."""
    _, newer = store_histories(store, series, workdir)
    folder = workdir / "profiled"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(workdir / "long-warm", folder)
    jobs = series_jobs(newer, GROUPING)
    cache = series_cache(folder, SOURCE, GROUPING)
    arguments = {"jobs": jobs, "cache": cache, "classify_series": classify_series}
    cProfile.runctx("classify_series(jobs, cache, workers=1)", {}, arguments, str(output))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("short", type=Path)
    parser.add_argument("long", type=Path)
    parser.add_argument("--series", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--profile", type=Path)
    parser.add_argument("--measure", choices=STORES, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    workdir = arguments.workdir or Path(tempfile.mkdtemp(prefix="bench-grouping-"))
    workdir.mkdir(parents=True, exist_ok=True)
    paths = dict(zip(STORES, (arguments.short, arguments.long), strict=True))
    common = (arguments.series, workdir)
    if arguments.measure is not None:  # one measurement, in a process of its own
        name = arguments.measure
        print(json.dumps(measure(paths[name], *common, name, arguments.workers)))
        return 0
    for name, path in paths.items():
        warm(path, *common, name, arguments.workers)
    figures: dict[str, defaultdict[str, list[float]]] = {name: defaultdict(list) for name in STORES}
    for _ in range(arguments.repeats):
        for name in STORES:
            command = [sys.executable, __file__, *map(str, sys.argv[1:]), "--measure", name]
            if arguments.workdir is None:
                command += ["--workdir", str(workdir)]
            output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            for step, seconds in json.loads(output.splitlines()[-1]).items():
                figures[name][step].append(seconds)
    if arguments.repeats:
        report(figures, arguments.series, arguments.repeats)
    if arguments.profile is not None:
        profile(arguments.long, *common, arguments.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
