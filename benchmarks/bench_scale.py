"""Issue 28's targets at CSIT's size: 10 testbeds x 2,000 tests x 180 builds, 10 trials a run.

Generates the data set (one gzipped RF7-shaped ``output.xml`` per testbed and
build, the same shape as ``bench_site.py``'s) and measures, side by side in
one run, what exists when it runs:

- parsing: every archive parsed through ``map_ordered`` in-process, on a
  local Dask cluster of 1 worker and of 2 workers, every parsed build coming
  back to this process, and the same parse sending back only counts;
- ``sphinx-trending ingest --store`` on 1 and on 2 local workers (target: 2
  at least 1.8x faster than 1), whose tasks write their rows into the store
  and send back only the files' records;
- the site built from a results store: ``sphinx-trending ingest --store``
  on 2 local workers, then ``sphinx-build`` of a site whose source is that
  store (``format: parquet``): cold, one new build (ingest of its archives +
  rebuild), no change, with peak memory;
- the same site built the embedded way (archives straight into
  ``sphinx-build``, which keeps its own store beside the doctrees): cold,
  one new build, no change, with peak memory.

The site from the store has issue 28's targets: cold under 60 s, no change
under 1.5 s, one new build (its ingest and the rebuild) under 10 s, every
build's peak under 2 GB.  Each row says whether its target is met, and the
exit status is 1 when one is not (at ``--scale 1`` only: a smaller data set
meets them trivially).

``--scale 0.05`` shrinks the number of tests and testbeds for a quick run;
``--skip-parse`` leaves out the raw parse rows (the ``ingest`` rows still
measure the parse on 1 and 2 workers).

Usage::

    python benchmarks/bench_scale.py [--scale 1.0] [--builds 180] [--workdir DIR] [--skip-parse]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_site import build_path, write_build

from sphinxcontrib_trending.engine import map_ordered
from sphinxcontrib_trending.ingest import SourceSpec
from sphinxcontrib_trending.ingest.tasks import ParseJob, parse_file

TESTBEDS = ("2n-skx", "3n-skx", "2n-clx", "2n-icx", "3n-icx", "2n-zn2", "3n-tsh", "2n-tx2")
TESTBEDS += ("3n-alt", "3n-snr")
TESTS = 2000
BUILDS = 180
GRAPH_PAGES = 10

CONF = """extensions = ["sphinxcontrib_trending"]
exclude_patterns = ["_build"]
trending_sources = {"mrr": {"paths": ["../archive/*.xml.gz"]}}
"""
STORE_CONF = """extensions = ["sphinxcontrib_trending"]
exclude_patterns = ["_build"]
trending_sources = {"mrr": {"format": "parquet", "paths": ["../store"]}}
"""


@dataclass(frozen=True)
class Size:
    testbeds: tuple[str, ...]
    tests: int
    builds: int

    @property
    def archives(self) -> int:
        return len(self.testbeds) * self.builds


@dataclass
class Targets:
    """The targets the rows were checked against, and which of them were missed."""

    missed: list[str] = field(default_factory=list)

    def note(self, met: bool, measured: str, target: str) -> str:
        """A row's note: what was measured, the target, and whether it was met."""
        if not met:
            self.missed.append(f"{target} ({measured})")
        return f"{measured} ({target}: {'met' if met else 'MISSED'})"


def job_of(testbed: str) -> str:
    return f"csit-vpp-perf-mrr-daily-master-{testbed}"


def generate(archive: Path, size: Size) -> None:
    archive.mkdir(parents=True, exist_ok=True)
    for testbed in size.testbeds:
        for build in range(1, size.builds + 1):
            if not build_path(archive, build, job_of(testbed)).exists():
                write_build(archive, build, size.tests, job_of(testbed), testbed)


def beyond_the_data_set(archive: Path, size: Size) -> list[Path]:
    """The archive folder's files that are not the data set's, such as the new build
    of an earlier run or builds a measurement added by hand: every row ingests the
    whole folder, so one of them left there changes what each row measures (a
    build the new one rewrites is a change in the middle of every history)."""
    wanted = {
        build_path(archive, build, job_of(testbed))
        for testbed in size.testbeds
        for build in range(1, size.builds + 1)
    }
    return sorted(path for path in archive.glob("*.xml.gz") if path not in wanted)


def write_site(root: Path, conf: str = CONF) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "conf.py").write_text(conf)
    pages = ["dashboard"] + [f"graphs{page}" for page in range(GRAPH_PAGES)]
    (root / "index.rst").write_text(
        "Scale\n=====\n\n.. toctree::\n\n" + "".join(f"   {page}\n" for page in pages)
    )
    (root / "dashboard.rst").write_text(
        "Dashboard\n=========\n\n.. trending-dashboard::\n   :source: mrr\n"
    )
    for page in range(GRAPH_PAGES):
        (root / f"graphs{page}.rst").write_text(
            f"Graphs {page}\n=========\n\n.. trending-graph::\n   :source: mrr\n"
            f"   :tests: case\\d\\d\\d{page}-\n   :per-test:\n"
        )


def parsed_counts(job: ParseJob) -> tuple[int, int]:
    """A parse that sends back only counts, as a task writing its rows to a store would."""
    parsed = parse_file(job)
    return len(parsed.builds), len(parsed.problems)


def timed_ingest(
    files: list[str], workers: int | None, task: Callable[[ParseJob], object] = parse_file
) -> float:
    spec = SourceSpec(paths=tuple(files))
    started = time.perf_counter()
    map_ordered(task, [ParseJob(path, spec) for path in files], workers=workers)
    return time.perf_counter() - started


def settled_disk() -> None:
    """Flush what earlier rows wrote before a row is timed.

    A cold build writes over a gigabyte, which the kernel writes back in the
    following seconds on the same two cores: without this, the row after it
    pays for that.  Each row's own writes still count in its time.
    """
    os.sync()


def cli_ingest(archive: Path, store: Path, workers: int) -> float:
    """Seconds of one ``sphinx-trending ingest`` of every archive into ``store``."""
    settled_disk()
    started = time.perf_counter()
    subprocess.run(
        [
            str(Path(sys.executable).with_name("sphinx-trending")),
            "ingest",
            str(archive / "*.xml.gz"),
            *("--store", str(store), "--workers", str(workers), "--quiet"),
        ],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def sphinx_build(root: Path) -> tuple[float, float]:
    """Seconds and peak memory (GB) of one ``sphinx-build``.

    The peak is that build's own largest process (its forked workers
    included), from ``wait4``: the whole run's children would report the
    largest of every build so far.
    """
    settled_disk()
    started = time.perf_counter()
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-q", str(root), str(root / "_build")]
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as build:
        assert build.stderr is not None
        errors = build.stderr.read()
        _, status, usage = os.wait4(build.pid, 0)
        build.returncode = os.waitstatus_to_exitcode(status)
    if build.returncode:
        raise subprocess.CalledProcessError(build.returncode, command, stderr=errors)
    return time.perf_counter() - started, usage.ru_maxrss / 1024**2


def parse_rows(files: list[str]) -> list[tuple[str, str, str]]:
    """Every archive parsed through map_ordered: in-process, on 1 and on 2 workers."""
    serial = timed_ingest(files, None)
    one = timed_ingest(files, 1)
    two = timed_ingest(files, 2)
    rows = [
        ("parse, builds back, in-process", f"{serial:.1f} s", ""),
        ("parse, builds back, 1 worker", f"{one:.1f} s", ""),
        ("parse, builds back, 2 workers", f"{two:.1f} s", f"{one / two:.2f}x"),
    ]
    one = timed_ingest(files, 1, parsed_counts)
    two = timed_ingest(files, 2, parsed_counts)
    rows.append(("parse, counts back, 1 worker", f"{one:.1f} s", ""))
    rows.append(("parse, counts back, 2 workers", f"{two:.1f} s", f"{one / two:.2f}x"))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of tests and testbeds")
    parser.add_argument("--builds", type=int, default=BUILDS)
    parser.add_argument("--workdir", type=Path, default=Path(__file__).parent / "_work" / "scale")
    parser.add_argument(
        "--skip-parse",
        action="store_true",
        help="leave out the raw parse rows (map_ordered in-process and on 1 and 2 workers)",
    )
    args = parser.parse_args()
    size = Size(
        testbeds=TESTBEDS[: max(1, round(len(TESTBEDS) * args.scale))],
        tests=max(GRAPH_PAGES * 2, round(TESTS * args.scale)),
        builds=args.builds,
    )
    root: Path = args.workdir
    archive = root / "archive"
    started = time.perf_counter()
    generate(archive, size)
    extra = beyond_the_data_set(archive, size)
    for path in extra:
        path.unlink()
    ready = time.perf_counter() - started
    print(
        f"data set: {len(size.testbeds)} testbeds x {size.tests} tests x {size.builds} builds, "
        f"10 trials a run: {size.archives} archives (ready in {ready:.1f} s"
        + (f"; {len(extra)} other archives removed from {archive})" if extra else ")")
    )
    files = sorted(str(path) for path in archive.glob("*.xml.gz"))

    rows: list[tuple[str, str, str]] = []
    targets = Targets()
    if not args.skip_parse:
        rows += parse_rows(files)

    store, store_site = root / "store", root / "store-site"
    shutil.rmtree(store, ignore_errors=True)
    shutil.rmtree(store_site, ignore_errors=True)
    write_site(store_site, STORE_CONF)
    one = cli_ingest(archive, store, 1)
    rows.append(("store: ingest, 1 worker (CLI)", f"{one:.1f} s", ""))
    shutil.rmtree(store)
    two = cli_ingest(archive, store, 2)
    rows.append(
        (
            "store: ingest, 2 workers (CLI)",
            f"{two:.1f} s",
            targets.note(one / two >= 1.8, f"{one / two:.2f}x", "target >= 1.8x"),
        )
    )
    cold, peak = sphinx_build(store_site)
    rows.append(
        (
            "site from store: cold",
            f"{cold:.1f} s",
            targets.note(
                cold < 60 and peak < 2, f"peak {peak:.2f} GB", "target < 60 s, peak < 2 GB"
            ),
        )
    )
    unchanged, peak = sphinx_build(store_site)
    rows.append(
        (
            "site from store: no change",
            f"{unchanged:.1f} s",
            targets.note(unchanged < 1.5 and peak < 2, f"peak {peak:.2f} GB", "target < 1.5 s"),
        )
    )

    # a folder of its own: a site's source folder is every page below it, and
    # the store site's pages must not become the embedded site's too; cold means
    # no parse kept either (the cache sits beside the output folder)
    embedded = root / "embedded-site"
    shutil.rmtree(embedded, ignore_errors=True)
    write_site(embedded)
    cold, peak = sphinx_build(embedded)
    rows.append(("site embedded: cold", f"{cold:.1f} s", f"peak {peak:.2f} GB"))
    unchanged, peak = sphinx_build(embedded)
    rows.append(("site embedded: no change", f"{unchanged:.1f} s", f"peak {peak:.2f} GB"))
    added = time.perf_counter()
    for testbed in size.testbeds:
        write_build(archive, size.builds + 1, size.tests, job_of(testbed), testbed)
    generated = time.perf_counter() - added
    new_build, peak = sphinx_build(embedded)
    rows.append(
        (
            "site embedded: one new build",
            f"{new_build:.1f} s",
            f"peak {peak:.2f} GB ({generated:.1f} s writing its archives not counted)",
        )
    )
    ingested = cli_ingest(archive, store, 2)
    rebuilt, peak = sphinx_build(store_site)
    rows.append(
        (
            "site from store: one new build",
            f"{ingested + rebuilt:.1f} s",
            targets.note(
                ingested + rebuilt < 10 and peak < 2,
                f"ingest {ingested:.1f} s + build {rebuilt:.1f} s, peak {peak:.2f} GB",
                "target < 10 s, peak < 2 GB",
            ),
        )
    )

    print(f"\n{'measurement':<34} {'time':>9}   notes")
    for label, seconds, note in rows:
        print(f"{label:<34} {seconds:>9}   {note}")
    if targets.missed and args.scale >= 1:
        print(f"\ntargets missed: {', '.join(targets.missed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
