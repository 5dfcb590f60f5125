"""Issue 30's slow paths, each timed the old way and the new way in one run, with the ratio.

- ``check`` on one test whose every run is a new largest value (a rising
  series, ``--runs`` of them): the newest build's verdict reached by
  extending one search run by run, as it was, against its two prefixes
  grouped afresh, as now;
- a gzipped CSV of ``--tests`` tests in one build, over ``max_tests``: read
  whole with the cap above its size (what was done before the cap was
  checked), against read with the cap ``--tests // 3``, refused as the count
  passes it;
- a gzipped tar of ``--documents`` CSIT JSON documents (one test each) of
  one build, the same way with the cap ``--documents // 3``;
- the same documents as separate files in a folder, the same way (before,
  a build joined from separate files was not held to the cap at all);
- ``check --all`` on ``--all-tests`` tests of 200 builds (``check_all.py``'s
  histories): the gate grouped again after the walk over every build, as it
  was, against the gate read from the walk.

Times are CPU seconds of this process (the machine may be shared), and the
verdicts and problems of both ways are checked to agree::

    python benchmarks/slow_paths.py [--runs 3000] [--tests 300000] [--documents 30000]
                                    [--all-tests 100]
"""

from __future__ import annotations

import argparse
import copy
import gzip
import io
import json
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from check_all import synthetic_builds  # the sibling file: run as a script

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.many import classify_series, series_cache, series_jobs
from sphinxcontrib_trending.analysis.summary import TrendOptions
from sphinxcontrib_trending.analysis.verdicts import (
    _Judge,
    judge_every_build,
    judge_latest,
    newest_verdicts,
)
from sphinxcontrib_trending.ingest import Dataset, SourceSpec, load
from sphinxcontrib_trending.ingest.limits import ReadLimits
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult
from tests.ingest.test_csit_json import JOB, document

T = TypeVar("T")
START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def cpu_seconds(action: Callable[[], T]) -> tuple[float, T]:
    started = time.process_time()
    result = action()
    return time.process_time() - started, result


def show(what: str, before: float, after: float) -> None:
    print(
        f"{what}: before {before:.2f} s, after {after:.2f} s, {before / after:.2f}x faster",
        flush=True,
    )


def rising_series(runs: int) -> None:
    builds = [
        Build(
            "job",
            str(number + 1),
            START + timedelta(hours=number),
            None,
            None,
            "-",
            (
                TestResult(
                    test_id="s.t",
                    name="t",
                    suite="s",
                    tags=(),
                    status="PASS",
                    start=None,
                    message="",
                    measurements=(Measurement("mrr", "pps", (1e6 + 100.0 * number,)),),
                ),
            ),
        )
        for number in range(runs)
    ]
    (history,) = histories(builds, "mrr")
    options = TrendOptions(search="exact")
    walked = _Judge("s", history, options, walking=True)
    before, old = cpu_seconds(lambda: walked.verdict(runs - 1))
    after, (new,) = cpu_seconds(lambda: judge_latest("s", [history], builds, options))
    assert old == new, (old, new)
    show(f"check, one rising test of {runs:,} runs", before, after)


def read(path: Path, fmt: str, max_tests: int) -> Dataset:
    spec = SourceSpec(paths=(str(path),), format=fmt, limits=ReadLimits(max_tests=max_tests))
    return load(spec)


def capped(path: Path, fmt: str, tests: int, what: str) -> None:
    before, whole = cpu_seconds(lambda: read(path, fmt, tests + 1))
    after, refused = cpu_seconds(lambda: read(path, fmt, tests // 3))
    assert len(whole.builds[0].tests) == tests, "the whole file is read under a higher cap"
    assert refused.builds == [] and "max_tests" in refused.problems[0].message
    show(what, before, after)


def table(folder: Path, tests: int) -> None:
    rows = "".join(f"s.t{number},1,2024-01-01T00:00:00Z,1.0;2.0\n" for number in range(tests))
    path = folder / "many.csv.gz"
    path.write_bytes(gzip.compress(("test,build,time,values\n" + rows).encode(), 9))
    size = path.stat().st_size // 1024
    capped(path, "csv", tests, f"CSV of {tests:,} tests ({size:,} KB gzip), refused at the cap")


def csit(folder: Path, documents: int) -> None:
    path = folder / "logs.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for number in range(documents):
            doc = copy.deepcopy(document("mrr", name=f"64b-2t1c-ethip4-ip4base-case{number}-mrr"))
            data = json.dumps(doc).encode()
            member = tarfile.TarInfo(f"{JOB}/77/archives/tests/x/case{number}.info.json")
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data))
    size = path.stat().st_size // 1024
    what = f"CSIT JSON, {documents:,} one-test documents ({size:,} KB tar.gz), refused at the cap"
    capped(path, "csit-json", documents, what)


def csit_folder(folder: Path, documents: int) -> None:
    tests = folder / "logs" / JOB / "77" / "archives" / "tests" / "x"
    tests.mkdir(parents=True)
    for number in range(documents):
        doc = document("mrr", name=f"64b-2t1c-ethip4-ip4base-case{number}-mrr")
        (tests / f"case{number:06d}.info.json").write_text(json.dumps(doc))
    what = f"CSIT JSON, {documents:,} one-test files in a folder, refused at the cap"
    capped(folder / "logs", "csit-json", documents, what)


def every_build(tests: int) -> None:
    builds = synthetic_builds(200, tests, seed=1)
    selected = histories(builds, "mrr")
    options = TrendOptions(search="exact")

    def regrouped() -> list[object]:
        judge_every_build("s", selected, builds, options)  # the walk, whose gate was dropped
        jobs = series_jobs(selected, options.grouping)
        whole = classify_series(jobs, series_cache(None, "s", options.grouping))
        return judge_latest("s", selected, builds, options, whole)  # type: ignore[return-value]

    def walked() -> list[object]:
        every = judge_every_build("s", selected, builds, options)
        return newest_verdicts(every, selected, builds)  # type: ignore[return-value]

    before, old = cpu_seconds(regrouped)
    after, new = cpu_seconds(walked)
    assert old == new
    show(f"check --all, {tests:,} tests x 200 builds", before, after)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3000)
    parser.add_argument("--tests", type=int, default=300_000)
    parser.add_argument("--documents", type=int, default=30_000)
    parser.add_argument("--all-tests", type=int, default=100)
    args = parser.parse_args()
    every_build(args.all_tests)
    rising_series(args.runs)
    with tempfile.TemporaryDirectory() as folder:
        table(Path(folder), args.tests)
        csit(Path(folder), args.documents)
        csit_folder(Path(folder), args.documents)
    return 0


if __name__ == "__main__":
    sys.exit(main())
