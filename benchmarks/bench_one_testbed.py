"""One testbed's new build on a site with a graph page per testbed, before and after a change.

CSIT's jobs run a testbed at a time, and its trending site has a page of
graphs per testbed.  This benchmark builds such a site (a dashboard over
every series and a page of per-test graphs for each testbed, whose source
is a results store) twice side by side: with the package as it was at
``--before`` (a git revision, unpacked to a folder) and with this
checkout's, each site with its own cache.  Both are built cold; then, per
repeat, a new build of one testbed (the testbeds in turn) is written,
ingested into the store and both sites built again, in alternating order.

It prints each build's wall time and peak memory, the medians and their
ratio, the pages each side read, and whether the two sites publish the
same files byte for byte (exit status 1 if not).

``--workdir`` keeps the archives and the store between runs: a store that
is already there is only brought up to date (``sphinx-trending ingest``
parses what is new), so a full-size data set made by ``bench_scale.py`` can
be used as it is::

    python benchmarks/bench_one_testbed.py [--testbeds 4] [--tests 500] [--builds 60]
        [--repeats 3] [--before REVISION] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scale import TESTBEDS, job_of
from bench_site import build_path, write_build
from check_all_cli import unpack
from site_files import published

ROOT = Path(__file__).resolve().parents[1]
BEFORE_PAGE_REUSE = "894945e"
"""main before a new build read again only the pages that may show it."""
ENV_VERSIONS = re.compile(rb'"envversion":\{[^}]*\},?')
CONF = """extensions = ["sphinxcontrib_trending"]
exclude_patterns = ["_build"]
trending_sources = {{"mrr": {{"format": "parquet", "paths": ["{store}"]}}}}
"""


def write_site(root: Path, store: Path, testbeds: tuple[str, ...]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "conf.py").write_text(CONF.format(store=store))
    pages = ["dashboard", *testbeds]
    (root / "index.rst").write_text(
        "Testbeds\n========\n\n.. toctree::\n\n" + "".join(f"   {page}\n" for page in pages)
    )
    (root / "dashboard.rst").write_text(
        "Dashboard\n=========\n\n.. trending-dashboard::\n   :source: mrr\n"
    )
    for testbed in testbeds:
        (root / f"{testbed}.rst").write_text(
            f"{testbed}\n{'=' * len(testbed)}\n\n.. trending-graph::\n   :source: mrr\n"
            f"   :filter: testbed={testbed}\n   :per-test:\n"
        )


def ingest(archive: Path, store: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [
            str(Path(sys.executable).with_name("sphinx-trending")),
            *("ingest", str(archive / "*.xml.gz"), "--store", str(store)),
            *("--workers", "2", "--quiet"),
        ],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def sphinx_build(tree: Path, root: Path) -> tuple[float, float, int]:
    """Seconds, peak memory (GB) and pages read of one ``sphinx-build`` with ``tree``'s package."""
    command = [sys.executable, "-m", "sphinx", "-b", "html", str(root), str(root / "_build")]
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    started = time.perf_counter()
    with subprocess.Popen(
        command,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=tree,  # python -m puts the working folder first on the path
    ) as build:
        assert build.stdout is not None
        output = build.stdout.read()
        _, status, usage = os.wait4(build.pid, 0)
        build.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    if build.returncode:
        raise RuntimeError(f"sphinx-build failed: {output[-2000:]}")
    return seconds, usage.ru_maxrss / 1024**2, _pages_read(output)


def _pages_read(output: str) -> int:
    """How many pages Sphinx said it read (``reading sources... [ 50%] page``)."""
    return output.count("reading sources... [")


def published_here(outdir: Path) -> dict[str, bytes]:
    """:func:`.published`, Sphinx's search index without the extensions' versions of the
    environment (a change may raise ours)."""
    found = published(outdir)
    if "searchindex.js" in found:
        found["searchindex.js"] = ENV_VERSIONS.sub(b"", found["searchindex.js"])
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--testbeds", type=int, default=4)
    parser.add_argument("--tests", type=int, default=500)
    parser.add_argument("--builds", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before", default=BEFORE_PAGE_REUSE)
    parser.add_argument(
        "--workdir", type=Path, default=Path(__file__).parent / "_work" / "one-testbed"
    )
    args = parser.parse_args()
    testbeds = TESTBEDS[: args.testbeds]
    archive, store = args.workdir / "archive", args.workdir / "store"
    archive.mkdir(parents=True, exist_ok=True)
    newest = {}
    for testbed in testbeds:
        build = 1
        while build <= args.builds or build_path(archive, build, job_of(testbed)).exists():
            if not build_path(archive, build, job_of(testbed)).exists():
                write_build(archive, build, args.tests, job_of(testbed), testbed)
            build += 1
        newest[testbed] = build - 1
    print(f"store brought up to date in {ingest(archive, store):.1f} s")

    with tempfile.TemporaryDirectory() as folder:
        trees = {
            f"before ({args.before})": unpack(args.before, Path(folder) / "before"),
            "after": ROOT,
        }
        sites = {}
        for number, (side, tree) in enumerate(trees.items()):
            sites[side] = Path(folder) / f"site-{number}"
            write_site(sites[side], store, testbeds)
            seconds, peak, pages = sphinx_build(tree, sites[side])
            print(f"{side}: cold {seconds:.1f} s, peak {peak:.2f} GB, {pages} pages read")
        times: dict[str, list[float]] = {side: [] for side in trees}
        for repeat in range(args.repeats):
            testbed = testbeds[repeat % len(testbeds)]
            newest[testbed] += 1
            write_build(archive, newest[testbed], args.tests, job_of(testbed), testbed)
            took = ingest(archive, store)
            order = list(trees) if repeat % 2 == 0 else list(reversed(trees))
            for side in order:
                seconds, peak, pages = sphinx_build(trees[side], sites[side])
                times[side].append(seconds)
                print(
                    f"{side}: {testbed} build {newest[testbed]} (ingest {took:.1f} s): "
                    f"{seconds:.1f} s, peak {peak:.2f} GB, {pages} pages read"
                )
        before, after = (statistics.median(times[side]) for side in trees)
        print(
            f"\nmedian of {args.repeats}: before {before:.1f} s, after {after:.1f} s, "
            f"after/before {after / before:.2f}"
        )
        first, second = (published_here(site / "_build") for site in sites.values())
        differing = sorted(
            name for name in first.keys() | second.keys() if first.get(name) != second.get(name)
        )
        if differing:
            print(f"the two sites differ in {len(differing)} file(s): {', '.join(differing[:5])}")
            return 1
        print(f"both sites publish the same {len(first)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
