"""Build a trending site for 1,000 tests x 180 builds: cold, warm, one build added.

Each build is one gzipped RF7-shaped ``output.xml`` (suites, tests, keywords,
messages, statuses, as Robot Framework writes them) with ten MRR trials per
test.  The site has a dashboard over every test, a failed-tests table and ten
pages of per-test graphs.  Every build runs ``sphinx-build`` in a fresh
process, so nothing is remembered between builds but what is on disk.

For scale, the reference MDL search (jumpavg 0.4.2, when installed) is timed
on a sample of the same series in the same run, and extrapolated to all of
them.

Usage::

    python benchmarks/bench_site.py [--tests 1000] [--builds 180] [--graph-pages 10]
        [--workdir DIR] [-j 1 2]

``--graph-pages 1`` puts every test's graph on one page, the worst case for
page size; the size of the largest graph page (HTML plus the data files it
loads) is printed after the builds.  With ``-j 1 2`` every build is timed with
``sphinx-build -j 1`` and with ``-j 2`` (each from an empty output folder and
cache), side by side.
"""

from __future__ import annotations

import argparse
import gzip
import random
import re
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from xml.sax.saxutils import escape

JOB = "csit-vpp-perf-mrr-daily-master-2n-skx"
START = datetime(2026, 1, 1, 2, 0, tzinfo=timezone.utc)
GRAPH_PAGES = 10
SUITES = 20

CONF = """extensions = ["sphinxcontrib_trending"]
trending_sources = {"mrr": {"paths": ["archive/*.xml.gz"]}}
"""


def _level(test: int, build: int) -> float:
    """Every tenth test regresses at some build, every 25th progresses."""
    base = 5e6 + (test * 7919) % 20_000_000
    if test % 10 == 0 and build >= 60 + test % 100:
        base *= 0.85
    if test % 25 == 0 and build >= 120:
        base *= 1.1
    return base


def _test_xml(test: int, build: int, moment: datetime, rng: random.Random) -> str:
    cores = ("1T1C", "2T1C", "4T2C")[test % 3]
    name = f"tc{test % 100:02d}-64b-{cores.lower()}-case{test:04d}-mrr"
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.000000")
    failed = (test * 31 + build) % 97 == 0
    if failed:
        status, message = "FAIL", "Traffic generator reported no received packets"
    else:
        level = _level(test, build)
        trials = ", ".join(f"{level * (1 + rng.gauss(0, 0.02)):.1f}" for _ in range(10))
        status = "PASS"
        message = f"Maximum Receive Rate trial results in packets per second: [{trials}]"
    return (
        f'<test id="s1-s{test % SUITES + 1}-t{test}" name="{name}" line="10">'
        f'<kw name="Send traffic at specified rate" owner="performance">'
        f'<msg time="{stamp}" level="INFO">Trial duration 1.0 s</msg>'
        f'<status status="{status}" start="{stamp}" elapsed="10.5"/></kw>'
        f"<tag>MRR</tag><tag>{cores}</tag><tag>64B</tag>"
        f'<status status="{status}" start="{stamp}" elapsed="12.0">{escape(message)}</status>'
        "</test>"
    )


def build_path(folder: Path, build: int, job: str = JOB) -> Path:
    return folder / f"{job}__{build}__output_info.xml.gz"


def write_build(
    folder: Path, build: int, tests: int, job: str = JOB, testbed: str = "2n-skx"
) -> Path:
    moment = START + timedelta(days=build - 1)
    rng = random.Random(build)
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.000000")
    suites = []
    for suite in range(SUITES):
        body = "".join(_test_xml(test, build, moment, rng) for test in range(suite, tests, SUITES))
        suites.append(
            f'<suite id="s1-s{suite + 1}" name="Suite{suite:02d}" '
            f'source="/csit/suite{suite}.robot">'
            f'<kw name="Show Vpp Version On All Duts" type="SETUP">'
            f'<msg time="{stamp}" level="INFO">VPP version: 26.02-rc0~{build}</msg>'
            f'<status status="PASS" start="{stamp}" elapsed="0.1"/></kw>'
            f'{body}<status status="PASS" start="{stamp}" elapsed="600.0"/></suite>'
        )
    document = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<robot generator="Robot 7.1 (Python 3.11.7 on linux)" generated="{stamp}" '
        'rpa="false" schemaversion="5">'
        f'<suite id="s1" name="Tests" source="/csit/tests">'
        f'<meta name="testbed">{testbed}</meta>{"".join(suites)}'
        f'<status status="PASS" start="{stamp}" elapsed="3600.0"/></suite>'
        "<statistics/><errors/></robot>"
    )
    path = build_path(folder, build, job)
    path.write_bytes(gzip.compress(document.encode(), compresslevel=6))
    return path


def write_site(root: Path, graph_pages: int) -> None:
    (root / "conf.py").write_text(CONF)
    pages = ["dashboard", "failed"] + [f"graphs{page}" for page in range(graph_pages)]
    (root / "index.rst").write_text(
        "Benchmark site\n==============\n\n.. toctree::\n\n"
        + "".join(f"   {page}\n" for page in pages)
    )
    (root / "dashboard.rst").write_text(
        "Dashboard\n=========\n\n.. trending-dashboard::\n   :source: mrr\n"
    )
    (root / "failed.rst").write_text(
        "Failed\n======\n\n.. trending-failed-tests::\n   :source: mrr\n"
    )
    for page in range(graph_pages):
        # One page holds every test; ten pages split them by the last digit.
        tests = f"   :tests: case\\d\\d\\d{page}-\n" if graph_pages == GRAPH_PAGES else ""
        (root / f"graphs{page}.rst").write_text(
            f"Graphs {page}\n=========\n\n.. trending-graph::\n   :source: mrr\n"
            f"{tests}   :per-test:\n"
        )


def sphinx_build(root: Path, jobs: int = 1) -> tuple[float, int | None, str]:
    started = time.perf_counter()
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-j",
            str(jobs),
            "--no-color",
            str(root),
            str(root / "_build" / "html"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    elapsed = time.perf_counter() - started
    parsed = re.search(r"\[trending\] source 'mrr': .*?, (\d+) parsed", completed.stdout)
    reread = re.search(r"(\d+) added, (\d+) changed", completed.stdout)
    pages = f"{reread.group(1)} added, {reread.group(2)} changed" if reread else "?"
    return elapsed, int(parsed.group(1)) if parsed else 0, pages


def print_page_sizes(html: Path) -> None:
    """The largest graph page: its HTML alone, and with the data files beside it."""
    pages = sorted(html.glob("graphs*.html"), key=lambda path: path.stat().st_size)
    if not pages:
        return
    largest = pages[-1]
    data = sum(path.stat().st_size for path in html.glob(f"{largest.stem}.*.js"))
    print(
        f"\nlargest graph page {largest.name}: {largest.stat().st_size / 1e6:.1f} MB HTML, "
        f"{data / 1e6:.1f} MB graph data loaded on demand"
    )


def reference_mdl_seconds(root: Path, tests: int, sample: int) -> float | None:
    """The reference search on ``sample`` series of this site, scaled to all of them."""
    try:
        import jumpavg
    except ImportError:
        return None
    from sphinxcontrib_trending.analysis.history import histories
    from sphinxcontrib_trending.ingest import SourceSpec, load

    dataset = load(SourceSpec(paths=(str(root / "archive" / "*.xml.gz"),)))
    series = histories(dataset.builds, "mrr")[:sample]
    started = time.perf_counter()
    for history in series:
        jumpavg.classify([run.average for run in history.runs if run.measured])
    return (time.perf_counter() - started) * tests / len(series)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=1000)
    parser.add_argument("--builds", type=int, default=180)
    parser.add_argument("--workdir", type=Path, default=Path(__file__).parent / "_work" / "site")
    parser.add_argument(
        "--graph-pages",
        type=int,
        choices=(1, GRAPH_PAGES),
        default=GRAPH_PAGES,
        help="graph pages: 1 (every test on one page) or 10 (split by test number)",
    )
    parser.add_argument("--reference-sample", type=int, default=50)
    parser.add_argument(
        "-j", "--jobs", type=int, nargs="+", default=[1], help="sphinx-build -j values to time"
    )
    args = parser.parse_args()

    root: Path = args.workdir
    shutil.rmtree(root, ignore_errors=True)
    archive = root / "archive"
    archive.mkdir(parents=True)
    started = time.perf_counter()
    for build in range(1, args.builds + 1):
        write_build(archive, build, args.tests)
    write_site(root, args.graph_pages)
    print(
        f"generated {args.builds} archives of {args.tests} tests "
        f"in {time.perf_counter() - started:.1f} s"
    )

    timings: dict[int, list[tuple[str, float, int | None, str]]] = {}
    for jobs in args.jobs:
        shutil.rmtree(root / "_build", ignore_errors=True)
        build_path(archive, args.builds + 1).unlink(missing_ok=True)
        rows = [("cold (empty cache, no environment)", *sphinx_build(root, jobs))]
        rows.append(("warm (nothing changed)", *sphinx_build(root, jobs)))
        write_build(archive, args.builds + 1, args.tests)
        rows.append(("one build added", *sphinx_build(root, jobs)))
        timings[jobs] = rows

    columns = "".join(f" {f'-j {jobs} s':>8}" for jobs in args.jobs)
    print(f"\n{'build':<36}{columns} {'files parsed':>13}   pages re-read")
    first = timings[args.jobs[0]]
    for number, (label, _seconds, parsed, pages) in enumerate(first):
        seconds = "".join(f" {timings[jobs][number][1]:8.1f}" for jobs in args.jobs)
        print(f"{label:<36}{seconds} {parsed:13d}   {pages}")
    rows = first
    print_page_sizes(root / "_build" / "html")
    reference = reference_mdl_seconds(root, args.tests, args.reference_sample)
    if reference is not None:
        print(
            f"\nreference MDL search alone (jumpavg 0.4.2), {args.reference_sample} series "
            f"timed, scaled to {args.tests}: {reference:.1f} s"
        )
        print(f"cold site build / reference MDL alone: {rows[0][1] / reference:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
