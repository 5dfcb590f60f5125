"""How fast ``sphinx-trending check --all`` judges every build, against the reference.

``--all`` judges each build on the history up to it, which takes one
grouping per run of every test.  The reference way to do the same is to call
jumpavg 0.4.2's ``classify`` on every prefix.  Both run here on the same
synthetic histories (noise, random level shifts, a few failed runs); the
script checks that both give the same verdicts and prints the time ratio,
then times the whole workload (BUILDS x TESTS) alone, in wall-clock and CPU
seconds, against ``--budget`` seconds (exit status 1 if over).

    python benchmarks/check_all.py [--builds 180] [--tests 300] [--compare 20] [--budget S]

Issue 13's target: ``--builds 200 --tests 2000 --compare 0 --budget 60``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import datetime, timedelta, timezone

from reference_verdicts import reference_reasons  # the sibling file: run as a script

from sphinxcontrib_trending.analysis.history import TestHistory, histories
from sphinxcontrib_trending.analysis.summary import TrendOptions
from sphinxcontrib_trending.analysis.verdicts import judge_every_build
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult

START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def synthetic_builds(builds: int, tests: int, seed: int) -> list[Build]:
    """Daily builds of one job; every test has 10 trials, 2 % noise, 0-3 level shifts."""
    rng = random.Random(seed)
    levels = [rng.uniform(5e6, 30e6) for _ in range(tests)]
    shifts = [
        {
            rng.randrange(10, builds): rng.choice([0.8, 0.9, 1.1, 1.2])
            for _ in range(rng.randrange(4))
        }
        for _ in range(tests)
    ]
    result = []
    for index in range(builds):
        results = []
        for number in range(tests):
            levels[number] *= shifts[number].get(index, 1.0)
            failed = rng.random() < 0.01
            values = tuple(levels[number] * (1 + rng.gauss(0, 0.02)) for _ in range(10))
            results.append(
                TestResult(
                    test_id=f"suite.test{number:04d}",
                    name=f"test{number:04d}",
                    suite="suite",
                    tags=("MRR",),
                    status="FAIL" if failed else "PASS",
                    start=None,
                    message="failed" if failed else "",
                    measurements=() if failed else (Measurement("mrr", "pps", values),),
                )
            )
        result.append(
            Build(
                "job",
                str(index + 1),
                START + timedelta(days=index),
                None,
                None,
                "-",
                tuple(results),
            )
        )
    return result


def reference_for(history: TestHistory) -> list[str]:
    return reference_reasons(
        [run.average if run.status == "PASS" else None for run in history.runs]
    )


def ours(
    builds: list[Build], selected: list[TestHistory], search: str = "jumpavg"
) -> dict[str, list[str]]:
    every = judge_every_build("bench", selected, builds, TrendOptions(search=search))
    found: dict[str, list[str]] = {history.key: [] for history in selected}
    for entry in reversed(every):
        for verdict in entry.verdicts:
            found[verdict.history.key].append(verdict.reason.value)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--builds", type=int, default=180)
    parser.add_argument("--tests", type=int, default=300)
    parser.add_argument("--compare", type=int, default=20, help="tests timed against jumpavg")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--budget", type=float, default=None, help="seconds the whole workload may take"
    )
    args = parser.parse_args()

    builds = synthetic_builds(args.builds, args.tests, args.seed)
    selected = histories(builds, "mrr")
    subset = selected[: args.compare]
    subset_keys = {history.key for history in subset}
    subset_builds = [
        Build(
            b.job,
            b.build,
            b.time,
            None,
            None,
            "-",
            tuple(t for t in b.tests if f"{t.test_id}" in subset_keys),
        )
        for b in builds
    ]

    started = time.perf_counter()
    expected = {history.key: reference_for(history) for history in subset}
    reference_seconds = time.perf_counter() - started
    started = time.perf_counter()
    found = ours(subset_builds, subset)
    our_seconds = time.perf_counter() - started
    started = time.perf_counter()
    ours(subset_builds, subset, search="exact")
    exact_seconds = time.perf_counter() - started
    mismatches = [key for key in expected if expected[key] != found[key]]
    print(f"{args.compare} tests x {args.builds} builds, every build judged:")
    print(f"  reference (jumpavg 0.4.2 classify per prefix): {reference_seconds:.2f} s")
    print(
        f"  check --all --search jumpavg: {our_seconds:.2f} s, "
        f"{reference_seconds / our_seconds:.1f}x faster than the reference"
    )
    print(
        f"  check --all (exact search, the default): {exact_seconds:.2f} s, "
        f"{reference_seconds / exact_seconds:.1f}x faster than the reference"
    )
    print(
        f"  verdicts identical to the reference: {len(expected) - len(mismatches)}/{len(expected)}"
    )

    started, cpu_started = time.perf_counter(), time.process_time()
    ours(builds, selected, search="exact")
    total, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    print(
        f"{args.tests} tests x {args.builds} builds, check --all (exact): {total:.1f} s "
        f"({cpu:.1f} s CPU), {total / args.tests * 1000:.0f} ms per test"
    )
    over = args.budget is not None and total > args.budget
    if args.budget is not None:
        print(f"  budget {args.budget:.0f} s: {'MISSED' if over else 'met'}")
    return 1 if mismatches or over else 0


if __name__ == "__main__":
    sys.exit(main())
