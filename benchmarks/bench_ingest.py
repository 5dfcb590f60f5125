"""Ingest benchmark: our streaming reader against the reference and against bare lxml.

Generates (once) a plain RF 7 ``output.xml`` of at least ``--size-mb`` (default
200 MB) made of real robot output, then measures, each in a fresh process so
peak RSS is that reader's own:

* ``ours``     - ``sphinxcontrib_trending.ingest.load`` (no cache): the whole path;
* ``reference`` - ``robot.api.ExecutionResult`` + a ``ResultVisitor`` reading each
  test's long name, tags, status and message (what the reference CSIT parser did);
* ``bare``     - a bare ``lxml.etree.iterparse`` loop: ``end`` events, each
  element cleared (``bare-noclear`` skips the clear and builds the whole tree).

Prints seconds, MB/s, peak RSS and the ratios the project targets:
reference / ours >= 10 and ours speed / bare speed >= 0.5 (against the faster
bare variant).  A separate run reports the Python heap peak (tracemalloc) of
ours.  Usage: ``python benchmarks/bench_ingest.py [--size-mb 200] [--repeat 2]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / "_work"


Reader = Callable[[Path], int]


def _ours() -> Reader:
    from sphinxcontrib_trending.ingest import SourceSpec, load

    def read(path: Path) -> int:
        dataset = load(SourceSpec(paths=(str(path),)))
        return sum(len(build.tests) for build in dataset.builds)

    return read


def _reference() -> Reader:
    from robot.api import ExecutionResult, ResultVisitor

    class Collect(ResultVisitor):
        def __init__(self) -> None:
            self.rows: list[tuple[str, tuple[str, ...], str, str]] = []

        def visit_test(self, test: Any) -> None:
            self.rows.append((test.full_name, tuple(test.tags), test.status, test.message))

    def read(path: Path) -> int:
        collector = Collect()
        ExecutionResult(str(path)).visit(collector)
        return len(collector.rows)

    return read


def _bare(clear: bool) -> Callable[[], Reader]:
    def prepare() -> Reader:
        from lxml import etree

        def read(path: Path) -> int:
            tests = 0
            for _event, element in etree.iterparse(str(path), events=("end",)):
                if element.tag == "test":
                    tests += 1
                if clear:
                    element.clear()
            return tests

        return read

    return prepare


READERS: dict[str, Callable[[], Reader]] = {
    "ours": _ours,
    "reference": _reference,
    "bare": _bare(clear=True),
    "bare-noclear": _bare(clear=False),
}


def measure(name: str, path: Path, traced: bool) -> dict[str, float]:
    """Runs in the child process: one reader, one file."""
    reader = READERS[name]()  # imports happen here, outside the timing
    if traced:
        import tracemalloc

        tracemalloc.start()
    started = time.perf_counter()
    tests = reader(path)
    seconds = time.perf_counter() - started
    result = {
        "seconds": seconds,
        "tests": tests,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    if traced:
        result["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    return result


def _child(name: str, path: Path, traced: bool = False) -> dict[str, float]:
    command = [sys.executable, __file__, "--measure", name, str(path)]
    if traced:
        command.append("--traced")
    completed = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(completed.stdout.strip().splitlines()[-1])


def _ensure_file(size_mb: int) -> Path:
    sys.path.insert(0, str(ROOT))
    from tools.make_robot_archive import write_large_output

    path = WORK / f"job__1__output_{size_mb}mb.xml"
    if not path.exists() or path.stat().st_size < size_mb * 10**6:
        WORK.mkdir(parents=True, exist_ok=True)
        print(f"generating {path.name} ...", file=sys.stderr, flush=True)
        write_large_output(path, target_bytes=size_mb * 10**6)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument(
        "--repeat", type=int, default=2, help="runs of the fast readers (best kept)"
    )
    parser.add_argument("--skip-reference", action="store_true", help="omit the slow RF reader")
    parser.add_argument("--measure", nargs=2, metavar=("READER", "FILE"), help=argparse.SUPPRESS)
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure[0], Path(args.measure[1]), args.traced)))
        return 0

    path = _ensure_file(args.size_mb)
    megabytes = path.stat().st_size / 10**6
    print(f"file: {path.name}, {megabytes:.1f} MB")
    results: dict[str, dict[str, float]] = {}
    names = ["bare", "bare-noclear", "ours"] + ([] if args.skip_reference else ["reference"])
    for name in names:
        runs = [_child(name, path) for _ in range(1 if name == "reference" else args.repeat)]
        results[name] = min(runs, key=lambda run: run["seconds"])
        best = results[name]
        print(
            f"{name:>13}: {best['seconds']:8.2f} s  {megabytes / best['seconds']:7.1f} MB/s  "
            f"peak RSS {best['peak_rss_mb']:8.1f} MB  tests {best['tests']:.0f}"
        )
    counts = {run["tests"] for run in results.values()}
    if len(counts) != 1:
        print(f"MISMATCH: readers saw different test counts {counts}")
        return 1
    traced = _child("ours", path, traced=True)
    print(f"ours under tracemalloc: Python heap peak {traced['tracemalloc_peak_mb']:.1f} MB")

    ours = results["ours"]["seconds"]
    fastest_bare = min(results["bare"]["seconds"], results["bare-noclear"]["seconds"])
    share = fastest_bare / ours
    print(f"ratio bare speed share (fastest bare time / ours time): {share:.2f}  target >= 0.5")
    if "reference" in results:
        speedup = results["reference"]["seconds"] / ours
        memory = results["reference"]["peak_rss_mb"] / results["ours"]["peak_rss_mb"]
        print(
            f"ratio speed-up vs reference (reference time / ours time): {speedup:.1f}  target >= 10"
        )
        print(f"ratio peak RSS reference / ours: {memory:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
