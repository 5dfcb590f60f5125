"""Does one new build cost the same on a six times longer history?  (Issue 28's target.)

The same series (``--testbeds`` x ``--tests``) with a history of H builds
and of 6H builds; on each, one new build arrives and is measured two ways,
side by side in one run:

- from a results store: ``sphinx-trending ingest --store`` of the new
  archives, then ``sphinx-build`` of a site whose source is that store;
- embedded: ``sphinx-build`` of a site reading the archives itself (its own
  store beside the doctrees).

Before the new builds each site is built cold and then once more, so the
measured builds start from a warm cache, as a CI job's next run does.  The
new builds of the two histories alternate (``--repeats`` of each, one more
build each time) and each figure is their median, so a change in the
machine's load falls on both alike.  The
ratio of the long history's time to the short one's is the figure to watch
(target: within 1.25x).  The archives are ``bench_site.py``'s; the sites are
``bench_scale.py``'s (a dashboard and ten pages of per-test graphs).

Beside the times it prints what the store site's build wrote (its output,
doctrees and caches, by the files' times) and how much of that is the saved
searches: bytes that grow with the history whatever the machine, where the
times depend on its disk and memory.

Usage::

    python benchmarks/bench_incremental.py [--history 60] [--tests 2000] [--testbeds 2]
        [--repeats 3] [--quick] [--workdir DIR] [--profile DIR] [--phases DIR]

``--quick`` is ``--history 20 --tests 500 --testbeds 1``.  ``--profile DIR``
writes cProfile dumps of the measured ingest and builds into DIR.
``--phases DIR`` times each measured build's phases (``phase_timers.py``:
reading, histories, grouping and its workers' CPU, summaries, figures,
writing) and prints their medians side by side, the ratio per phase.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scale import CONF, STORE_CONF, TESTBEDS, job_of, settled_disk, write_site
from bench_site import build_path, write_build
from site_files import published_files, written_since

LONGER = 6
"""How many times longer the long history is."""
CLOCK_SLACK_NS = 1_000_000_000
"""How much earlier than a build's start a file's time may be and still count as
written by it: file times come from a coarser clock than ``time.time_ns()``."""
PHASE_TIMERS = Path(__file__).resolve().parent / "phase_timers.py"
SITES = ("store", "embedded")


@dataclass(frozen=True)
class Timing:
    ingest: float
    store_build: float
    embedded_build: float
    peak_gb: float
    published_mb: float
    written_mb: float
    """What the store site's build wrote (output, doctrees and caches)."""
    searches_mb: float
    """Of that, the saved searches (see ``analysis/search_store.py``)."""

    @property
    def from_store(self) -> float:
        return self.ingest + self.store_build


def _command(profile: Path | None, name: str, module_or_script: list[str]) -> list[str]:
    if profile is None:
        return [sys.executable, *module_or_script]
    dump = str(profile / f"{name}.prof")
    return [sys.executable, "-m", "cProfile", "-o", dump, *module_or_script]


def _build_command(profile: Path | None, phases: Path | None, name: str, root: Path) -> list[str]:
    """``sphinx-build`` of ``root``, profiled, or its phases timed into the file ``phases``."""
    arguments = ["-b", "html", "-q", str(root), str(root / "_build")]
    if phases is not None:
        return [sys.executable, str(PHASE_TIMERS), str(phases), *arguments]
    return _command(profile, name, ["-m", "sphinx", *arguments])


def ingest(archive: Path, store: Path, profile: Path | None = None, name: str = "") -> float:
    """Seconds of one ``sphinx-trending ingest`` (parsing in-process) into ``store``."""
    script = str(Path(sys.executable).with_name("sphinx-trending"))
    arguments = [script, "ingest", str(archive / "*.xml.gz"), "--store", str(store), "--quiet"]
    settled_disk()
    started = time.perf_counter()
    subprocess.run(_command(profile, name, arguments), check=True, capture_output=True)
    return time.perf_counter() - started


def sphinx_build(
    root: Path, profile: Path | None = None, name: str = "", phases: Path | None = None
) -> tuple[float, float]:
    """Seconds and peak memory (GB) of one ``sphinx-build`` of ``root``; ``phases`` is the
    file its phases' times are added to (see ``phase_timers.py``)."""
    settled_disk()
    started = time.perf_counter()
    with subprocess.Popen(
        _build_command(profile, phases, name, root),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    ) as build:
        assert build.stderr is not None
        errors = build.stderr.read()
        _, status, usage = os.wait4(build.pid, 0)
        build.returncode = os.waitstatus_to_exitcode(status)
    if build.returncode:
        raise RuntimeError(f"sphinx-build {root} failed:\n{errors.decode()}")
    return time.perf_counter() - started, usage.ru_maxrss / 1024**2


def published_mb(output: Path) -> float:
    """What a site's output weighs as published: every file but Sphinx's hidden ones."""
    return sum(path.stat().st_size for path in published_files(output)) / 1e6


def _link_history(source: Path, target: Path, builds: int, testbeds: tuple[str, ...]) -> None:
    """``target`` holds builds 1..``builds`` of ``source`` (hard links: no copies)."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for testbed in testbeds:
        for build in range(1, builds + 1):
            job = job_of(testbed)
            os.link(build_path(source, build, job), build_path(target, build, job))


def prepare(root: Path, pool: Path, builds: int, testbeds: tuple[str, ...]) -> None:
    """Store and embedded sites over ``builds`` builds, built cold and once more (warm)."""
    shutil.rmtree(root, ignore_errors=True)
    _link_history(pool, root / "archive", builds, testbeds)
    write_site(root / "store-site", STORE_CONF)
    write_site(root / "embedded-site", CONF)
    ingest(root / "archive", root / "store")
    for site in (root / "store-site", root / "embedded-site"):
        sphinx_build(site)
        sphinx_build(site)


def new_build(
    root: Path,
    pool: Path,
    build: int,
    testbeds: tuple[str, ...],
    profile: Path | None,
    phases: Path | None = None,
) -> Timing:
    """Build number ``build`` arrives: ingest and rebuild the store site, rebuild the embedded."""
    for testbed in testbeds:
        job = job_of(testbed)
        os.link(build_path(pool, build, job), build_path(root / "archive", build, job))
    name = f"{root.name}-{build}"
    ingested = ingest(root / "archive", root / "store", profile, f"{name}-ingest")
    store_site = root / "store-site"
    timed = {site: phases and phases / f"{root.name}-{site}.jsonl" for site in SITES}
    since = time.time_ns() - CLOCK_SLACK_NS
    store_build, store_peak = sphinx_build(
        store_site, profile, f"{name}-store-build", timed["store"]
    )
    written = written_since(store_site, since)
    embedded, embedded_peak = sphinx_build(
        root / "embedded-site", profile, f"{name}-embedded", timed["embedded"]
    )
    peak = max(store_peak, embedded_peak)
    return Timing(
        ingested,
        store_build,
        embedded,
        peak,
        published_mb(store_site / "_build"),
        sum(written.values()) / 1e6,
        sum(size for path, size in written.items() if ".searches/" in path) / 1e6,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=int, default=60, help="H: the short history's builds")
    parser.add_argument("--tests", type=int, default=2000, help="tests per testbed")
    parser.add_argument("--testbeds", type=int, default=2, choices=range(1, len(TESTBEDS) + 1))
    parser.add_argument("--quick", action="store_true", help="--history 20 --tests 500")
    parser.add_argument(
        "--workdir", type=Path, default=Path(__file__).parent / "_work" / "incremental"
    )
    parser.add_argument("--profile", type=Path, help="write cProfile dumps into this folder")
    parser.add_argument("--phases", type=Path, help="time each build's phases into this folder")
    parser.add_argument(
        "--repeats", type=int, default=3, help="new builds on each history, alternating (median)"
    )
    args = parser.parse_args()
    if args.quick:
        args.history, args.tests, args.testbeds = 20, 500, 1
    testbeds = TESTBEDS[: args.testbeds]
    short, long = args.history, args.history * LONGER
    pool = args.workdir / "pool"
    pool.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    for testbed in testbeds:
        for build in range(1, long + args.repeats + 1):
            if not build_path(pool, build, job_of(testbed)).exists():
                write_build(pool, build, args.tests, job_of(testbed), testbed)
    print(
        f"{len(testbeds) * args.tests} series (10 trials a run), histories of {short} and "
        f"{long} builds, one new build on each (archives ready in "
        f"{time.perf_counter() - started:.1f} s)"
    )
    for folder in (args.profile, args.phases):
        if folder:
            folder.mkdir(parents=True, exist_ok=True)
    if args.phases:
        for old in args.phases.glob("*.jsonl"):
            old.unlink()
    for builds in (short, long):
        prepare(args.workdir / f"h{builds}", pool, builds, testbeds)
    # the two histories' new builds alternate, so a change in the machine's
    # load falls on both alike; each figure is the median of the repeats
    measured: dict[int, list[Timing]] = {short: [], long: []}
    for repeat in range(1, args.repeats + 1):
        for builds in (short, long):
            root = args.workdir / f"h{builds}"
            measured[builds].append(
                new_build(root, pool, builds + repeat, testbeds, args.profile, args.phases)
            )
    timings = {
        builds: Timing(
            *(
                statistics.median(getattr(timing, field.name) for timing in found)
                for field in dataclasses.fields(Timing)
            )
        )
        for builds, found in measured.items()
    }
    rows = [
        ("store: ingest of the new build", lambda timing: timing.ingest),
        ("store: sphinx-build", lambda timing: timing.store_build),
        ("store: ingest + build", lambda timing: timing.from_store),
        ("embedded: sphinx-build", lambda timing: timing.embedded_build),
        ("peak memory (GB)", lambda timing: timing.peak_gb),
        ("published site (MB)", lambda timing: timing.published_mb),
        ("store build wrote (MB)", lambda timing: timing.written_mb),
        ("  of which saved searches (MB)", lambda timing: timing.searches_mb),
    ]
    heading = f"one new build, median of {args.repeats}"
    print(f"\n{heading:<32} {f'H={short}':>9} {f'6H={long}':>9}   6H / H (target <= 1.25)")
    for label, value in rows:
        first, second = value(timings[short]), value(timings[long])
        print(f"{label:<32} {first:9.2f} {second:9.2f}   {second / first:.2f}x")
    if args.phases:
        for site in SITES:
            print_phases(args.phases, site, short, long)
    return 0


def print_phases(folder: Path, site: str, short: int, long: int) -> None:
    """The median seconds of each phase of the ``site``'s measured builds, H beside 6H."""
    medians = []
    for builds in (short, long):
        found: defaultdict[str, list[float]] = defaultdict(list)
        with open(folder / f"h{builds}-{site}.jsonl", encoding="utf-8") as lines:
            for line in lines:
                for phase, value in json.loads(line).items():
                    found[phase].append(value)
        medians.append({phase: statistics.median(values) for phase, values in found.items()})
    print(f"\n{site} build's phases (s, median)  {f'H={short}':>9} {f'6H={long}':>9}")
    for phase in sorted(medians[0].keys() | medians[1].keys()):
        first, second = (found.get(phase, 0.0) for found in medians)
        ratio = f"{second / first:.2f}x" if first else ""
        print(f"{phase:<32} {first:9.2f} {second:9.2f}   {ratio}")


if __name__ == "__main__":
    sys.exit(main())
