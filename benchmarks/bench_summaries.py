"""Time the summaries a build makes of its series, as its graph pages ask for them.

Usage::

    python benchmarks/bench_summaries.py --store PATH [--series 2000] [--repeat 7]

The mrr histories of a store (read as the parquet format) are grouped
once; then each repetition summarises them again from fresh histories (made
anew by :func:`.histories`, as a build's are) with their groupings given,
as a build does with groupings from its cache or its workers.  Printed:
the median and lowest microseconds per series, in the process's CPU time
(on a machine others load, a wait for the processor is not the code's).

It times the code it imports: run it with one tree, then the other, in
turn, to compare two versions.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Sequence

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.ingest import SourceSpec, load


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True, help="a trending store")
    parser.add_argument("--series", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    builds = list(load(SourceSpec(paths=(args.store,), format="parquet")).builds)
    options = TrendOptions()
    found = histories(builds, "mrr")[: args.series]
    end = max(history.runs[-1].time for history in found)
    grouped = [summarize(history, options, end).result for history in found]
    seconds = []
    for _ in range(args.repeat):
        fresh = histories(builds, "mrr")[: args.series]
        gc.collect()
        gc.freeze()  # as a build freezes what it loaded
        started = time.process_time()
        for history, result in zip(fresh, grouped, strict=True):
            summarize(history, options, end, classified=result)
        seconds.append(time.process_time() - started)
        gc.unfreeze()
    runs = sum(len(history.runs) for history in found)
    print(
        f"{len(found)} series, {runs / len(found):.0f} runs each: summaries"
        f" {statistics.median(seconds) * 1e6 / len(found):.1f} us/series median,"
        f" {min(seconds) * 1e6 / len(found):.1f} lowest"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
