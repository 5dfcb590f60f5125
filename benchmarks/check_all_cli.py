"""``sphinx-trending check --all`` as a CI runs it: a CSV table in, the verdicts out.

``check_all.py`` times the walk over every build on histories made in
memory; a CI also pays for reading the table and for everything the
command keeps while it judges.  This script writes ``check_all.py``'s
synthetic histories (``--tests`` x ``--builds``, 10 trials a run, 1 % failed
runs) as one CSV file, then runs the command on it twice in one run: with
the package as it was at ``--before`` (a git revision, unpacked to a
temporary folder) and with this checkout's.  Each run is a process of its
own, so its peak resident memory is the kernel's account of that process
alone; times are wall-clock and CPU seconds.  Both runs must print the same
verdicts (exit status 1 otherwise)::

    python benchmarks/check_all_cli.py [--tests 2000] [--builds 200] [--before REVISION]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from check_all import synthetic_builds  # the sibling file: run as a script

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "sphinxcontrib_trending"
BEFORE_MEMORY_WORK = "a91aa4e"
"""main when the table reader still kept its rows and check kept the builds' results."""


@dataclass(frozen=True)
class Measured:
    wall: float
    cpu: float
    peak_mb: float
    status: int
    output_digest: str


def write_table(path: Path, tests: int, builds: int) -> None:
    """One row per test and build, as a CI system without Robot would export them."""
    with path.open("w", encoding="utf-8") as table:
        table.write("test,build,time,status,values\n")
        for build in synthetic_builds(builds, tests, seed=1):
            stamp = build.time.isoformat()
            for test in build.tests:
                values = ";".join(
                    repr(value) for measurement in test.measurements for value in measurement.values
                )
                table.write(f"{test.test_id},{build.build},{stamp},{test.status},{values}\n")


def unpack(revision: str, folder: Path) -> Path:
    """The package as it was at ``revision``, importable from the returned folder."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", revision, PACKAGE],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def check_all(tree: Path, table: Path, output: Path) -> Measured:
    """One ``check --all`` in a process of its own, its verdicts written to ``output``."""
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-m", PACKAGE, "check", "--all", "--format", "csv", str(table)]
    started = time.perf_counter()
    with output.open("wb") as printed:
        process = subprocess.Popen(
            command, env=environment, stdout=printed, stderr=subprocess.DEVNULL, cwd=tree
        )
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    digest = hashlib.sha256(output.read_bytes()).hexdigest()
    return Measured(
        wall=wall,
        cpu=usage.ru_utime + usage.ru_stime,
        peak_mb=usage.ru_maxrss / 1024,  # KiB on Linux
        status=process.returncode,
        output_digest=digest,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--builds", type=int, default=200)
    parser.add_argument(
        "--before",
        default=BEFORE_MEMORY_WORK,
        help="git revision measured as 'before' (default: the one before issue 30's memory work)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        table = folder / "results.csv"
        write_table(table, args.tests, args.builds)
        size = table.stat().st_size / 1e6
        print(f"check --all, {args.tests:,} tests x {args.builds} builds ({size:.0f} MB CSV):")
        before_tree = unpack(args.before, folder / "before")
        runs = {
            f"before ({args.before})": check_all(before_tree, table, folder / "before.txt"),
            "after (this checkout)": check_all(ROOT, table, folder / "after.txt"),
        }
        for name, measured in runs.items():
            print(
                f"  {name:<24} {measured.wall:6.1f} s wall, {measured.cpu:6.1f} s CPU, "
                f"peak {measured.peak_mb:,.0f} MB, exit {measured.status}",
                flush=True,
            )
        before, after = runs.values()
        print(
            f"  after/before: {after.wall / before.wall:.2f} wall, {after.cpu / before.cpu:.2f} "
            f"CPU, {after.peak_mb / before.peak_mb:.2f} peak memory"
        )
        same = before.output_digest == after.output_digest and before.status == after.status
        print(f"  verdicts identical: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
